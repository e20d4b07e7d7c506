dtrace: failed to compile script err.D_REGS_IDX.uregs.d: [D_REGS_IDX] line 4: index -1 is out of range for array uregs
