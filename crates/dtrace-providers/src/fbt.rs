//! The fbt provider: a probe at the entry and at the return of every
//! kernel function the kernel's BTF describes (`fbt:vmlinux:vfs_read:entry`
//! and `:return`), each on a tracing program (fentry, fexit) that the
//! kernel attaches through a BTF trampoline.
//!
//! Arguments are typed from the function's BTF prototype: at entry
//! `args[N]` is the Nth parameter; at return, as in DTrace, `arg0` is the
//! offset of the returning instruction (0: a trampoline cannot tell it)
//! and `args[1]` the return value, of the function's return type.
//!
//! Whether the kernel allows function tracing is found out once, the
//! first time a description could name an fbt probe: by loading a
//! program that does nothing at the entry of a common function. Where
//! the kernel refuses it (a lockdown, or a kernel built without function
//! tracing, as this project's machines are), the provider has no probes
//! and says why, so that an `fbt` description fails with the reason
//! rather than only "does not match any probes". The kernel's BTF is read
//! only then: a program that names no fbt probe pays nothing for it.

use std::io;
use std::path::Path;
use std::sync::OnceLock;

use dtrace_bpf::insn::{exit, mov64_imm, R0};
use dtrace_bpf::plan::{ArgContext, Phase, ProgKind, RawWord};
use dtrace_lang::pdesc::{field_matches, ProbeDesc};
use dtrace_sys::btf::{Btf, TypeData};

use crate::{
    single, ArgDesc, Attach, Attributes, Enabled, Planned, PlannedProgram, ProbeSink, ProbeTable,
    Provider,
};

/// The most arguments a probe's program reads from its context (DTrace's
/// `args[0]` to `args[9]`); functions with more are not offered.
const MAX_ARGS: usize = 10;

/// Functions the kernel's BTF has on every kernel, one of which the
/// refusal test attaches to.
const PROBE_FUNCS: &[&str] = &["vfs_read", "do_sys_openat2", "ksys_write", "schedule"];

/// A kernel function fbt offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FbtFunc {
    pub name: String,
    /// Its vmlinux BTF FUNC id, which its programs are loaded for.
    pub btf_id: u32,
    /// Its parameters, typed.
    pub params: Vec<ArgDesc>,
    /// Its return type; None for `void`.
    pub ret: Option<String>,
}

pub struct Fbt {
    /// The functions, or why there are none; found on first need.
    funcs: OnceLock<Result<Vec<FbtFunc>, String>>,
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

    /// The provider over a fixed function list (tests).
    pub fn with_funcs(funcs: Vec<FbtFunc>) -> Fbt {
        let cell = OnceLock::new();
        let _ = cell.set(Ok(funcs));
        Fbt {
            funcs: cell,
            provided: false,
        }
    }

    fn funcs(&self) -> &Result<Vec<FbtFunc>, String> {
        self.funcs.get_or_init(|| {
            let btf =
                Btf::vmlinux().map_err(|e| format!("the kernel's BTF cannot be read: {}", e))?;
            allowed(&btf)?;
            Ok(functions(&btf))
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
fn allowed(btf: &Btf) -> Result<(), String> {
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

/// Every function of `btf` whose arguments fbt can read: at most
/// [`MAX_ARGS`] parameters, each a scalar or pointer (one argument
/// register), not variadic.
pub fn functions(btf: &Btf) -> Vec<FbtFunc> {
    let mut out = Vec::new();
    for (id, t) in btf.own_types() {
        let TypeData::Func { proto, .. } = &t.data else {
            continue;
        };
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
        out.push(FbtFunc {
            name: btf.str(t.name).to_string(),
            btf_id: id,
            params: params
                .iter()
                .map(|p| ArgDesc::new(typed(p.ty), btf.str(p.name)))
                .collect(),
            ret: (*ret != 0).then(|| typed(*ret)),
        });
    }
    out
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
            for (i, f) in funcs.iter().enumerate() {
                sink.add("vmlinux", &f.name, "entry", 2 * i as u32);
                sink.add("vmlinux", &f.name, "return", 2 * i as u32 + 1);
            }
        }
    }

    fn args(&self, local: u32) -> Option<Vec<ArgDesc>> {
        let f = self.funcs().as_ref().ok()?.get(local as usize / 2)?;
        if local.is_multiple_of(2) {
            return Some(f.params.clone());
        }
        let mut args = vec![ArgDesc::new("int", "offset")];
        if let Some(r) = &f.ret {
            args.push(ArgDesc::new(r.clone(), "ret"));
        }
        Some(args)
    }

    fn plan(&self, table: &ProbeTable, enabled: &[Enabled], out: &mut Planned) -> io::Result<()> {
        let Ok(funcs) = self.funcs() else {
            return Ok(());
        };
        for e in enabled {
            let Some(f) = funcs.get(e.local as usize / 2) else {
                continue;
            };
            let n = f.params.len() as u8;
            let ret = e.local % 2 == 1;
            // fexit's context is the arguments, then the return value.
            let (kind, words, end) = if ret {
                (
                    ProgKind::Fexit,
                    vec![RawWord::Const(0), RawWord::Hook(n)],
                    "return",
                )
            } else {
                (
                    ProgKind::Fentry,
                    (0..n).map(RawWord::Hook).collect(),
                    "entry",
                )
            };
            out.programs.push(PlannedProgram {
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
                attach: Attach::new(crate::attach::Function { btf_id: f.btf_id }),
            });
        }
        Ok(())
    }

    fn unavailable(&self) -> Option<String> {
        self.funcs().as_ref().err().cloned()
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
        let funcs = functions(&btf);
        let f = |n: &str| funcs.iter().find(|f| f.name == n);
        let Some(read) = f("vfs_read") else {
            return;
        };
        let types: Vec<&str> = read.params.iter().map(|a| a.native.as_str()).collect();
        assert_eq!(
            types,
            ["struct file *", "char *", "size_t", "loff_t *"],
            "{:?}",
            read
        );
        assert_eq!(read.params[0].name, "file");
        assert_eq!(read.ret.as_deref(), Some("ssize_t"));
    }
}
