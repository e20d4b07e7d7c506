//! Semantic checking: resolves names (built-ins, macros, variables of each
//! scope, associative arrays, aggregations), infers variable types from
//! their first assignment as D does, type-checks every operator, action and
//! subroutine, and produces the checked clauses of `ir`.

use std::collections::BTreeSet;

mod args;
mod decl;
mod place;
mod xlate;

pub use args::{ArgTypes, NoProbes, ProbeArg, ProbeContext};

use crate::ast::{self, BinOp, Expr, ExprKind, Stmt, UnOp};
use crate::error::{CompileError, Tag};
use crate::ir::*;
use crate::pdesc::ProbeDesc;
use crate::printf::{ConvKind, Count, Format, FormatError};
use crate::types::{self, usual_arith, IntType, TagKind, Type, TypeTable};

/// Program-wide symbol tables. They live in the consumer handle, so every
/// program compiled by one handle shares variables and aggregations.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    pub globals: Vec<VarInfo>,
    pub threads: Vec<VarInfo>,
    pub locals: Vec<VarInfo>,
    pub arrays: Vec<ArrayInfo>,
    pub aggs: Vec<AggInfo>,
    /// Types declared by programs and imported from the kernel.
    pub types: TypeTable,
    /// `inline` names: their type and checked value.
    pub inlines: Vec<(String, Type, CExpr)>,
    /// Translators, in declaration order.
    pub translators: Vec<xlate::Translator>,
}

impl Symbols {
    fn find(list: &[VarInfo], name: &str) -> Option<usize> {
        list.iter().position(|v| v.name == name)
    }

    pub fn agg_by_name(&self, name: &str) -> Option<AggId> {
        self.aggs.iter().position(|a| a.name == name)
    }

    pub fn var(&self, v: VarRef) -> &VarInfo {
        match v {
            VarRef::Global(i) => &self.globals[i],
            VarRef::Thread(i) => &self.threads[i],
            VarRef::Local(i) => &self.locals[i],
        }
    }
}

/// Values of macro variables (`$1`, `$target`, `$pid`, ...).
#[derive(Clone, Debug, Default)]
pub struct MacroEnv {
    /// `$0` (the script or "dtrace") then `$1`.. in order, as bytes: an
    /// argument that is not UTF-8 reaches string constants unchanged.
    pub args: Vec<Vec<u8>>,
    /// Named integer macros: target, pid, ppid, uid, gid, ...
    pub named: Vec<(String, i64)>,
    /// Unreferenced or missing arguments default to 0 / "".
    pub defaultargs: bool,
}

impl MacroEnv {
    /// Macro name/value pairs for textual expansion in probe descriptions.
    /// Probe names are text, so bytes that are not UTF-8 become U+FFFD
    /// there (such a description matches no probe).
    pub fn pspec_values(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = self
            .args
            .iter()
            .enumerate()
            .map(|(i, a)| (i.to_string(), String::from_utf8_lossy(a).into_owned()))
            .collect();
        v.extend(self.named.iter().map(|(n, x)| (n.clone(), x.to_string())));
        v
    }
}

/// A checked program: its clauses and the options its pragmas set.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    pub clauses: Vec<CClause>,
    pub options: Vec<(String, Option<String>, u32)>,
    /// `#pragma D depends_on`: kind, name, line.
    pub depends: Vec<(String, String, u32)>,
}

pub struct Checker<'a> {
    syms: &'a mut Symbols,
    env: &'a MacroEnv,
    referenced: BTreeSet<usize>,
    /// Next program-wide clause number.
    next_clause: &'a mut usize,
    /// Action counter within the current clause.
    action: u32,
    /// Translator parameters in scope while a member is translated.
    xlate_scope: Vec<(String, CExpr)>,
    /// What the probes of the clause being checked declare (`args[]`).
    probes: &'a mut dyn ProbeContext,
    clause_args: args::ClauseArgs,
}

fn err(tag: Tag, line: u32, msg: impl Into<String>) -> CompileError {
    CompileError::new(tag, line, msg)
}

fn int_ty(t: IntType) -> Type {
    Type::Int(t)
}

/// Truncates or extends `v` to the width and signedness of `t`.
pub fn convert_const(v: i64, t: IntType) -> i64 {
    match (t.size, t.signed) {
        (1, true) => v as i8 as i64,
        (1, false) => v as u8 as i64,
        (2, true) => v as i16 as i64,
        (2, false) => v as u16 as i64,
        (4, true) => v as i32 as i64,
        (4, false) => v as u32 as i64,
        _ => v,
    }
}

const KNOWN_UNSUPPORTED: &[&str] = &[
    "speculation",
    "speculate",
    "commit",
    "discard",
    "stack",
    "ustack",
    "jstack",
    "ufunc",
    "usym",
    "umod",
    "uaddr",
    "func",
    "sym",
    "mod",
    "tracemem",
    "printm",
    "raise",
    "stop",
    "system",
    "breakpoint",
    "panic",
    "chill",
    "copyin",
    "copyinto",
    "copyout",
    "copyoutstr",
    "alloca",
    "bcopy",
    "basename",
    "dirname",
    "strjoin",
    "substr",
    "index",
    "rindex",
    "strchr",
    "strrchr",
    "strstr",
    "strtok",
    "lltostr",
    "toupper",
    "tolower",
    "htons",
    "htonl",
    "htonll",
    "ntohs",
    "ntohl",
    "ntohll",
    "inet_ntoa",
    "inet_ntoa6",
    "inet_ntop",
    "rand",
    "progenyof",
    "getmajor",
    "getminor",
    "ddi_pathname",
    "mutex_owned",
    "mutex_owner",
    "mutex_type_adaptive",
    "mutex_type_spin",
    "rw_read_held",
    "rw_write_held",
    "rw_iswriter",
    "cleanpath",
    "msgsize",
    "msgdsize",
    "setopt",
    "normalize",
    "denormalize",
    "ftruncate",
    "freopen",
    "print",
    "d_path",
    "link_ntop",
    "strtoll",
];

