//! Read-only file contents: mapped where the kernel allows it (the
//! kernel's BTF in sysfs, which never changes), read into memory
//! otherwise.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::ptr::NonNull;

/// A file's bytes, mapped or owned.
pub(crate) enum FileBytes {
    Owned(Vec<u8>),
    Mapped(Mapping),
}

/// A private, read-only mapping of a whole file.
pub(crate) struct Mapping {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is read-only and owned by this value alone (unmapped
// only by its Drop), so sharing or moving it between threads is as sound
// as sharing a `&[u8]`.
unsafe impl Send for Mapping {}
// SAFETY: see `Send`: nothing writes through the mapping.
unsafe impl Sync for Mapping {}

impl FileBytes {
    /// The file at `path`, mapped if its size is known and the kernel lets
    /// it be mapped, read otherwise. Only files that do not change while
    /// mapped (sysfs BTF) are given here: a mapping shows later changes.
    pub(crate) fn map_or_read(path: &Path) -> io::Result<FileBytes> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        if let Ok(len) = usize::try_from(len) {
            if len > 0 {
                if let Some(m) = Mapping::new(&file, len) {
                    return Ok(FileBytes::Mapped(m));
                }
            }
        }
        // Read at once where the size is known (sysfs BTF before Linux
        // 6.16 cannot be mapped, but tells its size): no growing copies.
        let mut v = Vec::with_capacity(usize::try_from(len).map_or(0, |l| l.saturating_add(1)));
        io::Read::read_to_end(&mut &file, &mut v)?;
        Ok(FileBytes::Owned(v))
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            FileBytes::Owned(v) => v,
            FileBytes::Mapped(m) => m.bytes(),
        }
    }
}

impl Mapping {
    fn new(file: &File, len: usize) -> Option<Mapping> {
        // SAFETY: a fresh mapping chosen by the kernel (no address given),
        // of a descriptor that is open for reading; the result is checked
        // before use. The mapping outlives the descriptor, as mmap allows.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return None;
        }
        NonNull::new(p as *mut u8).map(|ptr| Mapping { ptr, len })
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` is the start of a live read-only mapping of `len`
        // bytes, unmapped only when `self` is dropped, which the borrow
        // prevents while the slice lives.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once; no slice of it
        // outlives `self`.
        unsafe {
            libc::munmap(self.ptr.as_ptr() as *mut libc::c_void, self.len);
        }
    }
}
