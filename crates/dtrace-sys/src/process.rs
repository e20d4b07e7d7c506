//! Target processes for `-c` and `-p`: creating a command held before its
//! exec until tracing is enabled, watching a process for exit, and
//! reaping it.
//!
//! A created command never outlives dtrace: it is killed when its
//! [`Target`] drops, and however dtrace ends (SIGKILL too) it dies of
//! `PR_SET_PDEATHSIG` or, when the kernel has forgotten that (the command
//! exec'd a set-user-ID or set-group-ID program), of its warden
//! (`spawn_warden`). A grabbed process is left alone.
//!
//! Also: [`read_maps`], the one reader of `/proc/PID/maps` (the
//! providers' objects, user-stack symbols); [`run_shell`], `system()`'s
//! shell in a process group of its own; [`open_writer`], opening an
//! output without blocking on a FIFO no process reads.

use std::ffi::{CString, OsStr, OsString};
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A process dtrace is tracing.
pub struct Target {
    pid: i32,
    /// A command dtrace created (its child, reaped here).
    created: bool,
    /// A created child held before its exec: the write end of the pipe
    /// it waits on, and the read end of the pipe that reports a failed
    /// exec.
    gate: Option<(OwnedFd, OwnedFd)>,
    pidfd: OwnedFd,
    exited: bool,
    /// How a created command ended, once reaped.
    ended: Option<Exit>,
    /// A created command's executable, as found in `PATH`.
    exe: Option<std::path::PathBuf>,
    /// A created command's warden (see `spawn_warden`): the pipe's write
    /// end, whose closing, when dtrace ends however it ends, kills the
    /// command.
    _warden: Option<OwnedFd>,
}

/// How a process ended: its exit status, or the signal that killed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Status(i32),
    Signal(i32),
}

/// A signal's name as DTrace prints it (`SIGKILL`, `SIGRTMIN+1`,
/// `SIG#99`).
pub fn signal_name(sig: i32) -> String {
    const NAMES: [&str; 31] = [
        "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2",
        "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG",
        "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
    ];
    let (min, max) = (libc::SIGRTMIN(), libc::SIGRTMAX());
    match sig {
        1..=31 => format!("SIG{}", NAMES[sig as usize - 1]),
        s if s == min => "SIGRTMIN".into(),
        s if s == max => "SIGRTMAX".into(),
        s if s > min && s < max => format!("SIGRTMIN+{}", s - min),
        s => format!("SIG#{}", s),
    }
}

/// Why a command could not be created for tracing.
#[derive(Debug)]
pub enum CreateError {
    /// The command could not be executed (not found, not executable...).
    Exec(io::Error),
    /// The command could not be put under dtrace's control.
    Control(io::Error),
}

impl std::fmt::Display for CreateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CreateError::Exec(e) | CreateError::Control(e) => e.fmt(f),
        }
    }
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

