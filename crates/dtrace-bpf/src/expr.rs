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

type R<T> = Result<T, GenError>;

/// Frames `stackdepth` counts at most (the kernel's default
/// `perf_event_max_stack`).
const MAX_STACK_FRAMES: u32 = 127;

/// `bpf_get_stack`'s flag for the user-level stack.
const BPF_F_USER_STACK: i32 = 1 << 8;
/// With `BPF_F_USER_STACK`: each frame as its object's build ID and the
/// offset in it (`struct bpf_stack_build_id`).
const BPF_F_USER_BUILD_ID: i32 = 1 << 11;

/// Frames a raw tracepoint program's kernel stack begins with that are
/// not the traced code's: the program itself and `bpf_trace_runN`.
const RAW_TP_FRAMES: i32 = 2;

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
            // The process ID, then the user stack's frames, each a word
            // (`types::USTACK_IP`): the kernel gives each frame's build
            // ID and file offset, or its address, in 32 bytes, which are
            // packed into words here. By reference.
            CKind::UStack { frames } => {
                let n = *frames;
                let out = self.alloc_buf(8 + 8 * n);
                let raw = self.alloc_buf(32 * n);
                self.a.emit(call(Helper::GetCurrentPidTgid));
                self.a.emit(alu64_imm(Alu::Rsh, R0, 32));
                self.stx_at(R9, out, R0, Size::DW);
                self.a
                    .emit(ldx(Size::DW, R1, FP, crate::codegen::stack::CTX));
                self.ptr(R2, R9, raw);
                self.a.emit(mov64_imm(R3, (32 * n) as i32));
                self.a
                    .emit(mov64_imm(R4, BPF_F_USER_STACK | BPF_F_USER_BUILD_ID));
                self.a.emit(call(Helper::GetStack));
                let entry = matches!(self.plan.context, ArgContext::Uprobe { entry: true, .. });
                if entry && n > 1 {
                    // At a function's entry the caller is the return
                    // address on top of the stack, which the kernel's
                    // walk of saved frame pointers skips: it is the
                    // second frame (an address: its object is not told).
                    self.pack_user_frame(raw, out + 8);
                    let slot = out + 16;
                    self.st_imm_at(R9, slot, 0);
                    self.ptr(R1, R9, slot);
                    self.a.emit(mov64_imm(R2, 8));
                    self.a
                        .emit(ldx(Size::DW, R3, FP, crate::codegen::stack::CTX));
                    self.a
                        .emit(ldx(Size::DW, R3, R3, crate::layout::regs::SP_FULL as i16));
                    self.a.emit(call(Helper::ProbeReadUser));
                    let none = self.a.new_label();
                    self.ldx_at(R0, R9, slot, Size::DW);
                    self.a.jmp_imm_to(Cond::Eq, R0, 0, none);
                    load_imm(&mut self.a, R2, dtrace_lang::types::USTACK_IP as i64);
                    self.a.emit(alu64_reg(Alu::Or, R0, R2));
                    self.stx_at(R9, slot, R0, Size::DW);
                    self.a.bind(none);
                    for i in 1..n - 1 {
                        self.pack_user_frame(raw + 32 * i, out + 16 + 8 * i);
                    }
                } else {
                    for i in 0..n {
                        self.pack_user_frame(raw + 32 * i, out + 8 + 8 * i);
                    }
                }
                self.ptr(R1, R9, out);
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
                let kb = self.array_key(*arr, keys)?;
                let map = self.g.array_maps[*arr];
                self.a.ld_map_fd(R1, map);
                self.ptr(R2, R9, kb);
                self.a.emit(call(Helper::MapLookupElem));
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
            CKind::StrAddr(s) => Ok(self.eval_str(s)?.0),
            CKind::StrSearch {
                hay,
                needle,
                pos,
                mode: mode @ (SearchMode::Index | SearchMode::Rindex),
            } => Ok(self.str_search(hay, needle, pos.as_deref(), *mode)?.0),
            CKind::StrSearch { .. }
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
    fn arith(&mut self, op: ArithOp, signed: bool) -> R<()> {
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
            if signed {
                self.a.emit(alu64_reg_signed(alu, R1, R2));
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

    fn logical(&mut self, op: LogOp, a: &CExpr, b: &CExpr) -> R<Temp> {
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

    fn builtin_int(&mut self, b: Builtin) -> R<Temp> {
        match b {
            Builtin::Pid | Builtin::Tid | Builtin::Uid | Builtin::Gid
                if self.task_word().is_some() =>
            {
                let t = self.g.inp.opts.task;
                match b {
                    Builtin::Pid => self.task_u32(&[t.tgid], "pid")?,
                    Builtin::Tid => self.task_u32(&[t.pid], "tid")?,
                    Builtin::Uid => self.task_u32(&[t.cred, t.cred_uid], "uid")?,
                    _ => self.task_u32(&[t.cred, t.cred_gid], "gid")?,
                }
            }
            Builtin::Pid => {
                self.a.emit(call(Helper::GetCurrentPidTgid));
                self.a.emit(alu64_imm(Alu::Rsh, R0, 32));
            }
            Builtin::Tid => {
                self.a.emit(call(Helper::GetCurrentPidTgid));
                self.a.emit(alu32_reg(Alu::Mov, R0, R0));
            }
            Builtin::Uid => {
                self.a.emit(call(Helper::GetCurrentUidGid));
                self.a.emit(alu32_reg(Alu::Mov, R0, R0));
            }
            Builtin::Gid => {
                self.a.emit(call(Helper::GetCurrentUidGid));
                self.a.emit(alu64_imm(Alu::Rsh, R0, 32));
            }
            Builtin::Timestamp => self.a.emit(call(Helper::KtimeGetNs)),
            Builtin::Walltimestamp => {
                self.a.emit(call(Helper::KtimeGetNs));
                let ro = self.g.m_rodata;
                let at = self.g.walltime_at;
                self.a.ld_map_value(R1, ro, at);
                self.a.emit(ldx(Size::DW, R1, R1, 0));
                self.a.emit(alu64_reg(Alu::Add, R0, R1));
            }
            Builtin::Cpu => self.a.emit(call(Helper::GetSmpProcessorId)),
            Builtin::Curthread => self.current_task(),
            Builtin::Caller | Builtin::Ucaller => {
                // Frame 1 (skip one) of the kernel or user stack, 0 when
                // the stack cannot be read.
                let user = matches!(b, Builtin::Ucaller);
                let buf = self.alloc_buf(8);
                self.st_imm_at(R9, buf, 0);
                self.get_stack(buf, 8, user, 1);
                self.ldx_at(R0, R9, buf, Size::DW);
            }
            Builtin::Stackdepth | Builtin::Ustackdepth => {
                let user = matches!(b, Builtin::Ustackdepth);
                let buf = self.alloc_buf(MAX_STACK_FRAMES * 8);
                self.get_stack(buf, MAX_STACK_FRAMES * 8, user, 0);
                // Bytes written, or a negative error: frames, or 0.
                let ok = self.a.new_label();
                self.a.jmp_imm_to(Cond::Sge, R0, 0, ok);
                self.a.emit(mov64_imm(R0, 0));
                self.a.bind(ok);
                self.a.emit(alu64_imm(Alu::Rsh, R0, 3));
            }
            Builtin::Uregs => {
                self.a.emit(call(Helper::GetCurrentTaskBtf));
                self.a.emit(mov64_reg(R1, R0));
                self.a.emit(call(Helper::TaskPtRegs));
            }
            Builtin::Errno => {
                if self.cx.has_errno {
                    self.a.emit(ldx(Size::DW, R0, R9, scratch::ERRNO as i16));
                } else {
                    self.a.emit(mov64_imm(R0, 0));
                }
            }
            Builtin::Id => match &self.cx.ident {
                IdentSrc::Const(p) => load_imm(&mut self.a, R0, i64::from(p.id)),
                IdentSrc::Dispatch(_) => {
                    self.a.emit(ldx(Size::DW, R1, FP, stack::DISPATCH));
                    self.a.emit(ldx(Size::W, R0, R1, 0));
                }
            },
            Builtin::Epid => match self.cx.epid {
                EpidSrc::Const(e) => load_imm(&mut self.a, R0, i64::from(e)),
                _ => self.a.emit(ldx(Size::DW, R0, R9, scratch::EPID as i16)),
            },
            Builtin::Ppid => {
                let t = self.g.inp.opts.task;
                self.task_u32(&[t.real_parent, t.tgid], "ppid")?;
            }
            Builtin::Vtimestamp => {
                let off = self.g.inp.opts.task.sum_exec_runtime;
                let off = off.ok_or_else(|| Self::no_task_btf("vtimestamp"))?;
                self.read_task_field(off, 8);
                self.a.emit(ldx(Size::DW, R0, R9, scratch::TMP as i16));
            }
            Builtin::Execname
            | Builtin::Probeprov
            | Builtin::Probemod
            | Builtin::Probefunc
            | Builtin::Probename => {
                return Err(GenError(
                    "internal error: string built-in used as an integer".into(),
                ))
            }
        }
        Ok(self.int_result(R0))
    }

    /// `bpf_get_stack` of the probe's context into scratch `buf` (`size`
    /// bytes), of the user stack if `user`, skipping `skip` frames; its
    /// result in r0.
    ///
    /// A kernel stack starts where the probe's hook was called from, for
    /// every kind of program: a perf event's at the interrupted
    /// instruction, a tracepoint program's at the tracepoint's call (perf
    /// saves the registers there), and a raw tracepoint program's, whose
    /// stack the helper takes where the program calls it, after the
    /// frames of the BPF machinery, which are skipped: the program,
    /// `bpf_trace_runN`, and the error subprogram in ERROR clauses. An
    /// fentry or fexit program's stack starts in the program, which its
    /// trampoline called from the traced function (not yet checked on a
    /// kernel that allows them).
    /// Packs the `struct bpf_stack_build_id` at scratch offset `src` into
    /// the word at `dst` (`types::USTACK_IP`): 31 bits of the build ID
    /// and the file offset, or the marked address, or 0 for none.
    fn pack_user_frame(&mut self, src: u32, dst: u32) {
        let ip = self.a.new_label();
        let store = self.a.new_label();
        self.ldx_at(R1, R9, src, Size::W);
        self.a.emit(mov64_imm(R0, 0));
        self.a.jmp_imm_to(Cond::Ne, R1, 1, ip);
        // BPF_STACK_BUILD_ID_VALID: build ID and offset.
        self.ldx_at(R0, R9, src + 4, Size::W);
        self.a.emit(alu64_imm(Alu::And, R0, 0x7fff_ffff));
        self.a.emit(alu64_imm(Alu::Lsh, R0, 32));
        self.ldx_at(R2, R9, src + 24, Size::W);
        self.a.emit(alu64_reg(Alu::Or, R0, R2));
        self.a.ja_to(store);
        // BPF_STACK_BUILD_ID_IP: the address, marked.
        self.a.bind(ip);
        self.a.jmp_imm_to(Cond::Ne, R1, 2, store);
        self.ldx_at(R0, R9, src + 24, Size::DW);
        load_imm(&mut self.a, R2, dtrace_lang::types::USTACK_IP as i64);
        self.a.emit(alu64_reg(Alu::Or, R0, R2));
        self.a.bind(store);
        self.stx_at(R9, dst, R0, Size::DW);
    }

    fn get_stack(&mut self, buf: u32, size: u32, user: bool, skip: i32) {
        self.a
            .emit(ldx(Size::DW, R1, FP, crate::codegen::stack::CTX));
        self.ptr(R2, R9, buf);
        self.a.emit(mov64_imm(R3, size as i32));
        let machinery = match self.plan.kind {
            _ if user => 0,
            ProgKind::RawTracepoint => RAW_TP_FRAMES + i32::from(self.cx.in_error),
            // The program's own frame (a trampoline calls it).
            ProgKind::Fentry | ProgKind::Fexit => 1 + i32::from(self.cx.in_error),
            _ => 0,
        };
        let flags = if user { BPF_F_USER_STACK } else { 0 } | (skip + machinery);
        self.a.emit(mov64_imm(R4, flags));
        self.a.emit(call(Helper::GetStack));
    }

    /// The hook argument word that points to the task the probe fires on
    /// behalf of, if not the current one (a context switch's incoming
    /// thread).
    fn task_word(&self) -> Option<u8> {
        match &self.plan.context {
            ArgContext::RawArgs { task, .. } => *task,
            _ => None,
        }
    }

    /// r0 = the probe's task: the current one, or the one its hook names.
    fn current_task(&mut self) {
        match self.task_word() {
            Some(w) => {
                self.a
                    .emit(ldx(Size::DW, R1, FP, crate::codegen::stack::CTX));
                self.a.emit(ldx(Size::DW, R0, R1, 8 * i16::from(w.min(11))));
            }
            None => self.a.emit(call(Helper::GetCurrentTask)),
        }
    }

    fn no_task_btf(what: &str) -> GenError {
        GenError(format!(
            "{} needs kernel BTF (task_struct offsets), which is unavailable",
            what
        ))
    }

    /// Reads `size` bytes at `task + off` (the probe's task) into
    /// scratch::TMP, which is zero where the read fails.
    fn read_task_field(&mut self, off: u32, size: i32) {
        self.current_task();
        self.read_at_r0(off, size);
    }

    /// Reads `size` bytes at `r0 + off` into scratch::TMP (zeroed first).
    fn read_at_r0(&mut self, off: u32, size: i32) {
        self.a.emit(mov64_reg(R3, R0));
        self.a.emit(alu64_imm(Alu::Add, R3, off as i32));
        self.ptr(R1, R9, scratch::TMP);
        self.a.emit(mov64_imm(R2, size));
        self.a.emit(st_imm(Size::DW, R9, scratch::TMP as i16, 0));
        self.a.emit(call(Helper::ProbeReadKernel));
    }

    /// r0 = the 32-bit value at the end of a pointer path from the
    /// probe's task: every offset but the last leads to a pointer
    /// (`real_parent` then `tgid` is the parent's pid). A failed read is 0.
    fn task_u32(&mut self, path: &[Option<u32>], what: &str) -> R<()> {
        let offs: Option<Vec<u32>> = path.iter().copied().collect();
        let offs = offs.ok_or_else(|| Self::no_task_btf(what))?;
        let Some((last, ptrs)) = offs.split_last() else {
            return Err(Self::no_task_btf(what));
        };
        self.current_task();
        for &off in ptrs {
            self.read_at_r0(off, 8);
            self.a.emit(ldx(Size::DW, R0, R9, scratch::TMP as i16));
        }
        self.read_at_r0(*last, 4);
        self.a.emit(ldx(Size::W, R0, R9, scratch::TMP as i16));
        Ok(())
    }

    /// After a map lookup (r0 = value or NULL): the stored integer, or 0.
    fn deref_or_zero(&mut self) -> Temp {
        let l = self.a.new_label();
        self.a.emit(mov64_imm(R1, 0));
        self.a.jmp_imm_to(Cond::Eq, R0, 0, l);
        self.a.emit(ldx(Size::DW, R1, R0, 0));
        self.a.bind(l);
        self.int_result(R1)
    }

    /// Stores the current thread id as the key at stack::KEY.
    fn thread_key(&mut self) -> R<()> {
        if self.task_word().is_some() {
            let t = self.g.inp.opts.task;
            self.task_u32(&[t.pid], "a thread-local variable")?;
        } else {
            self.a.emit(call(Helper::GetCurrentPidTgid));
            self.a.emit(alu32_reg(Alu::Mov, R0, R0));
        }
        self.a.emit(stx(Size::DW, FP, stack::KEY, R0));
        Ok(())
    }

    fn key_ptr_stack(&mut self, r: Reg) {
        self.a.emit(mov64_reg(r, FP));
        self.a.emit(alu64_imm(Alu::Add, r, i32::from(stack::KEY)));
    }

    fn load_var(&mut self, v: VarRef) -> R<Temp> {
        if self.g.inp.syms.var(v).ty.is_by_ref() {
            return self.var_addr(v);
        }
        match v {
            VarRef::Global(i) => {
                let off = self.g.globals.slots[i].0;
                let gm = self.g.m_globals;
                self.a.ld_map_value(R1, gm, off);
                self.a.emit(ldx(Size::DW, R0, R1, 0));
                Ok(self.int_result(R0))
            }
            VarRef::Local(i) => {
                let off = self.g.locals.slots[i].0;
                self.ldx_at(R0, R9, off, Size::DW);
                Ok(self.int_result(R0))
            }
            VarRef::Thread(i) => {
                self.thread_key()?;
                let map = self.g.thread_maps[i];
                self.a.ld_map_fd(R1, map);
                self.key_ptr_stack(R2);
                self.a.emit(call(Helper::MapLookupElem));
                Ok(self.deref_or_zero())
            }
        }
    }

    /// The address of a by-reference variable's bytes: its storage, or
    /// for a thread-local not yet assigned, zeros.
    fn var_addr(&mut self, v: VarRef) -> R<Temp> {
        match v {
            VarRef::Global(i) => {
                let off = self.g.globals.slots[i].0;
                let gm = self.g.m_globals;
                self.a.ld_map_value(R1, gm, off);
                Ok(self.int_result(R1))
            }
            VarRef::Local(i) => {
                let off = self.g.locals.slots[i].0;
                self.ptr(R1, R9, off);
                Ok(self.int_result(R1))
            }
            VarRef::Thread(i) => {
                self.thread_key()?;
                let map = self.g.thread_maps[i];
                self.a.ld_map_fd(R1, map);
                self.key_ptr_stack(R2);
                self.a.emit(call(Helper::MapLookupElem));
                Ok(self.ptr_or_empty())
            }
        }
    }

    /// The declared type of what an lvalue names.
    fn lvalue_type(&self, lv: &LValue) -> Type {
        match lv {
            LValue::Mem { ty, .. } => ty.clone(),
            LValue::Var(v) => self.g.inp.syms.var(*v).ty.clone(),
            LValue::Elem(arr, _) => self.g.inp.syms.arrays[*arr].value.clone(),
            LValue::Field { ty, .. } => ty.clone(),
        }
    }

    /// A pointer to the storage of a variable or associative array
    /// element (`limit` bytes) that is about to be written in part: a
    /// dynamic one that does not exist yet is created, zero-filled (if the
    /// map is full, the drop is counted and the write goes to scratch).
    fn storage_ptr(&mut self, lv: &LValue, key: Option<u32>, limit: u32) -> R<Temp> {
        match lv {
            LValue::Mem { .. } => Err(GenError(
                "internal error: a store to memory reached a variable's path".into(),
            )),
            LValue::Var(VarRef::Global(i)) => {
                let off = self.g.globals.slots[*i].0;
                let gm = self.g.m_globals;
                self.a.ld_map_value(R1, gm, off);
                Ok(self.int_result(R1))
            }
            LValue::Var(VarRef::Local(i)) => {
                let off = self.g.locals.slots[*i].0;
                self.ptr(R1, R9, off);
                Ok(self.int_result(R1))
            }
            LValue::Var(VarRef::Thread(_)) | LValue::Elem(..) => {
                let map = match lv {
                    LValue::Var(VarRef::Thread(i)) => {
                        self.thread_key()?;
                        self.g.thread_maps[*i]
                    }
                    LValue::Elem(arr, _) => self.g.array_maps[*arr],
                    _ => unreachable!("matched above"),
                };
                let key_ptr = |p: &mut Self, r: Reg| match key {
                    Some(k) => p.ptr(r, R9, k),
                    None => p.key_ptr_stack(r),
                };
                let have = self.a.new_label();
                self.a.ld_map_fd(R1, map);
                key_ptr(self, R2);
                self.a.emit(call(Helper::MapLookupElem));
                self.a.jmp_imm_to(Cond::Ne, R0, 0, have);
                self.a.ld_map_fd(R1, map);
                key_ptr(self, R2);
                let ro = self.g.m_rodata;
                let zero = self.g.zero_at;
                self.a.ld_map_value(R3, ro, zero);
                self.a.emit(mov64_imm(R4, 0));
                self.a.emit(call(Helper::MapUpdateElem));
                self.a.ld_map_fd(R1, map);
                key_ptr(self, R2);
                self.a.emit(call(Helper::MapLookupElem));
                self.a.jmp_imm_to(Cond::Ne, R0, 0, have);
                self.count_drop(drops::DYNAMIC);
                let sink = self.alloc_buf(limit);
                self.ptr(R0, R9, sink);
                self.a.bind(have);
                Ok(self.int_result(R0))
            }
            LValue::Field { .. } => Err(GenError(
                "internal error: a field of a field is one field".into(),
            )),
        }
    }

    /// A pointer to `size` bytes at `offset` into the storage of `base`
    /// (`limit` bytes); an offset beyond it (an array index out of
    /// bounds) faults with "invalid address" of that offset.
    fn field_ptr(
        &mut self,
        base: &LValue,
        key: Option<u32>,
        offset: &CExpr,
        size: u32,
        limit: u32,
    ) -> R<Temp> {
        let p = self.storage_ptr(base, key, limit)?;
        let to = self.eval_int(offset)?;
        self.load_temp(to, R2);
        self.free(to);
        let ok = self.a.new_label();
        let max = limit.saturating_sub(size.max(1));
        self.a.jmp_imm_to(Cond::Le, R2, max as i32, ok);
        // The verifier forbids adding an unbounded offset to the storage
        // pointer, even to report it: the fault names the offset.
        let act = self.cur_action;
        self.fault(fault::BADADDR, Some(R2), act);
        self.a.bind(ok);
        self.load_temp(p, R1);
        self.a.emit(alu64_reg(Alu::Add, R1, R2));
        self.store_temp(p, R1);
        Ok(p)
    }

    /// The unit a bit-field of integer type `it` is read and written in.
    fn bitfield_unit(it: dtrace_lang::types::IntType, shift: u64, width: u32) -> u32 {
        if shift + u64::from(width) > u64::from(it.size) * 8 {
            8
        } else {
            u32::from(it.size)
        }
    }

    /// Reads the field at the pointer in `p` (a scalar, float or
    /// bit-field) into `p`.
    fn load_field(&mut self, p: Temp, ty: &Type, bits: Option<(u64, u32)>) {
        self.load_temp(p, R1);
        match bits {
            None => {
                let size = ty.scalar_size().max(1);
                self.a.emit(ldx(Size::of_bytes(size), R1, R1, 0));
                if ty.as_int().is_some_and(|t| t.signed) {
                    normalize(&mut self.a, R1, ty);
                }
            }
            Some((shift, width)) => {
                let it = ty.as_int().unwrap_or(dtrace_lang::types::INT64);
                let unit = Self::bitfield_unit(it, shift, width);
                self.a.emit(ldx(Size::of_bytes(unit), R1, R1, 0));
                let up = 64 - shift as i32 - width as i32;
                self.a.emit(alu64_imm(Alu::Lsh, R1, up));
                let down = if it.signed { Alu::Arsh } else { Alu::Rsh };
                self.a.emit(alu64_imm(down, R1, 64 - width as i32));
            }
        }
        self.store_temp(p, R1);
    }

    /// Writes the value in `v` to the field at the pointer in `p`.
    fn store_field(&mut self, p: Temp, ty: &Type, bits: Option<(u64, u32)>, v: Temp) {
        self.load_temp(p, R1);
        self.load_temp(v, R2);
        match bits {
            None => {
                let size = ty.scalar_size().max(1);
                self.a.emit(stx(Size::of_bytes(size), R1, 0, R2));
            }
            Some((shift, width)) => {
                let it = ty.as_int().unwrap_or(dtrace_lang::types::INT64);
                let unit = Self::bitfield_unit(it, shift, width);
                let mask = (u64::MAX >> (64 - width)) << shift;
                self.a.emit(ldx(Size::of_bytes(unit), R3, R1, 0));
                load_imm(&mut self.a, R4, !mask as i64);
                self.a.emit(alu64_reg(Alu::And, R3, R4));
                // The value's low `width` bits, moved to the field.
                self.a.emit(alu64_imm(Alu::Lsh, R2, 64 - width as i32));
                self.a
                    .emit(alu64_imm(Alu::Rsh, R2, 64 - width as i32 - shift as i32));
                self.a.emit(alu64_reg(Alu::Or, R3, R2));
                self.a.emit(stx(Size::of_bytes(unit), R1, 0, R3));
            }
        }
    }

    /// `size` bytes from the address in `src` to `dst` (kernel memory or
    /// BPF memory alike), faulting with the source address if they cannot
    /// be read.
    fn copy_bytes(&mut self, dst: Dst, size: u32, src: Temp) {
        self.dst_ptr(dst, R1);
        self.a.emit(mov64_imm(R2, size as i32));
        self.load_temp(src, R3);
        self.a.emit(call(Helper::ProbeReadKernel));
        self.check_read(src);
    }

    /// Assignment of a struct, union, array or long double: its bytes are
    /// copied into the variable's storage; the value is the stored copy.
    fn assign_ref(&mut self, lv: &LValue, rhs: &CExpr) -> R<Temp> {
        let size = layout::by_ref_size(&self.lvalue_type(lv), &self.g.inp.syms.types);
        let key = self.lvalue_key(lv)?;
        let src = self.eval_int(rhs)?;
        match lv {
            LValue::Mem { .. } => {
                return Err(GenError(
                    "internal error: a store to memory reached a variable's path".into(),
                ))
            }
            LValue::Field {
                base,
                offset,
                ty,
                limit,
                ..
            } => {
                // Exactly the member's bytes: the next member follows.
                let exact = self.g.inp.syms.types.known_size(ty).unwrap_or(0) as u32;
                let p = self.field_ptr(base, key, offset, exact, *limit)?;
                self.load_temp(p, R1);
                self.a.emit(mov64_imm(R2, exact as i32));
                self.load_temp(src, R3);
                self.a.emit(call(Helper::ProbeReadKernel));
                self.check_read(src);
                self.load_temp(p, R1);
                self.free(p);
            }
            LValue::Var(VarRef::Global(i)) => {
                let off = self.g.globals.slots[*i].0;
                self.copy_bytes(Dst::Global(off), size, src);
                let gm = self.g.m_globals;
                self.a.ld_map_value(R1, gm, off);
            }
            LValue::Var(VarRef::Local(i)) => {
                let off = self.g.locals.slots[*i].0;
                self.copy_bytes(Dst::Scratch(off), size, src);
                self.ptr(R1, R9, off);
            }
            LValue::Var(VarRef::Thread(_)) | LValue::Elem(..) => {
                // Copied into scratch first: map updates read BPF memory.
                let vb = self.alloc_buf(size);
                self.copy_bytes(Dst::Scratch(vb), size, src);
                self.store_dynamic(lv, key, vb)?;
            }
        }
        self.store_temp(src, R1);
        Ok(src)
    }

    /// A struct built member by member in a scratch buffer (zeroed first);
    /// its address.
    fn build_record(&mut self, fields: &[(u32, u32, CExpr)], ty: &Type) -> R<Temp> {
        let size = layout::by_ref_size(ty, &self.g.inp.syms.types);
        let buf = self.alloc_buf(size);
        for w in 0..size / 8 {
            self.st_imm_at(R9, buf + 8 * w, 0);
        }
        for (off, msize, v) in fields {
            if v.ty.is_string() {
                self.eval_str_into(v, Dst::Scratch(buf + off), *msize)?;
            } else {
                let t = self.eval_int(v)?;
                self.load_temp(t, R1);
                self.free(t);
                let sz = match msize {
                    1 => Size::B,
                    2 => Size::H,
                    4 => Size::W,
                    _ => Size::DW,
                };
                self.stx_at(R9, buf + off, R1, sz);
            }
        }
        self.ptr(R1, R9, buf);
        Ok(self.int_result(R1))
    }

    /// Builds an associative array's key in scratch; returns its offset.
    fn array_key(&mut self, arr: ArrayId, keys: &[CExpr]) -> R<u32> {
        let (fields, size) = self.g.array_keys[arr].clone();
        self.build_key(&fields, size, keys)
    }

    /// Builds a tuple key in scratch. Bytes a string does not fill are
    /// zeroed so equal tuples hash equally.
    pub(crate) fn build_key(&mut self, fields: &[KeyField], size: u32, keys: &[CExpr]) -> R<u32> {
        let kb = self.alloc_buf(size);
        if keys.is_empty() {
            self.st_imm_at(R9, kb, 0);
        }
        self.build_key_at(kb, fields, keys)?;
        Ok(kb)
    }

    /// Writes a tuple's fields at scratch offset `kb` (each at its own
    /// offset from there).
    fn build_key_at(&mut self, kb: u32, fields: &[KeyField], keys: &[CExpr]) -> R<()> {
        for (f, k) in fields.iter().zip(keys) {
            if k.ty.is_string() {
                if !matches!(k.kind, CKind::Builtin(Builtin::Execname))
                    || f.size != layout::round8(COMM_LEN)
                {
                    for w in 0..f.size / 8 {
                        self.st_imm_at(R9, kb + f.offset + 8 * w, 0);
                    }
                }
                self.eval_str_into(k, Dst::Scratch(kb + f.offset), f.size)?;
            } else if k.ty.is_by_ref() {
                // The value's own bytes; the padding to the next word is
                // zeroed so equal values hash equally.
                let exact = self.g.inp.syms.types.known_size(&k.ty).unwrap_or(0) as u32;
                for w in exact / 8..f.size / 8 {
                    self.st_imm_at(R9, kb + f.offset + 8 * w, 0);
                }
                let src = self.eval_int(k)?;
                if exact > 0 {
                    self.copy_bytes(Dst::Scratch(kb + f.offset), exact.min(f.size), src);
                }
                self.free(src);
            } else {
                let t = self.eval_int(k)?;
                self.load_temp(t, R1);
                self.free(t);
                normalize(&mut self.a, R1, &f.ty);
                self.stx_at(R9, kb + f.offset, R1, Size::DW);
            }
        }
        Ok(())
    }

    /// Prepared key of an lvalue (associative array element): its scratch
    /// offset, computed before the value is evaluated.
    fn lvalue_key(&mut self, lv: &LValue) -> R<Option<u32>> {
        match lv {
            LValue::Mem { .. } => Err(GenError(
                "internal error: a store to memory reached a variable's path".into(),
            )),
            LValue::Elem(arr, keys) => Ok(Some(self.array_key(*arr, keys)?)),
            LValue::Var(_) => Ok(None),
            LValue::Field { base, .. } => self.lvalue_key(base),
        }
    }

    /// The address of a member or element lvalue (`x.a[i]`), computed
    /// once for a read-modify-write so its index is evaluated once; None
    /// for variables and associative-array elements.
    fn field_at(&mut self, lv: &LValue, key: Option<u32>) -> R<Option<Temp>> {
        match lv {
            LValue::Field {
                base,
                offset,
                ty,
                limit,
                ..
            } => Ok(Some(self.field_ptr(
                base,
                key,
                offset,
                ty.scalar_size(),
                *limit,
            )?)),
            _ => Ok(None),
        }
    }

    /// Loads the current integer value of an lvalue into a new temp
    /// (through `at`, from `field_at`, for a member).
    fn load_lvalue(&mut self, lv: &LValue, key: Option<u32>, at: Option<Temp>) -> R<Temp> {
        match lv {
            LValue::Mem { .. } => Err(GenError(
                "internal error: a store to memory reached a variable's path".into(),
            )),
            LValue::Var(v) => self.load_var(*v),
            LValue::Elem(arr, _) => {
                let map = self.g.array_maps[*arr];
                self.a.ld_map_fd(R1, map);
                self.ptr(R2, R9, key.expect("element key prepared"));
                self.a.emit(call(Helper::MapLookupElem));
                Ok(self.deref_or_zero())
            }
            LValue::Field {
                base,
                offset,
                ty,
                bits,
                limit,
            } => {
                let p = match at {
                    Some(at) => {
                        let p = self.alloc();
                        self.load_temp(at, R1);
                        self.store_temp(p, R1);
                        p
                    }
                    None => self.field_ptr(base, key, offset, ty.scalar_size(), *limit)?,
                };
                self.load_field(p, ty, *bits);
                Ok(p)
            }
        }
    }

    /// Stores the integer in temp `t` (already normalised) into `lv`.
    /// Dynamic variables are deleted when zero is stored, as in DTrace.
    fn store_int(&mut self, lv: &LValue, key: Option<u32>, t: Temp, at: Option<Temp>) -> R<()> {
        match lv {
            LValue::Mem { .. } => {
                return Err(GenError(
                    "internal error: a store to memory reached a variable's path".into(),
                ))
            }
            LValue::Var(VarRef::Global(i)) => {
                let off = self.g.globals.slots[*i].0;
                let gm = self.g.m_globals;
                self.a.ld_map_value(R2, gm, off);
                self.load_temp(t, R1);
                self.a.emit(stx(Size::DW, R2, 0, R1));
            }
            LValue::Var(VarRef::Local(i)) => {
                let off = self.g.locals.slots[*i].0;
                self.load_temp(t, R1);
                self.stx_at(R9, off, R1, Size::DW);
            }
            LValue::Var(VarRef::Thread(i)) => {
                let map = self.g.thread_maps[*i];
                self.thread_key()?;
                self.dyn_store(map, None, t);
            }
            LValue::Elem(arr, _) => {
                let map = self.g.array_maps[*arr];
                self.dyn_store(map, key, t);
            }
            LValue::Field {
                base,
                offset,
                ty,
                bits,
                limit,
            } => {
                let p = match at {
                    Some(at) => at,
                    None => self.field_ptr(base, key, offset, ty.scalar_size(), *limit)?,
                };
                self.store_field(p, ty, *bits, t);
                if at.is_none() {
                    self.free(p);
                }
            }
        }
        Ok(())
    }

    /// Update-or-delete of a dynamic variable whose key is at stack::KEY
    /// (`key` None) or in scratch.
    /// Stores the scratch buffer `vb` as the value of a thread-local or
    /// associative-array element (`key` from `lvalue_key`); a full map is
    /// a dynamic-variable drop. Leaves `vb`'s address in R1.
    fn store_dynamic(&mut self, lv: &LValue, key: Option<u32>, vb: u32) -> R<()> {
        let map = match lv {
            LValue::Var(VarRef::Thread(i)) => {
                self.thread_key()?;
                self.g.thread_maps[*i]
            }
            LValue::Elem(arr, _) => self.g.array_maps[*arr],
            _ => {
                return Err(GenError(
                    "internal error: a dynamic store to a static variable".into(),
                ))
            }
        };
        self.a.ld_map_fd(R1, map);
        match key {
            Some(k) => self.ptr(R2, R9, k),
            None => self.key_ptr_stack(R2),
        }
        self.ptr(R3, R9, vb);
        self.a.emit(mov64_imm(R4, 0));
        self.a.emit(call(Helper::MapUpdateElem));
        let ok = self.a.new_label();
        self.a.jmp_imm_to(Cond::Eq, R0, 0, ok);
        self.count_drop(drops::DYNAMIC);
        self.a.bind(ok);
        self.ptr(R1, R9, vb);
        Ok(())
    }

    fn dyn_store(&mut self, map: crate::asm::MapId, key: Option<u32>, t: Temp) {
        let del = self.a.new_label();
        let end = self.a.new_label();
        self.load_temp(t, R1);
        self.a.emit(stx(Size::DW, FP, stack::VALUE, R1));
        self.a.jmp_imm_to(Cond::Eq, R1, 0, del);
        self.a.ld_map_fd(R1, map);
        match key {
            Some(k) => self.ptr(R2, R9, k),
            None => self.key_ptr_stack(R2),
        }
        self.a.emit(mov64_reg(R3, FP));
        self.a
            .emit(alu64_imm(Alu::Add, R3, i32::from(stack::VALUE)));
        self.a.emit(mov64_imm(R4, 0));
        self.a.emit(call(Helper::MapUpdateElem));
        let failed = self.a.new_label();
        self.a.jmp_imm_to(Cond::Ne, R0, 0, failed);
        self.a.ja_to(end);
        self.a.bind(failed);
        self.count_drop(drops::DYNAMIC);
        self.a.ja_to(end);
        self.a.bind(del);
        self.a.ld_map_fd(R1, map);
        match key {
            Some(k) => self.ptr(R2, R9, k),
            None => self.key_ptr_stack(R2),
        }
        self.a.emit(call(Helper::MapDeleteElem));
        self.a.bind(end);
    }

    fn assign_int(&mut self, lv: &LValue, op: Option<ArithOp>, rhs: &CExpr, ty: &Type) -> R<Temp> {
        if ty.is_string() {
            let (t, _) = self.assign_str(lv, rhs)?;
            return Ok(t);
        }
        if let LValue::Mem { addr, ty: mty } = lv {
            // The address once (`p[i++] += 1` steps i once), then the value.
            let ta = self.eval_int(addr)?;
            let tv = self.eval_int(rhs)?;
            if let Some(op) = op {
                let old = self.load_at(ta, mty);
                self.load_temp(old, R1);
                self.load_temp(tv, R2);
                self.free(old);
                let signed = mty.as_int().map(|t| t.signed).unwrap_or(false);
                self.arith(op, signed)?;
                self.store_temp(tv, R1);
            }
            self.load_temp(tv, R1);
            normalize(&mut self.a, R1, ty);
            self.store_temp(tv, R1);
            self.store_mem(ta, mty, tv)?;
            self.free(ta);
            return Ok(tv);
        }
        let key = self.lvalue_key(lv)?;
        let tv = self.eval_int(rhs)?;
        let at = self.field_at(lv, key)?;
        if let Some(op) = op {
            let old = self.load_lvalue(lv, key, at)?;
            self.load_temp(old, R1);
            self.load_temp(tv, R2);
            self.free(old);
            let signed = ty.as_int().map(|t| t.signed).unwrap_or(false);
            self.arith(op, signed)?;
            self.store_temp(tv, R1);
        }
        self.load_temp(tv, R1);
        normalize(&mut self.a, R1, ty);
        self.store_temp(tv, R1);
        self.store_int(lv, key, tv, at)?;
        if let Some(at) = at {
            self.free(at);
        }
        Ok(tv)
    }

    fn incdec(&mut self, lv: &LValue, pre: bool, delta: i64, ty: &Type) -> R<Temp> {
        if let LValue::Mem { addr, ty: mty } = lv {
            let ta = self.eval_int(addr)?;
            let old = self.load_at(ta, mty);
            let new = self.alloc();
            self.load_temp(old, R1);
            self.a.emit(alu64_imm(Alu::Add, R1, delta as i32));
            normalize(&mut self.a, R1, ty);
            self.store_temp(new, R1);
            self.store_mem(ta, mty, new)?;
            self.free(ta);
            return if pre {
                self.free(old);
                Ok(new)
            } else {
                self.free(new);
                Ok(old)
            };
        }
        let key = self.lvalue_key(lv)?;
        let at = self.field_at(lv, key)?;
        let old = self.load_lvalue(lv, key, at)?;
        let new = self.alloc();
        self.load_temp(old, R1);
        self.a.emit(alu64_imm(Alu::Add, R1, delta as i32));
        normalize(&mut self.a, R1, ty);
        self.store_temp(new, R1);
        self.store_int(lv, key, new, at)?;
        if let Some(at) = at {
            self.free(at);
        }
        if pre {
            self.free(old);
            Ok(new)
        } else {
            self.free(new);
            Ok(old)
        }
    }

    fn assign_str(&mut self, lv: &LValue, rhs: &CExpr) -> R<(Temp, u32)> {
        let strsize = self.g.caps.strsize;
        match lv {
            LValue::Mem { .. } => Err(GenError(
                "internal error: a store to memory reached a variable's path".into(),
            )),
            LValue::Var(VarRef::Global(i)) => {
                let off = self.g.globals.slots[*i].0;
                self.eval_str_into(rhs, Dst::Global(off), strsize)?;
                let gm = self.g.m_globals;
                self.a.ld_map_value(R1, gm, off);
                Ok((self.int_result(R1), strsize))
            }
            LValue::Var(VarRef::Local(i)) => {
                let off = self.g.locals.slots[*i].0;
                self.eval_str_into(rhs, Dst::Scratch(off), strsize)?;
                self.ptr(R1, R9, off);
                Ok((self.int_result(R1), strsize))
            }
            LValue::Field { .. } => Err(GenError(
                "internal error: a string stored into a field".into(),
            )),
            LValue::Var(VarRef::Thread(_)) | LValue::Elem(..) => {
                let key = self.lvalue_key(lv)?;
                let vb = self.alloc_buf(strsize);
                self.eval_str_into(rhs, Dst::Scratch(vb), strsize)?;
                self.store_dynamic(lv, key, vb)?;
                Ok((self.int_result(R1), strsize))
            }
        }
    }

    // ---- strings ----

    fn const_str_ptr(&mut self, s: &[u8]) -> (Temp, u32) {
        let off = self.g.string(s);
        let len = s.iter().position(|&c| c == 0).unwrap_or(s.len()) as u32;
        let ro = self.g.m_rodata;
        self.a.ld_map_value(R1, ro, off);
        (self.int_result(R1), len + 1)
    }

    /// The probe identity string `which` (0 provider .. 3 name): constant,
    /// or the dispatch entry's copy when it varies between probes.
    fn ident_str(&mut self, which: usize) -> (Option<u32>, String, u32) {
        let (p, dispatched) = match &self.cx.ident {
            IdentSrc::Const(p) => (p.clone(), false),
            IdentSrc::Dispatch(p) => (p.clone(), true),
        };
        let val = match which {
            0 => p.provider,
            1 => p.module,
            2 => p.function,
            _ => p.name,
        };
        let cap = match which {
            0 => self.g.caps.provider,
            1 => self.g.caps.module,
            2 => self.g.caps.function,
            _ => self.g.caps.name,
        };
        let at = if dispatched {
            self.dl.as_ref().and_then(|d| d.ident_at[which])
        } else {
            None
        };
        (at, val, cap)
    }

    fn ident_index(b: Builtin) -> Option<usize> {
        match b {
            Builtin::Probeprov => Some(0),
            Builtin::Probemod => Some(1),
            Builtin::Probefunc => Some(2),
            Builtin::Probename => Some(3),
            _ => None,
        }
    }

    /// Evaluates a string expression to a pointer and its capacity.
    pub(crate) fn eval_str(&mut self, e: &CExpr) -> R<(Temp, u32)> {
        match &e.kind {
            CKind::Str(s) => Ok(self.const_str_ptr(s)),
            CKind::Builtin(b) if Self::ident_index(*b).is_some() => {
                let (at, val, cap) = self.ident_str(Self::ident_index(*b).expect("checked"));
                match at {
                    None => Ok(self.const_str_ptr(val.as_bytes())),
                    Some(off) => {
                        self.a.emit(ldx(Size::DW, R1, FP, stack::DISPATCH));
                        self.a.emit(alu64_imm(Alu::Add, R1, off as i32));
                        Ok((self.int_result(R1), cap))
                    }
                }
            }
            CKind::Builtin(Builtin::Execname) | CKind::Copyinstr(..) | CKind::KernelString(_) => {
                let cap = layout::str_cap(e, &self.g.caps);
                let buf = self.alloc_buf(cap);
                self.eval_str_into(e, Dst::Scratch(buf), cap)?;
                self.ptr(R1, R9, buf);
                Ok((self.int_result(R1), cap))
            }
            CKind::Var(VarRef::Global(i)) => {
                let off = self.g.globals.slots[*i].0;
                let gm = self.g.m_globals;
                self.a.ld_map_value(R1, gm, off);
                Ok((self.int_result(R1), self.g.caps.strsize))
            }
            CKind::Var(VarRef::Local(i)) => {
                let off = self.g.locals.slots[*i].0;
                self.ptr(R1, R9, off);
                Ok((self.int_result(R1), self.g.caps.strsize))
            }
            CKind::Var(VarRef::Thread(i)) => {
                self.thread_key()?;
                let map = self.g.thread_maps[*i];
                self.a.ld_map_fd(R1, map);
                self.key_ptr_stack(R2);
                self.a.emit(call(Helper::MapLookupElem));
                Ok((self.ptr_or_empty(), self.g.caps.strsize))
            }
            CKind::Elem(arr, keys) => {
                let kb = self.array_key(*arr, keys)?;
                let map = self.g.array_maps[*arr];
                self.a.ld_map_fd(R1, map);
                self.ptr(R2, R9, kb);
                self.a.emit(call(Helper::MapLookupElem));
                Ok((self.ptr_or_empty(), self.g.caps.strsize))
            }
            CKind::Ternary(c, x, y)
                if layout::str_cap(x, &self.g.caps) != layout::str_cap(y, &self.g.caps) =>
            {
                // Branches of different capacities (a constant and a read
                // string): both are copied into one buffer, so whoever
                // reads the result reads the same number of bytes on either
                // path, which the verifier can prove.
                let cap = layout::str_cap(e, &self.g.caps);
                let buf = self.alloc_buf(cap);
                let tc = self.eval_int(c)?;
                self.load_temp(tc, R0);
                self.free(tc);
                let l_else = self.a.new_label();
                let l_end = self.a.new_label();
                self.a.jmp_imm_to(Cond::Eq, R0, 0, l_else);
                self.eval_str_into(x, Dst::Scratch(buf), cap)?;
                self.a.ja_to(l_end);
                self.a.bind(l_else);
                self.eval_str_into(y, Dst::Scratch(buf), cap)?;
                self.a.bind(l_end);
                self.ptr(R1, R9, buf);
                Ok((self.int_result(R1), cap))
            }
            CKind::Ternary(c, x, y) => {
                let tc = self.eval_int(c)?;
                self.load_temp(tc, R0);
                self.free(tc);
                let t = self.alloc();
                let l_else = self.a.new_label();
                let l_end = self.a.new_label();
                self.a.jmp_imm_to(Cond::Eq, R0, 0, l_else);
                let (px, cx) = self.eval_str(x)?;
                self.load_temp(px, R1);
                self.free(px);
                self.store_temp(t, R1);
                self.a.ja_to(l_end);
                self.a.bind(l_else);
                let (py, cy) = self.eval_str(y)?;
                self.load_temp(py, R1);
                self.free(py);
                self.store_temp(t, R1);
                self.a.bind(l_end);
                Ok((t, cx.max(cy)))
            }
            CKind::Assign(lv, None, rhs) => self.assign_str(lv, rhs),
            CKind::DPath(p, o) => self.d_path(p, o),
            CKind::InetNtop(af, addr, mode) => self.inet_ntop(af, addr, *mode),
            CKind::Strjoin(a, b) => self.strjoin(a, b),
            CKind::Lltostr(v) => self.lltostr(v),
            CKind::Substr(s, i, n) => self.substr(s, i, n.as_deref()),
            CKind::PathPart(s, dir) => self.base_dir_name(s, *dir),
            CKind::Case(s, upper) => self.change_case(s, *upper),
            CKind::StrSearch {
                hay,
                needle,
                pos,
                mode,
            } => self.str_search(hay, needle, pos.as_deref(), *mode),
            CKind::Cleanpath(s) => self.cleanpath(s),
            CKind::Json(d, sel) => self.json(d, sel),
            CKind::LinkNtop(t, a) => self.link_ntop(t, a),
            CKind::Strtok { s, delims, again } => self.strtok(s, delims, *again),
            _ => Err(GenError(
                "internal error: expression is not a string".into(),
            )),
        }
    }

    /// After a map lookup: the value pointer, or the empty string.
    fn ptr_or_empty(&mut self) -> Temp {
        let l = self.a.new_label();
        self.a.jmp_imm_to(Cond::Ne, R0, 0, l);
        let ro = self.g.m_rodata;
        let empty = self.g.empty_at;
        self.a.ld_map_value(R0, ro, empty);
        self.a.bind(l);
        self.int_result(R0)
    }

    fn dst_ptr(&mut self, dst: Dst, r: Reg) {
        match dst {
            Dst::Record(o) => self.ptr(r, R8, o),
            Dst::Scratch(o) => self.ptr(r, R9, o),
            Dst::Global(o) => {
                let gm = self.g.m_globals;
                self.a.ld_map_value(r, gm, o);
            }
        }
    }

    /// Writes a compile-time string into `dst`, truncated to `cap`.
    fn write_const_str(&mut self, dst: Dst, s: &[u8], cap: u32) {
        let len = s
            .iter()
            .position(|&c| c == 0)
            .unwrap_or(s.len())
            .min(cap.saturating_sub(1) as usize);
        let mut bytes = s[..len].to_vec();
        bytes.push(0);
        while !bytes.len().is_multiple_of(4) && (bytes.len() as u32) < cap {
            bytes.push(0);
        }
        let (base, off) = match dst {
            Dst::Record(o) => (R8, o),
            Dst::Scratch(o) => (R9, o),
            Dst::Global(o) => {
                self.dst_ptr(dst, R1);
                let _ = o;
                (R1, 0)
            }
        };
        let mut i = 0;
        while i < bytes.len() {
            if i + 4 <= bytes.len() {
                let w = i32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
                self.st_at(base, off + i as u32, w, Size::W);
                i += 4;
            } else {
                self.st_at(base, off + i as u32, i32::from(bytes[i]), Size::B);
                i += 1;
            }
        }
    }

    fn st_at(&mut self, base: Reg, off: u32, imm: i32, size: Size) {
        if off <= 32000 {
            self.a.emit(st_imm(size, base, off as i16, imm));
        } else {
            self.a.emit(mov64_reg(R5, base));
            self.a.emit(alu64_imm(Alu::Add, R5, off as i32));
            self.a.emit(st_imm(size, R5, 0, imm));
        }
    }

    /// Evaluates a string expression straight into `dst` (`cap` bytes).
    pub(crate) fn eval_str_into(&mut self, e: &CExpr, dst: Dst, cap: u32) -> R<()> {
        match &e.kind {
            CKind::Str(s) => {
                self.write_const_str(dst, s, cap);
                Ok(())
            }
            CKind::Builtin(b) if Self::ident_index(*b).is_some() => {
                let (at, val, _) = self.ident_str(Self::ident_index(*b).expect("checked"));
                if at.is_none() {
                    self.write_const_str(dst, val.as_bytes(), cap);
                    return Ok(());
                }
                let (p, c) = self.eval_str(e)?;
                self.copy_kernel_str(dst, cap, p, c);
                Ok(())
            }
            CKind::Builtin(Builtin::Execname) if self.task_word().is_some() => {
                // The task's comm, NUL-padded as the kernel keeps it.
                let off = self.g.inp.opts.task.comm;
                let off = off.ok_or_else(|| Self::no_task_btf("execname"))?;
                self.current_task();
                self.a.emit(mov64_reg(R3, R0));
                self.a.emit(alu64_imm(Alu::Add, R3, off as i32));
                self.dst_ptr(dst, R1);
                self.a.emit(mov64_imm(R2, COMM_LEN.min(cap) as i32));
                self.a.emit(call(Helper::ProbeReadKernel));
                Ok(())
            }
            CKind::Builtin(Builtin::Execname) => {
                self.dst_ptr(dst, R1);
                self.a.emit(mov64_imm(R2, COMM_LEN.min(cap) as i32));
                self.a.emit(call(Helper::GetCurrentComm));
                Ok(())
            }
            CKind::Copyinstr(addr, n) => {
                let ta = self.eval_int(addr)?;
                let tn = match n {
                    Some(n) if !matches!(n.kind, CKind::Int(_)) => Some(self.eval_int(n)?),
                    _ => None,
                };
                let fixed = match n.as_deref() {
                    Some(CExpr {
                        kind: CKind::Int(v),
                        ..
                    }) => (*v).clamp(0, i64::from(cap)) as i32,
                    _ => cap as i32,
                };
                match tn {
                    Some(tn) => {
                        self.load_temp(tn, R2);
                        self.free(tn);
                        let ok = self.a.new_label();
                        self.a.jmp_imm_to(Cond::Le, R2, cap as i32, ok);
                        self.a.emit(mov64_imm(R2, cap as i32));
                        self.a.bind(ok);
                    }
                    None => self.a.emit(mov64_imm(R2, fixed)),
                }
                self.dst_ptr(dst, R1);
                self.load_temp(ta, R3);
                self.a.emit(call(Helper::ProbeReadUserStr));
                self.check_read(ta);
                self.free(ta);
                Ok(())
            }
            CKind::KernelString(p) => {
                let tp = self.eval_int(p)?;
                self.dst_ptr(dst, R1);
                self.a.emit(mov64_imm(R2, cap as i32));
                self.load_temp(tp, R3);
                self.a.emit(call(Helper::ProbeReadKernelStr));
                self.check_read(tp);
                self.free(tp);
                Ok(())
            }
            _ => {
                let (p, c) = self.eval_str(e)?;
                self.copy_kernel_str(dst, cap, p, c);
                Ok(())
            }
        }
    }

    /// After a probe_read: faults with the address in `addr` on failure.
    pub(crate) fn check_read(&mut self, addr: Temp) {
        let ok = self.a.new_label();
        self.a.jmp_imm_to(Cond::Sge, R0, 0, ok);
        self.load_temp(addr, R1);
        let act = self.cur_action;
        self.fault(fault::BADADDR, Some(R1), act);
        self.a.bind(ok);
    }

    fn copy_kernel_str(&mut self, dst: Dst, cap: u32, p: Temp, c: u32) {
        self.dst_ptr(dst, R1);
        self.a.emit(mov64_imm(R2, cap.min(c).max(1) as i32));
        self.load_temp(p, R3);
        self.free(p);
        self.a.emit(call(Helper::ProbeReadKernelStr));
    }

    /// Compares two strings; leaves 1 or 0 in r0 for `op`.
    fn strcmp(&mut self, a: &CExpr, b: &CExpr, op: CmpOp) -> R<()> {
        let (x, y, op) = match (&a.kind, &b.kind) {
            (CKind::Str(_), k) if !matches!(k, CKind::Str(_)) => (b, a, swap_cmp(op)),
            _ => (a, b, op),
        };
        // execname against a constant shorter than its 16 bytes.
        let short_name = match (&x.kind, &y.kind, op) {
            (CKind::Builtin(Builtin::Execname), CKind::Str(s), CmpOp::Eq | CmpOp::Ne)
                if s.len() < COMM_LEN as usize && !s.contains(&0) =>
            {
                Some(s)
            }
            _ => None,
        };
        if let Some(s) = short_name {
            // The comm is NUL-padded to its 16 bytes (bpf_get_current_comm
            // pads), so equal names are equal words: two compares, r0 0
            // if equal, 1 if not.
            let mut b = [0u8; COMM_LEN as usize];
            b[..s.len()].copy_from_slice(s);
            let (px, _) = self.eval_str(x)?;
            self.load_temp(px, R1);
            self.free(px);
            let diff = self.a.new_label();
            let done = self.a.new_label();
            for (i, w) in b.chunks(8).enumerate() {
                let w = u64::from_ne_bytes(w.try_into().expect("8 bytes"));
                self.a.emit(ldx(Size::DW, R2, R1, 8 * i as i16));
                load_imm(&mut self.a, R3, w as i64);
                self.a.jmp_reg_to(Cond::Ne, R2, R3, diff);
            }
            self.a.emit(mov64_imm(R0, 0));
            self.a.ja_to(done);
            self.a.bind(diff);
            self.a.emit(mov64_imm(R0, 1));
            self.a.bind(done);
        } else if let CKind::Str(s) = &y.kind {
            // bpf_strncmp against a constant in frozen read-only data.
            let (px, cx) = self.eval_str(x)?;
            let off = self.g.string(s);
            self.load_temp(px, R1);
            self.free(px);
            self.a.emit(mov64_imm(R2, cx as i32));
            let ro = self.g.m_rodata;
            self.a.ld_map_value(R3, ro, off);
            self.a.emit(call(Helper::Strncmp));
        } else {
            let (px, cx) = self.eval_str(x)?;
            let (py, cy) = self.eval_str(y)?;
            self.load_temp(px, R1);
            self.load_temp(py, R2);
            self.free(py);
            self.free(px);
            let n = cx.min(cy);
            let top = self.a.new_label();
            let diff = self.a.new_label();
            let equal = self.a.new_label();
            let done = self.a.new_label();
            self.a.emit(mov64_imm(R3, 0));
            self.a.bind(top);
            self.a.jmp_imm_to(Cond::Ge, R3, n as i32, equal);
            self.a.emit(mov64_reg(R4, R1));
            self.a.emit(alu64_reg(Alu::Add, R4, R3));
            self.a.emit(ldx(Size::B, R4, R4, 0));
            self.a.emit(mov64_reg(R5, R2));
            self.a.emit(alu64_reg(Alu::Add, R5, R3));
            self.a.emit(ldx(Size::B, R5, R5, 0));
            self.a.jmp_reg_to(Cond::Ne, R4, R5, diff);
            self.a.jmp_imm_to(Cond::Eq, R4, 0, equal);
            self.a.emit(alu64_imm(Alu::Add, R3, 1));
            self.a.ja_to(top);
            self.a.bind(diff);
            self.a.emit(mov64_reg(R0, R4));
            self.a.emit(alu64_reg(Alu::Sub, R0, R5));
            self.a.ja_to(done);
            self.a.bind(equal);
            self.a.emit(mov64_imm(R0, 0));
            self.a.bind(done);
        }
        // r0 holds <0, 0 or >0; turn it into the comparison's truth value.
        let cond = cmp_cond(op, true);
        let t = self.a.new_label();
        self.a.emit(mov64_reg(R1, R0));
        self.a.emit(mov64_imm(R0, 1));
        self.a.jmp_imm_to(cond, R1, 0, t);
        self.a.emit(mov64_imm(R0, 0));
        self.a.bind(t);
        Ok(())
    }

    fn strlen(&mut self, s: &CExpr) -> R<Temp> {
        let (p, c) = self.eval_str(s)?;
        self.load_temp(p, R1);
        let top = self.a.new_label();
        let done = self.a.new_label();
        self.a.emit(mov64_imm(R3, 0));
        self.a.bind(top);
        self.a.jmp_imm_to(Cond::Ge, R3, c as i32, done);
        self.a.emit(mov64_reg(R4, R1));
        self.a.emit(alu64_reg(Alu::Add, R4, R3));
        self.a.emit(ldx(Size::B, R4, R4, 0));
        self.a.jmp_imm_to(Cond::Eq, R4, 0, done);
        self.a.emit(alu64_imm(Alu::Add, R3, 1));
        self.a.ja_to(top);
        self.a.bind(done);
        self.store_temp(p, R3);
        Ok(p)
    }

    // ---- aggregations ----

    /// Looks up (creating zeroed) the key's words in the aggregation's
    /// map, then lets the function's `AggOps` update them.
    pub(crate) fn agg_update(
        &mut self,
        agg: AggId,
        keys: &[CExpr],
        value: Option<&CExpr>,
        incr: Option<&CExpr>,
    ) -> R<()> {
        let al = self.g.aggs[agg].clone();
        if let Some(slot) = al.slot {
            return self.agg_update_slot(&al, slot, value, incr);
        }
        let own: u32 = al.keys.last().map_or(8, |k| k.offset + k.size);
        let kb = self.alloc_buf(al.key_size);
        // The id, then the tuple; the padding past this aggregation's own
        // key is zeroed so equal keys hash equally.
        crate::codegen::load_imm(&mut self.a, R1, al.id as i64);
        self.stx_at(R9, kb, R1, Size::DW);
        for w in own.div_ceil(8)..al.key_size / 8 {
            self.st_imm_at(R9, kb + 8 * w, 0);
        }
        self.build_key_at(kb, &al.keys, keys)?;
        let (tv, ti) = self.agg_operands(value, incr)?;
        let have = self.a.new_label();
        let done = self.a.new_label();
        self.a.ld_map_fd(R1, al.map);
        self.ptr(R2, R9, kb);
        self.a.emit(call(Helper::MapLookupElem));
        self.a.jmp_imm_to(Cond::Ne, R0, 0, have);
        self.a.ld_map_fd(R1, al.map);
        self.ptr(R2, R9, kb);
        let ro = self.g.m_rodata;
        let zero = self.g.zero_at;
        self.a.ld_map_value(R3, ro, zero);
        self.a.emit(mov64_imm(R4, 1));
        self.a.emit(call(Helper::MapUpdateElem));
        self.a.ld_map_fd(R1, al.map);
        self.ptr(R2, R9, kb);
        self.a.emit(call(Helper::MapLookupElem));
        self.a.jmp_imm_to(Cond::Ne, R0, 0, have);
        self.count_drop(drops::AGGREGATION);
        self.a.ja_to(done);
        self.a.bind(have);
        crate::aggs::ops(al.func).update(self, tv, ti, done);
        self.a.bind(done);
        self.free_operands(tv, ti);
        Ok(())
    }
}

impl ProgGen<'_, '_> {
    /// An aggregating function's value and increment, evaluated.
    fn agg_operands(
        &mut self,
        value: Option<&CExpr>,
        incr: Option<&CExpr>,
    ) -> R<(Option<Temp>, Option<Temp>)> {
        let tv = value.map(|v| self.eval_int(v)).transpose()?;
        let ti = incr.map(|v| self.eval_int(v)).transpose()?;
        Ok((tv, ti))
    }

    /// Frees what `agg_operands` evaluated.
    fn free_operands(&mut self, tv: Option<Temp>, ti: Option<Temp>) {
        for t in [ti, tv].into_iter().flatten() {
            self.free(t);
        }
    }

    /// An aggregation with no keys: its slot of the per-CPU array
    /// (always there), marked updated, then its values updated.
    fn agg_update_slot(
        &mut self,
        al: &AggLayout,
        slot: u32,
        value: Option<&CExpr>,
        incr: Option<&CExpr>,
    ) -> R<()> {
        let (tv, ti) = self.agg_operands(value, incr)?;
        let done = self.a.new_label();
        self.a.emit(st_imm(Size::W, FP, stack::KEY, slot as i32));
        self.a.ld_map_fd(R1, al.map);
        self.a.emit(mov64_reg(R2, FP));
        self.a.emit(alu64_imm(Alu::Add, R2, i32::from(stack::KEY)));
        self.a.emit(call(Helper::MapLookupElem));
        self.a.jmp_imm_to(Cond::Eq, R0, 0, done);
        self.a.emit(st_imm(Size::DW, R0, 0, 1));
        self.a.emit(alu64_imm(Alu::Add, R0, 8));
        crate::aggs::ops(al.func).update(self, tv, ti, done);
        self.a.bind(done);
        self.free_operands(tv, ti);
        Ok(())
    }
}

fn swap_cmp(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        o => o,
    }
}

fn cmp_cond(op: CmpOp, signed: bool) -> Cond {
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
