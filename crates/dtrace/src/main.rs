//! dtrace(1M): the command-line consumer. A thin client of libdtrace: it
//! parses options as dtrace(1M) does, compiles and enables the programs
//! they name, runs the consumer loop, and prints what DTrace prints.

#![forbid(unsafe_code)]

mod cli;
mod list;

use std::ffi::OsString;
use std::io::{self, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::process::ExitCode;

use libdtrace::{
    Consume, Consumer, Dtrace, Error, ProbeData, ProgramSource, RecDesc, RecKind, WorkStatus,
};

use cli::{Cmd, Mode, Spec};

/// Exit statuses, as dtrace(1M) uses them.
const E_SUCCESS: u8 = 0;
const E_ERROR: u8 = 1;
const E_USAGE: u8 = 2;

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let cmd = match cli::parse(&args) {
        Ok(c) => c,
        Err(cli::CliError::Usage(msg)) => {
            if let Some(m) = msg {
                eprintln!("dtrace: {}", m);
            }
            eprint!("{}", cli::usage());
            return ExitCode::from(E_USAGE);
        }
        Err(cli::CliError::Fatal(msg)) => {
            eprintln!("dtrace: {}", msg);
            return ExitCode::from(E_ERROR);
        }
        Err(cli::CliError::Exit(code, text)) => {
            print!("{}", text);
            return ExitCode::from(code);
        }
    };
    ExitCode::from(run(cmd))
}

/// Prints "dtrace: msg" to stderr.
fn fatal(msg: impl std::fmt::Display) -> u8 {
    eprintln!("dtrace: {}", msg);
    E_ERROR
}

/// Prints "dtrace: " and the parts to stderr as bytes: file names,
/// commands and script arguments need not be UTF-8, and are shown as given.
fn eprint_bytes(parts: &[&[u8]]) {
    let mut m = b"dtrace: ".to_vec();
    for p in parts {
        m.extend_from_slice(p);
    }
    m.push(b'\n');
    let _ = io::stderr().write_all(&m);
}

/// The probe and record callbacks: dtrace(1M)'s `chew` and `chewrec`.
struct Chew {
    quiet: bool,
    heading: bool,
    status: Option<i32>,
}

impl Consumer for Chew {
    fn probe(&mut self, out: &mut dyn Write, pd: &ProbeData) -> Consume {
        if !self.quiet {
            if !self.heading {
                let _ = writeln!(out, "{:>3} {:>6} {:>32}", "CPU", "ID", "FUNCTION:NAME");
                self.heading = true;
            }
            let name = format!("{}:{}", pd.probe.function, pd.probe.name);
            let _ = write!(out, "{:>3} {:>6} {:>32} ", pd.cpu, pd.probe_id, name);
        }
        Consume::This
    }

    fn record(&mut self, out: &mut dyn Write, _pd: &ProbeData, rec: Option<&RecDesc>) -> Consume {
        match rec {
            None => {
                if !self.quiet {
                    let _ = writeln!(out);
                }
                Consume::Next
            }
            Some(r) if r.kind == RecKind::Exit => {
                self.status = r.int_value.map(|v| v as i32);
                Consume::Next
            }
            Some(_) => Consume::This,
        }
    }
}

fn open_output(cmd: &Cmd) -> Result<Box<dyn Write>, u8> {
    match &cmd.output {
        Some(path) => match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            Ok(f) => Ok(Box::new(io::BufWriter::new(f))),
            Err(e) => {
                let why = io_reason(&e);
                eprint_bytes(&[
                    b"failed to open output file '",
                    path.as_bytes(),
                    b"': ",
                    why.as_bytes(),
                ]);
                Err(E_ERROR)
            }
        },
        None => Ok(Box::new(io::BufWriter::new(io::stdout()))),
    }
}

/// The message, without "dtrace: ", for a program that failed to compile.
fn compile_error(spec: &Spec, e: &Error, errtags: bool) -> Vec<u8> {
    let what = match e {
        Error::Compile(c) => c.render(errtags),
        other => other.to_string(),
    };
    let (head, text): (&[u8], _) = match spec {
        Spec::Script(path) => (b"failed to compile script ", path),
        Spec::Desc(_, text) | Spec::Id(text) => (b"invalid probe specifier ", text),
    };
    [head, text.as_bytes(), b": ", what.as_bytes()].concat()
}

