//! The D parser: program text to `ast::Program`. Recursive descent with C's
//! precedence levels plus D's `^^`, and DTrace's rule for telling the `/`
//! that closes a predicate from the division operator.
//!
//! D's typedef-name ambiguity (`(foo_t)x` is a cast only if `foo_t` names
//! a type) is settled while parsing: D's own type names, the program's
//! typedefs, then [`ParseOptions::type_names`] (the kernel's typedefs and
//! those of the handle's earlier programs). A program's size is bounded
//! as it is parsed ([`MAX_NESTING`], [`MAX_DEPTH`], [`MAX_NODES`]): past
//! a bound it is `D_SYNTAX` "program too complex", never a stack overflow.

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use crate::ast::*;
use crate::error::{CompileError, Tag};
use crate::lex::{Lexer, Tok, Token};
use crate::types::is_type_keyword;

/// Asked whether an identifier names a type when neither D nor the
/// program itself defines it (kernel typedefs, typedefs of programs
/// compiled before in the same handle, translator libraries). It gets
/// the identifier as written, backquote scope included (`vmlinux`pid_t`).
pub type TypeNameHook = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// What the parser needs to know about where the text came from.
#[derive(Clone, Default)]
pub struct ParseOptions {
    /// The text is a script file (`-s`): a bare probe description without
    /// predicate or actions is an error there, but not for `-n`.
    pub is_file: bool,
    /// Macro values for `$name` inside probe descriptions (`$1`, `$target`,
    /// `$pid`, ...).
    pub macros: Vec<(String, String)>,
    /// Type names the parser does not know by itself (see `TypeNameHook`):
    /// D's typedef-name ambiguity (`(foo_t)x` is a cast only if `foo_t`
    /// names a type) needs them while parsing.
    pub type_names: Option<TypeNameHook>,
}

impl fmt::Debug for ParseOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParseOptions")
            .field("is_file", &self.is_file)
            .field("macros", &self.macros)
            .field("type_names", &self.type_names.as_ref().map(|_| "<hook>"))
            .finish()
    }
}

pub struct Parser<'a> {
    lex: Lexer<'a>,
    peeked: Option<Token>,
    opts: &'a ParseOptions,
    /// Nesting of parentheses/brackets inside a predicate; at 0, a `/`
    /// followed by `{`, `;`, `/` or the end closes the predicate.
    in_predicate: bool,
    depth: u32,
    /// Levels of syntactic nesting being parsed (parentheses, operands of
    /// unary operators and casts, ternary branches, assignments' right
    /// sides, arguments, `if` bodies), bounded by `MAX_NESTING`.
    nest: u32,
    /// Operands, operators and statements parsed so far, bounded by
    /// `MAX_NODES`.
    nodes: u32,
    /// Macro names expanded inside probe descriptions.
    used_macros: Vec<String>,
    /// Names the program has declared with `typedef` so far.
    typedefs: HashSet<String>,
    /// The parameter names of the last `[type name, ...]` suffix parsed
    /// (an inline's parameters: `inline fileinfo_t fds[int fd] = ...`).
    assoc_names: Vec<Option<String>>,
}

/// Parses D text. The text is bytes (see `Lexer::new`); `&str` works too.
pub fn parse_program(
    src: &(impl AsRef<[u8]> + ?Sized),
    opts: &ParseOptions,
) -> Result<Program, CompileError> {
    parse_program_with_macros(src, opts).map(|(p, _)| p)
}

/// Parses a program and also returns the macro names expanded inside its
/// probe descriptions.
pub fn parse_program_with_macros(
    src: &(impl AsRef<[u8]> + ?Sized),
    opts: &ParseOptions,
) -> Result<(Program, Vec<String>), CompileError> {
    let mut p = Parser {
        lex: Lexer::new(strip_shebang(src.as_ref())),
        peeked: None,
        opts,
        in_predicate: false,
        depth: 0,
        nest: 0,
        used_macros: Vec::new(),
        typedefs: HashSet::new(),
        assoc_names: Vec::new(),
        nodes: 0,
    };
    let prog = p.program()?;
    check_depth(&prog)?;
    Ok((prog, p.used_macros))
}

/// Parses a C type name standing alone, as a cast spells it
/// (`const char *`, `struct stat *`, `umode_t`): a provider's declared
/// argument types. Identifiers the parser does not know are taken as
/// type names if `opts.type_names` says so; anything after the type name
/// is a syntax error.
pub fn parse_type_name(text: &str, opts: &ParseOptions) -> Result<TypeName, CompileError> {
    let mut p = Parser {
        lex: Lexer::new(text.as_bytes()),
        peeked: None,
        opts,
        in_predicate: false,
        depth: 0,
        nest: 0,
        used_macros: Vec::new(),
        typedefs: HashSet::new(),
        assoc_names: Vec::new(),
        nodes: 0,
    };
    let t = p.type_name()?;
    let next = p.next()?;
    if next.tok != Tok::Eof {
        return Err(syntax_error(&next));
    }
    Ok(t)
}

/// A `#!` interpreter line is skipped; its newline stays, keeping line
/// numbers.
fn strip_shebang(src: &[u8]) -> &[u8] {
    if src.starts_with(b"#!") {
        let end = src.iter().position(|&c| c == b'\n').unwrap_or(src.len());
        &src[end..]
    } else {
        src
    }
}

/// How deeply constructs may nest in the text: every level costs the
/// recursive-descent parser, the checker and the code generator stack
/// frames, so the bound keeps them all within `COMPILE_STACK`.
pub const MAX_NESTING: u32 = 5_000;

/// The most operands, operators and statements a program may have: more
/// than the kernel's million BPF instructions could ever hold, refused
/// as they are parsed, so that the compiler's memory is bounded by what
/// a program can be (a 4 MB sum of two million terms took 730 MB before
/// the depth check refused it).
pub const MAX_NODES: u32 = 1_000_000;

/// How deep a program's syntax tree may be, counting every operator
/// (a chain `1+1+...+1` of N terms is N deep) and every nested `if`.
pub const MAX_DEPTH: u32 = 12_000;

fn too_deep(line: u32) -> CompileError {
    CompileError::new(
        Tag::D_SYNTAX,
        line,
        format!(
            "program too complex: constructs nested more than {} levels deep",
            MAX_NESTING
        ),
    )
}

/// The stability names and dependency classes of DTrace, in order.
pub const STABILITIES: [&str; 8] = [
    "Internal", "Private", "Obsolete", "External", "Unstable", "Evolving", "Stable", "Standard",
];
pub const CLASSES: [&str; 6] = ["Unknown", "CPU", "Platform", "Group", "ISA", "Common"];

/// `Name/Data/Class` (`Evolving/Evolving/Common`), each a known name.
fn parse_attributes(spec: &str) -> Option<(String, String, String)> {
    let mut parts = spec.split('/');
    let (n, d, c) = (parts.next()?, parts.next()?, parts.next()?);
    (parts.next().is_none()
        && STABILITIES.contains(&n)
        && STABILITIES.contains(&d)
        && CLASSES.contains(&c))
    .then(|| (n.to_string(), d.to_string(), c.to_string()))
}

fn deeper_than_max(line: u32) -> CompileError {
    CompileError::new(
        Tag::D_SYNTAX,
        line,
        format!(
            "program too complex: expression or statement more than {} levels deep",
            MAX_DEPTH
        ),
    )
}

