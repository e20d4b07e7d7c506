//! dtrace(1M): the command-line consumer. A thin client of libdtrace: it
//! parses options as dtrace(1M) does, compiles and enables the programs
//! they name, runs the consumer loop, and prints what DTrace prints.

#![forbid(unsafe_code)]

#[macro_use]
mod output;
mod anon;
mod cli;
mod list;
mod manual;
mod static_probes;

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::process::ExitCode;

use libdtrace::{
    io_reason, Consume, Consumer, Dtrace, Error, Flow, OpenOptions, ProbeData, ProgramSource,
    RecDesc, RecKind, WorkStatus,
};

use cli::{Cmd, Mode, Spec};

/// Exit statuses, as dtrace(1M) uses them.
const E_SUCCESS: u8 = 0;
const E_ERROR: u8 = 1;
const E_USAGE: u8 = 2;

fn main() -> ExitCode {
    libdtrace::phase::mark("main");
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    // Run with nothing to do, dtrace(1M) says how to use it.
    if args.is_empty() {
        output::note(format_args!("{}", cli::usage()));
        return ExitCode::from(E_USAGE);
    }
    let cmd = match cli::parse(&args) {
        Ok(c) => c,
        Err(cli::CliError::Usage(msg)) => {
            if let Some(m) = msg {
                note!("dtrace: {}", m);
            }
            output::note(format_args!("{}", cli::usage()));
            return ExitCode::from(E_USAGE);
        }
        Err(cli::CliError::Fatal(msg)) => {
            note!("dtrace: {}", msg);
            return ExitCode::from(E_ERROR);
        }
        Err(cli::CliError::Exit(code, text)) => {
            if io::stdout().write_all(text.as_bytes()).is_err() {
                return ExitCode::from(E_ERROR);
            }
            return ExitCode::from(code);
        }
    };
    let code = run(cmd);
    libdtrace::phase::mark("closed");
    ExitCode::from(code)
}

/// Prints "dtrace: msg" to stderr.
fn fatal(msg: impl std::fmt::Display) -> u8 {
    note!("dtrace: {}", msg);
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
    output::note_bytes(&m);
}

/// A size as dtrace(1M) writes one: in the largest unit that divides it
/// (`128m`, `4k`), else in bytes.
fn size_text(n: u64) -> String {
    for (shift, unit) in [(40, 't'), (30, 'g'), (20, 'm'), (10, 'k')] {
        if n >= 1 << shift && n.is_multiple_of(1 << shift) {
            return format!("{}{}", n >> shift, unit);
        }
    }
    n.to_string()
}

/// The probe and record callbacks: dtrace(1M)'s `chew` and `chewrec`.
struct Chew {
    quiet: bool,
    flowindent: bool,
    heading: bool,
    status: Option<i32>,
}

