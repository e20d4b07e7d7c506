//! The aggregations leave the machine, checked with the real systems
//! that take them: three dtrace exporters (`-x metrics=`) scraped by
//! Debian's Prometheus server, whose query API must sum them to what
//! their load generators did; `promtool check metrics` on an exporter's
//! answer; pprof profiles (`-x pprof=`) read back by `go tool pprof`
//! (Debian's golang-go), whose functions and counts must be those
//! dtrace's own `printa` printed; a scrape during a printf stream, which
//! must cost it no record; and clients that misbehave.
//!
//! `.ci/run` installs prometheus and golang-go; without them these
//! trials fail, saying which package is missing.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use libtest_mimic::{Arguments, Failed, Trial};

const DTRACE: &str = env!("CARGO_BIN_EXE_dtrace");
/// Makes N getppid calls, then waits for its standard input to close.
const LOAD: &str = "--dtrace-export-load";
/// Makes N getpid calls.
const GETPIDS: &str = "--dtrace-export-getpids";
/// How long a trial waits for a server to have what it expects: a hang
/// detector, not a timing (a loaded machine stretches everything).
const PATIENCE: Duration = Duration::from_secs(120);

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A TCP port free on 127.0.0.1 now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A child killed and reaped when dropped (if it has not exited).
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// GET `path` from 127.0.0.1:`port` (HTTP/1.0): the status and body.
fn http_get(port: u16, path: &str, accept: Option<&str>) -> Result<(u16, String), String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(30))).ok();
    let accept = accept
        .map(|a| format!("Accept: {}\r\n", a))
        .unwrap_or_default();
    write!(
        s,
        "GET {} HTTP/1.0\r\nHost: 127.0.0.1\r\n{}\r\n",
        path, accept
    )
    .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    s.read_to_end(&mut out).map_err(|e| e.to_string())?;
    let out = text(&out);
    let (head, body) = out.split_once("\r\n\r\n").ok_or("no head")?;
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or("no status")?;
    Ok((status, body.to_string()))
}

/// The samples of family `metric` in a Prometheus text answer, by the
/// value of label `label`.
fn samples(body: &str, metric: &str, label: &str) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let tag = format!("{}=\"", label);
    for l in body.lines() {
        let Some(rest) = l.strip_prefix(metric).and_then(|r| r.strip_prefix('{')) else {
            continue;
        };
        let Some(at) = rest.find(&tag) else { continue };
        let v = &rest[at + tag.len()..];
        let Some(end) = v.find('"') else { continue };
        let value = l
            .rsplit(' ')
            .next()
            .and_then(|x| x.parse().ok())
            .unwrap_or(0.0);
        *out.entry(v[..end].to_string()).or_insert(0.0) += value;
    }
    out
}

fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{:02X}", b),
        })
        .collect()
}

/// A PromQL query's vector result, by the value of label `label`.
fn prom_query(port: u16, q: &str, label: &str) -> Result<BTreeMap<String, f64>, String> {
    let (status, body) = http_get(
        port,
        &format!("/api/v1/query?query={}", percent_encode(q)),
        None,
    )?;
    if status != 200 {
        return Err(format!("query answered {}: {}", status, body));
    }
    let v: serde_json::Value = serde_json::from_str(&body).map_err(|e| e.to_string())?;
    let mut out = BTreeMap::new();
    for r in v["data"]["result"].as_array().cloned().unwrap_or_default() {
        let key = r["metric"][label].as_str().unwrap_or("").to_string();
        let value = r["value"][1]
            .as_str()
            .and_then(|x| x.parse().ok())
            .unwrap_or(0.0);
        out.insert(key, value);
    }
    Ok(out)
}

fn need(cmd: &str, package: &str) -> Result<(), Failed> {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {}", cmd)])
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        Ok(())
    } else {
        Err(format!("needs {} (Debian's {} package)", cmd, package).into())
    }
}

