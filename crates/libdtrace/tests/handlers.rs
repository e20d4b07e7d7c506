//! The probe and record callbacks and the buffered-output handler, with
//! seed 002's semantics: per firing, the probe callback first, then a
//! record callback for each statement (once for a printf, whatever its
//! arguments; for exit() too; for an assignment, a record of no size),
//! then a final None; the buffered-output handler gets each formatted
//! string but never exit(). Every answer of every callback: `Next` from
//! the probe callback skips the firing, from the record callback the
//! record, from the aggregation callback the printa()'s rows; `Abort`
//! from any of them stops consuming, `work` returning `Error::Aborted`.
//! Runs against the kernel; skipped without the privilege.

use std::io::Write;
use std::sync::{Arc, Mutex};

use libdtrace::{
    BufOrigin, Consume, Consumer, Dtrace, ProbeData, ProgramSource, RecDesc, RecKind, SpecKind,
    WorkStatus,
};

/// What the callbacks saw, and what they answer.
struct Seen {
    log: Vec<String>,
    /// The probe callback's answer for the firing with this many records.
    skip_probe_with: Option<usize>,
    /// The probe callback's answer if not `This`.
    probe_answer: Consume,
    /// The aggregation callback's answer.
    agg_answer: Consume,
    /// The record callback's answer for records of this kind.
    next_on: Option<RecKind>,
    abort_on: Option<RecKind>,
}

impl Seen {
    fn new() -> Seen {
        Seen {
            log: Vec::new(),
            skip_probe_with: None,
            probe_answer: Consume::Next,
            agg_answer: Consume::This,
            next_on: None,
            abort_on: None,
        }
    }
}

impl Consumer for Seen {
    fn probe(&mut self, _out: &mut dyn Write, pd: &ProbeData) -> Consume {
        self.log.push(format!("probe {}", pd.probe.name));
        if self.skip_probe_with == Some(pd.records.len()) {
            return self.probe_answer;
        }
        Consume::This
    }

    fn aggregation(
        &mut self,
        _out: &mut dyn Write,
        _pd: &ProbeData,
        names: &[&str],
        rows: &libdtrace::AggRows,
    ) -> Consume {
        self.log
            .push(format!("printa @{} {} rows", names.join(","), rows.len()));
        self.agg_answer
    }

    fn record(&mut self, _out: &mut dyn Write, _pd: &ProbeData, rec: Option<&RecDesc>) -> Consume {
        let Some(r) = rec else {
            self.log.push("end".into());
            return Consume::Next;
        };
        self.log.push(format!("{:?} {}", r.kind, r.values.len()));
        if Some(r.kind) == self.abort_on {
            return Consume::Abort;
        }
        if Some(r.kind) == self.next_on {
            return Consume::Next;
        }
        Consume::This
    }
}

/// Runs `program` to its exit() with `seen`'s answers; the callbacks'
/// log and the buffered handler's strings (and, once a callback has
/// aborted, the error `work` returned).
fn run(program: &str, mut seen: Seen) -> (Vec<String>, Vec<String>) {
    let mut dt = Dtrace::open().expect("open");
    dt.setopt("quiet", None).expect("quiet");
    let strings = Arc::new(Mutex::new(Vec::new()));
    let sink = strings.clone();
    dt.handle_buffered(move |b| {
        assert_eq!(b.origin, BufOrigin::Work);
        sink.lock()
            .expect("strings")
            .push(String::from_utf8_lossy(b.text).into_owned())
    });
    let p = dt
        .compile(program, ProgramSource::Description(SpecKind::Name))
        .expect("compile");
    dt.exec(&p).expect("exec");
    let mut dt = dt.go().expect("go");
    let mut out: Vec<u8> = Vec::new();
    for _ in 0..1000 {
        dt.sleep(&[]);
        match dt.work(&mut out, &mut seen) {
            Ok(WorkStatus::Done) => break,
            Ok(WorkStatus::Okay) => {}
            Err(e) => {
                seen.log.push(format!("error: {}", e));
                break;
            }
        }
    }
    assert!(out.is_empty(), "the handler had it all: {:?}", out);
    let s = strings.lock().expect("strings").clone();
    (seen.log, s)
}

const PROGRAM: &str = r#"BEGIN { n = 1; printf("%s %d\n", "cat", 9); trace(5); exit(0); }"#;

