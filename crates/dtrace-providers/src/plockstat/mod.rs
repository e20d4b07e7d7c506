//! The plockstat provider: user-level lock events of process N's pthread
//! mutexes and readers/writer locks, `plockstatN:MODULE:FUNCTION:NAME`,
//! on uprobes at glibc's lock functions (module `libc.so.6`, or
//! `libpthread.so.0` where a glibc has one):
//!
//! - `mutex-acquire` (mutex, is_recursive, spin count 0) at the return of
//!   `pthread_mutex_lock`, `_trylock`, `_timedlock`, `_clocklock` that
//!   took the mutex; `mutex-error` (mutex, errno) at one that failed
//!   (EBUSY from a trylock is neither: the mutex was held);
//! - `mutex-release` (mutex, is_recursive) at `pthread_mutex_unlock`;
//! - `rw-acquire` (rwlock, is_writer) and `rw-error` (rwlock, is_writer,
//!   errno) at the return of the `pthread_rwlock_*rdlock` and `*wrlock`
//!   functions; `rw-release` (rwlock, is_writer) at
//!   `pthread_rwlock_unlock`.
//!
//! - `mutex-block` (mutex) and `rw-block` (rwlock, is_writer) at a futex
//!   wait on the lock in a blocking lock function (the
//!   `syscalls:sys_enter_futex` tracepoint: glibc's waits are internal,
//!   no function to probe); `mutex-blocked` (mutex, successful) and
//!   `rw-blocked` (rwlock, is_writer, successful) at the return of a call
//!   that blocked.
//!
//! The lock a call took is kept at its entry for the thread (a stash
//! program at every enabled lock function's entry, with the place's
//! cookie: the function and kind of lock) and read at its return, and
//! by the futex wait's program. glibc's adaptive mutexes spin in user
//! space with nothing to hook, so `mutex-spin` and `-spun` have no
//! probes and the spin count is 0.

use std::io;
use std::path::{Path, PathBuf};

use dtrace_bpf::hook::HookRef;
use dtrace_bpf::plan::ProgramPlan;
use dtrace_bpf::plan::{ArgContext, DispatchKey, Phase, ProbeEnabling, ProgKind};
use dtrace_lang::pdesc::{field_matches, ProbeDesc};

mod program;

use program::{plock_cookie, PlockHook, PlockProgram};

use crate::places::Groups;
use crate::uobj::{process_of, ProcessObjects};
use crate::{attrs, ArgDesc, Attach, Attributes, Enabled, Planned, PlannedProgram, ProbeSink};
use crate::{ProbeTable, Provider};

/// The lock functions and what fires at each: (function, hook, the
/// probes there).
const FUNCTIONS: &[(&str, PlockHook, &[&str])] = &[
    (
        "pthread_mutex_lock",
        PlockHook::MutexReturn { try_: false },
        MUTEX_TAKEN,
    ),
    (
        "pthread_mutex_timedlock",
        PlockHook::MutexReturn { try_: false },
        MUTEX_TAKEN,
    ),
    (
        "pthread_mutex_clocklock",
        PlockHook::MutexReturn { try_: false },
        MUTEX_TAKEN,
    ),
    (
        "pthread_mutex_trylock",
        PlockHook::MutexReturn { try_: true },
        MUTEX_TRY,
    ),
    (
        "pthread_mutex_unlock",
        PlockHook::MutexUnlock,
        &["mutex-release"],
    ),
    ("pthread_rwlock_rdlock", RD, RW_TAKEN),
    ("pthread_rwlock_timedrdlock", RD, RW_TAKEN),
    ("pthread_rwlock_clockrdlock", RD, RW_TAKEN),
    ("pthread_rwlock_tryrdlock", RD_TRY, RW_TRY),
    ("pthread_rwlock_wrlock", WR, RW_TAKEN),
    ("pthread_rwlock_timedwrlock", WR, RW_TAKEN),
    ("pthread_rwlock_clockwrlock", WR, RW_TAKEN),
    ("pthread_rwlock_trywrlock", WR_TRY, RW_TRY),
    (
        "pthread_rwlock_unlock",
        PlockHook::RwUnlock,
        &["rw-release"],
    ),
];

const MUTEX_TAKEN: &[&str] = &[
    "mutex-acquire",
    "mutex-error",
    "mutex-block",
    "mutex-blocked",
];
const MUTEX_TRY: &[&str] = &["mutex-acquire", "mutex-error"];
const RW_TAKEN: &[&str] = &["rw-acquire", "rw-error", "rw-block", "rw-blocked"];
const RW_TRY: &[&str] = &["rw-acquire", "rw-error"];
const RD: PlockHook = PlockHook::RwReturn {
    writer: false,
    try_: false,
};
const RD_TRY: PlockHook = PlockHook::RwReturn {
    writer: false,
    try_: true,
};
const WR: PlockHook = PlockHook::RwReturn {
    writer: true,
    try_: false,
};
const WR_TRY: PlockHook = PlockHook::RwReturn {
    writer: true,
    try_: true,
};

