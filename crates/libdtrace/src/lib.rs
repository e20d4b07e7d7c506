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
//! let mut dt = dt.go()?;
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
mod aggregations;
mod anon;
mod compile;
mod consume;
mod cpp;
mod dlib;
mod flame;
mod format;
mod header;
mod ksym;
mod ktypes;
mod load;
mod metrics;
pub mod offline;
mod options;
mod output;
pub mod phase;
mod pprof;
mod print;
mod probes;
mod proc;
mod session;
pub mod signals;
mod sink;
mod streamed;
mod unwind;
mod usym;

use std::collections::HashSet;
use std::fmt;
use std::io::{self, Write};
use std::time::{Duration, Instant};

use dtrace_bpf::plan::Generated;
use dtrace_lang::ir::{AggId, CClause, CStmt};
use dtrace_lang::{MacroEnv, Source, Symbols, Tag};
use dtrace_providers::{Enabling, Probes};

pub use aggregate::{
    AggEntry, AggRows, AggTable, AggValue, Bound, Bucket, Distribution, KeyValue, Row, RowRef,
};
pub use anon::{anonymous_dir, want_pinnable};
pub use consume::{ErrorData, Flow, ProbeData, RecDesc, RecKind};
pub use dtrace_lang::attr::Attr;
pub use dtrace_lang::pdesc::ProbeDesc;
pub use dtrace_lang::types::IntType;
pub use dtrace_lang::CompileError;
pub use dtrace_providers::{ArgDesc, Attributes};
pub use format::Arg;
pub use metrics::metrics_address;
pub use options::{
    size_text, version_number, BufPolicy, BufResize, Change, LinkMode, OFormat, Opt, OptionError,
    OptionInfo, Options, Stdc, Support, Values,
};
pub use proc::{ProcError, ProcEvent, ProcExit};
pub use session::Session;
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
/// [`Session::work`] to do (see [`Session::waiter`]).
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// let mut dt = libdtrace::Dtrace::open()?;
/// dt.setopt("quiet", None)?;
/// let p = dt.compile("syscall::getpid:entry { @ = count(); }", libdtrace::ProgramSource::Description(libdtrace::SpecKind::Name))?;
/// dt.exec(&p)?;
/// let mut dt = dt.go()?;
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
    /// let mut dt = dt.go()?;
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

/// The order [`Session::aggregate_walk_by`] gives each aggregation's
/// entries in, as libdtrace's walk functions do.
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// let mut dt = libdtrace::Dtrace::open()?;
/// let p = dt.compile("syscall:::entry { @[probefunc] = count(); }", libdtrace::ProgramSource::File)?;
/// dt.exec(&p)?;
/// let mut dt = dt.go()?;
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
    /// The lowest stability attributes of its probe descriptions
    /// (`dpi_descattr`).
    pub desc_attr: Attr,
    /// The lowest stability attributes of its statements and predicates
    /// (`dpi_stmtattr`).
    pub stmt_attr: Attr,
}

