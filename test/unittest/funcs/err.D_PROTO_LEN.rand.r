dtrace: failed to compile script err.D_PROTO_LEN.rand.d: [D_PROTO_LEN] line 3: rand( ) prototype mismatch: 1 arg passed, 0 expected
