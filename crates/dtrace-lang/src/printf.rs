//! printf-style format strings: parsing into literal text and conversions,
//! and the argument kinds each conversion accepts. The compiler checks
//! `printf()`/`printa()` arguments with this; the consumer formats values
//! with the same parsed form, so a format is understood in one place.

use crate::types::Type;

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Flags {
    pub minus: bool,
    pub plus: bool,
    pub space: bool,
    pub hash: bool,
    pub zero: bool,
    /// `'`: thousands grouping (accepted and ignored, as in the C locale).
    pub quote: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    None,
    Fixed(u32),
    /// `*`: taken from an argument.
    Star,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    None,
    H,
    L,
    Ll,
    /// `L`: `long double` (for the floating-point conversions).
    LongDouble,
    /// `w`: wide characters (`%wc` a `wchar_t`, `%ws` a `wchar_t` array).
    W,
}

/// What a conversion prints, and so what argument it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvKind {
    /// d i
    Signed,
    /// u
    Unsigned,
    /// o
    Octal,
    /// x X
    Hex { upper: bool },
    /// c
    Char,
    /// s
    Str,
    /// S: string with non-printing characters escaped.
    EscapedStr,
    /// p
    Pointer,
    /// a A: kernel symbol (printed as an address until symbols are known)
    Symbol,
    /// `%k`: a kernel stack.
    Stack,
    /// Y: a nanosecond wall-clock time as a date.
    Date,
    /// e f g E G: floating point (`float`, `double`, `long double`).
    Float { conv: u8 },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conversion {
    pub flags: Flags,
    pub width: Count,
    pub precision: Count,
    pub length: Length,
    pub kind: ConvKind,
    /// The `@` flag: this conversion prints the aggregation value
    /// (printa only), e.g. `%@d` or `%@8u`.
    pub agg: bool,
    /// Its number in the format, from 1, as DTrace counts conversions
    /// in messages (`%%` counts).
    pub number: usize,
    /// The conversion as written, e.g. `%-8.3ld`.
    pub text: String,
    /// Its name as DTrace's messages show it: `%`, the length modifier
    /// and the conversion character, e.g. `%ld` for `%-8.3ld`.
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    Literal(Vec<u8>),
    Conv(Conversion),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Format {
    pub text: Vec<u8>,
    pub segments: Vec<Segment>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormatError {
    /// A conversion DTrace does not define (`%z`, `%hhd`): its number
    /// and name (without the `%`).
    Undefined(usize, String),
    /// The format ends inside conversion `#n`.
    NameExpected(usize),
    /// Two `*` for the width (or for the precision, if `true`).
    TwoStars(usize, bool),
    /// Two `.` in one conversion.
    TwoDots(usize),
    /// A positional argument (`%1$d`).
    Positional(usize),
    /// `%` after flags (`%-%`).
    PercentFlags(usize),
    /// A written width or precision above `MAX_WIDTH`.
    TooWide(String),
}

impl std::fmt::Display for FormatError {
    /// DTrace's words for each (its conversions are numbered from 1,
    /// `%%` included).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FormatError::Undefined(n, name) => {
                write!(f, "format conversion #{} is undefined: %{}", n, name)
            }
            FormatError::NameExpected(n) => write!(
                f,
                "format conversion #{} name expected before end of format string",
                n
            ),
            FormatError::TwoStars(n, prec) => write!(
                f,
                "format conversion #{} has more than one '*' specified for the output {}",
                n,
                if *prec { "precision" } else { "width" }
            ),
            FormatError::TwoDots(n) => {
                write!(
                    f,
                    "format conversion #{} has more than one '.' specified",
                    n
                )
            }
            FormatError::Positional(n) => write!(
                f,
                "format conversion #{} uses unsupported positional format (%n$)",
                n
            ),
            FormatError::PercentFlags(n) => write!(
                f,
                "format conversion #{} cannot be combined with other format flags: %%",
                n
            ),
            FormatError::TooWide(c) => write!(
                f,
                "width or precision of \"{}\" exceeds the limit of {}",
                c, MAX_WIDTH
            ),
        }
    }
}

/// The largest width or precision a conversion may have, written or
/// given by a `*` argument: output is built in memory.
pub const MAX_WIDTH: i64 = 65_535;

/// The width `%?` stands for: a pointer's hex digits.
const ADDR_WIDTH: u32 = 16;

