//! The syscall provider: `syscall:vmlinux:NAME:entry` and `:return` for
//! every system call the kernel's syscall tracepoints know. A few enabled
//! calls attach to their own tracepoints; a wide enabling shares one raw
//! `sys_enter`/`sys_exit` program that looks the call up by number, so
//! enabling every system call costs two attachments, not hundreds.

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};

use dtrace_bpf::asm::Label;
use dtrace_bpf::codegen::GenError;
use dtrace_bpf::hook::{stack, Hook, HookGen, HookRef};
use dtrace_bpf::insn::*;
use dtrace_bpf::layout::{regs, scratch};
use dtrace_bpf::plan::{ArgContext, DispatchKey, Phase, ProgKind, ProgramPlan};
use dtrace_lang::pdesc::{field_matches, has_glob, ProbeDesc};

use crate::{
    attrs, ArgDesc, Attach, Attributes, Enabled, Planned, PlannedProgram, ProbeSink, ProbeTable,
    Provider, SYSCALL_DISPATCH_THRESHOLD,
};

pub const MODULE: &str = "vmlinux";

/// The syscall number table of this architecture.
fn numbers() -> HashMap<&'static str, u32> {
    #[cfg(target_arch = "x86_64")]
    {
        crate::syscalls::X86_64.iter().copied().collect()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        HashMap::new()
    }
}

/// The calls numbered below this have ids of their own
/// (`Provider::id_span`): x86-64's numbers end below 512.
const NUMBERED: u32 = 1024;

/// One call's number in that table.
fn number(name: &str) -> Option<u32> {
    #[cfg(target_arch = "x86_64")]
    {
        crate::syscalls::X86_64
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, nr)| nr)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = name;
        None
    }
}

/// One probe: the call's name, return or entry, its number.
struct Call {
    name: String,
    ret: bool,
    nr: Option<u32>,
}

pub struct Syscall {
    /// (name, has a return probe, number), in number order: the calls
    /// `provide` makes probes for (a fixed list; the kernel's are made on
    /// demand).
    calls: Vec<(String, bool, Option<u32>)>,
    probes: Vec<Call>,
    /// The calls whose probes are made.
    made: HashSet<String>,
    /// Every call the kernel knows has its probes.
    listed: bool,
    root: Option<PathBuf>,
    unavailable: Option<String>,
}

impl Syscall {
    /// The system calls the kernel's syscall tracepoints know, their
    /// probes made on demand: a description naming one call looks up its
    /// two tracepoints alone, and only one that could name more lists
    /// them all (`provide_named`).
    pub fn discover(root: &Path) -> Syscall {
        let mut s = Syscall::unavailable(String::new());
        let dir = root.join("events").join("syscalls");
        if let Err(e) = std::fs::metadata(&dir) {
            s.unavailable = Some(format!("syscall tracepoints are not available: {}", e));
            return s;
        }
        s.unavailable = None;
        s.listed = false;
        s.root = Some(root.to_path_buf());
        s
    }

    /// Every call's probes, in number order (unknown numbers last), but
    /// those made already.
    fn list_all(&mut self, sink: &mut ProbeSink<'_>) {
        self.listed = true;
        let Some(root) = self.root.clone() else {
            return;
        };
        let Ok(events) = dtrace_sys::tracefs::events(&root, "syscalls") else {
            return;
        };
        let nrs = numbers();
        let mut names: Vec<(Option<u32>, &str)> = events
            .iter()
            .filter_map(|e| e.strip_prefix("sys_enter_"))
            .filter(|n| !self.made.contains(*n))
            .map(|n| (nrs.get(n).copied(), n))
            .collect();
        names.sort_by(|a, b| (a.0.is_none(), a.0, a.1).cmp(&(b.0.is_none(), b.0, b.1)));
        let has_exit: HashSet<&str> = events
            .iter()
            .filter_map(|e| e.strip_prefix("sys_exit_"))
            .collect();
        for (nr, name) in names {
            self.add(sink, name, has_exit.contains(name), nr);
        }
    }

