dtrace: failed to compile script err.D_PRINTF_ARG_FMT.var.d: [D_PRINTF_ARG_FMT] line 5: printf( ) argument #1 is incompatible with prototype:
	prototype: string constant
	 argument: string
