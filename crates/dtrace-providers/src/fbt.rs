//! The fbt provider (kernel function entry and return). Its probes need
//! kprobes or fentry programs; this build does not attach them yet, and
//! the provider says why it has no probes, so that an `fbt` description
//! fails with the reason rather than only "does not match any probes":
//! on a kernel without kprobes (CONFIG_KPROBES off: no `kprobe` perf
//! event source), that the kernel does not allow function tracing.

use std::io;
use std::path::Path;

use crate::{ArgDesc, Enabled, Planned, ProbeSink, ProbeTable, Provider};

pub struct Fbt {
    why: String,
}

impl Fbt {
    pub fn discover() -> Fbt {
        let kprobes = Path::new("/sys/bus/event_source/devices/kprobe").exists();
        let why = if kprobes {
            "kernel function tracing (fbt) is not implemented yet".to_string()
        } else {
            "the kernel does not allow function tracing: no kprobes, CONFIG_KPROBES is off"
                .to_string()
        };
        Fbt { why }
    }
}

impl Provider for Fbt {
    fn name(&self) -> &str {
        "fbt"
    }

    fn provide(&mut self, _sink: &mut ProbeSink<'_>) {}

    fn args(&self, _local: u32) -> Option<Vec<ArgDesc>> {
        None
    }

    fn plan(&self, _: &ProbeTable, _: &[Enabled], _: &mut Planned) -> io::Result<()> {
        Ok(())
    }

    fn unavailable(&self) -> Option<String> {
        Some(self.why.clone())
    }
}
