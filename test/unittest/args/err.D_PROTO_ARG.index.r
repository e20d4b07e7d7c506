dtrace: failed to compile script err.D_PROTO_ARG.index.d: [D_PROTO_ARG] line 4: args[ ] argument #1 is incompatible with prototype:
	prototype: integer constant
	 argument: int64_t
