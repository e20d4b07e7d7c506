//! The consumer library, in the image of libdtrace. Its life cycle:
//!
//! ```text
//! Dtrace::open (or OpenOptions::open) → setopt … → compile / compile_file …
//!   → exec (per program) → go → loop { sleep; work } → stop
//!   → (aggregate_print) → close
//! ```
//!
//! `compile` parses and checks D and matches probe descriptions; `exec`
//! enables a program (assigning an EPID to each clause × probe pair) and
//! says what it enabled ([`ProgramInfo`]); `go` generates BPF for every
//! enabled probe, loads and attaches it and runs BEGIN; `work` consumes
//! the principal buffer, handing each firing and its records to the
//! caller's [`Consumer`] and formatting trace/printf/printa output;
//! `stop` runs END; [`Dtrace::status`] says how tracing stands.
//! Aggregations are read outside any action with `aggregate_walk_by`,
//! `aggregate_snapshot`, `aggregate_print` and `aggregate_clear`.
//! Errors, drops, formatted output and target processes reach the caller
//! through handlers, as with `dtrace_handle_err` and friends. The handle
//! is `Send`: behind a mutex, one thread runs the work loop (waiting on
//! a [`Waiter`] with the lock released) while another reads the
//! aggregations.
//!
//! ```no_run
//! # fn main() -> Result<(), libdtrace::Error> {
//! use libdtrace::{Dtrace, NullConsumer, ProgramSource, WorkStatus};
//! let mut dt = Dtrace::open()?;
//! dt.setopt("quiet", None)?;
//! let p = dt.compile(r#"syscall::openat:entry { printf("%s\n", execname); } tick-1s { exit(0); }"#, ProgramSource::File)?;
//! dt.exec(&p)?;
//! dt.go()?;
//! let mut out = std::io::stdout();
//! while dt.work(&mut out, &mut NullConsumer)? == WorkStatus::Okay {
//!     dt.sleep(&[]);
//! }
//! dt.close();
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

/// The crate's README, whose example is compiled as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}

mod aggregate;
mod consume;
mod cpp;
mod dlib;
mod flame;
mod format;
mod header;
mod ksym;
mod ktypes;
mod load;
pub mod offline;
mod options;
mod output;
mod print;
mod proc;
pub mod signals;
mod usym;

use std::collections::HashSet;
use std::fmt;
use std::io::{self, Write};
use std::time::{Duration, Instant};

use dtrace_bpf::plan::Generated;
use dtrace_lang::ir::{AggId, CClause, CStmt};
use dtrace_lang::{MacroEnv, Source, Symbols, Tag};
use dtrace_providers::{Enabling, Probes};

pub use aggregate::{AggEntry, AggValue, Bound, Bucket, Distribution, KeyValue, Row};
pub use consume::{ErrorData, Flow, ProbeData, RecDesc, RecKind};
pub use dtrace_lang::pdesc::ProbeDesc;
pub use dtrace_lang::types::IntType;
pub use dtrace_lang::CompileError;
pub use dtrace_providers::{ArgDesc, Attributes};
pub use format::Arg;
pub use options::{
    size_text, BufPolicy, BufResize, Change, LinkMode, OFormat, Opt, OptionError, OptionInfo,
    Options, Stdc, Support, Values,
};
pub use proc::{ProcError, ProcEvent, ProcExit};
pub use usym::UserHow;

/// The largest program text a handle compiles, in bytes: a script as
/// read and, with `-C`, as the preprocessor expands it (its output is
/// read no further). A bound on what the compiler is given, so that a
/// runaway input (`-s /dev/zero`, a macro that expands without end) is
/// an error, not memory exhausted.
///
/// ```
/// assert_eq!(libdtrace::MAX_PROGRAM, 16 << 20);
/// ```
pub const MAX_PROGRAM: u64 = 16 << 20;

/// Waits, apart from the handle, until there is something for
/// [`Dtrace::work`] to do (see [`Dtrace::waiter`]).
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// let mut dt = libdtrace::Dtrace::open()?;
/// dt.setopt("quiet", None)?;
/// let p = dt.compile("syscall::getpid:entry { @ = count(); }", libdtrace::ProgramSource::Description(libdtrace::SpecKind::Name))?;
/// dt.exec(&p)?;
/// dt.go()?;
/// let waiter = dt.waiter().expect("tracing has started");
/// let handle = std::sync::Mutex::new(dt);
/// waiter.wait(); // the handle's lock is not held meanwhile
/// handle.lock().unwrap().work(&mut std::io::stdout(), &mut libdtrace::NullConsumer)?;
/// # Ok(())
/// # }
/// ```
pub struct Waiter {
    poller: dtrace_sys::poll::Poller,
    period: Duration,
}

impl Waiter {
    /// Waits for records or the end of the status period (a target's
    /// exit is seen by the `work` after it).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// # let p = dt.compile("BEGIN { exit(0); }", libdtrace::ProgramSource::File)?;
    /// # dt.exec(&p)?;
    /// dt.go()?;
    /// let waiter = dt.waiter().expect("tracing has started");
    /// while dt.work(&mut std::io::stdout(), &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Okay {
    ///     waiter.wait();
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn wait(&self) {
        let _ = self.poller.wait(self.period);
    }
}

/// The order [`Dtrace::aggregate_walk_by`] gives each aggregation's
/// entries in, as libdtrace's walk functions do.
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// let mut dt = libdtrace::Dtrace::open()?;
/// let p = dt.compile("syscall:::entry { @[probefunc] = count(); }", libdtrace::ProgramSource::File)?;
/// dt.exec(&p)?;
/// dt.go()?;
/// std::thread::sleep(std::time::Duration::from_millis(100));
/// // The busiest system call first.
/// dt.aggregate_walk_by(libdtrace::WalkOrder::ValueReversed, |name, entries| {
///     if let Some(top) = entries.first() {
///         println!("@{}: {} {:?}", name, top.key[0], top.value);
///     }
/// })?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkOrder {
    /// As the `aggsortkey`, `aggsortrev`, `aggsortkeypos` options say
    /// (`dtrace_aggregate_walk_sorted`): by value unless by key.
    Options,
    /// As the kernel holds them (`dtrace_aggregate_walk`).
    Unsorted,
    /// By key (`dtrace_aggregate_walk_keysorted`).
    Key,
    /// By key, reversed (`_keyrevsorted`).
    KeyReversed,
    /// By value, ties by key (`_valsorted`).
    Value,
    /// By value, reversed (`_valrevsorted`).
    ValueReversed,
}

/// A library error, worded as dtrace(1M) words it after "dtrace: ".
///
/// ```
/// let mut dt = libdtrace::Dtrace::offline();
/// match dt.compile("BEGIN { trace(nosuch); }", libdtrace::ProgramSource::File) {
///     Err(e @ libdtrace::Error::Compile(_)) => {
///         assert_eq!(e.to_string(), "line 1: failed to resolve nosuch: Unknown variable name");
///     }
///     other => panic!("{:?}", other.map(|_| ())),
/// }
/// ```
#[derive(Debug)]
pub enum Error {
    /// A D program did not compile.
    Compile(CompileError),
    /// An option could not be set.
    Option {
        /// The option's name.
        name: String,
        /// The value given, if any.
        value: Option<String>,
        /// What is wrong with it.
        err: OptionError,
    },
    /// Not allowed to trace.
    Privilege(String),
    /// Tracing could not be enabled.
    Enable(String),
    /// The kernel's BPF verifier refused the program for `program` (a
    /// probe description), saying `reason`; `detail` is the program and
    /// the whole verifier log when DTRACE_DEBUG is set, else empty.
    Refused {
        /// The probe description of the program refused.
        program: String,
        /// The verifier's reason, its last lines.
        reason: String,
        /// The program and the whole log, with DTRACE_DEBUG set.
        detail: String,
    },
    /// A read or write failed.
    Io(io::Error),
    /// A D library could not be loaded.
    Library(String),
    /// The C preprocessor (`-C`) could not be run, or failed.
    Preprocessor(String),
    /// The set-up was abandoned because the caller asked (see
    /// [`Dtrace::go_until`]); nothing of it is left in the kernel.
    Cancelled,
    /// A consumer callback returned [`Consume::Abort`]: `work` stopped
    /// there (libdtrace's EDT_DIRABORT).
    Aborted,
    /// A script could not be read ([`Dtrace::compile_file`]).
    Open {
        /// The file named.
        path: std::path::PathBuf,
        /// Why, as strerror words it.
        why: String,
    },
    /// The output a `freopen()` chose could not be written: dtrace(1M)
    /// says so as it does of its own output (`failed to write to
    /// /dev/full: No space left on device`).
    Write {
        /// The file named.
        path: String,
        /// Why, as strerror words it.
        why: String,
    },
}

/// A failed write to a freopen()ed file, carried through `io::Error`
/// to [`Error::Write`].
#[derive(Debug)]
struct WriteFailed {
    path: String,
    why: String,
}

impl fmt::Display for WriteFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "failed to write to {}: {}", self.path, self.why)
    }
}

impl std::error::Error for WriteFailed {}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Compile(e) => write!(f, "{}", e),
            Error::Option { name, value, err } => match value {
                Some(v) => write!(f, "failed to set option -x {}={}: {}", name, v, err),
                None => write!(f, "failed to set option -x {}: {}", name, err),
            },
            Error::Privilege(m) => write!(f, "{}", m),
            Error::Enable(m) => write!(f, "could not enable tracing: {}", m),
            Error::Refused {
                program,
                reason,
                detail,
            } => {
                write!(
                    f,
                    "failed to enable probes: the kernel's BPF verifier refused the program for {}: {}",
                    program, reason
                )?;
                if !detail.is_empty() {
                    write!(f, "\n{}", detail)?;
                }
                Ok(())
            }
            Error::Io(e) => write!(f, "{}", e),
            Error::Cancelled => write!(f, "set-up cancelled"),
            Error::Aborted => write!(f, "Abort explicitly directed"),
            Error::Open { path, why } => write!(f, "failed to open {}: {}", path.display(), why),
            Error::Write { path, why } => write!(f, "failed to write to {}: {}", path, why),
            Error::Library(m) | Error::Preprocessor(m) => write!(f, "{}", m),
        }
    }
}

impl std::error::Error for Error {}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        match e.get_ref().and_then(|r| r.downcast_ref::<WriteFailed>()) {
            Some(w) => Error::Write {
                path: w.path.clone(),
                why: w.why.clone(),
            },
            None => Error::Io(e),
        }
    }
}

/// How a program's text is to be read.
///
/// ```
/// use libdtrace::{Dtrace, ProgramSource, SpecKind};
/// let mut dt = Dtrace::offline();
/// // As `dtrace -s`: a whole script.
/// dt.compile("BEGIN { exit(0); }", ProgramSource::File)?;
/// // As `dtrace -n`: a description and an optional body.
/// let p = dt.compile("BEGIN { exit(0); }", ProgramSource::Description(SpecKind::Name))?;
/// assert_eq!(p.probes(), vec![1]);
/// # Ok::<(), libdtrace::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgramSource {
    /// A script (`-s`).
    File,
    /// A probe description and optional body, as given to `-n` (name),
    /// `-f` (function), `-m` (module) or `-P` (provider): a partial
    /// description fills fields from that position.
    Description(SpecKind),
}

/// Which field a partial probe description starts at (dtrace(1M)'s
/// `-P`, `-m`, `-f`, `-n`).
///
/// ```
/// use libdtrace::{Dtrace, SpecKind};
/// // `-f read` names the function field; `-n read` the name field.
/// let f = Dtrace::parse_desc("read", SpecKind::Function).unwrap();
/// assert_eq!(f.to_string(), "::read:");
/// let n = Dtrace::parse_desc("read", SpecKind::Name).unwrap();
/// assert_eq!(n.to_string(), ":::read");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecKind {
    /// `-P`: the provider.
    Provider,
    /// `-m`: the module (`provider:module`).
    Module,
    /// `-f`: the function.
    Function,
    /// `-n`: the name, or a whole description.
    Name,
}

/// A compiled program.
///
/// ```
/// let mut dt = libdtrace::Dtrace::offline();
/// let a = dt.compile("BEGIN { trace(1); }", libdtrace::ProgramSource::File)?;
/// let b = dt.compile("END { trace(2); }", libdtrace::ProgramSource::File)?;
/// assert_eq!((a.id, b.id), (0, 1));
/// assert_eq!(a.probes(), vec![1]); // dtrace:::BEGIN
/// # Ok::<(), libdtrace::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Program {
    /// The program's number in its handle, in compile order.
    pub id: usize,
    first_clause: usize,
    clause_count: usize,
    /// Probe ids matched by each clause.
    matches: Vec<Vec<u32>>,
}

