//! Variables of every scope and their storage: globals, thread-locals
//! (`self->`), clause-locals (`this->`), associative arrays, struct and
//! bitfield members, and assignment to each.

use super::*;

impl ProgGen<'_, '_> {
    /// After a map lookup (r0 = value or NULL): the stored integer, or 0.
    pub(crate) fn deref_or_zero(&mut self) -> Temp {
        let l = self.a.new_label();
        self.a.emit(mov64_imm(R1, 0));
        self.a.jmp_imm_to(Cond::Eq, R0, 0, l);
        self.a.emit(ldx(Size::DW, R1, R0, 0));
        self.a.bind(l);
        self.int_result(R1)
    }

    /// Stores the current thread id as the key at stack::KEY.
    pub(crate) fn thread_key(&mut self) -> R<()> {
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

    pub(crate) fn key_ptr_stack(&mut self, r: Reg) {
        self.a.emit(mov64_reg(r, FP));
        self.a.emit(alu64_imm(Alu::Add, r, i32::from(stack::KEY)));
    }

    /// Looks the firing thread's copy of thread-local variable `i` up:
    /// r0 its value's address, or NULL if it has none.
    pub(crate) fn lookup_thread(&mut self, i: VarId) -> R<()> {
        self.thread_key()?;
        let map = self.g.thread_maps[i];
        self.a.ld_map_fd(R1, map);
        self.key_ptr_stack(R2);
        self.a.emit(call(Helper::MapLookupElem));
        Ok(())
    }

    /// Looks associative array `arr`'s element at `keys` up: r0 its
    /// value's address, or NULL if it has none.
    pub(crate) fn lookup_elem(&mut self, arr: ArrayId, keys: &[CExpr]) -> R<()> {
        let kb = self.array_key(arr, keys, false)?;
        let map = self.g.array_maps[arr];
        self.a.ld_map_fd(R1, map);
        self.ptr(R2, R9, kb);
        self.a.emit(call(Helper::MapLookupElem));
        Ok(())
    }

    pub(crate) fn load_var(&mut self, v: VarRef) -> R<Temp> {
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
                self.lookup_thread(i)?;
                Ok(self.deref_or_zero())
            }
        }
    }

    /// The address of a by-reference variable's bytes: its storage, or
    /// for a thread-local not yet assigned, zeros.
    pub(crate) fn var_addr(&mut self, v: VarRef) -> R<Temp> {
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
                self.lookup_thread(i)?;
                Ok(self.ptr_or_empty())
            }
        }
    }

    /// The declared type of what an lvalue names.
    pub(crate) fn lvalue_type(&self, lv: &LValue) -> Type {
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
    pub(crate) fn storage_ptr(&mut self, lv: &LValue, key: Option<u32>, limit: u32) -> R<Temp> {
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
    pub(crate) fn field_ptr(
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
    pub(crate) fn bitfield_unit(it: dtrace_lang::types::IntType, shift: u64, width: u32) -> u32 {
        if shift + u64::from(width) > u64::from(it.size) * 8 {
            8
        } else {
            u32::from(it.size)
        }
    }

    /// Reads the field at the pointer in `p` (a scalar, float or
    /// bit-field) into `p`.
    pub(crate) fn load_field(&mut self, p: Temp, ty: &Type, bits: Option<(u64, u32)>) {
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
    pub(crate) fn store_field(&mut self, p: Temp, ty: &Type, bits: Option<(u64, u32)>, v: Temp) {
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
    pub(crate) fn copy_bytes(&mut self, dst: Dst, size: u32, src: Temp) {
        self.dst_ptr(dst, R1);
        self.a.emit(mov64_imm(R2, size as i32));
        self.load_temp(src, R3);
        self.a.emit(call(Helper::ProbeReadKernel));
        self.check_read(src);
    }

    /// Assignment of a struct, union, array or long double: its bytes are
    /// copied into the variable's storage; the value is the stored copy.
    pub(crate) fn assign_ref(&mut self, lv: &LValue, rhs: &CExpr) -> R<Temp> {
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
    pub(crate) fn build_record(&mut self, fields: &[(u32, u32, CExpr)], ty: &Type) -> R<Temp> {
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
    /// `store`: for an element about to be written (or deleted), whose
    /// key, if interned, is added to the array's keys.
    pub(crate) fn array_key(&mut self, arr: ArrayId, keys: &[CExpr], store: bool) -> R<u32> {
        let (fields, size) = self.g.array_keys[arr].clone();
        let Some(keys_map) = self.g.array_interned[arr] else {
            return self.build_key(&fields, size, keys);
        };
        let tb = self.build_key(&fields, size, keys)?;
        let kb = self.alloc_buf(crate::codegen::INTERNED_ELEM_KEY);
        self.intern_elem_key(tb, size, keys_map, kb, store);
        Ok(kb)
    }

    /// The key of an element of an array whose keys are interned: at
    /// `kb` the hash of the key's `size` bytes at scratch `tb`, then a
    /// word: 0 where the array's keys map holds the key under that hash
    /// (added there if `store`), or where it holds none (a read of an
    /// element that is not there); 1 for a read whose hash another key
    /// holds, a key no element has, so the element reads as absent; 2
    /// for a store whose hash another key holds or that the full keys
    /// map cannot take, a dynamic variable drop, the store going to an
    /// element no read looks up.
    fn intern_elem_key(
        &mut self,
        tb: u32,
        size: u32,
        keys_map: crate::asm::MapId,
        kb: u32,
        store: bool,
    ) {
        let words = size / 8;
        self.hash_words(tb, words, kb);
        self.st_imm_at(R9, kb + 8, 0);
        let collided = self.a.new_label();
        let done = self.a.new_label();
        self.find_interned(keys_map, kb, tb, words, (!store).then_some(done), collided);
        self.a.ja_to(done);
        self.a.bind(collided);
        if store {
            self.st_imm_at(R9, kb + 8, 2);
            self.count_drop(drops::DYNAMIC);
        } else {
            self.st_imm_at(R9, kb + 8, 1);
        }
        self.a.bind(done);
    }

    /// Writes at `at` the 64-bit hash of `words` words at scratch `tb`:
    /// FNV-1a over words, each step folded (x ^= x >> 29) so that the
    /// high bits reach the low ones.
    pub(crate) fn hash_words(&mut self, tb: u32, words: u32, at: u32) {
        crate::codegen::load_imm(&mut self.a, R0, 0xcbf2_9ce4_8422_2325_u64 as i64);
        crate::codegen::load_imm(&mut self.a, R2, 0x0000_0100_0000_01b3);
        for w in 0..words {
            self.ldx_at(R1, R9, tb + 8 * w, Size::DW);
            self.a.emit(alu64_reg(Alu::Xor, R0, R1));
            self.a.emit(alu64_reg(Alu::Mul, R0, R2));
            self.a.emit(mov64_reg(R3, R0));
            self.a.emit(alu64_imm(Alu::Rsh, R3, 29));
            self.a.emit(alu64_reg(Alu::Xor, R0, R3));
        }
        self.stx_at(R9, at, R0, Size::DW);
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
    pub(crate) fn build_key_at(&mut self, kb: u32, fields: &[KeyField], keys: &[CExpr]) -> R<()> {
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
    pub(crate) fn lvalue_key(&mut self, lv: &LValue) -> R<Option<u32>> {
        match lv {
            LValue::Mem { .. } => Err(GenError(
                "internal error: a store to memory reached a variable's path".into(),
            )),
            LValue::Elem(arr, keys) => Ok(Some(self.array_key(*arr, keys, true)?)),
            LValue::Var(_) => Ok(None),
            LValue::Field { base, .. } => self.lvalue_key(base),
        }
    }

    /// The address of a member or element lvalue (`x.a[i]`), computed
    /// once for a read-modify-write so its index is evaluated once; None
    /// for variables and associative-array elements.
    pub(crate) fn field_at(&mut self, lv: &LValue, key: Option<u32>) -> R<Option<Temp>> {
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
    pub(crate) fn load_lvalue(
        &mut self,
        lv: &LValue,
        key: Option<u32>,
        at: Option<Temp>,
    ) -> R<Temp> {
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
    pub(crate) fn store_int(
        &mut self,
        lv: &LValue,
        key: Option<u32>,
        t: Temp,
        at: Option<Temp>,
    ) -> R<()> {
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
                // A deleted element's interned key goes with it (a key
                // another key's hash held, with the word 2, is not there).
                if let (Some(keys_map), Some(k)) = (self.g.array_interned[*arr], key) {
                    let kept = self.a.new_label();
                    self.load_temp(t, R1);
                    self.a.jmp_imm_to(Cond::Ne, R1, 0, kept);
                    self.a.ld_map_fd(R1, keys_map);
                    self.ptr(R2, R9, k);
                    self.a.emit(call(Helper::MapDeleteElem));
                    self.a.bind(kept);
                }
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
    pub(crate) fn store_dynamic(&mut self, lv: &LValue, key: Option<u32>, vb: u32) -> R<()> {
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

    /// The map of a thread-local variable or associative array element
    /// (for a thread-local, its key made first).
    pub(crate) fn dyn_map(&mut self, lv: &LValue) -> R<crate::asm::MapId> {
        match lv {
            LValue::Var(VarRef::Thread(i)) => {
                self.thread_key()?;
                Ok(self.g.thread_maps[*i])
            }
            LValue::Elem(arr, _) => Ok(self.g.array_maps[*arr]),
            _ => Err(GenError(
                "internal error: a dynamic store to a static variable".into(),
            )),
        }
    }

    pub(crate) fn dyn_store(&mut self, map: crate::asm::MapId, key: Option<u32>, t: Temp) {
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

    pub(crate) fn assign_int(
        &mut self,
        lv: &LValue,
        op: Option<ArithOp>,
        rhs: &CExpr,
        ty: &Type,
    ) -> R<Temp> {
        if ty.is_string() {
            let (t, _) = self.assign_str(lv, rhs)?;
            return Ok(t);
        }
        if let LValue::Mem { addr, ty: mty } = lv {
            // The address once (`p[i++] += 1` steps i once), then the value.
            let ta = self.eval_int(addr)?;
            // As DTrace: a compound assignment reads its left operand
            // before the right is evaluated (`i += i++` adds the old i).
            let old = op.map(|_| self.load_at(ta, mty));
            let tv = self.eval_int(rhs)?;
            if let (Some(op), Some(old)) = (op, old) {
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
        // The left operand's value first (see above). A member's place
        // is found once, its index evaluated once (`v.a[i++] += 3`).
        let (at, old) = match op {
            Some(_) => {
                let at = self.field_at(lv, key)?;
                (at, Some(self.load_lvalue(lv, key, at)?))
            }
            None => (None, None),
        };
        let tv = self.eval_int(rhs)?;
        let at = match op {
            Some(_) => at,
            None => self.field_at(lv, key)?,
        };
        if let (Some(op), Some(old)) = (op, old) {
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

    pub(crate) fn incdec(&mut self, lv: &LValue, pre: bool, delta: i64, ty: &Type) -> R<Temp> {
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
}
