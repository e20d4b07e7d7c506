//! Strings as expressions: pointers to NUL-terminated buffers of known
//! capacity, or written straight into a destination; string assignment,
//! comparison and length.

use super::*;

/// A NULL string in a variable's own bytes, as a little-endian halfword:
/// a NUL, then 0x7f (an empty string's second byte is 0).
const NULL_STRING: i32 = 0x7f00;

impl ProgGen<'_, '_> {
    pub(crate) fn assign_str(&mut self, lv: &LValue, rhs: &CExpr) -> R<(Temp, u32)> {
        let strsize = self.g.caps.strsize;
        match lv {
            LValue::Mem { .. } => Err(GenError(
                "internal error: a store to memory reached a variable's path".into(),
            )),
            LValue::Var(VarRef::Global(i)) => {
                let off = self.g.globals.slots[*i].0;
                self.store_str_var(rhs, Dst::Global(off), strsize)?;
                let gm = self.g.m_globals;
                self.a.ld_map_value(R1, gm, off);
                Ok((self.int_result(R1), strsize))
            }
            LValue::Var(VarRef::Local(i)) => {
                let off = self.g.locals.slots[*i].0;
                self.store_str_var(rhs, Dst::Scratch(off), strsize)?;
                self.ptr(R1, R9, off);
                Ok((self.int_result(R1), strsize))
            }
            LValue::Field { .. } => Err(GenError(
                "internal error: a string stored into a field".into(),
            )),
            LValue::Var(VarRef::Thread(_)) | LValue::Elem(..) => {
                let key = self.lvalue_key(lv)?;
                let vb = self.alloc_buf(strsize);
                if matches!(rhs.kind, CKind::Int(_)) {
                    // NULL: as storing 0, the variable is no more.
                    self.a.emit(mov64_imm(R1, 0));
                    let t = self.int_result(R1);
                    let map = self.dyn_map(lv)?;
                    self.dyn_store(map, key, t);
                    self.ptr(R1, R9, vb);
                    self.a.emit(st_imm(Size::B, R1, 0, 0));
                    return Ok((self.int_result(R1), strsize));
                }
                if Self::may_be_null(rhs) {
                    // A string subroutine's NULL deletes the variable too.
                    let (p, c) = self.str_or_null(rhs)?;
                    let null = self.a.new_label();
                    let done = self.a.new_label();
                    self.load_temp(p, R1);
                    self.a.jmp_imm_to(Cond::Eq, R1, 0, null);
                    self.copy_kernel_str(Dst::Scratch(vb), strsize, p, c);
                    self.store_dynamic(lv, key, vb)?;
                    self.a.ja_to(done);
                    self.a.bind(null);
                    let z = self.int_result(R1);
                    let map = self.dyn_map(lv)?;
                    self.dyn_store(map, key, z);
                    self.ptr(R1, R9, vb);
                    self.a.emit(st_imm(Size::B, R1, 0, 0));
                    self.a.bind(done);
                    self.ptr(R1, R9, vb);
                    return Ok((self.int_result(R1), strsize));
                }
                self.eval_str_into(rhs, Dst::Scratch(vb), strsize)?;
                self.store_dynamic(lv, key, vb)?;
                Ok((self.int_result(R1), strsize))
            }
        }
    }

    /// Whether a string expression's value may be NULL at run time (a
    /// search that found nothing, `strtok()` at the end, a variable that
    /// was given NULL) rather than always a string.
    fn may_be_null(e: &CExpr) -> bool {
        match &e.kind {
            CKind::StrSearch { .. } | CKind::Strtok { .. } | CKind::Var(_) | CKind::Elem(..) => {
                true
            }
            CKind::Ternary(_, a, b) => Self::may_be_null(a) || Self::may_be_null(b),
            CKind::Assign(_, None, v) => Self::may_be_null(v),
            _ => false,
        }
    }

