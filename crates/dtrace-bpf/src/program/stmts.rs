//! Statements and the actions that are statements: each writes its part
//! of the clause's record as its layout says; `raise()`, `chill()`,
//! `copyout()` and `exit()` act in the probe.

use super::*;

impl ProgGen<'_, '_> {
    pub(crate) fn next_layout(&mut self) -> Result<RecordedAction, GenError> {
        let a = self
            .cx
            .actions
            .get(self.cx.next_action)
            .cloned()
            .ok_or_else(|| GenError("internal error: record layout out of step".into()))?;
        self.cx.next_action += 1;
        Ok(a)
    }

    /// After a statement that records nothing: its size-0 record is the
    /// layout's next once the record has begun (`layout::clause_layout`
    /// lists it from the same point), and is marked as run.
    pub(crate) fn statement_ran(&mut self) -> Result<(), GenError> {
        if self.cx.recording {
            let act = self.next_layout()?;
            self.mark_ran(&act);
        }
        Ok(())
    }

    pub(crate) fn mark_ran(&mut self, act: &RecordedAction) {
        if let Some(f) = act.ran_flag {
            self.st_imm_at(R8, f, 1);
        }
    }

    pub(crate) fn stmts(&mut self, stmts: &[CStmt]) -> Result<(), GenError> {
        for s in stmts {
            self.bump = self.bump_floor;
            self.stmt(s)?;
        }
        Ok(())
    }

