//! The probe-effect benchmark: our dtrace side by side with the same work
//! under bpftrace and with a hand-written BPF program (the floor), in one
//! run, reported as ratios.
//!
//! 1. Probe effect: N raw getpid(2) calls with nothing attached, with
//!    `syscall::getpid:entry { @[execname] = count(); }` under dtrace,
//!    with a hand-written per-CPU hash-map counter keyed by comm attached
//!    to the same tracepoint, and with bpftrace's
//!    `tracepoint:syscalls:sys_enter_getpid { @[comm] = count(); }`.
//!    Each tracer's count is checked afterwards, so a tracer that missed
//!    calls cannot look cheap.
//! 2. Start-up to exit of a one-probe script (the probe fires on the
//!    bench's own getpid calls).
//! 3. Start-up to exit of a script enabling every syscall entry probe.
//! 4. A printf stream of N getpid events from a process pinned to one
//!    CPU, then from a process pinned to each CPU at once (N each):
//!    lines delivered, drops reported, lines lost silently, wall time,
//!    beside bpftrace and, with `--baseline PATH`, another dtrace build
//!    (the one before per-CPU buffers, for instance).
//!
//! Usage: `bench/run.sh [--calls N] [--rounds R] [--no-wide]
//! [--baseline PATH]`.

#![forbid(unsafe_code)]

mod floor;

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const LOOP_ARG: &str = "--getpid-loop";
/// `--fan-out CPUS N`: a getpid-loop child pinned to each CPU of the
/// list, N calls each; waits for them all.
const FANOUT_ARG: &str = "--fan-out";

struct Config {
    calls: u64,
    rounds: usize,
    wide: bool,
    dtrace: PathBuf,
    bpftrace: Option<PathBuf>,
    /// A second dtrace (an older build) run beside ours in the printf
    /// stream.
    baseline: Option<PathBuf>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some(LOOP_ARG) {
        let n = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let t = Instant::now();
        getpid_loop(n);
        if args.get(2).map(String::as_str) == Some("--report") {
            println!("{}", t.elapsed().as_nanos());
        }
        return;
    }
    if args.first().map(String::as_str) == Some(FANOUT_ARG) {
        fan_out(
            args.get(1).map(String::as_str).unwrap_or("0"),
            args.get(2).map(String::as_str).unwrap_or("0"),
        );
        return;
    }
    let mut cfg = Config {
        calls: 2_000_000,
        rounds: 3,
        wide: true,
        dtrace: default_dtrace(),
        bpftrace: which("bpftrace"),
        baseline: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--calls" => cfg.calls = it.next().and_then(|s| s.parse().ok()).unwrap_or(cfg.calls),
            "--rounds" => {
                cfg.rounds = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(cfg.rounds)
                    .max(1)
            }
            "--no-wide" => cfg.wide = false,
            "--dtrace" => cfg.dtrace = it.next().map(PathBuf::from).unwrap_or(cfg.dtrace),
            "--no-bpftrace" => cfg.bpftrace = None,
            "--baseline" => cfg.baseline = it.next().map(PathBuf::from),
            other => {
                eprintln!("dtrace-bench: unknown argument {}", other);
                eprintln!("usage: dtrace-bench [--calls N] [--rounds R] [--no-wide] [--no-bpftrace] [--dtrace PATH] [--baseline PATH]");
                std::process::exit(2);
            }
        }
    }
    if !cfg.dtrace.exists() {
        eprintln!(
            "dtrace-bench: {} not found (build it: cargo build --release -p dtrace)",
            cfg.dtrace.display()
        );
        std::process::exit(1);
    }
    println!("dtrace-bench: dtrace {}", cfg.dtrace.display());
    match &cfg.bpftrace {
        Some(b) => println!(
            "dtrace-bench: bpftrace {} ({})",
            b.display(),
            bpftrace_version(b)
        ),
        None => println!("dtrace-bench: bpftrace not found; its columns are skipped"),
    }
    println!(
        "dtrace-bench: {} getpid calls per run, {} rounds, median shown",
        cfg.calls, cfg.rounds
    );
    println!();
    probe_effect(&cfg);
    startup(&cfg);
    if cfg.wide {
        wide(&cfg);
    }
    printf_stream(&cfg);
    agg_snapshot(&cfg);
}

