dtrace: failed to compile script err.D_PROTO_LEN.rindex.d: [D_PROTO_LEN] line 6: rindex( ) prototype mismatch: 4 args passed, at most 3 expected
