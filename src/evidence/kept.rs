//! What the store keeps beside the runs: each evaluation (the numbers a
//! `skill-eval/1` document had, and exactly the runs it was made from) and
//! each recorded decision of the gate. `bob-eval history` plots them; the
//! export carries them as lines of their own kind.

use super::digest::digest_parts;
use crate::document::{SkillEval, Stats};
use crate::wiki::Outcome;
use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};

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
            partial_reason: doc.partial_reason.clone(),
            with: doc.with,
            without: doc.without,
            delta: doc.delta,
            trigger_rate: doc.trigger_rate,
            cost_usd: doc.cost_usd,
            reused_cost_usd: doc.reused_cost_usd.unwrap_or(0.0),
            suite_digest: doc.suite_digest.clone(),
            stats: doc.stats.clone(),
            used,
        }
    }

    /// Why it cannot be stored, if it cannot.
    pub fn problem(&self) -> Option<String> {
        if self.run.is_empty() || self.item.is_empty() || self.model.is_empty() {
            return Some("its run, item and model must not be empty".into());
        }
        for (name, v) in [("with", self.with), ("without", self.without)] {
            if !(0.0..=1.0).contains(&v) {
                return Some(format!("{name} {v} is outside 0..1"));
            }
        }
        if !(-1.0..=1.0).contains(&self.delta) {
            return Some(format!("delta {} is outside -1..1", self.delta));
        }
        for (name, v) in [
            ("cost_usd", self.cost_usd),
            ("reused_cost_usd", self.reused_cost_usd),
        ] {
            if !v.is_finite() || v < 0.0 {
                return Some(format!("{name} {v} is not a non-negative number"));
            }
        }
        None
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

    /// Why it cannot be stored, if it cannot.
    pub fn problem(&self) -> Option<String> {
        if self.run.is_empty() || self.item.is_empty() || self.model.is_empty() {
            return Some("its run, item and model must not be empty".into());
        }
        let scores = [Some(self.after), self.before, self.best_after];
        if let Some(v) = scores
            .into_iter()
            .flatten()
            .find(|v| !(0.0..=1.0).contains(v))
        {
            return Some(format!("score {v} is outside 0..1"));
        }
        None
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

/// One line of an export, by kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// A platform run.
    Run(super::StoredRun),
    /// An evaluation.
    Evaluation(Box<Evaluation>),
    /// A recorded decision.
    Decision(KeptDecision),
}

/// Parse one export line of any kind, a run with `parse_run`; the error
/// says what is wrong. A line without `kind` is a run (as every export
/// before kinds).
pub fn parse_record(
    text: &str,
    parse_run: fn(&str) -> Result<super::StoredRun, String>,
) -> Result<Record, String> {
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
        None => parse_run(text).map(Record::Run),
        Some("evaluation") => {
            let line: KindLine<Evaluation> =
                serde_json::from_value(value).map_err(|e| e.to_string())?;
            check_schema(&line.schema)?;
            match line.record.problem() {
                Some(problem) => Err(problem),
                None => Ok(Record::Evaluation(Box::new(line.record))),
            }
        }
        Some("decision") => {
            let line: KindLine<KeptDecision> =
                serde_json::from_value(value).map_err(|e| e.to_string())?;
            check_schema(&line.schema)?;
            match line.record.problem() {
                Some(problem) => Err(problem),
                None => Ok(Record::Decision(line.record)),
            }
        }
        Some(other) => Err(format!(
            "kind {other:?} is not `evaluation` nor `decision` (written by a newer bob-eval?)"
        )),
    }
}
