//! What a user can do wrong at run time, and what dtrace must do then:
//! output that cannot be written (a full device, a closed pipe, a closed
//! standard error, a reader that stalls), targets that are missing, not
//! executable, crash or exit at once, `-p` of dtrace itself, signals at
//! any moment including start-up, and two dtrace instances at once.
//!
//! Each test triggers its own events: this test executable re-executes
//! itself as a target that makes a known number of getpid calls.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use libtest_mimic::{Arguments, Completion, Trial};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

const DTRACE: &str = env!("CARGO_BIN_EXE_dtrace");
const TRIGGER: &str = "--dtrace-faults-trigger";

/// A `-c` command that makes `n` getpid calls, then sleeps `secs`.
fn trigger(n: u64, secs: u64) -> String {
    let me = std::env::current_exe().expect("current_exe");
    format!("{} {} {} {}", me.display(), TRIGGER, n, secs)
}

fn dtrace() -> Command {
    let mut c = Command::new(DTRACE);
    c.stdin(Stdio::null());
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn run(args: &[&str]) -> Output {
    dtrace().args(args).output().expect("run dtrace")
}

/// Waits for a child, killing it and failing after `limit` (a hang, not a
/// timing: every wait here is expected to end in well under a second).
fn wait_or_hang(child: &mut Child, limit: Duration, what: &str) -> std::process::ExitStatus {
    let t = Instant::now();
    loop {
        if let Some(st) = child.try_wait().expect("wait") {
            return st;
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{}: dtrace still running after {:?}", what, limit);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// True while a process exists and is not a zombie.
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{}/stat", pid)) {
        Ok(s) => s
            .rsplit(')')
            .next()
            .and_then(|r| r.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

fn assert_gone(pid: u32, what: &str) {
    let t = Instant::now();
    while alive(pid) && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(pid), "{}: target {} still running", what, pid);
}

fn signal(pid: u32, sig: &str) {
    let st = Command::new("kill")
        .arg(format!("-{}", sig))
        .arg(pid.to_string())
        .status();
    assert!(st.is_ok_and(|s| s.success()));
}

fn full_device_is_an_error() {
    let _g = serial();
    let prog = "BEGIN { printf(\"hello\\n\"); exit(0); }";
    let o = run(&["-q", "-o", "/dev/full", "-n", prog]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stderr),
        "dtrace: failed to write to /dev/full: No space left on device\n"
    );
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let o = dtrace()
        .args(["-q", "-n", prog])
        .stdout(full)
        .output()
        .expect("run dtrace");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stderr),
        "dtrace: failed to write to <stdout>: No space left on device\n"
    );
    // Listing writes through the same path.
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let o = dtrace()
        .args(["-l", "-n", "BEGIN"])
        .stdout(full)
        .output()
        .expect("run dtrace");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("failed to write to <stdout>"));
    // A freopen()ed file that cannot be written is said as -o's is.
    let o = run(&[
        "-q",
        "-w",
        "-n",
        "BEGIN { freopen(\"/dev/full\"); printf(\"hello\\n\"); exit(0); }",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stderr),
        "dtrace: failed to write to /dev/full: No space left on device\n"
    );
}

