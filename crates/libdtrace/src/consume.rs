//! Consuming the principal buffer: each record is an EPID, the CPU, and the
//! clause's data. The EPID names the probe and the clause, whose layout
//! says how to decode and print each action; error records become calls
//! to the error handler.
//!
//! Records are read CPU by CPU, up to `BATCH` at a time, copied into one
//! buffer kept from call to call; a record's descriptions and values are
//! built in lists kept emptied between records (`rec_pool`,
//! `arg_pool`), so nothing is allocated per record. A firing whose records
//! are printf()s alone, for a consumer that does not see them
//! (`Consumer::sees_printf`) and an output that takes text verbatim, takes
//! the plain path (`plain_printf`, planned once per EPID). The
//! consumer-side actions run here too: `printa()`, `clear()`, `trunc()`,
//! `exit()`, `setopt()`, `system()` (through `dtrace_sys::process`),
//! `freopen()`, `ftruncate()`, and commits of speculations.

use std::io::Write;
use std::sync::Arc;

use dtrace_bpf::plan::{ActionLayout, ClauseLayout, StmtKind, Value, ERROR_EPID, RECORD_HEADER};
use dtrace_lang::ir::PrintfKind;
use dtrace_lang::pdesc::ProbeDesc;
use dtrace_lang::types::Special;

use crate::format::{self, cstr, Arg};
use crate::{aggregate, output};
use crate::{Consume, Consumer, Dtrace, Error};

/// The kind of a record, as the record callback sees it.
///
/// ```
/// use libdtrace::{Consume, Consumer, ProbeData, RecDesc, RecKind};
/// /// Counts the statements that are not actions (records of size 0).
/// struct Statements(usize);
/// impl Consumer for Statements {
///     fn record(&mut self, _out: &mut dyn std::io::Write, _pd: &ProbeData, rec: Option<&RecDesc>) -> Consume {
///         if rec.is_some_and(|r| r.kind == RecKind::Statement) {
///             self.0 += 1;
///         }
///         Consume::This
///     }
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecKind {
    /// trace().
    Trace,
    /// printf() (one record however many arguments).
    Printf,
    /// exit().
    Exit,
    /// printa().
    Printa,
    /// clear().
    Clear,
    /// trunc().
    Trunc,
    /// normalize() or denormalize().
    Normalize,
    /// setopt(): an option set as tracing runs.
    Setopt,
    /// print(): a value shown with its type.
    Print,
    /// tracemem(): bytes of memory.
    Tracemem,
    /// system(): the formatted command is run.
    System,
    /// freopen(): output goes to the file named (or back).
    Freopen,
    /// ftruncate(): the output file is emptied.
    Ftruncate,
    /// A statement that is not an action (an assignment, a function
    /// called for its effect): a record of size 0, as DTrace's DIFEXPR
    /// record with no size. Only the record callback sees it.
    Statement,
    /// raise() or stop(): a signal was sent (size 0).
    Raise,
    /// chill(): the probe spun (size 0).
    Chill,
    /// copyout() or copyoutstr(): the process's memory was written
    /// (size 0).
    Copyout,
}

/// A record description (`dtrace_recdesc_t`) with its decoded values.
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// let mut dt = libdtrace::Dtrace::open()?;
/// use libdtrace::{Arg, Consume, Consumer, ProbeData, RecDesc, RecKind};
/// struct Show;
/// impl Consumer for Show {
///     fn record(&mut self, _out: &mut dyn std::io::Write, _pd: &ProbeData, rec: Option<&RecDesc>) -> Consume {
///         let Some(r) = rec else { return Consume::Next }; // the firing's end
///         println!("action #{} {:?}: {} bytes at {}", r.action, r.kind, r.size, r.offset);
///         if let (RecKind::Trace, Some(v)) = (r.kind, r.int_value) {
///             println!("  traced {}", v);
///         }
///         for v in r.values {
///             if let Arg::Str(s) = v {
///                 println!("  string {:?}", String::from_utf8_lossy(s));
///             }
///         }
///         Consume::This
///     }
/// }
/// let p = dt.compile("BEGIN { n = 1; trace(n + 1); printf(\"%s\\n\", execname); exit(0); }", libdtrace::ProgramSource::File)?;
/// dt.exec(&p)?;
/// let mut dt = dt.go()?;
/// while dt.work(&mut std::io::sink(), &mut Show)? == libdtrace::WorkStatus::Okay {
///     dt.sleep(&[]);
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct RecDesc<'a> {
    /// The action.
    pub kind: RecKind,
    /// Offset of the value in the data, and its size (0 for actions that
    /// record nothing or whose value was known at compile time).
    pub offset: u32,
    /// The size recorded (see `offset`).
    pub size: u32,
    /// DTrace's action number.
    pub action: u32,
    /// The integer value of trace(), exit() and trunc() records, whether
    /// recorded or known at compile time.
    pub int_value: Option<i64>,
    /// The record's values, decoded: trace()'s, print()'s and
    /// tracemem()'s value, printf()'s (and system()'s, freopen()'s)
    /// arguments, exit()'s status, trunc()'s and normalize()'s count,
    /// setopt()'s name and value; none for printa(), clear() and
    /// ftruncate().
    pub values: &'a [Arg<'a>],
}

/// One probe firing (`dtrace_probedata_t`).
///
/// ```
/// use libdtrace::{Consume, Consumer, ProbeData};
/// /// Prints its own line for each firing, in place of dtrace(1M)'s
/// /// CPU, ID and FUNCTION:NAME columns.
/// struct Lines;
/// impl Consumer for Lines {
///     fn probe(&mut self, out: &mut dyn std::io::Write, pd: &ProbeData) -> Consume {
///         let _ = writeln!(out, "cpu {} fired {} (probe {}, {} records)", pd.cpu, pd.probe, pd.probe_id, pd.records.len());
///         Consume::This
///     }
/// }
/// ```
pub struct ProbeData<'a> {
    /// The enabled probe (probe and clause) that fired.
    pub epid: u32,
    /// The CPU it fired on.
    pub cpu: u32,
    /// The probe's ID.
    pub probe_id: u32,
    /// The probe's description.
    pub probe: &'a ProbeDesc,
    /// The firing's records, decoded.
    pub records: &'a [RecDesc<'a>],
    /// The firing's raw bytes, which `RecDesc::offset` indexes.
    pub data: &'a [u8],
    /// With the `flowindent` option: whether this probe enters or
    /// returns, the prefix that shows it (` -> `, ` <- `, `| `; ` => `/` <= `
    /// for system calls) and the indentation before it.
    pub flow: Flow,
    /// See `flow`.
    pub prefix: &'static str,
    /// See `flow`.
    pub indent: usize,
}

/// How a probe moves the flow indentation (`dtrace_flowkind_t`).
///
/// ```
/// use libdtrace::{Consume, Consumer, Flow, ProbeData};
/// /// Draws calls as a tree (with the `flowindent` option set).
/// struct Tree;
/// impl Consumer for Tree {
///     fn probe(&mut self, out: &mut dyn std::io::Write, pd: &ProbeData) -> Consume {
///         let mark = match pd.flow {
///             Flow::Entry => "+",
///             Flow::Return => "-",
///             Flow::None => "|",
///         };
///         let _ = writeln!(out, "{:indent$}{} {}", "", mark, pd.probe.function, indent = pd.indent);
///         Consume::Next
///     }
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Neither.
    None,
    /// A function's entry (indents).
    Entry,
    /// A function's return (unindents).
    Return,
}

