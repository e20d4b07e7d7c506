//! Target processes for `-c` and `-p`: creating a command held at the door
//! until tracing is enabled, watching a process for exit, and reaping it.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

/// A process dtrace is tracing.
pub struct Target {
    pid: i32,
    child: Option<Child>,
    gate: Option<std::fs::File>,
    pidfd: OwnedFd,
    exited: bool,
}

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
    /// Creates `argv` as a child that waits, before exec, until `release`.
    /// If dtrace goes away first the child exits without running.
    pub fn create(argv: &[OsString]) -> io::Result<Target> {
        let (prog, args) = argv
            .split_first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty command"))?;
        let mut fds = [0; 2];
        // SAFETY: `fds` has room for two descriptors.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fresh descriptors owned by nobody else.
        let (rd, wr) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        let rfd = rd.as_raw_fd();
        let wfd = wr.as_raw_fd();
        let mut cmd = Command::new(prog);
        cmd.args(args);
        // SAFETY: the closure runs in the forked child before exec and calls
        // only async-signal-safe functions (close, read, _exit).
        unsafe {
            cmd.pre_exec(move || {
                libc::close(wfd);
                let mut b = 0u8;
                let n = libc::read(rfd, &mut b as *mut u8 as *mut libc::c_void, 1);
                if n != 1 {
                    libc::_exit(127);
                }
                Ok(())
            });
        }
        let child = cmd.spawn()?;
        drop(rd);
        let pid = child.id() as i32;
        let pidfd = pidfd_open(pid)?;
        Ok(Target {
            pid,
            child: Some(child),
            gate: Some(std::fs::File::from(wr)),
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
            gate: None,
            pidfd,
            exited: false,
        })
    }

    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// Lets a created command run.
    pub fn release(&mut self) -> io::Result<()> {
        if let Some(mut g) = self.gate.take() {
            g.write_all(&[1])?;
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
        self.gate.take();
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
        // A created child that never got released exits by itself when the
        // gate closes; one that is running is reaped if it already exited.
        self.gate.take();
        if let Some(child) = self.child.as_mut() {
            let _ = child.try_wait();
        }
    }
}

/// Reads a whole small file, for /proc lookups.
pub fn read_small(path: &str) -> io::Result<String> {
    let mut s = String::new();
    std::fs::File::open(path)?.read_to_string(&mut s)?;
    Ok(s)
}
