//! The `bpf(2)` system call: maps, programs, raw tracepoints, test runs and
//! object enumeration. Every kernel object is returned as an `OwnedFd`, so
//! dropping it (or the process dying) releases it: nothing is ever pinned.
//!
//! A refused load is a [`LoadError`], which tells a verifier refusal (with
//! its reason) from a lack of privilege. [`count_objects`] counts the
//! project's `dt_` programs and maps and every link: what the tests count
//! to show that nothing was left behind.

use std::ffi::CString;
use std::io;
use std::mem::size_of;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

const BPF_MAP_CREATE: u32 = 0;
const BPF_MAP_LOOKUP_ELEM: u32 = 1;
const BPF_MAP_UPDATE_ELEM: u32 = 2;
const BPF_MAP_DELETE_ELEM: u32 = 3;
const BPF_MAP_GET_NEXT_KEY: u32 = 4;
const BPF_PROG_LOAD: u32 = 5;
const BPF_OBJ_PIN: u32 = 6;
const BPF_OBJ_GET: u32 = 7;
const BPF_PROG_TEST_RUN: u32 = 10;
const BPF_PROG_GET_NEXT_ID: u32 = 11;
const BPF_MAP_GET_NEXT_ID: u32 = 12;
const BPF_PROG_GET_FD_BY_ID: u32 = 13;
const BPF_MAP_GET_FD_BY_ID: u32 = 14;
const BPF_OBJ_GET_INFO_BY_FD: u32 = 15;
const BPF_RAW_TRACEPOINT_OPEN: u32 = 17;
const BPF_BTF_GET_FD_BY_ID: u32 = 19;
const BPF_BTF_LOAD: u32 = 18;
const BPF_MAP_FREEZE: u32 = 22;
const BPF_BTF_GET_NEXT_ID: u32 = 23;
const BPF_MAP_LOOKUP_BATCH: u32 = 24;
const BPF_MAP_UPDATE_BATCH: u32 = 26;
const BPF_LINK_CREATE: u32 = 28;
const BPF_LINK_GET_NEXT_ID: u32 = 31;

/// The map types whose value sizes this crate knows (and so can read and
/// write soundly).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapType {
    Hash = 1,
    Array = 2,
    PercpuHash = 5,
    PercpuArray = 6,
    LruHash = 9,
    LruPercpuHash = 10,
    /// An array whose values are maps (set by descriptor, read back as
    /// map IDs: 4 bytes each way).
    ArrayOfMaps = 12,
    Ringbuf = 27,
    /// Storage local to each task (thread), made on first use by a
    /// program and freed with the task; no element operations here.
    TaskStorage = 29,
}

impl MapType {
    /// The type of a kernel map type number, if it is one of ours.
    pub fn from_u32(t: u32) -> Option<MapType> {
        Some(match t {
            1 => MapType::Hash,
            2 => MapType::Array,
            5 => MapType::PercpuHash,
            6 => MapType::PercpuArray,
            9 => MapType::LruHash,
            10 => MapType::LruPercpuHash,
            12 => MapType::ArrayOfMaps,
            27 => MapType::Ringbuf,
            29 => MapType::TaskStorage,
            _ => return None,
        })
    }

    /// True if a lookup or update exchanges one value per possible CPU.
    pub fn is_percpu(self) -> bool {
        matches!(
            self,
            MapType::PercpuHash | MapType::PercpuArray | MapType::LruPercpuHash
        )
    }
}

/// Program types the project loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgType {
    SocketFilter = 1,
    Kprobe = 2,
    Tracepoint = 5,
    PerfEvent = 7,
    RawTracepoint = 17,
    Tracing = 26,
}

/// Expected attach types of tracing programs: at a kernel function's
/// entry (fentry) and at its return (fexit).
pub const BPF_TRACE_FENTRY: u32 = 24;
pub const BPF_TRACE_FEXIT: u32 = 25;

/// Map flag: the map is read-only from BPF programs.
pub const BPF_F_RDONLY_PROG: u32 = 1 << 7;
/// Map flag: do not preallocate hash map elements.
pub const BPF_F_NO_PREALLOC: u32 = 1 << 0;
/// Update flag: fail when the key exists.
pub const BPF_NOEXIST: u64 = 1;
/// Update flag: create or replace.
pub const BPF_ANY: u64 = 0;
/// Update flag: fail when the key does not exist.
pub const BPF_EXIST: u64 = 2;

/// Longest object name the kernel keeps (including the NUL).
pub const OBJ_NAME_LEN: usize = 16;

#[repr(C)]
#[derive(Default)]
struct MapCreateAttr {
    map_type: u32,
    key_size: u32,
    value_size: u32,
    max_entries: u32,
    map_flags: u32,
    inner_map_fd: u32,
    numa_node: u32,
    map_name: [u8; OBJ_NAME_LEN],
    map_ifindex: u32,
    /// The BTF object describing the key and value (required by local
    /// storage maps), and their type ids in it.
    btf_fd: u32,
    btf_key_type_id: u32,
    btf_value_type_id: u32,
}

#[repr(C)]
#[derive(Default)]
struct MapElemAttr {
    map_fd: u32,
    _pad: u32,
    key: u64,
    value_or_next_key: u64,
    flags: u64,
}

/// The `batch` member of `union bpf_attr` (BPF_MAP_*_BATCH).
#[repr(C)]
#[derive(Default)]
struct MapBatchAttr {
    in_batch: u64,
    out_batch: u64,
    keys: u64,
    values: u64,
    count: u32,
    map_fd: u32,
    elem_flags: u64,
    flags: u64,
}

