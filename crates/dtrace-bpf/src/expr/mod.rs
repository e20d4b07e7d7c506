//! Lowering of expressions: integers into temporaries, strings as pointers
//! to NUL-terminated buffers of known capacity (or written straight into a
//! destination), variables of every scope, and aggregation updates.

use dtrace_lang::ir::*;
use dtrace_lang::types::Type;

use crate::codegen::{load_imm, normalize, stack, GenError, Temp};
use crate::insn::*;
use crate::layout::{self, scratch, COMM_LEN};
use crate::plan::*;
use crate::program::{EpidSrc, IdentSrc, ProgGen};

mod aggregation;
mod builtins;
mod strings;
mod vars;

/// Where a string is to be written.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Dst {
    /// The clause's record, at this offset.
    Record(u32),
    /// The scratch element, at this offset.
    Scratch(u32),
    /// The globals value, at this offset.
    Global(u32),
}

pub(crate) type R<T> = Result<T, GenError>;

/// Frames `stackdepth` counts at most (the kernel's default
/// `perf_event_max_stack`).
pub(crate) const MAX_STACK_FRAMES: u32 = 127;

/// `bpf_get_stack`'s flag for the user-level stack.
pub(crate) const BPF_F_USER_STACK: i32 = 1 << 8;
/// With `BPF_F_USER_STACK`: each frame as its object's build ID and the
/// offset in it (`struct bpf_stack_build_id`).
pub(crate) const BPF_F_USER_BUILD_ID: i32 = 1 << 11;

/// Frames a raw tracepoint program's kernel stack begins with that are
/// not the traced code's: the program itself and `bpf_trace_runN`.
pub(crate) const RAW_TP_FRAMES: i32 = 2;

impl ProgGen<'_, '_> {
    pub(crate) fn int_result(&mut self, r: Reg) -> Temp {
        let t = self.alloc();
        self.store_temp(t, r);
        t
    }

    /// Evaluates an expression for its effects.
    pub(crate) fn eval_discard(&mut self, e: &CExpr) -> R<Option<Temp>> {
        if e.ty.is_string() {
            let (t, _) = self.eval_str(e)?;
            Ok(Some(t))
        } else if e.ty == Type::Void {
            match &e.kind {
                CKind::Copyinto(a, n, d) => self.copy_into(a, n, d, true)?,
                CKind::Bcopy(src, d, n) => self.copy_into(src, n, d, false)?,
                _ => {}
            }
            Ok(None)
        } else {
            Ok(Some(self.eval_int(e)?))
        }
    }

