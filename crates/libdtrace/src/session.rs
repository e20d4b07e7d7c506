//! A session: making the buffers ahead (`prepare`), starting tracing
//! (`go`, which turns the handle into a [`Session`]), pacing the
//! consumer (`sleep`, `waiter`, the rates), reading what the probes
//! recorded (`work`), drops, speculation cleaning, and stopping
//! (`stop`). What needs tracing to have started is a method of
//! [`Session`] alone: a program cannot call it on a handle that has not
//! started tracing.

use super::*;

/// A tracing session: the handle once [`Dtrace::go`] has attached every
/// enabled probe and fired BEGIN. Reading what the probes record
/// (`work`), waiting for it (`sleep`, `waiter`), stopping, the
/// aggregations and what tracing's start had to say are here; for the
/// rest (options, probes, processes) it dereferences to the handle.
/// Dropping it stops tracing and closes the handle, as
/// [`Session::close`] does.
///
/// ```no_run
/// # fn main() -> Result<(), libdtrace::Error> {
/// let mut dt = libdtrace::Dtrace::open()?;
/// let p = dt.compile("tick-10ms { exit(0); }", libdtrace::ProgramSource::File)?;
/// dt.exec(&p)?;
/// let mut session = dt.go()?;
/// while session.work(&mut std::io::stdout(), &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Okay {
///     session.sleep(&[]);
/// }
/// session.close();
/// # Ok(())
/// # }
/// ```
pub struct Session {
    dt: Dtrace,
    /// What the consumer keeps from one `work` to the next.
    reader: consume::Reader,
}

impl std::ops::Deref for Session {
    type Target = Dtrace;
    fn deref(&self) -> &Dtrace {
        &self.dt
    }
}

impl std::ops::DerefMut for Session {
    fn deref_mut(&mut self) -> &mut Dtrace {
        &mut self.dt
    }
}

impl Session {
    /// The session of handle `dt`, tracing, with `reader`.
    pub(crate) fn new(dt: Dtrace, reader: consume::Reader) -> Session {
        Session { dt, reader }
    }

    /// Stops tracing, detaches every probe and closes the handle
    /// (`dtrace_close`), as dropping the session does.
    pub fn close(self) {
        self.dt.close()
    }

    /// Waits until there is something to do: data in the buffer, a status
    /// check due, a target process's exit, or one of `extra_fds` readable
    /// (a signal's descriptor); then notes the targets that have exited,
    /// for [`work`](Self::work) to tell the process handler.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("tick-10ms { exit(0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// loop {
    ///     dt.sleep(&[]); // until records arrive, or the status period ends
    ///     if dt.work(&mut std::io::stdout(), &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Done {
    ///         break;
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn sleep(&mut self, extra_fds: &[i32]) {
        self.dt.sleep(extra_fds)
    }

