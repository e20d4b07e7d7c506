//! The kernel's reports of code being mapped, as perf has them: a dummy
//! software event on each CPU for every process, with `mmap` and
//! `mmap2` and `comm_exec` set, whose ring buffer receives a
//! `PERF_RECORD_MMAP2` for each executable mapping made (the file by its
//! path, device and inode, its place, its offset) and a
//! `PERF_RECORD_COMM` marked as an exec for each exec. A consumer that
//! reads them knows where a process had its objects even after it is
//! gone, which is what unwinding a user stack recorded in its last
//! moments needs (`ustack()` of a short-lived command).

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::perf;

/// What a mapping report says.
#[derive(Debug, PartialEq, Eq)]
pub enum MmapEvent<'a> {
    /// Process `pid` mapped `len` bytes of `path` at `addr`, from file
    /// offset `pgoff`, executable; the file is inode `ino` of device
    /// `dev` (as `stat` numbers them).
    Map {
        pid: u32,
        addr: u64,
        len: u64,
        pgoff: u64,
        dev: u64,
        ino: u64,
        path: &'a [u8],
    },
    /// Process `pid` executed a new program: its old mappings are gone.
    Exec { pid: u32 },
    /// The kernel lost this many reports (the buffer was full).
    Lost(u64),
}

const PERF_RECORD_MMAP2: u32 = 10;
const PERF_RECORD_LOST: u32 = 2;
const PERF_RECORD_COMM: u32 = 3;
const PERF_RECORD_MISC_COMM_EXEC: u16 = 1 << 13;
/// `perf_event_mmap_page`'s `data_head` and `data_tail`.
const DATA_HEAD: usize = 1024;
const DATA_TAIL: usize = 1032;

/// One CPU's report buffer.
struct Ring {
    _fd: OwnedFd,
    base: NonNull<u8>,
    page: usize,
    size: usize,
}

// SAFETY: the mapping is owned by the Ring and only read through `&mut
// self` (`drain`); the kernel's concurrent writes are synchronised
// through the head and tail words, accessed atomically.
unsafe impl Send for Ring {}

impl Drop for Ring {
    fn drop(&mut self) {
        // SAFETY: unmapping exactly what `Ring::open` mapped.
        unsafe {
            libc::munmap(
                self.base.as_ptr() as *mut libc::c_void,
                self.page + self.size,
            )
        };
    }
}

impl Ring {
    fn open(cpu: u32, pages: usize) -> io::Result<Ring> {
        let fd = perf::open_mmap_reports(cpu)?;
        let page = crate::ringbuf::page_size();
        let size = page * pages.next_power_of_two();
        // SAFETY: mapping a perf event's buffer: the control page, then
        // a power-of-two number of data pages, as perf_event_open(2)
        // requires; read-write, so that the tail can be stored.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                page + size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Ring {
            _fd: fd,
            base: NonNull::new(base as *mut u8).expect("mmap returned a non-null page"),
            page,
            size,
        })
    }

    fn word(&self, at: usize) -> &AtomicU64 {
        // SAFETY: `at` is DATA_HEAD or DATA_TAIL, 8-byte aligned words of
        // the mapped control page, which lives as long as self.
        unsafe { &*(self.base.as_ptr().add(at) as *const AtomicU64) }
    }

    /// Copies `out.len()` bytes of the data area from position `pos`
    /// (wrapping at its end).
    fn copy(&self, pos: u64, out: &mut [u8]) {
        let data = self.page;
        for (i, b) in out.iter_mut().enumerate() {
            let at = (pos as usize + i) & (self.size - 1);
            // SAFETY: `at` is within the data area (masked by its
            // power-of-two size), which is mapped; bytes between the tail
            // and the head the kernel published are not written again
            // until the tail passes them.
            *b = unsafe { std::ptr::read_volatile(self.base.as_ptr().add(data + at)) };
        }
    }

    fn drain(&mut self, f: &mut dyn FnMut(MmapEvent)) {
        let head = self.word(DATA_HEAD).load(Ordering::Acquire);
        let mut tail = self.word(DATA_TAIL).load(Ordering::Relaxed);
        let mut rec = Vec::new();
        while tail < head {
            let mut hdr = [0u8; 8];
            self.copy(tail, &mut hdr);
            let kind = u32::from_ne_bytes(hdr[0..4].try_into().expect("4 bytes"));
            let misc = u16::from_ne_bytes(hdr[4..6].try_into().expect("2 bytes"));
            let size = u16::from_ne_bytes(hdr[6..8].try_into().expect("2 bytes")) as u64;
            if size < 8 || tail + size > head {
                break;
            }
            rec.resize(size as usize, 0);
            self.copy(tail, &mut rec);
            if let Some(e) = parse(kind, misc, &rec[8..]) {
                f(e);
            }
            tail += size;
        }
        self.word(DATA_TAIL).store(tail, Ordering::Release);
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .map_or(0, |s| u32::from_ne_bytes(s.try_into().expect("4 bytes")))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8)
        .map_or(0, |s| u64::from_ne_bytes(s.try_into().expect("8 bytes")))
}

