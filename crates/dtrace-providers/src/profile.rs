//! The profile provider: `profile-N` fires on every CPU N times a second
//! (or every N units), `tick-N` once per period on one CPU. Probes beyond
//! the default list are created when a description names them exactly.

use std::io;

use dtrace_bpf::plan::{ArgContext, Phase, ProgKind};
use dtrace_lang::pdesc::ProbeDesc;

use crate::{
    attrs, single, ArgDesc, Attach, Attributes, Enabled, Planned, PlannedProgram, ProbeSink,
    ProbeTable, Provider,
};

const DEFAULT_PROFILE: &[u64] = &[97, 199, 499, 997, 1999, 4001, 4999];
const DEFAULT_TICK: &[u64] = &[1, 10, 100, 500, 1000, 5000];

/// Periods shorter than this are refused, as in DTrace.
pub const MIN_PERIOD_NS: u64 = 200_000;

/// A probe's number encodes it: the period in nanoseconds would not fit,
/// so probes are kept in a table.
#[derive(Default)]
pub struct Profile {
    probes: Vec<(bool, u64, String)>,
}

impl Profile {
    /// Adds a probe: one of the default set at its `slot` of the
    /// provider's ids, another (`None`) as made on demand.
    fn add(
        &mut self,
        sink: &mut ProbeSink<'_>,
        name: &str,
        tick: bool,
        period_ns: u64,
        slot: Option<u32>,
    ) {
        if sink.has("", "", name) {
            return;
        }
        self.probes.push((tick, period_ns, name.to_string()));
        let local = self.probes.len() as u32 - 1;
        match slot {
            Some(slot) => sink.add_at(slot, "", "", name, local),
            None => sink.add("", "", name, local),
        };
    }
}

impl Provider for Profile {
    fn name(&self) -> &str {
        "profile"
    }

    fn attributes(&self) -> Attributes {
        Attributes {
            provider: attrs::EVOLVING,
            module: attrs::UNSTABLE_UNKNOWN,
            function: attrs::PRIVATE,
            name: attrs::EVOLVING,
            args: attrs::EVOLVING,
        }
    }

    /// The default probes (`profile-97` .. `tick-5000`).
    fn id_span(&mut self) -> u32 {
        (DEFAULT_PROFILE.len() + DEFAULT_TICK.len()) as u32
    }

    fn provide(&mut self, sink: &mut ProbeSink<'_>) {
        let defaults = DEFAULT_PROFILE
            .iter()
            .map(|hz| (false, hz))
            .chain(DEFAULT_TICK.iter().map(|hz| (true, hz)));
        for (slot, (tick, &hz)) in defaults.enumerate() {
            let name = format!("{}-{}", if tick { "tick" } else { "profile" }, hz);
            self.add(sink, &name, tick, 1_000_000_000 / hz, Some(slot as u32));
        }
    }

    /// Creates the probe a description names exactly, if it is a valid
    /// profile or tick probe name.
    fn provide_named(&mut self, sink: &mut ProbeSink<'_>, pat: &ProbeDesc) {
        if !crate::names_one_probe(pat, "profile") {
            return;
        }
        if let Some((tick, period_ns)) = parse_name(&pat.name) {
            self.add(sink, &pat.name, tick, period_ns, None);
        }
    }

    /// arg0 the kernel PC, arg1 the user PC (the other 0).
    fn args(&self, _local: u32) -> Option<Vec<ArgDesc>> {
        Some(pc_args())
    }

    fn plan(&self, table: &ProbeTable, enabled: &[Enabled], out: &mut Planned) -> io::Result<()> {
        for e in enabled {
            let Some((tick, period_ns, name)) = self.probes.get(e.local as usize) else {
                continue;
            };
            out.programs.push(PlannedProgram {
                plan: single(
                    &format!("dt_{}", name),
                    ProgKind::PerfEvent,
                    ArgContext::PerfEventPc,
                    Phase::Normal,
                    e.enabling(table, 0),
                    tick.then_some(*period_ns),
                ),
                attach: Attach::new(crate::attach::CpuClock {
                    period_ns: *period_ns,
                }),
            });
        }
        Ok(())
    }
}

/// The arguments of a sampling probe (profile's and cpc's): the kernel
/// PC and the user PC, one of them 0.
pub(crate) fn pc_args() -> Vec<ArgDesc> {
    vec![
        ArgDesc::new("uintptr_t", "pc"),
        ArgDesc::new("uintptr_t", "upc"),
    ]
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
