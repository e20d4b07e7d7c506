//! Uprobes as perf events, for kernels without uprobe_multi links (before
//! Linux 6.6): one uprobe PMU event a place, in every process (the
//! program checks the process), each with a BPF link carrying the
//! place's cookie (Linux 5.15; before, a program of its own set on the
//! event, its cookie a constant) and counting the place's USDT
//! semaphore.
//! The program is loaded as a plain kprobe-type program. A place the
//! kernel refuses on its own is left out, as with uprobe_multi.

use std::fmt;
use std::io;
use std::os::fd::OwnedFd;
use std::path::PathBuf;

use super::{AttachKind, LeftOut, Link, UprobeMulti, UNSTEPPABLE};

/// The places of a [`UprobeMulti`], attached one perf event each.
#[derive(Debug)]
pub struct UprobePerf(pub UprobeMulti);

impl fmt::Display for UprobePerf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "u{}probe perf events {}+{:x?} in {}",
            if self.0.ret { "ret" } else { "" },
            self.0.path.display(),
            self.0.offsets,
            self.0.pid
        )
    }
}

impl AttachKind for UprobePerf {
    fn places(&self) -> Option<Vec<(u64, super::Attach)>> {
        let p = &self.0;
        Some(
            p.offsets
                .iter()
                .zip(&p.cookies)
                .enumerate()
                .map(|(i, (&offset, &cookie))| {
                    let one = UprobeMulti {
                        path: p.path.clone(),
                        offsets: vec![offset],
                        cookies: vec![cookie],
                        ref_ctr_offsets: p
                            .ref_ctr_offsets
                            .get(i)
                            .map(|&r| vec![r])
                            .unwrap_or_default(),
                        left_out: p
                            .left_out
                            .iter()
                            .filter(|(c, _)| *c == cookie)
                            .copied()
                            .collect(),
                        ret: p.ret,
                        pid: p.pid,
                    };
                    (cookie, super::Attach::new(UprobePerf(one)))
                })
                .collect(),
        )
    }

    fn attach(&self, prog: &OwnedFd, _: Option<&PathBuf>) -> io::Result<(Vec<Link>, LeftOut)> {
        let places = &self.0;
        use std::os::unix::ffi::OsStrExt;
        let c_path = std::ffi::CString::new(places.path.as_os_str().as_bytes())
            .map_err(|_| io::Error::other("a file name with a NUL byte"))?;
        let pmu = dtrace_sys::perf::uprobe_pmu_type()?;
        let mut fds = Vec::new();
        let mut left_out = places.left_out.clone();
        let mut refusal: Option<io::Error> = None;
        let mut asked = 0;
        for (i, (&offset, &cookie)) in places.offsets.iter().zip(&places.cookies).enumerate() {
            if places.left_out.iter().any(|(c, _)| *c == cookie) {
                continue;
            }
            asked += 1;
            let semaphore = places.ref_ctr_offsets.get(i).copied().unwrap_or(0);
            let ev = match dtrace_sys::perf::open_uprobe(
                pmu, &c_path, offset, semaphore, places.ret, -1,
            ) {
                Ok(ev) => ev,
                // EINVAL, EOPNOTSUPP, ENOTSUPP: this place alone.
                Err(e) if matches!(e.raw_os_error(), Some(22 | 95 | 524)) => {
                    refusal.get_or_insert(e);
                    left_out.push((cookie, UNSTEPPABLE));
                    continue;
                }
                Err(e) => return Err(e),
            };
            // With BPF links to perf events (5.15) the place's cookie
            // goes with its link; before, the program is set on the event
            // (a program of its own, its cookie a constant: `by_place`).
            if dtrace_sys::features::Features::get().perf_link {
                let link = dtrace_sys::bpf::perf_event_link(prog, &ev, cookie)?;
                fds.push(link);
            } else {
                dtrace_sys::perf::attach_bpf(&ev, prog)?;
            }
            dtrace_sys::perf::enable(&ev)?;
            fds.push(ev);
        }
        match refusal {
            // Not one place would take a probe.
            Some(e) if fds.is_empty() && asked > 0 => Err(io::Error::other(format!(
                "uprobes in {}: {}",
                places.path.display(),
                e
            ))),
            _ => Ok((fds.into_iter().map(Link::Fd).collect(), left_out)),
        }
    }
}
