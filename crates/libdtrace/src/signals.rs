//! Stop signals for a consumer's main loop, as dtrace(1M) handles them:
//! SIGINT and SIGTERM stop tracing (END runs, aggregations print), a
//! second one says "impatient" (skip printing), and a consumer that was
//! stopped before tracing started dies of the signal it got. Also writes
//! to a slow or blocked output that such a signal interrupts.
//!
//! ```no_run
//! let signals = libdtrace::signals::StopSignals::install()?;
//! // ... in the work loop: wake on `signals.fd()`, and
//! if signals.count() > 0 { /* stop tracing */ }
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io;
use std::os::fd::{BorrowedFd, RawFd};
use std::time::Duration;

use dtrace_sys::poll;

/// SIGINT and SIGTERM handling for the process: each signal is counted
/// and makes a descriptor readable, to wake the work loop. SIGPIPE is
/// ignored, so that a closed output is an error rather than death.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use libdtrace::signals::StopSignals;
/// let signals = StopSignals::install()?;
/// let mut dt = libdtrace::Dtrace::open()?;
/// let p = dt.compile("syscall:::entry { @[probefunc] = count(); }", libdtrace::ProgramSource::File)?;
/// dt.exec(&p)?;
/// let mut dt = dt.go()?;
/// let mut out = std::io::stdout();
/// loop {
///     dt.sleep(&[signals.fd()]); // a signal wakes it
///     if signals.count() > 0 {
///         dt.stop()?;
///     }
///     if dt.work(&mut out, &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Done {
///         break;
///     }
/// }
/// dt.aggregate_print(&mut out)?;
/// # Ok(())
/// # }
/// ```
pub struct StopSignals(poll::StopSignals);

impl StopSignals {
    /// Installs the handlers (for the whole process: install them once).
    ///
    /// ```no_run
    /// let signals = libdtrace::signals::StopSignals::install()?;
    /// assert_eq!(signals.count(), 0);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn install() -> io::Result<StopSignals> {
        poll::StopSignals::install().map(StopSignals)
    }

    /// The descriptor that becomes readable when a signal arrives, for
    /// [`crate::Session::sleep`]'s `extra_fds`.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let signals = libdtrace::signals::StopSignals::install()?;
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("tick-1s { exit(0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// dt.sleep(&[signals.fd()]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn fd(&self) -> RawFd {
        self.0.fd()
    }

    /// The same descriptor, borrowed (for [`wait_writable`], or to be
    /// duplicated for another thread's poll).
    ///
    /// ```no_run
    /// let signals = libdtrace::signals::StopSignals::install()?;
    /// let for_writer = signals.wake_fd().try_clone_to_owned()?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn wake_fd(&self) -> BorrowedFd<'_> {
        self.0.wake_fd()
    }

    /// How many stop signals have arrived so far; it also empties the
    /// descriptor, so that a poll on it waits again.
    ///
    /// ```no_run
    /// let signals = libdtrace::signals::StopSignals::install()?;
    /// match signals.count() {
    ///     0 => {}              // tracing goes on
    ///     1 => { /* stop: run END, print the aggregations */ }
    ///     _ => { /* impatient: stop without printing */ }
    /// }
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn count(&self) -> usize {
        self.0.count()
    }
}

/// How many stop signals have arrived since [`StopSignals::install`],
/// without emptying its descriptor (for a check from another thread or
/// from [`crate::Dtrace::go_until`]).
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let _signals = libdtrace::signals::StopSignals::install()?;
/// let mut dt = libdtrace::Dtrace::open()?;
/// let p = dt.compile("syscall:::entry { @ = count(); }", libdtrace::ProgramSource::File)?;
/// dt.exec(&p)?;
/// let mut dt = dt.go_until(&|| libdtrace::signals::stop_signals() > 0)?;
/// # Ok(())
/// # }
/// ```
pub fn stop_signals() -> usize {
    poll::stop_signals()
}

/// Ends the process as the last stop signal would have without a
/// handler (so that a shell sees dtrace interrupted), once the caller
/// has cleaned up; returns only if no stop signal has arrived.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let _signals = libdtrace::signals::StopSignals::install()?;
/// let mut dt = libdtrace::Dtrace::open()?;
/// let p = dt.compile("syscall:::entry { @ = count(); }", libdtrace::ProgramSource::File)?;
/// dt.exec(&p)?;
/// // A cancelled set-up closes the handle: nothing is left in the kernel.
/// if let Err(libdtrace::Error::Cancelled) = dt.go_until(&|| libdtrace::signals::stop_signals() > 0) {
///     libdtrace::signals::die_of_stop_signal();
/// }
/// # Ok(())
/// # }
/// ```
pub fn die_of_stop_signal() {
    poll::die_of_stop_signal()
}

/// What [`wait_writable`] saw: `Ready`, `Signal` or `TimedOut`.
pub use dtrace_sys::poll::WriteWait;

/// Waits until `fd` can take at least a pipe buffer's worth of bytes, a
/// stop signal arrives (when `wake` is [`StopSignals::wake_fd`]), or
/// `timeout` passes (`None`: no limit): a writer whose reader has
/// stalled still honours SIGINT and SIGTERM.
///
/// ```no_run
/// use libdtrace::signals::{wait_writable, StopSignals, WriteWait};
/// use std::os::fd::AsFd;
/// use std::time::Duration;
/// let signals = StopSignals::install()?;
/// let out = std::io::stdout();
/// match wait_writable(out.as_fd(), Some(signals.wake_fd()), Some(Duration::from_secs(2)))? {
///     WriteWait::Ready => { /* write */ }
///     WriteWait::Signal | WriteWait::TimedOut => { /* give up on the reader */ }
/// }
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn wait_writable(
    fd: BorrowedFd,
    wake: Option<BorrowedFd>,
    timeout: Option<Duration>,
) -> io::Result<WriteWait> {
    poll::wait_writable(fd, wake, timeout)
}