    pub(crate) fn eval_int(&mut self, e: &CExpr) -> R<Temp> {
        match &e.kind {
            // The kernel stack's return addresses in scratch (the helper
            // zeroes what the stack does not fill), by reference.
            CKind::Speculation => self.speculation(),
            CKind::Stack { frames } => {
                let size = frames * 8;
                let buf = self.alloc_buf(size);
                self.get_stack(buf, size, false, 0);
                self.ptr(R1, R9, buf);
                Ok(self.int_result(R1))
            }
            // The reference to a snapshot of the user stack for the
            // consumer to unwind (`types::ustack_snapshot`), by
            // reference: the clause's, written before its record, or
            // one written now (in a predicate).
            CKind::UStack { frames, jit } => {
                let me = e as *const CExpr;
                let at = match self.ustack_refs.iter().find(|(p, _)| *p == me) {
                    Some(&(_, at)) => at,
                    None => {
                        let at = self.alloc_buf(32);
                        self.user_stack_snapshot(*frames, *jit, at)?;
                        at
                    }
                };
                self.ptr(R1, R9, at);
                Ok(self.int_result(R1))
            }
            // The process ID and the address, then the probe's own user
            // address as a ustack() frame and as a number, by reference
            // (`types::Special::USym`).
            CKind::UserAddr(a) => {
                let t = self.eval_int(a)?;
                let buf = self.alloc_buf(32);
                let raw = self.alloc_buf(32);
                self.load_temp(t, R1);
                self.stx_at(R9, buf + 8, R1, Size::DW);
                self.free(t);
                self.a.emit(call(Helper::GetCurrentPidTgid));
                self.a.emit(alu64_imm(Alu::Rsh, R0, 32));
                self.stx_at(R9, buf, R0, Size::DW);
                for (at, size, flags) in [
                    (buf + 24, 8, BPF_F_USER_STACK),
                    (raw, 32, BPF_F_USER_STACK | BPF_F_USER_BUILD_ID),
                ] {
                    self.a
                        .emit(ldx(Size::DW, R1, FP, crate::codegen::stack::CTX));
                    self.ptr(R2, R9, at);
                    self.a.emit(mov64_imm(R3, size));
                    self.a.emit(mov64_imm(R4, flags));
                    self.a.emit(call(Helper::GetStack));
                }
                self.pack_user_frame(raw, buf + 16);
                self.ptr(R1, R9, buf);
                Ok(self.int_result(R1))
            }
            CKind::Int(v) => {
                let t = self.alloc();
                match t {
                    Temp::Reg(r) => load_imm(&mut self.a, r, *v),
                    Temp::Stack(_) => {
                        load_imm(&mut self.a, R0, *v);
                        self.store_temp(t, R0);
                    }
                }
                Ok(t)
            }
            CKind::Builtin(b) => self.builtin_int(*b),
            CKind::Arg(i) => {
                let off = self.cx.args_base + 8 * u32::from(*i);
                self.ldx_at(R0, R9, off, Size::DW);
                Ok(self.int_result(R0))
            }
            CKind::Var(v) => self.load_var(*v),
            CKind::Elem(arr, keys) => {
                self.lookup_elem(*arr, keys)?;
                if self.g.inp.syms.arrays[*arr].value.is_by_ref() {
                    // The element's bytes, or zeros if it has none.
                    return Ok(self.ptr_or_empty());
                }
                Ok(self.deref_or_zero())
            }
            CKind::Build(fields) => self.build_record(fields, &e.ty),
            CKind::Unary(op, a) => {
                let t = self.eval_int(a)?;
                self.load_temp(t, R1);
                match op {
                    UnaryOp::Neg => self.a.emit(neg64(R1)),
                    UnaryOp::BitNot => self.a.emit(alu64_imm(Alu::Xor, R1, -1)),
                    UnaryOp::LogNot => {
                        let l = self.a.new_label();
                        self.a.emit(mov64_imm(R0, 1));
                        self.a.jmp_imm_to(Cond::Eq, R1, 0, l);
                        self.a.emit(mov64_imm(R0, 0));
                        self.a.bind(l);
                        self.a.emit(mov64_reg(R1, R0));
                    }
                }
                self.store_temp(t, R1);
                Ok(t)
            }
            CKind::Arith(op, a, b) => {
                let ta = self.eval_int(a)?;
                let tb = self.eval_int(b)?;
                self.load_temp(ta, R1);
                self.load_temp(tb, R2);
                self.free(tb);
                let signed = e.ty.as_int().map(|t| t.signed).unwrap_or(false);
                self.arith(*op, signed)?;
                self.store_temp(ta, R1);
                Ok(ta)
            }
            CKind::Cmp(op, a, b, signed) => {
                let ta = self.eval_int(a)?;
                let tb = self.eval_int(b)?;
                self.load_temp(ta, R1);
                self.load_temp(tb, R2);
                self.free(tb);
                let cond = cmp_cond(*op, *signed);
                let l = self.a.new_label();
                self.a.emit(mov64_imm(R0, 1));
                self.a.jmp_reg_to(cond, R1, R2, l);
                self.a.emit(mov64_imm(R0, 0));
                self.a.bind(l);
                self.store_temp(ta, R0);
                Ok(ta)
            }
            CKind::StrCmp(op, a, b) => {
                self.strcmp(a, b, *op)?;
                Ok(self.int_result(R0))
            }
            CKind::Logical(op, a, b) => self.logical(*op, a, b),
            CKind::Ternary(c, x, y) => {
                let tc = self.eval_int(c)?;
                self.load_temp(tc, R0);
                self.free(tc);
                let t = self.alloc();
                let l_else = self.a.new_label();
                let l_end = self.a.new_label();
                self.a.jmp_imm_to(Cond::Eq, R0, 0, l_else);
                let tx = self.eval_int(x)?;
                self.load_temp(tx, R1);
                self.free(tx);
                self.store_temp(t, R1);
                self.a.ja_to(l_end);
                self.a.bind(l_else);
                let ty = self.eval_int(y)?;
                self.load_temp(ty, R1);
                self.free(ty);
                self.store_temp(t, R1);
                self.a.bind(l_end);
                Ok(t)
            }
            CKind::Within(i, n) => {
                let t = self.eval_int(i)?;
                self.load_temp(t, R1);
                let ok = self.a.new_label();
                self.a.jmp_imm_to(Cond::Lt, R1, *n as i32, ok);
                let act = self.cur_action;
                self.fault(fault::BADADDR, Some(R1), act);
                self.a.bind(ok);
                // Stored from the register the comparison bounded, so
                // that the verifier knows the bound where it is read.
                self.store_temp(t, R1);
                Ok(t)
            }
            CKind::Cast(a) => {
                let t = self.eval_int(a)?;
                self.load_temp(t, R1);
                normalize(&mut self.a, R1, &e.ty);
                self.store_temp(t, R1);
                Ok(t)
            }
            CKind::FloatOrder(a) => {
                let t = self.eval_int(a)?;
                self.load_temp(t, R1);
                if self.g.inp.syms.types.known_size(&a.ty) == Some(4) {
                    // A float's sign is bit 31: move it to bit 63.
                    self.a.emit(alu64_imm(Alu::Lsh, R1, 32));
                }
                // Negative numbers count down from the sign bit: flip
                // their other bits, so the order is the integers'.
                self.a.emit(mov64_reg(R2, R1));
                self.a.emit(alu64_imm(Alu::Arsh, R2, 63));
                self.a.emit(alu64_imm(Alu::Rsh, R2, 1));
                self.a.emit(alu64_reg(Alu::Xor, R1, R2));
                self.store_temp(t, R1);
                Ok(t)
            }
            CKind::Assign(lv, None, rhs) if self.lvalue_type(lv).is_by_ref() => {
                self.assign_ref(lv, rhs)
            }
            CKind::Assign(lv, op, rhs) => self.assign_int(lv, *op, rhs, &e.ty),
            CKind::IncDec { target, pre, delta } => self.incdec(target, *pre, *delta, &e.ty),
            CKind::Strlen(s) => self.strlen(s),
            CKind::Deref(p) => {
                let tp = self.eval_int(p)?;
                let v = self.load_at(tp, &e.ty);
                self.free(tp);
                Ok(v)
            }
            CKind::Alloca(n) => self.alloca(n),
            CKind::Copyin(a, n) => self.copyin(a, n),
            CKind::Copyinto(..) | CKind::Bcopy(..) => Err(GenError(
                "internal error: a void subroutine used as a value".into(),
            )),
            CKind::Rand => {
                // A non-negative int, as DTrace's are.
                self.a.emit(call(Helper::GetPrandomU32));
                self.a.emit(alu64_imm(Alu::And, R0, i32::MAX));
                Ok(self.int_result(R0))
            }
            CKind::Progenyof(pid) => self.progenyof(pid),
            CKind::Strtoll(s, base) => self.strtoll(s, base.as_deref()),
            CKind::StrAddr(s) => self.str_addr(s),
            CKind::StrSearch {
                hay,
                needle,
                pos,
                mode: mode @ (SearchMode::Index | SearchMode::Rindex),
            } => Ok(self.str_search(hay, needle, pos.as_deref(), *mode)?.0),
            CKind::StrSearch { .. }
            | CKind::StrOffset(..)
            | CKind::Cleanpath(_)
            | CKind::Json(..)
            | CKind::LinkNtop(..)
            | CKind::Strtok { .. } => {
                Err(GenError("internal error: string used as an integer".into()))
            }
            CKind::PerCpuAddr(var) => {
                // This CPU's copy of the variable.
                self.a.ld_btf_id(R1, *var);
                self.a.emit(call(Helper::ThisCpuPtr));
                Ok(self.int_result(R0))
            }
            CKind::Str(_)
            | CKind::Copyinstr(..)
            | CKind::KernelString(_)
            | CKind::DPath(..)
            | CKind::InetNtop(..)
            | CKind::Strjoin(..)
            | CKind::Substr(..)
            | CKind::PathPart(..)
            | CKind::Case(..)
            | CKind::Lltostr(_) => {
                Err(GenError("internal error: string used as an integer".into()))
            }
        }
    }

