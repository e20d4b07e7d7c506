//! A reader for the kernel's BTF: `/sys/kernel/btf/vmlinux` and the split
//! BTF of loaded modules (`/sys/kernel/btf/<module>`). It decodes every
//! kind with all of its data into a neutral model ([`Type`], [`TypeData`])
//! that the D type table is built from, and answers the questions dtrace
//! asks of it: types by name and kind, typedef resolution, sizes, and
//! members (through anonymous structs and unions) with bit offsets and
//! bitfield sizes.
//!
//! Everything is parsed from untrusted bytes: malformed input is an
//! `InvalidData` error, never a panic; every loop is bounded by the input
//! or by a fixed depth, and allocations by the input's size.
//!
//! # Type ids and split BTF
//! A [`Btf`] numbers its types as the kernel does: in vmlinux id 0 is
//! `void` and ids run from 1. A module's BTF is *split*: it is parsed on
//! top of vmlinux ([`Btf::parse_split`]), its own ids start at vmlinux's
//! [`Btf::type_count`], its string offsets continue vmlinux's string
//! section, and its types refer to vmlinux types by their vmlinux ids. A
//! split `Btf` is a view of both: `get`, `resolve`, `size_of`, `member`
//! and the name lookups accept any id of the combined space (own names
//! are searched before the base's).
//!
//! Across the whole kernel, [`KernelTypes`] holds vmlinux and loads module
//! BTF on demand (cached); a [`TypeRef`] names a type there as (which BTF,
//! id). Ids below vmlinux's count mean the same type in every module, so
//! refs are kept canonical: such ids always carry `btf: 0`.
//!
//! # Loading
//! A program needs a few of the kernel's tens of thousands of types, so
//! loading decodes nothing: the file is mapped where the kernel allows it
//! (`mapped.rs`), and a parse checks every record (`check_next`) and
//! indexes it by offset and by name hash (`NameIndex`, open-addressed,
//! built without sorting); a type is decoded when first asked for
//! ([`Btf::get`]). Functions, most of the named types, get an index of
//! their own on the first function lookup (`func_index`). The kernel's
//! BTF is parsed once per process ([`Btf::vmlinux`]) and shared.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::mapped::FileBytes;

const BTF_MAGIC: u16 = 0xeb9f;

/// Where the kernel exposes BTF.
pub const SYSFS_BTF: &str = "/sys/kernel/btf";

/// The size of a pointer on the (64-bit) kernels we support.
pub const PTR_SIZE: u64 = 8;

/// How many typedefs, qualifiers and type tags `resolve` follows before
/// deciding the chain is a cycle.
const MAX_RESOLVE: u32 = 64;

/// How deep `member` looks through nested anonymous members (malformed
/// BTF may make them cycle).
const MAX_ANON_DEPTH: u32 = 32;

/// How many typedef/array steps `size_of` takes (arrays of arrays...).
const MAX_SIZE_STEPS: u32 = 256;

/// A type id, in the numbering of the BTF (or split BTF view) it came from.
pub type TypeId = u32;

/// The kind of a BTF type, as numbered by the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

/// A function prototype's return type and parameter types, read in
/// place from its record ([`Btf::signature`]).
#[derive(Clone, Copy, Debug)]
pub struct Signature<'a> {
    /// The return type (0: void).
    pub ret: TypeId,
    /// The parameters' records: name and type, 8 bytes each.
    params: &'a [u8],
    count: usize,
    /// Whether it ends with `...` (not among the parameters).
    pub variadic: bool,
}

impl Signature<'_> {
    /// How many parameters it has (`...` not counted).
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The parameters' types, in order.
    pub fn param_types(&self) -> impl Iterator<Item = TypeId> + '_ {
        (0..self.count).filter_map(|i| rd32(self.params, 8 * i + 4).ok())
    }
}

/// A name: an offset into the string sections of a BTF and its bases.
/// Turn it into text with [`Btf::str`]; offset 0 is the empty name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Str(u32);

impl Str {
    pub fn offset(self) -> u32 {
        self.0
    }
}

/// The encoding bits of an INT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct IntEncoding {
    pub signed: bool,
    pub char: bool,
    pub bool: bool,
}

/// Linkage of a FUNC or VAR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Linkage {
    Static,
    /// Global (for a VAR: allocated here).
    Global,
    Extern,
    Other(u32),
}

impl Linkage {
    fn from_u32(v: u32) -> Linkage {
        match v {
            0 => Linkage::Static,
            1 => Linkage::Global,
            2 => Linkage::Extern,
            n => Linkage::Other(n),
        }
    }
}

/// A struct or union member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member {
    /// Empty for an anonymous struct or union member.
    pub name: Str,
    pub ty: TypeId,
    /// Offset from the start of the enclosing type, in bits.
    pub bit_offset: u32,
    /// Width of a bitfield in bits; 0 for an ordinary member. (With the
    /// struct's kind_flag clear, a bitfield's width is in its INT type
    /// instead, and this is 0.)
    pub bitfield_size: u32,
}

/// An enumerator of an ENUM or ENUM64, with its exact value (signed or
/// unsigned as the enum says).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Enumerator {
    pub name: Str,
    pub value: i128,
}

/// A FUNC_PROTO parameter (names are often empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: Str,
    pub ty: TypeId,
}

/// One variable of a DATASEC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VarSecInfo {
    /// The VAR (or FUNC) type.
    pub ty: TypeId,
    /// Byte offset within the section.
    pub offset: u32,
    pub size: u32,
}

/// Everything a BTF type record holds besides its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeData {
    Void,
    Int {
        size: u32,
        encoding: IntEncoding,
        /// Bit offset of the value within the `size` bytes (old bitfields).
        bit_offset: u8,
        bits: u8,
    },
    Float {
        size: u32,
    },
    Ptr(TypeId),
    Typedef(TypeId),
    Volatile(TypeId),
    Const(TypeId),
    Restrict(TypeId),
    TypeTag(TypeId),
    /// A forward declaration of a struct (or of a union).
    Fwd {
        union: bool,
    },
    Array {
        elem: TypeId,
        index: TypeId,
        nelems: u32,
    },
    Struct {
        size: u32,
        members: Vec<Member>,
    },
    Union {
        size: u32,
        members: Vec<Member>,
    },
    /// ENUM (`wide` false) or ENUM64 (`wide` true).
    Enum {
        size: u32,
        signed: bool,
        wide: bool,
        values: Vec<Enumerator>,
    },
    FuncProto {
        ret: TypeId,
        /// Without the trailing `...` marker.
        params: Vec<Param>,
        variadic: bool,
    },
    Func {
        proto: TypeId,
        linkage: Linkage,
    },
    Var {
        ty: TypeId,
        linkage: Linkage,
    },
    Datasec {
        size: u32,
        vars: Vec<VarSecInfo>,
    },
    /// A tag on a type (`component_idx` -1) or on one of its members or
    /// parameters.
    DeclTag {
        ty: TypeId,
        component_idx: i32,
    },
}

