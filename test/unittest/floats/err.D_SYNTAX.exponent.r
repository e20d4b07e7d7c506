dtrace: failed to compile script err.D_SYNTAX.exponent.d: [D_SYNTAX] line 4: floating-point constants are not permitted