/// Whether a probe name is an entry or a return for flow indentation:
/// `entry`/`return`, or a name ending in `-entry`/`-return`.
fn flow_of(name: &str) -> Flow {
    let ends = |word: &str| {
        name.strip_suffix(word)
            .is_some_and(|rest| rest.is_empty() || rest.ends_with('-'))
    };
    if ends("entry") {
        Flow::Entry
    } else if ends("return") {
        Flow::Return
    } else {
        Flow::None
    }
}

/// The flow indentation of one record, as DTrace's consumer decides it:
/// a second clause on the same probe does not indent again, and a return
/// unindents only on the last record of its probe's firing.
pub(crate) fn flow_indent(
    p: &mut Parts<'_>,
    r: &mut Reader,
    epid: u32,
    probe_id: u32,
    probe: &ProbeDesc,
    next_epid: Option<u32>,
) -> (Flow, &'static str, usize) {
    let syscall = probe.provider == "syscall";
    let mut flow = flow_of(&probe.name);
    let same_probe = |other: Option<u32>| {
        other.is_some_and(|e| e != epid && p.epid(e).is_some_and(|d| d.probe == probe_id))
    };
    if flow == Flow::Entry && same_probe(r.flow_last_epid) {
        flow = Flow::None;
    }
    if flow == Flow::Return && same_probe(next_epid) {
        flow = Flow::None;
    }
    let prefix = match (flow, syscall) {
        (Flow::Entry, false) => " -> ",
        (Flow::Entry, true) => " => ",
        (Flow::Return, false) => " <- ",
        (Flow::Return, true) => " <= ",
        (Flow::None, _) => "| ",
    };
    if flow == Flow::Return {
        r.flow_indent = r.flow_indent.saturating_sub(2);
    }
    let indent = r.flow_indent;
    if flow == Flow::Entry {
        r.flow_indent += 2;
    }
    r.flow_last_epid = Some(epid);
    (flow, prefix, indent)
}

/// A runtime fault (`dtrace_errdata_t`).
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// let mut dt = libdtrace::Dtrace::open()?;
/// dt.handle_err(|e: &libdtrace::ErrorData| {
///     eprintln!("fault {} at {:#x} in action #{} of {} (EPID {}): {}", e.fault, e.addr, e.action, e.probe, e.epid, e.msg);
/// });
/// let p = dt.compile("BEGIN { trace(*(int *)8); exit(0); }", libdtrace::ProgramSource::File)?;
/// dt.exec(&p)?;
/// let mut dt = dt.go()?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct ErrorData {
    /// The faulting enabled probe.
    pub epid: u32,
    /// Its probe's ID.
    pub probe_id: u32,
    /// Its probe's description.
    pub probe: ProbeDesc,
    /// Action number, 0 for the predicate.
    pub action: u32,
    /// The fault (DTrace's DTRACEFLT_ numbers; `fault_str` words it).
    pub fault: u64,
    /// The address that faulted, for the faults that have one.
    pub addr: u64,
    /// The message dtrace(1M) prints after "dtrace: ".
    pub msg: String,
}

/// DTrace's words for each fault.
pub(crate) fn fault_str(f: u64) -> &'static str {
    match f {
        1 => "invalid address",
        2 => "invalid alignment",
        3 => "illegal operation",
        4 => "divide-by-zero",
        5 => "out of scratch space",
        6 => "invalid kernel access",
        7 => "invalid user access",
        8 => "tuple stack overflow",
        9 => "bad stack",
        _ => "unknown fault",
    }
}

fn rd_u32(b: &[u8], o: usize) -> u32 {
    b.get(o..o + 4)
        .map(|s| u32::from_ne_bytes(s.try_into().expect("4")))
        .unwrap_or(0)
}

fn rd_u64(b: &[u8], o: usize) -> u64 {
    b.get(o..o + 8)
        .map(|s| u64::from_ne_bytes(s.try_into().expect("8")))
        .unwrap_or(0)
}

/// How a user address value prints, if the type is one.
fn user_how(ty: &dtrace_lang::types::Type) -> Option<crate::usym::UserHow> {
    match ty.special()? {
        Special::USym => Some(crate::usym::UserHow::Sym),
        Special::UMod => Some(crate::usym::UserHow::Mod),
        Special::UAddr => Some(crate::usym::UserHow::Addr),
        _ => None,
    }
}

/// The value of a recorded or constant value, as a format argument.
/// `indent` is the `stackindent` a stack is printed with.
#[inline]
fn value_arg<'a>(v: &'a Value, data: &'a [u8], indent: usize) -> Arg<'a> {
    match v {
        Value::Int { offset, ty } if ty.is_float() => {
            let size = ty.scalar_size() as usize;
            let o = *offset as usize;
            Arg::Float(format::float_from_bytes(
                data.get(o..o + size).unwrap_or(&[]),
            ))
        }
        Value::Int { offset, ty } => {
            let raw = rd_u64(data, *offset as usize);
            match ty.special() {
                Some(Special::Sym) => Arg::Sym(raw),
                Some(Special::Mod) => Arg::Mod(raw),
                _ => {
                    let it = format::int_type_of(ty);
                    Arg::Int(format::normalize(raw as i64, it), it)
                }
            }
        }
        Value::ConstInt { value, ty } => match ty.special() {
            Some(Special::Sym) => Arg::Sym(*value as u64),
            Some(Special::Mod) => Arg::Mod(*value as u64),
            _ => {
                let it = format::int_type_of(ty);
                Arg::Int(format::normalize(*value, it), it)
            }
        },
        Value::Str { offset, size } => {
            let o = *offset as usize;
            let end = (o + *size as usize).min(data.len());
            Arg::Str(cstr(data.get(o..end).unwrap_or(&[])))
        }
        Value::ConstStr(s) => Arg::Str(s),
        Value::Bytes { offset, size, ty } => {
            let o = *offset as usize;
            let b = data.get(o..o + *size as usize).unwrap_or(&[]);
            if let Some(Special::Stack(_)) = ty.special() {
                Arg::Stack(b, indent)
            } else if let Some(Special::UStack(_)) = ty.special() {
                Arg::UStack(b, indent)
            } else if let Some(how) = user_how(ty) {
                Arg::User(b, how)
            } else if ty.is_float() {
                Arg::Float(format::float_from_bytes(b))
            } else {
                Arg::Bytes(b)
            }
        }
    }
}

/// Folds a streamed aggregation's update into the consumer's rows
/// (`streamed.rs`): its keys decoded as the aggregation's key types,
/// a user stack unwound to its frames.
fn fold_streamed(p: &mut Parts, rec: &[u8], agg: usize, keys: &[Value], words: u32, cpu: usize) {
    let Some(running) = p.running.as_ref() else {
        return;
    };
    let layout = &running.gen.aggs[agg];
    let key: Vec<aggregate::KeyValue> = keys
        .iter()
        .zip(&layout.keys)
        .map(|(v, f)| match v {
            Value::ConstInt { value, .. } => aggregate::decode_field(&f.ty, &value.to_ne_bytes()),
            Value::ConstStr(s) => aggregate::KeyValue::Str(s.clone()),
            Value::Int { offset, .. } => {
                aggregate::decode_field(&f.ty, rec.get(*offset as usize..).unwrap_or(&[]))
            }
            Value::Str { offset, size } | Value::Bytes { offset, size, .. } => {
                let o = *offset as usize;
                let b = rec.get(o..o + *size as usize).unwrap_or(&[]);
                match f.ty.special() {
                    Some(Special::UStack(_)) => {
                        aggregate::KeyValue::UStack(crate::unwind::unwind(b))
                    }
                    _ => aggregate::decode_field(&f.ty, b),
                }
            }
        })
        .collect();
    let size = dtrace_bpf::aggs::value_size(layout.func) as usize;
    let w = rec
        .get(words as usize..words as usize + size)
        .unwrap_or(&[]);
    running.streamed().fold(layout, key, w, cpu, p.opts.aggsize);
}

