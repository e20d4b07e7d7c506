//! D's types: a type table in the image of DTrace's CTF containers.
//!
//! A [`Type`] is a small value: the C scalars (integers of each width and
//! signedness with the names DTrace prints, floating types), `string`,
//! `void`, pointers, arrays, functions and typedef names inline, and
//! structs, unions and enums by reference to their definition in a
//! [`TypeTable`]. The table holds the definitions a program declares and
//! those imported on demand from an external source ([`ExtTypes`]: the
//! kernel's BTF), so types that refer to each other (`task_struct` points
//! to `task_struct`) are finite, and a kernel type costs nothing until a
//! program names it.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    Int(IntType),
    Float(FloatType),
    String,
    Void,
    /// DTrace's `<DYN>`: the type of an aggregation named as a value
    /// (`@a + 1`), which no operator accepts.
    Dyn,
    Ptr(Box<Type>),
    /// An array of a known number of elements.
    Array(Box<Type>, u32),
    /// A struct or union, defined in the type table.
    Record(TagRef),
    /// An enum, defined in the type table, and the integer type it is
    /// stored as.
    Enum(TagRef, IntType),
    Func(Box<FuncType>),
    /// A typedef name for its type: transparent to every operation, shown
    /// by name in messages.
    Named(Arc<str>, Box<Type>),
    /// The result of `xlate<T>(e)` (or `xlate<T *>` when `ptr`): the value
    /// of `e`, whose members are computed by translator `id` into `T`'s.
    Translated {
        to: Box<Type>,
        id: u32,
        ptr: bool,
    },
}

/// A struct, union or enum of the type table: its index there and the
/// name it is shown by (`struct task_struct`, `enum color`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagRef {
    pub id: u32,
    pub name: Arc<str>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatType {
    pub size: u8,
    pub name: &'static str,
}

pub const FLOAT: FloatType = FloatType {
    size: 4,
    name: "float",
};
pub const DOUBLE: FloatType = FloatType {
    size: 8,
    name: "double",
};
pub const LONG_DOUBLE: FloatType = FloatType {
    size: 16,
    name: "long double",
};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuncType {
    pub ret: Type,
    pub params: Vec<Type>,
    pub variadic: bool,
}

/// An integer type of D: its size, signedness and name.
///
/// ```
/// # use dtrace_lang::types::IntType;
/// let t = IntType::new(2, true, "short");
/// assert_eq!((t.size, t.signed, t.name), (2, true, "short"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntType {
    /// Its size in bytes (1, 2, 4 or 8).
    pub size: u8,
    /// Whether it is signed.
    pub signed: bool,
    /// Its name in D (`int`, `uint64_t`, `pid_t`).
    pub name: &'static str,
}

impl IntType {
    /// The type of this size, signedness and name.
    ///
    /// ```
    /// # use dtrace_lang::types::IntType;
    /// assert!(!IntType::new(8, false, "uint64_t").signed);
    /// ```
    pub const fn new(size: u8, signed: bool, name: &'static str) -> IntType {
        IntType { size, signed, name }
    }

    /// C's integer conversion rank, by size.
    fn rank(self) -> u8 {
        self.size
    }
}

pub const CHAR: IntType = IntType::new(1, true, "char");
pub const UCHAR: IntType = IntType::new(1, false, "uchar_t");
pub const SHORT: IntType = IntType::new(2, true, "short");
pub const USHORT: IntType = IntType::new(2, false, "ushort_t");
pub const INT: IntType = IntType::new(4, true, "int");
pub const UINT: IntType = IntType::new(4, false, "uint_t");
pub const LONG: IntType = IntType::new(8, true, "long");
pub const ULONG: IntType = IntType::new(8, false, "ulong_t");
pub const LONGLONG: IntType = IntType::new(8, true, "long long");
pub const ULONGLONG: IntType = IntType::new(8, false, "unsigned long long");
pub const INT64: IntType = IntType::new(8, true, "int64_t");
pub const UINT64: IntType = IntType::new(8, false, "uint64_t");
pub const INT32: IntType = IntType::new(4, true, "int32_t");
pub const UINT32: IntType = IntType::new(4, false, "uint32_t");
pub const UINT16: IntType = IntType::new(2, false, "uint16_t");
pub const PID_T: IntType = IntType::new(4, true, "pid_t");
pub const ID_T: IntType = IntType::new(4, true, "id_t");
pub const UID_T: IntType = IntType::new(4, false, "uid_t");
pub const GID_T: IntType = IntType::new(4, false, "gid_t");
pub const PROCESSORID_T: IntType = IntType::new(4, true, "processorid_t");
pub const UINTPTR_T: IntType = IntType::new(8, false, "uintptr_t");
pub const SIZE_T: IntType = IntType::new(8, false, "size_t");
pub const PTRDIFF_T: IntType = IntType::new(8, true, "ptrdiff_t");

/// Typedef names D knows without any declaration.
const TYPEDEFS: &[IntType] = &[
    IntType::new(1, true, "int8_t"),
    IntType::new(2, true, "int16_t"),
    INT32,
    INT64,
    IntType::new(1, false, "uint8_t"),
    UINT16,
    UINT32,
    UINT64,
    UCHAR,
    USHORT,
    UINT,
    ULONG,
    IntType::new(8, false, "u_longlong_t"),
    IntType::new(8, true, "longlong_t"),
    SIZE_T,
    IntType::new(8, true, "ssize_t"),
    PTRDIFF_T,
    IntType::new(8, true, "intptr_t"),
    UINTPTR_T,
    IntType::new(8, true, "off_t"),
    IntType::new(8, true, "off64_t"),
    IntType::new(8, true, "time_t"),
    IntType::new(8, true, "hrtime_t"),
    IntType::new(8, false, "dev_t"),
    IntType::new(8, false, "ino_t"),
    IntType::new(4, false, "mode_t"),
    IntType::new(4, false, "socklen_t"),
    PID_T,
    ID_T,
    UID_T,
    GID_T,
    PROCESSORID_T,
    IntType::new(4, true, "zoneid_t"),
    IntType::new(4, false, "ipaddr_t"),
    IntType::new(4, true, "projid_t"),
    IntType::new(4, true, "taskid_t"),
    IntType::new(4, true, "psetid_t"),
    IntType::new(4, true, "boolean_t"),
];

const BASE_WORDS: &[&str] = &[
    "char", "short", "int", "long", "unsigned", "signed", "string", "void", "float", "double",
    "const", "volatile", "register", "static", "extern",
];

/// True if `w` can begin or continue a type name.
pub fn is_type_keyword(w: &str) -> bool {
    BASE_WORDS.contains(&w) || TYPEDEFS.iter().any(|t| t.name == w)
}

