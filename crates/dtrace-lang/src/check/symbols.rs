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
                    CKind::Int(n) if n > 0 => MAX_STACK_FRAMES,
                    _ => return Err(err(
                        Tag::D_STACK_SIZE,
                        line,
                        "stack( ) size must be a non-zero positive integral constant expression",
                    )),
                },
            };
        let frames = frames.clamp(1, MAX_STACK_FRAMES);
        Ok(CExpr {
            kind: CKind::Stack { frames },
            ty: Special::Stack(frames).type_of(),
            line,
        })
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

/// The (one, checked) argument, as a value printed symbolically.
fn retyped(mut args: Vec<CExpr>, how: Special) -> CExpr {
    let mut a = args.remove(0);
    a.ty = how.type_of();
    a
}

/// The most frames a kernel stack gives (the kernel's default
/// `perf_event_max_stack`).
pub const MAX_STACK_FRAMES: u32 = 127;
