//! Lowering checked D to BPF. One program per kernel hook: a prologue that
//! finds the per-CPU scratch area and loads the probe's arguments, then every
//! clause enabled on the hook's probes inlined in program order, then an
//! error subprogram that records the fault and runs the ERROR clauses.
//!
//! Register conventions inside generated code:
//! - r9: the per-CPU scratch element (args, clause-locals, temporaries);
//! - r8: the clause's reserved record in the ring buffer, while it has one;
//! - r6, r7: expression temporaries (then stack slots), surviving calls;
//! - r0-r5: short-lived values and helper arguments.

use std::collections::HashMap;

use dtrace_lang::ir::*;
use dtrace_lang::types::Type;

use crate::asm::{Asm, MapId};
use crate::insn::*;
use crate::layout::{self, scratch, Caps, VarSlots};
use crate::plan::*;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenError(pub String);

impl std::fmt::Display for GenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Hash map keys are built on the BPF stack by some helpers and are
/// limited to its size.
const MAX_KEY: u32 = 512;
/// Per-CPU scratch is an array element; keep it well inside what the
/// kernel allocates comfortably.
const MAX_SCRATCH: u32 = 1 << 20;
/// The largest by-reference value (struct, union, array) a variable may
/// hold: copies of it go through scratch.
pub(crate) const MAX_VALUE: u32 = 1 << 16;

pub struct Input<'a> {
    pub syms: &'a Symbols,
    pub clauses: &'a [CClause],
    pub plans: &'a [ProgramPlan],
    /// Clauses enabled on ERROR, with their EPIDs.
    pub error_clauses: &'a [(usize, u32)],
    pub opts: &'a GenOptions,
}

use dtrace_lang::Symbols;

/// Program-wide generation state: maps, read-only data, layouts.
pub(crate) struct Generator<'a> {
    pub(crate) inp: &'a Input<'a>,
    pub(crate) caps: Caps,
    pub(crate) maps: Vec<MapSpec>,
    pub(crate) rodata: Vec<u8>,
    strings: HashMap<Vec<u8>, u32>,
    pub(crate) m_buffer: MapId,
    pub(crate) m_state: MapId,
    /// Where the kernel has no compare-and-exchange instruction: the
    /// lock map of its emulation (see `program/atomics.rs`).
    pub(crate) m_lock: Option<MapId>,
    /// The needles of substring searches before 6.4 (see
    /// `subr::search::substring_map`).
    pub(crate) m_substr: Option<MapId>,
    pub(crate) m_rodata: MapId,
    pub(crate) m_globals: MapId,
    pub(crate) m_scratch: MapId,
    /// The scratch of sleepable programs, one per thread (see
    /// [`sleepable`]).
    pub(crate) m_task_scratch: Option<MapId>,
    /// Whether programs may be made sleepable at all (not when the
    /// scratch is too large for task storage).
    allow_sleep: bool,
    pub(crate) m_drops: MapId,
    pub(crate) spec: Option<SpecMaps>,
    pub(crate) end_reserve: u64,
    pub(crate) ring_size: u64,
    /// The number of CPUs whose principal buffers the programs choose
    /// between in code (`plan::rings_chosen_in_code`), or None when
    /// they look theirs up in the array of maps.
    pub(crate) rings_in_code: Option<u32>,
    pub(crate) ring: Option<RingMaps>,
    pub(crate) thread_maps: Vec<MapId>,
    pub(crate) array_maps: Vec<MapId>,
    /// The stash map of each hook that keeps one, by the hook's name.
    pub(crate) stash_maps: Vec<(String, MapId)>,
    pub(crate) array_keys: Vec<(Vec<KeyField>, u32)>,
    /// For each associative array whose keys are larger than the
    /// kernel's hash key limit, the map of its keys by hash.
    pub(crate) array_interned: Vec<Option<MapId>>,
    pub(crate) aggs: Vec<AggLayout>,
    pub(crate) globals: VarSlots,
    pub(crate) locals: VarSlots,
    pub(crate) clause_layouts: Vec<ClauseLayout>,
    /// Start of the temporary area in scratch.
    pub(crate) temp_base: u32,
    /// Where the clauses' `alloca()` space is in scratch (see
    /// `memory.rs`), if a clause uses it.
    pub(crate) alloca_at: Option<u32>,
    /// Where strtok() keeps its string and place (a word, then `strsize`
    /// bytes), if a clause uses it.
    pub(crate) strtok_at: Option<u32>,
    /// The scratch word that holds `timestamp` once a firing has read it
    /// (0 until then): DTrace's `timestamp` is one value for the whole
    /// firing, every clause of it.
    pub(crate) time_at: Option<u32>,
    /// The scratch word that holds `bpf_get_current_pid_tgid()` once a
    /// firing has asked for it (0 until then), where the clauses read
    /// `pid` or `tid` more than once (`@[pid] = sum(pid)`).
    pub(crate) pidtgid_at: Option<u32>,
    /// Deferred clauses (`program/defer.rs`): their map, and the scratch
    /// words where a program that runs them keeps the probe's ID and the
    /// clauses' bits.
    pub(crate) m_deferred: Option<MapId>,
    pub(crate) deferred_at: Option<u32>,
    /// Where chill() keeps the start of its interval and the time chilled
    /// in it (two words), if a clause chills.
    pub(crate) chill_at: Option<u32>,
    /// Largest temporary area any clause needed.
    pub(crate) temp_max: u32,
    pub(crate) zero_at: u32,
    pub(crate) empty_at: u32,
    pub(crate) walltime_at: u32,
    pub(crate) state_size: u32,
    /// The processes of user-level probes: the map and each one's slot
    /// (see `TargetSlots`).
    pub(crate) m_targets: Option<MapId>,
    pub(crate) target_slots: Vec<(u32, u32)>,
}

