//! Compiling: the C preprocessor, the D libraries, pragmas and
//! dependencies, checking clauses against the probes they name, and
//! `exec`, which records what a program enables.

use super::*;
use dtrace_providers::DescInfo;

impl Dtrace {
    /// Compiles a program. Probe descriptions must match at least one probe
    /// unless the `zdefs` option is set. The text is bytes (a `&str` works
    /// too): string literals keep bytes that are not UTF-8 as written.
    ///
    /// ```
    /// use libdtrace::{Dtrace, ProgramSource, SpecKind};
    /// let mut dt = Dtrace::offline();
    /// let script = dt.compile("BEGIN { x = 1; } END { trace(x); }", ProgramSource::File)?;
    /// let desc = dt.compile("END", ProgramSource::Description(SpecKind::Name))?;
    /// assert_eq!(script.probes(), vec![1, 2]);
    /// assert_eq!(desc.probes(), vec![2]);
    /// # Ok::<(), libdtrace::Error>(())
    /// ```
    pub fn compile(
        &mut self,
        text: impl AsRef<[u8]>,
        source: ProgramSource,
    ) -> Result<Program, Error> {
        self.compile_text(text.as_ref(), source)
    }

    /// Compiles the script in file `path` (`dtrace_program_fcompile`, as
    /// `dtrace -s`): `$0` is its name unless [`set_args`](Self::set_args)
    /// named it.
    ///
    /// ```
    /// # fn main() -> Result<(), libdtrace::Error> {
    /// let path = std::env::temp_dir().join(format!("begin-{}.d", std::process::id()));
    /// std::fs::write(&path, "BEGIN { trace($0); exit(0); }\n").unwrap();
    /// let mut dt = libdtrace::Dtrace::offline();
    /// let p = dt.compile_file(&path)?;
    /// assert_eq!(p.probes(), vec![1]);
    /// let err = dt.compile_file("/nonexistent.d").unwrap_err();
    /// assert_eq!(err.to_string(), "failed to open /nonexistent.d: No such file or directory");
    /// # std::fs::remove_file(&path).unwrap();
    /// # Ok(())
    /// # }
    /// ```
    pub fn compile_file(&mut self, path: impl AsRef<std::path::Path>) -> Result<Program, Error> {
        use std::os::unix::ffi::OsStrExt;
        let path = path.as_ref();
        let text = std::fs::read(path).map_err(|e| Error::Open {
            path: path.to_path_buf(),
            why: io_reason(&e),
        })?;
        if self.macros.args.first().is_none_or(|a| a == b"dtrace") {
            let rest: Vec<Vec<u8>> = self.macros.args.iter().skip(1).cloned().collect();
            self.set_args(path.as_os_str().as_bytes(), &rest);
        }
        self.compile_text(&text, ProgramSource::File)
    }

