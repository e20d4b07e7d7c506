dtrace: failed to compile script err.D_PROTO_ARG.printf-int.d: [D_PROTO_ARG] line 4: printf( ) argument #1 is incompatible with prototype:
	prototype: string
	 argument: int
