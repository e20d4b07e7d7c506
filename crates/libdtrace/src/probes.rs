//! The probe table as a handle shows it: probes by ID, their arguments
//! and stability, the listing (`dtrace -l`), matching a description,
//! `$target` in descriptions, and the provider definitions compiled
//! programs declare (`dtrace -h`, the Rust binding, the object).

use super::*;
use crate::compile::{align_spec, overspecified};

impl Dtrace {
    /// The probe with this ID, if there is one (`dtrace_id2desc`).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let dt = libdtrace::Dtrace::open()?;
    /// let begin = dt.probe(1).expect("dtrace:::BEGIN is probe 1");
    /// assert_eq!(begin.to_string(), "dtrace:::BEGIN");
    /// # Ok(())
    /// # }
    /// ```
    pub fn probe(&self, id: u32) -> Option<&ProbeDesc> {
        self.probes.get(id).map(|p| &p.desc)
    }

    /// Every probe known so far, by ID (`dtrace -l`'s table); providers
    /// that make their probes on first need (fbt) add theirs with
    /// [`Dtrace::provide_all`] or when a description names them.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let dt = libdtrace::Dtrace::open()?;
    /// let syscalls = dt.probe_list().filter(|(_, d)| d.provider == "syscall").count();
    /// assert!(syscalls > 0);
    /// # Ok(())
    /// # }
    /// ```
    pub fn probe_list(&self) -> impl Iterator<Item = (u32, &ProbeDesc)> {
        self.probes.iter().map(|p| (p.id, &p.desc))
    }

    /// The arguments of probe `id`, with their types (`dtrace -lv`'s
    /// "Argument Types"); empty for a probe without typed arguments.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let desc = libdtrace::Dtrace::parse_desc("syscall::read:entry", libdtrace::SpecKind::Name)
    ///     .expect("a valid description");
    /// let id = dt.match_probes(&desc)[0];
    /// assert_eq!(dt.probe_args(id)[0].native, "int");
    /// # Ok(())
    /// # }
    /// ```
    pub fn probe_args(&self, id: u32) -> Vec<ArgDesc> {
        self.probes.args(id)
    }

    /// The stability attributes of probe `id`'s provider, part by part
    /// (`dtrace -lv` shows the lowest of the parts a description names,
    /// `Attributes::describe`), as its provider declares them.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let dt = libdtrace::Dtrace::open()?;
    /// let attrs = dt.probe_attributes(1).expect("BEGIN has attributes");
    /// assert_eq!(attrs.name, libdtrace::Attr::STABLE);
    /// # Ok(())
    /// # }
    /// ```
    pub fn probe_attributes(&self, id: u32) -> Option<Attributes> {
        self.probes.attributes(id)
    }

    /// Why no probe can match `desc`, when its provider can say (fbt on
    /// a kernel that refuses function tracing); `None` otherwise.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let desc = libdtrace::Dtrace::parse_desc("fbt::vfs_read:entry", libdtrace::SpecKind::Name)
    ///     .expect("a valid description");
    /// if dt.match_probes(&desc).is_empty() {
    ///     println!("no fbt: {:?}", dt.why_no_match(&desc));
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn why_no_match(&self, desc: &ProbeDesc) -> Option<String> {
        self.probes.why_not(desc)
    }

    /// Whether the programs compiled so far define providers (`provider
    /// name { probe ...; };`), for [`Dtrace::provider_header`].
    ///
    /// ```
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::offline();
    /// dt.compile("provider app { probe start(int); };", libdtrace::ProgramSource::File)?;
    /// assert!(dt.has_providers());
    /// # Ok(())
    /// # }
    /// ```
    pub fn has_providers(&self) -> bool {
        !self.providers.is_empty()
    }

