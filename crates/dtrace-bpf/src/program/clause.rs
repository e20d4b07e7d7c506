//! One clause: its predicate, its record reserved in the principal
//! buffer (with the `fill` policy's check), its header, its statements,
//! and the drop counters.

use super::*;

impl ProgGen<'_, '_> {
    /// Emits one clause. `next` is where control goes when it is done.
    pub(crate) fn clause(
        &mut self,
        ci: usize,
        epid: EpidSrc,
        ident: IdentSrc,
        check_activity: bool,
        in_error: bool,
        next: Label,
    ) -> Result<(), GenError> {
        let c = &self.g.inp.clauses[ci];
        let layout = self.g.clause_layouts[ci].clone();
        if check_activity {
            self.activity_check(next);
        }

        let epid = match epid {
            EpidSrc::Slot(slot) => {
                let dl = self.dl.as_ref().expect("dispatched program has a layout");
                let at = dl.epid_at + 4 * slot;
                self.a.emit(ldx(Size::DW, R1, FP, stack::DISPATCH));
                self.a.emit(ldx(Size::W, R2, R1, at as i16));
                self.a.jmp_imm_to(Cond::Eq, R2, 0, next);
                self.a.emit(stx(Size::DW, R9, scratch::EPID as i16, R2));
                EpidSrc::Scratch
            }
            e => e,
        };
        let fault_pred = self.a.new_label();
        let fault_body = self.a.new_label();
        let dropped = self.a.new_label();
        self.cx = ClauseCx {
            epid,
            ident,
            args_base: if in_error {
                scratch::ERR_ARGS
            } else {
                scratch::ARGS
            },
            phase: self.plan.phase,
            in_error,
            recording: false,
            actions: layout.actions.clone(),
            next_action: 0,
            fault_pred,
            fault_body,
            in_predicate: false,
            faulted: false,
            has_errno: self.cx.has_errno && !in_error,
            end: Some(next),
            size: layout.size,
            spec_slot: None,
        };
        let speculative = c.speculative();
        self.bump = 0;
        self.bump_floor = 0;
        self.ustack_refs.clear();
        // alloca() space lasts for the clause.
        if let Some(at) = self.g.alloca_at {
            self.st_imm_at(R9, at, 0);
        }
        if self.runs_deferred() && !in_error {
            // Only the clauses the entry deferred, for this probe.
            self.deferred_gate(ci, next)?;
        }
        if let Some(pred) = &c.predicate {
            self.cx.in_predicate = true;
            let t = self.eval_int(pred)?;
            self.load_temp(t, R0);
            self.free(t);
            self.cx.in_predicate = false;
            self.a.jmp_imm_to(Cond::Eq, R0, 0, next);
        }
        // The user stacks' snapshots, before the record (so that the
        // consumer reads each before the record that refers to it).
        let stmts = c.stmts.clone();
        self.user_stacks_first(&stmts)?;
        // A speculative clause's record is placed by its speculate(); with
        // the ring policy, all but END's go to the ring's chunks.
        let ring = self.g.ring.is_some() && self.plan.phase != Phase::End && !in_error;
        if layout.size > 0 && !speculative && ring {
            let slot = self.ring_reserve(layout.size, dropped)?;
            self.record_header(&layout.actions);
            self.cx.spec_slot = Some(slot);
        } else if layout.size > 0 && !speculative {
            self.principal_buffer(dropped);
            if self.g.inp.opts.policy == BufferPolicy::Fill && self.plan.phase != Phase::End {
                self.fill_check(layout.size, next);
            }
            self.a.emit(mov64_imm(R2, layout.size as i32));
            self.a.emit(mov64_imm(R3, 0));
            self.a.emit(call(Helper::RingbufReserve));
            self.a.jmp_imm_to(Cond::Eq, R0, 0, dropped);
            self.a.emit(mov64_reg(R8, R0));
            self.record_header(&layout.actions);
        }
        self.stmts(&stmts)?;
        if self.cx.recording {
            match self.cx.spec_slot {
                Some(slot) => self.spec_publish(slot, layout.size),
                None => {
                    self.a.emit(mov64_reg(R1, R8));
                    self.a.emit(mov64_imm(R2, self.submit_flags()));
                    self.a.emit(call(Helper::RingbufSubmit));
                }
            }
            self.cx.recording = false;
        }
        self.a.ja_to(next);

        if self.cx.faulted {
            self.a.bind(fault_body);
            // A speculative (or ring) record is simply not published.
            if layout.size > 0 && !speculative && !ring {
                self.a.emit(mov64_reg(R1, R8));
                self.a.emit(mov64_imm(R2, 0));
                self.a.emit(call(Helper::RingbufDiscard));
            }
            self.a.bind(fault_pred);
            if in_error {
                self.count_drop(drops::ERROR);
            } else {
                if self.defers(ci) && !speculative {
                    // A user read at a system call's entry: deferred to
                    // its return (`defer.rs`).
                    let raise = self.a.new_label();
                    self.defer_or(ci, raise)?;
                    self.a.ja_to(next);
                    self.a.bind(raise);
                }
                self.raise_error();
            }
            self.a.ja_to(next);
        } else {
            self.a.bind(fault_body);
            self.a.bind(fault_pred);
            self.a.ja_to(next);
        }
        self.a.bind(dropped);
        if layout.size > 0 {
            self.count_drop(drops::BUFFER);
        }
        self.a.ja_to(next);
        Ok(())
    }

