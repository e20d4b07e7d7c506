//! Providers, on an interface in the image of DTrace's provider API
//! (`dtrace_pops_t`): each provider is one type implementing
//! [`Provider`] in a file of its own, registered in [`Probes`] (the
//! registry). A provider lists its probes when registered (`provide`) or
//! when a description names one (`provide_named`, as profile's `tick-N`),
//! describes each probe's arguments (`args`, DTrace's `getargdesc`), and
//! turns its enabled probes into BPF program plans and the kernel hooks
//! they attach to (`plan`, DTrace's `enable`; disabling is dropping the
//! attachment). Unregistering is dropping the registry.

#![forbid(unsafe_code)]

pub mod attach;
pub mod cpc;
pub mod dtrace;
pub mod fbt;
mod instructions;
pub mod ktext;
pub mod pid;
mod places;
pub mod plockstat;
pub mod profile;
pub mod sdt;
pub mod syscall;
mod syscalls;
pub mod table;
mod uobj;
pub mod usdt;

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;

use dtrace_bpf::plan::{
    ArgContext, DispatchKey, Phase, ProbeEnabling, ProbeIdentity, ProgKind, ProgramPlan,
};
use dtrace_lang::pdesc::ProbeDesc;
use dtrace_lang::{ArgTypes, ProbeArg, ProbeContext};

/// A probe of the table: its identity, and which provider owns it
/// (`provider`, an index into the registry) under which of that
/// provider's own numbers (`local`).
#[derive(Clone, Debug)]
pub struct Probe {
    pub id: u32,
    pub desc: ProbeDesc,
    pub provider: usize,
    pub local: u32,
}

/// An argument's description, for `dtrace -lv` and `args[]`.
///
/// ```
/// # use dtrace_providers::ArgDesc;
/// let a = ArgDesc::new("const char *", "path");
/// assert_eq!((a.native.as_str(), a.name.as_str()), ("const char *", "path"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgDesc {
    /// Its C type, as the provider spells it.
    pub native: String,
    /// Its name, where the provider has one (a system call's parameter).
    pub name: String,
    /// An address in the traced process (a system call's pointer
    /// arguments at entry).
    pub user: bool,
    /// The type `args[N]` has through a D library translator, if any
    /// (`psinfo_t *` for a `struct task_struct *`).
    pub xlate: Option<String>,
    /// The D library's one-parameter inline that computes the argument
    /// (of type `native`) from the probe's raw value, if any.
    pub via: Option<String>,
}

impl ArgDesc {
    /// An argument of C type `native`, named `name`, untranslated.
    ///
    /// ```
    /// # use dtrace_providers::ArgDesc;
    /// assert_eq!(ArgDesc::new("int", "fd").shown(), "int");
    /// ```
    pub fn new(native: impl Into<String>, name: impl Into<String>) -> ArgDesc {
        ArgDesc {
            native: native.into(),
            name: name.into(),
            user: false,
            xlate: None,
            via: None,
        }
    }

    /// The type `args[N]` has: the translated one, if any.
    ///
    /// ```
    /// # use dtrace_providers::ArgDesc;
    /// let mut a = ArgDesc::new("struct task_struct *", "");
    /// a.xlate = Some("psinfo_t *".into());
    /// assert_eq!(a.shown(), "psinfo_t *");
    /// ```
    pub fn shown(&self) -> &str {
        self.xlate.as_deref().unwrap_or(&self.native)
    }
}

/// A provider's stability attributes, part by part (DTrace's
/// `dtrace_pattr_t`): its name, its probes' modules, functions and
/// names, and their arguments. `dtrace -lv` shows a probe's description
/// attributes (the lowest of the parts it names) and its arguments'.
///
/// ```
/// # use dtrace_providers::{Attributes, attrs};
/// let a: Attributes = attrs::sdt_like(attrs::EVOLVING_ISA);
/// assert_eq!(a.name.to_string(), "Evolving/Evolving/ISA");
/// assert_eq!(a.module.to_string(), "Private/Private/Unknown");
/// ```
pub use dtrace_lang::attr::ProviderAttr as Attributes;
use dtrace_lang::attr::{Attr, DescAttr};

/// What `Probes::desc_attributes` finds of a description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DescInfo {
    /// It matches no probe.
    NoProbe,
    /// It matches several probes through a part their provider keeps
    /// stable: no one probe describes them (DTrace's EDT_UNSTABLE).
    Unstable,
    /// Its attributes, and the first probe it matches.
    Known(DescAttr, u32),
}

/// Attribute triples providers use, and the usual shape of a provider's.
pub mod attrs {
    use dtrace_lang::attr::{Attr, DepClass, ProviderAttr, Stability};

    pub const STABLE: Attr = Attr::STABLE;
    pub const EVOLVING: Attr = Attr::EVOLVING;
    pub const EVOLVING_ISA: Attr =
        Attr::new(Stability::Evolving, Stability::Evolving, DepClass::Isa);
    pub const UNSTABLE_UNKNOWN: Attr =
        Attr::new(Stability::Unstable, Stability::Unstable, DepClass::Unknown);
    pub const PRIVATE: Attr = Attr::PRIVATE;
    pub const PRIVATE_ISA: Attr = Attr::new(Stability::Private, Stability::Private, DepClass::Isa);

