//! Formatting of values: every printf conversion DTrace supports (flags,
//! width, precision, length modifiers), shared by `printf()`, `printa()`
//! and the default output of `trace()` and aggregations.

use dtrace_lang::printf::{ConvKind, Conversion, Count, Format, Length, Segment, MAX_WIDTH};
use dtrace_lang::types::{IntType, Type};

/// A value to format.
#[derive(Clone, Copy, Debug)]
pub enum Arg<'a> {
    /// An integer as stored (64 bits) and the type it had in D.
    Int(i64, IntType),
    /// A string's bytes (up to, not including, the NUL).
    Str(&'a [u8]),
}

/// The bytes of a NUL-terminated string in a buffer.
pub fn cstr(b: &[u8]) -> &[u8] {
    &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())]
}

/// Sign- or zero-extends a stored value to its type's width.
pub fn normalize(v: i64, t: IntType) -> i64 {
    dtrace_lang::check::convert_const(v, t)
}

/// The integer type to format a value of type `t` as.
pub fn int_type_of(t: &Type) -> IntType {
    t.as_int().unwrap_or(dtrace_lang::types::INT64)
}

fn pad(
    out: &mut Vec<u8>,
    body: &[u8],
    width: usize,
    left: bool,
    zero: bool,
    sign_prefix_len: usize,
) {
    if body.len() >= width {
        out.extend_from_slice(body);
        return;
    }
    let fill = width - body.len();
    if left {
        out.extend_from_slice(body);
        out.extend(std::iter::repeat_n(b' ', fill));
    } else if zero {
        out.extend_from_slice(&body[..sign_prefix_len]);
        out.extend(std::iter::repeat_n(b'0', fill));
        out.extend_from_slice(&body[sign_prefix_len..]);
    } else {
        out.extend(std::iter::repeat_n(b' ', fill));
        out.extend_from_slice(body);
    }
}

/// Narrows per the length modifier, as C's printf would (`%hhd` of 300 is
/// 44); `l`, `ll` and the default keep the argument's own width.
fn narrow(v: i64, t: IntType, len: Length, signed: bool) -> (i64, u8) {
    let size = match len {
        Length::Hh => 1,
        Length::H => 2,
        _ => t.size,
    };
    (normalize(v, IntType::new(size, signed, "")), size)
}

/// Formats one integer conversion.
fn format_int(
    out: &mut Vec<u8>,
    c: &Conversion,
    v: i64,
    t: IntType,
    width: Option<i64>,
    prec: Option<i64>,
) {
    let (mut left, zero) = (c.flags.minus, c.flags.zero);
    let mut width = width.unwrap_or(0);
    if width < 0 {
        left = true;
        width = width.saturating_neg();
    }
    let width = width.min(MAX_WIDTH) as usize;
    // `%d` and `%i` of an unsigned value print it unsigned, as DTrace's
    // printf does (`%d` of `(unsigned char)255` is 255).
    let kind = match c.kind {
        ConvKind::Signed if !t.signed => ConvKind::Unsigned,
        k => k,
    };
    let (digits, prefix): (Vec<u8>, Vec<u8>) = match kind {
        ConvKind::Signed => {
            let (n, _) = narrow(v, t, c.length, true);
            let neg = n < 0;
            let mag = n.unsigned_abs();
            let prefix = if neg {
                b"-".to_vec()
            } else if c.flags.plus {
                b"+".to_vec()
            } else if c.flags.space {
                b" ".to_vec()
            } else {
                Vec::new()
            };
            (mag.to_string().into_bytes(), prefix)
        }
        ConvKind::Unsigned => {
            let (n, size) = narrow(v, t, c.length, false);
            let u = if size >= 8 {
                n as u64
            } else {
                n as u64 & ((1u64 << (8 * size)) - 1)
            };
            (u.to_string().into_bytes(), Vec::new())
        }
        ConvKind::Octal => {
            let (n, size) = narrow(v, t, c.length, false);
            let u = if size >= 8 {
                n as u64
            } else {
                n as u64 & ((1u64 << (8 * size)) - 1)
            };
            let s = format!("{:o}", u).into_bytes();
            let s = if c.flags.hash && s[0] != b'0' {
                [b"0".to_vec(), s].concat()
            } else {
                s
            };
            (s, Vec::new())
        }
        ConvKind::Hex { upper } => {
            let (n, size) = narrow(v, t, c.length, false);
            let u = if size >= 8 {
                n as u64
            } else {
                n as u64 & ((1u64 << (8 * size)) - 1)
            };
            let s = if upper {
                format!("{:X}", u)
            } else {
                format!("{:x}", u)
            };
            let prefix = if c.flags.hash && u != 0 {
                if upper {
                    b"0X".to_vec()
                } else {
                    b"0x".to_vec()
                }
            } else {
                Vec::new()
            };
            (s.into_bytes(), prefix)
        }
        ConvKind::Pointer | ConvKind::Symbol => {
            let s = format!("{:x}", v as u64);
            let prefix = if c.kind == ConvKind::Symbol || c.flags.hash {
                b"0x".to_vec()
            } else {
                Vec::new()
            };
            (s.into_bytes(), prefix)
        }
        _ => (v.to_string().into_bytes(), Vec::new()),
    };
    let mut digits = digits;
    let mut body = prefix.clone();
    if let Some(p) = prec {
        let p = p.clamp(0, MAX_WIDTH) as usize;
        if p == 0 && digits == b"0" {
            digits.clear();
        }
        body.extend(std::iter::repeat_n(b'0', p.saturating_sub(digits.len())));
    }
    body.extend_from_slice(&digits);
    let zero = zero && !left && prec.is_none();
    pad(out, &body, width, left, zero, prefix.len());
}

