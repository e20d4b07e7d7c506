//! No attachment: BEGIN and END, which the consumer runs itself with
//! `BPF_PROG_TEST_RUN` when tracing starts and ends.

use std::fmt;
use std::io;
use std::os::fd::OwnedFd;
use std::path::PathBuf;

use super::{AttachKind, LeftOut, Link};

#[derive(Debug)]
pub struct TestRun;

impl fmt::Display for TestRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("test run")
    }
}

impl AttachKind for TestRun {
    fn run_by_consumer(&self) -> bool {
        true
    }

    fn attach(&self, _: &OwnedFd, _: Option<&PathBuf>) -> io::Result<(Vec<Link>, LeftOut)> {
        Ok((Vec::new(), Vec::new()))
    }
}
