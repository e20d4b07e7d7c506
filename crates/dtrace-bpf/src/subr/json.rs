//! `json(document, selector)`, as illumos DTrace reads JSON: the
//! selector (`a.b[2].c`) is split into a list of keys and indices, then
//! one pass over the document, a character a turn, follows them with a
//! state machine, copying each string, number or identifier it meets
//! (and, when the selector ends on one, a whole nested object) into the
//! result buffer. The value found is returned as text; anything else
//! (no such key, malformed input) is NULL.
//!
//! Every variable of the machine is a word in scratch, and every index
//! into a buffer is bounded before use. There are two loops, one after
//! the other (see `search.rs`: before 6.4 the verifier walks them): the
//! selector's characters, and the document's. Nothing loops inside the
//! document's: splitting the selector also notes where each element
//! starts and the number its leading digits make (an array index), and
//! a key is compared with the selector's element as its characters are
//! copied.

use dtrace_lang::ir::CExpr;

use crate::asm::Label;
use crate::codegen::{load_imm, GenError, Temp};
use crate::insn::*;
use crate::program::ProgGen;

type R<T> = Result<T, GenError>;

/// The machine's states (DTrace's `DTRACE_JSON_*`).
mod st {
    pub const REST: i32 = 0;
    pub const OBJECT: i32 = 1;
    pub const STRING: i32 = 2;
    pub const ESCAPE: i32 = 3;
    pub const ESCAPE_UNICODE: i32 = 4;
    pub const COLON: i32 = 5;
    pub const COMMA: i32 = 6;
    pub const IDENTIFIER: i32 = 7;
    pub const NUMBER: i32 = 8;
    pub const NUMBER_FRAC: i32 = 9;
    pub const NUMBER_EXP: i32 = 10;
    pub const VALUE: i32 = 11;
    pub const COLLECT: i32 = 12;
}

/// Scratch words of the machine.
#[derive(Clone, Copy)]
pub(crate) struct Words(u32);

/// A json() whose document loop is a `bpf_loop` callback, to be emitted
/// at the program's end.
pub(crate) struct JsonCallback {
    sub: Label,
    w: Words,
    b: Bufs,
}

impl Words {
    fn state(self) -> u32 {
        self.0
    }
    fn array_elem(self) -> u32 {
        self.0 + 8
    }
    fn array_pos(self) -> u32 {
        self.0 + 16
    }
    fn unicount(self) -> u32 {
        self.0 + 24
    }
    fn is_key(self) -> u32 {
        self.0 + 32
    }
    fn collect(self) -> u32 {
        self.0 + 40
    }
    fn found(self) -> u32 {
        self.0 + 48
    }
    fn in_array(self) -> u32 {
        self.0 + 56
    }
    fn braces(self) -> u32 {
        self.0 + 64
    }
    fn brackets(self) -> u32 {
        self.0 + 72
    }
    /// The current selector element: its offset in the list.
    fn elem(self) -> u32 {
        self.0 + 80
    }
    fn nelems(self) -> u32 {
        self.0 + 88
    }
    /// The result buffer's write index.
    fn dd(self) -> u32 {
        self.0 + 96
    }
    /// 1 once the value is found, -1 once the answer is NULL.
    fn result(self) -> u32 {
        self.0 + 104
    }
    fn len(self) -> u32 {
        self.0 + 112
    }
    fn count(self) -> u32 {
        self.0 + 120
    }
    /// The character of this turn.
    fn cc(self) -> u32 {
        self.0 + 128
    }
    /// The selector's write index while it is split.
    fn tmp(self) -> u32 {
        self.0 + 136
    }
    /// The selector's length.
    fn tmp2(self) -> u32 {
        self.0 + 144
    }
    /// The current selector element's number.
    fn elem_idx(self) -> u32 {
        self.0 + 152
    }
    /// 1 once the key being read differs from the current element.
    fn kdiff(self) -> u32 {
        self.0 + 160
    }
    /// 1 while the element being split has had only digits.
    fn digits(self) -> u32 {
        self.0 + 168
    }
    const SIZE: u32 = 176;
}

/// The buffers: the document, the selector, the element list, the
/// result; and per element (a word each, `cap` of them) where it starts
/// in the list and the number of its leading digits.
#[derive(Clone, Copy)]
pub(crate) struct Bufs {
    doc: u32,
    sel: u32,
    list: u32,
    dest: u32,
    starts: u32,
    numbers: u32,
    cap: u32,
}