impl Program {
    /// Every probe this program's clauses match.
    ///
    /// ```
    /// let mut dt = libdtrace::Dtrace::offline();
    /// let p = dt.compile("BEGIN, END { trace(1); }", libdtrace::ProgramSource::File)?;
    /// assert_eq!(p.probes(), vec![1, 2]);
    /// # Ok::<(), libdtrace::Error>(())
    /// ```
    pub fn probes(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.matches.iter().flatten().copied().collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// What `exec` reports.
///
/// ```
/// let mut dt = libdtrace::Dtrace::offline();
/// let p = dt.compile("BEGIN, END { trace(1); } BEGIN { trace(2); }", libdtrace::ProgramSource::File)?;
/// // Three clause × probe pairs: as dtrace(1M)'s "matched 3 probes".
/// assert_eq!(dt.exec(&p)?.matches, 3);
/// # Ok::<(), libdtrace::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProgramInfo {
    /// Enabled probes: clause × probe pairs.
    pub matches: usize,
    /// The aggregations the program updates (`dpi_aggregates`).
    pub aggregations: usize,
    /// The actions that leave a record for the consumer: `trace()`,
    /// `printf()` (one however many arguments), `exit()` and the like,
    /// and the default action of an empty clause (`dpi_recgens`).
    pub records: usize,
    /// The `speculate()`s of the program (`dpi_speculations`).
    pub speculations: usize,
}

/// What tracing has come to (`dtrace_status`).
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// use libdtrace::Status;
/// let mut dt = libdtrace::Dtrace::open()?;
/// assert_eq!(dt.status(), Status::None);
/// let p = dt.compile("BEGIN { exit(0); }", libdtrace::ProgramSource::File)?;
/// dt.exec(&p)?;
/// dt.go()?;
/// while dt.work(&mut std::io::stdout(), &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Okay {
///     dt.sleep(&[]);
/// }
/// assert_eq!(dt.status(), Status::Exited);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Tracing has not started (`DTRACE_STATUS_NONE`).
    None,
    /// Tracing goes on (`DTRACE_STATUS_OKAY`).
    Okay,
    /// An `exit()` action ended it (`DTRACE_STATUS_EXITED`).
    Exited,
    /// A principal buffer filled under `bufpolicy=fill`
    /// (`DTRACE_STATUS_FILLED`).
    Filled,
    /// [`Dtrace::stop`] ended it (`DTRACE_STATUS_STOPPED`).
    Stopped,
}

/// How to open a handle: `dtrace_open`'s flags, and options set before
/// anything is compiled.
///
/// ```
/// # fn main() -> Result<(), libdtrace::Error> {
/// // A handle that compiles and checks, with no privilege or kernel.
/// let dt = libdtrace::OpenOptions::new()
///     .no_device(true)
///     .no_kernel_types(true)
///     .option("quiet", None)
///     .option("strsize", Some("512"))
///     .open()?;
/// assert_eq!(dt.options().strsize, 512);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    no_device: bool,
    no_kernel_types: bool,
    options: Vec<(String, Option<String>)>,
}

impl OpenOptions {
    /// Flags off, no options: what [`Dtrace::open`] opens.
    ///
    /// ```no_run
    /// let dt = libdtrace::OpenOptions::new().open()?;
    /// # Ok::<(), libdtrace::Error>(())
    /// ```
    pub fn new() -> OpenOptions {
        OpenOptions::default()
    }

    /// `DTRACE_O_NODEV`: no tracing, and no privilege needed. The
    /// handle's probes are a fixed table (BEGIN, END, ERROR, profile and
    /// tick, a few system calls: see [`crate::offline`]); it compiles,
    /// checks and writes provider headers, and [`Dtrace::go`] fails.
    ///
    /// ```
    /// let dt = libdtrace::OpenOptions::new().no_device(true).open().unwrap();
    /// assert!(dt.probe(1).is_some()); // dtrace:::BEGIN
    /// ```
    pub fn no_device(&mut self, yes: bool) -> &mut OpenOptions {
        self.no_device = yes;
        self
    }

    /// `DTRACE_O_NOSYS`: the kernel's types and symbols (BTF, kallsyms)
    /// are not read: a program naming a kernel type or variable does not
    /// compile, and what does compile does not depend on the machine.
    ///
    /// ```
    /// let mut dt = libdtrace::OpenOptions::new().no_device(true).no_kernel_types(true).open().unwrap();
    /// assert!(dt.compile("BEGIN { trace(sizeof (struct task_struct)); }", libdtrace::ProgramSource::File).is_err());
    /// ```
    pub fn no_kernel_types(&mut self, yes: bool) -> &mut OpenOptions {
        self.no_kernel_types = yes;
        self
    }

    /// An option to set once the handle is open, as
    /// [`Dtrace::setopt`] sets it (`None` for a bare `-x name`).
    ///
    /// ```
    /// let dt = libdtrace::OpenOptions::new()
    ///     .no_device(true)
    ///     .option("bufsize", Some("16m"))
    ///     .open()
    ///     .unwrap();
    /// assert_eq!(dt.options().bufsize, 16 << 20);
    /// ```
    pub fn option(&mut self, name: &str, value: Option<&str>) -> &mut OpenOptions {
        self.options
            .push((name.to_string(), value.map(str::to_string)));
        self
    }

    /// Opens the handle: discovers providers and their probes (unless
    /// [`no_device`](Self::no_device)), then sets the options in order;
    /// the first that fails is the error.
    ///
    /// ```
    /// let err = libdtrace::OpenOptions::new()
    ///     .no_device(true)
    ///     .option("nosuch", None)
    ///     .open()
    ///     .err()
    ///     .unwrap();
    /// assert_eq!(err.to_string(), "failed to set option -x nosuch: Invalid option name");
    /// ```
    pub fn open(&self) -> Result<Dtrace, Error> {
        let mut dt = if self.no_device {
            let mut dt = Dtrace::with_probes(offline::probes());
            dt.no_device = true;
            dt
        } else {
            if !dtrace_sys::has_trace_privilege() {
                return Err(Error::Privilege(load::PRIVILEGE.into()));
            }
            Dtrace::with_probes(Probes::discover())
        };
        if !self.no_kernel_types {
            // Kernel types and symbols, read when a program names one.
            dt.syms
                .types
                .set_external(std::sync::Arc::new(ktypes::Kernel::default()));
        }
        for (name, value) in &self.options {
            dt.setopt(name, value.as_deref())?;
        }
        Ok(dt)
    }
}

/// An owned copy of every aggregation, taken at once
/// ([`Dtrace::aggregate_snapshot`], `dtrace_aggregate_snap`): it needs
/// no handle, so one thread can take it under the handle's lock and
/// another read it while tracing goes on.
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// let mut dt = libdtrace::Dtrace::open()?;
/// let p = dt.compile("syscall:::entry { @calls[probefunc] = count(); }", libdtrace::ProgramSource::File)?;
/// dt.exec(&p)?;
/// dt.go()?;
/// std::thread::sleep(std::time::Duration::from_millis(100));
/// let snap = dt.aggregate_snapshot(libdtrace::WalkOrder::ValueReversed)?;
/// std::thread::spawn(move || {
///     for e in snap.get("calls").unwrap_or(&[]).iter().take(5) {
///         println!("{} {:?}", e.key[0], e.value);
///     }
/// })
/// .join()
/// .unwrap();
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, Default)]
pub struct AggSnapshot {
    aggs: Vec<(String, Vec<AggEntry>)>,
}

impl AggSnapshot {
    /// Each aggregation's name (without its `@`: "" for the anonymous
    /// one) and entries, in the order the aggregations were defined.
    ///
    /// ```
    /// let snap = libdtrace::AggSnapshot::default();
    /// assert_eq!(snap.iter().count(), 0);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[AggEntry])> {
        self.aggs.iter().map(|(n, e)| (n.as_str(), e.as_slice()))
    }

    /// The entries of the aggregation named `name` (without its `@`; ""
    /// for the anonymous one).
    ///
    /// ```
    /// let snap = libdtrace::AggSnapshot::default();
    /// assert!(snap.get("calls").is_none());
    /// ```
    pub fn get(&self, name: &str) -> Option<&[AggEntry]> {
        self.aggs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, e)| e.as_slice())
    }
}

/// What `work` says about the session.
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// let mut dt = libdtrace::Dtrace::open()?;
/// let p = dt.compile("BEGIN { exit(0); }", libdtrace::ProgramSource::File)?;
/// dt.exec(&p)?;
/// dt.go()?;
/// loop {
///     dt.sleep(&[]);
///     match dt.work(&mut std::io::stdout(), &mut libdtrace::NullConsumer)? {
///         libdtrace::WorkStatus::Okay => continue,
///         libdtrace::WorkStatus::Done => break,
///     }
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkStatus {
    /// Tracing goes on: call `sleep` and `work` again.
    Okay,
    /// Tracing has stopped and every record has been consumed.
    Done,
}

/// What a consumer callback wants next.
///
/// ```
/// use libdtrace::{Consume, Consumer, ProbeData, RecDesc, RecKind};
/// /// Prints nothing for a firing of `syscall::read:entry`, and stops at
/// /// the first `exit()`.
/// struct Filter;
/// impl Consumer for Filter {
///     fn probe(&mut self, _out: &mut dyn std::io::Write, pd: &ProbeData) -> Consume {
///         if pd.probe.function == "read" { Consume::Next } else { Consume::This }
///     }
///     fn record(&mut self, _out: &mut dyn std::io::Write, _pd: &ProbeData, rec: Option<&RecDesc>) -> Consume {
///         match rec {
///             Some(r) if r.kind == RecKind::Exit => Consume::Abort,
///             _ => Consume::This,
///         }
///     }
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Consume {
    /// Go on with this firing or record (`DTRACE_CONSUME_THIS`).
    This,
    /// Skip it: from the probe callback the firing's records and output,
    /// from the record callback that record's output
    /// (`DTRACE_CONSUME_NEXT`).
    Next,
    /// Stop consuming: `work` returns [`Error::Aborted`]
    /// (`DTRACE_CONSUME_ABORT`).
    Abort,
}

/// Callbacks for each probe firing and each of its records, as
/// `dtrace_consume_probe_f` and `dtrace_consume_rec_f`.
/// Both write to the same output the library formats records to.
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// let mut dt = libdtrace::Dtrace::open()?;
/// use libdtrace::{Arg, Consume, Consumer, ProbeData, RecDesc, RecKind};
/// /// Collects each printf()'s arguments instead of printing them.
/// #[derive(Default)]
/// struct Events(Vec<String>);
/// impl Consumer for Events {
///     fn record(&mut self, _out: &mut dyn std::io::Write, _pd: &ProbeData, rec: Option<&RecDesc>) -> Consume {
///         if let Some(r) = rec.filter(|r| r.kind == RecKind::Printf) {
///             if let [Arg::Str(name), Arg::Int(pid, _)] = r.values {
///                 self.0.push(format!("{} {}", String::from_utf8_lossy(name), pid));
///             }
///             return Consume::Next; // not printed
///         }
///         Consume::This
///     }
/// }
/// let p = dt.compile(r#"BEGIN { printf("%s %d\n", execname, pid); exit(0); }"#, libdtrace::ProgramSource::File)?;
/// dt.exec(&p)?;
/// dt.go()?;
/// let mut events = Events::default();
/// while dt.work(&mut std::io::sink(), &mut events)? == libdtrace::WorkStatus::Okay {
///     dt.sleep(&[]);
/// }
/// assert_eq!(events.0.len(), 1);
/// # Ok(())
/// # }
/// ```
pub trait Consumer {
    /// Called once for each probe firing, before its records.
    fn probe(&mut self, _out: &mut dyn Write, _data: &ProbeData) -> Consume {
        Consume::This
    }
    /// Called for each record before its output, then once with None.
    fn record(
        &mut self,
        _out: &mut dyn Write,
        _data: &ProbeData,
        _rec: Option<&RecDesc>,
    ) -> Consume {
        Consume::This
    }
    /// Called for a `printa()` record with what it prints: the
    /// aggregations' names and their rows (decoded keys and merged
    /// values, distributions included), sorted and joined as printed.
    /// `Next` prints nothing for it; `Abort` stops processing.
    fn aggregation(
        &mut self,
        _out: &mut dyn Write,
        _data: &ProbeData,
        _names: &[&str],
        _rows: &[aggregate::Row],
    ) -> Consume {
        Consume::This
    }
    /// Called when setopt() has set an option as tracing runs (DTrace's
    /// setopt handler), so a consumer can follow `quiet` and the like.
    fn setopt(&mut self, _name: &str, _value: Option<&str>) {}
    /// Whether `probe` and `record` are called for a firing whose records
    /// are printf()s alone. A consumer answering false has such firings
    /// printed as if `probe` and `record` had returned `This` and
    /// `record(None)` had written nothing, and saves the decoding the
    /// callbacks would need. Asked for each such firing.
    fn sees_printf(&self) -> bool {
        true
    }
}

/// A consumer that does nothing but let the library print.
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// let mut dt = libdtrace::Dtrace::open()?;
/// dt.setopt("quiet", None)?;
/// let p = dt.compile(r#"BEGIN { printf("hello\n"); exit(0); }"#, libdtrace::ProgramSource::File)?;
/// dt.exec(&p)?;
/// dt.go()?;
/// let mut out = Vec::new();
/// while dt.work(&mut out, &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Okay {
///     dt.sleep(&[]);
/// }
/// assert_eq!(out, b"hello\n");
/// # Ok(())
/// # }
/// ```
pub struct NullConsumer;
impl Consumer for NullConsumer {}

