//! D's built-in variables: the probe's identity and arguments, the
//! thread's and task's facts (read through BTF offsets), time, stacks.

use super::*;

impl ProgGen<'_, '_> {
    /// `r0 =` the firing's `timestamp`: read from the clock the first
    /// time a firing asks, kept in scratch for the rest of it (DTrace's
    /// is one value for a whole firing).
    fn firing_time(&mut self) {
        self.helper_once(Helper::KtimeGetNs, self.g.time_at);
    }

    /// `r0 = bpf_get_current_pid_tgid()`, kept in scratch for the rest of
    /// the firing where the clauses ask more than once.
    fn pid_tgid(&mut self) {
        self.helper_once(Helper::GetCurrentPidTgid, self.g.pidtgid_at);
    }

    /// `r0 = helper()`, its value kept in the scratch word `at` (zeroed as
    /// a firing starts) for the rest of the firing, when there is one: the
    /// helper is called at the first use, read back after.
    fn helper_once(&mut self, helper: Helper, at: Option<u32>) {
        let Some(at) = at else {
            self.a.emit(call(helper));
            return;
        };
        let done = self.a.new_label();
        self.ldx_at(R0, R9, at, Size::DW);
        self.a.jmp_imm_to(Cond::Ne, R0, 0, done);
        self.a.emit(call(helper));
        self.stx_at(R9, at, R0, Size::DW);
        self.a.bind(done);
    }

    pub(crate) fn builtin_int(&mut self, b: Builtin) -> R<Temp> {
        match b {
            Builtin::Pid | Builtin::Tid | Builtin::Uid | Builtin::Gid
                if self.task_word().is_some() =>
            {
                let t = self.g.inp.opts.task;
                match b {
                    Builtin::Pid => self.task_u32(&[t.tgid], "pid")?,
                    Builtin::Tid => self.task_u32(&[t.pid], "tid")?,
                    Builtin::Uid => self.task_u32(&[t.cred, t.cred_uid], "uid")?,
                    _ => self.task_u32(&[t.cred, t.cred_gid], "gid")?,
                }
            }
            Builtin::Pid => {
                self.pid_tgid();
                self.a.emit(alu64_imm(Alu::Rsh, R0, 32));
            }
            Builtin::Tid => {
                self.pid_tgid();
                self.a.emit(alu32_reg(Alu::Mov, R0, R0));
            }
            Builtin::Uid => {
                self.a.emit(call(Helper::GetCurrentUidGid));
                self.a.emit(alu32_reg(Alu::Mov, R0, R0));
            }
            Builtin::Gid => {
                self.a.emit(call(Helper::GetCurrentUidGid));
                self.a.emit(alu64_imm(Alu::Rsh, R0, 32));
            }
            Builtin::Timestamp => self.firing_time(),
            // Read anew each time, as DTrace's (dtrace_gethrestime()).
            Builtin::Walltimestamp => {
                self.a.emit(call(Helper::KtimeGetNs));
                let ro = self.g.m_rodata;
                let at = self.g.walltime_at;
                self.a.ld_map_value(R1, ro, at);
                self.a.emit(ldx(Size::DW, R1, R1, 0));
                self.a.emit(alu64_reg(Alu::Add, R0, R1));
            }
            Builtin::Cpu => self.a.emit(call(Helper::GetSmpProcessorId)),
            Builtin::Curthread => self.current_task(),
            Builtin::Caller | Builtin::Ucaller => {
                // Frame 1 (skip one) of the kernel or user stack, 0 when
                // the stack cannot be read.
                let user = matches!(b, Builtin::Ucaller);
                let buf = self.alloc_buf(8);
                self.st_imm_at(R9, buf, 0);
                self.get_stack(buf, 8, user, 1);
                self.ldx_at(R0, R9, buf, Size::DW);
            }
            Builtin::Stackdepth | Builtin::Ustackdepth => {
                let user = matches!(b, Builtin::Ustackdepth);
                let buf = self.alloc_buf(MAX_STACK_FRAMES * 8);
                self.get_stack(buf, MAX_STACK_FRAMES * 8, user, 0);
                // Bytes written, or a negative error: frames, or 0.
                let ok = self.a.new_label();
                self.a.jmp_imm_to(Cond::Sge, R0, 0, ok);
                self.a.emit(mov64_imm(R0, 0));
                self.a.bind(ok);
                self.a.emit(alu64_imm(Alu::Rsh, R0, 3));
            }
            Builtin::Uregs => self.user_regs()?,
            Builtin::Errno => {
                if self.cx.has_errno {
                    self.a.emit(ldx(Size::DW, R0, R9, scratch::ERRNO as i16));
                } else {
                    self.a.emit(mov64_imm(R0, 0));
                }
            }
            Builtin::Id => match &self.cx.ident {
                IdentSrc::Const(p) => load_imm(&mut self.a, R0, i64::from(p.id)),
                IdentSrc::Dispatch(_) => {
                    self.a.emit(ldx(Size::DW, R1, FP, stack::DISPATCH));
                    self.a.emit(ldx(Size::W, R0, R1, 0));
                }
            },
            Builtin::Epid => match self.cx.epid {
                EpidSrc::Const(e) => load_imm(&mut self.a, R0, i64::from(e)),
                _ => self.a.emit(ldx(Size::DW, R0, R9, scratch::EPID as i16)),
            },
            Builtin::Ppid => {
                let t = self.g.inp.opts.task;
                self.task_u32(&[t.real_parent, t.tgid], "ppid")?;
            }
            Builtin::Vtimestamp => {
                let off = self.g.inp.opts.task.sum_exec_runtime;
                let off = off.ok_or_else(|| Self::no_task_btf("vtimestamp"))?;
                self.read_task_field(off, 8);
                self.a.emit(ldx(Size::DW, R0, R9, scratch::TMP as i16));
            }
            Builtin::Execname
            | Builtin::Probeprov
            | Builtin::Probemod
            | Builtin::Probefunc
            | Builtin::Probename => {
                return Err(GenError(
                    "internal error: string built-in used as an integer".into(),
                ))
            }
        }
        Ok(self.int_result(R0))
    }

