dtrace: failed to compile script err.D_DECL_BFSIZE.wide.d: [D_DECL_BFSIZE] line 2: bit-field too big for type: a