/// The conversions DTrace defines, by name (length modifiers included):
/// their length and what each prints.
fn conversion_named(name: &str) -> Option<(Length, ConvKind)> {
    let last = name.char_indices().last()?.0;
    let (length, c) = match last {
        0 => (Length::None, name),
        _ => {
            let (l, c) = name.split_at(last);
            let length = match l {
                "h" => Length::H,
                "l" => Length::L,
                "ll" => Length::Ll,
                "L" => Length::LongDouble,
                "w" => Length::W,
                _ => return None,
            };
            (length, c)
        }
    };
    let kind = match c {
        "d" | "i" => ConvKind::Signed,
        "u" => ConvKind::Unsigned,
        "o" => ConvKind::Octal,
        "x" => ConvKind::Hex { upper: false },
        "X" => ConvKind::Hex { upper: true },
        "c" => ConvKind::Char,
        "s" => ConvKind::Str,
        "S" => ConvKind::EscapedStr,
        "p" => ConvKind::Pointer,
        "a" | "A" => ConvKind::Symbol,
        "k" => ConvKind::Stack,
        "Y" => ConvKind::Date,
        "e" | "E" | "f" | "g" | "G" => ConvKind::Float {
            conv: c.as_bytes()[0],
        },
        _ => return None,
    };
    let int = matches!(
        kind,
        ConvKind::Signed | ConvKind::Unsigned | ConvKind::Octal | ConvKind::Hex { .. }
    );
    let defined = match length {
        Length::None => true,
        Length::H | Length::Ll => int,
        Length::L => int || matches!(kind, ConvKind::Char | ConvKind::Str),
        Length::LongDouble => matches!(kind, ConvKind::Float { .. }),
        Length::W => matches!(kind, ConvKind::Char | ConvKind::Str),
    };
    defined.then_some((length, kind))
}

impl Format {
    /// Parses a format as DTrace does: after each `%`, flags, a width and
    /// a precision (digits or `*`; `?` is a pointer's width) and `@` (the
    /// aggregation's value, for printa) in any order, then a conversion
    /// named by its length modifiers and character, which must be one
    /// DTrace defines.
    pub fn parse(text: &[u8]) -> Result<Format, FormatError> {
        let mut segments = Vec::new();
        let mut lit = Vec::new();
        let mut i = 0;
        // DTrace's number of the conversion being read (`%%` counts).
        let mut number = 0;
        while i < text.len() {
            let c = text[i];
            if c != b'%' {
                lit.push(c);
                i += 1;
                continue;
            }
            number += 1;
            let start = i;
            let mut flags = Flags::default();
            let mut agg = false;
            let mut width = Count::None;
            let mut precision = Count::None;
            let mut dot = false;
            let mut digits = false;
            let mut name = String::new();
            loop {
                i += 1;
                let Some(&c) = text.get(i) else {
                    return Err(FormatError::NameExpected(number));
                };
                match c {
                    b'0' if !dot && !digits => {
                        flags.zero = true;
                        flags.minus = false;
                    }
                    b'0'..=b'9' => {
                        let from = i;
                        while matches!(text.get(i + 1), Some(d) if d.is_ascii_digit()) {
                            i += 1;
                        }
                        let n = std::str::from_utf8(&text[from..=i])
                            .ok()
                            .and_then(|s| s.parse().ok())
                            .unwrap_or(u32::MAX);
                        if dot {
                            precision = Count::Fixed(n);
                        } else {
                            width = Count::Fixed(n);
                        }
                        digits = true;
                    }
                    b'#' => flags.hash = true,
                    b'*' => {
                        let slot = if dot { &mut precision } else { &mut width };
                        if *slot == Count::Star {
                            return Err(FormatError::TwoStars(number, dot));
                        }
                        *slot = Count::Star;
                    }
                    b'+' => flags.plus = true,
                    b'-' => {
                        flags.minus = true;
                        flags.zero = false;
                    }
                    b'.' => {
                        if dot {
                            return Err(FormatError::TwoDots(number));
                        }
                        dot = true;
                        digits = false;
                    }
                    b'?' => width = Count::Fixed(ADDR_WIDTH),
                    b'@' => agg = true,
                    b'\'' => flags.quote = true,
                    b' ' => flags.space = true,
                    b'$' => return Err(FormatError::Positional(number)),
                    b'%' if i == start + 1 => {
                        name.push('%');
                        break;
                    }
                    b'%' => return Err(FormatError::PercentFlags(number)),
                    b'h' | b'l' | b'L' | b'w' => {
                        if name.len() < 2 {
                            name.push(char::from(c));
                        }
                    }
                    _ => {
                        // The character whole if it is multi-byte UTF-8,
                        // else quoted as `\ooo`.
                        let len = match text[i..].utf8_chunks().next() {
                            Some(chunk) => chunk.valid().chars().next().map_or(1, char::len_utf8),
                            None => 1,
                        };
                        name.push_str(&crate::lex::quote_bytes(&text[i..i + len]));
                        i += len - 1;
                        break;
                    }
                }
            }
            i += 1;
            if name == "%" {
                lit.push(b'%');
                continue;
            }
            if dot && precision == Count::None {
                precision = Count::Fixed(0);
            }
            if [width, precision]
                .iter()
                .any(|c| matches!(c, Count::Fixed(n) if i64::from(*n) > MAX_WIDTH))
            {
                let t = String::from_utf8_lossy(&text[start..i]).into_owned();
                return Err(FormatError::TooWide(t));
            }
            let Some((length, kind)) = conversion_named(&name) else {
                return Err(FormatError::Undefined(number, name));
            };
            if !lit.is_empty() {
                segments.push(Segment::Literal(std::mem::take(&mut lit)));
            }
            segments.push(Segment::Conv(Conversion {
                flags,
                width,
                precision,
                length,
                agg,
                kind,
                number,
                text: String::from_utf8_lossy(&text[start..i]).into_owned(),
                name: format!("%{}", name),
            }));
        }
        if !lit.is_empty() {
            segments.push(Segment::Literal(lit));
        }
        Ok(Format {
            text: text.to_vec(),
            segments,
        })
    }

