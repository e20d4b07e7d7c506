dtrace: failed to compile script err.D_OP_INT.mod.d: [D_OP_INT] line 6: operator % requires operands of integral type