    /// Stores a string into a global or clause-local variable's own
    /// bytes. NULL (the constant, or a string subroutine's NULL) is kept
    /// as DTrace for Linux keeps it: a NUL followed by [`NULL_STRING`]'s
    /// second byte, which no string stored there has (an empty string's
    /// second byte is cleared), so that the variable reads back as NULL
    /// where its address matters ([`Self::str_addr`]) and as the empty
    /// string elsewhere.
    fn store_str_var(&mut self, rhs: &CExpr, dst: Dst, cap: u32) -> R<()> {
        let marks = cap >= 2;
        if matches!(rhs.kind, CKind::Int(_)) {
            self.dst_ptr(dst, R1);
            if marks {
                self.a.emit(st_imm(Size::H, R1, 0, NULL_STRING));
            } else {
                self.a.emit(st_imm(Size::B, R1, 0, 0));
            }
            return Ok(());
        }
        let done = self.a.new_label();
        if marks && Self::may_be_null(rhs) {
            let (p, c) = self.str_or_null(rhs)?;
            let null = self.a.new_label();
            self.load_temp(p, R1);
            self.a.jmp_imm_to(Cond::Ne, R1, 0, null);
            self.dst_ptr(dst, R1);
            self.a.emit(st_imm(Size::H, R1, 0, NULL_STRING));
            self.a.ja_to(done);
            self.a.bind(null);
            self.copy_kernel_str(dst, cap, p, c);
        } else {
            self.eval_str_into(rhs, dst, cap)?;
        }
        if marks {
            // An empty string: its second byte cleared too.
            self.dst_ptr(dst, R1);
            self.a.emit(ldx(Size::B, R2, R1, 0));
            self.a.jmp_imm_to(Cond::Ne, R2, 0, done);
            self.a.emit(st_imm(Size::H, R1, 0, 0));
        }
        self.a.bind(done);
        Ok(())
    }

    /// A string's address, 0 for NULL: a global or clause-local variable
    /// given NULL, a thread-local or associative array element that has
    /// none, a subroutine's NULL.
    pub(crate) fn str_addr(&mut self, s: &CExpr) -> R<Temp> {
        match &s.kind {
            CKind::Var(VarRef::Global(i)) if self.g.caps.strsize >= 2 => {
                let off = self.g.globals.slots[*i].0;
                let gm = self.g.m_globals;
                self.a.ld_map_value(R1, gm, off);
                self.null_if_marked(R1);
            }
            CKind::Var(VarRef::Local(i)) if self.g.caps.strsize >= 2 => {
                let off = self.g.locals.slots[*i].0;
                self.ptr(R1, R9, off);
                self.null_if_marked(R1);
            }
            CKind::Var(VarRef::Thread(i)) => {
                self.lookup_thread(*i)?;
                self.a.emit(mov64_reg(R1, R0));
            }
            CKind::Elem(arr, keys) => {
                self.lookup_elem(*arr, keys)?;
                self.a.emit(mov64_reg(R1, R0));
            }
            _ => {
                let (p, _) = self.eval_str(s)?;
                self.load_temp(p, R1);
                self.free(p);
            }
        }
        // As a number: an address to compare, add to and read through
        // (a kernel read, which faults at NULL), not memory the
        // verifier lets the program touch directly. A value read back
        // from a map is a scalar.
        self.a.emit(stx(Size::DW, R9, scratch::TMP as i16, R1));
        self.a.emit(ldx(Size::DW, R1, R9, scratch::TMP as i16));
        Ok(self.int_result(R1))
    }

    /// Leaves 0 in `r` if the string at `r` is a variable's NULL.
    fn null_if_marked(&mut self, r: Reg) {
        let ok = self.a.new_label();
        self.a.emit(ldx(Size::H, R2, r, 0));
        self.a.jmp_imm_to(Cond::Ne, R2, NULL_STRING, ok);
        self.a.emit(mov64_imm(r, 0));
        self.a.bind(ok);
    }

