//! The aggregation API: printing (`printa()`'s and the end's), walking
//! and snapshots in DTrace's orders, clearing, the flame graph file, and
//! the per-aggregation state `normalize()` and `aggrate` keep.

use super::*;

/// What the aggregations keep on the consumer's side: which have been
/// printed (END prints the others), `normalize()`'s factors, and, with
/// `aggrate`, the snapshots read since the last aggregation tick.
pub(crate) struct AggState {
    pub(crate) printed: HashSet<AggId>,
    /// `normalize()` factors by aggregation (1 when absent).
    pub(crate) normals: std::collections::HashMap<AggId, u64>,
    /// With the `aggrate` option: aggregations as read since the last
    /// aggregation tick, which `printa()` shows.
    pub(crate) cache: std::collections::HashMap<AggId, Vec<aggregate::AggEntry>>,
    pub(crate) tick: Instant,
}

impl Default for AggState {
    fn default() -> Self {
        AggState {
            printed: HashSet::new(),
            normals: std::collections::HashMap::new(),
            cache: std::collections::HashMap::new(),
            tick: Instant::now(),
        }
    }
}

impl AggState {
    /// Aggregation `id` as read from the maps of `running` now (or, with
    /// `aggrate`, as read since the last tick).
    pub(crate) fn snapshot(
        &mut self,
        running: Option<&load::Running>,
        opts: &Options,
        id: AggId,
    ) -> Result<Vec<aggregate::AggEntry>, Error> {
        let cached = opts.is_set(Opt::aggrate);
        if cached {
            if let Some(s) = self.cache.get(&id) {
                return Ok(s.clone());
            }
        }
        let Some(r) = running else {
            return Ok(Vec::new());
        };
        let s = r.snapshot_with(id, opts.aggpercpu)?;
        if cached {
            self.cache.insert(id, s.clone());
        }
        Ok(s)
    }

    /// Aggregation `id` was changed (cleared, truncated): read it anew.
    pub(crate) fn changed(&mut self, id: AggId) {
        self.cache.remove(&id);
    }

    /// `normalize()`'s factor for `id`.
    pub(crate) fn normal(&self, id: AggId) -> u64 {
        self.normals.get(&id).copied().unwrap_or(1)
    }
}

/// Rows printed at a time by `aggregate_print`, where the output allows.
const ROWS_PER_PIECE: usize = 4096;

/// Writes what `aggregate_print` made.
fn emit_printed(sink: &mut sink::Sink, out: &mut dyn Write, text: &[u8]) -> Result<(), Error> {
    sink.flush_pending(out)?;
    sink.emit_origin = BufOrigin::AggregatePrint;
    let res = sink.emit(out, text);
    sink.emit_origin = BufOrigin::Work;
    Ok(res?)
}

/// How the options sort aggregations.
pub(crate) fn sort_opts(opts: &Options) -> aggregate::SortOpts {
    aggregate::SortOpts {
        by_key: opts.aggsortkey,
        reverse: opts.aggsortrev,
        key_pos: opts.aggsortkeypos,
        value_pos: opts.aggsortpos,
    }
}

