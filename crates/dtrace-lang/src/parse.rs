//! The D parser: program text to `ast::Program`. Recursive descent with C's
//! precedence levels plus D's `^^`, and DTrace's rule for telling the `/`
//! that closes a predicate from the division operator.

use crate::ast::*;
use crate::error::{CompileError, Tag};
use crate::lex::{Lexer, Tok, Token};
use crate::types::is_type_keyword;

/// What the parser needs to know about where the text came from.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// The text is a script file (`-s`): a bare probe description without
    /// predicate or actions is an error there, but not for `-n`.
    pub is_file: bool,
    /// Macro values for `$name` inside probe descriptions (`$1`, `$target`,
    /// `$pid`, ...).
    pub macros: Vec<(String, String)>,
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
    /// Macro names expanded inside probe descriptions.
    used_macros: Vec<String>,
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
    };
    let prog = p.program()?;
    check_depth(&prog)?;
    Ok((prog, p.used_macros))
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

/// Refuses trees deeper than `MAX_DEPTH`, walking them without recursion.
fn check_depth(prog: &Program) -> Result<(), CompileError> {
    enum Node<'a> {
        E(&'a Expr),
        S(&'a Stmt),
    }
    let mut work: Vec<(Node, u32)> = Vec::new();
    for item in &prog.items {
        if let Item::Clause(c) = item {
            if let Some(p) = &c.predicate {
                work.push((Node::E(p), 1));
            }
            for s in c.body.iter().flatten() {
                work.push((Node::S(s), 1));
            }
        }
    }
    while let Some((node, d)) = work.pop() {
        let line = match node {
            Node::E(e) => e.line,
            Node::S(Stmt::If { line, .. }) => *line,
            Node::S(_) => 0,
        };
        if d > MAX_DEPTH {
            return Err(CompileError::new(
                Tag::D_SYNTAX,
                line,
                format!(
                    "program too complex: expression or statement more than {} levels deep",
                    MAX_DEPTH
                ),
            ));
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
            Node::E(e) => match &e.kind {
                ExprKind::Unary(_, a)
                | ExprKind::Member(a, _)
                | ExprKind::Arrow(a, _)
                | ExprKind::Cast(_, a)
                | ExprKind::SizeofExpr(a)
                | ExprKind::Stringof(a) => work.push((Node::E(a), n)),
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

    fn ident(&mut self) -> Result<(String, u32), CompileError> {
        let t = self.next()?;
        match t.tok {
            Tok::Ident(s) => Ok((s, t.line)),
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
                Tok::Ident(id) if is_decl_start(id) => {
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

    fn directive(&mut self, text: &str, line: u32) -> Result<Option<Item>, CompileError> {
        let mut words = text.split_whitespace();
        match words.next() {
            Some("pragma") => {}
            // cpp's line markers and empty directives are harmless.
            Some("line") | None => return Ok(None),
            Some(w) if w.chars().all(|c| c.is_ascii_digit()) => return Ok(None),
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
            Some("attributes") | Some("binding") | Some("depends_on") | Some("error")
            | Some("ident") | Some("line") => Ok(None),
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

    fn declaration(&mut self) -> Result<Vec<Item>, CompileError> {
        let line = self.peek()?.line;
        let scope = match &self.peek()?.tok {
            Tok::Ident(s) if s == "self" => {
                self.next()?;
                DeclScope::Thread
            }
            Tok::Ident(s) if s == "this" => {
                self.next()?;
                DeclScope::Clause
            }
            _ => DeclScope::Global,
        };
        if let Tok::Ident(s) = &self.peek()?.tok {
            if matches!(
                s.as_str(),
                "inline" | "typedef" | "struct" | "union" | "enum" | "translator" | "provider"
            ) {
                return Err(CompileError::new(
                    Tag::D_NOTSUP,
                    line,
                    format!("{} declarations are not yet supported", s),
                ));
            }
        }
        let base = self.type_base()?;
        let mut items = Vec::new();
        loop {
            let mut pointers = 0;
            while self.eat("*")? {
                pointers += 1;
            }
            let (name, nline) = self.ident()?;
            let keys = if self.eat("[")? {
                let mut keys = Vec::new();
                if !self.peek_is("]")? {
                    loop {
                        keys.push(self.type_name()?);
                        if !self.eat(",")? {
                            break;
                        }
                    }
                }
                self.expect("]")?;
                Some(keys)
            } else {
                None
            };
            items.push(Item::Decl(Decl {
                scope,
                ty: TypeName {
                    base: base.clone(),
                    pointers,
                },
                name,
                keys,
                line: nline,
            }));
            if !self.eat(",")? {
                break;
            }
        }
        self.expect(";")?;
        self.unpeek();
        Ok(items)
    }

    /// The words of a type's base: `unsigned long long`, `string`,
    /// `uint64_t`, `const char`.
    fn type_base(&mut self) -> Result<String, CompileError> {
        let mut words: Vec<String> = Vec::new();
        loop {
            let is_word = match &self.peek()?.tok {
                Tok::Ident(s) => {
                    // A second base type ends the type (`int x` vs `unsigned int`).
                    is_type_keyword(s) && (is_modifier(s) || words.iter().all(|w| is_modifier(w)))
                }
                _ => false,
            };
            if !is_word {
                break;
            }
            let (w, _) = self.ident()?;
            if w != "const" && w != "volatile" && w != "register" && w != "static" && w != "extern"
            {
                words.push(w);
            }
        }
        if words.is_empty() {
            let t = self.next()?;
            return Err(syntax_error(&t));
        }
        Ok(words.join(" "))
    }

    fn type_name(&mut self) -> Result<TypeName, CompileError> {
        let base = self.type_base()?;
        let mut pointers = 0;
        while self.eat("*")? {
            pointers += 1;
        }
        Ok(TypeName { base, pointers })
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
            let rhs = self.binary(prec + 1)?;
            lhs = Expr::new(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), line);
        }
        Ok(lhs)
    }

    fn starts_type(&mut self) -> Result<bool, CompileError> {
        Ok(matches!(&self.peek()?.tok, Tok::Ident(s) if is_type_keyword(s)))
    }

    fn cast(&mut self) -> Result<Expr, CompileError> {
        if self.peek_is("(")? {
            // Look past the parenthesis for a type name.
            let open = self.next()?;
            if self.starts_type()? {
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
                    if self.starts_type()? {
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
        Ok(Expr::new(kind, line))
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

fn is_modifier(w: &str) -> bool {
    matches!(
        w,
        "unsigned"
            | "signed"
            | "long"
            | "short"
            | "const"
            | "volatile"
            | "register"
            | "static"
            | "extern"
    )
}

/// Words that begin a declaration at the outer level of a program.
fn is_decl_start(w: &str) -> bool {
    matches!(
        w,
        "self"
            | "this"
            | "inline"
            | "typedef"
            | "struct"
            | "union"
            | "enum"
            | "translator"
            | "provider"
    ) || is_type_keyword(w)
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
}
