//! The probe-effect benchmark: our dtrace side by side with the same work
//! under bpftrace and with a hand-written BPF program (the floor), in one
//! run, reported as ratios.
//!
//! 1. Probe effect: N raw getpid(2) calls with nothing attached, then
//!    under each common clause shape (`shapes()`: counts keyed by
//!    execname, pid and probefunc, a sum, predicates on pid and execname,
//!    a printf of integers) with dtrace, with a hand-written floor doing
//!    the same work (`floor.rs`), and with bpftrace's equivalent. Each
//!    tracer's count is checked afterwards, so a tracer that missed calls
//!    cannot look cheap. The load runs on 1, 2, 4 ... and every CPU.
//! 2. Start-up to exit of a one-probe script (the probe fires on the
//!    bench's own getpid calls), beside bpftrace's and, for the syscall
//!    probe, a floor: a process that attaches a hand-written program to
//!    `sys_enter`, waits for its first getpid call, detaches and exits.
//! 3. Start-up to exit of a script enabling every syscall entry probe.
//! 4. A printf stream of N getpid events from a process pinned to one
//!    CPU, then from a process pinned to each CPU at once (N each):
//!    lines delivered, drops reported, lines lost silently, wall time,
//!    beside bpftrace and, with `--baseline PATH`, another dtrace build
//!    (the one before per-CPU buffers, for instance).
//! 5. The aggregation snapshot: 50,000 keys counted on each loaded CPU,
//!    timed from END to exit, beside bpftrace's (its map made big
//!    enough), every count checked.
//!    5b. Big aggregations (`scale`): 10,000, 100,000 and 1,000,000 keys
//!    (N getpid calls on CPU 0, each a new key), printed at exit: END to
//!    exit, the tracer's peak resident memory (`wait4`), and the memory
//!    a key adds, beside bpftrace, every row and count checked.
//! 6. The USDT probe effect: N firings of this program's own static
//!    probe (declared with `dtrace-usdt`), untraced, under a hand-written
//!    floor (a count on one uprobe_multi link with the probe's semaphore
//!    raised), under dtrace and under bpftrace, each `@ = count()`, every
//!    count checked.
//! 7. `ustack()`: N/10 getpid calls on CPU 0 from this program (Rust,
//!    built without frame pointers), each `@[ustack()] = count()`, under
//!    dtrace (a copy of the stack, unwound by the consumer with the
//!    objects' CFI), under bpftrace (`@[ustack]`, the kernel's frame
//!    pointer walk), under perf's DWARF mode (`perf record --call-graph
//!    dwarf`, the same copy unwound afterwards) and under the floor (an
//!    empty program that counts): ns/call added, the ratio to the floor,
//!    the share of stacks that reach `main`, and dtrace's consumer rate
//!    (stacks unwound a second of its CPU time).
//!
//! Usage: `bench/run.sh [--calls N] [--rounds R] [--no-wide]
//! [--baseline PATH] [--only probe-effect|startup|wide|stream|snapshot|scale|usdt|ustack]
//! [--shape TEXT]` (`--shape` keeps the probe-effect shapes whose label
//! contains TEXT).

#![forbid(unsafe_code)]

mod floor;

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const LOOP_ARG: &str = "--getpid-loop";
/// `--peak-rss CMD ARGS...`: runs CMD (its output this process's), waits
/// for it, and says on stderr its peak resident memory and when it
/// ended (`PEAK_LINE KiB wall-ns monotonic-ns`). A process started
/// straight from the bench would count the bench's own peak as its own:
/// the kernel keeps the high-water mark of the memory image an exec
/// replaces, here a copy of the bench's; this small process stands
/// between them.
const PEAK_ARG: &str = "--peak-rss";
const PEAK_LINE: &str = "dtrace-bench-peak";
/// `--usdt-loop N`: fires `benchusdt:::tick` N times, then prints the
/// nanoseconds that took.
const USDT_LOOP_ARG: &str = "--usdt-loop";

dtrace_usdt::provider! {
    /// The benchmark's own static probe.
    provider benchusdt {
        probe tick(i: u64);
    }
}
/// `--fan-out CPUS N`: a getpid-loop child pinned to each CPU of the
/// list, N calls each; waits for them all.
const FANOUT_ARG: &str = "--fan-out";
/// `--floor-start`: the start-up floor, a process that attaches a
/// hand-written program to `sys_enter` (counting getpid calls), waits for
/// the first, detaches and exits.
const FLOOR_START_ARG: &str = "--floor-start";

