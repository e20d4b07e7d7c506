//! String searches, generated: `strchr()`, `strrchr()`, `strstr()`,
//! `index()` and `rindex()`, with DTrace's results and its (Perl's)
//! position rules; `strtoll()`, `cleanpath()`, `strtok()`; and
//! `progenyof()`.
//!
//! The loops turn on the kernel's open-coded number iterator
//! (`bpf_iter_num_*` kfuncs, Linux 6.4), which the verifier checks once
//! however many times it turns, so a search costs the same to verify at
//! any `strsize`. Before 6.4 each loop is a bounded loop the verifier
//! walks turn by turn ([`ProgGen::loop_open`]), so every loop here has a
//! bound known when the code is generated, linear in `strsize` (no loop
//! inside another: a substring is compared eight bytes a turn, and
//! cleanpath() backs up a component as turns of its one loop). What a
//! loop carries from one turn to the next lives in scratch, where the
//! verifier tracks no values, and every index is bounded again before it
//! is used, so each turn looks the same to it.

use dtrace_lang::ir::{visit_clause_exprs, visit_stmts, CClause, CExpr, CKind, SearchMode};

use crate::asm::{Label, MapId, Region};
use crate::codegen::{GenError, Temp};
use crate::insn::*;
use crate::layout;
use crate::plan::{IterNumKfuncs, MapKind, MapRole, MapSpec};
use crate::program::ProgGen;

type R<T> = Result<T, GenError>;

/// Scratch words of a search: the haystack's length, the needle's, the
/// position found, the first position, how many to try, the character
/// (or the position being tried).
const LEN: u32 = 0;
const SUBLEN: u32 = 8;
const FOUND: u32 = 16;
const START: u32 = 24;
const COUNT: u32 = 32;
const CH: u32 = 40;
/// cleanpath()'s state and output index.
const STATE: u32 = 48;
const J: u32 = 56;
const WORDS: u32 = 64;

/// The most turns of [`ProgGen::substring_scan`] for strings of up to
/// `cap - 1` characters: with a needle of `m`, at most `len - m + 1`
/// positions have room for it and each takes `ceil(m / 8) + 1` turns;
/// going back, up to `m` positions without room take one each; and one
/// more ends the search.
pub(crate) fn substring_turns(cap: u32) -> u32 {
    let len = cap.saturating_sub(1);
    (0..=len)
        .map(|m| (len - m + 1) * (m.div_ceil(8) + 1) + m + 1)
        .max()
        .unwrap_or(1)
}

/// The map of [`ProgGen::substring_lookup`], for programs that search
/// for substrings on a kernel without the number iterator: a key per
/// scratch element (its number, then `strsize` bytes rounded up), while
/// a search runs. `None` if no clause searches, or if the key would pass
/// the kernel's 512 bytes (`strsize` above 504: the searches then take
/// the loop of [`ProgGen::substring_scan`], which the verifier may find
/// too long).
pub(crate) fn substring_map(clauses: &[CClause], strsize: u32, cpus: u32) -> Option<MapSpec> {
    let mut any = false;
    for c in clauses {
        visit_clause_exprs(c, &mut |e| {
            any |= matches!(
                e.kind,
                CKind::StrSearch {
                    mode: SearchMode::Strstr | SearchMode::Index | SearchMode::Rindex,
                    ..
                }
            )
        });
    }
    let key = 8 + layout::round8(strsize.max(2));
    (any && key <= 512).then(|| MapSpec {
        name: "dt_substr".into(),
        role: MapRole::Substring,
        kind: MapKind::Hash,
        key_size: key,
        value_size: 8,
        max_entries: 2 * cpus,
        readonly_prog: false,
        no_prealloc: false,
    })
}

/// The deepest `progenyof()` climbs (pid 1 is reached long before).
const PROGENY_DEPTH: i32 = 64;

/// True if the clause has code that loops on the kernel's number
/// iterator (chill(), the string scans, json(), progenyof()): its
/// program needs the `bpf_iter_num_*` kfuncs (`GenOptions::iter_num`).
pub fn uses_iterators(c: &CClause) -> bool {
    let mut any = false;
    visit_stmts(&c.stmts, &mut |s| any |= s.loops());
    visit_clause_exprs(c, &mut |e| any |= e.kind.loops());
    any
}

/// An open-coded iterator's loop, as emitted: where each turn starts and
/// where the loop is left once the iterator is done.
pub(crate) struct IterLoop {
    slot: i16,
    /// The iterator's kfuncs; `None` for a loop the verifier walks.
    iter: Option<IterNumKfuncs>,
    /// A walked loop's exit-first region (see [`crate::asm`]).
    region: Option<Region>,
    pub(crate) temp: Temp,
    pub(crate) top: Label,
    pub(crate) done: Label,
}

impl ProgGen<'_, '_> {
    fn iter_ptr(&mut self, slot: i16) {
        self.a.emit(mov64_reg(R1, FP));
        self.a.emit(alu64_imm(Alu::Add, R1, i32::from(slot)));
    }

    /// Starts an iterator over `0..count` (count in scratch at `count`),
    /// and the loop's head: each turn leaves its number in R0 (a u32 the
    /// verifier knows nothing of); when the numbers run out the code
    /// jumps to `done`, with the iterator still to be ended.
    pub(crate) fn iter_open(&mut self, k: IterNumKfuncs, count: u32) -> IterLoop {
        let temp = self.alloc_stack();
        let Temp::Stack(slot) = temp else {
            unreachable!("alloc_stack gives a stack slot")
        };
        self.iter_ptr(slot);
        self.a.emit(mov64_imm(R2, 0));
        self.ldx_at(R3, R9, count, Size::DW);
        self.a.emit(kfunc_call(k.new));
        let top = self.a.new_label();
        let done = self.a.new_label();
        self.a.bind(top);
        self.iter_ptr(slot);
        self.a.emit(kfunc_call(k.next));
        self.a.jmp_imm_to(Cond::Eq, R0, 0, done);
        self.a.emit(ldx(Size::W, R0, R0, 0));
        IterLoop {
            slot,
            iter: Some(k),
            region: None,
            temp,
            top,
            done,
        }
    }

    /// A loop of at most `cap` turns without the iterator (kernels before
    /// 6.4), for loops short enough for the verifier to walk every turn:
    /// the turn's number on the stack, where the verifier knows it, and
    /// in r0 at the head of each turn, as `iter_open` leaves it. Nothing
    /// to end.
    pub(crate) fn bounded_open(&mut self, cap: i32) -> IterLoop {
        let temp = self.alloc_stack();
        let Temp::Stack(slot) = temp else {
            unreachable!("alloc_stack gives a stack slot")
        };
        let region = self.a.exit_first_begin();
        self.a.emit(st_imm(Size::DW, FP, slot, 0));
        let top = self.a.new_label();
        let done = self.a.new_label();
        self.a.bind(top);
        self.a.emit(ldx(Size::DW, R0, FP, slot));
        self.a.jmp_imm_to(Cond::Ge, R0, cap, done);
        self.a.emit(mov64_reg(R1, R0));
        self.a.emit(alu64_imm(Alu::Add, R1, 1));
        self.a.emit(stx(Size::DW, FP, slot, R1));
        IterLoop {
            slot,
            iter: None,
            region: Some(region),
            temp,
            top,
            done,
        }
    }

