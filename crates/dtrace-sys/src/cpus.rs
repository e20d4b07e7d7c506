//! CPU numbering: possible and online CPUs, as sysfs lists them.

use std::fs;
use std::io;
use std::sync::OnceLock;

/// Highest CPU number accepted in a list (far above any kernel's NR_CPUS),
/// so that a malformed range cannot ask for billions of entries.
const MAX_CPU: u32 = 1 << 16;

/// The CPU the calling thread is running on (it may move at any time
/// after), or None if the kernel cannot say.
pub fn current_cpu() -> Option<u32> {
    // SAFETY: sched_getcpu takes no arguments and touches no memory of
    // ours; it returns a CPU number or -1.
    let c = unsafe { libc::sched_getcpu() };
    u32::try_from(c).ok()
}

/// Parses a sysfs CPU list such as `0-3,5,7-8` into sorted, distinct CPU
/// numbers. None if any part is malformed.
pub fn parse_cpu_list(s: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    let num = |t: &str| t.parse::<u32>().ok().filter(|&n| n <= MAX_CPU);
    for part in s.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b {
                    return None;
                }
                out.extend(a..=b);
            }
            None => out.push(num(part)?),
        }
    }
    out.sort_unstable();
    out.dedup();
    Some(out)
}

fn read_list(path: &str) -> io::Result<Vec<u32>> {
    let text = fs::read_to_string(path)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot read {}: {}", path, e)))?;
    match parse_cpu_list(&text) {
        Some(l) if !l.is_empty() => Ok(l),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} holds no valid CPU list: {:?}", path, text.trim()),
        )),
    }
}

fn possible_list(text: &str) -> io::Result<Vec<u32>> {
    match parse_cpu_list(text) {
        Some(l) if !l.is_empty() => Ok(l),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("no valid possible-CPU list: {:?}", text.trim()),
        )),
    }
}

/// The possible CPUs, read once (the set is fixed at boot).
fn possible() -> io::Result<&'static [u32]> {
    static POSSIBLE: OnceLock<Vec<u32>> = OnceLock::new();
    if let Some(l) = POSSIBLE.get() {
        return Ok(l);
    }
    const PATH: &str = "/sys/devices/system/cpu/possible";
    let text = fs::read_to_string(PATH).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot count the possible CPUs ({}): {}", PATH, e),
        )
    })?;
    let l =
        possible_list(&text).map_err(|e| io::Error::new(e.kind(), format!("{}: {}", PATH, e)))?;
    Ok(POSSIBLE.get_or_init(|| l))
}

/// The number of possible CPUs: how many values a per-CPU map holds for
/// each key. An error if sysfs cannot be read, because guessing would size
/// per-CPU buffers wrongly.
pub fn possible_cpus() -> io::Result<usize> {
    possible().map(|l| l.len())
}

/// One more than the highest possible CPU number: the length of an array
/// indexed by CPU number.
pub fn cpu_id_limit() -> io::Result<u32> {
    let l = possible()?;
    // `possible` never returns an empty list, and numbers are at most
    // MAX_CPU.
    Ok(l.last().map_or(1, |&m| m + 1))
}

/// The CPUs currently online.
pub fn online_cpus() -> io::Result<Vec<u32>> {
    read_list("/sys/devices/system/cpu/online")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ranges_and_singletons() {
        assert_eq!(
            parse_cpu_list("0-3,5,7-8\n"),
            Some(vec![0, 1, 2, 3, 5, 7, 8])
        );
        assert_eq!(parse_cpu_list("0"), Some(vec![0]));
        assert_eq!(parse_cpu_list(""), Some(Vec::new()));
        assert_eq!(parse_cpu_list("3,1-2,2"), Some(vec![1, 2, 3]));
    }

    #[test]
    fn malformed_lists_are_refused() {
        assert_eq!(parse_cpu_list("0-"), None);
        assert_eq!(parse_cpu_list("x"), None);
        assert_eq!(parse_cpu_list("3-1"), None);
        // Would be four billion entries.
        assert_eq!(parse_cpu_list("0-4294967295"), None);
    }

    /// Counts the CPUs of a possible-CPU list: the kernel sizes per-CPU
    /// map values by this count (one value per possible CPU, in order).
    fn count_possible(text: &str) -> io::Result<usize> {
        possible_list(text).map(|l| l.len())
    }

    #[test]
    fn possible_count_is_the_number_of_cpus_not_a_guess() {
        assert_eq!(count_possible("0-3\n").unwrap(), 4);
        // Sparse lists count their members, as the kernel does.
        assert_eq!(count_possible("0,2\n").unwrap(), 2);
        assert!(count_possible("").is_err());
        assert!(count_possible("garbage").is_err());
    }

    #[test]
    fn this_machine_has_possible_cpus() {
        let n = possible_cpus().expect("sysfs lists the possible CPUs");
        assert!(n >= 1);
        assert!(cpu_id_limit().expect("possible CPUs") as usize >= n);
        assert!(!online_cpus().expect("online CPUs").is_empty());
    }
}

/// The memory the kernel says is available for new allocations without
/// swapping (`MemAvailable` in /proc/meminfo), in bytes: what BPF maps
/// of a size asked by the user are checked against before any is made.
pub fn mem_available() -> io::Result<u64> {
    let text = std::fs::read_to_string("/proc/meminfo")?;
    parse_mem_available(&text)
        .ok_or_else(|| io::Error::other("/proc/meminfo has no MemAvailable line"))
}

fn parse_mem_available(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod mem_tests {
    use super::*;

    #[test]
    fn mem_available_is_read_in_bytes() {
        let text = "MemTotal:       24000000 kB\nMemFree: 1 kB\nMemAvailable:   2048 kB\n";
        assert_eq!(parse_mem_available(text), Some(2 << 20));
        assert_eq!(parse_mem_available("MemTotal: 1 kB\n"), None);
        assert!(mem_available().is_ok_and(|n| n > 0));
    }
}
