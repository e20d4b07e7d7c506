//! One BPF program: prologue (tick gate, activity check, scratch, dispatch,
//! arguments), the clauses in order, and the error subprogram. Here the
//! program's skeleton and its prologue; `clause.rs` a clause and its
//! record, `stmts.rs` statements and actions, `faults.rs` faults and the
//! ERROR subprogram, `temps.rs` temporaries and scratch addressing.

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
pub(crate) use atomics::LockKey;
pub use atomics::{lock_key, LOCK_BUSY};

mod atomics;
mod clause;
mod context;
pub(crate) mod defer;
mod faults;
mod stmts;
mod temps;

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

/// `bpf_task_storage_get` flag: make the thread's value if it has none.
const BPF_LOCAL_STORAGE_GET_F_CREATE: i32 = 1;

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
    /// Where a statement's scratch allocations start: past the clause's
    /// own (the references to its user stack snapshots).
    pub(crate) bump_floor: u32,
    /// The clause's `ustack()` expressions whose snapshots were written
    /// before its record, and the scratch offset of each one's reference
    /// (by the expression's address in the statements being emitted).
    pub(crate) ustack_refs: Vec<(*const CExpr, u32)>,
    pub(crate) cx: ClauseCx,
    pub(crate) dmap: Option<MapId>,
    pub(crate) dl: Option<DispatchLayout>,
    pub(crate) raw: bool,
    /// The program is loaded sleepable (`codegen::sleepable`): its
    /// scratch is its thread's, it reads user memory with
    /// `bpf_copy_from_user`, and updates aggregations atomically.
    pub(crate) sleepable: bool,
    pub(crate) error_sub: Label,
    pub(crate) error_used: bool,
    /// The callback chill() spins in with `bpf_loop`, once used.
    pub(crate) chill_sub: Option<Label>,
    /// json()'s `bpf_loop` callbacks, emitted at the program's end.
    pub(crate) json_subs: Vec<crate::subr::json::JsonCallback>,
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
    sleepable: bool,
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
        bump_floor: 0,
        ustack_refs: Vec::new(),
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
            ProgKind::RawTracepoint
                | ProgKind::Fentry
                | ProgKind::Fexit
                | ProgKind::Uprobe
                | ProgKind::Kprobe
        ),
        sleepable,
        error_sub,
        error_used: false,
        chill_sub: None,
        json_subs: Vec::new(),
        cur_action: 0,
        stack_exhausted: false,
    };
    match &plan.context {
        ArgContext::Stash {
            hook,
            key,
            nwords,
            keep,
        } => p.stash(hook, *key, *nwords, *keep)?,
        ArgContext::Hook(h) if h.own_program(&mut HookGen { p: &mut p })? => {}
        _ => p.main(gate_off)?,
    }
    if p.error_used {
        p.error_subprogram()?;
    }
    if let Some(sub) = p.chill_sub {
        p.chill_callback(sub);
    }
    p.json_callbacks();
    if p.stack_exhausted {
        return Err(GenError(format!(
            "expression too complex: it needs more than {} intermediate values at once \
             and the BPF stack holds only {} bytes; split it with clause-local variables",
            MAX_TEMPS, BPF_STACK
        )));
    }
    let code =
        p.a.finish_for(p.g.inp.opts.kernel.long_jumps)
            .map_err(|e| GenError(format!("internal assembler error: {:?}", e)))?;
    if !p.g.inp.opts.kernel.long_jumps && code.insns.iter().any(|i| i.is_gotol()) {
        return Err(GenError(format!(
            "program for {} too large for this kernel: its {} BPF instructions need jumps \
             beyond 32,767 instructions (gotol, Linux 6.4)",
            plan.name,
            code.insns.len()
        )));
    }
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
    pub(crate) fn required_activity(&self) -> u32 {
        match self.plan.phase {
            Phase::Begin => activity::WARMUP,
            Phase::Normal => activity::ACTIVE,
            Phase::End => activity::COOLDOWN,
        }
    }

    /// The helper that reads user memory: one that faults pages in, in a
    /// sleepable program.
    pub(crate) fn user_read(&self) -> Helper {
        if self.sleepable {
            Helper::CopyFromUser
        } else {
            Helper::ProbeReadUser
        }
    }

    /// Flags for `bpf_ringbuf_submit`: wake the consumer as records
    /// arrive, or leave it to read at its switch rate.
    pub(crate) fn submit_flags(&self) -> i32 {
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

    pub(crate) fn main(&mut self, gate_off: Option<u32>) -> Result<(), GenError> {
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
        if let (Some(cpu), Phase::Normal) = (self.g.inp.opts.only_cpu, self.plan.phase) {
            // The cpu option: probes fire on that CPU alone (BEGIN and
            // END are run there by the consumer). Before the tick gate,
            // or another CPU would hold the gate and that one never fire.
            self.a.emit(call(Helper::GetSmpProcessorId));
            self.a.jmp_imm_to(Cond::Ne, R0, cpu as i32, out);
        }
        if let (Some(off), Some(period)) = (gate_off, self.plan.tick_gate) {
            self.tick_gate(off, period, out);
        }
        if let (true, Some(ts)) = (self.sleepable, self.g.m_task_scratch) {
            // This thread's scratch, made on its first firing: another
            // program may run on this CPU while this one waits for a page.
            self.a.emit(call(Helper::GetCurrentTaskBtf));
            self.a.emit(mov64_reg(R2, R0));
            self.a.ld_map_fd(R1, ts);
            self.a.emit(mov64_imm(R3, 0));
            self.a.emit(mov64_imm(R4, BPF_LOCAL_STORAGE_GET_F_CREATE));
            self.a.emit(call(Helper::TaskStorageGet));
            self.a.jmp_imm_to(Cond::Eq, R0, 0, out);
            self.a.emit(mov64_reg(R9, R0));
            return self.after_scratch(hook, out);
        }
        // The scratch element for this CPU and context.
        self.a.emit(call(Helper::GetSmpProcessorId));
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
        self.after_scratch(hook, out)
    }

    /// The rest of `main`, once r9 holds the scratch element.
    fn after_scratch(
        &mut self,
        hook: Option<crate::hook::HookRef>,
        out: Label,
    ) -> Result<(), GenError> {
        // strtok()'s saved place lasts for one probe firing.
        if let Some(at) = self.g.strtok_at {
            self.st_imm_at(R9, at, -1);
        }
        // So does the firing's timestamp, read when first used.
        if let Some(at) = self.g.time_at {
            self.st_imm_at(R9, at, 0);
        }
        // And its process and thread IDs.
        if let Some(at) = self.g.pidtgid_at {
            self.st_imm_at(R9, at, 0);
        }

        if let ArgContext::RawArgs { guards, after, .. } = &self.plan.context {
            self.raw_filter(guards, after.as_ref(), out)?;
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
            match (&self.plan.dispatch, &self.plan.context) {
                (Some(DispatchKey::Cookie), _) => {
                    self.attach_cookie();
                    self.a.emit(mov64_reg(R1, R0));
                }
                (Some(DispatchKey::ProbeIp(_)), _) => {
                    self.a
                        .emit(ldx(Size::DW, R1, R6, crate::layout::regs::IP_FULL as i16));
                    self.a.emit(alu64_imm(Alu::Sub, R1, 1));
                }
                (Some(DispatchKey::FuncIp(_)), _) => {
                    // The table's key is the address's low half (the
                    // 32-bit store below).
                    self.a.emit(mov64_reg(R1, R6));
                    self.a.emit(call(Helper::GetFuncIp));
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
        if self.runs_deferred() {
            // The arguments the entry kept, not the hook's.
            self.load_deferred(out);
        } else if uses_args || uses_errno {
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

    /// `r0 =` the attachment's cookie (`r6` the context): the helper's,
    /// or the plan's constant where the kernel has no attach cookies
    /// and the program is attached at one place.
    pub(crate) fn attach_cookie(&mut self) {
        match self.plan.cookie {
            Some(c) => crate::codegen::load_imm(&mut self.a, R0, c as i64),
            None => {
                self.a.emit(mov64_reg(R1, R6));
                self.a.emit(call(Helper::GetAttachCookie));
            }
        }
    }

    /// The provider's condition on the arguments: on to the clauses if
    /// it is nonzero, to `out` if it is zero or faults (a packet that is
    /// not the probe's is not an error).
    pub(crate) fn guard(&mut self, guard: &CExpr, out: Label) -> Result<(), GenError> {
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

    /// The clauses this program runs, with their EPID and identity sources.
    pub(crate) fn clause_list(&self) -> Vec<(usize, EpidSrc, IdentSrc)> {
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

    pub(crate) fn uses(&self, clauses: &[(usize, EpidSrc, IdentSrc)]) -> (bool, bool) {
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

    /// tick-N's gate: the event is opened on every CPU (an idle CPU may
    /// not tick), and the probe fires at most once a period, on one CPU
    /// while that CPU keeps ticking (DTrace's tick fires on one CPU, so
    /// its records reach the buffers in order); another CPU takes over
    /// when the period has run half over again. The gate's words: the
    /// time it last opened, the CPU (plus one) it opened on.
    pub(crate) fn tick_gate(&mut self, off: u32, period: u64, out: Label) {
        let st = self.g.m_state;
        let me = self.alloc_stack();
        self.a.emit(call(Helper::GetSmpProcessorId));
        self.a.emit(alu64_imm(Alu::Add, R0, 1));
        self.store_temp(me, R0);
        self.a.emit(call(Helper::KtimeGetNs));
        self.a.emit(mov64_reg(R7, R0));
        self.a.ld_map_value(R6, st, off);
        self.a.emit(ldx(Size::DW, R2, R6, 0));
        self.a.emit(mov64_reg(R3, R7));
        self.a.emit(alu64_reg(Alu::Sub, R3, R2));
        load_imm(&mut self.a, R4, (period / 2) as i64);
        self.a.jmp_reg_to(Cond::Lt, R3, R4, out);
        let open = self.a.new_label();
        self.a.emit(ldx(Size::DW, R4, R6, 8));
        self.load_temp(me, R5);
        self.a.jmp_reg_to(Cond::Eq, R4, R5, open);
        self.a.jmp_imm_to(Cond::Eq, R4, 0, open);
        load_imm(&mut self.a, R4, (period + period / 2) as i64);
        self.a.jmp_reg_to(Cond::Lt, R3, R4, out);
        self.a.bind(open);
        self.a.emit(mov64_reg(R0, R2));
        // The emulated exchange does not keep r2.
        let expected = self.g.m_lock.map(|_| self.alloc_stack());
        if let Some(t) = expected {
            self.store_temp(t, R2);
        }
        self.cmpxchg(Size::DW, R6, R7, LockKey::Const(lock_key::STATE + off));
        if let Some(t) = expected {
            self.load_temp(t, R2);
            self.free(t);
        }
        self.a.jmp_reg_to(Cond::Ne, R0, R2, out);
        self.load_temp(me, R5);
        self.a.emit(stx(Size::DW, R6, 8, R5));
        self.free(me);
        // Restore the context register the rest of the prologue expects.
        self.a.emit(ldx(Size::DW, R6, FP, stack::CTX));
    }

    pub(crate) fn store_arg(&mut self, i: u32, src: Reg) {
        self.a
            .emit(stx(Size::DW, R9, (scratch::ARGS + 8 * i) as i16, src));
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

    pub(crate) fn load_args(&mut self, errno: bool) {
        let plan = self.plan;
        match &plan.context {
            ArgContext::Tracepoint(fields) => self.load_tp_args(fields),
            ArgContext::RawArgs { words, .. } => self.load_raw_words(words),
            // A stash program serves no probe: it has no arguments.
            ArgContext::None | ArgContext::Stash { .. } => self.zero_args(0),
            ArgContext::Uprobe { ret, .. } => self.load_uprobe_args(*ret),
            ArgContext::Kprobe { ret } => self.load_kprobe_args(*ret),
            ArgContext::Hook(h) => h.load_args(&mut HookGen { p: self }, errno),
            ArgContext::PerfEventPc => self.load_perf_pc(),
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