    /// A loop of as many turns as the word at `count` in scratch says,
    /// and never more than `cap`: on the kernel's number iterator where
    /// there is one; before 6.4 a bounded loop the verifier walks turn by
    /// turn, `cap` of them whatever the count, so `cap` must be small
    /// enough to walk (a few thousand turns of a short body). Each turn
    /// leaves its number in R0, as [`Self::iter_open`] does.
    pub(crate) fn loop_open(&mut self, count: u32, cap: u32) -> IterLoop {
        if let Some(k) = self.g.inp.opts.iter_num {
            return self.iter_open(k, count);
        }
        let l = self.bounded_open(cap.min(i32::MAX as u32) as i32);
        // The count, read again each turn: a turn past it is the end.
        self.ldx_at(R1, R9, count, Size::DW);
        self.a.jmp_reg_to(Cond::Sge, R0, R1, l.done);
        l
    }

    /// Ends a loop (on every way out of it): its iterator, if it has one.
    pub(crate) fn iter_close(&mut self, l: &IterLoop) {
        if let Some(k) = l.iter {
            self.iter_ptr(l.slot);
            self.a.emit(kfunc_call(k.destroy));
        }
        if let Some(r) = l.region {
            self.a.exit_first_end(r);
        }
    }

    /// `reg` = a byte of the scratch buffer at `buf`, at the index in
    /// `idx` (which must be below `cap`, or `out` is taken).
    pub(crate) fn byte_at(&mut self, reg: Reg, buf: u32, idx: Reg, cap: u32, out: Label) {
        self.a.jmp_imm_to(Cond::Ge, idx, cap as i32, out);
        self.ptr(reg, R9, buf);
        self.a.emit(alu64_reg(Alu::Add, reg, idx));
        self.a.emit(ldx(Size::B, reg, reg, 0));
    }

    /// Copies a string into a scratch buffer and keeps its length (the
    /// characters before its NUL; 0 if it cannot be read) at `len`.
    pub(crate) fn search_operand(&mut self, s: &CExpr, buf: u32, cap: u32, len: u32) -> R<()> {
        let (p, c) = self.eval_str(s)?;
        self.ptr(R1, R9, buf);
        self.a.emit(mov64_imm(R2, c.min(cap).max(1) as i32));
        self.load_temp(p, R3);
        self.free(p);
        self.a.emit(call(Helper::ProbeReadKernelStr));
        self.a.emit(alu64_imm(Alu::Sub, R0, 1));
        let ok = self.a.new_label();
        self.a.jmp_imm_to(Cond::Sge, R0, 0, ok);
        self.a.emit(mov64_imm(R0, 0));
        self.st_imm_byte(buf);
        self.a.bind(ok);
        self.stx_at(R9, len, R0, Size::DW);
        Ok(())
    }

    fn st_imm_byte(&mut self, buf: u32) {
        self.ptr(R1, R9, buf);
        self.a.emit(st_imm(Size::B, R1, 0, 0));
    }

    /// A search's result: an index (R0 = FOUND, -1 if none) for index()
    /// and rindex(), else the rest of the haystack from FOUND (0, NULL,
    /// if none) with the haystack's capacity.
    fn search_result(&mut self, st: u32, hay: u32, cap: u32, string: bool) -> (Temp, u32) {
        self.ldx_at(R0, R9, st + FOUND, Size::DW);
        if !string {
            return (self.int_result(R0), 0);
        }
        let none = self.a.new_label();
        let end = self.a.new_label();
        self.a.jmp_imm_to(Cond::Slt, R0, 0, none);
        self.a.jmp_imm_to(Cond::Ge, R0, cap as i32, none);
        self.ptr(R1, R9, hay);
        self.a.emit(alu64_reg(Alu::Add, R1, R0));
        self.a.ja_to(end);
        self.a.bind(none);
        self.a.emit(mov64_imm(R1, 0));
        self.a.bind(end);
        (self.int_result(R1), cap)
    }

    /// strchr(), strrchr(), strstr(), index(), rindex() (see
    /// [`SearchMode`]).
    pub(crate) fn str_search(
        &mut self,
        hay: &CExpr,
        needle: &CExpr,
        pos: Option<&CExpr>,
        mode: SearchMode,
    ) -> R<(Temp, u32)> {
        let cap = self.g.caps.strsize.max(2);
        let st = self.alloc_buf(WORDS);
        // Eight bytes of room after each string: a substring is compared
        // a word at a time.
        let h = self.alloc_buf(cap + 8);
        let string = !matches!(mode, SearchMode::Index | SearchMode::Rindex);
        self.st_imm_at(R9, st + FOUND, -1);
        if matches!(mode, SearchMode::Strchr | SearchMode::Strrchr) {
            let t = self.eval_int(needle)?;
            self.load_temp(t, R1);
            self.free(t);
            self.a.emit(alu64_imm(Alu::And, R1, 0xff));
            self.stx_at(R9, st + CH, R1, Size::DW);
            self.search_operand(hay, h, cap, st + LEN)?;
            self.chr_scan(st, h, cap, mode == SearchMode::Strchr);
            return Ok(self.search_result(st, h, cap, true));
        }
        let n = self.alloc_buf(cap + 8);
        let tp = match pos {
            Some(p) => Some(self.eval_int(p)?),
            None => None,
        };
        self.search_operand(hay, h, cap, st + LEN)?;
        self.search_operand(needle, n, cap, st + SUBLEN)?;
        let finish = self.a.new_label();
        // Both empty: strstr() gives the (empty) haystack, index() and
        // rindex() 0, whatever the position.
        let not_both = self.a.new_label();
        self.ldx_at(R1, R9, st + LEN, Size::DW);
        self.ldx_at(R2, R9, st + SUBLEN, Size::DW);
        self.a.emit(alu64_reg(Alu::Or, R1, R2));
        self.a.jmp_imm_to(Cond::Ne, R1, 0, not_both);
        self.st_imm_at(R9, st + FOUND, 0);
        self.a.ja_to(finish);
        self.a.bind(not_both);
        // The first position and how many: forward from START for
        // strstr() and index(), backward for rindex().
        self.ldx_at(R1, R9, st + LEN, Size::DW);
        match (mode, tp) {
            (SearchMode::Rindex, None) => self.stx_at(R9, st + START, R1, Size::DW),
            (SearchMode::Rindex, Some(t)) => {
                self.load_temp(t, R2);
                self.free(t);
                let nonneg = self.a.new_label();
                self.a.jmp_imm_to(Cond::Sge, R2, 0, nonneg);
                // Before the start: only "" is found (at 0).
                self.empty_needle_at(st, Some(0));
                self.a.ja_to(finish);
                self.a.bind(nonneg);
                let within = self.a.new_label();
                self.a.jmp_reg_to(Cond::Sle, R2, R1, within);
                self.a.emit(mov64_reg(R2, R1));
                self.a.bind(within);
                self.stx_at(R9, st + START, R2, Size::DW);
            }
            (_, None) => self.st_imm_at(R9, st + START, 0),
            (_, Some(t)) => {
                self.load_temp(t, R2);
                self.free(t);
                let nonneg = self.a.new_label();
                self.a.jmp_imm_to(Cond::Sge, R2, 0, nonneg);
                self.a.emit(mov64_imm(R2, 0));
                self.a.bind(nonneg);
                let inside = self.a.new_label();
                self.a.jmp_reg_to(Cond::Slt, R2, R1, inside);
                // At or past the end: only "" is found (at the end).
                self.empty_needle_at(st, None);
                self.a.ja_to(finish);
                self.a.bind(inside);
                self.stx_at(R9, st + START, R2, Size::DW);
            }
        }
        // COUNT: len - start forward, start + 1 backward.
        self.ldx_at(R2, R9, st + START, Size::DW);
        if mode == SearchMode::Rindex {
            self.a.emit(alu64_imm(Alu::Add, R2, 1));
            self.stx_at(R9, st + COUNT, R2, Size::DW);
        } else {
            self.ldx_at(R1, R9, st + LEN, Size::DW);
            self.a.emit(alu64_reg(Alu::Sub, R1, R2));
            self.stx_at(R9, st + COUNT, R1, Size::DW);
        }
        match self.g.m_substr {
            Some(map) if self.g.inp.opts.iter_num.is_none() => {
                self.substring_lookup(map, st, h, n, cap, mode == SearchMode::Rindex)
            }
            _ => self.substring_scan(st, h, n, cap, mode == SearchMode::Rindex),
        }
        self.a.bind(finish);
        Ok(self.search_result(st, h, cap, string))
    }

