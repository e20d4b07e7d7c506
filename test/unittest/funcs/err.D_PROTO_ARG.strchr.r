dtrace: failed to compile script err.D_PROTO_ARG.strchr.d: [D_PROTO_ARG] line 3: strchr( ) argument #2 is incompatible with prototype:
	prototype: char
	 argument: string
