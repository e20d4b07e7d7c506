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

    /// Argument `e` (number `n` of `name`'s) as an aggregation.
    pub(super) fn agg_arg(
        &self,
        name: &str,
        n: usize,
        e: &Expr,
        tag: Tag,
    ) -> Result<AggId, CompileError> {
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
                format!("{}( ) argument #{} is incompatible with prototype:\n\tprototype: aggregation\n\t argument: {}", name, n, self.describe_arg(e)),
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
                // Not assigned to an aggregation: a value, never used.
                funcs::Lowering::Agg => Err(self.call_outside_statement(f, args, line)?),
                _ => {
                    let c = self.expr(e)?;
                    let a = self.next_action(1);
                    // stack() and ustack() as statements record the
                    // stack; sym(), func(), mod() and their user-level
                    // kin, actions too in DTrace, record and print their
                    // address as trace() prints their value.
                    let names_address = matches!(
                        c.ty.special(),
                        Some(
                            types::Special::Sym
                                | types::Special::Mod
                                | types::Special::USym
                                | types::Special::UMod
                                | types::Special::UAddr
                        )
                    );
                    if names_address || matches!(c.kind, CKind::Stack { .. } | CKind::UStack { .. })
                    {
                        return Ok(CStmt::Trace(c, a));
                    }
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
        // As DTrace: the arguments are cooked with the statement, then
        // the action reads its format and sets it against them.
        // An aggregation is an argument of its own kind, which no
        // conversion takes (DTrace names its type "aggregation").
        let mut cargs = Vec::new();
        for a in &args[1..] {
            let v = self.expr(a)?;
            cargs.push(if matches!(a.kind, ExprKind::Agg { .. }) {
                CExpr {
                    ty: Type::Named("aggregation".into(), Box::new(Type::Dyn)),
                    ..v
                }
            } else {
                v
            });
        }
        let format = self.format_arg(name, &args[0])?;
        self.check_format(name, &format, &cargs, 1, line)?;
        let action = self.next_action(cargs.len() as u32);
        Ok(CStmt::Printf {
            format,
            args: cargs,
            action,
            kind,
            line,
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
        // Destructive, as in DTrace: refused after speculate() first.
        if self.speculated {
            return Err(err(
                Tag::D_ACT_SPEC,
                line,
                "destructive actions may not follow speculate( )",
            ));
        }
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
        // As DTrace: the count first (a format takes an aggregation
        // after it), then the format.
        let has_format = matches!(args[0].kind, ExprKind::Str(_));
        let wanted = 1 + usize::from(has_format);
        if args.len() < wanted {
            return Err(err(
                Tag::D_PRINTA_PROTO,
                line,
                format!(
                    "printa( ) prototype mismatch: {} args passed, {} expected",
                    args.len(),
                    wanted
                ),
            ));
        }
        let (format, rest) = if has_format {
            (Some(self.format_arg("printa", &args[0])?), &args[1..])
        } else {
            (None, args)
        };
        let mut aggs = Vec::new();
        for (i, a) in rest.iter().enumerate() {
            let n = i + 1 + usize::from(has_format);
            aggs.push(self.agg_arg("printa", n, a, Tag::D_PRINTA_AGGARG)?);
        }
        // Printed side by side, the aggregations share their keys.
        for &other in &aggs[1..] {
            let (l, r) = (&self.syms.aggs[aggs[0]], &self.syms.aggs[other]);
            if l.keys.len() != r.keys.len() {
                let keys = |n: usize| format!("{} key{}", n, if n == 1 { "" } else { "s" });
                return Err(err(
                    Tag::D_PRINTA_AGGKEY,
                    line,
                    format!(
                        "printa( ): @{} and @{} do not have matching key signatures: @{} has {}, @{} has {}",
                        l.name,
                        r.name,
                        l.name,
                        keys(l.keys.len()),
                        r.name,
                        keys(r.keys.len())
                    ),
                ));
            }
            for (n, (lk, rk)) in l.keys.iter().zip(&r.keys).enumerate() {
                if !lk.accepts_arg(rk, false) {
                    return Err(err(
                        Tag::D_PRINTA_AGGPROTO,
                        line,
                        format!(
                            "printa( ): @{}[ ] key #{} is incompatible with @{}:\n{:>9} key #{}: {}\n{:>9} key #{}: {}",
                            r.name,
                            n + 1,
                            l.name,
                            l.name,
                            n + 1,
                            lk,
                            r.name,
                            n + 1,
                            rk
                        ),
                    ));
                }
            }
        }
        if let Some(f) = &format {
            self.check_printa_format(f, &aggs, line)?;
        }
        let action = self.next_action(1);
        Ok(CStmt::Printa {
            format,
            aggs,
            action,
            line,
        })
    }

    pub(super) fn act_clear(&mut self, args: &[Expr], _line: u32) -> Result<CStmt, CompileError> {
        let agg = self.agg_arg("clear", 1, &args[0], Tag::D_CLEAR_AGGARG)?;
        let a = self.next_action(1);
        Ok(CStmt::Clear(agg, a))
    }

    pub(super) fn act_trunc(&mut self, args: &[Expr], _line: u32) -> Result<CStmt, CompileError> {
        let agg = self.agg_arg("trunc", 1, &args[0], Tag::D_TRUNC_AGGARG)?;
        let n = match args.get(1) {
            Some(x) => {
                let v = self.expr(x)?;
                // Its prototype's int64_t, as DTrace checks it.
                if !v.ty.is_int() {
                    return Err(self.arg_mismatch("trunc", 2, "int64_t", &v.ty, x.line));
                }
                Some(v)
            }
            None => None,
        };
        let a = self.next_action(1);
        Ok(CStmt::Trunc(agg, n, a))
    }

    /// normalize(@a, n): the consumer divides what it prints of @a by n.
    pub(super) fn act_normalize(
        &mut self,
        args: &[Expr],
        line: u32,
    ) -> Result<CStmt, CompileError> {
        let agg = self.agg_arg("normalize", 1, &args[0], Tag::D_NORMALIZE_AGGARG)?;
        let n = self.expr(&args[1])?;
        // Its prototype's uint64_t, as DTrace checks it.
        if !n.ty.is_int() {
            return Err(self.arg_mismatch("normalize", 2, "uint64_t", &n.ty, line));
        }
        let a = self.next_action(1);
        Ok(CStmt::Normalize(agg, Some(n), a))
    }

    /// denormalize(@a): @a prints its own values again.
    pub(super) fn act_denormalize(
        &mut self,
        args: &[Expr],
        _line: u32,
    ) -> Result<CStmt, CompileError> {
        let agg = self.agg_arg("denormalize", 1, &args[0], Tag::D_NORMALIZE_AGGARG)?;
        let a = self.next_action(1);
        Ok(CStmt::Normalize(agg, None, a))
    }

    /// print(e): like trace(), but the consumer shows the value with its
    /// type (structs member by member).
    pub(super) fn act_print(&mut self, args: &[Expr], line: u32) -> Result<CStmt, CompileError> {
        if matches!(args[0].kind, ExprKind::Agg { .. }) {
            return Err(err(
                Tag::D_PRINT_AGG,
                line,
                "print( ) may not be applied to an aggregation -- did you mean printa()?",
            ));
        }
        let v = self.expr(&args[0])?;
        if v.ty.is_void() || matches!(v.ty, Type::Translated { .. }) {
            return Err(err(
                Tag::D_PRINT_VOID,
                line,
                "print( ) may not be applied to a void expression",
            ));
        }
        if !(v.ty.is_scalar() || v.ty.is_string() || v.ty.is_float() || v.ty.is_by_ref()) {
            return Err(err(
                Tag::D_PROTO_ARG,
                line,
                format!(
                    "print( ) argument #1 is incompatible with prototype:\n\tprototype: void\n\t argument: {}",
                    v.ty
                ),
            ));
        }
        let a = self.next_action(1);
        Ok(CStmt::Print(v, a))
    }

    /// tracemem(addr, size, [dsize]): `size` bytes of kernel memory (a
    /// constant), shown as a hex dump, at most `dsize` of them.
    pub(super) fn act_tracemem(&mut self, args: &[Expr], line: u32) -> Result<CStmt, CompileError> {
        let addr = self.expr(&args[0])?;
        // The prototype first, as DTrace cooks the call:
        // void(@, size_t, [size_t]).
        let mut sizes = Vec::new();
        for (i, a) in args.iter().enumerate().skip(1) {
            let v = self.expr(a)?;
            if !v.ty.is_int() {
                return Err(err(
                    Tag::D_PROTO_ARG,
                    line,
                    format!(
                        "tracemem( ) argument #{} is incompatible with prototype:\n\tprototype: size_t\n\t argument: {}",
                        i + 1,
                        v.ty
                    ),
                ));
            }
            sizes.push(v);
        }
        if !addr.ty.is_scalar() {
            return Err(err(
                Tag::D_TRACEMEM_ADDR,
                line,
                format!(
                    "tracemem( ) argument #1 is incompatible with prototype:\n\tprototype: pointer or integer\n\t argument: {}",
                    addr.ty
                ),
            ));
        }
        let size = match self.const_int(&args[1]) {
            Some(n) if n > 0 && n <= i64::from(MAX_TRACEMEM) => n as u32,
            Some(n) if n > 0 => {
                return Err(err(
                    Tag::D_TRACEMEM_SIZE,
                    line,
                    format!(
                        "tracemem( ) argument #2 exceeds the limit of {} bytes",
                        MAX_TRACEMEM
                    ),
                ))
            }
            _ => return Err(err(
                Tag::D_TRACEMEM_SIZE,
                line,
                "tracemem( ) argument #2 must be a non-zero positive integral constant expression",
            )),
        };
        let dsize = match sizes.get(1).cloned() {
            Some(d) => {
                if !d.ty.is_scalar() {
                    return Err(err(
                        Tag::D_TRACEMEM_DYNSIZE,
                        line,
                        "tracemem ( ) dynamic size (argument #3) must be of scalar type",
                    ));
                }
                Some(d)
            }
            None => None,
        };
        let data = CExpr {
            kind: addr.kind,
            ty: Type::Array(Box::new(Type::Int(crate::types::UCHAR)), size),
            line,
        };
        let action = self.next_action(1 + u32::from(dsize.is_some()));
        Ok(CStmt::Tracemem {
            data,
            dsize,
            action,
        })
    }

    /// setopt(name, [value]): an option set by the consumer as the record
    /// is processed, as `-x name=value` would have.
    pub(super) fn act_setopt(&mut self, args: &[Expr], line: u32) -> Result<CStmt, CompileError> {
        let f = funcs::lookup("setopt").expect("setopt( ) is in the table");
        let mut strs = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let c = self.expr(a)?;
            self.check_arg(f, i, &c, line)?;
            strs.push(c);
        }
        let value = if strs.len() > 1 { strs.pop() } else { None };
        let name = strs.pop().expect("arity checked");
        let action = self.next_action(1 + u32::from(value.is_some()));
        Ok(CStmt::Setopt {
            name,
            value,
            action,
        })
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
        for (i, k) in keys.iter().flatten().enumerate() {
            let c = self.expr(k)?;
            if c.ty.is_void() || c.ty.is_dyn() {
                return Err(void_key(&c.ty, "aggregation", i, k.line));
            }
            if !(c.ty.is_scalar() || c.ty.is_string() || c.ty.is_by_ref()) {
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
            "sum" | "min" | "max" | "avg" | "stddev" => {
                let f = match fname {
                    "sum" => AggFunc::Sum,
                    "min" => AggFunc::Min,
                    "max" => AggFunc::Max,
                    "stddev" => AggFunc::Stddev,
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
                        "lquantize( ) argument #1 must be an integer constant",
                    )
                })?;
                if base < i64::from(i32::MIN) || base > i64::from(i32::MAX) {
                    return Err(err(
                        Tag::D_LQUANT_BASEVAL,
                        line,
                        "lquantize( ) argument #1 must be a 32-bit quantity",
                    ));
                }
                let limit = self.const_int(&fargs[2]).ok_or_else(|| {
                    err(
                        Tag::D_LQUANT_LIMTYPE,
                        line,
                        "lquantize( ) argument #2 must be an integer constant",
                    )
                })?;
                if limit < i64::from(i32::MIN) || limit > i64::from(i32::MAX) {
                    return Err(err(
                        Tag::D_LQUANT_LIMVAL,
                        line,
                        "lquantize( ) argument #2 must be a 32-bit quantity",
                    ));
                }
                if limit <= base {
                    return Err(err(
                        Tag::D_LQUANT_MISMATCH,
                        line,
                        "lquantize( ) base (argument #1) must be less than limit (argument #2)",
                    ));
                }
                let step = match fargs.get(3) {
                    Some(s) => match self.const_int(s) {
                        Some(n) if n > 0 => n,
                        _ => return Err(err(
                            Tag::D_LQUANT_STEPTYPE,
                            line,
                            "lquantize( ) argument #3 must be a non-zero positive integer constant",
                        )),
                    },
                    None => 1,
                };
                if step > i64::from(u16::MAX) {
                    return Err(err(
                        Tag::D_LQUANT_STEPVAL,
                        line,
                        "lquantize( ) argument #3 must be a 16-bit quantity",
                    ));
                }
                if (limit - base) / step == 0 {
                    return Err(err(
                        Tag::D_LQUANT_STEPLARGE,
                        line,
                        "lquantize( ) step (argument #3) too large: must have at least one quantization level",
                    ));
                }
                if (limit - base) / step > i64::from(u16::MAX) {
                    return Err(err(
                        Tag::D_LQUANT_STEPSMALL,
                        line,
                        "lquantize( ) step (argument #3) too small: number of quantization levels must be a 16-bit quantity",
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
            "llquantize" => {
                let v = self.scalar_arg(fname, &fargs[0], 1)?;
                let f = self.llquantize_params(&fargs[1..5])?;
                let inc = match fargs.get(5) {
                    Some(x) => Some(self.scalar_arg(fname, x, 6)?),
                    None => None,
                };
                (f, Some(v), inc)
            }
            other => {
                return Err(err(
                    Tag::D_NOTSUP,
                    line,
                    format!("aggregating function {}( ) is not yet supported", other),
                ))
            }
        };
        // The quantizing functions take an increment and nothing after.
        let most = match fname {
            "quantize" => 2,
            "lquantize" => 5,
            "llquantize" => 6,
            _ => usize::MAX,
        };
        if fargs.len() > most {
            return Err(err(
                Tag::D_PROTO_LEN,
                line,
                format!(
                    "{}( ) prototype mismatch: {} args passed, at most {} expected",
                    fname,
                    fargs.len(),
                    most
                ),
            ));
        }
        let key_types: Vec<Type> = ckeys.iter().map(|k| key_type(&k.ty)).collect();
        let agg = match self.syms.agg_by_name(name) {
            Some(id) => {
                let a = &self.syms.aggs[id];
                if a.func.same_kind(func) && a.func != func {
                    return Err(param_mismatch(a.func, func, line));
                }
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
                    || a.keys.iter().zip(&key_types).any(|(x, y)| {
                        x.is_string() != y.is_string()
                            || crate::ir::streamed_agg(std::slice::from_ref(x))
                                != crate::ir::streamed_agg(std::slice::from_ref(y))
                    })
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
                // The first use's key types are the aggregation's: a
                // later integer key is converted to them, as DTrace does
                // (`@[(int32_t)1]` and `@[(int64_t)1]` are one key, printed
                // as an int32_t).
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
            line: lhs.line,
        })
    }

    /// llquantize()'s factor, low and high magnitudes and steps per
    /// magnitude, checked in DTrace's order and words (its messages number
    /// the parameters from the factor). The rules are illumos': a factor
    /// of at least 2, a high magnitude above the low one, and steps that
    /// are a multiple of the factor and divide a power of it.
    fn llquantize_params(&mut self, args: &[Expr]) -> Result<AggFunc, CompileError> {
        let at = |e: &Expr| e.line;
        let constant = |this: &mut Self, i: usize, tag: Tag, what: &str| {
            this.const_int(&args[i]).ok_or_else(|| {
                err(
                    tag,
                    at(&args[i]),
                    format!("llquantize( ) argument #{} must be {}", i + 1, what),
                )
            })
        };
        let u16_of = |n: i64, i: usize, tag: Tag, what: &str| {
            u16::try_from(n).map_err(|_| {
                err(
                    tag,
                    at(&args[i]),
                    format!("llquantize( ) argument #{} must be {}", i + 1, what),
                )
            })
        };
        let factor = constant(self, 0, Tag::D_LLQUANT_FACTORTYPE, "an integer constant")?;
        let factor = match u16_of(factor, 0, Tag::D_LLQUANT_FACTORVAL, "")  {
            Ok(f) if f >= 2 => f,
            _ => {
                return Err(err(
                    Tag::D_LLQUANT_FACTORVAL,
                    at(&args[0]),
                    "llquantize( ) argument #1 must be an unsigned 16-bit quantity greater than or equal to 2",
                ))
            }
        };
        let low = constant(self, 1, Tag::D_LLQUANT_LMAGTYPE, "an integer constant")?;
        let low = u16_of(
            low,
            1,
            Tag::D_LLQUANT_LMAGVAL,
            "an unsigned 16-bit quantity",
        )?;
        let high = constant(self, 2, Tag::D_LLQUANT_HMAGTYPE, "an integer constant")?;
        let high = u16_of(
            high,
            2,
            Tag::D_LLQUANT_HMAGVAL,
            "an unsigned 16-bit quantity",
        )?;
        if high <= low {
            return Err(err(
                Tag::D_LLQUANT_HMAGVAL,
                at(&args[2]),
                "llquantize( ) argument #3 (high magnitude) must be greater than argument #2 (low magnitude)",
            ));
        }
        // factor^(high + 2) must fit in 64 bits, as illumos' loop checks.
        let mut order: u64 = 1;
        for _ in 0..=u32::from(high) + 1 {
            order = order.checked_mul(u64::from(factor)).ok_or_else(|| {
                err(
                    Tag::D_LLQUANT_HMAGVAL,
                    at(&args[2]),
                    "llquantize( ) argument #3 (high magnitude) will cause overflow of 64 bits",
                )
            })?;
        }
        let nsteps = match self.const_int(&args[3]) {
            Some(n) if n > 0 => n,
            _ => {
                return Err(err(
                    Tag::D_LLQUANT_STEPTYPE,
                    at(&args[3]),
                    "llquantize( ) argument #4 must be a non-zero positive integer constant",
                ))
            }
        };
        let nsteps = u16_of(
            nsteps,
            3,
            Tag::D_LLQUANT_STEPVAL,
            "an unsigned 16-bit quantity",
        )?;
        let steps_err = |msg: &str| {
            err(
                Tag::D_LLQUANT_STEPVAL,
                at(&args[0]),
                format!("llquantize() {}", msg),
            )
        };
        if nsteps < factor {
            return Err(steps_err(if factor % nsteps != 0 {
                "argument #4 (steps) must evenly divide argument #1 (factor) when steps<factor"
            } else {
                "argument #4 (steps) must be at least argument #1 (factor)"
            }));
        }
        if nsteps % factor != 0 {
            return Err(steps_err(
                "argument #4 (steps) must be a multiple of argument #1 (factor) when steps>factor",
            ));
        }
        let mut p = u64::from(factor);
        while p < u64::from(nsteps) {
            p *= u64::from(factor);
        }
        if p % u64::from(nsteps) != 0 {
            return Err(steps_err(
                "argument #4 (steps) must evenly divide a power of argument #1 (factor)",
            ));
        }
        Ok(AggFunc::Llquantize {
            factor,
            low,
            high,
            nsteps,
        })
    }

    /// An aggregating function's value (argument #1) or increment
    /// (`n` > 1), which must be scalars.
    pub(super) fn scalar_arg(
        &mut self,
        f: &str,
        e: &Expr,
        n: usize,
    ) -> Result<CExpr, CompileError> {
        let c = self.expr(e)?;
        if !c.ty.is_scalar() {
            return Err(if n == 1 {
                err(
                    Tag::D_AGG_SCALAR,
                    e.line,
                    format!("{}( ) argument #1 must be of scalar type", f),
                )
            } else {
                err(
                    Tag::D_PROTO_ARG,
                    e.line,
                    format!(
                        "{}( ) increment value (argument #{}) must be of scalar type",
                        f, n
                    ),
                )
            });
        }
        Ok(c)
    }
}

/// DTrace's error for a `void` or dynamic key (`kind` is `aggregation`
/// or `array`; `i` from 0).
pub(super) fn void_key(ty: &Type, kind: &str, i: usize, line: u32) -> CompileError {
    err(
        Tag::D_KEY_TYPE,
        line,
        format!(
            "{} expression may not be used as {} index: key #{}",
            ty,
            kind,
            i + 1
        ),
    )
}

/// The message for an lquantize() or llquantize() whose parameters differ
/// from the aggregation's first use.
fn param_mismatch(old: AggFunc, new: AggFunc, line: u32) -> CompileError {
    let (tag, what) = match (old, new) {
        (
            AggFunc::Lquantize {
                base: ob,
                limit: ol,
                step: os,
            },
            AggFunc::Lquantize {
                base: nb,
                limit: nl,
                step: ns,
            },
        ) => {
            let olim = i64::from(ob) + lquantize_levels(ob, ol, os) as i64 * i64::from(os);
            let nlim = i64::from(nb) + lquantize_levels(nb, nl, ns) as i64 * i64::from(ns);
            if ob != nb {
                (
                    Tag::D_LQUANT_MATCHBASE,
                    format!("lquantize( ) base (argument #1) doesn't match previous declaration: expected {}, found {}", ob, nb),
                )
            } else if olim != nlim {
                (
                    Tag::D_LQUANT_MATCHLIM,
                    format!("lquantize( ) limit (argument #2) doesn't match previous declaration: expected {}, found {}", olim, nlim),
                )
            } else {
                (
                    Tag::D_LQUANT_MATCHSTEP,
                    format!("lquantize( ) step (argument #3) doesn't match previous declaration: expected {}, found {}", os, ns),
                )
            }
        }
        (
            AggFunc::Llquantize {
                factor: f0,
                low: l0,
                high: h0,
                nsteps: s0,
            },
            AggFunc::Llquantize {
                factor: f1,
                low: l1,
                high: h1,
                nsteps: s1,
            },
        ) => {
            let rows = [
                ("factor", Tag::D_LLQUANT_MATCHFACTOR, f0, f1),
                ("lmag", Tag::D_LLQUANT_MATCHLMAG, l0, l1),
                ("hmag", Tag::D_LLQUANT_MATCHHMAG, h0, h1),
                ("steps", Tag::D_LLQUANT_MATCHSTEPS, s0, s1),
            ];
            let (i, (name, tag, e, f)) = rows
                .into_iter()
                .enumerate()
                .find(|(_, r)| r.2 != r.3)
                .unwrap_or((3, rows[3]));
            (
                tag,
                format!(
                    "llquantize() {} (argument #{}) doesn't match previous declaration: expected {}, found {}",
                    name,
                    i + 1,
                    e,
                    f
                ),
            )
        }
        _ => (Tag::D_AGG_REDEF, "aggregation redefined".to_string()),
    };
    err(tag, line, what)
}

/// The most bytes one tracemem() records.
pub const MAX_TRACEMEM: u32 = 16384;
