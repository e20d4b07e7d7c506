//! The eBPF instruction set: encodings, constructors and a disassembler for
//! debugging. Everything here is plain data; nothing talks to the kernel.

use std::fmt;

/// A register of the BPF machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(pub u8);

pub const R0: Reg = Reg(0);
pub const R1: Reg = Reg(1);
pub const R2: Reg = Reg(2);
pub const R3: Reg = Reg(3);
pub const R4: Reg = Reg(4);
pub const R5: Reg = Reg(5);
pub const R6: Reg = Reg(6);
pub const R7: Reg = Reg(7);
pub const R8: Reg = Reg(8);
pub const R9: Reg = Reg(9);
/// The read-only frame pointer.
pub const FP: Reg = Reg(10);

// Instruction classes.
pub const BPF_LD: u8 = 0x00;
pub const BPF_LDX: u8 = 0x01;
pub const BPF_ST: u8 = 0x02;
pub const BPF_STX: u8 = 0x03;
pub const BPF_ALU: u8 = 0x04;
pub const BPF_JMP: u8 = 0x05;
pub const BPF_JMP32: u8 = 0x06;
pub const BPF_ALU64: u8 = 0x07;

// Memory access sizes.
pub const BPF_W: u8 = 0x00;
pub const BPF_H: u8 = 0x08;
pub const BPF_B: u8 = 0x10;
pub const BPF_DW: u8 = 0x18;

// Memory access modes.
pub const BPF_IMM: u8 = 0x00;
pub const BPF_MEM: u8 = 0x60;
pub const BPF_MEMSX: u8 = 0x80;
pub const BPF_ATOMIC: u8 = 0xc0;

// Operand source.
pub const BPF_K: u8 = 0x00;
pub const BPF_X: u8 = 0x08;

/// ALU operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alu {
    Add = 0x00,
    Sub = 0x10,
    Mul = 0x20,
    Div = 0x30,
    Or = 0x40,
    And = 0x50,
    Lsh = 0x60,
    Rsh = 0x70,
    Neg = 0x80,
    Mod = 0x90,
    Xor = 0xa0,
    Mov = 0xb0,
    Arsh = 0xc0,
}

/// Conditional jump conditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    Eq = 0x10,
    Gt = 0x20,
    Ge = 0x30,
    Set = 0x40,
    Ne = 0x50,
    Sgt = 0x60,
    Sge = 0x70,
    Lt = 0xa0,
    Le = 0xb0,
    Slt = 0xc0,
    Sle = 0xd0,
}

impl Cond {
    /// The condition that holds exactly when this one does not.
    pub fn negate(self) -> Cond {
        match self {
            Cond::Eq => Cond::Ne,
            Cond::Ne => Cond::Eq,
            Cond::Gt => Cond::Le,
            Cond::Le => Cond::Gt,
            Cond::Ge => Cond::Lt,
            Cond::Lt => Cond::Ge,
            Cond::Sgt => Cond::Sle,
            Cond::Sle => Cond::Sgt,
            Cond::Sge => Cond::Slt,
            Cond::Slt => Cond::Sge,
            // JSET has no negated form; callers never negate it.
            Cond::Set => Cond::Set,
        }
    }
}

const JA: u8 = 0x00;
const CALL: u8 = 0x80;
const EXIT: u8 = 0x90;

/// Access size of a load or store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    B,
    H,
    W,
    DW,
}

impl Size {
    pub fn bits(self) -> u8 {
        match self {
            Size::B => BPF_B,
            Size::H => BPF_H,
            Size::W => BPF_W,
            Size::DW => BPF_DW,
        }
    }

    pub fn bytes(self) -> u32 {
        match self {
            Size::B => 1,
            Size::H => 2,
            Size::W => 4,
            Size::DW => 8,
        }
    }

    /// The access size for an integer of `bytes` bytes.
    pub fn of_bytes(bytes: u32) -> Size {
        match bytes {
            1 => Size::B,
            2 => Size::H,
            4 => Size::W,
            _ => Size::DW,
        }
    }
}

