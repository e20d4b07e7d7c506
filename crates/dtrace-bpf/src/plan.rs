//! What the back end is asked to build and what it hands back: program
//! plans (which kernel hook, which probes and clauses it serves, how the
//! hook's context yields probe arguments), map specifications, and the
//! record layouts the consumer needs to decode the principal buffer.

use dtrace_lang::ir::{AggFunc, AggId, PrintfKind};
use dtrace_lang::printf::Format;
use dtrace_lang::types::Type;

use crate::asm::{Assembled, MapId};
use crate::hook::HookRef;

/// The kind of BPF program and so how it is attached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgKind {
    /// A perf tracepoint program (`sched/sched_switch`).
    Tracepoint,
    /// A raw tracepoint program (`sys_enter`), also used for BEGIN and END
    /// which the consumer runs with `BPF_PROG_TEST_RUN`.
    RawTracepoint,
    /// A perf event program (a cpu-clock timer, a counter's overflow).
    PerfEvent,
    /// A tracing program at a kernel function's entry (fentry) or return
    /// (fexit): its context is the function's arguments as 64-bit words,
    /// then, at return, the return value.
    Fentry,
    Fexit,
    /// A uprobe or uretprobe program (`BPF_PROG_TYPE_KPROBE`): its
    /// context is the traced thread's user registers (`struct pt_regs`).
    Uprobe,
    /// A kprobe or kretprobe program on kernel functions, through a
    /// kprobe_multi link (`BPF_PROG_TYPE_KPROBE`): its context is the
    /// kernel's registers at the function's entry or return.
    Kprobe,
}

/// How the hook's context provides the probe's arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgContext {
    /// No arguments (BEGIN, END): all zero.
    None,
    /// A perf event (a timer or counter's sample): arg0 = the kernel
    /// pc, arg1 = the user pc (the other 0).
    PerfEventPc,
    /// A tracepoint's record: each argument one of its fields.
    Tracepoint(Vec<TpArg>),
    /// A raw tracepoint (ctx: the hook's arguments as 64-bit words): each
    /// argument a hook word or a constant; the
    /// probe fires only if every guard holds. With `task`, the probe
    /// fires on behalf of the task that hook word points to (at a
    /// context switch, the incoming thread): `curthread`,
    /// `pid`, `tid`, `ppid`, `uid`, `gid`, `execname`, `vtimestamp` and
    /// `self->` variables are that task's.
    RawArgs {
        words: Vec<RawWord>,
        guards: Vec<Guard>,
        task: Option<u8>,
        /// The probe fires only after another hook, whose words a
        /// [`ArgContext::Stash`] program kept for this thread; `$N` words
        /// and guards read them.
        after: Option<After>,
    },
    /// A program that serves no probe: at its raw tracepoint it keeps the
    /// time and the first `nwords` hook words for the current thread,
    /// keyed also by hook word `key` (a lock's address), in the stash map
    /// of `hook` (its own name), for the probes that fire `after` it
    /// (a lock's contention beginning, for the probes at its end).
    /// With `keep`, it also keeps the current task's member at that
    /// offset and of that size (its count of voluntary context switches:
    /// whether the thread slept between the two hooks, see [`Kept`]).
    Stash {
        hook: String,
        key: u8,
        nwords: u8,
        keep: Option<(u32, u8)>,
    },
    /// A probe at a user function or instruction, in process `pid` alone (a uprobe is on a
    /// file, which other processes may map). At entry, arg0-arg5 are the
    /// x86-64 argument registers and arg6-arg9 the words after the return
    /// address on the user stack (0 where unreadable); at return
    /// (`ret`: a uprobe at each place the function returns, as DTrace's
    /// return probes are), arg0 is DTrace's offset of the return
    /// instruction in the function, the high half of the attachment's
    /// cookie (its low half is the dispatch key), and arg1 the return
    /// value.
    Uprobe { ret: bool, pid: u32 },
    /// A probe at a kernel function's entry or return through a kprobe
    /// (many functions at once, or where fentry is refused): at entry
    /// arg0-arg5 are the x86-64 argument registers and arg6-arg9 the
    /// words after the return address on the kernel stack; at return
    /// (`ret`), arg0 is 0 and arg1 the return value, as at an fexit.
    Kprobe { ret: bool },
    /// A provider's own hook (see [`crate::hook`]): its arguments, and
    /// any steps of its own, are the hook's.
    Hook(HookRef),
}

