//! The cpc provider: CPU performance counter events, as the Dynamic
//! Tracing Guide's chapter describes it. A probe is named
//! `EVENT-MODE[-ATTRIBUTES]-COUNT` and made when a description names it
//! exactly (`dtrace -l -P cpc` lists none); it fires on a CPU each time
//! COUNT events of its kind have occurred there in MODE (`user`,
//! `kernel` or `all`). `arg0` is the kernel PC or 0, `arg1` the user PC
//! or 0, as profile's.
//!
//! Events:
//! - generic PAPI names (`PAPI_tot_cyc`, `PAPI_tot_ins`, `PAPI_l1_dcm`,
//!   `PAPI_l2_dcm`, `PAPI_br_msp` ...), mapped to the kernel's generic
//!   hardware and cache events;
//! - the platform's own events, from the core PMU's sysfs `events` and
//!   `format` files, with attributes (`umask_0x7-cmask_0x0`, or a bare
//!   value for the unit mask);
//! - the kernel's software events, perf's names with `_` for `-`
//!   (`cpu_clock`, `task_clock`, `page_faults`, `context_switches` ...).
//!
//! A COUNT below the minimum overflow count is refused, as DTrace's dcpc
//! driver refuses it: [`MIN_OVERFLOW`] by default, the `cpcminoverflow`
//! option otherwise (Solaris sets it as `dcpc-min-overflow` in
//! `dcpc.conf`). So is a hardware event where the machine has no
//! PMU; counters are given first come, first served (the kernel's
//! EBUSY is reported as such).

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use dtrace_bpf::plan::{ArgContext, Phase, ProgKind};
use dtrace_lang::pdesc::ProbeDesc;
use dtrace_sys::perf::{PERF_TYPE_HARDWARE_ID, PERF_TYPE_HW_CACHE_ID, PERF_TYPE_SOFTWARE_ID};

use crate::{
    attrs, single, ArgDesc, Attach, Attributes, Enabled, Planned, PlannedProgram, ProbeSink,
    ProbeTable, Provider,
};

/// The smallest overflow count a probe may have, unless the
/// `cpcminoverflow` option says otherwise.
pub const MIN_OVERFLOW: u64 = 5000;

/// The option that sets the minimum overflow count.
pub const MIN_OVERFLOW_OPTION: &str = "cpcminoverflow";

/// Where the kernel lists its PMUs; the core one is `cpu`.
const PMUS: &str = "/sys/bus/event_source/devices";

/// A counter event: perf's type and configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub type_: u32,
    pub config: u64,
    pub config1: u64,
    pub hardware: bool,
}

/// One probe.
#[derive(Clone, Debug, PartialEq, Eq)]
struct CpcProbe {
    name: String,
    event: Event,
    user: bool,
    kernel: bool,
    count: u64,
}

pub struct Cpc {
    probes: Vec<CpcProbe>,
    min_overflow: u64,
}

impl Default for Cpc {
    fn default() -> Cpc {
        Cpc {
            probes: Vec::new(),
            min_overflow: MIN_OVERFLOW,
        }
    }
}

const SOFTWARE: &[(&str, u64)] = &[
    ("cpu_clock", 0),
    ("task_clock", 1),
    ("page_faults", 2),
    ("faults", 2),
    ("context_switches", 3),
    ("cs", 3),
    ("cpu_migrations", 4),
    ("migrations", 4),
    ("minor_faults", 5),
    ("major_faults", 6),
    ("alignment_faults", 7),
    ("emulation_faults", 8),
];

/// perf's cache event encoding: cache | op << 8 | result << 16.
const fn cache(id: u64, op: u64, miss: bool) -> u64 {
    id | op << 8 | (miss as u64) << 16
}
const L1D: u64 = 0;
const L1I: u64 = 1;
const LL: u64 = 2;
const DTLB: u64 = 3;
const ITLB: u64 = 4;
const READ: u64 = 0;
const WRITE: u64 = 1;

