//! A raw tracepoint (and a tracing program's function arguments, which
//! are words alike): arguments from the hook's words, read through them
//! or kept by another hook's stash; guards on the words; stash programs.

use super::*;

impl ProgGen<'_, '_> {
    /// A raw tracepoint probe's guards on its hook's words, and, for a
    /// probe that fires after another hook, that hook's stash for this
    /// thread and key copied to scratch (no stash: no firing); guards on
    /// stashed words after. Jumps to `out` for no firing.
    pub(crate) fn raw_filter(
        &mut self,
        guards: &[Guard],
        after: Option<&After>,
        out: Label,
    ) -> Result<(), GenError> {
        // A probe that is one case of its hook (a process's exit is
        // sched_process_exit when the thread group dies with it): the
        // hook's own words first, as they cost nothing to test.
        for g in guards.iter().filter(|g| !g.stashed) {
            match g.load {
                Some((off, size)) => self.load_through(g.word, off, size),
                None if g.copied => self.copy_word(g.word),
                None => self
                    .a
                    .emit(ldx(Size::DW, R1, R6, 8 * i16::from(g.word.min(11)))),
            }
            self.guard_word(g, out);
        }
        if let Some(after) = after {
            // Only after the hook whose stash this thread has, for
            // this key: its time, words and task member are copied to
            // scratch.
            let map = self.g.stash_map(&after.hook)?;
            self.stash_key(after.key);
            self.stash_call(map, Helper::MapLookupElem, None);
            self.a.jmp_imm_to(Cond::Eq, R0, 0, out);
            for i in 0..=i16::from(STASH_WORDS) + 1 {
                self.a.emit(ldx(Size::DW, R1, R0, 8 * i));
                self.a
                    .emit(stx(Size::DW, R9, scratch::STASH as i16 + 8 * i, R1));
            }
            // Whether the task's member moved since (it slept).
            if let Some(k) = after.kept {
                self.task_member(k.offset, k.size);
                let at = scratch::STASH as i16 + 8 + 8 * i16::from(STASH_WORDS);
                self.a.emit(ldx(Size::DW, R2, R9, at));
                let cond = if k.changed { Cond::Eq } else { Cond::Ne };
                self.a.jmp_reg_to(cond, R1, R2, out);
            }
        }
        for g in guards.iter().filter(|g| g.stashed) {
            let at = scratch::STASH as i16 + 8 + 8 * i16::from(g.word.min(STASH_WORDS - 1));
            self.a.emit(ldx(Size::DW, R1, R9, at));
            self.guard_word(g, out);
        }
        Ok(())
    }

    /// R1 = hook word `word`, copied out of the context in R6 into
    /// `scratch::TMP` (0 if it cannot be): a scalar, whatever its type.
    fn copy_word(&mut self, word: u8) {
        let tmp = scratch::TMP as i16;
        self.a.emit(st_imm(Size::DW, R9, tmp, 0));
        self.a.emit(mov64_reg(R1, R9));
        self.a.emit(alu64_imm(Alu::Add, R1, tmp as i32));
        self.a.emit(mov64_imm(R2, 8));
        self.a.emit(mov64_reg(R3, R6));
        self.a
            .emit(alu64_imm(Alu::Add, R3, 8 * i32::from(word.min(11))));
        self.a.emit(call(Helper::ProbeReadKernel));
        self.a.emit(ldx(Size::DW, R1, R9, tmp));
    }

    /// R1 = the current task's unsigned `size`-byte member at `off`,
    /// read into `scratch::TMP` (0 if it cannot be); R2-R5 clobbered.
    fn task_member(&mut self, off: u32, size: u8) {
        let tmp = scratch::TMP as i16;
        self.read_task_member(R9, tmp, off, size);
        self.a.emit(ldx(Size::DW, R1, R9, tmp));
    }

