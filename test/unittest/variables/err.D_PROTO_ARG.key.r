dtrace: failed to compile script err.D_PROTO_ARG.key.d: [D_PROTO_ARG] line 9: x[ ] key #2 is incompatible with prototype:
	prototype: string
	      key: int
