//! The metrics endpoint (`-x metrics=ADDR:PORT`): while tracing runs, an
//! HTTP server on its own threads answers `GET /metrics` with the value
//! every aggregation has at that moment, in the Prometheus text format
//! (or OpenMetrics, when the scraper asks for it), so that a D script is
//! an exporter and Prometheus does the fleet's part.
//!
//! - An aggregation `@name` is the family `dtrace_name`: `count()` and
//!   `sum()` counters (`dtrace_name_total`), `min()`, `max()`, `avg()`
//!   and `stddev()` gauges, the quantizations histograms whose `le`
//!   bounds are DTrace's buckets' (an integer bucket `[lo, next)` is
//!   `le = next - 1`, the last one `+Inf`), their `_sum` the sum the
//!   programs keep beside the buckets when this endpoint is asked for
//!   (`GenOptions::dist_sums`).
//! - Its keys are labels, `key1`, `key2`... by position, or named by the
//!   `metriclabels` option (`-x metriclabels=@calls:syscall`, once for
//!   each aggregation named).
//! - `# HELP` says which function of which clauses updates it.
//! - `dtrace_drops_total{kind=...}` counts the records lost, as the
//!   drop messages name them, and `dtrace_errors_total` the runtime
//!   errors (ERROR probe firings), so a scrape shows when data is lost.
//!
//! A scrape reads the aggregation maps itself (through shared
//! descriptors, `Source`), so the consumer's draining never waits for
//! it and the user's aggregations are never cleared. What a client can
//! take is bounded: at most `MAX_CLIENTS` connections are served at once
//! (others get 503 at once), a request's head is at most `MAX_HEAD`
//! bytes and must arrive within `READ_TIME`, an answer must be taken
//! within `WRITE_TIME`, and one scrape is made at a time.

use std::fmt;
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use dtrace_bpf::aggs::{AggValue, Bound, Distribution};
use dtrace_bpf::plan::AggLayout;
use dtrace_lang::ir::AggFunc;
use dtrace_sys::bpf::Map;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;

use crate::aggregate::{self, KeyValue};

/// Connections served at once.
const MAX_CLIENTS: usize = 4;
/// The most bytes of a request's head (its line and headers).
const MAX_HEAD: usize = 8 << 10;
/// How long a client may take to send its request.
const READ_TIME: Duration = Duration::from_secs(10);
/// How long a client may take to read an answer.
const WRITE_TIME: Duration = Duration::from_secs(60);

/// Parses the `metrics` option's value: `ADDR:PORT`, `[V6ADDR]:PORT`,
/// or `:PORT` (every interface).
///
/// ```
/// # use libdtrace::metrics_address;
/// assert_eq!(metrics_address("127.0.0.1:9464").unwrap().port(), 9464);
/// assert!(metrics_address(":9464").unwrap().ip().is_unspecified());
/// assert!(metrics_address("[::1]:80").is_some());
/// assert!(metrics_address("localhost").is_none());
/// ```
pub fn metrics_address(v: &str) -> Option<SocketAddr> {
    if let Some(port) = v.strip_prefix(':') {
        let port: u16 = port.parse().ok()?;
        return Some(SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), port));
    }
    v.parse().ok()
}

/// One `metriclabels` value: the aggregation (without its `@`; empty
/// for the anonymous one) and its keys' label names, in key order.
pub(crate) fn parse_labels(v: &str) -> Option<(String, Vec<String>)> {
    let (agg, labels) = v.split_once(':')?;
    let agg = agg.strip_prefix('@').unwrap_or(agg);
    if !agg.is_empty() && !is_name(agg) {
        return None;
    }
    let labels: Vec<String> = labels.split(',').map(|l| l.trim().to_string()).collect();
    let ok = labels
        .iter()
        .all(|l| is_name(l) && !l.starts_with("__") && l != "le");
    (ok && !labels.is_empty()).then(|| (agg.to_string(), labels))
}

