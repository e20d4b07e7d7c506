dtrace: failed to compile script err.D_PROTO_ARG.strstr.d: [D_PROTO_ARG] line 6: strstr( ) argument #1 is incompatible with prototype:
	prototype: const char *
	 argument: int
