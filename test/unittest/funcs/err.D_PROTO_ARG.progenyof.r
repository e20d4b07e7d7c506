dtrace: failed to compile script err.D_PROTO_ARG.progenyof.d: [D_PROTO_ARG] line 3: progenyof( ) argument #1 is incompatible with prototype:
	prototype: pid_t
	 argument: string
