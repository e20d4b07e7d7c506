//! The subroutines the back end open-codes, one file per family: each
//! adds the methods that generate its `CKind`s to the program generator.
//! `dpath` walks dentries for `d_path()`; `inet` formats addresses;
//! `json` reads a JSON document for `json()`; `memory` is `alloca()`,
//! `copyin()` and the scratch they allocate; `search` the string scans
//! and `progenyof()`, with the loops the others use (the kernel's number
//! iterator, or a loop the verifier walks); `strings` the other string
//! subroutines.

mod dpath;
mod inet;
pub(crate) mod json;
pub(crate) mod memory;
pub(crate) mod search;
mod strings;
