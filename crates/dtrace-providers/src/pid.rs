//! The pid provider: `pidN:MODULE:FUNCTION:entry`, `:return` and
//! `:OFFSET` (hexadecimal, from the function's first byte) for the
//! functions of process N's executable (module `a.out`) and of the
//! shared objects it maps (by file name: `libc.so.6`).
//! Probes are made on demand, when a description names the provider
//! `pidN` (`pid$target` once `$target` is expanded).
//!
//! A running process's objects are those `/proc/N/maps` maps. A `-c`
//! command is held before its exec while probes are made: its objects
//! are its executable and, found the way the dynamic linker finds them,
//! the libraries it needs (`DT_NEEDED`, through `DT_RUNPATH` and the
//! usual directories), and theirs. Symbols come from each object's ELF
//! symbol tables (`blazesym`'s inspector), functions only.
//!
//! The enabled probes of one process, file and kind (entry and offsets,
//! or return) share a program, attached at each probe's place by one
//! uprobe_multi link (uretprobes at return) for that process, the place's
//! cookie telling the program which probe fired: nothing is written to
//! tracefs, and closing the link removes them all with one wait (uprobe
//! perf events, one per probe, are removed one at a time, about 80 ms
//! each). The program checks the process too, as the file may be mapped
//! by others.

use std::collections::{HashMap, HashSet};
use std::io;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use blazesym::inspect::source::{Elf, Source};
use blazesym::inspect::Inspector;
use blazesym::SymType;
use dtrace_bpf::plan::{ArgContext, DispatchKey, Phase, ProbeEnabling, ProgKind, ProgramPlan};
use dtrace_lang::pdesc::{field_matches, has_glob, ProbeDesc};

use crate::{ArgDesc, Attach, Attributes, Enabled, Planned, PlannedProgram, ProbeSink};
use crate::{ProbeTable, Provider};

/// One object of a process: its name as a probe's module, its file, and
/// whether it is the executable (which also answers to `a.out`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Object {
    name: String,
    path: PathBuf,
    exe: bool,
}

/// A function: its name and where it starts in its file.
#[derive(Clone, Debug)]
struct Func {
    name: String,
    offset: u64,
    size: u64,
}

/// Where a probe fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum At {
    Entry,
    Return,
    /// This many bytes into the function.
    Offset(u64),
}

/// One probe: the process, the object's file, the function's offset in
/// it, and where in the function.
#[derive(Clone, Debug)]
struct PidProbe {
    pid: u32,
    path: PathBuf,
    func_offset: u64,
    at: At,
}

#[derive(Default)]
pub struct Pid {
    probes: Vec<PidProbe>,
    /// Created commands held before their exec, by process ID: their
    /// executables.
    held: HashMap<u32, PathBuf>,
    /// Each process's objects, once listed.
    objects: HashMap<u32, Vec<Object>>,
    /// Each object's functions, once read.
    funcs: HashMap<PathBuf, Vec<Func>>,
}

impl Pid {
    fn objects(&mut self, pid: u32) -> Vec<Object> {
        if let Some(o) = self.objects.get(&pid) {
            return o.clone();
        }
        let objects = match self.held.get(&pid) {
            Some(exe) => needed_objects(exe),
            None => mapped_objects(pid),
        };
        self.objects.insert(pid, objects.clone());
        objects
    }

    fn funcs(&mut self, path: &Path) -> &[Func] {
        self.funcs
            .entry(path.to_path_buf())
            .or_insert_with(|| read_funcs(path))
    }
}

/// The process ID a `pidN` provider name names.
fn pid_of(provider: &str) -> Option<u32> {
    let n = provider.strip_prefix("pid")?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok().filter(|&p| p > 0)
}

/// A probe name that is an offset: hexadecimal digits, as DTrace names
/// them (`1c`).
fn offset_name(name: &str) -> Option<u64> {
    if name.is_empty() || name.len() > 16 || !name.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(name, 16).ok()
}

impl Provider for Pid {
    fn name(&self) -> &str {
        "pid"
    }

    fn attributes(&self) -> Attributes {
        Attributes {
            probe: ("Evolving", "Evolving", "ISA"),
            args: ("Private", "Private", "Unknown"),
        }
    }