impl ProgGen<'_, '_> {
    pub(crate) fn json(&mut self, doc: &CExpr, selector: &CExpr) -> R<(Temp, u32)> {
        let cap = self.g.caps.strsize.max(4);
        let w = Words(self.alloc_buf(Words::SIZE));
        let b = Bufs {
            doc: self.alloc_buf(cap),
            sel: self.alloc_buf(cap),
            list: self.alloc_buf(cap + 8),
            dest: self.alloc_buf(cap),
            starts: self.alloc_buf(8 * cap),
            numbers: self.alloc_buf(8 * cap),
            cap,
        };
        for off in (0..Words::SIZE).step_by(8) {
            self.st_imm_at(R9, w.0 + off, 0);
        }
        self.search_operand(doc, b.doc, cap, w.len())?;
        self.search_operand(selector, b.sel, cap, w.tmp2())?;
        self.split_selector(w, &b);
        self.st_imm_at(R9, w.array_elem(), i32::MIN);
        // The document, NUL included (the NUL ends it: NULL).
        self.ldx_at(R1, R9, w.len(), Size::DW);
        self.a.emit(alu64_imm(Alu::Add, R1, 1));
        self.stx_at(R9, w.count(), R1, Size::DW);
        if self.g.inp.opts.iter_num.is_none() && self.g.inp.opts.kernel.bpf_loop {
            // bpf_loop's callback, checked once, where the verifier would
            // otherwise walk every turn of the machine (5.17 to 6.3).
            self.json_bpf_loop(w, b)?;
            return Ok(self.json_result(w, cap, b.dest));
        }
        let l = self.loop_open(w.count(), cap);
        let null = self.a.new_label();
        let found = self.a.new_label();
        self.a.emit(mov64_reg(R4, R0));
        self.byte_at(R1, b.doc, R4, cap, null);
        self.a.jmp_imm_to(Cond::Eq, R1, 0, null);
        self.stx_at(R9, w.cc(), R1, Size::DW);
        let next = l.top;
        let ctx = Machine {
            w,
            next,
            null,
            found,
        };
        self.machine(&ctx, &b);
        self.a.bind(l.done);
        self.a.bind(null);
        self.st_imm_at(R9, w.result(), -1);
        self.a.bind(found);
        self.iter_close(&l);
        self.free(l.temp);
        Ok(self.json_result(w, cap, b.dest))
    }

    /// The result buffer if the machine found the value, else NULL.
    fn json_result(&mut self, w: Words, cap: u32, dest: u32) -> (Temp, u32) {
        let none = self.a.new_label();
        let end = self.a.new_label();
        self.ldx_at(R1, R9, w.result(), Size::DW);
        self.a.jmp_imm_to(Cond::Ne, R1, 1, none);
        self.ptr(R1, R9, dest);
        self.a.ja_to(end);
        self.a.bind(none);
        self.a.emit(mov64_imm(R1, 0));
        self.a.bind(end);
        (self.int_result(R1), cap)
    }

    /// The document's loop as `bpf_loop` turning a callback (emitted at
    /// the program's end by [`Self::json_callbacks`]) over its characters;
    /// the callback finds the scratch element through the pointer to it
    /// kept on this frame's stack.
    fn json_bpf_loop(&mut self, w: Words, b: Bufs) -> R<()> {
        let spill = self.alloc_stack();
        let Temp::Stack(slot) = spill else {
            unreachable!("alloc_stack gives a stack slot")
        };
        self.a.emit(stx(Size::DW, FP, slot, R9));
        let sub = self.a.new_label();
        self.json_subs.push(JsonCallback { sub, w, b });
        self.ldx_at(R1, R9, w.count(), Size::DW);
        self.a.ld_func(R2, sub);
        self.a.emit(mov64_reg(R3, FP));
        self.a.emit(alu64_imm(Alu::Add, R3, i32::from(slot)));
        self.a.emit(mov64_imm(R4, 0));
        self.a.emit(call(Helper::Loop));
        self.free(spill);
        Ok(())
    }

    /// The callbacks of [`Self::json_bpf_loop`]: r1 the character's
    /// index, r2 where the scratch element's address is kept; 0 for the
    /// next character, 1 once the value is found or the answer is NULL.
    pub(crate) fn json_callbacks(&mut self) {
        for JsonCallback { sub, w, b } in std::mem::take(&mut self.json_subs) {
            self.a.bind(sub);
            self.a.emit(ldx(Size::DW, R9, R2, 0));
            self.a.emit(mov64_reg(R4, R1));
            let next = self.a.new_label();
            let null = self.a.new_label();
            let found = self.a.new_label();
            self.byte_at(R1, b.doc, R4, b.cap, null);
            self.a.jmp_imm_to(Cond::Eq, R1, 0, null);
            self.stx_at(R9, w.cc(), R1, Size::DW);
            let ctx = Machine {
                w,
                next,
                null,
                found,
            };
            self.machine(&ctx, &b);
            self.a.bind(next);
            self.a.emit(mov64_imm(R0, 0));
            self.a.emit(exit());
            self.a.bind(null);
            self.st_imm_at(R9, w.result(), -1);
            self.a.bind(found);
            self.a.emit(mov64_imm(R0, 1));
            self.a.emit(exit());
        }
    }

