dtrace: failed to compile script err.D_PROTO_ARG.strtoll.d: [D_PROTO_ARG] line 6: strtoll( ) argument #2 is incompatible with prototype:
	prototype: int
	 argument: string