/// A close-on-exec pipe: (read end, write end).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into the array we pass.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors are fresh and owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// The file `execvp` would run for `prog`: itself if it has a `/`, else
/// the first executable file of that name in `PATH`.
fn resolve(prog: &OsStr) -> io::Result<PathBuf> {
    let executable = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if prog.as_bytes().contains(&b'/') {
        let p = PathBuf::from(prog);
        return match std::fs::metadata(&p) {
            Err(e) => Err(e),
            Ok(_) if executable(&p) => Ok(p),
            Ok(_) => Err(io::Error::from_raw_os_error(libc::EACCES)),
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
    std::env::split_paths(&path)
        .map(|d| d.join(prog))
        .find(|p| executable(p))
        .ok_or_else(|| io::Error::from_raw_os_error(libc::ENOENT))
}

fn cstring(b: &[u8]) -> Result<CString, CreateError> {
    CString::new(b).map_err(|_| {
        CreateError::Exec(io::Error::new(
            io::ErrorKind::InvalidInput,
            "argument contains a NUL byte",
        ))
    })
}

impl Target {
    /// Creates `argv` as a child held before its exec until `release`,
    /// so that tracing sees the command from its exec on (its
    /// `proc:::exec-success` too). The program is looked up in `PATH`
    /// first, so that a command that cannot run is reported now.
    pub fn create(argv: &[OsString]) -> Result<Target, CreateError> {
        let (prog, _) = argv.split_first().ok_or_else(|| {
            CreateError::Exec(io::Error::new(io::ErrorKind::InvalidInput, "empty command"))
        })?;
        let path = resolve(prog).map_err(CreateError::Exec)?;
        // Everything the child needs is built before the fork: after it,
        // the child makes system calls only.
        let c_path = cstring(path.as_os_str().as_bytes())?;
        let c_args = argv
            .iter()
            .map(|a| cstring(a.as_bytes()))
            .collect::<Result<Vec<_>, _>>()?;
        let c_env = std::env::vars_os()
            .map(|(k, v)| {
                let mut kv = k.into_vec();
                kv.push(b'=');
                kv.extend(v.as_bytes());
                cstring(&kv)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let limits = started_limits();
        let mut arg_ptrs: Vec<*const libc::c_char> = c_args.iter().map(|a| a.as_ptr()).collect();
        arg_ptrs.push(std::ptr::null());
        let mut env_ptrs: Vec<*const libc::c_char> = c_env.iter().map(|a| a.as_ptr()).collect();
        env_ptrs.push(std::ptr::null());
        let (gate_r, gate_w) = pipe().map_err(CreateError::Control)?;
        let (err_r, err_w) = pipe().map_err(CreateError::Control)?;
        // SAFETY: getpid has no preconditions.
        let parent = unsafe { libc::getpid() };
        // SAFETY: the child runs only async-signal-safe system calls
        // (prctl, getppid, close, read, sigprocmask, signal, setrlimit, execve, write,
        // _exit) on memory prepared before the fork, then execs or exits.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(CreateError::Control(io::Error::last_os_error()));
        }
        if pid == 0 {
            // SAFETY: see the fork above; every pointer is to a live
            // CString or NULL-terminated array built before it.
            unsafe {
                // The command dies with dtrace, however dtrace ends (even
                // by SIGKILL): a -c target never outlives its tracer.
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
                if libc::getppid() != parent {
                    libc::_exit(127);
                }
                libc::close(gate_w.as_raw_fd());
                libc::close(err_r.as_raw_fd());
                // Held until dtrace has enabled tracing; a closed gate
                // (dtrace gone) ends the child.
                let mut b = 0u8;
                if libc::read(gate_r.as_raw_fd(), (&mut b as *mut u8).cast(), 1) != 1 {
                    libc::_exit(127);
                }
                // As a command started by a shell: no blocked signals,
                // SIGPIPE at its default (dtrace ignores it).
                let mut set: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut set);
                libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
                libc::signal(libc::SIGPIPE, libc::SIG_DFL);
                // The limits dtrace started with, not the ones it lifted
                // for itself.
                if let Some((memlock, nofile)) = &limits {
                    libc::setrlimit(libc::RLIMIT_MEMLOCK, memlock);
                    libc::setrlimit(libc::RLIMIT_NOFILE, nofile);
                }
                libc::execve(c_path.as_ptr(), arg_ptrs.as_ptr(), env_ptrs.as_ptr());
                let errno = *libc::__errno_location();
                libc::write(err_w.as_raw_fd(), (&errno as *const i32).cast(), 4);
                libc::_exit(127);
            }
        }
        drop(gate_r);
        drop(err_w);
        let pidfd = match pidfd_open(pid) {
            Ok(fd) => fd,
            Err(e) => {
                // SAFETY: killing and reaping our own child.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                    libc::waitpid(pid, std::ptr::null_mut(), 0);
                }
                return Err(CreateError::Control(e));
            }
        };
        let warden = match spawn_warden(&pidfd) {
            Ok(w) => w,
            Err(e) => {
                // SAFETY: killing and reaping our own child.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                    libc::waitpid(pid, std::ptr::null_mut(), 0);
                }
                return Err(CreateError::Control(e));
            }
        };
        Ok(Target {
            pid,
            created: true,
            gate: Some((gate_w, err_r)),
            pidfd,
            exited: false,
            ended: None,
            exe: Some(path),
            _warden: Some(warden),
        })
    }

    /// Follows an existing process. A kernel thread is refused as
    /// DTrace's libproc refuses one ("system process"): it has no user
    /// space to trace.
    pub fn grab(pid: i32) -> io::Result<Target> {
        let pidfd = pidfd_open(pid)?;
        if is_kernel_thread(pid) {
            return Err(io::Error::other("system process"));
        }
        Ok(Target {
            pid,
            created: false,
            gate: None,
            pidfd,
            exited: false,
            ended: None,
            exe: None,
            _warden: None,
        })
    }

    /// The executable a created command will exec, while it is held
    /// before its exec (`None` once released, and for a grabbed process).
    pub fn held_exe(&self) -> Option<&std::path::Path> {
        self.gate.as_ref().and(self.exe.as_deref())
    }

    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// Lets a created command run: it execs now. An exec that fails
    /// (after the lookup `create` made) is reported here.
    pub fn release(&mut self) -> io::Result<()> {
        let Some((gate, err)) = self.gate.take() else {
            return Ok(());
        };
        // SAFETY: writing one byte from a live buffer to our pipe.
        if unsafe { libc::write(gate.as_raw_fd(), b"g".as_ptr().cast(), 1) } != 1 {
            return Err(io::Error::last_os_error());
        }
        // The report pipe closes at the exec (close-on-exec) or carries
        // the exec's errno.
        let mut errno = [0u8; 4];
        let mut f = std::fs::File::from(err);
        match f.read(&mut errno) {
            Ok(4) => Err(io::Error::from_raw_os_error(i32::from_ne_bytes(errno))),
            _ => Ok(()),
        }
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
        if self.created {
            let mut status = 0;
            // SAFETY: a non-blocking wait for our own child.
            let r = unsafe { libc::waitpid(self.pid, &mut status, libc::WNOHANG) };
            if r == self.pid {
                self.ended = if libc::WIFSIGNALED(status) {
                    Some(Exit::Signal(libc::WTERMSIG(status)))
                } else {
                    Some(Exit::Status(libc::WEXITSTATUS(status)))
                };
            }
            if r == self.pid || r < 0 {
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

    /// How a command dtrace created ended, once `poll_exited` says it
    /// has (a grabbed process's end is its parent's to learn).
    pub fn exit(&self) -> Option<Exit> {
        self.ended
    }

    /// Kills a created command that is still running (dtrace exiting first).
    pub fn kill(&mut self) {
        if self.created && !self.exited {
            // SAFETY: killing and reaping our own child, not yet reaped.
            unsafe {
                libc::kill(self.pid, libc::SIGKILL);
                libc::waitpid(self.pid, std::ptr::null_mut(), 0);
            }
            self.exited = true;
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

/// Waits for child process `pid` to end: its wait status, and the most
/// memory it held (peak resident set, KiB), which the kernel keeps until
/// the child is reaped (what `/usr/bin/time` reports). For a child
/// `std::process::Child` made: it must not be waited for again.
pub fn wait_peak_rss(pid: u32) -> io::Result<(i32, u64)> {
    let mut status: libc::c_int = 0;
    // SAFETY: a zeroed `rusage` is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: wait4 writes only the status word and the rusage
        // struct, both live locals of the right types.
        let r = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
        if r >= 0 {
            return Ok((status, usage.ru_maxrss.max(0) as u64));
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(e);
        }
    }
}

/// Reads a whole small file, for /proc lookups.
pub fn read_small(path: &str) -> io::Result<String> {
    let mut s = String::new();
    std::fs::File::open(path)?.read_to_string(&mut s)?;
    Ok(s)
}

/// Runs `cmd` with the shell, as system(3) does, and waits for it, but
/// not past `give_up`: asked as it waits (each 50 ms at most), true ends
/// the command's whole process group (SIGTERM, then SIGKILL half a
/// second later) and returns. The command runs in a process group of its
/// own, so that giving up reaches a pipeline's every process, and the
/// terminal's Ctrl-C reaches dtrace, which decides. With `capture`, what
/// it writes to its standard output is returned (up to `MAX_CAPTURE`
/// bytes; the rest is read and dropped) instead of going to dtrace's.
/// RLIMIT_MEMLOCK and RLIMIT_NOFILE as dtrace started with them, once
/// dtrace has lifted them.
static STARTED: std::sync::OnceLock<(libc::rlimit, libc::rlimit)> = std::sync::OnceLock::new();

/// Lifts dtrace's own RLIMIT_MEMLOCK (kernels before 5.11 charge BPF
/// maps and programs to it, 64 KiB by default, too little for one
/// handle; later kernels charge the memory cgroup and ignore it) and
/// RLIMIT_NOFILE (a program, a link or a perf event is a descriptor:
/// a glob of kernel or user functions where the kernel has no
/// multi-attach links is one or two each, beyond the usual 1,024). The
/// commands dtrace starts (`-c`, `system()`) get back the limits it
/// started with. Without the privilege to raise them, nothing changes
/// and the kernel's refusal says why.
pub fn lift_limits() {
    let get = |which| {
        let mut r = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes only the struct passed, which lives here.
        (unsafe { libc::getrlimit(which, &mut r) } == 0).then_some(r)
    };
    let (Some(memlock), Some(nofile)) = (get(libc::RLIMIT_MEMLOCK), get(libc::RLIMIT_NOFILE))
    else {
        return;
    };
    let unlimited = libc::rlimit {
        rlim_cur: libc::RLIM_INFINITY,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: setrlimit reads only the struct passed.
    unsafe { libc::setrlimit(libc::RLIMIT_MEMLOCK, &unlimited) };
    // As many descriptors as the system lets a process have.
    let most = std::fs::read_to_string("/proc/sys/fs/nr_open")
        .ok()
        .and_then(|s| s.trim().parse::<libc::rlim_t>().ok())
        .unwrap_or(nofile.rlim_max)
        .max(nofile.rlim_cur);
    let raised = libc::rlimit {
        rlim_cur: most,
        rlim_max: most.max(nofile.rlim_max),
    };
    // SAFETY: as above; without the privilege, the hard limit is kept.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } != 0 {
        let soft = libc::rlimit {
            rlim_cur: nofile.rlim_max,
            rlim_max: nofile.rlim_max,
        };
        // SAFETY: as above.
        unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &soft) };
    }
    let _ = STARTED.set((memlock, nofile));
}

/// The limits a command dtrace starts is given back, if dtrace lifted
/// its own.
fn started_limits() -> Option<(libc::rlimit, libc::rlimit)> {
    STARTED.get().copied()
}

pub fn run_shell(
    cmd: &OsStr,
    capture: bool,
    give_up: &dyn Fn() -> bool,
) -> io::Result<Option<Vec<u8>>> {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let mut c = Command::new("/bin/sh");
    c.arg("-c").arg(cmd).process_group(0);
    if let Some((memlock, nofile)) = started_limits() {
        // SAFETY: between fork and exec the closure makes two
        // async-signal-safe system calls on copies of the limits.
        unsafe {
            c.pre_exec(move || {
                libc::setrlimit(libc::RLIMIT_MEMLOCK, &memlock);
                libc::setrlimit(libc::RLIMIT_NOFILE, &nofile);
                Ok(())
            });
        }
    }
    if capture {
        c.stdout(Stdio::piped());
    }
    let mut child = c.spawn()?;
    let reader = child.stdout.take().map(|mut out| {
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let mut buf = [0u8; 8192];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let room = MAX_CAPTURE.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
            kept
        })
    });
    let pidfd = pidfd_open(child.id() as i32).ok();
    let group = -(child.id() as i32);
    let mut gave_up = false;
    loop {
        if child.try_wait()?.is_some() {
            break;
        }
        if give_up() {
            gave_up = true;
            // SAFETY: kill(2) of the process group we made.
            unsafe { libc::kill(group, libc::SIGTERM) };
            for _ in 0..10 {
                if child.try_wait()?.is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            // SAFETY: as above; a group already gone is ESRCH.
            unsafe { libc::kill(group, libc::SIGKILL) };
            child.wait()?;
            break;
        }
        wait_exit(pidfd.as_ref(), Duration::from_millis(50));
    }
    let Some(reader) = reader else {
        return Ok(None);
    };
    // A command that left a process behind holding its output (`cmd &`)
    // is not waited for past a stop.
    while !reader.is_finished() {
        if gave_up || give_up() {
            return Ok(Some(Vec::new()));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(Some(reader.join().unwrap_or_default()))
}

/// The most output of a `system()` command kept for a JSON record.
pub const MAX_CAPTURE: usize = 16 << 20;

/// Waits up to `timeout` for the process of `pidfd` to exit (or sleeps,
/// without one).
fn wait_exit(pidfd: Option<&OwnedFd>, timeout: Duration) {
    match pidfd {
        Some(fd) => {
            let mut p = libc::pollfd {
                fd: fd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd; a signal ends the wait early.
            unsafe { libc::poll(&mut p, 1, timeout.as_millis() as libc::c_int) };
        }
        None => std::thread::sleep(timeout),
    }
}

/// Opens `path` for writing (appending, or truncating), created if need
/// be, without blocking on a FIFO no process reads yet: the open is
/// retried every 50 ms until a reader comes or `give_up` says to stop
/// (then the error is ENXIO, which `open_error_text` words). The file is
/// returned blocking, as an ordinary open gives it.
pub fn open_writer(
    path: &Path,
    append: bool,
    give_up: &dyn Fn() -> bool,
) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    loop {
        let r = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .append(append)
            .truncate(!append)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(path);
        match r {
            Ok(f) => {
                let fd = f.as_raw_fd();
                // SAFETY: fcntl on a descriptor we own, reading then
                // clearing one status flag.
                unsafe {
                    let fl = libc::fcntl(fd, libc::F_GETFL);
                    if fl >= 0 {
                        libc::fcntl(fd, libc::F_SETFL, fl & !libc::O_NONBLOCK);
                    }
                }
                return Ok(f);
            }
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) && !give_up() => {
                std::thread::sleep(Duration::from_millis(50))
            }
            Err(e) => return Err(e),
        }
    }
}

/// An error of [`open_writer`] in words: a FIFO with no reader says so.
pub fn open_error_text(e: &io::Error) -> String {
    if e.raw_os_error() == Some(libc::ENXIO) {
        "no process has the FIFO open for reading".to_string()
    } else {
        e.to_string()
    }
}

/// True if `pid` is a kernel thread (`PF_KTHREAD` in its flags, the
/// ninth field of /proc/PID/stat).
pub fn is_kernel_thread(pid: i32) -> bool {
    const PF_KTHREAD: u64 = 0x0020_0000;
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{}/stat", pid)) else {
        return false;
    };
    // After "pid (comm) ": state ppid pgrp session tty_nr tpgid flags.
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().nth(6))
        .and_then(|f| f.parse::<u64>().ok())
        .is_some_and(|flags| flags & PF_KTHREAD != 0)
}

#[cfg(test)]
mod kthread_tests {
    #[test]
    fn kernel_threads_are_told_from_processes() {
        // kthreadd is pid 2 on Linux; this test is a process.
        assert!(super::is_kernel_thread(2));
        assert!(!super::is_kernel_thread(std::process::id() as i32));
        assert!(!super::is_kernel_thread(-1));
    }
}

/// Starts a warden for a created command: a small process of its own
/// (forked twice, so that init, not dtrace, reaps it) that waits for
/// the end of a pipe dtrace alone writes, then kills the command through
/// `pidfd` (which never names another process, even once the command's
/// pid is reused) and exits. dtrace's exit, however it comes (SIGKILL
/// included), closes the pipe. `PR_SET_PDEATHSIG` alone is not enough:
/// the kernel forgets it when the command execs a set-user-ID or
/// set-group-ID program, which then outlives dtrace.
fn spawn_warden(pidfd: &OwnedFd) -> io::Result<OwnedFd> {
    let (r, w) = pipe()?;
    let (rfd, pfd) = (r.as_raw_fd(), pidfd.as_raw_fd());
    let (lo, hi) = (rfd.min(pfd), rfd.max(pfd));
    // SAFETY: both children make async-signal-safe system calls only
    // (fork, close, close_range, signal, getppid, read, pidfd_send_signal,
    // _exit) on descriptors and values prepared before the fork.
    let first = unsafe { libc::fork() };
    if first < 0 {
        return Err(io::Error::last_os_error());
    }
    if first == 0 {
        // SAFETY: see above.
        unsafe {
            if libc::fork() != 0 {
                // The intermediate child: the warden is on its own now.
                libc::_exit(0);
            }
            // The warden keeps the pipe's read end and the pidfd, and
            // nothing else of dtrace's (its BPF objects above all).
            libc::close(w.as_raw_fd());
            libc::syscall(libc::SYS_close_range, 3u32, (lo - 1) as u32, 0u32);
            if hi > lo + 1 {
                libc::syscall(
                    libc::SYS_close_range,
                    (lo + 1) as u32,
                    (hi - 1) as u32,
                    0u32,
                );
            }
            libc::syscall(libc::SYS_close_range, (hi + 1) as u32, u32::MAX, 0u32);
            // The terminal's Ctrl-C is dtrace's to act on, not the warden's.
            libc::signal(libc::SIGINT, libc::SIG_IGN);
            libc::signal(libc::SIGTERM, libc::SIG_IGN);
            libc::signal(libc::SIGHUP, libc::SIG_IGN);
            let mut b = 0u8;
            loop {
                let n = libc::read(rfd, (&mut b as *mut u8).cast(), 1);
                if n == 0 || (n < 0 && *libc::__errno_location() != libc::EINTR) {
                    break;
                }
            }
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                pfd,
                libc::SIGKILL,
                std::ptr::null::<libc::siginfo_t>(),
                0u32,
            );
            libc::_exit(0);
        }
    }
    // SAFETY: reaping the intermediate child, which exits at once.
    unsafe { libc::waitpid(first, std::ptr::null_mut(), 0) };
    drop(r);
    Ok(w)
}

