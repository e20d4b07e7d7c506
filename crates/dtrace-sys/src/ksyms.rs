//! Kernel symbols from `/proc/kallsyms`: name to address (with D's
//! `` module`name `` scoping, `vmlinux` being the core kernel) and address
//! to the nearest symbol, for `sym()`, `func()` and backquoted names.
//!
//! What kallsyms lists depends on the kernel: without
//! `CONFIG_KALLSYMS_ALL` only text symbols appear, so data symbols such as
//! `max_pfn` are simply not found. When `kptr_restrict` hides addresses
//! every address reads as zero; [`Kallsyms::hidden`] says so and lookups
//! fail with [`KsymError::Hidden`] rather than giving address 0.
//!
//! The text is kept whole and entries point into it; the name and address
//! indexes are built on first use.

use std::fmt;
use std::io;
use std::sync::OnceLock;

/// Where the kernel lists its symbols.
pub const PROC_KALLSYMS: &str = "/proc/kallsyms";

/// The module name of core kernel symbols.
pub const VMLINUX: &str = "vmlinux";

#[derive(Clone, Copy, Debug)]
struct Entry {
    addr: u64,
    name_start: u32,
    name_len: u32,
    module: u32,
    ty: u8,
}

/// A kernel symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ksym<'a> {
    pub name: &'a str,
    pub addr: u64,
    /// nm(1)'s type letter: `T`/`t` text, `D`/`d` data, `R`/`r`
    /// read-only, `B`/`b` bss, `W`/`w` weak, ...; upper case is global.
    pub ty: char,
    /// The module, `vmlinux` for the core kernel.
    pub module: &'a str,
}

impl Ksym<'_> {
    /// A function (text or weak text) symbol.
    pub fn is_text(&self) -> bool {
        matches!(self.ty, 'T' | 't' | 'W' | 'w')
    }

    pub fn is_global(&self) -> bool {
        self.ty.is_ascii_uppercase()
    }
}

/// Why a name lookup failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KsymError {
    /// No such symbol (in the module asked for). Data symbols are not
    /// listed on kernels without `CONFIG_KALLSYMS_ALL`.
    NotFound,
    /// The module named in `` module`name `` has no symbols listed.
    UnknownModule(String),
    /// Addresses are hidden (`kptr_restrict`, or not privileged).
    Hidden,
}

impl fmt::Display for KsymError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            KsymError::NotFound => write!(f, "Unknown symbol name"),
            KsymError::UnknownModule(m) => write!(f, "Unknown module name '{}'", m),
            KsymError::Hidden => write!(
                f,
                "kernel symbol addresses are hidden (see /proc/sys/kernel/kptr_restrict)"
            ),
        }
    }
}

impl std::error::Error for KsymError {}

/// The parsed symbol list.
pub struct Kallsyms {
    text: String,
    syms: Vec<Entry>,
    /// Module names by number; 0 is `vmlinux`.
    modules: Vec<String>,
    hidden: bool,
    /// (hash of name, entry index), sorted.
    by_name: OnceLock<Vec<(u64, u32)>>,
    /// Entry indexes with a non-zero address, sorted by address (ties in
    /// file order).
    by_addr: OnceLock<Vec<u32>>,
}