    /// A way to wait for the next thing to do without holding the
    /// handle: a consumer that shares it between threads (behind a
    /// mutex, seed 002's per-handle lock) waits on this with the lock
    /// released, then takes it to [`work`](Self::work), so that another
    /// thread can walk the aggregations meanwhile. The wait lasts at most
    /// what [`sleep`](Self::sleep)'s would now; None before
    /// [`go`](Dtrace::go).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// use std::sync::{Arc, Mutex};
    /// let p = dt.compile("syscall:::entry { @[execname] = count(); } tick-1s { exit(0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// let waiter = dt.waiter().expect("tracing has started");
    /// let dt = Arc::new(Mutex::new(dt));
    /// let sampler = {
    ///     let dt = dt.clone();
    ///     std::thread::spawn(move || {
    ///         std::thread::sleep(std::time::Duration::from_millis(500));
    ///         // The work loop below waits without the lock: this walk gets it.
    ///         dt.lock().unwrap().aggregate_walk(|name, entries| println!("@{}: {} keys", name, entries.len()))
    ///     })
    /// };
    /// loop {
    ///     waiter.wait();
    ///     let mut h = dt.lock().unwrap();
    ///     if h.work(&mut std::io::stdout(), &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Done {
    ///         break;
    ///     }
    /// }
    /// sampler.join().unwrap()?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn waiter(&self) -> Option<Waiter> {
        self.dt.waiter()
    }

    /// [`sleep`](Self::sleep) for at most `timeout`, then
    /// [`work`](Self::work): one call for a caller with an event loop of
    /// its own, which polls the session among its other duties.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("tick-10ms { exit(0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// let tick = std::time::Duration::from_millis(50);
    /// while dt.poll(tick, &mut std::io::stdout(), &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Okay {
    ///     // the caller's other work
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn poll(
        &mut self,
        timeout: Duration,
        out: &mut dyn Write,
        consumer: &mut dyn Consumer,
    ) -> Result<WorkStatus, Error> {
        self.dt.sleep_at_most(&[], Some(timeout));
        self.work(out, consumer)
    }

    /// True once tracing has stopped (by exit() or `stop`).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("BEGIN { exit(0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// while !dt.stopped() {
    ///     dt.sleep(&[]);
    ///     dt.work(&mut std::io::stdout(), &mut libdtrace::NullConsumer)?;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn stopped(&self) -> bool {
        self.dt.stopped()
    }

    /// Consumes what is in the buffer, printing trace and printf output to
    /// `out` (or the buffered-output handler) and calling `consumer`.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// dt.setopt("quiet", None)?;
    /// let p = dt.compile(r#"BEGIN { printf("%d\n", 6 * 7); exit(0); }"#, libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// let mut out = Vec::new();
    /// while dt.work(&mut out, &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Okay {
    ///     dt.sleep(&[]);
    /// }
    /// assert_eq!(out, b"42\n");
    /// # Ok(())
    /// # }
    /// ```
    pub fn work(
        &mut self,
        out: &mut dyn Write,
        consumer: &mut dyn Consumer,
    ) -> Result<WorkStatus, Error> {
        self.dt.work(&mut self.reader, out, consumer)
    }

    /// Stops tracing: no probe fires after this but END, which runs now.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("syscall:::entry { @ = count(); } END { printa(@); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// std::thread::sleep(std::time::Duration::from_secs(1));
    /// dt.stop()?; // END fires now
    /// while dt.work(&mut std::io::stdout(), &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Okay {}
    /// # Ok(())
    /// # }
    /// ```
    pub fn stop(&mut self) -> Result<(), Error> {
        self.dt.stop(&mut self.reader)
    }

    /// The buffers made smaller than asked when tracing started (under
    /// `bufresize=auto`), as dtrace(1M) reports them: ("buffer size",
    /// bytes), ("speculation size", bytes).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// dt.setopt("bufsize", Some("1t"))?; // more than the machine has
    /// dt.setopt("bufresize", Some("auto"))?;
    /// let p = dt.compile("BEGIN { exit(0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// for (what, size) in dt.lowered_sizes() {
    ///     eprintln!("dtrace: {} lowered to {} bytes", what, size);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn lowered_sizes(&self) -> &[(&'static str, u64)] {
        self.dt.lowered_sizes()
    }

    /// What tracing's start has to tell the user beyond lowered sizes:
    /// kernel memory taken on a scale the user may not expect (the
    /// speculation buffers of a large `nspec`), as dtrace(1M) prints it
    /// after "dtrace: ".
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// dt.setopt("nspec", Some("1000"))?;
    /// let p = dt.compile("BEGIN { s = speculation(); speculate(s); trace(1); } BEGIN { exit(0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// for n in dt.notices() {
    ///     eprintln!("dtrace: {}", n);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn notices(&self) -> &[String] {
        self.dt.notices()
    }

    /// The user-level probes (pid, USDT) left out when tracing started,
    /// by their descriptions (`pid123:libc.so.6:strlen:1c`), and why:
    /// instructions the kernel's uprobes cannot step, USDT semaphores it
    /// cannot count.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let pid = dt.proc_create(&["/bin/true".into()]).map_err(|e| libdtrace::Error::Enable(e.to_string()))?;
    /// let p = dt.compile("pid$target:libc.so.6:strlen: { }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// for (place, why) in dt.refused_places() {
    ///     eprintln!("{} cannot be traced: {}", place, why);
    /// }
    /// dt.proc_continue(pid)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn refused_places(&self) -> &[(String, &'static str)] {
        self.dt.refused_places()
    }

    /// Prints every aggregation not yet printed by printa(), as dtrace(1M)
    /// does when tracing ends.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("syscall:::entry { @[probefunc] = count(); } tick-1s { exit(0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// let mut out = std::io::stdout();
    /// while dt.work(&mut out, &mut libdtrace::NullConsumer)? == libdtrace::WorkStatus::Okay {
    ///     dt.sleep(&[]);
    /// }
    /// dt.aggregate_print(&mut out)?; // as dtrace(1M) prints them at the end
    /// # Ok(())
    /// # }
    /// ```
    pub fn aggregate_print(&mut self, out: &mut dyn Write) -> Result<(), Error> {
        self.dt.aggregate_print(out)
    }

    /// Calls `f` with each aggregation's name and sorted snapshot.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("syscall:::entry { @calls[execname] = count(); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// std::thread::sleep(std::time::Duration::from_millis(200));
    /// dt.aggregate_walk(|name, entries| {
    ///     for e in entries {
    ///         println!("@{}[{}] = {:?}", name, e.key[0], e.value);
    ///     }
    /// })?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn aggregate_walk(
        &mut self,
        f: impl FnMut(&str, &[aggregate::AggEntry]),
    ) -> Result<(), Error> {
        self.dt.aggregate_walk(f)
    }

    /// Calls `f` with each aggregation's name and a snapshot of it taken
    /// now, its entries in `order`, in the order the aggregations were
    /// defined. It reads the kernel's maps: call it between
    /// [`work`](Self::work) calls, from any thread that holds the handle.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// use libdtrace::{KeyValue, WalkOrder};
    /// let p = dt.compile("syscall:::entry { @[probefunc] = count(); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// std::thread::sleep(std::time::Duration::from_millis(200));
    /// let mut names = Vec::new();
    /// dt.aggregate_walk_by(WalkOrder::Key, |_, entries| {
    ///     names.extend(entries.iter().filter_map(|e| match &e.key[0] {
    ///         KeyValue::Str(s) => Some(String::from_utf8_lossy(s).into_owned()),
    ///         _ => None,
    ///     }));
    /// })?;
    /// assert!(names.windows(2).all(|w| w[0] <= w[1]));
    /// # Ok(())
    /// # }
    /// ```
    pub fn aggregate_walk_by(
        &mut self,
        order: WalkOrder,
        f: impl FnMut(&str, &[aggregate::AggEntry]),
    ) -> Result<(), Error> {
        self.dt.aggregate_walk_by(order, f)
    }

    /// Every aggregation as it is now, its entries in `order`, as an
    /// owned value that needs no handle (`dtrace_aggregate_snap`):
    /// take it under the handle's lock, read it after. Before
    /// [`go`](Dtrace::go) it is empty.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("syscall:::entry { @[execname] = count(); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// std::thread::sleep(std::time::Duration::from_millis(100));
    /// let snap = dt.aggregate_snapshot(libdtrace::WalkOrder::Key)?;
    /// for (name, entries) in snap.iter() {
    ///     println!("@{}: {} keys", name, entries.len());
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn aggregate_snapshot(&mut self, order: WalkOrder) -> Result<AggSnapshot, Error> {
        self.dt.aggregate_snapshot(order)
    }

    /// Zeroes every aggregation's values, keeping keys.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("syscall:::entry { @ = count(); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// for _ in 0..3 {
    ///     std::thread::sleep(std::time::Duration::from_secs(1));
    ///     dt.aggregate_print(&mut std::io::stdout())?; // this second's count
    ///     dt.aggregate_clear()?;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn aggregate_clear(&mut self) -> Result<(), Error> {
        self.dt.aggregate_clear()
    }
}

