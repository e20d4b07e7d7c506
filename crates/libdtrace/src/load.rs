//! Putting a generated program set into the kernel: creating maps, loading
//! and attaching programs, running BEGIN and END, and reading maps back
//! (state, drops, aggregations).
//!
//! Before anything is loaded, a program with a destructive action is
//! refused unless `destructive` (`-w`) is set, and a clause whose record
//! cannot fit the buffer is DTrace's "Enabling exceeds size of buffer".
//! The principal and speculative buffers are made before the programs,
//! whose code knows their sizes (`Premade`; the principal ones begun
//! while the program compiles, `Warm`), their memory reckoned against
//! `MemAvailable` first (`fit_budget`: halved under `bufresize=auto`,
//! refused under `manual`). Set-up asks between steps whether to give up
//! (`Dtrace::go_until`), closing what it made. A verifier refusal is
//! reported with the verifier's reason (`load_error`). BEGIN and END are
//! test runs of their programs. At the end, links are closed side by side
//! on many threads (`Running`'s drop), so the kernel's grace-period
//! waits overlap.

use std::io::Write;
use std::os::fd::{AsRawFd, OwnedFd};

use dtrace_sys::bpf::{LoadError, Map};
use std::time::{Duration, Instant};

use dtrace_bpf::plan::{activity, BufferPolicy, Generated, MapKind, Phase, ProgKind, UserRegs};
use dtrace_lang::ir::{Builtin, CKind};
use dtrace_sys::bpf::{self, MapType, ProgType};
use dtrace_sys::poll::Poller;
use dtrace_sys::ringbuf::RingBuf;

use dtrace_providers::attach::Link;

use crate::aggregate::{self, AggEntry};
use crate::options::{BufPolicy, BufResize, Opt};
use crate::{Dtrace, Error};

pub(crate) struct Running {
    pub(crate) gen: Generated,
    /// Shared with the metrics endpoint's thread (`metrics.rs`), which
    /// reads the aggregation and drop maps at scrape time.
    pub(crate) maps: std::sync::Arc<Vec<Map>>,
    _progs: Vec<OwnedFd>,
    pub(crate) _links: Vec<Link>,
    begin: Option<OwnedFd>,
    end: Option<OwnedFd>,
    /// The principal buffers, by CPU.
    pub(crate) rings: Vec<RingBuf>,
    poller: Poller,
    watched: std::cell::RefCell<Vec<i32>>,
    /// The streamed aggregations' rows (`streamed.rs`).
    /// Shared with the metrics endpoint's thread, which locks them only
    /// to copy a scrape's rows.
    pub(crate) streamed: std::sync::Arc<std::sync::Mutex<crate::streamed::Tables>>,
    /// Runtime errors reported (ERROR probe firings), for the metrics
    /// endpoint.
    pub(crate) errors: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Drop for Running {
    /// Detaches every probe. Closing a perf-event tracepoint waits for an
    /// RCU grace period (tens of milliseconds); closed one after another,
    /// a program of many would wait for each in turn, so they are closed
    /// side by side, up to `CLOSERS` at once on threads of small stacks,
    /// and the waits overlap. (Uprobe events do not overlap: the kernel
    /// closes them one at a time, about 80 ms each here.)
    fn drop(&mut self) {
        crate::usym::unwatch_mappings();
        let links = std::mem::take(&mut self._links);
        if links.len() < 2 {
            return;
        }
        const CLOSERS: usize = 256;
        let per = links.len().div_ceil(CLOSERS);
        let mut links = links.into_iter();
        std::thread::scope(|s| loop {
            let chunk: Vec<Link> = links.by_ref().take(per).collect();
            if chunk.is_empty() {
                break;
            }
            // Without a thread, the chunk closes here (the builder hands
            // the closure back only by dropping it, which closes it).
            let _ = std::thread::Builder::new()
                .stack_size(64 << 10)
                .spawn_scoped(s, move || drop(chunk));
        });
    }
}

pub(crate) const PRIVILEGE: &str =
    "failed to initialize dtrace: DTrace requires additional privileges";

fn is_eperm(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc_eperm) if libc_eperm == 1 || libc_eperm == 13)
}

/// Generates, loads and attaches everything; tracing is INACTIVE after.
/// `cancelled` is asked between steps: when it says yes, everything made
/// so far is closed and the set-up ends with [`Error::Cancelled`].
pub(crate) fn start(dt: &mut Dtrace, cancelled: &dyn Fn() -> bool) -> Result<Running, Error> {
    start_with(dt, true, cancelled)
}

/// `generate` for buffers made already, of `ring_size` bytes each and
/// speculation buffers of `specsize` (anonymous state being claimed).
pub(crate) fn generate_for(
    dt: &mut Dtrace,
    ring_size: u32,
    specsize: Option<u32>,
) -> Result<(dtrace_providers::Planned, Generated), Error> {
    dt.premade = Some(Premade {
        rings: Vec::new(),
        filled: None,
        ring_size,
        spec_buf: None,
        specsize: specsize.unwrap_or_else(|| requested_specsize(dt).min(4 << 20)),
    });
    let made = generate(dt, true);
    dt.premade = None;
    let (planned, gen, _) = made?;
    Ok((planned, gen))
}

