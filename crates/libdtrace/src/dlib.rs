//! D libraries: declarations compiled before a program (types,
//! translators, inlines), as DTrace loads /usr/lib/dtrace.
//!
//! The standard library ships inside the binary (`dlib/*.d`): the process
//! model of the Dynamic Tracing Guide (`psinfo_t`, `lwpsinfo_t`,
//! `curpsinfo`, `curlwpsinfo`), the io provider's `bufinfo_t`,
//! `devinfo_t` and `fileinfo_t`/`fds[]`, and `cpuinfo_t`/`curcpu`, with
//! their constants (`B_*`, `O_*`, `PR_*`, `S*`, `CLD_*`, lockstat's
//! `RW_READER`/`RW_WRITER`), the `R_*` indices of
//! `uregs[]` (`regs.d`), the `SIG*` signal numbers (`signal.d`) and the
//! `DTRACEFLT_*` fault kinds (`unistd.d`). Each file is
//! compiled the first time a program names something it defines, so a
//! program that uses none of it does not read the kernel's BTF at all.
//! `-xsyslibdir=DIR` replaces the standard library with the `*.d` files of
//! DIR; `-L DIR` (`-xlibdir=DIR`) adds the `*.d` files of DIR; those are
//! compiled, in name order, before the first program.
//!
//! Also in the standard library: `tcp.d` and `ip.d`, the network
//! providers' translators (`tcpsinfo_t`, `ipinfo_t`, `pktinfo_t`, ...). A
//! standard file is loaded too when a program names a provider its
//! [`STANDARD`] row lists (`proc` and `sched`: `procfs.d`); a unit test
//! checks that every name a file declares is in its row. A library
//! directory's file with `#pragma D depends_on library NAME` is compiled
//! after NAME, and a file whose `depends_on` is not met is passed over,
//! as DTrace passes it over: `depends_on member STRUCT.MEMBER` (this
//! project's addition) is met where the kernel's struct has the member,
//! so a library may come in one file per shape of a kernel type
//! (`io_bdev.d` for the bio of Linux 5.12 and later, `io_gendisk.d` for
//! that of the kernels before).

use std::path::{Path, PathBuf};

