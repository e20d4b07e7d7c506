//! The objects of a user process, for the providers of user-level
//! probes (pid, usdt): which ELF files a process maps (or, held before
//! its exec, will map), their functions, and their USDT probes (the
//! `stapsdt` notes of `sys/sdt.h` and of `dtrace -h` headers).
//!
//! A running process's objects come from `dtrace_sys::process::read_maps`,
//! one per device and inode (`mapped_objects`), each read through the
//! name the process gives it only when that is the same file in dtrace's
//! view, else through `/proc/PID/map_files/LO-HI` (`Object::path`); a
//! command held before its exec has its executable's `DT_NEEDED` chain
//! (`needed_objects`), and a library a description names that is not
//! loaded yet is found where `dlopen()` would find it
//! (`ProcessObjects::unloaded`). Functions come from the ELF symbols
//! (`blazesym`), placed in the file by its program headers
//! (`read_funcs`); notes are read with `object` (`read_notes`,
//! `read_dtrace_notes`).

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use blazesym::inspect::source::{Elf, Source};
use blazesym::inspect::Inspector;
use blazesym::SymType;
use dtrace_lang::pdesc::has_glob;
use object::elf;
use object::read::elf::{ElfFile64, FileHeader, ProgramHeader, SectionHeader, Sym};
use object::read::ReadCache;
use object::{Endianness, ReadRef};

/// The process ID a per-process provider name names (`pid123` with
/// `prefix` "pid", `plockstat123` with "plockstat").
pub(crate) fn process_of(provider: &str, prefix: &str) -> Option<u32> {
    let n = provider.strip_prefix(prefix)?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok().filter(|&p| p > 0)
}

/// What a provider of functions' probes (pid, plockstat) knows of the
/// traced processes: created commands held before their exec (their
/// executables), each process's objects and each object's functions,
/// once read.
#[derive(Default)]
pub(crate) struct ProcessObjects {
    held: HashMap<u32, PathBuf>,
    objects: HashMap<u32, Vec<Object>>,
    /// Libraries looked up by name for a process that has not loaded
    /// them (see `unloaded`).
    unloaded: HashMap<(u32, String), Option<Object>>,
    funcs: HashMap<PathBuf, Vec<Func>>,
}

impl ProcessObjects {
    /// Process `pid` is traced (`Provider::target`).
    pub(crate) fn target(&mut self, pid: u32, held: Option<&Path>) {
        self.objects.remove(&pid);
        self.unloaded.retain(|(p, _), _| *p != pid);
        if let Some(exe) = held {
            self.held.insert(pid, exe.to_path_buf());
        }
    }

    pub(crate) fn objects(&mut self, pid: u32) -> Vec<Object> {
        if let Some(o) = self.objects.get(&pid) {
            return o.clone();
        }
        let objects = objects_of(pid, self.held.get(&pid).map(PathBuf::as_path));
        self.objects.insert(pid, objects.clone());
        objects
    }

    /// A library process `pid` has not loaded, by the file name a
    /// description's module gives (`libm.so.6`): where `dlopen()` of that
    /// name would find it, named by its file's own name (a link's target
    /// is the file the process will map). Its probes are made before it
    /// is loaded, so that uprobes wait in it for the process to map it.
    /// `None` for a glob, `a.out`, a path, or a name an object the
    /// process has answers to.
    pub(crate) fn unloaded(&mut self, pid: u32, name: &str) -> Option<Object> {
        if name.is_empty() || name == "a.out" || name.contains('/') || has_glob(name) {
            return None;
        }
        let objects = self.objects(pid);
        if objects.iter().any(|o| o.name == name) {
            return None;
        }
        if let Some(found) = self.unloaded.get(&(pid, name.to_string())) {
            return found.clone();
        }
        let found = unloaded_object(pid, self.held.contains_key(&pid), &objects, name);
        self.unloaded.insert((pid, name.to_string()), found.clone());
        found
    }

    pub(crate) fn funcs(&mut self, path: &Path) -> &[Func] {
        self.funcs
            .entry(path.to_path_buf())
            .or_insert_with(|| read_funcs(path))
    }
}

/// The objects of process `pid`: those of its executable `held` if it is
/// a command held before its exec, else those it maps.
pub(crate) fn objects_of(pid: u32, held: Option<&Path>) -> Vec<Object> {
    match held {
        Some(exe) => needed_objects(exe),
        None => mapped_objects(pid),
    }
}