/// Picks one name out of a probe's identity.
type IdentField = fn(&ProbeIdentity) -> &str;

fn map(name: &str, role: MapRole, kind: MapKind, key: u32, value: u32, entries: u32) -> MapSpec {
    MapSpec {
        name: name.to_string(),
        role,
        kind,
        key_size: key,
        value_size: value,
        max_entries: entries,
        readonly_prog: false,
        no_prealloc: false,
    }
}

impl<'a> Generator<'a> {
    fn add_map(&mut self, m: MapSpec) -> MapId {
        self.maps.push(m);
        MapId(self.maps.len() as u32 - 1)
    }

    /// The stash map of `hook` (made by `generate` for every hook a plan
    /// stashes at or fires after).
    pub(crate) fn stash_map(&self, hook: &str) -> Result<MapId, GenError> {
        self.stash_maps
            .iter()
            .find(|(h, _)| h == hook)
            .map(|(_, m)| *m)
            .ok_or_else(|| GenError(format!("no stash program at {}", hook)))
    }

    /// Interns a NUL-terminated string in rodata; returns its offset.
    pub(crate) fn string(&mut self, s: &[u8]) -> u32 {
        let end = s.iter().position(|&c| c == 0).unwrap_or(s.len());
        let key = s[..end].to_vec();
        if let Some(&off) = self.strings.get(&key) {
            return off;
        }
        let off = self.rodata.len() as u32;
        self.rodata.extend_from_slice(&key);
        self.rodata.push(0);
        while !self.rodata.len().is_multiple_of(8) {
            self.rodata.push(0);
        }
        self.strings.insert(key, off);
        off
    }
}

/// Builds everything: maps, programs, layouts.
/// The largest task storage value the kernel makes (a 16-bit size, less
/// its header), rounded down: a scratch larger than this is per-CPU only,
/// and no program is sleepable.
pub const TASK_SCRATCH_MAX: u32 = 65_280;

pub fn generate(inp: &Input) -> Result<Generated, GenError> {
    let gen = generate_with(inp, true)?;
    let too_large = gen
        .maps
        .iter()
        .any(|m| m.role == MapRole::TaskScratch && m.value_size > TASK_SCRATCH_MAX);
    if too_large {
        return generate_with(inp, false);
    }
    Ok(gen)
}

/// Whether `plan`'s program is loaded sleepable, so that its reads of user
/// memory may fault pages in (`bpf_copy_from_user`): a uprobe program
/// (pid, USDT) on a kernel that has sleepable ones, where a clause it
/// runs (or an ERROR clause) reads user memory. Such a program may be
/// preempted, and another run on its CPU meanwhile, so it keeps its
/// scratch per thread and updates aggregations atomically; state that is
/// per CPU and written in several steps rules it out: speculative
/// buffers, the `ring` policy's buffers, and the substring searches'
/// needles of kernels before 6.4 (`with_substr`).
pub(crate) fn sleepable(inp: &Input, plan: &ProgramPlan, with_substr: bool) -> bool {
    if plan.kind != ProgKind::Uprobe
        || !inp.opts.kernel.sleepable_uprobes
        || inp.opts.policy == BufferPolicy::Ring
        || with_substr
    {
        return false;
    }
    let own = plan
        .probes
        .iter()
        .flat_map(|e| &e.clauses)
        .filter_map(|&(ci, _)| inp.clauses.get(ci));
    let errors = inp
        .error_clauses
        .iter()
        .filter_map(|&(ci, _)| inp.clauses.get(ci));
    let mut reads = false;
    for c in own.chain(errors) {
        if c.uses_speculations() {
            return false;
        }
        reads |= reads_user(c);
    }
    reads
}

