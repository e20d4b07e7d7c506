dtrace: failed to compile script err.D_PROTO_ARG.trunc.d: [D_PROTO_ARG] line 5: trunc( ) argument #2 is incompatible with prototype:
	prototype: int64_t
	 argument: dynamic variable
