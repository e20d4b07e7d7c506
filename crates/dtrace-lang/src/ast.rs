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
    /// `#pragma D depends_on (library|provider|module|member) name`.
    DependsOn {
        kind: String,
        name: String,
        line: u32,
    },
    Clause(Clause),
    /// A variable declaration (one per declarator).
    Decl(Decl),
    /// A struct, union or enum definition or forward reference with no
    /// declarator: `struct foo { int a; };`, `enum e { A, B = 5 };`,
    /// `struct foo;`.
    TypeDecl {
        ty: TypeName,
        line: u32,
    },
    /// `typedef <ty> <name>;`, one per declarator (`ty` includes the
    /// declarator's derivations).
    Typedef {
        ty: TypeName,
        name: String,
        line: u32,
    },
    /// `inline int NCPUS = 2;`
    Inline {
        ty: TypeName,
        name: String,
        /// Parameters (`fds[int fd]`): type and name.
        params: Vec<(TypeName, String)>,
        value: Expr,
        line: u32,
    },
    /// `translator psinfo_t < struct task_struct *T > { pr_pid = T->tgid; };`
    /// `members` are (name, value, line).
    Translator {
        to: TypeName,
        from: TypeName,
        param: String,
        members: Vec<(String, Expr, u32)>,
        line: u32,
        /// The line of its closing `};`, where DTrace reports what it
        /// finds wrong with the whole declaration.
        end_line: u32,
    },
    /// `provider name { probe ...; };`
    Provider(ProviderDecl),
    /// `#pragma D attributes Name/Data/Class provider NAME PART`: the
    /// stability of one part (provider, module, function, name, args) of
    /// a provider defined in D.
    Attributes {
        provider: String,
        part: String,
        attr: (String, String, String),
        line: u32,
    },
    /// `#pragma D attributes A/B/C name`: the stability of an identifier
    /// the program defines (which it must).
    IdentAttributes {
        name: String,
        attr: crate::attr::Attr,
        line: u32,
    },
}

/// A provider of user-level static probes (`dtrace -h`).
#[derive(Clone, Debug, PartialEq)]
pub struct ProviderDecl {
    pub name: String,
    pub probes: Vec<ProbeDecl>,
    pub line: u32,
}

/// `probe name(native types) : (translated types);` of a provider; the
/// name as D writes it (`query-start` for `query__start`).
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeDecl {
    pub name: String,
    pub args: Vec<TypeName>,
    pub xargs: Option<Vec<TypeName>>,
    pub line: u32,
}

impl Program {
    /// The names this program declares with `typedef`, in order: what a
    /// later program of the same handle must see as type names.
    pub fn typedef_names(&self) -> impl Iterator<Item = &str> {
        self.items.iter().filter_map(|i| match i {
            Item::Typedef { name, .. } => Some(name.as_str()),
            _ => None,
        })
    }
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
    /// The line the clause ends on (its closing brace), where DTrace
    /// reports what it finds when it checks the clause whole.
    pub end_line: u32,
    /// The line of the token after the predicate's closing `/`: DTrace
    /// checks the predicate once it has read that token, and reports
    /// what it finds there.
    pub pred_end_line: u32,
}

/// A variable declaration: `int x;`, `self string s;`, `this int t;`,
/// `int a[int];`, `int a[4];`, `extern int max_pfn;`.
#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    pub scope: DeclScope,
    /// The type, including the declarator's pointer and array
    /// derivations (`int *a[4]`: array of 4 pointers to int).
    pub ty: TypeName,
    pub name: String,
    /// Key types of an associative array declaration (`int a[string, int]`):
    /// the brackets next to the name hold types. `ty` is the value type.
    pub keys: Option<Vec<TypeName>>,
    pub line: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclScope {
    Global,
    Thread,
    Clause,
    /// `extern` (or a function prototype): the type of a kernel symbol.
    Extern,
}

/// A C type as written in a declaration, cast, `sizeof`, `offsetof`,
/// `xlate` or translator: specifiers plus the declarator's derivations.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeName {
    pub spec: TypeSpec,
    /// `const` among the specifiers (`const char *`: the chars are const).
    pub is_const: bool,
    /// The derivations in the order they apply to the base type:
    /// `int *a[4]` is [Ptr, Array(4)] (array of 4 pointers to int),
    /// `int (*fp)(int)` is [Func, Ptr], `char **` is [Ptr, Ptr].
    pub derived: Vec<Derived>,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Derived {
    /// A pointer; `is_const` for `* const`.
    Ptr { is_const: bool },
    /// `[N]` (a constant expression the checker evaluates) or `[]`.
    Array(Option<Box<Expr>>),
    /// A function with its parameter types (`(void)` is one `void`
    /// parameter, `()` none).
    Func {
        params: Vec<TypeName>,
        variadic: bool,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeSpec {
    /// A base type by name, normalised: "int", "unsigned long",
    /// "long long", "signed char", "unsigned int", "long double",
    /// "void", "string", or a typedef name ("uint64_t", "pid_t", ...).
    /// `module` is the backquote scope (`vmlinux`pid_t`).
    Named {
        name: String,
        module: Option<String>,
    },
    /// `struct`/`union` (`union` true); `members` None for a reference
    /// (`struct foo`), Some for a definition (`struct foo { ... }`,
    /// `struct { ... }`).
    Struct {
        union: bool,
        name: Option<String>,
        module: Option<String>,
        members: Option<Vec<MemberDecl>>,
    },
    /// `enum`; `values` None for a reference, Some for a definition.
    Enum {
        name: Option<String>,
        module: Option<String>,
        values: Option<Vec<Enumerator>>,
    },
}

/// One member declarator of a struct or union definition (`int a, *b;`
/// gives two).
#[derive(Clone, Debug, PartialEq)]
pub struct MemberDecl {
    pub ty: TypeName,
    /// None: an anonymous struct/union member, or an unnamed bit-field.
    pub name: Option<String>,
    /// Bit-field width.
    pub bits: Option<Expr>,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Enumerator {
    pub name: String,
    pub value: Option<Expr>,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    Expr(Expr),
    /// `e1, e2, ...;`: C's comma operator as a statement, each expression
    /// evaluated in turn.
    Comma(Vec<Expr>),
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
    /// A backquoted (kernel) symbol: `` `max_pfn `` (module None) or
    /// `` vmlinux`max_pfn ``.
    Symbol {
        module: Option<String>,
        name: String,
    },
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
    /// `offsetof(struct foo, a.b)`: the type and the member path.
    Offsetof(TypeName, Vec<String>),
    /// `xlate<psinfo_t *>(curthread)`.
    Xlate(TypeName, Box<Expr>),
    SizeofExpr(Box<Expr>),
    Stringof(Box<Expr>),
}

impl Expr {
    pub fn new(kind: ExprKind, line: u32) -> Expr {
        Expr { kind, line }
    }
}
