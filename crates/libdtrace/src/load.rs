//! Putting a generated program set into the kernel: creating maps, loading
//! and attaching programs, running BEGIN and END, and reading maps back
//! (state, drops, aggregations).

use std::os::fd::{AsRawFd, OwnedFd};
use std::time::Duration;

use dtrace_bpf::plan::{activity, drops, Generated, MapKind, Phase, ProgKind};
use dtrace_lang::ir::{Builtin, CKind};
use dtrace_providers::Attach;
use dtrace_sys::bpf::{self, MapType, ProgType};
use dtrace_sys::poll::Poller;
use dtrace_sys::ringbuf::RingBuf;

use crate::aggregate::{self, AggEntry};
use crate::{Dtrace, Error};

pub(crate) struct Running {
    pub(crate) gen: Generated,
    maps: Vec<OwnedFd>,
    _progs: Vec<OwnedFd>,
    _links: Vec<OwnedFd>,
    begin: Option<OwnedFd>,
    end: Option<OwnedFd>,
    pub(crate) ring: RingBuf,
    poller: Poller,
    watched: std::cell::RefCell<Vec<i32>>,
    pub(crate) ncpus: usize,
}

pub(crate) const PRIVILEGE: &str =
    "failed to initialize dtrace: DTrace requires additional privileges";

fn is_eperm(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc_eperm) if libc_eperm == 1 || libc_eperm == 13)
}

/// Generates, loads and attaches everything; tracing is INACTIVE after.
pub(crate) fn start(dt: &mut Dtrace) -> Result<Running, Error> {
    start_with(dt, true)
}

/// Plans and generates the programs of every enabled probe; `btf` says
/// whether kernel BTF may be read for the offsets some variables need.
pub(crate) fn generate(
    dt: &Dtrace,
    btf: bool,
) -> Result<(dtrace_providers::Planned, Generated, usize), Error> {
    let planned = dtrace_providers::plan(&dt.probes, &dt.enablings)?;
    let ncpus = dtrace_sys::cpus::possible_cpus();
    let mut opts = dtrace_bpf::plan::GenOptions {
        strsize: dt.opts.get("strsize").clamp(2, 1 << 16) as u32,
        bufsize: dt.opts.get("bufsize").max(4096) as u64,
        aggsize: dt.opts.get("aggsize").max(4096) as u64,
        dynvarsize: dt.opts.get("dynvarsize").max(4096) as u64,
        ncpus: ncpus as u32,
        ..Default::default()
    };
    let mut needs_btf = false;
    for c in &dt.clauses {
        dtrace_bpf::codegen::visit_clause_exprs(c, &mut |e| {
            if matches!(e.kind, CKind::Builtin(Builtin::Ppid | Builtin::Vtimestamp)) {
                needs_btf = true;
            }
        });
    }
    if needs_btf && btf {
        if let Ok(btf) = dtrace_sys::btf::Btf::load_vmlinux() {
            opts.task_real_parent = btf.member_path("task_struct", "real_parent").map(|x| x.0);
            opts.task_tgid = btf.member_path("task_struct", "tgid").map(|x| x.0);
            opts.task_sum_exec_runtime = btf
                .member_path("task_struct", "se.sum_exec_runtime")
                .map(|x| x.0);
        }
    }
    let plans: Vec<_> = planned.programs.iter().map(|p| p.plan.clone()).collect();
    let input = dtrace_bpf::Input {
        syms: &dt.syms,
        clauses: &dt.clauses,
        plans: &plans,
        error_clauses: &planned.error_clauses,
        opts: &opts,
    };
    // Code generation recurses as deep as the program nests.
    let gen = dtrace_lang::on_compile_stack(|| dtrace_bpf::generate(&input))
        .map_err(|e| Error::Enable(e.0))?;
    Ok((planned, gen, ncpus))
}

