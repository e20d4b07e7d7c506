//! Stop signals for a consumer's main loop, as dtrace(1M) handles them:
//! SIGINT and SIGTERM stop tracing (END runs, aggregations print), a
//! second one says "impatient" (skip printing), and a consumer that was
//! stopped before tracing started dies of the signal it got. Also writes
//! to a slow or blocked output that such a signal interrupts.
//!
//! ```no_run
//! let signals = libdtrace::signals::StopSignals::install()?;
//! // ... in the work loop: wake on `signals.fd()`, and
//! if signals.count() > 0 { /* stop tracing */ }
//! # Ok::<(), std::io::Error>(())
//! ```

pub use dtrace_sys::poll::{
    die_of_stop_signal, stop_signals, wait_writable, StopSignals, WriteWait,
};