/// One object of a process: its name as a probe's module, where dtrace
/// opens it (and attaches uprobes to it), the file as the process names
/// it, and whether it is the executable (which also answers to `a.out`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Object {
    pub name: String,
    /// The file dtrace reads: `file` when that is the very file the
    /// process maps, else the process's own view of it,
    /// `/proc/PID/map_files/START-END` (a library replaced on disk since
    /// it was mapped, a deleted executable, a file of another mount
    /// namespace, as a container's).
    pub path: PathBuf,
    /// The file as the process names it.
    pub file: PathBuf,
    pub exe: bool,
}

/// A function: its name and where it starts in its file.
#[derive(Clone, Debug)]
pub(crate) struct Func {
    pub name: String,
    pub offset: u64,
    pub size: u64,
}

/// The base name of a path.
pub(crate) fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The executable and shared objects a running process maps, in the
/// order of their first mapping, each once (by device and inode, not by
/// name: two files of one name, a replaced library and its successor,
/// are two objects).
pub(crate) fn mapped_objects(pid: u32) -> Vec<Object> {
    use std::os::unix::fs::MetadataExt;
    // The executable by its identity: its path may be gone or another.
    let exe = std::fs::metadata(format!("/proc/{}/exe", pid))
        .ok()
        .map(|m| (dev_text(m.dev()), m.ino()));
    let Ok(maps) = dtrace_sys::process::read_maps(pid) else {
        return Vec::new();
    };
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for m in maps.iter().filter(|m| m.is_file_code()) {
        let file = PathBuf::from(&m.path);
        let id = (m.dev.clone(), m.inode);
        if !seen.insert(id.clone()) {
            continue;
        }
        // The name the process gives it is dtrace's way to the same file
        // only if it leads to the same device and inode here.
        let same =
            std::fs::metadata(&file).is_ok_and(|md| dev_text(md.dev()) == id.0 && md.ino() == id.1);
        let open = if same { file.clone() } else { m.map_file(pid) };
        out.push(Object {
            name: file_name(&file),
            exe: exe.as_ref() == Some(&id),
            path: open,
            file,
        });
    }
    out
}

/// A device number as /proc/PID/maps writes it (`fe:00`: major and
/// minor in hexadecimal, as glibc's `major()` and `minor()` split it).
fn dev_text(dev: u64) -> String {
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    format!("{:02x}:{:02x}", major, minor)
}

/// A command's executable and the libraries it will load, breadth first
/// as the dynamic linker loads them.
pub(crate) fn needed_objects(exe: &Path) -> Vec<Object> {
    // Named as the process will map them: by their files' own names,
    // not a link's (`libstdc++.so.6` is `libstdc++.so.6.0.30`).
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    // A script runs its `#!` interpreter: that is the executable.
    let exe = interpreter(exe).unwrap_or_else(|| exe.to_path_buf());
    let exe = real(&exe);
    let mut out = vec![Object {
        name: file_name(&exe),
        path: exe.clone(),
        file: exe.clone(),
        exe: true,
    }];
    let mut seen: HashSet<String> = HashSet::new();
    let mut i = 0;
    while i < out.len() && out.len() < 256 {
        let path = out[i].path.clone();
        i += 1;
        // Read as far as the dynamic section needs, not whole.
        let Ok(file) = std::fs::File::open(&path) else {
            continue;
        };
        let cache = ReadCache::new(file);
        let Some(dynamic) = elf_dynamic(&cache) else {
            continue;
        };
        let origin = path.parent().unwrap_or(Path::new("/")).to_path_buf();
        for lib in dynamic.needed {
            if !seen.insert(lib.clone()) {
                continue;
            }
            if let Some(found) = find_library(&lib, &dynamic.runpath, &origin) {
                let path = real(&found);
                if out.iter().all(|o| o.path != path) {
                    out.push(Object {
                        name: file_name(&path),
                        file: path.clone(),
                        path,
                        exe: false,
                    });
                }
            }
        }
    }
    out
}

/// The interpreter a script's `#!` line names (the kernel runs it in the
/// script's place), as the kernel finds it: an absolute path, the first
/// word after `#!`. One level only, as the kernel allows a few; `None` for
/// a file that is not such a script.
pub(crate) fn interpreter(path: &Path) -> Option<PathBuf> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(path).ok()?.read(&mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = &line[..line.iter().position(|&c| c == b'\n')?];
    let word = String::from_utf8_lossy(line)
        .split_whitespace()
        .next()?
        .to_string();
    word.starts_with('/').then(|| PathBuf::from(word))
}

/// Directories the dynamic linker searches after an object's own paths.
const LIBRARY_DIRS: &[&str] = &[
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
    "/lib64",
    "/usr/lib64",
    "/lib",
    "/usr/lib",
    "/usr/local/lib",
];