#[repr(C)]
#[derive(Default)]
struct ProgLoadAttr {
    prog_type: u32,
    insn_cnt: u32,
    insns: u64,
    license: u64,
    log_level: u32,
    log_size: u32,
    log_buf: u64,
    kern_version: u32,
    prog_flags: u32,
    prog_name: [u8; OBJ_NAME_LEN],
    prog_ifindex: u32,
    expected_attach_type: u32,
    prog_btf_fd: u32,
    func_info_rec_size: u32,
    func_info: u64,
    func_info_cnt: u32,
    line_info_rec_size: u32,
    line_info: u64,
    line_info_cnt: u32,
    /// The kernel function (its BTF FUNC id) a tracing program
    /// attaches to.
    attach_btf_id: u32,
    /// The BTF object that id is in, for a module's function (0: the
    /// kernel's own, vmlinux).
    attach_btf_obj_fd: u32,
    /// Named, so that it is zero: the kernel refuses unknown nonzero
    /// bytes (before 6.0), or reads them as `core_relo_cnt`.
    _pad: u32,
}

#[repr(C)]
#[derive(Default)]
struct TestRunAttr {
    prog_fd: u32,
    retval: u32,
    data_size_in: u32,
    data_size_out: u32,
    data_in: u64,
    data_out: u64,
    repeat: u32,
    duration: u32,
    ctx_size_in: u32,
    ctx_size_out: u32,
    ctx_in: u64,
    ctx_out: u64,
    flags: u32,
    cpu: u32,
    batch_size: u32,
    _pad: u32,
}

/// `BPF_LINK_CREATE` for a uprobe_multi link (`bpf_attr.link_create`
/// with its `uprobe_multi` member).
#[repr(C)]
#[derive(Default)]
struct UprobeMultiAttr {
    prog_fd: u32,
    target_fd: u32,
    attach_type: u32,
    flags: u32,
    path: u64,
    offsets: u64,
    ref_ctr_offsets: u64,
    cookies: u64,
    cnt: u32,
    multi_flags: u32,
    pid: u32,
    _pad: u32,
}

// Every byte of these is a named field (no padding the kernel would
// read as garbage).
const _: () = assert!(size_of::<ProgLoadAttr>() == 120);
const _: () = assert!(size_of::<KprobeMultiAttr>() == 48);
const _: () = assert!(size_of::<BtfInfo>() == 32);

/// `BPF_LINK_CREATE` for a kprobe_multi link (`bpf_attr.link_create`
/// with its `kprobe_multi` member).
#[repr(C)]
#[derive(Default)]
struct KprobeMultiAttr {
    prog_fd: u32,
    target_fd: u32,
    attach_type: u32,
    flags: u32,
    multi_flags: u32,
    cnt: u32,
    syms: u64,
    addrs: u64,
    cookies: u64,
}

/// The leading part of `struct bpf_btf_info`, with its name buffer.
#[repr(C)]
#[derive(Default)]
struct BtfInfo {
    btf: u64,
    btf_size: u32,
    id: u32,
    name: u64,
    name_len: u32,
    kernel_btf: u32,
}

#[repr(C)]
#[derive(Default)]
struct RawTracepointAttr {
    name: u64,
    prog_fd: u32,
    _pad: u32,
    cookie: u64,
}

#[repr(C)]
#[derive(Default)]
struct GetIdAttr {
    start_id: u32,
    next_id: u32,
    open_flags: u32,
}

#[repr(C)]
#[derive(Default)]
struct InfoAttr {
    bpf_fd: u32,
    info_len: u32,
    info: u64,
}

/// The leading part of `struct bpf_prog_info` the project reads.
#[repr(C)]
#[derive(Default, Clone, Copy)]
struct ProgInfoHead {
    prog_type: u32,
    id: u32,
    tag: [u8; 8],
    jited_prog_len: u32,
    xlated_prog_len: u32,
    jited_prog_insns: u64,
    xlated_prog_insns: u64,
    load_time: u64,
    created_by_uid: u32,
    nr_map_ids: u32,
    map_ids: u64,
    name: [u8; OBJ_NAME_LEN],
}

/// The leading part of `struct bpf_map_info`.
#[repr(C)]
#[derive(Default, Clone, Copy)]
struct MapInfoHead {
    map_type: u32,
    id: u32,
    key_size: u32,
    value_size: u32,
    max_entries: u32,
    map_flags: u32,
    name: [u8; OBJ_NAME_LEN],
}

