dtrace: failed to compile script err.D_PRINTF_FMT_EMPTY.empty.d: [D_PRINTF_FMT_EMPTY] line 4: printf( ) format string is empty
