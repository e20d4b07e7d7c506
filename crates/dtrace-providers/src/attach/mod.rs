//! How a planned program reaches its hook: each kind of attachment is one
//! [`AttachKind`] in a file of its own here (a perf tracepoint, a raw
//! tracepoint, a perf event on every CPU, a kernel function's BTF id in
//! the kernel's BTF or a module's, kprobes at many kernel functions
//! through one kprobe_multi link or, without those links, one kprobe
//! event (defined in tracefs) standing at all of them, uprobes through one uprobe_multi link
//! or, before Linux 6.6, as perf events, or none: the consumer runs
//! BEGIN and END itself). A provider names the attachment of each
//! program it plans ([`Attach`]); libdtrace loads the program as the
//! attachment says ([`AttachKind::load_as`], [`AttachKind::btf_object`])
//! and attaches it ([`AttachKind::attach`]), keeping the returned
//! descriptors for as long as the program is attached. A new attachment
//! is one new implementation.
//!
//! The attachments call the kernel through `dtrace_sys` alone.

use std::fmt;
use std::io;
use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::sync::Arc;

use dtrace_bpf::plan::ProgKind;

mod function;
mod kprobe_event;
mod kprobe_multi;
mod perf_event;
mod raw_tracepoint;
mod test_run;
mod tracepoint;
mod uprobe;
mod uprobe_perf;

pub use function::Function;
pub use kprobe_event::{KprobeEvent, KprobeSite};
pub use kprobe_multi::KprobeMulti;
pub use perf_event::{Counter, CpuClock};
pub use raw_tracepoint::RawTracepoint;
pub use test_run::TestRun;
pub use tracepoint::Tracepoint;
pub use uprobe::{UprobeMulti, UNSTEPPABLE};
pub use uprobe_perf::UprobePerf;

/// Whether attachments must be ones a BPF file system can pin
/// ([`want_pinnable`]).
static PINNABLE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// From now on, attachments are ones a BPF file system can pin, for an
/// enabling that outlives its process (anonymous tracing): a program
/// reaches a perf event through a BPF link (Linux 5.15), not the event's
/// ioctl, which lasts only as long as the event's descriptor.
pub fn want_pinnable(on: bool) {
    PINNABLE.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Sets `prog` on perf event `ev` and enables it: through a BPF link
/// when attachments must be pinnable (the link, then the event), else by
/// the event's ioctl (the event).
pub(crate) fn program_on_event(prog: &OwnedFd, ev: OwnedFd) -> io::Result<Vec<Link>> {
    if PINNABLE.load(std::sync::atomic::Ordering::Relaxed) {
        if !dtrace_sys::features::Features::get().perf_link {
            return Err(io::Error::other(
                "an enabling that outlives dtrace needs BPF links to perf events (Linux 5.15)",
            ));
        }
        let link = dtrace_sys::bpf::perf_event_link(prog, &ev, 0)?;
        dtrace_sys::perf::enable(&ev)?;
        return Ok(vec![Link::Fd(link), Link::Fd(ev)]);
    }
    dtrace_sys::perf::attach_bpf(&ev, prog)?;
    Ok(vec![Link::Fd(ev)])
}

/// Places of uprobes left out of an attachment: each one's cookie, and
/// why.
pub type LeftOut = Vec<(u64, &'static str)>;

/// The first few of `names` and how many more (`vfs_read, vfs_write and
/// 12 more`), as attachments at many functions describe themselves.
pub(crate) fn some_names<'a>(names: impl ExactSizeIterator<Item = &'a str>) -> String {
    let total = names.len();
    let shown: Vec<&str> = names.take(4).collect();
    let mut out = shown.join(", ");
    if total > shown.len() {
        out.push_str(&format!(" and {} more", total - shown.len()));
    }
    out
}

/// What keeps an attachment in place: dropping it lets go.
pub enum Link {
    /// A descriptor: a BPF link, or a perf event with the program.
    Fd(OwnedFd),
    /// What an attachment made beyond descriptors, undone when dropped
    /// (a kprobe event: its perf event closed, then its definition
    /// removed).
    Made(Box<dyn Send>),
}

impl fmt::Debug for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Link::Fd(fd) => write!(f, "Link::Fd({:?})", fd),
            Link::Made(_) => write!(f, "Link::Made"),
        }
    }
}

/// A kind of attachment. `Display` describes it (`raw tracepoint
/// sys_enter`), as the code generator's snapshots show it.
pub trait AttachKind: fmt::Debug + fmt::Display + Send + Sync {
    /// The attach type and BTF id the program is loaded with (the
    /// kernel's `expected_attach_type` and `attach_btf_id`), for a
    /// program of `kind`; `(0, 0)` where the kernel asks none.
    fn load_as(&self, _kind: ProgKind) -> (u32, u32) {
        (0, 0)
    }

    /// The BTF object the program's `attach_btf_id` is in, where it is
    /// not the kernel's own: a module's, for its functions.
    fn btf_object(&self) -> io::Result<Option<OwnedFd>> {
        Ok(None)
    }

    /// Why the program may be left out, if the kernel refuses to load or
    /// attach it, rather than fail the whole enabling: one function of
    /// a glob's many (fbt), reported with this reason as the places the
    /// kernel refused are.
    fn optional(&self) -> Option<&'static str> {
        None
    }

    /// The attachment's places, each with its cookie and an attachment
    /// of its own, for a kernel without attach cookies (before 5.15),
    /// where a program is loaded for each place; None for an attachment
    /// that is not made of places.
    fn places(&self) -> Option<Vec<(u64, Attach)>> {
        None
    }

    /// Whether the consumer runs the program itself
    /// (`BPF_PROG_TEST_RUN`) instead of attaching it.
    fn run_by_consumer(&self) -> bool {
        false
    }

    /// Attaches the loaded program `prog`: the descriptors that keep it
    /// attached, and the places of it that were left out (by cookie, and
    /// why). `tracefs` is where tracefs is mounted, if it is.
    fn attach(&self, prog: &OwnedFd, tracefs: Option<&PathBuf>)
        -> io::Result<(Vec<Link>, LeftOut)>;
}

/// How a planned program is attached: one attachment, shared.
#[derive(Clone, Debug)]
pub struct Attach(Arc<dyn AttachKind>);

impl Attach {
    pub fn new(kind: impl AttachKind + 'static) -> Self {
        Attach(Arc::new(kind))
    }

    /// Run by the consumer (BEGIN and END) with `BPF_PROG_TEST_RUN`.
    pub fn test_run() -> Self {
        Attach::new(TestRun)
    }

    /// A perf tracepoint event, `system/event`.
    pub fn tracepoint(system: &str, event: &str) -> Self {
        Attach::new(Tracepoint {
            system: system.to_string(),
            event: event.to_string(),
        })
    }

    /// A raw tracepoint.
    pub fn raw_tracepoint(name: &str) -> Self {
        Attach::new(RawTracepoint(name.to_string()))
    }
}

impl std::ops::Deref for Attach {
    type Target = dyn AttachKind;
    fn deref(&self) -> &(dyn AttachKind + 'static) {
        &*self.0
    }
}

impl fmt::Display for Attach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
