//! Clauses deferred from a system call's entry to its return.
//!
//! A BPF program cannot fault a page in: at a system call's entry, a
//! string the call is given in a page the process has not touched yet
//! (a library's read-only data, an untouched mapping of a file) cannot
//! be read, though it is there. The kernel reads it for the call, so at
//! the call's return it can be. So, at an entry probe (its hook
//! `defers_user_faults`), a clause that reads user memory and faults at
//! a user address is not an error: its record is discarded and the
//! thread keeps, in `dt_deferred`, the probe's ID, a bit for the clause
//! and the probe's six arguments. At the call's return a program of the
//! same probes (its hook `runs_deferred`) takes them back and runs the
//! clauses whose bits are set, as the entry probe, with those
//! arguments. A fault there is the error it would have been.
//!
//! What this implies, and the manual says: such a clause's output comes
//! when the call returns, after what probes fired during the call; its
//! built-in variables (`timestamp`, ...) are the return's; statements
//! before the faulting read ran at the entry and run again.

use super::*;

/// A deferral: the probe's ID, the clauses' bits, the six arguments.
pub(crate) const VALUE_SIZE: u32 = 64;
/// Threads with a deferral at once, at most (least recently used first
/// forgotten: a thread that never returned).
pub(crate) const ENTRIES: u32 = 4096;

/// Whether a clause reads user memory (the reads a deferral helps).
pub(crate) fn reads_user(c: &CClause) -> bool {
    let mut found = false;
    visit_clause_exprs(c, &mut |e| {
        found |= matches!(
            e.kind,
            CKind::Copyin(..) | CKind::Copyinstr(..) | CKind::Copyinto(..)
        )
    });
    found
}

impl ProgGen<'_, '_> {
    /// r0 = this thread's deferral in `map`, or 0; its key (the thread's
    /// pid and tid) left in the stack's VALUE slot.
    fn thread_lookup(&mut self, map: MapId) {
        self.a.emit(call(Helper::GetCurrentPidTgid));
        self.a.emit(stx(Size::DW, FP, stack::VALUE, R0));
        self.a.ld_map_fd(R1, map);
        self.a.emit(mov64_reg(R2, FP));
        self.a
            .emit(alu64_imm(Alu::Add, R2, i32::from(stack::VALUE)));
        self.a.emit(call(Helper::MapLookupElem));
    }

    fn hook_says(&self, f: impl Fn(&dyn crate::hook::Hook) -> bool) -> bool {
        match &self.plan.context {
            ArgContext::Hook(h) => f(&*h.0),
            _ => false,
        }
    }

    /// Whether this program defers clause `ci`'s user faults.
    pub(crate) fn defers(&self, ci: usize) -> bool {
        ci < 64
            && self.g.m_deferred.is_some()
            && self.hook_says(|h| h.defers_user_faults())
            && reads_user(&self.g.inp.clauses[ci])
    }

    /// Whether this program runs deferred clauses.
    pub(crate) fn runs_deferred(&self) -> bool {
        self.g.m_deferred.is_some() && self.hook_says(|h| h.runs_deferred())
    }