/// A library file of the standard library: its name, text, and the names
/// it defines (any of which in a program loads it).
pub(crate) struct StdLib {
    pub name: &'static str,
    pub text: &'static str,
    pub defines: &'static [&'static str],
    /// Providers whose arguments have its types: a program enabling one
    /// of their probes loads it.
    pub providers: &'static [&'static str],
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
            "timestruc_t",
            "timestruc",
            "poolid_t",
            "ctid_t",
            "PR_MODEL_ILP32",
            "PR_MODEL_LP64",
            "PRNODEV",
            "PBIND_NONE",
            "PS_NONE",
            "PR_STOPPED",
            "PR_ISTOP",
            "PR_DSTOP",
            "PR_STEP",
            "PR_ASLEEP",
            "PR_PCINVAL",
            "PR_ASLWP",
            "PR_AGENT",
            "PR_DETACH",
            "PR_DAEMON",
            "PR_IDLE",
            "PR_ISSYS",
            "PR_VFORKP",
            "PR_ORPHAN",
            "PR_PTRACE",
            "SSLEEP",
            "SRUN",
            "SZOMB",
            "SSTOP",
            "SIDL",
            "SONPROC",
            "SWAIT",
            "SOBJ_NONE",
            "CLD_EXITED",
            "CLD_KILLED",
            "CLD_DUMPED",
            "CLD_TRAPPED",
            "CLD_STOPPED",
            "CLD_CONTINUED",
            "__proc_exit_reason",
            "__proc_is_exec",
            "__proc_regs_exec",
            "__proc_exec_path",
            "__proc_errno",
            "__proc_regs_fork",
            "__proc_new_process",
            "__proc_new_thread",
            "__proc_regs_sigwait",
            "__proc_fault",
            "__sched_remote",
            "FLTILL",
            "FLTPRIV",
            "FLTBPT",
            "FLTTRACE",
            "FLTACCESS",
            "FLTBOUNDS",
            "FLTIOVF",
            "FLTIZDIV",
            "FLTFPE",
            "FLTSTACK",
            "FLTPAGE",
            "FLTWATCH",
            "FLTCPCOVF",
        ],
        providers: &["proc", "sched"],
    },
    StdLib {
        name: "io.d",
        text: include_str!("../dlib/io.d"),
        defines: &[
            "__blk_errno",
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
        providers: &["io"],
    },
    StdLib {
        name: "io_bdev.d",
        text: include_str!("../dlib/io_bdev.d"),
        // The translators from the block layer's types: wherever a
        // program may translate to io.d's types.
        defines: &["bufinfo_t", "devinfo_t"],
        providers: &["io"],
    },
    StdLib {
        name: "io_gendisk.d",
        text: include_str!("../dlib/io_gendisk.d"),
        // The translators from the block layer's types: wherever a
        // program may translate to io.d's types.
        defines: &["bufinfo_t", "devinfo_t"],
        providers: &["io"],
    },
    StdLib {
        name: "regs.d",
        text: include_str!("../dlib/regs.d"),
        defines: &[
            "R_R15", "R_R14", "R_R13", "R_R12", "R_RBP", "R_RBX", "R_R11", "R_R10", "R_R9", "R_R8",
            "R_RAX", "R_RCX", "R_RDX", "R_RSI", "R_RDI", "R_ERR", "R_RIP", "R_CS", "R_RFL",
            "R_RSP", "R_SS", "R_DS", "R_ES", "R_FS", "R_GS", "R_TRAPNO", "R_EAX", "R_EBX", "R_ECX",
            "R_EDX", "R_ESI", "R_EDI", "R_EBP", "R_ESP", "R_EIP", "R_EFL", "R_PC", "R_SP", "R_FP",
            "R_PS", "R_R0", "R_R1",
        ],
        providers: &[],
    },
    StdLib {
        name: "signal.d",
        text: include_str!("../dlib/signal.d"),
        defines: &[
            "SIGHUP",
            "SIGINT",
            "SIGQUIT",
            "SIGILL",
            "SIGTRAP",
            "SIGABRT",
            "SIGIOT",
            "SIGBUS",
            "SIGFPE",
            "SIGKILL",
            "SIGUSR1",
            "SIGSEGV",
            "SIGUSR2",
            "SIGPIPE",
            "SIGALRM",
            "SIGTERM",
            "SIGSTKFLT",
            "SIGCHLD",
            "SIGCLD",
            "SIGCONT",
            "SIGSTOP",
            "SIGTSTP",
            "SIGTTIN",
            "SIGTTOU",
            "SIGURG",
            "SIGXCPU",
            "SIGXFSZ",
            "SIGVTALRM",
            "SIGPROF",
            "SIGWINCH",
            "SIGIO",
            "SIGPOLL",
            "SIGPWR",
            "SIGSYS",
            "SIGRTMIN",
            "SIGRTMAX",
        ],
        providers: &[],
    },
    StdLib {
        name: "unistd.d",
        text: include_str!("../dlib/unistd.d"),
        defines: &[
            "DTRACEFLT_UNKNOWN",
            "DTRACEFLT_BADADDR",
            "DTRACEFLT_BADALIGN",
            "DTRACEFLT_ILLOP",
            "DTRACEFLT_DIVZERO",
            "DTRACEFLT_NOSCRATCH",
            "DTRACEFLT_KPRIV",
            "DTRACEFLT_UPRIV",
            "DTRACEFLT_TUPOFLOW",
            "DTRACEFLT_BADSTACK",
        ],
        providers: &[],
    },
    StdLib {
        name: "tcp.d",
        text: include_str!("../dlib/tcp.d"),
        defines: &[
            "tcpsinfo_t",
            "tcplsinfo_t",
            "tcpsinfo",
            "tcplsinfo",
            "TCP_STATE_IDLE",
            "TCP_STATE_ESTABLISHED",
            "TCP_STATE_SYN_SENT",
            "TCP_STATE_SYN_RECEIVED",
            "TCP_STATE_FIN_WAIT_1",
            "TCP_STATE_FIN_WAIT_2",
            "TCP_STATE_TIME_WAIT",
            "TCP_STATE_CLOSED",
            "TCP_STATE_CLOSE_WAIT",
            "TCP_STATE_LAST_ACK",
            "TCP_STATE_LISTEN",
            "TCP_STATE_CLOSING",
            "__tcpsinfo_skb",
        ],
        providers: &["tcp"],
    },
    StdLib {
        name: "ip.d",
        text: include_str!("../dlib/ip.d"),
        defines: &[
            "pktinfo_t",
            "csinfo_t",
            "ipinfo_t",
            "ifinfo_t",
            "tcpinfo_t",
            "udpinfo_t",
            "udpsinfo_t",
            "pktinfo",
            "csinfo",
            "ipinfo",
            "ifinfo",
            "tcpinfo",
            "udpinfo",
            "udpsinfo",
            "IPPROTO_TCP",
            "IPPROTO_UDP",
            "TH_FIN",
            "TH_SYN",
            "TH_RST",
            "TH_PUSH",
            "TH_ACK",
            "TH_URG",
            "TH_ECE",
            "TH_CWR",
            "__ip_proto",
            "__ip_l4",
            "__ip_is_ip",
            "__ip_is_tcp",
            "__ip_is_udp",
            "__tcpinfo_ip",
            "__udpinfo_ip",
            "__udpsinfo_skb",
            "__tcp_is_syn",
            "__tcpinfo_refusal",
            "ipv4info_t",
            "ipv6info_t",
            "ipv4info",
            "ipv6info",
            "AF_INET",
            "ARPHRD_ETHER",
            "ARPHRD_INFINIBAND",
            "AF_INET6",
            "IPH_DF",
            "IPH_MF",
            "__ip_protostr",
            "__ipv4info_ip",
            "__ipv6info_ip",
        ],
        providers: &["ip", "tcp", "udp"],
    },
    StdLib {
        name: "lockstat.d",
        text: include_str!("../dlib/lockstat.d"),
        defines: &["RW_WRITER", "RW_READER", "__lockstat_rw"],
        providers: &["lockstat"],
    },
    StdLib {
        name: "sched.d",
        text: include_str!("../dlib/sched.d"),
        defines: &["cpuinfo_t", "cpuinfo", "curcpu"],
        providers: &[],
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

/// True if `text` names `provider` as a probe description's provider:
/// a whole word followed by `:` and not after one (`sched:::off-cpu`,
/// not `sdt:sched::sched_switch`).
pub(crate) fn names_provider(text: &[u8], provider: &str) -> bool {
    let w = provider.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b':' || c == b'`';
    text.windows(w.len()).enumerate().any(|(i, win)| {
        win == w && (i == 0 || !ident(text[i - 1])) && text.get(i + w.len()) == Some(&b':')
    })
}

/// The libraries a library file names in `#pragma D depends_on library`.
pub(crate) fn library_depends(text: &[u8]) -> Vec<String> {
    depends(text)
        .into_iter()
        .filter(|(kind, _)| kind == "library")
        .map(|(_, name)| name)
        .collect()
}

/// Every `#pragma D depends_on CLASS NAME` of a file, as (class, name).
pub(crate) fn depends(text: &[u8]) -> Vec<(String, String)> {
    text.split(|&c| c == b'\n')
        .filter_map(|l| {
            let l = String::from_utf8_lossy(l);
            let mut w = l.trim_start().strip_prefix('#')?.split_whitespace();
            if w.next() != Some("pragma") || w.next() != Some("D") || w.next() != Some("depends_on")
            {
                return None;
            }
            Some((w.next()?.to_string(), w.next()?.to_string()))
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

    /// The names a standard library file declares at top level: inlines
    /// (`inline T NAME =`, `inline T NAME[...] =`), typedefs (`typedef ...
    /// NAME;`, `} NAME;`) and struct tags (`typedef struct TAG {`).
    fn declared(text: &str) -> Vec<String> {
        let ident = |w: &str| {
            w.trim_start_matches('*')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect::<String>()
        };
        let mut out = Vec::new();
        for line in text.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            if words.first() == Some(&"inline") {
                // The name is the last word before `=`, or before the
                // parameter list of an inline with parameters.
                if let Some((head, _)) = line.split_once('=') {
                    let head = head.split('[').next().unwrap_or_default();
                    out.extend(head.split_whitespace().last().map(ident));
                }
                continue;
            }
            match words.as_slice() {
                ["typedef", "struct", tag, "{"] => out.push(ident(tag)),
                ["typedef", .., name] => out.push(ident(name)),
                ["}", name] if name.ends_with(';') => out.push(ident(name)),
                _ => {}
            }
        }
        out
    }

    #[test]
    fn every_declared_name_loads_its_library() {
        for lib in STANDARD {
            let names = declared(lib.text);
            // A file of translators alone (one shape of a kernel type's)
            // declares no names.
            assert!(
                !names.is_empty() || lib.text.contains("\ntranslator "),
                "{}",
                lib.name
            );
            for n in names {
                let n = n.split('[').next().unwrap_or_default();
                assert!(
                    lib.defines.contains(&n),
                    "{} declares {} but dlib::STANDARD does not list it",
                    lib.name,
                    n
                );
            }
            for d in lib.defines {
                assert!(mentions(lib.text.as_bytes(), d), "{} lists {}", lib.name, d);
            }
        }
    }

    #[test]
    fn finds_providers_of_descriptions() {
        assert!(names_provider(b"sched:::off-cpu { }", "sched"));
        assert!(names_provider(b"BEGIN {}\nproc:::create", "proc"));
        assert!(!names_provider(b"sdt:sched::sched_switch", "sched"));
        assert!(!names_provider(b"trace(sched)", "sched"));
    }

    #[test]
    fn finds_whole_words() {
        assert!(mentions(b"trace(curpsinfo->pr_pid)", "curpsinfo"));
        assert!(mentions(b"curpsinfo", "curpsinfo"));
        assert!(!mentions(b"my_curpsinfo", "curpsinfo"));
        assert!(!mentions(b"curpsinfo2", "curpsinfo"));
    }
}
