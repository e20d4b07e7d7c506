//! dtrace(1M)'s command line: options in any order, interleaved with
//! script arguments, probe descriptions kept in the order given.

use std::ffi::OsString;

use libdtrace::SpecKind;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Spec {
    /// `-s path`, kept as the bytes given (a file name need not be UTF-8).
    Script(OsString),
    /// `-n`/`-P`/`-m`/`-f` and the text given, as bytes (its strings
    /// need not be UTF-8).
    Desc(SpecKind, OsString),
    /// `-i`: a probe id, then an optional predicate and body.
    Id(OsString),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Exec,
    List,
    /// `-h`: write a C header for the scripts' provider definitions.
    Header,
    /// `-G`: write the object file build scripts link.
    Link,
    /// `-A`: save the programs as the anonymous enabling (none: remove
    /// it), with the unit that starts it at boot (`anon.rs`).
    Anon,
    /// `--anonymous-start`: start the saved anonymous enabling, pin it
    /// and exit (what the unit runs).
    AnonStart,
}

#[derive(Debug)]
pub struct Cmd {
    pub mode: Mode,
    pub verbose: bool,
    pub specs: Vec<Spec>,
    /// `-x` and the options other flags stand for, in order.
    pub options: Vec<CliOption>,
    /// `-c` commands, as given.
    pub commands: Vec<OsString>,
    pub pids: Vec<i32>,
    pub output: Option<OsString>,
    pub exit_after_compile: bool,
    /// `-S`: show the programs made (BPF instructions).
    pub show_programs: bool,
    /// Script arguments: `$1`, `$2`, ..., as given: their bytes reach D
    /// strings unchanged.
    pub args: Vec<OsString>,
    /// `-a`: claim the anonymous state.
    pub grab_anon: bool,
}

/// An option set on the command line, and how it was written there (for
/// "failed to set -x NAME" and "failed to set -b SIZE").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliOption {
    pub name: String,
    pub value: Option<String>,
    pub written: String,
}

impl CliOption {
    fn flag(name: &str, written: &str) -> CliOption {
        CliOption {
            name: name.into(),
            value: None,
            written: written.into(),
        }
    }
}

#[derive(Debug)]
pub enum CliError {
    /// Bad usage: an optional message, then the usage text; exit 2.
    Usage(Option<String>),
    /// A fatal error; exit 1.
    Fatal(String),
    /// Print this and exit (e.g. -V).
    Exit(u8, String),
}

/// dtrace(1M)'s flags, in the order its usage lists them: the flag, the
/// argument it takes (empty for none) and what it does. The usage
/// message and the manual page (`manual.rs`) are both made from it.
pub const FLAGS: &[(&str, &str, &str)] = &[
    ("-32", "", "generate 32-bit D programs and ELF files"),
    ("-64", "", "generate 64-bit D programs and ELF files"),
    ("-a", "", "claim anonymous tracing state"),
    (
        "-A",
        "",
        "generate driver.conf(4) directives for anonymous tracing",
    ),
    ("-b", "bufsz", "set trace buffer size"),
    (
        "-c",
        "cmd",
        "run specified command and exit upon its completion",
    ),
    ("-C", "", "run cpp(1) preprocessor on script files"),
    (
        "-D",
        "name[=def]",
        "define symbol when invoking preprocessor",
    ),
    (
        "-e",
        "",
        "exit after compiling request but prior to enabling probes",
    ),
    (
        "-f",
        "[[provider:]module:]func",
        "enable or list probes matching the specified function name",
    ),
    ("-F", "", "coalesce trace output by function"),
    (
        "-G",
        "",
        "generate an ELF file containing embedded dtrace program",
    ),
    (
        "-h",
        "",
        "generate a header file with definitions for static probes",
    ),
    ("-H", "", "print included files when invoking preprocessor"),
    (
        "-i",
        "probe-id",
        "enable or list probes matching the specified probe id",
    ),
    (
        "-I",
        "path",
        "add include directory to preprocessor search path",
    ),
    ("-l", "", "list probes matching specified criteria"),
    ("-L", "path", "add library directory to library search path"),
    (
        "-m",
        "[provider:]module",
        "enable or list probes matching the specified module name",
    ),
    (
        "-n",
        "[[[provider:]module:]func:]name",
        "enable or list probes matching the specified probe name",
    ),
    ("-o", "output", "set output file"),
    (
        "-p",
        "pid",
        "grab specified process-ID and cache its symbol tables",
    ),
    (
        "-P",
        "provider",
        "enable or list probes matching the specified provider name",
    ),
    (
        "-q",
        "",
        "set quiet mode (only output explicitly traced data)",
    ),
    (
        "-s",
        "script",
        "enable or list probes according to the specified D script",
    ),
    (
        "-S",
        "",
        "print D compiler intermediate code (BPF instructions)",
    ),
    ("-U", "name", "undefine symbol when invoking preprocessor"),
    (
        "-v",
        "",
        "set verbose mode (report stability attributes, arguments)",
    ),
    ("-V", "", "report DTrace API version"),
    ("-w", "", "permit destructive actions"),
    (
        "-x",
        "opt[=val]",
        "enable or modify compiler and tracing options",
    ),
    (
        "-X",
        "a|c|s|t",
        "specify ISO C conformance settings for preprocessor",
    ),
    ("-Z", "", "permit probe descriptions that match zero probes"),
];

