dtrace: failed to compile script err.D_PROTO_ARG.strjoin.d: [D_PROTO_ARG] line 4: strjoin( ) argument #2 is incompatible with prototype:
	prototype: const char *
	 argument: int
