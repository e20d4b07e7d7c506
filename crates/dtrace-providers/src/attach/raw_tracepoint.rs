//! A raw tracepoint, by name (`BPF_RAW_TRACEPOINT_OPEN`): nothing in
//! tracefs, and a detachment that waits for no grace period.

use std::fmt;
use std::io;
use std::os::fd::OwnedFd;
use std::path::PathBuf;

use super::{AttachKind, LeftOut, Link};

#[derive(Debug)]
pub struct RawTracepoint(pub String);

impl fmt::Display for RawTracepoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "raw tracepoint {}", self.0)
    }
}

impl AttachKind for RawTracepoint {
    fn attach(&self, prog: &OwnedFd, _: Option<&PathBuf>) -> io::Result<(Vec<Link>, LeftOut)> {
        Ok((
            vec![Link::Fd(dtrace_sys::bpf::raw_tracepoint_open(
                &self.0, prog,
            )?)],
            Vec::new(),
        ))
    }
}
