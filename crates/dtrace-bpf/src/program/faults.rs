//! Probe-time faults: a fault records its kind, address and action and
//! jumps to the error subprogram, which runs the ERROR clauses; tracing
//! goes on.

use super::*;

impl ProgGen<'_, '_> {
    /// After a fault: fills the ERROR probe's arguments and calls the error
    /// subprogram.
    pub(crate) fn raise_error(&mut self) {
        let ea = scratch::ERR_ARGS as i16;
        self.a.emit(st_imm(Size::DW, R9, ea, 0));
        match self.cx.epid {
            EpidSrc::Const(e) => self.a.emit(st_imm(Size::DW, R9, ea + 8, e as i32)),
            EpidSrc::Scratch | EpidSrc::Slot(_) => {
                self.a.emit(ldx(Size::DW, R1, R9, scratch::EPID as i16));
                self.a.emit(stx(Size::DW, R9, ea + 8, R1));
            }
        }
        self.a
            .emit(ldx(Size::DW, R1, R9, scratch::FAULT_ACTION as i16));
        self.a.emit(stx(Size::DW, R9, ea + 16, R1));
        self.a.emit(st_imm(Size::DW, R9, ea + 24, -1));
        self.a
            .emit(ldx(Size::DW, R1, R9, scratch::FAULT_TYPE as i16));
        self.a.emit(stx(Size::DW, R9, ea + 32, R1));
        self.a
            .emit(ldx(Size::DW, R1, R9, scratch::FAULT_ADDR as i16));
        self.a.emit(stx(Size::DW, R9, ea + 40, R1));
        for i in 6..10 {
            self.a.emit(st_imm(Size::DW, R9, ea + 8 * i, 0));
        }
        self.a.emit(mov64_reg(R1, R9));
        self.a.emit(ldx(Size::DW, R2, FP, stack::CTX));
        let sub = self.error_sub;
        self.a.call_to(sub);
        self.error_used = true;
    }

    /// Records the fault (kind, address in `addr`, current action) and
    /// leaves the clause.
    pub(crate) fn fault(&mut self, kind: u64, addr: Option<Reg>, action: u32) {
        self.a.emit(st_imm(
            Size::DW,
            R9,
            scratch::FAULT_TYPE as i16,
            kind as i32,
        ));
        match addr {
            Some(r) => self
                .a
                .emit(stx(Size::DW, R9, scratch::FAULT_ADDR as i16, r)),
            None => self
                .a
                .emit(st_imm(Size::DW, R9, scratch::FAULT_ADDR as i16, 0)),
        }
        let act = if self.cx.in_predicate { 0 } else { action };
        self.a.emit(st_imm(
            Size::DW,
            R9,
            scratch::FAULT_ACTION as i16,
            act as i32,
        ));
        self.cx.faulted = true;
        let target = if self.cx.in_predicate {
            self.cx.fault_pred
        } else {
            self.cx.fault_body
        };
        self.a.ja_to(target);
    }

    /// The error subprogram: records the fault for the consumer, then runs
    /// the ERROR clauses. Called with r1 = the scratch element and r2 = the
    /// probe's context, kept in the subprogram's own `stack::CTX` slot for
    /// the helpers that take it (`bpf_get_stack` of `caller`, `stackdepth`).
    pub(crate) fn error_subprogram(&mut self) -> Result<(), GenError> {
        let sub = self.error_sub;
        self.a.bind(sub);
        let saved_frame = std::mem::replace(&mut self.frame, Frame::new());
        self.a.emit(mov64_reg(R9, R1));
        self.a.emit(stx(Size::DW, FP, stack::CTX, R2));
        let skip = self.a.new_label();
        self.reserve_principal(ERROR_RECORD_SIZE, skip);
        self.a.emit(mov64_reg(R8, R0));
        let ea = scratch::ERR_ARGS as i16;
        self.a.emit(st_imm(Size::W, R8, 0, ERROR_EPID as i32));
        self.a.emit(call(Helper::GetSmpProcessorId));
        self.a.emit(stx(Size::W, R8, 4, R0));
        self.a.emit(ldx(Size::DW, R1, R9, ea + 8));
        self.a.emit(stx(Size::W, R8, 8, R1));
        self.a.emit(ldx(Size::DW, R1, R9, ea + 16));
        self.a.emit(stx(Size::W, R8, 12, R1));
        self.a.emit(ldx(Size::DW, R1, R9, ea + 32));
        self.a.emit(stx(Size::DW, R8, 16, R1));
        self.a.emit(ldx(Size::DW, R1, R9, ea + 40));
        self.a.emit(stx(Size::DW, R8, 24, R1));
        self.a.emit(ldx(Size::DW, R1, R9, ea + 24));
        self.a.emit(stx(Size::DW, R8, 32, R1));
        self.a.emit(mov64_reg(R1, R8));
        self.a.emit(mov64_imm(R2, self.submit_flags()));
        self.a.emit(call(Helper::RingbufSubmit));
        self.a.bind(skip);
        let error_probe = ProbeIdentity {
            id: 3,
            provider: "dtrace".into(),
            module: String::new(),
            function: String::new(),
            name: "ERROR".into(),
        };
        let saved_cx_errno = self.cx.has_errno;
        for &(ci, epid) in self.g.inp.error_clauses {
            let next = self.a.new_label();
            self.clause(
                ci,
                EpidSrc::Const(epid),
                IdentSrc::Const(error_probe.clone()),
                false,
                true,
                next,
            )?;
            self.a.bind(next);
        }
        self.cx.has_errno = saved_cx_errno;
        self.a.emit(mov64_imm(R0, 0));
        self.a.emit(exit());
        self.frame = saved_frame;
        Ok(())
    }

    // ---- statements ----
}