    /// The C header `dtrace -h` writes for the providers defined so far:
    /// a macro per probe (`APP_START(arg0)`) and its is-enabled test
    /// (`APP_START_ENABLED()`). `file` is the header's name, for its
    /// include guard.
    ///
    /// ```
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::offline();
    /// dt.compile("provider app { probe start(int); };", libdtrace::ProgramSource::File)?;
    /// let h = dt.provider_header(Some("app.h"));
    /// assert!(h.contains("#define\tAPP_START(arg0)"), "{}", h);
    /// assert!(h.contains("APP_START_ENABLED()"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn provider_header(&self, file: Option<&str>) -> String {
        header::header(&self.providers, file)
    }

    /// The providers defined so far as Rust, for the `dtrace-usdt` crate
    /// (`dtrace -h -o probes.rs`): one `provider!` invocation per
    /// provider.
    ///
    /// ```
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::offline();
    /// dt.compile("provider app { probe start(int); };", libdtrace::ProgramSource::File)?;
    /// assert!(dt.provider_rust().contains("provider!"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn provider_rust(&self) -> String {
        header::rust_providers(&self.providers)
    }

    /// What `dtrace -G` writes: a relocatable ELF object with no code
    /// or data. Programs built with a `dtrace -h` header carry their
    /// probes' notes already, so the object only stands where the build
    /// expects one.
    ///
    /// ```
    /// let obj = libdtrace::Dtrace::provider_object();
    /// assert!(obj.starts_with(b"\x7fELF"));
    /// ```
    pub fn provider_object() -> Vec<u8> {
        header::empty_object()
    }

    /// Makes every provider's probes that are made only on first need
    /// (fbt's), so that they are listed.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// dt.provide_all();
    /// println!("{} probes", dt.probe_list().count());
    /// # Ok(())
    /// # }
    /// ```
    pub fn provide_all(&mut self) {
        self.probes.provide_all();
    }

    /// Makes the probe with ID `id` if a provider's fixed set has it and
    /// no description has made it yet: a probe's ID is the same in every
    /// run within a boot, so `dtrace -i ID` names what `dtrace -l`
    /// listed.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// dt.provide_id(1);
    /// assert_eq!(dt.probe(1).unwrap().to_string(), "dtrace:::BEGIN");
    /// # Ok(())
    /// # }
    /// ```
    pub fn provide_id(&mut self, id: u32) {
        self.probes.provide_id(id);
    }

    /// Leaves the probe table's memory to the process's exit (a consumer
    /// that has listed every fbt probe and is about to exit saves the
    /// time of freeing them one by one). The handle knows no probes
    /// after.
    pub fn leave_probes_to_exit(&mut self) {
        self.probes.leave_table_to_exit();
    }

    /// Probes matching a description (for listing), creating on-demand
    /// probes it names.
    ///
    /// ```
    /// use libdtrace::{Dtrace, SpecKind};
    /// let mut dt = Dtrace::offline();
    /// let desc = Dtrace::parse_desc("syscall::read*:entry", SpecKind::Name).unwrap();
    /// let ids = dt.match_probes(&desc);
    /// assert!(!ids.is_empty());
    /// assert!(ids.iter().all(|&id| dt.probe(id).unwrap().function.starts_with("read")));
    /// ```
    pub fn match_probes(&mut self, desc: &ProbeDesc) -> Vec<u32> {
        self.probes.lookup(desc)
    }

    /// Parses a description given to `-P`/`-m`/`-f`/`-n`.
    /// A probe description's `$name` macros (`pid$target`) replaced by
    /// their values, as compiling a program replaces them; unknown names
    /// are left as written.
    ///
    /// ```
    /// let dt = libdtrace::Dtrace::offline();
    /// let own = std::process::id();
    /// assert_eq!(dt.expand_desc("pid$pid:::entry"), format!("pid{}:::entry", own));
    /// assert_eq!(dt.expand_desc("pid$nosuch:::entry"), "pid$nosuch:::entry");
    /// ```
    pub fn expand_desc(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let len = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            match self.macros.named.iter().find(|(n, _)| n == &after[..len]) {
                Some((_, v)) if len > 0 => out.push_str(&v.to_string()),
                _ => out.push_str(&rest[at..at + 1 + len]),
            }
            rest = &after[len..];
        }
        out.push_str(rest);
        out
    }

    /// Parses a probe description given as `kind` (`-P`, `-m`, `-f`,
    /// `-n`), its fields placed from that position; the error is
    /// dtrace(1M)'s message.
    ///
    /// ```
    /// use libdtrace::{Dtrace, SpecKind};
    /// let d = Dtrace::parse_desc("syscall:vmlinux", SpecKind::Module).unwrap();
    /// assert_eq!((d.provider.as_str(), d.module.as_str()), ("syscall", "vmlinux"));
    /// assert_eq!(
    ///     Dtrace::parse_desc("a:b:c:d:e", SpecKind::Name).unwrap_err(),
    ///     "invalid probe description \"a:b:c:d:e\": Overspecified probe description"
    /// );
    /// ```
    pub fn parse_desc(text: &str, kind: SpecKind) -> Result<ProbeDesc, String> {
        let text = align_spec(text, kind).map_err(|_| overspecified(text))?;
        ProbeDesc::parse(&text).map_err(|e| match e {
            dtrace_lang::pdesc::PdescError::Overspecified => overspecified(&text),
            dtrace_lang::pdesc::PdescError::BadGlob => {
                format!("invalid probe description \"{}\"", text)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn description_macros_are_expanded_for_listing() {
        let mut dt = Dtrace::with_probes(Probes::builtin());
        dt.set_target(4321);
        assert_eq!(
            dt.expand_desc("pid$target:a.out::entry"),
            "pid4321:a.out::entry"
        );
        assert_eq!(dt.expand_desc("$target$target"), "43214321");
        // Unknown names, and a lone `$`, stay as written.
        assert_eq!(dt.expand_desc("x$nosuch:$:y$"), "x$nosuch:$:y$");
        assert_eq!(dt.expand_desc("syscall:::"), "syscall:::");
    }
}
