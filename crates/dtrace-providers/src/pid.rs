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
//! uprobe_multi link for that process (a return probe is a plain uprobe
//! at each place the function returns, not a uretprobe), the place's
//! cookie telling the program which probe fired: nothing is written to
//! tracefs, and closing the link removes them all with one wait (uprobe
//! perf events, one per probe, are removed one at a time, about 80 ms
//! each). The program checks the process too, as the file may be mapped
//! by others.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use dtrace_bpf::plan::{ArgContext, DispatchKey, Phase, ProgKind, ProgramPlan};
use dtrace_lang::pdesc::{field_matches, has_glob, ProbeDesc};

use crate::instructions::{self, Instructions};
use crate::places::Groups;
use crate::uobj::{process_of, Func, ProcessObjects};
use crate::{attrs, ArgDesc, Attributes, DescError, Enabled, Planned, PlannedProgram, ProbeSink};
use crate::{ProbeTable, Provider};
use dtrace_lang::error::Tag;

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
    procs: ProcessObjects,
    /// Each function's instructions (by file and function offset).
    instructions: HashMap<(PathBuf, u64), Instructions>,
    /// What made a description fail (`Provider::desc_error`), by its text.
    errors: HashMap<String, DescError>,
}

/// The process ID a `pidN` provider name names.
fn pid_of(provider: &str) -> Option<u32> {
    process_of(provider, "pid")
}

/// A probe name that is an offset: hexadecimal digits, as DTrace names
/// them (`1c`).
fn offset_name(name: &str) -> Option<u64> {
    if name.is_empty() || name.len() > 16 || !name.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(name, 16).ok()
}

impl Pid {
    /// Function `f`'s instructions (decoded once per function). A
    /// function whose code cannot be decoded has none, so no offset or
    /// return probes.
    fn instructions(
        &mut self,
        path: &Path,
        f: &Func,
        provider: &str,
        module: &str,
    ) -> &Instructions {
        let key = (path.to_path_buf(), f.offset);
        self.instructions.entry(key).or_insert_with(|| {
            instructions::decode(path, f.offset, f.size).unwrap_or_else(|e| {
                if std::env::var_os("DTRACE_DEBUG").is_some() {
                    eprintln!(
                        "dtrace: {}:{}:{}: instructions not decoded: {}",
                        provider, module, f.name, e
                    );
                }
                Instructions::default()
            })
        })
    }

    /// True if the place `o` bytes into probe `p`'s function is an
    /// instruction the kernel's uprobes will refuse
    /// (`instructions::unsteppable`).
    fn unsteppable(&self, p: &PidProbe, o: u64) -> bool {
        self.instructions
            .get(&(p.path.clone(), p.func_offset))
            .is_some_and(|i| i.unsteppable.contains(&o))
    }

    /// The offset probe `name` names in function `f`, or DTrace's error
    /// (dt_pid_per_sym's): not a hexadecimal offset, outside the
    /// function, or not on an instruction's first byte. None in a
    /// function with a jump table, which offers no offset probes.
    fn offset_probe(
        &mut self,
        path: &Path,
        f: &Func,
        name: &str,
        provider: &str,
        module: &str,
    ) -> Result<Option<u64>, DescError> {
        let Some(off) = offset_name(name) else {
            return Err(DescError::new(
                Tag::D_PROC_NAME,
                format!("'{}' is an invalid probe name", name),
            ));
        };
        if off >= f.size {
            return Err(DescError::new(
                Tag::D_PROC_OFF,
                format!("offset 0x{:x} outside of function '{}'", off, f.name),
            ));
        }
        let insns = self.instructions(path, f, provider, module);
        if insns.jump_table {
            return Ok(None);
        }
        if !insns.offsets.contains(&off) {
            return Err(DescError::new(
                Tag::D_PROC_ALIGN,
                format!("offset 0x{:x} is not aligned on an instruction", off),
            ));
        }
        Ok(Some(off))
    }
}

impl Provider for Pid {
    fn name(&self) -> &str {
        "pid"
    }

    fn attributes(&self) -> Attributes {
        Attributes {
            provider: attrs::EVOLVING_ISA,
            module: attrs::PRIVATE,
            function: attrs::PRIVATE,
            name: attrs::EVOLVING_ISA,
            args: attrs::PRIVATE,
        }
    }

