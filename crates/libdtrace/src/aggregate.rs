//! Aggregations in the consumer: reading the per-CPU maps into a snapshot,
//! merging CPUs, sorting as DTrace sorts, and printing (the default layout,
//! quantize tables, and `printa()` formats).
//!
//! An aggregation's keys are those of its shared map whose first word is
//! its id ([`snapshot`]); one without keys is a slot of a per-CPU array
//! (`snapshot_slot`, [`clear_slot`]). CPUs are merged by
//! `dtrace_bpf::aggs`, and values divided by the `normalize()` factor
//! when printed. With `aggpercpu` each row also carries each CPU's value;
//! with `aggrate`, `printa()` shows what was first read after the last
//! aggregation tick (`agg_snapshot`, in `aggregations.rs`).

use std::cmp::Ordering;
use std::collections::HashMap;
use std::io;

use dtrace_bpf::aggs;
pub use dtrace_bpf::aggs::{AggValue, Bound, Bucket, Distribution};
use dtrace_bpf::plan::AggLayout;
use dtrace_lang::printf::{Conversion, Format, Segment};
use dtrace_lang::types::{IntType, Special, Type};
use dtrace_sys::bpf::{Map, PerCpuValues};

use crate::format::{self, cstr, Arg};

/// One element of an aggregation key.
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// let mut dt = libdtrace::Dtrace::open()?;
/// use libdtrace::KeyValue;
/// let p = dt.compile("syscall:::entry { @[execname, pid] = count(); }", libdtrace::ProgramSource::File)?;
/// dt.exec(&p)?;
/// let mut dt = dt.go()?;
/// std::thread::sleep(std::time::Duration::from_millis(100));
/// dt.aggregate_walk(|_, entries| {
///     for e in entries {
///         if let [KeyValue::Str(name), KeyValue::Int(pid, _)] = e.key.as_slice() {
///             println!("{} {}: {:?}", String::from_utf8_lossy(name), pid, e.value);
///         }
///     }
/// })?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum KeyValue {
    /// An integer and its D type.
    Int(i64, IntType),
    /// A string's bytes.
    Str(Vec<u8>),
    /// A kernel stack's words (`stack()`).
    Stack(Vec<u8>),
    /// A user stack as recorded (`ustack()`: the process ID, then its
    /// frames by build ID).
    UStack(Vec<u8>),
    /// A function's first address (`sym()`, `func()`: every address in a
    /// function is one key, as DTrace's consumer merges them).
    Sym(u64),
    /// A module (`mod()`), by name.
    Mod(String),
    /// The bytes of a struct, union or array.
    Bytes(Vec<u8>),
}

/// A key element as text: an integer as its number, a string as its
/// (lossy UTF-8) text, a kernel address in hexadecimal, a module by name;
/// stacks and raw bytes by their size (their symbols are the consumer's
/// to look up).
impl std::fmt::Display for KeyValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyValue::Int(i, _) => write!(f, "{}", i),
            KeyValue::Str(s) => f.write_str(&String::from_utf8_lossy(s)),
            KeyValue::Sym(a) => write!(f, "{:#x}", a),
            KeyValue::Mod(m) => f.write_str(m),
            KeyValue::Stack(b) | KeyValue::UStack(b) => write!(f, "<stack of {} bytes>", b.len()),
            KeyValue::Bytes(b) => write!(f, "<{} bytes>", b.len()),
        }
    }
}

/// One entry of an aggregation as read from the kernel: its key and its
/// value merged over the CPUs.
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// let mut dt = libdtrace::Dtrace::open()?;
/// use libdtrace::AggValue;
/// dt.setopt("aggpercpu", None)?;
/// let p = dt.compile("syscall:::entry { @ = count(); }", libdtrace::ProgramSource::File)?;
/// dt.exec(&p)?;
/// let mut dt = dt.go()?;
/// std::thread::sleep(std::time::Duration::from_millis(100));
/// dt.aggregate_walk(|_, entries| {
///     for e in entries {
///         if let AggValue::Count(n) = e.value {
///             println!("{} in all, per CPU {:?}", n, e.percpu);
///         }
///     }
/// })?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct AggEntry {
    /// The key's elements.
    pub key: Vec<KeyValue>,
    /// The key as stored in the map (to clear or delete it).
    pub raw_key: Vec<u8>,
    /// Other stored keys merged into this row (`sym()` keys of one
    /// function), so that `trunc()` removes them all.
    pub merged_keys: Vec<Vec<u8>>,
    /// The value, merged over the CPUs.
    pub value: AggValue,
    /// With the `aggpercpu` option: each CPU's own value, by CPU index.
    pub percpu: Option<Vec<AggValue>>,
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
        .map(|f| {
            let start = (f.offset as usize).min(raw.len());
            let end = ((f.offset + f.size) as usize).min(raw.len());
            decode_field(&f.ty, &raw[start..end])
        })
        .collect()
}

