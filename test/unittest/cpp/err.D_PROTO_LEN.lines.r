dtrace: failed to compile script err.D_PROTO_LEN.lines.d: [D_PROTO_LEN] line 21: exit( ) prototype mismatch: 2 args passed, 1 expected
