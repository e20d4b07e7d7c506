//! User addresses as text, as DTrace's consumer writes them:
//! `object`function+0xoffset` from the object's ELF symbols (no offset
//! at the function's first byte), `object`0xOFFSET` in an object without
//! a symbol for it, `0xADDR` when the process or the address is unknown.
//! The object is the file's base name. Symbols are read by the
//! `blazesym` crate, by file offset in the object's file.
//!
//! A process's objects must be known to name its addresses, and a
//! process is often gone before its addresses are printed (an
//! aggregation printed at the end of a `-c` command). So:
//! - `ustack()` records each frame as the kernel gives it with
//!   `BPF_F_USER_BUILD_ID` (the object's build ID and the offset in the
//!   file), packed in a word: 31 bits of the build ID and the offset
//!   (`types::USTACK_IP`). Objects are found by build ID among those this module has
//!   seen: the objects of every traced process (`remember_target`, with
//!   a `-c` command's executable and the libraries it needs, known
//!   before it runs), and those of any process whose mappings it read.
//! - `usym()`, `umod()`, `uaddr()` and `%A` record the process ID and the
//!   address; the process's mappings are read when first needed and kept
//!   (`remember_process`), so that they are named after it is gone if it
//!   was seen alive. An address in a process never seen alive is printed
//!   as a number.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use blazesym::symbolize::source::{Elf, Source};
use blazesym::symbolize::{Input, Symbolized, Symbolizer};
use dtrace_lang::types::{ustack_snapshot, USTACK_FP, USTACK_IP};

pub use crate::unwind::How;

thread_local! {
    /// One symbolizer, whose caches of parsed objects outlive a call.
    static SYMBOLIZER: RefCell<Symbolizer> = RefCell::new(Symbolizer::new());
}

/// A file-backed mapping of a process: `[lo, hi)` maps `path` from
/// file offset `offset`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Mapping {
    pub(crate) lo: u64,
    pub(crate) hi: u64,
    pub(crate) offset: u64,
    pub(crate) path: PathBuf,
}

/// What this process knows of traced processes' objects.
#[derive(Default)]
struct Known {
    /// Objects by build ID: the low 30 bits of its first 4 bytes
    /// (native order), as a `ustack()` frame carries it, and the other
    /// way.
    by_build_id: HashMap<u32, PathBuf>,
    key_of: HashMap<PathBuf, u32>,
    /// Files whose build ID has been read.
    read: HashSet<PathBuf>,
    /// Each process's mappings, as last read, and when.
    maps: HashMap<u32, Vec<Mapping>>,
    read_at: HashMap<u32, std::time::Instant>,
    /// Files of other mount namespaces, kept open: by device and inode,
    /// the file and the path of its descriptor.
    foreign: HashMap<(u64, u64), (std::fs::File, PathBuf)>,
    /// Module names of objects read by another path than their own.
    display: HashMap<PathBuf, String>,
    /// Each process's mappings' generation: a new one each time they
    /// are read and found changed.
    generation: HashMap<u32, u64>,
    next_generation: u64,
    /// Commands created held before their exec: their executables, until
    /// their objects are learnt (when a frame's object is first not
    /// known, not before: reading them costs the start-up of every `-c`).
    held: HashMap<u32, PathBuf>,
}

/// The kernel's reports of executable mappings, while a program that
/// records user stacks runs (`dtrace_sys::mmaps`).
fn reports() -> &'static Mutex<Option<dtrace_sys::mmaps::MmapReports>> {
    static REPORTS: OnceLock<Mutex<Option<dtrace_sys::mmaps::MmapReports>>> = OnceLock::new();
    REPORTS.get_or_init(Mutex::default)
}

/// Starts reading the kernel's reports of code mapped by any process,
/// so that a process's objects are known when its stacks are unwound,
/// even once it is gone. Without them (no perf events), mappings are
/// read from `/proc` while processes live, as before.
pub(crate) fn watch_mappings() {
    let cpus = dtrace_sys::cpus::online_cpus().unwrap_or_default();
    let r = dtrace_sys::mmaps::MmapReports::open(&cpus, 64).ok();
    *reports().lock().unwrap_or_else(|e| e.into_inner()) = r;
}

/// Stops reading them (tracing has ended), learning what they hold.
pub(crate) fn unwatch_mappings() {
    drain_mappings();
    *reports().lock().unwrap_or_else(|e| e.into_inner()) = None;
}

