//! The seam between the back end and the providers: what a program's
//! hook contributes to the program built for it. The back end builds
//! every program the same way (prologue, dispatch, the clauses, the
//! error subprogram); a hook whose context the back end does not know
//! (a provider's own: system call records, a probe note's operands, a
//! lock's hand-off between programs) is a [`Hook`], implemented beside
//! its provider, which the plan carries as
//! [`crate::plan::ArgContext::Hook`]. The hook emits its pieces through
//! [`HookGen`], the back end's emitter as a provider may use it:
//! instructions, labels, the probe's argument slots, the program's
//! checks and stash maps.
//!
//! Registers when a hook is called: R6 holds the context (the program's
//! first argument), R9 the per-CPU scratch element (not yet in
//! [`Hook::early_filter`] and [`Hook::own_program`]); R1-R5, R0 and R7
//! are free. The stack slots of [`stack`] are the hook's to use.

use std::fmt;
use std::sync::Arc;

use crate::asm::{Label, MapId};
pub use crate::codegen::stack;
use crate::codegen::GenError;
use crate::insn::{Cond, Helper, Insn, Reg};
use crate::plan::DispatchKey;
use crate::program::ProgGen;

/// A provider's hook: how its context yields the probe's arguments, and
/// any steps of its own in the program. Every method but `load_args`
/// has a default that adds nothing.
pub trait Hook: fmt::Debug + Send + Sync {
    /// The process the probes are in (user-level probes: a file may be
    /// mapped by other processes too); checked before anything else.
    fn process(&self) -> Option<u32> {
        None
    }

    /// Whether a clause that reads user memory and faults at a user
    /// address defers to a later hook instead of raising ERROR (a system
    /// call's entry: the kernel touches the memory before the call
    /// returns, where the program of a hook that `runs_deferred` runs
    /// the clause again; see `program::defer`).
    fn defers_user_faults(&self) -> bool {
        false
    }

    /// Whether the program runs, with the arguments kept then, the
    /// clauses a `defers_user_faults` program deferred for this thread
    /// (it serves the same probes; no other clause runs).
    fn runs_deferred(&self) -> bool {
        false
    }

    /// Whether the context defines `errno` (a system call's return).
    fn has_errno(&self) -> bool {
        false
    }

    /// The stash maps the hook's programs keep or read, by name: each is
    /// made once, however many programs name it ([`HookGen::stash_map`]).
    fn stashes(&self) -> Vec<String> {
        Vec::new()
    }

    /// A program of the hook's own that serves no probe (it keeps state
    /// for the programs that do): emits the whole program and returns
    /// true. False (the default): the usual program.
    fn own_program(&self, _t: &mut HookGen<'_, '_, '_>) -> Result<bool, GenError> {
        Ok(false)
    }

    /// The first steps, before the activity check and before the scratch
    /// element is found (R9 is not set): a cheap filter that sends away
    /// what no probe wants (a system call no probe is for). Jumps to
    /// `out` for no firing.
    fn early_filter(&self, _t: &mut HookGen<'_, '_, '_>, _out: Label) -> Result<(), GenError> {
        Ok(())
    }

    /// The hook's conditions, once the scratch element is found and the
    /// activity and process checks passed: jumps to `out` for no firing.
    fn filter(&self, _t: &mut HookGen<'_, '_, '_>, _out: Label) -> Result<(), GenError> {
        Ok(())
    }

    /// Reads what [`Hook::load_args`] will need, when the clauses use
    /// arguments, before the dispatch table is looked up; jumps to `out`
    /// if it cannot.
    fn prepare(&self, _t: &mut HookGen<'_, '_, '_>, _out: Label) -> Result<(), GenError> {
        Ok(())
    }

    /// R1 = this firing's dispatch key, for a program dispatched by
    /// [`DispatchKey::Hook`] or [`DispatchKey::HookAlways`]; jumps to
    /// `out` for no firing.
    fn dispatch_key(&self, _t: &mut HookGen<'_, '_, '_>, _out: Label) -> Result<(), GenError> {
        Err(GenError(format!(
            "hook {:?} computes no dispatch key",
            self
        )))
    }

