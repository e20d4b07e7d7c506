dtrace: failed to compile script err.D_PRAGMA_OPTSET.cpppath.d: [D_PRAGMA_OPTSET] line 5: failed to set option 'cpppath' to '/usr/bin/cpp': Option cannot be used from within a D program
