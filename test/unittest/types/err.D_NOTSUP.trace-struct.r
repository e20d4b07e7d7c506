dtrace: failed to compile script err.D_NOTSUP.trace-struct.d: [D_NOTSUP] line 4: tracing a value of type struct task_struct is not yet supported