/// Learns the mappings reported since the last call.
pub(crate) fn drain_mappings() {
    let mut r = reports().lock().unwrap_or_else(|e| e.into_inner());
    let Some(r) = r.as_mut() else { return };
    with_known(|k| {
        r.drain(|e| match e {
            dtrace_sys::mmaps::MmapEvent::Map {
                pid,
                addr,
                len,
                pgoff,
                dev,
                ino,
                path,
            } => k.mapped(pid, addr, len, pgoff, (dev, ino), path),
            dtrace_sys::mmaps::MmapEvent::Exec { pid } => k.execed(pid),
            dtrace_sys::mmaps::MmapEvent::Lost(_) => {}
        })
    });
}

/// Processes whose mappings are kept at most; beyond, those of processes
/// that are gone are forgotten.
const KEPT_PROCESSES: usize = 8192;

fn known() -> &'static Mutex<Known> {
    static KNOWN: OnceLock<Mutex<Known>> = OnceLock::new();
    KNOWN.get_or_init(Mutex::default)
}

fn with_known<T>(f: impl FnOnce(&mut Known) -> T) -> T {
    let mut k = known().lock().unwrap_or_else(|e| e.into_inner());
    f(&mut k)
}

fn base_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl Known {
    /// A new generation for `pid`'s mappings.
    fn changed(&mut self, pid: u32) {
        self.next_generation += 1;
        self.generation.insert(pid, self.next_generation);
    }

    /// `pid` mapped code of `path` at `[addr, addr + len)` from file
    /// offset `pgoff` (reported by the kernel). A process not known yet
    /// has its other mappings read first, if it lives.
    fn mapped(&mut self, pid: u32, addr: u64, len: u64, pgoff: u64, id: (u64, u64), path: &[u8]) {
        use std::os::unix::ffi::OsStrExt;
        // Files only: perf names anonymous code `//anon`, and the vDSO
        // `[vdso]`.
        if !path.starts_with(b"/") || path.starts_with(b"//") || path.ends_with(b" (deleted)") {
            return;
        }
        if !self.maps.contains_key(&pid) {
            self.forget_gone();
            if self.read_process(pid) {
                return;
            }
        }
        let (lo, hi) = (addr, addr.saturating_add(len));
        let m = self.code_mapping(
            pid,
            lo,
            hi,
            pgoff,
            std::ffi::OsStr::from_bytes(path),
            Some(id),
        );
        let maps = self.maps.entry(pid).or_default();
        maps.retain(|m| m.hi <= lo || m.lo >= hi);
        maps.push(m);
        self.changed(pid);
    }

    /// `pid` executed a program: its mappings are the ones reported
    /// from now on.
    fn execed(&mut self, pid: u32) {
        self.forget_gone();
        self.maps.insert(pid, Vec::new());
        self.read_at.insert(pid, std::time::Instant::now());
        self.changed(pid);
    }

    /// Past `KEPT_PROCESSES`, forgets the processes that are gone.
    fn forget_gone(&mut self) {
        if self.maps.len() < KEPT_PROCESSES {
            return;
        }
        self.maps
            .retain(|pid, _| Path::new(&format!("/proc/{}", pid)).exists());
        let maps = &self.maps;
        self.read_at.retain(|pid, _| maps.contains_key(pid));
        self.generation.retain(|pid, _| maps.contains_key(pid));
    }

    fn learn_object(&mut self, path: &Path) {
        if !self.read.insert(path.to_path_buf()) {
            return;
        }
        if let Ok(Some(id)) = blazesym::helper::read_elf_build_id(path) {
            self.by_build_id
                .insert(build_id_key(&id), path.to_path_buf());
            self.key_of.insert(path.to_path_buf(), build_id_key(&id));
        }
    }

    /// Reads `pid`'s mappings (kept if it has any) and learns their
    /// objects' build IDs.
    fn read_process(&mut self, pid: u32) -> bool {
        let Ok(lines) = dtrace_sys::process::read_maps(pid) else {
            return false;
        };
        let maps: Vec<Mapping> = lines
            .iter()
            .filter(|m| m.is_file_code() && !m.deleted)
            .map(|m| self.code_mapping(pid, m.lo, m.hi, m.offset, m.path.as_ref(), None))
            .collect();
        if maps.is_empty() {
            return false;
        }
        if self.maps.get(&pid) != Some(&maps) {
            self.changed(pid);
        }
        self.maps.insert(pid, maps);
        self.read_at.insert(pid, std::time::Instant::now());
        true
    }

    /// Learns the build IDs of every mapped object not read yet (when a
    /// frame's object is not known: reading them costs a file each).
    fn learn_mapped(&mut self) {
        let paths: HashSet<PathBuf> = self
            .maps
            .values()
            .flatten()
            .map(|m| m.path.clone())
            .filter(|p| !self.read.contains(p))
            .collect();
        for p in paths {
            self.learn_object(&p);
        }
    }

    /// Where `addr` is in `pid`: its file and the offset in it. The
    /// mappings kept are looked in first, then read again if the process
    /// is alive (it may have mapped more since).
    fn place(&mut self, pid: u32, addr: u64) -> Option<(PathBuf, u64)> {
        let find = |k: &Known| {
            k.maps.get(&pid)?.iter().find_map(|m| {
                (m.lo <= addr && addr < m.hi).then(|| (m.path.clone(), addr - m.lo + m.offset))
            })
        };
        if let Some(found) = find(self) {
            return Some(found);
        }
        if self.read_process(pid) {
            return find(self);
        }
        None
    }
}

