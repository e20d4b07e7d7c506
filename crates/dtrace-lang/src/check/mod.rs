//! Semantic checking: resolves names (built-ins, macros, variables of each
//! scope, associative arrays, aggregations), infers variable types from
//! their first assignment as D does, type-checks every operator, action and
//! subroutine, and produces the checked clauses of `ir`.
//!
//! This file: programs, clauses and statements; `expr` expressions and
//! their operators' typing. By concern: `scope` names, variables and assignment; `decl` written types
//! and declarations; `place` objects in memory; `fold` constants;
//! `funcs` the table of built-in functions, `actions`, `strings` and
//! `subrs` their lowerings, `format` printf formats, `symbols` values printed
//! symbolically, `spec` speculations; `xlate` translators; `args`
//! `args[]`, `regs` `uregs[]`, `dpath` `d_path()`'s BTF offsets.
//! [`Symbols`] carries variables, aggregations, inlines, translators and
//! the type table across the programs of one handle.

use std::collections::BTreeSet;

mod actions;
mod args;
mod attrs;
mod decl;
mod dpath;
mod expr;
mod fold;
mod format;
mod funcs;
mod place;
mod regs;
mod scope;
mod spec;
mod strings;
mod subrs;
mod symbols;
mod xlate;

use expr::{arith_of, key_type, thread_key};

pub use fold::{cmp_holds, convert_const, parse_c_integer};
use fold::{fold, int_const_type};

pub use args::{ArgTypes, NoProbes, ProbeArg, ProbeContext};
pub use funcs::{introduced, version, LATEST_VERSION};

use crate::ast::{self, BinOp, Expr, ExprKind, Stmt, UnOp};
use crate::error::{CompileError, Tag};
use crate::ir::*;
use crate::pdesc::ProbeDesc;
use crate::printf::{ConvKind, Count, Format, FormatError};
use crate::types::{self, IntType, TagKind, Type, TypeTable};

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
    /// Inlines with parameters (`fds[int fd]`).
    pub inline_fns: Vec<xlate::InlineFn>,
    /// Kernel variables declared `extern`: named without a backquote,
    /// of the declared type.
    pub externs: Vec<VarInfo>,
    /// The stability attributes of inlines, where they are below D's
    /// default: their value's when defined.
    pub inline_attrs: Vec<(String, crate::attr::Attr)>,
}

/// How many variables, arrays and aggregations there were at a point
/// (see [`Symbols::rewind`]).
struct SymMark {
    globals: usize,
    threads: usize,
    locals: usize,
    arrays: usize,
    aggs: usize,
}

impl Symbols {
    fn mark(&self) -> SymMark {
        SymMark {
            globals: self.globals.len(),
            threads: self.threads.len(),
            locals: self.locals.len(),
            arrays: self.arrays.len(),
            aggs: self.aggs.len(),
        }
    }

    /// Forgets the variables, arrays and aggregations made since `m`.
    fn rewind(&mut self, m: &SymMark) {
        self.globals.truncate(m.globals);
        self.threads.truncate(m.threads);
        self.locals.truncate(m.locals);
        self.arrays.truncate(m.arrays);
        self.aggs.truncate(m.aggs);
    }

    fn find(list: &[VarInfo], name: &str) -> Option<usize> {
        list.iter().position(|v| v.name == name)
    }

    pub fn agg_by_name(&self, name: &str) -> Option<AggId> {
        self.aggs.iter().position(|a| a.name == name)
    }