/// Plans and generates the programs of every enabled probe; `btf` says
/// whether kernel BTF may be read for the offsets some variables need.
pub(crate) fn generate(
    dt: &Dtrace,
    btf: bool,
) -> Result<(dtrace_providers::Planned, Generated, usize), Error> {
    let mut planned = dtrace_providers::plan(&dt.probes, &dt.enablings)?;
    // A program that runs clauses deferred from a system call's entry
    // (`dtrace_bpf::program::defer`) is only for clauses that read user
    // memory: without one, it goes.
    planned.drop_idle_deferred(|ci| {
        dt.clauses
            .get(ci)
            .is_some_and(dtrace_bpf::codegen::reads_user)
    });
    // A probe that is one case of its hook has the provider's condition,
    // a D library inline, compiled into its program (against a copy of
    // the symbols, which the code generator then uses).
    let mut guard_syms: Option<dtrace_lang::Symbols> = None;
    for p in &mut planned.programs {
        let [e] = p.plan.probes.as_slice() else {
            continue;
        };
        let conds = dt.probes.probe_guard(e.probe.id);
        if conds.is_empty() {
            continue;
        }
        let syms = guard_syms.get_or_insert_with(|| dt.syms.clone());
        let g = dtrace_lang::guard_expr(syms, &conds).map_err(|err| {
            Error::Enable(format!(
                "probe {}:{}:{}:{} cannot be enabled: {}",
                e.probe.provider, e.probe.module, e.probe.function, e.probe.name, err.msg
            ))
        })?;
        p.plan.guard = Some(g);
    }
    // Arrays indexed by CPU number need one more entry than the highest
    // possible CPU.
    let ncpus = dtrace_sys::cpus::cpu_id_limit()
        .map_err(|e| Error::Enable(format!("cannot size per-CPU data: {}", e)))?;
    let mut opts = dtrace_bpf::plan::GenOptions {
        // Sizes the kernel has made smaller (`bufresize=auto`) rule.
        // strsize and nspec are within their ranges (options.rs).
        strsize: dt.opts.strsize,
        ustackbytes: dt.opts.ustackbytes,
        scratchsize: dtrace_lang::types::round_scratch(dt.opts.scratchsize),
        bufsize: dt.opts.bufsize.max(4096),
        aggsize: dt.opts.aggsize.max(4096),
        dynvarsize: dt.opts.dynvarsize.max(4096),
        ncpus,
        only_cpu: only_cpu(dt)?,
        // With a switch rate of its own the consumer reads at that rate;
        // otherwise it is woken as records arrive.
        wakeup: !dt.opts.is_set(Opt::switchrate),
        nspec: dt.opts.nspec,
        specsize: requested_specsize(dt),
        policy: match dt.opts.bufpolicy {
            BufPolicy::Switch => BufferPolicy::Switch,
            BufPolicy::Fill => BufferPolicy::Fill,
            BufPolicy::Ring => BufferPolicy::Ring,
        },
        kernel: kernel_caps(dtrace_sys::features::Features::get()),
        // The histograms' `_sum` (metrics.rs).
        dist_sums: dt.opts.metrics.is_some(),
        ..Default::default()
    };
    if let Some(p) = &dt.premade {
        opts.bufsize = u64::from(p.ring_size);
        opts.specsize = p.specsize;
    }
    // A probe that fires on behalf of another task (sched:::on-cpu)
    // reads every task built-in through task_struct.
    let mut needs_btf = planned.programs.iter().any(|p| {
        matches!(
            p.plan.context,
            dtrace_bpf::plan::ArgContext::RawArgs { task: Some(_), .. }
        )
    });
    let mut uregs = false;
    for c in &dt.clauses {
        dtrace_bpf::codegen::visit_clause_exprs(c, &mut |e| {
            if matches!(
                e.kind,
                CKind::Builtin(Builtin::Ppid | Builtin::Vtimestamp) | CKind::Progenyof(_)
            ) {
                needs_btf = true;
            }
            // ustack() starts from the user registers too, and reads
            // where the main thread's stack began.
            uregs |= matches!(
                e.kind,
                CKind::Builtin(Builtin::Uregs) | CKind::UStack { .. }
            );
            needs_btf |= matches!(e.kind, CKind::UStack { .. });
        });
    }
    if uregs && btf && matches!(opts.kernel.user_regs, UserRegs::Unknown(_)) {
        if let Some(r) = dtrace_sys::btf::Btf::vmlinux()
            .ok()
            .and_then(|b| user_regs_on_stack(&b))
        {
            opts.kernel.user_regs = r;
        }
    }
    if needs_btf && btf {
        if let Ok(btf) = dtrace_sys::btf::Btf::vmlinux() {
            let at = |s: &str, path: &str| btf.member_path(s, path).map(|x| x.0);
            opts.task = dtrace_bpf::plan::TaskOffsets {
                real_parent: at("task_struct", "real_parent"),
                tgid: at("task_struct", "tgid"),
                pid: at("task_struct", "pid"),
                comm: at("task_struct", "comm"),
                cred: at("task_struct", "cred"),
                cred_uid: at("cred", "uid.val"),
                cred_gid: at("cred", "gid.val"),
                sum_exec_runtime: at("task_struct", "se.sum_exec_runtime"),
                mm: at("task_struct", "mm"),
                mm_start_stack: at("mm_struct", "start_stack"),
            };
        }
    }
    let iterates = dt.clauses.iter().any(dtrace_bpf::codegen::uses_iterators);
    if iterates && !btf {
        // Code generation only (nothing is loaded): stand-in ids, so the
        // whole program is generated.
        opts.iter_num = Some(dtrace_bpf::plan::IterNumKfuncs {
            new: 1,
            next: 2,
            destroy: 3,
        });
    } else if iterates && dtrace_sys::features::Features::get().iter_num {
        if let Ok(btf) = dtrace_sys::btf::Btf::vmlinux() {
            let id = |n: &str| btf.find_func(n);
            if let (Some(new), Some(next), Some(destroy)) = (
                id("bpf_iter_num_new"),
                id("bpf_iter_num_next"),
                id("bpf_iter_num_destroy"),
            ) {
                opts.iter_num = Some(dtrace_bpf::plan::IterNumKfuncs { new, next, destroy });
            }
        }
    }
    let plans: Vec<_> = planned.programs.iter().map(|p| p.plan.clone()).collect();
    let input = dtrace_bpf::Input {
        syms: guard_syms.as_ref().unwrap_or(&dt.syms),
        clauses: &dt.clauses,
        plans: &plans,
        error_clauses: &planned.error_clauses,
        opts: &opts,
    };
    // Code generation recurses as deep as the program nests.
    let gen = dtrace_lang::on_compile_stack(|| dtrace_bpf::generate(&input))
        .map_err(|e| Error::Enable(e.0))?;
    Ok((planned, gen, ncpus as usize))
}

/// Every clause's record must fit the per-CPU buffer size (and the ring
/// buffer, with its 8-byte record header): a record that cannot fit would
/// be dropped every time, and with it the clause's `exit()`. DTrace refuses
/// such an enabling in the same words.
fn fits_buffer(dt: &Dtrace, gen: &Generated) -> Result<(), Error> {
    let bufsize = dt.opts.bufsize.max(4096);
    let ring = gen
        .maps
        .iter()
        .find(|m| m.role == dtrace_bpf::plan::MapRole::Buffer)
        .map_or(u64::MAX, |m| u64::from(m.value_size));
    let needed = gen
        .clauses
        .iter()
        .map(|c| u64::from(c.size))
        .max()
        .unwrap_or(0);
    if needed > bufsize || needed + 8 > ring {
        return Err(Error::Enable("Enabling exceeds size of buffer".into()));
    }
    // So must one aggregation entry fit `aggsize`, and one associative
    // array element (its key and value) fit `dynvarsize`.
    use dtrace_bpf::plan::MapRole;
    for m in &gen.maps {
        let (space, entry) = match m.role {
            MapRole::Aggregation(_) | MapRole::AggregationKeys(_) => {
                (dt.opts.aggsize, m.key_size + m.value_size)
            }
            // Keyless: the aggregation's id stands for its key.
            MapRole::AggregationSlots => (dt.opts.aggsize, 8 + m.value_size),
            // (Thread-locals are not held to it: DTrace keeps them in
            // no less than one chunk whatever the size.)
            MapRole::Array(_) | MapRole::ArrayKeys(_) => {
                (dt.opts.dynvarsize, m.key_size + m.value_size)
            }
            _ => continue,
        };
        if space < u64::from(entry) {
            return Err(Error::Enable("Enabling exceeds size of buffer".into()));
        }
    }
    // The fill policy keeps END's records' room free in every buffer.
    if dt.opts.bufpolicy == BufPolicy::Fill && gen.end_reserve > bufsize.min(ring) {
        return Err(Error::Enable(
            "END enablings exceed size of principal buffer".into(),
        ));
    }
    Ok(())
}

/// `specsize` as asked (within its range, options.rs), whole words.
fn requested_specsize(dt: &Dtrace) -> u32 {
    dt.opts.specsize / 8 * 8
}

/// Buffers the kernel may refuse at the size asked, made before the
/// programs (whose code knows their sizes): the principal buffers and
/// the speculative buffers. Under `bufresize=auto` (the default) a
/// refused size is halved until one is accepted, and the handle notes
/// what was lowered; under `manual` a refusal is an error.
pub(crate) struct Premade {
    rings: Vec<RingBuf>,
    /// The array of maps holding `rings`, already filled, when they were
    /// made ahead (`Warm`).
    filled: Option<Map>,
    pub(crate) ring_size: u32,
    spec_buf: Option<Map>,
    pub(crate) specsize: u32,
}

