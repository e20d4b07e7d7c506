dtrace: failed to compile script err.D_PROTO_ARG.const.d: [D_PROTO_ARG] line 4: copyinstr( ) argument #1 is incompatible with prototype:
	prototype: uintptr_t
	 argument: const struct cred *
