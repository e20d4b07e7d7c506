//! A reader for the kernel's BTF (`/sys/kernel/btf/vmlinux`): enough to find
//! structures, their members' offsets and types, and to resolve typedefs.
//! Used to read task fields (`ppid`, `vtimestamp`) on the running kernel
//! without compiled-in offsets.

use std::collections::HashMap;
use std::io;

const BTF_MAGIC: u16 = 0xeb9f;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Void,
    Int,
    Ptr,
    Array,
    Struct,
    Union,
    Enum,
    Fwd,
    Typedef,
    Volatile,
    Const,
    Restrict,
    Func,
    FuncProto,
    Var,
    Datasec,
    Float,
    DeclTag,
    TypeTag,
    Enum64,
}

impl Kind {
    fn from_u32(k: u32) -> Option<Kind> {
        use Kind::*;
        Some(match k {
            0 => Void,
            1 => Int,
            2 => Ptr,
            3 => Array,
            4 => Struct,
            5 => Union,
            6 => Enum,
            7 => Fwd,
            8 => Typedef,
            9 => Volatile,
            10 => Const,
            11 => Restrict,
            12 => Func,
            13 => FuncProto,
            14 => Var,
            15 => Datasec,
            16 => Float,
            17 => DeclTag,
            18 => TypeTag,
            19 => Enum64,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Member {
    pub name: String,
    pub type_id: u32,
    /// Offset from the start of the enclosing type, in bits.
    pub bit_offset: u32,
}

#[derive(Clone, Debug)]
pub struct Type {
    pub kind: Kind,
    pub name: String,
    /// Size in bytes for sized kinds; the referenced type id otherwise.
    pub size_or_type: u32,
    pub members: Vec<Member>,
}

pub struct Btf {
    types: Vec<Type>,
    by_name: HashMap<String, Vec<u32>>,
}

fn rd32(b: &[u8], off: usize) -> io::Result<u32> {
    off.checked_add(4)
        .and_then(|end| b.get(off..end))
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        .ok_or_else(|| bad("truncated BTF"))
}

/// The bytes `start..start + len` of `data`, if all there.
fn section<'a>(data: &'a [u8], start: usize, len: usize, what: &str) -> io::Result<&'a [u8]> {
    start
        .checked_add(len)
        .and_then(|end| data.get(start..end))
        .ok_or_else(|| bad(&format!("BTF {} section out of range", what)))
}

/// How deep `member` looks through nested anonymous members (malformed
/// BTF may make them cycle).
const MAX_ANON_DEPTH: u32 = 32;

fn bad(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.to_string())
}

impl Btf {
    pub fn load_vmlinux() -> io::Result<Btf> {
        Btf::parse(&std::fs::read("/sys/kernel/btf/vmlinux")?)
    }

