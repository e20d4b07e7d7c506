//! plockstat's programs: the stash of the lock a thread is taking, kept
//! at the lock function's entry and read at its return and at a futex
//! wait, and each probe's arguments, read from glibc's lock structures.

use dtrace_bpf::asm::{Label, MapId};
use dtrace_bpf::codegen::GenError;
use dtrace_bpf::hook::{stack, Hook, HookGen};
use dtrace_bpf::insn::*;
use dtrace_bpf::layout::{regs, scratch};
use dtrace_bpf::plan::STASH_WORDS;

/// Where a plockstat program is, and what its probes' arguments are.
/// glibc's `pthread_mutex_t` has its recursion count at offset 4 and its
/// kind at 16; `pthread_rwlock_t` its writer's thread ID at 24.
///
/// The stash entry of a thread in a lock function is the time and four
/// words: the lock, the place's cookie (see [`plock_cookie`]), whether
/// the thread blocked in the call (a futex wait on the lock), and which
/// of the two programs at the function's return (the acquire or error
/// probes', and the blocked probes') have seen it (bits 1 and 0): the
/// second of them removes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlockHook {
    /// At a lock function's entry: keeps its lock (the first argument)
    /// and the place's cookie for this thread, for the return. Serves no
    /// probe.
    Stash,
    /// At the `syscalls:sys_enter_futex` tracepoint, in a thread that is
    /// in a lock function: a wait (`FUTEX_WAIT`, `_WAIT_BITSET`,
    /// `_LOCK_PI`, `_LOCK_PI2`) on a word of its lock marks the call
    /// blocked and, the first time, fires `mutex-block` (mutex) or
    /// `rw-block` (lock, is_writer), by the stashed cookie.
    FutexWait,
    /// At a blocking lock function's return, in a call that blocked:
    /// `mutex-blocked` (mutex, acquired) or `rw-blocked` (lock,
    /// is_writer, acquired).
    Blocked,
    /// At a mutex lock function's return, the lock kept at entry:
    /// `mutex-acquire` (mutex, is_recursive, 0) when it returned 0,
    /// else `mutex-error` (mutex, errno); with `try`, EBUSY fires
    /// neither (a trylock that found the mutex held).
    MutexReturn { try_: bool },
    /// At a rwlock lock function's return: `rw-acquire` (lock,
    /// is_writer) when it returned 0, else `rw-error` (lock, is_writer,
    /// errno); with `try`, EBUSY fires neither.
    RwReturn { writer: bool, try_: bool },
    /// At `pthread_mutex_unlock`'s entry: `mutex-release` (mutex,
    /// is_recursive).
    MutexUnlock,
    /// At `pthread_rwlock_unlock`'s entry: `rw-release` (lock, is_writer:
    /// its writer is this thread).
    RwUnlock,
}

/// The cookie of a lock function's place for plockstat's stash program:
/// the function's number in the provider's table, times four, plus its
/// kind (0 a mutex, 1 a reader's rwlock, 2 a writer's).
pub fn plock_cookie(function: u32, kind: u32) -> u64 {
    u64::from(function) * 4 + u64::from(kind & 3)
}

/// The stash of the lock functions in process `pid`: the lock each
/// thread is taking, from entry to return.
fn stash_name(pid: u32) -> String {
    format!("plockstat:{}", pid)
}

/// A plockstat program in process `pid`, at `hook`.
#[derive(Debug)]
pub(crate) struct PlockProgram {
    pub pid: u32,
    pub hook: PlockHook,
}

impl Hook for PlockProgram {
    fn process(&self) -> Option<u32> {
        Some(self.pid)
    }

    /// Every program but the unlocks' keeps or reads the stash.
    fn stashes(&self) -> Vec<String> {
        match self.hook {
            PlockHook::MutexUnlock | PlockHook::RwUnlock => Vec::new(),
            _ => vec![stash_name(self.pid)],
        }
    }

    fn own_program(&self, t: &mut HookGen<'_, '_, '_>) -> Result<bool, GenError> {
        if self.hook != PlockHook::Stash {
            return Ok(false);
        }
        plock_stash(t, self.pid)?;
        Ok(true)
    }

    fn filter(&self, t: &mut HookGen<'_, '_, '_>, out: Label) -> Result<(), GenError> {
        match self.hook {
            PlockHook::MutexUnlock | PlockHook::RwUnlock => Ok(()),
            hook => plock_stashed(t, self.pid, hook, out),
        }
    }

