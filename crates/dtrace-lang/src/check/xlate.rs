//! Translators: `translator T < S p > { member = expr; ... };` declares
//! how to compute each member of struct `T` from a value `p` of type `S`;
//! `xlate<T>(e)` and `xlate<T *>(e)` name such a translation, and reading
//! one of its members (`xlate<T *>(e)->m`, `.m`) checks that member's
//! expression with `p` bound to `e`. Nothing is stored: a translated
//! member is computed where it is read, as in DTrace.

use super::{err, Checker};
use crate::ast::{self, Expr, ExprKind, UnOp};
use crate::error::{CompileError, Tag};
use crate::ir::{CExpr, CKind};
use crate::types::Type;

use super::decl::inline_incompat;
use super::place::is_char_array;

/// A declared translator.
#[derive(Clone, Debug, PartialEq)]
pub struct Translator {
    /// The output struct or union.
    pub to: Type,
    /// The input type.
    pub from: Type,
    pub param: String,
    /// Member name, its expression as written, line.
    pub members: Vec<(String, Expr, u32)>,
    /// The lowest stability attributes of its members' expressions: a
    /// translation's.
    pub attr: crate::attr::Attr,
}

/// An inline with parameters, as D's library declares `fds[]`: checked
/// where it is used, with its parameters bound to the arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct InlineFn {
    pub name: String,
    pub ty: Type,
    pub params: Vec<(Type, String)>,
    pub value: Expr,
}

/// True if a value of type `have` may be given to a translator from `want`.
fn accepts(want: &Type, have: &Type) -> bool {
    match (want.resolved(), have.resolved()) {
        (a, b) if a == b => true,
        (Type::Ptr(a), Type::Ptr(b)) => match (a.resolved(), b.resolved()) {
            (Type::Record(x), Type::Record(y)) => x.name == y.name,
            (x, y) => x == y,
        },
        (a, b) => a.is_int() && b.is_int() && a.scalar_size() == b.scalar_size(),
    }
}

