//! Uprobe places grouped for attachment. The user-level providers (pid,
//! usdt, plockstat) attach each group of places, one process, one file
//! and one kind of program, with one uprobe_multi link (or, where the
//! kernel has none, one uprobe each), every place's cookie saying which
//! of the group's probes it is: detaching a group is one wait, not one
//! per probe. Groups are kept in the order first seen, so that programs
//! are made and attached in the order the probes were enabled.

use std::path::{Path, PathBuf};

use dtrace_bpf::plan::ProbeEnabling;

use crate::attach::{UprobeMulti, UprobePerf};
use crate::{Attach, Enabled, ProbeTable};

/// The groups of a plan, found by process, file and kind.
pub(crate) struct Groups<K> {
    list: Vec<Group<K>>,
}

/// One group: its places (parallel lists of offsets in the file,
/// cookies and USDT semaphores) and the probes its program serves.
pub(crate) struct Group<K> {
    pub pid: u32,
    pub path: PathBuf,
    /// What else tells the group's programs apart (pid: entry, offset or
    /// return; usdt: the arguments' shape; plockstat: the hook).
    pub kind: K,
    pub probes: Vec<ProbeEnabling>,
    pub offsets: Vec<u64>,
    pub cookies: Vec<u64>,
    semaphores: Vec<u64>,
    /// Places the kernel would refuse, by cookie, and why.
    left_out: Vec<(u64, &'static str)>,
}

impl<K: PartialEq> Groups<K> {
    pub fn new() -> Self {
        Groups { list: Vec::new() }
    }

    /// The group of `pid`, `path` and `kind`, made if it is new.
    pub fn group(&mut self, pid: u32, path: &Path, kind: K) -> &mut Group<K> {
        let at = self
            .list
            .iter()
            .position(|g| g.pid == pid && g.path == path && g.kind == kind);
        let i = match at {
            Some(i) => i,
            None => {
                self.list.push(Group {
                    pid,
                    path: path.to_path_buf(),
                    kind,
                    probes: Vec::new(),
                    offsets: Vec::new(),
                    cookies: Vec::new(),
                    semaphores: Vec::new(),
                    left_out: Vec::new(),
                });
                self.list.len() - 1
            }
        };
        &mut self.list[i]
    }

    /// The groups, first seen first.
    pub fn into_vec(self) -> Vec<Group<K>> {
        self.list
    }
}

impl<K> Group<K> {
    /// The dispatch key of probe `e` in this group: the next one if the
    /// group does not serve it yet.
    pub fn probe(&mut self, table: &ProbeTable, e: &Enabled) -> u32 {
        match self.probes.iter().position(|x| x.probe.id == e.id) {
            Some(k) => k as u32,
            None => {
                let k = self.probes.len() as u32;
                self.probes.push(e.enabling(table, k));
                k
            }
        }
    }

    /// Whether the group has a place at `offset`.
    pub fn has(&self, offset: u64) -> bool {
        self.offsets.contains(&offset)
    }

    /// Adds a place: its offset in the file, its cookie, its semaphore
    /// (0: none), and the reason the kernel would refuse it, if one is
    /// known (it is then left out and reported). Two places at one
    /// offset are two uprobes (two functions of one address).
    pub fn place(
        &mut self,
        offset: u64,
        cookie: u64,
        semaphore: u64,
        refused: Option<&'static str>,
    ) {
        self.offsets.push(offset);
        self.cookies.push(cookie);
        self.semaphores.push(semaphore);
        if let Some(why) = refused {
            self.left_out.push((cookie, why));
        }
    }

    /// The index of the place at `offset`, added with its index as its
    /// cookie if it is new (a place per function, the cookie naming
    /// the function).
    pub fn place_index(&mut self, offset: u64) -> u32 {
        match self.offsets.iter().position(|&o| o == offset) {
            Some(i) => i as u32,
            None => {
                let i = self.offsets.len() as u64;
                self.place(offset, i, 0, None);
                i as u32
            }
        }
    }

    /// The attachment of the group's places: uretprobes if `ret`; one
    /// uprobe_multi link, or a perf event a place where the kernel has no
    /// such links (before Linux 6.6).
    pub fn attach(&mut self, ret: bool) -> Attach {
        let semaphores = std::mem::take(&mut self.semaphores);
        let places = UprobeMulti {
            path: self.path.clone(),
            offsets: std::mem::take(&mut self.offsets),
            cookies: std::mem::take(&mut self.cookies),
            ref_ctr_offsets: if semaphores.iter().any(|&s| s != 0) {
                semaphores
            } else {
                Vec::new()
            },
            left_out: std::mem::take(&mut self.left_out),
            ret,
            pid: self.pid,
        };
        if dtrace_sys::bpf::has_uprobe_multi() {
            Attach::new(places)
        } else {
            Attach::new(UprobePerf(places))
        }
    }
}
