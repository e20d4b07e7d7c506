dtrace: failed to compile script err.D_PROTO_LEN.lquantize.d: [D_PROTO_LEN] line 4: lquantize( ) prototype mismatch: 2 args passed, at least 3 expected
