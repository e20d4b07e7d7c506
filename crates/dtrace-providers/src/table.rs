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
//! attributes NAMES DATA CLASS NAMES DATA CLASS   (probes, then arguments)
//! probe NAME HOOK [HOOK ...]                    (HOOK: a raw tracepoint)
//! when @WORD [& MASK] | unless @WORD [& MASK]   (fires only if nonzero | zero)
//! when @WORD == VALUE | unless @WORD == VALUE   (fires only if equal | not)
//! when @WORD else @W:STRUCT->MEMBER ...        (the member where no hook has WORD)
//! arg NATIVE-TYPE @WORD [-> TRANSLATED-TYPE]    (args[N], in order)
//! arg NATIVE-TYPE @WORD via INLINE              (computed by a D inline)
//! arg NATIVE-TYPE =VALUE                        (a constant argument)
//! task @WORD                                    (fires on behalf of that task)
//! after HOOK @KEY                               (fires after HOOK, see below)
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
//! lockstat's `contention_begin` then `contention_end` for one lock);
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

use std::io;

use dtrace_bpf::plan::{After, ArgContext, Guard, Phase, ProgKind, RawWord, STASH_WORDS};

use crate::{
    single, ArgDesc, Attach, Attributes, Enabled, Planned, PlannedProgram, ProbeSink, ProbeTable,
    Provider,
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
        let (ptr, _) = btf
            .member_path(&self.strct, &self.ptr)
            .ok_or_else(|| missing(&self.ptr))?;
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
}

const STABILITY: &[&str] = &[
    "Internal", "Private", "Obsolete", "External", "Unstable", "Evolving", "Stable", "Standard",
];
const CLASS: &[&str] = &["Unknown", "CPU", "Platform", "Group", "ISA", "Common"];

