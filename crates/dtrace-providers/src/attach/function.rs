//! A tracing program (fentry or fexit) on a kernel function, named by
//! its vmlinux BTF FUNC id when the program is loaded, which is what
//! attaches it there; the link only keeps it attached.

use std::fmt;
use std::io;
use std::os::fd::OwnedFd;
use std::path::PathBuf;

use dtrace_bpf::plan::ProgKind;

use super::{AttachKind, LeftOut};

#[derive(Debug)]
pub struct Function {
    pub btf_id: u32,
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kernel function (BTF id {})", self.btf_id)
    }
}

impl AttachKind for Function {
    fn load_as(&self, kind: ProgKind) -> (u32, u32) {
        match kind {
            ProgKind::Fentry => (dtrace_sys::bpf::BPF_TRACE_FENTRY, self.btf_id),
            _ => (dtrace_sys::bpf::BPF_TRACE_FEXIT, self.btf_id),
        }
    }

    fn attach(&self, prog: &OwnedFd, _: Option<&PathBuf>) -> io::Result<(Vec<OwnedFd>, LeftOut)> {
        Ok((vec![dtrace_sys::bpf::tracing_attach(prog)?], Vec::new()))
    }
}