    /// The value of type `ty` at the address in `tp` (kernel or BPF
    /// memory; a bad address faults), in a new temporary. A by-reference
    /// value is its address: a load typed as a struct (`*curthread->cred`,
    /// whose address is the pointer read from `curthread`) reads that
    /// pointer.
    pub(crate) fn load_at(&mut self, tp: Temp, ty: &Type) -> Temp {
        let size = if ty.is_by_ref() {
            8
        } else {
            ty.scalar_size().max(1)
        };
        self.ptr(R1, R9, scratch::TMP);
        self.a.emit(mov64_imm(R2, size as i32));
        self.load_temp(tp, R3);
        self.a.emit(call(Helper::ProbeReadKernel));
        let ok = self.a.new_label();
        self.a.jmp_imm_to(Cond::Eq, R0, 0, ok);
        self.load_temp(tp, R1);
        let act = self.cur_action;
        self.fault(fault::BADADDR, Some(R1), act);
        self.a.bind(ok);
        self.a
            .emit(ldx(Size::of_bytes(size), R1, R9, scratch::TMP as i16));
        if ty.as_int().map(|t| t.signed).unwrap_or(false) {
            normalize(&mut self.a, R1, ty);
        }
        self.int_result(R1)
    }

    /// r1 = r1 op r2, faulting on division by zero.
    pub(crate) fn arith(&mut self, op: ArithOp, signed: bool) -> R<()> {
        let alu = match op {
            ArithOp::Add => Alu::Add,
            ArithOp::Sub => Alu::Sub,
            ArithOp::Mul => Alu::Mul,
            ArithOp::Div => Alu::Div,
            ArithOp::Mod => Alu::Mod,
            ArithOp::Shl => Alu::Lsh,
            ArithOp::Shr => {
                if signed {
                    Alu::Arsh
                } else {
                    Alu::Rsh
                }
            }
            ArithOp::And => Alu::And,
            ArithOp::Or => Alu::Or,
            ArithOp::Xor => Alu::Xor,
        };
        if matches!(op, ArithOp::Div | ArithOp::Mod) {
            let ok = self.a.new_label();
            self.a.jmp_imm_to(Cond::Ne, R2, 0, ok);
            let act = self.cur_action;
            self.fault(fault::DIVZERO, None, act);
            self.a.bind(ok);
            if signed && self.g.inp.opts.kernel.signed_div {
                self.a.emit(alu64_reg_signed(alu, R1, R2));
            } else if signed {
                self.signed_div_of_unsigned(alu);
            } else {
                self.a.emit(alu64_reg(alu, R1, R2));
            }
        } else if matches!(op, ArithOp::Shl | ArithOp::Shr) {
            // Shift counts beyond 63 are undefined in C; BPF masks them.
            self.a.emit(alu64_imm(Alu::And, R2, 63));
            self.a.emit(alu64_reg(alu, R1, R2));
        } else {
            self.a.emit(alu64_reg(alu, R1, R2));
        }
        Ok(())
    }