/// One BTF type: its name (empty for anonymous types) and its data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Type {
    pub name: Str,
    pub data: TypeData,
}

impl Type {
    pub fn kind(&self) -> Kind {
        match &self.data {
            TypeData::Void => Kind::Void,
            TypeData::Int { .. } => Kind::Int,
            TypeData::Float { .. } => Kind::Float,
            TypeData::Ptr(_) => Kind::Ptr,
            TypeData::Typedef(_) => Kind::Typedef,
            TypeData::Volatile(_) => Kind::Volatile,
            TypeData::Const(_) => Kind::Const,
            TypeData::Restrict(_) => Kind::Restrict,
            TypeData::TypeTag(_) => Kind::TypeTag,
            TypeData::Fwd { .. } => Kind::Fwd,
            TypeData::Array { .. } => Kind::Array,
            TypeData::Struct { .. } => Kind::Struct,
            TypeData::Union { .. } => Kind::Union,
            TypeData::Enum { wide: false, .. } => Kind::Enum,
            TypeData::Enum { wide: true, .. } => Kind::Enum64,
            TypeData::FuncProto { .. } => Kind::FuncProto,
            TypeData::Func { .. } => Kind::Func,
            TypeData::Var { .. } => Kind::Var,
            TypeData::Datasec { .. } => Kind::Datasec,
            TypeData::DeclTag { .. } => Kind::DeclTag,
        }
    }

    /// The members of a struct or union (empty for other kinds).
    pub fn members(&self) -> &[Member] {
        match &self.data {
            TypeData::Struct { members, .. } | TypeData::Union { members, .. } => members,
            _ => &[],
        }
    }

    /// The type referred to by a pointer, typedef, qualifier or type tag.
    pub fn referent(&self) -> Option<TypeId> {
        match self.data {
            TypeData::Ptr(t)
            | TypeData::Typedef(t)
            | TypeData::Volatile(t)
            | TypeData::Const(t)
            | TypeData::Restrict(t)
            | TypeData::TypeTag(t) => Some(t),
            _ => None,
        }
    }
}

/// A member found by [`Btf::member`], possibly inside anonymous members.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemberInfo {
    /// Bits from the start of the outer struct.
    pub bit_offset: u64,
    /// Bitfield width, 0 if not a bitfield (see [`Member::bitfield_size`]).
    pub bitfield_size: u32,
    pub ty: TypeId,
}

impl MemberInfo {
    /// The byte holding the member's first bit.
    pub fn byte_offset(&self) -> u64 {
        self.bit_offset / 8
    }
}

/// Parsed BTF: vmlinux, or a module's split BTF over its base.
pub struct Btf {
    base: Option<Arc<Btf>>,
    /// The id of `types[0]`: 0 for base BTF, whose `types[0]` is void.
    first_id: u32,
    /// The offset of `strings[0]` in the combined string space.
    str_base: u32,
    /// Checked to be UTF-8 and to end with a NUL when parsed.
    strings: String,
    /// The string section is ASCII (the kernel's is): every offset in it
    /// starts a character, so a name is checked by its offset alone.
    ascii: bool,
    /// The type section. Every record is checked when parsed, but a type
    /// is decoded only when first asked for: a program needs tens of the
    /// kernel's hundred thousand types, and decoding them all cost most
    /// of a parse.
    file: FileBytes,
    /// Where the type section lies in `file`.
    tsec: std::ops::Range<usize>,
    /// Where each own type's record starts in the type section (base BTF's void,
    /// which has none, is `u32::MAX`).
    offsets: Vec<u32>,
    /// Each own type, once decoded, in chunks of `CELL_CHUNK` made as a
    /// type of theirs is first asked for.
    types: Vec<OnceLock<CellChunk>>,
    /// Every named type of this BTF (not the base's) but its functions,
    /// by the hash of its name.
    names: NameIndex,
    /// Its functions (FUNC), likewise: most of a kernel's named types, and
    /// looked up only by fbt, so indexed on first use.
    funcs: OnceLock<NameIndex>,
    /// (hash of name, type id, index) for every enumerator, built on first
    /// use.
    enumerators: OnceLock<Vec<(u64, u32, u32)>>,
}

fn bad(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.to_string())
}

/// The little-endian word at `off` of a record whose length is known to
/// hold it (a chunk of `chunks_exact`): 0 past its end, which cannot be.
#[inline]
fn le32(b: &[u8], off: usize) -> u32 {
    match b.get(off..off + 4) {
        Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    }
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

/// FNV-1a: the name index's hash (quick on short identifiers; collisions
/// are resolved by comparing the names).
fn hash(s: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in s {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The entries of `index` (sorted by hash) whose hash is `h`.
fn hash_range<T>(index: &[T], h: u64, key: impl Fn(&T) -> u64) -> &[T] {
    let lo = index.partition_point(|e| key(e) < h);
    let hi = lo + index[lo..].partition_point(|e| key(e) == h);
    &index[lo..hi]
}

/// The NUL-terminated string at byte `off` of a string section (`None`
/// if `off` is out of range or inside a character).
fn str_in(strings: &str, off: usize) -> Option<&str> {
    let rest = strings.get(off..)?;
    rest.find('\0').map(|end| &rest[..end])
}

/// Types per chunk of decoded-type cells.
const CELL_CHUNK: usize = 256;

/// `CELL_CHUNK` cells, each holding its type once decoded.
type CellChunk = Box<[OnceLock<Box<Type>>]>;

/// The named types of one BTF by the hash of their names: an open-
/// addressed table (linear probing, at most half full) of `(high half of
/// the hash) << 32 | (id + 1)`, 0 marking an empty slot, placed by that
/// high half; built in one pass, with no sorting.
#[derive(Default)]
struct NameIndex {
    slots: Vec<u64>,
    len: usize,
}

impl NameIndex {
    /// Room for `n` names before it grows.
    fn with_room(n: usize) -> NameIndex {
        NameIndex {
            slots: vec![0; (2 * n).next_power_of_two().max(16)],
            len: 0,
        }
    }

    /// Adds type `id` (below `u32::MAX`) under hash `h`.
    fn insert(&mut self, h: u64, id: u32) {
        if 2 * (self.len + 1) > self.slots.len() {
            let size = (2 * self.slots.len()).max(16);
            let old = std::mem::replace(&mut self.slots, vec![0; size]);
            for s in old.into_iter().filter(|&s| s != 0) {
                self.place(s);
            }
        }
        self.place(((h >> 32) << 32) | (u64::from(id) + 1));
        self.len += 1;
    }

    fn place(&mut self, entry: u64) {
        let mask = self.slots.len() - 1;
        let mut i = (entry >> 32) as usize & mask;
        while self.slots[i] != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = entry;
    }

    /// The ids whose names may hash to `h`, in no particular order (the
    /// caller compares the names and sorts).
    fn candidates(&self, h: u64) -> impl Iterator<Item = TypeId> + '_ {
        let tag = h >> 32;
        let mask = self.slots.len().wrapping_sub(1);
        let mut i = tag as usize & mask;
        std::iter::from_fn(move || {
            // At most half full: an empty slot ends every run.
            while let Some(&s) = self.slots.get(i) {
                if s == 0 {
                    return None;
                }
                i = (i + 1) & mask;
                if s >> 32 == tag {
                    return Some((s & 0xffff_ffff) as u32 - 1);
                }
            }
            None
        })
    }
}

/// Which name index a lookup searches.
#[derive(Clone, Copy)]
enum Named {
    /// Every named type but functions.
    Types,
    /// Functions.
    Funcs,
    Both,
}

/// A cursor over the type section.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn u32(&mut self) -> io::Result<u32> {
        let v = rd32(self.data, self.pos).map_err(|_| bad("truncated BTF type"))?;
        self.pos += 4;
        Ok(v)
    }

    /// The `n` records of `size` bytes that follow, read past (fails if
    /// they are not all there).
    fn take(&mut self, n: usize, size: usize) -> io::Result<&[u8]> {
        self.expect(n, size)?;
        let start = self.pos;
        self.pos += n * size;
        Ok(&self.data[start..self.pos])
    }

    /// Fails unless `n` records of `size` bytes follow, so that nothing is
    /// allocated for records that are not there.
    fn expect(&self, n: usize, size: usize) -> io::Result<()> {
        match n.checked_mul(size) {
            Some(len) if len <= self.data.len() - self.pos => Ok(()),
            _ => Err(bad("truncated BTF type")),
        }
    }
}

