//! The end-to-end suite: every program under `test/unittest/` is run
//! through the real `dtrace` binary against the running kernel, in the
//! style of DTrace's own test suite.  Each program is one trial, named by
//! its path under `test/unittest` (`aggs/tst.count-tuple.d`), so the
//! usual test flags work:
//! `cargo test --release -p dtrace --test unittest -- aggs/tst.count`
//! runs those whose name contains the filter, `--exact` one, `--list`
//! lists them.  Trials run one at a time unless `--test-threads` says
//! otherwise: they pin dtrace to one CPU and count its events.
//!
//! * `tst.NAME.d` must exit with status 0 (or the one named by
//!   `@@status`) and print exactly `tst.NAME.r`.  A `.r` file holds the
//!   expected standard output; an optional `-- @@stderr --` line starts
//!   the expected standard error.  A `tst` without a `.r` must say why
//!   with `@@nooutput`, or it fails.
//! * A `tst.NAME.r.p` beside the `.r` (DTrace's post-processor) is run
//!   with `sh`, the test's standard output on its standard input, and
//!   what it prints is compared with the `.r` instead: for output that
//!   depends on the kernel build (stack frames and their offsets), which
//!   the script checks and reduces to what does not.
//! * `err.D_TAG.NAME.d` must fail to compile: it is run with
//!   `-xerrtags`, must exit with status 1 and its standard error must
//!   contain `[D_TAG]`.  An `err.NAME.d` without a tag must exit with a
//!   non-zero status.  When `err.*.r` exists, the whole standard error
//!   must equal it (DTrace's convention for error tests).
//!
//! Comments in a test program tune how it runs:
//! `/* @@runtest-opts: -x foo */` adds dtrace options before `-s`,
//! `/* @@args: a b */` adds script arguments after it,
//! `/* @@trigger: cmd args */` runs `cmd` as the `-c` target (the
//! test's own events; `fixture NAME args` a program of `test/fixtures`,
//! an argument `@fixture:libNAME` the path of a library built from
//! there), `/* @@status: N */` names the exit status and
//! `/* @@timeout: N */` the seconds allowed (default 120: a hang
//! detector, not a timing; a loaded machine stretches every test).
//!
//! Marks say how a trial is judged:
//! `/* @@xfail: reason */` expects the check to fail (the trial passes
//! when it does, and fails with "unexpectedly passed" when it does not),
//! `/* @@skip: reason */` does not run it (reported as ignored, with the
//! reason), `/* @@nooutput: reason */` says why a `tst` has no `.r`,
//! `/* @@needs: feature ... */` names the kernel features the program
//! needs (by the names of `dtrace_sys::features::Features::rows`; `!name`
//! for one the kernel must lack; `a|b` for either; `module:NAME` for a module loaded with
//! its BTF; `disk:PATH` for a path whose file system is on a block
//! device): on a kernel that does not fit the trial
//! must fail, and is then reported as
//! ignored with "expected to fail on this kernel: needs ..." (the kernel
//! matrix counts those apart, see docs/KERNELS.md).
//! `/* @@needs-or-skip: feature ... */` is for a program that, without
//! the feature, would only take longer than any test may (every kernel
//! function on a tracing program each): there it is not run, and is
//! reported as ignored with "not run on this kernel: needs ...".
//! Without root every trial is ignored with the reason "needs root".
//! The `harness/...` trials check this judging itself.
//!
//! A trigger whose command is one of this harness's own (see
//! [`trigger`]) runs this test executable again in trigger mode, so the
//! events a test waits for are made by a process the test controls:
//! `getpid N` makes N getpid calls, `open PATH` opens a path, `exit N`
//! exits with status N, `tcp PORT` makes a loopback connection to a
//! listener on PORT, `refused PORT` tries to connect to PORT where
//! nothing listens, `udp PORT` sends one 5-byte datagram to a loopback
//! receiver on PORT from a connected socket (`udp6 PORT`: over IPv6),
//! `udpsend PORT HEX...` sends a datagram of each HEX's bytes the same
//! way, one after another, `yield N` calls sched_yield N times,
//! `threads N` starts and joins N threads, `fsync
//! PATH` writes 64 KiB to a new file, syncs
//! it and removes it, `spawn CMD ARGS` runs a child command and waits
//! for it, `signal` has a child `kill` send SIGUSR1 to a child `sleep`,
//! `fault` makes a page fault, a protection fault and a fault in the
//! kernel on fresh memory, `comm HEX` sets the process's name (its
//! `task_struct` `comm`, up to 15 bytes given in hex: bytes a test reads
//! back as floats or structs) and then makes one getppid call.
//! `fixture NAME ARGS` runs the C program `test/fixtures/NAME.c` (or
//! the C++ program `NAME.cc`; with the header `dtrace -h` makes of the
//! provider definition `NAME.d`, if there is one),
//! compiled with the system's `cc` on first use, for events only C makes
//! easily (`contend mutex`: kernel lock contention for lockstat).
//! `example NAME ARGS` runs a workspace example (`rustprobes`, the
//! `dtrace-usdt` crate's Rust program with static probes), which `cargo
//! test --workspace` builds.
//!
//! dtrace is pinned to CPU 0 so that the CPU column, BEGIN, END and
//! every spawned trigger land on one known CPU.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use libtest_mimic::{Arguments, Completion, Failed, Trial};

