dtrace: failed to compile script err.D_PROTO_ARG.mutex_owned.d: [D_PROTO_ARG] line 6: mutex_owned( ) argument #1 is incompatible with prototype:
	prototype: vmlinux`struct mutex *
	 argument: int
