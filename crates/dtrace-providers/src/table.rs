//! Providers described by data: a provider whose probes are kernel
//! (raw) tracepoints is a file under `providers/` (`proc.tp`,
//! `sched.tp`), read by this one implementation of `Provider`. Adding
//! such a provider is adding its file: `build.rs` lists every file there
//! in [`TABLES`].
//!
//! The format, a line each (`#` starts a comment):
//!
//! ```text
//! provider NAME
//! attributes PROVIDER MODULE FUNCTION NAME ARGS   (each Name/Data/Class)
//! probe NAME HOOK [HOOK ...]                    (HOOK: a raw tracepoint)
//! also HOOK [HOOK ...]                          (more of the same declaration)
//! when @WORD [& MASK] | unless @WORD [& MASK]   (fires only if nonzero | zero)
//! when @WORD [& MASK] == VALUE | unless ...     (fires only if equal | not)
//! when curthread->MEMBER changed | unless ...   (the member `after ... keep` kept)
//! when @WORD else @W:STRUCT->MEMBER ...        (the member where no hook has WORD)
//! arg NATIVE-TYPE @WORD [-> TRANSLATED-TYPE]    (args[N], in order)
//! arg NATIVE-TYPE @WORD via INLINE              (computed by a D inline)
//! arg NATIVE-TYPE =VALUE                        (a constant argument)
//! task @WORD                                    (fires on behalf of that task)
//! feature NAME                                  (its hooks are that kernel feature)
//! after HOOK @KEY [keep curthread->MEMBER]     (fires after HOOK, see below)
//! if INLINE argN                                (fires if INLINE[argN] != 0;
//!                                                 argN past the declared ones: @N)
//! ```
//!
//! An argument's `@WORD` may read through the hook's pointer argument:
//! `@0:sk_buff->data` is the `data` member of the `struct sk_buff` hook
//! argument 0 points to, `@0:sk_buff->head+network_header` its `head`
//! plus its `network_header` (where a packet's IP header is, leaving
//! and arriving); the offsets come from the kernel's BTF when the probe
//! is enabled.
//!
//! `if` names a one-parameter inline of the D library, applied to the
//! probe's argument N, that says whether this firing of the hook is the
//! probe's (tcp's `send` is `net_dev_queue` for a TCP packet); a fault
//! while it reads memory is no firing.
//!
//! With `after HOOK @KEY` a probe fires only if HOOK fired before it in
//! the same thread with the same word `@KEY` (both hooks' argument KEY:
//! lockstat's `contention_begin` then `contention_end` for one lock;
//! `@none`: any, for a hook with no argument, `schedule()`);
//! `$N` (N < 4) is then HOOK's argument N as it was there, usable where
//! `@N` is (`when $1 & 0x20`, `arg int $1`), and `$elapsed` the
//! nanoseconds since (`arg uint64_t $elapsed`: how long the lock was
//! waited for). One program at HOOK keeps those words for every probe
//! of the provider that fires after it.
//!
//! A guard on a word the kernel's hooks lack (a tracepoint argument
//! added in a later Linux) may name, after `else`, members to test in
//! its place, the first the kernel's BTF has: `when @3 else
//! @1:task_struct->__state else @1:task_struct->state` is sched's
//! `sleep` at a `sched_switch` with `prev_state` (5.18), else the
//! outgoing task's state as it was named from 5.14, else before.
//!
//! A probe with several hooks fires on each of them (they must take
//! the same arguments). A hook may be alternatives, `a|fentry:f`: the
//! first the kernel has with the arguments the probe reads (a raw
//! tracepoint's arity from the kernel's BTF; `fentry:FUNCTION` a kernel
//! function's entry, where fentry is allowed) — proc's `exit` on
//! kernels whose `sched_process_exit` has no `group_dead`. `@WORD` is the index of the hook's argument (its
//! `TP_PROTO`) the argument is (`@none`: 0); `=VALUE` a constant (sysinfo's
//! increment of 1); with `-> T`, `args[N]` is that value through the D
//! library's translator to `T` (`psinfo_t *` from `struct task_struct
//! *`). With `via INLINE`, `args[N]` is `INLINE[value]`, a one-parameter
//! inline of the D library (proc's `exit` reason from the exiting task);
//! `argN` stays the raw value. With `task @WORD` the probe fires on behalf of the task that
//! hook argument points to: `curthread`, `pid`, `tid`, `execname`,
//! `self->` variables and the rest are that task's (sched's `on-cpu`
//! fires at `sched_switch` for the incoming thread). Probes are
//! `NAME:vmlinux::PROBE`.
//!
//! A probe may be declared more than once (`probe NAME` again): the
//! first declaration whose every hook the kernel has, with the words it
//! reads, is the probe; a probe with none is not provided, and naming it
//! says why. `also HOOK ...` continues a declaration with hooks that
//! need guards or words of their own (a function returning `void`
//! beside two returning an error). lockstat on kernels before the lock
//! tracepoints is so: `fexit:__mutex_lock_slowpath` with `after entry
//! @0 keep curthread->nvcsw`, `entry` standing for the `fentry` of the
//! function each hook returns from, whose stash also keeps the current
//! task's member; `when curthread->nvcsw changed` fires only if the
//! thread slept (its voluntary context switches moved) in between.

use std::io;

use dtrace_bpf::plan::{After, ArgContext, Guard, Kept, Phase, ProgKind, RawWord, STASH_WORDS};
use dtrace_lang::attr::{Attr, DepClass, Stability};
use dtrace_lang::pdesc::{field_matches, ProbeDesc};

use crate::{
    attrs, single, ArgDesc, Attach, Attributes, Enabled, Planned, PlannedProgram, ProbeSink,
    ProbeTable, Provider,
};

/// The providers described by data, built into the binary: every
/// `providers/*.tp` file, in name order (listed by `build.rs`).
pub const TABLES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/tables.rs"));

/// A probe: its name, the raw tracepoints it fires on, its arguments
/// (description and where each comes from).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableProbe {
    pub name: String,
    pub hooks: Vec<String>,
    pub args: Vec<(ArgDesc, RawWord)>,
    pub guards: Vec<Guard>,
    /// The hook argument the probe's task is, if not the current one.
    pub task: Option<u8>,
    /// The hook this probe fires after, and the key word.
    pub after: Option<After>,
    /// The D library inlines that must hold of arguments.
    pub cond: Vec<(String, u8)>,
    /// Arguments read through a hook word, by argument index: their
    /// `RawWord::Load` is made from BTF when the probe is planned.
    pub loads: Vec<(usize, MemberLoad)>,
    /// Guards, by index, with members to test in their place, in order,
    /// where no hook has the guard's word (`when @3 else
    /// @1:task_struct->__state`).
    pub guard_else: Vec<(usize, Vec<MemberLoad>)>,
    /// The current task's member the stash of the `after` hook keeps
    /// (`keep curthread->nvcsw`), and whether the probe fires only if it
    /// changed since (`when curthread->nvcsw changed`) or only if not.
    pub keep: Option<String>,
    pub kept_changed: Option<bool>,
    /// This entry continues the declaration before it (an `also` line):
    /// more hooks of the same probe, with guards and words of their own.
    pub also: bool,
    /// The kernel feature its hooks are (`feature lock_tracepoints`, by
    /// its name in `dtrace_sys::features::Features::rows`): without it,
    /// the reason a probe cannot be enabled names the feature and the
    /// Linux that brings it.
    pub feature: Option<String>,
}

