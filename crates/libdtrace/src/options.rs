//! Every option DTrace knows, its kind and default, and how values are
//! written: sizes with k/m/g/t suffixes, rates and times with DTrace's time
//! suffixes (a bare number for a rate means per second).

use std::fmt;
use std::hash::BuildHasherDefault;

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
    /// Free text (accepted for compatibility).
    Text,
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
    support: Support,
    /// The values a size or count may take, inclusive: one outside is
    /// refused when set (DTrace's "Invalid value for specified option"),
    /// never clamped later; dtrace(1) lists the ranges.
    range: (i64, i64),
    /// What it does, in a line (dtrace(1)'s manual lists it).
    about: &'static str,
}

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
        other_value: match o.kind {
            OptKind::Size => Some("64k"),
            OptKind::Rate => Some("50hz"),
            OptKind::Count => Some("1"),
            OptKind::Bool => None,
            OptKind::Enum(words) => words.get(1).copied(),
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
        range: (o.range != (i64::MIN, i64::MAX)).then_some(o.range),
    })
}

const NS_PER_SEC: i64 = 1_000_000_000;

const OPTIONS: &[OptDef] = &[
    OptDef {
        name: "aggpercpu",
        kind: OptKind::Bool,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "print each CPU's value of an aggregation apart",
    },
    OptDef {
        name: "aggrate",
        kind: OptKind::Rate,
        default: NS_PER_SEC,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "rate at which aggregations are read",
    },
    OptDef {
        name: "aggsize",
        kind: OptKind::Size,
        default: 4 << 20,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "size of the aggregation buffer",
    },
    OptDef {
        name: "aggsortkey",
        kind: OptKind::Bool,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "sort aggregations by key first",
    },
    OptDef {
        name: "aggsortkeypos",
        kind: OptKind::Count,
        default: 0,
        support: Support::Honoured,
        range: (0, 1 << 31),
        about: "which key of the tuple sorts aggregations",
    },
    OptDef {
        name: "aggsortpos",
        kind: OptKind::Count,
        default: 0,
        support: Support::Honoured,
        range: (0, 1 << 31),
        about: "which aggregation of a printa() sorts the others",
    },
    OptDef {
        name: "aggsortrev",
        kind: OptKind::Bool,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "sort aggregations in reverse",
    },
    OptDef {
        name: "argref",
        kind: OptKind::Bool,
        default: 0,
        support: Support::Refused("argument references are always checked"),
        range: (i64::MIN, i64::MAX),
        about: "(Solaris) refer to arguments by reference",
    },
    OptDef {
        name: "bufpolicy",
        kind: OptKind::Enum(&["switch", "fill", "ring"]),
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "principal buffer policy: switch, fill or ring",
    },
    OptDef {
        name: "bufresize",
        kind: OptKind::Enum(&["auto", "manual"]),
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "buffer resizing policy: auto (lower a size the kernel refuses) or manual",
    },
    OptDef {
        name: "bufsize",
        kind: OptKind::Size,
        default: 4 << 20,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "size of each CPU's principal buffer",
    },
    OptDef {
        name: "cleanrate",
        kind: OptKind::Rate,
        default: NS_PER_SEC / 101,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "rate at which speculations are cleaned",
    },
    OptDef {
        name: "cpcminoverflow",
        kind: OptKind::Count,
        default: 5000,
        support: Support::Honoured,
        range: (1, 1 << 62),
        about: "least overflow count a cpc probe may ask for",
    },
    OptDef {
        name: "cpp",
        kind: OptKind::Bool,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "run the C preprocessor on scripts (-C)",
    },
    OptDef {
        name: "cpphdrs",
        kind: OptKind::Bool,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "print the files the preprocessor includes (-H)",
    },
    OptDef {
        name: "cpppath",
        kind: OptKind::Text,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "the C preprocessor to run",
    },
    OptDef {
        name: "cpu",
        kind: OptKind::Count,
        default: -1,
        support: Support::Honoured,
        range: (-1, 1 << 20),
        about: "the CPU to trace on (-1: every CPU)",
    },
    OptDef {
        name: "defaultargs",
        kind: OptKind::Bool,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "macro arguments that are not given are empty or 0",
    },
    OptDef {
        name: "define",
        kind: OptKind::Text,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "define a preprocessor symbol (-D)",
    },
    OptDef {
        name: "destructive",
        kind: OptKind::Bool,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "allow destructive actions (-w)",
    },
    OptDef {
        name: "droptags",
        kind: OptKind::Bool,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "tag drop messages",
    },
    OptDef {
        name: "dynvarsize",
        kind: OptKind::Size,
        default: 1 << 20,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "size of the dynamic variable space",
    },
    OptDef {
        name: "empty",
        kind: OptKind::Bool,
        default: 0,
        support: Support::Refused("empty aggregation printing is not supported"),
        range: (i64::MIN, i64::MAX),
        about: "(Solaris) print empty aggregations",
    },
    OptDef {
        name: "errtags",
        kind: OptKind::Bool,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "prefix compile errors with their tags",
    },
    OptDef {
        name: "flamegraph",
        kind: OptKind::Text,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "draw the first stack-keyed aggregation as an SVG flame graph in this file",
    },
    OptDef {
        name: "flowindent",
        kind: OptKind::Bool,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "indent function entry and return (-F)",
    },
    OptDef {
        name: "grabanon",
        kind: OptKind::Bool,
        default: 0,
        support: Support::Refused("anonymous tracing is not supported"),
        range: (i64::MIN, i64::MAX),
        about: "(Solaris) claim anonymous state",
    },
    OptDef {
        name: "incdir",
        kind: OptKind::Text,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "add a directory to the preprocessor's search path (-I)",
    },
    OptDef {
        name: "jstackframes",
        kind: OptKind::Count,
        default: 50,
        support: Support::Honoured,
        range: (1, MAX_FRAMES),
        about: "default frames of jstack()",
    },
    OptDef {
        name: "jstackstrsize",
        kind: OptKind::Size,
        default: 512,
        support: Support::Refused(
            "there are no ustack helpers (a JVM's) on Linux to fill jstack() string space",
        ),
        range: (i64::MIN, i64::MAX),
        about: "(Solaris) size of jstack() strings",
    },
    OptDef {
        name: "libdir",
        kind: OptKind::Text,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "add a D library directory (-L)",
    },
    OptDef {
        name: "linkmode",
        kind: OptKind::Enum(&["kernel", "dynamic", "static"]),
        default: 0,
        support: Support::Refused(
            "kernel symbols are resolved from BTF; the link mode cannot be chosen",
        ),
        range: (i64::MIN, i64::MAX),
        about: "(Solaris) how -G objects are linked",
    },
    OptDef {
        name: "nspec",
        kind: OptKind::Count,
        default: 1,
        support: Support::Honoured,
        range: (1, MAX_NSPEC),
        about: "number of speculations",
    },
    OptDef {
        name: "oformat",
        kind: OptKind::Enum(&["text", "json"]),
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "output format: text or json",
    },
    OptDef {
        name: "quiet",
        kind: OptKind::Bool,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "print only what is traced explicitly (-q)",
    },
    OptDef {
        name: "quietresize",
        kind: OptKind::Bool,
        default: 0,
        support: Support::Refused("buffers are never resized"),
        range: (i64::MIN, i64::MAX),
        about: "(Solaris) resize buffers quietly",
    },
    OptDef {
        name: "rawbytes",
        kind: OptKind::Bool,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "trace bytes as a hex dump always",
    },
    OptDef {
        name: "specsize",
        kind: OptKind::Size,
        default: 4 << 20,
        support: Support::Honoured,
        range: (64, MAX_SPECSIZE),
        about: "size of each speculation's buffer",
    },
    OptDef {
        name: "stackframes",
        kind: OptKind::Count,
        default: 20,
        support: Support::Honoured,
        range: (1, MAX_FRAMES),
        about: "default frames of stack()",
    },
    OptDef {
        name: "stackindent",
        kind: OptKind::Count,
        default: 14,
        support: Support::Honoured,
        range: (0, 1024),
        about: "indentation of stack frames",
    },
    OptDef {
        name: "statusrate",
        kind: OptKind::Rate,
        default: NS_PER_SEC,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "rate at which the status is checked",
    },
    OptDef {
        name: "stdc",
        kind: OptKind::Enum(&["a", "c", "s", "t"]),
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "ISO C conformance of the preprocessor (-X)",
    },
    OptDef {
        name: "strsize",
        kind: OptKind::Size,
        default: 256,
        support: Support::Honoured,
        range: (2, MAX_STRSIZE),
        about: "size of strings",
    },
    OptDef {
        name: "switchrate",
        kind: OptKind::Rate,
        default: NS_PER_SEC,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "rate at which the principal buffers are read",
    },
    OptDef {
        name: "syslibdir",
        kind: OptKind::Text,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "the directory of the standard D libraries",
    },
    OptDef {
        name: "undef",
        kind: OptKind::Text,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "undefine a preprocessor symbol (-U)",
    },
    OptDef {
        name: "unodefs",
        kind: OptKind::Bool,
        default: 0,
        support: Support::Refused("undefined kernel symbols are not permitted"),
        range: (i64::MIN, i64::MAX),
        about: "(Solaris) allow undefined USDT probes",
    },
    OptDef {
        name: "ustackframes",
        kind: OptKind::Count,
        default: 100,
        support: Support::Honoured,
        range: (1, MAX_FRAMES),
        about: "default frames of ustack()",
    },
    OptDef {
        name: "verbose",
        kind: OptKind::Bool,
        default: 0,
        support: Support::Refused("printing the compiler's intermediate code is not supported"),
        range: (i64::MIN, i64::MAX),
        about: "(Solaris) verbose compile messages",
    },
    OptDef {
        name: "zdefs",
        kind: OptKind::Bool,
        default: 0,
        support: Support::Honoured,
        range: (i64::MIN, i64::MAX),
        about: "allow descriptions that match no probe (-Z)",
    },
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
    /// The option (or this value of it) has no effect here; the reason.
    Unsupported(&'static str),
    /// A size or count outside the range the option takes: the least and
    /// the most, and whether it is a size.
    OutOfRange(i64, i64, bool),
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::UnknownName => f.write_str("Invalid option name"),
            OptionError::BadValue => f.write_str("Invalid value for specified option"),
            OptionError::TracingActive => f.write_str("Operation illegal when tracing is active"),
            OptionError::Unsupported(why) => f.write_str(why),
            // DTrace's words, byte for byte (scripts and its test suite
            // read them); the range is in the option's row and dtrace(1).
            OptionError::OutOfRange(..) => f.write_str("Invalid value for specified option"),
        }
    }
}

