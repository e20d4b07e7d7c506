//! Types as written and the declarations that make them: resolving a C
//! type name (base words, `struct`/`union`/`enum` tags with or without a
//! body, typedef names of the program and the kernel, declarators) into
//! the type table, and `typedef`, `inline` and `offsetof`.

use super::{convert_const, err, int_ty, Checker};
use crate::ast::{self, Expr};
use crate::error::{CompileError, Tag};
use crate::ir::{CExpr, CKind};
use crate::types::{self, resolve_base, FuncType, TagKind, Type, TypeError};

/// DTrace's error for an inline whose value does not fit its type.
pub(super) fn inline_incompat(name: &str, ty: &Type, got: &Type, line: u32) -> CompileError {
    err(
        Tag::D_OP_INCOMPAT,
        line,
        format!(
            "inline {} definition uses incompatible types: \"{}\" = \"{}\"",
            name, ty, got
        ),
    )
}

/// Largest array a declaration may make (elements).
const MAX_ARRAY: i64 = 1 << 24;

impl Checker<'_> {
    /// The type a C type name denotes; struct, union and enum bodies in it
    /// are defined in the type table as a side effect, as in C.
    pub(super) fn type_name(&mut self, t: &ast::TypeName, line: u32) -> Result<Type, CompileError> {
        let mut ty = self.type_spec(&t.spec, t.line.max(line))?;
        if t.is_const {
            ty = ty.with_const();
        }
        for d in &t.derived {
            ty = match d {
                ast::Derived::Ptr { .. } => Type::ptr(ty),
                ast::Derived::Array(None) => {
                    return Err(err(
                        Tag::D_DECL_ARRNULL,
                        line,
                        "array declaration requires array dimension or tuple signature",
                    ))
                }
                ast::Derived::Array(Some(n)) => {
                    let v = match self.const_int(n) {
                        Some(v) if v > 0 => v,
                        _ => {
                            return Err(err(
                                Tag::D_DECL_ARRSUB,
                                line,
                                "positive integral constant expression or tuple signature expected as array declaration subscript",
                            ))
                        }
                    };
                    // DTrace's bound is 32 bits; ours, what a map holds.
                    if v > MAX_ARRAY {
                        return Err(err(Tag::D_DECL_ARRBIG, line, "array dimension too big"));
                    }
                    if matches!(ty.resolved(), Type::Void | Type::Func(_)) {
                        return Err(err(
                            Tag::D_DECL_ARRTYPE,
                            line,
                            format!("array of {} is not allowed", ty),
                        ));
                    }
                    Type::Array(Box::new(ty), v as u32)
                }
                ast::Derived::Func { params, variadic } => {
                    let mut ps = Vec::new();
                    for p in params {
                        let pt = self.type_name(p, line)?;
                        // `(void)` is no parameters.
                        if pt.is_void() && params.len() == 1 && p.derived.is_empty() {
                            break;
                        }
                        ps.push(pt);
                    }
                    Type::Func(Box::new(FuncType {
                        ret: ty,
                        params: ps,
                        variadic: *variadic,
                    }))
                }
            };
        }
        Ok(ty)
    }

    fn type_spec(&mut self, spec: &ast::TypeSpec, line: u32) -> Result<Type, CompileError> {
        match spec {
            ast::TypeSpec::Named { name, module } => {
                let found = match module {
                    None => resolve_base(name).or_else(|| self.syms.types.typedef(name, None)),
                    Some(m) => self.syms.types.typedef(name, Some(m)),
                };
                found.ok_or_else(|| {
                    let shown = match module {
                        Some(m) => format!("{}`{}", m, name),
                        None => name.clone(),
                    };
                    err(
                        Tag::D_TYPE_ERR,
                        line,
                        format!("failed to resolve type {}", shown),
                    )
                })
            }
            ast::TypeSpec::Struct {
                union,
                name,
                module,
                members,
            } => {
                let kind = if *union {
                    TagKind::Union
                } else {
                    TagKind::Struct
                };
                match members {
                    None => {
                        let name = name.as_deref().unwrap_or("");
                        match self.syms.types.tagged(kind, name, module.as_deref()) {
                            Some(t) => Ok(t),
                            None if module.is_none() => Ok(self.syms.types.forward(kind, name)),
                            None => Err(err(
                                Tag::D_TYPE_ERR,
                                line,
                                format!(
                                    "failed to resolve type {} {}`{}",
                                    kind.keyword(),
                                    module.as_deref().unwrap_or(""),
                                    name
                                ),
                            )),
                        }
                    }
                    Some(ms) => self.define_record(kind, name.as_deref(), ms, line),
                }
            }
            ast::TypeSpec::Enum {
                name,
                module,
                values,
            } => match values {
                None => {
                    let n = name.as_deref().unwrap_or("");
                    self.syms
                        .types
                        .tagged(TagKind::Enum, n, module.as_deref())
                        .ok_or_else(|| {
                            err(
                                Tag::D_TYPE_ERR,
                                line,
                                format!("failed to resolve type enum {}", n),
                            )
                        })
                }
                Some(vals) => self.define_enum(name.as_deref(), vals, line),
            },
        }
    }

    fn define_record(
        &mut self,
        kind: TagKind,
        name: Option<&str>,
        members: &[ast::MemberDecl],
        line: u32,
    ) -> Result<Type, CompileError> {
        if let Some(n) = name {
            if self.syms.types.is_defined(kind, n) {
                return Err(err(
                    Tag::D_DECL_TYPERED,
                    line,
                    format!("type redeclared: {} {}", kind.keyword(), n),
                ));
            }
            // Members may point to the type being defined.
            self.syms.types.forward(kind, n);
        }
        let mut laid = Vec::new();
        for m in members {
            let ty = self.type_name(&m.ty, m.line)?;
            let bits = match &m.bits {
                None => None,
                Some(b) => {
                    let what = m.name.as_deref().unwrap_or("(anon)");
                    if !ty.is_int() {
                        return Err(err(
                            Tag::D_DECL_BFTYPE,
                            m.line,
                            format!("invalid type for bit-field: {}", what),
                        ));
                    }
                    // An unnamed zero-width field ends the storage unit.
                    let w =
                        match self.const_int(b) {
                            Some(0) if m.name.is_none() => 0,
                            Some(w) if w > 0 => w,
                            _ => return Err(err(
                                Tag::D_DECL_BFCONST,
                                m.line,
                                "positive integral constant expression expected as bit-field size",
                            )),
                        };
                    let max = i64::from(ty.scalar_size()) * 8;
                    if w > max {
                        return Err(err(
                            Tag::D_DECL_BFSIZE,
                            m.line,
                            format!("bit-field too big for type: {}", what),
                        ));
                    }
                    Some(w as u32)
                }
            };
            if m.bits.is_none() {
                if let Err(e) = self.syms.types.size_of(&ty) {
                    let what = m.name.as_deref().unwrap_or("(anon)");
                    return Err(match e {
                        TypeError::TooLarge => err(
                            Tag::D_DECL_TYPE,
                            m.line,
                            format!("member {} is too large", what),
                        ),
                        _ => err(
                            Tag::D_DECL_INCOMPLETE,
                            m.line,
                            format!("incomplete struct/union/enum {}: {}", ty, what),
                        ),
                    });
                }
            }
            laid.push((m.name.clone(), ty, bits));
        }
        self.syms
            .types
            .define_record(kind, name, laid)
            .map_err(|e| match e {
                TypeError::DuplicateMember(n) => err(
                    Tag::D_DECL_MNAME,
                    line,
                    format!("duplicate member name: {}", n),
                ),
                TypeError::TooLarge => err(
                    Tag::D_DECL_TYPE,
                    line,
                    format!("{} {} is too large", kind.keyword(), name.unwrap_or("")),
                ),
                TypeError::BadBitfield(n) => err(
                    Tag::D_DECL_BFSIZE,
                    line,
                    format!("invalid bit-field: {}", n),
                ),
                TypeError::Incomplete(t) => err(
                    Tag::D_DECL_INCOMPLETE,
                    line,
                    format!("incomplete type: {}", t),
                ),
            })
    }

    fn define_enum(
        &mut self,
        name: Option<&str>,
        values: &[ast::Enumerator],
        line: u32,
    ) -> Result<Type, CompileError> {
        if let Some(n) = name {
            if self.syms.types.is_defined(TagKind::Enum, n) {
                return Err(err(
                    Tag::D_DECL_TYPERED,
                    line,
                    format!("type redeclared: enum {}", n),
                ));
            }
        }
        let mut out: Vec<(String, i64)> = Vec::new();
        let mut next: i64 = 0;
        for v in values {
            self.enum_so_far = out.clone();
            let val = match &v.value {
                Some(e) => self.const_int(e).ok_or_else(|| {
                    err(
                        Tag::D_DECL_ENCONST,
                        v.line,
                        format!(
                            "enumerator '{}' must be assigned to an integral constant expression",
                            v.name
                        ),
                    )
                })?,
                None => next,
            };
            if val < i64::from(i32::MIN) || val > i64::from(i32::MAX) {
                return Err(err(
                    Tag::D_DECL_ENOFLOW,
                    v.line,
                    format!(
                        "enumerator '{}' value overflows INT_MAX ({})",
                        v.name,
                        i32::MAX
                    ),
                ));
            }
            // As DTrace: the type refuses a name it has (the message is
            // the type library's), then the name must be new to the
            // program's identifiers.
            if out.iter().any(|(n, _)| n == &v.name) {
                return Err(err(
                    Tag::D_UNKNOWN,
                    v.line,
                    format!(
                        "failed to define enumerator '{}': Duplicate member or variable name",
                        v.name
                    ),
                ));
            }
            if self.syms.types.enumerator(&v.name).is_some()
                || self.syms.globals.iter().any(|g| g.name == v.name)
            {
                return Err(err(
                    Tag::D_DECL_IDRED,
                    v.line,
                    format!("identifier redeclared: {}", v.name),
                ));
            }
            out.push((v.name.clone(), val));
            next = val + 1;
        }
        self.enum_so_far.clear();
        Ok(self.syms.types.define_enum(name, out))
    }

    pub(super) fn typedef(
        &mut self,
        ty: &ast::TypeName,
        name: &str,
        line: u32,
    ) -> Result<(), CompileError> {
        let t = self.type_name(ty, line)?;
        self.syms.types.add_typedef(name, t).map_err(|_| {
            err(
                Tag::D_DECL_IDRED,
                line,
                format!("typedef redeclared: {}", name),
            )
        })
    }

    pub(super) fn inline(
        &mut self,
        ty: &ast::TypeName,
        name: &str,
        value: &Expr,
        line: u32,
    ) -> Result<(), CompileError> {
        let t = self.type_name(ty, line)?;
        if self.syms.inlines.iter().any(|(n, _, _)| n == name) {
            return Err(err(
                Tag::D_DECL_IDRED,
                line,
                format!(
                    "identifier redefined: {}\n\t current: inline definition\n\tprevious: scalar inline",
                    name
                ),
            ));
        }
        if self.syms.globals.iter().any(|g| g.name == name) {
            return Err(err(
                Tag::D_DECL_IDRED,
                line,
                format!("identifier redeclared: {}", name),
            ));
        }
        // Its attributes are its value's (unless a pragma says).
        let (v, attr) = self.attr_scope(|c| c.expr(value));
        let v = v?;
        self.keep_inline_attr(name, attr);
        // An inline may name a translation: its type is the translated one.
        if let Type::Translated { to, ptr, .. } = &v.ty {
            let want = if *ptr {
                Type::ptr((**to).clone())
            } else {
                (**to).clone()
            };
            if !want.same_as(&t) {
                return Err(inline_incompat(name, &t, &want, line));
            }
            self.syms
                .inlines
                .push((name.to_string(), t, CExpr { line, ..v }));
            return Ok(());
        }
        let ok = t.compatible(&v.ty);
        if !ok {
            return Err(inline_incompat(name, &t, &v.ty, line));
        }
        // The value takes the declared type (constants converted now).
        let v = match (v.kind, t.as_int()) {
            (CKind::Int(x), Some(it)) => CExpr {
                kind: CKind::Int(convert_const(x, it)),
                ty: t.clone(),
                line,
            },
            (kind, Some(_)) if t.is_scalar() => CExpr {
                kind: CKind::Cast(Box::new(CExpr {
                    kind,
                    ty: v.ty,
                    line,
                })),
                ty: t.clone(),
                line,
            },
            (kind, _) => CExpr {
                kind,
                ty: t.clone(),
                line,
            },
        };
        self.syms.inlines.push((name.to_string(), t, v));
        Ok(())
    }

    /// `offsetof(type, member[.member...])`.
    pub(super) fn offsetof(
        &mut self,
        t: &ast::TypeName,
        path: &[String],
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let mut ty = self.type_name(t, line)?;
        self.use_type(&ty, line)?;
        let mut off: u64 = 0;
        for m in path {
            let Type::Record(r) = ty.resolved().clone() else {
                return Err(err(
                    Tag::D_OFFSETOF_TYPE,
                    line,
                    "offsetof operand must be a struct or union type",
                ));
            };
            if self.syms.types.size_of(&ty).is_err() {
                return Err(err(
                    Tag::D_OFFSETOF_TYPE,
                    line,
                    "offsetof operand must be a struct or union type",
                ));
            }
            let Some(f) = self.syms.types.member(&r, m) else {
                // DTrace asks the type library, and passes its word on.
                return Err(err(
                    Tag::D_UNKNOWN,
                    line,
                    format!("failed to determine offset of {}: Member name not found", m),
                ));
            };
            if f.bits.is_some() {
                return Err(err(
                    Tag::D_OFFSETOF_BITFIELD,
                    line,
                    format!("cannot take offset of a bit-field: {}", m),
                ));
            }
            off += f.bit_offset / 8;
            ty = f.ty;
        }
        Ok(CExpr {
            kind: CKind::Int(off as i64),
            ty: int_ty(types::SIZE_T),
            line,
        })
    }
}
