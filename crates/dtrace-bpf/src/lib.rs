pub mod asm;
pub mod insn;