impl Consumer for Chew {
    fn probe(&mut self, out: &mut dyn Write, pd: &ProbeData) -> Consume {
        if self.flowindent {
            // Flow indentation prints its columns even when quiet, as
            // dtrace(1M) does.
            if !self.heading {
                let _ = writeln!(out, "{:>3} {:<41}", "CPU", "FUNCTION");
                self.heading = true;
            }
            let name = if pd.flow == Flow::None {
                format!(
                    "{:indent$}{}{}:{}",
                    "",
                    pd.prefix,
                    pd.probe.function,
                    pd.probe.name,
                    indent = pd.indent
                )
            } else {
                format!(
                    "{:indent$}{}{}",
                    "",
                    pd.prefix,
                    pd.probe.function,
                    indent = pd.indent
                )
            };
            let _ = write!(out, "{:>3} {:<41} ", pd.cpu, name);
        } else if !self.quiet {
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

    /// Quiet, and without flow indentation, a printf() firing's
    /// callbacks print nothing.
    fn sees_printf(&self) -> bool {
        !self.quiet || self.flowindent
    }

    fn setopt(&mut self, name: &str, value: Option<&str>) {
        let on = value != Some("0") && value != Some("off");
        match name {
            "quiet" => self.quiet = on,
            "flowindent" => self.flowindent = on,
            _ => {}
        }
    }
}

/// `-S`: the BPF programs of the enabled probes, on standard error (where
/// DTrace shows its DIF); the exit status if they cannot be made.
fn show_programs(dt: &Dtrace) -> Option<u8> {
    match dt.programs_text() {
        Ok(text) => {
            output::note(format_args!("{}", text));
            None
        }
        Err(e) => Some(fatal(e)),
    }
}

/// The output file (`-o`) or standard output, and its name for messages.
fn open_output(cmd: &Cmd) -> Result<(output::Sink, String), u8> {
    let opened = match &cmd.output {
        Some(path) => std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(output::Sink::new)
            .map(|s| (s, path.to_string_lossy().into_owned()))
            .map_err(|e| {
                let why = io_reason(&e);
                eprint_bytes(&[
                    b"failed to open output file '",
                    path.as_bytes(),
                    b"': ",
                    why.as_bytes(),
                ]);
                E_ERROR
            }),
        None => output::Sink::new(io::stdout())
            .map(|s| (s, "<stdout>".to_string()))
            .map_err(|e| fatal(format!("failed to open standard output: {}", io_reason(&e)))),
    };
    opened
}

/// A program's stability report (`-v`): the lowest attributes of its
/// probe descriptions and of its statements, as dtrace(1M) words it.
fn stability_report(out: &mut String, spec: &Spec, info: &libdtrace::ProgramInfo) {
    let (what, name) = match spec {
        Spec::Script(path) => ("script", path.to_string_lossy().into_owned()),
        Spec::Desc(_, text) | Spec::Id(text) => (
            "description",
            String::from_utf8_lossy(cli::crop_description(text.as_bytes())).into_owned(),
        ),
    };
    out.push_str(&format!("\nStability attributes for {} {}:\n", what, name));
    list::attributes(out, "Minimum Probe Description Attributes", info.desc_attr);
    list::attributes(out, "Minimum Statement Attributes", info.stmt_attr);
}

/// Writes a report where the trace would go (standard output or `-o`).
fn write_report(cmd: &Cmd, report: &str) -> Result<(), u8> {
    use std::io::Write;
    let (mut sink, name) = open_output(cmd)?;
    sink.write_all(report.as_bytes())
        .and_then(|()| sink.flush())
        .map_err(|e| fatal(format!("failed to write to {}: {}", name, io_reason(&e))))
}

/// How many refused probe places dtrace names one by one.
const MAX_NAMED_PLACES: usize = 20;

/// The largest script dtrace reads (`-s /dev/zero` must not run away).
const MAX_SCRIPT: u64 = libdtrace::MAX_PROGRAM;

/// Reads a script, refusing one larger than [`MAX_SCRIPT`].
fn read_script(mut from: impl io::Read, name: &str) -> Result<Vec<u8>, String> {
    let mut text = Vec::new();
    (&mut from)
        .take(MAX_SCRIPT + 1)
        .read_to_end(&mut text)
        .map_err(|e| format!("failed to read {}: {}", name, io_reason(&e)))?;
    if text.len() as u64 > MAX_SCRIPT {
        return Err(format!(
            "failed to read {}: scripts are limited to {} MiB",
            name,
            MAX_SCRIPT >> 20
        ));
    }
    Ok(text)
}

/// The message, without "dtrace: ", for a program that failed to compile.
fn compile_error(spec: &Spec, e: &Error, errtags: bool) -> Vec<u8> {
    let what = match (e, spec) {
        (Error::Compile(c), Spec::Script(_)) => c.render(errtags),
        (Error::Compile(c), _) => c.render_command_line(errtags),
        (other, _) => other.to_string(),
    };
    let (head, text): (&[u8], _) = match spec {
        Spec::Script(path) => (b"failed to compile script ", path),
        Spec::Desc(_, text) | Spec::Id(text) => (b"invalid probe specifier ", text),
    };
    [head, text.as_bytes(), b": ", what.as_bytes()].concat()
}

/// Turns `-i id [body]` into the description of probe `id`; the error
/// is the message (bytes: the body need not be UTF-8).
pub(crate) fn resolve_id(dt: &mut Dtrace, spec: &Spec) -> Result<Spec, Vec<u8>> {
    let Spec::Id(text) = spec else {
        return Ok(spec.clone());
    };
    let text = text.as_bytes();
    let digits = text
        .iter()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(text.len());
    if digits == 0 {
        // Not a probe ID: dtrace(1M) takes it as a probe name, as -n does.
        return Ok(Spec::Desc(
            libdtrace::SpecKind::Name,
            OsString::from_vec(text.to_vec()),
        ));
    }
    let id = String::from_utf8_lossy(&text[..digits]);
    let number = id.parse::<u32>().ok();
    if let Some(n) = number {
        dt.provide_id(n);
    }
    let probe = number.and_then(|id| dt.probe(id)).ok_or_else(|| {
        let tail = format!(": probe ID {} does not exist", id);
        [b"invalid probe specifier ", text, tail.as_bytes()].concat()
    })?;
    let mut desc = probe.to_string().into_bytes();
    desc.extend_from_slice(&text[digits..]);
    Ok(Spec::Desc(
        libdtrace::SpecKind::Name,
        OsString::from_vec(desc),
    ))
}

/// `-A`, `--anonymous-start` and `-a` before the handle opens: the
/// enabling removed (`-A` alone), or the saved one (to start) or the
/// started one (to claim) read into `cmd`; `Err` is the exit status.
fn anonymous(cmd: &mut Cmd) -> Result<(), u8> {
    let state = || libdtrace::anonymous_dir().map_err(fatal);
    match cmd.mode {
        Mode::Anon if cmd.specs.is_empty() => {
            let dir = state()?;
            for said in anon::clean(Some(&dir)) {
                note!("dtrace: {}", said);
            }
            return Err(E_SUCCESS);
        }
        Mode::AnonStart => {
            if state()?.exists() {
                return Err(fatal(format!(
                    "could not enable tracing: anonymous state exists already in {}: claim it (dtrace -a) or remove it (dtrace -A)",
                    state()?.display()
                )));
            }
            let e = anon::load(std::path::Path::new(anon::SAVED)).map_err(fatal)?;
            cmd.specs = e.specs;
            cmd.options = e.options;
            cmd.args = e.args;
            libdtrace::want_pinnable(true);
        }
        _ => {}
    }
    if cmd.grab_anon {
        if !cmd.specs.is_empty() {
            return Err(fatal(
                "could not enable tracing: Can't claim anonymous state and enable probes",
            ));
        }
        let e = match anon::load(&anon::started()) {
            Ok(e) if state()?.is_dir() => e,
            _ => {
                return Err(fatal(
                    "could not enable tracing: No anonymous tracing state",
                ))
            }
        };
        // The enabling's options, then the command line's.
        let mine = std::mem::take(&mut cmd.options);
        cmd.options = e.options;
        cmd.options.extend(mine);
        cmd.specs = e.specs;
        cmd.args = e.args;
    }
    Ok(())
}

fn run(mut cmd: Cmd) -> u8 {
    if let Err(code) = anonymous(&mut cmd) {
        return code;
    }
    let mut dt = match Dtrace::open() {
        Ok(d) => d,
        // -h and -G trace nothing: without the privilege to trace, they
        // compile on a handle opened with no device (as dtrace(1M) opens
        // none for them), the kernel's types still known.
        Err(Error::Privilege(_)) if matches!(cmd.mode, Mode::Header | Mode::Link) => {
            match OpenOptions::new().no_device(true).open() {
                Ok(d) => d,
                Err(e) => return fatal(format!("failed to initialize dtrace: {}", e)),
            }
        }
        // The privilege message already reads as dtrace(1M)'s.
        Err(e @ Error::Privilege(_)) => return fatal(e),
        Err(e) => return fatal(format!("failed to initialize dtrace: {}", e)),
    };
    libdtrace::phase::mark("opened");
    for o in &cmd.options {
        match dt.setopt(&o.name, o.value.as_deref()) {
            Ok(()) => {}
            Err(Error::Option { err, .. }) => {
                return fatal(format!("failed to set {}: {}", o.written, err))
            }
            Err(e) => return fatal(e),
        }
    }
    // The principal buffers are made from here on, while the programs
    // compile (not for -l or -e, which run nothing).
    if cmd.mode != Mode::List
        && cmd.mode != Mode::Anon
        && !cmd.grab_anon
        && !cmd.exit_after_compile
        && !cmd.specs.is_empty()
    {
        dt.prepare();
    }

    // Processes come first, so that $target is known when compiling.
    let proc_events = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let events = proc_events.clone();
    dt.handle_proc(move |e| {
        if let Ok(mut v) = events.lock() {
            v.push(e.clone());
        }
    });
    for c in &cmd.commands {
        let argv: Vec<OsString> = c
            .as_bytes()
            .split(u8::is_ascii_whitespace)
            .filter(|w| !w.is_empty())
            .map(|w| OsString::from_vec(w.to_vec()))
            .collect();
        if let Err(e) = dt.proc_create(&argv) {
            eprint_bytes(&[&e.message()]);
            return E_ERROR;
        }
    }
    for &pid in &cmd.pids {
        if let Err(e) = dt.proc_grab(pid) {
            return fatal(e);
        }
    }

    if cmd.mode == Mode::List {
        return list::list(&mut dt, &cmd);
    }
    if cmd.specs.is_empty() {
        note!("dtrace: no probes specified");
        return E_USAGE;
    }

    // -h and -G compile provider definitions: clauses beside them
    // need not match probes here.
    if matches!(cmd.mode, Mode::Header | Mode::Link) {
        let _ = dt.setopt("zdefs", None);
    }
    let errtags = dt.options().errtags;
    let mut specs = Vec::new();
    for spec in &cmd.specs {
        match resolve_id(&mut dt, spec) {
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
                let read = if path == "-" {
                    read_script(io::stdin(), "standard input")
                } else {
                    match std::fs::File::open(path) {
                        Ok(f) => read_script(f, &path.to_string_lossy()),
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
                let text = match read {
                    Ok(b) => b,
                    Err(msg) => return fatal(msg),
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
        // -G's operands are object files, not script arguments.
        let args: Vec<&[u8]> = match cmd.mode {
            Mode::Link => Vec::new(),
            _ => cmd.args.iter().map(|a| a.as_bytes()).collect(),
        };
        dt.set_args(arg0, &args);
        match dt.compile(&text, source) {
            Ok(p) => programs.push((spec.clone(), p)),
            Err(e) => {
                // (Created commands are killed as dt drops.)
                eprint_bytes(&[&compile_error(spec, &e, dt.options().errtags || errtags)]);
                return E_ERROR;
            }
        }
    }
    libdtrace::phase::mark("compiled");
    if matches!(cmd.mode, Mode::Header | Mode::Link) {
        return static_probes::write(&dt, &cmd);
    }
    if cmd.mode == Mode::Anon {
        return save_anonymous(&cmd);
    }
    // -a with -e claims the state, then stops at once.
    if cmd.exit_after_compile && !cmd.grab_anon {
        // -v with -e: each program's stability report, and what each of
        // its descriptions matches, as dtrace(1M) lists them.
        if cmd.verbose {
            let mut report = String::new();
            for (spec, p) in &programs {
                let info = dt.program_info(p);
                stability_report(&mut report, spec, &info);
                for (d, probe) in dt.statements(p) {
                    report.push_str(&format!("\n{}\n", d));
                    if let Some(probe) = probe {
                        list::attributes(&mut report, "Probe Description Attributes", probe.attr);
                        list::attributes(&mut report, "Argument Attributes", probe.args);
                        report.push_str("\n\tArgument Types\n");
                        for (i, t) in probe.arg_types.iter().enumerate() {
                            report.push_str(&format!("\t\targs[{}]: {}\n", i, t));
                        }
                        if probe.arg_types.is_empty() {
                            report.push_str("\t\tNone\n");
                        }
                        report.push('\n');
                    }
                }
            }
            if let Err(code) = write_report(&cmd, &report) {
                return code;
            }
        }
        // -S with -e: the programs are shown, nothing is enabled.
        if cmd.show_programs {
            for (_, p) in &programs {
                if let Err(e) = dt.exec(p) {
                    return fatal(e);
                }
            }
            return show_programs(&dt).unwrap_or(E_SUCCESS);
        }
        return E_SUCCESS;
    }

    let quiet = dt.options().quiet;
    let mut total = 0;
    // -v: each program's stability report, written once the output is
    // open (it goes where the trace goes).
    let mut report = String::new();
    for (spec, p) in &programs {
        match dt.exec(p) {
            Ok(info) => {
                total += info.matches;
                if cmd.verbose {
                    stability_report(&mut report, spec, &info);
                    report.push('\n');
                }
                if !quiet && !cmd.grab_anon {
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
    // As dtrace(1M): nothing to trace is an error, unless -Z said that
    // descriptions may match nothing.
    if total == 0 && !dt.options().zdefs {
        return fatal(if programs.is_empty() {
            "no probes specified"
        } else {
            "no probes matched"
        });
    }
    if cmd.show_programs {
        if let Some(code) = show_programs(&dt) {
            return code;
        }
    }
    if dt.options().destructive && !quiet {
        note!("dtrace: allowing destructive actions");
    }

    let (mut sink, out_name) = match open_output(&cmd) {
        Ok(o) => o,
        Err(code) => return code,
    };
    if !report.is_empty() {
        use std::io::Write;
        if let Err(e) = sink.write_all(report.as_bytes()) {
            return fatal(format!(
                "failed to write to {}: {}",
                out_name,
                io_reason(&e)
            ));
        }
    }
    let signals = match libdtrace::signals::StopSignals::install() {
        Ok(s) => s,
        Err(e) => return fatal(format!("failed to install signal handlers: {}", e)),
    };
    // Writes to a stalled reader give way to SIGINT and SIGTERM.
    if let Ok(wake) = signals.wake_fd().try_clone_to_owned() {
        sink.watch_signals(wake);
    }
    if let Ok(wake) = signals.wake_fd().try_clone_to_owned() {
        output::watch_signals_on_stderr(wake);
    }
    // Structured output (`-x oformat=json`) is the library's alone: the
    // command adds no columns, blank lines or headings to it, and drops
    // and errors are objects in it rather than lines on stderr.
    let structured = dt.options().oformat == libdtrace::OFormat::Json;
    if !structured {
        dt.handle_err(|e| note!("dtrace: {}", e.msg));
        dt.handle_drop(|d| note!("dtrace: {}", d.msg));
    }
    let failure = sink.failure();
    if let Ok(f) = sink.try_clone_file() {
        dt.set_output_file(f);
    }
    let mut out = io::BufWriter::new(sink);
    let mut chew = Chew {
        quiet: quiet || structured,
        flowindent: dt.options().flowindent,
        heading: false,
        status: None,
    };
    // Targets are killed when dtrace returns, whatever the way: they drop.
    // A stop signal during the set-up abandons it: dtrace ends as the
    // signal would have ended it, with nothing left behind.
    // A cancelled or failed set-up has closed the handle.
    // With grabanon (-a), go claims the anonymous state.
    let mut dt = match dt.go_until(&|| libdtrace::signals::stop_signals() > 0) {
        Ok(session) => session,
        Err(Error::Cancelled) => {
            libdtrace::signals::die_of_stop_signal();
            return E_ERROR;
        }
        Err(e) => return fatal(e),
    };
    if cmd.mode == Mode::AnonStart {
        return pin_anonymous(&dt);
    }
    if cmd.grab_anon {
        // Claimed: the enabling as started goes with the pins.
        let _ = std::fs::remove_dir_all(anon::started());
    }
    // Buffers the kernel made smaller (bufresize=auto), as dtrace(1M)
    // reports them.
    for (what, size) in dt.lowered_sizes() {
        note!("dtrace: {} lowered to {}", what, size_text(*size));
    }
    for n in dt.notices() {
        note!("dtrace: {}", n);
    }
    // Places the kernel cannot put a uprobe (pid probes over every
    // instruction, or every function of a library) are left out.
    // Each is named, up to a screenful.
    let refused = dt.refused_places();
    for (place, why) in refused.iter().take(MAX_NAMED_PLACES) {
        note!("dtrace: {} left out: {}", place, why);
    }
    if refused.len() > MAX_NAMED_PLACES {
        note!(
            "dtrace: {} more probe places left out",
            refused.len() - MAX_NAMED_PLACES
        );
    }
    for pid in dt.proc_pids() {
        if let Err(e) = dt.proc_continue(pid) {
            return fatal(e);
        }
    }

    let mut done = cmd.grab_anon && cmd.exit_after_compile;
    let fds: Vec<i32> = vec![signals.fd()];
    loop {
        let intr = signals.count();
        if intr == 0 && !done {
            dt.sleep(&fds);
        }
        let intr = signals.count();
        // A target's exit, as dtrace(1M)'s process handler says it.
        let told: Vec<libdtrace::ProcEvent> = match proc_events.lock() {
            Ok(mut v) => v.drain(..).collect(),
            Err(_) => Vec::new(),
        };
        for e in told {
            if let (Some(n), false) = (e.notice(), dt.options().quiet) {
                note!("dtrace: {}", n);
            }
        }
        if done || intr > 0 || (dt.has_procs() && dt.live_procs() == 0) {
            if !done {
                libdtrace::phase::mark("stop");
            }
            done = true;
            if let Err(e) = dt.stop() {
                return fatal(format!("couldn't stop tracing: {}", e));
            }
        }
        let worked = dt.work(&mut out, &mut chew);
        let flushed = out.flush();
        // A failed write ends dtrace at once, as DTrace's oprintf does:
        // what was traced can no longer be shown.
        if let Some(code) = output_failed(&failure, &out_name) {
            return code;
        }
        match worked {
            Ok(WorkStatus::Done) => done = true,
            Ok(WorkStatus::Okay) => {}
            // A freopen()ed file that cannot be written is said as -o's.
            Err(e @ Error::Write { .. }) => return fatal(e),
            Err(e) => return fatal(format!("processing aborted: {}", e)),
        }
        if let Err(e) = flushed {
            return fatal(format!(
                "failed to write to {}: {}",
                out_name,
                io_reason(&e)
            ));
        }
        if done && dt.stopped() {
            break;
        }
    }
    libdtrace::phase::mark("drained");
    if !structured {
        let _ = writeln!(out);
    }
    let printed = if signals.count() < 2 {
        dt.aggregate_print(&mut out)
    } else {
        Ok(())
    };
    let flushed = out.flush();
    if let Some(code) = output_failed(&failure, &out_name) {
        return code;
    }
    if let Err(e) = printed {
        return fatal(format!("failed to print aggregations: {}", e));
    }
    if let Err(e) = flushed {
        return fatal(format!(
            "failed to write to {}: {}",
            out_name,
            io_reason(&e)
        ));
    }
    libdtrace::phase::mark("printed");
    chew.status.map(|s| s as u8).unwrap_or(E_SUCCESS)
}

/// `-A` with programs, compiled: the old enabling cleaned up, the new
/// one saved and its unit added, as dtrace(1M) says it (whatever
/// `quiet` says: these are not notices).
fn save_anonymous(cmd: &Cmd) -> u8 {
    for said in anon::clean(None) {
        note!("dtrace: {}", said);
    }
    let e = anon::Enabling {
        specs: cmd.specs.clone(),
        options: cmd.options.clone(),
        args: cmd.args.clone(),
    };
    if let Err(msg) = anon::store(&e, std::path::Path::new(anon::SAVED)) {
        return fatal(msg);
    }
    note!("dtrace: saved anonymous enabling in {}", anon::SAVED);
    if let Err(msg) = anon::install_unit() {
        return fatal(msg);
    }
    note!("dtrace: added {}", anon::UNIT);
    note!("dtrace: reboot, or run systemctl start dtrace-anon, to enable changes");
    E_SUCCESS
}

/// `--anonymous-start`, tracing: the enabling pinned, recorded as
/// started, and left running as dtrace exits.
fn pin_anonymous(dt: &libdtrace::Session) -> u8 {
    let dir = match libdtrace::anonymous_dir() {
        Ok(d) => d,
        Err(e) => return fatal(e),
    };
    if let Err(e) = dt.pin_anonymous(&dir) {
        return fatal(e);
    }
    if let Err(msg) = anon::mark_started() {
        let _ = std::fs::remove_dir_all(&dir);
        return fatal(msg);
    }
    note!(
        "dtrace: anonymous enabling started, pinned in {}",
        dir.display()
    );
    E_SUCCESS
}

/// If a write to the output failed: says so (quietly for a closed pipe)
/// and gives the exit status.
fn output_failed(failure: &output::Failure, name: &str) -> Option<u8> {
    let f = failure.borrow();
    let e = f.as_ref()?;
    if output::is_quiet(e) {
        return Some(E_ERROR);
    }
    Some(fatal(format!(
        "failed to write to {}: {}",
        name,
        io_reason(e)
    )))
}
