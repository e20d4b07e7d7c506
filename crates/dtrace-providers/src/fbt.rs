//! The fbt provider: a probe at the entry and at the return of every
//! kernel function the kernel's BTF describes and its tracing can reach
//! (`fbt:vmlinux:vfs_read:entry` and `:return`; a module's functions
//! under the module's name, `fbt:9p:v9fs_file_open:entry`, from the
//! module's BTF).
//!
//! Each probe is attached the best way the kernel offers:
//! - a few functions: a tracing program each, fentry or fexit, which the
//!   kernel attaches through a BTF trampoline (the arguments straight
//!   from its context; a module's function is named in the module's
//!   BTF);
//! - more than [`FENTRY_MAX`] (a glob such as `fbt:::entry`), or any
//!   where fentry is refused: one kprobe program for all, through one
//!   kprobe_multi link (Linux 5.18) with each function's dispatch key as
//!   its cookie, so thousands are attached, and detached, at once. A
//!   module's functions join it where the kernel's links reach modules
//!   (tried once), and a name two functions share never does.
//!
//! Arguments are typed from the function's BTF prototype: at entry
//! `args[N]` is the Nth parameter; at return, as in DTrace, `arg0` is the
//! offset of the returning instruction (0: neither a trampoline nor a
//! kretprobe can tell it) and `args[1]` the return value, of the
//! function's return type.
//!
//! Whether the kernel allows function tracing is found out once, the
//! first time a description could name an fbt probe: by loading a
//! program that does nothing at the entry of a common function, and
//! from the kernel's features (kprobe_multi links, lockdown). Where the
//! kernel allows neither (a lockdown, or a kernel built without function
//! tracing, as this project's machines are), the provider has no probes
//! and says why, so that an `fbt` description fails with the reason
//! rather than only "does not match any probes". The kernel's BTF is read
//! only then: a program that names no fbt probe pays nothing for it.
//! Where ftrace lists the functions it can trace
//! (`available_filter_functions`), only those are probes.

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use dtrace_bpf::insn::{exit, mov64_imm, R0};
use dtrace_bpf::plan::{
    ArgContext, DispatchKey, Phase, ProbeEnabling, ProgKind, ProgramPlan, RawWord,
};
use dtrace_lang::pdesc::{field_matches, ProbeDesc};
use dtrace_sys::btf::{Btf, TypeData};

use crate::attach::KprobeMulti;
use crate::{
    single, ArgDesc, Attach, Attributes, Enabled, Planned, PlannedProgram, ProbeSink, ProbeTable,
    Provider,
};

/// The most arguments a probe's program reads from its context (DTrace's
/// `args[0]` to `args[9]`); functions with more are not offered.
const MAX_ARGS: usize = 10;

/// The most of the kernel's own functions enabled one program each
/// (fentry, fexit), where the kernel has kprobe_multi links: beyond,
/// the program loads and trampolines cost more than one kprobe program.
pub const FENTRY_MAX: usize = 16;

/// The module name of the kernel's own functions.
pub const VMLINUX: &str = "vmlinux";

/// Functions the kernel's BTF has on every kernel, one of which the
/// refusal test attaches to.
const PROBE_FUNCS: &[&str] = &["vfs_read", "do_sys_openat2", "ksys_write", "schedule"];

/// A kernel function fbt offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FbtFunc {
    pub name: String,
    /// `vmlinux`, or the module the function is in.
    pub module: String,
    /// Its BTF FUNC id (in the module's BTF for a module's function),
    /// which its tracing programs are loaded for.
    pub btf_id: u32,
    /// How many parameters it has.
    pub nargs: u8,
    /// Whether it returns a value (not `void`).
    pub returns: bool,
    /// Its parameters and return type, typed: given, or read from BTF
    /// only when a probe's arguments are asked for (typing every
    /// function up front would be most of `dtrace -l`'s time).
    pub types: FuncTypes,
    /// The words (parameters by index; the return value after them) a
    /// tracing program copies out of its context rather than loads: a
    /// pointer to anything but a struct, which the verifier of kernels
    /// before 6.x will not let it load.
    pub copied: Vec<u8>,
}

/// Where a function's parameter and return types come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FuncTypes {
    /// Given: its parameters, and its return type (None for `void`).
    Given(Vec<ArgDesc>, Option<String>),
    /// Its prototype, a FUNC_PROTO id of its module's BTF.
    Btf(u32),
}

