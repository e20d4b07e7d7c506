//! Every option DTrace knows, declared once: its name, its type, its
//! default, the values it takes, when it may change, whether it is
//! honoured and what it does. From the rows [`options!`] derives the typed
//! [`Values`] the code reads (`opts.bufpolicy: BufPolicy`,
//! `opts.switchrate: Duration`) and the table the edges use: `-x`,
//! pragmas, `setopt()` and [`crate::Dtrace::getopt`] name options by
//! string, and only here is a string turned into a field. A misspelt
//! option in the code is a compile error; an unknown name at an edge is
//! [`OptionError::UnknownName`].
//!
//! Values are written as DTrace writes them: sizes with k/m/g/t
//! suffixes, rates and times with DTrace's time suffixes (a bare number
//! for a rate means per second).

use std::fmt;
use std::hash::BuildHasherDefault;
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OptKind {
    /// Bytes, with an optional k/m/g/t suffix.
    Size,
    /// A rate: a period given as a frequency (bare number, `hz`) or a time.
    Rate,
    /// A plain count.
    Count,
    /// On when named, or set to an explicit value.
    Bool,
    /// One of a fixed set of words.
    Enum(&'static [&'static str]),
    /// Free text.
    Text,
}

/// When an option may be set (illumos keeps the same split between its
/// run-time options and the dynamic ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Until tracing starts; once it has, setting it is refused
    /// ("Operation illegal when tracing is active").
    BeforeGo,
    /// Also while tracing runs (`setopt()`, and the consumer's own
    /// calls): it governs how records are printed.
    Anytime,
    /// Before a program is compiled, from the command line or the
    /// library: never from a D program (`#pragma D option` is refused,
    /// "Option cannot be used from within a D program"), which is
    /// already being read when its pragmas are (the preprocessor's and
    /// linker's settings).
    CommandLine,
}

