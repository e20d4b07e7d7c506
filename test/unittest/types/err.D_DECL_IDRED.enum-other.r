dtrace: failed to compile script err.D_DECL_IDRED.enum-other.d: [D_DECL_IDRED] line 3: identifier redeclared: ONE