/// `src_reg` of a 64-bit immediate load naming a map by file descriptor.
pub const BPF_PSEUDO_MAP_FD: u8 = 1;
/// `src_reg` of a 64-bit immediate load giving the address of a map value.
pub const BPF_PSEUDO_MAP_VALUE: u8 = 2;
/// A 64-bit load of a kernel variable known by its BTF id.
pub const BPF_PSEUDO_BTF_ID: u8 = 3;
/// `lddw` of a subprogram's address (a callback, for `bpf_loop`): its
/// immediate is the subprogram's offset, as a call's is.
pub const BPF_PSEUDO_FUNC: u8 = 4;

/// Kernel helper functions the code generator calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Helper {
    MapLookupElem = 1,
    MapUpdateElem = 2,
    MapDeleteElem = 3,
    KtimeGetNs = 5,
    GetPrandomU32 = 7,
    GetSmpProcessorId = 8,
    GetCurrentPidTgid = 14,
    GetCurrentUidGid = 15,
    GetCurrentComm = 16,
    GetCurrentTask = 35,
    ProbeWriteUser = 36,
    GetStack = 67,
    SendSignal = 109,
    ProbeReadUser = 112,
    ProbeReadKernel = 113,
    ProbeReadUserStr = 114,
    ProbeReadKernelStr = 115,
    RingbufOutput = 130,
    RingbufReserve = 131,
    RingbufSubmit = 132,
    RingbufDiscard = 133,
    RingbufQuery = 134,
    CopyFromUser = 148,
    ThisCpuPtr = 154,
    TaskStorageGet = 156,
    GetCurrentTaskBtf = 158,
    GetFuncIp = 173,
    GetAttachCookie = 174,
    TaskPtRegs = 175,
    Loop = 181,
    Strncmp = 182,
}

impl Helper {
    /// Every helper the generator calls, for naming calls in disassembly.
    pub const ALL: &'static [Helper] = &[
        Helper::MapLookupElem,
        Helper::MapUpdateElem,
        Helper::MapDeleteElem,
        Helper::KtimeGetNs,
        Helper::GetPrandomU32,
        Helper::GetSmpProcessorId,
        Helper::GetCurrentPidTgid,
        Helper::GetCurrentUidGid,
        Helper::GetCurrentComm,
        Helper::GetCurrentTask,
        Helper::ProbeWriteUser,
        Helper::GetStack,
        Helper::SendSignal,
        Helper::ProbeReadUser,
        Helper::ProbeReadKernel,
        Helper::ProbeReadUserStr,
        Helper::ProbeReadKernelStr,
        Helper::RingbufOutput,
        Helper::RingbufReserve,
        Helper::RingbufSubmit,
        Helper::RingbufDiscard,
        Helper::RingbufQuery,
        Helper::CopyFromUser,
        Helper::ThisCpuPtr,
        Helper::TaskStorageGet,
        Helper::GetCurrentTaskBtf,
        Helper::GetFuncIp,
        Helper::GetAttachCookie,
        Helper::TaskPtRegs,
        Helper::Loop,
        Helper::Strncmp,
    ];

    /// The kernel's name for the helper (`bpf_ktime_get_ns`).
    pub fn name(self) -> &'static str {
        match self {
            Helper::MapLookupElem => "bpf_map_lookup_elem",
            Helper::MapUpdateElem => "bpf_map_update_elem",
            Helper::MapDeleteElem => "bpf_map_delete_elem",
            Helper::KtimeGetNs => "bpf_ktime_get_ns",
            Helper::GetPrandomU32 => "bpf_get_prandom_u32",
            Helper::GetSmpProcessorId => "bpf_get_smp_processor_id",
            Helper::GetCurrentPidTgid => "bpf_get_current_pid_tgid",
            Helper::GetCurrentUidGid => "bpf_get_current_uid_gid",
            Helper::GetCurrentComm => "bpf_get_current_comm",
            Helper::GetCurrentTask => "bpf_get_current_task",
            Helper::ProbeWriteUser => "bpf_probe_write_user",
            Helper::GetStack => "bpf_get_stack",
            Helper::SendSignal => "bpf_send_signal",
            Helper::ProbeReadUser => "bpf_probe_read_user",
            Helper::ProbeReadKernel => "bpf_probe_read_kernel",
            Helper::ProbeReadUserStr => "bpf_probe_read_user_str",
            Helper::ProbeReadKernelStr => "bpf_probe_read_kernel_str",
            Helper::RingbufOutput => "bpf_ringbuf_output",
            Helper::RingbufReserve => "bpf_ringbuf_reserve",
            Helper::RingbufSubmit => "bpf_ringbuf_submit",
            Helper::RingbufDiscard => "bpf_ringbuf_discard",
            Helper::RingbufQuery => "bpf_ringbuf_query",
            Helper::CopyFromUser => "bpf_copy_from_user",
            Helper::ThisCpuPtr => "bpf_this_cpu_ptr",
            Helper::TaskStorageGet => "bpf_task_storage_get",
            Helper::GetCurrentTaskBtf => "bpf_get_current_task_btf",
            Helper::GetFuncIp => "bpf_get_func_ip",
            Helper::GetAttachCookie => "bpf_get_attach_cookie",
            Helper::TaskPtRegs => "bpf_task_pt_regs",
            Helper::Loop => "bpf_loop",
            Helper::Strncmp => "bpf_strncmp",
        }
    }
}