/// A build ID as a `ustack()` frame carries it.
fn build_id_key(id: &[u8]) -> u32 {
    let mut first = [0u8; 4];
    let n = id.len().min(4);
    first[..n].copy_from_slice(&id[..n]);
    u32::from_ne_bytes(first) & BUILD_ID_KEY
}

/// The bits of a build ID a frame word keeps.
const BUILD_ID_KEY: u32 = 0x3fff_ffff;

/// A process's mappings of code (read now if never read) and their
/// generation, for the unwinder.
pub(crate) fn process_maps(pid: u32) -> Option<(u64, Vec<Mapping>)> {
    with_known(|k| {
        if !k.maps.contains_key(&pid) {
            k.read_process(pid);
        }
        let maps = k.maps.get(&pid)?.clone();
        Some((k.generation.get(&pid).copied().unwrap_or(0), maps))
    })
}

/// A frame at `addr` in `pid` as a word (`types::USTACK_IP`): its
/// object's build ID and the offset in its file, or the marked address
/// where the object is not known or has no build ID.
pub(crate) fn frame_word(pid: u32, addr: u64) -> u64 {
    with_known(|k| {
        let (path, off) = k.place(pid, addr)?;
        k.learn_object(&path);
        let key = *k.key_of.get(&path)?;
        (off <= u64::from(u32::MAX)).then(|| u64::from(key) << 32 | off)
    })
    .unwrap_or(USTACK_IP | addr)
}

/// The separate debug file of the object at `path`, if one is
/// installed: by build ID (`/usr/lib/debug/.build-id/xx/yyyy.debug`),
/// else by its `.gnu_debuglink` name beside it, in its `.debug`
/// directory, or under `/usr/lib/debug` at its own directory, as gdb
/// looks.
pub(crate) fn debug_file(path: &Path) -> Option<PathBuf> {
    use object::Object;
    let bytes = std::fs::read(path).ok()?;
    let file = object::File::parse(&*bytes).ok()?;
    if let Ok(Some(id)) = file.build_id() {
        if id.len() > 1 {
            let hex: String = id.iter().map(|b| format!("{:02x}", b)).collect();
            let p = PathBuf::from(format!(
                "/usr/lib/debug/.build-id/{}/{}.debug",
                &hex[..2],
                &hex[2..]
            ));
            if p.is_file() {
                return Some(p);
            }
        }
    }
    let (name, _crc) = file.gnu_debuglink().ok()??;
    let name = std::str::from_utf8(name).ok()?;
    let dir = path.parent()?;
    let global = Path::new("/usr/lib/debug").join(dir.strip_prefix("/").unwrap_or(dir));
    [
        dir.join(name),
        dir.join(".debug").join(name),
        global.join(name),
    ]
    .into_iter()
    .find(|p| p.is_file() && p != path)
}

/// Files of other mount namespaces kept open, at most (then they are
/// read through `/proc/PID/root` while the process lives).
const FOREIGN_FILES: usize = 4096;

impl Known {
    /// Whether `pid` sees the files dtrace sees: the same mount
    /// namespace (a process in a container does not; a process may
    /// enter another at any time, so this is asked each time). `None`
    /// when it cannot be told (the process is gone).
    fn same_files(&mut self, pid: u32) -> Option<bool> {
        let ns = |p: &str| std::fs::read_link(format!("/proc/{}/ns/mnt", p)).ok();
        Some(ns(&pid.to_string())? == ns("self")?)
    }

