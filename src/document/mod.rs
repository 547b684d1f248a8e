//! The documents bob-eval writes and reads: `skill-eval/1` (one eval) and
//! `skill-eval-baseline/1` (the best per model). Serde types; their schemas are
//! in `schemas/` and checked by [`crate::schema`].

use crate::config::ItemName;
use crate::error::{Error, Location, Result};
use camino::Utf8Path;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

mod run_id;
pub use run_id::{MAX_USD, new_run_id, run_id, run_id_date, sum_usd};
mod grader;
pub use grader::{
    ArmCount, GraderEval, GraderReading, GraderRole, MAX_EXPLANATION, NO_EXPLANATION,
    SPLIT_VOTE_ALARM, SplitVotes, bounded_explanation, scored_by_trigger_words,
};
mod baseline;
pub use baseline::{ArmSum, Baseline, BestEntry, BestEvidence, CaseArms};
mod partial;
pub use partial::{PartialReason, RUN_ERRORS};
mod efficiency;
pub use efficiency::{
    ArmFigure, ArmValues, CaseFigures, EFFICIENCY_METHOD, Efficiency, Figure, FigureKind, Figures,
    RatioFigure, SuiteFigures,
};
mod calibration;
pub use calibration::{CORRECTION_METHOD, Calibration, JudgeEntry};
pub mod flags;

/// Schema tag of a result document.
pub const SKILL_EVAL: &str = "skill-eval/1";
/// Schema tag of a baseline document.
pub const BASELINE: &str = "skill-eval-baseline/1";

/// The sign of `delta`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// delta > 0
    Improved,
    /// delta == 0
    NoSignal,
    /// delta < 0
    Regressed,
}

impl Verdict {
    /// The verdict for a delta as written (already rounded).
    pub fn of(delta: f64) -> Self {
        if delta > 0.0 {
            Verdict::Improved
        } else if delta < 0.0 {
            Verdict::Regressed
        } else {
            Verdict::NoSignal
        }
    }

    /// The word used in documents and output.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Improved => "improved",
            Verdict::NoSignal => "no-signal",
            Verdict::Regressed => "regressed",
        }
    }
}

/// A `skill-eval/1` document: one eval of one item on one model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillEval {
    /// Always [`SKILL_EVAL`].
    pub schema: String,
    /// The item evaluated.
    pub item: crate::config::ItemName,
    /// `eval-<item>-<UTC stamp>[-<suffix>]` ([`new_run_id`], [`run_id`]).
    pub run: String,
    /// UTC day the run started, `YYYY-MM-DD`.
    pub date: String,
    /// The model that ran (or `default`).
    pub model: String,
    /// Mean case score with the item loaded.
    pub with: f64,
    /// Mean case score without it.
    pub without: f64,
    /// `with - without`.
    pub delta: f64,
    /// The sign of `delta`.
    pub verdict: Verdict,
    /// Share of `tool_used: Skill` results that passed on the with arm.
    pub trigger_rate: Option<f64>,
    /// Share of passed trigger results on the fires side (graders that want the
    /// item to fire), with arm; absent when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fires_rate: Option<f64>,
    /// Share of passed trigger results on the quiet side (graders with `max: 0`:
    /// the item must not fire), with arm; absent when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quiet_rate: Option<f64>,
    /// What the run cost.
    pub cost_usd: f64,
    /// The ceiling it was held to.
    pub max_cost_usd: f64,
    /// True when not every case ran comparably.
    pub partial: bool,
    /// Why it is partial (`cost_ceiling`, `auth_failed`, `run_errors`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial_reason: Option<PartialReason>,
    /// The same numbers per case.
    pub cases: Vec<CaseEval>,
    /// Runs used that an earlier invocation bought (the evidence store); absent
    /// when the document was reduced from one platform result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reused_runs: Option<u32>,
    /// Runs used that were imported from a file (`evidence import`), not
    /// bought here nor collected from the project's shards: `gate` accepts
    /// on them only with `--trust-imported`. Absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported_runs: Option<u32>,
    /// What those reused runs had cost (not part of `cost_usd`, which is what
    /// this invocation spent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reused_cost_usd: Option<f64>,
    /// Digest of the suite measured: its cases' names and contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite_digest: Option<String>,
    /// Digest of the item's files the runs were measured on (absent when the
    /// document was reduced from a platform result given by hand).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_digest: Option<String>,
    /// How sure the suite's numbers are: 95 % intervals of `with`, `without`
    /// and `delta`, and whether `delta` is clear of 0 or within noise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stats: Option<Stats>,
    /// `--neighbours`: the trigger pair's prompts run again with other items
    /// loaded, and which item fired on each; absent without the flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neighbours: Option<Neighbours>,
    /// `--platform-env`: the variables the operator let reach the platform
    /// (which bob-eval otherwise keeps from it), with their values; part of
    /// every run's key. Absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform_env: Option<BTreeMap<String, String>>,
    /// For a suite with a case that has a scaffold script: `run` when the
    /// scripts ran (`--scaffold`), `skipped` when they were left out
    /// knowingly (`--no-scaffold`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scaffold: Option<String>,
    /// `--mocks off` and/or `--allow-real-servers` (`off`,
    /// `allow-real-servers`, or both joined by `+`): how the platform served
    /// the MCP servers a case could call, when not its default. Keyed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_servers: Option<String>,
    /// The command-line flags that picked and keyed its runs (the runs
    /// asked, the judge, the cases, the tools, the store, …;
    /// [`flags::RECORDED`]), one argument each: a command built from the
    /// document alone evaluates the same thing again. Empty when none was
    /// given; absent in documents written before they recorded them (their
    /// flags are unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flags: Option<Vec<String>>,
    /// Per case and for the suite, per arm: the model's cost, turns and
    /// duration per run with their intervals, and the with/without ratios.
    /// Absent in documents written before bob-eval measured them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub efficiency: Option<Efficiency>,
    /// Each judged (`llm`, `baseline`) grader's record against its labels,
    /// and the scores corrected for the labelled ones' errors; absent when
    /// no case has a judged grader.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<Calibration>,
}

