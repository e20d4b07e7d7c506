//! The contexts of the attach kinds the back end knows itself, a file
//! each: how the hook's context yields the probe's arguments, and any
//! steps of its own. A provider's own context is a [`crate::hook::Hook`]
//! beside the provider instead.

use super::*;

mod kprobe;
mod perf_event;
mod raw;
mod tracepoint;
mod uprobe;
