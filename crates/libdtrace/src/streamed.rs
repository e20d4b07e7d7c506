//! Streamed aggregations: those keyed by a user stack (`ustack()`,
//! `jstack()`), which only the consumer can unwind. The kernel keeps no
//! map for them; each update is a record of the clause
//! (`ActionLayout::AggUpdate`): the keys as recorded and the function's
//! words as that one update leaves them from zero. The consumer unwinds
//! the stack, and folds the update into its own rows, keyed by the
//! unwound frames, so one call path is one row however its stack bytes
//! differ. Snapshots, `clear()`, `trunc()` and printing read these rows
//! as they read a map's.
//!
//! The rows are bounded as the kernel's are, by `aggsize`: an update
//! that would need a new row beyond it is an aggregation drop, counted
//! on the CPU that recorded it.

use std::collections::HashMap;

use dtrace_bpf::aggs::{self, AggValue};
use dtrace_bpf::plan::AggLayout;

use crate::aggregate::{AggEntry, KeyValue};

/// One row: its value (`None` once cleared, until updated again) and,
/// when asked for, each CPU's.
struct Row {
    value: Option<AggValue>,
    percpu: Vec<Option<AggValue>>,
}

/// One streamed aggregation's rows.
#[derive(Default)]
struct Table {
    rows: HashMap<Vec<KeyValue>, Row>,
    /// The bytes the rows take, as `aggsize` counts them.
    bytes: u64,
}

/// Every streamed aggregation of a program, and the updates dropped.
#[derive(Default)]
pub(crate) struct Tables {
    tables: HashMap<usize, Table>,
    /// Aggregation drops by CPU.
    pub(crate) drops: Vec<u64>,
}

/// What one row costs against `aggsize`: its key, its words, and the
/// table's own overhead.
fn row_bytes(key: &[KeyValue], layout: &AggLayout) -> u64 {
    let key: usize = key
        .iter()
        .map(|k| match k {
            KeyValue::Str(b) | KeyValue::Stack(b) | KeyValue::UStack(b) | KeyValue::Bytes(b) => {
                b.len()
            }
            KeyValue::Mod(m) => m.len(),
            _ => 8,
        })
        .sum();
    key as u64 + u64::from(layout.value_size) + 64
}

impl Tables {
    /// Folds one update (`words`, as the probe left them from zero) into
    /// the row of `key`, on `cpu`; `aggsize` bounds the rows.
    pub(crate) fn fold(
        &mut self,
        layout: &AggLayout,
        key: Vec<KeyValue>,
        words: &[u8],
        cpu: usize,
        aggsize: u64,
    ) {
        let v = aggs::merge(layout.func, &[words]);
        let t = self.tables.entry(layout.id as usize).or_default();
        let row = match t.rows.get_mut(&key) {
            Some(r) => r,
            None => {
                let cost = row_bytes(&key, layout);
                if t.bytes.saturating_add(cost) > aggsize {
                    if self.drops.len() <= cpu {
                        self.drops.resize(cpu + 1, 0);
                    }
                    self.drops[cpu] += 1;
                    return;
                }
                t.bytes += cost;
                t.rows.entry(key).or_insert(Row {
                    value: None,
                    percpu: Vec::new(),
                })
            }
        };
        match &mut row.value {
            Some(have) => have.absorb(&v),
            None => row.value = Some(v.clone()),
        }
        if row.percpu.len() <= cpu {
            row.percpu.resize(cpu + 1, None);
        }
        match &mut row.percpu[cpu] {
            Some(have) => have.absorb(&v),
            None => row.percpu[cpu] = Some(v),
        }
    }