/// Resolves the base words of a type name (`unsigned long`, `uint64_t`,
/// `string`) to a type.
pub fn resolve_base(base: &str) -> Option<Type> {
    if let Some(t) = TYPEDEFS.iter().find(|t| t.name == base) {
        return Some(Type::Int(*t));
    }
    let words: Vec<&str> = base.split_whitespace().collect();
    match words.as_slice() {
        ["string"] => return Some(Type::String),
        ["void"] => return Some(Type::Void),
        ["float"] => return Some(Type::Float(FLOAT)),
        ["double"] => return Some(Type::Float(DOUBLE)),
        ["long", "double"] => return Some(Type::Float(LONG_DOUBLE)),
        _ => {}
    }
    let mut unsigned = false;
    let mut signed = false;
    let mut longs = 0;
    let mut short = false;
    let mut char_ = false;
    let mut int = false;
    for w in &words {
        match *w {
            "unsigned" => unsigned = true,
            "signed" => signed = true,
            "long" => longs += 1,
            "short" => short = true,
            "char" => char_ = true,
            "int" => int = true,
            _ => return None,
        }
    }
    if unsigned && signed
        || longs > 2
        || (short && (longs > 0 || char_))
        || (char_ && (longs > 0 || int))
    {
        return None;
    }
    let t = if char_ {
        if unsigned {
            IntType::new(1, false, "unsigned char")
        } else if signed {
            IntType::new(1, true, "signed char")
        } else {
            CHAR
        }
    } else if short {
        if unsigned {
            IntType::new(2, false, "unsigned short")
        } else {
            SHORT
        }
    } else if longs == 2 {
        if unsigned {
            ULONGLONG
        } else {
            LONGLONG
        }
    } else if longs == 1 {
        if unsigned {
            IntType::new(8, false, "unsigned long")
        } else {
            LONG
        }
    } else if unsigned {
        IntType::new(4, false, "unsigned int")
    } else {
        INT
    };
    Some(Type::Int(t))
}

/// Values the consumer prints symbolically, told apart by the name of
/// their type (as DTrace's `stack` and `_symaddr`): a kernel stack is an
/// array of return addresses, a symbol or module an address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// `stack()`: this many frames.
    Stack(u32),
    /// `sym()` and `func()`: `module`function`.
    Sym,
    /// `mod()`: the module.
    Mod,
    /// `ustack()` and `jstack()`: a reference to a snapshot of the user
    /// stack, this many words long (see [`ustack_snapshot`]), unwound by
    /// the consumer.
    UStack(u32),
    /// `usym()` and `ufunc()`: the process ID and a user address, then
    /// the probe's own user address as a `ustack()` frame and as a
    /// number (to place the address in the probe's object after the
    /// process is gone), printed as `module`function`.
    USym,
    /// `umod()`: the process ID and a user address, printed as the module.
    UMod,
    /// `uaddr()`: the process ID and a user address, printed as
    /// `module`function+0xoff`.
    UAddr,
}

/// A `ustack()` frame, as the consumer keeps it once unwound, is a
/// word: with this bit, the address (its object is not known); without
/// it, the low 30 bits of the first 4 bytes of the object's build ID
/// (native order) in bits 32-61 and the offset in the object's file in
/// the low half, so that the frame is named after the process is gone.
/// Either way `USTACK_FP` says how the frame was found.
pub const USTACK_IP: u64 = 1 << 63;

/// A `ustack()` frame found by its caller's frame pointer, where the
/// object has no call frame information for the address (the rest of a
/// frame word as above, with 30 bits of the build ID).
pub const USTACK_FP: u64 = 1 << 62;

/// What `ustack()` records: the user registers an unwinder needs and a
/// copy of the top of the user stack (a snapshot), which the consumer
/// unwinds with the objects' call frame information (`.eh_frame`,
/// `.debug_frame`), or their frame pointers where there is none.
///
/// A snapshot is a record of its own in the principal buffer (its EPID
/// `dtrace_bpf::plan::USTACK_EPID`), as long as the stack copied, which
/// the probe writes before its clause's record; the value `ustack()`
/// gives, in the clause's record or an aggregation's key, is a
/// reference to it ([`REF_WORDS`](ustack_snapshot::REF_WORDS) words: the
/// process ID, the head, the CPU and the snapshot's ID).
///
/// A snapshot's words: the process ID; the head, [`TAG`](ustack_snapshot::TAG)
/// with the frames asked for in its low 16 bits (and `JIT`); the bytes of
/// stack copied; the instruction pointer, the stack pointer and the frame
/// pointer; its ID (the time it was taken, unique on its CPU); then the
/// stack's bytes from the stack pointer up (`ustackbytes` of them at
/// most, fewer where the stack ends).
pub mod ustack_snapshot {
    /// Tells a snapshot or a reference from unwound frames (a frame word
    /// never has these bits: an address marked `USTACK_IP` is below
    /// 2^47).
    pub const TAG: u64 = 0xda5c << 48;
    /// In the head: `jstack()`, whose frames in code no object holds are
    /// named from the process's perf map.
    pub const JIT: u64 = 1 << 16;
    /// In the head: a reference to a snapshot, not the snapshot.
    pub const REF: u64 = 1 << 17;
    /// In the process ID's word of unwound frames: `JIT`'s meaning.
    pub const JIT_PID: u64 = 1 << 63;
    pub const PID: usize = 0;
    pub const HEAD: usize = 8;
    pub const LEN: usize = 16;
    pub const IP: usize = 24;
    pub const SP: usize = 32;
    pub const BP: usize = 40;
    pub const ID: usize = 48;
    /// Where the stack's bytes begin.
    pub const BYTES: usize = 56;
    /// A reference's words, and where its CPU and ID are.
    pub const REF_WORDS: u32 = 4;
    pub const REF_CPU: usize = 16;
    pub const REF_ID: usize = 24;

    /// The words of a snapshot of `bytes` stack bytes.
    pub fn words(bytes: u32) -> u32 {
        (BYTES as u32 + bytes).div_ceil(8)
    }
}

/// `ustackbytes`' default: perf's for DWARF unwinding (`--call-graph
/// dwarf`), deep enough for the stacks of most programs' main threads.
pub const DEFAULT_USTACKBYTES: u32 = 8192;

impl Special {
    pub fn type_of(self) -> Type {
        match self {
            Special::Stack(n) => Type::Named(
                Arc::from("stack"),
                Box::new(Type::Array(Box::new(Type::Int(UINT64)), n)),
            ),
            Special::Sym => Type::Named(Arc::from("_symaddr"), Box::new(Type::Int(UINTPTR_T))),
            Special::Mod => Type::Named(Arc::from("_modaddr"), Box::new(Type::Int(UINTPTR_T))),
            Special::UStack(n) => Type::Named(
                Arc::from("ustack"),
                Box::new(Type::Array(Box::new(Type::Int(UINT64)), n)),
            ),
            Special::USym | Special::UMod | Special::UAddr => {
                let name = match self {
                    Special::USym => "_usymaddr",
                    Special::UMod => "_umodaddr",
                    _ => "_uaddr",
                };
                Type::Named(
                    Arc::from(name),
                    Box::new(Type::Array(Box::new(Type::Int(UINT64)), 4)),
                )
            }
        }
    }
}

