dtrace: failed to compile script err.D_PROTO_LEN.cleanpath.d: [D_PROTO_LEN] line 6: cleanpath( ) prototype mismatch: 0 args passed, 1 expected
