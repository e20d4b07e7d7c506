dtrace: failed to compile script err.D_OP_PTR.arrow-nonptr.d: [D_OP_PTR] line 5: operator -> must be applied to a pointer
