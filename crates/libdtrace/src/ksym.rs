//! Kernel addresses as text, as DTrace's consumer writes them: a stack
//! frame or `%a` is `module`function+0xoffset` (no offset at the
//! function's first byte), `sym()` is `module`function`, `mod()` the
//! module; an address in no known function is `0xADDR`. The core kernel's
//! module is `vmlinux`. Symbols come from `/proc/kallsyms`, read once per
//! process when first needed (the kernel is one for every handle).

use std::sync::OnceLock;

use dtrace_sys::ksyms::Kallsyms;

/// Offsets past this from the nearest symbol are taken for addresses in
/// no function (kallsyms gives no sizes).
const MAX_OFFSET: u64 = 1 << 20;

fn table() -> Option<&'static Kallsyms> {
    static SYMS: OnceLock<Option<Kallsyms>> = OnceLock::new();
    SYMS.get_or_init(|| Kallsyms::load().ok()).as_ref()
}

/// The symbol holding `addr`: its module, name and `addr`'s offset.
pub fn lookup(addr: u64) -> Option<(&'static str, &'static str, u64)> {
    let (s, off) = table()?.symbolize(addr)?;
    (off < MAX_OFFSET).then_some((s.module, s.name, off))
}

/// `module`function+0xoff`, as a stack frame and `%a` print it.
pub fn addr_text(addr: u64) -> String {
    match lookup(addr) {
        Some((m, f, 0)) => format!("{}`{}", m, f),
        Some((m, f, off)) => format!("{}`{}+0x{:x}", m, f, off),
        None => format!("0x{:x}", addr),
    }
}

/// `module`function`, as `sym()` prints.
pub fn sym_text(addr: u64) -> String {
    match lookup(addr) {
        Some((m, f, _)) => format!("{}`{}", m, f),
        None => format!("0x{:x}", addr),
    }
}

/// The module, as `mod()` prints.
pub fn mod_text(addr: u64) -> String {
    match lookup(addr) {
        Some((m, _, _)) => m.to_string(),
        None => format!("0x{:x}", addr),
    }
}

/// The address `sym()` keys are merged on: the function's start, so
/// that every address in one function is one key (as DTrace's consumer
/// normalises them).
pub fn sym_start(addr: u64) -> u64 {
    match lookup(addr) {
        Some((_, _, off)) => addr - off,
        None => addr,
    }
}

/// The frames of a recorded stack: its non-zero words, in order.
pub fn frames(bytes: &[u8]) -> impl Iterator<Item = u64> + '_ {
    bytes
        .chunks_exact(8)
        .map(|w| u64::from_ne_bytes(w.try_into().expect("8 bytes")))
        .take_while(|&pc| pc != 0)
}

/// A recorded stack as DTrace prints it: a newline, then each frame on a
/// line of its own after `indent` spaces.
pub fn print_stack(out: &mut Vec<u8>, bytes: &[u8], indent: usize) {
    out.push(b'\n');
    for pc in frames(bytes) {
        out.extend(std::iter::repeat_n(b' ', indent));
        out.extend_from_slice(addr_text(pc).as_bytes());
        out.push(b'\n');
    }
}