impl<'a> Checker<'a> {
    pub fn new(
        syms: &'a mut Symbols,
        env: &'a MacroEnv,
        next_clause: &'a mut usize,
        probes: &'a mut dyn ProbeContext,
    ) -> Checker<'a> {
        Checker {
            syms,
            env,
            referenced: BTreeSet::new(),
            next_clause,
            action: 0,
            xlate_scope: Vec::new(),
            probes,
            clause_args: args::ClauseArgs::Outside,
        }
    }

    /// Checks a whole program. `pspec_macros` are the macro names the
    /// parser expanded inside probe descriptions (they count as used).
    pub fn program(
        mut self,
        prog: &ast::Program,
        pspec_macros: &[String],
    ) -> Result<Checked, CompileError> {
        for m in pspec_macros {
            if let Ok(n) = m.parse::<usize>() {
                self.referenced.insert(n);
            }
        }
        let mut out = Checked::default();
        for item in &prog.items {
            match item {
                ast::Item::Option { name, value, line } => {
                    out.options.push((name.clone(), value.clone(), *line))
                }
                ast::Item::DependsOn { kind, name, line } => {
                    out.depends.push((kind.clone(), name.clone(), *line))
                }
                ast::Item::Decl(d) => self.declaration(d)?,
                ast::Item::TypeDecl { ty, line } => {
                    self.type_name(ty, *line)?;
                }
                ast::Item::Typedef { ty, name, line } => self.typedef(ty, name, *line)?,
                ast::Item::Inline {
                    ty,
                    name,
                    value,
                    line,
                } => self.inline(ty, name, value, *line)?,
                ast::Item::Translator {
                    to,
                    from,
                    param,
                    members,
                    line,
                } => self.translator(to, from, param, members, *line)?,
                ast::Item::Clause(c) => {
                    let cc = self.clause(c)?;
                    out.clauses.push(cc);
                }
            }
        }
        if !self.env.defaultargs {
            for (i, a) in self.env.args.iter().enumerate().skip(1) {
                if !self.referenced.contains(&i) {
                    return Err(CompileError::no_line(
                        Tag::D_MACRO_UNUSED,
                        format!(
                            "extraneous argument '{}' (${} is not referenced)",
                            crate::lex::quote_bytes(a),
                            i
                        ),
                    ));
                }
            }
        }
        Ok(out)
    }

    fn declaration(&mut self, d: &ast::Decl) -> Result<(), CompileError> {
        if d.scope == ast::DeclScope::Extern {
            return Err(err(
                Tag::D_NOTSUP,
                d.line,
                format!("extern declarations are not yet supported: {}", d.name),
            ));
        }
        let ty = self.type_name(&d.ty, d.line)?;
        if ty.is_aggregate() || ty.is_float() || matches!(ty.resolved(), Type::Func(_)) {
            return Err(err(
                Tag::D_NOTSUP,
                d.line,
                format!("variables of type {} are not yet supported: {}", ty, d.name),
            ));
        }
        if ty == Type::Void {
            return Err(err(
                Tag::D_DECL_TYPE,
                d.line,
                format!("variable {} may not be declared void", d.name),
            ));
        }
        if let Some(keys) = &d.keys {
            if d.scope != ast::DeclScope::Global {
                return Err(err(
                    Tag::D_DECL_SCOPE,
                    d.line,
                    format!(
                        "associative arrays may not be declared {}",
                        match d.scope {
                            ast::DeclScope::Thread => "self",
                            _ => "this",
                        }
                    ),
                ));
            }
            let keys = keys
                .iter()
                .map(|k| self.type_name(k, d.line))
                .collect::<Result<Vec<_>, _>>()?;
            if let Some(a) = self.syms.arrays.iter().find(|a| a.name == d.name) {
                if a.keys != keys || a.value != ty {
                    return Err(err(
                        Tag::D_DECL_IDRED,
                        d.line,
                        format!("identifier redeclared: {}", d.name),
                    ));
                }
                return Ok(());
            }
            self.syms.arrays.push(ArrayInfo {
                name: d.name.clone(),
                keys,
                value: ty,
            });
            return Ok(());
        }
        let list = match d.scope {
            ast::DeclScope::Global | ast::DeclScope::Extern => &mut self.syms.globals,
            ast::DeclScope::Thread => &mut self.syms.threads,
            ast::DeclScope::Clause => &mut self.syms.locals,
        };
        if let Some(i) = Symbols::find(list, &d.name) {
            if list[i].ty != ty {
                return Err(err(
                    Tag::D_DECL_IDRED,
                    d.line,
                    format!("identifier redeclared: {}", d.name),
                ));
            }
            return Ok(());
        }
        list.push(VarInfo {
            name: d.name.clone(),
            ty,
        });
        Ok(())
    }

    fn clause(&mut self, c: &ast::Clause) -> Result<CClause, CompileError> {
        let mut probes = Vec::new();
        for p in &c.probes {
            let d = ProbeDesc::parse(&p.text).map_err(|e| {
                let why = match e {
                    crate::pdesc::PdescError::Overspecified => "Overspecified probe description",
                    crate::pdesc::PdescError::BadGlob => "Invalid probe description",
                };
                err(
                    Tag::D_PDESC_INVAL,
                    p.line,
                    format!("invalid probe description \"{}\": {}", p.text, why),
                )
            })?;
            probes.push((d, p.text.clone(), p.line));
        }
        self.enter_clause_args(probes.iter().map(|(d, _, _)| d.clone()).collect());
        let out = self.clause_body(c, probes);
        self.leave_clause_args();
        out
    }

    fn clause_body(
        &mut self,
        c: &ast::Clause,
        probes: Vec<(ProbeDesc, String, u32)>,
    ) -> Result<CClause, CompileError> {
        self.action = 0;
        let predicate = match &c.predicate {
            Some(p) => {
                let e = self.expr(p)?;
                if !e.ty.is_scalar() {
                    return Err(err(
                        Tag::D_PRED_SCALAR,
                        p.line,
                        "predicate result must be of scalar type",
                    ));
                }
                Some(e)
            }
            None => None,
        };
        let body: &[Stmt] = c.body.as_deref().unwrap_or(&[]);
        let default_action = body.iter().all(|s| matches!(s, Stmt::Empty));
        let stmts = self.statements(body)?;
        let id = *self.next_clause;
        *self.next_clause += 1;
        Ok(CClause {
            id,
            probes,
            predicate,
            stmts,
            default_action,
            line: c.line,
        })
    }

    fn statements(&mut self, body: &[Stmt]) -> Result<Vec<CStmt>, CompileError> {
        let mut out = Vec::new();
        for s in body {
            match s {
                Stmt::Empty => {}
                Stmt::Expr(e) => out.push(self.statement(e)?),
                Stmt::If {
                    cond,
                    then,
                    els,
                    line,
                } => {
                    let cond = self.expr(cond)?;
                    if !cond.ty.is_scalar() {
                        return Err(err(
                            Tag::D_OP_SCALAR,
                            *line,
                            "if condition must be of scalar type",
                        ));
                    }
                    let then = self.statements(then)?;
                    let els = self.statements(els)?;
                    out.push(CStmt::If { cond, then, els });
                }
            }
        }
        Ok(out)
    }

    fn next_action(&mut self, records: u32) -> ActionIndex {
        let a = self.action + 1;
        self.action += records.max(1);
        a
    }

    fn statement(&mut self, e: &Expr) -> Result<CStmt, CompileError> {
        match &e.kind {
            ExprKind::Assign(None, lhs, rhs) if matches!(lhs.kind, ExprKind::Agg { .. }) => {
                self.aggregation(lhs, rhs)
            }
            ExprKind::Assign(Some(_), lhs, _) if matches!(lhs.kind, ExprKind::Agg { .. }) => {
                Err(err(
                    Tag::D_AGG_FUNC,
                    e.line,
                    "aggregation can only be assigned the result of an aggregating function",
                ))
            }
            ExprKind::Call(name, args) => self.action_call(name, args, e),
            _ => {
                let c = self.expr(e)?;
                let a = self.next_action(1);
                Ok(CStmt::Eval(c, a))
            }
        }
    }

    fn proto_len(&self, name: &str, got: usize, want: &str, line: u32) -> CompileError {
        err(
            Tag::D_PROTO_LEN,
            line,
            format!(
                "{}( ) prototype mismatch: {} arg{} passed, {} expected",
                name,
                got,
                if got == 1 { "" } else { "s" },
                want
            ),
        )
    }

    fn agg_arg(&self, name: &str, e: &Expr, tag: Tag) -> Result<AggId, CompileError> {
        match &e.kind {
            ExprKind::Agg { name: a, keys: None } => self.syms.agg_by_name(a).ok_or_else(|| {
                err(
                    Tag::D_IDENT_UNDEF,
                    e.line,
                    format!("failed to resolve @{}: Unknown variable name", a),
                )
            }),
            _ => Err(err(
                tag,
                e.line,
                format!("{}( ) argument #1 is incompatible with prototype:\n\tprototype: aggregation\n\t argument: {}", name, self.describe_arg(e)),
            )),
        }
    }

    fn describe_arg(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Str(_) => "string".into(),
            ExprKind::Int { .. } => "int".into(),
            _ => "expression".into(),
        }
    }

    fn action_call(&mut self, name: &str, args: &[Expr], e: &Expr) -> Result<CStmt, CompileError> {
        let line = e.line;
        match name {
            "trace" => {
                if args.len() != 1 {
                    return Err(self.proto_len("trace", args.len(), "1", line));
                }
                if matches!(args[0].kind, ExprKind::Agg { .. }) {
                    return Err(err(
                        Tag::D_TRACE_AGG,
                        line,
                        "trace( ) may not be applied to an aggregation",
                    ));
                }
                let v = self.expr(&args[0])?;
                if v.ty == Type::Void {
                    return Err(err(
                        Tag::D_TRACE_VOID,
                        line,
                        "trace( ) may not be applied to a void expression",
                    ));
                }
                let a = self.next_action(1);
                Ok(CStmt::Trace(v, a))
            }
            "printf" => {
                if args.is_empty() {
                    return Err(self.proto_len("printf", 0, "at least 1", line));
                }
                let format = self.format_arg("printf", &args[0])?;
                let mut cargs = Vec::new();
                for a in &args[1..] {
                    if matches!(a.kind, ExprKind::Agg { .. }) {
                        return Err(err(
                            Tag::D_PRINTF_ARG_TYPE,
                            a.line,
                            "printf( ) may not be applied to an aggregation",
                        ));
                    }
                    cargs.push(self.expr(a)?);
                }
                self.check_format("printf", &format, &cargs, 1, line)?;
                let action = self.next_action(cargs.len() as u32);
                Ok(CStmt::Printf {
                    format,
                    args: cargs,
                    action,
                })
            }
            "exit" => {
                if args.len() != 1 {
                    return Err(self.proto_len("exit", args.len(), "1", line));
                }
                let v = self.expr(&args[0])?;
                if !v.ty.is_scalar() {
                    return Err(err(
                        Tag::D_PROTO_ARG,
                        line,
                        format!("exit( ) argument #1 is incompatible with prototype:\n\tprototype: int\n\t argument: {}", v.ty),
                    ));
                }
                let a = self.next_action(1);
                Ok(CStmt::Exit(v, a))
            }
            "printa" => {
                if args.is_empty() {
                    return Err(self.proto_len("printa", 0, "at least 1", line));
                }
                let (format, rest) = if let ExprKind::Str(_) = args[0].kind {
                    (Some(self.format_arg("printa", &args[0])?), &args[1..])
                } else {
                    (None, args)
                };
                if rest.is_empty() {
                    return Err(err(
                        Tag::D_PRINTA_PROTO,
                        line,
                        "printa( ) prototype mismatch: aggregation argument required",
                    ));
                }
                let mut aggs = Vec::new();
                for a in rest {
                    aggs.push(self.agg_arg("printa", a, Tag::D_PRINTA_AGGARG)?);
                }
                if let Some(f) = &format {
                    self.check_printa_format(f, &aggs, line)?;
                }
                let action = self.next_action(1);
                Ok(CStmt::Printa {
                    format,
                    aggs,
                    action,
                })
            }
            "clear" => {
                if args.len() != 1 {
                    return Err(self.proto_len("clear", args.len(), "1", line));
                }
                let agg = self.agg_arg("clear", &args[0], Tag::D_CLEAR_AGGARG)?;
                let a = self.next_action(1);
                Ok(CStmt::Clear(agg, a))
            }
            "trunc" => {
                if args.is_empty() || args.len() > 2 {
                    return Err(self.proto_len("trunc", args.len(), "1 or 2", line));
                }
                let agg = self.agg_arg("trunc", &args[0], Tag::D_TRUNC_AGGARG)?;
                let n = match args.get(1) {
                    Some(x) => {
                        let v = self.expr(x)?;
                        if !v.ty.is_scalar() {
                            return Err(err(
                                Tag::D_TRUNC_SCALAR,
                                x.line,
                                "trunc( ) argument #2 must be of scalar type",
                            ));
                        }
                        Some(v)
                    }
                    None => None,
                };
                let a = self.next_action(1);
                Ok(CStmt::Trunc(agg, n, a))
            }
            _ if is_agg_func(name) => Err(err(
                Tag::D_AGG_FUNC,
                line,
                format!(
                    "{}( ) may only be used as the value of an aggregation",
                    name
                ),
            )),
            _ => {
                let c = self.expr(e)?;
                let a = self.next_action(1);
                Ok(CStmt::Eval(c, a))
            }
        }
    }

    fn format_arg(&self, func: &str, e: &Expr) -> Result<Format, CompileError> {
        match &e.kind {
            ExprKind::Str(s) => Format::parse(s).map_err(|fe| match fe {
                FormatError::BadConversion(c) => err(
                    Tag::D_PRINTF_ARG_FMT,
                    e.line,
                    format!("{}( ) argument #1 is invalid: invalid format conversion \"{}\"", func, c),
                ),
                FormatError::TooWide(c) => err(
                    Tag::D_PRINTF_ARG_FMT,
                    e.line,
                    format!(
                        "{}( ) argument #1 is invalid: width or precision of \"{}\" exceeds the limit of {}",
                        func,
                        c,
                        crate::printf::MAX_WIDTH
                    ),
                ),
            }),
            _ => Err(err(
                Tag::D_PRINTF_ARG_FMT,
                e.line,
                format!("{}( ) argument #1 is incompatible with prototype:\n\tprototype: string constant\n\t argument: {}", func, self.describe_arg(e)),
            )),
        }
    }

    /// Matches each conversion to its argument (`first_arg` is the 1-based
    /// position of the first value argument).
    fn check_format(
        &self,
        func: &str,
        f: &Format,
        args: &[CExpr],
        first_arg: usize,
        line: u32,
    ) -> Result<(), CompileError> {
        let mut ai = 0usize;
        for (ci, conv) in f.conversions().enumerate() {
            if conv.is_agg() {
                return Err(err(
                    Tag::D_PRINTF_AGG_CONV,
                    line,
                    format!("{}( ) %@ conversion requires an aggregation and is only valid for printa( )", func),
                ));
            }
            if conv.kind == ConvKind::Float {
                return Err(err(
                    Tag::D_PRINTF_ARG_TYPE,
                    line,
                    format!("{}( ) conversion #{} ({}) requires a floating-point argument, which D does not support", func, ci + 1, conv.text),
                ));
            }
            for star in [conv.width == Count::Star, conv.precision == Count::Star] {
                if !star {
                    continue;
                }
                let Some(a) = args.get(ai) else {
                    return Err(self.missing_arg(func, ci, conv, line));
                };
                if !a.ty.is_int() {
                    return Err(err(
                        Tag::D_PRINTF_ARG_TYPE,
                        line,
                        format!("{}( ) argument #{} is incompatible with conversion #{} prototype:\n\tconversion: {}\n\t prototype: int\n\t  argument: {}", func, ai + first_arg + 1, ci + 1, conv.text, a.ty),
                    ));
                }
                ai += 1;
            }
            let Some(a) = args.get(ai) else {
                return Err(self.missing_arg(func, ci, conv, line));
            };
            if !conv.kind.accepts(&a.ty) {
                return Err(err(
                    Tag::D_PRINTF_ARG_TYPE,
                    line,
                    format!(
                        "{}( ) argument #{} is incompatible with conversion #{} prototype:\n\tconversion: {}\n\t prototype: {}\n\t  argument: {}",
                        func,
                        ai + first_arg + 1,
                        ci + 1,
                        conv.text,
                        conv.kind.prototype(),
                        a.ty
                    ),
                ));
            }
            ai += 1;
        }
        if ai < args.len() {
            return Err(err(
                Tag::D_PRINTF_ARG_EXTRA,
                line,
                format!(
                    "{}( ) prototype mismatch: only {} arguments required by this format string",
                    func,
                    ai + first_arg
                ),
            ));
        }
        Ok(())
    }

    fn missing_arg(
        &self,
        func: &str,
        ci: usize,
        conv: &crate::printf::Conversion,
        line: u32,
    ) -> CompileError {
        err(
            Tag::D_PRINTF_ARG_PROTO,
            line,
            format!("{}( ) prototype mismatch: conversion #{} ({}) is missing a corresponding value argument", func, ci + 1, conv.text),
        )
    }

    /// printa formats: conversions apply to the keys in order, `%@` to the
    /// value.
    fn check_printa_format(
        &self,
        f: &Format,
        aggs: &[AggId],
        line: u32,
    ) -> Result<(), CompileError> {
        let keys = &self.syms.aggs[aggs[0]].keys;
        let mut ki = 0;
        for (ci, conv) in f.conversions().enumerate() {
            if conv.is_agg() {
                continue;
            }
            if conv.width == Count::Star || conv.precision == Count::Star {
                return Err(err(
                    Tag::D_PRINTF_DYN_PROTO,
                    line,
                    "printa( ) does not support dynamic width or precision",
                ));
            }
            let Some(k) = keys.get(ki) else {
                return Err(err(
                    Tag::D_PRINTA_AGGKEY,
                    line,
                    format!(
                        "printa( ) conversion #{} ({}) has no corresponding aggregation key",
                        ci + 1,
                        conv.text
                    ),
                ));
            };
            if !conv.kind.accepts(k) {
                return Err(err(
                    Tag::D_PRINTF_ARG_TYPE,
                    line,
                    format!(
                        "printa( ) argument #2 is incompatible with conversion #{} prototype:\n\tconversion: {}\n\t prototype: {}\n\t  argument: {}",
                        ci + 1,
                        conv.text,
                        conv.kind.prototype(),
                        k
                    ),
                ));
            }
            ki += 1;
        }
        Ok(())
    }

    fn aggregation(&mut self, lhs: &Expr, rhs: &Expr) -> Result<CStmt, CompileError> {
        let ExprKind::Agg { name, keys } = &lhs.kind else {
            unreachable!("checked by caller")
        };
        let (fname, fargs) = match &rhs.kind {
            ExprKind::Call(f, a) if is_agg_func(f) => (f.as_str(), a),
            _ => {
                return Err(err(
                    Tag::D_AGG_FUNC,
                    rhs.line,
                    format!(
                        "@{} must be assigned the result of an aggregating function",
                        name
                    ),
                ))
            }
        };
        let line = rhs.line;
        let mut ckeys = Vec::new();
        for k in keys.iter().flatten() {
            let c = self.expr(k)?;
            if !(c.ty.is_scalar() || c.ty.is_string()) {
                return Err(err(
                    Tag::D_KEY_TYPE,
                    k.line,
                    format!("aggregation key of type {} is not supported", c.ty),
                ));
            }
            ckeys.push(c);
        }
        let want = |n: &str| -> CompileError { self.proto_len(fname, fargs.len(), n, line) };
        let (func, value, incr) = match fname {
            "count" => {
                if !fargs.is_empty() {
                    return Err(want("0"));
                }
                (AggFunc::Count, None, None)
            }
            "sum" | "min" | "max" | "avg" => {
                if fargs.len() != 1 {
                    return Err(want("1"));
                }
                let f = match fname {
                    "sum" => AggFunc::Sum,
                    "min" => AggFunc::Min,
                    "max" => AggFunc::Max,
                    _ => AggFunc::Avg,
                };
                (f, Some(self.scalar_arg(fname, &fargs[0], 1)?), None)
            }
            "quantize" => {
                if fargs.is_empty() || fargs.len() > 2 {
                    return Err(want("1 or 2"));
                }
                let v = self.scalar_arg(fname, &fargs[0], 1)?;
                let inc = match fargs.get(1) {
                    Some(x) => Some(self.scalar_arg(fname, x, 2)?),
                    None => None,
                };
                (AggFunc::Quantize, Some(v), inc)
            }
            "lquantize" => {
                if fargs.len() < 3 || fargs.len() > 5 {
                    return Err(want("3 to 5"));
                }
                let v = self.scalar_arg(fname, &fargs[0], 1)?;
                let base = self.const_int(&fargs[1]).ok_or_else(|| {
                    err(
                        Tag::D_LQUANT_BASETYPE,
                        line,
                        "lquantize( ) argument #2 must be a constant integer",
                    )
                })?;
                let limit = self.const_int(&fargs[2]).ok_or_else(|| {
                    err(
                        Tag::D_LQUANT_LIMTYPE,
                        line,
                        "lquantize( ) argument #3 must be a constant integer",
                    )
                })?;
                let step = match fargs.get(3) {
                    Some(s) => self.const_int(s).ok_or_else(|| {
                        err(
                            Tag::D_LQUANT_STEPTYPE,
                            line,
                            "lquantize( ) argument #4 must be a constant integer",
                        )
                    })?,
                    None => 1,
                };
                if base < i64::from(i32::MIN) || base > i64::from(i32::MAX) {
                    return Err(err(
                        Tag::D_LQUANT_BASEVAL,
                        line,
                        "lquantize( ) base (argument #2) must be a 32-bit quantity".to_string(),
                    ));
                }
                if limit < i64::from(i32::MIN) || limit > i64::from(i32::MAX) {
                    return Err(err(
                        Tag::D_LQUANT_LIMVAL,
                        line,
                        "lquantize( ) limit (argument #3) must be a 32-bit quantity".to_string(),
                    ));
                }
                if limit <= base {
                    return Err(err(
                        Tag::D_LQUANT_MISMATCH,
                        line,
                        "lquantize( ) base (argument #2) must be less than limit (argument #3)",
                    ));
                }
                if step <= 0 || step > i64::from(u16::MAX) {
                    return Err(err(
                        Tag::D_LQUANT_STEPVAL,
                        line,
                        "lquantize( ) step (argument #4) must be a 16-bit quantity",
                    ));
                }
                if (limit - base) / step == 0 {
                    return Err(err(
                        Tag::D_LQUANT_STEPLARGE,
                        line,
                        "lquantize( ) step (argument #4) too large: must have at least one quantization level".to_string(),
                    ));
                }
                if (limit - base) / step > i64::from(u16::MAX) {
                    return Err(err(
                        Tag::D_LQUANT_STEPSMALL,
                        line,
                        "lquantize( ) step (argument #4) too small: number of quantization levels must be a 16-bit quantity",
                    ));
                }
                let inc = match fargs.get(4) {
                    Some(x) => Some(self.scalar_arg(fname, x, 5)?),
                    None => None,
                };
                (
                    AggFunc::Lquantize {
                        base: base as i32,
                        limit: limit as i32,
                        step: step as u16,
                    },
                    Some(v),
                    inc,
                )
            }
            other => {
                return Err(err(
                    Tag::D_NOTSUP,
                    line,
                    format!("aggregating function {}( ) is not yet supported", other),
                ))
            }
        };
        let key_types: Vec<Type> = ckeys.iter().map(|k| key_type(&k.ty)).collect();
        let agg = match self.syms.agg_by_name(name) {
            Some(id) => {
                let a = &self.syms.aggs[id];
                if a.func != func {
                    return Err(err(
                        Tag::D_AGG_REDEF,
                        line,
                        format!(
                            "aggregation redefined: @{}\n\t current: @{} = {}( )\n\tprevious: @{} = {}( ) : line {}",
                            name,
                            name,
                            func.name(),
                            name,
                            a.func.name(),
                            a.line
                        ),
                    ));
                }
                if a.keys.len() != key_types.len()
                    || a.keys
                        .iter()
                        .zip(&key_types)
                        .any(|(x, y)| x.is_string() != y.is_string())
                {
                    return Err(err(
                        Tag::D_AGG_MDIM,
                        line,
                        format!(
                            "@{}[ ] key signature mismatch: previous use at line {}",
                            name, a.line
                        ),
                    ));
                }
                // Integer keys widen to the larger type seen.
                let merged: Vec<Type> = a
                    .keys
                    .iter()
                    .zip(&key_types)
                    .map(|(x, y)| match (x, y) {
                        (Type::Int(p), Type::Int(q)) if q.size > p.size => Type::Int(*q),
                        _ => x.clone(),
                    })
                    .collect();
                self.syms.aggs[id].keys = merged;
                id
            }
            None => {
                self.syms.aggs.push(AggInfo {
                    name: name.clone(),
                    func,
                    keys: key_types,
                    line,
                });
                self.syms.aggs.len() - 1
            }
        };
        let action = self.next_action(1);
        Ok(CStmt::AggUpdate {
            agg,
            keys: ckeys,
            value,
            incr,
            action,
        })
    }

    fn scalar_arg(&mut self, f: &str, e: &Expr, n: usize) -> Result<CExpr, CompileError> {
        let c = self.expr(e)?;
        if !c.ty.is_scalar() {
            return Err(err(
                Tag::D_PROTO_ARG,
                e.line,
                format!("{}( ) argument #{} is incompatible with prototype:\n\tprototype: int64_t\n\t argument: {}", f, n, c.ty),
            ));
        }
        Ok(c)
    }

    /// The value of an integer constant expression, if it is one.
    fn const_int(&mut self, e: &Expr) -> Option<i64> {
        let c = self.expr(e).ok()?;
        match c.kind {
            CKind::Int(v) => Some(v),
            _ => None,
        }
    }

    // ---- expressions ----

    pub fn expr(&mut self, e: &Expr) -> Result<CExpr, CompileError> {
        let line = e.line;
        let mk = |kind: CKind, ty: Type| CExpr { kind, ty, line };
        match &e.kind {
            ExprKind::Int {
                value,
                unsigned,
                long,
                radix_not_decimal,
            } => {
                let ty = int_const_type(*value, *unsigned, *long, *radix_not_decimal);
                Ok(mk(CKind::Int(*value as i64), int_ty(ty)))
            }
            // A character constant is an integer constant (DTrace's lexer
            // makes it one): 'a' is an int, 'abcde' a long.
            ExprKind::Char(c) => {
                let ty = int_const_type(*c as u64, false, false, false);
                Ok(mk(CKind::Int(*c), int_ty(ty)))
            }
            ExprKind::Str(s) => Ok(mk(CKind::Str(s.clone()), Type::String)),
            ExprKind::Macro { name, quoted } => self.macro_var(name, *quoted, line),
            ExprKind::Ident(name) => self.ident(name, line),
            // A thread-local or clause-local variable read before any
            // assignment is an int, and 0, as in DTrace.
            ExprKind::SelfVar(name) => {
                let i = match Symbols::find(&self.syms.threads, name) {
                    Some(i) => i,
                    None => {
                        self.syms.threads.push(VarInfo {
                            name: name.clone(),
                            ty: int_ty(types::INT),
                        });
                        self.syms.threads.len() - 1
                    }
                };
                Ok(mk(
                    CKind::Var(VarRef::Thread(i)),
                    self.syms.threads[i].ty.clone(),
                ))
            }
            ExprKind::ThisVar(name) => {
                let i = match Symbols::find(&self.syms.locals, name) {
                    Some(i) => i,
                    None => {
                        self.syms.locals.push(VarInfo {
                            name: name.clone(),
                            ty: int_ty(types::INT),
                        });
                        self.syms.locals.len() - 1
                    }
                };
                Ok(mk(
                    CKind::Var(VarRef::Local(i)),
                    self.syms.locals[i].ty.clone(),
                ))
            }
            ExprKind::Agg { name, .. } => Err(err(
                Tag::D_AGG_SCALAR,
                line,
                format!("aggregation @{} may not be used in an expression", name),
            )),
            ExprKind::Unary(op, inner) => self.unary(*op, inner, line),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, line),
            ExprKind::Assign(op, lhs, rhs) => self.assign(*op, lhs, rhs, line),
            ExprKind::Ternary(c, a, b) => {
                let c = self.expr(c)?;
                if !c.ty.is_scalar() {
                    return Err(err(
                        Tag::D_OP_SCALAR,
                        line,
                        "operator ?: requires a first operand of scalar type",
                    ));
                }
                let a = self.expr(a)?;
                let b = self.expr(b)?;
                let ty = match (&a.ty, &b.ty) {
                    (Type::String, Type::String) => Type::String,
                    (x, y) if x.is_scalar() && y.is_scalar() => int_ty(usual_arith(
                        x.as_int().unwrap_or(types::INT),
                        y.as_int().unwrap_or(types::INT),
                    )),
                    (x, y) => {
                        return Err(err(
                            Tag::D_OP_INCOMPAT,
                            line,
                            format!(
                            "operator ?: operands must have compatible types: \"{}\" and \"{}\"",
                            x, y
                        ),
                        ))
                    }
                };
                Ok(fold(mk(
                    CKind::Ternary(Box::new(c), Box::new(a), Box::new(b)),
                    ty,
                )))
            }
            ExprKind::Call(name, args) => self.call(name, args, line),
            ExprKind::Index(base, idx) => match self.place(e)? {
                Some(p) => self.load(p, line),
                None => match &base.kind {
                    ExprKind::SelfVar(n) => self.thread_elem(n, idx, line),
                    ExprKind::ThisVar(n) => Err(err(
                        Tag::D_ARR_LOCAL,
                        line,
                        format!(
                            "local variables may not be used as associative arrays: {}",
                            n
                        ),
                    )),
                    _ => self.index(base, idx, line),
                },
            },
            ExprKind::Member(..) | ExprKind::Arrow(..) if self.is_translated(e)? => {
                self.translated_member(e)
            }
            ExprKind::Member(..) | ExprKind::Arrow(..) => match self.place(e)? {
                Some(p) => self.load(p, line),
                None => Err(err(
                    Tag::D_OP_SOU,
                    line,
                    "member access requires a struct or union",
                )),
            },
            ExprKind::Cast(t, inner) => {
                let to = self.type_name(t, line)?;
                let v = self.expr(inner)?;
                // Arrays are their address: they convert as pointers.
                let from_scalar = v.ty.is_scalar() || matches!(v.ty.resolved(), Type::Array(..));
                match (to.resolved(), v.ty.resolved()) {
                    (Type::String, Type::String) => Ok(v),
                    // A pointer cast to string reads the string there.
                    (Type::String, _) if from_scalar => {
                        Ok(mk(CKind::KernelString(Box::new(v)), Type::String))
                    }
                    (t, _) if t.is_scalar() && from_scalar => {
                        let it = t.as_int().expect("scalar");
                        if let CKind::Int(x) = v.kind {
                            return Ok(mk(CKind::Int(convert_const(x, it)), to));
                        }
                        Ok(mk(CKind::Cast(Box::new(v)), to))
                    }
                    (Type::Void, _) => Ok(mk(v.kind, Type::Void)),
                    _ => Err(err(
                        Tag::D_CAST_INVAL,
                        line,
                        format!("invalid cast expression: \"{}\" to \"{}\"", v.ty, to),
                    )),
                }
            }
            ExprKind::SizeofType(t) => {
                let ty = self.type_name(t, line)?;
                let sz = self.size_or_err(&ty, line)?;
                Ok(mk(CKind::Int(sz as i64), int_ty(types::SIZE_T)))
            }
            ExprKind::Symbol { .. } => match self.place(e)? {
                Some(p) => self.load(p, line),
                None => Err(err(Tag::D_IDENT_UNDEF, line, "failed to resolve symbol")),
            },
            ExprKind::Offsetof(t, path) => self.offsetof(t, path, line),
            ExprKind::Xlate(t, inner) => self.xlate(t, inner, line),
            ExprKind::SizeofExpr(inner) => {
                // The operand's type, without reading it: a char array is
                // its array type here, not the string it reads as.
                let ty = match self.place(inner)? {
                    Some(p) => {
                        if p.bits.is_some() {
                            return Err(err(
                                Tag::D_SIZEOF_BITFIELD,
                                line,
                                "cannot apply sizeof to a bit-field",
                            ));
                        }
                        p.ty
                    }
                    None => self.expr(inner)?.ty,
                };
                let sz = self.size_or_err(&ty, line)?;
                Ok(mk(CKind::Int(sz as i64), int_ty(types::SIZE_T)))
            }
            ExprKind::Stringof(inner) => {
                if let Some(s) = self.user_arg_string(inner, line)? {
                    return Ok(s);
                }
                let v = self.expr(inner)?;
                match v.ty {
                    Type::String => Ok(v),
                    ref t if t.is_scalar() => {
                        Ok(mk(CKind::KernelString(Box::new(v)), Type::String))
                    }
                    _ => Err(err(
                        Tag::D_STRINGOF_TYPE,
                        line,
                        format!("cannot apply stringof to type {}", v.ty),
                    )),
                }
            }
        }
    }

    fn macro_var(&mut self, name: &str, quoted: bool, line: u32) -> Result<CExpr, CompileError> {
        let mk = |kind: CKind, ty: Type| CExpr { kind, ty, line };
        if let Ok(n) = name.parse::<usize>() {
            self.referenced.insert(n);
            let val = match self.env.args.get(n) {
                Some(v) => Some(v.clone()),
                None if self.env.defaultargs => None,
                None => {
                    return Err(err(
                        Tag::D_MACRO_UNDEF,
                        line,
                        format!(
                            "macro argument ${}{} is not defined",
                            if quoted { "$" } else { "" },
                            name
                        ),
                    ))
                }
            };
            if quoted {
                return Ok(mk(CKind::Str(val.unwrap_or_default()), Type::String));
            }
            let Some(val) = val else {
                return Ok(mk(CKind::Int(0), int_ty(types::INT)));
            };
            // Integers and identifiers are ASCII; other bytes make a string.
            let text = std::str::from_utf8(&val).ok();
            if let Some(v) = text.and_then(parse_c_integer) {
                let ty = if v <= i64::from(i32::MAX) && v >= i64::from(i32::MIN) {
                    types::INT
                } else {
                    types::LONG
                };
                return Ok(mk(CKind::Int(v), int_ty(ty)));
            }
            if let Some(id) = text.filter(|t| is_identifier(t)) {
                return self.ident(id, line);
            }
            // A double-quoted argument is a string constant.
            if val.len() >= 2 && val.starts_with(b"\"") && val.ends_with(b"\"") {
                return Ok(mk(CKind::Str(val[1..val.len() - 1].to_vec()), Type::String));
            }
            // Anything else is substituted as a string, as DTrace does for
            // arguments that are not valid integers or identifiers.
            return Ok(mk(CKind::Str(val), Type::String));
        }
        match self.env.named.iter().find(|(n, _)| n == name) {
            Some((_, v)) => {
                if quoted {
                    Ok(mk(CKind::Str(v.to_string().into_bytes()), Type::String))
                } else {
                    Ok(mk(CKind::Int(*v), int_ty(types::INT)))
                }
            }
            None => Err(err(
                Tag::D_MACRO_UNDEF,
                line,
                format!("macro variable ${} is not defined", name),
            )),
        }
    }

    fn ident(&mut self, name: &str, line: u32) -> Result<CExpr, CompileError> {
        let mk = |kind: CKind, ty: Type| CExpr { kind, ty, line };
        if let Some((_, v)) = self.xlate_scope.iter().rev().find(|(n, _)| n == name) {
            return Ok(CExpr { line, ..v.clone() });
        }
        if name == "curthread" {
            // The running thread's task_struct, typed from the kernel's
            // BTF when it can be read.
            let ty = match self.syms.types.tagged(TagKind::Struct, "task_struct", None) {
                Some(t) => Type::ptr(t),
                None => Type::ptr(Type::Void),
            };
            return Ok(mk(CKind::Builtin(Builtin::Curthread), ty));
        }
        if let Some((b, ty)) = builtin(name) {
            return Ok(mk(CKind::Builtin(b), ty));
        }
        if name == "NULL" && Symbols::find(&self.syms.globals, name).is_none() {
            return Ok(mk(CKind::Int(0), Type::ptr(Type::Void)));
        }
        if let Some((v, ty)) = self.syms.types.enumerator(name) {
            return Ok(mk(CKind::Int(v), ty));
        }
        if let Some((_, _, v)) = self.syms.inlines.iter().find(|(n, _, _)| n == name) {
            return Ok(CExpr { line, ..v.clone() });
        }
        if let Some(n) = name.strip_prefix("arg") {
            if let Ok(i) = n.parse::<u8>() {
                if i <= 9 && n.len() == 1 {
                    return Ok(mk(CKind::Arg(i), int_ty(types::INT64)));
                }
            }
        }
        if let Some(i) = Symbols::find(&self.syms.globals, name) {
            return Ok(mk(
                CKind::Var(VarRef::Global(i)),
                self.syms.globals[i].ty.clone(),
            ));
        }
        if self.syms.arrays.iter().any(|a| a.name == name) {
            return Err(err(
                Tag::D_ARR_BADREF,
                line,
                format!("{} is an associative array and must be indexed", name),
            ));
        }
        Err(err(
            Tag::D_IDENT_UNDEF,
            line,
            format!("failed to resolve {}: Unknown variable name", name),
        ))
    }

    fn unary(&mut self, op: UnOp, inner: &Expr, line: u32) -> Result<CExpr, CompileError> {
        let mk = |kind: CKind, ty: Type| CExpr { kind, ty, line };
        match op {
            UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec => {
                let sym = match op {
                    UnOp::PreInc | UnOp::PostInc => "++",
                    _ => "--",
                };
                let (target, ty) = self.lvalue(inner, None, line, sym)?;
                if !ty.is_scalar() {
                    return Err(err(
                        Tag::D_OP_ARITH,
                        line,
                        format!("operator {} requires an operand of arithmetic type", sym),
                    ));
                }
                let delta = if matches!(op, UnOp::PreInc | UnOp::PostInc) {
                    1
                } else {
                    -1
                };
                Ok(mk(
                    CKind::IncDec {
                        target,
                        pre: matches!(op, UnOp::PreInc | UnOp::PreDec),
                        delta,
                    },
                    ty,
                ))
            }
            UnOp::Deref if self.translated_ptr(inner)? => {
                let v = self.expr(inner)?;
                Ok(match v.ty {
                    Type::Translated { to, id, .. } => CExpr {
                        ty: Type::Translated { to, id, ptr: false },
                        ..v
                    },
                    _ => v,
                })
            }
            UnOp::Deref => {
                let e = Expr::new(ExprKind::Unary(UnOp::Deref, Box::new(inner.clone())), line);
                match self.place(&e)? {
                    Some(p) => self.load(p, line),
                    None => Err(err(
                        Tag::D_DEREF_NONPTR,
                        line,
                        "cannot dereference non-pointer type",
                    )),
                }
            }
            UnOp::Addr => {
                if matches!(
                    inner.kind,
                    ExprKind::Ident(_) | ExprKind::SelfVar(_) | ExprKind::ThisVar(_)
                ) || matches!(&inner.kind, ExprKind::Index(b, _) if matches!(b.kind, ExprKind::Ident(_) | ExprKind::SelfVar(_)) && self.place(inner)?.is_none())
                {
                    return Err(err(
                        Tag::D_ADDROF_VAR,
                        line,
                        "cannot take address of dynamic variable",
                    ));
                }
                let Some(p) = self.place(inner)? else {
                    return Err(err(
                        Tag::D_ADDROF_LVAL,
                        line,
                        "unacceptable operand for unary & operator",
                    ));
                };
                if p.bits.is_some() {
                    return Err(err(
                        Tag::D_ADDROF_BITFIELD,
                        line,
                        "cannot take address of bit-field",
                    ));
                }
                Ok(CExpr {
                    ty: Type::ptr(p.ty),
                    ..p.addr
                })
            }
            UnOp::Plus | UnOp::Neg | UnOp::BitNot | UnOp::Not => {
                let v = self.expr(inner)?;
                let sym = match op {
                    UnOp::Plus => "+",
                    UnOp::Neg => "-",
                    UnOp::BitNot => "~",
                    _ => "!",
                };
                if op == UnOp::Not {
                    if !v.ty.is_scalar() {
                        return Err(err(
                            Tag::D_OP_SCALAR,
                            line,
                            "operator ! requires an operand of scalar type",
                        ));
                    }
                    return Ok(fold(mk(
                        CKind::Unary(UnaryOp::LogNot, Box::new(v)),
                        int_ty(types::INT),
                    )));
                }
                let Some(it) = v.ty.as_int() else {
                    let what = if op == UnOp::BitNot {
                        "integral"
                    } else {
                        "arithmetic"
                    };
                    return Err(err(
                        Tag::D_OP_INT,
                        line,
                        format!("operator {} requires an operand of {} type", sym, what),
                    ));
                };
                let ty = int_ty(types::promote(it));
                match op {
                    UnOp::Plus => Ok(CExpr { ty, ..v }),
                    UnOp::Neg => Ok(fold(mk(CKind::Unary(UnaryOp::Neg, Box::new(v)), ty))),
                    _ => Ok(fold(mk(CKind::Unary(UnaryOp::BitNot, Box::new(v)), ty))),
                }
            }
        }
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, line: u32) -> Result<CExpr, CompileError> {
        let mk = |kind: CKind, ty: Type| CExpr { kind, ty, line };
        let l = self.expr(a)?;
        let r = self.expr(b)?;
        match op {
            BinOp::LogAnd | BinOp::LogOr | BinOp::LogXor => {
                if !l.ty.is_scalar() || !r.ty.is_scalar() {
                    return Err(err(
                        Tag::D_OP_SCALAR,
                        line,
                        format!("operator {} requires operands of scalar type", op.symbol()),
                    ));
                }
                let lop = match op {
                    BinOp::LogAnd => LogOp::And,
                    BinOp::LogOr => LogOp::Or,
                    _ => LogOp::Xor,
                };
                Ok(fold(mk(
                    CKind::Logical(lop, Box::new(l), Box::new(r)),
                    int_ty(types::INT),
                )))
            }
            _ if op.is_comparison() => {
                let cop = match op {
                    BinOp::Eq => CmpOp::Eq,
                    BinOp::Ne => CmpOp::Ne,
                    BinOp::Lt => CmpOp::Lt,
                    BinOp::Le => CmpOp::Le,
                    BinOp::Gt => CmpOp::Gt,
                    _ => CmpOp::Ge,
                };
                match (&l.ty, &r.ty) {
                    (Type::String, Type::String) => Ok(fold(mk(
                        CKind::StrCmp(cop, Box::new(l), Box::new(r)),
                        int_ty(types::INT),
                    ))),
                    (x, y) if x.is_scalar() && y.is_scalar() => {
                        let t =
                            usual_arith(x.as_int().expect("scalar"), y.as_int().expect("scalar"));
                        Ok(fold(mk(
                            CKind::Cmp(cop, Box::new(l), Box::new(r), t.signed),
                            int_ty(types::INT),
                        )))
                    }
                    (x, y) => Err(err(
                        Tag::D_OP_INCOMPAT,
                        line,
                        format!(
                            "operands have incompatible types: \"{}\" {} \"{}\"",
                            x,
                            op.symbol(),
                            y
                        ),
                    )),
                }
            }
            _ => {
                let aop = arith_of(op);
                // Pointer arithmetic is scaled by the size of what the
                // pointer points to; arrays are pointers to their first
                // element here.
                let lp = l.ty.pointee().cloned();
                let rp = r.ty.pointee().cloned();
                match (op, &lp, &rp) {
                    (BinOp::Add | BinOp::Sub, Some(elem), None) if r.ty.is_int() => {
                        let size = self.elem_size(elem, line)?;
                        return Ok(self.ptr_add(l, r, size, elem.clone(), op == BinOp::Sub, line));
                    }
                    (BinOp::Add, None, Some(elem)) if l.ty.is_int() => {
                        let size = self.elem_size(elem, line)?;
                        return Ok(self.ptr_add(r, l, size, elem.clone(), false, line));
                    }
                    (BinOp::Sub, Some(a), Some(b)) => {
                        let (sa, sb) = (self.elem_size(a, line)?, self.elem_size(b, line)?);
                        if a.resolved() != b.resolved() || sa != sb {
                            return Err(err(
                                Tag::D_OP_INCOMPAT,
                                line,
                                format!(
                                    "operands have incompatible types: \"{}\" - \"{}\"",
                                    l.ty, r.ty
                                ),
                            ));
                        }
                        let diff_ty = int_ty(types::PTRDIFF_T);
                        let l = CExpr {
                            ty: diff_ty.clone(),
                            ..l
                        };
                        let r = CExpr {
                            ty: diff_ty.clone(),
                            ..r
                        };
                        let diff = fold(mk(
                            CKind::Arith(ArithOp::Sub, Box::new(l), Box::new(r)),
                            diff_ty.clone(),
                        ));
                        if sa <= 1 {
                            return Ok(diff);
                        }
                        let n = mk(CKind::Int(sa as i64), diff_ty.clone());
                        return Ok(fold(mk(
                            CKind::Arith(ArithOp::Div, Box::new(diff), Box::new(n)),
                            diff_ty,
                        )));
                    }
                    _ if lp.is_some() || rp.is_some() => {
                        let what =
                            if matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div) {
                                "arithmetic"
                            } else {
                                "integral"
                            };
                        let tag = if what == "arithmetic" {
                            Tag::D_OP_ARITH
                        } else {
                            Tag::D_OP_INT
                        };
                        return Err(err(
                            tag,
                            line,
                            format!(
                                "operator {} requires operands of {} type",
                                op.symbol(),
                                what
                            ),
                        ));
                    }
                    _ => {}
                }
                let (Some(x), Some(y)) = (l.ty.as_int(), r.ty.as_int()) else {
                    let what = if matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div) {
                        "arithmetic"
                    } else {
                        "integral"
                    };
                    return Err(err(
                        Tag::D_OP_ARITH,
                        line,
                        format!(
                            "operator {} requires operands of {} type",
                            op.symbol(),
                            what
                        ),
                    ));
                };
                let ty = if matches!(op, BinOp::Shl | BinOp::Shr) {
                    types::promote(x)
                } else {
                    usual_arith(x, y)
                };
                let e = mk(CKind::Arith(aop, Box::new(l), Box::new(r)), int_ty(ty));
                if matches!(aop, ArithOp::Div | ArithOp::Mod) {
                    if let CKind::Arith(_, _, ref rr) = e.kind {
                        if matches!(rr.kind, CKind::Int(0)) {
                            return Err(err(
                                Tag::D_DIV_ZERO,
                                line,
                                "expression contains division by zero",
                            ));
                        }
                    }
                }
                Ok(fold(e))
            }
        }
    }

    /// Resolves an assignable expression. For a variable not yet known,
    /// `declare` gives the type to declare it with.
    fn lvalue(
        &mut self,
        e: &Expr,
        declare: Option<&Type>,
        line: u32,
        op: &str,
    ) -> Result<(LValue, Type), CompileError> {
        let decl_ty = |t: &Type| -> Type {
            match t {
                Type::Int(i) => Type::Int(*i),
                other => other.clone(),
            }
        };
        match &e.kind {
            ExprKind::Ident(name) => {
                if builtin(name).is_some()
                    || (name.starts_with("arg")
                        && name.len() == 4
                        && name.as_bytes()[3].is_ascii_digit())
                {
                    return Err(err(
                        Tag::D_OP_WRITE,
                        line,
                        format!("operator {} can only be applied to a writable variable", op),
                    ));
                }
                if let Some(i) = Symbols::find(&self.syms.globals, name) {
                    return Ok((
                        LValue::Var(VarRef::Global(i)),
                        self.syms.globals[i].ty.clone(),
                    ));
                }
                if self.syms.arrays.iter().any(|a| &a.name == name) {
                    return Err(err(
                        Tag::D_ARR_BADREF,
                        line,
                        format!("{} is an associative array and must be indexed", name),
                    ));
                }
                match declare {
                    Some(t) => {
                        self.syms.globals.push(VarInfo {
                            name: name.clone(),
                            ty: decl_ty(t),
                        });
                        Ok((
                            LValue::Var(VarRef::Global(self.syms.globals.len() - 1)),
                            decl_ty(t),
                        ))
                    }
                    None => Err(err(
                        Tag::D_IDENT_UNDEF,
                        line,
                        format!("failed to resolve {}: Unknown variable name", name),
                    )),
                }
            }
            ExprKind::SelfVar(name) | ExprKind::ThisVar(name) => {
                let is_self = matches!(e.kind, ExprKind::SelfVar(_));
                let list = if is_self {
                    &mut self.syms.threads
                } else {
                    &mut self.syms.locals
                };
                let mkref = |i| {
                    if is_self {
                        VarRef::Thread(i)
                    } else {
                        VarRef::Local(i)
                    }
                };
                if let Some(i) = Symbols::find(list, name) {
                    return Ok((LValue::Var(mkref(i)), list[i].ty.clone()));
                }
                match declare {
                    Some(t) => {
                        list.push(VarInfo {
                            name: name.clone(),
                            ty: decl_ty(t),
                        });
                        Ok((LValue::Var(mkref(list.len() - 1)), decl_ty(t)))
                    }
                    None => {
                        // ++/-- on an unknown thread or clause variable
                        // declares it as an int64, as DTrace does.
                        let t = int_ty(types::INT64);
                        list.push(VarInfo {
                            name: name.clone(),
                            ty: t.clone(),
                        });
                        Ok((LValue::Var(mkref(list.len() - 1)), t))
                    }
                }
            }
            ExprKind::Index(base, idx) => {
                let thread_name;
                let name = match &base.kind {
                    ExprKind::Ident(name) => name,
                    ExprKind::SelfVar(n) if !self.is_scalar_var(base) => {
                        thread_name = format!("self->{}", n);
                        &thread_name
                    }
                    ExprKind::ThisVar(n) => {
                        return Err(err(
                            Tag::D_ARR_LOCAL,
                            line,
                            format!(
                                "local variables may not be used as associative arrays: {}",
                                n
                            ),
                        ))
                    }
                    _ => {
                        return Err(err(
                            Tag::D_OP_LVAL,
                            line,
                            format!("operator {} requires a modifiable lvalue as an operand", op),
                        ))
                    }
                };
                if name == "args" {
                    return Err(err(
                        Tag::D_OP_WRITE,
                        line,
                        format!("operator {} can only be applied to a writable variable", op),
                    ));
                }
                let mut keys = Vec::new();
                if name.starts_with("self->") {
                    keys.push(thread_key(line));
                }
                for k in idx {
                    keys.push(self.expr(k)?);
                }
                match self.syms.arrays.iter().position(|a| &a.name == name) {
                    Some(id) => {
                        self.check_keys(id, &keys, line)?;
                        Ok((LValue::Elem(id, keys), self.syms.arrays[id].value.clone()))
                    }
                    None => {
                        if Symbols::find(&self.syms.globals, name).is_some() {
                            return Err(err(
                                Tag::D_IDENT_BADREF,
                                line,
                                format!("{} is not an associative array", name),
                            ));
                        }
                        let t = match declare {
                            Some(t) => decl_ty(t),
                            None => int_ty(types::INT64),
                        };
                        for k in &keys {
                            if !(k.ty.is_scalar() || k.ty.is_string()) {
                                return Err(err(
                                    Tag::D_KEY_TYPE,
                                    line,
                                    format!("key of type {} is not supported", k.ty),
                                ));
                            }
                        }
                        self.syms.arrays.push(ArrayInfo {
                            name: name.clone(),
                            keys: keys.iter().map(|k| key_type(&k.ty)).collect(),
                            value: t.clone(),
                        });
                        Ok((LValue::Elem(self.syms.arrays.len() - 1, keys), t))
                    }
                }
            }
            _ => Err(err(
                Tag::D_OP_LVAL,
                line,
                format!("operator {} requires a modifiable lvalue as an operand", op),
            )),
        }
    }

    /// True if `e` is a `self->` variable already known as a scalar.
    fn is_scalar_var(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::SelfVar(n) => Symbols::find(&self.syms.threads, n).is_some(),
            _ => false,
        }
    }

    /// `self->name[keys]` read: an element of the thread's own associative
    /// array (a global array keyed by thread id first).
    fn thread_elem(&mut self, name: &str, idx: &[Expr], line: u32) -> Result<CExpr, CompileError> {
        let full = format!("self->{}", name);
        let mut keys = vec![thread_key(line)];
        for k in idx {
            keys.push(self.expr(k)?);
        }
        match self.syms.arrays.iter().position(|a| a.name == full) {
            Some(id) => {
                self.check_keys(id, &keys, line)?;
                Ok(CExpr {
                    kind: CKind::Elem(id, keys),
                    ty: self.syms.arrays[id].value.clone(),
                    line,
                })
            }
            None => Err(err(
                Tag::D_IDENT_UNDEF,
                line,
                format!("failed to resolve {}: Unknown variable name", full),
            )),
        }
    }

    fn check_keys(&self, id: ArrayId, keys: &[CExpr], line: u32) -> Result<(), CompileError> {
        let a = &self.syms.arrays[id];
        // A thread-local array's first key (the thread) is not written.
        let hidden = usize::from(a.name.starts_with("self->"));
        if a.keys.len() != keys.len() {
            let (got, want) = (keys.len() - hidden, a.keys.len() - hidden);
            return Err(err(
                Tag::D_ARR_BADREF,
                line,
                format!(
                    "{}[ ] prototype mismatch: {} arg{} passed, {} expected",
                    a.name,
                    got,
                    if got == 1 { "" } else { "s" },
                    want
                ),
            ));
        }
        for (i, (k, t)) in keys.iter().zip(&a.keys).enumerate().skip(hidden) {
            let i = i - hidden;
            if k.ty.is_string() != t.is_string() || !(k.ty.is_scalar() || k.ty.is_string()) {
                return Err(err(
                    Tag::D_ARGS_TYPE,
                    line,
                    format!("{}[ ] argument #{} is incompatible with prototype:\n\tprototype: {}\n\t argument: {}", a.name, i + 1, t, k.ty),
                ));
            }
        }
        Ok(())
    }

    fn assign(
        &mut self,
        op: Option<BinOp>,
        lhs: &Expr,
        rhs: &Expr,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let sym = match op {
            None => "=".to_string(),
            Some(o) => format!("{}=", o.symbol()),
        };
        let v = self.expr(rhs)?;
        if v.ty == Type::Void {
            return Err(err(
                Tag::D_OP_VFPTR,
                line,
                format!("operator {} cannot be applied to a void expression", sym),
            ));
        }
        let (target, ty) = self.lvalue(
            lhs,
            if op.is_none() { Some(&v.ty) } else { None },
            line,
            &sym,
        )?;
        match op {
            None => {
                if !ty.compatible(&v.ty) {
                    return Err(err(
                        Tag::D_OP_INCOMPAT,
                        line,
                        format!(
                            "operands have incompatible types: \"{}\" = \"{}\"",
                            ty, v.ty
                        ),
                    ));
                }
                Ok(CExpr {
                    kind: CKind::Assign(target, None, Box::new(v)),
                    ty,
                    line,
                })
            }
            Some(o) => {
                if !ty.is_scalar() || !v.ty.is_scalar() {
                    return Err(err(
                        Tag::D_OP_ARITH,
                        line,
                        format!("operator {} requires operands of arithmetic type", sym),
                    ));
                }
                let aop = arith_of(o);
                if matches!(aop, ArithOp::Div | ArithOp::Mod) && matches!(v.kind, CKind::Int(0)) {
                    return Err(err(
                        Tag::D_DIV_ZERO,
                        line,
                        "expression contains division by zero",
                    ));
                }
                Ok(CExpr {
                    kind: CKind::Assign(target, Some(aop), Box::new(v)),
                    ty,
                    line,
                })
            }
        }
    }

    fn index(&mut self, base: &Expr, idx: &[Expr], line: u32) -> Result<CExpr, CompileError> {
        let mk = |kind: CKind, ty: Type| CExpr { kind, ty, line };
        let ExprKind::Ident(name) = &base.kind else {
            return Err(err(
                Tag::D_NOTSUP,
                line,
                "indexing of this expression is not yet supported",
            ));
        };
        if name == "args" {
            return self.args_index(idx, line);
        }
        let mut keys = Vec::new();
        for k in idx {
            keys.push(self.expr(k)?);
        }
        match self.syms.arrays.iter().position(|a| &a.name == name) {
            Some(id) => {
                self.check_keys(id, &keys, line)?;
                Ok(mk(
                    CKind::Elem(id, keys),
                    self.syms.arrays[id].value.clone(),
                ))
            }
            None => Err(err(
                Tag::D_IDENT_UNDEF,
                line,
                format!("failed to resolve {}: Unknown variable name", name),
            )),
        }
    }

    fn call(&mut self, name: &str, args: &[Expr], line: u32) -> Result<CExpr, CompileError> {
        let mk = |kind: CKind, ty: Type| CExpr { kind, ty, line };
        match name {
            "copyinstr" => {
                if args.is_empty() || args.len() > 2 {
                    return Err(self.proto_len("copyinstr", args.len(), "1 or 2", line));
                }
                let a = self.expr(&args[0])?;
                if !a.ty.is_scalar() {
                    return Err(err(
                        Tag::D_PROTO_ARG,
                        line,
                        format!("copyinstr( ) argument #1 is incompatible with prototype:\n\tprototype: uintptr_t\n\t argument: {}", a.ty),
                    ));
                }
                let n = match args.get(1) {
                    Some(x) => {
                        let v = self.expr(x)?;
                        if !v.ty.is_scalar() {
                            return Err(err(
                                Tag::D_PROTO_ARG,
                                line,
                                format!("copyinstr( ) argument #2 is incompatible with prototype:\n\tprototype: size_t\n\t argument: {}", v.ty),
                            ));
                        }
                        Some(Box::new(v))
                    }
                    None => None,
                };
                Ok(mk(CKind::Copyinstr(Box::new(a), n), Type::String))
            }
            "stringof" => {
                if args.len() != 1 {
                    return Err(self.proto_len("stringof", args.len(), "1", line));
                }
                let e = Expr::new(ExprKind::Stringof(Box::new(args[0].clone())), line);
                self.expr(&e)
            }
            "strlen" => {
                if args.len() != 1 {
                    return Err(self.proto_len("strlen", args.len(), "1", line));
                }
                let s = self.expr(&args[0])?;
                if !s.ty.is_string() {
                    return Err(err(
                        Tag::D_PROTO_ARG,
                        line,
                        format!("strlen( ) argument #1 is incompatible with prototype:\n\tprototype: string\n\t argument: {}", s.ty),
                    ));
                }
                if let CKind::Str(ref b) = s.kind {
                    let n = b.iter().position(|&c| c == 0).unwrap_or(b.len());
                    return Ok(mk(
                        CKind::Int(n as i64),
                        int_ty(IntType::new(8, false, "size_t")),
                    ));
                }
                Ok(mk(
                    CKind::Strlen(Box::new(s)),
                    int_ty(IntType::new(8, false, "size_t")),
                ))
            }
            "trace" | "printf" | "exit" | "printa" | "clear" | "trunc" => Err(err(
                Tag::D_ACT_SPEC,
                line,
                format!("{}( ) may not be used in an expression", name),
            )),
            _ if is_agg_func(name) => Err(err(
                Tag::D_AGG_FUNC,
                line,
                format!(
                    "{}( ) may only be used as the value of an aggregation",
                    name
                ),
            )),
            _ if KNOWN_UNSUPPORTED.contains(&name) => Err(err(
                Tag::D_NOTSUP,
                line,
                format!("{}( ) is not yet supported", name),
            )),
            _ => Err(err(
                Tag::D_FUNC_UNDEF,
                line,
                format!("failed to resolve {}: Unknown function name", name),
            )),
        }
    }
}

