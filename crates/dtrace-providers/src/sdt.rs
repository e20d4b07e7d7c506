//! The sdt provider: every kernel tracepoint (tracefs `available_events`)
//! as `sdt:GROUP::EVENT`, as DTrace for Linux names them, with the
//! tracepoint's fields as typed arguments (from its `format` file, read
//! when first asked). Groups other providers serve (`syscalls`), and
//! dynamic ones (`kprobes`, `uprobes`, `ftrace`), are left out.
//!
//! Field types map onto D: an integer field is its C type; an array
//! (`char next_comm[16]`) is the array type, its value the field's
//! address (a `char` array reads as a string); a `__data_loc char[]` is a
//! `string` (the data's address).

use std::cell::RefCell;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use dtrace_bpf::plan::{ArgContext, Phase, ProgKind, TpArg, TpLoad};
use dtrace_lang::pdesc::{field_matches, ProbeDesc};

use crate::{
    attrs, single, ArgDesc, Attach, Attributes, Enabled, Planned, PlannedProgram, ProbeSink,
    ProbeTable, Provider,
};

/// Groups not offered as sdt probes.
const SKIP_GROUPS: &[&str] = &["syscalls", "kprobes", "uprobes", "ftrace", "dt_pid"];

/// How many ids the tracepoints' range holds: every event type the
/// kernel can number (16 bits).
const SDT_IDS: u32 = 1 << 16;

pub struct Sdt {
    root: Option<PathBuf>,
    /// Every tracepoint (group, event), sorted, once a description that
    /// could name one has made the provider read `available_events`.
    events: Vec<(String, String)>,
    /// `available_events` has been read.
    read: bool,
    /// Which of `events` have their probe made.
    made: Vec<bool>,
    /// Fields read from format files, by probe.
    fields: RefCell<HashMap<u32, Option<Vec<Field>>>>,
    unavailable: Option<String>,
}

/// A tracepoint field: how the probe describes and loads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub arg: ArgDesc,
    pub tp: TpArg,
}

impl Sdt {
    /// The tracepoints under `root`, read when a description could name
    /// one, and their probes made as descriptions name them
    /// (`provide_named`): a program of other providers' probes reads
    /// nothing.
    pub fn discover(root: &Path) -> Sdt {
        let mut s = Sdt::unavailable(String::new());
        s.unavailable = None;
        s.read = false;
        s.root = Some(root.to_path_buf());
        s
    }

    /// Reads `available_events` (once).
    fn read_events(&mut self) {
        if self.read {
            return;
        }
        self.read = true;
        let Some(root) = &self.root else {
            return;
        };
        match std::fs::read_to_string(root.join("available_events")) {
            Ok(text) => {
                for line in text.lines() {
                    let Some((group, event)) = line.split_once(':') else {
                        continue;
                    };
                    if SKIP_GROUPS.contains(&group) {
                        continue;
                    }
                    self.events.push((group.to_string(), event.to_string()));
                }
                self.events.sort();
                self.made = vec![false; self.events.len()];
            }
            Err(e) => {
                self.unavailable = Some(format!("tracepoints are not listed: {}", e));
                self.root = None;
            }
        }
    }

    pub fn unavailable(why: String) -> Sdt {
        Sdt {
            root: None,
            events: Vec::new(),
            read: true,
            made: Vec::new(),
            fields: RefCell::new(HashMap::new()),
            unavailable: Some(why),
        }
    }

    fn fields(&self, local: u32) -> Option<Vec<Field>> {
        if let Some(f) = self.fields.borrow().get(&local) {
            return f.clone();
        }
        let (group, event) = self.events.get(local as usize)?;
        let f = dtrace_sys::tracefs::event_format(self.root.as_ref()?, group, event)
            .ok()
            .map(|text| parse_format(&text));
        self.fields.borrow_mut().insert(local, f.clone());
        f
    }
}

/// The fields of a `format` file after the common ones.
pub fn parse_format(text: &str) -> Vec<Field> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("field:") else {
            continue;
        };
        let mut parts = rest.split(';').map(str::trim);
        let decl = parts.next().unwrap_or("");
        let mut offset = None;
        let mut size = None;
        let mut signed = false;
        for p in parts {
            if let Some(v) = p.strip_prefix("offset:") {
                offset = v.parse::<u16>().ok();
            } else if let Some(v) = p.strip_prefix("size:") {
                size = v.parse::<u16>().ok();
            } else if let Some(v) = p.strip_prefix("signed:") {
                signed = v == "1";
            }
        }
        let (Some(offset), Some(size)) = (offset, size) else {
            continue;
        };
        let Some((native, name, load)) = split_decl(decl) else {
            continue;
        };
        if name.starts_with("common_") {
            continue;
        }
        out.push(Field {
            arg: ArgDesc::new(native, name),
            tp: TpArg {
                offset,
                size,
                signed,
                load,
            },
        });
    }
    out
}

