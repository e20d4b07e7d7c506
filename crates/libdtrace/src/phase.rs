//! Where the time of a run goes: with `DTRACE_DEBUG=phases`, each step of
//! a run (the process's start, the handle opened, the programs compiled,
//! the maps made, the programs loaded and attached, BEGIN, the stop, the
//! end's printing, the handle closed) is said on standard error as it is
//! reached, as `dtrace: phase NAME NS`, NS the monotonic clock in
//! nanoseconds (`CLOCK_MONOTONIC`, which the bench reads too: its own
//! spawn and the process's exit frame the steps).

use std::sync::OnceLock;

/// True when `DTRACE_DEBUG=phases` is set (read once).
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("DTRACE_DEBUG").is_ok_and(|v| v == "phases"))
}

/// Says that the run reached step `name`, if phases are asked for.
pub fn mark(name: &str) {
    if enabled() {
        eprintln!("dtrace: phase {} {}", name, dtrace_sys::monotonic_ns());
    }
}

/// The steps of a run in a phases report: (name, monotonic ns), from
/// standard error's text.
pub fn parse(stderr: &str) -> Vec<(String, u64)> {
    stderr
        .lines()
        .filter_map(|l| {
            let mut w = l.strip_prefix("dtrace: phase ")?.split_whitespace();
            Some((w.next()?.to_string(), w.next()?.parse().ok()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn reports_parse_back() {
        let text = "dtrace: phase main 100\nother\ndtrace: phase opened 250\n";
        assert_eq!(
            super::parse(text),
            vec![("main".to_string(), 100), ("opened".to_string(), 250)]
        );
    }
}
