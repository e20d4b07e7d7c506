//! Uprobes (uretprobes) at places in one file, for one process, through
//! one uprobe_multi link (nothing in tracefs), each place with its
//! cookie (the program's dispatch key) and, for USDT probes, its
//! semaphore. The program is loaded for that link
//! (`BPF_TRACE_UPROBE_MULTI`). A place the kernel refuses on its own
//! (an instruction it cannot step) is left out, not the whole link.

use std::fmt;
use std::io;
use std::os::fd::OwnedFd;
use std::path::PathBuf;

use dtrace_bpf::plan::ProgKind;

use super::{AttachKind, LeftOut, Link};

/// Why the kernel refuses a uprobe place on its own.
pub const UNSTEPPABLE: &str = "the kernel cannot put a uprobe on its instruction";

/// Uprobes (uretprobes with `ret`) at `offsets` in file `path`, for
/// process `pid`, each with its cookie and, if `ref_ctr_offsets` is not
/// empty, its USDT semaphore's offset (0 for none).
#[derive(Debug)]
pub struct UprobeMulti {
    pub path: PathBuf,
    pub offsets: Vec<u64>,
    pub cookies: Vec<u64>,
    pub ref_ctr_offsets: Vec<u64>,
    /// The cookies of places the provider knows the kernel will refuse,
    /// and why (an instruction uprobes cannot step, a USDT semaphore the
    /// kernel cannot count): left out and reported, without asking the
    /// kernel.
    pub left_out: LeftOut,
    pub ret: bool,
    pub pid: u32,
}

impl fmt::Display for UprobeMulti {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "u{}probes {}+{:x?} in {}",
            if self.ret { "ret" } else { "" },
            self.path.display(),
            self.offsets,
            self.pid
        )
    }
}

impl AttachKind for UprobeMulti {
    fn load_as(&self, _kind: ProgKind) -> (u32, u32) {
        (dtrace_sys::bpf::BPF_TRACE_UPROBE_MULTI, 0)
    }

    /// The places the provider left out and those the kernel refused
    /// come back as left out, by cookie.
    fn attach(&self, prog: &OwnedFd, _: Option<&PathBuf>) -> io::Result<(Vec<Link>, LeftOut)> {
        let UprobeMulti {
            path,
            offsets,
            cookies,
            ref_ctr_offsets,
            left_out,
            ret,
            pid,
        } = self;
        use std::os::unix::ffi::OsStrExt;
        let c_path = std::ffi::CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::other("a file name with a NUL byte"))?;
        let mut links = Vec::new();
        let mut refused = (None, Vec::new());
        // The places the kernel is not asked about.
        let (mut offsets, mut cookies, mut semaphores) = (offsets, cookies, ref_ctr_offsets);
        let kept: (Vec<u64>, Vec<u64>, Vec<u64>);
        if !left_out.is_empty() {
            let keep = |i: usize| left_out.iter().all(|(c, _)| *c != cookies[i]);
            let n = offsets.len().min(cookies.len());
            kept = (
                (0..n).filter(|&i| keep(i)).map(|i| offsets[i]).collect(),
                (0..n).filter(|&i| keep(i)).map(|i| cookies[i]).collect(),
                (0..semaphores.len().min(n))
                    .filter(|&i| keep(i))
                    .map(|i| semaphores[i])
                    .collect(),
            );
            (offsets, cookies, semaphores) = (&kept.0, &kept.1, &kept.2);
        }
        attach_uprobes(
            prog,
            &c_path,
            Places {
                offsets,
                cookies,
                semaphores,
            },
            (*ret, *pid),
            &mut links,
            &mut refused,
        )?;
        match refused {
            // Not one place would take a probe.
            (Some(e), _) if links.is_empty() && !offsets.is_empty() => {
                Err(io::Error::other(format!(
                    "uprobes in {}{}: {}",
                    path.display(),
                    if dtrace_sys::bpf::has_uprobe_multi() {
                        ""
                    } else {
                        " (the kernel needs uprobe_multi links, Linux 6.6)"
                    },
                    e
                )))
            }
            (_, cookies) => Ok((
                links.into_iter().map(Link::Fd).collect(),
                left_out
                    .iter()
                    .copied()
                    .chain(cookies.into_iter().map(|c| (c, UNSTEPPABLE)))
                    .collect(),
            )),
        }
    }
}

/// The places of a uprobe_multi link: offsets in the file, each one's
/// cookie and its semaphore's offset (none at all, or one each).
#[derive(Clone, Copy)]
struct Places<'a> {
    offsets: &'a [u64],
    cookies: &'a [u64],
    semaphores: &'a [u64],
}

impl<'a> Places<'a> {
    fn split(self, at: usize) -> (Places<'a>, Places<'a>) {
        let (o1, o2) = self.offsets.split_at(at);
        let (c1, c2) = self.cookies.split_at(at);
        let (s1, s2) = self.semaphores.split_at(at.min(self.semaphores.len()));
        (
            Places {
                offsets: o1,
                cookies: c1,
                semaphores: s1,
            },
            Places {
                offsets: o2,
                cookies: c2,
                semaphores: s2,
            },
        )
    }
}

/// Attaches `prog` at the places of a file with one uprobe_multi link.
/// The kernel refuses a whole link for one place it cannot probe (an
/// instruction its uprobes cannot step, EOPNOTSUPP/ENOTSUPP, or a place
/// that is not an instruction, EINVAL): then each half is tried on its
/// own, down to single places, which are left out (the first such error
/// kept in `refused`, with their count). Other errors end the attachment.
fn attach_uprobes(
    prog: &OwnedFd,
    path: &std::ffi::CStr,
    places: Places<'_>,
    (ret, pid): (bool, u32),
    links: &mut Vec<OwnedFd>,
    refused: &mut (Option<io::Error>, Vec<u64>),
) -> io::Result<()> {
    let Places {
        offsets,
        cookies,
        semaphores,
    } = places;
    if offsets.is_empty() {
        return Ok(());
    }
    let refs = (!semaphores.is_empty()).then_some(semaphores);
    match dtrace_sys::bpf::uprobe_multi_attach(prog, path, offsets, cookies, refs, ret, pid) {
        Ok(link) => {
            links.push(link);
            Ok(())
        }
        // EINVAL, EOPNOTSUPP, ENOTSUPP (the kernel's 524).
        Err(e) if matches!(e.raw_os_error(), Some(22 | 95 | 524)) => {
            if offsets.len() == 1 {
                refused.0.get_or_insert(e);
                refused.1.extend(cookies.first());
                return Ok(());
            }
            let (first, second) = places.split(offsets.len() / 2);
            attach_uprobes(prog, path, first, (ret, pid), links, refused)?;
            attach_uprobes(prog, path, second, (ret, pid), links, refused)
        }
        Err(e) => Err(e),
    }
}