impl ArgContext {
    /// The process a user-level probe is in.
    pub fn process(&self) -> Option<u32> {
        match self {
            ArgContext::Uprobe { pid, .. } => Some(*pid),
            ArgContext::Hook(h) => h.process(),
            _ => None,
        }
    }
}

/// The hook a probe fires after (see [`ArgContext::Stash`]): the stash is
/// looked up by the current thread and this hook's word `key`; a probe
/// with none kept does not fire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct After {
    pub hook: String,
    pub key: u8,
    /// A test of the current task's member the stash kept, if any.
    pub kept: Option<Kept>,
}

/// A probe that fires after another hook, whose stash kept a member of
/// the current task there (`ArgContext::Stash::keep`): the probe fires
/// only if the member is now different (`changed`), or only if it is
/// the same. A lock's slow path, entered and returned from, slept if
/// the thread's count of voluntary context switches moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kept {
    pub offset: u32,
    pub size: u8,
    pub changed: bool,
}

/// How many hook words a stash keeps at most.
pub const STASH_WORDS: u8 = 4;

/// Where a raw tracepoint probe's argument comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawWord {
    /// The hook's argument word of this index (0 for an index past 11).
    Hook(u8),
    /// The same word, copied out of the context with
    /// `bpf_probe_read_kernel` rather than loaded: a tracing program's
    /// argument the verifier will not let it load (before Linux 6.x, a
    /// pointer to anything but a struct).
    HookCopied(u8),
    /// A constant (sysinfo's increment of 1; 0 where the hook does not
    /// have the argument).
    Const(i64),
    /// A word the stash kept at the hook this probe fires after (`$N`).
    Stashed(u8),
    /// The nanoseconds since the stash was kept (`$elapsed`: how long a
    /// lock was waited for).
    Elapsed,
    /// Read through the hook's argument word `word`, a kernel pointer:
    /// the unsigned value of `size` bytes (8 for a pointer) at `+ptr`,
    /// plus, with `add`, the unsigned
    /// integer of `add.1` bytes at `+add.0` (an `sk_buff`'s `data`, or
    /// its `head + network_header`: where a packet's IP header is). 0
    /// where the memory cannot be read.
    Load {
        word: u8,
        ptr: u32,
        size: u8,
        add: Option<(u32, u8)>,
    },
}

/// A condition on a raw tracepoint's argument word: `word & mask`
/// equals `value` (`eq`) or differs from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard {
    pub word: u8,
    /// The word is one the stash kept (`$N`), not the hook's.
    pub stashed: bool,
    pub mask: u64,
    pub value: u64,
    pub eq: bool,
    /// The guard is on the member at this offset and of this size in
    /// what the (hook's) word points to, not on the word (0 where it
    /// cannot be read).
    pub load: Option<(u32, u8)>,
    /// The (hook's) word is copied out of the context rather than loaded
    /// (see [`RawWord::HookCopied`]): a tracing program's pointer, which
    /// the verifier lets no program mask or compare with a number.
    pub copied: bool,
}

/// A tracepoint field as an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TpArg {
    /// Its offset and size in the record.
    pub offset: u16,
    pub size: u16,
    pub signed: bool,
    pub load: TpLoad,
}

/// How a tracepoint field becomes an argument's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TpLoad {
    /// An integer of 1, 2, 4 or 8 bytes, sign-extended if signed.
    Value,
    /// The field's address (arrays, and anything wider than 8 bytes).
    Address,
    /// `__data_loc`: a 32-bit (length << 16 | offset) of data at the end
    /// of the record; the data's address.
    DataLoc,
}

