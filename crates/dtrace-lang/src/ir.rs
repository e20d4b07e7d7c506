//! The checked program: every name resolved, every expression typed, every
//! action and aggregation identified. This is what the BPF back end lowers
//! and what the consumer uses to describe records.

use crate::pdesc::ProbeDesc;
use crate::printf::Format;
use crate::types::Type;

pub type VarId = usize;
pub type ArrayId = usize;
pub type AggId = usize;

/// A variable with its scope and identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarRef {
    Global(VarId),
    Thread(VarId),
    Local(VarId),
}

#[derive(Clone, Debug, PartialEq)]
pub struct VarInfo {
    pub name: String,
    pub ty: Type,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ArrayInfo {
    pub name: String,
    pub keys: Vec<Type>,
    pub value: Type,
}

/// An aggregating function with its constant parameters. What each one
/// stores, how it is updated, merged and decoded is `dtrace_bpf::aggs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggFunc {
    Count,
    Sum,
    Min,
    Max,
    Avg,
    Stddev,
    Quantize,
    Lquantize {
        base: i32,
        limit: i32,
        step: u16,
    },
    Llquantize {
        factor: u16,
        low: u16,
        high: u16,
        nsteps: u16,
    },
}

impl AggFunc {
    pub fn name(self) -> &'static str {
        match self {
            AggFunc::Count => "count",
            AggFunc::Sum => "sum",
            AggFunc::Min => "min",
            AggFunc::Max => "max",
            AggFunc::Avg => "avg",
            AggFunc::Stddev => "stddev",
            AggFunc::Quantize => "quantize",
            AggFunc::Lquantize { .. } => "lquantize",
            AggFunc::Llquantize { .. } => "llquantize",
        }
    }

    /// Whether two uses are of the same function (parameters aside).
    pub fn same_kind(self, other: AggFunc) -> bool {
        self.name() == other.name()
    }
}

/// Power-of-two buckets: 63 negative, zero, 63 positive.
pub const QUANTIZE_BUCKETS: usize = 127;
pub const QUANTIZE_ZERO: usize = 63;

pub fn lquantize_levels(base: i32, limit: i32, step: u16) -> usize {
    ((i64::from(limit) - i64::from(base)) / i64::from(step.max(1))) as usize
}

#[derive(Clone, Debug, PartialEq)]
pub struct AggInfo {
    pub name: String,
    pub func: AggFunc,
    pub keys: Vec<Type>,
    /// Line of the first use, for messages.
    pub line: u32,
}

/// Built-in variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    Pid,
    Tid,
    Ppid,
    Uid,
    Gid,
    Execname,
    Timestamp,
    Vtimestamp,
    Walltimestamp,
    Cpu,
    Errno,
    Probeprov,
    Probemod,
    Probefunc,
    Probename,
    Id,
    Epid,
    Curthread,
    /// The kernel PC the probe's function returns to (frame 1 of the
    /// kernel stack), and the user-level one (of the user stack).
    Caller,
    Ucaller,
    /// Frames on the kernel and the user stack.
    Stackdepth,
    Ustackdepth,
    /// The address of the current thread's saved user registers (its
    /// `struct pt_regs`), as `uint64_t *`: `uregs[R_x]` reads through it.
    Uregs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Shl,
    Shr,
    And,
    Or,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogOp {
    And,
    Or,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    BitNot,
    LogNot,
}

#[derive(Clone, Debug, PartialEq)]
pub enum LValue {
    Var(VarRef),
    Elem(ArrayId, Vec<CExpr>),
    /// A member or element inside a variable of struct, union or array
    /// type (`x.a`, `self->s.arr[i]`): `offset` bytes into the storage of
    /// `base` (whose stored value is `limit` bytes), an object of type
    /// `ty`, or a bit-field (bit offset from `offset`, width).
    Field {
        base: Box<LValue>,
        offset: Box<CExpr>,
        ty: Type,
        bits: Option<(u64, u32)>,
        limit: u32,
    },
    /// A scalar of type `ty` in memory, at the address `addr` (`*p = v`,
    /// `p->m = v`, `p[i] = v`): only scratch memory that `alloca()` or
    /// `copyin()` gave may be written; any other address is an invalid
    /// address when the store runs.
    Mem {
        addr: Box<CExpr>,
        ty: Type,
    },
}

