//! What the running kernel's BPF can do, probed once: the code generator
//! and the providers choose the best mechanism each kernel offers from
//! this (docs/KERNELS.md says which), and the kernel matrix's runner
//! reads it to know which tests a kernel cannot pass.
//!
//! Most facts come from the kernel's own BTF, which names every helper
//! (`enum bpf_func_id`), map type (`enum bpf_map_type`), link type and
//! kfunc it has; what BTF cannot say (the atomic instructions) is learnt
//! by loading a four-instruction program.

use std::sync::OnceLock;

use crate::btf::{Btf, Kind};

/// The kernel's BPF features that dtrace chooses between.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// The kernel release (`uname -r`).
    pub release: String,
    /// The kernel's BTF (`/sys/kernel/btf/vmlinux`): typed kernel data,
    /// fentry/fexit, kfuncs.
    pub btf: bool,
    /// BTF for modules (`/sys/kernel/btf/<module>`, Linux 5.11).
    pub module_btf: bool,
    /// The kernel's per-CPU variables in its BTF (VARs of the
    /// `.data..percpu` section, pahole 1.18), which types them for D.
    pub btf_vars: bool,
    /// `BPF_MAP_TYPE_RINGBUF` (Linux 5.8).
    pub ringbuf: bool,
    /// Atomic fetch and compare-and-exchange instructions (Linux 5.12);
    /// without them dtrace emulates compare-and-exchange with a lock
    /// taken by a map insertion.
    pub atomics: bool,
    /// The cpu v4 instructions: sign-extending moves and loads, signed
    /// division and modulo (Linux 6.6).
    pub cpu_v4: bool,
    /// `gotol`, the jump of 32-bit reach (Linux 6.4).
    pub long_jumps: bool,
    /// `bpf_strncmp` (Linux 5.17).
    pub strncmp: bool,
    /// `bpf_get_current_task_btf` (Linux 5.11).
    pub task_btf: bool,
    /// `bpf_task_pt_regs` (Linux 5.15).
    pub task_pt_regs: bool,
    /// The BPF memory allocator (Linux 6.1): programs in NMI context
    /// (perf events) may use hash maps that are not preallocated.
    pub mem_alloc: bool,
    /// `bpf_get_attach_cookie` (Linux 5.15).
    pub attach_cookie: bool,
    /// `bpf_get_func_ip` (Linux 5.15).
    pub func_ip: bool,
    /// `bpf_loop` (Linux 5.17).
    pub bpf_loop: bool,
    /// The open-coded number iterator, `bpf_iter_num_*` kfuncs (Linux 6.4).
    pub iter_num: bool,
    /// kprobe_multi links (Linux 5.18, with `CONFIG_FPROBE`).
    pub kprobe_multi: bool,
    /// uprobe_multi links (Linux 6.6).
    pub uprobe_multi: bool,
    /// Sleepable uprobe programs (Linux 6.0), with task storage (5.11):
    /// a pid or USDT probe's program may fault a page of user memory in
    /// (`bpf_copy_from_user`). Learnt by loading a sleepable program;
    /// false when `DTRACE_NO_SLEEPABLE` is set, to run the other path.
    pub sleepable_uprobes: bool,
    /// BPF links for perf events (Linux 5.15); before, a program is set
    /// on a perf event with an ioctl.
    pub perf_link: bool,
    /// The lock contention tracepoints, `lock:contention_begin` and
    /// `_end` (Linux 5.19), which lockstat's blocking probes use.
    pub lock_tracepoints: bool,
    /// The scheduler's bare tracepoints `sched_exit_tp` and
    /// `sched_set_need_resched_tp` (recent kernels), which sched's
    /// `remain-cpu` and `surrender` use.
    pub sched_bare_tracepoints: bool,
    /// `sched_process_exit` tells whether the exiting thread is its
    /// process's last (`group_dead`, recent kernels; 6.12 has not).
    pub exit_group_dead: bool,
    /// `tcp_send_reset` fires for a reset sent without a socket (a
    /// refused connection), with the reset's reason (Linux 6.10).
    pub tcp_reset_nosock: bool,
    /// `bpf_probe_write_user` (absent under lockdown).
    pub probe_write_user: bool,
    /// The kernel is locked down (`/sys/kernel/security/lockdown` names
    /// integrity or confidentiality): no kprobes, no fentry, no writes to
    /// user memory.
    pub lockdown: bool,
}

