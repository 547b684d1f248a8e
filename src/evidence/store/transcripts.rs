//! Transcripts in the store (schema 8): each run's redacted trace,
//! compressed and stored once per content (`transcript_blobs`, by sha256),
//! and per run its trace's digest, the case's prompt and the final answer
//! (`run_transcripts`). A size cap bounds the compressed traces one store
//! keeps; `evidence gc` drops those no best nor recent decision uses.

use super::super::transcript::{Transcript, compress, decompress, digest_of, redact, redact_trace};
use super::{Store, time_text};
use crate::error::Result;
use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, TransactionBehavior, params};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// A `run_transcripts` row joined with its trace: digest, prompt, answer, compressed trace.
type TranscriptRow = (String, Option<String>, Option<String>, Option<Vec<u8>>);

/// One run's transcript as kept: what `show`, `compare` and the export read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeptTranscript {
    /// The stored run's id.
    pub run_id: String,
    /// The sha256 of the trace (its content address).
    pub digest: String,
    /// The case's prompt.
    pub prompt: Option<String>,
    /// The final answer.
    pub answer: Option<String>,
    /// The redacted trace (stream-json lines).
    pub trace: String,
}

impl KeptTranscript {
    /// Why this line of an import cannot be kept, if it cannot: the digest
    /// must be the trace's.
    pub fn problem(&self) -> Option<String> {
        let digest = digest_of(&self.trace);
        (digest != self.digest).then(|| {
            format!(
                "transcript of run {}: digest {} is not the trace's ({digest}): the line was edited or damaged",
                self.run_id, self.digest
            )
        })
    }
}

/// What [`Store::keep_transcripts`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TranscriptsKept {
    /// Runs whose transcript is now kept (new to the store).
    pub kept: usize,
    /// Of those, how many shared a trace already stored (stored once).
    pub shared: usize,
    /// Runs whose transcript was not kept: the cap was reached.
    pub over_cap: Vec<String>,
    /// The cap, in bytes of compressed traces.
    pub cap: u64,
    /// Compressed bytes of traces held after this.
    pub held: u64,
}

/// What [`Store::transcript_gc`] did (or would do, on a dry run).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TranscriptGc {
    /// Runs whose transcript is kept.
    pub kept_runs: usize,
    /// Runs whose transcript is dropped.
    pub dropped_runs: usize,
    /// Distinct traces kept.
    pub kept_traces: usize,
    /// Distinct traces dropped.
    pub dropped_traces: usize,
    /// Compressed bytes of the traces kept.
    pub kept_bytes: u64,
    /// Compressed bytes freed.
    pub freed_bytes: u64,
    /// Nothing was removed (`--dry-run`).
    pub dry_run: bool,
}

impl Store {
    /// Compressed bytes of every trace held.
    pub fn transcript_bytes(&self) -> Result<u64> {
        self.conn
            .query_row("SELECT total(bytes) FROM transcript_blobs", [], |r| {
                r.get::<_, f64>(0)
            })
            .map(|b| b as u64)
            .map_err(|e| self.fault("reading the transcripts' size", e))
    }

    /// The transcript cap of this store, in bytes of compressed traces.
    pub fn transcript_cap(&self) -> u64 {
        self.transcript_cap
    }

    /// Set the cap ([`crate::evidence::transcript::CAP_ENV`]).
    pub fn set_transcript_cap(&mut self, bytes: u64) {
        self.transcript_cap = bytes;
    }