/// How `CKind::InetNtop` writes an IPv4-mapped or -compatible address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InetMode {
    /// `inet_ntop` and `inet_ntoa`: an IPv4-mapped or -compatible IPv6
    /// address as `::ffff:a.b.c.d` or `::a.b.c.d`.
    Ntop,
    /// `inet_ntoa6`: such an address as its dotted quad alone.
    Ntoa6,
}

/// Byte offsets of the kernel's VFS structures a path walk reads, from
/// its BTF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DPathOffsets {
    /// `struct path`: `mnt`, `dentry`.
    pub path_mnt: u32,
    pub path_dentry: u32,
    /// `struct dentry`: `d_parent`, and `d_name.name`.
    pub d_parent: u32,
    pub d_name: u32,
    /// `struct vfsmount`: `mnt_root`.
    pub mnt_root: u32,
    /// `struct mount`: its `mnt` (the vfsmount), `mnt_parent`,
    /// `mnt_mountpoint`.
    pub mount_mnt: u32,
    pub mnt_parent: u32,
    pub mnt_mountpoint: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CExpr {
    pub kind: CKind,
    pub ty: Type,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum CKind {
    /// An integer constant, already converted to `ty`.
    Int(i64),
    /// `stack(n)`: the kernel stack's return addresses, `frames` words
    /// (zero past the last frame), by reference.
    Stack {
        frames: u32,
    },
    /// `ustack(n)`: a snapshot of the user stack, unwound by the
    /// consumer to `frames` frames at most (see `Special::UStack`), by
    /// reference.
    UStack {
        frames: u32,
        /// `jstack()`: frames in code no object holds (a JIT's) are
        /// named from the process's perf map.
        jit: bool,
    },
    /// `usym()`, `ufunc()`, `umod()`, `uaddr()`: the process ID and the
    /// address, two words by reference (the type says how it prints).
    UserAddr(Box<CExpr>),
    /// `speculation()`: a new speculation's ID, or 0 when none is free.
    Speculation,
    Str(Vec<u8>),
    Builtin(Builtin),
    /// `argN` / `args[N]`.
    Arg(u8),
    /// An index into an array of N elements held in D's own storage (a
    /// variable's): its value if below N, else an invalid address fault.
    Within(Box<CExpr>, u32),
    Var(VarRef),
    Elem(ArrayId, Vec<CExpr>),
    Unary(UnaryOp, Box<CExpr>),
    /// Integer arithmetic; signedness comes from `ty`.
    Arith(ArithOp, Box<CExpr>, Box<CExpr>),
    /// Integer comparison; `signed` after the usual conversions.
    Cmp(CmpOp, Box<CExpr>, Box<CExpr>, bool),
    StrCmp(CmpOp, Box<CExpr>, Box<CExpr>),
    Logical(LogOp, Box<CExpr>, Box<CExpr>),
    Ternary(Box<CExpr>, Box<CExpr>, Box<CExpr>),
    /// Integer conversion to `ty`.
    Cast(Box<CExpr>),
    /// `d_path(p)`: the path name of the `struct path` at address `p`,
    /// walked up its dentries and mounts (a string).
    DPath(Box<CExpr>, DPathOffsets),
    /// `inet_ntop(af, addr)`, `inet_ntoa(addr)` (af `AF_INET`),
    /// `inet_ntoa6(addr)` (af `AF_INET6`): the address at `addr` as text.
    InetNtop(Box<CExpr>, Box<CExpr>, InetMode),
    /// `strjoin(a, b)`: the two strings as one.
    Strjoin(Box<CExpr>, Box<CExpr>),
    /// `lltostr(v)`: the integer in decimal.
    Lltostr(Box<CExpr>),
    /// `substr(s, index, [length])`: part of a string, as DTrace cuts it.
    Substr(Box<CExpr>, Box<CExpr>, Option<Box<CExpr>>),
    /// `basename(s)` (false) or `dirname(s)` (true).
    PathPart(Box<CExpr>, bool),
    /// `toupper(s)` (true) or `tolower(s)` (false).
    Case(Box<CExpr>, bool),
    /// `strchr(s, c)`, `strrchr(s, c)` (a character), `strstr(s, t)`,
    /// `index(s, t [, pos])`, `rindex(s, t [, pos])` (a string): where
    /// the one is in the other, as a string (the rest of `s` from there,
    /// NULL if nowhere) or an index (-1 if nowhere).
    StrSearch {
        hay: Box<CExpr>,
        needle: Box<CExpr>,
        pos: Option<Box<CExpr>>,
        mode: SearchMode,
    },
    /// A string's address, for comparing it with NULL (`strchr(s, c) !=
    /// NULL`): a string that is not NULL is never at address 0.
    StrAddr(Box<CExpr>),
    /// `s + n` (`n + s`, `s - n`): the string from `n` bytes into `s` on
    /// (clamped to the string's capacity).
    StrOffset(Box<CExpr>, Box<CExpr>),
    /// `rand()`: a pseudo-random integer.
    Rand,
    /// `alloca(size)`: `size` bytes of the clause's scratch space, zeroed
    /// (a `void *`).
    Alloca(Box<CExpr>),
    /// `copyin(addr, size)`: `size` bytes of the current process's memory
    /// at `addr`, copied into scratch space (a `void *`).
    Copyin(Box<CExpr>, Box<CExpr>),
    /// `copyinto(addr, size, dest)`: the same into scratch space that
    /// `dest` points to (void).
    Copyinto(Box<CExpr>, Box<CExpr>, Box<CExpr>),
    /// `bcopy(src, dest, size)`: `size` bytes from `src` (any readable
    /// address) into scratch space at `dest` (void).
    Bcopy(Box<CExpr>, Box<CExpr>, Box<CExpr>),
    /// `link_ntop(type, addr)`: a link-layer address as text.
    LinkNtop(Box<CExpr>, Box<CExpr>),
    /// `json(document, selector)`: the value the selector names in a JSON
    /// document, as text (NULL if none).
    Json(Box<CExpr>, Box<CExpr>),
    /// `cleanpath(s)`: the path with `//`, `/./` and `/../` resolved.
    Cleanpath(Box<CExpr>),
    /// `strtok(s, delims)`: the next token; `again` when `s` is NULL
    /// (continue the string of the last call in this probe firing).
    Strtok {
        s: Box<CExpr>,
        delims: Box<CExpr>,
        again: bool,
    },
    /// `strtoll(s [, base])`: the number a string begins with.
    Strtoll(Box<CExpr>, Option<Box<CExpr>>),
    /// `progenyof(pid)`: whether the current process is `pid` or descends
    /// from it (walking `real_parent`).
    Progenyof(Box<CExpr>),
    /// The bits of a `float` or `double` as a signed 64-bit integer that
    /// orders as the number does (for comparisons: sign-magnitude turned
    /// into two's complement).
    FloatOrder(Box<CExpr>),
    /// Assignment (compound when `op` is set); its value is the new value.
    Assign(LValue, Option<ArithOp>, Box<CExpr>),
    /// `++`/`--`, pre or post.
    IncDec {
        target: LValue,
        pre: bool,
        delta: i64,
    },
    /// `copyinstr(addr [, maxlen])`.
    Copyinstr(Box<CExpr>, Option<Box<CExpr>>),
    /// `stringof(x)` of a pointer: the kernel string at that address.
    KernelString(Box<CExpr>),
    /// `strlen(s)`.
    Strlen(Box<CExpr>),
    /// `*p`: a load of `ty` from kernel memory.
    Deref(Box<CExpr>),
    /// The address of this CPU's copy of a per-CPU kernel variable, known
    /// to the kernel by its VAR's BTF id in vmlinux.
    PerCpuAddr(u32),
    /// A struct value built member by member (a translation stored whole):
    /// each member's byte offset, size and value (a scalar stored in the
    /// member's size, or a string in its `char` array). Members not listed
    /// are zero. Like every by-reference value, it evaluates to the
    /// address of its bytes.
    Build(Vec<(u32, u32, CExpr)>),
}

/// Which search [`CKind::StrSearch`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchMode {
    Strchr,
    Strrchr,
    Strstr,
    Index,
    Rindex,
}

