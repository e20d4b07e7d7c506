//! Objects in memory: what `->`, `.`, unary `*`, `&` and indexing a
//! pointer or array denote. A [`Place`] is an address and the type of the
//! object there; reading it ([`Checker::load`]) becomes a kernel read of a
//! scalar (`CKind::Deref`, which faults with DTrace's "invalid address"
//! error) or of a `float`/`double`'s bits, a string read for a `char`
//! array, or, for a struct, union, other array or `long double`, the
//! address itself: values of those types are handled by reference, as
//! DTrace's are.

use super::{err, Checker};
use crate::ast::{Expr, ExprKind};
use crate::error::{CompileError, Tag};
use crate::ir::{ArithOp, CExpr, CKind};
use crate::types::{self, IntType, PerCpu, SymbolError, Type, TypeError};

/// An object in memory.
pub(super) struct Place {
    /// Its address (a pointer-typed expression).
    pub addr: CExpr,
    pub ty: Type,
    /// For a bitfield: its bit offset from `addr` and its width.
    pub bits: Option<(u64, u32)>,
}

/// The address arithmetic `base + off` as an expression of type `ty`.
pub(super) fn offset(base: CExpr, off: u64, ty: Type) -> CExpr {
    let line = base.line;
    if off == 0 {
        return CExpr { ty, ..base };
    }
    if let CKind::Int(b) = base.kind {
        return CExpr {
            kind: CKind::Int(b.wrapping_add(off as i64)),
            ty,
            line,
        };
    }
    CExpr {
        kind: CKind::Arith(
            ArithOp::Add,
            Box::new(base),
            Box::new(CExpr {
                kind: CKind::Int(off as i64),
                ty: Type::Int(types::UINTPTR_T),
                line,
            }),
        ),
        ty,
        line,
    }
}

/// `v * n` as an expression of `v`'s type (constants folded).
pub(super) fn scaled(v: CExpr, n: u64) -> CExpr {
    if n == 1 {
        return v;
    }
    let line = v.line;
    let ty = Type::Int(types::INT64);
    if let CKind::Int(x) = v.kind {
        return CExpr {
            kind: CKind::Int(x.wrapping_mul(n as i64)),
            ty,
            line,
        };
    }
    CExpr {
        kind: CKind::Arith(
            ArithOp::Mul,
            Box::new(v),
            Box::new(CExpr {
                kind: CKind::Int(n as i64),
                ty: ty.clone(),
                line,
            }),
        ),
        ty,
        line,
    }
}

/// True for `char` (and `signed`/`unsigned char`) arrays, which D reads as
/// strings.
pub(super) fn is_char_array(t: &Type) -> bool {
    matches!(t.resolved(), Type::Array(e, _) if matches!(e.resolved(), Type::Int(i) if i.size == 1))
}