fn sys_bpf<T>(cmd: u32, attr: &mut T) -> io::Result<i64> {
    // SAFETY: `attr` is a live, properly aligned #[repr(C)] struct whose
    // layout is a prefix of the kernel's `union bpf_attr` for `cmd`; the
    // kernel reads (and for some commands writes) at most size_of::<T>()
    // bytes of it. Any pointers inside it refer to buffers the caller keeps
    // alive for the duration of the call.
    let r = unsafe {
        libc::syscall(
            libc::SYS_bpf,
            cmd as libc::c_long,
            attr as *mut T as *mut libc::c_void,
            size_of::<T>() as libc::c_long,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

#[repr(C)]
#[derive(Default)]
struct BtfLoadAttr {
    btf: u64,
    btf_log_buf: u64,
    btf_size: u32,
    btf_log_size: u32,
    btf_log_level: u32,
    /// Named, so that it is zero: before 6.4 the kernel refuses a
    /// nonzero byte past the fields it knows.
    _true_size: u32,
}

/// Where each function of a program starts: 0, and every instruction a
/// BPF-to-BPF call goes to or an `lddw` takes the address of (a
/// callback), in order; `None` if the program takes no function's
/// address (only then does the kernel want the functions described).
fn callback_functions(insns: &[u8]) -> Option<Vec<u32>> {
    const LDDW: u8 = 0x18;
    const CALL: u8 = 0x85;
    let mut starts = vec![0u32];
    let mut callback = false;
    for (i, ins) in insns.chunks_exact(8).enumerate() {
        let src = ins[1] >> 4;
        let imm = i32::from_le_bytes([ins[4], ins[5], ins[6], ins[7]]);
        let target = || u32::try_from(i as i64 + 1 + i64::from(imm)).ok();
        if ins[0] == LDDW && src == 4 {
            callback = true;
            starts.extend(target());
        } else if ins[0] == CALL && src == 1 {
            starts.extend(target());
        }
    }
    starts.sort_unstable();
    starts.dedup();
    callback.then_some(starts)
}

/// A BTF object describing `n` functions (`int f(void)`, static), for a
/// program's `func_info`: the kernel wants one where a program passes a
/// callback (`bpf_loop`'s) and checks nothing of a static function's
/// prototype. Type 1 is `int`, 2 the prototype, 3.. the functions.
fn functions_btf(n: usize) -> Vec<u8> {
    let mut strings = b"\0int\0".to_vec();
    let mut types: Vec<u32> = vec![
        1,
        1 << 24,
        4,
        (1 << 24) | 32, // INT: signed, 32 bits
        0,
        13 << 24,
        1, // FUNC_PROTO: no parameters, returns int
    ];
    for k in 0..n {
        let name = strings.len() as u32;
        strings.extend_from_slice(format!("dt_f{}\0", k).as_bytes());
        types.extend_from_slice(&[name, 12 << 24, 2]); // FUNC, static
    }
    btf_blob(&types, &strings)
}

/// A BTF object of `types` (their words) and `strings`: the header (magic,
/// version 1, no flags, 24 bytes), then the types, then the strings.
fn btf_blob(types: &[u32], strings: &[u8]) -> Vec<u8> {
    let type_len = (types.len() * 4) as u32;
    let mut btf = Vec::new();
    btf.extend_from_slice(&0xeb9fu16.to_le_bytes());
    btf.extend_from_slice(&[1, 0]);
    for w in [24, 0, type_len, type_len, strings.len() as u32] {
        btf.extend_from_slice(&u32::to_le_bytes(w));
    }
    for &w in types {
        btf.extend_from_slice(&w.to_le_bytes());
    }
    btf.extend_from_slice(strings);
    btf
}

/// The BTF a local storage map is described by: type 1 `int` (its key,
/// as the kernel requires), type 3 an array of `size` bytes (its value).
pub(crate) fn storage_btf(size: u32) -> Vec<u8> {
    let strings = b"\0int\0unsigned char\0";
    let types: [u32; 12] = [
        1,
        1 << 24,
        4,
        (1 << 24) | 32, // 1: INT int, signed, 32 bits
        5,
        1 << 24,
        1,
        8, // 2: INT unsigned char, 8 bits
        0,
        3 << 24,
        0, // 3: ARRAY of 2, indexed by 1, `size` of them
        2,
    ];
    let mut all = types.to_vec();
    all.extend_from_slice(&[1, size]);
    btf_blob(&all, strings)
}

pub(crate) fn btf_load(btf: &[u8]) -> io::Result<OwnedFd> {
    let mut attr = BtfLoadAttr {
        btf: btf.as_ptr() as u64,
        btf_size: btf.len() as u32,
        ..Default::default()
    };
    sys_bpf(BPF_BTF_LOAD, &mut attr).map(fd_result)
}

/// Loads the program of `attr` with the verifier's log at `level` in a
/// buffer of `size` bytes: the result and the log. `attr` is left
/// pointing at the freed buffer; a caller that loads again resets it.
fn load_with_log(attr: &mut ProgLoadAttr, level: u32, size: usize) -> (io::Result<i64>, String) {
    let mut log = vec![0u8; size];
    attr.log_level = level;
    attr.log_size = log.len() as u32;
    attr.log_buf = log.as_mut_ptr() as u64;
    let loaded = sys_bpf(BPF_PROG_LOAD, attr);
    let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
    (loaded, String::from_utf8_lossy(&log[..end]).into_owned())
}

fn fd_result(r: i64) -> OwnedFd {
    // SAFETY: the kernel just returned `r` as a new file descriptor that
    // nothing else owns.
    unsafe { OwnedFd::from_raw_fd(r as RawFd) }
}

fn obj_name(name: &str) -> [u8; OBJ_NAME_LEN] {
    let mut out = [0u8; OBJ_NAME_LEN];
    // The kernel accepts only alphanumerics, '_' and '.'.
    let clean = name
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' {
                b
            } else {
                b'_'
            }
        })
        .take(OBJ_NAME_LEN - 1);
    for (d, s) in out.iter_mut().zip(clean) {
        *d = s;
    }
    out
}

mod map;
pub use map::{Keys, Map, PerCpuValues};

/// A refused program: the errno and the verifier's explanation (empty when
/// the kernel gave none, as when it refuses for lack of privilege).
#[derive(Debug)]
pub struct LoadError {
    pub error: io::Error,
    pub log: String,
}

impl LoadError {
    /// True when the verifier refused the program and said why.
    pub fn is_verifier_refusal(&self) -> bool {
        !self.log.trim().is_empty()
    }