    pub(crate) fn stmt(&mut self, s: &CStmt) -> Result<(), GenError> {
        match s {
            CStmt::Eval(e, action) => {
                self.cur_action = *action;
                let t = self.eval_discard(e)?;
                if let Some(t) = t {
                    self.free(t);
                }
                self.statement_ran()?;
            }
            CStmt::Trace(e, action) => {
                self.cur_action = *action;
                let act = self.next_layout()?;
                if let ActionLayout::Trace(v) = &act.action {
                    self.record_value(v, e)?;
                }
                self.mark_ran(&act);
            }
            CStmt::Printf { args, action, .. } => {
                self.cur_action = *action;
                let act = self.next_layout()?;
                if let ActionLayout::Printf { args: vals, .. } = &act.action {
                    for (i, (v, e)) in vals.iter().zip(args).enumerate() {
                        self.cur_action = *action + i as u32;
                        self.record_value(v, e)?;
                    }
                }
                self.mark_ran(&act);
            }
            CStmt::Exit(e, action) => {
                self.cur_action = *action;
                let act = self.next_layout()?;
                if let ActionLayout::Exit(v) = &act.action {
                    self.record_value(v, e)?;
                }
                self.mark_ran(&act);
                self.exit_activity();
            }
            CStmt::Printa { action, .. } | CStmt::Clear(_, action) | CStmt::Ftruncate(action) => {
                self.cur_action = *action;
                let act = self.next_layout()?;
                self.mark_ran(&act);
            }
            CStmt::Trunc(_, n, action) | CStmt::Normalize(_, n, action) => {
                self.cur_action = *action;
                let act = self.next_layout()?;
                if let (
                    ActionLayout::Trunc(_, Some(v)) | ActionLayout::Normalize(_, Some(v)),
                    Some(n),
                ) = (&act.action, n)
                {
                    self.record_value(v, n)?;
                }
                self.mark_ran(&act);
            }
            CStmt::Speculate(id, action) => {
                self.cur_action = *action;
                let end = self.cx.end.ok_or_else(|| {
                    GenError("internal error: speculate( ) outside a clause".into())
                })?;
                let size = self.cx.size;
                if size > 0 {
                    let slot = self.speculate(id, size, end)?;
                    let actions = self.cx.actions.clone();
                    self.record_header(&actions);
                    self.cx.spec_slot = Some(slot);
                }
            }
            CStmt::Commit(id, action) => {
                self.cur_action = *action;
                self.commit_or_discard(id, true)?;
            }
            CStmt::Discard(id, action) => {
                self.cur_action = *action;
                self.commit_or_discard(id, false)?;
            }
            CStmt::Print(e, action) => {
                self.cur_action = *action;
                let act = self.next_layout()?;
                if let ActionLayout::Print(v) = &act.action {
                    self.record_value(v, e)?;
                }
                self.mark_ran(&act);
            }
            CStmt::Tracemem {
                data,
                dsize,
                action,
            } => {
                self.cur_action = *action;
                let act = self.next_layout()?;
                if let ActionLayout::Tracemem(v, d) = &act.action {
                    self.record_value(v, data)?;
                    if let (Some(d), Some(e)) = (d, dsize) {
                        self.record_value(d, e)?;
                    }
                }
                self.mark_ran(&act);
            }
            CStmt::Setopt {
                name,
                value,
                action,
            } => {
                self.cur_action = *action;
                let act = self.next_layout()?;
                if let ActionLayout::Setopt(n, v) = &act.action {
                    self.record_value(n, name)?;
                    if let (Some(v), Some(e)) = (v, value) {
                        self.record_value(v, e)?;
                    }
                }
                self.mark_ran(&act);
            }
            CStmt::AggUpdate {
                agg,
                keys,
                value,
                incr,
                action,
                ..
            } => {
                self.cur_action = *action;
                if self.g.aggs[*agg].streamed {
                    let act = self.next_layout()?;
                    self.agg_update_streamed(&act, keys, value.as_ref(), incr.as_ref())?;
                    self.mark_ran(&act);
                } else {
                    self.agg_update(*agg, keys, value.as_ref(), incr.as_ref())?;
                }
            }
            CStmt::Raise(sig, action) => {
                self.cur_action = *action;
                self.raise(sig)?;
                self.statement_ran()?;
            }
            CStmt::Chill(ns, action) => {
                self.cur_action = *action;
                self.chill(ns)?;
                self.statement_ran()?;
            }
            CStmt::Copyout {
                src,
                addr,
                len,
                string,
                action,
            } => {
                self.cur_action = *action;
                self.copyout(src, addr, len, *string)?;
                self.statement_ran()?;
            }
            CStmt::If { cond, then, els } => {
                let t = self.eval_int(cond)?;
                self.load_temp(t, R0);
                self.free(t);
                let l_else = self.a.new_label();
                let l_end = self.a.new_label();
                self.a.jmp_imm_to(Cond::Eq, R0, 0, l_else);
                self.stmts(then)?;
                self.a.ja_to(l_end);
                self.a.bind(l_else);
                self.stmts(els)?;
                self.a.bind(l_end);
            }
        }
        Ok(())
    }

    /// raise(sig): `bpf_send_signal` to the current process. A signal
    /// number the kernel refuses is DTrace's illegal operation.
    pub(crate) fn raise(&mut self, sig: &CExpr) -> Result<(), GenError> {
        let t = self.eval_int(sig)?;
        self.load_temp(t, R1);
        self.free(t);
        // A number above Linux's last signal (or negative: unsigned, it
        // is above too) is never sent.
        let bad = self.a.new_label();
        self.a.jmp_imm_to(Cond::Gt, R1, MAX_SIGNAL, bad);
        self.a.emit(call(Helper::SendSignal));
        let done = self.a.new_label();
        self.a.jmp_imm_to(Cond::Ne, R0, -EINVAL, done);
        self.a.bind(bad);
        let act = self.cur_action;
        self.fault(fault::ILLOP, None, act);
        self.a.bind(done);
        Ok(())
    }

