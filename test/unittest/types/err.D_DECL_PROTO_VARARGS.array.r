dtrace: failed to compile script err.D_DECL_PROTO_VARARGS.array.d: [D_DECL_PROTO_VARARGS] line 2: array prototype may not use a variable-length argument list