fn default_dtrace() -> PathBuf {
    if let Ok(p) = std::env::var("DTRACE") {
        return PathBuf::from(p);
    }
    let me = std::env::current_exe().unwrap_or_default();
    me.parent()
        .map(|d| d.join("dtrace"))
        .unwrap_or_else(|| PathBuf::from("dtrace"))
}

fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn bpftrace_version(b: &PathBuf) -> String {
    Command::new(b)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// N getpid(2) system calls (std::process::id makes the call each time).
fn getpid_loop(n: u64) {
    for _ in 0..n {
        std::hint::black_box(std::process::id());
    }
}

/// The fan-out mode: one getpid-loop child per CPU of `list` ("0,1"),
/// each pinned to its CPU by taskset, `n` calls each.
fn fan_out(list: &str, n: &str) {
    let me = std::env::current_exe().expect("current_exe");
    let children: Vec<Child> = list
        .split(',')
        .filter(|c| !c.is_empty())
        .filter_map(|c| {
            Command::new("taskset")
                .args(["-c", c])
                .arg(&me)
                .args([LOOP_ARG, n])
                .spawn()
                .ok()
        })
        .collect();
    for mut c in children {
        let _ = c.wait();
    }
}

/// Times N getpid calls made by a child pinned to each CPU of `cpus`
/// at once, each timing itself (no spawn cost, no migration noise); the
/// mean of their times.
fn time_loop_on(n: u64, cpus: &[u32]) -> Duration {
    let me = std::env::current_exe().expect("current_exe");
    let children: Vec<Child> = cpus
        .iter()
        .filter_map(|cpu| {
            Command::new("taskset")
                .args(["-c", &cpu.to_string()])
                .arg(&me)
                .args([LOOP_ARG, &n.to_string(), "--report"])
                .stdout(Stdio::piped())
                .spawn()
                .ok()
        })
        .collect();
    let times: Vec<u64> = children
        .into_iter()
        .filter_map(|c| c.wait_with_output().ok())
        .filter_map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .trim()
                .parse::<u64>()
                .ok()
        })
        .collect();
    if times.len() == cpus.len() && !times.is_empty() {
        Duration::from_nanos(times.iter().sum::<u64>() / times.len() as u64)
    } else {
        // No taskset: time the calls here.
        let t = Instant::now();
        getpid_loop(n);
        t.elapsed()
    }
}

/// The CPU counts the multi-CPU figures are taken at: 1, doubling, and
/// every online CPU; each set the last CPUs (the first ones busier with
/// the bench and the tracers' consumers).
fn cpu_sets() -> Vec<Vec<u32>> {
    let cpus = dtrace_sys::cpus::online_cpus().unwrap_or_else(|_| vec![0]);
    let mut sizes = Vec::new();
    let mut n = 1;
    while n < cpus.len() {
        sizes.push(n);
        n *= 2;
    }
    sizes.push(cpus.len());
    sizes
        .into_iter()
        .map(|k| cpus[cpus.len() - k..].to_vec())
        .collect()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    if v.is_empty() {
        f64::NAN
    } else {
        v[v.len() / 2]
    }
}

fn signal(child: &Child, sig: &str) {
    let _ = Command::new("kill")
        .arg(format!("-{}", sig))
        .arg(child.id().to_string())
        .status();
}

/// Our programs currently loaded (named dt_*).
fn dt_programs() -> usize {
    dtrace_sys::bpf::list_programs()
        .map(|v| v.iter().filter(|p| p.name.starts_with("dt_")).count())
        .unwrap_or(0)
}

/// Starts a dtrace and returns once its programs are loaded and attached.
fn start_dtrace(cfg: &Config, args: &[&str]) -> Running {
    let before = dt_programs();
    let child = Command::new(&cfg.dtrace)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn dtrace");
    let t = Instant::now();
    while dt_programs() <= before && t.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(10));
    }
    // Attachment follows loading within microseconds; leave a margin.
    std::thread::sleep(Duration::from_millis(300));
    Running { child, out: None }
}