/// trace()'s view of a value: a float's bits as an integer, a
/// by-reference value's bytes.
fn trace_arg<'a>(v: &'a Value, data: &'a [u8], indent: usize) -> Arg<'a> {
    match v {
        Value::Int { offset, ty } if ty.is_float() => {
            let size = ty.scalar_size() as u8;
            let it = dtrace_lang::types::IntType::new(size, false, "float");
            Arg::Int(
                format::normalize(rd_u64(data, *offset as usize) as i64, it),
                it,
            )
        }
        Value::Bytes { offset, size, ty } if ty.special().is_none() => {
            let o = *offset as usize;
            Arg::Bytes(data.get(o..o + *size as usize).unwrap_or(&[]))
        }
        _ => value_arg(v, data, indent),
    }
}

fn value_extent(v: &Value) -> (u32, u32) {
    match v {
        Value::Int { offset, .. } => (*offset, 8),
        Value::Str { offset, size } | Value::Bytes { offset, size, .. } => (*offset, *size),
        _ => (0, 0),
    }
}

/// What consuming needs of a session, borrowed apart from the rest of
/// the handle (what compiling keeps is not among it): the running maps
/// and buffers, the types and EPIDs records are decoded by, the options,
/// the aggregations' state, where output goes, the error handler, and
/// the speculations to free. The consumer's own state is the
/// [`Reader`], lent alongside.
pub(crate) struct Parts<'a> {
    pub(crate) running: &'a mut Option<crate::load::Running>,
    pub(crate) syms: &'a mut dtrace_lang::Symbols,
    pub(crate) epids: &'a [crate::EpidDesc],
    pub(crate) probes: &'a dtrace_providers::Probes,
    pub(crate) opts: &'a mut crate::Options,
    pub(crate) macros: &'a dtrace_lang::MacroEnv,
    pub(crate) render_cache: &'a std::cell::Cell<Option<output::RenderCx>>,
    pub(crate) aggs: &'a mut crate::aggregations::AggState,
    pub(crate) sink: &'a mut crate::sink::Sink,
    pub(crate) err_handler: &'a mut Option<crate::ErrHandler>,
    pub(crate) spec_dirty: &'a mut Vec<u32>,
    pub(crate) stopped: bool,
}

impl Parts<'_> {
    /// The enabled probe of an EPID.
    fn epid(&self, epid: u32) -> Option<crate::EpidDesc> {
        self.epids.get((epid as usize).checked_sub(1)?).copied()
    }

    fn render_cx(&self) -> output::RenderCx {
        crate::sink::render_cx(self.render_cache, self.opts, self.macros)
    }

    /// `setopt()`: an option that may change while tracing.
    fn setopt(&mut self, name: &str, value: Option<&str>) -> Result<(), Error> {
        self.opts
            .set_while_tracing(name, value)
            .map_err(|err| Error::Option {
                name: name.to_string(),
                value: value.map(str::to_string),
                err,
            })?;
        self.render_cache.set(None);
        Ok(())
    }

    fn agg_snapshot(
        &mut self,
        id: dtrace_lang::ir::AggId,
    ) -> Result<Vec<aggregate::AggEntry>, Error> {
        self.aggs.snapshot(self.running.as_ref(), self.opts, id)
    }
}

impl Dtrace {
    /// The parts of the handle consuming borrows.
    pub(crate) fn parts(&mut self) -> Parts<'_> {
        Parts {
            stopped: self.stopped,
            running: &mut self.running,
            syms: &mut self.syms,
            epids: &self.epids,
            probes: &self.probes,
            opts: &mut self.opts,
            macros: &self.macros,
            render_cache: &self.render_cache,
            aggs: &mut self.aggs,
            sink: &mut self.sink,
            err_handler: &mut self.err_handler,
            spec_dirty: &mut self.spec_dirty,
        }
    }
}

/// What the consumer keeps from one `work` to the next: the order the
/// CPUs' buffers are read in, flow indentation, each EPID's layout, and
/// buffers and lists whose allocations serve record after record. The
/// [`crate::Session`] owns it (it exists only while tracing) and lends it
/// to each `work`, with the handle.
#[derive(Default)]
pub(crate) struct Reader {
    /// Emptied lists a record's description is built in, kept so that
    /// their allocations serve the next record (`consume::consume_one`).
    pub(crate) rec_pool: Vec<RecDesc<'static>>,
    pub(crate) arg_pool: Vec<Arg<'static>>,
    pub(crate) range_pool: Vec<(usize, usize)>,
    /// The ring policy's chunks have been read (once, at the end).
    pub(crate) ring_drained: bool,
    /// The consumer's copy of the records it is reading (kept to spare
    /// an allocation per batch).
    pub(crate) batch_bytes: Vec<u8>,
    /// The text of the record being printed (kept likewise).
    pub(crate) text_scratch: Vec<u8>,
    /// Text of firings printed by the plain path, not yet written out
    /// (`consume::flush_plain`).
    pub(crate) plain_text: Vec<u8>,
    /// The CPU BEGIN ran on, until its records have been read: its
    /// buffer is read first, as DTrace does, so that BEGIN's output comes
    /// before that of probes that fired on other CPUs after it.
    pub(crate) begin_cpu: Option<u32>,
    /// The CPU END ran on: its buffer is read last.
    pub(crate) end_cpu: Option<u32>,
    /// A printf()'s text, kept likewise.
    pub(crate) fmt_scratch: Vec<u8>,
    /// Flow indentation (`flowindent`): the current depth and the last
    /// EPID consumed.
    pub(crate) flow_indent: usize,
    pub(crate) flow_last_epid: Option<u32>,
    /// Per-EPID record layout and probe description, shared rather than
    /// rebuilt for every record consumed.
    pub(crate) epid_cache: Vec<Option<EpidInfo>>,
}

