//! `d_path()`: a path name from a `struct path`, as DTrace for Linux has
//! it. The kernel's own `d_path` cannot be called from a tracing program
//! here (`bpf_d_path` is allowed only in a few fentry and LSM hooks), so
//! the walk is generated (`CKind::DPath`): up `d_parent` from the path's
//! dentry, crossing from the root of each mount to its mount point in the
//! parent mount, to the root of the process's mount tree. This module
//! finds, in the kernel's BTF, the offsets the walk reads.

use super::{err, Checker};
use crate::ast::{Expr, ExprKind, UnOp};
use crate::error::{CompileError, Tag};
use crate::ir::{CExpr, CKind, DPathOffsets};
use crate::types::{TagKind, Type};

impl Checker<'_> {
    pub(super) fn subr_d_path(
        &mut self,
        mut args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let offs = self.dpath_offsets().ok_or_else(|| {
            err(
                Tag::D_NOTSUP,
                line,
                "d_path( ) needs the kernel's BTF for struct path, dentry, vfsmount and mount",
            )
        })?;
        Ok(CExpr {
            kind: CKind::DPath(Box::new(args.remove(0)), offs),
            ty: Type::String,
            line,
        })
    }

    /// `cwd` and `root`: `d_path(&curthread->fs-><member>)`.
    pub(super) fn fs_path(&mut self, member: &str, line: u32) -> Result<CExpr, CompileError> {
        let e = |kind| Expr { kind, line };
        let fs = e(ExprKind::Arrow(
            Box::new(e(ExprKind::Ident("curthread".into()))),
            "fs".into(),
        ));
        let path = e(ExprKind::Unary(
            UnOp::Addr,
            Box::new(e(ExprKind::Arrow(Box::new(fs), member.into()))),
        ));
        let p = self.expr(&path)?;
        self.subr_d_path(vec![p], line)
    }

    /// The byte offset of `members` (each inside the previous one's
    /// struct) in kernel struct `tag`.
    fn kernel_offset(&mut self, tag: &str, members: &[&str]) -> Option<u32> {
        let mut ty = self.syms.types.tagged(TagKind::Struct, tag, None)?;
        let mut off = 0;
        for m in members {
            let Type::Record(r) = ty.resolved().clone() else {
                return None;
            };
            let f = self.syms.types.member(&r, m)?;
            off += f.bit_offset / 8;
            ty = f.ty;
        }
        u32::try_from(off).ok()
    }

    fn dpath_offsets(&mut self) -> Option<DPathOffsets> {
        Some(DPathOffsets {
            path_mnt: self.kernel_offset("path", &["mnt"])?,
            path_dentry: self.kernel_offset("path", &["dentry"])?,
            d_parent: self.kernel_offset("dentry", &["d_parent"])?,
            d_name: self.kernel_offset("dentry", &["d_name", "name"])?,
            mnt_root: self.kernel_offset("vfsmount", &["mnt_root"])?,
            mount_mnt: self.kernel_offset("mount", &["mnt"])?,
            mnt_parent: self.kernel_offset("mount", &["mnt_parent"])?,
            mnt_mountpoint: self.kernel_offset("mount", &["mnt_mountpoint"])?,
        })
    }
}
