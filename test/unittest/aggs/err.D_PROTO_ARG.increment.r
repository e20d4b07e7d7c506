dtrace: failed to compile script err.D_PROTO_ARG.increment.d: [D_PROTO_ARG] line 4: quantize( ) increment value (argument #2) must be of scalar type
