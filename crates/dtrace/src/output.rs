//! Where dtrace(1M) writes: the output file or standard output, and
//! standard error for its messages.
//!
//! Nothing written may be lost silently or hang dtrace: a write that
//! fails is remembered so that dtrace can say so and exit non-zero (a
//! closed pipe, as in `dtrace ... | head -1`, ends it quietly); a reader
//! that stalls holds dtrace only until a stop signal arrives, after which
//! writes wait at most [`GRACE`] (none after a second signal); and a
//! closed standard error never panics.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::rc::Rc;
use std::time::{Duration, Instant};

use libdtrace::signals::{stop_signals, wait_writable, WriteWait};

/// How long writes may wait for a stalled reader once a stop signal has
/// arrived.
pub const GRACE: Duration = Duration::from_secs(2);

/// At most this much is written at once: a pipe that polls writable has
/// room for it, so no write blocks.
const CHUNK: usize = 4096;

/// The first write failure of a sink, shared with whoever must report it.
pub type Failure = Rc<RefCell<Option<io::Error>>>;

/// A descriptor written with the rules above.
pub struct Sink {
    file: File,
    /// The stop-signal pipe, once signals are handled.
    wake: Option<OwnedFd>,
    /// When writes stop waiting for a stalled reader.
    deadline: Option<Instant>,
    failure: Failure,
}

impl Sink {
    /// A sink over a duplicate of `fd` (standard output or error, or an
    /// opened file).
    pub fn new(fd: impl AsFd) -> io::Result<Sink> {
        Ok(Sink {
            file: File::from(fd.as_fd().try_clone_to_owned()?),
            wake: None,
            deadline: None,
            failure: Rc::new(RefCell::new(None)),
        })
    }

    /// Lets writes wake for stop signals.
    pub fn watch_signals(&mut self, wake: OwnedFd) {
        self.wake = Some(wake);
    }

    /// A duplicate of the descriptor (for ftruncate()).
    pub fn try_clone_file(&self) -> io::Result<File> {
        self.file.try_clone()
    }

    pub fn failure(&self) -> Failure {
        self.failure.clone()
    }

    fn fail(&self, e: io::Error) -> io::Error {
        let copy = io::Error::new(e.kind(), e.to_string());
        self.failure.borrow_mut().get_or_insert(e);
        copy
    }

    /// Waits until the descriptor takes bytes, within the rules above.
    fn wait(&mut self) -> io::Result<()> {
        loop {
            let (wake, timeout) = match stop_signals() {
                0 => (self.wake.as_ref().map(|w| w.as_fd()), None),
                1 => {
                    let deadline = *self.deadline.get_or_insert_with(|| Instant::now() + GRACE);
                    (
                        None,
                        Some(deadline.saturating_duration_since(Instant::now())),
                    )
                }
                _ => (None, Some(Duration::ZERO)),
            };
            match wait_writable(self.file.as_fd(), wake, timeout)? {
                WriteWait::Ready => return Ok(()),
                WriteWait::Signal => continue,
                WriteWait::TimedOut => {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the reader stopped reading and dtrace was interrupted",
                    ))
                }
            }
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(e) = &*self.failure.borrow() {
            return Err(io::Error::new(e.kind(), e.to_string()));
        }
        if buf.is_empty() {
            return Ok(0);
        }
        let chunk = &buf[..buf.len().min(CHUNK)];
        loop {
            if let Err(e) = self.wait() {
                return Err(self.fail(e));
            }
            match self.file.write(chunk) {
                Ok(0) => return Err(self.fail(io::ErrorKind::WriteZero.into())),
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.fail(e)),
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &*self.failure.borrow() {
            Some(e) => Err(io::Error::new(e.kind(), e.to_string())),
            None => Ok(()),
        }
    }
}

thread_local! {
    /// Standard error, for messages.
    static STDERR: RefCell<Option<Sink>> = RefCell::new(Sink::new(io::stderr()).ok());
}

/// Lets messages to standard error wake for stop signals too.
pub fn watch_signals_on_stderr(wake: OwnedFd) {
    STDERR.with(|s| {
        if let Some(s) = s.borrow_mut().as_mut() {
            s.watch_signals(wake);
        }
    });
}

/// Writes a message to standard error. A closed or failing standard
/// error loses the message; it never panics or hangs past a stop signal.
pub fn note(msg: std::fmt::Arguments) {
    note_bytes(msg.to_string().as_bytes());
}

/// [`note`] for a message that need not be UTF-8 (it quotes file names or
/// program text).
pub fn note_bytes(msg: &[u8]) {
    STDERR.with(|s| {
        if let Some(s) = s.borrow_mut().as_mut() {
            let _ = s.write_all(msg);
        }
    });
}

/// `eprintln!` for dtrace's messages, through [`note`].
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::output::note(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// True for the failures that end dtrace without a message: the reader
/// went away.
pub fn is_quiet(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}