    /// The current task's `size`-byte member at `off` into the 8 bytes
    /// at `base + at` (zeroed first: an unsigned value, 0 if it cannot
    /// be read); R0-R5 clobbered.
    fn read_task_member(&mut self, base: Reg, at: i16, off: u32, size: u8) {
        self.a.emit(st_imm(Size::DW, base, at, 0));
        self.a.emit(call(Helper::GetCurrentTask));
        self.a.emit(mov64_reg(R3, R0));
        self.a.emit(alu64_imm(Alu::Add, R3, off as i32));
        self.a.emit(mov64_reg(R1, base));
        self.a.emit(alu64_imm(Alu::Add, R1, i32::from(at)));
        self.a.emit(mov64_imm(R2, i32::from(size.clamp(1, 8))));
        self.a.emit(call(Helper::ProbeReadKernel));
    }

    /// Jumps to `out` unless the word in R1 passes guard `g`.
    pub(crate) fn guard_word(&mut self, g: &Guard, out: Label) {
        crate::codegen::load_imm(&mut self.a, R2, g.mask as i64);
        self.a.emit(alu64_reg(Alu::And, R1, R2));
        crate::codegen::load_imm(&mut self.a, R2, g.value as i64);
        let cond = if g.eq { Cond::Ne } else { Cond::Eq };
        self.a.jmp_reg_to(cond, R1, R2, out);
    }

    /// The key of a stash entry at `stack::VALUE`: the current thread,
    /// then hook word `word` of the context in R6, or 0 for a word past
    /// 11 (a hook with no word to tell its waits apart, `schedule()`);
    /// R1-R5 clobbered.
    pub(crate) fn stash_key(&mut self, word: u8) {
        self.a.emit(call(Helper::GetCurrentPidTgid));
        self.a.emit(stx(Size::DW, FP, stack::VALUE, R0));
        if word < 12 {
            self.a.emit(ldx(Size::DW, R1, R6, 8 * i16::from(word)));
            self.a.emit(stx(Size::DW, FP, stack::KEY, R1));
        } else {
            self.a.emit(st_imm(Size::DW, FP, stack::KEY, 0));
        }
    }

    /// A stash program (see `ArgContext::Stash`): while tracing is
    /// active, keeps the time and the hook's first `nwords` words for
    /// this thread and key.
    pub(crate) fn stash(
        &mut self,
        hook: &str,
        key: u8,
        nwords: u8,
        keep: Option<(u32, u8)>,
    ) -> Result<(), GenError> {
        let out = self.a.new_label();
        let map = self.g.stash_map(hook)?;
        self.a.emit(mov64_reg(R6, R1));
        self.activity_check(out);
        self.stash_key(key);
        // The value below the key: the time, the words, the member.
        let value = stack::SPILL - 8 - 8 * i16::from(STASH_WORDS);
        self.a.emit(call(Helper::KtimeGetNs));
        self.a.emit(stx(Size::DW, FP, value, R0));
        for i in 0..i16::from(STASH_WORDS) {
            if i < i16::from(nwords.min(12)) {
                self.a.emit(ldx(Size::DW, R1, R6, 8 * i));
                self.a.emit(stx(Size::DW, FP, value + 8 + 8 * i, R1));
            } else {
                self.a.emit(st_imm(Size::DW, FP, value + 8 + 8 * i, 0));
            }
        }
        let kept = value + 8 + 8 * i16::from(STASH_WORDS);
        match keep {
            Some((off, size)) => self.read_task_member(FP, kept, off, size),
            None => self.a.emit(st_imm(Size::DW, FP, kept, 0)),
        }
        self.stash_call(map, Helper::MapUpdateElem, Some(value));
        self.a.bind(out);
        self.a.emit(mov64_imm(R0, 0));
        self.a.emit(exit());
        Ok(())
    }