struct Config {
    calls: u64,
    rounds: usize,
    wide: bool,
    dtrace: PathBuf,
    bpftrace: Option<PathBuf>,
    /// A second dtrace (an older build) run beside ours in the printf
    /// stream.
    baseline: Option<PathBuf>,
    /// `--only PART`: run one part (probe-effect, startup, wide, stream,
    /// snapshot).
    only: Option<String>,
    /// `--shape TEXT`: the probe effect of the clause shapes whose label
    /// contains TEXT only.
    shape: Option<String>,
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
    if args.first().map(String::as_str) == Some(PEAK_ARG) {
        let Some((prog, rest)) = args[1..].split_first() else {
            std::process::exit(2);
        };
        let Ok(child) = Command::new(prog).args(rest).spawn() else {
            std::process::exit(127);
        };
        let code = match dtrace_sys::process::wait_peak_rss(child.id()) {
            Ok((status, peak)) => {
                eprintln!(
                    "{} {} {} {}",
                    PEAK_LINE,
                    peak,
                    Clock::Wall.now_ns(),
                    Clock::Monotonic.now_ns()
                );
                if status & 0x7f == 0 {
                    (status >> 8) & 0xff
                } else {
                    128 + (status & 0x7f)
                }
            }
            Err(_) => 1,
        };
        std::process::exit(code);
    }
    if args.first().map(String::as_str) == Some(USDT_LOOP_ARG) {
        let n: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let t = Instant::now();
        for i in 0..n {
            benchusdt::tick(std::hint::black_box(i));
        }
        println!("{}", t.elapsed().as_nanos());
        return;
    }
    if args.first().map(String::as_str) == Some(FLOOR_START_ARG) {
        match floor::Floor::attach(floor::Kind::PredPid) {
            Ok(f) => {
                while f.fired() == 0 {
                    std::thread::sleep(Duration::from_micros(100));
                }
            }
            Err(e) => {
                eprintln!("dtrace-bench: the start-up floor cannot attach: {}", e);
                std::process::exit(1);
            }
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
        only: None,
        shape: None,
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
            "--only" => cfg.only = it.next().cloned(),
            "--shape" => cfg.shape = it.next().cloned(),
            other => {
                eprintln!("dtrace-bench: unknown argument {}", other);
                eprintln!("usage: dtrace-bench [--calls N] [--rounds R] [--no-wide] [--no-bpftrace] [--dtrace PATH] [--baseline PATH] [--only probe-effect|startup|wide|stream|snapshot|scale|usdt|ustack] [--shape TEXT]");
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
    let run = |part: &str| cfg.only.as_deref().is_none_or(|o| o == part);
    if run("probe-effect") {
        probe_effect(&cfg);
    }
    if run("startup") {
        startup(&cfg);
    }
    if cfg.wide && run("wide") {
        wide(&cfg);
    }
    if run("stream") {
        printf_stream(&cfg);
    }
    if run("snapshot") {
        agg_snapshot(&cfg);
    }
    if run("scale") {
        scale(&cfg);
    }
    if run("usdt") {
        usdt_effect(&cfg);
    }
    if run("ustack") {
        ustack_effect(&cfg);
    }
}

/// A process's CPU time so far (user and system), from /proc.
fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid)).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime: fields 14 and 15, 11 and 12 after the name.
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// The process's CPU time once it has stopped growing (the consumer has
/// caught up with what the loop made).
fn settled_cpu_time(pid: u32) -> Option<Duration> {
    let mut last = cpu_time(pid)?;
    for _ in 0..100 {
        std::thread::sleep(Duration::from_millis(200));
        let now = cpu_time(pid)?;
        if now == last {
            return Some(now);
        }
        last = now;
    }
    Some(last)
}

/// The stacks counted in a tracer's aggregation of stacks, and those of
/// them whose frames reach `main` (or `_start`): dtrace's rows end in a
/// line that is a number, bpftrace's in `]: N`.
fn stack_rows(out: &str) -> (u64, u64) {
    let (mut all, mut main) = (0, 0);
    let mut reached = false;
    for l in out.lines().map(str::trim) {
        let n = l.strip_prefix("]: ").unwrap_or(l).parse::<u64>().ok();
        match n {
            Some(n) => {
                all += n;
                if reached {
                    main += n;
                }
                reached = false;
            }
            // `main` itself (a Rust program's `dtrace_bench::main` is
            // not it), or `_start`; bpftrace writes `main+44`.
            None => {
                let f = l.rsplit('`').next().unwrap_or(l);
                reached |= f == "main"
                    || f.starts_with("main+")
                    || f.starts_with("_start")
                    || l.starts_with("main+")
                    || l.starts_with("_start")
            }
        }
    }
    (all, main)
}

/// The probe effect of `ustack()` and the consumer's unwinding rate
/// (part 7), the loop on CPU 0 and the tracers on the others.
fn ustack_effect(cfg: &Config) {
    let n = (cfg.calls / 10).max(1000);
    println!(
        "== ustack(): {} getpid calls on CPU 0, `@[ustack()] = count()`, ns/call added to the untraced call",
        n
    );
    let online = dtrace_sys::cpus::online_cpus().unwrap_or_default();
    let others = cpu_list(
        &online
            .iter()
            .copied()
            .filter(|&c| c != 0)
            .collect::<Vec<_>>(),
    );
    let pin = (!others.is_empty()).then_some(others.as_str());
    if let Some(list) = pin {
        pin_self(list);
    }
    let perf = which("perf");
    let time = || time_loop_on(n, &[0]).as_nanos() as f64 / n as f64;
    let d = "syscall::getpid:entry /execname == \"dtrace-bench\"/ { @[ustack()] = count(); }";
    let b =
        "tracepoint:syscalls:sys_enter_getpid /comm == \"dtrace-bench\"/ { @[ustack] = count(); }";
    let (mut floor, mut dt, mut bt, mut pf) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut dt_r, mut bt_r, mut pf_r) = (Vec::new(), Vec::new(), Vec::new());
    let (mut rate, mut dt_main, mut bt_main) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..cfg.rounds {
        let none = time();
        let f = floor::Floor::attach(floor::Kind::PredPid).ok().map(|f| {
            let t = time();
            drop(f);
            t - none
        });
        let r = start_dtrace(cfg, &["-q", "-n", d], pin);
        let t = time();
        let before = settled_cpu_time(r.child.id());
        let (out, err) = finish(r);
        let (all, main) = stack_rows(&out);
        let drops = reported_drops(&err);
        let dtrace = if all + drops >= n {
            if let Some(cpu) = before.filter(|c| !c.is_zero()) {
                rate.push(all as f64 / cpu.as_secs_f64());
            }
            dt_main.push(100.0 * main as f64 / all.max(1) as f64);
            if drops > 0 {
                println!("  round {}: dtrace: {} drops", round + 1, drops);
            }
            Some(t - none)
        } else {
            println!(
                "  round {}: dtrace counted {} of {} ({})",
                round + 1,
                all,
                n,
                err.trim()
            );
            None
        };
        let bpftrace = cfg.bpftrace.as_ref().and_then(|bin| {
            let r = start_bpftrace(bin, &["-e", b], pin);
            let t = time();
            let (out, _) = finish(r);
            let (all, main) = stack_rows(&out);
            bt_main.push(100.0 * main as f64 / all.max(1) as f64);
            (all >= n).then_some(t - none)
        });
        let perf_dwarf = perf.as_ref().and_then(|bin| {
            let data =
                std::env::temp_dir().join(format!("dtrace-bench-perf-{}.data", std::process::id()));
            let child = pinned(bin, pin)
                .args([
                    "record",
                    "-q",
                    "-a",
                    "-e",
                    "syscalls:sys_enter_getpid",
                    "--call-graph",
                    "dwarf",
                    "-o",
                ])
                .arg(&data)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .ok()?;
            std::thread::sleep(Duration::from_millis(1500));
            let t = time();
            signal(&child, "INT");
            child.wait_with_output().ok()?;
            // (perf's exit status after SIGINT says nothing: its data
            // file does.)
            let ok = std::fs::metadata(&data).is_ok_and(|m| m.len() > 0);
            let _ = std::fs::remove_file(&data);
            ok.then_some(t - none)
        });
        if let Some(f) = f {
            floor.push(f);
            for (v, acc, ratio) in [
                (dtrace, &mut dt, &mut dt_r),
                (bpftrace, &mut bt, &mut bt_r),
                (perf_dwarf, &mut pf, &mut pf_r),
            ] {
                if let Some(v) = v {
                    acc.push(v);
                    ratio.push(v / f);
                }
            }
        }
    }
    println!(
        "{:<28} {:>12} {:>12} {:>14}",
        "tracer", "ns/call", "x floor", "reach main"
    );
    println!(
        "{:<28} {:>+12.1} {:>12} {:>14}",
        "floor (empty program)",
        median(&mut floor),
        "1.00x",
        "-"
    );
    println!(
        "{:<28} {:>+12.1} {:>11.2}x {:>13.1}%",
        "dtrace @[ustack()]",
        median(&mut dt),
        median(&mut dt_r),
        median(&mut dt_main)
    );
    if cfg.bpftrace.is_some() {
        println!(
            "{:<28} {:>+12.1} {:>11.2}x {:>13.1}%",
            "bpftrace @[ustack]",
            median(&mut bt),
            median(&mut bt_r),
            median(&mut bt_main)
        );
    }
    if perf.is_some() {
        println!(
            "{:<28} {:>+12.1} {:>11.2}x {:>14}",
            "perf record --call-graph dwarf",
            median(&mut pf),
            median(&mut pf_r),
            "-"
        );
    }
    println!(
        "dtrace's consumer: {:.0} stacks unwound a CPU second",
        median(&mut rate)
    );
    println!();
}

