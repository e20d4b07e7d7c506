dtrace: failed to compile script err.D_PROTO_ARG.exit-ptr.d: [D_PROTO_ARG] line 4: exit( ) argument #1 is incompatible with prototype:
	prototype: int
	 argument: struct task_struct *
