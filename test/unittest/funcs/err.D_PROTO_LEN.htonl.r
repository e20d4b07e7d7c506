dtrace: failed to compile script err.D_PROTO_LEN.htonl.d: [D_PROTO_LEN] line 4: htonl( ) prototype mismatch: 2 args passed, 1 expected