/// Makes a buffer with `make(size)`, halving `size` (not below `least`)
/// on each refusal for want of room under `bufresize=auto`.
fn with_halving<T>(
    auto: bool,
    mut size: u64,
    least: u64,
    mut make: impl FnMut(u64) -> std::io::Result<T>,
) -> Result<(T, u64), Error> {
    // ENOMEM, and E2BIG for a size the kernel never allows.
    let no_room = |e: &std::io::Error| matches!(e.raw_os_error(), Some(12) | Some(7));
    loop {
        match make(size) {
            Ok(t) => return Ok((t, size)),
            Err(e) if is_eperm(&e) => return Err(Error::Privilege(PRIVILEGE.into())),
            Err(e) if no_room(&e) && auto && size / 2 >= least => size /= 2,
            Err(e) if no_room(&e) => return Err(Error::Enable("Not enough space".into())),
            Err(e) => return Err(Error::Enable(format!("failed to create a buffer: {}", e))),
        }
    }
}

/// The principal buffers' size as the options ask it: `bufsize`, a
/// power of two of at least a page (a BPF ring buffer's shape).
fn requested_bufsize(dt: &Dtrace) -> u64 {
    dt.opts.bufsize.max(4096).next_power_of_two().min(1 << 62)
}

/// Kernel memory for buffers from this much on is said when tracing
/// starts (`Session::notices`).
const LARGE_MEMORY: u64 = 1 << 30;

/// The memory BPF maps of user-chosen sizes may take: what the kernel
/// says is available now (no limit if it cannot say).
fn memory_budget() -> u64 {
    dtrace_sys::cpus::mem_available().unwrap_or(u64::MAX)
}

/// `size` halved (not below `least`) until `count` of it fit in
/// `budget`, under `bufresize=auto`; under `manual`, or when even the
/// least does not fit, DTrace's "Not enough space" with the figures.
fn fit_budget(
    what: &str,
    size: u64,
    least: u64,
    count: u64,
    budget: u64,
    auto: bool,
) -> Result<u64, Error> {
    let total = |s: u64| s.saturating_mul(count);
    let mut fit = size;
    while auto && total(fit) > budget && fit / 2 >= least {
        fit /= 2;
    }
    if total(fit) > budget {
        return Err(Error::Enable(format!(
            "Not enough space: {} {} of {} ({} in all) exceed the {} of memory available",
            count,
            what,
            size_text(size),
            size_text(total(size)),
            about_size(budget)
        )));
    }
    Ok(fit)
}

/// A large size in bytes roughly, in its largest unit, to a tenth
/// (`19.3g`): the memory a machine has is no round figure.
fn about_size(n: u64) -> String {
    for (shift, unit) in [(40, 't'), (30, 'g'), (20, 'm'), (10, 'k')] {
        if n >> shift > 0 {
            return if n & ((1 << shift) - 1) == 0 {
                format!("{}{}", n >> shift, unit)
            } else {
                format!("{:.1}{}", n as f64 / (1u64 << shift) as f64, unit)
            };
        }
    }
    n.to_string()
}

/// A size in bytes as dtrace(1M) writes one (`4m`, `1536`).
fn size_text(n: u64) -> String {
    crate::options::size_text(i64::try_from(n).unwrap_or(i64::MAX))
}

/// The principal buffers' shape under the options set now: the size
/// asked of each (lowered to what the machine's memory holds under
/// `bufresize=auto`), whether a refused size is halved, how many.
fn ring_shape(dt: &Dtrace) -> Result<(u64, bool, u32), Error> {
    let ncpus = dtrace_sys::cpus::cpu_id_limit()
        .map_err(|e| Error::Enable(format!("cannot size per-CPU data: {}", e)))?;
    let auto = dt.opts.bufresize == BufResize::Auto;
    let asked = fit_budget(
        "principal buffers",
        requested_bufsize(dt),
        4096,
        u64::from(ncpus),
        memory_budget(),
        auto,
    )?;
    Ok((asked, auto, ncpus))
}

/// A ring buffer of `asked` bytes (halved as `auto` allows) for each of
/// `ncpus` CPUs, mapped for reading, and the size made.
fn make_rings(auto: bool, asked: u64, ncpus: u32) -> Result<(Vec<RingBuf>, u64), Error> {
    with_halving(auto, asked, 4096, |size| {
        let size = u32::try_from(size).map_err(|_| std::io::Error::from_raw_os_error(7))?;
        rings_in_parallel(size, ncpus as usize)
    })
}

/// `n` ring buffers of `size` bytes, mapped. The kernel gives each its
/// pages and maps them twice over, and mapping them here does as much
/// again: a millisecond or more per 4 MB buffer, the longest step of a
/// one-liner's start. Threads share the work, one for each CPU to run
/// them on (a few at most), each making the rings of every
/// `workers`th CPU.
fn rings_in_parallel(size: u32, n: usize) -> std::io::Result<Vec<RingBuf>> {
    let make = |_| -> std::io::Result<RingBuf> {
        RingBuf::new(Map::create(MapType::Ringbuf, 0, 0, size, 0, "dt_buffer")?)
    };
    let workers = std::thread::available_parallelism()
        .map_or(1, |p| p.get())
        .clamp(1, 4)
        .min(n);
    if workers <= 1 {
        return (0..n).map(make).collect();
    }
    // Worker w makes the rings of CPUs w, w + workers, ...; this thread
    // is worker 0.
    let share =
        |w: usize| -> Vec<std::io::Result<RingBuf>> { (w..n).step_by(workers).map(make).collect() };
    let shares: Vec<Vec<std::io::Result<RingBuf>>> = std::thread::scope(|s| {
        let others: Vec<_> = (1..workers).map(|w| s.spawn(move || share(w))).collect();
        let mut all = vec![share(0)];
        for h in others {
            all.push(h.join().unwrap_or_default());
        }
        all
    });
    let mut shares: Vec<_> = shares.into_iter().map(Vec::into_iter).collect();
    (0..n)
        .map(|cpu| {
            shares[cpu % workers]
                .next()
                .unwrap_or_else(|| Err(std::io::Error::other("a buffer was not made")))
        })
        .collect()
}

/// Principal buffers being made ahead, while the program compiles, for
/// the options set when they were started (`Dtrace::prepare`): the ring
/// buffer of each CPU and, on a machine whose programs do not choose
/// theirs in code, the array of maps that holds them, filled.
pub(crate) struct Warm {
    shape: (u64, bool, u32),
    /// The rings and the array, once made (before it is filled).
    made: std::sync::mpsc::Receiver<Result<WarmRings, Error>>,
    /// The thread, which then fills the array (see [`until_filled`]).
    thread: std::thread::JoinHandle<Result<(), Error>>,
}

/// Rings made ahead: each CPU's, the size made, the array of maps (if
/// one is needed).
type WarmRings = (Vec<RingBuf>, u64, Option<Map>);

/// Starts making the principal buffers on a thread.
pub(crate) fn warm_up(dt: &Dtrace) -> Option<Warm> {
    let shape = ring_shape(dt).ok()?;
    let (asked, auto, ncpus) = shape;
    let (tx, made) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        let fail = |e: std::io::Error| Error::Enable(format!("failed to create a buffer: {}", e));
        type Fill = Option<(Map, Vec<Map>)>;
        let make = || -> Result<(WarmRings, Fill), Error> {
            let (rings, size) = make_rings(auto, asked, ncpus)?;
            if dtrace_bpf::plan::rings_chosen_in_code(ncpus) {
                return Ok(((rings, size, None), None));
            }
            let first = rings
                .first()
                .ok_or_else(|| Error::Enable("no CPU to make a buffer for".into()))?;
            let outer = Map::create_array_of_maps(first.map(), ncpus, "dt_buffer").map_err(fail)?;
            let o = outer.try_clone().map_err(fail)?;
            let i = rings
                .iter()
                .map(|r| r.map().try_clone())
                .collect::<std::io::Result<Vec<_>>>()
                .map_err(fail)?;
            Ok(((rings, size, Some(outer)), Some((o, i))))
        };
        match make() {
            Ok((warm, fill)) => {
                let _ = tx.send(Ok(warm));
                match fill {
                    Some((o, i)) => o.set_maps(&i.iter().collect::<Vec<_>>()).map_err(fail),
                    None => Ok(()),
                }
            }
            Err(e) => {
                let _ = tx.send(Err(e));
                Ok(())
            }
        }
    });
    Some(Warm {
        shape,
        made,
        thread,
    })
}