#[test]
fn callbacks_and_the_buffered_handler_see_what_seed_002_says() {
    if !dtrace_sys::has_trace_privilege() {
        eprintln!("skipped: needs the privilege to trace");
        return;
    }
    // Everything: one callback for the assignment (no values), one for
    // the printf (two arguments), one for trace(), one for exit(), then
    // None; the handler has the strings,
    // not the exit.
    let (log, strings) = run(PROGRAM, Seen::new());
    assert_eq!(
        log,
        [
            "probe BEGIN",
            "Statement 0",
            "Printf 2",
            "Trace 1",
            "Exit 1",
            "end"
        ]
    );
    assert_eq!(strings.concat(), "cat 9\n5");

    // Next from the record callback skips that record's output.
    let mut seen = Seen::new();
    seen.next_on = Some(RecKind::Printf);
    let (log, strings) = run(PROGRAM, seen);
    assert_eq!(
        log,
        [
            "probe BEGIN",
            "Statement 0",
            "Printf 2",
            "Trace 1",
            "Exit 1",
            "end"
        ]
    );
    assert_eq!(strings.concat(), "5");

    // Next from the probe callback skips the firing: no records, no
    // output (the exit still ends tracing: it ran in the kernel).
    let mut seen = Seen::new();
    seen.skip_probe_with = Some(4);
    let (log, strings) = run(PROGRAM, seen);
    assert_eq!(log, ["probe BEGIN"]);
    assert!(strings.concat().is_empty(), "{:?}", strings);

    // Abort stops consuming at that record: work says so, as
    // libdtrace's does (EDT_DIRABORT).
    let mut seen = Seen::new();
    seen.abort_on = Some(RecKind::Trace);
    let (log, strings) = run(PROGRAM, seen);
    assert_eq!(
        log,
        [
            "probe BEGIN",
            "Statement 0",
            "Printf 2",
            "Trace 1",
            "error: Abort explicitly directed"
        ]
    );
    assert_eq!(strings.concat(), "cat 9\n");

    // Abort from the probe callback stops before the firing's records.
    let mut seen = Seen::new();
    seen.skip_probe_with = Some(4);
    seen.probe_answer = Consume::Abort;
    let (log, strings) = run(PROGRAM, seen);
    assert_eq!(log, ["probe BEGIN", "error: Abort explicitly directed"]);
    assert!(strings.concat().is_empty(), "{:?}", strings);

    // The aggregation callback: This prints the rows, Next prints
    // nothing for them, Abort stops.
    const PRINTA: &str = r#"BEGIN { @c = count(); printa("%@d\n", @c); trace(5); exit(0); }"#;
    let (log, strings) = run(PRINTA, Seen::new());
    assert_eq!(
        log,
        [
            "probe BEGIN",
            "Printa 0",
            "printa @c 1 rows",
            "Trace 1",
            "Exit 1",
            "end"
        ]
    );
    assert_eq!(strings.concat(), "1\n5");
    let mut seen = Seen::new();
    seen.agg_answer = Consume::Next;
    let (_, strings) = run(PRINTA, seen);
    assert_eq!(strings.concat(), "5");
    let mut seen = Seen::new();
    seen.agg_answer = Consume::Abort;
    let (log, _) = run(PRINTA, seen);
    assert_eq!(
        log,
        [
            "probe BEGIN",
            "Printa 0",
            "printa @c 1 rows",
            "error: Abort explicitly directed"
        ]
    );
}

/// The buffered-output handler tells the work loop's strings from
/// aggregate_print()'s, so that one handler can keep their data apart.
#[test]
fn the_buffered_handler_is_told_which_call_formatted() {
    if !dtrace_sys::has_trace_privilege() {
        eprintln!("skipped: needs the privilege to trace");
        return;
    }
    let mut dt = Dtrace::open().expect("open");
    dt.setopt("quiet", None).expect("quiet");
    let got = Arc::new(Mutex::new(Vec::new()));
    let sink = got.clone();
    dt.handle_buffered(move |b| {
        sink.lock()
            .expect("got")
            .push((b.origin, String::from_utf8_lossy(b.text).into_owned()))
    });
    let p = dt
        .compile(
            r#"BEGIN { @n = count(); printf("event\n"); exit(0); }"#,
            ProgramSource::Description(SpecKind::Name),
        )
        .expect("compile");
    dt.exec(&p).expect("exec");
    let mut dt = dt.go().expect("go");
    let mut out: Vec<u8> = Vec::new();
    for _ in 0..1000 {
        dt.sleep(&[]);
        if dt
            .work(&mut out, &mut libdtrace::NullConsumer)
            .expect("work")
            == WorkStatus::Done
        {
            break;
        }
    }
    dt.aggregate_print(&mut out).expect("print");
    assert!(out.is_empty());
    let got = got.lock().expect("got");
    assert_eq!(got[0], (BufOrigin::Work, "event\n".to_string()));
    assert_eq!(got.len(), 2, "{:?}", got);
    assert_eq!(got[1].0, BufOrigin::AggregatePrint);
    assert_eq!(got[1].1.trim(), "1");
}