/// Drops reported to the drop handler.
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// let mut dt = libdtrace::Dtrace::open()?;
/// use std::sync::{Arc, Mutex};
/// let drops = Arc::new(Mutex::new(Vec::new()));
/// let seen = drops.clone();
/// dt.handle_drop(move |d: &libdtrace::DropData| seen.lock().unwrap().push((d.kind, d.count, d.msg.clone())));
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DropData {
    /// The CPU whose buffer dropped them.
    pub cpu: u32,
    /// What was dropped.
    pub kind: DropKind,
    /// How many since the last report.
    pub count: u64,
    /// The message dtrace(1M) prints, without "dtrace: ".
    pub msg: String,
}

/// The kinds of drop DTrace reports.
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// let mut dt = libdtrace::Dtrace::open()?;
/// use libdtrace::DropKind;
/// dt.handle_drop(|d| match d.kind {
///     DropKind::Principal => eprintln!("raise bufsize: {}", d.msg),
///     DropKind::Aggregation => eprintln!("raise aggsize: {}", d.msg),
///     DropKind::Dynamic => eprintln!("raise dynvarsize: {}", d.msg),
///     _ => eprintln!("{}", d.msg),
/// });
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropKind {
    /// Records that did not fit the principal buffer.
    Principal,
    /// Aggregation entries that did not fit.
    Aggregation,
    /// Dynamic variables (associative arrays, thread-locals) that did
    /// not fit.
    Dynamic,
    /// Errors that happened while an error was being reported.
    DoubleError,
    /// Speculative records that did not fit their buffer.
    Speculative,
    /// speculation() failed: every buffer committing or discarding.
    SpecBusy,
    /// speculation() failed: every buffer in use.
    SpecUnavail,
}

type ErrHandler = Box<dyn FnMut(&ErrorData) + Send>;
type DropHandler = Box<dyn FnMut(&DropData) + Send>;
type BufHandler = Box<dyn FnMut(&BufData) + Send>;

/// Formatted output, as the buffered-output handler receives it
/// (`dtrace_bufdata_t`): the text, and which call made it, so that a
/// handler serving both the work loop and another thread's
/// [`Dtrace::aggregate_print`] keeps their data apart (seed 002's
/// per-thread user data) by looking at `origin`.
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// use libdtrace::{BufData, BufOrigin};
/// use std::sync::{Arc, Mutex};
/// let mut dt = libdtrace::Dtrace::open()?;
/// let (events, tables) = (Arc::new(Mutex::new(String::new())), Arc::new(Mutex::new(String::new())));
/// let (e, t) = (events.clone(), tables.clone());
/// dt.handle_buffered(move |b: &BufData| {
///     let to = if b.origin == BufOrigin::Work { &e } else { &t };
///     to.lock().unwrap().push_str(&String::from_utf8_lossy(b.text));
/// });
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufData<'a> {
    /// The formatted text.
    pub text: &'a [u8],
    /// The call that formatted it.
    pub origin: BufOrigin,
}

/// Which call formatted a [`BufData`].
///
/// ```
/// assert_ne!(libdtrace::BufOrigin::Work, libdtrace::BufOrigin::AggregatePrint);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufOrigin {
    /// [`Dtrace::work`]: a record's output, or a drop or error shown in
    /// structured output.
    Work,
    /// [`Dtrace::aggregate_print`].
    AggregatePrint,
}

/// One enabled probe description: probe and clause.
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// let mut dt = libdtrace::Dtrace::open()?;
/// let p = dt.compile("BEGIN { exit(0); }", libdtrace::ProgramSource::File)?;
/// dt.exec(&p)?;
/// let desc = dt.epid(1).expect("the first enabled probe");
/// assert_eq!((desc.probe, desc.clause), (1, 0));
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct EpidDesc {
    /// The probe's ID.
    pub probe: u32,
    /// The clause's number in the handle.
    pub clause: usize,
}

/// The consumer handle.
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// let mut dt = libdtrace::Dtrace::open()?;
/// // The life cycle: open, set options, compile, exec, go, then sleep and
/// // work until done; dropping the handle releases everything.
/// dt.setopt("quiet", None)?;
/// let p = dt.compile(r#"BEGIN { printf("hello\n"); exit(0); }"#, libdtrace::ProgramSource::File)?;
/// dt.exec(&p)?;
/// dt.go()?;
/// while dt.work(&mut std::io::stdout(), &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Okay {
///     dt.sleep(&[]);
/// }
/// # Ok(())
/// # }
/// ```
pub struct Dtrace {
    opts: Options,
    syms: Symbols,
    clauses: Vec<CClause>,
    next_clause: usize,
    /// Provider definitions of the programs compiled (`dtrace -h`).
    providers: Vec<dtrace_lang::check::ProviderDef>,
    /// Standard library files compiled so far, and whether the library
    /// directories (`syslibdir`, `libdir`) have been.
    std_loaded: Vec<&'static str>,
    dirs_loaded: bool,
    /// `-L` directories, in order.
    lib_dirs: Vec<std::path::PathBuf>,
    /// File names of the libraries compiled (for `depends_on library`).
    libs_loaded: Vec<String>,
    programs: Vec<Program>,
    probes: Probes,
    enablings: Vec<Enabling>,
    epids: Vec<EpidDesc>,
    macros: MacroEnv,
    running: Option<load::Running>,
    stopped: bool,
    /// Opened without a device (`OpenOptions::no_device`): it cannot
    /// trace.
    no_device: bool,
    /// How tracing ended, once it has.
    ended: Option<Status>,
    printed: HashSet<AggId>,
    /// `normalize()` factors by aggregation (1 when absent).
    pub(crate) normals: std::collections::HashMap<AggId, u64>,
    /// How records are rendered (`oformat`), chosen when tracing starts.
    pub(crate) output: Box<dyn output::Output>,
    /// Rendered drops and errors waiting for the next write.
    pub(crate) pending: Vec<u8>,
    /// With the `aggrate` option: aggregations as read since the last
    /// aggregation tick, which `printa()` shows.
    agg_cache: std::collections::HashMap<AggId, Vec<aggregate::AggEntry>>,
    agg_tick: Instant,
    /// Buffers made before the programs (see `load::Premade`).
    pub(crate) premade: Option<load::Premade>,
    /// Principal buffers being made ahead (`prepare`).
    pub(crate) warm: Option<load::Warm>,
    /// Emptied lists a record's description is built in, kept so that
    /// their allocations serve the next record (`consume::consume_one`).
    pub(crate) rec_pool: Vec<consume::RecDesc<'static>>,
    pub(crate) arg_pool: Vec<format::Arg<'static>>,
    pub(crate) range_pool: Vec<(usize, usize)>,
    /// Buffers the kernel made smaller than asked (`bufresize=auto`):
    /// what, and the size.
    pub(crate) lowered: Vec<(&'static str, u64)>,
    /// What tracing's start has to tell (`notices`).
    pub(crate) notices: Vec<String>,
    /// Places of uprobes the kernel refused when tracing started, left
    /// out (`refused_places`): their probes' descriptions.
    pub(crate) refused_places: Vec<(String, &'static str)>,
    /// Targets created for tracing and held before their own exec (`-c`):
    /// their probes outlast that exec, not the next.
    pub(crate) held_targets: Vec<u32>,
    /// The ring policy's chunks have been read (once, at the end).
    pub(crate) ring_drained: bool,
    /// Speculation IDs committed or discarded, freed at the next
    /// cleaning (`cleanrate`).
    pub(crate) spec_dirty: Vec<u32>,
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
    /// `render_cx()`, until an option changes.
    render_cache: std::cell::Cell<Option<output::RenderCx>>,
    last_clean: Instant,
    err_handler: Option<ErrHandler>,
    drop_handler: Option<DropHandler>,
    buf_handler: Option<BufHandler>,
    /// Which call is formatting, for the buffered-output handler.
    emit_origin: BufOrigin,
    proc_handler: Option<proc::ProcHandler>,
    /// The processes created or grabbed for tracing.
    procs: Vec<proc::Traced>,
    last_status: Instant,
    /// When the principal buffer was last read (for `switchrate`).
    last_switch: Instant,
    /// Flow indentation (`flowindent`): the current depth and the last
    /// EPID consumed.
    flow_indent: usize,
    flow_last_epid: Option<u32>,
    drops_seen: Vec<[u64; load::DROP_KINDS]>,
    /// Per-EPID record layout and probe description, shared rather than
    /// rebuilt for every record consumed.
    pub(crate) epid_cache: Vec<Option<consume::EpidInfo>>,
    /// `-D`, `-U` and `-I` for the C preprocessor, in order.
    cpp_args: Vec<cpp::CppArg>,
    /// Where freopen() sent output, until `freopen("")`.
    /// freopen()'s file, and its name for messages.
    redirect: Option<(std::fs::File, String)>,
    /// The `flamegraph` option's file, opened when tracing starts.
    flame_file: Option<std::fs::File>,
    /// The file behind the output the caller passes to `work`, for
    /// ftruncate() (see [`Dtrace::set_output_file`]).
    output_file: Option<std::fs::File>,
}

/// How long the consumer lets records gather once woken for them.
const COALESCE: Duration = Duration::from_millis(1);

impl Dtrace {
    /// Opens a handle: discovers providers and their probes.
    ///
    /// ```no_run
    /// match libdtrace::Dtrace::open() {
    ///     Ok(_dt) => println!("ready to trace"),
    ///     Err(e @ libdtrace::Error::Privilege(_)) => eprintln!("dtrace: {}", e),
    ///     Err(e) => eprintln!("dtrace: failed to initialize dtrace: {}", e),
    /// }
    /// ```
    pub fn open() -> Result<Dtrace, Error> {
        OpenOptions::new().open()
    }

    /// Closes the handle (`dtrace_close`): every program, map, link and
    /// target it made is released, as when it is dropped; a created
    /// command is killed, a grabbed process runs on.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("syscall:::entry { @ = count(); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.go()?;
    /// dt.close(); // nothing of it is left in the kernel
    /// # Ok(())
    /// # }
    /// ```
    pub fn close(self) {
        drop(self)
    }

    /// A handle that needs no privilege and reads nothing of the
    /// machine: it compiles against [`offline`]'s fixed table of probes
    /// (BEGIN, END, ERROR, profile and tick, a few system calls) and no
    /// kernel types. For checking D programs and for provider headers
    /// (`dtrace -h`); it cannot trace.
    ///
    /// ```
    /// let mut dt = libdtrace::Dtrace::offline();
    /// let err = dt
    ///     .compile("BEGIN { x = ; }", libdtrace::ProgramSource::File)
    ///     .unwrap_err();
    /// assert_eq!(err.to_string(), "line 1: syntax error near \";\"");
    /// ```
    pub fn offline() -> Dtrace {
        let mut dt = Dtrace::with_probes(offline::probes());
        dt.no_device = true;
        dt
    }

    /// A handle over a given probe table and no kernel types (see
    /// `offline`: what it compiles does not depend on the machine).
    pub(crate) fn with_probes(probes: Probes) -> Dtrace {
        Dtrace {
            opts: Options::default(),
            syms: Symbols::default(),
            clauses: Vec::new(),
            next_clause: 0,
            providers: Vec::new(),
            std_loaded: Vec::new(),
            dirs_loaded: false,
            lib_dirs: Vec::new(),
            libs_loaded: Vec::new(),
            programs: Vec::new(),
            probes,
            enablings: Vec::new(),
            epids: Vec::new(),
            macros: MacroEnv {
                args: vec!["dtrace".into()],
                named: vec![
                    ("pid".into(), i64::from(std::process::id())),
                    ("target".into(), 0),
                    (
                        "ppid".into(),
                        i64::from(std::os::unix::process::parent_id()),
                    ),
                    ("uid".into(), i64::from(dtrace_sys::getuid())),
                    ("gid".into(), i64::from(dtrace_sys::getgid())),
                    ("pgid".into(), i64::from(dtrace_sys::getpgid())),
                    ("sid".into(), i64::from(dtrace_sys::getsid())),
                ],
                defaultargs: false,
            },
            running: None,
            stopped: false,
            no_device: false,
            ended: None,
            printed: HashSet::new(),
            normals: std::collections::HashMap::new(),
            output: Box::new(output::Text),
            pending: Vec::new(),
            agg_cache: std::collections::HashMap::new(),
            agg_tick: Instant::now(),
            spec_dirty: Vec::new(),
            batch_bytes: Vec::new(),
            text_scratch: Vec::new(),
            plain_text: Vec::new(),
            render_cache: std::cell::Cell::new(None),
            fmt_scratch: Vec::new(),
            begin_cpu: None,
            end_cpu: None,
            ring_drained: false,
            premade: None,
            warm: None,
            rec_pool: Vec::new(),
            arg_pool: Vec::new(),
            range_pool: Vec::new(),
            lowered: Vec::new(),
            notices: Vec::new(),
            refused_places: Vec::new(),
            held_targets: Vec::new(),
            last_clean: Instant::now(),
            err_handler: None,
            drop_handler: None,
            buf_handler: None,
            emit_origin: BufOrigin::Work,
            proc_handler: None,
            procs: Vec::new(),
            last_status: Instant::now(),
            last_switch: Instant::now(),
            flow_indent: 0,
            flow_last_epid: None,
            drops_seen: Vec::new(),
            epid_cache: Vec::new(),
            cpp_args: Vec::new(),
            redirect: None,
            flame_file: None,
            output_file: None,
        }
    }

    /// Sets an option (`-x name=value`, `#pragma D option`).
    ///
    /// ```
    /// let mut dt = libdtrace::Dtrace::offline();
    /// dt.setopt("bufsize", Some("8m"))?;
    /// dt.setopt("quiet", None)?;
    /// let err = dt.setopt("bufsize", Some("huge")).unwrap_err();
    /// assert_eq!(err.to_string(), "failed to set option -x bufsize=huge: Invalid value for specified option");
    /// # Ok::<(), libdtrace::Error>(())
    /// ```
    pub fn setopt(&mut self, name: &str, value: Option<&str>) -> Result<(), Error> {
        let fail = |err| Error::Option {
            name: name.to_string(),
            value: value.map(|v| v.to_string()),
            err,
        };
        match Options::change(name) {
            None => return Err(fail(OptionError::UnknownName)),
            Some(options::Change::BeforeGo) if self.running.is_some() => {
                return Err(fail(OptionError::TracingActive))
            }
            Some(_) => {}
        }
        self.opts.set(name, value).map_err(fail)?;
        self.render_cache.set(None);
        if let Some(v) = value {
            match name {
                "define" => self.cpp_args.push(cpp::CppArg::Define(v.into())),
                "undef" => self.cpp_args.push(cpp::CppArg::Undef(v.into())),
                "incdir" => self.cpp_args.push(cpp::CppArg::Include(v.into())),
                _ => {}
            }
        }
        if name == "libdir" {
            if let Some(v) = value {
                self.lib_dirs.push(v.into());
            }
        }
        if name == "defaultargs" {
            self.macros.defaultargs = self.opts.defaultargs;
        }
        if Probes::TUNABLES.contains(&name) {
            self.probes.tune(name, self.opts.get(name).unwrap_or(0));
        }
        Ok(())
    }

    /// An option's value by name (`dtrace_getopt`): a size or rate in
    /// bytes or nanoseconds, 1 for a set flag, an enum word's index. Rust
    /// code reads the typed fields instead ([`Dtrace::options`]).
    ///
    /// ```
    /// let mut dt = libdtrace::Dtrace::offline();
    /// dt.setopt("bufsize", Some("8m"))?;
    /// assert_eq!(dt.getopt("bufsize")?, 8 << 20);
    /// assert_eq!(dt.options().bufsize, 8 << 20);
    /// assert!(dt.getopt("bufsize2").is_err()); // Invalid option name
    /// # Ok::<(), libdtrace::Error>(())
    /// ```
    pub fn getopt(&self, name: &str) -> Result<i64, Error> {
        self.opts.get(name).ok_or_else(|| Error::Option {
            name: name.to_string(),
            value: None,
            err: OptionError::UnknownName,
        })
    }

    /// Every option's value.
    ///
    /// ```
    /// let mut dt = libdtrace::Dtrace::offline();
    /// // A pragma sets options as `-x` would.
    /// dt.compile("#pragma D option quiet\nBEGIN { exit(0); }", libdtrace::ProgramSource::File)?;
    /// assert!(dt.options().quiet);
    /// # Ok::<(), libdtrace::Error>(())
    /// ```
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// Sets `$0` and the script arguments `$1`... They are bytes: an
    /// argument that is not UTF-8 reaches the program's strings unchanged.
    ///
    /// ```
    /// let mut dt = libdtrace::Dtrace::offline();
    /// dt.set_args("script.d", &["42", "read"]);
    /// dt.compile("BEGIN { trace($1 + 1); trace($$2); trace($$0); }", libdtrace::ProgramSource::File)?;
    /// # Ok::<(), libdtrace::Error>(())
    /// ```
    pub fn set_args<A: AsRef<[u8]>>(&mut self, arg0: impl AsRef<[u8]>, args: &[A]) {
        self.macros.args = std::iter::once(arg0.as_ref().to_vec())
            .chain(args.iter().map(|a| a.as_ref().to_vec()))
            .collect();
    }

    /// Sets the value of `$target`.
    pub(crate) fn set_target(&mut self, pid: i32) {
        self.render_cache.set(None);
        for (n, v) in &mut self.macros.named {
            if n == "target" {
                *v = i64::from(pid);
            }
        }
    }

    /// Process `pid` is traced (`-p`; `-c` with `held`, the executable
    /// of a command created for tracing and held before its exec):
    /// user-level probes in it (`pid$target`, its USDT probes) are made
    /// from what it maps, or from the file and the libraries it needs.
    pub(crate) fn target(&mut self, pid: i32, held: Option<&std::path::Path>) {
        if let Ok(pid) = u32::try_from(pid) {
            if held.is_some() {
                self.held_targets.push(pid);
            }
            self.probes.target(pid, held);
            // Its objects name its stacks' frames after it is gone.
            usym::remember_target(pid, held);
        }
    }

    /// The probe with this ID, if there is one (`dtrace_id2desc`).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let dt = libdtrace::Dtrace::open()?;
    /// let begin = dt.probe(1).expect("dtrace:::BEGIN is probe 1");
    /// assert_eq!(begin.to_string(), "dtrace:::BEGIN");
    /// # Ok(())
    /// # }
    /// ```
    pub fn probe(&self, id: u32) -> Option<&ProbeDesc> {
        self.probes.get(id).map(|p| &p.desc)
    }

    /// Every probe known so far, by ID (`dtrace -l`'s table); providers
    /// that make their probes on first need (fbt) add theirs with
    /// [`Dtrace::provide_all`] or when a description names them.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let dt = libdtrace::Dtrace::open()?;
    /// let syscalls = dt.probe_list().filter(|(_, d)| d.provider == "syscall").count();
    /// assert!(syscalls > 0);
    /// # Ok(())
    /// # }
    /// ```
    pub fn probe_list(&self) -> impl Iterator<Item = (u32, &ProbeDesc)> {
        self.probes.iter().map(|p| (p.id, &p.desc))
    }

    /// The arguments of probe `id`, with their types (`dtrace -lv`'s
    /// "Argument Types"); empty for a probe without typed arguments.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let desc = libdtrace::Dtrace::parse_desc("syscall::read:entry", libdtrace::SpecKind::Name)
    ///     .expect("a valid description");
    /// let id = dt.match_probes(&desc)[0];
    /// assert_eq!(dt.probe_args(id)[0].native, "int");
    /// # Ok(())
    /// # }
    /// ```
    pub fn probe_args(&self, id: u32) -> Vec<ArgDesc> {
        self.probes.args(id)
    }

    /// The stability attributes of probe `id` and of its arguments
    /// (`dtrace -lv`), as its provider declares them.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let dt = libdtrace::Dtrace::open()?;
    /// let attrs = dt.probe_attributes(1).expect("BEGIN has attributes");
    /// assert_eq!(attrs.probe.0, "Stable");
    /// # Ok(())
    /// # }
    /// ```
    pub fn probe_attributes(&self, id: u32) -> Option<Attributes> {
        self.probes.attributes(id)
    }

    /// Why no probe can match `desc`, when its provider can say (fbt on
    /// a kernel that refuses function tracing); `None` otherwise.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let desc = libdtrace::Dtrace::parse_desc("fbt::vfs_read:entry", libdtrace::SpecKind::Name)
    ///     .expect("a valid description");
    /// if dt.match_probes(&desc).is_empty() {
    ///     println!("no fbt: {:?}", dt.why_no_match(&desc));
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn why_no_match(&self, desc: &ProbeDesc) -> Option<String> {
        self.probes.why_not(desc)
    }

    /// Whether the programs compiled so far define providers (`provider
    /// name { probe ...; };`), for [`Dtrace::provider_header`].
    ///
    /// ```
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::offline();
    /// dt.compile("provider app { probe start(int); };", libdtrace::ProgramSource::File)?;
    /// assert!(dt.has_providers());
    /// # Ok(())
    /// # }
    /// ```
    pub fn has_providers(&self) -> bool {
        !self.providers.is_empty()
    }

    /// The C header `dtrace -h` writes for the providers defined so far:
    /// a macro per probe (`APP_START(arg0)`) and its is-enabled test
    /// (`APP_START_ENABLED()`). `file` is the header's name, for its
    /// include guard.
    ///
    /// ```
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::offline();
    /// dt.compile("provider app { probe start(int); };", libdtrace::ProgramSource::File)?;
    /// let h = dt.provider_header(Some("app.h"));
    /// assert!(h.contains("#define\tAPP_START(arg0)"), "{}", h);
    /// assert!(h.contains("APP_START_ENABLED()"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn provider_header(&self, file: Option<&str>) -> String {
        header::header(&self.providers, file)
    }

    /// The providers defined so far as Rust, for the `dtrace-usdt` crate
    /// (`dtrace -h -o probes.rs`): one `provider!` invocation per
    /// provider.
    ///
    /// ```
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::offline();
    /// dt.compile("provider app { probe start(int); };", libdtrace::ProgramSource::File)?;
    /// assert!(dt.provider_rust().contains("provider!"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn provider_rust(&self) -> String {
        header::rust_providers(&self.providers)
    }