    /// A string that may be NULL: a variable's address or 0
    /// ([`Self::str_addr`]), anything else as [`Self::eval_str`] has it.
    fn str_or_null(&mut self, e: &CExpr) -> R<(Temp, u32)> {
        match &e.kind {
            CKind::Var(_) | CKind::Elem(..) => Ok((self.str_addr(e)?, self.g.caps.strsize)),
            _ => self.eval_str(e),
        }
    }

    /// `s + n`: the rest of `s` from `n` bytes in (`n` clamped to the
    /// string's capacity), copied into scratch.
    fn str_offset(&mut self, s: &CExpr, n: &CExpr) -> R<(Temp, u32)> {
        let (p, c) = self.eval_str(s)?;
        let tn = self.eval_int(n)?;
        let buf = self.alloc_buf(c);
        self.load_temp(tn, R3);
        self.free(tn);
        let pos = self.a.new_label();
        let within = self.a.new_label();
        self.a.jmp_imm_to(Cond::Sge, R3, 0, pos);
        self.a.emit(mov64_imm(R3, 0));
        self.a.bind(pos);
        self.a.jmp_imm_to(Cond::Sle, R3, c as i32 - 1, within);
        self.a.emit(mov64_imm(R3, c as i32 - 1));
        self.a.bind(within);
        self.load_temp(p, R1);
        self.free(p);
        self.a.emit(alu64_reg(Alu::Add, R3, R1));
        self.ptr(R1, R9, buf);
        self.a.emit(mov64_imm(R2, c as i32));
        self.a.emit(call(Helper::ProbeReadKernelStr));
        self.ptr(R1, R9, buf);
        Ok((self.int_result(R1), c))
    }

    // ---- strings ----

    pub(crate) fn const_str_ptr(&mut self, s: &[u8]) -> (Temp, u32) {
        let off = self.g.string(s);
        let len = s.iter().position(|&c| c == 0).unwrap_or(s.len()) as u32;
        let ro = self.g.m_rodata;
        self.a.ld_map_value(R1, ro, off);
        (self.int_result(R1), len + 1)
    }

    /// The probe identity string `which` (0 provider .. 3 name): constant,
    /// or the dispatch entry's copy when it varies between probes.
    pub(crate) fn ident_str(&mut self, which: usize) -> (Option<u32>, String, u32) {
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

    pub(crate) fn ident_index(b: Builtin) -> Option<usize> {
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
                self.lookup_thread(*i)?;
                Ok((self.ptr_or_empty(), self.g.caps.strsize))
            }
            CKind::Elem(arr, keys) => {
                self.lookup_elem(*arr, keys)?;
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
            CKind::StrOffset(s, n) => self.str_offset(s, n),
            CKind::Json(d, sel) => self.json(d, sel),
            CKind::LinkNtop(t, a) => self.link_ntop(t, a),
            CKind::Strtok { s, delims, again } => self.strtok(s, delims, *again),
            _ => Err(GenError(
                "internal error: expression is not a string".into(),
            )),
        }
    }

    /// After a map lookup: the value pointer, or the empty string.
    pub(crate) fn ptr_or_empty(&mut self) -> Temp {
        let l = self.a.new_label();
        self.a.jmp_imm_to(Cond::Ne, R0, 0, l);
        let ro = self.g.m_rodata;
        let empty = self.g.empty_at;
        self.a.ld_map_value(R0, ro, empty);
        self.a.bind(l);
        self.int_result(R0)
    }

