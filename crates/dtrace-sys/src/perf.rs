//! `perf_event_open(2)`: tracepoint events, software clock events and the
//! uprobe PMU, and attaching a BPF program to an event.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

const PERF_TYPE_SOFTWARE: u32 = 1;
const PERF_TYPE_TRACEPOINT: u32 = 2;
const PERF_COUNT_SW_CPU_CLOCK: u64 = 0;
const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 8;
const PERF_SAMPLE_RAW: u64 = 1 << 10;

// _IO('$', 0) and _IOW('$', 8, __u32).
const PERF_EVENT_IOC_ENABLE: libc::c_ulong = 0x2400;
const PERF_EVENT_IOC_SET_BPF: libc::c_ulong = 0x4004_2408;

/// `struct perf_event_attr` up to `PERF_ATTR_SIZE_VER5`.
#[repr(C)]
#[derive(Default)]
struct PerfEventAttr {
    type_: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
    config2: u64,
    branch_sample_type: u64,
    sample_regs_user: u64,
    sample_stack_user: u32,
    clockid: i32,
    sample_regs_intr: u64,
    aux_watermark: u32,
    sample_max_stack: u16,
    _reserved: u16,
}

const FLAG_DISABLED: u64 = 1 << 0;

fn open(attr: &mut PerfEventAttr, pid: i32, cpu: i32) -> io::Result<OwnedFd> {
    attr.size = std::mem::size_of::<PerfEventAttr>() as u32;
    // SAFETY: `attr` is a valid, initialised perf_event_attr whose `size`
    // field tells the kernel how many bytes to read; the other arguments are
    // plain integers.
    let r = unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            attr as *mut PerfEventAttr,
            pid as libc::c_long,
            cpu as libc::c_long,
            -1 as libc::c_long,
            PERF_FLAG_FD_CLOEXEC,
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a non-negative result is a new descriptor owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(r as i32) })
}

/// Opens a tracepoint event by its tracefs id. Opened on one CPU for all
/// processes, a tracepoint event runs its BPF program on every CPU.
pub fn open_tracepoint(id: u64) -> io::Result<OwnedFd> {
    let mut attr = PerfEventAttr {
        type_: PERF_TYPE_TRACEPOINT,
        config: id,
        sample_period: 1,
        sample_type: PERF_SAMPLE_RAW,
        wakeup_events: 1,
        flags: FLAG_DISABLED,
        ..Default::default()
    };
    open(&mut attr, -1, 0)
}

/// Opens a cpu-clock software event on `cpu` that overflows every
/// `period_ns` nanoseconds.
pub fn open_cpu_clock(cpu: u32, period_ns: u64) -> io::Result<OwnedFd> {
    let mut attr = PerfEventAttr {
        type_: PERF_TYPE_SOFTWARE,
        config: PERF_COUNT_SW_CPU_CLOCK,
        sample_period: period_ns.max(1),
        flags: FLAG_DISABLED,
        ..Default::default()
    };
    open(&mut attr, -1, cpu as i32)
}

/// Opens a dummy software event on `cpu` for every process that reports
/// executable mappings (`mmap`, `mmap2`) and execs (`comm`, `comm_exec`) into its
/// ring buffer (`mmaps.rs`), enabled at once.
pub fn open_mmap_reports(cpu: u32) -> io::Result<OwnedFd> {
    const PERF_COUNT_SW_DUMMY: u64 = 9;
    const MMAP: u64 = 1 << 8;
    const COMM: u64 = 1 << 9;
    const MMAP2: u64 = 1 << 23;
    const COMM_EXEC: u64 = 1 << 24;
    let mut attr = PerfEventAttr {
        type_: PERF_TYPE_SOFTWARE,
        config: PERF_COUNT_SW_DUMMY,
        sample_period: 1,
        flags: MMAP | MMAP2 | COMM | COMM_EXEC,
        ..Default::default()
    };
    open(&mut attr, -1, cpu as i32)
}

/// Kinds of counter `open_counter` opens (perf's event types).
pub const PERF_TYPE_HARDWARE_ID: u32 = 0;
pub const PERF_TYPE_SOFTWARE_ID: u32 = PERF_TYPE_SOFTWARE;
pub const PERF_TYPE_HW_CACHE_ID: u32 = 3;

