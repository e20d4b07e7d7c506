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

/// The kernel's dynamic kprobe events (`kprobe_events`), opened for
/// defining: each [`KprobeEvents::define`] is one write, which the kernel
/// takes or refuses on its own.
pub struct KprobeEvents {
    file: fs::File,
}

impl KprobeEvents {
    /// Opens `kprobe_events` under `root` to add to it.
    pub fn open(root: &Path) -> io::Result<KprobeEvents> {
        let file = fs::OpenOptions::new()
            .append(true)
            .open(root.join("kprobe_events"))?;
        Ok(KprobeEvents { file })
    }

    /// Defines one probe: `p:GROUP/EVENT [MOD:]SYMBOL` (`r:` for a
    /// kretprobe). A second definition of an event appends a probe to it
    /// (Linux 5.5), so one event may stand at many functions.
    pub fn define(&mut self, line: &str) -> io::Result<()> {
        use std::io::Write;
        self.file.write_all(line.as_bytes())
    }

    /// Removes the event `group/event` with every probe it has (it must
    /// not be enabled).
    pub fn remove(&mut self, group: &str, event: &str) -> io::Result<()> {
        self.define(&format!("-:{}/{}", group, event))
    }
}

/// A kernel setting (a file of `/proc/sys` or `/sys`) held at a value
/// while this lives, then put back as it was; nothing is changed if it
/// already has the value or cannot be written.
pub struct Setting {
    path: &'static str,
    was: Option<String>,
}

impl Setting {
    fn hold(path: &'static str, value: &str) -> Setting {
        let was = fs::read_to_string(path)
            .ok()
            .filter(|w| w.trim() != value && fs::write(path, value).is_ok());
        Setting { path, was }
    }
}

impl Drop for Setting {
    fn drop(&mut self) {
        if let Some(was) = self.was.take() {
            let _ = fs::write(self.path, was.trim());
        }
    }
}

/// The kernel's RCU grace periods expedited while it lives
/// (`/sys/kernel/rcu_expedited`): removing a kprobe waits for a grace
/// period, one probe after another, and an expedited one takes
/// microseconds rather than milliseconds (it interrupts every CPU
/// instead of waiting for each to pass a quiescent state).
pub fn expedited() -> Setting {
    Setting::hold("/sys/kernel/rcu_expedited", "1")
}

/// The kprobe events defined, as `(group, event)`, each once.
pub fn kprobe_events(root: &Path) -> io::Result<Vec<(String, String)>> {
    let text = fs::read_to_string(root.join("kprobe_events"))?;
    Ok(parse_kprobe_events(&text))
}

fn parse_kprobe_events(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let Some(def) = line.split_whitespace().next() else {
            continue;
        };
        let Some((_, name)) = def.split_once(':') else {
            continue;
        };
        let Some((group, event)) = name.split_once('/') else {
            continue;
        };
        let e = (group.to_string(), event.to_string());
        if !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kprobe_events_are_listed_once_each() {
        let text = "p:dtrace_12/fbt_entry_0 vfs_read\n\
                    p:dtrace_12/fbt_entry_0 vfs_write\n\
                    r16:kprobes/myret do_sys_openat2 $retval\n";
        assert_eq!(
            parse_kprobe_events(text),
            vec![
                ("dtrace_12".to_string(), "fbt_entry_0".to_string()),
                ("kprobes".to_string(), "myret".to_string()),
            ]
        );
    }
}
