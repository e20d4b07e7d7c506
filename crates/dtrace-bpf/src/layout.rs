//! Memory layouts decided at compile time: string capacities, the per-CPU
//! scratch area, global variable storage, tuple keys, and the record each
//! clause leaves in the principal buffer. All pure functions of the checked
//! program, so every program built from it agrees on them.

use dtrace_lang::ir::*;
use dtrace_lang::types::{Type, TypeTable};

use crate::plan::{
    ActionLayout, ClauseLayout, KeyField, RecordedAction, StmtKind, Value, RECORD_HEADER,
};

/// Capacities (buffer sizes, NUL included) of strings whose size does not
/// come from the expression itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// A string's buffer: `strsize` characters and a NUL, as DTrace
    /// records a string of up to `strsize` characters.
    pub strsize: u32,
    pub provider: u32,
    pub module: u32,
    pub function: u32,
    pub name: u32,
}

/// `TASK_COMM_LEN`: the size of `execname`.
pub const COMM_LEN: u32 = 16;

pub fn round8(x: u32) -> u32 {
    (x + 7) & !7
}

fn const_str_len(s: &[u8]) -> u32 {
    s.iter().position(|&c| c == 0).unwrap_or(s.len()) as u32
}

/// The buffer size a string expression needs.
pub fn str_cap(e: &CExpr, caps: &Caps) -> u32 {
    match &e.kind {
        CKind::Str(s) => (const_str_len(s) + 1).min(caps.strsize),
        CKind::Builtin(Builtin::Execname) => COMM_LEN,
        CKind::Builtin(Builtin::Probeprov) => caps.provider,
        CKind::Builtin(Builtin::Probemod) => caps.module,
        CKind::Builtin(Builtin::Probefunc) => caps.function,
        CKind::Builtin(Builtin::Probename) => caps.name,
        CKind::Copyinstr(_, Some(n)) => match n.kind {
            CKind::Int(v) if v > 0 => (v as u32).min(caps.strsize),
            _ => caps.strsize,
        },
        CKind::Ternary(_, a, b) => str_cap(a, caps).max(str_cap(b, caps)),
        _ => caps.strsize,
    }
}

/// Fixed fields at the start of each per-CPU scratch element.
pub mod scratch {
    /// arg0..arg9 of the firing probe.
    pub const ARGS: u32 = 0;
    /// arg0..arg9 as the ERROR probe sees them.
    pub const ERR_ARGS: u32 = 80;
    pub const ERRNO: u32 = 160;
    pub const EPID: u32 = 168;
    pub const FAULT_TYPE: u32 = 176;
    pub const FAULT_ADDR: u32 = 184;
    pub const FAULT_ACTION: u32 = 192;
    /// 8 bytes for values read from kernel memory.
    pub const TMP: u32 = 200;
    /// 72 bytes: pt_regs from r10 to orig_ax, for raw system call hooks.
    pub const REGS: u32 = 208;
    /// A probe that fires after another hook: the time, words and task
    /// member kept there (`16 + 8 * STASH_WORDS` bytes). It shares `REGS`: such a probe
    /// is on a raw tracepoint, never a raw system call hook.
    pub const STASH: u32 = REGS;
    pub const FIXED_END: u32 = 280;
}

/// x86-64 `struct pt_regs` offsets, relative to `r10` (the first register
/// read into `scratch::REGS`).
pub mod regs {
    pub const BASE: u32 = 56;
    pub const R10: u32 = 0;
    pub const R9: u32 = 8;
    pub const R8: u32 = 16;
    pub const DX: u32 = 40;
    pub const SI: u32 = 48;
    pub const DI: u32 = 56;
    pub const ORIG_AX: u32 = 64;
    pub const LEN: u32 = 72;
    /// `ip` within a full `pt_regs` (the perf event context).
    pub const IP_FULL: u32 = 128;
    /// Offsets in the whole `struct pt_regs` (a uprobe's context): the
    /// argument registers in order, the return value, the stack pointer.
    pub const ARGS_FULL: [u32; 6] = [112, 104, 96, 88, 72, 64];
    pub const AX_FULL: u32 = 80;
    pub const SP_FULL: u32 = 152;
}

/// Where each variable of a scope lives: byte offset and stored size.
#[derive(Clone, Debug, Default)]
pub struct VarSlots {
    pub slots: Vec<(u32, u32)>,
    pub size: u32,
}