    /// A provider whose probes are the kernel's functions (fbt) or its
    /// system calls: Evolving names, Private modules, functions and
    /// arguments of the instruction set, as DTrace's fbt and syscall say.
    pub const KERNEL_FUNCTIONS: ProviderAttr = ProviderAttr {
        provider: EVOLVING,
        module: PRIVATE,
        function: PRIVATE_ISA,
        name: EVOLVING,
        args: PRIVATE_ISA,
    };

    /// A provider whose modules and functions are the kernel's own
    /// (Private/Private/Unknown, as DTrace's statically defined
    /// providers say), its names and arguments `attr`.
    pub const fn sdt_like(attr: Attr) -> ProviderAttr {
        ProviderAttr {
            provider: attr,
            module: PRIVATE,
            function: PRIVATE,
            name: attr,
            args: attr,
        }
    }
}

/// The probes of every provider, by id and by description.
///
/// A probe's id is the same in every run within a boot, whichever
/// descriptions made it: each provider with a fixed set of probes
/// (`Provider::id_span`) owns a range of ids, given in registration
/// order, and each of its probes the id at its place in that set (a
/// system call's by its number, a tracepoint's by its place in the
/// kernel's list). Probes made only on demand (a `tick-2s`, a
/// process's pid probes) take ids from a range kept for them after the
/// fixed ones, in the order they are made, as DTrace gives ids to
/// probes as they are created.
#[derive(Default)]
pub struct ProbeTable {
    /// The probes in the order they were made.
    list: Vec<Probe>,
    /// Each probe's place in `list`, by id.
    at: rustc_hash::FxHashMap<u32, u32>,
    /// The probes by the hash of their description (`desc_hash`): one
    /// more than the place of the newest with that hash; older ones
    /// follow in `same_hash`.
    by_desc: rustc_hash::FxHashMap<u64, u32>,
    /// For each probe (by place), one more than the place of the next
    /// probe whose description has the same hash, or 0.
    same_hash: Vec<u32>,
    /// The first id no range holds.
    next_base: u32,
    /// The next id for a probe made on demand, and the end of their
    /// range (0: not yet kept).
    dyn_next: u32,
    dyn_end: u32,
}

/// How many ids are kept for probes made on demand: more than
/// DTrace's pid provider makes by default (fasttrap's 250,000); past
/// them, such probes take ids after every range.
pub const DYNAMIC_IDS: u32 = 1 << 18;

