//! An event stream: each `printf()` a probe fires reaches the program as
//! a record of typed values (integers with their D types, strings), not
//! as text; the program draws nothing but its own lines, and the
//! library's formatted text goes to a buffered-output handler that
//! drops it.
//!
//! `events [CALLS]`: traces this program's own `getpid` calls (CALLS of
//! them, default 3) with `printf("%d %s %d\n", tid, execname, n++)` and
//! prints each record's values with their types. Needs the privilege to
//! trace.

use std::io::Write;

use libdtrace::Arg;
use libdtrace::{
    Consume, Consumer, Dtrace, ProbeData, ProgramSource, RecDesc, RecKind, WorkStatus,
};

/// Collects each printf's values, typed.
#[derive(Default)]
struct Events {
    lines: Vec<String>,
}

impl Consumer for Events {
    fn record(&mut self, _out: &mut dyn Write, pd: &ProbeData, rec: Option<&RecDesc>) -> Consume {
        let Some(rec) = rec else {
            return Consume::Next;
        };
        if rec.kind != RecKind::Printf {
            return Consume::This;
        }
        let values: Vec<String> = rec
            .values
            .iter()
            .map(|v| match v {
                Arg::Int(i, t) => format!("{}:{}", t.name, i),
                Arg::Str(s) => format!("string:{:?}", String::from_utf8_lossy(s)),
                other => format!("{:?}", other),
            })
            .collect();
        self.lines
            .push(format!("{} {}", pd.probe.function, values.join(" ")));
        Consume::This
    }
}

fn main() {
    let calls: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3);
    match run(calls) {
        Ok(lines) => {
            for l in lines {
                println!("{}", l);
            }
        }
        Err(e) => {
            eprintln!("events: {}", e);
            std::process::exit(1);
        }
    }
}

fn run(calls: u32) -> Result<Vec<String>, libdtrace::Error> {
    let mut dt = Dtrace::open()?;
    dt.setopt("quiet", None)?;
    // The text the library would print: nowhere.
    dt.handle_buffered(|_| {});
    let prog = dt.compile(
        "int n;\nsyscall::getpid:entry /pid == $pid/ { printf(\"%d %s %d\\n\", tid == pid, execname, n++); }\n",
        ProgramSource::File,
    )?;
    dt.exec(&prog)?;
    let mut dt = dt.go()?;
    for _ in 0..calls {
        // std's process ID is glibc's getpid(), a system call each time.
        std::hint::black_box(std::process::id());
    }
    dt.stop()?;
    let mut events = Events::default();
    let mut out = std::io::sink();
    while dt.work(&mut out, &mut events)? != WorkStatus::Done {}
    Ok(events.lines)
}