    /// The selector as a list of NUL-separated elements: `.` and `[` end
    /// one, `]` is dropped, as is a `[` that starts the selector. Each
    /// element's start in the list and the number its leading digits
    /// make are kept (`Bufs::starts`, `Bufs::numbers`).
    fn split_selector(&mut self, w: Words, b: &Bufs) {
        self.st_imm_at(R9, w.nelems(), 1);
        self.st_imm_at(R9, w.tmp(), 0);
        self.st_imm_at(R9, b.starts, 0);
        self.st_imm_at(R9, b.numbers, 0);
        self.st_imm_at(R9, w.digits(), 1);
        let l = self.loop_open(w.tmp2(), b.cap);
        let out = self.a.new_label();
        self.a.emit(mov64_reg(R4, R0));
        self.byte_at(R2, b.sel, R4, b.cap, out);
        let keep = self.a.new_label();
        let split = self.a.new_label();
        self.a.jmp_imm_to(Cond::Eq, R2, i32::from(b']'), l.top);
        self.a.jmp_imm_to(Cond::Eq, R2, i32::from(b'.'), split);
        self.a.jmp_imm_to(Cond::Ne, R2, i32::from(b'['), keep);
        self.a.jmp_imm_to(Cond::Eq, R4, 0, l.top);
        // The end of an element: its NUL, and the next one's start.
        self.a.bind(split);
        self.a.emit(mov64_imm(R2, 0));
        self.put_at(w.tmp(), b.list, b.cap, R2);
        self.ldx_at(R4, R9, w.nelems(), Size::DW);
        self.a.emit(alu64_imm(Alu::Add, R4, 1));
        self.stx_at(R9, w.nelems(), R4, Size::DW);
        self.st_imm_at(R9, w.digits(), 1);
        self.a.emit(alu64_imm(Alu::Sub, R4, 1));
        self.a.jmp_imm_to(Cond::Ge, R4, b.cap as i32, l.top);
        self.a.emit(alu64_imm(Alu::Lsh, R4, 3));
        self.ldx_at(R1, R9, w.tmp(), Size::DW);
        self.ptr(R3, R9, b.starts);
        self.a.emit(alu64_reg(Alu::Add, R3, R4));
        self.a.emit(stx(Size::DW, R3, 0, R1));
        self.ptr(R3, R9, b.numbers);
        self.a.emit(alu64_reg(Alu::Add, R3, R4));
        self.a.emit(st_imm(Size::DW, R3, 0, 0));
        self.a.ja_to(l.top);
        // A character of an element; while they are digits, its number.
        self.a.bind(keep);
        self.put_at(w.tmp(), b.list, b.cap, R2);
        let not_digit = self.a.new_label();
        self.ldx_at(R1, R9, w.digits(), Size::DW);
        self.a.jmp_imm_to(Cond::Eq, R1, 0, l.top);
        self.a.jmp_imm_to(Cond::Lt, R2, i32::from(b'0'), not_digit);
        self.a.jmp_imm_to(Cond::Gt, R2, i32::from(b'9'), not_digit);
        self.ldx_at(R4, R9, w.nelems(), Size::DW);
        self.a.emit(alu64_imm(Alu::Sub, R4, 1));
        self.a.jmp_imm_to(Cond::Ge, R4, b.cap as i32, l.top);
        self.a.emit(alu64_imm(Alu::Lsh, R4, 3));
        self.ptr(R3, R9, b.numbers);
        self.a.emit(alu64_reg(Alu::Add, R3, R4));
        self.a.emit(ldx(Size::DW, R1, R3, 0));
        self.a.emit(alu64_imm(Alu::Mul, R1, 10));
        self.a.emit(alu64_imm(Alu::Sub, R2, i32::from(b'0')));
        self.a.emit(alu64_reg(Alu::Add, R1, R2));
        self.a.emit(stx(Size::DW, R3, 0, R1));
        self.a.ja_to(l.top);
        self.a.bind(not_digit);
        self.st_imm_at(R9, w.digits(), 0);
        self.a.ja_to(l.top);
        self.a.bind(l.done);
        self.a.bind(out);
        self.iter_close(&l);
        self.free(l.temp);
        self.a.emit(mov64_imm(R2, 0));
        self.put_at(w.tmp(), b.list, b.cap + 1, R2);
    }