/// Refuses trees deeper than `MAX_DEPTH`, walking them without recursion:
/// expressions, statements and types (declarators, struct members,
/// parameters, array sizes, enumerator values).
fn check_depth(prog: &Program) -> Result<(), CompileError> {
    enum Node<'a> {
        E(&'a Expr),
        S(&'a Stmt),
        T(&'a TypeName),
    }
    let mut work: Vec<(Node, u32)> = Vec::new();
    for item in &prog.items {
        match item {
            Item::Clause(c) => {
                if let Some(p) = &c.predicate {
                    work.push((Node::E(p), 1));
                }
                for s in c.body.iter().flatten() {
                    work.push((Node::S(s), 1));
                }
            }
            Item::Decl(d) => {
                work.push((Node::T(&d.ty), 1));
                for k in d.keys.iter().flatten() {
                    work.push((Node::T(k), 1));
                }
            }
            Item::TypeDecl { ty, .. } | Item::Typedef { ty, .. } => work.push((Node::T(ty), 1)),
            Item::Provider(p) => {
                for probe in &p.probes {
                    for t in probe.args.iter().chain(probe.xargs.iter().flatten()) {
                        work.push((Node::T(t), 1));
                    }
                }
            }
            Item::Attributes { .. } => {}
            Item::Inline { ty, value, .. } => {
                work.push((Node::T(ty), 1));
                work.push((Node::E(value), 1));
            }
            Item::Translator {
                to, from, members, ..
            } => {
                work.push((Node::T(to), 1));
                work.push((Node::T(from), 1));
                for (_, e, _) in members {
                    work.push((Node::E(e), 1));
                }
            }
            Item::Option { .. } | Item::DependsOn { .. } => {}
        }
    }
    while let Some((node, d)) = work.pop() {
        let line = match node {
            Node::E(e) => e.line,
            Node::S(Stmt::If { line, .. }) => *line,
            Node::S(_) => 0,
            Node::T(t) => t.line,
        };
        if d > MAX_DEPTH {
            return Err(deeper_than_max(line));
        }
        let n = d + 1;
        match node {
            Node::S(Stmt::Expr(e)) => work.push((Node::E(e), n)),
            Node::S(Stmt::If {
                cond, then, els, ..
            }) => {
                work.push((Node::E(cond), n));
                for s in then.iter().chain(els) {
                    work.push((Node::S(s), n));
                }
            }
            Node::S(Stmt::Empty) => {}
            Node::T(t) => {
                // Each derivation nests the type one level deeper (a
                // pointer to a pointer to ...): bounded like nesting.
                if t.derived.len() > MAX_NESTING as usize {
                    return Err(too_deep(t.line));
                }
                for der in &t.derived {
                    match der {
                        Derived::Array(Some(e)) => work.push((Node::E(e), n)),
                        Derived::Func { params, .. } => {
                            params.iter().for_each(|p| work.push((Node::T(p), n)))
                        }
                        _ => {}
                    }
                }
                match &t.spec {
                    TypeSpec::Struct {
                        members: Some(ms), ..
                    } => {
                        for m in ms {
                            work.push((Node::T(&m.ty), n));
                            if let Some(b) = &m.bits {
                                work.push((Node::E(b), n));
                            }
                        }
                    }
                    TypeSpec::Enum {
                        values: Some(vs), ..
                    } => {
                        for v in vs.iter().filter_map(|v| v.value.as_ref()) {
                            work.push((Node::E(v), n));
                        }
                    }
                    _ => {}
                }
            }
            Node::E(e) => match &e.kind {
                ExprKind::Unary(_, a)
                | ExprKind::Member(a, _)
                | ExprKind::Arrow(a, _)
                | ExprKind::SizeofExpr(a)
                | ExprKind::Stringof(a) => work.push((Node::E(a), n)),
                ExprKind::Cast(t, a) | ExprKind::Xlate(t, a) => {
                    work.push((Node::T(t), n));
                    work.push((Node::E(a), n));
                }
                ExprKind::SizeofType(t) | ExprKind::Offsetof(t, _) => work.push((Node::T(t), n)),
                ExprKind::Binary(_, a, b) | ExprKind::Assign(_, a, b) => {
                    work.push((Node::E(a), n));
                    work.push((Node::E(b), n));
                }
                ExprKind::Ternary(a, b, c) => {
                    work.push((Node::E(a), n));
                    work.push((Node::E(b), n));
                    work.push((Node::E(c), n));
                }
                ExprKind::Call(_, args) => args.iter().for_each(|a| work.push((Node::E(a), n))),
                ExprKind::Index(a, args) => {
                    work.push((Node::E(a), n));
                    args.iter().for_each(|a| work.push((Node::E(a), n)));
                }
                ExprKind::Agg {
                    keys: Some(keys), ..
                } => keys.iter().for_each(|a| work.push((Node::E(a), n))),
                _ => {}
            },
        }
    }
    Ok(())
}

fn syntax_error(t: &Token) -> CompileError {
    let msg = match &t.tok {
        Tok::Eof => "syntax error near end of input".to_string(),
        other => format!("syntax error near \"{}\"", other.describe()),
    };
    CompileError::new(Tag::D_SYNTAX, t.line, msg)
}

impl<'a> Parser<'a> {
    /// Parses one more level of nesting with `f`, refusing to go deeper
    /// than `MAX_NESTING`.
    fn nested<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, CompileError>,
    ) -> Result<T, CompileError> {
        if self.nest >= MAX_NESTING {
            let line = self.peek()?.line;
            return Err(too_deep(line));
        }
        self.nest += 1;
        let r = f(self);
        self.nest -= 1;
        r
    }

    fn peek(&mut self) -> Result<&Token, CompileError> {
        if self.peeked.is_none() {
            self.peeked = Some(self.lex.next_token()?);
        }
        Ok(self.peeked.as_ref().expect("just filled"))
    }

    fn next(&mut self) -> Result<Token, CompileError> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self.lex.next_token(),
        }
    }

    fn peek_is(&mut self, p: &str) -> Result<bool, CompileError> {
        Ok(matches!(&self.peek()?.tok, Tok::Punct(q) if *q == p))
    }

    fn eat(&mut self, p: &str) -> Result<bool, CompileError> {
        if self.peek_is(p)? {
            self.next()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn expect(&mut self, p: &str) -> Result<Token, CompileError> {
        let t = self.next()?;
        match &t.tok {
            Tok::Punct(q) if *q == p => Ok(t),
            _ => Err(syntax_error(&t)),
        }
    }

    /// An identifier without backquote scope.
    fn ident(&mut self) -> Result<(String, u32), CompileError> {
        let t = self.next()?;
        match t.tok {
            Tok::Ident(s) if !s.contains('`') => Ok((s, t.line)),
            _ => Err(syntax_error(&t)),
        }
    }

    fn program(&mut self) -> Result<Program, CompileError> {
        let mut items = Vec::new();
        loop {
            debug_assert!(self.peeked.is_none());
            if self.lex.at_directive()? {
                let (text, line) = self.lex.directive_line();
                if let Some(item) = self.directive(&text, line)? {
                    items.push(item);
                }
                continue;
            }
            let pos = self.lex.pos();
            let line = self.lex.line();
            let t = self.lex.next_token()?;
            match &t.tok {
                Tok::Eof => break,
                Tok::Punct(";") => continue,
                Tok::Ident(id) if is_decl_start(id) || self.outer_type_name(id, pos, line)? => {
                    self.lex.reset(pos, line);
                    items.extend(self.declaration()?);
                }
                _ => {
                    self.lex.reset(pos, line);
                    items.push(Item::Clause(self.clause()?));
                }
            }
        }
        Ok(Program { items })
    }

    /// At the outer level, an identifier that names a type starts a
    /// declaration, unless the probe description it would begin has a
    /// `:` (as in DTrace: `foo_t x;` declares, `foo_t:::entry` is a probe).
    fn outer_type_name(&mut self, id: &str, pos: usize, line: u32) -> Result<bool, CompileError> {
        // A declarator follows a type name (`x`, `*p`, `(*fp)`); a probe
        // description's name is followed by `{`, `/`, `,`, `:` or `-`.
        // Looking first spares asking the hook (the kernel's types) about
        // every `BEGIN`.
        if !matches!(
            self.peek_second(),
            Some(Tok::Ident(_) | Tok::Punct("*" | "("))
        ) {
            return Ok(false);
        }
        if !self.names_type(id) {
            return Ok(false);
        }
        self.lex.reset(pos, line);
        let colon =
            matches!(self.lex.pspec()?, Some(Token { tok: Tok::PSpec(t), .. }) if t.contains(':'));
        self.lex.reset(pos, line);
        Ok(!colon)
    }

    /// True if `w` names a type: a typedef of D, of this program, or one
    /// the `type_names` hook knows. Keywords never do.
    fn names_type(&self, w: &str) -> bool {
        if is_reserved(w) || split_scoped(w).is_none() {
            return false;
        }
        if !w.contains('`') && (self.typedefs.contains(w) || is_type_keyword(w)) {
            return true;
        }
        self.opts.type_names.as_ref().is_some_and(|f| f(w))
    }

    /// The token after the one peeked, without consuming anything.
    fn peek_second(&mut self) -> Option<Tok> {
        let pos = self.lex.pos();
        let line = self.lex.line();
        let t = self.lex.next_token().ok().map(|t| t.tok);
        self.lex.reset(pos, line);
        t
    }

    /// True if the peeked identifier `w` is a type name here. As in
    /// DTrace, a type name followed by `=`, `++`, `--` or `[` is taken as
    /// a variable instead (a type there would be a syntax error anyway).
    fn type_name_here(&mut self, w: &str) -> bool {
        // The next token first: it is cheap, and asking the hook may mean
        // reading the kernel's types.
        if matches!(
            self.peek_second(),
            Some(Tok::Punct("=" | "++" | "--" | "["))
        ) {
            return false;
        }
        self.names_type(w)
    }

    /// True if the next token begins a type name (after `(`, in `sizeof`,
    /// `offsetof`, `xlate`, array brackets and parameter lists).
    fn starts_type(&mut self, with_class: bool) -> Result<bool, CompileError> {
        let w = match &self.peek()?.tok {
            Tok::Ident(w) => w.clone(),
            _ => return Ok(false),
        };
        Ok(is_spec_keyword(&w)
            || (with_class && class_of(&w, false).is_some())
            || self.type_name_here(&w))
    }

    fn directive(&mut self, text: &str, line: u32) -> Result<Option<Item>, CompileError> {
        let mut words = text.split_whitespace();
        match words.next() {
            Some("pragma") => {}
            None => return Ok(None),
            // Line markers (cpp's `# N "file" flags`, and `#line N
            // ["file"]`): the next line is line N, so that messages name
            // the line of the file it came from.
            Some(w) if w == "line" || w.chars().all(|c| c.is_ascii_digit()) => {
                let n = if w == "line" { words.next() } else { Some(w) };
                match n.and_then(|n| n.parse::<u32>().ok()) {
                    Some(n) => self.lex.next_line_is(n),
                    None => {
                        return Err(CompileError::new(
                            Tag::D_PRAGCTL_INVAL,
                            line,
                            "invalid control directive: #line",
                        ))
                    }
                }
                return Ok(None);
            }
            Some(w) => {
                return Err(CompileError::new(
                    Tag::D_PRAGCTL_INVAL,
                    line,
                    format!("invalid control directive: #{}", w),
                ))
            }
        }
        match words.next() {
            Some("D") => {}
            // Other pragmas (ident, once, ...) are for cpp or are ignored.
            _ => return Ok(None),
        }
        match words.next() {
            Some("option") => {
                let rest: Vec<&str> = words.collect();
                if rest.len() != 1 {
                    return Err(CompileError::new(
                        Tag::D_PRAGMA_MALFORM,
                        line,
                        "malformed #pragma D option",
                    ));
                }
                let (name, value) = match rest[0].split_once('=') {
                    Some((n, v)) => (n.to_string(), Some(v.to_string())),
                    None => (rest[0].to_string(), None),
                };
                Ok(Some(Item::Option { name, value, line }))
            }
            Some("depends_on") => {
                let rest: Vec<&str> = words.collect();
                match rest.as_slice() {
                    [kind @ ("library" | "provider" | "module"), name] => {
                        Ok(Some(Item::DependsOn {
                            kind: kind.to_string(),
                            name: name.to_string(),
                            line,
                        }))
                    }
                    [kind, _] => Err(CompileError::new(
                        Tag::D_PRAGMA_INVAL,
                        line,
                        format!("invalid class {} specified by #pragma D depends_on", kind),
                    )),
                    _ => Err(CompileError::new(
                        Tag::D_PRAGMA_MALFORM,
                        line,
                        "malformed #pragma D depends_on",
                    )),
                }
            }
            Some("attributes") => {
                let rest: Vec<&str> = words.collect();
                match rest.as_slice() {
                    // Of a provider defined in D: `A/B/C provider NAME PART`.
                    [spec, "provider", name, part] => {
                        let attr = parse_attributes(spec).filter(|_| {
                            matches!(*part, "provider" | "module" | "function" | "name" | "args")
                        });
                        match attr {
                            Some(attr) => Ok(Some(Item::Attributes {
                                provider: name.to_string(),
                                part: part.to_string(),
                                attr,
                                line,
                            })),
                            None => Err(CompileError::new(
                                Tag::D_PRAGMA_INVAL,
                                line,
                                format!(
                                    "invalid attributes specified by #pragma D attributes: {} provider {} {}",
                                    spec, name, part
                                ),
                            )),
                        }
                    }
                    // Of an identifier: stability reports are not kept
                    // for identifiers.
                    [_, _] => Ok(None),
                    _ => Err(CompileError::new(
                        Tag::D_PRAGMA_MALFORM,
                        line,
                        "malformed #pragma D attributes",
                    )),
                }
            }
            Some("binding") | Some("error") | Some("ident") | Some("line") => Ok(None),
            Some(other) => Err(CompileError::new(
                Tag::D_PRAGMA_INVAL,
                line,
                format!("invalid control directive: #pragma D {}", other),
            )),
            None => Err(CompileError::new(
                Tag::D_PRAGMA_MALFORM,
                line,
                "malformed #pragma D directive",
            )),
        }
    }

    /// Expands `$name` macros inside a probe description.
    fn expand_pspec(&mut self, text: &str, line: u32) -> Result<String, CompileError> {
        if !text.contains('$') {
            return Ok(text.to_string());
        }
        let mut out = String::new();
        let mut chars = text.char_indices().peekable();
        while let Some((_, c)) = chars.next() {
            if c != '$' {
                out.push(c);
                continue;
            }
            let mut name = String::new();
            while let Some(&(_, d)) = chars.peek() {
                if d.is_ascii_alphanumeric() || d == '_' {
                    name.push(d);
                    chars.next();
                } else {
                    break;
                }
            }
            self.used_macros.push(name.clone());
            match self.opts.macros.iter().find(|(n, _)| *n == name) {
                Some((_, v)) => out.push_str(v),
                None => {
                    return Err(CompileError::new(
                        Tag::D_MACRO_UNDEF,
                        line,
                        format!("macro argument ${} is not defined", name),
                    ))
                }
            }
        }
        Ok(out)
    }

    fn clause(&mut self) -> Result<Clause, CompileError> {
        let mut probes = Vec::new();
        let line = self.lex.line();
        loop {
            match self.lex.pspec()? {
                Some(Token {
                    tok: Tok::PSpec(text),
                    line,
                    ..
                }) => {
                    let text = self.expand_pspec(&text, line)?;
                    probes.push(ProbeSpec { text, line });
                }
                _ => {
                    let t = self.next()?;
                    return Err(syntax_error(&t));
                }
            }
            if !self.eat(",")? {
                break;
            }
        }
        let first_line = probes.first().map(|p| p.line).unwrap_or(line);
        let mut predicate = None;
        if self.peek_is("/")? {
            self.next()?;
            self.in_predicate = true;
            self.depth = 0;
            let e = self.expr();
            self.in_predicate = false;
            predicate = Some(e?);
            self.expect("/")?;
        }
        let body = if self.peek_is("{")? {
            self.next()?;
            Some(self.statements_until_brace()?)
        } else {
            let t = self.peek()?.clone();
            if predicate.is_none() && self.opts.is_file {
                return Err(CompileError::new(
                    Tag::D_SYNTAX,
                    t.line,
                    "expected predicate and/or actions following probe description",
                ));
            }
            match &t.tok {
                Tok::Eof => {}
                Tok::Punct(";") => {
                    self.next()?;
                }
                _ if !self.opts.is_file => {
                    // dtrace -n 'BEGIN END' style: another description follows.
                }
                _ => return Err(syntax_error(&t)),
            }
            None
        };
        // Whatever was peeked must go back to the lexer for outer mode.
        self.unpeek();
        Ok(Clause {
            probes,
            predicate,
            body,
            line: first_line,
        })
    }

    /// Returns a peeked token to the input so outer-mode lexing can resume.
    fn unpeek(&mut self) {
        if let Some(t) = self.peeked.take() {
            self.lex.reset(t.pos, t.line);
        }
    }

    /// Puts the lexer back at the start of `t`, dropping any lookahead.
    fn rewind_to(&mut self, t: &Token) {
        self.peeked = None;
        self.lex.reset(t.pos, t.line);
    }

    fn statements_until_brace(&mut self) -> Result<Vec<Stmt>, CompileError> {
        let mut out = Vec::new();
        loop {
            if self.eat("}")? {
                return Ok(out);
            }
            if self.eat(";")? {
                continue;
            }
            let s = self.statement()?;
            let needs_semi = matches!(s, Stmt::Expr(_));
            out.push(s);
            if needs_semi && !self.eat(";")? && !self.peek_is("}")? {
                let t = self.next()?;
                return Err(syntax_error(&t));
            }
        }
    }

    fn statement(&mut self) -> Result<Stmt, CompileError> {
        let line = self.peek()?.line;
        self.count_node(line)?;
        if let Tok::Ident(id) = &self.peek()?.tok {
            if id == "if" {
                let line = self.next()?.line;
                self.expect("(")?;
                let cond = self.expr()?;
                self.expect(")")?;
                let then = self.nested(|p| p.block_or_statement())?;
                let els = if matches!(&self.peek()?.tok, Tok::Ident(e) if e == "else") {
                    self.next()?;
                    self.nested(|p| p.block_or_statement())?
                } else {
                    Vec::new()
                };
                return Ok(Stmt::If {
                    cond,
                    then,
                    els,
                    line,
                });
            }
        }
        Ok(Stmt::Expr(self.expr()?))
    }

    fn block_or_statement(&mut self) -> Result<Vec<Stmt>, CompileError> {
        if self.eat("{")? {
            return self.statements_until_brace();
        }
        let s = self.statement()?;
        if matches!(s, Stmt::Expr(_)) && !self.eat(";")? && !self.peek_is("}")? {
            let t = self.next()?;
            return Err(syntax_error(&t));
        }
        Ok(vec![s])
    }

    /// An outer-level declaration: variables, typedefs, struct/union/enum
    /// definitions, `inline` and `translator`.
    fn declaration(&mut self) -> Result<Vec<Item>, CompileError> {
        let t = self.peek()?.clone();
        if let Tok::Ident(w) = &t.tok {
            match w.as_str() {
                "inline" => return Ok(vec![self.inline_definition()?]),
                "translator" => return Ok(vec![self.translator_definition()?]),
                "provider" => return Ok(vec![self.provider_definition()?]),
                _ => {}
            }
        }
        let specs = self.specifiers(SpecCtx::Decl)?;
        let mut items = Vec::new();
        if self.eat(";")? {
            match specs.spec {
                TypeSpec::Struct { .. } | TypeSpec::Enum { .. } => items.push(Item::TypeDecl {
                    ty: TypeName {
                        spec: specs.spec,
                        is_const: specs.is_const,
                        derived: Vec::new(),
                        line: specs.line,
                    },
                    line: specs.line,
                }),
                TypeSpec::Named { .. } => {
                    return Err(CompileError::new(
                        Tag::D_DECL_USELESS,
                        specs.line,
                        "useless declaration",
                    ))
                }
            }
            self.unpeek();
            return Ok(items);
        }
        loop {
            let (name, derivs) = self.declarator(DeclMode::Named)?;
            let Some((name, nline)) = name else {
                let t = self.next()?;
                return Err(syntax_error(&t));
            };
            check_decl_name(&name, nline)?;
            let typedef = specs.class == Some(Class::Typedef);
            // Brackets holding types next to the name make an associative
            // array; anywhere else they are refused.
            let mut keys = None;
            let mut derived = Vec::new();
            let n = derivs.len();
            for (i, d) in derivs.into_iter().enumerate() {
                match d {
                    Deriv::D(x) => derived.push(x),
                    Deriv::Assoc(k, open) => {
                        if typedef {
                            return Err(syntax_error(&open));
                        }
                        if i + 1 != n {
                            return Err(CompileError::new(
                                Tag::D_DECL_DYNOBJ,
                                open.line,
                                "cannot declare array of associative arrays",
                            ));
                        }
                        keys = Some(k);
                    }
                }
            }
            let ty = TypeName {
                spec: specs.spec.clone(),
                is_const: specs.is_const,
                derived,
                line: specs.line,
            };
            let is_func = matches!(ty.derived.last(), Some(Derived::Func { .. }));
            let scope = match specs.class {
                Some(Class::Typedef) => None,
                // A function prototype declares a kernel function's type.
                Some(Class::Static) | None if is_func => Some(DeclScope::Extern),
                Some(Class::Auto | Class::Register | Class::Static) => {
                    return Err(CompileError::new(
                        Tag::D_DECL_BADCLASS,
                        specs.line,
                        "specified storage class not appropriate in D",
                    ))
                }
                Some(Class::Extern) => Some(DeclScope::Extern),
                Some(Class::SelfScope) => Some(DeclScope::Thread),
                Some(Class::This) => Some(DeclScope::Clause),
                None => Some(DeclScope::Global),
            };
            match scope {
                Some(scope) => items.push(Item::Decl(Decl {
                    scope,
                    ty,
                    name,
                    keys,
                    line: nline,
                })),
                None => {
                    self.typedefs.insert(name.clone());
                    items.push(Item::Typedef {
                        ty,
                        name,
                        line: nline,
                    });
                }
            }
            if !self.eat(",")? {
                break;
            }
        }
        self.expect(";")?;
        self.unpeek();
        Ok(items)
    }

    /// `inline type name = expression;`, or with parameters, as D's
    /// library declares `fds[]`: `inline type name[type p, ...] = expr;`.
    fn inline_definition(&mut self) -> Result<Item, CompileError> {
        let line = self.next()?.line;
        let specs = self.specifiers(SpecCtx::Plain)?;
        let (name, mut derivs) = self.declarator(DeclMode::Named)?;
        let mut params = Vec::new();
        if let Some(Deriv::Assoc(..)) = derivs.last() {
            let Some(Deriv::Assoc(keys, open)) = derivs.pop() else {
                unreachable!("just matched");
            };
            let names = std::mem::take(&mut self.assoc_names);
            for (k, n) in keys.into_iter().zip(names) {
                let Some(n) = n else {
                    return Err(syntax_error(&open));
                };
                params.push((k, n));
            }
        }
        let Some((name, _)) = name else {
            let t = self.next()?;
            return Err(syntax_error(&t));
        };
        check_decl_name(&name, line)?;
        let ty = specs.with(plain_derived(derivs)?);
        self.expect("=")?;
        let value = self.nested(|p| p.assignment())?;
        self.expect(";")?;
        self.unpeek();
        Ok(Item::Inline {
            ty,
            name,
            params,
            value,
            line,
        })
    }

    /// `provider name { probe name(type, ...) [: (type, ...)]; ... };`:
    /// a provider of user-level static probes, as `dtrace -h` makes a
    /// header of. A `__` in a probe's name is a `-`, as in DTrace.
    fn provider_definition(&mut self) -> Result<Item, CompileError> {
        let line = self.next()?.line;
        let (name, _) = self.ident()?;
        self.expect("{")?;
        let mut probes = Vec::new();
        while !self.eat("}")? {
            let t = self.next()?;
            let pline = t.line;
            match &t.tok {
                Tok::Ident(w) if w == "probe" => {}
                _ => return Err(syntax_error(&t)),
            }
            let (pname, _) = self.ident()?;
            let args = self.probe_parameters()?;
            let xargs = if self.eat(":")? {
                Some(self.probe_parameters()?)
            } else {
                None
            };
            self.expect(";")?;
            probes.push(ProbeDecl {
                name: pname.replace("__", "-"),
                args,
                xargs,
                line: pline,
            });
        }
        self.expect(";")?;
        self.unpeek();
        Ok(Item::Provider(ProviderDecl { name, probes, line }))
    }

    /// `(type, ...)`, `()` or `(void)`: a probe's parameter types.
    fn probe_parameters(&mut self) -> Result<Vec<TypeName>, CompileError> {
        self.expect("(")?;
        let mut out = Vec::new();
        if self.eat(")")? {
            return Ok(out);
        }
        loop {
            out.push(self.parameter()?);
            if self.eat(")")? {
                break;
            }
            self.expect(",")?;
        }
        // `(void)`: none.
        if out.len() == 1
            && out[0].derived.is_empty()
            && matches!(&out[0].spec, TypeSpec::Named { name, .. } if name == "void")
        {
            out.clear();
        }
        Ok(out)
    }

    /// `translator to < from param > { member = expression; ... };`
    fn translator_definition(&mut self) -> Result<Item, CompileError> {
        let line = self.next()?.line;
        let to = self.type_name()?;
        self.expect("<")?;
        let from = self.type_name()?;
        let (param, _) = self.ident()?;
        self.expect(">")?;
        self.expect("{")?;
        let mut members = Vec::new();
        while !self.eat("}")? {
            let (m, mline) = self.ident()?;
            self.expect("=")?;
            let e = self.nested(|p| p.assignment())?;
            self.expect(";")?;
            members.push((m, e, mline));
        }
        self.expect(";")?;
        self.unpeek();
        Ok(Item::Translator {
            to,
            from,
            param,
            members,
            line,
        })
    }

    /// Declaration specifiers: storage class (where `ctx` allows one),
    /// qualifiers and type specifiers, with DTrace's checks of their
    /// combination.
    fn specifiers(&mut self, ctx: SpecCtx) -> Result<Specs, CompileError> {
        let first = self.peek()?.clone();
        let mut class: Option<Class> = None;
        let mut is_const = false;
        let mut any = false;
        let mut base: Option<Base> = None;
        let (mut short, mut long, mut signed, mut unsigned) = (false, 0u8, false, false);
        let combo = |line: u32, msg: &str| CompileError::new(Tag::D_DECL_COMBO, line, msg);
        loop {
            let t = self.peek()?.clone();
            let Tok::Ident(w) = &t.tok else { break };
            if ctx != SpecCtx::Plain {
                if let Some(c) = class_of(w, ctx == SpecCtx::Decl) {
                    if class.is_some() {
                        return Err(CompileError::new(
                            Tag::D_DECL_CLASS,
                            t.line,
                            "only one storage class allowed in a declaration",
                        ));
                    }
                    class = Some(c);
                    self.next()?;
                    any = true;
                    continue;
                }
            }
            match w.as_str() {
                "const" => is_const = true,
                "volatile" | "restrict" => {}
                "short" => {
                    if short {
                        return Err(combo(
                            t.line,
                            "the attribute 'short' may only be used at most once in a declaration",
                        ));
                    }
                    short = true;
                }
                "long" => {
                    if long == 2 {
                        return Err(combo(
                            t.line,
                            "the attribute 'long' may only be used at most twice in a declaration",
                        ));
                    }
                    long += 1;
                }
                "signed" => {
                    if signed {
                        return Err(combo(
                            t.line,
                            "the attribute 'signed' may only be used at most once in a declaration",
                        ));
                    }
                    signed = true;
                }
                "unsigned" => {
                    if unsigned {
                        return Err(combo(
                            t.line,
                            "the attribute 'unsigned' may only be used at most once in a declaration",
                        ));
                    }
                    unsigned = true;
                }
                "void" | "char" | "int" | "float" | "double" | "string" => {
                    if base.is_some() {
                        return Err(combo(t.line, "invalid type combination"));
                    }
                    base = Some(Base::Word(match w.as_str() {
                        "void" => "void",
                        "char" => "char",
                        "int" => "int",
                        "float" => "float",
                        "double" => "double",
                        _ => "string",
                    }));
                }
                "struct" | "union" | "enum" => {
                    if base.is_some() {
                        return Err(combo(t.line, "invalid type combination"));
                    }
                    self.next()?;
                    let spec = self.nested(|p| p.tagged_type(&t))?;
                    base = Some(Base::Spec(spec));
                    any = true;
                    continue;
                }
                _ => {
                    let w = w.clone();
                    if !self.type_name_here(&w) {
                        break;
                    }
                    if base.is_some() {
                        // `int pid_t;` declares a variable named pid_t;
                        // a typedef may not redefine a type name.
                        if class == Some(Class::Typedef) {
                            return Err(CompileError::new(
                                Tag::D_DECL_IDRED,
                                t.line,
                                format!("identifier redeclared: {}", w),
                            ));
                        }
                        break;
                    }
                    base = Some(Base::Typedef(w));
                }
            }
            self.next()?;
            any = true;
        }
        if !any {
            let t = self.next()?;
            return Err(syntax_error(&t));
        }
        if ctx == SpecCtx::Param && class.is_some_and(|c| c != Class::Register) {
            return Err(CompileError::new(
                Tag::D_DECL_PARMCLASS,
                first.line,
                "inappropriate storage class for function or associative array parameter",
            ));
        }
        let line = first.line;
        let sign_attr = signed || unsigned;
        let size_attr = short || long > 0;
        let signint = || {
            CompileError::new(
                Tag::D_DECL_SIGNINT,
                line,
                "invalid type declaration: signed and unsigned may only be used with integer type",
            )
        };
        let longint = || {
            CompileError::new(
                Tag::D_DECL_LONGINT,
                line,
                "invalid type declaration: long and long long may only be used with integer or floating-point type",
            )
        };
        let named = |name: &str| TypeSpec::Named {
            name: name.to_string(),
            module: None,
        };
        let spec = match base {
            Some(Base::Spec(_)) | Some(Base::Typedef(_)) | Some(Base::Word("string"))
                if sign_attr =>
            {
                return Err(signint())
            }
            Some(Base::Spec(_)) | Some(Base::Typedef(_)) | Some(Base::Word("string"))
                if long > 0 =>
            {
                return Err(longint())
            }
            Some(Base::Spec(_)) | Some(Base::Typedef(_)) | Some(Base::Word("string")) if short => {
                return Err(combo(line, "invalid type combination"))
            }
            Some(Base::Spec(s)) => s,
            Some(Base::Typedef(w)) => {
                let (module, name) = split_scoped(&w).unwrap_or((None, &w));
                TypeSpec::Named {
                    name: name.to_string(),
                    module: module.map(str::to_string),
                }
            }
            Some(Base::Word("void")) => {
                if sign_attr || size_attr {
                    return Err(CompileError::new(
                        Tag::D_DECL_VOIDATTR,
                        line,
                        "invalid type declaration: attributes may not be used with void type",
                    ));
                }
                named("void")
            }
            Some(Base::Word("char")) => {
                if size_attr {
                    return Err(CompileError::new(
                        Tag::D_DECL_CHARATTR,
                        line,
                        "invalid type declaration: short and long may not be used with char type",
                    ));
                }
                if signed && unsigned {
                    return Err(combo(line, "invalid type combination"));
                }
                named(if unsigned {
                    "unsigned char"
                } else if signed {
                    "signed char"
                } else {
                    "char"
                })
            }
            Some(Base::Word(f @ ("float" | "double"))) => {
                if sign_attr {
                    return Err(signint());
                }
                match (f, short, long) {
                    (_, false, 0) => named(f),
                    ("double", false, 1) => named("long double"),
                    _ => return Err(combo(line, "invalid type combination")),
                }
            }
            Some(Base::Word("string")) => named("string"),
            // int, or attributes alone (`unsigned`, `long`), or nothing
            // but a storage class or qualifier: C's implicit int.
            _ => {
                if signed && unsigned || short && long > 0 {
                    return Err(combo(line, "invalid type combination"));
                }
                let size = if short {
                    "short"
                } else if long == 1 {
                    "long"
                } else if long == 2 {
                    "long long"
                } else {
                    "int"
                };
                if unsigned {
                    named(&format!("unsigned {}", size))
                } else {
                    named(size)
                }
            }
        };
        Ok(Specs {
            class,
            spec,
            is_const,
            line,
        })
    }

    /// After `struct`, `union` or `enum` (the token `kw`): an optional
    /// (scoped) tag and an optional body; at least one of them.
    fn tagged_type(&mut self, kw: &Token) -> Result<TypeSpec, CompileError> {
        let mut name = None;
        let mut module = None;
        let t = self.peek()?.clone();
        if let Tok::Ident(w) = &t.tok {
            if is_reserved(w) {
                return Err(syntax_error(&t));
            }
            let Some((m, n)) = split_scoped(w) else {
                return Err(syntax_error(&t));
            };
            name = Some(n.to_string());
            module = m.map(str::to_string);
            self.next()?;
        }
        let is_enum = matches!(&kw.tok, Tok::Ident(k) if k == "enum");
        let union = matches!(&kw.tok, Tok::Ident(k) if k == "union");
        if !self.peek_is("{")? {
            if name.is_none() {
                let t = self.next()?;
                return Err(syntax_error(&t));
            }
            return Ok(if is_enum {
                TypeSpec::Enum {
                    name,
                    module,
                    values: None,
                }
            } else {
                TypeSpec::Struct {
                    union,
                    name,
                    module,
                    members: None,
                }
            });
        }
        self.next()?;
        if is_enum {
            let mut values = Vec::new();
            loop {
                let (n, line) = self.ident()?;
                let value = if self.eat("=")? {
                    Some(self.nested(|p| p.conditional())?)
                } else {
                    None
                };
                values.push(Enumerator {
                    name: n,
                    value,
                    line,
                });
                if !self.eat(",")? {
                    break;
                }
            }
            self.expect("}")?;
            return Ok(TypeSpec::Enum {
                name,
                module,
                values: Some(values),
            });
        }
        let mut members = Vec::new();
        loop {
            if self.peek_is("}")? && !members.is_empty() {
                self.next()?;
                break;
            }
            let specs = self.specifiers(SpecCtx::Plain)?;
            if self.peek_is(";")? {
                let t = self.next()?;
                // C11's anonymous struct or union member.
                if matches!(
                    specs.spec,
                    TypeSpec::Struct {
                        name: None,
                        members: Some(_),
                        ..
                    }
                ) {
                    members.push(MemberDecl {
                        ty: specs.with(Vec::new()),
                        name: None,
                        bits: None,
                        line: specs.line,
                    });
                    continue;
                }
                return Err(CompileError::new(
                    Tag::D_DECL_MNAME,
                    t.line,
                    "member declaration requires a name",
                ));
            }
            loop {
                let line = self.peek()?.line;
                let (name, derivs) = if self.peek_is(":")? {
                    (None, Vec::new())
                } else {
                    self.declarator(DeclMode::Named)?
                };
                let name = name.map(|(n, _)| n);
                if let Some(n) = name.as_ref().filter(|n| n.contains('`')) {
                    return Err(CompileError::new(
                        Tag::D_DECL_SCOPE,
                        line,
                        format!(
                            "D scoping operator may not be used in a member name ({})",
                            n
                        ),
                    ));
                }
                let ty = specs.with(plain_derived(derivs)?);
                let bits = if self.eat(":")? {
                    Some(self.nested(|p| p.conditional())?)
                } else {
                    None
                };
                members.push(MemberDecl {
                    ty,
                    name,
                    bits,
                    line,
                });
                if !self.eat(",")? {
                    break;
                }
            }
            self.expect(";")?;
        }
        Ok(TypeSpec::Struct {
            union,
            name,
            module,
            members: Some(members),
        })
    }

    /// A declarator: pointers, then a name (or, abstract, none) or a
    /// parenthesised declarator, then array and function suffixes. The
    /// derivations come back in the order they apply to the base type.
    fn declarator(&mut self, mode: DeclMode) -> Result<Declarator, CompileError> {
        self.nested(|p| p.declarator_inner(mode))
    }

    fn declarator_inner(&mut self, mode: DeclMode) -> Result<Declarator, CompileError> {
        let mut out = Vec::new();
        while self.eat("*")? {
            let mut is_const = false;
            loop {
                match &self.peek()?.tok {
                    Tok::Ident(q) if q == "const" => is_const = true,
                    Tok::Ident(q) if q == "volatile" || q == "restrict" => {}
                    _ => break,
                }
                self.next()?;
            }
            out.push(Deriv::D(Derived::Ptr { is_const }));
        }
        let mut name = None;
        let mut inner = Vec::new();
        let t = self.peek()?.clone();
        match &t.tok {
            Tok::Ident(w) if mode != DeclMode::Abstract && !is_reserved(w) => {
                name = Some((w.clone(), t.line));
                self.next()?;
            }
            Tok::Punct("(") if self.paren_groups(mode)? => {
                self.next()?;
                self.depth += 1;
                let r = self.declarator(mode);
                self.depth -= 1;
                let (n, d) = r?;
                if n.is_none() && d.is_empty() {
                    let t = self.next()?;
                    return Err(syntax_error(&t));
                }
                self.expect(")")?;
                name = n;
                inner = d;
            }
            _ if mode == DeclMode::Named => return Err(syntax_error(&self.next()?)),
            _ => {}
        }
        let mut suffixes = Vec::new();
        loop {
            if self.peek_is("[")? {
                suffixes.push(self.array_suffix()?);
            } else if self.peek_is("(")? {
                suffixes.push(self.function_suffix()?);
            } else {
                break;
            }
        }
        out.extend(suffixes.into_iter().rev());
        out.extend(inner);
        Ok((name, out))
    }

    /// Whether the `(` peeked in a declarator groups a declarator (`(*p)`)
    /// rather than starting a function's parameters (`(int)`, `()`).
    fn paren_groups(&mut self, mode: DeclMode) -> Result<bool, CompileError> {
        if mode == DeclMode::Named {
            return Ok(true);
        }
        let pos = self.lex.pos();
        let line = self.lex.line();
        let next = self.lex.next_token();
        let verdict = match next {
            Ok(Token {
                tok: Tok::Punct(p), ..
            }) => matches!(p, "*" | "(" | "["),
            Ok(Token {
                tok: Tok::Ident(w), ..
            }) => {
                mode == DeclMode::Either
                    && !is_reserved(&w)
                    && !is_spec_keyword(&w)
                    && !self.names_type(&w)
            }
            _ => false,
        };
        self.lex.reset(pos, line);
        Ok(verdict)
    }

    /// `[]`, `[constant-expression]` or `[type, ...]` (an associative
    /// array's key types).
    fn array_suffix(&mut self) -> Result<Deriv, CompileError> {
        let open = self.next()?;
        self.depth += 1;
        let r = (|| {
            if self.eat("]")? {
                return Ok(Deriv::D(Derived::Array(None)));
            }
            if self.starts_type(true)? {
                let mut keys = Vec::new();
                let mut names = Vec::new();
                loop {
                    let (k, n) = self.named_parameter()?;
                    keys.push(k);
                    names.push(n);
                    if !self.eat(",")? {
                        break;
                    }
                }
                self.expect("]")?;
                self.assoc_names = names;
                return Ok(Deriv::Assoc(keys, open.clone()));
            }
            let e = self.nested(|p| p.conditional())?;
            self.expect("]")?;
            Ok(Deriv::D(Derived::Array(Some(Box::new(e)))))
        })();
        self.depth -= 1;
        r
    }

    /// `(parameters)`, `()`, `(...)`, `(parameters, ...)`.
    fn function_suffix(&mut self) -> Result<Deriv, CompileError> {
        self.next()?;
        self.depth += 1;
        let r = (|| {
            let mut params = Vec::new();
            let mut variadic = false;
            if !self.eat(")")? {
                loop {
                    if self.eat("...")? {
                        variadic = true;
                        self.expect(")")?;
                        break;
                    }
                    params.push(self.parameter()?);
                    if self.eat(",")? {
                        continue;
                    }
                    self.expect(")")?;
                    break;
                }
            }
            Ok(Deriv::D(Derived::Func { params, variadic }))
        })();
        self.depth -= 1;
        r
    }

    /// One parameter of a function or key of an associative array: its
    /// name, if any, is dropped.
    fn parameter(&mut self) -> Result<TypeName, CompileError> {
        Ok(self.named_parameter()?.0)
    }

    /// A parameter declaration and its name, if it has one.
    fn named_parameter(&mut self) -> Result<(TypeName, Option<String>), CompileError> {
        let specs = self.specifiers(SpecCtx::Param)?;
        let (name, derivs) = self.declarator(DeclMode::Either)?;
        Ok((specs.with(plain_derived(derivs)?), name.map(|n| n.0)))
    }

    /// A type name as in a cast: specifiers and an abstract declarator.
    fn type_name(&mut self) -> Result<TypeName, CompileError> {
        let specs = self.specifiers(SpecCtx::Plain)?;
        let (_, derivs) = self.declarator(DeclMode::Abstract)?;
        Ok(specs.with(plain_derived(derivs)?))
    }

    // ---- expressions ----

    pub fn expr(&mut self) -> Result<Expr, CompileError> {
        self.assignment()
    }

    fn assignment(&mut self) -> Result<Expr, CompileError> {
        let lhs = self.conditional()?;
        let op = match &self.peek()?.tok {
            Tok::Punct("=") => Some(None),
            Tok::Punct("+=") => Some(Some(BinOp::Add)),
            Tok::Punct("-=") => Some(Some(BinOp::Sub)),
            Tok::Punct("*=") => Some(Some(BinOp::Mul)),
            Tok::Punct("/=") => Some(Some(BinOp::Div)),
            Tok::Punct("%=") => Some(Some(BinOp::Mod)),
            Tok::Punct("&=") => Some(Some(BinOp::BitAnd)),
            Tok::Punct("|=") => Some(Some(BinOp::BitOr)),
            Tok::Punct("^=") => Some(Some(BinOp::BitXor)),
            Tok::Punct("<<=") => Some(Some(BinOp::Shl)),
            Tok::Punct(">>=") => Some(Some(BinOp::Shr)),
            _ => None,
        };
        match op {
            Some(op) => {
                let line = self.next()?.line;
                let rhs = self.nested(|p| p.assignment())?;
                Ok(Expr::new(
                    ExprKind::Assign(op, Box::new(lhs), Box::new(rhs)),
                    line,
                ))
            }
            None => Ok(lhs),
        }
    }

    fn conditional(&mut self) -> Result<Expr, CompileError> {
        let c = self.binary(0)?;
        if self.peek_is("?")? {
            let line = self.next()?.line;
            let saved = self.in_predicate;
            self.in_predicate = false;
            let a = self.nested(|p| p.expr());
            self.in_predicate = saved;
            let a = a?;
            self.expect(":")?;
            let b = self.nested(|p| p.conditional())?;
            return Ok(Expr::new(
                ExprKind::Ternary(Box::new(c), Box::new(a), Box::new(b)),
                line,
            ));
        }
        Ok(c)
    }

    /// True if the `/` just peeked ends the predicate: DTrace looks at the
    /// token after it, and `{`, `;`, `/` or the end of input close it.
    fn slash_closes_predicate(&mut self) -> bool {
        if !self.in_predicate || self.depth != 0 {
            return false;
        }
        if !matches!(
            self.peeked,
            Some(Token {
                tok: Tok::Punct("/"),
                ..
            })
        ) {
            return false;
        }
        let pos = self.lex.pos();
        let line = self.lex.line();
        let verdict = match self.lex.next_token() {
            Ok(Token { tok: Tok::Eof, .. }) => true,
            Ok(Token {
                tok: Tok::Punct(p), ..
            }) => matches!(p, "{" | ";" | "/"),
            _ => false,
        };
        self.lex.reset(pos, line);
        verdict
    }

    fn binary(&mut self, min_prec: u8) -> Result<Expr, CompileError> {
        let mut lhs = self.cast()?;
        // A chain `a + b + ...` is as deep as it is long: refused as soon
        // as it is too deep, not once its whole tree is built.
        let mut chain = 0;
        while let Some((op, prec)) = match &self.peek()?.tok {
            Tok::Punct(p) => binop_of(p),
            _ => None,
        } {
            if prec < min_prec {
                break;
            }
            if op == BinOp::Div && self.slash_closes_predicate() {
                break;
            }
            let line = self.next()?.line;
            chain += 1;
            if chain > MAX_DEPTH {
                return Err(deeper_than_max(line));
            }
            self.count_node(line)?;
            let rhs = self.binary(prec + 1)?;
            lhs = Expr::new(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), line);
        }
        Ok(lhs)
    }

    fn cast(&mut self) -> Result<Expr, CompileError> {
        if self.peek_is("(")? {
            // Look past the parenthesis for a type name.
            let open = self.next()?;
            if self.starts_type(false)? {
                let ty = self.type_name()?;
                self.expect(")")?;
                let e = self.nested(|p| p.cast())?;
                return Ok(Expr::new(ExprKind::Cast(ty, Box::new(e)), open.line));
            }
            self.rewind_to(&open);
        }
        self.unary()
    }

    fn unary(&mut self) -> Result<Expr, CompileError> {
        let t = self.peek()?.clone();
        let op = match &t.tok {
            Tok::Punct("-") => Some(UnOp::Neg),
            Tok::Punct("+") => Some(UnOp::Plus),
            Tok::Punct("!") => Some(UnOp::Not),
            Tok::Punct("~") => Some(UnOp::BitNot),
            Tok::Punct("*") => Some(UnOp::Deref),
            Tok::Punct("&") => Some(UnOp::Addr),
            Tok::Punct("++") => Some(UnOp::PreInc),
            Tok::Punct("--") => Some(UnOp::PreDec),
            _ => None,
        };
        if let Some(op) = op {
            self.next()?;
            let e = if matches!(op, UnOp::PreInc | UnOp::PreDec) {
                self.nested(|p| p.unary())?
            } else {
                self.nested(|p| p.cast())?
            };
            return Ok(Expr::new(ExprKind::Unary(op, Box::new(e)), t.line));
        }
        if let Tok::Ident(id) = &t.tok {
            if id == "sizeof" {
                self.next()?;
                if self.peek_is("(")? {
                    let open = self.next()?;
                    if self.starts_type(false)? {
                        let ty = self.type_name()?;
                        self.expect(")")?;
                        return Ok(Expr::new(ExprKind::SizeofType(ty), t.line));
                    }
                    self.rewind_to(&open);
                }
                let e = self.nested(|p| p.unary())?;
                return Ok(Expr::new(ExprKind::SizeofExpr(Box::new(e)), t.line));
            }
            if id == "stringof" {
                self.next()?;
                let e = self.nested(|p| p.unary())?;
                return Ok(Expr::new(ExprKind::Stringof(Box::new(e)), t.line));
            }
        }
        self.postfix()
    }

    fn args_until(&mut self, close: &str) -> Result<Vec<Expr>, CompileError> {
        let mut args = Vec::new();
        self.depth += 1;
        let r = (|| {
            if self.eat(close)? {
                return Ok(());
            }
            loop {
                args.push(self.nested(|p| p.assignment())?);
                if self.eat(close)? {
                    return Ok(());
                }
                self.expect(",")?;
            }
        })();
        self.depth -= 1;
        r.map(|_| args)
    }

    fn postfix(&mut self) -> Result<Expr, CompileError> {
        let mut e = self.primary()?;
        loop {
            let t = self.peek()?.clone();
            match &t.tok {
                Tok::Punct("[") => {
                    self.next()?;
                    let idx = self.args_until("]")?;
                    e = Expr::new(ExprKind::Index(Box::new(e), idx), t.line);
                }
                Tok::Punct("(") => {
                    let name = match &e.kind {
                        ExprKind::Ident(n) => n.clone(),
                        _ => return Err(syntax_error(&t)),
                    };
                    self.next()?;
                    let args = self.args_until(")")?;
                    e = Expr::new(ExprKind::Call(name, args), e.line);
                }
                Tok::Punct(".") => {
                    self.next()?;
                    let (m, _) = self.ident()?;
                    e = Expr::new(ExprKind::Member(Box::new(e), m), t.line);
                }
                Tok::Punct("->") => {
                    self.next()?;
                    let (m, _) = self.ident()?;
                    e = Expr::new(ExprKind::Arrow(Box::new(e), m), t.line);
                }
                Tok::Punct("++") => {
                    self.next()?;
                    e = Expr::new(ExprKind::Unary(UnOp::PostInc, Box::new(e)), t.line);
                }
                Tok::Punct("--") => {
                    self.next()?;
                    e = Expr::new(ExprKind::Unary(UnOp::PostDec, Box::new(e)), t.line);
                }
                _ => return Ok(e),
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, CompileError> {
        let t = self.next()?;
        let line = t.line;
        let kind = match t.tok {
            Tok::Int {
                value,
                unsigned,
                long,
                radix_not_decimal,
            } => ExprKind::Int {
                value,
                unsigned,
                long,
                radix_not_decimal,
            },
            Tok::Char(c) => ExprKind::Char(c),
            Tok::Str(mut s) => {
                // Adjacent string literals concatenate, as in C.
                while let Tok::Str(more) = &self.peek()?.tok {
                    s.extend_from_slice(more);
                    self.next()?;
                }
                ExprKind::Str(s)
            }
            Tok::Macro { name, quoted } => ExprKind::Macro { name, quoted },
            Tok::Agg(name) => {
                let keys = if self.peek_is("[")? {
                    self.next()?;
                    Some(self.args_until("]")?)
                } else {
                    None
                };
                ExprKind::Agg { name, keys }
            }
            Tok::Ident(id) if id == "self" || id == "this" => {
                if !self.eat("->")? {
                    let t = self.next()?;
                    return Err(syntax_error(&t));
                }
                let (name, _) = self.ident()?;
                if id == "self" {
                    ExprKind::SelfVar(name)
                } else {
                    ExprKind::ThisVar(name)
                }
            }
            Tok::Ident(id) if id == "offsetof" => {
                self.expect("(")?;
                self.depth += 1;
                let r = (|| {
                    let ty = self.type_name()?;
                    self.expect(",")?;
                    let mut path = vec![self.ident()?.0];
                    while self.eat(".")? {
                        path.push(self.ident()?.0);
                    }
                    self.expect(")")?;
                    Ok(ExprKind::Offsetof(ty, path))
                })();
                self.depth -= 1;
                r?
            }
            Tok::Ident(id) if id == "xlate" => {
                self.expect("<")?;
                let ty = self.type_name()?;
                self.expect(">")?;
                self.expect("(")?;
                self.depth += 1;
                let e = self.nested(|p| p.expr());
                self.depth -= 1;
                let e = e?;
                self.expect(")")?;
                ExprKind::Xlate(ty, Box::new(e))
            }
            Tok::Ident(id) if id.contains('`') => match split_scoped(&id) {
                Some((module, name)) => ExprKind::Symbol {
                    module: module.map(str::to_string),
                    name: name.to_string(),
                },
                None => {
                    return Err(syntax_error(&Token {
                        tok: Tok::Ident(id),
                        line,
                        pos: t.pos,
                    }))
                }
            },
            Tok::Ident(id) => ExprKind::Ident(id),
            Tok::Punct("(") => {
                self.depth += 1;
                let e = self.nested(|p| p.expr());
                self.depth -= 1;
                let e = e?;
                self.expect(")")?;
                return Ok(e);
            }
            _ => return Err(syntax_error(&t)),
        };
        self.count_node(line)?;
        Ok(Expr::new(kind, line))
    }

    /// One more operand, operator or statement: past `MAX_NODES`, the
    /// program is refused.
    fn count_node(&mut self, line: u32) -> Result<(), CompileError> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(CompileError::new(
                Tag::D_SYNTAX,
                line,
                format!(
                    "program too complex: more than {} operands, operators and statements",
                    MAX_NODES
                ),
            ));
        }
        Ok(())
    }
}

/// Binary operators with their precedence (higher binds tighter).
fn binop_of(p: &str) -> Option<(BinOp, u8)> {
    Some(match p {
        "||" => (BinOp::LogOr, 1),
        "^^" => (BinOp::LogXor, 2),
        "&&" => (BinOp::LogAnd, 3),
        "|" => (BinOp::BitOr, 4),
        "^" => (BinOp::BitXor, 5),
        "&" => (BinOp::BitAnd, 6),
        "==" => (BinOp::Eq, 7),
        "!=" => (BinOp::Ne, 7),
        "<" => (BinOp::Lt, 8),
        "<=" => (BinOp::Le, 8),
        ">" => (BinOp::Gt, 8),
        ">=" => (BinOp::Ge, 8),
        "<<" => (BinOp::Shl, 9),
        ">>" => (BinOp::Shr, 9),
        "+" => (BinOp::Add, 10),
        "-" => (BinOp::Sub, 10),
        "*" => (BinOp::Mul, 11),
        "/" => (BinOp::Div, 11),
        "%" => (BinOp::Mod, 11),
        _ => return None,
    })
}

/// D's reserved words: never a type name or a declarator's name.
fn is_reserved(w: &str) -> bool {
    matches!(
        w,
        "auto"
            | "break"
            | "case"
            | "char"
            | "const"
            | "continue"
            | "counter"
            | "default"
            | "do"
            | "double"
            | "else"
            | "enum"
            | "extern"
            | "float"
            | "for"
            | "goto"
            | "if"
            | "import"
            | "inline"
            | "int"
            | "long"
            | "offsetof"
            | "probe"
            | "provider"
            | "register"
            | "restrict"
            | "return"
            | "self"
            | "short"
            | "signed"
            | "sizeof"
            | "static"
            | "string"
            | "stringof"
            | "struct"
            | "switch"
            | "this"
            | "translator"
            | "typedef"
            | "union"
            | "unsigned"
            | "void"
            | "volatile"
            | "while"
            | "xlate"
    )
}

/// Keywords that are type specifiers or qualifiers.
fn is_spec_keyword(w: &str) -> bool {
    matches!(
        w,
        "void"
            | "char"
            | "short"
            | "int"
            | "long"
            | "float"
            | "double"
            | "signed"
            | "unsigned"
            | "string"
            | "struct"
            | "union"
            | "enum"
            | "const"
            | "volatile"
            | "restrict"
    )
}

/// A storage class keyword; `self` and `this` only in declarations.
fn class_of(w: &str, d_scopes: bool) -> Option<Class> {
    Some(match w {
        "auto" => Class::Auto,
        "register" => Class::Register,
        "static" => Class::Static,
        "extern" => Class::Extern,
        "typedef" => Class::Typedef,
        "self" if d_scopes => Class::SelfScope,
        "this" if d_scopes => Class::This,
        _ => return None,
    })
}

/// Splits a backquote-scoped name: `name`, `` `name `` (no module) or
/// `` module`name ``; None if malformed (`` a`b`c ``, `` a` ``, `` a`1 ``).
fn split_scoped(w: &str) -> Option<(Option<&str>, &str)> {
    let Some((m, n)) = w.split_once('`') else {
        return Some((None, w));
    };
    if n.is_empty() || n.contains('`') || n.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    Some(((!m.is_empty()).then_some(m), n))
}

/// Words that begin a declaration at the outer level of a program (type
/// names too, see `Parser::outer_type_name`).
fn is_decl_start(w: &str) -> bool {
    matches!(w, "inline" | "translator" | "provider")
        || is_spec_keyword(w)
        || class_of(w, true).is_some()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Auto,
    Register,
    Static,
    Extern,
    Typedef,
    SelfScope,
    This,
}

/// Where specifiers are parsed: a declaration (any storage class, `self`,
/// `this`), a parameter (storage classes, only `register` valid), or a
/// type name or member (none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SpecCtx {
    Decl,
    Param,
    Plain,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DeclMode {
    /// Must declare a name (`int *p`).
    Named,
    /// Must not (`(int *)`).
    Abstract,
    /// Parameters: either.
    Either,
}

enum Base {
    Word(&'static str),
    Typedef(String),
    Spec(TypeSpec),
}

struct Specs {
    class: Option<Class>,
    spec: TypeSpec,
    is_const: bool,
    line: u32,
}

impl Specs {
    fn with(&self, derived: Vec<Derived>) -> TypeName {
        TypeName {
            spec: self.spec.clone(),
            is_const: self.is_const,
            derived,
            line: self.line,
        }
    }
}

/// A derivation as parsed: brackets holding types are an associative
/// array's keys, valid only next to a declared variable's name.
enum Deriv {
    D(Derived),
    Assoc(Vec<TypeName>, Token),
}

type Declarator = (Option<(String, u32)>, Vec<Deriv>);

/// A declared name may not carry a backquote scope.
fn check_decl_name(name: &str, line: u32) -> Result<(), CompileError> {
    if name.contains('`') {
        return Err(CompileError::new(
            Tag::D_DECL_SCOPE,
            line,
            format!(
                "D scoping operator may not be used in a declaration name ({})",
                name
            ),
        ));
    }
    Ok(())
}

/// The derivations of a declarator where associative brackets have no
/// place: they are a syntax error at their `[`.
fn plain_derived(d: Vec<Deriv>) -> Result<Vec<Derived>, CompileError> {
    d.into_iter()
        .map(|d| match d {
            Deriv::D(x) => Ok(x),
            Deriv::Assoc(_, open) => Err(syntax_error(&open)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Program {
        parse_program(s, &ParseOptions::default()).unwrap()
    }

    fn parse_file(s: &str) -> Result<Program, CompileError> {
        parse_program(
            s,
            &ParseOptions {
                is_file: true,
                ..Default::default()
            },
        )
    }

    fn clause(p: &Program, n: usize) -> &Clause {
        p.items
            .iter()
            .filter_map(|i| match i {
                Item::Clause(c) => Some(c),
                _ => None,
            })
            .nth(n)
            .unwrap()
    }

    #[test]
    fn parses_clauses_with_predicates_and_bodies() {
        let p = parse("syscall::read:entry, syscall::write:entry /pid == 1/ { x = 1; trace(x) }");
        let c = clause(&p, 0);
        assert_eq!(c.probes.len(), 2);
        assert_eq!(c.probes[1].text, "syscall::write:entry");
        assert!(c.predicate.is_some());
        assert_eq!(c.body.as_ref().unwrap().len(), 2);
    }

    #[test]
    fn division_inside_predicate_is_not_the_end() {
        let p = parse("BEGIN /(10 / 2) == 5 && 4 / 2 == 2/ { }");
        let c = clause(&p, 0);
        match &c.predicate.as_ref().unwrap().kind {
            ExprKind::Binary(BinOp::LogAnd, _, r) => {
                assert!(matches!(r.kind, ExprKind::Binary(BinOp::Eq, _, _)));
            }
            other => panic!("unexpected {:?}", other),
        }
    }

    #[test]
    fn bare_descriptions_are_allowed_on_the_command_line_only() {
        let p = parse("BEGIN");
        assert!(clause(&p, 0).body.is_none());
        let e = parse_file("BEGIN\n").unwrap_err();
        assert_eq!(e.tag, Tag::D_SYNTAX);
        assert!(e.msg.contains("expected predicate and/or actions"));
    }

    #[test]
    fn precedence_follows_c_and_d() {
        let p = parse("BEGIN { x = 1 + 2 * 3 << 1 == 14 || 0 ^^ 1 && 1; }");
        let body = clause(&p, 0).body.as_ref().unwrap();
        let Stmt::Expr(Expr {
            kind: ExprKind::Assign(None, _, rhs),
            ..
        }) = &body[0]
        else {
            panic!()
        };
        assert!(matches!(rhs.kind, ExprKind::Binary(BinOp::LogOr, _, _)));
    }

    #[test]
    fn parses_aggregations_variables_and_casts() {
        let p = parse("BEGIN { @a[execname, pid] = count(); self->t = (unsigned long)arg0; this->x = args[1]; @ = sum(1) }");
        let body = clause(&p, 0).body.as_ref().unwrap();
        assert_eq!(body.len(), 4);
        let Stmt::Expr(Expr {
            kind: ExprKind::Assign(None, lhs, _),
            ..
        }) = &body[1]
        else {
            panic!()
        };
        assert!(matches!(lhs.kind, ExprKind::SelfVar(_)));
    }

    #[test]
    fn reports_syntax_errors_with_the_token_and_line() {
        let e = parse_program("BEGIN\n{\n x = ;\n}", &ParseOptions::default()).unwrap_err();
        assert_eq!(e.line, Some(3));
        assert_eq!(e.msg, "syntax error near \";\"");
        let e = parse_program("BEGIN { x = 1", &ParseOptions::default()).unwrap_err();
        assert_eq!(e.msg, "syntax error near end of input");
    }

    #[test]
    fn reads_pragmas_declarations_and_shebang() {
        let p = parse("#!/usr/sbin/dtrace -s\n#pragma D option quiet\n#pragma D option bufsize=4m\nint x; self string s;\nBEGIN { }");
        assert!(
            matches!(&p.items[0], Item::Option { name, value: None, line: 2 } if name == "quiet")
        );
        assert!(matches!(&p.items[1], Item::Option { value: Some(v), .. } if v == "4m"));
        assert!(matches!(
            &p.items[2],
            Item::Decl(Decl {
                scope: DeclScope::Global,
                ..
            })
        ));
        assert!(matches!(
            &p.items[3],
            Item::Decl(Decl {
                scope: DeclScope::Thread,
                ..
            })
        ));
    }

    #[test]
    fn expands_macros_in_probe_descriptions() {
        let opts = ParseOptions {
            macros: vec![("target".into(), "42".into())],
            ..Default::default()
        };
        let p = parse_program("pid$target::malloc:entry { }", &opts).unwrap();
        assert_eq!(clause(&p, 0).probes[0].text, "pid42::malloc:entry");
    }

    #[test]
    fn parses_several_clauses_and_if_statements() {
        let p = parse("BEGIN { if (x) { y = 1; } else y = 2; } END { }");
        assert!(matches!(
            clause(&p, 0).body.as_ref().unwrap()[0],
            Stmt::If { .. }
        ));
        assert_eq!(clause(&p, 1).probes[0].text, "END");
    }

    // ---- declarations and types ----

    /// A type as a short string: the base, then each derivation from the
    /// base outward (`int *[4]` is "int * [4]").
    fn show(t: &TypeName) -> String {
        let mut out = match &t.spec {
            TypeSpec::Named { name, module } => match module {
                Some(m) => format!("{}`{}", m, name),
                None => name.clone(),
            },
            TypeSpec::Struct {
                union,
                name,
                module,
                ..
            } => format!(
                "{} {}{}",
                if *union { "union" } else { "struct" },
                module
                    .as_ref()
                    .map(|m| format!("{}`", m))
                    .unwrap_or_default(),
                name.as_deref().unwrap_or("(anon)")
            ),
            TypeSpec::Enum { name, .. } => format!("enum {}", name.as_deref().unwrap_or("(anon)")),
        };
        if t.is_const {
            out = format!("const {}", out);
        }
        for d in &t.derived {
            out.push(' ');
            match d {
                Derived::Ptr { is_const: false } => out.push('*'),
                Derived::Ptr { is_const: true } => out.push_str("*const"),
                Derived::Array(None) => out.push_str("[]"),
                Derived::Array(Some(e)) => match e.kind {
                    ExprKind::Int { value, .. } => out.push_str(&format!("[{}]", value)),
                    _ => out.push_str("[expr]"),
                },
                Derived::Func { params, variadic } => {
                    let mut ps: Vec<String> = params.iter().map(show).collect();
                    if *variadic {
                        ps.push("...".into());
                    }
                    out.push_str(&format!("({})", ps.join(", ")));
                }
            }
        }
        out
    }

    fn decls(p: &Program) -> Vec<&Decl> {
        p.items
            .iter()
            .filter_map(|i| match i {
                Item::Decl(d) => Some(d),
                _ => None,
            })
            .collect()
    }

    fn decl_shapes(src: &str) -> Vec<(String, String)> {
        let p = parse(src);
        decls(&p)
            .iter()
            .map(|d| (d.name.clone(), show(&d.ty)))
            .collect()
    }

    fn err_of(src: &str) -> CompileError {
        parse_program(src, &ParseOptions::default()).unwrap_err()
    }

    fn with_hook(names: &'static [&'static str]) -> ParseOptions {
        ParseOptions {
            type_names: Some(Arc::new(move |w: &str| names.contains(&w))),
            ..Default::default()
        }
    }

    /// The first statement's expression of the first clause.
    fn first_expr(p: &Program) -> &Expr {
        match &clause(p, 0).body.as_ref().unwrap()[0] {
            Stmt::Expr(e) => e,
            other => panic!("not an expression: {:?}", other),
        }
    }

    #[test]
    fn declarators_apply_in_c_order() {
        let cases: &[(&str, &str, &str)] = &[
            ("int *a[4];", "a", "int * [4]"),
            ("int (*fp)(int);", "fp", "int (int) *"),
            ("char **p;", "p", "char * *"),
            ("int m[2][3];", "m", "int [3] [2]"),
            ("int (*pa)[4];", "pa", "int [4] *"),
            ("int *(*g)(char *, ...);", "g", "int * (char *, ...) *"),
            ("const char * const cp;", "cp", "const char *const"),
            ("int (*fa[3])(void);", "fa", "int (void) * [3]"),
            ("int ((x));", "x", "int"),
            ("int *(*(*h)(int))[5];", "h", "int * [5] * (int) *"),
            ("int z[];", "z", "int []"),
            ("long unsigned int lu;", "lu", "unsigned long"),
            ("unsigned u;", "u", "unsigned int"),
            ("signed char sc;", "sc", "signed char"),
            ("short int si;", "si", "short"),
            ("long long ll;", "ll", "long long"),
            ("long double ld;", "ld", "long double"),
            ("uint64_t q;", "q", "uint64_t"),
            (
                "struct vmlinux`task_struct *t;",
                "t",
                "struct vmlinux`task_struct *",
            ),
            ("int n[4 * 2];", "n", "int [expr]"),
        ];
        for (src, name, shape) in cases {
            let got = decl_shapes(src);
            assert_eq!(got, vec![(name.to_string(), shape.to_string())], "{}", src);
        }
    }

    #[test]
    fn declarations_give_one_item_per_declarator_with_scope_and_keys() {
        let p = parse(
            "int a, *b; self int t; this string s; extern int max_pfn;\n\
             int f(int); static int g(void);\nint aa[string, int]; int *pb[int];",
        );
        let d = decls(&p);
        let got: Vec<(&str, DeclScope, String, Option<Vec<String>>)> = d
            .iter()
            .map(|d| {
                (
                    d.name.as_str(),
                    d.scope,
                    show(&d.ty),
                    d.keys.as_ref().map(|k| k.iter().map(show).collect()),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("a", DeclScope::Global, "int".into(), None),
                ("b", DeclScope::Global, "int *".into(), None),
                ("t", DeclScope::Thread, "int".into(), None),
                ("s", DeclScope::Clause, "string".into(), None),
                ("max_pfn", DeclScope::Extern, "int".into(), None),
                ("f", DeclScope::Extern, "int (int)".into(), None),
                ("g", DeclScope::Extern, "int (void)".into(), None),
                (
                    "aa",
                    DeclScope::Global,
                    "int".into(),
                    Some(vec!["string".into(), "int".into()])
                ),
                (
                    "pb",
                    DeclScope::Global,
                    "int *".into(),
                    Some(vec!["int".into()])
                ),
            ]
        );
        assert_eq!(d[4].line, 1);
        assert_eq!(d[8].line, 3);
    }

    #[test]
    fn parses_structs_with_bitfields_and_anonymous_unions() {
        let p = parse(
            "struct foo {\n int a : 3, : 2;\n unsigned b;\n union { int x; char *y; };\n \
             struct bar { int z; } inner, *pinner;\n};\nstruct fwd;\nunion u { long l; } uv;",
        );
        let Item::TypeDecl { ty, line: 1 } = &p.items[0] else {
            panic!("{:?}", p.items[0])
        };
        let TypeSpec::Struct {
            union: false,
            name: Some(n),
            module: None,
            members: Some(ms),
        } = &ty.spec
        else {
            panic!("{:?}", ty.spec)
        };
        assert_eq!(n, "foo");
        let summary: Vec<(Option<&str>, String, Option<u64>, u32)> = ms
            .iter()
            .map(|m| {
                (
                    m.name.as_deref(),
                    show(&m.ty),
                    m.bits.as_ref().map(|b| match b.kind {
                        ExprKind::Int { value, .. } => value,
                        _ => panic!(),
                    }),
                    m.line,
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                (Some("a"), "int".into(), Some(3), 2),
                (None, "int".into(), Some(2), 2),
                (Some("b"), "unsigned int".into(), None, 3),
                (None, "union (anon)".into(), None, 4),
                (Some("inner"), "struct bar".into(), None, 5),
                (Some("pinner"), "struct bar *".into(), None, 5),
            ]
        );
        let TypeSpec::Struct {
            union: true,
            members: Some(um),
            ..
        } = &ms[3].ty.spec
        else {
            panic!()
        };
        assert_eq!(um.len(), 2);
        assert_eq!(show(&um[1].ty), "char *");
        assert!(matches!(
            &p.items[1],
            Item::TypeDecl { ty: TypeName { spec: TypeSpec::Struct { members: None, name: Some(n), .. }, .. }, .. } if n == "fwd"
        ));
        // A definition with a declarator declares both.
        let d = decls(&p);
        assert_eq!(d[0].name, "uv");
        assert!(
            matches!(&d[0].ty.spec, TypeSpec::Struct { union: true, members: Some(m), .. } if m.len() == 1)
        );
    }

    #[test]
    fn parses_enums_with_values() {
        let p = parse("enum color { RED, GREEN = 5, BLUE = GREEN + 1 };\nenum color c;");
        let Item::TypeDecl { ty, .. } = &p.items[0] else {
            panic!()
        };
        let TypeSpec::Enum {
            name: Some(n),
            values: Some(v),
            ..
        } = &ty.spec
        else {
            panic!()
        };
        assert_eq!(n, "color");
        let names: Vec<_> = v
            .iter()
            .map(|e| (e.name.as_str(), e.value.is_some()))
            .collect();
        assert_eq!(names, vec![("RED", false), ("GREEN", true), ("BLUE", true)]);
        assert!(matches!(
            v[2].value.as_ref().unwrap().kind,
            ExprKind::Binary(BinOp::Add, _, _)
        ));
        assert_eq!(
            decl_shapes("enum color c;"),
            vec![("c".into(), "enum color".into())]
        );
    }

    #[test]
    fn typedefs_name_types_for_the_rest_of_the_program() {
        let p = parse(
            "typedef int (*handler_t)(int, char *);\ntypedef unsigned long ul_t, *ulp_t;\n\
             handler_t h;\nul_t *x;\nBEGIN { y = (ulp_t)0; z = (ul_t) - 1; }",
        );
        let tds: Vec<(&str, String)> = p
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Typedef { ty, name, .. } => Some((name.as_str(), show(ty))),
                _ => None,
            })
            .collect();
        assert_eq!(
            tds,
            vec![
                ("handler_t", "int (int, char *) *".into()),
                ("ul_t", "unsigned long".into()),
                ("ulp_t", "unsigned long *".into()),
            ]
        );
        assert_eq!(
            p.typedef_names().collect::<Vec<_>>(),
            vec!["handler_t", "ul_t", "ulp_t"]
        );
        let d = decls(&p);
        assert_eq!(show(&d[0].ty), "handler_t");
        assert_eq!(show(&d[1].ty), "ul_t *");
        let body = clause(&p, 0).body.as_ref().unwrap();
        let Stmt::Expr(Expr {
            kind: ExprKind::Assign(None, _, rhs),
            ..
        }) = &body[1]
        else {
            panic!()
        };
        // (ul_t) - 1 is a cast of -1, not a subtraction.
        let ExprKind::Cast(t, e) = &rhs.kind else {
            panic!("{:?}", rhs)
        };
        assert_eq!(show(t), "ul_t");
        assert!(matches!(e.kind, ExprKind::Unary(UnOp::Neg, _)));
    }

    #[test]
    fn a_parenthesised_name_is_a_cast_only_if_it_names_a_type() {
        let rhs_of = |p: &Program| match &first_expr(p).kind {
            ExprKind::Assign(None, _, rhs) => rhs.kind.clone(),
            other => panic!("{:?}", other),
        };
        // Unknown: a parenthesised variable minus x.
        let p = parse("BEGIN { y = (foo_t) - x; }");
        assert!(matches!(rhs_of(&p), ExprKind::Binary(BinOp::Sub, _, _)));
        // Declared by the program.
        let p = parse("typedef int foo_t;\nBEGIN { y = (foo_t) - x; }");
        assert!(matches!(rhs_of(&p), ExprKind::Cast(..)));
        // Known to the hook (a kernel typedef), scoped or not.
        let opts = with_hook(&["foo_t", "vmlinux`pid_t"]);
        let p = parse_program("BEGIN { y = (foo_t) - x; }", &opts).unwrap();
        assert!(matches!(rhs_of(&p), ExprKind::Cast(..)));
        let p = parse_program("BEGIN { y = (vmlinux`pid_t *)x; }", &opts).unwrap();
        let ExprKind::Cast(t, _) = rhs_of(&p) else {
            panic!()
        };
        assert_eq!(
            t.spec,
            TypeSpec::Named {
                name: "pid_t".into(),
                module: Some("vmlinux".into())
            }
        );
        assert_eq!(show(&t), "vmlinux`pid_t *");
        // The hook is not asked about keywords, and a type name followed
        // by `=` is a variable being assigned (DTrace's rule).
        let opts = with_hook(&["foo_t", "sizeof", "if"]);
        let p = parse_program("BEGIN { y = (foo_t = 3); }", &opts).unwrap();
        assert!(matches!(rhs_of(&p), ExprKind::Assign(..)));
        let p = parse_program("BEGIN { y = sizeof (x); }", &opts).unwrap();
        assert!(matches!(rhs_of(&p), ExprKind::SizeofExpr(_)));
        // A kernel typedef starts an outer-level declaration, but not a
        // probe description with a colon.
        let p = parse_program("foo_t v;\nfoo_t:::entry { }", &opts).unwrap();
        assert_eq!(decls(&p)[0].name, "v");
        assert_eq!(clause(&p, 0).probes[0].text, "foo_t:::entry");
        // A variable may take a type's name once the type is complete.
        assert_eq!(
            decl_shapes("int pid_t;"),
            vec![("pid_t".into(), "int".into())]
        );
    }

    #[test]
    fn parses_abstract_declarators_in_casts_and_sizeof() {
        let cases: &[(&str, &str)] = &[
            ("(int *)x", "int *"),
            ("(char (*)[4])x", "char [4] *"),
            ("(int (*)(int, long))x", "int (int, long) *"),
            ("(const unsigned char **)x", "const unsigned char * *"),
            (
                "(struct vmlinux`task_struct *)x",
                "struct vmlinux`task_struct *",
            ),
            ("(union u)x", "union u"),
            ("(enum e)x", "enum e"),
            ("(void (*[2])(void))x", "void (void) * [2]"),
            ("(string)x", "string"),
        ];
        for (src, shape) in cases {
            let p = parse(&format!("BEGIN {{ {}; }}", src));
            let ExprKind::Cast(t, _) = &first_expr(&p).kind else {
                panic!("{}: {:?}", src, first_expr(&p))
            };
            assert_eq!(show(t), *shape, "{}", src);
        }
        let p = parse("BEGIN { sizeof (struct foo); }");
        let ExprKind::SizeofType(t) = &first_expr(&p).kind else {
            panic!()
        };
        assert_eq!(show(t), "struct foo");
        // Inside a predicate, a division in an array size is not its end.
        let p = parse("BEGIN /sizeof (char [8 / 2]) == 4/ { }");
        assert!(clause(&p, 0).predicate.is_some());
    }

    #[test]
    fn parses_inline_definitions() {
        let p =
            parse("inline int NCPUS = 2;\ninline string s = \"x\";\ninline char *p = (char *)0;");
        let got: Vec<(&str, String, u32)> = p
            .items
            .iter()
            .map(|i| match i {
                Item::Inline { ty, name, line, .. } => (name.as_str(), show(ty), *line),
                other => panic!("{:?}", other),
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("NCPUS", "int".into(), 1),
                ("s", "string".into(), 2),
                ("p", "char *".into(), 3)
            ]
        );
        let Item::Inline { value, .. } = &p.items[0] else {
            panic!()
        };
        assert!(matches!(value.kind, ExprKind::Int { value: 2, .. }));
    }

    #[test]
    fn parses_translators() {
        let opts = with_hook(&["psinfo_t"]);
        let p = parse_program(
            "translator psinfo_t < struct task_struct *T > {\n pr_pid = T->tgid;\n pr_fname = stringof(T->comm);\n};\n\
             translator psinfo_t < int I > { };",
            &opts,
        )
        .unwrap();
        let Item::Translator {
            to,
            from,
            param,
            members,
            line: 1,
        } = &p.items[0]
        else {
            panic!("{:?}", p.items[0])
        };
        assert_eq!(show(to), "psinfo_t");
        assert_eq!(show(from), "struct task_struct *");
        assert_eq!(param, "T");
        let ms: Vec<(&str, u32)> = members.iter().map(|(n, _, l)| (n.as_str(), *l)).collect();
        assert_eq!(ms, vec![("pr_pid", 2), ("pr_fname", 3)]);
        assert!(matches!(members[0].1.kind, ExprKind::Arrow(_, ref m) if m == "tgid"));
        assert!(matches!(&p.items[1], Item::Translator { members, .. } if members.is_empty()));
    }

    #[test]
    fn parses_offsetof_xlate_and_backquoted_symbols() {
        let opts = with_hook(&["psinfo_t"]);
        let p = parse_program(
            "BEGIN { offsetof(struct foo, a.b); xlate<psinfo_t *>(curthread)->pr_pid; \
             `max_pfn + vmlinux`jiffies; }",
            &opts,
        )
        .unwrap();
        let body = clause(&p, 0).body.as_ref().unwrap();
        let Stmt::Expr(Expr {
            kind: ExprKind::Offsetof(t, path),
            ..
        }) = &body[0]
        else {
            panic!("{:?}", body[0])
        };
        assert_eq!(show(t), "struct foo");
        assert_eq!(path, &vec!["a".to_string(), "b".to_string()]);
        let Stmt::Expr(Expr {
            kind: ExprKind::Arrow(x, m),
            ..
        }) = &body[1]
        else {
            panic!("{:?}", body[1])
        };
        assert_eq!(m, "pr_pid");
        let ExprKind::Xlate(t, e) = &x.kind else {
            panic!()
        };
        assert_eq!(show(t), "psinfo_t *");
        assert!(matches!(&e.kind, ExprKind::Ident(n) if n == "curthread"));
        let Stmt::Expr(Expr {
            kind: ExprKind::Binary(BinOp::Add, a, b),
            ..
        }) = &body[2]
        else {
            panic!()
        };
        assert_eq!(
            a.kind,
            ExprKind::Symbol {
                module: None,
                name: "max_pfn".into()
            }
        );
        assert_eq!(
            b.kind,
            ExprKind::Symbol {
                module: Some("vmlinux".into()),
                name: "jiffies".into()
            }
        );
    }

    #[test]
    fn malformed_declarations_are_refused_in_dtrace_words() {
        let cases: &[(&str, Tag, &str)] = &[
            ("int int x;", Tag::D_DECL_COMBO, "invalid type combination"),
            ("struct s int x;", Tag::D_DECL_COMBO, "invalid type combination"),
            (
                "long long long x;",
                Tag::D_DECL_COMBO,
                "the attribute 'long' may only be used at most twice in a declaration",
            ),
            (
                "short short x;",
                Tag::D_DECL_COMBO,
                "the attribute 'short' may only be used at most once in a declaration",
            ),
            (
                "static int x;",
                Tag::D_DECL_BADCLASS,
                "specified storage class not appropriate in D",
            ),
            (
                "self static int x;",
                Tag::D_DECL_CLASS,
                "only one storage class allowed in a declaration",
            ),
            (
                "char long c;",
                Tag::D_DECL_CHARATTR,
                "invalid type declaration: short and long may not be used with char type",
            ),
            (
                "unsigned void v;",
                Tag::D_DECL_VOIDATTR,
                "invalid type declaration: attributes may not be used with void type",
            ),
            (
                "unsigned string s;",
                Tag::D_DECL_SIGNINT,
                "invalid type declaration: signed and unsigned may only be used with integer type",
            ),
            (
                "long struct s x;",
                Tag::D_DECL_LONGINT,
                "invalid type declaration: long and long long may only be used with integer or floating-point type",
            ),
            ("int;", Tag::D_DECL_USELESS, "useless declaration"),
            ("extern int;", Tag::D_DECL_USELESS, "useless declaration"),
            (
                "struct s { int; };",
                Tag::D_DECL_MNAME,
                "member declaration requires a name",
            ),
            (
                "int a[4][string];",
                Tag::D_DECL_DYNOBJ,
                "cannot declare array of associative arrays",
            ),
            (
                "int vmlinux`x;",
                Tag::D_DECL_SCOPE,
                "D scoping operator may not be used in a declaration name (vmlinux`x)",
            ),
            (
                "struct s { int a`b; };",
                Tag::D_DECL_SCOPE,
                "D scoping operator may not be used in a member name (a`b)",
            ),
            (
                "int f(static int);",
                Tag::D_DECL_PARMCLASS,
                "inappropriate storage class for function or associative array parameter",
            ),
            (
                "typedef int a_t;\ntypedef int a_t;",
                Tag::D_DECL_IDRED,
                "identifier redeclared: a_t",
            ),
            ("struct s { };", Tag::D_SYNTAX, "syntax error near \"}\""),
            ("enum e { A, };", Tag::D_SYNTAX, "syntax error near \"}\""),
            ("struct;", Tag::D_SYNTAX, "syntax error near \";\""),
            ("int x = 1;", Tag::D_SYNTAX, "syntax error near \"=\""),
            ("int *;", Tag::D_SYNTAX, "syntax error near \";\""),
            ("int (x;", Tag::D_SYNTAX, "syntax error near \";\""),
            ("typedef int t[string];", Tag::D_SYNTAX, "syntax error near \"[\""),
            ("inline int = 3;", Tag::D_SYNTAX, "syntax error near \"=\""),
            ("inline int x;", Tag::D_SYNTAX, "syntax error near \";\""),
            ("translator int < int > { };", Tag::D_SYNTAX, "syntax error near \">\""),
            ("BEGIN { (int *x; }", Tag::D_SYNTAX, "syntax error near \"x\""),
            ("BEGIN { xlate<int>(x; }", Tag::D_SYNTAX, "syntax error near \";\""),
            ("BEGIN { offsetof(struct foo); }", Tag::D_SYNTAX, "syntax error near \")\""),
            ("BEGIN { a`b`c; }", Tag::D_SYNTAX, "syntax error near \"a`b`c\""),
            ("BEGIN { x = `; }", Tag::D_SYNTAX, "syntax error near \"`\""),
            ("BEGIN { self->a`b = 1; }", Tag::D_SYNTAX, "syntax error near \"a`b\""),
        ];
        for (src, tag, msg) in cases {
            let e = err_of(src);
            assert_eq!((e.tag, e.msg.as_str()), (*tag, *msg), "{}", src);
        }
        assert_eq!(err_of("\n\nint int x;").line, Some(3));
    }

    #[test]
    fn deep_declarators_and_structs_are_bounded() {
        crate::on_compile_stack(deep_declarators_and_structs);
    }

    fn deep_declarators_and_structs() {
        let n = 6000;
        let src = format!("int {}x{};", "(".repeat(n), ")".repeat(n));
        let e = err_of(&src);
        assert!(e.msg.starts_with("program too complex"), "{}", e.msg);
        let src = format!("{}int a;{}", "struct { ".repeat(n), " } m;".repeat(n));
        let e = err_of(&src);
        assert!(e.msg.starts_with("program too complex"), "{}", e.msg);
        // Every derivation makes the type one level deeper.
        let src = format!("int x{};", "[1]".repeat(20_000));
        assert!(err_of(&src).msg.starts_with("program too complex"));
        let src = format!("BEGIN {{ (int {}){}0; }}", "*".repeat(20_000), "");
        assert!(parse_program(&src, &ParseOptions::default()).is_err());
        let src = format!("BEGIN {{ (int {}){}0; }}", "*".repeat(5_000), "");
        assert!(parse_program(&src, &ParseOptions::default()).is_ok());
    }

    #[test]
    fn standalone_type_names() {
        let any = ParseOptions {
            type_names: Some(Arc::new(|_: &str| true)),
            ..Default::default()
        };
        let shown =
            |t: &str| show(&parse_type_name(t, &any).unwrap_or_else(|e| panic!("{}: {}", t, e)));
        assert_eq!(shown("const char *"), "const char *");
        assert_eq!(shown("umode_t"), "umode_t");
        assert_eq!(shown("unsigned long"), "unsigned long");
        assert_eq!(shown("struct stat *"), "struct stat *");
        assert_eq!(shown("const char *const *"), "const char *const *");
        for bad in ["int x", "char *)", "", "int; int"] {
            assert!(parse_type_name(bad, &any).is_err(), "{}", bad);
        }
        // Without the hook an unknown name is not a type.
        assert!(parse_type_name("umode_t", &ParseOptions::default()).is_err());
    }

    #[test]
    fn huge_programs_are_refused_as_they_are_parsed() {
        // Two million terms: the chain is refused at MAX_DEPTH terms, not
        // after a tree of millions of nodes is built.
        let src = format!("BEGIN {{ trace({}); }}", vec!["1"; 2_000_000].join("+"));
        let e = err_of(&src);
        assert!(e.msg.contains("levels deep"), "{}", e.msg);
        // Flat, but more statements than any program can be.
        let src = format!("BEGIN {{ {} }}", "x = 1; ".repeat(400_000));
        let e = err_of(&src);
        assert!(
            e.msg.contains("operands, operators and statements"),
            "{}",
            e.msg
        );
        // A long program within the bounds still parses.
        let src = format!("BEGIN {{ {} }}", "x = 1; ".repeat(10_000));
        assert_eq!(parse(&src).items.len(), 1);
    }
}
