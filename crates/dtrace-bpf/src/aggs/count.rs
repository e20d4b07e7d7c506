//! `count()`: one word, the number of firings (or the sum of increments).

use super::*;

pub(super) struct Count;

impl AggOps for Count {
    fn words(&self) -> usize {
        1
    }

    fn update(&self, p: &mut ProgGen, _value: Option<Temp>, incr: Option<Temp>, _done: Label) {
        load_incr(p, incr);
        add_at(p, R0, 0, R2);
    }

    fn merge(&self, cpus: &[&[u8]]) -> AggValue {
        AggValue::Count(sum_word(cpus, 0))
    }
}
