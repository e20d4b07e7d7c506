//! Target processes for `-c` and `-p`: creating a command held at the door
//! until tracing is enabled, watching a process for exit, and reaping it.

use std::ffi::OsString;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

/// A process dtrace is tracing.
pub struct Target {
    pid: i32,
    child: Option<Child>,
    /// A created child still held at its exec stop.
    stopped: bool,
    pidfd: OwnedFd,
    exited: bool,
}

/// Why a command could not be created for tracing.
#[derive(Debug)]
pub enum CreateError {
    /// The command could not be executed (not found, not executable...).
    Exec(io::Error),
    /// The command could not be put under dtrace's control: the child's
    /// `PTRACE_TRACEME` was refused (dtrace itself run under `strace -f`
    /// or a debugger that follows forks, a seccomp or LSM policy).
    Control(io::Error),
}

impl std::fmt::Display for CreateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CreateError::Exec(e) | CreateError::Control(e) => e.fmt(f),
        }
    }
}

/// The exit status of a child whose pre-exec step failed is the errno of
/// that step; errno values stay below this.
const PRE_EXEC_STATUS_LIMIT: i32 = 127;

fn pidfd_open(pid: i32) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags.
    let r = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::c_long, 0 as libc::c_long) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(r as RawFd) })
}

impl Target {
    /// Creates `argv` as a child stopped right after its exec, before it
    /// runs any instruction of the new program, until `release`. The stop
    /// is a ptrace exec stop, as DTrace's process control uses.
    pub fn create(argv: &[OsString]) -> Result<Target, CreateError> {
        let (prog, args) = argv.split_first().ok_or_else(|| {
            CreateError::Exec(io::Error::new(io::ErrorKind::InvalidInput, "empty command"))
        })?;
        let mut cmd = Command::new(prog);
        cmd.args(args);
        // SAFETY: the closure runs in the forked child before exec and only
        // makes the prctl, getppid, _exit and ptrace system calls, which
        // are async-signal-safe.
        unsafe {
            let parent = libc::getpid();
            cmd.pre_exec(move || {
                // The command dies with dtrace, however dtrace ends (even
                // by SIGKILL): a -c target never outlives its tracer.
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) < 0 {
                    return Err(io::Error::last_os_error());
                }
                // dtrace may have died before the prctl took effect.
                if libc::getppid() != parent {
                    libc::_exit(PRE_EXEC_STATUS_LIMIT);
                }
                if libc::ptrace(
                    libc::PTRACE_TRACEME,
                    0,
                    std::ptr::null_mut::<libc::c_void>(),
                    std::ptr::null_mut::<libc::c_void>(),
                ) < 0
                {
                    // Exit with the errno rather than returning it: the
                    // standard library would report it as a failed exec,
                    // and the parent must tell the two apart.
                    let errno = io::Error::last_os_error().raw_os_error().unwrap_or(0);
                    libc::_exit(errno.clamp(1, PRE_EXEC_STATUS_LIMIT - 1));
                }
                Ok(())
            });
        }
        let mut child = cmd.spawn().map_err(CreateError::Exec)?;
        let pid = child.id() as i32;
        // The exec raises SIGTRAP, stopping the child for us.
        let mut status = 0;
        // SAFETY: waitpid on our own child with a valid status pointer.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r < 0 {
            let e = io::Error::last_os_error();
            let _ = child.kill();
            let _ = child.wait();
            return Err(CreateError::Control(e));
        }
        if !libc::WIFSTOPPED(status) {
            // The exec had not happened yet (spawn waits for it and would
            // have failed): the child ended in its pre-exec step.
            let e = if libc::WIFEXITED(status)
                && (1..PRE_EXEC_STATUS_LIMIT).contains(&libc::WEXITSTATUS(status))
            {
                io::Error::from_raw_os_error(libc::WEXITSTATUS(status))
            } else {
                io::Error::other("command ended before it could be traced")
            };
            return Err(CreateError::Control(e));
        }
        let pidfd = match pidfd_open(pid) {
            Ok(fd) => fd,
            Err(e) => {
                // Not left stopped (or run untraced once we exit).
                let _ = child.kill();
                let _ = child.wait();
                return Err(CreateError::Control(e));
            }
        };
        Ok(Target {
            pid,
            child: Some(child),
            stopped: true,
            pidfd,
            exited: false,
        })
    }

    /// Follows an existing process.
    pub fn grab(pid: i32) -> io::Result<Target> {
        let pidfd = pidfd_open(pid)?;
        Ok(Target {
            pid,
            child: None,
            stopped: false,
            pidfd,
            exited: false,
        })
    }

    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// Lets a created command run.
    pub fn release(&mut self) -> io::Result<()> {
        if self.stopped {
            self.stopped = false;
            // SAFETY: detaching from our own stopped tracee; no pointers
            // are passed (signal 0: the SIGTRAP is not delivered).
            let r = unsafe {
                libc::ptrace(
                    libc::PTRACE_DETACH,
                    self.pid,
                    std::ptr::null_mut::<libc::c_void>(),
                    std::ptr::null_mut::<libc::c_void>(),
                )
            };
            if r < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }

    /// Readable once the process has exited.
    pub fn fd(&self) -> RawFd {
        self.pidfd.as_raw_fd()
    }

    /// True once the process has exited (reaping it if it is our child).
    pub fn poll_exited(&mut self) -> bool {
        if self.exited {
            return true;
        }
        if let Some(child) = self.child.as_mut() {
            if let Ok(Some(_)) = child.try_wait() {
                self.exited = true;
            }
        } else {
            let mut pfd = libc::pollfd {
                fd: self.pidfd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd, zero timeout.
            let n = unsafe { libc::poll(&mut pfd, 1, 0) };
            if n > 0 {
                self.exited = true;
            }
        }
        self.exited
    }

    /// Kills a created command that is still running (dtrace exiting first).
    pub fn kill(&mut self) {
        if let Some(child) = self.child.as_mut() {
            if !self.exited {
                let _ = child.kill();
                let _ = child.wait();
                self.exited = true;
            }
        }
    }
}

impl Drop for Target {
    fn drop(&mut self) {
        // A command dtrace created does not outlive it, however dtrace
        // ends (as DTrace kills the processes it created when it closes);
        // a grabbed process (`-p`) is left alone.
        self.kill();
    }
}

/// Reads a whole small file, for /proc lookups.
pub fn read_small(path: &str) -> io::Result<String> {
    let mut s = String::new();
    std::fs::File::open(path)?.read_to_string(&mut s)?;
    Ok(s)
}