/// Whether setting an option takes effect here. Every option DTrace
/// knows is in the table; none is accepted and then ignored: an option
/// whose effect is not implemented is refused with the reason.
///
/// ```
/// use libdtrace::{Options, Support};
/// for o in Options::all() {
///     if let Support::Refused(why) = o.support {
///         println!("{}: {}", o.name, why);
///     }
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// Setting it takes effect.
    Honoured,
    /// Only the default value is supported; setting another is refused
    /// with this reason.
    DefaultOnly(&'static str),
    /// Setting it at all is refused with this reason.
    Refused(&'static str),
    /// Honoured, but for these values of an enum, refused with the
    /// reason.
    HonouredExcept(&'static [&'static str], &'static str),
}

struct OptDef {
    name: &'static str,
    kind: OptKind,
    /// Default, in the option's unit: bytes, nanoseconds, count, 0/1, or
    /// the index of an enum value.
    default: i64,
    /// The values a size or count may take, inclusive: one outside is
    /// refused when set (DTrace's "Invalid value for specified option"),
    /// never clamped later; dtrace(1) lists the ranges.
    range: (i64, i64),
    change: Change,
    support: Support,
    /// What it does, in a line (dtrace(1)'s manual lists it).
    about: &'static str,
}

/// Any value the option's kind takes.
const ANY: (i64, i64) = (i64::MIN, i64::MAX);

/// The most frames a stack records: the kernel's `perf_event_max_stack`
/// default, which `bpf_get_stack` honours.
pub const MAX_FRAMES: i64 = 127;
/// The largest `strsize`: a string and its scratch copies must fit the
/// BPF programs' per-CPU scratch (64 KiB values).
pub const MAX_STRSIZE: i64 = 1 << 16;
/// The most speculations: each takes IDs scanned by `speculation()`.
pub const MAX_NSPEC: i64 = 1 << 20;
/// The largest speculation buffer the code generator addresses.
pub const MAX_SPECSIZE: i64 = 1 << 28;

/// The D language versions DTrace defines, as `major.minor[.micro]`.
const D_VERSIONS: &[&str] = &[
    "1.0", "1.1", "1.2", "1.2.1", "1.2.2", "1.3", "1.4", "1.4.1", "1.5", "1.6", "1.6.1", "1.6.2",
    "1.6.3", "1.7", "1.7.1", "1.8", "1.8.1", "1.9", "1.9.1", "1.10", "1.11", "1.12", "1.12.1",
    "1.13",
];

/// The `version` option's value: a version (DTrace's encoding limits: a
/// major below 256, minor and micro below 4096) that D defines, as
/// `dtrace_lang::check::version` numbers it. A program checked for an
/// earlier version than this compiler's (1.13) has only the built-in
/// identifiers that version had.
///
/// ```
/// assert_eq!(libdtrace::version_number("1.1"), Ok(dtrace_lang::check::version(1, 1, 0)));
/// assert!(libdtrace::version_number("1.99").is_err());
/// ```
pub fn version_number(v: &str) -> Result<u32, OptionError> {
    let parts: Vec<&str> = v.split('.').collect();
    let limits = [255u32, 4095, 4095];
    let ok = (2..=3).contains(&parts.len())
        && parts.iter().zip(limits).all(|(p, max)| {
            !p.is_empty()
                && p.bytes().all(|c| c.is_ascii_digit())
                && p.parse::<u32>().is_ok_and(|n| n <= max)
        });
    if !ok {
        return Err(OptionError::VersionInvalid);
    }
    let nums: Vec<u32> = parts.iter().filter_map(|p| p.parse().ok()).collect();
    let n = dtrace_lang::check::version(nums[0], nums[1], nums.get(2).copied().unwrap_or(0));
    let defined = D_VERSIONS.iter().any(|d| {
        let dn: Vec<u32> = d.split('.').filter_map(|p| p.parse().ok()).collect();
        dtrace_lang::check::version(dn[0], dn[1], dn.get(2).copied().unwrap_or(0)) == n
    });
    if defined {
        Ok(n)
    } else {
        Err(OptionError::VersionUndefined)
    }
}

/// How a field of [`Values`] is made from an option's raw value (its
/// unit as [`Options::get`] gives it) and, for a text option, its text.
trait FromRaw {
    fn from_raw(raw: i64, text: Option<&str>) -> Self;
}

impl FromRaw for bool {
    fn from_raw(raw: i64, _: Option<&str>) -> Self {
        raw != 0
    }
}

impl FromRaw for i64 {
    fn from_raw(raw: i64, _: Option<&str>) -> Self {
        raw
    }
}

impl FromRaw for u64 {
    fn from_raw(raw: i64, _: Option<&str>) -> Self {
        u64::try_from(raw).unwrap_or(0)
    }
}

impl FromRaw for u32 {
    fn from_raw(raw: i64, _: Option<&str>) -> Self {
        u32::try_from(raw.max(0)).unwrap_or(u32::MAX)
    }
}

impl FromRaw for usize {
    fn from_raw(raw: i64, _: Option<&str>) -> Self {
        usize::try_from(raw.max(0)).unwrap_or(usize::MAX)
    }
}

/// A count where -1 means "none" (`cpu`: every CPU).
impl FromRaw for Option<u32> {
    fn from_raw(raw: i64, _: Option<&str>) -> Self {
        u32::try_from(raw).ok()
    }
}

/// A rate or time: its period.
impl FromRaw for Duration {
    fn from_raw(raw: i64, _: Option<&str>) -> Self {
        Duration::from_nanos(u64::try_from(raw).unwrap_or(0))
    }
}

impl FromRaw for Option<String> {
    fn from_raw(_: i64, text: Option<&str>) -> Self {
        text.map(str::to_string)
    }
}

/// An option that is one of a set of words: a Rust enum whose variants
/// are the words, in order (the first is the default).
macro_rules! choice {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $word:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub enum $name {
            #[default]
            $(#[doc = concat!("`", $word, "`")] $variant),*
        }

        impl $name {
            /// The words, as `-x` takes them.
            pub const WORDS: &'static [&'static str] = &[$($word),*];
        }

        impl FromRaw for $name {
            fn from_raw(raw: i64, _: Option<&str>) -> Self {
                const ALL: &[$name] = &[$($name::$variant),*];
                usize::try_from(raw)
                    .ok()
                    .and_then(|i| ALL.get(i))
                    .copied()
                    .unwrap_or_default()
            }
        }
    };
}

choice!(
    /// `bufpolicy`: what a full principal buffer does.
    BufPolicy { Switch = "switch", Fill = "fill", Ring = "ring" }
);
choice!(
    /// `bufresize`: whether a size the kernel refuses is lowered.
    BufResize { Auto = "auto", Manual = "manual" }
);
choice!(
    /// `linkmode` (Solaris; refused).
    LinkMode { Kernel = "kernel", Dynamic = "dynamic", Static = "static" }
);
choice!(
    /// `oformat`: how records are written.
    OFormat { Text = "text", Json = "json" }
);
choice!(
    /// `stdc`: the preprocessor's ISO C mode (`-X`).
    Stdc { A = "a", C = "c", S = "s", T = "t" }
);

