dtrace: failed to compile script err.D_OP_SCALAR.next-line.d: [D_OP_SCALAR] line 7: operator && requires operands of scalar type
