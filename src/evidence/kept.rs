//! What the store keeps beside the runs: each evaluation (the numbers a
//! `skill-eval/1` document had, and exactly the runs it was made from) and
//! each recorded decision of the gate. `bob-eval history` plots them; the
//! export carries them as lines of their own kind.

use super::digest::digest_parts;
use crate::document::{SkillEval, Stats};
use crate::wiki::Outcome;
use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};

/// Where a kept evaluation or decision came from. Not in the export: whoever
/// stores a line decides (as for runs, [`super::Provenance`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecordProvenance {
    /// Recorded by this store's own commands (or set aside by them).
    #[default]
    Here,
    /// `evidence import`: shown as imported, never displacing one recorded here.
    Imported,
    /// `collect` of the project's own shards: trusted as recorded here.
    Collected,
    /// Kept before provenance was (schema 5): counted as recorded here.
    Legacy,
}

impl RecordProvenance {
    /// `here`, `imported`, `collected` or `legacy`, as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            RecordProvenance::Here => "here",
            RecordProvenance::Imported => "imported",
            RecordProvenance::Collected => "collected",
            RecordProvenance::Legacy => "legacy",
        }
    }

    /// The provenance stored as `text` (anything unknown reads as imported:
    /// never trusted more than it says).
    pub fn parse(text: &str) -> RecordProvenance {
        match text {
            "here" => RecordProvenance::Here,
            "collected" => RecordProvenance::Collected,
            "legacy" => RecordProvenance::Legacy,
            _ => RecordProvenance::Imported,
        }
    }

    /// True for one imported from a file.
    pub fn is_imported(self) -> bool {
        self == RecordProvenance::Imported
    }
}

/// Why a day (`YYYY-MM-DD`) named `name` cannot be stored at `now`: not a
/// date, or later than the day of `now` plus [`super::MAX_CLOCK_SKEW`].
fn day_problem(name: &str, day: &str, now: DateTime<Utc>) -> Option<String> {
    let parsed = (day.len() == 10)
        .then(|| chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").ok())
        .flatten();
    match parsed {
        None => Some(format!("{name} {day:?} is not a date (YYYY-MM-DD)")),
        Some(d) if d > (now + super::MAX_CLOCK_SKEW).date_naive() => Some(format!(
            "{name} {day} is in the future (today is {})",
            now.date_naive()
        )),
        Some(_) => None,
    }
}

/// Why a time named `name` cannot be stored at `now`: later than `now` plus
/// [`super::MAX_CLOCK_SKEW`].
fn time_problem(name: &str, t: DateTime<Utc>, now: DateTime<Utc>) -> Option<String> {
    (t > now + super::MAX_CLOCK_SKEW).then(|| {
        format!(
            "{name} {} is in the future (now is {}; {} min of clock skew allowed)",
            t.to_rfc3339_opts(SecondsFormat::Secs, true),
            now.to_rfc3339_opts(SecondsFormat::Secs, true),
            super::MAX_CLOCK_SKEW.num_minutes()
        )
    })
}

/// Why a score named `name` is out of `lo..=hi`, if it is (or not a number).
fn range_problem(name: &str, v: f64, lo: f64, hi: f64) -> Option<String> {
    (!(lo..=hi).contains(&v)).then(|| format!("{name} {v} is outside {lo}..{hi}"))
}

/// What an evaluation was held to, beside its item and model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvaluationOptions {
    /// The judge model as asked (`default` for the platform's own).
    pub judge_model: String,
    /// The platform's version of the runs used, when one ran or was reused.
    #[serde(default)]
    pub platform_version: Option<String>,
    /// The tool grants.
    pub tools: Vec<String>,
    /// The digest of the other options that change an outcome (the runs' key).
    pub options: String,
    /// `--runs`: a number per arm, or `auto` / `auto:MAX`.
    pub runs: String,
    /// `--fresh`: every run bought anew.
    pub fresh: bool,
    /// The cases measured, in suite order (fewer than the suite's when filtered).
    pub cases: Vec<String>,
}