    /// R1 = the unsigned `size`-byte integer (1, 2, 4 or 8) at `off`
    /// past the pointer in hook word `word`, read safely (0 if it cannot
    /// be); R2-R5 clobbered.
    pub(crate) fn load_through(&mut self, word: u8, off: u32, size: u8) {
        let tmp = scratch::TMP as i16;
        self.a.emit(st_imm(Size::DW, R9, tmp, 0));
        self.a.emit(mov64_reg(R1, R9));
        self.a.emit(alu64_imm(Alu::Add, R1, tmp as i32));
        self.a.emit(mov64_imm(R2, i32::from(size.clamp(1, 8))));
        self.a
            .emit(ldx(Size::DW, R3, R6, 8 * i16::from(word.min(11))));
        self.a.emit(alu64_imm(Alu::Add, R3, off as i32));
        self.a.emit(call(Helper::ProbeReadKernel));
        self.a.emit(ldx(width(size), R1, R9, tmp));
    }

    /// The arguments, each a hook word, a constant, a stashed word, a
    /// value read through a word, or the time since the stash was kept.
    pub(crate) fn load_raw_words(&mut self, words: &[RawWord]) {
        for (i, &w) in words.iter().take(10).enumerate() {
            match w {
                RawWord::Hook(w) if w < 12 => {
                    self.a.emit(ldx(Size::DW, R1, R6, 8 * i16::from(w)));
                }
                RawWord::HookCopied(w) if w < 12 => {
                    // Into the argument's slot, and back (0 if unread).
                    let at = scratch::ARGS + 8 * i as u32;
                    self.a.emit(mov64_reg(R1, R9));
                    self.a.emit(alu64_imm(Alu::Add, R1, at as i32));
                    self.a.emit(mov64_imm(R2, 8));
                    self.a.emit(mov64_reg(R3, R6));
                    self.a.emit(alu64_imm(Alu::Add, R3, 8 * i32::from(w)));
                    self.a.emit(call(Helper::ProbeReadKernel));
                    self.a.emit(ldx(Size::DW, R1, R9, at as i16));
                }
                RawWord::Hook(_) | RawWord::HookCopied(_) => self.a.emit(mov64_imm(R1, 0)),
                RawWord::Const(v) => crate::codegen::load_imm(&mut self.a, R1, v),
                RawWord::Stashed(w) => {
                    let at = scratch::STASH as i16 + 8 + 8 * i16::from(w.min(STASH_WORDS - 1));
                    self.a.emit(ldx(Size::DW, R1, R9, at));
                }
                // A read already made for an earlier argument (a
                // packet's IP header, two arguments' word) is
                // copied, not made again.
                RawWord::Load { .. } if words[..i].contains(&w) => {
                    let j = words[..i].iter().position(|x| *x == w).unwrap_or(0);
                    self.a
                        .emit(ldx(Size::DW, R1, R9, (scratch::ARGS + 8 * j as u32) as i16));
                }
                RawWord::Load {
                    word,
                    ptr,
                    size,
                    add,
                } => {
                    self.load_through(word, ptr, size);
                    if let Some((off, size)) = add {
                        self.store_arg(i as u32, R1);
                        self.load_through(word, off, size);
                        self.a.emit(mov64_reg(R2, R1));
                        self.a
                            .emit(ldx(Size::DW, R1, R9, (scratch::ARGS + 8 * i as u32) as i16));
                        self.a.emit(alu64_reg(Alu::Add, R1, R2));
                    }
                }
                RawWord::Elapsed => {
                    self.a.emit(call(Helper::KtimeGetNs));
                    self.a.emit(ldx(Size::DW, R1, R9, scratch::STASH as i16));
                    self.a.emit(alu64_reg(Alu::Sub, R0, R1));
                    self.a.emit(mov64_reg(R1, R0));
                }
            }
            self.store_arg(i as u32, R1);
        }
        self.zero_args(words.len().min(10) as u32);
    }
}

/// The load of an unsigned integer of `size` bytes (1, 2, 4, else 8).
fn width(size: u8) -> Size {
    match size {
        1 => Size::B,
        2 => Size::H,
        4 => Size::W,
        _ => Size::DW,
    }
}
