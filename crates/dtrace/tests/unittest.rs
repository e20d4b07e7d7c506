//! The end-to-end suite: every program under `test/unittest/` is run
//! through the real `dtrace` binary against the running kernel, in the
//! style of DTrace's own test suite.
//!
//! * `tst.NAME.d` must exit with status 0 (or the one named by
//!   `@@status`) and, when `tst.NAME.r` exists, print exactly its
//!   contents.  A `.r` file holds the expected standard output; an
//!   optional `-- @@stderr --` line starts the expected standard error.
//! * `err.D_TAG.NAME.d` must fail to compile: it is run with
//!   `-xerrtags`, must exit with status 1 and its standard error must
//!   contain `[D_TAG]`.  An `err.NAME.d` without a tag must exit with a
//!   non-zero status; an `.r` beside it is compared like a `tst`.
//!
//! Comments in a test program tune how it runs:
//! `/* @@runtest-opts: -x foo */` adds dtrace options before `-s`,
//! `/* @@args: a b */` adds script arguments after it,
//! `/* @@trigger: cmd args */` runs `cmd` as the `-c` target (the
//! test's own events), `/* @@status: N */` names the exit status and
//! `/* @@timeout: N */` the seconds allowed (default 30).
//!
//! A trigger whose command is one of this harness's own (see
//! [`trigger`]) runs this test executable again in trigger mode, so the
//! events a test waits for are made by a process the test controls:
//! `getpid N` makes N getpid calls, `open PATH` opens a path, `exit N`
//! exits with status N.
//!
//! dtrace is pinned to CPU 0 so that the CPU column, BEGIN, END and
//! every spawned trigger land on one known CPU.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test/unittest")
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
            let name = p.file_name().unwrap().to_string_lossy().to_string();
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

struct Outcome {
    status: Option<i32>,
    stdout: String,
    stderr: String,
    timed_out: bool,
}

fn run(bin: &str, args: &[String], cwd: &Path, timeout: Duration) -> Outcome {
    let mut cmd = Command::new("taskset");
    cmd.arg("-c").arg("0").arg(bin).args(args).current_dir(cwd);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn taskset/dtrace");
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
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
    Outcome {
        status,
        stdout: String::from_utf8_lossy(&t1.join().unwrap_or_default()).into_owned(),
        stderr: String::from_utf8_lossy(&t2.join().unwrap_or_default()).into_owned(),
        timed_out,
    }
}

fn check(bin: &str, path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let dir = path.parent().unwrap();
    let is_err = name.starts_with("err.");
    let tag = if is_err {
        name.split('.')
            .nth(1)
            .filter(|t| t.starts_with("D_"))
            .map(str::to_string)
    } else {
        None
    };

    let mut args: Vec<String> = Vec::new();
    for o in markers(&text, "runtest-opts") {
        args.extend(o.split_whitespace().map(str::to_string));
    }
    if tag.is_some() {
        args.push("-xerrtags".into());
    }
    for t in markers(&text, "trigger") {
        args.push("-c".into());
        let first = t.split_whitespace().next().unwrap_or("");
        if TRIGGERS.contains(&first) {
            let me = std::env::current_exe().expect("current_exe");
            args.push(format!("{} {} {}", me.display(), TRIGGER_ARG, t));
        } else {
            args.push(t);
        }
    }
    args.push("-s".into());
    args.push(name.clone());
    for a in markers(&text, "args") {
        args.extend(a.split_whitespace().map(str::to_string));
    }
    let timeout = markers(&text, "timeout")
        .first()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    let want_status: Option<i32> = markers(&text, "status")
        .first()
        .and_then(|s| s.parse().ok());

    let out = run(bin, &args, dir, Duration::from_secs(timeout));
    let ctx = || {
        format!(
            "\n--- stdout ---\n{}--- stderr ---\n{}",
            out.stdout, out.stderr
        )
    };
    if out.timed_out {
        return Err(format!("timed out after {}s{}", timeout, ctx()));
    }
    match (want_status, &tag, is_err) {
        (Some(w), _, _) if out.status != Some(w) => {
            return Err(format!("exit status {:?}, want {}{}", out.status, w, ctx()))
        }
        (None, Some(_), _) if out.status != Some(1) => {
            return Err(format!("exit status {:?}, want 1{}", out.status, ctx()))
        }
        (None, None, true) if out.status == Some(0) || out.status.is_none() => {
            return Err(format!(
                "exit status {:?}, want failure{}",
                out.status,
                ctx()
            ))
        }
        (None, _, false) if out.status != Some(0) => {
            return Err(format!("exit status {:?}, want 0{}", out.status, ctx()))
        }
        _ => {}
    }
    if let Some(t) = &tag {
        if !out.stderr.contains(&format!("[{}]", t)) {
            return Err(format!("stderr lacks [{}]{}", t, ctx()));
        }
    }
    if out.stderr.contains("panicked") {
        return Err(format!("dtrace panicked{}", ctx()));
    }
    let rfile = path.with_extension("r");
    if let Ok(expect) = std::fs::read_to_string(&rfile) {
        let (want_out, want_err) = match expect.split_once("-- @@stderr --\n") {
            Some((o, e)) => (o.to_string(), Some(e.to_string())),
            None => (expect.clone(), None),
        };
        if out.stdout != want_out {
            return Err(format!(
                "stdout differs\n--- want ---\n{}{}",
                want_out,
                ctx()
            ));
        }
        if let Some(e) = want_err {
            if out.stderr != e {
                return Err(format!("stderr differs\n--- want ---\n{}{}", e, ctx()));
            }
        }
    }
    Ok(())
}

const TRIGGER_ARG: &str = "--dtrace-test-trigger";
const TRIGGERS: &[&str] = &["getpid", "open", "exit"];

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
        (Some("exit"), n) => n.and_then(|n| n.parse().ok()).unwrap_or(0),
        _ => 2,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some(TRIGGER_ARG) {
        std::process::exit(trigger(&args[1..]));
    }
    // libtest-style flags (e.g. from `cargo test -- --nocapture`) are
    // ignored; a bare word filters tests by path.
    let filter = args.iter().find(|a| !a.starts_with('-')).cloned();
    unittest(filter);
}

fn unittest(filter: Option<String>) {
    let bin = env!("CARGO_BIN_EXE_dtrace");
    let mut tests = Vec::new();
    collect(&root(), &mut tests);
    assert!(
        !tests.is_empty(),
        "no tests found under {}",
        root().display()
    );
    let mut failed = Vec::new();
    let mut ran = 0;
    for t in &tests {
        let rel = t.strip_prefix(root()).unwrap_or(t).display().to_string();
        if let Some(f) = &filter {
            if !rel.contains(f.as_str()) {
                continue;
            }
        }
        ran += 1;
        match check(bin, t) {
            Ok(()) => eprintln!("PASS {}", rel),
            Err(e) => {
                eprintln!("FAIL {}: {}", rel, e);
                failed.push(rel);
            }
        }
    }
    eprintln!("{} tests, {} failed", ran, failed.len());
    if !failed.is_empty() {
        eprintln!("failed: {:?}", failed);
        std::process::exit(1);
    }
}