    /// The entry probe of a call, and its return probe if it has one.
    fn add(&mut self, sink: &mut ProbeSink<'_>, name: &str, has_ret: bool, nr: Option<u32>) {
        self.made.insert(name.to_string());
        for ret in [false, true] {
            if ret && !has_ret {
                continue;
            }
            self.probes.push(Call {
                name: name.to_string(),
                ret,
                nr,
            });
            let probe = if ret { "return" } else { "entry" };
            let local = self.probes.len() as u32 - 1;
            match nr.filter(|&n| n < NUMBERED) {
                Some(n) => sink.add_at(2 * n + u32::from(ret), MODULE, name, probe, local),
                None => sink.add(MODULE, name, probe, local),
            };
        }
    }

    /// The given calls (name, number), with no kernel to ask about their
    /// arguments.
    pub fn fixed(calls: &[(&str, u32)]) -> Syscall {
        let mut s = Syscall::unavailable(String::new());
        s.unavailable = None;
        s.listed = true;
        s.calls = calls
            .iter()
            .map(|&(n, nr)| (n.to_string(), true, Some(nr)))
            .collect();
        s.calls.sort_by_key(|c| c.2);
        s
    }

    /// No system call probes, and why.
    pub fn unavailable(why: String) -> Syscall {
        Syscall {
            calls: Vec::new(),
            probes: Vec::new(),
            made: HashSet::new(),
            listed: true,
            root: None,
            unavailable: Some(why),
        }
    }
}

impl Provider for Syscall {
    fn name(&self) -> &str {
        "syscall"
    }

    fn attributes(&self) -> Attributes {
        attrs::KERNEL_FUNCTIONS
    }

    /// Two ids a call, by its number (`2 * number` and the next of the
    /// range), so that nothing is listed to give them; a call the table
    /// has no number for takes ids as probes made on demand do.
    fn id_span(&mut self) -> u32 {
        2 * NUMBERED
    }

    fn provide(&mut self, sink: &mut ProbeSink<'_>) {
        for (name, has_ret, nr) in std::mem::take(&mut self.calls) {
            self.add(sink, &name, has_ret, nr);
        }
    }

    /// A description naming one call (`syscall::read:entry`) makes that
    /// call's probes if its tracepoint is there; one that could name
    /// more (`syscall:::entry`, `::*read*:`) makes every call's.
    fn provide_named(&mut self, sink: &mut ProbeSink<'_>, desc: &ProbeDesc) {
        let named = |n: &str| field_matches(&desc.name, n);
        if self.listed
            || !field_matches(&desc.provider, "syscall")
            || !field_matches(&desc.module, MODULE)
            || !(named("entry") || named("return"))
        {
            return;
        }
        let f = desc.function.as_str();
        if f.is_empty() || has_glob(f) {
            self.list_all(sink);
            return;
        }
        let Some(root) = self.root.clone() else {
            return;
        };
        let exists = |dir: &str| {
            dtrace_sys::tracefs::event_exists(&root, "syscalls", &format!("sys_{}_{}", dir, f))
        };
        if !self.made.contains(f) && exists("enter") {
            self.add(sink, f, exists("exit"), number(f));
        }
    }

    /// The tracepoint's fields; a pointer argument at entry is an address
    /// in the calling process.
    fn args(&self, local: u32) -> Option<Vec<ArgDesc>> {
        let c = self.probes.get(local as usize)?;
        let mut args = read_arg_descs(self.root.as_ref()?, &c.name, c.ret)?;
        if !c.ret {
            for a in &mut args {
                a.user = a.native.contains('*');
            }
        }
        Some(args)
    }

    fn plan(&self, table: &ProbeTable, enabled: &[Enabled], out: &mut Planned) -> io::Result<()> {
        for ret in [false, true] {
            let ids: Vec<&Enabled> = enabled
                .iter()
                .filter(|e| {
                    self.probes
                        .get(e.local as usize)
                        .is_some_and(|c| c.ret == ret)
                })
                .collect();
            self.plan_direction(table, &ids, ret, &mut out.programs);
        }
        Ok(())
    }

    fn unavailable(&self) -> Option<String> {
        self.unavailable.clone()
    }
}