    /// FOUND = `at` (or LEN if `None`) if the needle is empty.
    fn empty_needle_at(&mut self, st: u32, at: Option<i32>) {
        let skip = self.a.new_label();
        self.ldx_at(R3, R9, st + SUBLEN, Size::DW);
        self.a.jmp_imm_to(Cond::Ne, R3, 0, skip);
        match at {
            Some(v) => self.st_imm_at(R9, st + FOUND, v),
            None => {
                self.ldx_at(R3, R9, st + LEN, Size::DW);
                self.stx_at(R9, st + FOUND, R3, Size::DW);
            }
        }
        self.a.bind(skip);
    }

    /// strchr()/strrchr(): every position up to and including the NUL,
    /// FOUND the first (or last) that holds the character.
    fn chr_scan(&mut self, st: u32, h: u32, cap: u32, first: bool) {
        self.ldx_at(R1, R9, st + LEN, Size::DW);
        self.a.emit(alu64_imm(Alu::Add, R1, 1));
        self.stx_at(R9, st + COUNT, R1, Size::DW);
        let l = self.loop_open(st + COUNT, cap);
        let out = self.a.new_label();
        // R4: the position.
        self.a.emit(mov64_reg(R4, R0));
        self.byte_at(R1, h, R4, cap, out);
        self.ldx_at(R2, R9, st + CH, Size::DW);
        self.a.jmp_reg_to(Cond::Ne, R1, R2, l.top);
        self.stx_at(R9, st + FOUND, R4, Size::DW);
        if first {
            self.a.ja_to(out);
        } else {
            self.a.ja_to(l.top);
        }
        self.a.bind(l.done);
        self.a.bind(out);
        self.iter_close(&l);
        self.free(l.temp);
    }

    /// strstr()/index()/rindex(): COUNT positions from START (down if
    /// `back`), FOUND the first where the needle is. One loop, a turn per
    /// eight bytes compared (CH the position tried, J the offset in the
    /// needle): a mismatch moves to the next position, so the turns are
    /// bounded by [`substring_turns`] and no loop is inside another.
    fn substring_scan(&mut self, st: u32, h: u32, n: u32, cap: u32, back: bool) {
        let turns = substring_turns(cap);
        self.ldx_at(R1, R9, st + START, Size::DW);
        self.stx_at(R9, st + CH, R1, Size::DW);
        self.st_imm_at(R9, st + J, 0);
        self.st_imm_at(R9, st + COUNT, turns as i32);
        let l = self.loop_open(st + COUNT, turns);
        let out = self.a.new_label();
        let next = self.a.new_label();
        // R1: the position; below the start, nothing is left (rindex()).
        self.ldx_at(R1, R9, st + CH, Size::DW);
        self.a.jmp_imm_to(Cond::Slt, R1, 0, out);
        // No room for the needle here: forward, nor anywhere after.
        self.ldx_at(R2, R9, st + SUBLEN, Size::DW);
        self.a.emit(alu64_reg(Alu::Add, R2, R1));
        self.ldx_at(R3, R9, st + LEN, Size::DW);
        self.a
            .jmp_reg_to(Cond::Sgt, R2, R3, if back { next } else { out });
        // The whole needle compared: found.
        let compare = self.a.new_label();
        self.ldx_at(R2, R9, st + J, Size::DW);
        self.ldx_at(R3, R9, st + SUBLEN, Size::DW);
        self.a.jmp_reg_to(Cond::Slt, R2, R3, compare);
        self.stx_at(R9, st + FOUND, R1, Size::DW);
        self.a.ja_to(out);
        self.a.bind(compare);
        // R4 = eight bytes of the haystack at CH + J, R5 of the needle at
        // J (the buffers have eight bytes to spare past `cap`).
        self.a.emit(alu64_reg(Alu::Add, R1, R2));
        self.a.jmp_imm_to(Cond::Ge, R1, cap as i32, out);
        self.a.jmp_imm_to(Cond::Ge, R2, cap as i32, out);
        self.ptr(R4, R9, h);
        self.a.emit(alu64_reg(Alu::Add, R4, R1));
        self.a.emit(ldx(Size::DW, R4, R4, 0));
        self.ptr(R5, R9, n);
        self.a.emit(alu64_reg(Alu::Add, R5, R2));
        self.a.emit(ldx(Size::DW, R5, R5, 0));
        // Fewer than eight left in the needle: only those (the low bytes).
        let whole = self.a.new_label();
        self.a.emit(alu64_reg(Alu::Sub, R3, R2));
        self.a.jmp_imm_to(Cond::Sge, R3, 8, whole);
        self.a.emit(alu64_imm(Alu::Lsh, R3, 3));
        self.a.emit(mov64_imm(R0, 1));
        self.a.emit(alu64_reg(Alu::Lsh, R0, R3));
        self.a.emit(alu64_imm(Alu::Sub, R0, 1));
        self.a.emit(alu64_reg(Alu::And, R4, R0));
        self.a.emit(alu64_reg(Alu::And, R5, R0));
        self.a.bind(whole);
        self.a.jmp_reg_to(Cond::Ne, R4, R5, next);
        self.a.emit(alu64_imm(Alu::Add, R2, 8));
        self.stx_at(R9, st + J, R2, Size::DW);
        self.a.ja_to(l.top);
        // Not here: the next position, from the needle's start.
        self.a.bind(next);
        self.ldx_at(R1, R9, st + CH, Size::DW);
        self.a
            .emit(alu64_imm(Alu::Add, R1, if back { -1 } else { 1 }));
        self.stx_at(R9, st + CH, R1, Size::DW);
        self.st_imm_at(R9, st + J, 0);
        self.a.ja_to(l.top);
        self.a.bind(l.done);
        self.a.bind(out);
        self.iter_close(&l);
        self.free(l.temp);
    }