fn word(list: &[&'static str], w: &str) -> Option<&'static str> {
    list.iter().copied().find(|x| *x == w)
}

impl TableProvider {
    /// Parses a provider's file; the error names the line.
    pub fn parse(file: &str, text: &str) -> Result<TableProvider, String> {
        let mut p = TableProvider {
            name: String::new(),
            attrs: Attributes {
                probe: ("Evolving", "Evolving", "ISA"),
                args: ("Evolving", "Evolving", "ISA"),
            },
            probes: Vec::new(),
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
                    let get = |i: usize, l: &[&'static str]| {
                        w.get(i)
                            .and_then(|x| word(l, x))
                            .ok_or_else(|| bad("attributes: six stability and class words"))
                    };
                    p.attrs = Attributes {
                        probe: (get(0, STABILITY)?, get(1, STABILITY)?, get(2, CLASS)?),
                        args: (get(3, STABILITY)?, get(4, STABILITY)?, get(5, CLASS)?),
                    };
                }
                "probe" => {
                    let mut w = rest.split_whitespace();
                    let name = w.next();
                    let hooks: Vec<String> = w.map(str::to_string).collect();
                    let (Some(name), false) = (name, hooks.is_empty()) else {
                        return Err(bad("probe NAME HOOK [HOOK ...]"));
                    };
                    p.probes.push(TableProbe {
                        name: name.to_string(),
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
                "when" | "unless" => {
                    // `@N`, `@N & MASK` (nonzero) or `@N == VALUE`; then
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
                        (w, u64::MAX, v, true)
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
                    });
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
                    let mut w = rest.split_whitespace();
                    let (Some(hook), Some(key), None) =
                        (w.next(), w.next().and_then(hook_word), w.next())
                    else {
                        return Err(bad("after HOOK @KEY"));
                    };
                    if key == NONE {
                        return Err(bad("after HOOK @KEY"));
                    }
                    let probe = p
                        .probes
                        .last_mut()
                        .ok_or_else(|| bad("after before any probe"))?;
                    probe.after = Some(After {
                        hook: hook.to_string(),
                        key,
                    });
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
        // One stash program serves a hook: its probes must agree on the key.
        for a in p.probes.iter().filter_map(|x| x.after.as_ref()) {
            if p.probes
                .iter()
                .filter_map(|x| x.after.as_ref())
                .any(|b| b.hook == a.hook && b.key != a.key)
            {
                return Err(format!(
                    "{}: probes fire after {} with different keys",
                    file, a.hook
                ));
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
    if w == "none" {
        return Some(NONE);
    }
    w.parse().ok().filter(|w| *w < 12)
}

/// The word index of an argument that is always 0 (`@none`: io's
/// `fileinfo_t` when the kernel does not say which file).
pub const NONE: u8 = u8::MAX;

impl Provider for TableProvider {
    fn name(&self) -> &str {
        &self.name
    }

    fn attributes(&self) -> Attributes {
        self.attrs
    }

    fn provide(&mut self, sink: &mut ProbeSink<'_>) {
        for (i, p) in self.probes.iter().enumerate() {
            sink.add("vmlinux", "", &p.name, i as u32);
        }
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
        // A stash program at each hook an enabled probe fires after,
        // keeping as many words as any of the provider's probes reads.
        let mut stashes: Vec<&After> = Vec::new();
        for e in enabled {
            if let Some(a) = self
                .probes
                .get(e.local as usize)
                .and_then(|p| p.after.as_ref())
            {
                if stashes.iter().all(|b| b.hook != a.hook) {
                    stashes.push(a);
                }
            }
        }
        for a in stashes {
            let nwords = self
                .probes
                .iter()
                .filter(|p| p.after.as_ref().is_some_and(|b| b.hook == a.hook))
                .flat_map(|p| {
                    let guards = p.guards.iter().filter(|g| g.stashed).map(|g| g.word);
                    let words = p.args.iter().filter_map(|(_, w)| match w {
                        RawWord::Stashed(n) => Some(*n),
                        _ => None,
                    });
                    guards.chain(words).map(|n| n + 1)
                })
                .max()
                .unwrap_or(0);
            out.programs.push(PlannedProgram {
                plan: dtrace_bpf::plan::ProgramPlan {
                    name: format!("dt_{}_keep_{}", self.name, a.hook),
                    kind: ProgKind::RawTracepoint,
                    context: ArgContext::Stash {
                        hook: a.hook.clone(),
                        key: a.key,
                        nwords,
                    },
                    phase: Phase::Normal,
                    probes: Vec::new(),
                    dispatch: None,
                    tick_gate: None,
                    guard: None,
                    cookie: None,
                },
                attach: Attach::raw_tracepoint(&a.hook),
            });
        }
        for e in enabled {
            let Some(p) = self.probes.get(e.local as usize) else {
                continue;
            };
            // Arguments read through a hook word, offsets from BTF.
            let mut words: Vec<RawWord> = p.args.iter().map(|(_, w)| *w).collect();
            for (i, load) in &p.loads {
                let w = kernel_btf()
                    .and_then(|btf| load.resolve(&btf))
                    .map_err(|e| {
                        io::Error::other(format!(
                            "probe {}:vmlinux::{} cannot be enabled: {}",
                            self.name, p.name, e
                        ))
                    })?;
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
            // A program on each hook, serving the probe alike.
            for hook in &p.hooks {
                let (kind, attach, guards) = hook_and_guards(hook, p, &words).ok_or_else(|| {
                    let need = words_read(&words, &p.guards, p.task);
                    io::Error::other(format!(
                        "probe {}:vmlinux::{} cannot be enabled: this kernel has none of its hooks ({}) with the {} arguments it reads, of the types it declares",
                        self.name, p.name, hook, need
                    ))
                })?;
                out.programs.push(PlannedProgram {
                    plan: single(
                        &format!("dt_{}_{}", self.name, p.name.replace('-', "_")),
                        kind,
                        ArgContext::RawArgs {
                            words: words.clone(),
                            guards,
                            task: p.task,
                            after: p.after.clone(),
                        },
                        Phase::Normal,
                        e.enabling(table, 0),
                        None,
                    ),
                    attach,
                });
            }
        }
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
) -> Option<(ProgKind, Attach, Vec<Guard>)> {
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
        if let Some((kind, attach)) = choose_hook(hook, need, &typed) {
            return Some((kind, attach, guards));
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
        .filter(|&n| n != NONE)
        .map(|n| n + 1)
        .max()
        .unwrap_or(0)
}

/// The first of a hook's alternatives (`a|b`) this kernel has with at
/// least `need` arguments, those of `typed` (word, struct) pointers to
/// that struct (or to void): a raw tracepoint (its arguments from the kernel's BTF,
/// `btf_trace_NAME`; assumed where there is no BTF), or
/// `fentry:FUNCTION`, a kernel function's entry where fentry is allowed
/// (its context is its arguments as words, as a raw tracepoint's is).
/// A tracepoint whose arguments moved (older kernels' `block_rq_issue`
/// had the request queue first) is so not taken for one whose words
/// the probe would misread.
fn choose_hook(hook: &str, need: u8, typed: &[(u8, &str)]) -> Option<(ProgKind, Attach)> {
    let btf = kernel_btf().ok();
    let fits = |proto: u32, skip: usize| -> Option<bool> {
        let btf = btf.as_ref()?;
        let r = btf.resolve(proto)?;
        let proto = match &btf.get(r)?.data {
            dtrace_sys::btf::TypeData::Ptr(to) => btf.resolve(*to)?,
            _ => r,
        };
        let dtrace_sys::btf::TypeData::FuncProto { params, .. } = &btf.get(proto)?.data else {
            return None;
        };
        let params = params.get(skip..).unwrap_or_default();
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
        Some(
            params.len() >= usize::from(need)
                && typed.iter().all(|(w, name)| {
                    params
                        .get(usize::from(*w))
                        .is_some_and(|p| points_to(p.ty, name))
                }),
        )
    };
    for alt in hook.split('|') {
        if let Some(func) = alt.strip_prefix("fentry:") {
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
            if fits(*proto, 0) == Some(true) {
                let attach = Attach::new(crate::attach::Function {
                    btf_id: id,
                    module: None,
                    optional: false,
                });
                return Some((ProgKind::Fentry, attach));
            }
            continue;
        }
        // The typedef's prototype has the tracepoint's context first.
        let has = match btf.as_ref() {
            None => true,
            Some(b) => match b.find_typedef(&format!("btf_trace_{}", alt)) {
                None => false,
                Some(t) => fits(t, 1) != Some(false),
            },
        };
        if has {
            return Some((ProgKind::RawTracepoint, Attach::raw_tracepoint(alt)));
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
        assert!(choose_hook("no_such_tracepoint|fentry:no_such_function", 1, &[]).is_none());
        // A tracepoint of two words is not enough for three.
        if btf.find_typedef("btf_trace_sched_switch").is_some() {
            let (kind, _) =
                choose_hook("no_such_tracepoint|sched_switch", 1, &[]).expect("sched_switch");
            assert_eq!(kind, ProgKind::RawTracepoint);
            assert!(choose_hook("sched_switch", 12, &[]).is_none());
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
            let (_, _, guards) =
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
            "provider t\nattributes Stable Stable Common Evolving Evolving ISA\n\
             probe fire some_hook\narg struct task_struct * @1 -> psinfo_t *\narg int @0\n",
        )
        .unwrap();
        assert_eq!(p.attrs.probe, ("Stable", "Stable", "Common"));
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
        ] {
            assert_eq!(TableProvider::parse("t", text), Err(want.to_string()));
        }
    }
}