/// Decodes one element of a key, of type `ty`, from its bytes.
pub fn decode_field(ty: &Type, bytes: &[u8]) -> KeyValue {
    match ty {
        Type::String => KeyValue::Str(cstr(bytes).to_vec()),
        t if t.special().is_some() => match t.special() {
            Some(Special::Stack(_)) => KeyValue::Stack(bytes.to_vec()),
            Some(Special::UStack(_)) => KeyValue::UStack(bytes.to_vec()),
            // A user symbol, module or address, by its text: keys
            // in one function are one row (usym), as in DTrace.
            Some(Special::USym) => {
                KeyValue::Mod(crate::usym::pair_text(bytes, crate::usym::UserHow::Sym))
            }
            Some(Special::UMod) => {
                KeyValue::Mod(crate::usym::pair_text(bytes, crate::usym::UserHow::Mod))
            }
            Some(Special::UAddr) => {
                KeyValue::Mod(crate::usym::pair_text(bytes, crate::usym::UserHow::Addr))
            }
            Some(Special::Sym) => KeyValue::Sym(crate::ksym::sym_start(read_i64(bytes, 0) as u64)),
            _ => KeyValue::Mod(crate::ksym::mod_text(read_i64(bytes, 0) as u64)),
        },
        t if t.is_by_ref() => KeyValue::Bytes(bytes.to_vec()),
        t => {
            let it = format::int_type_of(t);
            KeyValue::Int(format::normalize(read_i64(bytes, 0), it), it)
        }
    }
}

/// Merges one key's per-CPU values.
pub fn merge(layout: &AggLayout, percpu: &PerCpuValues) -> AggValue {
    let cpus: Vec<&[u8]> = (0..percpu.ncpus())
        .map(|c| percpu.cpu(c).unwrap_or(&[]))
        .collect();
    aggs::merge(layout.func, &cpus)
}

/// The per-CPU values of an aggregation with no keys (`layout.slot`),
/// each CPU's element past its updated word; `None` if no CPU has
/// updated it.
fn slot_values(map: &Map, slot: u32) -> io::Result<Option<PerCpuValues>> {
    let mut vals = map.percpu_values()?;
    if !map.lookup_percpu(&slot.to_ne_bytes(), &mut vals)? {
        return Ok(None);
    }
    let updated = vals.iter().any(|c| c.get(..8).is_some_and(|w| w != [0; 8]));
    Ok(updated.then_some(vals))
}

/// An aggregation with no keys: its one row, if any CPU has updated its
/// slot.
fn snapshot_slot(
    map: &Map,
    layout: &AggLayout,
    slot: u32,
    percpu: bool,
) -> io::Result<Vec<AggEntry>> {
    let Some(vals) = slot_values(map, slot)? else {
        return Ok(Vec::new());
    };
    let cpus: Vec<&[u8]> = vals.iter().map(|c| c.get(8..).unwrap_or(&[])).collect();
    Ok(vec![AggEntry {
        key: Vec::new(),
        value: aggs::merge(layout.func, &cpus),
        raw_key: slot.to_ne_bytes().to_vec(),
        merged_keys: Vec::new(),
        percpu: percpu.then(|| {
            cpus.iter()
                .map(|c| aggs::merge(layout.func, &[c]))
                .collect()
        }),
    }])
}