/// Processes everything in the buffer.
pub(crate) fn consume_all(
    p: &mut Parts<'_>,
    r: &mut Reader,
    out: &mut dyn Write,
    consumer: &mut dyn Consumer,
) -> Result<(), Error> {
    crate::usym::drain_mappings();
    // The ring policy's chunks, once tracing has stopped: CPU by CPU,
    // oldest first; then the ring buffers (END's records among them).
    if p.stopped && !r.ring_drained {
        r.ring_drained = true;
        let chunks = ring_records(p)?;
        // The user stacks the chunks' records refer to went to the ring
        // buffers: those not read yet are kept first.
        let mut later: Vec<Vec<u8>> = Vec::new();
        if !chunks.is_empty() {
            if let Some(run) = p.running.as_mut() {
                for ring in run.rings.iter_mut() {
                    ring.consume(|rec| {
                        if rd_u32(rec, 0) == dtrace_bpf::plan::USTACK_EPID {
                            crate::unwind::keep_snapshot(
                                rd_u32(rec, 4),
                                rec.get(8..).unwrap_or(&[]),
                            );
                        } else {
                            later.push(rec.to_vec());
                        }
                        true
                    });
                }
            }
        }
        for rec in chunks.into_iter().chain(later) {
            if consume_one(p, r, &rec, None, out, consumer, &mut Plain::Unknown)? == Consume::Abort
            {
                return Err(Error::Aborted);
            }
        }
    }
    // Up to BATCH records are copied out of the rings (which the
    // consumer's handlers may not borrow) into one buffer, kept from call
    // to call, and consumed from there.
    const BATCH: usize = 4096;
    let mut bytes = std::mem::take(&mut r.batch_bytes);
    let mut ends: Vec<usize> = Vec::with_capacity(BATCH);
    // CPU by CPU, as DTrace reads its per-CPU buffers: BEGIN's first the
    // first time, END's last.
    let nrings = p.running.as_ref().map_or(0, |run| run.rings.len());
    let mut order: Vec<usize> = (0..nrings).collect();
    if let Some(b) = r
        .begin_cpu
        .take()
        .map(|c| c as usize)
        .filter(|&c| c < nrings)
    {
        order.retain(|&c| c != b);
        order.insert(0, b);
    }
    if let Some(e) = r.end_cpu.map(|c| c as usize).filter(|&c| c < nrings) {
        order.retain(|&c| c != e);
        order.push(e);
    }
    let res = loop {
        if let Err(e) = plain_from_rings(p, r, &order, out, consumer) {
            break Err(e);
        }
        bytes.clear();
        ends.clear();
        {
            let Some(run) = p.running.as_mut() else {
                break Ok(());
            };
            for &c in &order {
                let ring = &mut run.rings[c];
                ring.consume(|rec| {
                    bytes.extend_from_slice(rec);
                    ends.push(bytes.len());
                    ends.len() < BATCH
                });
                if ends.len() >= BATCH {
                    break;
                }
            }
        }
        if ends.is_empty() {
            break Ok(());
        }
        let mut aborted = false;
        let mut gate = Plain::Unknown;
        for i in 0..ends.len() {
            let start = if i == 0 { 0 } else { ends[i - 1] };
            let rec = &bytes[start..ends[i]];
            // The next record's EPID, for flow indentation.
            let next = ends
                .get(i + 1)
                .and_then(|&e| bytes.get(ends[i]..e))
                .map(|n| rd_u32(n, 0));
            match consume_one(p, r, rec, next, out, consumer, &mut gate) {
                Ok(Consume::Abort) => {
                    aborted = true;
                    break;
                }
                Ok(_) => {}
                Err(e) => {
                    r.batch_bytes = bytes;
                    return Err(e);
                }
            }
        }
        if let Err(e) = flush_plain(p, r, out) {
            break Err(e);
        }
        if aborted {
            break Err(Error::Aborted);
        }
        out.flush().ok();
    };
    r.batch_bytes = bytes;
    // The ring policy's records may have left plain text.
    res.and(flush_plain(p, r, out))
}

/// The fast path of a stream of printf()s: while the plain path applies
/// (see `Plain`), each CPU's records that are firings of printf()s alone
/// are formatted where they lie in its ring buffer, with no copy and no
/// per-record dispatch; the first other record (or one of an EPID not
/// seen yet) is left for `consume_one`, and with it the rest of that
/// CPU's records, so that each CPU's stay in order.
fn plain_from_rings(
    p: &mut Parts<'_>,
    r: &mut Reader,
    order: &[usize],
    out: &mut dyn Write,
    consumer: &mut dyn Consumer,
) -> Result<(), Error> {
    let cx = p.render_cx();
    if cx.flowindent || consumer.sees_printf() || !p.sink.output.text_is_verbatim() {
        return Ok(());
    }
    let (indent, target) = (cx.indent, cx.target);
    for &c in order {
        loop {
            let Some(ring) = p.running.as_mut().and_then(|run| run.rings.get_mut(c)) else {
                return Ok(());
            };
            let (cache, text) = (&r.epid_cache, &mut r.plain_text);
            ring.consume_until(|rec| {
                if text.len() >= PLAIN_FLUSH {
                    return false;
                }
                let epid = rd_u32(rec, 0) as usize;
                let Some(Some(info)) = cache.get(epid) else {
                    return false;
                };
                let Some(plan) = &info.plain else {
                    return false;
                };
                plain_printf(text, rec, plan, indent, target);
                true
            });
            if r.plain_text.len() < PLAIN_FLUSH {
                break;
            }
            flush_plain(p, r, out)?;
        }
    }
    flush_plain(p, r, out)
}

/// The records the ring policy's chunks hold, each CPU's oldest first.
fn ring_records(p: &Parts<'_>) -> Result<Vec<Vec<u8>>, Error> {
    let Some(r) = p.running.as_ref() else {
        return Ok(Vec::new());
    };
    let Some(m) = r.gen.ring else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    let mut word = [0u8; 8];
    let mut chunk = vec![0u8; m.chunk as usize];
    for cpu in 0..m.ncpus {
        if !r.map(m.cur).lookup(&cpu.to_ne_bytes(), &mut word)? {
            continue;
        }
        let cur = (u64::from_ne_bytes(word) as u32).min(m.chunks - 1);
        for k in 1..=m.chunks {
            let n = (cur + k) % m.chunks;
            let key = (cpu * m.chunks + n).to_ne_bytes();
            if !r.map(m.fill).lookup(&key, &mut word)? {
                continue;
            }
            let fill = (u64::from_ne_bytes(word) as usize).min(chunk.len());
            if fill == 0 || !r.map(m.buf).lookup(&key, &mut chunk)? {
                continue;
            }
            let mut off = 0;
            while off + RECORD_HEADER as usize <= fill {
                let epid = rd_u32(&chunk, off);
                let size = p
                    .epid(epid)
                    .and_then(|d| r.gen.clauses.get(d.clause))
                    .map_or(0, |l| l.size as usize);
                if size == 0 || off + size > fill {
                    break;
                }
                out.push(chunk[off..off + size].to_vec());
                off += size;
            }
        }
    }
    Ok(out)
}

/// What the consumer needs to decode one EPID's records.
#[derive(Clone)]
pub(crate) struct EpidInfo {
    probe: Arc<ProbeDesc>,
    layout: Arc<ClauseLayout>,
    /// When the record is printf()s alone, every one always run and with
    /// no `*` width or precision: the plain path's steps
    /// (`plain_printf`).
    plain: Option<Arc<PlainPlan>>,
}

/// One step of the plain path: the firing's printf()s flattened into
/// literal text and conversions, worked out once per EPID.
#[derive(Clone, Debug, PartialEq)]
enum PlainOp {
    /// Bytes `start..end` of the plan's text.
    Text { start: usize, end: usize },
    /// A bare `%d`, `%i` or `%u` (no flag, width or precision, no `h` or
    /// `hh`) of the integer of this type at this offset: its digits.
    Decimal {
        offset: usize,
        it: dtrace_lang::types::IntType,
        signed: bool,
    },
    /// Another integer conversion of an integer (no float, no symbol or
    /// module address), formatted straight from the record.
    Int {
        offset: usize,
        it: dtrace_lang::types::IntType,
        conv: dtrace_lang::printf::Conversion,
    },
    /// Anything else: the value decoded by `value_arg`.
    Other {
        conv: dtrace_lang::printf::Conversion,
        value: Value,
    },
}

/// The plain path's steps for one EPID, and the literal text they copy.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct PlainPlan {
    ops: Vec<PlainOp>,
    text: Vec<u8>,
}

