//! Constants: C's integer constant rules, conversions and folding of
//! operations whose operands are constants.

use super::*;

/// Truncates or extends `v` to the width and signedness of `t`.
pub fn convert_const(v: i64, t: IntType) -> i64 {
    match (t.size, t.signed) {
        (1, true) => v as i8 as i64,
        (1, false) => v as u8 as i64,
        (2, true) => v as i16 as i64,
        (2, false) => v as u16 as i64,
        (4, true) => v as i32 as i64,
        (4, false) => v as u32 as i64,
        _ => v,
    }
}

/// Parses a C integer literal (decimal, 0x hex, 0 octal, optional sign).
pub fn parse_c_integer(s: &str) -> Option<i64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if body.is_empty() {
        return None;
    }
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else if body.len() > 1 && body.starts_with('0') {
        u64::from_str_radix(&body[1..], 8).ok()?
    } else {
        body.parse::<u64>().ok()?
    };
    Some(if neg {
        (v as i64).wrapping_neg()
    } else {
        v as i64
    })
}

/// C's type for an integer constant.
pub(super) fn int_const_type(
    v: u64,
    unsigned: bool,
    long: bool,
    radix_not_decimal: bool,
) -> IntType {
    if !long {
        if !unsigned && v <= i32::MAX as u64 {
            return types::INT;
        }
        if (unsigned || radix_not_decimal) && v <= u32::MAX as u64 {
            return types::UINT;
        }
    }
    if !unsigned && v <= i64::MAX as u64 {
        return types::LONG;
    }
    types::ULONG
}

/// Constant folding of integer operations whose operands are constants.
pub(super) fn fold(e: CExpr) -> CExpr {
    let it = match e.ty.as_int() {
        Some(t) => t,
        None => return e,
    };
    let v = match &e.kind {
        CKind::Unary(op, a) => match (op, &a.kind) {
            (UnaryOp::Neg, CKind::Int(x)) => Some(x.wrapping_neg()),
            (UnaryOp::BitNot, CKind::Int(x)) => Some(!x),
            (UnaryOp::LogNot, CKind::Int(x)) => Some(i64::from(*x == 0)),
            _ => None,
        },
        CKind::Arith(op, a, b) => match (&a.kind, &b.kind) {
            (CKind::Int(x), CKind::Int(y)) => {
                let (x, y) = (*x, *y);
                let signed = it.signed;
                match op {
                    ArithOp::Add => Some(x.wrapping_add(y)),
                    ArithOp::Sub => Some(x.wrapping_sub(y)),
                    ArithOp::Mul => Some(x.wrapping_mul(y)),
                    ArithOp::Div if y != 0 => Some(if signed {
                        x.wrapping_div(y)
                    } else {
                        ((x as u64) / (y as u64)) as i64
                    }),
                    ArithOp::Mod if y != 0 => Some(if signed {
                        x.wrapping_rem(y)
                    } else {
                        ((x as u64) % (y as u64)) as i64
                    }),
                    ArithOp::Shl => Some(x.wrapping_shl(y as u32)),
                    ArithOp::Shr => Some(if signed {
                        x.wrapping_shr(y as u32)
                    } else {
                        ((x as u64).wrapping_shr(y as u32)) as i64
                    }),
                    ArithOp::And => Some(x & y),
                    ArithOp::Or => Some(x | y),
                    ArithOp::Xor => Some(x ^ y),
                    _ => None,
                }
            }
            _ => None,
        },
        CKind::Cmp(op, a, b, signed) => match (&a.kind, &b.kind) {
            (CKind::Int(x), CKind::Int(y)) => {
                let ord = if *signed {
                    x.cmp(y)
                } else {
                    (*x as u64).cmp(&(*y as u64))
                };
                Some(i64::from(cmp_holds(*op, ord)))
            }
            _ => None,
        },
        CKind::StrCmp(op, a, b) => match (&a.kind, &b.kind) {
            (CKind::Str(x), CKind::Str(y)) => Some(i64::from(cmp_holds(*op, cstr(x).cmp(cstr(y))))),
            _ => None,
        },
        CKind::Logical(op, a, b) => match (&a.kind, &b.kind) {
            (CKind::Int(x), CKind::Int(y)) => {
                let (x, y) = (*x != 0, *y != 0);
                Some(i64::from(match op {
                    LogOp::And => x && y,
                    LogOp::Or => x || y,
                    LogOp::Xor => x != y,
                }))
            }
            _ => None,
        },
        CKind::Ternary(c, a, b) => match (&c.kind, &a.kind, &b.kind) {
            (CKind::Int(c), CKind::Int(x), CKind::Int(y)) => Some(if *c != 0 { *x } else { *y }),
            _ => None,
        },
        _ => None,
    };
    // DTrace keeps a folded constant's 64 bits whatever its type
    // (dt_node_op2): `(1 << 63) - 1` is an int holding 2^63 - 1, cut to
    // the type only where it is stored or recorded.
    let keep = matches!(
        e.kind,
        CKind::Arith(..) | CKind::Unary(UnaryOp::Neg | UnaryOp::BitNot, _)
    );
    match v {
        Some(v) => CExpr {
            kind: CKind::Int(if keep { v } else { convert_const(v, it) }),
            ty: e.ty,
            line: e.line,
        },
        None => e,
    }
}

pub(super) fn cstr(b: &[u8]) -> &[u8] {
    &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())]
}

pub fn cmp_holds(op: CmpOp, ord: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        CmpOp::Eq => ord == Equal,
        CmpOp::Ne => ord != Equal,
        CmpOp::Lt => ord == Less,
        CmpOp::Le => ord != Greater,
        CmpOp::Gt => ord == Greater,
        CmpOp::Ge => ord != Less,
    }
}
