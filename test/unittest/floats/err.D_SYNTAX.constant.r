dtrace: failed to compile script err.D_SYNTAX.constant.d: [D_SYNTAX] line 4: floating-point constants are not permitted