/// `@WORD:STRUCT->PTR[+ADD]`: see the module's description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberLoad {
    pub word: u8,
    pub strct: String,
    pub ptr: String,
    pub add: Option<String>,
}

impl MemberLoad {
    fn parse(text: &str) -> Option<MemberLoad> {
        let (w, rest) = text.trim().split_once(':')?;
        let word = hook_word(w).filter(|w| *w != NONE)?;
        let (strct, fields) = rest.split_once("->")?;
        let (ptr, add) = match fields.split_once('+') {
            Some((p, a)) => (p.trim(), Some(a.trim().to_string())),
            None => (fields.trim(), None),
        };
        let ident = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        };
        if !ident(strct.trim()) || !ident(ptr) || add.as_deref().is_some_and(|a| !ident(a)) {
            return None;
        }
        Some(MemberLoad {
            word,
            strct: strct.trim().to_string(),
            ptr: ptr.to_string(),
            add,
        })
    }

    /// The member itself (an integer of 1, 2, 4 or 8 bytes): its offset
    /// and size, from the kernel's BTF.
    fn resolve_value(&self, btf: &dtrace_sys::btf::Btf) -> Option<(u32, u8)> {
        let (off, ty) = btf.member_path(&self.strct, &self.ptr)?;
        let size = btf.size_of(ty).filter(|s| [1, 2, 4, 8].contains(s))?;
        Some((off, size as u8))
    }

    /// The load, with its offsets from the kernel's BTF.
    fn resolve(&self, btf: &dtrace_sys::btf::Btf) -> Result<RawWord, String> {
        let missing = |m: &str| {
            format!(
                "the kernel's BTF has no member {} in struct {}",
                m, self.strct
            )
        };
        let (ptr, ty) = btf
            .member_path(&self.strct, &self.ptr)
            .ok_or_else(|| missing(&self.ptr))?;
        // The member's own size where it is an integer narrower than a
        // word (a CPU number); else a word (a pointer).
        let size = match btf.size_of(ty) {
            Some(n @ (1 | 2 | 4)) => n as u8,
            _ => 8,
        };
        let add = match &self.add {
            None => None,
            Some(a) => {
                let (off, ty) = btf.member_path(&self.strct, a).ok_or_else(|| missing(a))?;
                let size = btf.size_of(ty).filter(|s| [1, 2, 4, 8].contains(s));
                Some((off, size.ok_or_else(|| missing(a))? as u8))
            }
        };
        Ok(RawWord::Load {
            word: self.word,
            ptr,
            size,
            add,
        })
    }
}

