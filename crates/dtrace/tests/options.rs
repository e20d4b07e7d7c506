//! The option table, walked: every option DTrace knows either takes effect
//! here or is refused with a message naming it. A refused option is
//! checked through `-x` and `#pragma D option`; an honoured one must have
//! a demonstration below that shows its effect on dtrace's output (or,
//! for the rates, whose effect is only on timing, the unit test that
//! proves how the consumer is paced). An honoured option without one
//! fails the test `every_honoured_option_is_demonstrated`.

use std::process::{Command, Output, Stdio};

use libdtrace::{Options, Support};
use libtest_mimic::{Arguments, Completion, Failed, Trial};

const DTRACE: &str = env!("CARGO_BIN_EXE_dtrace");
const TRIGGER: &str = "--dtrace-options-trigger";
/// Runs a TRIGGER child pinned to each online CPU and waits for them.
const FANOUT: &str = "--dtrace-options-fanout";

fn dtrace(args: &[&str]) -> Output {
    Command::new("taskset")
        .args(["-c", "0", DTRACE])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run dtrace")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A `-c` command that makes `n` getpid calls.
fn getpids(n: u32) -> String {
    let me = std::env::current_exe().expect("current_exe");
    format!("{} {} {}", me.display(), TRIGGER, n)
}

/// The D suite's `frames` fixture (nested calls with frame pointers and
/// a USDT probe), built here.
fn frames_fixture() -> Result<String, Failed> {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test/fixtures/frames.c");
    let exe = std::env::temp_dir().join(format!("dtrace-options-frames-{}", std::process::id()));
    let o = Command::new("cc")
        .args(["-O1", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .map_err(|e| format!("cc: {}", e))?;
    if !o.status.success() {
        return Err(format!("cc: {}", text(&o.stderr)).into());
    }
    Ok(exe.display().to_string())
}

/// Records printed (one CPU number a line) plus the drops reported, by
/// CPU, and the drops in all.
fn printed_and_dropped(o: &Output) -> (std::collections::BTreeMap<usize, usize>, usize) {
    let mut per_cpu = std::collections::BTreeMap::<usize, usize>::new();
    for l in text(&o.stdout).lines().filter(|l| !l.is_empty()) {
        *per_cpu.entry(l.parse().unwrap_or(usize::MAX)).or_default() += 1;
    }
    let mut dropped = 0;
    for l in text(&o.stderr).lines() {
        if let Some((n, c)) = l.strip_prefix("dtrace: ").and_then(|r| {
            r.split_once(" drops on CPU ")
                .or_else(|| r.split_once(" drop on CPU "))
        }) {
            let (n, c): (usize, usize) = (n.parse().unwrap_or(0), c.parse().unwrap_or(usize::MAX));
            *per_cpu.entry(c).or_default() += n;
            dropped += n;
        }
    }
    (per_cpu, dropped)
}

/// A directory holding one D library file with `text`.
fn lib_dir(tag: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("dtrace-{}-{}", tag, std::process::id()));
    std::fs::create_dir_all(&dir).expect("library dir");
    std::fs::write(dir.join("lib.d"), text).expect("library file");
    dir.display().to_string()
}

/// `BEGIN { @calls["x"] = count(); }` served with `-x metrics` (and
/// `extra` options), scraped once it counts, then stopped by SIGINT:
/// dtrace's output and the scrape's answer.
fn scraped(extra: &[&str]) -> Result<(Output, String), Failed> {
    use std::io::{Read, Write};
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let child = Command::new(DTRACE)
        .args(["-q", "-x", &format!("metrics=127.0.0.1:{}", port)])
        .args(extra)
        .args(["-n", "BEGIN { @calls[\"x\"] = count(); }"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut body = String::new();
    for _ in 0..600 {
        body.clear();
        if let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) {
            let _ = s.write_all(b"GET /metrics HTTP/1.0\r\n\r\n");
            let _ = s.read_to_string(&mut body);
            if body.contains("dtrace_calls") {
                break;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let o = child.wait_with_output()?;
    Ok((o, body))
}

fn check(cond: bool, what: &str, o: &Output) -> Result<(), Failed> {
    if cond {
        Ok(())
    } else {
        Err(format!(
            "{}\n--- stdout ---\n{}--- stderr ---\n{}",
            what,
            text(&o.stdout),
            text(&o.stderr)
        )
        .into())
    }
}

/// The first words of the lines of `out` that are among `keys`, in order.
fn order(out: &str, keys: &[&str]) -> Vec<String> {
    out.lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| keys.contains(w))
        .map(str::to_string)
        .collect()
}

const SORT_PROG: &str = "BEGIN { @a[\"b\", 1] = sum(1); @a[\"a\", 2] = sum(3); \
     @a[\"c\", 0] = sum(2); @b[\"b\", 1] = sum(30); @b[\"a\", 2] = sum(10); \
     @b[\"c\", 0] = sum(20); printa(\"%s %d %@d %@d\\n\", @a, @b); exit(0); }";

fn sorted(extra: &[&str]) -> (Vec<String>, Output) {
    let mut args = vec!["-q"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["-n", SORT_PROG]);
    let o = dtrace(&args);
    (order(&text(&o.stdout), &["a", "b", "c"]), o)
}

type Demo = fn() -> Result<(), Failed>;

/// BEGIN clauses that record 3 KiB each (with strsize=1k), at once: more
/// than a 4 KiB-per-CPU principal buffer holds before dtrace reads it.
const BURST: usize = 16;

fn burst() -> String {
    let clause = "BEGIN { x = \"abc\"; printf(\"%s %s %s\\n\", x, x, x); }\n";
    clause.repeat(BURST) + "tick-10ms { exit(0); }"
}

/// How each honoured option shows its effect.
const DEMOS: &[(&str, Demo)] = &[
    ("aggpercpu", || {
        let prog = "BEGIN { @ = count(); @ = count(); exit(0); }";
        let o = dtrace(&["-x", "aggpercpu", "-x", "oformat=json", "-n", prog]);
        let ncpus = dtrace_sys::cpus::possible_cpus().unwrap_or(0);
        let want = format!(
            "\"values\":[2],\"percpu\":[[{}]]",
            (0..ncpus)
                .map(|c| if c == 0 { "2" } else { "0" })
                .collect::<Vec<_>>()
                .join(",")
        );
        check(text(&o.stdout).contains(&want), &format!("no {}", want), &o)?;
        let plain = dtrace(&["-x", "oformat=json", "-n", prog]);
        check(
            !text(&plain.stdout).contains("percpu"),
            "per-CPU values by default",
            &plain,
        )?;
        // Aggregations with no keys (slots of a per-CPU array) updated on
        // every CPU at once: each CPU's value, and their merge.
        const CALLS: usize = 5000;
        let online = dtrace_sys::cpus::online_cpus().unwrap_or_default();
        let me = std::env::current_exe().expect("current_exe");
        let fan = format!("{} {} {}", me.display(), FANOUT, CALLS);
        let prog = "syscall::getpid:entry /ppid == $target/ { @c = count(); @lo = min(cpu); @hi = max(cpu); }";
        let o = dtrace(&[
            "-x",
            "aggpercpu",
            "-x",
            "oformat=json",
            "-n",
            prog,
            "-c",
            &fan,
        ]);
        let percpu = (0..ncpus)
            .map(|c| {
                if online.contains(&(c as u32)) {
                    CALLS.to_string()
                } else {
                    "0".to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(",");
        let (lo, hi) = (
            online.iter().min().copied().unwrap_or(0),
            online.iter().max().copied().unwrap_or(0),
        );
        for want in [
            format!(
                "\"values\":[{}],\"percpu\":[[{}]]",
                CALLS * online.len(),
                percpu
            ),
            format!(
                "\"names\":[\"@lo\"],\"rows\":[{{\"keys\":[],\"values\":[{}]",
                lo
            ),
            format!(
                "\"names\":[\"@hi\"],\"rows\":[{{\"keys\":[],\"values\":[{}]",
                hi
            ),
        ] {
            check(text(&o.stdout).contains(&want), &format!("no {}", want), &o)?;
        }
        Ok(())
    }),
    ("aggrate", || {
        // printa() shows the aggregation as read first after each
        // aggregation tick: with an hour between ticks, the first value
        // read, every time.
        let prog = "int i; tick-300ms { @a = count(); printa(\"%@d\\n\", @a); } \
                    tick-300ms /++i == 3/ { exit(0); }";
        let slow = dtrace(&["-q", "-x", "aggrate=1h", "-n", prog]);
        check(text(&slow.stdout) == "1\n1\n1\n\n", "not read once", &slow)?;
        let live = dtrace(&["-q", "-n", prog]);
        check(
            text(&live.stdout) == "1\n2\n3\n\n",
            "not read each time",
            &live,
        )
    }),
    ("aggsize", || {
        let prog = "syscall::getpid:entry /pid == $target/ { @[timestamp] = count(); }";
        let small = dtrace(&["-q", "-x", "aggsize=1k", "-n", prog, "-c", &getpids(500)]);
        check(
            text(&small.stderr).contains("aggregation drops"),
            "aggsize=1k: no drops",
            &small,
        )?;
        let big = dtrace(&["-q", "-n", prog, "-c", &getpids(500)]);
        check(!text(&big.stderr).contains("drop"), "default: drops", &big)
    }),
    ("aggsortkey", || {
        let (o, out) = sorted(&["-x", "aggsortkey"]);
        check(o == ["a", "b", "c"], "aggsortkey: not by key", &out)?;
        let (o, out) = sorted(&[]);
        check(o == ["b", "c", "a"], "default: not by value", &out)
    }),
    ("aggsortkeypos", || {
        let (o, out) = sorted(&["-x", "aggsortkey", "-x", "aggsortkeypos=1"]);
        check(
            o == ["c", "b", "a"],
            "aggsortkeypos=1: not by 2nd key",
            &out,
        )
    }),
    ("aggsortpos", || {
        let (o, out) = sorted(&["-x", "aggsortpos=1"]);
        check(o == ["a", "c", "b"], "aggsortpos=1: not by @b", &out)
    }),
    ("aggsortrev", || {
        let (o, out) = sorted(&["-x", "aggsortrev"]);
        check(o == ["a", "c", "b"], "aggsortrev: not reversed", &out)
    }),
    ("bufpolicy", || {
        // fill: tracing stops when a buffer fills (8k holds 510 16-byte
        // records beside END's), END still records;
        // switch (the default): every record is read as it comes.
        let prog = "syscall::getpid:entry /pid == $target/ { printf(\"x\\n\"); } \
                    END { printf(\"end\\n\"); }";
        let fill = dtrace(&[
            "-q",
            "-x",
            "bufpolicy=fill",
            "-b",
            "8k",
            "-n",
            prog,
            "-c",
            &getpids(1000),
        ]);
        let lines = text(&fill.stdout).lines().filter(|l| *l == "x").count();
        check(
            lines == 510 && text(&fill.stdout).ends_with("end\n\n"),
            &format!("fill: {} records", lines),
            &fill,
        )?;
        // ring: the newest records only, printed at the end.
        let ring = dtrace(&[
            "-q",
            "-x",
            "bufpolicy=ring",
            "-b",
            "4k",
            "-n",
            prog,
            "-c",
            &getpids(1000),
        ]);
        let lines = text(&ring.stdout).lines().filter(|l| *l == "x").count();
        check(
            lines > 0 && lines < 1000 && text(&ring.stdout).ends_with("end\n\n"),
            &format!("ring: {} records", lines),
            &ring,
        )?;
        let switch = dtrace(&["-q", "-n", prog, "-c", &getpids(1000)]);
        let lines = text(&switch.stdout).lines().filter(|l| *l == "x").count();
        check(
            lines == 1000,
            &format!("switch: {} records", lines),
            &switch,
        )
    }),
    ("bufresize", || {
        // A ring buffer of 8g is more than the kernel allows: manual
        // refuses to start. (auto halves it until one is made, 2g here,
        // 4g of memory for two CPUs: too heavy to run beside the other
        // tests; libdtrace's refused_sizes_are_halved_under_auto shows
        // the halving.)
        let prog = "BEGIN { exit(0); }";
        let manual = dtrace(&["-q", "-b", "8g", "-x", "bufresize=manual", "-n", prog]);
        check(
            manual.status.code() == Some(1)
                && text(&manual.stderr).contains("could not enable tracing: Not enough space"),
            "manual: started",
            &manual,
        )
    }),
    ("bufsize", || {
        let prog = burst();
        let small = dtrace(&["-q", "-x", "strsize=1k", "-b", "4k", "-n", &prog]);
        check(
            text(&small.stderr).contains(" drops on CPU 0"),
            "-b 4k: no drop",
            &small,
        )?;
        let big = dtrace(&["-q", "-x", "strsize=1k", "-n", &prog]);
        check(
            text(&big.stdout) == "abc abc abc\n".repeat(BURST) + "\n",
            "default: lost",
            &big,
        )?;
        // Nothing is lost silently: with a buffer too small for the load,
        // the records printed and the drops reported add up, CPU by CPU,
        // to the records made.
        const CALLS: usize = 20000;
        let prog = "syscall::getpid:entry /pid == $target/ { printf(\"%d\\n\", cpu); }";
        let o = dtrace(&[
            "-q",
            "-b",
            "4k",
            "-x",
            "switchrate=10hz",
            "-n",
            prog,
            "-c",
            &getpids(CALLS as u32),
        ]);
        let (per_cpu, dropped) = printed_and_dropped(&o);
        check(
            dropped > 0 && per_cpu.values().sum::<usize>() == CALLS,
            &format!("{} made, {:?} printed and dropped by CPU", CALLS, per_cpu),
            &o,
        )?;
        // The same with the load on every CPU at once: one process pinned
        // to each CPU, all children of the -c command. Each CPU's records
        // printed plus its drops equal the calls made on it.
        let cpus: Vec<usize> = dtrace_sys::cpus::online_cpus()
            .unwrap_or_default()
            .into_iter()
            .map(|c| c as usize)
            .collect();
        let me = std::env::current_exe().expect("current_exe");
        let fan = format!("{} {} {}", me.display(), FANOUT, CALLS);
        let prog = "syscall::getpid:entry /ppid == $target/ { printf(\"%d\\n\", cpu); }";
        let o = dtrace(&[
            "-q",
            "-b",
            "4k",
            "-x",
            "switchrate=10hz",
            "-n",
            prog,
            "-c",
            &fan,
        ]);
        let (per_cpu, dropped) = printed_and_dropped(&o);
        check(
            dropped > 0 && per_cpu.len() == cpus.len() && per_cpu.values().all(|&n| n == CALLS),
            &format!(
                "{} made on each of CPUs {:?}, {:?} printed and dropped by CPU",
                CALLS, cpus, per_cpu
            ),
            &o,
        )
    }),
    ("cpcminoverflow", || {
        // cpu_clock every 2000 ns: below the default minimum of 5000.
        let prog =
            "cpc:::cpu_clock-all-2000 /pid == $target/ { n = 1; } END { printf(\"%d\\n\", n); }";
        let low = dtrace(&["-q", "-n", prog, "-c", &getpids(1000)]);
        check(
            text(&low.stderr).contains("below the minimum overflow count of 5000"),
            "default: cpu_clock-all-2000 accepted",
            &low,
        )?;
        let set = dtrace(&[
            "-q",
            "-x",
            "cpcminoverflow=1000",
            "-n",
            prog,
            "-c",
            &getpids(1_000_000),
        ]);
        check(
            text(&set.stdout).trim() == "1",
            "cpcminoverflow=1000: cpu_clock-all-2000 refused",
            &set,
        )
    }),
    ("cpu", || {
        let prog = "syscall::getpid:entry /pid == $target/ { @ = count(); }";
        // dtrace and its target run on CPU 0 (taskset).
        let other = dtrace(&["-q", "-x", "cpu=1", "-n", prog, "-c", &getpids(10)]);
        check(
            text(&other.stdout).trim().is_empty(),
            "cpu=1 counted",
            &other,
        )?;
        let same = dtrace(&["-q", "-x", "cpu=0", "-n", prog, "-c", &getpids(10)]);
        check(text(&same.stdout).trim() == "10", "cpu=0 missed", &same)
    }),
    ("defaultargs", || {
        let prog = "BEGIN { trace($1); exit(0); }";
        let with = dtrace(&["-q", "-x", "defaultargs", "-n", prog]);
        check(
            text(&with.stdout).starts_with('0'),
            "defaultargs: no 0",
            &with,
        )?;
        let without = dtrace(&["-q", "-n", prog]);
        check(
            without.status.code() == Some(1),
            "no defaultargs: ran",
            &without,
        )
    }),
    ("empty", || {
        let args = ["-n", "/* nothing */", "-n", "BEGIN { exit(0); }"];
        let with = dtrace(&[&["-q", "-x", "empty"][..], &args[..]].concat());
        check(with.status.success(), "empty: refused", &with)?;
        let without = dtrace(&[&["-q"][..], &args[..]].concat());
        check(
            without.status.code() == Some(1)
                && text(&without.stderr).contains("empty D program translation unit"),
            "no empty: compiled",
            &without,
        )
    }),
    ("destructive", || {
        let o = dtrace(&["-x", "destructive", "-n", "BEGIN { exit(0); }"]);
        check(
            text(&o.stderr).contains("dtrace: allowing destructive actions"),
            "no notice",
            &o,
        )
    }),
    ("droptags", || {
        let prog = burst();
        let o = dtrace(&[
            "-q",
            "-x",
            "droptags",
            "-x",
            "strsize=1k",
            "-b",
            "4k",
            "-n",
            &prog,
        ]);
        check(
            text(&o.stderr).contains("[DTRACEDROP_PRINCIPAL] ")
                && text(&o.stderr).contains(" drops on CPU 0"),
            "no tag",
            &o,
        )
    }),
    ("libdir", || {
        let dir = lib_dir("libdir", "inline int ANSWER = 42;\n");
        let prog = "BEGIN { trace(ANSWER); exit(0); }";
        let with = dtrace(&["-q", "-x", &format!("libdir={}", dir), "-n", prog]);
        let l = dtrace(&["-q", "-L", &dir, "-n", prog]);
        let without = dtrace(&["-q", "-n", prog]);
        let _ = std::fs::remove_dir_all(&dir);
        check(text(&with.stdout) == "42\n", "libdir: not loaded", &with)?;
        check(text(&l.stdout) == "42\n", "-L: not loaded", &l)?;
        check(
            without.status.code() == Some(1),
            "no libdir: ANSWER known",
            &without,
        )
    }),
    ("syslibdir", || {
        // The directory replaces the standard library: curpsinfo is gone,
        // its own names are there.
        let dir = lib_dir("syslibdir", "inline int SYS = 7;\n");
        let opt = format!("syslibdir={}", dir);
        let own = dtrace(&["-q", "-x", &opt, "-n", "BEGIN { trace(SYS); exit(0); }"]);
        let std = dtrace(&[
            "-q",
            "-x",
            &opt,
            "-n",
            "BEGIN { trace(curpsinfo->pr_pid); exit(0); }",
        ]);
        let _ = std::fs::remove_dir_all(&dir);
        check(text(&own.stdout) == "7\n", "syslibdir: not loaded", &own)?;
        check(
            std.status.code() == Some(1),
            "syslibdir: standard library still loaded",
            &std,
        )
    }),
    ("dynvarsize", || {
        let prog = "syscall::getpid:entry /pid == $target/ { a[timestamp] = 1; }";
        let small = dtrace(&[
            "-q",
            "-x",
            "dynvarsize=1k",
            "-n",
            prog,
            "-c",
            &getpids(3000),
        ]);
        check(
            text(&small.stderr).contains("dynamic variable drops"),
            "dynvarsize=1k: no drops",
            &small,
        )?;
        let big = dtrace(&["-q", "-n", prog, "-c", &getpids(3000)]);
        check(!text(&big.stderr).contains("drop"), "default: drops", &big)
    }),
    ("cpp", || {
        let o = dtrace(&[
            "-x",
            "cpp",
            "-x",
            "define=V=3",
            "-qn",
            "BEGIN { trace(V); exit(0); }",
        ]);
        check(text(&o.stdout) == "3\n", "not preprocessed", &o)
    }),
    ("define", || {
        let o = dtrace(&[
            "-C",
            "-x",
            "define=V",
            "-qn",
            "BEGIN { trace(V); exit(0); }",
        ]);
        check(text(&o.stdout) == "1\n", "not defined", &o)
    }),
    ("undef", || {
        let prog = "BEGIN {\n#ifdef __linux\ntrace(1);\n#else\ntrace(0);\n#endif\nexit(0); }";
        let o = dtrace(&["-C", "-x", "undef=__linux", "-qn", prog]);
        check(text(&o.stdout) == "0\n", "still defined", &o)
    }),
    ("incdir", || {
        let dir = std::env::temp_dir().join(format!("dtrace-incdir-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join("v.h"), "#define V 7\n");
        let inc = format!("incdir={}", dir.display());
        let prog = "#include <v.h>\nBEGIN { trace(V); exit(0); }";
        let o = dtrace(&["-C", "-x", &inc, "-qn", prog]);
        let _ = std::fs::remove_dir_all(&dir);
        check(text(&o.stdout) == "7\n", "not included", &o)
    }),
    ("cpphdrs", || {
        let prog = "#include <stdint.h>\nBEGIN { exit(0); }";
        let o = dtrace(&["-C", "-x", "cpphdrs", "-qn", prog]);
        check(text(&o.stderr).contains("stdint.h"), "no header list", &o)
    }),
    ("cpppath", || {
        let o = dtrace(&[
            "-C",
            "-x",
            "cpppath=/nonexistent/cpp",
            "-qn",
            "BEGIN { exit(0); }",
        ]);
        check(
            text(&o.stderr).contains("failed to run the C preprocessor /nonexistent/cpp"),
            "not the path given",
            &o,
        )?;
        let o = dtrace(&[
            "-C",
            "-x",
            "cpppath=/usr/bin/cpp",
            "-qn",
            "BEGIN { trace(V + 0); exit(0); }",
            "-DV=2",
        ]);
        check(text(&o.stdout) == "2\n", "not run", &o)
    }),
    ("stdc", || {
        let prog =
            "BEGIN {\n#ifdef __STRICT_ANSI__\ntrace(1);\n#else\ntrace(0);\n#endif\nexit(0); }";
        let strict = dtrace(&["-C", "-x", "stdc=c", "-qn", prog]);
        check(text(&strict.stdout) == "1\n", "not strict", &strict)?;
        let o = dtrace(&["-C", "-qn", prog]);
        check(text(&o.stdout) == "1\n", "not strict by default", &o)?;
        let o = dtrace(&["-C", "-x", "stdc=s", "-qn", prog]);
        check(text(&o.stdout) == "0\n", "K&R is strict", &o)
    }),
    ("errtags", || {
        let o = dtrace(&["-x", "errtags", "-n", "BEGIN { x = ; }"]);
        check(text(&o.stderr).contains("[D_SYNTAX]"), "no tag", &o)
    }),
    ("flowindent", || {
        let prog = "syscall::getpid:entry, syscall::getpid:return /pid == $target/ {}";
        let o = dtrace(&["-q", "-x", "flowindent", "-n", prog, "-c", &getpids(1)]);
        check(
            text(&o.stdout).contains("  0  => getpid")
                && text(&o.stdout).contains("  0  <= getpid"),
            "no flow",
            &o,
        )
    }),
    ("flamegraph", || {
        let svg = std::env::temp_dir().join(format!("dtrace-opt-{}.svg", std::process::id()));
        let o = dtrace(&[
            "-q",
            "-x",
            &format!("flamegraph={}", svg.display()),
            "-n",
            "syscall::getpid:entry /pid == $target/ { @[stack()] = count(); }",
            "-c",
            &getpids(3),
        ]);
        let body = std::fs::read_to_string(&svg).unwrap_or_default();
        std::fs::remove_file(&svg).ok();
        check(body.contains("<svg"), "no SVG written", &o)
    }),
    ("metrics", || {
        let (o, body) = scraped(&[])?;
        check(
            body.contains("# TYPE dtrace_calls_total counter\ndtrace_calls_total{key1=\"x\"} 1\n"),
            &format!("not served: {}", body),
            &o,
        )
    }),
    ("metriclabels", || {
        let (o, body) = scraped(&["-x", "metriclabels=@calls:name"])?;
        check(
            body.contains("dtrace_calls_total{name=\"x\"} 1\n"),
            &format!("label not named: {}", body),
            &o,
        )
    }),
    ("pprof", || {
        let file = std::env::temp_dir().join(format!("dtrace-opt-{}.pb.gz", std::process::id()));
        let o = dtrace(&[
            "-q",
            "-x",
            &format!("pprof={}", file.display()),
            "-n",
            "syscall::getpid:entry /pid == $target/ { @[stack()] = count(); }",
            "-c",
            &getpids(3),
        ]);
        let body = std::fs::read(&file).unwrap_or_default();
        std::fs::remove_file(&file).ok();
        // A gzip stream (the profile is read back by `go tool pprof` in
        // the export tests).
        check(
            body.starts_with(&[0x1f, 0x8b]),
            "no gzipped profile written",
            &o,
        )
    }),
    ("grabanon", || {
        // Claims the anonymous state as -a does: there is none here
        // (the anonymous tests make some).
        let o = dtrace(&["-x", "grabanon"]);
        check(
            text(&o.stderr) == "dtrace: could not enable tracing: No anonymous tracing state\n",
            "grabanon did not claim",
            &o,
        )
    }),
    ("nspec", || {
        let prog =
            "BEGIN { a = speculation(); b = speculation(); printf(\"%d %d\\n\", a, b); exit(0); }";
        let two = dtrace(&["-q", "-x", "nspec=2", "-x", "specsize=4k", "-n", prog]);
        check(text(&two.stdout) == "1 2\n\n", "not two", &two)?;
        let one = dtrace(&["-q", "-x", "specsize=4k", "-n", prog]);
        check(
            text(&one.stdout) == "1 0\n\n"
                && text(&one.stderr)
                    .contains("1 failed speculation (no speculative buffer available)"),
            "default: not one",
            &one,
        )
    }),
    ("amin", || {
        // A program relying on nothing below the minimum runs; BEGIN
        // without its provider is Unstable, `curthread`'s data Private.
        let amin = "amin=Evolving/Evolving/Common";
        let o = dtrace(&[
            "-q",
            "-x",
            amin,
            "-n",
            "dtrace:::BEGIN { trace(ntohl(1)); exit(0); }",
        ]);
        check(o.status.code() == Some(0), "Evolving refused", &o)?;
        let o = dtrace(&["-q", "-x", amin, "-n", "BEGIN { exit(0); }"]);
        check(
            text(&o.stderr).contains(
                "attributes for clause (Unstable/Unstable/Common) are less than predefined minimum",
            ),
            "an Unstable description taken",
            &o,
        )?;
        let o = dtrace(&[
            "-q",
            "-x",
            amin,
            "-n",
            "dtrace:::BEGIN { trace(curthread->pid); exit(0); }",
        ]);
        check(
            text(&o.stderr).contains(
                "attributes for scalar curthread (Stable/Private/Common) are less than predefined minimum",
            ),
            "curthread taken",
            &o,
        )?;
        let o = dtrace(&["-q", "-x", "amin=Solid", "-n", "BEGIN { exit(0); }"]);
        check(
            text(&o.stderr)
                == "dtrace: failed to set -x amin: Invalid value for specified option\n",
            "a bad minimum taken",
            &o,
        )
    }),
    ("argref", || {
        // A script argument the program does not reference is an error
        // (the last one: DTrace checks that one), unless argref.
        let prog = "BEGIN { exit(0); }";
        let o = dtrace(&["-q", "-n", prog, "extra"]);
        check(
            text(&o.stderr).contains("extraneous argument 'extra' ($1 is not referenced)"),
            "an unreferenced argument taken",
            &o,
        )?;
        let o = dtrace(&["-q", "-x", "argref", "-n", prog, "extra"]);
        check(o.status.code() == Some(0), "argref: refused still", &o)
    }),
    ("pspec", || {
        // `int*x` declares a variable, or with pspec describes probes
        // (`syscall::*x` would be one): none match here.
        let o = dtrace(&["-q", "-n", "int*x; BEGIN { x = 0; exit(0); }"]);
        check(o.status.code() == Some(0), "not a declaration", &o)?;
        let o = dtrace(&["-q", "-x", "pspec", "-n", "int*x { exit(0); }"]);
        check(
            text(&o.stderr).contains("probe description :::int*x does not match any probes"),
            "a declaration still",
            &o,
        )
    }),
    ("version", || {
        // A program written for an earlier D has only that D's built-in
        // identifiers: strstr() came with 1.1, so under 1.0 its name is
        // free for a variable. A version D never had is refused in
        // DTrace's words, and so is a later one after an earlier.
        let o = dtrace(&[
            "-q",
            "-x",
            "version=1.13",
            "-n",
            "BEGIN { trace(strstr(\"ab\", \"b\")); exit(0); }",
        ]);
        check(o.status.code() == Some(0), "1.13 refused", &o)?;
        let o = dtrace(&[
            "-q",
            "-x",
            "version=1.0",
            "-n",
            "BEGIN { trace(strstr(\"ab\", \"b\")); exit(0); }",
        ]);
        check(
            text(&o.stderr).contains("failed to resolve strstr: Unknown function name"),
            "1.0 has strstr()",
            &o,
        )?;
        let o = dtrace(&[
            "-q",
            "-x",
            "version=1.0",
            "-n",
            "int strstr; BEGIN { strstr = 2; trace(strstr); exit(0); }",
        ]);
        check(
            text(&o.stdout).starts_with('2'),
            "1.0: strstr not a variable",
            &o,
        )?;
        let o = dtrace(&["-q", "-x", "version=99.1", "-n", "BEGIN { exit(0); }"]);
        check(
            text(&o.stderr)
                == "dtrace: failed to set -x version: Requested version is not supported by compiler\n",
            "99.1 not refused so",
            &o,
        )?;
        let o = dtrace(&[
            "-q",
            "-x",
            "version=1.0",
            "-x",
            "version=1.5",
            "-n",
            "BEGIN { exit(0); }",
        ]);
        check(
            text(&o.stderr)
                == "dtrace: failed to set -x version: Requested version conflicts with earlier setting\n",
            "a later version after an earlier taken",
            &o,
        )
    }),
    ("scratchsize", || {
        // What a clause may allocate: 64 bytes fit 64, not 65 (a
        // run-time size is out of scratch space, a constant one refused).
        let prog = "BEGIN { n = 64; a = alloca(n); } BEGIN { n = 65; a = alloca(n); } \
                    BEGIN { exit(0); } ERROR { printf(\"fault %d\\n\", arg4); }";
        let o = dtrace(&["-q", "-x", "scratchsize=64", "-n", prog]);
        check(
            text(&o.stdout) == "fault 5\n\n" && text(&o.stderr).contains("out of scratch space"),
            "scratchsize=64: not 64 bytes",
            &o,
        )?;
        let o = dtrace(&[
            "-q",
            "-x",
            "scratchsize=64",
            "-n",
            "BEGIN { a = alloca(65); }",
        ]);
        check(
            text(&o.stderr).contains("alloca(65) size larger than scratchsize 64"),
            "a constant size over it is not refused",
            &o,
        )
    }),
    ("specsize", || {
        let prog = "BEGIN { a = speculation(); } BEGIN { speculate(a); printf(\"%s%s%s%s%s\\n\", execname, execname, execname, execname, execname); } \
                    BEGIN { commit(a); } BEGIN { exit(0); }";
        let small = dtrace(&["-q", "-x", "specsize=64", "-n", prog]);
        check(
            text(&small.stdout) == "\n" && text(&small.stderr).contains("1 speculative drop"),
            "specsize=64: no drop",
            &small,
        )?;
        let big = dtrace(&["-q", "-x", "specsize=64k", "-n", prog]);
        check(
            text(&big.stdout) == "dtrace".repeat(5) + "\n\n",
            "specsize=64k: lost",
            &big,
        )
    }),
    ("cleanrate", || {
        // A committed buffer is busy until the consumer cleans it: at
        // 1hz, still busy 300ms later; at the default 101hz, long free.
        let prog = "BEGIN { a = speculation(); commit(a); } \
                    tick-300ms { printf(\"%d\\n\", speculation()); exit(0); }";
        let slow = dtrace(&["-q", "-x", "cleanrate=1hz", "-x", "specsize=4k", "-n", prog]);
        check(
            text(&slow.stdout) == "0\n\n" && text(&slow.stderr).contains("still busy"),
            "cleanrate=1hz: not busy",
            &slow,
        )?;
        let fast = dtrace(&["-q", "-x", "specsize=4k", "-n", prog]);
        check(text(&fast.stdout) == "1\n\n", "default: busy", &fast)
    }),
    ("oformat", || {
        let o = dtrace(&["-x", "oformat=json", "-n", "BEGIN { trace(1); exit(0); }"]);
        check(
            text(&o.stdout).starts_with("{\"type\":\"probe\"")
                && text(&o.stdout).contains("{\"action\":\"trace\",\"value\":1}"),
            "not JSON",
            &o,
        )
    }),
    ("stackframes", || {
        let prog = "syscall::getpid:entry /pid == $target/ { stack(); }";
        let o = dtrace(&["-q", "-x", "stackframes=1", "-n", prog, "-c", &getpids(1)]);
        let frames = text(&o.stdout).lines().filter(|l| l.contains('`')).count();
        check(frames == 1, "not one frame", &o)
    }),
    ("ustackframes", || {
        let exe = frames_fixture()?;
        let prog = "BEGIN { n = 0; } frames$target:::here /n++ == 0/ { ustack(); }";
        let o = dtrace(&["-q", "-x", "ustackframes=2", "-n", prog, "-c", &exe]);
        let _ = std::fs::remove_file(&exe);
        let frames = text(&o.stdout).lines().filter(|l| l.contains('`')).count();
        check(frames == 2, "not two frames", &o)
    }),
    ("ustackbytes", || {
        // With a word of stack copied the unwinder has the instruction
        // pointer alone (inner's return address is further up): one
        // frame; by default the stack reaches main.
        let exe = frames_fixture()?;
        let prog = "BEGIN { n = 0; } frames$target:::here /n++ == 0/ { ustack(); }";
        let none = dtrace(&["-q", "-x", "ustackbytes=8", "-n", prog, "-c", &exe]);
        let all = dtrace(&["-q", "-n", prog, "-c", &exe]);
        let _ = std::fs::remove_file(&exe);
        let frames = text(&none.stdout)
            .lines()
            .filter(|l| l.contains('`'))
            .count();
        check(frames == 1, "not one frame", &none)?;
        check(text(&all.stdout).contains("`main+"), "no main", &all)
    }),
    ("jstackframes", || {
        let exe = frames_fixture()?;
        let prog = "BEGIN { n = 0; } frames$target:::here /n++ == 0/ { jstack(); }";
        let o = dtrace(&["-q", "-x", "jstackframes=1", "-n", prog, "-c", &exe]);
        let _ = std::fs::remove_file(&exe);
        let frames = text(&o.stdout).lines().filter(|l| l.contains('`')).count();
        check(frames == 1, "not one frame", &o)
    }),
    ("maxframes", || {
        // A stack records at most maxframes frames, asked for or by
        // default.
        let prog = "syscall::getpid:entry /pid == $target/ { stack(); stack(5); }";
        let o = dtrace(&["-q", "-x", "maxframes=2", "-n", prog, "-c", &getpids(1)]);
        let frames = text(&o.stdout).lines().filter(|l| l.contains('`')).count();
        check(frames == 4, "not two frames each", &o)
    }),
    ("stackindent", || {
        let prog = "syscall::getpid:entry /pid == $target/ { stack(); }";
        let o = dtrace(&["-q", "-x", "stackindent=3", "-n", prog, "-c", &getpids(1)]);
        check(
            text(&o.stdout)
                .lines()
                .any(|l| l.starts_with("   vmlinux`")),
            "not indented by 3",
            &o,
        )
    }),
    ("rawbytes", || {
        let prog =
            "struct s { char a[4]; }; struct s v; BEGIN { v.a[0] = 104; trace(v); exit(0); }";
        let plain = dtrace(&["-q", "-n", prog]);
        check(
            text(&plain.stdout) == "h\n",
            "not shown as a string",
            &plain,
        )?;
        let raw = dtrace(&["-q", "-x", "rawbytes", "-n", prog]);
        check(
            text(&raw.stdout).contains(" 68 00 00 00 "),
            "not a hex dump",
            &raw,
        )
    }),
    ("quiet", || {
        let o = dtrace(&["-x", "quiet", "-n", "BEGIN { trace(1); exit(0); }"]);
        check(text(&o.stdout) == "1\n", "not quiet", &o)
    }),
    ("statusrate", || {
        // Its effect is on timing alone: the consumer's sleep is bounded
        // by it (libdtrace's switchrate_paces_the_consumer unit test);
        // here, a status rate is accepted and tracing works.
        let o = dtrace(&[
            "-q",
            "-x",
            "statusrate=10hz",
            "-n",
            "BEGIN { trace(1); exit(0); }",
        ]);
        check(text(&o.stdout) == "1\n", "lost", &o)?;
        // Set, it paces when exit() is noticed: END comes at the next
        // status check (the first is at once), never before.
        let prog = "tick-10ms /i++ == 5/ { ts = timestamp; exit(0); } \
                    END { printf(\"%d\\n\", timestamp - ts >= 1000000000); }";
        let o = dtrace(&["-q", "-x", "statusrate=2s", "-n", prog]);
        check(
            text(&o.stdout).starts_with("1\n"),
            "END before the status check",
            &o,
        )
    }),
    ("strsize", || {
        let o = dtrace(&[
            "-q",
            "-x",
            "strsize=5",
            "-n",
            "BEGIN { x = \"abcdefgh\"; trace(x); exit(0); }",
        ]);
        // A string holds strsize characters.
        check(text(&o.stdout) == "abcde\n", "not cut", &o)
    }),
    ("switchrate", || {
        // Records are submitted without waking the consumer, which reads
        // at the switch rate (unit tests: switchrate_paces_the_consumer);
        // every record still arrives.
        let prog = "syscall::getpid:entry /pid == $target/ { printf(\"x\\n\"); }";
        let o = dtrace(&[
            "-q",
            "-x",
            "switchrate=20hz",
            "-n",
            prog,
            "-c",
            &getpids(50),
        ]);
        check(
            text(&o.stdout).matches("x\n").count() == 50,
            "lost records",
            &o,
        )
    }),
    ("zdefs", || {
        let prog = "nosuch:::probe {} BEGIN { exit(0); }";
        let with = dtrace(&["-q", "-x", "zdefs", "-n", prog]);
        check(with.status.code() == Some(0), "zdefs: refused", &with)?;
        let without = dtrace(&["-q", "-n", prog]);
        check(without.status.code() == Some(1), "no zdefs: ran", &without)
    }),
];

fn refused(
    name: &'static str,
    value: Option<&'static str>,
    why: &'static str,
) -> Result<(), Failed> {
    let set = match value {
        Some(v) => format!("{}={}", name, v),
        None => name.to_string(),
    };
    let o = dtrace(&["-x", &set, "-n", "BEGIN { exit(0); }"]);
    check(
        o.status.code() == Some(1)
            && text(&o.stderr) == format!("dtrace: failed to set -x {}: {}\n", name, why),
        "-x not refused as expected",
        &o,
    )?;
    let dir = std::env::temp_dir().join(format!("dtrace-opt-{}-{}", std::process::id(), name));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let script = dir.join(format!("{}.d", name));
    std::fs::write(
        &script,
        format!("#pragma D option {}\nBEGIN {{ exit(0); }}\n", set),
    )
    .map_err(|e| e.to_string())?;
    let path = script.to_string_lossy().into_owned();
    let o = dtrace(&["-s", &path]);
    let _ = std::fs::remove_dir_all(&dir);
    // An option of the command line alone is refused in a program for
    // that reason first.
    let why = if Options::change(name) == Some(libdtrace::Change::CommandLine) {
        "Option cannot be used from within a D program"
    } else {
        why
    };
    check(
        o.status.code() == Some(1)
            && text(&o.stderr)
                == format!(
                    "dtrace: failed to compile script {}: line 1: failed to set option '{}' to '{}': {}\n",
                    path,
                    name,
                    value.unwrap_or(""),
                    why
                ),
        "pragma not refused as expected",
        &o,
    )
}

/// An option's range, declared in its row: its ends are taken, a value
/// past either is refused when set (through `-x` and through a pragma),
/// in DTrace's words ("Invalid value for specified option"), not clamped
/// later.
fn out_of_range(name: &'static str, lo: i64, hi: i64, size: bool) -> Result<(), Failed> {
    let mut opts = Options::default();
    for v in [lo, hi] {
        opts.set(name, Some(&v.to_string()))
            .map_err(|e| format!("{}={} refused: {}", name, v, e))?;
    }
    let why = libdtrace::OptionError::OutOfRange(lo, hi, size).to_string();
    // A size below its least is at least 1 (0 and negative sizes are
    // DTrace's bad value, with no range to tell).
    let mut outside = vec![hi.saturating_add(1).to_string()];
    if !size || lo > 1 {
        outside.push(lo.saturating_sub(1).to_string());
    }
    for v in outside {
        if opts.set(name, Some(&v)) != Err(libdtrace::OptionError::OutOfRange(lo, hi, size)) {
            return Err(format!("{}={} was not refused as out of range", name, v).into());
        }
        let o = dtrace(&["-x", &format!("{}={}", name, v), "-n", "BEGIN { exit(0); }"]);
        let want = format!("dtrace: failed to set -x {}: {}\n", name, why);
        if o.status.code() != Some(2) && o.status.code() != Some(1) || text(&o.stderr) != want {
            return Err(format!(
                "-x {}={}: status {:?}, stderr {:?}, wanted {:?}",
                name,
                v,
                o.status.code(),
                text(&o.stderr),
                want
            )
            .into());
        }
        let script =
            std::env::temp_dir().join(format!("dtrace-range-{}-{}.d", name, std::process::id()));
        std::fs::write(
            &script,
            format!("#pragma D option {}={}\nBEGIN {{ exit(0); }}\n", name, v),
        )
        .map_err(|e| e.to_string())?;
        let o = dtrace(&["-s", script.to_str().unwrap_or_default()]);
        std::fs::remove_file(&script).ok();
        let want = format!("failed to set option '{}' to '{}': {}\n", name, v, why);
        if o.status.code() != Some(1) || !text(&o.stderr).ends_with(&want) {
            return Err(format!("#pragma {}={}: {:?}", name, v, text(&o.stderr)).into());
        }
    }
    Ok(())
}

fn main() {
    // The tests stop dtrace with SIGINT and SIGTERM: its children must not
    // inherit them ignored (a harness started in the background by a shell
    // without job control has them so).
    dtrace_sys::poll::default_stop_signals();
    let raw: Vec<String> = std::env::args().collect();
    if raw.get(1).map(String::as_str) == Some(FANOUT) {
        let n = raw.get(2).map(String::as_str).unwrap_or("0");
        let me = std::env::current_exe().expect("current_exe");
        let children: Vec<_> = dtrace_sys::cpus::online_cpus()
            .unwrap_or_default()
            .into_iter()
            .filter_map(|c| {
                Command::new("taskset")
                    .args(["-c", &c.to_string()])
                    .arg(&me)
                    .args([TRIGGER, n])
                    .spawn()
                    .ok()
            })
            .collect();
        for mut c in children {
            let _ = c.wait();
        }
        return;
    }
    if raw.get(1).map(String::as_str) == Some(TRIGGER) {
        let n: u32 = raw.get(2).and_then(|s| s.parse().ok()).unwrap_or(0);
        for _ in 0..n {
            // std::process::id() makes the getpid(2) call each time.
            std::hint::black_box(std::process::id());
        }
        return;
    }
    // One trial at a time: each pins dtrace to CPU 0, and some depend on
    // the consumer reading as records come (aggrate, cleanrate).
    let mut args = Arguments::from_args();
    if args.test_threads.is_none() {
        args.test_threads = Some(1);
    }
    let root = dtrace_sys::geteuid() == 0 && dtrace_sys::has_trace_privilege();
    let skip = move || (!root).then(|| Completion::ignored_with("needs root"));
    let mut trials = vec![Trial::test("every_honoured_option_is_demonstrated", || {
        let missing: Vec<&str> = Options::all()
            .filter(|o| matches!(o.support, Support::Honoured | Support::HonouredExcept(..)))
            .map(|o| o.name)
            .filter(|n| !DEMOS.iter().any(|(d, _)| d == n))
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(format!("honoured without a demonstration: {:?}", missing).into())
        }
    })];
    for info in Options::all() {
        let name = info.name;
        if let Some((lo, hi)) = info.range {
            let size = info.value == "size";
            trials.push(Trial::ignorable_test(
                format!("range/{}", name),
                move || out_of_range(name, lo, hi, size).map(|_| Completion::Completed),
            ));
        }
        if let Support::HonouredExcept(values, why) = info.support {
            for &value in values {
                trials.push(Trial::ignorable_test(
                    format!("refused/{}={}", name, value),
                    move || {
                        if let Some(c) = skip() {
                            return Ok(c);
                        }
                        refused(name, Some(value), why).map(|_| Completion::Completed)
                    },
                ));
            }
        }
        match info.support {
            Support::Honoured | Support::HonouredExcept(..) => {
                if let Some(&(_, demo)) = DEMOS.iter().find(|(d, _)| *d == name) {
                    trials.push(Trial::ignorable_test(
                        format!("honoured/{}", name),
                        move || {
                            if let Some(c) = skip() {
                                return Ok(c);
                            }
                            demo().map(|_| Completion::Completed)
                        },
                    ));
                }
            }
            Support::Refused(why) | Support::DefaultOnly(why) => {
                let value = info.other_value;
                trials.push(Trial::ignorable_test(
                    format!("refused/{}", name),
                    move || {
                        if let Some(c) = skip() {
                            return Ok(c);
                        }
                        refused(name, value, why).map(|_| Completion::Completed)
                    },
                ));
            }
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
