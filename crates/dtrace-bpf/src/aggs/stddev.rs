//! `stddev()`: the count, the total and the sum of the squares as a 128-bit
//! number (low word, high word), as DTrace keeps them; the consumer takes
//! the integer square root of the mean square less the squared mean.

use super::*;

pub(super) struct Stddev;

impl AggOps for Stddev {
    fn words(&self) -> usize {
        4
    }

    fn update(&self, p: &mut ProgGen, value: Option<Temp>, _incr: Option<Temp>, _done: Label) {
        p.load_temp(value.expect("stddev() has a value"), R2);
        p.a.emit(mov64_imm(R3, 1));
        add_at(p, R0, 0, R3);
        add_at(p, R0, 8, R2);
        // r4 = |v|, split into 32-bit halves: r3 = hi, r5 = lo.
        let pos = p.a.new_label();
        p.a.emit(mov64_reg(R4, R2));
        p.a.jmp_imm_to(Cond::Sge, R4, 0, pos);
        p.a.emit(neg64(R4));
        p.a.bind(pos);
        p.a.emit(mov64_reg(R3, R4));
        p.a.emit(alu64_imm(Alu::Rsh, R3, 32));
        p.a.emit(mov64_reg(R5, R4));
        p.a.emit(alu64_imm(Alu::Lsh, R5, 32));
        p.a.emit(alu64_imm(Alu::Rsh, R5, 32));
        // |v|^2 = hi*hi << 64 + lo*hi << 33 + lo*lo.
        p.a.emit(mov64_reg(R4, R5));
        p.a.emit(alu64_reg(Alu::Mul, R4, R3)); // lo*hi
        p.a.emit(alu64_reg(Alu::Mul, R5, R5)); // lo*lo
        p.a.emit(alu64_reg(Alu::Mul, R3, R3)); // hi*hi
        p.a.emit(mov64_reg(R1, R4));
        p.a.emit(alu64_imm(Alu::Lsh, R1, 33));
        p.a.emit(alu64_reg(Alu::Add, R5, R1));
        let no_carry = p.a.new_label();
        p.a.jmp_reg_to(Cond::Ge, R5, R1, no_carry);
        p.a.emit(alu64_imm(Alu::Add, R3, 1));
        p.a.bind(no_carry);
        p.a.emit(alu64_imm(Alu::Rsh, R4, 31));
        p.a.emit(alu64_reg(Alu::Add, R3, R4));
        // Add (r3:r5) to words 3:2 (the low word's old value fetched
        // atomically in a program that may be preempted, so that the
        // carry is the one its own addition made).
        if p.sleepable {
            p.a.emit(mov64_reg(R1, R5));
            p.a.emit(atomic_fetch_add64(R0, 16, R1));
            p.a.emit(alu64_reg(Alu::Add, R1, R5));
        } else {
            p.a.emit(ldx(Size::DW, R1, R0, 16));
            p.a.emit(alu64_reg(Alu::Add, R1, R5));
            p.a.emit(stx(Size::DW, R0, 16, R1));
        }
        let no_carry = p.a.new_label();
        p.a.jmp_reg_to(Cond::Ge, R1, R5, no_carry);
        p.a.emit(alu64_imm(Alu::Add, R3, 1));
        p.a.bind(no_carry);
        add_at(p, R0, 24, R3);
    }

    fn merge(&self, cpus: &[&[u8]]) -> AggValue {
        let sumsq = cpus.iter().fold(0u128, |a, c| {
            let lo = word(c, 2) as u64 as u128;
            let hi = word(c, 3) as u64 as u128;
            a.wrapping_add(hi << 64 | lo)
        });
        AggValue::Stddev {
            count: sum_word(cpus, 0),
            total: sum_word(cpus, 1),
            sumsq,
        }
    }
}

/// The standard deviation DTrace prints: sqrt(mean of the squares - the
/// square of the mean) in integers, the squares divided by `normal`
/// twice and the mean by `normal` once.
pub fn stddev(count: i64, total: i64, sumsq: u128, normal: u64) -> u64 {
    if count == 0 {
        return 0;
    }
    let normal = u128::from(normal.max(1));
    let mean_sq = sumsq / normal / normal / (count as u64 as u128);
    let mean = (total / normal.min(i64::MAX as u128) as i64).wrapping_div(count);
    let sq_mean = u128::from(mean.unsigned_abs()) * u128::from(mean.unsigned_abs());
    isqrt(mean_sq.wrapping_sub(sq_mean))
}

/// floor(sqrt(n)), bit by bit.
fn isqrt(n: u128) -> u64 {
    let mut rem = n;
    let mut root: u128 = 0;
    let mut bit: u128 = 1 << 126;
    while bit > rem {
        bit >>= 2;
    }
    while bit != 0 {
        if rem >= root + bit {
            rem -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    root as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_standard_deviation() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, deviation 2.
        let v = [2i64, 4, 4, 4, 5, 5, 7, 9];
        let sq: u128 = v.iter().map(|x| (x * x) as u128).sum();
        assert_eq!(stddev(8, v.iter().sum(), sq, 1), 2);
        assert_eq!(stddev(0, 0, 0, 1), 0);
        assert_eq!(isqrt(99), 9);
        assert_eq!(isqrt(u64::MAX as u128 * u64::MAX as u128), u64::MAX);
    }
}
