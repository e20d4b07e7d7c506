//! Every option DTrace knows, its kind and default, and how values are
//! written: sizes with k/m/g/t suffixes, rates and times with DTrace's time
//! suffixes (a bare number for a rate means per second).

use std::fmt;

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

struct OptDef {
    name: &'static str,
    kind: OptKind,
    /// Default, in the option's unit: bytes, nanoseconds, count, 0/1, or
    /// the index of an enum value.
    default: i64,
}

const NS_PER_SEC: i64 = 1_000_000_000;

const OPTIONS: &[OptDef] = &[
    OptDef {
        name: "aggpercpu",
        kind: OptKind::Bool,
        default: 0,
    },
    OptDef {
        name: "aggrate",
        kind: OptKind::Rate,
        default: NS_PER_SEC,
    },
    OptDef {
        name: "aggsize",
        kind: OptKind::Size,
        default: 4 << 20,
    },
    OptDef {
        name: "aggsortkey",
        kind: OptKind::Bool,
        default: 0,
    },
    OptDef {
        name: "aggsortkeypos",
        kind: OptKind::Count,
        default: 0,
    },
    OptDef {
        name: "aggsortpos",
        kind: OptKind::Count,
        default: 0,
    },
    OptDef {
        name: "aggsortrev",
        kind: OptKind::Bool,
        default: 0,
    },
    OptDef {
        name: "argref",
        kind: OptKind::Bool,
        default: 0,
    },
    OptDef {
        name: "bufpolicy",
        kind: OptKind::Enum(&["switch", "fill", "ring"]),
        default: 0,
    },
    OptDef {
        name: "bufresize",
        kind: OptKind::Enum(&["auto", "manual"]),
        default: 0,
    },
    OptDef {
        name: "bufsize",
        kind: OptKind::Size,
        default: 4 << 20,
    },
    OptDef {
        name: "cleanrate",
        kind: OptKind::Rate,
        default: NS_PER_SEC / 101,
    },
    OptDef {
        name: "cpp",
        kind: OptKind::Bool,
        default: 0,
    },
    OptDef {
        name: "cpu",
        kind: OptKind::Count,
        default: -1,
    },
    OptDef {
        name: "defaultargs",
        kind: OptKind::Bool,
        default: 0,
    },
    OptDef {
        name: "destructive",
        kind: OptKind::Bool,
        default: 0,
    },
    OptDef {
        name: "droptags",
        kind: OptKind::Bool,
        default: 0,
    },
    OptDef {
        name: "dynvarsize",
        kind: OptKind::Size,
        default: 1 << 20,
    },
    OptDef {
        name: "empty",
        kind: OptKind::Bool,
        default: 0,
    },
    OptDef {
        name: "errtags",
        kind: OptKind::Bool,
        default: 0,
    },
    OptDef {
        name: "flowindent",
        kind: OptKind::Bool,
        default: 0,
    },
    OptDef {
        name: "grabanon",
        kind: OptKind::Bool,
        default: 0,
    },
    OptDef {
        name: "jstackframes",
        kind: OptKind::Count,
        default: 50,
    },
    OptDef {
        name: "jstackstrsize",
        kind: OptKind::Size,
        default: 512,
    },
    OptDef {
        name: "linkmode",
        kind: OptKind::Enum(&["kernel", "dynamic", "static"]),
        default: 0,
    },
    OptDef {
        name: "nspec",
        kind: OptKind::Count,
        default: 1,
    },
    OptDef {
        name: "quiet",
        kind: OptKind::Bool,
        default: 0,
    },
    OptDef {
        name: "quietresize",
        kind: OptKind::Bool,
        default: 0,
    },
    OptDef {
        name: "rawbytes",
        kind: OptKind::Bool,
        default: 0,
    },
    OptDef {
        name: "specsize",
        kind: OptKind::Size,
        default: 4 << 20,
    },
    OptDef {
        name: "stackframes",
        kind: OptKind::Count,
        default: 20,
    },
    OptDef {
        name: "stackindent",
        kind: OptKind::Count,
        default: 14,
    },
    OptDef {
        name: "statusrate",
        kind: OptKind::Rate,
        default: NS_PER_SEC,
    },
    OptDef {
        name: "strsize",
        kind: OptKind::Size,
        default: 256,
    },
    OptDef {
        name: "switchrate",
        kind: OptKind::Rate,
        default: NS_PER_SEC,
    },
    OptDef {
        name: "syslibdir",
        kind: OptKind::Text,
        default: 0,
    },
    OptDef {
        name: "unodefs",
        kind: OptKind::Bool,
        default: 0,
    },
    OptDef {
        name: "ustackframes",
        kind: OptKind::Count,
        default: 100,
    },
    OptDef {
        name: "verbose",
        kind: OptKind::Bool,
        default: 0,
    },
    OptDef {
        name: "zdefs",
        kind: OptKind::Bool,
        default: 0,
    },
];

/// Why an option could not be set; `Display` gives DTrace's wording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    UnknownName,
    BadValue,
    /// The option cannot change once tracing has started.
    TracingActive,
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OptionError::UnknownName => "Invalid option name",
            OptionError::BadValue => "Invalid value for specified option",
            OptionError::TracingActive => "Operation illegal when tracing is active",
        })
    }
}

/// Current option values.
#[derive(Clone, Debug)]
pub struct Options {
    values: Vec<i64>,
    texts: Vec<Option<String>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            values: OPTIONS.iter().map(|o| o.default).collect(),
            texts: vec![None; OPTIONS.len()],
        }
    }
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

fn index(name: &str) -> Option<usize> {
    OPTIONS.iter().position(|o| o.name == name)
}

impl Options {
    /// Sets `name` to `value` (None for a bare `-x name`).
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
            (OptKind::Text, Some(v)) => {
                self.texts[i] = Some(v.to_string());
                0
            }
        };
        if def.kind == OptKind::Size && v <= 0 {
            return Err(OptionError::BadValue);
        }
        self.values[i] = v;
        Ok(())
    }

    /// The value of an option in its unit (bytes, ns, count, 0/1, index).
    pub fn get(&self, name: &str) -> i64 {
        index(name).map(|i| self.values[i]).unwrap_or(0)
    }

    pub fn flag(&self, name: &str) -> bool {
        self.get(name) != 0
    }

    /// True if `name` is an option DTrace knows.
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
        o.set("bufpolicy", Some("ring")).unwrap();
        assert_eq!(o.get("bufpolicy"), 2);
        assert_eq!(o.set("nonsense", None), Err(OptionError::UnknownName));
        assert_eq!(o.set("bufsize", Some("lots")), Err(OptionError::BadValue));
        assert_eq!(
            o.set("bufpolicy", Some("sometimes")),
            Err(OptionError::BadValue)
        );
    }
}
