//! Aggregating functions, one module each: the 64-bit words a key holds on
//! each CPU, the code a probe runs to update them, and the merge of the
//! CPUs' words into the value the consumer prints (`AggValue`). The checker
//! (`dtrace_lang::check::actions`) validates a function's constant
//! parameters and names it with an `AggFunc`; everything after that is
//! here, reached through `ops()`. Printing is generic over `AggValue`: a
//! scalar, or a `Distribution` whose buckets carry their own labels.
//!
//! Storage: the aggregations of a program share per-CPU hashes by the size
//! of their values (`size_class`), each key prefixed by the aggregation's
//! id, so a program may hold hundreds of aggregations with a handful of
//! maps (DTrace's single aggregation buffer, in BPF's terms).

mod avg;
mod count;
mod llquantize;
mod lquantize;
mod minmax;
mod quantize;
mod stddev;
mod sum;

use dtrace_lang::ir::AggFunc;

use crate::asm::Label;
use crate::codegen::Temp;
use crate::insn::*;
use crate::program::ProgGen;

pub use llquantize::llquantize_buckets;
pub use quantize::quantize_bucket_value;
pub use stddev::stddev;

/// What each aggregating function provides.
pub(crate) trait AggOps {
    /// 64-bit words of per-CPU data for one key.
    fn words(&self) -> usize;
    /// Updates this CPU's words, whose address is in r0. `value` is the
    /// function's argument, `incr` the optional increment; `done` is the
    /// label after the update. May clobber r1-r5.
    fn update(&self, p: &mut ProgGen, value: Option<Temp>, incr: Option<Temp>, done: Label);
    /// Merges the CPUs' words (each slice at least `words() * 8` bytes).
    fn merge(&self, cpus: &[&[u8]]) -> AggValue;
}

/// The operations of one aggregating function.
pub(crate) fn ops(f: AggFunc) -> Box<dyn AggOps> {
    match f {
        AggFunc::Count => Box::new(count::Count),
        AggFunc::Sum => Box::new(sum::Sum),
        AggFunc::Min => Box::new(minmax::MinMax { min: true }),
        AggFunc::Max => Box::new(minmax::MinMax { min: false }),
        AggFunc::Avg => Box::new(avg::Avg),
        AggFunc::Stddev => Box::new(stddev::Stddev),
        AggFunc::Quantize => Box::new(quantize::Quantize),
        AggFunc::Lquantize { base, limit, step } => {
            Box::new(lquantize::Lquantize::new(base, limit, step))
        }
        AggFunc::Llquantize {
            factor,
            low,
            high,
            nsteps,
        } => Box::new(llquantize::Llquantize::new(factor, low, high, nsteps)),
    }
}

/// Bytes of per-CPU data for one key of `f`.
pub fn value_size(f: AggFunc) -> u32 {
    ops(f).words() as u32 * 8
}

/// The value size of the shared map an aggregation of `f` lives in: its
/// own size rounded up to a power of two, so the aggregations of a
/// program need at most a handful of maps.
pub fn size_class(f: AggFunc) -> u32 {
    value_size(f).next_power_of_two()
}

/// Merges one key's per-CPU words.
pub fn merge(f: AggFunc, cpus: &[&[u8]]) -> AggValue {
    ops(f).merge(cpus)
}

/// Word `i` of one CPU's data (0 past the end).
pub(crate) fn word(cpu: &[u8], i: usize) -> i64 {
    cpu.get(8 * i..8 * i + 8)
        .map(|s| i64::from_ne_bytes(s.try_into().expect("8 bytes")))
        .unwrap_or(0)
}

/// The sum over CPUs of word `i`.
pub(crate) fn sum_word(cpus: &[&[u8]], i: usize) -> i64 {
    cpus.iter().fold(0i64, |a, c| a.wrapping_add(word(c, i)))
}

/// `*(u64 *)(base + off) += r` on this CPU's copy: no atomics needed
/// (per-CPU data, and a program is not preempted on its CPU), except in a
/// sleepable program, which may be. Clobbers r1.
pub(crate) fn add_at(p: &mut ProgGen, base: Reg, off: i16, r: Reg) {
    if p.sleepable {
        p.a.emit(atomic_add64(base, off, r));
        return;
    }
    p.a.emit(ldx(Size::DW, R1, base, off));
    p.a.emit(alu64_reg(Alu::Add, R1, r));
    p.a.emit(stx(Size::DW, base, off, R1));
}