/// FNV-1a over the four parts of a description, each ended by a NUL
/// (no part holds one), so that different splits hash apart.
fn desc_hash(parts: [&str; 4]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in p.as_bytes().iter().chain(std::iter::once(&0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

impl ProbeTable {
    pub fn get(&self, id: u32) -> Option<&Probe> {
        self.list.get(*self.at.get(&id)? as usize)
    }

    /// Keeps `span` ids from the first no range holds; returns the
    /// first (ids start at 1).
    fn keep(&mut self, span: u32) -> u32 {
        let base = self.next_base.max(1);
        self.next_base = base.saturating_add(span);
        base
    }

    /// Keeps the range of ids for probes made on demand, if it is not
    /// kept yet.
    pub fn keep_dynamic(&mut self) {
        if self.dyn_end == 0 {
            self.dyn_next = self.keep(DYNAMIC_IDS);
            self.dyn_end = self.dyn_next + DYNAMIC_IDS;
        }
    }

    /// The id for the next probe made on demand.
    fn dynamic_id(&mut self) -> u32 {
        self.keep_dynamic();
        if self.dyn_next < self.dyn_end {
            self.dyn_next += 1;
            self.dyn_next - 1
        } else {
            self.keep(1)
        }
    }

    /// The place in `list` of the probe described so, if there is one.
    fn find(&self, parts: [&str; 4], h: u64) -> Option<usize> {
        let mut at = self.by_desc.get(&h).copied().unwrap_or(0);
        while at != 0 {
            let d = &self.list.get(at as usize - 1)?.desc;
            if [
                d.provider.as_str(),
                d.module.as_str(),
                d.function.as_str(),
                d.name.as_str(),
            ] == parts
            {
                return Some(at as usize - 1);
            }
            at = self.same_hash.get(at as usize - 1).copied().unwrap_or(0);
        }
        None
    }

    /// The identity the BPF code gives a probe.
    pub fn identity(&self, id: u32) -> ProbeIdentity {
        let p = self.get(id).expect("enabled probes exist");
        ProbeIdentity {
            id,
            provider: p.desc.provider.to_string(),
            module: p.desc.module.to_string(),
            function: p.desc.function.to_string(),
            name: p.desc.name.to_string(),
        }
    }
}

/// Where a provider adds its probes: the table, and who is adding.
pub struct ProbeSink<'a> {
    table: &'a mut ProbeTable,
    provider: usize,
    name: String,
    /// The provider's range of ids: the first, and how many.
    base: u32,
    span: u32,
}

impl ProbeSink<'_> {
    /// Makes room for `more` probes (a provider that adds tens of
    /// thousands at once, fbt, says so first).
    pub fn reserve(&mut self, more: usize) {
        self.table.list.reserve(more);
        self.table.same_hash.reserve(more);
        self.table.by_desc.reserve(more);
        self.table.at.reserve(more);
    }

    /// Adds probe `local` of this provider as `name:module:function:probe`,
    /// made on demand (its id the next free one), returning its id (a
    /// probe already there keeps its id).
    pub fn add(&mut self, module: &str, function: &str, name: &str, local: u32) -> u32 {
        let provider = std::mem::take(&mut self.name);
        let id = self.add_as(&provider, module, function, name, local);
        self.name = provider;
        id
    }

    /// As `add`, for a probe of the provider's fixed set: its id is the
    /// `slot`th of the provider's range (`Provider::id_span`); one past
    /// the range is made as on demand.
    pub fn add_at(
        &mut self,
        slot: u32,
        module: &str,
        function: &str,
        name: &str,
        local: u32,
    ) -> u32 {
        let provider = std::mem::take(&mut self.name);
        let id = (slot < self.span).then(|| self.base + slot);
        let id = self.insert(&provider, module, function, name, local, id);
        self.name = provider;
        id
    }

    /// As `add`, under a provider name of its own: a provider of one
    /// name per process (`pid123`).
    pub fn add_as(
        &mut self,
        provider: &str,
        module: &str,
        function: &str,
        name: &str,
        local: u32,
    ) -> u32 {
        self.insert(provider, module, function, name, local, None)
    }

    fn insert(
        &mut self,
        provider: &str,
        module: &str,
        function: &str,
        name: &str,
        local: u32,
        id: Option<u32>,
    ) -> u32 {
        let parts = [provider, module, function, name];
        let h = desc_hash(parts);
        if let Some(at) = self.table.find(parts, h) {
            return self.table.list[at].id;
        }
        let id = match id {
            Some(id) if !self.table.at.contains_key(&id) => id,
            _ => self.table.dynamic_id(),
        };
        let at = self.table.list.len() as u32;
        self.table.list.push(Probe {
            id,
            desc: ProbeDesc::new(provider, module, function, name),
            provider: self.provider,
            local,
        });
        self.table.at.insert(id, at);
        // The newest first in its chain.
        let next = self.table.by_desc.insert(h, at + 1).unwrap_or(0);
        self.table.same_hash.push(next);
        id
    }

    /// True if the probe is already in the table.
    pub fn has(&self, module: &str, function: &str, name: &str) -> bool {
        self.has_as(&self.name, module, function, name)
    }

    /// As `has`, under another provider name (see `add_as`).
    pub fn has_as(&self, provider: &str, module: &str, function: &str, name: &str) -> bool {
        let parts = [provider, module, function, name];
        self.table.find(parts, desc_hash(parts)).is_some()
    }
}

/// An enabled probe handed to its provider: its id, its number in the
/// provider, and the (clause, EPID) pairs enabled on it.
#[derive(Clone, Debug)]
pub struct Enabled {
    pub id: u32,
    pub local: u32,
    pub clauses: Vec<(usize, u32)>,
}

impl Enabled {
    pub fn enabling(&self, table: &ProbeTable, key: u32) -> ProbeEnabling {
        ProbeEnabling {
            probe: table.identity(self.id),
            key,
            clauses: self.clauses.clone(),
        }
    }
}

/// A provider: DTrace's provider operations for this implementation.
pub trait Provider: Send {
    /// The provider's name (`syscall`).
    fn name(&self) -> &str;

    /// Stability of its probe descriptions and arguments.
    fn attributes(&self) -> Attributes {
        attrs::sdt_like(attrs::EVOLVING_ISA)
    }

    /// Stability of probe `local` (a provider whose probes differ: usdt,
    /// whose providers say theirs); by default the provider's.
    fn probe_attributes(&self, _local: u32) -> Attributes {
        self.attributes()
    }

    /// How many ids its fixed set of probes needs (asked once, when it
    /// is registered): probes added with `ProbeSink::add_at` take the
    /// ids of that range by their place in the set, so that a probe has
    /// the same id whichever probes were made before it. 0 (the
    /// default) for a provider whose probes are all made on demand.
    fn id_span(&mut self) -> u32 {
        0
    }

    /// Adds the probes it has from the start.
    fn provide(&mut self, sink: &mut ProbeSink<'_>);

    /// Creates the probes a description names, for providers whose
    /// probes are made on demand.
    fn provide_named(&mut self, _sink: &mut ProbeSink<'_>, _desc: &ProbeDesc) {}

    /// Probe `local`'s arguments, or None if they cannot be told.
    fn args(&self, local: u32) -> Option<Vec<ArgDesc>>;
    /// The conditions on its arguments a probe fires under, if its hook
    /// serves others too: D library one-parameter inlines, each applied
    /// to an `argN`, that must all be nonzero (the tcp provider's `send`
    /// is a packet leaving whose protocol is TCP). libdtrace compiles
    /// them into `ProgramPlan::guard`.
    fn guard(&self, _local: u32) -> Vec<(String, u8)> {
        Vec::new()
    }

    /// Programs for its enabled probes (into `out`).
    fn plan(&self, table: &ProbeTable, enabled: &[Enabled], out: &mut Planned) -> io::Result<()>;

    /// An option was set (`-x`, `#pragma D option`): a provider with a
    /// tunable of its own takes its value (cpc's `cpcminoverflow`).
    fn tune(&mut self, _option: &str, _value: i64) {}

    /// Process `pid` is traced (`-p`, or `-c` with `held`, the
    /// executable of a command created and held before its exec): a
    /// provider of user-level probes works out what it maps, or will map
    /// from the file (pid, usdt).
    fn target(&mut self, _pid: u32, _held: Option<&std::path::Path>) {}

    /// Makes the probes listing every probe shows (`dtrace -l`): by
    /// default those a description naming the provider (`NAME:::`) makes.
    fn provide_all(&mut self, sink: &mut ProbeSink<'_>) {
        if let Ok(d) = ProbeDesc::parse(&format!("{}:::", self.name())) {
            self.provide_named(sink, &d);
        }
    }

    /// `desc` as this provider names the probes it means, where it uses
    /// another name for them (pid: the executable's file name for
    /// `a.out`); `None` when it is already so, or not this provider's.
    fn canonical(&mut self, _desc: &ProbeDesc) -> Option<ProbeDesc> {
        None
    }

    /// Why the provider has no probes here, if it has none.
    fn unavailable(&self) -> Option<String> {
        None
    }

    /// Why a description of this provider matches nothing (a name it
    /// refuses, or no probes at all).
    fn why_not(&self, _desc: &ProbeDesc) -> Option<String> {
        self.unavailable()
    }

    /// An error found making a description's probes (`provide_named`),
    /// which fails the program whatever else it matches, as DTrace's
    /// `dt_pid_error` fails it: a pid offset that is not on an
    /// instruction.
    fn desc_error(&self, _desc: &ProbeDesc) -> Option<DescError> {
        None
    }
}

/// An error in a probe description that its provider found making its
/// probes: DTrace's tag and message (`[D_PROC_ALIGN] offset 0x2 is not
/// aligned on an instruction`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescError {
    pub tag: dtrace_lang::error::Tag,
    pub message: String,
}

impl DescError {
    pub fn new(tag: dtrace_lang::error::Tag, message: String) -> DescError {
        DescError { tag, message }
    }
}

/// The registry: every provider, and the table of their probes.
pub struct Probes {
    providers: Vec<Box<dyn Provider>>,
    /// Each provider's range of ids (first, how many).
    ranges: Vec<(u32, u32)>,
    table: ProbeTable,
    tracefs: Option<PathBuf>,
}

/// Where provider `i` (of `ranges`) adds its probes.
fn sink<'a>(
    table: &'a mut ProbeTable,
    ranges: &[(u32, u32)],
    i: usize,
    name: &str,
) -> ProbeSink<'a> {
    let (base, span) = ranges.get(i).copied().unwrap_or((0, 0));
    ProbeSink {
        table,
        provider: i,
        name: name.to_string(),
        base,
        span,
    }
}

