dtrace: failed to compile script err.D_PROTO_ARG.normalize.d: [D_PROTO_ARG] line 5: normalize( ) argument #2 is incompatible with prototype:
	prototype: uint64_t
	 argument: string
