dtrace: failed to compile script err.D_PROTO_ARG.inet_ntoa.d: [D_PROTO_ARG] line 4: inet_ntoa( ) argument #1 is incompatible with prototype:
	prototype: ipaddr_t *
	 argument: int
