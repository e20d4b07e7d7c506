//! One BPF program: prologue (tick gate, activity check, scratch, dispatch,
//! arguments), the clauses in order, and the error subprogram.

use dtrace_lang::ir::*;

use crate::asm::{Asm, Assembled, Label, MapId};
use crate::codegen::stack;
use crate::codegen::{
    dispatch_layout, load_imm, visit_clause_exprs, DispatchLayout, Frame, GenError, Generator, Temp,
};
use crate::hook::HookGen;
use crate::insn::*;
use crate::layout::{regs, scratch};
use crate::plan::*;

/// Where the current clause's EPID comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EpidSrc {
    Const(u32),
    /// Slot `n` of the dispatch entry's EPID table; becomes `Scratch` once
    /// the clause has loaded it.
    Slot(u32),
    /// Stored in scratch::EPID at clause entry (dispatched programs).
    Scratch,
}

/// Where the current clause's probe identity comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum IdentSrc {
    Const(ProbeIdentity),
    /// From the dispatch entry (pointer at stack::DISPATCH); fields that do
    /// not vary are still constant.
    Dispatch(ProbeIdentity),
}

/// Per-clause generation state.
pub(crate) struct ClauseCx {
    pub(crate) epid: EpidSrc,
    pub(crate) ident: IdentSrc,
    pub(crate) args_base: u32,
    pub(crate) phase: Phase,
    pub(crate) in_error: bool,
    pub(crate) recording: bool,
    pub(crate) actions: Vec<RecordedAction>,
    pub(crate) next_action: usize,
    pub(crate) fault_pred: Label,
    pub(crate) fault_body: Label,
    pub(crate) in_predicate: bool,
    pub(crate) faulted: bool,
    /// The program's context defines errno (system call returns).
    pub(crate) has_errno: bool,
    /// Where the clause ends, and its record's size.
    pub(crate) end: Option<Label>,
    pub(crate) size: u32,
    /// After `speculate()`: the stack slot of the speculative buffer's
    /// fill word, which the record is published to.
    pub(crate) spec_slot: Option<i16>,
}

/// `bpf_ringbuf_submit` flag: do not wake the consumer.
const BPF_RB_NO_WAKEUP: i32 = 1;

/// The highest signal number Linux has.
const MAX_SIGNAL: i32 = 64;
const EINVAL: i32 = 22;
/// The longest chill(), in nanoseconds (DTrace's `dtrace_chill_max`).
pub const CHILL_MAX: i64 = 500_000_000;
/// The period over which chill() time is limited (`dtrace_chill_interval`).
pub const CHILL_INTERVAL: i64 = 1_000_000_000;
/// The most turns a `bpf_iter_num` iterator may be given (the kernel's
/// `BPF_MAX_LOOPS`), and how many such runs chill() may make.
const BPF_MAX_LOOPS: i32 = 8 * 1024 * 1024;
const CHILL_ROUNDS: i32 = 64;
/// The scratch buffer copyout() gathers its bytes in holds at least this
/// many (or `strsize`, if larger).
const COPYOUT_MIN: u32 = 256;

pub(crate) struct ProgGen<'g, 'a> {
    pub(crate) g: &'g mut Generator<'a>,
    pub(crate) a: Asm,
    pub(crate) plan: &'g ProgramPlan,
    pub(crate) frame: Frame,
    pub(crate) bump: u32,
    pub(crate) cx: ClauseCx,
    pub(crate) dmap: Option<MapId>,
    pub(crate) dl: Option<DispatchLayout>,
    pub(crate) raw: bool,
    pub(crate) error_sub: Label,
    pub(crate) error_used: bool,
    /// DTrace's action number of the statement being generated.
    pub(crate) cur_action: u32,
    /// Set when an expression needed more temporaries than the BPF stack
    /// holds; generation goes on and then fails with a clear message.
    pub(crate) stack_exhausted: bool,
}

/// The most instructions the kernel loads in one program (`BPF_COMPLEXITY_LIMIT_INSNS`,
/// for privileged users).
pub const MAX_INSNS: usize = 1_000_000;

/// The BPF stack of one function, in bytes.
pub(crate) const BPF_STACK: i32 = 512;

/// How many temporaries an expression may hold at once: two registers
/// and the spill slots below the fixed ones.
pub(crate) const MAX_TEMPS: i32 = 2 + (BPF_STACK + crate::codegen::stack::SPILL as i32) / 8 + 1;