    /// `bpf_get_stack` of the probe's context into scratch `buf` (`size`
    /// bytes), of the user stack if `user`, skipping `skip` frames; its
    /// result in r0.
    ///
    /// A kernel stack starts where the probe's hook was called from, for
    /// every kind of program: a perf event's at the interrupted
    /// instruction, a tracepoint program's at the tracepoint's call (perf
    /// saves the registers there), and a raw tracepoint program's, whose
    /// stack the helper takes where the program calls it, after the
    /// frames of the BPF machinery, which are skipped: the program,
    /// `bpf_trace_runN`, and the error subprogram in ERROR clauses. An
    /// fentry or fexit program's stack starts in the program, which its
    /// trampoline called from the traced function (not yet checked on a
    /// kernel that allows them).
    /// Packs the `struct bpf_stack_build_id` at scratch offset `src` into
    /// the word at `dst` (`types::USTACK_IP`): 31 bits of the build ID
    /// and the file offset, or the marked address, or 0 for none.
    pub(crate) fn pack_user_frame(&mut self, src: u32, dst: u32) {
        let ip = self.a.new_label();
        let store = self.a.new_label();
        self.ldx_at(R1, R9, src, Size::W);
        self.a.emit(mov64_imm(R0, 0));
        self.a.jmp_imm_to(Cond::Ne, R1, 1, ip);
        // BPF_STACK_BUILD_ID_VALID: build ID and offset.
        self.ldx_at(R0, R9, src + 4, Size::W);
        self.a.emit(alu64_imm(Alu::And, R0, 0x7fff_ffff));
        self.a.emit(alu64_imm(Alu::Lsh, R0, 32));
        self.ldx_at(R2, R9, src + 24, Size::W);
        self.a.emit(alu64_reg(Alu::Or, R0, R2));
        self.a.ja_to(store);
        // BPF_STACK_BUILD_ID_IP: the address, marked.
        self.a.bind(ip);
        self.a.jmp_imm_to(Cond::Ne, R1, 2, store);
        self.ldx_at(R0, R9, src + 24, Size::DW);
        load_imm(&mut self.a, R2, dtrace_lang::types::USTACK_IP as i64);
        self.a.emit(alu64_reg(Alu::Or, R0, R2));
        self.a.bind(store);
        self.stx_at(R9, dst, R0, Size::DW);
    }