    /// `buf[*idx] = reg` if `*idx < cap - 1`, then `*idx += 1` (the index
    /// a word in scratch). Uses R1 and R3.
    fn put_at(&mut self, idx: u32, buf: u32, cap: u32, reg: Reg) {
        let full = self.a.new_label();
        self.ldx_at(R1, R9, idx, Size::DW);
        self.a.jmp_imm_to(Cond::Ge, R1, (cap - 1) as i32, full);
        self.ptr(R3, R9, buf);
        self.a.emit(alu64_reg(Alu::Add, R3, R1));
        self.a.emit(stx(Size::B, R3, 0, reg));
        self.a.emit(alu64_imm(Alu::Add, R1, 1));
        self.stx_at(R9, idx, R1, Size::DW);
        self.a.bind(full);
    }
}

/// What the machine's code jumps to.
struct Machine {
    w: Words,
    /// The next character.
    next: Label,
    /// The answer is NULL.
    null: Label,
    /// The value is in the result buffer, NUL-terminated.
    found: Label,
}

impl ProgGen<'_, '_> {
    fn set(&mut self, word: u32, v: i32) {
        self.st_imm_at(R9, word, v);
    }

    fn load(&mut self, r: Reg, word: u32) {
        self.ldx_at(r, R9, word, Size::DW);
    }

    /// R1 = this turn's character.
    fn cc(&mut self, m: &Machine) {
        self.load(R1, m.w.cc());
    }

    /// Jumps to `to` if the character (R1) is JSON white space.
    fn if_space(&mut self, to: Label) {
        self.a.jmp_imm_to(Cond::Eq, R1, i32::from(b' '), to);
        let not = self.a.new_label();
        self.a.jmp_imm_to(Cond::Lt, R1, 9, not);
        self.a.jmp_imm_to(Cond::Le, R1, 13, to);
        self.a.bind(not);
    }

    /// Appends the character (R2) to the result; in a key, compares it
    /// with the current selector element's character at that place.
    fn put(&mut self, m: &Machine, b: &Bufs) {
        let put = self.a.new_label();
        let differ = self.a.new_label();
        self.load(R1, m.w.is_key());
        self.a.jmp_imm_to(Cond::Eq, R1, 0, put);
        self.load(R1, m.w.dd());
        self.a.jmp_imm_to(Cond::Ge, R1, b.cap as i32 - 1, put);
        self.load(R3, m.w.elem());
        self.a.emit(alu64_reg(Alu::Add, R3, R1));
        self.byte_at(R4, b.list, R3, b.cap, differ);
        self.a.jmp_reg_to(Cond::Eq, R4, R2, put);
        self.a.bind(differ);
        self.set(m.w.kdiff(), 1);
        self.a.bind(put);
        self.put_at(m.w.dd(), b.dest, b.cap, R2);
    }

    fn put_cc(&mut self, m: &Machine, b: &Bufs) {
        self.load(R2, m.w.cc());
        self.put(m, b);
    }

    fn put_const(&mut self, m: &Machine, b: &Bufs, c: u8) {
        self.a.emit(mov64_imm(R2, i32::from(c)));
        self.put(m, b);
    }

    /// Ends the result string where it is and starts it again.
    fn terminate_and_reset(&mut self, m: &Machine, b: &Bufs) {
        self.a.emit(mov64_imm(R2, 0));
        self.put_at(m.w.dd(), b.dest, b.cap + 1, R2);
        self.set(m.w.dd(), 0);
    }

    /// The value just read is the one asked for if `found_key`: then it
    /// is the answer (or, with more selector elements left, NULL).
    fn value_done(&mut self, m: &Machine) {
        let not = self.a.new_label();
        self.load(R1, m.w.found());
        self.a.jmp_imm_to(Cond::Eq, R1, 0, not);
        self.load(R1, m.w.nelems());
        self.a.jmp_imm_to(Cond::Sgt, R1, 1, m.null);
        self.set(m.w.result(), 1);
        self.a.ja_to(m.found);
        self.a.bind(not);
    }

    /// The COMMA state on this turn's character.
    fn comma(&mut self, m: &Machine) {
        self.cc(m);
        self.if_space(m.next);
        self.a.jmp_imm_to(Cond::Ne, R1, i32::from(b','), m.null);
        let object = self.a.new_label();
        self.load(R1, m.w.in_array());
        self.a.jmp_imm_to(Cond::Eq, R1, 0, object);
        self.set(m.w.state(), st::VALUE);
        self.load(R1, m.w.array_pos());
        self.a.emit(alu64_imm(Alu::Add, R1, 1));
        self.stx_at(R9, m.w.array_pos(), R1, Size::DW);
        self.load(R2, m.w.array_elem());
        self.a.jmp_reg_to(Cond::Ne, R1, R2, m.next);
        self.set(m.w.found(), 1);
        self.a.ja_to(m.next);
        self.a.bind(object);
        self.set(m.w.state(), st::OBJECT);
        self.a.ja_to(m.next);
    }

