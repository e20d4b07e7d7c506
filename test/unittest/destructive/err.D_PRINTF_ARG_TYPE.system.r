dtrace: failed to compile script err.D_PRINTF_ARG_TYPE.system.d: [D_PRINTF_ARG_TYPE] line 6: system( ) argument #2 is incompatible with conversion #1 prototype:
	conversion: %d
	 prototype: char, short, int, long, or long long
	  argument: string
