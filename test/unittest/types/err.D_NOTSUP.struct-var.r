dtrace: failed to compile script err.D_NOTSUP.struct-var.d: [D_NOTSUP] line 4: variables of type struct task_struct are not yet supported