    /// The probe's arguments into their slots ([`HookGen::store_arg`]),
    /// every slot written (0 for none); with `errno`, `errno` too
    /// ([`HookGen::store_errno`]).
    fn load_args(&self, t: &mut HookGen<'_, '_, '_>, errno: bool);
}

/// A plan's hook: shared, compared by identity (two plans have the same
/// hook if they hold the same one).
#[derive(Clone)]
pub struct HookRef(pub Arc<dyn Hook>);

impl HookRef {
    pub fn new(h: impl Hook + 'static) -> Self {
        HookRef(Arc::new(h))
    }
}

impl fmt::Debug for HookRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl PartialEq for HookRef {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for HookRef {}

impl std::ops::Deref for HookRef {
    type Target = dyn Hook;
    fn deref(&self) -> &(dyn Hook + 'static) {
        &*self.0
    }
}

/// The back end's emitter as a hook uses it.
pub struct HookGen<'p, 'g, 'a> {
    pub(crate) p: &'p mut ProgGen<'g, 'a>,
}

impl HookGen<'_, '_, '_> {
    /// Emits one instruction.
    pub fn emit(&mut self, i: Insn) {
        self.p.a.emit(i);
    }

    /// `r0 =` the attachment's cookie (`r6` the context): the helper's,
    /// or the plan's constant where the kernel has no attach cookies.
    pub fn attach_cookie(&mut self) {
        self.p.attach_cookie();
    }

    /// `dst = v`, for any 64-bit constant.
    pub fn load_imm(&mut self, dst: Reg, v: i64) {
        crate::codegen::load_imm(&mut self.p.a, dst, v);
    }

    /// A new label, to bind once.
    pub fn label(&mut self) -> Label {
        self.p.a.new_label()
    }

    pub fn bind(&mut self, l: Label) {
        self.p.a.bind(l);
    }

    /// Jumps to `l` if `reg cond imm`.
    pub fn jmp_imm(&mut self, cond: Cond, reg: Reg, imm: i32, l: Label) {
        self.p.a.jmp_imm_to(cond, reg, imm, l);
    }

    /// Jumps to `l` if `a cond b`.
    pub fn jmp_reg(&mut self, cond: Cond, a: Reg, b: Reg, l: Label) {
        self.p.a.jmp_reg_to(cond, a, b, l);
    }

    /// Jumps to `l`.
    pub fn ja(&mut self, l: Label) {
        self.p.a.ja_to(l);
    }

    /// Binds `out` and returns 0 from the program: the end of a program
    /// of the hook's own.
    pub fn exit_at(&mut self, out: Label) {
        use crate::insn::{exit, mov64_imm, R0};
        self.p.a.bind(out);
        self.p.a.emit(mov64_imm(R0, 0));
        self.p.a.emit(exit());
    }

    /// Argument `i` (0-9) = `src`.
    pub fn store_arg(&mut self, i: u32, src: Reg) {
        self.p.store_arg(i, src);
    }

    /// Arguments `from` to 9 = 0.
    pub fn zero_args(&mut self, from: u32) {
        self.p.zero_args(from);
    }

    /// The offset in the scratch element (R9) of argument `i`'s slot.
    pub fn arg_slot(&self, i: u32) -> i16 {
        (crate::layout::scratch::ARGS + 8 * i) as i16
    }

    /// `errno` = `src`.
    pub fn store_errno(&mut self, src: Reg) {
        use crate::insn::{stx, Size, R9};
        self.p
            .a
            .emit(stx(Size::DW, R9, crate::layout::scratch::ERRNO as i16, src));
    }

    /// `errno` = 0.
    pub fn store_errno_zero(&mut self) {
        use crate::insn::{st_imm, Size, R9};
        self.p.a.emit(st_imm(
            Size::DW,
            R9,
            crate::layout::scratch::ERRNO as i16,
            0,
        ));
    }

    /// Jumps to `out` unless tracing is in the state this program runs
    /// in.
    pub fn activity_check(&mut self, out: Label) {
        self.p.activity_check(out);
    }

    /// Jumps to `out` unless the current process is `pid`, in the image
    /// the probes were made for.
    pub fn process_check(&mut self, pid: u32, out: Label) -> Result<(), GenError> {
        self.p.process_check(pid, out)
    }

    /// The stash map named `name` (see [`Hook::stashes`]).
    pub fn stash_map(&self, name: &str) -> Result<MapId, GenError> {
        self.p.g.stash_map(name)
    }

    /// Calls `helper` on stash map `map` with the key at
    /// `fp + stack::VALUE` (16 bytes: the thread, then a word at
    /// `stack::KEY`), and for an update the value at `fp + value`.
    pub fn stash_call(&mut self, map: MapId, helper: Helper, value: Option<i16>) {
        self.p.stash_call(map, helper, value);
    }

    /// The dispatch keys of the probes this program serves.
    pub fn probe_keys(&self) -> Vec<u32> {
        self.p.plan.probes.iter().map(|e| e.key).collect()
    }

    /// How the program is dispatched, if it is.
    pub fn dispatch(&self) -> Option<DispatchKey> {
        self.p.plan.dispatch.clone()
    }
}
