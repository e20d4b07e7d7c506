dtrace: failed to compile script err.D_PROTO_ARG.raise.d: [D_PROTO_ARG] line 6: raise( ) argument #1 is incompatible with prototype:
	prototype: int
	 argument: string