    /// strstr()/index()/rindex() without the number iterator: a walked
    /// loop over the positions (no more than `cap + 1` turns), each a
    /// window of the haystack looked up in the `Substring` map, where the
    /// needle was put under this scratch element's number. The hash map
    /// compares the whole key, so a position is found exactly when its
    /// window is the needle; its first character is compared first, so
    /// most positions cost no lookup. The needle's key is taken out again
    /// on every way out.
    fn substring_lookup(&mut self, map: MapId, st: u32, h: u32, n: u32, cap: u32, back: bool) {
        let keycap = layout::round8(cap);
        let key = self.alloc_buf(8 + keycap);
        let finish = self.a.new_label();
        // The empty needle is where the search starts.
        let nonempty = self.a.new_label();
        self.ldx_at(R1, R9, st + SUBLEN, Size::DW);
        self.a.jmp_imm_to(Cond::Ne, R1, 0, nonempty);
        self.ldx_at(R1, R9, st + START, Size::DW);
        self.stx_at(R9, st + FOUND, R1, Size::DW);
        self.a.ja_to(finish);
        self.a.bind(nonempty);
        // The key: this scratch element's number, then the needle and
        // zeros (each window is copied over the needle's bytes alone).
        self.a.emit(call(Helper::GetSmpProcessorId));
        self.a.emit(alu64_imm(Alu::Lsh, R0, 1));
        if self.raw {
            self.a.emit(alu64_imm(Alu::Or, R0, 1));
        }
        self.stx_at(R9, key, R0, Size::DW);
        for off in (8..8 + keycap).step_by(8) {
            self.st_imm_at(R9, key + off, 0);
        }
        self.needle_key(st, n, key, keycap, finish);
        self.a.ld_map_fd(R1, map);
        self.ptr(R2, R9, key);
        self.ptr(R3, R9, key);
        self.a.emit(mov64_imm(R4, 0));
        self.a.emit(call(Helper::MapUpdateElem));
        let stored = self.a.new_label();
        self.a.jmp_imm_to(Cond::Eq, R0, 0, stored);
        let act = self.cur_action;
        self.fault(crate::plan::fault::NOSCRATCH, None, act);
        self.a.bind(stored);
        // The positions, from START.
        self.ldx_at(R1, R9, st + START, Size::DW);
        self.stx_at(R9, st + CH, R1, Size::DW);
        self.st_imm_at(R9, st + COUNT, cap as i32 + 1);
        let l = self.loop_open(st + COUNT, cap + 1);
        let gone = self.a.new_label();
        let next = self.a.new_label();
        self.ldx_at(R1, R9, st + CH, Size::DW);
        self.a.jmp_imm_to(Cond::Slt, R1, 0, gone);
        // No room for the needle here: forward, nor anywhere after.
        self.ldx_at(R2, R9, st + SUBLEN, Size::DW);
        self.a.emit(alu64_reg(Alu::Add, R2, R1));
        self.ldx_at(R3, R9, st + LEN, Size::DW);
        self.a
            .jmp_reg_to(Cond::Sgt, R2, R3, if back { next } else { gone });
        // The first characters first.
        self.byte_at(R3, h, R1, cap, gone);
        self.ptr(R4, R9, n);
        self.a.emit(ldx(Size::B, R4, R4, 0));
        self.a.jmp_reg_to(Cond::Ne, R3, R4, next);
        // The window, over the needle's bytes of the key.
        self.ptr(R1, R9, key + 8);
        self.ldx_at(R2, R9, st + SUBLEN, Size::DW);
        self.a.jmp_imm_to(Cond::Gt, R2, keycap as i32, gone);
        self.ldx_at(R3, R9, st + CH, Size::DW);
        self.a.jmp_imm_to(Cond::Ge, R3, cap as i32, gone);
        self.ptr(R4, R9, h);
        self.a.emit(alu64_reg(Alu::Add, R3, R4));
        self.a.emit(call(Helper::ProbeReadKernel));
        self.a.ld_map_fd(R1, map);
        self.ptr(R2, R9, key);
        self.a.emit(call(Helper::MapLookupElem));
        self.a.jmp_imm_to(Cond::Eq, R0, 0, next);
        self.ldx_at(R1, R9, st + CH, Size::DW);
        self.stx_at(R9, st + FOUND, R1, Size::DW);
        self.a.ja_to(gone);
        self.a.bind(next);
        self.ldx_at(R1, R9, st + CH, Size::DW);
        self.a
            .emit(alu64_imm(Alu::Add, R1, if back { -1 } else { 1 }));
        self.stx_at(R9, st + CH, R1, Size::DW);
        self.a.ja_to(l.top);
        self.a.bind(l.done);
        self.a.bind(gone);
        self.iter_close(&l);
        self.free(l.temp);
        // The needle's key out of the map.
        self.needle_key(st, n, key, keycap, finish);
        self.a.ld_map_fd(R1, map);
        self.ptr(R2, R9, key);
        self.a.emit(call(Helper::MapDeleteElem));
        self.a.bind(finish);
    }

    /// The needle (SUBLEN bytes at `n`) over the key's bytes after its
    /// first word.
    fn needle_key(&mut self, st: u32, n: u32, key: u32, keycap: u32, out: Label) {
        self.ptr(R1, R9, key + 8);
        self.ldx_at(R2, R9, st + SUBLEN, Size::DW);
        self.a.jmp_imm_to(Cond::Gt, R2, keycap as i32, out);
        self.ptr(R3, R9, n);
        self.a.emit(call(Helper::ProbeReadKernel));
    }

