//! Walking aggregations outside any action, in libdtrace's orders:
//! unsorted, by the options, by key and by value, each reversed.
//! Runs against the kernel; skipped without the privilege.

mod common;

use libdtrace::{AggEntry, KeyValue};
use libdtrace::{ProgramSource, SpecKind, WalkOrder};

fn keys(entries: &[AggEntry]) -> String {
    entries
        .iter()
        .map(|e| match &e.key[0] {
            KeyValue::Str(s) => format!("{}={}", String::from_utf8_lossy(s), e.value.scalar()),
            other => format!("{:?}", other),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn aggregations_walk_in_each_order() {
    let Some(mut dt) = common::quiet_handle() else {
        return;
    };
    let p = dt
        .compile(
            r#"BEGIN { @a["b"] = sum(3); @a["c"] = sum(1); @a["a"] = sum(2); @n = count(); }"#,
            ProgramSource::Description(SpecKind::Name),
        )
        .expect("compile");
    dt.exec(&p).expect("exec");
    let mut dt = dt.go().expect("go");
    let walk = |dt: &mut libdtrace::Session, order| {
        let mut seen = Vec::new();
        dt.aggregate_walk_by(order, |name, entries| {
            if name == "a" {
                seen.push(keys(entries));
            } else {
                seen.push(format!("@{} {}", name, entries.len()));
            }
        })
        .expect("walk");
        seen
    };
    assert_eq!(walk(&mut dt, WalkOrder::Value), ["c=1 a=2 b=3", "@n 1"]);
    assert_eq!(walk(&mut dt, WalkOrder::ValueReversed)[0], "b=3 a=2 c=1");
    assert_eq!(walk(&mut dt, WalkOrder::Key)[0], "a=2 b=3 c=1");
    assert_eq!(walk(&mut dt, WalkOrder::KeyReversed)[0], "c=1 b=3 a=2");
    // The options' order: by value, unless aggsortkey.
    assert_eq!(walk(&mut dt, WalkOrder::Options)[0], "c=1 a=2 b=3");
    dt.setopt("aggsortkey", None).expect("aggsortkey");
    assert_eq!(walk(&mut dt, WalkOrder::Options)[0], "a=2 b=3 c=1");
    let mut unsorted: Vec<&str> = Vec::new();
    let all = walk(&mut dt, WalkOrder::Unsorted);
    unsorted.extend(all[0].split(' '));
    unsorted.sort_unstable();
    assert_eq!(unsorted, ["a=2", "b=3", "c=1"]);
    // Cleared: keys kept, values zero.
    dt.aggregate_clear().expect("clear");
    assert_eq!(walk(&mut dt, WalkOrder::Key)[0], "a=0 b=0 c=0");
}
