//! The library's examples, run against the kernel as a program that
//! depends on the library would run them (`cargo test --workspace`
//! builds them first). Skipped without the privilege to trace.

use std::path::PathBuf;
use std::process::Command;

/// `target/<profile>/examples/NAME`, beside this test's directory.
fn example(name: &str) -> PathBuf {
    let me = std::env::current_exe().expect("current_exe");
    me.parent()
        .and_then(|d| d.parent())
        .expect("target directory")
        .join("examples")
        .join(name)
}

/// Whether this may trace; says it skips if not.
fn privileged() -> bool {
    let ok = dtrace_sys::has_trace_privilege();
    if !ok {
        eprintln!("skipped: needs the privilege to trace");
    }
    ok
}

fn run(name: &str, args: &[&str]) -> String {
    let exe = example(name);
    assert!(
        exe.is_file(),
        "{} is not built: run the tests with cargo test --workspace",
        exe.display()
    );
    let o = Command::new(&exe).args(args).output().expect("run example");
    assert!(
        o.status.success(),
        "{} failed: {}",
        name,
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn syscount_samples_an_aggregation_while_another_thread_works() {
    if !privileged() {
        return;
    }
    assert_eq!(
        run("syscount", &["3", "5"]),
        "interval 1: getpid 5\ninterval 2: getpid 10\ninterval 3: getpid 15\n"
    );
}

#[test]
fn events_receives_printf_records_as_typed_values() {
    if !privileged() {
        return;
    }
    assert_eq!(
        run("events", &["3"]),
        "getpid int:1 string:\"events\" int:0\n\
         getpid int:1 string:\"events\" int:1\n\
         getpid int:1 string:\"events\" int:2\n"
    );
}

#[test]
fn two_handles_at_once_see_only_their_own_data() {
    if !privileged() {
        return;
    }
    assert_eq!(
        run("twohandles", &[]),
        "A:\na begins\n@a getppid 2\nB:\nb begins\n@b getpid 3\n"
    );
}