    /// array_elem = the current selector element as a decimal number
    /// (kept when the selector was split); found_key = it is 0.
    fn start_array(&mut self, m: &Machine, b: &Bufs) {
        self.set(m.w.in_array(), 1);
        self.set(m.w.array_pos(), 0);
        self.set(m.w.array_elem(), 0);
        self.element_entry(m, b, b.numbers, m.w.array_elem());
        self.set(m.w.found(), 0);
        let nonzero = self.a.new_label();
        self.load(R1, m.w.array_elem());
        self.a.jmp_imm_to(Cond::Ne, R1, 0, nonzero);
        self.set(m.w.found(), 1);
        self.a.bind(nonzero);
        self.set(m.w.state(), st::VALUE);
    }

    /// `word` = the current element's entry in the per-element `table`
    /// (`word` left as it is past the table's `cap` entries).
    fn element_entry(&mut self, m: &Machine, b: &Bufs, table: u32, word: u32) {
        let past = self.a.new_label();
        self.load(R1, m.w.elem_idx());
        self.a.jmp_imm_to(Cond::Ge, R1, b.cap as i32, past);
        self.a.emit(alu64_imm(Alu::Lsh, R1, 3));
        self.ptr(R3, R9, table);
        self.a.emit(alu64_reg(Alu::Add, R3, R1));
        self.a.emit(ldx(Size::DW, R1, R3, 0));
        self.stx_at(R9, word, R1, Size::DW);
        self.a.bind(past);
    }

    /// The key just read (its characters compared as they were copied;
    /// DD its length) is the current selector element: found_key.
    fn key_found(&mut self, m: &Machine, b: &Bufs) {
        let differ = self.a.new_label();
        self.load(R1, m.w.kdiff());
        self.a.jmp_imm_to(Cond::Ne, R1, 0, differ);
        self.load(R1, m.w.dd());
        self.load(R3, m.w.elem());
        self.a.emit(alu64_reg(Alu::Add, R3, R1));
        self.byte_at(R4, b.list, R3, b.cap, differ);
        self.a.jmp_imm_to(Cond::Ne, R4, 0, differ);
        self.set(m.w.found(), 1);
        self.a.bind(differ);
    }

    /// Moves to the next selector element (where the split said it
    /// starts).
    fn next_elem(&mut self, m: &Machine, b: &Bufs) {
        self.load(R1, m.w.elem_idx());
        self.a.emit(alu64_imm(Alu::Add, R1, 1));
        self.stx_at(R9, m.w.elem_idx(), R1, Size::DW);
        // Past the table: an element no list index reaches.
        self.set(m.w.elem(), b.cap as i32);
        self.element_entry(m, b, b.starts, m.w.elem());
        self.load(R1, m.w.nelems());
        self.a.emit(alu64_imm(Alu::Sub, R1, 1));
        self.stx_at(R9, m.w.nelems(), R1, Size::DW);
    }

