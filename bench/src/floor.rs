//! The floors: the least a tracer can do for each benchmarked D clause
//! on getpid entry, written by hand. Each is one BPF program on the
//! cheapest hook the kernel offers for one system call (the raw
//! `sys_enter` tracepoint, sending every other call away on its number;
//! the `syscalls:sys_enter_getpid` perf-event tracepoint where the number
//! is not known), doing the clause's work and nothing more:
//!
//! - `@[execname] = count()`: the task's comm as the key of a per-CPU hash;
//! - `@[pid] = count()`: the thread group id as the key;
//! - `@[probefunc] = count()`: the function's name, a constant, as the key;
//! - `@[pid] = sum(pid)`: the thread group id as key and addend;
//! - `/pid != 1/ { @ = count(); }`: a compare, then a per-CPU array slot;
//! - `/execname == "dtrace-bench"/ { @ = count(); }`: two 8-byte compares
//!   of the comm, then the slot;
//! - `@ = quantize(pid)`: the power-of-two bucket of the thread group id
//!   (a binary search of its highest bit), one slot of a per-CPU array of
//!   64 buckets;
//! - `printf("%d %d\n", pid, tid)`: 16 bytes reserved in this CPU's ring
//!   buffer (one per CPU, in an array of maps, as dtrace's principal
//!   buffers), filled and submitted with no wake-up; a thread here drains
//!   them each millisecond, counts them and formats each as its line (the
//!   text thrown away, as dtrace's is written to /dev/null here).

use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use dtrace_bpf::asm::{Asm, Label, MapId};
use dtrace_bpf::insn::*;
use dtrace_sys::bpf::{self, Map, MapType, ProgType};
use dtrace_sys::ringbuf::RingBuf;

/// The clause a floor stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    CountComm,
    CountPid,
    CountFunc,
    SumPid,
    PredPid,
    PredComm,
    Printf,
    QuantizePid,
}

/// getpid's number, where the raw `sys_enter` hook can filter on it.
#[cfg(target_arch = "x86_64")]
const GETPID_NR: Option<i32> = Some(39);
#[cfg(target_arch = "aarch64")]
const GETPID_NR: Option<i32> = Some(172);
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const GETPID_NR: Option<i32> = None;

/// The process name the `execname` predicate matches (the bench's own
/// loops), NUL-padded to the comm's 16 bytes.
pub const BENCH_COMM: &str = "dtrace-bench";

/// `bpf_ringbuf_submit` flag: no wake-up (the drain reads on a timer).
const BPF_RB_NO_WAKEUP: i32 = 1;

/// Each ring buffer's size: dtrace's default principal buffer.
const RING_BYTES: u32 = 4 << 20;

pub struct Floor {
    kind: Kind,
    counts: Map,
    drain: Option<Drain>,
    _prog: OwnedFd,
    _link: OwnedFd,
}

struct Drain {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<u64>,
}

/// The 16-byte, NUL-padded form of a name, as two little-endian words.
fn name_words(s: &str) -> [u64; 2] {
    let mut b = [0u8; 16];
    for (d, c) in b.iter_mut().zip(s.bytes().take(15)) {
        *d = c;
    }
    [
        u64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8])),
        u64::from_le_bytes(b[8..].try_into().unwrap_or([0; 8])),
    ]
}

