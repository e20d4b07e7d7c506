//! dtrace(1M)'s command line, messages, exit statuses and clean-up, run
//! through the real binary against the running kernel.
//!
//! A libtest-mimic harness, like the D suite: each test is a trial, and
//! those that run dtrace against the kernel are ignored with the reason
//! "needs root" when this process cannot trace.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use libtest_mimic::{Arguments, Completion, Trial};

/// Tests run one at a time, so the leak checks see only their own
/// programs and maps.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn dtrace() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dtrace"));
    c.stdin(Stdio::null());
    c
}

fn run(args: &[&str]) -> Output {
    dtrace().args(args).output().expect("run dtrace")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// dtrace failed with `code` and said exactly `stderr`.
fn assert_failed(o: &Output, code: i32, stderr: &str) {
    assert_eq!(o.status.code(), Some(code), "stderr: {}", text(&o.stderr));
    assert_eq!(text(&o.stderr), stderr);
}

/// Our BPF objects alive in the system: programs, maps, links.
fn ours() -> (usize, usize, usize) {
    dtrace_sys::bpf::count_objects("dt_").expect("count BPF objects")
}

/// Waits until no more objects are alive than `before` (earlier tests'
/// maps may still be waiting for the kernel's deferred free, so there
/// can be fewer) or the deadline passes, and asserts it.  Programs and
/// links go as soon as the last descriptor closes; maps follow their
/// programs in deferred (RCU) work.
fn assert_released(before: (usize, usize, usize), what: &str) {
    let start = Instant::now();
    let mut now = ours();
    while !(now.0 <= before.0 && now.1 <= before.1 && now.2 <= before.2)
        && start.elapsed() < Duration::from_secs(30)
    {
        std::thread::sleep(Duration::from_millis(200));
        now = ours();
    }
    assert!(
        now.0 <= before.0 && now.1 <= before.1 && now.2 <= before.2,
        "BPF objects (programs, maps, links) left behind after {}: before {:?}, now {:?}",
        what,
        before,
        now
    );
}

/// Starts dtrace and waits for its "matched" notice and for its programs
/// to be loaded: tracing is live.
fn start(args: &[&str]) -> (Child, BufReader<std::process::ChildStderr>) {
    let before = ours();
    let mut child = dtrace()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn dtrace");
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).expect("read stderr");
    assert!(
        line.contains("matched"),
        "unexpected first line: {:?}",
        line
    );
    // Tracing has begun once dtrace's programs are in the kernel and it
    // catches SIGINT and SIGTERM (it installs its handlers after saying
    // what matched, and may make kernel objects before).
    let catches = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{}/status", pid))
            .ok()
            .and_then(|s| {
                let l = s.lines().find(|l| l.starts_with("SigCgt:"))?;
                u64::from_str_radix(l.split_whitespace().nth(1)?, 16).ok()
            })
            .is_some_and(|m| m & (1 << 1) != 0 && m & (1 << 14) != 0)
    };
    let t = Instant::now();
    while (ours().0 <= before.0 || !catches(child.id())) && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    (child, err)
}

fn signal(child: &Child, sig: &str) {
    let st = Command::new("kill")
        .arg(format!("-{}", sig))
        .arg(child.id().to_string())
        .status();
    assert!(st.is_ok_and(|s| s.success()));
}

