//! Speculations in the probe: `speculation()` takes a free ID (an atomic
//! INACTIVE-to-ACTIVE exchange on its state word, the IDs tried in turn,
//! on the kernel's number iterator when there are many), `speculate(id)` points the clause's
//! record at the end of the ID's buffer on this CPU (published, by adding
//! its size to the buffer's fill, when the clause ends), and `commit(id)`
//! and `discard(id)` move an active ID to COMMITTING or DISCARDING and
//! leave a record saying so in the principal buffer: the consumer copies
//! out (or drops) the buffers on every CPU and frees the ID at
//! `cleanrate`, so a committing or discarding buffer stays busy until
//! then, as in DTrace.

use dtrace_lang::ir::CExpr;

use crate::asm::Label;
use crate::codegen::{GenError, Temp};
use crate::insn::*;
use crate::plan::{drops, spec, SpecMaps, RECORD_HEADER};
use crate::program::{lock_key, LockKey, ProgGen};

type R<T> = Result<T, GenError>;

/// A discard looks at every CPU's buffer of the ID, one test each, on
/// machines of up to this many CPUs (beyond, discards go through the
/// consumer).
const MAX_UNROLLED_CPUS: u32 = 512;

/// `speculation()` tries each ID in turn with code of its own up to this
/// many IDs, and beyond on the kernel's number iterator where there is
/// one (Linux 6.4)...
const UNROLLED_SPECS: u32 = 8;
/// ... or up to this many where there is none.
const MAX_UNROLLED_SPECS: u32 = 64;

/// `bpf_ringbuf_query`'s flag for the bytes not yet consumed.
const BPF_RB_AVAIL_DATA: i32 = 0;

impl ProgGen<'_, '_> {
    fn spec_maps(&self) -> R<SpecMaps> {
        self.g
            .spec
            .ok_or_else(|| GenError("internal error: speculation maps were not made".into()))
    }

    /// r0 = the state word of the ID in r1 (1..=nspec), or `out` when it
    /// is no ID. Clobbers r1-r5.
    fn spec_state(&mut self, m: SpecMaps, out: crate::asm::Label) {
        self.a.jmp_imm_to(Cond::Eq, R1, 0, out);
        self.a.jmp_imm_to(Cond::Gt, R1, m.nspec as i32, out);
        self.a
            .emit(stx(Size::W, FP, crate::codegen::stack::KEY, R1));
        self.lookup_at_key(m.state, out);
    }

    /// r0 = the element of `map` for the ID in r1 on this CPU, or `out`.
    fn spec_region(&mut self, map: crate::asm::MapId, out: crate::asm::Label) {
        self.a.emit(alu64_imm(Alu::Sub, R1, 1));
        self.a
            .emit(alu64_imm(Alu::Mul, R1, self.g.inp.opts.ncpus.max(1) as i32));
        self.a
            .emit(stx(Size::W, FP, crate::codegen::stack::KEY, R1));
        self.a.emit(call(Helper::GetSmpProcessorId));
        self.a
            .emit(ldx(Size::W, R1, FP, crate::codegen::stack::KEY));
        self.a.emit(alu64_reg(Alu::Add, R1, R0));
        self.a
            .emit(stx(Size::W, FP, crate::codegen::stack::KEY, R1));
        self.lookup_at_key(map, out);
    }

    /// Tries to take the ID in r1 (INACTIVE to ACTIVE): taken, its
    /// number goes to scratch `st + 8` and control to `out`; otherwise to
    /// `next`, with `st + 16` set when it was busy rather than active.
    fn try_claim(&mut self, m: SpecMaps, st: u32, id_slot: i16, next: Label, out: Label) {
        self.stx_at(R9, st + 24, R1, Size::DW);
        self.a.emit(stx(Size::DW, FP, id_slot, R1));
        self.spec_state(m, next);
        self.a.emit(mov64_reg(R1, R0));
        self.a.emit(mov64_imm(R0, spec::INACTIVE));
        self.a.emit(mov64_imm(R2, spec::ACTIVE));
        self.cmpxchg(Size::W, R1, R2, LockKey::Slot(lock_key::SPEC, id_slot));
        let taken = self.a.new_label();
        self.a.jmp_imm_to(Cond::Eq, R0, spec::INACTIVE, taken);
        self.a.jmp_imm_to(Cond::Eq, R0, spec::ACTIVE, next);
        self.st_imm_at(R9, st + 16, 1);
        self.a.ja_to(next);
        self.a.bind(taken);
        self.ldx_at(R1, R9, st + 24, Size::DW);
        self.stx_at(R9, st + 8, R1, Size::DW);
        self.a.ja_to(out);
    }