impl Type {
    /// Which symbolic value this is, if any (see `Special`).
    pub fn special(&self) -> Option<Special> {
        let Type::Named(name, inner) = self else {
            return None;
        };
        match (&**name, &**inner) {
            ("stack", Type::Array(_, n)) => Some(Special::Stack(*n)),
            ("_symaddr", Type::Int(_)) => Some(Special::Sym),
            ("_modaddr", Type::Int(_)) => Some(Special::Mod),
            ("ustack", Type::Array(_, n)) => Some(Special::UStack(*n)),
            ("_usymaddr", Type::Array(..)) => Some(Special::USym),
            ("_umodaddr", Type::Array(..)) => Some(Special::UMod),
            ("_uaddr", Type::Array(..)) => Some(Special::UAddr),
            _ => None,
        }
    }

    /// The type a typedef name stands for (through any number of them).
    pub fn resolved(&self) -> &Type {
        let mut t = self;
        while let Type::Named(_, inner) = t {
            t = inner;
        }
        t
    }

    pub fn ptr(to: Type) -> Type {
        Type::Ptr(Box::new(to))
    }

    /// Integers and enums: what the integer operators accept.
    pub fn is_int(&self) -> bool {
        matches!(self.resolved(), Type::Int(_) | Type::Enum(..))
    }

    pub fn is_float(&self) -> bool {
        matches!(self.resolved(), Type::Float(_))
    }

    pub fn is_ptr(&self) -> bool {
        matches!(self.resolved(), Type::Ptr(_))
    }

    /// Integers, enums and pointers: what conditions and comparisons
    /// accept, and what a probe-context register holds.
    pub fn is_scalar(&self) -> bool {
        matches!(
            self.resolved(),
            Type::Int(_) | Type::Enum(..) | Type::Ptr(_)
        )
    }

    pub fn is_string(&self) -> bool {
        matches!(self.resolved(), Type::String)
    }

    pub fn is_void(&self) -> bool {
        matches!(self.resolved(), Type::Void)
    }

    /// DTrace's dynamic type (see [`Type::Dyn`]).
    pub fn is_dyn(&self) -> bool {
        matches!(self, Type::Dyn)
    }

    /// Structs, unions and arrays: values that live in memory and are
    /// handled by address.
    pub fn is_aggregate(&self) -> bool {
        matches!(self.resolved(), Type::Record(_) | Type::Array(..))
    }

    /// Values handled by reference: structs, unions, arrays and `long
    /// double` (wider than a register), as DTrace's `DT_NF_REF` nodes. An
    /// expression of such a type evaluates to the address of its bytes.
    pub fn is_by_ref(&self) -> bool {
        match self.resolved() {
            Type::Record(_) | Type::Array(..) => true,
            Type::Float(f) => f.size > 8,
            _ => false,
        }
    }

    /// `float` and `double`: held in a register as their bits.
    pub fn is_reg_float(&self) -> bool {
        matches!(self.resolved(), Type::Float(f) if f.size <= 8)
    }

    /// What a pointer or array points to.
    pub fn pointee(&self) -> Option<&Type> {
        match self.resolved() {
            Type::Ptr(t) | Type::Array(t, _) => Some(t),
            _ => None,
        }
    }

    /// The integer view of a scalar: pointers behave as `uintptr_t`, enums
    /// as the integer they are stored as.
    pub fn as_int(&self) -> Option<IntType> {
        match self.resolved() {
            Type::Int(i) | Type::Enum(_, i) => Some(*i),
            Type::Ptr(_) => Some(UINTPTR_T),
            _ => None,
        }
    }

    /// Storage size in bytes of a scalar (0 for anything else, whose size
    /// the type table or the back end decides).
    pub fn scalar_size(&self) -> u32 {
        match self.resolved() {
            Type::Int(i) | Type::Enum(_, i) => u32::from(i.size),
            Type::Ptr(_) => 8,
            Type::Float(f) if f.size <= 8 => u32::from(f.size),
            _ => 0,
        }
    }

    /// True if values of `other` may be stored where `self` is expected.
    pub fn compatible(&self, other: &Type) -> bool {
        match (self.resolved(), other.resolved()) {
            (Type::String, Type::String) => true,
            (a, b) if a.is_scalar() && b.is_scalar() => true,
            (Type::Void, Type::Void) => true,
            (Type::Float(a), Type::Float(b)) => a == b,
            (Type::Record(a), Type::Record(b)) => a.id == b.id,
            (Type::Array(a, n), Type::Array(b, m)) => n == m && a.same_as(b),
            // A variable holding a translated pointer: the same
            // translator, applied to the same kind of value.
            (Type::Translated { id: a, ptr: p, .. }, Type::Translated { id: b, ptr: q, .. }) => {
                a == b && p == q
            }
            _ => false,
        }
    }
}

impl Type {
    /// The type qualified `const`. D keeps the qualifier only in the
    /// type's name (`const char *` in messages): the type behaves as the
    /// unqualified one (a `Named` wrapper, as a typedef is). A const
    /// pointer, array or function is shown as the unqualified type.
    pub fn with_const(self) -> Type {
        match self.resolved() {
            Type::Ptr(_) | Type::Array(..) | Type::Func(_) | Type::Translated { .. } => self,
            _ if self.to_string().starts_with("const ") => self,
            _ => Type::Named(format!("const {}", self).into(), Box::new(self)),
        }
    }

    /// D's string-compatible types: `string`, and pointers to and arrays
    /// of `char`.
    pub fn is_strcompat(&self) -> bool {
        match self.resolved() {
            Type::String => true,
            Type::Ptr(t) | Type::Array(t, _) => {
                matches!(t.resolved(), Type::Int(i) if i.size == 1)
            }
            _ => false,
        }
    }

    /// True if an argument of type `arg` may be passed where a function's
    /// prototype declares `self`: integers for integers, strings for
    /// strings, the same struct or union, and pointers to the same type
    /// (or to `void`, or the constant 0, `zero`), as DTrace's argument
    /// compatibility rules say.
    pub fn accepts_arg(&self, arg: &Type, zero: bool) -> bool {
        let (p, a) = (self.resolved(), arg.resolved());
        if p.is_int() && a.is_int() || p.is_strcompat() && a.is_strcompat() {
            return true;
        }
        match p {
            Type::Record(_) | Type::Func(_) => p.same_as(a),
            // A string is a char array, which takes the constant 0 (NULL)
            // as a pointer does.
            Type::String => a.is_int() && zero,
            // A string is a char array: `void *` takes it as any pointer.
            _ if a.is_string() => p.pointee().is_some_and(Type::is_void),
            _ => match (p.pointee(), a.pointee()) {
                (Some(_), None) => a.is_int() && zero,
                (Some(pt), Some(at)) => pt.is_void() || at.is_void() || pt.same_as(at),
                _ => false,
            },
        }
    }