/// A name Prometheus takes for a label (and D for an identifier).
fn is_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// The families the endpoint's own counters use: an aggregation of the
/// same name is `dtrace_<name>_agg`.
const RESERVED: [&str; 2] = ["drops", "errors"];

/// One aggregation as a metric family.
pub(crate) struct Family {
    /// The name after `dtrace_`.
    pub(crate) name: String,
    pub(crate) help: String,
    pub(crate) layout: AggLayout,
    /// A label name for each key.
    pub(crate) labels: Vec<String>,
}

impl Family {
    /// Aggregation `agg` (its D name, empty for `@`) as a family.
    pub(crate) fn new(
        agg: &str,
        help: String,
        layout: AggLayout,
        named: Option<&[String]>,
    ) -> Family {
        let mut name = if agg.is_empty() {
            "anonymous".to_string()
        } else {
            agg.to_string()
        };
        if RESERVED.contains(&name.as_str()) {
            name.push_str("_agg");
        }
        let labels = label_names(layout.keys.len(), named);
        Family {
            name,
            help,
            layout,
            labels,
        }
    }
}

/// The label names of `nkeys` keys: those `named` (the `metriclabels`
/// option), then `keyN` by position.
pub(crate) fn label_names(nkeys: usize, named: Option<&[String]>) -> Vec<String> {
    (0..nkeys)
        .map(|i| match named.and_then(|n| n.get(i)) {
            Some(l) => l.clone(),
            None => format!("key{}", i + 1),
        })
        .collect()
}

/// What a scrape reads: the program's maps (shared with the consumer),
/// each aggregation's family, the streamed aggregations' rows, and the
/// runtime error count.
pub(crate) struct Source {
    pub(crate) maps: Arc<Vec<Map>>,
    pub(crate) families: Vec<Family>,
    pub(crate) drops_map: usize,
    pub(crate) streamed: Arc<Mutex<crate::streamed::Tables>>,
    pub(crate) ncpus: usize,
    pub(crate) errors: Arc<AtomicU64>,
}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Source")
            .field("families", &self.families.len())
            .finish()
    }
}

/// The drop counters' kinds, in the drops map's order, as labels.
const DROP_KINDS: [&str; crate::load::DROP_KINDS] = [
    "principal",
    "aggregation",
    "dynamic",
    "error",
    "speculative",
    "specbusy",
    "specunavail",
];

impl Source {
    /// Every drop counter, summed over the CPUs.
    fn drops(&self) -> io::Result<[u64; crate::load::DROP_KINDS]> {
        let map = &self.maps[self.drops_map];
        let mut vals = map.percpu_values()?;
        map.lookup_percpu(&0u32.to_ne_bytes(), &mut vals)?;
        let mut sum = [0u64; crate::load::DROP_KINDS];
        for cpu in vals.iter() {
            for (k, s) in sum.iter_mut().enumerate() {
                let w = cpu
                    .get(8 * k..8 * k + 8)
                    .and_then(|b| b.try_into().ok())
                    .map_or(0, u64::from_ne_bytes);
                *s = s.wrapping_add(w);
            }
        }
        let streamed = lock(&self.streamed).drops.iter().sum::<u64>();
        sum[1] = sum[1].wrapping_add(streamed);
        Ok(sum)
    }