    /// At a lock function's return, twice the place's cookie, plus one
    /// if it failed (a try function's EBUSY fires neither probe); at a
    /// futex wait, the cookie the stash kept.
    fn dispatch_key(&self, t: &mut HookGen<'_, '_, '_>, out: Label) -> Result<(), GenError> {
        match self.hook {
            PlockHook::MutexReturn { try_ } | PlockHook::RwReturn { try_, .. } => {
                t.attach_cookie();
                t.emit(mov64_reg(R1, R0));
                t.emit(alu64_imm(Alu::Lsh, R1, 1));
                t.emit(ldx(Size::W, R2, R6, regs::AX_FULL as i16));
                if try_ {
                    // EBUSY from a try function: the lock was held.
                    t.jmp_imm(Cond::Eq, R2, 16, out);
                }
                let ok = t.label();
                t.jmp_imm(Cond::Eq, R2, 0, ok);
                t.emit(alu64_imm(Alu::Add, R1, 1));
                t.bind(ok);
            }
            _ => t.emit(ldx(Size::DW, R1, R9, scratch::STASH as i16 + 16)),
        }
        Ok(())
    }

    fn load_args(&self, t: &mut HookGen<'_, '_, '_>, _errno: bool) {
        load_plock_args(t, self.hook);
    }
}

/// The key of this thread's plockstat stash entry, at fp+VALUE: the
/// thread, then a zero word.
fn plock_key(t: &mut HookGen<'_, '_, '_>) {
    t.emit(call(Helper::GetCurrentPidTgid));
    t.emit(stx(Size::DW, FP, stack::VALUE, R0));
    t.emit(st_imm(Size::DW, FP, stack::KEY, 0));
}

/// The stash entry of this thread's lock call, for a plockstat
/// program at `hook` (see `PlockHook`): its lock, cookie, blocked
/// flag and seen bits copied to scratch (STASH + 8...), then, at a
/// futex wait, the call marked blocked; at the return, the entry
/// removed by the second of the two return programs to see it (only
/// the acquire one, if the call did not block). No entry, or a futex
/// wait that is not on the lock or not the call's first, jumps to
/// `out`, as does a call that did not block at the blocked probes.
fn plock_stashed(
    t: &mut HookGen<'_, '_, '_>,
    pid: u32,
    hook: PlockHook,
    out: Label,
) -> Result<(), GenError> {
    let map = t.stash_map(&stash_name(pid))?;
    plock_key(t);
    t.stash_call(map, Helper::MapLookupElem, None);
    t.jmp_imm(Cond::Eq, R0, 0, out);
    for w in 0..i16::from(STASH_WORDS) {
        t.emit(ldx(Size::DW, R1, R0, 8 + 8 * w));
        t.emit(stx(Size::DW, R9, scratch::STASH as i16 + 8 + 8 * w, R1));
    }
    let blocked = 8 + 16;
    match hook {
        PlockHook::FutexWait => {
            // A wait: the command without the private and clock
            // flags is FUTEX_WAIT (0), _LOCK_PI (6), _WAIT_BITSET (9)
            // or _LOCK_PI2 (13).
            let wait = t.label();
            t.emit(ldx(Size::DW, R1, R6, 24));
            t.emit(alu64_imm(Alu::And, R1, 127));
            for cmd in [0, 6, 9, 13] {
                t.jmp_imm(Cond::Eq, R1, cmd, wait);
            }
            t.ja(out);
            t.bind(wait);
            // On a word of the lock (a mutex's first; a rwlock's
            // readers, writers and phase words).
            t.emit(ldx(Size::DW, R1, R6, 16));
            t.emit(ldx(Size::DW, R2, R0, 8));
            t.jmp_reg(Cond::Lt, R1, R2, out);
            t.emit(alu64_imm(Alu::Add, R2, 32));
            t.jmp_reg(Cond::Ge, R1, R2, out);
            // Once per call.
            t.emit(ldx(Size::DW, R1, R0, blocked));
            t.jmp_imm(Cond::Ne, R1, 0, out);
            t.emit(st_imm(Size::DW, R0, blocked, 1));
        }
        // Left for the blocked probes if the call blocked and they
        // have not seen it.
        PlockHook::MutexReturn { .. } | PlockHook::RwReturn { .. } => {
            plock_handoff(t, map, None, 1, 2)
        }
        // Only a call that blocked.
        PlockHook::Blocked => plock_handoff(t, map, Some(out), 2, 1),
        _ => {}
    }
    Ok(())
}