    /// `pid`'s mapping of code at `[lo, hi)` of the file it names `name`,
    /// from file offset `offset`, with the path its file is read by. A
    /// process of another mount namespace (a container) may name another
    /// file by that path: its file is opened through
    /// `/proc/PID/map_files/LO-HI` and kept open, one descriptor a file
    /// (`/proc/self/fd/N` reads it, after the process is gone too), or
    /// else read through `/proc/PID/root` (while it lives).
    ///
    /// `id`, the file's device and inode as the kernel reported them,
    /// tells whether the path still names that file when the process is
    /// gone (by the inode); a path that names another is not read (its
    /// frames show as offsets, not as another file's functions).
    fn code_mapping(
        &mut self,
        pid: u32,
        lo: u64,
        hi: u64,
        offset: u64,
        name: &std::ffi::OsStr,
        id: Option<(u64, u64)>,
    ) -> Mapping {
        use std::os::unix::fs::MetadataExt;
        let shown = Path::new(name);
        let mut path = shown.to_path_buf();
        let in_root = || {
            Path::new(&format!("/proc/{}/root", pid)).join(shown.strip_prefix("/").unwrap_or(shown))
        };
        let same = match self.same_files(pid) {
            Some(same) => same,
            // By the inode alone: on an overlay file system (a
            // container's root, a live system's) the file mapped is the
            // layer's, on another device than the one `stat` tells.
            None => {
                id.is_none_or(|(_, ino)| std::fs::metadata(shown).is_ok_and(|m| m.ino() == ino))
            }
        };
        if !same {
            path = self.foreign_file(pid, lo, hi).unwrap_or_else(in_root);
            self.display.insert(path.clone(), base_name(shown));
        }
        Mapping {
            lo,
            hi,
            offset,
            path,
        }
    }

    /// The file `pid` maps at `[lo, hi)`, opened and kept open: the path
    /// of its descriptor.
    fn foreign_file(&mut self, pid: u32, lo: u64, hi: u64) -> Option<PathBuf> {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::MetadataExt;
        let f = std::fs::File::open(format!("/proc/{}/map_files/{:x}-{:x}", pid, lo, hi)).ok()?;
        let md = f.metadata().ok()?;
        let id = (md.dev(), md.ino());
        if let Some((_, p)) = self.foreign.get(&id) {
            return Some(p.clone());
        }
        if self.foreign.len() >= FOREIGN_FILES {
            return None;
        }
        let p = PathBuf::from(format!("/proc/self/fd/{}", f.as_raw_fd()));
        self.foreign.insert(id, (f, p.clone()));
        Some(p)
    }
}

/// The module name of an object read by `path`: the base name of the
/// file as its process names it.
fn module_name(path: &Path) -> String {
    with_known(|k| k.display.get(path).cloned()).unwrap_or_else(|| base_name(path))
}

/// Notes a traced process: a command created held before its exec
/// (`held`, its executable) has its objects (the executable and the
/// libraries it will load) learnt when a frame's object is first not
/// known.
pub fn remember_target(pid: u32, held: Option<&Path>) {
    if let Some(exe) = held {
        with_known(|k| {
            k.held.insert(pid, exe.to_path_buf());
        })
    }
}

/// Learns the objects of the held commands not yet learnt, and of every
/// process whose mappings were read.
fn learn_held() {
    with_known(Known::learn_mapped);
    let held: Vec<(u32, PathBuf)> = with_known(|k| k.held.drain().collect());
    for (pid, exe) in held {
        let files = dtrace_providers::process_files(pid, Some(&exe));
        with_known(|k| {
            for f in &files {
                k.learn_object(f);
            }
        });
    }
}

/// Reads and keeps a process's mappings now, while it lives.
pub fn remember_process(pid: u32) {
    with_known(|k| {
        k.read_process(pid);
    })
}

/// As `remember_process`, unless they were read in the last 100 ms: for
/// a traced process, while it runs (it maps more as it goes).
pub fn refresh_process(pid: u32) {
    with_known(|k| {
        let fresh = k
            .read_at
            .get(&pid)
            .is_some_and(|t| t.elapsed() < std::time::Duration::from_millis(100));
        if !fresh {
            k.read_process(pid);
        }
    })
}

