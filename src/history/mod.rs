//! `bob-eval history`: what was measured over time, and what the gate made of it.
//!
//! A [`Point`] is one evaluation of an item's whole suite on one model, with
//! the numbers its `skill-eval/1` document had (the evidence store keeps each
//! evaluation and exactly the runs it used: [`crate::evidence::Evaluation`]),
//! and their intervals. Evaluations of some cases only (`--case`, `--tag`)
//! or partial ones are left out unless asked for (`--all`), and marked.
//!
//! Decisions are the gate's recorded ones ([`crate::evidence::KeptDecision`]),
//! joined to the point of the run they gated by its run id. A wiki row no
//! stored decision stands for (one recorded before decisions were kept) marks
//! the point of its item whose day and `with` (to the row's 4 decimals) are
//! its own, the first such in time; a row or decision that marks none is kept
//! in [`ItemHistory::unmatched`]. The best in `baseline.json` names its run:
//! that point is accepted even without a row.
//!
//! Stores from before evaluations were kept hold only runs: the runs one
//! bob-eval run bought before an item's first kept evaluation are grouped
//! into a point of their own (`from: "runs"`): `with` and `without` are the
//! means over cases of each case's mean score on that arm, `trigger_rate` the
//! share of the trigger pair's graders that passed on the with arm (the
//! `fires` and `quiet` cases, each judged by the grader of its name), the
//! cost everything bought. Such a point holds only the runs its run bought.

use crate::document::{Baseline, load_baseline, round4};
use crate::error::Result;
use crate::evidence::{Arm, Evaluation, KeptDecision, Records, Store, StoredRun};

use crate::wiki::{Outcome, Row};
use camino::{Utf8Path, Utf8PathBuf};
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

mod points;
use points::{evaluation_point, runs_point};
mod marks;
use marks::{mark, steps};
mod risk;
pub use risk::{BARE_RISK, RunningRisk, next_in_sequence, running_risk};
#[cfg(test)]
mod tests;

/// The `schema` of `history --json`.
pub const SCHEMA: &str = "bob-eval-history/1";

/// Two scores closer than this are the same score (documents keep 4 decimals).
const SAME_SCORE: f64 = 0.000_051;

/// The history of some items (`history --json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct History {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The evidence store read.
    pub evidence: Utf8PathBuf,
    /// Rows of `wiki/skill-impact.md` skipped as malformed (`check-wiki` names them).
    pub skipped_wiki_rows: usize,
    /// True when filtered and partial evaluations are shown (`--all`).
    pub all: bool,
    /// One entry per item, by name.
    pub items: Vec<ItemHistory>,
    /// The lines of the store left out, each named with why: a run,
    /// evaluation or decision that fails the checks every line entering the
    /// store now passes (kept by an earlier bob-eval).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// One item's history.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ItemHistory {
    /// The item.
    pub item: String,
    /// One series per model, by name; empty when nothing of the item is kept.
    pub series: Vec<Series>,
    /// The item's wiki rows and kept decisions that mark no point shown.
    pub unmatched: Vec<Row>,
    /// Filtered or partial evaluations left out (`--all` shows them).
    pub hidden: usize,
}

/// One item on one model over time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    /// The model as asked (`default` for the platform's own).
    pub model: String,
    /// The best `baseline.json` records for the model now, if any.
    pub best: Option<Best>,
    /// The points, oldest first.
    pub points: Vec<Point>,
    /// The running risk of the item's decisions kept for the model: the
    /// chance of at least one false accept had none of them changed anything
    /// ([`running_risk`]). Absent when none is kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub risk: Option<RunningRisk>,
}

/// A model's best as `baseline.json` records it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Best {
    /// Its `with`.
    pub score: f64,
    /// The run that set it.
    pub run: String,
    /// That run's day.
    pub date: String,
}

/// A low and high limit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Band {
    /// Lower limit.
    pub low: f64,
    /// Upper limit.
    pub high: f64,
}

