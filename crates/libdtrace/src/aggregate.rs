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

/// Reads every key of one aggregation from the map it shares (the
/// elements whose first word's low half is its id, one for each CPU that
/// updated the key, its CPU in the high half), each key's elements merged
/// into one row; with `percpu` (the number of CPUs), each CPU's value
/// kept too.
///
/// An aggregation whose tuples are interned (`layout.interned`) has
/// them read from `tuples`, by the hash its keys hold.
pub fn snapshot(
    map: &Map,
    layout: &AggLayout,
    percpu: Option<usize>,
    tuples: Option<&Map>,
) -> io::Result<Vec<AggEntry>> {
    if let Some(slot) = layout.slot {
        return snapshot_slot(map, layout, slot, percpu.is_some());
    }
    let mut out: Vec<AggEntry> = Vec::new();
    // Rows merged from several keys, by decoded key.
    let mut merged: HashMap<Vec<KeyValue>, usize> = HashMap::new();
    let merging = merges(layout);
    for_each_key(map, layout, percpu, tuples, |key, value, cpus, raw| {
        if merging {
            if let Some(e) = merged.get(&key).map(|&i| &mut out[i]) {
                e.value.absorb(&value);
                if let (Some(mine), Some(theirs)) = (e.percpu.as_mut(), cpus.as_ref()) {
                    for (m, t) in mine.iter_mut().zip(theirs) {
                        m.absorb(t);
                    }
                }
                e.merged_keys.extend(raw.map(<[u8]>::to_vec));
                return;
            }
            merged.insert(key.clone(), out.len());
        }
        out.push(AggEntry {
            key,
            value,
            raw_key: raw.next().map(<[u8]>::to_vec).unwrap_or_default(),
            merged_keys: raw.map(<[u8]>::to_vec).collect(),
            percpu: cpus,
        });
    })?;
    Ok(out)
}

/// Whether keys of `layout` that differ may decode alike (addresses in
/// one function, `sym()`, `usym()`, `mod()`...), and so be one row.
fn merges(layout: &AggLayout) -> bool {
    layout.keys.iter().any(|f| {
        f.ty.special()
            .is_some_and(|s| !matches!(s, Special::Stack(_) | Special::UStack(_)))
    })
}