fn closed_pipe_ends_quietly_and_kills_the_target() {
    let _g = serial();
    // `dtrace ... | head -1`: the reader takes one line and goes.
    let mut child = dtrace()
        .args([
            "-q",
            "-n",
            "BEGIN { printf(\"%d\\n\", $target); } tick-10ms { printf(\"tick\\n\"); }",
            "-c",
            &trigger(0, 60),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn dtrace");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).expect("read");
    let target: u32 = line.trim().parse().expect("target pid");
    assert!(alive(target));
    drop(out);
    let st = wait_or_hang(&mut child, Duration::from_secs(20), "closed pipe");
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).ok();
    assert_eq!(st.code(), Some(1), "{}", err);
    assert!(!err.contains("panicked"), "{}", err);
    assert!(!err.contains("failed to write"), "{}", err);
    assert_gone(target, "closed pipe");
}

fn closed_stderr_does_not_panic() {
    let _g = serial();
    let o = Command::new("sh")
        .arg("-c")
        .arg("exec 2>&-; exec \"$0\" -n 'BEGIN { trace(7); exit(0); }'")
        .arg(DTRACE)
        .stdin(Stdio::null())
        .output()
        .expect("sh");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    assert!(
        text(&o.stdout).contains(":BEGIN         7"),
        "{}",
        text(&o.stdout)
    );
}

fn stalled_reader_yields_to_sigint() {
    let _g = serial();
    // Nobody reads dtrace's output: its writes block once the pipe is
    // full. SIGINT must still end it.
    let mut child = dtrace()
        .args([
            "-n",
            "tick-1ms { printf(\"%s\\n\", \"a line long enough to fill a pipe quickly\"); }",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn dtrace");
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).expect("read stderr");
    assert!(line.contains("matched"), "{}", line);
    // Wait until the pipe is full and dtrace is blocked in writing.
    let t = Instant::now();
    loop {
        let wchan =
            std::fs::read_to_string(format!("/proc/{}/wchan", child.id())).unwrap_or_default();
        // poll(2) in the output's wait, not epoll in the consumer's sleep.
        if wchan.contains("poll_schedule") {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "dtrace never blocked"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    signal(child.id(), "INT");
    let st = wait_or_hang(&mut child, Duration::from_secs(20), "stalled reader");
    let mut rest = String::new();
    err.read_to_string(&mut rest).ok();
    assert_eq!(st.code(), Some(1), "{}", rest);
    assert!(
        rest.contains("dtrace: failed to write to <stdout>"),
        "{}",
        rest
    );
}

/// Reads the CPU time (user and system, in clock ticks of 1/100 s) a
/// process has used so far from /proc/PID/stat.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid)).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    // After the name: state is field 3, utime 14 and stime 15.
    let f = |i: usize| {
        fields
            .get(i - 3)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    f(14) + f(15)
}

/// Spawns dtrace with `args`, waiting until it has said it matched its
/// probes (tracing has started).
fn spawn_started(args: &[&str]) -> (Child, BufReader<std::process::ChildStderr>) {
    let mut child = dtrace()
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn dtrace");
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("matched") {
        line.clear();
        if err.read_line(&mut line).unwrap_or(0) == 0 {
            let _ = child.kill();
            panic!("dtrace ended before tracing: {}", line);
        }
    }
    (child, err)
}

/// A `system()` command never holds off a stop signal: SIGTERM while
/// `sleep 299.017` runs ends the command (its whole process group) and
/// dtrace. (A duration no one else sleeps: the command is found by it.)
fn system_yields_to_stop_signals() {
    let _g = serial();
    let (mut child, mut err) = spawn_started(&[
        "-w",
        "-n",
        "BEGIN { system(\"sleep 299.017; echo never\"); }",
    ]);
    // The command is running once sh's child sleep exists.
    let t = Instant::now();
    let sleeping = || {
        Command::new("pgrep")
            .args(["-f", "^sleep 299[.]017$"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    while !sleeping() {
        assert!(t.elapsed() < Duration::from_secs(20), "system() never ran");
        std::thread::sleep(Duration::from_millis(20));
    }
    signal(child.id(), "TERM");
    // Far less than the command's 300 s: a hang, not a timing.
    let st = wait_or_hang(&mut child, Duration::from_secs(60), "system() and SIGTERM");
    let mut rest = String::new();
    err.read_to_string(&mut rest).ok();
    assert!(
        st.code().is_some() || st.signal_was_term(),
        "{:?}: {}",
        st,
        rest
    );
    let t = Instant::now();
    while sleeping() && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!sleeping(), "the system() command outlived dtrace");
}

trait TermStatus {
    fn signal_was_term(&self) -> bool;
}

impl TermStatus for std::process::ExitStatus {
    fn signal_was_term(&self) -> bool {
        use std::os::unix::process::ExitStatusExt;
        self.signal() == Some(15)
    }
}

/// freopen() and `-x flamegraph=` onto a FIFO no process reads: dtrace
/// waits for a reader, but a stop signal ends the wait, and freopen()
/// then fails in DTrace's words with the reason.
fn fifo_without_reader_yields_to_stop_signals() {
    let _g = serial();
    let dir = std::env::temp_dir().join(format!("dtrace-fifo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let fifo = dir.join("f");
    let mk = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(mk.success());
    let f = fifo.display().to_string();

    let prog = format!(
        "tick-1ms {{ freopen(\"{}\"); printf(\"x\\n\"); exit(0); }}",
        f
    );
    let (mut child, mut err) = spawn_started(&["-w", "-n", &prog]);
    // Blocked: still running with nobody reading the FIFO.
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().expect("wait").is_none(),
        "dtrace did not wait for a reader"
    );
    signal(child.id(), "TERM");
    let st = wait_or_hang(&mut child, Duration::from_secs(30), "freopen() of a FIFO");
    let mut rest = String::new();
    err.read_to_string(&mut rest).ok();
    assert!(
        rest.contains(&format!(
            "couldn't freopen() \"{}\": no process has the FIFO open for reading",
            f
        )),
        "{:?}: {}",
        st,
        rest
    );

    let svg = format!("flamegraph={}", f);
    let (mut child, mut err) = spawn_started(&[
        "-x",
        &svg,
        "-n",
        "profile-997 { @[stack()] = count(); } tick-10ms { exit(0); }",
    ]);
    std::thread::sleep(Duration::from_millis(300));
    signal(child.id(), "TERM");
    let st = wait_or_hang(
        &mut child,
        Duration::from_secs(30),
        "flame graph onto a FIFO",
    );
    let mut rest = String::new();
    err.read_to_string(&mut rest).ok();
    assert!(
        rest.contains("no process has the FIFO open for reading"),
        "{:?}: {}",
        st,
        rest
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A switchrate the consumer waits for leaves records unread on purpose:
/// it must sleep meanwhile, not spin (the ring buffers' wake-ups are
/// edge-triggered). Speculations committed as getpid calls come.
fn unread_records_do_not_make_the_consumer_spin() {
    let _g = serial();
    for (opt, clause) in [
        (
            "switchrate=10s",
            "syscall::getpid:entry /pid == $target/ { s = speculation(); speculate(s); \
             printf(\"x\"); } syscall::getpid:entry /pid == $target/ { commit(s); }",
        ),
        (
            "bufpolicy=fill",
            "syscall::getpid:entry /pid == $target/ { trace(1); }",
        ),
    ] {
        let cmd = trigger(200_000, 30);
        let (mut child, _err) = spawn_started(&["-x", opt, "-n", clause, "-c", &cmd]);
        let before = cpu_ticks(child.id());
        // Three seconds of the target sleeping with records unread.
        std::thread::sleep(Duration::from_secs(3));
        let used = cpu_ticks(child.id()) - before;
        let _ = child.kill();
        let _ = child.wait();
        // A spinning consumer uses about all of the 300 ticks.
        assert!(used < 100, "{}: {} ticks of CPU in 3 s", opt, used);
    }
}

/// A `-c` command that execs a set-group-ID program (for which the kernel
/// forgets the parent-death signal) still dies with dtrace, even when
/// dtrace is killed with SIGKILL: its warden kills it.
fn setgid_target_dies_with_dtrace() {
    let _g = serial();
    use std::os::unix::fs::PermissionsExt;
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("dtrace-setgid-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let prog = dir.join("sleep-sg");
    std::fs::copy("/bin/sleep", &prog).expect("copy sleep");
    // nogroup: an exec that changes the group, which clears the
    // parent-death signal.
    std::os::unix::fs::chown(&prog, None, Some(65534)).expect("chgrp");
    std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o2755)).expect("chmod");
    let cmd = format!("{} 300", prog.display());
    let mut child = dtrace()
        .args(["-q", "-n", "BEGIN { }", "-c", &cmd])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn dtrace");
    // The command, once it has exec'd the set-group-ID program.
    let t = Instant::now();
    let target = loop {
        let kids =
            std::fs::read_to_string(format!("/proc/{}/task/{}/children", child.id(), child.id()))
                .unwrap_or_default();
        let found = kids.split_whitespace().find_map(|p| {
            let comm = std::fs::read_to_string(format!("/proc/{}/comm", p)).unwrap_or_default();
            (comm.trim() == "sleep-sg")
                .then(|| p.parse::<u32>().ok())
                .flatten()
        });
        if let Some(p) = found {
            break p;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the command never ran"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    signal(child.id(), "KILL");
    let _ = child.wait();
    assert_gone(target, "a set-group-ID command after dtrace's SIGKILL");
    let _ = std::fs::remove_dir_all(&dir);
}

fn script_size_is_bounded() {
    let _g = serial();
    let mut child = dtrace()
        .args(["-s", "/dev/zero"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn dtrace");
    let st = wait_or_hang(&mut child, Duration::from_secs(30), "-s /dev/zero");
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).ok();
    assert_eq!(st.code(), Some(1));
    assert_eq!(
        err,
        "dtrace: failed to read /dev/zero: scripts are limited to 16 MiB\n"
    );

    // The limit holds after the preprocessor too: a 400-byte script whose
    // macros expand to half a gigabyte is refused at 16 MiB of output.
    let dir = std::env::temp_dir().join(format!("dtrace-cppbomb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let script = dir.join("bomb.d");
    let mut text = String::from("#define A1 1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1\n");
    for i in 2..=7 {
        let parts = vec![format!("A{}", i - 1); 16];
        text.push_str(&format!("#define A{} {}\n", i, parts.join("+")));
    }
    text.push_str("BEGIN { trace(A7); exit(0); }\n");
    std::fs::write(&script, text).expect("write the script");
    let mut child = dtrace()
        .args(["-C", "-s", script.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn dtrace");
    let st = wait_or_hang(&mut child, Duration::from_secs(60), "-C of a macro bomb");
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).ok();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(st.code(), Some(1), "{}", err);
    assert_eq!(
        err,
        format!(
            "dtrace: failed to compile script {}: the C preprocessor's output is larger \
             than 16 MiB, the limit of a program\n",
            script.display()
        )
    );
}

fn targets_that_fail() {
    let _g = serial();
    let o = run(&["-n", "BEGIN", "-c", "/nonexistent/cmd"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        "dtrace: failed to execute /nonexistent/cmd: No such file or directory\n"
    );
    let o = run(&["-n", "BEGIN", "-c", "/etc/passwd"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        "dtrace: failed to execute /etc/passwd: Permission denied\n"
    );
    // A target that exits at once, and one that crashes: tracing ends.
    let o = run(&["-q", "-n", "END { printf(\"end\\n\"); }", "-c", "true"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "end\n\n");
    let crash = format!(
        "{} {} crash",
        std::env::current_exe().expect("current_exe").display(),
        TRIGGER
    );
    let o = run(&["-q", "-n", "END { printf(\"end\\n\"); }", "-c", &crash]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "end\n\n");
}

/// A command is held before its exec without ptrace, so dtrace itself
/// may be traced by `strace -f` (whose ptrace would refuse another) and
/// still run its command.
fn target_under_strace() {
    let _g = serial();
    let o = Command::new("strace")
        .args([
            "-f",
            "-qq",
            "-o",
            "/dev/null",
            DTRACE,
            "-qn",
            "proc:::exec-success /pid == $target/ { printf(\"%s\\n\", execname); }",
            "-c",
            "true",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("run strace");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "true\n\n");
}

fn grabbing_itself_or_nothing() {
    let _g = serial();
    let o = Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" -p $$ -n BEGIN")
        .arg(DTRACE)
        .stdin(Stdio::null())
        .output()
        .expect("sh");
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.starts_with("dtrace: failed to grab pid ")
            && err.ends_with(": cannot trace dtrace itself\n"),
        "{}",
        err
    );
    let o = run(&["-p", "999999999", "-n", "BEGIN"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        "dtrace: failed to grab pid 999999999: No such process\n"
    );
}

fn signals_at_any_moment_leave_nothing() {
    let _g = serial();
    // SIGINT, SIGTERM and SIGKILL from the first instant of start-up to
    // tracing: dtrace ends, and its -c target with it.
    for sig in ["INT", "TERM", "KILL"] {
        for delay_ms in [0u64, 2, 5, 10, 20, 40, 80, 160] {
            let mut child = dtrace()
                .args([
                    "-q",
                    "-n",
                    "syscall:::entry /pid == $target/ { @[probefunc] = count(); }",
                    "-c",
                    &trigger(0, 60),
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn dtrace");
            std::thread::sleep(Duration::from_millis(delay_ms));
            // The target is dtrace's child, found through /proc.
            let kids = std::fs::read_to_string(format!(
                "/proc/{}/task/{}/children",
                child.id(),
                child.id()
            ))
            .unwrap_or_default();
            signal(child.id(), sig);
            let what = format!("SIG{} after {} ms", sig, delay_ms);
            wait_or_hang(&mut child, Duration::from_secs(20), &what);
            for pid in kids.split_whitespace().filter_map(|p| p.parse().ok()) {
                assert_gone(pid, &what);
            }
        }
    }
}

/// SIGINT during a set-up that takes seconds (thousands of probes to load
/// and attach) ends dtrace then, as the signal would have: tracing never
/// starts (BEGIN does not fire) and dtrace dies of SIGINT.
fn sigint_during_set_up() {
    use std::os::unix::process::ExitStatusExt;
    let _g = serial();
    let mut script = String::new();
    for i in 0..2000 {
        script.push_str(&format!(
            "tick-{}ms {{ @[{}] = count(); }}\n",
            100_000 + i,
            i
        ));
    }
    script.push_str("BEGIN { printf(\"began\\n\"); exit(0); }\n");
    let path = std::env::temp_dir().join(format!("dtrace-setup-{}.d", std::process::id()));
    std::fs::write(&path, script).expect("write script");
    let mut child = dtrace()
        .arg("-s")
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn dtrace");
    // "matched 2001 probes" is printed once the program is compiled,
    // just before the set-up.
    let mut err = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    err.read_line(&mut line).expect("read stderr");
    assert!(line.contains("matched 2001 probes"), "{}", line);
    signal(child.id(), "INT");
    let st = wait_or_hang(&mut child, Duration::from_secs(60), "SIGINT in set-up");
    let _ = std::fs::remove_file(&path);
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).ok();
    assert_eq!(out, "", "tracing started although interrupted");
    assert_eq!(st.signal(), Some(2), "{:?}", st);
}

fn two_instances_count_exactly() {
    let _g = serial();
    let prog = "syscall::getpid:entry /pid == $target/ { @ = count(); }";
    let spawn = |n: u64| {
        dtrace()
            .args(["-q", "-n", prog, "-c", &trigger(n, 0)])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn dtrace")
    };
    let a = spawn(3000);
    let b = spawn(5000);
    let (oa, ob) = (
        a.wait_with_output().expect("a"),
        b.wait_with_output().expect("b"),
    );
    assert_eq!(oa.status.code(), Some(0), "{}", text(&oa.stderr));
    assert_eq!(ob.status.code(), Some(0), "{}", text(&ob.stderr));
    assert_eq!(text(&oa.stdout).trim(), "3000");
    assert_eq!(text(&ob.stdout).trim(), "5000");
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}

fn privileged() -> bool {
    dtrace_sys::geteuid() == 0 && dtrace_sys::has_trace_privilege()
}

/// Test functions as (name, function).
macro_rules! named {
    ($($f:ident),* $(,)?) => {
        &[$((stringify!($f), $f as fn())),*]
    };
}

fn main() {
    // The tests stop dtrace with SIGINT and SIGTERM: its children must not
    // inherit them ignored (a harness started in the background by a shell
    // without job control has them so).
    dtrace_sys::poll::default_stop_signals();
    let raw: Vec<String> = std::env::args().collect();
    if raw.get(1).map(String::as_str) == Some(TRIGGER) {
        if raw.get(2).map(String::as_str) == Some("crash") {
            std::process::abort();
        }
        let n: u64 = raw.get(2).and_then(|s| s.parse().ok()).unwrap_or(0);
        let secs: u64 = raw.get(3).and_then(|s| s.parse().ok()).unwrap_or(0);
        for _ in 0..n {
            // std::process::id() makes the getpid(2) call each time.
            std::hint::black_box(std::process::id());
        }
        std::thread::sleep(Duration::from_secs(secs));
        return;
    }
    let args = Arguments::from_args();
    let root = privileged();
    let tests: &[(&str, fn())] = named![
        full_device_is_an_error,
        closed_pipe_ends_quietly_and_kills_the_target,
        closed_stderr_does_not_panic,
        stalled_reader_yields_to_sigint,
        script_size_is_bounded,
        targets_that_fail,
        target_under_strace,
        grabbing_itself_or_nothing,
        signals_at_any_moment_leave_nothing,
        two_instances_count_exactly,
        sigint_during_set_up,
        system_yields_to_stop_signals,
        fifo_without_reader_yields_to_stop_signals,
        unread_records_do_not_make_the_consumer_spin,
        setgid_target_dies_with_dtrace,
    ];
    let trials = tests
        .iter()
        .map(|&(name, f)| {
            Trial::ignorable_test(name, move || {
                if !root {
                    return Ok(Completion::ignored_with("needs root"));
                }
                if name == "target_under_strace" && !on_path("strace") {
                    return Ok(Completion::ignored_with("needs strace"));
                }
                f();
                Ok(Completion::Completed)
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