    /// One aggregation's rows as they are now, in flat tables (a
    /// million keys are tens of megabytes, not an allocation each).
    fn rows(&self, layout: &AggLayout) -> io::Result<aggregate::AggTable> {
        if layout.streamed {
            let rows = lock(&self.streamed).snapshot(layout, false, self.ncpus);
            return Ok(aggregate::AggTable::of_entries(rows));
        }
        aggregate::table(
            &self.maps[layout.map.0 as usize],
            layout,
            None,
            layout.interned.map(|ik| &self.maps[ik.map.0 as usize]),
        )
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A key element as a label's value: numbers in decimal, strings as
/// text, symbols as DTrace prints them, stacks as their functions from
/// the root down, `;` between them (as flame graphs fold them).
pub(crate) fn label_value(k: &KeyValue) -> String {
    match k {
        KeyValue::Int(v, _) => v.to_string(),
        KeyValue::Str(s) => String::from_utf8_lossy(s).into_owned(),
        KeyValue::Sym(a) => crate::ksym::sym_text(*a),
        KeyValue::Mod(m) => m.clone(),
        KeyValue::Stack(b) => {
            let mut f: Vec<String> = crate::ksym::frames(b).map(crate::ksym::sym_text).collect();
            f.reverse();
            f.join(";")
        }
        KeyValue::UStack(b) => crate::flame::ustack_functions(b).join(";"),
        KeyValue::Bytes(b) => b.iter().map(|x| format!("{:02x}", x)).collect(),
    }
}

/// A distribution's buckets as a histogram's: each bucket's inclusive
/// upper bound and the count of values in it (the exposition's encoder
/// makes them cumulative), from the lowest bucket with data (or the zero
/// bucket, if lower; the buckets below it counted in it) to the highest
/// with data, then `+Inf` with the rest; the count of values.
pub(crate) fn histogram(d: &Distribution) -> (Vec<(f64, u64)>, u64) {
    let b = &d.buckets;
    let count = |i: usize| b[i].count.max(0) as u64;
    let zero = b
        .iter()
        .position(|x| x.bound.value() >= 0)
        .unwrap_or(b.len().saturating_sub(1));
    let first = (0..b.len())
        .find(|&i| count(i) != 0)
        .map_or(zero, |i| i.min(zero));
    let last = (0..b.len())
        .rev()
        .find(|&i| count(i) != 0)
        .unwrap_or(zero)
        .max(zero);
    let mut out = Vec::new();
    let mut held: u64 = (0..first).map(count).sum();
    for i in first..=last {
        held = held.saturating_add(count(i));
        let le = match (b[i].bound, b.get(i + 1)) {
            (Bound::Below(lo), _) => Some(lo as f64 - 1.0),
            (Bound::From(_), Some(next)) => Some(lowest(next.bound) as f64 - 1.0),
            _ => None,
        };
        if let Some(le) = le {
            out.push((le, held));
            held = 0;
        }
    }
    held += (last + 1..b.len()).map(count).sum::<u64>();
    out.push((f64::INFINITY, held));
    let total = (0..b.len()).map(count).sum();
    (out, total)
}

/// The lowest value a bucket holds.
fn lowest(b: Bound) -> i64 {
    match b {
        Bound::Below(_) => i64::MIN,
        Bound::From(v) | Bound::AtLeast(v) => v,
    }
}

impl Collector for Source {
    fn encode(&self, mut enc: DescriptorEncoder) -> Result<(), fmt::Error> {
        for fam in &self.families {
            let table = self.rows(&fam.layout).map_err(|_| fmt::Error)?;
            let order: Vec<u32> = (0..table.len() as u32).collect();
            let rows = aggregate::AggRows::Table {
                table: &table,
                order: &order,
            };
            let kind = match fam.layout.func {
                AggFunc::Count | AggFunc::Sum => MetricType::Counter,
                AggFunc::Quantize | AggFunc::Lquantize { .. } | AggFunc::Llquantize { .. } => {
                    MetricType::Histogram
                }
                _ => MetricType::Gauge,
            };
            let mut m = enc.encode_descriptor(&fam.name, &fam.help, None, kind)?;
            for row in rows.iter() {
                let Some(value) = row.value(0) else { continue };
                let labels: Vec<(&str, String)> = fam
                    .labels
                    .iter()
                    .map(String::as_str)
                    .zip(row.key.iter().map(label_value))
                    .collect();
                let mut f = m.encode_family(&labels)?;
                match value {
                    AggValue::Count(v) => {
                        f.encode_counter::<NoLabelSet, _, f64>(&((*v).max(0) as u64), None)?
                    }
                    AggValue::Sum(v) => match u64::try_from(*v) {
                        Ok(v) => f.encode_counter::<NoLabelSet, _, f64>(&v, None)?,
                        Err(_) => f.encode_counter::<NoLabelSet, _, f64>(&(*v as f64), None)?,
                    },
                    AggValue::Min(v) | AggValue::Max(v) => f.encode_gauge(v)?,
                    AggValue::Avg { count, total } => {
                        let avg = if *count == 0 {
                            0.0
                        } else {
                            *total as f64 / *count as f64
                        };
                        f.encode_gauge(&avg)?
                    }
                    v @ AggValue::Stddev { .. } => f.encode_gauge(&v.normalized(1))?,
                    AggValue::Dist(d) => {
                        let (buckets, count) = histogram(d);
                        f.encode_histogram::<NoLabelSet>(d.sum as f64, count, &buckets, None)?
                    }
                }
            }
        }
        let drops = self.drops().map_err(|_| fmt::Error)?;
        let mut m = enc.encode_descriptor(
            "drops",
            "records dtrace lost, by kind (as its drop messages count them)",
            None,
            MetricType::Counter,
        )?;
        for (kind, n) in DROP_KINDS.iter().zip(drops) {
            let labels = [("kind", *kind)];
            m.encode_family(&labels)?
                .encode_counter::<NoLabelSet, _, f64>(&n, None)?;
        }
        let mut m = enc.encode_descriptor(
            "errors",
            "runtime errors of the program's probes (ERROR probe firings)",
            None,
            MetricType::Counter,
        )?;
        m.encode_counter::<NoLabelSet, _, f64>(&self.errors.load(Ordering::Relaxed), None)?;
        Ok(())
    }
}

/// The running endpoint: its listening thread, stopped and joined when
/// dropped (with the handle).
pub(crate) struct Server {
    stop: Arc<AtomicBool>,
    wake: SocketAddr,
    thread: Option<JoinHandle<()>>,
}

/// Binds the endpoint's socket (before tracing starts, so that a bad or
/// busy address is reported first).
pub(crate) fn bind(addr: SocketAddr) -> io::Result<TcpListener> {
    TcpListener::bind(addr)
}

impl Server {
    /// Serves `source` on `listener` until dropped.
    pub(crate) fn start(listener: TcpListener, source: Source) -> io::Result<Server> {
        let local = listener.local_addr()?;
        let wake = match local.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => {
                SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), local.port())
            }
            IpAddr::V6(ip) if ip.is_unspecified() => {
                SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), local.port())
            }
            _ => local,
        };
        let mut registry = Registry::with_prefix("dtrace");
        registry.register_collector(Box::new(source));
        let shared = Arc::new(Shared {
            registry,
            scraping: Mutex::new(()),
            clients: AtomicUsize::new(0),
        });
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::Builder::new()
            .name("dtrace-metrics".into())
            .stack_size(256 << 10)
            .spawn(move || accept_loop(listener, shared, stopping))?;
        Ok(Server {
            stop,
            wake,
            thread: Some(thread),
        })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // The listening thread waits in accept(): a connection wakes it.
        let _ = TcpStream::connect_timeout(&self.wake, Duration::from_millis(500));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

