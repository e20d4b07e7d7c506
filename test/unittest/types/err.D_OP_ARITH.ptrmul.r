dtrace: failed to compile script err.D_OP_ARITH.ptrmul.d: [D_OP_ARITH] line 4: operator * requires operands of arithmetic type