    pub(crate) fn get_stack(&mut self, buf: u32, size: u32, user: bool, skip: i32) {
        if !user && self.plan.phase != Phase::Normal {
            // BEGIN and END fire in the consumer's own system call: the
            // kernel frames there are dtrace's machinery, not a stack
            // the program traced. None, as DTrace's show none.
            for off in (0..size).step_by(8) {
                self.st_imm_at(R9, buf + off, 0);
            }
            self.a.emit(mov64_imm(R0, 0));
            return;
        }
        self.a
            .emit(ldx(Size::DW, R1, FP, crate::codegen::stack::CTX));
        self.ptr(R2, R9, buf);
        self.a.emit(mov64_imm(R3, size as i32));
        let machinery = match self.plan.kind {
            _ if user => 0,
            ProgKind::RawTracepoint => RAW_TP_FRAMES + i32::from(self.cx.in_error),
            // The program's own frame (a trampoline calls it).
            ProgKind::Fentry | ProgKind::Fexit => 1 + i32::from(self.cx.in_error),
            _ => 0,
        };
        let flags = if user { BPF_F_USER_STACK } else { 0 } | (skip + machinery);
        self.a.emit(mov64_imm(R4, flags));
        self.a.emit(call(Helper::GetStack));
    }

    /// The hook argument word that points to the task the probe fires on
    /// behalf of, if not the current one (a context switch's incoming
    /// thread).
    pub(crate) fn task_word(&self) -> Option<u8> {
        match &self.plan.context {
            ArgContext::RawArgs { task, .. } => *task,
            _ => None,
        }
    }

    /// r0 = the probe's task: the current one, or the one its hook names.
    pub(crate) fn current_task(&mut self) {
        match self.task_word() {
            Some(w) => {
                self.a
                    .emit(ldx(Size::DW, R1, FP, crate::codegen::stack::CTX));
                self.a.emit(ldx(Size::DW, R0, R1, 8 * i16::from(w.min(11))));
            }
            None => self.a.emit(call(Helper::GetCurrentTask)),
        }
    }