    /// chill(ns): spins until `ns` nanoseconds have passed, on the
    /// kernel's open-coded number iterator (`bpf_iter_num_*`, which the
    /// verifier checks once however many times it turns), else in
    /// `bpf_loop`'s callback (5.17), which the verifier also checks once.
    /// More than [`CHILL_MAX`] at once, or in one [`CHILL_INTERVAL`] on a
    /// CPU, is DTrace's illegal operation.
    pub(crate) fn chill(&mut self, ns: &CExpr) -> Result<(), GenError> {
        let k = self.g.inp.opts.iter_num;
        if k.is_none() && !self.g.inp.opts.kernel.bpf_loop {
            return Err(GenError(
                "chill( ) needs the kernel's bpf_iter_num kfuncs (Linux 6.4) or bpf_loop (Linux 5.17)"
                    .into(),
            ));
        }
        let t = self.eval_int(ns)?;
        self.load_temp(t, R1);
        let too_long = self.a.new_label();
        let done = self.a.new_label();
        load_imm(&mut self.a, R2, CHILL_MAX);
        self.a.jmp_reg_to(Cond::Gt, R1, R2, too_long);
        self.store_temp(t, R1);
        self.a.emit(call(Helper::KtimeGetNs));
        // DTrace's limit: at most CHILL_MAX of chill() on a CPU in each
        // CHILL_INTERVAL (its start and the time chilled in it are kept in
        // the CPU's scratch element, which outlives the firing).
        if let Some(at) = self.g.chill_at {
            let same = self.a.new_label();
            self.ldx_at(R1, R9, at, Size::DW);
            self.a.emit(mov64_reg(R2, R0));
            self.a.emit(alu64_reg(Alu::Sub, R2, R1));
            load_imm(&mut self.a, R3, CHILL_INTERVAL);
            self.a.jmp_reg_to(Cond::Lt, R2, R3, same);
            self.stx_at(R9, at, R0, Size::DW);
            self.st_imm_at(R9, at + 8, 0);
            self.a.bind(same);
            self.ldx_at(R2, R9, at + 8, Size::DW);
            self.load_temp(t, R1);
            self.a.emit(alu64_reg(Alu::Add, R2, R1));
            load_imm(&mut self.a, R3, CHILL_MAX);
            self.a.jmp_reg_to(Cond::Gt, R2, R3, too_long);
            self.stx_at(R9, at + 8, R2, Size::DW);
        }
        // The deadline, in the temporary.
        self.load_temp(t, R1);
        self.a.emit(alu64_reg(Alu::Add, R1, R0));
        let deadline = self.alloc_stack();
        self.store_temp(deadline, R1);
        self.free(t);
        match k {
            Some(k) => self.chill_iter(k, deadline),
            None => self.chill_loop(deadline),
        }
        self.free(deadline);
        self.a.ja_to(done);
        self.a.bind(too_long);
        let act = self.cur_action;
        self.fault(fault::ILLOP, None, act);
        self.a.bind(done);
        Ok(())
    }

    /// chill()'s spin on the number iterator, until the deadline kept in
    /// the stack temporary `deadline`.
    fn chill_iter(&mut self, k: crate::plan::IterNumKfuncs, deadline: Temp) {
        // Two iterators, one inside the other: one turns at most
        // BPF_MAX_LOOPS times, which a short wait may not outlast.
        let outer = self.alloc_stack();
        let inner = self.alloc_stack();
        let (Temp::Stack(o), Temp::Stack(i)) = (outer, inner) else {
            unreachable!("alloc_stack gives stack slots")
        };
        let iter = |g: &mut Self, slot: i16| {
            g.a.emit(mov64_reg(R1, FP));
            g.a.emit(alu64_imm(Alu::Add, R1, i32::from(slot)));
        };
        iter(self, o);
        self.a.emit(mov64_imm(R2, 0));
        self.a.emit(mov64_imm(R3, CHILL_ROUNDS));
        self.a.emit(kfunc_call(k.new));
        let outer_top = self.a.new_label();
        let outer_end = self.a.new_label();
        let inner_top = self.a.new_label();
        let inner_end = self.a.new_label();
        self.a.bind(outer_top);
        iter(self, o);
        self.a.emit(kfunc_call(k.next));
        self.a.jmp_imm_to(Cond::Eq, R0, 0, outer_end);
        iter(self, i);
        self.a.emit(mov64_imm(R2, 0));
        self.a.emit(mov64_imm(R3, BPF_MAX_LOOPS));
        self.a.emit(kfunc_call(k.new));
        self.a.bind(inner_top);
        iter(self, i);
        self.a.emit(kfunc_call(k.next));
        self.a.jmp_imm_to(Cond::Eq, R0, 0, inner_end);
        self.a.emit(call(Helper::KtimeGetNs));
        self.load_temp(deadline, R1);
        self.a.jmp_reg_to(Cond::Lt, R0, R1, inner_top);
        // Past the deadline: both iterators end.
        iter(self, i);
        self.a.emit(kfunc_call(k.destroy));
        self.a.ja_to(outer_end);
        self.a.bind(inner_end);
        iter(self, i);
        self.a.emit(kfunc_call(k.destroy));
        self.a.ja_to(outer_top);
        self.a.bind(outer_end);
        iter(self, o);
        self.a.emit(kfunc_call(k.destroy));
        self.free(inner);
        self.free(outer);
    }

