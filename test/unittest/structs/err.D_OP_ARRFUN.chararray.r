dtrace: failed to compile script err.D_OP_ARRFUN.chararray.d: [D_OP_ARRFUN] line 10: operator = may not be applied to operand of type "char [8]"