/// FNV-1a, the name index's hash.
fn hash(s: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in s {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// One parsed line: address, type letter, the name as a byte range of
/// the text, and the module (without brackets) if any.
struct Line<'a> {
    addr: u64,
    ty: u8,
    name: (usize, usize),
    module: Option<&'a [u8]>,
}

/// The start of the line after the one holding `at`.
fn next_line(text: &[u8], at: usize) -> usize {
    text.get(at..)
        .and_then(|t| t.iter().position(|&c| c == b'\n'))
        .map_or(text.len(), |e| at + e + 1)
}

/// Parses the line of `text` starting at `start`: `ADDR TYPE NAME`,
/// optionally followed by `\t[MODULE]`. Returns the line (`None` if it is
/// not one) and where the next line starts. One pass over the bytes.
fn parse_line(text: &[u8], start: usize) -> (Option<Line<'_>>, usize) {
    let mut addr: u64 = 0;
    let mut i = start;
    while let Some(&c) = text.get(i) {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => break,
        };
        if i - start >= 16 {
            return (None, next_line(text, i));
        }
        addr = addr << 4 | d as u64;
        i += 1;
    }
    // "ADDR T NAME": at least one digit, one type byte, a non-empty name.
    let ty = match text.get(i..i + 3) {
        Some(&[b' ', ty, b' ']) if i > start && ty.is_ascii_graphic() => ty,
        _ => return (None, next_line(text, i)),
    };
    let name_start = i + 3;
    let mut j = name_start;
    while j < text.len() && !matches!(text[j], b'\t' | b' ' | b'\n' | b'\r') {
        j += 1;
    }
    if j == name_start {
        return (None, next_line(text, j));
    }
    let name = (name_start, j);
    let next = next_line(text, j);
    let rest = &text[j..next];
    let rest = rest.trim_ascii();
    let module = if rest.is_empty() {
        None
    } else {
        match rest.strip_prefix(b"[").and_then(|m| m.strip_suffix(b"]")) {
            Some(m) if !m.is_empty() => Some(m),
            _ => return (None, next),
        }
    };
    (
        Some(Line {
            addr,
            ty,
            name,
            module,
        }),
        next,
    )
}

/// Fewer data symbols than this in vmlinux: kallsyms lists functions
/// only.
const DATA_SYMBOLS_WITH_ALL: usize = 1000;

impl Kallsyms {
    /// Reads and parses `/proc/kallsyms`.
    pub fn load() -> io::Result<Kallsyms> {
        let bytes = std::fs::read(PROC_KALLSYMS)?;
        let text = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        Ok(Kallsyms::parse(text))
    }

    /// Parses kallsyms text. Lines that are not `ADDR TYPE NAME [MODULE]`
    /// are skipped.
    pub fn parse(text: String) -> Kallsyms {
        let mut syms = Vec::with_capacity(text.len() / 40);
        let mut modules = vec![VMLINUX.to_string()];
        let mut last_module = 0u32;
        let bytes = text.as_bytes();
        let mut pos = 0;
        while pos < bytes.len() {
            let (line, next) = parse_line(bytes, pos);
            pos = next;
            let Some(line) = line else { continue };
            let module = match line.module {
                None | Some(b"vmlinux") => 0,
                Some(m) if modules[last_module as usize].as_bytes() == m => last_module,
                Some(m) => match modules.iter().position(|x| x.as_bytes() == m) {
                    Some(i) => i as u32,
                    None => {
                        modules.push(String::from_utf8_lossy(m).into_owned());
                        (modules.len() - 1) as u32
                    }
                },
            };
            last_module = module;
            let (start, end) = line.name;
            let (Ok(name_start), Ok(name_len)) = (u32::try_from(start), u32::try_from(end - start))
            else {
                break;
            };
            syms.push(Entry {
                addr: line.addr,
                name_start,
                name_len,
                module,
                ty: line.ty,
            });
        }
        let hidden = !syms.is_empty() && syms.iter().all(|e| e.addr == 0);
        Kallsyms {
            text,
            syms,
            modules,
            hidden,
            by_name: OnceLock::new(),
            by_addr: OnceLock::new(),
        }
    }

    /// True if the kernel lists its variables, not just its functions
    /// (`CONFIG_KALLSYMS_ALL`). Without it only a few section markers
    /// (`__start_rodata`, ...) are data symbols; with it, tens of
    /// thousands are.
    pub fn lists_data(&self) -> bool {
        self.syms
            .iter()
            .filter(|e| e.module == 0 && matches!(e.ty, b'd' | b'D' | b'b' | b'B'))
            .take(DATA_SYMBOLS_WITH_ALL)
            .count()
            >= DATA_SYMBOLS_WITH_ALL
    }

    /// True if every address reads as zero: the kernel hides them
    /// (`kptr_restrict`, or we lack the privilege to see them).
    pub fn hidden(&self) -> bool {
        self.hidden
    }