/// Waits until the `n` elements of array of maps `outer` are set by
/// `setter`, a thread filling it. The kernel sets them at once, then
/// waits for an RCU grace period (about 13 ms here) before the system
/// call returns, for programs that might hold the old elements: none
/// can, since nothing is attached yet, so tracing goes on as soon as the
/// elements read back, and the thread ends alone.
fn until_filled(
    outer: &Map,
    n: u32,
    setter: std::thread::JoinHandle<Result<(), Error>>,
) -> Result<(), Error> {
    let filled = || {
        let mut id = [0u8; 4];
        (0..n).all(|k| outer.lookup(&k.to_ne_bytes(), &mut id).unwrap_or(false))
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if filled() {
            return Ok(());
        }
        if setter.is_finished() || Instant::now() > deadline {
            setter
                .join()
                .map_err(|_| Error::Enable("failed to fill the principal buffers".into()))??;
            return if filled() {
                Ok(())
            } else {
                Err(Error::Enable("failed to fill the principal buffers".into()))
            };
        }
        std::thread::sleep(Duration::from_micros(20));
    }
}

fn premake(dt: &mut Dtrace) -> Result<Premade, Error> {
    let (asked, auto, ncpus) = ring_shape(dt)?;
    dt.lowered.clear();
    dt.notices.clear();
    dt.refused_places.clear();
    // Buffers made ahead for these very options are taken; others (the
    // program's pragmas changed the options, or making them failed) are
    // dropped and the buffers made here, where a failure is reported.
    let warm = dt
        .warm
        .take()
        .filter(|w| w.shape == (asked, auto, ncpus))
        .and_then(|w| {
            let made = w.made.recv().ok()?.ok()?;
            match &made.2 {
                Some(outer) => until_filled(outer, ncpus, w.thread).ok()?,
                None => w.thread.join().ok()?.ok()?,
            }
            Some(made)
        });
    let ((rings, ring_size), filled) = match warm {
        Some((rings, size, outer)) => ((rings, size), outer),
        None => (make_rings(auto, asked, ncpus)?, None),
    };
    if ring_size < requested_bufsize(dt) {
        dt.lowered.push(("buffer size", ring_size));
    }
    let specs = dt.clauses.iter().any(|c| c.uses_speculations());
    let asked = u64::from(requested_specsize(dt));
    let (spec_buf, specsize) = if specs {
        // nspec is within its range (options.rs): no clamp here.
        let nspec = dt.opts.nspec;
        let entries = nspec.saturating_mul(ncpus).max(1);
        // What the machine's memory holds beside the principal buffers,
        // checked before anything is made (a preallocated array of
        // nspec x CPUs buffers can take gigabytes).
        let left = memory_budget().saturating_sub(ring_size.saturating_mul(u64::from(ncpus)));
        let what = format!("speculation buffers (nspec {} on {} CPUs)", nspec, ncpus);
        let fit = fit_budget(&what, asked, 64, u64::from(entries), left, auto)?;
        let (m, size) = with_halving(auto, fit, 64, |size| {
            let size = u32::try_from(size).map_err(|_| std::io::Error::from_raw_os_error(7))?;
            Map::create(MapType::Array, 4, size, entries, 0, "dt_spec_buf")
        })?;
        (Some(m), size)
    } else {
        (None, asked.min(4 << 20))
    };
    if specs && specsize < asked {
        dt.lowered.push(("speculation size", specsize));
    }
    // Kernel memory on a scale the user may not expect is said.
    if specs {
        let entries = u64::from(dt.opts.nspec).saturating_mul(u64::from(ncpus));
        let total = specsize.saturating_mul(entries);
        if total >= LARGE_MEMORY {
            dt.notices.push(format!(
                "speculation buffers take {} of kernel memory (nspec {} x {} CPUs x {})",
                about_size(total),
                dt.opts.nspec,
                ncpus,
                size_text(specsize)
            ));
        }
    }
    Ok(Premade {
        rings,
        filled,
        ring_size: ring_size as u32,
        spec_buf,
        specsize: specsize as u32,
    })
}