    /// progenyof(pid): climbs from the current task by `real_parent`
    /// until a task of process `pid` (1) or the top (0).
    pub(crate) fn progenyof(&mut self, pid: &CExpr) -> R<Temp> {
        let o = self.g.inp.opts.task;
        let (Some(parent), Some(tgid)) = (o.real_parent, o.tgid) else {
            return Err(GenError(
                "progenyof( ) needs the kernel's BTF (task_struct's real_parent and tgid)".into(),
            ));
        };
        let st = self.alloc_buf(WORDS);
        let t = self.eval_int(pid)?;
        self.load_temp(t, R1);
        self.free(t);
        self.stx_at(R9, st + CH, R1, Size::DW);
        self.st_imm_at(R9, st + FOUND, 0);
        self.a.emit(call(Helper::GetCurrentTask));
        self.stx_at(R9, st + START, R0, Size::DW);
        self.st_imm_at(R9, st + COUNT, PROGENY_DEPTH);
        let l = self.loop_open(st + COUNT, PROGENY_DEPTH as u32);
        let out = self.a.new_label();
        // This task's process id.
        self.ldx_at(R3, R9, st + START, Size::DW);
        self.a.emit(alu64_imm(Alu::Add, R3, tgid as i32));
        self.ptr(R1, R9, st + LEN);
        self.a.emit(mov64_imm(R2, 4));
        self.a.emit(call(Helper::ProbeReadKernel));
        self.a.jmp_imm_to(Cond::Ne, R0, 0, out);
        self.ldx_at(R1, R9, st + LEN, Size::W);
        self.ldx_at(R2, R9, st + CH, Size::W);
        let other = self.a.new_label();
        self.a.jmp_reg_to(Cond::Ne, R1, R2, other);
        self.st_imm_at(R9, st + FOUND, 1);
        self.a.ja_to(out);
        self.a.bind(other);
        // Its parent; the top is its own parent.
        self.ldx_at(R3, R9, st + START, Size::DW);
        self.a.emit(alu64_imm(Alu::Add, R3, parent as i32));
        self.ptr(R1, R9, st + SUBLEN);
        self.a.emit(mov64_imm(R2, 8));
        self.a.emit(call(Helper::ProbeReadKernel));
        self.a.jmp_imm_to(Cond::Ne, R0, 0, out);
        self.ldx_at(R1, R9, st + SUBLEN, Size::DW);
        self.ldx_at(R2, R9, st + START, Size::DW);
        self.a.jmp_reg_to(Cond::Eq, R1, R2, out);
        self.a.jmp_imm_to(Cond::Eq, R1, 0, out);
        self.stx_at(R9, st + START, R1, Size::DW);
        self.a.ja_to(l.top);
        self.a.bind(l.done);
        self.a.bind(out);
        self.iter_close(&l);
        self.free(l.temp);
        self.ldx_at(R0, R9, st + FOUND, Size::DW);
        Ok(self.int_result(R0))
    }

    /// strtoll(s [, base]): as DTrace reads a number: blanks (spaces and
    /// tabs) skipped, a sign, with base 16 a `0x` before a hex digit,
    /// then the digits of the base (0-9, then a-z or A-Z) up to the
    /// first that is not one. A base outside 2..36 is an illegal
    /// operation.
    pub(crate) fn strtoll(&mut self, s: &CExpr, base: Option<&CExpr>) -> R<Temp> {
        let cap = self.g.caps.strsize.max(2);
        let st = self.alloc_buf(WORDS);
        let h = self.alloc_buf(cap);
        let (val, neg, b) = (st + START, st + SUBLEN, st + CH);
        match base {
            Some(e) => {
                let t = self.eval_int(e)?;
                self.load_temp(t, R1);
                self.free(t);
                let ok = self.a.new_label();
                let bad = self.a.new_label();
                self.a.jmp_imm_to(Cond::Sle, R1, 1, bad);
                self.a.jmp_imm_to(Cond::Sle, R1, MAX_BASE, ok);
                self.a.bind(bad);
                let act = self.cur_action;
                self.fault(crate::plan::fault::ILLOP, None, act);
                self.a.bind(ok);
                self.stx_at(R9, b, R1, Size::DW);
            }
            None => self.st_imm_at(R9, b, 10),
        }
        self.st_imm_at(R9, val, 0);
        self.st_imm_at(R9, neg, 0);
        self.search_operand(s, h, cap, st + LEN)?;
        // The first character that is not a blank.
        self.ldx_at(R1, R9, st + LEN, Size::DW);
        self.stx_at(R9, st + FOUND, R1, Size::DW);
        self.stx_at(R9, st + COUNT, R1, Size::DW);
        let l = self.loop_open(st + COUNT, cap);
        let out = self.a.new_label();
        self.a.emit(mov64_reg(R4, R0));
        self.byte_at(R1, h, R4, cap, out);
        self.a.jmp_imm_to(Cond::Eq, R1, i32::from(b' '), l.top);
        self.a.jmp_imm_to(Cond::Eq, R1, i32::from(b'\t'), l.top);
        self.stx_at(R9, st + FOUND, R4, Size::DW);
        self.a.bind(l.done);
        self.a.bind(out);
        self.iter_close(&l);
        self.free(l.temp);
        // A sign.
        let done = self.a.new_label();
        self.ldx_at(R4, R9, st + FOUND, Size::DW);
        self.byte_at(R1, h, R4, cap, done);
        let unsigned = self.a.new_label();
        let minus = self.a.new_label();
        let skip = self.a.new_label();
        self.a.jmp_imm_to(Cond::Eq, R1, i32::from(b'-'), minus);
        self.a.jmp_imm_to(Cond::Ne, R1, i32::from(b'+'), unsigned);
        self.a.ja_to(skip);
        self.a.bind(minus);
        self.st_imm_at(R9, neg, 1);
        self.a.bind(skip);
        self.a.emit(alu64_imm(Alu::Add, R4, 1));
        self.stx_at(R9, st + FOUND, R4, Size::DW);
        self.a.bind(unsigned);
        // Base 16: a "0x" or "0X" before a hex digit.
        let digits = self.a.new_label();
        self.ldx_at(R1, R9, b, Size::DW);
        self.a.jmp_imm_to(Cond::Ne, R1, 16, digits);
        self.ldx_at(R4, R9, st + FOUND, Size::DW);
        self.byte_at(R1, h, R4, cap, digits);
        self.a.jmp_imm_to(Cond::Ne, R1, i32::from(b'0'), digits);
        self.a.emit(alu64_imm(Alu::Add, R4, 1));
        self.byte_at(R1, h, R4, cap, digits);
        self.a.emit(alu64_imm(Alu::Or, R1, 0x20));
        self.a.jmp_imm_to(Cond::Ne, R1, i32::from(b'x'), digits);
        self.a.emit(alu64_imm(Alu::Add, R4, 1));
        self.byte_at(R1, h, R4, cap, digits);
        self.digit_value(R1, digits);
        self.a.jmp_imm_to(Cond::Ge, R1, 16, digits);
        self.stx_at(R9, st + FOUND, R4, Size::DW);
        // The digits, from FOUND to the end at most.
        self.a.bind(digits);
        self.ldx_at(R1, R9, st + LEN, Size::DW);
        self.ldx_at(R2, R9, st + FOUND, Size::DW);
        self.a.jmp_reg_to(Cond::Sge, R2, R1, done);
        self.a.emit(alu64_reg(Alu::Sub, R1, R2));
        self.stx_at(R9, st + COUNT, R1, Size::DW);
        let l = self.loop_open(st + COUNT, cap);
        let stop = self.a.new_label();
        self.ldx_at(R4, R9, st + FOUND, Size::DW);
        self.a.emit(alu64_reg(Alu::Add, R4, R0));
        self.byte_at(R1, h, R4, cap, stop);
        self.digit_value(R1, stop);
        self.ldx_at(R2, R9, b, Size::DW);
        self.a.jmp_reg_to(Cond::Ge, R1, R2, stop);
        self.ldx_at(R3, R9, val, Size::DW);
        self.a.emit(alu64_reg(Alu::Mul, R3, R2));
        self.a.emit(alu64_reg(Alu::Add, R3, R1));
        self.stx_at(R9, val, R3, Size::DW);
        self.a.ja_to(l.top);
        self.a.bind(l.done);
        self.a.bind(stop);
        self.iter_close(&l);
        self.free(l.temp);
        self.a.bind(done);
        self.ldx_at(R0, R9, val, Size::DW);
        self.ldx_at(R1, R9, neg, Size::DW);
        let positive = self.a.new_label();
        self.a.jmp_imm_to(Cond::Eq, R1, 0, positive);
        self.a.emit(neg64(R0));
        self.a.bind(positive);
        Ok(self.int_result(R0))
    }

