dtrace: failed to compile script err.D_PRINTF_AGG_CONV.printf.d: [D_PRINTF_AGG_CONV] line 4: %@ conversion requires an aggregation and is not for use with printf( )