/// The function holding `offset` in the file: its name and the offset
/// into it. From the object's own symbols (`.symtab`, `.dynsym`, or
/// the `.symtab` of its MiniDebugInfo, `.gnu_debugdata`), else from its
/// separate debug file's (`debug_file`), by address.
fn symbol_at(path: &Path, offset: u64) -> Option<(String, u64)> {
    let found = symbolize(path, Input::FileOffset(offset));
    if found.is_some() {
        return found;
    }
    let (debug, svma) = debug_place(path, offset)?;
    symbolize(&debug, Input::VirtOffset(svma))
}

fn symbolize(path: &Path, input: Input<u64>) -> Option<(String, u64)> {
    let src = Source::Elf(Elf {
        debug_syms: false,
        ..Elf::new(path)
    });
    SYMBOLIZER.with(|s| {
        let s = s.borrow();
        match s.symbolize_single(&src, input) {
            Ok(Symbolized::Sym(sym)) => Some((sym.name.to_string(), sym.offset as u64)),
            _ => None,
        }
    })
}

/// An object's separate debug file and its `PT_LOAD` segments (file
/// offset, address, size in the file), by the object's path.
type DebugPlace = Option<(PathBuf, Vec<(u64, u64, u64)>)>;

/// The debug file of the object at `path` and the address there of
/// byte `offset` of the object's file.
fn debug_place(path: &Path, offset: u64) -> Option<(PathBuf, u64)> {
    thread_local! {
        static DEBUG: RefCell<HashMap<PathBuf, DebugPlace>> = RefCell::new(HashMap::new());
    }
    DEBUG.with(|d| {
        let mut d = d.borrow_mut();
        let place = d.entry(path.to_path_buf()).or_insert_with(|| {
            let debug = debug_file(path)?;
            let bytes = std::fs::read(path).ok()?;
            let file = object::File::parse(&*bytes).ok()?;
            Some((debug, crate::unwind::load_segments(&file)))
        });
        let (debug, segs) = place.as_ref()?;
        let svma = crate::unwind::svma_of_offset(segs, offset & !0xfff)? + (offset & 0xfff);
        Some((debug.clone(), svma))
    })
}

/// How a user address is printed.
///
/// ```
/// use libdtrace::{Arg, UserHow};
/// fn describe(v: &Arg) -> &'static str {
///     match v {
///         Arg::User(_, UserHow::Sym) => "usym() or ufunc()",
///         Arg::User(_, UserHow::Mod) => "umod()",
///         Arg::User(_, UserHow::Addr) => "uaddr()",
///         _ => "not a user address",
///     }
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UserHow {
    /// `module`function` (`usym()`, `ufunc()`).
    Sym,
    /// The module (`umod()`).
    Mod,
    /// `module`function+0xoff` (`uaddr()`, `%A`, a stack frame).
    Addr,
}

/// An offset in an object as `how` prints it.
fn object_text(path: &Path, offset: u64, how: UserHow) -> String {
    let module = module_name(path);
    if how == UserHow::Mod {
        return module;
    }
    match symbol_at(path, offset) {
        Some((name, off)) if off == 0 || how == UserHow::Sym => format!("{}`{}", module, name),
        Some((name, off)) => format!("{}`{}+0x{:x}", module, name, off),
        None => format!("{}`0x{:x}", module, offset),
    }
}

/// `addr` in process `pid` as `how` prints it.
pub fn user_text(pid: i64, addr: u64, how: UserHow) -> String {
    let place = u32::try_from(pid)
        .ok()
        .filter(|&p| p != 0)
        .and_then(|pid| with_known(|k| k.place(pid, addr)));
    match place {
        Some((path, off)) => object_text(&path, off, how),
        None => format!("0x{:x}", addr),
    }
}

/// `addr` in process `pid` (0: no process) as `%A` prints it: in code
/// no object holds, by the process's perf map if it has one.
pub fn uaddr_text(pid: i64, addr: u64) -> String {
    let text = user_text(pid, addr, UserHow::Addr);
    if text.starts_with("0x") {
        if let Some(t) = jit_text(pid, addr) {
            return t;
        }
    }
    text
}

/// A JIT's code at `addr` in `pid` as its perf map names it,
/// `function+0xoff` (no object holds it), if the map does.
fn jit_text(pid: i64, addr: u64) -> Option<String> {
    let pid = u32::try_from(pid).ok().filter(|&p| p != 0)?;
    let (name, off) = perf_map_symbol(pid, addr)?;
    Some(if off == 0 {
        name
    } else {
        format!("{}+0x{:x}", name, off)
    })
}