    /// chill()'s spin without the number iterator: `bpf_loop` turns its
    /// callback (which ends the loop once the clock has passed the
    /// deadline, kept in the stack temporary `deadline`) up to
    /// BPF_MAX_LOOPS times, in a loop of CHILL_ROUNDS turns the verifier
    /// walks, as a short wait may outlast one `bpf_loop`.
    fn chill_loop(&mut self, deadline: Temp) {
        let Temp::Stack(slot) = deadline else {
            unreachable!("the deadline is a stack temporary")
        };
        let sub = *self.chill_sub.get_or_insert_with(|| self.a.new_label());
        let l = self.bounded_open(CHILL_ROUNDS);
        self.a.emit(mov64_imm(R1, BPF_MAX_LOOPS));
        self.a.ld_func(R2, sub);
        self.a.emit(mov64_reg(R3, FP));
        self.a.emit(alu64_imm(Alu::Add, R3, i32::from(slot)));
        self.a.emit(mov64_imm(R4, 0));
        self.a.emit(call(Helper::Loop));
        self.a.emit(call(Helper::KtimeGetNs));
        self.load_temp(deadline, R1);
        self.a.jmp_reg_to(Cond::Lt, R0, R1, l.top);
        self.a.bind(l.done);
        self.iter_close(&l);
        self.free(l.temp);
    }

    /// The callback of [`Self::chill_loop`]'s `bpf_loop` (r1 the turn,
    /// r2 the deadline's address on the caller's stack): 1, the end, once
    /// the clock has passed the deadline, else 0.
    pub(crate) fn chill_callback(&mut self, sub: Label) {
        self.a.bind(sub);
        self.a.emit(mov64_reg(R6, R2));
        self.a.emit(call(Helper::KtimeGetNs));
        self.a.emit(ldx(Size::DW, R1, R6, 0));
        let past = self.a.new_label();
        self.a.jmp_reg_to(Cond::Ge, R0, R1, past);
        self.a.emit(mov64_imm(R0, 0));
        self.a.emit(exit());
        self.a.bind(past);
        self.a.emit(mov64_imm(R0, 1));
        self.a.emit(exit());
    }