fn generate_with(inp: &Input, allow_sleep: bool) -> Result<Generated, GenError> {
    let opts = inp.opts;
    // A string holds `strsize` characters, then its NUL.
    let strsize = opts.strsize.max(1) + 1;
    let mut caps = Caps {
        strsize,
        provider: 8,
        module: 8,
        function: 8,
        name: 8,
    };
    for p in inp.plans {
        for e in &p.probes {
            caps.provider = caps.provider.max(e.probe.provider.len() as u32 + 1);
            caps.module = caps.module.max(e.probe.module.len() as u32 + 1);
            caps.function = caps.function.max(e.probe.function.len() as u32 + 1);
            caps.name = caps.name.max(e.probe.name.len() as u32 + 1);
        }
    }
    for v in ["dtrace", "ERROR"] {
        caps.provider = caps.provider.max(v.len() as u32 + 1);
        caps.name = caps.name.max(v.len() as u32 + 1);
    }
    // Strings all: `strsize` characters at most.
    for c in [
        &mut caps.provider,
        &mut caps.module,
        &mut caps.function,
        &mut caps.name,
    ] {
        *c = (*c).min(strsize);
    }

    let mut g = Generator {
        inp,
        caps,
        maps: Vec::new(),
        rodata: Vec::new(),
        strings: HashMap::new(),
        m_buffer: MapId(0),
        m_state: MapId(0),
        m_lock: None,
        m_substr: None,
        m_rodata: MapId(0),
        m_globals: MapId(0),
        m_scratch: MapId(0),
        m_task_scratch: None,
        allow_sleep,
        m_drops: MapId(0),
        m_targets: None,
        target_slots: Vec::new(),
        spec: None,
        end_reserve: 0,
        ring_size: 0,
        rings_in_code: None,
        ring: None,
        thread_maps: Vec::new(),
        array_maps: Vec::new(),
        stash_maps: Vec::new(),
        array_keys: Vec::new(),
        array_interned: Vec::new(),
        aggs: Vec::new(),
        globals: VarSlots::default(),
        locals: VarSlots::default(),
        clause_layouts: Vec::new(),
        temp_base: 0,
        alloca_at: None,
        strtok_at: None,
        time_at: None,
        pidtgid_at: None,
        m_deferred: None,
        deferred_at: None,
        chill_at: None,
        temp_max: 0,
        zero_at: 0,
        empty_at: 0,
        walltime_at: 0,
        state_size: 8,
    };

    // The principal buffers: a BPF ring buffer per CPU, each `bufsize`
    // rounded up to a power of two, chosen by CPU in code or in an array
    // of maps by CPU.
    let ring = opts
        .bufsize
        .max(4096)
        .next_power_of_two()
        .clamp(4096, 1 << 31) as u32;
    g.m_buffer = g.add_map(map(
        "dt_buffer",
        MapRole::Buffer,
        MapKind::RingbufPerCpu,
        4,
        ring,
        opts.ncpus.max(1),
    ));
    g.ring_size = u64::from(ring);
    let ncpus = opts.ncpus.max(1);
    g.rings_in_code = crate::plan::rings_chosen_in_code(ncpus).then_some(ncpus);

    let ngates = inp.plans.iter().filter(|p| p.tick_gate.is_some()).count() as u32;
    // Each tick gate: the time it last opened, and the CPU (plus one)
    // it opened on.
    g.state_size = 8 + 16 * ngates;
    g.m_state = g.add_map(map(
        "dt_state",
        MapRole::State,
        MapKind::Array,
        4,
        g.state_size,
        1,
    ));
    if !opts.kernel.atomics {
        g.m_lock = Some(g.add_map(map(
            "dt_lock",
            MapRole::Lock,
            MapKind::Hash,
            4,
            4,
            1 + ngates + opts.nspec,
        )));
    }

    let mut pids: Vec<u32> = Vec::new();
    for pid in inp.plans.iter().filter_map(|p| p.context.process()) {
        if !pids.contains(&pid) {
            pids.push(pid);
        }
    }
    if !pids.is_empty() {
        g.m_targets = Some(g.add_map(map(
            "dt_targets",
            MapRole::Targets,
            MapKind::Array,
            4,
            8 * pids.len() as u32,
            1,
        )));
        g.target_slots = pids
            .iter()
            .enumerate()
            .map(|(i, &p)| (p, 8 * i as u32))
            .collect();
    }

    // rodata: the wall-clock offset, then the zero block (initial
    // aggregation values, and the empty string), then interned strings.
    g.walltime_at = 0;
    g.rodata.extend_from_slice(&[0u8; 8]);
    // The zero block is also what a by-reference thread-local or
    // associative array element reads as before it is assigned: a
    // string's as a whole string (a comparison reads all of it).
    let types = &inp.syms.types;
    for v in inp.syms.all_vars() {
        if v.ty.is_by_ref() {
            let size = types.known_size(&v.ty).unwrap_or(0);
            if size > u64::from(MAX_VALUE) {
                return Err(GenError(format!(
                    "variable {} of type {} is {} bytes, more than the {} bytes a D variable may hold",
                    v.name, v.ty, size, MAX_VALUE
                )));
            }
        }
    }
    let zero_needed = inp
        .syms
        .aggs
        .iter()
        .map(|a| crate::aggs::size_class(a.func))
        .chain(
            inp.syms
                .threads
                .iter()
                .map(|v| layout::stored_size(&v.ty, strsize, types)),
        )
        .chain(
            inp.syms
                .arrays
                .iter()
                .map(|a| layout::stored_size(&a.value, strsize, types)),
        )
        .max()
        .unwrap_or(8)
        .max(8);
    g.zero_at = 8;
    g.empty_at = 8;
    g.rodata.resize(8 + zero_needed as usize, 0);
    g.strings.insert(Vec::new(), g.empty_at);
    g.m_rodata = g.add_map(MapSpec {
        readonly_prog: true,
        ..map("dt_rodata", MapRole::Rodata, MapKind::Array, 4, 0, 1)
    });

    g.globals = layout::var_slots(&inp.syms.globals, 0, strsize, types);
    g.m_globals = g.add_map(map(
        "dt_globals",
        MapRole::Globals,
        MapKind::Array,
        4,
        g.globals.size.max(8),
        1,
    ));
    g.locals = layout::var_slots(&inp.syms.locals, scratch::FIXED_END, strsize, types);
    g.temp_base = scratch::FIXED_END + g.locals.size;
    if inp
        .clauses
        .iter()
        .any(crate::subr::memory::uses_scratch_memory)
    {
        g.alloca_at = Some(g.temp_base);
        g.temp_base += crate::subr::memory::region_size(opts.scratchsize);
    }
    let mut strtok = false;
    for c in inp.clauses {
        visit_clause_exprs(c, &mut |e| strtok |= matches!(e.kind, CKind::Strtok { .. }));
    }
    if strtok {
        g.strtok_at = Some(g.temp_base);
        g.temp_base += 8 + layout::round8(strsize.max(2));
    }
    let mut times = false;
    for c in inp.clauses {
        visit_clause_exprs(c, &mut |e| {
            times |= matches!(e.kind, CKind::Builtin(Builtin::Timestamp))
        });
    }
    if times {
        g.time_at = Some(g.temp_base);
        g.temp_base += 8;
    }
    let mut ids = 0;
    for c in inp.clauses {
        visit_clause_exprs(c, &mut |e| {
            ids += usize::from(matches!(
                e.kind,
                CKind::Builtin(Builtin::Pid | Builtin::Tid)
            ))
        });
    }
    if ids > 1 {
        g.pidtgid_at = Some(g.temp_base);
        g.temp_base += 8;
    }
    let mut chills = false;
    for c in inp.clauses {
        visit_stmts(&c.stmts, &mut |s| chills |= matches!(s, CStmt::Chill(..)));
    }
    if chills {
        g.chill_at = Some(g.temp_base);
        g.temp_base += 16;
    }
    // Deferral's map, where some entry clause reads user memory.
    let defers = inp.plans.iter().any(|p| {
        let hooked = matches!(&p.context, ArgContext::Hook(h)
            if h.0.defers_user_faults() || h.0.runs_deferred());
        hooked
            && p.probes
                .iter()
                .flat_map(|e| &e.clauses)
                .any(|&(ci, _)| inp.clauses.get(ci).is_some_and(reads_user))
    });
    if defers {
        g.deferred_at = Some(g.temp_base);
        g.temp_base += 16;
        g.m_deferred = Some(g.add_map(MapSpec {
            ..map(
                "dt_deferred",
                MapRole::Deferred,
                MapKind::LruHash,
                8,
                crate::program::defer::VALUE_SIZE,
                crate::program::defer::ENTRIES,
            )
        }));
    }
    let cpus = opts.ncpus.max(1);
    if opts.iter_num.is_none() {
        g.m_substr =
            crate::subr::search::substring_map(inp.clauses, strsize, cpus).map(|m| g.add_map(m));
    }
    g.m_scratch = g.add_map(map(
        "dt_scratch",
        MapRole::Scratch,
        MapKind::Array,
        4,
        0,
        cpus * 2,
    ));
    g.m_drops = g.add_map(map(
        "dt_drops",
        MapRole::Drops,
        MapKind::PercpuArray,
        4,
        drops::SIZE,
        1,
    ));

    // Speculations: a state word per ID; per ID and CPU, the bytes used
    // and the buffer (`specsize` bytes, the most an array element holds
    // being 4 MiB).
    if inp.clauses.iter().any(|c| c.uses_speculations()) {
        let nspec = opts.nspec.max(1);
        let specsize = (opts.specsize.max(64) / 8) * 8;
        let regions = nspec.saturating_mul(cpus).max(1);
        let state = g.add_map(map(
            "dt_spec_state",
            MapRole::SpecState,
            MapKind::Array,
            4,
            8,
            nspec + 1,
        ));
        let fill = g.add_map(map(
            "dt_spec_fill",
            MapRole::SpecFill,
            MapKind::Array,
            4,
            8,
            regions,
        ));
        let buf = g.add_map(map(
            "dt_spec_buf",
            MapRole::SpecBuf,
            MapKind::Array,
            4,
            specsize,
            regions,
        ));
        g.spec = Some(SpecMaps {
            state,
            fill,
            buf,
            nspec,
            specsize,
            ncpus: cpus,
        });
    }

    // Hash maps whose entries come and go are not preallocated, but
    // before 6.1 perf event programs (profile, tick) may use only
    // preallocated ones, and any other tracing program that uses one
    // makes the kernel warn (a WARNING, with its stack, that taints it).
    // Nor where a program runs in a hard interrupt (profile, tick and cpc
    // probes' perf events): a map that grows takes each new entry from a
    // per-CPU cache the kernel refills only after the interrupt, holding
    // one element for per-CPU maps, so the second new key of a firing
    // (`@a[execname] = count(); @b[pid] = count();`) found it empty and
    // was dropped.
    let in_irq = inp.plans.iter().any(|p| p.kind == ProgKind::PerfEvent);
    let grow_maps = opts.kernel.grow_maps && !in_irq;
    // Dynamic variables: each thread-local and each associative array is a
    // hash map; entries come and go, so they are not preallocated.
    let dyn_entries = |value: u32, key: u32| -> u32 {
        ((opts.dynvarsize / u64::from(value + key + 64)).clamp(1024, 1 << 20)) as u32
    };
    for (i, v) in inp.syms.threads.iter().enumerate() {
        let vs = layout::stored_size(&v.ty, strsize, types);
        let id = g.add_map(MapSpec {
            no_prealloc: grow_maps,
            ..map(
                &format!("dt_self_{}", i),
                MapRole::ThreadVar(i),
                MapKind::Hash,
                8,
                vs,
                dyn_entries(vs, 8),
            )
        });
        g.thread_maps.push(id);
    }
    // An array whose keys are larger than the kernel's hash key limit
    // (two strings at the default strsize) is keyed by the hash of the
    // key, the key itself kept in a map of its own under that hash.
    for (i, a) in inp.syms.arrays.iter().enumerate() {
        let str_caps: Vec<u32> = a.keys.iter().map(|_| strsize).collect();
        let (fields, ksize) = layout::tuple_layout(&a.keys, &str_caps, types);
        let vs = layout::stored_size(&a.value, strsize, types);
        let entries = dyn_entries(vs, ksize);
        let interned = (ksize > MAX_KEY).then(|| {
            g.add_map(MapSpec {
                no_prealloc: grow_maps,
                ..map(
                    &format!("dt_arrkeys_{}", i),
                    MapRole::ArrayKeys(i),
                    MapKind::Hash,
                    INTERNED_ELEM_KEY,
                    ksize,
                    entries,
                )
            })
        });
        let id = g.add_map(MapSpec {
            no_prealloc: grow_maps,
            ..map(
                &format!("dt_arr_{}", i),
                MapRole::Array(i),
                MapKind::Hash,
                if interned.is_some() {
                    INTERNED_ELEM_KEY
                } else {
                    ksize
                },
                vs,
                entries,
            )
        });
        g.array_maps.push(id);
        g.array_keys.push((fields, ksize));
        g.array_interned.push(interned);
    }

    // Stashes: what a hook keeps for each thread (and key) until the
    // probes that fire after it read it. Entries are overwritten, never
    // deleted (several probes may read one), so the least recently used
    // make way when the map is full.
    for p in inp.plans {
        let hooks = match &p.context {
            ArgContext::Stash { hook, .. } => vec![hook.clone()],
            ArgContext::RawArgs { after: Some(a), .. } => vec![a.hook.clone()],
            ArgContext::Hook(h) => h.stashes(),
            _ => continue,
        };
        for hook in &hooks {
            if g.stash_maps.iter().all(|(h, _)| h != hook) {
                let id = g.add_map(map(
                    &format!("dt_stash_{}", g.stash_maps.len()),
                    MapRole::Stash(hook.clone()),
                    MapKind::LruHash,
                    16,
                    16 + 8 * u32::from(STASH_WORDS),
                    16384,
                ));
                g.stash_maps.push((hook.clone(), id));
            }
        }
    }

    // Aggregations: per-CPU hashes. String keys are as wide as the widest
    // string any use stores there.
    let mut agg_caps: Vec<Vec<u32>> = inp
        .syms
        .aggs
        .iter()
        .map(|a| vec![0; a.keys.len()])
        .collect();
    for c in inp.clauses {
        visit_stmts(&c.stmts, &mut |s| {
            if let CStmt::AggUpdate { agg, keys, .. } = s {
                for (i, k) in keys.iter().enumerate() {
                    if k.ty.is_string() {
                        let cap = layout::str_cap(k, &caps);
                        if let Some(slot) = agg_caps[*agg].get_mut(i) {
                            *slot = (*slot).max(cap);
                        }
                    }
                }
            }
        });
    }
    // Aggregations share per-CPU hashes by the size class of their values
    // (`aggs::size_class`); a key is the aggregation's id (a word), then
    // its tuple, zero-padded to the widest key of the map.
    // A tuple too large for a hash key (two strings at the default
    // strsize) is interned: the key is the id and the tuple's hash.
    let mut tuples = Vec::new();
    let mut interned_sizes = Vec::new();
    let streamed: Vec<bool> = inp
        .syms
        .aggs
        .iter()
        .map(|a| dtrace_lang::ir::streamed_agg(&a.keys))
        .collect();
    for (i, a) in inp.syms.aggs.iter().enumerate() {
        let (mut keys, ksize) = layout::tuple_layout(&a.keys, &agg_caps[i], types);
        if streamed[i] {
            // Kept by the consumer: the key types only.
            interned_sizes.push(None);
            tuples.push((keys, 0));
            continue;
        }
        if ksize + 8 > MAX_KEY {
            interned_sizes.push(Some(ksize));
            tuples.push((keys, 16));
            continue;
        }
        for k in &mut keys {
            k.offset += 8;
        }
        interned_sizes.push(None);
        tuples.push((keys, ksize + 8));
    }
    // An aggregation with no keys has a slot of its own in one per-CPU
    // array: a word saying the slot was updated (so a CPU that never
    // fired adds nothing, and an aggregation never updated prints
    // nothing), then its values. An array's lookup is a few
    // instructions where a hash's is a hash of the key.
    let keyless: Vec<usize> = (0..inp.syms.aggs.len())
        .filter(|&i| inp.syms.aggs[i].keys.is_empty())
        .collect();
    let slots = if keyless.is_empty() {
        None
    } else {
        let widest = keyless
            .iter()
            .map(|&i| crate::aggs::size_class(inp.syms.aggs[i].func))
            .max()
            .unwrap_or(8);
        let id = g.add_map(map(
            "dt_agg_slots",
            MapRole::AggregationSlots,
            MapKind::PercpuArray,
            4,
            8 + widest,
            keyless.len() as u32,
        ));
        Some((id, widest))
    };
    let mut classes: Vec<(u32, u32, Option<MapId>)> = Vec::new();
    for (i, a) in inp.syms.aggs.iter().enumerate() {
        if a.keys.is_empty() || streamed[i] {
            continue;
        }
        let class = crate::aggs::size_class(a.func);
        match classes.iter_mut().find(|c| c.0 == class) {
            Some(c) => c.1 = c.1.max(tuples[i].1),
            None => classes.push((class, tuples[i].1, None)),
        }
    }
    for (n, c) in classes.iter_mut().enumerate() {
        let (vsize, ksize) = (c.0, c.1);
        // As many elements (a key on a CPU) as `aggsize` holds on each
        // CPU, as DTrace sizes each CPU's aggregation buffer, however few
        // (DTrace drops an update that does not fit, and says so).
        let entries = (opts.aggsize.saturating_mul(u64::from(cpus)) / u64::from(ksize + vsize + 32))
            .clamp(1, 1 << 24) as u32;
        // A hash whose elements are a key on one CPU (the key's first
        // word holds the CPU), not a per-CPU hash: a new key there costs
        // a per-CPU allocation, about 11 us, where this costs one small
        // one (1,000,000 keys: 12 s of the traced process's time against
        // under 1 s). Not preallocated where the kernel allows: an
        // aggregation holds a few keys most of the time.
        c.2 = Some(g.add_map(MapSpec {
            no_prealloc: grow_maps,
            ..map(
                &format!("dt_agg_{}", n),
                MapRole::Aggregation(n),
                MapKind::Hash,
                ksize,
                vsize,
                entries,
            )
        }));
    }
    for ((i, a), (keys, _)) in inp.syms.aggs.iter().enumerate().zip(tuples) {
        let interned = interned_sizes[i].map(|tuple_size| {
            let entries = (opts.aggsize / u64::from(tuple_size + 8 + 32)).clamp(1, 1 << 20) as u32;
            InternedKeys {
                map: g.add_map(MapSpec {
                    no_prealloc: grow_maps,
                    ..map(
                        &format!("dt_aggkeys_{}", i),
                        MapRole::AggregationKeys(i),
                        MapKind::Hash,
                        8,
                        tuple_size,
                        entries,
                    )
                }),
                tuple_size,
            }
        });
        if let (Some(slot), Some((map, widest))) = (keyless.iter().position(|&k| k == i), slots) {
            g.aggs.push(AggLayout {
                map,
                id: i as u64,
                func: a.func,
                keys: Vec::new(),
                key_size: 4,
                value_size: widest,
                slot: Some(slot as u32),
                interned: None,
                streamed: false,
            });
            continue;
        }
        if streamed[i] {
            g.aggs.push(AggLayout {
                map: MapId(u32::MAX),
                id: i as u64,
                func: a.func,
                keys,
                key_size: 0,
                value_size: crate::aggs::value_size(a.func),
                slot: None,
                interned: None,
                streamed: true,
            });
            continue;
        }
        let class = crate::aggs::size_class(a.func);
        let c = classes
            .iter()
            .find(|c| c.0 == class)
            .expect("class made above");
        g.aggs.push(AggLayout {
            map: c.2.expect("map made above"),
            id: i as u64,
            func: a.func,
            keys,
            key_size: c.1,
            value_size: c.0,
            slot: None,
            interned,
            streamed: false,
        });
    }

    let funcs: Vec<AggFunc> = inp.syms.aggs.iter().map(|a| a.func).collect();
    g.clause_layouts = inp
        .clauses
        .iter()
        .map(|c| layout::clause_layout(c, &caps, types, &funcs))
        .collect();
    // What END's clauses may record, each with the ring buffer's 8-byte
    // header, rounded as it rounds.
    let mut end_clauses: Vec<usize> = inp
        .plans
        .iter()
        .filter(|p| p.phase == Phase::End)
        .flat_map(|p| p.probes.iter().flat_map(|e| e.clauses.iter().map(|c| c.0)))
        .collect();
    end_clauses.sort_unstable();
    end_clauses.dedup();
    // The ring policy's chunks: at least the largest record, about an
    // eighth of the buffer (so a wrap forgets an eighth at most).
    if opts.policy == BufferPolicy::Ring {
        let largest = g.clause_layouts.iter().map(|l| l.size).max().unwrap_or(8);
        let bufsize = opts.bufsize.clamp(4096, 1 << 30);
        let chunk = ((bufsize / 8).max(u64::from(largest)).div_ceil(8) * 8).min(4 << 20) as u32;
        let chunks = (bufsize / u64::from(chunk)).clamp(1, 1 << 16) as u32;
        let n = cpus.max(1);
        let cur = g.add_map(map(
            "dt_ring_cur",
            MapRole::RingCur,
            MapKind::Array,
            4,
            8,
            n,
        ));
        let fill = g.add_map(map(
            "dt_ring_fill",
            MapRole::RingFill,
            MapKind::Array,
            4,
            8,
            n * chunks,
        ));
        let buf = g.add_map(map(
            "dt_ring",
            MapRole::RingBuf,
            MapKind::Array,
            4,
            chunk,
            n * chunks,
        ));
        g.ring = Some(RingMaps {
            cur,
            fill,
            buf,
            chunks,
            chunk,
            ncpus: n,
        });
    }
    g.end_reserve = end_clauses
        .iter()
        .filter_map(|&c| g.clause_layouts.get(c))
        .filter(|l| l.size > 0)
        .map(|l| u64::from(l.size + 8).div_ceil(8) * 8)
        .sum();

    let mut programs = Vec::new();
    let mut dispatch = Vec::new();
    let mut gate = 0u32;
    for (pi, plan) in inp.plans.iter().enumerate() {
        let gate_off = if plan.tick_gate.is_some() {
            gate += 1;
            Some(16 * gate - 8)
        } else {
            None
        };
        // One probe needs no table: the number filter admits only its
        // call, and its identity and EPIDs are constants.
        // One probe needs no table, but where the key also says whether
        // the probe fires (`HookAlways`), even one is looked up.
        let dmap = if plan.dispatch.is_some()
            && (plan.probes.len() > 1 || plan.dispatch == Some(DispatchKey::HookAlways))
        {
            let (table, id) = build_dispatch(&mut g, pi, plan)?;
            dispatch.push(table);
            Some(id)
        } else {
            None
        };
        let sleeps = g.allow_sleep && sleepable(inp, plan, g.m_substr.is_some());
        if sleeps && g.m_task_scratch.is_none() {
            g.m_task_scratch = Some(g.add_map(map(
                "dt_tscratch",
                MapRole::TaskScratch,
                MapKind::TaskStorage,
                4,
                0,
                0,
            )));
        }
        let code = crate::program::build(&mut g, plan, dmap, gate_off, sleeps)?;
        programs.push(GenProgram {
            plan: pi,
            code,
            sleepable: sleeps,
        });
    }

    let targets = match g.m_targets {
        Some(m) => Some(TargetSlots {
            map: m,
            slots: g.target_slots.clone(),
            exec_watch: crate::program::exec_watch(m, &g.target_slots)?,
        }),
        None => None,
    };

    let rsize = g.rodata.len() as u32;
    g.maps[g.m_rodata.0 as usize].value_size = rsize;
    let scratch_size = layout::round8(g.temp_base + g.temp_max).max(scratch::FIXED_END);
    if scratch_size > MAX_SCRATCH {
        return Err(GenError(
            "clauses need more scratch space than is available (lower strsize or scratchsize)"
                .into(),
        ));
    }
    g.maps[g.m_scratch.0 as usize].value_size = scratch_size;
    if let Some(m) = g.m_task_scratch {
        g.maps[m.0 as usize].value_size = scratch_size;
    }
    Ok(Generated {
        maps: g.maps,
        programs,
        rodata: g.rodata,
        walltime_offset_at: g.walltime_at,
        dispatch,
        clauses: g.clause_layouts,
        aggs: g.aggs,
        state_map: g.m_state,
        lock_map: g.m_lock,
        drops_map: g.m_drops,
        buffer_map: g.m_buffer,
        spec: g.spec,
        end_reserve: g.end_reserve,
        ring_size: g.ring_size,
        ring: g.ring,
        targets,
    })
}