    /// What `dtrace -G` writes: a relocatable ELF object with no code
    /// or data. Programs built with a `dtrace -h` header carry their
    /// probes' notes already, so the object only stands where the build
    /// expects one.
    ///
    /// ```
    /// let obj = libdtrace::Dtrace::provider_object();
    /// assert!(obj.starts_with(b"\x7fELF"));
    /// ```
    pub fn provider_object() -> Vec<u8> {
        header::empty_object()
    }

    /// Makes every provider's probes that are made only on first need
    /// (fbt's), so that they are listed.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// dt.provide_all();
    /// println!("{} probes", dt.probe_list().count());
    /// # Ok(())
    /// # }
    /// ```
    pub fn provide_all(&mut self) {
        self.probes.provide_all();
    }

    /// Probes matching a description (for listing), creating on-demand
    /// probes it names.
    ///
    /// ```
    /// use libdtrace::{Dtrace, SpecKind};
    /// let mut dt = Dtrace::offline();
    /// let desc = Dtrace::parse_desc("syscall::read*:entry", SpecKind::Name).unwrap();
    /// let ids = dt.match_probes(&desc);
    /// assert!(!ids.is_empty());
    /// assert!(ids.iter().all(|&id| dt.probe(id).unwrap().function.starts_with("read")));
    /// ```
    pub fn match_probes(&mut self, desc: &ProbeDesc) -> Vec<u32> {
        self.probes.lookup(desc)
    }

