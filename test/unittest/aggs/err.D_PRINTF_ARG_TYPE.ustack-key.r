dtrace: failed to compile script err.D_PRINTF_ARG_TYPE.ustack-key.d: [D_PRINTF_ARG_TYPE] line 7: printa( ) argument #2 is incompatible with conversion #1 prototype:
	conversion: %d
	 prototype: char, short, int, long, or long long
	  argument: stack
