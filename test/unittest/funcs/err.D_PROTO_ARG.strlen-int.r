dtrace: failed to compile script err.D_PROTO_ARG.strlen-int.d: [D_PROTO_ARG] line 4: strlen( ) argument #1 is incompatible with prototype:
	prototype: const char *
	 argument: int