    /// Writes the snapshot of every `ustack()` and `jstack()` of the
    /// statements (see `user_stack_snapshot`), each where its reference
    /// stays for the clause; the statements then record the references.
    /// A stack is taken when its clause begins (one under an `if` too).
    fn user_stacks_first(&mut self, stmts: &[CStmt]) -> Result<(), GenError> {
        let mut found: Vec<&CExpr> = Vec::new();
        visit_stmts(stmts, &mut |s| {
            s.for_each_expr(&mut |e| {
                e.walk(&mut |x| {
                    if matches!(x.kind, CKind::UStack { .. }) {
                        found.push(x);
                    }
                })
            })
        });
        let refs: Vec<u32> = found.iter().map(|_| self.alloc_buf(32)).collect();
        self.bump_floor = self.bump;
        for (e, r) in found.into_iter().zip(refs) {
            let CKind::UStack { frames, jit } = e.kind else {
                continue;
            };
            self.user_stack_snapshot(frames, jit, r)?;
            self.bump = self.bump_floor;
            self.ustack_refs.push((e as *const CExpr, r));
        }
        Ok(())
    }

    /// r0 = the element of `map` whose u32 key is in the KEY stack slot,
    /// or `out` when there is none. Clobbers r1-r5.
    pub(crate) fn lookup_at_key(&mut self, map: crate::asm::MapId, out: Label) {
        self.a.ld_map_fd(R1, map);
        self.a.emit(mov64_reg(R2, FP));
        self.a.emit(alu64_imm(Alu::Add, R2, i32::from(stack::KEY)));
        self.a.emit(call(Helper::MapLookupElem));
        self.a.jmp_imm_to(Cond::Eq, R0, 0, out);
    }

    /// r0 = a `size`-byte record reserved in this CPU's principal buffer;
    /// or, when it is full, a drop is counted and control goes to `skip`.
    pub(crate) fn reserve_principal(&mut self, size: u32, skip: Label) {
        let no_buffer = self.a.new_label();
        self.principal_buffer(no_buffer);
        self.a.emit(mov64_imm(R2, size as i32));
        self.a.emit(mov64_imm(R3, 0));
        self.a.emit(call(Helper::RingbufReserve));
        let got = self.a.new_label();
        self.a.jmp_imm_to(Cond::Ne, R0, 0, got);
        self.a.bind(no_buffer);
        self.count_drop(drops::BUFFER);
        self.a.ja_to(skip);
        self.a.bind(got);
    }

