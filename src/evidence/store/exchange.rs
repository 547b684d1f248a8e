//! The store's exchange with files: export and import as JSON Lines (each
//! line a run, its key and outcome; then the evaluations and decisions, each
//! line of its `kind`), and the runs bought while the store was busy, set
//! aside beside it and imported by the next writer.

use super::*;

impl Store {
    /// Write the runs of `items` (all when empty) to `out` as JSON Lines, in a
    /// stable order, then their evaluations and decisions; `name` names `out`
    /// in errors. Returns how many runs.
    pub fn export(&self, items: &[String], out: impl Write, name: &Utf8Path) -> Result<usize> {
        self.export_where(items, out, name, |_| true)
    }

    /// [`Store::export`] of the runs not imported from a file (evaluations
    /// and decisions all): what a shard hands to `collect`, which trusts its
    /// runs (an imported run passed on that way would come out trusted).
    pub fn export_own(&self, items: &[String], out: impl Write, name: &Utf8Path) -> Result<usize> {
        self.export_where(items, out, name, |run| !run.is_imported())
    }

    pub(super) fn export_where(
        &self,
        items: &[String],
        out: impl Write,
        name: &Utf8Path,
        keep: fn(&StoredRun) -> bool,
    ) -> Result<usize> {
        let mut out = std::io::BufWriter::new(out);
        let mut count = 0;
        let fail = |e| Error::io(name, "writing the export", e);
        self.each_run(items, "exporting runs", |run| {
            if !keep(&run) {
                return Ok(());
            }
            count += 1;
            writeln!(out, "{}", run.to_line()).map_err(fail)
        })?;
        for e in self.evaluations(items)? {
            writeln!(out, "{}", evaluation_line(&e)).map_err(fail)?;
        }
        for d in self.decisions(items)? {
            writeln!(out, "{}", decision_line(&d)).map_err(fail)?;
        }
        out.flush().map_err(fail)?;
        Ok(count)
    }

    /// Every run of `items` (all when empty), usable or not, in the export's order.
    pub fn runs(&self, items: &[String]) -> Result<Vec<StoredRun>> {
        let mut runs = Vec::new();
        self.each_run(items, "reading runs", |run| {
            runs.push(run);
            Ok(())
        })?;
        Ok(runs)
    }