/// The plain path's plan for a clause whose records are printf()s alone
/// (no other action, no flag saying whether one ran, no width or
/// precision from an argument); `None` for any other clause.
fn plain_plan(layout: &ClauseLayout) -> Option<Arc<PlainPlan>> {
    use dtrace_lang::printf::{ConvKind, Segment};
    if layout.actions.is_empty() {
        return None;
    }
    let mut plan = PlainPlan::default();
    for a in &layout.actions {
        let (format, kind, args) = match &a.action {
            ActionLayout::Printf { format, kind, args } => (format, kind, args),
            // A statement prints nothing, run or not.
            ActionLayout::Statement(_) => continue,
            _ => return None,
        };
        let simple = format.conversions().all(|c| {
            !c.is_agg()
                && c.width != dtrace_lang::printf::Count::Star
                && c.precision != dtrace_lang::printf::Count::Star
        });
        if a.ran_flag.is_some() || *kind != PrintfKind::Printf || !simple {
            return None;
        }
        // With no `*`, the arguments are the conversions' one for one;
        // a conversion with none prints nothing.
        let mut args = args.iter();
        for seg in &format.segments {
            let c = match seg {
                Segment::Literal(b) => {
                    let start = plan.text.len();
                    plan.text.extend_from_slice(b);
                    let end = plan.text.len();
                    match plan.ops.last_mut() {
                        Some(PlainOp::Text { end: e, .. }) if *e == start => *e = end,
                        _ => plan.ops.push(PlainOp::Text { start, end }),
                    }
                    continue;
                }
                Segment::Conv(c) => c,
            };
            let Some(v) = args.next() else {
                continue;
            };
            let op = match v {
                Value::Int { offset, ty } if !ty.is_float() && ty.special().is_none() => {
                    let (offset, it) = (*offset as usize, format::int_type_of(ty));
                    match (format::bare_decimal(c), c.kind) {
                        (Some(signed), _) => PlainOp::Decimal { offset, it, signed },
                        (
                            None,
                            ConvKind::Signed
                            | ConvKind::Unsigned
                            | ConvKind::Octal
                            | ConvKind::Hex { .. }
                            | ConvKind::Pointer,
                        ) => PlainOp::Int {
                            offset,
                            it,
                            conv: c.clone(),
                        },
                        _ => PlainOp::Other {
                            conv: c.clone(),
                            value: v.clone(),
                        },
                    }
                }
                _ => PlainOp::Other {
                    conv: c.clone(),
                    value: v.clone(),
                },
            };
            plan.ops.push(op);
        }
    }
    Some(Arc::new(plan))
}

fn epid_info(p: &mut Parts<'_>, r: &mut Reader, epid: u32, probe: u32, clause: usize) -> EpidInfo {
    let i = epid as usize;
    if let Some(Some(info)) = r.epid_cache.get(i) {
        return info.clone();
    }
    let layout: ClauseLayout = p
        .running
        .as_ref()
        .and_then(|r| r.gen.clauses.get(clause).cloned())
        .unwrap_or_default();
    let info = EpidInfo {
        probe: Arc::new(
            p.probes
                .get(probe)
                .map(|p| p.desc.clone())
                .unwrap_or_default(),
        ),
        plain: plain_plan(&layout),
        layout: Arc::new(layout),
    };
    if r.epid_cache.len() <= i {
        r.epid_cache.resize(i + 1, None);
    }
    r.epid_cache[i] = Some(info.clone());
    info
}

/// Whether firings of printf()s alone take the plain path (`plain_printf`):
/// worked out once for a run of records, and again after any record that
/// took the other path (which may have set an option).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Plain {
    Unknown,
    No,
    Yes { indent: usize, target: i64 },
}

fn consume_one(
    p: &mut Parts<'_>,
    r: &mut Reader,
    rec: &[u8],
    next_epid: Option<u32>,
    out: &mut dyn Write,
    consumer: &mut dyn Consumer,
    gate: &mut Plain,
) -> Result<Consume, Error> {
    let epid = rd_u32(rec, 0);
    if *gate == Plain::Unknown {
        let cx = p.render_cx();
        *gate = if !cx.flowindent && !consumer.sees_printf() && p.sink.output.text_is_verbatim() {
            Plain::Yes {
                indent: cx.indent,
                target: cx.target,
            }
        } else {
            Plain::No
        };
    }
    if let Plain::Yes { indent, target } = *gate {
        if r.epid_cache.get(epid as usize).is_none_or(Option::is_none) {
            if let Some(desc) = p.epid(epid) {
                epid_info(p, r, epid, desc.probe, desc.clause);
            }
        }
        if let Some(Some(info)) = r.epid_cache.get(epid as usize) {
            if let Some(plan) = &info.plain {
                plain_printf(&mut r.plain_text, rec, plan, indent, target);
                if r.plain_text.len() >= PLAIN_FLUSH {
                    flush_plain(p, r, out)?;
                }
                return Ok(Consume::This);
            }
        }
    }
    // Anything else is printed after the plain path's text, and may set
    // an option the gate depends on.
    *gate = Plain::Unknown;
    flush_plain(p, r, out)?;
    let cpu = rd_u32(rec, 4);
    if epid == ERROR_EPID {
        handle_error_record(p, rec);
        return Ok(Consume::Next);
    }
    if epid == dtrace_bpf::plan::spec::EPID {
        return handle_spec_record(p, r, rec, out, consumer);
    }
    if epid == dtrace_bpf::plan::USTACK_EPID {
        crate::unwind::keep_snapshot(cpu, rec.get(8..).unwrap_or(&[]));
        return Ok(Consume::Next);
    }
    let Some(desc) = p.epid(epid) else {
        return Ok(Consume::Next);
    };
    let info = epid_info(p, r, epid, desc.probe, desc.clause);
    let layout = &*info.layout;
    // Streamed aggregations' updates are folded first; a record of
    // nothing else is not shown (an aggregation is no record in DTrace).
    let (mut folded, mut others) = (false, false);
    for a in &layout.actions {
        match &a.action {
            ActionLayout::AggUpdate { agg, keys, words } => {
                folded = true;
                let ran = a.ran_flag.is_none_or(|f| rd_u64(rec, f as usize) != 0);
                if ran {
                    fold_streamed(p, rec, *agg, keys, *words, cpu as usize);
                }
            }
            _ => others = true,
        }
    }
    if folded && !others {
        return Ok(Consume::Next);
    }
    let cx = p.render_cx();
    let indent = cx.indent;
    // The records' values go into one arena, and the records into one
    // list, both kept from record to record (their allocations reused):
    // nothing is allocated per record.
    let mut arena: Vec<Arg> = std::mem::take(&mut r.arg_pool);
    let mut ranges = std::mem::take(&mut r.range_pool);
    ranges.clear();
    for a in &layout.actions {
        let from = arena.len();
        match &a.action {
            ActionLayout::Trace(v) | ActionLayout::Print(v) | ActionLayout::Tracemem(v, _) => {
                arena.push(trace_arg(v, rec, indent))
            }
            ActionLayout::Printf { args, .. } => {
                arena.extend(args.iter().map(|v| value_arg(v, rec, indent)))
            }
            ActionLayout::Exit(v)
            | ActionLayout::Trunc(_, Some(v))
            | ActionLayout::Normalize(_, Some(v)) => arena.push(value_arg(v, rec, indent)),
            ActionLayout::Setopt(n, v) => arena.extend(
                std::iter::once(n)
                    .chain(v.as_ref())
                    .map(|v| value_arg(v, rec, indent)),
            ),
            _ => {}
        }
        ranges.push((from, arena.len()));
    }
    let mut records: Vec<RecDesc> = std::mem::take(&mut r.rec_pool);
    records.extend(layout.actions.iter().zip(&ranges).map(|(a, &(from, to))| {
        let (kind, (offset, size)) = match &a.action {
            ActionLayout::Trace(v) => (RecKind::Trace, value_extent(v)),
            ActionLayout::Printf { kind, .. } => (
                match kind {
                    PrintfKind::Printf => RecKind::Printf,
                    PrintfKind::System => RecKind::System,
                    PrintfKind::Freopen => RecKind::Freopen,
                },
                (RECORD_HEADER, 0),
            ),
            ActionLayout::Ftruncate => (RecKind::Ftruncate, (0, 0)),
            ActionLayout::Exit(v) => (RecKind::Exit, value_extent(v)),
            ActionLayout::Printa { .. } => (RecKind::Printa, (0, 0)),
            ActionLayout::Clear(_) => (RecKind::Clear, (0, 0)),
            ActionLayout::Trunc(_, v) => (
                RecKind::Trunc,
                v.as_ref().map(value_extent).unwrap_or((0, 0)),
            ),
            ActionLayout::Normalize(_, v) => (
                RecKind::Normalize,
                v.as_ref().map(value_extent).unwrap_or((0, 0)),
            ),
            ActionLayout::Setopt(n, _) => (RecKind::Setopt, value_extent(n)),
            ActionLayout::Print(v) => (RecKind::Print, value_extent(v)),
            ActionLayout::Tracemem(v, _) => (RecKind::Tracemem, value_extent(v)),
            // An aggregation's update is no record in DTrace: a
            // statement's, of no size.
            ActionLayout::AggUpdate { .. } => (RecKind::Statement, (0, 0)),
            ActionLayout::Statement(k) => (
                match k {
                    StmtKind::Expr => RecKind::Statement,
                    StmtKind::Raise => RecKind::Raise,
                    StmtKind::Chill => RecKind::Chill,
                    StmtKind::Copyout => RecKind::Copyout,
                },
                (0, 0),
            ),
        };
        let values = &arena[from..to];
        let int_value = match (&a.action, values.first()) {
            (
                ActionLayout::Trace(_) | ActionLayout::Exit(_) | ActionLayout::Trunc(_, Some(_)),
                Some(Arg::Int(x, _)),
            ) => Some(*x),
            _ => None,
        };
        RecDesc {
            kind,
            offset,
            size,
            action: a.index,
            int_value,
            values,
        }
    }));
    let fired = Fired {
        epid,
        cpu,
        probe_id: desc.probe,
        next_epid,
        info: &info,
    };
    let result = present(p, r, rec, &fired, out, consumer, &records);
    // The lists go back, emptied, for the next record (an empty list
    // collected into another keeps its allocation).
    r.rec_pool = emptied(records);
    r.arg_pool = emptied(arena);
    r.range_pool = ranges;
    result
}

