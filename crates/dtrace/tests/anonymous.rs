//! Anonymous tracing (`dtrace -A`, `dtrace -a`), the whole cycle without a
//! reboot and through real boots of other kernels: `-A` saves the
//! enabling and adds the unit; the unit's `ExecStart`, run as boot would
//! run it, starts and pins the enabling and returns; a program named
//! `gpp` makes its calls with no consumer running; `-a` claims the state
//! and prints what the probes recorded; afterwards nothing of the
//! enabling is left in the kernel; `systemd-analyze verify` takes the
//! unit. Also: the ring policy keeps the
//! newest records of an unclaimed enabling, the default policy reports
//! its drops when claimed, `-A` alone removes everything, and misuse is
//! refused with DTrace's words.
//!
//! The trials change `/etc/dtrace/anonymous`, the unit under
//! `/etc/systemd/system` and `/sys/fs/bpf/dtrace`, and remove them when
//! they end: an anonymous enabling of the machine's own is removed too.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use libtest_mimic::{Arguments, Failed, Trial};

const DTRACE: &str = env!("CARGO_BIN_EXE_dtrace");
/// Makes N getppid calls.
const GETPPIDS: &str = "--dtrace-anon-getppids";
const UNIT: &str = "/etc/systemd/system/dtrace-anon.service";
const PINS: &str = "/sys/fs/bpf/dtrace";
const PROGRAM: &str = "syscall::getppid:entry /execname == \"gpp\"/ { @ = count(); }";

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn dtrace(args: &[&str]) -> Output {
    Command::new(DTRACE)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run dtrace")
}

fn check(cond: bool, what: &str, o: &Output) -> Result<(), Failed> {
    if cond {
        return Ok(());
    }
    Err(format!(
        "{}\n--- stdout ---\n{}--- stderr ---\n{}",
        what,
        text(&o.stdout),
        text(&o.stderr)
    )
    .into())
}