impl Btf {
    /// Reads and parses `/sys/kernel/btf/vmlinux`.
    pub fn load_vmlinux() -> io::Result<Btf> {
        Btf::parse_with(
            FileBytes::map_or_read(&Path::new(SYSFS_BTF).join("vmlinux"))?,
            None,
        )
    }

    /// The kernel's BTF, parsed once per process and shared: the checker's
    /// kernel types, the task offsets, fbt and the provider tables all
    /// read it, and a parse of its megabytes costs tens of milliseconds.
    pub fn vmlinux() -> io::Result<Arc<Btf>> {
        static VMLINUX: std::sync::OnceLock<Result<Arc<Btf>, (io::ErrorKind, String)>> =
            std::sync::OnceLock::new();
        VMLINUX
            .get_or_init(|| {
                Btf::load_vmlinux()
                    .map(Arc::new)
                    .map_err(|e| (e.kind(), e.to_string()))
            })
            .clone()
            .map_err(|(kind, msg)| io::Error::new(kind, msg))
    }

    /// Reads and parses `/sys/kernel/btf/<name>`, a module's split BTF
    /// over `base` (vmlinux).
    pub fn load_module(name: &str, base: Arc<Btf>) -> io::Result<Btf> {
        Btf::parse_with(
            FileBytes::map_or_read(&module_path(Path::new(SYSFS_BTF), name)?)?,
            Some(base),
        )
    }

    /// Parses base (self-contained) BTF such as vmlinux's.
    pub fn parse(data: &[u8]) -> io::Result<Btf> {
        Btf::parse_with(FileBytes::Owned(data.to_vec()), None)
    }

    /// Parses split BTF over `base`: its ids continue after the base's
    /// last id and its string offsets after the base's strings.
    pub fn parse_split(data: &[u8], base: Arc<Btf>) -> io::Result<Btf> {
        Btf::parse_with(FileBytes::Owned(data.to_vec()), Some(base))
    }