    /// The same C type, through typedefs at every level.
    pub fn same_as(&self, other: &Type) -> bool {
        match (self.resolved(), other.resolved()) {
            (Type::Int(a), Type::Int(b)) => a.size == b.size && a.signed == b.signed,
            (Type::Ptr(a), Type::Ptr(b)) => a.same_as(b),
            (Type::Array(a, n), Type::Array(b, m)) => n == m && a.same_as(b),
            (a, b) => a == b,
        }
    }
}

/// C's usual arithmetic conversions on two integer operands: both promote
/// to at least `int`, then to the larger rank; at equal rank unsigned wins.
pub fn usual_arith(a: IntType, b: IntType) -> IntType {
    let a = promote(a);
    let b = promote(b);
    if a.rank() != b.rank() {
        let (big, small) = if a.rank() > b.rank() { (a, b) } else { (b, a) };
        let _ = small;
        return big;
    }
    if !a.signed {
        a
    } else {
        b
    }
}

/// The type DTrace gives the result of an arithmetic operation on two
/// integers (dt_type_promote): no promotion to `int`; the operand of
/// higher rank, its bits plus one if unsigned (an `unsigned char` and a
/// `char` add as an `unsigned char`, as DTrace records them).
pub fn dtrace_promote(a: IntType, b: IntType) -> IntType {
    let rank = |t: IntType| 8 * u32::from(t.size) + u32::from(!t.signed);
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

/// Integer promotion: anything narrower than `int` becomes `int`.
pub fn promote(t: IntType) -> IntType {
    if t.size < 4 {
        INT
    } else {
        t
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.declare(""))
    }
}

impl Type {
    /// C's spelling of a declaration of `name` with this type: `int *x`,
    /// `char (*)[16]` for an abstract one (`name` empty).
    pub fn declare(&self, name: &str) -> String {
        match self {
            Type::Int(i) => join(i.name, name),
            Type::Float(t) => join(t.name, name),
            Type::String => join("string", name),
            Type::Void => join("void", name),
            Type::Dyn => join("dynamic variable", name),
            // ustack() and jstack() are of DTrace's type `stack`, as
            // stack() is (the name here tells how they print).
            Type::Named(n, _) if &**n == "ustack" => join("stack", name),
            Type::Named(n, _) => join(n, name),
            Type::Record(r) | Type::Enum(r, _) => join(&r.name, name),
            Type::Translated { to, ptr, .. } => {
                let t = if *ptr {
                    Type::ptr((**to).clone())
                } else {
                    (**to).clone()
                };
                // Named as DTrace names it: the translation's output type.
                t.declare(name)
            }
            Type::Ptr(t) => {
                let inner = format!("*{}", name);
                match t.as_ref() {
                    Type::Array(..) | Type::Func(_) => t.declare(&format!("({})", inner)),
                    _ => t.declare(&inner),
                }
            }
            Type::Array(t, n) => t.declare(&format!("{}[{}]", name, n)),
            Type::Func(ft) => {
                let mut params: Vec<String> = ft.params.iter().map(|p| p.declare("")).collect();
                if ft.variadic {
                    params.push("...".into());
                }
                if params.is_empty() {
                    params.push("void".into());
                }
                ft.ret.declare(&format!("{}({})", name, params.join(", ")))
            }
        }
    }
}

fn join(base: &str, declarator: &str) -> String {
    if declarator.is_empty() {
        base.to_string()
    } else {
        format!("{} {}", base, declarator)
    }
}

/// A struct or union member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// None for an anonymous struct or union member, whose own members
    /// are found as if they were this record's.
    pub name: Option<String>,
    pub ty: Type,
    /// Offset from the start of the record, in bits.
    pub bit_offset: u64,
    /// Width of a bitfield.
    pub bits: Option<u32>,
}

/// Where a definition came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Declared in a D program.
    Program,
    /// Named but not defined yet (`struct foo;`, `struct foo *p`).
    Forward,
    /// From the external source under this id; members not read yet.
    External(ExtId),
    /// From the external source, members read.
    Imported(ExtId),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub union: bool,
    /// The tag, if any.
    pub tag: Option<String>,
    pub size: u64,
    pub align: u32,
    pub members: Vec<Member>,
    pub origin: Origin,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnumDef {
    pub tag: Option<String>,
    pub repr: IntType,
    pub values: Vec<(String, i64)>,
    pub origin: Origin,
}

/// A member found by name, perhaps inside anonymous members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundMember {
    pub ty: Type,
    pub bit_offset: u64,
    pub bits: Option<u32>,
}

/// An identifier of a type in an external source.
pub type ExtId = u64;

/// A type as an external source (the kernel's BTF) describes it; its
/// references are ids of the same source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExtType {
    Void,
    Int {
        name: String,
        size: u8,
        signed: bool,
    },
    Float {
        size: u8,
    },
    Ptr(ExtId),
    Array {
        elem: ExtId,
        len: u32,
    },
    Record {
        union: bool,
        name: Option<String>,
        size: u64,
        /// Name (None: anonymous), type, bit offset, bitfield width.
        members: Vec<(Option<String>, ExtId, u64, Option<u32>)>,
    },
    /// A struct or union named but not defined here.
    Fwd {
        union: bool,
        name: String,
    },
    Enum {
        name: Option<String>,
        size: u8,
        signed: bool,
        values: Vec<(String, i64)>,
    },
    Typedef {
        name: String,
        target: ExtId,
    },
    /// volatile, restrict and type tags: D ignores them.
    Qualified(ExtId),
    /// const: kept in the type's name only (`const char *`).
    Const(ExtId),
    Func {
        ret: ExtId,
        params: Vec<ExtId>,
        variadic: bool,
    },
}

/// Which name space a tag lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TagKind {
    Struct,
    Union,
    Enum,
}

impl TagKind {
    pub fn keyword(self) -> &'static str {
        match self {
            TagKind::Struct => "struct",
            TagKind::Union => "union",
            TagKind::Enum => "enum",
        }
    }
}

/// A source of types beyond the program's own: the kernel's BTF, read by
/// the consumer library. Lookups take the module a name is scoped to
/// (`` struct vmlinux`task_struct ``), or None for any.
pub trait ExtTypes: Send + Sync {
    /// A struct, union or enum by tag.
    fn tagged(&self, kind: TagKind, name: &str, module: Option<&str>) -> Option<ExtId>;
    /// A typedef by name.
    fn typedef(&self, name: &str, module: Option<&str>) -> Option<ExtId>;
    /// What an id is.
    fn get(&self, id: ExtId) -> Option<ExtType>;
    /// A kernel symbol (`` `name ``, `` module`name ``).
    fn symbol(&self, name: &str, module: Option<&str>) -> Result<ExtSymbol, SymbolError> {
        let _ = (name, module);
        Err(SymbolError::NotFound)
    }
}