/// The library `name` that process `pid` (a command `held` before its
/// exec, or not), whose objects are `objects`, has not loaded: see
/// `ProcessObjects::unloaded`.
pub(crate) fn unloaded_object(
    pid: u32,
    held: bool,
    objects: &[Object],
    name: &str,
) -> Option<Object> {
    if name.is_empty() || name == "a.out" || name.contains('/') || has_glob(name) {
        return None;
    }
    if objects.iter().any(|o| o.name == name) {
        return None;
    }
    let exe = objects.iter().find(|o| o.exe).map(|o| o.file.clone());
    dlopen_path(pid, held, exe.as_deref(), name)
        .map(|p| std::fs::canonicalize(&p).unwrap_or(p))
        .filter(|p| objects.iter().all(|o| &o.file != p))
        .map(|path| Object {
            name: file_name(&path),
            file: path.clone(),
            path,
            exe: false,
        })
}

/// Where `dlopen(name)` in process `pid` would find library `name` (no
/// `/` in it): in `LD_LIBRARY_PATH` (the process's, or for a command
/// `held` before its exec, dtrace's own, which it inherits), then the
/// executable's `DT_RUNPATH`/`DT_RPATH`, then the usual directories;
/// failing those, in the process's working directory and the
/// executable's, where programs keep the plug-ins they open by path
/// (`dlopen("./plugin.so")`).
fn dlopen_path(pid: u32, held: bool, exe: Option<&Path>, name: &str) -> Option<PathBuf> {
    let env_path = if held {
        std::env::var("LD_LIBRARY_PATH").ok()
    } else {
        std::fs::read(format!("/proc/{}/environ", pid))
            .ok()
            .and_then(|env| {
                env.split(|&b| b == 0)
                    .find_map(|kv| kv.strip_prefix(b"LD_LIBRARY_PATH=").map(<[u8]>::to_vec))
            })
            .map(|v| String::from_utf8_lossy(&v).into_owned())
    };
    let origin = exe.and_then(Path::parent).map(Path::to_path_buf);
    let runpath = exe
        .and_then(|e| std::fs::File::open(e).ok())
        .and_then(|f| elf_dynamic(&ReadCache::new(f)))
        .map(|d| d.runpath)
        .unwrap_or_default();
    let cwd = if held {
        std::env::current_dir().ok()
    } else {
        std::fs::read_link(format!("/proc/{}/cwd", pid)).ok()
    };
    let mut dirs: Vec<PathBuf> = env_path
        .iter()
        .flat_map(|p| p.split(':'))
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .collect();
    if let Some(o) = &origin {
        let o = o.to_string_lossy();
        dirs.extend(
            runpath
                .iter()
                .map(|d| PathBuf::from(d.replace("$ORIGIN", &o))),
        );
    }
    dirs.extend(LIBRARY_DIRS.iter().map(PathBuf::from));
    dirs.extend(cwd);
    dirs.extend(origin);
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}