/// Declares the options: one row each,
/// `name: Type = Kind, default, range, when, support, "what it does";`.
/// It makes the table the edges read ([`OPTIONS`]), the typed values
/// the code reads ([`Values`]), and the key that names one ([`Opt`]).
macro_rules! options {
    ($($name:ident: $ty:ty = $kind:expr, $default:expr, $range:expr, $when:ident, $support:expr,
        $about:literal;)*) => {
        const OPTIONS: &[OptDef] = &[$(OptDef {
            name: stringify!($name),
            kind: {
                #[allow(unused_imports)]
                use OptKind::*;
                $kind
            },
            default: $default,
            range: $range,
            change: Change::$when,
            support: {
                #[allow(unused_imports)]
                use Support::*;
                $support
            },
            about: $about,
        },)*];

        /// Every option's value, typed: what the code reads. A handle's
        /// [`Options`] dereference to it.
        #[derive(Clone, Debug)]
        pub struct Values {
            $(#[doc = $about] pub $name: $ty,)*
        }

        impl Default for Values {
            fn default() -> Self {
                Values { $($name: <$ty as FromRaw>::from_raw($default, None),)* }
            }
        }

        impl Values {
            /// Stores the option in row `row` from its raw value.
            fn store(&mut self, row: Opt, raw: i64, text: Option<&str>) {
                match row {
                    $(Opt::$name => self.$name = <$ty as FromRaw>::from_raw(raw, text),)*
                }
            }
        }

        /// An option named in the code, where a question is about the
        /// option rather than its value ([`Options::is_set`]).
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Opt {
            $(#[doc = $about] $name,)*
        }

        impl Opt {
            const ALL: &'static [Opt] = &[$(Opt::$name),*];
        }
    };
}

const NS_PER_SEC: i64 = 1_000_000_000;

options! {
    aggpercpu: bool = Bool, 0, ANY, BeforeGo, Honoured,
        "print each CPU's value of an aggregation apart";
    aggrate: Duration = Rate, NS_PER_SEC, ANY, BeforeGo, Honoured,
        "rate at which aggregations are read";
    aggsize: u64 = Size, 4 << 20, ANY, BeforeGo, Honoured,
        "size of the aggregation buffer";
    aggsortkey: bool = Bool, 0, ANY, Anytime, Honoured,
        "sort aggregations by key first";
    aggsortkeypos: usize = Count, 0, (0, 1 << 31), Anytime, Honoured,
        "which key of the tuple sorts aggregations";
    aggsortpos: usize = Count, 0, (0, 1 << 31), Anytime, Honoured,
        "which aggregation of a printa() sorts the others";
    aggsortrev: bool = Bool, 0, ANY, Anytime, Honoured,
        "sort aggregations in reverse";
    amin: Option<String> = Text, 0, ANY, BeforeGo, Honoured,
        "the lowest stability attributes (Name/Data/Class) a program may rely on";
    argref: bool = Bool, 0, ANY, BeforeGo, Honoured,
        "a script argument past the last one the program references is not an error";
    bufpolicy: BufPolicy = Enum(BufPolicy::WORDS), 0, ANY, BeforeGo, Honoured,
        "principal buffer policy: switch, fill or ring";
    bufresize: BufResize = Enum(BufResize::WORDS), 0, ANY, BeforeGo, Honoured,
        "buffer resizing policy: auto (lower a size the kernel refuses) or manual";
    bufsize: u64 = Size, 4 << 20, ANY, BeforeGo, Honoured,
        "size of each CPU's principal buffer";
    cleanrate: Duration = Rate, NS_PER_SEC / 101, ANY, BeforeGo, Honoured,
        "rate at which speculations are cleaned";
    cpcminoverflow: u64 = Count, 5000, (1, 1 << 62), BeforeGo, Honoured,
        "least overflow count a cpc probe may ask for";
    cpp: bool = Bool, 0, ANY, BeforeGo, Honoured,
        "run the C preprocessor on scripts (-C)";
    cpphdrs: bool = Bool, 0, ANY, CommandLine, Honoured,
        "print the files the preprocessor includes (-H)";
    cpppath: Option<String> = Text, 0, ANY, CommandLine, Honoured,
        "the C preprocessor to run";
    cpu: Option<u32> = Count, -1, (-1, 1 << 20), BeforeGo, Honoured,
        "the CPU to trace on (-1: every CPU)";
    defaultargs: bool = Bool, 0, ANY, BeforeGo, Honoured,
        "macro arguments that are not given are empty or 0";
    define: Option<String> = Text, 0, ANY, CommandLine, Honoured,
        "define a preprocessor symbol (-D)";
    destructive: bool = Bool, 0, ANY, BeforeGo, Honoured,
        "allow destructive actions (-w)";
    droptags: bool = Bool, 0, ANY, BeforeGo, Honoured,
        "tag drop messages";
    dynvarsize: u64 = Size, 1 << 20, ANY, BeforeGo, Honoured,
        "size of the dynamic variable space";
    empty: bool = Bool, 0, ANY, BeforeGo, Honoured,
        "a D program with nothing in it compiles (to nothing)";
    errtags: bool = Bool, 0, ANY, BeforeGo, Honoured,
        "prefix compile errors with their tags";
    flamegraph: Option<String> = Text, 0, ANY, BeforeGo, Honoured,
        "draw the first stack-keyed aggregation as an SVG flame graph in this file";
    flowindent: bool = Bool, 0, ANY, Anytime, Honoured,
        "indent function entry and return (-F)";
    grabanon: bool = Bool, 0, ANY, BeforeGo, Honoured,
        "claim the anonymous state (-a): go takes the pinned enabling dtrace -A saved";
    incdir: Option<String> = Text, 0, ANY, CommandLine, Honoured,
        "add a directory to the preprocessor's search path (-I)";
    jstackframes: u32 = Count, 50, (1, MAX_FRAMES), BeforeGo, Honoured,
        "default frames of jstack()";
    jstackstrsize: u64 = Size, 512, ANY, BeforeGo, Refused("there are no ustack helpers (a JVM's) on Linux to fill jstack() string space"),
        "(Solaris) size of jstack() strings";
    ldpath: Option<String> = Text, 0, ANY, CommandLine, Refused("dtrace -G writes its objects itself: no linker runs"),
        "(Solaris) the linker dtrace -G runs";
    libdir: Option<String> = Text, 0, ANY, BeforeGo, Honoured,
        "add a D library directory (-L)";
    linkmode: LinkMode = Enum(LinkMode::WORDS), 0, ANY, BeforeGo, Refused("kernel symbols are resolved from BTF; the link mode cannot be chosen"),
        "(Solaris) how -G objects are linked";
    maxframes: u32 = Count, 127, (1, MAX_FRAMES), BeforeGo, Honoured,
        "most frames a stack(), ustack() or jstack() records (more are cut to it)";
    metriclabels: Option<String> = Text, 0, ANY, BeforeGo, Honoured,
        "name an aggregation's keys as metric labels: @name:label,label (once for each aggregation)";
    metrics: Option<String> = Text, 0, ANY, BeforeGo, Honoured,
        "serve the aggregations as Prometheus metrics on ADDR:PORT, at /metrics";
    nspec: u32 = Count, 1, (1, MAX_NSPEC), BeforeGo, Honoured,
        "number of speculations";
    oformat: OFormat = Enum(OFormat::WORDS), 0, ANY, BeforeGo, Honoured,
        "output format: text or json";
    pprof: Option<String> = Text, 0, ANY, BeforeGo, Honoured,
        "write the stack-keyed aggregations as a gzipped pprof profile in this file";
    pspec: bool = Bool, 0, ANY, BeforeGo, Honoured,
        "interpret ambiguous specifiers (a declaration or a probe description) as probe descriptions";
    quiet: bool = Bool, 0, ANY, Anytime, Honoured,
        "print only what is traced explicitly (-q)";
    quietresize: bool = Bool, 0, ANY, BeforeGo, Refused("buffers are never resized"),
        "(Solaris) resize buffers quietly";
    rawbytes: bool = Bool, 0, ANY, Anytime, Honoured,
        "trace bytes as a hex dump always";
    scratchsize: u32 = Size, 16 << 10, (8, 256 << 10), BeforeGo, Honoured,
        "bytes each clause may allocate (alloca(), copyin()): DTrace for Linux's option";
    specsize: u32 = Size, 4 << 20, (64, MAX_SPECSIZE), BeforeGo, Honoured,
        "size of each speculation's buffer";
    stackframes: u32 = Count, 20, (1, MAX_FRAMES), BeforeGo, Honoured,
        "default frames of stack()";
    stackindent: usize = Count, 14, (0, 1024), Anytime, Honoured,
        "indentation of stack frames";
    statusrate: Duration = Rate, NS_PER_SEC, ANY, BeforeGo, Honoured,
        "rate at which the status is checked (and exit() noticed, once set; at once by default)";
    stdc: Stdc = Enum(Stdc::WORDS), 0, ANY, CommandLine, Honoured,
        "ISO C conformance of the preprocessor (-X)";
    strsize: u32 = Size, 256, (2, MAX_STRSIZE), BeforeGo, Honoured,
        "size of strings";
    switchrate: Duration = Rate, NS_PER_SEC, ANY, BeforeGo, Honoured,
        "rate at which the principal buffers are read";
    syslibdir: Option<String> = Text, 0, ANY, BeforeGo, Honoured,
        "the directory of the standard D libraries";
    undef: Option<String> = Text, 0, ANY, CommandLine, Honoured,
        "undefine a preprocessor symbol (-U)";
    unodefs: bool = Bool, 0, ANY, BeforeGo, Refused("undefined kernel symbols are not permitted"),
        "(Solaris) allow undefined USDT probes";
    ustackbytes: u32 = Size, 8192, (8, 256 << 10), BeforeGo, Honoured,
        "bytes of user stack ustack() and jstack() copy for the consumer to unwind";
    ustackframes: u32 = Count, 100, (1, MAX_FRAMES), BeforeGo, Honoured,
        "default frames of ustack()";
    verbose: bool = Bool, 0, ANY, BeforeGo, Refused("printing the compiler's intermediate code is not supported"),
        "(Solaris) verbose compile messages";
    version: Option<String> = Text, 0, ANY, BeforeGo, Honoured,
        "the D language version programs are written for (this compiler's: 1.13; an earlier one hides later identifiers)";
    zdefs: bool = Bool, 0, ANY, BeforeGo, Honoured,
        "allow descriptions that match no probe (-Z)";
}

/// An option as the table describes it (for listing and for tests that
/// walk the table).
///
/// ```
/// let mut opts = libdtrace::Options::default();
/// for o in libdtrace::Options::all() {
///     if let Some(v) = o.other_value {
///         // Every option's example value is valid for its kind.
///         let _ = opts.set(o.name, Some(v));
///     }
/// }
/// ```
#[derive(Clone, Debug)]
pub struct OptionInfo {
    /// The option's name.
    pub name: &'static str,
    /// Whether this implementation honours it.
    pub support: Support,
    /// When it may be set.
    pub change: Change,
    /// A value that is valid for the option's kind and differs from its
    /// default (for Bool: set; for an enum: its second word).
    pub other_value: Option<&'static str>,
    /// What it does, in a line.
    pub about: &'static str,
    /// What its value is, as a manual writes it (`size`, `rate`,
    /// `switch|fill|ring`; empty for an option that is only named).
    pub value: String,
    /// The sizes or counts it takes, inclusive (None: any its kind takes).
    pub range: Option<(i64, i64)>,
}

/// Every option DTrace knows, in alphabetical order (see
/// [`Options::all`]).
fn all() -> impl Iterator<Item = OptionInfo> {
    OPTIONS.iter().map(|o| OptionInfo {
        name: o.name,
        support: o.support,
        change: o.change,
        other_value: match o.kind {
            OptKind::Size => Some("64k"),
            OptKind::Rate => Some("50hz"),
            OptKind::Count => Some("1"),
            OptKind::Bool => None,
            OptKind::Enum(words) => words.get(1).copied(),
            OptKind::Text if o.name == "version" => Some("1.13"),
            OptKind::Text if o.name == "amin" => Some("Evolving/Evolving/Common"),
            OptKind::Text => Some("/nonexistent"),
        },
        about: o.about,
        value: match o.kind {
            OptKind::Size => "size".to_string(),
            OptKind::Rate => "rate".to_string(),
            OptKind::Count => "count".to_string(),
            OptKind::Bool => String::new(),
            OptKind::Enum(words) => words.join("|"),
            OptKind::Text => "text".to_string(),
        },
        range: (o.range != ANY).then_some(o.range),
    })
}

/// The words a boolean option takes for set and unset (`quiet=yes`,
/// `flowindent=off`), in any case, as DTrace for Linux takes them.
const BOOL_WORDS: [(&str, &str); 6] = [
    ("yes", "no"),
    ("enable", "disable"),
    ("enabled", "disabled"),
    ("true", "false"),
    ("on", "off"),
    ("set", "unset"),
];

/// Why an option could not be set; `Display` gives DTrace's wording.
///
/// ```
/// use libdtrace::{Options, OptionError};
/// let mut o = Options::default();
/// assert_eq!(o.set("nosuch", None), Err(OptionError::UnknownName));
/// assert_eq!(OptionError::UnknownName.to_string(), "Invalid option name");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    /// No option has that name.
    UnknownName,
    /// The value is not one the option takes.
    BadValue,
    /// The option cannot change once tracing has started.
    TracingActive,
    /// The option cannot be set from within a D program.
    InProgram,
    /// The option (or this value of it) has no effect here; the reason.
    Unsupported(&'static str),
    /// A size or count outside the range the option takes: the least and
    /// the most, and whether it is a size.
    OutOfRange(i64, i64, bool),
    /// `version`: not a version (`M.m[.u]`, each part in range).
    VersionInvalid,
    /// `version`: no D version has that number.
    VersionUndefined,
    /// `version`: later than a version set before (a reduction is one
    /// way).
    VersionReduced,
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::UnknownName => f.write_str("Invalid option name"),
            OptionError::BadValue => f.write_str("Invalid value for specified option"),
            OptionError::TracingActive => f.write_str("Operation illegal when tracing is active"),
            OptionError::InProgram => f.write_str("Option cannot be used from within a D program"),
            OptionError::Unsupported(why) => f.write_str(why),
            // DTrace's words, byte for byte (scripts and its test suite
            // read them); the range is in the option's row and dtrace(1).
            OptionError::OutOfRange(..) => f.write_str("Invalid value for specified option"),
            OptionError::VersionInvalid => {
                f.write_str("Version is not properly formatted or is too large")
            }
            OptionError::VersionUndefined => {
                f.write_str("Requested version is not supported by compiler")
            }
            OptionError::VersionReduced => {
                f.write_str("Requested version conflicts with earlier setting")
            }
        }
    }
}

