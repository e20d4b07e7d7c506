dtrace: failed to compile script err.D_PROTO_LEN.ftruncate.d: [D_PROTO_LEN] line 6: ftruncate( ) prototype mismatch: 1 arg passed, 0 expected
