dtrace: failed to compile script err.D_PROTO_LEN.copyin.d: [D_PROTO_LEN] line 6: copyin( ) prototype mismatch: 1 arg passed, 2 expected
