dtrace: failed to compile script err.D_PROTO_LEN.copyinstr-few.d: [D_PROTO_LEN] line 4: copyinstr( ) prototype mismatch: 0 args passed, at least 1 expected
