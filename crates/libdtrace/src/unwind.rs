//! User stacks unwound in the consumer.
//!
//! `ustack()` records a snapshot (`types::ustack_snapshot`): the thread's
//! instruction, stack and frame pointers and a copy of the top of its
//! stack. Here it is unwound with each object's call frame information
//! (`.eh_frame`, through `.eh_frame_hdr`, or `.debug_frame`, its own or
//! its separate debug file's) by the `framehop` crate, which falls back
//! to the frame pointer where an address has none, as in code without
//! CFI. Nothing in the kernel walks the stack, so code built without
//! frame pointers (most distributions' libraries) unwinds as well as any.
//!
//! The result is a frame list in the form aggregations key by
//! (`types::USTACK_IP`): the process ID, then each frame by its object's
//! build ID and file offset, so it is named after the process is gone.
//! A process's objects come from its mappings (`usym`), each object's
//! unwind sections are read once and shared by every process mapping it,
//! and a snapshot seen before is not unwound again (the cache is by
//! content: a hot probe in a loop copies the same bytes again and again).

use std::collections::HashMap;
use std::hash::Hasher;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use dtrace_lang::types::{ustack_snapshot as us, USTACK_FP};
use framehop::x86_64::{CacheX86_64, UnwindRegsX86_64, UnwinderX86_64};
use framehop::{ExplicitModuleSectionInfo, FrameAddress, Module, Unwinder};
use object::{Object, ObjectSection, ObjectSegment};

type Data = Arc<[u8]>;

/// How a frame was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    /// The first frame: the instruction pointer.
    Pc,
    /// By the call frame information of the frame below it.
    Cfi,
    /// By the frame pointer of the frame below it (no CFI there).
    FramePointer,
}

impl How {
    /// As `-x oformat=json` names it.
    pub fn name(self) -> &'static str {
        match self {
            How::Pc => "pc",
            How::Cfi => "cfi",
            How::FramePointer => "fp",
        }
    }
}

/// An object's unwind sections, its loadable segments (to place a
/// mapping in it), and the address ranges its CFI covers.
struct ObjectCfi {
    name: String,
    text_svma: Option<Range<u64>>,
    text: Option<Data>,
    got_svma: Option<Range<u64>>,
    eh_frame_svma: Option<Range<u64>>,
    eh_frame: Option<Data>,
    eh_frame_hdr_svma: Option<Range<u64>>,
    eh_frame_hdr: Option<Data>,
    debug_frame: Option<Data>,
    /// `PT_LOAD` segments: file offset, address, size in the file.
    segments: Vec<(u64, u64, u64)>,
    /// Sorted, disjoint address ranges of the object's FDEs.
    covered: Vec<(u64, u64)>,
}

impl ObjectCfi {
    fn read(path: &Path) -> Option<ObjectCfi> {
        let bytes = std::fs::read(path).ok()?;
        let file = object::File::parse(&*bytes).ok()?;
        let section = |name: &str| {
            let s = file.section_by_name(name)?;
            let data = s.uncompressed_data().ok()?;
            Some((s.address()..s.address() + s.size(), Data::from(&*data)))
        };
        let text = section(".text");
        let eh_frame = section(".eh_frame");
        let eh_frame_hdr = section(".eh_frame_hdr");
        let mut debug_frame = section(".debug_frame").map(|(_, d)| d);
        if eh_frame.is_none() && debug_frame.is_none() {
            // CFI only in the separate debug file, if any.
            if let Some(debug) = crate::usym::debug_file(path) {
                if let Ok(b) = std::fs::read(&debug) {
                    if let Ok(f) = object::File::parse(&*b) {
                        debug_frame = f
                            .section_by_name(".debug_frame")
                            .and_then(|s| s.uncompressed_data().ok())
                            .map(|d| Data::from(&*d));
                    }
                }
            }
        }
        let segments = load_segments(&file);
        let mut covered = Vec::new();
        if let Some((range, data)) = &eh_frame {
            fde_ranges(
                &gimli::EhFrame::new(data, gimli::NativeEndian),
                &gimli::BaseAddresses::default()
                    .set_eh_frame(range.start)
                    .set_text(text.as_ref().map_or(0, |t| t.0.start)),
                &mut covered,
            );
        }
        if let Some(data) = &debug_frame {
            fde_ranges(
                &gimli::DebugFrame::new(data, gimli::NativeEndian),
                &gimli::BaseAddresses::default(),
                &mut covered,
            );
        }
        covered.sort_unstable();
        Some(ObjectCfi {
            name: path.to_string_lossy().into_owned(),
            text_svma: text.as_ref().map(|t| t.0.clone()),
            text: text.map(|t| t.1),
            got_svma: file
                .section_by_name(".got")
                .map(|s| s.address()..s.address() + s.size()),
            eh_frame_svma: eh_frame.as_ref().map(|t| t.0.clone()),
            eh_frame: eh_frame.map(|t| t.1),
            eh_frame_hdr_svma: eh_frame_hdr.as_ref().map(|t| t.0.clone()),
            eh_frame_hdr: eh_frame_hdr.map(|t| t.1),
            debug_frame,
            segments,
            covered,
        })
    }

