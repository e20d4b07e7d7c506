dtrace: failed to compile script err.D_PROTO_ARG.rw_read_held.d: [D_PROTO_ARG] line 6: rw_read_held( ) argument #1 is incompatible with prototype:
	prototype: vmlinux`rwlock_t *
	 argument: struct task_struct *
