dtrace: failed to compile script err.D_SYNTAX.typedef-in-clause.d: [D_SYNTAX] line 4: syntax error near "typedef"
