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
pub(super) type SubrFn = fn(&mut Checker<'_>, &[Expr], u32) -> Result<CExpr, CompileError>;

/// How a function is checked and lowered.
#[derive(Clone, Copy)]
pub(super) enum Lowering {
    Act(ActionFn),
    Subr(SubrFn),
    /// Made by `Checker::aggregation`, which builds its `AggFunc`.
    Agg,
    /// Known to D, not yet supported here.
    NotYet,
}

pub(super) struct FuncDef {
    pub name: &'static str,
    pub role: Role,
    /// Argument counts the prototype accepts.
    pub min: usize,
    pub max: usize,
    /// The count as DTrace's prototype-mismatch message words it.
    pub want: &'static str,
    pub lowering: Lowering,
}

const fn row(
    name: &'static str,
    role: Role,
    min: usize,
    max: usize,
    want: &'static str,
    lowering: Lowering,
) -> FuncDef {
    FuncDef {
        name,
        role,
        min,
        max,
        want,
        lowering,
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
    subr_copyinstr -> CExpr,
    subr_stringof -> CExpr,
    subr_strlen -> CExpr,
}

pub(super) const FUNCS: &[FuncDef] = &[
    row("trace", Action, 1, 1, "1", Act(act_trace)),
    row(
        "printf",
        Action,
        1,
        usize::MAX,
        "at least 1",
        Act(act_printf),
    ),
    row("exit", Action, 1, 1, "1", Act(act_exit)),
    row(
        "printa",
        Action,
        1,
        usize::MAX,
        "at least 1",
        Act(act_printa),
    ),
    row("clear", Action, 1, 1, "1", Act(act_clear)),
    row("trunc", Action, 1, 2, "1 or 2", Act(act_trunc)),
    row(
        "copyinstr",
        Subroutine,
        1,
        2,
        "1 or 2",
        Subr(subr_copyinstr),
    ),
    row("stringof", Subroutine, 1, 1, "1", Subr(subr_stringof)),
    row("strlen", Subroutine, 1, 1, "1", Subr(subr_strlen)),
    row("count", Aggregating, 0, 0, "0", Agg),
    row("sum", Aggregating, 1, 1, "1", Agg),
    row("min", Aggregating, 1, 1, "1", Agg),
    row("max", Aggregating, 1, 1, "1", Agg),
    row("avg", Aggregating, 1, 1, "1", Agg),
    row("quantize", Aggregating, 1, 2, "1 or 2", Agg),
    row("lquantize", Aggregating, 3, 5, "3 to 5", Agg),
    row("stddev", Aggregating, 0, usize::MAX, "", NotYet),
    row("llquantize", Aggregating, 0, usize::MAX, "", NotYet),
    row("speculation", Subroutine, 0, usize::MAX, "", NotYet),
    row("speculate", Action, 0, usize::MAX, "", NotYet),
    row("commit", Action, 0, usize::MAX, "", NotYet),
    row("discard", Action, 0, usize::MAX, "", NotYet),
    row("stack", Action, 0, usize::MAX, "", NotYet),
    row("ustack", Action, 0, usize::MAX, "", NotYet),
    row("jstack", Action, 0, usize::MAX, "", NotYet),
    row("ufunc", Subroutine, 0, usize::MAX, "", NotYet),
    row("usym", Subroutine, 0, usize::MAX, "", NotYet),
    row("umod", Subroutine, 0, usize::MAX, "", NotYet),
    row("uaddr", Subroutine, 0, usize::MAX, "", NotYet),
    row("func", Subroutine, 0, usize::MAX, "", NotYet),
    row("sym", Subroutine, 0, usize::MAX, "", NotYet),
    row("mod", Subroutine, 0, usize::MAX, "", NotYet),
    row("tracemem", Action, 0, usize::MAX, "", NotYet),
    row("printm", Action, 0, usize::MAX, "", NotYet),
    row("raise", Action, 0, usize::MAX, "", NotYet),
    row("stop", Action, 0, usize::MAX, "", NotYet),
    row("system", Action, 0, usize::MAX, "", NotYet),
    row("breakpoint", Action, 0, usize::MAX, "", NotYet),
    row("panic", Action, 0, usize::MAX, "", NotYet),
    row("chill", Action, 0, usize::MAX, "", NotYet),
    row("copyin", Subroutine, 0, usize::MAX, "", NotYet),
    row("copyinto", Subroutine, 0, usize::MAX, "", NotYet),
    row("copyout", Action, 0, usize::MAX, "", NotYet),
    row("copyoutstr", Action, 0, usize::MAX, "", NotYet),
    row("alloca", Subroutine, 0, usize::MAX, "", NotYet),
    row("bcopy", Subroutine, 0, usize::MAX, "", NotYet),
    row("basename", Subroutine, 0, usize::MAX, "", NotYet),
    row("dirname", Subroutine, 0, usize::MAX, "", NotYet),
    row("strjoin", Subroutine, 0, usize::MAX, "", NotYet),
    row("substr", Subroutine, 0, usize::MAX, "", NotYet),
    row("index", Subroutine, 0, usize::MAX, "", NotYet),
    row("rindex", Subroutine, 0, usize::MAX, "", NotYet),
    row("strchr", Subroutine, 0, usize::MAX, "", NotYet),
    row("strrchr", Subroutine, 0, usize::MAX, "", NotYet),
    row("strstr", Subroutine, 0, usize::MAX, "", NotYet),
    row("strtok", Subroutine, 0, usize::MAX, "", NotYet),
    row("lltostr", Subroutine, 0, usize::MAX, "", NotYet),
    row("toupper", Subroutine, 0, usize::MAX, "", NotYet),
    row("tolower", Subroutine, 0, usize::MAX, "", NotYet),
    row("htons", Subroutine, 0, usize::MAX, "", NotYet),
    row("htonl", Subroutine, 0, usize::MAX, "", NotYet),
    row("htonll", Subroutine, 0, usize::MAX, "", NotYet),
    row("ntohs", Subroutine, 0, usize::MAX, "", NotYet),
    row("ntohl", Subroutine, 0, usize::MAX, "", NotYet),
    row("ntohll", Subroutine, 0, usize::MAX, "", NotYet),
    row("inet_ntoa", Subroutine, 0, usize::MAX, "", NotYet),
    row("inet_ntoa6", Subroutine, 0, usize::MAX, "", NotYet),
    row("inet_ntop", Subroutine, 0, usize::MAX, "", NotYet),
    row("rand", Subroutine, 0, usize::MAX, "", NotYet),
    row("progenyof", Subroutine, 0, usize::MAX, "", NotYet),
    row("getmajor", Subroutine, 0, usize::MAX, "", NotYet),
    row("getminor", Subroutine, 0, usize::MAX, "", NotYet),
    row("ddi_pathname", Subroutine, 0, usize::MAX, "", NotYet),
    row("mutex_owned", Subroutine, 0, usize::MAX, "", NotYet),
    row("mutex_owner", Subroutine, 0, usize::MAX, "", NotYet),
    row("mutex_type_adaptive", Subroutine, 0, usize::MAX, "", NotYet),
    row("mutex_type_spin", Subroutine, 0, usize::MAX, "", NotYet),
    row("rw_read_held", Subroutine, 0, usize::MAX, "", NotYet),
    row("rw_write_held", Subroutine, 0, usize::MAX, "", NotYet),
    row("rw_iswriter", Subroutine, 0, usize::MAX, "", NotYet),
    row("cleanpath", Subroutine, 0, usize::MAX, "", NotYet),
    row("msgsize", Subroutine, 0, usize::MAX, "", NotYet),
    row("msgdsize", Subroutine, 0, usize::MAX, "", NotYet),
    row("setopt", Action, 0, usize::MAX, "", NotYet),
    row("normalize", Action, 0, usize::MAX, "", NotYet),
    row("denormalize", Action, 0, usize::MAX, "", NotYet),
    row("ftruncate", Action, 0, usize::MAX, "", NotYet),
    row("freopen", Action, 0, usize::MAX, "", NotYet),
    row("print", Action, 0, usize::MAX, "", NotYet),
    row("d_path", Subroutine, 0, usize::MAX, "", NotYet),
    row("link_ntop", Subroutine, 0, usize::MAX, "", NotYet),
    row("strtoll", Subroutine, 0, usize::MAX, "", NotYet),
];

pub(super) fn lookup(name: &str) -> Option<&'static FuncDef> {
    FUNCS.iter().find(|f| f.name == name)
}

impl Checker<'_> {
    /// DTrace's error when `f` is given `got` arguments it does not take.
    pub(super) fn check_arity(
        &self,
        f: &FuncDef,
        got: usize,
        line: u32,
    ) -> Result<(), CompileError> {
        if got < f.min || got > f.max {
            return Err(self.proto_len(f.name, got, f.want, line));
        }
        Ok(())
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
            assert!(f.min <= f.max, "{}", f.name);
        }
    }
}