/// Calls `each` with every key of aggregation `layout` in `map`: the
/// key decoded, its value merged over the CPUs, with `percpu` (the
/// number of CPUs) each CPU's value, and the stored keys of its
/// elements (one a CPU that updated it).
fn for_each_key(
    map: &Map,
    layout: &AggLayout,
    percpu: Option<usize>,
    tuples: Option<&Map>,
    mut each: impl FnMut(
        Vec<KeyValue>,
        AggValue,
        Option<Vec<AggValue>>,
        &mut dyn Iterator<Item = &[u8]>,
    ),
) -> io::Result<()> {
    let mut tuple = vec![0u8; layout.interned.map_or(0, |ik| ik.tuple_size as usize)];
    let (klen, vlen) = (map.key_size() as usize, map.value_size() as usize);
    // Every element of this aggregation, a key on one CPU: the map is
    // shared by the aggregations of one value size, and a key's first
    // word holds its aggregation's id and the CPU. Read thousands at a
    // time, into two flat tables.
    let (mut keys, mut vals) = (Vec::new(), Vec::new());
    map.lookup_batch(|k, v| {
        let (id, _) = dtrace_bpf::plan::agg_key_parts(read_i64(k, 0) as u64);
        if id != layout.id || keys.len() / klen.max(1) >= 16 << 20 {
            return;
        }
        keys.extend_from_slice(k);
        vals.extend_from_slice(v);
    })?;
    let n = keys.len() / klen.max(1);
    let key = |i: usize| &keys[i * klen..(i + 1) * klen];
    let val = |i: usize| &vals[i * vlen..(i + 1) * vlen];
    // The elements of one key, whatever their CPUs, next to each other:
    // ordered by a hash of the key (a compact table), then its bytes.
    let hash = |b: &[u8]| {
        use std::hash::Hasher;
        let mut h = rustc_hash::FxHasher::default();
        h.write(b);
        h.finish()
    };
    let mut by_hash: Vec<(u64, u32)> = (0..n).map(|i| (hash(&key(i)[8..]), i as u32)).collect();
    by_hash.sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| key(a.1 as usize)[8..].cmp(&key(b.1 as usize)[8..]))
    });
    let zero = vec![0u8; vlen];
    let mut slices: Vec<&[u8]> = Vec::new();
    let mut at = 0;
    while at < by_hash.len() {
        let (h, first) = (by_hash[at].0, by_hash[at].1 as usize);
        let mut end = at + 1;
        while end < by_hash.len()
            && by_hash[end].0 == h
            && key(by_hash[end].1 as usize)[8..] == key(first)[8..]
        {
            end += 1;
        }
        let group = &by_hash[at..end];
        at = end;
        let k = key(first);
        let decoded = match (layout.interned, tuples) {
            (Some(_), Some(t)) => match k.get(8..16).map(|h| t.lookup(h, &mut tuple)) {
                Some(Ok(true)) => decode_key(layout, &tuple),
                // Its tuple not there (yet): not a row.
                _ => continue,
            },
            _ => decode_key(layout, k),
        };
        let value = match group {
            [one] => aggs::merge(layout.func, &[val(one.1 as usize)]),
            _ => {
                slices.clear();
                slices.extend(group.iter().map(|g| val(g.1 as usize)));
                aggs::merge(layout.func, &slices)
            }
        };
        let cpus = percpu.map(|ncpus| {
            (0..ncpus)
                .map(|c| {
                    let mine = group.iter().find(|g| {
                        let word = read_i64(key(g.1 as usize), 0) as u64;
                        dtrace_bpf::plan::agg_key_parts(word).1 as usize == c
                    });
                    let v = mine.map_or(&zero[..], |g| val(g.1 as usize));
                    aggs::merge(layout.func, &[v])
                })
                .collect::<Vec<_>>()
        });
        let mut raw = group.iter().map(|g| key(g.1 as usize));
        each(decoded, value, cpus, &mut raw);
    }
    Ok(())
}

/// One aggregation's rows in flat tables, for printing: a row is its
/// key's elements and its value, with no heap object of its own where
/// its key has none (a million integer keys are a few tens of bytes
/// each).
#[derive(Debug, Default)]
pub struct AggTable {
    /// Key elements per row.
    nkeys: usize,
    keys: Vec<KeyValue>,
    values: Vec<AggValue>,
    /// With `aggpercpu`: each row's values by CPU.
    percpu: Vec<Vec<AggValue>>,
}

impl AggTable {
    /// How many rows.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True if there are no rows.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    fn key(&self, i: usize) -> &[KeyValue] {
        &self.keys[i * self.nkeys..(i + 1) * self.nkeys]
    }

    /// The rows of `entries` (an aggregation with no keys, or one kept
    /// by the consumer).
    pub(crate) fn of_entries(entries: Vec<AggEntry>) -> AggTable {
        let mut t = AggTable {
            nkeys: entries.first().map_or(0, |e| e.key.len()),
            ..Default::default()
        };
        for e in entries {
            t.keys.extend(e.key);
            t.values.push(e.value);
            if let Some(p) = e.percpu {
                t.percpu.push(p);
            }
        }
        t
    }

    /// The order `sort` would put the rows in.
    pub fn sorted(&self, o: SortOpts) -> Vec<u32> {
        sorted_order(self.len(), |i| self.key(i), |i| &self.values[i], o)
    }
}

/// Reads aggregation `layout` from `map` into an [`AggTable`] (see
/// [`snapshot`]).
pub fn table(
    map: &Map,
    layout: &AggLayout,
    percpu: Option<usize>,
    tuples: Option<&Map>,
) -> io::Result<AggTable> {
    if layout.slot.is_some() {
        return Ok(AggTable::of_entries(snapshot(map, layout, percpu, tuples)?));
    }
    let mut t = AggTable {
        nkeys: layout.keys.len(),
        ..Default::default()
    };
    let mut merged: HashMap<Vec<KeyValue>, usize> = HashMap::new();
    let merging = merges(layout);
    for_each_key(map, layout, percpu, tuples, |key, value, cpus, _| {
        if merging {
            if let Some(&i) = merged.get(&key) {
                t.values[i].absorb(&value);
                if let (Some(mine), Some(theirs)) = (t.percpu.get_mut(i), cpus.as_ref()) {
                    for (m, x) in mine.iter_mut().zip(theirs) {
                        m.absorb(x);
                    }
                }
                return;
            }
            merged.insert(key.clone(), t.values.len());
        }
        t.keys.extend(key);
        t.values.push(value);
        if let Some(c) = cpus {
            t.percpu.push(c);
        }
    })?;
    Ok(t)
}

