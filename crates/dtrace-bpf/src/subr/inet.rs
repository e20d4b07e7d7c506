//! `inet_ntoa()`, `inet_ntoa6()` and `inet_ntop()`: an IPv4 or IPv6
//! address as text, generated, in DTrace's forms.
//!
//! IPv4 is a dotted decimal quad. IPv6 is eight groups of lower-case
//! hexadecimal without leading zeros, with one run of zero groups
//! written `::`; the run is found as DTrace finds it (scanning bytes: a
//! run starts at a zero byte at an even offset and must be longer than
//! the longest so far), so the same addresses compress the same way. An
//! IPv4-mapped (`::ffff:a.b.c.d`) or IPv4-compatible (`::a.b.c.d`)
//! address ends in a dotted quad; `inet_ntoa6()` gives only the quad for
//! those. The address is read from kernel memory (a fault if it cannot
//! be); the text is written into a 64-byte scratch buffer, each write at
//! an offset masked to it, so the verifier can prove every one in
//! bounds.

use dtrace_lang::ir::{CExpr, CKind, InetMode};

use crate::codegen::{GenError, Temp};
use crate::insn::*;
use crate::plan::fault;
use crate::program::ProgGen;

type R<T> = Result<T, GenError>;

/// The text buffer: 46 bytes (`INET6_ADDRSTRLEN`) fit; 64 is the mask.
const TEXT: u32 = 64;
/// Linux's address family numbers.
const AF_INET: i32 = 2;
const AF_INET6: i32 = 10;

/// Scratch slots of the conversion (8 bytes each, signed).
struct Slots {
    /// The address's 16 bytes.
    addr: u32,
    /// Where the next character goes.
    pos: u32,
    /// DTrace's `tryzero`, `firstzero`, `numzero`, `v6end`.
    tz: u32,
    fz: u32,
    nz: u32,
    end: u32,
    text: u32,
}

impl ProgGen<'_, '_> {
    /// The text of the address `addr` points to, of family `af` (an
    /// integer expression; constant for `inet_ntoa` and `inet_ntoa6`).
    pub(crate) fn inet_ntop(&mut self, af: &CExpr, addr: &CExpr, mode: InetMode) -> R<(Temp, u32)> {
        let addr_buf = self.alloc_buf(16);
        let st = self.alloc_buf(48);
        let text = self.alloc_buf(TEXT);
        let s = Slots {
            addr: addr_buf,
            pos: st,
            tz: st + 8,
            fz: st + 16,
            nz: st + 24,
            end: st + 32,
            text,
        };
        self.st_imm_at(R9, s.pos, 0);
        let done = self.a.new_label();
        let v6 = self.a.new_label();
        match af.kind {
            CKind::Int(v) if v == i64::from(AF_INET) => {
                self.read_addr(addr, &s, 4)?;
                self.quad(&s, 0);
            }
            CKind::Int(v) if v == i64::from(AF_INET6) => {
                self.read_addr(addr, &s, 16)?;
                self.ipv6(&s, mode);
            }
            _ => {
                let ta = self.eval_int(af)?;
                self.load_temp(ta, R1);
                self.free(ta);
                let bad = self.a.new_label();
                self.a.jmp_imm_to(Cond::Eq, R1, AF_INET6, v6);
                self.a.jmp_imm_to(Cond::Ne, R1, AF_INET, bad);
                self.read_addr(addr, &s, 4)?;
                self.quad(&s, 0);
                self.a.ja_to(done);
                // Neither family: DTrace's illegal operation.
                self.a.bind(bad);
                let act = self.cur_action;
                self.fault(fault::ILLOP, None, act);
                self.a.bind(v6);
                self.read_addr(addr, &s, 16)?;
                self.ipv6(&s, mode);
            }
        }
        self.a.bind(done);
        self.put_imm(&s, 0);
        self.ptr(R1, R9, s.text);
        Ok((self.int_result(R1), TEXT))
    }

    /// Copies `n` bytes from the address `addr` evaluates to; a fault if
    /// they cannot be read.
    fn read_addr(&mut self, addr: &CExpr, s: &Slots, n: i32) -> R<()> {
        let ta = self.eval_int(addr)?;
        self.ptr(R1, R9, s.addr);
        self.a.emit(mov64_imm(R2, n));
        self.load_temp(ta, R3);
        self.a.emit(call(Helper::ProbeReadKernel));
        self.check_read(ta);
        self.free(ta);
        Ok(())
    }