/// Where the dispatch key of a shared program comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DispatchKey {
    /// The attachment's cookie (`bpf_get_attach_cookie`): one program
    /// attached at many places, each with its probe's key.
    Cookie,
    /// What the program's hook computes ([`crate::hook::Hook::dispatch_key`]:
    /// a system call's number); with one probe, no table is looked up.
    Hook,
    /// What the hook computes, looked up even for one probe: the key
    /// also says whether the probe fires (which of a place's probes did,
    /// by the traced function's result).
    HookAlways,
    /// The traced kernel function's address (`bpf_get_func_ip`): one
    /// kprobe event at many functions, whose probes share one perf event
    /// and so no cookie. Each `(key, address)` says a probe's function
    /// is at that address (a name may be at several); the table is
    /// keyed by the address's low 32 bits, which tell kernel functions
    /// apart (the kernel's and its modules' code lie in the top 2 GB of
    /// the address space).
    FuncIp(Vec<(u32, u64)>),
    /// The kprobe's own address, as the kernel leaves the instruction
    /// pointer for every kprobe (a breakpoint's, an optimized kprobe's
    /// jump, ftrace's: one byte past it), for kprobes that do not stand
    /// at a function's first byte, where `bpf_get_func_ip` tells nothing;
    /// the `(key, address)` pairs as for `FuncIp`.
    ProbeIp(Vec<(u32, u64)>),
}

/// A probe as the BPF code sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeIdentity {
    pub id: u32,
    pub provider: String,
    pub module: String,
    pub function: String,
    pub name: String,
}

/// One probe served by a program and the clauses (by index into the
/// program-wide clause list) enabled on it, each with its EPID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeEnabling {
    pub probe: ProbeIdentity,
    /// Dispatch key for shared programs (cookie, or the hook's).
    pub key: u32,
    pub clauses: Vec<(usize, u32)>,
}

/// Which activity state a program's clauses require.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Begin,
    Normal,
    End,
}

/// Activity states kept in the state map, as DTrace names them.
pub mod activity {
    pub const INACTIVE: u32 = 0;
    pub const WARMUP: u32 = 1;
    pub const ACTIVE: u32 = 2;
    pub const DRAINING: u32 = 3;
    pub const COOLDOWN: u32 = 4;
    pub const STOPPED: u32 = 5;
}

/// A request for one BPF program.
#[derive(Clone, Debug)]
pub struct ProgramPlan {
    pub name: String,
    pub kind: ProgKind,
    pub context: ArgContext,
    pub phase: Phase,
    /// The probes this program serves. More than one requires `dispatch`.
    pub probes: Vec<ProbeEnabling>,
    pub dispatch: Option<DispatchKey>,
    /// tick-N: fire at most once per `period_ns` across all CPUs (the
    /// event is opened on every CPU, since idle CPUs may not tick).
    pub tick_gate: Option<u64>,
    /// The provider's condition on the probe's arguments (see
    /// `dtrace_lang::guard_expr`): the clauses run only if it is
    /// nonzero; a fault while evaluating it is no firing, not an error.
    pub guard: Option<dtrace_lang::ir::CExpr>,
    /// The attachment's cookie as a constant, for a program attached at
    /// one place on a kernel without attach cookies (before 5.15): what
    /// `bpf_get_attach_cookie` would have returned there.
    pub cookie: Option<u64>,
}