/// Where the dynamic linker would find library `name`.
fn find_library(name: &str, runpath: &[String], origin: &Path) -> Option<PathBuf> {
    if name.contains('/') {
        let p = PathBuf::from(name);
        return p.is_file().then_some(p);
    }
    let own = runpath
        .iter()
        .map(|d| PathBuf::from(d.replace("$ORIGIN", &origin.to_string_lossy())));
    own.chain(LIBRARY_DIRS.iter().map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// What an ELF object's dynamic section says it needs.
#[derive(Debug, Default, PartialEq)]
struct Dynamic {
    needed: Vec<String>,
    runpath: Vec<String>,
}

/// The `DT_NEEDED` names and `DT_RUNPATH` (or `DT_RPATH`) directories of
/// a 64-bit little-endian ELF file; `None` if it is not one or has no
/// dynamic section. Every read is bounds-checked: the file is untrusted.
fn elf_dynamic<'a, R: ReadRef<'a>>(d: R) -> Option<Dynamic> {
    let bytes = |o: usize, n: usize| d.read_bytes_at(o as u64, n as u64).ok();
    let u16_at = |o: usize| Some(u16::from_le_bytes(bytes(o, 2)?.try_into().ok()?));
    let u32_at = |o: usize| Some(u32::from_le_bytes(bytes(o, 4)?.try_into().ok()?));
    let u64_at = |o: usize| Some(u64::from_le_bytes(bytes(o, 8)?.try_into().ok()?));
    let ident = bytes(0, 6)?;
    // \x7fELF, 64-bit, little-endian.
    if &ident[..4] != b"\x7fELF" || ident[4] != 2 || ident[5] != 1 {
        return None;
    }
    let phoff = usize::try_from(u64_at(32)?).ok()?;
    let phentsize = usize::from(u16_at(54)?);
    let phnum = usize::from(u16_at(56)?);
    if phentsize < 56 {
        return None;
    }
    // (vaddr, offset, filesz) of each loaded segment, and the dynamic one.
    let mut loads = Vec::new();
    let mut dynamic = None;
    for i in 0..phnum.min(512) {
        let ph = phoff.checked_add(i.checked_mul(phentsize)?)?;
        let (ty, offset, vaddr, filesz) = (
            u32_at(ph)?,
            u64_at(ph + 8)?,
            u64_at(ph + 16)?,
            u64_at(ph + 32)?,
        );
        match ty {
            1 => loads.push((vaddr, offset, filesz)),
            2 => dynamic = Some((offset, filesz)),
            _ => {}
        }
    }
    let (dyn_off, dyn_size) = dynamic?;
    let to_file = |vaddr: u64| {
        loads.iter().find_map(|&(v, o, sz)| {
            (vaddr >= v && vaddr - v < sz)
                .then(|| usize::try_from(o.checked_add(vaddr - v)?).ok())?
        })
    };
    let (mut strtab, mut needed, mut paths) = (None, Vec::new(), Vec::new());
    let start = usize::try_from(dyn_off).ok()?;
    let count = usize::try_from(dyn_size / 16).ok()?.min(4096);
    for i in 0..count {
        let at = start.checked_add(16 * i)?;
        let (tag, val) = (u64_at(at)?, u64_at(at + 8)?);
        match tag {
            0 => break,
            1 => needed.push(val),
            5 => strtab = to_file(val),
            15 | 29 => paths.push(val),
            _ => {}
        }
    }
    let strtab = strtab?;
    let string = |off: u64| -> Option<String> {
        let at = (strtab as u64).checked_add(off)?;
        let s = d.read_bytes_at_until(at..at.saturating_add(4096), 0).ok()?;
        Some(String::from_utf8_lossy(s).into_owned())
    };
    Some(Dynamic {
        needed: needed.into_iter().filter_map(string).collect(),
        runpath: paths
            .into_iter()
            .filter_map(string)
            .flat_map(|p| p.split(':').map(str::to_string).collect::<Vec<_>>())
            .filter(|p| !p.is_empty())
            .collect(),
    })
}

/// A loaded segment of an ELF file (a `PT_LOAD` program header): what
/// the kernel maps, and so where an address is in the file.
#[derive(Clone, Copy, Debug)]
struct Segment {
    vaddr: u64,
    offset: u64,
    filesz: u64,
    memsz: u64,
    flags: u32,
}

impl Segment {
    /// The file offset of `addr` if the segment's bytes in the file hold it.
    fn file_offset(&self, addr: u64) -> Option<u64> {
        (addr >= self.vaddr && addr - self.vaddr < self.filesz)
            .then(|| self.offset.checked_add(addr - self.vaddr))?
    }
}

/// The loaded segments of an ELF file, from its program headers alone
/// (a damaged section header table does not stop them).
fn segments<'a, R: ReadRef<'a>>(
    header: &elf::FileHeader64<Endianness>,
    endian: Endianness,
    data: R,
) -> Vec<Segment> {
    header
        .program_headers(endian, data)
        .unwrap_or(&[])
        .iter()
        .filter(|p| p.p_type(endian) == elf::PT_LOAD)
        .map(|p| Segment {
            vaddr: p.p_vaddr(endian),
            offset: p.p_offset(endian),
            filesz: p.p_filesz(endian),
            memsz: p.p_memsz(endian),
            flags: p.p_flags(endian),
        })
        .collect()
}

/// The loaded segments of the ELF file at `path`; None if it cannot be
/// read as one.
fn load_segments(path: &Path) -> Option<Vec<Segment>> {
    let file = std::fs::File::open(path).ok()?;
    let data = ReadCache::new(file);
    let header = elf::FileHeader64::<Endianness>::parse(&data).ok()?;
    let endian = header.endian().ok()?;
    Some(segments(header, endian, &data))
}

/// An object's functions, from its ELF symbol tables: each name once
/// (the first found), with its file offset. The offset is where the
/// kernel maps the function's address from, by the program headers (as
/// exec and the dynamic linker map the file), not by the section
/// headers the symbol tables point into, which a damaged file may have
/// wrong (a `.text` header moved would put every uprobe off its
/// instruction); a function outside the executable segments is no code
/// to probe and is left out.
pub(crate) fn read_funcs(path: &Path) -> Vec<Func> {
    let segments = load_segments(path);
    let inspector = Inspector::new();
    let src = Source::Elf(Elf {
        debug_syms: false,
        ..Elf::new(path)
    });
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let _ = inspector.for_each(&src, |sym| {
        if sym.sym_type == SymType::Function && !sym.name.is_empty() {
            let offset = match &segments {
                Some(segs) => segs
                    .iter()
                    .filter(|s| s.flags & elf::PF_X != 0)
                    .find_map(|s| s.file_offset(sym.addr)),
                None => sym.file_offset,
            };
            if let Some(offset) = offset {
                if seen.insert(sym.name.to_string()) {
                    out.push(Func {
                        name: sym.name.to_string(),
                        offset,
                        size: sym.size.unwrap_or(0) as u64,
                    });
                }
            }
        }
        ControlFlow::Continue(())
    });
    out
}

/// A USDT probe of an object (a `stapsdt` note): its provider and name
/// as written (`function__entry`), where it is (link-time address and
/// file offset), its semaphore's file offset if it has one, its
/// arguments' descriptions (`-4@%eax 8@-8(%rbp)`), and the function it
/// is in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SdtNote {
    pub provider: String,
    pub name: String,
    pub vaddr: u64,
    pub offset: u64,
    pub semaphore: Option<u64>,
    /// Why the kernel cannot count its semaphore, if it cannot: it counts
    /// a 2-byte word in a private writable mapping of the file.
    pub semaphore_problem: Option<&'static str>,
    pub args: String,
    pub function: String,
}

/// The USDT probes of an ELF file (none if it is not one or has none).
/// The file is read as far as needed (its headers, notes and symbol
/// tables), not whole: a description like `python*:::` reads every
/// object of every process.
pub(crate) fn read_notes(path: &Path) -> Vec<SdtNote> {
    match std::fs::File::open(path) {
        Ok(f) => parse_notes(&ReadCache::new(f)),
        Err(_) => Vec::new(),
    }
}

/// The `stapsdt` notes (type 3) of a 64-bit ELF image, each place moved
/// as its `.stapsdt.base` section was (prelinking), and placed in the
/// file through the loaded segments. A note whose place is in no segment
/// is left out. Every read is checked by `object`: the file is
/// untrusted.
pub(crate) fn parse_notes<'a, R: ReadRef<'a>>(data: R) -> Vec<SdtNote> {
    let mut out = Vec::new();
    let Ok(file) = ElfFile64::<Endianness, R>::parse(data) else {
        return out;
    };
    let endian = file.endian();
    let header = file.elf_header();
    let Ok(sections) = header.sections(endian, data) else {
        return out;
    };
    let section = |name: &[u8]| {
        sections
            .iter()
            .find(|s| sections.section_name(endian, s) == Ok(name))
    };
    let Some(note_section) = section(b".note.stapsdt") else {
        return out;
    };
    let base = section(b".stapsdt.base").map(|s| s.sh_addr(endian));
    let loads = segments(header, endian, data);
    let to_file = |vaddr: u64| loads.iter().find_map(|s| s.file_offset(vaddr));
    // A semaphore the kernel cannot count: one in no segment, or in a
    // segment the process cannot write (the kernel refuses the whole
    // attachment for it, EINVAL).
    let semaphore_problem = |sem: u64| match loads
        .iter()
        .find(|s| sem >= s.vaddr && sem - s.vaddr < s.memsz)
    {
        None => Some("its semaphore is in no segment of the file"),
        Some(s) if s.flags & elf::PF_W == 0 => {
            Some("its semaphore is in a read-only segment, where the kernel cannot count")
        }
        Some(_) => None,
    };
    // Every probe place is a one-byte `nop` (sys/sdt.h, `dtrace -h`, the
    // `probe` crate). The base's move is followed, as prelink meant, but
    // not onto a byte that is no `nop` from one that is: a Rust binary
    // linked by lld can have notes whose base names another copy of the
    // `.stapsdt.base` comdat than the one kept, with places that are
    // right as written.
    let is_nop = |vaddr: u64| {
        let off = to_file(vaddr)?;
        Some(data.read_bytes_at(off, 1).ok()? == [0x90])
    };
    let funcs = function_symbols(&file, data);
    let Ok(Some(mut notes)) = note_section.notes(endian, data) else {
        return out;
    };
    while let Ok(Some(note)) = notes.next() {
        if note.name() != b"stapsdt" || note.n_type(endian) != 3 {
            continue;
        }
        let desc = note.desc();
        let word = |i: usize| {
            let b: [u8; 8] = desc.get(8 * i..8 * i + 8)?.try_into().ok()?;
            Some(if endian == Endianness::Little {
                u64::from_le_bytes(b)
            } else {
                u64::from_be_bytes(b)
            })
        };
        let (Some(mut pc), Some(note_base), Some(sem)) = (word(0), word(1), word(2)) else {
            continue;
        };
        if let (Some(b), true) = (base, note_base != 0) {
            let moved = pc.wrapping_add(b.wrapping_sub(note_base));
            if moved != pc && !(is_nop(moved) == Some(false) && is_nop(pc) == Some(true)) {
                pc = moved;
            }
        }
        let mut strings = desc[24..]
            .split(|&c| c == 0)
            .map(|s| String::from_utf8_lossy(s).into_owned());
        let (Some(provider), Some(name)) = (strings.next(), strings.next()) else {
            continue;
        };
        let args = strings.next().unwrap_or_default();
        let Some(offset) = to_file(pc) else {
            continue;
        };
        if provider.is_empty() || name.is_empty() {
            continue;
        }
        let function = funcs
            .iter()
            .find(|(a, sz, _)| pc >= *a && pc - a < (*sz).max(1))
            .map(|f| f.2.clone())
            .unwrap_or_default();
        out.push(SdtNote {
            provider,
            name,
            vaddr: pc,
            offset,
            semaphore: if sem == 0 { None } else { to_file(sem) },
            semaphore_problem: if sem == 0 {
                None
            } else {
                semaphore_problem(sem)
            },
            args,
            function,
        });
    }
    out
}

/// What this project's `.note.dtrace` notes (owner `dtrace`) say of an
/// object's providers: their stability attributes (type 1, written by
/// `dtrace -h` headers from `#pragma D attributes`: the provider's name,
/// then its parts' `part Name/Data/Class`), and their probes' argument
/// types (type 2, from `dtrace -h` headers: the provider, the probe's
/// note name, then each argument's type as the definition declares it, a
/// C type or `string`, with a tab and its translated type if it has one;
/// type 3, from the `dtrace-usdt` crate: the same with Rust types, made C
/// ones by `rust_c_type`).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct DtraceNotes {
    /// Provider -> (part, `Name/Data/Class`).
    pub attributes: HashMap<String, Vec<(String, String)>>,
    /// (provider, note name) -> its arguments' types.
    pub types: HashMap<(String, String), Vec<ArgType>>,
}

