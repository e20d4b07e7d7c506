//! A perf tracepoint event: its ID read from tracefs, one perf event
//! the program is attached to.

use std::fmt;
use std::io;
use std::os::fd::OwnedFd;
use std::path::PathBuf;

use super::{AttachKind, LeftOut, Link};

#[derive(Debug)]
pub struct Tracepoint {
    pub system: String,
    pub event: String,
}

impl fmt::Display for Tracepoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tracepoint {}/{}", self.system, self.event)
    }
}

impl AttachKind for Tracepoint {
    fn attach(
        &self,
        prog: &OwnedFd,
        tracefs: Option<&PathBuf>,
    ) -> io::Result<(Vec<Link>, LeftOut)> {
        let root = tracefs.ok_or_else(|| io::Error::other("tracefs is not available"))?;
        let id = dtrace_sys::tracefs::event_id(root, &self.system, &self.event)?;
        let ev = dtrace_sys::perf::open_tracepoint(id)?;
        Ok((super::program_on_event(prog, ev)?, Vec::new()))
    }
}

/// A perf event on tracefs event `system/event` (under `root`), carrying
/// `prog`.
pub(crate) fn with_program(
    root: &std::path::Path,
    system: &str,
    event: &str,
    prog: &OwnedFd,
) -> io::Result<OwnedFd> {
    let id = dtrace_sys::tracefs::event_id(root, system, event)?;
    let ev = dtrace_sys::perf::open_tracepoint(id)?;
    dtrace_sys::perf::attach_bpf(&ev, prog)?;
    Ok(ev)
}