/// What `--neighbours` measured: the trigger pair's prompts run on one arm
/// with the item and its neighbours loaded in one plugin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Neighbours {
    /// Every item loaded, the item first.
    pub items: Vec<String>,
    /// What these runs cost (counted in the document's `cost_usd`).
    pub cost_usd: f64,
    /// Why they stopped short (`cost_ceiling`: the suite spent the ceiling
    /// first, or these runs reached it), when they did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial_reason: Option<PartialReason>,
    /// Per trigger case, which item fired.
    pub cases: Vec<NeighbourCase>,
}

/// One trigger case under `--neighbours`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NeighbourCase {
    /// `fires` or `quiet`.
    pub name: String,
    /// Runs of the case.
    pub runs: u32,
    /// Each loaded item that fired on some run, with how often, most often
    /// first (a run where two fired counts for both).
    pub fired: Vec<FiredCount>,
    /// Runs where no loaded item fired.
    pub none: u32,
    /// `none / runs`.
    pub none_rate: f64,
}

/// How often one item fired on a case's runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FiredCount {
    /// The item that fired.
    pub item: String,
    /// Runs where it fired.
    pub runs: u32,
    /// `runs / the case's runs`.
    pub rate: f64,
}

/// The suite's intervals (see `docs/statistics.md` for the methods).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// The confidence of every interval (0.95).
    pub confidence: f64,
    /// The suite's estimates and advisory.
    pub suite: crate::stats::SuiteStats,
    /// Trigger results of the with arm, when there were any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<crate::stats::TriggerCount>,
    /// How `--runs auto` bought the runs; absent for a fixed number of runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto: Option<AutoRounds>,
    /// The smallest change in the suite's score the evaluation was planned
    /// to detect (`--min-effect`); absent in documents written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_effect: Option<f64>,
}

/// What `--runs auto` did: the rounds it bought and why it stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AutoRounds {
    /// Rounds bought (the first serves every case, later ones the open cases).
    pub rounds: u32,
    /// Why it stopped, in words (the suite's call is clear, the most runs per
    /// case were bought, …).
    pub stop: String,
    /// The confidence mode's level the stopping rule was planned at
    /// (`--confidence`, or settings); absent under the bare rule's defaults
    /// and in documents written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence_mode: Option<f64>,
}