/// A point's intervals, from its document's `stats`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Intervals {
    /// Their confidence (0.95, higher under `--runs auto`).
    pub confidence: f64,
    /// Of `with`.
    pub with: Band,
    /// Of `without`.
    pub without: Band,
    /// Of `delta`.
    pub delta: Band,
}

/// One evaluation of an item on a model (or, from an older store, the runs
/// one bob-eval run bought).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// The evaluation's run id (`eval-<item>-<UTC start>`).
    pub run: String,
    /// When it started (for runs: the earliest start among them).
    pub time: DateTime<Utc>,
    /// The day the run is dated, `YYYY-MM-DD`.
    pub date: String,
    /// `evaluation` (a kept evaluation) or `runs` (the runs a run bought, from an older store).
    pub from: &'static str,
    /// The document's `with`; `None` without a usable with run (runs only).
    pub with: Option<f64>,
    /// The same for the without arm.
    pub without: Option<f64>,
    /// `with - without`, when both are known.
    pub delta: Option<f64>,
    /// The document's trigger rate, if any trigger grader ran.
    pub trigger_rate: Option<f64>,
    /// Dollars this run spent, judge included.
    pub cost_usd: f64,
    /// Dollars the runs it reused had cost (evaluations only).
    pub reused_cost_usd: Option<f64>,
    /// Runs it used (bought or reused); for runs only, the runs bought.
    pub runs: usize,
    /// Cases measured.
    pub cases: usize,
    /// True when `--case`/`--tag` left some of the suite's cases out.
    pub filtered: bool,
    /// True when the document was partial.
    pub partial: bool,
    /// Why.
    pub partial_reason: Option<String>,
    /// The intervals, when the document had them.
    pub intervals: Option<Intervals>,
    /// The stored runs it used, by id (evaluations only).
    pub used_runs: Vec<String>,
    /// The gate's decision on it, when one is recorded.
    pub decision: Option<RecordedDecision>,
    /// The model's recorded best after this point, as far as the decisions tell.
    pub best: Option<f64>,
    /// True for an evaluation imported from a file (`evidence import`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub imported: bool,
}

/// A recorded decision on a point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordedDecision {
    /// Accepted or rejected.
    pub outcome: Outcome,
    /// The pull request; `None` when only the baseline tells.
    pub pr: Option<String>,
    /// The best before.
    pub before: Option<f64>,
    /// The score recorded.
    pub after: f64,
    /// What told: `wiki` (a recorded decision, kept or a row) or `baseline`
    /// (the best's run, no row found).
    pub source: &'static str,
    /// How it was put on its point: `run` (a kept decision, by the run id it
    /// gated), `day-and-score` (an older wiki row) or `best` (the baseline's run).
    pub joined: &'static str,
    /// The run id it gated (kept decisions).
    pub run: Option<String>,
    /// How the gate decided (kept decisions: `rule`, or `confidence:<level>`).
    pub mode: Option<String>,
    /// The pattern pages cited.
    pub pages: Vec<String>,
    /// When it was recorded (kept decisions).
    pub recorded_at: Option<DateTime<Utc>>,
    /// True for a kept decision imported from a file (`evidence import`):
    /// shown only where no decision recorded here is.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub imported: bool,
}

