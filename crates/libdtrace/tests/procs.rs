//! Target processes through the library: a command created held before
//! its exec, continued once tracing runs, traced from its exec, and its
//! end given to the process handler; a running process grabbed and its
//! end seen too. Runs against the kernel; skipped without the privilege.

mod common;

use std::ffi::OsString;
use std::sync::{Arc, Mutex};

use libdtrace::{
    Dtrace, NullConsumer, ProcError, ProcEvent, ProcExit, ProgramSource, SpecKind, WorkStatus,
};

fn argv(words: &[&str]) -> Vec<OsString> {
    words.iter().map(OsString::from).collect()
}

/// Runs the work loop until every target has exited; the output.
fn run(dt: &mut libdtrace::Session) -> String {
    let mut out: Vec<u8> = Vec::new();
    for _ in 0..2000 {
        dt.sleep(&[]);
        if dt.live_procs() == 0 {
            dt.stop().expect("stop");
        }
        if dt.work(&mut out, &mut NullConsumer).expect("work") == WorkStatus::Done {
            break;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn created_and_grabbed_processes_are_traced_and_their_ends_told() {
    let Some(mut dt) = common::quiet_handle() else {
        return;
    };
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = events.clone();
    dt.handle_proc(move |e| seen.lock().expect("events").push(e.clone()));

    // A command that cannot run is refused in dtrace's words.
    match dt.proc_create(&argv(&["/nonexistent/cmd", "x"])) {
        Err(e @ ProcError::Exec { .. }) => assert_eq!(
            e.to_string(),
            "failed to execute /nonexistent/cmd x: No such file or directory"
        ),
        other => panic!("{:?}", other),
    }
    // Created: held until continued, so its own exec is seen; $target
    // is it.
    let pid = dt
        .proc_create(&argv(&["sh", "-c", "exit 3"]))
        .expect("create");
    let p = dt
        .compile(
            r#"proc:::exec-success /pid == $target/ { printf("exec %s\n", execname); }"#,
            ProgramSource::Description(SpecKind::Name),
        )
        .expect("compile");
    dt.exec(&p).expect("exec");
    let mut dt = dt.go().expect("go");
    assert_eq!(dt.proc_pids(), vec![pid]);
    assert_eq!(dt.live_procs(), 1);
    dt.proc_continue(pid).expect("continue");
    assert_eq!(run(&mut dt), "exec sh\n");
    assert_eq!(
        *events.lock().expect("events"),
        vec![
            ProcEvent::Created { pid },
            ProcEvent::Exited {
                pid,
                how: Some(ProcExit::Status(3))
            }
        ]
    );
    assert_eq!(
        events.lock().expect("events")[1].notice().as_deref(),
        Some(format!("pid {} exited with status 3", pid).as_str())
    );
    drop(dt);

    // Grabbed: a running process, whose end (its parent's to reap) is
    // told without a status.
    let mut child = std::process::Command::new("sleep")
        .arg("0.5")
        .spawn()
        .expect("spawn");
    let gpid = child.id() as i32;
    let mut dt = Dtrace::open().expect("open");
    dt.setopt("quiet", None).expect("quiet");
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = events.clone();
    dt.handle_proc(move |e| seen.lock().expect("events").push(e.clone()));
    dt.proc_grab(gpid).expect("grab");
    let p = dt
        .compile("BEGIN {}", ProgramSource::Description(SpecKind::Name))
        .expect("compile");
    dt.exec(&p).expect("exec");
    let mut dt = dt.go().expect("go");
    dt.proc_continue(gpid).expect("continue (nothing to do)");
    let _ = child.wait();
    run(&mut dt);
    assert_eq!(
        *events.lock().expect("events"),
        vec![
            ProcEvent::Grabbed { pid: gpid },
            ProcEvent::Exited {
                pid: gpid,
                how: None
            }
        ]
    );
    // Grabbing dtrace itself is refused.
    let me = std::process::id() as i32;
    assert!(matches!(dt.proc_grab(me), Err(ProcError::Grab { .. })));
}

#[test]
fn a_released_command_is_killed_and_no_longer_watched() {
    let Some(mut dt) = common::quiet_handle() else {
        return;
    };
    let pid = dt.proc_create(&argv(&["sleep", "30"])).expect("create");
    assert_eq!(dt.live_procs(), 1);
    assert!(std::path::Path::new(&format!("/proc/{}", pid)).exists());
    dt.proc_release(pid);
    assert_eq!(dt.live_procs(), 0);
    assert!(dt.proc_pids().is_empty());
    // Killed and reaped, as DTrace kills the commands it lets go.
    assert!(!std::path::Path::new(&format!("/proc/{}", pid)).exists());
    assert!(dt.proc_continue(pid).is_err());
}