/// One case of a [`SkillEval`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseEval {
    /// Case name.
    pub name: String,
    /// Mean with-arm run score.
    pub with: f64,
    /// Mean without-arm run score; null when that arm has no run.
    pub without: Option<f64>,
    /// `with - without`; null when `without` is.
    pub delta: Option<f64>,
    /// The sign of `delta`; null when `delta` is.
    pub verdict: Option<Verdict>,
    /// Passed share of the case's with-arm `tool_used: Skill` results.
    pub trigger_rate: Option<f64>,
    /// Passed share of the case's fires-side trigger results (with arm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fires_rate: Option<f64>,
    /// Passed share of the case's quiet-side trigger results (with arm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quiet_rate: Option<f64>,
    /// Cost of the case's runs in both arms.
    pub cost_usd: f64,
    /// Runs in both arms.
    pub runs: u32,
    /// Digest of the case folder the runs were made on (absent when the
    /// document was reduced from a single platform result).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// The case's 95 % intervals and advisory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stats: Option<crate::stats::CaseStats>,
    /// Each grader's results on each arm, in the order the runs name them;
    /// absent in documents written before grader detail was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graders: Option<Vec<GraderEval>>,
    /// True when every grader of the case is with-only under the ablation, so
    /// the platform scored them all: the case's score then says whether the
    /// item fired, not what it did. `check` refuses such a case in
    /// `evals/<item>/`; a platform result from elsewhere may hold one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub scored_by_trigger: bool,
    /// Runs that called MCP tools with no stand-in (their server was not
    /// started) or met stand-in errors, in words: such runs are not counted
    /// (the agent met a missing server, no failure of the item). Absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mocks: Option<String>,
    /// The platform's own advisories for the case, as it words them (from
    /// the platform runs of this invocation). Absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub advisories: Vec<String>,
}

/// Which way the trigger pair failed, in words; `None` when it held (or was not measured).
pub fn trigger_problem(fires_rate: Option<f64>, quiet_rate: Option<f64>) -> Option<&'static str> {
    let never = fires_rate == Some(0.0);
    let loud = quiet_rate.is_some_and(|q| q < 1.0);
    match (never, loud) {
        (true, true) => Some("never fired where it should, and fired where it should not"),
        (true, false) => Some("never fired where it should"),
        (false, true) => Some("fired where it should not"),
        (false, false) => None,
    }
}

impl SkillEval {
    /// Each case's digest by name, when every case has one.
    pub fn case_digests(&self) -> Option<BTreeMap<String, String>> {
        self.cases
            .iter()
            .map(|c| c.digest.clone().map(|d| (c.name.clone(), d)))
            .collect()
    }