/// Builds the program for `plan`.
pub(crate) fn build(
    g: &mut Generator,
    plan: &ProgramPlan,
    dmap: Option<MapId>,
    gate_off: Option<u32>,
) -> Result<Assembled, GenError> {
    let mut a = Asm::new();
    let error_sub = a.new_label();
    let dummy = a.new_label();
    let dl = dmap.map(|_| dispatch_layout(g, plan));
    let has_errno = matches!(&plan.context, ArgContext::Hook(h) if h.has_errno());
    let mut p = ProgGen {
        g,
        a,
        plan,
        frame: Frame::new(),
        bump: 0,
        cx: ClauseCx {
            epid: EpidSrc::Const(0),
            ident: IdentSrc::Const(ProbeIdentity {
                id: 0,
                provider: String::new(),
                module: String::new(),
                function: String::new(),
                name: String::new(),
            }),
            args_base: scratch::ARGS,
            phase: plan.phase,
            in_error: false,
            recording: false,
            actions: Vec::new(),
            next_action: 0,
            fault_pred: dummy,
            fault_body: dummy,
            in_predicate: false,
            faulted: false,
            has_errno,
            end: None,
            size: 0,
            spec_slot: None,
        },
        dmap,
        dl,
        // Programs that run in the context of the code they trace (not
        // an interrupt) share the per-CPU scratch slot for that context.
        raw: matches!(
            plan.kind,
            ProgKind::RawTracepoint | ProgKind::Fentry | ProgKind::Fexit | ProgKind::Uprobe
        ),
        error_sub,
        error_used: false,
        cur_action: 0,
        stack_exhausted: false,
    };
    match &plan.context {
        ArgContext::Stash { hook, key, nwords } => p.stash(hook, *key, *nwords)?,
        ArgContext::Hook(h) if h.own_program(&mut HookGen { p: &mut p })? => {}
        _ => p.main(gate_off)?,
    }
    if p.error_used {
        p.error_subprogram()?;
    }
    if p.stack_exhausted {
        return Err(GenError(format!(
            "expression too complex: it needs more than {} intermediate values at once \
             and the BPF stack holds only {} bytes; split it with clause-local variables",
            MAX_TEMPS, BPF_STACK
        )));
    }
    let code =
        p.a.finish()
            .map_err(|e| GenError(format!("internal assembler error: {:?}", e)))?;
    if code.insns.len() > MAX_INSNS {
        return Err(GenError(format!(
            "program for {} too large: {} BPF instructions exceed the kernel's limit of {}",
            plan.name,
            code.insns.len(),
            MAX_INSNS
        )));
    }
    Ok(code)
}

impl ProgGen<'_, '_> {
    fn required_activity(&self) -> u32 {
        match self.plan.phase {
            Phase::Begin => activity::WARMUP,
            Phase::Normal => activity::ACTIVE,
            Phase::End => activity::COOLDOWN,
        }
    }

    /// Flags for `bpf_ringbuf_submit`: wake the consumer as records
    /// arrive, or leave it to read at its switch rate.
    fn submit_flags(&self) -> i32 {
        if self.g.inp.opts.wakeup {
            0
        } else {
            BPF_RB_NO_WAKEUP
        }
    }

    /// Jumps to `target` unless the activity state is the one this program
    /// runs in.
    pub(crate) fn activity_check(&mut self, target: Label) {
        let st = self.g.m_state;
        self.a.ld_map_value(R1, st, 0);
        self.a.emit(ldx(Size::W, R1, R1, 0));
        let want = self.required_activity();
        self.a.jmp_imm_to(Cond::Ne, R1, want as i32, target);
    }

    /// Jumps to `out` unless the current process is `pid` in the image
    /// the probes were made for. The file may be mapped by other
    /// processes too, and by this one after an exec (libc always): the
    /// process's slot holds its ID while its image is the probes' (see
    /// `TargetSlots`).
    pub(crate) fn process_check(&mut self, pid: u32, out: Label) -> Result<(), GenError> {
        let (Some(m), Some(&(_, off))) = (
            self.g.m_targets,
            self.g.target_slots.iter().find(|(p, _)| *p == pid),
        ) else {
            return Err(GenError(format!("no slot for process {}", pid)));
        };
        self.a.emit(call(Helper::GetCurrentPidTgid));
        self.a.emit(alu64_imm(Alu::Rsh, R0, 32));
        self.a.ld_map_value(R1, m, off);
        self.a.emit(ldx(Size::W, R1, R1, 0));
        self.a.jmp_reg_to(Cond::Ne, R0, R1, out);
        Ok(())
    }