/// r2 = the increment (1 without one).
pub(crate) fn load_incr(p: &mut ProgGen, incr: Option<Temp>) {
    match incr {
        Some(t) => p.load_temp(t, R2),
        None => p.a.emit(mov64_imm(R2, 1)),
    }
}

/// Adds the increment to bucket r3 of the words at r0, r3 first bounded
/// by `max` (the verifier's proof that the store is in the value).
pub(crate) fn bump_bucket(p: &mut ProgGen, max: i32, incr: Option<Temp>) {
    let inb = p.a.new_label();
    p.a.jmp_imm_to(Cond::Le, R3, max, inb);
    p.a.emit(mov64_imm(R3, max));
    p.a.bind(inb);
    p.a.emit(alu64_imm(Alu::Lsh, R3, 3));
    p.a.emit(alu64_reg(Alu::Add, R0, R3));
    load_incr(p, incr);
    add_at(p, R0, 0, R2);
}

/// Adds the increment to bucket r3 of a distribution's words at r0 (the
/// buckets follow word 0) and, where the options keep it
/// (`GenOptions::dist_sums`), `value` times the increment to word 0, the
/// sum of the values (which the metrics endpoint's histograms report).
/// May clobber r1-r5.
pub(crate) fn bump_bucket_and_sum(p: &mut ProgGen, max: i32, value: Temp, incr: Option<Temp>) {
    if !p.g.inp.opts.dist_sums {
        p.a.emit(alu64_imm(Alu::Add, R0, 8));
        bump_bucket(p, max, incr);
        return;
    }
    p.a.emit(mov64_reg(R5, R0));
    p.a.emit(alu64_imm(Alu::Add, R0, 8));
    bump_bucket(p, max, incr);
    p.load_temp(value, R4);
    if let Some(t) = incr {
        p.load_temp(t, R2);
        p.a.emit(alu64_reg(Alu::Mul, R4, R2));
    }
    add_at(p, R5, 0, R4);
}

/// The buckets of a distribution's words (those after its sum, word 0),
/// with their bounds.
pub(crate) fn dist_of(
    cpus: &[&[u8]],
    bounds: impl Iterator<Item = Bound>,
    empty_rows: (usize, usize),
) -> AggValue {
    AggValue::Dist(Distribution {
        buckets: bounds
            .enumerate()
            .map(|(i, bound)| Bucket {
                bound,
                count: sum_word(cpus, i + 1),
            })
            .collect(),
        empty_rows,
        sum: sum_word(cpus, 0),
    })
}

/// An aggregation's merged value for one key.
///
/// ```
/// # use dtrace_bpf::aggs::AggValue;
/// let v = AggValue::Avg { count: 4, total: 10 };
/// if let AggValue::Avg { count, total } = v {
///     assert_eq!(total / count, 2); // as avg() prints it
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AggValue {
    /// count()
    Count(i64),
    /// sum()
    Sum(i64),
    /// min()
    Min(i64),
    /// max()
    Max(i64),
    /// avg(): how many values, and their total.
    Avg {
        /// How many values.
        count: i64,
        /// Their total.
        total: i64,
    },
    /// Count, sum, and the 128-bit sum of squares, as DTrace keeps them.
    Stddev {
        /// How many values.
        count: i64,
        /// Their total.
        total: i64,
        /// The sum of their squares.
        sumsq: u128,
    },
    /// quantize(), lquantize() or llquantize().
    Dist(Distribution),
}

/// A distribution: its buckets in order, with labels.
///
/// ```
/// # use dtrace_bpf::aggs::{Bound, Bucket, Distribution};
/// let d = Distribution {
///     buckets: vec![Bucket { bound: Bound::From(1), count: 3 }, Bucket { bound: Bound::From(2), count: 1 }],
///     empty_rows: (0, 0),
///     sum: 5, // 1 + 1 + 1 + 2
/// };
/// for b in &d.buckets {
///     println!("{:>10} | {}", b.bound.label(), b.count);
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Distribution {
    /// The buckets, lowest first.
    pub buckets: Vec<Bucket>,
    /// The rows printed when no bucket has data (DTrace shows the
    /// neighbourhood of the zero bucket, or the first rows).
    pub empty_rows: (usize, usize),
    /// The sum of the values counted (each times its increment).
    pub sum: i64,
}