    /// True when the kernel refused without a verifier log, with EPERM or
    /// EACCES: not allowed to load this program at all.
    pub fn is_permission(&self) -> bool {
        !self.is_verifier_refusal()
            && matches!(self.error.raw_os_error(), Some(libc::EPERM | libc::EACCES))
    }

    /// The verifier's reason: the last line of its log that is not a
    /// statistic ("processed N insns ...", "verification time", ...).
    pub fn verifier_reason(&self) -> Option<&str> {
        verifier_reason(&self.log)
    }
}

/// The meaningful end of a verifier log (see `LoadError::verifier_reason`).
pub fn verifier_reason(log: &str) -> Option<&str> {
    const STATS: [&str; 4] = [
        "processed ",
        "verification time ",
        "stack depth ",
        "max_states_per_insn ",
    ];
    log.lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty() && !STATS.iter().any(|s| l.starts_with(s)))
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.error)?;
        if !self.log.is_empty() {
            write!(f, "\n{}", self.log)?;
        }
        Ok(())
    }
}

/// Loads a program given as raw little-endian instructions (8 bytes each).
/// On refusal the load is repeated with the verifier log enabled so the
/// error carries the reason.
pub fn prog_load(
    prog_type: ProgType,
    insns: &[u8],
    name: &str,
    expected_attach_type: u32,
) -> Result<OwnedFd, LoadError> {
    prog_load_btf(prog_type, insns, name, expected_attach_type, 0)
}

/// As [`prog_load`], for a program that names its kernel hook by BTF id
/// (a tracing program's function, `attach_btf_id`).
pub fn prog_load_btf(
    prog_type: ProgType,
    insns: &[u8],
    name: &str,
    expected_attach_type: u32,
    attach_btf_id: u32,
) -> Result<OwnedFd, LoadError> {
    prog_load_in(
        prog_type,
        insns,
        name,
        expected_attach_type,
        attach_btf_id,
        None,
        0,
    )
}

/// Program flag: the program may sleep (it runs where faults may be
/// taken: a uprobe, since Linux 6.0), so it may call
/// `bpf_copy_from_user`, and may use only the maps a sleeping program
/// may (hashes, arrays, ring buffers, local storage).
pub const BPF_F_SLEEPABLE: u32 = 1 << 4;

/// As [`prog_load`], with the program flags `prog_flags` (e.g.
/// [`BPF_F_SLEEPABLE`]).
pub fn prog_load_flags(
    prog_type: ProgType,
    insns: &[u8],
    name: &str,
    expected_attach_type: u32,
    prog_flags: u32,
) -> Result<OwnedFd, LoadError> {
    prog_load_in(
        prog_type,
        insns,
        name,
        expected_attach_type,
        0,
        None,
        prog_flags,
    )
}

/// As [`prog_load_btf`], for a function of a module: `attach_btf_id` is
/// an id of the module's BTF, `module_btf` ([`module_btf_fd`]).
pub fn prog_load_module_btf(
    prog_type: ProgType,
    insns: &[u8],
    name: &str,
    expected_attach_type: u32,
    attach_btf_id: u32,
    module_btf: &OwnedFd,
) -> Result<OwnedFd, LoadError> {
    prog_load_in(
        prog_type,
        insns,
        name,
        expected_attach_type,
        attach_btf_id,
        Some(module_btf),
        0,
    )
}

fn prog_load_in(
    prog_type: ProgType,
    insns: &[u8],
    name: &str,
    expected_attach_type: u32,
    attach_btf_id: u32,
    btf_obj: Option<&OwnedFd>,
    prog_flags: u32,
) -> Result<OwnedFd, LoadError> {
    let insn_cnt = match u32::try_from(insns.len() / 8) {
        Ok(n) if insns.len().is_multiple_of(8) && n > 0 => n,
        _ => {
            return Err(LoadError {
                error: io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                    "a BPF program is a non-empty sequence of 8-byte instructions, not {} bytes",
                    insns.len()
                ),
                ),
                log: String::new(),
            })
        }
    };
    let license = CString::new("GPL").expect("static string has no NUL");
    let mut attr = ProgLoadAttr {
        prog_type: prog_type as u32,
        insn_cnt,
        insns: insns.as_ptr() as u64,
        license: license.as_ptr() as u64,
        prog_name: obj_name(name),
        prog_flags,
        expected_attach_type,
        attach_btf_id,
        attach_btf_obj_fd: btf_obj.map_or(0, |fd| fd.as_raw_fd() as u32),
        ..Default::default()
    };
    // A program that passes a callback has its functions described.
    let functions = callback_functions(insns);
    let mut func_info: Vec<u32> = Vec::new();
    let mut _btf_fd = None;
    if let Some(starts) = &functions {
        let fd = btf_load(&functions_btf(starts.len())).map_err(|error| LoadError {
            error,
            log: String::new(),
        })?;
        for (k, &at) in starts.iter().enumerate() {
            func_info.extend_from_slice(&[at, 3 + k as u32]);
        }
        attr.prog_btf_fd = fd.as_raw_fd() as u32;
        attr.func_info_rec_size = 8;
        attr.func_info = func_info.as_ptr() as u64;
        attr.func_info_cnt = starts.len() as u32;
        _btf_fd = Some(fd);
    }
    // DTRACE_DEBUG=stats: the verifier's statistics of each program
    // (instructions processed against its limit, states), on stderr.
    if std::env::var("DTRACE_DEBUG").is_ok_and(|v| v == "stats") {
        let (loaded, stats) = load_with_log(&mut attr, 4, 1 << 16);
        eprintln!(
            "dtrace: verifier: {}: {}",
            name,
            stats.trim().replace('\n', "; ")
        );
        attr.log_level = 0;
        attr.log_size = 0;
        attr.log_buf = 0;
        if let Ok(r) = loaded {
            return Ok(fd_result(r));
        }
    }
    match sys_bpf(BPF_PROG_LOAD, &mut attr) {
        Ok(r) => Ok(fd_result(r)),
        Err(error) => {
            if error.raw_os_error() == Some(libc::EPERM) {
                return Err(LoadError {
                    error,
                    log: String::new(),
                });
            }
            let (retry, text) = load_with_log(&mut attr, 1, 16 << 20);
            match retry {
                // Loading with a log can succeed where the first try failed
                // only on a transient condition; keep the program then.
                Ok(r) => Ok(fd_result(r)),
                Err(_) => Err(LoadError { error, log: text }),
            }
        }
    }
}

