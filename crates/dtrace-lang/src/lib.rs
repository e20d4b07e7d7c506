//! The D front end. Text goes in, a checked program comes out:
//! `lex` → `parse` (syntax tree in `ast`) → `check` (names, types, actions;
//! the result is `ir`). Nothing here touches the kernel, the file system or
//! global state, so every phase is tested with small inline programs.

#![forbid(unsafe_code)]

pub mod ast;
pub mod check;
pub mod error;
pub mod ir;
pub mod lex;
pub mod parse;
pub mod pdesc;
pub mod printf;
pub mod types;

pub use check::{Checked, MacroEnv, Symbols};
pub use error::{CompileError, Tag};

/// The stack size of the thread compilation runs on (see `on_compile_stack`):
/// `parse::MAX_NESTING` and `parse::MAX_DEPTH` are chosen so that parsing,
/// checking, code generation and dropping the trees of the deepest program
/// they allow fit in it with room to spare.
pub const COMPILE_STACK: usize = 512 << 20;

/// Runs `f` on a thread with a `COMPILE_STACK`-byte stack and returns its
/// result (or runs it here if no thread can be made). The stack is only
/// address space until used.
pub fn on_compile_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    thread_local! {
        static ON_COMPILE_STACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if ON_COMPILE_STACK.with(|c| c.get()) {
        return f();
    }
    let f = move || {
        ON_COMPILE_STACK.with(|c| c.set(true));
        f()
    };
    let cell = std::sync::Mutex::new(Some(f));
    let take = || cell.lock().unwrap_or_else(|e| e.into_inner()).take();
    std::thread::scope(|s| {
        let spawned = std::thread::Builder::new()
            .name("dtrace-compile".into())
            .stack_size(COMPILE_STACK)
            .spawn_scoped(s, || take().map(|f| f()));
        let result = match spawned {
            Ok(h) => match h.join() {
                Ok(v) => v,
                Err(p) => std::panic::resume_unwind(p),
            },
            Err(_) => None,
        };
        match result {
            Some(v) => v,
            // No thread: run here.
            None => (take().expect("f runs once"))(),
        }
    })
}

/// Where a program's text came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `-s` script file.
    File,
    /// `-n`/`-P`/`-m`/`-f` or a string given to the library.
    CommandLine,
}

/// Parses and checks one program. Symbols (variables, aggregations) are
/// shared with programs compiled before it; `next_clause` numbers clauses
/// program-wide.
pub fn compile(
    src: &str,
    source: Source,
    env: &MacroEnv,
    syms: &mut Symbols,
    next_clause: &mut usize,
) -> Result<Checked, CompileError> {
    // `#pragma D option defaultargs` changes how macros expand, so it
    // is honoured before anything is parsed.
    let defaulted;
    let env = if !env.defaultargs && pragma_sets(src, "defaultargs") {
        defaulted = MacroEnv {
            defaultargs: true,
            ..env.clone()
        };
        &defaulted
    } else {
        env
    };
    let opts = parse::ParseOptions {
        is_file: source == Source::File,
        macros: env.pspec_values(),
    };
    let (prog, used) = parse::parse_program_with_macros(src, &opts)?;
    if prog.items.is_empty() {
        return Err(CompileError::no_line(
            Tag::D_EMPTY,
            "empty D program translation unit",
        ));
    }
    // Check against copies so a failed compile leaves the handle untouched.
    let mut trial = syms.clone();
    let mut n = *next_clause;
    let out = check::check(&prog, &used, &mut trial, env, &mut n)?;
    *syms = trial;
    *next_clause = n;
    Ok(out)
}

/// True if a `#pragma D option NAME` line sets the option `name`.
fn pragma_sets(src: &str, name: &str) -> bool {
    src.lines().any(|l| {
        let l = l.trim_start();
        let Some(rest) = l.strip_prefix('#') else {
            return false;
        };
        let mut w = rest.split_whitespace();
        w.next() == Some("pragma")
            && w.next() == Some("D")
            && w.next() == Some("option")
            && w.next()
                .is_some_and(|o| o == name || o.starts_with(&format!("{}=", name)))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn finds_pragmas() {
        assert!(super::pragma_sets(
            "#pragma D option defaultargs\n",
            "defaultargs"
        ));
        assert!(super::pragma_sets(
            "  # pragma D option defaultargs",
            "defaultargs"
        ));
        assert!(!super::pragma_sets("#pragma D option quiet", "defaultargs"));
    }
}
