//! The BPF back end: turns checked D clauses into BPF programs and the maps
//! they use, and describes the records those programs leave for the
//! consumer. Pure: it produces instructions and descriptions and never
//! touches the kernel, so everything here is tested without privileges.
//!
//! - `insn`, `asm`: the instruction set and an assembler with labels;
//! - `plan`: what is asked for (program plans) and what comes back (map
//!   specs, record and aggregation layouts);
//! - `layout`: sizes and offsets decided at compile time;
//! - `codegen`, `program`, `expr`: the lowering itself;
//! - `aggs`: the aggregating functions, one module each; `subr`: the
//!   open-coded subroutines, one file per family;
//! - `hook`: what a provider's own hook adds to a program (`Hook`), so
//!   that nothing here names a provider.

#![forbid(unsafe_code)]

pub mod aggs;
pub mod asm;
pub mod codegen;
mod expr;
pub mod hook;
pub mod insn;
pub mod layout;
pub mod plan;
mod program;
pub use program::{lock_key, LOCK_BUSY};
mod ring;
mod spec;
mod subr;

pub use codegen::{generate, GenError, Input};
