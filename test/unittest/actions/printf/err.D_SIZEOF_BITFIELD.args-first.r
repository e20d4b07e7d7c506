dtrace: failed to compile script err.D_SIZEOF_BITFIELD.args-first.d: [D_SIZEOF_BITFIELD] line 9: cannot apply sizeof to a bit-field