    pub(crate) fn dst_ptr(&mut self, dst: Dst, r: Reg) {
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
    pub(crate) fn write_const_str(&mut self, dst: Dst, s: &[u8], cap: u32) {
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

    pub(crate) fn st_at(&mut self, base: Reg, off: u32, imm: i32, size: Size) {
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
                // The task's comm, NUL-padded here: comparisons read all
                // 16 bytes, and the kernel does not always clear what
                // follows a shorter name.
                let off = self.g.inp.opts.task.comm;
                let off = off.ok_or_else(|| Self::no_task_btf("execname"))?;
                self.current_task();
                self.a.emit(mov64_reg(R3, R0));
                self.a.emit(alu64_imm(Alu::Add, R3, off as i32));
                self.dst_ptr(dst, R1);
                let n = COMM_LEN.min(cap);
                self.zero_at(R1, n);
                self.a.emit(mov64_imm(R2, n as i32));
                self.a.emit(call(Helper::ProbeReadKernelStr));
                Ok(())
            }
            CKind::Builtin(Builtin::Execname) => {
                // Padded first: bpf_get_current_comm pads the name with
                // NULs on most kernels, but not on some (6.1).
                self.dst_ptr(dst, R1);
                let n = COMM_LEN.min(cap);
                self.zero_at(R1, n);
                self.a.emit(mov64_imm(R2, n as i32));
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
                if self.sleepable {
                    self.copyinstr_faulting(dst, ta, tn, fixed, cap);
                } else {
                    self.copyinstr_size(tn, fixed, cap);
                    self.dst_ptr(dst, R1);
                    self.load_temp(ta, R3);
                    self.a.emit(call(Helper::ProbeReadUserStr));
                }
                if let Some(tn) = tn {
                    self.free(tn);
                }
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
                // Recording a string that is NULL (a search that found
                // nothing, strtok() past the last token, a variable given
                // NULL, a thread-local or associative array element that
                // has no value) reads address 0, as DTrace's recording
                // does: an invalid address.
                let (p, c) = if matches!(dst, Dst::Record(_)) {
                    self.str_or_null(e)?
                } else {
                    self.eval_str(e)?
                };
                if matches!(dst, Dst::Record(_)) {
                    let ok = self.a.new_label();
                    self.load_temp(p, R1);
                    self.a.jmp_imm_to(Cond::Ne, R1, 0, ok);
                    let act = self.cur_action;
                    self.fault(fault::BADADDR, Some(R1), act);
                    self.a.bind(ok);
                }
                self.copy_kernel_str(dst, cap, p, c);
                Ok(())
            }
        }
    }

    /// After a probe_read: faults with the address in `addr` on failure.
    /// r2 = copyinstr()'s size: `tn`'s value at most `cap`, or `fixed`.
    fn copyinstr_size(&mut self, tn: Option<Temp>, fixed: i32, cap: u32) {
        match tn {
            Some(tn) => {
                self.load_temp(tn, R2);
                let ok = self.a.new_label();
                self.a.jmp_imm_to(Cond::Le, R2, cap as i32, ok);
                self.a.emit(mov64_imm(R2, cap as i32));
                self.a.bind(ok);
            }
            None => self.a.emit(mov64_imm(R2, fixed)),
        }
    }

    /// copyinstr() in a sleepable program: the string is read as
    /// elsewhere (without faults); where that fails, the page the string
    /// goes on in is faulted in with `bpf_copy_from_user` (a byte of it)
    /// and the read made again, a page at a time. A page is touched only
    /// once every page before it was read without the string ending
    /// there, so no page past the string's end is faulted in. r0 is left
    /// as the last read's result (or the touch's failure).
    fn copyinstr_faulting(&mut self, dst: Dst, ta: Temp, tn: Option<Temp>, fixed: i32, cap: u32) {
        const PAGE: u32 = 4096;
        let done = self.a.new_label();
        // A string of `cap` bytes is on `cap / PAGE + 2` pages at most.
        let pages = cap / PAGE + 2;
        for k in 0..=pages {
            self.copyinstr_size(tn, fixed, cap);
            self.dst_ptr(dst, R1);
            self.load_temp(ta, R3);
            self.a.emit(call(Helper::ProbeReadUserStr));
            if k == pages {
                break;
            }
            self.a.jmp_imm_to(Cond::Sge, R0, 0, done);
            // Page k, from the string's start on the first.
            self.load_temp(ta, R3);
            if k > 0 {
                self.a.emit(alu64_imm(Alu::And, R3, -(PAGE as i32)));
                self.a.emit(alu64_imm(Alu::Add, R3, (k * PAGE) as i32));
            }
            self.dst_ptr(dst, R1);
            self.a.emit(mov64_imm(R2, 1));
            self.a.emit(call(Helper::CopyFromUser));
            self.a.jmp_imm_to(Cond::Ne, R0, 0, done);
        }
        self.a.bind(done);
    }