    /// Writes the character in R3 at the current position (R1, R2 and
    /// R3 clobbered).
    fn put_reg(&mut self, s: &Slots) {
        self.ldx_at(R2, R9, s.pos, Size::DW);
        self.a.emit(alu64_imm(Alu::And, R2, (TEXT - 1) as i32));
        self.ptr(R1, R9, s.text);
        self.a.emit(alu64_reg(Alu::Add, R1, R2));
        self.a.emit(stx(Size::B, R1, 0, R3));
        self.a.emit(alu64_imm(Alu::Add, R2, 1));
        self.stx_at(R9, s.pos, R2, Size::DW);
    }

    fn put_imm(&mut self, s: &Slots, c: u8) {
        self.a.emit(mov64_imm(R3, i32::from(c)));
        self.put_reg(s);
    }

    /// The byte at `at` of the address, in R4.
    fn addr_byte(&mut self, s: &Slots, at: u32) {
        self.ldx_at(R4, R9, s.addr + at, Size::B);
    }

    /// The four bytes from `from` as a dotted decimal quad.
    fn quad(&mut self, s: &Slots, from: u32) {
        for i in 0..4 {
            if i > 0 {
                self.put_imm(s, b'.');
            }
            self.addr_byte(s, from + i);
            self.decimal_r4(s);
        }
    }

    /// The byte in R4 in decimal, without leading zeros (R0-R4 used).
    fn decimal_r4(&mut self, s: &Slots) {
        self.a.emit(mov64_reg(R0, R4));
        let tens = self.a.new_label();
        let ones = self.a.new_label();
        self.a.jmp_imm_to(Cond::Lt, R0, 100, tens);
        self.a.emit(mov64_reg(R3, R0));
        self.a.emit(alu64_imm(Alu::Div, R3, 100));
        self.a.emit(alu64_imm(Alu::Add, R3, i32::from(b'0')));
        self.put_reg(s);
        self.a.bind(tens);
        self.a.jmp_imm_to(Cond::Lt, R0, 10, ones);
        self.a.emit(mov64_reg(R3, R0));
        self.a.emit(alu64_imm(Alu::Div, R3, 10));
        self.a.emit(alu64_imm(Alu::Mod, R3, 10));
        self.a.emit(alu64_imm(Alu::Add, R3, i32::from(b'0')));
        self.put_reg(s);
        self.a.bind(ones);
        self.a.emit(mov64_reg(R3, R0));
        self.a.emit(alu64_imm(Alu::Mod, R3, 10));
        self.a.emit(alu64_imm(Alu::Add, R3, i32::from(b'0')));
        self.put_reg(s);
    }

    /// The 16-bit group at byte `at` in hexadecimal, without leading
    /// zeros (R0-R4 used).
    fn hex_group(&mut self, s: &Slots, at: u32) {
        self.addr_byte(s, at);
        self.a.emit(mov64_reg(R0, R4));
        self.a.emit(alu64_imm(Alu::Lsh, R0, 8));
        self.addr_byte(s, at + 1);
        self.a.emit(alu64_reg(Alu::Or, R0, R4));
        // Digits from the highest nonzero nibble; the last always.
        for shift in [12, 8, 4, 0] {
            let skip = self.a.new_label();
            if shift > 0 {
                // Written if this nibble or any above it is nonzero.
                self.a.emit(mov64_reg(R4, R0));
                self.a.emit(alu64_imm(Alu::Rsh, R4, shift));
                self.a.jmp_imm_to(Cond::Eq, R4, 0, skip);
            }
            self.a.emit(mov64_reg(R3, R0));
            self.a.emit(alu64_imm(Alu::Rsh, R3, shift));
            self.a.emit(alu64_imm(Alu::And, R3, 0xf));
            let letter = self.a.new_label();
            let put = self.a.new_label();
            self.a.jmp_imm_to(Cond::Gt, R3, 9, letter);
            self.a.emit(alu64_imm(Alu::Add, R3, i32::from(b'0')));
            self.a.ja_to(put);
            self.a.bind(letter);
            self.a.emit(alu64_imm(Alu::Add, R3, i32::from(b'a') - 10));
            self.a.bind(put);
            self.put_reg(s);
            self.a.bind(skip);
        }
    }