    fn parse_with(file: FileBytes, base: Option<Arc<Btf>>) -> io::Result<Btf> {
        let data = file.bytes();
        if data.len() < 24 || u16::from_le_bytes([data[0], data[1]]) != BTF_MAGIC {
            return Err(bad("not little-endian BTF"));
        }
        if data[2] != 1 {
            return Err(bad("unsupported BTF version"));
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
        let (first_id, str_base) = match &base {
            None => (0, 0),
            Some(b) => (b.type_count(), b.str_end()),
        };
        if base.is_none() && sdata.first().is_some_and(|&c| c != 0) {
            return Err(bad("BTF string section does not start with an empty name"));
        }
        if sdata.last().is_some_and(|&c| c != 0) {
            return Err(bad("BTF string section is not NUL-terminated"));
        }
        // Names are C identifiers; checking the section once makes every
        // name a `&str` without further checks.
        let strings = std::str::from_utf8(sdata)
            .map_err(|_| bad("BTF string section is not UTF-8"))?
            .to_string();
        if u32::try_from(sdata.len())
            .ok()
            .and_then(|l| l.checked_add(str_base))
            .is_none()
        {
            return Err(bad("BTF string section too large"));
        }
        let mut btf = Btf {
            base,
            first_id,
            str_base,
            ascii: strings.is_ascii(),
            strings,
            file: FileBytes::Owned(Vec::new()),
            tsec: types_start..types_start + type_len,
            offsets: Vec::new(),
            types: Vec::new(),
            names: NameIndex::default(),
            funcs: OnceLock::new(),
            enumerators: OnceLock::new(),
        };
        if btf.base.is_none() {
            btf.offsets.push(u32::MAX);
        }
        if u32::try_from(tdata.len()).is_err() {
            return Err(bad("BTF type section too large"));
        }
        let mut r = Reader {
            data: tdata,
            pos: 0,
        };
        // Every record is at least 12 bytes, which bounds the count.
        btf.offsets.reserve(tdata.len() / 12);
        // About one record in ten is named and not a function (a
        // kernel's: 15,000 of 127,000 in 5 MB); the table grows if need be.
        let mut names = NameIndex::with_room(tdata.len() / 256);
        // The largest type id any record refers to.
        let mut max_ref = 0;
        while r.pos < tdata.len() {
            let start = r.pos as u32;
            let (name_off, refs, kind) = btf.check_next(&mut r)?;
            max_ref = max_ref.max(refs);
            // A function's name is checked, not read (`func_index`).
            let name_hash = if kind == Kind::Func {
                btf.check_name(name_off)?;
                None
            } else {
                btf.name_hash(name_off)?
            };
            let id = u32::try_from(btf.offsets.len())
                .ok()
                .and_then(|n| n.checked_add(first_id))
                .filter(|&id| id < u32::MAX)
                .ok_or_else(|| bad("too many BTF types"))?;
            if let Some(h) = name_hash {
                names.insert(h, id);
            }
            btf.offsets.push(start);
        }
        if btf.type_count() == btf.first_id && btf.base.is_none() {
            return Err(bad("BTF has no types"));
        }
        if max_ref >= btf.type_count() {
            return Err(bad("BTF type refers to a type id that does not exist"));
        }
        btf.names = names;
        btf.file = file;
        btf.types = (0..btf.offsets.len().div_ceil(CELL_CHUNK))
            .map(|_| OnceLock::new())
            .collect();
        Ok(btf)
    }

    /// Decodes the record at the reader: its name offset and data.
    fn decode_next(&self, r: &mut Reader) -> io::Result<(u32, TypeData)> {
        let name_off = r.u32()?;
        let info = r.u32()?;
        let size_or_type = r.u32()?;
        let vlen = (info & 0xffff) as usize;
        let kind = Kind::from_u32((info >> 24) & 0x1f).ok_or_else(|| bad("unknown BTF kind"))?;
        let kind_flag = info >> 31 != 0;
        let data = self.decode(r, kind, kind_flag, vlen, size_or_type)?;
        Ok((name_off, data))
    }

    /// The type section.
    fn tdata(&self) -> &[u8] {
        self.file.bytes().get(self.tsec.clone()).unwrap_or(&[])
    }

    /// Checks the record at the reader as `decode_next` would decode it,
    /// without building it: its name offset, and the largest type id it
    /// refers to (0 if none).
    fn check_next(&self, r: &mut Reader) -> io::Result<(u32, TypeId, Kind)> {
        let head = r.take(1, 12)?;
        let (name_off, info, t) = (le32(head, 0), le32(head, 4), le32(head, 8));
        let vlen = (info & 0xffff) as usize;
        let kind = Kind::from_u32((info >> 24) & 0x1f).ok_or_else(|| bad("unknown BTF kind"))?;
        let refs = match kind {
            Kind::Void => return Err(bad("BTF type of kind void")),
            Kind::Int => {
                r.u32()?;
                0
            }
            Kind::Float | Kind::Fwd => 0,
            Kind::Ptr
            | Kind::Typedef
            | Kind::Volatile
            | Kind::Const
            | Kind::Restrict
            | Kind::TypeTag
            | Kind::Func => t,
            Kind::Var | Kind::DeclTag => {
                r.u32()?;
                t
            }
            Kind::Array => {
                let elem = r.u32()?;
                let index = r.u32()?;
                r.u32()?;
                elem.max(index)
            }
            // The members, parameters and entries are walked in place:
            // their bytes are known to be there, so each word is read
            // without a check of its own.
            Kind::Struct | Kind::Union => {
                let mut most = 0;
                for m in r.take(vlen, 12)?.chunks_exact(12) {
                    self.check_name(le32(m, 0))?;
                    most = most.max(le32(m, 4));
                }
                most
            }
            Kind::Enum | Kind::Enum64 => {
                let size = if kind == Kind::Enum64 { 12 } else { 8 };
                for e in r.take(vlen, size)?.chunks_exact(size) {
                    self.check_name(le32(e, 0))?;
                }
                0
            }
            Kind::FuncProto => {
                let mut most = t;
                for (i, p) in r.take(vlen, 8)?.chunks_exact(8).enumerate() {
                    let (name, ty) = (le32(p, 0), le32(p, 4));
                    self.check_name(name)?;
                    // Only a last, nameless void parameter (`...`) may be
                    // void.
                    if ty == 0 && !(i + 1 == vlen && name == 0) {
                        return Err(bad("BTF function parameter of type void"));
                    }
                    most = most.max(ty);
                }
                most
            }
            Kind::Datasec => {
                let mut most = 0;
                for v in r.take(vlen, 12)?.chunks_exact(12) {
                    most = most.max(le32(v, 0));
                }
                most
            }
        };
        Ok((name_off, refs, kind))
    }

    /// Own type `i` (an index into `offsets`), decoded from its record,
    /// which was checked when parsed.
    fn decode_own(&self, i: usize) -> Type {
        let void = Type {
            name: Str(0),
            data: TypeData::Void,
        };
        let Some(&at) = self.offsets.get(i) else {
            return void;
        };
        if at == u32::MAX {
            return void;
        }
        let mut r = Reader {
            data: self.tdata(),
            pos: at as usize,
        };
        match self.decode_next(&mut r) {
            Ok((name_off, data)) => Type {
                name: Str(name_off),
                data,
            },
            Err(_) => void,
        }
    }

    /// The kind of own type `i`, from its record's head (no decoding).
    fn kind_own(&self, i: usize) -> Option<Kind> {
        match self.offsets.get(i) {
            Some(&u32::MAX) => Some(Kind::Void),
            Some(&at) => Kind::from_u32((rd32(self.tdata(), at as usize + 4).ok()? >> 24) & 0x1f),
            None => None,
        }
    }

    /// Decodes the data after a type record's 12-byte head.
    fn decode(
        &self,
        r: &mut Reader,
        kind: Kind,
        kind_flag: bool,
        vlen: usize,
        size_or_type: u32,
    ) -> io::Result<TypeData> {
        let t = size_or_type;
        Ok(match kind {
            Kind::Void => return Err(bad("BTF type of kind void")),
            Kind::Int => {
                let v = r.u32()?;
                TypeData::Int {
                    size: t,
                    encoding: IntEncoding {
                        signed: v & (1 << 24) != 0,
                        char: v & (2 << 24) != 0,
                        bool: v & (4 << 24) != 0,
                    },
                    bit_offset: (v >> 16) as u8,
                    bits: v as u8,
                }
            }
            Kind::Float => TypeData::Float { size: t },
            Kind::Ptr => TypeData::Ptr(t),
            Kind::Typedef => TypeData::Typedef(t),
            Kind::Volatile => TypeData::Volatile(t),
            Kind::Const => TypeData::Const(t),
            Kind::Restrict => TypeData::Restrict(t),
            Kind::TypeTag => TypeData::TypeTag(t),
            Kind::Fwd => TypeData::Fwd { union: kind_flag },
            Kind::Array => TypeData::Array {
                elem: r.u32()?,
                index: r.u32()?,
                nelems: r.u32()?,
            },
            Kind::Struct | Kind::Union => {
                r.expect(vlen, 12)?;
                let mut members = Vec::with_capacity(vlen);
                for _ in 0..vlen {
                    let name = r.u32()?;
                    self.check_name(name)?;
                    let ty = r.u32()?;
                    let off = r.u32()?;
                    let (bit_offset, bitfield_size) = if kind_flag {
                        (off & 0x00ff_ffff, off >> 24)
                    } else {
                        (off, 0)
                    };
                    members.push(Member {
                        name: Str(name),
                        ty,
                        bit_offset,
                        bitfield_size,
                    });
                }
                if kind == Kind::Struct {
                    TypeData::Struct { size: t, members }
                } else {
                    TypeData::Union { size: t, members }
                }
            }
            Kind::Enum | Kind::Enum64 => {
                let wide = kind == Kind::Enum64;
                r.expect(vlen, if wide { 12 } else { 8 })?;
                let mut values = Vec::with_capacity(vlen);
                for _ in 0..vlen {
                    let name = r.u32()?;
                    self.check_name(name)?;
                    let lo = r.u32()?;
                    let value = match (wide, kind_flag) {
                        (false, true) => lo as i32 as i128,
                        (false, false) => lo as i128,
                        (true, signed) => {
                            let v = ((r.u32()? as u64) << 32) | lo as u64;
                            if signed {
                                v as i64 as i128
                            } else {
                                v as i128
                            }
                        }
                    };
                    values.push(Enumerator {
                        name: Str(name),
                        value,
                    });
                }
                TypeData::Enum {
                    size: t,
                    signed: kind_flag,
                    wide,
                    values,
                }
            }
            Kind::FuncProto => {
                r.expect(vlen, 8)?;
                let mut params = Vec::with_capacity(vlen);
                for _ in 0..vlen {
                    let name = r.u32()?;
                    self.check_name(name)?;
                    let ty = r.u32()?;
                    params.push(Param {
                        name: Str(name),
                        ty,
                    });
                }
                let variadic = params.last().is_some_and(|p| p.ty == 0 && p.name.0 == 0);
                if variadic {
                    params.pop();
                }
                if params.iter().any(|p| p.ty == 0) {
                    return Err(bad("BTF function parameter of type void"));
                }
                TypeData::FuncProto {
                    ret: t,
                    params,
                    variadic,
                }
            }
            Kind::Func => TypeData::Func {
                proto: t,
                linkage: Linkage::from_u32(vlen as u32),
            },
            Kind::Var => TypeData::Var {
                ty: t,
                linkage: Linkage::from_u32(r.u32()?),
            },
            Kind::Datasec => {
                r.expect(vlen, 12)?;
                let mut vars = Vec::with_capacity(vlen);
                for _ in 0..vlen {
                    vars.push(VarSecInfo {
                        ty: r.u32()?,
                        offset: r.u32()?,
                        size: r.u32()?,
                    });
                }
                TypeData::Datasec { size: t, vars }
            }
            Kind::DeclTag => TypeData::DeclTag {
                ty: t,
                component_idx: r.u32()? as i32,
            },
        })
    }

    /// Fails unless `off` is a name (as `checked_name`, without finding
    /// its end).
    #[inline]
    fn check_name(&self, off: u32) -> io::Result<()> {
        if off < self.str_base {
            return match &self.base {
                Some(b) => b.check_name(off),
                None => Err(bad("BTF name offset out of range")),
            };
        }
        let local = (off - self.str_base) as usize;
        let starts =
            local < self.strings.len() && (self.ascii || self.strings.is_char_boundary(local));
        if starts || off == 0 {
            Ok(())
        } else {
            Err(bad("BTF name offset out of range"))
        }
    }

    /// The name at `off`, which must be a NUL-terminated UTF-8 string of
    /// this BTF's string space.
    fn checked_name(&self, off: u32) -> io::Result<&str> {
        if off < self.str_base {
            return match &self.base {
                Some(b) => b.checked_name(off),
                None => Err(bad("BTF name offset out of range")),
            };
        }
        let local = (off - self.str_base) as usize;
        if local >= self.strings.len() {
            if off == 0 {
                // No string section at all: every name is empty.
                return Ok("");
            }
            return Err(bad("BTF name offset out of range"));
        }
        str_in(&self.strings, local).ok_or_else(|| bad("BTF name offset inside a character"))
    }

    /// The hash (`hash`) of the name at `off`, checked as `checked_name`
    /// checks it; `None` for an empty name. One pass over the name's
    /// bytes, where `checked_name` finds its end first.
    fn name_hash(&self, off: u32) -> io::Result<Option<u64>> {
        if off < self.str_base {
            return match &self.base {
                Some(b) => b.name_hash(off),
                None => Err(bad("BTF name offset out of range")),
            };
        }
        let local = (off - self.str_base) as usize;
        if local >= self.strings.len() {
            if off == 0 {
                return Ok(None);
            }
            return Err(bad("BTF name offset out of range"));
        }
        if !self.ascii && !self.strings.is_char_boundary(local) {
            return Err(bad("BTF name offset inside a character"));
        }
        let name = self.strings.as_bytes()[local..].split(|&b| b == 0).next();
        Ok(name.filter(|n| !n.is_empty()).map(hash))
    }

    /// The text of a name from this BTF (or its base). Names were checked
    /// when parsed; an offset from elsewhere gives "".
    pub fn str(&self, s: Str) -> &str {
        self.checked_name(s.0).unwrap_or("")
    }

    /// The name of type `id` ("" for anonymous types and unknown ids).
    pub fn type_name(&self, id: TypeId) -> &str {
        self.get(id).map_or("", |t| self.str(t.name))
    }

    /// Type `id` as C writes it in a declaration without a name (`struct
    /// file *`, `const char *`, `unsigned int`, `size_t`), for a type a D
    /// program can name again: None for an array, a function, an
    /// anonymous struct, union or enum, or an unknown id. A pointer to a
    /// function is a `void *`; a qualifier on a pointer itself is
    /// dropped.
    pub fn c_type_name(&self, id: TypeId) -> Option<String> {
        self.c_type_name_at(id, 0)
    }

    fn c_type_name_at(&self, id: TypeId, depth: u32) -> Option<String> {
        if depth > 16 {
            return None;
        }
        let t = self.get(id)?;
        let name = self.str(t.name);
        let named = |tag: &str| {
            (!name.is_empty()).then(|| match tag {
                "" => name.to_string(),
                tag => format!("{} {}", tag, name),
            })
        };
        let qualified = |q: &str, to: TypeId| {
            let inner = self.c_type_name_at(to, depth + 1)?;
            Some(if inner.ends_with('*') {
                inner
            } else {
                format!("{} {}", q, inner)
            })
        };
        match &t.data {
            TypeData::Void => Some("void".to_string()),
            TypeData::Int { .. } | TypeData::Float { .. } | TypeData::Typedef(_) => named(""),
            TypeData::Struct { .. } | TypeData::Fwd { union: false } => named("struct"),
            TypeData::Union { .. } | TypeData::Fwd { union: true } => named("union"),
            TypeData::Enum { .. } => named("enum"),
            TypeData::Ptr(to) => {
                if matches!(
                    self.get(*to).map(|t| &t.data),
                    Some(TypeData::FuncProto { .. })
                ) {
                    return Some("void *".to_string());
                }
                let inner = self.c_type_name_at(*to, depth + 1)?;
                Some(if inner.ends_with('*') {
                    format!("{}*", inner)
                } else {
                    format!("{} *", inner)
                })
            }
            TypeData::Const(to) => qualified("const", *to),
            TypeData::Volatile(to) => qualified("volatile", *to),
            TypeData::Restrict(to) | TypeData::TypeTag(to) => self.c_type_name_at(*to, depth + 1),
            _ => None,
        }
    }

    /// One more than the largest valid type id (of the combined space for
    /// split BTF): the first id a BTF split over this one would use.
    pub fn type_count(&self) -> u32 {
        self.first_id + self.offsets.len() as u32
    }

    /// The first id of this BTF's own types (0 for base BTF, whose id 0 is
    /// void; the base's `type_count` for split BTF).
    pub fn first_id(&self) -> TypeId {
        self.first_id
    }

    /// The base this BTF is split over.
    pub fn base(&self) -> Option<&Arc<Btf>> {
        self.base.as_ref()
    }

    /// One past the last offset of the combined string space.
    fn str_end(&self) -> u32 {
        self.str_base + self.strings.len() as u32
    }

    pub fn get(&self, id: TypeId) -> Option<&Type> {
        if id < self.first_id {
            return self.base.as_ref()?.get(id);
        }
        let i = (id - self.first_id) as usize;
        if i >= self.offsets.len() {
            return None;
        }
        let chunk = self
            .types
            .get(i / CELL_CHUNK)?
            .get_or_init(|| (0..CELL_CHUNK).map(|_| OnceLock::new()).collect());
        let cell = chunk.get(i % CELL_CHUNK)?;
        Some(cell.get_or_init(|| Box::new(self.decode_own(i))))
    }

    /// The kind of type `id`.
    pub fn kind(&self, id: TypeId) -> Option<Kind> {
        if id < self.first_id {
            return self.base.as_ref()?.kind(id);
        }
        self.kind_own((id - self.first_id) as usize)
    }

    /// The ids of this BTF's own types (not the base's), with the types
    /// (each decoded as it comes).
    pub fn own_types(&self) -> impl Iterator<Item = (TypeId, &Type)> + '_ {
        (self.first_id..self.type_count()).filter_map(|id| Some((id, self.get(id)?)))
    }

