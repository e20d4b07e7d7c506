dtrace: failed to compile script err.D_PROTO_ARG.d_path.d: [D_PROTO_ARG] line 4: d_path( ) argument #1 is incompatible with prototype:
	prototype: struct path *
	 argument: struct task_struct *