struct Shared {
    registry: Registry,
    /// Held while a scrape reads and encodes: one at a time.
    scraping: Mutex<()>,
    clients: AtomicUsize,
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>, stop: Arc<AtomicBool>) {
    for conn in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(mut s) = conn else {
            // Out of descriptors, say: wait a little rather than spin.
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        if shared.clients.fetch_add(1, Ordering::SeqCst) >= MAX_CLIENTS {
            shared.clients.fetch_sub(1, Ordering::SeqCst);
            turn_away(&mut s);
            continue;
        }
        let sh = shared.clone();
        let spawned = std::thread::Builder::new()
            .name("dtrace-scrape".into())
            .stack_size(256 << 10)
            .spawn(move || {
                let _ = serve(&mut s, &sh);
                sh.clients.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            shared.clients.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// Answers 503 to a client beyond `MAX_CLIENTS`, on the listening
/// thread: what its request has sent within a moment is read first, so
/// that closing does not reset the connection before it reads the
/// answer.
fn turn_away(s: &mut TcpStream) {
    let _ = s.set_read_timeout(Some(Duration::from_millis(50)));
    let mut buf = [0u8; 4096];
    let _ = s.read(&mut buf);
    let _ = s.set_write_timeout(Some(Duration::from_millis(50)));
    let _ = s.write_all(&response(503, "text/plain", b"busy\n", false));
    let _ = s.shutdown(std::net::Shutdown::Write);
}

/// An HTTP/1.1 answer's bytes (the connection closes after it).
fn response(status: u16, ctype: &str, body: &[u8], head_only: bool) -> Vec<u8> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        _ => "Service Unavailable",
    };
    let mut out =
        format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n{}\r\n",
        status,
        reason,
        ctype,
        body.len(),
        if status == 405 { "Allow: GET, HEAD\r\n" } else { "" }
    )
        .into_bytes();
    if !head_only {
        out.extend_from_slice(body);
    }
    out
}

/// What a request asks: whether only the head (HEAD), the path, and
/// whether the client takes OpenMetrics.
struct Request {
    head_only: bool,
    path: String,
    openmetrics: bool,
}

/// Reads one request's head, within `READ_TIME` and `MAX_HEAD` bytes.
fn read_request(s: &mut TcpStream) -> Result<Request, u16> {
    let deadline = Instant::now() + READ_TIME;
    let mut buf = vec![0u8; MAX_HEAD];
    let mut len = 0;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || s.set_read_timeout(Some(left)).is_err() {
            return Err(400);
        }
        let n = match s.read(&mut buf[len..]) {
            Ok(0) | Err(_) => return Err(400),
            Ok(n) => n,
        };
        len += n;
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut req = httparse::Request::new(&mut headers);
        match req.parse(&buf[..len]) {
            Ok(httparse::Status::Complete(_)) => {
                let method = req.method.unwrap_or("");
                if method != "GET" && method != "HEAD" {
                    return Err(405);
                }
                let path = req.path.unwrap_or("/");
                let path = path.split('?').next().unwrap_or("/").to_string();
                let openmetrics = req.headers.iter().any(|h| {
                    h.name.eq_ignore_ascii_case("accept")
                        && String::from_utf8_lossy(h.value).contains("application/openmetrics-text")
                });
                return Ok(Request {
                    head_only: method == "HEAD",
                    path,
                    openmetrics,
                });
            }
            Ok(httparse::Status::Partial) if len < buf.len() => {}
            Ok(httparse::Status::Partial) => return Err(431),
            Err(httparse::Error::TooManyHeaders) => return Err(431),
            Err(_) => return Err(400),
        }
    }
}

