//! The usdt provider: user-level statically defined probes, the
//! `stapsdt` notes that `sys/sdt.h` (glibc, libstdc++, Python, Postgres)
//! and this project's `dtrace -h` headers put in ELF objects. A probe is
//! `PROVIDERpid:MODULE:FUNCTION:NAME`: the note's provider and the
//! process ID (`python1234`), the object's file name, the function the
//! note is in, and the note's name with each `__` made `-`
//! (`function__entry` is `function-entry`, as DTrace's headers write a
//! `-` of a probe name).
//!
//! Probes are made on demand for the processes a description can name:
//! the one its provider names (`python1234`, `python$target`), every
//! target (`-p`, `-c`) for a description whose provider is a glob or
//! empty (so `dtrace -l -p PID` lists them), and every process for a
//! glob with a fixed start (`python*`). All the probes of one object of
//! one process are made together.
//!
//! Each place is a uprobe, with the note's semaphore (if any) counted by
//! the kernel while it is attached, so that `PROBE_ENABLED()` tests and
//! the `_SEMAPHORE` of `sys/sdt.h` see it. The places of a process and
//! file whose arguments are in the same registers and memory share a
//! program and a uprobe_multi link; each place's cookie tells the
//! program which probe fired.

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};

use dtrace_bpf::hook::{Hook, HookGen, HookRef};
use dtrace_bpf::insn::*;
use dtrace_bpf::layout::regs;
use dtrace_bpf::plan::{ArgContext, DispatchKey, Phase, ProgKind, ProgramPlan};
use dtrace_lang::attr::Attr;
use dtrace_lang::pdesc::{field_matches, has_glob, ProbeDesc};

use crate::places::Groups;
use crate::uobj::{
    objects_of, read_dtrace_notes, read_notes, symbol_address, unloaded_object, ArgType,
    DtraceNotes, Object, SdtNote,
};
use crate::{attrs, ArgDesc, Attributes, Enabled, Planned, PlannedProgram, ProbeSink};
use crate::{ProbeTable, Provider};

/// One place of a probe: its offset in the file, its semaphore's (0 for
/// none), and where its arguments are.
#[derive(Clone, Debug)]
struct Place {
    offset: u64,
    semaphore: u64,
    /// Why the kernel cannot count its semaphore (the place is left out).
    semaphore_problem: Option<&'static str>,
    args: Vec<UsdtArg>,
}

/// A probe: its process and file, its places, and its arguments' sizes
/// (negative if signed) as its first place's note gives them.
#[derive(Clone, Debug)]
struct UsdtProbe {
    pid: u32,
    path: PathBuf,
    places: Vec<Place>,
    sizes: Vec<i8>,
    /// The arguments' C types as the provider's definition declares them
    /// (a `dtrace -h` header or the `dtrace-usdt` crate records them), if
    /// it does, one for each argument.
    types: Option<Vec<ArgType>>,
    attributes: Attributes,
}

/// The usdt provider's own attributes, for probes whose provider says
/// none.
const DEFAULT_ATTRIBUTES: Attributes = attrs::sdt_like(attrs::EVOLVING_ISA);

/// A probe's attributes from its provider's `#pragma D attributes` (as
/// a `dtrace -h` header records them), part by part, a part the
/// definition leaves unsaid (or says wrongly) counting as
/// Private/Private/Unknown (DTrace's `_dtrace_prvattr`). A probe whose
/// object recorded no attributes (a `sys/sdt.h` note) has the defaults.
fn probe_attributes(parts: Option<&Vec<(String, String)>>) -> Attributes {
    let Some(parts) = parts else {
        return DEFAULT_ATTRIBUTES;
    };
    let part = |name: &str| {
        parts
            .iter()
            .find(|p| p.0 == name)
            .and_then(|p| Attr::parse(&p.1).filter(|_| p.1.split('/').count() == 3))
            .unwrap_or(Attr::PRIVATE)
    };
    Attributes {
        provider: part("provider"),
        module: part("module"),
        function: part("function"),
        name: part("name"),
        args: part("args"),
    }
}