/// A firing whose records are printf()s alone, for a consumer that does
/// not see them and an output that takes text verbatim: formatted
/// straight into the kept text buffer, an integer argument of an integer
/// conversion read from the record as it is formatted, with none of the
/// descriptions the callbacks need. What it prints is what `present`
/// prints for the same record.
fn plain_printf(text: &mut Vec<u8>, rec: &[u8], plan: &PlainPlan, indent: usize, target: i64) {
    for op in &plan.ops {
        match op {
            PlainOp::Text { start, end } => {
                format::push_short(text, plan.text.get(*start..*end).unwrap_or(&[]))
            }
            &PlainOp::Decimal { offset, it, signed } => {
                let v = format::normalize(rd_u64(rec, offset) as i64, it);
                format::push_decimal(text, v, it, signed);
            }
            PlainOp::Int { offset, it, conv } => {
                let v = format::normalize(rd_u64(rec, *offset) as i64, *it);
                let (width, prec) = (format::fixed(conv.width), format::fixed(conv.precision));
                format::format_int(text, conv, v, *it, width, prec);
            }
            PlainOp::Other { conv, value } => {
                let (width, prec) = (format::fixed(conv.width), format::fixed(conv.precision));
                format::format_conv(
                    text,
                    conv,
                    value_arg(value, rec, indent),
                    width,
                    prec,
                    target,
                );
            }
        }
    }
}

/// The plain path's text is written out when it reaches this size, when
/// a record takes the other path, and when a batch of records ends.
const PLAIN_FLUSH: usize = 1 << 15;

/// Writes out the plain path's text (printed firings of printf()s alone,
/// kept to be written in one go).
pub(crate) fn flush_plain(
    p: &mut Parts<'_>,
    r: &mut Reader,
    out: &mut dyn Write,
) -> Result<(), Error> {
    if r.plain_text.is_empty() {
        return Ok(());
    }
    let text = std::mem::take(&mut r.plain_text);
    let res = p.sink.emit(out, &text);
    r.plain_text = text;
    r.plain_text.clear();
    res?;
    Ok(())
}

/// `v` emptied, as a list of another type of the same layout (the same
/// type with other lifetimes): collecting an empty list in place keeps
/// its allocation, so the next record's list reuses it.
// `filter` cannot change the element type; `filter_map` can.
#[allow(clippy::unnecessary_filter_map)]
fn emptied<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    v.into_iter().filter_map(|_| None).collect()
}

/// Which probe fired, for `present`.
struct Fired<'a> {
    epid: u32,
    cpu: u32,
    probe_id: u32,
    next_epid: Option<u32>,
    /// Its EPID's layout and probe description.
    info: &'a EpidInfo,
}