/// The parameters and return type of prototype `proto` of `btf`, as D
/// names them (None for `void`).
pub fn types_in(btf: &Btf, proto: u32) -> Option<(Vec<ArgDesc>, Option<String>)> {
    let TypeData::FuncProto { ret, params, .. } = &btf.get(proto)?.data else {
        return None;
    };
    let typed = |ty: u32| {
        btf.c_type_name(ty).unwrap_or_else(|| {
            // An anonymous type: a pointer to it is a void *.
            let ptr = matches!(
                btf.resolve(ty).and_then(|r| btf.get(r)).map(|t| &t.data),
                Some(TypeData::Ptr(_))
            );
            if ptr { "void *" } else { "uint64_t" }.to_string()
        })
    };
    Some((
        params
            .iter()
            .map(|p| ArgDesc::new(typed(p.ty), btf.str(p.name)))
            .collect(),
        (*ret != 0).then(|| typed(*ret)),
    ))
}

/// The functions and how the kernel lets them be traced.
struct Funcs {
    list: Vec<FbtFunc>,
    /// The BTF of each module the functions are in (`vmlinux` too).
    btfs: HashMap<String, Arc<Btf>>,
    /// fentry/fexit programs load.
    fentry: bool,
    /// kprobe_multi links are there and allowed.
    kprobe_multi: bool,
    /// Whether a kprobe_multi link reaches a module's functions by name
    /// (later kernels than those that brought the links); found out
    /// once, by trying, when a glob enables many of them.
    modules_by_kprobes: OnceLock<bool>,
    /// Function names given more than once (the kernel's and a
    /// module's, or two modules'): a kprobe by name would be at the
    /// first, so these stay on tracing programs.
    ambiguous: HashSet<String>,
}

impl Funcs {
    fn new(
        list: Vec<FbtFunc>,
        btfs: HashMap<String, Arc<Btf>>,
        fentry: bool,
        kprobe_multi: bool,
    ) -> Funcs {
        let mut seen = HashSet::new();
        let ambiguous = list
            .iter()
            .filter(|f| !seen.insert(f.name.as_str()))
            .map(|f| f.name.clone())
            .collect();
        Funcs {
            list,
            btfs,
            fentry,
            kprobe_multi,
            modules_by_kprobes: OnceLock::new(),
            ambiguous,
        }
    }

    /// `f`'s parameters and return type.
    fn types(&self, f: &FbtFunc) -> Option<(Vec<ArgDesc>, Option<String>)> {
        match &f.types {
            FuncTypes::Given(params, ret) => Some((params.clone(), ret.clone())),
            FuncTypes::Btf(proto) => types_in(self.btfs.get(&f.module)?, *proto),
        }
    }

    /// Whether `f` may be one of a kprobe_multi link's functions.
    fn by_name(&self, f: &FbtFunc) -> bool {
        !self.ambiguous.contains(&f.name)
            && (f.module == VMLINUX || *self.modules_by_kprobes.get_or_init(|| self.try_module()))
    }

    /// Attaches a program that does nothing at a module's function
    /// through a kprobe_multi link, and lets it go.
    fn try_module(&self) -> bool {
        let Some(f) = self
            .list
            .iter()
            .find(|f| f.module != VMLINUX && !self.ambiguous.contains(&f.name))
        else {
            return false;
        };
        let code: Vec<u8> = [mov64_imm(R0, 0), exit()]
            .iter()
            .flat_map(|i| i.encode())
            .collect();
        let Ok(prog) = dtrace_sys::bpf::prog_load(
            dtrace_sys::bpf::ProgType::Kprobe,
            &code,
            "dt_fbt_check",
            dtrace_sys::bpf::BPF_TRACE_KPROBE_MULTI,
        ) else {
            return false;
        };
        let Ok(name) = std::ffi::CString::new(f.name.as_str()) else {
            return false;
        };
        dtrace_sys::bpf::kprobe_multi_attach(&prog, &[name.as_c_str()], &[0], false).is_ok()
    }
}

pub struct Fbt {
    /// The functions, or why there are none; found on first need.
    funcs: OnceLock<Result<Funcs, String>>,
    provided: bool,
}

impl Fbt {
    /// The provider; nothing is read from the kernel until an fbt probe
    /// is asked for.
    pub fn discover() -> Fbt {
        Fbt {
            funcs: OnceLock::new(),
            provided: false,
        }
    }

    /// The provider over a fixed function list (tests): attached with
    /// fentry, and with kprobe_multi if `kprobe_multi`.
    pub fn with_funcs(list: Vec<FbtFunc>, kprobe_multi: bool) -> Fbt {
        let cell = OnceLock::new();
        let _ = cell.set(Ok(Funcs::new(list, HashMap::new(), true, kprobe_multi)));
        Fbt {
            funcs: cell,
            provided: false,
        }
    }