/// Map roles, so the consumer knows what to do with each map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MapRole {
    /// The principal buffer (BPF ring buffer).
    Buffer,
    /// Clauses deferred from a system call's entry to its return, by
    /// thread (`hook::Hook::defers_user_faults`).
    Deferred,
    /// Activity state and tick gates.
    State,
    /// The locks of emulated compare-and-exchange (kernels before 5.12).
    Lock,
    /// Read-only data: string constants, the zero block, the wall-clock
    /// offset. Filled by the consumer, then frozen.
    Rodata,
    Globals,
    /// Per-CPU scratch: probe arguments, clause-locals, temporaries.
    Scratch,
    /// The same scratch, one per thread (task storage): what sleepable
    /// programs use, since another program may run on their CPU while
    /// they wait for a page.
    TaskScratch,
    /// Per-CPU drop counters.
    Drops,
    /// Speculations (see `SpecMaps`).
    SpecState,
    SpecFill,
    SpecBuf,
    /// The ring policy (see `RingMaps`).
    RingCur,
    RingFill,
    RingBuf,
    ThreadVar(usize),
    Array(usize),
    /// The keys of associative array `n` when they are too large for
    /// the kernel's hash key: each key's bytes by its hash (see
    /// `expr::vars`'s `intern_elem_key`).
    ArrayKeys(usize),
    Aggregation(AggId),
    /// The tuples of aggregation `n`, by hash ([`InternedKeys`]).
    AggregationKeys(AggId),
    /// The per-CPU array of the aggregations that have no keys.
    AggregationSlots,
    /// Dispatch table of program `n`.
    Dispatch(usize),
    /// The per-thread words kept at a hook (see [`ArgContext::Stash`]).
    Stash(String),
    /// The processes user-level probes are in (see [`TargetSlots`]).
    Targets,
    /// Substring searches without the number iterator (kernels before
    /// 6.4): each scratch element's needle, a key the windows of the
    /// haystack are looked up as (see `subr::search`).
    Substring,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapKind {
    Hash,
    Array,
    PercpuHash,
    PercpuArray,
    Ringbuf,
    /// One ring buffer per CPU (`value_size` bytes each, `max_entries`
    /// of them): on a machine of up to `RINGS_CHOSEN_IN_CODE` CPUs, each
    /// one's map is named in the programs (`Asm::ld_map_fd_part`), which
    /// choose theirs by CPU; on a larger one they are in an array of
    /// maps indexed by CPU.
    RingbufPerCpu,
    /// A hash that evicts its least recently used entries when full.
    LruHash,
    /// Storage local to each thread (`value_size` bytes), made when a
    /// program first asks for it.
    TaskStorage,
}

/// Up to this many CPUs, a program chooses its CPU's principal buffer
/// with a comparison per CPU instead of an array of maps: setting the
/// elements of an array of maps waits for an RCU grace period (10-13 ms
/// on the machines measured), longer than the rest of a one-liner's
/// start-up, and the comparisons cost less than the lookup.
pub const RINGS_CHOSEN_IN_CODE: u32 = 8;

/// Whether the programs for `ncpus` CPUs choose their buffer in code
/// (see `RINGS_CHOSEN_IN_CODE`).
pub fn rings_chosen_in_code(ncpus: u32) -> bool {
    ncpus <= RINGS_CHOSEN_IN_CODE
}

#[derive(Clone, Debug)]
pub struct MapSpec {
    pub name: String,
    pub role: MapRole,
    pub kind: MapKind,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    pub readonly_prog: bool,
    pub no_prealloc: bool,
}

/// Offsets of the per-CPU drop counters (u64 each).
pub mod drops {
    pub const BUFFER: u32 = 0;
    pub const AGGREGATION: u32 = 8;
    pub const DYNAMIC: u32 = 16;
    pub const ERROR: u32 = 24;
    /// Speculative records that did not fit their speculative buffer.
    pub const SPECULATIVE: u32 = 32;
    /// speculation() with every buffer committing or discarding.
    pub const SPEC_BUSY: u32 = 40;
    /// speculation() with every buffer in use.
    pub const SPEC_UNAVAIL: u32 = 48;
    pub const SIZE: u32 = 56;
}

/// Speculations: the states of a speculative buffer, and the record a
/// `commit()` or `discard()` leaves in the principal buffer for the
/// consumer (header, u32 ID, u32 operation), which then copies out or
/// drops the buffer's data on every CPU and frees it at `cleanrate`.
pub mod spec {
    pub const INACTIVE: i32 = 0;
    pub const ACTIVE: i32 = 1;
    pub const COMMITTING: i32 = 2;
    pub const DISCARDING: i32 = 3;
    /// The EPID of commit and discard records.
    pub const EPID: u32 = u32::MAX - 1;
    pub const RECORD_SIZE: u32 = super::RECORD_HEADER + 8;
    pub const OP_COMMIT: i32 = 1;
    pub const OP_DISCARD: i32 = 2;
}