    /// Every variable: globals, thread-locals, clause-locals and the
    /// values of associative arrays (named by the array).
    pub fn all_vars(&self) -> impl Iterator<Item = VarInfo> + '_ {
        self.globals
            .iter()
            .chain(&self.threads)
            .chain(&self.locals)
            .cloned()
            .chain(self.arrays.iter().map(|a| VarInfo {
                name: a.name.clone(),
                ty: a.value.clone(),
            }))
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
    /// The `empty` option: a program with nothing in it compiles (to no
    /// clauses) rather than failing with D_EMPTY.
    pub empty: bool,
    /// The `pspec` option: ambiguous text at the outer level is a probe
    /// description, not a declaration.
    pub pspec: bool,
    /// The `argref` option: the last script argument need not be
    /// referenced.
    pub argref: bool,
    /// The `version` option, as `funcs::version` numbers it: the
    /// built-in identifiers of later versions are not there (None: this
    /// compiler's own).
    pub version: Option<u32>,
    /// The `amin` option: the lowest stability attributes the program
    /// may rely on (D_ATTR_MIN below them).
    pub amin: Option<crate::attr::Attr>,
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
    /// Provider definitions (`provider name { probe ...; };`).
    pub providers: Vec<ProviderDef>,
}

/// A provider definition, its probes' parameter types resolved: what
/// `dtrace -h` writes a header for.
#[derive(Clone, Debug, PartialEq)]
pub struct ProviderDef {
    pub name: String,
    pub probes: Vec<ProbeDef>,
    pub line: u32,
    /// `#pragma D attributes` of its parts: (part, name stability, data
    /// stability, dependency class).
    pub attributes: Vec<(String, String, String, String)>,
}

/// A probe of a provider definition: its name as D writes it
/// (`query-start`) and its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeDef {
    pub name: String,
    pub params: Vec<ProbeParam>,
    pub line: u32,
}

/// A probe parameter: its C type (`char *`; a D `string` is passed as
/// a `char *`), its type as the definition declares it (`string`), the
/// type `args[]` has through a translator if the definition gives one
/// (`probe p(char *a) : (string a)`), its size in bytes and whether it
/// is a signed integer.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeParam {
    pub c_type: String,
    pub d_type: String,
    pub xlate: Option<String>,
    pub size: u64,
    pub signed: bool,
}

pub struct Checker<'a> {
    syms: &'a mut Symbols,
    env: &'a MacroEnv,
    referenced: BTreeSet<usize>,
    /// Next program-wide clause number.
    next_clause: &'a mut usize,
    /// Action counter within the current clause.
    action: u32,
    /// Whether the clause has a speculate() before this statement (the
    /// actions refused on Linux are refused after it as DTrace refuses
    /// any destructive action there).
    speculated: bool,
    /// The enumerators of the enum being defined, so far: a later one's
    /// value may name them.
    enum_so_far: Vec<(String, i64)>,
    /// Translator parameters in scope while a member is translated.
    xlate_scope: Vec<(String, CExpr)>,
    /// What the probes of the clause being checked declare (`args[]`).
    probes: &'a mut dyn ProbeContext,
    clause_args: args::ClauseArgs,
    /// The error of an expression the checker accepted for the operators
    /// around it but cannot compile (an action called inside an
    /// expression, an aggregation's value): DTrace reports it at code
    /// generation, after every type rule of the statement has had its
    /// say, so it is reported when the statement is done ([`Self::settle`]).
    deferred: Option<CompileError>,
    /// The lowest stability attributes of what the clause (or the inline
    /// or translator) being checked has used so far (see `attrs`).
    attr: crate::attr::Attr,
    /// Above 0 while a translator's member or an inline's value is
    /// checked again where it is used: its uses were counted already.
    attr_quiet: u32,
    /// The attributes of the clause's descriptions and their providers.
    clause_attrs: Option<crate::attr::DescAttr>,
    /// `#pragma D attributes A/B/C name` of the program: by name.
    pragma_attrs: Vec<(String, crate::attr::Attr)>,
    /// The `amin` option where the checker is: a pragma sets it for
    /// the declarations and inlines after it, as DTrace reads them...
    amin_here: Option<crate::attr::Attr>,
    /// ...and its last value for every clause, which DTrace checks once
    /// the whole program is read.
    amin_clauses: Option<crate::attr::Attr>,
}

fn err(tag: Tag, line: u32, msg: impl Into<String>) -> CompileError {
    CompileError::new(tag, line, msg)
}

