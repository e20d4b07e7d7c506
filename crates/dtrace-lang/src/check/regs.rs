//! `uregs[]`: the saved user registers of the current thread.
//!
//! Indices are DTrace for Linux's x86-64 `R_*` constants (the D library
//! file `regs.d`): 0 to 20 are the words of the kernel's `struct
//! pt_regs`, in its order (`R_R15` is 0, `R_RIP` 16, `R_RSP` 19); 21 to
//! 25 (`R_DS`, `R_ES`, `R_FS`, `R_GS`, `R_TRAPNO`) are kept in the task's
//! `thread_struct`, read from `curthread`.

use super::place::offset;
use super::{err, int_ty, Checker};
use crate::ast::{Expr, ExprKind};
use crate::error::{CompileError, Tag};
use crate::ir::{Builtin, CExpr, CKind};
use crate::types::{self, Type};

/// Words of x86-64's `struct pt_regs`.
const PT_REGS_WORDS: i64 = 21;

/// `thread_struct` members for indices 21 and up.
const THREAD_REGS: [&str; 5] = ["ds", "es", "fsbase", "gsbase", "trap_nr"];

impl Checker<'_> {
    /// `uregs[i]`, for a constant `i`.
    pub(super) fn uregs_index(&mut self, idx: &[Expr], line: u32) -> Result<CExpr, CompileError> {
        if idx.len() != 1 {
            return Err(err(
                Tag::D_PROTO_LEN,
                line,
                format!(
                    "uregs[ ] prototype mismatch: {} args passed, 1 expected",
                    idx.len()
                ),
            ));
        }
        let i = self.expr(&idx[0])?;
        let n = match i.kind {
            CKind::Int(n) if i.ty.is_int() => n,
            _ => {
                return Err(err(
                    Tag::D_PROTO_ARG,
                    line,
                    format!(
                        "uregs[ ] argument #1 is incompatible with prototype:\n\tprototype: integer constant\n\t argument: {}",
                        i.ty
                    ),
                ))
            }
        };
        // As DTrace: a negative index is refused as such, one past the
        // registers as out of bounds (D_UNKNOWN, as DTrace for Linux's
        // code generator reports it).
        if n < 0 && i.ty.as_int().is_some_and(|t| t.signed) {
            return Err(err(
                Tag::D_REGS_IDX,
                line,
                format!("index {} is out of range for array uregs", n),
            ));
        }
        let u64_ty = int_ty(types::UINT64);
        if (0..PT_REGS_WORDS).contains(&n) {
            let regs = CExpr {
                kind: CKind::Builtin(Builtin::Uregs),
                ty: Type::ptr(u64_ty.clone()),
                line,
            };
            let addr = offset(regs, n as u64 * 8, Type::ptr(u64_ty.clone()));
            return Ok(CExpr {
                kind: CKind::Deref(Box::new(addr)),
                ty: u64_ty,
                line,
            });
        }
        let Some(member) = usize::try_from(n - PT_REGS_WORDS)
            .ok()
            .and_then(|k| THREAD_REGS.get(k))
        else {
            return Err(err(
                Tag::D_UNKNOWN,
                line,
                format!("uregs[]: index out of bounds ({})", n),
            ));
        };
        // curthread->thread.<member>, widened to 64 bits.
        let e = |kind| Expr { kind, line };
        let thread = e(ExprKind::Arrow(
            Box::new(e(ExprKind::Ident("curthread".into()))),
            "thread".into(),
        ));
        let v = self.expr(&e(ExprKind::Member(Box::new(thread), member.to_string())))?;
        Ok(CExpr {
            kind: CKind::Cast(Box::new(v)),
            ty: u64_ty,
            line,
        })
    }
}
