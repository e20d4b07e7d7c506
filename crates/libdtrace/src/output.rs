//! The output interface: the consumer decodes each record into a value
//! (`format::Arg`: integers, strings, floats, byte buffers, stacks,
//! symbols) and each printed aggregation into rows of keys and merged
//! values (`aggregate::Row`), and hands them to an `Output`, which renders
//! them. `Text` is dtrace(1M)'s layout; `Json` (`-x oformat=json`, the
//! option's name in FreeBSD's libdtrace) writes one JSON object a line:
//! one per probe firing, per aggregation printed outside a firing, per
//! drop and per error. The README gives the schema.

use std::io::Write as _;

use dtrace_lang::pdesc::ProbeDesc;
use dtrace_lang::printf::Format;

use crate::aggregate::{self, AggValue, KeyValue};
use crate::consume::{ErrorData, ProbeData};
use crate::format::{self, Arg};
use crate::{ksym, DropData, DropKind};

/// What rendering depends on besides the values.
#[derive(Clone, Copy, Debug)]
pub struct RenderCx {
    /// The `quiet` option.
    pub quiet: bool,
    /// The `stackindent` option.
    pub indent: usize,
    /// The `rawbytes` option: traced bytes always as a hex dump (a
    /// string too: its `strsize` characters and NUL, zero-filled).
    pub rawbytes: bool,
    /// The `strsize` option.
    pub strsize: u32,
    /// The `flowindent` option.
    pub flowindent: bool,
    /// `$target`'s process (0 for none), in which `%A` finds symbols.
    pub target: i64,
}

/// Aggregations printed together (`printa(@a, @b)`, or one at exit).
pub struct AggPrint<'a> {
    /// The aggregations' names.
    pub names: &'a [&'a str],
    /// Their rows, joined by key and sorted.
    pub rows: aggregate::AggRows<'a>,
    /// Each aggregation's `normalize()` factor.
    pub normals: &'a [u64],
    /// Each aggregation's value over no data, printed for a key a row
    /// lacks ([`AggValue::zero`]).
    pub zeros: &'a [AggValue],
    /// `printa()`'s format, if it has one.
    pub format: Option<&'a Format>,
    /// Printed by `printa()` within a probe firing (rather than at exit).
    pub in_firing: bool,
}

