dtrace: failed to compile script err.D_DECL_BFSIZE.wide.d: [D_DECL_BFSIZE] line 2: bit-field size 9 for a is not within the range 1..8