/// The history of `items` (every item with anything kept when empty) from
/// the store, the baselines and the wiki under `source`; `all` shows the
/// filtered and partial evaluations too.
/// A line of the store that fails today's checks is left out and named in
/// [`History::warnings`].
pub fn load(source: &Utf8Path, store: &Store, items: &[String], all: bool) -> Result<History> {
    let (kept, warnings) = store.kept_records(items)?;
    let mut items = items.to_vec();
    if items.is_empty() {
        let names: BTreeSet<&String> = kept
            .runs
            .iter()
            .map(|r| &r.key.item)
            .chain(kept.evaluations.iter().map(|e| &e.item))
            .chain(kept.decisions.iter().map(|d| &d.item))
            .collect();
        items = names.into_iter().cloned().collect();
    }
    // An imported run may name what is no item of a source tree: it has no baseline.
    let baselines = items
        .iter()
        .filter_map(|item| crate::config::ItemName::new(item).ok())
        .map(|item| Ok((item.to_string(), load_baseline(source, &item)?)))
        .collect::<Result<BTreeMap<_, _>>>()?;
    let (rows, skipped_wiki_rows) = crate::wiki::read_rows(source)?;
    Ok(History {
        schema: SCHEMA,
        evidence: store.path().to_owned(),
        skipped_wiki_rows,
        all,
        items: gather(&kept, &items, &baselines, &rows, all),
        warnings,
    })
}

/// The history of `items` from what the store keeps, marked from the wiki
/// `rows` and the `baselines` (by item); `all` keeps filtered and partial
/// evaluations. Items are sorted and deduplicated.
pub fn gather(
    kept: &Records,
    items: &[String],
    baselines: &BTreeMap<String, Baseline>,
    rows: &[Row],
    all: bool,
) -> Vec<ItemHistory> {
    let mut items: Vec<String> = items.to_vec();
    items.sort();
    items.dedup();
    items
        .into_iter()
        .map(|item| {
            let evaluations: Vec<&Evaluation> =
                kept.evaluations.iter().filter(|e| e.item == item).collect();
            let evaluated: BTreeSet<&str> = evaluations.iter().map(|e| e.run.as_str()).collect();
            let first = evaluations.iter().map(|e| e.started_at).min();
            let mut by_model: BTreeMap<String, Vec<Point>> = BTreeMap::new();
            let mut hidden = 0;
            for e in &evaluations {
                if !all && (e.filtered || e.partial) {
                    hidden += 1;
                    continue;
                }
                by_model
                    .entry(crate::config::canonical_model(&e.model))
                    .or_default()
                    .push(evaluation_point(e));
            }
            // Runs bought before the item's first kept evaluation, by no kept one.
            let mut bought: BTreeMap<(String, &str), Vec<&StoredRun>> = BTreeMap::new();
            for run in kept.runs.iter().filter(|r| r.key.item == item) {
                if !evaluated.contains(run.outcome.bought_by.as_str()) {
                    bought
                        .entry((
                            crate::config::canonical_model(&run.key.model),
                            &run.outcome.bought_by,
                        ))
                        .or_default()
                        .push(run);
                }
            }
            for ((model, by), runs) in bought {
                let p = runs_point(&item, by, &runs);
                if first.is_none_or(|f| p.time < f) {
                    by_model.entry(model).or_default().push(p);
                }
            }
            let baseline = baselines.get(&item);
            let mut series: Vec<Series> = by_model
                .into_iter()
                .map(|(model, mut points)| {
                    points.sort_by(|a, b| a.time.cmp(&b.time).then_with(|| a.run.cmp(&b.run)));
                    Series {
                        best: baseline.and_then(|b| b.best_for(&model)).map(|b| Best {
                            score: b.score,
                            run: b.run.clone(),
                            date: b.date.clone(),
                        }),
                        points,
                        risk: running_risk(&kept.decisions, &item, &model),
                        model,
                    }
                })
                .collect();
            // Imported decisions first: one recorded here, marked later, wins.
            let mut decisions: Vec<&KeptDecision> =
                kept.decisions.iter().filter(|d| d.item == item).collect();
            decisions.sort_by_key(|d| !d.provenance.is_imported());
            let item_rows: Vec<&Row> = rows.iter().filter(|r| r.item == item).collect();
            let unmatched = mark(&mut series, &item, &decisions, &item_rows);
            for s in &mut series {
                steps(s);
            }
            ItemHistory {
                item,
                series,
                unmatched,
                hidden,
            }
        })
        .collect()
}