/// Renders decoded records. Each method appends to `buf`, which the
/// library writes out (to the output stream, a `freopen()` file or the
/// buffered-output handler).
pub trait Output: Send {
    /// A probe firing's records begin.
    fn begin(&mut self, _buf: &mut Vec<u8>, _pd: &ProbeData<'_>) {}
    /// A value traced by `trace()` or `stack()`.
    fn value(&mut self, buf: &mut Vec<u8>, v: Arg<'_>, cx: RenderCx);
    /// Text formatted by `printf()`.
    fn text(&mut self, buf: &mut Vec<u8>, text: &[u8]);
    /// True if `text` appends its text unchanged and a firing's `begin`
    /// and `end` add nothing, so that a printf()'s text may be formatted
    /// straight into the buffer.
    fn text_is_verbatim(&self) -> bool {
        false
    }
    /// A value shown with its type by `print()`.
    fn print(&mut self, buf: &mut Vec<u8>, text: &[u8]) {
        self.text(buf, text)
    }
    /// Aggregations printed.
    fn aggregations(&mut self, buf: &mut Vec<u8>, p: &AggPrint<'_>, cx: RenderCx);
    /// True if an aggregation printed outside a firing may be given to
    /// [`aggregations`](Self::aggregations) a few rows at a time, the
    /// pieces making the same text as the whole.
    fn rows_in_pieces(&self) -> bool {
        false
    }
    /// True if a `system()` command's output is to be captured and given
    /// to [`system`](Self::system), not written straight to the output.
    fn captures_system(&self) -> bool {
        false
    }
    /// A `system()` command of the current firing and what it printed
    /// (captured output formats only).
    fn system(&mut self, _buf: &mut Vec<u8>, _command: &[u8], _output: &[u8]) {}
    /// The firing's records end.
    fn end(&mut self, _buf: &mut Vec<u8>) {}
    /// A drop, rendered into the output if this output carries drops
    /// (else the caller reports it on standard error).
    fn drop_report(&mut self, _buf: &mut Vec<u8>, _d: &DropData) -> bool {
        false
    }
    /// A fault, as `drop_report`.
    fn error_report(&mut self, _buf: &mut Vec<u8>, _e: &ErrorData) -> bool {
        false
    }
}

/// The output `oformat` names.
pub fn for_format(name: Option<&str>) -> Box<dyn Output> {
    match name {
        Some("json") => Box::new(Json::default()),
        _ => Box::new(Text),
    }
}

/// dtrace(1M)'s text.
pub struct Text;

impl Output for Text {
    fn value(&mut self, buf: &mut Vec<u8>, v: Arg<'_>, cx: RenderCx) {
        match v {
            Arg::Bytes(b) => format::trace_bytes(buf, b, cx.quiet, cx.rawbytes, 33),
            // A string's record, as DTrace dumps it: `strsize` bytes
            // and the NUL, zero past the string's end.
            Arg::Str(s) if cx.rawbytes => {
                let size = cx.strsize as usize + 1;
                let s = format::cstr(s);
                let mut b = s[..s.len().min(size - 1)].to_vec();
                b.resize(size, 0);
                format::trace_bytes(buf, &b, cx.quiet, true, 33)
            }
            v => trace_text(buf, v, cx.quiet),
        }
    }

    fn text(&mut self, buf: &mut Vec<u8>, text: &[u8]) {
        buf.extend_from_slice(text);
    }

    fn text_is_verbatim(&self) -> bool {
        true
    }

    fn rows_in_pieces(&self) -> bool {
        true
    }

    fn aggregations(&mut self, buf: &mut Vec<u8>, p: &AggPrint<'_>, cx: RenderCx) {
        match p.format {
            Some(f) => aggregate::print_formatted(
                buf,
                f,
                &p.rows,
                (p.normals, p.zeros),
                cx.indent,
                cx.target,
            ),
            None => {
                if p.in_firing {
                    buf.push(b'\n');
                }
                aggregate::print_default(buf, &p.rows, (p.normals, p.zeros), cx.indent);
            }
        }
    }
}

/// trace()'s text: DTrace pads when not quiet.
pub(crate) fn trace_text(out: &mut Vec<u8>, arg: Arg, quiet: bool) {
    match arg {
        // Written straight into the output (io::Write for Vec cannot fail).
        Arg::Int(v, t) => {
            let _ = if quiet {
                match t.size {
                    8 => write!(out, "{}", v),
                    4 => write!(out, "{}", v as i32),
                    2 => write!(out, "{}", v as u16),
                    _ => write!(out, "{}", v as u8),
                }
            } else {
                match t.size {
                    8 => write!(out, " {:>16}", v),
                    4 => write!(out, " {:>8}", v as i32),
                    // DTrace prints one- and two-byte values unsigned.
                    2 => write!(out, " {:>5}", v as u16),
                    _ => write!(out, " {:>3}", v as u8),
                }
            };
        }
        // Structs, unions, arrays and long doubles: a hex dump, quiet or
        // not, as DTrace prints them.
        Arg::Bytes(b) => format::rawbytes(out, b),
        Arg::Float(v) => out.extend_from_slice(v.to_string().as_bytes()),
        Arg::Stack(b, indent) => ksym::print_stack(out, b, indent),
        // dtrace(1M) pads a symbol or module to 50 columns, quiet or not.
        Arg::Sym(a) => out.extend_from_slice(format!("  {:<50}", ksym::sym_text(a)).as_bytes()),
        Arg::Mod(a) => out.extend_from_slice(format!("  {:<50}", ksym::mod_text(a)).as_bytes()),
        Arg::UStack(b, indent) => crate::usym::print_ustack(out, b, indent),
        Arg::User(b, how) => {
            out.extend_from_slice(format!("  {:<50}", crate::usym::pair_text(b, how)).as_bytes())
        }
        Arg::Str(s) => {
            if quiet {
                out.extend_from_slice(s);
            } else {
                out.extend_from_slice(b"  ");
                out.extend_from_slice(s);
                for _ in s.len()..33 {
                    out.push(b' ');
                }
            }
        }
    }
}

/// One JSON object a line.
#[derive(Default)]
pub struct Json {
    /// The firing being written: its head, then its records so far.
    firing: Option<Vec<u8>>,
    records: usize,
}

impl Json {
    /// Starts a record of the current firing (`,` after the first).
    fn record(&mut self) -> Option<&mut Vec<u8>> {
        let first = self.records == 0;
        self.records += 1;
        let f = self.firing.as_mut()?;
        if !first {
            f.push(b',');
        }
        Some(f)
    }
}

impl Output for Json {
    fn begin(&mut self, _buf: &mut Vec<u8>, pd: &ProbeData<'_>) {
        let mut f = Vec::new();
        f.extend_from_slice(
            format!(
                "{{\"type\":\"probe\",\"cpu\":{},\"id\":{},\"epid\":{},\"probe\":",
                pd.cpu, pd.probe_id, pd.epid
            )
            .as_bytes(),
        );
        probe_json(&mut f, pd.probe);
        f.extend_from_slice(b",\"records\":[");
        self.firing = Some(f);
        self.records = 0;
    }

    fn value(&mut self, buf: &mut Vec<u8>, v: Arg<'_>, _cx: RenderCx) {
        let mut r = b"{\"action\":\"trace\",\"value\":".to_vec();
        arg_json(&mut r, v);
        r.push(b'}');
        self.put(buf, &r);
    }

    fn text(&mut self, buf: &mut Vec<u8>, text: &[u8]) {
        let mut r = b"{\"action\":\"printf\",\"text\":".to_vec();
        json_bytes(&mut r, text);
        r.push(b'}');
        self.put(buf, &r);
    }

    fn print(&mut self, buf: &mut Vec<u8>, text: &[u8]) {
        let mut r = b"{\"action\":\"print\",\"text\":".to_vec();
        json_bytes(&mut r, text);
        r.push(b'}');
        self.put(buf, &r);
    }

    fn captures_system(&self) -> bool {
        true
    }

    fn system(&mut self, buf: &mut Vec<u8>, command: &[u8], output: &[u8]) {
        let mut r = b"{\"action\":\"system\",\"command\":".to_vec();
        json_bytes(&mut r, command);
        r.extend_from_slice(b",\"output\":");
        json_bytes(&mut r, output);
        r.push(b'}');
        self.put(buf, &r);
    }

    fn aggregations(&mut self, buf: &mut Vec<u8>, p: &AggPrint<'_>, _cx: RenderCx) {
        let mut a = Vec::new();
        aggregation_json(&mut a, p);
        if p.in_firing && self.firing.is_some() {
            let mut r = b"{\"action\":\"printa\",\"aggregation\":".to_vec();
            r.extend_from_slice(&a);
            r.push(b'}');
            self.put(buf, &r);
        } else {
            buf.extend_from_slice(b"{\"type\":\"aggregation\",");
            buf.extend_from_slice(&a[1..]);
            buf.push(b'\n');
        }
    }

    fn end(&mut self, buf: &mut Vec<u8>) {
        if let Some(f) = self.firing.take() {
            buf.extend_from_slice(&f);
            buf.extend_from_slice(b"]}\n");
        }
        self.records = 0;
    }

    fn drop_report(&mut self, buf: &mut Vec<u8>, d: &DropData) -> bool {
        let kind = match d.kind {
            DropKind::Principal => "principal",
            DropKind::Aggregation => "aggregation",
            DropKind::Dynamic => "dynamic",
            DropKind::DoubleError => "error",
            DropKind::Speculative => "speculative",
            DropKind::SpecBusy => "speculation-busy",
            DropKind::SpecUnavail => "speculation-unavailable",
        };
        buf.extend_from_slice(
            format!(
                "{{\"type\":\"drop\",\"cpu\":{},\"kind\":\"{}\",\"count\":{},\"message\":",
                d.cpu, kind, d.count
            )
            .as_bytes(),
        );
        json_str(buf, d.msg.as_bytes());
        buf.extend_from_slice(b"}\n");
        true
    }

    fn error_report(&mut self, buf: &mut Vec<u8>, e: &ErrorData) -> bool {
        buf.extend_from_slice(
            format!(
                "{{\"type\":\"error\",\"epid\":{},\"id\":{},\"probe\":",
                e.epid, e.probe_id
            )
            .as_bytes(),
        );
        probe_json(buf, &e.probe);
        buf.extend_from_slice(
            format!(
                ",\"action\":{},\"fault\":{},\"address\":{},\"message\":",
                e.action, e.fault, e.addr
            )
            .as_bytes(),
        );
        json_str(buf, e.msg.as_bytes());
        buf.extend_from_slice(b"}\n");
        true
    }
}

impl Json {
    /// A record of the current firing, or a line of its own outside one.
    fn put(&mut self, buf: &mut Vec<u8>, r: &[u8]) {
        match self.record() {
            Some(f) => f.extend_from_slice(r),
            None => {
                buf.extend_from_slice(b"{\"type\":\"record\",\"record\":");
                buf.extend_from_slice(r);
                buf.extend_from_slice(b"}\n");
            }
        }
    }
}

fn probe_json(out: &mut Vec<u8>, p: &ProbeDesc) {
    out.extend_from_slice(b"{\"provider\":");
    json_str(out, p.provider.as_bytes());
    out.extend_from_slice(b",\"module\":");
    json_str(out, p.module.as_bytes());
    out.extend_from_slice(b",\"function\":");
    json_str(out, p.function.as_bytes());
    out.extend_from_slice(b",\"name\":");
    json_str(out, p.name.as_bytes());
    out.push(b'}');
}

/// D bytes as JSON, losslessly and distinctly: a string when they are
/// UTF-8, else `{"hex":"..."}`, their bytes in hexadecimal (D strings are
/// bytes; a JSON string cannot hold those that are not UTF-8, and
/// replacing them would make distinct keys print alike).
pub fn json_bytes(out: &mut Vec<u8>, s: &[u8]) {
    if std::str::from_utf8(s).is_ok() {
        json_str(out, s);
    } else {
        out.extend_from_slice(b"{\"hex\":");
        hex_str(out, s);
        out.push(b'}');
    }
}

/// A JSON string of `s`, our own text (bytes that are not UTF-8 become
/// U+FFFD: D data goes through [`json_bytes`]).
pub fn json_str(out: &mut Vec<u8>, s: &[u8]) {
    out.push(b'"');
    for c in String::from_utf8_lossy(s).chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            c if (c as u32) < 0x20 => {
                out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes())
            }
            c => {
                let mut b = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            }
        }
    }
    out.push(b'"');
}

