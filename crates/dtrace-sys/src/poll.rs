//! Waiting: an epoll set over ring buffers, process descriptors and the
//! signal pipe, and the handlers that turn SIGINT/SIGTERM into a wake-up.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::time::Duration;

pub struct Poller {
    epfd: OwnedFd,
}

impl Poller {
    pub fn new() -> io::Result<Poller> {
        // SAFETY: epoll_create1 takes only flags.
        let fd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a fresh descriptor nobody else owns.
        Ok(Poller {
            epfd: unsafe { OwnedFd::from_raw_fd(fd) },
        })
    }

    /// Another handle on the same epoll set (a `dup` of its descriptor),
    /// to wait on from another thread.
    pub fn try_clone(&self) -> io::Result<Poller> {
        Ok(Poller {
            epfd: self.epfd.try_clone()?,
        })
    }

    /// Watches `fd` for readability; `token` comes back from `wait`.
    pub fn add(&self, fd: RawFd, token: u64) -> io::Result<()> {
        self.add_with(fd, token, libc::EPOLLIN as u32)
    }

    /// Watches `fd` edge-triggered: a wait returns when it becomes
    /// readable, not for as long as it stays so. For BPF ring buffers the
    /// consumer may leave unread on purpose (a `switchrate` not yet due, a
    /// `fill` buffer read at the end): level-triggered, every wait would
    /// return at once and the consumer would spin.
    pub fn add_edge(&self, fd: RawFd, token: u64) -> io::Result<()> {
        self.add_with(fd, token, (libc::EPOLLIN | libc::EPOLLET) as u32)
    }

    fn add_with(&self, fd: RawFd, token: u64, events: u32) -> io::Result<()> {
        let mut ev = libc::epoll_event { events, u64: token };
        // SAFETY: `ev` is a valid epoll_event; the kernel copies it.
        let r = unsafe { libc::epoll_ctl(self.epfd.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut ev) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Waits up to `timeout` for any watched descriptor; returns the tokens
    /// of the ready ones (empty on timeout or signal).
    pub fn wait(&self, timeout: Duration) -> io::Result<Vec<u64>> {
        let mut evs = [libc::epoll_event { events: 0, u64: 0 }; 16];
        let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: `evs` is a writable array of the length passed.
        let n = unsafe {
            libc::epoll_wait(
                self.epfd.as_raw_fd(),
                evs.as_mut_ptr(),
                evs.len() as i32,
                ms,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EINTR) {
                return Ok(Vec::new());
            }
            return Err(e);
        }
        Ok(evs[..n as usize].iter().map(|e| e.u64).collect())
    }
}

/// What [`wait_writable`] saw.
///
/// ```no_run
/// # use dtrace_sys::poll::{wait_writable, WriteWait};
/// use std::os::fd::AsFd;
/// let out = std::io::stdout();
/// if wait_writable(out.as_fd(), None, None)? == WriteWait::Ready {
///     // write
/// }
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteWait {
    /// The descriptor can take bytes (or has failed: the write will say).
    Ready,
    /// A stop signal arrived (or the wait was interrupted).
    Signal,
    /// The time given passed first.
    TimedOut,
}

/// Waits until `fd` can take at least a pipe buffer's worth of bytes, a
/// stop signal arrives (when `wake` is the stop-signal descriptor), or
/// `timeout` passes (`None`: no limit). Lets a writer honour SIGINT and
/// SIGTERM while its reader has stalled.
pub fn wait_writable(
    fd: BorrowedFd,
    wake: Option<BorrowedFd>,
    timeout: Option<Duration>,
) -> io::Result<WriteWait> {
    let mut fds = [
        libc::pollfd {
            fd: fd.as_raw_fd(),
            events: libc::POLLOUT,
            revents: 0,
        },
        libc::pollfd {
            fd: wake.map_or(-1, |w| w.as_raw_fd()),
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    let ms = timeout.map_or(-1, |t| t.as_millis().min(i32::MAX as u128) as i32);
    // SAFETY: `fds` is a writable array of two pollfds, the length passed;
    // a negative fd is ignored by poll(2).
    let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, ms) };
    if n < 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EINTR) {
            return Ok(WriteWait::Signal);
        }
        return Err(e);
    }
    if fds[0].revents != 0 {
        Ok(WriteWait::Ready)
    } else if fds[1].revents != 0 {
        Ok(WriteWait::Signal)
    } else {
        Ok(WriteWait::TimedOut)
    }
}