/// Layout of a dispatch table value: probe id, one EPID per clause the
/// program contains, then the identity strings that differ between the
/// program's probes.
pub(crate) struct DispatchLayout {
    pub(crate) clauses: Vec<usize>,
    pub(crate) epid_at: u32,
    /// Offsets of provider/module/function/name when they vary.
    pub(crate) ident_at: [Option<u32>; 4],
    pub(crate) size: u32,
}

pub(crate) fn dispatch_layout(g: &Generator, plan: &ProgramPlan) -> DispatchLayout {
    let mut clauses: Vec<usize> = Vec::new();
    for e in &plan.probes {
        for &(c, _) in &e.clauses {
            if !clauses.contains(&c) {
                clauses.push(c);
            }
        }
    }
    clauses.sort_unstable();
    let epid_at = 4;
    let mut off = layout::round8(epid_at + 4 * clauses.len() as u32);
    let mut ident_at = [None; 4];
    let fields: [(IdentField, u32); 4] = [
        (|p| &p.provider, g.caps.provider),
        (|p| &p.module, g.caps.module),
        (|p| &p.function, g.caps.function),
        (|p| &p.name, g.caps.name),
    ];
    for (i, (get, cap)) in fields.iter().enumerate() {
        let first = plan.probes.first().map(|e| get(&e.probe).to_string());
        if plan
            .probes
            .iter()
            .any(|e| Some(get(&e.probe).to_string()) != first)
        {
            ident_at[i] = Some(off);
            off += layout::round8(*cap);
        }
    }
    DispatchLayout {
        clauses,
        epid_at,
        ident_at,
        size: off,
    }
}

