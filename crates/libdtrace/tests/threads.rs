//! The handle is `Send`: opened, compiled and started in one thread, it
//! runs its work loop in another, with handlers that are `Send` too.
//! Runs against the kernel; skipped without the privilege.

use std::io::Write;
use std::sync::{Arc, Mutex};

use libdtrace::aggregate::Row;
use libdtrace::{
    Consume, Consumer, Dtrace, ProbeData, ProgramSource, RecDesc, SpecKind, WorkStatus,
};

struct Quiet;

impl Consumer for Quiet {
    fn aggregation(
        &mut self,
        _out: &mut dyn Write,
        _pd: &ProbeData,
        _names: &[&str],
        _rows: &[Row],
    ) -> Consume {
        Consume::Next
    }

    fn record(&mut self, _o: &mut dyn Write, _pd: &ProbeData, _r: Option<&RecDesc>) -> Consume {
        Consume::This
    }
}

#[test]
fn the_handle_moves_to_another_thread() {
    if !dtrace_sys::has_trace_privilege() {
        eprintln!("skipped: needs the privilege to trace");
        return;
    }
    let mut dt = Dtrace::open().expect("open");
    dt.setopt("quiet", None).expect("quiet");
    let printed = Arc::new(Mutex::new(Vec::new()));
    let sink = printed.clone();
    dt.handle_buffered(move |b| sink.lock().expect("sink").extend_from_slice(b));
    let p = dt
        .compile(
            r#"BEGIN { printf("in %s\n", "a thread"); exit(0); }"#,
            ProgramSource::Description(SpecKind::Name),
        )
        .expect("compile");
    dt.exec(&p).expect("exec");
    dt.go().expect("go");
    let worker = std::thread::spawn(move || {
        let mut out: Vec<u8> = Vec::new();
        for _ in 0..1000 {
            dt.sleep(&[]);
            if dt.work(&mut out, &mut Quiet).expect("work") == WorkStatus::Done {
                return true;
            }
        }
        false
    });
    assert!(worker.join().expect("worker"));
    assert_eq!(
        String::from_utf8_lossy(&printed.lock().expect("printed")),
        "in a thread\n"
    );
}