/// How a recorded value is stored and should be interpreted.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// An integer stored as 8 bytes, already normalised to its type.
    Int {
        offset: u32,
        ty: Type,
    },
    /// A NUL-terminated string in `size` bytes.
    Str {
        offset: u32,
        size: u32,
    },
    /// A value known at compile time: nothing is recorded.
    ConstInt {
        value: i64,
        ty: Type,
    },
    /// A by-reference value (struct, union, array, `long double`): `size`
    /// bytes at `offset`.
    Bytes {
        offset: u32,
        size: u32,
        ty: Type,
    },
    ConstStr(Vec<u8>),
}

/// One action of a clause, as the consumer must process it.
#[derive(Clone, Debug, PartialEq)]
pub enum ActionLayout {
    Trace(Value),
    /// printf(), system() and freopen(): the format and its values.
    Printf {
        format: Format,
        args: Vec<Value>,
        kind: PrintfKind,
    },
    Exit(Value),
    /// ftruncate() of the output file.
    Ftruncate,
    Printa {
        format: Option<Format>,
        aggs: Vec<AggId>,
    },
    Clear(AggId),
    Trunc(AggId, Option<Value>),
    /// normalize() with its factor, denormalize() without.
    Normalize(AggId, Option<Value>),
    /// setopt(): the option's name and value.
    Setopt(Value, Option<Value>),
    /// print(): the value, shown with its type.
    Print(Value),
    /// tracemem(): the bytes, and how many of them to show.
    Tracemem(Value, Option<Value>),
    /// An update of a streamed aggregation (`AggLayout::streamed`): its
    /// keys as recorded, then at `words` the aggregating function's
    /// words as this one update leaves them from zero, for the consumer
    /// to fold into its own copy.
    AggUpdate {
        agg: AggId,
        keys: Vec<Value>,
        words: u32,
    },
    /// A statement that records nothing (a record of size 0, as
    /// DTrace's DIFEXPR record for an assignment): the consumer's record
    /// callback sees it, the output does not.
    Statement(StmtKind),
}

/// What a statement that records nothing is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StmtKind {
    /// An expression evaluated for its effect (an assignment, a call).
    Expr,
    /// raise() or stop().
    Raise,
    /// chill().
    Chill,
    /// copyout() or copyoutstr().
    Copyout,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RecordedAction {
    pub action: ActionLayout,
    /// For actions under an `if`: offset of a u64 that is 1 when the
    /// action ran.
    pub ran_flag: Option<u32>,
    /// DTrace's action number, for messages.
    pub index: u32,
}

/// The record a clause leaves in the principal buffer.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ClauseLayout {
    /// Total size, header included; 0 if the clause records nothing.
    pub size: u32,
    pub actions: Vec<RecordedAction>,
}

/// Every record starts with `{ u32 epid; u32 cpu; }`.
pub const RECORD_HEADER: u32 = 8;
/// The EPID of error records.
pub const ERROR_EPID: u32 = u32::MAX;
/// The EPID of a user stack's snapshot (`types::ustack_snapshot`): the
/// header, then the snapshot, as long as the stack copied.
pub const USTACK_EPID: u32 = u32::MAX - 2;
/// Error record: header, then u32 faulting epid, u32 action, u64 fault,
/// u64 address, i64 offset.
pub const ERROR_RECORD_SIZE: u32 = RECORD_HEADER + 8 + 8 + 8 + 8;

