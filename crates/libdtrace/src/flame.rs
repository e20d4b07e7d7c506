//! Flame graphs of stack aggregations (the `flamegraph` option): the
//! rows of an aggregation keyed by `stack()` are folded as
//! stackcollapse.pl folds them (root frame first, `;` between frames,
//! then the count) and drawn as an SVG by the `inferno` crate, so
//! `profile-997 { @[stack()] = count(); }` becomes a picture without
//! external scripts. Other keys of the row (an `execname`, say) become
//! frames below the stack's root. A row with a kernel and a user stack
//! (`@[stack(), ustack()]`) is one path, as perf folds it: the user
//! stack from its root, then the kernel stack, whose frames are marked
//! `_[k]` (the mark flamegraph.pl's palettes colour kernel frames by;
//! the SVG then has them orange, the user frames red).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};

use crate::aggregate::{AggEntry, KeyValue};
use crate::ksym;

/// A recorded user stack's functions, root first, without their
/// offsets (as stackcollapse.pl writes frames).
pub(crate) fn ustack_functions(b: &[u8]) -> Vec<String> {
    let mut f: Vec<String> = crate::usym::ustack_frames(b)
        .into_iter()
        .map(|t| match t.rsplit_once("+0x") {
            Some((func, _)) => func.to_string(),
            None => t,
        })
        .collect();
    f.reverse();
    f
}

/// The folded lines of an aggregation's rows (`a;b;c N`), those with a
/// positive value only. Frames are functions without their offsets, as
/// stackcollapse.pl writes them, so rows that differ only in offsets are
/// one line.
pub fn folded(entries: &[AggEntry], normal: u64) -> Vec<String> {
    let mut lines: BTreeMap<String, i64> = BTreeMap::new();
    for e in entries {
        let n = e.value.normalized(normal);
        if n <= 0 {
            continue;
        }
        let mixed = e.key.iter().any(|k| matches!(k, KeyValue::Stack(_)))
            && e.key.iter().any(|k| matches!(k, KeyValue::UStack(_)));
        let mut frames: Vec<String> = Vec::new();
        let mut kernel: Vec<String> = Vec::new();
        for k in &e.key {
            match k {
                KeyValue::Stack(b) => {
                    let mut f: Vec<String> = ksym::frames(b)
                        .map(ksym::sym_text)
                        .map(|f| if mixed { f + "_[k]" } else { f })
                        .collect();
                    f.reverse();
                    if mixed {
                        kernel.extend(f);
                    } else {
                        frames.extend(f);
                    }
                }
                KeyValue::UStack(b) => frames.extend(ustack_functions(b)),
                KeyValue::Str(s) => frames.push(String::from_utf8_lossy(s).into_owned()),
                KeyValue::Int(v, _) => frames.push(v.to_string()),
                KeyValue::Sym(a) => frames.push(ksym::sym_text(*a)),
                KeyValue::Mod(m) => frames.push(m.clone()),
                KeyValue::Bytes(_) => {}
            }
        }
        // The kernel was entered from the user stack's leaf.
        frames.extend(kernel);
        if frames.is_empty() {
            frames.push("-".to_string());
        }
        // `;` separates frames and a space ends them in the folded form.
        let frames: Vec<String> = frames
            .into_iter()
            .map(|f| f.replace([';', ' '], "_"))
            .collect();
        let c = lines.entry(frames.join(";")).or_insert(0);
        *c = c.saturating_add(n);
    }
    lines
        .into_iter()
        .map(|(f, n)| format!("{} {}", f, n))
        .collect()
}

/// Whether an aggregation with these key types can be drawn: one of
/// them is a stack (`stack()`, `ustack()`, `jstack()`).
pub fn keyed_by_stack(keys: &[dtrace_lang::types::Type]) -> bool {
    use dtrace_lang::types::Special;
    keys.iter()
        .any(|k| matches!(k.special(), Some(Special::Stack(_) | Special::UStack(_))))
}

/// Writes the flame graph of `lines` to `file` (opened when tracing
/// began), titled `title`.
pub fn write_svg(file: File, title: &str, lines: &[String]) -> io::Result<()> {
    let mut opts = inferno::flamegraph::Options::default();
    opts.title = title.to_string();
    opts.count_name = "samples".to_string();
    // Kernel frames marked in mixed stacks are orange, the others red
    // (the palette of inferno's that knows the mark and nothing of
    // `module`function` names).
    if lines
        .iter()
        .any(|l| l.contains("_[k];") || l.contains("_[k] "))
    {
        opts.colors = inferno::flamegraph::color::Palette::Multi(
            inferno::flamegraph::color::MultiPalette::Perl,
        );
    }
    let mut w = BufWriter::new(file);
    inferno::flamegraph::from_lines(&mut opts, lines.iter().map(String::as_str), &mut w)
        .map_err(|e| io::Error::other(e.to_string()))?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aggregate::AggValue;

    #[test]
    fn folds_root_first() {
        let mut stack = Vec::new();
        for pc in [0x10u64, 0x20, 0] {
            stack.extend_from_slice(&pc.to_ne_bytes());
        }
        let e = AggEntry {
            key: vec![KeyValue::Str(b"my prog".to_vec()), KeyValue::Stack(stack)],
            raw_key: Vec::new(),
            merged_keys: Vec::new(),
            value: AggValue::Count(3),
            percpu: None,
        };
        let lines = folded(&[e], 1);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].starts_with("my_prog;"), "{}", lines[0]);
        assert!(lines[0].ends_with(" 3"), "{}", lines[0]);
        let svg = std::env::temp_dir().join(format!("dtrace-flame-{}.svg", std::process::id()));
        let path = svg.to_str().unwrap();
        write_svg(File::create(path).unwrap(), "test", &lines).unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        std::fs::remove_file(path).ok();
        assert!(text.contains("<svg"));
    }

    #[test]
    fn mixed_stacks_are_one_path_kernel_marked() {
        let mut kstack = Vec::new();
        for pc in [0x10u64, 0] {
            kstack.extend_from_slice(&pc.to_ne_bytes());
        }
        // A user stack of one frame, by address (process 0: unnamed).
        let mut ustack = Vec::new();
        for w in [0u64, dtrace_lang::types::USTACK_IP | 0x4000, 0] {
            ustack.extend_from_slice(&w.to_ne_bytes());
        }
        let e = AggEntry {
            key: vec![KeyValue::Stack(kstack), KeyValue::UStack(ustack)],
            raw_key: Vec::new(),
            merged_keys: Vec::new(),
            value: AggValue::Count(2),
            percpu: None,
        };
        let lines = folded(&[e], 1);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].starts_with("0x4000;"), "{}", lines[0]);
        assert!(lines[0].ends_with("_[k] 2"), "{}", lines[0]);
    }
}
