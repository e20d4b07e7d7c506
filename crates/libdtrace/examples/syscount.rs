//! An intrstat-style consumer: it prints nothing from D (no output
//! actions), but samples an aggregation on its own interval while
//! another thread runs the work loop, sharing the handle behind a mutex
//! (seed 002's per-handle lock).
//!
//! `syscount [INTERVALS [CALLS]]`: counts this program's own `getpid`
//! calls; in each of INTERVALS (default 3) intervals it makes CALLS
//! (default 5) of them, then prints the counts so far, largest first.
//! Needs the privilege to trace.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use libdtrace::AggEntry;
use libdtrace::{Dtrace, NullConsumer, ProgramSource, SpecKind, WalkOrder, WorkStatus};

fn main() {
    let mut args = std::env::args().skip(1);
    let intervals: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(3);
    let calls: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    if let Err(e) = run(intervals, calls) {
        eprintln!("syscount: {}", e);
        std::process::exit(1);
    }
}

fn run(intervals: u32, calls: u32) -> Result<(), libdtrace::Error> {
    let mut dt = Dtrace::open()?;
    let prog = dt.compile(
        "syscall::getpid:entry /pid == $pid/ { @calls[probefunc] = count(); }",
        ProgramSource::Description(SpecKind::Name),
    )?;
    dt.exec(&prog)?;
    let dt = dt.go()?;
    let dt = Arc::new(Mutex::new(dt));
    let done = Arc::new(AtomicBool::new(false));

    // The work loop, in a thread of its own: it waits with the handle
    // released, then takes it to consume.
    let worker = {
        let (dt, done) = (dt.clone(), done.clone());
        std::thread::spawn(move || -> Result<(), libdtrace::Error> {
            let mut sink = std::io::sink();
            loop {
                let waiter = dt.lock().expect("handle").waiter();
                if let Some(w) = waiter {
                    w.wait();
                }
                let mut dt = dt.lock().expect("handle");
                if done.load(Ordering::SeqCst) {
                    dt.stop()?;
                }
                if dt.work(&mut sink, &mut NullConsumer)? == WorkStatus::Done {
                    return Ok(());
                }
            }
        })
    };

    // Sampling, on this program's own interval.
    for i in 1..=intervals {
        for _ in 0..calls {
            // std's process ID is glibc's getpid(), a system call each
            // time (glibc keeps no cache of it).
            std::hint::black_box(std::process::id());
        }
        let mut line = format!("interval {}:", i);
        dt.lock().expect("handle").aggregate_walk_by(
            WalkOrder::ValueReversed,
            |_, entries: &[AggEntry]| {
                for e in entries {
                    let key: Vec<String> = e.key.iter().map(|k| k.to_string()).collect();
                    line.push_str(&format!(" {} {}", key.join(","), e.value.scalar()));
                }
            },
        )?;
        println!("{}", line);
    }
    done.store(true, Ordering::SeqCst);
    worker.join().expect("work loop")
}
