//! Scratch memory a clause allocates: `alloca()`, `copyin()`,
//! `copyinto()`, `bcopy()`, and stores through pointers (`*p = v`).
//!
//! A clause that uses any of them has a region of the per-CPU scratch
//! element: a word holding how much is allocated (reset when each clause
//! begins, so allocations last for the clause, as in DTrace), then the
//! space itself, `scratchsize` bytes (the option), followed by as many again that
//! are never handed out, so that a copy that starts anywhere in the space
//! and is at most its size long is provably inside the map value.
//!
//! What alloca() returns is the space's kernel address as an integer (a
//! D pointer): loads through it are kernel reads like any other. A store
//! through a pointer, and the destination of copyinto() and bcopy(), must
//! fall inside what the clause has allocated: the address is checked
//! against the region when it runs, and anything else is DTrace's
//! "invalid address", since BPF can write no other kernel memory.

use dtrace_lang::ir::{visit_clause_exprs, CClause, CExpr, CKind, LValue};
use dtrace_lang::types::Type;

use crate::codegen::{GenError, Temp};
use crate::insn::*;
use crate::layout::scratch;
use crate::plan::fault;
use crate::program::ProgGen;

type R<T> = Result<T, GenError>;

/// The region of `scratchsize` bytes: the allocated-size word, the
/// space, and its guard.
pub(crate) fn region_size(scratchsize: u32) -> u32 {
    8 + 2 * scratchsize
}

/// True if the clause allocates scratch memory or stores through a
/// pointer.
pub(crate) fn uses_scratch_memory(c: &CClause) -> bool {
    let mut any = false;
    visit_clause_exprs(c, &mut |e| {
        any |= matches!(
            e.kind,
            CKind::Alloca(_)
                | CKind::Copyin(..)
                | CKind::Copyinto(..)
                | CKind::Bcopy(..)
                | CKind::Assign(LValue::Mem { .. }, ..)
                | CKind::IncDec {
                    target: LValue::Mem { .. },
                    ..
                }
        );
    });
    any
}

impl ProgGen<'_, '_> {
    fn region(&self, what: &str) -> R<u32> {
        self.g.alloca_at.ok_or_else(|| {
            GenError(format!(
                "internal error: {} without a scratch memory region",
                what
            ))
        })
    }

    /// `reg` = the kernel address of the scratch element plus `off`, as a
    /// plain integer (the pointer goes through scratch memory, where the
    /// verifier keeps no types).
    fn scratch_address(&mut self, reg: Reg, off: u32) {
        self.a.emit(stx(Size::DW, R9, scratch::TMP as i16, R9));
        self.a.emit(ldx(Size::DW, reg, R9, scratch::TMP as i16));
        self.a.emit(alu64_imm(Alu::Add, reg, off as i32));
    }

    /// Allocates R1 bytes (a value below `scratchsize`, else "out of
    /// scratch space"): R1 is left the offset of the allocation in the
    /// space (8-byte aligned, below `scratchsize`), R2 its size.
    fn allocate(&mut self, at: u32) {
        let full = self.a.new_label();
        let room = self.a.new_label();
        self.a
            .jmp_imm_to(Cond::Gt, R1, self.g.inp.opts.scratchsize as i32, full);
        self.a.emit(mov64_reg(R2, R1));
        self.ldx_at(R1, R9, at, Size::DW);
        self.a
            .jmp_imm_to(Cond::Gt, R1, self.g.inp.opts.scratchsize as i32, full);
        // The new top: the size rounded up to 8.
        self.a.emit(mov64_reg(R3, R2));
        self.a.emit(alu64_imm(Alu::Add, R3, 7));
        self.a.emit(alu64_imm(Alu::And, R3, -8));
        self.a.emit(alu64_reg(Alu::Add, R3, R1));
        self.a
            .jmp_imm_to(Cond::Gt, R3, self.g.inp.opts.scratchsize as i32, full);
        self.stx_at(R9, at, R3, Size::DW);
        self.a.ja_to(room);
        self.a.bind(full);
        let act = self.cur_action;
        self.fault(fault::NOSCRATCH, None, act);
        self.a.bind(room);
    }

    /// alloca(size): zeroed scratch space.
    pub(crate) fn alloca(&mut self, size: &CExpr) -> R<Temp> {
        let at = self.region("alloca( )")?;
        let t = self.eval_int(size)?;
        // bpf_probe_read_kernel from address 0 fails and zero-fills.
        self.fill_new(at, t, None);
        Ok(t)
    }

