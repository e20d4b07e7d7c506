//! Target processes through the library, as libdtrace's
//! `dtrace_proc_create`, `_grab`, `_continue` and `_release` and its
//! process handler: a command created for tracing (held before its exec
//! until [`Dtrace::proc_continue`], so that tracing sees it from its
//! first instruction), or a running process grabbed; each is told to the
//! providers (`pid$target`, its USDT probes), the first is `$target`, and
//! the work loop watches them: [`crate::Session::sleep`] wakes when one exits,
//! and [`crate::Session::work`] gives each change to the process handler.

use std::ffi::OsString;

use dtrace_sys::process::{CreateError, Target};

use crate::{io_reason, Dtrace, Error};

/// How a traced process ended: its exit status or the signal that killed
/// it, for a command dtrace created (a grabbed process's status is its
/// parent's to learn).
///
/// ```
/// use libdtrace::{ProcEvent, ProcExit};
/// let e = ProcEvent::Exited { pid: 12, how: Some(ProcExit::Signal(11)) };
/// assert_eq!(e.notice().unwrap(), "pid 12 terminated by SIGSEGV");
/// let e = ProcEvent::Exited { pid: 12, how: Some(ProcExit::Status(3)) };
/// assert_eq!(e.notice().unwrap(), "pid 12 exited with status 3");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcExit {
    /// It exited with this status.
    Status(i32),
    /// This signal killed it.
    Signal(i32),
}

/// What the process handler is told.
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// let mut dt = libdtrace::Dtrace::open()?;
/// use libdtrace::ProcEvent;
/// dt.handle_proc(|e| match e {
///     ProcEvent::Created { pid } => eprintln!("created {}", pid),
///     ProcEvent::Grabbed { pid } => eprintln!("grabbed {}", pid),
///     ProcEvent::Exited { .. } => eprintln!("dtrace: {}", e.notice().unwrap_or_default()),
/// });
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProcEvent {
    /// A command was created for tracing (held before its exec).
    Created {
        /// Its process ID.
        pid: i32,
    },
    /// A running process was grabbed.
    Grabbed {
        /// Its process ID.
        pid: i32,
    },
    /// A traced process exited.
    Exited {
        /// Its process ID.
        pid: i32,
        /// How, for a created command (None for a grabbed one).
        how: Option<ProcExit>,
    },
}

impl ProcEvent {
    /// The process's ID.
    ///
    /// ```
    /// let e = libdtrace::ProcEvent::Grabbed { pid: 42 };
    /// assert_eq!(e.pid(), 42);
    /// ```
    pub fn pid(&self) -> i32 {
        match *self {
            ProcEvent::Created { pid } | ProcEvent::Grabbed { pid } => pid,
            ProcEvent::Exited { pid, .. } => pid,
        }
    }

    /// dtrace(1M)'s notice of an exit (`pid 12 has exited`, `pid 12
    /// exited with status 3`, `pid 12 terminated by SIGSEGV`); None for
    /// the other events.
    ///
    /// ```
    /// use libdtrace::ProcEvent;
    /// assert_eq!(ProcEvent::Exited { pid: 7, how: None }.notice().unwrap(), "pid 7 has exited");
    /// assert_eq!(ProcEvent::Created { pid: 7 }.notice(), None);
    /// ```
    pub fn notice(&self) -> Option<String> {
        let ProcEvent::Exited { pid, how } = *self else {
            return None;
        };
        Some(match how {
            Some(ProcExit::Signal(sig)) => format!(
                "pid {} terminated by {}",
                pid,
                dtrace_sys::process::signal_name(sig)
            ),
            Some(ProcExit::Status(st)) if st != 0 => {
                format!("pid {} exited with status {}", pid, st)
            }
            _ => format!("pid {} has exited", pid),
        })
    }
}

/// Why a process could not be traced, worded as dtrace(1M) words it
/// after "dtrace: " (`failed to execute ls: No such file or directory`).
///
/// ```
/// let e = libdtrace::ProcError::Grab { pid: 99999999, why: "No such process".into() };
/// assert_eq!(e.to_string(), "failed to grab pid 99999999: No such process");
/// ```
#[derive(Debug)]
pub enum ProcError {
    /// The command could not be executed.
    Exec {
        /// The command, its words joined by spaces.
        command: Vec<u8>,
        /// Why, as strerror words it.
        why: String,
    },
    /// The command could not be put under control.
    Control {
        /// The command, its words joined by spaces.
        command: Vec<u8>,
        /// Why.
        why: String,
    },
    /// The process could not be grabbed.
    Grab {
        /// Its process ID.
        pid: i32,
        /// Why.
        why: String,
    },
}

