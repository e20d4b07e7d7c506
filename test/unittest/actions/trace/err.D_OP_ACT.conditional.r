dtrace: failed to compile script err.D_OP_ACT.conditional.d: [D_OP_ACT] line 5: action cannot be used in a conditional context