    fn provide(&mut self, _sink: &mut ProbeSink<'_>) {}

    /// Process `pid` is a command created to be traced, held before it
    /// execs `exe`: its objects are worked out from the file.
    fn held_target(&mut self, pid: u32, exe: &Path) {
        self.objects.remove(&pid);
        self.held.insert(pid, exe.to_path_buf());
    }

    /// The executable named by its file name (`pid$target:date::entry`)
    /// is `a.out`, the module its probes have.
    fn canonical(&mut self, desc: &ProbeDesc) -> Option<ProbeDesc> {
        let pid = pid_of(&desc.provider)?;
        if desc.module.is_empty() || desc.module == "a.out" || has_glob(&desc.module) {
            return None;
        }
        let exe = self.objects(pid).into_iter().find(|o| o.exe)?;
        (exe.name == desc.module)
            .then(|| ProbeDesc::new(&desc.provider, "a.out", &desc.function, &desc.name))
    }

    /// `pidN:MODULE:FUNCTION:NAME`: the matching functions of N's
    /// objects get their entry and return probes as NAME matches them,
    /// and an offset probe when NAME is one.
    fn provide_named(&mut self, sink: &mut ProbeSink<'_>, desc: &ProbeDesc) {
        let Some(pid) = pid_of(&desc.provider) else {
            return;
        };
        let provider = format!("pid{}", pid);
        let offset = (!has_glob(&desc.name))
            .then(|| offset_name(&desc.name))
            .flatten();
        for obj in self.objects(pid) {
            // The executable is `a.out`, as DTrace calls it.
            let module = if obj.exe { "a.out" } else { obj.name.as_str() };
            if !field_matches(&desc.module, module) {
                continue;
            }
            let funcs: Vec<Func> = self
                .funcs(&obj.path)
                .iter()
                .filter(|f| field_matches(&desc.function, &f.name))
                .cloned()
                .collect();
            for f in funcs {
                let mut at = Vec::new();
                if field_matches(&desc.name, "entry") {
                    at.push((At::Entry, "entry".to_string()));
                }
                if field_matches(&desc.name, "return") {
                    at.push((At::Return, "return".to_string()));
                }
                if let Some(o) = offset.filter(|&o| f.size == 0 || o < f.size) {
                    at.push((At::Offset(o), format!("{:x}", o)));
                }
                for (at, name) in at {
                    if sink.has_as(&provider, module, &f.name, &name) {
                        continue;
                    }
                    self.probes.push(PidProbe {
                        pid,
                        path: obj.path.clone(),
                        func_offset: f.offset,
                        at,
                    });
                    let local = self.probes.len() as u32 - 1;
                    sink.add_as(&provider, module, &f.name, &name, local);
                }
            }
        }
    }

    /// Only `arg0`..`arg9`: a function's types are not known.
    fn args(&self, _local: u32) -> Option<Vec<ArgDesc>> {
        None
    }

    /// One program for each process, file and kind (entry and offsets,
    /// or return), attached at all its probes' places by one uprobe_multi
    /// link, each place's cookie its probe's dispatch key: detaching them
    /// all is one wait, not one per probe.
    fn plan(&self, table: &ProbeTable, enabled: &[Enabled], out: &mut Planned) -> io::Result<()> {
        // (pid, file, return) -> (offsets, enablings), in first-seen order.
        type Group<'a> = ((u32, &'a Path, bool), Vec<u64>, Vec<ProbeEnabling>);
        let mut groups: Vec<Group> = Vec::new();
        for e in enabled {
            let Some(p) = self.probes.get(e.local as usize) else {
                continue;
            };
            let (ret, offset) = match p.at {
                At::Entry => (false, p.func_offset),
                At::Return => (true, p.func_offset),
                At::Offset(o) => (false, p.func_offset + o),
            };
            let key = (p.pid, p.path.as_path(), ret);
            let at = match groups.iter().position(|g| g.0 == key) {
                Some(i) => i,
                None => {
                    groups.push((key, Vec::new(), Vec::new()));
                    groups.len() - 1
                }
            };
            let g = &mut groups[at];
            let cookie = g.2.len() as u32;
            g.1.push(offset);
            g.2.push(e.enabling(table, cookie));
        }
        for ((pid, path, ret), offsets, probes) in groups {
            out.programs.push(PlannedProgram {
                plan: ProgramPlan {
                    name: format!("dt_pid_{}", if ret { "return" } else { "entry" }),
                    kind: ProgKind::Uprobe,
                    context: ArgContext::Uprobe { ret, pid },
                    phase: Phase::Normal,
                    probes,
                    dispatch: Some(DispatchKey::Cookie),
                    tick_gate: None,
                    guard: None,
                },
                attach: Attach::Uprobe {
                    path: path.to_path_buf(),
                    cookies: (0..offsets.len() as u64).collect(),
                    offsets,
                    ret,
                    pid,
                },
            });
        }
        Ok(())
    }
}

