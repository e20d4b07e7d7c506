dtrace: failed to compile script err.D_DREC_COMM.printf-line.d: [D_DREC_COMM] line 15: data-recording actions may not follow commit( )
