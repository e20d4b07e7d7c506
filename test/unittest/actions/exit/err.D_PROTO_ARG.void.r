dtrace: failed to compile script err.D_PROTO_ARG.void.d: [D_PROTO_ARG] line 4: exit( ) argument #1 is incompatible with prototype:
	prototype: int
	 argument: void
