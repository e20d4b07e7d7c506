dtrace: failed to compile script err.D_PROTO_LEN.copyinstr-many.d: [D_PROTO_LEN] line 4: copyinstr( ) prototype mismatch: 3 args passed, at most 2 expected
