dtrace: failed to compile script err.D_PROTO_LEN.stop.d: [D_PROTO_LEN] line 6: stop( ) prototype mismatch: 1 arg passed, 0 expected