fn build_dispatch(
    g: &mut Generator,
    pi: usize,
    plan: &ProgramPlan,
) -> Result<(DispatchTable, MapId), GenError> {
    let l = dispatch_layout(g, plan);
    let max_key = plan.probes.iter().map(|e| e.key).max().unwrap_or(0);
    // By a function's address, the table is a hash of its probe's entry
    // under each address; otherwise an array by key.
    let by_addr = match &plan.dispatch {
        Some(DispatchKey::FuncIp(at) | DispatchKey::ProbeIp(at)) => Some(at),
        _ => None,
    };
    let (kind, entries_max) = match by_addr {
        Some(at) => (MapKind::Hash, (at.len() as u32).max(1)),
        None => (MapKind::Array, max_key + 1),
    };
    let id = g.add_map(map(
        &format!("dt_disp_{}", pi),
        MapRole::Dispatch(pi),
        kind,
        4,
        l.size,
        entries_max,
    ));
    let mut entries = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut addrs_of: std::collections::HashMap<u32, Vec<u64>> = Default::default();
    for &(k, addr) in by_addr.into_iter().flatten() {
        addrs_of.entry(k).or_default().push(addr);
    }
    for e in &plan.probes {
        let mut v = vec![0u8; l.size as usize];
        v[0..4].copy_from_slice(&e.probe.id.to_ne_bytes());
        for &(c, epid) in &e.clauses {
            let slot = l
                .clauses
                .iter()
                .position(|&x| x == c)
                .expect("clause listed");
            let at = (l.epid_at + 4 * slot as u32) as usize;
            v[at..at + 4].copy_from_slice(&epid.to_ne_bytes());
        }
        let strs = [
            &e.probe.provider,
            &e.probe.module,
            &e.probe.function,
            &e.probe.name,
        ];
        for (i, s) in strs.iter().enumerate() {
            if let Some(at) = l.ident_at[i] {
                let at = at as usize;
                let b = s.as_bytes();
                v[at..at + b.len()].copy_from_slice(b);
            }
        }
        match by_addr {
            // An address two probes would share (functions are far
            // enough apart that none should) keeps the first.
            Some(_) => {
                for &addr in addrs_of.get(&e.key).into_iter().flatten() {
                    if seen.insert(addr as u32) {
                        entries.push((addr as u32, v.clone()));
                    }
                }
            }
            None => entries.push((e.key, v)),
        }
    }
    Ok((DispatchTable { map: id, entries }, id))
}

