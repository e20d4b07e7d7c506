dtrace: failed to compile script err.D_OP_INCOMPLETE.forward.d: [D_OP_INCOMPLETE] line 4: operator -> cannot be applied to a forward declaration: no struct undefined_here definition is available
