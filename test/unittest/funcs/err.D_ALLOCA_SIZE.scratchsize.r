dtrace: failed to compile script err.D_ALLOCA_SIZE.scratchsize.d: [D_ALLOCA_SIZE] line 10: alloca(65) size larger than scratchsize 64
