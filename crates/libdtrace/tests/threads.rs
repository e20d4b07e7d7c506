//! The handle is `Send`: opened, compiled and started in one thread, it
//! runs its work loop in another, with handlers that are `Send` too.
//! Runs against the kernel; skipped without the privilege.

mod common;

use std::sync::{Arc, Mutex};

use libdtrace::{NullConsumer, ProgramSource, SpecKind, WorkStatus};

#[test]
fn the_handle_moves_to_another_thread() {
    let Some(mut dt) = common::quiet_handle() else {
        return;
    };
    let printed = Arc::new(Mutex::new(Vec::new()));
    let sink = printed.clone();
    dt.handle_buffered(move |b| sink.lock().expect("sink").extend_from_slice(b.text));
    let p = dt
        .compile(
            r#"BEGIN { printf("in %s\n", "a thread"); exit(0); }"#,
            ProgramSource::Description(SpecKind::Name),
        )
        .expect("compile");
    dt.exec(&p).expect("exec");
    let mut dt = dt.go().expect("go");
    let worker = std::thread::spawn(move || {
        let mut out: Vec<u8> = Vec::new();
        for _ in 0..1000 {
            dt.sleep(&[]);
            if dt.work(&mut out, &mut NullConsumer).expect("work") == WorkStatus::Done {
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