/// What a perf map file held when it was read: its modification time
/// and length, and its entries (start, end, name) sorted by start.
type PerfMap = (Option<std::time::SystemTime>, u64, Vec<(u64, u64, String)>);

/// The files a process's perf map may be: in its own mount namespace,
/// named by its own process ID there (`/proc/PID/root/tmp/perf-NSPID.map`,
/// while it lives), then `/tmp/perf-PID.map`.
fn perf_map_paths(pid: u32) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(status) = std::fs::read_to_string(format!("/proc/{}/status", pid)) {
        let nspid = status
            .lines()
            .find_map(|l| l.strip_prefix("NSpid:"))
            .and_then(|l| l.split_whitespace().last())
            .and_then(|p| p.parse::<u32>().ok())
            .unwrap_or(pid);
        out.push(PathBuf::from(format!(
            "/proc/{}/root/tmp/perf-{}.map",
            pid, nspid
        )));
    }
    out.push(PathBuf::from(format!("/tmp/perf-{}.map", pid)));
    out
}

/// Parses a perf map: a line per function, `START SIZE NAME` with START
/// and SIZE in hexadecimal (an optional `0x`).
fn parse_perf_map(text: &str) -> Vec<(u64, u64, String)> {
    let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).ok();
    let mut out: Vec<(u64, u64, String)> = text
        .lines()
        .filter_map(|l| {
            let mut f = l.splitn(3, ' ');
            let start = hex(f.next()?)?;
            let size = hex(f.next()?)?;
            let name = f.next()?.trim_end().to_string();
            Some((start, start.saturating_add(size), name))
        })
        .collect();
    out.sort_by_key(|e| e.0);
    out
}

/// The function of `pid`'s perf map holding `addr`: its name and the
/// offset into it. The map is read again when its file changed (a JIT
/// appends as it compiles).
fn perf_map_symbol(pid: u32, addr: u64) -> Option<(String, u64)> {
    thread_local! {
        static MAPS: RefCell<HashMap<u32, PerfMap>> = RefCell::new(HashMap::new());
    }
    MAPS.with(|m| {
        let mut m = m.borrow_mut();
        let found = perf_map_paths(pid)
            .into_iter()
            .find_map(|p| std::fs::metadata(&p).ok().map(|md| (p, md)));
        if let Some((path, md)) = found {
            let stamp = (md.modified().ok(), md.len());
            let stale = m.get(&pid).is_none_or(|e| (e.0, e.1) != stamp);
            if stale {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                m.insert(pid, (stamp.0, stamp.1, parse_perf_map(&text)));
            }
        }
        let entries = &m.get(&pid)?.2;
        let i = entries.partition_point(|e| e.0 <= addr);
        let (start, end, name) = entries.get(i.checked_sub(1)?)?;
        (addr < *end).then(|| (name.clone(), addr - start))
    })
}

/// A recorded `usym()` value as `how` prints it: the process ID, the
/// address, and the probe's own address as a `ustack()` frame and as a
/// number. The address is placed by the process's mappings, if they are
/// known; else, if the probe's object is known by its build ID, as in
/// that object at the same distance from the probe's place (an address
/// in the probe's own object: `usym(uregs[R_PC])`, `ufunc(ucaller)`).
pub fn pair_text(bytes: &[u8], how: UserHow) -> String {
    let word = |i: usize| {
        bytes
            .get(8 * i..8 * i + 8)
            .map(|w| u64::from_ne_bytes(w.try_into().expect("8 bytes")))
            .unwrap_or(0)
    };
    let (pid, addr, frame, ip) = (word(0) as i64, word(1), word(2), word(3));
    let place = u32::try_from(pid)
        .ok()
        .filter(|&p| p != 0)
        .and_then(|pid| with_known(|k| k.place(pid, addr)));
    if let Some((path, off)) = place {
        return object_text(&path, off, how);
    }
    if frame != 0 && frame & USTACK_IP == 0 && ip != 0 {
        let (id, ip_off) = ((frame >> 32) as u32 & BUILD_ID_KEY, frame & 0xffff_ffff);
        let mut path = with_known(|k| k.by_build_id.get(&id).cloned());
        if path.is_none() {
            learn_held();
            path = with_known(|k| k.by_build_id.get(&id).cloned());
        }
        let off = ip_off.checked_add_signed(addr.wrapping_sub(ip) as i64);
        if let (Some(path), Some(off)) = (path, off) {
            let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            if off < size {
                return object_text(&path, off, how);
            }
        }
    }
    format!("0x{:x}", addr)
}

