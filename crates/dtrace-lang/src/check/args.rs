//! `args[]`: typed probe arguments. As in DTrace, a clause is checked in
//! the context of the probes its descriptions match: `args[N]` has the
//! type the provider declares for argument N (`const char *`, `int`,
//! `umode_t`), its value is the probe's 64-bit argument converted to that
//! type, and an index past the probe's arguments is an error. What the
//! probes declare comes from a `ProbeContext`, asked once per clause when
//! `args[]` is first used; without one (`NoProbes`) nothing is known and
//! `args[0]`..`args[9]` are `int64_t`, like `arg0`..`arg9`.

use std::sync::Arc;

use super::{err, int_ty, Checker};
use crate::ast::{Expr, ExprKind};
use crate::error::{CompileError, Tag};
use crate::ir::{CExpr, CKind};
use crate::parse::{parse_type_name, ParseOptions};
use crate::pdesc::ProbeDesc;
use crate::types::{self, Type};

/// One argument as a provider declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeArg {
    /// Its C type as the provider spells it (`const char *`, `umode_t`).
    pub native: String,
    /// The value is an address in the traced process (a system call's
    /// pointer arguments): `stringof(args[N])` reads it with
    /// `copyinstr`, as the kernel's own string reads cannot.
    pub user: bool,
    /// The type `args[N]` has through a translator of the D library
    /// (`psinfo_t *` for a `struct task_struct *`), if the provider
    /// translates it.
    pub xlate: Option<String>,
    /// An inline of the D library with one parameter that computes the
    /// argument from the probe's raw value (proc:::exit's reason from the
    /// exiting task): `args[N]` and `argN` are its value, of its type.
    pub via: Option<String>,
}

impl ProbeArg {
    pub fn new(native: impl Into<String>, user: bool) -> ProbeArg {
        ProbeArg {
            native: native.into(),
            user,
            xlate: None,
            via: None,
        }
    }

    /// An argument `args[]` sees through a translator to `xlate`.
    pub fn translated(native: impl Into<String>, xlate: impl Into<String>) -> ProbeArg {
        ProbeArg {
            native: native.into(),
            user: false,
            xlate: Some(xlate.into()),
            via: None,
        }
    }

    /// An argument computed by the D library's inline `via` from the
    /// probe's raw value.
    pub fn computed(native: impl Into<String>, via: impl Into<String>) -> ProbeArg {
        ProbeArg {
            native: native.into(),
            user: false,
            xlate: None,
            via: Some(via.into()),
        }
    }
}

/// One argument as a clause sees it.
#[derive(Clone, Debug)]
pub(super) struct ArgInfo {
    pub ty: Type,
    /// An address in the traced process.
    pub user: bool,
    /// The inline that computes it from the raw value, if any.
    pub via: Option<String>,
}

/// What the probes one description matches say of their arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgTypes {
    /// Nothing is known (no probe table, or a provider that cannot tell):
    /// `args[0]`..`args[9]` are `int64_t`.
    Unknown,
    /// No probe matched, or the probes matched declare different
    /// arguments: `args[]` may not be used (DTrace's "unstable set of
    /// probes").
    Unstable,
    /// Every probe matched declares these arguments.
    Known(Vec<ProbeArg>),
}

/// The checker's window on the probe table: what the probes matching a
/// description declare.
pub trait ProbeContext {
    fn arg_types(&mut self, desc: &ProbeDesc) -> ArgTypes;

    /// The stability attributes of the description, its arguments and
    /// its provider's parts (see `attr::DescAttr`); without a probe
    /// table nothing is known, which DTrace calls Unstable.
    fn desc_attributes(&mut self, _desc: &ProbeDesc) -> crate::attr::DescAttr {
        crate::attr::DescAttr::UNSTABLE
    }
}

/// No probe information: every description's arguments are `Unknown`.
pub struct NoProbes;

impl ProbeContext for NoProbes {
    fn arg_types(&mut self, _: &ProbeDesc) -> ArgTypes {
        ArgTypes::Unknown
    }
}

/// What `args[]` means where the checker is.
#[derive(Clone, Debug, Default)]
pub(super) enum ClauseArgs {
    /// Outside any clause (an `inline`'s value): `args[]` is refused.
    #[default]
    Outside,
    /// In a clause whose descriptions have not been asked about yet.
    Pending(Vec<ProbeDesc>),
    /// The descriptions' arguments are unknown: `int64_t`, up to 10.
    Unknown(String),
    /// `args[]` may not be used; the description that says so.
    Unstable(String),
    /// Typed arguments for each description.
    Known(Vec<(String, Vec<ArgInfo>)>),
}