    /// `speculation()`.
    pub(crate) fn speculation(&mut self) -> R<Temp> {
        let m = self.spec_maps()?;
        // Scratch words: the count of IDs, the ID taken, whether one was
        // busy, the ID being tried.
        let st = self.alloc_buf(32);
        self.st_imm_at(R9, st, m.nspec as i32);
        self.st_imm_at(R9, st + 8, 0);
        self.st_imm_at(R9, st + 16, 0);
        let id = self.alloc_stack();
        let Temp::Stack(id_slot) = id else {
            unreachable!("alloc_stack gives a stack slot")
        };
        let out = self.a.new_label();
        let iter = self
            .g
            .inp
            .opts
            .iter_num
            .filter(|_| m.nspec > UNROLLED_SPECS);
        if let Some(k) = iter {
            let l = self.iter_open(k, st);
            let next = self.a.new_label();
            self.a.emit(alu64_imm(Alu::Add, R0, 1));
            self.a.emit(mov64_reg(R1, R0));
            self.try_claim(m, st, id_slot, next, out);
            self.a.bind(next);
            self.a.ja_to(l.top);
            self.a.bind(l.done);
            self.a.bind(out);
            self.iter_close(&l);
            self.free(l.temp);
        } else {
            if m.nspec > MAX_UNROLLED_SPECS {
                return Err(GenError(format!(
                    "more than {} speculations (nspec) need the kernel's bpf_iter_num kfuncs (Linux 6.4 or later)",
                    MAX_UNROLLED_SPECS
                )));
            }
            for n in 1..=m.nspec {
                let next = self.a.new_label();
                self.a.emit(mov64_imm(R1, n as i32));
                self.try_claim(m, st, id_slot, next, out);
                self.a.bind(next);
            }
            self.a.bind(out);
        }
        self.free(id);
        // None free: counted as DTrace counts them.
        let got = self.a.new_label();
        let busy = self.a.new_label();
        let end = self.a.new_label();
        self.ldx_at(R1, R9, st + 8, Size::DW);
        self.a.jmp_imm_to(Cond::Ne, R1, 0, got);
        self.ldx_at(R1, R9, st + 16, Size::DW);
        self.a.jmp_imm_to(Cond::Ne, R1, 0, busy);
        self.count_drop(drops::SPEC_UNAVAIL);
        self.a.ja_to(end);
        self.a.bind(busy);
        self.count_drop(drops::SPEC_BUSY);
        self.a.ja_to(end);
        self.a.bind(got);
        self.a.bind(end);
        self.ldx_at(R0, R9, st + 8, Size::DW);
        Ok(self.int_result(R0))
    }

    /// `speculate(id)`: r8 = where this clause's `size`-byte record goes
    /// in the ID's buffer on this CPU, its header written; or `skip`
    /// (nothing is recorded: no such ID, not active, or no room, which
    /// is a speculative drop). Returns the stack slot holding the fill
    /// word's address, for `spec_publish`.
    pub(crate) fn speculate(&mut self, id: &CExpr, size: u32, skip: crate::asm::Label) -> R<i16> {
        let m = self.spec_maps()?;
        let t = self.eval_int(id)?;
        let id_temp = self.alloc_stack();
        let Temp::Stack(id_slot) = id_temp else {
            unreachable!("alloc_stack gives a stack slot")
        };
        self.load_temp(t, R1);
        self.free(t);
        self.a.emit(stx(Size::DW, FP, id_slot, R1));
        self.spec_state(m, skip);
        self.a.emit(ldx(Size::W, R1, R0, 0));
        self.a.jmp_imm_to(Cond::Ne, R1, spec::ACTIVE, skip);
        self.a.emit(ldx(Size::DW, R1, FP, id_slot));
        self.spec_region(m.fill, skip);
        let fill = self.alloc_stack();
        let Temp::Stack(slot) = fill else {
            unreachable!("alloc_stack gives a stack slot")
        };
        self.a.emit(stx(Size::DW, FP, slot, R0));
        let room = i64::from(m.specsize) - i64::from(size);
        let fits = self.a.new_label();
        self.a.emit(ldx(Size::DW, R1, R0, 0));
        if room >= 0 {
            self.a.jmp_imm_to(Cond::Le, R1, room as i32, fits);
        }
        self.count_drop(drops::SPECULATIVE);
        self.a.ja_to(skip);
        self.a.bind(fits);
        self.a.emit(ldx(Size::DW, R1, FP, id_slot));
        self.spec_region(m.buf, skip);
        // The fill again, bounded for the verifier, then the address.
        self.a.emit(ldx(Size::DW, R1, FP, slot));
        self.a.emit(ldx(Size::DW, R1, R1, 0));
        self.a.jmp_imm_to(Cond::Gt, R1, room.max(0) as i32, skip);
        self.a.emit(alu64_reg(Alu::Add, R0, R1));
        self.a.emit(mov64_reg(R8, R0));
        self.free(id_temp);
        Ok(slot)
    }

