dtrace: failed to compile script err.D_OP_SCALAR.not.d: [D_OP_SCALAR] line 6: operator ! requires an operand of scalar type
