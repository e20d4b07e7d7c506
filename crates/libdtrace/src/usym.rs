//! User addresses as text, as DTrace's `%A` writes them:
//! `object`function+0xoffset` from the process's ELF symbols (no offset
//! at the function's first byte), `object`0xADDR` in an object without a
//! symbol for it, `0xADDR` when the process or the address is unknown.
//! The object is the mapped file's base name. Symbols are read by the
//! `blazesym` crate from the process's mappings while it lives.

use std::cell::RefCell;

use blazesym::symbolize::source::{Process, Source};
use blazesym::symbolize::{Input, Symbolized, Symbolizer};
use blazesym::Pid;

thread_local! {
    /// One symbolizer, whose caches of parsed objects outlive a call.
    static SYMBOLIZER: RefCell<Symbolizer> = RefCell::new(Symbolizer::new());
}

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The object `/proc/PID/maps` maps at `addr`, by base name.
fn object_at(pid: u32, addr: u64) -> Option<String> {
    let maps = std::fs::read_to_string(format!("/proc/{}/maps", pid)).ok()?;
    maps.lines().find_map(|l| {
        let mut f = l.split_whitespace();
        let (lo, hi) = f.next()?.split_once('-')?;
        let (lo, hi) = (
            u64::from_str_radix(lo, 16).ok()?,
            u64::from_str_radix(hi, 16).ok()?,
        );
        let path = f.nth(4)?;
        (lo <= addr && addr < hi && path.starts_with('/')).then(|| base_name(path).to_string())
    })
}

/// `addr` in process `pid` (0: no process) as `%A` prints it.
pub fn uaddr_text(pid: i64, addr: u64) -> String {
    let raw = || format!("0x{:x}", addr);
    let Ok(pid) = u32::try_from(pid) else {
        return raw();
    };
    if pid == 0 {
        return raw();
    }
    let mut proc_src = Process::new(Pid::from(pid));
    proc_src.debug_syms = false;
    proc_src.perf_map = false;
    let src = Source::Process(proc_src);
    let found = SYMBOLIZER.with(|s| {
        let s = s.borrow();
        match s.symbolize_single(&src, Input::AbsAddr(addr)) {
            Ok(Symbolized::Sym(sym)) => Some((
                sym.name.to_string(),
                sym.offset as u64,
                sym.module
                    .map(|m| base_name(&m.to_string_lossy()).to_string()),
            )),
            _ => None,
        }
    });
    match found {
        Some((name, off, module)) => {
            let obj = module
                .or_else(|| object_at(pid, addr))
                .unwrap_or_else(|| "?".to_string());
            if off == 0 {
                format!("{}`{}", obj, name)
            } else {
                format!("{}`{}+0x{:x}", obj, name, off)
            }
        }
        None => match object_at(pid, addr) {
            Some(obj) => format!("{}`0x{:x}", obj, addr),
            None => raw(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(never)]
    fn a_function_of_ours() -> u64 {
        a_function_of_ours as *const () as usize as u64
    }

    #[test]
    fn symbolizes_this_process() {
        let pid = i64::from(std::process::id());
        let text = uaddr_text(pid, a_function_of_ours() + 1);
        // The symbol as the table has it (Rust's are mangled).
        assert!(text.contains("a_function_of_ours"), "{}", text);
        assert!(text.ends_with("+0x1"), "{}", text);
        assert_eq!(uaddr_text(0, 0x1234), "0x1234");
        assert_eq!(uaddr_text(pid, 8), "0x8");
    }
}
