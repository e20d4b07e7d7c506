dtrace: failed to compile script err.D_OP_SCALAR.incr.d: [D_OP_SCALAR] line 6: operator ++ requires operand of scalar type
