dtrace: failed to compile script err.D_OP_INCOMPAT.int-to-pointer.d: [D_OP_INCOMPAT] line 5: operands have incompatible types: "struct task_struct *" = "pid_t"
