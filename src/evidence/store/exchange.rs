//! The store's exchange with files: export and import as JSON Lines (each
//! line a run, its key and outcome; then the evaluations and decisions, each
//! line of its `kind`), and the runs bought while the store was busy, set
//! aside beside it and imported by the next writer.

use super::super::kept::{
    Evaluation, ExportRecord, KeptDecision, RecordProvenance, Records, decision_line,
    evaluation_line, parse_record, transcript_line,
};
use super::super::{EXPORT_SCHEMA, ImportReport, Origin, Refused, RefusedRecord, StoredRun};
use super::transcripts::KeptTranscript;
use super::{COLUMNS, Store, items_filter, pending_dir};
use crate::error::{Error, Location, Result};
use camino::{Utf8Path, Utf8PathBuf};
use chrono::Utc;
use std::io::{BufRead, Write};

impl Store {
    /// Write the runs of `items` (all when empty) to `out` as JSON Lines, in a
    /// stable order, then their evaluations and decisions; `name` names `out`
    /// in errors. Returns how many runs.
    pub fn export(&self, items: &[String], out: impl Write, name: &Utf8Path) -> Result<usize> {
        self.export_where(items, out, name, false)
    }

    /// [`Store::export`] of what was not imported from a file (runs,
    /// evaluations and decisions): what a shard hands to `collect`, which
    /// trusts it (an imported line passed on that way would come out trusted).
    pub fn export_own(&self, items: &[String], out: impl Write, name: &Utf8Path) -> Result<usize> {
        self.export_where(items, out, name, true)
    }