/// One probe: its process, the object's file, the function's offset in
/// it and number in `FUNCTIONS`, the function's own hook (its return or
/// entry program), the program the probe fires in (that one, the futex
/// wait's, or the blocked probes' at the return), and whether it is the
/// error probe of its place (dispatch key 2k+1).
#[derive(Clone, Debug)]
struct PlockProbe {
    pid: u32,
    path: PathBuf,
    func_offset: u64,
    func: u32,
    func_hook: PlockHook,
    hook: PlockHook,
    error: bool,
    name: &'static str,
}

/// The kind of lock a lock function takes, as the stash program's cookie
/// says it (see `plock_cookie`): 0 a mutex, 1 a reader's rwlock, 2 a
/// writer's.
fn lock_kind(hook: PlockHook) -> u32 {
    match hook {
        PlockHook::RwReturn { writer: false, .. } => 1,
        PlockHook::RwReturn { writer: true, .. } => 2,
        _ => 0,
    }
}

/// A plockstat program's plan: a uprobe program at `hook` in process
/// `pid` serving `probes`.
fn plock_plan(
    name: &str,
    pid: u32,
    hook: PlockHook,
    probes: Vec<ProbeEnabling>,
    dispatch: Option<DispatchKey>,
) -> ProgramPlan {
    ProgramPlan {
        name: name.to_string(),
        kind: ProgKind::Uprobe,
        context: ArgContext::Hook(HookRef::new(PlockProgram { pid, hook })),
        phase: Phase::Normal,
        probes,
        dispatch,
        tick_gate: None,
        guard: None,
        cookie: None,
    }
}

#[derive(Default)]
pub struct Plockstat {
    probes: Vec<PlockProbe>,
    procs: ProcessObjects,
}

/// The process ID a `plockstatN` provider name names.
fn pid_of(provider: &str) -> Option<u32> {
    process_of(provider, "plockstat")
}

fn is_return(hook: PlockHook) -> bool {
    matches!(
        hook,
        PlockHook::MutexReturn { .. } | PlockHook::RwReturn { .. }
    )
}

impl Provider for Plockstat {
    fn name(&self) -> &str {
        "plockstat"
    }

    fn attributes(&self) -> Attributes {
        attrs::sdt_like(attrs::EVOLVING_ISA)
    }

