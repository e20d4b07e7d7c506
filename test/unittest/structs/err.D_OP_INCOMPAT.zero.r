dtrace: failed to compile script err.D_OP_INCOMPAT.zero.d: [D_OP_INCOMPAT] line 6: operands have incompatible types: "struct task_struct" = "int"