/// Empties the slot of an aggregation with no keys: its values zeroed on
/// every CPU and, with `keep` false, its updated words too (it prints
/// nothing until it is updated again).
pub fn clear_slot(map: &Map, slot: u32, keep: bool) -> io::Result<()> {
    let Some(mut vals) = slot_values(map, slot)? else {
        return Ok(());
    };
    let stride = vals.stride();
    for (i, b) in vals.as_bytes_mut().iter_mut().enumerate() {
        if !keep || i % stride >= 8 {
            *b = 0;
        }
    }
    map.update(&slot.to_ne_bytes(), vals.as_bytes(), 0)
}

/// Reads every key of one aggregation from the map it shares (the keys
/// whose first word is its id).
///
/// An aggregation whose tuples are interned (`layout.interned`) has
/// them read from `tuples`, by the hash its keys hold.
pub fn snapshot(
    map: &Map,
    layout: &AggLayout,
    percpu: bool,
    tuples: Option<&Map>,
) -> io::Result<Vec<AggEntry>> {
    if let Some(slot) = layout.slot {
        return snapshot_slot(map, layout, slot, percpu);
    }
    let mut tuple = vec![0u8; layout.interned.map_or(0, |ik| ik.tuple_size as usize)];
    let id = layout.id.to_ne_bytes();
    let mut out: Vec<AggEntry> = Vec::new();
    // Rows merged from several keys, by decoded key.
    let mut merged: HashMap<Vec<KeyValue>, usize> = HashMap::new();
    // The map is shared by the aggregations of one value size: this
    // one's keys start with its id. Values come thousands at a time.
    map.lookup_percpu_batch(|k, vals| {
        if k.get(..8) != Some(&id[..]) || out.len() > 4 << 20 {
            return;
        }
        let key = match (layout.interned, tuples) {
            (Some(_), Some(t)) => match k.get(8..16).map(|h| t.lookup(h, &mut tuple)) {
                Some(Ok(true)) => decode_key(layout, &tuple),
                // Its tuple not there (yet): not a row.
                _ => return,
            },
            _ => decode_key(layout, k),
        };
        let value = merge(layout, vals);
        let cpus = percpu.then(|| {
            (0..vals.ncpus())
                .map(|c| aggs::merge(layout.func, &[vals.cpu(c).unwrap_or(&[])]))
                .collect::<Vec<_>>()
        });
        // Keys that decode alike (addresses in one function) are one row.
        let merges = key
            .iter()
            .any(|k| matches!(k, KeyValue::Sym(_) | KeyValue::Mod(_)));
        if merges {
            if let Some(e) = merged.get(&key).map(|&i| &mut out[i]) {
                e.value.absorb(&value);
                if let (Some(mine), Some(theirs)) = (e.percpu.as_mut(), cpus.as_ref()) {
                    for (m, t) in mine.iter_mut().zip(theirs) {
                        m.absorb(t);
                    }
                }
                e.merged_keys.push(k.to_vec());
                return;
            }
            merged.insert(key.clone(), out.len());
        }
        out.push(AggEntry {
            key,
            value,
            raw_key: k.to_vec(),
            merged_keys: Vec::new(),
            percpu: cpus,
        });
    })?;
    Ok(out)
}