/// A running tracer; bpftrace's standard output is read by a thread
/// from the start (its first line says when it attaches).
struct Running {
    child: Child,
    out: Option<std::sync::mpsc::Receiver<String>>,
}

/// Starts bpftrace and returns once it has announced its probes.
fn start_bpftrace(b: &PathBuf, args: &[&str]) -> Running {
    let mut child = Command::new(b)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn bpftrace");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    let _ = out.read_line(&mut line);
    // "Attaching N probes..." comes just before attachment.
    std::thread::sleep(Duration::from_millis(1000));
    // Keep the rest of the output for the caller.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = out.read_to_string(&mut rest);
        let _ = tx.send(rest);
    });
    Running {
        child,
        out: Some(rx),
    }
}

/// Interrupts a tracer as Ctrl-C would and collects what it printed.
fn finish(r: Running) -> (String, String) {
    let Running { mut child, out: rx } = r;
    signal(&child, "INT");
    let mut out = String::new();
    let mut err = String::new();
    if let Some(mut o) = child.stdout.take() {
        let _ = o.read_to_string(&mut out);
    } else if let Some(rx) = rx {
        out = rx.recv_timeout(Duration::from_secs(60)).unwrap_or_default();
    }
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let _ = child.wait();
    (out, err)
}

/// The count in an aggregation row for our own process name.
fn count_for(out: &str, comm: &str) -> u64 {
    out.lines()
        .filter(|l| l.contains(comm))
        .filter_map(|l| {
            l.split_whitespace()
                .last()
                .and_then(|n| n.parse::<u64>().ok())
        })
        .sum()
}

fn comm() -> String {
    std::fs::read_to_string("/proc/self/comm")
        .unwrap_or_default()
        .trim()
        .to_string()
}

fn probe_effect(cfg: &Config) {
    for cpus in cpu_sets() {
        probe_effect_on(cfg, &cpus);
    }
}

/// The probe effect with a getpid loop pinned to each CPU of `cpus` at
/// once: each tracer must count every call of every loop.
fn probe_effect_on(cfg: &Config, cpus: &[u32]) {
    println!(
        "== probe effect: {} getpid calls on each of {} CPU{} ({})",
        cfg.calls,
        cpus.len(),
        if cpus.len() == 1 { "" } else { "s" },
        cpus.iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",")
    );
    let n = cfg.calls;
    let all = n * cpus.len() as u64;
    let time_loop = |n| time_loop_on(n, cpus);
    let me = comm();
    let (mut none, mut fl, mut dt, mut bt) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 0..cfg.rounds {
        none.push(time_loop(n).as_nanos() as f64 / n as f64);

        match floor::Floor::attach() {
            Ok(f) => {
                let t = time_loop(n).as_nanos() as f64 / n as f64;
                let c = f.count(&me);
                if c < all {
                    println!("  round {}: floor counted {} of {}", round, c, all);
                }
                fl.push(t);
            }
            Err(e) => println!("  floor: {}", e),
        }

        let child = start_dtrace(
            cfg,
            &[
                "-q",
                "-n",
                "syscall::getpid:entry { @[execname] = count(); }",
            ],
        );
        let t = time_loop(n).as_nanos() as f64 / n as f64;
        let (out, err) = finish(child);
        let c = count_for(&out, &me);
        if c < all {
            println!(
                "  round {}: dtrace counted {} of {} ({})",
                round,
                c,
                all,
                err.trim()
            );
        }
        dt.push(t);

        if let Some(b) = &cfg.bpftrace {
            let child = start_bpftrace(
                b,
                &[
                    "-e",
                    "tracepoint:syscalls:sys_enter_getpid { @[comm] = count(); }",
                ],
            );
            let t = time_loop(n).as_nanos() as f64 / n as f64;
            let (out, _) = finish(child);
            let c = count_for(&out, &me);
            if c < all {
                println!("  round {}: bpftrace counted {} of {}", round, c, all);
            }
            bt.push(t);
        }
    }
    let base = median(&mut none);
    let f = median(&mut fl);
    let d = median(&mut dt);
    println!("  {:<28} {:>8.1} ns/call", "nothing attached", base);
    println!(
        "  {:<28} {:>8.1} ns/call  (+{:.1})",
        "hand-written BPF (floor)",
        f,
        f - base
    );
    println!("  {:<28} {:>8.1} ns/call  (+{:.1})", "dtrace", d, d - base);
    let b = if cfg.bpftrace.is_some() {
        Some(median(&mut bt))
    } else {
        None
    };
    if let Some(b) = b {
        println!(
            "  {:<28} {:>8.1} ns/call  (+{:.1})",
            "bpftrace",
            b,
            b - base
        );
    }
    println!(
        "  dtrace added cost / floor added cost     = {:.2}x",
        (d - base) / (f - base)
    );
    if let Some(b) = b {
        println!(
            "  bpftrace added cost / floor added cost   = {:.2}x",
            (b - base) / (f - base)
        );
        println!(
            "  dtrace added cost / bpftrace added cost  = {:.2}x",
            (d - base) / (b - base)
        );
    }
    println!();
}