/// The arguments of a syscall tracepoint, from its format file: fields
/// after the common ones and `__syscall_nr` (empty if it cannot be read).
pub fn arg_descs(root: &Path, name: &str, ret: bool) -> Vec<ArgDesc> {
    read_arg_descs(root, name, ret).unwrap_or_default()
}

/// The arguments of a syscall tracepoint, or None if its format file
/// cannot be read. A return probe has two, both the return value (`long`,
/// as the tracepoint declares it).
pub fn read_arg_descs(root: &Path, name: &str, ret: bool) -> Option<Vec<ArgDesc>> {
    let event = format!("sys_{}_{}", if ret { "exit" } else { "enter" }, name);
    let text = dtrace_sys::tracefs::event_format(root, "syscalls", &event).ok()?;
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("field:") else {
            continue;
        };
        let decl = rest.split(';').next().unwrap_or("").trim();
        if decl.starts_with("unsigned short common_")
            || decl.contains(" common_")
            || decl.ends_with("__syscall_nr")
        {
            continue;
        }
        let (native, name) = match decl.rfind([' ', '*']) {
            Some(i) => (decl[..=i].trim().to_string(), decl[i + 1..].to_string()),
            None => (decl.to_string(), String::new()),
        };
        out.push(ArgDesc::new(native, name));
    }
    if ret {
        // Both arg0 and arg1 hold the return value.
        let r = out.first().cloned().unwrap_or(ArgDesc::new("long", "ret"));
        return Some(vec![r.clone(), r]);
    }
    Some(out)
}

impl Syscall {
    /// Plans the enabled probes of one direction: a tracepoint each, or
    /// one shared raw tracepoint program for a wide enabling.
    fn plan_direction(
        &self,
        table: &ProbeTable,
        enabled: &[&Enabled],
        ret: bool,
        out: &mut Vec<PlannedProgram>,
    ) {
        if enabled.is_empty() {
            return;
        }
        let call = |e: &Enabled| &self.probes[e.local as usize];
        let numbered = enabled.iter().filter(|e| call(e).nr.is_some()).count();
        let dispatch = numbered > SYSCALL_DISPATCH_THRESHOLD;
        let mut shared = Vec::new();
        for e in enabled {
            let c = call(e);
            let enabling = e.enabling(table, c.nr.unwrap_or(0));
            if dispatch && c.nr.is_some() {
                shared.push(enabling);
                continue;
            }
            let event = format!("sys_{}_{}", if ret { "exit" } else { "enter" }, c.name);
            let hook = if ret {
                SyscallHook::ExitTp
            } else {
                let n = self
                    .root
                    .as_ref()
                    .map(|r| arg_descs(r, &c.name, false).len())
                    .unwrap_or(6);
                SyscallHook::EnterTp {
                    nargs: n.min(6) as u8,
                }
            };
            // Its clauses deferred to the return (kept only for clauses
            // that read user memory), where the call has one.
            let deferred =
                (!ret && self.probes.iter().any(|p| p.ret && p.name == c.name)).then(|| {
                    PlannedProgram {
                        plan: ProgramPlan {
                            name: format!("dt_{}_deferred", c.name),
                            kind: ProgKind::Tracepoint,
                            context: ArgContext::Hook(HookRef::new(SyscallHook::DeferredTp)),
                            phase: Phase::Normal,
                            probes: vec![enabling.clone()],
                            dispatch: None,
                            tick_gate: None,
                            guard: None,
                            cookie: None,
                        },
                        attach: Attach::tracepoint("syscalls", &format!("sys_exit_{}", c.name)),
                    }
                });
            out.push(PlannedProgram {
                plan: ProgramPlan {
                    name: format!("dt_{}", c.name),
                    kind: ProgKind::Tracepoint,
                    context: ArgContext::Hook(HookRef::new(hook)),
                    phase: Phase::Normal,
                    probes: vec![enabling],
                    dispatch: None,
                    tick_gate: None,
                    guard: None,
                    cookie: None,
                },
                attach: Attach::tracepoint("syscalls", &event),
            });
            out.extend(deferred);
        }
        if !shared.is_empty() && !ret {
            out.push(PlannedProgram {
                plan: ProgramPlan {
                    name: "dt_sys_exit_deferred".to_string(),
                    kind: ProgKind::RawTracepoint,
                    context: ArgContext::Hook(HookRef::new(SyscallHook::DeferredRaw)),
                    phase: Phase::Normal,
                    probes: shared.clone(),
                    dispatch: Some(DispatchKey::Hook),
                    tick_gate: None,
                    guard: None,
                    cookie: None,
                },
                attach: Attach::raw_tracepoint("sys_exit"),
            });
        }
        if !shared.is_empty() {
            let (name, event, hook) = if ret {
                ("dt_sys_exit", "sys_exit", SyscallHook::ExitRaw)
            } else {
                ("dt_sys_enter", "sys_enter", SyscallHook::EnterRaw)
            };
            out.push(PlannedProgram {
                plan: ProgramPlan {
                    name: name.to_string(),
                    kind: ProgKind::RawTracepoint,
                    context: ArgContext::Hook(HookRef::new(hook)),
                    phase: Phase::Normal,
                    probes: shared,
                    dispatch: Some(DispatchKey::Hook),
                    tick_gate: None,
                    guard: None,
                    cookie: None,
                },
                attach: Attach::raw_tracepoint(event),
            });
        }
    }
}