    /// `reg` (a character) becomes its digit value: 0-9, then a-z or
    /// A-Z as 10-35; anything else leaves for `other`.
    fn digit_value(&mut self, reg: Reg, other: Label) {
        let letter = self.a.new_label();
        let done = self.a.new_label();
        self.a.jmp_imm_to(Cond::Lt, reg, i32::from(b'0'), other);
        self.a.jmp_imm_to(Cond::Gt, reg, i32::from(b'9'), letter);
        self.a.emit(alu64_imm(Alu::Sub, reg, i32::from(b'0')));
        self.a.ja_to(done);
        self.a.bind(letter);
        // Upper case to lower case: 'A'..'Z' | 0x20 is 'a'..'z'.
        let lower = self.a.new_label();
        self.a.jmp_imm_to(Cond::Lt, reg, i32::from(b'A'), other);
        self.a.jmp_imm_to(Cond::Gt, reg, i32::from(b'Z'), lower);
        self.a.emit(alu64_imm(Alu::Or, reg, 0x20));
        self.a.bind(lower);
        self.a.jmp_imm_to(Cond::Lt, reg, i32::from(b'a'), other);
        self.a.jmp_imm_to(Cond::Gt, reg, i32::from(b'z'), other);
        self.a.emit(alu64_imm(Alu::Sub, reg, i32::from(b'a') - 10));
        self.a.bind(done);
    }

    /// `out[J] = byte` (R2) if there is room below `cap - 1`, then J+1.
    fn emit_byte(&mut self, st: u32, out: u32, cap: u32) {
        let full = self.a.new_label();
        self.ldx_at(R1, R9, st + J, Size::DW);
        self.a.jmp_imm_to(Cond::Ge, R1, (cap - 1) as i32, full);
        self.ptr(R3, R9, out);
        self.a.emit(alu64_reg(Alu::Add, R3, R1));
        self.a.emit(stx(Size::B, R3, 0, R2));
        self.a.emit(alu64_imm(Alu::Add, R1, 1));
        self.stx_at(R9, st + J, R1, Size::DW);
        self.a.bind(full);
    }

    fn emit_char(&mut self, st: u32, out: u32, cap: u32) {
        self.ldx_at(R2, R9, st + CH, Size::DW);
        self.emit_byte(st, out, cap);
    }

    /// Appends `bytes` to cleanpath()'s output (None: this turn's
    /// character), with one bound check: a turn starts only with room for
    /// four more and the NUL, so the check is the verifier's, never taken.
    /// A slash written is pushed on the stack of the output's slashes
    /// (at `slashes`, its height in FOUND).
    fn emit_seq(&mut self, st: u32, out: u32, slashes: u32, cap: u32, bytes: &[Option<u8>]) {
        let n = bytes.len() as i32;
        let full = self.a.new_label();
        self.ldx_at(R1, R9, st + J, Size::DW);
        self.a.jmp_imm_to(Cond::Gt, R1, cap as i32 - 1 - n, full);
        self.ptr(R3, R9, out);
        self.a.emit(alu64_reg(Alu::Add, R3, R1));
        for (i, b) in bytes.iter().enumerate() {
            match b {
                Some(c) => self.a.emit(st_imm(Size::B, R3, i as i16, i32::from(*c))),
                None => {
                    self.ldx_at(R2, R9, st + CH, Size::DW);
                    self.a.emit(stx(Size::B, R3, i as i16, R2));
                }
            }
        }
        if bytes.first() == Some(&Some(b'/')) {
            let skip = self.a.new_label();
            self.ldx_at(R4, R9, st + FOUND, Size::DW);
            self.a.jmp_imm_to(Cond::Ge, R4, cap as i32, skip);
            self.ptr(R5, R9, slashes);
            self.a.emit(alu64_reg(Alu::Add, R5, R4));
            self.a.emit(alu64_reg(Alu::Add, R5, R4));
            self.a.emit(stx(Size::H, R5, 0, R1));
            self.a.emit(alu64_imm(Alu::Add, R4, 1));
            self.stx_at(R9, st + FOUND, R4, Size::DW);
            self.a.bind(skip);
        }
        self.a.emit(alu64_imm(Alu::Add, R1, n));
        self.stx_at(R9, st + J, R1, Size::DW);
        self.a.bind(full);
    }