/// The options of a handle: what each is (readable as typed fields,
/// through `Deref` to [`Values`]), and which were set explicitly.
///
/// ```
/// let mut o = libdtrace::Options::default();
/// o.set("aggrate", Some("10hz"))?;
/// assert_eq!(o.aggrate, std::time::Duration::from_millis(100));
/// assert_eq!(o.get("aggrate"), Some(100_000_000)); // nanoseconds
/// # Ok::<(), libdtrace::OptionError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Options {
    values: Values,
    /// Each option's raw value (what `getopt` answers).
    raw: Vec<i64>,
    /// Which options were set explicitly (some take effect only then).
    explicit: Vec<bool>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            values: Values::default(),
            raw: OPTIONS.iter().map(|o| o.default).collect(),
            explicit: vec![false; OPTIONS.len()],
        }
    }
}

impl std::ops::Deref for Options {
    type Target = Values;
    fn deref(&self) -> &Values {
        &self.values
    }
}

/// A size as DTrace writes one: in the largest unit that divides it
/// (`64k`, `256m`), else in bytes.
///
/// ```
/// assert_eq!(libdtrace::size_text(65536), "64k");
/// assert_eq!(libdtrace::size_text(1536), "1536");
/// ```
pub fn size_text(n: i64) -> String {
    for (shift, unit) in [(40, 't'), (30, 'g'), (20, 'm'), (10, 'k')] {
        if n != 0 && n % (1 << shift) == 0 {
            return format!("{}{}", n >> shift, unit);
        }
    }
    n.to_string()
}