/// The hidden first key of a thread-local associative array: the thread.
fn thread_key(line: u32) -> CExpr {
    CExpr {
        kind: CKind::Builtin(Builtin::Tid),
        ty: int_ty(types::ID_T),
        line,
    }
}

/// The stored type of a key: small integers widen to 64 bits so that
/// tuples from different uses agree.
fn key_type(t: &Type) -> Type {
    t.clone()
}

fn arith_of(op: BinOp) -> ArithOp {
    match op {
        BinOp::Add => ArithOp::Add,
        BinOp::Sub => ArithOp::Sub,
        BinOp::Mul => ArithOp::Mul,
        BinOp::Div => ArithOp::Div,
        BinOp::Mod => ArithOp::Mod,
        BinOp::Shl => ArithOp::Shl,
        BinOp::Shr => ArithOp::Shr,
        BinOp::BitAnd => ArithOp::And,
        BinOp::BitOr => ArithOp::Or,
        _ => ArithOp::Xor,
    }
}

pub fn is_agg_func(name: &str) -> bool {
    matches!(
        name,
        "count"
            | "sum"
            | "min"
            | "max"
            | "avg"
            | "stddev"
            | "quantize"
            | "lquantize"
            | "llquantize"
    )
}

fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(x) if x.is_ascii_alphabetic() || x == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// Parses a C integer literal (decimal, 0x hex, 0 octal, optional sign).
pub fn parse_c_integer(s: &str) -> Option<i64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if body.is_empty() {
        return None;
    }
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else if body.len() > 1 && body.starts_with('0') {
        u64::from_str_radix(&body[1..], 8).ok()?
    } else {
        body.parse::<u64>().ok()?
    };
    Some(if neg {
        (v as i64).wrapping_neg()
    } else {
        v as i64
    })
}

