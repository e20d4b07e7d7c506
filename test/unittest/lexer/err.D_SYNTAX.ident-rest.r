dtrace: failed to compile script err.D_SYNTAX.ident-rest.d: [D_SYNTAX] line 5: syntax error near "new_int;"