    /// How many symbols are listed.
    pub fn len(&self) -> usize {
        self.syms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.syms.is_empty()
    }

    /// The modules with symbols, `vmlinux` first, then in listing order.
    pub fn modules(&self) -> impl Iterator<Item = &str> + '_ {
        self.modules.iter().map(String::as_str)
    }

    fn name_of(&self, e: &Entry) -> &str {
        let start = e.name_start as usize;
        self.text
            .get(start..start + e.name_len as usize)
            .unwrap_or("")
    }

    fn sym(&self, e: &Entry) -> Ksym<'_> {
        Ksym {
            name: self.name_of(e),
            addr: e.addr,
            ty: e.ty as char,
            module: self
                .modules
                .get(e.module as usize)
                .map_or(VMLINUX, String::as_str),
        }
    }

    fn name_index(&self) -> &[(u64, u32)] {
        self.by_name.get_or_init(|| {
            let mut v: Vec<(u64, u32)> = self
                .syms
                .iter()
                .enumerate()
                .map(|(i, e)| (hash(self.name_of(e).as_bytes()), i as u32))
                .collect();
            v.sort_unstable();
            v
        })
    }

    /// Every symbol called `name`, in listing order (the core kernel's
    /// first, as kallsyms lists them).
    pub fn lookup_all(&self, name: &str) -> Vec<Ksym<'_>> {
        let h = hash(name.as_bytes());
        let index = self.name_index();
        let lo = index.partition_point(|e| e.0 < h);
        index[lo..]
            .iter()
            .take_while(|e| e.0 == h)
            .map(|&(_, i)| &self.syms[i as usize])
            .filter(|e| self.name_of(e) == name)
            .map(|e| self.sym(e))
            .collect()
    }

    /// Looks up a D kernel symbol name: `name`, or `` module`name `` (with
    /// `vmlinux` for the core kernel).
    pub fn lookup(&self, name: &str) -> Result<Ksym<'_>, KsymError> {
        match name.split_once('`') {
            Some((m, n)) => self.lookup_in(Some(m), n),
            None => self.lookup_in(None, name),
        }
    }

    /// Looks up `name` in `module` (any module when `None`: the core
    /// kernel's first). Among several symbols of one name a global one is
    /// preferred, then the first listed.
    pub fn lookup_in(&self, module: Option<&str>, name: &str) -> Result<Ksym<'_>, KsymError> {
        if let Some(m) = module {
            if !self.modules.iter().any(|x| x == m) {
                return Err(KsymError::UnknownModule(m.to_string()));
            }
        }
        let mut all = self.lookup_all(name);
        if let Some(m) = module {
            all.retain(|s| s.module == m);
        }
        // vmlinux first, then globals, then listing order.
        let best = all
            .iter()
            .enumerate()
            .min_by_key(|(i, s)| (s.module != VMLINUX, !s.is_global(), *i))
            .map(|(_, s)| *s);
        match best {
            None => Err(KsymError::NotFound),
            Some(_) if self.hidden => Err(KsymError::Hidden),
            Some(s) => Ok(s),
        }
    }

    fn addr_index(&self) -> &[u32] {
        self.by_addr.get_or_init(|| {
            let mut v: Vec<u32> = (0..self.syms.len() as u32)
                .filter(|&i| self.syms[i as usize].addr != 0)
                .collect();
            v.sort_by_key(|&i| self.syms[i as usize].addr);
            v
        })
    }

    /// The symbol at or nearest below `addr`, and `addr`'s offset from
    /// it: `None` below the first symbol or when addresses are hidden.
    /// Of several symbols at one address a text symbol is preferred, then
    /// a global one, then the first listed. (kallsyms gives no sizes, so
    /// an address past the end of the last function still names it.)
    pub fn symbolize(&self, addr: u64) -> Option<(Ksym<'_>, u64)> {
        if self.hidden {
            return None;
        }
        let index = self.addr_index();
        let n = index.partition_point(|&i| self.syms[i as usize].addr <= addr);
        let at = self.syms[*index.get(n.checked_sub(1)?)? as usize].addr;
        let first = index[..n].partition_point(|&i| self.syms[i as usize].addr < at);
        let best = index[first..n]
            .iter()
            .map(|&i| self.sym(&self.syms[i as usize]))
            .enumerate()
            .min_by_key(|(k, s)| (!s.is_text(), !s.is_global(), *k))
            .map(|(_, s)| s)?;
        Some((best, addr - at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
ffffffff81000000 T _stext
ffffffff81000000 t startup_64
ffffffff81001000 T schedule
ffffffff81001200 t helper
ffffffff81002000 D some_data
ffffffff81003000 t helper
ffffffff81004000 W weak_fn
garbage line
ffffffff8100zzzz T bad_addr
ffffffff81005000 TT bad_type
ffffffffc0001000 t helper\t[ext4]
ffffffffc0001100 T ext4_fill_super\t[ext4]
ffffffffc0002000 T schedule_mod\t[xfs]
ffffffffc0003000 t bpf_prog_abc_dt_tick\t[bpf]
ffffffffc0003100 T schedule\t[xfs]
";

    fn sample() -> Kallsyms {
        Kallsyms::parse(SAMPLE.to_string())
    }

    #[test]
    fn parses_names_types_and_modules() {
        let k = sample();
        assert_eq!(k.len(), 12);
        assert!(!k.hidden());
        assert_eq!(
            k.modules().collect::<Vec<_>>(),
            ["vmlinux", "ext4", "xfs", "bpf"]
        );
        let s = k.lookup("schedule").unwrap();
        assert_eq!(
            s,
            Ksym {
                name: "schedule",
                addr: 0xffffffff81001000,
                ty: 'T',
                module: "vmlinux"
            }
        );
        assert!(s.is_text() && s.is_global());
        assert_eq!(k.lookup("ext4_fill_super").unwrap().module, "ext4");
        assert_eq!(k.lookup("bpf_prog_abc_dt_tick").unwrap().module, "bpf");
        assert_eq!(k.lookup("some_data").unwrap().ty, 'D');
        assert!(!k.lookup("some_data").unwrap().is_text());
        assert!(k.lookup("weak_fn").unwrap().is_text());
        for bad in ["garbage", "bad_addr", "bad_type", "line"] {
            assert_eq!(k.lookup(bad), Err(KsymError::NotFound), "{}", bad);
        }
    }

    #[test]
    fn module_scoping() {
        let k = sample();
        assert_eq!(
            k.lookup("vmlinux`schedule").unwrap().addr,
            0xffffffff81001000
        );
        assert_eq!(k.lookup("xfs`schedule").unwrap().addr, 0xffffffffc0003100);
        assert_eq!(k.lookup("xfs`helper"), Err(KsymError::NotFound));
        assert_eq!(k.lookup("ext4`helper").unwrap().addr, 0xffffffffc0001000);
        // Unscoped: vmlinux first, and its first-listed local.
        assert_eq!(k.lookup("helper").unwrap().addr, 0xffffffff81001200);
        assert_eq!(k.lookup_all("helper").len(), 3);
        assert_eq!(
            k.lookup("nosuch`schedule"),
            Err(KsymError::UnknownModule("nosuch".into()))
        );
        assert_eq!(
            k.lookup("`schedule"),
            Err(KsymError::UnknownModule("".into()))
        );
        assert_eq!(k.lookup("max_pfn"), Err(KsymError::NotFound));
        assert_eq!(k.lookup(""), Err(KsymError::NotFound));
        assert_eq!(
            k.lookup("schedule`"),
            Err(KsymError::UnknownModule("schedule".into()))
        );
    }

    #[test]
    fn nearest_symbol_below() {
        let k = sample();
        let (s, off) = k.symbolize(0xffffffff81001010).unwrap();
        assert_eq!((s.name, off), ("schedule", 0x10));
        let (s, off) = k.symbolize(0xffffffff81001000).unwrap();
        assert_eq!((s.name, off), ("schedule", 0));
        // Two symbols at one address: the global text one.
        assert_eq!(k.symbolize(0xffffffff81000004).unwrap().0.name, "_stext");
        let (s, _) = k.symbolize(0xffffffffc0001104).unwrap();
        assert_eq!((s.name, s.module), ("ext4_fill_super", "ext4"));
        assert_eq!(k.symbolize(0xffffffff80000000), None);
        assert_eq!(k.symbolize(0), None);
        assert_eq!(k.symbolize(u64::MAX).unwrap().0.name, "schedule");
    }

    #[test]
    fn data_symbols_are_listed_with_kallsyms_all_only() {
        // Functions and section markers only: CONFIG_KALLSYMS_ALL is off.
        assert!(!sample().lists_data());
        let mut text = String::from("ffffffff82400000 D __start_rodata\n");
        for i in 0..DATA_SYMBOLS_WITH_ALL {
            text.push_str(&format!("ffffffff8300{:04x} b var_{}\n", i, i));
        }
        assert!(Kallsyms::parse(text.clone()).lists_data());
        // A module's variables do not count.
        let modules: String = text.lines().map(|l| format!("{} [m]\n", l)).collect();
        assert!(!Kallsyms::parse(modules).lists_data());
    }

    #[test]
    fn hidden_addresses_are_reported() {
        let text = SAMPLE
            .lines()
            .map(|l| match l.split_once(' ') {
                Some((a, rest)) if a.len() == 16 => format!("0000000000000000 {}\n", rest),
                _ => format!("{}\n", l),
            })
            .collect::<String>();
        let k = Kallsyms::parse(text);
        assert!(k.hidden());
        assert_eq!(k.lookup("schedule"), Err(KsymError::Hidden));
        assert_eq!(k.lookup("max_pfn"), Err(KsymError::NotFound));
        assert_eq!(k.symbolize(0xffffffff81001010), None);
        assert!(KsymError::Hidden.to_string().contains("kptr_restrict"));
        // An empty list is not "hidden".
        assert!(!Kallsyms::parse(String::new()).hidden());
    }

    #[test]
    fn odd_text_never_panics() {
        for text in [
            "",
            "\n\n\n",
            " ",
            "ffffffff81000000",
            "ffffffff81000000 T",
            "ffffffff81000000 T ",
            "ffffffff81000000 T x\t",
            "ffffffff81000000 T x\t[",
            "ffffffff81000000 T x\t[]",
            "ffffffff81000000 T x\t[m",
            "ffffffffffffffffff T x",
            "ffffffff81000000 é é\t[é]",
            "ffffffff81000000 T x\r\n",
        ] {
            let k = Kallsyms::parse(text.to_string());
            let _ = k.lookup("x");
            let _ = k.lookup("m`x");
            let _ = k.symbolize(0xffffffff81000001);
        }
        let k = Kallsyms::parse("ffffffff81000000 T x\r\n".to_string());
        assert_eq!(k.lookup("x").unwrap().name, "x");
    }

    #[test]
    fn real_kernel_schedule() {
        if !std::path::Path::new(PROC_KALLSYMS).exists() {
            eprintln!("skipped: needs /proc/kallsyms");
            return;
        }
        let t = std::time::Instant::now();
        let k = Kallsyms::load().unwrap();
        let loaded = t.elapsed();
        let s = match k.lookup("schedule") {
            Err(KsymError::Hidden) => {
                eprintln!("skipped: kernel addresses are hidden");
                return;
            }
            r => r.unwrap(),
        };
        eprintln!(
            "kallsyms: {} symbols read and parsed in {:?}, first lookup after {:?}",
            k.len(),
            loaded,
            t.elapsed()
        );
        assert!(s.is_text());
        assert_eq!(s.module, "vmlinux");
        assert_eq!(k.lookup("vmlinux`schedule").unwrap(), s);
        let (back, off) = k.symbolize(s.addr + 1).unwrap();
        assert_eq!(off, 1);
        assert_eq!(back.addr, s.addr);
        assert_eq!(
            k.lookup("no_such_symbol_anywhere"),
            Err(KsymError::NotFound)
        );
    }
}
