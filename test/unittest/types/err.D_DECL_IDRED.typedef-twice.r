dtrace: failed to compile script err.D_DECL_IDRED.typedef-twice.d: [D_DECL_IDRED] line 3: typedef redeclared: new_int
