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

mod decl;
mod expr;
#[cfg(test)]
mod tests;

use decl::*;

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
    /// The `pspec` option: at the outer level, what could be a
    /// declaration is a probe description (`int*x` describes probes).
    pub pspec: bool,
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
    /// What `#pragma` lines inside a clause's body said (options apply
    /// to the whole program, as in DTrace): added after the clause.
    body_items: Vec<Item>,
    /// Where the control lines read by `token` began.
    directives_read: std::collections::HashSet<usize>,
    /// The struct, union and enum tags this program defines (`struct
    /// foo`), as their definitions begin.
    defined_tags: HashSet<String>,
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
    parse_program_or_prefix(src, opts).map_err(|(e, _)| e)
}

/// As `parse_program_with_macros`; an error comes with the declarations
/// and definitions parsed whole before it (DTrace checks those as it
/// parses them, so an error of theirs comes before a later syntax
/// error).
pub fn parse_program_or_prefix(
    src: &(impl AsRef<[u8]> + ?Sized),
    opts: &ParseOptions,
) -> Result<(Program, Vec<String>), (CompileError, Vec<Item>)> {
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
        body_items: Vec::new(),
        directives_read: std::collections::HashSet::new(),
        defined_tags: HashSet::new(),
    };
    let mut items = Vec::new();
    let prog = match p.program(&mut items) {
        Ok(prog) => prog,
        Err(e) => {
            let e = match e.line {
                Some(at) if e.tag == Tag::D_SYNTAX => {
                    unbalanced(strip_shebang(src.as_ref()), at).unwrap_or(e)
                }
                _ => e,
            };
            items.retain(|i| !matches!(i, Item::Clause(_)));
            return Err((e, items));
        }
    };
    check_depth(&prog).map_err(|e| (e, Vec::new()))?;
    Ok((prog, p.used_macros))
}