/// A kernel symbol: where it is and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtSymbol {
    pub addr: u64,
    /// The module that defines it (`vmlinux` for the kernel itself).
    pub module: String,
    /// Its type, if the kernel describes it.
    pub ty: Option<ExtId>,
    /// A per-CPU variable: `addr` is an offset into each CPU's area, and
    /// this is how the kernel knows the variable in a program (the BTF
    /// id of its VAR in vmlinux; none for one of a module, which a
    /// program would have to name by a module BTF handle).
    pub per_cpu: Option<PerCpu>,
}

/// How a program reaches a per-CPU kernel variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerCpu {
    /// Its VAR's BTF id in vmlinux.
    Vmlinux(u32),
    /// A module's: not reachable yet.
    Module,
}

/// Why a kernel symbol cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SymbolError {
    NotFound,
    /// Symbol addresses are hidden from this process (kptr_restrict).
    Hidden,
    /// The symbol table cannot be read.
    Unavailable(String),
}

/// How deep a chain of by-value types (typedefs, arrays, qualifiers) an
/// import follows before deciding the source is malformed.
const MAX_EXT_DEPTH: u32 = 64;

/// The program's type definitions and those imported from the kernel.
#[derive(Clone)]
pub struct TypeTable {
    pub records: Vec<Record>,
    pub enums: Vec<EnumDef>,
    tags: HashMap<(TagKind, String), u32>,
    typedefs: HashMap<String, Type>,
    /// Enumerators of the program's and imported enums, by name.
    enumerators: HashMap<String, (i64, Type)>,
    ext: Option<Arc<dyn ExtTypes>>,
    imported: HashMap<ExtId, Type>,
    ext_tags: HashMap<(TagKind, String), Option<Type>>,
    /// The size of `string` (the `strsize` option).
    pub strsize: u32,
    /// The frames `stack()` records (the `stackframes` option).
    pub stackframes: u32,
    /// The frames `ustack()` records (`ustackframes`), and `jstack()`
    /// (`jstackframes`).
    pub ustackframes: u32,
    pub jstackframes: u32,
    /// The most frames any stack records (the `maxframes` option): a
    /// larger count, given or by default, is cut to it.
    pub maxframes: u32,
    /// The bytes a clause may allocate (`scratchsize`, rounded:
    /// `round_scratch`): a constant size above it is refused.
    pub scratchsize: u32,
}

/// The `scratchsize` option's bytes as a clause may allocate them:
/// rounded up to a multiple of 8.
pub fn round_scratch(size: u32) -> u32 {
    size.div_ceil(8) * 8
}

impl Default for TypeTable {
    fn default() -> TypeTable {
        TypeTable {
            records: Vec::new(),
            enums: Vec::new(),
            tags: HashMap::new(),
            typedefs: HashMap::new(),
            enumerators: HashMap::new(),
            ext: None,
            imported: HashMap::new(),
            ext_tags: HashMap::new(),
            strsize: DEFAULT_STRSIZE,
            stackframes: DEFAULT_STACKFRAMES,
            ustackframes: DEFAULT_USTACKFRAMES,
            jstackframes: DEFAULT_JSTACKFRAMES,
            maxframes: DEFAULT_MAXFRAMES,
            scratchsize: 16 << 10,
        }
    }
}

/// `stackframes`' default.
pub const DEFAULT_STACKFRAMES: u32 = 20;
/// `ustackframes`' and `jstackframes`' defaults.
pub const DEFAULT_USTACKFRAMES: u32 = 100;
pub const DEFAULT_JSTACKFRAMES: u32 = 50;
/// `maxframes`' default: the most the kernel walks by default
/// (`/proc/sys/kernel/perf_event_max_stack`).
pub const DEFAULT_MAXFRAMES: u32 = 127;

/// `strsize`'s default.
pub const DEFAULT_STRSIZE: u32 = 256;

impl fmt::Debug for TypeTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypeTable")
            .field("records", &self.records.len())
            .field("enums", &self.enums.len())
            .field("typedefs", &self.typedefs.len())
            .field("external", &self.ext.is_some())
            .finish()
    }
}

/// Why a layout or lookup failed, for the checker to word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeError {
    /// The type has no size (void, a function, an incomplete struct).
    Incomplete(String),
    /// The size overflows.
    TooLarge,
    /// A bitfield wider than its type or of a type that cannot hold one.
    BadBitfield(String),
    /// A member declared twice.
    DuplicateMember(String),
}

fn align_up(v: u64, a: u64) -> u64 {
    let a = a.max(1);
    v.div_ceil(a).saturating_mul(a)
}

impl TypeTable {
    /// Sets the source of kernel types.
    pub fn set_external(&mut self, ext: Arc<dyn ExtTypes>) {
        self.ext = Some(ext);
    }

    pub fn has_external(&self) -> bool {
        self.ext.is_some()
    }

    /// The external source, if any.
    pub fn external(&self) -> Option<Arc<dyn ExtTypes>> {
        self.ext.clone()
    }

    /// The typedef names programs have declared.
    pub fn typedef_names(&self) -> impl Iterator<Item = &str> {
        self.typedefs.keys().map(String::as_str)
    }

    pub fn record(&self, r: &TagRef) -> &Record {
        &self.records[r.id as usize]
    }

    pub fn enum_def(&self, r: &TagRef) -> &EnumDef {
        &self.enums[r.id as usize]
    }

    /// A typedef name declared by a program or known to the kernel.
    pub fn typedef(&mut self, name: &str, module: Option<&str>) -> Option<Type> {
        if module.is_none() {
            if let Some(t) = self.typedefs.get(name) {
                return Some(t.clone());
            }
        }
        let ext = self.ext.clone()?;
        let id = ext.typedef(name, module)?;
        self.import(id, 0)
    }

    /// True if `name` is a typedef the program declared.
    pub fn is_program_typedef(&self, name: &str) -> bool {
        self.typedefs.contains_key(name)
    }

    pub fn add_typedef(&mut self, name: &str, ty: Type) -> Result<(), Type> {
        match self.typedefs.get(name) {
            Some(old) if old.resolved() != ty.resolved() => Err(old.clone()),
            Some(_) => Ok(()),
            None => {
                self.typedefs
                    .insert(name.to_string(), Type::Named(name.into(), Box::new(ty)));
                Ok(())
            }
        }
    }

    /// An enumerator's value and enum type.
    pub fn enumerator(&self, name: &str) -> Option<(i64, Type)> {
        self.enumerators.get(name).cloned()
    }