/// Attaches a raw tracepoint program; the returned fd is the attachment.
pub fn raw_tracepoint_open(name: &str, prog: &OwnedFd) -> io::Result<OwnedFd> {
    let cname = CString::new(name).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("raw tracepoint name {:?} contains a NUL byte", name),
        )
    })?;
    let mut attr = RawTracepointAttr {
        name: cname.as_ptr() as u64,
        prog_fd: prog.as_raw_fd() as u32,
        ..Default::default()
    };
    sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &mut attr).map(fd_result)
}

/// Attaches a tracing program (fentry, fexit) to the function it was
/// loaded for; the returned fd is the attachment (a link).
pub fn tracing_attach(prog: &OwnedFd) -> io::Result<OwnedFd> {
    // With no name, BPF_RAW_TRACEPOINT_OPEN attaches a tracing program
    // at its own attach_btf_id.
    let mut attr = RawTracepointAttr {
        name: 0,
        prog_fd: prog.as_raw_fd() as u32,
        ..Default::default()
    };
    sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &mut attr).map(fd_result)
}

/// Expected attach type of a program for a uprobe_multi link.
pub const BPF_TRACE_UPROBE_MULTI: u32 = 48;
/// uprobe_multi flag: uretprobes.
const BPF_F_UPROBE_MULTI_RETURN: u32 = 1;

/// True if the kernel has uprobe_multi links (Linux 6.6); false when
/// `DTRACE_NO_UPROBE_MULTI` is set, to run the perf-event fallback of
/// older kernels on this one, as its test does (see [`crate::features`]).
pub fn has_uprobe_multi() -> bool {
    crate::features::Features::get().uprobe_multi
}

/// Attaches `prog` (loaded as `BPF_TRACE_UPROBE_MULTI`) at each of
/// `offsets` in file `path`, uretprobes with `ret`, for process `pid`
/// alone; the program reads each one's cookie (`bpf_get_attach_cookie`).
/// `ref_ctr_offsets` are the file offsets of USDT semaphores, one for
/// each place (0 for none): the kernel counts the probe in the
/// process's copy while it is attached.
/// One link for them all: closing it removes every probe with one wait,
/// where a uprobe perf event per offset waits for each in turn.
pub fn uprobe_multi_attach(
    prog: &OwnedFd,
    path: &std::ffi::CStr,
    offsets: &[u64],
    cookies: &[u64],
    ref_ctr_offsets: Option<&[u64]>,
    ret: bool,
    pid: u32,
) -> io::Result<OwnedFd> {
    let cnt = u32::try_from(offsets.len())
        .ok()
        .filter(|&n| {
            n > 0
                && offsets.len() == cookies.len()
                && !matches!(ref_ctr_offsets, Some(r) if r.len() != offsets.len())
        })
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "bad uprobe offsets"))?;
    let mut attr = UprobeMultiAttr {
        prog_fd: prog.as_raw_fd() as u32,
        attach_type: BPF_TRACE_UPROBE_MULTI,
        path: path.as_ptr() as u64,
        offsets: offsets.as_ptr() as u64,
        cookies: cookies.as_ptr() as u64,
        ref_ctr_offsets: ref_ctr_offsets.map_or(0, |r| r.as_ptr() as u64),
        cnt,
        multi_flags: if ret { BPF_F_UPROBE_MULTI_RETURN } else { 0 },
        pid,
        ..Default::default()
    };
    sys_bpf(BPF_LINK_CREATE, &mut attr).map(fd_result)
}

/// Expected attach type of a program for a kprobe_multi link.
pub const BPF_TRACE_KPROBE_MULTI: u32 = 42;
/// kprobe_multi flag: kretprobes.
const BPF_F_KPROBE_MULTI_RETURN: u32 = 1;

/// Attaches `prog` (loaded as `BPF_TRACE_KPROBE_MULTI`) at the entry of
/// each kernel function of `syms` (kretprobes at their return with
/// `ret`), each with its cookie, through one kprobe_multi link (Linux
/// 5.18): one link for thousands of functions, attached and detached
/// with one wait. The kernel refuses the whole link if one name is not a
/// function it can trace.
pub fn kprobe_multi_attach(
    prog: &OwnedFd,
    syms: &[&std::ffi::CStr],
    cookies: &[u64],
    ret: bool,
) -> io::Result<OwnedFd> {
    let cnt = u32::try_from(syms.len())
        .ok()
        .filter(|&n| n > 0 && syms.len() == cookies.len())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "bad kprobe places"))?;
    let ptrs: Vec<u64> = syms.iter().map(|s| s.as_ptr() as u64).collect();
    let mut attr = KprobeMultiAttr {
        prog_fd: prog.as_raw_fd() as u32,
        attach_type: BPF_TRACE_KPROBE_MULTI,
        multi_flags: if ret { BPF_F_KPROBE_MULTI_RETURN } else { 0 },
        cnt,
        syms: ptrs.as_ptr() as u64,
        cookies: cookies.as_ptr() as u64,
        ..Default::default()
    };
    sys_bpf(BPF_LINK_CREATE, &mut attr).map(fd_result)
}