    /// Parses a description given to `-P`/`-m`/`-f`/`-n`.
    /// A probe description's `$name` macros (`pid$target`) replaced by
    /// their values, as compiling a program replaces them; unknown names
    /// are left as written.
    ///
    /// ```
    /// let dt = libdtrace::Dtrace::offline();
    /// let own = std::process::id();
    /// assert_eq!(dt.expand_desc("pid$pid:::entry"), format!("pid{}:::entry", own));
    /// assert_eq!(dt.expand_desc("pid$nosuch:::entry"), "pid$nosuch:::entry");
    /// ```
    pub fn expand_desc(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let len = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            match self.macros.named.iter().find(|(n, _)| n == &after[..len]) {
                Some((_, v)) if len > 0 => out.push_str(&v.to_string()),
                _ => out.push_str(&rest[at..at + 1 + len]),
            }
            rest = &after[len..];
        }
        out.push_str(rest);
        out
    }

    /// Parses a probe description given as `kind` (`-P`, `-m`, `-f`,
    /// `-n`), its fields placed from that position; the error is
    /// dtrace(1M)'s message.
    ///
    /// ```
    /// use libdtrace::{Dtrace, SpecKind};
    /// let d = Dtrace::parse_desc("syscall:vmlinux", SpecKind::Module).unwrap();
    /// assert_eq!((d.provider.as_str(), d.module.as_str()), ("syscall", "vmlinux"));
    /// assert_eq!(
    ///     Dtrace::parse_desc("a:b:c:d:e", SpecKind::Name).unwrap_err(),
    ///     "invalid probe description \"a:b:c:d:e\": Overspecified probe description"
    /// );
    /// ```
    pub fn parse_desc(text: &str, kind: SpecKind) -> Result<ProbeDesc, String> {
        let text = align_spec(text, kind).map_err(|_| overspecified(text))?;
        ProbeDesc::parse(&text).map_err(|e| match e {
            dtrace_lang::pdesc::PdescError::Overspecified => overspecified(&text),
            dtrace_lang::pdesc::PdescError::BadGlob => {
                format!("invalid probe description \"{}\"", text)
            }
        })
    }

    /// Starts making the principal buffers, on a thread, for the options
    /// set now, so that `go` finds them ready: making them waits for the
    /// kernel (an RCU grace period, milliseconds), which can then overlap
    /// compiling. Call it once the options are set and before `compile`
    /// when the program will be run; if the program's pragmas change the
    /// buffers' options, `go` makes them anew. It does nothing once
    /// tracing has started or buffers are already being made.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// dt.setopt("bufsize", Some("16m"))?;
    /// dt.prepare(); // the buffers are made while the program compiles
    /// let p = dt.compile("syscall:::entry { @[probefunc] = count(); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.go()?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn prepare(&mut self) {
        if self.running.is_none() && self.warm.is_none() {
            self.warm = load::warm_up(self);
        }
    }

    /// Compiles a program. Probe descriptions must match at least one probe
    /// unless the `zdefs` option is set. The text is bytes (a `&str` works
    /// too): string literals keep bytes that are not UTF-8 as written.
    ///
    /// ```
    /// use libdtrace::{Dtrace, ProgramSource, SpecKind};
    /// let mut dt = Dtrace::offline();
    /// let script = dt.compile("BEGIN { x = 1; } END { trace(x); }", ProgramSource::File)?;
    /// let desc = dt.compile("END", ProgramSource::Description(SpecKind::Name))?;
    /// assert_eq!(script.probes(), vec![1, 2]);
    /// assert_eq!(desc.probes(), vec![2]);
    /// # Ok::<(), libdtrace::Error>(())
    /// ```
    pub fn compile(
        &mut self,
        text: impl AsRef<[u8]>,
        source: ProgramSource,
    ) -> Result<Program, Error> {
        self.compile_text(text.as_ref(), source)
    }

    /// Compiles the script in file `path` (`dtrace_program_fcompile`, as
    /// `dtrace -s`): `$0` is its name unless [`set_args`](Self::set_args)
    /// named it.
    ///
    /// ```
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let path = std::env::temp_dir().join(format!("begin-{}.d", std::process::id()));
    /// std::fs::write(&path, "BEGIN { trace($0); exit(0); }\n").unwrap();
    /// let mut dt = libdtrace::Dtrace::offline();
    /// let p = dt.compile_file(&path)?;
    /// assert_eq!(p.probes(), vec![1]);
    /// let err = dt.compile_file("/nonexistent.d").unwrap_err();
    /// assert_eq!(err.to_string(), "failed to open /nonexistent.d: No such file or directory");
    /// # std::fs::remove_file(&path).unwrap();
    /// # Ok(())
    /// # }
    /// ```
    pub fn compile_file(&mut self, path: impl AsRef<std::path::Path>) -> Result<Program, Error> {
        use std::os::unix::ffi::OsStrExt;
        let path = path.as_ref();
        let text = std::fs::read(path).map_err(|e| Error::Open {
            path: path.to_path_buf(),
            why: io_reason(&e),
        })?;
        if self.macros.args.first().is_none_or(|a| a == b"dtrace") {
            let rest: Vec<Vec<u8>> = self.macros.args.iter().skip(1).cloned().collect();
            self.set_args(path.as_os_str().as_bytes(), &rest);
        }
        self.compile_text(&text, ProgramSource::File)
    }

    fn compile_text(&mut self, text: &[u8], source: ProgramSource) -> Result<Program, Error> {
        let src = match source {
            ProgramSource::File => Source::File,
            ProgramSource::Description(_) => Source::CommandLine,
        };
        let text = match source {
            ProgramSource::Description(kind) if kind != SpecKind::Name => {
                align_program_spec(text, kind).map_err(Error::Compile)?
            }
            _ => text.to_vec(),
        };
        // `-C`: the C preprocessor first.
        let text = if self.opts.cpp {
            cpp::preprocess(&self.opts, &self.cpp_args, &text)?
        } else {
            text
        };
        self.load_libraries(&text)?;
        // A provider's option set by a pragma rules how the program's
        // probes are made (cpc's minimum count): set it first. A bad
        // value is reported with the other pragmas below.
        // So do the sizes the checker gives types (`string`, `stack()`).
        for name in Probes::TUNABLES.iter().chain(&[
            "strsize",
            "stackframes",
            "ustackframes",
            "jstackframes",
        ]) {
            if let Some(v) = dtrace_lang::pragma_value(&text, name) {
                let _ = self.setopt(name, Some(&v));
            }
        }
        let mut syms = self.syms.clone();
        syms.types.strsize = self.opts.strsize;
        syms.types.stackframes = self.opts.stackframes;
        syms.types.ustackframes = self.opts.ustackframes;
        syms.types.jstackframes = self.opts.jstackframes;
        let mut next = self.next_clause;
        // Clauses are checked in the context of their probes (`args[]`).
        // A description matching nothing is left to the check below
        // (D_PDESC_ZERO) unless zdefs allows it.
        let mut context = ClauseProbes {
            probes: &mut self.probes,
            zdefs: self.opts.zdefs || dtrace_lang::pragma_sets(&text, "zdefs"),
        };
        // Parsing and checking recurse as deep as the program nests.
        let macros = &self.macros;
        let checked = dtrace_lang::on_compile_stack(|| {
            dtrace_lang::compile_with(&text, src, macros, &mut syms, &mut next, &mut context)
        })
        .map_err(Error::Compile)?;
        // Pragmas take effect as the program is compiled.
        for (name, value, line) in &checked.options {
            if Options::change(name).is_none() {
                return Err(Error::Compile(CompileError::new(
                    Tag::D_PRAGMA_OPTSET,
                    *line,
                    format!("failed to set option '{}': Invalid option name", name),
                )));
            }
            self.setopt(name, value.as_deref()).map_err(|e| match e {
                Error::Option { err, .. } => Error::Compile(CompileError::new(
                    Tag::D_PRAGMA_OPTSET,
                    *line,
                    format!(
                        "failed to set option '{}' to '{}': {}",
                        name,
                        value.clone().unwrap_or_default(),
                        err
                    ),
                )),
                other => other,
            })?;
        }
        for (kind, name, line) in &checked.depends {
            if !self.dependency_met(kind, name) {
                return Err(Error::Compile(CompileError::new(
                    Tag::D_PRAGMA_DEPEND,
                    *line,
                    format!("program requires {} {}", kind, name),
                )));
            }
        }
        let zdefs = self.opts.zdefs;
        let mut matches = Vec::new();
        for c in &checked.clauses {
            let mut ids = Vec::new();
            for (d, _, line) in &c.probes {
                let found = self.probes.lookup(d);
                if let Some(e) = self.probes.desc_error(d) {
                    return Err(Error::Compile(CompileError::new(e.tag, *line, e.message)));
                }
                if found.is_empty() && !zdefs {
                    let mut msg = format!("probe description {} does not match any probes", d);
                    if let Some(why) = self.probes.why_not(d) {
                        msg = format!("{} ({})", msg, why);
                    }
                    return Err(Error::Compile(CompileError::new(
                        Tag::D_PDESC_ZERO,
                        *line,
                        msg,
                    )));
                }
                for id in found {
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                }
            }
            matches.push(ids);
        }
        self.syms = syms;
        self.next_clause = next;
        self.providers.extend(checked.providers);
        let first = self.clauses.len();
        let count = checked.clauses.len();
        self.clauses.extend(checked.clauses);
        let p = Program {
            id: self.programs.len(),
            first_clause: first,
            clause_count: count,
            matches,
        };
        self.programs.push(p.clone());
        Ok(p)
    }

    /// True if a `#pragma D depends_on` is satisfied: the provider has
    /// probes, the kernel module is loaded, the library has been compiled.
    fn dependency_met(&mut self, kind: &str, name: &str) -> bool {
        match kind {
            "provider" => dtrace_lang::pdesc::ProbeDesc::parse(&format!("{}:::", name))
                .is_ok_and(|d| !self.probes.lookup(&d).is_empty()),
            "module" => {
                name == "vmlinux"
                    || (!name.contains('/')
                        && std::path::Path::new("/sys/module").join(name).exists())
            }
            _ => self.libs_loaded.iter().any(|l| l == name),
        }
    }

    /// Compiles the D libraries a program needs before it: the library
    /// directories once, and each standard library file the program names.
    fn load_libraries(&mut self, program: &[u8]) -> Result<(), Error> {
        let mut todo: Vec<(String, Vec<u8>)> = Vec::new();
        let syslibdir = self.opts.syslibdir.as_deref().map(std::path::PathBuf::from);
        if !self.dirs_loaded {
            self.dirs_loaded = true;
            let dirs = syslibdir.iter().chain(self.lib_dirs.iter());
            for dir in dirs {
                // A directory that cannot be opened is passed over, as
                // DTrace passes it over.
                if !dir.is_dir() {
                    continue;
                }
                let files = dlib::files(dir).map_err(|e| {
                    Error::Library(format!(
                        "failed to read library directory {}: {}",
                        dir.display(),
                        e
                    ))
                })?;
                for f in files {
                    let text = std::fs::read(&f).map_err(|e| {
                        Error::Library(format!("failed to read library {}: {}", f.display(), e))
                    })?;
                    todo.push((f.display().to_string(), text));
                }
            }
            // A library that depends on another comes after it.
            let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
            let mut ordered: Vec<(String, Vec<u8>)> = Vec::new();
            while !todo.is_empty() {
                let before = todo.len();
                let mut i = 0;
                while i < todo.len() {
                    let deps = dlib::library_depends(&todo[i].1);
                    let waiting = deps.iter().any(|d| {
                        todo.iter().any(|(n, _)| base(n) == *d)
                            && !ordered.iter().any(|(n, _)| base(n) == *d)
                    });
                    if waiting {
                        i += 1;
                    } else {
                        ordered.push(todo.remove(i));
                    }
                }
                if todo.len() == before {
                    // A cycle: the rest in name order.
                    ordered.append(&mut todo);
                }
            }
            todo = ordered;
        }
        // The standard library first: what the program or a library
        // directory's files name.
        if syslibdir.is_none() {
            let mut std = Vec::new();
            for lib in dlib::STANDARD {
                let named = |t: &[u8]| {
                    lib.defines.iter().any(|d| dlib::mentions(t, d))
                        || lib.providers.iter().any(|p| dlib::names_provider(t, p))
                };
                if !self.std_loaded.contains(&lib.name)
                    && (named(program) || todo.iter().any(|(_, t)| named(t)))
                {
                    self.std_loaded.push(lib.name);
                    std.push((lib.name.to_string(), lib.text.as_bytes().to_vec()));
                }
            }
            std.append(&mut todo);
            todo = std;
        }
        for (name, text) in todo {
            let mut syms = self.syms.clone();
            syms.types.strsize = self.opts.strsize;
            syms.types.stackframes = self.opts.stackframes;
            let mut next = self.next_clause;
            // Libraries see no script arguments.
            let env = MacroEnv {
                defaultargs: true,
                ..Default::default()
            };
            let checked = dtrace_lang::on_compile_stack(|| {
                dtrace_lang::compile(&text, Source::File, &env, &mut syms, &mut next)
            })
            .map_err(|e| Error::Library(format!("failed to compile library {}: {}", name, e)))?;
            if !checked.clauses.is_empty() {
                return Err(Error::Library(format!(
                    "failed to compile library {}: libraries may not contain probe clauses",
                    name
                )));
            }
            for (kind, dep, _) in &checked.depends {
                if !self.dependency_met(kind, dep) {
                    return Err(Error::Library(format!(
                        "failed to compile library {}: library requires {} {}",
                        name, kind, dep
                    )));
                }
            }
            self.syms = syms;
            self.next_clause = next;
            self.libs_loaded
                .push(name.rsplit('/').next().unwrap_or(&name).to_string());
        }
        Ok(())
    }

    /// Enables a compiled program's probes.
    ///
    /// ```
    /// let mut dt = libdtrace::Dtrace::offline();
    /// let p = dt.compile("BEGIN, END { trace(1); }", libdtrace::ProgramSource::File)?;
    /// let info = dt.exec(&p)?;
    /// println!("dtrace: description 'BEGIN, END' matched {} probes", info.matches);
    /// # Ok::<(), libdtrace::Error>(())
    /// ```
    pub fn exec(&mut self, prog: &Program) -> Result<ProgramInfo, Error> {
        if self.running.is_some() {
            return Err(Error::Enable(
                "programs cannot be enabled once tracing has started".into(),
            ));
        }
        let mut n = 0;
        for i in 0..prog.clause_count {
            let clause = prog.first_clause + i;
            for &probe in &prog.matches[i] {
                self.epids.push(EpidDesc { probe, clause });
                let epid = self.epids.len() as u32;
                self.enablings.push(Enabling {
                    probe,
                    clause,
                    epid,
                });
                n += 1;
            }
        }
        let (mut aggs, mut records, mut speculations) = (HashSet::new(), 0, 0);
        for c in self
            .clauses
            .iter()
            .skip(prog.first_clause)
            .take(prog.clause_count)
        {
            if c.default_action {
                records += 1;
            }
            dtrace_lang::ir::visit_stmts(&c.stmts, &mut |s| match s {
                CStmt::AggUpdate { agg, .. } => {
                    aggs.insert(*agg);
                }
                CStmt::Speculate(..) => speculations += 1,
                CStmt::If { .. } => {}
                s if s.records() => records += 1,
                _ => {}
            });
        }
        Ok(ProgramInfo {
            matches: n,
            aggregations: aggs.len(),
            records,
            speculations,
        })
    }

    /// The BPF programs [`go`](Self::go) would load for the probes
    /// enabled so far, disassembled (dtrace(1M)'s `-S`; DTrace shows its
    /// DIF there).
    ///
    /// ```
    /// let mut dt = libdtrace::Dtrace::offline();
    /// let p = dt.compile("BEGIN { trace(1 + 2); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let text = dt.programs_text()?;
    /// assert!(text.contains("exit"), "{}", text);
    /// # Ok::<(), libdtrace::Error>(())
    /// ```
    pub fn programs_text(&self) -> Result<String, Error> {
        load::programs_text(self)
    }

    /// Starts tracing: builds, loads and attaches every enabled probe's
    /// program, then fires BEGIN.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("BEGIN { trace(\"started\"); exit(0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.go()?; // BEGIN has fired
    /// # Ok(())
    /// # }
    /// ```
    pub fn go(&mut self) -> Result<(), Error> {
        self.go_until(&|| false)
    }

    /// [`go`](Self::go), abandoning the set-up (which for thousands of
    /// probes takes seconds) with [`Error::Cancelled`] as soon as
    /// `cancelled` says so, e.g. when SIGINT arrives.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// use std::sync::atomic::{AtomicBool, Ordering};
    /// static INTERRUPTED: AtomicBool = AtomicBool::new(false);
    /// let p = dt.compile("syscall:::entry { @ = count(); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// match dt.go_until(&|| INTERRUPTED.load(Ordering::Relaxed)) {
    ///     Err(libdtrace::Error::Cancelled) => return Ok(()),
    ///     other => other?,
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn go_until(&mut self, cancelled: &dyn Fn() -> bool) -> Result<(), Error> {
        if self.running.is_some() {
            return Err(Error::Enable("tracing is already active".into()));
        }
        if self.no_device {
            return Err(Error::Enable(
                "the handle was opened with no device: it cannot trace".into(),
            ));
        }
        self.flame_file = self.open_flamegraph(cancelled)?;
        let running = load::start(self, cancelled)?;
        self.running = Some(running);
        self.output = output::for_format((self.opts.oformat == OFormat::Json).then_some("json"));
        self.last_status = Instant::now();
        load::fire_begin(self)?;
        Ok(())
    }

    /// Waits until there is something to do: data in the buffer, a status
    /// check due, a target process's exit, or one of `extra_fds` readable
    /// (a signal's descriptor); then notes the targets that have exited,
    /// for [`work`](Self::work) to tell the process handler.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("tick-10ms { exit(0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.go()?;
    /// loop {
    ///     dt.sleep(&[]); // until records arrive, or the status period ends
    ///     if dt.work(&mut std::io::stdout(), &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Done {
    ///         break;
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn sleep(&mut self, extra_fds: &[i32]) {
        let mut fds = extra_fds.to_vec();
        fds.extend(self.proc_fds());
        self.sleep_on(&fds);
        self.watch_procs();
    }

    fn sleep_on(&mut self, extra_fds: &[i32]) {
        let Some(r) = &self.running else { return };
        let switching = self.opts.is_set(Opt::switchrate);
        let mut wait = sleep_period(
            &self.opts,
            self.last_status.elapsed(),
            self.last_switch.elapsed(),
        );
        // Speculations waiting to be freed wake us at the cleaning rate.
        if !self.spec_dirty.is_empty() {
            let clean = self.opts.cleanrate.max(Duration::from_nanos(1));
            wait = wait.min(clean.saturating_sub(self.last_clean.elapsed()));
        }
        // Records wake us as they arrive unless a switch rate was set, in
        // which case the buffer is read when the rate says.
        let hold = self.opts.bufpolicy != BufPolicy::Switch;
        if !switching && !hold && r.rings.iter().any(|g| g.has_data()) {
            return;
        }
        let _ = r.wait(wait, extra_fds);
        // The kernel wakes us for the first record after we have caught
        // up; were we to read it at once, a steady stream would wake us
        // record by record, each wake-up costing the traced CPU too. A
        // moment's wait lets the records gather: at most COALESCE of
        // latency, at most one wake-up per COALESCE.
        if !switching && !hold && r.rings.iter().any(|g| g.has_data()) {
            std::thread::sleep(COALESCE);
        }
    }

    /// A way to wait for the next thing to do without holding the
    /// handle: a consumer that shares it between threads (behind a
    /// mutex, seed 002's per-handle lock) waits on this with the lock
    /// released, then takes it to [`work`](Self::work), so that another
    /// thread can walk the aggregations meanwhile. The wait lasts at most
    /// what [`sleep`](Self::sleep)'s would now; None before
    /// [`go`](Self::go).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// use std::sync::{Arc, Mutex};
    /// let p = dt.compile("syscall:::entry { @[execname] = count(); } tick-1s { exit(0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.go()?;
    /// let waiter = dt.waiter().expect("tracing has started");
    /// let dt = Arc::new(Mutex::new(dt));
    /// let sampler = {
    ///     let dt = dt.clone();
    ///     std::thread::spawn(move || {
    ///         std::thread::sleep(std::time::Duration::from_millis(500));
    ///         // The work loop below waits without the lock: this walk gets it.
    ///         dt.lock().unwrap().aggregate_walk(|name, entries| println!("@{}: {} keys", name, entries.len()))
    ///     })
    /// };
    /// loop {
    ///     waiter.wait();
    ///     let mut h = dt.lock().unwrap();
    ///     if h.work(&mut std::io::stdout(), &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Done {
    ///         break;
    ///     }
    /// }
    /// sampler.join().unwrap()?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn waiter(&self) -> Option<Waiter> {
        let r = self.running.as_ref()?;
        let period = sleep_period(
            &self.opts,
            self.last_status.elapsed(),
            self.last_switch.elapsed(),
        );
        Some(Waiter {
            poller: r.poller_clone().ok()?,
            period,
        })
    }

    /// What tracing has come to: not started, going on, or ended by
    /// `exit()`, by a full buffer under `bufpolicy=fill`, or by
    /// [`stop`](Self::stop) (`dtrace_status`; the checks themselves are
    /// [`work`](Self::work)'s, at `statusrate`).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("syscall:::entry { @ = count(); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.go()?;
    /// assert_eq!(dt.status(), libdtrace::Status::Okay);
    /// dt.stop()?;
    /// assert_eq!(dt.status(), libdtrace::Status::Stopped);
    /// # Ok(())
    /// # }
    /// ```
    pub fn status(&self) -> Status {
        match (self.ended, &self.running) {
            (Some(s), _) => s,
            (None, None) => Status::None,
            (None, Some(_)) if load::exit_requested(self) => self.drained_why(),
            (None, Some(_)) => Status::Okay,
        }
    }

    /// Why the probes stopped recording: a full buffer under the fill
    /// policy (records were dropped), else exit().
    fn drained_why(&self) -> Status {
        let fill = self.opts.bufpolicy == BufPolicy::Fill;
        let dropped = self
            .running
            .as_ref()
            .is_some_and(|r| r.read_drops().is_ok_and(|d| d.iter().any(|cpu| cpu[0] > 0)));
        if fill && dropped {
            Status::Filled
        } else {
            Status::Exited
        }
    }

    /// True once tracing has stopped (by exit() or `stop`).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("BEGIN { exit(0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.go()?;
    /// while !dt.stopped() {
    ///     dt.sleep(&[]);
    ///     dt.work(&mut std::io::stdout(), &mut libdtrace::NullConsumer)?;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Consumes what is in the buffer, printing trace and printf output to
    /// `out` (or the buffered-output handler) and calling `consumer`.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// dt.setopt("quiet", None)?;
    /// let p = dt.compile(r#"BEGIN { printf("%d\n", 6 * 7); exit(0); }"#, libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.go()?;
    /// let mut out = Vec::new();
    /// while dt.work(&mut out, &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Okay {
    ///     dt.sleep(&[]);
    /// }
    /// assert_eq!(out, b"42\n");
    /// # Ok(())
    /// # }
    /// ```
    pub fn work(
        &mut self,
        out: &mut dyn Write,
        consumer: &mut dyn Consumer,
    ) -> Result<WorkStatus, Error> {
        self.watch_procs();
        if self.running.is_none() {
            return Ok(WorkStatus::Done);
        }
        let status_due =
            self.last_status.elapsed() >= self.opts.statusrate.max(Duration::from_nanos(1));
        // The fill and ring policies read nothing until tracing has
        // stopped.
        let fill = self.opts.bufpolicy != BufPolicy::Switch;
        if !self.stopped && (status_due || load::exit_requested(self)) {
            self.last_status = Instant::now();
            self.report_drops();
            if load::exit_requested(self) {
                if !fill {
                    consume::consume_all(self, out, consumer)?;
                }
                self.ended = Some(self.drained_why());
                self.stop()?;
            }
        }
        // `cleanrate`: committed and discarded speculations are freed.
        if !self.spec_dirty.is_empty()
            && self.last_clean.elapsed() >= self.opts.cleanrate.max(Duration::from_nanos(1))
        {
            self.last_clean = Instant::now();
            self.clean_speculations()?;
        }
        // `aggrate`: aggregations are read again at most this often.
        if self.opts.is_set(Opt::aggrate)
            && self.agg_tick.elapsed() >= self.opts.aggrate.max(Duration::from_nanos(1))
        {
            self.agg_tick = Instant::now();
            self.agg_cache.clear();
        }
        let switch_due =
            self.last_switch.elapsed() >= self.opts.switchrate.max(Duration::from_nanos(1));
        if (self.stopped || switch_due || !self.opts.is_set(Opt::switchrate))
            && (self.stopped || !fill)
        {
            self.last_switch = Instant::now();
            consume::consume_all(self, out, consumer)?;
        }
        if self.stopped {
            consume::consume_all(self, out, consumer)?;
            self.report_drops();
            self.flush_pending(out)?;
            return Ok(WorkStatus::Done);
        }
        self.flush_pending(out)?;
        Ok(WorkStatus::Okay)
    }

    /// Stops tracing: no probe fires after this but END, which runs now.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("syscall:::entry { @ = count(); } END { printa(@); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.go()?;
    /// std::thread::sleep(std::time::Duration::from_secs(1));
    /// dt.stop()?; // END fires now
    /// while dt.work(&mut std::io::stdout(), &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Okay {}
    /// # Ok(())
    /// # }
    /// ```
    pub fn stop(&mut self) -> Result<(), Error> {
        if self.ended.is_none() && self.running.is_some() {
            self.ended = Some(Status::Stopped);
        }
        if self.stopped || self.running.is_none() {
            self.stopped = true;
            return Ok(());
        }
        self.stopped = true;
        load::fire_end(self)
    }

    /// Handler for runtime errors (faults); the default prints DTrace's
    /// message to stderr.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// use std::sync::{Arc, Mutex};
    /// let faults = Arc::new(Mutex::new(Vec::new()));
    /// let seen = faults.clone();
    /// dt.handle_err(move |e: &libdtrace::ErrorData| seen.lock().unwrap().push((e.action, e.msg.clone())));
    /// let p = dt.compile("BEGIN { x = 0; trace(1 / x); } BEGIN { exit(0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.go()?;
    /// while dt.work(&mut std::io::sink(), &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Okay {
    ///     dt.sleep(&[]);
    /// }
    /// let faults = faults.lock().unwrap();
    /// assert!(faults[0].1.ends_with("divide-by-zero in action #2"), "{:?}", faults);
    /// # Ok(())
    /// # }
    /// ```
    pub fn handle_err(&mut self, f: impl FnMut(&ErrorData) + Send + 'static) {
        self.err_handler = Some(Box::new(f));
    }

    /// Handler for drops; the default prints DTrace's message to stderr.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// dt.setopt("dynvarsize", Some("1k"))?;
    /// dt.handle_drop(|d| eprintln!("{:?} x{}: {}", d.kind, d.count, d.msg));
    /// # Ok(())
    /// # }
    /// ```
    pub fn handle_drop(&mut self, f: impl FnMut(&DropData) + Send + 'static) {
        self.drop_handler = Some(Box::new(f));
    }

    /// Receives formatted output instead of the output stream: every
    /// string [`work`](Self::work) and
    /// [`aggregate_print`](Self::aggregate_print) format, with which of
    /// them made it.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// use std::sync::{Arc, Mutex};
    /// // The application draws instead of printing: every formatted string
    /// // comes here, and nothing is written to `work`'s output.
    /// let text = Arc::new(Mutex::new(Vec::new()));
    /// let sink = text.clone();
    /// dt.handle_buffered(move |b| sink.lock().unwrap().extend_from_slice(b.text));
    /// dt.setopt("quiet", None)?;
    /// let p = dt.compile(r#"BEGIN { printf("drawn\n"); exit(0); }"#, libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.go()?;
    /// while dt.work(&mut std::io::sink(), &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Okay {
    ///     dt.sleep(&[]);
    /// }
    /// assert_eq!(*text.lock().unwrap(), b"drawn\n");
    /// # Ok(())
    /// # }
    /// ```
    pub fn handle_buffered(&mut self, f: impl FnMut(&BufData) + Send + 'static) {
        self.buf_handler = Some(Box::new(f));
    }

    /// Writes out the drops and errors the output rendered.
    pub(crate) fn flush_pending(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let p = std::mem::take(&mut self.pending);
        self.emit(out, &p)
    }

    /// The options rendering depends on.
    /// (Worked out once and kept until an option changes: the consumer
    /// asks for every record it prints.)
    pub(crate) fn render_cx(&self) -> output::RenderCx {
        if let Some(cx) = self.render_cache.get() {
            return cx;
        }
        let cx = output::RenderCx {
            quiet: self.opts.quiet,
            indent: self.opts.stackindent,
            rawbytes: self.opts.rawbytes,
            flowindent: self.opts.flowindent,
            target: self.target_pid(),
        };
        self.render_cache.set(Some(cx));
        cx
    }

    /// `$target`'s process ID (0 without `-c` or `-p`).
    pub(crate) fn target_pid(&self) -> i64 {
        self.macros
            .named
            .iter()
            .find(|(n, _)| n == "target")
            .map_or(0, |(_, v)| *v)
    }

    fn emit(&mut self, out: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        match (&mut self.buf_handler, &mut self.redirect) {
            (Some(h), _) => {
                h(&BufData {
                    text: bytes,
                    origin: self.emit_origin,
                });
                Ok(())
            }
            (None, Some((f, name))) => f.write_all(bytes).map_err(|e| {
                io::Error::other(WriteFailed {
                    path: name.clone(),
                    why: io_reason(&e),
                })
            }),
            (None, None) => out.write_all(bytes),
        }
    }

    /// Names the file behind the output given to [`work`](Self::work)
    /// (standard output or `-o`'s file, duplicated), which ftruncate()
    /// empties. Without it, ftruncate() empties only a freopen()ed file.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let file = std::fs::File::create("/tmp/trace.out").map_err(libdtrace::Error::Io)?;
    /// dt.set_output_file(file.try_clone().map_err(libdtrace::Error::Io)?);
    /// let mut out = std::io::BufWriter::new(file);
    /// let p = dt.compile("tick-1s { ftruncate(); printf(\"%Y\\n\", walltimestamp); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.setopt("destructive", None)?;
    /// dt.go()?;
    /// dt.work(&mut out, &mut libdtrace::NullConsumer)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn set_output_file(&mut self, f: std::fs::File) {
        self.output_file = Some(f);
    }

    /// Writes out what is pending, before an action that acts outside
    /// the output stream (system(), freopen(), ftruncate()).
    pub(crate) fn flush_output(&mut self, out: &mut dyn Write) -> io::Result<()> {
        match &mut self.redirect {
            Some((f, _)) => f.flush(),
            None => out.flush(),
        }
    }

    /// freopen(): later output goes to `name` (appended to, created if
    /// need be), or back to the original output if `name` is empty.
    pub(crate) fn freopen(&mut self, name: &[u8]) -> Result<(), String> {
        use std::os::unix::ffi::OsStrExt;
        let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
        let name = &name[..end];
        if name.is_empty() {
            self.redirect = None;
            return Ok(());
        }
        let path = std::ffi::OsStr::from_bytes(name);
        // A FIFO no process reads yet is waited for, not past a stop.
        match dtrace_sys::process::open_writer(path.as_ref(), true, &|| {
            crate::signals::stop_signals() > 0
        }) {
            Ok(f) => {
                self.redirect = Some((f, String::from_utf8_lossy(name).into_owned()));
                Ok(())
            }
            Err(e) => Err(format!(
                "couldn't freopen() \"{}\": {}",
                String::from_utf8_lossy(name),
                io_reason_opening(&e)
            )),
        }
    }

    /// ftruncate(): empties the output file (a freopen()ed one, or the
    /// one named by [`set_output_file`](Self::set_output_file)), as
    /// ftruncate(2) does; output that is not a regular file is left be.
    pub(crate) fn truncate_output(&mut self) {
        use std::io::Seek;
        let f = match (&mut self.redirect, &mut self.output_file) {
            (Some((f, _)), _) | (None, Some(f)) => f,
            (None, None) => return,
        };
        if f.metadata().is_ok_and(|m| m.is_file()) && f.set_len(0).is_ok() {
            let _ = f.seek(io::SeekFrom::Start(0));
        }
    }

    fn report_drops(&mut self) {
        let Some(r) = &self.running else { return };
        let Ok(now) = r.read_drops() else { return };
        if self.drops_seen.len() < now.len() {
            self.drops_seen.resize(now.len(), [0; load::DROP_KINDS]);
        }
        let droptags = self.opts.droptags;
        let mut reports = Vec::new();
        for (cpu, counts) in now.iter().enumerate() {
            for (k, kind) in [
                DropKind::Principal,
                DropKind::Aggregation,
                DropKind::Dynamic,
                DropKind::DoubleError,
            ]
            .iter()
            .enumerate()
            {
                let delta = counts[k].saturating_sub(self.drops_seen[cpu][k]);
                if delta == 0 {
                    continue;
                }
                let plural = if delta == 1 { "" } else { "s" };
                let (tag, msg) = match kind {
                    DropKind::Principal => (
                        "DTRACEDROP_PRINCIPAL",
                        format!("{} drop{} on CPU {}", delta, plural, cpu),
                    ),
                    DropKind::Aggregation => (
                        "DTRACEDROP_AGGREGATION",
                        format!("{} aggregation drop{} on CPU {}", delta, plural, cpu),
                    ),
                    DropKind::Dynamic => (
                        "DTRACEDROP_DYNAMIC",
                        format!("{} dynamic variable drop{}", delta, plural),
                    ),
                    _ => (
                        "DTRACEDROP_DBLERROR",
                        format!("{} error{} in ERROR probe enabling", delta, plural),
                    ),
                };
                let msg = if droptags {
                    format!("[{}] {}", tag, msg)
                } else {
                    msg
                };
                reports.push(DropData {
                    cpu: cpu as u32,
                    kind: *kind,
                    count: delta,
                    msg,
                });
            }
        }
        // Speculations' drops and failures are the program's, not a CPU's.
        for (k, kind) in [
            (4, DropKind::Speculative),
            (5, DropKind::SpecBusy),
            (6, DropKind::SpecUnavail),
        ] {
            let delta: u64 = now
                .iter()
                .zip(&self.drops_seen)
                .map(|(n, s)| n[k].saturating_sub(s[k]))
                .sum();
            if delta == 0 {
                continue;
            }
            let s = if delta == 1 { "" } else { "s" };
            let (tag, msg) = match kind {
                DropKind::Speculative => (
                    "DTRACEDROP_SPEC",
                    format!("{} speculative drop{}", delta, s),
                ),
                DropKind::SpecBusy => (
                    "DTRACEDROP_SPECBUSY",
                    format!(
                        "{} failed speculation{} (available buffer(s) still busy)",
                        delta, s
                    ),
                ),
                _ => (
                    "DTRACEDROP_SPECUNAVAIL",
                    format!(
                        "{} failed speculation{} (no speculative buffer space available)",
                        delta, s
                    ),
                ),
            };
            reports.push(DropData {
                cpu: 0,
                kind,
                count: delta,
                msg: if droptags {
                    format!("[{}] {}", tag, msg)
                } else {
                    msg
                },
            });
        }
        for (cpu, counts) in now.iter().enumerate() {
            self.drops_seen[cpu] = *counts;
        }
        for d in reports {
            match &mut self.drop_handler {
                Some(h) => h(&d),
                None => {
                    if !self.output.drop_report(&mut self.pending, &d) {
                        let _ = writeln!(io::stderr(), "dtrace: {}", d.msg);
                    }
                }
            }
        }
    }

    /// Prints every aggregation not yet printed by printa(), as dtrace(1M)
    /// does when tracing ends.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("syscall:::entry { @[probefunc] = count(); } tick-1s { exit(0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.go()?;
    /// let mut out = std::io::stdout();
    /// while dt.work(&mut out, &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Okay {
    ///     dt.sleep(&[]);
    /// }
    /// dt.aggregate_print(&mut out)?; // as dtrace(1M) prints them at the end
    /// # Ok(())
    /// # }
    /// ```
    pub fn aggregate_print(&mut self, out: &mut dyn Write) -> Result<(), Error> {
        let Some(r) = &self.running else {
            return Ok(());
        };
        let gen: &Generated = &r.gen;
        // Aggregations follow one another with no separator, in the
        // order of their definitions, as dtrace_aggregate_print() does.
        let mut text = Vec::new();
        let cx = self.render_cx();
        for id in 0..gen.aggs.len() {
            if self.printed.contains(&id) {
                continue;
            }
            let snap = r.snapshot_with(id, self.opts.aggpercpu)?;
            if snap.is_empty() {
                continue;
            }
            let rows = aggregate::rows(&[snap], self.sort_opts());
            let name = self.syms.aggs[id].name.as_str();
            self.output.aggregations(
                &mut text,
                &output::AggPrint {
                    names: &[name],
                    rows: &rows,
                    normals: &[self.normal(id)],
                    format: None,
                    in_firing: false,
                },
                cx,
            );
        }
        self.flush_pending(out)?;
        self.emit_origin = BufOrigin::AggregatePrint;
        let res = self.emit(out, &text);
        self.emit_origin = BufOrigin::Work;
        res?;
        self.write_flamegraph()
    }

    /// With the `flamegraph` option, before tracing starts: its file,
    /// opened (so that a bad path is found before the trace, not after;
    /// a FIFO no process reads yet is waited for, but not past
    /// `cancelled` or a stop signal), and an aggregation it can draw.
    fn open_flamegraph(
        &self,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Option<std::fs::File>, Error> {
        let Some(path) = self.opts.flamegraph.as_deref() else {
            return Ok(None);
        };
        if !self
            .syms
            .aggs
            .iter()
            .any(|a| flame::keyed_by_stack(&a.keys))
        {
            return Err(Error::Enable(format!(
                "cannot draw a flame graph in {}: no aggregation is keyed by stack(), ustack() or jstack()",
                path
            )));
        }
        dtrace_sys::process::open_writer(path.as_ref(), false, &|| {
            cancelled() || crate::signals::stop_signals() > 0
        })
        .map(Some)
        .map_err(|e| {
            Error::Enable(format!(
                "cannot write the flame graph to {}: {}",
                path,
                io_reason_opening(&e)
            ))
        })
    }

    /// With the `flamegraph` option: draws the first aggregation keyed
    /// by a stack as an SVG flame graph in the file it names.
    fn write_flamegraph(&mut self) -> Result<(), Error> {
        let (Some(path), Some(r)) = (self.opts.flamegraph.as_deref(), &self.running) else {
            return Ok(());
        };
        let Some(file) = self.flame_file.take() else {
            return Ok(());
        };
        // The first aggregation keyed by a stack (`open_flamegraph` made
        // sure there is one), drawn even when it has no rows.
        let Some(id) = self
            .syms
            .aggs
            .iter()
            .position(|a| flame::keyed_by_stack(&a.keys))
        else {
            return Ok(());
        };
        let snap = r.snapshot(id)?;
        let name = &self.syms.aggs[id].name;
        let lines = flame::folded(&snap, self.normal(id));
        if lines.is_empty() {
            return Err(Error::Io(io::Error::other(format!(
                "cannot draw a flame graph in {}: @{} has no stacks",
                path, name
            ))));
        }
        flame::write_svg(file, &format!("dtrace: @{}", name), &lines).map_err(|e| {
            Error::Io(io::Error::other(format!(
                "cannot write the flame graph to {}: {}",
                path, e
            )))
        })
    }

    /// Calls `f` with each aggregation's name and sorted snapshot.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("syscall:::entry { @calls[execname] = count(); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.go()?;
    /// std::thread::sleep(std::time::Duration::from_millis(200));
    /// dt.aggregate_walk(|name, entries| {
    ///     for e in entries {
    ///         println!("@{}[{}] = {:?}", name, e.key[0], e.value);
    ///     }
    /// })?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn aggregate_walk(
        &mut self,
        f: impl FnMut(&str, &[aggregate::AggEntry]),
    ) -> Result<(), Error> {
        self.aggregate_walk_by(WalkOrder::Options, f)
    }

    /// Calls `f` with each aggregation's name and a snapshot of it taken
    /// now, its entries in `order`, in the order the aggregations were
    /// defined. It reads the kernel's maps: call it between
    /// [`work`](Self::work) calls, from any thread that holds the handle.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// use libdtrace::{KeyValue, WalkOrder};
    /// let p = dt.compile("syscall:::entry { @[probefunc] = count(); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.go()?;
    /// std::thread::sleep(std::time::Duration::from_millis(200));
    /// let mut names = Vec::new();
    /// dt.aggregate_walk_by(WalkOrder::Key, |_, entries| {
    ///     names.extend(entries.iter().filter_map(|e| match &e.key[0] {
    ///         KeyValue::Str(s) => Some(String::from_utf8_lossy(s).into_owned()),
    ///         _ => None,
    ///     }));
    /// })?;
    /// assert!(names.windows(2).all(|w| w[0] <= w[1]));
    /// # Ok(())
    /// # }
    /// ```
    pub fn aggregate_walk_by(
        &mut self,
        order: WalkOrder,
        mut f: impl FnMut(&str, &[aggregate::AggEntry]),
    ) -> Result<(), Error> {
        let Some(r) = &self.running else {
            return Ok(());
        };
        let base = self.sort_opts();
        let sort = |by_key, reverse| aggregate::SortOpts {
            by_key,
            reverse,
            ..base
        };
        let how = match order {
            WalkOrder::Options => Some(base),
            WalkOrder::Unsorted => None,
            WalkOrder::Key => Some(sort(true, false)),
            WalkOrder::KeyReversed => Some(sort(true, true)),
            WalkOrder::Value => Some(sort(false, false)),
            WalkOrder::ValueReversed => Some(sort(false, true)),
        };
        for id in 0..r.gen.aggs.len() {
            let mut snap = r.snapshot_with(id, self.opts.aggpercpu)?;
            if let Some(o) = how {
                aggregate::sort(&mut snap, o);
            }
            f(&self.syms.aggs[id].name, &snap);
        }
        Ok(())
    }

    /// Every aggregation as it is now, its entries in `order`, as an
    /// owned value that needs no handle (`dtrace_aggregate_snap`):
    /// take it under the handle's lock, read it after. Before
    /// [`go`](Self::go) it is empty.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("syscall:::entry { @[execname] = count(); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.go()?;
    /// std::thread::sleep(std::time::Duration::from_millis(100));
    /// let snap = dt.aggregate_snapshot(libdtrace::WalkOrder::Key)?;
    /// for (name, entries) in snap.iter() {
    ///     println!("@{}: {} keys", name, entries.len());
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn aggregate_snapshot(&mut self, order: WalkOrder) -> Result<AggSnapshot, Error> {
        let mut aggs = Vec::new();
        self.aggregate_walk_by(order, |name, entries| {
            aggs.push((name.to_string(), entries.to_vec()))
        })?;
        Ok(AggSnapshot { aggs })
    }

    /// Zeroes every aggregation's values, keeping keys.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("syscall:::entry { @ = count(); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.go()?;
    /// for _ in 0..3 {
    ///     std::thread::sleep(std::time::Duration::from_secs(1));
    ///     dt.aggregate_print(&mut std::io::stdout())?; // this second's count
    ///     dt.aggregate_clear()?;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn aggregate_clear(&mut self) -> Result<(), Error> {
        let Some(r) = &self.running else {
            return Ok(());
        };
        for id in 0..r.gen.aggs.len() {
            r.clear_agg(id)?;
        }
        Ok(())
    }

    /// Aggregation `id` as `printa()` shows it: read from the kernel, or
    /// with the `aggrate` option as read first since the last aggregation
    /// tick; with `aggpercpu`, each CPU's values too.
    pub(crate) fn agg_snapshot(&mut self, id: AggId) -> Result<Vec<aggregate::AggEntry>, Error> {
        let cached = self.opts.is_set(Opt::aggrate);
        if cached {
            if let Some(s) = self.agg_cache.get(&id) {
                return Ok(s.clone());
            }
        }
        let Some(r) = &self.running else {
            return Ok(Vec::new());
        };
        let s = r.snapshot_with(id, self.opts.aggpercpu)?;
        if cached {
            self.agg_cache.insert(id, s.clone());
        }
        Ok(s)
    }

    /// Frees the speculations committed or discarded since the last
    /// cleaning: their buffers emptied on every CPU, then their state
    /// made inactive.
    fn clean_speculations(&mut self) -> Result<(), Error> {
        let Some(r) = &self.running else {
            return Ok(());
        };
        let Some(m) = r.gen.spec else {
            return Ok(());
        };
        for id in std::mem::take(&mut self.spec_dirty) {
            for cpu in 0..m.ncpus {
                let idx = ((id - 1) * m.ncpus + cpu).to_ne_bytes();
                r.map(m.fill).update(&idx, &0u64.to_ne_bytes(), 0)?;
            }
            r.map(m.state)
                .update(&id.to_ne_bytes(), &0u64.to_ne_bytes(), 0)?;
        }
        Ok(())
    }

    /// After clear() or trunc(): the aggregation is read anew.
    pub(crate) fn agg_changed(&mut self, id: AggId) {
        self.agg_cache.remove(&id);
    }

    /// The buffers made smaller than asked when tracing started (under
    /// `bufresize=auto`), as dtrace(1M) reports them: ("buffer size",
    /// bytes), ("speculation size", bytes).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// dt.setopt("bufsize", Some("1t"))?; // more than the machine has
    /// dt.setopt("bufresize", Some("auto"))?;
    /// let p = dt.compile("BEGIN { exit(0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.go()?;
    /// for (what, size) in dt.lowered_sizes() {
    ///     eprintln!("dtrace: {} lowered to {} bytes", what, size);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn lowered_sizes(&self) -> &[(&'static str, u64)] {
        &self.lowered
    }

    /// What tracing's start has to tell the user beyond lowered sizes:
    /// kernel memory taken on a scale the user may not expect (the
    /// speculation buffers of a large `nspec`), as dtrace(1M) prints it
    /// after "dtrace: ".
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// dt.setopt("nspec", Some("1000"))?;
    /// let p = dt.compile("BEGIN { s = speculation(); speculate(s); trace(1); } BEGIN { exit(0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.go()?;
    /// for n in dt.notices() {
    ///     eprintln!("dtrace: {}", n);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn notices(&self) -> &[String] {
        &self.notices
    }

    /// The user-level probes (pid, USDT) left out when tracing started,
    /// by their descriptions (`pid123:libc.so.6:strlen:1c`), and why:
    /// instructions the kernel's uprobes cannot step, USDT semaphores it
    /// cannot count.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let pid = dt.proc_create(&["/bin/true".into()]).map_err(|e| libdtrace::Error::Enable(e.to_string()))?;
    /// let p = dt.compile("pid$target:libc.so.6:strlen: { }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.go()?;
    /// for (place, why) in dt.refused_places() {
    ///     eprintln!("{} cannot be traced: {}", place, why);
    /// }
    /// dt.proc_continue(pid)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn refused_places(&self) -> &[(String, &'static str)] {
        &self.refused_places
    }

    /// The `normalize()` factor of aggregation `id` (1 if none).
    pub(crate) fn normal(&self, id: AggId) -> u64 {
        self.normals.get(&id).copied().unwrap_or(1)
    }

    fn sort_opts(&self) -> aggregate::SortOpts {
        aggregate::SortOpts {
            by_key: self.opts.aggsortkey,
            reverse: self.opts.aggsortrev,
            key_pos: self.opts.aggsortkeypos,
            value_pos: self.opts.aggsortpos,
        }
    }

    /// The description of an enabled probe (for messages).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("BEGIN, END { trace(1); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// // EPIDs are given in exec order: clause 0 on BEGIN (probe 1), then END.
    /// assert_eq!(dt.epid(2).map(|d| (d.probe, d.clause)), Some((2, 0)));
    /// # Ok(())
    /// # }
    /// ```
    pub fn epid(&self, epid: u32) -> Option<EpidDesc> {
        self.epids.get((epid as usize).checked_sub(1)?).copied()
    }
}