    /// The struct, union or enum with this tag: the program's, else the
    /// kernel's (with `module`, only the kernel's in that module).
    pub fn tagged(&mut self, kind: TagKind, name: &str, module: Option<&str>) -> Option<Type> {
        // `D` and `C` name DTrace's containers of the program's own
        // definitions (`struct D`s`).
        let own = matches!(module, Some("D" | "C"));
        if module.is_none() || own {
            if let Some(&id) = self.tags.get(&(kind, name.to_string())) {
                return Some(self.tag_type(kind, id));
            }
            if own {
                return None;
            }
        }
        let key = (kind, format!("{}`{}", module.unwrap_or(""), name));
        if let Some(t) = self.ext_tags.get(&key) {
            return t.clone();
        }
        let found = self
            .ext
            .clone()
            .and_then(|ext| ext.tagged(kind, name, module))
            .and_then(|id| self.import(id, 0));
        self.ext_tags.insert(key, found.clone());
        found
    }

    fn tag_type(&self, kind: TagKind, id: u32) -> Type {
        match kind {
            TagKind::Enum => {
                let e = &self.enums[id as usize];
                Type::Enum(
                    TagRef {
                        id,
                        name: tag_name(kind, e.tag.as_deref()),
                    },
                    e.repr,
                )
            }
            _ => Type::Record(TagRef {
                id,
                name: tag_name(kind, self.records[id as usize].tag.as_deref()),
            }),
        }
    }

    /// Declares (or finds) a struct or union tag without members.
    pub fn forward(&mut self, kind: TagKind, name: &str) -> Type {
        if let Some(&id) = self.tags.get(&(kind, name.to_string())) {
            return self.tag_type(kind, id);
        }
        let id = self.records.len() as u32;
        self.records.push(Record {
            union: kind == TagKind::Union,
            tag: Some(name.to_string()),
            size: 0,
            align: 1,
            members: Vec::new(),
            origin: Origin::Forward,
        });
        self.tags.insert((kind, name.to_string()), id);
        self.tag_type(kind, id)
    }

    /// True if the program defined this tag with members already.
    pub fn is_defined(&self, kind: TagKind, name: &str) -> bool {
        self.tags
            .get(&(kind, name.to_string()))
            .is_some_and(|&id| match kind {
                TagKind::Enum => true,
                _ => self.records[id as usize].origin != Origin::Forward,
            })
    }

    /// Defines a struct or union from its members (name, type, bitfield
    /// width), laying it out as the C compiler does on x86-64 (System V).
    pub fn define_record(
        &mut self,
        kind: TagKind,
        name: Option<&str>,
        members: Vec<(Option<String>, Type, Option<u32>)>,
    ) -> Result<Type, TypeError> {
        let union = kind == TagKind::Union;
        let mut laid = Vec::new();
        let mut bit: u64 = 0;
        let mut size: u64 = 0;
        let mut align: u64 = 1;
        let mut seen = std::collections::HashSet::new();
        for (mname, ty, bits) in members {
            if let Some(n) = &mname {
                if !seen.insert(n.clone()) {
                    return Err(TypeError::DuplicateMember(n.clone()));
                }
            }
            let msize = self.size_of(&ty)?;
            let malign = u64::from(self.align_of(&ty)?);
            if union {
                bit = 0;
            }
            let at = match bits {
                Some(w) => {
                    if !ty.is_int() || u64::from(w) > msize * 8 {
                        return Err(TypeError::BadBitfield(mname.clone().unwrap_or_default()));
                    }
                    let unit = msize * 8;
                    let w = u64::from(w);
                    if w == 0 {
                        // Ends the current unit.
                        bit = align_up(bit, unit);
                        continue;
                    }
                    // A bitfield does not straddle a unit of its type.
                    if bit / unit != (bit + w - 1) / unit {
                        bit = align_up(bit, unit);
                    }
                    let at = bit;
                    bit += w;
                    if mname.is_some() {
                        align = align.max(malign);
                    }
                    at
                }
                None => {
                    bit = align_up(bit, malign * 8);
                    let at = bit;
                    bit = bit
                        .checked_add(msize.checked_mul(8).ok_or(TypeError::TooLarge)?)
                        .ok_or(TypeError::TooLarge)?;
                    align = align.max(malign);
                    at
                }
            };
            size = size.max(bit.div_ceil(8));
            laid.push(Member {
                name: mname,
                ty,
                bit_offset: at,
                bits,
            });
        }
        let size = align_up(size, align);
        if size > u64::from(u32::MAX) {
            return Err(TypeError::TooLarge);
        }
        let rec = Record {
            union,
            tag: name.map(str::to_string),
            size,
            align: align as u32,
            members: laid,
            origin: Origin::Program,
        };
        let id = match name.and_then(|n| self.tags.get(&(kind, n.to_string()))) {
            Some(&id) => {
                self.records[id as usize] = rec;
                id
            }
            None => {
                let id = self.records.len() as u32;
                self.records.push(rec);
                if let Some(n) = name {
                    self.tags.insert((kind, n.to_string()), id);
                }
                id
            }
        };
        Ok(self.tag_type(kind, id))
    }

    /// Defines an enum; its enumerators become names of the program.
    pub fn define_enum(&mut self, name: Option<&str>, values: Vec<(String, i64)>) -> Type {
        let fits_int = values
            .iter()
            .all(|&(_, v)| v >= i64::from(i32::MIN) && v <= i64::from(i32::MAX));
        let repr = if fits_int { INT } else { LONG };
        let id = self.enums.len() as u32;
        self.enums.push(EnumDef {
            tag: name.map(str::to_string),
            repr,
            values: values.clone(),
            origin: Origin::Program,
        });
        if let Some(n) = name {
            self.tags.insert((TagKind::Enum, n.to_string()), id);
        }
        let ty = self.tag_type(TagKind::Enum, id);
        for (n, v) in values {
            self.enumerators.insert(n, (v, ty.clone()));
        }
        ty
    }

    /// Size in bytes.
    pub fn size_of(&mut self, ty: &Type) -> Result<u64, TypeError> {
        match ty {
            Type::Int(i) | Type::Enum(_, i) => Ok(u64::from(i.size)),
            Type::Float(f) => Ok(u64::from(f.size)),
            Type::Ptr(_) => Ok(8),
            Type::String => Ok(u64::from(self.strsize)),
            Type::Named(_, t) => self.size_of(t),
            Type::Array(t, n) => self
                .size_of(t)?
                .checked_mul(u64::from(*n))
                .filter(|&s| s <= u64::from(u32::MAX))
                .ok_or(TypeError::TooLarge),
            Type::Record(r) => {
                self.load(r);
                let rec = &self.records[r.id as usize];
                if rec.origin == Origin::Forward {
                    return Err(TypeError::Incomplete(r.name.to_string()));
                }
                Ok(rec.size)
            }
            Type::Void | Type::Dyn | Type::Func(_) | Type::Translated { .. } => {
                Err(TypeError::Incomplete(ty.to_string()))
            }
        }
    }