    /// Whether CFI describes the object's address `svma`.
    fn covers(&self, svma: u64) -> bool {
        let i = self.covered.partition_point(|&(lo, _)| lo <= svma);
        i > 0 && svma < self.covered[i - 1].1
    }

    /// The address in the object of byte `offset` of its file.
    fn svma_of_offset(&self, offset: u64) -> Option<u64> {
        svma_of_offset(&self.segments, offset)
    }

    fn module(&self, avma: Range<u64>, bias: u64) -> Module<Data> {
        Module::new(
            self.name.clone(),
            avma,
            bias,
            ExplicitModuleSectionInfo {
                base_svma: 0,
                text_svma: self.text_svma.clone(),
                text: self.text.clone(),
                got_svma: self.got_svma.clone(),
                eh_frame_svma: self.eh_frame_svma.clone(),
                eh_frame: self.eh_frame.clone(),
                eh_frame_hdr_svma: self.eh_frame_hdr_svma.clone(),
                eh_frame_hdr: self.eh_frame_hdr.clone(),
                debug_frame: self.debug_frame.clone(),
                ..Default::default()
            },
        )
    }
}

/// An object's `PT_LOAD` segments: file offset, address, size in the
/// file.
pub(crate) fn load_segments(file: &object::File) -> Vec<(u64, u64, u64)> {
    file.segments()
        .map(|s| {
            let (off, size) = s.file_range();
            (off, s.address(), size)
        })
        .collect()
}

/// The address in an object of byte `offset` of its file (the start of
/// a mapping: page-aligned), by its `PT_LOAD` segments (file offset,
/// address, size in the file). A segment begins mid-page, so the page
/// that holds its start may be mapped for it from below its offset (and
/// may hold the end of the segment before, too): the segment is the last
/// whose page-aligned start is at or below the offset.
pub(crate) fn svma_of_offset(segments: &[(u64, u64, u64)], offset: u64) -> Option<u64> {
    segments
        .iter()
        .filter(|&&(off, _, size)| off & !0xfff <= offset && offset < off + size)
        .max_by_key(|s| s.0)
        .map(|&(off, addr, _)| addr.wrapping_add(offset).wrapping_sub(off))
}

/// Adds the address range of every FDE in `section` to `out`.
fn fde_ranges<'a, S>(section: &S, bases: &gimli::BaseAddresses, out: &mut Vec<(u64, u64)>)
where
    S: gimli::UnwindSection<gimli::EndianSlice<'a, gimli::NativeEndian>>,
{
    let mut entries = section.entries(bases);
    while let Ok(Some(e)) = entries.next() {
        if let gimli::CieOrFde::Fde(partial) = e {
            if let Ok(fde) = partial.parse(|s, b, o| s.cie_from_offset(b, o)) {
                let lo = fde.initial_address();
                out.push((lo, lo.saturating_add(fde.len())));
            }
        }
    }
}