    pub(crate) fn compile_text(
        &mut self,
        text: &[u8],
        source: ProgramSource,
    ) -> Result<Program, Error> {
        let src = match source {
            ProgramSource::File => Source::File,
            ProgramSource::Description(_) => Source::CommandLine,
        };
        let text = match source {
            ProgramSource::Description(kind) if kind != SpecKind::Name => {
                align_program_spec(text, kind).map_err(Error::Compile)?
            }
            _ => text.to_vec(),
        };
        // `-C`: the C preprocessor first.
        let text = if self.opts.cpp {
            cpp::preprocess(&self.opts, &self.cpp_args, &text)?
        } else {
            text
        };
        self.load_libraries(&text)?;
        // A provider's option set by a pragma rules how the program's
        // probes are made (cpc's minimum count): set it first. A bad
        // value is reported with the other pragmas below.
        // So do the sizes the checker gives types (`string`, `stack()`).
        for name in Probes::TUNABLES.iter().chain(&[
            "strsize",
            "stackframes",
            "ustackframes",
            "jstackframes",
            "maxframes",
            "scratchsize",
            // and the D version the program is written for
            "version",
        ]) {
            if let Some(v) = dtrace_lang::pragma_value(&text, name) {
                let _ = self.setopt(name, Some(&v));
            }
        }
        let mut syms = self.syms.clone();
        syms.types.strsize = self.opts.strsize;
        syms.types.stackframes = self.opts.stackframes;
        syms.types.ustackframes = self.opts.ustackframes;
        syms.types.jstackframes = self.opts.jstackframes;
        syms.types.maxframes = self.opts.maxframes;
        syms.types.scratchsize = dtrace_lang::types::round_scratch(self.opts.scratchsize);
        let mut next = self.next_clause;
        // Clauses are checked in the context of their probes (`args[]`).
        // A description matching nothing is left to the check below
        // (D_PDESC_ZERO) unless zdefs allows it.
        let mut context = ClauseProbes {
            probes: &mut self.probes,
            zdefs: self.opts.zdefs || dtrace_lang::pragma_sets(&text, "zdefs"),
        };
        // Parsing and checking recurse as deep as the program nests.
        let macros = &self.macros;
        let checked = dtrace_lang::on_compile_stack(|| {
            dtrace_lang::compile_with(&text, src, macros, &mut syms, &mut next, &mut context)
        })
        .map_err(Error::Compile)?;
        // Pragmas take effect as the program is compiled.
        for (name, value, line) in &checked.options {
            let refused = match Options::change(name) {
                None => {
                    return Err(Error::Compile(CompileError::new(
                        Tag::D_PRAGMA_OPTSET,
                        *line,
                        format!("failed to set option '{}': Invalid option name", name),
                    )))
                }
                Some(Change::CommandLine) => Err(Error::Option {
                    name: name.clone(),
                    value: value.clone(),
                    err: OptionError::InProgram,
                }),
                Some(_) => Ok(()),
            };
            refused
                .and_then(|()| self.setopt(name, value.as_deref()))
                .map_err(|e| match e {
                    Error::Option { err, .. } => Error::Compile(CompileError::new(
                        Tag::D_PRAGMA_OPTSET,
                        *line,
                        format!(
                            "failed to set option '{}' to '{}': {}",
                            name,
                            value.clone().unwrap_or_default(),
                            err
                        ),
                    )),
                    other => other,
                })?;
        }
        for (kind, name, line) in &checked.depends {
            // A library's dependencies order the libraries; a program's
            // own may not name one.
            if kind == "library" {
                return Err(Error::Compile(CompileError::new(
                    Tag::D_PRAGMA_DEPEND,
                    *line,
                    "main program may not explicitly depend on a library",
                )));
            }
            if !self.dependency_met(kind, name) {
                return Err(Error::Compile(CompileError::new(
                    Tag::D_PRAGMA_DEPEND,
                    *line,
                    format!("program requires {} {}", kind, name),
                )));
            }
        }
        let zdefs = self.opts.zdefs;
        let mut matches = Vec::new();
        for c in &checked.clauses {
            let mut ids = Vec::new();
            for (d, _, line) in &c.probes {
                let found = self.probes.lookup(d);
                if let Some(e) = self.probes.desc_error(d) {
                    return Err(Error::Compile(CompileError::new(e.tag, *line, e.message)));
                }
                if found.is_empty() && !zdefs {
                    let mut msg = format!("probe description {} does not match any probes", d);
                    if let Some(why) = self.probes.why_not(d) {
                        msg = format!("{} ({})", msg, why);
                    }
                    return Err(Error::Compile(CompileError::new(
                        Tag::D_PDESC_ZERO,
                        *line,
                        msg,
                    )));
                }
                for id in found {
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                }
            }
            matches.push(ids);
        }
        self.syms = syms;
        self.next_clause = next;
        self.providers.extend(checked.providers);
        let first = self.clauses.len();
        let count = checked.clauses.len();
        self.clauses.extend(checked.clauses);
        let p = Program {
            id: self.programs.len(),
            first_clause: first,
            clause_count: count,
            matches,
        };
        self.programs.push(p.clone());
        Ok(p)
    }

    /// True if a `#pragma D depends_on` is satisfied: the provider has
    /// probes, the kernel module is loaded, the library has been compiled.
    pub(crate) fn dependency_met(&mut self, kind: &str, name: &str) -> bool {
        match kind {
            "provider" => dtrace_lang::pdesc::ProbeDesc::parse(&format!("{}:::", name))
                .is_ok_and(|d| !self.probes.lookup(&d).is_empty()),
            "module" => {
                name == "vmlinux"
                    || (!name.contains('/')
                        && std::path::Path::new("/sys/module").join(name).exists())
            }
            // A member of a kernel struct, `bio.bi_bdev`: what a library
            // written for some kernels' types needs.
            "member" => name.split_once('.').is_some_and(|(s, m)| {
                dtrace_sys::btf::Btf::vmlinux().is_ok_and(|btf| {
                    btf.find_struct(s)
                        .is_some_and(|id| btf.member(id, m).is_some())
                })
            }),
            _ => self.libs_loaded.iter().any(|l| l == name),
        }
    }

