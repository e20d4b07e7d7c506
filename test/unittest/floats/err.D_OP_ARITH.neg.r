dtrace: failed to compile script err.D_OP_ARITH.neg.d: [D_OP_ARITH] line 6: operator - requires an operand of arithmetic type