/// `start`, or with `attach` false only creates the maps and loads the
/// programs (the kernel verifier's verdict, for the fuzz driver).
pub(crate) fn start_with(
    dt: &mut Dtrace,
    attach: bool,
    cancelled: &dyn Fn() -> bool,
) -> Result<Running, Error> {
    let check = || {
        if cancelled() {
            Err(Error::Cancelled)
        } else {
            Ok(())
        }
    };
    check()?;
    // Destructive actions run only when the user has said so (`-w`).
    if !dt.opts.destructive
        && dt
            .enablings
            .iter()
            .any(|e| dt.clauses.get(e.clause).is_some_and(|c| c.destructive()))
    {
        return Err(Error::Enable("Destructive actions not allowed".into()));
    }
    dt.premade = Some(premake(dt)?);
    crate::phase::mark("buffers");
    let (planned, mut gen, _) = generate(dt, true)?;
    crate::phase::mark("generated");
    fits_buffer(dt, &gen)?;
    let mut premade = dt.premade.take().expect("made above");

    // Maps.
    let mut maps = Vec::new();
    let mut rings = Vec::new();
    let mut ring_setter = None;
    // Each CPU's ring, for programs that choose theirs in code.
    let mut ring_fds: Vec<i32> = Vec::new();
    for m in &gen.maps {
        check()?;
        if m.kind == MapKind::RingbufPerCpu {
            // A ring buffer per CPU, in an array of maps by CPU.
            let fail = |e: std::io::Error| {
                if is_eperm(&e) {
                    Error::Privilege(PRIVILEGE.into())
                } else {
                    Error::Enable(format!("failed to create BPF map '{}': {}", m.name, e))
                }
            };
            let inner = std::mem::take(&mut premade.rings);
            if inner.is_empty() {
                return Err(Error::Enable("no CPU to make a buffer for".into()));
            }
            if dtrace_bpf::plan::rings_chosen_in_code(m.max_entries)
                && inner.len() as u32 == m.max_entries
            {
                // Named in the programs: the map's own place holds the
                // first ring, which no program names.
                maps.push(inner[0].map().try_clone().map_err(fail)?);
                ring_fds.extend(inner.iter().map(|r| r.map().as_raw_fd()));
                rings.extend(inner);
                continue;
            }
            if let Some(outer) = premade
                .filled
                .take()
                .filter(|o| o.max_entries() == m.max_entries && inner.len() as u32 == m.max_entries)
            {
                // Made ahead, and filled already.
                rings.extend(inner);
                maps.push(outer);
                continue;
            }
            let outer =
                Map::create_array_of_maps(inner[0].map(), m.max_entries, &m.name).map_err(fail)?;
            // Filling a map of maps waits for an RCU grace period: it is
            // done beside the loading of the programs, which cannot reach
            // a buffer before BEGIN has run, and waited for before
            // tracing starts.
            let (o, i) = (
                outer.try_clone().map_err(fail)?,
                inner
                    .iter()
                    .map(|r| r.map().try_clone())
                    .collect::<std::io::Result<Vec<_>>>()
                    .map_err(fail)?,
            );
            let name = m.name.clone();
            let n = m.max_entries;
            let setter = std::thread::spawn(move || {
                o.set_maps(&i.iter().collect::<Vec<_>>()).map_err(|e| {
                    Error::Enable(format!("failed to create BPF map '{}': {}", name, e))
                })
            });
            ring_setter = Some((outer.try_clone().map_err(fail)?, n, setter));
            rings.extend(inner);
            maps.push(outer);
            continue;
        }
        if m.role == dtrace_bpf::plan::MapRole::SpecBuf {
            if let Some(b) = premade.spec_buf.take() {
                maps.push(b);
                continue;
            }
        }
        let made = if m.kind == MapKind::TaskStorage {
            Map::create_task_storage(m.value_size, &m.name)
        } else {
            let (ty, key, value, entries) = match m.kind {
                MapKind::TaskStorage => unreachable!("made above"),
                MapKind::Ringbuf => (MapType::Ringbuf, 0, 0, m.max_entries),
                MapKind::RingbufPerCpu => unreachable!("made above"),
                MapKind::Hash => (MapType::Hash, m.key_size, m.value_size, m.max_entries),
                MapKind::LruHash => (MapType::LruHash, m.key_size, m.value_size, m.max_entries),
                MapKind::Array => (MapType::Array, m.key_size, m.value_size, m.max_entries),
                MapKind::PercpuHash => {
                    (MapType::PercpuHash, m.key_size, m.value_size, m.max_entries)
                }
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
            Map::create(ty, key, value, entries, flags, &m.name)
        };
        let fd = made.map_err(|e| {
            if is_eperm(&e) {
                Error::Privilege(PRIVILEGE.into())
            } else {
                Error::Enable(format!("failed to create BPF map '{}': {}", m.name, e))
            }
        })?;
        maps.push(fd);
    }
    crate::phase::mark("maps");
    let map = |id: dtrace_bpf::asm::MapId| &maps[id.0 as usize];

    // Read-only data: the wall-clock offset, then freeze.
    let at = gen.walltime_offset_at as usize;
    gen.rodata[at..at + 8].copy_from_slice(&dtrace_sys::realtime_offset_ns().to_ne_bytes());
    if let Some(ro) = gen
        .maps
        .iter()
        .position(|m| m.role == dtrace_bpf::plan::MapRole::Rodata)
    {
        let m = &maps[ro];
        m.update(&0u32.to_ne_bytes(), &gen.rodata, bpf::BPF_ANY)
            .and_then(|_| m.freeze())
            .map_err(|e| Error::Enable(format!("failed to initialize read-only data: {}", e)))?;
    }
    for t in &gen.dispatch {
        for (k, v) in &t.entries {
            map(t.map)
                .update(&k.to_ne_bytes(), v, bpf::BPF_ANY)
                .map_err(|e| Error::Enable(format!("failed to fill dispatch table: {}", e)))?;
        }
    }

    // Programs.
    let fds: Vec<i32> = maps.iter().map(|m| m.as_raw_fd()).collect();
    let mut progs = Vec::new();
    let mut links = Vec::new();

    // The processes of user-level probes: each one's ID, and how many
    // execs keep its probes (its own, for a command held before it), and
    // the program that ends them at the exec after.
    if let Some(t) = &gen.targets {
        let mut v = vec![0u8; t.slots.len() * 8];
        for &(pid, off) in &t.slots {
            let off = off as usize;
            let keep = u32::from(dt.held_targets.contains(&pid));
            v[off..off + 4].copy_from_slice(&pid.to_ne_bytes());
            v[off + 4..off + 8].copy_from_slice(&keep.to_ne_bytes());
        }
        map(t.map)
            .update(&0u32.to_ne_bytes(), &v, bpf::BPF_ANY)
            .map_err(|e| Error::Enable(format!("failed to fill the target table: {}", e)))?;
        let linked = t.exec_watch.link(|m, _| fds[m.0 as usize]);
        let bytes: Vec<u8> = linked.iter().flat_map(|i| i.encode()).collect();
        let fd = bpf::prog_load_btf(ProgType::RawTracepoint, &bytes, "dt_exec_watch", 0, 0)
            .map_err(|e| Error::Enable(format!("failed to load the exec watch: {}", e)))?;
        if attach {
            let l = bpf::raw_tracepoint_open("sched_process_exec", &fd).map_err(|e| {
                if is_eperm(&e) {
                    Error::Privilege(PRIVILEGE.into())
                } else {
                    Error::Enable(format!("failed to attach the exec watch: {}", e))
                }
            })?;
            links.push(Link::Fd(l));
        }
        progs.push(fd);
    }
    let mut begin = None;
    let mut end = None;
    for p in &gen.programs {
        check()?;
        let pp = &planned.programs[p.plan];
        let linked = p.code.link(|m, part| match part {
            Some(cpu) => ring_fds.get(cpu as usize).copied().unwrap_or(-1),
            None => fds[m.0 as usize],
        });
        let bytes: Vec<u8> = linked.iter().flat_map(|i| i.encode()).collect();
        let ty = match pp.plan.kind {
            ProgKind::Tracepoint => ProgType::Tracepoint,
            ProgKind::RawTracepoint => ProgType::RawTracepoint,
            ProgKind::PerfEvent => ProgType::PerfEvent,
            ProgKind::Fentry | ProgKind::Fexit => ProgType::Tracing,
            ProgKind::Uprobe | ProgKind::Kprobe => ProgType::Kprobe,
        };
        // A tracing program names its function when it is loaded, a
        // uprobe_multi program its link.
        let (attach_type, btf_id) = pp.attach.load_as(pp.plan.kind);
        // DTRACE_DEBUG=disasm shows every program as it is loaded.
        if std::env::var("DTRACE_DEBUG").is_ok_and(|v| v == "disasm") {
            let _ = writeln!(
                std::io::stderr(),
                "{}:\n{}",
                pp.plan.name,
                p.code.disassemble()
            );
        }
        // A module's function is named in the module's BTF.
        let btf_obj = pp
            .attach
            .btf_object()
            .map_err(|e| Error::Enable(format!("failed to load '{}': {}", pp.plan.name, e)))?;
        let loaded = match &btf_obj {
            Some(obj) => {
                bpf::prog_load_module_btf(ty, &bytes, &pp.plan.name, attach_type, btf_id, obj)
            }
            None if p.sleepable => {
                bpf::prog_load_flags(ty, &bytes, &pp.plan.name, attach_type, bpf::BPF_F_SLEEPABLE)
            }
            None => bpf::prog_load_btf(ty, &bytes, &pp.plan.name, attach_type, btf_id),
        };
        // A program that may be left out (one function of a glob's
        // many) is, when the kernel refuses it, and its probes named.
        let left_out = |dt: &mut Dtrace, why: &'static str| {
            for e in &pp.plan.probes {
                let p = &e.probe;
                let name = format!("{}:{}:{}:{}", p.provider, p.module, p.function, p.name);
                dt.refused_places.push((name, why));
            }
        };
        let fd = match (loaded, pp.attach.optional()) {
            (Ok(fd), _) => fd,
            // The verifier's refusal is EACCES; only EPERM is privilege.
            (Err(e), Some(why)) if e.error.raw_os_error() != Some(1) && attach => {
                left_out(dt, why);
                continue;
            }
            (Err(e), _) => return Err(load_error(&e, &pp.plan, ty, || p.code.disassemble())),
        };
        match (pp.attach.run_by_consumer(), pp.plan.phase) {
            (true, Phase::Begin) => begin = Some(fd),
            (true, _) => end = Some(fd),
            (_, _) if !attach => progs.push(fd),
            (false, _) => {
                let (l, refused) = match (
                    pp.attach.attach(&fd, dt.probes.tracefs()),
                    pp.attach.optional(),
                ) {
                    (Ok(r), _) => r,
                    (Err(e), Some(why)) if !is_eperm(&e) => {
                        left_out(dt, why);
                        continue;
                    }
                    (Err(e), _) if is_eperm(&e) => return Err(Error::Privilege(PRIVILEGE.into())),
                    (Err(e), _) => {
                        return Err(Error::Enable(format!(
                            "failed to attach '{}': {}",
                            pp.plan.name, e
                        )))
                    }
                };
                for (cookie, why) in refused {
                    // A cookie's low half is its probe's dispatch key.
                    let named: Vec<String> = pp
                        .plan
                        .probes
                        .iter()
                        .filter(|e| u64::from(e.key) == cookie & 0xffff_ffff)
                        .map(|e| {
                            let p = &e.probe;
                            format!("{}:{}:{}:{}", p.provider, p.module, p.function, p.name)
                        })
                        .collect();
                    if named.is_empty() {
                        dt.refused_places
                            .push((format!("{} (place {})", pp.plan.name, cookie), why));
                    }
                    dt.refused_places
                        .extend(named.into_iter().map(|n| (n, why)));
                }
                links.extend(l);
                progs.push(fd);
            }
        }
    }
    crate::phase::mark("programs");
    if let Some((outer, n, setter)) = ring_setter {
        until_filled(&outer, n, setter)?;
    }
    // Edge-triggered: the consumer leaves records unread on purpose (a
    // switchrate not yet due, a fill buffer read at the end), and a
    // level-triggered wait would then return at once, again and again.
    let poller = Poller::new()?;
    for r in &rings {
        poller.add_edge(r.fd().as_raw_fd(), 0)?;
    }
    // User stacks are unwound from the objects' places, which the kernel
    // reports as they are mapped (a command may be gone before its
    // records are read).
    let mut ustack = false;
    for c in &dt.clauses {
        dtrace_bpf::codegen::visit_clause_exprs(c, &mut |e| {
            ustack |= matches!(e.kind, CKind::UStack { .. });
        });
    }
    if ustack {
        crate::usym::watch_mappings();
    }
    let mut r = Running::claimed(gen, maps, links, end, rings, poller);
    r._progs = progs;
    r.begin = begin;
    Ok(r)
}

