dtrace: failed to compile script err.D_PROTO_ARG.getmajor.d: [D_PROTO_ARG] line 6: getmajor( ) argument #1 is incompatible with prototype:
	prototype: vmlinux`dev_t
	 argument: string
