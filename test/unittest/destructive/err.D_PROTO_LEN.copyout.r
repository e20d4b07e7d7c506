dtrace: failed to compile script err.D_PROTO_LEN.copyout.d: [D_PROTO_LEN] line 6: copyout( ) prototype mismatch: 2 args passed, 3 expected