/// Parses a size: digits with an optional k, m, g or t (powers of 1024).
pub fn parse_size(s: &str) -> Option<i64> {
    let s = s.trim();
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if digits == 0 {
        return None;
    }
    let n: i64 = s[..digits].parse().ok()?;
    let mult: i64 = match s[digits..].to_ascii_lowercase().as_str() {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        "t" => 1 << 40,
        _ => return None,
    };
    n.checked_mul(mult)
}

/// Parses a rate into a period in nanoseconds: a bare number or `Nhz` is a
/// frequency, otherwise a time with a suffix.
pub fn parse_rate(s: &str) -> Option<i64> {
    let s = s.trim();
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if digits == 0 {
        return None;
    }
    let n: i64 = s[..digits].parse().ok()?;
    let per: i64 = match &s[digits..] {
        "" | "hz" => {
            if n == 0 {
                return None;
            }
            return Some((NS_PER_SEC / n).max(1));
        }
        "ns" | "nsec" => 1,
        "us" | "usec" => 1_000,
        "ms" | "msec" => 1_000_000,
        "s" | "sec" => NS_PER_SEC,
        "m" | "min" => 60 * NS_PER_SEC,
        "h" | "hour" => 3600 * NS_PER_SEC,
        "d" | "day" => 86400 * NS_PER_SEC,
        _ => return None,
    };
    n.checked_mul(per)
}

