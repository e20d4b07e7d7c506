//! `min()` and `max()`: the extreme value, and a word saying this CPU has
//! one (so CPUs that never fired do not contribute a zero).

use super::*;

pub(super) struct MinMax {
    pub(super) min: bool,
}

/// Tries a preemptible update makes before it gives way to the updates
/// that kept overtaking it.
const TRIES: usize = 4;

impl MinMax {
    /// The update of a program that may be preempted (sleepable), so
    /// that another may update the same CPU's value meanwhile: the value
    /// is installed by compare-and-exchange, then marked present (a
    /// value not yet marked is replaced, whatever it is).
    fn update_preemptible(&self, p: &mut ProgGen, value: Option<Temp>, done: Label) {
        p.a.emit(mov64_reg(R4, R0));
        for _ in 0..TRIES {
            let again = p.a.new_label();
            let set = p.a.new_label();
            p.load_temp(value.expect("min()/max() have a value"), R2);
            p.a.emit(ldx(Size::DW, R1, R4, 8));
            p.a.emit(ldx(Size::DW, R0, R4, 0));
            p.a.jmp_imm_to(Cond::Eq, R1, 0, set);
            let keep = if self.min { Cond::Sge } else { Cond::Sle };
            p.a.jmp_reg_to(keep, R2, R0, done);
            p.a.bind(set);
            p.a.emit(mov64_reg(R3, R0));
            p.a.emit(atomic_cmpxchg64(R4, 0, R2));
            p.a.jmp_reg_to(Cond::Ne, R0, R3, again);
            p.a.emit(st_imm(Size::DW, R4, 8, 1));
            p.a.ja_to(done);
            p.a.bind(again);
        }
    }
}

impl AggOps for MinMax {
    fn words(&self) -> usize {
        2
    }

    fn update(&self, p: &mut ProgGen, value: Option<Temp>, _incr: Option<Temp>, done: Label) {
        if p.sleepable {
            return self.update_preemptible(p, value, done);
        }
        let set = p.a.new_label();
        p.load_temp(value.expect("min()/max() have a value"), R2);
        p.a.emit(ldx(Size::DW, R1, R0, 8));
        p.a.jmp_imm_to(Cond::Eq, R1, 0, set);
        p.a.emit(ldx(Size::DW, R1, R0, 0));
        let keep = if self.min { Cond::Sge } else { Cond::Sle };
        p.a.jmp_reg_to(keep, R2, R1, done);
        p.a.bind(set);
        p.a.emit(stx(Size::DW, R0, 0, R2));
        p.a.emit(st_imm(Size::DW, R0, 8, 1));
    }

    fn merge(&self, cpus: &[&[u8]]) -> AggValue {
        let best = cpus
            .iter()
            .filter(|c| word(c, 1) != 0)
            .map(|c| word(c, 0))
            .reduce(|a, b| if self.min { a.min(b) } else { a.max(b) })
            .unwrap_or(0);
        if self.min {
            AggValue::Min(best)
        } else {
            AggValue::Max(best)
        }
    }
}