/// At a lock function's return, with the thread's stash entry in R0
/// (offsets 24, blocked, and 32, the seen bits): the entry is removed
/// if the other program has seen it (bit `other`), else marked seen
/// by this one (bit `mine`). A call that did not block jumps to
/// `unblocked`, or with None is removed at once.
fn plock_handoff(
    t: &mut HookGen<'_, '_, '_>,
    map: MapId,
    unblocked: Option<Label>,
    other: i32,
    mine: i32,
) {
    let (blocked, seen) = (8 + 16, 8 + 24);
    let remove = t.label();
    let done = t.label();
    t.emit(ldx(Size::DW, R1, R0, blocked));
    t.jmp_imm(Cond::Eq, R1, 0, unblocked.unwrap_or(remove));
    t.emit(ldx(Size::DW, R1, R0, seen));
    t.emit(alu64_imm(Alu::And, R1, other));
    t.jmp_imm(Cond::Ne, R1, 0, remove);
    t.emit(ldx(Size::DW, R1, R0, seen));
    t.emit(alu64_imm(Alu::Or, R1, mine));
    t.emit(stx(Size::DW, R0, seen, R1));
    t.ja(done);
    t.bind(remove);
    t.stash_call(map, Helper::MapDeleteElem, None);
    t.bind(done);
}

/// A plockstat stash program: while tracing is active, keeps the lock
/// (the first argument) and the place's cookie for this thread of
/// process `pid`, the call not yet blocked nor seen.
fn plock_stash(t: &mut HookGen<'_, '_, '_>, pid: u32) -> Result<(), GenError> {
    let out = t.label();
    let map = t.stash_map(&stash_name(pid))?;
    t.emit(mov64_reg(R6, R1));
    t.activity_check(out);
    t.process_check(pid, out)?;
    plock_key(t);
    // The value below the key: the time, then the words.
    let value = stack::SPILL - 8 * i16::from(STASH_WORDS);
    t.emit(st_imm(Size::DW, FP, value, 0));
    t.emit(ldx(Size::DW, R1, R6, regs::ARGS_FULL[0] as i16));
    t.emit(stx(Size::DW, FP, value + 8, R1));
    t.attach_cookie();
    t.emit(stx(Size::DW, FP, value + 16, R0));
    for i in 2..i16::from(STASH_WORDS) {
        t.emit(st_imm(Size::DW, FP, value + 8 + 8 * i, 0));
    }
    t.stash_call(map, Helper::MapUpdateElem, Some(value));
    t.bind(out);
    t.emit(mov64_imm(R0, 0));
    t.emit(exit());
    Ok(())
}

/// Reads the 4-byte user word at `base + off` (base in R3) into
/// argument slot `slot`, zero-extended (0 if unreadable).
fn user_u32_to_slot(t: &mut HookGen<'_, '_, '_>, off: i32, slot: u32) {
    let at = (scratch::ARGS + 8 * slot) as i16;
    t.emit(st_imm(Size::DW, R9, at, 0));
    t.emit(alu64_imm(Alu::Add, R3, off));
    t.emit(mov64_reg(R1, R9));
    t.emit(alu64_imm(Alu::Add, R1, i32::from(at)));
    t.emit(mov64_imm(R2, 4));
    t.emit(call(Helper::ProbeReadUser));
}

/// arg1 = the mutex in arg0 is recursive and held more than once
/// (its kind's low bits are PTHREAD_MUTEX_RECURSIVE_NP, 1, and its
/// count is over 1). Uses argument slots 8 and 9.
fn plock_recursive(t: &mut HookGen<'_, '_, '_>) {
    t.emit(ldx(Size::DW, R3, R9, scratch::ARGS as i16));
    user_u32_to_slot(t, 16, 8);
    t.emit(ldx(Size::DW, R3, R9, scratch::ARGS as i16));
    user_u32_to_slot(t, 4, 9);
    let no = t.label();
    let done = t.label();
    t.emit(ldx(Size::DW, R1, R9, (scratch::ARGS + 64) as i16));
    t.emit(alu64_imm(Alu::And, R1, 3));
    t.jmp_imm(Cond::Ne, R1, 1, no);
    t.emit(ldx(Size::DW, R1, R9, (scratch::ARGS + 72) as i16));
    t.jmp_imm(Cond::Le, R1, 1, no);
    t.emit(mov64_imm(R1, 1));
    t.ja(done);
    t.bind(no);
    t.emit(mov64_imm(R1, 0));
    t.bind(done);
    t.store_arg(1, R1);
}