/// Hands a described probe firing to the consumer and, unless it
/// declines, prints its records.
fn present(
    p: &mut Parts<'_>,
    r: &mut Reader,
    rec: &[u8],
    fired: &Fired,
    out: &mut dyn Write,
    consumer: &mut dyn Consumer,
    records: &[RecDesc],
) -> Result<Consume, Error> {
    let Fired {
        epid,
        cpu,
        probe_id,
        next_epid,
        info,
    } = *fired;
    let (probe, layout) = (&*info.probe, &*info.layout);
    let cx = p.render_cx();
    let indent = cx.indent;
    let (flow, prefix, flow_depth) = if cx.flowindent {
        flow_indent(p, r, epid, probe_id, probe, next_epid)
    } else {
        (Flow::None, "", 0)
    };
    let pd = ProbeData {
        epid,
        cpu,
        probe_id,
        probe,
        records,
        data: rec,
        flow,
        prefix,
        indent: flow_depth,
    };
    match consumer.probe(out, &pd) {
        Consume::Abort => return Ok(Consume::Abort),
        Consume::Next => return Ok(Consume::Next),
        Consume::This => {}
    }
    // One buffer for the record's text, kept from record to record.
    let mut text = std::mem::take(&mut r.text_scratch);
    text.clear();
    p.sink.output.begin(&mut text, &pd);
    p.sink.emit(out, &text)?;
    for (i, a) in layout.actions.iter().enumerate() {
        text.clear();
        if let Some(f) = a.ran_flag {
            if rd_u64(rec, f as usize) == 0 {
                continue;
            }
        }
        if let ActionLayout::AggUpdate { .. } = &a.action {
            continue;
        }
        match consumer.record(out, &pd, Some(&records[i])) {
            Consume::Abort => return Ok(Consume::Abort),
            Consume::Next => continue,
            Consume::This => {}
        }
        match &a.action {
            ActionLayout::Trace(v) => p
                .sink
                .output
                .value(&mut text, trace_arg(v, rec, indent), cx),
            ActionLayout::Printf { format, kind, .. } => {
                // The arguments, decoded once for the record callback.
                let vals = &records[i].values;
                if let Some(w) = format::star_too_wide(format, vals) {
                    let what = format!(
                        "printf( ) width or precision {} exceeds the limit of {}",
                        w,
                        dtrace_lang::printf::MAX_WIDTH
                    );
                    report_error(p, pd.epid, i as u32 + 1, 3, 0, &what);
                    continue;
                }
                if *kind == PrintfKind::Printf && p.sink.output.text_is_verbatim() {
                    format::format_into(&mut text, format, vals, None, cx.target);
                    p.sink.emit(out, &text)?;
                    p.sink.flush_pending(out)?;
                    continue;
                }
                let mut formatted = std::mem::take(&mut r.fmt_scratch);
                formatted.clear();
                format::format_into(&mut formatted, format, vals, None, cx.target);
                match kind {
                    PrintfKind::Printf => {
                        p.sink.output.text(&mut text, &formatted);
                        r.fmt_scratch = formatted;
                    }
                    PrintfKind::System => {
                        if p.sink.output.captures_system() {
                            let printed = run_system(&formatted, true);
                            p.sink.output.system(&mut text, &formatted, &printed);
                            r.fmt_scratch = formatted;
                        } else {
                            p.sink.flush_output(out)?;
                            run_system(&formatted, false);
                        }
                        continue;
                    }
                    PrintfKind::Freopen => {
                        p.sink.flush_output(out)?;
                        if let Err(why) = p.sink.freopen(&formatted) {
                            report_error(p, pd.epid, a.index, 3, 0, &why);
                        }
                        continue;
                    }
                }
            }
            // Folded above.
            ActionLayout::AggUpdate { .. } => continue,
            ActionLayout::Ftruncate => {
                p.sink.flush_output(out)?;
                p.sink.truncate_output();
                continue;
            }
            ActionLayout::Exit(_) => {}
            ActionLayout::Printa { format, aggs } => {
                let sort = crate::aggregations::sort_opts(p.opts);
                // One aggregation read now: flat tables, sorted by index
                // (a million keys printed each second stay tens of
                // megabytes); several joined, or one as read at the last
                // aggregation tick (`aggrate`), as owned rows.
                let (table, order, joined);
                let rows = match aggs.as_slice() {
                    [id] if !p.opts.is_set(crate::Opt::aggrate) => {
                        table = match p.running.as_ref() {
                            Some(r) => r.table_with(*id, p.opts.aggpercpu)?,
                            None => aggregate::AggTable::default(),
                        };
                        order = table.sorted(sort);
                        aggregate::AggRows::Table {
                            table: &table,
                            order: &order,
                        }
                    }
                    _ => {
                        let mut snaps = Vec::new();
                        for &id in aggs {
                            snaps.push(p.agg_snapshot(id)?);
                        }
                        joined = aggregate::rows(snaps, sort);
                        aggregate::AggRows::Joined(&joined)
                    }
                };
                let normals: Vec<u64> = aggs.iter().map(|&id| p.aggs.normal(id)).collect();
                let zeros: Vec<aggregate::AggValue> = aggs
                    .iter()
                    .map(|&id| aggregate::AggValue::zero(p.syms.aggs[id].func))
                    .collect();
                let names: Vec<String> = aggs
                    .iter()
                    .map(|&id| p.syms.aggs[id].name.clone())
                    .collect();
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                for &id in aggs {
                    p.aggs.printed.insert(id);
                }
                match consumer.aggregation(out, &pd, &names, &rows) {
                    Consume::Abort => return Ok(Consume::Abort),
                    Consume::Next => continue,
                    Consume::This => {}
                }
                p.sink.output.aggregations(
                    &mut text,
                    &output::AggPrint {
                        names: &names,
                        rows,
                        normals: &normals,
                        zeros: &zeros,
                        format: format.as_ref(),
                        in_firing: true,
                    },
                    cx,
                );
            }
            ActionLayout::Clear(id) => {
                p.running.as_ref().expect("running").clear_agg(*id)?;
                p.aggs.changed(*id);
            }
            ActionLayout::Trunc(id, n) => {
                let n = n.as_ref().map(|v| match value_arg(v, rec, indent) {
                    Arg::Int(x, _) => x,
                    _ => 0,
                });
                p.running.as_ref().expect("running").trunc_agg(*id, n)?;
                p.aggs.changed(*id);
            }
            ActionLayout::Normalize(id, n) => match n.as_ref().map(|v| value_arg(v, rec, indent)) {
                Some(Arg::Int(x, _)) if x != 0 => {
                    p.aggs.normals.insert(*id, x as u64);
                }
                Some(_) => {
                    report_liberr(p, pd.epid, "invalid normalization factor 0");
                }
                None => {
                    p.aggs.normals.remove(id);
                }
            },
            ActionLayout::Print(v) => {
                let mut s = String::new();
                match v {
                    Value::Str { .. } | Value::ConstStr(_) => {
                        if let Arg::Str(b) = value_arg(v, rec, indent) {
                            crate::print::print_string(&mut s, b);
                        }
                    }
                    Value::Int { offset, ty } => {
                        let o = *offset as usize;
                        let b = rec.get(o..o + 8).unwrap_or(&[]);
                        crate::print::print_value(&mut s, &mut p.syms.types, ty, b);
                    }
                    Value::ConstInt { value, ty } => {
                        let b = value.to_le_bytes();
                        crate::print::print_value(&mut s, &mut p.syms.types, ty, &b);
                    }
                    Value::Bytes { offset, size, ty } => {
                        let o = *offset as usize;
                        let b = rec.get(o..o + *size as usize).unwrap_or(&[]);
                        crate::print::print_value(&mut s, &mut p.syms.types, ty, b);
                    }
                }
                p.sink.output.print(&mut text, s.as_bytes());
            }
            ActionLayout::Statement(_) => {}
            ActionLayout::Tracemem(v, d) => {
                if let Arg::Bytes(b) = trace_arg(v, rec, indent) {
                    let n = match d.as_ref().map(|d| value_arg(d, rec, indent)) {
                        Some(Arg::Int(n, _)) => (n.max(0) as usize).min(b.len()),
                        _ => b.len(),
                    };
                    // tracemem() is always a hex dump.
                    let raw = output::RenderCx {
                        rawbytes: true,
                        ..cx
                    };
                    p.sink.output.value(&mut text, Arg::Bytes(&b[..n]), raw);
                }
            }
            ActionLayout::Setopt(n, v) => {
                let text_of = |v: &Value| match value_arg(v, rec, indent) {
                    Arg::Str(s) => String::from_utf8_lossy(cstr(s)).into_owned(),
                    _ => String::new(),
                };
                let name = text_of(n);
                let value = v.as_ref().map(text_of);
                match p.setopt(&name, value.as_deref()) {
                    Ok(()) => consumer.setopt(&name, value.as_deref()),
                    Err(e) => {
                        let why = match e {
                            Error::Option { err, .. } => err.to_string(),
                            other => other.to_string(),
                        };
                        let msg = format!(
                            "couldn't set option \"{}\" to \"{}\": {}",
                            name,
                            value.as_deref().unwrap_or(""),
                            why
                        );
                        report_liberr(p, pd.epid, &msg);
                    }
                }
            }
        }
        p.sink.emit(out, &text)?;
        p.sink.flush_pending(out)?;
    }
    text.clear();
    p.sink.output.end(&mut text);
    p.sink.emit(out, &text)?;
    r.text_scratch = text;
    p.sink.flush_pending(out)?;
    if consumer.record(out, &pd, None) == Consume::Abort {
        return Ok(Consume::Abort);
    }
    Ok(Consume::This)
}

