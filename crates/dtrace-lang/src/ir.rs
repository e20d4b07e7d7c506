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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggFunc {
    Count,
    Sum,
    Min,
    Max,
    Avg,
    Quantize,
    Lquantize { base: i32, limit: i32, step: u16 },
}

impl AggFunc {
    pub fn name(self) -> &'static str {
        match self {
            AggFunc::Count => "count",
            AggFunc::Sum => "sum",
            AggFunc::Min => "min",
            AggFunc::Max => "max",
            AggFunc::Avg => "avg",
            AggFunc::Quantize => "quantize",
            AggFunc::Lquantize { .. } => "lquantize",
        }
    }

    /// Number of 64-bit words of per-CPU data for one key.
    pub fn words(self) -> usize {
        match self {
            AggFunc::Count | AggFunc::Sum => 1,
            // value, plus "has data" so CPUs that never fired are ignored.
            AggFunc::Min | AggFunc::Max => 2,
            AggFunc::Avg => 2,
            AggFunc::Quantize => QUANTIZE_BUCKETS,
            AggFunc::Lquantize { base, limit, step } => lquantize_levels(base, limit, step) + 2,
        }
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
    Str(Vec<u8>),
    Builtin(Builtin),
    /// `argN` / `args[N]`.
    Arg(u8),
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
}

/// The "action number" DTrace reports in runtime errors: the 1-based index
/// of the record the statement begins with.
pub type ActionIndex = u32;

#[derive(Clone, Debug, PartialEq)]
pub enum CStmt {
    /// An expression evaluated for its side effects.
    Eval(CExpr, ActionIndex),
    Trace(CExpr, ActionIndex),
    Printf {
        format: Format,
        args: Vec<CExpr>,
        action: ActionIndex,
    },
    Exit(CExpr, ActionIndex),
    AggUpdate {
        agg: AggId,
        keys: Vec<CExpr>,
        /// The value argument (absent for count), then the lquantize or
        /// quantize increment if given.
        value: Option<CExpr>,
        incr: Option<CExpr>,
        action: ActionIndex,
    },
    Printa {
        format: Option<Format>,
        aggs: Vec<AggId>,
        action: ActionIndex,
    },
    Clear(AggId, ActionIndex),
    Trunc(AggId, Option<CExpr>, ActionIndex),
    If {
        cond: CExpr,
        then: Vec<CStmt>,
        els: Vec<CStmt>,
    },
}

impl CStmt {
    /// True if the statement leaves something in the principal buffer for
    /// the consumer (so the clause must emit a record).
    pub fn records(&self) -> bool {
        match self {
            CStmt::Eval(..) | CStmt::AggUpdate { .. } => false,
            CStmt::If { then, els, .. } => then.iter().chain(els).any(|s| s.records()),
            _ => true,
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
}

impl CClause {
    pub fn records(&self) -> bool {
        self.default_action || self.stmts.iter().any(|s| s.records())
    }
}