/// Rows as the printers read them: joined rows of several aggregations
/// (`printa(@a, @b)`), or one aggregation's table in an order.
#[derive(Clone, Copy)]
pub enum AggRows<'a> {
    /// Rows made whole (several aggregations joined by key).
    Joined(&'a [Row]),
    /// One aggregation's table, its rows in `order` (indices).
    Table {
        /// The rows.
        table: &'a AggTable,
        /// The order they are printed in: `order[k]` is the `k`th row.
        order: &'a [u32],
    },
}

/// One row of [`AggRows`].
#[derive(Clone, Copy)]
pub struct RowRef<'a> {
    /// The key's elements.
    pub key: &'a [KeyValue],
    values: RowValues<'a>,
}

#[derive(Clone, Copy)]
enum RowValues<'a> {
    Joined(&'a Row),
    One(&'a AggValue, Option<&'a [AggValue]>),
}

impl<'a> RowRef<'a> {
    /// How many aggregations' values the row has.
    pub fn columns(&self) -> usize {
        match self.values {
            RowValues::Joined(r) => r.values.len(),
            RowValues::One(..) => 1,
        }
    }

    /// Column `i`'s value (None: the key is not in that aggregation).
    pub fn value(&self, i: usize) -> Option<&'a AggValue> {
        match self.values {
            RowValues::Joined(r) => r.values.get(i).and_then(Option::as_ref),
            RowValues::One(v, _) => (i == 0).then_some(v),
        }
    }

    /// With `aggpercpu`: column `i`'s values by CPU.
    pub fn percpu(&self, i: usize) -> Option<&'a [AggValue]> {
        match self.values {
            RowValues::Joined(r) => r.percpu.get(i).and_then(Option::as_deref),
            RowValues::One(_, p) => p.filter(|_| i == 0),
        }
    }

    /// The row, owned.
    pub fn to_row(&self) -> Row {
        Row {
            key: self.key.to_vec(),
            values: (0..self.columns())
                .map(|i| self.value(i).cloned())
                .collect(),
            percpu: (0..self.columns())
                .map(|i| self.percpu(i).map(<[AggValue]>::to_vec))
                .collect(),
        }
    }
}

impl<'a> AggRows<'a> {
    /// How many rows.
    pub fn len(&self) -> usize {
        match self {
            AggRows::Joined(r) => r.len(),
            AggRows::Table { order, .. } => order.len(),
        }
    }

    /// Row `i`.
    pub fn get(&self, i: usize) -> Option<RowRef<'a>> {
        match *self {
            AggRows::Joined(r) => r.get(i).map(|r| RowRef {
                key: &r.key,
                values: RowValues::Joined(r),
            }),
            AggRows::Table { table, order } => order.get(i).map(|&k| {
                let k = k as usize;
                RowRef {
                    key: table.key(k),
                    values: RowValues::One(
                        &table.values[k],
                        table.percpu.get(k).map(Vec::as_slice),
                    ),
                }
            }),
        }
    }

    /// The rows in order.
    pub fn iter(&self) -> impl Iterator<Item = RowRef<'a>> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// True if there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows as owned [`Row`]s.
    pub fn to_rows(&self) -> Vec<Row> {
        self.iter().map(|r| r.to_row()).collect()
    }

    /// The rows in pieces of `n`.
    pub fn pieces(&self, n: usize) -> Vec<AggRows<'a>> {
        let n = n.max(1);
        match *self {
            AggRows::Joined(r) => r.chunks(n).map(AggRows::Joined).collect(),
            AggRows::Table { table, order } => order
                .chunks(n)
                .map(|order| AggRows::Table { table, order })
                .collect(),
        }
    }
}