/// How an aggregation's keys and values are laid out. Aggregations share
/// maps (`dtrace_bpf::aggs`): a key is the aggregation's `id` as its first
/// word, then the tuple (`keys`, offsets counted from the key's start),
/// zero-padded to the map's `key_size`.
#[derive(Clone, Debug, PartialEq)]
pub struct AggLayout {
    pub map: MapId,
    pub id: u64,
    pub func: AggFunc,
    pub keys: Vec<KeyField>,
    /// The map's key size in bytes. A key begins with a word holding
    /// the aggregation's id (low half) and the CPU (high half): each CPU
    /// keeps its own element of a key (see [`agg_key_word`]).
    pub key_size: u32,
    /// The map's value size in bytes, one CPU's (at least the
    /// function's).
    pub value_size: u32,
    /// An aggregation with no keys: its index in the per-CPU array
    /// `map` (`MapRole::AggregationSlots`), whose element on each CPU is
    /// a word set once the slot is updated, then the values
    /// (`value_size` bytes).
    pub slot: Option<u32>,
    /// A tuple larger than the kernel's hash keys (512 bytes): the map's
    /// key is the id, then the tuple's hash; the tuple itself is in
    /// another map, by its hash (see [`InternedKeys`]). `keys`' offsets
    /// are then counted from the tuple's start.
    pub interned: Option<InternedKeys>,
    /// Kept by the consumer, not in a map (`map` is not used): a key is a
    /// user stack, which only the consumer can unwind, so each update is
    /// a record (`ActionLayout::AggUpdate`); `keys` gives the key types.
    pub streamed: bool,
}

/// The first word of an aggregation's key: its id and the CPU whose
/// element it is.
pub fn agg_key_word(id: u64, cpu: u32) -> u64 {
    (u64::from(cpu) << 32) | (id & 0xffff_ffff)
}

/// The aggregation id and CPU of an aggregation key's first word.
pub fn agg_key_parts(word: u64) -> (u64, u32) {
    (word & 0xffff_ffff, (word >> 32) as u32)
}

/// Where the tuples of an aggregation too large for a hash key are kept:
/// a hash map from a tuple's 64-bit hash to the tuple (`tuple_size`
/// bytes). An update whose hash is there for another tuple is dropped,
/// and counted as an aggregation drop; the consumer reads a row's tuple
/// through its hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InternedKeys {
    pub map: MapId,
    pub tuple_size: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct KeyField {
    pub offset: u32,
    pub size: u32,
    pub ty: Type,
}

/// Fault codes, as DTrace numbers them (the ERROR probe's arg4).
pub mod fault {
    pub const BADADDR: u64 = 1;
    pub const BADALIGN: u64 = 2;
    pub const ILLOP: u64 = 3;
    pub const DIVZERO: u64 = 4;
    pub const NOSCRATCH: u64 = 5;
    pub const KPRIV: u64 = 6;
    pub const UPRIV: u64 = 7;
    pub const TUPOFLOW: u64 = 8;
    pub const BADSTACK: u64 = 9;
}

/// A generated program.
#[derive(Clone, Debug)]
pub struct GenProgram {
    pub plan: usize,
    pub code: Assembled,
    /// Loaded sleepable (`BPF_F_SLEEPABLE`): a uprobe program whose reads
    /// of user memory may fault pages in (see `codegen::sleepable`).
    pub sleepable: bool,
}

/// Initial contents of a dispatch table: (key, value) pairs.
#[derive(Clone, Debug)]
pub struct DispatchTable {
    pub map: MapId,
    pub entries: Vec<(u32, Vec<u8>)>,
}

/// Everything the consumer needs to load, attach and decode.
#[derive(Clone, Debug)]
pub struct Generated {
    pub maps: Vec<MapSpec>,
    pub programs: Vec<GenProgram>,
    pub rodata: Vec<u8>,
    /// Offset in rodata of the wall-clock offset (i64) the consumer fills.
    pub walltime_offset_at: u32,
    pub dispatch: Vec<DispatchTable>,
    /// Indexed like the clause list.
    pub clauses: Vec<ClauseLayout>,
    /// Indexed by aggregation id.
    pub aggs: Vec<AggLayout>,
    pub state_map: MapId,
    /// Where compare-and-exchange is emulated: its lock map, whose key
    /// `lock_key::STATE` the consumer holds while it writes the state.
    pub lock_map: Option<MapId>,
    pub drops_map: MapId,
    pub buffer_map: MapId,
    /// With speculations: their state, fill and buffer maps.
    pub spec: Option<SpecMaps>,
    /// The most END's clauses may record (their records with the ring
    /// buffer's headers): what the `fill` policy keeps free.
    pub end_reserve: u64,
    /// Each CPU's principal buffer, in bytes.
    pub ring_size: u64,
    /// With the `ring` policy: its maps.
    pub ring: Option<RingMaps>,
    /// With user-level probes: the processes they are in.
    pub targets: Option<TargetSlots>,
}