    /// copyin(addr, size): the process's memory at `addr` in new scratch
    /// space; an address it cannot read is an invalid address.
    pub(crate) fn copyin(&mut self, addr: &CExpr, size: &CExpr) -> R<Temp> {
        let at = self.region("copyin( )")?;
        let ta = self.eval_int(addr)?;
        let t = self.eval_int(size)?;
        self.fill_new(at, t, Some(ta));
        self.free(ta);
        Ok(t)
    }

    /// Allocates the size in `t` and fills the space by a read from `src`
    /// (the process's memory; 0 reads nothing and zero-fills), faulting
    /// on a bad address; `t` becomes the space's address.
    fn fill_new(&mut self, at: u32, t: Temp, src: Option<Temp>) {
        self.load_temp(t, R1);
        self.allocate(at);
        self.store_temp(t, R1);
        self.ptr(R3, R9, at + 8);
        self.a.emit(alu64_reg(Alu::Add, R3, R1));
        self.a.emit(mov64_reg(R1, R3));
        match src {
            Some(ta) => {
                self.load_temp(ta, R3);
                self.a.emit(call(self.user_read()));
                self.check_read(ta);
            }
            None => {
                self.a.emit(mov64_imm(R3, 0));
                self.a.emit(call(Helper::ProbeReadKernel));
            }
        }
        self.load_temp(t, R1);
        self.scratch_address(R2, at + 8);
        self.a.emit(alu64_reg(Alu::Add, R1, R2));
        self.store_temp(t, R1);
    }

    /// R1 (an address, kept in `addr` for the fault) becomes a pointer
    /// into the allocated space if `R2` bytes there (R2 at most
    /// `scratchsize`) were allocated by this clause; otherwise an invalid
    /// address. R2 is kept.
    fn region_pointer(&mut self, at: u32, addr: Temp) {
        let bad = self.a.new_label();
        let ok = self.a.new_label();
        self.a
            .jmp_imm_to(Cond::Gt, R2, self.g.inp.opts.scratchsize as i32, bad);
        self.a.emit(mov64_reg(R4, R2));
        self.scratch_address(R3, at + 8);
        self.a.emit(alu64_reg(Alu::Sub, R1, R3));
        // Offset within what is allocated: offset + size <= top.
        self.a
            .jmp_imm_to(Cond::Gt, R1, self.g.inp.opts.scratchsize as i32, bad);
        self.ldx_at(R3, R9, at, Size::DW);
        self.a.emit(alu64_reg(Alu::Add, R4, R1));
        self.a.jmp_reg_to(Cond::Gt, R4, R3, bad);
        self.ptr(R3, R9, at + 8);
        self.a.emit(alu64_reg(Alu::Add, R3, R1));
        self.a.emit(mov64_reg(R1, R3));
        self.a.ja_to(ok);
        self.a.bind(bad);
        self.load_temp(addr, R1);
        let act = self.cur_action;
        self.fault(fault::BADADDR, Some(R1), act);
        self.a.bind(ok);
    }

    /// copyinto(addr, size, dest) (`user` true) and bcopy(src, dest,
    /// size): `size` bytes read into allocated scratch space at `dest`.
    pub(crate) fn copy_into(
        &mut self,
        src: &CExpr,
        size: &CExpr,
        dest: &CExpr,
        user: bool,
    ) -> R<()> {
        let at = self.region(if user { "copyinto( )" } else { "bcopy( )" })?;
        // The arguments in the order they are written: copyinto(addr,
        // size, dest), bcopy(src, dest, size).
        let ts = self.eval_int(src)?;
        let (tn, td) = if user {
            let tn = self.eval_int(size)?;
            (tn, self.eval_int(dest)?)
        } else {
            let td = self.eval_int(dest)?;
            (self.eval_int(size)?, td)
        };
        self.load_temp(td, R1);
        self.load_temp(tn, R2);
        self.region_pointer(at, td);
        self.free(td);
        self.free(tn);
        self.load_temp(ts, R3);
        self.a.emit(call(if user {
            self.user_read()
        } else {
            Helper::ProbeReadKernel
        }));
        self.check_read(ts);
        self.free(ts);
        Ok(())
    }

    /// `*p = v` for a scalar of type `ty`: `v` (in `val`) stored into
    /// allocated scratch space at the address in `ta`.
    pub(crate) fn store_mem(&mut self, ta: Temp, ty: &Type, val: Temp) -> R<()> {
        let size = ty.scalar_size().clamp(1, 8);
        let at = self.region("a store to memory")?;
        self.load_temp(ta, R1);
        self.a.emit(mov64_imm(R2, size as i32));
        self.region_pointer(at, ta);
        self.load_temp(val, R2);
        self.a.emit(stx(Size::of_bytes(size), R1, 0, R2));
        Ok(())
    }
}