fn hello_one_liner() {
    let _g = serial();
    let o = run(&[
        "-qn",
        r#"BEGIN { printf("%s %d\n", "hello", 42); exit(0); }"#,
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(text(&o.stdout), "hello 42\n\n");
    assert_eq!(text(&o.stderr), "");
}

fn description_notice_and_columns() {
    let _g = serial();
    let o = dtrace()
        .args(["-n", "BEGIN { exit(0); }"])
        .env("LC_ALL", "C")
        .output()
        .expect("run");
    assert_eq!(
        text(&o.stderr),
        "dtrace: description 'BEGIN ' matched 1 probe\n"
    );
    let out = text(&o.stdout);
    assert!(
        out.starts_with("CPU     ID                    FUNCTION:NAME\n"),
        "{}",
        out
    );
    assert!(
        out.contains("      1                           :BEGIN \n"),
        "{}",
        out
    );
}

fn compile_errors_in_dtrace_form() {
    let _g = serial();
    let o = run(&["-n", "BEGIN { x = ; }"]);
    assert_failed(
        &o,
        1,
        "dtrace: invalid probe specifier BEGIN { x = ; }: syntax error near \";\"\n",
    );
    let o = run(&["-xerrtags", "-n", "BEGIN { trace(nosuch); }"]);
    assert_eq!(
        text(&o.stderr),
        "dtrace: invalid probe specifier BEGIN { trace(nosuch); }: [D_IDENT_UNDEF] failed to resolve nosuch: Unknown variable name\n"
    );
    let dir = std::env::temp_dir().join(format!("dtrace-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("x.d");
    std::fs::write(&script, "BEGIN\n{\n\ttrace(1 +);\n}\n").unwrap();
    let o = dtrace()
        .current_dir(&dir)
        .args(["-s", "x.d"])
        .output()
        .unwrap();
    assert_failed(
        &o,
        1,
        "dtrace: failed to compile script x.d: line 3: syntax error near \")\"\n",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Usage errors are found before dtrace opens the kernel: no root needed.
fn usage_errors() {
    let o = run(&["-k"]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(
        e.starts_with("dtrace: illegal option -- k\nUsage: dtrace "),
        "{}",
        e
    );
    let o = run(&["-n"]);
    assert_eq!(o.status.code(), Some(2));
    // dtrace alone prints its usage, as dtrace(1M) does, and needs no
    // privilege to.
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(
        e.starts_with("Usage: dtrace [-32|-64] [-aACeFGhHlqSvVwZ]"),
        "{}",
        e
    );
    assert!(
        e.ends_with("\t-Z  permit probe descriptions that match zero probes\n"),
        "{}",
        e
    );
    assert_eq!(text(&o.stdout), "");
}

/// The manual page is made from the flag and option tables (`dtrace
/// --man`), and `docs/dtrace.1`, which `install.sh` installs, is that
/// page (`DTRACE_BLESS=1` rewrites it after a change of the tables);
/// man(1) reads it.
fn manual_page_is_the_tables() {
    let o = run(&["--man"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let page = text(&o.stdout);
    assert!(page.starts_with(".TH DTRACE 1"), "{}", page);
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/dtrace.1");
    if std::env::var_os("DTRACE_BLESS").is_some() {
        std::fs::write(&file, &page).expect("write docs/dtrace.1");
    }
    let kept = std::fs::read_to_string(&file).expect("docs/dtrace.1");
    assert!(
        kept == page,
        "docs/dtrace.1 differs from `dtrace --man`: run the test with DTRACE_BLESS=1"
    );
    // `--man` is only a request of its own.
    let o = run(&["--man", "-l"]);
    assert_eq!(o.status.code(), Some(2));
    if Command::new("man").arg("--version").output().is_ok() {
        let o = Command::new("man")
            .arg("-l")
            .arg(&file)
            .env("MANWIDTH", "80")
            .env("MANPAGER", "cat")
            .output()
            .expect("man -l");
        assert!(o.status.success(), "{}", text(&o.stderr));
        let shown = text(&o.stdout);
        assert!(
            shown.contains("DTRACE(1)") && shown.contains("strsize=size"),
            "{}",
            shown
        );
    }
}

fn bad_options() {
    let _g = serial();
    let o = run(&["-x", "nosuch", "-n", "BEGIN"]);
    assert_failed(
        &o,
        1,
        "dtrace: failed to set -x nosuch: Invalid option name\n",
    );
    let o = run(&["-x", "bufsize=abc", "-n", "BEGIN"]);
    assert_eq!(
        text(&o.stderr),
        "dtrace: failed to set -x bufsize: Invalid value for specified option\n"
    );
    let o = run(&["-p", "999999999", "-n", "BEGIN"]);
    assert_failed(
        &o,
        1,
        "dtrace: failed to grab pid 999999999: No such process\n",
    );
    // A kernel thread (kthreadd is pid 2) has no user space to trace:
    // said, where its probes used to "match nothing".
    let o = run(&["-p", "2", "-n", "pid$target:::entry"]);
    assert_failed(&o, 1, "dtrace: failed to grab pid 2: system process\n");
    // Claiming anonymous state is not enabling probes (the anonymous
    // tests run the whole cycle).
    let o = run(&["-a", "-n", "BEGIN"]);
    assert_failed(
        &o,
        1,
        "dtrace: could not enable tracing: Can't claim anonymous state and enable probes\n",
    );
    // The preprocessor's options need -C; -32 is refused.
    for (args, msg) in [
        (
            &["-I", "/tmp"][..],
            "dtrace: -I applies to the C preprocessor, which runs only with -C\n",
        ),
        (
            &["-H"][..],
            "dtrace: -H applies to the C preprocessor, which runs only with -C\n",
        ),
        (
            &["-X", "c"][..],
            "dtrace: -X applies to the C preprocessor, which runs only with -C\n",
        ),
        (
            &["-32"][..],
            "dtrace: -32 is not supported: D programs are 64-bit on this system\n",
        ),
    ] {
        let mut a = args.to_vec();
        a.extend(["-n", "BEGIN"]);
        assert_failed(&run(&a), 1, msg);
    }
    let o = run(&["-C", "-X", "z", "-n", "BEGIN"]);
    assert_failed(
        &o,
        1,
        "dtrace: failed to set -X z: Invalid value for specified option\n",
    );
    // No value is clamped silently: outside its range, an option is
    // refused, saying the range (options.rs walks every ranged option).
    for opt in [
        "strsize=1m",
        "strsize=1",
        "nspec=0",
        "nspec=-1",
        "nspec=1000000000",
        "stackframes=-1",
        "ustackframes=-5",
    ] {
        let o = run(&["-x", opt, "-n", "BEGIN { exit(0); }"]);
        assert_failed(
            &o,
            1,
            &format!(
                "dtrace: failed to set -x {}: Invalid value for specified option\n",
                opt.split('=').next().unwrap_or_default(),
            ),
        );
    }
    // Kernel memory for buffers is reckoned before anything is made:
    // more than the machine has is refused with the figures (with
    // bufresize=auto, lowered to what fits).
    for args in [
        &["-x", "bufsize=1t"][..],
        &["-x", "nspec=1048576", "-x", "specsize=256m"][..],
    ] {
        let mut a = args.to_vec();
        a.extend([
            "-x",
            "bufresize=manual",
            "-q",
            "-n",
            "BEGIN { s = speculation(); speculate(s); printf(\"x\"); } BEGIN { exit(0); }",
        ]);
        let o = run(&a);
        assert_eq!(o.status.code(), Some(1), "{:?}", args);
        let e = text(&o.stderr);
        assert!(
            e.starts_with("dtrace: could not enable tracing: Not enough space: ")
                && e.contains(" in all) exceed the ")
                && e.ends_with(" of memory available\n"),
            "{:?}: {}",
            args,
            e
        );
    }
    let o = run(&["-q", "-x", "bufsize=1t", "-n", "BEGIN { exit(0); }"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).starts_with("dtrace: buffer size lowered to "),
        "{}",
        text(&o.stderr)
    );
    // Kernel memory on a scale the user may not expect is said: a
    // gigabyte of speculation buffers.
    let o = run(&[
        "-q",
        "-x",
        "nspec=256",
        "-x",
        "specsize=2m",
        "-n",
        "BEGIN { s = speculation(); speculate(s); printf(\"x\"); } BEGIN { exit(0); }",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let e = text(&o.stderr);
    assert!(
        e.starts_with("dtrace: speculation buffers take ")
            && e.contains(" of kernel memory (nspec 256 x ")
            && e.ends_with(" CPUs x 2m)\n"),
        "{}",
        e
    );
    // Aggregation and associative array keys larger than the kernel's
    // hash keys are interned and work.
    let o = run(&["-n", "BEGIN { @[stack(100)] = count(); exit(0); }"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let o = run(&[
        "-qn",
        "BEGIN { x = \"x\"; arr[x, x, x] = 1; printf(\"%d\\n\", arr[x, x, x]); exit(0); }",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "1\n\n");
}

fn listing() {
    let _g = serial();
    let o = run(&["-l", "-n", "syscall::getpid:"]);
    assert_eq!(o.status.code(), Some(0));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "   ID   PROVIDER            MODULE                          FUNCTION NAME"
    );
    assert_eq!(lines.len(), 3, "{}", out);
    assert!(
        lines[1].ends_with("    syscall           vmlinux                            getpid entry")
    );
    assert!(lines[2]
        .ends_with("    syscall           vmlinux                            getpid return"));

    // Every system call has an entry and a return probe.
    let o = run(&["-l", "-P", "syscall"]);
    let out = text(&o.stdout);
    let entries = out.lines().filter(|l| l.ends_with(" entry")).count();
    let returns = out.lines().filter(|l| l.ends_with(" return")).count();
    assert!(entries > 300, "only {} entry probes", entries);
    assert_eq!(entries, returns);

    // A partial description is read from the right, its last field the
    // option's own: `-f syscall::read` is provider and function, `-m
    // syscall:vmlinux` provider and module.
    for args in [
        ["-l", "-f", "syscall::getpid"],
        ["-l", "-f", "vmlinux:getpid"],
        ["-l", "-f", "getpid"],
    ] {
        let o = run(&args);
        let out = text(&o.stdout);
        assert_eq!(out.lines().count(), 3, "{:?}: {}", args, out);
    }
    let o = run(&["-l", "-m", "syscall:vmlinux"]);
    let out = text(&o.stdout);
    assert_eq!(out.lines().count(), 1 + entries + returns, "{}", out);
    // More fields than the option's position: DTrace's EDT_BADSPCV.
    let o = run(&["-l", "-P", "syscall:vmlinux"]);
    assert_failed(
        &o,
        1,
        "dtrace: invalid probe specifier syscall:vmlinux: invalid probe description \"syscall:vmlinux\": Overspecified probe description\n",
    );
    let o = run(&["-f", "a:b:c:d { }"]);
    assert_failed(
        &o,
        1,
        "dtrace: invalid probe specifier a:b:c:d { }: invalid probe description \"a:b:c:d\": Overspecified probe description\n",
    );

    let o = run(&["-l", "-P", "dtrace"]);
    let out = text(&o.stdout);
    assert!(
        out.contains(" BEGIN\n") && out.contains(" END\n") && out.contains(" ERROR\n"),
        "{}",
        out
    );

    // -v adds the attributes and the argument types args[] has.
    let o = run(&["-lv", "-n", "syscall::openat:"]);
    assert_eq!(o.status.code(), Some(0));
    let out = text(&o.stdout);
    assert!(
        out.contains(
            "\n\tArgument Types\n\t\targs[0]: int\n\t\targs[1]: const char *\n\t\targs[2]: int\n\t\targs[3]: umode_t\n\n"
        ),
        "{}",
        out
    );
    assert!(
        out.contains("\n\tArgument Types\n\t\targs[0]: long\n\t\targs[1]: long\n\n"),
        "{}",
        out
    );
    let o = run(&["-lv", "-n", "BEGIN"]);
    assert!(
        text(&o.stdout).contains("\n\tArgument Types\n\t\tNone\n\n"),
        "{}",
        text(&o.stdout)
    );

    // Every tracepoint is an sdt probe, its fields typed arguments, with
    // the provider's own attributes.
    let o = run(&["-lv", "-n", "sdt:sched::sched_switch"]);
    assert_eq!(o.status.code(), Some(0));
    let out = text(&o.stdout);
    assert!(
        out.contains("sdt             sched                                   sched_switch\n"),
        "{}",
        out
    );
    assert!(
        out.contains(
            "\tArgument Attributes\n\t\tIdentifier Names: Private\n\t\tData Semantics:   Private\n\t\tDependency Class: ISA\n"
        ),
        "{}",
        out
    );
    assert!(
        out.contains("\t\targs[0]: char [16]\n\t\targs[1]: pid_t\n"),
        "{}",
        out
    );
    let o = run(&["-l", "-P", "sdt"]);
    let out = text(&o.stdout);
    assert!(
        out.contains(" sched_process_exit\n") && !out.contains("sys_enter_"),
        "syscall tracepoints are the syscall provider's"
    );

    // A probe has one ID in every run, whatever else a run made first:
    // listed alone, after a probe made on demand, among every probe.
    let id_of = |args: &[&str], probe: &str| -> Option<String> {
        let o = run(args);
        let out = text(&o.stdout);
        let row = out.lines().find(|l| l.ends_with(probe))?;
        row.split_whitespace().next().map(str::to_string)
    };
    let openat = " openat entry";
    let alone = id_of(&["-l", "-n", "syscall::openat:entry"], openat).expect("listed");
    assert_eq!(
        id_of(
            &["-l", "-n", "tick-3s", "-n", "syscall::openat:entry"],
            openat
        ),
        Some(alone.clone())
    );
    assert_eq!(id_of(&["-l"], openat), Some(alone.clone()));
    let tick = id_of(&["-l", "-n", "tick-3s"], " tick-3s").expect("listed");
    assert_ne!(tick, alone);
    assert_eq!(
        id_of(&["-l", "-P", "dtrace"], " BEGIN").as_deref(),
        Some("1")
    );
    // -i of that ID names the probe, to list and to enable.
    assert_eq!(id_of(&["-l", "-i", &alone], openat), Some(alone.clone()));
    let o = run(&["-i", &alone, "-n", "BEGIN { exit(0); }"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stderr),
        "dtrace: description 'syscall:vmlinux:openat:entry' matched 1 probe\ndtrace: description 'BEGIN ' matched 1 probe\n"
    );
}

fn output_file_and_compile_only() {
    let _g = serial();
    let path = std::env::temp_dir().join(format!("dtrace-o-{}", std::process::id()));
    let o = run(&[
        "-o",
        path.to_str().unwrap(),
        "-qn",
        r#"BEGIN { printf("to file\n"); exit(0); }"#,
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(text(&o.stdout), "");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "to file\n\n");
    let _ = std::fs::remove_file(&path);

    let o = run(&["-e", "-n", r#"BEGIN { printf("never\n"); exit(0); }"#]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(text(&o.stdout), "");
}

fn target_exit_ends_tracing() {
    let _g = serial();
    let o = run(&[
        "-n",
        r#"syscall::openat:entry /execname == "cat"/ { @[copyinstr(arg1)] = count(); }"#,
        "-c",
        "cat /etc/hostname",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let out = text(&o.stdout);
    let row = out
        .lines()
        .find(|l| l.starts_with("  /etc/hostname "))
        .expect("hostname row");
    assert!(row.ends_with(" 1"), "{}", row);
    assert!(
        text(&o.stderr).contains("dtrace: pid "),
        "{}",
        text(&o.stderr)
    );
}

/// How a created command ended, in DTrace's words: its exit status when
/// not 0, the signal that killed it by name.
fn target_end_is_reported() {
    let _g = serial();
    let dir = std::env::temp_dir().join(format!("dtrace-cli-end-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let script = dir.join("end.sh");
    for (body, said) in [
        ("exit 0", "has exited"),
        ("exit 3", "exited with status 3"),
        ("kill -SEGV $$", "terminated by SIGSEGV"),
        ("kill -USR1 $$", "terminated by SIGUSR1"),
    ] {
        std::fs::write(&script, body).expect("script");
        let cmd = format!("sh {}", script.display());
        let o = run(&["-n", "BEGIN {}", "-c", &cmd]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let err = text(&o.stderr);
        let line = err
            .lines()
            .find(|l| l.starts_with("dtrace: pid "))
            .unwrap_or_else(|| panic!("no end for {:?}: {}", body, err));
        assert!(line.ends_with(said), "{:?}: {}", body, line);
        // -q says nothing of it.
        let o = run(&["-q", "-n", "BEGIN {}", "-c", &cmd]);
        assert!(
            !text(&o.stderr).contains("dtrace: pid "),
            "{}",
            text(&o.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn sigint_runs_end_and_prints_aggregations() {
    let _g = serial();
    let before = ours();
    let (mut child, mut err) = start(&[
        "-n",
        "tick-1ms { @ticks = count(); } END { printf(\"end\"); }",
    ]);
    std::thread::sleep(Duration::from_millis(300));
    signal(&child, "INT");
    let st = child.wait().unwrap();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let mut rest = String::new();
    let _ = err.read_to_string(&mut rest);
    assert_eq!(st.code(), Some(0), "stderr: {}", rest);
    assert!(out.contains(":END end"), "{}", out);
    let last = out.trim_end().lines().last().unwrap_or("");
    let n: i64 = last.trim().parse().unwrap_or(0);
    assert!(n > 0, "{}", out);
    assert_released(before, "SIGINT");
}

fn sigterm_runs_end() {
    let _g = serial();
    let before = ours();
    let (mut child, _err) = start(&[
        "-n",
        "syscall:::entry { @ = count(); } END { printf(\"end\"); }",
    ]);
    signal(&child, "TERM");
    let st = child.wait().unwrap();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert_eq!(st.code(), Some(0));
    assert!(out.contains(":END end"), "{}", out);
    assert_released(before, "SIGTERM");
}

fn kill_9_leaves_nothing_behind() {
    let _g = serial();
    let before = ours();
    let (mut child, _err) = start(&[
        "-n",
        "syscall:::entry,syscall:::return { @[probefunc] = count(); } profile-97hz { @p = count(); } tick-1s { }",
    ]);
    let during = ours();
    assert!(
        during.0 > before.0,
        "no programs loaded? {:?} {:?}",
        before,
        during
    );
    signal(&child, "KILL");
    let _ = child.wait();
    assert_released(before, "kill -9");
}

fn no_input_panics() {
    let _g = serial();
    let long_parens = format!(
        "BEGIN {{ trace({}1{}); exit(0); }}",
        "(".repeat(2000),
        ")".repeat(2000)
    );
    let cases: Vec<String> = vec![
        "".into(),
        "{".into(),
        "}".into(),
        "/".into(),
        "BEGIN /".into(),
        "BEGIN { trace(\"abc); }".into(),
        "BEGIN { trace(99999999999999999999999); }".into(),
        "BEGIN { @a = count(); @a = sum(1); }".into(),
        "BEGIN { x[1] = 1; x[\"a\"] = 2; }".into(),
        "BEGIN { printf(); }".into(),
        "BEGIN { printf(1); }".into(),
        "BEGIN { printf(\"%\"); }".into(),
        "BEGIN { printf(\"%*.*.*d\", 1); }".into(),
        "BEGIN { trace(\"\\q\"); }".into(),
        "BEGIN { trace('ab'); }".into(),
        "BEGIN { trace(''); }".into(),
        "BEGIN { self->x[1] = 1; }".into(),
        "BEGIN { this->x = this->x + 1; }".into(),
        "BEGIN { trace(args[99]); }".into(),
        "BEGIN { trace($99); }".into(),
        "BEGIN { trace(stringof()); }".into(),
        "BEGIN { lquantize(1, 0, 10, 0); }".into(),
        "BEGIN { @ = lquantize(1, 10, 0, 1); }".into(),
        "BEGIN { @ = quantize(); }".into(),
        "BEGIN { trunc(@nosuch); }".into(),
        "BEGIN { printa(@nosuch); }".into(),
        "syscall::::::: {}".into(),
        "syscall::[:entry {}".into(),
        "profile-0 {}".into(),
        "profile-99999999999999999999s {}".into(),
        "tick-1zz {}".into(),
        "BEGIN { x = 1 ? \"a\" : 2; }".into(),
        "#pragma D option\nBEGIN {}".into(),
        "#pragma D option bufsize=\nBEGIN {}".into(),
        "#pragma\nBEGIN {}".into(),
        "BEGIN { trace(1 % 0); }".into(),
        "BEGIN { trace(-9223372036854775808 / -1); exit(0); }".into(),
        "BEGIN { trace(1 << 99); exit(0); }".into(),
        "\u{1}\u{ff}".into(),
        long_parens,
    ];
    for c in &cases {
        let o = dtrace().args(["-e", "-n", c]).output().expect("run");
        let err = text(&o.stderr);
        assert!(!err.contains("panicked"), "panic for {:?}: {}", c, err);
        assert!(o.status.code().is_some(), "killed by a signal for {:?}", c);
    }
}

fn says_when_privileges_are_missing() {
    let _g = serial();
    // Root without any capability, as setpriv(1) leaves it.
    let o = Command::new("setpriv")
        .args(["--bounding-set=-all", "--inh-caps=-all"])
        .arg(env!("CARGO_BIN_EXE_dtrace"))
        .args(["-n", "BEGIN { exit(0); }"])
        .output()
        .expect("setpriv (util-linux)");
    assert_failed(
        &o,
        1,
        "dtrace: failed to initialize dtrace: DTrace requires additional privileges\n",
    );
    // -h traces nothing, and needs no privilege.
    let dir = std::env::temp_dir().join(format!("dtrace-cli-nopriv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let prov = dir.join("app.d");
    // (A kernel type in a probe's parameters: the kernel's BTF is
    // readable without privilege.)
    std::fs::write(
        &prov,
        "provider app { probe start(int); probe task(struct task_struct *); };\n",
    )
    .expect("write app.d");
    let o = Command::new("setpriv")
        .args(["--bounding-set=-all", "--inh-caps=-all"])
        .arg(env!("CARGO_BIN_EXE_dtrace"))
        .arg("-h")
        .arg("-s")
        .arg(&prov)
        .output()
        .expect("setpriv (util-linux)");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let h = std::fs::read_to_string(dir.join("app.h")).expect("app.h beside app.d");
    assert!(h.contains("APP_START_ENABLED()"), "{}", h);
    assert!(h.contains("APP_TASK(arg0)"), "{}", h);
    let _ = std::fs::remove_dir_all(&dir);
}

fn verifier_refusals_give_the_verifiers_reason() {
    let _g = serial();
    // 64 nested sums of a variable need more than the 512 bytes of BPF
    // stack: the kernel's verifier refuses the program with EACCES, which
    // once read as "DTrace requires additional privileges" even as root.
    let mut e = "x".to_string();
    for _ in 0..63 {
        e = format!("(x + {})", e);
    }
    let prog = format!("BEGIN {{ x = 1; trace({}); exit(0); }}", e);
    let o = run(&["-n", &prog]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{}", err);
    assert!(!err.contains("privileges"), "{}", err);
    // Should the compiler come to refuse this depth itself, that is fine
    // too; otherwise the verifier's own words are given.
    if !err.contains("failed to compile")
        && !err.contains("invalid probe specifier")
        && !err.contains("expression too complex")
    {
        assert!(
            err.contains(
                "dtrace: failed to enable probes: the kernel's BPF verifier refused the \
                 program for dtrace:::BEGIN: invalid write to stack"
            ),
            "{}",
            err
        );
    }
}

/// A clause whose record cannot fit the buffer is refused when tracing is
/// enabled, in DTrace's words: its record would be dropped every time, and
/// with it its exit(), leaving dtrace running for ever.
fn records_larger_than_the_buffer_are_refused() {
    let _g = serial();
    let prog = "BEGIN { x = \"abc\"; printf(\"%s %s %s\\n\", x, x, x); exit(0); }";
    let mut child = dtrace()
        .args(["-q", "-b", "4k", "-x", "strsize=8k", "-n", prog])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn dtrace");
    let t = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if t.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("dtrace hangs on a record larger than its buffer");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let o = child.wait_with_output().expect("output");
    assert_failed(
        &o,
        1,
        "dtrace: could not enable tracing: Enabling exceeds size of buffer\n",
    );
    // The same record in a buffer that holds it.
    let o = run(&["-q", "-b", "4k", "-x", "strsize=1k", "-n", prog]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "abc abc abc\n\n");
}

/// The struct, union and enum layouts of test/unittest/types/tst.layout.d
/// are the system C compiler's: the same declarations (decls.h) compiled
/// by `cc` print the same sizes and offsets.
fn types_match_the_c_compiler() {
    let _g = serial();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test/unittest/types");
    let tmp = std::env::temp_dir().join(format!("dtrace-layout-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let src = tmp.join("layout.c");
    std::fs::write(
        &src,
        r#"#include <stdio.h>
#include <stddef.h>
#include "decls.h"
int main(void) {
	printf("%zu %zu %zu %zu\n", sizeof (struct flags), sizeof (union value), sizeof (enum color), sizeof (struct outer));
	printf("%zu %zu %zu %zu\n", offsetof(struct flags, c), offsetof(struct flags, f), offsetof(struct outer, v), offsetof(struct outer, col));
	printf("%zu %zu %zu %d\n", offsetof(struct outer, fl), offsetof(struct outer, i), offsetof(struct outer, last), BLUE);
	return 0;
}
"#,
    )
    .expect("write layout.c");
    let exe = tmp.join("layout");
    let cc = Command::new("cc")
        .arg("-I")
        .arg(&dir)
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output()
        .expect("run cc (build-essential)");
    assert!(cc.status.success(), "{}", text(&cc.stderr));
    let c = Command::new(&exe).output().expect("run layout");
    let d = run(&[
        "-qs",
        dir.join("tst.layout.d").to_str().expect("utf-8 path"),
    ]);
    let _ = std::fs::remove_dir_all(&tmp);
    assert_eq!(d.status.code(), Some(0), "{}", text(&d.stderr));
    assert_eq!(text(&d.stdout), text(&c.stdout) + "\n");
}

/// The kernel's BTF is read only for programs that need a kernel type
/// (the parser once asked about every `BEGIN`, `exit` and `x = 1`,
/// reading 5 MB of BTF on every run).
fn kernel_types_are_read_only_when_named() {
    let _g = serial();
    let btf_opens = |prog: &str| {
        let o = Command::new("strace")
            .args([
                "-f",
                "-qq",
                "-e",
                "trace=openat",
                "-o",
                "/dev/stdout",
                env!("CARGO_BIN_EXE_dtrace"),
                "-eqn",
                prog,
            ])
            .stdin(Stdio::null())
            .output()
            .expect("run strace");
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        text(&o.stdout).matches("/sys/kernel/btf/vmlinux").count()
    };
    assert_eq!(
        btf_opens("BEGIN { x = 1; @a = count(); trunc(@a); exit(0); }"),
        0
    );
    assert_eq!(btf_opens("syscall::read:entry { trace(arg0); }"), 0);
    assert_eq!(btf_opens("BEGIN { trace(curthread->pid); }"), 1);
}

/// Kernel variables by the backquote: read where the kernel exports their
/// addresses (`CONFIG_KALLSYMS_ALL`), and otherwise refused with the
/// reason, never read from a wrong address. Both ways are checked, as the
/// machine's kernel decides which applies.
fn kernel_variables_are_read_or_refused_with_the_reason() {
    let _g = serial();
    let kallsyms = std::fs::read_to_string("/proc/kallsyms").expect("read kallsyms");
    let listed = |name: &str| {
        kallsyms
            .lines()
            .any(|l| l.split_whitespace().nth(2) == Some(name))
    };
    for (name, prog, why) in [
        (
            "max_pfn",
            "BEGIN { printf(\"%d\\n\", `max_pfn > 0); exit(0); }",
            "Unknown symbol name (this kernel's /proc/kallsyms lists functions only: CONFIG_KALLSYMS_ALL is off)",
        ),
        (
            "cpu_number",
            "BEGIN { printf(\"%d\\n\", `cpu_number == cpu); exit(0); }",
            "a per-CPU variable, whose address this kernel does not export (/proc/kallsyms lists functions only: CONFIG_KALLSYMS_ALL is off)",
        ),
    ] {
        let o = run(&["-qn", prog]);
        if listed(name) {
            assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
            assert_eq!(text(&o.stdout).trim_end(), "1", "{}", prog);
        } else {
            assert_failed(
                &o,
                1,
                &format!(
                    "dtrace: invalid probe specifier {}: failed to resolve `{}: {}\n",
                    prog, name, why
                ),
            );
        }
    }
    // A symbol no kernel has: DTrace's words, with the reason where
    // kallsyms lists functions only.
    let prog = "BEGIN { trace(`no_such_kernel_symbol_at_all); }";
    let why = if kallsyms
        .lines()
        .filter(|l| l.contains(" D ") || l.contains(" d "))
        .count()
        >= 1000
    {
        "Unknown symbol name"
    } else {
        "Unknown symbol name (this kernel's /proc/kallsyms lists functions only: CONFIG_KALLSYMS_ALL is off)"
    };
    assert_failed(
        &run(&["-qn", prog]),
        1,
        &format!(
            "dtrace: invalid probe specifier {}: failed to resolve `no_such_kernel_symbol_at_all: {}\n",
            prog, why
        ),
    );
    // A function's address is always there.
    let o = run(&[
        "-qn",
        "BEGIN { printf(\"%d\\n\", &`vfs_read != NULL); exit(0); }",
    ]);
    assert_eq!(text(&o.stdout).trim_end(), "1", "{}", text(&o.stderr));
}

/// fbt: where the kernel loads fentry programs, `vfs_read` is listed with
/// its BTF-typed arguments and traced at entry and return; where it
/// refuses them (this project's machines), every way of naming an fbt
/// probe says so, and a plain listing has no fbt probes. The machine's
/// kernel decides which is checked.
fn fbt_traces_or_says_why() {
    let _g = serial();
    let listed = run(&["-lv", "-n", "fbt::vfs_read:entry"]);
    if listed.status.success() {
        let out = text(&listed.stdout);
        assert!(out.contains("fbt") && out.contains("vfs_read"), "{}", out);
        assert!(out.contains("args[0]: struct file *"), "{}", out);
        let before = ours();
        let o = run(&[
            "-qn",
            "fbt::vfs_read:entry /pid == $target/ { n++; } \
             fbt::vfs_read:return /pid == $target && arg1 > 0/ { r++; } \
             END { printf(\"%d %d\\n\", n > 0, r > 0); }",
            "-c",
            "cat /etc/hostname",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert!(text(&o.stdout).ends_with("1 1\n\n"), "{}", text(&o.stdout));
        assert_released(before, "fbt");
        return;
    }
    let why = "the kernel does not allow function tracing: fentry programs are refused (";
    assert!(
        text(&listed.stderr).starts_with(&format!(
            "dtrace: failed to match fbt::vfs_read:entry: No probe matches description ({}",
            why
        )),
        "{}",
        text(&listed.stderr)
    );
    let o = run(&["-n", "fbt:::entry { @[probefunc] = count(); }"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains(&format!(
            "probe description fbt:::entry does not match any probes ({}",
            why
        )),
        "{}",
        text(&o.stderr)
    );
    let all = run(&["-l"]);
    assert_eq!(all.status.code(), Some(0));
    assert!(
        !text(&all.stdout).lines().any(|l| l.contains(" fbt ")),
        "fbt probes listed"
    );
}

/// A library that does not compile is named in the error; a library
/// directory that does not exist is passed over, as DTrace does.
fn library_errors_name_the_library() {
    let _g = serial();
    let dir = std::env::temp_dir().join(format!("dtrace-badlib-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("lib dir");
    std::fs::write(dir.join("bad.d"), "inline int X = ;\n").expect("write lib");
    let d = dir.display().to_string();
    let o = run(&["-L", &d, "-qs", "/dev/null"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains(&format!(
            "failed to compile library {}/bad.d: line 1: syntax error near \";\"",
            d
        )),
        "{}",
        err
    );
    let o = run(&[
        "-L",
        "/nonexistent/dtrace-lib",
        "-qn",
        "BEGIN { trace(1); exit(0); }",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "1\n");
}

/// In a private mount namespace with every tracefs unmounted, dtrace
/// mounts tracefs itself at /sys/kernel/tracing.  The host's mounts are
/// not touched.
fn mounts_tracefs_itself() {
    let _g = serial();
    // $1 is dtrace.  Unmount every tracefs (stacked mounts too), prove
    // none is left, run dtrace, then report what is mounted.
    let script = r#"
        while mp=$(awk '$3 == "tracefs" { print $2; exit }' /proc/self/mounts); [ -n "$mp" ]; do
            umount "$mp" || { echo "cannot unmount $mp" >&2; exit 90; }
        done
        if [ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ]; then
            echo "tracefs still reachable before dtrace ran" >&2; exit 91
        fi
        "$1" -qn 'syscall::getpid:entry { exit(0); } BEGIN { printf("%d\n", 1); }' -c 'sh -c :'
        st=$?
        awk '$3 == "tracefs" { print "after: " $2 }' /proc/self/mounts
        exit $st
    "#;
    let o = Command::new("unshare")
        .args([
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            script,
            "sh",
        ])
        .arg(env!("CARGO_BIN_EXE_dtrace"))
        .stdin(Stdio::null())
        .output()
        .expect("unshare (util-linux)");
    assert_eq!(
        o.status.code(),
        Some(0),
        "stdout: {}\nstderr: {}",
        text(&o.stdout),
        text(&o.stderr)
    );
    assert_eq!(text(&o.stdout), "1\n\nafter: /sys/kernel/tracing\n");
}

/// True when this process may trace: root with the capabilities dtrace
/// needs.  Tests that run dtrace against the kernel need it.
fn privileged() -> bool {
    dtrace_sys::geteuid() == 0 && dtrace_sys::has_trace_privilege()
}

/// `name: needs_root` pairs as (name, function, needs_root).
macro_rules! named {
    ($($f:ident: $root:expr),* $(,)?) => {
        &[$((stringify!($f), $f as fn(), $root)),*]
    };
}

/// `-x oformat=json`: every line of the output parses as JSON, with the
/// paths printf() wrote and the aggregation's row; drops and errors are
/// objects too, and nothing but JSON reaches the output.
/// With `-x oformat=json` the output is JSON and nothing else: a
/// `system()` command's output becomes a record of its firing, in order
/// after the printf before it, and strings that are not UTF-8 keep every
/// byte (`{"hex":...}`), so distinct keys stay distinct.
fn json_output_is_json_only() {
    let _g = serial();
    let o = run(&[
        "-w",
        "-x",
        "oformat=json",
        "-n",
        r#"BEGIN { printf("first\n"); system("echo from-system; printf '\\377\\n'");
           @["caf\xe9"] = count(); @["caf\xe8"] = count(); @["cafe"] = count(); exit(0); }"#,
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    let mut records = Vec::new();
    let mut keys = Vec::new();
    for line in text(&o.stdout).lines() {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({}): {:?}", e, line));
        match v["type"].as_str() {
            Some("probe") => records.extend(v["records"].as_array().expect("records").clone()),
            Some("aggregation") => {
                for r in v["rows"].as_array().expect("rows") {
                    keys.push(r["keys"][0].clone());
                }
            }
            other => panic!("unexpected {:?} in {}", other, line),
        }
    }
    assert_eq!(records.len(), 2, "{:?}", records);
    assert_eq!(records[0]["action"], "printf");
    assert_eq!(records[0]["text"], "first\n");
    assert_eq!(records[1]["action"], "system");
    assert_eq!(records[1]["command"], "echo from-system; printf '\\377\\n'");
    // "from-system\n\xff\n" is not UTF-8: its bytes in hexadecimal.
    assert_eq!(
        records[1]["output"]["hex"], "66726f6d2d73797374656d0aff0a",
        "{:?}",
        records[1]
    );
    keys.sort_by_key(|k| k.to_string());
    assert_eq!(
        keys,
        vec![
            serde_json::json!("cafe"),
            serde_json::json!({"hex": "636166e8"}),
            serde_json::json!({"hex": "636166e9"}),
        ]
    );
}

fn json_output_is_json() {
    let _g = serial();
    let out = std::env::temp_dir().join(format!("dtrace-json-{}.out", std::process::id()));
    let o = run(&[
        "-x",
        "oformat=json",
        "-o",
        out.to_str().unwrap(),
        "-n",
        r#"syscall::openat:entry /pid == $target/ { printf("%s\n", copyinstr(arg1)); @[execname] = count(); }"#,
        "-c",
        "cat /etc/hostname",
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    let body = std::fs::read_to_string(&out).expect("the output file");
    std::fs::remove_file(&out).ok();
    let mut path_seen = false;
    let mut row_seen = false;
    for line in body.lines() {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({}): {:?}", e, line));
        match v["type"].as_str() {
            Some("probe") => {
                assert_eq!(v["probe"]["function"], "openat");
                for r in v["records"].as_array().expect("records") {
                    if r["action"] == "printf" && r["text"] == "/etc/hostname\n" {
                        path_seen = true;
                    }
                }
            }
            Some("aggregation") => {
                assert_eq!(v["names"][0], "@");
                for r in v["rows"].as_array().expect("rows") {
                    if r["keys"][0] == "cat" && r["values"][0].as_i64().unwrap_or(0) > 0 {
                        row_seen = true;
                    }
                }
            }
            Some("error") | Some("drop") => assert!(v["message"].is_string()),
            other => panic!("unknown object type {:?} in {}", other, line),
        }
    }
    assert!(path_seen, "no printf of /etc/hostname in:\n{}", body);
    assert!(row_seen, "no aggregation row for cat in:\n{}", body);

    // The same to standard output, which the target shares: every line
    // but what cat itself printed is JSON.
    let o = run(&[
        "-x",
        "oformat=json",
        "-n",
        r#"syscall::openat:entry { printf("%s\n", copyinstr(arg1)); @[execname] = count(); }"#,
        "-c",
        "cat /etc/hostname",
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    // cat's one write may land between two of dtrace's (a pipe keeps
    // each write whole, not each line): it is taken out where it is.
    let hostname = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
    let ours = text(&o.stdout).replacen(&hostname, "", 1);
    let mut objects = 0;
    for line in ours.lines() {
        let _: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({}): {:?}", e, line));
        objects += 1;
    }
    assert!(objects > 1, "{}", text(&o.stdout));

    // Drops are objects too: an aggregation buffer too small for a key
    // per timestamp.
    let out = std::env::temp_dir().join(format!("dtrace-drops-{}.out", std::process::id()));
    let o = run(&[
        "-x",
        "oformat=json",
        "-x",
        "aggsize=1k",
        "-o",
        out.to_str().unwrap(),
        "-n",
        "syscall:::entry /pid == $target/ { @[timestamp] = count(); }",
        "-c",
        "ls -R /usr/share",
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    let body = std::fs::read_to_string(&out).expect("the output file");
    std::fs::remove_file(&out).ok();
    let drops: Vec<serde_json::Value> = body
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({}): {:?}", e, l)))
        .filter(|v: &serde_json::Value| v["type"] == "drop")
        .collect();
    assert!(
        drops
            .iter()
            .any(|d| d["kind"] == "aggregation" && d["count"].as_u64().unwrap_or(0) > 0),
        "no aggregation drop object in:\n{}",
        body.lines()
            .filter(|l| !l.contains("\"aggregation\",\"names\""))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// A profile of kernel stacks prints symbolized frames, and with
/// `-x flamegraph=FILE` draws them as an SVG whose frames are kernel
/// functions (an idle CPU's samples are in the kernel's idle loop).
fn flamegraph_is_an_svg() {
    let _g = serial();
    let svg = std::env::temp_dir().join(format!("dtrace-flame-{}.svg", std::process::id()));
    let o = run(&[
        "-x",
        &format!("flamegraph={}", svg.display()),
        "-n",
        "profile-997 { @[stack()] = count(); } tick-1s { exit(0); }",
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    assert!(
        text(&o.stdout)
            .lines()
            .any(|l| l.starts_with("              vmlinux`")),
        "no kernel frame in:\n{}",
        text(&o.stdout)
    );
    let body = std::fs::read_to_string(&svg);
    std::fs::remove_file(&svg).ok();
    let body = body.expect("the SVG file");
    let mut r = quick_xml::Reader::from_str(&body);
    let mut root = None;
    let mut titles = Vec::new();
    let mut in_title = false;
    loop {
        match r.read_event() {
            Ok(quick_xml::events::Event::Start(e)) => {
                let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                if root.is_none() {
                    root = Some(name.clone());
                }
                in_title = name == "title";
            }
            Ok(quick_xml::events::Event::Text(t)) if in_title => {
                titles.push(String::from_utf8_lossy(t.as_ref()).into_owned());
            }
            Ok(quick_xml::events::Event::End(_)) => in_title = false,
            Ok(quick_xml::events::Event::Eof) => break,
            Err(e) => panic!("the SVG does not parse: {}", e),
            _ => {}
        }
    }
    assert_eq!(root.as_deref(), Some("svg"));
    assert!(
        titles.iter().any(|t| t.contains("vmlinux`")),
        "no kernel frame among {:?}",
        titles
    );

    // A file that cannot be written is found before tracing starts: BEGIN
    // never runs.
    let o = run(&[
        "-q",
        "-x",
        "flamegraph=/nonexistent/dir/cpu.svg",
        "-n",
        "BEGIN { printf(\"began\\n\"); } profile-997 { @[stack()] = count(); } tick-1ms { exit(0); }",
    ]);
    assert_failed(
        &o,
        1,
        "dtrace: could not enable tracing: cannot write the flame graph to \
         /nonexistent/dir/cpu.svg: No such file or directory\n",
    );
    assert_eq!(text(&o.stdout), "");
    // No aggregation a flame graph can draw: said before tracing.
    let o = run(&[
        "-q",
        "-x",
        &format!("flamegraph={}", svg.display()),
        "-n",
        "BEGIN { printf(\"began\\n\"); } tick-1ms { @[execname] = count(); exit(0); }",
    ]);
    assert_failed(
        &o,
        1,
        &format!(
            "dtrace: could not enable tracing: cannot draw a flame graph in {}: \
             no aggregation is keyed by stack(), ustack() or jstack()\n",
            svg.display()
        ),
    );
    assert_eq!(text(&o.stdout), "");
    std::fs::remove_file(&svg).ok();
}

fn main() {
    // The tests stop dtrace with SIGINT and SIGTERM: its children must not
    // inherit them ignored (a harness started in the background by a shell
    // without job control has them so).
    dtrace_sys::poll::default_stop_signals();
    let args = Arguments::from_args();
    let root = privileged();
    // (name, test, needs root)
    // Each test, and whether it needs root.
    let tests: &[(&str, fn(), bool)] = named![
        usage_errors: false,
        manual_page_is_the_tables: false,
        hello_one_liner: true,
        description_notice_and_columns: true,
        compile_errors_in_dtrace_form: true,
        bad_options: true,
        listing: true,
        output_file_and_compile_only: true,
        target_exit_ends_tracing: true,
        target_end_is_reported: true,
        sigint_runs_end_and_prints_aggregations: true,
        sigterm_runs_end: true,
        kill_9_leaves_nothing_behind: true,
        no_input_panics: true,
        says_when_privileges_are_missing: true,
        pid_probes_in_a_library_a_grabbed_process_loads_later: true,
        mounts_tracefs_itself: true,
        verifier_refusals_give_the_verifiers_reason: true,
        strings_are_bytes_end_to_end: true,
        command_line_programs_are_bytes: true,
        script_names_and_arguments_are_bytes: true,
        copyinstr_and_commands_keep_bytes: true,
        no_script_bytes_panic: true,
        types_match_the_c_compiler: true,
        library_errors_name_the_library: true,
        kernel_types_are_read_only_when_named: true,
        kernel_variables_are_read_or_refused_with_the_reason: true,
        records_larger_than_the_buffer_are_refused: true,
        fbt_traces_or_says_why: true,
        copyout_writes_or_says_why: true,
        dash_s_shows_the_bpf_programs: true,
        interpreter_files_with_options: true,
        destructive_actions_need_w: true,
        json_output_is_json: true,
        json_output_is_json_only: true,
        flamegraph_is_an_svg: true,
        pid_probes_a_running_process: true,
        usdt_probes_are_listed_and_traced_in_a_running_process: true,
        pid_probes_run_on_perf_events_where_there_is_no_uprobe_multi: true,
        user_probes_are_a_program_a_place_where_there_are_no_attach_cookies: true,
        old_kernels_paths_give_the_same_answers: true,
        headers_and_objects_for_static_probes: true,
        ustack_at_a_pid_entry_probe_has_the_caller: true,
        pid_probes_leave_out_places_the_kernel_refuses: true,
        pid_offset_probes_are_on_instructions: true,
        pid_probes_see_what_the_process_maps: true,
        usdt_semaphores_the_kernel_cannot_count: true,
        pid_probes_follow_the_program_headers: true,
    ];
    let trials = tests
        .iter()
        .map(|&(name, f, needs_root)| {
            Trial::ignorable_test(name, move || {
                if needs_root && !root {
                    return Ok(Completion::ignored_with("needs root"));
                }
                f();
                Ok(Completion::Completed)
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

/// The pid provider on a running process (`-p`): its objects are read
/// from its mappings, libc's write() is probed, the probe fires on the
/// process's next write with its arguments, and nothing is left behind.
fn pid_probes_a_running_process() {
    let _g = serial();
    let before = ours();
    let mut cat = Command::new("cat")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("spawn cat");
    let pid = cat.id().to_string();
    let mut d = dtrace()
        .args([
            "-q",
            "-p",
            &pid,
            "-n",
            "pid$target:libc.so.6:write:entry { printf(\"%d %d\\n\", arg0, arg2); exit(0); }",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn dtrace");
    let mut input = cat.stdin.take().expect("cat's stdin");
    // cat's writes before the probe is attached go unseen: it is fed a
    // line until dtrace has seen one and exited.
    let t = Instant::now();
    while d.try_wait().ok().flatten().is_none() {
        if t.elapsed() > Duration::from_secs(30) {
            let _ = d.kill();
            panic!("dtrace never saw cat write");
        }
        let _ = input.write_all(b"hello\n");
        let _ = input.flush();
        std::thread::sleep(Duration::from_millis(50));
    }
    let o = d.wait_with_output().expect("dtrace's output");
    drop(input);
    let _ = cat.kill();
    let _ = cat.wait();
    assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    // write(1, "hello\n", 6).
    assert_eq!(text(&o.stdout).lines().next(), Some("1 6"));
    assert_released(before, "pid provider");
}

/// dtrace started with `args` and a BEGIN clause that prints "ready",
/// returned once it has printed it (its probes are enabled then), with
/// the rest of its standard output to read.
fn dtrace_ready(args: &[&str]) -> (Child, BufReader<std::process::ChildStdout>) {
    let mut d = dtrace()
        .args(args)
        .args(["-n", "BEGIN { printf(\"ready\\n\"); }"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn dtrace");
    let mut out = BufReader::new(d.stdout.take().expect("stdout"));
    let mut line = String::new();
    while !line.contains("ready") {
        line.clear();
        if out.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
    }
    assert!(
        line.contains("ready"),
        "dtrace never said ready: {:?}",
        line
    );
    (d, out)
}

/// Kernels before 6.6 have no uprobe_multi links: user-level probes are
/// uprobe perf events there, one a place, each with a BPF link carrying
/// its cookie. `DTRACE_NO_UPROBE_MULTI` takes that path on this kernel:
/// entry and return probes fire as they do on the links, and nothing is
/// left behind.
fn pid_probes_run_on_perf_events_where_there_is_no_uprobe_multi() {
    let _g = serial();
    let before = ours();
    let o = dtrace()
        .env("DTRACE_NO_UPROBE_MULTI", "1")
        .args([
            "-q",
            "-n",
            "int n; pid$target:libc.so.6:exit:entry { printf(\"exit %d\\n\", arg0); }
             pid$target::malloc:return /arg1 != 0/ { n++; }
             END { printf(\"%s\\n\", n > 0 ? \"malloc returned\" : \"no malloc\"); }",
            "-c",
            "ls /",
        ])
        .output()
        .expect("run dtrace");
    assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.lines().any(|l| l == "exit 0"), "{}", out);
    assert!(out.lines().any(|l| l == "malloc returned"), "{}", out);
    assert_released(before, "pid probes on perf events");
}

/// Kernels before 5.15 have no attach cookies, nor BPF links to perf
/// events: a program that would tell its places apart by cookie is a
/// program for each place there, its cookie a constant, set on the
/// place's uprobe perf event. `DTRACE_NO_ATTACH_COOKIE` takes that path
/// on this kernel: pid entry and return probes (the return's offset is
/// the cookie's), USDT probes and plockstat fire as they do with
/// cookies, and nothing is left behind.
fn user_probes_are_a_program_a_place_where_there_are_no_attach_cookies() {
    let _g = serial();
    let before = ours();
    let o = dtrace()
        .env("DTRACE_NO_ATTACH_COOKIE", "1")
        .args([
            "-q",
            "-n",
            "int n; int r; pid$target:libc.so.6:exit:entry { printf(\"exit %d\\n\", arg0); }
             pid$target::malloc:return /arg1 != 0/ { n++; }
             pid$target::malloc:return /arg0 != 0/ { r++; }
             END { printf(\"%s %s\\n\", n > 0 ? \"malloc returned\" : \"no malloc\",
                 r > 0 ? \"at an offset\" : \"at none\"); }",
            "-c",
            "ls /",
        ])
        .output()
        .expect("run dtrace");
    assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.lines().any(|l| l == "exit 0"), "{}", out);
    assert!(
        out.lines().any(|l| l == "malloc returned at an offset"),
        "{}",
        out
    );
    assert_released(before, "pid probes a program a place");
}

/// Kernels before 6.6 lack instructions and helpers dtrace uses where it
/// can: compare-and-exchange (5.12: exit(), speculations and tick gates
/// take a lock instead), signed division (6.6), long jumps (6.4),
/// `bpf_strncmp` (5.17), the number iterator (6.4: speculation() and
/// progenyof() loop without it). `DTRACE_OLD_BPF` takes those paths on
/// this kernel, and the answers are the same; the programs are the
/// lock's (dt_lock), which is gone afterwards.
fn old_kernels_paths_give_the_same_answers() {
    let _g = serial();
    let before = ours();
    let prog = "int n;
        BEGIN { printf(\"%d %d %d %d\\n\", -7 / 2, -7 % 2, 7 / -2, 7 % -2); }
        BEGIN { s = \"abc\"; printf(\"%d %d\\n\", s == \"abc\", s != \"abd\"); }
        BEGIN { printf(\"%d %d\\n\", progenyof(1), progenyof(-5)); }
        BEGIN { self->spec = speculation(); speculate(self->spec); printf(\"speculated\\n\"); }
        BEGIN { printf(\"before\\n\"); }
        BEGIN { commit(self->spec); }
        tick-1ms /++n == 3/ { exit(0); }
        END { printf(\"ticks %d\\n\", n); }";
    let mut outs = Vec::new();
    for old in [false, true] {
        let mut cmd = dtrace();
        if old {
            cmd.env("DTRACE_OLD_BPF", "1");
        }
        let o = cmd.args(["-q", "-n", prog]).output().expect("run dtrace");
        assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
        outs.push(text(&o.stdout));
    }
    assert_eq!(
        outs[0], "-3 -1 -3 1\n1 1\n1 0\nbefore\nspeculated\nticks 3\n\n",
        "on this kernel's paths"
    );
    assert_eq!(outs[1], outs[0], "on an old kernel's paths");
    assert_released(before, "old kernels' paths");
}

/// The usdtapp fixture of the D suite, built here with the header the
/// dtrace under test makes of its provider definition.
fn usdtapp() -> std::path::PathBuf {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test/fixtures");
    let dir = std::env::temp_dir().join(format!("dtrace-cli-usdt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("fixture directory");
    let o = run(&[
        "-h",
        "-s",
        fixtures.join("usdtapp.d").to_str().expect("path"),
        "-o",
        dir.join("usdtapp.h").to_str().expect("path"),
    ]);
    assert_eq!(o.status.code(), Some(0), "dtrace -h: {}", text(&o.stderr));
    let exe = dir.join("usdtapp");
    let cc = Command::new("cc")
        .args(["-O1", "-Wall", "-I"])
        .arg(&dir)
        .arg("-o")
        .arg(&exe)
        .arg(fixtures.join("usdtapp.c"))
        .output()
        .expect("cc (build-essential)");
    assert!(cc.status.success(), "cc: {}", text(&cc.stderr));
    exe
}

/// A running process's USDT probes: `-l -p PID` lists them (and `-m`
/// those of one module), a probe fires with its arguments once the
/// process runs on, and killing the process (`kill -9`) ends tracing
/// with DTrace's notice and leaves nothing behind.
fn usdt_probes_are_listed_and_traced_in_a_running_process() {
    let _g = serial();
    let before = ours();
    let exe = usdtapp();
    let spawn = || {
        Command::new(&exe)
            .args(["hello", "wait"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("spawn usdtapp")
    };
    let mut app = spawn();
    let pid = app.id().to_string();
    // The process has run its dynamic linker before it reads its input;
    // listing waits until its libraries are mapped.
    let t = Instant::now();
    let listed = loop {
        let o = run(&["-l", "-p", &pid]);
        assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
        let out = text(&o.stdout);
        if out.contains("query-start") || t.elapsed() > Duration::from_secs(10) {
            break out;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let provider = format!("myserv{}", pid);
    for name in ["query-start", "query-done", "tick", "query-plain"] {
        assert!(
            listed.lines().any(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                f.len() == 5
                    && f[1] == provider
                    && f[2] == "usdtapp"
                    && f[3] == "run_query"
                    && f[4] == name
            }),
            "{} not listed in:\n{}",
            name,
            listed
        );
    }
    let o = run(&["-l", "-m", "usdtapp", "-p", &pid]);
    let module = text(&o.stdout);
    assert_eq!(module.lines().count(), 5, "{}", module);
    // The provider's #pragma D attributes, as the header recorded them:
    // a description's are the lowest of its parts' (each element here
    // from another part).
    let o = run(&["-lv", "-n", &format!("myserv{}:::tick", pid)]);
    let v = text(&o.stdout);
    assert!(
        v.contains("Probe Description Attributes\n\t\tIdentifier Names: Evolving\n\t\tData Semantics:   Evolving\n\t\tDependency Class: ISA"),
        "{}",
        v
    );
    assert!(
        v.contains("Argument Attributes\n\t\tIdentifier Names: Private\n\t\tData Semantics:   Private\n\t\tDependency Class: Unknown"),
        "{}",
        v
    );
    // The arguments' types as the definition declares them (through its
    // translation, `: (string query, ...)`), which the header recorded.
    let o = run(&["-lv", "-n", &format!("myserv{}:::query-done", pid)]);
    let v = text(&o.stdout);
    assert!(
        v.contains(
            "Argument Types\n\t\targs[0]: string\n\t\targs[1]: int\n\t\targs[2]: long long\n"
        ),
        "{}",
        v
    );
    let o = run(&["-lv", "-n", &format!("myserv{}:::query-plain", pid)]);
    let v = text(&o.stdout);
    assert!(v.contains("Argument Types\n\t\targs[0]: char *\n"), "{}", v);
    // Traced: the probes are enabled (BEGIN says so), then the process
    // runs its queries.
    let (d, mut out) = dtrace_ready(&[
        "-q",
        "-p",
        &pid,
        "-n",
        "myserv$target:::query-start { printf(\"%s %d\\n\", copyinstr(arg0), arg1); }",
    ]);
    let mut input = app.stdin.take().expect("usdtapp's stdin");
    input.write_all(b"go\n").expect("feed usdtapp");
    drop(input);
    let mut rest = String::new();
    let _ = out.read_to_string(&mut rest);
    let o = d.wait_with_output().expect("dtrace's output");
    let _ = app.wait();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // (The blank line ends the output, as DTrace ends it.)
    assert_eq!(rest, "hello 8\nhello 9\nhello 10\n\n");
    // Killed while traced: tracing ends, nothing is left.
    let mut app = spawn();
    let pid = app.id().to_string();
    let (mut d, _out) = dtrace_ready(&["-p", &pid, "-n", "myserv$target:::tick { }"]);
    let mut err = BufReader::new(d.stderr.take().expect("stderr"));
    let _ = app.kill();
    let _ = app.wait();
    let mut rest = String::new();
    let _ = err.read_to_string(&mut rest);
    let status = d.wait().expect("dtrace");
    assert_eq!(status.code(), Some(0), "{}", rest);
    assert!(
        rest.contains(&format!("dtrace: pid {} has exited", pid)),
        "{}",
        rest
    );
    assert_released(before, "usdt provider");
    // dtrace killed (kill -9) while its probes are in a live process: the
    // kernel closes its links, and the process runs on untraced.
    let mut app = spawn();
    let pid = app.id().to_string();
    let (mut d, _out) = dtrace_ready(&[
        "-p",
        &pid,
        "-n",
        "myserv$target:::query-start, pid$target:a.out:run_query:entry { }",
    ]);
    let _ = d.kill();
    let _ = d.wait();
    assert_released(before, "kill -9 of dtrace with uprobes");
    let mut input = app.stdin.take().expect("usdtapp's stdin");
    input.write_all(b"go\n").expect("feed usdtapp");
    drop(input);
    assert_eq!(app.wait().expect("usdtapp").code(), Some(0));
    let _ = std::fs::remove_dir_all(exe.parent().expect("dir"));
}

/// The C fixture `test/fixtures/NAME.c`, built (`cc -O1`) into the
/// temporary directory.
fn build_fixture(name: &str) -> std::path::PathBuf {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test/fixtures");
    let exe = std::env::temp_dir().join(format!("dtrace-cli-{}-{}", name, std::process::id()));
    let cc = Command::new("cc")
        .args(["-O1", "-o"])
        .arg(&exe)
        .arg(fixtures.join(format!("{}.c", name)))
        .output()
        .expect("cc (build-essential)");
    assert!(cc.status.success(), "cc: {}", text(&cc.stderr));
    exe
}

/// A library a grabbed process (`-p`) loads with dlopen() later, named
/// by its file: its pid probes are made from the file the process will
/// load, and fire once it does.
fn pid_probes_in_a_library_a_grabbed_process_loads_later() {
    let _g = serial();
    let before = ours();
    let exe = build_fixture("dlopener");
    let mut app = Command::new(&exe)
        .arg("wait")
        .stdin(Stdio::piped())
        .spawn()
        .expect("spawn dlopener");
    let pid = app.id().to_string();
    // Grabbed once its dynamic linker has mapped libc, before libm.
    let maps = format!("/proc/{}/maps", pid);
    let t = Instant::now();
    while !std::fs::read_to_string(&maps).is_ok_and(|m| m.contains("libc.so"))
        && t.elapsed() < Duration::from_secs(10)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    let m = std::fs::read_to_string(&maps).unwrap_or_default();
    assert!(!m.contains("libm.so"), "libm is mapped already:\n{}", m);
    let (d, mut out) = dtrace_ready(&[
        "-q",
        "-p",
        &pid,
        "-n",
        "pid$target:libm.so.6:jn:entry { printf(\"%s %d\\n\", probefunc, arg0); }",
    ]);
    let mut input = app.stdin.take().expect("dlopener's stdin");
    input.write_all(b"go\n").expect("feed dlopener");
    drop(input);
    assert_eq!(app.wait().expect("dlopener").code(), Some(0));
    let mut rest = String::new();
    let _ = out.read_to_string(&mut rest);
    let o = d.wait_with_output().expect("dtrace's output");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(rest, "jn 2\n\n");
    assert_released(before, "pid probes of a dlopen()ed library");
    let _ = std::fs::remove_file(&exe);
}

/// At a pid `entry` probe the function has not saved its caller's frame
/// pointer: `ustack()` takes the caller from the return address on top
/// of the stack, so `leaf`'s stack is leaf, inner, outer, main.
fn ustack_at_a_pid_entry_probe_has_the_caller() {
    let _g = serial();
    let exe = build_fixture("frames");
    let mut app = Command::new(&exe)
        .arg("wait")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("spawn frames");
    let pid = app.id().to_string();
    let mut input = app.stdin.take().expect("stdin");
    let (d, mut out) = dtrace_ready(&[
        "-q",
        "-p",
        &pid,
        "-n",
        "pid$target:a.out:leaf:entry { ustack(4); exit(0); }",
    ]);
    input.write_all(b"go\n").expect("feed frames");
    let mut rest = String::new();
    let _ = out.read_to_string(&mut rest);
    let o = d.wait_with_output().expect("dtrace");
    // The process lives on until it is fed again.
    input.write_all(b"go\n").expect("feed frames");
    drop(input);
    let _ = app.wait();
    let _ = std::fs::remove_file(&exe);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let frames: Vec<String> = rest
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| l.split("+0x").next().unwrap_or(l).to_string())
        .collect();
    let name = exe
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let want: Vec<String> = ["leaf", "inner", "outer", "main"]
        .iter()
        .map(|f| format!("{}`{}", name, f))
        .collect();
    assert_eq!(frames, want, "{}", rest);
}

/// `-h` writes DTrace's header for a provider definition (to `-o`, or
/// beside a `NAME.d` script as `NAME.h`), which compiles; `-G` writes
/// an object the build links; both refuse what they cannot do.
fn headers_and_objects_for_static_probes() {
    let dir = std::env::temp_dir().join(format!("dtrace-cli-h-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let prov = dir.join("shop.d");
    std::fs::write(
        &prov,
        "provider shop {\n\tprobe order__placed(char *, unsigned int);\n\tprobe closed();\n};\n",
    )
    .expect("write shop.d");
    let o = run(&["-h", "-s", prov.to_str().expect("path")]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let h = std::fs::read_to_string(dir.join("shop.h")).expect("shop.h beside shop.d");
    assert!(h.contains("#ifndef\t_SHOP_H\n"), "{}", h);
    assert!(h.contains("#define\tSHOP_ORDER_PLACED(arg0, arg1) \\\n\t__dtrace_shop___order__placed(arg0, arg1)\n"), "{}", h);
    assert!(h.contains("#define\tSHOP_CLOSED_ENABLED() (0)\n"), "{}", h);
    // It compiles, in C and C++, and the probes are in the object's notes.
    let c = dir.join("use.c");
    std::fs::write(
        &c,
        "#include \"shop.h\"\nint main(int argc, char **argv) {\n\tif (SHOP_ORDER_PLACED_ENABLED())\n\t\tSHOP_ORDER_PLACED(argv[0], argc);\n\tSHOP_CLOSED();\n\treturn 0;\n}\n",
    )
    .expect("write use.c");
    for compiler in ["cc", "c++"] {
        let mut cmd = Command::new(compiler);
        if compiler == "c++" {
            cmd.args(["-x", "c++"]);
        }
        let obj = dir.join(format!("use-{}.o", compiler));
        let out = cmd
            .args(["-Wall", "-Werror", "-O2", "-c", "-I"])
            .arg(&dir)
            .arg(&c)
            .arg("-o")
            .arg(&obj)
            .output()
            .expect("compiler");
        assert!(out.status.success(), "{}: {}", compiler, text(&out.stderr));
    }
    // -G: an object that links with them.
    let objs = [dir.join("use-cc.o")];
    let shop_o = dir.join("shop.o");
    let o = run(&[
        "-G",
        "-s",
        prov.to_str().expect("path"),
        "-o",
        shop_o.to_str().expect("path"),
        objs[0].to_str().expect("path"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let linked = Command::new("cc")
        .arg(&objs[0])
        .arg(&shop_o)
        .arg("-o")
        .arg(dir.join("use"))
        .output()
        .expect("cc");
    assert!(linked.status.success(), "link: {}", text(&linked.stderr));
    let ran = Command::new(dir.join("use")).status().expect("run use");
    assert!(ran.success());
    // Rust for the dtrace-usdt crate, when the output is `*.rs`: the
    // example's generated provider is what -h writes today.
    let example =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../dtrace-usdt/examples/rustprobes");
    let rs = dir.join("provider.rs");
    let o = run(&[
        "-h",
        "-s",
        example.join("provider.d").to_str().expect("path"),
        "-o",
        rs.to_str().expect("path"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(
        std::fs::read_to_string(&rs).expect("provider.rs"),
        std::fs::read_to_string(example.join("provider.rs")).expect("the example's provider.rs"),
        "regenerate crates/dtrace-usdt/examples/rustprobes/provider.rs with dtrace -h"
    );
    // What they refuse.
    let o = run(&["-h", "-n", "BEGIN"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        "dtrace: -h requires one or more scripts (-s) with provider definitions\n"
    );
    let o = run(&[
        "-h",
        "-s",
        prov.to_str().expect("path"),
        "-s",
        prov.to_str().expect("path"),
    ]);
    assert_eq!(
        text(&o.stderr),
        "dtrace: -h requires an output file if multiple scripts are specified\n"
    );
    let empty = dir.join("empty.d");
    std::fs::write(&empty, "BEGIN { exit(0); }\n").expect("write empty.d");
    let o = run(&["-h", "-s", empty.to_str().expect("path")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("no providers are defined"),
        "{}",
        text(&o.stderr)
    );
    let o = run(&[
        "-G",
        "-s",
        prov.to_str().expect("path"),
        "-o",
        "/dev/null",
        "/nonexistent.o",
    ]);
    assert_eq!(
        text(&o.stderr),
        "dtrace: failed to open /nonexistent.o: No such file or directory\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every function of libc: the kernel refuses a link with a place it
/// cannot probe, so the places are tried in halves and the refused ones
/// left out; the rest fire.
fn pid_probes_leave_out_places_the_kernel_refuses() {
    let _g = serial();
    let before = ours();
    let o = run(&[
        "-q",
        "-n",
        "pid$target:libc.so.6::entry { @n = count(); } END { printa(\"%@d\\n\", @n); }",
        "-c",
        "true",
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    let n: u64 = text(&o.stdout)
        .split_whitespace()
        .next()
        .and_then(|w| w.parse().ok())
        .unwrap_or(0);
    assert!(n > 0, "no libc function fired: {}", text(&o.stdout));
    // The places left out are named in a notice each (here libc may have
    // one the kernel's uprobes cannot step; another build may have none).
    for l in text(&o.stderr).lines() {
        let named = l
            .strip_prefix("dtrace: pid")
            .and_then(|r| {
                r.strip_suffix(":entry left out: the kernel cannot put a uprobe on its instruction")
            })
            .is_some_and(|r| r.contains(":libc.so.6:"));
        assert!(named, "unexpected: {}", l);
    }
    assert_released(before, "pid provider, all of libc");
}

/// A process's objects are read as the process maps them, not by their
/// names in dtrace's own view: a library replaced on disk since it was
/// mapped (the new file has its function elsewhere), a deleted
/// executable, and a library of another mount namespace (a bind mount
/// over it, as a container has) are each traced where the process runs
/// them, every call counted.
fn pid_probes_see_what_the_process_maps() {
    let _g = serial();
    let before = ours();
    let dir = std::env::temp_dir().join(format!("dtrace-view-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("lib")).expect("mkdir");
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).expect("write");
    write("liba.c", "int dtt_libf(int x) { return x + 1; }\n");
    // Another function first: dtt_libf is at another offset in this one.
    write(
        "libb.c",
        "int dtt_pad(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * x; return s; }\n\
         int dtt_libf(int x) { return x + 2; }\n",
    );
    write(
        "main.c",
        "#include <unistd.h>\nint dtt_libf(int);\n\
         __attribute__((noinline)) int dtt_exef(int x) { __asm__ volatile(\"\" ::: \"memory\"); return x; }\n\
         int main(void) { char c; int t = 0; while (read(0, &c, 1) > 0) ;\n\
         for (int i = 0; i < 5; i++) t += dtt_libf(i) + dtt_exef(i); return t > 0 ? 0 : 1; }\n",
    );
    let cc = |args: &[&str]| {
        let o = Command::new("cc")
            .current_dir(&dir)
            .args(args)
            .output()
            .expect("cc");
        assert!(o.status.success(), "cc {:?}: {}", args, text(&o.stderr));
    };
    cc(&["-shared", "-fPIC", "-O1", "-o", "liba.so", "liba.c"]);
    cc(&["-shared", "-fPIC", "-O1", "-o", "libb.so", "libb.c"]);
    let lib = dir.join("lib/libdtt.so");
    let libs = |which: &str| std::fs::copy(dir.join(which), &lib).expect("copy lib");
    libs("liba.so");
    let rpath = format!("-Wl,-rpath,{}", dir.join("lib").display());
    cc(&["-O1", "-o", "prog", "main.c", "-Llib", "-ldtt", &rpath]);

    // Runs `cmd` (the program, waiting on its standard input), lets
    // `meanwhile` change the world, grabs it with -p and traces `desc`,
    // then lets it make its five calls.
    let traced = |mut cmd: Command, meanwhile: &dyn Fn(), desc: &str| -> String {
        let mut app = cmd
            .stdin(Stdio::piped())
            .spawn()
            .expect("spawn the program");
        // It has mapped its objects once it waits on its input.
        let t = std::time::Instant::now();
        let pid = app.id();
        let ready = || {
            std::fs::read_to_string(format!("/proc/{}/task/{}/wchan", pid, pid))
                .is_ok_and(|w| w.contains("pipe_read") || w.contains("wait"))
                && std::fs::read_to_string(format!("/proc/{}/maps", pid))
                    .is_ok_and(|m| m.contains("libdtt.so"))
        };
        // unshare(1) execs the program: its pid stays the process's.
        while !ready() && t.elapsed() < std::time::Duration::from_secs(20) {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        meanwhile();
        let prog = format!(
            "BEGIN {{ printf(\"ready\\n\"); }} {} {{ @ = count(); }} END {{ printa(\"%@d\\n\", @); }}",
            desc
        );
        let mut d = dtrace()
            .args(["-q", "-p", &pid.to_string(), "-n", &prog])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn dtrace");
        let mut out = BufReader::new(d.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).expect("read dtrace");
        drop(app.stdin.take());
        let st = app.wait().expect("wait for the program");
        let mut rest = String::new();
        out.read_to_string(&mut rest).ok();
        let mut err = String::new();
        d.stderr.take().unwrap().read_to_string(&mut err).ok();
        let _ = d.wait();
        assert_eq!(st.code(), Some(0), "the program: {:?} {}", st, err);
        format!("{}{}{}", line, rest, err)
    };

    // A library replaced on disk (renamed over) after it was mapped.
    let o = traced(
        Command::new(dir.join("prog")),
        &|| {
            std::fs::copy(dir.join("libb.so"), dir.join("lib/new.so")).expect("copy");
            std::fs::rename(dir.join("lib/new.so"), &lib).expect("rename");
        },
        "pid$target:libdtt.so:dtt_libf:entry",
    );
    assert_eq!(o, "ready\n5\n\n", "replaced library");
    libs("liba.so");

    // A deleted executable, position-independent or not (a non-PIE one
    // is mapped at 0x400000, which /proc/PID/maps writes zero-padded and
    // /proc/PID/map_files does not).
    cc(&[
        "-O1", "-no-pie", "-o", "prog-np", "main.c", "-Llib", "-ldtt", &rpath,
    ]);
    for prog in ["prog", "prog-np"] {
        std::fs::copy(dir.join(prog), dir.join("gone")).expect("copy prog");
        let o = traced(
            Command::new(dir.join("gone")),
            &|| std::fs::remove_file(dir.join("gone")).expect("rm"),
            "pid$target:a.out:dtt_exef:entry",
        );
        assert_eq!(o, "ready\n5\n\n", "deleted executable {}", prog);
    }

    // Another mount namespace, where the library's path is another file.
    let mut inside = Command::new("unshare");
    inside.args(["-m", "sh", "-c"]).arg(format!(
        "mount --bind {} {} && exec {}",
        dir.join("libb.so").display(),
        lib.display(),
        dir.join("prog").display()
    ));
    let o = traced(inside, &|| {}, "pid$target:libdtt.so:dtt_libf:entry");
    assert_eq!(o, "ready\n5\n\n", "mount namespace");

    let _ = std::fs::remove_dir_all(&dir);
    assert_released(before, "pid probes of replaced and hidden files");
}

/// A USDT probe whose semaphore the kernel cannot count (in a read-only
/// segment) is left out, saying so, and the others are traced; alone, it
/// is the same notice, not a failure blaming the kernel's version.
fn usdt_semaphores_the_kernel_cannot_count() {
    let _g = serial();
    let before = ours();
    let exe = build_fixture("semaphores");
    let notice = ":main:text left out: its semaphore is in a read-only segment, \
                  where the kernel cannot count\n";
    for (desc, want) in [
        ("semtest$target:::", "good 3\n\n"),
        ("semtest$target:::text", "\n"),
    ] {
        let prog = format!(
            "{} {{ @[probename] = count(); }} END {{ printa(\"%s %@d\\n\", @); }}",
            desc
        );
        let o = run(&["-q", "-n", &prog, "-c", exe.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}: {}", desc, text(&o.stderr));
        assert_eq!(text(&o.stdout), want, "{}", desc);
        let err = text(&o.stderr);
        assert!(
            err.starts_with("dtrace: semtest") && err.ends_with(notice) && err.lines().count() == 1,
            "{}: {}",
            desc,
            err
        );
    }
    let _ = std::fs::remove_file(&exe);
    assert_released(before, "USDT semaphores");
}

/// An executable whose `.text` section header is wrong (its offset moved
/// by 0x40; the kernel maps the file by its program headers and runs it
/// as ever): its functions are placed as the kernel maps them, so every
/// instruction's probe fires where it should, not 0x40 bytes off.
fn pid_probes_follow_the_program_headers() {
    let _g = serial();
    let before = ours();
    let exe = build_fixture("instrs");
    let mut b = std::fs::read(&exe).expect("read instrs");
    let u16_at = |b: &[u8], o: usize| u16::from_le_bytes([b[o], b[o + 1]]) as usize;
    let u64_at = |b: &[u8], o: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[o..o + 8]);
        u64::from_le_bytes(w)
    };
    let (shoff, shentsize) = (u64_at(&b, 0x28) as usize, u16_at(&b, 0x3a));
    let (shnum, shstrndx) = (u16_at(&b, 0x3c), u16_at(&b, 0x3e));
    let strtab = u64_at(&b, shoff + shstrndx * shentsize + 0x18) as usize;
    let mut moved = false;
    for i in 0..shnum {
        let sh = shoff + i * shentsize;
        let name = strtab + u32::from_le_bytes([b[sh], b[sh + 1], b[sh + 2], b[sh + 3]]) as usize;
        if b[name..].starts_with(b".text\0") {
            let off = u64_at(&b, sh + 0x18) + 0x40;
            b[sh + 0x18..sh + 0x20].copy_from_slice(&off.to_le_bytes());
            moved = true;
        }
    }
    assert!(moved, "no .text in the fixture");
    let bad = exe.with_extension("badtext");
    std::fs::write(&bad, &b).expect("write");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&bad, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let o = run(&[
        "-q",
        "-x",
        "aggsortkey",
        "-n",
        "pid$target:a.out:work: { @[probename] = count(); } END { printa(\"%s %@d\\n\", @); }",
        "-c",
        &format!("{} 3", bad.display()),
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "0 3\n1 3\n4 3\n8 3\na 3\nd 3\ne 3\nentry 3\nreturn 3\n\n",
        "stderr: {}",
        text(&o.stderr)
    );
    let _ = std::fs::remove_file(&bad);
    let _ = std::fs::remove_file(&exe);
    assert_released(before, "pid probes of a damaged executable");
}

/// Offset probes sit on instruction boundaries only: an offset inside an
/// instruction is DTrace's D_PROC_ALIGN, and the process it was asked of
/// goes on untouched; an instruction the kernel's uprobes refuse is left
/// out by name, the rest fire; and enabling every instruction of the
/// fixture's functions, run after run, never harms the target.
fn pid_offset_probes_are_on_instructions() {
    let _g = serial();
    let before = ours();
    let exe = build_fixture("instrs");
    let mut app = Command::new(&exe)
        .args(["wait", "5"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("spawn instrs");
    let pid = app.id().to_string();
    let o = run(&["-p", &pid, "-n", "pid$target:a.out:work:2 { @ = count(); }"]);
    assert_failed(
        &o,
        1,
        "dtrace: invalid probe specifier pid$target:a.out:work:2 { @ = count(); }: \
         offset 0x2 is not aligned on an instruction\n",
    );
    drop(app.stdin.take());
    let st = app.wait().expect("wait instrs");
    assert_eq!(
        st.code(),
        Some(0),
        "the target did not end normally: {:?}",
        st
    );

    // `cs nopw` at stepless+4 is refused by the kernel: named, left out.
    let o = run(&[
        "-q",
        "-x",
        "aggsortkey",
        "-n",
        "pid$target:a.out:stepless: { @[probename] = count(); } END { printa(\"%s %@d\\n\", @); }",
        "-c",
        &format!("{} 3", exe.display()),
    ]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "0 3\n1 3\ne 3\nentry 3\nf 3\nreturn 3\n\n");
    let err = text(&o.stderr);
    assert!(
        err.starts_with("dtrace: pid")
            && err.ends_with(
                ":a.out:stepless:4 left out: the kernel cannot put a uprobe on its instruction\n"
            )
            && err.lines().count() == 1,
        "stderr: {}",
        err
    );

    // Every instruction of every function of the executable, run after
    // run: the target always ends normally, with every call counted.
    for _ in 0..25 {
        let o = run(&[
            "-q",
            "-n",
            "pid$target:a.out:work: { @ = count(); } END { printa(\"%@d\\n\", @); }",
            "-n",
            "pid$target:a.out:: { }",
            "-c",
            &format!("{} 20", exe.display()),
        ]);
        assert_eq!(o.status.code(), Some(0), "stderr: {}", text(&o.stderr));
        // 20 calls, each firing entry, return and seven instructions.
        assert_eq!(text(&o.stdout), "180\n\n", "stderr: {}", text(&o.stderr));
        assert!(
            !text(&o.stderr).contains("terminated"),
            "{}",
            text(&o.stderr)
        );
    }
    let _ = std::fs::remove_file(&exe);
    assert_released(before, "pid offset probes");
}

/// Every destructive action is refused without -w (nothing is loaded) and
/// accepted with it, as tracing starts.
fn destructive_actions_need_w() {
    let _g = serial();
    for act in [
        "system(\"true\")",
        "raise(0)",
        "stop()",
        "chill(1)",
        "freopen(\"\")",
        "ftruncate()",
        "copyoutstr(\"x\", 0, 1)",
        "copyout((void *)curthread, 0, 1)",
    ] {
        // In a clause that never fires, so that -w runs nothing.
        let prog = format!(
            "BEGIN {{ exit(0); }} syscall::getpid:entry /pid == 0/ {{ {}; }}",
            act
        );
        let o = run(&["-qn", &prog]);
        assert_failed(
            &o,
            1,
            "dtrace: could not enable tracing: Destructive actions not allowed\n",
        );
        let o = run(&["-wqn", &prog]);
        let err = text(&o.stderr);
        if act.starts_with("copyout") && err.contains("cannot run on this system") {
            continue;
        }
        assert_eq!(o.status.code(), Some(0), "{}: {}", act, err);
    }
}

/// A script whose first line is `#!dtrace -Cqs` runs as a command: the
/// kernel passes the options as one argument, then the script, then the
/// command's arguments ($1, $$2).
fn interpreter_files_with_options() {
    use std::os::unix::fs::PermissionsExt;
    let _g = serial();
    let path = std::env::temp_dir().join(format!("dtrace-interp-{}.d", std::process::id()));
    let script = format!(
        "#!{} -Cqs\n#define TWICE(x) ((x) * 2)\nBEGIN\n{{\n\tprintf(\"%d %s\\n\", TWICE($1), $$2);\n\texit(0);\n}}\n",
        env!("CARGO_BIN_EXE_dtrace")
    );
    std::fs::write(&path, script).expect("write script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let o = Command::new(&path)
        .args(["21", "word"])
        .stdin(Stdio::null())
        .output()
        .expect("run script");
    let _ = std::fs::remove_file(&path);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "42 word\n\n");
}

/// -S shows each program made for the enabled probes, on standard error,
/// with -e (nothing enabled) and without it (then tracing goes on).
fn dash_s_shows_the_bpf_programs() {
    let _g = serial();
    let o = run(&["-S", "-e", "-n", "syscall::getpid:entry { exit(0); }"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        err.starts_with("BPF program ")
            && err.contains("for syscall:vmlinux:getpid:entry:\n")
            && err.contains("   0: ")
            && err.contains("exit"),
        "{}",
        err
    );
    assert!(o.stdout.is_empty());
    let o = run(&["-S", "-qn", "BEGIN { trace(7); exit(0); }"]);
    assert_eq!(text(&o.stdout), "7\n");
    assert!(text(&o.stderr).starts_with("BPF program dt_BEGIN ("));
}

/// copyout() and copyoutstr() rewrite what a process writes, where the
/// kernel lets BPF write user memory; where it does not (a locked-down
/// kernel, as on our test machines), dtrace says so and enables nothing.
fn copyout_writes_or_says_why() {
    let _g = serial();
    for (prog, want) in [
        (
            "syscall::write:entry /pid == $target/ { copyoutstr(\"HELLO\", arg1, 5); }",
            "HELLO, world\n",
        ),
        (
            "syscall::write:entry /pid == $target/ { copyout((void *)curthread->comm, arg1, 4); }",
            "echoo, world\n",
        ),
    ] {
        let before = ours();
        let o = run(&["-wqn", prog, "-c", "/bin/echo hello, world"]);
        let err = text(&o.stderr);
        if err.contains("cannot run on this system") {
            assert_eq!(o.status.code(), Some(1));
            assert!(
                err.starts_with(
                    "dtrace: could not enable tracing: copyout( ) and copyoutstr( ) cannot run \
                     on this system: the kernel withholds BPF writes to user memory"
                ),
                "{}",
                err
            );
            assert_released(before, "a refused copyout");
        } else {
            assert_eq!(o.status.code(), Some(0), "{}", err);
            assert_eq!(text(&o.stdout).trim_end_matches('\n'), want.trim_end());
        }
        // Without -w: refused before anything is loaded.
        let o = run(&["-qn", prog, "-c", "/bin/echo hello, world"]);
        assert_failed(
            &o,
            1,
            "dtrace: could not enable tracing: Destructive actions not allowed\n",
        );
    }
}

/// A file in the temporary directory whose name is `name` (bytes, not
/// necessarily UTF-8) with this process's id, holding `content`.
fn byte_file(name: &[u8], content: &[u8]) -> std::path::PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let mut n = name.to_vec();
    n.extend_from_slice(format!("-{}.d", std::process::id()).as_bytes());
    let path = std::env::temp_dir().join(std::ffi::OsStr::from_bytes(&n));
    std::fs::write(&path, content).expect("write script");
    path
}

/// `[a, b, ...]` as one byte string.
fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

fn strings_are_bytes_end_to_end() {
    let _g = serial();
    // Latin-1 text written raw in string literals, escapes that make bytes
    // above 0x7f, through printf literals, %s, trace(), strlen() and
    // aggregation keys.
    let script = byte_file(
        b"dtrace-bytes-str",
        b"#pragma D option quiet\n\
          BEGIN {\n\
          \tprintf(\"caf\xe9 %s|%d|%d|%s\\n\", \"na\xefve\", strlen(\"\\xff\"), strlen(\"\xe9t\xe9\"), \"\\351\\x80\");\n\
          \ttrace(\"\xe9t\xe9\");\n\
          \tprintf(\"|%5s|%-4s|%.1s|\\n\", \"\xe9\", \"\xe9\", \"\xe9\xe8\");\n\
          \t@a[\"cl\xe9\"] = count();\n\
          \tprinta(\"%s %@d\\n\", @a);\n\
          \texit(0);\n\
          }\n",
    );
    let o = dtrace().arg("-s").arg(&script).output().expect("run");
    let _ = std::fs::remove_file(&script);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stderr), "");
    let want = cat(&[
        b"caf\xe9 na\xefve|1|3|\xe9\x80\n",
        b"\xe9t\xe9",
        b"|    \xe9|\xe9   |\xe9|\n",
        b"cl\xe9 1\n",
        b"\n",
    ]);
    assert_eq!(o.stdout, want, "got {:?}", text(&o.stdout));
}

fn command_line_programs_are_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let _g = serial();
    let arg = |b: &[u8]| std::ffi::OsStr::from_bytes(b).to_os_string();
    let o = dtrace()
        .arg("-qn")
        .arg(arg(
            b"BEGIN { printf(\"caf\xe9 %s|%d\\n\", \"\xff\xfe\", strlen(\"\xe9\")); exit(0); }",
        ))
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(o.stdout, b"caf\xe9 \xff\xfe|1\n\n");

    // Messages quote the text given, byte for byte.
    let prog = b"BEGIN { trace(\"\xe9\") + }";
    let o = dtrace().arg("-n").arg(arg(prog)).output().expect("run");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        o.stderr,
        cat(&[
            b"dtrace: invalid probe specifier ",
            prog,
            b": syntax error near \"}\"\n"
        ])
    );
    let prog = b"99999 { \xe9 }";
    let o = dtrace().arg("-i").arg(arg(prog)).output().expect("run");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        o.stderr,
        cat(&[
            b"dtrace: invalid probe specifier ",
            prog,
            b": probe ID 99999 does not exist\n"
        ])
    );
    let o = dtrace()
        .arg("-qi")
        .arg(arg(b"1 { printf(\"\xe9\\n\"); exit(0); }"))
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(o.stdout, b"\xe9\n\n");
}

fn script_names_and_arguments_are_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let _g = serial();
    let script = byte_file(
        b"dtrace-bytes-\xe9\xff",
        b"BEGIN { printf(\"%s|%s|%s|%s|%d\\n\", $$0, $$1, $2, $$3, strlen($$1)); exit(0); }\n",
    );
    let name = script.as_os_str().as_bytes();
    let args: [&std::ffi::OsStr; 3] = [
        std::ffi::OsStr::from_bytes(b"a\xffb"),
        std::ffi::OsStr::from_bytes(b"\"q\xe9\""),
        std::ffi::OsStr::from_bytes("\u{e9}t\u{e9}".as_bytes()),
    ];
    let o = dtrace()
        .arg("-s")
        .arg(&script)
        .args(args)
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(
        o.stderr,
        cat(&[b"dtrace: script '", name, b"' matched 1 probe\n"])
    );
    let line = o
        .stdout
        .split(|&c| c == b'\n')
        .find(|l| l.ends_with(b"|3"))
        .map(<[u8]>::to_vec)
        .unwrap_or_default();
    let record = cat(&[
        b":BEGIN ",
        name,
        b"|a\xffb|q\xe9|",
        "\u{e9}t\u{e9}".as_bytes(),
        b"|3",
    ]);
    assert!(line.ends_with(&record), "got {:?}", text(&o.stdout));

    // Messages that name a file print its bytes.
    let out = cat(&[name, b"/no-such-dir/out"]);
    let o = dtrace()
        .arg("-o")
        .arg(std::ffi::OsStr::from_bytes(&out))
        .args(["-n", "BEGIN { exit(0); }"])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        o.stderr.ends_with(&cat(&[
            b"dtrace: failed to open output file '",
            &out,
            b"': Not a directory\n"
        ])),
        "{}",
        text(&o.stderr)
    );
    std::fs::write(&script, b"BEGIN { trace(\"\xe9\") + }\n").expect("write");
    let o = dtrace().arg("-s").arg(&script).output().expect("run");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        o.stderr,
        cat(&[
            b"dtrace: failed to compile script ",
            name,
            b": line 1: syntax error near \"}\"\n"
        ])
    );
    let _ = std::fs::remove_file(&script);
    let o = dtrace().arg("-s").arg(&script).output().expect("run");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        o.stderr,
        cat(&[
            b"dtrace: failed to open ",
            name,
            b": No such file or directory\n"
        ])
    );
}

fn copyinstr_and_commands_keep_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let _g = serial();
    // The command's argument (a file name that is not UTF-8) goes to
    // cat unchanged, is read back from cat's memory by copyinstr(), is
    // compared with a script argument in the kernel, and printed as is.
    let missing = cat(&[
        std::env::temp_dir().as_os_str().as_bytes(),
        b"/dtrace-no-such-\xe9-",
        std::process::id().to_string().as_bytes(),
        b"\xff",
    ]);
    let script = byte_file(
        b"dtrace-bytes-copyinstr",
        b"#pragma D option quiet\n\
          syscall::openat:entry /pid == $target && copyinstr(arg1) == $$1/ {\n\
          \tprintf(\"[%s]\\n\", copyinstr(arg1));\n\
          \t@[copyinstr(arg1)] = count();\n\
          }\n",
    );
    let o = dtrace()
        .arg("-s")
        .arg(&script)
        .arg(std::ffi::OsStr::from_bytes(&missing))
        .arg("-c")
        .arg(std::ffi::OsStr::from_bytes(&cat(&[b"cat ", &missing])))
        .output()
        .expect("run");
    let _ = std::fs::remove_file(&script);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // The key is padded to 50 bytes (not characters), as %-50s would.
    let mut want = cat(&[b"[", &missing, b"]\n\n  ", &missing]);
    want.extend(std::iter::repeat_n(b' ', 50 - missing.len().min(50)));
    want.extend_from_slice(format!(" {:>16}\n", 1).as_bytes());
    assert_eq!(o.stdout, want, "got {:?}", text(&o.stdout));
}

fn no_script_bytes_panic() {
    let _g = serial();
    let cases: &[&[u8]] = &[
        b"BEGIN { \xe9 }",
        b"\xff\xfe",
        b"BEGIN\xe9 { }",
        "BEGIN { é }".as_bytes(),
        "é:::BEGIN { }".as_bytes(),
        b"BEGIN { printf(\"%\xe9\"); }",
        "BEGIN { printf(\"%é\"); }".as_bytes(),
        b"#pragma D option \xe9\nBEGIN { }",
        b"#pragma D option quiet=\xe9\nBEGIN { }",
        b"#\xe9\nBEGIN { }",
        b"BEGIN { trace('\\\xe9'); }",
        "BEGIN { trace(\"\\é\"); }".as_bytes(),
        b"BEGIN { trace(\"\xe9\" + 1); }",
        b"BEGIN { x = \"\xe9\"; x = 1; }",
        b"BEGIN { @\xe9 = count(); }",
        b"BEGIN { $\xe9 }",
        b"BEGIN { 0x\xe9 }",
        b"BEGIN { 1\xe9 }",
        b"BEGIN { trace(\xe9\xe9\xe9); }",
        b"#!\xff\xfe\nBEGIN { exit(0); }",
        b"/* \xe9 */ BEGIN { exit(0); } // \xff",
    ];
    for c in cases {
        let script = byte_file(b"dtrace-bytes-panic", c);
        let o = dtrace()
            .arg("-e")
            .arg("-s")
            .arg(&script)
            .output()
            .expect("run");
        let _ = std::fs::remove_file(&script);
        let err = text(&o.stderr);
        assert!(
            !err.contains("panicked"),
            "panic for {:?}: {}",
            text(c),
            err
        );
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{:?}: {:?} {}",
            text(c),
            o.status,
            err
        );
    }
}