/// `char next_comm[16]` → (`char [16]`, `next_comm`, Address); `pid_t
/// pid` → (`pid_t`, `pid`, Value); `__data_loc char[] name` → (`string`,
/// `name`, DataLoc).
fn split_decl(decl: &str) -> Option<(String, String, TpLoad)> {
    if let Some(rest) = decl.strip_prefix("__data_loc ") {
        let i = rest.rfind([' ', '*'])?;
        let (ty, name) = (rest[..i].trim(), rest[i + 1..].trim());
        let native = if ty.starts_with("char") {
            "string".to_string()
        } else {
            format!("{} *", ty.trim_end_matches("[]").trim())
        };
        return Some((native, name.to_string(), TpLoad::DataLoc));
    }
    let (base, dims) = match decl.find('[') {
        Some(b) => (&decl[..b], &decl[b..]),
        None => (decl, ""),
    };
    let i = base.rfind([' ', '*'])?;
    let (ty, name) = (base[..=i].trim(), base[i + 1..].trim());
    if name.is_empty() || ty.is_empty() {
        return None;
    }
    if dims.is_empty() {
        Some((ty.to_string(), name.to_string(), TpLoad::Value))
    } else {
        Some((
            format!("{} {}", ty, dims),
            name.to_string(),
            TpLoad::Address,
        ))
    }
}

impl Provider for Sdt {
    fn name(&self) -> &str {
        "sdt"
    }

    fn attributes(&self) -> Attributes {
        Attributes {
            provider: attrs::EVOLVING_ISA,
            module: attrs::PRIVATE,
            function: attrs::PRIVATE,
            name: attrs::PRIVATE_ISA,
            args: attrs::PRIVATE_ISA,
        }
    }

    /// A tracepoint's id is its place in the kernel's list, read when a
    /// description first names the provider, not here: the list is
    /// 1 ms of a one-liner's start. The kernel numbers its event types
    /// in 16 bits, so no list is longer than the range.
    fn id_span(&mut self) -> u32 {
        SDT_IDS
    }

    fn provide(&mut self, _sink: &mut ProbeSink<'_>) {}

    /// A description that could name a tracepoint (its provider field
    /// matching `sdt`, its function field empty or matching nothing)
    /// makes the provider read the list, and the probes of the
    /// tracepoints it matches.
    fn provide_named(&mut self, sink: &mut ProbeSink<'_>, desc: &ProbeDesc) {
        if !field_matches(&desc.provider, "sdt") || !field_matches(&desc.function, "") {
            return;
        }
        self.read_events();
        for (i, (group, event)) in self.events.iter().enumerate() {
            if !self.made[i]
                && field_matches(&desc.module, group)
                && field_matches(&desc.name, event)
            {
                self.made[i] = true;
                sink.add_at(i as u32, group, "", event, i as u32);
            }
        }
    }

    fn unavailable(&self) -> Option<String> {
        self.unavailable.clone()
    }

    fn args(&self, local: u32) -> Option<Vec<ArgDesc>> {
        Some(self.fields(local)?.into_iter().map(|f| f.arg).collect())
    }

    fn plan(&self, table: &ProbeTable, enabled: &[Enabled], out: &mut Planned) -> io::Result<()> {
        for e in enabled {
            let Some((group, event)) = self.events.get(e.local as usize) else {
                continue;
            };
            let fields = self.fields(e.local).ok_or_else(|| {
                io::Error::other(format!(
                    "the format of tracepoint {}:{} cannot be read",
                    group, event
                ))
            })?;
            out.programs.push(PlannedProgram {
                plan: single(
                    &format!("dt_{}", event),
                    ProgKind::Tracepoint,
                    ArgContext::Tracepoint(fields.iter().map(|f| f.tp).collect()),
                    Phase::Normal,
                    e.enabling(table, 0),
                    None,
                ),
                attach: Attach::tracepoint(group, event),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_become_typed_arguments() {
        let text = "format:\n\
            \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
            \tfield:char next_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n\
            \tfield:pid_t next_pid;\toffset:24;\tsize:4;\tsigned:1;\n\
            \tfield:__data_loc char[] filename;\toffset:28;\tsize:4;\tsigned:0;\n\
            \tfield:const void * ptr;\toffset:32;\tsize:8;\tsigned:0;\n";
        let f = parse_format(text);
        let got: Vec<(&str, &str, TpLoad, u16, bool)> = f
            .iter()
            .map(|f| {
                (
                    f.arg.native.as_str(),
                    f.arg.name.as_str(),
                    f.tp.load,
                    f.tp.offset,
                    f.tp.signed,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("char [16]", "next_comm", TpLoad::Address, 8, false),
                ("pid_t", "next_pid", TpLoad::Value, 24, true),
                ("string", "filename", TpLoad::DataLoc, 28, false),
                ("const void *", "ptr", TpLoad::Value, 32, false),
            ]
        );
    }
}
