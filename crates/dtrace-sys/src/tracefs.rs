//! tracefs: finding (and when needed mounting) it, listing events and
//! reading their ids and formats.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

const MOUNT_POINT: &str = "/sys/kernel/tracing";
const DEBUGFS_TRACING: &str = "/sys/kernel/debug/tracing";

/// The tracefs root, mounting tracefs at /sys/kernel/tracing if no mounted
/// instance is found.
pub fn root() -> io::Result<PathBuf> {
    for cand in [MOUNT_POINT, DEBUGFS_TRACING] {
        if Path::new(cand).join("events").is_dir() {
            return Ok(PathBuf::from(cand));
        }
    }
    mount_tracefs()?;
    if Path::new(MOUNT_POINT).join("events").is_dir() {
        Ok(PathBuf::from(MOUNT_POINT))
    } else {
        Err(io::Error::new(
            io::ErrorKind::NotFound,
            "tracefs is mounted but has no events directory",
        ))
    }
}

fn mount_tracefs() -> io::Result<()> {
    mount_pseudo(c"tracefs", c"/sys/kernel/tracing")
}

/// Mounts the kernel's pseudo file system `fs` at `target` (its usual
/// place); already mounted there is no error.
pub(crate) fn mount_pseudo(fs: &std::ffi::CStr, target: &std::ffi::CStr) -> io::Result<()> {
    // SAFETY: both strings are NUL-terminated and the data argument may
    // be null for these file systems.
    let r = unsafe {
        libc::mount(
            fs.as_ptr(),
            target.as_ptr(),
            fs.as_ptr(),
            0,
            std::ptr::null(),
        )
    };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EBUSY) {
            return Ok(());
        }
        return Err(e);
    }
    Ok(())
}

/// The numeric id of `system/event`.
pub fn event_id(root: &Path, system: &str, event: &str) -> io::Result<u64> {
    let text = fs::read_to_string(root.join("events").join(system).join(event).join("id"))?;
    text.trim()
        .parse()
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "bad tracepoint id"))
}

/// The names of the events of `system`, sorted.
pub fn events(root: &Path, system: &str) -> io::Result<Vec<String>> {
    let mut out = Vec::new();
    for ent in fs::read_dir(root.join("events").join(system))? {
        let ent = ent?;
        if ent.file_type()?.is_dir() {
            if let Some(name) = ent.file_name().to_str() {
                out.push(name.to_string());
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The `format` file of `system/event`.
/// True if tracefs has event `system:event` (one lookup, no listing).
pub fn event_exists(root: &Path, system: &str, event: &str) -> bool {
    root.join("events").join(system).join(event).is_dir()
}

pub fn event_format(root: &Path, system: &str, event: &str) -> io::Result<String> {
    fs::read_to_string(root.join("events").join(system).join(event).join("format"))
}