/// The synopsis dtrace(1M) prints first in its usage.
pub const SYNOPSIS: &str = "\
Usage: dtrace [-32|-64] [-aACeFGhHlqSvVwZ] [-b bufsz] [-c cmd] [-D name[=def]]
\t[-I path] [-L path] [-o output] [-p pid] [-s script] [-U name]
\t[-x opt[=val]] [-X a|c|s|t]

\t[-P provider [[ predicate ] action ]]
\t[-m [ provider: ] module [[ predicate ] action ]]
\t[-f [[ provider: ] module: ] func [[ predicate ] action ]]
\t[-n [[[ provider: ] module: ] func: ] name [[ predicate ] action ]]
\t[-i probe-id [[ predicate ] action ]] [ args ... ]

\tpredicate -> '/' D-expression '/'
\t   action -> '{' D-statements '}'
";

/// dtrace(1M)'s usage message: the synopsis, then a line for each flag.
pub fn usage() -> String {
    let mut u = format!("{}\n", SYNOPSIS);
    for (flag, _, what) in FLAGS {
        u.push_str(&format!("\t{:<3} {}\n", flag, what));
        if *flag == "-64" {
            u.push('\n');
        }
    }
    u
}

/// The description as dtrace(1M) quotes it in "matched N probes": the
/// text up to the first `{`, `/` or `;`.
pub fn crop_description(text: &[u8]) -> &[u8] {
    let end = text
        .iter()
        .position(|c| b"{/;".contains(c))
        .unwrap_or(text.len());
    &text[..end]
}

fn os(v: OsString) -> String {
    v.to_string_lossy().into_owned()
}