/// The kernel's BTF (the process's shared parse).
fn kernel_btf() -> Result<std::sync::Arc<dtrace_sys::btf::Btf>, String> {
    dtrace_sys::btf::Btf::vmlinux().map_err(|e| format!("cannot read the kernel's BTF: {}", e))
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableProvider {
    name: String,
    attrs: Attributes,
    probes: Vec<TableProbe>,
    /// Whether its probes were made (the first time a description could
    /// name one: which the kernel can enable is read from its BTF, which
    /// a program naming none of them does not pay for).
    provided: bool,
}

/// `Name/Data/Class`, each word spelled out as DTrace prints it.
fn triple(w: &str) -> Option<Attr> {
    let mut p = w.split('/');
    let (n, d, c) = (p.next()?, p.next()?, p.next()?);
    Some(Attr::new(
        Stability::from_name(n)?,
        Stability::from_name(d)?,
        DepClass::from_name(c)?,
    ))
    .filter(|_| p.next().is_none())
}

impl TableProvider {
    /// Parses a provider's file; the error names the line.
    pub fn parse(file: &str, text: &str) -> Result<TableProvider, String> {
        let mut p = TableProvider {
            name: String::new(),
            attrs: attrs::sdt_like(attrs::EVOLVING_ISA),
            probes: Vec::new(),
            provided: false,
        };
        for (i, line) in text.lines().enumerate() {
            let bad = |what: &str| format!("{}:{}: {}", file, i + 1, what);
            let line = line.split('#').next().unwrap_or("").trim();
            let Some((key, rest)) = line.split_once(char::is_whitespace).or(if line.is_empty() {
                None
            } else {
                Some((line, ""))
            }) else {
                continue;
            };
            let rest = rest.trim();
            match key {
                "provider" if !rest.is_empty() => p.name = rest.to_string(),
                "attributes" => {
                    let w: Vec<&str> = rest.split_whitespace().collect();
                    let get = |i: usize| {
                        w.get(i).and_then(|x| triple(x)).ok_or_else(|| {
                            bad("attributes: five Name/Data/Class triples (provider, module, function, name, args)")
                        })
                    };
                    if w.len() != 5 {
                        return Err(bad("attributes: five Name/Data/Class triples (provider, module, function, name, args)"));
                    }
                    p.attrs = Attributes {
                        provider: get(0)?,
                        module: get(1)?,
                        function: get(2)?,
                        name: get(3)?,
                        args: get(4)?,
                    };
                }
                "probe" | "also" => {
                    let mut w = rest.split_whitespace();
                    let name = if key == "also" {
                        let last = p
                            .probes
                            .last()
                            .ok_or_else(|| bad("also before any probe"))?;
                        Some(last.name.as_str())
                    } else {
                        w.next()
                    };
                    let hooks: Vec<String> = w.map(str::to_string).collect();
                    let (Some(name), false) = (name, hooks.is_empty()) else {
                        return Err(bad(if key == "also" {
                            "also HOOK [HOOK ...]"
                        } else {
                            "probe NAME HOOK [HOOK ...]"
                        }));
                    };
                    let name = name.to_string();
                    p.probes.push(TableProbe {
                        name,
                        keep: None,
                        kept_changed: None,
                        also: key == "also",
                        feature: None,
                        hooks,
                        args: Vec::new(),
                        guards: Vec::new(),
                        task: None,
                        after: None,
                        cond: Vec::new(),
                        loads: Vec::new(),
                        guard_else: Vec::new(),
                    });
                }
                "when" | "unless" if rest.ends_with(" changed") => {
                    // `curthread->MEMBER changed`: the member the stash kept.
                    let member = rest
                        .trim_end_matches(" changed")
                        .trim()
                        .strip_prefix("curthread->");
                    let probe = p
                        .probes
                        .last_mut()
                        .ok_or_else(|| bad("when or unless before any probe"))?;
                    match (member, probe.keep.as_deref()) {
                        (Some(m), Some(k)) if m == k => {
                            probe.kept_changed = Some(key == "when");
                        }
                        _ => {
                            return Err(bad(
                                "curthread->MEMBER changed: the member the after line keeps",
                            ))
                        }
                    }
                }
                "when" | "unless" => {
                    // `@N`, `@N & MASK` (nonzero), `@N == VALUE` or
                    // `@N & MASK == VALUE`; then
                    // any `else @W:STRUCT->MEMBER` in its place where the
                    // hook has no word N.
                    let mut alts = rest.split(" else ");
                    let rest = alts.next().unwrap_or_default();
                    let alts = alts
                        .map(|a| MemberLoad::parse(a).filter(|m| m.add.is_none()))
                        .collect::<Option<Vec<MemberLoad>>>()
                        .ok_or_else(|| bad("else @WORD:STRUCT->MEMBER"))?;
                    let int = |t: &str| -> Option<u64> {
                        let t = t.trim();
                        match t.strip_prefix("0x") {
                            Some(h) => u64::from_str_radix(h, 16).ok(),
                            None => t.parse().ok(),
                        }
                    };
                    let (w, mask, value, eq) = if let Some((w, v)) = rest.split_once("==") {
                        let v = int(v).ok_or_else(|| bad("== VALUE: an integer"))?;
                        match w.split_once('&') {
                            Some((w, m)) => {
                                (w, int(m).ok_or_else(|| bad("& MASK: an integer"))?, v, true)
                            }
                            None => (w, u64::MAX, v, true),
                        }
                    } else if let Some((w, m)) = rest.split_once('&') {
                        (
                            w,
                            int(m).ok_or_else(|| bad("& MASK: an integer"))?,
                            0,
                            false,
                        )
                    } else {
                        (rest, u64::MAX, 0, false)
                    };
                    let (word, stashed) = match stash_word(w) {
                        Some(n) => (n, true),
                        None => (
                            hook_word(w).ok_or_else(|| {
                                bad("@WORD: a hook argument from 0 to 11 (or $N, N < 4)")
                            })?,
                            false,
                        ),
                    };
                    let probe = p
                        .probes
                        .last_mut()
                        .ok_or_else(|| bad("when or unless before any probe"))?;
                    if stashed && probe.after.is_none() {
                        return Err(bad("$N before an after line"));
                    }
                    if stashed && !alts.is_empty() {
                        return Err(bad("else after a $N"));
                    }
                    if !alts.is_empty() {
                        probe.guard_else.push((probe.guards.len(), alts));
                    }
                    // `unless` negates the test.
                    probe.guards.push(Guard {
                        word,
                        stashed,
                        mask,
                        value,
                        eq: eq == (key == "when"),
                        load: None,
                        copied: false,
                    });
                }
                "feature" => {
                    let known = dtrace_sys::features::Features::default().rows();
                    if !known.iter().any(|r| r.0 == rest) {
                        return Err(bad("feature NAME: a kernel feature's name"));
                    }
                    let probe = p
                        .probes
                        .last_mut()
                        .ok_or_else(|| bad("feature before any probe"))?;
                    probe.feature = Some(rest.to_string());
                }
                "task" => {
                    let word = hook_word(rest)
                        .filter(|w| *w != NONE)
                        .ok_or_else(|| bad("task @WORD: a hook argument from 0 to 11"))?;
                    let probe = p
                        .probes
                        .last_mut()
                        .ok_or_else(|| bad("task before any probe"))?;
                    probe.task = Some(word);
                }
                "if" => {
                    let mut w = rest.split_whitespace();
                    let inline = w.next();
                    let arg = w
                        .next()
                        .and_then(|a| a.strip_prefix("arg"))
                        .and_then(|n| n.parse::<u8>().ok())
                        .filter(|n| *n < 10);
                    let (Some(inline), Some(arg), None) = (inline, arg, w.next()) else {
                        return Err(bad("if INLINE argN"));
                    };
                    let probe = p
                        .probes
                        .last_mut()
                        .ok_or_else(|| bad("if before any probe"))?;
                    probe.cond.push((inline.to_string(), arg));
                }
                "after" => {
                    let usage = "after HOOK @KEY [keep curthread->MEMBER]";
                    let mut w = rest.split_whitespace();
                    let (Some(hook), Some(key)) = (w.next(), w.next().and_then(hook_word)) else {
                        return Err(bad(usage));
                    };
                    let keep = match (w.next(), w.next(), w.next()) {
                        (None, _, _) => None,
                        (Some("keep"), Some(m), None) => Some(
                            m.strip_prefix("curthread->")
                                .filter(|m| {
                                    !m.is_empty()
                                        && m.chars().all(|c| {
                                            c.is_ascii_alphanumeric() || c == '_' || c == '.'
                                        })
                                })
                                .ok_or_else(|| bad(usage))?
                                .to_string(),
                        ),
                        _ => return Err(bad(usage)),
                    };
                    let probe = p
                        .probes
                        .last_mut()
                        .ok_or_else(|| bad("after before any probe"))?;
                    probe.after = Some(After {
                        hook: hook.to_string(),
                        key,
                        kept: None,
                    });
                    probe.keep = keep;
                }
                "arg" => {
                    let (rest, via) = match rest.split_once(" via ") {
                        Some((d, f)) => (d.trim(), Some(f.trim().to_string())),
                        None => (rest, None),
                    };
                    let (decl, xlate) = match rest.split_once(" -> ") {
                        Some((d, x)) => (d.trim(), Some(x.trim().to_string())),
                        None => (rest, None),
                    };
                    if via.is_some() && xlate.is_some() {
                        return Err(bad("arg: -> TYPE or via INLINE, not both"));
                    }
                    let (native, word) = if let Some((native, v)) = decl.rsplit_once('=') {
                        let v: i64 = v.trim().parse().map_err(|_| bad("=VALUE: an integer"))?;
                        (native, RawWord::Const(v))
                    } else if let Some((native, v)) = decl.rsplit_once('$') {
                        let w = if v.trim() == "elapsed" {
                            RawWord::Elapsed
                        } else {
                            RawWord::Stashed(
                                stash_word(&format!("${}", v))
                                    .ok_or_else(|| bad("$N: a kept word from 0 to 3"))?,
                            )
                        };
                        if p.probes.last().is_some_and(|x| x.after.is_none()) {
                            return Err(bad("$N before an after line"));
                        }
                        (native, w)
                    } else if let Some((native, at)) =
                        decl.rsplit_once('@').filter(|(_, at)| at.contains("->"))
                    {
                        let load = MemberLoad::parse(&format!("@{}", at))
                            .ok_or_else(|| bad("@WORD:STRUCT->MEMBER[+MEMBER]"))?;
                        let probe = p
                            .probes
                            .last_mut()
                            .ok_or_else(|| bad("arg before any probe"))?;
                        probe.loads.push((probe.args.len(), load));
                        (native, RawWord::Const(0))
                    } else {
                        let (native, at) = decl
                            .rsplit_once('@')
                            .ok_or_else(|| bad("arg TYPE @WORD|=VALUE [-> TYPE]"))?;
                        let w = hook_word(&format!("@{}", at))
                            .ok_or_else(|| bad("@WORD: a hook argument from 0 to 11"))?;
                        let w = if w == NONE {
                            RawWord::Const(0)
                        } else {
                            RawWord::Hook(w)
                        };
                        (native, w)
                    };
                    let probe = p
                        .probes
                        .last_mut()
                        .ok_or_else(|| bad("arg before any probe"))?;
                    let mut a = ArgDesc::new(native.trim(), "");
                    a.xlate = xlate;
                    a.via = via;
                    probe.args.push((a, word));
                }
                _ => return Err(bad(&format!("unknown line: {}", line))),
            }
        }
        if p.name.is_empty() {
            return Err(format!("{}: no provider line", file));
        }
        // One stash program serves a hook: its probes must agree on the
        // key and on the task member kept.
        let kept_at = |x: &TableProbe| -> Vec<String> {
            match x.after.as_ref().map(|a| a.hook.as_str()) {
                None => Vec::new(),
                // Each hook's function's entry.
                Some("entry") => x
                    .hooks
                    .iter()
                    .flat_map(|h| h.split('|'))
                    .filter_map(|h| h.strip_prefix("fexit:"))
                    .map(|f| format!("fentry:{}", f))
                    .collect(),
                Some(h) => vec![h.to_string()],
            }
        };
        for x in &p.probes {
            for y in &p.probes {
                let (Some(a), Some(b)) = (&x.after, &y.after) else {
                    continue;
                };
                if a.key == b.key && x.keep == y.keep {
                    continue;
                }
                let (hx, hy) = (kept_at(x), kept_at(y));
                if let Some(h) = hx.iter().find(|h| hy.contains(h)) {
                    return Err(format!(
                        "{}: probes fire after {} with different keys or kept members",
                        file, h
                    ));
                }
            }
        }
        Ok(p)
    }
}

/// `$N`, N the index of a word kept by the hook a probe fires after.
fn stash_word(text: &str) -> Option<u8> {
    let w = text.trim().strip_prefix('$')?.trim();
    w.parse().ok().filter(|w| *w < STASH_WORDS)
}

/// `@N`, N a hook argument's index; `@none` is [`NONE`].
fn hook_word(text: &str) -> Option<u8> {
    let w = text.trim().strip_prefix('@')?.trim();
    match w {
        "none" => Some(NONE),
        "ret" => Some(RET),
        _ => w.parse().ok().filter(|w| *w < 12),
    }
}

/// The word index of a function's return value (`@ret`), at its return
/// (`fexit:FUNCTION`): the word after its arguments, wherever that is
/// in the running kernel's version of the function.
pub const RET: u8 = u8::MAX - 1;

/// The word index of an argument that is always 0 (`@none`: io's
/// `fileinfo_t` when the kernel does not say which file).
pub const NONE: u8 = u8::MAX;

impl TableProvider {
    /// The entries of the declaration starting at entry `first`: it and
    /// the `also` entries after it.
    fn declaration(&self, first: usize) -> impl Iterator<Item = &TableProbe> {
        let rest = self.probes.get(first + 1..).unwrap_or_default();
        self.probes
            .get(first)
            .into_iter()
            .chain(rest.iter().take_while(|p| p.also))
    }

    /// Each probe's name, with the first of its declarations this kernel
    /// can enable (its entry's index) or why none can be.
    fn choices(&self) -> Vec<(&str, Result<usize, String>)> {
        let mut out: Vec<(&str, Result<usize, String>)> = Vec::new();
        for (i, p) in self.probes.iter().enumerate() {
            // A name already enabled by an earlier declaration is not
            // planned again.
            let seen = out.iter().position(|(n, _)| *n == p.name);
            if p.also || seen.is_some_and(|k| out[k].1.is_ok()) {
                continue;
            }
            let planned = self
                .declaration(i)
                .try_for_each(|part| self.plan_part(part).map(|_| ()));
            match seen {
                // The first declaration's reason stays, if none can be.
                Some(k) if planned.is_ok() => out[k].1 = Ok(i),
                Some(_) => {}
                None => out.push((&p.name, planned.map(|_| i))),
            }
        }
        out
    }

    /// The programs of one entry of a declaration: for each of its
    /// hooks, the one the kernel has, with its words and guards there
    /// and the hook it fires after; or why the kernel cannot.
    fn plan_part(&self, p: &TableProbe) -> Result<Vec<PartHook>, String> {
        let cannot = |why: String| {
            format!(
                "probe {}:vmlinux::{} cannot be enabled: {}",
                self.name, p.name, why
            )
        };
        // A kernel without the feature its hooks are: say which.
        if let Some(f) = &p.feature {
            let rows = dtrace_sys::features::Features::get().rows();
            if let Some(row) = rows.iter().find(|r| r.0 == f && !r.1) {
                return Err(cannot(format!("this kernel lacks {}", row.2)));
            }
        }
        // Arguments read through a hook word, offsets from BTF.
        let mut words: Vec<RawWord> = p.args.iter().map(|(_, w)| *w).collect();
        for (i, load) in &p.loads {
            let w = kernel_btf()
                .and_then(|btf| load.resolve(&btf))
                .map_err(cannot)?;
            if let Some(slot) = words.get_mut(*i) {
                *slot = w;
            }
        }
        // An `if` on an argument the probe does not declare reads the
        // hook's word of that index.
        for (_, arg) in &p.cond {
            while words.len() <= usize::from(*arg) {
                words.push(RawWord::Hook(words.len() as u8));
            }
        }
        // The task member a stash keeps, from BTF.
        let kept = match &p.keep {
            None => None,
            Some(m) => {
                let load = MemberLoad {
                    word: 0,
                    strct: "task_struct".into(),
                    ptr: m.clone(),
                    add: None,
                };
                let btf = kernel_btf().map_err(cannot)?;
                Some(load.resolve_value(&btf).ok_or_else(|| {
                    cannot(format!(
                        "the kernel's struct task_struct has no member {}",
                        m
                    ))
                })?)
            }
        };
        let mut out = Vec::new();
        for hook in &p.hooks {
            let (kind, attach, guards, alt, at) = hook_and_guards(hook, p, &words).ok_or_else(|| {
                cannot(format!(
                    "this kernel has none of its hooks ({}) with the arguments it reads, of the types it declares",
                    hook.replace('|', ", ")
                ))
            })?;
            // `after entry`: the entry of the function this hook is the
            // return of.
            let after = match &p.after {
                None => None,
                Some(a) => {
                    let hook = match (a.hook.as_str(), alt.strip_prefix("fexit:")) {
                        ("entry", Some(f)) => format!("fentry:{}", f),
                        ("entry", None) => {
                            return Err(cannot(format!("{} is no kernel function's return", alt)))
                        }
                        (h, _) => h.to_string(),
                    };
                    Some(After {
                        hook,
                        key: a.key,
                        kept: match (kept, p.kept_changed) {
                            (Some((offset, size)), Some(changed)) => Some(Kept {
                                offset,
                                size,
                                changed,
                            }),
                            _ => None,
                        },
                    })
                }
            };
            // `@ret`: the word after the function's arguments.
            let words = words
                .iter()
                .map(|w| match w {
                    RawWord::Hook(RET) => RawWord::Hook(at),
                    w => *w,
                })
                .collect();
            out.push(PartHook {
                kind,
                attach,
                guards,
                words,
                after,
                keep: kept,
            });
        }
        Ok(out)
    }
}

/// A hook of a probe, as the kernel has it (see `TableProvider::plan_part`).
struct PartHook {
    kind: ProgKind,
    attach: Attach,
    guards: Vec<Guard>,
    words: Vec<RawWord>,
    after: Option<After>,
    keep: Option<(u32, u8)>,
}

impl Provider for TableProvider {
    fn name(&self) -> &str {
        &self.name
    }

    fn attributes(&self) -> Attributes {
        self.attrs
    }

    /// A probe's id is its declaration's place in the file.
    fn id_span(&mut self) -> u32 {
        self.probes.len() as u32
    }

    /// Nothing at first: see `provide_named`.
    fn provide(&mut self, _sink: &mut ProbeSink<'_>) {}

    /// Each probe the kernel can enable, once, the first time a
    /// description could name one: a probe whose every declaration
    /// names a hook the kernel lacks is not there (`why_not` says why),
    /// so that `sched:::` enables what the kernel has.
    fn provide_named(&mut self, sink: &mut ProbeSink<'_>, desc: &ProbeDesc) {
        let could = field_matches(&desc.provider, &self.name)
            && field_matches(&desc.module, "vmlinux")
            && field_matches(&desc.function, "")
            && self
                .probes
                .iter()
                .any(|p| field_matches(&desc.name, &p.name));
        if self.provided || !could {
            return;
        }
        self.provided = true;
        for (_, choice) in self.choices() {
            if let Ok(i) = choice {
                let p = &self.probes[i];
                sink.add_at(i as u32, "vmlinux", "", &p.name, i as u32);
            }
        }
    }

    fn why_not(&self, desc: &ProbeDesc) -> Option<String> {
        self.choices().into_iter().find_map(|(name, choice)| {
            let probe = ProbeDesc::parse(&format!("{}:vmlinux::{}", self.name, name)).ok()?;
            match choice {
                Err(why) if desc.matches(&probe) => Some(why),
                _ => None,
            }
        })
    }

    fn args(&self, local: u32) -> Option<Vec<ArgDesc>> {
        let p = self.probes.get(local as usize)?;
        Some(p.args.iter().map(|(a, _)| a.clone()).collect())
    }

    fn guard(&self, local: u32) -> Vec<(String, u8)> {
        self.probes
            .get(local as usize)
            .map(|p| p.cond.clone())
            .unwrap_or_default()
    }

    fn plan(&self, table: &ProbeTable, enabled: &[Enabled], out: &mut Planned) -> io::Result<()> {
        // Each enabled probe's programs, a program on each hook of each
        // entry of its declaration; then a stash program at each hook an
        // enabled probe fires after, keeping as many words as any of
        // the provider's probes after it reads.
        // (hook, key word, task member kept, words kept)
        type StashAt = (String, u8, Option<(u32, u8)>, u8);
        let mut stashes: Vec<StashAt> = Vec::new();
        let mut programs = Vec::new();
        for e in enabled {
            for p in self.declaration(e.local as usize) {
                for h in self.plan_part(p).map_err(io::Error::other)? {
                    if let Some(a) = &h.after {
                        let nwords = self
                            .probes
                            .iter()
                            .filter(|q| {
                                q.after.as_ref().map(|b| &b.hook)
                                    == p.after.as_ref().map(|b| &b.hook)
                            })
                            .flat_map(|q| {
                                let guards = q.guards.iter().filter(|g| g.stashed).map(|g| g.word);
                                let words = q.args.iter().filter_map(|(_, w)| match w {
                                    RawWord::Stashed(n) => Some(*n),
                                    _ => None,
                                });
                                guards.chain(words).map(|n| n + 1)
                            })
                            .max()
                            .unwrap_or(0);
                        if stashes.iter().all(|s| s.0 != a.hook) {
                            stashes.push((a.hook.clone(), a.key, h.keep, nwords));
                        }
                    }
                    programs.push(PlannedProgram {
                        plan: single(
                            &format!("dt_{}_{}", self.name, p.name.replace('-', "_")),
                            h.kind,
                            ArgContext::RawArgs {
                                words: h.words,
                                guards: h.guards,
                                task: p.task,
                                after: h.after,
                            },
                            Phase::Normal,
                            e.enabling(table, 0),
                            None,
                        ),
                        attach: h.attach,
                    });
                }
            }
        }
        for (hook, key, keep, nwords) in stashes {
            // The key word, unless it is `@none`.
            let key_words = if key < 12 { key + 1 } else { 0 };
            let (kind, attach, _, _) = choose_hook(&hook, nwords.max(key_words), false, &[])
                .ok_or_else(|| {
                    io::Error::other(format!(
                        "{}: this kernel has no {} to keep words at",
                        self.name, hook
                    ))
                })?;
            let name = hook.rsplit(':').next().unwrap_or(&hook).to_string();
            out.programs.push(PlannedProgram {
                plan: dtrace_bpf::plan::ProgramPlan {
                    name: format!("dt_{}_keep_{}", self.name, name),
                    kind,
                    context: ArgContext::Stash {
                        hook,
                        key,
                        nwords,
                        keep,
                    },
                    phase: Phase::Normal,
                    probes: Vec::new(),
                    dispatch: None,
                    tick_gate: None,
                    guard: None,
                    cookie: None,
                },
                attach,
            });
        }
        out.programs.extend(programs);
        Ok(())
    }
}

/// The first of a hook's alternatives (see [`choose_hook`]) with the
/// words probe `p` reads, and its guards there: as written, else with
/// the members of its `else`s in place of guards on words the kernel's
/// hooks do not have (`sched_switch` before 5.18 has no `prev_state`:
/// the task's own is tested).
fn hook_and_guards(
    hook: &str,
    p: &TableProbe,
    words: &[RawWord],
) -> Option<(ProgKind, Attach, Vec<Guard>, String, u8)> {
    let tries = p
        .guard_else
        .iter()
        .map(|(_, alts)| alts.len())
        .max()
        .unwrap_or(0);
    for k in 0..=tries {
        let mut guards = p.guards.clone();
        if k > 0 {
            let btf = kernel_btf().ok()?;
            for (i, alts) in &p.guard_else {
                let (Some(alt), Some(g)) = (alts.get(k - 1), guards.get_mut(*i)) else {
                    continue;
                };
                let Some(load) = alt.resolve_value(&btf) else {
                    continue;
                };
                g.word = alt.word;
                g.load = Some(load);
            }
        }
        let need = words_read(words, &guards, p.task);
        // The words the probe declares as pointers to a struct.
        let typed: Vec<(u8, &str)> = p
            .args
            .iter()
            .zip(words)
            .filter_map(|((a, _), w)| match w {
                RawWord::Hook(n) => {
                    let t = a.native.strip_prefix("struct ")?.strip_suffix('*')?;
                    Some((*n, t.trim()))
                }
                _ => None,
            })
            .collect();
        let ret = guards.iter().any(|g| g.word == RET && !g.stashed)
            || words.iter().any(|w| matches!(w, RawWord::Hook(RET)));
        if let Some((kind, attach, alt, at)) = choose_hook(hook, need, ret, &typed) {
            // A tracing program's words are copied to be tested: the
            // verifier lets none mask a pointer.
            if matches!(kind, ProgKind::Fentry | ProgKind::Fexit) {
                for g in guards.iter_mut().filter(|g| g.load.is_none()) {
                    g.copied = true;
                }
            }
            for g in guards.iter_mut().filter(|g| g.word == RET && !g.stashed) {
                g.word = at;
            }
            return Some((kind, attach, guards, alt, at));
        }
    }
    None
}

/// How many of the hook's words (from the first) a probe's program
/// reads: its arguments', its guards' and its task's.
fn words_read(words: &[RawWord], guards: &[Guard], task: Option<u8>) -> u8 {
    let from_words = words.iter().filter_map(|w| match *w {
        RawWord::Hook(n) | RawWord::HookCopied(n) => Some(n),
        RawWord::Load { word, .. } => Some(word),
        _ => None,
    });
    let from_guards = guards.iter().filter(|g| !g.stashed).map(|g| g.word);
    from_words
        .chain(from_guards)
        .chain(task)
        .filter(|&n| n != NONE && n != RET)
        .map(|n| n + 1)
        .max()
        .unwrap_or(0)
}

/// The first of a hook's alternatives (`a|b`) this kernel has with at
/// least `need` arguments, those of `typed` (word, struct) pointers to
/// that struct (or to void), and which it is: a raw tracepoint (its
/// arguments from the kernel's BTF, `btf_trace_NAME`; assumed where
/// there is no BTF), `fentry:FUNCTION`, a kernel function's entry where
/// fentry is allowed (its context is its arguments as words, as a raw
/// tracepoint's is), or `fexit:FUNCTION`, its return (the arguments,
/// then the return value unless it is void).
/// A tracepoint whose arguments moved (older kernels' `block_rq_issue`
/// had the request queue first) is so not taken for one whose words
/// the probe would misread. With `ret`, only a function's return with
/// a value will do; the index of that word comes last (0 without).
fn choose_hook(
    hook: &str,
    need: u8,
    ret: bool,
    typed: &[(u8, &str)],
) -> Option<(ProgKind, Attach, String, u8)> {
    let btf = kernel_btf().ok();
    // Whether a prototype (after `skip` parameters; with one more word,
    // its return value, for `ret`) has the words wanted.
    let fits = |proto: u32, skip: usize, at_ret: bool| -> Option<bool> {
        let btf = btf.as_ref()?;
        let r = btf.resolve(proto)?;
        let proto = match &btf.get(r)?.data {
            dtrace_sys::btf::TypeData::Ptr(to) => btf.resolve(*to)?,
            _ => r,
        };
        let dtrace_sys::btf::TypeData::FuncProto {
            params, ret: rt, ..
        } = &btf.get(proto)?.data
        else {
            return None;
        };
        let params = params.get(skip..).unwrap_or_default();
        let words = params.len() + usize::from(at_ret && *rt != 0);
        if ret && !(at_ret && *rt != 0) {
            return Some(false);
        }
        // A pointer to another struct is another argument; a `void *`
        // (a lock's address) is whatever the probe says it is.
        let points_to = |ty: u32, name: &str| -> bool {
            let Some(dtrace_sys::btf::TypeData::Ptr(to)) =
                btf.resolve(ty).and_then(|t| btf.get(t)).map(|t| &t.data)
            else {
                return false;
            };
            match btf.resolve(*to).and_then(|t| btf.get(t).map(|x| (t, x))) {
                Some((t, x))
                    if matches!(
                        x.kind(),
                        dtrace_sys::btf::Kind::Struct | dtrace_sys::btf::Kind::Union
                    ) =>
                {
                    btf.type_name(t) == name
                }
                _ => true,
            }
        };
        let word_type = |w: usize| match params.get(w) {
            Some(p) => Some(p.ty),
            None if at_ret && (w == params.len() || w == usize::from(RET)) && *rt != 0 => Some(*rt),
            None => None,
        };
        Some(
            words >= usize::from(need)
                && typed.iter().all(|(w, name)| {
                    word_type(usize::from(*w)).is_some_and(|t| points_to(t, name))
                }),
        )
    };
    for alt in hook.split('|') {
        let function = alt
            .strip_prefix("fentry:")
            .map(|f| (f, ProgKind::Fentry))
            .or_else(|| alt.strip_prefix("fexit:").map(|f| (f, ProgKind::Fexit)));
        if let Some((func, kind)) = function {
            let f = dtrace_sys::features::Features::get();
            if f.lockdown || !f.btf {
                continue;
            }
            let Some(b) = btf.as_ref() else { continue };
            let Some(id) = b.find_func(func) else {
                continue;
            };
            let dtrace_sys::btf::TypeData::Func { proto, .. } = &b.get(id)?.data else {
                continue;
            };
            if fits(*proto, 0, kind == ProgKind::Fexit) == Some(true) {
                let attach = Attach::new(crate::attach::Function {
                    btf_id: id,
                    module: None,
                    optional: false,
                });
                // The return value's word follows the arguments.
                let at = match &b.resolve(*proto).and_then(|t| b.get(t))?.data {
                    dtrace_sys::btf::TypeData::FuncProto { params, .. } => params.len() as u8,
                    _ => 0,
                };
                return Some((kind, attach, alt.to_string(), at));
            }
            continue;
        }
        // The typedef's prototype has the tracepoint's context first.
        let has = match btf.as_ref() {
            None => true,
            Some(b) => match b.find_typedef(&format!("btf_trace_{}", alt)) {
                None => false,
                Some(t) => fits(t, 1, false) != Some(false),
            },
        };
        if has && !ret {
            let attach = Attach::raw_tracepoint(alt);
            return Some((ProgKind::RawTracepoint, attach, alt.to_string(), 0));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_reads_the_words_its_arguments_guards_and_task_name() {
        let g = Guard {
            word: 1,
            stashed: false,
            mask: 1,
            value: 1,
            eq: true,
            load: None,
            copied: false,
        };
        assert_eq!(words_read(&[RawWord::Hook(0)], &[g], None), 2);
        assert_eq!(words_read(&[RawWord::Const(1)], &[], Some(2)), 3);
        assert_eq!(words_read(&[RawWord::Hook(NONE)], &[], None), 0);
        let stashed = Guard { stashed: true, ..g };
        assert_eq!(words_read(&[], &[stashed], None), 0);
    }

    #[test]
    fn a_hook_is_the_first_alternative_the_kernel_has() {
        // Needs the running kernel's BTF.
        let Ok(btf) = kernel_btf() else {
            return;
        };
        assert!(choose_hook("no_such_tracepoint|fentry:no_such_function", 1, false, &[]).is_none());
        // A tracepoint of two words is not enough for three.
        if btf.find_typedef("btf_trace_sched_switch").is_some() {
            let (kind, _, alt, _) = choose_hook("no_such_tracepoint|sched_switch", 1, false, &[])
                .expect("sched_switch");
            assert_eq!(alt, "sched_switch");
            assert_eq!(kind, ProgKind::RawTracepoint);
            assert!(choose_hook("sched_switch", 12, false, &[]).is_none());
            // A tracepoint has no return value.
            assert!(choose_hook("sched_switch", 1, true, &[]).is_none());
        }
    }

    #[test]
    fn a_guard_may_fall_back_to_members_where_no_hook_has_its_word() {
        let p = TableProvider::parse(
            "t",
            "provider t\nprobe x sched_switch\nwhen @3 else @1:task_struct->__state else @1:task_struct->state\n",
        )
        .unwrap();
        let alts = &p.probes[0].guard_else;
        assert_eq!(alts.len(), 1);
        assert_eq!(alts[0].0, 0);
        let names: Vec<&str> = alts[0].1.iter().map(|m| m.ptr.as_str()).collect();
        assert_eq!(names, ["__state", "state"]);
        assert!(
            TableProvider::parse("t", "provider t\nprobe x h\nwhen @3 else nonsense\n").is_err()
        );
        // On a kernel with prev_state, the guard stays on word 3; without,
        // on the task's state, read through word 1.
        let Ok(btf) = kernel_btf() else {
            return;
        };
        if btf.find_typedef("btf_trace_sched_switch").is_some() {
            let (_, _, guards, _, _) =
                hook_and_guards("sched_switch", &p.probes[0], &[]).expect("sched_switch");
            match guards[0].load {
                None => assert_eq!(guards[0].word, 3),
                Some((_, size)) => {
                    assert_eq!(guards[0].word, 1);
                    assert!(size == 4 || size == 8);
                }
            }
        }
    }

    #[test]
    fn every_shipped_probe_finds_its_hooks_with_the_types_it_declares() {
        // On this machine's kernel, which the tables are written for:
        // a probe whose hook the kernel has (by its name alone) also
        // takes it with the struct pointers the probe's words declare.
        let Ok(btf) = kernel_btf() else {
            return;
        };
        for (file, text) in TABLES {
            let t = TableProvider::parse(file, text).unwrap();
            for p in &t.probes {
                let words: Vec<RawWord> = p.args.iter().map(|(_, w)| *w).collect();
                for hook in &p.hooks {
                    let named = hook
                        .split('|')
                        .any(|alt| btf.find_typedef(&format!("btf_trace_{}", alt)).is_some());
                    if named {
                        assert!(
                            hook_and_guards(hook, p, &words).is_some(),
                            "{}: {} at {}",
                            file,
                            p.name,
                            hook
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_probe_is_its_first_declaration_the_kernel_can_enable() {
        let t = TableProvider::parse(
            "t",
            "provider t\nprobe x no_such_tracepoint\nprobe x sched_switch\n\
             also sched_wakeup\nprobe y no_such_tracepoint\n",
        )
        .unwrap();
        assert_eq!(t.declaration(1).count(), 2);
        assert_eq!(t.declaration(0).count(), 1);
        // Needs the running kernel's BTF.
        let Ok(btf) = kernel_btf() else {
            return;
        };
        if btf.find_typedef("btf_trace_sched_switch").is_none() {
            return;
        }
        let c = t.choices();
        assert_eq!(c.len(), 2);
        assert_eq!(c[0], ("x", Ok(1)));
        assert_eq!(c[1].0, "y");
        let why = t.why_not(&ProbeDesc::parse("t:::y").unwrap()).unwrap();
        assert!(
            why.contains("probe t:vmlinux::y cannot be enabled"),
            "{}",
            why
        );
        assert!(t.why_not(&ProbeDesc::parse("t:::x").unwrap()).is_none());
    }

    #[test]
    fn a_return_and_its_entry_are_declared_for_any_kernel() {
        let p = TableProvider::parse(
            "t",
            "provider t\nprobe x fexit:f fexit:g\nafter entry @0 keep curthread->nvcsw\n\
             when curthread->nvcsw changed\nunless @ret & 0xf000 == 0xf000\narg int @ret\n\
             also fexit:h\nafter entry @0 keep curthread->nvcsw\nunless curthread->nvcsw changed\n",
        )
        .unwrap();
        let (x, h) = (&p.probes[0], &p.probes[1]);
        assert_eq!(
            x.after.as_ref().map(|a| (a.hook.as_str(), a.key)),
            Some(("entry", 0))
        );
        assert_eq!(x.keep.as_deref(), Some("nvcsw"));
        assert_eq!((x.kept_changed, h.kept_changed), (Some(true), Some(false)));
        assert_eq!((x.also, h.also, h.name.as_str()), (false, true, "x"));
        assert_eq!(
            (x.guards[0].word, x.guards[0].mask, x.guards[0].value),
            (RET, 0xf000, 0xf000)
        );
        assert!(!x.guards[0].eq);
        assert_eq!(x.args[0].1, RawWord::Hook(RET));
        // @ret is no word a program must have before it is chosen.
        assert_eq!(words_read(&[RawWord::Hook(RET)], &x.guards, None), 0);
        for (text, want) in [
            ("provider t\nalso h\n", "t:2: also before any probe"),
            (
                "provider t\nprobe x h\nwhen curthread->nvcsw changed\n",
                "t:3: curthread->MEMBER changed: the member the after line keeps",
            ),
            (
                "provider t\nprobe x h\nafter g @0 keep nvcsw\n",
                "t:3: after HOOK @KEY [keep curthread->MEMBER]",
            ),
            (
                "provider t\nprobe x fexit:f\nafter entry @0\nprobe y fexit:f\nafter entry @1\n",
                "t: probes fire after fentry:f with different keys or kept members",
            ),
        ] {
            assert_eq!(TableProvider::parse("t", text), Err(want.to_string()));
        }
        // A function with no argument: any of the thread's entries.
        let p = TableProvider::parse(
            "t",
            "provider t\nprobe x fexit:schedule\nafter entry @none keep curthread->sched_info.pcount\n\
             unless curthread->sched_info.pcount changed\n",
        )
        .unwrap();
        let x = &p.probes[0];
        assert_eq!(x.after.as_ref().map(|a| a.key), Some(NONE));
        assert_eq!(x.keep.as_deref(), Some("sched_info.pcount"));
        assert_eq!(x.kept_changed, Some(false));
        let p =
            TableProvider::parse("t", "provider t\nprobe x h\nfeature lock_tracepoints\n").unwrap();
        assert_eq!(p.probes[0].feature.as_deref(), Some("lock_tracepoints"));
        // Different functions' entries are different stashes.
        assert!(TableProvider::parse(
            "t",
            "provider t\nprobe x fexit:f\nafter entry @0\nprobe y fexit:g\nafter entry @1\n",
        )
        .is_ok());
    }

    #[test]
    fn the_shipped_tables_parse() {
        for (file, text) in TABLES {
            let p = TableProvider::parse(file, text).unwrap_or_else(|e| panic!("{}", e));
            assert!(!p.probes.is_empty(), "{}", file);
        }
    }

    #[test]
    fn lines_are_checked() {
        let p = TableProvider::parse(
            "t",
            "provider t\nattributes Stable/Stable/Common Private/Private/Unknown Private/Private/Unknown \
             Stable/Stable/Common Evolving/Evolving/ISA\n\
             probe fire some_hook\narg struct task_struct * @1 -> psinfo_t *\narg int @0\n",
        )
        .unwrap();
        assert_eq!(p.attrs.provider, Attr::STABLE);
        assert_eq!(p.attrs.module, Attr::PRIVATE);
        assert_eq!(p.attrs.args.to_string(), "Evolving/Evolving/ISA");
        let a = &p.probes[0].args;
        assert_eq!(a[0].0.native, "struct task_struct *");
        assert_eq!(a[0].0.xlate.as_deref(), Some("psinfo_t *"));
        assert_eq!((a[0].1, a[1].1), (RawWord::Hook(1), RawWord::Hook(0)));
        let p = TableProvider::parse(
            "t",
            "provider t\nprobe two h1 h2\narg uint64_t =1\narg int @none\n",
        )
        .unwrap();
        assert_eq!(p.probes[0].hooks, ["h1", "h2"]);
        let a = &p.probes[0].args;
        assert_eq!((a[0].1, a[1].1), (RawWord::Const(1), RawWord::Const(0)));
        let p = TableProvider::parse(
            "t",
            "provider t\nprobe x h\nwhen @1 & 0x10000\nunless @2\nwhen @0 == 3\n",
        )
        .unwrap();
        let g = |word, mask, value, eq| Guard {
            word,
            stashed: false,
            mask,
            value,
            eq,
            load: None,
            copied: false,
        };
        assert_eq!(
            p.probes[0].guards,
            vec![
                g(1, 0x10000, 0, false),
                g(2, u64::MAX, 0, true),
                g(0, u64::MAX, 3, true)
            ]
        );
        assert_eq!(p.probes[0].task, None);
        let p = TableProvider::parse("t", "provider t\nprobe on h\ntask @2\n").unwrap();
        assert_eq!(p.probes[0].task, Some(2));
        let p = TableProvider::parse("t", "provider t\nprobe x h\nif is_it arg2\n").unwrap();
        assert_eq!(p.probes[0].cond, vec![("is_it".to_string(), 2)]);
        let p = TableProvider::parse(
            "t",
            "provider t\nprobe x h\narg int @1\narg void * @0:sk_buff->head+network_header\n",
        )
        .unwrap();
        assert_eq!(
            p.probes[0].loads,
            vec![(
                1,
                MemberLoad {
                    word: 0,
                    strct: "sk_buff".into(),
                    ptr: "head".into(),
                    add: Some("network_header".into())
                }
            )]
        );
        let p = TableProvider::parse("t", "provider t\nprobe x h\narg int @0 via why\n").unwrap();
        let a = &p.probes[0].args[0];
        assert_eq!(
            (a.0.native.as_str(), a.0.via.as_deref()),
            ("int", Some("why"))
        );
        for (text, want) in [
            ("provider t\narg int @0\n", "t:2: arg before any probe"),
            ("provider t\nprobe x\n", "t:2: probe NAME HOOK [HOOK ...]"),
            (
                "provider t\nprobe x h\narg int =y\n",
                "t:3: =VALUE: an integer",
            ),
            (
                "provider t\nprobe x h\narg int @12\n",
                "t:3: @WORD: a hook argument from 0 to 11",
            ),
            ("provider t\nbogus\n", "t:2: unknown line: bogus"),
            ("provider t\nprobe x h\nif f @0\n", "t:3: if INLINE argN"),
            (
                "provider t\nprobe x h\narg int @0:->x\n",
                "t:3: @WORD:STRUCT->MEMBER[+MEMBER]",
            ),
            (
                "provider t\nprobe x h\narg int @0 -> a via b\n",
                "t:3: arg: -> TYPE or via INLINE, not both",
            ),
            ("provider t\ntask @2\n", "t:2: task before any probe"),
            (
                "provider t\nprobe x h\ntask @none\n",
                "t:3: task @WORD: a hook argument from 0 to 11",
            ),
            ("probe x h\n", "t: no provider line"),
            (
                "provider t\nprobe x h\nfeature nonsense\n",
                "t:3: feature NAME: a kernel feature's name",
            ),
        ] {
            assert_eq!(TableProvider::parse("t", text), Err(want.to_string()));
        }
    }
}
