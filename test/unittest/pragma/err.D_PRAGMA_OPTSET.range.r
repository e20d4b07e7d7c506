dtrace: failed to compile script err.D_PRAGMA_OPTSET.range.d: [D_PRAGMA_OPTSET] line 5: failed to set option 'strsize' to '1m': Invalid value for specified option