    /// One turn of the machine on this turn's character; every way out
    /// goes to `next`, `null` or `found`.
    fn machine(&mut self, m: &Machine, b: &Bufs) {
        let states: Vec<Label> = (0..=st::COLLECT).map(|_| self.a.new_label()).collect();
        self.load(R1, m.w.state());
        for (i, l) in states.iter().enumerate() {
            self.a.jmp_imm_to(Cond::Eq, R1, i as i32, *l);
        }
        self.a.ja_to(m.null);

        // REST: the document's top-level object or array.
        self.a.bind(states[st::REST as usize]);
        self.cc(m);
        self.if_space(m.next);
        let array = self.a.new_label();
        self.a.jmp_imm_to(Cond::Eq, R1, i32::from(b'['), array);
        self.a.jmp_imm_to(Cond::Ne, R1, i32::from(b'{'), m.null);
        self.set(m.w.state(), st::OBJECT);
        self.a.ja_to(m.next);
        self.a.bind(array);
        self.start_array(m, b);
        self.a.ja_to(m.next);

        // OBJECT: a key string next.
        self.a.bind(states[st::OBJECT as usize]);
        self.cc(m);
        self.if_space(m.next);
        self.a.jmp_imm_to(Cond::Ne, R1, i32::from(b'"'), m.null);
        self.set(m.w.state(), st::STRING);
        self.set(m.w.is_key(), 1);
        self.set(m.w.kdiff(), 0);
        self.a.ja_to(m.next);

        // STRING
        self.a.bind(states[st::STRING as usize]);
        let quote = self.a.new_label();
        let escape = self.a.new_label();
        self.cc(m);
        self.a.jmp_imm_to(Cond::Eq, R1, i32::from(b'\\'), escape);
        self.a.jmp_imm_to(Cond::Eq, R1, i32::from(b'"'), quote);
        self.put_cc(m, b);
        self.a.ja_to(m.next);
        self.a.bind(escape);
        self.put_const(m, b, b'\\');
        self.set(m.w.state(), st::ESCAPE);
        self.a.ja_to(m.next);
        self.a.bind(quote);
        let plain = self.a.new_label();
        self.load(R1, m.w.collect());
        self.a.jmp_imm_to(Cond::Eq, R1, 0, plain);
        // The end of a string inside an object being collected.
        self.put_cc(m, b);
        self.set(m.w.collect(), 0);
        self.set(m.w.state(), st::COLLECT);
        self.a.ja_to(m.next);
        self.a.bind(plain);
        let not_key = self.a.new_label();
        self.load(R1, m.w.is_key());
        self.a.jmp_imm_to(Cond::Eq, R1, 0, not_key);
        self.key_found(m, b);
        self.a.bind(not_key);
        self.terminate_and_reset(m, b);
        let value = self.a.new_label();
        let after = self.a.new_label();
        self.load(R1, m.w.is_key());
        self.a.jmp_imm_to(Cond::Eq, R1, 0, value);
        self.set(m.w.state(), st::COLON);
        self.a.ja_to(after);
        self.a.bind(value);
        self.value_done(m);
        self.set(m.w.state(), st::COMMA);
        self.a.bind(after);
        self.set(m.w.is_key(), 0);
        self.a.ja_to(m.next);

        // ESCAPE: the character after a backslash.
        self.a.bind(states[st::ESCAPE as usize]);
        self.put_cc(m, b);
        self.set(m.w.state(), st::STRING);
        self.cc(m);
        self.a.jmp_imm_to(Cond::Ne, R1, i32::from(b'u'), m.next);
        self.set(m.w.unicount(), 0);
        self.set(m.w.state(), st::ESCAPE_UNICODE);
        self.a.ja_to(m.next);

        // ESCAPE_UNICODE: four hex digits.
        self.a.bind(states[st::ESCAPE_UNICODE as usize]);
        self.cc(m);
        self.if_not_xdigit(m.null);
        self.put_cc(m, b);
        self.load(R1, m.w.unicount());
        self.a.emit(alu64_imm(Alu::Add, R1, 1));
        self.stx_at(R9, m.w.unicount(), R1, Size::DW);
        self.a.jmp_imm_to(Cond::Ne, R1, 4, m.next);
        self.set(m.w.state(), st::STRING);
        self.a.ja_to(m.next);

        // COLON
        self.a.bind(states[st::COLON as usize]);
        self.cc(m);
        self.if_space(m.next);
        self.a.jmp_imm_to(Cond::Ne, R1, i32::from(b':'), m.null);
        self.set(m.w.state(), st::VALUE);
        self.a.ja_to(m.next);

        // COMMA
        self.a.bind(states[st::COMMA as usize]);
        self.comma(m);

        // IDENTIFIER: true, false, null.
        self.a.bind(states[st::IDENTIFIER as usize]);
        let ident_end = self.a.new_label();
        self.cc(m);
        self.a.jmp_imm_to(Cond::Lt, R1, i32::from(b'a'), ident_end);
        self.a.jmp_imm_to(Cond::Gt, R1, i32::from(b'z'), ident_end);
        self.put_cc(m, b);
        self.a.ja_to(m.next);
        self.a.bind(ident_end);
        self.terminate_and_reset(m, b);
        self.if_not_identifier(b, m.null);
        self.value_done(m);
        // Not the value asked for: this character again, as COMMA.
        self.set(m.w.state(), st::COMMA);
        self.comma(m);

        // NUMBER, NUMBER_FRAC, NUMBER_EXP (falling through, as DTrace's
        // switch does).
        self.a.bind(states[st::NUMBER as usize]);
        let frac = self.a.new_label();
        let exp = self.a.new_label();
        self.cc(m);
        let not_dot = self.a.new_label();
        self.a.jmp_imm_to(Cond::Ne, R1, i32::from(b'.'), not_dot);
        self.put_cc(m, b);
        self.set(m.w.state(), st::NUMBER_FRAC);
        self.a.ja_to(m.next);
        self.a.bind(not_dot);
        self.a.jmp_imm_to(Cond::Eq, R1, i32::from(b'x'), m.null);
        self.a.jmp_imm_to(Cond::Eq, R1, i32::from(b'X'), m.null);
        self.a.bind(states[st::NUMBER_FRAC as usize]);
        self.a.bind(frac);
        self.cc(m);
        let is_e = self.a.new_label();
        self.a.jmp_imm_to(Cond::Eq, R1, i32::from(b'e'), is_e);
        self.a.jmp_imm_to(Cond::Ne, R1, i32::from(b'E'), exp);
        self.a.bind(is_e);
        self.put_cc(m, b);
        self.set(m.w.state(), st::NUMBER_EXP);
        self.a.ja_to(m.next);
        self.a.bind(exp);
        self.a.jmp_imm_to(Cond::Eq, R1, i32::from(b'+'), m.null);
        self.a.jmp_imm_to(Cond::Eq, R1, i32::from(b'-'), m.null);
        self.a.bind(states[st::NUMBER_EXP as usize]);
        self.cc(m);
        let digitish = self.a.new_label();
        let num_end = self.a.new_label();
        self.a.jmp_imm_to(Cond::Eq, R1, i32::from(b'+'), digitish);
        self.a.jmp_imm_to(Cond::Eq, R1, i32::from(b'-'), digitish);
        self.a.jmp_imm_to(Cond::Lt, R1, i32::from(b'0'), num_end);
        self.a.jmp_imm_to(Cond::Gt, R1, i32::from(b'9'), num_end);
        self.a.bind(digitish);
        self.put_cc(m, b);
        self.a.ja_to(m.next);
        self.a.bind(num_end);
        self.terminate_and_reset(m, b);
        self.value_done(m);
        self.set(m.w.state(), st::COMMA);
        self.comma(m);

        // VALUE
        self.a.bind(states[st::VALUE as usize]);
        self.cc(m);
        self.if_space(m.next);
        let nested = self.a.new_label();
        let not_nested = self.a.new_label();
        self.a.jmp_imm_to(Cond::Eq, R1, i32::from(b'{'), nested);
        self.a.jmp_imm_to(Cond::Ne, R1, i32::from(b'['), not_nested);
        self.a.bind(nested);
        let collect = self.a.new_label();
        self.load(R1, m.w.nelems());
        self.a.jmp_imm_to(Cond::Sle, R1, 1, collect);
        self.load(R1, m.w.found());
        self.a.jmp_imm_to(Cond::Eq, R1, 0, collect);
        // Into the nested object or array the selector names.
        self.next_elem(m, b);
        self.set(m.w.dd(), 0);
        let into_object = self.a.new_label();
        self.cc(m);
        self.a
            .jmp_imm_to(Cond::Ne, R1, i32::from(b'['), into_object);
        self.start_array(m, b);
        self.a.ja_to(m.next);
        self.a.bind(into_object);
        self.set(m.w.in_array(), 0);
        self.set(m.w.found(), 0);
        self.set(m.w.state(), st::OBJECT);
        self.a.ja_to(m.next);
        // Otherwise skipped, or returned whole: collected.
        self.a.bind(collect);
        let brace = self.a.new_label();
        let counted = self.a.new_label();
        self.cc(m);
        self.a.jmp_imm_to(Cond::Ne, R1, i32::from(b'['), brace);
        self.set(m.w.brackets(), 1);
        self.a.ja_to(counted);
        self.a.bind(brace);
        self.set(m.w.braces(), 1);
        self.a.bind(counted);
        self.put_cc(m, b);
        self.set(m.w.state(), st::COLLECT);
        self.a.ja_to(m.next);
        self.a.bind(not_nested);
        let not_str = self.a.new_label();
        self.a.jmp_imm_to(Cond::Ne, R1, i32::from(b'"'), not_str);
        self.set(m.w.state(), st::STRING);
        self.a.ja_to(m.next);
        self.a.bind(not_str);
        let not_ident = self.a.new_label();
        self.a.jmp_imm_to(Cond::Lt, R1, i32::from(b'a'), not_ident);
        self.a.jmp_imm_to(Cond::Gt, R1, i32::from(b'z'), not_ident);
        self.put_cc(m, b);
        self.set(m.w.state(), st::IDENTIFIER);
        self.a.ja_to(m.next);
        self.a.bind(not_ident);
        let number = self.a.new_label();
        self.a.jmp_imm_to(Cond::Eq, R1, i32::from(b'-'), number);
        self.a.jmp_imm_to(Cond::Lt, R1, i32::from(b'0'), m.null);
        self.a.jmp_imm_to(Cond::Gt, R1, i32::from(b'9'), m.null);
        self.a.bind(number);
        self.put_cc(m, b);
        self.set(m.w.state(), st::NUMBER);
        self.a.ja_to(m.next);

        // COLLECT: a nested object or array, whole.
        self.a.bind(states[st::COLLECT as usize]);
        self.put_cc(m, b);
        self.cc(m);
        let not_quote = self.a.new_label();
        self.a.jmp_imm_to(Cond::Ne, R1, i32::from(b'"'), not_quote);
        self.set(m.w.collect(), 1);
        self.set(m.w.state(), st::STRING);
        self.a.ja_to(m.next);
        self.a.bind(not_quote);
        let balance = self.a.new_label();
        for (c, word, delta) in [
            (b']', m.w.brackets(), -1),
            (b'}', m.w.braces(), -1),
            (b'[', m.w.brackets(), 1),
            (b'{', m.w.braces(), 1),
        ] {
            let other = self.a.new_label();
            self.cc(m);
            self.a.jmp_imm_to(Cond::Ne, R1, i32::from(c), other);
            self.load(R1, word);
            if delta < 0 {
                // Unbalanced: NULL.
                self.a.jmp_imm_to(Cond::Eq, R1, 0, m.null);
            }
            self.a.emit(alu64_imm(Alu::Add, R1, delta));
            self.stx_at(R9, word, R1, Size::DW);
            self.a.ja_to(balance);
            self.a.bind(other);
        }
        self.a.bind(balance);
        self.load(R1, m.w.brackets());
        self.load(R2, m.w.braces());
        self.a.emit(alu64_reg(Alu::Or, R1, R2));
        self.a.jmp_imm_to(Cond::Ne, R1, 0, m.next);
        let skip = self.a.new_label();
        self.load(R1, m.w.found());
        self.a.jmp_imm_to(Cond::Eq, R1, 0, skip);
        self.a.emit(mov64_imm(R2, 0));
        self.put_at(m.w.dd(), b.dest, b.cap + 1, R2);
        self.set(m.w.result(), 1);
        self.a.ja_to(m.found);
        self.a.bind(skip);
        self.set(m.w.dd(), 0);
        self.set(m.w.state(), st::COMMA);
        self.a.ja_to(m.next);
    }

