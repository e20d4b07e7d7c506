dtrace: failed to compile script err.D_DECL_PROTO_TYPE.array-void.d: [D_DECL_PROTO_TYPE] line 2: array prototype may not use parameter of type void: (anonymous), parameter #1
