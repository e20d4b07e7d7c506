//! `d_path()`'s walk, generated: the kernel's `d_path` is not callable
//! from tracing programs here (`bpf_d_path` is allowed only in a few
//! fentry and LSM hooks), so the program climbs the dentries itself.
//!
//! Two unrolled passes. The first climbs from the path's dentry towards
//! the root, one step per iteration: a dentry below its mount's root
//! records its name and moves to `d_parent`; at a mount's root it moves
//! to the mount point in the parent mount (recording nothing); it stops
//! at the root of the mount tree, at a dentry that is its own parent, or
//! at a read that fails. The second pass writes the names recorded, from
//! the top down, each after a '/', into a buffer of twice `strsize`
//! (every write starts below `strsize` and is at most `strsize` long, so
//! the verifier can prove it in bounds), then cuts the string at
//! `strsize - 1` bytes. Nothing recorded is "/". A path deeper than
//! [`STEPS`] levels keeps its top `STEPS` components.

use dtrace_lang::ir::{CExpr, DPathOffsets};

use crate::codegen::{GenError, Temp};
use crate::insn::*;
use crate::layout::scratch;
use crate::plan::fault;
use crate::program::ProgGen;

type R<T> = Result<T, GenError>;

/// Steps of the walk: dentries climbed plus mounts crossed.
pub(crate) const STEPS: u32 = 32;