#[derive(Default)]
pub struct Usdt {
    probes: Vec<UsdtProbe>,
    /// The traced processes (`-p`, `-c`), with the executable of a
    /// created one held before its exec.
    targets: Vec<(u32, Option<PathBuf>)>,
    /// Each process's objects, once listed.
    objects: HashMap<u32, Vec<Object>>,
    /// Each object's notes, once read.
    notes: HashMap<PathBuf, Vec<SdtNote>>,
    /// Each object's `.note.dtrace` notes (its providers' attributes and
    /// argument types), once read.
    dtrace_notes: HashMap<PathBuf, DtraceNotes>,
    /// The (process, object) pairs whose probes are made.
    made: HashSet<(u32, PathBuf)>,
    /// Each probe's local number by its id.
    by_id: HashMap<u32, u32>,
}

/// A provider name that names a process: the provider and the process ID
/// (`python1234`: `python`, 1234). `pidN` is the pid provider's.
fn split_pid(provider: &str) -> Option<(&str, u32)> {
    let digits = provider.len()
        - provider
            .trim_end_matches(|c: char| c.is_ascii_digit())
            .len();
    let (name, n) = provider.split_at(provider.len() - digits);
    if name.is_empty() || n.is_empty() || name == "pid" || has_glob(name) {
        return None;
    }
    let pid = n.parse().ok().filter(|&p| p > 0)?;
    Some((name, pid))
}

/// A note's probe name as D writes it: each `__` a `-`.
fn probe_name(note: &str) -> String {
    note.replace("__", "-")
}

/// The D type of an argument of `size` bytes (negative if signed).
fn arg_type(size: i8) -> &'static str {
    match size {
        -1 => "int8_t",
        1 => "uint8_t",
        -2 => "int16_t",
        2 => "uint16_t",
        -4 => "int32_t",
        4 => "uint32_t",
        -8 => "int64_t",
        _ => "uint64_t",
    }
}

impl Usdt {
    fn objects(&mut self, pid: u32) -> Vec<Object> {
        if let Some(o) = self.objects.get(&pid) {
            return o.clone();
        }
        let held = self
            .targets
            .iter()
            .find(|t| t.0 == pid)
            .and_then(|t| t.1.clone());
        let objects = objects_of(pid, held.as_deref());
        self.objects.insert(pid, objects.clone());
        objects
    }

    /// The processes a description's provider can name.
    fn candidates(&self, provider: &str) -> Vec<u32> {
        if !has_glob(provider) && !provider.is_empty() {
            return split_pid(provider)
                .map(|(_, p)| vec![p])
                .unwrap_or_default();
        }
        let mut pids: Vec<u32> = self.targets.iter().map(|t| t.0).collect();
        // A glob with a fixed start (`python*`) names a provider in any
        // process, as DTrace's do.
        let fixed = provider
            .chars()
            .next()
            .is_some_and(|c| !matches!(c, '*' | '?' | '[' | '\\'));
        if fixed {
            if let Ok(dir) = std::fs::read_dir("/proc") {
                for e in dir.flatten() {
                    let name = e.file_name();
                    if let Some(pid) = name.to_str().and_then(|n| n.parse::<u32>().ok()) {
                        if pid != std::process::id() && !pids.contains(&pid) {
                            pids.push(pid);
                        }
                    }
                }
            }
        }
        pids
    }