impl ProcError {
    /// The message, as bytes (a command may not be UTF-8).
    ///
    /// ```
    /// let e = libdtrace::ProcError::Exec { command: b"nosuch -x".to_vec(), why: "No such file or directory".into() };
    /// assert_eq!(e.message(), b"failed to execute nosuch -x: No such file or directory");
    /// ```
    pub fn message(&self) -> Vec<u8> {
        let (head, what, why): (&[u8], Vec<u8>, &str) = match self {
            ProcError::Exec { command, why } => (b"failed to execute ", command.clone(), why),
            ProcError::Control { command, why } => (b"failed to control ", command.clone(), why),
            ProcError::Grab { pid, why } => {
                (b"failed to grab pid ", pid.to_string().into_bytes(), why)
            }
        };
        let mut m = head.to_vec();
        m.extend(what);
        m.extend(b": ");
        m.extend(why.as_bytes());
        m
    }
}

impl std::fmt::Display for ProcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.message()))
    }
}

/// A traced process and whether its exit was told.
pub(crate) struct Traced {
    target: Target,
    told: bool,
}

pub(crate) type ProcHandler = Box<dyn FnMut(&ProcEvent) + Send>;

impl Dtrace {
    /// Creates the command `argv` (its program looked up in `PATH`) for
    /// tracing, held before its exec until
    /// [`proc_continue`](Self::proc_continue); returns its process ID.
    /// The first process created or grabbed is `$target`.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// // As `dtrace -c 'ls /'`: created held, traced from its first instruction.
    /// let pid = dt.proc_create(&["ls".into(), "/".into()]).map_err(|e| libdtrace::Error::Enable(e.to_string()))?;
    /// let p = dt.compile("syscall::write:entry /pid == $target/ { @ = count(); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// dt.proc_continue(pid)?;
    /// while dt.work(&mut std::io::stdout(), &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Okay {
    ///     dt.sleep(&[]);
    ///     if dt.live_procs() == 0 {
    ///         dt.stop()?;
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn proc_create(&mut self, argv: &[OsString]) -> Result<i32, ProcError> {
        let command = argv
            .iter()
            .map(|a| a.as_encoded_bytes())
            .collect::<Vec<_>>()
            .join(&b' ');
        let target = Target::create(argv).map_err(|e| match e {
            CreateError::Exec(e) => ProcError::Exec {
                command,
                why: io_reason(&e),
            },
            CreateError::Control(e) => ProcError::Control {
                command,
                why: io_reason(&e),
            },
        })?;
        let pid = target.pid();
        self.add_target(target);
        self.proc_event(&ProcEvent::Created { pid });
        Ok(pid)
    }

