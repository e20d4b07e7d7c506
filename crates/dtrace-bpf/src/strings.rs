//! String subroutines, generated: `strjoin()` and `lltostr()`.
//!
//! Each builds its result in a scratch buffer of twice `strsize`: a
//! write that starts below `strsize` and is at most `strsize` long stays
//! inside it, which the verifier can prove; the result is then cut at
//! `strsize - 1` bytes. As in DTrace, a joined string that does not fit
//! in `strsize` is an "out of scratch space" error, not a truncation.

use dtrace_lang::ir::CExpr;

use crate::codegen::{GenError, Temp};
use crate::insn::*;
use crate::plan::fault;
use crate::program::ProgGen;

type R<T> = Result<T, GenError>;

/// The most characters of a 64-bit integer in decimal, sign included.
const LLTOSTR_LEN: u32 = 20;

impl ProgGen<'_, '_> {
    /// `strjoin(a, b)`: `a`, then `b`, in a new string of `strsize`.
    pub(crate) fn strjoin(&mut self, a: &CExpr, b: &CExpr) -> R<(Temp, u32)> {
        let cap = self.g.caps.strsize.max(2);
        let buf = self.alloc_buf(2 * cap);
        let len = self.alloc_buf(8);
        let (pa, ca) = self.eval_str(a)?;
        // a, NUL included: R0 bytes (at least 1 once an error is 1).
        self.ptr(R1, R9, buf);
        self.a.emit(mov64_imm(R2, ca.min(cap) as i32));
        self.load_temp(pa, R3);
        self.free(pa);
        self.a.emit(call(Helper::ProbeReadKernelStr));
        let ok = self.a.new_label();
        self.a.jmp_imm_to(Cond::Sgt, R0, 0, ok);
        self.a.emit(mov64_imm(R0, 1));
        self.st_imm_at(R9, buf, 0);
        self.a.bind(ok);
        self.stx_at(R9, len, R0, Size::DW);
        let (pb, cb) = self.eval_str(b)?;
        // b after a's characters: at an offset below strsize.
        self.ldx_at(R2, R9, len, Size::DW);
        self.a.emit(alu64_imm(Alu::Sub, R2, 1));
        let in_range = self.a.new_label();
        self.a.jmp_imm_to(Cond::Le, R2, (cap - 1) as i32, in_range);
        self.a.emit(mov64_imm(R2, (cap - 1) as i32));
        self.a.bind(in_range);
        self.ptr(R1, R9, buf);
        self.a.emit(alu64_reg(Alu::Add, R1, R2));
        self.a.emit(mov64_imm(R2, cb.min(cap) as i32));
        self.load_temp(pb, R3);
        self.free(pb);
        self.a.emit(call(Helper::ProbeReadKernelStr));
        // Both, with one NUL, must fit: len(a) + len(b) + 1 <= strsize.
        let fits = self.a.new_label();
        let empty_b = self.a.new_label();
        self.a.jmp_imm_to(Cond::Sgt, R0, 0, empty_b);
        self.a.emit(mov64_imm(R0, 1));
        self.a.bind(empty_b);
        self.ldx_at(R2, R9, len, Size::DW);
        self.a.emit(alu64_reg(Alu::Add, R0, R2));
        self.a.emit(alu64_imm(Alu::Sub, R0, 1));
        self.a.jmp_imm_to(Cond::Le, R0, cap as i32, fits);
        let act = self.cur_action;
        self.fault(fault::NOSCRATCH, None, act);
        self.a.bind(fits);
        self.ptr(R1, R9, buf + cap - 1);
        self.a.emit(st_imm(Size::B, R1, 0, 0));
        self.ptr(R1, R9, buf);
        Ok((self.int_result(R1), cap))
    }

    /// `lltostr(v)`: the signed 64-bit integer in decimal. The digits
    /// are written backwards from the end of a 32-byte work buffer, one
    /// per step (unrolled: at most 19), then the sign; the text is then
    /// copied to the start of the result.
    pub(crate) fn lltostr(&mut self, v: &CExpr) -> R<(Temp, u32)> {
        let work = self.alloc_buf(32);
        let out = self.alloc_buf(LLTOSTR_LEN + 4);
        let st = self.alloc_buf(24);
        let (val, neg, first) = (st, st + 8, st + 16);
        let tv = self.eval_int(v)?;
        self.load_temp(tv, R0);
        self.free(tv);
        // The magnitude, unsigned (the most negative value is its own).
        self.a.emit(mov64_imm(R1, 0));
        let positive = self.a.new_label();
        self.a.jmp_imm_to(Cond::Sge, R0, 0, positive);
        self.a.emit(neg64(R0));
        self.a.emit(mov64_imm(R1, 1));
        self.a.bind(positive);
        self.stx_at(R9, val, R0, Size::DW);
        self.stx_at(R9, neg, R1, Size::DW);
        // The NUL at byte 31; digits from byte 30 down.
        self.ptr(R1, R9, work + 31);
        self.a.emit(st_imm(Size::B, R1, 0, 0));
        let sign = self.a.new_label();
        for i in 0..19u32 {
            self.ldx_at(R0, R9, val, Size::DW);
            if i > 0 {
                self.a.jmp_imm_to(Cond::Eq, R0, 0, sign);
            }
            self.a.emit(mov64_reg(R3, R0));
            self.a.emit(alu64_imm(Alu::Mod, R3, 10));
            self.a.emit(alu64_imm(Alu::Add, R3, i32::from(b'0')));
            self.ptr(R1, R9, work + 30 - i);
            self.a.emit(stx(Size::B, R1, 0, R3));
            self.a.emit(alu64_imm(Alu::Div, R0, 10));
            self.stx_at(R9, val, R0, Size::DW);
            self.a.emit(mov64_imm(R4, (30 - i) as i32));
            self.stx_at(R9, first, R4, Size::DW);
        }
        self.a.bind(sign);
        self.ldx_at(R4, R9, first, Size::DW);
        self.ldx_at(R1, R9, neg, Size::DW);
        let copy = self.a.new_label();
        self.a.jmp_imm_to(Cond::Eq, R1, 0, copy);
        self.a.emit(alu64_imm(Alu::Sub, R4, 1));
        self.a.emit(alu64_imm(Alu::And, R4, 31));
        self.ptr(R1, R9, work);
        self.a.emit(alu64_reg(Alu::Add, R1, R4));
        self.a.emit(st_imm(Size::B, R1, 0, i32::from(b'-')));
        self.a.bind(copy);
        self.a.emit(alu64_imm(Alu::And, R4, 31));
        self.ptr(R3, R9, work);
        self.a.emit(alu64_reg(Alu::Add, R3, R4));
        self.ptr(R1, R9, out);
        self.a.emit(mov64_imm(R2, (LLTOSTR_LEN + 4) as i32));
        self.a.emit(call(Helper::ProbeReadKernelStr));
        self.ptr(R1, R9, out);
        Ok((self.int_result(R1), LLTOSTR_LEN + 4))
    }
}
