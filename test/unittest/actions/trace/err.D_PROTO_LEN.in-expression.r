dtrace: failed to compile script err.D_PROTO_LEN.in-expression.d: [D_PROTO_LEN] line 4: trace( ) prototype mismatch: 0 args passed, 1 expected