impl Dtrace {
    /// Starts making the principal buffers, on a thread, for the options
    /// set now, so that `go` finds them ready: making them waits for the
    /// kernel (an RCU grace period, milliseconds), which can then overlap
    /// compiling. Call it once the options are set and before `compile`
    /// when the program will be run; if the program's pragmas change the
    /// buffers' options, `go` makes them anew. It does nothing once
    /// tracing has started or buffers are already being made.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// dt.setopt("bufsize", Some("16m"))?;
    /// dt.prepare(); // the buffers are made while the program compiles
    /// let p = dt.compile("syscall:::entry { @[probefunc] = count(); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn prepare(&mut self) {
        if self.running.is_none() && self.warm.is_none() {
            self.warm = load::warm_up(self);
        }
    }

    /// Starts tracing: builds, loads and attaches every enabled probe's
    /// program, then fires BEGIN; the handle becomes a [`Session`]. On an
    /// error the handle is closed, nothing left attached.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("BEGIN { trace(\"started\"); exit(0); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?; // BEGIN has fired
    /// # Ok(())
    /// # }
    /// ```
    pub fn go(self) -> Result<Session, Error> {
        self.go_until(&|| false)
    }

    /// [`go`](Self::go), abandoning the set-up (which for thousands of
    /// probes takes seconds) with [`Error::Cancelled`] as soon as
    /// `cancelled` says so, e.g. when SIGINT arrives.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// use std::sync::atomic::{AtomicBool, Ordering};
    /// static INTERRUPTED: AtomicBool = AtomicBool::new(false);
    /// let p = dt.compile("syscall:::entry { @ = count(); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let session = match dt.go_until(&|| INTERRUPTED.load(Ordering::Relaxed)) {
    ///     Err(libdtrace::Error::Cancelled) => return Ok(()),
    ///     other => other?,
    /// };
    /// # Ok(())
    /// # }
    /// ```
    pub fn go_until(mut self, cancelled: &dyn Fn() -> bool) -> Result<Session, Error> {
        if self.running.is_some() {
            return Err(Error::Enable("tracing is already active".into()));
        }
        if self.no_device {
            return Err(Error::Enable(
                "the handle was opened with no device: it cannot trace".into(),
            ));
        }
        // grabanon (-a): the anonymous enabling, claimed.
        if self.opts.grabanon {
            let dir = crate::anon::anonymous_dir()?;
            return self.go_claiming(&dir);
        }
        self.flame_file = self.open_flamegraph(cancelled)?;
        self.pprof_file = self.open_pprof()?;
        let metrics = self.bind_metrics()?;
        let running = load::start(&mut self, cancelled)?;
        crate::phase::mark("attached");
        self.running = Some(running);
        self.traced_since = Some(std::time::SystemTime::now());
        if let Some(listener) = metrics {
            self.start_metrics(listener)?;
        }
        self.sink.output =
            output::for_format((self.opts.oformat == OFormat::Json).then_some("json"));
        self.last_status = Instant::now();
        let begin_cpu = load::fire_begin(&mut self)?;
        crate::phase::mark("begin");
        // DTrace's first status check comes as tracing starts: an exit()
        // in BEGIN is acted on at the first work; otherwise the next
        // check is a status period away.
        self.status_checked = !load::exit_requested(&self);
        Ok(Session {
            dt: self,
            reader: consume::Reader {
                begin_cpu,
                ..Default::default()
            },
        })
    }

    /// What [`Session::sleep`] does.
    pub(crate) fn sleep(&mut self, extra_fds: &[i32]) {
        self.sleep_at_most(extra_fds, None);
    }

    /// [`Session::sleep`], waiting no longer than `cap` if one is given.
    pub(crate) fn sleep_at_most(&mut self, extra_fds: &[i32], cap: Option<Duration>) {
        let mut fds = extra_fds.to_vec();
        fds.extend(self.proc_fds());
        self.sleep_on(&fds, cap);
        self.watch_procs();
    }

    pub(crate) fn sleep_on(&mut self, extra_fds: &[i32], cap: Option<Duration>) {
        let Some(r) = &self.running else { return };
        let switching = self.opts.is_set(Opt::switchrate);
        let mut wait = sleep_period(
            &self.opts,
            self.last_status.elapsed(),
            self.last_switch.elapsed(),
        );
        if let Some(cap) = cap {
            wait = wait.min(cap);
        }
        // Speculations waiting to be freed wake us at the cleaning rate.
        if !self.spec_dirty.is_empty() {
            let clean = self.opts.cleanrate.max(Duration::from_nanos(1));
            wait = wait.min(clean.saturating_sub(self.last_clean.elapsed()));
        }
        // Records wake us as they arrive unless a switch rate was set, in
        // which case the buffer is read when the rate says.
        let hold = self.opts.bufpolicy != BufPolicy::Switch;
        if !switching && !hold && r.rings.iter().any(|g| g.has_data()) {
            return;
        }
        let _ = r.wait(wait, extra_fds);
        // The kernel wakes us for the first record after we have caught
        // up; were we to read it at once, a steady stream would wake us
        // record by record, each wake-up costing the traced CPU too. A
        // moment's wait lets the records gather: at most COALESCE of
        // latency, at most one wake-up per COALESCE. An exit() is acted
        // on at once.
        if !switching
            && !hold
            && r.rings.iter().any(|g| g.has_data())
            && !load::exit_requested(self)
        {
            std::thread::sleep(COALESCE);
        }
    }

    /// What [`Session::waiter`] does.
    pub(crate) fn waiter(&self) -> Option<Waiter> {
        let r = self.running.as_ref()?;
        let period = sleep_period(
            &self.opts,
            self.last_status.elapsed(),
            self.last_switch.elapsed(),
        );
        Some(Waiter {
            poller: r.poller_clone().ok()?,
            period,
        })
    }

    /// What tracing has come to: not started, going on, or ended by
    /// `exit()`, by a full buffer under `bufpolicy=fill`, or by
    /// [`stop`](Session::stop) (`dtrace_status`; the checks themselves are
    /// [`work`](Session::work)'s, at `statusrate`).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("syscall:::entry { @ = count(); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let mut dt = dt.go()?;
    /// assert_eq!(dt.status(), libdtrace::Status::Okay);
    /// dt.stop()?;
    /// assert_eq!(dt.status(), libdtrace::Status::Stopped);
    /// # Ok(())
    /// # }
    /// ```
    pub fn status(&self) -> Status {
        match (self.ended, &self.running) {
            (Some(s), _) => s,
            (None, None) => Status::None,
            // With `statusrate` set, exit() is known at the next status
            // check ([`Session::work`]), as in DTrace.
            (None, Some(_)) if load::exit_requested(self) && !self.opts.is_set(Opt::statusrate) => {
                self.drained_why()
            }
            (None, Some(_)) => Status::Okay,
        }
    }

    /// Why the probes stopped recording: a full buffer under the fill
    /// policy (records were dropped), else exit().
    pub(crate) fn drained_why(&self) -> Status {
        let fill = self.opts.bufpolicy == BufPolicy::Fill;
        let dropped = self
            .running
            .as_ref()
            .is_some_and(|r| r.read_drops().is_ok_and(|d| d.iter().any(|cpu| cpu[0] > 0)));
        if fill && dropped {
            Status::Filled
        } else {
            Status::Exited
        }
    }

    /// What [`Session::stopped`] does.
    pub(crate) fn stopped(&self) -> bool {
        self.stopped
    }

    /// What [`Session::work`] does.
    pub(crate) fn work(
        &mut self,
        reader: &mut consume::Reader,
        out: &mut dyn Write,
        consumer: &mut dyn Consumer,
    ) -> Result<WorkStatus, Error> {
        self.watch_procs();
        if self.running.is_none() {
            return Ok(WorkStatus::Done);
        }
        let status_due = !self.status_checked
            || self.last_status.elapsed() >= self.opts.statusrate.max(Duration::from_nanos(1));
        // The fill and ring policies read nothing until tracing has
        // stopped.
        let fill = self.opts.bufpolicy != BufPolicy::Switch;
        // DTrace learns of exit() at its status checks: the first, then
        // one every `statusrate`. Set, the option paces it so; by default
        // exit() is acted on at once.
        let exiting = load::exit_requested(self);
        let act_now = exiting && !self.opts.is_set(Opt::statusrate);
        if !self.stopped && (status_due || act_now) {
            self.status_checked = true;
            self.last_status = Instant::now();
            self.report_drops();
            if exiting {
                if !fill {
                    consume::consume_all(&mut self.parts(), reader, out, consumer)?;
                }
                self.ended = Some(self.drained_why());
                self.stop(reader)?;
            }
        }
        // `cleanrate`: committed and discarded speculations are freed.
        if !self.spec_dirty.is_empty()
            && self.last_clean.elapsed() >= self.opts.cleanrate.max(Duration::from_nanos(1))
        {
            self.last_clean = Instant::now();
            self.clean_speculations()?;
        }
        // `aggrate`: aggregations are read again at most this often.
        if self.opts.is_set(Opt::aggrate)
            && self.aggs.tick.elapsed() >= self.opts.aggrate.max(Duration::from_nanos(1))
        {
            self.aggs.tick = Instant::now();
            self.aggs.cache.clear();
        }
        let switch_due =
            self.last_switch.elapsed() >= self.opts.switchrate.max(Duration::from_nanos(1));
        if (self.stopped || switch_due || !self.opts.is_set(Opt::switchrate))
            && (self.stopped || !fill)
        {
            self.last_switch = Instant::now();
            consume::consume_all(&mut self.parts(), reader, out, consumer)?;
        }
        if self.stopped {
            consume::consume_all(&mut self.parts(), reader, out, consumer)?;
            self.report_drops();
            self.sink.flush_pending(out)?;
            return Ok(WorkStatus::Done);
        }
        self.sink.flush_pending(out)?;
        Ok(WorkStatus::Okay)
    }

    /// What [`Session::stop`] does.
    pub(crate) fn stop(&mut self, reader: &mut consume::Reader) -> Result<(), Error> {
        if self.ended.is_none() && self.running.is_some() {
            self.ended = Some(Status::Stopped);
        }
        if self.stopped || self.running.is_none() {
            self.stopped = true;
            return Ok(());
        }
        self.stopped = true;
        reader.end_cpu = load::fire_end(self)?;
        Ok(())
    }

    pub(crate) fn report_drops(&mut self) {
        let Some(r) = &self.running else { return };
        let Ok(now) = r.read_drops() else { return };
        if self.drops_seen.len() < now.len() {
            self.drops_seen.resize(now.len(), [0; load::DROP_KINDS]);
        }
        let droptags = self.opts.droptags;
        let mut reports = Vec::new();
        for (cpu, counts) in now.iter().enumerate() {
            for (k, kind) in [
                DropKind::Principal,
                DropKind::Aggregation,
                DropKind::Dynamic,
                DropKind::DoubleError,
            ]
            .iter()
            .enumerate()
            {
                let delta = counts[k].saturating_sub(self.drops_seen[cpu][k]);
                if delta == 0 {
                    continue;
                }
                let plural = if delta == 1 { "" } else { "s" };
                let (tag, msg) = match kind {
                    DropKind::Principal => (
                        "DTRACEDROP_PRINCIPAL",
                        format!("{} drop{} on CPU {}", delta, plural, cpu),
                    ),
                    DropKind::Aggregation => (
                        "DTRACEDROP_AGGREGATION",
                        format!("{} aggregation drop{} on CPU {}", delta, plural, cpu),
                    ),
                    DropKind::Dynamic => (
                        "DTRACEDROP_DYNAMIC",
                        format!("{} dynamic variable drop{}", delta, plural),
                    ),
                    _ => (
                        "DTRACEDROP_DBLERROR",
                        format!("{} error{} in ERROR probe enabling", delta, plural),
                    ),
                };
                let msg = if droptags {
                    format!("[{}] {}", tag, msg)
                } else {
                    msg
                };
                reports.push(DropData {
                    cpu: cpu as u32,
                    kind: *kind,
                    count: delta,
                    msg,
                });
            }
        }
        // Speculations' drops and failures are the program's, not a CPU's.
        for (k, kind) in [
            (4, DropKind::Speculative),
            (5, DropKind::SpecBusy),
            (6, DropKind::SpecUnavail),
        ] {
            let delta: u64 = now
                .iter()
                .zip(&self.drops_seen)
                .map(|(n, s)| n[k].saturating_sub(s[k]))
                .sum();
            if delta == 0 {
                continue;
            }
            let s = if delta == 1 { "" } else { "s" };
            let (tag, msg) = match kind {
                DropKind::Speculative => (
                    "DTRACEDROP_SPEC",
                    format!("{} speculative drop{}", delta, s),
                ),
                DropKind::SpecBusy => (
                    "DTRACEDROP_SPECBUSY",
                    format!(
                        "{} failed speculation{} (available buffer(s) still busy)",
                        delta, s
                    ),
                ),
                _ => (
                    "DTRACEDROP_SPECUNAVAIL",
                    format!(
                        "{} failed speculation{} (no speculative buffer available)",
                        delta, s
                    ),
                ),
            };
            reports.push(DropData {
                cpu: 0,
                kind,
                count: delta,
                msg: if droptags {
                    format!("[{}] {}", tag, msg)
                } else {
                    msg
                },
            });
        }
        for (cpu, counts) in now.iter().enumerate() {
            self.drops_seen[cpu] = *counts;
        }
        for d in reports {
            match &mut self.drop_handler {
                Some(h) => h(&d),
                None => {
                    if !self.sink.output.drop_report(&mut self.sink.pending, &d) {
                        let _ = writeln!(io::stderr(), "dtrace: {}", d.msg);
                    }
                }
            }
        }
    }

    /// Frees the speculations committed or discarded since the last
    /// cleaning: their buffers emptied on every CPU, then their state
    /// made inactive.
    pub(crate) fn clean_speculations(&mut self) -> Result<(), Error> {
        let Some(r) = &self.running else {
            return Ok(());
        };
        let Some(m) = r.gen.spec else {
            return Ok(());
        };
        for id in std::mem::take(&mut self.spec_dirty) {
            for cpu in 0..m.ncpus {
                let idx = ((id - 1) * m.ncpus + cpu).to_ne_bytes();
                r.map(m.fill).update(&idx, &0u64.to_ne_bytes(), 0)?;
            }
            r.map(m.state)
                .update(&id.to_ne_bytes(), &0u64.to_ne_bytes(), 0)?;
        }
        Ok(())
    }

    /// What [`Session::lowered_sizes`] does.
    pub(crate) fn lowered_sizes(&self) -> &[(&'static str, u64)] {
        &self.lowered
    }

    /// What [`Session::notices`] does.
    pub(crate) fn notices(&self) -> &[String] {
        &self.notices
    }

    /// What [`Session::refused_places`] does.
    pub(crate) fn refused_places(&self) -> &[(String, &'static str)] {
        &self.refused_places
    }

    /// The description of an enabled probe (for messages).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let mut dt = libdtrace::Dtrace::open()?;
    /// let p = dt.compile("BEGIN, END { trace(1); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// // EPIDs are given in exec order: clause 0 on BEGIN (probe 1), then END.
    /// assert_eq!(dt.epid(2).map(|d| (d.probe, d.clause)), Some((2, 0)));
    /// # Ok(())
    /// # }
    /// ```
    pub fn epid(&self, epid: u32) -> Option<EpidDesc> {
        self.epids.get((epid as usize).checked_sub(1)?).copied()
    }
}

/// How long the consumer lets records gather once woken for them.
pub(crate) const COALESCE: Duration = Duration::from_millis(1);

/// How long the consumer may sleep: until the next status check, or the
/// next buffer switch when a switch rate was set. Rates are kept to at
/// most 1,000 wake-ups a second.
pub(crate) fn sleep_period(
    opts: &Options,
    since_status: Duration,
    since_switch: Duration,
) -> Duration {
    let least = Duration::from_millis(1);
    let status = opts.statusrate.max(least).saturating_sub(since_status);
    if opts.is_set(Opt::switchrate) {
        status.min(opts.switchrate.max(least).saturating_sub(since_switch))
    } else {
        status
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switchrate_paces_the_consumer() {
        let mut o = Options::default();
        let s = Duration::from_millis;
        // Unset: only the status rate (1 s) bounds the sleep; records wake
        // the consumer as they arrive.
        assert_eq!(sleep_period(&o, s(0), s(0)), s(1000));
        o.set("switchrate", Some("10hz")).unwrap();
        assert_eq!(sleep_period(&o, s(0), s(0)), s(100));
        assert_eq!(sleep_period(&o, s(0), s(30)), s(70));
        assert_eq!(sleep_period(&o, s(990), s(30)), s(10));
        o.set("statusrate", Some("2s")).unwrap();
        o.set("switchrate", Some("5s")).unwrap();
        assert_eq!(sleep_period(&o, s(500), s(0)), s(1500));
    }
}