/// One eBPF instruction (a 64-bit immediate load takes two).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Insn {
    pub code: u8,
    pub dst: u8,
    pub src: u8,
    pub off: i16,
    pub imm: i32,
}

impl Insn {
    pub const fn new(code: u8, dst: Reg, src: Reg, off: i16, imm: i32) -> Insn {
        Insn {
            code,
            dst: dst.0,
            src: src.0,
            off,
            imm,
        }
    }

    /// The kernel's wire format, little-endian.
    pub fn encode(&self) -> [u8; 8] {
        let mut b = [0u8; 8];
        b[0] = self.code;
        b[1] = (self.dst & 0x0f) | ((self.src & 0x0f) << 4);
        b[2..4].copy_from_slice(&self.off.to_le_bytes());
        b[4..8].copy_from_slice(&self.imm.to_le_bytes());
        b
    }

    pub fn class(&self) -> u8 {
        self.code & 0x07
    }

    /// True for conditional and unconditional jumps with a pc-relative offset.
    pub fn is_branch(&self) -> bool {
        let class = self.class();
        (class == BPF_JMP || class == BPF_JMP32) && !matches!(self.code & 0xf0, CALL | EXIT)
    }

    pub fn is_lddw(&self) -> bool {
        self.code == BPF_LD | BPF_IMM | BPF_DW
    }
}

// Constructors, named after the assembler mnemonics they stand for.

pub fn alu64_imm(op: Alu, dst: Reg, imm: i32) -> Insn {
    Insn::new(BPF_ALU64 | op as u8 | BPF_K, dst, R0, 0, imm)
}

pub fn alu64_reg(op: Alu, dst: Reg, src: Reg) -> Insn {
    Insn::new(BPF_ALU64 | op as u8 | BPF_X, dst, src, 0, 0)
}

pub fn alu32_imm(op: Alu, dst: Reg, imm: i32) -> Insn {
    Insn::new(BPF_ALU | op as u8 | BPF_K, dst, R0, 0, imm)
}

pub fn alu32_reg(op: Alu, dst: Reg, src: Reg) -> Insn {
    Insn::new(BPF_ALU | op as u8 | BPF_X, dst, src, 0, 0)
}

