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
        // The registers, then the kernel stack after the return address.
        self.load_regs_args(Helper::ProbeReadKernel);
    }
}