    /// The IPv6 address in the scratch buffer as text.
    fn ipv6(&mut self, s: &Slots, mode: InetMode) {
        // The longest run of zeros, as DTrace's byte scan finds it.
        self.a.emit(mov64_imm(R1, -1));
        self.stx_at(R9, s.tz, R1, Size::DW);
        self.stx_at(R9, s.fz, R1, Size::DW);
        self.a.emit(mov64_imm(R1, 1));
        self.stx_at(R9, s.nz, R1, Size::DW);
        for i in 0..16u32 {
            let next = self.a.new_label();
            self.addr_byte(s, i);
            self.ldx_at(R2, R9, s.tz, Size::DW);
            if i % 2 == 0 {
                // A zero byte at an even offset starts a run.
                let not_start = self.a.new_label();
                self.a.jmp_imm_to(Cond::Ne, R4, 0, not_start);
                self.a.jmp_imm_to(Cond::Ne, R2, -1, not_start);
                self.a.emit(mov64_imm(R2, i as i32));
                self.stx_at(R9, s.tz, R2, Size::DW);
                self.a.ja_to(next);
                self.a.bind(not_start);
            }
            // A run ends at a nonzero byte, or at the last byte.
            self.a.jmp_imm_to(Cond::Eq, R2, -1, next);
            if i != 15 {
                self.a.jmp_imm_to(Cond::Eq, R4, 0, next);
            }
            // Longer than the longest so far (`i - tryzero > numzero`)?
            let longer = self.a.new_label();
            self.a.emit(mov64_imm(R3, i as i32));
            self.a.emit(alu64_reg(Alu::Sub, R3, R2));
            self.ldx_at(R1, R9, s.nz, Size::DW);
            self.a.jmp_reg_to(Cond::Sgt, R3, R1, longer);
            self.a.emit(mov64_imm(R1, -1));
            self.stx_at(R9, s.tz, R1, Size::DW);
            self.a.ja_to(next);
            self.a.bind(longer);
            self.stx_at(R9, s.fz, R2, Size::DW);
            self.a.emit(mov64_imm(R3, (i - i % 2) as i32));
            self.a.emit(alu64_reg(Alu::Sub, R3, R2));
            if i == 15 {
                // A run to the end counts its last group.
                let nonzero = self.a.new_label();
                self.a.jmp_imm_to(Cond::Ne, R4, 0, nonzero);
                self.a.emit(alu64_imm(Alu::Add, R3, 2));
                self.a.bind(nonzero);
            }
            self.stx_at(R9, s.nz, R3, Size::DW);
            self.a.emit(mov64_imm(R1, -1));
            self.stx_at(R9, s.tz, R1, Size::DW);
            self.a.bind(next);
        }

        // An IPv4-mapped (::ffff:0:0/96) or -compatible (::/96, but not
        // :: and ::1) address ends in a dotted quad.
        let plain = self.a.new_label();
        let embedded = self.a.new_label();
        let groups = self.a.new_label();
        for i in 0..10 {
            self.addr_byte(s, i);
            self.a.jmp_imm_to(Cond::Ne, R4, 0, plain);
        }
        self.ldx_at(R4, R9, s.addr + 10, Size::H);
        self.a.jmp_imm_to(Cond::Eq, R4, 0xffff, embedded);
        self.a.jmp_imm_to(Cond::Ne, R4, 0, plain);
        self.ldx_at(R4, R9, s.addr + 12, Size::W);
        // 0 or 1 in network order: `::` and `::1` are not IPv4.
        self.a.jmp_imm_to(Cond::Eq, R4, 0, plain);
        self.a.jmp_imm_to(Cond::Eq, R4, 0x0100_0000, plain);
        self.a.bind(embedded);
        if mode == InetMode::Ntoa6 {
            self.quad(s, 12);
            let out = self.a.new_label();
            self.a.ja_to(out);
            self.a.bind(plain);
            self.a.emit(mov64_imm(R1, 14));
            self.stx_at(R9, s.end, R1, Size::DW);
            self.groups(s);
            self.a.bind(out);
            return;
        }
        self.a.emit(mov64_imm(R1, 10));
        self.stx_at(R9, s.end, R1, Size::DW);
        self.groups(s);
        self.quad(s, 12);
        self.a.ja_to(groups);
        self.a.bind(plain);
        self.a.emit(mov64_imm(R1, 14));
        self.stx_at(R9, s.end, R1, Size::DW);
        self.groups(s);
        self.a.bind(groups);
    }