/// What a probe description of a program says of the probes it matches
/// (`dtrace_probeinfo_t`): its stability attributes, its arguments', and
/// their types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatementProbe {
    /// The description's attributes.
    pub attr: Attr,
    /// Its arguments' attributes.
    pub args: Attr,
    /// The first matching probe's argument types, as `-lv` shows them.
    pub arg_types: Vec<String>,
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
/// let mut dt = dt.go()?;
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
    /// [`Session::stop`] ended it (`DTRACE_STATUS_STOPPED`).
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
            // Kernels before 5.11 charge BPF memory to RLIMIT_MEMLOCK; a glob
            // without multi-attach links needs many descriptors.
            dtrace_sys::process::lift_limits();
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
/// ([`Session::aggregate_snapshot`], `dtrace_aggregate_snap`): it needs
/// no handle, so one thread can take it under the handle's lock and
/// another read it while tracing goes on.
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// let mut dt = libdtrace::Dtrace::open()?;
/// let p = dt.compile("syscall:::entry { @calls[probefunc] = count(); }", libdtrace::ProgramSource::File)?;
/// dt.exec(&p)?;
/// let mut dt = dt.go()?;
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
/// let mut dt = dt.go()?;
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
/// let mut dt = dt.go()?;
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
    /// values, distributions included), sorted and joined as printed,
    /// as views (`AggRows::to_rows` makes owned `Row`s of them).
    /// `Next` prints nothing for it; `Abort` stops processing.
    fn aggregation(
        &mut self,
        _out: &mut dyn Write,
        _data: &ProbeData,
        _names: &[&str],
        _rows: &aggregate::AggRows,
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
/// let mut dt = dt.go()?;
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
/// [`Session::aggregate_print`] keeps their data apart (seed 002's
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
    /// [`Session::work`]: a record's output, or a drop or error shown in
    /// structured output.
    Work,
    /// [`Session::aggregate_print`].
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
/// let mut dt = dt.go()?;
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
    /// Buffers made before the programs (see `load::Premade`).
    pub(crate) premade: Option<load::Premade>,
    /// Principal buffers being made ahead (`prepare`).
    pub(crate) warm: Option<load::Warm>,
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
    /// Speculation IDs committed or discarded, freed at the next
    /// cleaning (`cleanrate`).
    pub(crate) spec_dirty: Vec<u32>,
    /// `render_cx()`, until an option changes.
    render_cache: std::cell::Cell<Option<output::RenderCx>>,
    last_clean: Instant,
    err_handler: Option<ErrHandler>,
    drop_handler: Option<DropHandler>,
    proc_handler: Option<proc::ProcHandler>,
    /// The processes created or grabbed for tracing.
    procs: Vec<proc::Traced>,
    last_status: Instant,
    /// Whether tracing's first status check has been made (as tracing
    /// starts, or at the first [`Session::work`] after an exit() in
    /// BEGIN; then every `statusrate`).
    status_checked: bool,
    /// When the principal buffer was last read (for `switchrate`).
    last_switch: Instant,
    drops_seen: Vec<[u64; load::DROP_KINDS]>,
    /// `-D`, `-U` and `-I` for the C preprocessor, in order.
    cpp_args: Vec<cpp::CppArg>,
    /// The `flamegraph` option's file, opened when tracing starts.
    flame_file: Option<std::fs::File>,
    /// The `pprof` option's file, opened when tracing starts.
    pprof_file: Option<std::fs::File>,
    /// When tracing started (the profile's time).
    traced_since: Option<std::time::SystemTime>,
    /// The `metriclabels` options: label names by aggregation name.
    metric_labels: Vec<(String, Vec<String>)>,
    /// The `metrics` endpoint, while tracing runs.
    metrics_server: Option<metrics::Server>,
    /// Where output goes, and how it is rendered.
    pub(crate) sink: sink::Sink,
    /// What the aggregations keep on the consumer's side.
    pub(crate) aggs: aggregations::AggState,
}

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
    /// let mut dt = dt.go()?;
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
            aggs: aggregations::AggState::default(),
            sink: sink::Sink::default(),
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
                argref: false,
                version: None,
                amin: None,
                empty: false,
                pspec: false,
            },
            running: None,
            stopped: false,
            no_device: false,
            ended: None,
            spec_dirty: Vec::new(),
            render_cache: std::cell::Cell::new(None),
            premade: None,
            warm: None,
            lowered: Vec::new(),
            notices: Vec::new(),
            refused_places: Vec::new(),
            held_targets: Vec::new(),
            last_clean: Instant::now(),
            err_handler: None,
            drop_handler: None,
            proc_handler: None,
            procs: Vec::new(),
            last_status: Instant::now(),
            status_checked: false,
            last_switch: Instant::now(),
            drops_seen: Vec::new(),
            cpp_args: Vec::new(),
            flame_file: None,
            pprof_file: None,
            traced_since: None,
            metric_labels: Vec::new(),
            metrics_server: None,
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
        if self.running.is_some() {
            // Only what may change while tracing, which touches nothing
            // but the option (no preprocessor, library or provider state).
            self.opts.set_while_tracing(name, value).map_err(fail)?;
            self.render_cache.set(None);
            return Ok(());
        }
        if Options::change(name).is_none() {
            return Err(fail(OptionError::UnknownName));
        }
        let labels = match (name, value) {
            ("metrics", Some(v)) if metrics::metrics_address(v).is_none() => {
                return Err(fail(OptionError::BadValue))
            }
            ("metriclabels", Some(v)) => {
                Some(metrics::parse_labels(v).ok_or_else(|| fail(OptionError::BadValue))?)
            }
            _ => None,
        };
        self.opts.set(name, value).map_err(fail)?;
        if let Some((agg, names)) = labels {
            self.metric_labels.retain(|(a, _)| *a != agg);
            self.metric_labels.push((agg, names));
        }
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
        if name == "empty" {
            self.macros.empty = self.opts.empty;
        }
        if name == "pspec" {
            self.macros.pspec = self.opts.pspec;
        }
        if name == "version" {
            self.macros.version = value.and_then(|v| options::version_number(v).ok());
        }
        if name == "argref" {
            self.macros.argref = self.opts.argref;
        }
        if name == "amin" {
            self.macros.amin = value.and_then(dtrace_lang::attr::Attr::parse);
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