fn cmp_key(a: &[KeyValue], b: &[KeyValue]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x, y) {
            // As DTrace compares them (dt_aggregate_keycmp): the key's
            // bytes as an unsigned integer of its size, so that -1 sorts
            // after 1.
            (KeyValue::Int(p, t), KeyValue::Int(q, _)) => {
                let mask = match t.size {
                    1 => 0xff,
                    2 => 0xffff,
                    4 => 0xffff_ffff,
                    _ => u64::MAX,
                };
                (*p as u64 & mask).cmp(&(*q as u64 & mask))
            }
            (KeyValue::Str(p), KeyValue::Str(q)) => p.cmp(q),
            (KeyValue::Stack(p), KeyValue::Stack(q)) => {
                crate::ksym::frames(p).cmp(crate::ksym::frames(q))
            }
            (KeyValue::UStack(p), KeyValue::UStack(q)) => p.cmp(q),
            (KeyValue::Sym(p), KeyValue::Sym(q)) => p.cmp(q),
            (KeyValue::Mod(p), KeyValue::Mod(q)) => p.cmp(q),
            (KeyValue::Bytes(p), KeyValue::Bytes(q)) => p.cmp(q),
            _ => key_rank(x).cmp(&key_rank(y)),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// The order of keys of different kinds (which a well-typed aggregation
/// does not mix).
fn key_rank(k: &KeyValue) -> u8 {
    match k {
        KeyValue::Int(..) => 0,
        KeyValue::Str(_) => 1,
        KeyValue::Stack(_) | KeyValue::UStack(_) => 2,
        KeyValue::Sym(_) => 3,
        KeyValue::Mod(_) => 4,
        KeyValue::Bytes(_) => 5,
    }
}

/// Sort options.
#[derive(Clone, Copy, Debug, Default)]
pub struct SortOpts {
    /// By key first (`aggsortkey`), else by value.
    pub by_key: bool,
    /// Reversed (`aggsortrev`).
    pub reverse: bool,
    /// The key element sorted by first (`aggsortkeypos`).
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
            key_cmp(a, b).then_with(|| a.value.sort_key().cmp(&b.value.sort_key()))
        } else {
            a.value
                .sort_key()
                .cmp(&b.value.sort_key())
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
    shown: i64,
    total: f64,
    positives: bool,
    negatives: bool,
) {
    let len = |v: i64, scale: i64| -> usize {
        if total == 0.0 {
            0
        } else {
            ((v.unsigned_abs() as f64 * scale as f64 / total) + 0.5) as usize
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
                shown
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
                shown
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
        out.extend_from_slice(format!("{:>16} {}|{} {:<9}\n", label, l, r, shown).as_bytes());
    }
}

/// Prints a distribution table, from the row before the first non-zero
/// bucket to the row after the last, counts divided by `normal`.
pub fn print_distribution(out: &mut Vec<u8>, d: &Distribution, normal: u64) {
    let b = &d.buckets;
    if b.is_empty() {
        return;
    }
    dist_header(out);
    let first = b.iter().position(|x| x.count != 0);
    let last = b.iter().rposition(|x| x.count != 0);
    let (lo, hi) = match (first, last) {
        (Some(f), Some(l)) => (f.saturating_sub(1), (l + 1).min(b.len() - 1)),
        _ => (d.empty_rows.0, d.empty_rows.1.min(b.len() - 1)),
    };
    let rows = &b[lo..=hi];
    // As DTrace adds them: long doubles, never overflowing.
    let total: f64 = rows.iter().map(|x| (x.count as f64).abs()).sum();
    let positives = rows.iter().any(|x| x.count > 0);
    let negatives = rows.iter().any(|x| x.count < 0);
    let n = normal.max(1) as i64;
    for x in rows {
        bar_line(
            out,
            &x.bound.label(),
            x.count,
            x.count.wrapping_div(n),
            total,
            positives,
            negatives,
        );
    }
}

/// The default rendering of one key element.
fn key_default(out: &mut Vec<u8>, k: &KeyValue, indent: usize) {
    match k {
        KeyValue::Stack(b) => crate::ksym::print_stack(out, b, indent),
        KeyValue::UStack(b) => crate::usym::print_ustack(out, b, indent),
        KeyValue::Sym(a) => {
            out.extend_from_slice(format!("  {:<50}", crate::ksym::sym_text(*a)).as_bytes())
        }
        KeyValue::Mod(m) => out.extend_from_slice(format!("  {:<50}", m).as_bytes()),
        KeyValue::Bytes(b) => format::trace_bytes(out, b, false, false, 50),
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
                // As DTrace prints a key (dt_print_datum): 8- and
                // 16-bit values as the unsigned bytes they are.
                (2, _) => format!(" {:>5}", *v as u16),
                (_, _) => format!(" {:>3}", *v as u8),
            };
            out.extend_from_slice(s.as_bytes());
        }
    }
}

/// Prints a scalar aggregation value as DTrace does by default.
fn value_default(out: &mut Vec<u8>, v: &AggValue, normal: u64) {
    let n = v.normalized(normal);
    if v.is_unsigned() {
        out.extend_from_slice(format!(" {:>16}", n as u64).as_bytes());
    } else {
        out.extend_from_slice(format!(" {:>16}", n).as_bytes());
    }
}