impl Running {
    /// A running enabling of these maps, links, END and rings, with no
    /// BEGIN and no other programs: as taken from pinned objects
    /// (`anon.rs`), where BEGIN ran when the enabling started; `start`
    /// adds its own.
    pub(crate) fn claimed(
        gen: Generated,
        maps: Vec<Map>,
        links: Vec<Link>,
        end: Option<OwnedFd>,
        rings: Vec<RingBuf>,
        poller: Poller,
    ) -> Running {
        Running {
            gen,
            maps: std::sync::Arc::new(maps),
            _progs: Vec::new(),
            _links: links,
            begin: None,
            end,
            rings,
            poller,
            watched: std::cell::RefCell::new(Vec::new()),
            streamed: Default::default(),
            errors: Default::default(),
        }
    }

    /// The streamed aggregations' rows, locked (a thread that panicked
    /// holding them left them whole: every change is one call).
    pub(crate) fn streamed(&self) -> std::sync::MutexGuard<'_, crate::streamed::Tables> {
        self.streamed.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn state(&self) -> &Map {
        &self.maps[self.gen.state_map.0 as usize]
    }

    pub(crate) fn activity(&self) -> u32 {
        let state = self.state();
        let mut v = vec![0u8; state.value_len()];
        match state.lookup(&0u32.to_ne_bytes(), &mut v) {
            Ok(true) if v.len() >= 4 => u32::from_ne_bytes([v[0], v[1], v[2], v[3]]),
            _ => activity::INACTIVE,
        }
    }

    /// Where compare-and-exchange is emulated (kernels before 5.12), a
    /// probe may be between reading the state and writing it: the
    /// consumer takes the state's lock for its own write, as the probe
    /// does. A probe holds it for a few instructions and never waits, so
    /// the wait is short; a lock still held after a second (which no
    /// probe does) is taken over.
    fn with_state_lock<T>(&self, f: impl FnOnce() -> T) -> T {
        let Some(lock) = self.gen.lock_map else {
            return f();
        };
        let lock = &self.maps[lock.0 as usize];
        let key = dtrace_bpf::lock_key::STATE.to_ne_bytes();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
        while lock
            .update(&key, &0u32.to_ne_bytes(), bpf::BPF_NOEXIST)
            .is_err()
            && std::time::Instant::now() < deadline
        {
            std::thread::yield_now();
        }
        let r = f();
        let _ = lock.delete(&key);
        r
    }

    pub(crate) fn set_activity(&self, a: u32) -> Result<(), Error> {
        self.with_state_lock(|| self.write_activity(a))
    }

    fn write_activity(&self, a: u32) -> Result<(), Error> {
        let state = self.state();
        let mut v = vec![0u8; state.value_len()];
        let _ = state.lookup(&0u32.to_ne_bytes(), &mut v);
        if v.len() < 4 {
            return Err(Error::Enable(format!(
                "BPF map '{}' is too small for the tracing state",
                state.name()
            )));
        }
        v[0..4].copy_from_slice(&a.to_ne_bytes());
        state.update(&0u32.to_ne_bytes(), &v, bpf::BPF_ANY)?;
        Ok(())
    }

    /// Waits for data on the ring buffer or any of `extra` descriptors.
    /// The epoll set `wait` waits on, for a `Waiter`.
    pub(crate) fn poller_clone(&self) -> std::io::Result<Poller> {
        self.poller.try_clone()
    }

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
    pub(crate) fn read_drops(&self) -> std::io::Result<Vec<[u64; DROP_KINDS]>> {
        let map = &self.maps[self.gen.drops_map.0 as usize];
        let mut vals = map.percpu_values()?;
        map.lookup_percpu(&0u32.to_ne_bytes(), &mut vals)?;
        let mut counts: Vec<[u64; DROP_KINDS]> = vals.iter().map(drop_counts).collect();
        // The consumer's own: streamed aggregations' updates it dropped.
        for (cpu, n) in self.streamed().drops.iter().enumerate() {
            if let Some(c) = counts.get_mut(cpu) {
                c[dtrace_bpf::plan::drops::AGGREGATION as usize / 8] += n;
            }
        }
        Ok(counts)
    }

    fn agg(&self, id: usize) -> &Map {
        &self.maps[self.gen.aggs[id].map.0 as usize]
    }

    /// Aggregation `id` as the kernel holds it now; with `percpu`, each
    /// CPU's value too (the `aggpercpu` option).
    pub(crate) fn snapshot_with(&self, id: usize, percpu: bool) -> Result<Vec<AggEntry>, Error> {
        let layout = &self.gen.aggs[id];
        if layout.streamed {
            return Ok(self.streamed().snapshot(layout, percpu, self.rings.len()));
        }
        Ok(aggregate::snapshot(
            self.agg(id),
            layout,
            percpu.then_some(self.rings.len()),
            layout.interned.map(|ik| self.map(ik.map)),
        )?)
    }

