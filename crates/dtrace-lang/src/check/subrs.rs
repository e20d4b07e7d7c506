//! Subroutines that search strings (`strchr`, `strrchr`, `strstr`,
//! `index`, `rindex`), `strtoll`, the scratch-memory ones (`alloca`,
//! `copyin`, `copyinto`, `bcopy`), and `rand`, `getmajor`, `getminor` and
//! `progenyof`: their checks and lowerings.

use super::*;

impl Checker<'_> {
    /// `strchr(s, c)`: `s` from the first `c` on, or NULL.
    pub(super) fn subr_strchr(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.search("strchr", args, SearchMode::Strchr, line)
    }

    /// `strrchr(s, c)`: `s` from the last `c` on, or NULL.
    pub(super) fn subr_strrchr(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.search("strrchr", args, SearchMode::Strrchr, line)
    }

    /// `strstr(s, t)`: `s` from the first `t` in it on, or NULL.
    pub(super) fn subr_strstr(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.search("strstr", args, SearchMode::Strstr, line)
    }

    /// `index(s, t [, pos])`: where `t` first is in `s` (from `pos`), or
    /// -1.
    pub(super) fn subr_index(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.search("index", args, SearchMode::Index, line)
    }

    /// `rindex(s, t [, pos])`: where `t` last is in `s` (up to `pos`), or
    /// -1.
    pub(super) fn subr_rindex(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.search("rindex", args, SearchMode::Rindex, line)
    }

    fn search(
        &mut self,
        name: &str,
        mut args: Vec<CExpr>,
        mode: SearchMode,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let char_arg = matches!(mode, SearchMode::Strchr | SearchMode::Strrchr);
        let range = match mode {
            SearchMode::Index | SearchMode::Rindex => 2..=3,
            _ => 2..=2,
        };
        if !range.contains(&args.len()) {
            let want = if range.end() == &3 { "2 or 3" } else { "2" };
            return Err(self.proto_len(name, args.len(), want, line));
        }
        let as64 = |v: CExpr| CExpr {
            kind: CKind::Cast(Box::new(v)),
            ty: int_ty(types::INT64),
            line,
        };
        let pos = (args.len() == 3).then(|| Box::new(as64(args.remove(2))));
        let needle = args.remove(1);
        let needle = if char_arg {
            CExpr {
                kind: CKind::Cast(Box::new(needle)),
                ty: int_ty(types::UCHAR),
                line,
            }
        } else {
            Self::string_arg(needle)
        };
        let hay = Self::string_arg(args.remove(0));
        let ty = match mode {
            SearchMode::Index | SearchMode::Rindex => int_ty(types::INT),
            _ => Type::String,
        };
        Ok(CExpr {
            kind: CKind::StrSearch {
                hay: Box::new(hay),
                needle: Box::new(needle),
                pos,
                mode,
            },
            ty,
            line,
        })
    }

    /// `strtoll(s [, base])`: the number `s` begins with, in `base` (10
    /// if not given; 2 to 36).
    pub(super) fn subr_strtoll(
        &mut self,
        mut args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let base = (args.len() == 2).then(|| {
            Box::new(CExpr {
                kind: CKind::Cast(Box::new(args.remove(1))),
                ty: int_ty(types::INT64),
                line,
            })
        });
        let s = Self::string_arg(args.remove(0));
        Ok(CExpr {
            kind: CKind::Strtoll(Box::new(s), base),
            ty: int_ty(types::INT64),
            line,
        })
    }

    /// `alloca(size)`: scratch space for the rest of the clause.
    pub(super) fn subr_alloca(
        &mut self,
        mut args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let n = args.remove(0);
        Ok(CExpr {
            kind: CKind::Alloca(Box::new(n)),
            ty: Type::ptr(Type::Void),
            line,
        })
    }

    /// `copyin(addr, size)`: user memory copied into scratch space.
    pub(super) fn subr_copyin(
        &mut self,
        mut args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let n = args.remove(1);
        let a = args.remove(0);
        Ok(CExpr {
            kind: CKind::Copyin(Box::new(a), Box::new(n)),
            ty: Type::ptr(Type::Void),
            line,
        })
    }

    /// `copyinto(addr, size, dest)`: user memory copied into scratch
    /// space at `dest`.
    pub(super) fn subr_copyinto(
        &mut self,
        mut args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let d = args.remove(2);
        let n = args.remove(1);
        let a = args.remove(0);
        Ok(CExpr {
            kind: CKind::Copyinto(Box::new(a), Box::new(n), Box::new(d)),
            ty: Type::Void,
            line,
        })
    }

    /// `bcopy(src, dest, size)`: memory copied into scratch space.
    pub(super) fn subr_bcopy(
        &mut self,
        mut args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let n = args.remove(2);
        let d = args.remove(1);
        let src = args.remove(0);
        Ok(CExpr {
            kind: CKind::Bcopy(Box::new(src), Box::new(d), Box::new(n)),
            ty: Type::Void,
            line,
        })
    }

    /// `rand()`: a pseudo-random integer (the kernel's `prandom`).
    pub(super) fn subr_rand(
        &mut self,
        _args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        Ok(CExpr {
            kind: CKind::Rand,
            ty: int_ty(types::INT),
            line,
        })
    }

    /// `getmajor(dev)`: the major number of a Linux `dev_t` (its bits
    /// above the low 20, as the kernel's `MAJOR()`).
    pub(super) fn subr_getmajor(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.dev_part(args, ArithOp::Shr, DEV_MINORBITS, line)
    }

    /// `getminor(dev)`: the minor number of a Linux `dev_t` (its low 20
    /// bits, as the kernel's `MINOR()`).
    pub(super) fn subr_getminor(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.dev_part(args, ArithOp::And, (1 << DEV_MINORBITS) - 1, line)
    }

    fn dev_part(
        &mut self,
        mut args: Vec<CExpr>,
        op: ArithOp,
        k: i64,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let dev = CExpr {
            kind: CKind::Cast(Box::new(args.remove(0))),
            ty: int_ty(types::UINT32),
            line,
        };
        let k = CExpr {
            kind: CKind::Int(k),
            ty: int_ty(types::UINT32),
            line,
        };
        Ok(fold(CExpr {
            kind: CKind::Arith(op, Box::new(dev), Box::new(k)),
            ty: int_ty(types::UINT32),
            line,
        }))
    }

    /// `progenyof(pid)`: 1 if the current process is `pid` or one of its
    /// descendants, else 0.
    pub(super) fn subr_progenyof(
        &mut self,
        mut args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let pid = CExpr {
            kind: CKind::Cast(Box::new(args.remove(0))),
            ty: int_ty(types::INT),
            line,
        };
        Ok(CExpr {
            kind: CKind::Progenyof(Box::new(pid)),
            ty: int_ty(types::INT),
            line,
        })
    }
}

/// The kernel's `MINORBITS`: a `dev_t`'s minor number is its low 20 bits.
const DEV_MINORBITS: i64 = 20;
