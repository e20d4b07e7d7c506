dtrace: failed to compile script err.D_ADDROF_BITFIELD.bits.d: [D_ADDROF_BITFIELD] line 6: cannot take address of bit-field