impl Features {
    /// The running kernel's features, probed on first use.
    pub fn get() -> &'static Features {
        static F: OnceLock<Features> = OnceLock::new();
        F.get_or_init(Features::probe)
    }

    fn probe() -> Features {
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| s.trim().to_string())
            .unwrap_or_default();
        let lockdown = locked_down();
        let module_btf = std::fs::read_dir("/sys/kernel/btf")
            .map(|d| d.flatten().any(|e| e.file_name() != "vmlinux"))
            .unwrap_or(false);
        // The test knobs change what is probed: a run with one neither
        // reads nor writes the boot's record.
        let knobs = KNOBS.iter().any(|k| std::env::var_os(k).is_some());
        let record = (!knobs).then(cache::Record::here).flatten();
        let mut f = match record.as_ref().and_then(|r| r.load()) {
            Some(f) => f,
            None => {
                let f = Features::probe_kernel();
                if let Some(r) = &record {
                    r.store(&f);
                }
                f
            }
        };
        // What may change within a boot is read each time: lockdown
        // only tightens, and modules come and go.
        f.release = release;
        f.module_btf = module_btf;
        f.lockdown = lockdown;
        f.probe_write_user &= !lockdown;
        f
    }

    /// The facts that stay the same for a boot, probed: from the
    /// kernel's BTF and by loading small programs. `release`,
    /// `module_btf` and `lockdown` are left to `probe`, and
    /// `probe_write_user` says whether the kernel has the helper.
    fn probe_kernel() -> Features {
        let old = std::env::var_os("DTRACE_OLD_BPF").is_some();
        let atomics = !old && probe_load(&CMPXCHG);
        let cpu_v4 = !old && probe_load(&SDIV);
        let long_jumps = !old && probe_load(&GOTOL);
        let Ok(btf) = Btf::vmlinux() else {
            return Features {
                atomics,
                cpu_v4,
                long_jumps,
                ..Default::default()
            };
        };
        // The paths of kernels before 5.15, on a newer one (tests).
        let no_cookie = std::env::var_os("DTRACE_NO_ATTACH_COOKIE");
        let enumerator = |en: &str, name: &str| enum_has(&btf, en, name);
        let helper = |name: &str| enumerator("bpf_func_id", name);
        Features {
            btf: true,
            btf_vars: btf.find(".data..percpu", Kind::Datasec).is_some(),
            ringbuf: enumerator("bpf_map_type", "BPF_MAP_TYPE_RINGBUF"),
            atomics,
            cpu_v4,
            long_jumps,
            strncmp: !old && helper("BPF_FUNC_strncmp"),
            task_btf: helper("BPF_FUNC_get_current_task_btf"),
            task_pt_regs: !old && helper("BPF_FUNC_task_pt_regs"),
            mem_alloc: !old && btf.find("bpf_mem_alloc", Kind::Struct).is_some(),
            lock_tracepoints: btf
                .find("btf_trace_contention_begin", Kind::Typedef)
                .is_some(),
            sched_bare_tracepoints: btf.find("btf_trace_sched_exit_tp", Kind::Typedef).is_some(),
            attach_cookie: no_cookie.is_none() && helper("BPF_FUNC_get_attach_cookie"),
            func_ip: helper("BPF_FUNC_get_func_ip"),
            bpf_loop: helper("BPF_FUNC_loop"),
            // By the iterator's struct, whose name is indexed, not by its
            // kfunc: functions are indexed on first use (5 ms, most of a
            // kernel's names), which only fbt and loops need.
            iter_num: !old && btf.find("bpf_iter_num", Kind::Struct).is_some(),
            kprobe_multi: btf.find("bpf_kprobe_multi_link", Kind::Struct).is_some(),
            uprobe_multi: std::env::var_os("DTRACE_NO_UPROBE_MULTI").is_none()
                && no_cookie.is_none()
                && btf.find("bpf_uprobe_multi_link", Kind::Struct).is_some(),
            perf_link: no_cookie.is_none() && btf.find("bpf_perf_link", Kind::Struct).is_some(),
            sleepable_uprobes: !old
                && std::env::var_os("DTRACE_NO_SLEEPABLE").is_none()
                && enumerator("bpf_map_type", "BPF_MAP_TYPE_TASK_STORAGE")
                && helper("BPF_FUNC_get_current_task_btf")
                && probe_load_as(
                    crate::bpf::ProgType::Kprobe,
                    crate::bpf::BPF_F_SLEEPABLE,
                    &COPY_FROM_USER,
                ),
            exit_group_dead: tracepoint_arity(&btf, "sched_process_exit") >= 2,
            tcp_reset_nosock: tracepoint_arity(&btf, "tcp_send_reset") >= 3,
            probe_write_user: helper("BPF_FUNC_probe_write_user"),
            ..Default::default()
        }
    }

    /// Each feature by name, whether this kernel has it, and what brings
    /// it (for messages: "needs uprobe_multi links (Linux 6.6)").
    pub fn rows(&self) -> [(&'static str, bool, &'static str); 27] {
        let open = !self.lockdown;
        // Why a feature lockdown takes away is missing.
        let locked = |under: &'static str, other: &'static str| {
            if self.lockdown {
                under
            } else {
                other
            }
        };
        [
            ("btf", self.btf, "the kernel's BTF (CONFIG_DEBUG_INFO_BTF)"),
            ("module_btf", self.module_btf, "module BTF (Linux 5.11)"),
            (
                "btf_vars",
                self.btf_vars,
                "the kernel's per-CPU variables in its BTF (pahole 1.18)",
            ),
            ("ringbuf", self.ringbuf, "BPF ring buffers (Linux 5.8)"),
            (
                "task_btf",
                self.task_btf,
                "bpf_get_current_task_btf (Linux 5.11)",
            ),
            (
                "atomics",
                self.atomics,
                "BPF atomic instructions (Linux 5.12)",
            ),
            (
                "task_pt_regs",
                self.task_pt_regs,
                "bpf_task_pt_regs (Linux 5.15)",
            ),
            ("strncmp", self.strncmp, "bpf_strncmp (Linux 5.17)"),
            (
                "lock_tracepoints",
                self.lock_tracepoints,
                "the lock contention tracepoints (Linux 5.19)",
            ),
            (
                "sched_bare_tracepoints",
                self.sched_bare_tracepoints,
                "the tracepoints sched_exit_tp and sched_set_need_resched_tp (kernels after 6.12)",
            ),
            (
                "mem_alloc",
                self.mem_alloc,
                "the BPF memory allocator (Linux 6.1)",
            ),
            (
                "long_jumps",
                self.long_jumps,
                "BPF long jumps, gotol (Linux 6.4)",
            ),
            (
                "cpu_v4",
                self.cpu_v4,
                "the BPF cpu v4 instructions (Linux 6.6)",
            ),
            (
                "attach_cookie",
                self.attach_cookie,
                "BPF attach cookies (Linux 5.15)",
            ),
            ("func_ip", self.func_ip, "bpf_get_func_ip (Linux 5.15)"),
            ("bpf_loop", self.bpf_loop, "bpf_loop (Linux 5.17)"),
            (
                "iter_num",
                self.iter_num,
                "the bpf_iter_num kfuncs (Linux 6.4)",
            ),
            (
                "kprobe_multi",
                self.kprobe_multi && open,
                locked(
                    "kprobe_multi links (Linux 5.18, CONFIG_FPROBE), which lockdown refuses",
                    "kprobe_multi links (Linux 5.18, CONFIG_FPROBE)",
                ),
            ),
            (
                "uprobe_multi",
                self.uprobe_multi,
                "uprobe_multi links (Linux 6.6)",
            ),
            (
                "sleepable_uprobes",
                self.sleepable_uprobes,
                "sleepable uprobe programs (Linux 6.0)",
            ),
            (
                "perf_link",
                self.perf_link,
                "BPF links for perf events (Linux 5.15)",
            ),
            (
                "exit_group_dead",
                self.exit_group_dead,
                "group_dead in the tracepoint sched_process_exit (kernels after 6.12)",
            ),
            (
                "tcp_reset_nosock",
                self.tcp_reset_nosock,
                "the tracepoint tcp_send_reset for resets sent without a socket (Linux 6.10)",
            ),
            (
                "probe_write_user",
                self.probe_write_user,
                locked(
                    "bpf_probe_write_user, which lockdown removes",
                    "bpf_probe_write_user",
                ),
            ),
            (
                "kprobes",
                open,
                locked(
                    "kprobes, which lockdown removes",
                    "kprobes (CONFIG_KPROBES)",
                ),
            ),
            (
                "fentry",
                open && self.btf,
                locked(
                    "fentry/fexit, which lockdown refuses",
                    "fentry/fexit (Linux 5.5, BTF)",
                ),
            ),
            (
                "kallsyms_data",
                open,
                locked(
                    "data symbols in /proc/kallsyms, which lockdown hides",
                    "data symbols in /proc/kallsyms (CONFIG_KALLSYMS_ALL)",
                ),
            ),
        ]
    }

    /// Whether the kernel has the feature of this name (`None`: no such
    /// feature).
    pub fn has(&self, name: &str) -> Option<bool> {
        self.rows().into_iter().find(|r| r.0 == name).map(|r| r.1)
    }

    /// One line per feature, `name yes|no`, after the kernel's release.
    pub fn report(&self) -> String {
        let mut s = format!("release {}\n", self.release);
        for (name, has, _) in self.rows() {
            s.push_str(name);
            s.push_str(if has { " yes\n" } else { " no\n" });
        }
        s
    }
}