    /// Jumps to `to` unless the character (R1) is a hex digit.
    fn if_not_xdigit(&mut self, to: Label) {
        let ok = self.a.new_label();
        let not_digit = self.a.new_label();
        self.a.jmp_imm_to(Cond::Lt, R1, i32::from(b'0'), to);
        self.a.jmp_imm_to(Cond::Gt, R1, i32::from(b'9'), not_digit);
        self.a.ja_to(ok);
        self.a.bind(not_digit);
        self.a.emit(mov64_reg(R2, R1));
        self.a.emit(alu64_imm(Alu::Or, R2, 0x20));
        self.a.jmp_imm_to(Cond::Lt, R2, i32::from(b'a'), to);
        self.a.jmp_imm_to(Cond::Gt, R2, i32::from(b'f'), to);
        self.a.bind(ok);
    }

    /// Jumps to `to` unless the result buffer holds `true`, `false` or
    /// `null` (read as one little-endian word with its NUL).
    fn if_not_identifier(&mut self, b: &Bufs, to: Label) {
        let ok = self.a.new_label();
        self.ldx_at(R1, R9, b.dest, Size::DW);
        // "true\0" and "null\0": five bytes; "false\0": six.
        self.a.emit(mov64_reg(R2, R1));
        load_imm(&mut self.a, R3, 0xff_ffff_ffff);
        self.a.emit(alu64_reg(Alu::And, R2, R3));
        load_imm(&mut self.a, R3, word(b"true\0"));
        self.a.jmp_reg_to(Cond::Eq, R2, R3, ok);
        load_imm(&mut self.a, R3, word(b"null\0"));
        self.a.jmp_reg_to(Cond::Eq, R2, R3, ok);
        self.a.emit(mov64_reg(R2, R1));
        load_imm(&mut self.a, R3, 0xffff_ffff_ffff);
        self.a.emit(alu64_reg(Alu::And, R2, R3));
        load_imm(&mut self.a, R3, word(b"false\0"));
        self.a.jmp_reg_to(Cond::Ne, R2, R3, to);
        self.a.bind(ok);
    }
}

/// Bytes as a little-endian word (as a load from memory sees them).
fn word(bytes: &[u8]) -> i64 {
    let mut w = [0u8; 8];
    w[..bytes.len()].copy_from_slice(bytes);
    i64::from_le_bytes(w)
}

#[cfg(test)]
mod tests {
    #[test]
    fn identifiers_are_words() {
        assert_eq!(super::word(b"true\0"), 0x65757274);
    }
}
