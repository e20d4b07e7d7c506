dtrace: failed to compile script err.D_PROTO_LEN.strtok.d: [D_PROTO_LEN] line 6: strtok( ) prototype mismatch: 1 arg passed, 2 expected
