//! Drops reach the drop handler with their kind, count and dtrace(1M)'s
//! message, and account for what did not fit: entries kept plus entries
//! dropped are the events made. Runs against the kernel; skipped
//! without the privilege. Each test traces this process's system calls:
//! they run one at a time (`SERIAL`).

mod common;

use std::sync::{Arc, Mutex};

use libdtrace::{DropData, DropKind, ProgramSource, WalkOrder};

static SERIAL: Mutex<()> = Mutex::new(());

/// What a run saw.
struct Ran {
    /// The drops the handler got.
    drops: Vec<DropData>,
    /// The firings consumed.
    firings: usize,
    /// The runtime errors the handler got.
    errors: usize,
    /// The entries of the aggregations at the end.
    entries: usize,
}

/// Runs `program` with `opts` set over `calls` of this process's getpid
/// calls, reading nothing until it has stopped (the buffers fill).
fn run(opts: &[(&str, &str)], program: &str, calls: usize) -> Option<Ran> {
    use libdtrace::{Consume, Consumer, ProbeData};
    struct Firings(usize);
    impl Consumer for Firings {
        fn probe(&mut self, _out: &mut dyn std::io::Write, _pd: &ProbeData) -> Consume {
            self.0 += 1;
            Consume::This
        }
    }
    let mut dt = common::quiet_handle()?;
    for (name, value) in opts {
        dt.setopt(name, Some(value)).expect("option");
    }
    let drops = Arc::new(Mutex::new(Vec::new()));
    let sink = drops.clone();
    dt.handle_drop(move |d| sink.lock().expect("drops").push(d.clone()));
    let errors = Arc::new(Mutex::new(0));
    let seen = errors.clone();
    dt.handle_err(move |_| *seen.lock().expect("errors") += 1);
    let p = dt.compile(program, ProgramSource::File).expect("compile");
    dt.exec(&p).expect("exec");
    let mut dt = dt.go().expect("go");
    for _ in 0..calls {
        std::hint::black_box(std::process::id());
    }
    dt.stop().expect("stop");
    let mut firings = Firings(0);
    let mut out: Vec<u8> = Vec::new();
    while dt.work(&mut out, &mut firings).expect("work") != libdtrace::WorkStatus::Done {}
    let mut entries = 0;
    dt.aggregate_walk_by(WalkOrder::Unsorted, |_, e| entries += e.len())
        .expect("walk");
    let drops = drops.lock().expect("drops").clone();
    let errors = *errors.lock().expect("errors");
    Some(Ran {
        drops,
        firings: firings.0,
        errors,
        entries,
    })
}

#[test]
fn drops_are_reported_and_add_up() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Aggregation entries that do not fit: kept plus dropped are the
    // events, CPU by CPU in DTrace's words.
    let Some(Ran {
        drops,
        entries: kept,
        ..
    }) = run(
        &[("aggsize", "1k")],
        "syscall::getpid:entry /pid == $pid/ { @[timestamp] = count(); }",
        500,
    )
    else {
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
    let Some(Ran { drops, .. }) = run(
        &[("dynvarsize", "1k")],
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

#[test]
fn principal_speculative_and_error_drops_each_kind_once() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Records that do not fit the principal buffer: consumed plus
    // dropped are the firings, CPU by CPU in DTrace's words.
    let Some(Ran {
        drops,
        firings: kept,
        ..
    }) = run(
        &[("bufsize", "8k")],
        "syscall::getpid:entry /pid == $pid/ { trace(timestamp); trace(walltimestamp); }",
        5000,
    )
    else {
        return;
    };
    assert!(!drops.is_empty(), "no drops, {} kept", kept);
    let mut dropped = 0;
    for d in &drops {
        assert_eq!(d.kind, DropKind::Principal, "{:?}", d);
        let plural = if d.count == 1 { "" } else { "s" };
        assert_eq!(
            d.msg,
            format!("{} drop{} on CPU {}", d.count, plural, d.cpu)
        );
        dropped += d.count as usize;
    }
    assert_eq!(kept + dropped, 5000, "{} kept, {:?}", kept, drops);

    // A speculative record that does not fit its buffer; the buffer's
    // other record is committed.
    let Some(Ran {
        drops,
        firings: kept,
        ..
    }) = run(
        &[("specsize", "64")],
        r#"BEGIN { a = speculation(); }
        BEGIN { speculate(a); printf("%s%s%s%s%s\n", execname, execname, execname, execname, execname); }
        BEGIN { speculate(a); printf("%d\n", 7); }
        BEGIN { commit(a); }"#,
        0,
    )
    else {
        return;
    };
    assert_eq!(kept, 1);
    assert_eq!(drops.len(), 1, "{:?}", drops);
    assert_eq!(drops[0].kind, DropKind::Speculative);
    assert_eq!(
        (drops[0].count, drops[0].msg.as_str()),
        (1, "1 speculative drop")
    );

    // speculation() failing: a buffer still committing (freed at
    // `cleanrate`), then every buffer in use.
    let Some(Ran { drops, .. }) = run(
        &[("nspec", "1"), ("cleanrate", "1hz")],
        "BEGIN { a = speculation(); commit(a); } BEGIN { b = speculation(); }",
        0,
    ) else {
        return;
    };
    assert_eq!(drops.len(), 1, "{:?}", drops);
    assert_eq!(drops[0].kind, DropKind::SpecBusy);
    assert_eq!(
        (drops[0].count, drops[0].msg.as_str()),
        (1, "1 failed speculation (available buffer(s) still busy)")
    );
    let Some(Ran { drops, .. }) = run(
        &[("nspec", "1")],
        "BEGIN { a = speculation(); b = speculation(); c = speculation(); }",
        0,
    ) else {
        return;
    };
    assert_eq!(drops.len(), 1, "{:?}", drops);
    assert_eq!(drops[0].kind, DropKind::SpecUnavail);
    assert_eq!(
        (drops[0].count, drops[0].msg.as_str()),
        (2, "2 failed speculations (no speculative buffer available)")
    );

    // A fault in an ERROR clause is not reported again: it is a drop.
    let Some(Ran { drops, errors, .. }) = run(
        &[],
        "BEGIN { x = 0; trace(1 / x); } ERROR { y = 0; trace(1 / y); }",
        0,
    ) else {
        return;
    };
    assert_eq!(errors, 1);
    assert_eq!(drops.len(), 1, "{:?}", drops);
    assert_eq!(drops[0].kind, DropKind::DoubleError);
    assert_eq!(
        (drops[0].count, drops[0].msg.as_str()),
        (1, "1 error in ERROR probe enabling")
    );
}