/// Adds `r_amount` to the per-CPU hash value under the key at
/// `fp + key_off`, inserting it (with BPF_ANY: two CPUs missing at once
/// must both count) when absent.
fn bump_hash(a: &mut Asm, key_off: i16, amount: Reg, out: Label) {
    a.ld_map_fd(R1, MapId(0));
    a.emit(mov64_reg(R2, FP));
    a.emit(alu64_imm(Alu::Add, R2, key_off as i32));
    a.emit(call(Helper::MapLookupElem));
    let insert = a.new_label();
    a.jmp_imm_to(Cond::Eq, R0, 0, insert);
    a.emit(ldx(Size::DW, R1, R0, 0));
    a.emit(alu64_reg(Alu::Add, R1, amount));
    a.emit(stx(Size::DW, R0, 0, R1));
    a.ja_to(out);
    a.bind(insert);
    a.emit(stx(Size::DW, FP, -32, amount));
    a.ld_map_fd(R1, MapId(0));
    a.emit(mov64_reg(R2, FP));
    a.emit(alu64_imm(Alu::Add, R2, key_off as i32));
    a.emit(mov64_reg(R3, FP));
    a.emit(alu64_imm(Alu::Add, R3, -32));
    a.emit(mov64_imm(R4, bpf::BPF_ANY as i32));
    a.emit(call(Helper::MapUpdateElem));
    a.ja_to(out);
}

/// Adds one to slot 0 of the per-CPU array.
fn bump_slot(a: &mut Asm, out: Label) {
    a.emit(st_imm(Size::W, FP, -4, 0));
    bump_slot_at_fp4(a, out);
}

/// Adds one to the slot of the per-CPU array whose index is at fp-4.
fn bump_slot_at_fp4(a: &mut Asm, out: Label) {
    a.ld_map_fd(R1, MapId(0));
    a.emit(mov64_reg(R2, FP));
    a.emit(alu64_imm(Alu::Add, R2, -4));
    a.emit(call(Helper::MapLookupElem));
    a.jmp_imm_to(Cond::Eq, R0, 0, out);
    a.emit(ldx(Size::DW, R1, R0, 0));
    a.emit(alu64_imm(Alu::Add, R1, 1));
    a.emit(stx(Size::DW, R0, 0, R1));
    a.ja_to(out);
}

/// The comm into fp-16..fp-1.
fn comm_at_fp16(a: &mut Asm) {
    a.emit(st_imm(Size::DW, FP, -16, 0));
    a.emit(st_imm(Size::DW, FP, -8, 0));
    a.emit(mov64_reg(R1, FP));
    a.emit(alu64_imm(Alu::Add, R1, -16));
    a.emit(mov64_imm(R2, 16));
    a.emit(call(Helper::GetCurrentComm));
}

