//! dtrace(1)'s manual page, in roff, made from the same tables as the
//! program: the flags of `cli::FLAGS` and every `-x` option of
//! libdtrace's option table (what it does, its value, its range, and
//! whether it is honoured here), so the manual cannot drift from the
//! command. `dtrace --man` prints it; `docs/dtrace.1` is its copy,
//! checked against it by the tests, and `install.sh` installs it.

use crate::cli::{FLAGS, SYNOPSIS};
use libdtrace::{Change, Options, Support};

/// Text escaped for roff: backslashes and hyphens, and a leading `.` or
/// `'` that would read as a request.
fn esc(s: &str) -> String {
    let mut out = s.replace('\\', "\\e").replace('-', "\\-");
    if out.starts_with('.') || out.starts_with('\'') {
        out.insert_str(0, "\\&");
    }
    out
}

/// A size or count as the option table's range writes it.
fn bound(v: i64, size: bool) -> String {
    if size {
        libdtrace::size_text(v)
    } else {
        v.to_string()
    }
}

/// The manual page.
pub fn page() -> String {
    let mut m = String::new();
    m.push_str(".TH DTRACE 1 \"\" \"dtrace for Linux\" \"User Commands\"\n");
    m.push_str(".SH NAME\ndtrace \\- dynamic tracing compiler and tracing utility\n");
    m.push_str(".SH SYNOPSIS\n.nf\n");
    for line in SYNOPSIS.lines().filter(|l| !l.is_empty()) {
        let line = line.strip_prefix("Usage: ").unwrap_or(line);
        m.push_str(&esc(line.trim_start_matches('\t')));
        m.push('\n');
    }
    m.push_str(".fi\n");
    m.push_str(
        ".SH DESCRIPTION\n\
         dtrace compiles programs in the D language into eBPF, enables the probes \
         they describe in the running Linux kernel and in its processes, and prints \
         the data they record, as DTrace's dtrace(1M) does. Probes are named by \
         descriptions (\\fIprovider\\fR:\\fImodule\\fR:\\fIfunction\\fR:\\fIname\\fR) \
         given with \\fB\\-P\\fR, \\fB\\-m\\fR, \\fB\\-f\\fR, \\fB\\-n\\fR, \\fB\\-i\\fR \
         or in a script (\\fB\\-s\\fR); each may be followed by a predicate and an \
         action. Tracing ends when the program calls exit(), when a command run \
         with \\fB\\-c\\fR or a process grabbed with \\fB\\-p\\fR ends, or on \
         SIGINT or SIGTERM, after which the END probe fires and aggregations are \
         printed.\n",
    );
    m.push_str(".SH OPTIONS\n");
    for (flag, arg, what) in FLAGS {
        m.push_str(".TP\n");
        if arg.is_empty() {
            m.push_str(&format!(".B {}\n", esc(flag)));
        } else {
            m.push_str(&format!(".BI \"{} \" {}\n", esc(flag), esc(arg)));
        }
        m.push_str(&esc(what));
        m.push_str(".\n");
    }
    m.push_str(
        ".SH COMPILER AND TRACING OPTIONS\n\
         Set with \\fB\\-x\\fR \\fIname\\fR[=\\fIvalue\\fR] or \
         \\fB#pragma D option\\fR \\fIname\\fR[=\\fIvalue\\fR]. Sizes take a \
         k, m, g or t suffix; rates are a frequency (a bare number or \\fBhz\\fR) \
         or a time (\\fBns\\fR, \\fBus\\fR, \\fBms\\fR, \\fBs\\fR, \\fBm\\fR, \\fBh\\fR, \
         \\fBd\\fR). A value outside an option's range is refused, never \
         clamped.\n",
    );
    for o in Options::all() {
        m.push_str(".TP\n");
        if o.value.is_empty() {
            m.push_str(&format!(".B {}\n", esc(o.name)));
        } else {
            m.push_str(&format!(".BI {}= {}\n", esc(o.name), esc(&o.value)));
        }
        let mut text = o.about.to_string();
        if let Some((lo, hi)) = o.range {
            let size = o.value == "size";
            text.push_str(&format!(
                " (from {} to {})",
                bound(lo, size),
                bound(hi, size)
            ));
        }
        text.push('.');
        if o.change == Change::Anytime {
            text.push_str(" It may change while tracing runs (setopt()).");
        }
        match o.support {
            Support::Honoured => {}
            Support::HonouredExcept(values, why) => {
                text.push_str(&format!(" Not {}: {}.", values.join(" or "), why))
            }
            Support::DefaultOnly(why) => {
                text.push_str(&format!(" Only its default is supported: {}.", why))
            }
            Support::Refused(why) => text.push_str(&format!(" Not supported: {}.", why)),
        }
        m.push_str(&esc(&text));
        m.push('\n');
    }
    m.push_str(
        ".SH EXIT STATUS\n\
         .TP\n.B 0\n\
         The program ran and ended (exit(0), the end of a command or process, a \
         stop signal), or the request (\\fB\\-l\\fR, \\fB\\-e\\fR, \\fB\\-h\\fR, \
         \\fB\\-G\\fR) was carried out.\n\
         .TP\n.B 1\n\
         A program failed to compile or to enable, tracing failed, or exit() was \
         called with 1.\n\
         .TP\n.B 2\n\
         The command line was not valid (the usage message is printed).\n\
         .SH FILES\n\
         .TP\n.I /sys/kernel/btf/vmlinux\n\
         The kernel's types.\n\
         .TP\n.I /sys/kernel/tracing\n\
         tracefs, mounted by dtrace when it is not.\n\
         .SH SEE ALSO\n\
         cpp(1), bpftrace(8), perf(1)\n\
         .PP\n\
         The Dynamic Tracing Guide.\n",
    );
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flag_and_option_is_in_the_manual() {
        let m = page();
        for (flag, _, _) in FLAGS {
            assert!(m.contains(&esc(flag)), "{}", flag);
        }
        for o in Options::all() {
            assert!(
                m.contains(&format!(
                    "\n.B{} {}",
                    if o.value.is_empty() { "" } else { "I" },
                    esc(o.name)
                )),
                "{}",
                o.name
            );
        }
        assert!(m.contains("(from 2 to 64k)"), "strsize's range");
    }

    #[test]
    fn roff_is_escaped() {
        assert_eq!(esc("-x a\\b"), "\\-x a\\eb");
        assert_eq!(esc(".TH"), "\\&.TH");
    }
}