    /// Aggregation `id` as [`snapshot_with`](Self::snapshot_with) reads
    /// it, in flat tables (for printing).
    pub(crate) fn table_with(&self, id: usize, percpu: bool) -> Result<aggregate::AggTable, Error> {
        let layout = &self.gen.aggs[id];
        if layout.streamed || layout.slot.is_some() {
            return Ok(aggregate::AggTable::of_entries(
                self.snapshot_with(id, percpu)?,
            ));
        }
        Ok(aggregate::table(
            self.agg(id),
            layout,
            percpu.then_some(self.rings.len()),
            layout.interned.map(|ik| self.map(ik.map)),
        )?)
    }

    /// A map of the program by id.
    pub(crate) fn map(&self, id: dtrace_bpf::asm::MapId) -> &Map {
        &self.maps[id.0 as usize]
    }

    pub(crate) fn snapshot(&self, id: usize) -> Result<Vec<AggEntry>, Error> {
        self.snapshot_with(id, false)
    }

    /// clear(): zeroes every value of aggregation `id`, keeping its keys.
    pub(crate) fn clear_agg(&self, id: usize) -> Result<(), Error> {
        if self.gen.aggs[id].streamed {
            self.streamed().clear(id);
            return Ok(());
        }
        let map = self.agg(id);
        if let Some(slot) = self.gen.aggs[id].slot {
            return Ok(aggregate::clear_slot(map, slot, true)?);
        }
        let zero = vec![0u8; map.value_len()];
        for e in self.snapshot(id)? {
            for k in std::iter::once(&e.raw_key).chain(&e.merged_keys) {
                map.update(k, &zero, bpf::BPF_EXIST)?;
            }
        }
        Ok(())
    }

    /// trunc(): keeps the `n` entries with the highest values (lowest for
    /// negative `n`), or none.
    pub(crate) fn trunc_agg(&self, id: usize, n: Option<i64>) -> Result<(), Error> {
        let mut snap = self.snapshot(id)?;
        let keep = n.unwrap_or(0);
        snap.sort_by(|a, b| {
            let o = b.value.sort_key().cmp(&a.value.sort_key());
            if keep < 0 {
                o.reverse()
            } else {
                o
            }
        });
        if self.gen.aggs[id].streamed {
            let gone: Vec<Vec<aggregate::KeyValue>> = snap
                .into_iter()
                .skip(keep.unsigned_abs() as usize)
                .map(|e| e.key)
                .collect();
            self.streamed().remove(id, &gone, &self.gen.aggs[id]);
            return Ok(());
        }
        for e in snap.iter().skip(keep.unsigned_abs() as usize) {
            if let Some(slot) = self.gen.aggs[id].slot {
                aggregate::clear_slot(self.agg(id), slot, false)?;
                continue;
            }
            for k in std::iter::once(&e.raw_key).chain(&e.merged_keys) {
                self.agg(id).delete(k)?;
                // An interned tuple goes with the last key that held it.
                if let (Some(ik), Some(hash)) = (self.gen.aggs[id].interned, k.get(8..16)) {
                    self.map(ik.map).delete(hash)?;
                }
            }
        }
        Ok(())
    }
}

/// The CPU named by the `cpu` option, checked to be online.
fn only_cpu(dt: &Dtrace) -> Result<Option<u32>, Error> {
    let Some(cpu) = dt.opts.cpu else {
        return Ok(None);
    };
    let online = dtrace_sys::cpus::online_cpus()
        .map_err(|e| Error::Enable(format!("cpu option: cannot read the online CPUs: {}", e)))?;
    match cpu {
        c if online.contains(&c) => Ok(Some(c)),
        _ => Err(Error::Enable(format!(
            "cpu option: CPU {} is not online",
            cpu
        ))),
    }
}

/// Where BEGIN and END run: the `cpu` option's CPU, or dtrace's own
/// (named, so that the consumer knows which buffer holds their records).
fn begin_end_cpu(dt: &Dtrace) -> Option<u32> {
    dt.opts.cpu.or_else(dtrace_sys::cpus::current_cpu)
}

/// The probes a program serves, for messages: the first one's full name,
/// and how many more there are.
/// The BPF programs the enabled probes would be given, as text (`-S`):
/// for each, its name, the probes it serves, and its instructions.
pub(crate) fn programs_text(dt: &Dtrace) -> Result<String, Error> {
    let (planned, gen, _) = generate(dt, true)?;
    let mut s = String::new();
    for p in &gen.programs {
        let plan = &planned.programs[p.plan].plan;
        let probes: Vec<String> = plan
            .probes
            .iter()
            .map(|e| {
                let d = &e.probe;
                format!("{}:{}:{}:{}", d.provider, d.module, d.function, d.name)
            })
            .collect();
        s.push_str(&format!(
            "BPF program {} ({} instructions) for {}:\n{}\n",
            plan.name,
            p.code.insns.len(),
            probes.join(", "),
            p.code.disassemble()
        ));
    }
    Ok(s)
}

fn program_probes(plan: &dtrace_bpf::plan::ProgramPlan) -> String {
    let Some(first) = plan.probes.first() else {
        return format!("'{}'", plan.name);
    };
    let p = &first.probe;
    let name = format!("{}:{}:{}:{}", p.provider, p.module, p.function, p.name);
    match plan.probes.len() {
        1 => name,
        2 => format!("{} and 1 other probe", name),
        n => format!("{} and {} other probes", name, n - 1),
    }
}

/// What a refused program load means for the user: a verifier refusal
/// (with the verifier's reason; the whole log under DTRACE_DEBUG), a lack
/// of privilege, or another failure.
fn load_error(
    e: &LoadError,
    plan: &dtrace_bpf::plan::ProgramPlan,
    ty: ProgType,
    disassemble: impl FnOnce() -> String,
) -> Error {
    let debug = std::env::var_os("DTRACE_DEBUG").is_some();
    if e.is_verifier_refusal() {
        let detail = if debug {
            format!("{}\n{}", disassemble(), e.log.trim_end())
        } else {
            String::new()
        };
        let reason = e.verifier_reason().unwrap_or("no reason given");
        if reason.contains("bpf_probe_write_user") {
            // The helper is withheld from every program when the kernel
            // is locked down (integrity or confidentiality).
            return Error::Enable(format!(
                "copyout( ) and copyoutstr( ) cannot run on this system: the kernel withholds \
                 BPF writes to user memory (bpf_probe_write_user), as it does when locked down \
                 (see /sys/kernel/security/lockdown); refused for {}",
                program_probes(plan)
            ));
        }
        return Error::Refused {
            program: program_probes(plan),
            reason: reason.to_string(),
            detail,
        };
    }
    if e.is_permission() {
        return match ty {
            // Function tracing can be refused to root too (lockdown).
            ProgType::Kprobe | ProgType::Tracing => Error::Enable(format!(
                "the kernel does not permit function tracing for {}: {}",
                program_probes(plan),
                e.error
            )),
            _ => Error::Privilege(PRIVILEGE.into()),
        };
    }
    Error::Enable(format!(
        "BPF program load for '{}' failed: {}",
        plan.name, e.error
    ))
}

/// One CPU's drop counters (principal, aggregation, dynamic, error); a
/// counter the value does not hold reads as zero.
fn drop_counts(v: &[u8]) -> [u64; DROP_KINDS] {
    let w = |i: usize| {
        v.get(8 * i..8 * i + 8)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u64::from_ne_bytes)
    };
    std::array::from_fn(w)
}

/// What code generation may use of the running kernel's BPF.
fn kernel_caps(f: &dtrace_sys::features::Features) -> dtrace_bpf::plan::KernelCaps {
    dtrace_bpf::plan::KernelCaps {
        atomics: f.atomics,
        strncmp: f.strncmp,
        signed_div: f.cpu_v4,
        long_jumps: f.long_jumps,
        grow_maps: f.mem_alloc,
        user_regs: if f.task_btf && f.task_pt_regs {
            UserRegs::Helper
        } else {
            UserRegs::Unknown("bpf_task_pt_regs (Linux 5.15)")
        },
        bpf_loop: f.bpf_loop,
        sleepable_uprobes: f.sleepable_uprobes,
    }
}