/// A `commit()` or `discard()`: a commit's records are read from the
/// ID's buffer on every CPU (CPU by CPU, oldest first) and consumed as
/// if from the principal buffer; either way the ID is freed at the next
/// cleaning (`cleanrate`).
fn handle_spec_record(
    p: &mut Parts<'_>,
    reader: &mut Reader,
    rec: &[u8],
    out: &mut dyn Write,
    consumer: &mut dyn Consumer,
) -> Result<Consume, Error> {
    use dtrace_bpf::plan::spec;
    let id = rd_u32(rec, RECORD_HEADER as usize);
    let op = rd_u32(rec, RECORD_HEADER as usize + 4);
    let Some(r) = p.running.as_ref() else {
        return Ok(Consume::Next);
    };
    let Some(m) = r.gen.spec else {
        return Ok(Consume::Next);
    };
    if id == 0 || id > m.nspec {
        return Ok(Consume::Next);
    }
    let mut data = Vec::new();
    if op == spec::OP_COMMIT as u32 {
        let mut fill = [0u8; 8];
        let mut buf = vec![0u8; m.specsize as usize];
        for cpu in 0..m.ncpus {
            let idx = ((id - 1) * m.ncpus + cpu).to_ne_bytes();
            if !r.map(m.fill).lookup(&idx, &mut fill)? {
                continue;
            }
            let n = (u64::from_ne_bytes(fill) as usize).min(buf.len());
            if n == 0 || !r.map(m.buf).lookup(&idx, &mut buf)? {
                continue;
            }
            data.push(buf[..n].to_vec());
        }
    }
    p.spec_dirty.push(id);
    for chunk in data {
        let mut off = 0;
        while off + RECORD_HEADER as usize <= chunk.len() {
            let epid = rd_u32(&chunk, off);
            let size = p
                .epid(epid)
                .and_then(|d| p.running.as_ref().and_then(|r| r.gen.clauses.get(d.clause)))
                .map_or(0, |l| l.size as usize);
            if size == 0 || off + size > chunk.len() {
                break;
            }
            if consume_one(
                p,
                reader,
                &chunk[off..off + size],
                None,
                out,
                consumer,
                &mut Plain::Unknown,
            )? == Consume::Abort
            {
                return Ok(Consume::Abort);
            }
            off += size;
        }
    }
    Ok(Consume::Next)
}

fn handle_error_record(p: &mut Parts<'_>, rec: &[u8]) {
    let epid = rd_u32(rec, 8);
    let action = rd_u32(rec, 12);
    let fault = rd_u64(rec, 16);
    let addr = rd_u64(rec, 24);
    let details = match fault {
        1 | 2 | 6 | 7 => format!(" (0x{:x})", addr),
        _ => String::new(),
    };
    let what = format!("{}{}", fault_str(fault), details);
    report_error(p, epid, action, fault, addr, &what);
}

/// Reports a runtime error of enabled probe `epid` in DTrace's words:
/// `what` happened in `action` (0: the predicate).
/// system(): runs the command with the shell, as system(3) does, and
/// waits for it, but never past a stop signal: one arriving while it runs
/// ends the command (its process group) and the consumer goes on to stop.
/// What it prints goes where dtrace's standard output goes, after
/// everything printed before it, or with `capture` is returned (for an
/// output format that records it). Its status is its own business.
fn run_system(cmd: &[u8], capture: bool) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let end = cmd.iter().position(|&b| b == 0).unwrap_or(cmd.len());
    let cmd = std::ffi::OsStr::from_bytes(&cmd[..end]);
    let before = crate::signals::stop_signals();
    dtrace_sys::process::run_shell(cmd, capture, &|| crate::signals::stop_signals() > before)
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// A fault found by the library as it processes a record (DTrace's
/// `DTRACEFLT_LIBRARY`): reported as a probe error, without an action.
fn report_liberr(p: &mut Parts<'_>, epid: u32, what: &str) {
    report_error_at(p, epid, None, LIBRARY_FAULT, 0, what);
}

/// DTrace's fault code for errors the library finds.
const LIBRARY_FAULT: u64 = 1000;

fn report_error(p: &mut Parts<'_>, epid: u32, action: u32, fault: u64, addr: u64, what: &str) {
    report_error_at(p, epid, Some(action), fault, addr, what)
}

fn report_error_at(
    p: &mut Parts<'_>,
    epid: u32,
    action: Option<u32>,
    fault: u64,
    addr: u64,
    what: &str,
) {
    if let Some(r) = p.running.as_ref() {
        r.errors.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    let desc = p.epid(epid);
    let probe_id = desc.map(|d| d.probe).unwrap_or(0);
    let probe = p
        .probes
        .get(probe_id)
        .map(|p| p.desc.clone())
        .unwrap_or_default();
    let place = match action {
        Some(0) => " in predicate".to_string(),
        Some(n) => format!(" in action #{}", n),
        None => String::new(),
    };
    let msg = format!(
        "error on enabled probe ID {} (ID {}: {}:{}:{}:{}): {}{}",
        epid, probe_id, probe.provider, probe.module, probe.function, probe.name, what, place
    );
    let action = action.unwrap_or(0);
    let e = ErrorData {
        epid,
        probe_id,
        probe,
        action,
        fault,
        addr,
        msg,
    };
    match &mut p.err_handler {
        Some(h) => h(&e),
        None => {
            if !p.sink.output.error_report(&mut p.sink.pending, &e) {
                let _ = writeln!(std::io::stderr(), "dtrace: {}", e.msg);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_kinds_follow_probe_names() {
        assert_eq!(flow_of("entry"), Flow::Entry);
        assert_eq!(flow_of("method-entry"), Flow::Entry);
        assert_eq!(flow_of("gentry"), Flow::None);
        assert_eq!(flow_of("return"), Flow::Return);
        assert_eq!(flow_of("func-return"), Flow::Return);
        assert_eq!(flow_of("tick-1s"), Flow::None);
    }
    use dtrace_lang::types::{Type, INT, INT64};

    #[test]
    fn trace_pads_unless_quiet() {
        let mut o = Vec::new();
        crate::output::trace_text(&mut o, Arg::Int(7, INT), false);
        assert_eq!(o, b"        7");
        let mut o = Vec::new();
        crate::output::trace_text(&mut o, Arg::Int(-1, INT64), false);
        assert_eq!(o, b"               -1");
        let mut o = Vec::new();
        crate::output::trace_text(&mut o, Arg::Str(b"a"), false);
        assert_eq!(o.len(), 2 + 33);
        let mut o = Vec::new();
        crate::output::trace_text(&mut o, Arg::Str(b"a"), true);
        assert_eq!(o, b"a");
    }

    #[test]
    fn values_decode_from_records() {
        let mut data = vec![0u8; 32];
        data[8..16].copy_from_slice(&(-5i64).to_ne_bytes());
        data[16..19].copy_from_slice(b"hi\0");
        let v = Value::Int {
            offset: 8,
            ty: Type::Int(INT),
        };
        assert!(matches!(value_arg(&v, &data, 14), Arg::Int(-5, _)));
        let s = Value::Str {
            offset: 16,
            size: 16,
        };
        assert!(matches!(value_arg(&s, &data, 14), Arg::Str(b"hi")));
    }
}