/// Up to this many system call numbers are tested one by one before a
/// dispatched program does any work; more are bounds-checked and left to
/// the dispatch table.
const SYSCALL_COMPARES: usize = 8;

/// The syscall provider's programs: at a call's own tracepoint, or at
/// the raw `sys_enter`/`sys_exit` shared by every call of a wide
/// enabling, dispatched by the call's number.
#[derive(Debug)]
enum SyscallHook {
    /// `syscalls:sys_enter_NAME`: `nargs` 8-byte fields from offset 16.
    EnterTp { nargs: u8 },
    /// `syscalls:sys_exit_NAME`: the return value at offset 16 is arg0
    /// and arg1, and sets `errno`.
    ExitTp,
    /// Raw `sys_enter`: ctx = { struct pt_regs *regs; long id }.
    EnterRaw,
    /// Raw `sys_exit`: ctx = { struct pt_regs *regs; long ret }.
    ExitRaw,
    /// `syscalls:sys_exit_NAME`, for the entry probe's clauses its
    /// `EnterTp` program deferred (`dtrace_bpf::program::defer`).
    DeferredTp,
    /// Raw `sys_exit`, dispatched as `ExitRaw`, for the entry probes'
    /// clauses `EnterRaw` deferred.
    DeferredRaw,
}

impl Hook for SyscallHook {
    fn has_errno(&self) -> bool {
        matches!(self, SyscallHook::ExitTp | SyscallHook::ExitRaw)
    }

    /// At entry, a user string or buffer in a page not touched yet is
    /// read again at the return, where the kernel has touched it.
    fn defers_user_faults(&self) -> bool {
        matches!(self, SyscallHook::EnterTp { .. } | SyscallHook::EnterRaw)
    }

    fn runs_deferred(&self) -> bool {
        matches!(self, SyscallHook::DeferredTp | SyscallHook::DeferredRaw)
    }

    /// A dispatched program runs for every system call made on the
    /// machine: before anything else, those it has no probe for are sent
    /// away on their number alone (a few compares, or a bounds check
    /// when it has many), so the rest of the system pays a handful of
    /// instructions, not a scratch lookup and a copy of its registers.
    fn early_filter(&self, t: &mut HookGen<'_, '_, '_>, out: Label) -> Result<(), GenError> {
        if t.dispatch().is_none() {
            return Ok(());
        }
        match self {
            // sys_enter(regs, id): the number is the second word.
            SyscallHook::EnterRaw => t.emit(ldx(Size::DW, R1, R6, 8)),
            // sys_exit(regs, ret): the number is regs->orig_ax, kept in
            // its stack slot for the dispatch.
            SyscallHook::ExitRaw | SyscallHook::DeferredRaw => {
                t.emit(mov64_reg(R1, FP));
                t.emit(alu64_imm(Alu::Add, R1, i32::from(stack::VALUE)));
                t.emit(mov64_imm(R2, 8));
                t.emit(ldx(Size::DW, R3, R6, 0));
                t.emit(alu64_imm(Alu::Add, R3, (regs::BASE + regs::ORIG_AX) as i32));
                t.emit(call(Helper::ProbeReadKernel));
                t.jmp_imm(Cond::Ne, R0, 0, out);
                t.emit(ldx(Size::DW, R1, FP, stack::VALUE));
            }
            _ => return Err(GenError("dispatch requires a raw syscall hook".into())),
        }
        let mut keys = t.probe_keys();
        keys.sort_unstable();
        keys.dedup();
        if keys.len() <= SYSCALL_COMPARES {
            let go = t.label();
            for k in keys {
                t.jmp_imm(Cond::Eq, R1, k as i32, go);
            }
            t.ja(out);
            t.bind(go);
        } else {
            let max = keys.last().copied().unwrap_or(0);
            t.jmp_imm(Cond::Gt, R1, max as i32, out);
        }
        Ok(())
    }