/// The kernel's BTF object of module `name` (`/sys/kernel/btf/NAME` is
/// its data; a program for one of its functions is loaded with this
/// descriptor).
pub fn module_btf_fd(name: &str) -> io::Result<OwnedFd> {
    let mut id = 0;
    while let Some(next) = next_id(BPF_BTF_GET_NEXT_ID, id)? {
        id = next;
        // A module may go away between the two calls.
        let Ok(fd) = fd_by_id(BPF_BTF_GET_FD_BY_ID, id) else {
            continue;
        };
        let mut buf = [0u8; 64];
        let mut info = BtfInfo {
            name: buf.as_mut_ptr() as u64,
            name_len: buf.len() as u32,
            ..Default::default()
        };
        let mut attr = InfoAttr {
            bpf_fd: fd.as_raw_fd() as u32,
            info_len: size_of::<BtfInfo>() as u32,
            info: &mut info as *mut BtfInfo as u64,
        };
        // The kernel writes at most `info_len` bytes of `info` and at
        // most `name_len` bytes of the name into `buf`, both alive here.
        sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &mut attr)?;
        if info.kernel_btf != 0 && cstr_name(&buf) == name {
            return Ok(fd);
        }
    }
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        format!("no BTF for module {}", name),
    ))
}

/// `BPF_LINK_CREATE` for a perf event (`bpf_attr.link_create` with its
/// `perf_event` member).
#[repr(C)]
#[derive(Default)]
struct PerfLinkAttr {
    prog_fd: u32,
    target_fd: u32,
    attach_type: u32,
    flags: u32,
    bpf_cookie: u64,
    _pad: [u64; 4],
}

/// The attach type of a link to a perf event.
const BPF_PERF_EVENT: u32 = 41;

/// Attaches `prog` to perf event `event` through a BPF link (Linux 5.15),
/// with `cookie` for the program to read (`bpf_get_attach_cookie`); the
/// link keeps it attached, the event stays open beside it.
pub fn perf_event_link(prog: &OwnedFd, event: &OwnedFd, cookie: u64) -> io::Result<OwnedFd> {
    let mut attr = PerfLinkAttr {
        prog_fd: prog.as_raw_fd() as u32,
        target_fd: event.as_raw_fd() as u32,
        attach_type: BPF_PERF_EVENT,
        bpf_cookie: cookie,
        ..Default::default()
    };
    sys_bpf(BPF_LINK_CREATE, &mut attr).map(fd_result)
}

/// `BPF_OBJ_PIN` and `BPF_OBJ_GET` (`bpf_attr`'s `obj` member).
#[repr(C)]
#[derive(Default)]
struct ObjAttr {
    pathname: u64,
    bpf_fd: u32,
    file_flags: u32,
}

fn path_cstring(path: &std::path::Path) -> io::Result<CString> {
    use std::os::unix::ffi::OsStrExt;
    CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} contains a NUL byte", path.display()),
        )
    })
}

/// Pins the BPF object `fd` (a map, program or link) at `path`, in a
/// BPF file system: it lives until the path is removed, whatever
/// process made it.
pub fn obj_pin(fd: &impl AsRawFd, path: &std::path::Path) -> io::Result<()> {
    let c = path_cstring(path)?;
    let mut attr = ObjAttr {
        pathname: c.as_ptr() as u64,
        bpf_fd: fd.as_raw_fd() as u32,
        ..Default::default()
    };
    sys_bpf(BPF_OBJ_PIN, &mut attr).map(|_| ())
}

/// Opens the BPF object pinned at `path`.
pub fn obj_get(path: &std::path::Path) -> io::Result<OwnedFd> {
    let c = path_cstring(path)?;
    let mut attr = ObjAttr {
        pathname: c.as_ptr() as u64,
        ..Default::default()
    };
    sys_bpf(BPF_OBJ_GET, &mut attr).map(fd_result)
}

/// Where BPF objects are pinned: `/sys/fs/bpf`, a BPF file system
/// mounted there first if none is (mounting another over one would hide
/// what it holds).
pub fn bpffs() -> io::Result<std::path::PathBuf> {
    const BPF_FS_MAGIC: i64 = 0xcafe_4a11;
    let at = c"/sys/fs/bpf";
    // SAFETY: `at` is NUL-terminated and `st` a statfs the call fills.
    let is_bpf = unsafe {
        let mut st: libc::statfs = std::mem::zeroed();
        libc::statfs(at.as_ptr(), &mut st) == 0 && st.f_type as i64 == BPF_FS_MAGIC
    };
    if !is_bpf {
        crate::tracefs::mount_pseudo(c"bpf", at)?;
    }
    Ok(std::path::PathBuf::from("/sys/fs/bpf"))
}