impl ProgGen<'_, '_> {
    /// The path name of the `struct path` at `path`, built in scratch;
    /// its address, and its capacity (`strsize`).
    pub(crate) fn d_path(&mut self, path: &CExpr, o: &DPathOffsets) -> R<(Temp, u32)> {
        let cap = self.g.caps.strsize.max(2);
        // The walk's state: the dentry, the vfsmount, the mount, the
        // parent dentry, and the length written.
        let st = self.alloc_buf(40);
        let (dentry, vfsmnt, mount, parent, pos) = (st, st + 8, st + 16, st + 24, st + 32);
        let names = self.alloc_buf(STEPS * 8);
        let buf = self.alloc_buf(2 * cap);
        for w in 0..STEPS {
            self.st_imm_at(R9, names + 8 * w, 0);
        }
        let tp = self.eval_int(path)?;
        // The path itself must be readable: a NULL or wild pointer is
        // "invalid address", as any other subroutine's bad pointer is.
        for (field, slot) in [(o.path_dentry, dentry), (o.path_mnt, vfsmnt)] {
            self.ptr(R1, R9, slot);
            self.a.emit(mov64_imm(R2, 8));
            self.load_temp(tp, R3);
            self.a.emit(alu64_imm(Alu::Add, R3, field as i32));
            self.a.emit(call(Helper::ProbeReadKernel));
            let ok = self.a.new_label();
            self.a.jmp_imm_to(Cond::Eq, R0, 0, ok);
            self.load_temp(tp, R1);
            self.a.emit(alu64_imm(Alu::Add, R1, field as i32));
            let act = self.cur_action;
            self.fault(fault::BADADDR, Some(R1), act);
            self.a.bind(ok);
        }
        self.free(tp);

        let top = self.a.new_label();
        for i in 0..STEPS {
            let next = self.a.new_label();
            let below_root = self.a.new_label();
            self.ldx_at(R3, R9, vfsmnt, Size::DW);
            self.a.emit(alu64_imm(Alu::Add, R3, o.mnt_root as i32));
            self.kread();
            self.ldx_at(R1, R9, dentry, Size::DW);
            self.a.jmp_imm_to(Cond::Eq, R1, 0, top);
            self.a.jmp_reg_to(Cond::Ne, R1, R0, below_root);
            // The root of a mount: on to its mount point in the parent
            // mount, unless this mount is its own parent (the top).
            self.ldx_at(R3, R9, vfsmnt, Size::DW);
            self.a.emit(alu64_imm(Alu::Sub, R3, o.mount_mnt as i32));
            self.stx_at(R9, mount, R3, Size::DW);
            self.a.emit(alu64_imm(Alu::Add, R3, o.mnt_parent as i32));
            self.kread();
            self.a.jmp_imm_to(Cond::Eq, R0, 0, top);
            self.ldx_at(R1, R9, mount, Size::DW);
            self.a.jmp_reg_to(Cond::Eq, R0, R1, top);
            self.a.emit(alu64_imm(Alu::Add, R0, o.mount_mnt as i32));
            self.stx_at(R9, vfsmnt, R0, Size::DW);
            self.ldx_at(R3, R9, mount, Size::DW);
            self.a
                .emit(alu64_imm(Alu::Add, R3, o.mnt_mountpoint as i32));
            self.kread();
            self.stx_at(R9, dentry, R0, Size::DW);
            self.a.ja_to(next);
            // Below the root: record the name, climb to the parent.
            self.a.bind(below_root);
            self.ldx_at(R3, R9, dentry, Size::DW);
            self.a.emit(alu64_imm(Alu::Add, R3, o.d_parent as i32));
            self.kread();
            self.a.jmp_imm_to(Cond::Eq, R0, 0, top);
            self.ldx_at(R1, R9, dentry, Size::DW);
            self.a.jmp_reg_to(Cond::Eq, R0, R1, top);
            self.stx_at(R9, parent, R0, Size::DW);
            self.ldx_at(R3, R9, dentry, Size::DW);
            self.a.emit(alu64_imm(Alu::Add, R3, o.d_name as i32));
            self.kread();
            self.stx_at(R9, names + 8 * i, R0, Size::DW);
            self.ldx_at(R0, R9, parent, Size::DW);
            self.stx_at(R9, dentry, R0, Size::DW);
            self.a.bind(next);
        }
        self.a.bind(top);

        // The names, from the top down.
        self.st_imm_at(R9, pos, 0);
        let full = self.a.new_label();
        for i in (0..STEPS).rev() {
            let skip = self.a.new_label();
            self.ldx_at(R3, R9, names + 8 * i, Size::DW);
            self.a.jmp_imm_to(Cond::Eq, R3, 0, skip);
            self.ldx_at(R2, R9, pos, Size::DW);
            self.a.jmp_imm_to(Cond::Gt, R2, (cap - 2) as i32, full);
            self.ptr(R1, R9, buf);
            self.a.emit(alu64_reg(Alu::Add, R1, R2));
            self.a.emit(st_imm(Size::B, R1, 0, i32::from(b'/')));
            self.a.emit(alu64_imm(Alu::Add, R2, 1));
            self.stx_at(R9, pos, R2, Size::DW);
            self.ptr(R1, R9, buf);
            self.a.emit(alu64_reg(Alu::Add, R1, R2));
            self.a.emit(mov64_imm(R2, cap as i32));
            self.a.emit(call(Helper::ProbeReadKernelStr));
            // Bytes copied with the NUL; the next name overwrites it.
            self.a.jmp_imm_to(Cond::Sle, R0, 0, skip);
            self.a.emit(alu64_imm(Alu::Sub, R0, 1));
            self.ldx_at(R2, R9, pos, Size::DW);
            self.a.emit(alu64_reg(Alu::Add, R2, R0));
            self.stx_at(R9, pos, R2, Size::DW);
            self.a.bind(skip);
        }
        self.a.bind(full);
        // Nothing above the root: "/".
        let some = self.a.new_label();
        self.ldx_at(R2, R9, pos, Size::DW);
        self.a.jmp_imm_to(Cond::Ne, R2, 0, some);
        self.ptr(R1, R9, buf);
        self.a.emit(st_imm(Size::B, R1, 0, i32::from(b'/')));
        self.a.emit(mov64_imm(R2, 1));
        self.a.bind(some);
        let fits = self.a.new_label();
        self.a.jmp_imm_to(Cond::Le, R2, (cap - 1) as i32, fits);
        self.a.emit(mov64_imm(R2, (cap - 1) as i32));
        self.a.bind(fits);
        self.ptr(R1, R9, buf);
        self.a.emit(alu64_reg(Alu::Add, R1, R2));
        self.a.emit(st_imm(Size::B, R1, 0, 0));
        self.ptr(R1, R9, buf);
        Ok((self.int_result(R1), cap))
    }

    /// r0 = the 8 bytes at the kernel address in r3, or 0 if they cannot
    /// be read; the helper's result (0, or a negative error) is left in
    /// the scratch word after them.
    fn kread(&mut self) {
        self.st_imm_at(R9, scratch::TMP, 0);
        self.ptr(R1, R9, scratch::TMP);
        self.a.emit(mov64_imm(R2, 8));
        self.a.emit(call(Helper::ProbeReadKernel));
        self.ldx_at(R0, R9, scratch::TMP, Size::DW);
    }
}