/// What the consumer does with a formatted string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrintfKind {
    /// Prints it.
    Printf,
    /// Runs it as a shell command (`system()`).
    System,
    /// Sends later output to the file it names, or back to the original
    /// output when it is empty (`freopen()`).
    Freopen,
}

/// The "action number" DTrace reports in runtime errors: the 1-based index
/// of the record the statement begins with.
pub type ActionIndex = u32;

#[derive(Clone, Debug, PartialEq)]
pub enum CStmt {
    /// An expression evaluated for its side effects.
    Eval(CExpr, ActionIndex),
    Trace(CExpr, ActionIndex),
    /// printf(), and the actions formatted like it: system() and
    /// freopen().
    Printf {
        format: Format,
        args: Vec<CExpr>,
        action: ActionIndex,
        kind: PrintfKind,
        /// The line of the statement (for messages about its place).
        line: u32,
    },
    Exit(CExpr, ActionIndex),
    /// raise(sig), and stop() as raise(SIGSTOP): a signal to the current
    /// process, sent in the probe.
    Raise(CExpr, ActionIndex),
    /// chill(ns): a busy wait of `ns` nanoseconds in the probe.
    Chill(CExpr, ActionIndex),
    /// copyout(src, addr, len) and copyoutstr(str, addr, maxlen): writes
    /// to the current process's memory.
    Copyout {
        src: CExpr,
        addr: CExpr,
        len: CExpr,
        string: bool,
        action: ActionIndex,
    },
    /// ftruncate(): the consumer truncates its output file.
    Ftruncate(ActionIndex),
    AggUpdate {
        agg: AggId,
        keys: Vec<CExpr>,
        /// The value argument (absent for count), then the lquantize or
        /// quantize increment if given.
        value: Option<CExpr>,
        incr: Option<CExpr>,
        action: ActionIndex,
        /// The line of the statement (for messages about its place).
        line: u32,
    },
    Printa {
        format: Option<Format>,
        aggs: Vec<AggId>,
        action: ActionIndex,
        /// The line of the statement (for messages about its place).
        line: u32,
    },
    Clear(AggId, ActionIndex),
    Trunc(AggId, Option<CExpr>, ActionIndex),
    /// normalize(@a, n) with the factor; denormalize(@a) without.
    Normalize(AggId, Option<CExpr>, ActionIndex),
    /// print(e): the value, shown by the consumer with its type.
    Print(CExpr, ActionIndex),
    /// speculate(id): the rest of the clause records into speculation
    /// `id` (nothing, if it is not active).
    Speculate(CExpr, ActionIndex),
    /// commit(id) and discard(id).
    Commit(CExpr, ActionIndex),
    Discard(CExpr, ActionIndex),
    /// tracemem(addr, size, [dsize]): `data` is the memory at addr as a
    /// by-reference `uchar_t[size]`; `dsize` how much of it to show.
    Tracemem {
        data: CExpr,
        dsize: Option<CExpr>,
        action: ActionIndex,
    },
    /// setopt(name, [value]): the consumer sets the option.
    Setopt {
        name: CExpr,
        value: Option<CExpr>,
        action: ActionIndex,
    },
    If {
        cond: CExpr,
        then: Vec<CStmt>,
        els: Vec<CStmt>,
    },
}

