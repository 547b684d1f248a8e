//! What the store keeps beside the runs: the evaluations (a document's
//! numbers and the runs it used) and the gate's recorded decisions, read
//! back for `history` and the export, written in [`Store::insert_all`]'s
//! transaction.

use super::super::StoredRun;
use super::super::kept::{Evaluation, KeptDecision, RecordProvenance, Records};
use super::{COLUMNS, Store, items_filter, time_text};
use crate::error::{Error, Result};
use chrono::Utc;
use rusqlite::params;

impl Store {
    /// Refuse the whole write when one evaluation or decision cannot be stored.
    pub(super) fn check_records(
        &self,
        evaluations: &[Evaluation],
        decisions: &[KeptDecision],
    ) -> Result<()> {
        let refuse = |what: String, problem: String| {
            Error::invalid(
                &self.path,
                format!("refused {what}: {problem}; nothing was stored"),
            )
        };
        let now = Utc::now();
        for e in evaluations {
            if let Some(problem) = e.problem_at(now) {
                return Err(refuse(format!("evaluation {}", e.run), problem));
            }
        }
        for d in decisions {
            if let Some(problem) = d.problem_at(now) {
                return Err(refuse(format!("decision on {}", d.run), problem));
            }
        }
        Ok(())
    }

    /// The evaluations of `items` (all when empty), by item, model, start
    /// and run; one that fails the checks of [`Evaluation::problem_at`] (kept
    /// by an earlier bob-eval) is left out ([`Store::kept_records`] names it).
    pub fn evaluations(&self, items: &[String]) -> Result<Vec<Evaluation>> {
        Ok(self.read_evaluations(items)?.0)
    }