/// The processes user-level probes are in, one
/// slot of two words each in one array element (`map`, key 0): the
/// process ID while its image is the one the probes were made for, then
/// 0, and how many more execs keep it (1 for a `-c` command held before
/// its own exec, else 0). A probe's program compares the process that
/// hit it with its slot's first word; `exec_watch`, a raw tracepoint
/// program at `sched_process_exec`, counts a slot's execs down and then
/// clears its first word, so that a process's probes end with its image,
/// as DTrace's do (the new image may map the same files, libc always).
#[derive(Clone, Debug)]
pub struct TargetSlots {
    pub map: MapId,
    /// (process ID, offset of its slot in the element).
    pub slots: Vec<(u32, u32)>,
    pub exec_watch: Assembled,
}

/// The `ring` policy's buffers: per CPU, `chunks` arrays of `chunk`
/// bytes (`buf`, key `cpu * chunks + n`), the bytes each holds (`fill`,
/// same keys), and the chunk being written (`cur`, key `cpu`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RingMaps {
    pub cur: MapId,
    pub fill: MapId,
    pub buf: MapId,
    pub chunks: u32,
    pub chunk: u32,
    pub ncpus: u32,
}

/// The maps of speculations: `state` one word per ID (index 0 unused);
/// `fill` and `buf` one element per ID and CPU (index `(id - 1) * ncpus
/// + cpu`): the bytes used, and the records (`specsize` bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpecMaps {
    pub state: MapId,
    pub fill: MapId,
    pub buf: MapId,
    pub nspec: u32,
    pub specsize: u32,
    /// CPUs (the regions per ID).
    pub ncpus: u32,
}

/// Tunables and kernel facts the generator needs.
#[derive(Clone, Debug)]
pub struct GenOptions {
    pub strsize: u32,
    /// The bytes of user stack a `ustack()` snapshot copies at most
    /// (`ustackbytes`).
    pub ustackbytes: u32,
    /// The bytes a clause may allocate (`scratchsize`, rounded up to
    /// 8: `dtrace_lang::types::round_scratch`).
    pub scratchsize: u32,
    pub bufsize: u64,
    pub aggsize: u64,
    pub dynvarsize: u64,
    /// `task_struct` and `cred` offsets from BTF, when a program needs
    /// them.
    pub task: TaskOffsets,
    pub ncpus: u32,
    /// The `cpu` option: probes fire only on this CPU.
    pub only_cpu: Option<u32>,
    /// Wake the consumer as records arrive (the default); without it
    /// records are submitted with `BPF_RB_NO_WAKEUP` and the consumer
    /// reads the buffer at its `switchrate`.
    pub wakeup: bool,
    /// The BTF ids of the kernel's number iterator, which chill() turns
    /// on; `None` where the kernel has none.
    pub iter_num: Option<IterNumKfuncs>,
    /// Speculative buffers (`nspec`), and the size of each on each CPU
    /// (`specsize`).
    pub nspec: u32,
    pub specsize: u32,
    /// What a full principal buffer does.
    pub policy: BufferPolicy,
    /// What the kernel's BPF has, where code generation has a choice.
    pub kernel: KernelCaps,
    /// Whether the quantizations keep the sum of their values (word 0 of
    /// their data, there either way), which only the metrics endpoint's
    /// histograms read: updating it touches another cache line, about 8
    /// ns a firing, so it is kept only when asked.
    pub dist_sums: bool,
}

