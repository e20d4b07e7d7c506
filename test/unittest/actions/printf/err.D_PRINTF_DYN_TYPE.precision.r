dtrace: failed to compile script err.D_PRINTF_DYN_TYPE.precision.d: [D_PRINTF_DYN_TYPE] line 4: printf( ) argument #2 is incompatible with conversion #1 prototype:
	conversion: % .* s
	 prototype: int
	  argument: string
