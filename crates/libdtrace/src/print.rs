//! `print()`: a traced value shown with its type, in the layout of
//! illumos' `dtrace_print()` (mdb's `::print -tn`): the type, then the
//! value; integers and pointers in hex (`0x1f`, `0`), characters quoted,
//! floats as `%+.7e`, enums by name, arrays in brackets (a character
//! array holding a string as the string), structs and unions as a
//! member a line, each indented four spaces a level:
//!
//! ```text
//! struct timespec {
//!     time64_t tv_sec = 0x65
//!     long tv_nsec = 0x1dcd6500
//! }
//! ```
//!
//! (illumos' own enum printing always names the enumerator of 0; the
//! enumerator of the value is printed here.)

use dtrace_lang::types::{IntType, Member, Type, TypeTable};

/// Nesting deeper than this is shown as `...` (a kernel struct's
/// members can nest deeply; the bytes recorded are bounded anyway).
const MAX_DEPTH: usize = 16;

/// Renders `bytes`, a value of type `ty`, as print() shows it.
pub fn print_value(out: &mut String, types: &mut TypeTable, ty: &Type, bytes: &[u8]) {
    let mut p = Printer { types, out };
    p.out.push_str(&ty.to_string());
    p.out.push(' ');
    let resolved = ty.resolved().clone();
    match &resolved {
        Type::Record(_) => {
            p.value(&resolved, bytes, 0, 0, None);
        }
        Type::Array(elem, n) if is_char(elem) && looks_like_string(bytes, *n as usize) => {
            p.out.push('"');
            p.out.push_str(&string_of(bytes));
            p.out.push('"');
            p.out.push('\n');
        }
        _ => {
            p.value(&resolved, bytes, 0, 0, None);
            p.out.push('\n');
        }
    }
}

/// A string value (print() of a D `string`).
pub fn print_string(out: &mut String, s: &[u8]) {
    out.push_str("string \"");
    out.push_str(&String::from_utf8_lossy(s));
    out.push_str("\"\n");
}

struct Printer<'a> {
    types: &'a mut TypeTable,
    out: &'a mut String,
}

fn is_char(t: &Type) -> bool {
    matches!(t.resolved(), Type::Int(i) if i.size == 1 && i.signed && i.name.contains("char"))
}

/// Printable characters then a NUL, as DTrace's heuristic asks.
fn looks_like_string(bytes: &[u8], n: usize) -> bool {
    let b = &bytes[..n.min(bytes.len())];
    match b.iter().position(|&c| !(0x20..0x7f).contains(&c)) {
        Some(i) => b[i] == 0,
        None => false,
    }
}