fn program(kind: Kind, raw: bool) -> io::Result<dtrace_bpf::asm::Assembled> {
    let mut a = Asm::new();
    let out = a.new_label();
    if raw {
        // struct bpf_raw_tracepoint_args: args[1] is the call's number.
        a.emit(ldx(Size::DW, R1, R1, 8));
        a.jmp_imm_to(Cond::Ne, R1, GETPID_NR.unwrap_or(-1), out);
    }
    match kind {
        Kind::CountComm => {
            comm_at_fp16(&mut a);
            a.emit(mov64_imm(R7, 1));
            bump_hash(&mut a, -16, R7, out);
        }
        Kind::CountPid | Kind::SumPid => {
            a.emit(call(Helper::GetCurrentPidTgid));
            a.emit(alu64_imm(Alu::Rsh, R0, 32));
            a.emit(stx(Size::W, FP, -8, R0));
            if kind == Kind::SumPid {
                a.emit(mov64_reg(R7, R0));
            } else {
                a.emit(mov64_imm(R7, 1));
            }
            bump_hash(&mut a, -8, R7, out);
        }
        Kind::CountFunc => {
            let [w0, w1] = name_words("getpid");
            a.emit2(lddw(R1, w0));
            a.emit(stx(Size::DW, FP, -16, R1));
            a.emit2(lddw(R1, w1));
            a.emit(stx(Size::DW, FP, -8, R1));
            a.emit(mov64_imm(R7, 1));
            bump_hash(&mut a, -16, R7, out);
        }
        Kind::PredPid => {
            a.emit(call(Helper::GetCurrentPidTgid));
            a.emit(alu64_imm(Alu::Rsh, R0, 32));
            a.jmp_imm_to(Cond::Eq, R0, 1, out);
            bump_slot(&mut a, out);
        }
        Kind::PredComm => {
            comm_at_fp16(&mut a);
            let [w0, w1] = name_words(BENCH_COMM);
            a.emit(ldx(Size::DW, R1, FP, -16));
            a.emit2(lddw(R2, w0));
            a.jmp_reg_to(Cond::Ne, R1, R2, out);
            a.emit(ldx(Size::DW, R1, FP, -8));
            a.emit2(lddw(R2, w1));
            a.jmp_reg_to(Cond::Ne, R1, R2, out);
            bump_slot(&mut a, out);
        }
        Kind::QuantizePid => {
            a.emit(call(Helper::GetCurrentPidTgid));
            a.emit(alu64_imm(Alu::Rsh, R0, 32));
            // r5 = floor(log2(pid)), pid > 0: six halvings of the range.
            a.emit(mov64_imm(R5, 0));
            for sh in [32, 16, 8, 4, 2, 1] {
                let skip = a.new_label();
                a.emit(mov64_reg(R1, R0));
                a.emit(alu64_imm(Alu::Rsh, R1, sh));
                a.jmp_imm_to(Cond::Eq, R1, 0, skip);
                a.emit(mov64_reg(R0, R1));
                a.emit(alu64_imm(Alu::Add, R5, sh));
                a.bind(skip);
            }
            a.emit(stx(Size::W, FP, -4, R5));
            bump_slot_at_fp4(&mut a, out);
        }
        Kind::Printf => {
            a.emit(call(Helper::GetSmpProcessorId));
            a.emit(stx(Size::W, FP, -4, R0));
            a.ld_map_fd(R1, MapId(0));
            a.emit(mov64_reg(R2, FP));
            a.emit(alu64_imm(Alu::Add, R2, -4));
            a.emit(call(Helper::MapLookupElem));
            a.jmp_imm_to(Cond::Eq, R0, 0, out);
            a.emit(mov64_reg(R1, R0));
            a.emit(mov64_imm(R2, 16));
            a.emit(mov64_imm(R3, 0));
            a.emit(call(Helper::RingbufReserve));
            a.jmp_imm_to(Cond::Eq, R0, 0, out);
            a.emit(mov64_reg(R7, R0));
            a.emit(call(Helper::GetCurrentPidTgid));
            a.emit(stx(Size::DW, R7, 8, R0));
            a.emit(alu64_imm(Alu::Rsh, R0, 32));
            a.emit(stx(Size::DW, R7, 0, R0));
            a.emit(mov64_reg(R1, R7));
            a.emit(mov64_imm(R2, BPF_RB_NO_WAKEUP));
            a.emit(call(Helper::RingbufSubmit));
        }
    }
    a.bind(out);
    a.emit(mov64_imm(R0, 0));
    a.emit(exit());
    a.finish().map_err(|e| io::Error::other(format!("{:?}", e)))
}

