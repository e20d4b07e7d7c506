dtrace: failed to compile script err.D_PROTO_LEN.json.d: [D_PROTO_LEN] line 6: json( ) prototype mismatch: 1 arg passed, 2 expected
