dtrace: failed to compile script err.D_LQUANT_STEPTYPE.negative.d: [D_LQUANT_STEPTYPE] line 4: lquantize( ) argument #3 must be a non-zero positive integer constant
