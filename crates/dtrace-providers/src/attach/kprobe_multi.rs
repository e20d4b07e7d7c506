//! Kprobes (kretprobes) at the entry (return) of many kernel functions
//! through one kprobe_multi link (Linux 5.18), each function with its
//! cookie (the program's dispatch key): `fbt:::entry` is one program and
//! one link, attached and detached at once. A function the kernel will
//! not trace on its own makes it refuse the whole link; it is then found
//! by halves and left out, not the whole attachment.

use std::ffi::CString;
use std::fmt;
use std::io;
use std::os::fd::OwnedFd;
use std::path::PathBuf;

use dtrace_bpf::plan::ProgKind;

use super::{AttachKind, LeftOut, Link};

/// Why the kernel refuses a function on its own.
pub const UNTRACEABLE: &str = "the kernel cannot trace this function";

/// Kprobes (kretprobes with `ret`) at the kernel functions `funcs`,
/// each with its cookie.
#[derive(Debug)]
pub struct KprobeMulti {
    pub funcs: Vec<String>,
    pub cookies: Vec<u64>,
    pub ret: bool,
}

impl fmt::Display for KprobeMulti {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "k{}probes at {}",
            if self.ret { "ret" } else { "" },
            super::some_names(self.funcs.iter().map(|s| s.as_str()))
        )
    }
}

impl AttachKind for KprobeMulti {
    fn load_as(&self, _kind: ProgKind) -> (u32, u32) {
        (dtrace_sys::bpf::BPF_TRACE_KPROBE_MULTI, 0)
    }

    fn attach(&self, prog: &OwnedFd, _: Option<&PathBuf>) -> io::Result<(Vec<Link>, LeftOut)> {
        let names: Vec<CString> = self
            .funcs
            .iter()
            .map(|f| CString::new(f.as_str()))
            .collect::<Result<_, _>>()
            .map_err(|_| io::Error::other("a function name with a NUL byte"))?;
        let syms: Vec<&std::ffi::CStr> = names.iter().map(|c| c.as_c_str()).collect();
        let mut links = Vec::new();
        let mut refused = (None, Vec::new());
        attach_halves(
            prog,
            &syms,
            &self.cookies,
            self.ret,
            &mut links,
            &mut refused,
        )?;
        match refused {
            (Some(e), _) if links.is_empty() => Err(io::Error::other(format!(
                "kprobes at {}: {}",
                self.funcs.first().map_or("", |s| s.as_str()),
                e
            ))),
            (_, cookies) => Ok((
                links.into_iter().map(Link::Fd).collect(),
                cookies.into_iter().map(|c| (c, UNTRACEABLE)).collect(),
            )),
        }
    }
}

/// Attaches `prog` at `syms` with one link; where the kernel refuses
/// the link for a function it cannot trace (ESRCH: not found among the
/// traceable; EINVAL, ENOENT, EOPNOTSUPP, EBUSY), each half is tried on
/// its own, down to single functions, which are left out (their cookies
/// and the first such error kept in `refused`). Other errors end it.
fn attach_halves(
    prog: &OwnedFd,
    syms: &[&std::ffi::CStr],
    cookies: &[u64],
    ret: bool,
    links: &mut Vec<OwnedFd>,
    refused: &mut (Option<io::Error>, Vec<u64>),
) -> io::Result<()> {
    if syms.is_empty() {
        return Ok(());
    }
    match dtrace_sys::bpf::kprobe_multi_attach(prog, syms, cookies, ret) {
        Ok(link) => {
            links.push(link);
            Ok(())
        }
        Err(e) if matches!(e.raw_os_error(), Some(2 | 3 | 16 | 22 | 95 | 524)) => {
            if syms.len() == 1 {
                refused.0.get_or_insert(e);
                refused.1.extend(cookies.first());
                return Ok(());
            }
            let at = syms.len() / 2;
            attach_halves(prog, &syms[..at], &cookies[..at], ret, links, refused)?;
            attach_halves(prog, &syms[at..], &cookies[at..], ret, links, refused)
        }
        Err(e) => Err(e),
    }
}