    /// Compiles the D libraries a program needs before it: the library
    /// directories once, and each standard library file the program names.
    pub(crate) fn load_libraries(&mut self, program: &[u8]) -> Result<(), Error> {
        let mut todo: Vec<(String, Vec<u8>)> = Vec::new();
        let syslibdir = self.opts.syslibdir.as_deref().map(std::path::PathBuf::from);
        if !self.dirs_loaded {
            self.dirs_loaded = true;
            let dirs = syslibdir.iter().chain(self.lib_dirs.iter());
            for dir in dirs {
                // A directory that cannot be opened is passed over, as
                // DTrace passes it over.
                if !dir.is_dir() {
                    continue;
                }
                let files = dlib::files(dir).map_err(|e| {
                    Error::Library(format!(
                        "failed to read library directory {}: {}",
                        dir.display(),
                        e
                    ))
                })?;
                for f in files {
                    let text = std::fs::read(&f).map_err(|e| {
                        Error::Library(format!("failed to read library {}: {}", f.display(), e))
                    })?;
                    todo.push((f.display().to_string(), text));
                }
            }
            // A library that depends on another comes after it.
            let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
            let mut ordered: Vec<(String, Vec<u8>)> = Vec::new();
            while !todo.is_empty() {
                let before = todo.len();
                let mut i = 0;
                while i < todo.len() {
                    let deps = dlib::library_depends(&todo[i].1);
                    let waiting = deps.iter().any(|d| {
                        todo.iter().any(|(n, _)| base(n) == *d)
                            && !ordered.iter().any(|(n, _)| base(n) == *d)
                    });
                    if waiting {
                        i += 1;
                    } else {
                        ordered.push(todo.remove(i));
                    }
                }
                if todo.len() == before {
                    // A cycle: the rest in name order.
                    ordered.append(&mut todo);
                }
            }
            todo = ordered;
        }
        // The standard library first: what the program or a library
        // directory's files name.
        if syslibdir.is_none() {
            let mut std = Vec::new();
            for lib in dlib::STANDARD {
                let named = |t: &[u8]| {
                    lib.defines.iter().any(|d| dlib::mentions(t, d))
                        || lib.providers.iter().any(|p| dlib::names_provider(t, p))
                };
                if !self.std_loaded.contains(&lib.name)
                    && (named(program) || todo.iter().any(|(_, t)| named(t)))
                {
                    self.std_loaded.push(lib.name);
                    std.push((lib.name.to_string(), lib.text.as_bytes().to_vec()));
                }
            }
            std.append(&mut todo);
            todo = std;
        }
        for (name, text) in todo {
            // A library whose dependencies are not met is passed over, as
            // DTrace passes it over: one written for another kernel's
            // types, or for a provider or module this system lacks.
            if dlib::depends(&text)
                .iter()
                .any(|(kind, dep)| !self.dependency_met(kind, dep))
            {
                continue;
            }
            let mut syms = self.syms.clone();
            syms.types.strsize = self.opts.strsize;
            syms.types.stackframes = self.opts.stackframes;
            syms.types.maxframes = self.opts.maxframes;
            let mut next = self.next_clause;
            // Libraries see no script arguments.
            let env = MacroEnv {
                defaultargs: true,
                ..Default::default()
            };
            let checked = dtrace_lang::on_compile_stack(|| {
                dtrace_lang::compile(&text, Source::File, &env, &mut syms, &mut next)
            })
            .map_err(|e| Error::Library(format!("failed to compile library {}: {}", name, e)))?;
            if !checked.clauses.is_empty() {
                return Err(Error::Library(format!(
                    "failed to compile library {}: libraries may not contain probe clauses",
                    name
                )));
            }
            self.syms = syms;
            self.next_clause = next;
            self.libs_loaded
                .push(name.rsplit('/').next().unwrap_or(&name).to_string());
        }
        Ok(())
    }