/// One process's unwinder: a module per object it maps code from,
/// placed where it is mapped.
struct ProcUnwinder {
    generation: u64,
    unwinder: UnwinderX86_64<Data>,
    /// Each module's mapped range, its load bias and its object.
    modules: Vec<(Range<u64>, u64, Arc<ObjectCfi>)>,
}

impl ProcUnwinder {
    fn covers(&self, addr: u64) -> bool {
        self.modules
            .iter()
            .find(|(r, _, _)| r.contains(&addr))
            .is_some_and(|(_, bias, o)| o.covers(addr.wrapping_sub(*bias)))
    }
}

#[derive(Default)]
struct State {
    objects: HashMap<PathBuf, Option<Arc<ObjectCfi>>>,
    procs: HashMap<u32, ProcUnwinder>,
    cache: Option<CacheX86_64>,
    /// Unwound snapshots by their content's hash.
    seen: HashMap<u64, Vec<u64>>,
    /// Snapshots read from the buffers, by CPU and ID, oldest first in
    /// `order`, `kept` bytes in all.
    snapshots: HashMap<(u32, u64), Vec<u8>>,
    order: std::collections::VecDeque<(u32, u64)>,
    kept: usize,
    /// Snapshots referred to, unwound (their bytes are then let go: a
    /// record may be shown more than once, its stack unwound once), the
    /// oldest first in `done_order`.
    done: HashMap<(u32, u64), Vec<u8>>,
    done_order: std::collections::VecDeque<(u32, u64)>,
}

/// Unwound references remembered at most.
const DONE_MAX: usize = 1 << 16;

/// The bytes of snapshots kept for the records that refer to them (a
/// record follows its snapshots at once, but a speculation's may be
/// committed later, and the `ring` policy's are read at the end).
const KEPT_BYTES: usize = 64 << 20;

/// Keeps a snapshot read from CPU `cpu`'s buffer (the record after its
/// header) for the records that refer to it.
pub fn keep_snapshot(cpu: u32, snap: &[u8]) {
    let id = word(snap, us::ID);
    let mut st = state().lock().unwrap_or_else(|e| e.into_inner());
    while st.kept + snap.len() > KEPT_BYTES {
        let Some(old) = st.order.pop_front() else {
            break;
        };
        if let Some(b) = st.snapshots.remove(&old) {
            st.kept -= b.len();
        }
    }
    // (Those unwound already have left `snapshots`, not `order`.)
    if st.order.len() > 4 * DONE_MAX {
        let live = &st.snapshots;
        let order: std::collections::VecDeque<(u32, u64)> = st
            .order
            .iter()
            .copied()
            .filter(|k| live.contains_key(k))
            .collect();
        st.order = order;
    }
    st.kept += snap.len();
    st.order.push_back((cpu, id));
    if let Some(b) = st.snapshots.insert((cpu, id), snap.to_vec()) {
        st.kept -= b.len();
    }
}

/// Snapshots remembered by content at most (then forgotten at once).
const SEEN_MAX: usize = 1 << 16;

fn state() -> &'static Mutex<State> {
    static STATE: OnceLock<Mutex<State>> = OnceLock::new();
    STATE.get_or_init(Mutex::default)
}

impl State {
    fn object(&mut self, path: &Path) -> Option<Arc<ObjectCfi>> {
        self.objects
            .entry(path.to_path_buf())
            .or_insert_with(|| ObjectCfi::read(path).map(Arc::new))
            .clone()
    }

    /// `pid`'s unwinder, made anew when its mappings were read again.
    fn proc(&mut self, pid: u32) -> Option<&ProcUnwinder> {
        let (generation, maps) = crate::usym::process_maps(pid)?;
        if self
            .procs
            .get(&pid)
            .is_none_or(|p| p.generation != generation)
        {
            // Group the mappings by object: its range, and its bias.
            let mut by_path: Vec<(PathBuf, Range<u64>, u64)> = Vec::new();
            for m in &maps {
                let Some(obj) = self.object(&m.path) else {
                    continue;
                };
                let Some(svma) = obj.svma_of_offset(m.offset) else {
                    continue;
                };
                let bias = m.lo.wrapping_sub(svma);
                match by_path
                    .iter_mut()
                    .find(|(p, _, b)| *p == m.path && *b == bias)
                {
                    Some((_, r, _)) => *r = r.start.min(m.lo)..r.end.max(m.hi),
                    None => by_path.push((m.path.clone(), m.lo..m.hi, bias)),
                }
            }
            let mut unwinder = UnwinderX86_64::new();
            let mut modules = Vec::new();
            for (path, range, bias) in by_path {
                let Some(obj) = self.object(&path) else {
                    continue;
                };
                unwinder.add_module(obj.module(range.clone(), bias));
                modules.push((range, bias, obj));
            }
            self.procs.insert(
                pid,
                ProcUnwinder {
                    generation,
                    unwinder,
                    modules,
                },
            );
        }
        self.procs.get(&pid)
    }
}