    /// Call `f` on each run of `items` (all when empty), ordered by item, case,
    /// arm, model, start, position and id; `doing` names the work in errors.
    pub(super) fn each_run(
        &self,
        items: &[String],
        doing: &str,
        mut f: impl FnMut(StoredRun) -> Result<()>,
    ) -> Result<()> {
        let fault = |e| self.fault(doing, e);
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM runs \
                 WHERE ?1 IS NULL OR item IN (SELECT value FROM json_each(?1)) \
                 ORDER BY item, case_name, arm, model, started_at, run, id"
            ))
            .map_err(fault)?;
        let mut rows = stmt.query([items_filter(items)]).map_err(fault)?;
        while let Some(row) = rows.next().map_err(fault)? {
            f(self.run_from_row(row)?)?;
        }
        Ok(())
    }

    /// Import the JSON Lines at `path` (see the module docs): a line that
    /// does not read refuses the whole file (with its line number, nothing
    /// stored); a run dated in the future or with impossible values is
    /// refused alone and counted ([`ImportReport::refusals`]). The runs
    /// stored are marked imported from `path`.
    pub fn import_file(&mut self, path: &Utf8Path) -> Result<ImportReport> {
        let bytes = crate::fsio::read(path, crate::config::MAX_INPUT_FILE)
            .map_err(|e| Error::unreadable(path, e))?;
        self.import(&bytes[..], path)
    }

    /// [`Store::import_file`] from `reader`; `path` names it in errors and in
    /// the runs' provenance. Blank lines are skipped; what is already stored
    /// is counted in `already` (a run keeps its provenance). Evaluations and
    /// decisions are stored with the runs, in one transaction.
    pub fn import(&mut self, reader: impl BufRead, path: &Utf8Path) -> Result<ImportReport> {
        let lines = read_lines(reader, path, StoredRun::parse_line)?;
        let now = Utc::now();
        let total = lines.runs.len();
        let mut refusals: Vec<Refused> = Vec::new();
        let mut runs = Vec::with_capacity(total);
        for (line, run) in lines.runs {
            let Some((reason, why)) = run.outcome.refusal_at(now) else {
                runs.push(run);
                continue;
            };
            match refusals.iter_mut().find(|r| r.reason == reason) {
                Some(r) => r.runs += 1,
                None => refusals.push(Refused {
                    reason,
                    runs: 1,
                    first_line: line,
                    example: why,
                }),
            }
        }
        refusals.sort_by_key(|r| r.reason);
        let added = self.insert_all(
            &[(Origin::Imported(path.to_owned()), &runs)],
            &lines.evaluations,
            &lines.decisions,
        )?;
        Ok(ImportReport {
            runs: total,
            added: added.runs,
            already: runs.len() - added.runs,
            refused: total - runs.len(),
            refusals,
            evaluations: lines.evaluations.len(),
            evaluations_added: added.evaluations,
            decisions: lines.decisions.len(),
            decisions_added: added.decisions,
        })
    }

    /// Keep `runs`, bought by run `run_id`, beside the store while it is busy:
    /// appended to `<store>.pending/<run_id>.jsonl` (written whole, atomically),
    /// imported as bought here by the next [`Store::import_pending`]. Returns the file.
    pub fn set_aside(&self, run_id: &str, runs: &[StoredRun]) -> Result<Utf8PathBuf> {
        let lines: Vec<String> = runs.iter().map(StoredRun::to_line).collect();
        self.set_aside_lines(run_id, &lines)
    }

    /// [`Store::set_aside`] of export lines of any kind.
    pub(super) fn set_aside_lines(&self, run_id: &str, lines: &[String]) -> Result<Utf8PathBuf> {
        let dir = pending_dir(&self.path);
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, "creating", e))?;
        let file = dir.join(format!("{run_id}.jsonl"));
        let mut text = match std::fs::read(&file) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(Error::unreadable(&file, e)),
        };
        for line in lines {
            text.extend_from_slice(line.as_bytes());
            text.push(b'\n');
        }
        crate::fsio::write_atomically(&file, &text)?;
        Ok(file)
    }

    /// Import every file [`Store::set_aside`] (or [`Store::keep_evaluation`])
    /// left in `<store>.pending/` (runs as bought here: they were), removing
    /// each once stored; say what happened
    /// in one sentence per file. A file that does not read, or a store still
    /// busy, leaves the file for next time (said too); neither is an error.
    pub fn import_pending(&mut self) -> Vec<String> {
        let dir = pending_dir(&self.path);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Vec::new();
        };
        let mut files: Vec<Utf8PathBuf> = entries
            .filter_map(|e| Utf8PathBuf::from_path_buf(e.ok()?.path()).ok())
            .filter(|p| {
                p.extension() == Some("jsonl") && !p.file_name().is_some_and(|n| n.starts_with('.'))
            })
            .collect();
        files.sort();
        let mut said = Vec::new();
        for file in files {
            let runs = std::fs::File::open(&file)
                .map_err(|e| Error::unreadable(&file, e))
                .and_then(|f| read_export(std::io::BufReader::new(f), &file));
            let stored = runs.and_then(|records| {
                let batches = [(Origin::Bought, records.runs.as_slice())];
                let added = self.insert_all(&batches, &records.evaluations, &records.decisions)?;
                Ok((records.runs.len(), added.runs, records.evaluations.len()))
            });
            match stored {
                Ok((runs, added, evaluations)) => {
                    match std::fs::remove_file(&file) {
                        Ok(()) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                        Err(e) => said.push(format!(
                            "could not remove {file} once its runs were stored: {e}"
                        )),
                    }
                    let evaluations = match evaluations {
                        0 => String::new(),
                        n => format!(", and {n} evaluation(s)"),
                    };
                    said.push(format!(
                        "stored the {runs} run(s) kept aside in {file} while the evidence store was busy ({added} new){evaluations}"
                    ));
                }
                Err(e) => said.push(format!(
                    "the runs kept aside in {file} are not stored yet ({e}); they stay there for next time"
                )),
            }
        }
        let _ = std::fs::remove_dir(&dir);
        said
    }
}

/// What an export (JSON Lines) from `reader` holds, stored nowhere; `path`
/// names it in errors, a bad line with its number. Blank lines are skipped.
pub fn read_export(reader: impl BufRead, path: &Utf8Path) -> Result<Records> {
    let lines = read_lines(reader, path, StoredRun::from_line)?;
    Ok(Records {
        runs: lines.runs.into_iter().map(|(_, run)| run).collect(),
        evaluations: lines.evaluations,
        decisions: lines.decisions,
    })
}

/// The lines of an export by kind, each run with its line number.
pub(super) struct Lines {
    pub(super) runs: Vec<(usize, StoredRun)>,
    pub(super) evaluations: Vec<Evaluation>,
    pub(super) decisions: Vec<KeptDecision>,
}

/// Each line of an export, a run read by `parse_run`; the first line that
/// does not read refuses the whole file.
pub(super) fn read_lines(
    reader: impl BufRead,
    path: &Utf8Path,
    parse_run: fn(&str) -> std::result::Result<StoredRun, String>,
) -> Result<Lines> {
    let mut lines = Lines {
        runs: Vec::new(),
        evaluations: Vec::new(),
        decisions: Vec::new(),
    };
    for (i, line) in reader.split(b'\n').enumerate() {
        let line = line.map_err(|e| Error::unreadable(path, e))?;
        let bad = |message: String| Error::InvalidInput {
            at: Location::at(path, i + 1),
            message: format!(
                "{message}; nothing of {path} was imported (format: {EXPORT_SCHEMA} JSON Lines, from `bob-eval evidence export`)"
            ),
        };
        let text = std::str::from_utf8(&line).map_err(|e| bad(format!("not UTF-8: {e}")))?;
        if text.trim().is_empty() {
            continue;
        }
        match parse_record(text.trim_end_matches('\r'), parse_run).map_err(bad)? {
            Record::Run(run) => lines.runs.push((i + 1, run)),
            Record::Evaluation(e) => lines.evaluations.push(*e),
            Record::Decision(d) => lines.decisions.push(d),
        }
    }
    Ok(lines)
}