    /// Makes the probes of every object of `pid` whose name `module`
    /// matches.
    fn provide_process(&mut self, sink: &mut ProbeSink<'_>, pid: u32, module: &str) {
        let mut objects = self.objects(pid);
        // A library a target has not loaded, named by its file: its
        // probes wait in it for a dlopen(). (Not for every process a
        // provider glob scans.)
        if let Some(t) = self.targets.iter().find(|t| t.0 == pid) {
            let held = t.1.is_some();
            objects.extend(unloaded_object(pid, held, &objects, module));
        }
        for obj in objects {
            if !field_matches(module, &obj.name) || self.made.contains(&(pid, obj.path.clone())) {
                continue;
            }
            let notes = self
                .notes
                .entry(obj.path.clone())
                .or_insert_with(|| read_notes(&obj.path))
                .clone();
            if notes.is_empty() {
                continue;
            }
            self.made.insert((pid, obj.path.clone()));
            let dnotes = self
                .dtrace_notes
                .entry(obj.path.clone())
                .or_insert_with(|| read_dtrace_notes(&obj.path))
                .clone();
            let mut data = None;
            for note in &notes {
                let provider = format!("{}{}", note.provider, pid);
                let name = probe_name(&note.name);
                let (sizes, args) = parse_args(&note.args, note.vaddr, &mut |sym| {
                    let d =
                        data.get_or_insert_with(|| std::fs::read(&obj.path).unwrap_or_default());
                    symbol_address(d, sym)
                });
                let place = Place {
                    offset: note.offset,
                    semaphore: note.semaphore.unwrap_or(0),
                    semaphore_problem: note.semaphore_problem,
                    args,
                };
                let local = self.probes.len() as u32;
                let id = sink.add_as(&provider, &obj.name, &note.function, &name, local);
                // A probe written twice in a function has two places.
                match self.by_id.get(&id) {
                    Some(&l) => self.probes[l as usize].places.push(place),
                    None => {
                        self.by_id.insert(id, local);
                        let types = dnotes
                            .types
                            .get(&(note.provider.clone(), note.name.clone()))
                            .filter(|t| t.len() == sizes.len())
                            .cloned();
                        self.probes.push(UsdtProbe {
                            pid,
                            path: obj.path.clone(),
                            places: vec![place],
                            sizes,
                            types,
                            attributes: probe_attributes(dnotes.attributes.get(&note.provider)),
                        });
                    }
                }
            }
        }
    }
}

impl Provider for Usdt {
    fn name(&self) -> &str {
        "usdt"
    }

    fn attributes(&self) -> Attributes {
        DEFAULT_ATTRIBUTES
    }

    /// As its provider's `#pragma D attributes` say, where a `dtrace -h`
    /// header recorded them.
    fn probe_attributes(&self, local: u32) -> Attributes {
        self.probes
            .get(local as usize)
            .map_or(DEFAULT_ATTRIBUTES, |p| p.attributes)
    }

