//! Feeds arbitrary bytes, as a D script, through the whole compile path:
//! lexer, parser, checker, probe matching, planning and BPF generation
//! (`libdtrace::offline`). A panic, a stack overflow, a hang or an
//! unbounded allocation is a finding; a compile error is not.
//!
//! With `DTRACE_FUZZ_VERIFY=1` (root only) every program that compiles is
//! also loaded into the kernel, and a verifier refusal is a finding too.

#![no_main]

use libdtrace::{offline, Error};
use libfuzzer_sys::fuzz_target;

fn verify() -> bool {
    static V: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *V.get_or_init(|| std::env::var_os("DTRACE_FUZZ_VERIFY").is_some_and(|v| v == "1"))
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match offline::compile(&text, verify()) {
        Err(Error::Enable(m)) if m.starts_with("BPF program load") => {
            panic!("the verifier refused a generated program: {}", m)
        }
        _ => {}
    }
});
