//! D's types as the compiler sees them: C integers of each width and
//! signedness (with the names DTrace prints), `string`, pointers and `void`.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    Int(IntType),
    String,
    Ptr(Box<Type>),
    Void,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntType {
    pub size: u8,
    pub signed: bool,
    pub name: &'static str,
}

impl IntType {
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
    IntType::new(8, false, "size_t"),
    IntType::new(8, true, "ssize_t"),
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

impl Type {
    pub fn is_int(&self) -> bool {
        matches!(self, Type::Int(_))
    }

    /// Integers and pointers: what arithmetic and conditions accept.
    pub fn is_scalar(&self) -> bool {
        matches!(self, Type::Int(_) | Type::Ptr(_))
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Type::String)
    }

    /// The integer view of a scalar: pointers behave as `uintptr_t`.
    pub fn as_int(&self) -> Option<IntType> {
        match self {
            Type::Int(i) => Some(*i),
            Type::Ptr(_) => Some(UINTPTR_T),
            _ => None,
        }
    }

    /// Storage size in bytes of a scalar (0 for string and void, whose size
    /// the back end decides).
    pub fn scalar_size(&self) -> u32 {
        match self {
            Type::Int(i) => u32::from(i.size),
            Type::Ptr(_) => 8,
            _ => 0,
        }
    }

    /// True if values of `other` may be stored where `self` is expected.
    pub fn compatible(&self, other: &Type) -> bool {
        match (self, other) {
            (Type::String, Type::String) => true,
            (a, b) if a.is_scalar() && b.is_scalar() => true,
            (Type::Void, Type::Void) => true,
            _ => false,
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
        match self {
            Type::Int(i) => f.write_str(i.name),
            Type::String => f.write_str("string"),
            Type::Void => f.write_str("void"),
            Type::Ptr(t) => write!(f, "{} *", t),
        }
    }
}

#[cfg(test)]
mod tests {
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
    fn prints_type_names() {
        assert_eq!(Type::Ptr(Box::new(Type::Int(CHAR))).to_string(), "char *");
        assert_eq!(Type::String.to_string(), "string");
    }
}