/// DTrace's lexer counts parentheses, brackets and braces as it goes and
/// stops at the first closing one without an opening one, and at a `/`
/// that ends a predicate (`{`, `;`, `/` or the end follow it) while one
/// is open: for a syntax error at or after such a place, its words.
fn unbalanced(src: &[u8], error_line: u32) -> Option<CompileError> {
    let mut lex = Lexer::new(src);
    let (mut parens, mut brackets, mut braces) = (0i32, 0i32, 0i32);
    loop {
        let t = lex.next_token().ok()?;
        if t.line > error_line {
            return None;
        }
        let extra = |what: &str| {
            CompileError::new(
                Tag::D_SYNTAX,
                t.line,
                format!("extra {} in input stream", what),
            )
        };
        match t.tok {
            Tok::Eof => return None,
            Tok::Punct("(") => parens += 1,
            Tok::Punct("[") => brackets += 1,
            Tok::Punct("{") => braces += 1,
            Tok::Punct(")") => {
                parens -= 1;
                if parens < 0 {
                    return Some(extra(")"));
                }
            }
            Tok::Punct("]") => {
                brackets -= 1;
                if brackets < 0 {
                    return Some(extra("]"));
                }
            }
            Tok::Punct("}") => {
                braces -= 1;
                if braces < 0 {
                    return Some(extra("}"));
                }
            }
            Tok::Punct("/") if parens > 0 || brackets > 0 => {
                let next = lex.next_token().ok()?;
                if matches!(next.tok, Tok::Eof | Tok::Punct(";" | "{" | "/")) {
                    let what = if parens > 0 { ")" } else { "]" };
                    return Some(CompileError::new(
                        Tag::D_SYNTAX,
                        next.line,
                        format!("closing {} expected in predicate before /", what),
                    ));
                }
                lex.reset(next.pos, next.line);
            }
            _ => {}
        }
    }
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
        body_items: Vec::new(),
        directives_read: std::collections::HashSet::new(),
        defined_tags: HashSet::new(),
    };
    let t = p.type_name()?;
    let next = p.next()?;
    if next.tok != Tok::Eof {
        return Err(p.syntax_error(&next));
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
pub use crate::attr::{CLASS_NAMES as CLASSES, STABILITY_NAMES as STABILITIES};

/// `Name/Data/Class` (`Evolving/Evolving/Common`) as DTrace reads it
/// (`dtrace_str2attr`: words in any case, parts left out the highest),
/// spelled out.
fn parse_attributes(spec: &str) -> Option<(String, String, String)> {
    let a = crate::attr::Attr::parse(spec)?;
    Some((
        a.name.name().to_string(),
        a.data.name().to_string(),
        a.class.name().to_string(),
    ))
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
            Item::Attributes { .. } | Item::IdentAttributes { .. } => {}
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
            Node::S(Stmt::Comma(es)) => work.extend(es.iter().map(|e| (Node::E(e), n))),
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

impl<'a> Parser<'a> {
    /// A syntax error at token `t`. DTrace's lexer looks past an
    /// identifier (for its rule that tells type names from variables)
    /// and pushes back what it read, which leaves the rest of the line in
    /// the identifier's text: its message shows them
    /// (`near "vnode_t, v_no_such_member));"`).
    fn syntax_error(&self, t: &Token) -> CompileError {
        let msg = match &t.tok {
            Tok::Eof => "syntax error near end of input".to_string(),
            Tok::Ident(id) if !is_reserved(id) => {
                format!("syntax error near \"{}\"", self.lex.rest_of_line(t.pos))
            }
            other => format!("syntax error near \"{}\"", other.describe()),
        };
        CompileError::new(Tag::D_SYNTAX, t.line, msg)
    }

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
            self.peeked = Some(self.token()?);
        }
        Ok(self.peeked.as_ref().expect("just filled"))
    }

    fn next(&mut self) -> Result<Token, CompileError> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self.token(),
        }
    }

    /// The next token. A control line on the way (`#pragma` in the
    /// middle of a declaration) is read as DTrace's lexer reads it,
    /// where it stands: once, however often the parser backs up over it.
    fn token(&mut self) -> Result<Token, CompileError> {
        while self.lex.at_line_directive()? {
            let pos = self.lex.pos();
            let (text, line) = self.lex.directive_line()?;
            if self.directives_read.insert(pos) {
                if let Some(item) = self.directive(&text, line)? {
                    self.body_items.push(item);
                }
            }
        }
        self.lex.next_token()
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
            _ => Err(self.syntax_error(&t)),
        }
    }

    /// An identifier without backquote scope.
    fn ident(&mut self) -> Result<(String, u32), CompileError> {
        let t = self.next()?;
        match t.tok {
            Tok::Ident(s) if !s.contains('`') => Ok((s, t.line)),
            _ => Err(self.syntax_error(&t)),
        }
    }

    /// The program's items, into `items` as they are parsed (what was
    /// parsed before an error stays there).
    fn program(&mut self, items: &mut Vec<Item>) -> Result<Program, CompileError> {
        loop {
            debug_assert!(self.peeked.is_none());
            if self.lex.at_directive()? {
                let (text, line) = self.lex.directive_line()?;
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
                Tok::Ident(id)
                    if !self.opts.pspec
                        && (is_decl_start(id) || self.outer_type_name(id, pos, line)?) =>
                {
                    self.lex.reset(pos, line);
                    items.extend(self.declaration()?);
                    items.append(&mut self.body_items);
                }
                _ => {
                    self.lex.reset(pos, line);
                    items.push(Item::Clause(self.clause()?));
                    items.append(&mut self.body_items);
                }
            }
        }
        Ok(Program {
            items: std::mem::take(items),
        })
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
            Some("error") => return Err(pragma_error(words, line)),
            Some("ident") => return Ok(None),
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
            Some("error") => return Err(pragma_error(words, line)),
            // Other pragmas (ident, once, ...) are for cpp or are ignored.
            _ => return Ok(None),
        }
        match words.next() {
            Some("option") => {
                let rest: Vec<&str> = words.collect();
                if rest.is_empty() {
                    return Err(CompileError::new(
                        Tag::D_PRAGMA_MALFORM,
                        line,
                        "malformed #pragma option <option>=<val>",
                    ));
                }
                if rest.len() > 1 {
                    return Err(CompileError::new(
                        Tag::D_PRAGMA_MALFORM,
                        line,
                        "superfluous arguments specified for #pragma option",
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
                    [kind @ ("library" | "provider" | "module" | "member"), name] => {
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
                if rest.len() < 2 {
                    return Err(CompileError::new(
                        Tag::D_PRAGMA_MALFORM,
                        line,
                        "malformed #pragma attributes <attributes> <ident>",
                    ));
                }
                let Some(attr) = parse_attributes(rest[0]) else {
                    return Err(CompileError::new(
                        Tag::D_PRAGMA_INVAL,
                        line,
                        "invalid attributes specified by #pragma attributes",
                    ));
                };
                match rest.as_slice() {
                    // Of a provider defined in D: `A/B/C provider NAME PART`.
                    [_, "provider", name, part] => {
                        if !matches!(*part, "provider" | "module" | "function" | "name" | "args") {
                            return Err(CompileError::new(
                                Tag::D_PRAGMA_INVAL,
                                line,
                                format!(
                                    "invalid component \"{}\" in attribute #pragma for provider {}",
                                    part, name
                                ),
                            ));
                        }
                        Ok(Some(Item::Attributes {
                            provider: name.to_string(),
                            part: part.to_string(),
                            attr,
                            line,
                        }))
                    }
                    // Of an identifier the program defines.
                    [spec, name] => Ok(Some(Item::IdentAttributes {
                        name: name.trim_end_matches(';').to_string(),
                        attr: crate::attr::Attr::parse(spec).unwrap_or(crate::attr::Attr::MAX),
                        line,
                    })),
                    _ => Err(CompileError::new(
                        Tag::D_PRAGMA_MALFORM,
                        line,
                        "malformed #pragma attributes <attributes> <ident>",
                    )),
                }
            }
            Some("error") => Err(pragma_error(words, line)),
            Some("binding") | Some("ident") | Some("line") => Ok(None),
            Some(other) => Err(CompileError::new(
                Tag::D_PRAGMA_INVAL,
                line,
                format!("invalid D pragma: {}", other),
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
                    return Err(self.syntax_error(&t));
                }
            }
            if !self.eat(",")? {
                break;
            }
        }
        let first_line = probes.first().map(|p| p.line).unwrap_or(line);
        let mut predicate = None;
        let mut pred_end_line = 0;
        if self.peek_is("/")? {
            self.next()?;
            self.in_predicate = true;
            self.depth = 0;
            let e = self.expr();
            self.in_predicate = false;
            predicate = Some(e?);
            self.expect("/")?;
            pred_end_line = self.peek()?.line;
        }
        let body = if self.peek_is("{")? {
            self.next()?;
            Some(self.statements_until_brace()?)
        } else {
            let t = self.peek()?.clone();
            if predicate.is_none() && self.opts.is_file {
                // On the description's line, where DTrace's lexer is.
                let line = probes.last().map_or(t.line, |p| p.line);
                return Err(CompileError::new(
                    Tag::D_SYNTAX,
                    line,
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
                _ => return Err(self.syntax_error(&t)),
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
            end_line: self.lex.line(),
            pred_end_line,
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
            // A directive may stand on a line of its own among statements.
            if self.peeked.is_none() && self.lex.at_directive()? {
                let (text, line) = self.lex.directive_line()?;
                if let Some(item) = self.directive(&text, line)? {
                    self.body_items.push(item);
                }
                continue;
            }
            if self.eat("}")? {
                return Ok(out);
            }
            if self.eat(";")? {
                continue;
            }
            let s = self.statement()?;
            let needs_semi = matches!(s, Stmt::Expr(_) | Stmt::Comma(_));
            out.push(s);
            if needs_semi && !self.eat(";")? && !self.peek_is("}")? {
                let t = self.next()?;
                return Err(self.syntax_error(&t));
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
        let first = self.expr()?;
        if !self.peek_is(",")? {
            return Ok(Stmt::Expr(first));
        }
        let mut all = vec![first];
        while self.eat(",")? {
            all.push(self.nested(|p| p.expr())?);
        }
        Ok(Stmt::Comma(all))
    }

    fn block_or_statement(&mut self) -> Result<Vec<Stmt>, CompileError> {
        if self.eat("{")? {
            return self.statements_until_brace();
        }
        let s = self.statement()?;
        if matches!(s, Stmt::Expr(_) | Stmt::Comma(_)) && !self.eat(";")? && !self.peek_is("}")? {
            let t = self.next()?;
            return Err(self.syntax_error(&t));
        }
        Ok(vec![s])
    }
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

/// `#error` (or `#pragma D error`): DTrace's message is the directive's
/// words (a quoted string as one, without its quotes), each followed by a
/// space.
fn pragma_error<'a>(words: impl Iterator<Item = &'a str>, line: u32) -> CompileError {
    let rest: Vec<&str> = words.collect();
    let text = rest.join(" ");
    let mut msg = String::from("#error: ");
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        let mut word = String::new();
        if c == '"' {
            for c in chars.by_ref() {
                if c == '"' {
                    break;
                }
                word.push(c);
            }
        } else {
            word.push(c);
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() {
                    break;
                }
                word.push(c);
                chars.next();
            }
        }
        msg.push_str(&word);
        msg.push(' ');
    }
    CompileError::new(Tag::D_PRAGERR, line, msg)
}