/// The base name of a path.
fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The executable and shared objects a running process maps, in the
/// order of their first mapping.
fn mapped_objects(pid: u32) -> Vec<Object> {
    let exe = std::fs::read_link(format!("/proc/{}/exe", pid)).ok();
    let Ok(maps) = std::fs::read_to_string(format!("/proc/{}/maps", pid)) else {
        return Vec::new();
    };
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for line in maps.lines() {
        // address perms offset dev inode path
        let mut f = line.split_whitespace();
        let (Some(_), Some(perms)) = (f.next(), f.next()) else {
            continue;
        };
        let path: String = f.skip(3).collect::<Vec<_>>().join(" ");
        if !perms.contains('x') || !path.starts_with('/') || path.ends_with(" (deleted)") {
            continue;
        }
        let path = PathBuf::from(path);
        if seen.insert(path.clone()) {
            out.push(Object {
                name: file_name(&path),
                exe: exe.as_deref() == Some(path.as_path()),
                path,
            });
        }
    }
    out
}

/// A command's executable and the libraries it will load, breadth first
/// as the dynamic linker loads them.
fn needed_objects(exe: &Path) -> Vec<Object> {
    let mut out = vec![Object {
        name: file_name(exe),
        path: exe.to_path_buf(),
        exe: true,
    }];
    let mut seen: HashSet<String> = HashSet::new();
    let mut i = 0;
    while i < out.len() && out.len() < 256 {
        let path = out[i].path.clone();
        i += 1;
        let Ok(data) = std::fs::read(&path) else {
            continue;
        };
        let Some(dynamic) = elf_dynamic(&data) else {
            continue;
        };
        let origin = path.parent().unwrap_or(Path::new("/")).to_path_buf();
        for lib in dynamic.needed {
            if !seen.insert(lib.clone()) {
                continue;
            }
            if let Some(found) = find_library(&lib, &dynamic.runpath, &origin) {
                out.push(Object {
                    name: lib,
                    path: found,
                    exe: false,
                });
            }
        }
    }
    out
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
fn elf_dynamic(d: &[u8]) -> Option<Dynamic> {
    let u16_at = |o: usize| Some(u16::from_le_bytes(d.get(o..o + 2)?.try_into().ok()?));
    let u32_at = |o: usize| Some(u32::from_le_bytes(d.get(o..o + 4)?.try_into().ok()?));
    let u64_at = |o: usize| Some(u64::from_le_bytes(d.get(o..o + 8)?.try_into().ok()?));
    // \x7fELF, 64-bit, little-endian.
    if d.get(0..4)? != b"\x7fELF" || *d.get(4)? != 2 || *d.get(5)? != 1 {
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
        let s = d.get(strtab.checked_add(usize::try_from(off).ok()?)?..)?;
        let end = s.iter().position(|&c| c == 0)?;
        Some(String::from_utf8_lossy(&s[..end]).into_owned())
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

/// An object's functions, from its ELF symbol tables: each name once
/// (the first found), with its file offset.
fn read_funcs(path: &Path) -> Vec<Func> {
    let inspector = Inspector::new();
    let src = Source::Elf(Elf {
        debug_syms: false,
        ..Elf::new(path)
    });
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let _ = inspector.for_each(&src, |sym| {
        if sym.sym_type == SymType::Function && !sym.name.is_empty() {
            if let Some(offset) = sym.file_offset {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_names_name_a_process() {
        assert_eq!(pid_of("pid123"), Some(123));
        assert_eq!(pid_of("pid"), None);
        assert_eq!(pid_of("pid0"), None);
        assert_eq!(pid_of("pid12x"), None);
        assert_eq!(pid_of("pid*"), None);
        assert_eq!(pid_of("syscall"), None);
    }

    #[test]
    fn offsets_are_hexadecimal_names() {
        assert_eq!(offset_name("0"), Some(0));
        assert_eq!(offset_name("1c"), Some(0x1c));
        assert_eq!(offset_name("entry"), None);
        assert_eq!(offset_name("return"), None);
        assert_eq!(offset_name(""), None);
        assert_eq!(offset_name("11111111111111111"), None);
    }

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
    fn odd_elf_files_are_refused_without_panicking() {
        assert_eq!(elf_dynamic(b""), None);
        assert_eq!(elf_dynamic(b"\x7fELF"), None);
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        assert!(elf_dynamic(&me).is_some());
        // Every truncation and a few corruptions: no panic.
        for n in (0..me.len().min(8192)).step_by(7) {
            let _ = elf_dynamic(&me[..n]);
        }
        let mut bad = me[..me.len().min(1 << 16)].to_vec();
        for i in (0..bad.len()).step_by(13) {
            bad[i] ^= 0xff;
            let _ = elf_dynamic(&bad);
        }
    }
}
