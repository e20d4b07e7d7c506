dtrace: failed to compile script err.D_PROTO_ARG.bcopy-into-string.d: [D_PROTO_ARG] line 5: bcopy( ) argument #2 is incompatible with prototype:
	prototype: void *
	 argument: string
