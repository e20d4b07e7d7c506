dtrace: failed to compile script err.D_PROTO_ARG.ntohs.d: [D_PROTO_ARG] line 4: ntohs( ) argument #1 is incompatible with prototype:
	prototype: uint16_t
	 argument: string