const PAPI: &[(&str, u32, u64)] = &[
    ("PAPI_tot_cyc", PERF_TYPE_HARDWARE_ID, 0),
    ("PAPI_tot_ins", PERF_TYPE_HARDWARE_ID, 1),
    ("PAPI_l3_tca", PERF_TYPE_HARDWARE_ID, 2),
    ("PAPI_l3_tcm", PERF_TYPE_HARDWARE_ID, 3),
    ("PAPI_br_ins", PERF_TYPE_HARDWARE_ID, 4),
    ("PAPI_br_cn", PERF_TYPE_HARDWARE_ID, 4),
    ("PAPI_br_msp", PERF_TYPE_HARDWARE_ID, 5),
    ("PAPI_res_stl", PERF_TYPE_HARDWARE_ID, 7),
    ("PAPI_ref_cyc", PERF_TYPE_HARDWARE_ID, 9),
    ("PAPI_l1_dcm", PERF_TYPE_HW_CACHE_ID, cache(L1D, READ, true)),
    (
        "PAPI_l1_dca",
        PERF_TYPE_HW_CACHE_ID,
        cache(L1D, READ, false),
    ),
    (
        "PAPI_l1_stm",
        PERF_TYPE_HW_CACHE_ID,
        cache(L1D, WRITE, true),
    ),
    ("PAPI_l1_icm", PERF_TYPE_HW_CACHE_ID, cache(L1I, READ, true)),
    ("PAPI_l2_dcm", PERF_TYPE_HW_CACHE_ID, cache(LL, READ, true)),
    ("PAPI_l2_tcm", PERF_TYPE_HW_CACHE_ID, cache(LL, READ, true)),
    ("PAPI_l2_stm", PERF_TYPE_HW_CACHE_ID, cache(LL, WRITE, true)),
    (
        "PAPI_tlb_dm",
        PERF_TYPE_HW_CACHE_ID,
        cache(DTLB, READ, true),
    ),
    (
        "PAPI_tlb_im",
        PERF_TYPE_HW_CACHE_ID,
        cache(ITLB, READ, true),
    ),
];

/// The parts of a probe name: event, user, kernel, attributes, count.
fn split_name(name: &str, min: u64) -> Result<(&str, bool, bool, Vec<&str>, u64), String> {
    let parts: Vec<&str> = name.split('-').collect();
    if parts.len() < 3 {
        return Err(format!(
            "cpc probe {} is not of the form event-mode[-attributes]-count",
            name
        ));
    }
    let (user, kernel) = match parts[1] {
        "user" => (true, false),
        "kernel" => (false, true),
        "all" => (true, true),
        m => {
            return Err(format!(
                "cpc probe {}: mode {} is not user, kernel or all",
                name, m
            ))
        }
    };
    let count: u64 = parts[parts.len() - 1]
        .parse()
        .map_err(|_| format!("cpc probe {}: the count is not a number", name))?;
    if count < min {
        return Err(format!(
            "cpc probe {}: the count {} is below the minimum overflow count of {} (option {})",
            name, count, min, MIN_OVERFLOW_OPTION
        ));
    }
    Ok((
        parts[0],
        user,
        kernel,
        parts[2..parts.len() - 1].to_vec(),
        count,
    ))
}

/// The core PMU's directory, if the machine exposes one.
fn core_pmu() -> Option<PathBuf> {
    let p = Path::new(PMUS).join("cpu");
    p.join("type").exists().then_some(p)
}

/// `config:0-7,21` style format: the field and its bit ranges.
fn parse_format(spec: &str) -> Option<(String, Vec<(u32, u32)>)> {
    let (field, bits) = spec.trim().split_once(':')?;
    let mut ranges = Vec::new();
    for r in bits.split(',') {
        let (lo, hi) = match r.split_once('-') {
            Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
            None => {
                let b = r.parse().ok()?;
                (b, b)
            }
        };
        ranges.push((lo, hi));
    }
    Some((field.to_string(), ranges))
}

/// Places `value` into the bit ranges of a format field.
fn put_bits(config: &mut HashMap<String, u64>, field: &str, ranges: &[(u32, u32)], value: u64) {
    let mut v = value;
    let slot = config.entry(field.to_string()).or_default();
    for &(lo, hi) in ranges {
        let width = hi.saturating_sub(lo) + 1;
        let mask = if width >= 64 {
            u64::MAX
        } else {
            (1 << width) - 1
        };
        if lo < 64 {
            *slot |= (v & mask) << lo;
        }
        v = if width >= 64 { 0 } else { v >> width };
    }
}

