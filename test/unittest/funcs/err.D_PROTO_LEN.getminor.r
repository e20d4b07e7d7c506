dtrace: failed to compile script err.D_PROTO_LEN.getminor.d: [D_PROTO_LEN] line 6: getminor( ) prototype mismatch: 0 args passed, 1 expected
