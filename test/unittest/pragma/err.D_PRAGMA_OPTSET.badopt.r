dtrace: failed to compile script err.D_PRAGMA_OPTSET.badopt.d: [D_PRAGMA_OPTSET] line 1: failed to set option 'nosuchoption': Invalid option name
