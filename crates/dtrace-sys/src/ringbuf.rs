//! Consumer side of a `BPF_MAP_TYPE_RINGBUF`: the consumer position page is
//! mapped read-write, the producer position and the data area read-only
//! (the kernel maps the data twice in a row, so a record that wraps around
//! the end is still contiguous in our address space). The data area is
//! mapped when the first record is read: mapping it sets up a page table
//! entry for each of its pages, twice (a millisecond for 4 MB), and the
//! buffers of CPUs that write nothing are never mapped.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::ptr::NonNull;

use crate::bpf::{Map, MapType};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// What a reader does with the record it was handed.
enum Step {
    /// Consumes it and goes on.
    Take,
    /// Consumes it and stops.
    TakeLast,
    /// Leaves it (and all after it) in the buffer.
    Leave,
}

const BUSY_BIT: u32 = 1 << 31;
const DISCARD_BIT: u32 = 1 << 30;
const HDR_SIZE: u64 = 8;

pub struct RingBuf {
    map: Map,
    consumer: NonNull<u8>,
    producer: NonNull<u8>,
    /// The data area, twice, once mapped.
    data: Option<NonNull<u8>>,
    mask: u64,
    page: usize,
    size: usize,
}

impl RingBuf {
    /// Maps a `BPF_MAP_TYPE_RINGBUF` map. Its data size is the map's
    /// `max_entries`, which must be a power-of-two multiple of the page
    /// size (as the kernel requires of ring buffers).
    pub fn new(map: Map) -> io::Result<RingBuf> {
        let page = page_size();
        let size = ring_size(&map, page)?;
        let fd = map.as_fd();
        // SAFETY: mapping a BPF ring buffer map: the first page is the
        // consumer position, writable by the consumer, at offset 0.
        let consumer = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if consumer == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the producer page, read-only, at offset one page, as the
        // kernel lays it out.
        let producer = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                page,
                libc::PROT_READ,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                page as libc::off_t,
            )
        };
        if producer == libc::MAP_FAILED {
            let e = io::Error::last_os_error();
            // SAFETY: unmapping exactly what was mapped above.
            unsafe { libc::munmap(consumer, page) };
            return Err(e);
        }
        let consumer = NonNull::new(consumer as *mut u8).expect("mmap returned a non-null page");
        let producer = NonNull::new(producer as *mut u8).expect("mmap returned a non-null page");
        Ok(RingBuf {
            map,
            consumer,
            producer,
            data: None,
            mask: size as u64 - 1,
            page,
            size,
        })
    }

    /// The ring buffer map's descriptor (readable when records wait).
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.map.as_fd()
    }

    /// The ring buffer map.
    pub fn map(&self) -> &Map {
        &self.map
    }

    fn consumer_pos(&self) -> &AtomicU64 {
        // SAFETY: the consumer page is mapped, 8-byte aligned, and lives as
        // long as self; the kernel reads it concurrently, so it is accessed
        // atomically.
        unsafe { &*(self.consumer.as_ptr() as *const AtomicU64) }
    }

    fn producer_pos(&self) -> &AtomicU64 {
        // SAFETY: as for the consumer page; the kernel writes it atomically.
        unsafe { &*(self.producer.as_ptr() as *const AtomicU64) }
    }

    /// The data area, mapped on first use (None if it cannot be).
    fn data(&mut self) -> Option<*const u8> {
        if let Some(d) = self.data {
            return Some(d.as_ptr());
        }
        // SAFETY: the data area mapped twice, read-only, at offset two
        // pages, as the kernel lays it out; `size` is the map's own data
        // size (checked by `ring_size`), so the length matches what the
        // kernel provides.
        let data = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                2 * self.size,
                libc::PROT_READ,
                libc::MAP_SHARED,
                self.map.as_fd().as_raw_fd(),
                (2 * self.page) as libc::off_t,
            )
        };
        if data == libc::MAP_FAILED {
            return None;
        }
        self.data = NonNull::new(data as *mut u8);
        self.data.map(|d| d.as_ptr() as *const u8)
    }

    /// True if records are waiting.
    pub fn has_data(&self) -> bool {
        self.consumer_pos().load(Ordering::Acquire) < self.producer_pos().load(Ordering::Acquire)
    }

    /// Hands every committed record to `f`, in order, and releases its space.
    /// Stops at the first record still being written. Returns the number of
    /// records delivered. `f` returning false stops consumption after that
    /// record.
    ///
    /// The consumer position is published every `RELEASE_EVERY` records
    /// and at the end, not after each record: every store to it takes the
    /// cache line the producers read on each reservation away from them.
    ///
    /// Nothing is read while the data area cannot be mapped (no memory
    /// for its page tables): the records wait, and the producers count
    /// drops once the buffer is full.
    pub fn consume(&mut self, mut f: impl FnMut(&[u8]) -> bool) -> usize {
        self.consume_steps(|rec| if f(rec) { Step::Take } else { Step::TakeLast })
    }

    /// As `consume`, but a record `f` refuses (returns false for) stays
    /// in the buffer, the first the next read sees; none after it is
    /// handed over.
    pub fn consume_until(&mut self, mut f: impl FnMut(&[u8]) -> bool) -> usize {
        self.consume_steps(|rec| if f(rec) { Step::Take } else { Step::Leave })
    }

    fn consume_steps(&mut self, mut f: impl FnMut(&[u8]) -> Step) -> usize {
        const RELEASE_EVERY: usize = 256;
        if !self.has_data() {
            return 0;
        }
        let Some(data) = self.data() else {
            return 0;
        };
        let mut n = 0;
        let start = self.consumer_pos().load(Ordering::Acquire);
        let mut cons = start;
        let mut published = start;
        loop {
            let prod = self.producer_pos().load(Ordering::Acquire);
            if cons >= prod {
                break;
            }
            let mut stop = false;
            while cons < prod {
                let off = (cons & self.mask) as usize;
                // SAFETY: `off` is inside the data area and record headers
                // are 8-byte aligned; the kernel publishes the header word
                // with a release store.
                let hdr = unsafe { &*(data.add(off) as *const AtomicU32) };
                let len = hdr.load(Ordering::Acquire);
                if len & BUSY_BIT != 0 {
                    stop = true;
                    break;
                }
                let size = (len & !(BUSY_BIT | DISCARD_BIT)) as usize;
                if size > self.size - HDR_SIZE as usize {
                    // The kernel never commits a record larger than the
                    // ring; stop rather than read past the mapping.
                    break;
                }
                if len & DISCARD_BIT == 0 {
                    // SAFETY: a committed record of `size` bytes follows its
                    // header; the double mapping keeps it contiguous, and the
                    // kernel does not reuse the space until the consumer
                    // position moves past it, after `f` returns.
                    let rec = unsafe { std::slice::from_raw_parts(data.add(off + 8), size) };
                    match f(rec) {
                        Step::Take => n += 1,
                        Step::TakeLast => {
                            n += 1;
                            stop = true;
                        }
                        Step::Leave => {
                            stop = true;
                            break;
                        }
                    }
                }
                cons += (size as u64 + HDR_SIZE + 7) & !7;
                if stop {
                    break;
                }
                if n % RELEASE_EVERY == 0 {
                    self.consumer_pos().store(cons, Ordering::Release);
                    published = cons;
                }
            }
            if stop {
                break;
            }
        }
        if cons != published {
            self.consumer_pos().store(cons, Ordering::Release);
        }
        n
    }
}

