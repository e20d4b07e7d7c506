//! Where output goes: the caller's writer, a `freopen()` file, the
//! handlers a caller installs for errors, drops and buffered output, and
//! the rendering context the options set.

use super::*;

/// Where output goes: the renderer (`Output`, chosen by `oformat` when
/// tracing starts), what waits to be written, the caller's buffered-output
/// handler, a `freopen()` file, and the file behind the caller's writer.
pub(crate) struct Sink {
    /// How records are rendered (`oformat`), chosen when tracing starts.
    pub(crate) output: Box<dyn output::Output>,
    /// Rendered drops and errors waiting for the next write.
    pub(crate) pending: Vec<u8>,
    pub(crate) buf_handler: Option<BufHandler>,
    /// Which call is formatting, for the buffered-output handler.
    pub(crate) emit_origin: BufOrigin,
    /// Where freopen() sent output, until `freopen("")`.
    /// freopen()'s file, and its name for messages.
    pub(crate) redirect: Option<(std::fs::File, String)>,
    /// The file behind the output the caller passes to `work`, for
    /// ftruncate() (see [`Dtrace::set_output_file`]).
    pub(crate) output_file: Option<std::fs::File>,
}

impl Default for Sink {
    fn default() -> Self {
        Sink {
            output: Box::new(output::Text),
            pending: Vec::new(),
            buf_handler: None,
            emit_origin: BufOrigin::Work,
            redirect: None,
            output_file: None,
        }
    }
}

impl Sink {
    /// Writes out the drops and errors the output rendered.
    pub(crate) fn flush_pending(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let p = std::mem::take(&mut self.pending);
        self.emit(out, &p)
    }

    pub(crate) fn emit(&mut self, out: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        match (&mut self.buf_handler, &mut self.redirect) {
            (Some(h), _) => {
                h(&BufData {
                    text: bytes,
                    origin: self.emit_origin,
                });
                Ok(())
            }
            (None, Some((f, name))) => f.write_all(bytes).map_err(|e| {
                io::Error::other(WriteFailed {
                    path: name.clone(),
                    why: io_reason(&e),
                })
            }),
            (None, None) => out.write_all(bytes),
        }
    }

    /// Writes out what is pending, before an action that acts outside
    /// the output stream (system(), freopen(), ftruncate()).
    pub(crate) fn flush_output(&mut self, out: &mut dyn Write) -> io::Result<()> {
        match &mut self.redirect {
            Some((f, _)) => f.flush(),
            None => out.flush(),
        }
    }

    /// freopen(): later output goes to `name` (appended to, created if
    /// need be), or back to the original output if `name` is empty.
    pub(crate) fn freopen(&mut self, name: &[u8]) -> Result<(), String> {
        use std::os::unix::ffi::OsStrExt;
        let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
        let name = &name[..end];
        if name.is_empty() {
            self.redirect = None;
            return Ok(());
        }
        let path = std::ffi::OsStr::from_bytes(name);
        // A FIFO no process reads yet is waited for, not past a stop.
        match dtrace_sys::process::open_writer(path.as_ref(), true, &|| {
            crate::signals::stop_signals() > 0
        }) {
            Ok(f) => {
                self.redirect = Some((f, String::from_utf8_lossy(name).into_owned()));
                Ok(())
            }
            Err(e) => Err(format!(
                "couldn't freopen() \"{}\": {}",
                String::from_utf8_lossy(name),
                io_reason_opening(&e)
            )),
        }
    }

    /// ftruncate(): empties the output file (a freopen()ed one, or the
    /// one named by [`set_output_file`](Self::set_output_file)), as
    /// ftruncate(2) does; output that is not a regular file is left be.
    pub(crate) fn truncate_output(&mut self) {
        use std::io::Seek;
        let f = match (&mut self.redirect, &mut self.output_file) {
            (Some((f, _)), _) | (None, Some(f)) => f,
            (None, None) => return,
        };
        if f.metadata().is_ok_and(|m| m.is_file()) && f.set_len(0).is_ok() {
            let _ = f.seek(io::SeekFrom::Start(0));
        }
    }
}