/// The environment variables that make `probe` take another path (the
/// paths of older kernels, for tests).
const KNOBS: [&str; 4] = [
    "DTRACE_OLD_BPF",
    "DTRACE_NO_ATTACH_COOKIE",
    "DTRACE_NO_UPROBE_MULTI",
    "DTRACE_NO_SLEEPABLE",
];

/// The boot's record of what was probed. Reading the kernel's BTF and
/// loading the test programs costs 5 ms, more than the rest of a
/// one-liner's start; what they tell does not change until the next
/// boot, so the first run writes it to `/run/dtrace/features` (a tmpfs,
/// emptied at boot) under the boot's id and this source's hash, and the
/// runs after it read it back. A record that is not root's, that others
/// may write, or that was made by another boot or another dtrace is
/// probed again and replaced.
mod cache {
    use super::Features;
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
    use std::path::{Path, PathBuf};

    const DIR: &str = "/run/dtrace";

    /// The facts a record keeps, by name: every one but those `probe`
    /// reads afresh.
    type Flag = (&'static str, fn(&mut Features) -> &mut bool);
    pub(super) const FLAGS: [Flag; 23] = [
        ("btf", |f| &mut f.btf),
        ("btf_vars", |f| &mut f.btf_vars),
        ("ringbuf", |f| &mut f.ringbuf),
        ("atomics", |f| &mut f.atomics),
        ("cpu_v4", |f| &mut f.cpu_v4),
        ("long_jumps", |f| &mut f.long_jumps),
        ("strncmp", |f| &mut f.strncmp),
        ("task_btf", |f| &mut f.task_btf),
        ("task_pt_regs", |f| &mut f.task_pt_regs),
        ("mem_alloc", |f| &mut f.mem_alloc),
        ("attach_cookie", |f| &mut f.attach_cookie),
        ("func_ip", |f| &mut f.func_ip),
        ("bpf_loop", |f| &mut f.bpf_loop),
        ("iter_num", |f| &mut f.iter_num),
        ("kprobe_multi", |f| &mut f.kprobe_multi),
        ("uprobe_multi", |f| &mut f.uprobe_multi),
        ("sleepable_uprobes", |f| &mut f.sleepable_uprobes),
        ("perf_link", |f| &mut f.perf_link),
        ("lock_tracepoints", |f| &mut f.lock_tracepoints),
        ("sched_bare_tracepoints", |f| &mut f.sched_bare_tracepoints),
        ("exit_group_dead", |f| &mut f.exit_group_dead),
        ("tcp_reset_nosock", |f| &mut f.tcp_reset_nosock),
        ("probe_write_user", |f| &mut f.probe_write_user),
    ];

    /// Where the record is and the first line it must have.
    pub(super) struct Record {
        pub(super) path: PathBuf,
        pub(super) key: String,
    }

    impl Record {
        /// This boot's record, if the boot has an id.
        pub(super) fn here() -> Option<Record> {
            let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
            Some(Record {
                path: Path::new(DIR).join("features"),
                key: key(boot.trim()),
            })
        }

        /// The facts recorded, if the record is this boot's and this
        /// dtrace's, and safe to believe.
        pub(super) fn load(&self) -> Option<Features> {
            let dir = self.path.parent()?;
            if !trusted(dir) || !trusted(&self.path) {
                return None;
            }
            parse(&std::fs::read_to_string(&self.path).ok()?, &self.key)
        }

        /// Writes the record (a new file renamed over the old, so that
        /// no reader sees half of it); a failure leaves things as they
        /// were, and the next run probes again.
        pub(super) fn store(&self, f: &Features) {
            let Some(dir) = self.path.parent() else {
                return;
            };
            let _ = std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o755)
                .create(dir);
            if !trusted(dir) {
                return;
            }
            let tmp = dir.join(format!(".features.{}", std::process::id()));
            let written = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o644)
                .open(&tmp)
                .and_then(|mut file| {
                    std::io::Write::write_all(&mut file, format(f, &self.key).as_bytes())
                });
            if written.is_err() || std::fs::rename(&tmp, &self.path).is_err() {
                let _ = std::fs::remove_file(&tmp);
            }
        }
    }

    /// The record's first line: this dtrace (its version and the hash of
    /// the source that probes, so that a build probing differently
    /// does not believe an older one) and the boot.
    fn key(boot: &str) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in include_str!("features.rs").as_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        format!(
            "dtrace-features {} {:016x} {}",
            env!("CARGO_PKG_VERSION"),
            h,
            boot
        )
    }

    /// Root's, and written by no one else.
    fn trusted(path: &Path) -> bool {
        std::fs::symlink_metadata(path)
            .is_ok_and(|m| m.uid() == 0 && m.mode() & 0o022 == 0 && !m.file_type().is_symlink())
    }

    pub(super) fn format(f: &Features, key: &str) -> String {
        let mut f = f.clone();
        let mut s = format!("{}\n", key);
        for (name, field) in FLAGS {
            s.push_str(name);
            s.push_str(if *field(&mut f) { " yes\n" } else { " no\n" });
        }
        s
    }

    /// The facts of a record whose first line is `key` and which names
    /// every fact once.
    pub(super) fn parse(text: &str, key: &str) -> Option<Features> {
        let mut lines = text.lines();
        if lines.next()? != key {
            return None;
        }
        let mut f = Features::default();
        let mut seen = [false; FLAGS.len()];
        for line in lines {
            let (name, value) = line.split_once(' ')?;
            let i = FLAGS.iter().position(|(n, _)| *n == name)?;
            if std::mem::replace(&mut seen[i], true) {
                return None;
            }
            *FLAGS[i].1(&mut f) = match value {
                "yes" => true,
                "no" => false,
                _ => return None,
            };
        }
        seen.iter().all(|&s| s).then_some(f)
    }
}

