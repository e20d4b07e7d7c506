//! The kernel layer. Everything dtrace asks of the kernel goes through this
//! crate: `bpf(2)`, `perf_event_open(2)`, ring-buffer mappings, tracefs,
//! process creation and signals. It is the only crate allowed `unsafe`, and
//! each unsafe block states why it is sound. Objects are returned as owned
//! file descriptors and nothing is pinned, so when dtrace exits, however it
//! exits, the kernel detaches and frees every program, map and event.

pub mod bpf;
pub mod btf;
pub mod cpus;
pub mod perf;
pub mod poll;
pub mod process;
pub mod ringbuf;
pub mod tracefs;

/// Wall-clock minus monotonic time, in nanoseconds: added to
/// `bpf_ktime_get_ns()` it gives `walltimestamp`.
pub fn realtime_offset_ns() -> i64 {
    fn now(clock: libc::clockid_t) -> i64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid timespec to fill.
        unsafe { libc::clock_gettime(clock, &mut ts) };
        ts.tv_sec * 1_000_000_000 + ts.tv_nsec
    }
    now(libc::CLOCK_REALTIME) - now(libc::CLOCK_MONOTONIC)
}

/// Monotonic time in nanoseconds, the clock of `timestamp`.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The effective user id (privilege checks and messages).
pub fn geteuid() -> u32 {
    // SAFETY: geteuid cannot fail and has no preconditions.
    unsafe { libc::geteuid() }
}

/// The real user id (`$uid`).
pub fn getuid() -> u32 {
    // SAFETY: getuid cannot fail and has no preconditions.
    unsafe { libc::getuid() }
}

/// The real group id (`$gid`).
pub fn getgid() -> u32 {
    // SAFETY: getgid cannot fail and has no preconditions.
    unsafe { libc::getgid() }
}

/// The process group id (`$pgid`).
pub fn getpgid() -> i32 {
    // SAFETY: getpgid(0) asks about the calling process; no pointers.
    unsafe { libc::getpgid(0) }
}

/// The session id (`$sid`).
pub fn getsid() -> i32 {
    // SAFETY: getsid(0) asks about the calling process; no pointers.
    unsafe { libc::getsid(0) }
}

/// Broken-down local time of `secs` since the epoch: (year, month 0-11,
/// day, hour, minute, second).
pub fn localtime(secs: i64) -> (i32, u32, u32, u32, u32, u32) {
    let t: libc::time_t = secs;
    // SAFETY: `tm` is a plain C struct for localtime_r to fill; `t` is a
    // valid time_t. localtime_r is thread-safe.
    let tm = unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&t, &mut tm).is_null() {
            return (1970, 0, 1, 0, 0, 0);
        }
        tm
    };
    (
        tm.tm_year + 1900,
        tm.tm_mon as u32,
        tm.tm_mday as u32,
        tm.tm_hour as u32,
        tm.tm_min as u32,
        tm.tm_sec as u32,
    )
}
