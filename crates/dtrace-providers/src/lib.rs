//! Providers: which probes exist, how descriptions match them (creating
//! on-demand probes such as `tick-1s`), how each probe's arguments are
//! described, and how enabled probes become BPF programs attached to kernel
//! hooks. A new provider adds a module here with `provide` (list its
//! probes), a `Kind` variant, and a case in `plan` and `attach`.

#![forbid(unsafe_code)]

pub mod dtrace;
pub mod profile;
pub mod syscall;
mod syscalls;

use std::collections::BTreeMap;
use std::io;
use std::os::fd::OwnedFd;
use std::path::PathBuf;

use dtrace_bpf::plan::{
    ArgContext, DispatchKey, Phase, ProbeEnabling, ProbeIdentity, ProgKind, ProgramPlan,
};
use dtrace_lang::pdesc::ProbeDesc;
use dtrace_lang::{ArgTypes, ProbeArg, ProbeContext};

/// What a probe is, as far as attaching it goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Begin,
    End,
    Error,
    /// `profile-N` (every CPU) or `tick-N` (one firing per period).
    Profile {
        period_ns: u64,
        tick: bool,
    },
    /// A system call entry or return.
    Syscall {
        name: String,
        ret: bool,
        nr: Option<u32>,
    },
}

#[derive(Clone, Debug)]
pub struct Probe {
    pub id: u32,
    pub desc: ProbeDesc,
    pub kind: Kind,
}

impl ProbeContext for Probes {
    fn arg_types(&mut self, desc: &ProbeDesc) -> ArgTypes {
        self.desc_arg_types(desc)
    }
}

/// An argument's description, for `dtrace -lv`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgDesc {
    pub native: String,
    pub name: String,
}

/// Every probe known to this consumer.
pub struct Probes {
    list: Vec<Probe>,
    by_desc: BTreeMap<(String, String, String, String), u32>,
    tracefs: Option<PathBuf>,
    /// Why the syscall provider is empty, if it is.
    pub syscall_unavailable: Option<String>,
}

impl Probes {
    /// The built-in probes plus entry and return probes for the given
    /// system calls (name, x86-64 number), with no kernel: for the code
    /// generator's snapshot tests and the fuzz driver's offline path.
    pub fn with_syscalls(calls: &[(&str, u32)]) -> Probes {
        let mut p = Probes::builtin();
        for &(name, nr) in calls {
            for ret in [false, true] {
                p.add(
                    "syscall",
                    "vmlinux",
                    name,
                    if ret { "return" } else { "entry" },
                    Kind::Syscall {
                        name: name.to_string(),
                        ret,
                        nr: Some(nr),
                    },
                );
            }
        }
        p
    }

    /// The probes that need no discovery: the dtrace and profile
    /// providers. Others can be added with `add` (or `with_syscalls`).
    pub fn builtin() -> Probes {
        let mut p = Probes {
            list: Vec::new(),
            by_desc: BTreeMap::new(),
            tracefs: None,
            syscall_unavailable: None,
        };
        dtrace::provide(&mut p);
        profile::provide(&mut p);
        p
    }

    /// Discovers the probes of every provider on this system.
    pub fn discover() -> Probes {
        let mut p = Probes::builtin();
        match dtrace_sys::tracefs::root() {
            Ok(root) => {
                syscall::provide(&mut p, &root);
                p.tracefs = Some(root);
            }
            Err(e) => p.syscall_unavailable = Some(format!("tracefs is not available: {}", e)),
        }
        p
    }

    /// Adds a probe, returning its id (existing probes keep theirs).
    pub fn add(
        &mut self,
        provider: &str,
        module: &str,
        function: &str,
        name: &str,
        kind: Kind,
    ) -> u32 {
        let key = (
            provider.to_string(),
            module.to_string(),
            function.to_string(),
            name.to_string(),
        );
        if let Some(&id) = self.by_desc.get(&key) {
            return id;
        }
        let id = self.list.len() as u32 + 1;
        self.list.push(Probe {
            id,
            desc: ProbeDesc::new(provider, module, function, name),
            kind,
        });
        self.by_desc.insert(key, id);
        id
    }

