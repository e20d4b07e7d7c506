//! Temporaries (two registers, then stack slots), scratch buffers, and
//! loads and stores at any offset (the BPF encodings take 16 bits).

use super::*;

impl ProgGen<'_, '_> {
    pub(crate) fn alloc(&mut self) -> Temp {
        if let Some(r) = self.frame.free_regs.pop() {
            return Temp::Reg(r);
        }
        if let Some(s) = self.frame.free_slots.pop() {
            return Temp::Stack(s);
        }
        let s = self.frame.next_slot;
        if i32::from(s) < -BPF_STACK {
            // Out of stack: remember, and hand out a slot that is never
            // used since generation fails.
            self.stack_exhausted = true;
            return Temp::Stack(crate::codegen::stack::SPILL);
        }
        self.frame.next_slot -= 8;
        Temp::Stack(s)
    }

    /// A temporary that is always a stack slot (for what must be in
    /// memory, such as an iterator's state).
    pub(crate) fn alloc_stack(&mut self) -> Temp {
        let regs = std::mem::take(&mut self.frame.free_regs);
        let t = self.alloc();
        self.frame.free_regs = regs;
        t
    }

    pub(crate) fn free(&mut self, t: Temp) {
        match t {
            Temp::Reg(r) => self.frame.free_regs.push(r),
            Temp::Stack(s) => self.frame.free_slots.push(s),
        }
    }

    pub(crate) fn load_temp(&mut self, t: Temp, r: Reg) {
        match t {
            Temp::Reg(x) if x == r => {}
            Temp::Reg(x) => self.a.emit(mov64_reg(r, x)),
            Temp::Stack(s) => self.a.emit(ldx(Size::DW, r, FP, s)),
        }
    }

    pub(crate) fn store_temp(&mut self, t: Temp, r: Reg) {
        match t {
            Temp::Reg(x) if x == r => {}
            Temp::Reg(x) => self.a.emit(mov64_reg(x, r)),
            Temp::Stack(s) => self.a.emit(stx(Size::DW, FP, s, r)),
        }
    }

    /// A temporary buffer of `size` bytes in scratch, valid for the current
    /// statement; returns its scratch offset.
    pub(crate) fn alloc_buf(&mut self, size: u32) -> u32 {
        let off = self.g.temp_base + self.bump;
        self.bump += crate::layout::round8(size.max(1));
        self.g.temp_max = self.g.temp_max.max(self.bump);
        off
    }

    /// `*(size *)(base + off) = src`, for offsets beyond the 16-bit range.
    pub(crate) fn stx_at(&mut self, base: Reg, off: u32, src: Reg, size: Size) {
        if off <= 32000 {
            self.a.emit(stx(size, base, off as i16, src));
        } else {
            self.a.emit(mov64_reg(R5, base));
            self.a.emit(alu64_imm(Alu::Add, R5, off as i32));
            self.a.emit(stx(size, R5, 0, src));
        }
    }

    pub(crate) fn ldx_at(&mut self, dst: Reg, base: Reg, off: u32, size: Size) {
        if off <= 32000 {
            self.a.emit(ldx(size, dst, base, off as i16));
        } else {
            self.a.emit(mov64_reg(R5, base));
            self.a.emit(alu64_imm(Alu::Add, R5, off as i32));
            self.a.emit(ldx(size, dst, R5, 0));
        }
    }

    pub(crate) fn st_imm_at(&mut self, base: Reg, off: u32, imm: i32) {
        if off <= 32000 {
            self.a.emit(st_imm(Size::DW, base, off as i16, imm));
        } else {
            self.a.emit(mov64_reg(R5, base));
            self.a.emit(alu64_imm(Alu::Add, R5, off as i32));
            self.a.emit(st_imm(Size::DW, R5, 0, imm));
        }
    }

    /// `dst = base + off` as a pointer.
    pub(crate) fn ptr(&mut self, dst: Reg, base: Reg, off: u32) {
        self.a.emit(mov64_reg(dst, base));
        if off != 0 {
            self.a.emit(alu64_imm(Alu::Add, dst, off as i32));
        }
    }
}
