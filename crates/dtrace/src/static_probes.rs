//! `-h` and `-G`: the files with which a program defines user-level
//! static probes (see `Dtrace::provider_header`).

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use libdtrace::Dtrace;

use crate::cli::{Cmd, Mode, Spec};
use crate::{fatal, io_reason, E_ERROR, E_SUCCESS};

/// The file `-h` or `-G` writes: `-o`, or the one script's name with
/// `.h` (`.o`) for `.d`.
fn output_name(cmd: &Cmd, ext: &str) -> Result<OsString, String> {
    if let Some(o) = &cmd.output {
        return Ok(o.clone());
    }
    let flag = if ext == "h" { 'h' } else { 'G' };
    let scripts: Vec<&OsString> = cmd
        .specs
        .iter()
        .filter_map(|s| match s {
            Spec::Script(p) => Some(p),
            _ => None,
        })
        .collect();
    if scripts.len() > 1 {
        return Err(format!(
            "-{} requires an output file if multiple scripts are specified",
            flag
        ));
    }
    let script = scripts.first().map(|s| s.as_bytes()).unwrap_or_default();
    match script.strip_suffix(b".d") {
        Some(stem) if !stem.is_empty() && script != b"-" => {
            let mut name = stem.to_vec();
            name.push(b'.');
            name.extend_from_slice(ext.as_bytes());
            Ok(OsString::from(std::ffi::OsStr::from_bytes(&name)))
        }
        _ => Err(format!(
            "-{} requires an output file if the script's name does not end in .d",
            flag
        )),
    }
}

/// Writes the header (`-h`; Rust source for the `dtrace-usdt` crate when
/// the output's name ends in `.rs`) or object (`-G`) for the compiled
/// programs' provider definitions.
pub(crate) fn write(dt: &Dtrace, cmd: &Cmd) -> u8 {
    if !dt.has_providers() {
        let flag = if cmd.mode == Mode::Header { 'h' } else { 'G' };
        return fatal(format!(
            "no providers are defined: -{} needs a provider definition (provider name {{ probe ...; }};)",
            flag
        ));
    }
    let ext = if cmd.mode == Mode::Header { "h" } else { "o" };
    let path = match output_name(cmd, ext) {
        Ok(p) => p,
        Err(msg) => return fatal(msg),
    };
    let bytes = if cmd.mode == Mode::Header && path.as_bytes().ends_with(b".rs") {
        // A Rust program's providers, for the dtrace-usdt crate.
        dt.provider_rust().into_bytes()
    } else if cmd.mode == Mode::Header {
        let name = String::from_utf8_lossy(path.as_bytes()).into_owned();
        dt.provider_header(Some(&name)).into_bytes()
    } else {
        // The objects the build compiled with the header already hold
        // their probes' notes: each must be there and be ELF.
        for obj in &cmd.args {
            match std::fs::read(obj) {
                Ok(data) if data.starts_with(b"\x7fELF") => {}
                Ok(_) => {
                    return fatal(format!(
                        "failed to link {}: not an ELF object file",
                        obj.to_string_lossy()
                    ))
                }
                Err(e) => {
                    return fatal(format!(
                        "failed to open {}: {}",
                        obj.to_string_lossy(),
                        io_reason(&e)
                    ))
                }
            }
        }
        Dtrace::provider_object()
    };
    match std::fs::write(&path, bytes) {
        Ok(()) => E_SUCCESS,
        Err(e) => {
            crate::eprint_bytes(&[
                b"failed to open output file '",
                path.as_bytes(),
                b"': ",
                io_reason(&e).as_bytes(),
            ]);
            E_ERROR
        }
    }
}
