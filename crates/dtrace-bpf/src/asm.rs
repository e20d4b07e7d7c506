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
        Ok(Assembled {
            insns: self.insns,
            relocs: self.relocs,
        })
    }
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