/// One mapping of a process, as a line of `/proc/PID/maps` gives it:
/// `[lo, hi)` maps `path` (none for an anonymous mapping; without the
/// kernel's ` (deleted)` mark, which `deleted` keeps) from file offset
/// `offset`, on device `dev` (as the file writes it, `fe:00`) and inode
/// `inode`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    pub lo: u64,
    pub hi: u64,
    /// The `r`, `w`, `x` and `p`/`s` flags as written (`r-xp`).
    pub perms: String,
    pub offset: u64,
    pub dev: String,
    pub inode: u64,
    pub path: String,
    pub deleted: bool,
}

impl Mapping {
    /// True for a mapping of code from a file (an object's text).
    pub fn is_file_code(&self) -> bool {
        self.perms.contains('x') && self.inode != 0 && self.path.starts_with('/')
    }

    /// `/proc/PID/map_files/LO-HI`: the mapped file itself, whatever
    /// its path now names (or in which mount namespace).
    pub fn map_file(&self, pid: u32) -> PathBuf {
        PathBuf::from(format!(
            "/proc/{}/map_files/{:x}-{:x}",
            pid, self.lo, self.hi
        ))
    }
}

/// One line of `/proc/PID/maps` (None for one that is not such a line).
pub fn parse_maps_line(line: &str) -> Option<Mapping> {
    let mut f = line.split_whitespace();
    let (lo, hi) = f.next()?.split_once('-')?;
    let perms = f.next()?.to_string();
    let offset = u64::from_str_radix(f.next()?, 16).ok()?;
    let dev = f.next()?.to_string();
    let inode = f.next()?.parse().ok()?;
    let path = f.collect::<Vec<_>>().join(" ");
    let (path, deleted) = match path.strip_suffix(" (deleted)") {
        Some(p) => (p.to_string(), true),
        None => (path, false),
    };
    Some(Mapping {
        lo: u64::from_str_radix(lo, 16).ok()?,
        hi: u64::from_str_radix(hi, 16).ok()?,
        perms,
        offset,
        dev,
        inode,
        path,
        deleted,
    })
}

