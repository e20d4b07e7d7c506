//! Expressions: identifiers and literals, the unary and binary operators
//! with C's conversions and D's rules (string comparison, pointer
//! arithmetic, enumerator tags), and what each lowers to.

use super::*;

impl Checker<'_> {
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
            ExprKind::SelfVar(name) => Ok(self.scoped_var(true, name, line)),
            ExprKind::ThisVar(name) => Ok(self.scoped_var(false, name, line)),
            // An aggregation named as a value has DTrace's dynamic type,
            // which the operators around it refuse, or code generation.
            ExprKind::Agg { name, keys } => {
                if keys.is_none() && self.syms.agg_by_name(name).is_none() {
                    return Err(err(
                        Tag::D_IDENT_UNDEF,
                        line,
                        format!("failed to resolve @{}: Unknown variable name", name),
                    ));
                }
                for k in keys.iter().flatten() {
                    self.expr(k)?;
                }
                self.defer(err(
                    Tag::D_CG_DYN,
                    line,
                    "expression cannot evaluate to result of dynamic type",
                ));
                Ok(mk(CKind::Int(0), Type::Dyn))
            }
            ExprKind::Unary(op, inner) => self.unary(*op, inner, line),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, line),
            ExprKind::Assign(op, lhs, rhs) => self.assign(*op, lhs, rhs, line),
            ExprKind::Ternary(c, a, b) => {
                let c = self.expr(c)?;
                if !c.ty.is_scalar() {
                    return Err(err(
                        Tag::D_OP_SCALAR,
                        line,
                        "operator ?: expression must be of scalar type",
                    ));
                }
                let (ea, eb) = (a, b);
                let a = self.expr(a)?;
                let b = self.expr(b)?;
                if a.ty.is_dyn() || b.ty.is_dyn() {
                    return Err(err(
                        Tag::D_OP_DYN,
                        line,
                        "operator ?: operands cannot be of dynamic type",
                    ));
                }
                let null = |e: &CExpr| matches!(e.kind, CKind::Int(0));
                let ty = match (a.ty.resolved(), b.ty.resolved()) {
                    (Type::String, Type::String) => Type::String,
                    (Type::Void, Type::Void) => Type::Void,
                    // Pointers keep their type; NULL or a void * takes
                    // the other's.
                    (Type::Ptr(x), Type::Ptr(y)) if x.same_as(y) => a.ty.clone(),
                    (Type::Ptr(_), _) if null(&b) || b.ty.pointee().is_some_and(Type::is_void) => {
                        a.ty.clone()
                    }
                    (_, Type::Ptr(_)) if null(&a) || a.ty.pointee().is_some_and(Type::is_void) => {
                        b.ty.clone()
                    }
                    // Floats and structs of one type: either value.
                    (x, y) if (x.is_float() || x.is_by_ref()) && x.compatible(y) => a.ty.clone(),
                    (x, y) if x.is_scalar() && y.is_scalar() => int_ty(types::dtrace_promote(
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
                if is_action_call(ea) || is_action_call(eb) {
                    return Err(err(
                        Tag::D_OP_ACT,
                        line,
                        "action cannot be used in a conditional context",
                    ));
                }
                Ok(fold(mk(
                    CKind::Ternary(Box::new(c), Box::new(a), Box::new(b)),
                    ty,
                )))
            }
            ExprKind::Call(name, args) => self.call(name, args, line),
            ExprKind::Index(base, _)
                if matches!(base.kind, ExprKind::Agg { keys: Some(_), .. }) =>
            {
                Err(multi_dim(base))
            }
            ExprKind::Index(base, idx) if self.is_inline_fn(base) => {
                self.call_inline_fn(base, idx, line)
            }
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
                self.use_type(&to, line)?;
                // An array converts as its address (a char array is not
                // read as a string first).
                // A translated member is computed by its translator.
                let place = if self.is_translated(inner)? {
                    None
                } else {
                    self.place(inner)?
                };
                let v = match place {
                    Some(p) if matches!(p.ty.resolved(), Type::Array(..)) && p.bits.is_none() => {
                        CExpr { ty: p.ty, ..p.addr }
                    }
                    Some(p) => self.load(p, line)?,
                    None => self.expr(inner)?,
                };
                // Arrays are their address: they convert as pointers.
                let from_scalar = v.ty.is_scalar() || matches!(v.ty.resolved(), Type::Array(..));
                match (to.resolved(), v.ty.resolved()) {
                    (Type::String, Type::String) => Ok(v),
                    // A cast to the value's own type (a float or a struct).
                    (t, _) if (t.is_float() || t.is_by_ref()) && to.compatible(&v.ty) => {
                        Ok(CExpr { ty: to, ..v })
                    }
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
                    _ => {
                        // Translated data is named by what it is, as
                        // DTrace names its dynamic types.
                        let from = match &inner.kind {
                            ExprKind::Xlate(t, _) if self.type_name(t, line)?.is_ptr() => {
                                "pointer to translated data".to_string()
                            }
                            ExprKind::Xlate(..) => "translated data".to_string(),
                            _ => v.ty.to_string(),
                        };
                        Err(err(
                            Tag::D_CAST_INVAL,
                            line,
                            format!("invalid cast expression: \"{}\" to \"{}\"", from, to),
                        ))
                    }
                }
            }
            ExprKind::SizeofType(t) => {
                let ty = self.type_name(t, line)?;
                self.use_type(&ty, line)?;
                let sz = self.size_or_err(&ty, line)?;
                Ok(mk(CKind::Int(sz as i64), int_ty(types::SIZE_T)))
            }
            ExprKind::Symbol { .. } => match self.place(e)? {
                Some(p) => self.load(p, line),
                None => Err(err(Tag::D_IDENT_UNDEF, line, "failed to resolve symbol")),
            },
            ExprKind::Offsetof(t, path) => self.offsetof(t, path, line),
            ExprKind::Xlate(t, inner) => self.xlate(t, inner, line),
            // A string constant is its characters and a NUL, as in C.
            ExprKind::SizeofExpr(inner) if matches!(inner.kind, ExprKind::Str(_)) => {
                let n = match &inner.kind {
                    ExprKind::Str(s) => s.len() as i64 + 1,
                    _ => 0,
                };
                Ok(mk(CKind::Int(n), int_ty(types::SIZE_T)))
            }
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
                        format!("cannot apply stringof to a value of type {}", v.ty),
                    )),
                }
            }
        }
    }

    pub(super) fn unary(
        &mut self,
        op: UnOp,
        inner: &Expr,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let mk = |kind: CKind, ty: Type| CExpr { kind, ty, line };
        match op {
            UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec => {
                let sym = match op {
                    UnOp::PreInc | UnOp::PostInc => "++",
                    _ => "--",
                };
                // As in DTrace, `x++` makes a new `x` a 64-bit integer.
                let (target, ty) = self.lvalue(inner, Some(&int_ty(types::INT64)), line, sym)?;
                if !ty.is_scalar() {
                    return Err(err(
                        Tag::D_OP_SCALAR,
                        line,
                        format!("operator {} requires operand of scalar type", sym),
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
                    ExprKind::Ident(_)
                        | ExprKind::SelfVar(_)
                        | ExprKind::ThisVar(_)
                        | ExprKind::Agg { .. }
                ) {
                    return Err(err(
                        Tag::D_ADDROF_VAR,
                        line,
                        "cannot take address of dynamic variable",
                    ));
                }
                let Some(p) = self.place(inner)? else {
                    // An element of an associative array is a variable too.
                    let tag_var = matches!(&inner.kind, ExprKind::Index(b, _)
                        if matches!(b.kind, ExprKind::Ident(_) | ExprKind::SelfVar(_)));
                    return Err(if tag_var {
                        err(
                            Tag::D_ADDROF_VAR,
                            line,
                            "cannot take address of dynamic variable",
                        )
                    } else {
                        err(
                            Tag::D_ADDROF_LVAL,
                            line,
                            "unacceptable operand for unary & operator",
                        )
                    });
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
                    let tag = if op == UnOp::BitNot {
                        Tag::D_OP_INT
                    } else {
                        Tag::D_OP_ARITH
                    };
                    return Err(err(
                        tag,
                        line,
                        format!("operator {} requires an operand of {} type", sym, what),
                    ));
                };
                // DTrace gives the result the operand's type.
                let ty = int_ty(it);
                match op {
                    UnOp::Plus => Ok(CExpr { ty, ..v }),
                    UnOp::Neg => Ok(fold(mk(CKind::Unary(UnaryOp::Neg, Box::new(v)), ty))),
                    _ => Ok(fold(mk(CKind::Unary(UnaryOp::BitNot, Box::new(v)), ty))),
                }
            }
        }
    }

    pub(super) fn binary(
        &mut self,
        op: BinOp,
        a: &Expr,
        b: &Expr,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let mk = |kind: CKind, ty: Type| CExpr { kind, ty, line };
        let l = self.expr(a)?;
        let r = match self.enum_tag(op, &l, b)? {
            Some(r) => r,
            None => self.expr(b)?,
        };
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
                // A translated pointer compares as the pointer it is
                // translated from (`args[3] != NULL`: whether a packet
                // has a socket).
                let as_input = |v: CExpr| match v.ty {
                    Type::Translated { ptr: true, .. } => CExpr {
                        ty: int_ty(types::UINTPTR_T),
                        ..v
                    },
                    _ => v,
                };
                let translated = |t: &Type| matches!(t, Type::Translated { ptr: true, .. });
                if translated(&l.ty) || translated(&r.ty) {
                    let ok = |t: &Type| translated(t) || t.pointee().is_some() || t.is_int();
                    if ok(&l.ty) && ok(&r.ty) {
                        return Ok(mk(
                            CKind::Cmp(cop, Box::new(as_input(l)), Box::new(as_input(r)), false),
                            int_ty(types::INT),
                        ));
                    }
                }
                // A string compares with NULL by its address (a string
                // subroutine's result may be NULL: `strchr(s, c) != NULL`).
                let null = |v: &CExpr| {
                    matches!(v.kind, CKind::Int(0)) && (v.ty.is_int() || v.ty.pointee().is_some())
                };
                if matches!(cop, CmpOp::Eq | CmpOp::Ne)
                    && ((l.ty.is_string() && null(&r)) || (r.ty.is_string() && null(&l)))
                {
                    let addr = |v: CExpr| {
                        if v.ty.is_string() {
                            let line = v.line;
                            CExpr {
                                kind: CKind::StrAddr(Box::new(v)),
                                ty: int_ty(types::UINTPTR_T),
                                line,
                            }
                        } else {
                            CExpr {
                                ty: int_ty(types::UINTPTR_T),
                                ..v
                            }
                        }
                    };
                    return Ok(mk(
                        CKind::Cmp(cop, Box::new(addr(l)), Box::new(addr(r)), false),
                        int_ty(types::INT),
                    ));
                }
                match (&l.ty, &r.ty) {
                    (Type::String, Type::String) => Ok(fold(mk(
                        CKind::StrCmp(cop, Box::new(l), Box::new(r)),
                        int_ty(types::INT),
                    ))),
                    // Floats of one type compare as numbers (DTrace
                    // accepts compatible types; it compares their bits).
                    (x, y) if x.is_float() && !x.is_by_ref() && x.compatible(y) => {
                        let key = |v: CExpr| {
                            Box::new(CExpr {
                                kind: CKind::FloatOrder(Box::new(v)),
                                ty: int_ty(types::INT64),
                                line,
                            })
                        };
                        Ok(mk(
                            CKind::Cmp(cop, key(l), key(r), true),
                            int_ty(types::INT),
                        ))
                    }
                    (x, y) if x.is_float() && x.compatible(y) => Err(err(
                        Tag::D_NOTSUP,
                        line,
                        format!(
                            "operator {} on values of type {} is not supported",
                            op.symbol(),
                            x
                        ),
                    )),
                    (x, y) if x.is_scalar() && y.is_scalar() => {
                        let t = types::dtrace_promote(
                            x.as_int().expect("scalar"),
                            y.as_int().expect("scalar"),
                        );
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
                // A string plus (or minus) an integer is the string from
                // that offset on (DTrace for Linux's string arithmetic).
                match op {
                    BinOp::Add | BinOp::Sub if l.ty.is_string() && r.ty.is_int() => {
                        let off = if op == BinOp::Sub {
                            let ty = r.ty.clone();
                            fold(mk(CKind::Unary(UnaryOp::Neg, Box::new(r)), ty))
                        } else {
                            r
                        };
                        let ty = l.ty.clone();
                        return Ok(mk(CKind::StrOffset(Box::new(l), Box::new(off)), ty));
                    }
                    BinOp::Add if r.ty.is_string() && l.ty.is_int() => {
                        let ty = r.ty.clone();
                        return Ok(mk(CKind::StrOffset(Box::new(r), Box::new(l)), ty));
                    }
                    _ => {}
                }
                // A pointer to void or to a function is not one the
                // additive operators move (DTrace's dt_node_is_vfptr).
                let movable = |t: &Type| {
                    t.pointee()
                        .filter(|p| !matches!(p.resolved(), Type::Void | Type::Func(_)))
                        .cloned()
                };
                let lp = movable(&l.ty);
                let rp = movable(&r.ty);
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
                        if !a.same_as(b) || sa != sb {
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
                    // D's additive operators take integers and pointers.
                    (BinOp::Add | BinOp::Sub, _, _) if !(l.ty.is_int() && r.ty.is_int()) => {
                        return Err(err(
                            Tag::D_OP_INCOMPAT,
                            line,
                            format!(
                                "operands have incompatible types: \"{}\" {} \"{}\"",
                                l.ty,
                                op.symbol(),
                                r.ty
                            ),
                        ));
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
                    let arith = matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div);
                    let (what, tag) = if arith {
                        ("arithmetic", Tag::D_OP_ARITH)
                    } else {
                        ("integral", Tag::D_OP_INT)
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
                };
                // As DTrace types them: a shift has its left operand's
                // type, the others the operand of higher rank's, with no
                // promotion to int (dt_node_promote, dt_type_promote).
                let ty = if matches!(op, BinOp::Shl | BinOp::Shr) {
                    x
                } else {
                    types::dtrace_promote(x, y)
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
}

/// The hidden first key of a thread-local associative array: the thread.
/// True if `e` calls an action (`trace()`, `printf()`...).
fn is_action_call(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call(name, _)
        if funcs::lookup(name).is_some_and(|f| f.role == funcs::Role::Action))
}

/// DTrace's error for `@a[k1][k2]` (`agg` is `@a[k1]`).
pub(super) fn multi_dim(agg: &Expr) -> CompileError {
    let name = match &agg.kind {
        ExprKind::Agg { name, .. } => name.as_str(),
        _ => "",
    };
    err(
        Tag::D_AGG_MDIM,
        agg.line,
        format!(
            "improper attempt to reference @{} as a multi-dimensional array",
            name
        ),
    )
}

pub(super) fn thread_key(line: u32) -> CExpr {
    CExpr {
        kind: CKind::Builtin(Builtin::Tid),
        ty: int_ty(types::ID_T),
        line,
    }
}

/// The stored type of a key: small integers widen to 64 bits so that
/// tuples from different uses agree.
pub(super) fn key_type(t: &Type) -> Type {
    t.clone()
}

pub(super) fn arith_of(op: BinOp) -> ArithOp {
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

impl Checker<'_> {
    /// D's rule for comparisons: an unscoped name on the right of a
    /// comparison whose left side is an enum (a kernel's too) may name
    /// one of that enum's tags (`this->t->policy == SCHED_NORMAL` style);
    /// it is then that tag's value, typed as the enum.
    pub(super) fn enum_tag(
        &mut self,
        op: BinOp,
        l: &CExpr,
        b: &Expr,
    ) -> Result<Option<CExpr>, CompileError> {
        let (Type::Enum(r, _), ExprKind::Ident(name)) = (l.ty.resolved(), &b.kind) else {
            return Ok(None);
        };
        if !op.is_comparison() || name.contains('`') {
            return Ok(None);
        }
        let def = self.syms.types.enum_def(r);
        let Some(&(_, value)) = def.values.iter().find(|(n, _)| n == name) else {
            return Ok(None);
        };
        let global = if Symbols::find(&self.syms.globals, name).is_some() {
            Some("scalar")
        } else if self.syms.arrays.iter().any(|a| &a.name == name) {
            Some("associative array")
        } else {
            None
        };
        if let Some(kind) = global {
            return Err(err(
                Tag::D_IDENT_AMBIG,
                b.line,
                format!(
                    "ambiguous use of operator {}: {} is both a {} enum tag and a global {}",
                    op.symbol(),
                    name,
                    l.ty,
                    kind
                ),
            ));
        }
        Ok(Some(CExpr {
            kind: CKind::Int(value),
            ty: l.ty.clone(),
            line: b.line,
        }))
    }
}