/// How long the consumer may sleep: until the next status check, or the
/// next buffer switch when a switch rate was set. Rates are kept to at
/// most 1,000 wake-ups a second.
fn sleep_period(opts: &Options, since_status: Duration, since_switch: Duration) -> Duration {
    let least = Duration::from_millis(1);
    let status = opts.statusrate.max(least).saturating_sub(since_status);
    if opts.is_set(Opt::switchrate) {
        status.min(opts.switchrate.max(least).saturating_sub(since_switch))
    } else {
        status
    }
}

/// Puts a `-P`/`-m`/`-f` description's fields at their position.
fn align_spec(text: &str, kind: SpecKind) -> Result<String, Overspecified> {
    let start = match kind {
        SpecKind::Provider => 0,
        SpecKind::Module => 1,
        SpecKind::Function => 2,
        SpecKind::Name => return Ok(text.to_string()),
    };
    // The fields are read from the right, the last one given landing
    // on the kind's own field (`-m syscall:vmlinux` is provider and
    // module), as dtrace_str2desc() reads them. More fields than that
    // are left as written: a whole description.
    let n = text.split(':').count();
    if n > start + 1 {
        return Err(Overspecified);
    }
    let mut s = ":".repeat(start + 1 - n);
    s.push_str(text);
    s.push_str(&":".repeat(3 - start));
    Ok(s)
}

