dtrace: failed to compile script err.D_PRINTF_ARG_TYPE.long.d: [D_PRINTF_ARG_TYPE] line 4: printf( ) argument #2 is incompatible with conversion #1 prototype:
	conversion: %ld
	 prototype: long
	  argument: int
