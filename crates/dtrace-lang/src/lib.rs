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
    let opts = parse::ParseOptions {
        is_file: source == Source::File,
        macros: env.pspec_values(),
    };
    let (prog, used) = parse::parse_program_with_macros(src, &opts)?;
    // Check against copies so a failed compile leaves the handle untouched.
    let mut trial = syms.clone();
    let mut n = *next_clause;
    let out = check::check(&prog, &used, &mut trial, env, &mut n)?;
    *syms = trial;
    *next_clause = n;
    Ok(out)
}