impl Dtrace {
    /// What [`Session::aggregate_print`] does.
    pub(crate) fn aggregate_print(&mut self, out: &mut dyn Write) -> Result<(), Error> {
        let Some(r) = &self.running else {
            return Ok(());
        };
        let gen: &Generated = &r.gen;
        // Aggregations follow one another with no separator, in the
        // order of their definitions, as dtrace_aggregate_print() does
        // (aggsortrev reverses that order too: DTrace sorts by the
        // aggregation first).
        let mut text = Vec::new();
        let cx = self.render_cx();
        let mut ids: Vec<usize> = (0..gen.aggs.len()).collect();
        if self.opts.aggsortrev {
            ids.reverse();
        }
        for id in ids {
            if self.aggs.printed.contains(&id) {
                continue;
            }
            // Flat tables, sorted by index: a million keys are a few
            // tens of megabytes, and no heap object each.
            let table = r.table_with(id, self.opts.aggpercpu)?;
            if table.is_empty() {
                continue;
            }
            let order = table.sorted(self.sort_opts());
            let rows = aggregate::AggRows::Table {
                table: &table,
                order: &order,
            };
            let name = self.syms.aggs[id].name.as_str();
            // Where the output allows it, the rows go out a piece at a
            // time: a million of them need not be text all at once.
            let piece = if self.sink.output.rows_in_pieces() {
                ROWS_PER_PIECE
            } else {
                rows.len()
            };
            for rows in rows.pieces(piece) {
                self.sink.output.aggregations(
                    &mut text,
                    &output::AggPrint {
                        names: &[name],
                        rows,
                        normals: &[self.normal(id)],
                        zeros: &[AggValue::zero(self.syms.aggs[id].func)],
                        format: None,
                        in_firing: false,
                    },
                    cx,
                );
                if text.len() >= 1 << 20 {
                    emit_printed(&mut self.sink, out, &text)?;
                    text.clear();
                }
            }
        }
        emit_printed(&mut self.sink, out, &text)?;
        self.write_flamegraph()?;
        self.write_pprof()
    }

    /// The label names of aggregation `id`'s keys given by the
    /// `metriclabels` option, if any.
    fn labels_of(&self, id: AggId) -> Option<&[String]> {
        let name = &self.syms.aggs[id].name;
        self.metric_labels
            .iter()
            .find(|(a, _)| a == name)
            .map(|(_, l)| l.as_slice())
    }

    /// Checks the `metriclabels` options against the program's
    /// aggregations: each names one, with no more labels than its keys.
    fn check_metric_labels(&self) -> Result<(), Error> {
        for (agg, labels) in &self.metric_labels {
            let Some(a) = self.syms.aggs.iter().find(|a| a.name == *agg) else {
                return Err(Error::Enable(format!(
                    "metriclabels: the program has no aggregation @{}",
                    agg
                )));
            };
            if labels.len() > a.keys.len() {
                return Err(Error::Enable(format!(
                    "metriclabels: @{} has {} key{}, {} labels are given",
                    agg,
                    a.keys.len(),
                    if a.keys.len() == 1 { "" } else { "s" },
                    labels.len()
                )));
            }
        }
        Ok(())
    }

    /// The aggregations keyed by `stack()`, `ustack()` or `jstack()`
    /// (what `flamegraph` and `pprof` draw), in order.
    fn stack_aggs(&self) -> Vec<AggId> {
        (0..self.syms.aggs.len())
            .filter(|&id| flame::keyed_by_stack(&self.syms.aggs[id].keys))
            .collect()
    }

    /// With the `metrics` option, before tracing starts: its socket,
    /// bound (a bad or busy address is reported before the trace).
    pub(crate) fn bind_metrics(&self) -> Result<Option<std::net::TcpListener>, Error> {
        let Some(v) = self.opts.metrics.as_deref() else {
            return Ok(None);
        };
        self.check_metric_labels()?;
        let addr = metrics::metrics_address(v)
            .ok_or_else(|| Error::Enable(format!("cannot serve metrics on {}", v)))?;
        metrics::bind(addr)
            .map(Some)
            .map_err(|e| Error::Enable(format!("cannot serve metrics on {}: {}", v, e)))
    }

    /// The `# HELP` of aggregation `id`: its function and the probes of
    /// the clauses that update it.
    fn metric_help(&self, id: AggId) -> String {
        let a = &self.syms.aggs[id];
        let mut probes: Vec<&str> = Vec::new();
        for c in &self.clauses {
            let mut updates = false;
            dtrace_lang::ir::visit_stmts(&c.stmts, &mut |s| {
                updates |= matches!(s, CStmt::AggUpdate { agg, .. } if *agg == id);
            });
            if updates {
                for (_, text, _) in &c.probes {
                    if !probes.contains(&text.as_str()) {
                        probes.push(text);
                    }
                }
            }
        }
        let name = if a.name.is_empty() {
            "@".to_string()
        } else {
            format!("@{}", a.name)
        };
        format!("{} = {}() in {}", name, a.func.name(), probes.join(", "))
    }