    fn main(&mut self, gate_off: Option<u32>) -> Result<(), GenError> {
        let out = self.a.new_label();
        self.a.emit(mov64_reg(R6, R1));
        self.a.emit(stx(Size::DW, FP, stack::CTX, R6));
        let hook = match &self.plan.context {
            ArgContext::Hook(h) => Some(h.clone()),
            _ => None,
        };
        if let Some(h) = &hook {
            h.early_filter(&mut HookGen { p: self }, out)?;
        }
        self.activity_check(out);
        if let Some(pid) = self.plan.context.process() {
            self.process_check(pid, out)?;
        }
        if let (Some(off), Some(period)) = (gate_off, self.plan.tick_gate) {
            self.tick_gate(off, period, out);
        }
        // The scratch element for this CPU and context.
        self.a.emit(call(Helper::GetSmpProcessorId));
        if let (Some(cpu), Phase::Normal) = (self.g.inp.opts.only_cpu, self.plan.phase) {
            // The cpu option: probes fire on that CPU alone (BEGIN and
            // END are run there by the consumer).
            self.a.jmp_imm_to(Cond::Ne, R0, cpu as i32, out);
        }
        self.a.emit(alu64_imm(Alu::Lsh, R0, 1));
        if self.raw {
            self.a.emit(alu64_imm(Alu::Or, R0, 1));
        }
        self.a.emit(stx(Size::W, FP, stack::KEY, R0));
        let sm = self.g.m_scratch;
        self.a.ld_map_fd(R1, sm);
        self.a.emit(mov64_reg(R2, FP));
        self.a.emit(alu64_imm(Alu::Add, R2, i32::from(stack::KEY)));
        self.a.emit(call(Helper::MapLookupElem));
        self.a.jmp_imm_to(Cond::Eq, R0, 0, out);
        self.a.emit(mov64_reg(R9, R0));
        // strtok()'s saved place lasts for one probe firing.
        if let Some(at) = self.g.strtok_at {
            self.st_imm_at(R9, at, -1);
        }

        if let ArgContext::RawArgs { guards, after, .. } = &self.plan.context {
            let (guards, after) = (guards.clone(), after.clone());
            // A probe that is one case of its hook (a process's exit is
            // sched_process_exit when the thread group dies with it): the
            // hook's own words first, as they cost nothing to test.
            for g in guards.iter().filter(|g| !g.stashed) {
                self.a
                    .emit(ldx(Size::DW, R1, R6, 8 * i16::from(g.word.min(11))));
                self.guard_word(g, out);
            }
            if let Some(after) = after {
                // Only after the hook whose stash this thread has, for
                // this key: its time and words are copied to scratch.
                let map = self.g.stash_map(&after.hook)?;
                self.stash_key(after.key);
                self.stash_call(map, Helper::MapLookupElem, None);
                self.a.jmp_imm_to(Cond::Eq, R0, 0, out);
                for i in 0..=i16::from(STASH_WORDS) {
                    self.a.emit(ldx(Size::DW, R1, R0, 8 * i));
                    self.a
                        .emit(stx(Size::DW, R9, scratch::STASH as i16 + 8 * i, R1));
                }
            }
            for g in guards.iter().filter(|g| g.stashed) {
                let at = scratch::STASH as i16 + 8 + 8 * i16::from(g.word.min(STASH_WORDS - 1));
                self.a.emit(ldx(Size::DW, R1, R9, at));
                self.guard_word(g, out);
            }
        }
        if let Some(h) = &hook {
            h.filter(&mut HookGen { p: self }, out)?;
        }
        if self.plan.probes.is_empty() {
            // A program that only keeps state for others (a hook's filter
            // marking what later probes read): no probe fires here.
            self.a.ja_to(out);
        }
        let clauses = self.clause_list();
        let (uses_args, uses_errno) = self.uses(&clauses);
        let uses_args = uses_args || self.plan.guard.is_some();
        if let (Some(h), true) = (&hook, uses_args) {
            h.prepare(&mut HookGen { p: self }, out)?;
        }
        if let Some(dm) = self.dmap {
            match (self.plan.dispatch, &self.plan.context) {
                (Some(DispatchKey::Cookie), _) => {
                    self.a.emit(mov64_reg(R1, R6));
                    self.a.emit(call(Helper::GetAttachCookie));
                    self.a.emit(mov64_reg(R1, R0));
                }
                (Some(DispatchKey::Hook | DispatchKey::HookAlways), ArgContext::Hook(h)) => {
                    h.clone().dispatch_key(&mut HookGen { p: self }, out)?
                }
                _ => {
                    return Err(GenError(format!(
                        "program {} has no dispatch key",
                        self.plan.name
                    )))
                }
            }
            self.a.emit(stx(Size::W, FP, stack::KEY, R1));
            self.a.ld_map_fd(R1, dm);
            self.a.emit(mov64_reg(R2, FP));
            self.a.emit(alu64_imm(Alu::Add, R2, i32::from(stack::KEY)));
            self.a.emit(call(Helper::MapLookupElem));
            self.a.jmp_imm_to(Cond::Eq, R0, 0, out);
            self.a.emit(ldx(Size::W, R1, R0, 0));
            self.a.jmp_imm_to(Cond::Eq, R1, 0, out);
            self.a.emit(stx(Size::DW, FP, stack::DISPATCH, R0));
        }
        if uses_args || uses_errno {
            self.load_args(uses_errno);
        }
        if let Some(guard) = self.plan.guard.clone() {
            self.guard(&guard, out)?;
        }

        // Clauses, in program order.
        let first = clauses.first().map(|c| c.0);
        for (ci, epid_src, ident) in clauses.clone() {
            let next = self.a.new_label();
            // The prologue already checked the state for the first clause;
            // later ones re-check, since an earlier clause may have exited.
            let check = Some(ci) != first;
            self.clause(ci, epid_src, ident, check, false, next)?;
            self.a.bind(next);
        }
        self.a.bind(out);
        self.a.emit(mov64_imm(R0, 0));
        self.a.emit(exit());
        Ok(())
    }