impl ProbeContext for Probes {
    fn arg_types(&mut self, desc: &ProbeDesc) -> ArgTypes {
        self.desc_arg_types(desc)
    }
}

impl Probes {
    fn empty() -> Probes {
        Probes {
            providers: Vec::new(),
            ranges: Vec::new(),
            table: ProbeTable::default(),
            tracefs: None,
        }
    }

    /// Leaves the probe table to the process's exit rather than freeing
    /// it here, probe by probe: the table is memory only (nothing of it
    /// is in the kernel), and with every fbt probe in it (70,000 and
    /// more) freeing it is a twentieth of `dtrace -l`'s time. For a
    /// consumer about to exit; the table is empty after.
    pub fn leave_table_to_exit(&mut self) {
        std::mem::forget(std::mem::take(&mut self.table));
    }

    /// Lets every provider make the probes it makes only when a
    /// description names its provider (`NAME:::`): what listing every
    /// probe shows.
    pub fn provide_all(&mut self) {
        for (i, p) in self.providers.iter_mut().enumerate() {
            p.provide_all(&mut sink(&mut self.table, &self.ranges, i, p.name()));
        }
    }

    /// Makes the probe with id `id`, if it is one of a provider's fixed
    /// set (`dtrace -i ID` of a probe no description has made yet).
    pub fn provide_id(&mut self, id: u32) {
        if self.table.get(id).is_some() {
            return;
        }
        let owner = self
            .ranges
            .iter()
            .position(|&(base, span)| id >= base && id - base < span);
        if let Some(i) = owner {
            let p = &mut self.providers[i];
            p.provide_all(&mut sink(&mut self.table, &self.ranges, i, p.name()));
        }
    }

    /// Tells every provider of a traced process (`Provider::target`).
    pub fn target(&mut self, pid: u32, held: Option<&std::path::Path>) {
        for p in &mut self.providers {
            p.target(pid, held);
        }
    }

    /// Passes an option's value to every provider (`Provider::tune`).
    pub fn tune(&mut self, option: &str, value: i64) {
        for p in &mut self.providers {
            p.tune(option, value);
        }
    }

