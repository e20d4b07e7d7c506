//! `llquantize()`: log-linear buckets. Each order of magnitude of `factor`
//! from `low` to `high` is split into at most `nsteps` linear buckets (the
//! lower part of each order being the previous one's), with an underflow
//! bucket below `factor^low` and an overflow bucket at `factor^(high+1)`.
//! The parameters are constants, so the orders are worked out here and
//! the probe's code is a test per order.

use super::*;

pub(super) struct Llquantize {
    orders: Vec<Order>,
    bottom: i64,
    buckets: Vec<Bound>,
}

/// One order of magnitude: values in `[last, this)` go to bucket
/// `base + (v - last) / width`.
struct Order {
    last: i64,
    this: i64,
    base: i64,
    width: i64,
    /// `this * factor` overflows: larger values are clamped into it.
    clamp: bool,
}

impl Llquantize {
    pub(super) fn new(factor: u16, low: u16, high: u16, nsteps: u16) -> Self {
        let f = i64::from(factor.max(2));
        let nsteps = i64::from(nsteps.max(1));
        let mut this: i64 = 1;
        for _ in 0..low {
            this = this.saturating_mul(f);
        }
        let bottom = this;
        let mut last = this;
        this = this.saturating_mul(f);
        let mut base = 1i64;
        let mut orders = Vec::new();
        for _ in low..=high {
            let nbuckets = this.min(nsteps);
            let next = this.checked_mul(f);
            orders.push(Order {
                last,
                this,
                base,
                width: (this / nbuckets).max(1),
                clamp: next.is_none(),
            });
            base += nbuckets - nbuckets / f;
            last = this;
            match next {
                Some(n) => this = n,
                None => break,
            }
        }
        Llquantize {
            buckets: llquantize_buckets(factor, low, high, nsteps as u16),
            orders,
            bottom,
        }
    }
}

impl AggOps for Llquantize {
    fn words(&self) -> usize {
        self.buckets.len() + 1
    }

    fn update(&self, p: &mut ProgGen, value: Option<Temp>, incr: Option<Temp>, _done: Label) {
        let value = value.expect("llquantize() has a value");
        p.load_temp(value, R2);
        let ok = p.a.new_label();
        let next = p.a.new_label();
        p.a.emit(mov64_imm(R3, 0));
        crate::codegen::load_imm(&mut p.a, R4, self.bottom);
        p.a.jmp_reg_to(Cond::Slt, R2, R4, ok);
        for o in &self.orders {
            crate::codegen::load_imm(&mut p.a, R4, o.this);
            if o.clamp {
                let inside = p.a.new_label();
                p.a.jmp_reg_to(Cond::Slt, R2, R4, inside);
                p.a.emit(mov64_reg(R2, R4));
                p.a.emit(alu64_imm(Alu::Sub, R2, 1));
                p.a.bind(inside);
            }
            let skip = p.a.new_label();
            p.a.jmp_reg_to(Cond::Sge, R2, R4, skip);
            p.a.emit(mov64_reg(R3, R2));
            crate::codegen::load_imm(&mut p.a, R4, o.last);
            p.a.emit(alu64_reg(Alu::Sub, R3, R4));
            crate::codegen::load_imm(&mut p.a, R4, o.width);
            p.a.emit(alu64_reg(Alu::Div, R3, R4));
            p.a.emit(alu64_imm(Alu::Add, R3, o.base as i32));
            p.a.ja_to(ok);
            p.a.bind(skip);
        }
        p.a.bind(next);
        p.a.emit(mov64_imm(R3, self.buckets.len() as i32 - 1));
        p.a.bind(ok);
        bump_bucket_and_sum(p, self.buckets.len() as i32 - 1, value, incr);
    }

    fn merge(&self, cpus: &[&[u8]]) -> AggValue {
        dist_of(cpus, self.buckets.iter().copied(), (0, 1))
    }
}

/// The buckets of an llquantize() with these parameters, as DTrace labels
/// them: `< factor^low`, then each step of each order, then `>=` the top.
pub fn llquantize_buckets(factor: u16, low: u16, high: u16, nsteps: u16) -> Vec<Bound> {
    let f = i64::from(factor.max(2));
    let nsteps = i64::from(nsteps.max(1));
    let mut value: i64 = 1;
    for _ in 0..low {
        value = value.saturating_mul(f);
    }
    let mut out = vec![Bound::Below(value)];
    let mut next = value.saturating_mul(f);
    let mut step = if next > nsteps { next / nsteps } else { 1 };
    let mut order = low;
    while order <= high {
        out.push(Bound::From(value));
        value = value.saturating_add(step);
        if value < next {
            continue;
        }
        next = value.saturating_mul(f);
        step = if next > nsteps { next / nsteps } else { 1 };
        order += 1;
    }
    out.push(Bound::AtLeast(value));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bucket DTrace's kernel picks, written as DTrace's loop is.
    fn reference(factor: i64, low: u32, high: u32, nsteps: i64, mut value: i64) -> usize {
        let mut this: i64 = 1;
        for _ in 0..low {
            this *= factor;
        }
        if value < this {
            return 0;
        }
        let mut last = this;
        this *= factor;
        let mut base = 1;
        for _ in low..=high {
            let nbuckets = this.min(nsteps);
            let next = this.checked_mul(factor);
            if next.is_none() {
                value = value.min(this - 1);
            }
            if value < this {
                return (base + (value - last) / (this / nbuckets)) as usize;
            }
            base += nbuckets - nbuckets / factor;
            last = this;
            this = next.unwrap_or(this);
        }
        base as usize
    }

    #[test]
    fn buckets_agree_with_labels() {
        for &(f, lo, hi, n) in &[(10u16, 0u16, 6u16, 20u16), (2, 0, 4, 4), (10, 1, 3, 10)] {
            let b = llquantize_buckets(f, lo, hi, n);
            for v in [
                -5i64, 0, 1, 5, 9, 10, 11, 55, 99, 100, 150, 999, 1000, 12345, 9_999_999,
            ] {
                let i = reference(f.into(), lo.into(), hi.into(), n.into(), v);
                assert!(i < b.len(), "{} -> {} of {}", v, i, b.len());
                let ok = match b[i] {
                    Bound::Below(x) => v < x,
                    Bound::From(x) => {
                        v >= x
                            && b.get(i + 1).map_or(true, |n| match n {
                                Bound::From(y) | Bound::AtLeast(y) => v < *y,
                                Bound::Below(_) => false,
                            })
                    }
                    Bound::AtLeast(x) => v >= x,
                };
                assert!(ok, "{:?}: {} in bucket {} {:?}", (f, lo, hi, n), v, i, b[i]);
            }
        }
        let b = llquantize_buckets(10, 0, 6, 20);
        assert_eq!(b[0], Bound::Below(1));
        assert_eq!(b[1], Bound::From(1));
        assert_eq!(b[10], Bound::From(10));
        assert_eq!(b[11], Bound::From(15));
        assert_eq!(*b.last().unwrap(), Bound::AtLeast(10_000_000));
    }
}
