//! Drops reach the drop handler with their kind, count and dtrace(1M)'s
//! message, and account for what did not fit: entries kept plus entries
//! dropped are the events made. Runs against the kernel; skipped
//! without the privilege.

mod common;

use std::sync::{Arc, Mutex};

use libdtrace::{DropData, DropKind, NullConsumer, ProgramSource, SpecKind, WalkOrder};

/// Runs `program` over `calls` of this process's getpid calls with
/// `opt` set; the drops the handler got, and the entries of the
/// aggregations. (One test runs them in turn: both trace this process.)
fn run(opt: &str, program: &str, calls: usize) -> Option<(Vec<DropData>, usize)> {
    let mut dt = common::quiet_handle()?;
    dt.setopt(opt.split('=').next()?, opt.split('=').nth(1))
        .expect("option");
    let drops = Arc::new(Mutex::new(Vec::new()));
    let sink = drops.clone();
    dt.handle_drop(move |d| sink.lock().expect("drops").push(d.clone()));
    let p = dt
        .compile(program, ProgramSource::Description(SpecKind::Name))
        .expect("compile");
    dt.exec(&p).expect("exec");
    dt.go().expect("go");
    for _ in 0..calls {
        std::hint::black_box(std::process::id());
    }
    dt.stop().expect("stop");
    let mut out: Vec<u8> = Vec::new();
    while dt.work(&mut out, &mut NullConsumer).expect("work") != libdtrace::WorkStatus::Done {}
    let mut entries = 0;
    dt.aggregate_walk_by(WalkOrder::Unsorted, |_, e| entries += e.len())
        .expect("walk");
    let d = drops.lock().expect("drops").clone();
    Some((d, entries))
}

#[test]
fn drops_are_reported_and_add_up() {
    // Aggregation entries that do not fit: kept plus dropped are the
    // events, CPU by CPU in DTrace's words.
    let Some((drops, kept)) = run(
        "aggsize=1k",
        "syscall::getpid:entry /pid == $pid/ { @[timestamp] = count(); }",
        500,
    ) else {
        return;
    };
    assert!(!drops.is_empty(), "no drops, {} kept", kept);
    let mut dropped = 0;
    for d in &drops {
        assert_eq!(d.kind, DropKind::Aggregation, "{:?}", d);
        let plural = if d.count == 1 { "" } else { "s" };
        assert_eq!(
            d.msg,
            format!("{} aggregation drop{} on CPU {}", d.count, plural, d.cpu)
        );
        dropped += d.count as usize;
    }
    assert_eq!(kept + dropped, 500, "{} kept, {:?}", kept, drops);

    // Dynamic variables that do not fit.
    let Some((drops, _)) = run(
        "dynvarsize=1k",
        "syscall::getpid:entry /pid == $pid/ { a[timestamp] = 1; }",
        3000,
    ) else {
        return;
    };
    assert!(!drops.is_empty(), "no drops");
    for d in &drops {
        assert_eq!(d.kind, DropKind::Dynamic, "{:?}", d);
        let plural = if d.count == 1 { "" } else { "s" };
        assert_eq!(
            d.msg,
            format!("{} dynamic variable drop{}", d.count, plural)
        );
    }
}
