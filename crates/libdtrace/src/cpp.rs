//! The C preprocessor (`-C`): a program's text is run through the
//! system's `cpp` before it is compiled, as DTrace does.
//!
//! cpp is given DTrace's predefined names (`__SUNW_D`, `__SUNW_D_64`,
//! `__SUNW_D_VERSION`, and the system's `__linux`, `__unix`,
//! `__x86_64`), the ISO C conformance of `-X` (see [`arguments`]), then the `-D`, `-U` and
//! `-I` options in the order given, and `-H` to list included files. Its
//! output keeps line markers (`# N "file"`), which the lexer follows, so
//! that errors name the line of the file a construct came from. An
//! interpreter line (`#!/usr/sbin/dtrace -Cs`), which cpp would refuse, is
//! blanked first, keeping the line count.

use std::io::{BufRead, Read, Write};
use std::process::{Command, Stdio};

use crate::options::{Options, Stdc};
use crate::Error;

/// One `-D`, `-U` or `-I`, as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CppArg {
    /// `-D NAME[=VALUE]`.
    Define(String),
    /// `-U NAME`.
    Undef(String),
    /// `-I DIR`.
    Include(String),
}

/// The preprocessor run when `cpppath` is not set: `cpp` on `PATH`.
pub const DEFAULT_CPP: &str = "cpp";

/// The D version `__SUNW_D_VERSION` gives: 1.13.0 as DTrace encodes
/// versions (major << 24 | minor << 12 | micro).
const D_VERSION: &str = "0x0100d000";

/// The arguments cpp is run with, before the program (read from standard
/// input).
pub fn arguments(opts: &Options, args: &[CppArg]) -> Vec<String> {
    // As DTrace for Linux runs it: the system's names, D's, and not
    // GCC's (`-U__GNUC__`), so that a system header (`<endian.h>`)
    // leaves out the inline functions it has for GCC alone.
    let mut v: Vec<String> = [
        "-D__linux",
        "-D__Linux",
        "-D__unix",
        "-D__SVR4",
        "-D__x86_64",
        "-D__amd64",
        "-D__SUNW_D=1",
        "-D__SUNW_D_64",
        "-U__GNUC__",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push(format!("-D__SUNW_D_VERSION={}", D_VERSION));
    // -X: a (the default), c and t are ISO C, GNU cpp's -std=c99 (which
    // defines __STRICT_ANSI__, so that system headers leave out what is
    // GCC's alone), as DTrace for Linux runs it; s is K&R C, GNU cpp's
    // traditional mode. (GNU cpp will not have __STDC__ redefined
    // without a warning, so it keeps its own.)
    match opts.stdc {
        Stdc::S => v.push("-traditional-cpp".into()),
        Stdc::A | Stdc::C | Stdc::T => v.push("-std=c99".into()),
    }
    for a in args {
        v.push(match a {
            CppArg::Define(d) => format!("-D{}", d),
            CppArg::Undef(u) => format!("-U{}", u),
            CppArg::Include(i) => format!("-I{}", i),
        });
    }
    if opts.cpphdrs {
        v.push("-H".into());
    }
    // Messages without columns, as DTrace for Linux shows them.
    v.push("-fno-show-column".into());
    v.push("-".into());
    v
}

/// Blanks an interpreter line (`#!...`), which cpp would refuse.
fn without_interpreter_line(text: &[u8]) -> Vec<u8> {
    if !text.starts_with(b"#!") {
        return text.to_vec();
    }
    let end = text.iter().position(|&c| c == b'\n').unwrap_or(text.len());
    text[end..].to_vec()
}

/// Runs the program's text through cpp; its messages (errors, `-H`'s
/// list) go to standard error, as cpp writes them.
pub fn preprocess(opts: &Options, args: &[CppArg], text: &[u8]) -> Result<Vec<u8>, Error> {
    let cpp = opts.cpppath.as_deref().unwrap_or(DEFAULT_CPP).to_string();
    let mut child = Command::new(&cpp)
        .args(arguments(opts, args))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            Error::Preprocessor(format!(
                "failed to run the C preprocessor {}: {} (install cpp, or name one with -xcpppath)",
                cpp,
                crate::io_reason(&e)
            ))
        })?;
    // cpp's messages go on to standard error, the program it read from
    // its standard input named `/dev/stdin` as DTrace for Linux names it
    // (cpp says `<stdin>`).
    let errors = child.stderr.take().map(|e| {
        std::thread::spawn(move || {
            let mut out = std::io::stderr();
            for line in std::io::BufReader::new(e)
                .split(b'\n')
                .map_while(Result::ok)
            {
                let line = match line.strip_prefix(b"<stdin>:") {
                    Some(rest) => [b"/dev/stdin:".as_slice(), rest].concat(),
                    None => line,
                };
                let _ = out.write_all(&line);
                let _ = out.write_all(b"\n");
            }
        })
    });
    let input = without_interpreter_line(text);
    // Written from a thread: cpp may fill its output pipe before it has
    // read all of its input.
    let mut stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(s) = stdin.as_mut() {
            let _ = s.write_all(&input);
        }
    });
    // Its output is read no further than the program limit: a macro
    // that expands without end stops there, cpp killed.
    let mut expanded = Vec::new();
    let read = child
        .stdout
        .take()
        .map(|o| o.take(crate::MAX_PROGRAM + 1).read_to_end(&mut expanded));
    if expanded.len() as u64 > crate::MAX_PROGRAM {
        let _ = child.kill();
        let _ = child.wait();
        let _ = writer.join();
        if let Some(t) = errors {
            let _ = t.join();
        }
        return Err(Error::Preprocessor(format!(
            "the C preprocessor's output is larger than {} MiB, the limit of a program",
            crate::MAX_PROGRAM >> 20
        )));
    }
    let status = child.wait();
    let _ = writer.join();
    if let Some(t) = errors {
        let _ = t.join();
    }
    if let Some(Err(e)) = read {
        return Err(Error::Preprocessor(format!(
            "failed to read the C preprocessor's output: {}",
            crate::io_reason(&e)
        )));
    }
    let status = status.map_err(|e| {
        Error::Preprocessor(format!(
            "failed to run the C preprocessor {}: {}",
            cpp,
            crate::io_reason(&e)
        ))
    })?;
    if !status.success() {
        return Err(Error::Preprocessor(
            "Preprocessor failed to process input program".into(),
        ));
    }
    Ok(expanded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_follow_the_options_in_order() {
        let mut o = Options::default();
        o.set("stdc", Some("s")).unwrap();
        o.set("cpphdrs", None).unwrap();
        let a = arguments(
            &o,
            &[
                CppArg::Define("VAL=5".into()),
                CppArg::Undef("__linux".into()),
                CppArg::Include("/tmp".into()),
            ],
        );
        assert!(a.contains(&"-U__GNUC__".to_string()));
        let tail: Vec<&str> = a.iter().map(String::as_str).skip(10).collect();
        assert_eq!(
            tail,
            [
                "-traditional-cpp",
                "-DVAL=5",
                "-U__linux",
                "-I/tmp",
                "-H",
                "-fno-show-column",
                "-"
            ]
        );
    }

    #[test]
    fn an_interpreter_line_is_blanked_keeping_the_line_count() {
        assert_eq!(
            without_interpreter_line(b"#!/usr/sbin/dtrace -Cs\nBEGIN\n"),
            b"\nBEGIN\n"
        );
        assert_eq!(without_interpreter_line(b"BEGIN\n"), b"BEGIN\n");
    }
}
