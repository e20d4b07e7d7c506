//! `sum()`: one word, the running total.

use super::*;

pub(super) struct Sum;

impl AggOps for Sum {
    fn words(&self) -> usize {
        1
    }

    fn update(&self, p: &mut ProgGen, value: Option<Temp>, _incr: Option<Temp>, _done: Label) {
        p.load_temp(value.expect("sum() has a value"), R2);
        add_at(p, R0, 0, R2);
    }

    fn merge(&self, cpus: &[&[u8]]) -> AggValue {
        AggValue::Sum(sum_word(cpus, 0))
    }
}
