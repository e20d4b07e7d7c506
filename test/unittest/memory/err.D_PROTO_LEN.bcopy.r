dtrace: failed to compile script err.D_PROTO_LEN.bcopy.d: [D_PROTO_LEN] line 6: bcopy( ) prototype mismatch: 2 args passed, 3 expected
