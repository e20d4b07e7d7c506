dtrace: failed to compile script err.D_OP_ARRFUN.array.d: [D_OP_ARRFUN] line 7: operator = may not be applied to operand of type "int [3]"