    /// The size of a type whose size is already known (records are sized
    /// when imported or defined): what the back end lays storage out by.
    /// None for types without a size.
    pub fn known_size(&self, ty: &Type) -> Option<u64> {
        match ty {
            Type::Int(i) | Type::Enum(_, i) => Some(u64::from(i.size)),
            Type::Float(f) => Some(u64::from(f.size)),
            Type::Ptr(_) => Some(8),
            Type::String => Some(u64::from(self.strsize)),
            Type::Named(_, t) => self.known_size(t),
            Type::Array(t, n) => self.known_size(t)?.checked_mul(u64::from(*n)),
            Type::Record(r) => {
                let rec = self.records.get(r.id as usize)?;
                (rec.origin != Origin::Forward).then_some(rec.size)
            }
            Type::Void | Type::Dyn | Type::Func(_) | Type::Translated { .. } => None,
        }
    }

    /// Alignment in bytes.
    pub fn align_of(&mut self, ty: &Type) -> Result<u32, TypeError> {
        match ty {
            Type::Named(_, t) | Type::Array(t, _) => self.align_of(t),
            Type::Record(r) => {
                self.load(r);
                let rec = &self.records[r.id as usize];
                if rec.origin == Origin::Forward {
                    return Err(TypeError::Incomplete(r.name.to_string()));
                }
                Ok(rec.align)
            }
            Type::String => Ok(1),
            other => Ok(self.size_of(other)?.clamp(1, 16) as u32),
        }
    }

    /// The members of a record, read from the external source first if
    /// it was imported.
    pub fn members_of(&mut self, r: &TagRef) -> Vec<Member> {
        self.load(r);
        self.records
            .get(r.id as usize)
            .map(|rec| rec.members.clone())
            .unwrap_or_default()
    }

    /// Finds a member by name, looking inside anonymous members.
    pub fn member(&mut self, r: &TagRef, name: &str) -> Option<FoundMember> {
        self.member_at(r, name, 0)
    }

    fn member_at(&mut self, r: &TagRef, name: &str, depth: u32) -> Option<FoundMember> {
        if depth > MAX_EXT_DEPTH {
            return None;
        }
        self.load(r);
        // The member named so, and the anonymous records before it (whose
        // members come first, in order), found without copying the list.
        let mut named = None;
        let mut anon: Vec<(TagRef, u64)> = Vec::new();
        for m in &self.records.get(r.id as usize)?.members {
            match &m.name {
                Some(n) if n == name => {
                    named = Some(FoundMember {
                        ty: m.ty.clone(),
                        bit_offset: m.bit_offset,
                        bits: m.bits,
                    });
                    break;
                }
                None => {
                    if let Type::Record(inner) = m.ty.resolved() {
                        anon.push((inner.clone(), m.bit_offset));
                    }
                }
                _ => {}
            }
        }
        for (inner, at) in anon {
            if let Some(f) = self.member_at(&inner, name, depth + 1) {
                return Some(FoundMember {
                    bit_offset: f.bit_offset + at,
                    ..f
                });
            }
        }
        named
    }

    /// Reads the members of a record imported from the external source.
    fn load(&mut self, r: &TagRef) {
        let Some(rec) = self.records.get(r.id as usize) else {
            return;
        };
        let Origin::External(xid) = rec.origin else {
            return;
        };
        self.records[r.id as usize].origin = Origin::Imported(xid);
        let Some(ext) = self.ext.clone() else { return };
        let Some(ExtType::Record { members, .. }) = ext.get(xid) else {
            return;
        };
        let mut out = Vec::new();
        let mut align = 1u32;
        for (name, mid, bit_offset, bits) in members {
            let Some(ty) = self.import(mid, 1) else {
                continue;
            };
            if bits.is_none() {
                if let Ok(a) = self.align_of(&ty) {
                    align = align.max(a);
                }
            }
            out.push(Member {
                name,
                ty,
                bit_offset,
                bits,
            });
        }
        let rec = &mut self.records[r.id as usize];
        rec.members = out;
        rec.align = align;
    }

    /// The D type of an external type (records are read lazily).
    pub fn import(&mut self, id: ExtId, depth: u32) -> Option<Type> {
        if let Some(t) = self.imported.get(&id) {
            return Some(t.clone());
        }
        if depth > MAX_EXT_DEPTH {
            return None;
        }
        let ext = self.ext.clone()?;
        let t = match ext.get(id)? {
            ExtType::Void => Type::Void,
            ExtType::Int { name, size, signed } => Type::Int(ext_int(&name, size, signed)),
            ExtType::Float { size } => Type::Float(match size {
                4 => FLOAT,
                8 => DOUBLE,
                _ => LONG_DOUBLE,
            }),
            ExtType::Ptr(to) => {
                // A pointer to a type that cannot be read is a void *.
                Type::ptr(self.import(to, depth + 1).unwrap_or(Type::Void))
            }
            ExtType::Array { elem, len } => {
                Type::Array(Box::new(self.import(elem, depth + 1)?), len)
            }
            ExtType::Qualified(to) => self.import(to, depth + 1)?,
            ExtType::Const(to) => self.import(to, depth + 1)?.with_const(),
            ExtType::Typedef { name, target } => {
                let inner = self.import(target, depth + 1)?;
                Type::Named(name.into(), Box::new(inner))
            }
            ExtType::Func {
                ret,
                params,
                variadic,
            } => {
                let ret = self.import(ret, depth + 1).unwrap_or(Type::Void);
                let params = params
                    .into_iter()
                    .map(|p| self.import(p, depth + 1).unwrap_or(Type::Void))
                    .collect();
                Type::Func(Box::new(FuncType {
                    ret,
                    params,
                    variadic,
                }))
            }
            ExtType::Record {
                union, name, size, ..
            } => {
                let id32 = self.records.len() as u32;
                self.records.push(Record {
                    union,
                    tag: name.clone(),
                    size,
                    align: 1,
                    members: Vec::new(),
                    origin: Origin::External(id),
                });
                let kind = if union {
                    TagKind::Union
                } else {
                    TagKind::Struct
                };
                Type::Record(TagRef {
                    id: id32,
                    name: tag_name(kind, name.as_deref()),
                })
            }
            ExtType::Fwd { union, name } => {
                let kind = if union {
                    TagKind::Union
                } else {
                    TagKind::Struct
                };
                // The definition may be elsewhere in the source.
                match ext.tagged(kind, &name, None).filter(|&d| d != id) {
                    Some(def) => self.import(def, depth + 1)?,
                    None => {
                        let id32 = self.records.len() as u32;
                        self.records.push(Record {
                            union,
                            tag: Some(name.clone()),
                            size: 0,
                            align: 1,
                            members: Vec::new(),
                            origin: Origin::Forward,
                        });
                        Type::Record(TagRef {
                            id: id32,
                            name: tag_name(kind, Some(&name)),
                        })
                    }
                }
            }
            ExtType::Enum {
                name,
                size,
                signed,
                values,
            } => {
                let repr = match (size, signed) {
                    (1, s) => IntType::new(1, s, if s { "char" } else { "uchar_t" }),
                    (2, s) => IntType::new(2, s, if s { "short" } else { "ushort_t" }),
                    (8, true) => LONG,
                    (8, false) => ULONG,
                    (_, true) => INT,
                    (_, false) => UINT,
                };
                let id32 = self.enums.len() as u32;
                self.enums.push(EnumDef {
                    tag: name.clone(),
                    repr,
                    values,
                    origin: Origin::Imported(id),
                });
                Type::Enum(
                    TagRef {
                        id: id32,
                        name: tag_name(TagKind::Enum, name.as_deref()),
                    },
                    repr,
                )
            }
        };
        self.imported.insert(id, t.clone());
        Some(t)
    }
}