    fn provide(&mut self, _sink: &mut ProbeSink<'_>) {}

    fn target(&mut self, pid: u32, held: Option<&Path>) {
        self.objects.remove(&pid);
        self.targets.retain(|t| t.0 != pid);
        self.targets.push((pid, held.map(Path::to_path_buf)));
    }

    fn provide_named(&mut self, sink: &mut ProbeSink<'_>, desc: &ProbeDesc) {
        for pid in self.candidates(&desc.provider) {
            self.provide_process(sink, pid, &desc.module);
        }
    }

    /// Every target's probes: what `dtrace -l -p PID` lists.
    fn provide_all(&mut self, sink: &mut ProbeSink<'_>) {
        let pids: Vec<u32> = self.targets.iter().map(|t| t.0).collect();
        for pid in pids {
            self.provide_process(sink, pid, "");
        }
    }

    /// The C types the provider's definition declares, where its object
    /// records them; else integers of the sizes the note gives.
    fn args(&self, local: u32) -> Option<Vec<ArgDesc>> {
        let p = self.probes.get(local as usize)?;
        if let Some(types) = &p.types {
            // A pointer is an address in the traced process
            // (`stringof(args[0])` reads a `char *` from it).
            // A `string` is the string at that address; so is a
            // `char *` translated to one.
            return Some(
                types
                    .iter()
                    .map(|(t, x)| {
                        let string = x.as_deref() == Some("string");
                        let mut a = ArgDesc::new(if string { "string" } else { t.as_str() }, "");
                        a.user = a.native.ends_with('*') || a.native == "string";
                        a.xlate = x.clone().filter(|_| !string);
                        a
                    })
                    .collect(),
            );
        }
        Some(
            p.sizes
                .iter()
                .map(|&s| ArgDesc::new(arg_type(s), ""))
                .collect(),
        )
    }

    fn plan(&self, table: &ProbeTable, enabled: &[Enabled], out: &mut Planned) -> io::Result<()> {
        // A group per process, file and arguments' shape.
        let mut groups = Groups::new();
        for e in enabled {
            let Some(p) = self.probes.get(e.local as usize) else {
                continue;
            };
            for place in &p.places {
                let g = groups.group(p.pid, &p.path, place.args.as_slice());
                let key = u64::from(g.probe(table, e));
                if !g.has(place.offset) {
                    // A place whose semaphore the kernel cannot count is
                    // left out, and said why; its cookie (the probe's key,
                    // low half, as every place's) is its own, so that the
                    // probe's other places stay.
                    let cookie = match place.semaphore_problem {
                        Some(_) => key | 1 << 32,
                        None => key,
                    };
                    g.place(
                        place.offset,
                        cookie,
                        place.semaphore,
                        place.semaphore_problem,
                    );
                }
            }
        }
        for mut g in groups.into_vec() {
            let attach = g.attach(false);
            out.programs.push(PlannedProgram {
                plan: ProgramPlan {
                    name: "dt_usdt".to_string(),
                    kind: ProgKind::Uprobe,
                    context: ArgContext::Hook(HookRef::new(UsdtProgram {
                        pid: g.pid,
                        args: g.kind.to_vec(),
                    })),
                    phase: Phase::Normal,
                    probes: g.probes,
                    dispatch: Some(DispatchKey::Cookie),
                    tick_gate: None,
                    guard: None,
                    cookie: None,
                },
                attach,
            });
        }
        Ok(())
    }
}

/// The x86-64 registers a note may name: their offset in `struct
/// pt_regs` and their width in bytes.
fn register(name: &str) -> Option<(u16, u8)> {
    const FULL: &[(&str, &str, &str, &str, u16)] = &[
        ("rax", "eax", "ax", "al", 80),
        ("rbx", "ebx", "bx", "bl", 40),
        ("rcx", "ecx", "cx", "cl", 88),
        ("rdx", "edx", "dx", "dl", 96),
        ("rsi", "esi", "si", "sil", 104),
        ("rdi", "edi", "di", "dil", 112),
        ("rbp", "ebp", "bp", "bpl", 32),
        ("rsp", "esp", "sp", "spl", 152),
    ];
    for &(q, d, w, b, off) in FULL {
        for (n, width) in [(q, 8), (d, 4), (w, 2), (b, 1)] {
            if name == n {
                return Some((off, width));
            }
        }
    }
    // r8..r15, with d, w, b (or l) for their low parts.
    let rest = name.strip_prefix('r')?;
    let digits = rest.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let n: u16 = digits.parse().ok().filter(|n| (8..=15).contains(n))?;
    let width = match &rest[digits.len()..] {
        "" => 8,
        "d" => 4,
        "w" => 2,
        "b" | "l" => 1,
        _ => return None,
    };
    // pt_regs: r15 at 0 ... r12 at 24, then bp, bx, r11 at 48 ... r8 at 72.
    let off = if n >= 12 {
        8 * (15 - n)
    } else {
        48 + 8 * (11 - n)
    };
    Some((off, width))
}

/// A number as a note writes one: decimal or `0x` hexadecimal, maybe
/// negative.
fn number(s: &str) -> Option<i64> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(h) => u64::from_str_radix(h, 16).ok()? as i64,
        None => digits.parse::<u64>().ok()? as i64,
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

/// A note's argument descriptions: each argument's size (negative if
/// signed) and where it is. An operand this reader cannot place (a
/// register it does not know, an absolute symbol) reads as 0. `vaddr` is
/// the note's place, for operands relative to `%rip`; `symbol` finds a
/// symbol's address in the note's file.
fn parse_args(
    text: &str,
    vaddr: u64,
    symbol: &mut dyn FnMut(&str) -> Option<u64>,
) -> (Vec<i8>, Vec<UsdtArg>) {
    let mut sizes = Vec::new();
    let mut args = Vec::new();
    for word in text.split_whitespace().take(12) {
        let (size, op) = match word.split_once('@') {
            Some((n, op)) => match n.parse::<i8>() {
                Ok(n) if matches!(n.unsigned_abs(), 1 | 2 | 4 | 8) => (n, op),
                _ => (8, op),
            },
            None => (8, word),
        };
        sizes.push(size);
        let arg = operand(op, size, vaddr, symbol).unwrap_or(UsdtArg::Const(0));
        args.push(arg);
    }
    (sizes, args)
}

fn operand(
    op: &str,
    size: i8,
    vaddr: u64,
    symbol: &mut dyn FnMut(&str) -> Option<u64>,
) -> Option<UsdtArg> {
    let signed = size < 0;
    let bytes = size.unsigned_abs();
    if let Some(imm) = op.strip_prefix('$') {
        let v = number(imm)?;
        return Some(UsdtArg::Const(v));
    }
    if let Some(reg) = op.strip_prefix('%') {
        let (off, width) = register(reg)?;
        return Some(UsdtArg::Reg {
            reg: off,
            size: bytes.min(width),
            signed,
        });
    }
    // disp(%base,%index,scale), each part optional but the parentheses.
    let open = op.find('(')?;
    let inner = op[open + 1..].strip_suffix(')')?;
    let disp_text = &op[..open];
    let mut parts = inner.split(',');
    let base = parts.next().unwrap_or("").trim();
    let index = parts.next().map(str::trim).filter(|s| !s.is_empty());
    let scale = match parts.next() {
        Some(s) => u8::try_from(number(s.trim())?).ok()?,
        None => 1,
    };
    if parts.next().is_some() {
        return None;
    }
    let ip_relative = base == "%rip";
    // sym, sym+N, sym-N, N, or nothing.
    let (sym, n) = match disp_text.find(['+', '-']) {
        _ if disp_text.is_empty() => (None, 0),
        Some(0) | None if number(disp_text).is_some() => (None, number(disp_text)?),
        Some(i) if i > 0 => (Some(&disp_text[..i]), number(&disp_text[i..])?),
        None => (Some(disp_text), 0),
        Some(_) => return None,
    };
    let disp = match sym {
        // A symbol's address relative to the probe's own: the run-time
        // address is the place's plus the difference.
        Some(s) if ip_relative => (symbol(s)?.wrapping_sub(vaddr) as i64).wrapping_add(n),
        Some(_) => return None,
        None => n,
    };
    let reg_of = |r: &str| -> Option<u16> {
        let (off, width) = register(r.strip_prefix('%')?)?;
        (width == 8).then_some(off)
    };
    let base = match base {
        "" | "%rip" => None,
        b => Some(reg_of(b)?),
    };
    let index = match index {
        Some(x) => Some((reg_of(x)?, scale)),
        None => None,
    };
    Some(UsdtArg::Mem {
        base,
        index,
        disp,
        ip_relative,
        size: bytes,
        signed,
    })
}

/// Where a USDT probe's argument is at its place, as its note describes
/// it (`-4@%eax`, `8@-8(%rbp)`, `4@$5`). Registers are offsets in the
/// whole `struct pt_regs`; a value of `size` bytes (1, 2, 4 or 8) is
/// sign-extended if `signed`, else zero-extended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UsdtArg {
    /// A constant.
    Const(i64),
    /// The low `size` bytes of a register.
    Reg { reg: u16, size: u8, signed: bool },
    /// `size` bytes of user memory at `disp` plus register `base`, plus
    /// register `index` times its scale, plus (`ip_relative`) the place's
    /// run-time address (the uprobe's instruction pointer): a symbol's address relative
    /// to the probe's.
    Mem {
        base: Option<u16>,
        index: Option<(u16, u8)>,
        disp: i64,
        ip_relative: bool,
        size: u8,
        signed: bool,
    },
}