    /// copyout(src, addr, len) and copyoutstr(str, addr, maxlen): the
    /// bytes (or the string and its NUL, at most `maxlen`) are gathered in
    /// scratch, then `bpf_probe_write_user` writes them at `addr`. An
    /// address the process has not mapped writable is a bad address.
    pub(crate) fn copyout(
        &mut self,
        src: &CExpr,
        addr: &CExpr,
        len: &CExpr,
        string: bool,
    ) -> Result<(), GenError> {
        let cap = self.g.caps.strsize.max(COPYOUT_MIN);
        let buf = self.alloc_buf(cap);
        let skip = self.a.new_label();
        let tn = self.eval_int(len)?;
        let tl = if string {
            let (p, c) = self.eval_str(src)?;
            self.ptr(R1, R9, buf);
            self.a.emit(mov64_imm(R2, cap.min(c).max(1) as i32));
            self.load_temp(p, R3);
            self.free(p);
            self.a.emit(call(Helper::ProbeReadKernelStr));
            // The string's length with its NUL, or at most maxlen.
            self.load_temp(tn, R1);
            let shorter = self.a.new_label();
            self.a.jmp_reg_to(Cond::Sle, R0, R1, shorter);
            self.a.emit(mov64_reg(R0, R1));
            self.a.bind(shorter);
            self.store_temp(tn, R0);
            tn
        } else {
            let ts = self.eval_int(src)?;
            self.load_temp(tn, R2);
            let fits = self.a.new_label();
            self.a.jmp_imm_to(Cond::Le, R2, cap as i32, fits);
            let act = self.cur_action;
            self.fault(fault::NOSCRATCH, None, act);
            self.a.bind(fits);
            self.a.jmp_imm_to(Cond::Sle, R2, 0, skip);
            self.ptr(R1, R9, buf);
            self.load_temp(ts, R3);
            self.a.emit(call(Helper::ProbeReadKernel));
            self.check_read(ts);
            self.free(ts);
            tn
        };
        let ta = self.eval_int(addr)?;
        self.load_temp(tl, R3);
        self.free(tl);
        self.a.jmp_imm_to(Cond::Sle, R3, 0, skip);
        let fits = self.a.new_label();
        self.a.jmp_imm_to(Cond::Le, R3, cap as i32, fits);
        self.a.emit(mov64_imm(R3, cap as i32));
        self.a.bind(fits);
        self.load_temp(ta, R1);
        self.ptr(R2, R9, buf);
        self.a.emit(call(Helper::ProbeWriteUser));
        let ok = self.a.new_label();
        self.a.jmp_imm_to(Cond::Sge, R0, 0, ok);
        self.load_temp(ta, R1);
        let act = self.cur_action;
        self.fault(fault::BADADDR, Some(R1), act);
        self.a.bind(ok);
        self.free(ta);
        self.a.bind(skip);
        Ok(())
    }

    /// exit(): moves the activity state to DRAINING so no further probes
    /// (or later clauses of this one) run.
    pub(crate) fn exit_activity(&mut self) {
        let st = self.g.m_state;
        let expected: &[u32] = match (self.cx.in_error, self.cx.phase) {
            (true, _) => &[activity::ACTIVE, activity::WARMUP],
            (false, Phase::Begin) => &[activity::WARMUP],
            (false, Phase::Normal) => &[activity::ACTIVE],
            (false, Phase::End) => &[],
        };
        for &want in expected {
            self.a.ld_map_value(R1, st, 0);
            self.a.emit(mov64_imm(R0, want as i32));
            self.a.emit(mov64_imm(R2, activity::DRAINING as i32));
            self.cmpxchg(Size::W, R1, R2, LockKey::Const(lock_key::STATE));
        }
    }

    /// Writes a recorded value into the clause's record.
    pub(crate) fn record_value(&mut self, v: &Value, e: &CExpr) -> Result<(), GenError> {
        match v {
            Value::ConstInt { .. } | Value::ConstStr(_) => Ok(()),
            Value::Int { offset, .. } => {
                let t = self.eval_int(e)?;
                self.load_temp(t, R1);
                self.free(t);
                self.stx_at(R8, *offset, R1, Size::DW);
                Ok(())
            }
            Value::Str { offset, size } => {
                self.eval_str_into(e, crate::expr::Dst::Record(*offset), *size)
            }
            Value::Bytes { offset, size, .. } => {
                // The value is an address (kernel or BPF memory): copy its
                // bytes into the record.
                let t = self.eval_int(e)?;
                self.ptr(R1, R8, *offset);
                self.a.emit(mov64_imm(R2, *size as i32));
                self.load_temp(t, R3);
                self.a.emit(call(Helper::ProbeReadKernel));
                self.check_read(t);
                self.free(t);
                Ok(())
            }
        }
    }

    // ---- temporaries and memory helpers ----
}