fn tag_name(kind: TagKind, tag: Option<&str>) -> Arc<str> {
    match tag {
        Some(t) => format!("{} {}", kind.keyword(), t).into(),
        None => format!("{} <anon>", kind.keyword()).into(),
    }
}

/// A kernel integer type under D's name for it.
fn ext_int(name: &str, size: u8, signed: bool) -> IntType {
    if let Some(Type::Int(t)) = resolve_base(name) {
        if t.size == size && t.signed == signed {
            return t;
        }
    }
    match (size, signed) {
        (1, true) => CHAR,
        (1, false) => UCHAR,
        (2, true) => SHORT,
        (2, false) => USHORT,
        (4, true) => INT,
        (4, false) => UINT,
        (8, true) => LONG,
        (16, _) => ULONGLONG,
        _ => ULONG,
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn argument_compatibility_is_dtrace_s() {
        let chr = Type::Int(CHAR);
        let cp = Type::ptr(chr.clone());
        let ip = Type::ptr(Type::Int(INT));
        let vp = Type::ptr(Type::Void);
        let uptr = Type::Int(UINTPTR_T);
        // Integers of any width for an integer; pointers are not integers.
        assert!(uptr.accepts_arg(&chr, false));
        assert!(!uptr.accepts_arg(&cp, false));
        // Strings, char pointers and char arrays are alike.
        assert!(cp.accepts_arg(&Type::String, false));
        assert!(Type::String.accepts_arg(&Type::Array(Box::new(chr.clone()), 16), false));
        assert!(!cp.accepts_arg(&Type::Int(INT), false));
        // Pointers: the same referent, void, or the constant 0.
        assert!(ip.accepts_arg(
            &Type::ptr(Type::Int(IntType::new(4, true, "int32_t"))),
            false
        ));
        assert!(!ip.accepts_arg(&Type::ptr(Type::Int(LONG)), false));
        assert!(vp.accepts_arg(&ip, false) && ip.accepts_arg(&vp, false));
        assert!(ip.accepts_arg(&Type::Int(INT), true));
        assert!(!ip.accepts_arg(&Type::Int(INT), false));
    }

    use super::*;

    #[test]
    fn resolves_c_type_spellings() {
        assert_eq!(resolve_base("int"), Some(Type::Int(INT)));
        assert_eq!(resolve_base("unsigned long long").unwrap().scalar_size(), 8);
        assert_eq!(resolve_base("uint32_t"), Some(Type::Int(UINT32)));
        assert_eq!(resolve_base("string"), Some(Type::String));
        assert!(matches!(
            resolve_base("unsigned char"),
            Some(Type::Int(IntType {
                size: 1,
                signed: false,
                ..
            }))
        ));
        assert_eq!(resolve_base("short long"), None);
        assert_eq!(resolve_base("banana"), None);
    }

    #[test]
    fn usual_arithmetic_conversions() {
        assert_eq!(usual_arith(CHAR, SHORT), INT);
        assert!(!usual_arith(INT, UINT).signed);
        assert_eq!(usual_arith(INT, INT64), INT64);
        assert_eq!(usual_arith(UINT, INT64), INT64);
        assert!(!usual_arith(INT64, UINT64).signed);
    }

    #[test]
    fn lays_out_records_as_c_does() {
        let mut t = TypeTable::default();
        let int = Type::Int(INT);
        let uint = Type::Int(UINT);
        // struct { unsigned a:3; int b:5; unsigned char c; unsigned d:20;
        //          unsigned :0; short e:4; long f; char g:2; }
        let rec = t
            .define_record(
                TagKind::Struct,
                Some("flags"),
                vec![
                    (Some("a".into()), uint.clone(), Some(3)),
                    (Some("b".into()), int.clone(), Some(5)),
                    (Some("c".into()), Type::Int(UCHAR), None),
                    (Some("d".into()), uint.clone(), Some(20)),
                    (None, uint.clone(), Some(0)),
                    (Some("e".into()), Type::Int(SHORT), Some(4)),
                    (Some("f".into()), Type::Int(LONG), None),
                    (Some("g".into()), Type::Int(CHAR), Some(2)),
                ],
            )
            .unwrap();
        assert_eq!(t.size_of(&rec).unwrap(), 32);
        let Type::Record(r) = &rec else { panic!() };
        let at = |t: &mut TypeTable, m: &str| t.member(r, m).unwrap().bit_offset;
        assert_eq!(at(&mut t, "c"), 8);
        assert_eq!(at(&mut t, "d"), 32);
        assert_eq!(at(&mut t, "e"), 64);
        assert_eq!(at(&mut t, "f"), 128);
        let u = t
            .define_record(
                TagKind::Union,
                None,
                vec![
                    (Some("c".into()), Type::Int(CHAR), None),
                    (Some("l".into()), Type::Int(LONG), None),
                    (
                        Some("b".into()),
                        Type::Array(Box::new(Type::Int(CHAR)), 12),
                        None,
                    ),
                ],
            )
            .unwrap();
        assert_eq!((t.size_of(&u).unwrap(), t.align_of(&u).unwrap()), (16, 8));
        assert_eq!(
            t.define_record(
                TagKind::Struct,
                None,
                vec![
                    (Some("x".into()), int.clone(), None),
                    (Some("x".into()), int, None)
                ]
            ),
            Err(TypeError::DuplicateMember("x".into()))
        );
    }

    #[test]
    fn prints_declarators_as_c_does() {
        let char_arr = Type::Array(Box::new(Type::Int(CHAR)), 16);
        assert_eq!(Type::ptr(char_arr.clone()).to_string(), "char (*)[16]");
        assert_eq!(char_arr.to_string(), "char [16]");
        let f = Type::Func(Box::new(FuncType {
            ret: Type::Int(INT),
            params: vec![Type::ptr(Type::Int(CHAR))],
            variadic: true,
        }));
        assert_eq!(Type::ptr(f).to_string(), "int (*)(char *, ...)");
        assert_eq!(
            Type::Named("pid_t".into(), Box::new(Type::Int(INT))).to_string(),
            "pid_t"
        );
    }

    #[test]
    fn prints_type_names() {
        assert_eq!(Type::Ptr(Box::new(Type::Int(CHAR))).to_string(), "char *");
        assert_eq!(Type::String.to_string(), "string");
    }
}