/// Storage size of a value of type `t`: integers, floats and doubles
/// take 8 bytes (stored normalised, or as their bits), strings `strsize`,
/// by-reference values (structs, unions, arrays, `long double`) their
/// size, each rounded up to 8.
pub fn stored_size(t: &Type, strsize: u32, types: &TypeTable) -> u32 {
    match t.resolved() {
        Type::String => round8(strsize),
        _ if t.is_by_ref() => by_ref_size(t, types),
        _ => 8,
    }
}

/// The size of a by-reference value (its type's size, checked when the
/// program was; 8 if somehow unknown), rounded up to 8.
pub fn by_ref_size(t: &Type, types: &TypeTable) -> u32 {
    let size = types
        .known_size(t)
        .unwrap_or(8)
        .clamp(1, u64::from(u32::MAX / 2));
    round8(size as u32)
}

pub fn var_slots(vars: &[VarInfo], base: u32, strsize: u32, types: &TypeTable) -> VarSlots {
    let mut off = base;
    let mut slots = Vec::new();
    for v in vars {
        let size = stored_size(&v.ty, strsize, types);
        slots.push((off, size));
        off += size;
    }
    VarSlots {
        slots,
        size: off - base,
    }
}

/// Lays out a tuple: integers in 8-byte words, strings in their capacity
/// rounded up to 8, structs, unions and arrays in their size rounded up
/// to 8. A tuple without elements still has an 8-byte key.
pub fn tuple_layout(types: &[Type], str_caps: &[u32], table: &TypeTable) -> (Vec<KeyField>, u32) {
    let mut off = 0;
    let mut fields = Vec::new();
    for (i, t) in types.iter().enumerate() {
        let size = match t {
            _ if t.is_string() => round8(str_caps.get(i).copied().unwrap_or(8).max(1)),
            _ if t.is_by_ref() => by_ref_size(t, table),
            _ => 8,
        };
        fields.push(KeyField {
            offset: off,
            size,
            ty: t.clone(),
        });
        off += size;
    }
    (fields, off.max(8))
}

/// The record a clause writes, in statement order.
/// `funcs` are the aggregations' functions, by id (a streamed
/// aggregation's update is part of the record).
pub fn clause_layout(
    c: &CClause,
    caps: &Caps,
    types: &TypeTable,
    funcs: &[AggFunc],
) -> ClauseLayout {
    if !c.records() {
        return ClauseLayout::default();
    }
    let mut b = LayoutBuilder {
        caps,
        types,
        funcs,
        off: RECORD_HEADER,
        actions: Vec::new(),
        started: !c.speculative(),
    };
    b.stmts(&c.stmts, false);
    ClauseLayout {
        size: b.off,
        actions: b.actions,
    }
}

struct LayoutBuilder<'a> {
    caps: &'a Caps,
    types: &'a TypeTable,
    funcs: &'a [AggFunc],
    off: u32,
    actions: Vec<RecordedAction>,
    /// Whether the record has begun: from the start, or in a speculative
    /// clause from its speculate() (the statements before it are not
    /// part of the record).
    started: bool,
}

