dtrace: failed to compile script err.D_AGG_COMM.line.d: [D_AGG_COMM] line 5: aggregating actions may not follow commit( )