/// Answers one connection.
fn serve(s: &mut TcpStream, shared: &Shared) -> io::Result<()> {
    let answer = match read_request(s) {
        Err(code) => response(code, "text/plain", b"", false),
        Ok(req) if req.path == "/metrics" => {
            let (text, ctype) = {
                let _one = lock(&shared.scraping);
                let mut text = String::new();
                let done = if req.openmetrics {
                    prometheus_client::encoding::text::encode(&mut text, &shared.registry)
                } else {
                    prometheus_client::encoding::prometheus_text::encode(
                        &mut text,
                        &shared.registry,
                    )
                };
                if done.is_err() {
                    text.clear();
                }
                let ctype = if req.openmetrics {
                    "application/openmetrics-text; version=1.0.0; charset=utf-8"
                } else {
                    "text/plain; version=0.0.4; charset=utf-8"
                };
                (done.map(|_| text), ctype)
            };
            match text {
                Ok(t) => response(200, ctype, t.as_bytes(), req.head_only),
                Err(_) => response(500, "text/plain", b"cannot read the aggregations\n", false),
            }
        }
        Ok(req) if req.path == "/" => response(
            200,
            "text/plain",
            b"dtrace: the aggregations are at /metrics\n",
            req.head_only,
        ),
        Ok(_) => response(404, "text/plain", b"", false),
    };
    write_within(s, &answer, WRITE_TIME)
}

