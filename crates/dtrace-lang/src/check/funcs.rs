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

/// The checking functions, as plain functions for the table.
macro_rules! lowerings {
    ($($f:ident -> $t:ty),* $(,)?) => {
        $(fn $f(c: &mut Checker<'_>, args: &[Expr], line: u32) -> Result<$t, CompileError> {
            c.$f(args, line)
        })*
    };
}

lowerings! {
    act_trace -> CStmt,
    act_printf -> CStmt,
    act_exit -> CStmt,
    act_printa -> CStmt,
    act_clear -> CStmt,
    act_trunc -> CStmt,
    act_system -> CStmt,
    act_freopen -> CStmt,
    act_raise -> CStmt,
    act_stop -> CStmt,
    act_chill -> CStmt,
    act_copyout -> CStmt,
    act_copyoutstr -> CStmt,
    act_ftruncate -> CStmt,
    act_panic -> CStmt,
    act_breakpoint -> CStmt,
    act_normalize -> CStmt,
    act_denormalize -> CStmt,
    act_setopt -> CStmt,
    act_print -> CStmt,
    act_speculate -> CStmt,
    act_commit -> CStmt,
    act_discard -> CStmt,
    act_tracemem -> CStmt,
    subr_stringof -> CExpr,
}

/// The subroutines' lowerings, given checked arguments.
macro_rules! subroutines {
    ($($f:ident),* $(,)?) => {
        $(fn $f(c: &mut Checker<'_>, args: Vec<CExpr>, line: u32) -> Result<CExpr, CompileError> {
            c.$f(args, line)
        })*
    };
}

subroutines! {
    subr_speculation,
    subr_stack,
    subr_sym,
    subr_mod,
    subr_ustack,
    subr_jstack,
    subr_usym,
    subr_umod,
    subr_uaddr,
    subr_copyinstr,
    subr_strlen,
    subr_d_path,
    subr_swap16,
    subr_swap32,
    subr_swap64,
    subr_inet_ntoa,
    subr_inet_ntoa6,
    subr_inet_ntop,
    subr_strjoin,
    subr_lltostr,
    subr_substr,
    subr_basename,
    subr_dirname,
    subr_toupper,
    subr_tolower,
    subr_strchr,
    subr_strrchr,
    subr_strstr,
    subr_index,
    subr_rindex,
    subr_rand,
    subr_getmajor,
    subr_getminor,
    subr_progenyof,
    subr_strtoll,
    subr_alloca,
    subr_copyin,
    subr_copyinto,
    subr_bcopy,
    subr_cleanpath,
    subr_json,
    subr_link_ntop,
    subr_strtok,
    subr_mutex_owned,
    subr_mutex_owner,
    subr_mutex_type_adaptive,
    subr_mutex_type_spin,
    subr_rw_read_held,
    subr_rw_write_held,
    subr_rw_iswriter,
}