impl Drop for RingBuf {
    fn drop(&mut self) {
        // SAFETY: unmapping the regions mapped in `new` and `data`, which
        // nothing references any more.
        unsafe {
            libc::munmap(self.consumer.as_ptr() as *mut libc::c_void, self.page);
            libc::munmap(self.producer.as_ptr() as *mut libc::c_void, self.page);
            if let Some(d) = self.data {
                libc::munmap(d.as_ptr() as *mut libc::c_void, 2 * self.size);
            }
        }
    }
}

// The mappings are owned by the RingBuf and only touched through &mut self
// or atomics.
// SAFETY: no thread-affine state; the raw pointers are to shared mappings.
unsafe impl Send for RingBuf {}

/// The data size of a ring buffer map, checked to be what the kernel maps.
fn ring_size(map: &Map, page: usize) -> io::Result<usize> {
    if map.map_type() != Some(MapType::Ringbuf) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("BPF map '{}' is not a ring buffer", map.name()),
        ));
    }
    check_ring_size(map.max_entries() as usize, page)
}

fn check_ring_size(size: usize, page: usize) -> io::Result<usize> {
    if size == 0 || !size.is_power_of_two() || !size.is_multiple_of(page) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "ring buffer size {} is not a power-of-two multiple of the page size ({})",
                size, page
            ),
        ));
    }
    Ok(size)
}

pub fn page_size() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_sizes_must_be_power_of_two_pages() {
        assert_eq!(check_ring_size(1 << 16, 4096).unwrap(), 1 << 16);
        assert_eq!(check_ring_size(4096, 4096).unwrap(), 4096);
        for bad in [0, 2048, 4096 * 3, 12345, 3 << 20] {
            let e = check_ring_size(bad, 4096).expect_err("bad size");
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        }
    }

    #[test]
    fn only_ring_buffer_maps_are_mapped() {
        if crate::geteuid() != 0 {
            eprintln!("skipped: needs root");
            return;
        }
        let hash = Map::create(MapType::Hash, 4, 4, 1, 0, "dtsys_nring").expect("hash");
        let e = RingBuf::new(hash).err().expect("not a ring buffer");
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        let map = Map::create(MapType::Ringbuf, 0, 0, 1 << 14, 0, "dtsys_ring").expect("ring");
        let mut ring = RingBuf::new(map).expect("mapped");
        assert!(!ring.has_data());
        assert_eq!(ring.consume(|_| true), 0);
    }
}
