dtrace: failed to compile script err.D_PROTO_LEN.index.d: [D_PROTO_LEN] line 3: index( ) prototype mismatch: 1 arg passed, at least 2 expected
