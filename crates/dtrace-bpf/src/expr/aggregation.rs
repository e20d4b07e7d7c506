//! An aggregation's update in the probe: its key built, its slot found or
//! made, and the aggregating function's own update (`crate::aggs`).

use super::*;
use crate::asm::Label;

impl ProgGen<'_, '_> {
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
        let own: u32 = match al.interned {
            Some(_) => 16,
            None => al.keys.last().map_or(8, |k| k.offset + k.size),
        };
        let kb = self.alloc_buf(al.key_size);
        let have = self.a.new_label();
        let done = self.a.new_label();
        // The id and the CPU (each CPU keeps its own element of a key, as
        // DTrace's CPUs each keep their own aggregation buffer: a new key
        // costs one allocation, where per-CPU values cost one on every
        // CPU), then the tuple (or its hash); the padding past this
        // aggregation's own key is zeroed so equal keys hash equally.
        self.a.emit(call(Helper::GetSmpProcessorId));
        self.a.emit(alu64_imm(Alu::Lsh, R0, 32));
        self.a.emit(alu64_imm(Alu::Or, R0, al.id as i32));
        self.stx_at(R9, kb, R0, Size::DW);
        for w in own.div_ceil(8)..al.key_size / 8 {
            self.st_imm_at(R9, kb + 8 * w, 0);
        }
        let dropped = self.a.new_label();
        let tuple = match al.interned {
            Some(ik) => {
                let tb = self.alloc_buf(ik.tuple_size);
                self.build_key_at(tb, &al.keys, keys)?;
                Some((tb, ik))
            }
            None => {
                self.build_key_at(kb, &al.keys, keys)?;
                None
            }
        };
        let (tv, ti) = self.agg_operands(value, incr)?;
        if let Some((tb, ik)) = tuple {
            self.intern_tuple(tb, ik, kb + 8, dropped);
        }
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
        self.a.bind(dropped);
        self.count_drop(drops::AGGREGATION);
        self.a.ja_to(done);
        self.a.bind(have);
        crate::aggs::ops(al.func).update(self, tv, ti, done);
        self.a.bind(done);
        self.free_operands(tv, ti);
        Ok(())
    }

    /// Writes at `hash_at` the 64-bit hash of the tuple at scratch `tb`,
    /// and makes sure the interned map holds the tuple under it: added if
    /// the hash is new, compared word by word if not. A tuple that cannot
    /// be added, or whose hash another tuple holds, goes to `fail`.
    fn intern_tuple(&mut self, tb: u32, ik: InternedKeys, hash_at: u32, fail: Label) {
        let words = ik.tuple_size / 8;
        self.hash_words(tb, words, hash_at);
        self.find_interned(ik.map, hash_at, tb, words, None, fail);
    }

    /// Looks the key at scratch `key_at` up in the interned map `map`
    /// and compares what it holds with the `words` words at scratch
    /// `tb`, falling through when they are equal and going to `differs`
    /// when not. A key the map lacks goes to `absent` if given, else it
    /// is added with the tuple (BPF_NOEXIST: of two CPUs adding one hash
    /// at once, the second compares with the first's tuple); a tuple the
    /// full map cannot take goes to `differs`.
    pub(crate) fn find_interned(
        &mut self,
        map: crate::asm::MapId,
        key_at: u32,
        tb: u32,
        words: u32,
        absent: Option<Label>,
        differs: Label,
    ) {
        let found = self.a.new_label();
        self.a.ld_map_fd(R1, map);
        self.ptr(R2, R9, key_at);
        self.a.emit(call(Helper::MapLookupElem));
        self.a.jmp_imm_to(Cond::Ne, R0, 0, found);
        match absent {
            Some(l) => self.a.ja_to(l),
            None => {
                self.a.ld_map_fd(R1, map);
                self.ptr(R2, R9, key_at);
                self.ptr(R3, R9, tb);
                self.a.emit(mov64_imm(R4, 1));
                self.a.emit(call(Helper::MapUpdateElem));
                self.a.ld_map_fd(R1, map);
                self.ptr(R2, R9, key_at);
                self.a.emit(call(Helper::MapLookupElem));
                self.a.jmp_imm_to(Cond::Eq, R0, 0, differs);
            }
        }
        self.a.bind(found);
        for w in 0..words {
            self.a.emit(ldx(Size::DW, R1, R0, (8 * w) as i16));
            self.ldx_at(R2, R9, tb + 8 * w, Size::DW);
            self.a.jmp_reg_to(Cond::Ne, R1, R2, differs);
        }
    }
}

impl ProgGen<'_, '_> {
    /// A streamed aggregation's update (`AggLayout::streamed`): its keys
    /// recorded, and the function's words updated from zero in the
    /// record, for the consumer to fold into its copy.
    pub(crate) fn agg_update_streamed(
        &mut self,
        act: &RecordedAction,
        keys: &[CExpr],
        value: Option<&CExpr>,
        incr: Option<&CExpr>,
    ) -> R<()> {
        let ActionLayout::AggUpdate {
            agg,
            keys: vals,
            words,
        } = &act.action
        else {
            return Err(GenError("internal error: record layout out of step".into()));
        };
        for (v, k) in vals.iter().zip(keys) {
            self.record_value(v, k)?;
        }
        let func = self.g.aggs[*agg].func;
        let ops = crate::aggs::ops(func);
        for w in 0..ops.words() as u32 {
            self.st_imm_at(R8, words + 8 * w, 0);
        }
        let (tv, ti) = self.agg_operands(value, incr)?;
        let done = self.a.new_label();
        self.ptr(R0, R8, *words);
        ops.update(self, tv, ti, done);
        self.a.bind(done);
        self.free_operands(tv, ti);
        Ok(())
    }

    /// An aggregating function's value and increment, evaluated.
    pub(crate) fn agg_operands(
        &mut self,
        value: Option<&CExpr>,
        incr: Option<&CExpr>,
    ) -> R<(Option<Temp>, Option<Temp>)> {
        let tv = value.map(|v| self.eval_int(v)).transpose()?;
        let ti = incr.map(|v| self.eval_int(v)).transpose()?;
        Ok((tv, ti))
    }

    /// Frees what `agg_operands` evaluated.
    pub(crate) fn free_operands(&mut self, tv: Option<Temp>, ti: Option<Temp>) {
        for t in [ti, tv].into_iter().flatten() {
            self.free(t);
        }
    }

    /// An aggregation with no keys: its slot of the per-CPU array
    /// (always there), marked updated, then its values updated.
    pub(crate) fn agg_update_slot(
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
