//! Kprobes (kretprobes) at the entry (return) of many kernel functions
//! through kprobe events, for kernels without kprobe_multi links (before
//! 5.18, or built without `CONFIG_FPROBE`, as Debian 12's 6.1 is): the
//! events are defined in tracefs, a probe at each function (a second
//! definition of an event adds a probe to it, Linux 5.5; up to
//! [`EVENT_PROBES`] an event), and a perf event on each carries the one
//! program, which runs wherever any of the probes fires and tells them
//! apart by address (the plan's [`dtrace_bpf::plan::DispatchKey::ProbeIp`]
//! at entry, `FuncIp` at return).
//!
//! At entry each kprobe stands on the instruction after the function's
//! ftrace site ([`KprobeSite::offset`], found by [`crate::ktext`]), where
//! the kernel arms it with a breakpoint of its own (and later a jump)
//! rather than through ftrace, whose filter it copies whole for each
//! probe armed or disarmed; where the kernel will not put a breakpoint
//! there, the probe is at the entry. A kretprobe stands at the entry, on
//! ftrace. The kernel's kprobe optimization (breakpoints made jumps, in
//! rounds of 256 that each wait for every task to schedule) is left to
//! run as the probes are armed: arming is slower for it, but every probe
//! soon costs a jump rather than a trap, and tens of thousands of
//! breakpoints at once (`fbt:::entry`, the kernel's hottest functions
//! among them) left a guest with no time for anything else. The kernel
//! waits for an RCU grace period as it removes each probe; those are
//! expedited meanwhile ([`dtrace_sys::tracefs::expedited`]). Measured
//! in the 6.1 guest, see docs/KERNELS.md. A function the kernel will not probe (on its kprobe
//! blacklist, or a name it finds twice) is left out with the reason.
//!
//! A kretprobe follows a fixed number of calls of its function at once
//! (instances made when it is defined: [`max_active`]); the return of a
//! call made when all are taken is missed, and counted by the kernel in
//! `kprobe_profile`. Tracing programs (fexit) have no such limit.
//!
//! The events are named for the process (`dtrace_PID/fbt_entry_N`) and
//! removed when the attachment is let go; those left by a dtrace that
//! was killed are removed by the next one to attach an event.

use std::fmt;
use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use dtrace_sys::tracefs::KprobeEvents;

use super::{AttachKind, LeftOut, Link};

/// Why the kernel refuses a function.
pub const UNPROBEABLE: &str = "the kernel cannot put a kprobe on this function";

/// The group of this process's events.
const GROUP_PREFIX: &str = "dtrace_";

/// Events made by this process so far (each attachment has its own).
static EVENTS: AtomicU32 = AtomicU32::new(0);

/// Where one kprobe of an event stands: a function (`vmlinux` for the
/// kernel's own), and past its ftrace site (`offset`, the instruction
/// after it: [`crate::ktext`]) where that is known, else at its entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KprobeSite {
    pub module: String,
    pub name: String,
    pub offset: u64,
}

/// Kprobes (kretprobes with `ret`, which stand at the entry) at the
/// kernel functions `funcs`, each with its cookie (for the functions
/// left out).
#[derive(Debug)]
pub struct KprobeEvent {
    pub funcs: Vec<KprobeSite>,
    pub cookies: Vec<u64>,
    pub ret: bool,
}

impl fmt::Display for KprobeEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a k{}probe event at {}",
            if self.ret { "ret" } else { "" },
            super::some_names(self.funcs.iter().map(|s| s.name.as_str()))
        )
    }
}

/// A defined event, removed when dropped (after its perf event, since
/// the kernel keeps an enabled event).
struct Defined {
    root: PathBuf,
    group: String,
    /// Each event, with its perf event once it has one.
    events: Vec<(String, Option<OwnedFd>)>,
}

impl Drop for Defined {
    /// Closes the perf events (the kernel disarms each probe, its
    /// optimizer undoing the jumps a round at a time) and removes the
    /// events (the kernel waits for a grace period for each probe), with
    /// the kernel's grace periods expedited meanwhile.
    fn drop(&mut self) {
        for (_, perf) in &mut self.events {
            drop(perf.take());
        }
        let _fast = dtrace_sys::tracefs::expedited();
        if let Ok(mut k) = KprobeEvents::open(&self.root) {
            for (event, _) in &self.events {
                let _ = k.remove(&self.group, event);
            }
        }
    }
}

/// The most probes of one event: the kernel compares each probe it adds
/// to an event with every one the event has, so thousands of functions
/// are many events of a few hundred each, each with its perf event.
const EVENT_PROBES: usize = 256;

/// How many calls of each function a kretprobe follows at once, for
/// `count` functions: a kretprobe keeps that many instances for its
/// function, made when it is defined, and the return of a call made
/// when all are taken is missed (the kernel counts it in
/// `kprobe_profile`), so a few functions get the kernel's most (4096),
/// and many share about a million.
pub fn max_active(count: usize) -> usize {
    ((1usize << 20) / count.max(1)).clamp(16, 4096)
}

/// The definition of one probe of `group/event` at `func` of `module`,
/// `offset` bytes in (a kretprobe following `ret` calls at once, if
/// `Some`).
fn definition(
    ret: Option<usize>,
    group: &str,
    event: &str,
    module: &str,
    func: &str,
    offset: u64,
) -> String {
    let mut at = if module == crate::fbt::VMLINUX {
        func.to_string()
    } else {
        format!("{}:{}", module, func)
    };
    if offset > 0 {
        at.push_str(&format!("+{}", offset));
    }
    let kind = match ret {
        Some(n) => format!("r{}", n),
        None => "p".to_string(),
    };
    format!("{}:{}/{} {}", kind, group, event, at)
}