    /// `discard()` of an ID that holds data on this CPU alone frees it at
    /// once, as DTrace does (then to `done`); otherwise falls through to
    /// the consumer's cleaning.
    fn discard_here(&mut self, m: SpecMaps, id_slot: i16, cpu_slot: i16, done: crate::asm::Label) {
        let elsewhere = self.a.new_label();
        self.a.emit(call(Helper::GetSmpProcessorId));
        self.a.emit(stx(Size::DW, FP, cpu_slot, R0));
        for cpu in 0..m.ncpus {
            let next = self.a.new_label();
            self.a.emit(ldx(Size::DW, R1, FP, cpu_slot));
            self.a.jmp_imm_to(Cond::Eq, R1, cpu as i32, next);
            self.a.emit(ldx(Size::DW, R1, FP, id_slot));
            self.a.emit(alu64_imm(Alu::Sub, R1, 1));
            self.a.emit(alu64_imm(Alu::Mul, R1, m.ncpus as i32));
            self.a.emit(alu64_imm(Alu::Add, R1, cpu as i32));
            self.a
                .emit(stx(Size::W, FP, crate::codegen::stack::KEY, R1));
            self.lookup_at_key(m.fill, next);
            self.a.emit(ldx(Size::DW, R1, R0, 0));
            self.a.jmp_imm_to(Cond::Ne, R1, 0, elsewhere);
            self.a.bind(next);
        }
        // Here alone: emptied, then free.
        self.a.emit(ldx(Size::DW, R1, FP, id_slot));
        self.spec_region(m.fill, elsewhere);
        self.a.emit(st_imm(Size::DW, R0, 0, 0));
        self.a.emit(ldx(Size::DW, R1, FP, id_slot));
        self.spec_state(m, done);
        self.a.emit(mov64_reg(R1, R0));
        self.a.emit(mov64_imm(R0, spec::ACTIVE));
        self.a.emit(mov64_imm(R2, spec::INACTIVE));
        self.cmpxchg(Size::W, R1, R2, LockKey::Slot(lock_key::SPEC, id_slot));
        self.a.ja_to(done);
        self.a.bind(elsewhere);
    }

    /// The clause's speculative record is complete: its bytes count.
    pub(crate) fn spec_publish(&mut self, slot: i16, size: u32) {
        self.a.emit(ldx(Size::DW, R1, FP, slot));
        self.a.emit(ldx(Size::DW, R2, R1, 0));
        self.a.emit(alu64_imm(Alu::Add, R2, size as i32));
        self.a.emit(stx(Size::DW, R1, 0, R2));
    }