/// Spawns `cmd`, makes getpid calls until it exits, returns the time
/// from spawn to exit.
fn time_to_exit(mut cmd: Command, limit: Duration) -> Option<Duration> {
    let t = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    loop {
        std::hint::black_box(std::process::id());
        if let Ok(Some(_)) = child.try_wait() {
            return Some(t.elapsed());
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_micros(500));
    }
}

fn report_startup(name: &str, d: &mut [f64], b: &mut [f64]) {
    let dm = median(d);
    print!("  {:<28} dtrace {:>8.1} ms", name, dm);
    if !b.is_empty() {
        let bm = median(b);
        print!(
            "   bpftrace {:>8.1} ms   dtrace/bpftrace = {:.3}x",
            bm,
            dm / bm
        );
    }
    println!();
}

fn startup(cfg: &Config) {
    println!("== start-up to exit, one probe (fired by the bench's getpid calls, or by any context switch)");
    // (label, dtrace's program, bpftrace's)
    let cases = [
        (
            "syscall::getpid:entry",
            "syscall::getpid:entry { exit(0); }",
            "tracepoint:syscalls:sys_enter_getpid { exit(); }",
        ),
        (
            "sched:::on-cpu",
            "sched:::on-cpu { exit(0); }",
            "tracepoint:sched:sched_switch { exit(); }",
        ),
    ];
    for (label, dprog, bprog) in cases {
        let (mut d, mut b) = (Vec::new(), Vec::new());
        for _ in 0..cfg.rounds {
            let mut c = Command::new(&cfg.dtrace);
            c.args(["-q", "-n", dprog]);
            if let Some(t) = time_to_exit(c, Duration::from_secs(60)) {
                d.push(t.as_secs_f64() * 1e3);
            }
            if let Some(bp) = &cfg.bpftrace {
                let mut c = Command::new(bp);
                c.args(["-e", bprog]);
                if let Some(t) = time_to_exit(c, Duration::from_secs(60)) {
                    b.push(t.as_secs_f64() * 1e3);
                }
            }
        }
        report_startup(label, &mut d, &mut b);
    }
    println!();
}

fn wide(cfg: &Config) {
    println!("== start-up to exit, every syscall entry probe enabled");
    let (mut d, mut b) = (Vec::new(), Vec::new());
    for _ in 0..cfg.rounds {
        let mut c = Command::new(&cfg.dtrace);
        c.args(["-q", "-n", "syscall:::entry { exit(0); }"]);
        if let Some(t) = time_to_exit(c, Duration::from_secs(120)) {
            d.push(t.as_secs_f64() * 1e3);
        }
    }
    // bpftrace takes tens of seconds here: one round.
    if let Some(bp) = &cfg.bpftrace {
        let mut c = Command::new(bp);
        c.args(["-e", "tracepoint:syscalls:sys_enter_* { exit(); }"]);
        match time_to_exit(c, Duration::from_secs(300)) {
            Some(t) => b.push(t.as_secs_f64() * 1e3),
            None => println!("  bpftrace did not finish within 300 s"),
        }
    }
    report_startup("syscall:::entry", &mut d, &mut b);
    println!();
}

