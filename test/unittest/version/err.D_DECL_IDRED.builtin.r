dtrace: failed to compile script err.D_DECL_IDRED.builtin.d: [D_DECL_IDRED] line 5: identifier redeclared: strstr
	 current: scalar int
	previous: function string