/// Argument `slot` = 1 if the lock function returned 0 (took the
/// lock), else 0.
fn plock_taken(t: &mut HookGen<'_, '_, '_>, slot: u32) {
    let no = t.label();
    let done = t.label();
    t.emit(ldx(Size::W, R1, R6, regs::AX_FULL as i16));
    t.jmp_imm(Cond::Ne, R1, 0, no);
    t.emit(mov64_imm(R1, 1));
    t.ja(done);
    t.bind(no);
    t.emit(mov64_imm(R1, 0));
    t.bind(done);
    t.store_arg(slot, R1);
}

/// A plockstat probe's arguments (see `PlockHook`).
fn load_plock_args(t: &mut HookGen<'_, '_, '_>, hook: PlockHook) {
    let stashed = (scratch::STASH + 8) as i16;
    match hook {
        PlockHook::Stash => t.zero_args(0),
        PlockHook::FutexWait | PlockHook::Blocked => {
            // The lock, is_writer (the stashed cookie's kind is 2),
            // then, at the return, whether the lock was taken: after
            // the lock for a mutex, after is_writer for a rwlock.
            t.emit(ldx(Size::DW, R1, R9, stashed));
            t.store_arg(0, R1);
            let mutex = t.label();
            let done = t.label();
            t.emit(ldx(Size::DW, R2, R9, scratch::STASH as i16 + 16));
            t.emit(alu64_imm(Alu::And, R2, 3));
            t.jmp_imm(Cond::Eq, R2, 0, mutex);
            t.emit(mov64_imm(R1, 0));
            let reader = t.label();
            t.jmp_imm(Cond::Ne, R2, 2, reader);
            t.emit(mov64_imm(R1, 1));
            t.bind(reader);
            t.store_arg(1, R1);
            if hook == PlockHook::Blocked {
                plock_taken(t, 2);
            }
            t.ja(done);
            t.bind(mutex);
            if hook == PlockHook::Blocked {
                plock_taken(t, 1);
            }
            t.bind(done);
            t.zero_args(if hook == PlockHook::Blocked { 3 } else { 2 });
        }
        PlockHook::MutexReturn { .. } => {
            t.zero_args(1);
            t.emit(ldx(Size::DW, R1, R9, stashed));
            t.store_arg(0, R1);
            let err = t.label();
            let done = t.label();
            t.emit(ldx(Size::W, R1, R6, regs::AX_FULL as i16));
            t.jmp_imm(Cond::Ne, R1, 0, err);
            plock_recursive(t);
            t.ja(done);
            t.bind(err);
            t.store_arg(1, R1);
            t.bind(done);
            t.zero_args(2);
        }
        PlockHook::RwReturn { writer, .. } => {
            t.emit(ldx(Size::DW, R1, R9, stashed));
            t.store_arg(0, R1);
            t.emit(mov64_imm(R1, i32::from(writer)));
            t.store_arg(1, R1);
            t.emit(ldx(Size::W, R1, R6, regs::AX_FULL as i16));
            t.store_arg(2, R1);
            t.zero_args(3);
        }
        PlockHook::MutexUnlock => {
            t.zero_args(1);
            t.emit(ldx(Size::DW, R1, R6, regs::ARGS_FULL[0] as i16));
            t.store_arg(0, R1);
            plock_recursive(t);
            t.zero_args(2);
        }
        PlockHook::RwUnlock => {
            t.zero_args(1);
            t.emit(ldx(Size::DW, R3, R6, regs::ARGS_FULL[0] as i16));
            t.emit(stx(Size::DW, R9, scratch::ARGS as i16, R3));
            // The writer's thread ID, against this thread's.
            user_u32_to_slot(t, 24, 8);
            t.emit(call(Helper::GetCurrentPidTgid));
            t.emit(alu64_imm(Alu::Lsh, R0, 32));
            t.emit(alu64_imm(Alu::Rsh, R0, 32));
            t.emit(ldx(Size::DW, R1, R9, (scratch::ARGS + 64) as i16));
            let no = t.label();
            let done = t.label();
            t.jmp_reg(Cond::Ne, R1, R0, no);
            t.emit(mov64_imm(R1, 1));
            t.ja(done);
            t.bind(no);
            t.emit(mov64_imm(R1, 0));
            t.bind(done);
            t.store_arg(1, R1);
            t.zero_args(2);
        }
    }
}