/// The firings counted in a tracer's output (`count N`, bpftrace's
/// `@: N`) and the loop's nanoseconds (a line that is one number).
fn usdt_output(out: &str) -> (Option<u64>, Option<u64>) {
    let mut count = None;
    let mut ns = None;
    for l in out.lines().map(str::trim) {
        if let Some(c) = l.strip_prefix("count ").or_else(|| l.strip_prefix("@: ")) {
            count = c.trim().parse().ok();
        } else if let Ok(v) = l.parse::<u64>() {
            ns = Some(v);
        }
    }
    (count, ns)
}

/// The USDT probe effect (part 6), on CPU 0.
fn usdt_effect(cfg: &Config) {
    let me = std::env::current_exe().expect("current_exe");
    let places = dtrace_providers::usdt_places(&me, "benchusdt", "tick");
    let n = cfg.calls;
    println!(
        "== USDT probe effect: {} firings of benchusdt:::tick (a Rust program's probe, dtrace-usdt) on CPU 0, `@ = count()`, ns/firing added to the untraced one",
        n
    );
    if places.is_empty() {
        println!("(the bench has no benchusdt:::tick note: skipped)\n");
        return;
    }
    let loop_cmd = format!("{} {} {}", me.display(), USDT_LOOP_ARG, n);
    let run_loop = || -> Option<u64> {
        let o = pinned(&me, Some("0"))
            .args([USDT_LOOP_ARG, &n.to_string()])
            .stderr(Stdio::null())
            .output()
            .ok()?;
        usdt_output(&String::from_utf8_lossy(&o.stdout)).1
    };
    let (mut dt_r, mut bt_r) = (Vec::new(), Vec::new());
    let (mut floor_ns, mut dt_ns, mut bt_ns) = (Vec::new(), Vec::new(), Vec::new());
    let mut untraced = Vec::new();
    for round in 0..cfg.rounds {
        let Some(none) = run_loop() else {
            println!("round {}: the untraced loop failed", round + 1);
            continue;
        };
        let per = |ns: u64| (ns as f64 - none as f64) / n as f64;
        untraced.push(none as f64 / n as f64);
        let floor = floor::Floor::attach_usdt(&me, &places).ok().and_then(|f| {
            let ns = run_loop()?;
            let fired = f.fired();
            (fired == n).then_some(ns).or_else(|| {
                println!("round {}: the floor counted {} of {}", round + 1, fired, n);
                None
            })
        });
        let dtrace = {
            let o = pinned(&cfg.dtrace, Some("0"))
                .args([
                    "-q",
                    "-n",
                    "benchusdt$target:::tick { @ = count(); } END { printa(\"count %@d\\n\", @); }",
                    "-c",
                    &loop_cmd,
                ])
                .stderr(Stdio::null())
                .output();
            o.ok()
                .and_then(|o| match usdt_output(&String::from_utf8_lossy(&o.stdout)) {
                    (Some(c), Some(ns)) if c == n => Some(ns),
                    (c, _) => {
                        println!("round {}: dtrace counted {:?} of {}", round + 1, c, n);
                        None
                    }
                })
        };
        let bpftrace = cfg.bpftrace.as_ref().and_then(|b| {
            let prog = format!("usdt:{}:benchusdt:tick {{ @ = count(); }}", me.display());
            let o = pinned(b, Some("0"))
                .args(["-e", &prog, "-c", &loop_cmd])
                .stderr(Stdio::null())
                .output()
                .ok()?;
            match usdt_output(&String::from_utf8_lossy(&o.stdout)) {
                (Some(c), Some(ns)) if c == n => Some(ns),
                (c, _) => {
                    println!("round {}: bpftrace counted {:?} of {}", round + 1, c, n);
                    None
                }
            }
        });
        if let Some(f) = floor {
            floor_ns.push(per(f));
            if let Some(d) = dtrace {
                dt_r.push(per(d) / per(f));
            }
            if let Some(b) = bpftrace {
                bt_r.push(per(b) / per(f));
            }
        }
        if let Some(d) = dtrace {
            dt_ns.push(per(d));
        }
        if let Some(b) = bpftrace {
            bt_ns.push(per(b));
        }
    }
    println!(
        "{:<24} {:>10} {:>10} {:>10} {:>14} {:>16}",
        "clause", "floor", "dtrace", "bpftrace", "dtrace/floor", "bpftrace/floor"
    );
    println!(
        "{:<24} {:>+10.1} {:>+10.1} {:>+10.1} {:>13.2}x {:>15.2}x",
        "@ = count()",
        median(&mut floor_ns),
        median(&mut dt_ns),
        median(&mut bt_ns),
        median(&mut dt_r),
        median(&mut bt_r)
    );
    println!("(untraced: {:.1} ns/firing)", median(&mut untraced));
    println!();
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
fn start_dtrace(cfg: &Config, args: &[&str], pin: Option<&str>) -> Running {
    let before = dt_programs();
    let mut child = pinned(&cfg.dtrace, pin)
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
    let out = child.stdout.take().map(drain_output);
    Running { child, out }
}

/// A command for `prog`, run by taskset on the CPUs of `pin` if given.
fn pinned(prog: &PathBuf, pin: Option<&str>) -> Command {
    match pin {
        Some(list) if which("taskset").is_some() => {
            let mut c = Command::new("taskset");
            c.args(["-c", list]).arg(prog);
            c
        }
        _ => Command::new(prog),
    }
}

/// Moves every thread of this process (and so the threads it makes
/// later, such as a floor's drain) to the CPUs of `list`.
fn pin_self(list: &str) {
    let _ = Command::new("taskset")
        .args(["-a", "-p", "-c", list, &std::process::id().to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

fn cpu_list(cpus: &[u32]) -> String {
    cpus.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// A running tracer; bpftrace's standard output is read by a thread
/// from the start (its first line says when it attaches).
struct Running {
    child: Child,
    out: Option<std::sync::mpsc::Receiver<String>>,
}

/// Starts bpftrace and returns once it has announced its probes.
fn start_bpftrace(b: &PathBuf, args: &[&str], pin: Option<&str>) -> Running {
    let mut child = pinned(b, pin)
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
    Running {
        child,
        out: Some(drain_output(out)),
    }
}

/// Reads a tracer's output on a thread from now on (so a printing tracer
/// never blocks on a full pipe) and hands it over at the end.
fn drain_output(mut out: impl Read + Send + 'static) -> std::sync::mpsc::Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = out.read_to_string(&mut rest);
        let _ = tx.send(rest);
    });
    rx
}

/// Interrupts a tracer as Ctrl-C would and collects what it printed.
fn finish(r: Running) -> (String, String) {
    let Running { mut child, out: rx } = r;
    let err_rx = child.stderr.take().map(drain_output);
    signal(&child, "INT");
    // A tracer that has not yet set up its handler when the signal comes
    // (bpftrace, still attaching) is asked again; one that never stops is
    // killed, and says so.
    let t = Instant::now();
    let mut asked = Instant::now();
    let mut killed = false;
    while matches!(child.try_wait(), Ok(None)) {
        if t.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            killed = true;
            break;
        }
        if asked.elapsed() > Duration::from_secs(5) {
            signal(&child, "INT");
            asked = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.wait();
    let mut out = String::new();
    if let Some(mut o) = child.stdout.take() {
        let _ = o.read_to_string(&mut out);
    } else if let Some(rx) = rx {
        out = rx.recv_timeout(Duration::from_secs(60)).unwrap_or_default();
    }
    let mut err = err_rx
        .and_then(|rx| rx.recv_timeout(Duration::from_secs(60)).ok())
        .unwrap_or_default();
    if killed {
        err.push_str("\n(did not stop on SIGINT within a minute: killed)");
    }
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

/// One benchmarked clause on getpid entry: the D program, bpftrace's
/// equivalent, the hand-written floor, and how to read the calls a
/// tracer counted from its output.
struct Shape {
    label: &'static str,
    d: &'static str,
    /// dtrace's options before `-n` (printf's output to /dev/null).
    d_opts: &'static [&'static str],
    bpftrace: &'static str,
    floor: floor::Kind,
    tally: Tally,
}

/// How a tracer's output gives the calls it counted.
#[derive(Clone, Copy)]
enum Tally {
    /// The counts of the rows whose key is the bench's own name.
    OwnName,
    /// The counts of the rows naming getpid.
    Getpid,
    /// Every row's count.
    Rows,
    /// Every row's sum divided by its key (`@[pid] = sum(pid)`).
    SumOverKey,
    /// The lines of two numbers (printf): counted, or where dtrace's
    /// output goes to /dev/null, the calls less the drops it reports.
    Lines,
    /// The counts of a histogram's rows: dtrace's `value |@@@ count`,
    /// bpftrace's `[lo, hi)  count |@@@|`.
    Hist,
}

fn shapes() -> Vec<Shape> {
    use floor::Kind;
    let tp = "tracepoint:syscalls:sys_enter_getpid";
    let bt =
        |body: &str| -> &'static str { Box::leak(format!("{} {}", tp, body).into_boxed_str()) };
    vec![
        Shape {
            label: "@[execname] = count()",
            d_opts: &[],
            d: "syscall::getpid:entry { @[execname] = count(); }",
            bpftrace: bt("{ @[comm] = count(); }"),
            floor: Kind::CountComm,
            tally: Tally::OwnName,
        },
        Shape {
            label: "@[pid] = count()",
            d_opts: &[],
            d: "syscall::getpid:entry { @[pid] = count(); }",
            bpftrace: bt("{ @[pid] = count(); }"),
            floor: Kind::CountPid,
            tally: Tally::Rows,
        },
        Shape {
            label: "@[probefunc] = count()",
            d_opts: &[],
            d: "syscall::getpid:entry { @[probefunc] = count(); }",
            bpftrace: bt("{ @[probe] = count(); }"),
            floor: Kind::CountFunc,
            tally: Tally::Getpid,
        },
        Shape {
            label: "@[pid] = sum(pid)",
            d_opts: &[],
            d: "syscall::getpid:entry { @[pid] = sum(pid); }",
            bpftrace: bt("{ @[pid] = sum(pid); }"),
            floor: Kind::SumPid,
            tally: Tally::SumOverKey,
        },
        Shape {
            label: "/pid != 1/ @ = count()",
            d_opts: &[],
            d: "syscall::getpid:entry /pid != 1/ { @ = count(); }",
            bpftrace: bt("/pid != 1/ { @ = count(); }"),
            floor: Kind::PredPid,
            tally: Tally::Rows,
        },
        Shape {
            label: "/execname == ..../ @ = count()",
            d_opts: &[],
            d: "syscall::getpid:entry /execname == \"dtrace-bench\"/ { @ = count(); }",
            bpftrace: bt("/comm == \"dtrace-bench\"/ { @ = count(); }"),
            floor: Kind::PredComm,
            tally: Tally::Rows,
        },
        Shape {
            label: "@ = quantize(pid)",
            d_opts: &[],
            d: "syscall::getpid:entry { @ = quantize(pid); }",
            bpftrace: bt("{ @ = hist(pid); }"),
            floor: Kind::QuantizePid,
            tally: Tally::Hist,
        },
        Shape {
            label: "printf(\"%d %d\\n\", pid, tid)",
            d_opts: &["-o", "/dev/null"],
            d: "syscall::getpid:entry { printf(\"%d %d\\n\", pid, tid); }",
            bpftrace: bt("{ printf(\"%d %d\\n\", pid, tid); }"),
            floor: Kind::Printf,
            tally: Tally::Lines,
        },
    ]
}

/// The drops dtrace reports (`dtrace: N drops on CPU c`).
fn reported_drops(err: &str) -> u64 {
    err.lines()
        .filter(|l| l.contains(" drops on CPU "))
        .filter_map(|l| numbers_in(l).first().copied())
        .sum()
}

/// The numbers of a line, in order (digit runs).
fn numbers_in(line: &str) -> Vec<u64> {
    line.split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .filter_map(|w| w.parse().ok())
        .collect()
}

/// The calls a tracer's output says it counted.
fn tally(t: Tally, out: &str, me: &str) -> u64 {
    let last = |l: &str| {
        l.split_whitespace()
            .last()
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(0)
    };
    match t {
        Tally::OwnName => count_for(out, me),
        Tally::Getpid => count_for(out, "getpid"),
        Tally::Rows => out.lines().map(last).sum(),
        Tally::SumOverKey => out
            .lines()
            .map(|l| match (numbers_in(l).first(), last(l)) {
                (Some(&k), v) if k > 0 => v / k,
                _ => 0,
            })
            .sum(),
        Tally::Hist => out
            .lines()
            .filter_map(|l| {
                let l = l.trim_end();
                match l.strip_suffix('|') {
                    // bpftrace: the count before the bar.
                    Some(rest) => rest.split('|').next()?.split_whitespace().last(),
                    None if l.contains('|') => l.split_whitespace().last(),
                    None => None,
                }
            })
            .filter_map(|n| n.parse::<u64>().ok())
            .sum(),
        Tally::Lines => out
            .lines()
            .filter(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                w.len() == 2 && w.iter().all(|x| x.parse::<u64>().is_ok())
            })
            .count() as u64,
    }
}

fn probe_effect(cfg: &Config) {
    for cpus in cpu_sets() {
        probe_effect_on(cfg, &cpus);
    }
}

/// The probe effect of each shape with a getpid loop pinned to each CPU
/// of `cpus` at once: each tracer must count every call of every loop
/// (a shortfall is printed beside the round).
fn probe_effect_on(cfg: &Config, cpus: &[u32]) {
    println!(
        "== probe effect: {} getpid calls on each of {} CPU{} ({}), ns/call added to the untraced call",
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
    let time_loop = |n| time_loop_on(n, cpus).as_nanos() as f64 / n as f64;
    let me = comm();
    let shapes: Vec<Shape> = shapes()
        .into_iter()
        .filter(|s| cfg.shape.as_deref().is_none_or(|t| s.label.contains(t)))
        .collect();
    // With CPUs to spare, the tracers (their consumers) and this process
    // (a floor's drain) run on the others: the figure is what the probes
    // cost the loops, not a consumer's time slices taken from them.
    let online = dtrace_sys::cpus::online_cpus().unwrap_or_default();
    let others: Vec<u32> = online
        .iter()
        .copied()
        .filter(|c| !cpus.contains(c))
        .collect();
    let others = cpu_list(&others);
    let pin = (!others.is_empty()).then_some(others.as_str());
    if let Some(list) = pin {
        pin_self(list);
        println!("  tracers and the floor's drain run on CPU {}", list);
    }
    let mut none = Vec::new();
    // Per shape: the ns/call floor, dtrace and bpftrace add, each round's
    // time less that round's untraced time; and each round's ratios of
    // dtrace's and bpftrace's to the floor's (the times of a round are
    // taken back to back, so drift between rounds cancels in them).
    let mut t: Vec<[Vec<f64>; 3]> = shapes.iter().map(|_| Default::default()).collect();
    let mut r: Vec<[Vec<f64>; 2]> = shapes.iter().map(|_| Default::default()).collect();
    for round in 0..cfg.rounds {
        for ((s, times), ratios) in shapes.iter().zip(t.iter_mut()).zip(r.iter_mut()) {
            // A tracer that counted fewer calls than were made is named.
            let short = |who: &str, c: u64, err: &str| {
                if c < all {
                    println!(
                        "  round {}: {}: {} counted {} of {} ({})",
                        round,
                        s.label,
                        who,
                        c,
                        all,
                        err.trim().replace('\n', "; ")
                    );
                }
            };
            // Each timing starts after the kernel's deferred work from the
            // last tear-down (maps and programs freed after a grace
            // period) has had time to finish.
            let settle = || std::thread::sleep(Duration::from_millis(300));
            settle();
            let untraced = time_loop(n);
            none.push(untraced);
            let mut floor_added = None;
            match floor::Floor::attach(s.floor) {
                Ok(f) => {
                    let ns = time_loop(n);
                    short("floor", f.count(&me), "");
                    times[0].push(ns - untraced);
                    floor_added = Some(ns - untraced);
                }
                Err(e) => println!("  {}: floor: {}", s.label, e),
            }
            let mut record = |i: usize, ns: f64| {
                times[i].push(ns - untraced);
                if let Some(f) = floor_added {
                    ratios[i - 1].push((ns - untraced) / f);
                }
            };

            settle();
            let mut args = vec!["-q"];
            args.extend_from_slice(s.d_opts);
            args.extend_from_slice(&["-n", s.d]);
            let child = start_dtrace(cfg, &args, pin);
            let ns = time_loop(n);
            let (out, err) = finish(child);
            let c = if s.d_opts.contains(&"/dev/null") {
                all.saturating_sub(reported_drops(&err))
            } else {
                tally(s.tally, &out, &me)
            };
            short("dtrace", c, &err);
            record(1, ns);

            if let Some(b) = &cfg.bpftrace {
                settle();
                let child = start_bpftrace(b, &["-e", s.bpftrace], pin);
                let ns = time_loop(n);
                let (out, err) = finish(child);
                short("bpftrace", tally(s.tally, &out, &me), &err);
                record(2, ns);
            }
        }
    }
    if pin.is_some() {
        pin_self(&cpu_list(&online));
    }
    let base = median(&mut none);
    println!(
        "  nothing attached: {:.1} ns/call; each column the median of the rounds' added ns/call, each ratio the median of the rounds' ratios",
        base
    );
    println!(
        "  {:<32} {:>8} {:>8} {:>9} {:>13} {:>15}",
        "clause", "floor", "dtrace", "bpftrace", "dtrace/floor", "bpftrace/floor"
    );
    for ((s, times), ratios) in shapes.iter().zip(t.iter_mut()).zip(r.iter_mut()) {
        let f = median(&mut times[0]);
        let d = median(&mut times[1]);
        let b = cfg.bpftrace.is_some().then(|| median(&mut times[2]));
        let rb = cfg.bpftrace.is_some().then(|| median(&mut ratios[1]));
        println!(
            "  {:<32} {:>8} {:>8} {:>9} {:>12.2}x {:>14}",
            s.label,
            format!("+{:.1}", f),
            format!("+{:.1}", d),
            b.map(|b| format!("+{:.1}", b))
                .unwrap_or_else(|| "-".into()),
            median(&mut ratios[0]),
            rb.map(|b| format!("{:.2}x", b))
                .unwrap_or_else(|| "-".into()),
        );
    }
    println!();
}

/// Spawns `cmd`, makes getpid calls until it exits, returns the time
/// from spawn to exit.
/// Waits before a start-up is timed. A tracepoint's last probe removed
/// and a first one added within an RCU grace period of each other make
/// the adding wait for that period (`tp_rcu_cond_sync`): back to back, a
/// run would be charged up to 15 ms for the detaching of the one before
/// (whichever tool that was), which no user starting a tracer sees.
fn settle() {
    std::thread::sleep(Duration::from_millis(100));
}

fn time_to_exit(mut cmd: Command, limit: Duration) -> Option<Duration> {
    settle();
    let t = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    loop {
        std::hint::black_box(std::process::id());
        if let Ok(Some(st)) = child.try_wait() {
            let took = t.elapsed();
            if st.success() {
                return Some(took);
            }
            // A run that failed is not a time: say why.
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            println!(
                "  {:?} failed ({}): {}",
                cmd.get_program(),
                st,
                err.trim().replace('\n', "; ")
            );
            return None;
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_micros(500));
    }
}

fn report_startup(name: &str, f: &mut [f64], d: &mut [f64], b: &mut [f64]) {
    let dm = median(d);
    print!("  {:<28} dtrace {:>8.1} ms", name, dm);
    if !f.is_empty() {
        let fm = median(f);
        print!("   floor {:>6.1} ms   dtrace/floor = {:.2}x", fm, dm / fm);
    }
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
    let me = std::env::current_exe().expect("current_exe");
    for (label, dprog, bprog) in cases {
        let (mut f, mut d, mut b) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..cfg.rounds {
            // The floor: a hand-written program on sys_enter, detached at
            // its first getpid call.
            if label.starts_with("syscall") {
                let mut c = Command::new(&me);
                c.arg(FLOOR_START_ARG);
                if let Some(t) = time_to_exit(c, Duration::from_secs(60)) {
                    f.push(t.as_secs_f64() * 1e3);
                }
            }
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
        report_startup(label, &mut f, &mut d, &mut b);
    }
    // Where dtrace's start-up goes: its phases (DTRACE_DEBUG=phases),
    // framed by the spawn and the exit as seen here.
    let mut parts: Vec<(String, Vec<f64>)> = Vec::new();
    for _ in 0..cfg.rounds {
        let mut c = Command::new(&cfg.dtrace);
        c.env("DTRACE_DEBUG", "phases")
            .args(["-q", "-n", "syscall::getpid:entry { exit(0); }"]);
        let Some(steps) = phases_of(c, Duration::from_secs(60)) else {
            continue;
        };
        for (i, (name, ms)) in steps.into_iter().enumerate() {
            match parts.get_mut(i) {
                Some(p) if p.0 == name => p.1.push(ms),
                Some(_) => {}
                None => parts.push((name, vec![ms])),
            }
        }
    }
    if !parts.is_empty() {
        let shown: Vec<String> = parts
            .iter_mut()
            .map(|(n, v)| format!("{} {:.1}", n, median(v)))
            .collect();
        println!(
            "  dtrace's parts, syscall::getpid:entry (ms, each from the step before): {}",
            shown.join(", ")
        );
    }
    println!();
}

/// Runs `cmd` (a dtrace with `DTRACE_DEBUG=phases`) to its exit, making
/// getpid calls meanwhile: each step's time since the one before (ms),
/// from the spawn (`exec` is the time to dtrace's main) to the exit
/// (`exit`, after the handle closed).
fn phases_of(mut cmd: Command, limit: Duration) -> Option<Vec<(String, f64)>> {
    settle();
    let spawned = dtrace_sys::monotonic_ns();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let err = drain_output(child.stderr.take()?);
    let t = Instant::now();
    let exited = loop {
        std::hint::black_box(std::process::id());
        if let Ok(Some(st)) = child.try_wait() {
            if !st.success() {
                return None;
            }
            break dtrace_sys::monotonic_ns();
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_micros(200));
    };
    let steps = libdtrace::phase::parse(&err.recv().ok()?);
    let mut out = Vec::new();
    let mut before = spawned;
    for (name, at) in steps {
        let label = if name == "main" {
            "exec".to_string()
        } else {
            name
        };
        out.push((label, at.saturating_sub(before) as f64 / 1e6));
        before = at;
    }
    out.push((
        "exit".to_string(),
        exited.saturating_sub(before) as f64 / 1e6,
    ));
    Some(out)
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
    report_startup("syscall:::entry", &mut [], &mut d, &mut b);
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
/// prints the time, then the tracer reads every CPU's values, merges,
/// sorts and prints the rows and exits. The figure is END to exit, and
/// every count must be there. dtrace's END prints `walltimestamp`
/// (against this process's wall clock at exit), bpftrace's `nsecs`
/// (against the monotonic clock).
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
    let bt_prog = format!(
        "tracepoint:syscalls:sys_enter_getpid /curtask->real_parent->tgid == cpid/ {{ @i[tid] = @i[tid] + 1; @[@i[tid] % {}] = count(); }} END {{ printf(\"end %lld\\n\", nsecs); }}",
        SNAP_KEYS
    );
    for cpus in cpu_sets() {
        let list = cpus
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let target = format!("{} {} {} {}", me.display(), FANOUT_ARG, list, cfg.calls);
        let made = cfg.calls * cpus.len() as u64;
        let mut d = Snap::default();
        let mut b = Snap::default();
        for _ in 0..cfg.rounds {
            let mut cmd = Command::new(&cfg.dtrace);
            cmd.args(["-q", "-n", &prog, "-c", &target]);
            d.round(cmd, made, Clock::Wall, dtrace_count);
            if let Some(bt) = &cfg.bpftrace {
                let mut cmd = Command::new(bt);
                // bpftrace's maps hold 4,096 keys unless told otherwise.
                cmd.env("BPFTRACE_MAP_KEYS_MAX", (2 * SNAP_KEYS).to_string())
                    .args(["-e", &bt_prog, "-c", &target]);
                b.round(cmd, made, Clock::Monotonic, bpftrace_count);
            }
        }
        let show = |who: &str, s: &mut Snap| {
            format!(
                "{} {:>8.1} ms{}",
                who,
                median(&mut s.times),
                s.short
                    .as_ref()
                    .map(|x| format!(" (short: {})", x))
                    .unwrap_or_default()
            )
        };
        println!(
            "  {} CPU{:<2} {}  {}",
            cpus.len(),
            if cpus.len() == 1 { "" } else { "s" },
            show("dtrace", &mut d),
            if cfg.bpftrace.is_some() {
                show("bpftrace", &mut b)
            } else {
                String::new()
            }
        );
    }
    println!();
}

/// Key counts of the scale part.
const SCALE_KEYS: [u64; 3] = [10_000, 100_000, 1_000_000];

/// Big aggregations (part 5b): a target makes N getpid calls on one CPU,
/// each a new key (`@[timestamp] = count()`, bpftrace's `@[nsecs]`), and
/// the aggregation is printed at exit: the time from END to exit, the
/// peak resident memory of the tracer, and the memory a key adds (the
/// largest run's peak less the smallest's, over the keys between).
fn scale(cfg: &Config) {
    println!("== big aggregations: N getpid calls on CPU 0, each a new key, printed at exit");
    let me = std::env::current_exe().expect("current_exe");
    let prog = "syscall::getpid:entry /pid == $target/ { @[timestamp] = count(); } END { printf(\"end %d\\n\", walltimestamp); }";
    let bt_prog = "tracepoint:syscalls:sys_enter_getpid /pid == cpid/ { @[nsecs] = count(); } END { printf(\"end %lld\\n\", nsecs); }";
    let mut peaks: Vec<(u64, Option<f64>, Option<f64>)> = Vec::new();
    for keys in SCALE_KEYS {
        // By its path: bpftrace refuses a name that two directories of
        // PATH hold (/bin and /usr/bin, one directory on a merged /usr).
        let taskset = which("taskset").unwrap_or_else(|| PathBuf::from("taskset"));
        let target = format!(
            "{} -c 0 {} {} {}",
            taskset.display(),
            me.display(),
            LOOP_ARG,
            keys
        );
        let mut d = Scale::default();
        let mut b = Scale::default();
        for _ in 0..cfg.rounds {
            let mut cmd = Command::new(&me);
            // Room for every key (56 bytes an element on a CPU).
            cmd.arg(PEAK_ARG).arg(&cfg.dtrace).args([
                "-q",
                "-x",
                "aggsize=64m",
                "-n",
                prog,
                "-c",
                &target,
            ]);
            d.round(cmd, keys, Clock::Wall, dtrace_count);
            if let Some(bt) = &cfg.bpftrace {
                let mut cmd = Command::new(&me);
                cmd.env("BPFTRACE_MAP_KEYS_MAX", (2 * keys).to_string())
                    .arg(PEAK_ARG)
                    .arg(bt)
                    .args(["-e", bt_prog, "-c", &target]);
                b.round(cmd, keys, Clock::Monotonic, bpftrace_count);
            }
        }
        let (dt, dr) = d.medians();
        let (bt, br) = b.medians();
        peaks.push((keys, dr, br));
        let show = |who: &str, t: Option<f64>, r: Option<f64>, s: &Scale| {
            format!(
                "{} {:>8} ms {:>7} MB{}",
                who,
                t.map_or("-".into(), |t| format!("{:.0}", t)),
                r.map_or("-".into(), |r| format!("{:.0}", r / 1024.0)),
                s.short
                    .as_ref()
                    .map(|x| format!(" (short: {})", x))
                    .unwrap_or_default()
            )
        };
        println!(
            "  {:>9} keys  {}  {}{}",
            keys,
            show("dtrace", dt, dr, &d),
            if cfg.bpftrace.is_some() {
                show("bpftrace", bt, br, &b)
            } else {
                String::new()
            },
            match (dt, bt) {
                (Some(x), Some(y)) if y > 0.0 => format!("  ratio {:.2}x", x / y),
                _ => String::new(),
            }
        );
    }
    // Memory a key adds: between the smallest and the largest run.
    if let (Some(first), Some(last)) = (peaks.first(), peaks.last()) {
        let per_key = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => {
                format!("{:.0} bytes", (b - a) * 1024.0 / (last.0 - first.0) as f64)
            }
            _ => "-".into(),
        };
        println!(
            "  memory a key adds: dtrace {}, bpftrace {}",
            per_key(first.1, last.1),
            per_key(first.2, last.2)
        );
    }
    println!();
}

/// One tracer's big-aggregation rounds: END-to-exit times, peak RSS
/// (KiB), and what a round found missing.
#[derive(Default)]
struct Scale {
    times: Vec<f64>,
    rss: Vec<f64>,
    short: Option<String>,
}

impl Scale {
    fn round(
        &mut self,
        mut cmd: Command,
        made: u64,
        clock: Clock,
        count: impl Fn(&str) -> Option<u64>,
    ) {
        let Ok(mut child) = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        else {
            return;
        };
        let out = drain_output(child.stdout.take().expect("piped"));
        let err = drain_output(child.stderr.take().expect("piped"));
        if child.wait().is_err() {
            return;
        }
        // The tracer's peak and end, as `PEAK_ARG` says them.
        let err = err.recv().unwrap_or_default();
        let Some((peak, wall, mono)) = err.lines().rev().find_map(|l| {
            let mut w = l.strip_prefix(PEAK_LINE)?.split_whitespace();
            let mut num = || w.next()?.parse::<i128>().ok();
            Some((num()?, num()?, num()?))
        }) else {
            return;
        };
        let done = match clock {
            Clock::Wall => wall,
            Clock::Monotonic => mono,
        };
        let out = out.recv().unwrap_or_default();
        let (end, rows, total) = tally_rows(&out, count);
        if rows != made || total != made {
            self.short = Some(format!(
                "{} rows, {} counted of {} ({})",
                rows,
                total,
                made,
                err.trim()
            ));
        }
        if let Some(e) = end {
            self.times.push((done - e) as f64 / 1e6);
        }
        self.rss.push(peak as f64);
    }

    fn medians(&mut self) -> (Option<f64>, Option<f64>) {
        let m = |v: &mut Vec<f64>| (!v.is_empty()).then(|| median(v));
        (m(&mut self.times), m(&mut self.rss))
    }
}

/// A row of dtrace's default aggregation output, `  key  count`: its
/// count.
fn dtrace_count(l: &str) -> Option<u64> {
    let mut w = l.split_whitespace();
    match (w.next(), w.next(), w.next()) {
        (Some(k), Some(c), None) if k.parse::<u64>().is_ok() => c.parse().ok(),
        _ => None,
    }
}

/// A row of bpftrace's map output, `@[key]: count`: its count.
fn bpftrace_count(l: &str) -> Option<u64> {
    let (_, c) = l.strip_prefix("@[")?.split_once("]: ")?;
    c.trim().parse().ok()
}

/// A tracer's output: END's time (its `end T` line), and the rows
/// `count` reads with their total.
fn tally_rows(out: &str, count: impl Fn(&str) -> Option<u64>) -> (Option<i128>, u64, u64) {
    let end = out
        .lines()
        .find_map(|l| l.strip_prefix("end ")?.trim().parse::<i128>().ok());
    let (mut rows, mut total) = (0u64, 0u64);
    for c in out.lines().filter_map(count) {
        rows += 1;
        total += c;
    }
    (end, rows, total)
}

/// The clock a tracer's END time is read from.
#[derive(Clone, Copy)]
enum Clock {
    Wall,
    Monotonic,
}

impl Clock {
    fn now_ns(self) -> i128 {
        match self {
            Clock::Wall => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as i128)
                .unwrap_or(0),
            Clock::Monotonic => i128::from(dtrace_sys::monotonic_ns()),
        }
    }
}

/// One tracer's aggregation-snapshot rounds: END-to-exit times, and what
/// a round found missing.
#[derive(Default)]
struct Snap {
    times: Vec<f64>,
    short: Option<String>,
}

impl Snap {
    /// Runs `cmd` to its exit; its output's `end T` line gives END's
    /// time on `clock`, and `count` each row's count.
    fn round(
        &mut self,
        mut cmd: Command,
        made: u64,
        clock: Clock,
        count: impl Fn(&str) -> Option<u64>,
    ) {
        let Ok(o) = cmd.stdin(Stdio::null()).output() else {
            return;
        };
        let done = clock.now_ns();
        let out = String::from_utf8_lossy(&o.stdout);
        let (end, rows, total) = tally_rows(&out, count);
        if rows != SNAP_KEYS || total != made {
            self.short = Some(format!(
                "{} rows of {}, {} counted of {} ({})",
                rows,
                SNAP_KEYS,
                total,
                made,
                String::from_utf8_lossy(&o.stderr).trim()
            ));
        }
        if let Some(e) = end {
            self.times.push((done - e) as f64 / 1e6);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_counts_of_both_tools() {
        let dtrace = "\n           value  ------------- Distribution ------------- count    \n\
                      \x20           4096 |                                         0        \n\
                      \x20           8192 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1000     \n\
                      \x20          16384 |                                         0        \n";
        assert_eq!(tally(Tally::Hist, dtrace, "x"), 1000);
        let bpftrace = "@: \n[8K, 16K)           1000 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\
                        [16K, 32K)            2 |                                                    |\n";
        assert_eq!(tally(Tally::Hist, bpftrace, "x"), 1002);
    }
}