    pub fn get(&self, id: u32) -> Option<&Probe> {
        self.list.get(id.checked_sub(1)? as usize)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Probe> {
        self.list.iter()
    }

    pub fn tracefs(&self) -> Option<&PathBuf> {
        self.tracefs.as_ref()
    }

    /// The ids of the probes a description matches, creating on-demand
    /// probes (profile-N, tick-N) it names exactly.
    pub fn lookup(&mut self, pat: &ProbeDesc) -> Vec<u32> {
        profile::provide_named(self, pat);
        self.list
            .iter()
            .filter(|p| pat.matches(&p.desc))
            .map(|p| p.id)
            .collect()
    }

    /// Argument descriptions of a probe.
    pub fn args(&self, id: u32) -> Vec<ArgDesc> {
        match self.get(id).map(|p| &p.kind) {
            Some(Kind::Syscall { name, ret, .. }) => match &self.tracefs {
                Some(root) => syscall::arg_descs(root, name, *ret),
                None => Vec::new(),
            },
            Some(Kind::Profile { .. }) => vec![
                ArgDesc {
                    native: "uintptr_t".into(),
                    name: "pc".into(),
                },
                ArgDesc {
                    native: "uintptr_t".into(),
                    name: "upc".into(),
                },
            ],
            Some(Kind::Error) => ["uint64_t", "uint32_t", "uint32_t", "int", "int", "uint64_t"]
                .iter()
                .map(|t| ArgDesc {
                    native: t.to_string(),
                    name: String::new(),
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// A probe's arguments as the checker sees them (`args[]`), or None
    /// if the provider cannot tell (system calls without tracefs). A
    /// system call's pointer arguments are addresses in the calling
    /// process.
    pub fn probe_arg_types(&self, id: u32) -> Option<Vec<ProbeArg>> {
        match self.get(id).map(|p| &p.kind) {
            Some(Kind::Syscall { name, ret, .. }) => {
                let descs = syscall::read_arg_descs(self.tracefs.as_ref()?, name, *ret)?;
                Some(
                    descs
                        .into_iter()
                        .map(|a| {
                            let user = !*ret && a.native.contains('*');
                            ProbeArg::new(a.native, user)
                        })
                        .collect(),
                )
            }
            Some(_) => Some(
                self.args(id)
                    .into_iter()
                    .map(|a| ProbeArg::new(a.native, false))
                    .collect(),
            ),
            None => None,
        }
    }

    /// What the probes a description matches declare of their arguments
    /// (see `dtrace_lang::ProbeContext`): `Unstable` if none matches or
    /// two declare different arguments, `Unknown` if one cannot tell.
    pub fn desc_arg_types(&mut self, desc: &ProbeDesc) -> ArgTypes {
        let ids = self.lookup(desc);
        if ids.is_empty() {
            return ArgTypes::Unstable;
        }
        let mut first: Option<Vec<ProbeArg>> = None;
        for id in ids {
            let Some(args) = self.probe_arg_types(id) else {
                return ArgTypes::Unknown;
            };
            match &first {
                None => first = Some(args),
                Some(f) if *f != args => return ArgTypes::Unstable,
                Some(_) => {}
            }
        }
        ArgTypes::Known(first.unwrap_or_default())
    }

    fn identity(&self, id: u32) -> ProbeIdentity {
        let p = self.get(id).expect("enabled probes exist");
        ProbeIdentity {
            id,
            provider: p.desc.provider.clone(),
            module: p.desc.module.clone(),
            function: p.desc.function.clone(),
            name: p.desc.name.clone(),
        }
    }
}

/// How a planned program is attached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attach {
    /// Run by the consumer (BEGIN and END) with BPF_PROG_TEST_RUN.
    TestRun,
    /// A perf tracepoint event.
    Tracepoint { system: String, event: String },
    /// A raw tracepoint.
    RawTracepoint(String),
    /// A cpu-clock event on every online CPU.
    CpuClock { period_ns: u64 },
}

#[derive(Clone, Debug)]
pub struct PlannedProgram {
    pub plan: ProgramPlan,
    pub attach: Attach,
}

/// An enabled probe: the probe, the clause (index into the consumer's
/// clause list) and the EPID of the pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Enabling {
    pub probe: u32,
    pub clause: usize,
    pub epid: u32,
}

/// The result of planning: programs to build and the ERROR clauses every
/// program runs after a fault.
pub struct Planned {
    pub programs: Vec<PlannedProgram>,
    pub error_clauses: Vec<(usize, u32)>,
}

/// Enablings of more syscalls than this share one raw tracepoint program
/// that dispatches on the syscall number, instead of one tracepoint each.
pub const SYSCALL_DISPATCH_THRESHOLD: usize = 8;

/// Groups enablings into programs.
pub fn plan(probes: &Probes, enablings: &[Enabling]) -> io::Result<Planned> {
    let mut by_probe: BTreeMap<u32, Vec<(usize, u32)>> = BTreeMap::new();
    for e in enablings {
        by_probe
            .entry(e.probe)
            .or_default()
            .push((e.clause, e.epid));
    }
    let mut programs = Vec::new();
    let mut error_clauses = Vec::new();
    let mut sys_entry = Vec::new();
    let mut sys_return = Vec::new();
    for (&id, clauses) in &by_probe {
        let probe = probes
            .get(id)
            .ok_or_else(|| io::Error::other("unknown probe"))?;
        let enabling = ProbeEnabling {
            probe: probes.identity(id),
            key: 0,
            clauses: clauses.clone(),
        };
        let single = |name: &str, kind, context, phase, tick_gate| ProgramPlan {
            name: name.to_string(),
            kind,
            context,
            phase,
            probes: vec![enabling.clone()],
            dispatch: None,
            tick_gate,
        };
        match &probe.kind {
            Kind::Begin => programs.push(PlannedProgram {
                plan: single(
                    "dt_BEGIN",
                    ProgKind::RawTracepoint,
                    ArgContext::None,
                    Phase::Begin,
                    None,
                ),
                attach: Attach::TestRun,
            }),
            Kind::End => programs.push(PlannedProgram {
                plan: single(
                    "dt_END",
                    ProgKind::RawTracepoint,
                    ArgContext::None,
                    Phase::End,
                    None,
                ),
                attach: Attach::TestRun,
            }),
            Kind::Error => error_clauses.extend(clauses.iter().copied()),
            Kind::Profile { period_ns, tick } => programs.push(PlannedProgram {
                plan: single(
                    &format!("dt_{}", probe.desc.name),
                    ProgKind::PerfEvent,
                    ArgContext::Profile,
                    Phase::Normal,
                    if *tick { Some(*period_ns) } else { None },
                ),
                attach: Attach::CpuClock {
                    period_ns: *period_ns,
                },
            }),
            Kind::Syscall { ret, .. } => {
                if *ret {
                    sys_return.push(id);
                } else {
                    sys_entry.push(id);
                }
            }
        }
    }
    error_clauses.sort();
    for (ret, ids) in [(false, sys_entry), (true, sys_return)] {
        syscall::plan(probes, &by_probe, &ids, ret, &mut programs)?;
    }
    Ok(Planned {
        programs,
        error_clauses,
    })
}

/// Attaches a loaded program; the returned descriptors keep it attached.
pub fn attach(att: &Attach, prog: &OwnedFd, tracefs: Option<&PathBuf>) -> io::Result<Vec<OwnedFd>> {
    match att {
        Attach::TestRun => Ok(Vec::new()),
        Attach::Tracepoint { system, event } => {
            let root = tracefs.ok_or_else(|| io::Error::other("tracefs is not available"))?;
            let id = dtrace_sys::tracefs::event_id(root, system, event)?;
            let ev = dtrace_sys::perf::open_tracepoint(id)?;
            dtrace_sys::perf::attach_bpf(&ev, prog)?;
            Ok(vec![ev])
        }
        Attach::RawTracepoint(name) => Ok(vec![dtrace_sys::bpf::raw_tracepoint_open(name, prog)?]),
        Attach::CpuClock { period_ns } => {
            let mut out = Vec::new();
            for cpu in dtrace_sys::cpus::online_cpus()? {
                let ev = dtrace_sys::perf::open_cpu_clock(cpu, *period_ns)?;
                dtrace_sys::perf::attach_bpf(&ev, prog)?;
                out.push(ev);
            }
            Ok(out)
        }
    }
}

pub(crate) fn dispatch_plan(
    name: &str,
    context: ArgContext,
    probes: Vec<ProbeEnabling>,
) -> ProgramPlan {
    ProgramPlan {
        name: name.to_string(),
        kind: ProgKind::RawTracepoint,
        context,
        phase: Phase::Normal,
        probes,
        dispatch: Some(DispatchKey::SyscallNr),
        tick_gate: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(text: &str) -> ProbeDesc {
        ProbeDesc::parse(text).expect("valid description")
    }

    #[test]
    fn descriptions_say_what_their_probes_declare() {
        let mut p = Probes::with_syscalls(&[("read", 0), ("openat", 257)]);
        let known =
            |v: &[&str]| ArgTypes::Known(v.iter().map(|t| ProbeArg::new(*t, false)).collect());
        assert_eq!(p.desc_arg_types(&desc("BEGIN")), known(&[]));
        assert_eq!(
            p.desc_arg_types(&desc("profile-97")),
            known(&["uintptr_t", "uintptr_t"])
        );
        // BEGIN has none, ERROR six: no one set of types.
        assert_eq!(p.desc_arg_types(&desc("dtrace:::")), ArgTypes::Unstable);
        assert_eq!(p.desc_arg_types(&desc(":::END")), known(&[]));
        // Without tracefs a system call's arguments are unknown.
        assert_eq!(
            p.desc_arg_types(&desc("syscall::read:entry")),
            ArgTypes::Unknown
        );
        // Nothing matched: args[] cannot be used (only reached with zdefs).
        assert_eq!(p.desc_arg_types(&desc("nosuch:::")), ArgTypes::Unstable);
    }
}
