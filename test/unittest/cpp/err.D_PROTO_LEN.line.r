dtrace: failed to compile script err.D_PROTO_LEN.line.d: [D_PROTO_LEN] line 100: exit( ) prototype mismatch: 2 args passed, 1 expected