/// Whether an aggregation with these key types is streamed: kept by the
/// consumer, each update a record, because a key is a user stack that
/// only the consumer can unwind (`ustack()`, `jstack()`).
pub fn streamed_agg(keys: &[Type]) -> bool {
    keys.iter()
        .any(|k| matches!(k.special(), Some(crate::types::Special::UStack(_))))
}

impl CStmt {
    /// True if the statement leaves something in the principal buffer for
    /// the consumer (so the clause must emit a record).
    pub fn records(&self) -> bool {
        match self {
            CStmt::AggUpdate { keys, .. } => keys
                .iter()
                .any(|k| streamed_agg(std::slice::from_ref(&k.ty))),
            CStmt::Eval(..)
            | CStmt::Raise(..)
            | CStmt::Chill(..)
            | CStmt::Copyout { .. }
            | CStmt::Speculate(..)
            | CStmt::Commit(..)
            | CStmt::Discard(..) => false,
            CStmt::If { then, els, .. } => then.iter().chain(els).any(|s| s.records()),
            _ => true,
        }
    }

    /// True for a destructive action (one that needs `-w`).
    pub fn destructive(&self) -> bool {
        match self {
            CStmt::Printf { kind, .. } => *kind != PrintfKind::Printf,
            CStmt::Raise(..) | CStmt::Chill(..) | CStmt::Copyout { .. } | CStmt::Ftruncate(_) => {
                true
            }
            _ => false,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct CClause {
    /// Program-wide clause number, in compile order.
    pub id: usize,
    pub probes: Vec<(ProbeDesc, String, u32)>,
    pub predicate: Option<CExpr>,
    pub stmts: Vec<CStmt>,
    /// The clause had no actions at all: DTrace's default action records
    /// just the probe.
    pub default_action: bool,
    pub line: u32,
    /// The lowest stability attributes of its probe descriptions, and
    /// of its statements and predicate (`dtrace -v`).
    pub desc_attr: crate::attr::Attr,
    pub stmt_attr: crate::attr::Attr,
}

impl CClause {
    pub fn records(&self) -> bool {
        self.default_action || self.speculative() || self.stmts.iter().any(|s| s.records())
    }

    /// True if the clause speculates: its record goes to a speculative
    /// buffer (a clause with only `speculate()` records the probe, as
    /// the default action does).
    pub fn speculative(&self) -> bool {
        self.stmts.iter().any(|s| matches!(s, CStmt::Speculate(..)))
    }

    /// True if the clause uses speculations at all (their maps are made).
    pub fn uses_speculations(&self) -> bool {
        let mut any = false;
        visit_stmts(&self.stmts, &mut |s| {
            any |= matches!(
                s,
                CStmt::Speculate(..) | CStmt::Commit(..) | CStmt::Discard(..)
            );
        });
        visit_clause_exprs(self, &mut |e| any |= matches!(e.kind, CKind::Speculation));
        any
    }

    /// True if the clause has a destructive action anywhere.
    pub fn destructive(&self) -> bool {
        let mut any = false;
        visit_stmts(&self.stmts, &mut |s| any |= s.destructive());
        any
    }
}

// ---- the visitor every pass uses ----
//
// The matches below name every node kind with no catch-all: a new kind
// does not compile until each walk says what its children are.

impl CStmt {
    /// Whether the back end open-codes this statement itself (not its
    /// expressions) as a loop over `bpf_iter_num` (see [`CKind::loops`]).
    pub fn loops(&self) -> bool {
        match self {
            CStmt::Chill(..) => true,
            CStmt::Eval(..)
            | CStmt::Trace(..)
            | CStmt::Printf { .. }
            | CStmt::Exit(..)
            | CStmt::Raise(..)
            | CStmt::Copyout { .. }
            | CStmt::Ftruncate(..)
            | CStmt::AggUpdate { .. }
            | CStmt::Printa { .. }
            | CStmt::Clear(..)
            | CStmt::Trunc(..)
            | CStmt::Normalize(..)
            | CStmt::Print(..)
            | CStmt::Speculate(..)
            | CStmt::Commit(..)
            | CStmt::Discard(..)
            | CStmt::Tracemem { .. }
            | CStmt::Setopt { .. }
            | CStmt::If { .. } => false,
        }
    }
}

impl CKind {
    /// Whether the back end open-codes this expression itself (not its
    /// operands) as a loop over the kernel's `bpf_iter_num` iterator,
    /// which a program then needs (Linux 6.4). Every kind says, so that a
    /// new one cannot be forgotten.
    pub fn loops(&self) -> bool {
        match self {
            CKind::StrSearch { .. }
            | CKind::Progenyof(_)
            | CKind::Strtoll(..)
            | CKind::Cleanpath(_)
            | CKind::PathPart(..)
            | CKind::Json(..)
            | CKind::Strtok { .. }
            | CKind::Speculation => true,
            CKind::Int(_)
            | CKind::Stack { .. }
            | CKind::UStack { .. }
            | CKind::UserAddr(_)
            | CKind::Str(_)
            | CKind::Builtin(_)
            | CKind::Arg(_)
            | CKind::Var(_)
            | CKind::Elem(..)
            | CKind::Unary(..)
            | CKind::Arith(..)
            | CKind::Cmp(..)
            | CKind::StrCmp(..)
            | CKind::Logical(..)
            | CKind::Ternary(..)
            | CKind::Cast(_)
            | CKind::DPath(..)
            | CKind::InetNtop(..)
            | CKind::Strjoin(..)
            | CKind::Lltostr(_)
            | CKind::Substr(..)
            | CKind::Case(..)
            | CKind::StrAddr(_)
            | CKind::StrOffset(..)
            | CKind::Rand
            | CKind::Alloca(_)
            | CKind::Copyin(..)
            | CKind::Copyinto(..)
            | CKind::Bcopy(..)
            | CKind::LinkNtop(..)
            | CKind::FloatOrder(_)
            | CKind::Assign(..)
            | CKind::IncDec { .. }
            | CKind::Copyinstr(..)
            | CKind::KernelString(_)
            | CKind::Strlen(_)
            | CKind::Within(..)
            | CKind::Deref(_)
            | CKind::PerCpuAddr(_)
            | CKind::Build(_) => false,
        }
    }
}

impl CExpr {
    /// Calls `f` on each direct sub-expression, in evaluation order.
    pub fn for_each_child<'a>(&'a self, f: &mut dyn FnMut(&'a CExpr)) {
        match &self.kind {
            CKind::Int(_)
            | CKind::Str(_)
            | CKind::Builtin(_)
            | CKind::Arg(_)
            | CKind::Var(_)
            | CKind::Rand
            | CKind::Stack { .. }
            | CKind::UStack { .. }
            | CKind::Speculation
            | CKind::PerCpuAddr(_) => {}
            CKind::Copyin(a, b)
            | CKind::Json(a, b)
            | CKind::LinkNtop(a, b)
            | CKind::Strtok {
                s: a, delims: b, ..
            } => {
                f(a);
                f(b);
            }
            CKind::Copyinto(a, b, c) | CKind::Bcopy(a, b, c) => {
                f(a);
                f(b);
                f(c);
            }
            CKind::Strtoll(a, b) => {
                f(a);
                if let Some(b) = b {
                    f(b);
                }
            }
            CKind::StrSearch {
                hay, needle, pos, ..
            } => {
                f(hay);
                f(needle);
                if let Some(p) = pos {
                    f(p);
                }
            }
            CKind::Elem(_, keys) => keys.iter().for_each(f),
            CKind::Unary(_, a)
            | CKind::Cast(a)
            | CKind::FloatOrder(a)
            | CKind::DPath(a, _)
            | CKind::Lltostr(a)
            | CKind::PathPart(a, _)
            | CKind::Case(a, _)
            | CKind::StrAddr(a)
            | CKind::Progenyof(a)
            | CKind::Alloca(a)
            | CKind::Cleanpath(a)
            | CKind::KernelString(a)
            | CKind::Strlen(a)
            | CKind::Within(a, _)
            | CKind::UserAddr(a)
            | CKind::Deref(a) => f(a),
            CKind::Arith(_, a, b)
            | CKind::StrOffset(a, b)
            | CKind::InetNtop(a, b, _)
            | CKind::Strjoin(a, b)
            | CKind::Cmp(_, a, b, _)
            | CKind::StrCmp(_, a, b)
            | CKind::Logical(_, a, b) => {
                f(a);
                f(b);
            }
            CKind::Ternary(a, b, c) => {
                f(a);
                f(b);
                f(c);
            }
            CKind::Build(fields) => fields.iter().for_each(|(_, _, v)| f(v)),
            CKind::Assign(lv, _, v) => {
                lv.for_each_key(f);
                f(v);
            }
            CKind::IncDec { target, .. } => target.for_each_key(f),
            CKind::Copyinstr(a, n) => {
                f(a);
                if let Some(n) = n {
                    f(n);
                }
            }
            CKind::Substr(s, i, n) => {
                f(s);
                f(i);
                if let Some(n) = n {
                    f(n);
                }
            }
        }
    }

    /// Calls `f` on this expression and every expression inside it.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a CExpr)) {
        f(self);
        self.for_each_child(&mut |c| c.walk(f));
    }
}

impl LValue {
    /// The keys of an array element (none for a variable), and the offset
    /// of a field.
    pub fn for_each_key<'a>(&'a self, f: &mut dyn FnMut(&'a CExpr)) {
        match self {
            LValue::Var(_) => {}
            LValue::Elem(_, keys) => keys.iter().for_each(f),
            LValue::Field { base, offset, .. } => {
                base.for_each_key(f);
                f(offset);
            }
            LValue::Mem { addr, .. } => f(addr),
        }
    }
}

impl CStmt {
    /// Calls `f` on each expression the statement evaluates itself (not
    /// those of nested statements).
    pub fn for_each_expr<'a>(&'a self, f: &mut dyn FnMut(&'a CExpr)) {
        match self {
            CStmt::Eval(e, _)
            | CStmt::Trace(e, _)
            | CStmt::Exit(e, _)
            | CStmt::Raise(e, _)
            | CStmt::Chill(e, _) => f(e),
            CStmt::Copyout { src, addr, len, .. } => {
                f(src);
                f(addr);
                f(len);
            }
            CStmt::Ftruncate(_) => {}
            CStmt::Printf { args, .. } => args.iter().for_each(f),
            CStmt::AggUpdate {
                keys, value, incr, ..
            } => {
                keys.iter().for_each(&mut *f);
                if let Some(v) = value {
                    f(v);
                }
                if let Some(v) = incr {
                    f(v);
                }
            }
            CStmt::Trunc(_, n, _) | CStmt::Normalize(_, n, _) => {
                if let Some(n) = n {
                    f(n);
                }
            }
            CStmt::Setopt { name, value, .. } => {
                f(name);
                if let Some(v) = value {
                    f(v);
                }
            }
            CStmt::Print(e, _)
            | CStmt::Speculate(e, _)
            | CStmt::Commit(e, _)
            | CStmt::Discard(e, _) => f(e),
            CStmt::Tracemem { data, dsize, .. } => {
                f(data);
                if let Some(d) = dsize {
                    f(d);
                }
            }
            CStmt::Printa { .. } | CStmt::Clear(..) => {}
            CStmt::If { cond, .. } => f(cond),
        }
    }

    /// The statements nested inside this one.
    pub fn children(&self) -> impl Iterator<Item = &CStmt> {
        let (a, b): (&[CStmt], &[CStmt]) = match self {
            CStmt::If { then, els, .. } => (then, els),
            CStmt::Eval(..)
            | CStmt::Trace(..)
            | CStmt::Exit(..)
            | CStmt::Printf { .. }
            | CStmt::AggUpdate { .. }
            | CStmt::Printa { .. }
            | CStmt::Clear(..)
            | CStmt::Trunc(..)
            | CStmt::Normalize(..)
            | CStmt::Setopt { .. }
            | CStmt::Print(..)
            | CStmt::Speculate(..)
            | CStmt::Commit(..)
            | CStmt::Discard(..)
            | CStmt::Tracemem { .. }
            | CStmt::Raise(..)
            | CStmt::Chill(..)
            | CStmt::Copyout { .. }
            | CStmt::Ftruncate(_) => (&[], &[]),
        };
        a.iter().chain(b)
    }
}

/// Calls `f` on every statement, nested ones after the one holding them.
pub fn visit_stmts<'a>(stmts: &'a [CStmt], f: &mut dyn FnMut(&'a CStmt)) {
    for s in stmts {
        f(s);
        let inner: Vec<&CStmt> = s.children().collect();
        for c in inner {
            visit_stmts(std::slice::from_ref(c), f);
        }
    }
}

/// Calls `f` on every expression of a clause, predicate included, and
/// every expression inside those.
pub fn visit_clause_exprs<'a>(c: &'a CClause, f: &mut dyn FnMut(&'a CExpr)) {
    if let Some(p) = &c.predicate {
        p.walk(f);
    }
    visit_stmts(&c.stmts, &mut |s| s.for_each_expr(&mut |e| e.walk(f)));
}
