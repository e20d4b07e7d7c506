//! Aggregations in the consumer: reading the per-CPU maps into a snapshot,
//! merging CPUs, sorting as DTrace sorts, and printing (the default layout,
//! quantize tables, and `printa()` formats).

use std::cmp::Ordering;
use std::io;

use dtrace_bpf::plan::AggLayout;
use dtrace_lang::ir::{lquantize_levels, AggFunc, QUANTIZE_BUCKETS, QUANTIZE_ZERO};
use dtrace_lang::printf::{ConvKind, Conversion, Format, Segment};
use dtrace_lang::types::{IntType, Type};
use dtrace_sys::bpf::{Map, PerCpuValues};

use crate::format::{self, cstr, Arg};

/// One element of an aggregation key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyValue {
    Int(i64, IntType),
    Str(Vec<u8>),
}

/// An aggregation's merged value for one key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AggValue {
    Count(i64),
    Sum(i64),
    Min(i64),
    Max(i64),
    Avg {
        count: i64,
        total: i64,
    },
    /// Power-of-two buckets, `QUANTIZE_BUCKETS` of them.
    Quantize(Vec<i64>),
    /// Linear buckets: below base, one per level, at or above limit.
    Lquantize {
        base: i32,
        step: u16,
        buckets: Vec<i64>,
    },
}

impl AggValue {
    /// The scalar DTrace sorts and prints (`%@`) for this value.
    pub fn scalar(&self) -> i64 {
        match self {
            AggValue::Count(v) | AggValue::Sum(v) | AggValue::Min(v) | AggValue::Max(v) => *v,
            AggValue::Avg { count, total } => {
                if *count == 0 {
                    0
                } else {
                    total / count
                }
            }
            AggValue::Quantize(b) => b
                .iter()
                .enumerate()
                .map(|(i, c)| quantize_bucket_value(i).wrapping_mul(*c))
                .fold(0i64, |a, x| a.wrapping_add(x)),
            AggValue::Lquantize {
                base,
                step,
                buckets,
            } => buckets
                .iter()
                .enumerate()
                .map(|(i, c)| lquantize_bucket_value(*base, *step, i).wrapping_mul(*c))
                .fold(0i64, |a, x| a.wrapping_add(x)),
        }
    }

    pub fn is_distribution(&self) -> bool {
        matches!(self, AggValue::Quantize(_) | AggValue::Lquantize { .. })
    }