/// The option's row in OPTIONS. `setopt()` names options as tracing
/// runs, so the rows are found through a hash, not a scan.
fn index(name: &str) -> Option<usize> {
    type ByName = std::collections::HashMap<&'static str, usize, BuildHasherDefault<Fnv>>;
    static BY_NAME: std::sync::OnceLock<ByName> = std::sync::OnceLock::new();
    BY_NAME
        .get_or_init(|| {
            OPTIONS
                .iter()
                .enumerate()
                .map(|(i, o)| (o.name, i))
                .collect()
        })
        .get(name)
        .copied()
}

/// FNV-1a: option names are short and not chosen by an adversary, so a
/// hash this simple beats SipHash's set-up many times over.
#[derive(Default)]
struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
    }
}

impl Options {
    /// Every option DTrace knows, in alphabetical order, with whether
    /// this implementation honours it.
    ///
    /// ```
    /// use libdtrace::{Options, Support};
    /// let bufsize = Options::all().find(|o| o.name == "bufsize").unwrap();
    /// assert_eq!(bufsize.support, Support::Honoured);
    /// ```
    pub fn all() -> impl Iterator<Item = OptionInfo> {
        all()
    }

    /// Sets `name` to `value` (None for a bare `-x name`). A handle's
    /// options are set with [`crate::Dtrace::setopt`], which also says
    /// which option failed and refuses to change, while tracing runs,
    /// an option that may only change before.
    ///
    /// ```
    /// use libdtrace::{OptionError, Options};
    /// let mut o = Options::default();
    /// o.set("bufsize", Some("4m")).unwrap();
    /// assert_eq!(o.bufsize, 4 << 20);
    /// assert_eq!(o.set("bufsize", Some("lots")), Err(OptionError::BadValue));
    /// assert_eq!(o.set("nosuch", None), Err(OptionError::UnknownName));
    /// ```
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<(), OptionError> {
        let i = index(name).ok_or(OptionError::UnknownName)?;
        let def = &OPTIONS[i];
        if name == "version" {
            // A reduction is one way: no later version after an earlier.
            let n = version_number(value.ok_or(OptionError::BadValue)?)?;
            let current = self
                .version
                .as_deref()
                .and_then(|v| version_number(v).ok())
                .unwrap_or(dtrace_lang::check::LATEST_VERSION);
            if n > current {
                return Err(OptionError::VersionReduced);
            }
        }
        if name == "amin" && value.and_then(dtrace_lang::attr::Attr::parse).is_none() {
            return Err(OptionError::BadValue);
        }
        let v = match (def.kind, value) {
            (OptKind::Bool, None) => 1,
            (OptKind::Bool, Some(v)) => match v {
                "" => 1,
                _ if BOOL_WORDS.iter().any(|(on, _)| on.eq_ignore_ascii_case(v)) => 1,
                _ if BOOL_WORDS
                    .iter()
                    .any(|(_, off)| off.eq_ignore_ascii_case(v)) =>
                {
                    0
                }
                _ => match v.parse::<i64>() {
                    Ok(n) => i64::from(n != 0),
                    Err(_) => return Err(OptionError::BadValue),
                },
            },
            (_, None) => return Err(OptionError::BadValue),
            (OptKind::Size, Some(v)) => parse_size(v).ok_or(OptionError::BadValue)?,
            (OptKind::Rate, Some(v)) => parse_rate(v).ok_or(OptionError::BadValue)?,
            (OptKind::Count, Some(v)) => {
                v.trim().parse::<i64>().map_err(|_| OptionError::BadValue)?
            }
            (OptKind::Enum(words), Some(v)) => words
                .iter()
                .position(|w| *w == v)
                .ok_or(OptionError::BadValue)?
                as i64,
            (OptKind::Text, Some(_)) => 0,
        };
        if def.kind == OptKind::Size && v <= 0 {
            return Err(OptionError::BadValue);
        }
        let (lo, hi) = def.range;
        if !(lo..=hi).contains(&v) {
            return Err(OptionError::OutOfRange(lo, hi, def.kind == OptKind::Size));
        }
        match def.support {
            Support::Honoured => {}
            Support::DefaultOnly(why) if v != def.default => {
                return Err(OptionError::Unsupported(why))
            }
            Support::DefaultOnly(_) => {}
            Support::Refused(why) => return Err(OptionError::Unsupported(why)),
            Support::HonouredExcept(values, why) => {
                if let OptKind::Enum(words) = def.kind {
                    if values.iter().any(|w| words.get(v as usize) == Some(w)) {
                        return Err(OptionError::Unsupported(why));
                    }
                }
            }
        }
        self.values.store(Opt::ALL[i], v, value);
        self.raw[i] = v;
        self.explicit[i] = true;
        Ok(())
    }