impl Checker<'_> {
    pub(super) fn translator(
        &mut self,
        to: &ast::TypeName,
        from: &ast::TypeName,
        param: &str,
        members: &[(String, Expr, u32)],
        line: u32,
        end_line: u32,
    ) -> Result<(), CompileError> {
        let to_ty = self.type_name(to, line)?;
        let from_ty = self.type_name(from, line)?;
        let r = match to_ty.resolved() {
            Type::Record(r) if self.syms.types.size_of(&to_ty).is_ok() => r.clone(),
            Type::Record(_) => {
                return Err(err(
                    Tag::D_XLATE_SOU,
                    end_line,
                    format!("incomplete struct/union/enum {}", to_ty),
                ))
            }
            _ => {
                return Err(err(
                    Tag::D_XLATE_SOU,
                    end_line,
                    "translator output type must be a struct or union",
                ))
            }
        };
        if self
            .syms
            .translators
            .iter()
            .any(|t| t.to.resolved() == to_ty.resolved() && accepts(&t.from, &from_ty))
        {
            // Found as DTrace defines it, once the definition is read.
            return Err(err(
                Tag::D_XLATE_REDECL,
                end_line,
                format!(
                    "translator from {} to {} has already been declared",
                    from_ty, to_ty
                ),
            ));
        }
        // Each member is checked now against a stand-in for the input, so
        // mistakes show at the declaration.
        let stand_in = CExpr {
            kind: CKind::Int(0),
            ty: from_ty.clone(),
            line,
        };
        let (checked, attr) = self
            .attr_scope(|c| c.translator_members(&r, &to_ty, param, &stand_in, members, end_line));
        checked?;
        self.syms.translators.push(Translator {
            to: to_ty,
            from: from_ty,
            param: param.to_string(),
            members: members.to_vec(),
            attr,
        });
        Ok(())
    }

    fn translator_members(
        &mut self,
        r: &crate::types::TagRef,
        to_ty: &Type,
        param: &str,
        stand_in: &CExpr,
        members: &[(String, Expr, u32)],
        end_line: u32,
    ) -> Result<(), CompileError> {
        for (m, e, _) in members {
            // Found as DTrace checks the whole declaration: at its end.
            let Some(f) = self.syms.types.member(r, m) else {
                return Err(err(
                    Tag::D_XLATE_MEMB,
                    end_line,
                    format!("translator member {} is not a member of {}", m, to_ty),
                ));
            };
            self.xlate_scope.push((param.to_string(), stand_in.clone()));
            let v = self.expr(e);
            self.xlate_scope.pop();
            let v = v?;
            // Found as DTrace checks the whole declaration: at its end.
            self.member_value(&f.ty, v, m, end_line)?;
        }
        Ok(())
    }

    /// A translated member's value as the member's type.
    fn member_value(
        &mut self,
        ty: &Type,
        v: CExpr,
        m: &str,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        // A struct or union member is given by a translation to its type
        // (`pr_start = xlate<timestruc_t>(...)`), read member by member.
        if let Type::Translated { to, ptr: false, .. } = &v.ty {
            if matches!(ty.resolved(), Type::Record(_)) && to.resolved() == ty.resolved() {
                return Ok(v);
            }
        }
        // The rules of assignment (DTrace's argument compatibility): an
        // integer is no pointer but for 0.
        let ok = if is_char_array(ty) || ty.is_string() {
            v.ty.is_string()
        } else {
            ty.is_scalar()
                && v.ty.is_scalar()
                && ty.accepts_arg(&v.ty, matches!(v.kind, CKind::Int(0)))
        };
        if !ok {
            return Err(err(
                Tag::D_XLATE_INCOMPAT,
                line,
                format!(
                    "translator member {} definition uses incompatible types: \"{}\" = \"{}\"",
                    m, ty, v.ty
                ),
            ));
        }
        if ty.is_scalar() && !ty.same_as(&v.ty) {
            let l = v.line;
            if let (CKind::Int(x), Some(it)) = (&v.kind, ty.as_int()) {
                return Ok(CExpr {
                    kind: CKind::Int(super::convert_const(*x, it)),
                    ty: ty.clone(),
                    line: l,
                });
            }
            return Ok(CExpr {
                kind: CKind::Cast(Box::new(v)),
                ty: ty.clone(),
                line: l,
            });
        }
        Ok(v)
    }

    pub(super) fn inline_fn(
        &mut self,
        ty: &ast::TypeName,
        name: &str,
        params: &[(ast::TypeName, String)],
        value: &Expr,
        line: u32,
    ) -> Result<(), CompileError> {
        let t = self.type_name(ty, line)?;
        if self.syms.inline_fns.iter().any(|f| f.name == name)
            || self.syms.inlines.iter().any(|(n, _, _)| n == name)
        {
            return Err(err(
                Tag::D_DECL_IDRED,
                line,
                format!("identifier redeclared: {}", name),
            ));
        }
        let mut ps = Vec::new();
        for (pt, pn) in params {
            let pt = self.type_name(pt, line)?;
            if !pt.is_scalar() {
                return Err(err(
                    Tag::D_DECL_TYPE,
                    line,
                    format!("inline {} parameter {} must be of scalar type", name, pn),
                ));
            }
            ps.push((pt, pn.clone()));
        }
        // Checked once now, with stand-ins for the parameters.
        let f = crate::check::xlate::InlineFn {
            name: name.to_string(),
            ty: t,
            params: ps,
            value: value.clone(),
        };
        let stand_ins: Vec<CExpr> = f
            .params
            .iter()
            .map(|(pt, _)| CExpr {
                kind: CKind::Int(0),
                ty: pt.clone(),
                line,
            })
            .collect();
        let (checked, attr) = self.attr_scope(|c| c.expand_inline_fn(&f, stand_ins, line));
        checked?;
        self.keep_inline_attr(name, attr);
        self.syms.inline_fns.push(f);
        Ok(())
    }

    pub(super) fn expand_inline_fn(
        &mut self,
        f: &InlineFn,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let n = args.len();
        for ((_, pn), a) in f.params.iter().zip(args) {
            self.xlate_scope.push((pn.clone(), a));
        }
        let v = self.expr(&f.value);
        self.xlate_scope.truncate(self.xlate_scope.len() - n);
        let v = v?;
        let ok = match &v.ty {
            Type::Translated { to, ptr, .. } => {
                let got = if *ptr {
                    Type::ptr((**to).clone())
                } else {
                    (**to).clone()
                };
                got.same_as(&f.ty)
            }
            t => f.ty.compatible(t),
        };
        if !ok {
            return Err(inline_incompat(&f.name, &f.ty, &v.ty, line));
        }
        // As a plain inline's, the value takes the declared type.
        // (An integer's: a translation or a pointer is kept as it is.)
        if matches!(f.ty.resolved(), Type::Int(_))
            && !matches!(v.ty, Type::Translated { .. })
            && !v.ty.same_as(&f.ty)
        {
            return Ok(CExpr {
                kind: CKind::Cast(Box::new(v)),
                ty: f.ty.clone(),
                line,
            });
        }
        Ok(CExpr { line, ..v })
    }

    pub(super) fn is_inline_fn(&self, base: &Expr) -> bool {
        matches!(&base.kind, ExprKind::Ident(n) if self.syms.inline_fns.iter().any(|f| &f.name == n))
    }

    /// `name[args]` of an inline with parameters.
    pub(super) fn call_inline_fn(
        &mut self,
        base: &Expr,
        idx: &[Expr],
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let ExprKind::Ident(name) = &base.kind else {
            return Err(err(Tag::D_SYNTAX, line, "not an inline"));
        };
        let Some(f) = self
            .syms
            .inline_fns
            .iter()
            .find(|f| &f.name == name)
            .cloned()
        else {
            return Err(err(Tag::D_SYNTAX, line, "not an inline"));
        };
        if idx.len() != f.params.len() {
            return Err(err(
                Tag::D_ARR_BADREF,
                line,
                format!(
                    "{}[ ] prototype mismatch: {} arg{} passed, {} expected",
                    name,
                    idx.len(),
                    if idx.len() == 1 { "" } else { "s" },
                    f.params.len()
                ),
            ));
        }
        let mut args = Vec::new();
        for (i, (e, (pt, _))) in idx.iter().zip(&f.params).enumerate() {
            let a = self.expr(e)?;
            if !a.ty.is_scalar() {
                return Err(err(
                    Tag::D_ARGS_TYPE,
                    line,
                    format!(
                        "{}[ ] argument #{} is incompatible with prototype:\n\tprototype: {}\n\t argument: {}",
                        name,
                        i + 1,
                        pt,
                        a.ty
                    ),
                ));
            }
            args.push(CExpr {
                kind: CKind::Cast(Box::new(a)),
                ty: pt.clone(),
                line,
            });
        }
        let v = self.attr_quietly(|c| c.expand_inline_fn(&f, args, line))?;
        if let Some(a) = self.ident_attr(name) {
            self.use_attr(a, || format!("associative array {}", name), line)?;
        }
        Ok(v)
    }

    /// The type of `xlate<want>(v)` for a value of type `from`, if a
    /// translator makes it.
    pub(super) fn translation_type(&self, want: &Type, from: &Type) -> Option<Type> {
        let (target, ptr) = match want.resolved() {
            Type::Ptr(p) => ((**p).clone(), true),
            _ => (want.clone(), false),
        };
        let id = self
            .syms
            .translators
            .iter()
            .position(|x| x.to.resolved() == target.resolved() && accepts(&x.from, from))?;
        Some(Type::Translated {
            to: Box::new(target),
            id: id as u32,
            ptr,
        })
    }

    /// `xlate<T>(e)`.
    pub(super) fn xlate(
        &mut self,
        t: &ast::TypeName,
        inner: &Expr,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let want = self.type_name(t, line)?;
        let (target, ptr) = match want.resolved() {
            Type::Ptr(p) => ((**p).clone(), true),
            _ => (want.clone(), false),
        };
        let v = self.expr(inner)?;
        let found = self
            .syms
            .translators
            .iter()
            .position(|x| x.to.resolved() == target.resolved() && accepts(&x.from, &v.ty));
        let Some(id) = found else {
            return Err(err(
                Tag::D_XLATE_NONE,
                line,
                format!("cannot translate from \"{}\" to \"{}\"", v.ty, want),
            ));
        };
        let from = self.syms.translators[id].from.clone();
        let attr = self.syms.translators[id].attr;
        self.use_type(&want, line)?;
        self.use_attr(attr, || "operator xlate".into(), line)?;
        Ok(CExpr {
            ty: Type::Translated {
                to: Box::new(target),
                id: id as u32,
                ptr,
            },
            kind: CExpr { ty: from, ..v }.kind,
            line,
        })
    }

    /// True if `e` may be a translation (checked by evaluating it: only
    /// for the forms that can be).
    fn may_translate(&mut self, e: &Expr) -> Result<Option<Type>, CompileError> {
        let candidate = match &e.kind {
            // A translated member of struct type is a translation too
            // (`curpsinfo->pr_start`): only if the chain of members starts
            // at something that may be a translation.
            ExprKind::Member(..) | ExprKind::Arrow(..) => {
                let mut root = e;
                while let ExprKind::Member(b, _) | ExprKind::Arrow(b, _) = &root.kind {
                    root = b;
                }
                self.may_root_translation(root)
            }
            _ => self.may_root_translation(e),
        };
        if !candidate {
            return Ok(None);
        }
        let v = self.expr(e)?;
        Ok(matches!(v.ty, Type::Translated { .. }).then_some(v.ty))
    }

    /// True if `e` has a form that can be a translation: `xlate<>`, an
    /// inline or translator parameter, an inline with parameters applied,
    /// or `*` of the first two.
    fn may_root_translation(&self, e: &Expr) -> bool {
        // Only inlines (and translator parameters) can hold one.
        let inline = |n: &str| {
            self.syms.inlines.iter().any(|(i, _, _)| i == n)
                || self.xlate_scope.iter().any(|(p, _)| p == n)
        };
        // Or a variable that holds a translated pointer.
        if self
            .var_type(e)
            .is_some_and(|t| matches!(t, Type::Translated { .. }))
        {
            return true;
        }
        match &e.kind {
            ExprKind::Xlate(..) => true,
            ExprKind::Ident(n) => inline(n),
            // A provider's translated argument (proc:::create's args[0]).
            ExprKind::Index(b, _) if matches!(&b.kind, ExprKind::Ident(n) if n == "args") => true,
            ExprKind::Index(b, _) => self.is_inline_fn(b),
            ExprKind::Unary(UnOp::Deref, inner) => match &inner.kind {
                ExprKind::Xlate(..) => true,
                ExprKind::Ident(n) => inline(n),
                _ => false,
            },
            _ => false,
        }
    }

    pub(super) fn translated_ptr(&mut self, inner: &Expr) -> Result<bool, CompileError> {
        Ok(matches!(
            self.may_translate(inner)?,
            Some(Type::Translated { ptr: true, .. })
        ))
    }

    pub(super) fn is_translated(&mut self, e: &Expr) -> Result<bool, CompileError> {
        let base = match &e.kind {
            ExprKind::Member(b, _) | ExprKind::Arrow(b, _) => b,
            _ => return Ok(false),
        };
        Ok(self.may_translate(base)?.is_some())
    }

    /// A value to be stored: a translated struct (`*curpsinfo`,
    /// `xlate<T>(e)`) becomes the struct itself, each member the
    /// translator defines computed now; anything else is unchanged. A
    /// translated pointer (`curpsinfo`) is stored as its input (the
    /// task pointer): the variable keeps the translated type, and each
    /// member read through it is translated then, from the stored input.
    pub(super) fn materialize(&mut self, v: CExpr, line: u32) -> Result<CExpr, CompileError> {
        let Type::Translated { to, id, ptr } = v.ty.clone() else {
            return Ok(v);
        };
        if ptr {
            return Ok(v);
        }
        let x = self.syms.translators[id as usize].clone();
        let Type::Record(r) = to.resolved().clone() else {
            unreachable!("translators output structs");
        };
        let input = CExpr {
            ty: x.from.clone(),
            ..v
        };
        let mut fields = Vec::new();
        for (m, me, mline) in &x.members {
            let f = self
                .syms
                .types
                .member(&r, m)
                .expect("checked at declaration");
            if f.bits.is_some() {
                return Err(err(
                    Tag::D_NOTSUP,
                    *mline,
                    format!(
                        "storing a translated {} whose bit-field member {} is translated is not supported",
                        to, m
                    ),
                ));
            }
            self.xlate_scope.push((x.param.clone(), input.clone()));
            let out = self.attr_quietly(|c| c.expr(me));
            self.xlate_scope.pop();
            let out = self.member_value(&f.ty, out?, m, *mline)?;
            let size = self.syms.types.size_of(&f.ty).unwrap_or(0) as u32;
            fields.push(((f.bit_offset / 8) as u32, size, out));
        }
        Ok(CExpr {
            kind: CKind::Build(fields),
            ty: (*to).clone(),
            line,
        })
    }

    /// `t->m` or `t.m` of a translation: the member's expression with the
    /// translator's parameter bound to the translated value.
    /// The type a translated member is declared with in its output
    /// struct (`char [16]` for `curlwpsinfo->pr_name`, whose value is a
    /// string), if `e` is one.
    pub(super) fn translated_member_type(
        &mut self,
        e: &Expr,
    ) -> Result<Option<Type>, CompileError> {
        let (base, m) = match &e.kind {
            ExprKind::Member(b, m) | ExprKind::Arrow(b, m) => (b, m),
            _ => return Ok(None),
        };
        if !self.is_translated(e)? {
            return Ok(None);
        }
        let Type::Translated { to, .. } = self.expr(base)?.ty else {
            return Ok(None);
        };
        let Type::Record(r) = to.resolved().clone() else {
            return Ok(None);
        };
        Ok(self.syms.types.member(&r, m).map(|f| f.ty))
    }

    pub(super) fn translated_member(&mut self, e: &Expr) -> Result<CExpr, CompileError> {
        let line = e.line;
        let (base, m, arrow) = match &e.kind {
            ExprKind::Member(b, m) => (b, m, false),
            ExprKind::Arrow(b, m) => (b, m, true),
            _ => unreachable!("is_translated said so"),
        };
        let v = self.expr(base)?;
        let Type::Translated { to, id, ptr } = v.ty.clone() else {
            unreachable!("is_translated said so");
        };
        if arrow != ptr {
            return Err(if arrow {
                err(
                    Tag::D_OP_PTR,
                    line,
                    "operator -> must be applied to a pointer",
                )
            } else {
                err(
                    Tag::D_OP_SOU,
                    line,
                    format!(
                        "operator . cannot be applied to type \"{} *\"; must be applied to a struct or union",
                        to
                    ),
                )
            });
        }
        let x = self.syms.translators[id as usize].clone();
        let Some((_, me, _)) = x.members.iter().find(|(n, _, _)| n == m) else {
            return Err(err(
                Tag::D_XLATE_NOCONV,
                line,
                format!("translator does not define conversion for member: {}", m),
            ));
        };
        let Type::Record(r) = to.resolved().clone() else {
            unreachable!("translators output structs");
        };
        let f = self
            .syms
            .types
            .member(&r, m)
            .expect("checked at declaration");
        let input = CExpr {
            ty: x.from.clone(),
            ..v
        };
        self.xlate_scope.push((x.param.clone(), input));
        let out = self.attr_quietly(|c| c.expr(me));
        self.xlate_scope.pop();
        let out = out?;
        let out = self.member_value(&f.ty, out, m, line)?;
        Ok(CExpr { line, ..out })
    }
}
