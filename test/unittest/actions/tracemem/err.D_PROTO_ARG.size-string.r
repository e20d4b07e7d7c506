dtrace: failed to compile script err.D_PROTO_ARG.size-string.d: [D_PROTO_ARG] line 4: tracemem( ) argument #2 is incompatible with prototype:
	prototype: size_t
	 argument: string