/// The IR visitor (`dtrace_lang::ir`), used by every pass here.
pub use crate::subr::search::uses_iterators;
pub use dtrace_lang::ir::{visit_clause_exprs, visit_stmts};

/// Register used for a value that must survive helper calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Temp {
    Reg(Reg),
    Stack(i16),
}

/// The function being generated (main program or error subprogram): its
/// own temporaries and stack frame.
pub(crate) struct Frame {
    pub(crate) free_regs: Vec<Reg>,
    pub(crate) free_slots: Vec<i16>,
    pub(crate) next_slot: i16,
}

/// Fixed stack slots of every frame.
pub mod stack {
    /// The probe context (main program only).
    pub const CTX: i16 = -8;
    /// The dispatch table entry (main program only).
    pub const DISPATCH: i16 = -16;
    /// A small key (u32 or u64) for map lookups.
    pub const KEY: i16 = -24;
    /// A u64 value for map updates.
    pub const VALUE: i16 = -32;
    /// First spill slot.
    pub const SPILL: i16 = -40;
}

impl Frame {
    pub(crate) fn new() -> Frame {
        Frame {
            free_regs: vec![R7, R6],
            free_slots: Vec::new(),
            next_slot: stack::SPILL,
        }
    }
}

/// Whether a clause reads user memory (`copyin()`, `copyinstr()`,
/// `copyinto()`): such a clause at a system call's entry may be deferred
/// to its return (`program::defer`).
pub fn reads_user(c: &CClause) -> bool {
    crate::program::defer::reads_user(c)
}

/// Emits `dst = imm` for any 64-bit constant.
pub(crate) fn load_imm(a: &mut Asm, dst: Reg, v: i64) {
    if v >= i64::from(i32::MIN) && v <= i64::from(i32::MAX) {
        a.emit(mov64_imm(dst, v as i32));
    } else {
        a.emit2(lddw(dst, v as u64));
    }
}

/// Emits code normalising `r` (a 64-bit value) to integer type `t`.
pub(crate) fn normalize(a: &mut Asm, r: Reg, t: &Type) {
    let Some(it) = t.as_int() else { return };
    if it.size >= 8 {
        return;
    }
    let shift = 64 - 8 * i32::from(it.size);
    a.emit(alu64_imm(Alu::Lsh, r, shift));
    a.emit(alu64_imm(
        if it.signed { Alu::Arsh } else { Alu::Rsh },
        r,
        shift,
    ));
}

/// The key of an associative array element whose key is interned: the
/// key's hash, then a word saying how it stands (see `expr::vars`).
pub(crate) const INTERNED_ELEM_KEY: u32 = 16;
