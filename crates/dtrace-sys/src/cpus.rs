//! CPU numbering: possible and online CPUs, as sysfs lists them.

use std::fs;

/// Parses a sysfs CPU list such as `0-3,5,7-8`.
pub fn parse_cpu_list(s: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for part in s.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) {
                    out.extend(a..=b);
                }
            }
            None => {
                if let Ok(a) = part.parse() {
                    out.push(a);
                }
            }
        }
    }
    out
}

fn read_list(path: &str) -> Vec<u32> {
    fs::read_to_string(path)
        .map(|s| parse_cpu_list(&s))
        .unwrap_or_else(|_| vec![0])
}

/// The number of possible CPUs: the stride of per-CPU map values.
pub fn possible_cpus() -> usize {
    read_list("/sys/devices/system/cpu/possible")
        .into_iter()
        .max()
        .map(|m| m as usize + 1)
        .unwrap_or(1)
}

/// The CPUs currently online.
pub fn online_cpus() -> Vec<u32> {
    read_list("/sys/devices/system/cpu/online")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ranges_and_singletons() {
        assert_eq!(parse_cpu_list("0-3,5,7-8\n"), vec![0, 1, 2, 3, 5, 7, 8]);
        assert_eq!(parse_cpu_list("0"), vec![0]);
        assert_eq!(parse_cpu_list(""), Vec::<u32>::new());
    }
}