fn hex_str(out: &mut Vec<u8>, b: &[u8]) {
    out.push(b'"');
    for x in b {
        out.extend_from_slice(format!("{:02x}", x).as_bytes());
    }
    out.push(b'"');
}

fn stack_json(out: &mut Vec<u8>, b: &[u8]) {
    out.push(b'[');
    for (i, pc) in ksym::frames(b).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        json_str(out, ksym::addr_text(pc).as_bytes());
    }
    out.push(b']');
}

fn arg_json(out: &mut Vec<u8>, v: Arg<'_>) {
    match v {
        Arg::Int(v, t) if !t.signed && t.size == 8 => {
            out.extend_from_slice((v as u64).to_string().as_bytes())
        }
        Arg::Int(v, _) => out.extend_from_slice(v.to_string().as_bytes()),
        Arg::Str(s) => json_bytes(out, s),
        Arg::Float(f) if f.is_finite() => out.extend_from_slice(format!("{:?}", f).as_bytes()),
        Arg::Float(_) => out.extend_from_slice(b"null"),
        Arg::Bytes(b) => hex_str(out, b),
        Arg::Stack(b, _) => stack_json(out, b),
        Arg::Sym(a) => json_str(out, ksym::sym_text(a).as_bytes()),
        Arg::Mod(a) => json_str(out, ksym::mod_text(a).as_bytes()),
        Arg::UStack(b, _) => ustack_json(out, b),
        Arg::User(b, how) => json_str(out, crate::usym::pair_text(b, how).as_bytes()),
    }
}

