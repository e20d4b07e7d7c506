dtrace: failed to compile script err.D_PROTO_LEN.quantize.d: [D_PROTO_LEN] line 4: quantize( ) prototype mismatch: 3 args passed, at most 2 expected