    /// Writes a snapshot of the user stack (`types::ustack_snapshot`) to
    /// this CPU's principal buffer, a record of its own, and its
    /// reference (4 words) at scratch offset `ref_at`. The snapshot is the
    /// process ID, the head (the tag with `frames`, and `JIT` for
    /// `jstack()`), the user registers the unwinder starts from, its ID,
    /// and the stack's bytes from the stack pointer up, read a page at a
    /// time until `ustackbytes` are copied or a page cannot be read (the
    /// end of the stack's mapping, or a page not present); the record is
    /// as long as what was copied. A thread with no user context (a
    /// kernel thread) copies nothing and has no registers: no frames. A
    /// snapshot the buffer has no room for is a drop (its reference then
    /// finds nothing: no frames).
    pub(crate) fn user_stack_snapshot(&mut self, frames: u32, jit: bool, ref_at: u32) -> R<()> {
        use dtrace_lang::types::ustack_snapshot as us;
        const PAGE: u32 = 4096;
        let bytes = self.g.inp.opts.ustackbytes;
        // The record header, then the snapshot; a read of up to a page
        // may start anywhere below the end.
        let rec = self.alloc_buf(RECORD_HEADER + us::words(bytes) * 8 + PAGE);
        let buf = rec + RECORD_HEADER;
        let chunk_at = self.alloc_buf(8);
        let limit_at = self.alloc_buf(8);
        let done = self.a.new_label();
        self.a.emit(call(Helper::GetCurrentPidTgid));
        self.a.emit(alu64_imm(Alu::Rsh, R0, 32));
        self.stx_at(R9, buf + us::PID as u32, R0, Size::DW);
        self.stx_at(R9, ref_at + us::PID as u32, R0, Size::DW);
        let head = us::TAG | u64::from(frames.min(0xffff)) | if jit { us::JIT } else { 0 };
        load_imm(&mut self.a, R1, head as i64);
        self.stx_at(R9, buf + us::HEAD as u32, R1, Size::DW);
        load_imm(&mut self.a, R1, (head | us::REF) as i64);
        self.stx_at(R9, ref_at + us::HEAD as u32, R1, Size::DW);
        self.st_imm_at(R9, rec, USTACK_EPID as i32);
        self.a.emit(call(Helper::GetSmpProcessorId));
        self.stx_at(R9, rec + 4, R0, Size::W);
        self.stx_at(R9, ref_at + us::REF_CPU as u32, R0, Size::DW);
        self.a.emit(call(Helper::KtimeGetNs));
        self.stx_at(R9, buf + us::ID as u32, R0, Size::DW);
        self.stx_at(R9, ref_at + us::REF_ID as u32, R0, Size::DW);
        for w in [us::LEN, us::IP, us::SP, us::BP] {
            self.st_imm_at(R9, buf + w as u32, 0);
        }
        // The registers, read whole into where the bytes go (a failed
        // read leaves zeros: no frames).
        self.user_regs()?;
        self.a.emit(mov64_reg(R3, R0));
        self.ptr(R1, R9, buf + us::BYTES as u32);
        self.a.emit(mov64_imm(R2, 168));
        self.a.emit(call(Helper::ProbeReadKernel));
        for (from, to) in [
            (crate::layout::regs::IP_FULL, us::IP),
            (crate::layout::regs::SP_FULL, us::SP),
            (32, us::BP),
        ] {
            self.ldx_at(R1, R9, buf + us::BYTES as u32 + from, Size::DW);
            self.stx_at(R9, buf + to as u32, R1, Size::DW);
        }
        // A user address, or nothing.
        self.ldx_at(R1, R9, buf + us::IP as u32, Size::DW);
        load_imm(&mut self.a, R2, 1 << 47);
        let user = self.a.new_label();
        self.a.jmp_reg_to(Cond::Lt, R1, R2, user);
        for w in [us::IP, us::SP, us::BP] {
            self.st_imm_at(R9, buf + w as u32, 0);
        }
        self.a.ja_to(done);
        self.a.bind(user);
        // At most `ustackbytes`; on the main thread, not past where its
        // stack began (above are its arguments and environment).
        load_imm(&mut self.a, R1, i64::from(bytes));
        self.stx_at(R9, limit_at, R1, Size::DW);
        if let (Some(mm), Some(start)) =
            (self.g.inp.opts.task.mm, self.g.inp.opts.task.mm_start_stack)
        {
            let whole = self.a.new_label();
            self.a.emit(call(Helper::GetCurrentTask));
            self.read_at_r0(mm, 8);
            self.ldx_at(R0, R9, scratch::TMP, Size::DW);
            self.a.jmp_imm_to(Cond::Eq, R0, 0, whole);
            self.read_at_r0(start, 8);
            self.ldx_at(R1, R9, scratch::TMP, Size::DW);
            self.ldx_at(R2, R9, buf + us::SP as u32, Size::DW);
            self.a.jmp_reg_to(Cond::Le, R1, R2, whole);
            self.a.emit(alu64_reg(Alu::Sub, R1, R2));
            // (A word past it, for the unwinder's last read.)
            self.a.emit(alu64_imm(Alu::Add, R1, 8));
            self.a.jmp_imm_to(Cond::Ge, R1, bytes as i32, whole);
            self.stx_at(R9, limit_at, R1, Size::DW);
            self.a.bind(whole);
        }
        // Page by page: the first to the end of the stack pointer's page.
        for _ in 0..bytes / PAGE + 2 {
            self.ldx_at(R1, R9, buf + us::LEN as u32, Size::DW);
            self.a.jmp_imm_to(Cond::Gt, R1, bytes as i32, done);
            self.ldx_at(R2, R9, limit_at, Size::DW);
            self.a.jmp_reg_to(Cond::Le, R2, R1, done);
            self.a.emit(alu64_reg(Alu::Sub, R2, R1));
            self.ldx_at(R3, R9, buf + us::SP as u32, Size::DW);
            self.a.emit(alu64_reg(Alu::Add, R3, R1));
            self.a.emit(mov64_reg(R4, R3));
            self.a.emit(alu64_imm(Alu::And, R4, (PAGE - 1) as i32));
            self.a.emit(mov64_imm(R5, PAGE as i32));
            self.a.emit(alu64_reg(Alu::Sub, R5, R4));
            let fits = self.a.new_label();
            self.a.jmp_reg_to(Cond::Le, R5, R2, fits);
            self.a.emit(mov64_reg(R5, R2));
            self.a.bind(fits);
            // Never more than a page (so, but a verifier before 5.13
            // does not learn it from the comparison of two registers).
            let page = self.a.new_label();
            self.a.jmp_imm_to(Cond::Le, R5, PAGE as i32, page);
            self.a.emit(mov64_imm(R5, PAGE as i32));
            self.a.bind(page);
            // (A store far into scratch goes through r5.)
            self.a.emit(mov64_reg(R0, R5));
            self.stx_at(R9, chunk_at, R0, Size::DW);
            self.a.emit(mov64_reg(R2, R0));
            self.a.emit(mov64_reg(R4, R1));
            self.ptr(R1, R9, buf + us::BYTES as u32);
            self.a.emit(alu64_reg(Alu::Add, R1, R4));
            self.a.emit(call(self.user_read()));
            self.a.jmp_imm_to(Cond::Ne, R0, 0, done);
            self.ldx_at(R1, R9, buf + us::LEN as u32, Size::DW);
            self.ldx_at(R2, R9, chunk_at, Size::DW);
            self.a.emit(alu64_reg(Alu::Add, R1, R2));
            self.stx_at(R9, buf + us::LEN as u32, R1, Size::DW);
        }
        self.a.bind(done);
        // The record: as long as what was copied.
        let dropped = self.a.new_label();
        let out = self.a.new_label();
        self.principal_buffer(dropped);
        self.ldx_at(R3, R9, buf + us::LEN as u32, Size::DW);
        self.a.jmp_imm_to(Cond::Gt, R3, bytes as i32, dropped);
        self.a.emit(alu64_imm(
            Alu::Add,
            R3,
            (RECORD_HEADER + us::BYTES as u32) as i32,
        ));
        self.ptr(R2, R9, rec);
        self.a.emit(mov64_imm(R4, self.submit_flags()));
        self.a.emit(call(Helper::RingbufOutput));
        self.a.jmp_imm_to(Cond::Eq, R0, 0, out);
        self.a.bind(dropped);
        self.count_drop(drops::BUFFER);
        self.a.bind(out);
        Ok(())
    }