    /// Keep each `(run id, transcript)` in one transaction: a trace already
    /// stored is shared, a new one stored while the compressed traces stay
    /// within the cap; a run over it keeps no transcript (it is still
    /// counted) and is named in [`TranscriptsKept::over_cap`]. A run that has
    /// one already keeps it.
    pub fn keep_transcripts(&mut self, list: &[(String, Transcript)]) -> Result<TranscriptsKept> {
        let cap = self.transcript_cap;
        let mut held = self.transcript_bytes()?;
        let path = self.path.clone();
        let timeout = self.busy_timeout;
        let fault = |e| super::fault(&path, timeout, "keeping transcripts", e);
        if self.read_only {
            return Ok(TranscriptsKept::default());
        }
        let at = time_text(&Utc::now());
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(fault)?;
        let mut out = TranscriptsKept {
            cap,
            ..TranscriptsKept::default()
        };
        for (run_id, t) in list {
            let digest = t.digest();
            let has_run: bool = tx
                .query_row(
                    "SELECT count(*) > 0 FROM run_transcripts WHERE run_id = ?1",
                    [run_id],
                    |r| r.get(0),
                )
                .map_err(fault)?;
            if has_run {
                continue;
            }
            let stored: bool = tx
                .query_row(
                    "SELECT count(*) > 0 FROM transcript_blobs WHERE digest = ?1",
                    [&digest],
                    |r| r.get(0),
                )
                .map_err(fault)?;
            if stored {
                out.shared += 1;
            } else {
                let data = compress(&t.trace);
                if held + data.len() as u64 > cap {
                    out.over_cap.push(run_id.clone());
                    continue;
                }
                held += data.len() as u64;
                tx.execute(
                    "INSERT INTO transcript_blobs (digest, bytes, data) VALUES (?1, ?2, ?3)",
                    params![digest, data.len() as i64, data],
                )
                .map_err(fault)?;
            }
            tx.execute(
                "INSERT INTO run_transcripts (run_id, digest, prompt, answer, kept_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![run_id, digest, t.prompt, t.answer, at],
            )
            .map_err(fault)?;
            out.kept += 1;
        }
        tx.commit().map_err(fault)?;
        out.held = held;
        Ok(out)
    }