/// Where the kernel's `task_pt_regs()` finds a thread's user registers
/// on x86-64, for kernels without `bpf_task_pt_regs`: at the top of its
/// kernel stack (`THREAD_SIZE`, 16 KiB, or 32 KiB with KASAN, whose
/// functions are then in the BTF), less `struct pt_regs` (x86-64 leaves
/// no padding above them; checked on 6.18 with `DTRACE_OLD_BPF=1`).
fn user_regs_on_stack(btf: &dtrace_sys::btf::Btf) -> Option<UserRegs> {
    if !cfg!(target_arch = "x86_64") {
        return None;
    }
    let stack = btf.member_path("task_struct", "stack")?.0;
    let regs = btf.size_of(btf.find_struct("pt_regs")?)?;
    let thread_size: u64 = if btf.find_func("kasan_report").is_some() {
        32 << 10
    } else {
        16 << 10
    };
    let from_stack = u32::try_from(thread_size.checked_sub(regs)?).ok()?;
    Some(UserRegs::StackTop { stack, from_stack })
}

/// The counters of the drops map: principal, aggregation, dynamic,
/// error, speculative, failed speculations busy and unavailable.
pub(crate) const DROP_KINDS: usize = 7;

/// Runs BEGIN, then lets every other probe fire; the CPU BEGIN ran on.
pub(crate) fn fire_begin(dt: &mut Dtrace) -> Result<Option<u32>, Error> {
    let r = dt.running.as_ref().expect("started");
    r.set_activity(activity::WARMUP)?;
    let mut ran_on = None;
    if let Some(b) = &r.begin {
        let cpu = begin_end_cpu(dt);
        bpf::prog_test_run(b, &[], cpu)
            .map_err(|e| Error::Enable(format!("failed to fire BEGIN: {}", e)))?;
        ran_on = cpu;
    }
    if r.activity() == activity::WARMUP {
        r.set_activity(activity::ACTIVE)?;
    }
    Ok(ran_on)
}

/// Stops every probe but END, then runs END; the CPU END ran on.
pub(crate) fn fire_end(dt: &mut Dtrace) -> Result<Option<u32>, Error> {
    let r = dt.running.as_ref().expect("started");
    r.set_activity(activity::COOLDOWN)?;
    let mut ran_on = None;
    if let Some(e) = &r.end {
        let cpu = begin_end_cpu(dt);
        bpf::prog_test_run(e, &[], cpu)
            .map_err(|e| Error::Enable(format!("failed to fire END: {}", e)))?;
        ran_on = cpu;
    }
    r.set_activity(activity::STOPPED)?;
    Ok(ran_on)
}

/// True if a clause called exit().
pub(crate) fn exit_requested(dt: &Dtrace) -> bool {
    dt.running
        .as_ref()
        .is_some_and(|r| r.activity() == activity::DRAINING)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dtrace_bpf::plan::{ArgContext, ProbeEnabling, ProbeIdentity, ProgramPlan};

    #[test]
    fn rings_made_on_threads() {
        if dtrace_sys::geteuid() != 0 {
            return;
        }
        for n in [1, 2, 5] {
            let rings = rings_in_parallel(1 << 14, n).expect("rings");
            assert_eq!(rings.len(), n);
            let mut fds: Vec<i32> = Vec::new();
            for r in &rings {
                assert_eq!(r.map().max_entries(), 1 << 14);
                assert!(!r.has_data());
                fds.push(r.map().as_raw_fd());
            }
            fds.sort_unstable();
            fds.dedup();
            assert_eq!(fds.len(), n);
        }
    }

    fn plan(probes: &[&str]) -> ProgramPlan {
        ProgramPlan {
            name: "dt_test".into(),
            kind: ProgKind::RawTracepoint,
            context: ArgContext::None,
            phase: Phase::Normal,
            probes: probes
                .iter()
                .enumerate()
                .map(|(i, n)| ProbeEnabling {
                    probe: ProbeIdentity {
                        id: i as u32 + 1,
                        provider: "syscall".into(),
                        module: String::new(),
                        function: n.to_string(),
                        name: "entry".into(),
                    },
                    key: 0,
                    clauses: Vec::new(),
                })
                .collect(),
            dispatch: None,
            tick_gate: None,
            guard: None,
            cookie: None,
        }
    }

    fn refused(errno: i32, log: &str) -> LoadError {
        LoadError {
            error: std::io::Error::from_raw_os_error(errno),
            log: log.into(),
        }
    }

    #[test]
    fn a_verifier_refusal_is_not_a_privilege_error() {
        // EACCES with a log, as the verifier refuses a too-deep expression.
        let e = refused(
            13,
            "287: (7b) *(u64 *)(r10 -520) = r0\n\
             invalid write to stack R10 off=-520 size=8\n\
             processed 221 insns (limit 1000000) max_states_per_insn 0\n",
        );
        let err = load_error(&e, &plan(&["read"]), ProgType::RawTracepoint, String::new);
        assert_eq!(
            err.to_string(),
            "failed to enable probes: the kernel's BPF verifier refused the program for \
             syscall::read:entry: invalid write to stack R10 off=-520 size=8"
        );
        let err = load_error(
            &e,
            &plan(&["read", "write", "open"]),
            ProgType::Tracepoint,
            String::new,
        );
        assert!(
            err.to_string()
                .contains("for syscall::read:entry and 2 other probes: invalid write"),
            "{}",
            err
        );
    }

    #[test]
    fn refusals_without_a_log_keep_their_meaning() {
        let e = refused(1, "");
        assert!(matches!(
            load_error(&e, &plan(&["read"]), ProgType::Tracepoint, String::new),
            Error::Privilege(_)
        ));
        // Function tracing refused (even to root): said so, distinctly.
        let err = load_error(&e, &plan(&["read"]), ProgType::Tracing, String::new);
        assert!(
            err.to_string()
                .contains("the kernel does not permit function tracing"),
            "{}",
            err
        );
        let err = load_error(
            &refused(7, ""),
            &plan(&["read"]),
            ProgType::Tracepoint,
            String::new,
        );
        assert!(
            err.to_string()
                .starts_with("could not enable tracing: BPF program load for 'dt_test' failed"),
            "{}",
            err
        );
    }

    #[test]
    fn refused_sizes_are_halved_under_auto() {
        // A kernel that takes at most 1 MiB: 8 MiB asked becomes 1 MiB.
        let make = |size: u64| {
            if size > 1 << 20 {
                Err(std::io::Error::from_raw_os_error(12))
            } else {
                Ok(size)
            }
        };
        let (made, size) = with_halving(true, 8 << 20, 4096, make).unwrap();
        assert_eq!((made, size), (1 << 20, 1 << 20));
        // manual: no second try.
        let e = with_halving(false, 8 << 20, 4096, make).unwrap_err();
        assert_eq!(e.to_string(), "could not enable tracing: Not enough space");
        // Never below the least size asked for.
        assert!(with_halving(true, 8 << 20, 4 << 20, make).is_err());
    }

    #[test]
    fn drop_counters_tolerate_short_values() {
        let mut v = [0u8; 32];
        v[8..16].copy_from_slice(&5u64.to_ne_bytes());
        assert_eq!(drop_counts(&v), [0, 5, 0, 0, 0, 0, 0]);
        assert_eq!(drop_counts(&v[..12]), [0; DROP_KINDS]);
    }
}
