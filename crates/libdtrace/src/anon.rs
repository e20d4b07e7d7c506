//! Anonymous tracing: an enabling that outlives the dtrace that started
//! it, and the later dtrace that claims it (`dtrace -A`, `dtrace -a`).
//!
//! What keeps BPF objects alive without a process is a BPF file system:
//! [`Session::pin_anonymous`] pins the running enabling's maps (its
//! principal buffers among them) and links under a directory, the
//! starting dtrace exits, and the probes go on recording into the
//! buffers. [`Dtrace::go_claiming`] compiles the same enabling again
//! (which makes the same maps, in the same order, and the same record
//! layouts), takes the pinned maps in place of new ones, checking that
//! each has the shape the program expects, holds the links, loads END,
//! and removes the pins: from then on the claiming dtrace is the
//! enabling's consumer as if it had started it, and when it exits
//! nothing of the enabling is left.
//!
//! Attachments must be links for this (`attach::want_pinnable`): a
//! program set on a perf event by its ioctl would be detached when the
//! event's descriptor closes.

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use dtrace_bpf::plan::{MapKind, Phase, ProgKind};
use dtrace_providers::attach::Link;
use dtrace_sys::bpf::{self, Map, ProgType};
use dtrace_sys::poll::Poller;
use dtrace_sys::ringbuf::RingBuf;

use crate::load::{self, Running};
use crate::session::Session;
use crate::{consume, Dtrace, Error};

/// The directory of the anonymous enabling's pins: `dtrace` in the BPF
/// file system (mounted at `/sys/fs/bpf` first if it is not).
///
/// ```no_run
/// let dir = libdtrace::anonymous_dir()?;
/// println!("anonymous state {}", if dir.exists() { "pinned" } else { "absent" });
/// # Ok::<(), libdtrace::Error>(())
/// ```
pub fn anonymous_dir() -> Result<PathBuf, Error> {
    let root = bpf::bpffs().map_err(|e| {
        Error::Enable(format!(
            "cannot mount a BPF file system on /sys/fs/bpf: {}",
            e
        ))
    })?;
    Ok(root.join("dtrace"))
}

/// What a descriptor is, as `/proc/self/fd` names it
/// (`anon_inode:bpf_link`, `anon_inode:[perf_event]`).
fn fd_kind(fd: &impl AsRawFd) -> String {
    std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd()))
        .map(|p| p.display().to_string())
        .unwrap_or_default()
}

fn pin(fd: &impl AsRawFd, dir: &Path, name: &str) -> Result<(), Error> {
    bpf::obj_pin(fd, &dir.join(name))
        .map_err(|e| Error::Enable(format!("cannot pin {} in {}: {}", name, dir.display(), e)))
}

impl Running {
    /// Pins every map, ring and link in `dir`, made here; the links
    /// pinned.
    fn pin_in(&self, dir: &Path) -> Result<usize, Error> {
        for (i, m) in self.maps.iter().enumerate() {
            pin(m, dir, &format!("map_{}", i))?;
        }
        for (i, r) in self.rings.iter().enumerate() {
            pin(r.map(), dir, &format!("ring_{}", i))?;
        }
        let mut links = 0;
        for l in &self._links {
            match l {
                Link::Fd(fd) => match fd_kind(fd).as_str() {
                    "anon_inode:bpf_link" => {
                        pin(fd, dir, &format!("link_{}", links))?;
                        links += 1;
                    }
                    // Held by a link to it, pinned above.
                    "anon_inode:[perf_event]" => {}
                    other => {
                        return Err(Error::Enable(format!(
                            "cannot keep an attachment ({}) without dtrace",
                            other
                        )))
                    }
                },
                Link::Made(_) => {
                    return Err(Error::Enable(
                        "cannot keep a kprobe event without dtrace: anonymous tracing of fbt \
                         needs kprobe_multi links or fentry"
                            .into(),
                    ))
                }
            }
        }
        Ok(links)
    }
}

impl Session {
    /// Pins the running enabling in `dir` (see [`anonymous_dir`]), so
    /// that it goes on recording when this process exits, until a
    /// consumer claims it ([`Dtrace::go_claiming`]). The handle should
    /// have been told before `go` that attachments must be pinnable
    /// (`libdtrace::want_pinnable(true)`). Returns how many links were
    /// pinned. A `dir` that exists already is an error (the state of
    /// another enabling); on an error nothing is left pinned.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// libdtrace::want_pinnable(true);
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("syscall::getppid:entry { @ = count(); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let dt = dt.go()?;
    /// dt.pin_anonymous(&libdtrace::anonymous_dir()?)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn pin_anonymous(&self, dir: &Path) -> Result<usize, Error> {
        let Some(r) = &self.running else {
            return Err(Error::Enable("tracing has not started".into()));
        };
        std::fs::create_dir(dir).map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                Error::Enable(format!(
                    "anonymous state exists already in {}: claim it (dtrace -a) or remove it (dtrace -A)",
                    dir.display()
                ))
            } else {
                Error::Enable(format!("cannot make {}: {}", dir.display(), e))
            }
        })?;
        r.pin_in(dir).inspect_err(|_| {
            let _ = std::fs::remove_dir_all(dir);
        })
    }
}

/// Attachments from now on are ones a BPF file system can pin, for
/// [`Session::pin_anonymous`] (a program on a perf event through a BPF
/// link, Linux 5.15, rather than the event's ioctl).
pub fn want_pinnable(on: bool) {
    dtrace_providers::attach::want_pinnable(on);
}