    pub(crate) fn check_read(&mut self, addr: Temp) {
        let ok = self.a.new_label();
        self.a.jmp_imm_to(Cond::Sge, R0, 0, ok);
        self.load_temp(addr, R1);
        let act = self.cur_action;
        self.fault(fault::BADADDR, Some(R1), act);
        self.a.bind(ok);
    }

    pub(crate) fn copy_kernel_str(&mut self, dst: Dst, cap: u32, p: Temp, c: u32) {
        self.dst_ptr(dst, R1);
        self.a.emit(mov64_imm(R2, cap.min(c).max(1) as i32));
        self.load_temp(p, R3);
        self.free(p);
        self.a.emit(call(Helper::ProbeReadKernelStr));
    }

    /// Clears `n` bytes at the address in `reg` (a word at a time).
    fn zero_at(&mut self, reg: Reg, n: u32) {
        for i in 0..n / 8 {
            self.a.emit(st_imm(Size::DW, reg, 8 * i as i16, 0));
        }
        for i in n / 8 * 8..n {
            self.a.emit(st_imm(Size::B, reg, i as i16, 0));
        }
    }

    /// `dst` = the `size` bytes at `base` + r3 + `off`: the string loops'
    /// indexed read.
    fn load_indexed(&mut self, dst: Reg, base: Reg, size: Size, off: i16) {
        self.a.emit(mov64_reg(dst, base));
        self.a.emit(alu64_reg(Alu::Add, dst, R3));
        self.a.emit(ldx(size, dst, dst, off));
    }

    /// `out` = nonzero if a byte of the word in `w` is NUL (the high bit
    /// of each such byte, from (w - 0x01..01) & !w & 0x80..80); `w` is
    /// clobbered.
    fn nul_bytes(&mut self, w: Reg, out: Reg) {
        load_imm(&mut self.a, out, 0x0101_0101_0101_0101);
        self.a.emit(alu64_reg(Alu::Sub, out, w));
        self.a.emit(neg64(out));
        self.a.emit(alu64_imm(Alu::Xor, w, -1));
        self.a.emit(alu64_reg(Alu::And, out, w));
        load_imm(&mut self.a, w, 0x8080_8080_8080_8080u64 as i64);
        self.a.emit(alu64_reg(Alu::And, out, w));
    }