    /// Enables a compiled program's probes.
    ///
    /// ```
    /// let mut dt = libdtrace::Dtrace::offline();
    /// let p = dt.compile("BEGIN, END { trace(1); }", libdtrace::ProgramSource::File)?;
    /// let info = dt.exec(&p)?;
    /// println!("dtrace: description 'BEGIN, END' matched {} probes", info.matches);
    /// # Ok::<(), libdtrace::Error>(())
    /// ```
    pub fn exec(&mut self, prog: &Program) -> Result<ProgramInfo, Error> {
        if self.running.is_some() {
            return Err(Error::Enable(
                "programs cannot be enabled once tracing has started".into(),
            ));
        }
        for i in 0..prog.clause_count {
            let clause = prog.first_clause + i;
            for &probe in &prog.matches[i] {
                self.epids.push(EpidDesc { probe, clause });
                let epid = self.epids.len() as u32;
                self.enablings.push(Enabling {
                    probe,
                    clause,
                    epid,
                });
            }
        }
        Ok(self.program_info(prog))
    }

    /// What a program would enable and record, without enabling it
    /// (`dtrace_program_info`, as `dtrace -e` reports it): the counts
    /// [`exec`](Self::exec) reports and the program's lowest stability
    /// attributes.
    ///
    /// ```
    /// let mut dt = libdtrace::Dtrace::offline();
    /// let p = dt.compile("BEGIN { trace(curthread); }", libdtrace::ProgramSource::File)?;
    /// let info = dt.program_info(&p);
    /// assert_eq!(info.stmt_attr.to_string(), "Stable/Private/Common");
    /// # Ok::<(), libdtrace::Error>(())
    /// ```
    pub fn program_info(&self, prog: &Program) -> ProgramInfo {
        let n = prog.matches.iter().map(Vec::len).sum();
        let (mut aggs, mut records, mut speculations) = (HashSet::new(), 0, 0);
        // A program of declarations alone relies on D's defaults.
        let (mut desc_attr, mut stmt_attr) = if prog.clause_count == 0 {
            (
                dtrace_lang::attr::Attr::STABLE,
                dtrace_lang::attr::Attr::STABLE,
            )
        } else {
            (dtrace_lang::attr::Attr::MAX, dtrace_lang::attr::Attr::MAX)
        };
        for c in self
            .clauses
            .iter()
            .skip(prog.first_clause)
            .take(prog.clause_count)
        {
            if c.default_action {
                records += 1;
            }
            desc_attr = desc_attr.min(c.desc_attr);
            stmt_attr = stmt_attr.min(c.stmt_attr);
            dtrace_lang::ir::visit_stmts(&c.stmts, &mut |s| match s {
                CStmt::AggUpdate { agg, .. } => {
                    aggs.insert(*agg);
                }
                CStmt::Speculate(..) => speculations += 1,
                CStmt::If { .. } => {}
                s if s.records() => records += 1,
                _ => {}
            });
        }
        ProgramInfo {
            matches: n,
            aggregations: aggs.len(),
            records,
            speculations,
            desc_attr,
            stmt_attr,
        }
    }

    /// Each probe description of each clause of a program, with what
    /// the probes it matches say of their stability and arguments (as
    /// `dtrace -ev` lists them; None where DTrace's `dtrace_probe_info`
    /// finds no one probe to describe).
    pub fn statements(&mut self, prog: &Program) -> Vec<(ProbeDesc, Option<StatementProbe>)> {
        let mut out = Vec::new();
        let descs: Vec<ProbeDesc> = self
            .clauses
            .iter()
            .skip(prog.first_clause)
            .take(prog.clause_count)
            .flat_map(|c| c.probes.iter().map(|(d, _, _)| d.clone()))
            .collect();
        for d in descs {
            let info = match self.probes.desc_attributes(&d) {
                DescInfo::Known(a, first) => Some(StatementProbe {
                    attr: a.desc,
                    args: a.args,
                    arg_types: self
                        .probes
                        .args(first)
                        .iter()
                        .map(|a| a.shown().to_string())
                        .collect(),
                }),
                DescInfo::NoProbe | DescInfo::Unstable => None,
            };
            out.push((d, info));
        }
        out
    }

    /// The BPF programs [`go`](Self::go) would load for the probes
    /// enabled so far, disassembled (dtrace(1M)'s `-S`; DTrace shows its
    /// DIF there).
    ///
    /// ```
    /// let mut dt = libdtrace::Dtrace::offline();
    /// let p = dt.compile("BEGIN { trace(1 + 2); }", libdtrace::ProgramSource::File)?;
    /// dt.exec(&p)?;
    /// let text = dt.programs_text()?;
    /// assert!(text.contains("exit"), "{}", text);
    /// # Ok::<(), libdtrace::Error>(())
    /// ```
    pub fn programs_text(&self) -> Result<String, Error> {
        load::programs_text(self)
    }
}

