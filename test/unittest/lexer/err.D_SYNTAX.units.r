dtrace: failed to compile script err.D_SYNTAX.units.d: [D_SYNTAX] line 4: syntax error near "ms;"