    /// The options providers take (`Provider::tune`): set by a pragma,
    /// they take effect before the program's probes are matched.
    pub const TUNABLES: &'static [&'static str] = &[cpc::MIN_OVERFLOW_OPTION];

    /// Registers a provider and lets it add its probes.
    pub fn register(&mut self, mut p: Box<dyn Provider>) {
        let span = p.id_span();
        let base = if span > 0 { self.table.keep(span) } else { 0 };
        self.ranges.push((base, span));
        let i = self.providers.len();
        p.provide(&mut sink(&mut self.table, &self.ranges, i, p.name()));
        self.providers.push(p);
    }

    /// The providers that need no kernel discovery: dtrace and profile.
    pub fn builtin() -> Probes {
        let mut p = Probes::empty();
        p.register(Box::new(dtrace::Dtrace));
        p.register(Box::new(profile::Profile::default()));
        p.register(Box::new(cpc::Cpc::default()));
        p
    }

    /// The built-in probes plus entry and return probes for the given
    /// system calls (name, x86-64 number), with no kernel: for the code
    /// generator's snapshot tests and the fuzz driver's offline path.
    pub fn with_syscalls(calls: &[(&str, u32)]) -> Probes {
        let mut p = Probes::builtin();
        p.register(Box::new(syscall::Syscall::fixed(calls)));
        p
    }

    /// Discovers the probes of every provider on this system.
    pub fn discover() -> Probes {
        // The order gives the ranges of ids: the providers with fixed
        // sets of probes, the small ones first; the ids of probes made
        // on demand; fbt's, the largest; the providers made on demand.
        let mut p = Probes::builtin();
        // Raw tracepoints need no tracefs.
        for (file, text) in table::TABLES {
            // The shipped tables parse (a unit test says so).
            if let Ok(t) = table::TableProvider::parse(file, text) {
                p.register(Box::new(t));
            }
        }
        match dtrace_sys::tracefs::root() {
            Ok(root) => {
                p.register(Box::new(syscall::Syscall::discover(&root)));
                p.register(Box::new(sdt::Sdt::discover(&root)));
                p.tracefs = Some(root);
            }
            Err(e) => {
                let why = format!("tracefs is not available: {}", e);
                p.register(Box::new(syscall::Syscall::unavailable(why.clone())));
                p.register(Box::new(sdt::Sdt::unavailable(why)));
            }
        }
        p.table.keep_dynamic();
        p.register(Box::new(fbt::Fbt::discover()));
        p.register(Box::new(pid::Pid::default()));
        p.register(Box::new(usdt::Usdt::default()));
        p.register(Box::new(plockstat::Plockstat::default()));
        p
    }

    pub fn get(&self, id: u32) -> Option<&Probe> {
        self.table.get(id)
    }

    /// Every probe made, by id.
    pub fn iter(&self) -> impl Iterator<Item = &Probe> {
        let mut all: Vec<&Probe> = self.table.list.iter().collect();
        all.sort_unstable_by_key(|p| p.id);
        all.into_iter()
    }

    pub fn table(&self) -> &ProbeTable {
        &self.table
    }

    pub fn tracefs(&self) -> Option<&PathBuf> {
        self.tracefs.as_ref()
    }

    /// Why a description matching nothing does not, if its provider
    /// can tell (it has no probes here, or refuses the name).
    pub fn why_not(&self, desc: &ProbeDesc) -> Option<String> {
        self.providers
            .iter()
            .find(|p| p.name() == desc.provider)
            .and_then(|p| p.why_not(desc))
    }

    /// The error a provider found making the probes of `desc` (see
    /// `Provider::desc_error`), asked after `lookup`.
    pub fn desc_error(&mut self, desc: &ProbeDesc) -> Option<DescError> {
        let canonical = self.providers.iter_mut().find_map(|p| p.canonical(desc));
        let desc = canonical.as_ref().unwrap_or(desc);
        self.providers.iter().find_map(|p| p.desc_error(desc))
    }

    /// The ids of the probes a description matches, creating on-demand
    /// probes (profile-N, tick-N) it names exactly.
    pub fn lookup(&mut self, pat: &ProbeDesc) -> Vec<u32> {
        let canonical = self.provide_for(pat);
        let pat = canonical.as_ref().unwrap_or(pat);
        let mut ids: Vec<u32> = self
            .table
            .list
            .iter()
            .filter(|p| pat.matches(&p.desc))
            .map(|p| p.id)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// Makes the probes `pat` may name (providers that make theirs on
    /// demand), and returns the description to match them with: a
    /// description in another name for the same probes (pid's executable
    /// by its file name) is matched as its provider names them.
    fn provide_for(&mut self, pat: &ProbeDesc) -> Option<ProbeDesc> {
        let canonical = self.providers.iter_mut().find_map(|p| p.canonical(pat));
        let named = canonical.as_ref().unwrap_or(pat);
        for (i, p) in self.providers.iter_mut().enumerate() {
            p.provide_named(&mut sink(&mut self.table, &self.ranges, i, p.name()), named);
        }
        canonical
    }

    /// The first probe `pat` matches, in the order probes were made, and
    /// whether another matches too: all `dtrace_probe_info` needs, found
    /// without walking every probe of a glob.
    fn first_match(&mut self, pat: &ProbeDesc) -> (Option<u32>, bool) {
        let canonical = self.provide_for(pat);
        let pat = canonical.as_ref().unwrap_or(pat);
        let mut matching = self.table.list.iter().filter(|p| pat.matches(&p.desc));
        let first = matching.next().map(|p| p.id);
        (first, matching.next().is_some())
    }

    /// Argument descriptions of a probe (none if they cannot be told).
    pub fn args(&self, id: u32) -> Vec<ArgDesc> {
        self.read_args(id).unwrap_or_default()
    }

    fn read_args(&self, id: u32) -> Option<Vec<ArgDesc>> {
        let p = self.get(id)?;
        self.providers.get(p.provider)?.args(p.local)
    }

    /// A probe's condition on its arguments (see `Provider::guard`).
    pub fn probe_guard(&self, id: u32) -> Vec<(String, u8)> {
        let Some(p) = self.get(id) else {
            return Vec::new();
        };
        self.providers
            .get(p.provider)
            .map(|x| x.guard(p.local))
            .unwrap_or_default()
    }

    /// A probe's stability attributes.
    pub fn attributes(&self, id: u32) -> Option<Attributes> {
        let p = self.get(id)?;
        Some(self.providers.get(p.provider)?.probe_attributes(p.local))
    }

    /// A probe's arguments as the checker sees them (`args[]`), or None
    /// if its provider cannot tell (system calls without tracefs).
    pub fn probe_arg_types(&self, id: u32) -> Option<Vec<ProbeArg>> {
        Some(
            self.read_args(id)?
                .into_iter()
                .map(|a| match (a.xlate, a.via) {
                    (Some(x), _) => ProbeArg::translated(a.native, x),
                    (None, Some(f)) => ProbeArg::computed(a.native, f),
                    (None, None) => ProbeArg::new(a.native, a.user),
                })
                .collect(),
        )
    }

    /// The stability attributes of description `desc` as a clause sees
    /// them (`dtrace_probe_info`): from the provider of the first probe
    /// it matches, the lowest of the parts it names exactly; Unstable if
    /// it matches nothing, names no provider exactly, or matches several
    /// probes through a part the provider keeps stable (their arguments
    /// may differ): then `Unstable`, as `dtrace_probe_info` fails. With
    /// it, the first probe matched (whose arguments `dtrace -ev` shows).
    pub fn desc_attributes(&mut self, desc: &ProbeDesc) -> DescInfo {
        use dtrace_lang::attr::Stability;
        use dtrace_lang::pdesc::has_glob;
        let (first, more) = self.first_match(desc);
        let Some(id) = first else {
            return DescInfo::NoProbe;
        };
        let Some(pap) = self.attributes(id) else {
            return DescInfo::NoProbe;
        };
        let glob = |s: &str| s.is_empty() || has_glob(s);
        let p_glob = glob(&desc.provider);
        if more
            && ((pap.args.data < Stability::Evolving && p_glob)
                || (pap.module.name >= Stability::Evolving && glob(&desc.module))
                || (pap.function.name >= Stability::Evolving && glob(&desc.function))
                || (pap.name.name >= Stability::Evolving && glob(&desc.name)))
        {
            return DescInfo::Unstable;
        }
        let attr = DescAttr {
            desc: pap.describe(desc),
            args: if p_glob { Attr::UNSTABLE } else { pap.args },
            parts: pap,
        };
        DescInfo::Known(attr, id)
    }

    /// What the probes a description matches declare of their arguments
    /// (see `dtrace_lang::ProbeContext`): `Unstable` if none matches or
    /// two declare different arguments, `Unknown` if one cannot tell.
    pub fn desc_arg_types(&mut self, desc: &ProbeDesc) -> ArgTypes {
        let ids = self.lookup(desc);
        if ids.is_empty() {
            return ArgTypes::Unstable;
        }
        let mut first: Option<Vec<ProbeArg>> = None;
        for id in ids {
            let Some(args) = self.probe_arg_types(id) else {
                return ArgTypes::Unknown;
            };
            match &first {
                None => first = Some(args),
                Some(f) if *f != args => return ArgTypes::Unstable,
                Some(_) => {}
            }
        }
        ArgTypes::Known(first.unwrap_or_default())
    }
}

