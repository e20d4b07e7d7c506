//! The consumer callbacks see decoded values: each record's values as
//! `Arg`s (integers with their types, strings, stacks), not bytes and
//! offsets. Runs against the kernel; skipped without the privilege.

mod common;

use std::io::Write;

use libdtrace::AggRows;
use libdtrace::Arg;
use libdtrace::{
    Consume, Consumer, ProbeData, ProgramSource, RecDesc, RecKind, SpecKind, WorkStatus,
};

#[derive(Default)]
struct Collect {
    seen: Vec<(RecKind, String)>,
    ends: usize,
    rows: Vec<String>,
}

impl Consumer for Collect {
    fn aggregation(
        &mut self,
        _out: &mut dyn Write,
        _pd: &ProbeData,
        names: &[&str],
        rows: &AggRows,
    ) -> Consume {
        for r in rows.to_rows() {
            self.rows
                .push(format!("@{} {:?} {:?}", names.join(","), r.key, r.values));
        }
        // Printed by the callback's owner, not the library.
        Consume::Next
    }

    fn record(&mut self, _out: &mut dyn Write, _pd: &ProbeData, rec: Option<&RecDesc>) -> Consume {
        match rec {
            None => self.ends += 1,
            Some(r) => {
                let vals: Vec<String> = r
                    .values
                    .iter()
                    .map(|v| match v {
                        Arg::Int(i, t) => format!("{}:{}", i, t.name),
                        Arg::Str(s) => format!("{:?}", String::from_utf8_lossy(s)),
                        Arg::Stack(b, _) => format!("stack of {} bytes", b.len()),
                        other => format!("{:?}", other),
                    })
                    .collect();
                self.seen.push((r.kind, vals.join(" ")));
            }
        }
        Consume::This
    }
}

/// Runs a `-n` program to its exit() with `consumer`; what was printed
/// (None without the privilege).
fn run(program: &str, consumer: &mut dyn Consumer) -> Option<Vec<u8>> {
    let mut dt = common::quiet_handle()?;
    let p = dt
        .compile(program, ProgramSource::Description(SpecKind::Name))
        .expect("compile");
    dt.exec(&p).expect("exec");
    let mut dt = dt.go().expect("go");
    let mut out: Vec<u8> = Vec::new();
    for _ in 0..1000 {
        dt.sleep(&[]);
        if dt.work(&mut out, consumer).expect("work") == WorkStatus::Done {
            break;
        }
    }
    Some(out)
}

#[test]
fn records_reach_the_consumer_decoded() {
    let mut c = Collect::default();
    let Some(out) = run(
        r#"BEGIN { trace(42); printf("%s %d\n", "x", (short)7); stack(2); setopt("aggsortrev"); @c["k"] = count(); printa(@c); exit(3); }"#,
        &mut c,
    ) else {
        return;
    };
    assert_eq!(
        c.seen,
        vec![
            (RecKind::Trace, "42:int".to_string()),
            (RecKind::Printf, "\"x\" 7:short".to_string()),
            (RecKind::Trace, "stack of 16 bytes".to_string()),
            (RecKind::Setopt, "\"aggsortrev\"".to_string()),
            (RecKind::Printa, String::new()),
            (RecKind::Exit, "3:int".to_string()),
        ]
    );
    assert_eq!(c.rows, vec!["@c [Str([107])] [Some(Count(1))]".to_string()]);
    assert_eq!(c.ends, 1);
    let text = String::from_utf8_lossy(&out);
    assert!(text.starts_with("42x 7\n\n"), "{}", text);
    // BEGIN's kernel stack is dtrace's own system call: empty.
    assert_eq!(
        text.lines().filter(|l| l.contains("vmlinux`")).count(),
        0,
        "{}",
        text
    );
}

/// Seed 002: the record callback sees every statement, a statement that
/// is not an action as a record of size 0; a statement under an `if`
/// only when its branch ran.
#[test]
fn statements_reach_the_record_callback_with_no_size() {
    #[derive(Default)]
    struct Recs(Vec<(RecKind, u32, u32)>);
    impl Consumer for Recs {
        fn record(
            &mut self,
            _out: &mut dyn Write,
            _pd: &ProbeData,
            rec: Option<&RecDesc>,
        ) -> Consume {
            if let Some(r) = rec {
                self.0.push((r.kind, r.size, r.action));
            }
            Consume::This
        }
    }
    let mut c = Recs::default();
    let Some(out) = run(
        r#"BEGIN { n = 1; printf("%s %d\n", "cat", 9); if (n == 1) { m = 2; } else { k = 3; } trace(n); exit(0); }"#,
        &mut c,
    ) else {
        return;
    };
    assert_eq!(
        c.0,
        vec![
            (RecKind::Statement, 0, 1),
            (RecKind::Printf, 0, 2),
            (RecKind::Statement, 0, 4),
            (RecKind::Trace, 8, 6),
            (RecKind::Exit, 0, 7),
        ]
    );
    // Statements print nothing.
    assert_eq!(String::from_utf8_lossy(&out), "cat 9\n1");
}
