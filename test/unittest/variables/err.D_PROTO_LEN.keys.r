dtrace: failed to compile script err.D_PROTO_LEN.keys.d: [D_PROTO_LEN] line 9: x[ ] prototype mismatch: 3 keys passed, 2 expected