/// One bucket of a distribution: what it holds and how many.
///
/// ```
/// # use dtrace_bpf::aggs::{Bound, Bucket};
/// let b = Bucket { bound: Bound::AtLeast(1024), count: 2 };
/// assert_eq!(b.bound.label(), ">= 1024");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bucket {
    /// The values it holds.
    pub bound: Bound,
    /// How many values fell in it.
    pub count: i64,
}

/// What a bucket holds: values below a bound (the underflow bucket), from
/// a value up to the next bucket's, or at least a value (the overflow
/// bucket).
///
/// ```
/// # use dtrace_bpf::aggs::Bound;
/// assert_eq!(Bound::Below(0).label(), "< 0");
/// assert_eq!(Bound::From(8).value(), 8);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Values below this one (lquantize's underflow).
    Below(i64),
    /// Values from this one up to the next bucket's.
    From(i64),
    /// This value and above (lquantize's overflow).
    AtLeast(i64),
}

impl Bound {
    /// The lowest value the bucket holds (for `%@` and sorting).
    ///
    /// ```
    /// # use dtrace_bpf::aggs::Bound;
    /// assert_eq!(Bound::Below(0).value(), -1);
    /// ```
    pub fn value(self) -> i64 {
        match self {
            Bound::Below(v) => v.saturating_sub(1),
            Bound::From(v) | Bound::AtLeast(v) => v,
        }
    }

    /// The label DTrace prints in the value column.
    ///
    /// ```
    /// # use dtrace_bpf::aggs::Bound;
    /// assert_eq!(Bound::From(16).label(), "16");
    /// ```
    pub fn label(self) -> String {
        match self {
            Bound::Below(v) => format!("< {}", v),
            Bound::From(v) => v.to_string(),
            Bound::AtLeast(v) => format!(">= {}", v),
        }
    }
}

impl AggValue {
    /// The scalar DTrace sorts by.
    pub fn scalar(&self) -> i64 {
        match self {
            AggValue::Count(v) | AggValue::Sum(v) | AggValue::Min(v) | AggValue::Max(v) => *v,
            AggValue::Avg { count, total } => {
                if *count == 0 {
                    0
                } else {
                    total.wrapping_div(*count)
                }
            }
            AggValue::Stddev { .. } => self.normalized(1),
            AggValue::Dist(d) => d.buckets.iter().fold(0i64, |a, b| {
                a.wrapping_add(b.bound.value().wrapping_mul(b.count))
            }),
        }
    }

    /// What DTrace sorts by, exactly: a distribution by the sum of its
    /// buckets' values times their counts, which DTrace adds as long
    /// doubles (dt_aggregate_quantizedsum), and then by its count at
    /// zero; any other by its scalar.
    ///
    /// ```
    /// # use dtrace_bpf::aggs::AggValue;
    /// assert!(AggValue::Count(2).sort_key() > AggValue::Count(1).sort_key());
    /// ```
    pub fn sort_key(&self) -> (i128, i128) {
        match self {
            AggValue::Dist(d) => {
                let sum = d
                    .buckets
                    .iter()
                    .map(|b| i128::from(b.bound.value()) * i128::from(b.count))
                    .sum();
                let zero = d
                    .buckets
                    .iter()
                    .filter(|b| b.bound.value() == 0)
                    .map(|b| i128::from(b.count))
                    .sum();
                (sum, zero)
            }
            v => (i128::from(v.scalar()), 0),
        }
    }

    /// The value printed, divided by `normalize()`'s factor as DTrace
    /// divides it (a distribution's counts are divided row by row).
    pub fn normalized(&self, normal: u64) -> i64 {
        let n = normal.max(1) as i64;
        match self {
            AggValue::Count(v) | AggValue::Sum(v) | AggValue::Min(v) | AggValue::Max(v) => {
                v.wrapping_div(n)
            }
            AggValue::Avg { count, total } => {
                if *count == 0 {
                    0
                } else {
                    total.wrapping_div(n).wrapping_div(*count)
                }
            }
            AggValue::Stddev {
                count,
                total,
                sumsq,
            } => stddev(*count, *total, *sumsq, normal) as i64,
            AggValue::Dist(_) => self.scalar().wrapping_div(n),
        }
    }

