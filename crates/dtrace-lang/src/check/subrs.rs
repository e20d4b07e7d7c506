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
        self.search(args, SearchMode::Strchr, line)
    }

    /// `strrchr(s, c)`: `s` from the last `c` on, or NULL.
    pub(super) fn subr_strrchr(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.search(args, SearchMode::Strrchr, line)
    }

    /// `strstr(s, t)`: `s` from the first `t` in it on, or NULL.
    pub(super) fn subr_strstr(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.search(args, SearchMode::Strstr, line)
    }

    /// `index(s, t [, pos])`: where `t` first is in `s` (from `pos`), or
    /// -1.
    pub(super) fn subr_index(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.search(args, SearchMode::Index, line)
    }

    /// `rindex(s, t [, pos])`: where `t` last is in `s` (up to `pos`), or
    /// -1.
    pub(super) fn subr_rindex(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.search(args, SearchMode::Rindex, line)
    }

    fn search(
        &mut self,
        mut args: Vec<CExpr>,
        mode: SearchMode,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let char_arg = matches!(mode, SearchMode::Strchr | SearchMode::Strrchr);
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
        self.scratch_fits(&n, line)?;
        Ok(CExpr {
            kind: CKind::Alloca(Box::new(n)),
            ty: Type::ptr(Type::Void),
            line,
        })
    }

    /// A constant size a clause cannot allocate (more than
    /// `scratchsize`) is refused, as DTrace for Linux refuses it.
    fn scratch_fits(&self, size: &CExpr, line: u32) -> Result<(), CompileError> {
        let max = self.syms.types.scratchsize;
        match size.kind {
            CKind::Int(n) if n as u64 > u64::from(max) => Err(err(
                Tag::D_ALLOCA_SIZE,
                line,
                format!("alloca({}) size larger than scratchsize {}", n as u64, max),
            )),
            _ => Ok(()),
        }
    }

    /// `copyin(addr, size)`: user memory copied into scratch space.
    pub(super) fn subr_copyin(
        &mut self,
        mut args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let n = args.remove(1);
        let a = args.remove(0);
        self.scratch_fits(&n, line)?;
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

    /// `link_ntop(type, addr)`: a link-layer address (Ethernet,
    /// InfiniBand) as text.
    pub(super) fn subr_link_ntop(
        &mut self,
        mut args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let addr = args.remove(1);
        let ty = args.remove(0);
        Ok(CExpr {
            kind: CKind::LinkNtop(Box::new(ty), Box::new(addr)),
            ty: Type::String,
            line,
        })
    }

    /// `json(document, selector)`: a value of a JSON document (illumos).
    pub(super) fn subr_json(
        &mut self,
        mut args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let sel = Self::string_arg(args.remove(1));
        let doc = Self::string_arg(args.remove(0));
        Ok(CExpr {
            kind: CKind::Json(Box::new(doc), Box::new(sel)),
            ty: Type::String,
            line,
        })
    }

    /// `cleanpath(s)`: `s` with `//`, `/./` and `/../` resolved.
    pub(super) fn subr_cleanpath(
        &mut self,
        mut args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let s = Self::string_arg(args.remove(0));
        Ok(CExpr {
            kind: CKind::Cleanpath(Box::new(s)),
            ty: Type::String,
            line,
        })
    }

    /// `strtok(s, delims)`: the first token of `s`, or with `s` NULL the
    /// next one of the string of the last call.
    pub(super) fn subr_strtok(
        &mut self,
        mut args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let delims = Self::string_arg(args.remove(1));
        let s = args.remove(0);
        let again = matches!(s.kind, CKind::Int(0)) && !s.ty.is_string();
        let s = if again {
            CExpr {
                kind: CKind::Str(Vec::new()),
                ty: Type::String,
                line,
            }
        } else {
            Self::string_arg(s)
        };
        Ok(CExpr {
            kind: CKind::Strtok {
                s: Box::new(s),
                delims: Box::new(delims),
                again,
            },
            ty: Type::String,
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

    /// The kernel word a lock subroutine reads: the integer of type
    /// `ty` at `path` (members, through anonymous ones) in the object
    /// `p` points to, offsets from the kernel's BTF.
    fn lock_word(
        &mut self,
        name: &str,
        p: CExpr,
        path: &[&str],
        ty: IntType,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let mut off = 0u64;
        let mut cur = p.ty.pointee().cloned().unwrap_or(Type::Void);
        for m in path {
            let found = match cur.resolved() {
                Type::Record(r) => {
                    let r = r.clone();
                    self.syms.types.member(&r, m)
                }
                _ => None,
            };
            let Some(f) = found else {
                return Err(err(
                    Tag::D_NOTSUP,
                    line,
                    format!(
                        "{}( ) is not supported here: the kernel's BTF has no {} in {}",
                        name, m, cur
                    ),
                ));
            };
            off += f.bit_offset / 8;
            cur = f.ty;
        }
        let uptr = int_ty(types::UINTPTR_T);
        let addr = CExpr {
            kind: CKind::Arith(
                ArithOp::Add,
                Box::new(CExpr {
                    kind: CKind::Cast(Box::new(p)),
                    ty: uptr.clone(),
                    line,
                }),
                Box::new(CExpr {
                    kind: CKind::Int(off as i64),
                    ty: uptr.clone(),
                    line,
                }),
            ),
            ty: uptr,
            line,
        };
        Ok(CExpr {
            kind: CKind::Deref(Box::new(addr)),
            ty: Type::Int(ty),
            line,
        })
    }

    /// `(word & mask) op value`, an int.
    fn masked_test(word: CExpr, mask: i64, op: CmpOp, value: i64, line: u32) -> CExpr {
        let ty = word.ty.clone();
        let masked = CExpr {
            kind: CKind::Arith(
                ArithOp::And,
                Box::new(word),
                Box::new(CExpr {
                    kind: CKind::Int(mask),
                    ty: ty.clone(),
                    line,
                }),
            ),
            ty: ty.clone(),
            line,
        };
        CExpr {
            kind: CKind::Cmp(
                op,
                Box::new(masked),
                Box::new(CExpr {
                    kind: CKind::Int(value),
                    ty,
                    line,
                }),
                false,
            ),
            ty: int_ty(types::INT),
            line,
        }
    }

    /// `mutex_owned(m)`: whether a task holds the kernel mutex (its
    /// `owner` word, less the flag bits, is not 0).
    pub(super) fn subr_mutex_owned(
        &mut self,
        mut args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let w = self.lock_word(
            "mutex_owned",
            args.remove(0),
            &["owner"],
            types::UINT64,
            line,
        )?;
        Ok(Self::masked_test(w, !MUTEX_FLAGS, CmpOp::Ne, 0, line))
    }

    /// `mutex_owner(m)`: the task holding the kernel mutex, or NULL.
    pub(super) fn subr_mutex_owner(
        &mut self,
        mut args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let w = self.lock_word(
            "mutex_owner",
            args.remove(0),
            &["owner"],
            types::UINT64,
            line,
        )?;
        let task = self
            .syms
            .types
            .tagged(TagKind::Struct, "task_struct", Some("vmlinux"))
            .map(Type::ptr)
            .unwrap_or_else(|| Type::ptr(Type::Void));
        let ty = w.ty.clone();
        Ok(CExpr {
            kind: CKind::Cast(Box::new(CExpr {
                kind: CKind::Arith(
                    ArithOp::And,
                    Box::new(w),
                    Box::new(CExpr {
                        kind: CKind::Int(!MUTEX_FLAGS),
                        ty: ty.clone(),
                        line,
                    }),
                ),
                ty,
                line,
            })),
            ty: task,
            line,
        })
    }

    /// `mutex_type_adaptive(m)`: 1. Every Linux mutex is adaptive: it
    /// spins while its owner runs, then sleeps.
    pub(super) fn subr_mutex_type_adaptive(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.lock_constant(args, 1, line)
    }

    /// `mutex_type_spin(m)`: 0. A Linux mutex is never a spin lock (those
    /// are `spinlock_t`).
    pub(super) fn subr_mutex_type_spin(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        self.lock_constant(args, 0, line)
    }

    fn lock_constant(
        &mut self,
        _args: Vec<CExpr>,
        v: i64,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        Ok(CExpr {
            kind: CKind::Int(v),
            ty: int_ty(types::INT),
            line,
        })
    }

    /// `rw_read_held(rw)`: whether readers hold the kernel rwlock (the
    /// reader count of its `cnts`, above bit 9, is not 0).
    pub(super) fn subr_rw_read_held(
        &mut self,
        mut args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let w = self.rw_word("rw_read_held", args.remove(0), line)?;
        Ok(Self::masked_test(w, !QRW_WMASK, CmpOp::Ne, 0, line))
    }

    /// `rw_write_held(rw)`: whether a writer holds the kernel rwlock (its
    /// `cnts` low byte is `_QW_LOCKED`).
    pub(super) fn subr_rw_write_held(
        &mut self,
        mut args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let w = self.rw_word("rw_write_held", args.remove(0), line)?;
        Ok(Self::masked_test(
            w,
            QRW_LOCKED,
            CmpOp::Eq,
            QRW_LOCKED,
            line,
        ))
    }

    /// `rw_iswriter(rw)`: whether a writer holds or waits for the kernel
    /// rwlock (`_QW_LOCKED` or `_QW_WAITING` in its `cnts`).
    pub(super) fn subr_rw_iswriter(
        &mut self,
        mut args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let w = self.rw_word("rw_iswriter", args.remove(0), line)?;
        Ok(Self::masked_test(w, QRW_WMASK, CmpOp::Ne, 0, line))
    }

    fn rw_word(&mut self, name: &str, p: CExpr, line: u32) -> Result<CExpr, CompileError> {
        self.lock_word(name, p, &["raw_lock", "cnts"], types::UINT32, line)
    }
}

/// The kernel's `MINORBITS`: a `dev_t`'s minor number is its low 20 bits.
const DEV_MINORBITS: i64 = 20;
/// The flag bits of a kernel mutex's `owner` word (`MUTEX_FLAGS`).
const MUTEX_FLAGS: i64 = 0x07;
/// A queued rwlock's `cnts`: `_QW_LOCKED`, and `_QW_WMASK` (locked or
/// waiting writer); readers are counted above.
const QRW_LOCKED: i64 = 0xff;
const QRW_WMASK: i64 = 0x1ff;