    /// How the suite measured here differs from the one `best` was measured
    /// on, in words (cases removed, added, changed); `None` when it is the
    /// same or either side does not say.
    pub fn suite_change(&self, best: &BestEntry) -> Option<String> {
        let (mine, theirs) = (self.suite_digest.as_ref()?, best.suite_digest.as_ref()?);
        if mine == theirs {
            return None;
        }
        let (now, then) = (self.case_digests()?, best.cases.clone().unwrap_or_default());
        let names = |it: Vec<&String>| {
            it.iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let removed: Vec<&String> = then.keys().filter(|k| !now.contains_key(*k)).collect();
        let added: Vec<&String> = now.keys().filter(|k| !then.contains_key(*k)).collect();
        let changed: Vec<&String> = now
            .iter()
            .filter(|(k, d)| then.get(*k).is_some_and(|t| t != *d))
            .map(|(k, _)| k)
            .collect();
        let mut parts = Vec::new();
        if !removed.is_empty() {
            parts.push(format!("removed {}", names(removed)));
        }
        if !added.is_empty() {
            parts.push(format!("added {}", names(added)));
        }
        if !changed.is_empty() {
            parts.push(format!("changed {}", names(changed)));
        }
        if parts.is_empty() {
            parts.push("its cases differ".into());
        }
        Some(format!(
            "the suite is not the one the best ({}) was measured on: {}; the comparison is not like for like",
            best.run,
            parts.join("; ")
        ))
    }

    /// The flags it was measured with that change what a run measures
    /// ([`flags::measuring`]); `None` when it was written before documents
    /// recorded their flags, or records flags this version cannot read.
    pub fn measured_with(&self) -> Option<Vec<String>> {
        self.flags.as_ref()?;
        flags::measuring(self).ok()
    }

    /// How the flags that change what a run measures differ from those
    /// `best` was measured with, in words; `None` when they are the same or
    /// either side does not say.
    pub fn measuring_change(&self, best: &BestEntry) -> Option<String> {
        let how = flags::unlike(&self.measured_with()?, best.measured_with.as_ref()?)?;
        Some(format!(
            "the best ({}) was measured with other flags that change what a run measures: {how}; the comparison is not like for like",
            best.run
        ))
    }

    /// How the item measured here differs from the item as it is now
    /// (`now`, its digest), in words; `None` when they are the same or the
    /// document does not say what it was measured on.
    pub fn item_change(&self, now: &str) -> Option<String> {
        let measured = self.item_digest.as_deref()?;
        (measured != now).then(|| {
            format!(
                "{} ({}) was measured on another version of `{}` (item digest {measured}; its files now give {now}): evaluate it again: bob-eval run {} {}",
                self.run,
                self.date,
                self.item,
                self.item,
                flags::same_evaluation(self, &[]).0.join(" ")
            )
        })
    }

    /// [`trigger_problem`] of the whole result.
    pub fn trigger_problem(&self) -> Option<&'static str> {
        trigger_problem(self.fires_rate, self.quiet_rate)
    }
}

/// Round to the 4 decimals every document is written with.
pub fn round4(x: f64) -> f64 {
    let r = (x * 10_000.0).round() / 10_000.0;
    if r == 0.0 { 0.0 } else { r }
}

/// A score, rate or dollar amount as written in messages and the wiki: rounded to
/// 4 decimals, with at least 2 (`0.83`, `1.00`, `0.8333`).
pub fn fmt_score(x: f64) -> String {
    let s = format!("{:.4}", round4(x));
    let trimmed = s.trim_end_matches('0');
    let decimals = trimmed.split_once('.').map_or(0, |(_, d)| d.len());
    if decimals >= 2 {
        trimmed.to_string()
    } else {
        format!("{:.2}", round4(x))
    }
}

/// Read a JSON file; a syntax error names the file and line.
fn read_json(path: &Utf8Path) -> Result<Value> {
    let text = crate::fsio::read_text(path, crate::config::MAX_INPUT_FILE)
        .map_err(|e| Error::unreadable(path, e))?;
    serde_json::from_str(&text).map_err(|e| Error::InvalidInput {
        at: Location::at(path, e.line()),
        message: format!("not valid JSON: {e}"),
    })
}

/// Read and validate a `skill-eval/1` result for `item`: unreadable, not JSON, not
/// valid against the schema or for another item → [`Error::InvalidInput`] (exit 2)
/// naming the file.
pub fn load_result(path: &Utf8Path, item: &str) -> Result<SkillEval> {
    let doc = read_json(path)?;
    crate::schema::validate_skill_eval(&doc, path)?;
    let result: SkillEval = serde_json::from_value(doc)
        .map_err(|e| Error::invalid(path, format!("not a skill-eval/1 document: {e}")))?;
    if result.item.as_str() != item {
        return Err(Error::invalid(
            path,
            format!(
                "this result is for item {:?}, not {item:?}: gate it with `bob-eval gate {} {path}`",
                result.item, result.item
            ),
        ));
    }
    if chrono::NaiveDate::parse_from_str(&result.date, "%Y-%m-%d").is_err() {
        return Err(Error::invalid(
            path,
            format!(
                "\"date\": {:?} is not a calendar day (YYYY-MM-DD); was the document edited by hand?",
                result.date
            ),
        ));
    }
    Ok(result)
}