struct Stream {
    lines: u64,
    drops: u64,
    secs: f64,
}

fn stream(mut cmd: Command, drop_words: &[&str]) -> Option<Stream> {
    let t = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let out = child.stdout.take()?;
    let mut err = child.stderr.take()?;
    let counter = std::thread::spawn(move || {
        let mut r = BufReader::with_capacity(1 << 20, out);
        let mut n = 0u64;
        let mut buf = Vec::with_capacity(64);
        loop {
            buf.clear();
            match r.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    // "<pid> <timestamp>" lines only.
                    let mut w = buf.split(|&c| c == b' ');
                    if w.next()
                        .is_some_and(|p| !p.is_empty() && p.iter().all(u8::is_ascii_digit))
                        && w.next().is_some()
                    {
                        n += 1;
                    }
                }
            }
        }
        n
    });
    let mut e = String::new();
    let _ = err.read_to_string(&mut e);
    let _ = child.wait();
    let secs = t.elapsed().as_secs_f64();
    let lines = counter.join().unwrap_or(0);
    let drops = e
        .lines()
        .filter(|l| drop_words.iter().any(|w| l.contains(w)))
        .filter_map(|l| l.split_whitespace().find_map(|w| w.parse::<u64>().ok()))
        .sum();
    Some(Stream { lines, drops, secs })
}

fn printf_stream(cfg: &Config) {
    let all = dtrace_sys::cpus::online_cpus().map_or(1, |c| c.len());
    for cpus in cpu_sets() {
        let what = match cpus.len() {
            1 => "one CPU".to_string(),
            n if n == all => "every CPU".to_string(),
            n => format!("{} CPUs", n),
        };
        printf_stream_on(cfg, &cpus, &what);
    }
}

/// The printf stream with one getpid-loop process pinned to each of
/// `cpus`, all children of the `-c` command (the bench itself in its
/// fan-out mode), `cfg.calls` events each. Each tracer's lines, reported
/// drops and the rest (unaccounted: lost silently) are counted.
fn printf_stream_on(cfg: &Config, cpus: &[u32], what: &str) {
    let made = cfg.calls * cpus.len() as u64;
    println!(
        "== printf stream, load on {}: {} getpid events from {} process{} pinned to CPU{} {}",
        what,
        made,
        cpus.len(),
        if cpus.len() == 1 { "" } else { "es" },
        if cpus.len() == 1 { "" } else { "s" },
        cpus.iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",")
    );
    let me = std::env::current_exe().expect("current_exe");
    let list = cpus
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let target = format!("{} {} {} {}", me.display(), FANOUT_ARG, list, cfg.calls);
    let d_prog =
        "syscall::getpid:entry /ppid == $target/ { printf(\"%d %d\\n\", pid, timestamp); }";
    let run_dtrace = |bin: &PathBuf| {
        let mut v = Vec::new();
        for _ in 0..cfg.rounds {
            let mut c = Command::new(bin);
            c.args(["-q", "-n", d_prog, "-c", &target]);
            v.extend(stream(c, &["drop"]));
        }
        median_stream(v)
    };
    let d = run_dtrace(&cfg.dtrace);
    let base = cfg.baseline.as_ref().and_then(run_dtrace);
    let b = cfg.bpftrace.as_ref().and_then(|bp| {
        let mut v = Vec::new();
        for _ in 0..cfg.rounds {
            let mut c = Command::new(bp);
            c.args([
                "-e",
                "tracepoint:syscalls:sys_enter_getpid /curtask->real_parent->tgid == cpid/ { printf(\"%d %d\\n\", pid, nsecs); }",
                "-c",
                &target,
            ]);
            v.extend(stream(c, &["Lost"]));
        }
        median_stream(v)
    });
    for (name, s) in [("dtrace", &d), ("baseline", &base), ("bpftrace", &b)] {
        if let Some(s) = s {
            println!(
                "  {:<10} {:>9} lines, {:>9} reported dropped, {:>9} unaccounted, {:>7.2} s, {:>6.2} M lines/s, {:>5.1}% lost",
                name,
                s.lines,
                s.drops,
                made.saturating_sub(s.lines + s.drops),
                s.secs,
                s.lines as f64 / s.secs / 1e6,
                100.0 * made.saturating_sub(s.lines) as f64 / made as f64
            );
        }
    }
    if let Some(d) = &d {
        let rate = |s: &Stream| s.lines as f64 / s.secs;
        if let Some(x) = &base {
            println!(
                "  dtrace / baseline: {:.3}x the lines per second, {:.3}x the lines delivered",
                rate(d) / rate(x),
                d.lines as f64 / x.lines.max(1) as f64
            );
        }
        if let Some(b) = &b {
            println!(
                "  dtrace / bpftrace: {:.3}x the lines per second, {:.3}x the lines delivered",
                rate(d) / rate(b),
                d.lines as f64 / b.lines.max(1) as f64
            );
        }
    }
    println!();
}

