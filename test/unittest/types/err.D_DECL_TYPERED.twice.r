dtrace: failed to compile script err.D_DECL_TYPERED.twice.d: [D_DECL_TYPERED] line 3: type redeclared: struct s
