//! The life cycle of seed 002 through the public API: a handle opened
//! with flags and options, scripts compiled from strings and files
//! (several per handle), what exec reports of each, the status as
//! tracing goes on and ends, snapshots of the aggregations taken while
//! the work loop runs in another thread, and close, which leaves
//! nothing in the kernel. Runs against the
//! kernel where it traces; skipped without the privilege.

mod common;

use std::sync::{Arc, Mutex};

/// The tests count this process's system calls: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

use libdtrace::{
    KeyValue, NullConsumer, OpenOptions, ProgramSource, SpecKind, Status, WalkOrder, WorkStatus,
};

#[test]
fn open_with_flags_and_options_compile_files_and_exec_reports() {
    // No device: no privilege needed, and nothing traced.
    let mut dt = OpenOptions::new()
        .no_device(true)
        .no_kernel_types(true)
        .option("quiet", None)
        .option("bufsize", Some("2m"))
        .open()
        .expect("open");
    assert!(dt.options().quiet);
    assert_eq!(dt.getopt("bufsize").unwrap(), 2 << 20);
    assert_eq!(dt.options().bufsize, 2 << 20);
    let bad = OpenOptions::new()
        .no_device(true)
        .option("bufsize", Some("lots"))
        .open();
    assert_eq!(
        bad.err().map(|e| e.to_string()).as_deref(),
        Some("failed to set option -x bufsize=lots: Invalid value for specified option")
    );
    // A script from a file, $0 its name; another from a string.
    let dir = std::env::temp_dir().join(format!("libdtrace-life-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let script = dir.join("count.d");
    std::fs::write(
        &script,
        "syscall::read:entry { @reads = count(); @bytes = sum(arg2); }\n\
         syscall::read:return /arg1 < 0/ { s = speculation(); speculate(s); trace(arg1); }\n\
         END { printf(\"%s\\n\", $0); printa(@reads); }\n",
    )
    .expect("script");
    let a = dt.compile_file(&script).expect("compile the file");
    let b = dt
        .compile("BEGIN", ProgramSource::Description(SpecKind::Name))
        .expect("compile a description");
    assert_eq!((a.id, b.id), (0, 1));
    let ia = dt.exec(&a).expect("exec");
    assert_eq!(ia.matches, 3);
    assert_eq!(ia.aggregations, 2);
    // trace() and printf() and printa(); the aggregations are not
    // records.
    assert_eq!(ia.records, 3);
    assert_eq!(ia.speculations, 1);
    let ib = dt.exec(&b).expect("exec");
    // The default action of an empty clause is a record.
    assert_eq!((ib.matches, ib.records, ib.aggregations), (1, 1, 0));
    match dt.compile_file(dir.join("missing.d")) {
        Err(e) => assert_eq!(
            e.to_string(),
            format!(
                "failed to open {}: No such file or directory",
                dir.join("missing.d").display()
            )
        ),
        Ok(_) => panic!("a missing file compiled"),
    }
    // Without a device there is no tracing.
    assert_eq!(dt.status(), Status::None);
    assert_eq!(
        dt.go().err().map(|e| e.to_string()).as_deref(),
        Some("could not enable tracing: the handle was opened with no device: it cannot trace")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs the work loop to its end; the output.
fn finish(dt: &mut libdtrace::Session) -> String {
    let mut out: Vec<u8> = Vec::new();
    for _ in 0..2000 {
        if dt.work(&mut out, &mut NullConsumer).expect("work") == WorkStatus::Done {
            break;
        }
        dt.sleep(&[]);
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A loop of `poll`s (sleep at most a timeout, then work) sees what the
/// probes record between polls (the getppid calls made there) and the
/// end; polls before any firing print nothing.
#[test]
fn polls_see_each_firing_and_the_end() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(mut dt) = common::quiet_handle() else {
        return;
    };
    let p = dt
        .compile(
            r#"int n; syscall::getppid:entry /pid == $pid/ { printf("call %d\n", ++n); }
               syscall::getppid:entry /pid == $pid && n == 3/ { exit(0); }"#,
            ProgramSource::File,
        )
        .expect("compile");
    dt.exec(&p).expect("exec");
    let mut dt = dt.go().expect("go");
    let mut out: Vec<u8> = Vec::new();
    // Nothing has fired: each poll returns, however long the status
    // period, with nothing printed.
    for _ in 0..3 {
        let st = dt
            .poll(
                std::time::Duration::from_millis(1),
                &mut out,
                &mut NullConsumer,
            )
            .expect("poll");
        assert_eq!(st, WorkStatus::Okay);
    }
    assert!(out.is_empty());
    let mut done = false;
    for _ in 0..2000 {
        std::hint::black_box(std::os::unix::process::parent_id());
        if dt
            .poll(
                std::time::Duration::from_millis(5),
                &mut out,
                &mut NullConsumer,
            )
            .expect("poll")
            == WorkStatus::Done
        {
            done = true;
            break;
        }
    }
    assert!(done, "exit() ended the polls");
    assert_eq!(String::from_utf8_lossy(&out), "call 1\ncall 2\ncall 3\n");
}

#[test]
fn status_follows_tracing_to_its_end() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(mut dt) = common::quiet_handle() else {
        return;
    };
    assert_eq!(dt.status(), Status::None);
    let p = dt
        .compile(
            "syscall::getppid:entry /pid == $pid/ { exit(0); }",
            ProgramSource::File,
        )
        .expect("compile");
    dt.exec(&p).expect("exec");
    let mut dt = dt.go().expect("go");
    assert_eq!(dt.status(), Status::Okay);
    std::hint::black_box(std::os::unix::process::parent_id());
    finish(&mut dt);
    assert_eq!(dt.status(), Status::Exited);
    dt.close();

    let Some(mut dt) = common::quiet_handle() else {
        return;
    };
    let p = dt
        .compile("BEGIN { }", ProgramSource::File)
        .expect("compile");
    dt.exec(&p).expect("exec");
    let mut dt = dt.go().expect("go");
    dt.stop().expect("stop");
    assert_eq!(dt.status(), Status::Stopped);
    finish(&mut dt);
    assert_eq!(dt.status(), Status::Stopped);

    // A full buffer under the fill policy.
    let Some(mut dt) = common::quiet_handle() else {
        return;
    };
    dt.setopt("bufpolicy", Some("fill")).expect("fill");
    dt.handle_drop(|_| {});
    dt.setopt("bufsize", Some("16k")).expect("bufsize");
    let p = dt
        .compile(
            "syscall::getppid:entry /pid == $pid/ { trace(timestamp); }",
            ProgramSource::File,
        )
        .expect("compile");
    dt.exec(&p).expect("exec");
    let mut dt = dt.go().expect("go");
    for _ in 0..5000 {
        std::hint::black_box(std::os::unix::process::parent_id());
    }
    finish(&mut dt);
    assert_eq!(dt.status(), Status::Filled);
}

#[test]
fn snapshots_are_taken_while_another_thread_works() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(mut dt) = common::quiet_handle() else {
        return;
    };
    let p = dt
        .compile(
            "syscall::getppid:entry /pid == $pid/ { @calls[probefunc] = count(); }",
            ProgramSource::File,
        )
        .expect("compile");
    dt.exec(&p).expect("exec");
    let dt = dt.go().expect("go");
    let waiter = dt.waiter().expect("waiter");
    let dt = Arc::new(Mutex::new(dt));
    let worker = {
        let dt = dt.clone();
        std::thread::spawn(move || loop {
            waiter.wait();
            let mut h = dt.lock().expect("handle");
            let mut out: Vec<u8> = Vec::new();
            if h.work(&mut out, &mut NullConsumer).expect("work") == WorkStatus::Done {
                break;
            }
        })
    };
    // Each snapshot is the thread's own value, read without the handle.
    let mut counts = Vec::new();
    for round in 1..=3 {
        for _ in 0..10 {
            std::hint::black_box(std::os::unix::process::parent_id());
        }
        let snap = dt
            .lock()
            .expect("handle")
            .aggregate_snapshot(WalkOrder::Key)
            .expect("snapshot");
        let entries = snap.get("calls").expect("@calls");
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].key, vec![KeyValue::Str(b"getppid".to_vec())]);
        counts.push(format!("{:?}", entries[0].value));
        assert_eq!(snap.iter().count(), 1, "round {}", round);
    }
    assert_eq!(counts, ["Count(10)", "Count(20)", "Count(30)"]);
    // Stopped from this thread: the worker's next work is its last.
    dt.lock().expect("handle").stop().expect("stop");
    worker.join().expect("worker");
    assert_eq!(dt.lock().expect("handle").status(), Status::Stopped);
}

/// Our BPF programs and maps (named `dt_`), and every link.
fn ours() -> (usize, usize, usize) {
    dtrace_sys::bpf::count_objects("dt_").expect("count BPF objects")
}

#[test]
fn close_releases_every_kernel_object() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(mut dt) = common::quiet_handle() else {
        return;
    };
    let before = ours();
    // System-call, profile and user-level (a created command's) probes.
    let pid = dt
        .proc_create(&["sleep".into(), "30".into()])
        .expect("create");
    let p = dt
        .compile(
            "syscall::read:entry { @[execname] = count(); } profile-97 { @p = count(); }\n\
             pid$target::nanosleep:entry { trace(arg0); }",
            ProgramSource::File,
        )
        .expect("compile");
    dt.exec(&p).expect("exec");
    let mut dt = dt.go().expect("go");
    dt.proc_continue(pid).expect("continue");
    // (Maps of earlier tests may still be waiting for the kernel's
    // deferred free: only programs and links are counted up.)
    let during = ours();
    assert!(
        during.0 > before.0 && during.2 > before.2,
        "before {:?}, while tracing {:?}",
        before,
        during
    );
    dt.close();
    // Programs and links go with their descriptors; maps follow their
    // programs in the kernel's deferred work.
    let start = std::time::Instant::now();
    // (An earlier test's maps may still be waiting to be freed: there
    // can be fewer than before.)
    let gone =
        |now: (usize, usize, usize)| now.0 <= before.0 && now.1 <= before.1 && now.2 <= before.2;
    let mut now = ours();
    while !gone(now) && start.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(100));
        now = ours();
    }
    assert!(
        gone(now),
        "left behind by close: before {:?}, now {:?}",
        before,
        now
    );
    // The command created for tracing was killed.
    let alive = std::path::Path::new(&format!("/proc/{}/stat", pid)).exists()
        && !std::fs::read_to_string(format!("/proc/{}/stat", pid))
            .unwrap_or_default()
            .contains(") Z ");
    assert!(!alive, "pid {} outlived its handle", pid);
}
