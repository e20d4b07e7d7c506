dtrace: failed to compile script err.D_OFFSETOF_BITFIELD.bits.d: [D_OFFSETOF_BITFIELD] line 6: cannot take offset of a bit-field: b