    /// This BTF's own functions (FUNC records), found from the records'
    /// heads without decoding the other types.
    pub fn own_funcs(&self) -> impl Iterator<Item = (TypeId, &Type)> + '_ {
        self.own_where(|k| k == Kind::Func)
    }

    /// The ids of this BTF's own functions (FUNC records), none decoded
    /// (read them with [`Btf::func_in_place`]).
    pub fn own_func_ids(&self) -> impl Iterator<Item = TypeId> + '_ {
        (0..self.offsets.len())
            .filter(|&i| self.kind_own(i) == Some(Kind::Func))
            .map(|i| self.first_id + i as u32)
    }

    /// This BTF's own types of the kinds `want` accepts, found from the
    /// records' heads without decoding the others.
    fn own_where(
        &self,
        want: impl Fn(Kind) -> bool + 'static,
    ) -> impl Iterator<Item = (TypeId, &Type)> + '_ {
        (0..self.offsets.len())
            .filter(move |&i| self.kind_own(i).is_some_and(&want))
            .filter_map(|i| {
                let id = self.first_id + i as u32;
                Some((id, self.get(id)?))
            })
    }

    /// Where type `id`'s record lies: in this BTF or a base, and at
    /// which offset of its type section. None for void and unknown ids.
    fn record(&self, id: TypeId) -> Option<(&Btf, usize)> {
        if id < self.first_id {
            return self.base.as_ref()?.record(id);
        }
        match self.offsets.get((id - self.first_id) as usize) {
            Some(&u32::MAX) | None => None,
            Some(&at) => Some((self, at as usize)),
        }
    }

    /// The kind of type `id` and the word after it in its record's head
    /// (a size, or the id of the type it refers to), read in place.
    fn head(&self, id: TypeId) -> Option<(Kind, u32)> {
        let (b, at) = self.record(id)?;
        let d = b.tdata();
        let kind = Kind::from_u32((rd32(d, at + 4).ok()? >> 24) & 0x1f)?;
        Some((kind, rd32(d, at + 8).ok()?))
    }

    /// The type `id` resolves to through typedefs and qualifiers, and its
    /// kind (`resolve` and `kind` without decoding a type: for scans of
    /// every function's prototype).
    pub fn resolve_kind(&self, mut id: TypeId) -> Option<(TypeId, Kind)> {
        for _ in 0..MAX_RESOLVE {
            if id == 0 {
                return Some((0, Kind::Void));
            }
            match self.head(id)? {
                (
                    Kind::Typedef | Kind::Volatile | Kind::Const | Kind::Restrict | Kind::TypeTag,
                    t,
                ) => id = t,
                (kind, _) => return Some((id, kind)),
            }
        }
        None
    }

    /// The type a pointer `id` points to, read in place.
    pub fn pointee(&self, id: TypeId) -> Option<TypeId> {
        match self.head(id)? {
            (Kind::Ptr, t) => Some(t),
            _ => None,
        }
    }

    /// The name of this BTF's own function `id` and its prototype's id,
    /// read in place.
    pub fn func_in_place(&self, id: TypeId) -> Option<(&str, TypeId)> {
        let (b, at) = self.record(id)?;
        let d = b.tdata();
        if Kind::from_u32((rd32(d, at + 4).ok()? >> 24) & 0x1f)? != Kind::Func {
            return None;
        }
        Some((
            b.checked_name(rd32(d, at).ok()?).ok()?,
            rd32(d, at + 8).ok()?,
        ))
    }

    /// Function prototype `id`'s signature, read in place.
    pub fn signature(&self, id: TypeId) -> Option<Signature<'_>> {
        let (b, at) = self.record(id)?;
        let d = b.tdata();
        let info = rd32(d, at + 4).ok()?;
        if Kind::from_u32((info >> 24) & 0x1f)? != Kind::FuncProto {
            return None;
        }
        let vlen = (info & 0xffff) as usize;
        let params = d.get(at + 12..at + 12 + 8 * vlen)?;
        // A last parameter with no name and no type is `...` (the parse
        // checked that no other is void).
        let variadic = vlen > 0 && params[8 * (vlen - 1)..].iter().all(|&b| b == 0);
        Some(Signature {
            ret: rd32(d, at + 8).ok()?,
            params,
            count: vlen - usize::from(variadic),
            variadic,
        })
    }

    /// Every type id named `name`, this BTF's own before its base's, each
    /// in id order.
    pub fn find_all(&self, name: &str) -> Vec<TypeId> {
        let mut out = Vec::new();
        self.find_all_into(name, hash(name.as_bytes()), Named::Both, &mut out);
        out
    }

    fn find_all_into(&self, name: &str, h: u64, which: Named, out: &mut Vec<TypeId>) {
        let from = out.len();
        let indexes = match which {
            Named::Types => [Some(&self.names), None],
            Named::Funcs => [Some(self.func_index()), None],
            Named::Both => [Some(&self.names), Some(self.func_index())],
        };
        for index in indexes.into_iter().flatten() {
            for id in index.candidates(h) {
                if self.type_name(id) == name {
                    out.push(id);
                }
            }
        }
        out[from..].sort_unstable();
        if let Some(b) = &self.base {
            b.find_all_into(name, h, which, out);
        }
    }

    /// The functions of this BTF by name, indexed on first use.
    fn func_index(&self) -> &NameIndex {
        self.funcs.get_or_init(|| {
            let mut index = NameIndex::default();
            for i in 0..self.offsets.len() {
                if self.kind_own(i) != Some(Kind::Func) {
                    continue;
                }
                let at = self.offsets[i] as usize;
                let h = rd32(self.tdata(), at).and_then(|off| self.name_hash(off));
                if let Ok(Some(h)) = h {
                    index.insert(h, self.first_id + i as u32);
                }
            }
            index
        })
    }

    /// The types named `name` of the kinds `which` holds, own before the
    /// base's.
    fn find_named(&self, name: &str, which: Named) -> Vec<TypeId> {
        let mut out = Vec::new();
        self.find_all_into(name, hash(name.as_bytes()), which, &mut out);
        out
    }

    /// The first type named `name` of kind `kind` (own types before the
    /// base's). `Kind::Enum` finds ENUM64 too.
    pub fn find(&self, name: &str, kind: Kind) -> Option<TypeId> {
        let which = if kind == Kind::Func {
            Named::Funcs
        } else {
            Named::Types
        };
        self.find_named(name, which).into_iter().find(|&id| {
            let k = self.kind(id);
            k == Some(kind) || (kind == Kind::Enum && k == Some(Kind::Enum64))
        })
    }

    /// The id of the struct (or union) named `name`, skipping forward
    /// declarations.
    pub fn find_struct(&self, name: &str) -> Option<TypeId> {
        self.find_named(name, Named::Types)
            .into_iter()
            .find(|&id| matches!(self.kind(id), Some(Kind::Struct | Kind::Union)))
    }

    pub fn find_union(&self, name: &str) -> Option<TypeId> {
        self.find(name, Kind::Union)
    }

    /// An ENUM or ENUM64 named `name`.
    pub fn find_enum(&self, name: &str) -> Option<TypeId> {
        self.find(name, Kind::Enum)
    }

    pub fn find_typedef(&self, name: &str) -> Option<TypeId> {
        self.find(name, Kind::Typedef)
    }

    /// A base integer type, such as `unsigned int`.
    pub fn find_int(&self, name: &str) -> Option<TypeId> {
        self.find(name, Kind::Int)
    }

    /// A variable (VAR; the kernel describes per-CPU variables).
    pub fn find_var(&self, name: &str) -> Option<TypeId> {
        self.find(name, Kind::Var)
    }

    /// A function (FUNC).
    pub fn find_func(&self, name: &str) -> Option<TypeId> {
        self.find(name, Kind::Func)
    }

    /// The enum holding an enumerator called `name`, and its value (own
    /// enums before the base's).
    pub fn find_enumerator(&self, name: &str) -> Option<(TypeId, i128)> {
        let h = hash(name.as_bytes());
        let index = self.enumerators.get_or_init(|| {
            let mut v = Vec::new();
            for (id, t) in self.own_where(|k| matches!(k, Kind::Enum | Kind::Enum64)) {
                if let TypeData::Enum { values, .. } = &t.data {
                    for (i, e) in values.iter().enumerate() {
                        v.push((hash(self.str(e.name).as_bytes()), id, i as u32));
                    }
                }
            }
            v.sort_unstable();
            v
        });
        for &(_, id, i) in hash_range(index, h, |e| e.0) {
            if let Some(TypeData::Enum { values, .. }) = self.get(id).map(|t| &t.data) {
                let e = values[i as usize];
                if self.str(e.name) == name {
                    return Some((id, e.value));
                }
            }
        }
        self.base.as_ref()?.find_enumerator(name)
    }

    /// The DATASEC holding VAR `var` (such as `.data..percpu` for a per-CPU
    /// variable) and the variable's place in it.
    pub fn var_section(&self, var: TypeId) -> Option<(TypeId, VarSecInfo)> {
        if var < self.first_id {
            return self.base.as_ref()?.var_section(var);
        }
        self.own_where(|k| k == Kind::Datasec)
            .find_map(|(id, t)| match &t.data {
                TypeData::Datasec { vars, .. } => {
                    vars.iter().find(|v| v.ty == var).map(|v| (id, *v))
                }
                _ => None,
            })
    }

    /// Follows typedefs, qualifiers and type tags to the underlying type;
    /// `None` for an unknown id or a chain that does not end.
    pub fn resolve(&self, mut id: TypeId) -> Option<TypeId> {
        for _ in 0..MAX_RESOLVE {
            match self.get(id)?.data {
                TypeData::Typedef(t)
                | TypeData::Volatile(t)
                | TypeData::Const(t)
                | TypeData::Restrict(t)
                | TypeData::TypeTag(t) => id = t,
                _ => return Some(id),
            }
        }
        None
    }

    /// The size in bytes of type `id`: for integers, floats, structs,
    /// unions, enums, pointers, arrays (element size times count), and
    /// through typedefs and qualifiers; a VAR's is its type's, a DATASEC's
    /// its own. `None` for unsized kinds (void, functions, forward
    /// declarations), cycles and sizes that overflow.
    pub fn size_of(&self, id: TypeId) -> Option<u64> {
        let mut id = id;
        let mut count: u64 = 1;
        for _ in 0..MAX_SIZE_STEPS {
            let t = self.get(self.resolve(id)?)?;
            let size = match &t.data {
                TypeData::Int { size, .. }
                | TypeData::Float { size }
                | TypeData::Struct { size, .. }
                | TypeData::Union { size, .. }
                | TypeData::Enum { size, .. }
                | TypeData::Datasec { size, .. } => *size as u64,
                TypeData::Ptr(_) => PTR_SIZE,
                TypeData::Array { elem, nelems, .. } => {
                    count = count.checked_mul(*nelems as u64)?;
                    id = *elem;
                    continue;
                }
                TypeData::Var { ty, .. } => {
                    id = *ty;
                    continue;
                }
                _ => return None,
            };
            return count.checked_mul(size);
        }
        None
    }

    /// Finds member `name` of struct/union `id` (through typedefs and
    /// qualifiers), looking through anonymous members.
    pub fn member(&self, id: TypeId, name: &str) -> Option<MemberInfo> {
        self.member_within(id, name, MAX_ANON_DEPTH)
    }

    fn member_within(&self, id: TypeId, name: &str, depth: u32) -> Option<MemberInfo> {
        let t = self.get(self.resolve(id)?)?;
        for m in t.members() {
            let mname = self.str(m.name);
            if mname == name {
                return Some(MemberInfo {
                    bit_offset: m.bit_offset as u64,
                    bitfield_size: m.bitfield_size,
                    ty: m.ty,
                });
            }
            if mname.is_empty() && depth > 0 {
                if let Some(inner) = self.member_within(m.ty, name, depth - 1) {
                    return Some(MemberInfo {
                        bit_offset: inner.bit_offset + m.bit_offset as u64,
                        ..inner
                    });
                }
            }
        }
        None
    }

    /// The byte offset of a dotted member path such as `se.sum_exec_runtime`
    /// within struct `strct`, and the member's type id.
    pub fn member_path(&self, strct: &str, path: &str) -> Option<(u32, TypeId)> {
        let mut id = self.find_struct(strct)?;
        let mut total: u64 = 0;
        for part in path.split('.') {
            let m = self.member(id, part)?;
            total = total.checked_add(m.byte_offset())?;
            id = m.ty;
        }
        Some((u32::try_from(total).ok()?, id))
    }
}