    fn provide(&mut self, _sink: &mut ProbeSink<'_>) {}

    /// Process `pid` is traced; a command created to be traced is held
    /// before it execs (`held`): its objects are worked out from the file.
    fn target(&mut self, pid: u32, held: Option<&Path>) {
        self.procs.target(pid, held);
    }

    /// The executable named by its file name (`pid$target:date::entry`)
    /// is `a.out`, the module its probes have.
    /// A library not loaded yet named by a link (`libz.so.1`) is named
    /// by its file's own name (`libz.so.1.2.13`), as it will be once it
    /// is mapped.
    fn canonical(&mut self, desc: &ProbeDesc) -> Option<ProbeDesc> {
        let pid = pid_of(&desc.provider)?;
        if desc.module.is_empty() || desc.module == "a.out" || has_glob(&desc.module) {
            return None;
        }
        let exe = self.procs.objects(pid).into_iter().find(|o| o.exe);
        if exe.is_some_and(|e| e.name == desc.module) {
            return Some(ProbeDesc::new(
                &desc.provider,
                "a.out",
                &desc.function,
                &desc.name,
            ));
        }
        let lib = self.procs.unloaded(pid, &desc.module)?;
        (lib.name != desc.module)
            .then(|| ProbeDesc::new(&desc.provider, &lib.name, &desc.function, &desc.name))
    }

    /// `pidN:MODULE:FUNCTION:NAME`: the matching functions of N's
    /// objects get their entry and return probes as NAME matches them,
    /// an offset probe when NAME is one, and, when NAME is empty or a
    /// glob, one probe per instruction whose offset it matches, as
    /// DTrace makes them. An offset that is not an instruction's first
    /// byte, lies outside the function, or a NAME that is none of these,
    /// is DTrace's error for the description (`desc_error`).
    fn provide_named(&mut self, sink: &mut ProbeSink<'_>, desc: &ProbeDesc) {
        let Some(pid) = pid_of(&desc.provider) else {
            return;
        };
        let provider = format!("pid{}", pid);
        let glob = desc.name.is_empty() || has_glob(&desc.name);
        // A library the process has not loaded, named: its probes wait in
        // its file for the process to map it (`dlopen()`).
        let mut objects = self.procs.objects(pid);
        objects.extend(self.procs.unloaded(pid, &desc.module));
        for obj in objects {
            // The executable is `a.out`, as DTrace calls it.
            let module = if obj.exe { "a.out" } else { obj.name.as_str() };
            if !field_matches(&desc.module, module) {
                continue;
            }
            let funcs: Vec<Func> = self
                .procs
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
                // A return probe fires where the function returns: a
                // function that never does (`_start`) has none. (A
                // uretprobe would replace the word on top of the stack at
                // entry, which is no return address in such a function.)
                if field_matches(&desc.name, "return")
                    && !self
                        .instructions(&obj.path, &f, &provider, module)
                        .returns
                        .is_empty()
                {
                    at.push((At::Return, "return".to_string()));
                }
                if glob {
                    let offsets = &self.instructions(&obj.path, &f, &provider, module).offsets;
                    at.extend(
                        offsets
                            .iter()
                            .map(|&o| (At::Offset(o), format!("{:x}", o)))
                            .filter(|(_, n)| field_matches(&desc.name, n)),
                    );
                } else if at.is_empty() && f.size > 0 && !matches!(&*desc.name, "entry" | "return")
                {
                    match self.offset_probe(&obj.path, &f, &desc.name, &provider, module) {
                        Ok(Some(o)) => at.push((At::Offset(o), format!("{:x}", o))),
                        Ok(None) => {}
                        Err(e) => {
                            // DTrace stops at the first function it cannot
                            // make the probe in.
                            self.errors.entry(desc.to_string()).or_insert(e);
                            return;
                        }
                    }
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

    fn desc_error(&self, desc: &ProbeDesc) -> Option<DescError> {
        self.errors.get(&desc.to_string()).cloned()
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
        // Entries apart from offsets, so that their programs know the
        // return address is on top of the stack; returns apart, their
        // arguments differing.
        let mut groups = Groups::new();
        for e in enabled {
            let Some(p) = self.probes.get(e.local as usize) else {
                continue;
            };
            let kind = match p.at {
                At::Offset(_) => At::Offset(0),
                at => at,
            };
            let g = groups.group(p.pid, &p.path, kind);
            let dispatch = g.probe(table, e);
            // A return probe is at each place the function returns: the
            // cookie's high half is the place's offset in the function
            // (arg0), its low half the probe's dispatch key.
            let places: Vec<u64> = match p.at {
                At::Entry => vec![0],
                At::Offset(o) => vec![o],
                At::Return => self
                    .instructions
                    .get(&(p.path.clone(), p.func_offset))
                    .map(|i| i.returns.clone())
                    .unwrap_or_default(),
            };
            for o in places {
                let cookie = u64::from(dispatch) | (o << 32);
                let refused = self.unsteppable(p, o).then_some(crate::UNSTEPPABLE);
                g.place(p.func_offset + o, cookie, 0, refused);
            }
        }
        for mut g in groups.into_vec() {
            let ret = g.kind == At::Return;
            // Plain uprobes at the return places, not uretprobes.
            let attach = g.attach(false);
            out.programs.push(PlannedProgram {
                plan: ProgramPlan {
                    name: format!("dt_pid_{}", if ret { "return" } else { "entry" }),
                    kind: ProgKind::Uprobe,
                    context: ArgContext::Uprobe { ret, pid: g.pid },
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
}