/// A USDT probe's program, in process `pid` alone (a file may be mapped
/// by other processes too): each argument where the note says it is.
#[derive(Debug)]
struct UsdtProgram {
    pid: u32,
    args: Vec<UsdtArg>,
}

impl Hook for UsdtProgram {
    fn process(&self) -> Option<u32> {
        Some(self.pid)
    }

    fn load_args(&self, t: &mut HookGen<'_, '_, '_>, _errno: bool) {
        for (i, arg) in self.args.iter().take(10).enumerate() {
            load_usdt_arg(t, i as u32, arg);
        }
        t.zero_args(self.args.len().min(10) as u32);
    }
}

/// USDT argument `i`, where its note says it is (r6: the probe's
/// `pt_regs`). Memory that cannot be read gives 0.
fn load_usdt_arg(t: &mut HookGen<'_, '_, '_>, i: u32, arg: &UsdtArg) {
    let slot = t.arg_slot(i);
    let (size, signed) = match *arg {
        UsdtArg::Const(v) => {
            t.load_imm(R1, v);
            t.store_arg(i, R1);
            return;
        }
        UsdtArg::Reg { reg, size, signed } => {
            t.emit(ldx(Size::DW, R1, R6, reg as i16));
            t.store_arg(i, R1);
            (size, signed)
        }
        UsdtArg::Mem {
            base,
            index,
            disp,
            ip_relative,
            size,
            signed,
        } => {
            // r3 = the address, built in r3 as the helper wants it.
            if ip_relative {
                // The place's address: a uprobe's handlers run with the
                // instruction pointer set back to the probed instruction,
                // on every kernel (bpf_get_func_ip knows a uprobe's only
                // from uprobe_multi links, Linux 6.6).
                t.emit(ldx(Size::DW, R0, R6, regs::IP_FULL as i16));
                t.load_imm(R3, disp);
                t.emit(alu64_reg(Alu::Add, R3, R0));
            } else {
                t.load_imm(R3, disp);
            }
            if let Some(b) = base {
                t.emit(ldx(Size::DW, R1, R6, b as i16));
                t.emit(alu64_reg(Alu::Add, R3, R1));
            }
            if let Some((x, scale)) = index {
                t.emit(ldx(Size::DW, R1, R6, x as i16));
                if scale > 1 {
                    t.emit(alu64_imm(Alu::Mul, R1, i32::from(scale)));
                }
                t.emit(alu64_reg(Alu::Add, R3, R1));
            }
            let n = if matches!(size, 1 | 2 | 4 | 8) {
                size
            } else {
                8
            };
            t.emit(st_imm(Size::DW, R9, slot, 0));
            t.emit(mov64_reg(R1, R9));
            t.emit(alu64_imm(Alu::Add, R1, i32::from(slot)));
            t.emit(mov64_imm(R2, i32::from(n)));
            t.emit(call(Helper::ProbeReadUser));
            // A failed read may leave part of the slot written.
            let ok = t.label();
            t.jmp_imm(Cond::Eq, R0, 0, ok);
            t.emit(st_imm(Size::DW, R9, slot, 0));
            t.bind(ok);
            (n, signed)
        }
    };
    if size < 8 {
        let bits = 64 - 8 * i32::from(size);
        t.emit(ldx(Size::DW, R1, R9, slot));
        t.emit(alu64_imm(Alu::Lsh, R1, bits));
        let shift = if signed { Alu::Arsh } else { Alu::Rsh };
        t.emit(alu64_imm(shift, R1, bits));
        t.store_arg(i, R1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<UsdtArg> {
        parse_args(text, 0x1000, &mut |s| (s == "counter").then_some(0x4010)).1
    }

    #[test]
    fn provider_names_name_a_process() {
        assert_eq!(split_pid("python1234"), Some(("python", 1234)));
        assert_eq!(split_pid("libstdcxx7"), Some(("libstdcxx", 7)));
        assert_eq!(split_pid("python"), None);
        assert_eq!(split_pid("1234"), None);
        assert_eq!(split_pid("pid1234"), None);
        assert_eq!(split_pid("py*1"), None);
        assert_eq!(split_pid("python0"), None);
    }

    #[test]
    fn note_names_are_written_with_dashes() {
        assert_eq!(probe_name("function__entry"), "function-entry");
        assert_eq!(probe_name("throw"), "throw");
    }

    #[test]
    fn registers_are_found_in_pt_regs() {
        assert_eq!(register("rax"), Some((80, 8)));
        assert_eq!(register("eax"), Some((80, 4)));
        assert_eq!(register("dil"), Some((112, 1)));
        assert_eq!(register("r15"), Some((0, 8)));
        assert_eq!(register("r12d"), Some((24, 4)));
        assert_eq!(register("r11"), Some((48, 8)));
        assert_eq!(register("r8b"), Some((72, 1)));
        assert_eq!(register("r16"), None);
        assert_eq!(register("xmm0"), None);
    }

    #[test]
    fn argument_descriptions_are_placed() {
        assert_eq!(
            args("-4@%eax 8@%rbp"),
            vec![
                UsdtArg::Reg {
                    reg: 80,
                    size: 4,
                    signed: true
                },
                UsdtArg::Reg {
                    reg: 32,
                    size: 8,
                    signed: false
                },
            ]
        );
        assert_eq!(
            args("4@$5 -8@$-3"),
            vec![UsdtArg::Const(5), UsdtArg::Const(-3)]
        );
        assert_eq!(
            args("-4@112(%rsp)"),
            vec![UsdtArg::Mem {
                base: Some(152),
                index: None,
                disp: 112,
                ip_relative: false,
                size: 4,
                signed: true
            }]
        );
        assert_eq!(
            args("8@-80(%rbx,%rcx,8) 2@(%rdi)"),
            vec![
                UsdtArg::Mem {
                    base: Some(40),
                    index: Some((88, 8)),
                    disp: -80,
                    ip_relative: false,
                    size: 8,
                    signed: false
                },
                UsdtArg::Mem {
                    base: Some(112),
                    index: None,
                    disp: 0,
                    ip_relative: false,
                    size: 2,
                    signed: false
                },
            ]
        );
        // A symbol relative to %rip: its distance from the probe.
        assert_eq!(
            args("-4@counter+4(%rip)"),
            vec![UsdtArg::Mem {
                base: None,
                index: None,
                disp: 0x3014,
                ip_relative: true,
                size: 4,
                signed: true
            }]
        );
        // What cannot be placed reads 0; the sizes are still told.
        let (sizes, a) = parse_args("4@%xmm0 8@other(%rip) %rdi", 0, &mut |_| None);
        assert_eq!(sizes, vec![4, 8, 8]);
        assert_eq!(a[0], UsdtArg::Const(0));
        assert_eq!(a[1], UsdtArg::Const(0));
        assert!(matches!(a[2], UsdtArg::Reg { reg: 112, .. }));
        for bad in [
            "",
            "@",
            "8@",
            "8@(",
            "8@()",
            "8@1(%rax,%rbx,x)",
            "8@$x",
            "99@%rax",
        ] {
            let _ = parse_args(bad, 0, &mut |_| None);
        }
    }

    #[test]
    fn attributes_are_the_lowest_of_the_descriptions_parts() {
        let triple = |t: &str| t.to_string();
        // Each element's lowest comes from another part.
        let parts = vec![
            ("provider".to_string(), triple("Evolving/Evolving/Common")),
            ("module".to_string(), triple("Evolving/Stable/ISA")),
            ("function".to_string(), triple("Stable/Evolving/Common")),
            ("name".to_string(), triple("Stable/Stable/Common")),
            ("args".to_string(), triple("Private/Private/Unknown")),
        ];
        let a = probe_attributes(Some(&parts));
        let full = ProbeDesc::parse("p1:m:f:n").unwrap();
        assert_eq!(a.describe(&full).to_string(), "Evolving/Evolving/ISA");
        assert_eq!(a.args, Attr::PRIVATE);
        // A part left unsaid is Private/Private/Unknown, as DTrace's.
        let provider_only = vec![("provider".to_string(), triple("Stable/Evolving/Common"))];
        let a = probe_attributes(Some(&provider_only));
        assert_eq!(a.describe(&full), Attr::PRIVATE);
        assert_eq!(a.args, Attr::PRIVATE);
        // No attributes recorded at all: the provider's defaults.
        assert_eq!(probe_attributes(None), DEFAULT_ATTRIBUTES);
        let bad = vec![("name".to_string(), triple("Shiny/Evolving/Common"))];
        assert_eq!(probe_attributes(Some(&bad)).name, Attr::PRIVATE);
    }

    #[test]
    fn python_and_libstdcxx_notes_are_read_where_installed() {
        // Debian builds both with sys/sdt.h; skipped where they are not.
        for path in ["/usr/bin/python3", "/lib/x86_64-linux-gnu/libstdc++.so.6"] {
            let p = Path::new(path);
            if !p.exists() {
                continue;
            }
            for n in read_notes(p) {
                assert!(!n.provider.is_empty() && !n.name.is_empty());
                assert!(n.offset > 0);
            }
        }
    }
}
