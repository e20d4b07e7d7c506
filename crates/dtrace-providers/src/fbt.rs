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
//!   (tried once), and a name two functions share never does. Without
//!   those links (before 5.18, or a kernel built without
//!   `CONFIG_FPROBE`), the program is on one kprobe event at all the
//!   functions ([`KprobeEvent`]) and tells them apart by address (read
//!   from kallsyms when the program is planned): at entry the kprobe's
//!   own, each kprobe standing on the instruction after the function's
//!   ftrace site where the kernel's code shows it ([`crate::ktext`]: the
//!   kernel arms those without ftrace, in a moment); at return the
//!   function's (`bpf_get_func_ip`, Linux 5.15; before, a return glob
//!   is a tracing program each).
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
use dtrace_lang::pdesc::{field_matches, ProbeDesc, SmolStr};
use dtrace_sys::btf::{Btf, Kind, TypeData};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::attach::{KprobeEvent, KprobeMulti, KprobeSite};
use crate::{
    attrs, single, ArgDesc, Attach, Attributes, Enabled, Planned, PlannedProgram, ProbeSink,
    ProbeTable, Provider,
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

/// The ids kept for fbt's probes: two a function, for more functions
/// than any kernel and its modules have (Linux 6.12 with every Debian
/// module: about 110,000 traceable).
pub const FBT_IDS: u32 = 2 << 20;

/// Functions the kernel's BTF has on every kernel, one of which the
/// refusal test attaches to.
const PROBE_FUNCS: &[&str] = &["vfs_read", "do_sys_openat2", "ksys_write", "schedule"];

/// A kernel function fbt offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FbtFunc {
    pub name: SmolStr,
    /// `vmlinux`, or the module the function is in.
    pub module: SmolStr,
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
}

/// Where a function's parameter and return types come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FuncTypes {
    /// Given: its parameters, its return type (None for `void`), and
    /// the words a tracing program copies ([`copied_words`]).
    Given {
        params: Vec<ArgDesc>,
        ret: Option<String>,
        copied: Vec<u8>,
    },
    /// Its prototype, a FUNC_PROTO id of its module's BTF.
    Btf(u32),
}