    fn funcs(&self) -> &Result<Funcs, String> {
        self.funcs.get_or_init(|| {
            let btf =
                Btf::vmlinux().map_err(|e| format!("the kernel's BTF cannot be read: {}", e))?;
            let f = dtrace_sys::features::Features::get();
            let kprobe_multi = f.kprobe_multi && !f.lockdown;
            let fentry = match fentry_allowed(&btf) {
                Ok(()) => true,
                Err(why) if !kprobe_multi => return Err(why),
                Err(_) => false,
            };
            let traceable = traceable();
            let mut list = functions(&btf, VMLINUX, traceable.as_ref());
            let mut btfs = HashMap::new();
            // A module's functions need fentry where kprobe_multi links
            // do not reach them.
            if fentry || kprobe_multi {
                for m in modules() {
                    if let Ok(mb) = Btf::load_module(&m, Arc::clone(&btf)) {
                        list.extend(functions(&mb, &m, traceable.as_ref()));
                        btfs.insert(m, Arc::new(mb));
                    }
                }
            }
            btfs.insert(VMLINUX.to_string(), btf);
            Ok(Funcs::new(list, btfs, fentry, kprobe_multi))
        })
    }
}

/// True if `pat` could name an fbt probe and is more than a probe name:
/// `fbt:::`, `::vfs_read:entry`. A bare name (`BEGIN`, `:::entry`) does
/// not make fbt read the kernel's BTF.
fn applies(pat: &ProbeDesc) -> bool {
    field_matches(&pat.provider, "fbt")
        && !(pat.provider.is_empty() && pat.module.is_empty() && pat.function.is_empty())
}

/// Ok if the kernel loads an fentry program; otherwise why not.
fn fentry_allowed(btf: &Btf) -> Result<(), String> {
    let id = PROBE_FUNCS
        .iter()
        .find_map(|f| btf.find_func(f))
        .ok_or_else(|| "the kernel's BTF describes none of the usual functions".to_string())?;
    let code: Vec<u8> = [mov64_imm(R0, 0), exit()]
        .iter()
        .flat_map(|i| i.encode())
        .collect();
    match dtrace_sys::bpf::prog_load_btf(
        dtrace_sys::bpf::ProgType::Tracing,
        &code,
        "dt_fbt_check",
        dtrace_sys::bpf::BPF_TRACE_FENTRY,
        id,
    ) {
        Ok(_) => Ok(()),
        Err(e) => {
            let kprobes = Path::new("/sys/bus/event_source/devices/kprobe").exists();
            Err(format!(
                "the kernel does not allow function tracing: fentry programs are refused ({}){}",
                os_error_text(&e.error),
                if kprobes {
                    ""
                } else {
                    ", and there are no kprobes (CONFIG_KPROBES is off)"
                }
            ))
        }
    }
}

/// An error's text without Rust's " (os error N)".
fn os_error_text(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// The modules that have BTF of their own, by name.
fn modules() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir("/sys/kernel/btf")
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n != VMLINUX)
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// The functions ftrace can trace (`available_filter_functions`), as
/// `(module, name)`: `vmlinux` for the kernel's own. None where tracefs
/// or the file cannot be read.
fn traceable() -> Option<HashSet<(String, String)>> {
    let root = dtrace_sys::tracefs::root().ok()?;
    let text = std::fs::read_to_string(root.join("available_filter_functions")).ok()?;
    Some(parse_traceable(&text))
}

/// Lines `name` (the kernel's) or `name [module]`.
fn parse_traceable(text: &str) -> HashSet<(String, String)> {
    text.lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let name = w.next()?;
            let module = match w.next() {
                Some(m) => m.trim_start_matches('[').trim_end_matches(']'),
                None => VMLINUX,
            };
            Some((module.to_string(), name.to_string()))
        })
        .collect()
}