    /// Compares two strings; leaves 1 or 0 in r0 for `op`.
    pub(crate) fn strcmp(&mut self, a: &CExpr, b: &CExpr, op: CmpOp) -> R<()> {
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
            // The comm is NUL-padded to its 16 bytes (execname's reads
            // clear them first), so equal names are equal words: two compares, r0 0
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
        } else if let (CKind::Str(s), false) = (&y.kind, self.g.inp.opts.kernel.strncmp) {
            // No bpf_strncmp (before 5.17): the constant's bytes, NUL
            // included, compared one by one without a loop (which the
            // verifiers of those kernels may walk once for every way the
            // loops before it ended).
            let (px, cx) = self.eval_str(x)?;
            self.load_temp(px, R1);
            self.free(px);
            let diff = self.a.new_label();
            let done = self.a.new_label();
            let mut bytes = s.clone();
            bytes.push(0);
            for (i, &c) in bytes.iter().take(cx as usize).enumerate() {
                self.a.emit(ldx(Size::B, R0, R1, i as i16));
                self.a.emit(mov64_imm(R2, i32::from(c)));
                self.a.jmp_reg_to(Cond::Ne, R0, R2, diff);
                if c == 0 {
                    break;
                }
            }
            self.a.emit(mov64_imm(R0, 0));
            self.a.ja_to(done);
            self.a.bind(diff);
            self.a.emit(alu64_reg(Alu::Sub, R0, R2));
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
            // Eight bytes at a time while both words are equal and hold
            // no NUL (one branch a word, so that the verifier, which
            // walks every way a comparison can end, keeps few of them
            // pending however many comparisons a clause makes); the word
            // where they differ or end, and the bytes past the last whole
            // word, one by one.
            let n8 = n & !7;
            let words = self.a.new_label();
            let word_end = self.a.new_label();
            let bytes = self.a.new_label();
            let diff = self.a.new_label();
            let equal = self.a.new_label();
            let done = self.a.new_label();
            self.a.emit(mov64_imm(R3, 0));
            self.a.bind(words);
            self.a.jmp_imm_to(Cond::Ge, R3, n8 as i32, bytes);
            self.load_indexed(R4, R1, Size::DW, 0);
            self.load_indexed(R5, R2, Size::DW, 0);
            // r5: the bits that differ; r0: the NUL bytes of x's word.
            self.a.emit(alu64_reg(Alu::Xor, R5, R4));
            self.nul_bytes(R4, R0);
            self.a.emit(alu64_reg(Alu::Or, R0, R5));
            self.a.jmp_imm_to(Cond::Ne, R0, 0, word_end);
            self.a.emit(alu64_imm(Alu::Add, R3, 8));
            self.a.ja_to(words);
            // The word where the strings differ or end: its bytes.
            self.a.bind(word_end);
            for i in 0..8i16 {
                self.load_indexed(R4, R1, Size::B, i);
                self.load_indexed(R5, R2, Size::B, i);
                self.a.jmp_reg_to(Cond::Ne, R4, R5, diff);
                self.a.jmp_imm_to(Cond::Eq, R4, 0, equal);
            }
            self.a.emit(alu64_imm(Alu::Add, R3, 8));
            self.a.ja_to(words);
            // The bytes past the last whole word.
            self.a.bind(bytes);
            self.a.jmp_imm_to(Cond::Ge, R3, n as i32, equal);
            self.load_indexed(R4, R1, Size::B, 0);
            self.load_indexed(R5, R2, Size::B, 0);
            self.a.jmp_reg_to(Cond::Ne, R4, R5, diff);
            self.a.jmp_imm_to(Cond::Eq, R4, 0, equal);
            self.a.emit(alu64_imm(Alu::Add, R3, 1));
            self.a.ja_to(bytes);
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

    pub(crate) fn strlen(&mut self, s: &CExpr) -> R<Temp> {
        let (p, c) = self.eval_str(s)?;
        self.load_temp(p, R1);
        // Eight bytes at a time while a word holds no NUL (one branch a
        // word, as in `strcmp`), then the bytes of the word that does and
        // those past the last whole word one by one.
        let c8 = c & !7;
        let words = self.a.new_label();
        let word_end = self.a.new_label();
        let bytes = self.a.new_label();
        let done = self.a.new_label();
        self.a.emit(mov64_imm(R3, 0));
        self.a.bind(words);
        self.a.jmp_imm_to(Cond::Ge, R3, c8 as i32, bytes);
        self.load_indexed(R4, R1, Size::DW, 0);
        self.nul_bytes(R4, R0);
        self.a.jmp_imm_to(Cond::Ne, R0, 0, word_end);
        self.a.emit(alu64_imm(Alu::Add, R3, 8));
        self.a.ja_to(words);
        self.a.bind(word_end);
        for _ in 0..8 {
            self.load_indexed(R4, R1, Size::B, 0);
            self.a.jmp_imm_to(Cond::Eq, R4, 0, done);
            self.a.emit(alu64_imm(Alu::Add, R3, 1));
        }
        self.a.ja_to(words);
        self.a.bind(bytes);
        self.a.jmp_imm_to(Cond::Ge, R3, c as i32, done);
        self.load_indexed(R4, R1, Size::B, 0);
        self.a.jmp_imm_to(Cond::Eq, R4, 0, done);
        self.a.emit(alu64_imm(Alu::Add, R3, 1));
        self.a.ja_to(bytes);
        self.a.bind(done);
        self.store_temp(p, R3);
        Ok(p)
    }

    // ---- aggregations ----
}