    /// The raw value of the option named `name` (`dtrace_getopt`), in its
    /// unit: bytes, nanoseconds, a count, 0/1, an enum word's index; None
    /// if DTrace knows no such option. The code reads the typed fields.
    ///
    /// ```
    /// let mut o = libdtrace::Options::default();
    /// o.set("switchrate", Some("10hz")).unwrap();
    /// assert_eq!(o.get("switchrate"), Some(100_000_000));
    /// assert_eq!(o.get("switchrates"), None);
    /// ```
    pub fn get(&self, name: &str) -> Option<i64> {
        index(name).map(|i| self.raw[i])
    }

    /// True if the option was set, by `-x`, a flag or a pragma.
    ///
    /// ```
    /// use libdtrace::{Opt, Options};
    /// let mut o = Options::default();
    /// assert!(!o.is_set(Opt::quiet));
    /// o.set("quiet", None).unwrap();
    /// assert!(o.is_set(Opt::quiet));
    /// ```
    pub fn is_set(&self, opt: Opt) -> bool {
        self.explicit[opt as usize]
    }

    /// Sets `name` while tracing runs (`setopt()`, or the caller's own
    /// calls then): only an option that may change then
    /// ([`Change::Anytime`]) is set.
    ///
    /// ```
    /// use libdtrace::{OptionError, Options};
    /// let mut o = Options::default();
    /// assert_eq!(o.set_while_tracing("quiet", None), Ok(()));
    /// assert_eq!(o.set_while_tracing("bufsize", Some("1m")), Err(OptionError::TracingActive));
    /// assert_eq!(o.set_while_tracing("nosuch", None), Err(OptionError::UnknownName));
    /// ```
    pub fn set_while_tracing(
        &mut self,
        name: &str,
        value: Option<&str>,
    ) -> Result<(), OptionError> {
        match Self::change(name) {
            None => Err(OptionError::UnknownName),
            Some(Change::BeforeGo | Change::CommandLine) => Err(OptionError::TracingActive),
            Some(Change::Anytime) => self.set(name, value),
        }
    }