    /// Grabs running process `pid` for tracing.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// // As `dtrace -p PID`.
    /// let pid: i32 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    /// if let Err(e) = dt.proc_grab(pid) {
    ///     eprintln!("dtrace: {}", e);
    ///     return Ok(());
    /// }
    /// let p = dt.compile("pid$target::malloc:entry { @ = quantize(arg0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn proc_grab(&mut self, pid: i32) -> Result<(), ProcError> {
        if pid == std::process::id() as i32 {
            return Err(ProcError::Grab {
                pid,
                why: "cannot trace dtrace itself".into(),
            });
        }
        let target = Target::grab(pid).map_err(|e| ProcError::Grab {
            pid,
            why: io_reason(&e),
        })?;
        self.add_target(target);
        self.proc_event(&ProcEvent::Grabbed { pid });
        Ok(())
    }

    fn add_target(&mut self, target: Target) {
        let pid = target.pid();
        if self.procs.is_empty() {
            self.set_target(pid);
        }
        self.target(pid, target.held_exe());
        self.procs.push(Traced {
            target,
            told: false,
        });
    }

    /// Lets a created command run (it execs); nothing for a grabbed one.
    /// Call it once tracing has started ([`go`](Self::go)).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let pid = dt.proc_create(&["true".into()]).map_err(|e| libdtrace::Error::Enable(e.to_string()))?;
    /// let p = dt.compile("proc:::exit /pid == $target/ { exit(0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// dt.proc_continue(pid)?; // it runs now, traced from its exec
    /// # Ok(())
    /// # }
    /// ```
    pub fn proc_continue(&mut self, pid: i32) -> Result<(), Error> {
        match self.procs.iter_mut().find(|p| p.target.pid() == pid) {
            Some(p) => p
                .target
                .release()
                .map_err(|e| Error::Enable(format!("failed to start target: {}", io_reason(&e)))),
            None => Err(Error::Enable(format!("pid {} is not a target", pid))),
        }
    }

    /// Stops watching process `pid`: a created command is killed, as
    /// DTrace's are when it lets them go; a grabbed one runs on.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let pid = dt.proc_create(&["sleep".into(), "60".into()]).map_err(|e| libdtrace::Error::Enable(e.to_string()))?;
    /// dt.proc_release(pid); // killed: it was created for tracing
    /// assert!(!dt.has_procs());
    /// # Ok(())
    /// # }
    /// ```
    pub fn proc_release(&mut self, pid: i32) {
        self.procs.retain(|p| p.target.pid() != pid);
    }

    /// The handler told of each process created, grabbed, and exited (in
    /// [`sleep`](crate::Session::sleep) or [`work`](crate::Session::work)).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// use std::sync::{Arc, Mutex};
    /// let events = Arc::new(Mutex::new(Vec::new()));
    /// let seen = events.clone();
    /// dt.handle_proc(move |e| seen.lock().unwrap().push(e.clone()));
    /// let pid = dt.proc_create(&["true".into()]).map_err(|e| libdtrace::Error::Enable(e.to_string()))?;
    /// assert_eq!(events.lock().unwrap()[0], libdtrace::ProcEvent::Created { pid });
    /// # Ok(())
    /// # }
    /// ```
    pub fn handle_proc(&mut self, f: impl FnMut(&ProcEvent) + Send + 'static) {
        self.proc_handler = Some(Box::new(f));
    }

    /// The traced processes that have not exited (or whose exit the
    /// handler has not yet been told).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let pid = dt.proc_create(&["true".into()]).map_err(|e| libdtrace::Error::Enable(e.to_string()))?;
    /// let p = dt.compile("BEGIN { }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// dt.proc_continue(pid)?;
    /// while dt.live_procs() > 0 {
    ///     dt.sleep(&[]); // its exit is seen here
    ///     dt.work(&mut std::io::stdout(), &mut libdtrace::NullConsumer)?;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn live_procs(&self) -> usize {
        self.procs.iter().filter(|p| !p.told).count()
    }

    /// The traced processes' IDs, in the order they were created or
    /// grabbed.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let a = dt.proc_create(&["true".into()]).map_err(|e| libdtrace::Error::Enable(e.to_string()))?;
    /// let b = dt.proc_create(&["true".into()]).map_err(|e| libdtrace::Error::Enable(e.to_string()))?;
    /// assert_eq!(dt.proc_pids(), vec![a, b]); // $target is `a`
    /// # Ok(())
    /// # }
    /// ```
    pub fn proc_pids(&self) -> Vec<i32> {
        self.procs.iter().map(|p| p.target.pid()).collect()
    }

    /// Whether processes are traced at all (`-c`, `-p`): tracing then
    /// ends when the last of them has exited.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// assert!(!dt.has_procs());
    /// dt.proc_create(&["true".into()]).map_err(|e| libdtrace::Error::Enable(e.to_string()))?;
    /// assert!(dt.has_procs()); // tracing ends when the last one exits
    /// # Ok(())
    /// # }
    /// ```
    pub fn has_procs(&self) -> bool {
        !self.procs.is_empty()
    }

    /// Descriptors readable when a traced process exits, for `sleep`.
    pub(crate) fn proc_fds(&self) -> Vec<i32> {
        self.procs
            .iter()
            .filter(|p| !p.told)
            .map(|p| p.target.fd())
            .collect()
    }

    /// Reads the live processes' mappings (for user symbols), and tells
    /// the handler of those that have exited.
    pub(crate) fn watch_procs(&mut self) {
        let mut events = Vec::new();
        for p in self.procs.iter_mut().filter(|p| !p.told) {
            let pid = p.target.pid();
            if !p.target.poll_exited() {
                if let Ok(pid) = u32::try_from(pid) {
                    crate::usym::refresh_process(pid);
                }
                continue;
            }
            p.told = true;
            let how = p.target.exit().map(|e| match e {
                dtrace_sys::process::Exit::Status(s) => ProcExit::Status(s),
                dtrace_sys::process::Exit::Signal(s) => ProcExit::Signal(s),
            });
            events.push(ProcEvent::Exited { pid, how });
        }
        for e in &events {
            self.proc_event(e);
        }
    }

    fn proc_event(&mut self, e: &ProcEvent) {
        if let Some(h) = &mut self.proc_handler {
            h(e);
        }
    }
}
