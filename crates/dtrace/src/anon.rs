//! Anonymous tracing, dtrace(1M)'s `-A` and `-a`, on Linux.
//!
//! `dtrace -A` with programs saves the anonymous enabling (its programs,
//! options and script arguments; scripts copied) in [`SAVED`] and adds
//! the systemd unit [`UNIT`], enabled for early boot, whose `ExecStart`
//! is `dtrace --anonymous-start`: that loads the saved enabling, starts
//! it with attachments a BPF file system can pin, pins it
//! (`libdtrace::Session::pin_anonymous`), copies the enabling as started
//! to [`STARTED`] and exits, the probes recording into the pinned
//! buffers. `dtrace -a` compiles the enabling as started and claims the
//! pinned state (`libdtrace::Dtrace::go_claiming`). `dtrace -A` alone
//! removes the saved enabling, the unit and any pinned state.
//!
//! The saved enabling is a directory: `enabling`, one line an item
//! (`x NAME[=VALUE]` an option, `n`/`P`/`m`/`f`/`i` and the text a
//! probe description, `s FILE` a script copied beside it, `$ ARG` a
//! script argument; `\` escapes a newline as `\n` and itself as `\\`),
//! and the scripts.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use libdtrace::SpecKind;

use crate::cli::{CliOption, Spec};

/// Where `dtrace -A` saves the anonymous enabling.
pub const SAVED: &str = "/etc/dtrace/anonymous";
/// The enabling as `--anonymous-start` started it (this boot's).
pub const STARTED: &str = "/run/dtrace/anonymous";
/// The unit that starts the enabling at boot.
pub const UNIT: &str = "/etc/systemd/system/dtrace-anon.service";
/// The unit enabled: wanted by `sysinit.target`.
pub const WANTS: &str = "/etc/systemd/system/sysinit.target.wants/dtrace-anon.service";

/// A saved enabling: programs, options and script arguments.
#[derive(Debug, Default, PartialEq)]
pub struct Enabling {
    pub specs: Vec<Spec>,
    pub options: Vec<CliOption>,
    pub args: Vec<OsString>,
}

fn escape(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    for &c in b {
        match c {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            c => out.push(c),
        }
    }
    out
}

fn unescape(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut it = b.iter();
    while let Some(&c) = it.next() {
        if c != b'\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some(b'n') => out.push(b'\n'),
            Some(&o) => out.push(o),
            None => out.push(b'\\'),
        }
    }
    out
}

fn kind_letter(k: SpecKind) -> u8 {
    match k {
        SpecKind::Provider => b'P',
        SpecKind::Module => b'm',
        SpecKind::Function => b'f',
        _ => b'n',
    }
}

/// Scripts copied beside a saved enabling: each one's file name and
/// bytes.
pub type Scripts = Vec<(String, Vec<u8>)>;

/// The text of `enabling` as saved, and the scripts to copy beside it.
pub fn encode(e: &Enabling) -> Result<(Vec<u8>, Scripts), String> {
    let mut text = b"# The anonymous enabling saved by dtrace -A: dtrace-anon.service starts it\n\
# at boot (dtrace --anonymous-start), dtrace -a claims it, dtrace -A with no\n\
# program removes it.\n"
        .to_vec();
    let mut scripts = Vec::new();
    for o in &e.options {
        text.extend_from_slice(b"x ");
        let item = match &o.value {
            Some(v) => format!("{}={}", o.name, v),
            None => o.name.clone(),
        };
        text.extend_from_slice(&escape(item.as_bytes()));
        text.push(b'\n');
    }
    for s in &e.specs {
        match s {
            Spec::Script(path) => {
                let bytes = std::fs::read(path)
                    .map_err(|err| format!("failed to open {}: {}", path.to_string_lossy(), err))?;
                let name = format!("{}.d", scripts.len());
                text.extend_from_slice(format!("s {}\n", name).as_bytes());
                scripts.push((name, bytes));
            }
            Spec::Desc(k, t) => {
                text.push(kind_letter(*k));
                text.push(b' ');
                text.extend_from_slice(&escape(t.as_bytes()));
                text.push(b'\n');
            }
            Spec::Id(t) => {
                text.extend_from_slice(b"i ");
                text.extend_from_slice(&escape(t.as_bytes()));
                text.push(b'\n');
            }
        }
    }
    for a in &e.args {
        text.extend_from_slice(b"$ ");
        text.extend_from_slice(&escape(a.as_bytes()));
        text.push(b'\n');
    }
    Ok((text, scripts))
}

