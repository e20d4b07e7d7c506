//! String subroutines, generated: `strjoin()`, `lltostr()`,
//! `substr()`, `basename()`, `dirname()`, `toupper()` and `tolower()`.
//!
//! Each builds its result in a scratch buffer of twice `strsize`: a
//! write that starts below `strsize` and is at most `strsize` long stays
//! inside it, which the verifier can prove; the result is then cut at
//! `strsize - 1` bytes. As in DTrace, a joined string that does not fit
//! in `strsize` is an "out of scratch space" error, not a truncation.

use dtrace_lang::ir::CExpr;

use crate::asm::Label;
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
        // a, NUL included: R0 bytes (at least 1 once an error is 1).
        self.read_str(a, buf, cap)?;
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

    /// `substr(s, index, [length])`: the string is copied to scratch (its
    /// length known), the index and length are worked out as DTrace does
    /// (a negative index counts from the end; a negative length leaves
    /// that many characters off the end; what falls outside is cut), and
    /// that part copied out.
    pub(crate) fn substr(
        &mut self,
        s: &CExpr,
        index: &CExpr,
        len: Option<&CExpr>,
    ) -> R<(Temp, u32)> {
        let cap = self.g.caps.strsize.max(2);
        let src = self.alloc_buf(cap);
        let out = self.alloc_buf(cap);
        let st = self.alloc_buf(24);
        let (slen, idx, rem) = (st, st + 8, st + 16);
        self.read_str(s, src, cap)?;
        let read = self.a.new_label();
        self.a.jmp_imm_to(Cond::Sgt, R0, 0, read);
        self.st_imm_at(R9, src, 0);
        self.a.emit(mov64_imm(R0, 1));
        self.a.bind(read);
        self.a.emit(alu64_imm(Alu::Sub, R0, 1));
        self.stx_at(R9, slen, R0, Size::DW);
        let ti = self.eval_int(index)?;
        self.load_temp(ti, R0);
        self.free(ti);
        self.stx_at(R9, idx, R0, Size::DW);
        match len {
            Some(n) => {
                let tn = self.eval_int(n)?;
                self.load_temp(tn, R0);
                self.free(tn);
            }
            None => self.a.emit(mov64_imm(R0, cap as i32)),
        }
        self.stx_at(R9, rem, R0, Size::DW);
        // R1 index, R2 remaining, R3 the string's length.
        self.ldx_at(R1, R9, idx, Size::DW);
        self.ldx_at(R2, R9, rem, Size::DW);
        self.ldx_at(R3, R9, slen, Size::DW);
        let placed = self.a.new_label();
        self.a.jmp_imm_to(Cond::Sge, R1, 0, placed);
        // From the end; a start before the beginning shortens the part.
        self.a.emit(alu64_reg(Alu::Add, R1, R3));
        self.a.jmp_imm_to(Cond::Sge, R1, 0, placed);
        self.a.emit(mov64_reg(R4, R1));
        self.a.emit(alu64_reg(Alu::Add, R4, R2));
        self.a.jmp_imm_to(Cond::Sle, R4, 0, placed);
        self.a.emit(alu64_reg(Alu::Add, R2, R1));
        self.a.emit(mov64_imm(R1, 0));
        self.a.bind(placed);
        let nothing = self.a.new_label();
        let cut = self.a.new_label();
        self.a.jmp_reg_to(Cond::Sge, R1, R3, nothing);
        self.a.jmp_imm_to(Cond::Slt, R1, 0, nothing);
        let non_negative = self.a.new_label();
        self.a.jmp_imm_to(Cond::Sge, R2, 0, non_negative);
        // A negative length: that many off the end.
        self.a.emit(alu64_reg(Alu::Add, R2, R3));
        self.a.emit(alu64_reg(Alu::Sub, R2, R1));
        self.a.ja_to(cut);
        self.a.bind(non_negative);
        self.a.emit(mov64_reg(R4, R1));
        self.a.emit(alu64_reg(Alu::Add, R4, R2));
        self.a.jmp_imm_to(Cond::Sle, R4, cap as i32, cut);
        self.a.emit(mov64_imm(R2, cap as i32));
        self.a.emit(alu64_reg(Alu::Sub, R2, R1));
        self.a.ja_to(cut);
        self.a.bind(nothing);
        self.a.emit(mov64_imm(R2, 0));
        self.a.emit(mov64_imm(R1, 0));
        self.a.bind(cut);
        // Bounds the verifier can see: 0 <= index < strsize, and
        // 0 <= remaining < strsize.
        self.clamp(R2, 0, cap - 1);
        self.clamp(R1, 0, cap - 1);
        Ok(self.copy_part(src, out, cap))
    }

    /// `toupper(s)` (`upper`) or `tolower(s)`: the string copied, each
    /// letter of the other case moved by 32. Every byte of the buffer is
    /// converted, unrolled and without a branch (so the verifier's
    /// branch limit does not bound `strsize`); what follows the NUL does
    /// not matter.
    pub(crate) fn change_case(&mut self, s: &CExpr, upper: bool) -> R<(Temp, u32)> {
        let cap = self.g.caps.strsize.max(2);
        let buf = self.alloc_buf(cap);
        self.read_str(s, buf, cap)?;
        let ok = self.a.new_label();
        self.a.jmp_imm_to(Cond::Sgt, R0, 0, ok);
        self.st_imm_at(R9, buf, 0);
        self.a.bind(ok);
        let first = if upper { b'a' } else { b'A' };
        for i in 0..cap - 1 {
            // R1 = c - first; in 0..25 (a letter to change) iff R1 >= 0
            // and R1 - 26 < 0: R2 = those two sign bits combined.
            self.ldx_at(R0, R9, buf + i, Size::B);
            self.a.emit(mov64_reg(R1, R0));
            self.a.emit(alu64_imm(Alu::Sub, R1, i32::from(first)));
            self.a.emit(mov64_reg(R2, R1));
            self.a.emit(alu64_imm(Alu::Sub, R2, 26));
            self.a.emit(alu64_imm(Alu::Rsh, R2, 63));
            self.a.emit(alu64_imm(Alu::Rsh, R1, 63));
            self.a.emit(alu64_imm(Alu::Xor, R1, 1));
            self.a.emit(alu64_reg(Alu::And, R2, R1));
            self.a.emit(alu64_imm(Alu::Lsh, R2, 5));
            let op = if upper { Alu::Sub } else { Alu::Add };
            self.a.emit(alu64_reg(op, R0, R2));
            self.stx_at(R9, buf + i, R0, Size::B);
        }
        self.ptr(R1, R9, buf + cap - 1);
        self.a.emit(st_imm(Size::B, R1, 0, 0));
        self.ptr(R1, R9, buf);
        Ok((self.int_result(R1), cap))
    }

    /// The string `s` copied to `src` (at most `cap` bytes, the NUL
    /// included); R0 is what the copy returned (its length and the NUL,
    /// or a negative error).
    fn read_str(&mut self, s: &CExpr, src: u32, cap: u32) -> R<()> {
        let (ps, cs) = self.eval_str(s)?;
        self.ptr(R1, R9, src);
        self.a.emit(mov64_imm(R2, cs.min(cap) as i32));
        self.load_temp(ps, R3);
        self.free(ps);
        self.a.emit(call(Helper::ProbeReadKernelStr));
        Ok(())
    }

    /// `reg = min(max(reg, lo), hi)`, signed: bounds the verifier sees.
    fn clamp(&mut self, reg: Reg, lo: u32, hi: u32) {
        let above = self.a.new_label();
        self.a.jmp_imm_to(Cond::Sge, reg, lo as i32, above);
        self.a.emit(mov64_imm(reg, lo as i32));
        self.a.bind(above);
        let below = self.a.new_label();
        self.a.jmp_imm_to(Cond::Sle, reg, hi as i32, below);
        self.a.emit(mov64_imm(reg, hi as i32));
        self.a.bind(below);
    }

    /// The R2 characters at `src` + R1 (both clamped below `cap`), and a
    /// NUL, copied to `out`: the result string.
    fn copy_part(&mut self, src: u32, out: u32, cap: u32) -> (Temp, u32) {
        self.ptr(R3, R9, src);
        self.a.emit(alu64_reg(Alu::Add, R3, R1));
        self.a.emit(alu64_imm(Alu::Add, R2, 1));
        self.ptr(R1, R9, out);
        self.a.emit(call(Helper::ProbeReadKernelStr));
        self.ptr(R1, R9, out);
        (self.int_result(R1), cap)
    }

    /// `basename(s)` (`dir` false) or `dirname(s)` (`dir` true), as
    /// DTrace finds them: from the end, past trailing slashes (the last
    /// character of the base name), then to the slash before the base
    /// name (its first), then past the slashes before it (the last of
    /// the directory name). An empty string is ".", one of slashes "/",
    /// a name without a slash has the directory ".". The scans are
    /// loops over the copy in scratch, one character a step (see
    /// [`scan`](Self::scan)).
    pub(crate) fn base_dir_name(&mut self, s: &CExpr, dir: bool) -> R<(Temp, u32)> {
        let cap = self.g.caps.strsize.max(2);
        let src = self.alloc_buf(cap);
        let out = self.alloc_buf(cap);
        let st = self.alloc_buf(40);
        let (lastbase, firstbase, lastdir) = (st, st + 8, st + 16);
        self.read_str(s, src, cap)?;
        // R3: the length; an empty string is ".".
        let nonempty = self.a.new_label();
        let sized = self.a.new_label();
        self.a.jmp_imm_to(Cond::Sgt, R0, 1, nonempty);
        self.ptr(R1, R9, src);
        self.a.emit(st_imm(Size::H, R1, 0, i32::from(b'.')));
        self.a.emit(mov64_imm(R3, 1));
        self.a.ja_to(sized);
        self.a.bind(nonempty);
        self.a.emit(mov64_reg(R3, R0));
        self.a.emit(alu64_imm(Alu::Sub, R3, 1));
        self.a.jmp_imm_to(Cond::Sle, R3, (cap - 1) as i32, sized);
        self.a.emit(mov64_imm(R3, (cap - 1) as i32));
        self.a.bind(sized);
        // R4: the position, from the last character back.
        self.a.emit(mov64_reg(R4, R3));
        self.a.emit(alu64_imm(Alu::Sub, R4, 1));
        self.scan(src, cap, true, st + 24);
        self.stx_at(R9, lastbase, R4, Size::DW);
        self.scan(src, cap, false, st + 24);
        // The first character of the base name follows the slash (-1:
        // there is none).
        let none = self.a.new_label();
        let stored = self.a.new_label();
        self.a.jmp_imm_to(Cond::Slt, R4, 0, none);
        self.a.emit(mov64_reg(R1, R4));
        self.a.emit(alu64_imm(Alu::Add, R1, 1));
        self.stx_at(R9, firstbase, R1, Size::DW);
        self.a.ja_to(stored);
        self.a.bind(none);
        self.a.emit(mov64_imm(R1, -1));
        self.stx_at(R9, firstbase, R1, Size::DW);
        self.a.bind(stored);
        self.scan(src, cap, true, st + 24);
        self.stx_at(R9, lastdir, R4, Size::DW);

        // Only slashes: "/" either way.
        let some = self.a.new_label();
        self.ldx_at(R1, R9, lastbase, Size::DW);
        self.a.jmp_imm_to(Cond::Sge, R1, 0, some);
        for slot in [lastbase, firstbase, lastdir] {
            self.st_imm_at(R9, slot, 0);
        }
        self.a.bind(some);
        // A name without a slash: its directory is ".", its base all.
        let slashed = self.a.new_label();
        self.ldx_at(R1, R9, firstbase, Size::DW);
        self.a.jmp_imm_to(Cond::Sge, R1, 0, slashed);
        if dir {
            self.ptr(R1, R9, src);
            self.a.emit(st_imm(Size::H, R1, 0, i32::from(b'.')));
            self.st_imm_at(R9, lastdir, 0);
        } else {
            self.st_imm_at(R9, firstbase, 0);
        }
        self.a.bind(slashed);
        // R1 the start, R2 the end (inclusive).
        if dir {
            self.a.emit(mov64_imm(R1, 0));
            self.ldx_at(R2, R9, lastdir, Size::DW);
            let set = self.a.new_label();
            self.a.jmp_imm_to(Cond::Sge, R2, 0, set);
            self.a.emit(mov64_imm(R2, 0));
            self.a.bind(set);
        } else {
            self.ldx_at(R1, R9, firstbase, Size::DW);
            self.ldx_at(R2, R9, lastbase, Size::DW);
        }
        // Bounds the verifier can see: 0 <= start < strsize, and the
        // count end - start + 1 in 1..strsize - 1.
        self.clamp(R1, 0, cap - 1);
        self.a.emit(alu64_reg(Alu::Sub, R2, R1));
        self.a.emit(alu64_imm(Alu::Add, R2, 1));
        self.clamp(R2, 1, cap - 1);
        Ok(self.copy_part(src, out, cap))
    }

    /// Moves R4 back from where it is while it is at a character that
    /// is (`slashes`) or is not a '/'; stops at -1. R0 to R5 used; `pos`
    /// is a scratch word. On the kernel's number iterator where there is
    /// one (checked once by the verifier, whatever `strsize`); otherwise
    /// a loop the verifier follows step by step (with `strsize` 4096,
    /// several scans in one clause can pass its branch limit).
    fn scan(&mut self, src: u32, cap: u32, slashes: bool, pos: u32) {
        let cond = if slashes { Cond::Ne } else { Cond::Eq };
        if let Some(k) = self.g.inp.opts.iter_num {
            self.stx_at(R9, pos, R4, Size::DW);
            self.st_imm_at(R9, pos + 8, cap as i32);
            let l = self.iter_open(k, pos + 8);
            let out = self.a.new_label();
            self.ldx_at(R4, R9, pos, Size::DW);
            self.scan_step(src, cap, cond, out);
            self.stx_at(R9, pos, R4, Size::DW);
            self.a.ja_to(l.top);
            self.a.bind(l.done);
            self.a.bind(out);
            self.iter_close(&l);
            self.free(l.temp);
            self.ldx_at(R4, R9, pos, Size::DW);
            return;
        }
        let head = self.a.new_label();
        let out = self.a.new_label();
        self.a.bind(head);
        self.scan_step(src, cap, cond, out);
        self.a.ja_to(head);
        self.a.bind(out);
    }

    /// One step of a scan: leaves for `out` at -1 or when the character
    /// at R4 meets `cond` against '/', else moves R4 back one.
    fn scan_step(&mut self, src: u32, cap: u32, cond: Cond, out: Label) {
        // One unsigned compare: -1 (done) is above any position too.
        self.a.jmp_imm_to(Cond::Gt, R4, (cap - 1) as i32, out);
        self.ptr(R5, R9, src);
        self.a.emit(alu64_reg(Alu::Add, R5, R4));
        self.a.emit(ldx(Size::B, R0, R5, 0));
        self.a.jmp_imm_to(cond, R0, i32::from(b'/'), out);
        self.a.emit(alu64_imm(Alu::Sub, R4, 1));
    }
}
