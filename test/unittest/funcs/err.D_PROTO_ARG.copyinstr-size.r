dtrace: failed to compile script err.D_PROTO_ARG.copyinstr-size.d: [D_PROTO_ARG] line 4: copyinstr( ) argument #2 is incompatible with prototype:
	prototype: size_t
	 argument: string