impl Dtrace {
    /// Handler for runtime errors (faults); the default prints DTrace's
    /// message to stderr.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// use std::sync::{Arc, Mutex};
    /// let faults = Arc::new(Mutex::new(Vec::new()));
    /// let seen = faults.clone();
    /// dt.handle_err(move |e: &libdtrace::ErrorData| seen.lock().unwrap().push((e.action, e.msg.clone())));
    /// let p = dt.compile("BEGIN { x = 0; trace(1 / x); } BEGIN { exit(0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// while dt.work(&mut std::io::sink(), &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Okay {
    ///     dt.sleep(&[]);
    /// }
    /// let faults = faults.lock().unwrap();
    /// assert!(faults[0].1.ends_with("divide-by-zero in action #2"), "{:?}", faults);
    /// # Ok(())
    /// # }
    /// ```
    pub fn handle_err(&mut self, f: impl FnMut(&ErrorData) + Send + 'static) {
        self.err_handler = Some(Box::new(f));
    }

    /// Handler for drops; the default prints DTrace's message to stderr.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// dt.setopt("dynvarsize", Some("1k"))?;
    /// dt.handle_drop(|d| eprintln!("{:?} x{}: {}", d.kind, d.count, d.msg));
    /// # Ok(())
    /// # }
    /// ```
    pub fn handle_drop(&mut self, f: impl FnMut(&DropData) + Send + 'static) {
        self.drop_handler = Some(Box::new(f));
    }

    /// Receives formatted output instead of the output stream: every
    /// string [`work`](Session::work) and
    /// [`aggregate_print`](Session::aggregate_print) format, with which of
    /// them made it.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// use std::sync::{Arc, Mutex};
    /// // The application draws instead of printing: every formatted string
    /// // comes here, and nothing is written to `work`'s output.
    /// let text = Arc::new(Mutex::new(Vec::new()));
    /// let sink = text.clone();
    /// dt.handle_buffered(move |b| sink.lock().unwrap().extend_from_slice(b.text));
    /// dt.setopt("quiet", None)?;
    /// let p = dt.compile(r#"BEGIN { printf("drawn\n"); exit(0); }"#, libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// while dt.work(&mut std::io::sink(), &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Okay {
    ///     dt.sleep(&[]);
    /// }
    /// assert_eq!(*text.lock().unwrap(), b"drawn\n");
    /// # Ok(())
    /// # }
    /// ```
    pub fn handle_buffered(&mut self, f: impl FnMut(&BufData) + Send + 'static) {
        self.sink.buf_handler = Some(Box::new(f));
    }

    /// The options rendering depends on.
    /// (Worked out once and kept until an option changes: the consumer
    /// asks for every record it prints.)
    pub(crate) fn render_cx(&self) -> output::RenderCx {
        render_cx(&self.render_cache, &self.opts, &self.macros)
    }

    /// Names the file behind the output given to [`work`](Session::work)
    /// (standard output or `-o`'s file, duplicated), which ftruncate()
    /// empties. Without it, ftruncate() empties only a freopen()ed file.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let file = std::fs::File::create("/tmp/trace.out").map_err(libdtrace::Error::Io)?;
    /// dt.set_output_file(file.try_clone().map_err(libdtrace::Error::Io)?);
    /// let mut out = std::io::BufWriter::new(file);
    /// let p = dt.compile("tick-1s { ftruncate(); printf(\"%Y\\n\", walltimestamp); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// dt.setopt("destructive", None)?;
    /// let mut dt = dt.go()?;
    /// dt.work(&mut out, &mut libdtrace::NullConsumer)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn set_output_file(&mut self, f: std::fs::File) {
        self.sink.output_file = Some(f);
    }
}

/// How records are rendered under `opts` (`quiet`, `stackindent`,
/// `rawbytes`, `flowindent`, `$target`), kept in `cache` until an option
/// changes: the consumer asks for it for every record it prints.
pub(crate) fn render_cx(
    cache: &std::cell::Cell<Option<output::RenderCx>>,
    opts: &Options,
    macros: &MacroEnv,
) -> output::RenderCx {
    if let Some(cx) = cache.get() {
        return cx;
    }
    let cx = output::RenderCx {
        quiet: opts.quiet,
        indent: opts.stackindent,
        rawbytes: opts.rawbytes,
        strsize: opts.strsize,
        flowindent: opts.flowindent,
        target: target_pid(macros),
    };
    cache.set(Some(cx));
    cx
}

/// `$target`'s value (0 with no target).
pub(crate) fn target_pid(macros: &MacroEnv) -> i64 {
    macros
        .named
        .iter()
        .find(|(n, _)| n == "target")
        .map_or(0, |(_, v)| *v)
}