/// The dtrace binary under test: the one cargo built beside this
/// suite, or `DTRACE_TEST_BIN` (the kernel matrix runs a copy, so that
/// the tree can be rebuilt while guests run).
fn dtrace_bin() -> PathBuf {
    std::env::var_os("DTRACE_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_dtrace")))
}

fn root() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test/unittest");
    std::fs::canonicalize(&p).unwrap_or(p)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "d") {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            if name.starts_with("tst.") || name.starts_with("err.") {
                out.push(p);
            }
        }
    }
}

/// Values of `@@key:` markers in the program text.
fn markers(text: &str, key: &str) -> Vec<String> {
    let pat = format!("@@{}:", key);
    let mut v = Vec::new();
    for line in text.lines() {
        if let Some(i) = line.find(&pat) {
            let rest = &line[i + pat.len()..];
            let rest = rest.split("*/").next().unwrap_or("");
            v.push(rest.trim().to_string());
        }
    }
    v
}

/// True when this process may trace: root with the capabilities dtrace
/// needs.
fn privileged() -> bool {
    dtrace_sys::geteuid() == 0 && dtrace_sys::has_trace_privilege()
}

struct Outcome {
    status: Option<i32>,
    stdout: String,
    stderr: String,
    timed_out: bool,
}

fn run(bin: &str, args: &[String], cwd: &Path, timeout: Duration) -> Result<Outcome, String> {
    let mut cmd = Command::new("taskset");
    cmd.arg("-c").arg("0").arg(bin).args(args).current_dir(cwd);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run taskset: {}", e))?;
    let mut so = child.stdout.take().ok_or("no stdout pipe")?;
    let mut se = child.stderr.take().ok_or("no stderr pipe")?;
    let t1 = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = so.read_to_end(&mut s);
        s
    });
    let t2 = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = se.read_to_end(&mut s);
        s
    });
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st.code(),
            Ok(None) => {}
            Err(_) => break None,
        }
        if start.elapsed() > timeout {
            timed_out = true;
            let _ = Command::new("kill")
                .arg("-TERM")
                .arg(child.id().to_string())
                .status();
            std::thread::sleep(Duration::from_secs(2));
            let _ = child.kill();
            break child.wait().ok().and_then(|s| s.code());
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Ok(Outcome {
        status,
        stdout: String::from_utf8_lossy(&t1.join().unwrap_or_default()).into_owned(),
        stderr: String::from_utf8_lossy(&t2.join().unwrap_or_default()).into_owned(),
        timed_out,
    })
}

/// A unified diff of `want` and `got`, or `None` when they are equal.
fn diff(what: &str, want: &str, got: &str) -> Option<String> {
    if want == got {
        return None;
    }
    let d = similar::TextDiff::from_lines(want, got);
    let mut u = d.unified_diff();
    u.context_radius(3)
        .header(&format!("expected {}", what), &format!("actual {}", what));
    let mut s = u.to_string();
    if !s.ends_with('\n') {
        s.push('\n');
    }
    Some(s)
}