/// The round with the median wall time.
fn median_stream(mut v: Vec<Stream>) -> Option<Stream> {
    v.sort_by(|a, b| {
        a.secs
            .partial_cmp(&b.secs)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mid = v.len() / 2;
    if v.is_empty() {
        None
    } else {
        Some(v.swap_remove(mid))
    }
}

/// Keys of the aggregation snapshot figure.
const SNAP_KEYS: u64 = 50_000;

/// The aggregation snapshot: a getpid loop on each CPU of a set fills
/// an aggregation of SNAP_KEYS keys (every key on every CPU); END
/// prints the wall-clock time, then dtrace reads every CPU's values,
/// merges, sorts and prints the rows and exits. The figure is END to
/// exit, and every count must be there.
fn agg_snapshot(cfg: &Config) {
    println!(
        "== aggregation snapshot: {} keys, each on every loaded CPU; END to exit",
        SNAP_KEYS
    );
    let me = std::env::current_exe().expect("current_exe");
    let prog = format!(
        "syscall::getpid:entry /ppid == $target/ {{ self->i = self->i + 1; @[self->i % {}] = count(); }} END {{ printf(\"end %d\\n\", walltimestamp); }}",
        SNAP_KEYS
    );
    for cpus in cpu_sets() {
        let list = cpus
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let target = format!("{} {} {} {}", me.display(), FANOUT_ARG, list, cfg.calls);
        let mut times = Vec::new();
        let mut short = None;
        for _ in 0..cfg.rounds {
            let Ok(o) = Command::new(&cfg.dtrace)
                .args(["-q", "-n", &prog, "-c", &target])
                .stdin(Stdio::null())
                .output()
            else {
                continue;
            };
            let done = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as i128)
                .unwrap_or(0);
            let out = String::from_utf8_lossy(&o.stdout);
            let end = out
                .lines()
                .find_map(|l| l.strip_prefix("end ")?.trim().parse::<i128>().ok());
            let (mut rows, mut total) = (0u64, 0u64);
            for l in out.lines().filter(|l| !l.starts_with("end ")) {
                let mut w = l.split_whitespace();
                if let (Some(_), Some(c), None) = (w.next(), w.next(), w.next()) {
                    if let Ok(c) = c.parse::<u64>() {
                        rows += 1;
                        total += c;
                    }
                }
            }
            let made = cfg.calls * cpus.len() as u64;
            if rows != SNAP_KEYS || total != made {
                short = Some(format!(
                    "{} rows of {}, {} counted of {} ({})",
                    rows,
                    SNAP_KEYS,
                    total,
                    made,
                    String::from_utf8_lossy(&o.stderr).trim()
                ));
            }
            if let Some(e) = end {
                times.push((done - e) as f64 / 1e6);
            }
        }
        println!(
            "  {} CPU{:<2} dtrace {:>8.1} ms{}",
            cpus.len(),
            if cpus.len() == 1 { "" } else { "s" },
            median(&mut times),
            short
                .map(|s| format!("  (short: {})", s))
                .unwrap_or_default()
        );
    }
    println!();
}