/// Read and validate `evals/<item>/baseline.json`. Missing means no best for any
/// model ([`Baseline::empty`]); corrupt, invalid or for another item →
/// [`Error::InvalidInput`] (exit 2) naming the file (and line for bad JSON). The
/// item must be a valid name, so a script's `load_baseline("../x")` reads nothing
/// outside `evals/`.
pub fn load_baseline(source: &Utf8Path, item: &ItemName) -> Result<Baseline> {
    let path = crate::config::baseline_path(source, item);
    if !path.try_exists().map_err(|e| Error::unreadable(&path, e))? {
        return Ok(Baseline::empty(item));
    }
    read_baseline_file(&path, item)
}

/// Read and validate an existing baseline file.
pub(crate) fn read_baseline_file(path: &Utf8Path, item: &str) -> Result<Baseline> {
    let doc = read_json(path)?;
    crate::schema::validate_baseline(&doc, path)?;
    let baseline: Baseline = serde_json::from_value(doc)
        .map_err(|e| Error::invalid(path, format!("not a skill-eval-baseline/1 document: {e}")))?;
    if baseline.item != item {
        return Err(Error::invalid(
            path,
            format!(
                "this baseline is for item {:?}, not {item:?}: fix its \"item\" or move it to evals/{}/",
                baseline.item, baseline.item
            ),
        ));
    }
    Ok(baseline)
}

#[cfg(test)]
impl SkillEval {
    /// A result measured on these runs (per case: with-arm and without-arm
    /// scores), its numbers and intervals as the reducer writes them.
    pub(crate) fn measured(arms: &[(&[f64], &[f64])], trigger: Option<(u32, u32)>) -> SkillEval {
        use crate::stats::{CaseRuns, TriggerCount, compare};
        let runs: Vec<CaseRuns> = arms
            .iter()
            .enumerate()
            .map(|(case, (w, wo))| CaseRuns {
                case,
                with: w.to_vec(),
                without: wo.to_vec(),
                cost_usd: 0.0,
                trigger: Default::default(),
            })
            .collect();
        let c = compare(&runs, crate::stats::CONFIDENCE);
        let cases = c
            .cases
            .iter()
            .map(|s| CaseEval {
                name: format!("case-{}", s.case),
                with: round4(s.with.value),
                without: Some(round4(s.without.value)),
                delta: Some(round4(s.delta.value)),
                verdict: None,
                trigger_rate: None,
                fires_rate: None,
                quiet_rate: None,
                cost_usd: 0.0,
                runs: s.runs_with + s.runs_without,
                digest: None,
                stats: Some(s.clone().rounded()),
                graders: None,
                scored_by_trigger: false,
                mocks: None,
                advisories: Vec::new(),
            })
            .collect();
        SkillEval {
            cases,
            trigger_rate: trigger.map(|(f, n)| round4(f64::from(f) / f64::from(n))),
            stats: Some(Stats {
                confidence: c.confidence,
                suite: c.suite.clone().rounded(),
                trigger: trigger.map(|(fired, results)| TriggerCount { fired, results }),
                auto: None,
                min_effect: None,
            }),
            ..SkillEval::sample(c.suite.with.value, c.suite.without.value)
        }
    }

    /// A complete, non-partial result for unit tests: `commit` on
    /// `claude-sonnet-5-5`, delta and verdict derived from `with` and `without`.
    /// Tests change the rest with struct update syntax.
    pub(crate) fn sample(with: f64, without: f64) -> Self {
        let delta = round4(with - without);
        SkillEval {
            schema: SKILL_EVAL.into(),
            item: crate::config::item_name("commit"),
            run: "eval-commit-20261202T094337Z".into(),
            date: "2026-12-02".into(),
            model: "claude-sonnet-5-5".into(),
            with,
            without,
            delta,
            verdict: Verdict::of(delta),
            trigger_rate: Some(1.0),
            fires_rate: None,
            quiet_rate: None,
            cost_usd: 0.41,
            max_cost_usd: 2.0,
            partial: false,
            partial_reason: None,
            cases: vec![],
            reused_runs: None,
            imported_runs: None,
            reused_cost_usd: None,
            suite_digest: None,
            item_digest: None,
            stats: None,
            neighbours: None,
            platform_env: None,
            scaffold: None,
            mcp_servers: None,
            flags: None,
            efficiency: None,
            calibration: None,
        }
    }
}

#[cfg(test)]
mod tests;