impl Checker<'_> {
    /// The size of `t`, or DTrace's error for an operand without one.
    pub(super) fn size_or_err(&mut self, t: &Type, line: u32) -> Result<u64, CompileError> {
        self.syms.types.size_of(t).map_err(|e| match e {
            TypeError::TooLarge => err(Tag::D_TYPE_ERR, line, format!("type {} is too large", t)),
            _ => err(
                Tag::D_SIZEOF_TYPE,
                line,
                "cannot apply sizeof to an operand of unknown size",
            ),
        })
    }

    /// The object `e` denotes, if `e` is one (`p->m`, `s.m`, `*p`, `a[i]`
    /// of a pointer or array); None for any other expression.
    pub(super) fn place(&mut self, e: &Expr) -> Result<Option<Place>, CompileError> {
        let line = e.line;
        // A translated member (`curpsinfo->pr_fname`) is a value the
        // translator computes, not an object: `curpsinfo->pr_fname[0]`
        // indexes that value.
        if matches!(e.kind, ExprKind::Arrow(..) | ExprKind::Member(..)) && self.is_translated(e)? {
            return Ok(None);
        }
        match &e.kind {
            ExprKind::Arrow(base, m) => {
                let p = self.expr(base)?;
                let pointee = match p.ty.resolved() {
                    Type::Ptr(t) => (**t).clone(),
                    _ => {
                        return Err(err(
                            Tag::D_OP_PTR,
                            line,
                            "operator -> must be applied to a pointer",
                        ))
                    }
                };
                self.member_place(p, pointee, m, "->", line).map(Some)
            }
            ExprKind::Member(base, m) => {
                let obj = match self.object(base)? {
                    Ok(o) if o.bits.is_none() => o,
                    // A value, or a bit-field: not a struct or union.
                    other => {
                        let ty = match other {
                            Ok(o) => o.ty,
                            Err(v) => v.ty,
                        };
                        return Err(err(
                            Tag::D_OP_SOU,
                            line,
                            format!(
                                "operator . cannot be applied to type \"{}\"; must be applied to a struct or union",
                                ty
                            ),
                        ));
                    }
                };
                self.member_place(obj.addr, obj.ty, m, ".", line).map(Some)
            }
            ExprKind::Unary(crate::ast::UnOp::Deref, inner) => {
                let p = self.expr(inner)?;
                let pointee = match p.ty.pointee() {
                    Some(t) => t.clone(),
                    None => {
                        return Err(err(
                            Tag::D_DEREF_NONPTR,
                            line,
                            "cannot dereference non-pointer type",
                        ))
                    }
                };
                match pointee.resolved() {
                    Type::Void => Err(err(
                        Tag::D_DEREF_VOID,
                        line,
                        "cannot dereference pointer to void",
                    )),
                    Type::Func(_) => Err(err(
                        Tag::D_DEREF_FUNC,
                        line,
                        "cannot dereference pointer to function",
                    )),
                    _ => Ok(Some(Place {
                        addr: CExpr {
                            ty: Type::ptr(pointee.clone()),
                            ..p
                        },
                        ty: pointee,
                        bits: None,
                    })),
                }
            }
            ExprKind::Index(base, idx) if !self.is_array_name(base) => {
                let declared = self.translated_member_type(base)?;
                let b = match self.object(base)? {
                    // An array object: its elements follow its address.
                    Ok(o) if matches!(o.ty.resolved(), Type::Array(..)) && o.bits.is_none() => {
                        CExpr {
                            ty: o.ty.clone(),
                            ..o.addr
                        }
                    }
                    Ok(o) => self.load(o, line)?,
                    Err(v) => v,
                };
                // A constant index past an array's end is refused (arrays
                // of 0 or 1 elements are often the open end of a
                // structure, and are not checked).
                let array = declared.as_ref().unwrap_or(&b.ty).resolved();
                if let (Type::Array(_, n), [i]) = (array, &idx[..]) {
                    let n = *n;
                    if n > 1 {
                        if let Some(v) = self.const_int(i) {
                            if v as u64 >= u64::from(n) {
                                return Err(err(
                                    Tag::D_ARR_BOUNDS,
                                    line,
                                    format!(
                                        "index outside array bounds: {}, max is {}",
                                        v as u64, n
                                    ),
                                ));
                            }
                        }
                    }
                }
                // A string is an array of char (DTrace's `string` type):
                // `s[i]` is the char at its address plus i.
                let b = if b.ty.is_string() {
                    let char_ptr = Type::ptr(Type::Int(types::CHAR));
                    CExpr {
                        kind: CKind::StrAddr(Box::new(b)),
                        ty: char_ptr,
                        line,
                    }
                } else {
                    b
                };
                let Some(elem) = b.ty.pointee().cloned() else {
                    return Ok(None);
                };
                let addr = self.element(b, &elem, idx, line)?;
                Ok(Some(Place {
                    addr,
                    ty: elem,
                    bits: None,
                }))
            }
            ExprKind::Symbol { module, name } => self
                .symbol_place(module.as_deref(), name, None, line)
                .map(Some),
            // A kernel variable declared `extern`, of its declared type.
            ExprKind::Ident(name) => match super::Symbols::find(&self.syms.externs, name) {
                Some(i) => {
                    let ty = self.syms.externs[i].ty.clone();
                    self.symbol_place(None, name, Some(ty), line).map(Some)
                }
                None => Ok(None),
            },
            _ => Ok(None),
        }
    }

    /// A kernel symbol: the object at its address, of its BTF type.
    fn symbol_place(
        &mut self,
        module: Option<&str>,
        name: &str,
        declared: Option<Type>,
        line: u32,
    ) -> Result<Place, CompileError> {
        let shown = format!("{}`{}", module.unwrap_or(""), name);
        let Some(ext) = self.syms.types.external() else {
            return Err(err(
                Tag::D_IDENT_UNDEF,
                line,
                format!("failed to resolve {}: Unknown symbol name", shown),
            ));
        };
        // A name no kernel has (`` ` `` alone, `` a`b`c ``) is not
        // looked up.
        let malformed = name.is_empty() || module.is_some_and(|m| m.contains('`'));
        let sym = if malformed {
            Err(SymbolError::NotFound)
        } else {
            ext.symbol(name, module)
        };
        let sym = sym.map_err(|e| match e {
            SymbolError::NotFound => err(
                Tag::D_IDENT_UNDEF,
                line,
                format!("failed to resolve {}: Unknown symbol name", shown),
            ),
            SymbolError::Hidden => err(
                Tag::D_IDENT_UNDEF,
                line,
                format!(
                    "failed to resolve {}: kernel symbol addresses are hidden (kernel.kptr_restrict)",
                    shown
                ),
            ),
            SymbolError::Unavailable(why) => err(
                Tag::D_IDENT_UNDEF,
                line,
                format!("failed to resolve {}: {}", shown, why),
            ),
        })?;
        let full = format!("{}`{}", sym.module, name);
        let ty = declared.or_else(|| sym.ty.and_then(|t| self.syms.types.import(t, 0)));
        let Some(ty) = ty else {
            return Err(err(
                Tag::D_SYM_NOTYPES,
                line,
                format!(
                    "no symbolic type information is available for {}: No type information available for symbol",
                    full
                ),
            ));
        };
        // A kernel symbol's attributes are Private/Private/Unknown.
        self.use_attr(
            crate::attr::Attr::PRIVATE,
            || format!("symbol {}", full),
            line,
        )?;
        // A per-CPU variable is this CPU's copy, whose address the
        // kernel gives the program when it runs.
        let kind = match sym.per_cpu {
            None => CKind::Int(sym.addr as i64),
            Some(PerCpu::Vmlinux(var)) => CKind::PerCpuAddr(var),
            Some(PerCpu::Module) => {
                return Err(err(
                    Tag::D_SYM_NOTYPES,
                    line,
                    format!(
                        "{} is a per-CPU variable of a module, which is not yet supported",
                        full
                    ),
                ))
            }
        };
        // A function designator is its address.
        let addr = CExpr {
            kind,
            ty: Type::ptr(ty.clone()),
            line,
        };
        Ok(Place {
            addr,
            ty,
            bits: None,
        })
    }

    /// Like `place`, but also for expressions whose value is an object's
    /// address (a struct or array read by reference); any other expression
    /// comes back as its value (`Err`), evaluated once.
    fn object(&mut self, e: &Expr) -> Result<Result<Place, CExpr>, CompileError> {
        if let Some(p) = self.place(e)? {
            return Ok(Ok(p));
        }
        let v = self.expr(e)?;
        if v.ty.is_aggregate() {
            let ty = v.ty.clone();
            return Ok(Ok(Place {
                addr: CExpr {
                    ty: Type::ptr(ty.clone()),
                    ..v
                },
                ty,
                bits: None,
            }));
        }
        Ok(Err(v))
    }

    fn is_array_name(&self, base: &Expr) -> bool {
        match &base.kind {
            ExprKind::Ident(n) => {
                n == "args" || self.syms.arrays.iter().any(|a| &a.name == n) || {
                    // A name that is neither a variable nor an array is a
                    // new associative array.
                    !self.syms.globals.iter().any(|g| &g.name == n)
                }
            }
            ExprKind::SelfVar(_) | ExprKind::ThisVar(_) => {
                !matches!(self.var_type(base), Some(t) if t.pointee().is_some() || t.is_string())
            }
            _ => false,
        }
    }

    pub(super) fn member_place(
        &mut self,
        base: CExpr,
        sou: Type,
        m: &str,
        op: &str,
        line: u32,
    ) -> Result<Place, CompileError> {
        let r = match sou.resolved() {
            Type::Record(r) => r.clone(),
            other => {
                return Err(if op == "->" {
                    err(
                        Tag::D_OP_SOU,
                        line,
                        format!(
                            "operator -> cannot be applied to pointer to type \"{}\"; must be applied to a struct or union pointer",
                            other
                        ),
                    )
                } else {
                    err(
                        Tag::D_OP_SOU,
                        line,
                        format!(
                            "operator {} cannot be applied to type \"{}\"; must be applied to a struct or union",
                            op, other
                        ),
                    )
                })
            }
        };
        if self.syms.types.size_of(&Type::Record(r.clone())).is_err() {
            let tag = r.name.to_string();
            return Err(err(
                Tag::D_OP_INCOMPLETE,
                line,
                format!(
                    "operator {} cannot be applied to a forward declaration: no {} definition is available",
                    op, tag
                ),
            ));
        }
        let Some(f) = self.syms.types.member(&r, m) else {
            return Err(err(
                Tag::D_TYPE_MEMBER,
                line,
                format!("{} is not a member of {}", m, r.name),
            ));
        };
        match f.bits {
            Some(w) => {
                let unit = self.syms.types.size_of(&f.ty).unwrap_or(8).clamp(1, 8);
                let start = f.bit_offset / (unit * 8) * unit;
                let shift = f.bit_offset - start * 8;
                let (start, shift) = if shift + u64::from(w) > unit * 8 {
                    // A packed field across units: read 8 bytes.
                    (f.bit_offset / 8, f.bit_offset % 8)
                } else {
                    (start, shift)
                };
                Ok(Place {
                    addr: offset(base, start, Type::ptr(f.ty.clone())),
                    ty: f.ty,
                    bits: Some((shift, w)),
                })
            }
            None => Ok(Place {
                addr: offset(base, f.bit_offset / 8, Type::ptr(f.ty.clone())),
                ty: f.ty,
                bits: None,
            }),
        }
    }

    /// The value of an object: a scalar read, a string for a `char`
    /// array, the address for a struct, union or array.
    pub(super) fn load(&mut self, p: Place, line: u32) -> Result<CExpr, CompileError> {
        let mk = |kind: CKind, ty: Type| CExpr { kind, ty, line };
        if is_char_array(&p.ty) {
            return Ok(mk(CKind::KernelString(Box::new(p.addr)), Type::String));
        }
        if p.ty.is_by_ref() {
            return Ok(CExpr { ty: p.ty, ..p.addr });
        }
        if matches!(p.ty.resolved(), Type::Func(_)) {
            // A function is its address.
            return Ok(p.addr);
        }
        if p.ty.is_reg_float() {
            // A float or double is read as its bits.
            return Ok(mk(CKind::Deref(Box::new(p.addr)), p.ty));
        }
        if !p.ty.is_scalar() {
            return Err(err(
                Tag::D_TYPE_ERR,
                line,
                format!("cannot read a value of type {}", p.ty),
            ));
        }
        let Some((shift, width)) = p.bits else {
            return Ok(mk(CKind::Deref(Box::new(p.addr)), p.ty));
        };
        let it = p.ty.as_int().unwrap_or(types::INT64);
        let unit_bytes = if shift + u64::from(width) > u64::from(it.size) * 8 {
            8
        } else {
            it.size
        };
        let unit = IntType::new(unit_bytes, false, "bitfield unit");
        let raw = mk(CKind::Deref(Box::new(p.addr)), Type::Int(unit));
        // Move the field to the top of 64 bits, then back down: the second
        // shift is arithmetic for a signed field, which sign-extends it.
        let wide = Type::Int(IntType::new(8, it.signed, "bitfield"));
        let int = |v: i64| mk(CKind::Int(v), Type::Int(types::INT));
        let up = 64 - shift as i64 - i64::from(width);
        let high = mk(
            CKind::Arith(ArithOp::Shl, Box::new(raw), Box::new(int(up))),
            wide.clone(),
        );
        let v = mk(
            CKind::Arith(
                ArithOp::Shr,
                Box::new(high),
                Box::new(int(64 - i64::from(width))),
            ),
            wide,
        );
        Ok(mk(CKind::Cast(Box::new(v)), Type::Int(types::promote(it))))
    }

    /// The size of what a pointer points to, for scaling (`void *` and
    /// function pointers step by bytes, as C compilers allow).
    pub(super) fn elem_size(&mut self, elem: &Type, line: u32) -> Result<u64, CompileError> {
        match elem.resolved() {
            Type::Void | Type::Func(_) => Ok(1),
            _ => self.size_or_err(elem, line),
        }
    }

    /// `p + i * size` (or minus), typed as pointer to `elem`.
    /// The address of `base[idx]`, `base` a pointer to or array of `elem`:
    /// one integral index, scaled by the element's size.
    pub(super) fn element(
        &mut self,
        base: CExpr,
        elem: &Type,
        idx: &[Expr],
        line: u32,
    ) -> Result<CExpr, CompileError> {
        if idx.len() != 1 {
            return Err(err(
                Tag::D_ARR_BADREF,
                line,
                "cannot access a pointer or array as an associative array",
            ));
        }
        let i = self.expr(&idx[0])?;
        if !i.ty.is_int() {
            return Err(err(
                Tag::D_OP_INT,
                line,
                "operator [ ] requires an index of integral type",
            ));
        }
        // An array in a variable's storage is checked at run time: an
        // index past its end is an invalid address, as DTrace finds it,
        // never a read or write beyond the variable.
        let i = match base.ty.resolved() {
            Type::Array(_, n)
                if *n > 0 && in_d_storage(&base) && !matches!(i.kind, CKind::Int(_)) =>
            {
                let ty = i.ty.clone();
                CExpr {
                    kind: CKind::Within(Box::new(i), *n),
                    ty,
                    line,
                }
            }
            _ => i,
        };
        let size = self.elem_size(elem, line)?;
        Ok(self.ptr_add(base, i, size, elem.clone(), false, line))
    }

    pub(super) fn ptr_add(
        &mut self,
        p: CExpr,
        i: CExpr,
        size: u64,
        elem: Type,
        sub: bool,
        line: u32,
    ) -> CExpr {
        let ty = Type::ptr(elem);
        let step = scaled(i, size);
        let p = CExpr {
            ty: Type::Int(types::UINTPTR_T),
            ..p
        };
        let op = if sub { ArithOp::Sub } else { ArithOp::Add };
        super::fold(CExpr {
            kind: CKind::Arith(op, Box::new(p), Box::new(step)),
            ty,
            line,
        })
    }
}

/// True if `e` is an address in D's own storage: a variable's, an
/// associative array element's, or an offset into one.
fn in_d_storage(e: &CExpr) -> bool {
    match &e.kind {
        CKind::Var(_) | CKind::Elem(..) => true,
        CKind::Arith(_, a, _) | CKind::Cast(a) => in_d_storage(a),
        _ => false,
    }
}