    /// r0 = the address of the current thread's user registers
    /// (`struct pt_regs`), which `uregs[]` reads.
    pub(crate) fn user_regs(&mut self) -> Result<(), GenError> {
        if matches!(self.plan.context, ArgContext::Uprobe { .. }) {
            // A uprobe's context is the thread's user registers.
            self.a
                .emit(ldx(Size::DW, R0, FP, crate::codegen::stack::CTX));
            return Ok(());
        }
        match self.g.inp.opts.kernel.user_regs {
            UserRegs::Helper => {
                self.a.emit(call(Helper::GetCurrentTaskBtf));
                self.a.emit(mov64_reg(R1, R0));
                self.a.emit(call(Helper::TaskPtRegs));
            }
            UserRegs::StackTop { stack, from_stack } => {
                // The task's stack pointer (0 if unreadable), then the
                // registers' place above it; a 0 stack stays 0, so the
                // read faults as at address 0 would.
                self.a.emit(call(Helper::GetCurrentTask));
                self.read_at_r0(stack, 8);
                self.ldx_at(R0, R9, scratch::TMP, Size::DW);
                let zero = self.a.new_label();
                self.a.jmp_imm_to(Cond::Eq, R0, 0, zero);
                self.a.emit(alu64_imm(Alu::Add, R0, from_stack as i32));
                self.a.bind(zero);
            }
            UserRegs::Unknown(why) => {
                return Err(GenError(format!("uregs[] and ustack() need {}", why)));
            }
        }
        Ok(())
    }

    pub(crate) fn no_task_btf(what: &str) -> GenError {
        GenError(format!(
            "{} needs kernel BTF (task_struct offsets), which is unavailable",
            what
        ))
    }

    /// Reads `size` bytes at `task + off` (the probe's task) into
    /// scratch::TMP, which is zero where the read fails.
    pub(crate) fn read_task_field(&mut self, off: u32, size: i32) {
        self.current_task();
        self.read_at_r0(off, size);
    }

    /// Reads `size` bytes at `r0 + off` into scratch::TMP (zeroed first).
    pub(crate) fn read_at_r0(&mut self, off: u32, size: i32) {
        self.a.emit(mov64_reg(R3, R0));
        self.a.emit(alu64_imm(Alu::Add, R3, off as i32));
        self.ptr(R1, R9, scratch::TMP);
        self.a.emit(mov64_imm(R2, size));
        self.a.emit(st_imm(Size::DW, R9, scratch::TMP as i16, 0));
        self.a.emit(call(Helper::ProbeReadKernel));
    }

    /// r0 = the 32-bit value at the end of a pointer path from the
    /// probe's task: every offset but the last leads to a pointer
    /// (`real_parent` then `tgid` is the parent's pid). A failed read is 0.
    pub(crate) fn task_u32(&mut self, path: &[Option<u32>], what: &str) -> R<()> {
        let offs: Option<Vec<u32>> = path.iter().copied().collect();
        let offs = offs.ok_or_else(|| Self::no_task_btf(what))?;
        let Some((last, ptrs)) = offs.split_last() else {
            return Err(Self::no_task_btf(what));
        };
        self.current_task();
        for &off in ptrs {
            self.read_at_r0(off, 8);
            self.a.emit(ldx(Size::DW, R0, R9, scratch::TMP as i16));
        }
        self.read_at_r0(*last, 4);
        self.a.emit(ldx(Size::W, R0, R9, scratch::TMP as i16));
        Ok(())
    }
}