    pub fn parse(data: &[u8]) -> io::Result<Btf> {
        if data.len() < 24 || u16::from_le_bytes([data[0], data[1]]) != BTF_MAGIC {
            return Err(bad("not little-endian BTF"));
        }
        let hdr_len = rd32(data, 4)? as usize;
        let type_off = rd32(data, 8)? as usize;
        let type_len = rd32(data, 12)? as usize;
        let str_off = rd32(data, 16)? as usize;
        let str_len = rd32(data, 20)? as usize;
        if hdr_len < 24 {
            return Err(bad("BTF header too short"));
        }
        let types_start = hdr_len
            .checked_add(type_off)
            .ok_or_else(|| bad("BTF type section out of range"))?;
        let strs_start = hdr_len
            .checked_add(str_off)
            .ok_or_else(|| bad("BTF string section out of range"))?;
        let tdata = section(data, types_start, type_len, "type")?;
        let sdata = section(data, strs_start, str_len, "string")?;
        let name_at = |off: u32| -> String {
            let off = off as usize;
            if off >= sdata.len() {
                return String::new();
            }
            let end = sdata[off..]
                .iter()
                .position(|&c| c == 0)
                .map(|e| off + e)
                .unwrap_or(sdata.len());
            String::from_utf8_lossy(&sdata[off..end]).into_owned()
        };
        let mut types = vec![Type {
            kind: Kind::Void,
            name: String::new(),
            size_or_type: 0,
            members: Vec::new(),
        }];
        let mut p = 0usize;
        while p < tdata.len() {
            let name_off = rd32(tdata, p)?;
            let info = rd32(tdata, p + 4)?;
            let size_or_type = rd32(tdata, p + 8)?;
            p += 12;
            let vlen = (info & 0xffff) as usize;
            let kind =
                Kind::from_u32((info >> 24) & 0x1f).ok_or_else(|| bad("unknown BTF kind"))?;
            let kind_flag = info >> 31 != 0;
            let mut members = Vec::new();
            match kind {
                Kind::Int | Kind::Var | Kind::DeclTag => p += 4,
                Kind::Array => p += 12,
                Kind::Struct | Kind::Union => {
                    for _ in 0..vlen {
                        let mname = rd32(tdata, p)?;
                        let mtype = rd32(tdata, p + 4)?;
                        let moff = rd32(tdata, p + 8)?;
                        p += 12;
                        members.push(Member {
                            name: name_at(mname),
                            type_id: mtype,
                            bit_offset: if kind_flag { moff & 0x00ff_ffff } else { moff },
                        });
                    }
                }
                Kind::Enum | Kind::FuncProto => p += 8 * vlen,
                Kind::Datasec | Kind::Enum64 => p += 12 * vlen,
                _ => {}
            }
            if p > tdata.len() {
                return Err(bad("truncated BTF type"));
            }
            types.push(Type {
                kind,
                name: name_at(name_off),
                size_or_type,
                members,
            });
        }
        let mut by_name: HashMap<String, Vec<u32>> = HashMap::new();
        for (id, t) in types.iter().enumerate() {
            if !t.name.is_empty() {
                by_name.entry(t.name.clone()).or_default().push(id as u32);
            }
        }
        Ok(Btf { types, by_name })
    }

    pub fn get(&self, id: u32) -> Option<&Type> {
        self.types.get(id as usize)
    }

    /// The id of the struct (or union) named `name`, skipping forward
    /// declarations.
    pub fn find_struct(&self, name: &str) -> Option<u32> {
        self.by_name
            .get(name)?
            .iter()
            .copied()
            .find(|&id| matches!(self.types[id as usize].kind, Kind::Struct | Kind::Union))
    }

    /// Follows typedefs and qualifiers to the underlying type.
    pub fn resolve(&self, mut id: u32) -> u32 {
        for _ in 0..64 {
            match self.get(id).map(|t| t.kind) {
                Some(
                    Kind::Typedef | Kind::Volatile | Kind::Const | Kind::Restrict | Kind::TypeTag,
                ) => {
                    id = self.types[id as usize].size_or_type;
                }
                _ => break,
            }
        }
        id
    }

    /// Finds member `name` of struct/union `id`, looking through anonymous
    /// members; returns its byte offset and type id.
    pub fn member(&self, id: u32, name: &str) -> Option<(u32, u32)> {
        self.member_within(id, name, MAX_ANON_DEPTH)
    }

    fn member_within(&self, id: u32, name: &str, depth: u32) -> Option<(u32, u32)> {
        let t = self.get(self.resolve(id))?;
        for m in &t.members {
            if m.name == name {
                return Some((m.bit_offset / 8, m.type_id));
            }
            if m.name.is_empty() && depth > 0 {
                if let Some((off, ty)) = self.member_within(m.type_id, name, depth - 1) {
                    return (m.bit_offset / 8).checked_add(off).map(|o| (o, ty));
                }
            }
        }
        None
    }

    /// The byte offset of a dotted member path such as `se.sum_exec_runtime`
    /// within struct `strct`, and the member's type id.
    pub fn member_path(&self, strct: &str, path: &str) -> Option<(u32, u32)> {
        let mut id = self.find_struct(strct)?;
        let mut total = 0;
        for part in path.split('.') {
            let (off, ty) = self.member(id, part)?;
            total = u32::checked_add(total, off)?;
            id = ty;
        }
        Some((total, id))
    }