/// C's type for an integer constant.
fn int_const_type(v: u64, unsigned: bool, long: bool, radix_not_decimal: bool) -> IntType {
    if !long {
        if !unsigned && v <= i32::MAX as u64 {
            return types::INT;
        }
        if (unsigned || radix_not_decimal) && v <= u32::MAX as u64 {
            return types::UINT;
        }
    }
    if !unsigned && v <= i64::MAX as u64 {
        return types::LONG;
    }
    types::ULONG
}

/// True for the names of built-in variables (`pid`, `curthread`, `arg0`,
/// `args`, ...), which are never type names.
pub fn is_builtin_name(name: &str) -> bool {
    builtin(name).is_some()
        || matches!(name, "curthread" | "args" | "NULL")
        || (name.len() == 4 && name.starts_with("arg") && name.as_bytes()[3].is_ascii_digit())
}

/// Built-in variables and their types.
fn builtin(name: &str) -> Option<(Builtin, Type)> {
    use Builtin::*;
    let s = Type::String;
    Some(match name {
        "pid" => (Pid, int_ty(types::PID_T)),
        "tid" => (Tid, int_ty(types::ID_T)),
        "ppid" => (Ppid, int_ty(types::PID_T)),
        "uid" => (Uid, int_ty(types::UID_T)),
        "gid" => (Gid, int_ty(types::GID_T)),
        "execname" => (Execname, s),
        "timestamp" => (Timestamp, int_ty(types::UINT64)),
        "vtimestamp" => (Vtimestamp, int_ty(types::UINT64)),
        "walltimestamp" => (Walltimestamp, int_ty(types::INT64)),
        "cpu" => (Cpu, int_ty(types::PROCESSORID_T)),
        "errno" => (Errno, int_ty(types::INT)),
        "probeprov" => (Probeprov, s),
        "probemod" => (Probemod, s),
        "probefunc" => (Probefunc, s),
        "probename" => (Probename, s),
        "id" => (Id, int_ty(types::UINT)),
        "epid" => (Epid, int_ty(types::UINT)),
        "curthread" => (Curthread, Type::Ptr(Box::new(Type::Void))),
        _ => return None,
    })
}