/// Whether these bytes are a snapshot or a reference to one (not yet
/// unwound frames).
pub fn is_snapshot(bytes: &[u8]) -> bool {
    word(bytes, us::HEAD) >> 48 == us::TAG >> 48
}

fn word(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8)
        .map(|w| u64::from_ne_bytes(w.try_into().expect("8 bytes")))
        .unwrap_or(0)
}

/// The frames of a snapshot, innermost first, each with how it was
/// found: `(address, how)`, at most the frames it asked for. Only the
/// instruction pointer if the process's mappings were never known.
fn frames(pid: u32, snap: &[u8]) -> Vec<(u64, How)> {
    let max = (word(snap, us::HEAD) & 0xffff) as usize;
    let (ip, sp, bp) = (word(snap, us::IP), word(snap, us::SP), word(snap, us::BP));
    if ip == 0 || max == 0 {
        return Vec::new();
    }
    let len = (word(snap, us::LEN) as usize).min(snap.len().saturating_sub(us::BYTES));
    let stack = &snap[us::BYTES..us::BYTES + len];
    let mut read_stack = |addr: u64| -> Result<u64, ()> {
        let off = addr.checked_sub(sp).ok_or(())? as usize;
        stack
            .get(off..off.checked_add(8).ok_or(())?)
            .map(|w| u64::from_ne_bytes(w.try_into().expect("8 bytes")))
            .ok_or(())
    };
    let mut st = state().lock().unwrap_or_else(|e| e.into_inner());
    let mut cache = st.cache.take().unwrap_or_default();
    let mut out = Vec::new();
    if let Some(p) = st.proc(pid) {
        let mut iter = p.unwinder.iter_frames(
            ip,
            UnwindRegsX86_64::new(ip, sp, bp),
            &mut cache,
            &mut read_stack,
        );
        let mut below: Option<u64> = None;
        while out.len() < max {
            let Ok(Some(f)) = iter.next() else { break };
            let how = match (f, below) {
                (FrameAddress::InstructionPointer(_), _) | (_, None) => How::Pc,
                (_, Some(b)) if p.covers(b) => How::Cfi,
                _ => How::FramePointer,
            };
            let addr = f.address();
            // The frame below a return address is found from the call's
            // own address.
            below = Some(match f {
                FrameAddress::ReturnAddress(_) => addr - 1,
                FrameAddress::InstructionPointer(_) => addr,
            });
            out.push((addr, how));
        }
    } else {
        out.push((ip, How::Pc));
    }
    st.cache = Some(cache);
    out
}

/// A snapshot, or a reference to one, unwound into the frame words
/// aggregations key by: the process ID (with `JIT_PID` for `jstack()`),
/// then a word a frame (`types::USTACK_IP`), then a 0. A reference to a
/// snapshot not kept (dropped, or forgotten) has no frames.
pub fn unwind(bytes: &[u8]) -> Vec<u8> {
    if word(bytes, us::HEAD) & us::REF == 0 {
        return unwind_snapshot(bytes);
    }
    let key = (word(bytes, us::REF_CPU) as u32, word(bytes, us::REF_ID));
    let snap = {
        let mut st = state().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(d) = st.done.get(&key) {
            return d.clone();
        }
        let s = st.snapshots.remove(&key);
        if let Some(s) = &s {
            st.kept -= s.len();
        }
        s
    };
    let Some(s) = snap else {
        let mut out = word(bytes, us::PID).to_ne_bytes().to_vec();
        out.extend_from_slice(&0u64.to_ne_bytes());
        return out;
    };
    let out = unwind_snapshot(&s);
    let mut st = state().lock().unwrap_or_else(|e| e.into_inner());
    if st.done_order.len() >= DONE_MAX {
        if let Some(old) = st.done_order.pop_front() {
            st.done.remove(&old);
        }
    }
    st.done_order.push_back(key);
    st.done.insert(key, out.clone());
    out
}

