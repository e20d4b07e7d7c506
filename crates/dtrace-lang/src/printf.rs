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
    Hh,
    H,
    L,
    Ll,
    /// `j`, `z`, `t`: 64-bit here.
    Wide,
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
    /// A `%` at the end, or an unknown conversion character.
    BadConversion(String),
    /// A written width or precision above `MAX_WIDTH`.
    TooWide(String),
}

/// A bad conversion as written, for a message: `%`, its flags, and the
/// character at `at`, whole if it is multi-byte UTF-8, or else as `\ooo`.
fn conv_text(text: &[u8], start: usize, at: usize) -> String {
    let len = match text[at..].utf8_chunks().next() {
        Some(chunk) => chunk.valid().chars().next().map_or(1, char::len_utf8),
        None => 0,
    };
    crate::lex::quote_bytes(&text[start..at + len])
}

/// The largest width or precision a conversion may have, written or
/// given by a `*` argument: output is built in memory.
pub const MAX_WIDTH: i64 = 65_535;

impl Format {
    pub fn parse(text: &[u8]) -> Result<Format, FormatError> {
        let mut segments = Vec::new();
        let mut lit = Vec::new();
        let mut i = 0;
        while i < text.len() {
            let c = text[i];
            if c != b'%' {
                lit.push(c);
                i += 1;
                continue;
            }
            if text.get(i + 1) == Some(&b'%') {
                lit.push(b'%');
                i += 2;
                continue;
            }
            let start = i;
            i += 1;
            let mut flags = Flags::default();
            let mut agg = false;
            while let Some(&f) = text.get(i) {
                match f {
                    b'@' => agg = true,
                    b'-' => flags.minus = true,
                    b'+' => flags.plus = true,
                    b' ' => flags.space = true,
                    b'#' => flags.hash = true,
                    b'0' => flags.zero = true,
                    b'\'' => flags.quote = true,
                    _ => break,
                }
                i += 1;
            }
            let width = count(text, &mut i);
            let precision = if text.get(i) == Some(&b'.') {
                i += 1;
                match count(text, &mut i) {
                    Count::None => Count::Fixed(0),
                    c => c,
                }
            } else {
                Count::None
            };
            if [width, precision]
                .iter()
                .any(|c| matches!(c, Count::Fixed(n) if i64::from(*n) > MAX_WIDTH))
            {
                let t = String::from_utf8_lossy(&text[start..i.min(text.len())]).into_owned();
                return Err(FormatError::TooWide(t));
            }
            let mut length = Length::None;
            // As in DTrace, `@` may also follow the width and precision
            // (`%7@d`, `%-8.3@u`): a flag of the conversion wherever it
            // stands, not part of its name.
            let mut name = String::from("%");
            loop {
                match text.get(i) {
                    Some(b'@') => {
                        agg = true;
                        i += 1;
                        continue;
                    }
                    Some(b'h') => {
                        length = if length == Length::H {
                            Length::Hh
                        } else {
                            Length::H
                        };
                    }
                    Some(b'l') => {
                        length = if length == Length::L {
                            Length::Ll
                        } else {
                            Length::L
                        };
                    }
                    Some(b'j' | b'z' | b't') => length = Length::Wide,
                    Some(b'L') => length = Length::LongDouble,
                    Some(b'w') => length = Length::W,
                    _ => break,
                }
                name.push(char::from(text[i]));
                i += 1;
            }
            let Some(&conv) = text.get(i) else {
                let t = String::from_utf8_lossy(&text[start..]).into_owned();
                return Err(FormatError::BadConversion(t));
            };
            i += 1;
            let kind = match conv {
                b'd' | b'i' => ConvKind::Signed,
                b'u' => ConvKind::Unsigned,
                b'o' => ConvKind::Octal,
                b'x' => ConvKind::Hex { upper: false },
                b'X' => ConvKind::Hex { upper: true },
                b'c' => ConvKind::Char,
                b's' => ConvKind::Str,
                b'S' => ConvKind::EscapedStr,
                b'p' => ConvKind::Pointer,
                b'a' | b'A' => ConvKind::Symbol,
                b'k' => ConvKind::Stack,
                b'Y' => ConvKind::Date,
                b'e' | b'E' | b'f' | b'g' | b'G' => ConvKind::Float { conv },
                _ => return Err(FormatError::BadConversion(conv_text(text, start, i - 1))),
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
                text: String::from_utf8_lossy(&text[start..i]).into_owned(),
                name: name + &String::from_utf8_lossy(&text[i - 1..i]),
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

fn count(text: &[u8], i: &mut usize) -> Count {
    if text.get(*i) == Some(&b'*') {
        *i += 1;
        return Count::Star;
    }
    let start = *i;
    while matches!(text.get(*i), Some(c) if c.is_ascii_digit()) {
        *i += 1;
    }
    if *i == start {
        Count::None
    } else {
        let s = std::str::from_utf8(&text[start..*i]).unwrap_or("0");
        Count::Fixed(s.parse().unwrap_or(u32::MAX))
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
    fn rejects_unknown_conversions() {
        assert!(Format::parse(b"%q").is_err());
        assert!(Format::parse(b"50%").is_err());
        assert!(Format::parse(b"%.d").is_ok());
    }

    #[test]
    fn quotes_bad_conversions_that_are_not_ascii() {
        let bad = |f: &[u8]| match Format::parse(f) {
            Err(FormatError::BadConversion(t)) => t,
            Err(e) => panic!("{:?}", e),
            Ok(_) => panic!("accepted"),
        };
        assert_eq!(bad("%-5é".as_bytes()), "%-5é");
        assert_eq!(bad("x %€ y".as_bytes()), "%€");
        assert_eq!(bad(b"%\xe9"), "%\\351");
        assert_eq!(bad(b"%\xe2\x82"), "%\\342");
        // Bytes that are not UTF-8 in the literal text are kept.
        let f = Format::parse(b"caf\xe9 %d\xff").unwrap();
        assert_eq!(
            f.segments.first(),
            Some(&Segment::Literal(b"caf\xe9 ".to_vec()))
        );
        assert_eq!(f.segments.last(), Some(&Segment::Literal(vec![0xff])));
    }
}