fn hex(v: &str) -> Option<u64> {
    let v = v.trim();
    match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => u64::from_str_radix(v, 16).ok(),
    }
}

/// A platform event of the PMU at `pmu`, with attributes.
fn platform_event(pmu: &Path, name: &str, attrs: &[&str]) -> Result<Option<Event>, String> {
    let dir = pmu.join("events");
    let text = fs::read_to_string(dir.join(name))
        .or_else(|_| fs::read_to_string(dir.join(name.replace('_', "-"))));
    let Ok(text) = text else {
        return Ok(None);
    };
    let format = |f: &str| {
        fs::read_to_string(pmu.join("format").join(f))
            .ok()
            .and_then(|s| parse_format(&s))
    };
    let mut config: HashMap<String, u64> = HashMap::new();
    let set = |term: &str, value: u64, config: &mut HashMap<String, u64>| match format(term) {
        Some((field, ranges)) => {
            put_bits(config, &field, &ranges, value);
            Ok(())
        }
        None => Err(format!(
            "cpc event {}: this machine's PMU has no attribute {}",
            name, term
        )),
    };
    for term in text.trim().split(',') {
        let (k, v) = term.split_once('=').unwrap_or((term, "1"));
        set(k.trim(), hex(v).unwrap_or(1), &mut config)?;
    }
    for a in attrs {
        let (k, v) = match a.split_once('_') {
            Some((k, v)) => (k, v),
            None => ("umask", *a),
        };
        let v = hex(v).ok_or_else(|| format!("cpc attribute {}: not a hex value", a))?;
        set(k, v, &mut config)?;
    }
    let type_: u32 = fs::read_to_string(pmu.join("type"))
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .ok_or_else(|| "the core PMU has no type".to_string())?;
    Ok(Some(Event {
        type_,
        config: config.get("config").copied().unwrap_or(0),
        config1: config.get("config1").copied().unwrap_or(0),
        hardware: true,
    }))
}

/// The event a probe name names, or why it names none.
fn resolve(name: &str, min: u64) -> Result<(Event, bool, bool, u64), String> {
    let (ev, user, kernel, attrs, count) = split_name(name, min)?;
    if let Some(&(_, config)) = SOFTWARE.iter().find(|(n, _)| *n == ev) {
        if !attrs.is_empty() {
            return Err(format!(
                "cpc probe {}: attributes apply to platform events only",
                name
            ));
        }
        let e = Event {
            type_: PERF_TYPE_SOFTWARE_ID,
            config,
            config1: 0,
            hardware: false,
        };
        return Ok((e, user, kernel, count));
    }
    if let Some(&(_, type_, config)) = PAPI.iter().find(|(n, _, _)| *n == ev) {
        if !attrs.is_empty() {
            return Err(format!(
                "cpc probe {}: attributes apply to platform events only",
                name
            ));
        }
        let e = Event {
            type_,
            config,
            config1: 0,
            hardware: true,
        };
        return Ok((e, user, kernel, count));
    }
    let Some(pmu) = core_pmu() else {
        return Err(format!(
            "cpc event {} is not a generic or software event, and this machine exposes no hardware performance counters (no core PMU under {})",
            ev, PMUS
        ));
    };
    match platform_event(&pmu, ev, &attrs)? {
        Some(e) => Ok((e, user, kernel, count)),
        None => Err(format!("cpc event {} is not an event of this machine", ev)),
    }
}

impl Provider for Cpc {
    fn name(&self) -> &str {
        "cpc"
    }

    fn attributes(&self) -> Attributes {
        Attributes {
            provider: attrs::EVOLVING,
            module: attrs::UNSTABLE_UNKNOWN,
            function: attrs::PRIVATE,
            name: dtrace_lang::attr::Attr::new(
                dtrace_lang::attr::Stability::Evolving,
                dtrace_lang::attr::Stability::Evolving,
                dtrace_lang::attr::DepClass::Cpu,
            ),
            args: attrs::EVOLVING,
        }
    }

