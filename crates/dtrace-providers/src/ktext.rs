//! The kernel's code as `/proc/kcore` shows it (to root, on a kernel not
//! locked down), for where a kprobe may stand in a kernel function.
//!
//! A kprobe at a function's first byte stands on its ftrace site (the
//! `call __fentry__` the compiler put first, after an `endbr64` where the
//! kernel has indirect branch tracking) and is made through ftrace, whose
//! filter the kernel copies whole for every probe it arms or disarms: a
//! glob of tens of thousands of functions then takes the kernel half an
//! hour and more to arm. A kprobe on the instruction right after that
//! site sees the same registers and stack as one at the entry (the site
//! changes nothing: it is a five-byte `nop` or a call that saves and
//! restores them), and the kernel arms it with a breakpoint of its own,
//! then turns it into a jump in the background. [`prologue`] finds that
//! instruction; the fbt provider's kprobe events stand there.

use std::fs::File;
use std::os::unix::fs::FileExt;

use iced_x86::{Code, Decoder, DecoderOptions, Mnemonic};
use object::read::ReadCache;
use object::{Object, ObjectSegment};

/// Where a function's ftrace site is, from its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prologue {
    /// The ftrace site's offset (4 after an `endbr64` or the four-byte
    /// `nop` that replaces one, else 0): where a kprobe at the entry is.
    pub site: u64,
    /// The offset of the instruction after it.
    pub after: u64,
}

/// The ftrace site that begins the code `code` (at address `ip`), if it
/// begins with one: an optional `endbr64` or four-byte `nop`, then a
/// five-byte `call` or `nop`.
pub fn prologue(code: &[u8], ip: u64) -> Option<Prologue> {
    let mut d = Decoder::with_ip(64, code, ip, DecoderOptions::NONE);
    let first = d.decode();
    if first.is_invalid() {
        return None;
    }
    let (site, at) = if first.code() == Code::Endbr64
        || (first.mnemonic() == Mnemonic::Nop && first.len() == 4)
    {
        let next = d.decode();
        if next.is_invalid() {
            return None;
        }
        (first.len() as u64, next)
    } else {
        (0, first)
    };
    let ftrace = at.len() == 5 && matches!(at.mnemonic(), Mnemonic::Call | Mnemonic::Nop);
    ftrace.then(|| Prologue {
        site,
        after: site + 5,
    })
}

/// The kernel's memory, read through `/proc/kcore`.
pub struct KernelText {
    file: File,
    /// Its loadable segments: address, file offset, size.
    segments: Vec<(u64, u64, u64)>,
}

impl KernelText {
    /// Opens `/proc/kcore`: None where it cannot be read (not root, a
    /// lockdown, a kernel without it).
    pub fn open() -> Option<KernelText> {
        let file = File::open("/proc/kcore").ok()?;
        let segments = {
            let cache = ReadCache::new(&file);
            let elf = object::read::elf::ElfFile64::<object::Endianness, _>::parse(&cache).ok()?;
            elf.segments()
                .map(|s| {
                    let (off, size) = s.file_range();
                    (s.address(), off, size)
                })
                .collect()
        };
        Some(KernelText { file, segments })
    }

    /// The bytes at `addr`, as many as `buf` holds.
    fn read(&self, addr: u64, buf: &mut [u8]) -> Option<()> {
        let len = buf.len() as u64;
        let &(base, off, _) = self
            .segments
            .iter()
            .find(|(base, _, size)| addr >= *base && addr - *base + len <= *size)?;
        self.file.read_exact_at(buf, off + (addr - base)).ok()
    }

    /// The ftrace site of the function at `addr`.
    pub fn prologue(&self, addr: u64) -> Option<Prologue> {
        let mut code = [0u8; 16];
        self.read(addr, &mut code)?;
        prologue(&code, addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ftrace_site_is_found_after_an_endbr64_or_its_nop() {
        // endbr64; nopl 0x0(%rax,%rax,1) (ftrace's site, not traced)
        let code = [0xf3, 0x0f, 0x1e, 0xfa, 0x0f, 0x1f, 0x44, 0x00, 0x00, 0x55];
        assert_eq!(
            prologue(&code, 0xffff_ffff_8100_0000),
            Some(Prologue { site: 4, after: 9 })
        );
        // nopl 0x0(%rax) (a sealed endbr64); call (the site, traced)
        let code = [0x0f, 0x1f, 0x40, 0x00, 0xe8, 0x10, 0x20, 0x30, 0x40, 0x55];
        assert_eq!(prologue(&code, 0), Some(Prologue { site: 4, after: 9 }));
        // call first (no endbr64)
        let code = [0xe8, 0x10, 0x20, 0x30, 0x40, 0x55, 0x48, 0x89, 0xe5];
        assert_eq!(prologue(&code, 0), Some(Prologue { site: 0, after: 5 }));
    }

    #[test]
    fn code_without_an_ftrace_site_has_no_prologue() {
        // push %rbp; mov %rsp,%rbp
        assert_eq!(prologue(&[0x55, 0x48, 0x89, 0xe5, 0x90, 0x90], 0), None);
        // endbr64; push %rbp
        assert_eq!(prologue(&[0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x90], 0), None);
        assert_eq!(prologue(&[], 0), None);
    }
}