/// The frames of a recorded `ustack()` as text, innermost first: each
/// by its object's build ID and offset where it is known, else by its
/// address in the process. A snapshot is unwound first.
pub fn ustack_frames(bytes: &[u8]) -> Vec<String> {
    ustack_frames_how(bytes)
        .into_iter()
        .map(|(f, _)| f)
        .collect()
}

/// As `ustack_frames`, with how each frame was found.
pub fn ustack_frames_how(bytes: &[u8]) -> Vec<(String, How)> {
    ustack_places(bytes)
        .into_iter()
        .map(|(place, how)| (place.text(UserHow::Addr), how))
        .collect()
}

/// Where a user stack's frame is.
pub(crate) enum UPlace {
    /// In an object: its file and the offset in it.
    Object(PathBuf, u64),
    /// In code no object holds, named by the process's perf map (JIT).
    Jit(String),
    /// Nowhere known: the address in the process (or an object's offset
    /// whose object is unknown).
    Unknown(u64),
}

impl UPlace {
    /// The frame as `how` prints it.
    pub(crate) fn text(&self, how: UserHow) -> String {
        match self {
            UPlace::Object(path, off) => object_text(path, *off, how),
            UPlace::Jit(t) => t.clone(),
            UPlace::Unknown(a) => format!("0x{:x}", a),
        }
    }
}

/// The frames of a recorded `ustack()`, innermost first: where each is
/// and how it was found. A snapshot is unwound first.
pub(crate) fn ustack_places(bytes: &[u8]) -> Vec<(UPlace, How)> {
    if crate::unwind::is_snapshot(bytes) {
        return ustack_places(&crate::unwind::unwind(bytes));
    }
    let mut words = bytes
        .chunks_exact(8)
        .map(|w| u64::from_ne_bytes(w.try_into().expect("8 bytes")));
    let head = words.next().unwrap_or(0);
    let pid = (head & u64::from(u32::MAX)) as i64;
    let jit = head & ustack_snapshot::JIT_PID != 0;
    let mut out = Vec::new();
    for (i, w) in words.take_while(|&w| w != 0).enumerate() {
        let how = match i {
            0 => How::Pc,
            _ if w & USTACK_FP != 0 => How::FramePointer,
            _ => How::Cfi,
        };
        let w = w & !USTACK_FP;
        if w & USTACK_IP != 0 {
            let addr = w & !USTACK_IP;
            let place = match jit.then(|| jit_text(pid, addr)).flatten() {
                Some(t) => UPlace::Jit(t),
                None => {
                    let found = u32::try_from(pid)
                        .ok()
                        .filter(|&p| p != 0)
                        .and_then(|p| with_known(|k| k.place(p, addr)));
                    match found {
                        Some((path, off)) => UPlace::Object(path, off),
                        None => UPlace::Unknown(addr),
                    }
                }
            };
            out.push((place, how));
            continue;
        }
        let (id, offset) = ((w >> 32) as u32 & BUILD_ID_KEY, w & 0xffff_ffff);
        let mut path = with_known(|k| k.by_build_id.get(&id).cloned());
        if path.is_none() {
            // An object not seen yet: the process's, if it lives, or a
            // created command's.
            if let Ok(p) = u32::try_from(pid) {
                remember_process(p);
            }
            path = with_known(|k| k.by_build_id.get(&id).cloned());
            if path.is_none() {
                learn_held();
                path = with_known(|k| k.by_build_id.get(&id).cloned());
            }
        }
        let place = match path {
            Some(p) => UPlace::Object(p, offset),
            None => UPlace::Unknown(offset),
        };
        out.push((place, how));
    }
    out
}

/// An object's name as frames show it, and its build ID (hex) where it
/// has one.
pub(crate) fn object_identity(path: &Path) -> (String, Option<String>) {
    let id = blazesym::helper::read_elf_build_id(path)
        .ok()
        .flatten()
        .map(|b| b.iter().map(|x| format!("{:02x}", x)).collect());
    (module_name(path), id)
}

