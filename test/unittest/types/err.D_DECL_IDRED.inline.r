dtrace: failed to compile script err.D_DECL_IDRED.inline.d: [D_DECL_IDRED] line 3: identifier redefined: foo
	 current: inline definition
	previous: scalar inline