/// The words of prototype `proto` of `btf` (parameters by index; the
/// return value after them) that a tracing program copies out of its
/// context rather than loads: a pointer to anything but a struct or
/// union, which the verifier of kernels before 6.x will not let it load.
pub fn copied_words(btf: &Btf, proto: u32) -> Vec<u8> {
    let Some(sig) = btf.signature(proto) else {
        return Vec::new();
    };
    let copied = |ty: u32| {
        let Some(to) = btf.resolve_kind(ty).and_then(|(p, _)| btf.pointee(p)) else {
            return false;
        };
        !matches!(btf.resolve_kind(to), Some((_, Kind::Struct | Kind::Union)))
    };
    sig.param_types()
        .chain((sig.ret != 0).then_some(sig.ret))
        .enumerate()
        .filter(|&(_, ty)| copied(ty))
        .map(|(i, _)| i as u8)
        .collect()
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
    /// Without them, kprobe events are (for a glob at entry).
    kprobe_event: bool,
    /// And a kretprobe's program can tell the function it returns from
    /// (`bpf_get_func_ip`, Linux 5.15), for a glob at return.
    kretprobe_event: bool,
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
        kprobe_event: bool,
        kretprobe_event: bool,
    ) -> Funcs {
        let mut seen = FxHashSet::default();
        let ambiguous = list
            .iter()
            .filter(|f| !seen.insert(f.name.as_str()))
            .map(|f| f.name.to_string())
            .collect();
        Funcs {
            list,
            btfs,
            fentry,
            kprobe_multi,
            kprobe_event: kprobe_event && !kprobe_multi,
            kretprobe_event: kretprobe_event && kprobe_event && !kprobe_multi,
            modules_by_kprobes: OnceLock::new(),
            ambiguous,
        }
    }

    /// `f`'s parameters and return type.
    fn types(&self, f: &FbtFunc) -> Option<(Vec<ArgDesc>, Option<String>)> {
        match &f.types {
            FuncTypes::Given { params, ret, .. } => Some((params.clone(), ret.clone())),
            FuncTypes::Btf(proto) => types_in(self.btfs.get(f.module.as_str())?, *proto),
        }
    }

    /// The words `f`'s tracing programs copy ([`copied_words`]): worked
    /// out for the functions enabled, not for every one listed.
    fn copied(&self, f: &FbtFunc) -> Vec<u8> {
        match &f.types {
            FuncTypes::Given { copied, .. } => copied.clone(),
            FuncTypes::Btf(proto) => self
                .btfs
                .get(f.module.as_str())
                .map_or_else(Vec::new, |btf| copied_words(btf, *proto)),
        }
    }

    /// Whether `f` may be one of a kprobe_multi link's functions.
    fn by_name(&self, f: &FbtFunc) -> bool {
        !self.ambiguous.contains(f.name.as_str())
            && (f.module == VMLINUX || *self.modules_by_kprobes.get_or_init(|| self.try_module()))
    }

    /// Attaches a program that does nothing at a module's function
    /// through a kprobe_multi link, and lets it go.
    fn try_module(&self) -> bool {
        let Some(f) = self
            .list
            .iter()
            .find(|f| f.module != VMLINUX && !self.ambiguous.contains(f.name.as_str()))
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
        let _ = cell.set(Ok(Funcs::new(
            list,
            HashMap::new(),
            true,
            kprobe_multi,
            false,
            false,
        )));
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
            let kprobe_event = !kprobe_multi
                && !f.lockdown
                && Path::new("/sys/bus/event_source/devices/kprobe").exists();
            let fentry = match fentry_allowed(&btf) {
                Ok(()) => true,
                Err(why) if !kprobe_multi && !kprobe_event => return Err(why),
                Err(_) => false,
            };
            let traceable = Traceable::read();
            let traceable = traceable.as_ref().map(Traceable::set);
            let mut list = functions(&btf, VMLINUX, traceable.as_ref());
            let mut btfs = HashMap::new();
            // A module's functions need fentry where kprobe_multi links
            // do not reach them.
            if fentry || kprobe_multi || kprobe_event {
                for m in modules() {
                    if let Ok(mb) = Btf::load_module(&m, Arc::clone(&btf)) {
                        list.extend(functions(&mb, &m, traceable.as_ref()));
                        btfs.insert(m, Arc::new(mb));
                    }
                }
            }
            btfs.insert(VMLINUX.to_string(), btf);
            Ok(Funcs::new(
                list,
                btfs,
                fentry,
                kprobe_multi,
                kprobe_event,
                f.func_ip,
            ))
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

/// The functions ftrace can trace, as `available_filter_functions`
/// lists them (70,000 lines or more): a name, and ` [module]` after a
/// module's. Kept as the kernel's text, looked up by borrowed names.
pub struct Traceable {
    text: String,
}

/// [`Traceable`]'s names, by module (`vmlinux` for the kernel's own).
pub struct TraceableSet<'a> {
    by_module: FxHashMap<&'a str, FxHashSet<&'a str>>,
}

impl Traceable {
    /// The running kernel's list; None where tracefs or the file cannot
    /// be read.
    fn read() -> Option<Traceable> {
        use std::io::Read;
        let root = dtrace_sys::tracefs::root().ok()?;
        let mut file = std::fs::File::open(root.join("available_filter_functions")).ok()?;
        // tracefs gives no size: start where a distribution kernel's
        // list ends (1.5 MB) rather than growing to it.
        let mut text = String::with_capacity(2 << 20);
        file.read_to_string(&mut text).ok()?;
        Some(Traceable { text })
    }

    pub fn from_text(text: &str) -> Traceable {
        Traceable {
            text: text.to_string(),
        }
    }

    pub fn set(&self) -> TraceableSet<'_> {
        let mut by_module: FxHashMap<&str, FxHashSet<&str>> = FxHashMap::default();
        // Most are the kernel's own.
        let lines = self.text.bytes().filter(|&b| b == b'\n').count();
        by_module.insert(
            VMLINUX,
            FxHashSet::with_capacity_and_hasher(lines, Default::default()),
        );
        for l in self.text.lines() {
            let mut w = l.split_ascii_whitespace();
            let Some(name) = w.next() else { continue };
            let module = match w.next() {
                Some(m) => m.trim_start_matches('[').trim_end_matches(']'),
                None => VMLINUX,
            };
            by_module.entry(module).or_default().insert(name);
        }
        TraceableSet { by_module }
    }
}

impl TraceableSet<'_> {
    /// How many functions of `module` ftrace lists.
    pub fn count(&self, module: &str) -> usize {
        self.by_module.get(module).map_or(0, |names| names.len())
    }

    /// Whether ftrace lists `name` in `module`.
    pub fn contains(&self, module: &str, name: &str) -> bool {
        self.by_module
            .get(module)
            .is_some_and(|names| names.contains(name))
    }
}

