//! What the library's kernel tests share.

use libdtrace::Dtrace;

/// A handle with the `quiet` option set, or None (the test says it is
/// skipped) without the privilege to trace.
pub fn quiet_handle() -> Option<Dtrace> {
    if !dtrace_sys::has_trace_privilege() {
        eprintln!("skipped: needs the privilege to trace");
        return None;
    }
    let mut dt = Dtrace::open().expect("open");
    dt.setopt("quiet", None).expect("quiet");
    Some(dt)
}
