dtrace: failed to compile script err.D_PROTO_ARG.copyinstr-ptr.d: [D_PROTO_ARG] line 7: copyinstr( ) argument #1 is incompatible with prototype:
	prototype: uintptr_t
	 argument: const char *