fn format_str(out: &mut Vec<u8>, c: &Conversion, s: &[u8], width: Option<i64>, prec: Option<i64>) {
    let mut left = c.flags.minus;
    let mut width = width.unwrap_or(0);
    if width < 0 {
        left = true;
        width = width.saturating_neg();
    }
    let width = width.min(MAX_WIDTH);
    let s = match prec {
        Some(p) if p >= 0 && (p as usize) < s.len() => &s[..p as usize],
        _ => s,
    };
    pad(out, s, width as usize, left, false, 0);
}

/// Escapes non-printing characters as `%S` does.
pub fn escape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for &c in s {
        match c {
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'"' => out.extend_from_slice(b"\\\""),
            7 => out.extend_from_slice(b"\\a"),
            8 => out.extend_from_slice(b"\\b"),
            12 => out.extend_from_slice(b"\\f"),
            11 => out.extend_from_slice(b"\\v"),
            c if (0x20..0x7f).contains(&c) => out.push(c),
            c => out.extend_from_slice(format!("\\{:03o}", c).as_bytes()),
        }
    }
    out
}

/// `%Y`: nanoseconds since the epoch as "YYYY Mon DD HH:MM:SS", local time.
pub fn date(ns: i64) -> String {
    let secs = ns.div_euclid(1_000_000_000);
    let (y, mo, d, h, mi, s) = dtrace_sys::localtime(secs);
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{} {} {:>2} {:02}:{:02}:{:02}",
        y,
        MONTHS[(mo as usize).min(11)],
        d,
        h,
        mi,
        s
    )
}

/// Formats one conversion of `arg`. `width`/`prec` are the values of `*`
/// fields or of the written numbers.
pub fn format_conv(
    out: &mut Vec<u8>,
    c: &Conversion,
    arg: Arg,
    width: Option<i64>,
    prec: Option<i64>,
) {
    match (c.kind, arg) {
        (ConvKind::Str, Arg::Str(s)) => format_str(out, c, s, width, prec),
        (ConvKind::EscapedStr, Arg::Str(s)) => format_str(out, c, &escape(s), width, prec),
        (ConvKind::Char, Arg::Int(v, _)) => format_str(out, c, &[v as u8], width, None),
        (ConvKind::Date, Arg::Int(v, _)) => format_str(out, c, date(v).as_bytes(), width, prec),
        (_, Arg::Int(v, t)) => format_int(out, c, v, t, width, prec),
        (_, Arg::Str(s)) => format_str(out, c, s, width, prec),
    }
}

/// The fixed width or precision of a conversion.
pub fn fixed(c: Count) -> Option<i64> {
    match c {
        Count::Fixed(n) => Some(i64::from(n)),
        _ => None,
    }
}

/// The first `*` width or precision among `args` beyond `MAX_WIDTH` (the
/// consumer reports it as a runtime error instead of printing); widths
/// are clamped to the limit in any case.
pub fn star_too_wide(fmt: &Format, args: &[Arg]) -> Option<i64> {
    let mut i = 0;
    for c in fmt.conversions() {
        if c.is_agg() {
            continue;
        }
        for n in [c.width, c.precision] {
            if n == Count::Star {
                if let Some(Arg::Int(v, _)) = args.get(i) {
                    if v.unsigned_abs() > MAX_WIDTH as u64 {
                        return Some(*v);
                    }
                }
                i += 1;
            }
        }
        i += 1;
    }
    None
}

/// Formats a `%@` conversion (printa's aggregation value).
pub type AggFormatter<'a> = &'a mut dyn FnMut(&mut Vec<u8>, &Conversion);