/// `dir/name` for a module name that is a plain file name.
fn module_path(dir: &Path, name: &str) -> io::Result<PathBuf> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("invalid module name '{}'", name),
        ));
    }
    Ok(dir.join(name))
}

/// A type in the kernel's BTF: `btf` 0 is vmlinux, `n` > 0 the `n`th
/// module of [`KernelTypes::modules`] (1-based); `id` is in that BTF's
/// numbering (for a module, the combined vmlinux-plus-module space).
/// Refs made by [`KernelTypes`] are canonical: an id that is vmlinux's
/// carries `btf: 0`, so equal types compare equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeRef {
    pub btf: u16,
    pub id: TypeId,
}

struct Module {
    name: String,
    btf: OnceLock<Result<Btf, String>>,
}

/// The kernel's types: vmlinux, parsed at once, and module BTF, listed
/// and parsed only when a lookup needs it, then kept.
pub struct KernelTypes {
    dir: PathBuf,
    vmlinux: Arc<Btf>,
    modules: OnceLock<Vec<Module>>,
}

impl KernelTypes {
    /// The kernel's types: vmlinux BTF (shared, see [`Btf::vmlinux`])
    /// and its modules' from /sys/kernel/btf.
    pub fn load() -> io::Result<KernelTypes> {
        Ok(KernelTypes::with_vmlinux(
            Path::new(SYSFS_BTF),
            Btf::vmlinux()?,
        ))
    }