    pub fn conversions(&self) -> impl Iterator<Item = &Conversion> {
        self.segments.iter().filter_map(|s| match s {
            Segment::Conv(c) => Some(c),
            _ => None,
        })
    }

    /// How many arguments the format consumes, counting `*` widths and
    /// precisions (but not `%@`, which printa supplies).
    pub fn arg_count(&self) -> usize {
        self.conversions()
            .map(|c| {
                usize::from(c.width == Count::Star)
                    + usize::from(c.precision == Count::Star)
                    + usize::from(!c.agg)
            })
            .sum()
    }
}

impl Conversion {
    /// True if this conversion prints the aggregation value.
    pub fn is_agg(&self) -> bool {
        self.agg
    }
}

impl ConvKind {
    /// True if an argument of type `t` may be printed with this conversion.
    pub fn accepts(self, t: &Type) -> bool {
        match self {
            // Integers only, as DTrace's pfcheck_dint/pfcheck_xint (a
            // pointer is printed with %p).
            ConvKind::Signed | ConvKind::Unsigned | ConvKind::Octal | ConvKind::Hex { .. } => {
                t.is_int()
            }
            // pfcheck_csi: an integer no wider than an int.
            ConvKind::Char => t.is_int() && t.scalar_size() <= 4,
            ConvKind::Pointer | ConvKind::Symbol | ConvKind::Date => t.is_scalar(),
            ConvKind::Str | ConvKind::EscapedStr => t.is_string(),
            ConvKind::Float { .. } => t.is_float(),
            ConvKind::Stack => matches!(
                t.special(),
                Some(crate::types::Special::Stack(_) | crate::types::Special::UStack(_))
            ),
        }
    }

    /// Whether conversion `c` (with its length modifier) accepts `t`, as
    /// DTrace's table of conversions says: without a length, the kind's
    /// rule; with one, exactly the C type it names (`%ld` a signed 64-bit
    /// integer, `%hu` an unsigned short, `%L[eEfgG]` a `long double`),
    /// and for `%hx`, `%lx`, `%llx` that base type of either sign
    /// (`%llx` also `int64_t` and `uint64_t`).
    pub fn accepts_conv(c: &Conversion, t: &Type) -> bool {
        let int = match t.resolved() {
            Type::Int(i) => Some(*i),
            _ => None,
        };
        let exactly =
            |size: u8, signed: bool| int.is_some_and(|i| i.size == size && i.signed == signed);
        let base = int.map(|i| c_base(i.name, i.size));
        match (c.kind, c.length) {
            (ConvKind::Float { .. }, Length::LongDouble) => {
                matches!(t.resolved(), Type::Float(f) if f.size > 8)
            }
            (ConvKind::Signed, Length::H) => exactly(2, true),
            (ConvKind::Unsigned | ConvKind::Octal, Length::H) => exactly(2, false),
            (ConvKind::Signed, Length::L | Length::Ll) => exactly(8, true),
            (ConvKind::Unsigned | ConvKind::Octal, Length::L | Length::Ll) => exactly(8, false),
            (ConvKind::Char, Length::L) => exactly(4, true),
            (ConvKind::Char, Length::W) => int.is_some_and(|i| i.size <= 4),
            (ConvKind::Str, Length::W) => matches!(
                t.resolved(),
                Type::Array(e, _) if matches!(e.resolved(), Type::Int(i) if i.size == 4)
            ),
            (_, Length::W) => false,
            (ConvKind::Hex { .. }, Length::H) => base == Some("short"),
            (ConvKind::Hex { .. }, Length::L) => base == Some("long"),
            (ConvKind::Hex { .. }, Length::Ll) => base == Some("long long") || names_int64(t),
            (k, _) => k.accepts(t),
        }
    }