    /// r1 = r1 / r2 or r1 % r2, signed, where the kernel has only the
    /// unsigned instructions: on the magnitudes, then the sign C gives
    /// (a quotient's from both operands, a remainder's from the
    /// dividend's). Clobbers r4.
    fn signed_div_of_unsigned(&mut self, alu: Alu) {
        // The result's sign bit.
        self.a.emit(mov64_reg(R4, R1));
        if alu == Alu::Div {
            self.a.emit(alu64_reg(Alu::Xor, R4, R2));
        }
        for r in [R1, R2] {
            let pos = self.a.new_label();
            self.a.jmp_imm_to(Cond::Sge, r, 0, pos);
            self.a.emit(neg64(r));
            self.a.bind(pos);
        }
        self.a.emit(alu64_reg(alu, R1, R2));
        let pos = self.a.new_label();
        self.a.jmp_imm_to(Cond::Sge, R4, 0, pos);
        self.a.emit(neg64(R1));
        self.a.bind(pos);
    }

    pub(crate) fn logical(&mut self, op: LogOp, a: &CExpr, b: &CExpr) -> R<Temp> {
        let ta = self.eval_int(a)?;
        self.load_temp(ta, R0);
        match op {
            LogOp::And | LogOp::Or => {
                let short = self.a.new_label();
                let end = self.a.new_label();
                let (cond, short_val) = if op == LogOp::And {
                    (Cond::Eq, 0)
                } else {
                    (Cond::Ne, 1)
                };
                self.a.jmp_imm_to(cond, R0, 0, short);
                let tb = self.eval_int(b)?;
                self.load_temp(tb, R0);
                self.free(tb);
                self.a.jmp_imm_to(cond, R0, 0, short);
                self.a.emit(mov64_imm(R0, 1 - short_val));
                self.a.ja_to(end);
                self.a.bind(short);
                self.a.emit(mov64_imm(R0, short_val));
                self.a.bind(end);
                self.store_temp(ta, R0);
            }
            LogOp::Xor => {
                let tb = self.eval_int(b)?;
                self.load_temp(ta, R1);
                self.load_temp(tb, R2);
                self.free(tb);
                for r in [R1, R2] {
                    let l = self.a.new_label();
                    self.a.jmp_imm_to(Cond::Eq, r, 0, l);
                    self.a.emit(mov64_imm(r, 1));
                    self.a.bind(l);
                }
                self.a.emit(alu64_reg(Alu::Xor, R1, R2));
                self.store_temp(ta, R1);
            }
        }
        Ok(ta)
    }
}

pub(crate) fn swap_cmp(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        o => o,
    }
}

pub(crate) fn cmp_cond(op: CmpOp, signed: bool) -> Cond {
    match (op, signed) {
        (CmpOp::Eq, _) => Cond::Eq,
        (CmpOp::Ne, _) => Cond::Ne,
        (CmpOp::Lt, true) => Cond::Slt,
        (CmpOp::Le, true) => Cond::Sle,
        (CmpOp::Gt, true) => Cond::Sgt,
        (CmpOp::Ge, true) => Cond::Sge,
        (CmpOp::Lt, false) => Cond::Lt,
        (CmpOp::Le, false) => Cond::Le,
        (CmpOp::Gt, false) => Cond::Gt,
        (CmpOp::Ge, false) => Cond::Ge,
    }
}