    /// Jumps to `out` unless the word in R1 passes guard `g`.
    fn guard_word(&mut self, g: &Guard, out: Label) {
        crate::codegen::load_imm(&mut self.a, R2, g.mask as i64);
        self.a.emit(alu64_reg(Alu::And, R1, R2));
        crate::codegen::load_imm(&mut self.a, R2, g.value as i64);
        let cond = if g.eq { Cond::Ne } else { Cond::Eq };
        self.a.jmp_reg_to(cond, R1, R2, out);
    }

    /// The provider's condition on the arguments: on to the clauses if
    /// it is nonzero, to `out` if it is zero or faults (a packet that is
    /// not the probe's is not an error).
    fn guard(&mut self, guard: &CExpr, out: Label) -> Result<(), GenError> {
        let fault = self.a.new_label();
        self.cx.fault_pred = fault;
        self.cx.fault_body = fault;
        self.cx.in_predicate = true;
        self.cx.faulted = false;
        self.bump = 0;
        let t = self.eval_int(guard)?;
        self.load_temp(t, R0);
        self.free(t);
        self.cx.in_predicate = false;
        self.a.jmp_imm_to(Cond::Eq, R0, 0, out);
        let on = self.a.new_label();
        self.a.ja_to(on);
        self.a.bind(fault);
        self.a.ja_to(out);
        self.a.bind(on);
        Ok(())
    }

    /// The key of a stash entry at `stack::VALUE`: the current thread,
    /// then hook word `word` of the context in R6 (R1-R5 clobbered).
    fn stash_key(&mut self, word: u8) {
        self.a.emit(call(Helper::GetCurrentPidTgid));
        self.a.emit(stx(Size::DW, FP, stack::VALUE, R0));
        self.a
            .emit(ldx(Size::DW, R1, R6, 8 * i16::from(word.min(11))));
        self.a.emit(stx(Size::DW, FP, stack::KEY, R1));
    }

    /// A stash program (see `ArgContext::Stash`): while tracing is
    /// active, keeps the time and the hook's first `nwords` words for
    /// this thread and key.
    fn stash(&mut self, hook: &str, key: u8, nwords: u8) -> Result<(), GenError> {
        let out = self.a.new_label();
        let map = self.g.stash_map(hook)?;
        self.a.emit(mov64_reg(R6, R1));
        self.activity_check(out);
        self.stash_key(key);
        // The value below the key: the time, then the words.
        let value = stack::SPILL - 8 * i16::from(STASH_WORDS);
        self.a.emit(call(Helper::KtimeGetNs));
        self.a.emit(stx(Size::DW, FP, value, R0));
        for i in 0..i16::from(STASH_WORDS) {
            if i < i16::from(nwords.min(12)) {
                self.a.emit(ldx(Size::DW, R1, R6, 8 * i));
                self.a.emit(stx(Size::DW, FP, value + 8 + 8 * i, R1));
            } else {
                self.a.emit(st_imm(Size::DW, FP, value + 8 + 8 * i, 0));
            }
        }
        self.stash_call(map, Helper::MapUpdateElem, Some(value));
        self.a.bind(out);
        self.a.emit(mov64_imm(R0, 0));
        self.a.emit(exit());
        Ok(())
    }

    /// The clauses this program runs, with their EPID and identity sources.
    fn clause_list(&self) -> Vec<(usize, EpidSrc, IdentSrc)> {
        let mut out = Vec::new();
        if let (Some(dl), Some(first)) = (&self.dl, self.plan.probes.first()) {
            let proto = first.probe.clone();
            for (slot, &c) in dl.clauses.iter().enumerate() {
                out.push((
                    c,
                    EpidSrc::Slot(slot as u32),
                    IdentSrc::Dispatch(proto.clone()),
                ));
            }
            return out;
        }
        let Some(e) = self.plan.probes.first() else {
            return out;
        };
        let mut cl = e.clauses.clone();
        cl.sort_by_key(|x| x.0);
        for (c, epid) in cl {
            out.push((c, EpidSrc::Const(epid), IdentSrc::Const(e.probe.clone())));
        }
        out
    }