/// A dtrace exporter of `@calls[probefunc] = count()` over the system
/// calls of a load generator making `n` getppid calls, serving on
/// `port`; the generator waits for the returned child's standard input
/// to close.
fn exporter(port: u16, n: u32) -> Result<Reaped, Failed> {
    let me = std::env::current_exe()?;
    let child = Command::new(DTRACE)
        .args([
            "-q",
            "-x",
            &format!("metrics=127.0.0.1:{}", port),
            "-x",
            "metriclabels=@calls:syscall",
            "-n",
            "syscall:::entry /pid == $target/ { @calls[probefunc] = count(); }",
            "-c",
            &format!("{} {} {}", me.display(), LOAD, n),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()?;
    Ok(Reaped(child))
}

/// Waits until `port` answers `/metrics` with `want` in it.
fn wait_for_metrics(port: u16, want: &str) -> Result<String, Failed> {
    let start = Instant::now();
    loop {
        if let Ok((200, body)) = http_get(port, "/metrics", None) {
            if body.contains(want) {
                return Ok(body);
            }
        }
        if start.elapsed() > PATIENCE {
            return Err(format!("port {} never served {}", port, want).into());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn prometheus_sums_three_exporters() -> Result<(), Failed> {
    need("prometheus", "prometheus")?;
    let loads = [100u32, 200, 300];
    let ports: Vec<u16> = loads.iter().map(|_| free_port()).collect();
    let mut exporters = Vec::new();
    for (&port, &n) in ports.iter().zip(&loads) {
        exporters.push(exporter(port, n)?);
    }
    // Each generator has made its calls once its exporter counts them.
    let mut direct: BTreeMap<String, f64> = BTreeMap::new();
    for (&port, &n) in ports.iter().zip(&loads) {
        let body = wait_for_metrics(port, &format!("syscall=\"getppid\"}} {}", n))?;
        for (k, v) in samples(&body, "dtrace_calls_total", "syscall") {
            *direct.entry(k).or_insert(0.0) += v;
        }
    }
    let dir = std::env::temp_dir().join(format!("dtrace-export-prom-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let targets: Vec<String> = ports.iter().map(|p| format!("'127.0.0.1:{}'", p)).collect();
    let config = format!(
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: dtrace\n    static_configs:\n      - targets: [{}]\n",
        targets.join(", ")
    );
    std::fs::write(dir.join("prometheus.yml"), config)?;
    let prom_port = free_port();
    let prom = Reaped(
        Command::new("prometheus")
            .arg(format!(
                "--config.file={}",
                dir.join("prometheus.yml").display()
            ))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{}", prom_port))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?,
    );
    // The generators are idle now (blocked reading their input): what
    // Prometheus sums must become what the exporters say together.
    let start = Instant::now();
    let merged = loop {
        let got = prom_query(
            prom_port,
            "sum by (syscall) (dtrace_calls_total)",
            "syscall",
        );
        if let Ok(m) = &got {
            if *m == direct {
                break m.clone();
            }
        }
        if start.elapsed() > PATIENCE {
            drop(prom);
            std::fs::remove_dir_all(&dir).ok();
            return Err(format!(
                "Prometheus summed {:?}, the exporters say {:?}",
                got, direct
            )
            .into());
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    let up = prom_query(prom_port, "sum(up{job=\"dtrace\"})", "")?;
    drop(prom);
    std::fs::remove_dir_all(&dir).ok();
    // Every generator's getppid calls, summed across the three.
    let want: f64 = loads.iter().map(|&n| f64::from(n)).sum();
    if merged.get("getppid") != Some(&want) {
        return Err(format!(
            "getppid summed to {:?}, not {}",
            merged.get("getppid"),
            want
        )
        .into());
    }
    if up.get("") != Some(&3.0) {
        return Err(format!("targets up: {:?}", up).into());
    }
    // The generators end when their input closes, and their dtraces
    // with them.
    for mut e in exporters {
        drop(e.0.stdin.take());
        let status = e.0.wait()?;
        if !status.success() {
            return Err(format!("an exporter exited with {}", status).into());
        }
    }
    Ok(())
}

/// A dtrace of `script` serving metrics, its target making `n` getpid
/// calls after waiting for its input to close.
fn metrics_exposition_passes_promtool() -> Result<(), Failed> {
    need("promtool", "prometheus")?;
    let port = free_port();
    let me = std::env::current_exe()?;
    let script = "syscall::getppid:entry /pid == $target/ {
        @calls[probefunc, execname] = count();
        @bytes = sum(10);
        @latency[\"read\"] = quantize(100);
        @latency[\"read\"] = quantize(3000);
        @depth = lquantize(5, 0, 10, 2);
        @ratio = llquantize(150, 10, 0, 4, 10);
        @lowest = min(-3);
        @highest = max(12);
        @mean = avg(6);
        @spread = stddev(2);
        @odd[\"a\\\"b\\\\c\"] = count();
    }";
    let mut d = Reaped(
        Command::new(DTRACE)
            .args([
                "-q",
                "-x",
                &format!("metrics=127.0.0.1:{}", port),
                "-x",
                "metriclabels=@calls:syscall,program",
                "-n",
                script,
                "-c",
                &format!("{} {} 4", me.display(), LOAD),
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?,
    );
    let body = wait_for_metrics(port, "dtrace_bytes_total 40\n")?;
    let (_, open) = http_get(
        port,
        "/metrics",
        Some("application/openmetrics-text; version=1.0.0"),
    )?;
    drop(d.0.stdin.take());
    d.0.wait()?;
    let mut check = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    check
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(body.as_bytes())?;
    let o = check.wait_with_output()?;
    if !o.status.success() {
        return Err(format!(
            "promtool check metrics: {}{}\n{}",
            text(&o.stdout),
            text(&o.stderr),
            body
        )
        .into());
    }
    let want = [
        "# HELP dtrace_calls_total @calls = count() in syscall::getppid:entry",
        "# TYPE dtrace_calls_total counter",
        "dtrace_calls_total{syscall=\"getppid\",program=\"export-",
        "# TYPE dtrace_bytes_total counter\ndtrace_bytes_total 40\n",
        "# TYPE dtrace_latency histogram",
        "dtrace_latency_bucket{key1=\"read\",le=\"127\"} 4\n",
        "dtrace_latency_bucket{key1=\"read\",le=\"4095\"} 8\n",
        "dtrace_latency_bucket{key1=\"read\",le=\"+Inf\"} 8\n",
        "dtrace_latency_sum{key1=\"read\"} 12400.0\n",
        "dtrace_latency_count{key1=\"read\"} 8\n",
        "dtrace_depth_bucket{le=\"5\"} 4\n",
        "dtrace_depth_sum 20.0\n",
        "dtrace_ratio_bucket{le=\"199\"} 4\n",
        "# TYPE dtrace_lowest gauge\ndtrace_lowest -3\n",
        "dtrace_highest 12\n",
        "dtrace_mean 6.0\n",
        "dtrace_spread 0\n",
        "dtrace_odd_total{key1=\"a\\\"b\\\\c\"} 4\n",
        "dtrace_drops_total{kind=\"principal\"} 0\n",
        "dtrace_drops_total{kind=\"aggregation\"} 0\n",
        "dtrace_errors_total 0\n",
    ];
    for w in want {
        if !body.contains(w) {
            return Err(format!("no {:?} in\n{}", w, body).into());
        }
    }
    for w in [
        "# TYPE dtrace_calls counter\n",
        "dtrace_calls_total{syscall=\"getppid\"",
        "# EOF\n",
    ] {
        if !open.contains(w) {
            return Err(format!("OpenMetrics: no {:?} in\n{}", w, open).into());
        }
    }
    Ok(())
}

/// The leaf functions of a printa()'s stack rows and their counts (the
/// flat profile), frames without their offsets.
fn printa_flat(out: &str) -> BTreeMap<String, i64> {
    let mut flat = BTreeMap::new();
    let mut leaf: Option<String> = None;
    for l in out.lines() {
        let l = l.trim();
        if l.is_empty() {
            continue;
        }
        if let Ok(n) = l.parse::<i64>() {
            if let Some(f) = leaf.take() {
                *flat.entry(f).or_insert(0) += n;
            }
            continue;
        }
        if leaf.is_none() {
            let f = match l.rsplit_once("+0x") {
                Some((f, _)) => f,
                None => l,
            };
            leaf = Some(f.to_string());
        }
    }
    flat
}

/// `go tool pprof -top`'s flat counts by function.
fn pprof_flat(path: &std::path::Path) -> Result<BTreeMap<String, i64>, Failed> {
    let home = std::env::temp_dir().join("dtrace-export-go");
    let o = Command::new("go")
        .args([
            "tool",
            "pprof",
            "-top",
            "-nodefraction=0",
            "-nodecount=100000",
        ])
        .arg(path)
        .env("HOME", &home)
        .env("GOCACHE", home.join("cache"))
        .output()?;
    if !o.status.success() {
        return Err(format!("go tool pprof: {}", text(&o.stderr)).into());
    }
    let mut flat = BTreeMap::new();
    let mut table = false;
    for l in text(&o.stdout).lines() {
        if l.trim_start().starts_with("flat") {
            table = true;
            continue;
        }
        let cols: Vec<&str> = l.split_whitespace().collect();
        if !table || cols.len() < 6 {
            continue;
        }
        let n: i64 = cols[0].parse().unwrap_or(0);
        if n > 0 {
            flat.insert(cols[5..].join(" "), n);
        }
    }
    Ok(flat)
}

/// dtrace with a pprof file: its standard output and the profile.
fn with_pprof(args: &[&str]) -> Result<(Output, BTreeMap<String, i64>), Failed> {
    need("go", "golang-go")?;
    let file = std::env::temp_dir().join(format!("dtrace-export-{}.pb.gz", std::process::id()));
    let o = Command::new(DTRACE)
        .args(["-q", "-x", &format!("pprof={}", file.display())])
        .args(args)
        .stdin(Stdio::null())
        .output()?;
    if !o.status.success() {
        return Err(format!("dtrace: {}", text(&o.stderr)).into());
    }
    let flat = pprof_flat(&file);
    std::fs::remove_file(&file).ok();
    Ok((o, flat?))
}

fn pprof_reads_kernel_profile() -> Result<(), Failed> {
    let (o, flat) = with_pprof(&[
        "-n",
        "profile-997 { @[stack()] = count(); } tick-1s { exit(0); }",
    ])?;
    let printed = printa_flat(&text(&o.stdout));
    if printed.is_empty() || printed != flat {
        return Err(format!("printa {:?}\npprof {:?}", printed, flat).into());
    }
    Ok(())
}

fn pprof_reads_user_stacks() -> Result<(), Failed> {
    let me = std::env::current_exe()?;
    let (o, flat) = with_pprof(&[
        "-n",
        "syscall::getpid:entry /pid == $target/ { @[ustack()] = count(); }",
        "-c",
        &format!("{} {} 500", me.display(), GETPIDS),
    ])?;
    let printed = printa_flat(&text(&o.stdout));
    let total: i64 = flat.values().sum();
    if printed != flat || total < 500 {
        return Err(format!("printa {:?}\npprof {:?}", printed, flat).into());
    }
    Ok(())
}

/// Scrapes as fast as it can while 2,000,000 records stream: none is
/// lost.
fn scrape_during_stream_drops_nothing() -> Result<(), Failed> {
    let port = free_port();
    let me = std::env::current_exe()?;
    let out = std::env::temp_dir().join(format!("dtrace-export-stream-{}", std::process::id()));
    let child = Command::new(DTRACE)
        .args([
            "-q",
            "-x",
            "bufsize=64m",
            "-x",
            &format!("metrics=127.0.0.1:{}", port),
            "-o",
        ])
        .arg(&out)
        .args([
            "-n",
            "syscall::getpid:entry /pid == $target/ { @calls = count(); printf(\"%d\\n\", tid); }",
            "-c",
            &format!("{} {} 2000000", me.display(), GETPIDS),
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut child = Reaped(child);
    let mut scrapes = 0u64;
    let status = loop {
        if let Some(s) = child.0.try_wait()? {
            break s;
        }
        if let Ok((200, body)) = http_get(port, "/metrics", None) {
            if body.contains("dtrace_calls_total") {
                scrapes += 1;
            }
        }
    };
    let mut err = String::new();
    if let Some(mut e) = child.0.stderr.take() {
        e.read_to_string(&mut err)?;
    }
    let printed = std::fs::read_to_string(&out).unwrap_or_default();
    std::fs::remove_file(&out).ok();
    let lines = printed.lines().filter(|l| !l.trim().is_empty()).count();
    // The records, then the aggregation's one line at the end.
    if !status.success() || lines != 2_000_001 || !err.is_empty() || scrapes == 0 {
        return Err(format!(
            "status {}, {} lines, {} scrapes, stderr {:?}",
            status, lines, scrapes, err
        )
        .into());
    }
    Ok(())
}

/// Idle connections beyond the few served get 503 at once; a head that
/// never ends is refused; the endpoint serves again afterwards.
fn hostile_clients_are_bounded() -> Result<(), Failed> {
    let port = free_port();
    let me = std::env::current_exe()?;
    let d = Command::new(DTRACE)
        .args([
            "-q",
            "-x",
            &format!("metrics=127.0.0.1:{}", port),
            "-n",
            "syscall::getppid:entry /pid == $target/ { @calls = count(); }",
            "-c",
            &format!("{} {} 1", me.display(), LOAD),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()?;
    let mut d = Reaped(d);
    wait_for_metrics(port, "dtrace_calls_total 1")?;
    // Four connections that say nothing hold every server thread.
    let idle: Vec<TcpStream> = (0..4)
        .map(|_| TcpStream::connect(("127.0.0.1", port)))
        .collect::<Result<_, _>>()?;
    let busy = http_get(port, "/metrics", None)?;
    drop(idle);
    if busy.0 != 503 {
        return Err(format!("a fifth client got {}", busy.0).into());
    }
    // A head longer than the endpoint takes.
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(30)))?;
    // Exactly the most the endpoint reads, so that it closes with
    // nothing unread (which would reset the connection).
    let head = "GET /metrics HTTP/1.1\r\nX-Long: ";
    let long = format!("{}{}", head, "a".repeat((8 << 10) - head.len()));
    let _ = s.write_all(long.as_bytes());
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    if !answer.starts_with("HTTP/1.1 431") {
        return Err(format!("a long head got {:?}", answer.lines().next()).into());
    }
    // The idle ones go once they are closed: the endpoint serves again.
    let start = Instant::now();
    loop {
        if let Ok((200, _)) = http_get(port, "/metrics", None) {
            break;
        }
        if start.elapsed() > PATIENCE {
            return Err("never served again".into());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    for (req, code) in [
        ("POST /metrics HTTP/1.0\r\n\r\n", "405"),
        ("GET /nothing HTTP/1.0\r\n\r\n", "404"),
        ("nonsense\r\n\r\n", "400"),
    ] {
        let mut s = TcpStream::connect(("127.0.0.1", port))?;
        s.write_all(req.as_bytes())?;
        let mut answer = String::new();
        s.read_to_string(&mut answer)?;
        if answer.split_whitespace().nth(1) != Some(code) {
            return Err(format!("{:?} got {:?}", req, answer.lines().next()).into());
        }
    }
    drop(d.0.stdin.take());
    d.0.wait()?;
    Ok(())
}

/// Bad addresses and labels are refused before tracing starts.
fn bad_options_are_refused() -> Result<(), Failed> {
    let run = |args: &[&str]| {
        Command::new(DTRACE)
            .arg("-q")
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map(|o| (o.status.code(), text(&o.stderr)))
    };
    let prog = "BEGIN { @calls[1] = count(); exit(0); }";
    let busy = TcpListener::bind("127.0.0.1:0")?;
    let port = busy.local_addr()?.port();
    let cases: Vec<(Vec<String>, String)> = vec![
        (
            vec!["-x".into(), "metrics=nowhere".into(), "-n".into(), prog.into()],
            "dtrace: failed to set -x metrics: Invalid value for specified option\n"
                .into(),
        ),
        (
            vec!["-x".into(), "metriclabels=@calls:le".into(), "-n".into(), prog.into()],
            "dtrace: failed to set -x metriclabels: Invalid value for specified option\n"
                .into(),
        ),
        (
            vec![
                "-x".into(),
                format!("metrics=127.0.0.1:{}", port),
                "-n".into(),
                prog.into(),
            ],
            format!(
                "dtrace: could not enable tracing: cannot serve metrics on 127.0.0.1:{}: Address already in use (os error 98)\n",
                port
            ),
        ),
        (
            vec![
                "-x".into(),
                format!("metrics=127.0.0.1:{}", free_port()),
                "-x".into(),
                "metriclabels=@other:a".into(),
                "-n".into(),
                prog.into(),
            ],
            "dtrace: could not enable tracing: metriclabels: the program has no aggregation @other\n"
                .into(),
        ),
        (
            vec![
                "-x".into(),
                format!("metrics=127.0.0.1:{}", free_port()),
                "-x".into(),
                "metriclabels=@calls:a,b".into(),
                "-n".into(),
                prog.into(),
            ],
            "dtrace: could not enable tracing: metriclabels: @calls has 1 key, 2 labels are given\n"
                .into(),
        ),
        (
            vec!["-x".into(), "pprof=/tmp/x.pb.gz".into(), "-n".into(), prog.into()],
            "dtrace: could not enable tracing: cannot write a pprof profile to /tmp/x.pb.gz: no aggregation is keyed by stack(), ustack() or jstack()\n"
                .into(),
        ),
    ];
    for (args, want) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, err) = run(&args)?;
        if code == Some(0) || err != want {
            return Err(format!(
                "{:?}: exit {:?}, said {:?}, not {:?}",
                args, code, err, want
            )
            .into());
        }
    }
    drop(busy);
    Ok(())
}

/// A trial's check.
type Check = fn() -> Result<(), Failed>;

fn main() {
    dtrace_sys::poll::default_stop_signals();
    let raw: Vec<String> = std::env::args().collect();
    let n = || raw.get(2).and_then(|s| s.parse::<u32>().ok()).unwrap_or(0);
    match raw.get(1).map(String::as_str) {
        Some(LOAD) => {
            for _ in 0..n() {
                // parent_id() makes the getppid(2) call each time.
                std::hint::black_box(std::os::unix::process::parent_id());
            }
            let mut rest = Vec::new();
            let _ = std::io::stdin().read_to_end(&mut rest);
            return;
        }
        Some(GETPIDS) => {
            for _ in 0..n() {
                std::hint::black_box(std::process::id());
            }
            return;
        }
        _ => {}
    }
    let mut args = Arguments::from_args();
    if args.test_threads.is_none() {
        args.test_threads = Some(1);
    }
    let root = dtrace_sys::geteuid() == 0 && dtrace_sys::has_trace_privilege();
    let trials: Vec<(&str, Check)> = vec![
        (
            "prometheus_sums_three_exporters",
            prometheus_sums_three_exporters,
        ),
        (
            "metrics_exposition_passes_promtool",
            metrics_exposition_passes_promtool,
        ),
        ("pprof_reads_kernel_profile", pprof_reads_kernel_profile),
        ("pprof_reads_user_stacks", pprof_reads_user_stacks),
        (
            "scrape_during_stream_drops_nothing",
            scrape_during_stream_drops_nothing,
        ),
        ("hostile_clients_are_bounded", hostile_clients_are_bounded),
        ("bad_options_are_refused", bad_options_are_refused),
    ];
    let trials = trials
        .into_iter()
        .map(|(name, f)| Trial::test(name, f).with_ignored_flag(!root))
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