/// The enabling saved in `dir` (scripts named relative to it).
pub fn decode(text: &[u8], dir: &Path) -> Result<Enabling, String> {
    let mut e = Enabling::default();
    for (n, line) in text.split(|&c| c == b'\n').enumerate() {
        if line.is_empty() || line[0] == b'#' {
            continue;
        }
        let (kind, rest) = match line {
            [k, b' ', rest @ ..] => (*k, unescape(rest)),
            _ => {
                return Err(format!(
                    "{}/enabling: line {}: not an item",
                    dir.display(),
                    n + 1
                ))
            }
        };
        let os = |b: Vec<u8>| OsString::from_vec(b);
        match kind {
            b'x' => {
                let item = String::from_utf8_lossy(&rest).into_owned();
                let (name, value) = match item.split_once('=') {
                    Some((n, v)) => (n.to_string(), Some(v.to_string())),
                    None => (item.clone(), None),
                };
                e.options.push(CliOption {
                    written: format!("-x {}", name),
                    name,
                    value,
                });
            }
            b'n' => e.specs.push(Spec::Desc(SpecKind::Name, os(rest))),
            b'P' => e.specs.push(Spec::Desc(SpecKind::Provider, os(rest))),
            b'm' => e.specs.push(Spec::Desc(SpecKind::Module, os(rest))),
            b'f' => e.specs.push(Spec::Desc(SpecKind::Function, os(rest))),
            b'i' => e.specs.push(Spec::Id(os(rest))),
            b's' => e
                .specs
                .push(Spec::Script(dir.join(os(rest)).into_os_string())),
            b'$' => e.args.push(os(rest)),
            _ => {
                return Err(format!(
                    "{}/enabling: line {}: not an item",
                    dir.display(),
                    n + 1
                ))
            }
        }
    }
    Ok(e)
}

/// Reads the enabling saved in `dir`.
pub fn load(dir: &Path) -> Result<Enabling, String> {
    let text = std::fs::read(dir.join("enabling"))
        .map_err(|e| format!("no anonymous enabling in {}: {}", dir.display(), e))?;
    decode(&text, dir)
}

/// Writes `e` in `dir`, made anew.
pub fn store(e: &Enabling, dir: &Path) -> Result<(), String> {
    let (text, scripts) = encode(e)?;
    let fail = |err: std::io::Error| {
        format!(
            "cannot save the anonymous enabling in {}: {}",
            dir.display(),
            err
        )
    };
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(fail)?;
    for (name, bytes) in scripts {
        std::fs::write(dir.join(name), bytes).map_err(fail)?;
    }
    std::fs::write(dir.join("enabling"), text).map_err(fail)
}

/// The unit that starts the saved enabling at boot, `dtrace` being this
/// executable: as early as tracing can start (once the BPF and tracing
/// file systems are mounted), before the system's services.
pub fn unit_text(dtrace: &Path) -> String {
    format!(
        "# Added by dtrace -A: starts the anonymous enabling saved in {saved}\n\
         # (claimed by dtrace -a; dtrace -A with no program removes this unit).\n\
         [Unit]\n\
         Description=DTrace anonymous enabling\n\
         DefaultDependencies=no\n\
         After=sys-fs-bpf.mount sys-kernel-tracing.mount systemd-modules-load.service\n\
         Before=sysinit.target shutdown.target\n\
         Conflicts=shutdown.target\n\
         ConditionPathExists={saved}/enabling\n\
         \n\
         [Service]\n\
         Type=oneshot\n\
         ExecStart={dtrace} --anonymous-start\n\
         \n\
         [Install]\n\
         WantedBy=sysinit.target\n",
        saved = SAVED,
        dtrace = dtrace.display()
    )
}