    fn uses(&self, clauses: &[(usize, EpidSrc, IdentSrc)]) -> (bool, bool) {
        let mut args = false;
        let mut errno = false;
        for (ci, _, _) in clauses {
            visit_clause_exprs(&self.g.inp.clauses[*ci], &mut |e| match e.kind {
                CKind::Arg(_) => args = true,
                CKind::Builtin(Builtin::Errno) => errno = true,
                _ => {}
            });
        }
        (args, errno)
    }

    fn tick_gate(&mut self, off: u32, period: u64, out: Label) {
        let st = self.g.m_state;
        self.a.emit(call(Helper::KtimeGetNs));
        self.a.emit(mov64_reg(R7, R0));
        self.a.ld_map_value(R6, st, off);
        self.a.emit(ldx(Size::DW, R2, R6, 0));
        self.a.emit(mov64_reg(R3, R7));
        self.a.emit(alu64_reg(Alu::Sub, R3, R2));
        load_imm(&mut self.a, R4, (period / 2) as i64);
        self.a.jmp_reg_to(Cond::Lt, R3, R4, out);
        self.a.emit(mov64_reg(R0, R2));
        self.a.emit(atomic_cmpxchg64(R6, 0, R7));
        self.a.jmp_reg_to(Cond::Ne, R0, R2, out);
        // Restore the context register the rest of the prologue expects.
        self.a.emit(ldx(Size::DW, R6, FP, stack::CTX));
    }

    /// R1 = the unsigned `size`-byte integer (1, 2, 4 or 8) at `off`
    /// past the pointer in hook word `word`, read safely (0 if it cannot
    /// be); R2-R5 clobbered.
    fn load_through(&mut self, word: u8, off: u32, size: u8) {
        let tmp = scratch::TMP as i16;
        self.a.emit(st_imm(Size::DW, R9, tmp, 0));
        self.a.emit(mov64_reg(R1, R9));
        self.a.emit(alu64_imm(Alu::Add, R1, tmp as i32));
        self.a.emit(mov64_imm(R2, i32::from(size.clamp(1, 8))));
        self.a
            .emit(ldx(Size::DW, R3, R6, 8 * i16::from(word.min(11))));
        self.a.emit(alu64_imm(Alu::Add, R3, off as i32));
        self.a.emit(call(Helper::ProbeReadKernel));
        let width = match size {
            1 => Size::B,
            2 => Size::H,
            4 => Size::W,
            _ => Size::DW,
        };
        self.a.emit(ldx(width, R1, R9, tmp));
    }

    pub(crate) fn store_arg(&mut self, i: u32, src: Reg) {
        self.a
            .emit(stx(Size::DW, R9, (scratch::ARGS + 8 * i) as i16, src));
    }

    /// A tracepoint's fields as arguments. The record is the context
    /// (r6); its address is also taken as a plain number (through
    /// scratch), so that a variable `__data_loc` offset may be added.
    fn load_tp_args(&mut self, fields: &[TpArg]) {
        let n = fields.len().min(10) as u32;
        if fields.iter().any(|f| f.load != TpLoad::Value) {
            self.a.emit(stx(Size::DW, R9, scratch::TMP as i16, R6));
        }
        for (i, f) in fields.iter().take(10).enumerate() {
            let off = i32::from(f.offset);
            let aligned = matches!(f.size, 1 | 2 | 4 | 8) && f.offset % f.size == 0;
            match f.load {
                TpLoad::Value if aligned => {
                    let size = Size::of_bytes(u32::from(f.size));
                    self.a.emit(ldx(size, R1, R6, f.offset as i16));
                    if f.signed && f.size < 8 {
                        // Sign-extended by shifts: context loads are
                        // zero-extending.
                        let bits = 64 - 8 * i32::from(f.size);
                        self.a.emit(alu64_imm(Alu::Lsh, R1, bits));
                        self.a.emit(alu64_imm(Alu::Arsh, R1, bits));
                    }
                }
                TpLoad::DataLoc => {
                    self.a.emit(ldx(Size::W, R1, R6, f.offset as i16));
                    self.a.emit(alu64_imm(Alu::And, R1, 0xffff));
                    self.a.emit(ldx(Size::DW, R2, R9, scratch::TMP as i16));
                    self.a.emit(alu64_reg(Alu::Add, R1, R2));
                }
                _ => {
                    self.a.emit(ldx(Size::DW, R1, R9, scratch::TMP as i16));
                    self.a.emit(alu64_imm(Alu::Add, R1, off));
                }
            }
            self.store_arg(i as u32, R1);
        }
        self.zero_args(n);
    }

