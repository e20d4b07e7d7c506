dtrace: failed to compile script err.D_PRINTF_ARG_EXTRA.extra.d: [D_PRINTF_ARG_EXTRA] line 4: printf( ) prototype mismatch: only 1 arguments required by this format string