/// A user stack: its frames, and how each was found (`"pc"`, `"cfi"`,
/// `"fp"`: the instruction pointer, by call frame information, by the
/// frame pointer), in a second array of the same length.
fn ustack_json(out: &mut Vec<u8>, b: &[u8]) {
    let frames = crate::usym::ustack_frames_how(b);
    out.extend_from_slice(b"{\"frames\":[");
    for (i, (f, _)) in frames.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        json_str(out, f.as_bytes());
    }
    out.extend_from_slice(b"],\"unwound\":[");
    for (i, (_, how)) in frames.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        json_str(out, how.name().as_bytes());
    }
    out.extend_from_slice(b"]}");
}

fn key_json(out: &mut Vec<u8>, k: &KeyValue) {
    match k {
        KeyValue::Int(v, t) if !t.signed && t.size == 8 => {
            out.extend_from_slice((*v as u64).to_string().as_bytes())
        }
        KeyValue::Int(v, _) => out.extend_from_slice(v.to_string().as_bytes()),
        KeyValue::Str(s) => json_bytes(out, s),
        KeyValue::Stack(b) => stack_json(out, b),
        KeyValue::UStack(b) => ustack_json(out, b),
        KeyValue::Sym(a) => json_str(out, ksym::sym_text(*a).as_bytes()),
        KeyValue::Mod(m) => json_str(out, m.as_bytes()),
        KeyValue::Bytes(b) => hex_str(out, b),
    }
}