    /// Calls `helper` on stash map `map` with the key at fp+VALUE (and,
    /// for an update, the value at fp+`value`, any flags 0).
    pub(crate) fn stash_call(&mut self, map: MapId, helper: Helper, value: Option<i16>) {
        self.a.ld_map_fd(R1, map);
        self.a.emit(mov64_reg(R2, FP));
        self.a
            .emit(alu64_imm(Alu::Add, R2, i32::from(stack::VALUE)));
        if let Some(v) = value {
            self.a.emit(mov64_reg(R3, FP));
            self.a.emit(alu64_imm(Alu::Add, R3, i32::from(v)));
            self.a.emit(mov64_imm(R4, 0));
        }
        self.a.emit(call(helper));
    }

    pub(crate) fn zero_args(&mut self, from: u32) {
        for i in from..10 {
            self.a
                .emit(st_imm(Size::DW, R9, (scratch::ARGS + 8 * i) as i16, 0));
        }
    }

    fn load_args(&mut self, errno: bool) {
        let plan = self.plan;
        match &plan.context {
            ArgContext::Tracepoint(fields) => self.load_tp_args(fields),
            ArgContext::RawArgs { words, .. } => {
                for (i, &w) in words.iter().take(10).enumerate() {
                    match w {
                        RawWord::Hook(w) if w < 12 => {
                            self.a.emit(ldx(Size::DW, R1, R6, 8 * i16::from(w)));
                        }
                        RawWord::Hook(_) => self.a.emit(mov64_imm(R1, 0)),
                        RawWord::Const(v) => crate::codegen::load_imm(&mut self.a, R1, v),
                        RawWord::Stashed(w) => {
                            let at =
                                scratch::STASH as i16 + 8 + 8 * i16::from(w.min(STASH_WORDS - 1));
                            self.a.emit(ldx(Size::DW, R1, R9, at));
                        }
                        // A read already made for an earlier argument (a
                        // packet's IP header, two arguments' word) is
                        // copied, not made again.
                        RawWord::Load { .. } if words[..i].contains(&w) => {
                            let j = words[..i].iter().position(|x| *x == w).unwrap_or(0);
                            self.a.emit(ldx(
                                Size::DW,
                                R1,
                                R9,
                                (scratch::ARGS + 8 * j as u32) as i16,
                            ));
                        }
                        RawWord::Load { word, ptr, add } => {
                            self.load_through(word, ptr, 8);
                            if let Some((off, size)) = add {
                                self.store_arg(i as u32, R1);
                                self.load_through(word, off, size);
                                self.a.emit(mov64_reg(R2, R1));
                                self.a.emit(ldx(
                                    Size::DW,
                                    R1,
                                    R9,
                                    (scratch::ARGS + 8 * i as u32) as i16,
                                ));
                                self.a.emit(alu64_reg(Alu::Add, R1, R2));
                            }
                        }
                        RawWord::Elapsed => {
                            self.a.emit(call(Helper::KtimeGetNs));
                            self.a.emit(ldx(Size::DW, R1, R9, scratch::STASH as i16));
                            self.a.emit(alu64_reg(Alu::Sub, R0, R1));
                            self.a.emit(mov64_reg(R1, R0));
                        }
                    }
                    self.store_arg(i as u32, R1);
                }
                self.zero_args(words.len().min(10) as u32);
            }
            // A stash program serves no probe: it has no arguments.
            ArgContext::None | ArgContext::Stash { .. } => self.zero_args(0),
            ArgContext::Uprobe { ret: true, .. } => {
                // arg0: the offset of the return place in the function,
                // the high half of its attachment's cookie.
                self.a.emit(mov64_reg(R1, R6));
                self.a.emit(call(Helper::GetAttachCookie));
                self.a.emit(alu64_imm(Alu::Rsh, R0, 32));
                self.store_arg(0, R0);
                self.a.emit(ldx(Size::DW, R1, R6, regs::AX_FULL as i16));
                self.store_arg(1, R1);
                self.zero_args(2);
            }
            ArgContext::Uprobe { ret: false, .. } => {
                for (i, off) in regs::ARGS_FULL.iter().enumerate() {
                    self.a.emit(ldx(Size::DW, R1, R6, *off as i16));
                    self.store_arg(i as u32, R1);
                }
                // The rest on the user stack, after the return address.
                for i in 6..10u32 {
                    self.a.emit(mov64_reg(R1, R9));
                    self.a
                        .emit(alu64_imm(Alu::Add, R1, (scratch::ARGS + 8 * i) as i32));
                    self.a.emit(mov64_imm(R2, 8));
                    self.a.emit(ldx(Size::DW, R3, R6, regs::SP_FULL as i16));
                    self.a.emit(alu64_imm(Alu::Add, R3, (8 * (i - 5)) as i32));
                    self.a.emit(call(Helper::ProbeReadUser));
                }
            }
            ArgContext::Hook(h) => h.load_args(&mut HookGen { p: self }, errno),
            ArgContext::PerfEventPc => {
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
    }

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
        // alloca() space lasts for the clause.
        if let Some(at) = self.g.alloca_at {
            self.st_imm_at(R9, at, 0);
        }
        if let Some(pred) = &c.predicate {
            self.cx.in_predicate = true;
            let t = self.eval_int(pred)?;
            self.load_temp(t, R0);
            self.free(t);
            self.cx.in_predicate = false;
            self.a.jmp_imm_to(Cond::Eq, R0, 0, next);
        }
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
        let stmts = c.stmts.clone();
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

    /// r1 = this CPU's principal buffer (its ring buffer, from the array
    /// of them), or `out` if it has none. Clobbers r0-r5.
    pub(crate) fn principal_buffer(&mut self, out: Label) {
        self.a.emit(call(Helper::GetSmpProcessorId));
        self.a.emit(stx(Size::W, FP, stack::KEY, R0));
        self.lookup_at_key(self.g.m_buffer, out);
        self.a.emit(mov64_reg(R1, R0));
    }

    /// The `fill` policy, with r1 this CPU's buffer: a record of `size`
    /// that would not leave END's reserve free fills the buffer: it is
    /// dropped and tracing stops (DRAINING, as exit() makes it), so the
    /// consumer ends it and runs END. Leaves r1 as it was.
    fn fill_check(&mut self, size: u32, next: Label) {
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
            self.a.emit(atomic_cmpxchg32(R1, 0, R2));
        }
        self.a.ja_to(next);
        self.a.bind(fits);
        self.a.emit(ldx(Size::DW, R1, FP, slot));
        self.free(ring);
    }

    /// Writes the record's header at r8 (EPID, CPU) and clears the
    /// actions' ran flags; the clause records from here on.
    fn record_header(&mut self, actions: &[RecordedAction]) {
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

    /// After a fault: fills the ERROR probe's arguments and calls the error
    /// subprogram.
    fn raise_error(&mut self) {
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
    fn error_subprogram(&mut self) -> Result<(), GenError> {
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

    fn next_layout(&mut self) -> Result<RecordedAction, GenError> {
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
    fn statement_ran(&mut self) -> Result<(), GenError> {
        if self.cx.recording {
            let act = self.next_layout()?;
            self.mark_ran(&act);
        }
        Ok(())
    }

    fn mark_ran(&mut self, act: &RecordedAction) {
        if let Some(f) = act.ran_flag {
            self.st_imm_at(R8, f, 1);
        }
    }

    fn stmts(&mut self, stmts: &[CStmt]) -> Result<(), GenError> {
        for s in stmts {
            self.bump = 0;
            self.stmt(s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &CStmt) -> Result<(), GenError> {
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
            } => {
                self.cur_action = *action;
                self.agg_update(*agg, keys, value.as_ref(), incr.as_ref())?;
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
    fn raise(&mut self, sig: &CExpr) -> Result<(), GenError> {
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
    /// verifier checks once however many times it turns). More than
    /// [`CHILL_MAX`] at once, or in one [`CHILL_INTERVAL`] on a CPU, is
    /// DTrace's illegal operation.
    fn chill(&mut self, ns: &CExpr) -> Result<(), GenError> {
        let Some(k) = self.g.inp.opts.iter_num else {
            return Err(GenError(
                "chill( ) needs the kernel's bpf_iter_num kfuncs (Linux 6.4 or later)".into(),
            ));
        };
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
        self.free(deadline);
        self.a.ja_to(done);
        self.a.bind(too_long);
        let act = self.cur_action;
        self.fault(fault::ILLOP, None, act);
        self.a.bind(done);
        Ok(())
    }

    /// copyout(src, addr, len) and copyoutstr(str, addr, maxlen): the
    /// bytes (or the string and its NUL, at most `maxlen`) are gathered in
    /// scratch, then `bpf_probe_write_user` writes them at `addr`. An
    /// address the process has not mapped writable is a bad address.
    fn copyout(
        &mut self,
        src: &CExpr,
        addr: &CExpr,
        len: &CExpr,
        string: bool,
    ) -> Result<(), GenError> {
        let cap = self.g.inp.opts.strsize.max(COPYOUT_MIN);
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
    fn exit_activity(&mut self) {
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
            self.a.emit(atomic_cmpxchg32(R1, 0, R2));
        }
    }

    /// Writes a recorded value into the clause's record.
    fn record_value(&mut self, v: &Value, e: &CExpr) -> Result<(), GenError> {
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

    pub(crate) fn alloc(&mut self) -> Temp {
        if let Some(r) = self.frame.free_regs.pop() {
            return Temp::Reg(r);
        }
        if let Some(s) = self.frame.free_slots.pop() {
            return Temp::Stack(s);
        }
        let s = self.frame.next_slot;
        if i32::from(s) < -BPF_STACK {
            // Out of stack: remember, and hand out a slot that is never
            // used since generation fails.
            self.stack_exhausted = true;
            return Temp::Stack(crate::codegen::stack::SPILL);
        }
        self.frame.next_slot -= 8;
        Temp::Stack(s)
    }

    /// A temporary that is always a stack slot (for what must be in
    /// memory, such as an iterator's state).
    pub(crate) fn alloc_stack(&mut self) -> Temp {
        let regs = std::mem::take(&mut self.frame.free_regs);
        let t = self.alloc();
        self.frame.free_regs = regs;
        t
    }

    pub(crate) fn free(&mut self, t: Temp) {
        match t {
            Temp::Reg(r) => self.frame.free_regs.push(r),
            Temp::Stack(s) => self.frame.free_slots.push(s),
        }
    }

    pub(crate) fn load_temp(&mut self, t: Temp, r: Reg) {
        match t {
            Temp::Reg(x) if x == r => {}
            Temp::Reg(x) => self.a.emit(mov64_reg(r, x)),
            Temp::Stack(s) => self.a.emit(ldx(Size::DW, r, FP, s)),
        }
    }

    pub(crate) fn store_temp(&mut self, t: Temp, r: Reg) {
        match t {
            Temp::Reg(x) if x == r => {}
            Temp::Reg(x) => self.a.emit(mov64_reg(x, r)),
            Temp::Stack(s) => self.a.emit(stx(Size::DW, FP, s, r)),
        }
    }

    /// A temporary buffer of `size` bytes in scratch, valid for the current
    /// statement; returns its scratch offset.
    pub(crate) fn alloc_buf(&mut self, size: u32) -> u32 {
        let off = self.g.temp_base + self.bump;
        self.bump += crate::layout::round8(size.max(1));
        self.g.temp_max = self.g.temp_max.max(self.bump);
        off
    }

    /// `*(size *)(base + off) = src`, for offsets beyond the 16-bit range.
    pub(crate) fn stx_at(&mut self, base: Reg, off: u32, src: Reg, size: Size) {
        if off <= 32000 {
            self.a.emit(stx(size, base, off as i16, src));
        } else {
            self.a.emit(mov64_reg(R5, base));
            self.a.emit(alu64_imm(Alu::Add, R5, off as i32));
            self.a.emit(stx(size, R5, 0, src));
        }
    }

    pub(crate) fn ldx_at(&mut self, dst: Reg, base: Reg, off: u32, size: Size) {
        if off <= 32000 {
            self.a.emit(ldx(size, dst, base, off as i16));
        } else {
            self.a.emit(mov64_reg(R5, base));
            self.a.emit(alu64_imm(Alu::Add, R5, off as i32));
            self.a.emit(ldx(size, dst, R5, 0));
        }
    }

    pub(crate) fn st_imm_at(&mut self, base: Reg, off: u32, imm: i32) {
        if off <= 32000 {
            self.a.emit(st_imm(Size::DW, base, off as i16, imm));
        } else {
            self.a.emit(mov64_reg(R5, base));
            self.a.emit(alu64_imm(Alu::Add, R5, off as i32));
            self.a.emit(st_imm(Size::DW, R5, 0, imm));
        }
    }

    /// `dst = base + off` as a pointer.
    pub(crate) fn ptr(&mut self, dst: Reg, base: Reg, off: u32) {
        self.a.emit(mov64_reg(dst, base));
        if off != 0 {
            self.a.emit(alu64_imm(Alu::Add, dst, off as i32));
        }
    }
}

/// The raw tracepoint program at `sched_process_exec` that ends a
/// process's user-level probes with its image (see `TargetSlots`): in
/// the slot of the process that exec'd, the count of execs that keep it
/// goes down, or, at 0, its process ID is cleared.
pub(crate) fn exec_watch(map: MapId, slots: &[(u32, u32)]) -> Result<Assembled, GenError> {
    let mut a = Asm::new();
    let out = a.new_label();
    a.emit(call(Helper::GetCurrentPidTgid));
    a.emit(alu64_imm(Alu::Rsh, R0, 32));
    a.emit(mov64_reg(R6, R0));
    for &(pid, off) in slots {
        let next = a.new_label();
        let retire = a.new_label();
        a.jmp_imm_to(Cond::Ne, R6, pid as i32, next);
        a.ld_map_value(R1, map, off);
        a.emit(ldx(Size::W, R2, R1, 4));
        a.jmp_imm_to(Cond::Eq, R2, 0, retire);
        a.emit(alu64_imm(Alu::Sub, R2, 1));
        a.emit(stx(Size::W, R1, 4, R2));
        a.ja_to(out);
        a.bind(retire);
        a.emit(st_imm(Size::W, R1, 0, 0));
        a.ja_to(out);
        a.bind(next);
    }
    a.bind(out);
    a.emit(mov64_imm(R0, 0));
    a.emit(exit());
    a.finish()
        .map_err(|e| GenError(format!("internal assembler error: {:?}", e)))
}
