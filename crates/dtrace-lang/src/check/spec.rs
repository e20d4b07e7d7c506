//! Speculations: `speculation()`, `speculate()`, `commit()`, `discard()`,
//! and the rules of a clause that uses them, as DTrace's compiler checks
//! them (a statement at a time, against the ones before it).

use super::*;

/// What a statement is, for the rules below.
enum Kind {
    Speculate,
    Commit,
    Aggregation,
    Exit,
    Destructive,
    /// Neither records nor matters (assignments, discard()).
    Quiet,
    Records,
}

fn kind(s: &CStmt) -> Kind {
    match s {
        CStmt::Speculate(..) => Kind::Speculate,
        CStmt::Commit(..) => Kind::Commit,
        CStmt::AggUpdate { .. } => Kind::Aggregation,
        CStmt::Exit(..) => Kind::Exit,
        s if s.destructive() => Kind::Destructive,
        CStmt::Eval(..) | CStmt::Discard(..) | CStmt::If { .. } => Kind::Quiet,
        s if s.records() => Kind::Records,
        _ => Kind::Quiet,
    }
}

impl Checker<'_> {
    /// `speculation()`: an `int`, the new speculation's ID (0: none).
    pub(super) fn subr_speculation(
        &mut self,
        _args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        Ok(CExpr {
            kind: CKind::Speculation,
            ty: Type::Int(crate::types::INT),
            line,
        })
    }

    fn spec_id(&mut self, name: &str, args: &[Expr], line: u32) -> Result<CExpr, CompileError> {
        let f = funcs::lookup(name).expect("in the table");
        let id = self.expr(&args[0])?;
        self.check_arg(f, 0, &id, line)?;
        Ok(id)
    }

    pub(super) fn act_speculate(
        &mut self,
        args: &[Expr],
        line: u32,
    ) -> Result<CStmt, CompileError> {
        let id = self.spec_id("speculate", args, line)?;
        let a = self.next_action(1);
        self.speculated = true;
        Ok(CStmt::Speculate(id, a))
    }

    pub(super) fn act_commit(&mut self, args: &[Expr], line: u32) -> Result<CStmt, CompileError> {
        let id = self.spec_id("commit", args, line)?;
        let a = self.next_action(1);
        Ok(CStmt::Commit(id, a))
    }

    pub(super) fn act_discard(&mut self, args: &[Expr], line: u32) -> Result<CStmt, CompileError> {
        let id = self.spec_id("discard", args, line)?;
        let a = self.next_action(1);
        Ok(CStmt::Discard(id, a))
    }
}

/// The rules of speculation within a clause, in DTrace's words: at most
/// one `speculate()`, before any data-recording action and any
/// `commit()`; no aggregation, destructive action or `exit()` after
/// it; no data recorded and no aggregation after a `commit()` (several
/// `commit()`s of disjoint buffers may follow one another).
pub(super) fn check_clause(stmts: &[CStmt], clause_line: u32) -> Result<(), CompileError> {
    let (mut speculate, mut commit, mut datarec) = (false, false, false);
    let mut all = Vec::new();
    visit_stmts(stmts, &mut |s| all.push(s));
    for s in all {
        let line = match s_line(s) {
            0 => clause_line,
            n => n,
        };
        let fail = |tag, msg: &str| Err(err(tag, line, msg));
        match kind(s) {
            Kind::Speculate => {
                if speculate {
                    return fail(Tag::D_SPEC_SPEC, "speculate( ) may not follow speculate( )");
                }
                if commit {
                    return fail(Tag::D_SPEC_COMM, "speculate( ) may not follow commit( )");
                }
                if datarec {
                    return fail(
                        Tag::D_SPEC_DREC,
                        "speculate( ) may not follow data-recording action(s)",
                    );
                }
                speculate = true;
            }
            Kind::Commit => {
                if datarec {
                    return fail(
                        Tag::D_COMM_DREC,
                        "commit( ) may not follow data-recording action(s)",
                    );
                }
                commit = true;
            }
            Kind::Aggregation => {
                if speculate {
                    return fail(
                        Tag::D_AGG_SPEC,
                        "aggregating actions may not follow speculate( )",
                    );
                }
                if commit {
                    return fail(
                        Tag::D_AGG_COMM,
                        "aggregating actions may not follow commit( )",
                    );
                }
                datarec = true;
            }
            Kind::Exit if speculate => {
                return fail(Tag::D_EXIT_SPEC, "exit( ) may not follow speculate( )");
            }
            Kind::Destructive if speculate => {
                return fail(
                    Tag::D_ACT_SPEC,
                    "destructive actions may not follow speculate( )",
                );
            }
            Kind::Destructive | Kind::Quiet => {}
            Kind::Exit | Kind::Records => {
                if commit {
                    return fail(
                        Tag::D_DREC_COMM,
                        "data-recording actions may not follow commit( )",
                    );
                }
                datarec = true;
            }
        }
    }
    Ok(())
}

/// The line a statement is on (its first expression's).
fn s_line(s: &CStmt) -> u32 {
    if let CStmt::AggUpdate { line, .. } | CStmt::Printf { line, .. } | CStmt::Printa { line, .. } =
        s
    {
        return *line;
    }
    let mut line = 0;
    s.for_each_expr(&mut |e| {
        if line == 0 {
            line = e.line;
        }
    });
    line
}