/// Writes `bytes`, giving up after `time` however slowly the client
/// reads.
fn write_within(s: &mut TcpStream, bytes: &[u8], time: Duration) -> io::Result<()> {
    let deadline = Instant::now() + time;
    for chunk in bytes.chunks(64 << 10) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        s.set_write_timeout(Some(left))?;
        s.write_all(chunk)?;
    }
    let _ = s.shutdown(std::net::Shutdown::Write);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dtrace_bpf::aggs::Bucket;

    #[test]
    fn labels_option() {
        assert_eq!(
            parse_labels("@calls:syscall,pid"),
            Some(("calls".into(), vec!["syscall".into(), "pid".into()]))
        );
        assert_eq!(
            parse_labels("@:func"),
            Some(("".into(), vec!["func".into()]))
        );
        assert_eq!(parse_labels("calls"), None);
        assert_eq!(parse_labels("@calls:"), None);
        assert_eq!(parse_labels("@calls:le"), None);
        assert_eq!(parse_labels("@calls:__x"), None);
        assert_eq!(parse_labels("@calls:a-b"), None);
        assert_eq!(parse_labels("@c-d:a"), None);
    }

    #[test]
    fn family_names() {
        let layout = AggLayout {
            map: dtrace_bpf::asm::MapId(0),
            id: 0,
            func: AggFunc::Count,
            keys: Vec::new(),
            key_size: 8,
            value_size: 8,
            slot: None,
            interned: None,
            streamed: false,
        };
        assert_eq!(
            Family::new("", String::new(), layout.clone(), None).name,
            "anonymous"
        );
        assert_eq!(
            Family::new("drops", String::new(), layout.clone(), None).name,
            "drops_agg"
        );
        assert_eq!(
            Family::new("calls", String::new(), layout, None).name,
            "calls"
        );
    }

    fn dist(buckets: &[(Bound, i64)]) -> Distribution {
        Distribution {
            buckets: buckets
                .iter()
                .map(|&(bound, count)| Bucket { bound, count })
                .collect(),
            empty_rows: (0, 0),
            sum: 0,
        }
    }

    #[test]
    fn quantize_buckets_as_le() {
        // quantize(): ..., -1, 0, 1, 2, 4, 8, ...
        let d = dist(&[
            (Bound::From(-2), 0),
            (Bound::From(-1), 0),
            (Bound::From(0), 1),
            (Bound::From(1), 2),
            (Bound::From(2), 0),
            (Bound::From(4), 3),
            (Bound::From(8), 0),
            (Bound::From(16), 0),
        ]);
        let (b, n) = histogram(&d);
        assert_eq!(n, 6);
        assert_eq!(
            b,
            vec![(0.0, 1), (1.0, 2), (3.0, 0), (7.0, 3), (f64::INFINITY, 0)]
        );
    }

    #[test]
    fn lquantize_buckets_as_le() {
        // lquantize(x, 0, 20, 10): < 0, 0, 10, >= 20
        let d = dist(&[
            (Bound::Below(0), 1),
            (Bound::From(0), 2),
            (Bound::From(10), 0),
            (Bound::AtLeast(20), 4),
        ]);
        let (b, n) = histogram(&d);
        assert_eq!(n, 7);
        assert_eq!(b, vec![(-1.0, 1), (9.0, 2), (19.0, 0), (f64::INFINITY, 4)]);
    }

    #[test]
    fn addresses() {
        assert!(metrics_address("127.0.0.1:0").is_some());
        assert!(metrics_address(":x").is_none());
        assert!(metrics_address("").is_none());
    }
}