/// Every function of `btf` (the kernel's or module `module`'s) whose
/// arguments fbt can read: at most [`MAX_ARGS`] parameters, each a
/// scalar or pointer (one argument register), not variadic; and, where
/// `traceable` is known, one ftrace can trace. A name given twice (two
/// static functions) is offered once.
pub fn functions(btf: &Btf, module: &str, traceable: Option<&TraceableSet<'_>>) -> Vec<FbtFunc> {
    let mut out = Vec::new();
    let mut seen = FxHashSet::with_capacity_and_hasher(
        traceable.map_or(0, |t| t.count(module)),
        Default::default(),
    );
    // Read in place, not decoded: this looks at every function of the
    // kernel (50,000 and more) and the types of their parameters.
    let word = |ty: u32| {
        matches!(
            btf.resolve_kind(ty),
            Some((_, Kind::Int | Kind::Ptr | Kind::Enum | Kind::Enum64))
        )
    };
    for id in btf.own_func_ids() {
        let Some((name, proto)) = btf.func_in_place(id) else {
            continue;
        };
        if traceable.is_some_and(|set| !set.contains(module, name)) {
            continue;
        }
        let Some(sig) = btf.signature(proto) else {
            continue;
        };
        if sig.variadic || sig.len() > MAX_ARGS {
            continue;
        }
        if !sig.param_types().all(word) || !(sig.ret == 0 || word(sig.ret)) {
            continue;
        }
        if !seen.insert(name) {
            continue;
        }
        out.push(FbtFunc {
            name: SmolStr::new(name),
            module: SmolStr::new(module),
            btf_id: id,
            nargs: sig.len() as u8,
            returns: sig.ret != 0,
            types: FuncTypes::Btf(proto),
        });
    }
    out
}

/// Whether the functions enabled at entry (or return) go through kprobes
/// (one kprobe_multi link, or one kprobe event, where the kernel has
/// either: `kprobes`) rather than a tracing program each.
fn by_kprobes(fentry: bool, kprobes: bool, count: usize) -> bool {
    kprobes && (!fentry || count > FENTRY_MAX)
}

impl Provider for Fbt {
    fn name(&self) -> &str {
        "fbt"
    }

    fn attributes(&self) -> Attributes {
        attrs::KERNEL_FUNCTIONS
    }

    /// Two ids a function (entry, return), by the function's place in
    /// the list; the list is read only when a description needs it, so
    /// the range is the most any kernel has.
    fn id_span(&mut self) -> u32 {
        FBT_IDS
    }

