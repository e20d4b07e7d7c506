//! Two consumers side by side in one program: two handles, each with its
//! own programs, maps and buffers, traced at once; each sees only its own
//! data.
//!
//! `twohandles`: handle A counts this program's `getppid` calls and
//! prints from BEGIN, handle B counts its `getpid` calls and prints from
//! BEGIN; the program makes 2 of the first and 3 of the second, then
//! prints what each handle has. Needs the privilege to trace.

use libdtrace::{Dtrace, NullConsumer, ProgramSource, Session, SpecKind, WalkOrder, WorkStatus};

fn handle(name: &str, syscall: &str) -> Result<Dtrace, libdtrace::Error> {
    let mut dt = Dtrace::open()?;
    dt.setopt("quiet", None)?;
    let prog = dt.compile(
        &format!(
            r#"BEGIN {{ printf("{name} begins\n"); }}
               syscall::{syscall}:entry /pid == $pid/ {{ @{name}[probefunc] = count(); }}"#
        ),
        ProgramSource::Description(SpecKind::Name),
    )?;
    dt.exec(&prog)?;
    Ok(dt)
}

/// The handle's own output and aggregations, once stopped.
fn finish(dt: &mut Session) -> Result<String, libdtrace::Error> {
    dt.stop()?;
    let mut out: Vec<u8> = Vec::new();
    while dt.work(&mut out, &mut NullConsumer)? != WorkStatus::Done {}
    let mut text = String::from_utf8_lossy(&out).into_owned();
    dt.aggregate_walk_by(WalkOrder::Key, |name, entries| {
        for e in entries {
            let key: Vec<String> = e.key.iter().map(|k| k.to_string()).collect();
            text.push_str(&format!(
                "@{} {} {}\n",
                name,
                key.join(","),
                e.value.scalar()
            ));
        }
    })?;
    Ok(text)
}

fn main() {
    if let Err(e) = run() {
        eprintln!("twohandles: {}", e);
        std::process::exit(1);
    }
}

fn run() -> Result<(), libdtrace::Error> {
    let a = handle("a", "getppid")?;
    let b = handle("b", "getpid")?;
    let mut a = a.go()?;
    let mut b = b.go()?;
    for _ in 0..2 {
        std::hint::black_box(std::os::unix::process::parent_id());
    }
    for _ in 0..3 {
        std::hint::black_box(std::process::id());
    }
    print!("A:\n{}", finish(&mut a)?);
    print!("B:\n{}", finish(&mut b)?);
    Ok(())
}