impl LayoutBuilder<'_> {
    fn value(&mut self, e: &CExpr) -> Value {
        match &e.kind {
            // A by-reference value is its address, even a constant one:
            // its bytes are recorded.
            _ if e.ty.is_by_ref() => {
                let size = self.types.known_size(&e.ty).unwrap_or(0) as u32;
                let v = Value::Bytes {
                    offset: self.off,
                    size,
                    ty: e.ty.clone(),
                };
                self.off += round8(size);
                v
            }
            CKind::Int(v) => Value::ConstInt {
                value: *v,
                ty: e.ty.clone(),
            },
            // A constant is a string as any other: `strsize` characters
            // at most.
            CKind::Str(s) => {
                let len = const_str_len(s).min(self.caps.strsize.saturating_sub(1));
                Value::ConstStr(s[..len as usize].to_vec())
            }
            _ if e.ty.is_string() => {
                let size = str_cap(e, self.caps);
                let v = Value::Str {
                    offset: self.off,
                    size,
                };
                self.off += round8(size);
                v
            }
            _ => {
                let v = Value::Int {
                    offset: self.off,
                    ty: e.ty.clone(),
                };
                self.off += 8;
                v
            }
        }
    }

    fn push(&mut self, action: ActionLayout, cond: bool, index: u32, flag: Option<u32>) {
        let _ = cond;
        self.actions.push(RecordedAction {
            action,
            ran_flag: flag,
            index,
        });
    }

    /// A statement that records nothing: a record of size 0 once the
    /// record has begun (with a flag saying whether it ran, under an
    /// `if`).
    fn statement(&mut self, kind: StmtKind, cond: bool, index: u32) {
        if self.started {
            let f = self.flag(cond);
            self.push(ActionLayout::Statement(kind), cond, index, f);
        }
    }

    fn flag(&mut self, cond: bool) -> Option<u32> {
        if cond {
            let f = self.off;
            self.off += 8;
            Some(f)
        } else {
            None
        }
    }

    fn stmts(&mut self, stmts: &[CStmt], cond: bool) {
        for s in stmts {
            match s {
                // A streamed aggregation's update is a record: its keys
                // and its words.
                CStmt::AggUpdate {
                    agg, keys, action, ..
                } if s.records() => {
                    let f = self.flag(cond);
                    let keys = keys.iter().map(|k| self.value(k)).collect();
                    let words = self.off;
                    let func = self.funcs.get(*agg).copied().unwrap_or(AggFunc::Count);
                    self.off += crate::aggs::value_size(func);
                    self.push(
                        ActionLayout::AggUpdate {
                            agg: *agg,
                            keys,
                            words,
                        },
                        cond,
                        *action,
                        f,
                    );
                }
                // Other aggregations are not part of the record (as in
                // DTrace, whose enabled probe descriptions leave them
                // out), nor are commit() and discard(), which cannot
                // share a clause with one.
                CStmt::AggUpdate { .. } | CStmt::Commit(..) | CStmt::Discard(..) => {}
                CStmt::Speculate(..) => self.started = true,
                CStmt::Eval(_, a) => self.statement(StmtKind::Expr, cond, *a),
                CStmt::Raise(_, a) => self.statement(StmtKind::Raise, cond, *a),
                CStmt::Chill(_, a) => self.statement(StmtKind::Chill, cond, *a),
                CStmt::Copyout { action, .. } => self.statement(StmtKind::Copyout, cond, *action),
                CStmt::Ftruncate(a) => {
                    let f = self.flag(cond);
                    self.push(ActionLayout::Ftruncate, cond, *a, f);
                }
                CStmt::Trace(e, a) => {
                    let f = self.flag(cond);
                    let v = self.value(e);
                    self.push(ActionLayout::Trace(v), cond, *a, f);
                }
                CStmt::Printf {
                    format,
                    args,
                    action,
                    kind,
                    ..
                } => {
                    let f = self.flag(cond);
                    let vals = args.iter().map(|a| self.value(a)).collect();
                    self.push(
                        ActionLayout::Printf {
                            format: format.clone(),
                            args: vals,
                            kind: *kind,
                        },
                        cond,
                        *action,
                        f,
                    );
                }
                CStmt::Exit(e, a) => {
                    let f = self.flag(cond);
                    let v = self.value(e);
                    self.push(ActionLayout::Exit(v), cond, *a, f);
                }
                CStmt::Printa {
                    format,
                    aggs,
                    action,
                    ..
                } => {
                    let f = self.flag(cond);
                    self.push(
                        ActionLayout::Printa {
                            format: format.clone(),
                            aggs: aggs.clone(),
                        },
                        cond,
                        *action,
                        f,
                    );
                }
                CStmt::Clear(agg, a) => {
                    let f = self.flag(cond);
                    self.push(ActionLayout::Clear(*agg), cond, *a, f);
                }
                CStmt::Trunc(agg, n, a) => {
                    let f = self.flag(cond);
                    let v = n.as_ref().map(|n| self.value(n));
                    self.push(ActionLayout::Trunc(*agg, v), cond, *a, f);
                }
                CStmt::Normalize(agg, n, a) => {
                    let f = self.flag(cond);
                    let v = n.as_ref().map(|n| self.value(n));
                    self.push(ActionLayout::Normalize(*agg, v), cond, *a, f);
                }
                CStmt::Print(e, a) => {
                    let f = self.flag(cond);
                    let v = self.value(e);
                    self.push(ActionLayout::Print(v), cond, *a, f);
                }
                CStmt::Tracemem {
                    data,
                    dsize,
                    action,
                } => {
                    let f = self.flag(cond);
                    let v = self.value(data);
                    let d = dsize.as_ref().map(|d| self.value(d));
                    self.push(ActionLayout::Tracemem(v, d), cond, *action, f);
                }
                CStmt::Setopt {
                    name,
                    value,
                    action,
                } => {
                    let f = self.flag(cond);
                    let n = self.value(name);
                    let v = value.as_ref().map(|v| self.value(v));
                    self.push(ActionLayout::Setopt(n, v), cond, *action, f);
                }
                CStmt::If { then, els, .. } => {
                    self.stmts(then, true);
                    self.stmts(els, true);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dtrace_lang::{compile, MacroEnv, Source, Symbols};

    fn caps() -> Caps {
        Caps {
            strsize: 256,
            provider: 8,
            module: 8,
            function: 24,
            name: 8,
        }
    }

    fn clauses(src: &str) -> Vec<CClause> {
        let mut syms = Symbols::default();
        let mut n = 0;
        compile(
            src,
            Source::CommandLine,
            &MacroEnv::default(),
            &mut syms,
            &mut n,
        )
        .unwrap()
        .clauses
    }

    #[test]
    fn records_values_after_the_header_and_folds_constants() {
        let c = &clauses(
            "BEGIN { x = 1; trace(x); printf(\"%s %d\\n\", execname, 42); trace(\"k\"); }",
        )[0];
        let l = clause_layout(c, &caps(), &TypeTable::default(), &[]);
        assert_eq!(l.size, RECORD_HEADER + 8 + 16);
        // The assignment is a record of size 0, as DTrace's.
        assert_eq!(l.actions.len(), 4);
        assert_eq!(l.actions[0].action, ActionLayout::Statement(StmtKind::Expr));
        assert_eq!((l.actions[0].index, l.actions[0].ran_flag), (1, None));
        let l = ClauseLayout {
            size: l.size,
            actions: l.actions[1..].to_vec(),
        };
        assert!(matches!(
            l.actions[0].action,
            ActionLayout::Trace(Value::Int { offset: 8, .. })
        ));
        match &l.actions[1].action {
            ActionLayout::Printf { args, .. } => {
                assert_eq!(
                    args[0],
                    Value::Str {
                        offset: 16,
                        size: 16
                    }
                );
                assert!(matches!(args[1], Value::ConstInt { value: 42, .. }));
            }
            other => panic!("{:?}", other),
        }
        assert_eq!(l.actions[1].index, 3);
        assert!(matches!(
            l.actions[2].action,
            ActionLayout::Trace(Value::ConstStr(_))
        ));
    }

    #[test]
    fn clauses_without_output_have_no_record() {
        let c = &clauses("BEGIN { @a = count(); x = 2; }")[0];
        assert_eq!(
            clause_layout(c, &caps(), &TypeTable::default(), &[]).size,
            0
        );
        let c = &clauses("BEGIN { }")[0];
        assert_eq!(
            clause_layout(c, &caps(), &TypeTable::default(), &[]).size,
            RECORD_HEADER
        );
    }

    #[test]
    fn statements_under_an_if_carry_a_flag_and_speculate_starts_the_record() {
        let c = &clauses("BEGIN { if (1) { x = 1; } trace(2); }")[0];
        let l = clause_layout(c, &caps(), &TypeTable::default(), &[]);
        assert_eq!(l.actions[0].action, ActionLayout::Statement(StmtKind::Expr));
        assert_eq!(l.actions[0].ran_flag, Some(RECORD_HEADER));
        let c = &clauses("BEGIN { x = 1; speculate(x); y = 2; trace(y); }")[0];
        let l = clause_layout(c, &caps(), &TypeTable::default(), &[]);
        // `x = 1` runs before the record exists: it is not part of it.
        assert_eq!(l.actions.len(), 2);
        assert_eq!(l.actions[0].action, ActionLayout::Statement(StmtKind::Expr));
        assert_eq!(l.actions[0].index, 3);
    }

    #[test]
    fn conditional_actions_carry_a_flag() {
        let c = &clauses("BEGIN { if (1) { trace(pid); } }")[0];
        let l = clause_layout(c, &caps(), &TypeTable::default(), &[]);
        assert_eq!(l.actions[0].ran_flag, Some(RECORD_HEADER));
        assert_eq!(l.size, RECORD_HEADER + 16);
    }

    #[test]
    fn tuples_pack_integers_and_strings() {
        let (f, size) = tuple_layout(
            &[Type::String, Type::Int(dtrace_lang::types::INT)],
            &[16, 0],
            &TypeTable::default(),
        );
        assert_eq!(f[1].offset, 16);
        assert_eq!(size, 24);
        assert_eq!(tuple_layout(&[], &[], &TypeTable::default()).1, 8);
    }
}