    /// A zeroed value of the same shape (after `clear()`).
    pub fn zeroed(&self) -> AggValue {
        match self {
            AggValue::Count(_) => AggValue::Count(0),
            AggValue::Sum(_) => AggValue::Sum(0),
            AggValue::Min(_) => AggValue::Min(0),
            AggValue::Max(_) => AggValue::Max(0),
            AggValue::Avg { .. } => AggValue::Avg { count: 0, total: 0 },
            AggValue::Quantize(b) => AggValue::Quantize(vec![0; b.len()]),
            AggValue::Lquantize {
                base,
                step,
                buckets,
            } => AggValue::Lquantize {
                base: *base,
                step: *step,
                buckets: vec![0; buckets.len()],
            },
        }
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

/// The lower bound of a linear bucket (bucket 0 is below `base`).
fn lquantize_bucket_value(base: i32, step: u16, i: usize) -> i64 {
    if i == 0 {
        i64::from(base) - 1
    } else {
        i64::from(base) + (i as i64 - 1) * i64::from(step)
    }
}

#[derive(Clone, Debug)]
pub struct AggEntry {
    pub key: Vec<KeyValue>,
    /// The key as stored in the map (to clear or delete it).
    pub raw_key: Vec<u8>,
    pub value: AggValue,
}

fn read_i64(b: &[u8], off: usize) -> i64 {
    b.get(off..off + 8)
        .map(|s| i64::from_ne_bytes(s.try_into().expect("8 bytes")))
        .unwrap_or(0)
}

/// Decodes a stored key.
pub fn decode_key(layout: &AggLayout, raw: &[u8]) -> Vec<KeyValue> {
    layout
        .keys
        .iter()
        .map(|f| match &f.ty {
            Type::String => {
                let end = (f.offset + f.size) as usize;
                KeyValue::Str(cstr(&raw[f.offset as usize..end.min(raw.len())]).to_vec())
            }
            t => {
                let it = format::int_type_of(t);
                KeyValue::Int(format::normalize(read_i64(raw, f.offset as usize), it), it)
            }
        })
        .collect()
}

/// Merges one key's per-CPU values. Returns None if no CPU has data.
pub fn merge(func: AggFunc, percpu: &PerCpuValues) -> Option<AggValue> {
    let ncpus = percpu.ncpus();
    let cpu = |c: usize| percpu.cpu(c).unwrap_or(&[]);
    let words = percpu.value_size() / 8;
    let sum_word = |w: usize| (0..ncpus).fold(0i64, |a, c| a.wrapping_add(read_i64(cpu(c), 8 * w)));
    Some(match func {
        AggFunc::Count => AggValue::Count(sum_word(0)),
        AggFunc::Sum => AggValue::Sum(sum_word(0)),
        AggFunc::Min | AggFunc::Max => {
            let mut best: Option<i64> = None;
            for c in 0..ncpus {
                if read_i64(cpu(c), 8) == 0 {
                    continue;
                }
                let v = read_i64(cpu(c), 0);
                best = Some(match best {
                    None => v,
                    Some(b) if func == AggFunc::Min => b.min(v),
                    Some(b) => b.max(v),
                });
            }
            let v = best.unwrap_or(0);
            if func == AggFunc::Min {
                AggValue::Min(v)
            } else {
                AggValue::Max(v)
            }
        }
        AggFunc::Avg => AggValue::Avg {
            count: sum_word(0),
            total: sum_word(1),
        },
        AggFunc::Quantize => {
            AggValue::Quantize((0..words.min(QUANTIZE_BUCKETS)).map(sum_word).collect())
        }
        AggFunc::Lquantize { base, limit, step } => {
            let n = lquantize_levels(base, limit, step) + 2;
            AggValue::Lquantize {
                base,
                step,
                buckets: (0..n.min(words)).map(sum_word).collect(),
            }
        }
    })
}

/// Reads every key of an aggregation map (a per-CPU hash).
pub fn snapshot(map: &Map, layout: &AggLayout) -> io::Result<Vec<AggEntry>> {
    let mut keys = Vec::new();
    for k in map.keys() {
        keys.push(k?);
        if keys.len() > 4 << 20 {
            break;
        }
    }
    let mut out = Vec::new();
    // One buffer, sized by the map, for every key.
    let mut vals = map.percpu_values()?;
    for k in keys {
        if !map.lookup_percpu(&k, &mut vals)? {
            continue;
        }
        if let Some(value) = merge(layout.func, &vals) {
            out.push(AggEntry {
                key: decode_key(layout, &k),
                raw_key: k,
                value,
            });
        }
    }
    Ok(out)
}

fn cmp_key(a: &[KeyValue], b: &[KeyValue]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x, y) {
            (KeyValue::Int(p, t), KeyValue::Int(q, _)) => {
                if t.signed {
                    p.cmp(q)
                } else {
                    (*p as u64).cmp(&(*q as u64))
                }
            }
            (KeyValue::Str(p), KeyValue::Str(q)) => p.cmp(q),
            (KeyValue::Int(..), KeyValue::Str(_)) => Ordering::Less,
            (KeyValue::Str(_), KeyValue::Int(..)) => Ordering::Greater,
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// Sort options.
#[derive(Clone, Copy, Debug, Default)]
pub struct SortOpts {
    pub by_key: bool,
    pub reverse: bool,
    pub key_pos: usize,
    /// `aggsortpos`: which of several aggregations printed together
    /// (`printa(@a, @b)`) the rows are sorted by.
    pub value_pos: usize,
}

/// Sorts as DTrace does: by value, ties by key (or by key with
/// `aggsortkey`), optionally reversed.
pub fn sort(entries: &mut [AggEntry], o: SortOpts) {
    let key_cmp = |a: &AggEntry, b: &AggEntry| {
        let pa = o.key_pos.min(a.key.len());
        let pb = o.key_pos.min(b.key.len());
        cmp_key(&a.key[pa..], &b.key[pb..]).then_with(|| cmp_key(&a.key, &b.key))
    };
    entries.sort_by(|a, b| {
        let ord = if o.by_key {
            key_cmp(a, b).then_with(|| a.value.scalar().cmp(&b.value.scalar()))
        } else {
            a.value
                .scalar()
                .cmp(&b.value.scalar())
                .then_with(|| key_cmp(a, b))
        };
        if o.reverse {
            ord.reverse()
        } else {
            ord
        }
    });
}

/// The width of the distribution bar.
const BAR: i64 = 40;

fn dist_header(out: &mut Vec<u8>) {
    out.extend_from_slice(
        format!(
            "\n{:>16} {:>41} {:<9}\n",
            "value", "------------- Distribution -------------", "count"
        )
        .as_bytes(),
    );
}

fn bar_line(
    out: &mut Vec<u8>,
    label: &str,
    count: i64,
    total: i64,
    positives: bool,
    negatives: bool,
) {
    let len = |v: i64, scale: i64| -> usize {
        if total == 0 {
            0
        } else {
            ((v.unsigned_abs() as f64 * scale as f64 / total as f64) + 0.5) as usize
        }
    };
    if !negatives {
        let n = len(count, BAR).min(BAR as usize);
        out.extend_from_slice(
            format!(
                "{:>16} |{}{} {:<9}\n",
                label,
                "@".repeat(n),
                " ".repeat(BAR as usize - n),
                count
            )
            .as_bytes(),
        );
    } else if !positives {
        let n = len(count, BAR).min(BAR as usize);
        out.extend_from_slice(
            format!(
                "{:>16} {}{}| {:<9}\n",
                label,
                " ".repeat(BAR as usize - n),
                "@".repeat(n),
                count
            )
            .as_bytes(),
        );
    } else {
        let half = (BAR / 2) as usize;
        let n = len(count, BAR / 2).min(half);
        let (l, r) = if count < 0 {
            (
                format!("{}{}", " ".repeat(half - n), "@".repeat(n)),
                " ".repeat(half),
            )
        } else {
            (
                " ".repeat(half),
                format!("{}{}", "@".repeat(n), " ".repeat(half - n)),
            )
        };
        out.extend_from_slice(format!("{:>16} {}|{} {:<9}\n", label, l, r, count).as_bytes());
    }
}

/// Prints a quantize or lquantize table, from the row before the first
/// non-zero bucket to the row after the last.
pub fn print_distribution(out: &mut Vec<u8>, v: &AggValue) {
    let (buckets, label): (&[i64], Box<dyn Fn(usize) -> String>) = match v {
        AggValue::Quantize(b) => (b, Box::new(|i| quantize_bucket_value(i).to_string())),
        AggValue::Lquantize {
            base,
            step,
            buckets,
        } => {
            let (base, step, n) = (*base, *step, buckets.len());
            (
                buckets,
                Box::new(move |i| {
                    if i == 0 {
                        format!("< {}", base)
                    } else if i == n - 1 {
                        format!(">= {}", i64::from(base) + (n as i64 - 2) * i64::from(step))
                    } else {
                        lquantize_bucket_value(base, step, i).to_string()
                    }
                }),
            )
        }
        _ => return,
    };
    dist_header(out);
    let first = buckets.iter().position(|&c| c != 0);
    let last = buckets.iter().rposition(|&c| c != 0);
    let (lo, hi) = match (first, last) {
        (Some(f), Some(l)) => (f.saturating_sub(1), (l + 1).min(buckets.len() - 1)),
        _ => {
            // No data: DTrace still shows the zero row's neighbourhood.
            let z = if matches!(v, AggValue::Quantize(_)) {
                QUANTIZE_ZERO
            } else {
                0
            };
            (z.saturating_sub(1), (z + 1).min(buckets.len() - 1))
        }
    };
    let total: i64 = buckets.iter().map(|c| c.abs()).sum();
    let positives = buckets.iter().any(|&c| c > 0);
    let negatives = buckets.iter().any(|&c| c < 0);
    for (i, &count) in buckets.iter().enumerate().take(hi + 1).skip(lo) {
        bar_line(out, &label(i), count, total, positives, negatives);
    }
}

/// The default rendering of one key element.
fn key_default(out: &mut Vec<u8>, k: &KeyValue) {
    match k {
        KeyValue::Str(s) => {
            out.extend_from_slice(b"  ");
            out.extend_from_slice(s);
            for _ in s.len()..50 {
                out.push(b' ');
            }
        }
        KeyValue::Int(v, t) => {
            let s = match (t.size, t.signed) {
                (8, true) => format!(" {:>16}", v),
                (8, false) => format!(" {:>16}", *v as u64),
                (4, true) => format!(" {:>8}", *v as i32),
                (4, false) => format!(" {:>8}", *v as u32),
                (2, true) => format!(" {:>5}", *v as i16),
                (2, false) => format!(" {:>5}", *v as u16),
                (_, true) => format!(" {:>3}", *v as i8),
                (_, false) => format!(" {:>3}", *v as u8),
            };
            out.extend_from_slice(s.as_bytes());
        }
    }
}

/// Prints a scalar aggregation value as DTrace does by default.
fn value_default(out: &mut Vec<u8>, v: &AggValue) {
    out.extend_from_slice(format!(" {:>16}", v.scalar()).as_bytes());
}

/// Prints aggregations in the default layout. `entries` holds, per key,
/// the values of each aggregation (several for `printa(@a, @b)`).
pub fn print_default(out: &mut Vec<u8>, rows: &[(Vec<KeyValue>, Vec<Option<AggValue>>)]) {
    for (key, values) in rows {
        let dist = values.iter().flatten().any(|v| v.is_distribution());
        if dist {
            // The key line is ended by the newline that opens the table.
            for k in key {
                key_default(out, k);
            }
            for v in values.iter().flatten() {
                print_distribution(out, v);
                out.push(b'\n');
            }
        } else {
            for k in key {
                key_default(out, k);
            }
            for v in values {
                match v {
                    Some(v) => value_default(out, v),
                    None => out.extend_from_slice(format!(" {:>16}", 0).as_bytes()),
                }
            }
            out.push(b'\n');
        }
    }
}

/// Prints rows with a `printa()` format: conversions take the key
/// elements in order, `%@` the aggregation values in order.
pub fn print_formatted(
    out: &mut Vec<u8>,
    fmt: &Format,
    rows: &[(Vec<KeyValue>, Vec<Option<AggValue>>)],
) {
    for (key, values) in rows {
        let mut ki = 0;
        let mut vi = 0;
        for seg in &fmt.segments {
            match seg {
                Segment::Literal(b) => out.extend_from_slice(b),
                Segment::Conv(c) if c.is_agg() => {
                    let v = values.get(vi).cloned().flatten();
                    vi += 1;
                    format_value(out, c, v.as_ref());
                }
                Segment::Conv(c) => {
                    let arg = match key.get(ki) {
                        Some(KeyValue::Int(v, t)) => Arg::Int(*v, *t),
                        Some(KeyValue::Str(s)) => Arg::Str(s),
                        None => Arg::Str(b""),
                    };
                    ki += 1;
                    format::format_conv(
                        out,
                        c,
                        arg,
                        format::fixed(c.width),
                        format::fixed(c.precision),
                    );
                }
            }
        }
    }
}

fn format_value(out: &mut Vec<u8>, c: &Conversion, v: Option<&AggValue>) {
    match v {
        Some(v) if v.is_distribution() => {
            print_distribution(out, v);
            out.push(b'\n');
        }
        Some(v) => {
            let kind = if c.kind == ConvKind::AggValue {
                ConvKind::Signed
            } else {
                c.kind
            };
            let as_int = Conversion { kind, ..c.clone() };
            format::format_conv(
                out,
                &as_int,
                Arg::Int(v.scalar(), dtrace_lang::types::INT64),
                format::fixed(c.width),
                format::fixed(c.precision),
            );
        }
        None => {}
    }
}

/// Joins the snapshots of several aggregations by key, sorted.
pub fn rows(snaps: &[Vec<AggEntry>], o: SortOpts) -> Vec<(Vec<KeyValue>, Vec<Option<AggValue>>)> {
    if snaps.is_empty() {
        return Vec::new();
    }
    let pos = o.value_pos.min(snaps.len() - 1);
    let mut base: Vec<AggEntry> = snaps[pos].clone();
    for (i, s) in snaps.iter().enumerate() {
        if i == pos {
            continue;
        }
        for e in s {
            if !base.iter().any(|b| b.key == e.key) {
                base.push(AggEntry {
                    key: e.key.clone(),
                    raw_key: e.raw_key.clone(),
                    value: e.value.zeroed(),
                });
            }
        }
    }
    sort(&mut base, o);
    base.into_iter()
        .map(|e| {
            let vals = snaps
                .iter()
                .map(|s| s.iter().find(|x| x.key == e.key).map(|x| x.value.clone()))
                .collect();
            (e.key, vals)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use dtrace_lang::types::INT;

    #[test]
    fn bucket_values() {
        assert_eq!(quantize_bucket_value(QUANTIZE_ZERO), 0);
        assert_eq!(quantize_bucket_value(QUANTIZE_ZERO + 1), 1);
        assert_eq!(quantize_bucket_value(QUANTIZE_ZERO + 2), 2);
        assert_eq!(quantize_bucket_value(QUANTIZE_ZERO - 1), -1);
        assert_eq!(quantize_bucket_value(0), -(1 << 62));
    }

    #[test]
    fn quantize_table_layout() {
        let mut b = vec![0; QUANTIZE_BUCKETS];
        b[QUANTIZE_ZERO + 7] = 1; // 64
        let mut out = Vec::new();
        print_distribution(&mut out, &AggValue::Quantize(b));
        let s = String::from_utf8(out).unwrap();
        let expect = "\n           value  ------------- Distribution ------------- count    \n\
                     \x20             32 |                                         0        \n\
                     \x20             64 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        \n\
                     \x20            128 |                                         0        \n";
        assert_eq!(s, expect);
    }

    #[test]
    fn default_rows_and_sorting() {
        let mut e = vec![
            AggEntry {
                key: vec![KeyValue::Str(b"b".to_vec())],
                raw_key: vec![],
                value: AggValue::Count(5),
            },
            AggEntry {
                key: vec![KeyValue::Str(b"a".to_vec())],
                raw_key: vec![],
                value: AggValue::Count(5),
            },
            AggEntry {
                key: vec![KeyValue::Str(b"c".to_vec())],
                raw_key: vec![],
                value: AggValue::Count(1),
            },
        ];
        sort(&mut e, SortOpts::default());
        let order: Vec<_> = e.iter().map(|x| x.key[0].clone()).collect();
        assert_eq!(
            order,
            vec![
                KeyValue::Str(b"c".to_vec()),
                KeyValue::Str(b"a".to_vec()),
                KeyValue::Str(b"b".to_vec())
            ]
        );
        let mut out = Vec::new();
        print_default(
            &mut out,
            &[(vec![KeyValue::Int(3, INT)], vec![Some(AggValue::Sum(500))])],
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "        3              500\n"
        );
    }
}
