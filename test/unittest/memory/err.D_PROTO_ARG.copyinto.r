dtrace: failed to compile script err.D_PROTO_ARG.copyinto.d: [D_PROTO_ARG] line 6: copyinto( ) argument #3 is incompatible with prototype:
	prototype: void *
	 argument: string
