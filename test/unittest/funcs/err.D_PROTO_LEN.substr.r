dtrace: failed to compile script err.D_PROTO_LEN.substr.d: [D_PROTO_LEN] line 4: substr( ) prototype mismatch: 4 args passed, at most 3 expected