    /// The size in bytes of type `id`, after resolving typedefs.
    pub fn size_of(&self, id: u32) -> Option<u32> {
        let t = self.get(self.resolve(id))?;
        match t.kind {
            Kind::Int | Kind::Struct | Kind::Union | Kind::Enum | Kind::Enum64 | Kind::Float => {
                Some(t.size_or_type)
            }
            Kind::Ptr => Some(8),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds a tiny BTF blob: int, struct inner { int a; int b; },
    /// struct outer { int x; <anonymous> struct inner; }.
    fn sample() -> Vec<u8> {
        let strs = b"\0int\0inner\0a\0b\0outer\0x\0";
        let off = |s: &str| -> u32 {
            let needle = format!("\0{}\0", s);
            let pos = strs
                .windows(needle.len())
                .position(|w| w == needle.as_bytes())
                .unwrap();
            pos as u32 + 1
        };
        let mut t = Vec::new();
        let mut push = |v: u32| t.extend_from_slice(&v.to_le_bytes());
        // 1: int
        push(off("int"));
        push(1 << 24);
        push(4);
        push(32);
        // 2: struct inner
        push(off("inner"));
        push((4 << 24) | 2);
        push(8);
        push(off("a"));
        push(1);
        push(0);
        push(off("b"));
        push(1);
        push(32);
        // 3: struct outer
        push(off("outer"));
        push((4 << 24) | 2);
        push(12);
        push(off("x"));
        push(1);
        push(0);
        push(0);
        push(2);
        push(32);
        let mut out = Vec::new();
        out.extend_from_slice(&BTF_MAGIC.to_le_bytes());
        out.push(1);
        out.push(0);
        for v in [24u32, 0, t.len() as u32, t.len() as u32, strs.len() as u32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&t);
        out.extend_from_slice(strs);
        out
    }

    #[test]
    fn finds_members_through_anonymous_structs() {
        let btf = Btf::parse(&sample()).unwrap();
        assert_eq!(btf.member_path("outer", "x"), Some((0, 1)));
        assert_eq!(btf.member_path("outer", "b"), Some((8, 1)));
        assert_eq!(btf.member_path("outer", "nope"), None);
        assert_eq!(btf.size_of(3), Some(12));
    }

    #[test]
    fn rejects_garbage() {
        assert!(Btf::parse(b"hello world, not btf at all").is_err());
    }

    #[test]
    fn truncated_btf_is_an_error_not_a_panic() {
        let full = sample();
        for len in 0..full.len() {
            assert!(Btf::parse(&full[..len]).is_err(), "{} bytes accepted", len);
        }
    }

    /// The sample with its header's section lengths claiming `extra` more
    /// type bytes than there are, taken from the string section.
    fn with_type_len(extra: i64) -> Vec<u8> {
        let mut b = sample();
        let tl = u32::from_le_bytes(b[12..16].try_into().unwrap()) as i64 + extra;
        b[12..16].copy_from_slice(&(tl as u32).to_le_bytes());
        b
    }

    #[test]
    fn types_cut_short_inside_the_type_section_are_refused() {
        // Section boundaries that split the last type's members.
        for cut in [-4, -8, -12, -20] {
            assert!(Btf::parse(&with_type_len(cut)).is_err(), "cut {}", cut);
        }
        // Only the first type's 12-byte head: its int encoding (4 more
        // bytes) is missing. Also a stray partial head.
        let total = sample()[12..16].try_into().map(u32::from_le_bytes).unwrap() as i64;
        for keep in [12, 14, 30] {
            assert!(
                Btf::parse(&with_type_len(keep - total)).is_err(),
                "keep {}",
                keep
            );
        }
    }

    #[test]
    fn huge_header_offsets_are_refused() {
        let mut b = sample();
        for field in [4usize, 8, 12, 16, 20] {
            let mut c = b.clone();
            c[field..field + 4].copy_from_slice(&u32::MAX.to_le_bytes());
            assert!(Btf::parse(&c).is_err(), "field at {}", field);
        }
        b[4..8].copy_from_slice(&4u32.to_le_bytes());
        assert!(Btf::parse(&b).is_err());
    }

    #[test]
    fn cyclic_anonymous_members_end() {
        // struct loop { <anonymous> struct loop; }: a member search must
        // give up rather than recurse forever.
        let strs = b"\0loop\0";
        let mut t = Vec::new();
        for v in [1u32, (4 << 24) | 1, 4, 0, 1, 0] {
            t.extend_from_slice(&v.to_le_bytes());
        }
        let mut b = Vec::new();
        b.extend_from_slice(&BTF_MAGIC.to_le_bytes());
        b.extend_from_slice(&[1, 0]);
        for v in [24u32, 0, t.len() as u32, t.len() as u32, strs.len() as u32] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&t);
        b.extend_from_slice(strs);
        let btf = Btf::parse(&b).expect("well-formed, if odd");
        assert_eq!(btf.member_path("loop", "nothing"), None);
    }
}