pub(super) const FUNCS: &[FuncDef] = &[
    row("trace", Action, "void(@)", Act(act_trace)),
    row("printf", Action, "void(string, ...)", Act(act_printf)),
    row("exit", Action, "void(int)", Act(act_exit)),
    row("printa", Action, "void(@, ...)", Act(act_printa)),
    row("clear", Action, "void(@)", Act(act_clear)),
    row("trunc", Action, "void(@, [int64_t])", Act(act_trunc)),
    row(
        "copyinstr",
        Subroutine,
        "string(uintptr_t, [size_t])",
        Subr(subr_copyinstr),
    ),
    row("stringof", Subroutine, "string(@)", Operator(subr_stringof)),
    row(
        "strlen",
        Subroutine,
        "size_t(const char *)",
        Subr(subr_strlen),
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
    row("speculation", Subroutine, "int()", Subr(subr_speculation)),
    row("speculate", Action, "void(int)", Act(act_speculate)),
    row("commit", Action, "void(int)", Act(act_commit)),
    row("discard", Action, "void(int)", Act(act_discard)),
    row("stack", Action, "stack([uint32_t])", Subr(subr_stack)),
    row(
        "ustack",
        Action,
        "stack([uint32_t], [uint32_t])",
        Subr(subr_ustack),
    ),
    row(
        "jstack",
        Action,
        "stack([uint32_t], [uint32_t])",
        Subr(subr_jstack),
    ),
    row("ufunc", Subroutine, "_usymaddr(uintptr_t)", Subr(subr_usym)),
    row("usym", Subroutine, "_usymaddr(uintptr_t)", Subr(subr_usym)),
    row("umod", Subroutine, "_usymaddr(uintptr_t)", Subr(subr_umod)),
    row(
        "uaddr",
        Subroutine,
        "_usymaddr(uintptr_t)",
        Subr(subr_uaddr),
    ),
    row("func", Subroutine, "_symaddr(uintptr_t)", Subr(subr_sym)),
    row("sym", Subroutine, "_symaddr(uintptr_t)", Subr(subr_sym)),
    row("mod", Subroutine, "_symaddr(uintptr_t)", Subr(subr_mod)),
    row(
        "tracemem",
        Action,
        "void(@, size_t, [size_t])",
        Act(act_tracemem),
    ),
    row("printm", Action, "void(size_t, uintptr_t)", NotYet),
    row("raise", Action, "void(int)", Act(act_raise)),
    row("stop", Action, "void()", Act(act_stop)),
    row("system", Action, "void(@, ...)", Act(act_system)),
    row("breakpoint", Action, "void()", Act(act_breakpoint)),
    row("panic", Action, "void()", Act(act_panic)),
    row("chill", Action, "void(int)", Act(act_chill)),
    row(
        "copyin",
        Subroutine,
        "void *(uintptr_t, size_t)",
        Subr(subr_copyin),
    ),
    row(
        "copyinto",
        Subroutine,
        "void(uintptr_t, size_t, void *)",
        Subr(subr_copyinto),
    ),
    row(
        "copyout",
        Action,
        "void(void *, uintptr_t, size_t)",
        Act(act_copyout),
    ),
    row(
        "copyoutstr",
        Action,
        "void(char *, uintptr_t, size_t)",
        Act(act_copyoutstr),
    ),
    row("alloca", Subroutine, "void *(size_t)", Subr(subr_alloca)),
    row(
        "bcopy",
        Subroutine,
        "void(void *, void *, size_t)",
        Subr(subr_bcopy),
    ),
    row(
        "basename",
        Subroutine,
        "string(const char *)",
        Subr(subr_basename),
    ),
    row(
        "dirname",
        Subroutine,
        "string(const char *)",
        Subr(subr_dirname),
    ),
    row(
        "strjoin",
        Subroutine,
        "string(const char *, const char *)",
        Subr(subr_strjoin),
    ),
    row(
        "substr",
        Subroutine,
        "string(const char *, int, [int])",
        Subr(subr_substr),
    ),
    row(
        "index",
        Subroutine,
        "int(const char *, const char *, [int])",
        Subr(subr_index),
    ),
    row(
        "rindex",
        Subroutine,
        "int(const char *, const char *, [int])",
        Subr(subr_rindex),
    ),
    row(
        "strchr",
        Subroutine,
        "string(const char *, char)",
        Subr(subr_strchr),
    ),
    row(
        "strrchr",
        Subroutine,
        "string(const char *, char)",
        Subr(subr_strrchr),
    ),
    row(
        "strstr",
        Subroutine,
        "string(const char *, const char *)",
        Subr(subr_strstr),
    ),
    row(
        "strtok",
        Subroutine,
        "string(const char *, const char *)",
        Subr(subr_strtok),
    ),
    row("lltostr", Subroutine, "string(int64_t)", Subr(subr_lltostr)),
    row(
        "toupper",
        Subroutine,
        "string(const char *)",
        Subr(subr_toupper),
    ),
    row(
        "tolower",
        Subroutine,
        "string(const char *)",
        Subr(subr_tolower),
    ),
    // Network order is big-endian; this host's (x86-64) is not: each
    // converts by swapping bytes.
    row("htons", Subroutine, "uint16_t(uint16_t)", Subr(subr_swap16)),
    row("htonl", Subroutine, "uint32_t(uint32_t)", Subr(subr_swap32)),
    row(
        "htonll",
        Subroutine,
        "uint64_t(uint64_t)",
        Subr(subr_swap64),
    ),
    row("ntohs", Subroutine, "uint16_t(uint16_t)", Subr(subr_swap16)),
    row("ntohl", Subroutine, "uint32_t(uint32_t)", Subr(subr_swap32)),
    row(
        "ntohll",
        Subroutine,
        "uint64_t(uint64_t)",
        Subr(subr_swap64),
    ),
    row(
        "inet_ntoa",
        Subroutine,
        "string(ipaddr_t *)",
        Subr(subr_inet_ntoa),
    ),
    row(
        "inet_ntoa6",
        Subroutine,
        "string(struct in6_addr *, [int])",
        Subr(subr_inet_ntoa6),
    ),
    row(
        "inet_ntop",
        Subroutine,
        "string(int, void *)",
        Subr(subr_inet_ntop),
    ),
    row("rand", Subroutine, "int()", Subr(subr_rand)),
    row("progenyof", Subroutine, "int(pid_t)", Subr(subr_progenyof)),
    row(
        "getmajor",
        Subroutine,
        "vmlinux`dev_t(vmlinux`dev_t)",
        Subr(subr_getmajor),
    ),
    row(
        "getminor",
        Subroutine,
        "vmlinux`dev_t(vmlinux`dev_t)",
        Subr(subr_getminor),
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
        Subr(subr_mutex_owned),
    ),
    row(
        "mutex_owner",
        Subroutine,
        "vmlinux`struct task_struct *(vmlinux`struct mutex *)",
        Subr(subr_mutex_owner),
    ),
    row(
        "mutex_type_adaptive",
        Subroutine,
        "int(vmlinux`struct mutex *)",
        Subr(subr_mutex_type_adaptive),
    ),
    row(
        "mutex_type_spin",
        Subroutine,
        "int(vmlinux`struct mutex *)",
        Subr(subr_mutex_type_spin),
    ),
    row(
        "rw_read_held",
        Subroutine,
        "int(vmlinux`rwlock_t *)",
        Subr(subr_rw_read_held),
    ),
    row(
        "rw_write_held",
        Subroutine,
        "int(vmlinux`rwlock_t *)",
        Subr(subr_rw_write_held),
    ),
    row(
        "rw_iswriter",
        Subroutine,
        "int(vmlinux`rwlock_t *)",
        Subr(subr_rw_iswriter),
    ),
    row(
        "cleanpath",
        Subroutine,
        "string(const char *)",
        Subr(subr_cleanpath),
    ),
    row(
        "json",
        Subroutine,
        "string(const char *, const char *)",
        Subr(subr_json),
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
        Act(act_setopt),
    ),
    row("normalize", Action, "void(@, uint64_t)", Act(act_normalize)),
    row("denormalize", Action, "void(@)", Act(act_denormalize)),
    row("ftruncate", Action, "void()", Act(act_ftruncate)),
    row("freopen", Action, "void(@, ...)", Act(act_freopen)),
    row("print", Action, "void(@)", Act(act_print)),
    row(
        "d_path",
        Subroutine,
        "string(struct path *)",
        Subr(subr_d_path),
    ),
    row(
        "link_ntop",
        Subroutine,
        "string(int, void *)",
        Subr(subr_link_ntop),
    ),
    row(
        "strtoll",
        Subroutine,
        "int64_t(const char *, [int])",
        Subr(subr_strtoll),
    ),
];

pub(super) fn lookup(name: &str) -> Option<&'static FuncDef> {
    FUNCS.iter().find(|f| f.name == name)
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