    /// cleanpath(s): the path with `//`, `/./` and `/../` (and a final
    /// `/.` or `/..`) resolved as DTrace resolves them, character by
    /// character: a state (0 plain, 1 after `/`, 2 after `/.`, 3 after
    /// `/..`) and the output index J, kept in scratch; `..` backs J up
    /// to the previous `/` of the output (`while (j != 0 && out[--j] !=
    /// '/')`), which is the top of a stack of the output's slashes, kept
    /// as they are written: every slash on it is before J, so backing up
    /// is one pop, and the loop's turns are the input's characters.
    pub(crate) fn cleanpath(&mut self, s: &CExpr) -> R<(Temp, u32)> {
        let cap = self.g.caps.strsize.max(8);
        let st = self.alloc_buf(WORDS);
        let h = self.alloc_buf(cap);
        let out = self.alloc_buf(cap);
        let slashes = self.alloc_buf(2 * cap);
        self.search_operand(s, h, cap, st + LEN)?;
        self.st_imm_at(R9, st + STATE, 0);
        self.st_imm_at(R9, st + J, 0);
        self.st_imm_at(R9, st + FOUND, 0);
        self.ldx_at(R1, R9, st + LEN, Size::DW);
        self.a.emit(alu64_imm(Alu::Add, R1, 1));
        self.stx_at(R9, st + COUNT, R1, Size::DW);
        let l = self.loop_open(st + COUNT, cap);
        let end = self.a.new_label();
        self.a.emit(mov64_reg(R4, R0));
        self.byte_at(R1, h, R4, cap, end);
        self.stx_at(R9, st + CH, R1, Size::DW);
        // No room for another "/..c" and its NUL: stop, as DTrace does.
        self.ldx_at(R1, R9, st + J, Size::DW);
        self.a.emit(alu64_imm(Alu::Add, R1, 5));
        self.a.jmp_imm_to(Cond::Ge, R1, cap as i32, end);
        let [s1, s2, s3] = [(); 3].map(|_| self.a.new_label());
        self.ldx_at(R1, R9, st + STATE, Size::DW);
        self.a.jmp_imm_to(Cond::Eq, R1, 1, s1);
        self.a.jmp_imm_to(Cond::Eq, R1, 2, s2);
        self.a.jmp_imm_to(Cond::Eq, R1, 3, s3);
        let slash = b'/' as i32;
        let dot = b'.' as i32;
        let set_state = |g: &mut Self, v: i32| g.st_imm_at(R9, st + STATE, v);
        let char_is = |g: &mut Self, c: i32, to: Label| {
            g.ldx_at(R1, R9, st + CH, Size::DW);
            g.a.jmp_imm_to(Cond::Eq, R1, c, to);
        };
        let (sl, dt) = (Some(b'/'), Some(b'.'));
        // Plain: a slash starts a component; anything else is kept.
        let to_s1 = self.a.new_label();
        char_is(self, slash, to_s1);
        self.emit_seq(st, out, slashes, cap, &[None]);
        char_is(self, 0, end);
        self.a.ja_to(l.top);
        self.a.bind(to_s1);
        set_state(self, 1);
        self.a.ja_to(l.top);
        // After "/": another slash is dropped; a dot may begin "." or
        // "..".
        self.a.bind(s1);
        char_is(self, slash, l.top);
        let to_s2 = self.a.new_label();
        char_is(self, dot, to_s2);
        self.emit_seq(st, out, slashes, cap, &[sl, None]);
        set_state(self, 0);
        char_is(self, 0, end);
        self.a.ja_to(l.top);
        self.a.bind(to_s2);
        set_state(self, 2);
        self.a.ja_to(l.top);
        // After "/.": "/./" is dropped.
        self.a.bind(s2);
        char_is(self, slash, to_s1);
        let to_s3 = self.a.new_label();
        char_is(self, dot, to_s3);
        self.emit_seq(st, out, slashes, cap, &[sl, dt, None]);
        set_state(self, 0);
        char_is(self, 0, end);
        self.a.ja_to(l.top);
        self.a.bind(to_s3);
        set_state(self, 3);
        self.a.ja_to(l.top);
        // After "/..": "/../" or a final "/.." goes back a component;
        // "/..x" is kept.
        self.a.bind(s3);
        let back = self.a.new_label();
        char_is(self, slash, back);
        char_is(self, 0, back);
        self.emit_seq(st, out, slashes, cap, &[sl, dt, dt, None]);
        set_state(self, 0);
        self.a.ja_to(l.top);
        self.a.bind(back);
        // J = the last slash written (popped), or 0.
        let none = self.a.new_label();
        let backed = self.a.new_label();
        self.ldx_at(R4, R9, st + FOUND, Size::DW);
        self.a.jmp_imm_to(Cond::Eq, R4, 0, none);
        self.a.emit(alu64_imm(Alu::Sub, R4, 1));
        self.a.jmp_imm_to(Cond::Ge, R4, cap as i32, none);
        self.stx_at(R9, st + FOUND, R4, Size::DW);
        self.ptr(R5, R9, slashes);
        self.a.emit(alu64_reg(Alu::Add, R5, R4));
        self.a.emit(alu64_reg(Alu::Add, R5, R4));
        self.a.emit(ldx(Size::H, R1, R5, 0));
        self.stx_at(R9, st + J, R1, Size::DW);
        self.a.ja_to(backed);
        self.a.bind(none);
        self.st_imm_at(R9, st + J, 0);
        self.a.bind(backed);
        // The slash is read again (a new component); at the end, J moves
        // past the slash backed up to, which the NUL then replaces.
        set_state(self, 1);
        let at_end = self.a.new_label();
        char_is(self, 0, at_end);
        self.a.ja_to(l.top);
        self.a.bind(at_end);
        self.ldx_at(R1, R9, st + J, Size::DW);
        self.a.emit(alu64_imm(Alu::Add, R1, 1));
        self.stx_at(R9, st + J, R1, Size::DW);
        self.a.bind(l.done);
        self.a.bind(end);
        self.iter_close(&l);
        self.free(l.temp);
        // The NUL.
        self.ldx_at(R1, R9, st + J, Size::DW);
        let ok = self.a.new_label();
        self.a.jmp_imm_to(Cond::Lt, R1, cap as i32, ok);
        self.a.emit(mov64_imm(R1, (cap - 1) as i32));
        self.a.bind(ok);
        self.ptr(R3, R9, out);
        self.a.emit(alu64_reg(Alu::Add, R3, R1));
        self.a.emit(st_imm(Size::B, R3, 0, 0));
        self.ptr(R1, R9, out);
        Ok((self.int_result(R1), cap))
    }

