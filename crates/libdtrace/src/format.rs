//! Formatting of values: every printf conversion DTrace supports (flags,
//! width, precision, length modifiers), shared by `printf()`, `printa()`
//! and the default output of `trace()` and aggregations.

use dtrace_lang::printf::{ConvKind, Conversion, Count, Format, Length, Segment, MAX_WIDTH};
use dtrace_lang::types::{IntType, Type};

/// A decoded value: what a record holds, as the consumer callbacks, the
/// output and the printf conversions see it.
///
/// ```
/// use libdtrace::{Arg, Consume, Consumer, ProbeData, RecDesc};
/// /// Each record's values as text.
/// struct Text(Vec<String>);
/// impl Consumer for Text {
///     fn record(&mut self, _out: &mut dyn std::io::Write, _pd: &ProbeData, rec: Option<&RecDesc>) -> Consume {
///         for v in rec.map_or(&[][..], |r| r.values) {
///             self.0.push(match v {
///                 Arg::Int(i, t) => format!("{} ({})", i, t.name),
///                 Arg::Str(s) => String::from_utf8_lossy(s).into_owned(),
///                 Arg::Float(f) => f.to_string(),
///                 other => format!("{:?}", other),
///             });
///         }
///         Consume::This
///     }
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg<'a> {
    /// An integer as stored (64 bits) and the type it had in D.
    Int(i64, IntType),
    /// A string's bytes (up to, not including, the NUL).
    Str(&'a [u8]),
    /// A `float`, `double` or `long double`, as a double.
    Float(f64),
    /// The bytes of a struct, union or array.
    Bytes(&'a [u8]),
    /// A kernel stack (`stack()`): its words, and the `stackindent`
    /// each frame is printed after.
    Stack(&'a [u8], usize),
    /// A kernel address printed as its symbol (`sym()`, `func()`).
    Sym(u64),
    /// A kernel address printed as its module (`mod()`).
    Mod(u64),
    /// A user stack (`ustack()`, `jstack()`): the process ID and frames
    /// as recorded, and the `stackindent`.
    UStack(&'a [u8], usize),
    /// A user address with its process ID (`usym()`, `umod()`,
    /// `uaddr()`), and how it prints.
    User(&'a [u8], crate::usym::UserHow),
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

/// Narrows per the length modifier, as C's printf would (`%hd` of 70000
/// is 4464); `l`, `ll` and the default keep the argument's own width.
fn narrow(v: i64, t: IntType, len: Length, signed: bool) -> (i64, u8) {
    let size = match len {
        Length::H => 2,
        _ => t.size,
    };
    (normalize(v, IntType::new(size, signed, "")), size)
}

/// Writes `u` in `radix` (8, 10 or 16) into the end of `buf`, returning
/// the digits.
fn digits(u: u64, radix: u64, upper: bool, buf: &mut [u8; 24]) -> &[u8] {
    // One loop per radix, so that each divides by a constant (a multiply),
    // not by a variable (tens of cycles a digit).
    fn run<const R: u64>(mut u: u64, set: &[u8; 16], buf: &mut [u8; 24]) -> usize {
        let mut at = buf.len();
        loop {
            at -= 1;
            buf[at] = set[(u % R) as usize];
            u /= R;
            if u == 0 {
                return at;
            }
        }
    }
    let set: &[u8; 16] = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let at = match radix {
        8 => run::<8>(u, set, buf),
        16 => run::<16>(u, set, buf),
        _ => decimal(u, buf),
    };
    &buf[at..]
}

/// The pairs "00" to "99", for writing decimals two digits at a time.
const PAIRS: [u8; 200] = {
    let mut t = [0u8; 200];
    let mut i = 0;
    while i < 100 {
        t[2 * i] = b'0' + (i / 10) as u8;
        t[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    t
};

/// Writes `u` in decimal into the end of `buf`, two digits a step;
/// returns where the digits start.
fn decimal(mut u: u64, buf: &mut [u8; 24]) -> usize {
    let mut at = buf.len();
    while u >= 100 {
        let r = (u % 100) as usize;
        u /= 100;
        at -= 2;
        buf[at..at + 2].copy_from_slice(&PAIRS[2 * r..2 * r + 2]);
    }
    if u >= 10 {
        let r = u as usize;
        at -= 2;
        buf[at..at + 2].copy_from_slice(&PAIRS[2 * r..2 * r + 2]);
    } else {
        at -= 1;
        buf[at] = b'0' + u as u8;
    }
    at
}

/// For a `%d`, `%i` or `%u` with no flag (but `'`, which changes
/// nothing), width or precision, and no `h` or `hh`: whether it is the
/// signed one. `format_int` prints such a conversion of an integer as its
/// digits alone (`push_decimal`).
pub(crate) fn bare_decimal(c: &Conversion) -> Option<bool> {
    let f = &c.flags;
    let bare = !(f.minus || f.plus || f.space || f.hash || f.zero)
        && c.width == Count::None
        && c.precision == Count::None
        && !c.agg
        && matches!(c.length, Length::None | Length::L | Length::Ll);
    match c.kind {
        ConvKind::Signed if bare => Some(true),
        ConvKind::Unsigned if bare => Some(false),
        _ => None,
    }
}

/// What `format_int` prints for a bare decimal conversion (see
/// `bare_decimal`) of `v`, an integer of type `t`: signed if both the
/// conversion and the type are, else unsigned in the type's size.
pub(crate) fn push_decimal(out: &mut Vec<u8>, v: i64, t: IntType, signed: bool) {
    let mut buf = [0u8; 24];
    let u = if signed && t.signed {
        if v < 0 {
            out.push(b'-');
        }
        v.unsigned_abs()
    } else if t.size >= 8 {
        v as u64
    } else {
        v as u64 & ((1u64 << (8 * t.size)) - 1)
    };
    let at = decimal(u, &mut buf);
    push_short(out, &buf[at..]);
}

/// Appends `bytes` (at most 24 of them, a number's digits or a short
/// literal) to `out` without a call to `memmove`: the consumer appends a
/// few bytes many times a record, and a library copy's call costs more
/// than the copy.
pub(crate) fn push_short(out: &mut Vec<u8>, bytes: &[u8]) {
    if bytes.len() > 24 {
        out.extend_from_slice(bytes);
        return;
    }
    out.reserve(24);
    for &b in bytes {
        out.push(b);
    }
}

/// Formats one integer conversion, straight into `out`: the consumer
/// does this for every integer of every printf() record.
pub(crate) fn format_int(
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
    let unsigned = |v: i64| {
        let (n, size) = narrow(v, t, c.length, false);
        if size >= 8 {
            n as u64
        } else {
            n as u64 & ((1u64 << (8 * size)) - 1)
        }
    };
    let mut buf = [0u8; 24];
    // The octal '#' flag's leading zero counts as a digit; the sign and
    // 0x count as the prefix, which zero padding goes after.
    let mut octal_zero = false;
    let (digits, prefix): (&[u8], &[u8]) = match kind {
        ConvKind::Signed => {
            let (n, _) = narrow(v, t, c.length, true);
            let prefix: &[u8] = if n < 0 {
                b"-"
            } else if c.flags.plus {
                b"+"
            } else if c.flags.space {
                b" "
            } else {
                b""
            };
            (digits(n.unsigned_abs(), 10, false, &mut buf), prefix)
        }
        ConvKind::Unsigned => (digits(unsigned(v), 10, false, &mut buf), b""),
        ConvKind::Octal => {
            let d = digits(unsigned(v), 8, false, &mut buf);
            octal_zero = c.flags.hash && d[0] != b'0';
            (d, b"")
        }
        ConvKind::Hex { upper } => {
            let u = unsigned(v);
            let prefix: &[u8] = match (c.flags.hash && u != 0, upper) {
                (false, _) => b"",
                (true, true) => b"0X",
                (true, false) => b"0x",
            };
            (digits(u, 16, upper, &mut buf), prefix)
        }
        ConvKind::Pointer | ConvKind::Symbol => {
            let prefix: &[u8] = if c.kind == ConvKind::Symbol || c.flags.hash {
                b"0x"
            } else {
                b""
            };
            (digits(v as u64, 16, false, &mut buf), prefix)
        }
        _ => {
            let prefix: &[u8] = if v < 0 { b"-" } else { b"" };
            (digits(v.unsigned_abs(), 10, false, &mut buf), prefix)
        }
    };
    let lead: &[u8] = if octal_zero { b"0" } else { b"" };
    let mut ndigits = lead.len() + digits.len();
    let mut prec_zeros = 0;
    let mut show = true;
    if let Some(p) = prec {
        let p = p.clamp(0, MAX_WIDTH) as usize;
        if p == 0 && lead.is_empty() && digits == b"0" {
            show = false;
            ndigits = 0;
        }
        prec_zeros = p.saturating_sub(ndigits);
    }
    let len = prefix.len() + prec_zeros + ndigits;
    let fill = width.saturating_sub(len);
    let zero = zero && !left && prec.is_none();
    if fill > 0 && !left && !zero {
        out.extend(std::iter::repeat_n(b' ', fill));
    }
    out.extend_from_slice(prefix);
    if fill > 0 && zero {
        out.extend(std::iter::repeat_n(b'0', fill));
    }
    out.extend(std::iter::repeat_n(b'0', prec_zeros));
    if show {
        out.extend_from_slice(lead);
        out.extend_from_slice(digits);
    }
    if fill > 0 && left {
        out.extend(std::iter::repeat_n(b' ', fill));
    }
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
/// fields or of the written numbers; `target` is the process `%A`
/// symbolizes user addresses in (`$target`, 0 for none).
pub fn format_conv(
    out: &mut Vec<u8>,
    c: &Conversion,
    arg: Arg,
    width: Option<i64>,
    prec: Option<i64>,
    target: i64,
) {
    match (c.kind, arg) {
        (ConvKind::Symbol, Arg::Int(v, _)) if c.text.ends_with('A') => format_str(
            out,
            c,
            crate::usym::uaddr_text(target, v as u64).as_bytes(),
            width,
            prec,
        ),
        (ConvKind::Str, Arg::Str(s)) => format_str(out, c, s, width, prec),
        (ConvKind::EscapedStr, Arg::Str(s)) => format_str(out, c, &escape(s), width, prec),
        (ConvKind::Char, Arg::Int(v, _)) if c.length == dtrace_lang::printf::Length::W => {
            let ch = char::from_u32(v as u32).unwrap_or(char::REPLACEMENT_CHARACTER);
            format_str(out, c, ch.to_string().as_bytes(), width, None)
        }
        (ConvKind::Str, Arg::Bytes(b)) if c.length == dtrace_lang::printf::Length::W => {
            let s: String = b
                .chunks_exact(4)
                .map(|w| u32::from_le_bytes(w.try_into().expect("4 bytes")))
                .take_while(|&w| w != 0)
                .map(|w| char::from_u32(w).unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect();
            format_str(out, c, s.as_bytes(), width, prec)
        }
        (ConvKind::Char, Arg::Int(v, _)) => format_str(out, c, &[v as u8], width, None),
        (ConvKind::Date, Arg::Int(v, _)) => format_str(out, c, date(v).as_bytes(), width, prec),
        (ConvKind::Float { conv }, Arg::Float(v)) => format_float(out, c, conv, v, width, prec),
        (ConvKind::Symbol, Arg::Int(v, _)) if c.text.ends_with('a') => format_str(
            out,
            c,
            crate::ksym::addr_text(v as u64).as_bytes(),
            width,
            prec,
        ),
        (ConvKind::Symbol, Arg::Sym(v)) => {
            format_str(out, c, crate::ksym::addr_text(v).as_bytes(), width, prec)
        }
        (ConvKind::Stack, Arg::Stack(b, indent)) => crate::ksym::print_stack(out, b, indent),
        (_, Arg::UStack(b, indent)) => crate::usym::print_ustack(out, b, indent),
        (_, Arg::User(b, how)) => format_str(
            out,
            c,
            crate::usym::pair_text(b, how).as_bytes(),
            width,
            prec,
        ),
        (_, Arg::Int(v, t)) => format_int(out, c, v, t, width, prec),
        (_, Arg::Str(s)) => format_str(out, c, s, width, prec),
        // The checker matches conversions to arguments; these do not
        // happen.
        (_, Arg::Float(v)) => format_str(out, c, v.to_string().as_bytes(), width, prec),
        (_, Arg::Bytes(b)) => rawbytes(out, b),
        (_, Arg::Stack(b, indent)) => crate::ksym::print_stack(out, b, indent),
        (_, Arg::Sym(v)) => format_str(out, c, crate::ksym::sym_text(v).as_bytes(), width, prec),
        (_, Arg::Mod(v)) => format_str(out, c, crate::ksym::mod_text(v).as_bytes(), width, prec),
    }
}

/// A float's value from its bytes as recorded: 4 bytes a `float`, 8 a
/// `double`, 16 an x86 `long double` (80-bit extended precision, then
/// padding), which is converted here by hand (to the nearest double).
pub fn float_from_bytes(b: &[u8]) -> f64 {
    match b.len() {
        4 => f64::from(f32::from_ne_bytes(b.try_into().expect("4"))),
        8 => f64::from_ne_bytes(b.try_into().expect("8")),
        n if n >= 10 => x87_to_f64(
            u64::from_le_bytes(b[0..8].try_into().expect("8")),
            u16::from_le_bytes([b[8], b[9]]),
        ),
        _ => 0.0,
    }
}

/// An x87 extended-precision value (64-bit significand with an explicit
/// integer bit, 15-bit exponent biased by 16383, sign) as the nearest f64.
pub fn x87_to_f64(mantissa: u64, sign_exp: u16) -> f64 {
    let neg = sign_exp & 0x8000 != 0;
    let exp = i32::from(sign_exp & 0x7fff);
    let v = if exp == 0x7fff {
        // Infinity when the fraction (below the integer bit) is zero.
        if mantissa << 1 == 0 {
            f64::INFINITY
        } else {
            f64::NAN
        }
    } else if mantissa == 0 {
        0.0
    } else {
        // value = mantissa * 2^(exp - 16383 - 63); denormals have exp 0
        // and the same scale as exp 1.
        let e = exp.max(1) - 16383 - 63;
        ldexp(mantissa as f64, e)
    };
    if neg {
        -v
    } else {
        v
    }
}

/// `x * 2^e` without overflowing or underflowing in between.
fn ldexp(mut x: f64, mut e: i32) -> f64 {
    while e > 1000 {
        x *= 2f64.powi(1000);
        e -= 1000;
        if x.is_infinite() {
            return x;
        }
    }
    while e < -1000 {
        x *= 2f64.powi(-1000);
        e += 1000;
        if x == 0.0 {
            return x;
        }
    }
    x * 2f64.powi(e)
}

/// `%e` digits: `d.ddde±XX` with `prec` decimals (C's form: at least two
/// exponent digits).
fn exp_form(v: f64, prec: usize, upper: bool) -> String {
    let s = format!("{:.*e}", prec, v);
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let e = if upper { 'E' } else { 'e' };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{}{}{}{:02}", mant, e, sign, exp.unsigned_abs())
}

/// The decimal exponent `%e` shows for `v` at `prec` decimals (after
/// rounding, as `%g` needs).
fn exp_of(v: f64, prec: usize) -> i32 {
    let s = format!("{:.*e}", prec, v);
    s.split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0)
}

/// Removes trailing zeros after the decimal point (and the point itself
/// if nothing follows), as `%g` does without `#`.
fn trim_fraction(s: &str) -> String {
    let (num, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    if !num.contains('.') {
        return s.to_string();
    }
    let t = num.trim_end_matches('0').trim_end_matches('.');
    format!("{}{}", t, exp)
}

/// Formats one floating-point conversion (`%e %E %f %g %G`, and with `L`)
/// as C's printf does: flags, width and precision (default 6); infinities
/// and NaNs as `inf`/`nan` (upper case for `E` and `G`).
fn format_float(
    out: &mut Vec<u8>,
    c: &Conversion,
    conv: u8,
    v: f64,
    width: Option<i64>,
    prec: Option<i64>,
) {
    let mut left = c.flags.minus;
    let mut width = width.unwrap_or(0);
    if width < 0 {
        left = true;
        width = width.saturating_neg();
    }
    let width = width.min(MAX_WIDTH) as usize;
    // A negative precision (from `*`) is as if none were given.
    let prec = match prec {
        Some(p) if p >= 0 => p.min(MAX_WIDTH) as usize,
        _ => 6,
    };
    let upper = conv.is_ascii_uppercase();
    let neg = v.is_sign_negative();
    let sign: &[u8] = if neg {
        b"-"
    } else if c.flags.plus {
        b"+"
    } else if c.flags.space {
        b" "
    } else {
        b""
    };
    let a = v.abs();
    let finite = a.is_finite();
    let digits = if !finite {
        let s = if a.is_nan() { "nan" } else { "inf" };
        if upper {
            s.to_ascii_uppercase()
        } else {
            s.to_string()
        }
    } else {
        match conv.to_ascii_lowercase() {
            b'e' => {
                let s = exp_form(a, prec, upper);
                if c.flags.hash && prec == 0 {
                    s.replacen(['e', 'E'], if upper { ".E" } else { ".e" }, 1)
                } else {
                    s
                }
            }
            b'f' => {
                let s = format!("{:.*}", prec, a);
                if c.flags.hash && prec == 0 {
                    s + "."
                } else {
                    s
                }
            }
            _ => {
                let p = prec.max(1);
                let x = if a == 0.0 { 0 } else { exp_of(a, p - 1) };
                let s = if x < -4 || x >= p as i32 {
                    exp_form(a, p - 1, upper)
                } else {
                    format!("{:.*}", (p as i32 - 1 - x).max(0) as usize, a)
                };
                if c.flags.hash {
                    if s.contains('.') {
                        s
                    } else {
                        match s.find(['e', 'E']) {
                            Some(i) => format!("{}.{}", &s[..i], &s[i..]),
                            None => s + ".",
                        }
                    }
                } else {
                    trim_fraction(&s)
                }
            }
        }
    };
    let mut body = sign.to_vec();
    body.extend_from_slice(digits.as_bytes());
    // Zero padding goes after the sign, and not for infinities or NaNs.
    let zero = c.flags.zero && !left && finite;
    pad(out, &body, width, left, zero, sign.len());
}

/// A struct's (or any by-reference value's) bytes as DTrace's consumer
/// dumps them: a header line of column offsets, then lines of 16 bytes
/// in hex, each with its offset and the bytes as characters.
/// trace() of bytes, as DTrace's consumer shows them: printable
/// characters (ending in NULs, or not ended) as a string, padded when not
/// quiet; anything else, or everything with the `rawbytes` option, as a
/// hex dump. `width` is the column a string is padded to (33 for
/// trace(), 50 for an aggregation key).
pub fn trace_bytes(out: &mut Vec<u8>, b: &[u8], quiet: bool, raw: bool, width: usize) {
    if b.is_empty() {
        return;
    }
    if !raw {
        let printable = |c: u8| (0x20..0x7f).contains(&c) || matches!(c, b'\t'..=b'\r' | 8 | 7);
        let text_end = b.iter().position(|&c| !printable(c));
        let shown = match text_end {
            None => Some(b),
            Some(i) if i > 0 && b[i..].iter().all(|&c| c == 0) => Some(&b[..i]),
            Some(_) => None,
        };
        if let Some(s) = shown {
            if quiet && text_end.is_some() {
                out.extend_from_slice(s);
            } else {
                out.extend_from_slice(b"  ");
                out.extend_from_slice(s);
                for _ in s.len()..width {
                    out.push(b' ');
                }
            }
            return;
        }
    }
    rawbytes(out, b);
}

/// Bytes as DTrace prints data that is not a string: a hex dump with
/// offsets and a column of the printable characters.
pub fn rawbytes(out: &mut Vec<u8>, b: &[u8]) {
    if b.is_empty() {
        return;
    }
    let margin = "     ";
    out.push(b'\n');
    out.extend_from_slice(margin.as_bytes());
    out.extend_from_slice(b"      ");
    for i in 0..16 {
        out.extend_from_slice(format!("  {:x}", i).as_bytes());
    }
    out.extend_from_slice(b"  0123456789abcdef\n");
    for (row, chunk) in b.chunks(16).enumerate() {
        out.extend_from_slice(format!("{}{:5x}:", margin, row * 16).as_bytes());
        for x in chunk {
            out.extend_from_slice(format!(" {:02x}", x).as_bytes());
        }
        for _ in chunk.len()..16 {
            out.extend_from_slice(b"   ");
        }
        out.extend_from_slice(b"  ");
        for &x in chunk {
            out.push(if (b' '..=b'~').contains(&x) { x } else { b'.' });
        }
        out.push(b'\n');
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
/// conversion's argument in order. `agg` formats `%@` conversions;
/// `target` is `$target`'s process, for `%A`.
#[cfg(test)]
pub fn format(fmt: &Format, args: &[Arg], agg: Option<AggFormatter>, target: i64) -> Vec<u8> {
    let mut out = Vec::new();
    format_into(&mut out, fmt, args, agg, target);
    out
}

/// [`format()`], appending to `out`.
pub fn format_into(
    out: &mut Vec<u8>,
    fmt: &Format,
    args: &[Arg],
    mut agg: Option<AggFormatter>,
    target: i64,
) {
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
                        f(out, c);
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
                    format_conv(out, c, a, width, prec, target);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dtrace_lang::types::{INT, INT64, UINT64};

    fn f(fmt: &str, args: &[Arg]) -> String {
        let p = Format::parse(fmt.as_bytes()).unwrap();
        String::from_utf8(format(&p, args, None, 0)).unwrap()
    }

    #[test]
    fn bare_decimals_print_as_format_int_does() {
        use dtrace_lang::types::{CHAR, INT, UCHAR, UINT};
        let u64t = IntType::new(8, false, "uint64_t");
        let i64t = IntType::new(8, true, "int64_t");
        let vals = [0i64, 1, -1, 127, -128, 255, 65535, i64::MIN, i64::MAX, -42];
        for conv in ["%d", "%i", "%u", "%ld", "%lld", "%'d"] {
            let p = Format::parse(conv.as_bytes()).unwrap();
            let c = p.conversions().next().unwrap();
            let signed = bare_decimal(c).expect("a bare decimal");
            for t in [CHAR, UCHAR, INT, UINT, u64t, i64t] {
                for v in vals {
                    let v = normalize(v, t);
                    let (mut want, mut got) = (Vec::new(), Vec::new());
                    format_int(&mut want, c, v, t, None, None);
                    push_decimal(&mut got, v, t, signed);
                    assert_eq!(got, want, "{} of {} as {}", conv, v, t.name);
                }
            }
        }
        for conv in [
            "%5d", "%-d", "%+d", "% d", "%.3d", "%hd", "%hu", "%x", "%*d", "%c",
        ] {
            let p = Format::parse(conv.as_bytes()).unwrap();
            let c = p.conversions().next().unwrap();
            assert_eq!(bare_decimal(c), None, "{}", conv);
        }
    }

    #[test]
    fn digits_match_rusts_own() {
        let mut buf = [0u8; 24];
        let mut vals: Vec<u64> = vec![0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, u64::MAX];
        vals.extend((0..64).map(|s| 1u64 << s));
        vals.extend((0..64).map(|s| (1u64 << s) - 1));
        vals.extend((1..20).map(|e| 10u64.pow(e)));
        vals.extend((1..20).map(|e| 10u64.pow(e) - 1));
        for v in vals {
            assert_eq!(digits(v, 10, false, &mut buf), v.to_string().as_bytes());
            assert_eq!(
                digits(v, 16, false, &mut buf),
                format!("{:x}", v).as_bytes()
            );
            assert_eq!(digits(v, 16, true, &mut buf), format!("{:X}", v).as_bytes());
            assert_eq!(digits(v, 8, false, &mut buf), format!("{:o}", v).as_bytes());
        }
    }

    #[test]
    fn integer_flags_precision_and_width_follow_c() {
        let i = |v| Arg::Int(v, INT);
        assert_eq!(f("%#o|%#o|%o", &[i(8), i(0), i(8)]), "010|0|10");
        assert_eq!(f("%#x|%#X|%#x", &[i(255), i(255), i(0)]), "0xff|0XFF|0");
        assert_eq!(
            f("%08.3d|%-+5d|% d", &[i(42), i(3), i(3)]),
            "     042|+3   | 3"
        );
        assert_eq!(f("%.0d|%5.0d|%.3d", &[i(0), i(0), i(-7)]), "|     |-007");
        assert_eq!(f("%#010x|%-#8o|", &[i(255), i(8)]), "0x000000ff|010     |");
        assert_eq!(f("%*d|%-*d|", &[i(4), i(1), i(-4), i(2)]), "   1|2   |");
        assert_eq!(
            f(
                "%d %u %x",
                &[
                    Arg::Int(i64::MIN, INT64),
                    Arg::Int(-1, UINT64),
                    Arg::Int(-1, INT)
                ]
            ),
            "-9223372036854775808 18446744073709551615 ffffffff"
        );
        assert_eq!(f("%hd|%hx", &[i(70000), i(-1)]), "4464|ffff");
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
        assert_eq!(f("%hd", &[Arg::Int(70000, INT)]), "4464");
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
    fn floats_print_as_c_does() {
        let d = |v: f64| Arg::Float(v);
        assert_eq!(
            f("%f %e %g", &[d(0.0), d(0.0), d(0.0)]),
            "0.000000 0.000000e+00 0"
        );
        assert_eq!(f("%E %G", &[d(0.0), d(0.0)]), "0.000000E+00 0");
        assert_eq!(f("%f %e", &[d(-0.0), d(-0.0)]), "-0.000000 -0.000000e+00");
        assert_eq!(f("%f", &[d(-1.5)]), "-1.500000");
        assert_eq!(f("%e", &[d(-123456.789)]), "-1.234568e+05");
        assert_eq!(f("%g", &[d(-123456.789)]), "-123457");
        assert_eq!(f("%g %g", &[d(100000.0), d(1000000.0)]), "100000 1e+06");
        assert_eq!(f("%g %g", &[d(0.0001), d(0.00001)]), "0.0001 1e-05");
        assert_eq!(f("%G", &[d(1e-10)]), "1E-10");
        assert_eq!(f("%e", &[d(1e300)]), "1.000000e+300");
        assert_eq!(f("%.0e %.0f", &[d(2.5), d(2.5)]), "2e+00 2");
        assert_eq!(f("%#.0e %#.0f", &[d(2.5), d(2.5)]), "2.e+00 2.");
        assert_eq!(f("%#g %g", &[d(1.5), d(1.5)]), "1.50000 1.5");
        assert_eq!(f("%.3g", &[d(999.9)]), "1e+03");
        assert_eq!(f("%.10g", &[d(1.1)]), "1.1");
        assert_eq!(f("%.20f", &[d(0.1)]), "0.10000000000000000555");
        assert_eq!(f("%f", &[d(1e22)]), "10000000000000000000000.000000");
        assert_eq!(
            f(
                "[%10.2f] [%-10.2f] [%010.2f]",
                &[d(-3.25), d(-3.25), d(-3.25)]
            ),
            "[     -3.25] [-3.25     ] [-000003.25]"
        );
        assert_eq!(f("%+f % f", &[d(1.0), d(1.0)]), "+1.000000  1.000000");
        assert_eq!(
            f(
                "%f %e %g %f %E %G",
                &[
                    d(f64::INFINITY),
                    d(f64::NEG_INFINITY),
                    d(f64::NAN),
                    d(f64::INFINITY),
                    d(f64::NAN),
                    d(-f64::NAN)
                ]
            ),
            "inf -inf nan inf NAN -NAN"
        );
        assert_eq!(
            f("%05f|%-5f|", &[d(f64::INFINITY), d(f64::NAN)]),
            "  inf|nan  |"
        );
        // `*` precision and width; a negative precision is none.
        assert_eq!(
            f(
                "%.*f|%*.1f",
                &[Arg::Int(2, INT), d(1.0), Arg::Int(6, INT), d(1.0)]
            ),
            "1.00|   1.0"
        );
        assert_eq!(f("%.*f", &[Arg::Int(-1, INT), d(1.0)]), "1.000000");
    }

    #[test]
    fn floats_decode_by_size() {
        assert_eq!(float_from_bytes(&1.5f32.to_ne_bytes()), 1.5);
        assert_eq!(float_from_bytes(&(-2.25f64).to_ne_bytes()), -2.25);
        let x87 = |m: u64, e: u16| {
            let mut b = m.to_le_bytes().to_vec();
            b.extend_from_slice(&e.to_le_bytes());
            b.extend_from_slice(&[0; 6]);
            float_from_bytes(&b)
        };
        // 1.1L, 1.0L, -2.0L, 0, -0
        assert_eq!(x87(0x8ccc_cccc_cccc_cccd, 0x3fff), 1.1);
        assert_eq!(x87(1 << 63, 0x3fff), 1.0);
        assert_eq!(x87(1 << 63, 0xc000), -2.0);
        assert_eq!(x87(0, 0), 0.0);
        assert!(x87(0, 0x8000).is_sign_negative());
        // Infinities and NaNs; a value beyond double's range is infinite,
        // one below it zero; a long double denormal.
        assert_eq!(x87(1 << 63, 0x7fff), f64::INFINITY);
        assert_eq!(x87(1 << 63, 0xffff), f64::NEG_INFINITY);
        assert!(x87(0xc000_0000_0000_0000, 0x7fff).is_nan());
        assert_eq!(x87(1 << 63, 0x3fff + 2000), f64::INFINITY);
        assert_eq!(x87(1 << 63, 0x3fff - 2000), 0.0);
        assert_eq!(x87(1, 0), 0.0);
        assert_eq!(x87(1 << 63, 0x3fff - 1074), 5e-324);
        assert_eq!(x87(1 << 63, 0x3fff + 1023), 2f64.powi(1023));
        assert_eq!(float_from_bytes(&[1, 2]), 0.0);
    }

    #[test]
    fn bytes_dump_as_dtrace_does() {
        let mut out = Vec::new();
        rawbytes(&mut out, b"ab\x00\xffcdefghijklmnopq");
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n\
             \x20        0: 61 62 00 ff 63 64 65 66 67 68 69 6a 6b 6c 6d 6e  ab..cdefghijklmn\n\
             \x20       10: 6f 70 71                                         opq\n"
        );
        let mut out = Vec::new();
        rawbytes(&mut out, b"");
        assert!(out.is_empty());
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
        let out = format(&p, &args, None, 0);
        assert_eq!(out.len(), MAX_WIDTH as usize + 2);
        let p = Format::parse(b"%.65535d").unwrap();
        let out = format(&p, &[Arg::Int(1, INT)], None, 0);
        assert_eq!(out.len(), 65535);
        assert!(Format::parse(b"%.4000000d").is_err());
        assert!(Format::parse(b"%500000000d").is_err());
        assert_eq!(
            star_too_wide(&Format::parse(b"%*s").unwrap(), &[Arg::Int(-9, INT)]),
            None
        );
    }
}
