dtrace: failed to compile script err.D_OP_INT.mod-assign.d: [D_OP_INT] line 5: operator %= requires operands of integral type