    /// When the option named `name` may be set; None if DTrace knows no
    /// such option.
    ///
    /// ```
    /// use libdtrace::{Change, Options};
    /// assert_eq!(Options::change("quiet"), Some(Change::Anytime));
    /// assert_eq!(Options::change("bufsize"), Some(Change::BeforeGo));
    /// assert_eq!(Options::change("aggsortbackwards"), None);
    /// ```
    pub fn change(name: &str) -> Option<Change> {
        index(name).map(|i| OPTIONS[i].change)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_binary_suffixes() {
        assert_eq!(parse_size("4m"), Some(4 << 20));
        assert_eq!(parse_size("16K"), Some(16 << 10));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("1x"), None);
        assert_eq!(parse_size("k"), None);
    }

    #[test]
    fn rates_are_frequencies_or_times() {
        assert_eq!(parse_rate("10"), Some(100_000_000));
        assert_eq!(parse_rate("10hz"), Some(100_000_000));
        assert_eq!(parse_rate("50ms"), Some(50_000_000));
        assert_eq!(parse_rate("1s"), Some(1_000_000_000));
        assert_eq!(parse_rate("0"), None);
        assert_eq!(parse_rate("1fortnight"), None);
    }

    #[test]
    fn options_set_typed_values_and_reject() {
        let mut o = Options::default();
        assert_eq!(o.strsize, 256);
        o.set("strsize", Some("1k")).unwrap();
        assert_eq!(o.strsize, 1024);
        o.set("quiet", None).unwrap();
        assert!(o.quiet);
        o.set("bufpolicy", Some("switch")).unwrap();
        assert_eq!(o.bufpolicy, BufPolicy::Switch);
        o.set("bufpolicy", Some("fill")).unwrap();
        assert_eq!(o.bufpolicy, BufPolicy::Fill);
        o.set("bufpolicy", Some("ring")).unwrap();
        assert_eq!(
            (o.bufpolicy, o.get("bufpolicy")),
            (BufPolicy::Ring, Some(2))
        );
        assert_eq!(o.cpu, None);
        o.set("cpu", Some("1")).unwrap();
        assert_eq!(o.cpu, Some(1));
        o.set("cpppath", Some("/usr/bin/cpp")).unwrap();
        assert_eq!(o.cpppath.as_deref(), Some("/usr/bin/cpp"));
        assert_eq!(o.cleanrate, Duration::from_nanos(1_000_000_000 / 101));
        assert_eq!(o.set("nonsense", None), Err(OptionError::UnknownName));
        assert_eq!(o.set("bufsize", Some("lots")), Err(OptionError::BadValue));
        assert_eq!(
            o.set("bufpolicy", Some("sometimes")),
            Err(OptionError::BadValue)
        );
    }

    #[test]
    fn refused_options_say_why_and_change_nothing() {
        let mut o = Options::default();
        let e = o.set("quietresize", None).unwrap_err();
        assert!(e.to_string().contains("resized"), "{}", e);
        assert!(!o.quietresize);
        assert!(!o.is_set(Opt::quietresize));
    }

    #[test]
    fn the_table_is_sorted_and_every_kind_has_another_value() {
        let names: Vec<&str> = all().map(|o| o.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        // The keys are the rows, in order.
        for (i, opt) in Opt::ALL.iter().enumerate() {
            assert_eq!(*opt as usize, i);
            assert_eq!(format!("{:?}", opt), OPTIONS[i].name);
        }
        for info in all() {
            if let Some(v) = info.other_value {
                // The alternative value parses for the option's kind; only
                // its support may refuse it.
                let mut o = Options::default();
                match o.set(info.name, Some(v)) {
                    Ok(()) | Err(OptionError::Unsupported(_)) => {}
                    Err(e) => panic!("{}={}: {}", info.name, v, e),
                }
            }
        }
    }

    #[test]
    fn defaults_are_the_rows_defaults() {
        let o = Options::default();
        for (i, def) in OPTIONS.iter().enumerate() {
            let mut from_row = Values::default();
            from_row.store(Opt::ALL[i], def.default, None);
            assert_eq!(format!("{:?}", from_row), format!("{:?}", o.values));
            assert_eq!(o.get(def.name), Some(def.default));
        }
    }
}
