//! The kernel layer. Everything dtrace asks of the kernel goes through this
//! crate: `bpf(2)`, `perf_event_open(2)`, ring-buffer mappings, tracefs,
//! process creation and signals. It is the only crate allowed `unsafe`, and
//! each unsafe block states why it is sound. Objects are returned as owned
//! file descriptors and nothing is pinned, so when dtrace exits, however it
//! exits, the kernel detaches and frees every program, map and event.

pub mod bpf;
pub mod btf;
pub mod cpus;
pub mod features;
pub mod ksyms;
mod mapped;
pub mod mmaps;
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

/// True if this process may load tracing BPF programs: it holds
/// CAP_SYS_ADMIN, or both CAP_BPF and CAP_PERFMON (read from the
/// effective set in /proc/self/status).
pub fn has_trace_privilege() -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let caps = status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|v| u64::from_str_radix(v.trim(), 16).ok());
    match caps {
        Some(c) => cap_allows_tracing(c),
        // No /proc: let the kernel decide.
        None => true,
    }
}

fn cap_allows_tracing(c: u64) -> bool {
    const CAP_SYS_ADMIN: u32 = 21;
    const CAP_PERFMON: u32 = 38;
    const CAP_BPF: u32 = 39;
    let has = |bit: u32| c & (1u64 << bit) != 0;
    has(CAP_SYS_ADMIN) || (has(CAP_BPF) && has(CAP_PERFMON))
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

#[cfg(test)]
mod tests {
    #[test]
    fn capability_sets() {
        assert!(super::cap_allows_tracing(1 << 21));
        assert!(super::cap_allows_tracing((1 << 38) | (1 << 39)));
        assert!(!super::cap_allows_tracing(1 << 39));
        assert!(!super::cap_allows_tracing(0));
    }
}