/// Puts a `-P`/`-m`/`-f` description's fields at their position.
pub(crate) fn align_spec(text: &str, kind: SpecKind) -> Result<String, Overspecified> {
    let start = match kind {
        SpecKind::Provider => 0,
        SpecKind::Module => 1,
        SpecKind::Function => 2,
        SpecKind::Name => return Ok(text.to_string()),
    };
    // The fields are read from the right, the last one given landing
    // on the kind's own field (`-m syscall:vmlinux` is provider and
    // module), as dtrace_str2desc() reads them. More fields than that
    // are left as written: a whole description.
    let n = text.split(':').count();
    if n > start + 1 {
        return Err(Overspecified);
    }
    let mut s = ":".repeat(start + 1 - n);
    s.push_str(text);
    s.push_str(&":".repeat(3 - start));
    Ok(s)
}

/// A partial description with more fields than its option's position
/// allows (`-P a:b`): dtrace_str2desc's EDT_BADSPCV.
#[derive(Debug, PartialEq)]
pub(crate) struct Overspecified;

pub(crate) fn overspecified(text: &str) -> String {
    format!(
        "invalid probe description \"{}\": Overspecified probe description",
        text
    )
}

/// Aligns the leading description of a `-P`/`-m`/`-f` program text.
pub(crate) fn align_program_spec(text: &[u8], kind: SpecKind) -> Result<Vec<u8>, CompileError> {
    let end = text
        .iter()
        .position(|&c| c == b'{' || c == b'/' || c.is_ascii_whitespace())
        .unwrap_or(text.len());
    let desc = String::from_utf8_lossy(&text[..end]);
    let mut out = align_spec(&desc, kind)
        .map_err(|_| CompileError::no_line(Tag::D_PDESC_INVAL, overspecified(&desc)))?
        .into_bytes();
    out.extend_from_slice(&text[end..]);
    Ok(out)
}

/// The probe table as the checker sees it while a program compiles.
pub(crate) struct ClauseProbes<'a> {
    pub(crate) probes: &'a mut Probes,
    pub(crate) zdefs: bool,
}

impl dtrace_lang::ProbeContext for ClauseProbes<'_> {
    fn arg_types(&mut self, desc: &ProbeDesc) -> dtrace_lang::ArgTypes {
        if !self.zdefs && self.probes.lookup(desc).is_empty() {
            return dtrace_lang::ArgTypes::Unknown;
        }
        self.probes.desc_arg_types(desc)
    }

    /// A description that matches nothing is refused after the clause is
    /// checked (D_PDESC_ZERO), unless zdefs: its attributes are then
    /// left out of the minimum so that error is the one reported.
    fn desc_attributes(&mut self, desc: &ProbeDesc) -> dtrace_lang::attr::DescAttr {
        use dtrace_lang::attr::DescAttr;
        match self.probes.desc_attributes(desc) {
            DescInfo::Known(a, _) => a,
            DescInfo::NoProbe if !self.zdefs => DescAttr::MAX,
            DescInfo::NoProbe | DescInfo::Unstable => DescAttr::UNSTABLE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_partial_descriptions() {
        let ok = |t: &str, k| align_spec(t, k).expect("aligned");
        assert_eq!(ok("syscall", SpecKind::Provider), "syscall:::");
        assert_eq!(ok("read", SpecKind::Function), "::read:");
        assert_eq!(ok("vmlinux", SpecKind::Module), ":vmlinux::");
        assert_eq!(ok("syscall:vmlinux", SpecKind::Module), "syscall:vmlinux::");
        assert_eq!(ok("syscall::read", SpecKind::Function), "syscall::read:");
        assert_eq!(ok("vmlinux:read", SpecKind::Function), ":vmlinux:read:");
        assert_eq!(ok("BEGIN", SpecKind::Name), "BEGIN");
        // More fields than the option's position allows.
        assert_eq!(align_spec("a:b", SpecKind::Provider), Err(Overspecified));
        assert_eq!(
            align_spec("a:b:c:d", SpecKind::Function),
            Err(Overspecified)
        );
        assert_eq!(
            align_program_spec(b"syscall{@a[probefunc] = count()}", SpecKind::Provider)
                .expect("aligned"),
            b"syscall:::{@a[probefunc] = count()}"
        );
        let e = align_program_spec(b"a:b { }", SpecKind::Provider).unwrap_err();
        assert_eq!(
            e.msg,
            "invalid probe description \"a:b\": Overspecified probe description"
        );
    }
}
