dtrace: failed to compile script err.D_DECL_PROTO_TYPE.param-assoc.d: [D_DECL_PROTO_TYPE] line 2: function prototype may not use parameter of type dynamic variable: a, parameter #2
