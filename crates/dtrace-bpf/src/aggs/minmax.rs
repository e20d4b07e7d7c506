//! `min()` and `max()`: the extreme value, and a word saying this CPU has
//! one (so CPUs that never fired do not contribute a zero).

use super::*;

pub(super) struct MinMax {
    pub(super) min: bool,
}

impl AggOps for MinMax {
    fn words(&self) -> usize {
        2
    }

    fn update(&self, p: &mut ProgGen, value: Option<Temp>, _incr: Option<Temp>, done: Label) {
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
