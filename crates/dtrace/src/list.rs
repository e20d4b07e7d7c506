//! `dtrace -l`: listing probes, filtered by descriptions or scripts.

use std::os::unix::ffi::OsStrExt;

use libdtrace::{Dtrace, ProbeDesc, ProgramSource, SpecKind};

use crate::cli::{Cmd, Spec};

const E_SUCCESS: u8 = 0;
const E_ERROR: u8 = 1;

/// `text` right-aligned in `width` columns (counted in characters, as
/// `{:>width}` counts them), then a space.
fn field(out: &mut String, text: &str, width: usize) {
    let chars = if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    };
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(chars)));
    out.push_str(text);
    out.push(' ');
}

/// One set of stability attributes, as dtrace(1M) reports them.
pub fn attributes(out: &mut String, what: &str, a: libdtrace::Attr) {
    out.push_str(&format!(
        "\n\t{}\n\t\tIdentifier Names: {}\n\t\tData Semantics:   {}\n\t\tDependency Class: {}\n",
        what,
        a.name.name(),
        a.data.name(),
        a.class.name()
    ));
}

/// One probe's line: `{:>5} {:>10} {:>17} {:>33} {}`, written in place
/// (a fbt listing is 70,000 lines or more).
fn row(out: &mut String, id: u32, d: &ProbeDesc) {
    use std::fmt::Write;
    let _ = write!(out, "{:>5} ", id);
    field(out, &d.provider, 10);
    field(out, &d.module, 17);
    field(out, &d.function, 33);
    out.push_str(&d.name);
    out.push('\n');
}

/// The stability report of one probe (`dtrace -lv`): its description's
/// attributes are the lowest of the parts it names (a part left empty,
/// as BEGIN's module, does not count), then its arguments' and types.
fn verbose(out: &mut String, dt: &Dtrace, id: u32, d: &ProbeDesc) {
    if let Some(attrs) = dt.probe_attributes(id) {
        attributes(out, "Probe Description Attributes", attrs.describe(d));
        attributes(out, "Argument Attributes", attrs.args);
    }
    out.push_str("\n\tArgument Types\n");
    let args = dt.probe_args(id);
    if args.is_empty() {
        out.push_str("\t\tNone\n");
    }
    for (i, a) in args.iter().enumerate() {
        out.push_str(&format!("\t\targs[{}]: {}\n", i, a.shown()));
    }
    out.push('\n');
}

pub fn list(dt: &mut Dtrace, cmd: &Cmd) -> u8 {
    let mut ids: Vec<u32> = Vec::new();
    let mut failures = Vec::new();
    let mut status = E_SUCCESS;
    if cmd.specs.is_empty() {
        // Every provider's probes, those made on first need (fbt) too.
        dt.provide_all();
        ids = dt.probe_list().map(|(id, _)| id).collect();
    }
    let _ = dt.setopt("zdefs", None);
    for spec in &cmd.specs {
        let spec = match crate::resolve_id(dt, spec) {
            Ok(s) => s,
            Err(m) => {
                crate::eprint_bytes(&[&m]);
                return E_ERROR;
            }
        };
        match &spec {
            Spec::Desc(kind, text) => {
                let desc_text =
                    String::from_utf8_lossy(crate::cli::crop_description(text.as_bytes()));
                let desc_text = dt.expand_desc(&desc_text);
                let desc = match Dtrace::parse_desc(desc_text.trim_end(), *kind) {
                    Ok(d) => d,
                    Err(m) => {
                        crate::eprint_bytes(&[
                            b"invalid probe specifier ",
                            text.as_bytes(),
                            b": ",
                            m.as_bytes(),
                        ]);
                        return E_ERROR;
                    }
                };
                let found = dt.match_probes(&desc);
                if found.is_empty() {
                    failures.push(desc);
                }
                ids.extend(found);
            }
            Spec::Script(path) => {
                let text = match std::fs::read(path) {
                    Ok(t) => t,
                    Err(e) => {
                        let why = libdtrace::io_reason(&e);
                        crate::eprint_bytes(&[
                            b"failed to open ",
                            path.as_bytes(),
                            b": ",
                            why.as_bytes(),
                        ]);
                        return E_ERROR;
                    }
                };
                let args: Vec<&[u8]> = cmd.args.iter().map(|a| a.as_bytes()).collect();
                dt.set_args(path.as_bytes(), &args);
                match dt.compile(&text, ProgramSource::File) {
                    Ok(p) => ids.extend(p.probes()),
                    Err(e) => {
                        crate::eprint_bytes(&[&crate::compile_error(&spec, &e, false)]);
                        return E_ERROR;
                    }
                }
            }
            Spec::Id(_) => unreachable!("resolved"),
        }
    }
    ids.sort_unstable();
    ids.dedup();
    let mut out = String::with_capacity(ids.len() * 80 + 80);
    out.push_str(&format!(
        "{:>5} {:>10} {:>17} {:>33} {}\n",
        "ID", "PROVIDER", "MODULE", "FUNCTION", "NAME"
    ));
    for id in ids {
        if let Some(d) = dt.probe(id) {
            row(&mut out, id, d);
            if cmd.verbose {
                verbose(&mut out, dt, id, d);
            }
        }
    }
    use std::io::Write;
    let (mut sink, name) = match crate::open_output(cmd) {
        Ok(o) => o,
        Err(code) => return code,
    };
    if let Err(e) = sink.write_all(out.as_bytes()) {
        if !crate::output::is_quiet(&e) {
            note!(
                "dtrace: failed to write to {}: {}",
                name,
                libdtrace::io_reason(&e)
            );
        }
        return E_ERROR;
    }
    for d in failures {
        // A provider that can tell why it has no such probe says so
        // (fbt on a kernel that refuses function tracing).
        match dt.why_no_match(&d) {
            Some(why) => note!(
                "dtrace: failed to match {}: No probe matches description ({})",
                d,
                why
            ),
            None => note!(
                "dtrace: failed to match {}: No probe matches description",
                d
            ),
        }
        status = E_ERROR;
    }
    let _ = SpecKind::Name;
    dt.leave_probes_to_exit();
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_is_laid_out_as_dtraces_format_lays_it_out() {
        for (id, parts) in [
            (1, ["dtrace", "", "", "BEGIN"]),
            (64161, ["fbt", "vmlinux", "vfs_read", "entry"]),
            (
                123456,
                [
                    "pid4242",
                    "libc.so.6",
                    "a_function_name_longer_than_its_column_of_33",
                    "return",
                ],
            ),
            (7, ["sdt", "mödule", "fünction", "näme"]),
        ] {
            let d = ProbeDesc::new(parts[0], parts[1], parts[2], parts[3]);
            let mut out = String::new();
            row(&mut out, id, &d);
            assert_eq!(
                out,
                format!(
                    "{:>5} {:>10} {:>17} {:>33} {}\n",
                    id, d.provider, d.module, d.function, d.name
                )
            );
        }
    }
}