/// How many stop signals (SIGINT, SIGTERM) have arrived since
/// [`StopSignals::install`], without consuming their wake-ups.
pub fn stop_signals() -> usize {
    SIGNALS.load(Ordering::SeqCst)
}

static SIGNALS: AtomicUsize = AtomicUsize::new(0);
static WAKE_FD: AtomicI32 = AtomicI32::new(-1);
static LAST_SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    LAST_SIGNAL.store(sig, Ordering::SeqCst);
    SIGNALS.fetch_add(1, Ordering::SeqCst);
    let fd = WAKE_FD.load(Ordering::SeqCst);
    if fd >= 0 {
        let b = 1u8;
        // SAFETY: write(2) is async-signal-safe; the pipe is non-blocking, so
        // a full pipe just loses a redundant wake-up byte.
        unsafe { libc::write(fd, &b as *const u8 as *const libc::c_void, 1) };
    }
}

/// Gives SIGINT and SIGTERM their default actions in this process, and
/// so in the processes it starts: a test harness started in the
/// background by a shell without job control inherits them ignored,
/// which its children would inherit too, and a test that stops a dtrace
/// with SIGINT before dtrace has installed its handlers would find it
/// ignoring the signal.
pub fn default_stop_signals() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: setting a signal's disposition to its default.
        unsafe { libc::signal(sig, libc::SIG_DFL) };
    }
}

/// SIGINT and SIGTERM handling: each signal is counted and wakes the poller
/// through a pipe. SIGPIPE is ignored so a closed output is an error, not
/// death.
pub struct StopSignals {
    read: OwnedFd,
    _write: OwnedFd,
}

impl StopSignals {
    pub fn install() -> io::Result<StopSignals> {
        let mut fds = [0; 2];
        // SAFETY: `fds` has room for the two descriptors pipe2 returns.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: both are fresh descriptors owned by nobody else.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        WAKE_FD.store(write.as_raw_fd(), Ordering::SeqCst);
        for sig in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: installing a handler that only touches atomics and
            // calls write(2); sa_mask is initialised by sigemptyset.
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                libc::sigemptyset(&mut sa.sa_mask);
                sa.sa_flags = libc::SA_RESTART;
                if libc::sigaction(sig, &sa, std::ptr::null_mut()) < 0 {
                    return Err(io::Error::last_os_error());
                }
            }
        }
        // SAFETY: setting SIGPIPE's disposition to ignore.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
        Ok(StopSignals {
            read,
            _write: write,
        })
    }

    /// The descriptor that becomes readable when a signal arrives.
    pub fn fd(&self) -> RawFd {
        self.read.as_raw_fd()
    }

    /// The same descriptor, borrowed (for [`wait_writable`]).
    pub fn wake_fd(&self) -> BorrowedFd<'_> {
        self.read.as_fd()
    }

    /// How many stop signals have arrived so far.
    pub fn count(&self) -> usize {
        let mut buf = [0u8; 64];
        // Drain the pipe so the poller does not spin.
        // SAFETY: reading into a local buffer from our non-blocking pipe.
        while unsafe {
            libc::read(
                self.read.as_raw_fd(),
                buf.as_mut_ptr() as *mut libc::c_void,
                buf.len(),
            )
        } > 0
        {}
        SIGNALS.load(Ordering::SeqCst)
    }
}

/// Ends the process as the last stop signal would have without a handler
/// (for a shell, dtrace was interrupted), once the caller has cleaned up.
/// Returns only if no stop signal has arrived.
pub fn die_of_stop_signal() {
    let sig = LAST_SIGNAL.load(Ordering::SeqCst);
    if sig == 0 {
        return;
    }
    // SAFETY: restoring the default disposition of a signal we handle and
    // raising it; no memory is involved.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

impl Drop for StopSignals {
    fn drop(&mut self) {
        WAKE_FD.store(-1, Ordering::SeqCst);
    }
}
