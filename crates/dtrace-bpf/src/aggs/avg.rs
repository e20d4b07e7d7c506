//! `avg()`: the count and the total; the consumer divides.

use super::*;

pub(super) struct Avg;

impl AggOps for Avg {
    fn words(&self) -> usize {
        2
    }

    fn update(&self, p: &mut ProgGen, value: Option<Temp>, _incr: Option<Temp>, _done: Label) {
        p.a.emit(mov64_imm(R2, 1));
        add_at(p, R0, 0, R2);
        p.load_temp(value.expect("avg() has a value"), R2);
        add_at(p, R0, 8, R2);
    }

    fn merge(&self, cpus: &[&[u8]]) -> AggValue {
        AggValue::Avg {
            count: sum_word(cpus, 0),
            total: sum_word(cpus, 1),
        }
    }
}