/// How many arguments raw tracepoint `name` gives its programs (its
/// `btf_trace_NAME` prototype, less the context), 0 if BTF does not
/// say.
fn tracepoint_arity(btf: &Btf, name: &str) -> usize {
    use crate::btf::TypeData;
    let Some(t) = btf.find_typedef(&format!("btf_trace_{}", name)) else {
        return 0;
    };
    let Some(mut id) = btf.resolve(t) else {
        return 0;
    };
    if let Some(TypeData::Ptr(to)) = btf.get(id).map(|t| &t.data) {
        id = *to;
    }
    match btf.get(id).map(|t| &t.data) {
        Some(TypeData::FuncProto { params, .. }) => params.len().saturating_sub(1),
        _ => 0,
    }
}

/// True if the kernel is locked down, read from securityfs (mounted if
/// it is not, as tracefs is).
fn locked_down() -> bool {
    const FILE: &str = "/sys/kernel/security/lockdown";
    if !std::path::Path::new(FILE).exists() {
        let _ = crate::tracefs::mount_pseudo(c"securityfs", c"/sys/kernel/security");
    }
    std::fs::read_to_string(FILE).is_ok_and(|s| is_locked_down(&s))
}

/// True if the lockdown file's bracketed mode is not `none`.
fn is_locked_down(s: &str) -> bool {
    s.split_whitespace()
        .find(|w| w.starts_with('['))
        .is_some_and(|w| w != "[none]")
}