    fn provide(&mut self, _sink: &mut ProbeSink<'_>) {}

    fn provide_named(&mut self, sink: &mut ProbeSink<'_>, pat: &ProbeDesc) {
        if self.provided || !applies(pat) {
            return;
        }
        self.provided = true;
        if let Ok(funcs) = self.funcs() {
            sink.reserve(2 * funcs.list.len());
            for (i, f) in funcs.list.iter().enumerate() {
                let slot = 2 * i as u32;
                sink.add_at(slot, &f.module, &f.name, "entry", slot);
                sink.add_at(slot + 1, &f.module, &f.name, "return", slot + 1);
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
        // A kprobe event's functions are told apart by their addresses,
        // and its kprobes stand past their ftrace sites where the
        // kernel's code shows them.
        let ksyms = OnceLock::new();
        let ktext = OnceLock::new();
        for ret in [false, true] {
            let count = probes.iter().filter(|(_, _, r)| *r == ret).count();
            let events = if ret {
                funcs.kretprobe_event
            } else {
                funcs.kprobe_event
            };
            let kprobes = by_kprobes(funcs.fentry, funcs.kprobe_multi || events, count);
            let mut many: Vec<(&Enabled, &FbtFunc)> = Vec::new();
            let mut at: Vec<EventSite> = Vec::new();
            for &(e, f, r) in &probes {
                if r != ret {
                    continue;
                }
                let site = if kprobes && events && !funcs.ambiguous.contains(f.name.as_str()) {
                    let ksyms = ksyms.get_or_init(|| dtrace_sys::ksyms::Kallsyms::load().ok());
                    let addrs = addresses(ksyms.as_ref(), f);
                    let ktext = ktext.get_or_init(crate::ktext::KernelText::open);
                    event_site(&addrs, ret, |a| ktext.as_ref()?.prologue(a))
                } else {
                    None
                };
                if kprobes && funcs.kprobe_multi && funcs.by_name(f) {
                    many.push((e, f));
                } else if let Some(site) = site {
                    many.push((e, f));
                    at.push(site);
                } else {
                    // One of many may be left out if the kernel refuses it.
                    let optional = probes.len() > 1;
                    out.programs.push(tracing_program(
                        table,
                        e,
                        f,
                        &funcs.copied(f),
                        ret,
                        optional,
                    ));
                }
            }
            if !many.is_empty() {
                out.programs.push(kprobe_program(table, &many, &at, ret));
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
    copied: &[u8],
    ret: bool,
    optional: bool,
) -> PlannedProgram {
    let n = f.nargs;
    let word = |w: u8| {
        if copied.contains(&w) {
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
            module: (f.module != VMLINUX).then(|| f.module.to_string()),
            optional,
        }),
    }
}

/// The addresses of `f` in the kernel's symbols (a static function's
/// name may be at several).
fn addresses(ksyms: Option<&dtrace_sys::ksyms::Kallsyms>, f: &FbtFunc) -> Vec<u64> {
    let Some(k) = ksyms else {
        return Vec::new();
    };
    k.lookup_all(&f.name)
        .into_iter()
        .filter(|s| s.is_text() && s.module == f.module && s.addr != 0)
        .map(|s| s.addr)
        .collect()
}

/// Where a function's probe of a kprobe event stands, and the addresses
/// its program knows it by.
#[derive(Clone, Debug, PartialEq, Eq)]
struct EventSite {
    /// From the function's first byte (0: at its entry).
    offset: u64,
    /// At entry, the kprobe's own address wherever the kernel put it:
    /// past the ftrace site, or on it if the kernel refused that; at
    /// return, the function's.
    keys: Vec<u64>,
}

/// Where the probe of a function at `addrs` (a static function's name
/// may be at several) stands in a kprobe event, if it may: at entry,
/// past the ftrace site `prologue` finds, where all have it alike, else
/// at the entry; a kretprobe at the entry.
fn event_site(
    addrs: &[u64],
    ret: bool,
    prologue: impl Fn(u64) -> Option<crate::ktext::Prologue>,
) -> Option<EventSite> {
    if addrs.is_empty() {
        return None;
    }
    if ret {
        // bpf_get_func_ip: the function's own address.
        return Some(EventSite {
            offset: 0,
            keys: addrs.to_vec(),
        });
    }
    let found: Vec<Option<crate::ktext::Prologue>> = addrs.iter().map(|&a| prologue(a)).collect();
    match found[0] {
        Some(p) if found.iter().all(|x| *x == Some(p)) => Some(EventSite {
            offset: p.after,
            keys: addrs
                .iter()
                .flat_map(|&a| [a + p.after, a + p.site])
                .collect(),
        }),
        // At the entry, the kprobe is on the ftrace site: the first
        // byte, or the fifth after an endbr64.
        _ => Some(EventSite {
            offset: 0,
            keys: addrs.iter().flat_map(|&a| [a, a + 4]).collect(),
        }),
    }
}

/// One kprobe program for the probes of many kernel functions: each
/// function's cookie its probe's dispatch key through a kprobe_multi
/// link, or, with the functions' sites `at`, by address through one
/// kprobe event.
fn kprobe_program(
    table: &ProbeTable,
    many: &[(&Enabled, &FbtFunc)],
    at: &[EventSite],
    ret: bool,
) -> PlannedProgram {
    let probes: Vec<ProbeEnabling> = many
        .iter()
        .enumerate()
        .map(|(k, (e, _))| e.enabling(table, k as u32))
        .collect();
    // Through kprobe events (functions told apart by address), or one
    // kprobe_multi link (by cookie).
    let (dispatch, attach) = if !at.is_empty() {
        let by_addr = at
            .iter()
            .enumerate()
            .flat_map(|(k, site)| site.keys.iter().map(move |&a| (k as u32, a)))
            .collect();
        let funcs = many
            .iter()
            .zip(at)
            .map(|((_, f), site)| KprobeSite {
                module: f.module.to_string(),
                name: f.name.to_string(),
                offset: site.offset,
            })
            .collect();
        (
            if ret {
                DispatchKey::FuncIp(by_addr)
            } else {
                DispatchKey::ProbeIp(by_addr)
            },
            Attach::new(KprobeEvent {
                funcs,
                cookies: (0..many.len() as u64).collect(),
                ret,
            }),
        )
    } else {
        (
            DispatchKey::Cookie,
            Attach::new(KprobeMulti {
                funcs: many.iter().map(|(_, f)| f.name.to_string()).collect(),
                cookies: (0..many.len() as u64).collect(),
                ret,
            }),
        )
    };
    PlannedProgram {
        plan: ProgramPlan {
            name: format!("dt_fbt_k{}", if ret { "return" } else { "entry" }),
            kind: ProgKind::Kprobe,
            context: ArgContext::Kprobe { ret },
            phase: Phase::Normal,
            probes,
            dispatch: Some(dispatch),
            tick_gate: None,
            guard: None,
            cookie: None,
        },
        attach,
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
        let text = Traceable::from_text("vfs_read\nv9fs_file_open [9p]\n\n");
        let set = text.set();
        assert!(set.contains(VMLINUX, "vfs_read"));
        assert!(set.contains("9p", "v9fs_file_open"));
        assert!(!set.contains(VMLINUX, "v9fs_file_open"));
        assert!(!set.contains("9p", "vfs_read"));
        assert!(!set.contains("", ""));
    }

    #[test]
    fn many_functions_or_no_fentry_go_through_kprobes() {
        assert!(!by_kprobes(true, true, 1));
        assert!(!by_kprobes(true, true, FENTRY_MAX));
        assert!(by_kprobes(true, true, FENTRY_MAX + 1));
        assert!(by_kprobes(false, true, 1));
        // Without kprobes (kprobe_multi links or kprobe events), a
        // tracing program each.
        assert!(!by_kprobes(true, false, 10_000));
    }

    #[test]
    fn a_kprobe_stands_past_the_ftrace_site_where_the_code_shows_it() {
        use crate::ktext::Prologue;
        let after_endbr = |_| Some(Prologue { site: 4, after: 9 });
        // Past the site; known there, or on the site if the kernel
        // refuses the breakpoint.
        assert_eq!(
            event_site(&[0x1000], false, after_endbr),
            Some(EventSite {
                offset: 9,
                keys: vec![0x1009, 0x1004]
            })
        );
        // Code that cannot be read: at the entry, the site unknown.
        assert_eq!(
            event_site(&[0x1000, 0x2000], false, |_| None),
            Some(EventSite {
                offset: 0,
                keys: vec![0x1000, 0x1004, 0x2000, 0x2004]
            })
        );
        // Two functions of a name whose code differs: at the entry.
        let differ = |a| {
            Some(Prologue {
                site: if a == 0x1000 { 4 } else { 0 },
                after: if a == 0x1000 { 9 } else { 5 },
            })
        };
        assert_eq!(
            event_site(&[0x1000, 0x2000], false, differ).map(|s| s.offset),
            Some(0)
        );
        // A kretprobe is at the entry, known by the function's address.
        assert_eq!(
            event_site(&[0x1000], true, after_endbr),
            Some(EventSite {
                offset: 0,
                keys: vec![0x1000]
            })
        );
        assert_eq!(event_site(&[], false, after_endbr), None);
    }

    #[test]
    fn a_kprobe_events_functions_are_known_by_every_address_of_their_name() {
        let k = dtrace_sys::ksyms::Kallsyms::parse(
            "ffffffff81200000 T vfs_read\n\
             ffffffff81300000 t show_map\n\
             ffffffff81310000 t show_map\n\
             ffffffff81400000 d show_map_ops\n\
             ffffffffc0a00000 t show_map\t[9p]\n"
                .to_string(),
        );
        let f = |name: &str, module: &str| FbtFunc {
            name: name.into(),
            module: module.into(),
            btf_id: 1,
            nargs: 0,
            returns: false,
            types: FuncTypes::Given {
                params: Vec::new(),
                ret: None,
                copied: Vec::new(),
            },
        };
        assert_eq!(
            addresses(Some(&k), &f("vfs_read", VMLINUX)),
            vec![0xffff_ffff_8120_0000]
        );
        // A static function's name twice in the kernel: both; the
        // module's is its own.
        assert_eq!(
            addresses(Some(&k), &f("show_map", VMLINUX)),
            vec![0xffff_ffff_8130_0000, 0xffff_ffff_8131_0000]
        );
        assert_eq!(
            addresses(Some(&k), &f("show_map", "9p")),
            vec![0xffff_ffff_c0a0_0000]
        );
        assert!(addresses(None, &f("vfs_read", VMLINUX)).is_empty());
    }
}