fn cmp_key(a: &[KeyValue], b: &[KeyValue]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x, y) {
            // As DTrace compares them (dt_aggregate_keycmp): the key's
            // bytes as an unsigned integer of its size, so that -1 sorts
            // after 1.
            (KeyValue::Int(p, t), KeyValue::Int(q, _)) => int_key(*p, t).cmp(&int_key(*q, t)),
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
    let order = sorted_order(entries.len(), |i| &entries[i].key, |i| &entries[i].value, o);
    apply_order(entries, &order);
}

/// The order `sort` puts `n` rows in (their keys and values given by
/// index): `order[k]` is the row that goes to place `k`. Indices are
/// sorted, not the rows (which are large): with one integer key, on a
/// compact table of each row's value and key; otherwise by comparing the
/// rows.
fn sorted_order<'a>(
    n: usize,
    key: impl Fn(usize) -> &'a [KeyValue],
    value: impl Fn(usize) -> &'a AggValue,
    o: SortOpts,
) -> Vec<u32> {
    let finish = |ord: Ordering| if o.reverse { ord.reverse() } else { ord };
    let one_int = (0..n).all(|i| matches!(key(i), [KeyValue::Int(..)]));
    if one_int {
        let mut table: Vec<((i128, i128), u64, u32)> = (0..n)
            .map(|i| {
                let k = match key(i) {
                    [KeyValue::Int(v, t)] => int_key(*v, t),
                    _ => 0,
                };
                (value(i).sort_key(), k, i as u32)
            })
            .collect();
        table.sort_unstable_by(|a, b| {
            finish(if o.by_key {
                a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0))
            } else {
                a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1))
            })
            .then_with(|| a.2.cmp(&b.2))
        });
        return table.into_iter().map(|t| t.2).collect();
    }
    let key_cmp = |a: &[KeyValue], b: &[KeyValue]| {
        let pa = o.key_pos.min(a.len());
        let pb = o.key_pos.min(b.len());
        cmp_key(&a[pa..], &b[pb..]).then_with(|| cmp_key(a, b))
    };
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by(|&x, &y| {
        let (x, y) = (x as usize, y as usize);
        finish(if o.by_key {
            key_cmp(key(x), key(y)).then_with(|| value(x).sort_key().cmp(&value(y).sort_key()))
        } else {
            value(x)
                .sort_key()
                .cmp(&value(y).sort_key())
                .then_with(|| key_cmp(key(x), key(y)))
        })
    });
    order
}

/// An integer key as DTrace compares them (`dt_aggregate_keycmp`): its
/// bytes as an unsigned integer of its size, so that -1 sorts after 1.
fn int_key(v: i64, t: &IntType) -> u64 {
    let mask = match t.size {
        1 => 0xff,
        2 => 0xffff,
        4 => 0xffff_ffff,
        _ => u64::MAX,
    };
    v as u64 & mask
}