    /// The rows of aggregation `layout`, as a snapshot of a map gives
    /// them; `ncpus` values each with `percpu`.
    pub(crate) fn snapshot(&self, layout: &AggLayout, percpu: bool, ncpus: usize) -> Vec<AggEntry> {
        let Some(t) = self.tables.get(&(layout.id as usize)) else {
            return Vec::new();
        };
        let zero = || AggValue::zero(layout.func);
        t.rows
            .iter()
            .map(|(k, r)| AggEntry {
                key: k.clone(),
                raw_key: Vec::new(),
                merged_keys: Vec::new(),
                value: r.value.clone().unwrap_or_else(zero),
                percpu: percpu.then(|| {
                    (0..ncpus.max(r.percpu.len()))
                        .map(|c| r.percpu.get(c).cloned().flatten().unwrap_or_else(zero))
                        .collect()
                }),
            })
            .collect()
    }

    /// clear(): every value zero, the keys kept.
    pub(crate) fn clear(&mut self, id: usize) {
        if let Some(t) = self.tables.get_mut(&id) {
            for r in t.rows.values_mut() {
                r.value = None;
                r.percpu.clear();
            }
        }
    }

    /// Removes the rows of these keys (`trunc()`).
    pub(crate) fn remove(&mut self, id: usize, keys: &[Vec<KeyValue>], layout: &AggLayout) {
        if let Some(t) = self.tables.get_mut(&id) {
            for k in keys {
                if t.rows.remove(k).is_some() {
                    t.bytes = t.bytes.saturating_sub(row_bytes(k, layout));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dtrace_lang::ir::AggFunc;

    fn layout(func: AggFunc) -> AggLayout {
        AggLayout {
            map: dtrace_bpf::asm::MapId(u32::MAX),
            id: 3,
            func,
            keys: Vec::new(),
            key_size: 0,
            value_size: aggs::value_size(func),
            slot: None,
            interned: None,
            streamed: true,
        }
    }

    fn words(ws: &[i64]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_ne_bytes()).collect()
    }

    #[test]
    fn updates_fold_by_key_and_clear_keeps_keys() {
        let l = layout(AggFunc::Count);
        let mut t = Tables::default();
        let a = vec![KeyValue::UStack(vec![1, 2, 3])];
        let b = vec![KeyValue::UStack(vec![4])];
        t.fold(&l, a.clone(), &words(&[1]), 0, 1 << 20);
        t.fold(&l, a.clone(), &words(&[1]), 1, 1 << 20);
        t.fold(&l, b.clone(), &words(&[1]), 1, 1 << 20);
        let s = t.snapshot(&l, true, 2);
        assert_eq!(s.len(), 2);
        let row = s.iter().find(|e| e.key == a).unwrap();
        assert_eq!(row.value, AggValue::Count(2));
        assert_eq!(
            row.percpu.as_deref(),
            Some(&[AggValue::Count(1), AggValue::Count(1)][..])
        );
        t.clear(3);
        let s = t.snapshot(&l, false, 2);
        assert!(s.iter().all(|e| e.value == AggValue::Count(0)));
        t.remove(3, &[a], &l);
        assert_eq!(t.snapshot(&l, false, 2).len(), 1);
    }

    #[test]
    fn min_after_clear_starts_again() {
        // min()'s words: the value, then a word saying it is set.
        let l = layout(AggFunc::Min);
        let mut t = Tables::default();
        let k = vec![KeyValue::Int(
            1,
            dtrace_lang::types::IntType::new(8, true, "int"),
        )];
        t.fold(&l, k.clone(), &words(&[5, 1]), 0, 1 << 20);
        t.fold(&l, k.clone(), &words(&[3, 1]), 0, 1 << 20);
        assert_eq!(t.snapshot(&l, false, 1)[0].value, AggValue::Min(3));
        t.clear(3);
        t.fold(&l, k, &words(&[9, 1]), 0, 1 << 20);
        assert_eq!(t.snapshot(&l, false, 1)[0].value, AggValue::Min(9));
    }

    #[test]
    fn rows_beyond_aggsize_are_drops() {
        let l = layout(AggFunc::Count);
        let mut t = Tables::default();
        for i in 0..10 {
            t.fold(&l, vec![KeyValue::UStack(vec![i])], &words(&[1]), 1, 200);
        }
        assert_eq!(t.snapshot(&l, false, 2).len(), 2);
        assert_eq!(t.drops, vec![0, 8]);
    }
}