    fn provide(&mut self, _sink: &mut ProbeSink<'_>) {}

    fn target(&mut self, pid: u32, held: Option<&Path>) {
        self.procs.target(pid, held);
    }

    fn provide_named(&mut self, sink: &mut ProbeSink<'_>, desc: &ProbeDesc) {
        let Some(pid) = pid_of(&desc.provider) else {
            return;
        };
        let provider = format!("plockstat{}", pid);
        for obj in self.procs.objects(pid) {
            if !field_matches(&desc.module, &obj.name) {
                continue;
            }
            let funcs = self.procs.funcs(&obj.path).to_vec();
            for (fi, &(func, func_hook, names)) in FUNCTIONS.iter().enumerate() {
                if !field_matches(&desc.function, func) {
                    continue;
                }
                let Some(f) = funcs.iter().find(|f| f.name == func) else {
                    continue;
                };
                for (i, &name) in names.iter().enumerate() {
                    if !field_matches(&desc.name, name)
                        || sink.has_as(&provider, &obj.name, func, name)
                    {
                        continue;
                    }
                    let hook = match i {
                        2 => PlockHook::FutexWait,
                        3 => PlockHook::Blocked,
                        _ => func_hook,
                    };
                    self.probes.push(PlockProbe {
                        pid,
                        path: obj.path.clone(),
                        func_offset: f.offset,
                        func: fi as u32,
                        func_hook,
                        hook,
                        error: i == 1,
                        name,
                    });
                    let local = self.probes.len() as u32 - 1;
                    sink.add_as(&provider, &obj.name, func, name, local);
                }
            }
        }
    }

    fn args(&self, local: u32) -> Option<Vec<ArgDesc>> {
        let p = self.probes.get(local as usize)?;
        let list: &[(&str, &str)] = match p.name {
            "mutex-acquire" => &[
                ("pthread_mutex_t *", "mutex"),
                ("int", "is_recursive"),
                ("int", "spin_count"),
            ],
            "mutex-release" => &[("pthread_mutex_t *", "mutex"), ("int", "is_recursive")],
            "mutex-error" => &[("pthread_mutex_t *", "mutex"), ("int", "errno")],
            "mutex-block" => &[("pthread_mutex_t *", "mutex")],
            "mutex-blocked" => &[("pthread_mutex_t *", "mutex"), ("int", "successful")],
            "rw-acquire" | "rw-release" | "rw-block" => {
                &[("pthread_rwlock_t *", "rwlock"), ("int", "is_writer")]
            }
            "rw-blocked" => &[
                ("pthread_rwlock_t *", "rwlock"),
                ("int", "is_writer"),
                ("int", "successful"),
            ],
            _ => &[
                ("pthread_rwlock_t *", "rwlock"),
                ("int", "is_writer"),
                ("int", "errno"),
            ],
        };
        Some(
            list.iter()
                .map(|(t, n)| {
                    let mut a = ArgDesc::new(*t, *n);
                    a.user = t.ends_with('*');
                    a
                })
                .collect(),
        )
    }

    /// A program per process, file and kind of function, attached at
    /// their places by one uprobe_multi link (uretprobes for the lock
    /// functions, whose return says whether the lock was taken, with a
    /// stash program at their entries), each place's cookie its
    /// function; at a return, the key is twice the cookie, plus one for
    /// an error.
    fn plan(&self, table: &ProbeTable, enabled: &[Enabled], out: &mut Planned) -> io::Result<()> {
        let mut groups = Groups::new();
        // Per process and file: the lock functions to stash at, with
        // their cookies.
        let mut stashes = Groups::new();
        // pid -> the block probes, keyed by their functions' cookies.
        let mut futex: Vec<(u32, Vec<ProbeEnabling>)> = Vec::new();
        for e in enabled {
            let Some(p) = self.probes.get(e.local as usize) else {
                continue;
            };
            let cookie = plock_cookie(p.func, lock_kind(p.func_hook));
            if p.hook == PlockHook::FutexWait || p.hook == PlockHook::Blocked {
                let f = match futex.iter().position(|f| f.0 == p.pid) {
                    Some(i) => &mut futex[i],
                    None => {
                        futex.push((p.pid, Vec::new()));
                        futex.last_mut().expect("just pushed")
                    }
                };
                let key = cookie as u32;
                if p.hook == PlockHook::FutexWait && f.1.iter().all(|x| x.key != key) {
                    f.1.push(e.enabling(table, key));
                }
            }
            if is_return(p.func_hook) {
                let s = stashes.group(p.pid, &p.path, ());
                if !s.has(p.func_offset) {
                    s.place(p.func_offset, cookie, 0, None);
                }
            }
            if p.hook == PlockHook::FutexWait {
                continue;
            }
            let g = groups.group(p.pid, &p.path, p.hook);
            let cookie = g.place_index(p.func_offset);
            let key = if is_return(p.hook) {
                2 * cookie + u32::from(p.error)
            } else {
                cookie
            };
            g.probes.push(e.enabling(table, key));
        }
        for mut s in stashes.into_vec() {
            out.programs.push(PlannedProgram {
                plan: plock_plan("dt_plock_keep", s.pid, PlockHook::Stash, Vec::new(), None),
                attach: s.attach(false),
            });
        }
        // A thread's futex waits on the lock it is taking: the block
        // probes, and the mark the blocked probes fire on.
        for (pid, probes) in futex {
            let dispatch = (!probes.is_empty()).then_some(DispatchKey::HookAlways);
            let mut plan = plock_plan("dt_plock_wait", pid, PlockHook::FutexWait, probes, dispatch);
            plan.kind = ProgKind::Tracepoint;
            out.programs.push(PlannedProgram {
                plan,
                attach: Attach::tracepoint("syscalls", "sys_enter_futex"),
            });
        }
        // The blocked probes' programs last: the kernel runs the
        // programs at one return last attached first, so they fire
        // before the acquire probes (either way, the second of the two
        // removes the thread's entry).
        let mut groups = groups.into_vec();
        groups.sort_by_key(|g| g.kind == PlockHook::Blocked);
        for mut g in groups {
            let ret = is_return(g.kind) || g.kind == PlockHook::Blocked;
            let dispatch = if is_return(g.kind) {
                DispatchKey::HookAlways
            } else {
                DispatchKey::Cookie
            };
            out.programs.push(PlannedProgram {
                attach: g.attach(ret),
                plan: plock_plan("dt_plockstat", g.pid, g.kind, g.probes, Some(dispatch)),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_names_name_a_process() {
        assert_eq!(pid_of("plockstat42"), Some(42));
        assert_eq!(pid_of("plockstat"), None);
        assert_eq!(pid_of("plockstat0"), None);
        assert_eq!(pid_of("pid42"), None);
    }

    #[test]
    fn every_function_has_its_probes() {
        for (f, hook, names) in FUNCTIONS {
            assert!(f.starts_with("pthread_"));
            // Unlocks release; lock functions acquire or fail, and block
            // unless they only try.
            let want = match (is_return(*hook), f.contains("try")) {
                (false, _) => 1,
                (true, true) => 2,
                (true, false) => 4,
            };
            assert_eq!(names.len(), want, "{}", f);
        }
    }
}
