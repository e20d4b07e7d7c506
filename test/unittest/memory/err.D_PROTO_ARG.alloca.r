dtrace: failed to compile script err.D_PROTO_ARG.alloca.d: [D_PROTO_ARG] line 6: alloca( ) argument #1 is incompatible with prototype:
	prototype: size_t
	 argument: string