fn enum_has(btf: &Btf, en: &str, name: &str) -> bool {
    let Some(id) = btf.find_enum(en) else {
        return false;
    };
    match btf.get(id).map(|t| &t.data) {
        Some(crate::btf::TypeData::Enum { values, .. }) => {
            values.iter().any(|v| btf.str(v.name) == name)
        }
        _ => false,
    }
}

/// `*(u64 *)(fp - 8) = 0; r0 = 0; r1 = 1; r0 = cmpxchg(fp - 8, r0, r1);
/// exit`: kernels before 5.12 refuse the instruction.
const CMPXCHG: [[u8; 8]; 5] = [
    [0x7a, 0x0a, 0xf8, 0xff, 0, 0, 0, 0],
    [0xb7, 0x00, 0, 0, 0, 0, 0, 0],
    [0xb7, 0x01, 0, 0, 1, 0, 0, 0],
    [0xdb, 0x1a, 0xf8, 0xff, 0xf1, 0, 0, 0],
    [0x95, 0, 0, 0, 0, 0, 0, 0],
];

/// `r0 = 7; r1 = -2; r0 s/= r1; exit` (cpu v4: the offset 1 makes the
/// division signed): kernels before 6.6 refuse it.
const SDIV: [[u8; 8]; 4] = [
    [0xb7, 0x00, 0, 0, 7, 0, 0, 0],
    [0xb7, 0x01, 0, 0, 0xfe, 0xff, 0xff, 0xff],
    [0x3f, 0x10, 1, 0, 0, 0, 0, 0],
    [0x95, 0, 0, 0, 0, 0, 0, 0],
];

