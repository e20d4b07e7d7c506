//! A small assembler: instruction buffer, forward and backward labels, and
//! map relocations resolved by the loader once maps have file descriptors.

use crate::insn::*;

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
}

#[derive(Default)]
pub struct Asm {
    insns: Vec<Insn>,
    labels: Vec<Option<usize>>,
    fixups: Vec<(usize, Label)>,
    call_fixups: Vec<(usize, Label)>,
    relocs: Vec<MapReloc>,
}

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

    /// A BPF-to-BPF call to the subprogram starting at `target`.
    pub fn call_to(&mut self, target: Label) {
        self.call_fixups.push((self.insns.len(), target));
        self.insns.push(call_local(0));
    }

    /// Loads the map's handle (for helper calls) into `dst`.
    pub fn ld_map_fd(&mut self, dst: Reg, map: MapId) {
        self.relocs.push(MapReloc {
            insn: self.insns.len(),
            map,
        });
        self.emit2(lddw_pseudo(dst, BPF_PSEUDO_MAP_FD, 0, 0));
    }

    /// Loads the address of byte `offset` of element 0 of an array map.
    pub fn ld_map_value(&mut self, dst: Reg, map: MapId, offset: u32) {
        self.relocs.push(MapReloc {
            insn: self.insns.len(),
            map,
        });
        self.emit2(lddw_pseudo(dst, BPF_PSEUDO_MAP_VALUE, 0, offset as i32));
    }

    pub fn finish(mut self) -> Result<Assembled, AsmError> {
        for (at, label) in std::mem::take(&mut self.fixups) {
            let target = self.labels[label.0].ok_or(AsmError::UnboundLabel)?;
            let off = target as i64 - at as i64 - 1;
            self.insns[at].off = i16::try_from(off).map_err(|_| AsmError::JumpTooFar)?;
        }
        for (at, label) in std::mem::take(&mut self.call_fixups) {
            let target = self.labels[label.0].ok_or(AsmError::UnboundLabel)?;
            self.insns[at].imm = (target as i64 - at as i64 - 1) as i32;
        }
        let (insns, relocs) = drop_unreachable(self.insns, self.relocs);
        Ok(Assembled { insns, relocs })
    }
}

fn is_local_call(i: &Insn) -> bool {
    i.code == BPF_JMP | 0x80 && i.src == 1
}

fn is_exit(i: &Insn) -> bool {
    i.code == BPF_JMP | 0x90
}

fn is_ja(i: &Insn) -> bool {
    i.code == BPF_JMP
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
        } else if is_exit(ins) {
        } else if is_local_call(ins) {
            work.push(i + 1);
            work.push((i as i64 + 1 + i64::from(ins.imm)) as usize);
        } else if ins.is_branch() {
            work.push((i as i64 + 1 + i64::from(ins.off)) as usize);
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
        if is_local_call(&ins) {
            let t = (i as i64 + 1 + i64::from(ins.imm)) as usize;
            ins.imm = (new_index[t] as i64 - here - 1) as i32;
        } else if ins.is_branch() {
            let t = (i as i64 + 1 + i64::from(ins.off)) as usize;
            ins.off = (new_index[t] as i64 - here - 1) as i16;
        }
        out.push(ins);
    }
    let relocs = relocs
        .into_iter()
        .filter(|r| live[r.insn])
        .map(|r| MapReloc {
            insn: new_index[r.insn],
            map: r.map,
        })
        .collect();
    (out, relocs)
}

impl Assembled {
    /// Little-endian bytes for `BPF_PROG_LOAD`, with each relocated `lddw`
    /// given the file descriptor `fd_of` returns for its map.
    pub fn link(&self, fd_of: impl Fn(MapId) -> i32) -> Vec<Insn> {
        let mut out = self.insns.clone();
        for r in &self.relocs {
            out[r.insn].imm = fd_of(r.map);
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
        let linked = p.link(|m| 100 + m.0 as i32);
        assert_eq!(linked[0].imm, 103);
        assert_eq!(linked[0].src, BPF_PSEUDO_MAP_FD);
    }
}