/// Adds the unit and enables it (the link `systemctl enable` makes).
pub fn install_unit() -> Result<(), String> {
    let me =
        std::env::current_exe().map_err(|e| format!("cannot find dtrace's own path: {}", e))?;
    let fail = |e: std::io::Error| format!("cannot add {}: {}", UNIT, e);
    if let Some(d) = Path::new(UNIT).parent() {
        std::fs::create_dir_all(d).map_err(fail)?;
    }
    std::fs::write(UNIT, unit_text(&me)).map_err(fail)?;
    if let Some(d) = Path::new(WANTS).parent() {
        std::fs::create_dir_all(d).map_err(fail)?;
    }
    let _ = std::fs::remove_file(WANTS);
    std::os::unix::fs::symlink(UNIT, WANTS).map_err(fail)
}

/// Removes the saved enabling and the unit, and with `state` the pinned
/// state and the enabling as started; what was removed, as dtrace says it.
pub fn clean(state: Option<&Path>) -> Vec<String> {
    let mut said = Vec::new();
    if Path::new(SAVED).exists() && std::fs::remove_dir_all(SAVED).is_ok() {
        said.push(format!("cleaned up old anonymous enabling in {}", SAVED));
    }
    let linked = std::fs::symlink_metadata(WANTS).is_ok();
    if (Path::new(UNIT).exists() || linked)
        && std::fs::remove_file(UNIT).is_ok() | std::fs::remove_file(WANTS).is_ok()
    {
        said.push(format!("cleaned up {}", UNIT));
    }
    if let Some(dir) = state {
        let _ = std::fs::remove_dir_all(STARTED);
        if dir.exists() && std::fs::remove_dir_all(dir).is_ok() {
            said.push(format!("cleaned up anonymous state in {}", dir.display()));
        }
    }
    said
}

/// Records the enabling in `SAVED` as started (what `-a` compiles),
/// whatever `-A` does to `SAVED` later.
pub fn mark_started() -> Result<(), String> {
    let e = load(Path::new(SAVED))?;
    store(&e, Path::new(STARTED))
}

/// The directory of the enabling as started.
pub fn started() -> PathBuf {
    PathBuf::from(STARTED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let e = Enabling {
            specs: vec![
                Spec::Desc(
                    SpecKind::Name,
                    "syscall::getppid:entry\n/execname == \"a\\\\b\"/ { @ = count(); }".into(),
                ),
                Spec::Desc(SpecKind::Provider, "syscall".into()),
                Spec::Id("12".into()),
            ],
            options: vec![
                CliOption {
                    name: "bufpolicy".into(),
                    value: Some("ring".into()),
                    written: "-x bufpolicy".into(),
                },
                CliOption {
                    name: "quiet".into(),
                    value: None,
                    written: "-x quiet".into(),
                },
            ],
            args: vec!["one two".into()],
        };
        let (text, scripts) = encode(&e).unwrap();
        assert!(scripts.is_empty());
        assert_eq!(decode(&text, Path::new("/x")).unwrap(), e);
    }

    #[test]
    fn scripts_are_named_beside() {
        let e = decode(b"s 0.d\n", Path::new("/run/dtrace/anonymous")).unwrap();
        assert_eq!(
            e.specs,
            vec![Spec::Script("/run/dtrace/anonymous/0.d".into())]
        );
        assert!(decode(b"q nothing\n", Path::new("/x")).is_err());
        assert!(decode(b"x\n", Path::new("/x")).is_err());
    }

    #[test]
    fn unit_runs_this_dtrace_early() {
        let u = unit_text(Path::new("/usr/sbin/dtrace"));
        assert!(u.contains("ExecStart=/usr/sbin/dtrace --anonymous-start\n"));
        assert!(u.contains("DefaultDependencies=no\n"));
        assert!(u.contains("WantedBy=sysinit.target\n"));
    }
}
