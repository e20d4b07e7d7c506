dtrace: failed to compile script err.D_PRINTF_ARG_FMT.system.d: [D_PRINTF_ARG_FMT] line 6: system( ) argument #1 is incompatible with prototype:
	prototype: string constant
	 argument: int