/// A command line as a shell would take it back.
fn shell_line(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            if !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,@+%".contains(&b))
            {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// What a test program asks for, read from its name and text.
struct Spec {
    path: PathBuf,
    text: String,
    is_err: bool,
    tag: Option<String>,
    expected: Option<String>,
}

impl Spec {
    fn read(path: &Path) -> Result<Spec, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {}", path.display(), e))?;
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let is_err = name.starts_with("err.");
        let tag = if is_err {
            name.split('.')
                .nth(1)
                .filter(|t| t.starts_with("D_"))
                .map(str::to_string)
        } else {
            None
        };
        let expected = std::fs::read_to_string(path.with_extension("r")).ok();
        Ok(Spec {
            path: path.to_path_buf(),
            text,
            is_err,
            tag,
            expected,
        })
    }

    fn mark(&self, key: &str) -> Option<String> {
        markers(&self.text, key).into_iter().next()
    }

    /// Problems with the test itself, found without running it.
    fn lint(&self) -> Result<(), String> {
        if !self.is_err && self.expected.is_none() && self.mark("nooutput").is_none() {
            return Err(
                "no .r file: add one, or say why with /* @@nooutput: reason */".to_string(),
            );
        }
        self.missing_features().map(|_| ())
    }

    /// The kernel features the program is marked `@@needs` that the
    /// running kernel lacks, each with what brings it.
    fn missing_features(&self) -> Result<Vec<String>, String> {
        self.missing_of("needs")
    }

    /// The kernel features named by the program's `@@KEY` marks that the
    /// running kernel lacks (or has, for `!name`).
    fn missing_of(&self, key: &str) -> Result<Vec<String>, String> {
        let f = dtrace_sys::features::Features::get();
        let mut missing = Vec::new();
        for name in markers(&self.text, key)
            .iter()
            .flat_map(|m| m.split_whitespace())
        {
            // `!name`: the program is for kernels without the feature.
            let (without, name) = match name.strip_prefix('!') {
                Some(n) => (true, n),
                None => (false, name),
            };
            // `disk:PATH`: PATH's file system is on a block device (not
            // an overlay, 9p or tmpfs, as a guest of the kernel matrix
            // has: their devices' major number is 0).
            if let Some(path) = name.strip_prefix("disk:") {
                use std::os::unix::fs::MetadataExt;
                let major = |dev: u64| ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
                let has = std::fs::metadata(path).is_ok_and(|m| major(m.dev()) != 0);
                if has == without {
                    missing.push(format!("{} on a disk", path));
                }
                continue;
            }
            // `module:NAME`: a loaded module, with BTF of its own.
            if let Some(m) = name.strip_prefix("module:") {
                let has = Path::new("/sys/kernel/btf").join(m).exists();
                if has == without {
                    missing.push(format!("the module {} loaded, with its BTF", m));
                }
                continue;
            }
            // `a|b`: either feature will do (the lock tracepoints, or
            // fentry and fexit on the locks' slow paths).
            let mut rows = Vec::new();
            for alt in name.split('|') {
                rows.push(f.rows().into_iter().find(|r| r.0 == alt).ok_or_else(|| {
                    format!(
                        "@@needs names {:?}, which is no kernel feature ({})",
                        alt,
                        f.rows().map(|r| r.0).join(", ")
                    )
                })?);
            }
            let has = rows.iter().any(|r| r.1);
            if has == without {
                let what: Vec<&str> = rows.iter().map(|r| r.2).collect();
                missing.push(if without {
                    format!("a kernel without {}", what.join(" or "))
                } else {
                    what.join(" or ")
                });
            }
        }
        Ok(missing)
    }
}

fn check(bin: &str, spec: &Spec) -> Result<(), String> {
    let name = spec
        .path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let dir = spec.path.parent().unwrap_or(Path::new("."));
    let text = &spec.text;

    let mut args: Vec<String> = Vec::new();
    for o in markers(text, "runtest-opts") {
        args.extend(o.split_whitespace().map(str::to_string));
    }
    if spec.tag.is_some() {
        args.push("-xerrtags".into());
    }
    for t in markers(text, "trigger") {
        args.push("-c".into());
        let first = t.split_whitespace().next().unwrap_or("");
        if first == "fixture" {
            let mut w = t.split_whitespace().skip(1);
            let name = w.next().ok_or("fixture: which one?")?;
            let exe = fixture(name)?;
            // `@fixture:NAME` is another fixture's path (a library the
            // command loads).
            let rest = w
                .map(|a| match a.strip_prefix("@fixture:") {
                    Some(n) => fixture(n).map(|p| p.display().to_string()),
                    None => Ok(a.to_string()),
                })
                .collect::<Result<Vec<String>, String>>()?;
            args.push(format!("{} {}", exe.display(), rest.join(" ")));
        } else if first == "example" {
            let mut w = t.split_whitespace().skip(1);
            let name = w.next().ok_or("example: which one?")?;
            let exe = example(name)?;
            let rest: Vec<&str> = w.collect();
            args.push(format!("{} {}", exe.display(), rest.join(" ")));
        } else if TRIGGERS.contains(&first) {
            let me = std::env::current_exe().map_err(|e| format!("current_exe: {}", e))?;
            args.push(format!("{} {} {}", me.display(), TRIGGER_ARG, t));
        } else {
            args.push(t);
        }
    }
    args.push("-s".into());
    args.push(name);
    for a in markers(text, "args") {
        args.extend(a.split_whitespace().map(str::to_string));
    }
    let timeout = spec
        .mark("timeout")
        .and_then(|s| s.parse().ok())
        .unwrap_or(120);
    let want_status: Option<i32> = spec.mark("status").and_then(|s| s.parse().ok());

    let mut out = run(bin, &args, dir, Duration::from_secs(timeout))?;
    let post = spec.path.with_extension("r.p");
    if post.exists() {
        out.stdout = post_process(&post, &out.stdout)?;
    }

    let mut problems: Vec<String> = Vec::new();
    if out.timed_out {
        problems.push(format!("timed out after {}s", timeout));
    }
    let status_ok = match (want_status, &spec.tag, spec.is_err) {
        (Some(w), _, _) => out.status == Some(w),
        (None, Some(_), _) => out.status == Some(1),
        (None, None, true) => out.status.is_some_and(|s| s != 0),
        (None, None, false) => out.status == Some(0),
    };
    if !status_ok {
        let want = match (want_status, &spec.tag, spec.is_err) {
            (Some(w), _, _) => w.to_string(),
            (None, Some(_), _) => "1".into(),
            (None, None, true) => "non-zero".into(),
            (None, None, false) => "0".into(),
        };
        problems.push(format!("exit status {:?}, want {}", out.status, want));
    }
    if let Some(t) = &spec.tag {
        if !out.stderr.contains(&format!("[{}]", t)) {
            problems.push(format!("stderr lacks [{}]", t));
        }
    }
    if out.stderr.contains("panicked") {
        problems.push("dtrace panicked".into());
    }
    let mut diffs = String::new();
    let mut stdout_compared = false;
    let mut stderr_compared = false;
    if let Some(expect) = &spec.expected {
        let (want_out, want_err) = match expect.split_once("-- @@stderr --\n") {
            Some((o, e)) => (Some(o), Some(e)),
            // An error test's .r is its whole standard error.
            None if spec.is_err => (None, Some(expect.as_str())),
            None => (Some(expect.as_str()), None),
        };
        if let Some(w) = want_out {
            stdout_compared = true;
            if let Some(d) = diff("stdout", w, &out.stdout) {
                problems.push("stdout differs".into());
                diffs.push_str(&d);
            }
        }
        if let Some(w) = want_err {
            stderr_compared = true;
            if let Some(d) = diff("stderr", w, &out.stderr) {
                problems.push("stderr differs".into());
                diffs.push_str(&d);
            }
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    let mut cmdline = vec![
        "taskset".to_string(),
        "-c".to_string(),
        "0".to_string(),
        bin.to_string(),
    ];
    cmdline.extend(args);
    let mut msg = format!(
        "{}\ncommand: (cd {} && {})\nexit status: {}\n",
        problems.join("; "),
        dir.display(),
        shell_line(&cmdline),
        out.status
            .map_or_else(|| "killed by a signal".to_string(), |s| s.to_string())
    );
    msg.push_str(&diffs);
    // Whatever was not shown as a diff is shown whole.
    if !stdout_compared {
        msg.push_str(&format!("--- stdout ---\n{}", out.stdout));
    }
    if !stderr_compared {
        msg.push_str(&format!("--- stderr ---\n{}", out.stderr));
    }
    Err(msg)
}

/// Runs a `.r.p` script over the test's standard output.
fn post_process(script: &Path, stdout: &str) -> Result<String, String> {
    use std::io::Write;
    let mut child = Command::new("sh")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot run {}: {}", script.display(), e))?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or("no stdin for the post-processor")?;
    let input = stdout.as_bytes().to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child
        .wait_with_output()
        .map_err(|e| format!("{}: {}", script.display(), e))?;
    let _ = feeder.join();
    if !out.status.success() {
        return Err(format!(
            "{} failed ({}) on:\n{}",
            script.display(),
            out.status,
            stdout
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// One trial: lint, then run unless skipped or unprivileged, then judge
/// with `@@xfail` in mind.
fn trial(bin: &'static str, path: PathBuf, rel: String, root: bool) -> Trial {
    Trial::ignorable_test(rel, move || {
        let spec = Spec::read(&path)?;
        if let Some(why) = spec.mark("skip") {
            return Ok(Completion::ignored_with(format!("skip: {}", why)));
        }
        spec.lint()?;
        if !root {
            return Ok(Completion::ignored_with("needs root"));
        }
        // Where running without the feature would outlast any test.
        let missing = spec.missing_of("needs-or-skip")?;
        if !missing.is_empty() {
            return Ok(Completion::ignored_with(format!(
                "not run on this kernel: needs {}",
                missing.join(", ")
            )));
        }
        let missing = spec.missing_features()?;
        if !missing.is_empty() {
            // Run all the same: what the program does where the kernel
            // cannot is part of what is tested (it must fail, with a
            // message, not hang or pass by accident).
            return match check(bin, &spec) {
                Err(_) => Ok(Completion::ignored_with(format!(
                    "expected to fail on this kernel: needs {}",
                    missing.join(", ")
                ))),
                Ok(()) => Err(Failed::from(format!(
                    "unexpectedly passed: marked @@needs {}, which this kernel lacks",
                    missing.join(", ")
                ))),
            };
        }
        verdict(check(bin, &spec), spec.mark("xfail"))
            .map(|()| Completion::Completed)
            .map_err(Failed::from)
    })
}

/// A check's result as judged with the program's `@@xfail` mark.
fn verdict(checked: Result<(), String>, xfail: Option<String>) -> Result<(), String> {
    match (checked, xfail) {
        (Ok(()), None) | (Err(_), Some(_)) => Ok(()),
        (Err(e), None) => Err(e),
        (Ok(()), Some(why)) => Err(format!("unexpectedly passed (marked @@xfail: {})", why)),
    }
}

/// Checks of the harness's own judging, which need no root.
fn self_tests() -> Vec<Trial> {
    fn spec(name: &str, text: &str, expected: Option<&str>) -> Spec {
        Spec {
            path: PathBuf::from(name),
            text: text.to_string(),
            is_err: name.starts_with("err."),
            tag: None,
            expected: expected.map(str::to_string),
        }
    }
    vec![
        Trial::test("harness/xfail", || {
            let why = || Some("known bug".to_string());
            assert_eq!(verdict(Ok(()), None), Ok(()));
            assert_eq!(verdict(Err("x".into()), None), Err("x".into()));
            assert_eq!(verdict(Err("x".into()), why()), Ok(()));
            let e = verdict(Ok(()), why()).unwrap_err();
            assert!(e.starts_with("unexpectedly passed"), "{}", e);
            Ok(())
        }),
        Trial::test("harness/nooutput", || {
            assert!(spec("tst.a.d", "BEGIN {}", None).lint().is_err());
            assert!(spec("tst.a.d", "BEGIN {}", Some("")).lint().is_ok());
            let marked = "/* @@nooutput: varies */\nBEGIN {}";
            assert!(spec("tst.a.d", marked, None).lint().is_ok());
            assert!(spec("err.a.d", "BEGIN {", None).lint().is_ok());
            Ok(())
        }),
        Trial::test("harness/diff", || {
            assert_eq!(diff("stdout", "a\n", "a\n"), None);
            let d = diff("stdout", "a\nb\n", "a\nc\n").unwrap_or_default();
            assert!(d.contains("-b\n+c\n"), "{}", d);
            Ok(())
        }),
    ]
}

/// `test/fixtures/NAME.c` (or the C++ program `NAME.cc`) compiled
/// (once, beside this executable); a `libNAME` is a shared library,
/// `libNAME.so`. A fixture with a provider definition beside it,
/// `NAME.d`, includes the header `dtrace -h` makes of it as `"NAME.h"`,
/// made with the `dtrace` under test.
fn fixture(name: &str) -> Result<PathBuf, String> {
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(format!("fixture {}: not a fixture name", name));
    }
    let dir_in = root().join("../fixtures");
    let c = dir_in.join(format!("{}.c", name));
    let (src, compiler) = if c.exists() {
        (c, "cc")
    } else {
        (dir_in.join(format!("{}.cc", name)), "c++")
    };
    let provider = dir_in.join(format!("{}.d", name));
    let provider = provider.exists().then_some(provider);
    let me = std::env::current_exe().map_err(|e| format!("current_exe: {}", e))?;
    let dir = me
        .parent()
        .ok_or("current_exe has no directory")?
        .join("fixtures");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {}", dir.display(), e))?;
    let library = name.starts_with("lib");
    let exe = if library {
        dir.join(format!("{}.so", name))
    } else {
        dir.join(name)
    };
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let dtrace = dtrace_bin();
    let inputs = [
        Some(src.clone()),
        provider.clone(),
        provider.as_ref().map(|_| dtrace.clone()),
    ];
    let newest = inputs.iter().flatten().filter_map(|p| modified(p)).max();
    if modified(&exe).is_some() && modified(&exe) >= newest {
        return Ok(exe);
    }
    let run = |cmd: &mut Command, what: &str| -> Result<(), String> {
        let out = cmd
            .output()
            .map_err(|e| format!("{} for {}: {}", what, src.display(), e))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{} {}: {}",
                what,
                src.display(),
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    };
    // Each built under another name and renamed, so a reader never sees
    // half of one.
    let tag = std::process::id();
    let include = dir.join(format!("include.{}.{}", name, tag));
    if let Some(d) = &provider {
        std::fs::create_dir_all(&include).map_err(|e| format!("{}: {}", include.display(), e))?;
        let header = include.join(format!("{}.h", name));
        run(
            Command::new(&dtrace)
                .arg("-h")
                .arg("-s")
                .arg(d)
                .arg("-o")
                .arg(&header),
            "dtrace -h",
        )?;
    }
    let tmp = dir.join(format!("{}.{}", name, tag));
    let shared: &[&str] = if library { &["-shared", "-fPIC"] } else { &[] };
    let built = run(
        Command::new(compiler)
            .args(["-O1", "-pthread", "-Wall"])
            .args(shared)
            .arg("-I")
            .arg(&include)
            .arg("-o")
            .arg(&tmp)
            .arg(&src),
        compiler,
    );
    let _ = std::fs::remove_dir_all(&include);
    built?;
    std::fs::rename(&tmp, &exe).map_err(|e| format!("{}: {}", exe.display(), e))?;
    Ok(exe)
}

/// A workspace example built beside this test (`target/release/examples/
/// NAME`): `cargo test --workspace` builds the examples of every crate
/// before it runs a test (`dtrace-usdt`'s `rustprobes`, a Rust program
/// with static probes).
fn example(name: &str) -> Result<PathBuf, String> {
    let me = std::env::current_exe().map_err(|e| format!("current_exe: {}", e))?;
    let exe = me
        .parent()
        .and_then(Path::parent)
        .ok_or("current_exe has no directory")?
        .join("examples")
        .join(name);
    if exe.is_file() {
        Ok(exe)
    } else {
        Err(format!(
            "example {} is not built ({}): run the tests with cargo test --workspace, which builds it",
            name,
            exe.display()
        ))
    }
}

const TRIGGER_ARG: &str = "--dtrace-test-trigger";
const TRIGGERS: &[&str] = &[
    "getpid", "open", "read", "exit", "comm", "spawn", "signal", "fsync", "threads", "tcp", "udp",
    "refused", "udp6", "udpsend", "yield", "fault",
];

/// The bytes a string of hexadecimal digit pairs gives, if it is one.
fn hex_bytes(hex: &str) -> Option<Vec<u8>> {
    (0..hex.len())
        .step_by(2)
        .map(|i| {
            hex.get(i..i + 2)
                .and_then(|b| u8::from_str_radix(b, 16).ok())
        })
        .collect()
}

/// Trigger mode: make the events a test asked for, then exit.
fn trigger(args: &[String]) -> i32 {
    match (args.first().map(String::as_str), args.get(1)) {
        (Some("getpid"), n) => {
            let n: u64 = n.and_then(|n| n.parse().ok()).unwrap_or(1);
            for _ in 0..n {
                // std::process::id() makes the getpid(2) call each time.
                std::hint::black_box(std::process::id());
            }
            0
        }
        (Some("open"), Some(p)) => {
            let _ = std::fs::File::open(p);
            0
        }
        (Some("read"), Some(p)) => {
            // One read(2) of 4 bytes from the start of the file.
            use std::io::Read;
            let mut buf = [0u8; 4];
            match std::fs::File::open(p) {
                Ok(mut f) => {
                    let _ = f.read(&mut buf);
                    0
                }
                Err(_) => 1,
            }
        }
        (Some("exit"), n) => n.and_then(|n| n.parse().ok()).unwrap_or(0),
        (Some("spawn"), Some(_)) => {
            // A child running a command (fork and exec), waited for.
            match Command::new(&args[1]).args(&args[2..]).status() {
                Ok(s) if s.success() => 0,
                _ => 1,
            }
        }
        (Some("fsync"), Some(p)) => {
            // 64 KiB written to a new file and forced to its disk.
            use std::io::Write;
            let done = std::fs::File::create(p).and_then(|mut f| {
                f.write_all(&[0x5a; 65536])?;
                f.sync_all()
            });
            let _ = std::fs::remove_file(p);
            i32::from(done.is_err())
        }
        (Some("tcp"), Some(port)) => {
            // A loopback connection to a listener on PORT, accepted and
            // closed.
            use std::net::{TcpListener, TcpStream};
            let Ok(port) = port.parse::<u16>() else {
                return 2;
            };
            let Ok(l) = TcpListener::bind(("127.0.0.1", port)) else {
                return 1;
            };
            let c = TcpStream::connect(("127.0.0.1", port));
            let a = l.accept();
            i32::from(c.is_err() || a.is_err())
        }
        (Some("udpsend"), Some(port)) => {
            // A datagram per HEX argument, its bytes those, to a loopback
            // receiver on PORT, each received before the next is sent.
            use std::net::UdpSocket;
            let Ok(port) = port.parse::<u16>() else {
                return 2;
            };
            let (Ok(r), Ok(s)) = (
                UdpSocket::bind(("127.0.0.1", port)),
                UdpSocket::bind(("127.0.0.1", 0)),
            ) else {
                return 1;
            };
            if s.connect(("127.0.0.1", port)).is_err() {
                return 1;
            }
            for hex in &args[2..] {
                let Some(bytes) = hex_bytes(hex) else {
                    return 2;
                };
                let mut buf = [0u8; 64];
                if s.send(&bytes).is_err() || r.recv(&mut buf).is_err() {
                    return 1;
                }
            }
            0
        }
        (Some("yield"), n) => {
            // N sched_yield(2) calls: on a CPU with nothing else to run,
            // the scheduler keeps this thread.
            let n: u64 = n.and_then(|n| n.parse().ok()).unwrap_or(1);
            for _ in 0..n {
                std::thread::yield_now();
            }
            0
        }
        (Some("refused"), Some(port)) => {
            // A loopback connection to PORT, where nothing listens:
            // refused (any other outcome is a failure).
            let Ok(port) = port.parse::<u16>() else {
                return 2;
            };
            match std::net::TcpStream::connect(("127.0.0.1", port)) {
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => 0,
                _ => 1,
            }
        }
        (Some(v @ ("udp" | "udp6")), Some(port)) => {
            // One datagram of 5 bytes from a socket connected to a
            // loopback receiver on PORT (IPv4, or IPv6 for udp6), and
            // its receipt.
            use std::net::UdpSocket;
            let Ok(port) = port.parse::<u16>() else {
                return 2;
            };
            let lo = if v == "udp" { "127.0.0.1" } else { "::1" };
            let (Ok(r), Ok(s)) = (UdpSocket::bind((lo, port)), UdpSocket::bind((lo, 0))) else {
                return 1;
            };
            if s.connect((lo, port)).is_err() {
                return 1;
            }
            let sent = s.send(b"hello");
            let mut buf = [0u8; 16];
            let got = r.recv(&mut buf);
            i32::from(sent.is_err() || got.is_err())
        }
        (Some("fault"), None) => {
            // Fresh anonymous memory (calloc maps it untouched): reading a
            // page maps the shared zero page, so writing it then is a
            // fault on a present page (a protection fault); read(2) into
            // another untouched page faults in the kernel.
            let mut v = vec![0u8; 8 << 20];
            let at = 1 << 20;
            // black_box keeps both accesses, in this order.
            let seen = std::hint::black_box(&v)[at];
            std::hint::black_box(&mut v)[at] = seen.wrapping_add(1);
            std::hint::black_box(&v);
            use std::io::Read;
            let into = 5 << 20;
            match std::fs::File::open("/proc/self/stat") {
                Ok(mut f) => i32::from(f.read(&mut v[into..into + 4096]).is_err()),
                Err(_) => 1,
            }
        }
        (Some("threads"), n) => {
            // N threads started and joined.
            let n: usize = n.and_then(|n| n.parse().ok()).unwrap_or(1);
            let ts: Vec<_> = (0..n).map(|_| std::thread::spawn(|| ())).collect();
            i32::from(ts.into_iter().any(|t| t.join().is_err()))
        }
        (Some("signal"), None) => {
            // A child (sleep) sent SIGUSR1 by another (kill), both
            // children of this process; the child dies of it.
            let Ok(mut child) = Command::new("sleep").arg("30").spawn() else {
                return 1;
            };
            let sent = Command::new("kill")
                .args(["-USR1", &child.id().to_string()])
                .status();
            let _ = child.wait();
            i32::from(!sent.is_ok_and(|s| s.success()))
        }
        (Some("comm"), Some(hex)) => {
            let Some(bytes) = hex_bytes(hex) else {
                return 2;
            };
            // Writing /proc/self/comm renames this (single-threaded)
            // process; the kernel keeps at most 15 bytes.
            if std::fs::write("/proc/self/comm", &bytes).is_err() {
                return 1;
            }
            std::hint::black_box(std::os::unix::process::parent_id());
            0
        }
        _ => 2,
    }
}

fn main() {
    // The tests stop dtrace with SIGINT and SIGTERM: its children must not
    // inherit them ignored (a harness started in the background by a shell
    // without job control has them so).
    dtrace_sys::poll::default_stop_signals();
    let raw: Vec<String> = std::env::args().skip(1).collect();
    if raw.first().map(String::as_str) == Some(TRIGGER_ARG) {
        std::process::exit(trigger(&raw[1..]));
    }
    let mut args = Arguments::from_args();
    if args.test_threads.is_none() {
        args.test_threads = Some(1);
    }
    // Every trial borrows it for the whole run.
    let bin: &'static str = Box::leak(dtrace_bin().to_string_lossy().into_owned().into_boxed_str());
    let base = root();
    let mut paths = Vec::new();
    collect(&base, &mut paths);
    let privileged = privileged();
    // DTRACE_TEST_LIST names a file of trial names, one a line (`#`
    // comments): only those run (the kernel matrix's smoke set).
    let list = std::env::var_os("DTRACE_TEST_LIST").map(|f| {
        let text = std::fs::read_to_string(&f).unwrap_or_else(|e| {
            eprintln!("cannot read DTRACE_TEST_LIST {:?}: {}", f, e);
            std::process::exit(2)
        });
        text.lines()
            .map(|l| l.split('#').next().unwrap_or("").trim().to_string())
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
    });
    let mut trials: Vec<Trial> = Vec::new();
    for p in paths {
        let rel = p
            .strip_prefix(&base)
            .unwrap_or(&p)
            .to_string_lossy()
            .into_owned();
        if list.as_ref().is_none_or(|l| l.contains(&rel)) {
            trials.push(trial(bin, p, rel, privileged));
        }
    }
    if let Some(l) = &list {
        for name in l {
            if !trials.iter().any(|t| t.name() == name) {
                let name = name.clone();
                trials.push(Trial::test(format!("list/{}", name), move || {
                    Err(format!("DTRACE_TEST_LIST names {}, which is no test", name).into())
                }));
            }
        }
    }
    if trials.is_empty() {
        trials.push(Trial::test("no-tests-found", move || {
            Err(format!("no tests found under {}", root().display()).into())
        }));
    }
    trials.extend(self_tests());
    libtest_mimic::run(&args, trials).exit();
}