/// The files of a process's objects (see `Provider::target`): those it
/// maps, or for a command held before its exec, its executable and the
/// libraries it will load.
pub fn process_files(pid: u32, held: Option<&std::path::Path>) -> Vec<PathBuf> {
    uobj::objects_of(pid, held)
        .into_iter()
        .map(|o| o.path)
        .collect()
}

/// The places of USDT probe `provider`:`name` in an ELF file (its
/// `stapsdt` notes, `__` in names as written): each place's file offset
/// and its semaphore's (0 for none). For a tool that attaches to them
/// itself (the benchmark's floor).
pub fn usdt_places(path: &std::path::Path, provider: &str, name: &str) -> Vec<(u64, u64)> {
    uobj::read_notes(path)
        .into_iter()
        .filter(|n| n.provider == provider && n.name == name)
        .map(|n| (n.offset, n.semaphore.unwrap_or(0)))
        .collect()
}

pub use attach::{Attach, AttachKind, LeftOut, UNSTEPPABLE};

#[derive(Clone, Debug)]
pub struct PlannedProgram {
    pub plan: ProgramPlan,
    pub attach: Attach,
}

/// An enabled probe: the probe, the clause (index into the consumer's
/// clause list) and the EPID of the pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Enabling {
    pub probe: u32,
    pub clause: usize,
    pub epid: u32,
}

/// The result of planning: programs to build and the ERROR clauses every
/// program runs after a fault.
pub struct Planned {
    pub programs: Vec<PlannedProgram>,
    pub error_clauses: Vec<(usize, u32)>,
}