    /// With the `metrics` option, once tracing has started: serves the
    /// aggregations on `listener` until the handle is closed.
    pub(crate) fn start_metrics(&mut self, listener: std::net::TcpListener) -> Result<(), Error> {
        let Some(r) = &self.running else {
            return Ok(());
        };
        let families = (0..r.gen.aggs.len())
            .map(|id| {
                metrics::Family::new(
                    &self.syms.aggs[id].name,
                    self.metric_help(id),
                    r.gen.aggs[id].clone(),
                    self.labels_of(id),
                )
            })
            .collect();
        let source = metrics::Source {
            maps: r.maps.clone(),
            families,
            drops_map: r.gen.drops_map.0 as usize,
            streamed: r.streamed.clone(),
            ncpus: r.rings.len(),
            errors: r.errors.clone(),
        };
        self.metrics_server = Some(
            metrics::Server::start(listener, source)
                .map_err(|e| Error::Enable(format!("cannot serve metrics: {}", e)))?,
        );
        Ok(())
    }

    /// With the `pprof` option, before tracing starts: its file, created
    /// (a bad path is found before the trace), and an aggregation keyed
    /// by a stack to write.
    pub(crate) fn open_pprof(&self) -> Result<Option<std::fs::File>, Error> {
        let Some(path) = self.opts.pprof.as_deref() else {
            return Ok(None);
        };
        if self.stack_aggs().is_empty() {
            return Err(Error::Enable(format!(
                "cannot write a pprof profile to {}: no aggregation is keyed by stack(), ustack() or jstack()",
                path
            )));
        }
        std::fs::File::create(path).map(Some).map_err(|e| {
            Error::Enable(format!(
                "cannot write a pprof profile to {}: {}",
                path,
                io_reason_opening(&e)
            ))
        })
    }