    /// Whether one of `runs` (stored without-arm runs) has been compared
    /// again: used by an evaluation other than the one that bought it,
    /// beside with-arm runs of its case that evaluation bought (a new
    /// version of the item, or more runs). A repeated evaluation, which buys
    /// nothing, compares nothing anew. Fixed runs then renew them
    /// (`eval::plan::fixed_top_up`).
    pub fn compared_again<'a>(
        &self,
        runs: impl IntoIterator<Item = &'a StoredRun>,
    ) -> Result<bool> {
        let ids: Vec<&str> = runs.into_iter().map(|r| r.id.as_str()).collect();
        if ids.is_empty() {
            return Ok(false);
        }
        let ids = serde_json::to_string(&ids).expect("strings serialize");
        let fault = |e| self.fault("reading which evaluations used runs", e);
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM evaluation_runs AS u \
                 JOIN runs AS r ON r.id = u.run_id \
                 JOIN evaluation_runs AS beside ON beside.evaluation = u.evaluation \
                 JOIN runs AS w ON w.id = beside.run_id \
                 WHERE u.run_id IN (SELECT value FROM json_each(?1)) \
                 AND u.evaluation <> r.bought_by \
                 AND w.arm = 'with' AND w.item = r.item AND w.case_name = r.case_name \
                 AND w.bought_by = u.evaluation)",
            )
            .map_err(fault)?;
        stmt.query_row([ids], |row| row.get(0)).map_err(fault)
    }

    /// The recorded decisions of `items` (all when empty), by item, time
    /// recorded and id; one that fails [`KeptDecision::problem_at`] is left out.
    pub fn decisions(&self, items: &[String]) -> Result<Vec<KeptDecision>> {
        Ok(self.read_decisions(items)?.0)
    }

    /// Everything kept of `items` (all when empty) that passes the checks
    /// every line entering the store passes, and the lines that do not (kept
    /// by an earlier bob-eval), each named in words: what `history` shows.
    pub fn kept_records(&self, items: &[String]) -> Result<(Records, Vec<String>)> {
        let now = Utc::now();
        let mut bad = Vec::new();
        let mut runs = Vec::new();
        let fault = |e| self.fault("reading runs", e);
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
            let id: String = row.get(0).map_err(fault)?;
            match self.run_from_row(row) {
                Ok(run) => match run.outcome.refusal_at(now) {
                    Some((_, why)) => bad.push(format!(
                        "run {} (item `{}`, case `{}`, {} arm) is left out: {why}",
                        run.id,
                        run.key.item,
                        run.key.case,
                        run.key.arm.as_str()
                    )),
                    None => runs.push(run),
                },
                Err(e) => bad.push(format!("run {id} is left out: {e}")),
            }
        }
        let (evaluations, bad_evaluations) = self.read_evaluations(items)?;
        let (decisions, bad_decisions) = self.read_decisions(items)?;
        bad.extend(bad_evaluations);
        bad.extend(bad_decisions);
        let bad = bad
            .into_iter()
            .map(|b| format!("the evidence store {} holds a bad line: {b}", self.path))
            .collect();
        Ok((
            Records {
                runs,
                evaluations,
                decisions,
            },
            bad,
        ))
    }

    /// The evaluations that pass the checks, and the others in words.
    fn read_evaluations(&self, items: &[String]) -> Result<(Vec<Evaluation>, Vec<String>)> {
        let now = Utc::now();
        let fault = |e| self.fault("reading evaluations", e);
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT run, item, model, date, started_at, options, filtered, partial, \
                 partial_reason, with_score, without_score, delta, trigger_rate, cost_usd, \
                 reused_cost_usd, suite_digest, stats, \
                 (SELECT json_group_array(run_id) FROM \
                    (SELECT run_id FROM evaluation_runs WHERE evaluation = e.run ORDER BY position)), \
                 provenance \
                 FROM evaluations AS e \
                 WHERE ?1 IS NULL OR item IN (SELECT value FROM json_each(?1)) \
                 ORDER BY item, model, started_at, run",
            )
            .map_err(fault)?;
        let mut rows = stmt.query([items_filter(items)]).map_err(fault)?;
        let (mut out, mut bad) = (Vec::new(), Vec::new());
        while let Some(row) = rows.next().map_err(fault)? {
            let text = |i: usize| row.get::<_, String>(i).map_err(fault);
            let stats: Option<String> = row.get(16).map_err(fault)?;
            let read = || -> Result<Evaluation> {
                Ok(Evaluation {
                    run: text(0)?,
                    item: text(1)?,
                    model: text(2)?,
                    date: text(3)?,
                    started_at: self.time(&text(4)?)?,
                    options: self.json(&text(5)?, "options")?,
                    filtered: row.get(6).map_err(fault)?,
                    partial: row.get(7).map_err(fault)?,
                    partial_reason: row.get(8).map_err(fault)?,
                    with: row.get(9).map_err(fault)?,
                    without: row.get(10).map_err(fault)?,
                    delta: row.get(11).map_err(fault)?,
                    trigger_rate: row.get(12).map_err(fault)?,
                    cost_usd: row.get(13).map_err(fault)?,
                    reused_cost_usd: row.get(14).map_err(fault)?,
                    suite_digest: row.get(15).map_err(fault)?,
                    stats: stats
                        .as_deref()
                        .map(|s| self.json(s, "stats"))
                        .transpose()?,
                    used: self.json(&text(17)?, "runs used")?,
                    provenance: RecordProvenance::parse(&text(18)?),
                })
            };
            let run: String = row.get(0).map_err(fault)?;
            let item: String = row.get(1).map_err(fault)?;
            match read().map(|e| (e.problem_at(now), e)) {
                Ok((None, e)) => out.push(e),
                Ok((Some(why), _)) => bad.push(format!(
                    "evaluation {run} (item `{item}`) is left out: {why}"
                )),
                Err(e) => bad.push(format!("evaluation {run} (item `{item}`) is left out: {e}")),
            }
        }
        Ok((out, bad))
    }

    /// The decisions that pass the checks, and the others in words.
    fn read_decisions(&self, items: &[String]) -> Result<(Vec<KeptDecision>, Vec<String>)> {
        let now = Utc::now();
        let fault = |e| self.fault("reading decisions", e);
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT run, item, model, date, mode, rule, outcome, pr, pages, before, after, \
                 best_after, recorded_at, provenance, sequence FROM decisions \
                 WHERE ?1 IS NULL OR item IN (SELECT value FROM json_each(?1)) \
                 ORDER BY item, recorded_at, id",
            )
            .map_err(fault)?;
        let mut rows = stmt.query([items_filter(items)]).map_err(fault)?;
        let (mut out, mut bad) = (Vec::new(), Vec::new());
        while let Some(row) = rows.next().map_err(fault)? {
            let text = |i: usize| row.get::<_, String>(i).map_err(fault);
            let outcome = text(6)?;
            let sequence: Option<String> = row.get(14).map_err(fault)?;
            let read = || -> Result<KeptDecision> {
                Ok(KeptDecision {
                    run: text(0)?,
                    item: text(1)?,
                    model: text(2)?,
                    date: text(3)?,
                    mode: text(4)?,
                    rule: self.json(&text(5)?, "rule")?,
                    outcome: self.json(&format!("{outcome:?}"), "outcome")?,
                    pr: text(7)?,
                    pages: self.json(&text(8)?, "pages")?,
                    before: row.get(9).map_err(fault)?,
                    after: row.get(10).map_err(fault)?,
                    best_after: row.get(11).map_err(fault)?,
                    recorded_at: self.time(&text(12)?)?,
                    provenance: RecordProvenance::parse(&text(13)?),
                    sequence: sequence
                        .as_deref()
                        .map(|s| self.json(s, "sequence"))
                        .transpose()?,
                })
            };
            let run: String = row.get(0).map_err(fault)?;
            let item: String = row.get(1).map_err(fault)?;
            match read().map(|d| (d.problem_at(now), d)) {
                Ok((None, d)) => out.push(d),
                Ok((Some(why), _)) => bad.push(format!(
                    "decision on {run} (item `{item}`) is left out: {why}"
                )),
                Err(e) => bad.push(format!(
                    "decision on {run} (item `{item}`) is left out: {e}"
                )),
            }
        }
        Ok((out, bad))
    }
}