/// Signed division or modulo (`off` = 1 selects the signed form, cpu v4).
pub fn alu64_reg_signed(op: Alu, dst: Reg, src: Reg) -> Insn {
    Insn::new(BPF_ALU64 | op as u8 | BPF_X, dst, src, 1, 0)
}

pub fn mov64_imm(dst: Reg, imm: i32) -> Insn {
    alu64_imm(Alu::Mov, dst, imm)
}

pub fn mov64_reg(dst: Reg, src: Reg) -> Insn {
    alu64_reg(Alu::Mov, dst, src)
}

/// 32-bit move: zero-extends into the upper half.
pub fn mov32_imm(dst: Reg, imm: i32) -> Insn {
    alu32_imm(Alu::Mov, dst, imm)
}

/// Sign-extending register move of the low `bits` bits (cpu v4 `movsx`).
pub fn movsx64(dst: Reg, src: Reg, bits: i16) -> Insn {
    Insn::new(BPF_ALU64 | Alu::Mov as u8 | BPF_X, dst, src, bits, 0)
}

pub fn neg64(dst: Reg) -> Insn {
    Insn::new(BPF_ALU64 | Alu::Neg as u8, dst, R0, 0, 0)
}

/// The two halves of a 64-bit immediate load.
pub fn lddw(dst: Reg, imm: u64) -> [Insn; 2] {
    [
        Insn::new(BPF_LD | BPF_IMM | BPF_DW, dst, R0, 0, imm as u32 as i32),
        Insn::new(0, R0, R0, 0, (imm >> 32) as u32 as i32),
    ]
}

/// A 64-bit immediate load whose `src` marks a map reference; `imm` and
/// `next_imm` are patched by the loader.
pub fn lddw_pseudo(dst: Reg, pseudo: u8, imm: i32, next_imm: i32) -> [Insn; 2] {
    [
        Insn {
            code: BPF_LD | BPF_IMM | BPF_DW,
            dst: dst.0,
            src: pseudo,
            off: 0,
            imm,
        },
        Insn::new(0, R0, R0, 0, next_imm),
    ]
}

pub fn ldx(size: Size, dst: Reg, src: Reg, off: i16) -> Insn {
    Insn::new(BPF_LDX | BPF_MEM | size.bits(), dst, src, off, 0)
}

/// Sign-extending load (cpu v4).
pub fn ldxsx(size: Size, dst: Reg, src: Reg, off: i16) -> Insn {
    Insn::new(BPF_LDX | BPF_MEMSX | size.bits(), dst, src, off, 0)
}

pub fn stx(size: Size, dst: Reg, off: i16, src: Reg) -> Insn {
    Insn::new(BPF_STX | BPF_MEM | size.bits(), dst, src, off, 0)
}

pub fn st_imm(size: Size, dst: Reg, off: i16, imm: i32) -> Insn {
    Insn::new(BPF_ST | BPF_MEM | size.bits(), dst, R0, off, imm)
}

/// `*(u64 *)(dst + off) += src`, atomically.
pub fn atomic_add64(dst: Reg, off: i16, src: Reg) -> Insn {
    Insn::new(
        BPF_STX | BPF_ATOMIC | BPF_DW,
        dst,
        src,
        off,
        Alu::Add as i32,
    )
}

/// `src = fetch_add((u64 *)(dst + off), src)`: adds atomically and
/// leaves the word's old value in `src` (Linux 5.12).
pub fn atomic_fetch_add64(dst: Reg, off: i16, src: Reg) -> Insn {
    Insn::new(
        BPF_STX | BPF_ATOMIC | BPF_DW,
        dst,
        src,
        off,
        Alu::Add as i32 | 0x01,
    )
}

/// Atomic compare-and-exchange of a 32-bit word: compares with r0, stores
/// `src` on equality, and leaves the old value in r0.
pub fn atomic_cmpxchg32(dst: Reg, off: i16, src: Reg) -> Insn {
    Insn::new(BPF_STX | BPF_ATOMIC | BPF_W, dst, src, off, 0xf1)
}

