//! Actions (`trace`, `printf`, `exit`, `printa`, `clear`, `trunc`, ...)
//! and aggregations: their prototypes and arguments.

use super::*;

/// Linux's SIGSTOP, which stop() sends.
const SIGSTOP: i64 = 19;

impl Checker<'_> {
    pub(super) fn proto_len(&self, name: &str, got: usize, want: &str, line: u32) -> CompileError {
        err(
            Tag::D_PROTO_LEN,
            line,
            format!(
                "{}( ) prototype mismatch: {} arg{} passed, {} expected",
                name,
                got,
                if got == 1 { "" } else { "s" },
                want
            ),
        )
    }

    pub(super) fn agg_arg(&self, name: &str, e: &Expr, tag: Tag) -> Result<AggId, CompileError> {
        match &e.kind {
            ExprKind::Agg { name: a, keys: None } => self.syms.agg_by_name(a).ok_or_else(|| {
                err(
                    Tag::D_IDENT_UNDEF,
                    e.line,
                    format!("failed to resolve @{}: Unknown variable name", a),
                )
            }),
            _ => Err(err(
                tag,
                e.line,
                format!("{}( ) argument #1 is incompatible with prototype:\n\tprototype: aggregation\n\t argument: {}", name, self.describe_arg(e)),
            )),
        }
    }

    pub(super) fn describe_arg(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Str(_) => "string".into(),
            ExprKind::Int { .. } => "int".into(),
            _ => "expression".into(),
        }
    }

    pub(super) fn action_call(
        &mut self,
        name: &str,
        args: &[Expr],
        e: &Expr,
    ) -> Result<CStmt, CompileError> {
        let line = e.line;
        match funcs::lookup(name) {
            Some(f) => match f.lowering {
                funcs::Lowering::Act(act) => {
                    self.check_arity(f, args.len(), line)?;
                    act(self, args, line)
                }
                funcs::Lowering::Agg => Err(self.misplaced(f, line)),
                _ => {
                    let c = self.expr(e)?;
                    let a = self.next_action(1);
                    Ok(CStmt::Eval(c, a))
                }
            },
            None => {
                let c = self.expr(e)?;
                let a = self.next_action(1);
                Ok(CStmt::Eval(c, a))
            }
        }
    }

    pub(super) fn act_trace(&mut self, args: &[Expr], line: u32) -> Result<CStmt, CompileError> {
        if matches!(args[0].kind, ExprKind::Agg { .. }) {
            return Err(err(
                Tag::D_TRACE_AGG,
                line,
                "trace( ) may not be applied to an aggregation",
            ));
        }
        let v = self.expr(&args[0])?;
        if v.ty.is_void() {
            return Err(err(
                Tag::D_TRACE_VOID,
                line,
                "trace( ) may not be applied to a void expression",
            ));
        }
        if matches!(v.ty, Type::Translated { .. }) {
            return Err(err(
                Tag::D_TRACE_DYN,
                line,
                "trace( ) may not be applied to a dynamic expression",
            ));
        }
        // Scalars, strings, floats (recorded as their bits, which the
        // consumer prints as an integer of their size, as DTrace's does)
        // and by-reference values (recorded as their bytes, printed as a
        // hex dump).
        if !(v.ty.is_scalar() || v.ty.is_string() || v.ty.is_float() || v.ty.is_by_ref()) {
            return Err(err(
                Tag::D_PROTO_ARG,
                line,
                format!(
                    "trace( ) argument #1 is incompatible with prototype:\n\tprototype: scalar or string\n\t argument: {}",
                    v.ty
                ),
            ));
        }
        let a = self.next_action(1);
        Ok(CStmt::Trace(v, a))
    }

    pub(super) fn act_printf(&mut self, args: &[Expr], line: u32) -> Result<CStmt, CompileError> {
        self.printf_like("printf", PrintfKind::Printf, args, line)
    }

    pub(super) fn act_system(&mut self, args: &[Expr], line: u32) -> Result<CStmt, CompileError> {
        self.printf_like("system", PrintfKind::System, args, line)
    }

    pub(super) fn act_freopen(&mut self, args: &[Expr], line: u32) -> Result<CStmt, CompileError> {
        self.printf_like("freopen", PrintfKind::Freopen, args, line)
    }

    /// printf() and the actions that format as it does: a string
    /// constant, then arguments that fit its conversions.
    fn printf_like(
        &mut self,
        name: &str,
        kind: PrintfKind,
        args: &[Expr],
        line: u32,
    ) -> Result<CStmt, CompileError> {
        // The prototype's type first (`printf(1)`), then the constant.
        if !matches!(args[0].kind, ExprKind::Str(_)) {
            let v = self.expr(&args[0])?;
            if let Some(f) = funcs::lookup(name) {
                self.check_arg(f, 0, &v, line)?;
            }
            return Err(err(
                Tag::D_PRINTF_ARG_FMT,
                line,
                format!(
                    "{}( ) argument #1 is incompatible with prototype:\n\tprototype: string constant\n\t argument: {}",
                    name, v.ty
                ),
            ));
        }
        let format = self.format_arg(name, &args[0])?;
        let mut cargs = Vec::new();
        for a in &args[1..] {
            if matches!(a.kind, ExprKind::Agg { .. }) {
                return Err(err(
                    Tag::D_PRINTF_ARG_TYPE,
                    a.line,
                    format!("{}( ) may not be applied to an aggregation", name),
                ));
            }
            cargs.push(self.expr(a)?);
        }
        self.check_format(name, &format, &cargs, 1, line)?;
        let action = self.next_action(cargs.len() as u32);
        Ok(CStmt::Printf {
            format,
            args: cargs,
            action,
            kind,
        })
    }

    /// Argument `i` of the built-in `name`, checked against its row's
    /// prototype.
    fn arg_of(
        &mut self,
        name: &str,
        args: &[Expr],
        i: usize,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        match funcs::lookup(name) {
            Some(f) => self.typed_arg(f, i, &args[i], line),
            None => self.expr(&args[i]),
        }
    }

    pub(super) fn act_raise(&mut self, args: &[Expr], line: u32) -> Result<CStmt, CompileError> {
        let v = self.arg_of("raise", args, 0, line)?;
        let a = self.next_action(1);
        Ok(CStmt::Raise(v, a))
    }

    pub(super) fn act_stop(&mut self, _args: &[Expr], line: u32) -> Result<CStmt, CompileError> {
        // The process stops as SIGSTOP stops it, when it next returns to
        // user space; SIGCONT (`prun`, `kill -CONT`) resumes it.
        let sig = CExpr {
            kind: CKind::Int(SIGSTOP),
            ty: Type::Int(types::INT),
            line,
        };
        let a = self.next_action(1);
        Ok(CStmt::Raise(sig, a))
    }

    pub(super) fn act_chill(&mut self, args: &[Expr], line: u32) -> Result<CStmt, CompileError> {
        let v = self.arg_of("chill", args, 0, line)?;
        let a = self.next_action(1);
        Ok(CStmt::Chill(v, a))
    }

    pub(super) fn act_copyout(&mut self, args: &[Expr], line: u32) -> Result<CStmt, CompileError> {
        self.copyout_like("copyout", false, args, line)
    }

    pub(super) fn act_copyoutstr(
        &mut self,
        args: &[Expr],
        line: u32,
    ) -> Result<CStmt, CompileError> {
        self.copyout_like("copyoutstr", true, args, line)
    }

    fn copyout_like(
        &mut self,
        name: &str,
        string: bool,
        args: &[Expr],
        line: u32,
    ) -> Result<CStmt, CompileError> {
        let src = if string {
            // Any string: a constant, a variable, a subroutine's result;
            // else what the prototype takes.
            let v = self.expr(&args[0])?;
            if let (false, Some(f)) = (v.ty.is_string(), funcs::lookup(name)) {
                self.check_arg(f, 0, &v, line)?;
            }
            v
        } else {
            self.arg_of(name, args, 0, line)?
        };
        let addr = self.arg_of(name, args, 1, line)?;
        let len = self.arg_of(name, args, 2, line)?;
        let action = self.next_action(1);
        Ok(CStmt::Copyout {
            src,
            addr,
            len,
            string,
            action,
        })
    }

    pub(super) fn act_ftruncate(
        &mut self,
        _args: &[Expr],
        _line: u32,
    ) -> Result<CStmt, CompileError> {
        let a = self.next_action(1);
        Ok(CStmt::Ftruncate(a))
    }

    /// panic() and breakpoint(): Solaris stops the whole system in them;
    /// a Linux tracer may not, so they are refused when compiled.
    pub(super) fn act_panic(&mut self, _args: &[Expr], line: u32) -> Result<CStmt, CompileError> {
        self.act_refused("panic", line)
    }

    pub(super) fn act_breakpoint(
        &mut self,
        _args: &[Expr],
        line: u32,
    ) -> Result<CStmt, CompileError> {
        self.act_refused("breakpoint", line)
    }

    fn act_refused(&mut self, name: &str, line: u32) -> Result<CStmt, CompileError> {
        let why = match name {
            "panic" => "a BPF program cannot crash the kernel",
            _ => "Linux has no kernel debugger for a BPF program to stop in",
        };
        Err(err(
            Tag::D_NOTSUP,
            line,
            format!("{}( ) is not supported on Linux: {}", name, why),
        ))
    }

    pub(super) fn act_exit(&mut self, args: &[Expr], line: u32) -> Result<CStmt, CompileError> {
        let v = self.arg_of("exit", args, 0, line)?;
        let a = self.next_action(1);
        Ok(CStmt::Exit(v, a))
    }

    pub(super) fn act_printa(&mut self, args: &[Expr], line: u32) -> Result<CStmt, CompileError> {
        let (format, rest) = if let ExprKind::Str(_) = args[0].kind {
            (Some(self.format_arg("printa", &args[0])?), &args[1..])
        } else {
            (None, args)
        };
        if rest.is_empty() {
            return Err(err(
                Tag::D_PRINTA_PROTO,
                line,
                "printa( ) prototype mismatch: aggregation argument required",
            ));
        }
        let mut aggs = Vec::new();
        for a in rest {
            aggs.push(self.agg_arg("printa", a, Tag::D_PRINTA_AGGARG)?);
        }
        if let Some(f) = &format {
            self.check_printa_format(f, &aggs, line)?;
        }
        let action = self.next_action(1);
        Ok(CStmt::Printa {
            format,
            aggs,
            action,
        })
    }

    pub(super) fn act_clear(&mut self, args: &[Expr], _line: u32) -> Result<CStmt, CompileError> {
        let agg = self.agg_arg("clear", &args[0], Tag::D_CLEAR_AGGARG)?;
        let a = self.next_action(1);
        Ok(CStmt::Clear(agg, a))
    }

    pub(super) fn act_trunc(&mut self, args: &[Expr], _line: u32) -> Result<CStmt, CompileError> {
        let agg = self.agg_arg("trunc", &args[0], Tag::D_TRUNC_AGGARG)?;
        let n = match args.get(1) {
            Some(x) => {
                let v = self.expr(x)?;
                if !v.ty.is_scalar() {
                    return Err(err(
                        Tag::D_TRUNC_SCALAR,
                        x.line,
                        "trunc( ) argument #2 must be of scalar type",
                    ));
                }
                Some(v)
            }
            None => None,
        };
        let a = self.next_action(1);
        Ok(CStmt::Trunc(agg, n, a))
    }

    pub(super) fn aggregation(&mut self, lhs: &Expr, rhs: &Expr) -> Result<CStmt, CompileError> {
        let ExprKind::Agg { name, keys } = &lhs.kind else {
            unreachable!("checked by caller")
        };
        let (fname, fargs) = match &rhs.kind {
            ExprKind::Call(f, a) if is_agg_func(f) => (f.as_str(), a),
            _ => {
                return Err(err(
                    Tag::D_AGG_FUNC,
                    rhs.line,
                    format!(
                        "@{} must be assigned the result of an aggregating function",
                        name
                    ),
                ))
            }
        };
        let line = rhs.line;
        let mut ckeys = Vec::new();
        for k in keys.iter().flatten() {
            let c = self.expr(k)?;
            if !(c.ty.is_scalar() || c.ty.is_string()) {
                return Err(err(
                    Tag::D_KEY_TYPE,
                    k.line,
                    format!("aggregation key of type {} is not supported", c.ty),
                ));
            }
            ckeys.push(c);
        }
        // The row says what the prototype accepts; the match below builds
        // the aggregating function and checks its arguments' types.
        if let Some(f) = funcs::lookup(fname) {
            if matches!(f.lowering, funcs::Lowering::NotYet) {
                return Err(self.misplaced(f, line));
            }
            self.check_arity(f, fargs.len(), line)?;
        }
        let (func, value, incr) = match fname {
            "count" => (AggFunc::Count, None, None),
            "sum" | "min" | "max" | "avg" => {
                let f = match fname {
                    "sum" => AggFunc::Sum,
                    "min" => AggFunc::Min,
                    "max" => AggFunc::Max,
                    _ => AggFunc::Avg,
                };
                (f, Some(self.scalar_arg(fname, &fargs[0], 1)?), None)
            }
            "quantize" => {
                let v = self.scalar_arg(fname, &fargs[0], 1)?;
                let inc = match fargs.get(1) {
                    Some(x) => Some(self.scalar_arg(fname, x, 2)?),
                    None => None,
                };
                (AggFunc::Quantize, Some(v), inc)
            }
            "lquantize" => {
                let v = self.scalar_arg(fname, &fargs[0], 1)?;
                let base = self.const_int(&fargs[1]).ok_or_else(|| {
                    err(
                        Tag::D_LQUANT_BASETYPE,
                        line,
                        "lquantize( ) argument #2 must be a constant integer",
                    )
                })?;
                let limit = self.const_int(&fargs[2]).ok_or_else(|| {
                    err(
                        Tag::D_LQUANT_LIMTYPE,
                        line,
                        "lquantize( ) argument #3 must be a constant integer",
                    )
                })?;
                let step = match fargs.get(3) {
                    Some(s) => self.const_int(s).ok_or_else(|| {
                        err(
                            Tag::D_LQUANT_STEPTYPE,
                            line,
                            "lquantize( ) argument #4 must be a constant integer",
                        )
                    })?,
                    None => 1,
                };
                if base < i64::from(i32::MIN) || base > i64::from(i32::MAX) {
                    return Err(err(
                        Tag::D_LQUANT_BASEVAL,
                        line,
                        "lquantize( ) base (argument #2) must be a 32-bit quantity".to_string(),
                    ));
                }
                if limit < i64::from(i32::MIN) || limit > i64::from(i32::MAX) {
                    return Err(err(
                        Tag::D_LQUANT_LIMVAL,
                        line,
                        "lquantize( ) limit (argument #3) must be a 32-bit quantity".to_string(),
                    ));
                }
                if limit <= base {
                    return Err(err(
                        Tag::D_LQUANT_MISMATCH,
                        line,
                        "lquantize( ) base (argument #2) must be less than limit (argument #3)",
                    ));
                }
                if step <= 0 || step > i64::from(u16::MAX) {
                    return Err(err(
                        Tag::D_LQUANT_STEPVAL,
                        line,
                        "lquantize( ) step (argument #4) must be a 16-bit quantity",
                    ));
                }
                if (limit - base) / step == 0 {
                    return Err(err(
                        Tag::D_LQUANT_STEPLARGE,
                        line,
                        "lquantize( ) step (argument #4) too large: must have at least one quantization level".to_string(),
                    ));
                }
                if (limit - base) / step > i64::from(u16::MAX) {
                    return Err(err(
                        Tag::D_LQUANT_STEPSMALL,
                        line,
                        "lquantize( ) step (argument #4) too small: number of quantization levels must be a 16-bit quantity",
                    ));
                }
                let inc = match fargs.get(4) {
                    Some(x) => Some(self.scalar_arg(fname, x, 5)?),
                    None => None,
                };
                (
                    AggFunc::Lquantize {
                        base: base as i32,
                        limit: limit as i32,
                        step: step as u16,
                    },
                    Some(v),
                    inc,
                )
            }
            other => {
                return Err(err(
                    Tag::D_NOTSUP,
                    line,
                    format!("aggregating function {}( ) is not yet supported", other),
                ))
            }
        };
        let key_types: Vec<Type> = ckeys.iter().map(|k| key_type(&k.ty)).collect();
        let agg = match self.syms.agg_by_name(name) {
            Some(id) => {
                let a = &self.syms.aggs[id];
                if a.func != func {
                    return Err(err(
                        Tag::D_AGG_REDEF,
                        line,
                        format!(
                            "aggregation redefined: @{}\n\t current: @{} = {}( )\n\tprevious: @{} = {}( ) : line {}",
                            name,
                            name,
                            func.name(),
                            name,
                            a.func.name(),
                            a.line
                        ),
                    ));
                }
                if a.keys.len() != key_types.len()
                    || a.keys
                        .iter()
                        .zip(&key_types)
                        .any(|(x, y)| x.is_string() != y.is_string())
                {
                    return Err(err(
                        Tag::D_AGG_MDIM,
                        line,
                        format!(
                            "@{}[ ] key signature mismatch: previous use at line {}",
                            name, a.line
                        ),
                    ));
                }
                // Integer keys widen to the larger type seen.
                let merged: Vec<Type> = a
                    .keys
                    .iter()
                    .zip(&key_types)
                    .map(|(x, y)| match (x, y) {
                        (Type::Int(p), Type::Int(q)) if q.size > p.size => Type::Int(*q),
                        _ => x.clone(),
                    })
                    .collect();
                self.syms.aggs[id].keys = merged;
                id
            }
            None => {
                self.syms.aggs.push(AggInfo {
                    name: name.clone(),
                    func,
                    keys: key_types,
                    line,
                });
                self.syms.aggs.len() - 1
            }
        };
        let action = self.next_action(1);
        Ok(CStmt::AggUpdate {
            agg,
            keys: ckeys,
            value,
            incr,
            action,
        })
    }

    pub(super) fn scalar_arg(
        &mut self,
        f: &str,
        e: &Expr,
        n: usize,
    ) -> Result<CExpr, CompileError> {
        let c = self.expr(e)?;
        if !c.ty.is_scalar() {
            return Err(err(
                Tag::D_PROTO_ARG,
                e.line,
                format!("{}( ) argument #{} is incompatible with prototype:\n\tprototype: int64_t\n\t argument: {}", f, n, c.ty),
            ));
        }
        Ok(c)
    }
}
