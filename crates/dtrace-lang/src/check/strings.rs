//! The string, byte-order and network-address subroutines' lowerings:
//! `copyinstr`, `stringof`, `strjoin`, `toupper`/`tolower`,
//! `basename`/`dirname`, `substr`, `lltostr`, `inet_ntoa`/`inet_ntoa6`/
//! `inet_ntop`, `htons` and the other byte swaps, `strlen`. Each is named
//! by its row in `funcs.rs`, which has checked its arguments against the
//! prototype.

use super::*;

impl Checker<'_> {
    pub(super) fn subr_copyinstr(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let ([a], rest) = funcs::take(args, line)?;
        let n = rest.into_iter().next().map(Box::new);
        Ok(CExpr {
            kind: CKind::Copyinstr(Box::new(a), n),
            ty: Type::String,
            line,
        })
    }

    pub(super) fn subr_stringof(
        &mut self,
        args: &[Expr],
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let e = Expr::new(ExprKind::Stringof(Box::new(args[0].clone())), line);
        self.expr(&e)
    }

    /// A string argument: a `string` as it is, a `char *` or `char []` the
    /// string at that address.
    pub(super) fn string_arg(s: CExpr) -> CExpr {
        if s.ty.is_string() {
            return s;
        }
        let ty = Type::ptr(s.ty.pointee().cloned().unwrap_or(Type::Void));
        let line = s.line;
        CExpr {
            kind: CKind::KernelString(Box::new(CExpr { ty, ..s })),
            ty: Type::String,
            line,
        }
    }

    /// `strjoin(a, b)`: one string of the two (constants joined now, as
    /// long as the result fits `strsize`).
    pub(super) fn subr_strjoin(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let ([a, b], _) = funcs::take(args, line)?;
        let (a, b) = (Self::string_arg(a), Self::string_arg(b));
        if let (CKind::Str(x), CKind::Str(y)) = (&a.kind, &b.kind) {
            let end = |v: &Vec<u8>| v.iter().position(|&c| c == 0).unwrap_or(v.len());
            let mut j = x[..end(x)].to_vec();
            j.extend_from_slice(&y[..end(y)]);
            if (j.len() as u64) < u64::from(self.syms.types.strsize) {
                return Ok(CExpr {
                    kind: CKind::Str(j),
                    ty: Type::String,
                    line,
                });
            }
        }
        Ok(CExpr {
            kind: CKind::Strjoin(Box::new(a), Box::new(b)),
            ty: Type::String,
            line,
        })
    }

    /// `toupper(s)`: the string with its lower-case letters upper-case
    /// (a constant now).
    pub(super) fn subr_toupper(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.case(args, true, line)
    }

    /// `tolower(s)`: the string with its upper-case letters lower-case.
    pub(super) fn subr_tolower(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.case(args, false, line)
    }

    fn case(&mut self, args: Vec<CExpr>, upper: bool, line: u32) -> Result<CExpr, CompileError> {
        let ([s], _) = funcs::take(args, line)?;
        let s = Self::string_arg(s);
        if let CKind::Str(b) = &s.kind {
            let b = if upper {
                b.to_ascii_uppercase()
            } else {
                b.to_ascii_lowercase()
            };
            return Ok(CExpr {
                kind: CKind::Str(b),
                ty: Type::String,
                line,
            });
        }
        Ok(CExpr {
            kind: CKind::Case(Box::new(s), upper),
            ty: Type::String,
            line,
        })
    }

    /// `basename(s)`: the last component of a path.
    pub(super) fn subr_basename(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.path_part(args, false, line)
    }

    /// `dirname(s)`: all of a path but its last component.
    pub(super) fn subr_dirname(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.path_part(args, true, line)
    }

    fn path_part(&mut self, args: Vec<CExpr>, dir: bool, line: u32) -> Result<CExpr, CompileError> {
        let ([s], _) = funcs::take(args, line)?;
        let s = Self::string_arg(s);
        Ok(CExpr {
            kind: CKind::PathPart(Box::new(s), dir),
            ty: Type::String,
            line,
        })
    }

    /// `substr(s, index, [length])`: part of `s`.
    pub(super) fn subr_substr(
        &mut self,
        mut args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let as64 = |v: CExpr| CExpr {
            kind: CKind::Cast(Box::new(v)),
            ty: int_ty(types::INT64),
            line,
        };
        let n = (args.len() == 3).then(|| Box::new(as64(args.remove(2))));
        let i = as64(args.remove(1));
        let s = Self::string_arg(args.remove(0));
        Ok(CExpr {
            kind: CKind::Substr(Box::new(s), Box::new(i), n),
            ty: Type::String,
            line,
        })
    }

    /// `lltostr(v)`: the integer in decimal (a constant now).
    pub(super) fn subr_lltostr(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let ([v], _) = funcs::take(args, line)?;
        if let CKind::Int(n) = v.kind {
            return Ok(CExpr {
                kind: CKind::Str(n.to_string().into_bytes()),
                ty: Type::String,
                line,
            });
        }
        let v = CExpr {
            kind: CKind::Cast(Box::new(v)),
            ty: int_ty(types::INT64),
            line,
        };
        Ok(CExpr {
            kind: CKind::Lltostr(Box::new(v)),
            ty: Type::String,
            line,
        })
    }

    /// `inet_ntoa(addr)`: the IPv4 address at `addr` as a dotted quad.
    pub(super) fn subr_inet_ntoa(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.inet(2, args, crate::ir::InetMode::Ntop, line)
    }

    /// `inet_ntoa6(addr [, strict])`: the IPv6 address at `addr` as
    /// text (an IPv4-mapped or -compatible one as its dotted quad; with
    /// a nonzero `strict`, an integer constant, as `inet_ntop` writes it:
    /// DTrace for Linux's second argument).
    pub(super) fn subr_inet_ntoa6(
        &mut self,
        mut args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let mut mode = crate::ir::InetMode::Ntoa6;
        if args.len() > 1 {
            let strict = args.remove(1);
            match strict.kind {
                CKind::Int(0) => {}
                CKind::Int(_) => mode = crate::ir::InetMode::Ntop,
                _ => {
                    return Err(err(
                        Tag::D_PROTO_ARG,
                        strict.line,
                        "inet_ntoa6( ) argument #2 must be an integer constant",
                    ))
                }
            }
        }
        self.inet(10, args, mode, line)
    }

    /// `inet_ntop(af, addr)`: the address at `addr`, of family `af`
    /// (`AF_INET`, `AF_INET6`), as text.
    pub(super) fn subr_inet_ntop(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let ([af, addr], _) = funcs::take(args, line)?;
        Ok(CExpr {
            kind: CKind::InetNtop(Box::new(af), Box::new(addr), crate::ir::InetMode::Ntop),
            ty: Type::String,
            line,
        })
    }

    /// An address of family `af` (Linux's number) as text.
    fn inet(
        &mut self,
        af: i64,
        args: Vec<CExpr>,
        mode: crate::ir::InetMode,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let ([addr], _) = funcs::take(args, line)?;
        let family = CExpr {
            kind: CKind::Int(af),
            ty: int_ty(types::INT),
            line,
        };
        Ok(CExpr {
            kind: CKind::InetNtop(Box::new(family), Box::new(addr), mode),
            ty: Type::String,
            line,
        })
    }

    /// `ntohs`/`htons`: the low two bytes swapped.
    pub(super) fn subr_swap16(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.byte_swap(args, types::UINT16, line)
    }

    /// `ntohl`/`htonl`: the low four bytes reversed.
    pub(super) fn subr_swap32(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.byte_swap(args, types::UINT32, line)
    }

    /// `ntohll`/`htonll`: the eight bytes reversed.
    pub(super) fn subr_swap64(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.byte_swap(args, types::UINT64, line)
    }

    /// The argument, converted to `ty`, with its bytes in the other order:
    /// an OR of each byte shifted to its mirrored place (a constant is
    /// swapped now).
    fn byte_swap(
        &mut self,
        args: Vec<CExpr>,
        ty: IntType,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let ([x], _) = funcs::take(args, line)?;
        let n = ty.size;
        if let CKind::Int(v) = x.kind {
            let v = (v as u64) & (u64::MAX >> (64 - 8 * n));
            let swapped = v.swap_bytes() >> (64 - 8 * n);
            return Ok(CExpr {
                kind: CKind::Int(swapped as i64),
                ty: int_ty(ty),
                line,
            });
        }
        let u64t = int_ty(types::UINT64);
        let mk = |kind: CKind| CExpr {
            kind,
            ty: u64t.clone(),
            line,
        };
        let int = |v: i64| mk(CKind::Int(v));
        let x = mk(CKind::Cast(Box::new(CExpr {
            kind: CKind::Cast(Box::new(x)),
            ty: int_ty(ty),
            line,
        })));
        let mut out: Option<CExpr> = None;
        for i in 0..n {
            let byte = mk(CKind::Arith(
                ArithOp::And,
                Box::new(mk(CKind::Arith(
                    ArithOp::Shr,
                    Box::new(x.clone()),
                    Box::new(int(i64::from(8 * i))),
                ))),
                Box::new(int(0xff)),
            ));
            let placed = mk(CKind::Arith(
                ArithOp::Shl,
                Box::new(byte),
                Box::new(int(i64::from(8 * (n - 1 - i)))),
            ));
            out = Some(match out {
                None => placed,
                Some(o) => mk(CKind::Arith(ArithOp::Or, Box::new(o), Box::new(placed))),
            });
        }
        let out = out.unwrap_or_else(|| int(0));
        Ok(CExpr {
            kind: CKind::Cast(Box::new(out)),
            ty: int_ty(ty),
            line,
        })
    }

    pub(super) fn subr_strlen(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let mk = |kind: CKind, ty: Type| CExpr { kind, ty, line };
        let size_t = int_ty(IntType::new(8, false, "size_t"));
        let ([s], _) = funcs::take(args, line)?;
        if let CKind::Str(ref b) = s.kind {
            // A constant holds no more than strsize characters, as any
            // string.
            let n = b.iter().position(|&c| c == 0).unwrap_or(b.len());
            let n = n.min(self.syms.types.strsize as usize);
            return Ok(mk(CKind::Int(n as i64), size_t));
        }
        // A `char *` or `char []` is the string at that address.
        let s = Self::string_arg(s);
        Ok(mk(CKind::Strlen(Box::new(s)), size_t))
    }
}
