//! A small assembler: instruction buffer, forward and backward labels, and
//! map relocations resolved by the loader once maps have file descriptors.
//! `finish` drops unreachable code (the verifier refuses it) and turns a
//! jump longer than [`SHORT_JUMP_LIMIT`] into `gotol`, repeating until no
//! jump changes.
//!
//! A region marked *exit-first* ([`Asm::exit_first_begin`]) is a loop the
//! verifier walks turn by turn (kernels without the number iterator):
//! there a conditional jump out of the region becomes `jcc!cond +1; ja
//! target`, so the verifier follows the way out first and keeps the next
//! turn pending, not the other way round. Each way out is then checked
//! (or pruned) at once, and the verifier's stack of pending branches stays
//! a few deep per loop instead of growing by every exit of every turn
//! (it refuses a program past 8192: "The sequence of 8193 jumps is too
//! complex").

use crate::insn::*;

/// The longest span a 16-bit jump is given. The verifier rewrites some
/// instructions into several (division checks, inlined helpers and map
/// lookups, up to about eight each) and refuses to load a program when a
/// jump it must stretch no longer fits in 16 bits ("cannot be patched due
/// to 16-bit range"), so jumps keep that much room.
pub const SHORT_JUMP_LIMIT: i64 = 4096;

/// A position in the program, bound once, jumped to any number of times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Label(usize);

/// Identifies a map among those the back end asked for (`MapSpec`s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MapId(pub u32);

/// An instruction whose immediate must be patched with a map's fd.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MapReloc {
    /// Index of the first half of the `lddw`.
    pub insn: usize,
    pub map: MapId,
    /// One of the maps a map stands for (a CPU's ring buffer, of the
    /// principal buffers), or the map itself.
    pub part: Option<u32>,
}

#[derive(Default)]
pub struct Asm {
    insns: Vec<Insn>,
    labels: Vec<Option<usize>>,
    fixups: Vec<(usize, Label)>,
    call_fixups: Vec<(usize, Label)>,
    relocs: Vec<MapReloc>,
    /// Exit-first regions: first instruction, and the end once closed.
    regions: Vec<(usize, Option<usize>)>,
}

/// An exit-first region being emitted (see the module's doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region(usize);

/// An assembled program, jumps resolved, map references still symbolic.
#[derive(Clone, Debug, Default)]
pub struct Assembled {
    pub insns: Vec<Insn>,
    pub relocs: Vec<MapReloc>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum AsmError {
    UnboundLabel,
    JumpTooFar,
}

impl Asm {
    pub fn new() -> Asm {
        Asm::default()
    }

    pub fn len(&self) -> usize {
        self.insns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.insns.is_empty()
    }

    pub fn emit(&mut self, i: Insn) {
        self.insns.push(i);
    }

    pub fn emit2(&mut self, pair: [Insn; 2]) {
        self.insns.extend_from_slice(&pair);
    }

    pub fn new_label(&mut self) -> Label {
        self.labels.push(None);
        Label(self.labels.len() - 1)
    }

    pub fn bind(&mut self, l: Label) {
        debug_assert!(self.labels[l.0].is_none(), "label bound twice");
        self.labels[l.0] = Some(self.insns.len());
    }

    fn branch(&mut self, i: Insn, target: Label) {
        self.fixups.push((self.insns.len(), target));
        self.insns.push(i);
    }

    pub fn ja_to(&mut self, target: Label) {
        self.branch(ja(0), target);
    }

    pub fn jmp_imm_to(&mut self, cond: Cond, r: Reg, imm: i32, target: Label) {
        self.branch(jmp_imm(cond, r, imm, 0), target);
    }

    pub fn jmp_reg_to(&mut self, cond: Cond, a: Reg, b: Reg, target: Label) {
        self.branch(jmp_reg(cond, a, b, 0), target);
    }

    /// Starts an exit-first region here.
    pub fn exit_first_begin(&mut self) -> Region {
        self.regions.push((self.insns.len(), None));
        Region(self.regions.len() - 1)
    }

    /// Ends the region here: a label bound at this point is outside it.
    pub fn exit_first_end(&mut self, r: Region) {
        self.regions[r.0].1 = Some(self.insns.len());
    }