    pub fn is_distribution(&self) -> bool {
        matches!(self, AggValue::Dist(_))
    }

    /// Whether DTrace prints this value unsigned (`stddev`'s `%llu`).
    pub fn is_unsigned(&self) -> bool {
        matches!(self, AggValue::Stddev { .. })
    }

    /// Adds another value of the same function (rows whose keys the
    /// consumer merges, as addresses in one function for `sym()`).
    pub fn absorb(&mut self, other: &AggValue) {
        match (self, other) {
            (AggValue::Count(a), AggValue::Count(b)) | (AggValue::Sum(a), AggValue::Sum(b)) => {
                *a = a.wrapping_add(*b)
            }
            (AggValue::Min(a), AggValue::Min(b)) => *a = (*a).min(*b),
            (AggValue::Max(a), AggValue::Max(b)) => *a = (*a).max(*b),
            (AggValue::Avg { count, total }, AggValue::Avg { count: c, total: t }) => {
                *count = count.wrapping_add(*c);
                *total = total.wrapping_add(*t);
            }
            (
                AggValue::Stddev {
                    count,
                    total,
                    sumsq,
                },
                AggValue::Stddev {
                    count: c,
                    total: t,
                    sumsq: q,
                },
            ) => {
                *count = count.wrapping_add(*c);
                *total = total.wrapping_add(*t);
                *sumsq = sumsq.wrapping_add(*q);
            }
            (AggValue::Dist(a), AggValue::Dist(b)) => {
                a.sum = a.sum.wrapping_add(b.sum);
                for (x, y) in a.buckets.iter_mut().zip(&b.buckets) {
                    x.count = x.count.wrapping_add(y.count);
                }
            }
            _ => {}
        }
    }

    /// The value of aggregating function `f` over no data: what
    /// `printa()` shows for a key an aggregation printed beside others
    /// lacks (a distribution of zero counts for the quantizations).
    pub fn zero(f: AggFunc) -> AggValue {
        merge(f, &[&vec![0u8; size_class(f) as usize]])
    }

    /// A zeroed value of the same shape (after `clear()`, or the zero
    /// `printa()` fills in for a key another aggregation lacks).
    pub fn zeroed(&self) -> AggValue {
        match self {
            AggValue::Count(_) => AggValue::Count(0),
            AggValue::Sum(_) => AggValue::Sum(0),
            AggValue::Min(_) => AggValue::Min(0),
            AggValue::Max(_) => AggValue::Max(0),
            AggValue::Avg { .. } => AggValue::Avg { count: 0, total: 0 },
            AggValue::Stddev { .. } => AggValue::Stddev {
                count: 0,
                total: 0,
                sumsq: 0,
            },
            AggValue::Dist(d) => AggValue::Dist(Distribution {
                buckets: d
                    .buckets
                    .iter()
                    .map(|b| Bucket {
                        bound: b.bound,
                        count: 0,
                    })
                    .collect(),
                empty_rows: d.empty_rows,
                sum: 0,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpu(words: &[i64]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_ne_bytes()).collect()
    }

    #[test]
    fn merges_across_cpus() {
        let a = cpu(&[3]);
        let b = cpu(&[4]);
        assert_eq!(merge(AggFunc::Count, &[&a, &b]), AggValue::Count(7));
        // min/max ignore CPUs that never fired (second word 0).
        let a = cpu(&[5, 1]);
        let b = cpu(&[-9, 0]);
        assert_eq!(merge(AggFunc::Min, &[&a, &b]), AggValue::Min(5));
        let a = cpu(&[2, 10, 50, 0]);
        let b = cpu(&[1, 5, 25, 0]);
        assert_eq!(
            merge(AggFunc::Stddev, &[&a, &b]),
            AggValue::Stddev {
                count: 3,
                total: 15,
                sumsq: 75
            }
        );
    }

    #[test]
    fn size_classes_are_few() {
        let mut classes: Vec<u32> = [
            AggFunc::Count,
            AggFunc::Sum,
            AggFunc::Avg,
            AggFunc::Stddev,
            AggFunc::Quantize,
        ]
        .into_iter()
        .map(size_class)
        .collect();
        classes.dedup();
        assert_eq!(classes, vec![8, 16, 32, 1024]);
    }
}