/// One printed row: a key and the value of each aggregation printed
/// together (several for `printa(@a, @b)`).
///
/// ```
/// use libdtrace::{Consume, Consumer, ProbeData, Row};
/// /// Keeps printa()'s rows to draw them, printing nothing.
/// #[derive(Default)]
/// struct Chart(Vec<Row>);
/// impl Consumer for Chart {
///     fn aggregation(&mut self, _out: &mut dyn std::io::Write, _pd: &ProbeData, _names: &[&str], rows: &[Row]) -> Consume {
///         self.0.extend_from_slice(rows);
///         Consume::Next
///     }
/// }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The key's elements.
    pub key: Vec<KeyValue>,
    /// One value per aggregation printed together (None: the key is not
    /// in that aggregation, printed as its zero).
    pub values: Vec<Option<AggValue>>,
    /// With `aggpercpu`: each aggregation's per-CPU values.
    pub percpu: Vec<Option<Vec<AggValue>>>,
}

impl Row {
    /// A row of one aggregation's value.
    ///
    /// ```
    /// use libdtrace::{AggValue, KeyValue, Row};
    /// let r = Row::new(vec![KeyValue::Str(b"read".to_vec())], AggValue::Count(3));
    /// assert_eq!(r.values, vec![Some(AggValue::Count(3))]);
    /// ```
    pub fn new(key: Vec<KeyValue>, value: AggValue) -> Row {
        Row {
            key,
            values: vec![Some(value)],
            percpu: vec![None],
        }
    }
}

/// The `normalize()` factor of column `i` (1 if none).
fn normal_of(normals: &[u64], i: usize) -> u64 {
    normals.get(i).copied().unwrap_or(1).max(1)
}