/// `r0 = 0; gotol +0; exit`: kernels before 6.4 refuse it.
const GOTOL: [[u8; 8]; 3] = [
    [0xb7, 0x00, 0, 0, 0, 0, 0, 0],
    [0x06, 0x00, 0, 0, 0, 0, 0, 0],
    [0x95, 0, 0, 0, 0, 0, 0, 0],
];

/// True if the kernel loads this socket filter: a test of instructions
/// that BTF cannot tell of.
fn probe_load(insns: &[[u8; 8]]) -> bool {
    probe_load_as(crate::bpf::ProgType::SocketFilter, 0, insns)
}

/// Whether the kernel loads `insns` as a program of type `ty` with the
/// program flags `flags`.
fn probe_load_as(ty: crate::bpf::ProgType, flags: u32, insns: &[[u8; 8]]) -> bool {
    let bytes: Vec<u8> = insns.concat();
    crate::bpf::prog_load_flags(ty, &bytes, "dt_probe", 0, flags).is_ok()
}

/// `bpf_copy_from_user(fp - 8, 8, NULL); r0 = 0; exit` as a sleepable
/// kprobe-type program: kernels before 6.0 refuse the flag for the type.
const COPY_FROM_USER: [[u8; 8]; 7] = [
    [0xbf, 0xa1, 0, 0, 0, 0, 0, 0],
    [0x07, 0x01, 0, 0, 0xf8, 0xff, 0xff, 0xff],
    [0xb7, 0x02, 0, 0, 8, 0, 0, 0],
    [0xb7, 0x03, 0, 0, 0, 0, 0, 0],
    [0x85, 0, 0, 0, 148, 0, 0, 0],
    [0xb7, 0x00, 0, 0, 0, 0, 0, 0],
    [0x95, 0, 0, 0, 0, 0, 0, 0],
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every fact a record keeps, set: the struct is written out whole,
    /// so that a new fact must be placed here, and in `cache::FLAGS`
    /// for the round trip to hold.
    fn all_recorded() -> Features {
        Features {
            release: String::new(),
            btf: true,
            module_btf: false,
            btf_vars: true,
            ringbuf: true,
            atomics: true,
            cpu_v4: true,
            long_jumps: true,
            strncmp: true,
            task_btf: true,
            task_pt_regs: true,
            mem_alloc: true,
            attach_cookie: true,
            func_ip: true,
            bpf_loop: true,
            iter_num: true,
            kprobe_multi: true,
            uprobe_multi: true,
            sleepable_uprobes: true,
            perf_link: true,
            lock_tracepoints: true,
            sched_bare_tracepoints: true,
            exit_group_dead: true,
            tcp_reset_nosock: true,
            probe_write_user: true,
            lockdown: false,
        }
    }

    #[test]
    fn record_round_trip() {
        let all = all_recorded();
        let text = cache::format(&all, "k 1");
        assert_eq!(cache::parse(&text, "k 1"), Some(all.clone()));
        // Each fact alone.
        for (name, field) in cache::FLAGS {
            let mut one = Features::default();
            *field(&mut one) = true;
            let back = cache::parse(&cache::format(&one, "k"), "k").unwrap();
            assert_eq!(back, one, "{}", name);
        }
        // Another boot's or dtrace's, a fact missing, twice or unknown.
        assert_eq!(cache::parse(&text, "k 2"), None);
        let short: String = text.lines().take(5).map(|l| format!("{}\n", l)).collect();
        assert_eq!(cache::parse(&short, "k 1"), None);
        assert_eq!(cache::parse(&format!("{}btf no\n", text), "k 1"), None);
        assert_eq!(cache::parse(&format!("{}fast yes\n", text), "k 1"), None);
        assert_eq!(
            cache::parse(&text.replace("btf yes", "btf maybe"), "k 1"),
            None
        );
    }

    #[test]
    fn record_in_a_directory() {
        let dir = std::env::temp_dir().join(format!("dt-features-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let r = cache::Record {
            path: dir.join("sub").join("features"),
            key: "dtrace-features test".into(),
        };
        assert_eq!(r.load(), None);
        let mut f = all_recorded();
        f.cpu_v4 = false;
        r.store(&f);
        if crate::geteuid() == 0 {
            assert_eq!(r.load(), Some(f));
            // Writable by others: not believed.
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&r.path, std::fs::Permissions::from_mode(0o666)).unwrap();
            assert_eq!(r.load(), None);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn lockdown_modes() {
        assert!(!is_locked_down("[none] integrity confidentiality\n"));
        assert!(is_locked_down("none [integrity] confidentiality\n"));
        assert!(is_locked_down("none integrity [confidentiality]\n"));
        assert!(!is_locked_down(""));
    }

    #[test]
    fn the_report_names_every_feature() {
        let f = Features {
            release: "6.1.0".into(),
            atomics: true,
            ..Default::default()
        };
        let r = f.report();
        assert!(r.starts_with("release 6.1.0\n"));
        assert!(r.contains("atomics yes\n"));
        assert!(r.contains("uprobe_multi no\n"));
        assert_eq!(r.lines().count(), 1 + f.rows().len());
        assert_eq!(f.has("atomics"), Some(true));
        assert_eq!(f.has("kprobes"), Some(true));
        assert_eq!(f.has("warp_drive"), None);
    }
}