impl Dtrace {
    /// Claims the anonymous enabling pinned in `dir` instead of starting
    /// tracing: the handle must have compiled and executed the same
    /// programs with the same options as the dtrace that pinned it. The
    /// buffers are consumed from where they stand (what the probes
    /// recorded since, and the drops), END fires at [`Session::stop`],
    /// and the pins are removed: when the session ends, nothing of the
    /// enabling is left. Without pinned state: "No anonymous tracing
    /// state".
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("syscall::getppid:entry { @ = count(); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go_claiming(&libdtrace::anonymous_dir()?)?;
    /// dt.stop()?;
    /// while dt.work(&mut std::io::stdout(), &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Okay {}
    /// dt.aggregate_print(&mut std::io::stdout())?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn go_claiming(mut self, dir: &Path) -> Result<Session, Error> {
        if self.running.is_some() {
            return Err(Error::Enable("tracing is already active".into()));
        }
        if !dir.is_dir() {
            return Err(Error::Enable("No anonymous tracing state".into()));
        }
        self.flame_file = self.open_flamegraph(&|| false)?;
        self.pprof_file = self.open_pprof()?;
        let metrics = self.bind_metrics()?;
        let running = claim(&mut self, dir)?;
        self.running = Some(running);
        self.sink.output = crate::output::for_format(
            (self.opts.oformat == crate::options::OFormat::Json).then_some("json"),
        );
        self.last_status = std::time::Instant::now();
        self.traced_since = Some(std::time::SystemTime::now());
        if let Some(listener) = metrics {
            self.start_metrics(listener)?;
        }
        self.status_checked = !load::exit_requested(&self);
        Ok(Session::new(self, consume::Reader::default()))
    }
}

/// The pinned objects named `prefix_N`, N from 0, opened (a BPF file
/// system refuses names with dots).
fn pinned(dir: &Path, prefix: &str) -> Result<Vec<std::os::fd::OwnedFd>, Error> {
    let mut out = Vec::new();
    loop {
        let path = dir.join(format!("{}_{}", prefix, out.len()));
        if !path.exists() {
            return Ok(out);
        }
        out.push(bpf::obj_get(&path).map_err(|e| {
            Error::Enable(format!(
                "cannot claim anonymous state ({}): {}",
                path.display(),
                e
            ))
        })?);
    }
}

/// The enabling pinned in `dir`, taken as the program `dt` compiled
/// would have made it.
fn claim(dt: &mut Dtrace, dir: &Path) -> Result<Running, Error> {
    let fail = |e: std::io::Error| Error::Enable(format!("cannot claim anonymous state: {}", e));
    let mismatch = |what: String| {
        Error::Enable(format!(
            "cannot claim anonymous state: it is not this enabling's ({})",
            what
        ))
    };
    let maps: Vec<Map> = pinned(dir, "map")?
        .into_iter()
        .map(Map::from_fd)
        .collect::<std::io::Result<_>>()
        .map_err(fail)?;
    let rings: Vec<RingBuf> = pinned(dir, "ring")?
        .into_iter()
        .map(|fd| Map::from_fd(fd).and_then(RingBuf::new))
        .collect::<std::io::Result<_>>()
        .map_err(fail)?;
    let Some(first) = rings.first() else {
        return Err(mismatch("no principal buffer".into()));
    };
    // The sizes the buffers were made with, which the code knows.
    let ring_size = first.map().max_entries();
    let specsize = maps
        .iter()
        .find(|m| m.name() == "dt_spec_buf")
        .map(|m| m.value_size());
    let (planned, gen) = load::generate_for(dt, ring_size, specsize)?;
    if gen.maps.len() != maps.len() {
        return Err(mismatch(format!(
            "{} maps pinned, the program has {}",
            maps.len(),
            gen.maps.len()
        )));
    }
    for (want, got) in gen.maps.iter().zip(&maps) {
        let same = match want.kind {
            MapKind::RingbufPerCpu | MapKind::Ringbuf | MapKind::TaskStorage => true,
            _ => want.key_size == got.key_size() && want.value_size == got.value_size(),
        };
        if !same {
            return Err(mismatch(format!("map {}", want.name)));
        }
    }
    // The programs' fds, for END's code.
    let fds: Vec<i32> = maps.iter().map(|m| m.as_raw_fd()).collect();
    let ring_fds: Vec<i32> = rings.iter().map(|r| r.map().as_raw_fd()).collect();
    let mut end = None;
    for p in &gen.programs {
        let pp = &planned.programs[p.plan];
        if !(pp.attach.run_by_consumer() && pp.plan.phase == Phase::End) {
            continue;
        }
        let linked = p.code.link(|m, part| match part {
            Some(cpu) => ring_fds.get(cpu as usize).copied().unwrap_or(-1),
            None => fds[m.0 as usize],
        });
        let bytes: Vec<u8> = linked.iter().flat_map(|i| i.encode()).collect();
        let ty = match pp.plan.kind {
            ProgKind::RawTracepoint => ProgType::RawTracepoint,
            _ => ProgType::Tracepoint,
        };
        let (attach_type, btf_id) = pp.attach.load_as(pp.plan.kind);
        end = Some(
            bpf::prog_load_btf(ty, &bytes, &pp.plan.name, attach_type, btf_id)
                .map_err(|e| Error::Enable(format!("failed to load END: {}", e)))?,
        );
    }
    let links: Vec<Link> = pinned(dir, "link")?.into_iter().map(Link::Fd).collect();
    // Held here now: the pins go, and with this process the enabling.
    std::fs::remove_dir_all(dir).map_err(fail)?;
    let poller = Poller::new().map_err(fail)?;
    for r in &rings {
        poller.add_edge(r.fd().as_raw_fd(), 0).map_err(fail)?;
    }
    Ok(Running::claimed(gen, maps, links, end, rings, poller))
}
