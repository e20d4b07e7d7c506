//! The `ring` buffer policy: each CPU's principal buffer keeps its newest
//! records. A BPF ring buffer cannot overwrite, so the buffer is `chunks`
//! arrays of `chunk` bytes per CPU (`dt_ring`), each with the bytes it
//! holds (`dt_ring_fill`), and the chunk being written (`dt_ring_cur`):
//! a record that does not fit the current chunk moves on to the next,
//! which is emptied first: the oldest records go a chunk at a time. The
//! consumer reads nothing until tracing stops, then each CPU's chunks
//! from the one after the current (the oldest) round to the current.
//! END's records, faults and speculations' commits go through the
//! ordinary per-CPU ring buffers, read after the chunks.

use crate::asm::Label;
use crate::codegen::{stack, GenError, Temp};
use crate::insn::*;
use crate::plan::RingMaps;
use crate::program::ProgGen;

type R<T> = Result<T, GenError>;

impl ProgGen<'_, '_> {
    fn ring_maps(&self) -> R<RingMaps> {
        self.g
            .ring
            .ok_or_else(|| GenError("internal error: the ring buffer maps were not made".into()))
    }

    /// Places a `size`-byte record in this CPU's ring: r8 = where it
    /// goes; or `out` (a record larger than a chunk is always dropped).
    /// Returns the stack slot of the chunk's fill word, which the record
    /// is published to as a speculative one is (`spec_publish`).
    pub(crate) fn ring_reserve(&mut self, size: u32, out: Label) -> R<i16> {
        let m = self.ring_maps()?;
        if size > m.chunk {
            self.a.ja_to(out);
        }
        let slots: Vec<Temp> = (0..3).map(|_| self.alloc_stack()).collect();
        let slot = |i: usize| match slots[i] {
            Temp::Stack(s) => s,
            Temp::Reg(_) => unreachable!("alloc_stack gives a stack slot"),
        };
        let (cpu_slot, cur_slot, fill_slot) = (slot(0), slot(1), slot(2));
        // The current chunk of this CPU.
        self.a.emit(call(Helper::GetSmpProcessorId));
        self.a.emit(stx(Size::DW, FP, cpu_slot, R0));
        self.a.emit(stx(Size::W, FP, stack::KEY, R0));
        self.lookup_at_key(m.cur, out);
        self.a.emit(stx(Size::DW, FP, cur_slot, R0));
        // Its fill: key cpu * chunks + cur.
        self.chunk_key(m, cpu_slot, cur_slot);
        self.lookup_at_key(m.fill, out);
        self.a.emit(stx(Size::DW, FP, fill_slot, R0));
        let fits = self.a.new_label();
        self.a.emit(ldx(Size::DW, R1, R0, 0));
        self.a
            .jmp_imm_to(Cond::Le, R1, (m.chunk - size) as i32, fits);
        // On to the next chunk, emptied.
        self.a.emit(ldx(Size::DW, R1, FP, cur_slot));
        self.a.emit(ldx(Size::DW, R2, R1, 0));
        self.a.emit(alu64_imm(Alu::Add, R2, 1));
        let no_wrap = self.a.new_label();
        self.a.jmp_imm_to(Cond::Lt, R2, m.chunks as i32, no_wrap);
        self.a.emit(mov64_imm(R2, 0));
        self.a.bind(no_wrap);
        self.a.emit(stx(Size::DW, R1, 0, R2));
        self.chunk_key(m, cpu_slot, cur_slot);
        self.lookup_at_key(m.fill, out);
        self.a.emit(st_imm(Size::DW, R0, 0, 0));
        self.a.emit(stx(Size::DW, FP, fill_slot, R0));
        self.a.bind(fits);
        // The chunk, and the place in it.
        self.chunk_key(m, cpu_slot, cur_slot);
        self.lookup_at_key(m.buf, out);
        self.a.emit(ldx(Size::DW, R1, FP, fill_slot));
        self.a.emit(ldx(Size::DW, R1, R1, 0));
        self.a
            .jmp_imm_to(Cond::Gt, R1, (m.chunk - size) as i32, out);
        self.a.emit(alu64_reg(Alu::Add, R0, R1));
        self.a.emit(mov64_reg(R8, R0));
        self.free(slots[0]);
        self.free(slots[1]);
        Ok(fill_slot)
    }

    /// KEY = cpu * chunks + the current chunk (bounded).
    fn chunk_key(&mut self, m: RingMaps, cpu_slot: i16, cur_slot: i16) {
        self.a.emit(ldx(Size::DW, R1, FP, cur_slot));
        self.a.emit(ldx(Size::DW, R1, R1, 0));
        let ok = self.a.new_label();
        self.a.jmp_imm_to(Cond::Lt, R1, m.chunks as i32, ok);
        self.a.emit(mov64_imm(R1, 0));
        self.a.bind(ok);
        self.a.emit(ldx(Size::DW, R2, FP, cpu_slot));
        self.a.emit(alu64_imm(Alu::Mul, R2, m.chunks as i32));
        self.a.emit(alu64_reg(Alu::Add, R1, R2));
        self.a.emit(stx(Size::W, FP, stack::KEY, R1));
    }
}
