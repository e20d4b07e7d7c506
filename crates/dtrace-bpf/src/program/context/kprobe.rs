//! A kprobe at a kernel function's entry or return (a kprobe_multi link:
//! many functions, one program): at entry, arg0-arg5 are the x86-64
//! argument registers and arg6-arg9 the words after the return address
//! on the kernel stack; at return, arg0 is 0 (as at an fexit, the
//! returning instruction is not known) and arg1 the return value.

use super::*;

impl ProgGen<'_, '_> {
    /// The arguments at a kernel function's entry, or at its return.
    pub(crate) fn load_kprobe_args(&mut self, ret: bool) {
        if ret {
            self.a.emit(mov64_imm(R1, 0));
            self.store_arg(0, R1);
            self.a.emit(ldx(Size::DW, R1, R6, regs::AX_FULL as i16));
            self.store_arg(1, R1);
            self.zero_args(2);
            return;
        }
        for (i, off) in regs::ARGS_FULL.iter().enumerate() {
            self.a.emit(ldx(Size::DW, R1, R6, *off as i16));
            self.store_arg(i as u32, R1);
        }
        // The rest on the stack, after the return address (a word the
        // kernel cannot read is 0: the helper clears it).
        for i in 6..10u32 {
            self.a.emit(mov64_reg(R1, R9));
            self.a
                .emit(alu64_imm(Alu::Add, R1, (scratch::ARGS + 8 * i) as i32));
            self.a.emit(mov64_imm(R2, 8));
            self.a.emit(ldx(Size::DW, R3, R6, regs::SP_FULL as i16));
            self.a.emit(alu64_imm(Alu::Add, R3, (8 * (i - 5)) as i32));
            self.a.emit(call(Helper::ProbeReadKernel));
        }
    }
}