/// A process's mappings, from `/proc/PID/maps`.
pub fn read_maps(pid: u32) -> io::Result<Vec<Mapping>> {
    let text = std::fs::read_to_string(format!("/proc/{}/maps", pid))?;
    Ok(text.lines().filter_map(parse_maps_line).collect())
}

#[cfg(test)]
mod maps_tests {
    use super::*;

    #[test]
    fn maps_lines_are_read() {
        let m = parse_maps_line(
            "7f1c2a000000-7f1c2a028000 r-xp 00026000 fe:00 326279   /usr/lib/libc.so.6 (deleted)",
        )
        .expect("a line");
        assert_eq!(
            (m.lo, m.hi, m.offset),
            (0x7f1c2a000000, 0x7f1c2a028000, 0x26000)
        );
        assert_eq!((m.dev.as_str(), m.inode), ("fe:00", 326279));
        assert_eq!((m.path.as_str(), m.deleted), ("/usr/lib/libc.so.6", true));
        assert!(m.is_file_code());
        assert_eq!(
            m.map_file(7),
            PathBuf::from("/proc/7/map_files/7f1c2a000000-7f1c2a028000")
        );
        let anon = parse_maps_line("7f00-7f80 rw-p 00000000 00:00 0").expect("a line");
        assert!(!anon.is_file_code() && anon.path.is_empty());
        let vdso = parse_maps_line("7f00-7f80 r-xp 00000000 00:00 0    [vdso]").expect("a line");
        assert!(!vdso.is_file_code());
        assert!(parse_maps_line("garbage").is_none());
        assert!(read_maps(std::process::id()).is_ok_and(|m| m.iter().any(|l| l.is_file_code())));
    }
}
