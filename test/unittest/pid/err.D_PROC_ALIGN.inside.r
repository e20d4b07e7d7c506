dtrace: failed to compile script err.D_PROC_ALIGN.inside.d: [D_PROC_ALIGN] line 8: offset 0x2 is not aligned on an instruction
