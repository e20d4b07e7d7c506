//! Expressions: C's precedence climbing with D's additions (`@`
//! aggregations, `self->`/`this->`, `` ` ``-quoted symbols, `xlate`,
//! `offsetof`, `stringof`), and the rule that tells a predicate's closing
//! `/` from a division.

use super::*;

impl Parser<'_> {
    pub fn expr(&mut self) -> Result<Expr, CompileError> {
        self.assignment()
    }

    pub(super) fn assignment(&mut self) -> Result<Expr, CompileError> {
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

    pub(super) fn conditional(&mut self) -> Result<Expr, CompileError> {
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
    pub(super) fn slash_closes_predicate(&mut self) -> bool {
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

    pub(super) fn binary(&mut self, min_prec: u8) -> Result<Expr, CompileError> {
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

    pub(super) fn cast(&mut self) -> Result<Expr, CompileError> {
        if self.peek_is("(")? {
            // Look past the parenthesis for a type name.
            let open = self.next()?;
            if self.starts_type(false)? {
                let ty = self.type_name()?;
                self.expect(")")?;
                let e = self.nested(|p| p.cast())?;
                // DTrace makes the node once its operand is whole, at
                // the token after it (the line its errors name).
                let line = self.peek()?.line;
                return Ok(Expr::new(ExprKind::Cast(ty, Box::new(e)), line));
            }
            self.rewind_to(&open);
        }
        self.unary()
    }

    pub(super) fn unary(&mut self) -> Result<Expr, CompileError> {
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

    pub(super) fn args_until(&mut self, close: &str) -> Result<Vec<Expr>, CompileError> {
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

    pub(super) fn postfix(&mut self) -> Result<Expr, CompileError> {
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
                        // `tick-1()`: only a name is called.
                        _ => {
                            return Err(CompileError::new(
                                Tag::D_FUNC_IDENT,
                                t.line,
                                "function designator is not of function type",
                            ))
                        }
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

    pub(super) fn primary(&mut self) -> Result<Expr, CompileError> {
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
                    return Err(self.syntax_error(&t));
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
                // Not a symbol's name (`` ` `` alone, `` a`b`c ``): as
                // DTrace, a name the lookup will not find, the module
                // what comes before the last backquote.
                None => {
                    let (m, n) = id.rsplit_once('`').unwrap_or(("", &id));
                    ExprKind::Symbol {
                        module: (!m.is_empty()).then(|| m.to_string()),
                        name: n.to_string(),
                    }
                }
            },
            // A reserved word (`typedef`, `int`, `return`...) is no
            // expression: DTrace's grammar stops at it.
            Tok::Ident(id) if super::is_reserved(&id) => {
                return Err(self.syntax_error(&Token {
                    tok: Tok::Ident(id),
                    line,
                    pos: t.pos,
                }))
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
            _ => return Err(self.syntax_error(&t)),
        };
        self.count_node(line)?;
        Ok(Expr::new(kind, line))
    }

    /// One more operand, operator or statement: past `MAX_NODES`, the
    /// program is refused.
    pub(super) fn count_node(&mut self, line: u32) -> Result<(), CompileError> {
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
pub(super) fn binop_of(p: &str) -> Option<(BinOp, u8)> {
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
