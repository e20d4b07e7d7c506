//! The profile provider: `profile-N` fires on every CPU N times a second
//! (or every N units), `tick-N` once per period on one CPU. Probes beyond
//! the default list are created when a description names them exactly.

use dtrace_lang::pdesc::{field_matches, ProbeDesc};

use crate::{Kind, Probes};

const DEFAULT_PROFILE: &[u64] = &[97, 199, 499, 997, 1999, 4001, 4999];
const DEFAULT_TICK: &[u64] = &[1, 10, 100, 500, 1000, 5000];

/// Periods shorter than this are refused, as in DTrace.
pub const MIN_PERIOD_NS: u64 = 200_000;

pub fn provide(p: &mut Probes) {
    for &hz in DEFAULT_PROFILE {
        p.add(
            "profile",
            "",
            "",
            &format!("profile-{}", hz),
            Kind::Profile {
                period_ns: 1_000_000_000 / hz,
                tick: false,
            },
        );
    }
    for &hz in DEFAULT_TICK {
        p.add(
            "profile",
            "",
            "",
            &format!("tick-{}", hz),
            Kind::Profile {
                period_ns: 1_000_000_000 / hz,
                tick: true,
            },
        );
    }
}

/// Parses `profile-N[unit]` / `tick-N[unit]` into (tick, period in ns).
pub fn parse_name(name: &str) -> Option<(bool, u64)> {
    let (tick, rest) = if let Some(r) = name.strip_prefix("profile-") {
        (false, r)
    } else if let Some(r) = name.strip_prefix("tick-") {
        (true, r)
    } else {
        return None;
    };
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    if digits == 0 {
        return None;
    }
    let n: u64 = rest[..digits].parse().ok()?;
    if n == 0 {
        return None;
    }
    let unit = rest[digits..].to_ascii_lowercase();
    let ns_per: Option<u64> = match unit.as_str() {
        "ns" | "nsec" => Some(1),
        "us" | "usec" => Some(1_000),
        "ms" | "msec" => Some(1_000_000),
        "s" | "sec" => Some(1_000_000_000),
        "m" | "min" => Some(60_000_000_000),
        "h" | "hour" => Some(3_600_000_000_000),
        "d" | "day" => Some(86_400_000_000_000),
        "" | "hz" => None,
        _ => return None,
    };
    let period = match ns_per {
        Some(k) => n.checked_mul(k)?,
        None => 1_000_000_000 / n,
    };
    if period < MIN_PERIOD_NS {
        return None;
    }
    Some((tick, period))
}

/// Creates the probe a description names exactly, if it is a valid
/// profile or tick probe name.
pub fn provide_named(p: &mut Probes, pat: &ProbeDesc) {
    if !pat.is_exact() || !field_matches(&pat.provider, "profile") {
        return;
    }
    if !pat.module.is_empty() || !pat.function.is_empty() {
        return;
    }
    if let Some((tick, period_ns)) = parse_name(&pat.name) {
        p.add(
            "profile",
            "",
            "",
            &pat.name,
            Kind::Profile { period_ns, tick },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units_and_frequencies() {
        assert_eq!(parse_name("tick-1s"), Some((true, 1_000_000_000)));
        assert_eq!(parse_name("tick-1sec"), Some((true, 1_000_000_000)));
        assert_eq!(parse_name("profile-97"), Some((false, 1_000_000_000 / 97)));
        assert_eq!(parse_name("profile-1000hz"), Some((false, 1_000_000)));
        assert_eq!(parse_name("tick-10ms"), Some((true, 10_000_000)));
        assert_eq!(parse_name("tick-500us"), Some((true, 500_000)));
        assert_eq!(parse_name("tick-1us"), None);
        assert_eq!(parse_name("tick-0"), None);
        assert_eq!(parse_name("tick-1fortnight"), None);
        assert_eq!(parse_name("tock-1"), None);
    }
}