/// Every function of `btf` (the kernel's or module `module`'s) whose
/// arguments fbt can read: at most [`MAX_ARGS`] parameters, each a
/// scalar or pointer (one argument register), not variadic; and, where
/// `traceable` is known, one ftrace can trace. A name given twice (two
/// static functions) is offered once.
pub fn functions(
    btf: &Btf,
    module: &str,
    traceable: Option<&HashSet<(String, String)>>,
) -> Vec<FbtFunc> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut key = (module.to_string(), String::new());
    for (id, t) in btf.own_funcs() {
        let TypeData::Func { proto, .. } = &t.data else {
            continue;
        };
        let name = btf.str(t.name);
        if let Some(set) = traceable {
            key.1.clear();
            key.1.push_str(name);
            if !set.contains(&key) {
                continue;
            }
        }
        let Some(TypeData::FuncProto {
            ret,
            params,
            variadic: false,
        }) = btf.get(*proto).map(|t| &t.data)
        else {
            continue;
        };
        if params.len() > MAX_ARGS {
            continue;
        }
        let word = |ty: u32| {
            let r = btf.resolve(ty).and_then(|r| btf.get(r)).map(|t| &t.data);
            matches!(
                r,
                Some(TypeData::Int { .. } | TypeData::Ptr(_) | TypeData::Enum { .. })
            )
        };
        if !params.iter().all(|p| word(p.ty)) || !(*ret == 0 || word(*ret)) {
            continue;
        }
        if !seen.insert(name) {
            continue;
        }
        // A pointer to what is not a struct or union.
        let copied_word = |ty: u32| {
            let Some(TypeData::Ptr(to)) = btf.resolve(ty).and_then(|r| btf.get(r)).map(|t| &t.data)
            else {
                return false;
            };
            !matches!(
                btf.resolve(*to).and_then(|r| btf.get(r)).map(|t| &t.data),
                Some(TypeData::Struct { .. } | TypeData::Union { .. })
            )
        };
        let copied = params
            .iter()
            .map(|p| p.ty)
            .chain((*ret != 0).then_some(*ret))
            .enumerate()
            .filter(|&(_, ty)| copied_word(ty))
            .map(|(i, _)| i as u8)
            .collect();
        out.push(FbtFunc {
            name: name.to_string(),
            module: module.to_string(),
            btf_id: id,
            copied,
            nargs: params.len() as u8,
            returns: *ret != 0,
            types: FuncTypes::Btf(*proto),
        });
    }
    out
}

/// Whether the kernel's own functions enabled at entry (or return) go
/// through one kprobe_multi link rather than a tracing program each.
fn by_kprobes(fentry: bool, kprobe_multi: bool, count: usize) -> bool {
    kprobe_multi && (!fentry || count > FENTRY_MAX)
}

impl Provider for Fbt {
    fn name(&self) -> &str {
        "fbt"
    }

    fn attributes(&self) -> Attributes {
        Attributes {
            probe: ("Evolving", "Evolving", "Common"),
            args: ("Private", "Private", "ISA"),
        }
    }