/// Formats a whole format string; `args` supplies `*` values then each
/// conversion's argument in order. `agg` formats `%@` conversions.
pub fn format(fmt: &Format, args: &[Arg], mut agg: Option<AggFormatter>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    let next = |i: &mut usize| -> Option<Arg> {
        let a = args.get(*i).copied();
        *i += 1;
        a
    };
    for seg in &fmt.segments {
        match seg {
            Segment::Literal(b) => out.extend_from_slice(b),
            Segment::Conv(c) => {
                if c.is_agg() {
                    if let Some(f) = agg.as_mut() {
                        f(&mut out, c);
                    }
                    continue;
                }
                let width = match c.width {
                    Count::Star => match next(&mut i) {
                        Some(Arg::Int(v, _)) => Some(v),
                        _ => None,
                    },
                    w => fixed(w),
                };
                let prec = match c.precision {
                    Count::Star => match next(&mut i) {
                        Some(Arg::Int(v, _)) => Some(v),
                        _ => None,
                    },
                    p => fixed(p),
                };
                if let Some(a) = next(&mut i) {
                    format_conv(&mut out, c, a, width, prec);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use dtrace_lang::types::{INT, INT64, UINT64};

    fn f(fmt: &str, args: &[Arg]) -> String {
        let p = Format::parse(fmt.as_bytes()).unwrap();
        String::from_utf8(format(&p, args, None)).unwrap()
    }

    #[test]
    fn integers_follow_c() {
        assert_eq!(f("%d", &[Arg::Int(-5, INT)]), "-5");
        assert_eq!(
            f(
                "%5d|%-5d|%05d",
                &[Arg::Int(42, INT), Arg::Int(42, INT), Arg::Int(-42, INT)]
            ),
            "   42|42   |-0042"
        );
        assert_eq!(f("%+d % d", &[Arg::Int(3, INT), Arg::Int(3, INT)]), "+3  3");
        assert_eq!(
            f(
                "%x %X %#x %o %#o",
                &[
                    Arg::Int(255, INT),
                    Arg::Int(255, INT),
                    Arg::Int(255, INT),
                    Arg::Int(8, INT),
                    Arg::Int(8, INT)
                ]
            ),
            "ff FF 0xff 10 010"
        );
        assert_eq!(f("%u", &[Arg::Int(-1, INT)]), "4294967295");
        assert_eq!(f("%u", &[Arg::Int(-1, UINT64)]), "18446744073709551615");
        assert_eq!(
            f("%.3d|%.0d|", &[Arg::Int(7, INT), Arg::Int(0, INT)]),
            "007||"
        );
        assert_eq!(f("%hhd", &[Arg::Int(300, INT)]), "44");
        assert_eq!(
            f(
                "%*d|%-*d",
                &[
                    Arg::Int(4, INT),
                    Arg::Int(1, INT),
                    Arg::Int(3, INT),
                    Arg::Int(2, INT)
                ]
            ),
            "   1|2  "
        );
        assert_eq!(
            f("%d", &[Arg::Int(i64::MIN, INT64)]),
            "-9223372036854775808"
        );
    }

    #[test]
    fn strings_and_chars() {
        assert_eq!(
            f(
                "[%s] [%10s] [%-6s] [%.2s]",
                &[
                    Arg::Str(b"ab"),
                    Arg::Str(b"right"),
                    Arg::Str(b"left"),
                    Arg::Str(b"trunc")
                ]
            ),
            "[ab] [     right] [left  ] [tr]"
        );
        assert_eq!(f("%c%c", &[Arg::Int(104, INT), Arg::Int(105, INT)]), "hi");
        assert_eq!(f("%S", &[Arg::Str(b"a\nb\x01")]), "a\\nb\\001");
        assert_eq!(f("100%%", &[]), "100%");
    }

    #[test]
    fn huge_widths_and_precisions_are_bounded_and_linear() {
        let p = Format::parse(b"%*d|%.*d").unwrap();
        let args = [
            Arg::Int(500_000_000, INT),
            Arg::Int(1, INT),
            Arg::Int(i64::MIN, INT64),
            Arg::Int(2, INT),
        ];
        assert_eq!(star_too_wide(&p, &args), Some(500_000_000));
        let out = format(&p, &args, None);
        assert_eq!(out.len(), MAX_WIDTH as usize + 2);
        let p = Format::parse(b"%.65535d").unwrap();
        let out = format(&p, &[Arg::Int(1, INT)], None);
        assert_eq!(out.len(), 65535);
        assert!(Format::parse(b"%.4000000d").is_err());
        assert!(Format::parse(b"%500000000d").is_err());
        assert_eq!(
            star_too_wide(&Format::parse(b"%*s").unwrap(), &[Arg::Int(-9, INT)]),
            None
        );
    }
}