/// A partial description with more fields than its option's position
/// allows (`-P a:b`): dtrace_str2desc's EDT_BADSPCV.
#[derive(Debug, PartialEq)]
struct Overspecified;

fn overspecified(text: &str) -> String {
    format!(
        "invalid probe description \"{}\": Overspecified probe description",
        text
    )
}

/// Aligns the leading description of a `-P`/`-m`/`-f` program text.
fn align_program_spec(text: &[u8], kind: SpecKind) -> Result<Vec<u8>, CompileError> {
    let end = text
        .iter()
        .position(|&c| c == b'{' || c == b'/' || c.is_ascii_whitespace())
        .unwrap_or(text.len());
    let desc = String::from_utf8_lossy(&text[..end]);
    let mut out = align_spec(&desc, kind)
        .map_err(|_| CompileError::no_line(Tag::D_PDESC_INVAL, overspecified(&desc)))?
        .into_bytes();
    out.extend_from_slice(&text[end..]);
    Ok(out)
}

/// The probe table as the checker sees it while a program compiles.
struct ClauseProbes<'a> {
    probes: &'a mut Probes,
    zdefs: bool,
}

impl dtrace_lang::ProbeContext for ClauseProbes<'_> {
    fn arg_types(&mut self, desc: &ProbeDesc) -> dtrace_lang::ArgTypes {
        if !self.zdefs && self.probes.lookup(desc).is_empty() {
            return dtrace_lang::ArgTypes::Unknown;
        }
        self.probes.desc_arg_types(desc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switchrate_paces_the_consumer() {
        let mut o = Options::default();
        let s = Duration::from_millis;
        // Unset: only the status rate (1 s) bounds the sleep; records wake
        // the consumer as they arrive.
        assert_eq!(sleep_period(&o, s(0), s(0)), s(1000));
        o.set("switchrate", Some("10hz")).unwrap();
        assert_eq!(sleep_period(&o, s(0), s(0)), s(100));
        assert_eq!(sleep_period(&o, s(0), s(30)), s(70));
        assert_eq!(sleep_period(&o, s(990), s(30)), s(10));
        o.set("statusrate", Some("2s")).unwrap();
        o.set("switchrate", Some("5s")).unwrap();
        assert_eq!(sleep_period(&o, s(500), s(0)), s(1500));
    }

    #[test]
    fn description_macros_are_expanded_for_listing() {
        let mut dt = Dtrace::with_probes(Probes::builtin());
        dt.set_target(4321);
        assert_eq!(
            dt.expand_desc("pid$target:a.out::entry"),
            "pid4321:a.out::entry"
        );
        assert_eq!(dt.expand_desc("$target$target"), "43214321");
        // Unknown names, and a lone `$`, stay as written.
        assert_eq!(dt.expand_desc("x$nosuch:$:y$"), "x$nosuch:$:y$");
        assert_eq!(dt.expand_desc("syscall:::"), "syscall:::");
    }

    #[test]
    fn aligns_partial_descriptions() {
        let ok = |t: &str, k| align_spec(t, k).expect("aligned");
        assert_eq!(ok("syscall", SpecKind::Provider), "syscall:::");
        assert_eq!(ok("read", SpecKind::Function), "::read:");
        assert_eq!(ok("vmlinux", SpecKind::Module), ":vmlinux::");
        assert_eq!(ok("syscall:vmlinux", SpecKind::Module), "syscall:vmlinux::");
        assert_eq!(ok("syscall::read", SpecKind::Function), "syscall::read:");
        assert_eq!(ok("vmlinux:read", SpecKind::Function), ":vmlinux:read:");
        assert_eq!(ok("BEGIN", SpecKind::Name), "BEGIN");
        // More fields than the option's position allows.
        assert_eq!(align_spec("a:b", SpecKind::Provider), Err(Overspecified));
        assert_eq!(
            align_spec("a:b:c:d", SpecKind::Function),
            Err(Overspecified)
        );
        assert_eq!(
            align_program_spec(b"syscall{@a[probefunc] = count()}", SpecKind::Provider)
                .expect("aligned"),
            b"syscall:::{@a[probefunc] = count()}"
        );
        let e = align_program_spec(b"a:b { }", SpecKind::Provider).unwrap_err();
        assert_eq!(
            e.msg,
            "invalid probe description \"a:b\": Overspecified probe description"
        );
    }
}

/// [`io_reason`] of a failed open for writing: a FIFO with no reader
/// says so.
pub(crate) fn io_reason_opening(e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(6) => dtrace_sys::process::open_error_text(e),
        _ => io_reason(e),
    }
}

/// An I/O error as strerror(3) words it, without Rust's "(os error N)"
/// (`No such file or directory`), as dtrace(1M)'s messages quote it.
///
/// ```
/// let e = std::fs::File::open("/nonexistent").unwrap_err();
/// assert_eq!(libdtrace::io_reason(&e), "No such file or directory");
/// ```
pub fn io_reason(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}
