dtrace: failed to compile script err.D_PROTO_ARG.copyoutstr.d: [D_PROTO_ARG] line 6: copyoutstr( ) argument #2 is incompatible with prototype:
	prototype: uintptr_t
	 argument: string
