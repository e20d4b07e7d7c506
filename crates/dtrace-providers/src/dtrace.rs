//! The dtrace provider: BEGIN, END and ERROR, always probes 1, 2 and 3.
//! They are not kernel events: BEGIN and END run when the consumer starts
//! and stops tracing, ERROR inside whichever program faulted.

use crate::{Kind, Probes};

pub fn provide(p: &mut Probes) {
    p.add("dtrace", "", "", "BEGIN", Kind::Begin);
    p.add("dtrace", "", "", "END", Kind::End);
    p.add("dtrace", "", "", "ERROR", Kind::Error);
}