    /// `prototype`, for conversion `c` with its length modifier.
    pub fn prototype_of(c: &Conversion) -> &'static str {
        match (c.kind, c.length) {
            (ConvKind::Float { .. }, Length::LongDouble) => "long double",
            (ConvKind::Signed | ConvKind::Hex { .. }, Length::H) => "short",
            (ConvKind::Unsigned | ConvKind::Octal, Length::H) => "unsigned short",
            (ConvKind::Signed | ConvKind::Hex { .. }, Length::L) => "long",
            (ConvKind::Unsigned | ConvKind::Octal, Length::L) => "unsigned long",
            (ConvKind::Signed | ConvKind::Hex { .. }, Length::Ll) => "long long",
            (ConvKind::Unsigned | ConvKind::Octal, Length::Ll) => "unsigned long long",
            (ConvKind::Char, Length::L) => "int",
            (ConvKind::Char, Length::W) => "wchar_t",
            (ConvKind::Str, Length::W) => "wchar_t []",
            (k, _) => k.prototype(),
        }
    }

    /// DTrace's description of what a conversion expects, for messages.
    pub fn prototype(self) -> &'static str {
        match self {
            ConvKind::Signed | ConvKind::Unsigned | ConvKind::Octal | ConvKind::Hex { .. } => {
                "char, short, int, long, or long long"
            }
            ConvKind::Char => "char, short, or int",
            ConvKind::Str | ConvKind::EscapedStr => "char [] or string (or use stringof)",
            ConvKind::Pointer => "pointer or integer",
            ConvKind::Symbol => "pointer or integer",
            ConvKind::Date => "int64_t, uint64_t, or hrtime_t",
            ConvKind::Float { .. } => "float, double, or long double",
            ConvKind::Stack => "stack",
        }
    }
}

/// The C base type (of either sign) an integer type is in the x86-64
/// ABI: `long long` by its own name, otherwise by its size (`int64_t`,
/// `size_t` and `uintptr_t` are `long` there, `pid_t` an `int`).
fn c_base(name: &str, size: u8) -> &'static str {
    match (
        name.trim_start_matches("unsigned ")
            .trim_start_matches("signed "),
        size,
    ) {
        ("long long", _) => "long long",
        (_, 1) => "char",
        (_, 2) => "short",
        (_, 4) => "int",
        _ => "long",
    }
}