/// One evaluation of a suite: a document's numbers and the runs behind them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Evaluation {
    /// The document's run id (`eval-<item>-<UTC start>`): the evaluation's identity.
    pub run: String,
    /// The item.
    pub item: String,
    /// The model as asked.
    pub model: String,
    /// The document's day, `YYYY-MM-DD`.
    pub date: String,
    /// When the invocation started.
    pub started_at: DateTime<Utc>,
    /// What it was held to.
    pub options: EvaluationOptions,
    /// True when `--case`/`--tag` left some of the suite's cases out.
    pub filtered: bool,
    /// The document's `partial`.
    pub partial: bool,
    /// Why it is partial.
    #[serde(default)]
    pub partial_reason: Option<String>,
    /// The document's `with`.
    pub with: f64,
    /// The document's `without`.
    pub without: f64,
    /// The document's `delta`.
    pub delta: f64,
    /// The document's trigger rate.
    #[serde(default)]
    pub trigger_rate: Option<f64>,
    /// What this invocation spent.
    pub cost_usd: f64,
    /// What the reused runs had cost when bought.
    pub reused_cost_usd: f64,
    /// The document's suite digest.
    #[serde(default)]
    pub suite_digest: Option<String>,
    /// The document's intervals.
    #[serde(default)]
    pub stats: Option<Stats>,
    /// The stored runs it was made from, by id, case by case (with arm first).
    pub used: Vec<String>,
    /// Where it came from (not exported).
    #[serde(skip)]
    pub provenance: RecordProvenance,
}

impl Evaluation {
    /// The evaluation `doc` states, made from the stored runs `used`.
    pub fn of(
        doc: &SkillEval,
        started_at: DateTime<Utc>,
        filtered: bool,
        options: EvaluationOptions,
        used: Vec<String>,
    ) -> Evaluation {
        Evaluation {
            run: doc.run.clone(),
            item: doc.item.to_string(),
            model: doc.model.clone(),
            date: doc.date.clone(),
            started_at,
            options,
            filtered,
            partial: doc.partial,
            partial_reason: doc.partial_reason.as_ref().map(ToString::to_string),
            with: doc.with,
            without: doc.without,
            delta: doc.delta,
            trigger_rate: doc.trigger_rate,
            cost_usd: doc.cost_usd,
            reused_cost_usd: doc.reused_cost_usd.unwrap_or(0.0),
            suite_digest: doc.suite_digest.clone(),
            stats: doc.stats.clone(),
            used,
            provenance: RecordProvenance::Here,
        }
    }

    /// Why it cannot be stored at `now`, if it cannot: every evaluation that
    /// enters the store, by any door, is held to this (and one read back
    /// from a store written by an earlier bob-eval, which `history` skips).
    pub fn problem_at(&self, now: DateTime<Utc>) -> Option<String> {
        if self.run.is_empty() || self.item.is_empty() || self.model.is_empty() {
            return Some("its run, item and model must not be empty".into());
        }
        let scores = [
            ("with", Some(self.with)),
            ("without", Some(self.without)),
            ("trigger_rate", self.trigger_rate),
        ];
        if let Some(problem) = scores
            .into_iter()
            .find_map(|(name, v)| v.and_then(|v| range_problem(name, v, 0.0, 1.0)))
        {
            return Some(problem);
        }
        if let Some(problem) = range_problem("delta", self.delta, -1.0, 1.0) {
            return Some(problem);
        }
        for (name, v) in [
            ("cost_usd", self.cost_usd),
            ("reused_cost_usd", self.reused_cost_usd),
        ] {
            if !v.is_finite() || !(0.0..=crate::config::MAX_COST_USD).contains(&v) {
                return Some(format!(
                    "{name} {v} is not a number of dollars in 0..={}",
                    crate::config::MAX_COST_USD
                ));
            }
        }
        if let Some(stats) = &self.stats {
            let suite = &stats.suite;
            let confidences = [
                ("stats.confidence", stats.confidence),
                (
                    "stats.suite.with's confidence",
                    suite.with.interval.confidence,
                ),
                (
                    "stats.suite.without's confidence",
                    suite.without.interval.confidence,
                ),
                (
                    "stats.suite.delta's confidence",
                    suite.delta.interval.confidence,
                ),
            ];
            if let Some((name, c)) = confidences.iter().find(|(_, c)| !(*c > 0.0 && *c < 1.0)) {
                return Some(format!("{name} {c} is not strictly between 0 and 1"));
            }
        }
        day_problem("date", &self.date, now)
            .or_else(|| time_problem("started_at", self.started_at, now))
    }
}

/// One condition of the rule as it stood when the decision was recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleCheck {
    /// `not-partial`, `beats-best`, `helps`, `trigger-rate`, …
    pub name: String,
    /// `pass`, `fail` or `skipped`.
    pub status: String,
}

