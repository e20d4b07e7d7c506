//! `quantize()`: power-of-two buckets, 63 negative, zero, 63 positive.

use std::cmp::Ordering;

use dtrace_lang::ir::{QUANTIZE_BUCKETS, QUANTIZE_ZERO};

use super::*;

pub(super) struct Quantize;

impl AggOps for Quantize {
    fn words(&self) -> usize {
        QUANTIZE_BUCKETS + 1
    }

    fn update(&self, p: &mut ProgGen, value: Option<Temp>, incr: Option<Temp>, _done: Label) {
        let value = value.expect("quantize() has a value");
        p.load_temp(value, R2);
        let pos = p.a.new_label();
        let zero = p.a.new_label();
        let ok = p.a.new_label();
        p.a.jmp_imm_to(Cond::Sgt, R2, 0, pos);
        p.a.jmp_imm_to(Cond::Eq, R2, 0, zero);
        p.a.emit(mov64_reg(R4, R2));
        p.a.emit(neg64(R4));
        log2_r4_into_r5(p);
        p.a.emit(mov64_imm(R3, (QUANTIZE_ZERO - 1) as i32));
        p.a.emit(alu64_reg(Alu::Sub, R3, R5));
        p.a.jmp_imm_to(Cond::Sge, R3, 0, ok);
        p.a.emit(mov64_imm(R3, 0));
        p.a.ja_to(ok);
        p.a.bind(zero);
        p.a.emit(mov64_imm(R3, QUANTIZE_ZERO as i32));
        p.a.ja_to(ok);
        p.a.bind(pos);
        p.a.emit(mov64_reg(R4, R2));
        log2_r4_into_r5(p);
        p.a.emit(mov64_imm(R3, (QUANTIZE_ZERO + 1) as i32));
        p.a.emit(alu64_reg(Alu::Add, R3, R5));
        p.a.bind(ok);
        bump_bucket_and_sum(p, (QUANTIZE_BUCKETS - 1) as i32, value, incr);
    }

    fn merge(&self, cpus: &[&[u8]]) -> AggValue {
        dist_of(
            cpus,
            (0..QUANTIZE_BUCKETS).map(|i| Bound::From(quantize_bucket_value(i))),
            (QUANTIZE_ZERO - 1, QUANTIZE_ZERO + 1),
        )
    }
}

/// r5 = floor(log2(r4)) for r4 > 0 (unsigned); clobbers r1 and r4.
fn log2_r4_into_r5(p: &mut ProgGen) {
    p.a.emit(mov64_imm(R5, 0));
    for s in [32, 16, 8, 4, 2, 1] {
        let skip = p.a.new_label();
        p.a.emit(mov64_reg(R1, R4));
        p.a.emit(alu64_imm(Alu::Rsh, R1, s));
        p.a.jmp_imm_to(Cond::Eq, R1, 0, skip);
        p.a.emit(mov64_reg(R4, R1));
        p.a.emit(alu64_imm(Alu::Add, R5, s));
        p.a.bind(skip);
    }
}

/// The value a power-of-two bucket stands for.
pub fn quantize_bucket_value(i: usize) -> i64 {
    match i.cmp(&QUANTIZE_ZERO) {
        Ordering::Less => -(1i64 << (QUANTIZE_ZERO - 1 - i)),
        Ordering::Equal => 0,
        Ordering::Greater => 1i64 << (i - QUANTIZE_ZERO - 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_values() {
        assert_eq!(quantize_bucket_value(QUANTIZE_ZERO), 0);
        assert_eq!(quantize_bucket_value(QUANTIZE_ZERO + 1), 1);
        assert_eq!(quantize_bucket_value(QUANTIZE_ZERO + 2), 2);
        assert_eq!(quantize_bucket_value(QUANTIZE_ZERO - 1), -1);
        assert_eq!(quantize_bucket_value(0), -(1 << 62));
    }
}