fn string_of(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&c| c == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

fn word(bytes: &[u8], at: usize, size: usize) -> u64 {
    let mut w = [0u8; 8];
    if let Some(s) = bytes.get(at..at + size.min(8)) {
        w[..s.len()].copy_from_slice(s);
    }
    u64::from_le_bytes(w)
}

/// C's `%#llx`: `0` for zero, else `0x...`.
fn hex(v: u64) -> String {
    if v == 0 {
        "0".to_string()
    } else {
        format!("{:#x}", v)
    }
}

/// C's `%+.7e`.
fn exp7(v: f64) -> String {
    if !v.is_finite() {
        return format!("{:+}", v);
    }
    let s = format!("{:.7e}", v.abs());
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let sign = if v.is_sign_negative() { '-' } else { '+' };
    format!(
        "{}{}e{}{:02}",
        sign,
        m,
        if e < 0 { '-' } else { '+' },
        e.unsigned_abs()
    )
}

impl Printer<'_> {
    fn indent(&mut self, level: usize) {
        for _ in 0..level * 4 {
            self.out.push(' ');
        }
    }

    /// The value of `ty` at `bytes[at..]`; `depth` is the struct nesting
    /// (members of the printed struct are at 1), `bits` a bitfield's
    /// width and bit offset within the byte at `at`.
    fn value(
        &mut self,
        ty: &Type,
        bytes: &[u8],
        at: usize,
        depth: usize,
        bits: Option<(u32, u32)>,
    ) {
        match ty.resolved().clone() {
            Type::Int(i) => self.int(i, bytes, at, bits),
            Type::Enum(r, repr) => {
                let v = word(bytes, at, repr.size as usize);
                let v = dtrace_lang_normalize(v, repr);
                let name = self
                    .types
                    .enums
                    .get(r.id as usize)
                    .and_then(|e| e.values.iter().find(|(_, x)| *x == v))
                    .map(|(n, _)| n.clone());
                match name {
                    Some(n) => self.out.push_str(&n),
                    None => self.out.push_str(&v.to_string()),
                }
            }
            Type::Float(f) => {
                let b = bytes.get(at..at + f.size as usize).unwrap_or(&[]);
                self.out.push_str(&exp7(crate::format::float_from_bytes(b)));
            }
            Type::Ptr(_) | Type::Func(_) => self.out.push_str(&hex(word(bytes, at, 8))),
            Type::Array(elem, n) => self.array(&elem, n as usize, bytes, at, depth),
            Type::Record(r) => {
                self.out.push_str("{\n");
                if depth >= MAX_DEPTH {
                    self.indent(depth + 1);
                    self.out.push_str("...\n");
                } else {
                    let members = self.types.members_of(&r);
                    self.members(&members, bytes, at, depth + 1);
                }
                self.indent(depth);
                self.out.push('}');
            }
            Type::String => {
                let b = bytes.get(at..).unwrap_or(&[]);
                self.out.push('"');
                self.out.push_str(&string_of(b));
                self.out.push('"');
            }
            Type::Void | Type::Dyn | Type::Named(..) | Type::Translated { .. } => {
                self.out.push_str("<unknown>");
            }
        }
    }

    fn int(&mut self, i: IntType, bytes: &[u8], at: usize, bits: Option<(u32, u32)>) {
        if let Some((width, shift)) = bits {
            let raw = word(bytes, at, 8) >> shift;
            let mask = if width >= 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            self.out.push_str(&hex(raw & mask));
            return;
        }
        let v = word(bytes, at, i.size as usize);
        if i.size == 1 && i.signed && i.name.contains("char") {
            let c = v as u8;
            match c {
                0 => self.out.push_str("'\\0'"),
                0x20..=0x7e => {
                    self.out.push('\'');
                    self.out.push(c as char);
                    self.out.push('\'');
                }
                _ => self.out.push_str(&format!("'\\{:03o}'", c)),
            }
            return;
        }
        self.out.push_str(&hex(v));
    }

    fn members(&mut self, members: &[Member], bytes: &[u8], base: usize, depth: usize) {
        for m in members {
            let at = base + (m.bit_offset / 8) as usize;
            // An anonymous struct's type is named `struct `, as CTF names it.
            let tyname =
                m.ty.to_string()
                    .replace("struct <anon>", "struct ")
                    .replace("union <anon>", "union ");
            self.indent(depth);
            self.out.push_str(&tyname);
            if let Some(name) = &m.name {
                if !tyname.ends_with('*') && !tyname.ends_with(' ') {
                    self.out.push(' ');
                }
                self.out.push_str(name);
                if let Some(b) = m.bits {
                    self.out.push_str(&format!(" :{}", b));
                }
                self.out.push_str(" =");
            }
            self.out.push(' ');
            let bits = m.bits.map(|w| (w, (m.bit_offset % 8) as u32));
            self.value(&m.ty, bytes, at, depth, bits);
            self.out.push('\n');
        }
    }

    fn array(&mut self, elem: &Type, n: usize, bytes: &[u8], at: usize, depth: usize) {
        let size = self.types.known_size(elem).unwrap_or(0) as usize;
        let b = bytes.get(at..).unwrap_or(&[]);
        if is_char(elem) && looks_like_string(b, n) {
            self.out.push_str("[ \"");
            self.out.push_str(&string_of(&b[..n.min(b.len())]));
            self.out.push_str("\" ]");
            return;
        }
        let structs = matches!(elem.resolved(), Type::Record(_));
        self.out.push_str("[ ");
        for i in 0..n {
            if structs {
                self.out.push('\n');
                self.indent(depth + 1);
                self.out.push_str(&elem.to_string());
                self.out.push(' ');
                self.value(elem, bytes, at + i * size, depth + 1, None);
            } else {
                self.value(elem, bytes, at + i * size, depth, None);
            }
            if i + 1 != n {
                self.out.push_str(", ");
            } else if structs {
                self.out.push('\n');
            }
        }
        if structs {
            self.indent(depth);
        } else {
            self.out.push(' ');
        }
        self.out.push(']');
    }
}

/// Sign-extends a stored enum value of the enum's representation.
fn dtrace_lang_normalize(v: u64, t: IntType) -> i64 {
    crate::format::normalize(v as i64, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_exponent_form() {
        assert_eq!(exp7(1.0), "+1.0000000e+00");
        assert_eq!(exp7(-0.00125), "-1.2500000e-03");
        assert_eq!(hex(0), "0");
        assert_eq!(hex(31), "0x1f");
    }

    #[test]
    fn scalars_and_strings() {
        let mut t = TypeTable::default();
        let mut s = String::new();
        print_value(
            &mut s,
            &mut t,
            &Type::Int(dtrace_lang::types::INT),
            &5i32.to_le_bytes(),
        );
        assert_eq!(s, "int 0x5\n");
        let mut s = String::new();
        let arr = Type::Array(Box::new(Type::Int(dtrace_lang::types::CHAR)), 8);
        print_value(&mut s, &mut t, &arr, b"abc\0\0\0\0\0");
        assert_eq!(s, "char [8] \"abc\"\n");
    }
}