/// Whether the kernel's refusal of one definition is about its function
/// (not found, blacklisted, found twice, not at an instruction), which
/// is left out, rather than about tracing at all.
fn refuses_function(e: &io::Error) -> bool {
    // ENOENT, EBUSY, EEXIST, EINVAL, EILSEQ, EOPNOTSUPP, EADDRNOTAVAIL,
    // and the kernel's own ENOTSUPP.
    matches!(
        e.raw_os_error(),
        Some(2 | 16 | 17 | 22 | 84 | 95 | 99 | 524)
    )
}

/// Removes the events of dtrace processes that no longer run.
fn remove_stale(root: &Path) {
    let Ok(events) = dtrace_sys::tracefs::kprobe_events(root) else {
        return;
    };
    for (group, event) in events {
        let Some(pid) = group
            .strip_prefix(GROUP_PREFIX)
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{}", pid)).exists() {
            if let Ok(mut k) = KprobeEvents::open(root) {
                let _ = k.remove(&group, &event);
            }
        }
    }
}

impl AttachKind for KprobeEvent {
    fn attach(
        &self,
        prog: &OwnedFd,
        tracefs: Option<&PathBuf>,
    ) -> io::Result<(Vec<Link>, LeftOut)> {
        let root = tracefs.ok_or_else(|| io::Error::other("tracefs is not available"))?;
        remove_stale(root);
        let mut defined = Defined {
            root: root.clone(),
            group: format!("{}{}", GROUP_PREFIX, std::process::id()),
            events: Vec::new(),
        };
        let mut events = KprobeEvents::open(root)?;
        let mut left: LeftOut = Vec::new();
        let mut first_refusal = None;
        // Probes in the event being filled.
        let mut filled = EVENT_PROBES;
        let ret = self.ret.then(|| max_active(self.funcs.len()));
        for (site, &cookie) in self.funcs.iter().zip(&self.cookies) {
            if filled == EVENT_PROBES {
                let name = format!(
                    "fbt_{}_{}",
                    if self.ret { "return" } else { "entry" },
                    EVENTS.fetch_add(1, Ordering::Relaxed)
                );
                defined.events.push((name, None));
                filled = 0;
            }
            let event = defined.events.last().map_or("", |(e, _)| e.as_str());
            let at =
                |offset| definition(ret, &defined.group, event, &site.module, &site.name, offset);
            // Past the ftrace site, else (an instruction kprobes will
            // not put a breakpoint on) at the entry.
            let mut made = events.define(&at(site.offset));
            if site.offset > 0 && matches!(&made, Err(e) if refuses_function(e)) {
                made = events.define(&at(0));
            }
            match made {
                Ok(()) => filled += 1,
                Err(e) if refuses_function(&e) => {
                    first_refusal.get_or_insert(e);
                    left.push((cookie, UNPROBEABLE));
                }
                Err(e) => return Err(e),
            }
        }
        // An event none of whose functions the kernel took was never
        // made.
        if filled == 0 {
            defined.events.pop();
        }
        if defined.events.is_empty() {
            let e = first_refusal.unwrap_or_else(|| io::Error::other("no function"));
            return Err(io::Error::other(format!(
                "kprobes at {}: {}",
                self.funcs.first().map_or("", |s| s.name.as_str()),
                e
            )));
        }
        let group = defined.group.clone();
        for (event, perf) in &mut defined.events {
            *perf = Some(super::tracepoint::with_program(root, &group, event, prog)?);
        }
        Ok((vec![Link::Made(Box::new(defined))], left))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_function_is_one_probe_of_the_event() {
        assert_eq!(
            definition(None, "dtrace_7", "fbt_entry_0", "vmlinux", "vfs_read", 9),
            "p:dtrace_7/fbt_entry_0 vfs_read+9"
        );
        assert_eq!(
            definition(None, "dtrace_7", "fbt_entry_0", "vmlinux", "vfs_read", 0),
            "p:dtrace_7/fbt_entry_0 vfs_read"
        );
        assert_eq!(
            definition(
                Some(64),
                "dtrace_7",
                "fbt_return_1",
                "9p",
                "v9fs_file_open",
                0
            ),
            "r64:dtrace_7/fbt_return_1 9p:v9fs_file_open"
        );
    }

    #[test]
    fn kretprobes_share_about_a_million_instances() {
        assert_eq!(max_active(17), 4096);
        assert_eq!(max_active(1024), 1024);
        assert_eq!(max_active(40_000), 26);
        assert_eq!(max_active(1_000_000), 16);
    }

    #[test]
    fn a_function_the_kernel_refuses_is_left_out_but_not_a_privilege() {
        // EINVAL (blacklisted), EADDRNOTAVAIL (a name found twice).
        assert!(refuses_function(&io::Error::from_raw_os_error(22)));
        assert!(refuses_function(&io::Error::from_raw_os_error(99)));
        // EPERM, ENOMEM.
        assert!(!refuses_function(&io::Error::from_raw_os_error(1)));
        assert!(!refuses_function(&io::Error::from_raw_os_error(12)));
    }
}