/// Opens a sampling counter on `cpu`: event `config` of PMU type
/// `type_` (with `config1` for platform attributes), overflowing every
/// `period` events, counting user mode, kernel mode or both.
pub fn open_counter(
    cpu: u32,
    type_: u32,
    config: u64,
    config1: u64,
    period: u64,
    user: bool,
    kernel: bool,
) -> io::Result<OwnedFd> {
    const EXCLUDE_USER: u64 = 1 << 4;
    const EXCLUDE_KERNEL: u64 = 1 << 5;
    const EXCLUDE_HV: u64 = 1 << 6;
    let mut flags = FLAG_DISABLED | EXCLUDE_HV;
    if !user {
        flags |= EXCLUDE_USER;
    }
    if !kernel {
        flags |= EXCLUDE_KERNEL;
    }
    let mut attr = PerfEventAttr {
        type_,
        config,
        config1,
        sample_period: period.max(1),
        flags,
        ..Default::default()
    };
    open(&mut attr, -1, cpu as i32)
}

/// The uprobe PMU's type (`/sys/bus/event_source/devices/uprobe/type`),
/// read once.
pub fn uprobe_pmu_type() -> io::Result<u32> {
    static TYPE: std::sync::OnceLock<Result<u32, String>> = std::sync::OnceLock::new();
    TYPE.get_or_init(|| {
        std::fs::read_to_string("/sys/bus/event_source/devices/uprobe/type")
            .map_err(|e| e.to_string())
            .and_then(|t| t.trim().parse::<u32>().map_err(|e| e.to_string()))
    })
    .clone()
    .map_err(|e| io::Error::other(format!("the kernel has no uprobe PMU: {}", e)))
}

/// Opens a uprobe (or, with `ret`, a uretprobe) on `path` at file `offset`
/// through the uprobe PMU, counting the USDT semaphore at file offset
/// `ref_ctr` (0 for none) while it is open. With `pid` -1 it fires in
/// every process (the program tells them apart).
pub fn open_uprobe(
    pmu_type: u32,
    path: &std::ffi::CStr,
    offset: u64,
    ref_ctr: u64,
    ret: bool,
    pid: i32,
) -> io::Result<OwnedFd> {
    // The PMU's format: `retprobe` is config:0, `ref_ctr_offset`
    // config:32-63.
    let ref_ctr = u32::try_from(ref_ctr)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "semaphore offset over 4 GiB"))?;
    let mut attr = PerfEventAttr {
        type_: pmu_type,
        config: u64::from(ret) | (u64::from(ref_ctr) << 32),
        config1: path.as_ptr() as u64,
        config2: offset,
        sample_period: 1,
        wakeup_events: 1,
        flags: FLAG_DISABLED,
        ..Default::default()
    };
    // A process-wide probe (pid -1) must name a CPU; a per-process one may
    // use any CPU.
    open(&mut attr, pid, if pid == -1 { 0 } else { -1 })
}

/// Enables an event opened disabled (one a BPF link attached a program
/// to).
pub fn enable(event: &OwnedFd) -> io::Result<()> {
    // SAFETY: a valid descriptor we own; ENABLE takes no argument.
    let r = unsafe { libc::ioctl(event.as_raw_fd(), PERF_EVENT_IOC_ENABLE as _, 0) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Attaches `prog` to the event and enables it.
pub fn attach_bpf(event: &OwnedFd, prog: &OwnedFd) -> io::Result<()> {
    // SAFETY: both are valid descriptors we own; SET_BPF takes the program
    // fd by value and ENABLE takes no argument.
    let r = unsafe {
        libc::ioctl(
            event.as_raw_fd(),
            PERF_EVENT_IOC_SET_BPF as _,
            prog.as_raw_fd() as libc::c_ulong,
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: as above.
    let r = unsafe { libc::ioctl(event.as_raw_fd(), PERF_EVENT_IOC_ENABLE as _, 0) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn attr_is_version_5_sized() {
        assert_eq!(std::mem::size_of::<super::PerfEventAttr>(), 112);
    }
}