/// A USDT argument's type as its provider's definition declares it (a C
/// type, or `string`), and the type a translator gives it, if any.
pub(crate) type ArgType = (String, Option<String>);

pub(crate) fn read_dtrace_notes(path: &Path) -> DtraceNotes {
    let mut out = DtraceNotes::default();
    let Ok(f) = std::fs::File::open(path) else {
        return out;
    };
    let cache = ReadCache::new(f);
    let data = &cache;
    let Ok(file) = ElfFile64::<Endianness, _>::parse(data) else {
        return out;
    };
    let endian = file.endian();
    let Ok(sections) = file.elf_header().sections(endian, data) else {
        return out;
    };
    for section in sections.iter() {
        if sections.section_name(endian, section) != Ok(&b".note.dtrace"[..]) {
            continue;
        }
        let Ok(Some(mut notes)) = section.notes(endian, data) else {
            continue;
        };
        while let Ok(Some(note)) = notes.next() {
            if note.name() != b"dtrace" {
                continue;
            }
            let kind = note.n_type(endian);
            let mut strings = note
                .desc()
                .split(|&c| c == 0)
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .filter(|s| !s.is_empty());
            let Some(provider) = strings.next() else {
                continue;
            };
            match kind {
                1 => {
                    let parts: Vec<(String, String)> = strings
                        .filter_map(|s| {
                            let (part, attr) = s.split_once(' ')?;
                            Some((part.to_string(), attr.to_string()))
                        })
                        .collect();
                    out.attributes.entry(provider).or_insert(parts);
                }
                2 | 3 => {
                    let Some(name) = strings.next() else {
                        continue;
                    };
                    let types: Vec<ArgType> = if kind == 2 {
                        strings
                            .map(|t| match t.split_once('\t') {
                                Some((native, x)) => (native.to_string(), Some(x.to_string())),
                                None => (t, None),
                            })
                            .collect()
                    } else {
                        strings
                            .map(|t| (rust_c_type(&t).to_string(), None))
                            .collect()
                    };
                    out.types.entry((provider, name)).or_insert(types);
                }
                _ => {}
            }
        }
    }
    out
}