/// Runs a raw tracepoint program once, now, on `cpu` (or on the calling
/// CPU), with `ctx` as its argument array. Returns the program's r0.
pub fn prog_test_run(prog: &OwnedFd, ctx: &[u64], cpu: Option<u32>) -> io::Result<u32> {
    let ctx_size_in = u32::try_from(std::mem::size_of_val(ctx))
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "test run context too large"))?;
    // No data or context output buffers are given (both pointers stay 0),
    // so the kernel writes only the result fields of `attr`.
    let mut attr = TestRunAttr {
        prog_fd: prog.as_raw_fd() as u32,
        ctx_size_in,
        ctx_in: if ctx.is_empty() {
            0
        } else {
            ctx.as_ptr() as u64
        },
        flags: if cpu.is_some() { 1 } else { 0 },
        cpu: cpu.unwrap_or(0),
        ..Default::default()
    };
    sys_bpf(BPF_PROG_TEST_RUN, &mut attr)?;
    Ok(attr.retval)
}

/// A loaded program as the kernel describes it.
#[derive(Clone, Debug)]
pub struct ProgInfo {
    pub id: u32,
    pub prog_type: u32,
    pub name: String,
}

/// A map as the kernel describes it.
#[derive(Clone, Debug)]
pub struct MapInfo {
    pub id: u32,
    pub map_type: u32,
    pub name: String,
}

fn cstr_name(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

fn next_id(cmd: u32, start: u32) -> io::Result<Option<u32>> {
    let mut attr = GetIdAttr {
        start_id: start,
        ..Default::default()
    };
    match sys_bpf(cmd, &mut attr) {
        Ok(_) => Ok(Some(attr.next_id)),
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Ok(None),
        Err(e) => Err(e),
    }
}

fn fd_by_id(cmd: u32, id: u32) -> io::Result<OwnedFd> {
    let mut attr = GetIdAttr {
        start_id: id,
        ..Default::default()
    };
    sys_bpf(cmd, &mut attr).map(fd_result)
}

/// Object-info heads the kernel may fill: plain integers and byte arrays,
/// every pointer field zero so that the kernel writes nothing but the head
/// itself.
trait InfoHead: Default {}
impl InfoHead for ProgInfoHead {}
impl InfoHead for MapInfoHead {}

fn info_by_fd<T: InfoHead>(fd: &OwnedFd) -> io::Result<T> {
    // All zero: in particular the array pointers and lengths of
    // `bpf_prog_info` (`jited_prog_insns`, `map_ids`, ...), so the kernel
    // copies no arrays anywhere, and writes at most `info_len` bytes here.
    let mut info = T::default();
    let mut attr = InfoAttr {
        bpf_fd: fd.as_raw_fd() as u32,
        info_len: size_of::<T>() as u32,
        info: &mut info as *mut T as u64,
    };
    sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &mut attr)?;
    Ok(info)
}

/// Every BPF program loaded in the system (for leak checks and tests).
pub fn list_programs() -> io::Result<Vec<ProgInfo>> {
    let mut out = Vec::new();
    let mut id = 0;
    while let Some(next) = next_id(BPF_PROG_GET_NEXT_ID, id)? {
        id = next;
        // A program may go away between the two calls.
        let Ok(fd) = fd_by_id(BPF_PROG_GET_FD_BY_ID, id) else {
            continue;
        };
        let info: ProgInfoHead = info_by_fd(&fd)?;
        out.push(ProgInfo {
            id: info.id,
            prog_type: info.prog_type,
            name: cstr_name(&info.name),
        });
    }
    Ok(out)
}

/// Every BPF map in the system.
pub fn list_maps() -> io::Result<Vec<MapInfo>> {
    let mut out = Vec::new();
    let mut id = 0;
    while let Some(next) = next_id(BPF_MAP_GET_NEXT_ID, id)? {
        id = next;
        let Ok(fd) = fd_by_id(BPF_MAP_GET_FD_BY_ID, id) else {
            continue;
        };
        let info: MapInfoHead = info_by_fd(&fd)?;
        out.push(MapInfo {
            id: info.id,
            map_type: info.map_type,
            name: cstr_name(&info.name),
        });
    }
    Ok(out)
}

/// The number of BPF links in the system.
pub fn count_links() -> io::Result<usize> {
    let mut n = 0;
    let mut id = 0;
    while let Some(next) = next_id(BPF_LINK_GET_NEXT_ID, id)? {
        id = next;
        n += 1;
    }
    Ok(n)
}