/// `start`, or with `attach` false only creates the maps and loads the
/// programs (the kernel verifier's verdict, for the fuzz driver).
pub(crate) fn start_with(dt: &mut Dtrace, attach: bool) -> Result<Running, Error> {
    let (planned, mut gen, ncpus) = generate(dt, true)?;

    // Maps.
    let mut maps = Vec::new();
    for m in &gen.maps {
        let (ty, key, value, entries) = match m.kind {
            MapKind::Ringbuf => (MapType::Ringbuf, 0, 0, m.max_entries),
            MapKind::Hash => (MapType::Hash, m.key_size, m.value_size, m.max_entries),
            MapKind::Array => (MapType::Array, m.key_size, m.value_size, m.max_entries),
            MapKind::PercpuHash => (MapType::PercpuHash, m.key_size, m.value_size, m.max_entries),
            MapKind::PercpuArray => (
                MapType::PercpuArray,
                m.key_size,
                m.value_size,
                m.max_entries,
            ),
        };
        let mut flags = 0;
        if m.readonly_prog {
            flags |= bpf::BPF_F_RDONLY_PROG;
        }
        if m.no_prealloc {
            flags |= bpf::BPF_F_NO_PREALLOC;
        }
        let fd = bpf::map_create(ty, key, value, entries, flags, &m.name).map_err(|e| {
            if is_eperm(&e) {
                Error::Privilege(PRIVILEGE.into())
            } else {
                Error::Enable(format!("failed to create BPF map '{}': {}", m.name, e))
            }
        })?;
        maps.push(fd);
    }
    let map = |id: dtrace_bpf::asm::MapId| &maps[id.0 as usize];

    // Read-only data: the wall-clock offset, then freeze.
    let at = gen.walltime_offset_at as usize;
    gen.rodata[at..at + 8].copy_from_slice(&dtrace_sys::realtime_offset_ns().to_ne_bytes());
    if let Some(ro) = gen
        .maps
        .iter()
        .position(|m| m.role == dtrace_bpf::plan::MapRole::Rodata)
    {
        let fd = &maps[ro];
        bpf::map_update(fd, &0u32.to_ne_bytes(), &gen.rodata, bpf::BPF_ANY)
            .and_then(|_| bpf::map_freeze(fd))
            .map_err(|e| Error::Enable(format!("failed to initialize read-only data: {}", e)))?;
    }
    for t in &gen.dispatch {
        for (k, v) in &t.entries {
            bpf::map_update(map(t.map), &k.to_ne_bytes(), v, bpf::BPF_ANY)
                .map_err(|e| Error::Enable(format!("failed to fill dispatch table: {}", e)))?;
        }
    }

    // Programs.
    let fds: Vec<i32> = maps.iter().map(|m| m.as_raw_fd()).collect();
    let mut progs = Vec::new();
    let mut links = Vec::new();
    let mut begin = None;
    let mut end = None;
    for p in &gen.programs {
        let pp = &planned.programs[p.plan];
        let linked = p.code.link(|m| fds[m.0 as usize]);
        let bytes: Vec<u8> = linked.iter().flat_map(|i| i.encode()).collect();
        let ty = match pp.plan.kind {
            ProgKind::Tracepoint => ProgType::Tracepoint,
            ProgKind::RawTracepoint => ProgType::RawTracepoint,
            ProgKind::PerfEvent => ProgType::PerfEvent,
        };
        // DTRACE_DEBUG=disasm shows every program as it is loaded.
        if std::env::var("DTRACE_DEBUG").is_ok_and(|v| v == "disasm") {
            eprintln!("{}:\n{}", pp.plan.name, p.code.disassemble());
        }
        let fd = bpf::prog_load(ty, &bytes, &pp.plan.name, 0).map_err(|e| {
            if is_eperm(&e.error) {
                Error::Privilege(PRIVILEGE.into())
            } else {
                let mut msg = format!(
                    "BPF program load for '{}' failed: {}",
                    pp.plan.name, e.error
                );
                if std::env::var_os("DTRACE_DEBUG").is_some() {
                    msg.push('\n');
                    msg.push_str(&p.code.disassemble());
                    msg.push_str(&e.log);
                } else if !e.log.is_empty() {
                    let tail: Vec<&str> = e.log.lines().rev().take(3).collect();
                    for l in tail.into_iter().rev() {
                        msg.push('\n');
                        msg.push_str(l);
                    }
                }
                Error::Enable(msg)
            }
        })?;
        match (&pp.attach, pp.plan.phase) {
            (Attach::TestRun, Phase::Begin) => begin = Some(fd),
            (Attach::TestRun, _) => end = Some(fd),
            (_, _) if !attach => progs.push(fd),
            (att, _) => {
                let l = dtrace_providers::attach(att, &fd, dt.probes.tracefs()).map_err(|e| {
                    if is_eperm(&e) {
                        Error::Privilege(PRIVILEGE.into())
                    } else {
                        Error::Enable(format!("failed to attach '{}': {}", pp.plan.name, e))
                    }
                })?;
                links.extend(l);
                progs.push(fd);
            }
        }
    }
    let rb_fd = maps[gen.buffer_map.0 as usize].try_clone()?;
    let rb_size = gen.maps[gen.buffer_map.0 as usize].max_entries as usize;
    let ring = RingBuf::new(rb_fd, rb_size)?;
    let poller = Poller::new()?;
    poller.add(ring.fd().as_raw_fd(), 0)?;
    Ok(Running {
        gen,
        maps,
        _progs: progs,
        _links: links,
        begin,
        end,
        ring,
        poller,
        watched: std::cell::RefCell::new(Vec::new()),
        ncpus,
    })
}

impl Running {
    fn state_fd(&self) -> &OwnedFd {
        &self.maps[self.gen.state_map.0 as usize]
    }

