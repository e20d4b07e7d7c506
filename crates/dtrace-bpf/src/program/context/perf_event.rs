//! A perf event's sample (a timer's or a counter's overflow): arg0 is
//! the kernel pc, arg1 the user pc, the other 0.

use super::*;

impl ProgGen<'_, '_> {
    /// The sampled pc, as arg0 (kernel) or arg1 (user).
    pub(crate) fn load_perf_pc(&mut self) {
        // arg0: the kernel pc, arg1: the user pc; the other is 0.
        self.a.emit(ldx(Size::DW, R1, R6, regs::IP_FULL as i16));
        self.a.emit(mov64_imm(R2, 0));
        let user = self.a.new_label();
        let done = self.a.new_label();
        self.a.jmp_imm_to(Cond::Sge, R1, 0, user);
        self.store_arg(0, R1);
        self.store_arg(1, R2);
        self.a.ja_to(done);
        self.a.bind(user);
        self.store_arg(0, R2);
        self.store_arg(1, R1);
        self.a.bind(done);
        self.zero_args(2);
    }
}
