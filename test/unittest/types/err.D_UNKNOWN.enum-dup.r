dtrace: failed to compile script err.D_UNKNOWN.enum-dup.d: [D_UNKNOWN] line 9: failed to define enumerator 'GREEN': Duplicate member or variable name
