dtrace: failed to compile script err.D_OP_ARITH.add.d: [D_OP_ARITH] line 6: operator + requires operands of arithmetic type