    pub(crate) fn activity(&self) -> u32 {
        let size = self.gen.maps[self.gen.state_map.0 as usize].value_size as usize;
        let mut v = vec![0u8; size];
        match bpf::map_lookup(self.state_fd(), &0u32.to_ne_bytes(), &mut v) {
            Ok(true) => u32::from_ne_bytes([v[0], v[1], v[2], v[3]]),
            _ => activity::INACTIVE,
        }
    }

    pub(crate) fn set_activity(&self, a: u32) -> Result<(), Error> {
        let size = self.gen.maps[self.gen.state_map.0 as usize].value_size as usize;
        let mut v = vec![0u8; size];
        let _ = bpf::map_lookup(self.state_fd(), &0u32.to_ne_bytes(), &mut v);
        v[0..4].copy_from_slice(&a.to_ne_bytes());
        bpf::map_update(self.state_fd(), &0u32.to_ne_bytes(), &v, bpf::BPF_ANY)?;
        Ok(())
    }

    /// Waits for data on the ring buffer or any of `extra` descriptors.
    pub(crate) fn wait(&self, timeout: Duration, extra: &[i32]) -> std::io::Result<()> {
        {
            let mut w = self.watched.borrow_mut();
            for &fd in extra {
                if !w.contains(&fd) {
                    self.poller.add(fd, 1 + fd as u64)?;
                    w.push(fd);
                }
            }
        }
        self.poller.wait(timeout).map(|_| ())
    }

    /// Per-CPU drop counters: principal, aggregation, dynamic, error.
    pub(crate) fn read_drops(&self) -> std::io::Result<Vec<[u64; 4]>> {
        let stride = drops::SIZE as usize;
        let mut buf = vec![0u8; stride * self.ncpus];
        bpf::map_lookup(
            &self.maps[self.gen.drops_map.0 as usize],
            &0u32.to_ne_bytes(),
            &mut buf,
        )?;
        Ok((0..self.ncpus)
            .map(|c| {
                let w = |i: usize| {
                    let o = c * stride + 8 * i;
                    u64::from_ne_bytes(buf[o..o + 8].try_into().expect("8 bytes"))
                };
                [w(0), w(1), w(2), w(3)]
            })
            .collect())
    }

    fn agg_fd(&self, id: usize) -> &OwnedFd {
        &self.maps[self.gen.aggs[id].map.0 as usize]
    }

    pub(crate) fn snapshot(&self, id: usize) -> Result<Vec<AggEntry>, Error> {
        Ok(aggregate::snapshot(
            self.agg_fd(id),
            &self.gen.aggs[id],
            self.ncpus,
        )?)
    }

    /// clear(): zeroes every value of aggregation `id`, keeping its keys.
    pub(crate) fn clear_agg(&self, id: usize) -> Result<(), Error> {
        let l = &self.gen.aggs[id];
        let zero = vec![0u8; ((l.value_size as usize + 7) & !7) * self.ncpus];
        for e in self.snapshot(id)? {
            bpf::map_update(self.agg_fd(id), &e.raw_key, &zero, 2)?;
        }
        Ok(())
    }

    /// trunc(): keeps the `n` entries with the highest values (lowest for
    /// negative `n`), or none.
    pub(crate) fn trunc_agg(&self, id: usize, n: Option<i64>) -> Result<(), Error> {
        let mut snap = self.snapshot(id)?;
        let keep = n.unwrap_or(0);
        snap.sort_by(|a, b| {
            let o = b.value.scalar().cmp(&a.value.scalar());
            if keep < 0 {
                o.reverse()
            } else {
                o
            }
        });
        for e in snap.iter().skip(keep.unsigned_abs() as usize) {
            bpf::map_delete(self.agg_fd(id), &e.raw_key)?;
        }
        Ok(())
    }
}

/// Runs BEGIN, then lets every other probe fire.
pub(crate) fn fire_begin(dt: &mut Dtrace) -> Result<(), Error> {
    let r = dt.running.as_ref().expect("started");
    r.set_activity(activity::WARMUP)?;
    if let Some(b) = &r.begin {
        bpf::prog_test_run(b, &[], None)
            .map_err(|e| Error::Enable(format!("failed to fire BEGIN: {}", e)))?;
    }
    if r.activity() == activity::WARMUP {
        r.set_activity(activity::ACTIVE)?;
    }
    Ok(())
}

/// Stops every probe but END, then runs END.
pub(crate) fn fire_end(dt: &mut Dtrace) -> Result<(), Error> {
    let r = dt.running.as_ref().expect("started");
    r.set_activity(activity::COOLDOWN)?;
    if let Some(e) = &r.end {
        bpf::prog_test_run(e, &[], None)
            .map_err(|e| Error::Enable(format!("failed to fire END: {}", e)))?;
    }
    r.set_activity(activity::STOPPED)?;
    Ok(())
}

/// True if a clause called exit().
pub(crate) fn exit_requested(dt: &Dtrace) -> bool {
    dt.running
        .as_ref()
        .is_some_and(|r| r.activity() == activity::DRAINING)
}