/// This test executable as `gpp` (a link of that name: its processes'
/// execname), for the saved programs' predicates.
fn gpp() -> Result<PathBuf, Failed> {
    let dir = std::env::temp_dir().join(format!("dtrace-anon-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let link = dir.join("gpp");
    if !link.exists() {
        std::os::unix::fs::symlink(std::env::current_exe()?, &link)?;
    }
    Ok(link)
}

/// `gpp` making `n` getppid calls.
fn getppids(n: u32) -> Result<(), Failed> {
    let st = Command::new(gpp()?)
        .args([GETPPIDS, &n.to_string()])
        .status()?;
    if !st.success() {
        return Err("gpp failed".into());
    }
    Ok(())
}

/// The unit's ExecStart, as boot runs it.
fn exec_start() -> Result<Vec<String>, Failed> {
    let unit = std::fs::read_to_string(UNIT).map_err(|e| format!("{}: {}", UNIT, e))?;
    let line = unit
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .ok_or("the unit has no ExecStart")?;
    Ok(line.split_whitespace().map(str::to_string).collect())
}

fn run_exec_start() -> Result<Output, Failed> {
    let argv = exec_start()?;
    Ok(Command::new(&argv[0])
        .args(&argv[1..])
        .stdin(Stdio::null())
        .output()?)
}

/// The BPF programs, maps and links of dtrace's (`dt_` names) in the
/// kernel now.
fn dt_objects() -> (usize, usize, usize) {
    dtrace_sys::bpf::count_objects("dt_").unwrap_or((0, 0, 0))
}

/// Whether dtrace's objects are back to `before` (or fewer), waiting for
/// the kernel to free them: programs and links go as their last
/// descriptor closes, maps in deferred work after them (a hang
/// detector's deadline, not a timing).
fn released(before: (usize, usize, usize)) -> (bool, (usize, usize, usize)) {
    let start = std::time::Instant::now();
    loop {
        let now = dt_objects();
        if now.0 <= before.0 && now.1 <= before.1 && now.2 <= before.2 {
            return (true, now);
        }
        if start.elapsed() > Duration::from_secs(30) {
            return (false, now);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Removes whatever anonymous enabling there is, as `-A` alone does.
fn clean() {
    let _ = dtrace(&["-A"]);
}

/// `dtrace -a`, stopped by SIGINT after a second (as a user would).
fn claim_interrupted(extra: &[&str]) -> Result<Output, Failed> {
    let child = Command::new(DTRACE)
        .arg("-a")
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    std::thread::sleep(Duration::from_secs(1));
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    Ok(child.wait_with_output()?)
}

fn whole_cycle() -> Result<(), Failed> {
    clean();
    let before = dt_objects();
    let o = dtrace(&["-A", "-n", PROGRAM]);
    check(
        o.status.success()
            && text(&o.stderr)
                .contains("dtrace: saved anonymous enabling in /etc/dtrace/anonymous\n")
            && Path::new(UNIT).exists(),
        "-A did not save the enabling and add the unit",
        &o,
    )?;
    let unit = std::fs::read_to_string(UNIT)?;
    check(
        unit.contains("DefaultDependencies=no\n")
            && std::fs::read_link("/etc/systemd/system/sysinit.target.wants/dtrace-anon.service")
                .is_ok(),
        "the unit is not enabled early",
        &o,
    )?;
    // systemd's own checker takes the unit: its syntax, its dependencies,
    // no ordering cycle, an ExecStart that exists.
    let verified = Command::new("systemd-analyze")
        .args(["verify", UNIT])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("systemd-analyze (Debian's systemd package): {}", e))?;
    check(
        verified.status.success() && verified.stderr.is_empty(),
        "systemd-analyze verify refused the unit",
        &verified,
    )?;
    let started = run_exec_start()?;
    check(
        started.status.success() && Path::new(PINS).is_dir(),
        "ExecStart did not leave the enabling pinned",
        &started,
    )?;
    // No consumer runs: the probes record on their own.
    getppids(1000)?;
    let claimed = claim_interrupted(&[])?;
    let ok = text(&claimed.stdout).trim() == "1000";
    let (gone, after) = released(before);
    clean();
    check(ok, "-a did not print 1000", &claimed)?;
    check(
        !Path::new(PINS).exists() && gone,
        &format!("left behind: {:?} before, {:?} after", before, after),
        &claimed,
    )?;
    // Claimed once: a second claim has nothing.
    let again = dtrace(&["-a"]);
    check(
        text(&again.stderr) == "dtrace: could not enable tracing: No anonymous tracing state\n"
            && again.status.code() == Some(1),
        "a second -a",
        &again,
    )
}

fn without_program_removes_everything() -> Result<(), Failed> {
    clean();
    let before = dt_objects();
    dtrace(&["-A", "-n", PROGRAM]);
    run_exec_start()?;
    let o = dtrace(&["-A"]);
    let want = "dtrace: cleaned up old anonymous enabling in /etc/dtrace/anonymous\n\
                dtrace: cleaned up /etc/systemd/system/dtrace-anon.service\n\
                dtrace: cleaned up anonymous state in /sys/fs/bpf/dtrace\n";
    check(
        o.status.success()
            && text(&o.stderr) == want
            && !Path::new(UNIT).exists()
            && !Path::new("/etc/dtrace/anonymous").exists()
            && !Path::new(PINS).exists()
            && released(before).0,
        "-A alone did not remove everything",
        &o,
    )
}

/// 5,000 records numbered in order, into a buffer of 16 KiB that nobody
/// reads until the claim (`dtrace -a -e`), with `options`: the claim's
/// output and the numbers it printed.
fn numbered_records(options: &[&str]) -> Result<(Output, Vec<u64>), Failed> {
    clean();
    let mut args = vec!["-A", "-q", "-x", "bufsize=16k"];
    args.extend_from_slice(options);
    args.extend_from_slice(&[
        "-n",
        "syscall::getppid:entry /execname == \"gpp\"/ { printf(\"%d\\n\", ++n); }",
    ]);
    dtrace(&args);
    run_exec_start()?;
    getppids(5000)?;
    let o = dtrace(&["-a", "-e"]);
    clean();
    let got = text(&o.stdout)
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    Ok((o, got))
}

/// `bufpolicy=ring` keeps the newest: what is printed is a run of
/// numbers ending at the last.
fn ring_keeps_newest() -> Result<(), Failed> {
    let (o, got) = numbered_records(&["-x", "bufpolicy=ring"])?;
    let run = got.windows(2).all(|w| w[1] == w[0] + 1);
    check(
        o.status.success() && run && got.last() == Some(&5000) && got.first() > Some(&1),
        &format!(
            "not the newest records: {} from {:?} to {:?}",
            got.len(),
            got.first(),
            got.last()
        ),
        &o,
    )
}

/// The default policy: a full buffer drops, and the claim says how many.
fn drops_reported_when_claimed() -> Result<(), Failed> {
    let (o, got) = numbered_records(&[])?;
    let dropped: u64 = text(&o.stderr)
        .lines()
        .filter_map(|l| l.strip_prefix("dtrace: "))
        .filter(|l| l.contains(" drop"))
        .filter_map(|l| l.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    // The oldest records are kept, and every other one is counted.
    check(
        o.status.success()
            && got.first() == Some(&1)
            && got.windows(2).all(|w| w[1] == w[0] + 1)
            && got.len() as u64 + dropped == 5000,
        &format!("{} printed, {} dropped", got.len(), dropped),
        &o,
    )
}

fn misuse_is_refused() -> Result<(), Failed> {
    clean();
    let cases: [(&[&str], &str); 4] = [
        (
            &["-a"],
            "dtrace: could not enable tracing: No anonymous tracing state\n",
        ),
        (
            &["-a", "-n", "BEGIN"],
            "dtrace: could not enable tracing: Can't claim anonymous state and enable probes\n",
        ),
        (
            &["-A", "-a", "-n", "BEGIN"],
            "dtrace: -A and -a cannot be combined: -A saves an enabling, -a claims one\n",
        ),
        (
            &["-A", "-n", "BEGIN", "-c", "true"],
            "dtrace: -A cannot be combined with -c or -p: an anonymous enabling starts at boot\n",
        ),
    ];
    for (args, want) in cases {
        let o = dtrace(args);
        check(
            o.status.code() == Some(1) && text(&o.stderr) == want,
            &format!("{:?}", args),
            &o,
        )?;
    }
    // A program that does not compile saves nothing.
    let o = dtrace(&["-A", "-n", "BEGIN { x = ; }"]);
    check(
        o.status.code() == Some(1) && !Path::new(UNIT).exists(),
        "a bad program saved",
        &o,
    )
}

/// A real boot of Debian's `series` kernel in a QEMU guest: the unit's
/// ExecStart runs first, then `gpp`, then the claim.
fn boot(series: &str) -> Result<(), Failed> {
    clean();
    dtrace(&["-A", "-n", PROGRAM]);
    let start = exec_start()?.join(" ");
    let gpp = gpp()?;
    let script = format!(
        "{start} && {gpp} {GETPPIDS} 1000 && {dtrace} -a -e; echo guest-status=$?",
        start = start,
        gpp = gpp.display(),
        GETPPIDS = GETPPIDS,
        dtrace = DTRACE
    );
    let vm = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test/kernels/vm.sh");
    let o = Command::new(&vm)
        .args(["run", series, &script])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .stdin(Stdio::null())
        .output()?;
    clean();
    let out = text(&o.stdout);
    let counted = out.lines().any(|l| l.trim() == "1000");
    check(
        counted && out.contains("guest-status=0"),
        &format!("the {} guest did not count 1000", series),
        &o,
    )
}

fn main() {
    dtrace_sys::poll::default_stop_signals();
    let raw: Vec<String> = std::env::args().collect();
    if raw.get(1).map(String::as_str) == Some(GETPPIDS) {
        let n: u32 = raw.get(2).and_then(|s| s.parse().ok()).unwrap_or(0);
        for _ in 0..n {
            // parent_id() makes the getppid(2) call each time.
            std::hint::black_box(std::os::unix::process::parent_id());
        }
        return;
    }
    let mut args = Arguments::from_args();
    // One at a time: there is one anonymous enabling.
    args.test_threads = Some(1);
    let root = dtrace_sys::geteuid() == 0 && dtrace_sys::has_trace_privilege();
    type Check = fn() -> Result<(), Failed>;
    let trials: Vec<(&str, Check)> = vec![
        ("whole_cycle", whole_cycle),
        (
            "without_program_removes_everything",
            without_program_removes_everything,
        ),
        ("ring_keeps_newest", ring_keeps_newest),
        ("drops_reported_when_claimed", drops_reported_when_claimed),
        ("misuse_is_refused", misuse_is_refused),
        ("boot_5_10", || boot("5.10")),
        ("boot_6_1", || boot("6.1")),
        ("boot_6_12", || boot("6.12")),
    ];
    let trials = trials
        .into_iter()
        .map(|(name, f)| Trial::test(name, f).with_ignored_flag(!root))
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