    /// The transcript kept for the run `run_id`; `None` when none is (a run
    /// bought before transcripts were kept, or one over the cap).
    pub fn transcript(&self, run_id: &str) -> Result<Option<KeptTranscript>> {
        let fault = |e| self.fault("reading a transcript", e);
        let row: Option<TranscriptRow> = self
            .conn
            .query_row(
                "SELECT t.digest, t.prompt, t.answer, b.data FROM run_transcripts AS t \
                 LEFT JOIN transcript_blobs AS b ON b.digest = t.digest WHERE t.run_id = ?1",
                [run_id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .optional()
            .map_err(fault)?;
        let Some((digest, prompt, answer, data)) = row else {
            return Ok(None);
        };
        let trace = match data {
            Some(data) => decompress(&data).ok_or_else(|| {
                self.error(format!(
                    "the trace {digest} of run {run_id} does not decompress: the store is damaged"
                ))
            })?,
            None => String::new(),
        };
        Ok(Some(KeptTranscript {
            run_id: run_id.to_string(),
            digest,
            prompt,
            answer,
            trace,
        }))
    }

    /// The final answer kept for the run `run_id`; `None` when no transcript
    /// is kept for it, or the model wrote no text.
    pub fn answer(&self, run_id: &str) -> Result<Option<String>> {
        self.conn
            .query_row(
                "SELECT answer FROM run_transcripts WHERE run_id = ?1",
                [run_id],
                |r| r.get::<_, Option<String>>(0),
            )
            .optional()
            .map(Option::flatten)
            .map_err(|e| self.fault("reading an answer", e))
    }

    /// The ids of the runs with a transcript, in order.
    pub fn transcript_runs(&self) -> Result<Vec<String>> {
        let fault = |e| self.fault("listing transcripts", e);
        let mut stmt = self
            .conn
            .prepare_cached("SELECT run_id FROM run_transcripts ORDER BY run_id")
            .map_err(fault)?;
        let ids = stmt
            .query_map([], |r| r.get(0))
            .map_err(fault)?
            .collect::<rusqlite::Result<Vec<String>>>()
            .map_err(fault)?;
        Ok(ids)
    }

    /// The runs used by the evaluations `evaluations` (run ids of bob-eval
    /// runs) and by those recorded decisions made at or after `since`: what
    /// [`Store::transcript_gc`] keeps.
    pub fn runs_to_keep(
        &self,
        evaluations: &BTreeSet<String>,
        since: DateTime<Utc>,
    ) -> Result<BTreeSet<String>> {
        let fault = |e| self.fault("reading what transcripts to keep", e);
        let list = serde_json::to_string(evaluations).expect("strings serialize");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT DISTINCT run_id FROM evaluation_runs WHERE evaluation IN \
                 (SELECT value FROM json_each(?1) \
                  UNION SELECT run FROM decisions WHERE recorded_at >= ?2)",
            )
            .map_err(fault)?;
        let ids = stmt
            .query_map(params![list, time_text(&since)], |r| r.get(0))
            .map_err(fault)?
            .collect::<rusqlite::Result<BTreeSet<String>>>()
            .map_err(fault)?;
        Ok(ids)
    }

    /// Drop every run's transcript but those of `keep` (run ids), and every
    /// trace no kept run shares; on `dry_run` only count. One transaction.
    pub fn transcript_gc(
        &mut self,
        keep: &BTreeSet<String>,
        dry_run: bool,
    ) -> Result<TranscriptGc> {
        let path = self.path.clone();
        let timeout = self.busy_timeout;
        let fault = |e| super::fault(&path, timeout, "collecting transcripts", e);
        let keep_list = serde_json::to_string(keep).expect("strings serialize");
        let tx = self
            .conn
            .transaction_with_behavior(if self.read_only {
                TransactionBehavior::Deferred
            } else {
                TransactionBehavior::Immediate
            })
            .map_err(fault)?;
        let kept_set = "SELECT value FROM json_each(?1)";
        let count = |sql: &str| -> rusqlite::Result<u64> {
            tx.query_row(sql, [&keep_list], |r| r.get::<_, f64>(0))
                .map(|n| n as u64)
        };
        let kept_runs = count(&format!(
            "SELECT count(*) FROM run_transcripts WHERE run_id IN ({kept_set})"
        ))
        .map_err(fault)?;
        let dropped_runs = count(&format!(
            "SELECT count(*) FROM run_transcripts WHERE run_id NOT IN ({kept_set})"
        ))
        .map_err(fault)?;
        let live = format!("SELECT digest FROM run_transcripts WHERE run_id IN ({kept_set})");
        let kept_traces = count(&format!(
            "SELECT count(*) FROM transcript_blobs WHERE digest IN ({live})"
        ))
        .map_err(fault)?;
        let kept_bytes = count(&format!(
            "SELECT total(bytes) FROM transcript_blobs WHERE digest IN ({live})"
        ))
        .map_err(fault)?;
        let dropped_traces = count(&format!(
            "SELECT count(*) FROM transcript_blobs WHERE digest NOT IN ({live})"
        ))
        .map_err(fault)?;
        let freed_bytes = count(&format!(
            "SELECT total(bytes) FROM transcript_blobs WHERE digest NOT IN ({live})"
        ))
        .map_err(fault)?;
        if !dry_run {
            tx.execute(
                &format!("DELETE FROM run_transcripts WHERE run_id NOT IN ({kept_set})"),
                [&keep_list],
            )
            .map_err(fault)?;
            tx.execute(
                "DELETE FROM transcript_blobs WHERE digest NOT IN (SELECT digest FROM run_transcripts)",
                [],
            )
            .map_err(fault)?;
            tx.commit().map_err(fault)?;
        }
        Ok(TranscriptGc {
            kept_runs: kept_runs as usize,
            dropped_runs: dropped_runs as usize,
            kept_traces: kept_traces as usize,
            dropped_traces: dropped_traces as usize,
            kept_bytes,
            freed_bytes,
            dry_run,
        })
    }

    /// The stored runs whose id is `id` or starts with it (at most two: more
    /// than one means the prefix is ambiguous).
    pub fn runs_by_id(&self, id: &str) -> Result<Vec<crate::evidence::StoredRun>> {
        let fault = |e| self.fault("finding a run", e);
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {} FROM runs WHERE id = ?1 OR substr(id, 1, length(?1)) = ?1 \
                 ORDER BY id = ?1 DESC, id LIMIT 2",
                super::COLUMNS
            ))
            .map_err(fault)?;
        let mut rows = stmt.query([id]).map_err(fault)?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(fault)? {
            out.push(self.run_from_row(row)?);
        }
        if out.first().is_some_and(|r| r.id == id) {
            out.truncate(1);
        }
        Ok(out)
    }

    /// The most recent stored run of `item`'s case `case` on `arm`
    /// (`model` when given), preferring one with a transcript.
    pub fn last_run(
        &self,
        item: &str,
        case: &str,
        arm: crate::evidence::Arm,
        model: Option<&str>,
    ) -> Result<Option<crate::evidence::StoredRun>> {
        let fault = |e| self.fault("finding the last run", e);
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {} FROM runs WHERE item = ?1 AND case_name = ?2 AND arm = ?3 \
                 AND (?4 IS NULL OR model = ?4) \
                 ORDER BY id IN (SELECT run_id FROM run_transcripts) DESC, started_at DESC, \
                 run DESC, id DESC LIMIT 1",
                super::COLUMNS
            ))
            .map_err(fault)?;
        let mut rows = stmt
            .query(params![item, case, arm.as_str(), model])
            .map_err(fault)?;
        match rows.next().map_err(fault)? {
            Some(row) => Ok(Some(self.run_from_row(row)?)),
            None => Ok(None),
        }
    }

    /// Every transcript of the runs `run_ids`, for the export.
    pub(super) fn transcripts_of(&self, run_ids: &[String]) -> Result<Vec<KeptTranscript>> {
        let mut out = Vec::new();
        for id in run_ids {
            if let Some(t) = self.transcript(id)? {
                out.push(t);
            }
        }
        Ok(out)
    }

    /// Keep the transcripts a sharded sweep's folders carry (`collect`), as
    /// an import keeps them: for the runs the store now holds, checked and
    /// redacted again.
    pub fn keep_collected_transcripts(
        &mut self,
        lines: Vec<KeptTranscript>,
    ) -> Result<TranscriptsKept> {
        self.import_transcripts(lines)
    }

    /// Keep transcripts read from an export: each checked
    /// ([`KeptTranscript::problem`]), redacted again (a file anyone can
    /// write), and kept for a run the store holds; the others are skipped.
    pub(super) fn import_transcripts(
        &mut self,
        lines: Vec<KeptTranscript>,
    ) -> Result<TranscriptsKept> {
        let mut list = Vec::new();
        for t in lines {
            let known: bool = self
                .conn
                .query_row(
                    "SELECT count(*) > 0 FROM runs WHERE id = ?1",
                    [&t.run_id],
                    |r| r.get(0),
                )
                .map_err(|e| self.fault("importing transcripts", e))?;
            if known {
                let transcript = Transcript {
                    prompt: t.prompt.as_deref().map(redact),
                    answer: t.answer.as_deref().map(redact),
                    trace: redact_trace(&t.trace),
                };
                list.push((t.run_id, transcript));
            }
        }
        self.keep_transcripts(&list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::transcript::Transcript;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let path = camino::Utf8PathBuf::from_path_buf(dir.path().join("e.db")).unwrap();
        let store = Store::open(&path).unwrap();
        (dir, store)
    }

    fn trace(answer: &str) -> Transcript {
        let line = serde_json::json!({"type": "assistant", "message": {"content": [{"type": "text", "text": answer}]}});
        Transcript::new(Some("the prompt"), &format!("{line}\n").repeat(20))
    }

    #[test]
    fn a_transcript_is_kept_once_per_content_and_read_back() {
        let (_dir, mut store) = store();
        let kept = store
            .keep_transcripts(&[
                ("r1".into(), trace("same")),
                ("r2".into(), trace("same")),
                ("r3".into(), trace("other")),
            ])
            .unwrap();
        assert_eq!((kept.kept, kept.shared), (3, 1));
        let blobs: i64 = store
            .conn
            .query_row("SELECT count(*) FROM transcript_blobs", [], |r| r.get(0))
            .unwrap();
        assert_eq!(blobs, 2, "identical traces are stored once");
        let back = store.transcript("r2").unwrap().unwrap();
        assert_eq!(back.answer.as_deref(), Some("same"));
        assert_eq!(back.prompt.as_deref(), Some("the prompt"));
        assert_eq!(back.trace, trace("same").trace);
        assert_eq!(back.problem(), None);
        assert_eq!(store.answer("r3").unwrap().as_deref(), Some("other"));
        assert_eq!(store.answer("nobody").unwrap(), None);
        assert_eq!(store.transcript("nobody").unwrap(), None);
        let again = store
            .keep_transcripts(&[("r1".into(), trace("same"))])
            .unwrap();
        assert_eq!(again.kept, 0, "a run keeps the transcript it has");
    }

    #[test]
    fn past_the_cap_a_run_keeps_no_transcript_and_is_named() {
        let (_dir, mut store) = store();
        let one = compress(&trace("a").trace).len() as u64;
        store.set_transcript_cap(one + one / 2);
        let kept = store
            .keep_transcripts(&[
                ("r1".into(), trace("a")),
                ("r2".into(), trace("b")),
                ("r3".into(), trace("a")),
            ])
            .unwrap();
        assert_eq!(kept.kept, 2, "{kept:?}");
        assert_eq!(kept.over_cap, vec!["r2".to_string()]);
        assert_eq!(kept.held, one);
        assert!(store.transcript("r2").unwrap().is_none());
        assert!(
            store.transcript("r3").unwrap().is_some(),
            "a shared trace costs nothing"
        );
    }

    #[test]
    fn gc_keeps_what_is_asked_and_frees_the_rest_and_a_dry_run_frees_nothing() {
        let (_dir, mut store) = store();
        store
            .keep_transcripts(&[
                ("r1".into(), trace("a")),
                ("r2".into(), trace("a")),
                ("r3".into(), trace("b")),
            ])
            .unwrap();
        let keep: BTreeSet<String> = ["r2".to_string()].into();
        let dry = store.transcript_gc(&keep, true).unwrap();
        assert_eq!((dry.kept_runs, dry.dropped_runs), (1, 2));
        assert_eq!((dry.kept_traces, dry.dropped_traces), (1, 1));
        assert!(dry.freed_bytes > 0 && dry.dry_run);
        assert_eq!(
            store.transcript_runs().unwrap().len(),
            3,
            "a dry run removes nothing"
        );
        let done = store.transcript_gc(&keep, false).unwrap();
        assert_eq!(done.freed_bytes, dry.freed_bytes);
        assert_eq!(store.transcript_runs().unwrap(), vec!["r2".to_string()]);
        assert_eq!(store.transcript_bytes().unwrap(), done.kept_bytes);
        assert_eq!(store.answer("r2").unwrap().as_deref(), Some("a"));
    }

    #[test]
    fn the_export_carries_transcripts_and_the_import_keeps_them_for_its_runs() {
        use crate::evidence::tests::sample;
        use crate::evidence::{Arm, Origin};
        let (_dir, mut store) = store();
        let run = sample("fires", Arm::With, 0, "eval-commit-1");
        store
            .insert(std::slice::from_ref(&run), &Origin::Bought)
            .unwrap();
        store
            .keep_transcripts(&[(run.id.clone(), trace("the answer"))])
            .unwrap();
        let mut out = Vec::new();
        store.export(&[], &mut out, "x".into()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains(r#""kind":"transcript""#), "{text}");

        let (_other_dir, mut other) = self::store();
        let report = other.import(text.as_bytes(), "x.jsonl".into()).unwrap();
        assert_eq!((report.transcripts, report.transcripts_added), (1, 1));
        assert_eq!(
            other.answer(&run.id).unwrap().as_deref(),
            Some("the answer")
        );
        assert_eq!(
            other.transcript(&run.id).unwrap(),
            store.transcript(&run.id).unwrap()
        );

        let edited = text.replace("the answer", "another answer");
        let (_third_dir, mut third) = self::store();
        let err = third
            .import(edited.as_bytes(), "y.jsonl".into())
            .unwrap_err();
        assert!(err.to_string().contains("is not the trace's"), "{err}");
        let old = text
            .lines()
            .filter(|l| !l.contains(r#""kind":"transcript""#))
            .collect::<Vec<_>>()
            .join("\n");
        let report = third.import(old.as_bytes(), "old.jsonl".into()).unwrap();
        assert_eq!(
            (report.added, report.transcripts),
            (1, 0),
            "an older export still imports"
        );
        assert_eq!(third.transcript(&run.id).unwrap(), None);
    }

    #[test]
    fn a_version_7_store_gains_the_transcript_tables_and_its_runs_have_none() {
        use super::super::migrations::{MIGRATIONS, Migration};
        use crate::evidence::tests::sample;
        use crate::evidence::{Arm, Origin};
        let dir = tempfile::tempdir().unwrap();
        let path = camino::Utf8PathBuf::from_path_buf(dir.path().join("e.db")).unwrap();
        {
            let mut conn = rusqlite::Connection::open(&path).unwrap();
            let tx = conn.transaction().unwrap();
            for step in &MIGRATIONS[..7] {
                match step {
                    Migration::Sql(sql) => tx.execute_batch(sql),
                    Migration::Step(step) => step(&tx),
                }
                .unwrap();
            }
            tx.pragma_update(None, "application_id", super::super::APPLICATION_ID)
                .unwrap();
            tx.pragma_update(None, "user_version", 7).unwrap();
            tx.commit().unwrap();
        }
        {
            let mut old = Store::open(&path).unwrap();
            old.insert(&[sample("fires", Arm::With, 0, "b")], &Origin::Bought)
                .unwrap();
        }
        let read = Store::open_read_only(&path).unwrap();
        let run = read.runs(&[]).unwrap().remove(0);
        assert_eq!(
            read.transcript(&run.id).unwrap(),
            None,
            "bought before: none"
        );
        assert_eq!(read.answer(&run.id).unwrap(), None);
        assert_eq!(read.transcript_bytes().unwrap(), 0);
    }
}