fn value_json(out: &mut Vec<u8>, v: &AggValue, normal: u64) {
    match v {
        AggValue::Dist(d) => {
            let n = normal.max(1) as i64;
            out.extend_from_slice(b"{\"buckets\":[");
            let mut first = true;
            for b in d.buckets.iter().filter(|b| b.count != 0) {
                if !first {
                    out.push(b',');
                }
                first = false;
                out.extend_from_slice(b"{\"label\":");
                json_str(out, b.bound.label().as_bytes());
                out.extend_from_slice(
                    format!(
                        ",\"value\":{},\"count\":{}}}",
                        b.bound.value(),
                        b.count.wrapping_div(n)
                    )
                    .as_bytes(),
                );
            }
            out.extend_from_slice(b"]}");
        }
        v if v.is_unsigned() => {
            out.extend_from_slice((v.normalized(normal) as u64).to_string().as_bytes())
        }
        v => out.extend_from_slice(v.normalized(normal).to_string().as_bytes()),
    }
}

/// `{"names":[...],"rows":[{"keys":[...],"values":[...]}]}`.
fn aggregation_json(out: &mut Vec<u8>, p: &AggPrint<'_>) {
    out.extend_from_slice(b"{\"names\":[");
    for (i, n) in p.names.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        json_str(out, format!("@{}", n).as_bytes());
    }
    out.extend_from_slice(b"],\"rows\":[");
    for (i, row) in p.rows.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"keys\":[");
        for (j, k) in row.key.iter().enumerate() {
            if j > 0 {
                out.push(b',');
            }
            key_json(out, k);
        }
        out.extend_from_slice(b"],\"values\":[");
        for j in 0..row.columns() {
            if j > 0 {
                out.push(b',');
            }
            match row.value(j) {
                Some(v) => value_json(out, v, p.normals.get(j).copied().unwrap_or(1)),
                None => out.extend_from_slice(b"0"),
            }
        }
        out.push(b']');
        // `aggpercpu`: each aggregation's values by CPU.
        if (0..row.columns()).any(|j| row.percpu(j).is_some()) {
            out.extend_from_slice(b",\"percpu\":[");
            for j in 0..row.columns() {
                if j > 0 {
                    out.push(b',');
                }
                out.push(b'[');
                for (c, v) in row.percpu(j).unwrap_or(&[]).iter().enumerate() {
                    if c > 0 {
                        out.push(b',');
                    }
                    value_json(out, v, p.normals.get(j).copied().unwrap_or(1));
                }
                out.push(b']');
            }
            out.push(b']');
        }
        out.push(b'}');
    }
    out.extend_from_slice(b"]}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use dtrace_lang::types::INT;

    #[test]
    fn json_bytes_keep_every_byte_distinct() {
        let mut a = Vec::new();
        json_bytes(&mut a, b"caf\xe9");
        let mut b = Vec::new();
        json_bytes(&mut b, b"caf\xe8");
        assert_eq!(a, b"{\"hex\":\"636166e9\"}");
        assert_ne!(a, b);
        let mut c = Vec::new();
        json_bytes(&mut c, "caf\u{e9}".as_bytes());
        assert_eq!(String::from_utf8(c).unwrap(), "\"caf\u{e9}\"");
    }

    #[test]
    fn json_strings_escape() {
        let mut o = Vec::new();
        json_str(&mut o, b"a\"b\\c\n\x01\xff");
        assert_eq!(
            String::from_utf8(o).unwrap(),
            "\"a\\\"b\\\\c\\n\\u0001\u{fffd}\""
        );
    }

    #[test]
    fn aggregation_objects() {
        let rows: Vec<aggregate::Row> = vec![aggregate::Row::new(
            vec![KeyValue::Str(b"cat".to_vec()), KeyValue::Int(-2, INT)],
            AggValue::Count(3),
        )];
        let mut j = Json::default();
        let mut buf = Vec::new();
        j.aggregations(
            &mut buf,
            &AggPrint {
                names: &["c"],
                rows: aggregate::AggRows::Joined(&rows),
                normals: &[1],
                zeros: &[AggValue::Count(0)],
                format: None,
                in_firing: false,
            },
            RenderCx {
                quiet: true,
                indent: 14,
                rawbytes: false,
                strsize: 256,
                flowindent: false,
                target: 0,
            },
        );
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            "{\"type\":\"aggregation\",\"names\":[\"@c\"],\"rows\":[{\"keys\":[\"cat\",-2],\"values\":[3]}]}\n"
        );
    }
}
