//! The syntax tree of a D program, as written: nothing is resolved yet.

#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `#pragma D option name[=value]`.
    Option {
        name: String,
        value: Option<String>,
        line: u32,
    },
    Clause(Clause),
    Decl(Decl),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ProbeSpec {
    /// The description as written, with macros expanded.
    pub text: String,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Clause {
    pub probes: Vec<ProbeSpec>,
    pub predicate: Option<Expr>,
    /// None when the clause has no braces at all (`dtrace -n BEGIN`).
    pub body: Option<Vec<Stmt>>,
    pub line: u32,
}

/// A variable declaration: `int x;`, `self string s;`, `this int t;`,
/// `int a[int];`.
#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    pub scope: DeclScope,
    pub ty: TypeName,
    pub name: String,
    /// Key types for an associative array declaration.
    pub keys: Option<Vec<TypeName>>,
    pub line: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclScope {
    Global,
    Thread,
    Clause,
}

/// A type as written in a cast or declaration: base name plus pointer
/// depth, e.g. `unsigned long` or `char *`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeName {
    pub base: String,
    pub pointers: u8,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    Expr(Expr),
    If {
        cond: Expr,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
        line: u32,
    },
    Empty,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
    Deref,
    Addr,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    LogAnd,
    LogOr,
    LogXor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::LogAnd => "&&",
            BinOp::LogOr => "||",
            BinOp::LogXor => "^^",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
        }
    }

    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Int {
        value: u64,
        unsigned: bool,
        long: bool,
        radix_not_decimal: bool,
    },
    Char(i64),
    Str(Vec<u8>),
    Ident(String),
    /// `$name` (`quoted` for `$$name`).
    Macro {
        name: String,
        quoted: bool,
    },
    SelfVar(String),
    ThisVar(String),
    /// `@name[keys]`; `keys` is None for a bare `@name`.
    Agg {
        name: String,
        keys: Option<Vec<Expr>>,
    },
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// Plain (`None`) or compound (`Some(op)`) assignment.
    Assign(Option<BinOp>, Box<Expr>, Box<Expr>),
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    Call(String, Vec<Expr>),
    Index(Box<Expr>, Vec<Expr>),
    Member(Box<Expr>, String),
    Arrow(Box<Expr>, String),
    Cast(TypeName, Box<Expr>),
    SizeofType(TypeName),
    SizeofExpr(Box<Expr>),
    Stringof(Box<Expr>),
}

impl Expr {
    pub fn new(kind: ExprKind, line: u32) -> Expr {
        Expr { kind, line }
    }
}