    /// As `load`, from another directory laid out like /sys/kernel/btf.
    pub fn load_from(dir: &Path) -> io::Result<KernelTypes> {
        let vmlinux = Btf::parse(&std::fs::read(dir.join("vmlinux"))?)?;
        Ok(KernelTypes::with_vmlinux(dir, Arc::new(vmlinux)))
    }

    /// A set over an already parsed vmlinux; modules come from `dir`.
    pub fn with_vmlinux(dir: &Path, vmlinux: Arc<Btf>) -> KernelTypes {
        KernelTypes {
            dir: dir.to_path_buf(),
            vmlinux,
            modules: OnceLock::new(),
        }
    }

    pub fn vmlinux(&self) -> &Arc<Btf> {
        &self.vmlinux
    }

    fn module_list(&self) -> &[Module] {
        self.modules.get_or_init(|| {
            let mut names: Vec<String> = std::fs::read_dir(&self.dir)
                .map(|rd| {
                    rd.filter_map(|e| e.ok()?.file_name().into_string().ok())
                        .filter(|n| n != "vmlinux")
                        .collect()
                })
                .unwrap_or_default();
            names.sort();
            // Refs number modules with a u16.
            names.truncate(u16::MAX as usize);
            names
                .into_iter()
                .map(|name| Module {
                    name,
                    btf: OnceLock::new(),
                })
                .collect()
        })
    }

