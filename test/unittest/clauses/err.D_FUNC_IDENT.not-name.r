dtrace: failed to compile script err.D_FUNC_IDENT.not-name.d: [D_FUNC_IDENT] line 4: function designator is not of function type