    /// The groups up to `end` (10 before a dotted quad, else 14): each in
    /// hexadecimal followed by ':' unless it is the last (14) or just
    /// before the run of zeros, whose groups are one `::` (when the run
    /// ends at or before `end`, as DTrace's backwards loop has it).
    fn groups(&mut self, s: &Slots) {
        for i in (0..=14).step_by(2) {
            let next = self.a.new_label();
            let print = self.a.new_label();
            if i > 10 {
                self.ldx_at(R1, R9, s.end, Size::DW);
                self.a.jmp_imm_to(Cond::Slt, R1, i, next);
            }
            // In the run: fz <= i <= fz + nz - 2 <= end.
            self.ldx_at(R1, R9, s.fz, Size::DW);
            self.ldx_at(R2, R9, s.nz, Size::DW);
            self.a.emit(alu64_reg(Alu::Add, R2, R1));
            self.a.emit(alu64_imm(Alu::Sub, R2, 2));
            self.ldx_at(R3, R9, s.end, Size::DW);
            self.a.jmp_reg_to(Cond::Sgt, R2, R3, print);
            self.a.jmp_imm_to(Cond::Sgt, R1, i, print);
            self.a.jmp_imm_to(Cond::Slt, R2, i, print);
            // The run's first group writes it.
            self.a.jmp_imm_to(Cond::Ne, R1, i, next);
            self.put_imm(s, b':');
            self.put_imm(s, b':');
            self.a.ja_to(next);
            self.a.bind(print);
            self.hex_group(s, i as u32);
            if i < 14 {
                self.colon_unless_before_run(s, i);
            }
            self.a.bind(next);
        }
    }

    /// ':' after group `i` unless the run of zeros starts right after it.
    fn colon_unless_before_run(&mut self, s: &Slots, i: i32) {
        let skip = self.a.new_label();
        self.ldx_at(R1, R9, s.fz, Size::DW);
        self.a.jmp_imm_to(Cond::Eq, R1, i + 2, skip);
        self.put_imm(s, b':');
        self.a.bind(skip);
    }

    /// link_ntop(type, addr): a link-layer address as lower-case hex
    /// bytes joined by ':' — six for Ethernet (`ARPHRD_ETHER`), twenty
    /// for InfiniBand (`ARPHRD_INFINIBAND`); another type is DTrace's
    /// illegal operation.
    pub(crate) fn link_ntop(&mut self, ty: &CExpr, addr: &CExpr) -> R<(Temp, u32)> {
        let raw = self.alloc_buf(IB_ADDR_LEN as u32);
        let text = self.alloc_buf(3 * IB_ADDR_LEN as u32);
        let tt = self.eval_int(ty)?;
        let ta = self.eval_int(addr)?;
        let ether = self.a.new_label();
        let done = self.a.new_label();
        self.load_temp(tt, R1);
        self.free(tt);
        let ib = self.a.new_label();
        self.a.jmp_imm_to(Cond::Eq, R1, ARPHRD_ETHER, ether);
        self.a.jmp_imm_to(Cond::Eq, R1, ARPHRD_INFINIBAND, ib);
        let act = self.cur_action;
        self.fault(fault::ILLOP, None, act);
        for (label, n) in [(ether, ETHER_ADDR_LEN), (ib, IB_ADDR_LEN)] {
            self.a.bind(label);
            self.ptr(R1, R9, raw);
            self.a.emit(mov64_imm(R2, n));
            self.load_temp(ta, R3);
            self.a.emit(call(Helper::ProbeReadKernel));
            self.check_read(ta);
            for i in 0..n {
                self.ptr(R4, R9, raw);
                self.a.emit(ldx(Size::B, R3, R4, i as i16));
                self.a.emit(mov64_reg(R2, R3));
                self.a.emit(alu64_imm(Alu::Rsh, R2, 4));
                hex_digit(self, R2);
                self.ptr(R4, R9, text);
                self.a.emit(stx(Size::B, R4, (3 * i) as i16, R2));
                self.a.emit(alu64_imm(Alu::And, R3, 15));
                hex_digit(self, R3);
                self.a.emit(stx(Size::B, R4, (3 * i + 1) as i16, R3));
                let sep = if i + 1 == n { 0 } else { i32::from(b':') };
                self.a.emit(st_imm(Size::B, R4, (3 * i + 2) as i16, sep));
            }
            self.a.ja_to(done);
        }
        self.a.bind(done);
        self.free(ta);
        self.ptr(R1, R9, text);
        Ok((self.int_result(R1), 3 * IB_ADDR_LEN as u32))
    }
}

/// `reg` (0..15) becomes its lower-case hex digit.
fn hex_digit(g: &mut ProgGen<'_, '_>, reg: Reg) {
    let digit = g.a.new_label();
    g.a.emit(alu64_imm(Alu::Add, reg, i32::from(b'0')));
    g.a.jmp_imm_to(Cond::Le, reg, i32::from(b'9'), digit);
    g.a.emit(alu64_imm(Alu::Add, reg, i32::from(b'a' - b'9' - 1)));
    g.a.bind(digit);
}

/// Linux's link-layer types (`ARPHRD_*`) and address lengths.
const ARPHRD_ETHER: i32 = 1;
const ARPHRD_INFINIBAND: i32 = 32;
const ETHER_ADDR_LEN: i32 = 6;
const IB_ADDR_LEN: i32 = 20;
