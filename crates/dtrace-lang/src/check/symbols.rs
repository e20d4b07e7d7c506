//! `stack()`, `sym()`, `func()` and `mod()`: values the consumer prints
//! symbolically. Their types say so (`types::Special`): a stack is its
//! return addresses, by reference; a symbol or module is the address.

use super::*;
use crate::types::Special;

impl Checker<'_> {
    /// `stack([n])`: `n` frames (a positive constant), or the
    /// `stackframes` option's number.
    pub(super) fn subr_stack(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let frames =
            match args.first() {
                None => self.syms.types.stackframes,
                Some(a) => match a.kind {
                    CKind::Int(n) if n > 0 && n <= i64::from(MAX_STACK_FRAMES) => n as u32,
                    // The kernel walks no more (perf_event_max_stack).
                    CKind::Int(n) if n > 0 => {
                        return Err(err(
                            Tag::D_STACK_SIZE,
                            line,
                            format!(
                                "stack( ) size {} exceeds the limit of {} frames",
                                n, MAX_STACK_FRAMES
                            ),
                        ))
                    }
                    _ => return Err(err(
                        Tag::D_STACK_SIZE,
                        line,
                        "stack( ) size must be a non-zero positive integral constant expression",
                    )),
                },
            };
        let frames = frames
            .min(self.syms.types.maxframes)
            .clamp(1, MAX_STACK_FRAMES);
        Ok(CExpr {
            kind: CKind::Stack { frames },
            ty: Special::Stack(frames).type_of(),
            line,
        })
    }

    /// `ustack(n, strsize)`: a snapshot of the user stack
    /// (`types::ustack_snapshot`) that the consumer unwinds to `n` frames
    /// at most (`ustackframes` by default). `strsize` is the
    /// room for the frames a ustack helper (a JVM's) names: there are
    /// none on Linux, so only 0 is taken.
    pub(super) fn subr_ustack(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let n = self.syms.types.ustackframes;
        self.user_stack(args, n, "ustack", line)
    }

    /// `jstack(n, strsize)`: `ustack()` with `jstackframes` frames by
    /// default (the frames of a process with no ustack helper, as in
    /// DTrace).
    pub(super) fn subr_jstack(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let n = self.syms.types.jstackframes;
        self.user_stack(args, n, "jstack", line)
    }

    fn user_stack(
        &mut self,
        args: Vec<CExpr>,
        default: u32,
        name: &str,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        let frames = match args.first() {
            None => default,
            Some(a) => match a.kind {
                CKind::Int(n) if n > 0 && n <= i64::from(MAX_STACK_FRAMES) => n as u32,
                CKind::Int(n) if n > 0 => {
                    return Err(err(
                        Tag::D_USTACK_FRAMES,
                        line,
                        format!(
                            "{}( ) argument #1 {} exceeds the limit of {} frames",
                            name, n, MAX_STACK_FRAMES
                        ),
                    ))
                }
                _ => {
                    return Err(err(
                        Tag::D_USTACK_FRAMES,
                        line,
                        format!(
                            "{}( ) argument #1 must be a non-zero positive integer constant",
                            name
                        ),
                    ))
                }
            },
        };
        match args.get(1).map(|a| &a.kind) {
            None | Some(CKind::Int(0)) => {}
            Some(CKind::Int(n)) if *n > 0 => {
                return Err(err(
                    Tag::D_USTACK_STRSIZE,
                    line,
                    format!(
                        "{}( ) argument #2: there are no ustack helpers on Linux to fill string space; give 0",
                        name
                    ),
                ))
            }
            Some(_) => {
                return Err(err(
                    Tag::D_USTACK_STRSIZE,
                    line,
                    format!(
                        "{}( ) argument #2 must be a positive integer constant",
                        name
                    ),
                ))
            }
        }
        let frames = frames
            .min(self.syms.types.maxframes)
            .clamp(1, MAX_STACK_FRAMES);
        let words = crate::types::ustack_snapshot::REF_WORDS;
        Ok(CExpr {
            kind: CKind::UStack {
                frames,
                jit: name == "jstack",
            },
            ty: Special::UStack(words).type_of(),
            line,
        })
    }

    /// `usym(addr)` and `ufunc(addr)`: the address in the current
    /// process, printed as the user symbol that holds it.
    pub(super) fn subr_usym(&mut self, args: Vec<CExpr>, line: u32) -> Result<CExpr, CompileError> {
        Ok(user_addr(args, Special::USym, line))
    }

    /// `umod(addr)`: printed as the user module that holds it.
    pub(super) fn subr_umod(&mut self, args: Vec<CExpr>, line: u32) -> Result<CExpr, CompileError> {
        Ok(user_addr(args, Special::UMod, line))
    }

    /// `uaddr(addr)`: printed as `module`function+0xoff`.
    pub(super) fn subr_uaddr(
        &mut self,
        args: Vec<CExpr>,
        line: u32,
    ) -> Result<CExpr, CompileError> {
        Ok(user_addr(args, Special::UAddr, line))
    }

    /// `sym(addr)` and `func(addr)`: the address, printed as the kernel
    /// symbol that holds it.
    pub(super) fn subr_sym(&mut self, args: Vec<CExpr>, _line: u32) -> Result<CExpr, CompileError> {
        Ok(retyped(args, Special::Sym))
    }

    /// `mod(addr)`: the address, printed as the module that holds it.
    pub(super) fn subr_mod(&mut self, args: Vec<CExpr>, _line: u32) -> Result<CExpr, CompileError> {
        Ok(retyped(args, Special::Mod))
    }
}

/// A user address with the process ID, printed as `how` says.
fn user_addr(mut args: Vec<CExpr>, how: Special, line: u32) -> CExpr {
    let a = args.remove(0);
    CExpr {
        kind: CKind::UserAddr(Box::new(a)),
        ty: how.type_of(),
        line,
    }
}

/// The (one, checked) argument, as a value printed symbolically.
fn retyped(mut args: Vec<CExpr>, how: Special) -> CExpr {
    let mut a = args.remove(0);
    a.ty = how.type_of();
    a
}

/// The most frames a kernel stack gives (the kernel's default
/// `perf_event_max_stack`).
pub const MAX_STACK_FRAMES: u32 = 127;
