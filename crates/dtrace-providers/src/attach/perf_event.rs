//! Perf events on every online CPU, the program attached to each: a
//! cpu-clock timer (profile's and tick's) or a sampling counter (cpc's).

use std::fmt;
use std::io;
use std::os::fd::OwnedFd;
use std::path::PathBuf;

use super::{AttachKind, LeftOut, Link};

/// A cpu-clock event every `period_ns` on every online CPU.
#[derive(Debug)]
pub struct CpuClock {
    pub period_ns: u64,
}

impl fmt::Display for CpuClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cpu-clock every {}ns", self.period_ns)
    }
}

impl AttachKind for CpuClock {
    fn attach(&self, prog: &OwnedFd, _: Option<&PathBuf>) -> io::Result<(Vec<Link>, LeftOut)> {
        let mut out = Vec::new();
        for cpu in dtrace_sys::cpus::online_cpus()? {
            let ev = dtrace_sys::perf::open_cpu_clock(cpu, self.period_ns)?;
            out.extend(super::program_on_event(prog, ev)?);
        }
        Ok((out, Vec::new()))
    }
}

/// A sampling counter on every online CPU, overflowing every `period`
/// events, counting in user space, the kernel or both.
#[derive(Debug)]
pub struct Counter {
    pub type_: u32,
    pub config: u64,
    pub config1: u64,
    pub period: u64,
    pub user: bool,
    pub kernel: bool,
    /// What to say if the kernel has no such counter.
    pub what: String,
}

impl fmt::Display for Counter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "counter {}/{:#x} every {}",
            self.type_, self.config, self.period
        )
    }
}

impl AttachKind for Counter {
    fn attach(&self, prog: &OwnedFd, _: Option<&PathBuf>) -> io::Result<(Vec<Link>, LeftOut)> {
        let mut out = Vec::new();
        for cpu in dtrace_sys::cpus::online_cpus()? {
            let ev = dtrace_sys::perf::open_counter(
                cpu,
                self.type_,
                self.config,
                self.config1,
                self.period,
                self.user,
                self.kernel,
            )
            .map_err(|e| match e.raw_os_error() {
                // ENOENT, EOPNOTSUPP.
                Some(2 | 95) => io::Error::other(format!(
                    "{}: this machine has no such counter ({})",
                    self.what, e
                )),
                // EBUSY.
                Some(16) => io::Error::other(format!(
                    "{}: the counters are all in use (first come, first served)",
                    self.what
                )),
                _ => e,
            })?;
            out.extend(super::program_on_event(prog, ev)?);
        }
        Ok((out, Vec::new()))
    }
}