fn int_ty(t: IntType) -> Type {
    Type::Int(t)
}

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
            speculated: false,
            enum_so_far: Vec::new(),
            xlate_scope: Vec::new(),
            probes,
            clause_args: args::ClauseArgs::Outside,
            deferred: None,
            attr: crate::attr::Attr::STABLE,
            attr_quiet: 0,
            clause_attrs: None,
            pragma_attrs: Vec::new(),
            amin_here: env.amin,
            amin_clauses: env.amin,
        }
    }

    /// Keeps the first error found for code generation (see `deferred`).
    fn defer(&mut self, e: CompileError) {
        self.deferred.get_or_insert(e);
    }

    /// Reports the error kept for code generation, if any.
    fn settle(&mut self) -> Result<(), CompileError> {
        match self.deferred.take() {
            Some(e) => Err(e),
            None => Ok(()),
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
        let _version =
            funcs::VersionScope::enter(self.env.version.unwrap_or(funcs::LATEST_VERSION));
        // An identifier's attributes are what its pragma says, wherever
        // the pragma is.
        for item in &prog.items {
            match item {
                ast::Item::IdentAttributes { name, attr, .. } => {
                    self.pragma_attrs.retain(|(n, _)| n != name);
                    self.pragma_attrs.push((name.clone(), *attr));
                }
                ast::Item::Option { name, value, .. } if name == "amin" => {
                    // (A bad value is refused with the other pragmas.)
                    if let Some(a) = value.as_deref().and_then(crate::attr::Attr::parse) {
                        self.amin_clauses = Some(a);
                    }
                }
                _ => {}
            }
        }
        for item in &prog.items {
            match item {
                ast::Item::Option { name, value, line } => {
                    if name == "amin" {
                        if let Some(a) = value.as_deref().and_then(crate::attr::Attr::parse) {
                            self.amin_here = Some(a);
                        }
                    }
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
                    params,
                    value,
                    line,
                } => {
                    if params.is_empty() {
                        self.inline(ty, name, value, *line)?
                    } else {
                        self.inline_fn(ty, name, params, value, *line)?
                    }
                }
                ast::Item::Translator {
                    to,
                    from,
                    param,
                    members,
                    line,
                    end_line,
                } => self.translator(to, from, param, members, *line, *end_line)?,
                ast::Item::Clause(c) => {
                    let cc = self.clause(c)?;
                    out.clauses.push(cc);
                }
                ast::Item::Provider(p) => out.providers.push(self.provider(p)?),
                ast::Item::Attributes { .. } | ast::Item::IdentAttributes { .. } => {}
            }
            self.settle()?;
        }
        // An identifier's attributes name one the program defines.
        for item in &prog.items {
            if let ast::Item::IdentAttributes { name, line, .. } = item {
                let known = Symbols::find(&self.syms.globals, name).is_some()
                    || Symbols::find(&self.syms.externs, name).is_some()
                    || self.syms.inlines.iter().any(|(n, _, _)| n == name)
                    || self.syms.inline_fns.iter().any(|f| &f.name == name)
                    || self.syms.arrays.iter().any(|a| &a.name == name);
                if !known {
                    return Err(err(
                        Tag::D_PRAGMA_UNUSED,
                        *line,
                        "unused #pragma attributes",
                    ));
                }
            }
        }
        // Attributes name a provider the program defines, before or after.
        for item in &prog.items {
            if let ast::Item::Attributes {
                provider,
                part,
                attr,
                ..
            } = item
            {
                if let Some(p) = out.providers.iter_mut().find(|p| &p.name == provider) {
                    p.attributes.retain(|a| &a.0 != part);
                    p.attributes.push((
                        part.clone(),
                        attr.0.clone(),
                        attr.1.clone(),
                        attr.2.clone(),
                    ));
                }
            }
        }
        // As DTrace checks it: the last argument must be referenced (an
        // earlier one need not be), unless argref or defaultargs says.
        let last = self.env.args.len().saturating_sub(1);
        if last > 0 && !self.env.defaultargs && !self.env.argref && !self.referenced.contains(&last)
        {
            return Err(CompileError::no_line(
                Tag::D_MACRO_UNUSED,
                format!(
                    "extraneous argument '{}' (${} is not referenced)",
                    crate::lex::quote_bytes(&self.env.args[last]),
                    last
                ),
            ));
        }
        Ok(out)
    }

    /// A provider definition: each probe's parameters must be integers or
    /// pointers (what a register holds), as a probe passes them.
    fn provider(&mut self, p: &ast::ProviderDecl) -> Result<ProviderDef, CompileError> {
        let mut probes: Vec<ProbeDef> = Vec::new();
        for probe in &p.probes {
            if probes.iter().any(|q| q.name == probe.name) {
                return Err(err(
                    Tag::D_PROV_PRDUP,
                    probe.line,
                    format!("probe {}:{} redeclared", p.name, probe.name),
                ));
            }
            if probe.args.len() > 10 {
                return Err(err(
                    Tag::D_PROV_PRARGLEN,
                    probe.line,
                    format!("probe {}:{} has more than 10 arguments", p.name, probe.name),
                ));
            }
            // The translated types, where there is one for each argument.
            let mut xlated = Vec::new();
            if let Some(x) = &probe.xargs {
                for a in x {
                    xlated.push(self.type_name(a, probe.line)?.to_string());
                }
            }
            let xlated = (xlated.len() == probe.args.len()).then_some(xlated);
            let mut params = Vec::new();
            for (i, a) in probe.args.iter().enumerate() {
                let ty = self.type_name(a, probe.line)?;
                if !ty.is_scalar() && !ty.is_string() {
                    return Err(err(
                        Tag::D_PROV_PRARGTYPE,
                        probe.line,
                        format!(
                            "probe {}:{} argument #{} is of type {}: a probe passes integers, pointers and strings",
                            p.name,
                            probe.name,
                            i + 1,
                            ty
                        ),
                    ));
                }
                let size = self.syms.types.size_of(&ty).unwrap_or(8);
                let signed = matches!(ty.resolved(), Type::Int(t) if t.signed)
                    || matches!(ty.resolved(), Type::Enum(..));
                let (c_type, size) = if ty.is_string() {
                    ("char *".to_string(), 8)
                } else {
                    (ty.to_string(), size)
                };
                let xlate = xlated
                    .as_ref()
                    .and_then(|x| x.get(i))
                    .filter(|x| **x != ty.to_string())
                    .cloned();
                params.push(ProbeParam {
                    c_type,
                    d_type: ty.to_string(),
                    xlate,
                    size,
                    signed,
                });
            }
            probes.push(ProbeDef {
                name: probe.name.clone(),
                params,
                line: probe.line,
            });
        }
        Ok(ProviderDef {
            name: p.name.clone(),
            probes,
            line: p.line,
            attributes: Vec::new(),
        })
    }

    fn declaration(&mut self, d: &ast::Decl) -> Result<(), CompileError> {
        let ty = match self.type_name(&d.ty, d.line) {
            // `extern int a[];`: an array of a size the kernel knows, which
            // D reads no element of by this name.
            Err(e) if d.scope == ast::DeclScope::Extern && e.tag == Tag::D_DECL_ARRNULL => {
                return Ok(())
            }
            Err(mut e) if e.tag == Tag::D_DECL_ARRNULL => {
                e.msg = format!("{}: {}", e.msg, d.name);
                return Err(e);
            }
            other => other?,
        };
        if d.scope == ast::DeclScope::Extern {
            // A kernel function's prototype says nothing D uses; a kernel
            // variable's type is the one its name is read with.
            if !matches!(ty.resolved(), Type::Func(_)) {
                match Symbols::find(&self.syms.externs, &d.name) {
                    Some(i) if !self.syms.externs[i].ty.same_as(&ty) => {
                        return Err(err(
                            Tag::D_DECL_IDRED,
                            d.line,
                            format!("identifier redeclared: {}", d.name),
                        ))
                    }
                    Some(_) => {}
                    None => self.syms.externs.push(VarInfo {
                        name: d.name.clone(),
                        ty,
                    }),
                }
            }
            return Ok(());
        }
        if matches!(ty.resolved(), Type::Func(_)) {
            return Err(err(
                Tag::D_NOTSUP,
                d.line,
                format!("variables of type {} are not yet supported: {}", ty, d.name),
            ));
        }
        // A global of a built-in identifier's name must be what the
        // built-in is (a scalar of its type), as DTrace checks it against
        // the identifier it would name.
        if d.scope == ast::DeclScope::Global {
            if let Some((kind, previous)) = builtin_ident(&d.name) {
                let current = if d.keys.is_some() {
                    "associative array"
                } else {
                    "scalar"
                };
                if kind != current || previous != ty.to_string() {
                    return Err(err(
                        Tag::D_DECL_IDRED,
                        d.line,
                        format!(
                            "identifier redeclared: {}\n\t current: {} {}\n\tprevious: {} {}",
                            d.name, current, ty, kind, previous
                        ),
                    ));
                }
            }
        }
        if ty.is_by_ref() {
            // Structs and unions (and arrays) are stored whole: they need
            // a definition, as in DTrace.
            match self.syms.types.size_of(&ty) {
                Ok(_) => {}
                Err(types::TypeError::TooLarge) => {
                    return Err(err(
                        Tag::D_TYPE_ERR,
                        d.line,
                        format!("type {} is too large", ty),
                    ))
                }
                Err(_) => {
                    return Err(err(
                        Tag::D_DECL_INCOMPLETE,
                        d.line,
                        format!("incomplete struct/union/enum {}: {}", ty, d.name),
                    ))
                }
            }
        }
        if ty == Type::Void {
            return Err(err(
                Tag::D_DECL_TYPE,
                d.line,
                format!("variable {} may not be declared void", d.name),
            ));
        }
        if let Some(keys) = &d.keys {
            if d.scope == ast::DeclScope::Clause {
                return Err(err(
                    Tag::D_DECL_LOCASSC,
                    d.line,
                    format!(
                        "associative arrays may not be declared as local variables: {}",
                        d.name
                    ),
                ));
            }
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
            if !list[i].ty.same_as(&ty) {
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

    /// A `self->` (`thread`) or `this->` variable's value. One read
    /// before any assignment declares it an `int`, whose value is 0, as in
    /// DTrace.
    fn scoped_var(&mut self, thread: bool, name: &str, line: u32) -> CExpr {
        let list = if thread {
            &mut self.syms.threads
        } else {
            &mut self.syms.locals
        };
        let i = match Symbols::find(list, name) {
            Some(i) => i,
            None => {
                list.push(VarInfo {
                    name: name.to_string(),
                    ty: int_ty(types::INT),
                });
                list.len() - 1
            }
        };
        CExpr {
            kind: CKind::Var(if thread {
                VarRef::Thread(i)
            } else {
                VarRef::Local(i)
            }),
            ty: list[i].ty.clone(),
            line,
        }
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
        let descs: Vec<ProbeDesc> = probes.iter().map(|(d, _, _)| d.clone()).collect();
        let desc_attr = self.enter_clause_attrs(&descs, c.end_line)?;
        self.enter_clause_args(descs);
        let out = self.clause_body(c, probes);
        self.leave_clause_args();
        self.clause_attrs = None;
        let mut out = out?;
        out.desc_attr = desc_attr;
        out.stmt_attr = std::mem::replace(&mut self.attr, crate::attr::Attr::STABLE);
        Ok(out)
    }

    fn clause_body(
        &mut self,
        c: &ast::Clause,
        probes: Vec<(ProbeDesc, String, u32)>,
    ) -> Result<CClause, CompileError> {
        let body: &[Stmt] = c.body.as_deref().unwrap_or(&[]);
        let default_action = body.iter().all(|s| matches!(s, Stmt::Empty));
        // As DTrace does, the actions first (a variable they assign may
        // be read by the predicate), and where they read a variable that
        // only the predicate makes, the predicate first.
        let mark = self.syms.mark();
        self.action = 0;
        self.speculated = false;
        let (predicate, stmts) = match self.statements(body) {
            Ok(stmts) => (self.predicate(c)?, stmts),
            Err(e)
                if c.predicate.is_some()
                    && matches!(e.tag, Tag::D_IDENT_UNDEF | Tag::D_VAR_UNDEF) =>
            {
                self.syms.rewind(&mark);
                self.deferred = None;
                self.attr = crate::attr::Attr::STABLE;
                self.action = 0;
                self.speculated = false;
                let predicate = self.predicate(c)?;
                (predicate, self.statements(body)?)
            }
            Err(e) => return Err(e),
        };
        spec::check_clause(&stmts, c.line)?;
        let id = *self.next_clause;
        *self.next_clause += 1;
        Ok(CClause {
            id,
            probes,
            predicate,
            stmts,
            default_action,
            line: c.line,
            desc_attr: crate::attr::Attr::MAX,
            stmt_attr: crate::attr::Attr::MAX,
        })
    }

    /// The clause's predicate, if it has one: a scalar.
    fn predicate(&mut self, c: &ast::Clause) -> Result<Option<CExpr>, CompileError> {
        let Some(p) = &c.predicate else {
            return Ok(None);
        };
        // An unknown name is found where it is read, on its own line; the
        // rest once the predicate is whole, after its closing slash.
        let at_end = |mut e: CompileError| {
            // (What DTrace reports of a node itself keeps its line.)
            if e.line.is_some()
                && c.pred_end_line > 0
                && !matches!(e.tag, Tag::D_IDENT_UNDEF | Tag::D_ATTR_MIN)
            {
                e.line = Some(c.pred_end_line);
            }
            e
        };
        let e = self.expr(p).map_err(at_end)?;
        self.settle().map_err(at_end)?;
        // Found when DTrace checks the whole clause: at its end.
        if !e.ty.is_scalar() {
            return Err(err(
                Tag::D_PRED_SCALAR,
                c.end_line,
                "predicate result must be of scalar type",
            ));
        }
        Ok(Some(e))
    }

    fn statements(&mut self, body: &[Stmt]) -> Result<Vec<CStmt>, CompileError> {
        let mut out = Vec::new();
        for s in body {
            match s {
                Stmt::Empty => {}
                Stmt::Expr(e) => {
                    let s = self.statement(e)?;
                    self.settle()?;
                    out.push(s);
                }
                // Values in turn: an action has none to give (DTrace's
                // "operands cannot be actions").
                Stmt::Comma(es) => {
                    for e in es {
                        let action = match &e.kind {
                            ExprKind::Call(name, _) => funcs::lookup(name)
                                .is_some_and(|f| f.role != funcs::Role::Subroutine),
                            ExprKind::Assign(_, lhs, _) => matches!(lhs.kind, ExprKind::Agg { .. }),
                            _ => false,
                        };
                        if action {
                            return Err(err(
                                Tag::D_OP_ACT,
                                e.line,
                                "operator , operands cannot be actions",
                            ));
                        }
                    }
                    for e in es {
                        let s = self.statement(e)?;
                        self.settle()?;
                        out.push(s);
                    }
                }
                Stmt::If {
                    cond,
                    then,
                    els,
                    line,
                } => {
                    let cond = self.expr(cond)?;
                    self.settle()?;
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
        // `@a[k1][k2] = ...`
        if let ExprKind::Assign(_, lhs, _) = &e.kind {
            if let ExprKind::Index(b, _) = &lhs.kind {
                if matches!(b.kind, ExprKind::Agg { keys: Some(_), .. }) {
                    return Err(expr::multi_dim(b));
                }
            }
        }
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
            // An aggregation alone: DTrace's "null effect".
            ExprKind::Agg { name, keys } => {
                if keys.is_none() && self.syms.agg_by_name(name).is_none() {
                    return Err(err(
                        Tag::D_IDENT_UNDEF,
                        e.line,
                        format!("failed to resolve @{}: Unknown variable name", name),
                    ));
                }
                Err(err(
                    Tag::D_AGG_NULL,
                    e.line,
                    format!("expression has null effect: @{}", name),
                ))
            }
            _ => {
                let c = self.expr(e)?;
                let a = self.next_action(1);
                Ok(CStmt::Eval(c, a))
            }
        }
    }

    /// The value of an integer constant expression, if it is one.
    pub(super) fn const_int(&mut self, e: &Expr) -> Option<i64> {
        let c = self.expr(e).ok()?;
        match c.kind {
            CKind::Int(v) => Some(v),
            _ => None,
        }
    }

    // ---- expressions ----
}

pub fn is_agg_func(name: &str) -> bool {
    funcs::lookup(name).is_some_and(|f| f.role == funcs::Role::Aggregating)
}

fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(x) if x.is_ascii_alphabetic() || x == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// True for the names of built-in variables (`pid`, `curthread`, `arg0`,
/// `args`, ...) and functions (`trace`, `count`, ...), which are never
/// type names: the parser need not ask the kernel about them.
pub fn is_builtin_name(name: &str) -> bool {
    builtin(name).is_some()
        || funcs::lookup(name).is_some()
        || matches!(
            name,
            "curthread" | "args" | "NULL" | "uregs" | "zonename" | "ipl" | "cwd" | "root"
        )
        || (name.len() == 4 && name.starts_with("arg") && name.as_bytes()[3].is_ascii_digit())
}

/// Built-in variables and their types.
/// A built-in identifier of the D version being checked, as DTrace's
/// messages describe it: its kind (`scalar`, `function`, `tracing
/// function`, `aggregating function`) and its type (a function's
/// result's).
fn builtin_ident(name: &str) -> Option<(&'static str, String)> {
    if let Some((_, ty)) = builtin(name) {
        return Some(("scalar", ty.to_string()));
    }
    if matches!(name, "zonename" | "cwd" | "root") {
        return Some(("scalar", "string".into()));
    }
    let f = funcs::lookup(name)?;
    let kind = match f.role {
        funcs::Role::Subroutine => "function",
        funcs::Role::Action => "tracing function",
        funcs::Role::Aggregating => "aggregating function",
    };
    let result = f.proto.split('(').next().unwrap_or("").trim();
    Some((kind, result.to_string()))
}

fn builtin(name: &str) -> Option<(Builtin, Type)> {
    use Builtin::*;
    if !funcs::visible(name) {
        return None;
    }
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
        "caller" => (Caller, int_ty(types::UINTPTR_T)),
        "ucaller" => (Ucaller, int_ty(types::UINT64)),
        "stackdepth" => (Stackdepth, int_ty(types::UINT32)),
        "ustackdepth" => (Ustackdepth, int_ty(types::UINT32)),
        _ => return None,
    })
}

/// A provider's condition for a probe to fire: D library one-parameter
/// inlines, each applied to one of the probe's `argN`, all nonzero (the
/// tcp provider's `send` is a packet the inlines say is IP, then TCP).
/// Checked outside any clause; `&&` of them, so a later one reads only
/// what an earlier one allowed.
pub fn guard_expr(syms: &mut Symbols, conds: &[(String, u8)]) -> Result<CExpr, CompileError> {
    let env = MacroEnv::default();
    let mut next = 0;
    let mut none = NoProbes;
    let mut c = Checker::new(syms, &env, &mut next, &mut none);
    let mut all: Option<CExpr> = None;
    for (inline, arg) in conds {
        let raw = CExpr {
            kind: CKind::Arg((*arg).min(9)),
            ty: int_ty(types::INT64),
            line: 0,
        };
        let v = c.computed_arg(inline, raw, 0)?;
        if !v.ty.is_scalar() {
            return Err(err(
                Tag::D_PRED_SCALAR,
                0,
                format!("the condition {} is of type {}, not a scalar", inline, v.ty),
            ));
        }
        all = Some(match all {
            None => v,
            Some(a) => CExpr {
                kind: CKind::Logical(LogOp::And, Box::new(a), Box::new(v)),
                ty: int_ty(types::INT),
                line: 0,
            },
        });
    }
    Ok(all.unwrap_or(CExpr {
        kind: CKind::Int(1),
        ty: int_ty(types::INT),
        line: 0,
    }))
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