/// Puts `entries` in `order` (`order[k]` the entry that goes to place
/// `k`), a cycle of swaps at a time.
fn apply_order<T>(entries: &mut [T], order: &[u32]) {
    let mut done = vec![false; entries.len()];
    for i in 0..entries.len() {
        if done[i] {
            continue;
        }
        let mut j = i;
        loop {
            done[j] = true;
            let k = order[j] as usize;
            if k == i {
                break;
            }
            entries.swap(j, k);
            j = k;
        }
    }
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
/// use libdtrace::{AggRows, Consume, Consumer, ProbeData, Row};
/// /// Keeps printa()'s rows to draw them, printing nothing.
/// #[derive(Default)]
/// struct Chart(Vec<Row>);
/// impl Consumer for Chart {
///     fn aggregation(&mut self, _out: &mut dyn std::io::Write, _pd: &ProbeData, _names: &[&str], rows: &AggRows) -> Consume {
///         self.0.extend(rows.to_rows());
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
pub fn print_default(
    out: &mut Vec<u8>,
    rows: &AggRows,
    cols: (&[u64], &[AggValue]),
    indent: usize,
) {
    let (normals, zeros) = cols;
    for row in rows.iter() {
        let value = |i: usize| row.value(i).or(zeros.get(i));
        let dist = (0..row.columns()).any(|i| value(i).is_some_and(AggValue::is_distribution));
        for k in row.key {
            key_default(out, k, indent);
        }
        if dist {
            // The key line is ended by the newline that opens the table.
            for i in 0..row.columns() {
                if let Some(AggValue::Dist(d)) = value(i) {
                    print_distribution(out, d, normal_of(normals, i));
                    out.push(b'\n');
                }
            }
        } else {
            for i in 0..row.columns() {
                match value(i) {
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
    rows: &AggRows,
    cols: (&[u64], &[AggValue]),
    indent: usize,
    target: i64,
) {
    let (normals, zeros) = cols;
    for row in rows.iter() {
        let key = row.key;
        let mut ki = 0;
        let mut vi = 0;
        for seg in &fmt.segments {
            match seg {
                Segment::Literal(b) => out.extend_from_slice(b),
                Segment::Conv(c) if c.is_agg() => {
                    // With one aggregation, every %@ is its value.
                    let col = if row.columns() == 1 { 0 } else { vi };
                    let v = row.value(col).or(zeros.get(col));
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
pub fn rows(mut snaps: Vec<Vec<AggEntry>>, o: SortOpts) -> Vec<Row> {
    if snaps.is_empty() {
        return Vec::new();
    }
    if snaps.len() == 1 {
        // One aggregation: its entries, sorted, become the rows as they
        // are (a million keys must not be copied, nor indexed).
        let mut only = snaps.pop().unwrap_or_default();
        sort(&mut only, o);
        return only
            .into_iter()
            .map(|e| Row {
                key: e.key,
                values: vec![Some(e.value)],
                percpu: vec![e.percpu],
            })
            .collect();
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
        // The sum of the values, then the buckets.
        let mut words = vec![0u8; 8 * (dtrace_lang::ir::QUANTIZE_BUCKETS + 1)];
        let at = 8 * (dtrace_lang::ir::QUANTIZE_ZERO + 7 + 1); // 64
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
    fn an_order_is_applied_in_place() {
        let mut v = vec!['a', 'b', 'c', 'd', 'e'];
        apply_order(&mut v, &[2, 0, 1, 4, 3]);
        assert_eq!(v, vec!['c', 'a', 'b', 'e', 'd']);
        let mut w: Vec<u32> = (0..100).collect();
        let order: Vec<u32> = (0..100).rev().collect();
        apply_order(&mut w, &order);
        assert_eq!(w, order);
    }

    #[test]
    fn integer_keys_sort_as_dtrace_compares_them() {
        let ty = INT;
        // Equal values: by key, -1 (0xffffffff) after 1; then by value,
        // reversed too.
        let t = AggTable {
            nkeys: 1,
            keys: vec![
                KeyValue::Int(-1, ty),
                KeyValue::Int(1, ty),
                KeyValue::Int(7, ty),
            ],
            values: vec![AggValue::Count(2), AggValue::Count(2), AggValue::Count(1)],
            percpu: Vec::new(),
        };
        assert_eq!(t.sorted(SortOpts::default()), vec![2, 1, 0]);
        let by_key = SortOpts {
            by_key: true,
            ..Default::default()
        };
        assert_eq!(t.sorted(by_key), vec![1, 2, 0]);
        let reversed = SortOpts {
            reverse: true,
            ..Default::default()
        };
        assert_eq!(t.sorted(reversed), vec![0, 1, 2]);
        // Printed a piece at a time, the same text as whole.
        let order = t.sorted(SortOpts::default());
        let rows = AggRows::Table {
            table: &t,
            order: &order,
        };
        let (mut whole, mut pieces) = (Vec::new(), Vec::new());
        print_default(&mut whole, &rows, (&[1], &[AggValue::Count(0)]), 0);
        for p in rows.pieces(2) {
            print_default(&mut pieces, &p, (&[1], &[AggValue::Count(0)]), 0);
        }
        assert_eq!(whole, pieces);
        assert_eq!(
            String::from_utf8(whole).unwrap(),
            "        7                1\n        1                2\n       -1                2\n"
        );
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
            &AggRows::Joined(&[Row::new(vec![KeyValue::Int(3, INT)], AggValue::Sum(500))]),
            (&[1], &[AggValue::Sum(0)]),
            14,
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "        3              500\n"
        );
    }
}
