//! D libraries: declarations compiled before a program (types,
//! translators, inlines), as DTrace loads /usr/lib/dtrace.
//!
//! The standard library ships inside the binary (`dlib/*.d`): the process
//! model of the Dynamic Tracing Guide (`psinfo_t`, `lwpsinfo_t`,
//! `curpsinfo`, `curlwpsinfo`) and `cpuinfo_t`/`curcpu`. Each file is
//! compiled the first time a program names something it defines, so a
//! program that uses none of it does not read the kernel's BTF at all.
//! `-xsyslibdir=DIR` replaces the standard library with the `*.d` files of
//! DIR; `-L DIR` (`-xlibdir=DIR`) adds the `*.d` files of DIR; those are
//! compiled, in name order, before the first program.

use std::path::{Path, PathBuf};

/// A library file of the standard library: its name, text, and the names
/// it defines (any of which in a program loads it).
pub(crate) struct StdLib {
    pub name: &'static str,
    pub text: &'static str,
    pub defines: &'static [&'static str],
}

pub(crate) const STANDARD: &[StdLib] = &[
    StdLib {
        name: "procfs.d",
        text: include_str!("../dlib/procfs.d"),
        defines: &[
            "psinfo_t",
            "lwpsinfo_t",
            "psinfo",
            "lwpsinfo",
            "curpsinfo",
            "curlwpsinfo",
        ],
    },
    StdLib {
        name: "io.d",
        text: include_str!("../dlib/io.d"),
        defines: &[
            "fileinfo_t",
            "fileinfo",
            "fds",
            "bufinfo_t",
            "bufinfo",
            "devinfo_t",
            "devinfo",
            "caddr_t",
            "B_BUSY",
            "B_DONE",
            "B_ERROR",
            "B_PAGEIO",
            "B_PHYS",
            "B_READ",
            "B_WRITE",
            "B_ASYNC",
            "O_ACCMODE",
            "O_RDONLY",
            "O_WRONLY",
            "O_RDWR",
            "O_CREAT",
            "O_EXCL",
            "O_NOCTTY",
            "O_TRUNC",
            "O_APPEND",
            "O_NONBLOCK",
            "O_NDELAY",
            "O_DSYNC",
            "O_ASYNC",
            "O_DIRECT",
            "O_LARGEFILE",
            "O_DIRECTORY",
            "O_NOFOLLOW",
            "O_NOATIME",
            "O_CLOEXEC",
            "O_SYNC",
            "O_RSYNC",
            "O_PATH",
        ],
    },
    StdLib {
        name: "sched.d",
        text: include_str!("../dlib/sched.d"),
        defines: &["cpuinfo_t", "cpuinfo", "curcpu"],
    },
];

/// True if `word` appears in `text` as a whole identifier.
pub(crate) fn mentions(text: &[u8], word: &str) -> bool {
    let w = word.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    text.windows(w.len()).enumerate().any(|(i, win)| {
        win == w
            && (i == 0 || !ident(text[i - 1]))
            && text.get(i + w.len()).is_none_or(|&c| !ident(c))
    })
}

/// The libraries a library file names in `#pragma D depends_on library`.
pub(crate) fn library_depends(text: &[u8]) -> Vec<String> {
    text.split(|&c| c == b'\n')
        .filter_map(|l| {
            let l = String::from_utf8_lossy(l);
            let mut w = l.trim_start().strip_prefix('#')?.split_whitespace();
            (w.next() == Some("pragma")
                && w.next() == Some("D")
                && w.next() == Some("depends_on")
                && w.next() == Some("library"))
            .then(|| w.next().map(str::to_string))
            .flatten()
        })
        .collect()
}

/// The `*.d` files of a directory, in name order.
pub(crate) fn files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "d") && p.is_file())
        .collect();
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_whole_words() {
        assert!(mentions(b"trace(curpsinfo->pr_pid)", "curpsinfo"));
        assert!(mentions(b"curpsinfo", "curpsinfo"));
        assert!(!mentions(b"my_curpsinfo", "curpsinfo"));
        assert!(!mentions(b"curpsinfo2", "curpsinfo"));
    }
}