/// Current option values.
///
/// ```
/// let mut o = libdtrace::Options::default();
/// o.set("aggrate", Some("10hz"))?;
/// assert_eq!(o.get("aggrate"), 100_000_000); // nanoseconds
/// # Ok::<(), libdtrace::OptionError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Options {
    values: Vec<i64>,
    texts: Vec<Option<String>>,
    /// Which options were set explicitly (some take effect only then).
    explicit: Vec<bool>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            values: OPTIONS.iter().map(|o| o.default).collect(),
            texts: vec![None; OPTIONS.len()],
            explicit: vec![false; OPTIONS.len()],
        }
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

/// The option's row in OPTIONS. The consumer asks for options as each
/// record is printed, so the rows are found through a hash, not a scan.
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
    /// which option failed.
    ///
    /// ```
    /// use libdtrace::{OptionError, Options};
    /// let mut o = Options::default();
    /// o.set("bufsize", Some("4m")).unwrap();
    /// assert_eq!(o.get("bufsize"), 4 << 20);
    /// assert_eq!(o.set("bufsize", Some("lots")), Err(OptionError::BadValue));
    /// assert_eq!(o.set("nosuch", None), Err(OptionError::UnknownName));
    /// ```
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<(), OptionError> {
        let i = index(name).ok_or(OptionError::UnknownName)?;
        let def = &OPTIONS[i];
        let v = match (def.kind, value) {
            (OptKind::Bool, None) => 1,
            (OptKind::Bool, Some(v)) => match v {
                "" => 1,
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
        if let (OptKind::Text, Some(text)) = (def.kind, value) {
            self.texts[i] = Some(text.to_string());
        }
        self.values[i] = v;
        self.explicit[i] = true;
        Ok(())
    }

    /// The value of an option in its unit (bytes, ns, count, 0/1, index).
    ///
    /// ```
    /// let mut o = libdtrace::Options::default();
    /// o.set("switchrate", Some("10hz")).unwrap();
    /// assert_eq!(o.get("switchrate"), 100_000_000);
    /// ```
    pub fn get(&self, name: &str) -> i64 {
        index(name).map(|i| self.values[i]).unwrap_or(0)
    }

    /// The text of a text option, if set.
    ///
    /// ```
    /// let mut o = libdtrace::Options::default();
    /// assert_eq!(o.text("cpppath"), None);
    /// o.set("cpppath", Some("/usr/bin/cpp")).unwrap();
    /// assert_eq!(o.text("cpppath"), Some("/usr/bin/cpp"));
    /// ```
    pub fn text(&self, name: &str) -> Option<&str> {
        index(name).and_then(|i| self.texts[i].as_deref())
    }

    /// True if the option was set, by `-x`, a flag or a pragma.
    ///
    /// ```
    /// let mut o = libdtrace::Options::default();
    /// assert!(!o.is_set("quiet"));
    /// o.set("quiet", None).unwrap();
    /// assert!(o.is_set("quiet"));
    /// ```
    pub fn is_set(&self, name: &str) -> bool {
        index(name).is_some_and(|i| self.explicit[i])
    }

    /// Whether a flag option is set (a value option: whether it is not 0).
    ///
    /// ```
    /// let mut o = libdtrace::Options::default();
    /// o.set("flowindent", Some("1")).unwrap();
    /// assert!(o.flag("flowindent"));
    /// ```
    pub fn flag(&self, name: &str) -> bool {
        self.get(name) != 0
    }

    /// True if `name` is an option DTrace knows.
    ///
    /// ```
    /// assert!(libdtrace::Options::exists("aggsortrev"));
    /// assert!(!libdtrace::Options::exists("aggsortbackwards"));
    /// ```
    pub fn exists(name: &str) -> bool {
        index(name).is_some()
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
    fn options_set_and_reject() {
        let mut o = Options::default();
        assert_eq!(o.get("strsize"), 256);
        o.set("strsize", Some("1k")).unwrap();
        assert_eq!(o.get("strsize"), 1024);
        o.set("quiet", None).unwrap();
        assert!(o.flag("quiet"));
        o.set("bufpolicy", Some("switch")).unwrap();
        assert_eq!(o.get("bufpolicy"), 0);
        o.set("bufpolicy", Some("fill")).unwrap();
        assert_eq!(o.get("bufpolicy"), 1);
        o.set("bufpolicy", Some("ring")).unwrap();
        assert_eq!(o.get("bufpolicy"), 2);
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
        let e = o.set("grabanon", None).unwrap_err();
        assert!(e.to_string().contains("anonymous"), "{}", e);
        assert_eq!(o.get("grabanon"), 0);
    }

    #[test]
    fn the_table_is_sorted_and_every_kind_has_another_value() {
        let names: Vec<&str> = all().map(|o| o.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
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
}