/// The C type D gives an argument the `dtrace-usdt` crate declares with
/// Rust type `t` (as `stringify!` spells it): integers their size and
/// sign, a `&CStr` D's `string` (read from the process), pointers to C
/// characters `char *`, other pointers and references `void *`,
/// anything else (a type of the program's own) `int64_t`, the word its
/// `Arg` makes.
pub(crate) fn rust_c_type(t: &str) -> &'static str {
    // Lifetimes (`&'a T` is `&T`) and spaces left out.
    let mut plain = String::new();
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\'' {
            while chars
                .next_if(|c| c.is_alphanumeric() || *c == '_')
                .is_some()
            {}
        } else if !c.is_whitespace() {
            plain.push(c);
        }
    }
    let t = plain;
    let last = |s: &str| s.rsplit("::").next().unwrap_or(s).to_string();
    if let Some(inner) = t
        .strip_prefix("*const")
        .or_else(|| t.strip_prefix("*mut"))
        .or_else(|| t.strip_prefix('&'))
    {
        let inner = last(inner.trim_start_matches("mut"));
        return match inner.as_str() {
            // A `&CStr` is always a C string: D's `string`.
            "CStr" if t.starts_with('&') => "string",
            "CStr" | "c_char" | "i8" | "u8" | "c_uchar" | "c_schar" => "char *",
            _ => "void *",
        };
    }
    match last(&t).as_str() {
        "u8" | "c_uchar" => "uint8_t",
        "i8" | "c_char" | "c_schar" => "int8_t",
        "u16" | "c_ushort" => "uint16_t",
        "i16" | "c_short" => "int16_t",
        "u32" | "c_uint" => "uint32_t",
        "i32" | "c_int" => "int32_t",
        "u64" | "c_ulong" | "c_ulonglong" => "uint64_t",
        "i64" | "c_long" | "c_longlong" => "int64_t",
        "usize" => "uintptr_t",
        "isize" => "intptr_t",
        "bool" => "int",
        _ => "int64_t",
    }
}