pub fn parse(args: &[OsString]) -> Result<Cmd, CliError> {
    use lexopt::prelude::*;
    let mut cmd = Cmd {
        mode: Mode::Exec,
        verbose: false,
        specs: Vec::new(),
        options: Vec::new(),
        commands: Vec::new(),
        pids: Vec::new(),
        output: None,
        exit_after_compile: false,
        show_programs: false,
        args: Vec::new(),
        grab_anon: false,
    };
    let mut p = lexopt::Parser::from_args(args.iter().cloned());
    let usage_err = |e: lexopt::Error| CliError::Usage(Some(e.to_string()));
    // The last of -D, -U, -I, -H and -X given: each needs -C.
    let mut cpp_only: Option<char> = None;
    loop {
        let arg = match p.next() {
            Ok(Some(a)) => a,
            Ok(None) => break,
            Err(e) => return Err(usage_err(e)),
        };
        match arg {
            Short(c @ ('3' | '6')) => {
                // -32 / -64: the data model; only 64-bit exists here.
                let rest = p.optional_value().map(os).unwrap_or_default();
                match (c, rest.as_str()) {
                    ('6', "4") => {}
                    ('3', "2") => {
                        return Err(CliError::Fatal(
                            "-32 is not supported: D programs are 64-bit on this system".into(),
                        ))
                    }
                    _ => {
                        return Err(CliError::Usage(Some(format!(
                            "illegal option -- {}{}",
                            c, rest
                        ))))
                    }
                }
            }
            Short('n') => cmd
                .specs
                .push(Spec::Desc(SpecKind::Name, p.value().map_err(usage_err)?)),
            Short('P') => cmd.specs.push(Spec::Desc(
                SpecKind::Provider,
                p.value().map_err(usage_err)?,
            )),
            Short('m') => cmd
                .specs
                .push(Spec::Desc(SpecKind::Module, p.value().map_err(usage_err)?)),
            Short('f') => cmd.specs.push(Spec::Desc(
                SpecKind::Function,
                p.value().map_err(usage_err)?,
            )),
            Short('i') => {
                cmd.specs.push(Spec::Id(p.value().map_err(usage_err)?));
            }
            Short('s') => cmd.specs.push(Spec::Script(p.value().map_err(usage_err)?)),
            Short('l') => cmd.mode = Mode::List,
            Short('v') => cmd.verbose = true,
            Short('q') => cmd.options.push(CliOption::flag("quiet", "-q")),
            Short('w') => cmd.options.push(CliOption::flag("destructive", "-w")),
            Short('Z') => cmd.options.push(CliOption::flag("zdefs", "-Z")),
            Short('F') => cmd.options.push(CliOption::flag("flowindent", "-F")),
            Short('e') => cmd.exit_after_compile = true,
            Short('b') => {
                let size = os(p.value().map_err(usage_err)?);
                cmd.options.push(CliOption {
                    name: "bufsize".into(),
                    written: format!("-b {}", size),
                    value: Some(size),
                });
            }
            Short('x') => {
                let v = os(p.value().map_err(usage_err)?);
                let (name, value) = match v.split_once('=') {
                    Some((n, val)) => (n.to_string(), Some(val.to_string())),
                    None => (v, None),
                };
                cmd.options.push(CliOption {
                    written: format!("-x {}", name),
                    name,
                    value,
                });
            }
            Short('o') => cmd.output = Some(p.value().map_err(usage_err)?),
            Short('c') => cmd.commands.push(p.value().map_err(usage_err)?),
            Short('p') => {
                let v = os(p.value().map_err(usage_err)?);
                match v.parse::<i32>() {
                    Ok(pid) if pid > 0 => cmd.pids.push(pid),
                    _ => return Err(CliError::Fatal(format!("invalid process ID: {}", v))),
                }
            }
            Short('V') => return Err(CliError::Exit(0, "dtrace: Sun D 1.13\n".into())),
            Short('h') => {
                cmd.mode = Mode::Header;
                cmd.exit_after_compile = true;
            }
            Short('G') => {
                cmd.mode = Mode::Link;
                cmd.exit_after_compile = true;
            }
            Short('C') => cmd.options.push(CliOption::flag("cpp", "-C")),
            Short('H') => {
                cmd.options.push(CliOption::flag("cpphdrs", "-H"));
                cpp_only = Some('H');
            }
            Short(c @ ('D' | 'U' | 'I')) => {
                let v = os(p.value().map_err(usage_err)?);
                let name = match c {
                    'D' => "define",
                    'U' => "undef",
                    _ => "incdir",
                };
                cmd.options.push(CliOption {
                    name: name.into(),
                    written: format!("-{} {}", c, v),
                    value: Some(v),
                });
                cpp_only = Some(c);
            }
            Short('a') => cmd.options.push(CliOption::flag("grabanon", "-a")),
            Short('A') => cmd.mode = Mode::Anon,
            Short('S') => cmd.show_programs = true,
            Short('X') => {
                let v = os(p.value().map_err(usage_err)?);
                cmd.options.push(CliOption {
                    name: "stdc".into(),
                    written: format!("-X {}", v),
                    value: Some(v),
                });
                cpp_only = Some('X');
            }
            Short('L') => {
                let dir = os(p.value().map_err(usage_err)?);
                cmd.options.push(CliOption {
                    name: "libdir".into(),
                    written: format!("-L {}", dir),
                    value: Some(dir),
                });
            }
            Value(v) => cmd.args.push(v),
            Short(c) => return Err(CliError::Usage(Some(format!("illegal option -- {}", c)))),
            // `dtrace --man` alone prints the manual page (roff).
            Long("man") if args.len() == 1 => return Err(CliError::Exit(0, crate::manual::page())),
            // What dtrace-anon.service runs at boot (`dtrace -A`).
            Long("anonymous-start") if args.len() == 1 => cmd.mode = Mode::AnonStart,
            Long(l) => return Err(CliError::Usage(Some(format!("illegal option -- -{}", l)))),
        }
    }
    if let Some(c) = cpp_only {
        if !cmd.options.iter().any(|o| o.name == "cpp") {
            return Err(CliError::Fatal(format!(
                "-{} applies to the C preprocessor, which runs only with -C",
                c
            )));
        }
    }
    // -a, or -x grabanon, which it stands for.
    cmd.grab_anon = cmd.options.iter().any(|o| o.name == "grabanon");
    if cmd.mode == Mode::Anon && (!cmd.commands.is_empty() || !cmd.pids.is_empty()) {
        return Err(CliError::Fatal(
            "-A cannot be combined with -c or -p: an anonymous enabling starts at boot".into(),
        ));
    }
    if cmd.mode == Mode::Anon && cmd.grab_anon {
        return Err(CliError::Fatal(
            "-A and -a cannot be combined: -A saves an enabling, -a claims one".into(),
        ));
    }
    if matches!(cmd.mode, Mode::Header | Mode::Link) {
        let flag = if cmd.mode == Mode::Header { 'h' } else { 'G' };
        if !cmd.specs.iter().any(|s| matches!(s, Spec::Script(_))) {
            return Err(CliError::Fatal(format!(
                "-{} requires one or more scripts (-s) with provider definitions",
                flag
            )));
        }
        if !cmd.commands.is_empty() || !cmd.pids.is_empty() {
            return Err(CliError::Fatal(format!(
                "-{} cannot be combined with -c or -p: it traces nothing",
                flag
            )));
        }
    }
    Ok(cmd)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn clustered_flags_and_values() {
        let c = parse(&args(&[
            "-qn",
            "BEGIN { exit(0); }",
            "-x",
            "bufsize=1m",
            "-xquiet",
        ]))
        .unwrap();
        assert_eq!(
            c.specs,
            vec![Spec::Desc(SpecKind::Name, "BEGIN { exit(0); }".into())]
        );
        let opt = |o: &CliOption| (o.name.clone(), o.value.clone(), o.written.clone());
        assert_eq!(opt(&c.options[0]), ("quiet".into(), None, "-q".into()));
        assert_eq!(
            opt(&c.options[1]),
            ("bufsize".into(), Some("1m".into()), "-x bufsize".into())
        );
        assert_eq!(
            opt(&c.options[2]),
            ("quiet".into(), None, "-x quiet".into())
        );
    }

    #[test]
    fn script_arguments_interleave() {
        let c = parse(&args(&["-s", "x.d", "foo", "-q", "bar"])).unwrap();
        assert_eq!(c.specs, vec![Spec::Script("x.d".into())]);
        assert_eq!(c.args, args(&["foo", "bar"]));
    }

    #[test]
    fn shebang_style_qs() {
        let c = parse(&args(&["-qs", "/tmp/x.d", "1"])).unwrap();
        assert_eq!(c.specs, vec![Spec::Script("/tmp/x.d".into())]);
        assert_eq!(c.args, args(&["1"]));
    }

    #[test]
    fn keeps_the_bytes_of_names_commands_and_arguments() {
        use std::os::unix::ffi::OsStringExt;
        let b = |v: &[u8]| OsString::from_vec(v.to_vec());
        let c = parse(&[
            b(b"-s"),
            b(b"x\xe9.d"),
            b(b"a\xffb"),
            b(b"-c"),
            b(b"cat \xe9"),
            b(b"-qs\xff.d"),
        ])
        .unwrap();
        assert_eq!(
            c.specs,
            vec![Spec::Script(b(b"x\xe9.d")), Spec::Script(b(b"\xff.d"))]
        );
        assert_eq!(c.args, vec![b(b"a\xffb")]);
        assert_eq!(c.commands, vec![b(b"cat \xe9")]);
    }

    #[test]
    fn bad_usage() {
        assert!(matches!(parse(&args(&["-n"])), Err(CliError::Usage(_))));
        assert!(matches!(parse(&args(&["-k"])), Err(CliError::Usage(_))));
        assert!(matches!(
            parse(&args(&["-p", "abc"])),
            Err(CliError::Fatal(_))
        ));
    }

    #[test]
    fn crops_descriptions_like_dtrace() {
        assert_eq!(crop_description(b"BEGIN { exit(0); }"), b"BEGIN ");
        assert_eq!(
            crop_description(b"syscall::read:entry/pid == 1/{}"),
            b"syscall::read:entry"
        );
        assert_eq!(crop_description(b"BEGIN"), b"BEGIN");
    }
}
