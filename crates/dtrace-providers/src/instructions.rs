//! Where a user function's instructions begin, for the pid provider's
//! offset probes: a uprobe must sit on an instruction's first byte (the
//! kernel accepts any byte that happens to decode, and a breakpoint in the
//! middle of an instruction corrupts it), so offsets are offered only at
//! instruction boundaries, as DTrace offers them.
//!
//! x86-64 code is decoded with `iced-x86`; AArch64 instructions are all
//! four bytes long. Other machines have no offset probes.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

use iced_x86::{Code, Decoder, DecoderOptions, OpKind, Register};

/// The most code read for one function: a larger symbol size is not a
/// function's (or is one no one probes instruction by instruction).
const MAX_FUNCTION_BYTES: u64 = 16 << 20;

const EM_X86_64: u16 = 62;
const EM_AARCH64: u16 = 183;

/// A function's instructions, as DTrace's pid provider sees them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Instructions {
    /// The offsets, from the function's first byte, at which its
    /// instructions begin: the places of its offset probes. None when it
    /// has a jump table (below).
    pub offsets: Vec<u64>,
    /// Those of them the kernel's uprobes will not step (`unsteppable`).
    pub unsteppable: Vec<u64>,
    /// Where it returns: each `ret`, and each jump out of the function
    /// (a tail call), where its return probe fires, as DTrace's does.
    pub returns: Vec<u64>,
    /// It has an indirect jump, perhaps through a jump table.
    pub jump_table: bool,
}

/// The instructions of the code at `offset` in the ELF file `path`,
/// `size` bytes long. Decoding stops at the first bytes that are not an
/// instruction (data in the text, such as a jump table): no boundary
/// after them can be told, so none is offered.
pub(crate) fn decode(path: &Path, offset: u64, size: u64) -> io::Result<Instructions> {
    if size > MAX_FUNCTION_BYTES {
        return Err(io::Error::other(format!(
            "the function is {} bytes long, more than {} bytes",
            size, MAX_FUNCTION_BYTES
        )));
    }
    let f = File::open(path)?;
    let mut header = [0u8; 20];
    f.read_exact_at(&mut header, 0)?;
    if header[..4] != *b"\x7fELF" {
        return Err(io::Error::other("not an ELF file"));
    }
    // e_machine, in the file's byte order (EI_DATA: 1 little, 2 big).
    let machine = match header[5] {
        2 => u16::from_be_bytes([header[18], header[19]]),
        _ => u16::from_le_bytes([header[18], header[19]]),
    };
    let mut code = vec![0u8; size as usize];
    f.read_exact_at(&mut code, offset)?;
    match machine {
        EM_X86_64 => Ok(x86_64(&code)),
        EM_AARCH64 => Ok(aarch64(&code)),
        m => Err(io::Error::other(format!(
            "instructions of machine {} cannot be decoded",
            m
        ))),
    }
}

