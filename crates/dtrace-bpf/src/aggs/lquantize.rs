//! `lquantize()`: linear buckets of `step` from `base` up to `limit`, with
//! an underflow and an overflow bucket.

use dtrace_lang::ir::lquantize_levels;

use super::*;

pub(super) struct Lquantize {
    base: i32,
    step: u16,
    levels: usize,
}

impl Lquantize {
    pub(super) fn new(base: i32, limit: i32, step: u16) -> Self {
        Lquantize {
            base,
            step,
            levels: lquantize_levels(base, limit, step),
        }
    }
}

impl AggOps for Lquantize {
    fn words(&self) -> usize {
        self.levels + 3
    }

    fn update(&self, p: &mut ProgGen, value: Option<Temp>, incr: Option<Temp>, _done: Label) {
        let value = value.expect("lquantize() has a value");
        p.load_temp(value, R2);
        let levels = self.levels as i32;
        let base = self.base;
        let top = i64::from(base) + i64::from(levels) * i64::from(self.step);
        let under = p.a.new_label();
        let over = p.a.new_label();
        let ok = p.a.new_label();
        // DTrace compares the value as a 32-bit integer.
        p.a.emit(alu64_imm(Alu::Lsh, R2, 32));
        p.a.emit(alu64_imm(Alu::Arsh, R2, 32));
        p.a.jmp_imm_to(Cond::Slt, R2, base, under);
        crate::codegen::load_imm(&mut p.a, R4, top);
        p.a.jmp_reg_to(Cond::Sge, R2, R4, over);
        p.a.emit(mov64_reg(R3, R2));
        p.a.emit(alu64_imm(Alu::Sub, R3, base));
        p.a.emit(alu64_imm(Alu::Div, R3, i32::from(self.step)));
        p.a.emit(alu64_imm(Alu::Add, R3, 1));
        p.a.ja_to(ok);
        p.a.bind(under);
        p.a.emit(mov64_imm(R3, 0));
        p.a.ja_to(ok);
        p.a.bind(over);
        p.a.emit(mov64_imm(R3, levels + 1));
        p.a.bind(ok);
        bump_bucket_and_sum(p, levels + 1, value, incr);
    }

    fn merge(&self, cpus: &[&[u8]]) -> AggValue {
        let n = self.levels + 2;
        let base = i64::from(self.base);
        let step = i64::from(self.step);
        let bound = |i: usize| {
            if i == 0 {
                Bound::Below(base)
            } else if i == n - 1 {
                Bound::AtLeast(base + self.levels as i64 * step)
            } else {
                Bound::From(base + (i as i64 - 1) * step)
            }
        };
        dist_of(cpus, (0..n).map(bound), (0, 2.min(n - 1)))
    }
}