/// The mode of a decision the rule alone made; under the confidence mode it
/// is `confidence:<level>` (`confidence:0.95`).
pub const MODE_RULE: &str = "rule";

/// A recorded decision of the gate (`gate --record`, `propose`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeptDecision {
    /// The run id of the result gated.
    pub run: String,
    /// The item.
    pub item: String,
    /// The model the result ran on.
    pub model: String,
    /// The result's day (its wiki row's), `YYYY-MM-DD`.
    pub date: String,
    /// How the gate decided: [`MODE_RULE`], or `confidence:<level>`.
    pub mode: String,
    /// Each condition of the rule and how it went.
    pub rule: Vec<RuleCheck>,
    /// Accepted or rejected.
    pub outcome: Outcome,
    /// The proposal's pull request.
    pub pr: String,
    /// The wiki pattern pages cited.
    pub pages: Vec<String>,
    /// The model's best before.
    #[serde(default)]
    pub before: Option<f64>,
    /// The result's `with` as recorded.
    pub after: f64,
    /// The model's best after (the result's `with` when accepted, else `before`).
    #[serde(default)]
    pub best_after: Option<f64>,
    /// When it was recorded.
    pub recorded_at: DateTime<Utc>,
    /// Under the confidence mode: the level this proposal of the item was
    /// held to over its sequence, and its budget (what the next decision's
    /// level is derived from). Absent for the bare rule and for decisions
    /// recorded before the sequence was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequence: Option<crate::stats::sequence::Sequence>,
    /// Where it came from (not exported).
    #[serde(skip)]
    pub provenance: RecordProvenance,
}

impl KeptDecision {
    /// The decision [`crate::record::record`] applied to `result`, with its
    /// PR and pages, recorded at `at`.
    pub fn of(
        result: &SkillEval,
        applied: &crate::gate::Decision,
        pr: &str,
        pages: &[String],
        at: DateTime<Utc>,
    ) -> KeptDecision {
        let before = applied.best.as_ref().map(|b| b.score);
        let mut unique: Vec<String> = vec![];
        for p in pages {
            if !unique.contains(p) {
                unique.push(p.clone());
            }
        }
        KeptDecision {
            run: result.run.clone(),
            item: result.item.to_string(),
            model: result.model.clone(),
            date: result.date.clone(),
            mode: match applied.confidence {
                Some(level) => format!("confidence:{level}"),
                None => MODE_RULE.into(),
            },
            rule: applied
                .conditions
                .iter()
                .map(|c| RuleCheck {
                    name: c.name.into(),
                    status: serde_json::to_value(c.status)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                })
                .collect(),
            outcome: if applied.accepted {
                Outcome::Accepted
            } else {
                Outcome::Rejected
            },
            pr: pr.into(),
            pages: unique,
            before,
            after: applied.with,
            best_after: if applied.accepted {
                Some(applied.with)
            } else {
                before
            },
            recorded_at: at,
            sequence: applied.sequence,
            provenance: RecordProvenance::Here,
        }
    }

    /// Its identity: the run, model, PR, outcome and time recorded, so the
    /// same decision imported twice is kept once.
    pub fn id(&self) -> String {
        digest_parts([
            "bob-eval-decision/1",
            &self.run,
            &self.model,
            &self.pr,
            self.outcome.as_str(),
            &self.recorded_at.to_rfc3339_opts(SecondsFormat::Nanos, true),
        ])
    }

    /// Why it cannot be stored at `now`, if it cannot: every decision that
    /// enters the store, by any door, is held to this (and one read back
    /// from a store written by an earlier bob-eval, which `history` skips).
    pub fn problem_at(&self, now: DateTime<Utc>) -> Option<String> {
        if self.run.is_empty() || self.item.is_empty() || self.model.is_empty() {
            return Some("its run, item and model must not be empty".into());
        }
        if self.mode != MODE_RULE && !self.mode.starts_with("confidence:") {
            return Some(format!(
                "mode {:?} is not `rule` nor `confidence:<level>`",
                self.mode
            ));
        }
        let scores = [
            ("after", Some(self.after)),
            ("before", self.before),
            ("best_after", self.best_after),
        ];
        if let Some(problem) = scores
            .into_iter()
            .find_map(|(name, v)| v.and_then(|v| range_problem(name, v, 0.0, 1.0)))
        {
            return Some(problem);
        }
        if let Some(problem) = self.sequence.as_ref().and_then(|s| s.problem()) {
            return Some(problem);
        }
        day_problem("date", &self.date, now)
            .or_else(|| time_problem("recorded_at", self.recorded_at, now))
    }