/// A recorded user stack as DTrace prints it: a newline, then each frame
/// on a line of its own after `indent` spaces.
pub fn print_ustack(out: &mut Vec<u8>, bytes: &[u8], indent: usize) {
    out.push(b'\n');
    for f in ustack_frames(bytes) {
        out.extend(std::iter::repeat_n(b' ', indent));
        out.extend_from_slice(f.as_bytes());
        out.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(never)]
    fn a_function_of_ours() -> u64 {
        a_function_of_ours as *const () as usize as u64
    }

    #[test]
    fn symbolizes_this_process() {
        let pid = i64::from(std::process::id());
        let text = uaddr_text(pid, a_function_of_ours() + 1);
        // The symbol as the table has it (Rust's are mangled).
        assert!(text.contains("a_function_of_ours"), "{}", text);
        assert!(text.ends_with("+0x1"), "{}", text);
        let sym = user_text(pid, a_function_of_ours() + 1, UserHow::Sym);
        assert!(!sym.contains("+0x"), "{}", sym);
        let me = std::env::current_exe().unwrap();
        assert_eq!(
            user_text(pid, a_function_of_ours(), UserHow::Mod),
            base_name(&me)
        );
        assert_eq!(uaddr_text(0, 0x1234), "0x1234");
        assert_eq!(uaddr_text(pid, 8), "0x8");
    }

    #[test]
    fn stack_frames_are_named_by_build_id() {
        let me = std::env::current_exe().unwrap();
        let Ok(Some(id)) = blazesym::helper::read_elf_build_id(&me) else {
            // Built without a build ID: nothing to name a frame by.
            return;
        };
        // The function's file offset, from this process's mappings.
        let pid = std::process::id();
        let (path, off) = with_known(|k| k.place(pid, a_function_of_ours())).unwrap();
        assert_eq!(path, me);
        // A process that is not there: the build ID alone names it.
        let words = [
            u64::MAX >> 1,
            (u64::from(build_id_key(&id)) << 32) | (off + 2),
            USTACK_IP | 0x10,
            0,
        ];
        let rec: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
        let frames = ustack_frames(&rec);
        assert_eq!(frames.len(), 2, "{:?}", frames);
        // (Rust's symbols are mangled: the name, a hash, the offset.)
        assert!(
            frames[0].contains("a_function_of_ours") && frames[0].ends_with("+0x2"),
            "{:?}",
            frames
        );
        assert_eq!(frames[1], "0x10");
        let mut out = Vec::new();
        print_ustack(&mut out, &rec, 4);
        assert!(String::from_utf8(out).unwrap().starts_with("\n    "));
        // Short or odd records: no panic.
        for n in 0..rec.len() {
            let _ = ustack_frames(&rec[..n]);
        }
        assert_eq!(pair_text(&[], UserHow::Sym), "0x0");
        // An address placed by the probe's own frame: 2 bytes before it.
        let words = [
            u64::MAX >> 1,
            a_function_of_ours() + 1,
            (u64::from(build_id_key(&id)) << 32) | (off + 3),
            a_function_of_ours() + 3,
        ];
        let rec: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
        let text = pair_text(&rec, UserHow::Addr);
        assert!(
            text.contains("a_function_of_ours") && text.ends_with("+0x1"),
            "{}",
            text
        );
    }

    #[test]
    fn perf_maps_parse() {
        let m = parse_perf_map("7f0010 20 py::f:/x.py\n0x7f0000 10 LazyCompile:*g\nbad line\n");
        assert_eq!(
            m,
            vec![
                (0x7f0000, 0x7f0010, "LazyCompile:*g".to_string()),
                (0x7f0010, 0x7f0030, "py::f:/x.py".to_string())
            ]
        );
    }

    #[test]
    fn file_code_mappings_are_kept() {
        use dtrace_sys::process::parse_maps_line as line;
        let me = std::process::id();
        let keep = |l: &str| {
            let m = line(l)?;
            (m.is_file_code() && !m.deleted).then(|| {
                with_known(|k| k.code_mapping(me, m.lo, m.hi, m.offset, m.path.as_ref(), None))
            })
        };
        let m = keep("7f00-7f80 r-xp 00002000 fe:00 123    /usr/lib/x86_64-linux-gnu/libc.so.6")
            .unwrap();
        assert_eq!((m.lo, m.hi, m.offset), (0x7f00, 0x7f80, 0x2000));
        assert!(keep("7f00-7f80 rw-p 00000000 00:00 0").is_none());
        assert!(keep("7f00-7f80 r-xp 00000000 00:00 0    [vdso]").is_none());
        assert!(keep("7f00-7f80 r-xp 00000000 fe:00 123    /gone (deleted)").is_none());
    }
}