    /// The names of the modules with BTF, in `TypeRef` order (the first
    /// is `btf: 1`). Listing reads the directory once; nothing is parsed.
    pub fn modules(&self) -> impl Iterator<Item = &str> + '_ {
        self.module_list().iter().map(|m| m.name.as_str())
    }

    /// The BTF of module number `index` (1-based), parsed on first use.
    fn module_btf(&self, index: u16) -> io::Result<&Btf> {
        let m = index
            .checked_sub(1)
            .and_then(|i| self.module_list().get(i as usize))
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such module BTF"))?;
        let r = m.btf.get_or_init(|| {
            let path = module_path(&self.dir, &m.name).map_err(|e| e.to_string())?;
            let data = std::fs::read(path).map_err(|e| e.to_string())?;
            Btf::parse_split(&data, self.vmlinux.clone())
                .map_err(|e| format!("module {} BTF: {}", m.name, e))
        });
        r.as_ref()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.clone()))
    }

    /// The number (for `TypeRef::btf`) of module `name`; "vmlinux" is 0.
    /// `None` if the kernel has no BTF for it (not loaded, or no such
    /// module).
    pub fn module_index(&self, name: &str) -> Option<u16> {
        if name == "vmlinux" {
            return Some(0);
        }
        let i = self.module_list().iter().position(|m| m.name == name)?;
        Some(i as u16 + 1)
    }

    /// The BTF that `btf` numbers (0: vmlinux), parsing a module's on
    /// first use. A module's is the view of vmlinux plus the module.
    pub fn btf(&self, btf: u16) -> io::Result<&Btf> {
        if btf == 0 {
            Ok(&self.vmlinux)
        } else {
            self.module_btf(btf)
        }
    }

    /// The canonical form of a ref: vmlinux ids carry `btf: 0`.
    pub fn canonical(&self, r: TypeRef) -> TypeRef {
        if r.id < self.vmlinux.type_count() {
            TypeRef { btf: 0, id: r.id }
        } else {
            r
        }
    }

    /// The type a ref names (`None` if its BTF cannot be loaded or has
    /// no such id).
    pub fn get(&self, r: TypeRef) -> Option<&Type> {
        self.btf(r.btf).ok()?.get(r.id)
    }

    /// A ref to `id` as numbered by BTF number `btf`.
    pub fn type_ref(&self, btf: u16, id: TypeId) -> TypeRef {
        self.canonical(TypeRef { btf, id })
    }

    /// Finds a type by name and kind (as [`Btf::find`]). With a module
    /// name (D's `` module`name ``; "vmlinux" for the core kernel) only
    /// that module's types and vmlinux's are searched, and a module whose
    /// BTF is malformed is an error. Without, vmlinux is searched first,
    /// then each module in turn, parsing them as needed; modules whose BTF
    /// cannot be read are passed over.
    pub fn find(
        &self,
        module: Option<&str>,
        name: &str,
        kind: Kind,
    ) -> io::Result<Option<TypeRef>> {
        self.find_with(module, |btf| btf.find(name, kind))
    }

    /// [`KernelTypes::find`] with any lookup on each BTF: `f` gets vmlinux,
    /// then (as `find` says) module views.
    pub fn find_with(
        &self,
        module: Option<&str>,
        f: impl Fn(&Btf) -> Option<TypeId>,
    ) -> io::Result<Option<TypeRef>> {
        match module {
            Some(m) => {
                let Some(index) = self.module_index(m) else {
                    return Err(io::Error::new(
                        io::ErrorKind::NotFound,
                        format!("no BTF for module '{}'", m),
                    ));
                };
                let btf = self.btf(index)?;
                Ok(f(btf).map(|id| self.type_ref(index, id)))
            }
            None => {
                if let Some(id) = f(&self.vmlinux) {
                    return Ok(Some(TypeRef { btf: 0, id }));
                }
                for index in 1..=self.module_list().len() as u16 {
                    let Ok(btf) = self.module_btf(index) else {
                        continue;
                    };
                    if let Some(id) = f(btf) {
                        return Ok(Some(self.type_ref(index, id)));
                    }
                }
                Ok(None)
            }
        }
    }
}

/// Counts of each kind, for diagnostics and tests.
pub fn kind_counts(btf: &Btf) -> HashMap<Kind, usize> {
    let mut m = HashMap::new();
    for (_, t) in btf.own_types() {
        *m.entry(t.kind()).or_default() += 1;
    }
    m
}

#[cfg(test)]
mod tests;