    /// `commit(id)` or `discard(id)`: an active ID becomes committing or
    /// discarding, and a record tells the consumer. A commit whose data
    /// on this CPU does not fit in the principal buffer's free space is
    /// a drop there, and the ID is discarded instead.
    pub(crate) fn commit_or_discard(&mut self, id: &CExpr, commit: bool) -> R<()> {
        let m = self.spec_maps()?;
        let done = self.a.new_label();
        let t = self.eval_int(id)?;
        // Stack slots: the ID, the operation, a sum, the record.
        let slots: Vec<Temp> = (0..4).map(|_| self.alloc_stack()).collect();
        let slot = |i: usize| match slots[i] {
            Temp::Stack(s) => s,
            Temp::Reg(_) => unreachable!("alloc_stack gives a stack slot"),
        };
        let (id_slot, op_slot, sum_slot, rec_slot) = (slot(0), slot(1), slot(2), slot(3));
        self.load_temp(t, R1);
        self.free(t);
        self.a.emit(stx(Size::DW, FP, id_slot, R1));
        // An ID above nspec is an illegal operation (0 is no speculation).
        let valid = self.a.new_label();
        self.a.jmp_imm_to(Cond::Le, R1, m.nspec as i32, valid);
        let act = self.cur_action;
        self.fault(crate::plan::fault::ILLOP, None, act);
        self.a.bind(valid);
        self.a.emit(ldx(Size::DW, R1, FP, id_slot));
        self.spec_state(m, done);
        self.a.emit(ldx(Size::W, R1, R0, 0));
        self.a.jmp_imm_to(Cond::Ne, R1, spec::ACTIVE, done);
        // The operation: a commit that does not fit is a discard.
        let code = if commit {
            spec::OP_COMMIT
        } else {
            spec::OP_DISCARD
        };
        self.a.emit(st_imm(Size::DW, FP, op_slot, code));
        if !commit && m.ncpus <= MAX_UNROLLED_CPUS {
            self.discard_here(m, id_slot, sum_slot, done);
        }
        if commit {
            let fits = self.a.new_label();
            self.a.emit(ldx(Size::DW, R1, FP, id_slot));
            self.spec_region(m.fill, fits);
            self.a.emit(ldx(Size::DW, R1, R0, 0));
            self.a.emit(stx(Size::DW, FP, sum_slot, R1));
            self.principal_buffer(fits);
            self.a.emit(mov64_imm(R2, BPF_RB_AVAIL_DATA));
            self.a.emit(call(Helper::RingbufQuery));
            self.a.emit(ldx(Size::DW, R1, FP, sum_slot));
            self.a.emit(alu64_reg(Alu::Add, R1, R0));
            crate::codegen::load_imm(
                &mut self.a,
                R2,
                (self.g.inp.opts.bufsize as i64) - i64::from(spec::RECORD_SIZE),
            );
            self.a.jmp_reg_to(Cond::Le, R1, R2, fits);
            self.count_drop(drops::BUFFER);
            self.a.emit(st_imm(Size::DW, FP, op_slot, spec::OP_DISCARD));
            self.a.bind(fits);
        }
        // The record first, so that a full buffer leaves the ID active.
        self.reserve_principal(spec::RECORD_SIZE, done);
        self.a.emit(stx(Size::DW, FP, rec_slot, R0));
        // ACTIVE -> COMMITTING or DISCARDING, unless another CPU did it.
        let lost = self.a.new_label();
        self.a.emit(ldx(Size::DW, R1, FP, id_slot));
        self.spec_state(m, lost);
        self.a.emit(mov64_reg(R1, R0));
        self.a.emit(ldx(Size::DW, R2, FP, op_slot));
        self.a.emit(alu64_imm(Alu::Add, R2, 1));
        self.a.emit(mov64_imm(R0, spec::ACTIVE));
        self.cmpxchg(Size::W, R1, R2, LockKey::Slot(lock_key::SPEC, id_slot));
        self.a.jmp_imm_to(Cond::Ne, R0, spec::ACTIVE, lost);
        self.a.emit(call(Helper::GetSmpProcessorId));
        self.a.emit(ldx(Size::DW, R1, FP, rec_slot));
        self.a.emit(st_imm(Size::W, R1, 0, spec::EPID as i32));
        self.a.emit(stx(Size::W, R1, 4, R0));
        self.a.emit(ldx(Size::DW, R2, FP, id_slot));
        self.a.emit(stx(Size::W, R1, RECORD_HEADER as i16, R2));
        self.a.emit(ldx(Size::DW, R2, FP, op_slot));
        self.a.emit(stx(Size::W, R1, RECORD_HEADER as i16 + 4, R2));
        self.a.emit(mov64_imm(R2, 0));
        self.a.emit(call(Helper::RingbufSubmit));
        self.a.ja_to(done);
        self.a.bind(lost);
        self.a.emit(ldx(Size::DW, R1, FP, rec_slot));
        self.a.emit(mov64_imm(R2, 0));
        self.a.emit(call(Helper::RingbufDiscard));
        self.a.bind(done);
        for t in slots {
            self.free(t);
        }
        Ok(())
    }
}