    /// r1 = this CPU's principal buffer (its ring buffer, chosen by
    /// comparing the CPU with each, or from the array of them), or `out`
    /// if it has none. Clobbers r0-r5.
    pub(crate) fn principal_buffer(&mut self, out: Label) {
        self.a.emit(call(Helper::GetSmpProcessorId));
        if let Some(n) = self.g.rings_in_code {
            let found = self.a.new_label();
            let each: Vec<Label> = (0..n).map(|_| self.a.new_label()).collect();
            for (cpu, &l) in each.iter().enumerate() {
                self.a.jmp_imm_to(Cond::Eq, R0, cpu as i32, l);
            }
            self.a.ja_to(out);
            for (cpu, &l) in each.iter().enumerate() {
                self.a.bind(l);
                self.a.ld_map_fd_part(R1, self.g.m_buffer, cpu as u32);
                if cpu + 1 < each.len() {
                    self.a.ja_to(found);
                }
            }
            self.a.bind(found);
            return;
        }
        self.a.emit(stx(Size::W, FP, stack::KEY, R0));
        self.lookup_at_key(self.g.m_buffer, out);
        self.a.emit(mov64_reg(R1, R0));
    }

    /// The `fill` policy, with r1 this CPU's buffer: a record of `size`
    /// that would not leave END's reserve free fills the buffer: it is
    /// dropped and tracing stops (DRAINING, as exit() makes it), so the
    /// consumer ends it and runs END. Leaves r1 as it was.
    pub(crate) fn fill_check(&mut self, size: u32, next: Label) {
        let ring = self.alloc_stack();
        let Temp::Stack(slot) = ring else {
            unreachable!("alloc_stack gives a stack slot")
        };
        self.a.emit(stx(Size::DW, FP, slot, R1));
        self.a.emit(mov64_imm(R2, 0)); // BPF_RB_AVAIL_DATA
        self.a.emit(call(Helper::RingbufQuery));
        // A BPF ring buffer never fills to its last byte: it holds at
        // most its size less one, so 8 bytes are kept back too.
        let need = u64::from(size + 8).div_ceil(8) * 8 + self.g.end_reserve + 8;
        let room = self.g.ring_size.saturating_sub(need);
        let fits = self.a.new_label();
        crate::codegen::load_imm(&mut self.a, R1, room as i64);
        self.a.jmp_reg_to(Cond::Le, R0, R1, fits);
        self.count_drop(drops::BUFFER);
        for want in [activity::ACTIVE, activity::WARMUP] {
            self.a.ld_map_value(R1, self.g.m_state, 0);
            self.a.emit(mov64_imm(R0, want as i32));
            self.a.emit(mov64_imm(R2, activity::DRAINING as i32));
            self.cmpxchg(Size::W, R1, R2, LockKey::Const(lock_key::STATE));
        }
        self.a.ja_to(next);
        self.a.bind(fits);
        self.a.emit(ldx(Size::DW, R1, FP, slot));
        self.free(ring);
    }

    /// Writes the record's header at r8 (EPID, CPU) and clears the
    /// actions' ran flags; the clause records from here on.
    pub(crate) fn record_header(&mut self, actions: &[RecordedAction]) {
        match self.cx.epid {
            EpidSrc::Const(e) => self.a.emit(st_imm(Size::W, R8, 0, e as i32)),
            EpidSrc::Scratch | EpidSrc::Slot(_) => {
                self.a.emit(ldx(Size::DW, R1, R9, scratch::EPID as i16));
                self.a.emit(stx(Size::W, R8, 0, R1));
            }
        }
        self.a.emit(call(Helper::GetSmpProcessorId));
        self.a.emit(stx(Size::W, R8, 4, R0));
        for act in actions {
            if let Some(f) = act.ran_flag {
                self.st_imm_at(R8, f, 0);
            }
        }
        self.cx.recording = true;
    }

    /// Adds one to a per-CPU drop counter.
    pub(crate) fn count_drop(&mut self, which: u32) {
        let skip = self.a.new_label();
        self.a.emit(st_imm(Size::W, FP, stack::KEY, 0));
        let dm = self.g.m_drops;
        self.a.ld_map_fd(R1, dm);
        self.a.emit(mov64_reg(R2, FP));
        self.a.emit(alu64_imm(Alu::Add, R2, i32::from(stack::KEY)));
        self.a.emit(call(Helper::MapLookupElem));
        self.a.jmp_imm_to(Cond::Eq, R0, 0, skip);
        self.a.emit(mov64_imm(R1, 1));
        self.a.emit(atomic_add64(R0, which as i16, R1));
        self.a.bind(skip);
    }
}