    fn provide(&mut self, _sink: &mut ProbeSink<'_>) {}

    fn provide_named(&mut self, sink: &mut ProbeSink<'_>, pat: &ProbeDesc) {
        if !crate::names_one_probe(pat, "cpc") || sink.has("", "", &pat.name) {
            return;
        }
        if let Ok((event, user, kernel, count)) = resolve(&pat.name, self.min_overflow) {
            self.probes.push(CpcProbe {
                name: pat.name.to_string(),
                event,
                user,
                kernel,
                count,
            });
            sink.add("", "", &pat.name, self.probes.len() as u32 - 1);
        }
    }

    fn args(&self, _local: u32) -> Option<Vec<ArgDesc>> {
        Some(crate::profile::pc_args())
    }

    fn plan(&self, table: &ProbeTable, enabled: &[Enabled], out: &mut Planned) -> io::Result<()> {
        for e in enabled {
            let Some(p) = self.probes.get(e.local as usize) else {
                continue;
            };
            if p.event.hardware && core_pmu().is_none() {
                return Err(io::Error::other(format!(
                    "cpc:::{}: this machine exposes no hardware performance counters (no core PMU under {}); software events such as cpu_clock work",
                    p.name, PMUS
                )));
            }
            out.programs.push(PlannedProgram {
                plan: single(
                    &format!("dt_cpc_{}", e.local),
                    ProgKind::PerfEvent,
                    ArgContext::PerfEventPc,
                    Phase::Normal,
                    e.enabling(table, 0),
                    None,
                ),
                attach: Attach::new(crate::attach::Counter {
                    type_: p.event.type_,
                    config: p.event.config,
                    config1: p.event.config1,
                    period: p.count,
                    user: p.user,
                    kernel: p.kernel,
                    what: format!("cpc:::{}", p.name),
                }),
            });
        }
        Ok(())
    }

    fn tune(&mut self, option: &str, value: i64) {
        if option == MIN_OVERFLOW_OPTION {
            self.min_overflow = u64::try_from(value).unwrap_or(MIN_OVERFLOW);
        }
    }

    fn why_not(&self, desc: &ProbeDesc) -> Option<String> {
        if !desc.is_exact() {
            return None;
        }
        resolve(&desc.name, self.min_overflow).err()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_to_events() {
        let (e, user, kernel, count) = resolve("cpu_clock-all-100000", MIN_OVERFLOW).unwrap();
        assert_eq!(
            (e.type_, e.config, user, kernel, count),
            (1, 0, true, true, 100000)
        );
        let (e, user, kernel, _) = resolve("PAPI_tot_ins-user-10000", MIN_OVERFLOW).unwrap();
        assert_eq!(
            (e.type_, e.config, e.hardware, user, kernel),
            (0, 1, true, true, false)
        );
        let (e, _, _, _) = resolve("PAPI_l1_dcm-kernel-5000", MIN_OVERFLOW).unwrap();
        assert_eq!((e.type_, e.config), (3, 0x10000));
        assert_eq!(
            resolve("cpu_clock-all-100", MIN_OVERFLOW).unwrap_err(),
            "cpc probe cpu_clock-all-100: the count 100 is below the minimum overflow count of 5000 (option cpcminoverflow)"
        );
        assert!(resolve("cpu_clock-all-100", 100).is_ok());
        assert_eq!(
            resolve("cpu_clock-both-10000", MIN_OVERFLOW).unwrap_err(),
            "cpc probe cpu_clock-both-10000: mode both is not user, kernel or all"
        );
        assert!(resolve("cpu_clock-10000", MIN_OVERFLOW).is_err());
        assert!(resolve("cpu_clock-all-umask_0x1-10000", MIN_OVERFLOW).is_err());
    }

    #[test]
    fn platform_formats_place_bits() {
        let (f, r) = parse_format("config:0-7,21\n").unwrap();
        assert_eq!((f.as_str(), r.clone()), ("config", vec![(0, 7), (21, 21)]));
        let mut c = HashMap::new();
        put_bits(&mut c, &f, &r, 0x1ff);
        assert_eq!(c["config"], 0xff | 1 << 21);
    }
}