/// What the kernel's BPF offers where the code generator has another
/// way (libdtrace fills it from `dtrace_sys::features`). The default is
/// everything, as on the newest kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelCaps {
    /// The atomic compare-and-exchange instruction (Linux 5.12); without
    /// it the exchange is emulated under a lock (`program/atomics.rs`).
    pub atomics: bool,
    /// `bpf_strncmp` (Linux 5.17); without it a string is compared with
    /// a constant byte by byte, as with another string.
    pub strncmp: bool,
    /// Signed division and modulo instructions (cpu v4, Linux 6.6);
    /// without them they are made of the unsigned ones.
    pub signed_div: bool,
    /// `gotol`, jumps beyond 32,767 instructions (Linux 6.4); without it
    /// a program that needs one is refused with a message that says so.
    pub long_jumps: bool,
    /// Tracing programs may use hash maps that are not preallocated
    /// (the BPF memory allocator, Linux 6.1); without it every hash map
    /// is preallocated: before, perf event programs are refused such a
    /// map and the others make the kernel warn.
    pub grow_maps: bool,
    /// How `uregs[]` finds the current thread's user registers outside a
    /// uprobe (whose context they are).
    pub user_regs: UserRegs,
    /// `bpf_loop` (Linux 5.17), whose callback the verifier checks once:
    /// `chill()` spins on it where there is no number iterator.
    pub bpf_loop: bool,
    /// Sleepable uprobe programs and task storage (Linux 6.0): a pid or
    /// USDT probe reading user memory may fault its pages in.
    pub sleepable_uprobes: bool,
}

/// Where the current thread's user registers are (`uregs[]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UserRegs {
    /// `bpf_task_pt_regs` of `bpf_get_current_task_btf` (Linux 5.15).
    Helper,
    /// At the top of the thread's kernel stack, as the kernel's
    /// `task_pt_regs()` finds them: `task->stack` (the word at byte
    /// `stack` of `task_struct`) plus `from_stack` bytes.
    StackTop { stack: u32, from_stack: u32 },
    /// Nowhere known: `uregs[]` is refused, with the reason.
    Unknown(&'static str),
}

impl Default for KernelCaps {
    fn default() -> Self {
        KernelCaps {
            atomics: true,
            strncmp: true,
            signed_div: true,
            long_jumps: true,
            grow_maps: true,
            user_regs: UserRegs::Helper,
            bpf_loop: true,
            sleepable_uprobes: true,
        }
    }
}

/// The principal buffers' policy (the `bufpolicy` option).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BufferPolicy {
    /// A record that does not fit is dropped and counted.
    #[default]
    Switch,
    /// A record that would not leave room for END's in its CPU's buffer
    /// stops tracing (exit()'s DRAINING).
    Fill,
    /// The newest records overwrite the oldest (see `RingMaps`).
    Ring,
}

/// `bpf_iter_num_new`, `_next` and `_destroy`, by BTF id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IterNumKfuncs {
    pub new: u32,
    pub next: u32,
    pub destroy: u32,
}

/// Where a task's facts are in the kernel's `task_struct` (and its
/// `cred`), from BTF: what `ppid` and `vtimestamp` read, and every
/// built-in of a probe that fires on behalf of another task.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskOffsets {
    pub real_parent: Option<u32>,
    pub tgid: Option<u32>,
    pub pid: Option<u32>,
    pub comm: Option<u32>,
    pub cred: Option<u32>,
    /// `cred.uid.val` and `cred.gid.val`.
    pub cred_uid: Option<u32>,
    pub cred_gid: Option<u32>,
    pub sum_exec_runtime: Option<u32>,
    /// `task_struct.mm` and `mm_struct.start_stack`: where the main
    /// thread's stack began, which a user stack's copy need not pass.
    pub mm: Option<u32>,
    pub mm_start_stack: Option<u32>,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            strsize: 256,
            ustackbytes: dtrace_lang::types::DEFAULT_USTACKBYTES,
            scratchsize: 16 << 10,
            bufsize: 4 << 20,
            aggsize: 4 << 20,
            dynvarsize: 1 << 20,
            task: TaskOffsets::default(),
            ncpus: 1,
            only_cpu: None,
            wakeup: true,
            iter_num: None,
            nspec: 1,
            specsize: 4 << 20,
            policy: BufferPolicy::Switch,
            kernel: KernelCaps::default(),
            dist_sums: false,
        }
    }
}
