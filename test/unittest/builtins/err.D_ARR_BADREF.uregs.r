dtrace: failed to compile script err.D_ARR_BADREF.uregs.d: [D_ARR_BADREF] line 4: uregs[]: index out of bounds (26)