fn unwind_snapshot(snap: &[u8]) -> Vec<u8> {
    let pid = word(snap, us::PID);
    let len = (word(snap, us::LEN) as usize).min(snap.len().saturating_sub(us::BYTES));
    // The content: the snapshot but its ID.
    let mut h = rustc_hash::FxHasher::default();
    h.write(snap.get(..us::ID).unwrap_or(snap));
    h.write(snap.get(us::BYTES..us::BYTES + len).unwrap_or(&[]));
    let key = h.finish();
    let cached = {
        let st = state().lock().unwrap_or_else(|e| e.into_inner());
        st.seen.get(&key).cloned()
    };
    let words = match cached {
        Some(w) => w,
        None => {
            // What was mapped up to now (the snapshot's process mapped
            // its objects before it ran in them).
            crate::usym::drain_mappings();
            let pid32 = u32::try_from(pid).unwrap_or(0);
            let frames = if pid32 == 0 {
                Vec::new()
            } else {
                frames(pid32, snap)
            };
            let words: Vec<u64> = frames
                .iter()
                .map(|&(addr, how)| {
                    let fp = if how == How::FramePointer {
                        USTACK_FP
                    } else {
                        0
                    };
                    crate::usym::frame_word(pid32, addr) | fp
                })
                .collect();
            let mut st = state().lock().unwrap_or_else(|e| e.into_inner());
            if st.seen.len() >= SEEN_MAX {
                st.seen.clear();
            }
            st.seen.insert(key, words.clone());
            words
        }
    };
    let mut out = Vec::with_capacity(8 * (words.len() + 2));
    let jit = if word(snap, us::HEAD) & us::JIT != 0 {
        us::JIT_PID
    } else {
        0
    };
    out.extend_from_slice(&(pid | jit).to_ne_bytes());
    for w in words {
        out.extend_from_slice(&w.to_ne_bytes());
    }
    out.extend_from_slice(&0u64.to_ne_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mappings_place_their_segments() {
        // A PIE's segments: read-only from 0, text from 0x2d3f0 at
        // 0x2e3f0 (a page apart from its offset), data after.
        let segs = [
            (0, 0, 0x2d3f0),
            (0x2d3f0, 0x2e3f0, 0x1000),
            (0x2e400, 0x30400, 0x100),
        ];
        // The text's mapping starts at the page of its offset.
        assert_eq!(svma_of_offset(&segs, 0x2d000), Some(0x2e000));
        assert_eq!(svma_of_offset(&segs, 0), Some(0));
        assert_eq!(svma_of_offset(&segs, 0x2e000), Some(0x30000));
        assert_eq!(svma_of_offset(&segs, 0x90000), None);
    }

    #[test]
    fn snapshots_and_references_are_told() {
        let mut snap = vec![0u8; us::BYTES];
        snap[us::HEAD..us::HEAD + 8].copy_from_slice(&(us::TAG | 5).to_ne_bytes());
        assert!(is_snapshot(&snap));
        // No registers: no frames.
        assert_eq!(unwind(&snap), [0u8; 16].to_vec());
        // A reference to a snapshot never kept: the process, no frames.
        let mut r = vec![0u8; 32];
        r[..8].copy_from_slice(&7u64.to_ne_bytes());
        r[us::HEAD..us::HEAD + 8].copy_from_slice(&(us::TAG | us::REF | 5).to_ne_bytes());
        let out = unwind(&r);
        assert_eq!(&out[..8], &7u64.to_ne_bytes());
        assert_eq!(out.len(), 16);
        assert!(!is_snapshot(&[0u8; 16]));
    }
}