/// Constant folding of integer operations whose operands are constants.
fn fold(e: CExpr) -> CExpr {
    let it = match e.ty.as_int() {
        Some(t) => t,
        None => return e,
    };
    let v = match &e.kind {
        CKind::Unary(op, a) => match (op, &a.kind) {
            (UnaryOp::Neg, CKind::Int(x)) => Some(x.wrapping_neg()),
            (UnaryOp::BitNot, CKind::Int(x)) => Some(!x),
            (UnaryOp::LogNot, CKind::Int(x)) => Some(i64::from(*x == 0)),
            _ => None,
        },
        CKind::Arith(op, a, b) => match (&a.kind, &b.kind) {
            (CKind::Int(x), CKind::Int(y)) => {
                let (x, y) = (*x, *y);
                let signed = it.signed;
                match op {
                    ArithOp::Add => Some(x.wrapping_add(y)),
                    ArithOp::Sub => Some(x.wrapping_sub(y)),
                    ArithOp::Mul => Some(x.wrapping_mul(y)),
                    ArithOp::Div if y != 0 => Some(if signed {
                        x.wrapping_div(y)
                    } else {
                        ((x as u64) / (y as u64)) as i64
                    }),
                    ArithOp::Mod if y != 0 => Some(if signed {
                        x.wrapping_rem(y)
                    } else {
                        ((x as u64) % (y as u64)) as i64
                    }),
                    ArithOp::Shl => Some(x.wrapping_shl(y as u32)),
                    ArithOp::Shr => Some(if signed {
                        x.wrapping_shr(y as u32)
                    } else {
                        ((x as u64).wrapping_shr(y as u32)) as i64
                    }),
                    ArithOp::And => Some(x & y),
                    ArithOp::Or => Some(x | y),
                    ArithOp::Xor => Some(x ^ y),
                    _ => None,
                }
            }
            _ => None,
        },
        CKind::Cmp(op, a, b, signed) => match (&a.kind, &b.kind) {
            (CKind::Int(x), CKind::Int(y)) => {
                let ord = if *signed {
                    x.cmp(y)
                } else {
                    (*x as u64).cmp(&(*y as u64))
                };
                Some(i64::from(cmp_holds(*op, ord)))
            }
            _ => None,
        },
        CKind::StrCmp(op, a, b) => match (&a.kind, &b.kind) {
            (CKind::Str(x), CKind::Str(y)) => Some(i64::from(cmp_holds(*op, cstr(x).cmp(cstr(y))))),
            _ => None,
        },
        CKind::Logical(op, a, b) => match (&a.kind, &b.kind) {
            (CKind::Int(x), CKind::Int(y)) => {
                let (x, y) = (*x != 0, *y != 0);
                Some(i64::from(match op {
                    LogOp::And => x && y,
                    LogOp::Or => x || y,
                    LogOp::Xor => x != y,
                }))
            }
            _ => None,
        },
        CKind::Ternary(c, a, b) => match (&c.kind, &a.kind, &b.kind) {
            (CKind::Int(c), CKind::Int(x), CKind::Int(y)) => Some(if *c != 0 { *x } else { *y }),
            _ => None,
        },
        _ => None,
    };
    match v {
        Some(v) => CExpr {
            kind: CKind::Int(convert_const(v, it)),
            ty: e.ty,
            line: e.line,
        },
        None => e,
    }
}

fn cstr(b: &[u8]) -> &[u8] {
    &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())]
}

pub fn cmp_holds(op: CmpOp, ord: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        CmpOp::Eq => ord == Equal,
        CmpOp::Ne => ord != Equal,
        CmpOp::Lt => ord == Less,
        CmpOp::Le => ord != Greater,
        CmpOp::Gt => ord == Greater,
        CmpOp::Ge => ord != Less,
    }
}

/// Checks a parsed program against `syms` (updated in place).
pub fn check(
    prog: &ast::Program,
    pspec_macros: &[String],
    syms: &mut Symbols,
    env: &MacroEnv,
    next_clause: &mut usize,
) -> Result<Checked, CompileError> {
    check_with(prog, pspec_macros, syms, env, next_clause, &mut NoProbes)
}

/// `check`, with `args[]` typed from what `probes` says of the probes
/// each clause's descriptions match.
pub fn check_with(
    prog: &ast::Program,
    pspec_macros: &[String],
    syms: &mut Symbols,
    env: &MacroEnv,
    next_clause: &mut usize,
    probes: &mut dyn ProbeContext,
) -> Result<Checked, CompileError> {
    Checker::new(syms, env, next_clause, probes).program(prog, pspec_macros)
}
