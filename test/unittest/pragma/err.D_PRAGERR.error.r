dtrace: failed to compile script err.D_PRAGERR.error.d: [D_PRAGERR] line 2: #error: not on this system ever 