    /// At a raw hook: r10..orig_ax of the task's pt_regs, read in one go.
    fn prepare(&self, t: &mut HookGen<'_, '_, '_>, out: Label) -> Result<(), GenError> {
        if matches!(
            self,
            SyscallHook::EnterRaw | SyscallHook::ExitRaw | SyscallHook::DeferredRaw
        ) {
            t.emit(mov64_reg(R1, R9));
            t.emit(alu64_imm(Alu::Add, R1, scratch::REGS as i32));
            t.emit(mov64_imm(R2, regs::LEN as i32));
            t.emit(ldx(Size::DW, R3, R6, 0));
            t.emit(alu64_imm(Alu::Add, R3, regs::BASE as i32));
            t.emit(call(Helper::ProbeReadKernel));
            t.jmp_imm(Cond::Ne, R0, 0, out);
        }
        Ok(())
    }

    /// The call's number: at entry the hook's second word; at exit the
    /// one the filter read, still in its stack slot.
    fn dispatch_key(&self, t: &mut HookGen<'_, '_, '_>, _out: Label) -> Result<(), GenError> {
        match self {
            SyscallHook::EnterRaw => t.emit(ldx(Size::DW, R1, R6, 8)),
            SyscallHook::ExitRaw | SyscallHook::DeferredRaw => {
                t.emit(ldx(Size::DW, R1, FP, stack::VALUE))
            }
            _ => return Err(GenError("dispatch requires a raw syscall hook".into())),
        }
        Ok(())
    }

    fn load_args(&self, t: &mut HookGen<'_, '_, '_>, errno: bool) {
        match *self {
            SyscallHook::EnterTp { nargs } => {
                let n = u32::from(nargs.min(6));
                for i in 0..n {
                    t.emit(ldx(Size::DW, R1, R6, (16 + 8 * i) as i16));
                    t.store_arg(i, R1);
                }
                t.zero_args(n);
            }
            // (A deferred program's arguments are the entry's, loaded by
            // the code generator: these are never read.)
            SyscallHook::ExitTp
            | SyscallHook::ExitRaw
            | SyscallHook::DeferredTp
            | SyscallHook::DeferredRaw => {
                let at = if matches!(self, SyscallHook::ExitTp | SyscallHook::DeferredTp) {
                    16
                } else {
                    8
                };
                t.emit(ldx(Size::DW, R1, R6, at));
                t.store_arg(0, R1);
                t.store_arg(1, R1);
                t.zero_args(2);
                if errno && !self.runs_deferred() {
                    // errno is -ret for returns in [-4095, -1].
                    let zero = t.label();
                    let done = t.label();
                    t.jmp_imm(Cond::Sge, R1, 0, zero);
                    t.jmp_imm(Cond::Slt, R1, -4095, zero);
                    t.emit(neg64(R1));
                    t.store_errno(R1);
                    t.ja(done);
                    t.bind(zero);
                    t.store_errno_zero();
                    t.bind(done);
                }
            }
            SyscallHook::EnterRaw => {
                let order = [regs::DI, regs::SI, regs::DX, regs::R10, regs::R8, regs::R9];
                for (i, off) in order.iter().enumerate() {
                    t.emit(ldx(Size::DW, R1, R9, (scratch::REGS + off) as i16));
                    t.store_arg(i as u32, R1);
                }
                t.zero_args(6);
            }
        }
    }
}