    /// With the `pprof` option: writes every aggregation keyed by a stack
    /// as one gzipped profile (`pprof.rs`).
    pub(crate) fn write_pprof(&mut self) -> Result<(), Error> {
        let (Some(path), Some(r)) = (self.opts.pprof.as_deref(), &self.running) else {
            return Ok(());
        };
        let Some(file) = self.pprof_file.take() else {
            return Ok(());
        };
        let ids = self.stack_aggs();
        let snaps = ids
            .iter()
            .map(|&id| r.snapshot(id))
            .collect::<Result<Vec<_>, _>>()?;
        let aggs: Vec<pprof::StackAgg<'_>> = ids
            .iter()
            .zip(&snaps)
            .map(|(&id, rows)| {
                let a = &self.syms.aggs[id];
                let nkeys = a.keys.len();
                let named = self.labels_of(id);
                pprof::StackAgg {
                    name: if a.name.is_empty() {
                        a.func.name().to_string()
                    } else {
                        a.name.clone()
                    },
                    unit: if a.func == dtrace_lang::ir::AggFunc::Count {
                        "count"
                    } else {
                        a.func.name()
                    },
                    labels: metrics::label_names(nkeys, named),
                    rows,
                    normal: self.normal(id),
                }
            })
            .collect();
        let now = std::time::SystemTime::now();
        let nanos = |t: std::time::SystemTime| {
            t.duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as i64)
        };
        let since = self.traced_since.unwrap_or(now);
        let bytes = pprof::profile(&aggs, nanos(since), nanos(now) - nanos(since));
        pprof::write_gzipped(io::BufWriter::new(file), &bytes).map_err(|e| {
            Error::Io(io::Error::other(format!(
                "cannot write the pprof profile to {}: {}",
                path, e
            )))
        })
    }

    /// With the `flamegraph` option, before tracing starts: its file,
    /// opened (so that a bad path is found before the trace, not after;
    /// a FIFO no process reads yet is waited for, but not past
    /// `cancelled` or a stop signal), and an aggregation it can draw.
    pub(crate) fn open_flamegraph(
        &self,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Option<std::fs::File>, Error> {
        let Some(path) = self.opts.flamegraph.as_deref() else {
            return Ok(None);
        };
        if self.stack_aggs().is_empty() {
            return Err(Error::Enable(format!(
                "cannot draw a flame graph in {}: no aggregation is keyed by stack(), ustack() or jstack()",
                path
            )));
        }
        dtrace_sys::process::open_writer(path.as_ref(), false, &|| {
            cancelled() || crate::signals::stop_signals() > 0
        })
        .map(Some)
        .map_err(|e| {
            Error::Enable(format!(
                "cannot write the flame graph to {}: {}",
                path,
                io_reason_opening(&e)
            ))
        })
    }

    /// With the `flamegraph` option: draws the first aggregation keyed
    /// by a stack as an SVG flame graph in the file it names.
    pub(crate) fn write_flamegraph(&mut self) -> Result<(), Error> {
        let (Some(path), Some(r)) = (self.opts.flamegraph.as_deref(), &self.running) else {
            return Ok(());
        };
        let Some(file) = self.flame_file.take() else {
            return Ok(());
        };
        // The first aggregation keyed by a stack (`open_flamegraph` made
        // sure there is one), drawn even when it has no rows.
        let Some(&id) = self.stack_aggs().first() else {
            return Ok(());
        };
        let snap = r.snapshot(id)?;
        let name = &self.syms.aggs[id].name;
        let lines = flame::folded(&snap, self.normal(id));
        if lines.is_empty() {
            return Err(Error::Io(io::Error::other(format!(
                "cannot draw a flame graph in {}: @{} has no stacks",
                path, name
            ))));
        }
        flame::write_svg(file, &format!("dtrace: @{}", name), &lines).map_err(|e| {
            Error::Io(io::Error::other(format!(
                "cannot write the flame graph to {}: {}",
                path, e
            )))
        })
    }

    /// What [`Session::aggregate_walk`] does.
    pub(crate) fn aggregate_walk(
        &mut self,
        f: impl FnMut(&str, &[aggregate::AggEntry]),
    ) -> Result<(), Error> {
        self.aggregate_walk_by(WalkOrder::Options, f)
    }

    /// What [`Session::aggregate_walk_by`] does.
    pub(crate) fn aggregate_walk_by(
        &mut self,
        order: WalkOrder,
        mut f: impl FnMut(&str, &[aggregate::AggEntry]),
    ) -> Result<(), Error> {
        let Some(r) = &self.running else {
            return Ok(());
        };
        let base = self.sort_opts();
        let sort = |by_key, reverse| aggregate::SortOpts {
            by_key,
            reverse,
            ..base
        };
        let how = match order {
            WalkOrder::Options => Some(base),
            WalkOrder::Unsorted => None,
            WalkOrder::Key => Some(sort(true, false)),
            WalkOrder::KeyReversed => Some(sort(true, true)),
            WalkOrder::Value => Some(sort(false, false)),
            WalkOrder::ValueReversed => Some(sort(false, true)),
        };
        for id in 0..r.gen.aggs.len() {
            let mut snap = r.snapshot_with(id, self.opts.aggpercpu)?;
            if let Some(o) = how {
                aggregate::sort(&mut snap, o);
            }
            f(&self.syms.aggs[id].name, &snap);
        }
        Ok(())
    }

    /// What [`Session::aggregate_snapshot`] does.
    pub(crate) fn aggregate_snapshot(&mut self, order: WalkOrder) -> Result<AggSnapshot, Error> {
        let mut aggs = Vec::new();
        self.aggregate_walk_by(order, |name, entries| {
            aggs.push((name.to_string(), entries.to_vec()))
        })?;
        Ok(AggSnapshot { aggs })
    }

    /// What [`Session::aggregate_clear`] does.
    pub(crate) fn aggregate_clear(&mut self) -> Result<(), Error> {
        let Some(r) = &self.running else {
            return Ok(());
        };
        for id in 0..r.gen.aggs.len() {
            r.clear_agg(id)?;
        }
        Ok(())
    }

    pub(crate) fn normal(&self, id: AggId) -> u64 {
        self.aggs.normal(id)
    }

    pub(crate) fn sort_opts(&self) -> aggregate::SortOpts {
        sort_opts(&self.opts)
    }
}