    /// strtok(s, delims): the next token of `s` (of the string kept from
    /// the last call in this probe firing when `s` is NULL, `again`), or
    /// NULL when only delimiters are left. The string and the position
    /// are kept in the `strtok` region of scratch (`tok_at`: the position,
    /// -1 once done, then the string).
    pub(crate) fn strtok(&mut self, s: &CExpr, delims: &CExpr, again: bool) -> R<(Temp, u32)> {
        let tok_at = self.g.strtok_at.ok_or_else(|| {
            GenError("internal error: strtok( ) without its scratch region".into())
        })?;
        let cap = self.g.caps.strsize.max(2);
        let (pos, saved) = (tok_at, tok_at + 8);
        let st = self.alloc_buf(WORDS);
        let map = self.alloc_buf(32);
        let d = self.alloc_buf(cap);
        let out = self.alloc_buf(cap);
        let null = self.a.new_label();
        let finish = self.a.new_label();
        if !again {
            // A new string: kept, from its start. A string that is NULL
            // when it runs (a search that found nothing) asks for the
            // next token of the kept one, as a NULL written so does.
            let (p, c) = self.eval_str(s)?;
            let kept = self.a.new_label();
            self.load_temp(p, R3);
            self.free(p);
            self.a.jmp_imm_to(Cond::Eq, R3, 0, kept);
            self.ptr(R1, R9, saved);
            self.a.emit(mov64_imm(R2, c.min(cap).max(1) as i32));
            self.a.emit(call(Helper::ProbeReadKernelStr));
            let read = self.a.new_label();
            self.a.jmp_imm_to(Cond::Sgt, R0, 0, read);
            self.st_imm_byte(saved);
            self.a.bind(read);
            self.st_imm_at(R9, pos, 0);
            self.a.bind(kept);
        }
        // With no string kept (none given in this firing, or its tokens
        // all taken), DTrace reads the NULL it keeps then: an invalid
        // address.
        self.ldx_at(R1, R9, pos, Size::DW);
        let going = self.a.new_label();
        self.a.jmp_imm_to(Cond::Sge, R1, 0, going);
        self.a.emit(mov64_imm(R1, 0));
        let act = self.cur_action;
        self.fault(crate::plan::fault::BADADDR, Some(R1), act);
        self.a.bind(going);
        // The delimiters as a 256-bit map.
        for w in 0..4 {
            self.st_imm_at(R9, map + 8 * w, 0);
        }
        self.search_operand(delims, d, cap, st + SUBLEN)?;
        self.ldx_at(R1, R9, st + SUBLEN, Size::DW);
        self.stx_at(R9, st + COUNT, R1, Size::DW);
        let l = self.loop_open(st + COUNT, cap);
        let mapped = self.a.new_label();
        self.a.emit(mov64_reg(R4, R0));
        self.byte_at(R1, d, R4, cap, mapped);
        self.set_map_bit(map);
        self.a.ja_to(l.top);
        self.a.bind(l.done);
        self.a.bind(mapped);
        self.iter_close(&l);
        self.free(l.temp);
        // Past the delimiters: the token starts at FOUND, or there is
        // none.
        self.st_imm_at(R9, st + COUNT, cap as i32);
        self.ldx_at(R1, R9, pos, Size::DW);
        self.stx_at(R9, st + FOUND, R1, Size::DW);
        let l = self.loop_open(st + COUNT, cap);
        let started = self.a.new_label();
        self.ldx_at(R4, R9, st + FOUND, Size::DW);
        self.byte_at(R1, saved, R4, cap, started);
        self.a.jmp_imm_to(Cond::Eq, R1, 0, started);
        self.map_bit(map);
        self.a.jmp_imm_to(Cond::Eq, R1, 0, started);
        self.ldx_at(R4, R9, st + FOUND, Size::DW);
        self.a.emit(alu64_imm(Alu::Add, R4, 1));
        self.stx_at(R9, st + FOUND, R4, Size::DW);
        self.a.ja_to(l.top);
        self.a.bind(l.done);
        self.a.bind(started);
        self.iter_close(&l);
        self.free(l.temp);
        self.ldx_at(R4, R9, st + FOUND, Size::DW);
        self.byte_at(R1, saved, R4, cap, null);
        self.a.jmp_imm_to(Cond::Eq, R1, 0, null);
        // The token: up to the next delimiter or the end.
        self.st_imm_at(R9, st + J, 0);
        let l = self.loop_open(st + COUNT, cap);
        let ended = self.a.new_label();
        self.ldx_at(R4, R9, st + FOUND, Size::DW);
        self.byte_at(R1, saved, R4, cap, ended);
        self.a.jmp_imm_to(Cond::Eq, R1, 0, ended);
        self.stx_at(R9, st + CH, R1, Size::DW);
        self.map_bit(map);
        self.a.jmp_imm_to(Cond::Ne, R1, 0, ended);
        self.emit_char(st, out, cap);
        self.ldx_at(R4, R9, st + FOUND, Size::DW);
        self.a.emit(alu64_imm(Alu::Add, R4, 1));
        self.stx_at(R9, st + FOUND, R4, Size::DW);
        self.a.ja_to(l.top);
        self.a.bind(l.done);
        self.a.bind(ended);
        self.iter_close(&l);
        self.free(l.temp);
        self.ldx_at(R1, R9, st + FOUND, Size::DW);
        self.stx_at(R9, pos, R1, Size::DW);
        self.a.emit(mov64_imm(R2, 0));
        self.emit_byte(st, out, cap + 1);
        self.ptr(R1, R9, out);
        self.a.ja_to(finish);
        self.a.bind(null);
        self.st_imm_at(R9, pos, -1);
        self.a.emit(mov64_imm(R1, 0));
        self.a.bind(finish);
        Ok((self.int_result(R1), cap))
    }

    /// Sets the bit of character R1 in the 32-byte map at `map`.
    fn set_map_bit(&mut self, map: u32) {
        self.a.emit(mov64_reg(R2, R1));
        self.a.emit(alu64_imm(Alu::Rsh, R2, 3));
        self.a.emit(alu64_imm(Alu::And, R2, 31));
        self.ptr(R3, R9, map);
        self.a.emit(alu64_reg(Alu::Add, R3, R2));
        self.a.emit(alu64_imm(Alu::And, R1, 7));
        self.a.emit(mov64_imm(R2, 1));
        self.a.emit(alu64_reg(Alu::Lsh, R2, R1));
        self.a.emit(ldx(Size::B, R1, R3, 0));
        self.a.emit(alu64_reg(Alu::Or, R1, R2));
        self.a.emit(stx(Size::B, R3, 0, R1));
    }

    /// R1 = the bit of character R1 in the map at `map` (0 or not).
    fn map_bit(&mut self, map: u32) {
        self.a.emit(mov64_reg(R2, R1));
        self.a.emit(alu64_imm(Alu::Rsh, R2, 3));
        self.a.emit(alu64_imm(Alu::And, R2, 31));
        self.ptr(R3, R9, map);
        self.a.emit(alu64_reg(Alu::Add, R3, R2));
        self.a.emit(ldx(Size::B, R3, R3, 0));
        self.a.emit(alu64_imm(Alu::And, R1, 7));
        self.a.emit(alu64_reg(Alu::Rsh, R3, R1));
        self.a.emit(alu64_imm(Alu::And, R3, 1));
        self.a.emit(mov64_reg(R1, R3));
    }
}

/// The largest base strtoll() takes: ten digits and 26 letters.
const MAX_BASE: i32 = 36;