    /// True if the conditional jump at `at` to `target` leaves the
    /// innermost exit-first region around it (and can be turned round:
    /// `jset` has no opposite).
    fn leaves_region(&self, at: usize, target: usize) -> bool {
        let ins = &self.insns[at];
        if is_ja(ins) || ins.code & 0xf0 == Cond::Set as u8 {
            return false;
        }
        self.regions
            .iter()
            .filter_map(|&(s, e)| Some((s, e?)))
            .filter(|&(s, e)| s <= at && at < e)
            .max_by_key(|&(s, _)| s)
            .is_some_and(|(s, e)| target < s || target >= e)
    }

    /// A BPF-to-BPF call to the subprogram starting at `target`.
    pub fn call_to(&mut self, target: Label) {
        self.call_fixups.push((self.insns.len(), target));
        self.insns.push(call_local(0));
    }

    /// Loads the address of the subprogram at `target` into `dst` (a
    /// callback: `bpf_loop`'s).
    pub fn ld_func(&mut self, dst: Reg, target: Label) {
        self.call_fixups.push((self.insns.len(), target));
        self.emit2(lddw_pseudo(dst, BPF_PSEUDO_FUNC, 0, 0));
    }

    /// Loads the map's handle (for helper calls) into `dst`.
    pub fn ld_map_fd(&mut self, dst: Reg, map: MapId) {
        self.relocs.push(MapReloc {
            insn: self.insns.len(),
            map,
            part: None,
        });
        self.emit2(lddw_pseudo(dst, BPF_PSEUDO_MAP_FD, 0, 0));
    }

    /// Loads a handle on map `part` of the maps `map` stands for (CPU
    /// `part`'s ring buffer, of the principal buffers).
    pub fn ld_map_fd_part(&mut self, dst: Reg, map: MapId, part: u32) {
        self.relocs.push(MapReloc {
            insn: self.insns.len(),
            map,
            part: Some(part),
        });
        self.emit2(lddw_pseudo(dst, BPF_PSEUDO_MAP_FD, 0, 0));
    }

    /// Loads the address of byte `offset` of element 0 of an array map.
    pub fn ld_map_value(&mut self, dst: Reg, map: MapId, offset: u32) {
        self.relocs.push(MapReloc {
            insn: self.insns.len(),
            map,
            part: None,
        });
        self.emit2(lddw_pseudo(dst, BPF_PSEUDO_MAP_VALUE, 0, offset as i32));
    }

    /// Loads a handle on the vmlinux variable whose BTF VAR is `btf_id`
    /// (for `bpf_this_cpu_ptr` and `bpf_per_cpu_ptr`).
    pub fn ld_btf_id(&mut self, dst: Reg, btf_id: u32) {
        self.emit2(lddw_pseudo(dst, BPF_PSEUDO_BTF_ID, btf_id as i32, 0));
    }

    /// Resolves labels and drops unreachable code. A conditional jump too
    /// far for its 16-bit offset becomes `jcc +1; ja +1; gotol target`, an
    /// unconditional one `gotol`; since growing code can push other jumps
    /// out of range, this is repeated until nothing changes.
    pub fn finish(self) -> Result<Assembled, AsmError> {
        self.finish_for(true)
    }

