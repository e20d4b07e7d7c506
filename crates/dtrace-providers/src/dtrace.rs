//! The dtrace provider: BEGIN, END and ERROR, always probes 1, 2 and 3.
//! They are not kernel events: BEGIN and END run when the consumer starts
//! and stops tracing (their programs are run with BPF_PROG_TEST_RUN),
//! ERROR inside whichever program faulted (its clauses are compiled into
//! every program).

use std::io;

use dtrace_bpf::plan::{ArgContext, Phase, ProgKind};

use crate::{
    attrs, single, ArgDesc, Attach, Attributes, Enabled, Planned, PlannedProgram, ProbeSink,
    ProbeTable, Provider,
};

const BEGIN: u32 = 0;
const END: u32 = 1;
const ERROR: u32 = 2;

pub struct Dtrace;

impl Provider for Dtrace {
    fn name(&self) -> &str {
        "dtrace"
    }

    fn attributes(&self) -> Attributes {
        Attributes {
            provider: attrs::STABLE,
            module: attrs::PRIVATE,
            function: attrs::PRIVATE,
            name: attrs::STABLE,
            args: attrs::STABLE,
        }
    }

    /// BEGIN, END and ERROR: ids 1, 2 and 3, as in DTrace.
    fn id_span(&mut self) -> u32 {
        3
    }

    fn provide(&mut self, sink: &mut ProbeSink<'_>) {
        sink.add_at(0, "", "", "BEGIN", BEGIN);
        sink.add_at(1, "", "", "END", END);
        sink.add_at(2, "", "", "ERROR", ERROR);
    }

    fn args(&self, local: u32) -> Option<Vec<ArgDesc>> {
        Some(match local {
            ERROR => ["uint64_t", "uint32_t", "uint32_t", "int", "int", "uint64_t"]
                .iter()
                .map(|t| ArgDesc::new(*t, ""))
                .collect(),
            _ => Vec::new(),
        })
    }

    fn plan(&self, table: &ProbeTable, enabled: &[Enabled], out: &mut Planned) -> io::Result<()> {
        for e in enabled {
            let (name, phase) = match e.local {
                BEGIN => ("dt_BEGIN", Phase::Begin),
                END => ("dt_END", Phase::End),
                _ => {
                    out.error_clauses.extend(e.clauses.iter().copied());
                    continue;
                }
            };
            out.programs.push(PlannedProgram {
                plan: single(
                    name,
                    ProgKind::RawTracepoint,
                    ArgContext::None,
                    phase,
                    e.enabling(table, 0),
                    None,
                ),
                attach: Attach::test_run(),
            });
        }
        Ok(())
    }
}