    fn provide(&mut self, _sink: &mut ProbeSink<'_>) {}

    fn provide_named(&mut self, sink: &mut ProbeSink<'_>, pat: &ProbeDesc) {
        if self.provided || !applies(pat) {
            return;
        }
        self.provided = true;
        if let Ok(funcs) = self.funcs() {
            for (i, f) in funcs.list.iter().enumerate() {
                sink.add(&f.module, &f.name, "entry", 2 * i as u32);
                sink.add(&f.module, &f.name, "return", 2 * i as u32 + 1);
            }
        }
    }

    fn args(&self, local: u32) -> Option<Vec<ArgDesc>> {
        let funcs = self.funcs().as_ref().ok()?;
        let (params, ret) = funcs.types(funcs.list.get(local as usize / 2)?)?;
        if local.is_multiple_of(2) {
            return Some(params);
        }
        let mut args = vec![ArgDesc::new("int", "offset")];
        if let Some(r) = ret {
            args.push(ArgDesc::new(r, "ret"));
        }
        Some(args)
    }

    fn plan(&self, table: &ProbeTable, enabled: &[Enabled], out: &mut Planned) -> io::Result<()> {
        let Ok(funcs) = self.funcs() else {
            return Ok(());
        };
        let probes: Vec<(&Enabled, &FbtFunc, bool)> = enabled
            .iter()
            .filter_map(|e| {
                let f = funcs.list.get(e.local as usize / 2)?;
                Some((e, f, e.local % 2 == 1))
            })
            .collect();
        for ret in [false, true] {
            let count = probes.iter().filter(|(_, _, r)| *r == ret).count();
            let kprobes = by_kprobes(funcs.fentry, funcs.kprobe_multi, count);
            let mut many: Vec<(&Enabled, &FbtFunc)> = Vec::new();
            for &(e, f, r) in &probes {
                if r != ret {
                    continue;
                }
                if kprobes && funcs.by_name(f) {
                    many.push((e, f));
                } else {
                    // One of many may be left out if the kernel refuses it.
                    let optional = probes.len() > 1;
                    out.programs
                        .push(tracing_program(table, e, f, ret, optional));
                }
            }
            if !many.is_empty() {
                out.programs.push(kprobe_program(table, &many, ret));
            }
        }
        Ok(())
    }

    fn unavailable(&self) -> Option<String> {
        self.funcs().as_ref().err().cloned()
    }
}

/// A tracing program (fentry, fexit) for one function's probe.
fn tracing_program(
    table: &ProbeTable,
    e: &Enabled,
    f: &FbtFunc,
    ret: bool,
    optional: bool,
) -> PlannedProgram {
    let n = f.nargs;
    let word = |w: u8| {
        if f.copied.contains(&w) {
            RawWord::HookCopied(w)
        } else {
            RawWord::Hook(w)
        }
    };
    // fexit's context is the arguments, then the return value (none
    // for a void function: arg1 is 0).
    let (kind, words, end) = if ret {
        let value = if f.returns {
            word(n)
        } else {
            RawWord::Const(0)
        };
        (ProgKind::Fexit, vec![RawWord::Const(0), value], "return")
    } else {
        (ProgKind::Fentry, (0..n).map(word).collect(), "entry")
    };
    PlannedProgram {
        plan: single(
            &format!("dt_fbt_{}", end),
            kind,
            ArgContext::RawArgs {
                words,
                guards: Vec::new(),
                task: None,
                after: None,
            },
            Phase::Normal,
            e.enabling(table, 0),
            None,
        ),
        attach: Attach::new(crate::attach::Function {
            btf_id: f.btf_id,
            module: (f.module != VMLINUX).then(|| f.module.clone()),
            optional,
        }),
    }
}

/// One kprobe program for the probes of many kernel functions, each
/// function's cookie its probe's dispatch key.
fn kprobe_program(table: &ProbeTable, many: &[(&Enabled, &FbtFunc)], ret: bool) -> PlannedProgram {
    let probes: Vec<ProbeEnabling> = many
        .iter()
        .enumerate()
        .map(|(k, (e, _))| e.enabling(table, k as u32))
        .collect();
    PlannedProgram {
        plan: ProgramPlan {
            name: format!("dt_fbt_k{}", if ret { "return" } else { "entry" }),
            kind: ProgKind::Kprobe,
            context: ArgContext::Kprobe { ret },
            phase: Phase::Normal,
            probes,
            dispatch: Some(DispatchKey::Cookie),
            tick_gate: None,
            guard: None,
            cookie: None,
        },
        attach: Attach::new(KprobeMulti {
            funcs: many.iter().map(|(_, f)| f.name.clone()).collect(),
            cookies: (0..many.len() as u64).collect(),
            ret,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_descriptions_beyond_a_name_read_the_kernel() {
        let d = |s: &str| ProbeDesc::parse(s).unwrap();
        assert!(applies(&d("fbt:::")));
        assert!(applies(&d("::vfs_read:entry")));
        assert!(applies(&d("f*:::entry")));
        assert!(!applies(&d("BEGIN")));
        assert!(!applies(&d(":::entry")));
        assert!(!applies(&d("syscall::read:entry")));
    }

    #[test]
    fn the_kernels_functions_are_typed_from_btf() {
        // Needs the running kernel's BTF (readable without root).
        let Ok(btf) = Btf::load_vmlinux() else {
            return;
        };
        let funcs = functions(&btf, VMLINUX, None);
        let f = |n: &str| funcs.iter().find(|f| f.name == n);
        let Some(read) = f("vfs_read") else {
            return;
        };
        let FuncTypes::Btf(proto) = read.types else {
            panic!("{:?}", read);
        };
        let (params, ret) = types_in(&btf, proto).expect("a prototype");
        let types: Vec<&str> = params.iter().map(|a| a.native.as_str()).collect();
        assert_eq!(
            types,
            ["struct file *", "char *", "size_t", "loff_t *"],
            "{:?}",
            read
        );
        assert_eq!(params[0].name, "file");
        assert_eq!(ret.as_deref(), Some("ssize_t"));
        assert_eq!((read.nargs, read.returns), (4, true));
        assert_eq!(read.module, "vmlinux");
    }

    #[test]
    fn ftrace_lists_the_kernels_functions_and_the_modules() {
        let set = parse_traceable("vfs_read\nv9fs_file_open [9p]\n\n");
        assert!(set.contains(&("vmlinux".to_string(), "vfs_read".to_string())));
        assert!(set.contains(&("9p".to_string(), "v9fs_file_open".to_string())));
        assert_eq!(set.len(), 2);
    }

    #[test]
    fn many_functions_or_no_fentry_go_through_kprobes() {
        assert!(!by_kprobes(true, true, 1));
        assert!(!by_kprobes(true, true, FENTRY_MAX));
        assert!(by_kprobes(true, true, FENTRY_MAX + 1));
        assert!(by_kprobes(false, true, 1));
        // Without kprobe_multi links, a tracing program each.
        assert!(!by_kprobes(true, false, 10_000));
    }
}
