dtrace: failed to compile script err.D_PROC_OFF.outside.d: [D_PROC_OFF] line 6: offset 0x10 outside of function 'work'