/// The instructions of x86-64 `code`, decoded from its first byte.
///
/// A function with an indirect jump (`jmp *%rax`: maybe a jump table,
/// whose entries could be read as instructions) is read as DTrace reads
/// it, conservatively: it offers no offset probes, and returns only where
/// `leave` (or `mov %rbp,%rsp; pop %rbp`) precedes the `ret`.
pub(crate) fn x86_64(code: &[u8]) -> Instructions {
    let mut decoded = Vec::new();
    let mut decoder = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
    while decoder.can_decode() {
        let at = decoder.ip();
        let insn = decoder.decode();
        // A breakpoint another debugger left hides the real instruction.
        if insn.code() == Code::INVALID || insn.code() == Code::Int3 {
            break;
        }
        decoded.push((at, insn));
    }
    let size = code.len() as u64;
    let jump_table = decoded
        .iter()
        .any(|(_, i)| matches!(i.code(), Code::Jmp_rm16 | Code::Jmp_rm32 | Code::Jmp_rm64));
    let mut out = Instructions {
        jump_table,
        ..Instructions::default()
    };
    for (n, &(at, ref insn)) in decoded.iter().enumerate() {
        let bytes = &code[at as usize..][..insn.len()];
        let is_ret = matches!(
            insn.code(),
            Code::Retnq | Code::Retnq_imm16 | Code::Retnd | Code::Retnd_imm16
        );
        if jump_table {
            // `leave; ret`, or `mov %rbp,%rsp; pop %rbp; ret`.
            let framed = n >= 1 && decoded[n - 1].1.code() == Code::Leaveq
                || n >= 2
                    && decoded[n - 1].1.code() == Code::Pop_r64
                    && decoded[n - 1].1.op0_register() == Register::RBP
                    && matches!(
                        decoded[n - 2].1.code(),
                        Code::Mov_r64_rm64 | Code::Mov_rm64_r64
                    )
                    && decoded[n - 2].1.op0_register() == Register::RSP
                    && decoded[n - 2].1.op1_register() == Register::RBP;
            if is_ret && framed {
                out.returns.push(at);
            }
            continue;
        }
        out.offsets.push(at);
        if unsteppable(bytes) {
            out.unsteppable.push(at);
        }
        // A direct jump, conditional or not, out of the function (a
        // near branch that is no call).
        let leaves = insn.op0_kind() == OpKind::NearBranch64
            && !matches!(
                insn.code(),
                Code::Call_rel32_64 | Code::Call_rel16 | Code::Xbegin_rel32 | Code::Xbegin_rel16
            )
            && insn.near_branch_target() >= size;
        if is_ret || leaves {
            out.returns.push(at);
        }
    }
    out
}

/// The instructions of AArch64 `code`: four bytes each, a return where
/// one is `ret` (to x30 or another register).
pub(crate) fn aarch64(code: &[u8]) -> Instructions {
    let mut out = Instructions::default();
    for (i, w) in code.chunks_exact(4).enumerate() {
        let at = 4 * i as u64;
        out.offsets.push(at);
        let word = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        // RET Xn: 1101011 0010 11111 000000 Rn 00000
        if word & 0xffff_fc1f == 0xd65f_0000 {
            out.returns.push(at);
        }
    }
    out
}

