dtrace: failed to compile script err.D_PROTO_ARG.strrchr.d: [D_PROTO_ARG] line 6: strrchr( ) argument #2 is incompatible with prototype:
	prototype: char
	 argument: string