/// A report's body (after its header) as an event.
fn parse(kind: u32, misc: u16, body: &[u8]) -> Option<MmapEvent<'_>> {
    match kind {
        PERF_RECORD_MMAP2 => {
            let name = body.get(64..)?;
            let end = name.iter().position(|&c| c == 0).unwrap_or(name.len());
            let (maj, min) = (u64::from(u32_at(body, 32)), u64::from(u32_at(body, 36)));
            Some(MmapEvent::Map {
                pid: u32_at(body, 0),
                addr: u64_at(body, 8),
                len: u64_at(body, 16),
                pgoff: u64_at(body, 24),
                // glibc's makedev().
                dev: (maj & 0xfffff000) << 32
                    | (maj & 0xfff) << 8
                    | (min & 0xffffff00) << 12
                    | (min & 0xff),
                ino: u64_at(body, 40),
                path: &name[..end],
            })
        }
        PERF_RECORD_COMM if misc & PERF_RECORD_MISC_COMM_EXEC != 0 => Some(MmapEvent::Exec {
            pid: u32_at(body, 0),
        }),
        PERF_RECORD_LOST => Some(MmapEvent::Lost(u64_at(body, 8))),
        _ => None,
    }
}

/// The mapping reports of every CPU.
pub struct MmapReports {
    rings: Vec<Ring>,
}

impl MmapReports {
    /// Opens a report buffer of `pages` pages on each of `cpus`.
    pub fn open(cpus: &[u32], pages: usize) -> io::Result<MmapReports> {
        let rings = cpus
            .iter()
            .map(|&c| Ring::open(c, pages))
            .collect::<io::Result<Vec<_>>>()?;
        Ok(MmapReports { rings })
    }

    /// Hands every report waiting to `f`, CPU by CPU.
    pub fn drain(&mut self, mut f: impl FnMut(MmapEvent)) {
        for r in &mut self.rings {
            r.drain(&mut f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_reports() {
        let mut body = Vec::new();
        // pid, tid; addr, len, pgoff; maj, min; ino, generation; prot,
        // flags; the name.
        for w in [7u32, 8] {
            body.extend_from_slice(&w.to_ne_bytes());
        }
        for w in [0x1000u64, 0x2000, 0x3000] {
            body.extend_from_slice(&w.to_ne_bytes());
        }
        for w in [254u32, 1] {
            body.extend_from_slice(&w.to_ne_bytes());
        }
        for w in [1234u64, 0] {
            body.extend_from_slice(&w.to_ne_bytes());
        }
        for w in [5u32, 2] {
            body.extend_from_slice(&w.to_ne_bytes());
        }
        body.extend_from_slice(b"/bin/true\0\0\0\0\0\0\0");
        assert_eq!(
            parse(PERF_RECORD_MMAP2, 0, &body),
            Some(MmapEvent::Map {
                pid: 7,
                addr: 0x1000,
                len: 0x2000,
                pgoff: 0x3000,
                dev: 0xfe01,
                ino: 1234,
                path: b"/bin/true"
            })
        );
        assert_eq!(
            parse(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, &body),
            Some(MmapEvent::Exec { pid: 7 })
        );
        assert_eq!(parse(PERF_RECORD_COMM, 0, &body), None);
        assert_eq!(parse(PERF_RECORD_MMAP2, 0, &body[..8]), None);
    }

    #[test]
    fn reports_a_mapping_made_here() {
        let cpus = crate::cpus::online_cpus().unwrap_or_default();
        let Ok(mut r) = MmapReports::open(&cpus, 4) else {
            // Not root, or no perf events here.
            return;
        };
        // An executable mapping of a file this test made.
        let path = std::env::temp_dir().join(format!("dt-mmaps-{}", std::process::id()));
        std::fs::write(&path, [0u8; 4096]).unwrap();
        let f = std::fs::File::open(&path).unwrap();
        // SAFETY: mapping a file of one page, read and execute, then
        // unmapping it; nothing reads the mapping.
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                4096,
                libc::PROT_READ | libc::PROT_EXEC,
                libc::MAP_PRIVATE,
                f.as_raw_fd(),
                0,
            );
            assert_ne!(p, libc::MAP_FAILED);
            libc::munmap(p, 4096);
        }
        let me = std::process::id();
        let mut seen = false;
        let ino = std::os::unix::fs::MetadataExt::ino(&f.metadata().unwrap());
        r.drain(|e| {
            if let MmapEvent::Map {
                pid,
                path: p,
                ino: i,
                ..
            } = e
            {
                seen |= pid == me && p == path.as_os_str().as_encoded_bytes() && i == ino;
            }
        });
        let _ = std::fs::remove_file(&path);
        assert!(seen);
    }
}
