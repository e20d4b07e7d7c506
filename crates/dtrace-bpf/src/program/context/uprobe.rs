//! A uprobe at a user function's instruction: at entry, arg0-arg5 are
//! the x86-64 argument registers and arg6-arg9 the words after the return
//! address on the user stack; at a return place, arg0 is the place's
//! offset in the function (the cookie's high half) and arg1 the return
//! value.

use super::*;

impl ProgGen<'_, '_> {
    /// The arguments at a function's entry or offset (`ret` false), or
    /// at one of its return places.
    pub(crate) fn load_uprobe_args(&mut self, ret: bool) {
        if ret {
            // arg0: the offset of the return place in the function,
            // the high half of its attachment's cookie.
            self.attach_cookie();
            self.a.emit(alu64_imm(Alu::Rsh, R0, 32));
            self.store_arg(0, R0);
            self.a.emit(ldx(Size::DW, R1, R6, regs::AX_FULL as i16));
            self.store_arg(1, R1);
            self.zero_args(2);
        } else {
            // The registers, then the user stack after the return address.
            self.load_regs_args(Helper::ProbeReadUser);
        }
    }

    /// arg0-arg5 from the argument registers of the context's
    /// `pt_regs`, arg6-arg9 from the words after the return address on
    /// the stack, read with `read` (the user's or the kernel's; a word
    /// it cannot read is 0).
    pub(crate) fn load_regs_args(&mut self, read: Helper) {
        for (i, off) in regs::ARGS_FULL.iter().enumerate() {
            self.a.emit(ldx(Size::DW, R1, R6, *off as i16));
            self.store_arg(i as u32, R1);
        }
        self.load_stack_args(read);
    }

    fn load_stack_args(&mut self, read: Helper) {
        for i in 6..10u32 {
            self.a.emit(mov64_reg(R1, R9));
            self.a
                .emit(alu64_imm(Alu::Add, R1, (scratch::ARGS + 8 * i) as i32));
            self.a.emit(mov64_imm(R2, 8));
            self.a.emit(ldx(Size::DW, R3, R6, regs::SP_FULL as i16));
            self.a.emit(alu64_imm(Alu::Add, R3, (8 * (i - 5)) as i32));
            self.a.emit(call(read));
        }
    }
}