    pub(super) fn export_where(
        &self,
        items: &[String],
        out: impl Write,
        name: &Utf8Path,
        own_only: bool,
    ) -> Result<usize> {
        let keep = |imported: bool| !(own_only && imported);
        let mut out = std::io::BufWriter::new(out);
        let mut count = 0;
        let mut ids = Vec::new();
        let fail = |e| Error::io(name, "writing the export", e);
        self.each_run(items, "exporting runs", |run| {
            if !keep(run.is_imported()) {
                return Ok(());
            }
            count += 1;
            ids.push(run.id.clone());
            writeln!(out, "{}", run.to_line()).map_err(fail)
        })?;
        for e in self.evaluations(items)? {
            if keep(e.provenance.is_imported()) {
                writeln!(out, "{}", evaluation_line(&e)).map_err(fail)?;
            }
        }
        for d in self.decisions(items)? {
            if keep(d.provenance.is_imported()) {
                writeln!(out, "{}", decision_line(&d)).map_err(fail)?;
            }
        }
        for t in self.transcripts_of(&ids)? {
            writeln!(out, "{}", transcript_line(&t)).map_err(fail)?;
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
    /// stored); a run, evaluation or decision dated in the future or with
    /// impossible values is refused alone and counted
    /// ([`ImportReport::refusals`], [`ImportReport::records_refused`]). What
    /// is stored is marked imported from `path`.
    pub fn import_file(&mut self, path: &Utf8Path) -> Result<ImportReport> {
        let bytes = crate::fsio::read(path, crate::config::MAX_INPUT_FILE)
            .map_err(|e| Error::unreadable(path, e))?;
        self.import(&bytes[..], path)
    }

    /// [`Store::import_file`] from `reader`; `path` names it in errors and in
    /// the runs' provenance. Blank lines are skipped; what is already stored
    /// is counted in `already` (a run keeps its provenance). Evaluations and
    /// decisions are stored with the runs, in one transaction, marked
    /// imported: one recorded here is never displaced by one imported.
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
        let mut records_refused = Vec::new();
        let mut evaluations = Vec::new();
        for (line, mut e) in lines.evaluations {
            match e.problem_at(now) {
                Some(why) => records_refused.push(RefusedRecord {
                    kind: "evaluation",
                    line,
                    why,
                }),
                None => {
                    e.provenance = RecordProvenance::Imported;
                    evaluations.push(e);
                }
            }
        }
        let mut decisions = Vec::new();
        for (line, mut d) in lines.decisions {
            match d.problem_at(now) {
                Some(why) => records_refused.push(RefusedRecord {
                    kind: "decision",
                    line,
                    why,
                }),
                None => {
                    d.provenance = RecordProvenance::Imported;
                    decisions.push(d);
                }
            }
        }
        let added = self.insert_all(
            &[(Origin::Imported(path.to_owned()), &runs)],
            &evaluations,
            &decisions,
        )?;
        let transcripts = lines.transcripts.len();
        let transcripts_added = self
            .import_transcripts(lines.transcripts.into_iter().map(|(_, t)| t).collect())?
            .kept;
        Ok(ImportReport {
            transcripts,
            transcripts_added,
            runs: total,
            added: added.runs,
            already: runs.len() - added.runs,
            refused: total - runs.len(),
            refusals,
            evaluations: evaluations.len(),
            evaluations_added: added.evaluations,
            decisions: decisions.len(),
            decisions_added: added.decisions,
            records_refused,
        })
    }

    /// Keep `runs`, bought by run `run_id`, beside the store while it is busy:
    /// in `<store>.pending/<run_id>.jsonl` (written whole, atomically, tagged
    /// with the store's key: [`pending_tag`]), stored as bought here by the
    /// next [`Store::import_pending`]. Returns the file.
    pub fn set_aside(&self, run_id: &str, runs: &[StoredRun]) -> Result<Utf8PathBuf> {
        let lines: Vec<String> = runs.iter().map(StoredRun::to_line).collect();
        self.set_aside_lines(run_id, &lines)
    }

    /// [`Store::set_aside`] of export lines of any kind. Added to the file of
    /// `run_id` when this store tagged it; a file there that it did not tag
    /// is left alone (the lines go to `<run_id>-2.jsonl`, …).
    pub(super) fn set_aside_lines(&self, run_id: &str, lines: &[String]) -> Result<Utf8PathBuf> {
        let key = self.key()?;
        let dir = pending_dir(&self.path);
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, "creating", e))?;
        let mut n = 1;
        let (file, mut body) = loop {
            let file = match n {
                1 => dir.join(format!("{run_id}.jsonl")),
                n => dir.join(format!("{run_id}-{n}.jsonl")),
            };
            if std::fs::symlink_metadata(&file).is_err() {
                break (file, Vec::new());
            }
            if let Ok(body) = read_pending(&file, &key) {
                break (file, body);
            }
            n += 1;
        };
        for line in lines {
            body.extend_from_slice(line.as_bytes());
            body.push(b'\n');
        }
        let mut text = body.clone();
        text.extend_from_slice(tag_line(&key, &body).as_bytes());
        crate::fsio::write_confined(&file, &text)?;
        Ok(file)
    }

    /// The store's own secret ([`migrations::store_key_and_record_provenance`]).
    pub(super) fn key(&self) -> Result<Vec<u8>> {
        self.conn
            .query_row("SELECT key FROM store_key WHERE id = 1", [], |r| r.get(0))
            .map_err(|e| self.fault("reading the store's key", e))
    }

    /// Store every file [`Store::set_aside`] (or [`Store::keep_evaluation`])
    /// left in `<store>.pending/` (runs as bought here: they were), removing
    /// each once stored; say what happened in one sentence per file. Only a
    /// regular file carrying this store's tag is taken, and only when every
    /// line passes the checks every line entering the store passes; any other
    /// file there is named and left in place (opened without waiting, never
    /// read past [`crate::config::MAX_INPUT_FILE`]: a FIFO, a device or a
    /// huge file cannot stall or exhaust a writer). A store still busy leaves
    /// the file for next time (said too). None of this is an error.
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
        if files.is_empty() {
            let _ = std::fs::remove_dir(&dir);
            return said;
        }
        let key = match self.key() {
            Ok(key) => key,
            Err(e) => {
                said.push(format!(
                    "the files set aside in {dir} are not stored yet ({e}); they stay there for next time"
                ));
                return said;
            }
        };
        for file in files {
            let body = match read_pending(&file, &key) {
                Ok(body) => body,
                Err(why) => {
                    said.push(format!(
                        "refused {file}: {why}; it is left in place and nothing of it was stored (if you trust it, `bob-eval evidence import {file}` stores its runs as imported)"
                    ));
                    continue;
                }
            };
            let stored = read_export(&body[..], &file).and_then(|records| {
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

/// The schema of a set-aside file's last line, which carries its tag.
const PENDING_SCHEMA: &str = "bob-eval-pending/1";

/// The tag of a set-aside file's `body` (every line before the tag's):
/// HMAC-SHA256 under the store's key, lower-case hex. Only a writer holding
/// the store's contents can make one.
pub fn pending_tag(key: &[u8], body: &[u8]) -> String {
    let mut message = Vec::with_capacity(PENDING_SCHEMA.len() + 1 + body.len());
    message.extend_from_slice(PENDING_SCHEMA.as_bytes());
    message.push(b'\n');
    message.extend_from_slice(body);
    crate::evidence::digest::hex(&hmac_sha256(key, &message))
}

/// The last line of a set-aside file: its schema and tag, then a newline.
fn tag_line(key: &[u8], body: &[u8]) -> String {
    format!(
        "{}\n",
        serde_json::json!({"schema": PENDING_SCHEMA, "tag": pending_tag(key, body)})
    )
}

/// The body of the set-aside file at `file` (every line before its tag)
/// when it is a regular file, not a link, within the input limit, whose
/// last line is a tag `key` verifies; else why not, in words.
fn read_pending(file: &Utf8Path, key: &[u8]) -> std::result::Result<Vec<u8>, String> {
    let bytes = crate::fsio::read_regular(
        file,
        crate::fsio::Links::Refuse,
        crate::config::MAX_INPUT_FILE,
    )
    .map_err(|e| format!("not a file bob-eval set aside ({e})"))?;
    let text = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
    let (body, last) = match text.iter().rposition(|b| *b == b'\n') {
        Some(i) => (&bytes[..=i], &text[i + 1..]),
        None => (&bytes[..0], text),
    };
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Tag {
        schema: String,
        tag: String,
    }
    let untagged = "it carries no tag of this store (bob-eval tags every file it sets aside, with a key only this store holds)";
    let tag: Tag = serde_json::from_slice(last).map_err(|_| untagged.to_string())?;
    if tag.schema != PENDING_SCHEMA {
        return Err(untagged.into());
    }
    let expected = pending_tag(key, body);
    // Compared in time independent of where they differ.
    let same = tag.tag.len() == expected.len()
        && tag
            .tag
            .bytes()
            .zip(expected.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
    if !same {
        return Err(
            "its tag does not verify with this store's key: it was not set aside by bob-eval for this store, or was edited since"
                .into(),
        );
    }
    Ok(body.to_vec())
}

/// [`hmac_sha256`] in hex, for the RFC's test vectors.
#[cfg(test)]
pub(super) fn hmac_for_tests(key: &[u8], message: &[u8]) -> String {
    crate::evidence::digest::hex(&hmac_sha256(key, message))
}

/// HMAC-SHA256 (RFC 2104) of `message` under `key`.
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    const BLOCK: usize = 64;
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let mut inner = Sha256::new();
    inner.update(block.map(|b| b ^ 0x36));
    inner.update(message);
    let mut outer = Sha256::new();
    outer.update(block.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    let mut out = [0u8; 32];
    out.copy_from_slice(&outer.finalize());
    out
}

/// What an export (JSON Lines) from `reader` holds, stored nowhere; `path`
/// names it in errors, a bad line with its number. Blank lines are skipped.
/// Every line is held to the checks of a line entering the store (values in
/// range, nothing dated in the future): the first that fails refuses the
/// whole file (`collect`'s shard runs, the files set aside).
pub fn read_export(reader: impl BufRead, path: &Utf8Path) -> Result<Records> {
    Ok(read_export_with_transcripts(reader, path)?.0)
}

/// [`read_export`], with the transcript lines the file carries (each
/// checked and redacted again when a store keeps it).
pub fn read_export_with_transcripts(
    reader: impl BufRead,
    path: &Utf8Path,
) -> Result<(Records, Vec<KeptTranscript>)> {
    let lines = read_lines(reader, path, StoredRun::parse_line)?;
    let transcripts = lines.transcripts.into_iter().map(|(_, t)| t).collect();
    let now = Utc::now();
    let bad = |line: usize, why: String| Error::InvalidInput {
        at: Location::at(path, line),
        message: format!("{why}; nothing of {path} was stored"),
    };
    let mut records = Records::default();
    for (line, run) in lines.runs {
        if let Some((_, why)) = run.outcome.refusal_at(now) {
            return Err(bad(line, why));
        }
        records.runs.push(run);
    }
    for (line, e) in lines.evaluations {
        if let Some(why) = e.problem_at(now) {
            return Err(bad(line, why));
        }
        records.evaluations.push(e);
    }
    for (line, d) in lines.decisions {
        if let Some(why) = d.problem_at(now) {
            return Err(bad(line, why));
        }
        records.decisions.push(d);
    }
    Ok((records, transcripts))
}

/// The lines of an export by kind, each with its line number.
pub(super) struct Lines {
    pub(super) runs: Vec<(usize, StoredRun)>,
    pub(super) evaluations: Vec<(usize, Evaluation)>,
    pub(super) decisions: Vec<(usize, KeptDecision)>,
    pub(super) transcripts: Vec<(usize, KeptTranscript)>,
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
        transcripts: Vec::new(),
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
            ExportRecord::Run(run) => lines.runs.push((i + 1, run)),
            ExportRecord::Evaluation(e) => lines.evaluations.push((i + 1, *e)),
            ExportRecord::Decision(d) => lines.decisions.push((i + 1, d)),
            ExportRecord::Transcript(t) => lines.transcripts.push((i + 1, *t)),
        }
    }
    Ok(lines)
}
