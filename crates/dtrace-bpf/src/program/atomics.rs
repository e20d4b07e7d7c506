//! Compare-and-exchange on a word of a map value: the activity state
//! (exit() and the `fill` policy), the tick gates and the speculations'
//! states. Kernels from 5.12 have the instruction; before, a probe
//! cannot make two CPUs agree with arithmetic alone (the old atomic add
//! returns nothing), but a hash map insertion with `BPF_NOEXIST` is
//! atomic under the kernel's bucket lock. So there the exchange is made
//! under a try-lock: the word's key inserted in the lock map (which
//! fails, and the exchange with it, while another CPU or the consumer
//! holds it), the word compared and stored, the key deleted. A probe
//! never waits; the consumer, which may, takes the same lock for what it
//! writes to those words (`GenOptions::atomics`, [`lock_key`]).

use super::*;

/// The keys of the lock map: the words a compare-and-exchange may change.
pub mod lock_key {
    /// The state map's word at this byte offset (0: the activity state;
    /// then the tick gates).
    pub const STATE: u32 = 0;
    /// Speculation ID `n`'s state word is `SPEC + n`.
    pub const SPEC: u32 = 1 << 16;
}

/// What the emulated compare-and-exchange leaves in r0 when it could not
/// take the word's lock: no word holds it, so it compares unequal to any
/// expected value.
pub const LOCK_BUSY: i32 = -1;

/// Which word of the lock map an exchange locks.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LockKey {
    Const(u32),
    /// `base` plus the u64 in this stack slot.
    Slot(u32, i16),
}

impl ProgGen<'_, '_> {
    /// If the `size` word at `ptr` equals r0, stores `new` there; r0 is
    /// left with the word's old value (zero-extended), or [`LOCK_BUSY`].
    /// `ptr` and `new` are kept; r1-r5 are not.
    pub(crate) fn cmpxchg(&mut self, size: Size, ptr: Reg, new: Reg, key: LockKey) {
        let Some(lock) = self.g.m_lock else {
            self.a.emit(match size {
                Size::W => atomic_cmpxchg32(ptr, 0, new),
                _ => atomic_cmpxchg64(ptr, 0, new),
            });
            return;
        };
        let slots: Vec<Temp> = (0..3).map(|_| self.alloc_stack()).collect();
        let slot = |i: usize| match slots[i] {
            Temp::Stack(s) => s,
            Temp::Reg(_) => unreachable!("alloc_stack gives a stack slot"),
        };
        let (s_ptr, s_old, s_new) = (slot(0), slot(1), slot(2));
        self.a.emit(stx(Size::DW, FP, s_ptr, ptr));
        self.a.emit(stx(Size::DW, FP, s_old, R0));
        self.a.emit(stx(Size::DW, FP, s_new, new));
        match key {
            LockKey::Const(k) => self.a.emit(st_imm(Size::W, FP, stack::KEY, k as i32)),
            LockKey::Slot(base, s) => {
                self.a.emit(ldx(Size::DW, R1, FP, s));
                self.a.emit(alu64_imm(Alu::Add, R1, base as i32));
                self.a.emit(stx(Size::W, FP, stack::KEY, R1));
            }
        }
        self.a.emit(st_imm(Size::DW, FP, stack::VALUE, 0));
        self.a.ld_map_fd(R1, lock);
        self.a.emit(mov64_reg(R2, FP));
        self.a.emit(alu64_imm(Alu::Add, R2, i32::from(stack::KEY)));
        self.a.emit(mov64_reg(R3, FP));
        self.a
            .emit(alu64_imm(Alu::Add, R3, i32::from(stack::VALUE)));
        self.a.emit(mov64_imm(R4, 1)); // BPF_NOEXIST
        self.a.emit(call(Helper::MapUpdateElem));
        let locked = self.a.new_label();
        let end = self.a.new_label();
        self.a.jmp_imm_to(Cond::Eq, R0, 0, locked);
        self.a.emit(mov64_imm(R0, LOCK_BUSY));
        self.a.ja_to(end);
        self.a.bind(locked);
        let unlock = self.a.new_label();
        self.a.emit(ldx(Size::DW, R1, FP, s_ptr));
        self.a.emit(ldx(size, R0, R1, 0));
        self.a.emit(ldx(Size::DW, R2, FP, s_old));
        self.a.emit(stx(Size::DW, FP, s_old, R0));
        self.a.jmp_reg_to(Cond::Ne, R0, R2, unlock);
        self.a.emit(ldx(Size::DW, R2, FP, s_new));
        self.a.emit(stx(size, R1, 0, R2));
        self.a.bind(unlock);
        self.a.ld_map_fd(R1, lock);
        self.a.emit(mov64_reg(R2, FP));
        self.a.emit(alu64_imm(Alu::Add, R2, i32::from(stack::KEY)));
        self.a.emit(call(Helper::MapDeleteElem));
        self.a.emit(ldx(Size::DW, R0, FP, s_old));
        self.a.bind(end);
        self.a.emit(ldx(Size::DW, ptr, FP, s_ptr));
        self.a.emit(ldx(Size::DW, new, FP, s_new));
        for t in slots {
            self.free(t);
        }
    }
}