impl Planned {
    /// Drops the programs that run clauses deferred from a system call's
    /// entry (`dtrace_bpf::program::defer`) when none of their clauses
    /// can be deferred (`reads_user` says which clause reads user
    /// memory).
    pub fn drop_idle_deferred(&mut self, reads_user: impl Fn(usize) -> bool) {
        self.programs.retain(|p| match &p.plan.context {
            ArgContext::Hook(h) if h.0.runs_deferred() => p
                .plan
                .probes
                .iter()
                .flat_map(|e| &e.clauses)
                .any(|&(ci, _)| reads_user(ci)),
            _ => true,
        });
    }
}

/// Enablings of more syscalls than this share one raw tracepoint program
/// that dispatches on the syscall number, instead of one tracepoint each.
/// It is 0: the raw `sys_enter`/`sys_exit` hook with a test of the number
/// costs less per call than the perf-event tracepoint of one syscall
/// (+83 ns against +137 measured here), and its detachment waits for no
/// grace period, where closing a perf-event tracepoint waits for one.
/// Only a syscall the table has no number for takes a tracepoint.
pub const SYSCALL_DISPATCH_THRESHOLD: usize = 0;

/// Groups enablings into programs: each provider plans its own.
pub fn plan(probes: &Probes, enablings: &[Enabling]) -> io::Result<Planned> {
    let mut by_probe: BTreeMap<u32, Vec<(usize, u32)>> = BTreeMap::new();
    for e in enablings {
        by_probe
            .entry(e.probe)
            .or_default()
            .push((e.clause, e.epid));
    }
    let mut by_provider: BTreeMap<usize, Vec<Enabled>> = BTreeMap::new();
    for (&id, clauses) in &by_probe {
        let p = probes
            .get(id)
            .ok_or_else(|| io::Error::other("unknown probe"))?;
        by_provider.entry(p.provider).or_default().push(Enabled {
            id,
            local: p.local,
            clauses: clauses.clone(),
        });
    }
    let mut out = Planned {
        programs: Vec::new(),
        error_clauses: Vec::new(),
    };
    for (prov, enabled) in by_provider {
        if let Some(p) = probes.providers.get(prov) {
            p.plan(&probes.table, &enabled, &mut out)?;
        }
    }
    if !dtrace_sys::features::Features::get().attach_cookie {
        out.programs = out.programs.into_iter().flat_map(by_place).collect();
    }
    out.error_clauses.sort();
    Ok(out)
}

/// Where the kernel has no attach cookies (before 5.15), a program
/// attached at many places, which would tell them apart by cookie, is
/// one program for each place instead, with that place's cookie as a
/// constant; a program that dispatches on the cookie alone keeps the
/// one probe of its place.
fn by_place(pp: PlannedProgram) -> Vec<PlannedProgram> {
    let Some(places) = pp.attach.places() else {
        return vec![pp];
    };
    places
        .into_iter()
        .filter_map(|(cookie, attach)| {
            let mut plan = pp.plan.clone();
            if plan.dispatch == Some(DispatchKey::Cookie) {
                let key = cookie as u32;
                plan.probes.retain(|e| e.key == key);
                if plan.probes.is_empty() {
                    return None;
                }
            }
            plan.cookie = Some(cookie);
            Some(PlannedProgram { plan, attach })
        })
        .collect()
}

/// True if `pat` names exactly one probe of `provider` with no module
/// and function (`profile:::tick-1s`, `cpc:::cpu_clock-all-100000`): the
/// descriptions on-demand probes are made from.
pub(crate) fn names_one_probe(pat: &ProbeDesc, provider: &str) -> bool {
    pat.is_exact()
        && dtrace_lang::pdesc::field_matches(&pat.provider, provider)
        && pat.module.is_empty()
        && pat.function.is_empty()
}