/// True if `t` is `int64_t` or `uint64_t`, or a typedef of either.
fn names_int64(t: &Type) -> bool {
    let mut t = t;
    loop {
        match t {
            Type::Named(n, inner) => {
                if matches!(&**n, "int64_t" | "uint64_t") {
                    return true;
                }
                t = inner;
            }
            Type::Int(i) => return matches!(i.name, "int64_t" | "uint64_t"),
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_literals_and_conversions() {
        let f = Format::parse(b"a %-8.3ld b %% %s\n").unwrap();
        assert_eq!(f.segments.len(), 5);
        let convs: Vec<_> = f.conversions().collect();
        assert_eq!(convs[0].kind, ConvKind::Signed);
        assert_eq!(convs[0].width, Count::Fixed(8));
        assert_eq!(convs[0].precision, Count::Fixed(3));
        assert_eq!(convs[0].length, Length::L);
        assert!(convs[0].flags.minus);
        assert_eq!(convs[0].text, "%-8.3ld");
        assert_eq!(f.segments[2], Segment::Literal(b" b % ".to_vec()));
    }

    #[test]
    fn counts_star_arguments() {
        let f = Format::parse(b"%*.*d %s %@d").unwrap();
        assert_eq!(f.arg_count(), 4);
        let convs: Vec<_> = f.conversions().collect();
        assert!(convs[2].is_agg());
        assert_eq!(convs[2].kind, ConvKind::Signed);
        assert!(Format::parse(b"%-@8x")
            .unwrap()
            .conversions()
            .next()
            .unwrap()
            .is_agg());
    }

    #[test]
    fn the_aggregation_flag_may_follow_the_width() {
        // As in DTrace: `%5u %12s %7@d` is a count seven wide.
        let f = Format::parse(b"%5u %12s %7@d\n").unwrap();
        let convs: Vec<_> = f.conversions().collect();
        assert_eq!(convs.len(), 3);
        assert!(convs[2].is_agg());
        assert_eq!(convs[2].kind, ConvKind::Signed);
        assert_eq!(convs[2].width, Count::Fixed(7));
        assert_eq!(convs[2].name, "%d");
        assert_eq!(f.segments.last(), Some(&Segment::Literal(b"\n".to_vec())));
        let c = Format::parse(b"%-8.3@lu").unwrap();
        let c = c.conversions().next().unwrap();
        assert!(c.is_agg() && c.flags.minus);
        assert_eq!((c.width, c.precision), (Count::Fixed(8), Count::Fixed(3)));
        assert_eq!(c.name, "%lu");
        // `@` alone names no conversion.
        assert!(Format::parse(b"%7@").is_err());
    }

    #[test]
    fn rejects_what_dtrace_does_not_define_in_its_words() {
        let e = |f: &[u8]| Format::parse(f).unwrap_err().to_string();
        assert_eq!(e(b"%q"), "format conversion #1 is undefined: %q");
        assert_eq!(e(b"%d %% %zu"), "format conversion #3 is undefined: %z");
        assert_eq!(e(b"%hhd"), "format conversion #1 is undefined: %hhd");
        assert_eq!(
            e(b"50%"),
            "format conversion #1 name expected before end of format string"
        );
        assert_eq!(
            e(b"%.*"),
            "format conversion #1 name expected before end of format string"
        );
        assert_eq!(
            e(b"%**d"),
            "format conversion #1 has more than one '*' specified for the output width"
        );
        assert_eq!(
            e(b"%.**d"),
            "format conversion #1 has more than one '*' specified for the output precision"
        );
        assert_eq!(
            e(b"%1.2.3d"),
            "format conversion #1 has more than one '.' specified"
        );
        assert_eq!(
            e(b"%1$d"),
            "format conversion #1 uses unsupported positional format (%n$)"
        );
        assert_eq!(
            e(b"%-%"),
            "format conversion #1 cannot be combined with other format flags: %%"
        );
        assert!(Format::parse(b"%.d").is_ok());
    }

    #[test]
    fn flags_as_dtrace_reads_them() {
        let c = |f: &[u8]| {
            Format::parse(f)
                .unwrap()
                .conversions()
                .next()
                .unwrap()
                .clone()
        };
        // `?` is a pointer's width; a zero after the width is a digit.
        assert_eq!(c(b"%?d").width, Count::Fixed(16));
        assert_eq!(c(b"%10d").width, Count::Fixed(10));
        // `0` and `-` undo each other, the later wins.
        let z = c(b"%-05d");
        assert!(z.flags.zero && !z.flags.minus);
        let m = c(b"%0-5d");
        assert!(!m.flags.zero && m.flags.minus);
        assert_eq!(c(b"%.0f").precision, Count::Fixed(0));
        // `%%` is a conversion in DTrace's numbering.
        assert_eq!(c(b"%%%5.2Lf").number, 2);
        assert_eq!(c(b"%%%5.2Lf").name, "%Lf");
        assert!(Format::parse(b"%lf").is_err());
    }

    #[test]
    fn quotes_bad_conversions_that_are_not_ascii() {
        let bad = |f: &[u8]| match Format::parse(f) {
            Err(FormatError::Undefined(_, t)) => t,
            Err(e) => panic!("{:?}", e),
            Ok(_) => panic!("accepted"),
        };
        assert_eq!(bad("%-5é".as_bytes()), "é");
        assert_eq!(bad("x %€ y".as_bytes()), "€");
        assert_eq!(bad(b"%\xe9"), "\\351");
        assert_eq!(bad(b"%\xe2\x82"), "\\342");
        // Bytes that are not UTF-8 in the literal text are kept.
        let f = Format::parse(b"caf\xe9 %d\xff").unwrap();
        assert_eq!(
            f.segments.first(),
            Some(&Segment::Literal(b"caf\xe9 ".to_vec()))
        );
        assert_eq!(f.segments.last(), Some(&Segment::Literal(vec![0xff])));
    }
}