/// (address, size, name) of an ELF file's function symbols, from its
/// symbol table and dynamic symbol table.
fn function_symbols<'a, R: ReadRef<'a>>(
    file: &ElfFile64<'a, Endianness, R>,
    data: R,
) -> Vec<(u64, u64, String)> {
    let endian = file.endian();
    let mut out = Vec::new();
    let Ok(sections) = file.elf_header().sections(endian, data) else {
        return out;
    };
    for kind in [elf::SHT_SYMTAB, elf::SHT_DYNSYM] {
        let Ok(table) = sections.symbols(endian, data, kind) else {
            continue;
        };
        for sym in table.iter() {
            if sym.st_type() != elf::STT_FUNC || sym.st_value(endian) == 0 {
                continue;
            }
            if let Ok(name) = sym.name(endian, table.strings()) {
                if !name.is_empty() {
                    out.push((
                        sym.st_value(endian),
                        sym.st_size(endian),
                        String::from_utf8_lossy(name).into_owned(),
                    ));
                }
            }
        }
    }
    out
}

/// The address of symbol `name` in an ELF image (its symbol table, then
/// its dynamic one), for a USDT argument given relative to one
/// (`counter(%rip)`).
pub(crate) fn symbol_address(data: &[u8], name: &str) -> Option<u64> {
    let file = ElfFile64::<Endianness>::parse(data).ok()?;
    let endian = file.endian();
    let sections = file.elf_header().sections(endian, data).ok()?;
    [elf::SHT_SYMTAB, elf::SHT_DYNSYM].iter().find_map(|&kind| {
        let table = sections.symbols(endian, data, kind).ok()?;
        table.iter().find_map(|sym| {
            (sym.st_value(endian) != 0
                && sym.name(endian, table.strings()).ok()? == name.as_bytes())
            .then(|| sym.st_value(endian))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_test_finds_its_own_libraries_and_functions() {
        let me = std::env::current_exe().expect("current_exe");
        let objs = needed_objects(&me);
        assert!(objs[0].exe);
        // A Rust test links libc dynamically.
        assert!(
            objs.iter().any(|o| o.name.starts_with("libc.so")),
            "{:?}",
            objs
        );
        let libc = objs.iter().find(|o| o.name.starts_with("libc.so")).unwrap();
        let funcs = read_funcs(&libc.path);
        assert!(funcs.iter().any(|f| f.name == "malloc" && f.offset > 0));
        // The running process maps the same libc.
        let mapped = mapped_objects(std::process::id());
        assert!(mapped.iter().any(|o| o.exe));
        assert!(mapped.iter().any(|o| o.name == libc.name));
    }

    #[test]
    fn rust_types_are_c_types() {
        for (rust, c) in [
            ("u64", "uint64_t"),
            ("i16", "int16_t"),
            ("core::ffi::c_int", "int32_t"),
            ("usize", "uintptr_t"),
            ("bool", "int"),
            ("&CStr", "string"),
            ("& 'static core :: ffi :: CStr", "string"),
            ("&'a CStr", "string"),
            ("*const CStr", "char *"),
            ("&'a mut [u8]", "void *"),
            ("*const core::ffi::c_char", "char *"),
            ("*mut u8", "char *"),
            ("&[u32]", "void *"),
            ("*const core::ffi::c_void", "void *"),
            ("&mut Conn", "void *"),
            ("Conn", "int64_t"),
        ] {
            assert_eq!(rust_c_type(rust), c, "{}", rust);
        }
    }

    #[test]
    fn libraries_not_loaded_are_found_where_dlopen_finds_them() {
        let pid = std::process::id();
        let me = std::env::current_exe().unwrap();
        let objects = vec![Object {
            name: file_name(&me),
            path: me.clone(),
            file: me.clone(),
            exe: true,
        }];
        // The usual directories, by the file's own name.
        let m = unloaded_object(pid, false, &objects, "libm.so.6").expect("libm");
        assert_eq!(m.name, "libm.so.6");
        assert!(m.path.is_absolute() && !m.exe, "{:?}", m);
        // None for what the process has, a glob, a path, or nothing.
        for name in [
            "",
            "a.out",
            "lib*.so",
            "/lib/x86_64-linux-gnu/libm.so.6",
            "libnone.so.9",
        ] {
            assert_eq!(
                unloaded_object(pid, false, &objects, name),
                None,
                "{}",
                name
            );
        }
        assert_eq!(unloaded_object(pid, false, &objects, &file_name(&me)), None);
        // The executable's directory, for plug-ins opened by path.
        let dir = me.parent().unwrap();
        let plug = dir.join(format!("libdtt-plug-{}.so", pid));
        std::fs::write(&plug, b"").unwrap();
        let found = dlopen_path(pid, false, Some(&me), &file_name(&plug));
        let _ = std::fs::remove_file(&plug);
        assert_eq!(found, Some(plug));
    }

    #[test]
    fn scripts_run_their_interpreters() {
        let dir = std::env::temp_dir().join(format!("dtrace-uobj-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let script = dir.join("s");
        std::fs::write(&script, "#!/bin/sh -e\necho hi\n").unwrap();
        assert_eq!(interpreter(&script), Some(PathBuf::from("/bin/sh")));
        std::fs::write(&script, "#! relative\n").unwrap();
        assert_eq!(interpreter(&script), None);
        std::fs::write(&script, "no shebang\n").unwrap();
        assert_eq!(interpreter(&script), None);
        let me = std::env::current_exe().unwrap();
        assert_eq!(interpreter(&me), None);
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        let objs = needed_objects(&script);
        assert!(objs[0].exe && objs[0].name != "s", "{:?}", objs);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn odd_elf_files_are_refused_without_panicking() {
        assert_eq!(elf_dynamic(&b""[..]), None);
        assert_eq!(elf_dynamic(&b"\x7fELF"[..]), None);
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        assert!(elf_dynamic(&me[..]).is_some());
        // Every truncation and a few corruptions: no panic.
        for n in (0..me.len().min(8192)).step_by(7) {
            let _ = elf_dynamic(&me[..n]);
        }
        let mut bad = me[..me.len().min(1 << 16)].to_vec();
        for i in (0..bad.len()).step_by(13) {
            bad[i] ^= 0xff;
            let _ = elf_dynamic(&bad[..]);
        }
    }

    #[test]
    fn objects_are_the_files_the_process_maps() {
        // This test's own process: its executable and libc, each once, by
        // the names it maps them under, readable where dtrace opens them.
        let objects = mapped_objects(std::process::id());
        let exe: Vec<&Object> = objects.iter().filter(|o| o.exe).collect();
        assert_eq!(exe.len(), 1, "{:?}", objects);
        assert_eq!(exe[0].file, std::env::current_exe().unwrap());
        let libc = objects
            .iter()
            .find(|o| o.name == "libc.so.6")
            .expect("libc");
        assert!(std::fs::metadata(&libc.path).is_ok());
        assert_eq!(dev_text(0xfe00), "fe:00");
        assert_eq!(dev_text((259 << 8) | 3), "103:03");
    }
}