    /// As [`Asm::finish`], for a kernel with or without `gotol` (Linux
    /// 6.4): without, jumps keep their 16-bit form up to its full reach
    /// (the verifier's stretching may then refuse the longest), and only
    /// a jump beyond it takes the long form, which such a kernel refuses.
    pub fn finish_for(self, long_jumps: bool) -> Result<Assembled, AsmError> {
        let limit = if long_jumps {
            SHORT_JUMP_LIMIT
        } else {
            i64::from(i16::MAX)
        };
        let n = self.insns.len();
        let mut targets = Vec::with_capacity(self.fixups.len());
        for &(at, label) in &self.fixups {
            targets.push((at, self.labels[label.0].ok_or(AsmError::UnboundLabel)?));
        }
        for &(_, label) in &self.call_fixups {
            self.labels[label.0].ok_or(AsmError::UnboundLabel)?;
        }
        // turn[k]: fixup k leaves an exit-first region, so it is turned
        // round (`jcc!cond +1` then the jump itself, from one further on).
        let turn: Vec<bool> = targets
            .iter()
            .map(|&(at, target)| self.leaves_region(at, target))
            .collect();
        // far[k]: fixup k needs the long form.
        let mut far = vec![false; targets.len()];
        // pos[i]: where original instruction i lands; pos[n] is the end.
        let mut pos = vec![0usize; n + 1];
        loop {
            let mut extra = vec![0usize; n];
            for (k, &(at, _)) in targets.iter().enumerate() {
                if turn[k] {
                    extra[at] = 1;
                } else if far[k] && !is_ja(&self.insns[at]) {
                    extra[at] = 2;
                }
            }
            let mut p = 0;
            for i in 0..n {
                pos[i] = p;
                p += 1 + extra[i];
            }
            pos[n] = p;
            let mut changed = false;
            for (k, &(at, target)) in targets.iter().enumerate() {
                if far[k] {
                    continue;
                }
                let from = pos[at] + usize::from(turn[k]);
                let off = pos[target] as i64 - from as i64 - 1;
                if off.abs() > limit {
                    far[k] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        if i32::try_from(pos[n]).is_err() {
            return Err(AsmError::JumpTooFar);
        }
        let mut insns = Vec::with_capacity(pos[n]);
        let mut fix = targets.iter().zip(far.iter().zip(&turn)).peekable();
        for (i, ins) in self.insns.iter().enumerate() {
            let mut ins = *ins;
            match fix.peek() {
                Some(&(&(at, target), (&long, &turned))) if at == i => {
                    fix.next();
                    if turned {
                        ins.code = (ins.code & 0x0f) | negate_op(ins.code & 0xf0);
                        ins.off = 1;
                        insns.push(ins);
                        let off = (pos[target] as i64 - (pos[i] + 1) as i64 - 1) as i32;
                        insns.push(if long { gotol(off) } else { ja(off as i16) });
                    } else if long && is_ja(&ins) {
                        insns.push(gotol((pos[target] as i64 - pos[i] as i64 - 1) as i32));
                    } else if long {
                        ins.off = 1;
                        insns.push(ins);
                        insns.push(ja(1));
                        let at = pos[i] + 2;
                        insns.push(gotol((pos[target] as i64 - at as i64 - 1) as i32));
                    } else {
                        ins.off = (pos[target] as i64 - pos[i] as i64 - 1) as i16;
                        insns.push(ins);
                    }
                }
                _ => insns.push(ins),
            }
        }
        for &(at, label) in &self.call_fixups {
            let target = self.labels[label.0].ok_or(AsmError::UnboundLabel)?;
            insns[pos[at]].imm = (pos[target] as i64 - pos[at] as i64 - 1) as i32;
        }
        let relocs = self
            .relocs
            .iter()
            .map(|r| MapReloc {
                insn: pos[r.insn],
                ..*r
            })
            .collect();
        let (insns, relocs) = drop_unreachable(insns, relocs);
        Ok(Assembled { insns, relocs })
    }
}

/// The jump operation that holds exactly when `op` does not (`jset`
/// excepted, which is never turned round).
fn negate_op(op: u8) -> u8 {
    [
        Cond::Eq,
        Cond::Ne,
        Cond::Gt,
        Cond::Le,
        Cond::Ge,
        Cond::Lt,
        Cond::Sgt,
        Cond::Sle,
        Cond::Sge,
        Cond::Slt,
    ]
    .into_iter()
    .find(|&c| c as u8 == op)
    .map_or(op, |c| c.negate() as u8)
}

/// The first half of an `lddw` of a subprogram's address.
fn is_func_addr(i: &Insn) -> bool {
    i.is_lddw() && i.src == BPF_PSEUDO_FUNC
}

fn is_local_call(i: &Insn) -> bool {
    i.code == BPF_JMP | 0x80 && i.src == 1
}

fn is_exit(i: &Insn) -> bool {
    i.code == BPF_JMP | 0x90
}

/// An unconditional jump, short (`ja`) or long (`gotol`).
fn is_ja(i: &Insn) -> bool {
    i.code == BPF_JMP || i.is_gotol()
}

/// Removes instructions no path reaches (the verifier refuses them), and
/// re-targets every jump, call and relocation.
fn drop_unreachable(insns: Vec<Insn>, relocs: Vec<MapReloc>) -> (Vec<Insn>, Vec<MapReloc>) {
    let n = insns.len();
    let mut live = vec![false; n];
    let mut work = vec![0usize];
    while let Some(i) = work.pop() {
        if i >= n || live[i] {
            continue;
        }
        live[i] = true;
        let ins = &insns[i];
        if ins.is_lddw() {
            if i + 1 < n {
                live[i + 1] = true;
            }
            work.push(i + 2);
            if is_func_addr(ins) {
                work.push((i as i64 + 1 + i64::from(ins.imm)) as usize);
            }
        } else if is_exit(ins) {
        } else if is_local_call(ins) {
            work.push(i + 1);
            work.push((i as i64 + 1 + i64::from(ins.imm)) as usize);
        } else if ins.is_branch() {
            work.push((i as i64 + 1 + ins.branch_offset()) as usize);
            if !is_ja(ins) {
                work.push(i + 1);
            }
        } else {
            work.push(i + 1);
        }
    }
    if live.iter().all(|&l| l) {
        return (insns, relocs);
    }
    let mut new_index = vec![usize::MAX; n + 1];
    let mut k = 0;
    for i in 0..n {
        if live[i] {
            new_index[i] = k;
            k += 1;
        }
    }
    new_index[n] = k;
    let mut out = Vec::with_capacity(k);
    for i in 0..n {
        if !live[i] {
            continue;
        }
        let mut ins = insns[i];
        let here = new_index[i] as i64;
        if is_local_call(&ins) || is_func_addr(&ins) {
            let t = (i as i64 + 1 + i64::from(ins.imm)) as usize;
            ins.imm = (new_index[t] as i64 - here - 1) as i32;
        } else if ins.is_gotol() {
            let t = (i as i64 + 1 + ins.branch_offset()) as usize;
            ins.imm = (new_index[t] as i64 - here - 1) as i32;
        } else if ins.is_branch() {
            // Removing code only brings targets closer.
            let t = (i as i64 + 1 + ins.branch_offset()) as usize;
            ins.off = (new_index[t] as i64 - here - 1) as i16;
        }
        out.push(ins);
    }
    let relocs = relocs
        .into_iter()
        .filter(|r| live[r.insn])
        .map(|r| MapReloc {
            insn: new_index[r.insn],
            ..r
        })
        .collect();
    (out, relocs)
}

impl Assembled {
    /// Little-endian bytes for `BPF_PROG_LOAD`, with each relocated `lddw`
    /// given the file descriptor `fd_of` returns for its map (and the
    /// part of it, for `ld_map_fd_part`).
    pub fn link(&self, fd_of: impl Fn(MapId, Option<u32>) -> i32) -> Vec<Insn> {
        let mut out = self.insns.clone();
        for r in &self.relocs {
            out[r.insn].imm = fd_of(r.map, r.part);
        }
        out
    }

    pub fn disassemble(&self) -> String {
        let mut s = String::new();
        let mut skip = false;
        for (n, i) in self.insns.iter().enumerate() {
            if skip {
                skip = false;
                continue;
            }
            if i.is_lddw() {
                skip = true;
                let hi = self.insns.get(n + 1).map(|x| x.imm).unwrap_or(0);
                s.push_str(&format!(
                    "{:4}: lddw r{}, src={} imm={} imm2={}\n",
                    n, i.dst, i.src, i.imm, hi
                ));
            } else {
                s.push_str(&format!("{:4}: {}\n", n, disassemble_one(i)));
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_forward_and_backward_labels() {
        let mut a = Asm::new();
        let top = a.new_label();
        let out = a.new_label();
        a.bind(top);
        a.emit(mov64_imm(R0, 0));
        a.jmp_imm_to(Cond::Eq, R0, 1, out);
        a.ja_to(top);
        a.bind(out);
        a.emit(exit());
        let p = a.finish().unwrap();
        assert_eq!(p.insns[1].off, 1);
        assert_eq!(p.insns[2].off, -3);
    }

    #[test]
    fn exits_of_an_exit_first_region_are_turned_round() {
        let mut a = Asm::new();
        let top = a.new_label();
        let inside = a.new_label();
        let out = a.new_label();
        let r = a.exit_first_begin();
        a.bind(top);
        a.emit(mov64_imm(R0, 0));
        a.jmp_imm_to(Cond::Gt, R0, 7, out); // 1: out of the region
        a.jmp_imm_to(Cond::Eq, R0, 1, inside); // within: kept
        a.jmp_imm_to(Cond::Set, R0, 2, out); // jset: no opposite, kept
        a.bind(inside);
        a.ja_to(top);
        a.bind(out);
        a.exit_first_end(r);
        a.emit(exit());
        let p = a.finish().unwrap();
        // mov; jle +1; ja out; jeq; jset; ja top; exit
        assert_eq!(p.insns.len(), 7);
        assert_eq!(p.insns[1].code & 0xf0, Cond::Le as u8);
        assert_eq!(target(&p, 1), 3);
        assert!(is_ja(&p.insns[2]));
        assert_eq!(target(&p, 2), 6);
        assert_eq!(p.insns[3].code & 0xf0, Cond::Eq as u8);
        assert_eq!(target(&p, 3), 5);
        assert_eq!(p.insns[4].code & 0xf0, Cond::Set as u8);
        assert_eq!(target(&p, 4), 6);
        assert_eq!(target(&p, 5), 0);
    }

    /// Where a branch at `i` lands.
    fn target(p: &Assembled, i: usize) -> usize {
        (i as i64 + 1 + p.insns[i].branch_offset()) as usize
    }

    #[test]
    fn far_jumps_take_the_long_form_until_stable() {
        let mut a = Asm::new();
        let far = a.new_label();
        let near = a.new_label();
        a.jmp_imm_to(Cond::Set, R1, 4, far);
        a.jmp_imm_to(Cond::Eq, R1, 0, near);
        a.ja_to(far);
        a.bind(near);
        for _ in 0..40_000 {
            a.emit(mov64_imm(R0, 1));
        }
        a.bind(far);
        a.emit(exit());
        let p = a.finish().unwrap();
        let end = p.insns.len() - 1;
        // jcc +1; ja +1; gotol far
        assert_eq!(p.insns[0].off, 1);
        assert_eq!(p.insns[1], ja(1));
        assert!(p.insns[2].is_gotol());
        assert_eq!(target(&p, 2), end);
        // The near jump stays short and skips the long unconditional one.
        assert_eq!(p.insns[3].code & 0x07, BPF_JMP);
        assert_eq!(target(&p, 3), 5);
        assert!(p.insns[4].is_gotol());
        assert_eq!(target(&p, 4), end);
        assert_eq!(p.insns.len(), 5 + 40_000 + 1);
    }

    #[test]
    fn backward_far_jumps_and_calls_are_retargeted() {
        let mut a = Asm::new();
        let top = a.new_label();
        let sub = a.new_label();
        a.bind(top);
        a.emit(mov64_imm(R0, 0));
        a.call_to(sub);
        for _ in 0..10_000 {
            a.emit(mov64_imm(R0, 1));
        }
        a.jmp_imm_to(Cond::Eq, R0, 0, top);
        a.emit(exit());
        a.bind(sub);
        a.emit(exit());
        let p = a.finish().unwrap();
        let j = 2 + 10_000;
        assert!(p.insns[j + 2].is_gotol());
        assert_eq!(target(&p, j + 2), 0);
        assert_eq!((2 + p.insns[1].imm) as usize, p.insns.len() - 1);
    }

    #[test]
    fn unbound_label_is_an_error() {
        let mut a = Asm::new();
        let l = a.new_label();
        a.ja_to(l);
        assert_eq!(a.finish().unwrap_err(), AsmError::UnboundLabel);
    }

    #[test]
    fn unreachable_code_is_dropped_and_jumps_retargeted() {
        let mut a = Asm::new();
        let end = a.new_label();
        a.ld_map_fd(R1, MapId(0));
        a.ja_to(end);
        a.emit(mov64_imm(R0, 7)); // never reached
        a.ld_map_fd(R2, MapId(1)); // never reached
        a.bind(end);
        a.emit(mov64_imm(R0, 0));
        a.emit(exit());
        let p = a.finish().unwrap();
        assert_eq!(p.insns.len(), 5);
        assert_eq!(p.insns[2].off, 0);
        assert_eq!(p.relocs.len(), 1);
    }

    #[test]
    fn relocations_patch_map_fds() {
        let mut a = Asm::new();
        a.ld_map_fd(R1, MapId(3));
        a.emit(exit());
        let p = a.finish().unwrap();
        let linked = p.link(|m, _| 100 + m.0 as i32);
        assert_eq!(linked[0].imm, 103);
        assert_eq!(linked[0].src, BPF_PSEUDO_MAP_FD);
    }
}