/// Atomic compare-and-exchange of a 64-bit word (see `atomic_cmpxchg32`).
pub fn atomic_cmpxchg64(dst: Reg, off: i16, src: Reg) -> Insn {
    Insn::new(BPF_STX | BPF_ATOMIC | BPF_DW, dst, src, off, 0xf1)
}

/// A BPF-to-BPF call to the instruction `off + 1` after this one.
pub fn call_local(off: i32) -> Insn {
    Insn::new(BPF_JMP | CALL, R0, Reg(BPF_PSEUDO_CALL), 0, off)
}

/// `src_reg` of a call of a function of the same program.
pub const BPF_PSEUDO_CALL: u8 = 1;

pub fn jmp_imm(cond: Cond, dst: Reg, imm: i32, off: i16) -> Insn {
    Insn::new(BPF_JMP | cond as u8 | BPF_K, dst, R0, off, imm)
}

pub fn jmp_reg(cond: Cond, dst: Reg, src: Reg, off: i16) -> Insn {
    Insn::new(BPF_JMP | cond as u8 | BPF_X, dst, src, off, 0)
}

pub fn ja(off: i16) -> Insn {
    Insn::new(BPF_JMP | JA, R0, R0, off, 0)
}

/// `gotol`: an unconditional jump with a 32-bit offset in `imm`
/// (`BPF_JMP32 | BPF_JA`, Linux 6.4 and later).
pub fn gotol(off: i32) -> Insn {
    Insn::new(BPF_JMP32 | JA, R0, R0, 0, off)
}

impl Insn {
    /// True for `gotol`, whose offset is in `imm` rather than `off`.
    pub fn is_gotol(&self) -> bool {
        self.code == BPF_JMP32 | JA
    }

    /// The pc-relative offset of a branch, whichever field holds it.
    pub fn branch_offset(&self) -> i64 {
        if self.is_gotol() {
            i64::from(self.imm)
        } else {
            i64::from(self.off)
        }
    }
}

pub fn call(helper: Helper) -> Insn {
    Insn::new(BPF_JMP | CALL, R0, R0, 0, helper as i32)
}

/// A call of a kernel function (kfunc) by its BTF id in vmlinux.
pub fn kfunc_call(btf_id: u32) -> Insn {
    Insn::new(
        BPF_JMP | CALL,
        R0,
        Reg(BPF_PSEUDO_KFUNC_CALL),
        0,
        btf_id as i32,
    )
}

/// `src_reg` of a call that names a kfunc.
pub const BPF_PSEUDO_KFUNC_CALL: u8 = 2;

pub fn exit() -> Insn {
    Insn::new(BPF_JMP | EXIT, R0, R0, 0, 0)
}

impl fmt::Debug for Insn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", disassemble_one(self))
    }
}

fn alu_name(op: u8) -> &'static str {
    match op {
        0x00 => "add",
        0x10 => "sub",
        0x20 => "mul",
        0x30 => "div",
        0x40 => "or",
        0x50 => "and",
        0x60 => "lsh",
        0x70 => "rsh",
        0x80 => "neg",
        0x90 => "mod",
        0xa0 => "xor",
        0xb0 => "mov",
        0xc0 => "arsh",
        0xd0 => "end",
        _ => "alu?",
    }
}

fn jmp_name(op: u8) -> &'static str {
    match op {
        0x00 => "ja",
        0x10 => "jeq",
        0x20 => "jgt",
        0x30 => "jge",
        0x40 => "jset",
        0x50 => "jne",
        0x60 => "jsgt",
        0x70 => "jsge",
        0xa0 => "jlt",
        0xb0 => "jle",
        0xc0 => "jslt",
        0xd0 => "jsle",
        _ => "j?",
    }
}

fn size_name(code: u8) -> &'static str {
    match code & 0x18 {
        BPF_B => "u8",
        BPF_H => "u16",
        BPF_W => "u32",
        _ => "u64",
    }
}