/// Drains every ring buffer each millisecond until told to stop (then
/// once more): the producers never pay for a wake-up. Returns the
/// records read.
fn drain(rings: Vec<Map>, stop: Arc<AtomicBool>) -> io::Result<u64> {
    let mut rings = rings
        .into_iter()
        .map(RingBuf::new)
        .collect::<io::Result<Vec<_>>>()?;
    let mut n = 0u64;
    // Each record becomes its line, as a tracer's output would, into a
    // buffer that is then thrown away (as written to /dev/null).
    let mut text: Vec<u8> = Vec::with_capacity(1 << 16);
    loop {
        let last = stop.load(Ordering::Acquire);
        let mut got = 0;
        for r in rings.iter_mut() {
            got += r.consume(|rec| {
                let word = |i: usize| {
                    rec.get(8 * i..8 * i + 8)
                        .and_then(|b| b.try_into().ok())
                        .map(u64::from_ne_bytes)
                        .unwrap_or(0)
                };
                push_decimal(&mut text, word(0));
                text.push(b' ');
                push_decimal(&mut text, word(1));
                text.push(b'\n');
                if text.len() > 1 << 15 {
                    std::hint::black_box(&text);
                    text.clear();
                }
                true
            });
        }
        n += got as u64;
        if last {
            return Ok(n);
        }
        if got == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// `v` in decimal at the end of `out`.
fn push_decimal(out: &mut Vec<u8>, mut v: u64) {
    let mut d = [0u8; 20];
    let mut i = d.len();
    loop {
        i -= 1;
        d[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&d[i..]);
}

impl Floor {
    pub fn attach(kind: Kind) -> io::Result<Floor> {
        let counts = match kind {
            Kind::CountComm | Kind::CountFunc => {
                Map::create(MapType::PercpuHash, 16, 8, 1024, 0, "floor_counts")?
            }
            Kind::CountPid | Kind::SumPid => {
                Map::create(MapType::PercpuHash, 4, 8, 1024, 0, "floor_counts")?
            }
            Kind::PredPid | Kind::PredComm => {
                Map::create(MapType::PercpuArray, 4, 8, 1, 0, "floor_slot")?
            }
            Kind::QuantizePid => Map::create(MapType::PercpuArray, 4, 8, 64, 0, "floor_buckets")?,
            Kind::Printf => {
                let ncpus = dtrace_sys::cpus::possible_cpus()? as u32;
                let mk = || Map::create(MapType::Ringbuf, 0, 0, RING_BYTES, 0, "floor_ring");
                let inner = mk()?;
                let outer = Map::create_array_of_maps(&inner, ncpus, "floor_rings")?;
                let mut rings = vec![inner];
                for _ in 1..ncpus {
                    rings.push(mk()?);
                }
                outer.set_maps(&rings.iter().collect::<Vec<_>>())?;
                let stop = Arc::new(AtomicBool::new(false));
                let s = stop.clone();
                let thread = std::thread::spawn(move || drain(rings, s).unwrap_or(0));
                return Floor::load(kind, outer, Some(Drain { stop, thread }));
            }
        };
        Floor::load(kind, counts, None)
    }

    fn load(kind: Kind, counts: Map, drain: Option<Drain>) -> io::Result<Floor> {
        let raw = GETPID_NR.is_some();
        let code = program(kind, raw)?;
        let fd = counts.as_fd().as_raw_fd();
        let bytes: Vec<u8> = code
            .link(|_, _| fd)
            .iter()
            .flat_map(|i| i.encode())
            .collect();
        let ty = if raw {
            ProgType::RawTracepoint
        } else {
            ProgType::Tracepoint
        };
        let prog = bpf::prog_load(ty, &bytes, "floor_getpid", 0)
            .map_err(|e| io::Error::other(format!("floor program refused: {}", e.error)))?;
        let link = if raw {
            bpf::raw_tracepoint_open("sys_enter", &prog)?
        } else {
            let root = dtrace_sys::tracefs::root()?;
            let id = dtrace_sys::tracefs::event_id(&root, "syscalls", "sys_enter_getpid")?;
            let event = dtrace_sys::perf::open_tracepoint(id)?;
            dtrace_sys::perf::attach_bpf(&event, &prog)?;
            event
        };
        Ok(Floor {
            kind,
            counts,
            drain,
            _prog: prog,
            _link: link,
        })
    }

    /// The floor of `@ = count()` at a USDT probe: the count in slot 0 of
    /// a per-CPU array, by a program attached at each place of the probe
    /// in file `path` with one uprobe_multi link, the places' semaphores
    /// raised (the program fires its probe only then).
    pub fn attach_usdt(path: &std::path::Path, places: &[(u64, u64)]) -> io::Result<Floor> {
        let counts = Map::create(MapType::PercpuArray, 4, 8, 1, 0, "floor_slot")?;
        let mut a = Asm::new();
        let out = a.new_label();
        bump_slot(&mut a, out);
        a.bind(out);
        a.emit(mov64_imm(R0, 0));
        a.emit(exit());
        let code = a
            .finish()
            .map_err(|e| io::Error::other(format!("floor program: {:?}", e)))?;
        let fd = counts.as_fd().as_raw_fd();
        let bytes: Vec<u8> = code
            .link(|_, _| fd)
            .iter()
            .flat_map(|i| i.encode())
            .collect();
        let prog = bpf::prog_load(
            ProgType::Kprobe,
            &bytes,
            "floor_usdt",
            bpf::BPF_TRACE_UPROBE_MULTI,
        )
        .map_err(|e| io::Error::other(format!("floor program refused: {}", e.error)))?;
        use std::os::unix::ffi::OsStrExt;
        let c_path = std::ffi::CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::other("a file name with a NUL byte"))?;
        let offsets: Vec<u64> = places.iter().map(|p| p.0).collect();
        let sems: Vec<u64> = places.iter().map(|p| p.1).collect();
        let cookies = vec![0; offsets.len()];
        let link =
            bpf::uprobe_multi_attach(&prog, &c_path, &offsets, &cookies, Some(&sems), false, 0)?;
        Ok(Floor {
            kind: Kind::PredPid,
            counts,
            drain: None,
            _prog: prog,
            _link: link,
        })
    }

    /// The calls counted so far, for a floor whose count is one slot (the
    /// predicate shapes); 0 for the others.
    pub fn fired(&self) -> u64 {
        if !matches!(self.kind, Kind::PredPid | Kind::PredComm) {
            return 0;
        }
        let Ok(mut vals) = self.counts.percpu_values() else {
            return 0;
        };
        match self.counts.lookup_percpu(&[0; 4], &mut vals) {
            Ok(true) => vals
                .iter()
                .map(|c| u64::from_ne_bytes(c.try_into().unwrap_or([0; 8])))
                .sum(),
            _ => 0,
        }
    }

    /// What the floor counted: for `@[execname]`, the calls of processes
    /// named `comm`; for `sum(pid)`, each key's sum over the key (its
    /// calls); for printf, the records drained; otherwise every call.
    pub fn count(self, comm: &str) -> u64 {
        if let Some(d) = self.drain {
            // Give the last records a moment to be published.
            std::thread::sleep(Duration::from_millis(50));
            d.stop.store(true, Ordering::Release);
            return d.thread.join().unwrap_or(0);
        }
        let Ok(mut vals) = self.counts.percpu_values() else {
            return 0;
        };
        let sum = |vals: &dtrace_sys::bpf::PerCpuValues| -> u64 {
            vals.iter()
                .map(|c| u64::from_ne_bytes(c.try_into().unwrap_or([0; 8])))
                .sum()
        };
        match self.kind {
            Kind::CountComm => {
                let [w0, w1] = name_words(comm);
                let mut key = [0u8; 16];
                key[..8].copy_from_slice(&w0.to_le_bytes());
                key[8..].copy_from_slice(&w1.to_le_bytes());
                match self.counts.lookup_percpu(&key, &mut vals) {
                    Ok(true) => sum(&vals),
                    _ => 0,
                }
            }
            Kind::PredPid | Kind::PredComm => match self.counts.lookup_percpu(&[0; 4], &mut vals) {
                Ok(true) => sum(&vals),
                _ => 0,
            },
            Kind::QuantizePid => (0u32..64)
                .filter_map(
                    |b| match self.counts.lookup_percpu(&b.to_ne_bytes(), &mut vals) {
                        Ok(true) => Some(sum(&vals)),
                        _ => None,
                    },
                )
                .sum(),
            Kind::CountPid | Kind::CountFunc | Kind::SumPid | Kind::Printf => {
                let keys: Vec<Vec<u8>> = self.counts.keys().filter_map(Result::ok).collect();
                let mut total = 0;
                for k in keys {
                    if let Ok(true) = self.counts.lookup_percpu(&k, &mut vals) {
                        let v = sum(&vals);
                        if self.kind == Kind::SumPid {
                            let pid = u32::from_ne_bytes(k[..4].try_into().unwrap_or([0; 4]));
                            total += v / u64::from(pid.max(1));
                        } else {
                            total += v;
                        }
                    }
                }
                total
            }
        }
    }
}