/// How many BPF programs and maps whose names start with `prefix` (this
/// project's are `dt_`), and how many links of any kind, the system has:
/// what tests count to show that nothing was left behind.
pub fn count_objects(prefix: &str) -> io::Result<(usize, usize, usize)> {
    let progs = list_programs()?
        .iter()
        .filter(|p| p.name.starts_with(prefix))
        .count();
    let maps = list_maps()?
        .iter()
        .filter(|m| m.name.starts_with(prefix))
        .count();
    Ok((progs, maps, count_links()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn insn(code: u8, src: u8, imm: i32) -> [u8; 8] {
        let mut i = [0u8; 8];
        i[0] = code;
        i[1] = src << 4;
        i[4..].copy_from_slice(&imm.to_le_bytes());
        i
    }

    #[test]
    fn only_a_program_that_passes_a_callback_has_its_functions_described() {
        // 0: call pc+3 (4); 1-2: lddw r2, func pc+3 (5); 3: exit; 4, 5.
        let mut p = Vec::new();
        p.extend(insn(0x85, 1, 3));
        p.extend(insn(0x18, 4, 3));
        p.extend([0u8; 8]);
        for _ in 0..3 {
            p.extend(insn(0x95, 0, 0));
        }
        assert_eq!(callback_functions(&p), Some(vec![0, 4, 5]));
        // Calls alone: nothing to describe.
        assert_eq!(callback_functions(&p[..8]), None);
        let btf = functions_btf(3);
        assert_eq!(&btf[..4], &[0x9f, 0xeb, 1, 0]);
        // Header, INT (16 bytes), FUNC_PROTO (12), three FUNCs (12 each).
        let type_len = u32::from_le_bytes(btf[12..16].try_into().unwrap());
        assert_eq!(type_len, 16 + 12 + 3 * 12);
        assert!(btf.ends_with(b"\0int\0dt_f0\0dt_f1\0dt_f2\0"));
    }

    #[test]
    fn storage_btf_describes_an_int_key_and_a_byte_array() {
        let btf = storage_btf(4096);
        assert_eq!(&btf[..4], &[0x9f, 0xeb, 1, 0]);
        // Two INTs (16 bytes each), an ARRAY (12 and 12).
        let type_len = u32::from_le_bytes(btf[12..16].try_into().unwrap());
        assert_eq!(type_len, 16 + 16 + 24);
        let words: Vec<u32> = btf[24..24 + type_len as usize]
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        // The array: of type 2 (a byte), indexed by 1, 4096 elements.
        assert_eq!(&words[8..], &[0, 3 << 24, 0, 2, 1, 4096]);
        assert!(btf.ends_with(b"\0int\0unsigned char\0"));
        if crate::geteuid() != 0 {
            eprintln!("skipped the kernel's part: needs root");
            return;
        }
        // The kernel takes it for a task storage map, whose elements are
        // the programs' alone.
        let m = Map::create_task_storage(4096, "dtsys_tstore").expect("task storage");
        let e = m.lookup(&[0u8; 4], &mut [0u8; 4096]).expect_err("refused");
        assert_eq!(e.kind(), io::ErrorKind::Unsupported, "{}", e);
    }

    #[test]
    fn object_names_are_sanitised_and_truncated() {
        let n = obj_name("dtrace-syscall:read:entry");
        assert_eq!(&n[..15], b"dtrace_syscall_");
        assert_eq!(n[15], 0);
    }

    #[test]
    fn verifier_reason_skips_the_statistics() {
        let log = "0: R1=ctx() R10=fp0\n\
                   0: (b7) r0 = 0\n\
                   combined stack size of 2 calls is 544. Too large\n\
                   verification time 120 usec\n\
                   stack depth 512+32\n\
                   processed 44 insns (limit 1000000) max_states_per_insn 0 total_states 3\n\n";
        assert_eq!(
            verifier_reason(log),
            Some("combined stack size of 2 calls is 544. Too large")
        );
        assert_eq!(verifier_reason("\n  \n"), None);
        let e = LoadError {
            error: io::Error::from_raw_os_error(libc::EACCES),
            log: log.into(),
        };
        assert!(e.is_verifier_refusal());
        assert!(!e.is_permission());
        let e = LoadError {
            error: io::Error::from_raw_os_error(libc::EPERM),
            log: String::new(),
        };
        assert!(e.is_permission());
        assert!(!e.is_verifier_refusal());
    }

    #[test]
    fn a_verifier_refusal_carries_its_reason() {
        if crate::geteuid() != 0 {
            eprintln!("skipped: needs root");
            return;
        }
        // r0 = r2 (never written); exit.
        let insns = [0xbf, 0x20, 0, 0, 0, 0, 0, 0, 0x95, 0, 0, 0, 0, 0, 0, 0];
        let e = prog_load(ProgType::RawTracepoint, &insns, "dtsys_refused", 0)
            .expect_err("the verifier refuses reading r2");
        assert_eq!(e.error.raw_os_error(), Some(libc::EACCES));
        assert!(e.is_verifier_refusal(), "{}", e);
        assert!(!e.is_permission());
        assert_eq!(e.verifier_reason(), Some("R2 !read_ok"), "{}", e.log);
    }

    #[test]
    fn programs_must_be_whole_instructions() {
        for bad in [&[][..], &[0u8; 12][..]] {
            let e = prog_load(ProgType::Tracepoint, bad, "x", 0).expect_err("refused");
            assert_eq!(e.error.kind(), io::ErrorKind::InvalidInput);
            assert_eq!(e.error.raw_os_error(), None);
        }
    }

    #[test]
    fn tracepoint_names_with_nul_are_refused() {
        let f = std::fs::File::open("/dev/null").expect("open /dev/null");
        let e = raw_tracepoint_open("sys\0enter", &OwnedFd::from(f)).expect_err("refused");
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(e.raw_os_error(), None);
    }

    #[test]
    fn attribute_layouts_match_the_kernel() {
        assert_eq!(std::mem::offset_of!(MapCreateAttr, map_name), 28);
        assert_eq!(std::mem::offset_of!(MapCreateAttr, btf_fd), 48);
        assert_eq!(std::mem::offset_of!(MapCreateAttr, btf_value_type_id), 56);
        assert_eq!(std::mem::offset_of!(MapInfoHead, name), 24);
        assert_eq!(size_of::<InfoAttr>(), 16);
        assert_eq!(size_of::<MapElemAttr>(), 32);
        assert_eq!(size_of::<TestRunAttr>(), 80);
        assert_eq!(std::mem::offset_of!(ProgLoadAttr, prog_name), 48);
        assert_eq!(std::mem::offset_of!(ProgLoadAttr, expected_attach_type), 68);
        assert_eq!(std::mem::offset_of!(ProgInfoHead, name), 64);
    }
}