    /// Its wiki row (for a decision no point shows).
    pub fn row(&self) -> crate::wiki::Row {
        crate::wiki::Row {
            date: self.date.clone(),
            item: self.item.clone(),
            pr: self.pr.clone(),
            pages: self.pages.clone(),
            before: self.before,
            after: self.after,
            outcome: self.outcome,
        }
    }
}

/// Keep `decision` in the store at `path` (created when missing). Returns
/// the warning to show when it could not: the wiki and the baseline already
/// hold the decision, so it is not lost, only matched by day and score.
pub fn keep_decision(path: &camino::Utf8Path, decision: &KeptDecision) -> Option<String> {
    let kept = super::Store::open(path)
        .and_then(|mut s| s.insert_decisions(std::slice::from_ref(decision)));
    kept.err().map(|e| {
        format!(
            "the decision was recorded in the wiki and baseline.json but not kept in the evidence store ({e}); `bob-eval history` will match it by its day and score"
        )
    })
}

/// Everything an export holds, by kind.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Records {
    /// Platform runs.
    pub runs: Vec<super::StoredRun>,
    /// Evaluations.
    pub evaluations: Vec<Evaluation>,
    /// Recorded decisions.
    pub decisions: Vec<KeptDecision>,
}

/// The export line of an evaluation or a decision.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KindLine<T> {
    schema: String,
    kind: String,
    record: T,
}

/// An evaluation as one export line (no newline).
pub fn evaluation_line(e: &Evaluation) -> String {
    kind_line("evaluation", e)
}

/// A decision as one export line (no newline).
pub fn decision_line(d: &KeptDecision) -> String {
    kind_line("decision", d)
}

fn kind_line<T: Serialize>(kind: &str, record: &T) -> String {
    serde_json::to_string(&KindLine {
        schema: super::EXPORT_SCHEMA.into(),
        kind: kind.into(),
        record,
    })
    .expect("a record serializes")
}

/// A run's transcript as one export line (no newline).
pub fn transcript_line(t: &super::KeptTranscript) -> String {
    kind_line("transcript", t)
}

/// One line of an export, by kind.
#[derive(Debug, Clone, PartialEq)]
pub enum ExportRecord {
    /// A platform run.
    Run(super::StoredRun),
    /// An evaluation.
    Evaluation(Box<Evaluation>),
    /// A recorded decision.
    Decision(KeptDecision),
    /// A run's transcript (exports since schema 8 of the store).
    Transcript(Box<super::KeptTranscript>),
}

/// Parse one export line of any kind, a run with `parse_run`; the error
/// says what is wrong. A line without `kind` is a run (as every export
/// before kinds). An evaluation's or decision's values are not checked
/// here: the caller holds them to `problem_at` (import one by one, the
/// other doors the whole file).
pub fn parse_record(
    text: &str,
    parse_run: fn(&str) -> Result<super::StoredRun, String>,
) -> Result<ExportRecord, String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let kind = value
        .get("kind")
        .and_then(|k| k.as_str())
        .map(str::to_string);
    let check_schema = |schema: &str| {
        if schema == super::EXPORT_SCHEMA {
            Ok(())
        } else {
            Err(format!(
                "schema {schema:?} is not {:?} (written by another bob-eval?)",
                super::EXPORT_SCHEMA
            ))
        }
    };
    match kind.as_deref() {
        None => parse_run(text).map(ExportRecord::Run),
        Some("evaluation") => {
            let line: KindLine<Evaluation> =
                serde_json::from_value(value).map_err(|e| e.to_string())?;
            check_schema(&line.schema)?;
            Ok(ExportRecord::Evaluation(Box::new(line.record)))
        }
        Some("decision") => {
            let line: KindLine<KeptDecision> =
                serde_json::from_value(value).map_err(|e| e.to_string())?;
            check_schema(&line.schema)?;
            Ok(ExportRecord::Decision(line.record))
        }
        Some("transcript") => {
            let line: KindLine<super::KeptTranscript> =
                serde_json::from_value(value).map_err(|e| e.to_string())?;
            check_schema(&line.schema)?;
            match line.record.problem() {
                Some(why) => Err(why),
                None => Ok(ExportRecord::Transcript(Box::new(line.record))),
            }
        }
        Some(other) => Err(format!(
            "kind {other:?} is not `evaluation`, `decision` nor `transcript` (written by a newer bob-eval?)"
        )),
    }
}
