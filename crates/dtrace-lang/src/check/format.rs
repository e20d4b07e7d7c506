//! printf and printa format strings checked against their arguments.

use super::*;

impl Checker<'_> {
    pub(super) fn format_arg(&self, func: &str, e: &Expr) -> Result<Format, CompileError> {
        match &e.kind {
            // freopen("") goes back to standard output.
            ExprKind::Str(s) if s.is_empty() && func != "freopen" => Err(err(
                Tag::D_PRINTF_FMT_EMPTY,
                e.line,
                format!("{}( ) format string is empty", func),
            )),
            ExprKind::Str(s) => Format::parse(s).map_err(|fe| match fe {
                // Beyond what the consumer builds in memory: ours.
                FormatError::TooWide(_) => err(
                    Tag::D_PRINTF_ARG_FMT,
                    e.line,
                    format!("{}( ) argument #1 is invalid: {}", func, fe),
                ),
                // DTrace's format parser reports in its own words.
                _ => err(Tag::D_SYNTAX, e.line, fe.to_string()),
            }),
            _ => Err(err(
                Tag::D_PRINTF_ARG_FMT,
                e.line,
                format!("{}( ) argument #1 is incompatible with prototype:\n\tprototype: string constant\n\t argument: {}", func, self.describe_arg(e)),
            )),
        }
    }

    /// Matches each conversion to its argument (`first_arg` is the 1-based
    /// position of the first value argument).
    pub(super) fn check_format(
        &self,
        func: &str,
        f: &Format,
        args: &[CExpr],
        first_arg: usize,
        line: u32,
    ) -> Result<(), CompileError> {
        let mut ai = 0usize;
        for conv in f.conversions() {
            if conv.is_agg() {
                return Err(err(
                    Tag::D_PRINTF_AGG_CONV,
                    line,
                    format!(
                        "%@ conversion requires an aggregation and is not for use with {}( )",
                        func
                    ),
                ));
            }
            // The width's argument, then the precision's.
            for (star, what) in [
                (conv.width == Count::Star, "*"),
                (conv.precision == Count::Star, ".*"),
            ] {
                if !star {
                    continue;
                }
                let Some(a) = args.get(ai) else {
                    return Err(err(
                        Tag::D_PRINTF_DYN_PROTO,
                        line,
                        format!(
                            "{}( ) prototype mismatch: conversion #{} ({}) is missing a corresponding \"{}\" argument",
                            func, conv.number, conv.name, what
                        ),
                    ));
                };
                if !a.ty.is_int() {
                    return Err(err(
                        Tag::D_PRINTF_DYN_TYPE,
                        line,
                        format!(
                            "{}( ) argument #{} is incompatible with conversion #{} prototype:\n\tconversion: % {} {}\n\t prototype: int\n\t  argument: {}",
                            func,
                            ai + first_arg + 1,
                            conv.number,
                            what,
                            &conv.name[1..],
                            a.ty
                        ),
                    ));
                }
                ai += 1;
            }
            let Some(a) = args.get(ai) else {
                return Err(self.missing_arg(func, conv, line));
            };
            if !ConvKind::accepts_conv(conv, &a.ty) {
                return Err(err(
                    Tag::D_PRINTF_ARG_TYPE,
                    line,
                    format!(
                        "{}( ) argument #{} is incompatible with conversion #{} prototype:\n\tconversion: {}\n\t prototype: {}\n\t  argument: {}",
                        func,
                        ai + first_arg + 1,
                        conv.number,
                        conv.name,
                        ConvKind::prototype_of(conv),
                        a.ty
                    ),
                ));
            }
            ai += 1;
        }
        if ai < args.len() {
            return Err(err(
                Tag::D_PRINTF_ARG_EXTRA,
                line,
                format!(
                    "{}( ) prototype mismatch: only {} arguments required by this format string",
                    func, ai
                ),
            ));
        }
        Ok(())
    }

    pub(super) fn missing_arg(
        &self,
        func: &str,
        conv: &crate::printf::Conversion,
        line: u32,
    ) -> CompileError {
        err(
            Tag::D_PRINTF_ARG_PROTO,
            line,
            format!("{}( ) prototype mismatch: conversion #{} ({}) is missing a corresponding value argument", func, conv.number, conv.name),
        )
    }

    /// printa formats: conversions apply to the keys in order, `%@` to the
    /// value.
    pub(super) fn check_printa_format(
        &self,
        f: &Format,
        aggs: &[AggId],
        line: u32,
    ) -> Result<(), CompileError> {
        let keys = &self.syms.aggs[aggs[0]].keys;
        let mut ki = 0;
        for conv in f.conversions() {
            if conv.is_agg() {
                continue;
            }
            if conv.width == Count::Star || conv.precision == Count::Star {
                return Err(err(
                    Tag::D_PRINTF_DYN_PROTO,
                    line,
                    "printa( ) does not support dynamic width or precision",
                ));
            }
            let Some(k) = keys.get(ki) else {
                return Err(self.missing_arg("printa", conv, line));
            };
            if !ConvKind::accepts_conv(conv, k) {
                return Err(err(
                    Tag::D_PRINTF_ARG_TYPE,
                    line,
                    format!(
                        "printa( ) argument #2 is incompatible with conversion #{} prototype:\n\tconversion: {}\n\t prototype: {}\n\t  argument: {}",
                        conv.number,
                        conv.name,
                        ConvKind::prototype_of(conv),
                        k
                    ),
                ));
            }
            ki += 1;
        }
        Ok(())
    }
}