/// How many `args[]` there are when nothing is known (as `arg0`..`arg9`).
const UNKNOWN_ARGS: i64 = 10;

impl Checker<'_> {
    /// Enters a clause matching `descs`: `args[]` refers to their probes.
    pub(super) fn enter_clause_args(&mut self, descs: Vec<ProbeDesc>) {
        self.clause_args = ClauseArgs::Pending(descs);
    }

    pub(super) fn leave_clause_args(&mut self) {
        self.clause_args = ClauseArgs::Outside;
    }

    /// Asks the probe context about the clause's descriptions (once).
    fn resolve_clause_args(&mut self) {
        let ClauseArgs::Pending(descs) = &self.clause_args else {
            return;
        };
        let descs = descs.clone();
        let first = descs.first().map(|d| d.to_string()).unwrap_or_default();
        let mut known = Vec::new();
        let mut unknown = false;
        for d in &descs {
            match self.probes.arg_types(d) {
                ArgTypes::Unstable => {
                    self.clause_args = ClauseArgs::Unstable(d.to_string());
                    return;
                }
                ArgTypes::Unknown => unknown = true,
                ArgTypes::Known(a) => {
                    let typed = a
                        .iter()
                        .map(|a| {
                            let native = self.native_arg_type(&a.native);
                            let ty = a
                                .xlate
                                .as_deref()
                                .and_then(|x| self.translated_arg_type(&native, x))
                                .unwrap_or(native);
                            ArgInfo {
                                ty,
                                user: a.user,
                                via: a.via.clone(),
                            }
                        })
                        .collect();
                    known.push((d.to_string(), typed));
                }
            }
        }
        self.clause_args = if unknown {
            ClauseArgs::Unknown(first)
        } else {
            ClauseArgs::Known(known)
        };
    }

    /// `args[N]`'s type through a translator to the type named `xlate`
    /// from a value of type `native`, if the D library or the program has
    /// one; an integer's translation to another integer type is that type.
    fn translated_arg_type(&mut self, native: &Type, xlate: &str) -> Option<Type> {
        let opts = ParseOptions {
            pspec: false,
            type_names: Some(Arc::new(|_: &str| true)),
            ..Default::default()
        };
        let want = parse_type_name(xlate, &opts)
            .ok()
            .and_then(|t| self.type_name(&t, 0).ok())?;
        // An integer translated to another needs no translator: it is
        // converted (a USDT definition's `: (long size)` of an `int`).
        if native.is_int() && want.is_int() {
            return Some(want);
        }
        self.translation_type(&want, native)
    }

    /// The D type of a provider's C type name. The name is resolved as a
    /// cast's would be (D's types, the program's and the kernel's
    /// typedefs; an unknown `struct foo` is declared forward); what cannot
    /// be resolved, or is no scalar, string or char array, is `void *` if
    /// spelt as a pointer and `int64_t` otherwise.
    fn native_arg_type(&mut self, native: &str) -> Type {
        let opts = ParseOptions {
            pspec: false,
            type_names: Some(Arc::new(|_: &str| true)),
            ..Default::default()
        };
        let ty = parse_type_name(native, &opts)
            .ok()
            .and_then(|t| self.type_name(&t, 0).ok());
        match ty {
            Some(t) if t.is_scalar() || t.is_string() => t,
            // A char array (a tracepoint's `char comm[16]`): a string.
            Some(t) if t.is_strcompat() && t.is_by_ref() => t,
            _ if native.contains('*') => Type::ptr(Type::Void),
            _ => int_ty(types::INT64),
        }
    }

    /// `args[idx]`, checked as DTrace's `dt_idcook_args` does.
    pub(super) fn args_index(&mut self, idx: &[Expr], line: u32) -> Result<CExpr, CompileError> {
        let n = self.args_number(idx, line)?;
        self.use_attr(self.args_attr(), || "associative array args".into(), line)?;
        let ArgInfo { ty, via, user } = self.args_type(n, line)?;
        let raw = CExpr {
            kind: CKind::Arg(n as u8),
            ty: int_ty(types::INT64),
            line,
        };
        if let Some(f) = via {
            return self.computed_arg(&f, raw, line);
        }
        // A translated argument: its members are translated from the
        // native value when read.
        if matches!(ty, Type::Translated { .. }) {
            return Ok(CExpr { ty, ..raw });
        }
        // A string in the traced process (a USDT probe's `string`
        // argument) is read from there.
        if ty.is_string() && user {
            return Ok(CExpr {
                kind: CKind::Copyinstr(Box::new(raw), None),
                ty: Type::String,
                line,
            });
        }
        // A string, or a char array (a tracepoint's `char comm[16]`), is
        // given by its address: its value is the string there.
        if ty.is_string() || (ty.is_strcompat() && ty.is_by_ref()) {
            return Ok(CExpr {
                kind: CKind::KernelString(Box::new(raw)),
                ty: Type::String,
                line,
            });
        }
        // The probe's 64-bit value narrowed (or sign-extended) to the
        // argument's integer type; pointers and 64-bit integers as they are.
        Ok(match ty.as_int() {
            Some(it) if it.size < 8 => CExpr {
                kind: CKind::Cast(Box::new(raw)),
                ty,
                line,
            },
            _ => CExpr { ty, ..raw },
        })
    }

    /// An argument the D library's one-parameter inline `f` computes from
    /// the probe's raw value `raw`.
    pub(super) fn computed_arg(
        &mut self,
        f: &str,
        raw: CExpr,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let Some(inl) = self
            .syms
            .inline_fns
            .iter()
            .find(|x| x.name == f && x.params.len() == 1)
            .cloned()
        else {
            return Err(err(
                Tag::D_IDENT_UNDEF,
                line,
                format!(
                    "failed to resolve {}: the probe's argument needs this inline of the D library",
                    f
                ),
            ));
        };
        let a = CExpr {
            kind: CKind::Cast(Box::new(raw)),
            ty: inl.params[0].0.clone(),
            line,
        };
        // (Counted as `args[]`.)
        self.attr_quietly(|c| c.expand_inline_fn(&inl, vec![a], line))
    }

    /// `stringof(args[N])` where argument N is an address in the traced
    /// process: read with `copyinstr`. None for anything else.
    pub(super) fn user_arg_string(
        &mut self,
        inner: &Expr,
        line: u32,
    ) -> Result<Option<CExpr>, CompileError> {
        let ExprKind::Index(base, idx) = &inner.kind else {
            return Ok(None);
        };
        if !matches!(&base.kind, ExprKind::Ident(n) if n == "args") {
            return Ok(None);
        }
        let n = self.args_number(idx, line)?;
        let user = self.args_type(n, line)?.user;
        if !user {
            return Ok(None);
        }
        let a = self.args_index(idx, line)?;
        Ok(Some(CExpr {
            kind: CKind::Copyinstr(Box::new(a), None),
            ty: Type::String,
            line,
        }))
    }

    /// The constant index of `args[...]`.
    fn args_number(&mut self, idx: &[Expr], line: u32) -> Result<i64, CompileError> {
        if idx.len() != 1 {
            return Err(err(
                Tag::D_PROTO_LEN,
                line,
                format!(
                    "args[ ] prototype mismatch: {} arg{}passed, 1 expected",
                    idx.len(),
                    if idx.len() == 1 { " " } else { "s " }
                ),
            ));
        }
        let i = self.expr(&idx[0])?;
        match i.kind {
            CKind::Int(n) if i.ty.is_int() => Ok(n),
            _ => Err(err(
                Tag::D_PROTO_ARG,
                line,
                format!(
                    "args[ ] argument #1 is incompatible with prototype:\n\tprototype: integer constant\n\t argument: {}",
                    i.ty
                ),
            )),
        }
    }

    /// The type of argument `n` of the clause's probes, and whether it is
    /// an address in the traced process.
    fn args_type(&mut self, n: i64, line: u32) -> Result<ArgInfo, CompileError> {
        self.resolve_clause_args();
        let out_of_range = |desc: &str| {
            err(
                Tag::D_ARGS_IDX,
                line,
                format!("index {} is out of range for {} args[ ]", n, desc),
            )
        };
        match &self.clause_args {
            ClauseArgs::Outside | ClauseArgs::Pending(_) => Err(err(
                Tag::D_ARGS_NONE,
                line,
                "args[ ] may not be referenced outside of a probe clause",
            )),
            ClauseArgs::Unstable(d) => Err(err(
                Tag::D_ARGS_MULTI,
                line,
                format!(
                    "args[ ] may not be referenced because probe description {} matches an unstable set of probes",
                    d
                ),
            )),
            ClauseArgs::Unknown(d) => {
                if !(0..UNKNOWN_ARGS).contains(&n) {
                    return Err(out_of_range(d));
                }
                Ok(ArgInfo {
                    ty: int_ty(types::INT64),
                    user: false,
                    via: None,
                })
            }
            ClauseArgs::Known(descs) => {
                // DTrace checks a clause once per description; this checker
                // checks it once, so args[n] must mean the same in each.
                let mut found: Option<(&str, &ArgInfo)> = None;
                for (d, args) in descs {
                    // At most ten arguments reach a clause, whatever is
                    // declared.
                    let a = usize::try_from(n)
                        .ok()
                        .filter(|_| n < UNKNOWN_ARGS)
                        .and_then(|i| args.get(i))
                        .ok_or_else(|| out_of_range(d))?;
                    match found {
                        None => found = Some((d, a)),
                        Some((d0, a0))
                            if !a0.ty.same_as(&a.ty) || a0.user != a.user || a0.via != a.via =>
                        {
                            return Err(err(
                                Tag::D_ARGS_MULTI,
                                line,
                                format!(
                                    "args[ ] may not be referenced because probe descriptions {} and {} give args[{}] different types ({} and {}): use a clause for each",
                                    d0, d, n, a0.ty, a.ty
                                ),
                            ));
                        }
                        Some(_) => {}
                    }
                }
                found
                    .map(|(_, a)| a.clone())
                    .ok_or_else(|| out_of_range(""))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ArgTypes, ProbeArg, ProbeContext};
    use crate::error::{CompileError, Tag};
    use crate::ir::{CExpr, CKind, CStmt};
    use crate::pdesc::ProbeDesc;
    use crate::types::Type;
    use crate::{compile_with, MacroEnv, Source, Symbols};

    /// A probe table in miniature: descriptions by their text.
    struct Fake {
        asked: Vec<String>,
    }

    impl ProbeContext for Fake {
        fn arg_types(&mut self, desc: &ProbeDesc) -> ArgTypes {
            let d = desc.to_string();
            self.asked.push(d.clone());
            let known = |v: &[(&str, bool)]| {
                ArgTypes::Known(v.iter().map(|(t, u)| ProbeArg::new(*t, *u)).collect())
            };
            match d.as_str() {
                "syscall::openat:entry" => known(&[
                    ("int", false),
                    ("const char *", true),
                    ("int", false),
                    ("umode_t", false),
                ]),
                "syscall::mkdirat:entry" => {
                    known(&[("int", false), ("char *", true), ("umode_t", false)])
                }
                "syscall::read:entry" => {
                    known(&[("unsigned int", false), ("char *", true), ("size_t", false)])
                }
                "syscall::openat:return" => known(&[("long", false), ("long", false)]),
                "syscall::stat:entry" => known(&[("const char *", true), ("struct stat *", true)]),
                "syscall::odd:entry" => known(&[
                    ("unsigned short", false),
                    ("foo_t *", false),
                    ("foo_t", false),
                    ("int [", false),
                ]),
                ":::BEGIN" => known(&[]),
                "syscall::open*:entry" => ArgTypes::Unstable,
                "proc:::exit" => ArgTypes::Known(vec![ProbeArg::computed("int", "reason")]),
                _ => ArgTypes::Unknown,
            }
        }
    }

    fn compile(src: &str) -> Result<(Vec<CExpr>, Vec<String>), CompileError> {
        let mut fake = Fake { asked: Vec::new() };
        let checked = compile_with(
            src,
            Source::File,
            &MacroEnv::default(),
            &mut Symbols::default(),
            &mut 0,
            &mut fake,
        )?;
        let traced = checked
            .clauses
            .iter()
            .flat_map(|c| c.stmts.iter())
            .filter_map(|s| match s {
                CStmt::Trace(e, _) => Some(e.clone()),
                _ => None,
            })
            .collect();
        Ok((traced, fake.asked))
    }

    fn traced(src: &str) -> Vec<CExpr> {
        compile(src).unwrap_or_else(|e| panic!("{}: {}", src, e)).0
    }

    fn error(src: &str) -> (Tag, String) {
        match compile(src) {
            Ok(_) => panic!("compiled: {}", src),
            Err(e) => (e.tag, e.msg),
        }
    }

    #[test]
    fn arguments_have_their_declared_types() {
        let t = traced(
            "syscall::openat:entry { trace(args[0]); trace(args[1]); trace(args[2]); trace(args[3]); trace(arg0); }",
        );
        // int: the raw 64-bit argument narrowed by a cast.
        assert_eq!(t[0].ty.to_string(), "int");
        match &t[0].kind {
            CKind::Cast(inner) => {
                assert_eq!(inner.kind, CKind::Arg(0));
                assert_eq!(inner.ty.to_string(), "int64_t");
            }
            other => panic!("not a cast: {:?}", other),
        }
        // Pointers as they are; const is kept in the name only.
        assert_eq!(t[1].ty.to_string(), "const char *");
        assert_eq!(t[1].kind, CKind::Arg(1));
        assert_eq!(t[2].ty.to_string(), "int");
        // A kernel typedef the type table does not know: int64_t.
        assert_eq!(t[3].ty.to_string(), "int64_t");
        assert_eq!(t[3].kind, CKind::Arg(3));
        // argN stay int64_t.
        assert_eq!(t[4].ty.to_string(), "int64_t");
        assert_eq!(t[4].kind, CKind::Arg(0));
    }

    #[test]
    fn computed_arguments_are_their_inline() {
        // args[0] is the inline's value for the raw argument; arg0 stays raw.
        let t = traced(
            "inline int reason[int64_t x] = x * 2; proc:::exit { trace(args[0]); trace(arg0); }",
        );
        assert_eq!(t[0].ty.to_string(), "int");
        assert_ne!(t[0].kind, CKind::Arg(0));
        assert_eq!(t[1].kind, CKind::Arg(0));
        // Without the inline, args[0] cannot be computed.
        let (tag, msg) = error("proc:::exit { trace(args[0]); }");
        assert_eq!(tag, Tag::D_IDENT_UNDEF);
        assert_eq!(
            msg,
            "failed to resolve reason: the probe's argument needs this inline of the D library"
        );
    }

    #[test]
    fn unresolvable_types_fall_back() {
        let t = traced(
            "syscall::odd:entry { trace(args[0]); trace(args[1]); trace(args[2]); trace(args[3]); }\n\
             syscall::stat:entry { trace(args[1]); }",
        );
        assert_eq!(t[0].ty.to_string(), "unsigned short");
        assert!(matches!(t[0].kind, CKind::Cast(_)));
        assert_eq!(t[1].ty.to_string(), "void *");
        assert_eq!(t[2].ty.to_string(), "int64_t");
        assert_eq!(t[3].ty.to_string(), "int64_t");
        // An unknown struct is declared forward.
        assert_eq!(t[4].ty.to_string(), "struct stat *");
        assert!(matches!(
            t[4].ty.pointee().map(|p| p.resolved()),
            Some(Type::Record(_))
        ));
    }

    #[test]
    fn return_values_are_long() {
        let t = traced("syscall::openat:return { trace(args[0]); trace(args[1]); }");
        assert_eq!(t[0].ty.to_string(), "long");
        assert_eq!(t[0].kind, CKind::Arg(0));
        assert_eq!(t[1].kind, CKind::Arg(1));
    }

    #[test]
    fn types_work_in_expressions() {
        let t = traced(
            "syscall::openat:entry /args[0] == -100/ { trace(args[0] < 0); trace(sizeof (args[0])); trace(sizeof (args[1])); }",
        );
        assert_eq!(t[1].kind, CKind::Int(4));
        assert_eq!(t[2].kind, CKind::Int(8));
    }

    #[test]
    fn stringof_a_user_address_is_copyinstr() {
        let t = traced(
            "syscall::openat:entry { trace(stringof(args[1])); trace(copyinstr((uintptr_t)args[1])); trace(stringof(args[0])); trace(stringof(arg1)); }",
        );
        assert!(matches!(&t[0].kind, CKind::Copyinstr(a, None) if a.kind == CKind::Arg(1)));
        assert!(matches!(&t[1].kind, CKind::Copyinstr(..)));
        // Not a user address (an int; a raw argN): read as kernel memory,
        // as DTrace's stringof does.
        assert!(matches!(&t[2].kind, CKind::KernelString(_)));
        assert!(matches!(&t[3].kind, CKind::KernelString(_)));
        assert!(t.iter().all(|e| e.ty == Type::String));
    }

    #[test]
    fn out_of_range_indices() {
        assert_eq!(
            error("syscall::openat:entry\n{ trace(args[4]); }"),
            (
                Tag::D_ARGS_IDX,
                "index 4 is out of range for syscall::openat:entry args[ ]".into()
            )
        );
        assert_eq!(
            error("syscall::openat:entry { trace(args[-1]); }").0,
            Tag::D_ARGS_IDX
        );
        assert_eq!(
            error("BEGIN { trace(args[0]); }").1,
            "index 0 is out of range for :::BEGIN args[ ]"
        );
        // Nothing known: ten int64_t arguments, as arg0..arg9.
        let t = traced("fbt::foo:entry { trace(args[9]); }");
        assert_eq!(t[0].ty.to_string(), "int64_t");
        assert_eq!(
            error("fbt::foo:entry { trace(args[10]); }").1,
            "index 10 is out of range for fbt::foo:entry args[ ]"
        );
    }

    #[test]
    fn unstable_sets_of_probes_refuse_args() {
        assert_eq!(
            error("syscall::open*:entry { trace(args[1]); }"),
            (
                Tag::D_ARGS_MULTI,
                "args[ ] may not be referenced because probe description syscall::open*:entry matches an unstable set of probes".into()
            )
        );
        // argN are always fine.
        traced("syscall::open*:entry { trace(arg1); }");
    }

    #[test]
    fn several_descriptions_must_agree() {
        // openat and mkdirat agree on args[0] and args[1] (const apart).
        let t = traced(
            "syscall::openat:entry, syscall::mkdirat:entry { trace(args[0]); trace(stringof(args[1])); }",
        );
        assert_eq!(t[0].ty.to_string(), "int");
        assert!(matches!(t[1].kind, CKind::Copyinstr(..)));
        let (tag, msg) = error("syscall::openat:entry, syscall::mkdirat:entry { trace(args[2]); }");
        assert_eq!(tag, Tag::D_ARGS_MULTI);
        assert!(
            msg.contains("syscall::openat:entry and syscall::mkdirat:entry give args[2] different types (int and int64_t)"),
            "{}",
            msg
        );
        assert_eq!(
            error("syscall::openat:entry, syscall::mkdirat:entry { trace(args[3]); }").1,
            "index 3 is out of range for syscall::mkdirat:entry args[ ]"
        );
        assert_eq!(
            error("syscall::read:entry, syscall::open*:entry { trace(args[1]); }").0,
            Tag::D_ARGS_MULTI
        );
        // One description the table cannot tell about: nothing is known.
        let t = traced("syscall::openat:entry, fbt::foo:entry { trace(args[0]); }");
        assert_eq!(t[0].ty.to_string(), "int64_t");
    }

    #[test]
    fn probes_are_asked_only_when_args_are_used() {
        let (_, asked) =
            compile("syscall::openat:entry { trace(arg0); }\nsyscall::read:entry { trace(args[0]); trace(args[1]); }")
                .unwrap();
        assert_eq!(asked, vec!["syscall::read:entry".to_string()]);
    }

    #[test]
    fn malformed_references() {
        assert_eq!(
            error("BEGIN { trace(args[0, 1]); }"),
            (
                Tag::D_PROTO_LEN,
                "args[ ] prototype mismatch: 2 args passed, 1 expected".into()
            )
        );
        assert_eq!(
            error("syscall::openat:entry { trace(args[arg0]); }"),
            (
                Tag::D_PROTO_ARG,
                "args[ ] argument #1 is incompatible with prototype:\n\tprototype: integer constant\n\t argument: int64_t".into()
            )
        );
        assert_eq!(
            error("inline int x = args[0];\nBEGIN { trace(x); }"),
            (
                Tag::D_ARGS_NONE,
                "args[ ] may not be referenced outside of a probe clause".into()
            )
        );
        assert_eq!(
            error("syscall::openat:entry { args[0] = 1; }").0,
            Tag::D_OP_WRITE
        );
    }

    #[test]
    fn without_a_probe_table_args_are_int64() {
        let checked = crate::compile(
            "syscall::openat:entry { trace(args[1]); }",
            Source::File,
            &MacroEnv::default(),
            &mut Symbols::default(),
            &mut 0,
        )
        .unwrap();
        match &checked.clauses[0].stmts[0] {
            CStmt::Trace(e, _) => {
                assert_eq!(e.kind, CKind::Arg(1));
                assert_eq!(e.ty.to_string(), "int64_t");
            }
            other => panic!("{:?}", other),
        }
    }
}
