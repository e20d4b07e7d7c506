dtrace: failed to compile script err.D_OP_WRITE.uregs.d: [D_OP_WRITE] line 4: operator = can only be applied to a writable variable
