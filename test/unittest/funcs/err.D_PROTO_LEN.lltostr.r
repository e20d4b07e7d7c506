dtrace: failed to compile script err.D_PROTO_LEN.lltostr.d: [D_PROTO_LEN] line 4: lltostr( ) prototype mismatch: 0 args passed, 1 expected
