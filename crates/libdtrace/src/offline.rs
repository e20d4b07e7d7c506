//! The whole compile path without tracing: lexer, parser, checker, probe
//! matching, planning and code generation, over a fixed table of probes
//! that stands for every kind of program and argument context (BEGIN,
//! END, ERROR, profile and tick, single syscall tracepoints and the raw
//! `sys_enter`/`sys_exit` dispatchers). Optionally the kernel verifier
//! judges the result (root only; nothing is attached). Used by the fuzz
//! driver (`fuzz/`) and by tests that feed the compiler odd programs.

use dtrace_providers::Probes;

use crate::{load, Dtrace, Error, ProgramSource};

/// System calls of the fake table, with their x86-64 numbers: every
/// syscall probe takes the shared raw-tracepoint program.
const SYSCALLS: &[(&str, u32)] = &[
    ("read", 0),
    ("write", 1),
    ("open", 2),
    ("close", 3),
    ("fstat", 5),
    ("poll", 7),
    ("lseek", 8),
    ("mmap", 9),
    ("brk", 12),
    ("ioctl", 16),
    ("getpid", 39),
    ("exit_group", 231),
    ("openat", 257),
];

/// The probe table the offline path compiles against.
pub(crate) fn probes() -> Probes {
    Probes::with_syscalls(SYSCALLS)
}

/// What a successful offline compile produced.
///
/// ```
/// let s = libdtrace::offline::compile("syscall::read:entry { @ = count(); }", false)?;
/// assert!(s.programs >= 1 && s.instructions > 0);
/// # Ok::<(), libdtrace::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// BPF programs generated.
    pub programs: usize,
    /// Their instructions in all.
    pub instructions: usize,
}

/// Compiles `text` as a script through code generation (and, with
/// `verify`, creates its maps and loads its programs into the kernel,
/// which needs privileges). Descriptions matching no probe of the fake
/// table are accepted (`zdefs`). Everything runs, and is dropped, on a
/// thread with the compiler's stack.
///
/// ```
/// // A D program checked through code generation, with no kernel.
/// assert!(libdtrace::offline::compile("BEGIN { trace(1); }", false).is_ok());
/// let e = libdtrace::offline::compile("BEGIN { trace(); }", false).unwrap_err();
/// assert!(e.to_string().starts_with("line 1:"), "{}", e);
/// ```
pub fn compile(text: &str, verify: bool) -> Result<Summary, Error> {
    dtrace_lang::on_compile_stack(|| {
        let mut dt = Dtrace::with_probes(probes());
        dt.setopt("zdefs", None)?;
        let prog = dt.compile(text, ProgramSource::File)?;
        dt.exec(&prog)?;
        let summary = if verify {
            let running = load::start_with(&mut dt, false, &|| false)?;
            summarize(&running.gen)
        } else {
            let (_, gen, _) = load::generate(&dt, false)?;
            summarize(&gen)
        };
        Ok(summary)
    })
}

fn summarize(gen: &dtrace_bpf::plan::Generated) -> Summary {
    Summary {
        programs: gen.programs.len(),
        instructions: gen.programs.iter().map(|p| p.code.insns.len()).sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiles_every_kind_of_program() {
        let s = compile(
            "BEGIN { x = 1; } syscall::read:entry { @[execname] = count(); }\n\
             syscall:::return /errno/ { trace(arg0); } profile-97 { @p = sum(arg0); }\n\
             tick-1s { printf(\"%d\\n\", x); } ERROR { trace(arg4); } END { exit(0); }\n",
            false,
        )
        .unwrap();
        assert!(s.programs >= 5, "{:?}", s);
        assert!(s.instructions > 0);
    }

    #[test]
    fn reports_errors_as_errors() {
        assert!(matches!(
            compile("BEGIN { x = ; }", false),
            Err(Error::Compile(_))
        ));
    }
}
