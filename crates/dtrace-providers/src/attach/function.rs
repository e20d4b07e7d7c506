//! A tracing program (fentry or fexit) on a kernel function, named by
//! its BTF FUNC id when the program is loaded (with the module's BTF
//! object, for a module's function), which is what attaches it there;
//! the link only keeps it attached.

use std::fmt;
use std::io;
use std::os::fd::OwnedFd;
use std::path::PathBuf;

use dtrace_bpf::plan::ProgKind;

use super::{AttachKind, LeftOut, Link};

#[derive(Debug)]
pub struct Function {
    pub btf_id: u32,
    /// The module the function is in; None for the kernel's own.
    pub module: Option<String>,
    /// One of many functions a glob enables: left out if the kernel
    /// refuses it (a function with more arguments than its trampolines
    /// take, one it will not let BPF trace).
    pub optional: bool,
}

/// Why a function of a glob was left out.
pub const REFUSED: &str = "the kernel refused to trace this function";

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.module {
            Some(m) => write!(f, "kernel function (BTF id {} of {})", self.btf_id, m),
            None => write!(f, "kernel function (BTF id {})", self.btf_id),
        }
    }
}

impl AttachKind for Function {
    fn load_as(&self, kind: ProgKind) -> (u32, u32) {
        match kind {
            ProgKind::Fentry => (dtrace_sys::bpf::BPF_TRACE_FENTRY, self.btf_id),
            _ => (dtrace_sys::bpf::BPF_TRACE_FEXIT, self.btf_id),
        }
    }

    fn optional(&self) -> Option<&'static str> {
        self.optional.then_some(REFUSED)
    }

    fn btf_object(&self) -> io::Result<Option<OwnedFd>> {
        self.module
            .as_deref()
            .map(dtrace_sys::bpf::module_btf_fd)
            .transpose()
    }

    fn attach(&self, prog: &OwnedFd, _: Option<&PathBuf>) -> io::Result<(Vec<Link>, LeftOut)> {
        Ok((
            vec![Link::Fd(dtrace_sys::bpf::tracing_attach(prog)?)],
            Vec::new(),
        ))
    }
}
