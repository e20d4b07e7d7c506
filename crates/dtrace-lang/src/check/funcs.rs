//! D's built-in functions as rows: each subroutine, action and
//! aggregating function is one entry of [`FUNCS`] (name, kind, the
//! argument counts its prototype accepts, and how it is checked and
//! lowered). A new one is a row plus its function; the lookups, the
//! argument-count errors and the "may not be used here" errors are shared.

use super::*;

/// What a function is to D.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// A subroutine: a value in an expression.
    Subroutine,
    /// An action: a statement of its own.
    Action,
    /// An aggregating function: the value of `@name[...] =`.
    Aggregating,
}

pub(super) type ActionFn = fn(&mut Checker<'_>, &[Expr], u32) -> Result<CStmt, CompileError>;
/// A subroutine's lowering, given its arguments checked against the
/// prototype.
pub(super) type SubrFn = fn(&mut Checker<'_>, Vec<CExpr>, u32) -> Result<CExpr, CompileError>;
/// A lowering that takes its operand unchecked (`stringof` reads a place).
pub(super) type OperatorFn = fn(&mut Checker<'_>, &[Expr], u32) -> Result<CExpr, CompileError>;

/// How a function is checked and lowered.
#[derive(Clone, Copy)]
pub(super) enum Lowering {
    Act(ActionFn),
    Subr(SubrFn),
    Operator(OperatorFn),
    /// Made by `Checker::aggregation`, which builds its `AggFunc`.
    Agg,
    /// Known to D, not yet supported here.
    NotYet,
    /// Known to D, and refused on Linux for the reason given (Solaris
    /// structures Linux does not have).
    Unsupported(&'static str),
}

pub(super) struct FuncDef {
    pub name: &'static str,
    pub role: Role,
    /// The prototype in DTrace's notation: `string(uintptr_t, [size_t])`.
    /// `@` is an argument of any type, `[T]` an optional one, `...` any
    /// number more. The argument counts, and the types of the arguments
    /// with a declared type, are checked against it.
    pub proto: &'static str,
    pub lowering: Lowering,
}

const fn row(name: &'static str, role: Role, proto: &'static str, lowering: Lowering) -> FuncDef {
    FuncDef {
        name,
        role,
        proto,
        lowering,
    }
}

/// One parameter of a prototype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Param {
    /// `@`: any type.
    Any,
    /// A C type name, as written in the prototype.
    Typed(&'static str),
}

/// A prototype's parameter list.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Proto {
    pub params: Vec<Param>,
    /// Index of `...`: at least that many arguments, then any number.
    pub varargs: Option<usize>,
    /// Index of the first `[T]`: that many are required.
    pub optional: Option<usize>,
}

impl Proto {
    /// Parses a row's prototype. The rows are this crate's own text; a
    /// test parses every one.
    pub fn parse(text: &'static str) -> Option<Proto> {
        let open = text.find('(')?;
        let inner = text[open + 1..].strip_suffix(')')?.trim();
        let mut p = Proto {
            params: Vec::new(),
            varargs: None,
            optional: None,
        };
        if inner.is_empty() {
            return Some(p);
        }
        for (i, part) in inner.split(',').map(str::trim).enumerate() {
            if p.varargs.is_some() {
                return None;
            }
            if part == "..." {
                p.varargs = Some(i);
                continue;
            }
            let (t, optional) = match part.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
                Some(t) => (t, true),
                None => (part, false),
            };
            if optional {
                p.optional.get_or_insert(i);
            } else if p.optional.is_some() {
                return None;
            }
            p.params.push(match t {
                "" => return None,
                "@" => Param::Any,
                t => Param::Typed(t),
            });
        }
        Some(p)
    }

    /// DTrace's "expected" wording when `got` arguments do not fit.
    pub fn mismatch(&self, got: usize) -> Option<String> {
        let n = self.params.len();
        if let Some(v) = self.varargs {
            return (got < v).then(|| format!("at least {}", v));
        }
        if let Some(o) = self.optional {
            if got < o {
                return Some(format!("at least {}", o));
            }
            return (got > n).then(|| format!("at most {}", n));
        }
        (got != n).then(|| n.to_string())
    }
}

use Lowering::*;
use Role::*;

pub(super) const FUNCS: &[FuncDef] = &[
    row("trace", Action, "void(@)", Act(|c, a, l| c.act_trace(a, l))),
    row(
        "printf",
        Action,
        "void(string, ...)",
        Act(|c, a, l| c.act_printf(a, l)),
    ),
    row("exit", Action, "void(int)", Act(|c, a, l| c.act_exit(a, l))),
    row(
        "printa",
        Action,
        "void(@, ...)",
        Act(|c, a, l| c.act_printa(a, l)),
    ),
    row("clear", Action, "void(@)", Act(|c, a, l| c.act_clear(a, l))),
    row(
        "trunc",
        Action,
        "void(@, [int64_t])",
        Act(|c, a, l| c.act_trunc(a, l)),
    ),
    row(
        "copyinstr",
        Subroutine,
        "string(uintptr_t, [size_t])",
        Subr(|c, a, l| c.subr_copyinstr(a, l)),
    ),
    row(
        "stringof",
        Subroutine,
        "string(@)",
        Operator(|c, a, l| c.subr_stringof(a, l)),
    ),
    row(
        "strlen",
        Subroutine,
        "size_t(const char *)",
        Subr(|c, a, l| c.subr_strlen(a, l)),
    ),
    row("count", Aggregating, "void()", Agg),
    row("sum", Aggregating, "void(@)", Agg),
    row("min", Aggregating, "void(@)", Agg),
    row("max", Aggregating, "void(@)", Agg),
    row("avg", Aggregating, "void(@)", Agg),
    row("quantize", Aggregating, "void(@, ...)", Agg),
    row(
        "lquantize",
        Aggregating,
        "void(@, int32_t, int32_t, ...)",
        Agg,
    ),
    row("stddev", Aggregating, "void(@)", Agg),
    row(
        "llquantize",
        Aggregating,
        "void(@, int32_t, int32_t, int32_t, int32_t, ...)",
        Agg,
    ),
    row(
        "speculation",
        Subroutine,
        "int()",
        Subr(|c, a, l| c.subr_speculation(a, l)),
    ),
    row(
        "speculate",
        Action,
        "void(int)",
        Act(|c, a, l| c.act_speculate(a, l)),
    ),
    row(
        "commit",
        Action,
        "void(int)",
        Act(|c, a, l| c.act_commit(a, l)),
    ),
    row(
        "discard",
        Action,
        "void(int)",
        Act(|c, a, l| c.act_discard(a, l)),
    ),
    row(
        "stack",
        Action,
        "stack([uint32_t])",
        Subr(|c, a, l| c.subr_stack(a, l)),
    ),
    row(
        "ustack",
        Action,
        "stack([uint32_t], [uint32_t])",
        Subr(|c, a, l| c.subr_ustack(a, l)),
    ),
    row(
        "jstack",
        Action,
        "stack([uint32_t], [uint32_t])",
        Subr(|c, a, l| c.subr_jstack(a, l)),
    ),
    row(
        "ufunc",
        Subroutine,
        "_usymaddr(uintptr_t)",
        Subr(|c, a, l| c.subr_usym(a, l)),
    ),
    row(
        "usym",
        Subroutine,
        "_usymaddr(uintptr_t)",
        Subr(|c, a, l| c.subr_usym(a, l)),
    ),
    row(
        "umod",
        Subroutine,
        "_usymaddr(uintptr_t)",
        Subr(|c, a, l| c.subr_umod(a, l)),
    ),
    row(
        "uaddr",
        Subroutine,
        "_usymaddr(uintptr_t)",
        Subr(|c, a, l| c.subr_uaddr(a, l)),
    ),
    row(
        "func",
        Subroutine,
        "_symaddr(uintptr_t)",
        Subr(|c, a, l| c.subr_sym(a, l)),
    ),
    row(
        "sym",
        Subroutine,
        "_symaddr(uintptr_t)",
        Subr(|c, a, l| c.subr_sym(a, l)),
    ),
    row(
        "mod",
        Subroutine,
        "_symaddr(uintptr_t)",
        Subr(|c, a, l| c.subr_mod(a, l)),
    ),
    row(
        "tracemem",
        Action,
        "void(@, size_t, [size_t])",
        Act(|c, a, l| c.act_tracemem(a, l)),
    ),
    row("printm", Action, "void(size_t, uintptr_t)", NotYet),
    row(
        "raise",
        Action,
        "void(int)",
        Act(|c, a, l| c.act_raise(a, l)),
    ),
    row("stop", Action, "void()", Act(|c, a, l| c.act_stop(a, l))),
    row(
        "system",
        Action,
        "void(@, ...)",
        Act(|c, a, l| c.act_system(a, l)),
    ),
    row(
        "breakpoint",
        Action,
        "void()",
        Act(|c, a, l| c.act_breakpoint(a, l)),
    ),
    row("panic", Action, "void()", Act(|c, a, l| c.act_panic(a, l))),
    row(
        "chill",
        Action,
        "void(int)",
        Act(|c, a, l| c.act_chill(a, l)),
    ),
    row(
        "copyin",
        Subroutine,
        "void *(uintptr_t, size_t)",
        Subr(|c, a, l| c.subr_copyin(a, l)),
    ),
    row(
        "copyinto",
        Subroutine,
        "void(uintptr_t, size_t, void *)",
        Subr(|c, a, l| c.subr_copyinto(a, l)),
    ),
    row(
        "copyout",
        Action,
        "void(void *, uintptr_t, size_t)",
        Act(|c, a, l| c.act_copyout(a, l)),
    ),
    row(
        "copyoutstr",
        Action,
        "void(char *, uintptr_t, size_t)",
        Act(|c, a, l| c.act_copyoutstr(a, l)),
    ),
    row(
        "alloca",
        Subroutine,
        "void *(size_t)",
        Subr(|c, a, l| c.subr_alloca(a, l)),
    ),
    row(
        "bcopy",
        Subroutine,
        "void(void *, void *, size_t)",
        Subr(|c, a, l| c.subr_bcopy(a, l)),
    ),
    row(
        "basename",
        Subroutine,
        "string(const char *)",
        Subr(|c, a, l| c.subr_basename(a, l)),
    ),
    row(
        "dirname",
        Subroutine,
        "string(const char *)",
        Subr(|c, a, l| c.subr_dirname(a, l)),
    ),
    row(
        "strjoin",
        Subroutine,
        "string(const char *, const char *)",
        Subr(|c, a, l| c.subr_strjoin(a, l)),
    ),
    row(
        "substr",
        Subroutine,
        "string(const char *, int, [int])",
        Subr(|c, a, l| c.subr_substr(a, l)),
    ),
    row(
        "index",
        Subroutine,
        "int(const char *, const char *, [int])",
        Subr(|c, a, l| c.subr_index(a, l)),
    ),
    row(
        "rindex",
        Subroutine,
        "int(const char *, const char *, [int])",
        Subr(|c, a, l| c.subr_rindex(a, l)),
    ),
    row(
        "strchr",
        Subroutine,
        "string(const char *, char)",
        Subr(|c, a, l| c.subr_strchr(a, l)),
    ),
    row(
        "strrchr",
        Subroutine,
        "string(const char *, char)",
        Subr(|c, a, l| c.subr_strrchr(a, l)),
    ),
    row(
        "strstr",
        Subroutine,
        "string(const char *, const char *)",
        Subr(|c, a, l| c.subr_strstr(a, l)),
    ),
    row(
        "strtok",
        Subroutine,
        "string(const char *, const char *)",
        Subr(|c, a, l| c.subr_strtok(a, l)),
    ),
    row(
        "lltostr",
        Subroutine,
        "string(int64_t)",
        Subr(|c, a, l| c.subr_lltostr(a, l)),
    ),
    row(
        "toupper",
        Subroutine,
        "string(const char *)",
        Subr(|c, a, l| c.subr_toupper(a, l)),
    ),
    row(
        "tolower",
        Subroutine,
        "string(const char *)",
        Subr(|c, a, l| c.subr_tolower(a, l)),
    ),
    // Network order is big-endian; this host's (x86-64) is not: each
    // converts by swapping bytes.
    row(
        "htons",
        Subroutine,
        "uint16_t(uint16_t)",
        Subr(|c, a, l| c.subr_swap16(a, l)),
    ),
    row(
        "htonl",
        Subroutine,
        "uint32_t(uint32_t)",
        Subr(|c, a, l| c.subr_swap32(a, l)),
    ),
    row(
        "htonll",
        Subroutine,
        "uint64_t(uint64_t)",
        Subr(|c, a, l| c.subr_swap64(a, l)),
    ),
    row(
        "ntohs",
        Subroutine,
        "uint16_t(uint16_t)",
        Subr(|c, a, l| c.subr_swap16(a, l)),
    ),
    row(
        "ntohl",
        Subroutine,
        "uint32_t(uint32_t)",
        Subr(|c, a, l| c.subr_swap32(a, l)),
    ),
    row(
        "ntohll",
        Subroutine,
        "uint64_t(uint64_t)",
        Subr(|c, a, l| c.subr_swap64(a, l)),
    ),
    row(
        "inet_ntoa",
        Subroutine,
        "string(ipaddr_t *)",
        Subr(|c, a, l| c.subr_inet_ntoa(a, l)),
    ),
    row(
        "inet_ntoa6",
        Subroutine,
        "string(struct in6_addr *, [int])",
        Subr(|c, a, l| c.subr_inet_ntoa6(a, l)),
    ),
    row(
        "inet_ntop",
        Subroutine,
        "string(int, void *)",
        Subr(|c, a, l| c.subr_inet_ntop(a, l)),
    ),
    row(
        "rand",
        Subroutine,
        "int()",
        Subr(|c, a, l| c.subr_rand(a, l)),
    ),
    row(
        "progenyof",
        Subroutine,
        "int(pid_t)",
        Subr(|c, a, l| c.subr_progenyof(a, l)),
    ),
    row(
        "getmajor",
        Subroutine,
        "vmlinux`dev_t(vmlinux`dev_t)",
        Subr(|c, a, l| c.subr_getmajor(a, l)),
    ),
    row(
        "getminor",
        Subroutine,
        "vmlinux`dev_t(vmlinux`dev_t)",
        Subr(|c, a, l| c.subr_getminor(a, l)),
    ),
    row(
        "ddi_pathname",
        Subroutine,
        "string(void *, int64_t)",
        Unsupported("it names a Solaris device-tree node (dev_info_t), which Linux does not have"),
    ),
    row(
        "mutex_owned",
        Subroutine,
        "int(vmlinux`struct mutex *)",
        Subr(|c, a, l| c.subr_mutex_owned(a, l)),
    ),
    row(
        "mutex_owner",
        Subroutine,
        "vmlinux`struct task_struct *(vmlinux`struct mutex *)",
        Subr(|c, a, l| c.subr_mutex_owner(a, l)),
    ),
    row(
        "mutex_type_adaptive",
        Subroutine,
        "int(vmlinux`struct mutex *)",
        Subr(|c, a, l| c.subr_mutex_type_adaptive(a, l)),
    ),
    row(
        "mutex_type_spin",
        Subroutine,
        "int(vmlinux`struct mutex *)",
        Subr(|c, a, l| c.subr_mutex_type_spin(a, l)),
    ),
    row(
        "rw_read_held",
        Subroutine,
        "int(vmlinux`rwlock_t *)",
        Subr(|c, a, l| c.subr_rw_read_held(a, l)),
    ),
    row(
        "rw_write_held",
        Subroutine,
        "int(vmlinux`rwlock_t *)",
        Subr(|c, a, l| c.subr_rw_write_held(a, l)),
    ),
    row(
        "rw_iswriter",
        Subroutine,
        "int(vmlinux`rwlock_t *)",
        Subr(|c, a, l| c.subr_rw_iswriter(a, l)),
    ),
    row(
        "cleanpath",
        Subroutine,
        "string(const char *)",
        Subr(|c, a, l| c.subr_cleanpath(a, l)),
    ),
    row(
        "json",
        Subroutine,
        "string(const char *, const char *)",
        Subr(|c, a, l| c.subr_json(a, l)),
    ),
    row(
        "msgsize",
        Subroutine,
        "size_t(mblk_t *)",
        Unsupported("it measures a STREAMS message (mblk_t), which Linux does not have"),
    ),
    row(
        "msgdsize",
        Subroutine,
        "size_t(mblk_t *)",
        Unsupported("it measures a STREAMS message (mblk_t), which Linux does not have"),
    ),
    row(
        "setopt",
        Action,
        "void(const char *, [const char *])",
        Act(|c, a, l| c.act_setopt(a, l)),
    ),
    row(
        "normalize",
        Action,
        "void(@, uint64_t)",
        Act(|c, a, l| c.act_normalize(a, l)),
    ),
    row(
        "denormalize",
        Action,
        "void(@)",
        Act(|c, a, l| c.act_denormalize(a, l)),
    ),
    row(
        "ftruncate",
        Action,
        "void()",
        Act(|c, a, l| c.act_ftruncate(a, l)),
    ),
    row(
        "freopen",
        Action,
        "void(@, ...)",
        Act(|c, a, l| c.act_freopen(a, l)),
    ),
    row("print", Action, "void(@)", Act(|c, a, l| c.act_print(a, l))),
    row(
        "d_path",
        Subroutine,
        "string(struct path *)",
        Subr(|c, a, l| c.subr_d_path(a, l)),
    ),
    row(
        "link_ntop",
        Subroutine,
        "string(int, void *)",
        Subr(|c, a, l| c.subr_link_ntop(a, l)),
    ),
    row(
        "strtoll",
        Subroutine,
        "int64_t(const char *, [int])",
        Subr(|c, a, l| c.subr_strtoll(a, l)),
    ),
];

/// A lowering's arguments as its row's prototype admitted them (the
/// count is checked against the prototype before any lowering runs): the
/// first `N`, and the optional ones after them. Fewer than `N` would be a
/// row and its lowering disagreeing: an internal error, never a panic.
pub(super) fn take<const N: usize>(
    mut args: Vec<CExpr>,
    line: u32,
) -> Result<([CExpr; N], Vec<CExpr>), CompileError> {
    if args.len() < N {
        return Err(err(
            Tag::D_PROTO_LEN,
            line,
            format!(
                "internal error: a built-in's lowering takes {} arguments, its prototype {}",
                N,
                args.len()
            ),
        ));
    }
    let rest = args.split_off(N);
    let first = args
        .try_into()
        .map_err(|_| err(Tag::D_PROTO_LEN, line, "internal error: argument count"))?;
    Ok((first, rest))
}

pub(super) fn lookup(name: &str) -> Option<&'static FuncDef> {
    FUNCS.iter().find(|f| f.name == name && visible(name))
}

/// A D version as DTrace numbers it: major, minor and micro in 8, 12 and
/// 12 bits.
pub const fn version(major: u32, minor: u32, micro: u32) -> u32 {
    (major << 24) | (minor << 12) | micro
}

/// This compiler's D version.
pub const LATEST_VERSION: u32 = version(1, 13, 0);

/// The D version a built-in function or variable came with, as DTrace
/// records it (most with D 1.0).
pub fn introduced(name: &str) -> u32 {
    match name {
        "freopen" | "index" | "rindex" | "strchr" | "strrchr" | "strstr" | "strtok" | "substr"
        | "memref" => version(1, 1, 0),
        "func" | "mod" | "sym" | "setopt" | "uaddr" | "ucaller" | "ufunc" | "umod"
        | "ustackdepth" | "usym" => version(1, 2, 0),
        "htonl" | "htonll" | "htons" | "ntohl" | "ntohll" | "ntohs" => version(1, 3, 0),
        "inet_ntoa" | "inet_ntoa6" | "inet_ntop" | "link_ntop" => version(1, 5, 0),
        "stddev" => version(1, 6, 0),
        "cpu" => version(1, 6, 3),
        "llquantize" => version(1, 7, 0),
        "tolower" | "toupper" => version(1, 8, 0),
        "print" => version(1, 9, 0),
        "getf" => version(1, 10, 0),
        "json" | "strtoll" => version(1, 11, 0),
        _ => version(1, 0, 0),
    }
}

thread_local! {
    /// The D version the program being checked is written for (the
    /// `version` option): identifiers that came later are not there.
    static VERSION: std::cell::Cell<u32> = const { std::cell::Cell::new(LATEST_VERSION) };
}

/// True if built-in `name` exists in the D version being checked.
pub(super) fn visible(name: &str) -> bool {
    introduced(name) <= VERSION.with(|v| v.get())
}

/// The D version checking runs with until it is dropped.
pub(super) struct VersionScope(u32);

impl VersionScope {
    pub(super) fn enter(v: u32) -> VersionScope {
        VersionScope(VERSION.with(|c| c.replace(v)))
    }
}

impl Drop for VersionScope {
    fn drop(&mut self) {
        VERSION.with(|c| c.set(self.0));
    }
}

impl FuncDef {
    /// The row's parsed prototype (every row's parses: see the tests).
    pub fn prototype(&self) -> Proto {
        Proto::parse(self.proto).unwrap_or(Proto {
            params: Vec::new(),
            varargs: Some(0),
            optional: None,
        })
    }
}

impl Checker<'_> {
    /// DTrace's error when `f` is given `got` arguments its prototype
    /// does not take.
    pub(super) fn check_arity(
        &self,
        f: &FuncDef,
        got: usize,
        line: u32,
    ) -> Result<(), CompileError> {
        match f.prototype().mismatch(got) {
            Some(want) => Err(self.proto_len(f.name, got, &want, line)),
            None => Ok(()),
        }
    }

    /// Checks argument `i` (from 0) of a call of `f` against the type its
    /// prototype gives it, as DTrace's argument compatibility rules say.
    pub(super) fn check_arg(
        &mut self,
        f: &FuncDef,
        i: usize,
        arg: &CExpr,
        line: u32,
    ) -> Result<(), CompileError> {
        let Some(Param::Typed(name)) = f.prototype().params.get(i).copied() else {
            return Ok(());
        };
        let want = self.proto_type(f, i, name, line)?;
        let zero = matches!(arg.kind, CKind::Int(0));
        if want.accepts_arg(&arg.ty, zero) {
            return Ok(());
        }
        Err(self.arg_mismatch(f.name, i + 1, name, &arg.ty, line))
    }

    /// A subroutine's arguments, checked as expressions and against its
    /// prototype.
    pub(super) fn checked_args(
        &mut self,
        f: &FuncDef,
        args: &[Expr],
        line: u32,
    ) -> Result<Vec<CExpr>, CompileError> {
        let mut out = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            out.push(self.typed_arg(f, i, a, line)?);
        }
        Ok(out)
    }

    /// Argument `i` of `f`, checked as an expression and against its
    /// parameter. An action passed as an argument is a `void` value, and
    /// refused as such where the parameter is typed (`exit(exit(0))`).
    pub(super) fn typed_arg(
        &mut self,
        f: &FuncDef,
        i: usize,
        a: &Expr,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        if let (ExprKind::Call(name, _), Some(Param::Typed(want))) =
            (&a.kind, f.prototype().params.get(i).copied())
        {
            if lookup(name).is_some_and(|g| g.role == Action) {
                return Err(self.arg_mismatch(f.name, i + 1, want, &Type::Void, line));
            }
        }
        let c = self.expr(a)?;
        let want = match f.prototype().params.get(i).copied() {
            Some(Param::Typed(w)) => Some(w),
            _ => None,
        };
        // A string is a char array: where `void *` is asked, its address
        // (what is read from, as DTrace passes it) -- but not where the
        // function writes, which must be scratch memory.
        if c.ty.is_string() && want.is_some_and(|w| w.trim() == "void *") {
            let written = matches!((f.name, i), ("bcopy", 1) | ("copyinto", 2));
            if written {
                return Err(self.arg_mismatch(f.name, i + 1, "void *", &c.ty, line));
            }
            return Ok(CExpr {
                kind: CKind::StrAddr(Box::new(c)),
                ty: Type::ptr(Type::Int(types::CHAR)),
                line,
            });
        }
        self.check_arg(f, i, &c, line)?;
        Ok(c)
    }

    /// The type a prototype names: C's base types and D's typedefs, the
    /// program's and the kernel's (`vmlinux`dev_t`), `struct X`, with
    /// `const` and pointers.
    fn proto_type(
        &mut self,
        f: &FuncDef,
        i: usize,
        name: &str,
        line: u32,
    ) -> Result<Type, CompileError> {
        let mut base = name.trim();
        let mut stars = 0;
        while let Some(b) = base.strip_suffix('*') {
            base = b.trim_end();
            stars += 1;
        }
        let base = base.strip_prefix("const ").unwrap_or(base).trim();
        let (module, bare) = match base.split_once('`') {
            Some((m, b)) => (Some(m), b),
            None => (None, base),
        };
        let found = if let Some(tag) = bare.strip_prefix("struct ") {
            self.syms.types.tagged(TagKind::Struct, tag.trim(), module)
        } else if let Some(t) = module
            .is_none()
            .then(|| types::resolve_base(bare))
            .flatten()
        {
            Some(t)
        } else {
            self.syms.types.typedef(bare, module)
        };
        let Some(mut t) = found else {
            return Err(err(
                Tag::D_UNKNOWN,
                line,
                format!(
                    "failed to resolve type of {} arg#{} ({}): Unknown type name",
                    f.name,
                    i + 1,
                    name
                ),
            ));
        };
        for _ in 0..stars {
            t = Type::ptr(t);
        }
        Ok(t)
    }

    /// DTrace's error for a function named where its kind cannot be.
    pub(super) fn misplaced(&self, f: &FuncDef, line: u32) -> CompileError {
        match (f.lowering, f.role) {
            (NotYet, Aggregating) => err(
                Tag::D_NOTSUP,
                line,
                format!("aggregating function {}( ) is not yet supported", f.name),
            ),
            (NotYet, _) => err(
                Tag::D_NOTSUP,
                line,
                format!("{}( ) is not yet supported", f.name),
            ),
            (Unsupported(why), _) => err(
                Tag::D_NOTSUP,
                line,
                format!("{}( ) is not supported on Linux: {}", f.name, why),
            ),
            (_, Action) => err(
                Tag::D_ACT_SPEC,
                line,
                format!("{}( ) may not be used in an expression", f.name),
            ),
            (_, Aggregating) => err(
                Tag::D_AGG_FUNC,
                line,
                format!(
                    "{}( ) may only be used as the value of an aggregation",
                    f.name
                ),
            ),
            (_, Subroutine) => err(
                Tag::D_FUNC_IDENT,
                line,
                format!("{}( ) cannot be used here", f.name),
            ),
        }
    }

    /// DTrace's error for an argument of the wrong type.
    pub(super) fn arg_mismatch(
        &self,
        func: &str,
        n: usize,
        proto: &str,
        got: &Type,
        line: u32,
    ) -> CompileError {
        err(
            Tag::D_PROTO_ARG,
            line,
            format!(
                "{}( ) argument #{} is incompatible with prototype:\n\tprototype: {}\n\t argument: {}",
                func, n, proto, got
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_one_row() {
        let mut names: Vec<&str> = FUNCS.iter().map(|f| f.name).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "a function has two rows");
        for f in FUNCS {
            assert!(Proto::parse(f.proto).is_some(), "{}: {}", f.name, f.proto);
        }
    }

    #[test]
    fn prototypes_give_counts_as_dtrace_words_them() {
        let p = Proto::parse("string(uintptr_t, [size_t])").unwrap();
        assert_eq!(
            p.params,
            [Param::Typed("uintptr_t"), Param::Typed("size_t")]
        );
        assert_eq!(p.mismatch(0).as_deref(), Some("at least 1"));
        assert_eq!(p.mismatch(1), None);
        assert_eq!(p.mismatch(2), None);
        assert_eq!(p.mismatch(3).as_deref(), Some("at most 2"));
        let p = Proto::parse("void(@, int32_t, int32_t, ...)").unwrap();
        assert_eq!(p.varargs, Some(3));
        assert_eq!(p.mismatch(2).as_deref(), Some("at least 3"));
        assert_eq!(p.mismatch(9), None);
        let p = Proto::parse("void()").unwrap();
        assert!(p.params.is_empty());
        assert_eq!(p.mismatch(1).as_deref(), Some("0"));
        assert_eq!(
            Proto::parse("void(int)").unwrap().mismatch(2).as_deref(),
            Some("1")
        );
        // Malformed: a required argument after an optional one, anything
        // after "...", an empty parameter, no parentheses.
        for bad in ["void([int], int)", "void(..., int)", "void(int,)", "void"] {
            assert!(Proto::parse(bad).is_none(), "{}", bad);
        }
    }
}
