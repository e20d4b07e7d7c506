//! C declarations in D: specifiers (storage classes, qualifiers, `struct`,
//! `union` and `enum` bodies, typedef names), declarators in C's inside-
//! out order, abstract declarators for casts and `sizeof`, and the D items
//! built on them (`inline`, `provider`, `translator`).

use super::*;

impl Parser<'_> {
    /// An outer-level declaration: variables, typedefs, struct/union/enum
    /// definitions, `inline` and `translator`.
    pub(super) fn declaration(&mut self) -> Result<Vec<Item>, CompileError> {
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
                return Err(self.syntax_error(&t));
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
                            return Err(self.syntax_error(&open));
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
    pub(super) fn inline_definition(&mut self) -> Result<Item, CompileError> {
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
                    return Err(self.syntax_error(&open));
                };
                params.push((k, n));
            }
        }
        let Some((name, _)) = name else {
            let t = self.next()?;
            return Err(self.syntax_error(&t));
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
    pub(super) fn provider_definition(&mut self) -> Result<Item, CompileError> {
        let line = self.next()?.line;
        let (name, _) = self.ident()?;
        self.expect("{")?;
        let mut probes = Vec::new();
        while !self.eat("}")? {
            let t = self.next()?;
            let pline = t.line;
            match &t.tok {
                Tok::Ident(w) if w == "probe" => {}
                _ => return Err(self.syntax_error(&t)),
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
    pub(super) fn probe_parameters(&mut self) -> Result<Vec<TypeName>, CompileError> {
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
    pub(super) fn translator_definition(&mut self) -> Result<Item, CompileError> {
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
        let end_line = self.peek()?.line;
        self.expect(";")?;
        self.unpeek();
        Ok(Item::Translator {
            end_line,
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
    pub(super) fn specifiers(&mut self, ctx: SpecCtx) -> Result<Specs, CompileError> {
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
                    if signed || unsigned || long > 0 {
                        // DTrace checks the attributes when it has read
                        // the tag's name and the token after it.
                        self.next()?;
                        let name = self.next()?;
                        let at = match name.tok {
                            Tok::Punct("{") => name.line,
                            _ => self.peek()?.line,
                        };
                        return Err(if signed || unsigned {
                            CompileError::new(
                                Tag::D_DECL_SIGNINT,
                                at,
                                "invalid type declaration: signed and unsigned may only be used with integer type",
                            )
                        } else {
                            CompileError::new(
                                Tag::D_DECL_LONGINT,
                                at,
                                "invalid type declaration: long and long long may only be used with integer or floating-point type",
                            )
                        });
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
                                format!("typedef redeclared: {}", w),
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
            return Err(self.syntax_error(&t));
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
        // A combination of attributes no type has is looked up by the
        // name DTrace makes of it, and not found.
        let unknown = |base: Option<&str>| {
            let mut n = String::new();
            for (on, w) in [
                (signed, "signed "),
                (unsigned, "unsigned "),
                (short, "short "),
                (long == 1, "long "),
                (long == 2, "long long "),
            ] {
                if on {
                    n.push_str(w);
                }
            }
            match base {
                Some(b) if !(size_attr && b == "int") => n.push_str(b),
                _ => {}
            }
            CompileError::new(
                Tag::D_UNKNOWN,
                line,
                format!("failed to resolve type {}: Unknown type name", n),
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
                    return Err(unknown(Some("char")));
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
                    _ => return Err(unknown(Some(f))),
                }
            }
            Some(Base::Word("string")) => named("string"),
            // int, or attributes alone (`unsigned`, `long`), or nothing
            // but a storage class or qualifier: C's implicit int.
            _ => {
                if signed && unsigned || short && long > 0 {
                    let written = matches!(base, Some(Base::Word("int")));
                    return Err(unknown(written.then_some("int")));
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
    pub(super) fn tagged_type(&mut self, kw: &Token) -> Result<TypeSpec, CompileError> {
        let mut name = None;
        let mut module = None;
        let t = self.peek()?.clone();
        if let Tok::Ident(w) = &t.tok {
            if is_reserved(w) {
                return Err(self.syntax_error(&t));
            }
            let Some((m, n)) = split_scoped(w) else {
                return Err(self.syntax_error(&t));
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
                return Err(self.syntax_error(&t));
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
        // DTrace defines the type when it reads the `{`: one this
        // program defined already is redeclared there.
        let open = self.next()?;
        let keyword = if is_enum {
            "enum"
        } else if union {
            "union"
        } else {
            "struct"
        };
        if let Some(n) = &name {
            if module.is_none() && !self.defined_tags.insert(format!("{} {}", keyword, n)) {
                return Err(CompileError::new(
                    Tag::D_DECL_TYPERED,
                    open.line,
                    format!("type redeclared: {} {}", keyword, n),
                ));
            }
        }
        if is_enum {
            let mut values = Vec::new();
            loop {
                let (n, _) = self.ident()?;
                let value = if self.eat("=")? {
                    Some(self.nested(|p| p.conditional())?)
                } else {
                    None
                };
                // DTrace defines the enumerator once it has read the token
                // after it: its errors are at that token's line.
                let line = self.peek()?.line;
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
    pub(super) fn declarator(&mut self, mode: DeclMode) -> Result<Declarator, CompileError> {
        self.nested(|p| p.declarator_inner(mode))
    }

    pub(super) fn declarator_inner(&mut self, mode: DeclMode) -> Result<Declarator, CompileError> {
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
                    return Err(self.syntax_error(&t));
                }
                self.expect(")")?;
                name = n;
                inner = d;
            }
            _ if mode == DeclMode::Named => {
                let t = self.next()?;
                return Err(self.syntax_error(&t));
            }
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
    pub(super) fn paren_groups(&mut self, mode: DeclMode) -> Result<bool, CompileError> {
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
    pub(super) fn array_suffix(&mut self) -> Result<Deriv, CompileError> {
        let open = self.next()?;
        self.depth += 1;
        let r = (|| {
            if self.eat("]")? {
                return Ok(Deriv::D(Derived::Array(None)));
            }
            if self.peek_is("...")? {
                let line = self.peek()?.line;
                return Err(CompileError::new(
                    Tag::D_DECL_PROTO_VARARGS,
                    line,
                    "array prototype may not use a variable-length argument list",
                ));
            }
            if self.starts_type(true)? {
                let mut keys = Vec::new();
                let mut names = Vec::new();
                loop {
                    let line = self.peek()?.line;
                    let (k, n) = self.proto_parameter("array", keys.len() + 1, line)?;
                    if is_plain_void(&k) {
                        return Err(proto_type_error(
                            "array",
                            "void",
                            n.as_deref(),
                            keys.len() + 1,
                            line,
                        ));
                    }
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
    pub(super) fn function_suffix(&mut self) -> Result<Deriv, CompileError> {
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
                    let line = self.peek()?.line;
                    let (p, name) = self.proto_parameter("function", params.len() + 1, line)?;
                    let void = is_plain_void(&p);
                    if void {
                        if let Some(n) = name {
                            return Err(CompileError::new(
                                Tag::D_DECL_PROTO_NAME,
                                line,
                                format!("void parameter may not have a name: {}", n),
                            ));
                        }
                    }
                    params.push((p, void, line));
                    if self.eat(",")? {
                        continue;
                    }
                    self.expect(")")?;
                    break;
                }
            }
            if params.len() + usize::from(variadic) > 1 {
                if let Some((_, _, line)) = params.iter().find(|p| p.1) {
                    return Err(CompileError::new(
                        Tag::D_DECL_PROTO_VOID,
                        *line,
                        "void must be sole parameter",
                    ));
                }
            }
            let params = params.into_iter().map(|p| p.0).collect();
            Ok(Deriv::D(Derived::Func { params, variadic }))
        })();
        self.depth -= 1;
        r
    }

    /// One parameter of a function or key of an associative array: its
    /// name, if any, is dropped.
    pub(super) fn parameter(&mut self) -> Result<TypeName, CompileError> {
        Ok(self.named_parameter()?.0)
    }

    /// A parameter declaration and its name, if it has one.
    pub(super) fn named_parameter(&mut self) -> Result<(TypeName, Option<String>), CompileError> {
        let specs = self.specifiers(SpecCtx::Param)?;
        let (name, derivs) = self.declarator(DeclMode::Either)?;
        Ok((specs.with(plain_derived(derivs)?), name.map(|n| n.0)))
    }

    /// A parameter of a prototype (the `kind`'s `n`th): as
    /// [`Self::named_parameter`], but an associative array (`int a[int]`)
    /// is refused as DTrace refuses a parameter of dynamic type.
    fn proto_parameter(
        &mut self,
        kind: &str,
        n: usize,
        line: u32,
    ) -> Result<(TypeName, Option<String>), CompileError> {
        let specs = self.specifiers(SpecCtx::Param)?;
        let (name, derivs) = self.declarator(DeclMode::Either)?;
        let name = name.map(|n| n.0);
        if derivs.iter().any(|d| matches!(d, Deriv::Assoc(..))) {
            return Err(proto_type_error(
                kind,
                "dynamic variable",
                name.as_deref(),
                n,
                line,
            ));
        }
        Ok((specs.with(plain_derived(derivs)?), name))
    }

    /// A type name as in a cast: specifiers and an abstract declarator.
    pub(super) fn type_name(&mut self) -> Result<TypeName, CompileError> {
        let specs = self.specifiers(SpecCtx::Plain)?;
        let (_, derivs) = self.declarator(DeclMode::Abstract)?;
        Ok(specs.with(plain_derived(derivs)?))
    }

    // ---- expressions ----
}

/// Keywords that are type specifiers or qualifiers.
pub(super) fn is_spec_keyword(w: &str) -> bool {
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
pub(super) fn class_of(w: &str, d_scopes: bool) -> Option<Class> {
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
pub(super) fn split_scoped(w: &str) -> Option<(Option<&str>, &str)> {
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
pub(super) fn is_decl_start(w: &str) -> bool {
    matches!(w, "inline" | "translator" | "provider")
        || is_spec_keyword(w)
        || class_of(w, true).is_some()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Class {
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
pub(super) enum SpecCtx {
    Decl,
    Param,
    Plain,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DeclMode {
    /// Must declare a name (`int *p`).
    Named,
    /// Must not (`(int *)`).
    Abstract,
    /// Parameters: either.
    Either,
}

pub(super) enum Base {
    Word(&'static str),
    Typedef(String),
    Spec(TypeSpec),
}

pub(super) struct Specs {
    class: Option<Class>,
    spec: TypeSpec,
    is_const: bool,
    line: u32,
}

impl Specs {
    pub(super) fn with(&self, derived: Vec<Derived>) -> TypeName {
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
pub(super) enum Deriv {
    D(Derived),
    Assoc(Vec<TypeName>, Token),
}

type Declarator = (Option<(String, u32)>, Vec<Deriv>);

/// A declared name may not carry a backquote scope.
pub(super) fn check_decl_name(name: &str, line: u32) -> Result<(), CompileError> {
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
/// `void` itself (not a pointer to it).
fn is_plain_void(t: &TypeName) -> bool {
    t.derived.is_empty() && matches!(&t.spec, TypeSpec::Named { name, .. } if name == "void")
}

/// DTrace's refusal of a prototype's parameter for its type.
fn proto_type_error(kind: &str, ty: &str, name: Option<&str>, n: usize, line: u32) -> CompileError {
    CompileError::new(
        Tag::D_DECL_PROTO_TYPE,
        line,
        format!(
            "{} prototype may not use parameter of type {}: {}, parameter #{}",
            kind,
            ty,
            name.unwrap_or("(anonymous)"),
            n
        ),
    )
}

pub(super) fn plain_derived(d: Vec<Deriv>) -> Result<Vec<Derived>, CompileError> {
    d.into_iter()
        .map(|d| match d {
            Deriv::D(x) => Ok(x),
            Deriv::Assoc(_, open) => Err(CompileError::new(
                Tag::D_SYNTAX,
                open.line,
                format!("syntax error near \"{}\"", open.tok.describe()),
            )),
        })
        .collect()
}
