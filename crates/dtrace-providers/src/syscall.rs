//! The syscall provider: `syscall:vmlinux:NAME:entry` and `:return` for
//! every system call the kernel's syscall tracepoints know. A few enabled
//! calls attach to their own tracepoints; a wide enabling shares one raw
//! `sys_enter`/`sys_exit` program that looks the call up by number, so
//! enabling every system call costs two attachments, not hundreds.

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::Path;

use dtrace_bpf::plan::{ArgContext, Phase, ProbeEnabling, ProgKind, ProgramPlan};

use crate::{
    dispatch_plan, ArgDesc, Attach, Kind, PlannedProgram, Probes, SYSCALL_DISPATCH_THRESHOLD,
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

pub fn provide(p: &mut Probes, root: &Path) {
    let events = match dtrace_sys::tracefs::events(root, "syscalls") {
        Ok(e) => e,
        Err(e) => {
            p.syscall_unavailable = Some(format!("syscall tracepoints are not available: {}", e));
            return;
        }
    };
    let nrs = numbers();
    let mut names: Vec<(Option<u32>, String)> = events
        .iter()
        .filter_map(|e| e.strip_prefix("sys_enter_"))
        .map(|n| (nrs.get(n).copied(), n.to_string()))
        .collect();
    // Number order, as a system call table lists them; unknown numbers last.
    names.sort_by(|a, b| (a.0.is_none(), a.0, &a.1).cmp(&(b.0.is_none(), b.0, &b.1)));
    let has_exit: std::collections::HashSet<&str> = events
        .iter()
        .filter_map(|e| e.strip_prefix("sys_exit_"))
        .collect();
    for (nr, name) in names {
        p.add(
            "syscall",
            MODULE,
            &name,
            "entry",
            Kind::Syscall {
                name: name.clone(),
                ret: false,
                nr,
            },
        );
        if has_exit.contains(name.as_str()) {
            p.add(
                "syscall",
                MODULE,
                &name,
                "return",
                Kind::Syscall {
                    name: name.clone(),
                    ret: true,
                    nr,
                },
            );
        }
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
        out.push(ArgDesc { native, name });
    }
    if ret {
        // Both arg0 and arg1 hold the return value.
        let r = out.first().cloned().unwrap_or(ArgDesc {
            native: "long".into(),
            name: "ret".into(),
        });
        return Some(vec![r.clone(), r]);
    }
    Some(out)
}

/// Plans the enabled syscall probes of one direction.
pub fn plan(
    probes: &Probes,
    by_probe: &BTreeMap<u32, Vec<(usize, u32)>>,
    ids: &[u32],
    ret: bool,
    out: &mut Vec<PlannedProgram>,
) -> io::Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let numbered: Vec<u32> = ids
        .iter()
        .copied()
        .filter(|id| {
            matches!(
                probes.get(*id).map(|p| &p.kind),
                Some(Kind::Syscall { nr: Some(_), .. })
            )
        })
        .collect();
    let dispatch = numbered.len() > SYSCALL_DISPATCH_THRESHOLD;
    let mut shared = Vec::new();
    for &id in ids {
        let Some(Kind::Syscall { name, nr, .. }) = probes.get(id).map(|p| &p.kind) else {
            continue;
        };
        let clauses = by_probe.get(&id).cloned().unwrap_or_default();
        let enabling = ProbeEnabling {
            probe: probes.identity(id),
            key: nr.unwrap_or(0),
            clauses,
        };
        if dispatch && nr.is_some() {
            shared.push(enabling);
            continue;
        }
        let event = format!("sys_{}_{}", if ret { "exit" } else { "enter" }, name);
        let context = if ret {
            ArgContext::SyscallExitTp
        } else {
            let n = probes
                .tracefs()
                .map(|r| arg_descs(r, name, false).len())
                .unwrap_or(6);
            ArgContext::SyscallEnterTp {
                nargs: n.min(6) as u8,
            }
        };
        out.push(PlannedProgram {
            plan: ProgramPlan {
                name: format!("dt_{}", name),
                kind: ProgKind::Tracepoint,
                context,
                phase: Phase::Normal,
                probes: vec![enabling],
                dispatch: None,
                tick_gate: None,
            },
            attach: Attach::Tracepoint {
                system: "syscalls".into(),
                event,
            },
        });
    }
    if !shared.is_empty() {
        let (name, hook, ctx) = if ret {
            ("dt_sys_exit", "sys_exit", ArgContext::SyscallExitRaw)
        } else {
            ("dt_sys_enter", "sys_enter", ArgContext::SyscallEnterRaw)
        };
        out.push(PlannedProgram {
            plan: dispatch_plan(name, ctx, shared),
            attach: Attach::RawTracepoint(hook.into()),
        });
    }
    Ok(())
}