/// A one-line rendering of an instruction, for verifier logs and tests.
pub fn disassemble_one(i: &Insn) -> String {
    let class = i.class();
    let op = i.code & 0xf0;
    let x = i.code & BPF_X != 0;
    match class {
        BPF_ALU | BPF_ALU64 => {
            let w = if class == BPF_ALU { "w" } else { "r" };
            let src = if x {
                format!("{}{}", w, i.src)
            } else {
                format!("{}", i.imm)
            };
            format!("{} {}{}, {}", alu_name(op), w, i.dst, src)
        }
        BPF_JMP | BPF_JMP32 => match op {
            CALL if i.src == BPF_PSEUDO_KFUNC_CALL => format!("call kfunc#{}", i.imm),
            CALL if i.src == BPF_PSEUDO_CALL => format!("call pc{:+}", i.imm),
            CALL => match Helper::ALL.iter().find(|h| **h as i32 == i.imm) {
                Some(h) => format!("call {}#{}", h.name(), i.imm),
                None => format!("call #{}", i.imm),
            },
            EXIT => "exit".to_string(),
            JA if class == BPF_JMP32 => format!("gotol {:+}", i.imm),
            JA => format!("ja {:+}", i.off),
            _ => {
                let src = if x {
                    format!("r{}", i.src)
                } else {
                    format!("{}", i.imm)
                };
                format!("{} r{}, {}, {:+}", jmp_name(op), i.dst, src, i.off)
            }
        },
        BPF_LDX => format!(
            "r{} = *({} *)(r{} {:+})",
            i.dst,
            size_name(i.code),
            i.src,
            i.off
        ),
        BPF_STX if i.code & 0xe0 == BPF_ATOMIC => format!(
            "atomic 0x{:x} *({} *)(r{} {:+}), r{}",
            i.imm,
            size_name(i.code),
            i.dst,
            i.off,
            i.src
        ),
        BPF_STX => format!(
            "*({} *)(r{} {:+}) = r{}",
            size_name(i.code),
            i.dst,
            i.off,
            i.src
        ),
        BPF_ST => format!(
            "*({} *)(r{} {:+}) = {}",
            size_name(i.code),
            i.dst,
            i.off,
            i.imm
        ),
        BPF_LD if i.is_lddw() => format!("lddw r{}, {} (src {})", i.dst, i.imm, i.src),
        _ => format!("raw {:02x} {} {} {} {}", i.code, i.dst, i.src, i.off, i.imm),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_little_endian_with_packed_registers() {
        let i = stx(Size::DW, FP, -8, R1);
        assert_eq!(i.encode(), [0x7b, 0x1a, 0xf8, 0xff, 0, 0, 0, 0]);
        assert_eq!(mov64_imm(R0, 1).encode(), [0xb7, 0, 0, 0, 1, 0, 0, 0]);
        assert_eq!(exit().encode(), [0x95, 0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn lddw_splits_the_immediate() {
        let [a, b] = lddw(R2, 0x1122_3344_5566_7788);
        assert_eq!(a.imm as u32, 0x5566_7788);
        assert_eq!(b.imm as u32, 0x1122_3344);
        assert!(a.is_lddw());
    }

    #[test]
    fn negation_is_an_involution() {
        for c in [
            Cond::Eq,
            Cond::Ne,
            Cond::Gt,
            Cond::Ge,
            Cond::Lt,
            Cond::Le,
            Cond::Sgt,
            Cond::Sge,
            Cond::Slt,
            Cond::Sle,
        ] {
            assert_eq!(c.negate().negate(), c);
            assert_ne!(c.negate(), c);
        }
    }

    #[test]
    fn disassembles_readably() {
        assert_eq!(
            disassemble_one(&ldx(Size::W, R1, R2, 4)),
            "r1 = *(u32 *)(r2 +4)"
        );
        assert_eq!(
            disassemble_one(&jmp_imm(Cond::Eq, R0, 0, 3)),
            "jeq r0, 0, +3"
        );
    }
}
