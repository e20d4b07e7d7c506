dtrace: failed to compile script err.D_UNKNOWN.enum-dup.d: [D_UNKNOWN] line 8: failed to define enumerator 'GREEN': Duplicate member or variable name