/// Turns `-i id [body]` into the description of probe `id`; the error
/// is the message (bytes: the body need not be UTF-8).
pub(crate) fn resolve_id(dt: &Dtrace, spec: &Spec) -> Result<Spec, Vec<u8>> {
    let Spec::Id(text) = spec else {
        return Ok(spec.clone());
    };
    let text = text.as_bytes();
    let digits = text
        .iter()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let id = String::from_utf8_lossy(&text[..digits]);
    let probe = id
        .parse::<u32>()
        .ok()
        .and_then(|id| dt.probes().get(id))
        .ok_or_else(|| {
            let tail = format!(": probe ID {} does not exist", id);
            [b"invalid probe specifier ", text, tail.as_bytes()].concat()
        })?;
    let mut desc = probe.desc.to_string().into_bytes();
    desc.extend_from_slice(&text[digits..]);
    Ok(Spec::Desc(
        libdtrace::SpecKind::Name,
        OsString::from_vec(desc),
    ))
}

fn run(cmd: Cmd) -> u8 {
    let mut dt = match Dtrace::open() {
        Ok(d) => d,
        // The privilege message already reads as dtrace(1M)'s.
        Err(e @ Error::Privilege(_)) => return fatal(e),
        Err(e) => return fatal(format!("failed to initialize dtrace: {}", e)),
    };
    for (name, value) in &cmd.options {
        if let Err(e) = dt.setopt(name, value.as_deref()) {
            return fatal(e);
        }
    }

    // Processes come first, so that $target is known when compiling.
    let mut targets: Vec<dtrace_sys::process::Target> = Vec::new();
    for c in &cmd.commands {
        let argv: Vec<OsString> = c
            .as_bytes()
            .split(u8::is_ascii_whitespace)
            .filter(|w| !w.is_empty())
            .map(|w| OsString::from_vec(w.to_vec()))
            .collect();
        match dtrace_sys::process::Target::create(&argv) {
            Ok(t) => targets.push(t),
            Err(e) => {
                let why = io_reason(&e);
                eprint_bytes(&[b"failed to execute ", c.as_bytes(), b": ", why.as_bytes()]);
                return E_ERROR;
            }
        }
    }
    for &pid in &cmd.pids {
        match dtrace_sys::process::Target::grab(pid) {
            Ok(t) => targets.push(t),
            Err(e) => return fatal(format!("failed to grab pid {}: {}", pid, io_reason(&e))),
        }
    }
    if let Some(t) = targets.first() {
        dt.set_target(t.pid());
    }

    if cmd.mode == Mode::List {
        return list::list(&mut dt, &cmd);
    }
    if cmd.specs.is_empty() {
        eprintln!("dtrace: no probes specified");
        return E_USAGE;
    }

    let errtags = dt.options().flag("errtags");
    let mut specs = Vec::new();
    for spec in &cmd.specs {
        match resolve_id(&dt, spec) {
            Ok(s) => specs.push(s),
            Err(msg) => {
                eprint_bytes(&[&msg]);
                return E_ERROR;
            }
        }
    }
    let mut programs = Vec::new();
    for spec in &specs {
        let (text, source, arg0) = match spec {
            // Scripts are bytes: what is not UTF-8 in their strings
            // reaches the output unchanged.
            Spec::Script(path) => {
                let text = if path == "-" {
                    let mut s = Vec::new();
                    if let Err(e) = io::Read::read_to_end(&mut io::stdin(), &mut s) {
                        return fatal(format!("failed to read standard input: {}", e));
                    }
                    s
                } else {
                    match std::fs::read(path) {
                        Ok(b) => b,
                        Err(e) => {
                            let why = io_reason(&e);
                            eprint_bytes(&[
                                b"failed to open ",
                                path.as_bytes(),
                                b": ",
                                why.as_bytes(),
                            ]);
                            return E_ERROR;
                        }
                    }
                };
                (text, ProgramSource::File, path.as_bytes())
            }
            Spec::Desc(kind, text) => (
                text.as_bytes().to_vec(),
                ProgramSource::Description(*kind),
                &b"dtrace"[..],
            ),
            Spec::Id(_) => unreachable!("resolved above"),
        };
        let args: Vec<&[u8]> = cmd.args.iter().map(|a| a.as_bytes()).collect();
        dt.set_args(arg0, &args);
        match dt.compile(&text, source) {
            Ok(p) => programs.push((spec.clone(), p)),
            Err(e) => {
                for t in &mut targets {
                    t.kill();
                }
                eprint_bytes(&[&compile_error(
                    spec,
                    &e,
                    dt.options().flag("errtags") || errtags,
                )]);
                return E_ERROR;
            }
        }
    }
    if cmd.exit_after_compile {
        return E_SUCCESS;
    }

    let quiet = dt.options().flag("quiet");
    for (spec, p) in &programs {
        match dt.exec(p) {
            Ok(info) => {
                if !quiet {
                    let n = info.matches;
                    let what = match spec {
                        Spec::Script(path) => [b"script '", path.as_bytes(), b"'"].concat(),
                        Spec::Desc(_, text) | Spec::Id(text) => [
                            b"description '",
                            cli::crop_description(text.as_bytes()),
                            b"'",
                        ]
                        .concat(),
                    };
                    let matched = format!(" matched {} probe{}", n, if n == 1 { "" } else { "s" });
                    eprint_bytes(&[&what, matched.as_bytes()]);
                }
            }
            Err(e) => return fatal(e),
        }
    }
    if dt.options().flag("destructive") && !quiet {
        eprintln!("dtrace: allowing destructive actions");
    }

    let mut out = match open_output(&cmd) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let signals = match dtrace_sys::poll::StopSignals::install() {
        Ok(s) => s,
        Err(e) => return fatal(format!("failed to install signal handlers: {}", e)),
    };
    let mut chew = Chew {
        quiet,
        heading: false,
        status: None,
    };
    if let Err(e) = dt.go() {
        for t in &mut targets {
            t.kill();
        }
        return fatal(e);
    }
    for t in &mut targets {
        if let Err(e) = t.release() {
            return fatal(format!("failed to start target: {}", e));
        }
    }

    let mut done = false;
    let mut fds: Vec<i32> = vec![signals.fd()];
    fds.extend(targets.iter().map(|t| t.fd()));
    let mut live = targets.len();
    let mut reported = vec![false; targets.len()];
    loop {
        let intr = signals.count();
        if intr == 0 && !done {
            dt.sleep(&fds);
        }
        let intr = signals.count();
        for (t, rep) in targets.iter_mut().zip(reported.iter_mut()) {
            if !*rep && t.poll_exited() {
                *rep = true;
                live -= 1;
                if !dt.options().flag("quiet") {
                    eprintln!("dtrace: pid {} has exited", t.pid());
                }
            }
        }
        if done || intr > 0 || (!targets.is_empty() && live == 0) {
            done = true;
            if let Err(e) = dt.stop() {
                return fatal(format!("couldn't stop tracing: {}", e));
            }
        }
        match dt.work(&mut out, &mut chew) {
            Ok(WorkStatus::Done) => done = true,
            Ok(WorkStatus::Okay) => {}
            Err(e) => {
                let _ = out.flush();
                return fatal(format!("processing aborted: {}", e));
            }
        }
        if out.flush().is_err() {
            // A closed output ends tracing, as a failed write does in DTrace.
            done = true;
        }
        if done && dt.stopped() {
            break;
        }
    }
    let _ = writeln!(out);
    if signals.count() < 2 {
        if let Err(e) = dt.aggregate_print(&mut out) {
            let _ = out.flush();
            return fatal(format!("failed to print aggregations: {}", e));
        }
    }
    let _ = out.flush();
    for t in &mut targets {
        t.kill();
    }
    chew.status.map(|s| s as u8).unwrap_or(E_SUCCESS)
}

/// strerror-style wording of an I/O error, without Rust's "(os error N)".
fn io_reason(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}