/// Insert `evaluations` and the runs each used; returns how many were new.
/// One recorded here (or collected) replaces an imported one of the same run
/// id; an imported one never replaces any.
pub(super) fn insert_evaluations(
    tx: &rusqlite::Transaction<'_>,
    evaluations: &[Evaluation],
) -> rusqlite::Result<usize> {
    let mut added = 0;
    let mut displace =
        tx.prepare_cached("DELETE FROM evaluations WHERE run = ?1 AND provenance = 'imported'")?;
    let mut displace_runs =
        tx.prepare_cached("DELETE FROM evaluation_runs WHERE evaluation = ?1")?;
    let mut stmt = tx.prepare_cached(
        "INSERT OR IGNORE INTO evaluations (run, item, model, date, started_at, options, \
         filtered, partial, partial_reason, with_score, without_score, delta, trigger_rate, \
         cost_usd, reused_cost_usd, suite_digest, stats, provenance) VALUES \
         (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
    )?;
    let mut used = tx.prepare_cached(
        "INSERT INTO evaluation_runs (evaluation, position, run_id) VALUES (?1, ?2, ?3)",
    )?;
    for e in evaluations {
        if !e.provenance.is_imported() && displace.execute([&e.run])? == 1 {
            displace_runs.execute([&e.run])?;
        }
        let n = stmt.execute(params![
            e.run,
            e.item,
            e.model,
            e.date,
            time_text(&e.started_at),
            serde_json::to_string(&e.options).expect("options serialize"),
            e.filtered,
            e.partial,
            e.partial_reason,
            e.with,
            e.without,
            e.delta,
            e.trigger_rate,
            e.cost_usd,
            e.reused_cost_usd,
            e.suite_digest,
            e.stats
                .as_ref()
                .map(|s| serde_json::to_string(s).expect("stats serialize")),
            e.provenance.as_str(),
        ])?;
        // The runs of an evaluation already stored are its own: left as they were.
        if n == 1 {
            for (i, id) in e.used.iter().enumerate() {
                used.execute(params![e.run, i as i64, id])?;
            }
        }
        added += n;
    }
    Ok(added)
}

/// Insert `decisions`; returns how many were new.
pub(super) fn insert_decisions(
    tx: &rusqlite::Transaction<'_>,
    decisions: &[KeptDecision],
) -> rusqlite::Result<usize> {
    let mut added = 0;
    let mut stmt = tx.prepare_cached(
        "INSERT OR IGNORE INTO decisions (id, run, item, model, date, mode, rule, outcome, pr, \
         pages, before, after, best_after, recorded_at, provenance, sequence) VALUES \
         (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
    )?;
    for d in decisions {
        added += stmt.execute(params![
            d.id(),
            d.run,
            d.item,
            d.model,
            d.date,
            d.mode,
            serde_json::to_string(&d.rule).expect("rule serializes"),
            d.outcome.as_str(),
            d.pr,
            serde_json::to_string(&d.pages).expect("pages serialize"),
            d.before,
            d.after,
            d.best_after,
            time_text(&d.recorded_at),
            d.provenance.as_str(),
            d.sequence
                .as_ref()
                .map(|s| serde_json::to_string(s).expect("sequence serializes")),
        ])?;
    }
    Ok(added)
}
