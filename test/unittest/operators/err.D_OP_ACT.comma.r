dtrace: failed to compile script err.D_OP_ACT.comma.d: [D_OP_ACT] line 4: operator , operands cannot be actions
