dtrace: failed to compile script err.D_DECL_PROTO_VOID.not-alone.d: [D_DECL_PROTO_VOID] line 2: void must be sole parameter