    /// At a fault of clause `ci` (its record already discarded): a read
    /// at a user address defers the clause (see the module), anything
    /// else goes to `raise`.
    pub(crate) fn defer_or(&mut self, ci: usize, raise: Label) -> Result<(), GenError> {
        let (Some(map), true) = (self.g.m_deferred, ci < 64) else {
            self.a.ja_to(raise);
            return Ok(());
        };
        self.ldx_at(R1, R9, scratch::FAULT_TYPE, Size::DW);
        self.a
            .jmp_imm_to(Cond::Ne, R1, fault::BADADDR as i32, raise);
        self.ldx_at(R1, R9, scratch::FAULT_ADDR, Size::DW);
        load_imm(&mut self.a, R2, 1 << 47);
        self.a.jmp_reg_to(Cond::Ge, R1, R2, raise);
        let bit = 1u64 << ci;
        let done = self.a.new_label();
        let fresh = self.a.new_label();
        self.thread_lookup(map);
        self.a.jmp_imm_to(Cond::Eq, R0, 0, fresh);
        // Another clause of this firing was deferred: one more bit.
        self.a.emit(ldx(Size::DW, R1, R0, 8));
        load_imm(&mut self.a, R2, bit as i64);
        self.a.emit(alu64_reg(Alu::Or, R1, R2));
        self.a.emit(stx(Size::DW, R0, 8, R1));
        self.a.ja_to(done);
        self.a.bind(fresh);
        let v = self.alloc_buf(VALUE_SIZE);
        let id = self.builtin_int(Builtin::Id)?;
        self.load_temp(id, R1);
        self.free(id);
        self.stx_at(R9, v, R1, Size::DW);
        load_imm(&mut self.a, R1, bit as i64);
        self.stx_at(R9, v + 8, R1, Size::DW);
        for i in 0..6 {
            self.ldx_at(R1, R9, scratch::ARGS + 8 * i, Size::DW);
            self.stx_at(R9, v + 16 + 8 * i, R1, Size::DW);
        }
        self.a.ld_map_fd(R1, map);
        self.a.emit(mov64_reg(R2, FP));
        self.a
            .emit(alu64_imm(Alu::Add, R2, i32::from(stack::VALUE)));
        self.ptr(R3, R9, v);
        self.a.emit(mov64_imm(R4, 0)); // BPF_ANY
        self.a.emit(call(Helper::MapUpdateElem));
        self.a.bind(done);
        Ok(())
    }

    /// In a program that runs deferred clauses, instead of the hook's
    /// arguments: the thread's deferral taken (none: no firing, `out`),
    /// its probe ID and bits kept in scratch, its arguments loaded.
    pub(crate) fn load_deferred(&mut self, out: Label) {
        let (Some(map), Some(at)) = (self.g.m_deferred, self.g.deferred_at) else {
            self.a.ja_to(out);
            return;
        };
        self.thread_lookup(map);
        self.a.jmp_imm_to(Cond::Eq, R0, 0, out);
        for w in 0..2 {
            self.a.emit(ldx(Size::DW, R1, R0, 8 * w as i16));
            self.stx_at(R9, at + 8 * w, R1, Size::DW);
        }
        for i in 0..6u32 {
            self.a.emit(ldx(Size::DW, R1, R0, (16 + 8 * i) as i16));
            self.stx_at(R9, scratch::ARGS + 8 * i, R1, Size::DW);
        }
        self.zero_args(6);
        self.a.ld_map_fd(R1, map);
        self.a.emit(mov64_reg(R2, FP));
        self.a
            .emit(alu64_imm(Alu::Add, R2, i32::from(stack::VALUE)));
        self.a.emit(call(Helper::MapDeleteElem));
    }

    /// In a program that runs deferred clauses: to `next` unless clause
    /// `ci` of this probe was deferred.
    pub(crate) fn deferred_gate(&mut self, ci: usize, next: Label) -> Result<(), GenError> {
        let Some(at) = self.g.deferred_at else {
            self.a.ja_to(next);
            return Ok(());
        };
        if ci >= 64 {
            self.a.ja_to(next);
            return Ok(());
        }
        let id = self.builtin_int(Builtin::Id)?;
        self.load_temp(id, R2);
        self.free(id);
        self.ldx_at(R1, R9, at, Size::DW);
        self.a.jmp_reg_to(Cond::Ne, R1, R2, next);
        self.ldx_at(R1, R9, at + 8, Size::DW);
        load_imm(&mut self.a, R2, (1u64 << ci) as i64);
        self.a.emit(alu64_reg(Alu::And, R1, R2));
        self.a.jmp_imm_to(Cond::Eq, R1, 0, next);
        Ok(())
    }
}