/// A plan with one program serving one enabled probe.
pub(crate) fn single(
    name: &str,
    kind: ProgKind,
    context: ArgContext,
    phase: Phase,
    enabling: ProbeEnabling,
    tick_gate: Option<u64>,
) -> ProgramPlan {
    ProgramPlan {
        name: name.to_string(),
        kind,
        context,
        phase,
        probes: vec![enabling],
        dispatch: None,
        tick_gate,
        guard: None,
        cookie: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_are_found_by_their_whole_description() {
        let mut table = ProbeTable::default();
        let mut sink = sink(&mut table, &[], 0, "p");
        let a = sink.add("m", "ab", "c", 0);
        // The same parts split otherwise are another probe.
        let b = sink.add("m", "a", "bc", 1);
        assert_ne!(a, b);
        assert_eq!(sink.add("m", "ab", "c", 2), a);
        assert!(sink.has("m", "a", "bc"));
        assert!(!sink.has("m", "abc", ""));
        // Thousands of probes, each found again under its own id.
        let ids: Vec<u32> = (0..5000)
            .map(|i| sink.add("mod", &format!("f{}", i % 97), &format!("n{}", i), i))
            .collect();
        for (i, &id) in ids.iter().enumerate() {
            assert_eq!(
                sink.add("mod", &format!("f{}", i % 97), &format!("n{}", i), 0),
                id
            );
        }
        assert_eq!(table.get(b).map(|p| p.desc.function.as_str()), Some("a"));
    }

    fn desc(text: &str) -> ProbeDesc {
        ProbeDesc::parse(text).expect("valid description")
    }

    #[test]
    fn a_probe_has_one_id_whatever_was_made_before_it() {
        let calls = [("read", 0), ("write", 1), ("openat", 257), ("close", 3)];
        let id_of = |p: &mut Probes, d: &str| p.lookup(&desc(d)).first().copied();
        // Asked alone, after other calls and a tick, or listed with all.
        let mut alone = Probes::with_syscalls(&calls);
        let openat = id_of(&mut alone, "syscall::openat:return");
        let mut after = Probes::with_syscalls(&calls);
        id_of(&mut after, "tick-2s");
        id_of(&mut after, "syscall::close:entry");
        assert_eq!(id_of(&mut after, "syscall::openat:return"), openat);
        let mut all = Probes::with_syscalls(&calls);
        all.provide_all();
        assert_eq!(id_of(&mut all, "syscall::openat:return"), openat);
        // BEGIN, END and ERROR are 1, 2 and 3; a call's ids follow its
        // number; a probe made on demand comes after every fixed one.
        assert_eq!(id_of(&mut all, "dtrace:::ERROR"), Some(3));
        let read = id_of(&mut all, "syscall::read:entry").unwrap();
        assert_eq!(id_of(&mut all, "syscall::write:entry"), Some(read + 2));
        assert_eq!(openat, Some(read + 2 * 257 + 1));
        let tick = id_of(&mut all, "tick-2s").unwrap();
        assert!(tick > openat.unwrap());
        // An id of a fixed set is found by asking for it.
        let mut fresh = Probes::with_syscalls(&calls);
        fresh.provide_id(read + 1);
        assert_eq!(
            fresh.get(read + 1).map(|p| p.desc.to_string()).as_deref(),
            Some("syscall:vmlinux:read:return")
        );
        // Listing is by id.
        let ids: Vec<u32> = all.iter().map(|p| p.id).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn descriptions_say_what_their_probes_declare() {
        let mut p = Probes::with_syscalls(&[("read", 0), ("openat", 257)]);
        let known =
            |v: &[&str]| ArgTypes::Known(v.iter().map(|t| ProbeArg::new(*t, false)).collect());
        assert_eq!(p.desc_arg_types(&desc("BEGIN")), known(&[]));
        assert_eq!(
            p.desc_arg_types(&desc("profile-97")),
            known(&["uintptr_t", "uintptr_t"])
        );
        // BEGIN has none, ERROR six: no one set of types.
        assert_eq!(p.desc_arg_types(&desc("dtrace:::")), ArgTypes::Unstable);
        assert_eq!(p.desc_arg_types(&desc(":::END")), known(&[]));
        // Without tracefs a system call's arguments are unknown.
        assert_eq!(
            p.desc_arg_types(&desc("syscall::read:entry")),
            ArgTypes::Unknown
        );
        // Nothing matched: args[] cannot be used (only reached with zdefs).
        assert_eq!(p.desc_arg_types(&desc("nosuch:::")), ArgTypes::Unstable);
    }

    /// A tracefs of a few events, in a directory of its own.
    fn fake_tracefs(tag: &str) -> std::path::PathBuf {
        let root = std::env::temp_dir().join(format!("dt-tracefs-{}-{}", tag, std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for e in [
            "sys_enter_getpid",
            "sys_exit_getpid",
            "sys_enter_read",
            "sys_exit_read",
        ] {
            std::fs::create_dir_all(root.join("events/syscalls").join(e)).expect("mkdir");
        }
        std::fs::write(
            root.join("available_events"),
            "sched:sched_switch\nsched:sched_wakeup\nirq:irq_handler_entry\nsyscalls:sys_enter_read\n",
        )
        .expect("write");
        root
    }

    fn names(p: &Probes) -> Vec<String> {
        p.iter()
            .filter(|x| x.desc.provider == "syscall" || x.desc.provider == "sdt")
            .map(|x| x.desc.to_string())
            .collect()
    }

    #[test]
    fn tracefs_probes_are_made_as_descriptions_name_them() {
        let root = fake_tracefs("lazy");
        let mut p = Probes::builtin();
        p.register(Box::new(syscall::Syscall::discover(&root)));
        p.register(Box::new(sdt::Sdt::discover(&root)));
        // Nothing is read before a description asks.
        assert!(names(&p).is_empty());
        // One call: its two probes alone; no tracepoint list read (a
        // description naming a function cannot be an sdt probe).
        assert_eq!(p.lookup(&desc("syscall::getpid:entry")).len(), 1);
        assert_eq!(
            names(&p),
            [
                "syscall:vmlinux:getpid:entry",
                "syscall:vmlinux:getpid:return"
            ]
        );
        // A bare name that neither a system call nor a tracepoint has.
        assert!(p.lookup(&desc("BEGIN")).len() == 1);
        assert_eq!(names(&p).len(), 2);
        // A call the kernel has no tracepoint for.
        assert!(p.lookup(&desc("syscall::nosuch:entry")).is_empty());
        // Tracepoints: only those matched are made.
        assert_eq!(p.lookup(&desc("sdt:sched::sched_switch")).len(), 1);
        assert_eq!(names(&p).len(), 3);
        // A description that could name any call lists them all, once.
        assert_eq!(p.lookup(&desc("syscall:::entry")).len(), 2);
        assert_eq!(p.lookup(&desc("syscall:::")).len(), 4);
        assert_eq!(p.lookup(&desc("sdt:::")).len(), 3);
        assert_eq!(names(&p).len(), 7);
        let _ = std::fs::remove_dir_all(&root);
    }
}
