//! Names and scopes: macro variables, identifiers (built-ins, globals,
//! inlines, enumerators, translator parameters), thread- and clause-local
//! variables, associative arrays and assignment to them, subroutine calls
//! (their lowerings are in `funcs.rs`'s rows).

use super::*;

/// A member or element inside a D variable: the variable (or element),
/// the byte offset into it, the object's type and, for a bit-field, its
/// bit offset and width.
type VarField = (LValue, CExpr, Type, Option<(u64, u32)>);

impl Checker<'_> {
    pub(super) fn macro_var(
        &mut self,
        name: &str,
        quoted: bool,
        line: u32,
    ) -> Result<CExpr, CompileError> {
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

    pub(super) fn ident(&mut self, name: &str, line: u32) -> Result<CExpr, CompileError> {
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
            self.use_attr(
                self.ident_attr(name).unwrap_or(crate::attr::Attr::STABLE),
                || "scalar curthread".into(),
                line,
            )?;
            return Ok(mk(CKind::Builtin(Builtin::Curthread), ty));
        }
        if let Some((b, ty)) = builtin(name) {
            if let Some(a) = self.ident_attr(name) {
                self.use_attr(a, || format!("scalar {}", name), line)?;
            }
            return Ok(mk(CKind::Builtin(b), ty));
        }
        match name {
            // Linux has no zones: everything runs in the global one, as
            // DTrace for Linux says.
            "zonename" => return Ok(mk(CKind::Str(b"global".to_vec()), Type::String)),
            // The current process's working and root directories.
            "cwd" => return self.fs_path("pwd", line),
            "root" => return self.fs_path("root", line),
            "ipl" => {
                return Err(err(
                    Tag::D_NOTSUP,
                    line,
                    "ipl is not available: Linux has no interrupt priority levels",
                ))
            }
            "uregs" | "args" => {
                return Err(err(
                    Tag::D_IDENT_BADREF,
                    line,
                    format!(
                        "associative array '{}' may not be referenced as scalar",
                        name
                    ),
                ))
            }
            _ => {}
        }
        // D's NULL is the integer 0 (an int, as sizeof(NULL) says), which
        // any pointer takes and is compared with.
        if name == "NULL" && Symbols::find(&self.syms.globals, name).is_none() {
            return Ok(mk(CKind::Int(0), int_ty(types::INT)));
        }
        if let Some((_, v)) = self.enum_so_far.iter().find(|(n, _)| n == name) {
            return Ok(mk(CKind::Int(*v), int_ty(types::INT)));
        }
        if let Some((v, ty)) = self.syms.types.enumerator(name) {
            return Ok(mk(CKind::Int(v), ty));
        }
        if let Some((_, _, v)) = self.syms.inlines.iter().find(|(n, _, _)| n == name) {
            let v = CExpr { line, ..v.clone() };
            if let Some(a) = self.ident_attr(name) {
                self.use_attr(a, || format!("scalar {}", name), line)?;
            }
            return Ok(v);
        }
        if let Some(n) = name.strip_prefix("arg") {
            if let Ok(i) = n.parse::<u8>() {
                if i <= 9 && n.len() == 1 {
                    return Ok(mk(CKind::Arg(i), int_ty(types::INT64)));
                }
            }
        }
        if let Some(i) = Symbols::find(&self.syms.globals, name) {
            if let Some(a) = self.ident_attr(name) {
                self.use_attr(a, || format!("scalar {}", name), line)?;
            }
            return Ok(mk(
                CKind::Var(VarRef::Global(i)),
                self.syms.globals[i].ty.clone(),
            ));
        }
        if self.syms.arrays.iter().any(|a| a.name == name) {
            return Err(array_as_scalar(name, line));
        }
        if Symbols::find(&self.syms.externs, name).is_some() {
            let e = Expr::new(ExprKind::Ident(name.to_string()), line);
            if let Some(p) = self.place(&e)? {
                return self.load(p, line);
            }
        }
        Err(err(
            Tag::D_IDENT_UNDEF,
            line,
            format!("failed to resolve {}: Unknown variable name", name),
        ))
    }

    /// Resolves an assignable expression. For a variable not yet known,
    /// `declare` gives the type to declare it with.
    pub(super) fn lvalue(
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
                    || matches!(
                        name.as_str(),
                        "zonename" | "ipl" | "uregs" | "args" | "cwd" | "root"
                    )
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
                    return Err(array_as_scalar(name, line));
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
                    // Read (`x += 1`, `x++`) before any assignment.
                    None => Err(err(
                        Tag::D_VAR_UNDEF,
                        line,
                        format!("{} has not yet been declared or assigned", name),
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
            ExprKind::Member(..) | ExprKind::Index(..) if self.is_var_object(e) => {
                let (lv, off, ty, bits) = self.var_field(e, line, op)?;
                let limit = self.size_or_err(&self.lvalue_decl_type(&lv), line)? as u32;
                Ok((
                    LValue::Field {
                        base: Box::new(lv),
                        offset: Box::new(off),
                        ty: ty.clone(),
                        bits,
                        limit,
                    },
                    ty,
                ))
            }
            ExprKind::Unary(ast::UnOp::Deref, _) | ExprKind::Arrow(..) => {
                self.mem_lvalue(e, line, op)
            }
            ExprKind::Member(..) => self.mem_lvalue(e, line, op),
            ExprKind::Index(base, _) if self.names_pointer(base) => self.mem_lvalue(e, line, op),
            // An element of an array member of an object in memory
            // (`t->b[3] = 't'`).
            ExprKind::Index(base, _)
                if matches!(
                    base.kind,
                    ExprKind::Arrow(..)
                        | ExprKind::Member(..)
                        | ExprKind::Unary(ast::UnOp::Deref, _)
                ) =>
            {
                self.mem_lvalue(e, line, op)
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
                            format!("operator {} requires modifiable lvalue as an operand", op),
                        ))
                    }
                };
                if name == "args" || name == "uregs" {
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
                                format!(
                                    "scalar '{}' may not be referenced as associative array",
                                    name
                                ),
                            ));
                        }
                        let t = match declare {
                            Some(t) => decl_ty(t),
                            None => int_ty(types::INT64),
                        };
                        let hidden = usize::from(name.starts_with("self->"));
                        for (i, k) in keys.iter().enumerate().skip(hidden) {
                            if !is_key_type(&k.ty) {
                                return Err(err(
                                    Tag::D_KEY_TYPE,
                                    line,
                                    format!(
                                        "{} expression may not be used as associative array index: key #{}",
                                        k.ty,
                                        i + 1 - hidden
                                    ),
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
                format!("operator {} requires modifiable lvalue as an operand", op),
            )),
        }
    }

    /// A store into memory: the place `e` reads, a scalar (see
    /// `LValue::Mem`).
    fn mem_lvalue(
        &mut self,
        e: &Expr,
        line: u32,
        op: &str,
    ) -> Result<(LValue, Type), CompileError> {
        let v = self.expr(e)?;
        match v.kind {
            CKind::Deref(addr) if v.ty.is_scalar() && !v.ty.is_by_ref() => Ok((
                LValue::Mem {
                    addr,
                    ty: v.ty.clone(),
                },
                v.ty,
            )),
            _ => Err(err(
                Tag::D_OP_LVAL,
                line,
                format!("operator {} requires modifiable lvalue as an operand", op),
            )),
        }
    }

    /// True if `e` is a variable holding a pointer (so `e[i]` is memory,
    /// not an associative array).
    fn names_pointer(&self, e: &Expr) -> bool {
        let ty = match &e.kind {
            ExprKind::Ident(n) => {
                Symbols::find(&self.syms.globals, n).map(|i| &self.syms.globals[i].ty)
            }
            ExprKind::SelfVar(n) => {
                Symbols::find(&self.syms.threads, n).map(|i| &self.syms.threads[i].ty)
            }
            ExprKind::ThisVar(n) => self
                .syms
                .locals
                .iter()
                .find(|v| &v.name == n)
                .map(|v| &v.ty),
            _ => None,
        };
        ty.is_some_and(|t| t.pointee().is_some())
    }

    /// True if `e` is a member or element inside a D variable of struct,
    /// union or array type (which may be assigned to, as in DTrace).
    pub(super) fn is_var_object(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Member(b, _) => self.is_var_object(b) || self.by_ref_var(b).is_some(),
            ExprKind::Index(b, _) => self.is_var_object(b) || self.by_ref_var(b).is_some(),
            _ => false,
        }
    }

    /// The type of `e` if it names a D variable (or associative array
    /// element) of struct, union or array type.
    fn by_ref_var(&self, e: &Expr) -> Option<Type> {
        self.var_type(e).filter(Type::is_by_ref)
    }

    /// The type of `e` if it names a D variable or associative array
    /// element already declared.
    pub(super) fn var_type(&self, e: &Expr) -> Option<Type> {
        let ty = match &e.kind {
            ExprKind::Ident(n) => self.syms.globals.iter().find(|v| &v.name == n)?.ty.clone(),
            ExprKind::SelfVar(n) => self.syms.threads.iter().find(|v| &v.name == n)?.ty.clone(),
            ExprKind::ThisVar(n) => self.syms.locals.iter().find(|v| &v.name == n)?.ty.clone(),
            ExprKind::Index(b, _) => {
                let name = match &b.kind {
                    ExprKind::Ident(n) => n.clone(),
                    ExprKind::SelfVar(n) => format!("self->{}", n),
                    _ => return None,
                };
                self.syms
                    .arrays
                    .iter()
                    .find(|a| a.name == name)?
                    .value
                    .clone()
            }
            _ => return None,
        };
        Some(ty)
    }

    /// The declared type of what an lvalue names.
    fn lvalue_decl_type(&self, lv: &LValue) -> Type {
        match lv {
            LValue::Var(v) => self.syms.var(*v).ty.clone(),
            LValue::Elem(a, _) => self.syms.arrays[*a].value.clone(),
            LValue::Field { ty, .. } | LValue::Mem { ty, .. } => ty.clone(),
        }
    }

    /// A member or element inside a D variable: the variable (or
    /// element), the byte offset into it, the object's type and, for a
    /// bit-field, its bit offset and width.
    fn var_field(&mut self, e: &Expr, line: u32, op: &str) -> Result<VarField, CompileError> {
        let zero = |ty: &Type| CExpr {
            kind: CKind::Int(0),
            ty: Type::ptr(ty.clone()),
            line,
        };
        let inner = |this: &mut Self, b: &Expr| {
            if let Some(ty) = this.by_ref_var(b) {
                let (lv, _) = this.lvalue(b, None, line, op)?;
                Ok((lv, zero(&ty), ty, None))
            } else {
                this.var_field(b, line, op)
            }
        };
        match &e.kind {
            ExprKind::Member(b, m) => {
                let (lv, off, ty, bits) = inner(self, b)?;
                if bits.is_some() || !matches!(ty.resolved(), Type::Record(_)) {
                    return Err(err(
                        Tag::D_OP_SOU,
                        line,
                        format!(
                            "operator . cannot be applied to type \"{}\"; must be applied to a struct or union",
                            ty
                        ),
                    ));
                }
                let p = self.member_place(off, ty, m, ".", line)?;
                Ok((lv, p.addr, p.ty, p.bits))
            }
            ExprKind::Index(b, idx) => {
                let (lv, off, ty, bits) = inner(self, b)?;
                let elem = match ty.resolved() {
                    Type::Array(elem, _) if bits.is_none() => (**elem).clone(),
                    _ => {
                        return Err(err(
                            Tag::D_OP_LVAL,
                            line,
                            format!("operator {} requires modifiable lvalue as an operand", op),
                        ))
                    }
                };
                let addr = self.element(off, &elem, idx, line)?;
                Ok((lv, addr, elem, None))
            }
            _ => Err(err(
                Tag::D_OP_LVAL,
                line,
                format!("operator {} requires modifiable lvalue as an operand", op),
            )),
        }
    }

    /// True if `e` is a `self->` variable already known as a scalar.
    pub(super) fn is_scalar_var(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::SelfVar(n) => Symbols::find(&self.syms.threads, n).is_some(),
            _ => false,
        }
    }

    /// `self->name[keys]` read: an element of the thread's own associative
    /// array (a global array keyed by thread id first).
    pub(super) fn thread_elem(
        &mut self,
        name: &str,
        idx: &[Expr],
        line: u32,
    ) -> Result<CExpr, CompileError> {
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

    pub(super) fn check_keys(
        &self,
        id: ArrayId,
        keys: &[CExpr],
        line: u32,
    ) -> Result<(), CompileError> {
        let a = &self.syms.arrays[id];
        // A thread-local array's first key (the thread) is not written.
        let hidden = usize::from(a.name.starts_with("self->"));
        if a.keys.len() != keys.len() {
            let (got, want) = (keys.len() - hidden, a.keys.len() - hidden);
            return Err(err(
                Tag::D_PROTO_LEN,
                line,
                format!(
                    "{}[ ] prototype mismatch: {} key{} passed, {} expected",
                    a.name,
                    got,
                    if got == 1 { "" } else { "s" },
                    want
                ),
            ));
        }
        for (i, (k, t)) in keys.iter().zip(&a.keys).enumerate().skip(hidden) {
            let i = i - hidden;
            let zero = matches!(k.kind, CKind::Int(0));
            // Values kept as bytes (structs, unions, arrays, floats) match
            // only their own type; the others by argument compatibility.
            let bytes = |t: &Type| t.is_by_ref() || t.is_float();
            let ok = if bytes(t) || bytes(&k.ty) {
                t.same_as(&k.ty)
            } else {
                t.accepts_arg(&k.ty, zero) && (k.ty.is_scalar() || k.ty.is_string())
            };
            if !ok {
                return Err(err(
                    Tag::D_PROTO_ARG,
                    line,
                    format!(
                        "{}[ ] key #{} is incompatible with prototype:\n\tprototype: {}\n\t      key: {}",
                        a.name,
                        i + 1,
                        t,
                        k.ty
                    ),
                ));
            }
        }
        Ok(())
    }

    pub(super) fn assign(
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
        if let Some(o) = op {
            return self.compound_assign(o, &sym, lhs, rhs, line);
        }
        let v = self.expr(rhs)?;
        let v = self.materialize(v, line)?;
        if !(v.ty.is_scalar()
            || matches!(v.ty, Type::Translated { ptr: true, .. })
            || v.ty.is_string()
            || v.ty.is_void()
            || v.ty.is_float()
            || v.ty.is_by_ref())
        {
            return Err(err(
                Tag::D_NOTSUP,
                line,
                format!("variables of type {} are not yet supported", v.ty),
            ));
        }
        if v.ty == Type::Void {
            return Err(err(
                Tag::D_OP_VFPTR,
                line,
                format!("operator {} cannot be applied to a void expression", sym),
            ));
        }
        let (target, ty) = self.lvalue(lhs, Some(&v.ty), line, &sym)?;
        assignable_whole(&ty, &sym, line)?;
        // An array given to a pointer is its first element's address, as
        // in C (DTrace's pointer compatibility takes an array so).
        let v = match (ty.resolved(), v.ty.resolved().clone()) {
            (Type::Ptr(to), Type::Array(elem, _)) if to.compatible(&elem) || to.is_void() => {
                let line = v.line;
                CExpr {
                    kind: CKind::Cast(Box::new(v)),
                    ty: Type::ptr(*elem),
                    line,
                }
            }
            _ => v,
        };
        // DTrace's rule for scalars is its argument compatibility: an
        // integer is not a pointer (but for the constant 0), pointers
        // point to the same type or one is `void *`.
        let ok = if ty.is_scalar() && v.ty.is_scalar() || ty.is_string() && v.ty.is_int() {
            ty.accepts_arg(&v.ty, matches!(v.kind, CKind::Int(0)))
        } else {
            ty.compatible(&v.ty)
        };
        if !ok {
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

    /// `lhs op= rhs`: as in DTrace, the variable first (it must have
    /// been assigned), then the value, then the operator's rule: `+=`
    /// and `-=` take integers and pointers (never strings), `*=` and `/=`
    /// arithmetic types, the others integers.
    fn compound_assign(
        &mut self,
        op: BinOp,
        sym: &str,
        lhs: &Expr,
        rhs: &Expr,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let (target, ty) = self.lvalue(lhs, None, line, sym)?;
        let v = self.expr(rhs)?;
        let v = self.materialize(v, line)?;
        assignable_whole(&ty, sym, line)?;
        let incompat = || {
            err(
                Tag::D_OP_INCOMPAT,
                line,
                format!(
                    "operands have incompatible types: \"{}\" {} \"{}\"",
                    ty, sym, v.ty
                ),
            )
        };
        match op {
            BinOp::Add | BinOp::Sub => {
                if ty.is_string() || v.ty.is_string() {
                    return Err(incompat());
                }
                if !(ty.is_int() && v.ty.is_int()) {
                    let ptr = ty
                        .pointee()
                        .is_some_and(|p| !p.is_void() && !matches!(p.resolved(), Type::Func(_)));
                    if !ptr {
                        return Err(err(
                            Tag::D_OP_VFPTR,
                            line,
                            format!(
                                "operator {} requires left-hand scalar operand of known size",
                                sym
                            ),
                        ));
                    }
                    if !v.ty.is_int() {
                        return Err(incompat());
                    }
                }
            }
            BinOp::Mul | BinOp::Div => {
                if !(ty.is_scalar() && v.ty.is_scalar()) {
                    return Err(err(
                        Tag::D_OP_ARITH,
                        line,
                        format!("operator {} requires operands of arithmetic type", sym),
                    ));
                }
            }
            _ => {
                if !(ty.is_int() && v.ty.is_int()) {
                    return Err(err(
                        Tag::D_OP_INT,
                        line,
                        format!("operator {} requires operands of integral type", sym),
                    ));
                }
            }
        }
        let aop = arith_of(op);
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

    pub(super) fn index(
        &mut self,
        base: &Expr,
        idx: &[Expr],
        line: u32,
    ) -> Result<CExpr, CompileError> {
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
        if name == "uregs" {
            return self.uregs_index(idx, line);
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
            None if Symbols::find(&self.syms.globals, name).is_some() => Err(err(
                Tag::D_IDENT_BADREF,
                line,
                format!(
                    "scalar '{}' may not be referenced as associative array",
                    name
                ),
            )),
            None => Err(err(
                Tag::D_IDENT_UNDEF,
                line,
                format!("failed to resolve {}: Unknown variable name", name),
            )),
        }
    }

    /// A function called in an expression: its arguments, then the
    /// function itself count for the attributes (as DTrace cooks them).
    pub(super) fn call(
        &mut self,
        name: &str,
        args: &[Expr],
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let out = self.call_checked(name, args, line)?;
        if funcs::lookup(name).is_some() {
            let a = super::attrs::func_attr(name);
            self.use_attr(a, || format!("function {}( )", name), line)?;
        }
        Ok(out)
    }

    fn call_checked(
        &mut self,
        name: &str,
        args: &[Expr],
        line: u32,
    ) -> Result<CExpr, CompileError> {
        match funcs::lookup(name) {
            Some(f) => match f.lowering {
                funcs::Lowering::Subr(subr) => {
                    self.check_arity(f, args.len(), line)?;
                    let args = self.checked_args(f, args, line)?;
                    subr(self, args, line)
                }
                funcs::Lowering::Operator(op) => {
                    self.check_arity(f, args.len(), line)?;
                    op(self, args, line)
                }
                funcs::Lowering::Act(_) | funcs::Lowering::Agg => {
                    let e = self.call_outside_statement(f, args, line)?;
                    self.defer(e);
                    Ok(CExpr {
                        kind: CKind::Int(0),
                        ty: Type::Void,
                        line,
                    })
                }
                _ => Err(self.misplaced(f, line)),
            },
            None => Err(err(
                Tag::D_FUNC_UNDEF,
                line,
                format!("failed to resolve {}: Unknown function name", name),
            )),
        }
    }
}

impl Checker<'_> {
    /// An action or aggregating function called where a value is wanted:
    /// as DTrace does, its arguments are checked (their number, and each
    /// as an expression) and the call has type `void`, so that the
    /// expression around it refuses it by its own rule (a `void` key,
    /// printf argument or operand); the error returned is the one left
    /// when none does.
    pub(super) fn call_outside_statement(
        &mut self,
        f: &funcs::FuncDef,
        args: &[Expr],
        line: u32,
    ) -> Result<CompileError, CompileError> {
        self.check_arity(f, args.len(), line)?;
        for a in args {
            self.expr(a)?;
        }
        let kind = match f.role {
            funcs::Role::Aggregating => "aggregating function",
            _ => "tracing function",
        };
        Ok(err(
            Tag::D_CG_EXPR,
            line,
            format!(
                "{} {}( ) may not be called from a D expression (D program context required)",
                kind, f.name
            ),
        ))
    }
}

/// As in C, an array (a char array too: D's strings are not) or a
/// function is not assigned as a whole.
fn assignable_whole(ty: &Type, sym: &str, line: u32) -> Result<(), CompileError> {
    if matches!(ty.resolved(), Type::Array(..) | Type::Func(_)) {
        return Err(err(
            Tag::D_OP_ARRFUN,
            line,
            format!(
                "operator {} may not be applied to operand of type \"{}\"",
                sym, ty
            ),
        ));
    }
    Ok(())
}

/// DTrace's error for an associative array named without an index.
fn array_as_scalar(name: &str, line: u32) -> CompileError {
    err(
        Tag::D_IDENT_BADREF,
        line,
        format!(
            "associative array '{}' may not be referenced as scalar",
            name
        ),
    )
}

/// Types an associative array may be indexed by: any value but `void`,
/// functions and translations (as in DTrace, where only `void` and
/// dynamic expressions are refused).
fn is_key_type(t: &Type) -> bool {
    t.is_scalar() || t.is_string() || t.is_float() || t.is_by_ref()
}