/// True for an x86-64 instruction Linux's uprobes refuse whatever the
/// kernel version (`arch/x86/kernel/uprobes.c`: a segment override
/// other than FS and GS, or a LOCK prefix; software interrupts, `iret`,
/// `hlt` and port I/O). The kernel stays the judge of the rest: a place
/// it refuses is left out when the probes are attached.
fn unsteppable(insn: &[u8]) -> bool {
    let mut i = 0;
    while let Some(&b) = insn.get(i) {
        match b {
            // ES, CS, SS, DS overrides and LOCK.
            0x26 | 0x2e | 0x36 | 0x3e | 0xf0 => return true,
            // The other legacy prefixes.
            0x64 | 0x65 | 0x66 | 0x67 | 0xf2 | 0xf3 => i += 1,
            _ => break,
        }
    }
    // A REX prefix, then the opcode.
    if insn.get(i).is_some_and(|b| b & 0xf0 == 0x40) {
        i += 1;
    }
    matches!(
        insn.get(i),
        Some(0xcc..=0xcf | 0xf1 | 0xf4 | 0xe4..=0xe7 | 0xec..=0xef)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_fall_between_instructions() {
        // push %rbp; mov %rsp,%rbp; sub $8,%rsp; mov %edi,%eax;
        // add $1,%eax; leave; ret
        let code = [
            0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x08, 0x89, 0xf8, 0x83, 0xc0, 0x01, 0xc9,
            0xc3,
        ];
        let i = x86_64(&code);
        assert_eq!(i.offsets, vec![0, 1, 4, 8, 0xa, 0xd, 0xe]);
        assert!(i.unsteppable.is_empty());
        assert_eq!(i.returns, vec![0xe]);
    }

    #[test]
    fn returns_are_rets_and_jumps_out() {
        // 0: test %edi,%edi; 2: je +3 (to 7, inside); 4: jne +0x20 (out);
        // 6: ret; 7: jmp -9 (to 0, inside); 9: jmp +0x100 (out, rel32);
        // e: rep ret
        let code = [
            0x85, 0xff, 0x74, 0x03, 0x75, 0x20, 0xc3, 0xeb, 0xf7, 0xe9, 0x00, 0x01, 0x00, 0x00,
            0xf3, 0xc3,
        ];
        let i = x86_64(&code);
        assert_eq!(i.offsets, vec![0, 2, 4, 6, 7, 9, 0xe]);
        assert_eq!(i.returns, vec![4, 6, 9, 0xe]);
    }

    #[test]
    fn jump_tables_offer_no_offsets_and_only_framed_returns() {
        // 0: push %rbp; 1: mov %rsp,%rbp; 4: jmp *%rax; 6: ret;
        // 7: leave; 8: ret; 9: mov %rbp,%rsp; c: pop %rbp; d: ret
        let code = [
            0x55, 0x48, 0x89, 0xe5, 0xff, 0xe0, 0xc3, 0xc9, 0xc3, 0x48, 0x89, 0xec, 0x5d, 0xc3,
        ];
        let i = x86_64(&code);
        assert!(i.offsets.is_empty());
        assert_eq!(i.returns, vec![8, 0xd]);
    }

    #[test]
    fn aarch64_returns() {
        // nop; ret; ret x1
        let code = [
            0x1f, 0x20, 0x03, 0xd5, 0xc0, 0x03, 0x5f, 0xd6, 0x20, 0x00, 0x5f, 0xd6,
        ];
        let i = aarch64(&code);
        assert_eq!(i.offsets, vec![0, 4, 8]);
        assert_eq!(i.returns, vec![4, 8]);
    }

    #[test]
    fn instructions_uprobes_refuse_are_marked() {
        // nop; cs nopw 0(%rax,%rax,1); lock incl (%rax); hlt; ret;
        // fs mov (%rax),%rax
        let code = [
            0x90, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0xff, 0x00,
            0xf4, 0xc3, 0x64, 0x48, 0x8b, 0x00,
        ];
        let i = x86_64(&code);
        assert_eq!(i.offsets, vec![0, 1, 0xb, 0xe, 0xf, 0x10]);
        assert_eq!(i.unsteppable, vec![1, 0xb, 0xe]);
    }

    #[test]
    fn decoding_stops_at_what_is_not_code() {
        // nop, then a truncated mov: nothing after the nop is offered.
        assert_eq!(x86_64(&[0x90, 0x48, 0x89]).offsets, vec![0]);
        // An opcode that is undefined in 64-bit mode ends it too, and so
        // does a breakpoint (another debugger's: what it hides is unknown).
        assert_eq!(x86_64(&[0x90, 0x06]).offsets, vec![0]);
        assert_eq!(x86_64(&[0x90, 0xcc, 0xc3]).offsets, vec![0]);
        assert_eq!(x86_64(&[]), Instructions::default());
    }

    #[test]
    fn this_test_decodes_its_own_code() {
        // The test binary is x86-64 or AArch64 here: its first bytes of
        // text decode into at least one instruction.
        let exe = std::env::current_exe().unwrap();
        let data = std::fs::read(&exe).unwrap();
        let elf = object::read::elf::ElfFile64::<object::Endianness>::parse(&*data).unwrap();
        use object::{Object, ObjectSection};
        let text = elf.section_by_name(".text").unwrap();
        let (off, _) = text.file_range().unwrap();
        let b = decode(&exe, off, 64).unwrap().offsets;
        assert!(!b.is_empty());
        assert_eq!(b[0], 0);
    }

    #[test]
    fn what_is_not_elf_is_refused() {
        let dir = std::env::temp_dir().join(format!("dt-insn-{}", std::process::id()));
        std::fs::write(&dir, b"not an ELF file at all, really").unwrap();
        assert!(decode(&dir, 0, 4).is_err());
        assert!(decode(&dir, 0, MAX_FUNCTION_BYTES + 1).is_err());
        let _ = std::fs::remove_file(&dir);
    }
}