/// Prints aggregations in the default layout; each column's
/// `normalize()` factor and value over no data (printed for a key the
/// row lacks) are in `cols`.
pub fn print_default(out: &mut Vec<u8>, rows: &[Row], cols: (&[u64], &[AggValue]), indent: usize) {
    let (normals, zeros) = cols;
    for Row { key, values, .. } in rows {
        let values: Vec<Option<&AggValue>> = values
            .iter()
            .enumerate()
            .map(|(i, v)| v.as_ref().or(zeros.get(i)))
            .collect();
        let dist = values.iter().flatten().any(|v| v.is_distribution());
        for k in key {
            key_default(out, k, indent);
        }
        if dist {
            // The key line is ended by the newline that opens the table.
            for (i, v) in values.iter().enumerate() {
                if let Some(AggValue::Dist(d)) = v {
                    print_distribution(out, d, normal_of(normals, i));
                    out.push(b'\n');
                }
            }
        } else {
            for (i, v) in values.iter().enumerate() {
                match v {
                    Some(v) => value_default(out, v, normal_of(normals, i)),
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
    rows: &[Row],
    cols: (&[u64], &[AggValue]),
    indent: usize,
    target: i64,
) {
    let (normals, zeros) = cols;
    for Row { key, values, .. } in rows {
        let mut ki = 0;
        let mut vi = 0;
        for seg in &fmt.segments {
            match seg {
                Segment::Literal(b) => out.extend_from_slice(b),
                Segment::Conv(c) if c.is_agg() => {
                    // With one aggregation, every %@ is its value.
                    let col = if values.len() == 1 { 0 } else { vi };
                    let v = values.get(col).and_then(Option::as_ref).or(zeros.get(col));
                    format_value(out, c, v, normal_of(normals, col), target);
                    vi += 1;
                }
                Segment::Conv(c) => {
                    let arg = match key.get(ki) {
                        Some(KeyValue::Int(v, t)) => Arg::Int(*v, *t),
                        Some(KeyValue::Str(s)) => Arg::Str(s),
                        Some(KeyValue::Stack(b)) => Arg::Stack(b, indent),
                        Some(KeyValue::UStack(b)) => Arg::UStack(b, indent),
                        Some(KeyValue::Sym(a)) => Arg::Sym(*a),
                        Some(KeyValue::Mod(m)) => Arg::Str(m.as_bytes()),
                        Some(KeyValue::Bytes(b)) => Arg::Bytes(b),
                        None => Arg::Str(b""),
                    };
                    ki += 1;
                    format::format_conv(
                        out,
                        c,
                        arg,
                        format::fixed(c.width),
                        format::fixed(c.precision),
                        target,
                    );
                }
            }
        }
    }
}

fn format_value(out: &mut Vec<u8>, c: &Conversion, v: Option<&AggValue>, normal: u64, target: i64) {
    match v {
        // The table alone, as DTrace prints it for `%@`: the format's
        // own text follows it.
        Some(AggValue::Dist(d)) => print_distribution(out, d, normal),
        Some(v) => {
            format::format_conv(
                out,
                c,
                Arg::Int(
                    v.normalized(normal),
                    if v.is_unsigned() {
                        dtrace_lang::types::UINT64
                    } else {
                        dtrace_lang::types::INT64
                    },
                ),
                format::fixed(c.width),
                format::fixed(c.precision),
                target,
            );
        }
        None => {}
    }
}

/// Joins the snapshots of several aggregations by key, sorted.
pub fn rows(snaps: &[Vec<AggEntry>], o: SortOpts) -> Vec<Row> {
    if snaps.is_empty() {
        return Vec::new();
    }
    let pos = o.value_pos.min(snaps.len() - 1);
    // Each snapshot's entries by key: a join of thousands of keys must
    // not compare every key with every other.
    let index: Vec<HashMap<&[KeyValue], usize>> = snaps
        .iter()
        .map(|s| {
            s.iter()
                .enumerate()
                .map(|(i, e)| (e.key.as_slice(), i))
                .collect()
        })
        .collect();
    let mut base: Vec<AggEntry> = snaps[pos].clone();
    let mut in_base: std::collections::HashSet<Vec<KeyValue>> = if snaps.len() > 1 {
        base.iter().map(|b| b.key.clone()).collect()
    } else {
        Default::default()
    };
    for (i, s) in snaps.iter().enumerate() {
        if i == pos {
            continue;
        }
        for e in s {
            if in_base.insert(e.key.clone()) {
                base.push(AggEntry {
                    key: e.key.clone(),
                    raw_key: e.raw_key.clone(),
                    merged_keys: Vec::new(),
                    value: e.value.zeroed(),
                    percpu: None,
                });
            }
        }
    }
    sort(&mut base, o);
    base.into_iter()
        .map(|e| {
            let found: Vec<Option<&AggEntry>> = snaps
                .iter()
                .zip(&index)
                .map(|(s, ix)| ix.get(e.key.as_slice()).map(|&i| &s[i]))
                .collect();
            Row {
                values: found.iter().map(|x| x.map(|x| x.value.clone())).collect(),
                percpu: found
                    .iter()
                    .map(|x| x.and_then(|x| x.percpu.clone()))
                    .collect(),
                key: e.key,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use dtrace_lang::types::INT;

    #[test]
    fn quantize_table_layout() {
        let mut words = vec![0u8; 8 * dtrace_lang::ir::QUANTIZE_BUCKETS];
        let at = 8 * (dtrace_lang::ir::QUANTIZE_ZERO + 7); // 64
        words[at..at + 8].copy_from_slice(&1i64.to_ne_bytes());
        let AggValue::Dist(d) = aggs::merge(dtrace_lang::ir::AggFunc::Quantize, &[&words]) else {
            panic!("quantize() decodes to a distribution")
        };
        let mut out = Vec::new();
        print_distribution(&mut out, &d, 1);
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
                merged_keys: Vec::new(),
                value: AggValue::Count(5),
                percpu: None,
            },
            AggEntry {
                key: vec![KeyValue::Str(b"a".to_vec())],
                raw_key: vec![],
                merged_keys: Vec::new(),
                value: AggValue::Count(5),
                percpu: None,
            },
            AggEntry {
                key: vec![KeyValue::Str(b"c".to_vec())],
                raw_key: vec![],
                merged_keys: Vec::new(),
                value: AggValue::Count(1),
                percpu: None,
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
            &[Row::new(vec![KeyValue::Int(3, INT)], AggValue::Sum(500))],
            (&[1], &[AggValue::Sum(0)]),
            14,
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "        3              500\n"
        );
    }
}
