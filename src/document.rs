//! The documents bob-eval writes and reads: `skill-eval/1` (one eval) and
//! `skill-eval-baseline/1` (the best per model). Serde types; their schemas are
//! in `schemas/` and checked by [`crate::schema`].

use crate::error::{Error, Location, Result};
use camino::Utf8Path;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

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
    pub item: String,
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
    pub partial_reason: Option<String>,
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
    pub partial_reason: Option<String>,
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
}

/// What `--runs auto` did: the rounds it bought and why it stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AutoRounds {
    /// Rounds bought (the first serves every case, later ones the open cases).
    pub rounds: u32,
    /// Why it stopped, in words (the suite's call is clear, the most runs per
    /// case were bought, …).
    pub stop: String,
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
}

/// The UTC stamp in a run id made from a platform result's start ([`run_id`]).
const RUN_STAMP: &str = "%Y%m%dT%H%M%SZ";
/// The UTC stamp of a run id bob-eval mints ([`new_run_id`]): microseconds, fixed width.
const FINE_STAMP: &str = "%Y%m%dT%H%M%S%.6fZ";

/// The id of `item`'s evaluation reduced from a platform result started at
/// `started`: `eval-<item>-<UTC stamp>`, to the second (the same result
/// reduced twice gets the same id).
pub fn run_id(item: &str, started: chrono::DateTime<chrono::Utc>) -> String {
    format!("eval-{item}-{}", started.format(RUN_STAMP))
}

/// A new id for an evaluation of `item` that bob-eval starts at `started`
/// (a document's `run`, the `bought_by` of the runs it bought):
/// `eval-<item>-<UTC stamp to the microsecond>-<8 hex digits>`. Two
/// evaluations started in the same microsecond still differ by the suffix
/// (random per process, then a counter); ids sort by their start.
pub fn new_run_id(item: &str, started: chrono::DateTime<chrono::Utc>) -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u32(std::process::id());
    hasher.write_i64(started.timestamp_nanos_opt().unwrap_or_default());
    let suffix = hasher.finish() as u32;
    format!("eval-{item}-{}-{suffix:08x}", started.format(FINE_STAMP))
}

/// The day of a run id of `item` ([`run_id`] or [`new_run_id`]),
/// `YYYY-MM-DD`; `None` when `id` is neither.
pub fn run_id_date(item: &str, id: &str) -> Option<String> {
    let stamp = id
        .strip_prefix("eval-")?
        .strip_prefix(item)?
        .strip_prefix('-')?;
    let time = match stamp.split_once("Z-") {
        Some((fine, suffix))
            if suffix.len() == 8 && suffix.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            chrono::NaiveDateTime::parse_from_str(&format!("{fine}Z"), FINE_STAMP).ok()?
        }
        Some(_) => return None,
        None => chrono::NaiveDateTime::parse_from_str(stamp, RUN_STAMP).ok()?,
    };
    Some(time.format("%Y-%m-%d").to_string())
}

/// The most dollars any one sum of costs is taken to be: a cost above it (or
/// not finite) is clamped, so no sum of imported numbers becomes infinite.
pub const MAX_USD: f64 = 1e9;

/// The sum of `costs`, each taken as 0 when negative or not a number and at
/// most [`MAX_USD`], the sum at most [`MAX_USD`]: always finite.
pub fn sum_usd(costs: impl IntoIterator<Item = f64>) -> f64 {
    costs
        .into_iter()
        .map(|c| {
            if c.is_nan() {
                0.0
            } else {
                c.clamp(0.0, MAX_USD)
            }
        })
        .fold(0.0, |sum, c| (sum + c).min(MAX_USD))
}

/// The longest explanation a [`GraderEval`] keeps, in characters.
pub const MAX_EXPLANATION: usize = 300;

/// One grader of a case: how it did on each arm, and why it first failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraderEval {
    /// The grader's name.
    pub name: String,
    /// `scored` (counts toward the score) or `with-only` (an indicator of the with arm).
    pub kind: GraderKind,
    /// Passes and results on the with arm.
    pub with: ArmCount,
    /// Passes and results on the without arm (absent when it has none there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub without: Option<ArmCount>,
    /// True when the grader itself threw on some run (`grader threw: …`): a
    /// fault of the suite, not of the model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub error: bool,
    /// The platform's explanation of its first failure (the first error, if
    /// it threw), at most [`MAX_EXPLANATION`] characters; absent when it never failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

/// Whether a grader counts toward the score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GraderKind {
    /// Counts toward the run's score.
    Scored,
    /// A with-only indicator (the platform's `withOnly`): not scored.
    WithOnly,
}

/// A grader's passes out of its results on one arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArmCount {
    /// Results that passed.
    pub passed: u32,
    /// Results in all (runs that reported the grader).
    pub runs: u32,
}

impl GraderKind {
    /// `scored` or `with-only`, as the document writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            GraderKind::Scored => "scored",
            GraderKind::WithOnly => "with-only",
        }
    }
}

/// What a case scored by its trigger graders alone means, in words.
pub fn scored_by_trigger_words(case: &str) -> String {
    format!(
        "case `{case}` was scored by its trigger graders alone: its score says whether the item fired, not what it did (up to +1.00 of delta for firing alone); add a grader of what the item teaches"
    )
}

impl SkillEval {
    /// The cases the platform scored by their trigger graders alone.
    pub fn scored_by_trigger(&self) -> impl Iterator<Item = &CaseEval> {
        self.cases.iter().filter(|c| c.scored_by_trigger)
    }
}

impl CaseEval {
    /// The graders that threw on some run: faults of the suite, not the model.
    pub fn grader_errors(&self) -> impl Iterator<Item = &GraderEval> {
        self.graders.iter().flatten().filter(|g| g.error)
    }
}

/// What a failed grader says when the platform gave no explanation.
pub const NO_EXPLANATION: &str = "no explanation given";

/// What a grader's passes on the two arms say about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraderReading {
    /// It threw on some run: an error of the suite, not of the model.
    Threw,
    /// A with-only indicator (no without arm, by design) that held on every run.
    IndicatorHeld,
    /// A with-only indicator that failed on some with-arm run.
    IndicatorFailed,
    /// Scored, with no without-arm result: passed on every with-arm run.
    PassedWith,
    /// Scored, with no without-arm result: failed on some with-arm run.
    FailedWith,
    /// Passes more often with the item than without: what a good grader does.
    TellsApart,
    /// Passes on every run of both arms: it does not tell the arms apart.
    PassesBoth,
    /// Fails on every run of both arms.
    FailsBoth,
    /// Passes more often without the item than with it.
    BetterWithout,
    /// Passes as often on both arms, on some runs only.
    NoDifference,
}

impl GraderReading {
    /// True when the grader failed where it should pass: on the with arm
    /// (or threw). A with-only grader has no without arm, and a grader that
    /// passes only with the item does its job: neither is a failure.
    pub fn is_failure(self, g: &GraderEval) -> bool {
        match self {
            GraderReading::Threw
            | GraderReading::IndicatorFailed
            | GraderReading::FailedWith
            | GraderReading::FailsBoth
            | GraderReading::BetterWithout
            | GraderReading::NoDifference => true,
            GraderReading::TellsApart => g.with.passed < g.with.runs,
            GraderReading::IndicatorHeld
            | GraderReading::PassedWith
            | GraderReading::PassesBoth => false,
        }
    }

    /// What it means, in words.
    pub fn words(self) -> &'static str {
        match self {
            GraderReading::Threw => {
                "the grader threw, an error of the suite (not the model failing)"
            }
            GraderReading::IndicatorHeld => "with-only indicator, held (no without arm, by design)",
            GraderReading::IndicatorFailed => {
                "with-only indicator, failed with the item (no without arm, by design)"
            }
            GraderReading::PassedWith => "passed with the item (no without-arm result)",
            GraderReading::FailedWith => "failed with the item (no without-arm result)",
            GraderReading::TellsApart => "tells the arms apart (passes more with the item)",
            GraderReading::PassesBoth => "passes on both arms: it does not measure the item",
            GraderReading::FailsBoth => "fails on both arms",
            GraderReading::BetterWithout => "does better without the item",
            GraderReading::NoDifference => "passes as often without the item",
        }
    }
}

impl GraderEval {
    /// What its passes per arm say.
    pub fn reading(&self) -> GraderReading {
        if self.error {
            return GraderReading::Threw;
        }
        let all_with = self.with.passed == self.with.runs;
        let Some(without) = self.without.filter(|w| w.runs > 0) else {
            return match (self.kind, all_with) {
                (GraderKind::WithOnly, true) => GraderReading::IndicatorHeld,
                (GraderKind::WithOnly, false) => GraderReading::IndicatorFailed,
                (GraderKind::Scored, true) => GraderReading::PassedWith,
                (GraderKind::Scored, false) => GraderReading::FailedWith,
            };
        };
        if self.with.runs == 0 {
            return GraderReading::FailedWith;
        }
        // Compare pass rates exactly: a/b against c/d as a*d against c*b.
        let with = u64::from(self.with.passed) * u64::from(without.runs);
        let wo = u64::from(without.passed) * u64::from(self.with.runs);
        match with.cmp(&wo) {
            std::cmp::Ordering::Greater => GraderReading::TellsApart,
            std::cmp::Ordering::Less => GraderReading::BetterWithout,
            std::cmp::Ordering::Equal if all_with => GraderReading::PassesBoth,
            std::cmp::Ordering::Equal if self.with.passed == 0 => GraderReading::FailsBoth,
            std::cmp::Ordering::Equal => GraderReading::NoDifference,
        }
    }

    /// True when it failed where it should pass ([`GraderReading::is_failure`]).
    pub fn is_failure(&self) -> bool {
        self.reading().is_failure(self)
    }

    /// The arm its kept failure words come from: the with arm when it failed
    /// there (the runs are read with arm first), else the without arm.
    pub fn failure_arm(&self) -> &'static str {
        if self.with.passed < self.with.runs {
            "with the item"
        } else {
            "without the item"
        }
    }

    /// Why it failed, in the platform's words (or [`NO_EXPLANATION`]).
    pub fn why(&self) -> &str {
        self.failure.as_deref().unwrap_or(NO_EXPLANATION)
    }
}

/// `text` cut to [`MAX_EXPLANATION`] characters (the last one `…`), on one line.
pub fn bounded_explanation(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= MAX_EXPLANATION {
        one_line
    } else {
        let cut: String = one_line.chars().take(MAX_EXPLANATION - 1).collect();
        format!("{cut}…")
    }
}

/// A `skill-eval-baseline/1` document: `evals/<item>/baseline.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    /// Always [`BASELINE`].
    pub schema: String,
    /// The item.
    pub item: String,
    /// Best accepted result per model.
    pub best: BTreeMap<String, BestEntry>,
}

impl Baseline {
    /// A new, empty baseline (`"best": {}`).
    pub fn empty(item: &str) -> Self {
        Baseline {
            schema: BASELINE.into(),
            item: item.into(),
            best: BTreeMap::new(),
        }
    }
}

/// The best accepted result for one model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BestEntry {
    /// The `with` score.
    pub score: f64,
    /// The `without` score of that run.
    pub without: f64,
    /// Its trigger rate; absent in entries recorded before trigger rates existed.
    #[serde(default)]
    pub trigger_rate: Option<f64>,
    /// The run id.
    pub run: String,
    /// The run's date.
    pub date: String,
    /// Digest of the suite it was measured on (its cases' names and
    /// contents); absent in entries recorded before the evidence store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite_digest: Option<String>,
    /// Its cases and the digest of each, so a later result can say which
    /// cases were removed, added or changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cases: Option<BTreeMap<String, String>>,
    /// Runs per arm of a case behind the score (the mean over cases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs: Option<f64>,
    /// The score's 95 % interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<crate::stats::Interval>,
    /// How the score was measured: each case's runs and score sum per arm,
    /// and the trigger counts, so the gate's confidence mode can compare a
    /// later result with it as a measured quantity; absent in entries
    /// recorded before bests kept their evidence (they read as exact).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<BestEvidence>,
    /// The confidence level of the gate's mode that accepted it; absent when
    /// the rule alone decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
}

/// The runs behind a best, per case and arm (the run id in [`BestEntry::run`]
/// resolves to the runs themselves in the evidence store).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BestEvidence {
    /// Per case, in suite order.
    pub cases: Vec<CaseArms>,
    /// Trigger results of the with arm, when there were any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<crate::stats::TriggerCount>,
}

/// One case's arms behind a best.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseArms {
    /// The case's name.
    pub name: String,
    /// The with arm.
    pub with: ArmSum,
    /// The without arm.
    pub without: ArmSum,
}

/// An arm's runs and the sum of their scores (passes, for pass/fail runs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ArmSum {
    /// Runs in the arm.
    pub runs: u32,
    /// Sum of their scores, to 4 decimals.
    pub sum: f64,
}

impl ArmSum {
    /// The arm of `runs` runs whose mean, written to 4 decimals, is `mean`.
    /// The sum is within `runs`·5e-5 of `mean·runs`; when a whole number of
    /// passes is that close, it is that number (pass/fail runs sum to one).
    pub fn of(mean: f64, runs: u32) -> ArmSum {
        let n = f64::from(runs);
        let sum = (mean * n).clamp(0.0, n);
        let whole = sum.round();
        ArmSum {
            runs,
            sum: if (sum - whole).abs() <= n * 5e-5 {
                whole
            } else {
                round4(sum)
            },
        }
    }
}

impl BestEvidence {
    /// The evidence of `result`, from its cases' intervals; `None` when a case
    /// has none (a document written before intervals existed).
    pub fn of(result: &SkillEval) -> Option<BestEvidence> {
        let cases = result
            .cases
            .iter()
            .map(|c| {
                let s = c.stats.as_ref()?;
                Some(CaseArms {
                    name: c.name.clone(),
                    with: ArmSum::of(s.with.value, s.runs_with),
                    without: ArmSum::of(s.without.value, s.runs_without),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        (!cases.is_empty()).then(|| BestEvidence {
            cases,
            trigger: result.stats.as_ref().and_then(|s| s.trigger),
        })
    }
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

    /// How the item measured here differs from the item as it is now
    /// (`now`, its digest), in words; `None` when they are the same or the
    /// document does not say what it was measured on.
    pub fn item_change(&self, now: &str) -> Option<String> {
        let measured = self.item_digest.as_deref()?;
        (measured != now).then(|| {
            format!(
                "{} ({}) was measured on another version of `{}` (item digest {measured}; its files now give {now}): evaluate it again",
                self.run, self.date, self.item
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
    if result.item != item {
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
pub fn load_baseline(source: &Utf8Path, item: &str) -> Result<Baseline> {
    crate::config::validate_item_name(item)?;
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
            item: "commit".into(),
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
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_and_their_dates_come_from_the_items_stamp_only() {
        use chrono::TimeZone;
        let started = chrono::Utc
            .with_ymd_and_hms(2026, 12, 2, 9, 43, 37)
            .unwrap();
        let id = run_id("commit", started);
        assert_eq!(id, "eval-commit-20261202T094337Z");
        assert_eq!(run_id_date("commit", &id).as_deref(), Some("2026-12-02"));
        assert_eq!(run_id_date("commit", "eval-other-20261202T094337Z"), None);
        assert_eq!(run_id_date("commit", "eval-commit-x"), None);
        // Minted ids: finer, never equal, sorted by start, still dated.
        let a = new_run_id("commit", started);
        let b = new_run_id("commit", started);
        assert_ne!(a, b);
        assert!(a.starts_with("eval-commit-20261202T094337.000000Z-"), "{a}");
        assert_eq!(run_id_date("commit", &a).as_deref(), Some("2026-12-02"));
        let later = new_run_id("commit", started + chrono::Duration::microseconds(1));
        assert!(later > a && later > b, "{later} sorts after {a}");
        assert_eq!(
            run_id_date("commit", &format!("{}x", &a[..a.len() - 1])),
            None
        );
        let schema = crate::schema::validate_skill_eval(
            &serde_json::to_value(SkillEval {
                run: a,
                ..SkillEval::sample(0.5, 0.5)
            })
            .unwrap(),
            Utf8Path::new("r.json"),
        );
        assert!(schema.is_ok(), "{schema:?}");
    }

    #[test]
    fn sums_of_costs_stay_finite() {
        assert_eq!(sum_usd([0.5, 0.25]), 0.75);
        assert_eq!(sum_usd([1e308, 1e308]), MAX_USD);
        assert_eq!(sum_usd([f64::INFINITY, f64::NAN, -1.0]), MAX_USD);
        assert!(round4(sum_usd([1e308; 4])).is_finite());
    }

    #[test]
    fn item_change_says_when_the_item_is_not_the_one_measured() {
        let doc = SkillEval {
            item_digest: Some("a".repeat(64)),
            ..SkillEval::sample(0.9, 0.5)
        };
        assert_eq!(doc.item_change(&"a".repeat(64)), None);
        let why = doc.item_change(&"b".repeat(64)).unwrap();
        assert!(why.contains("another version of `commit`"), "{why}");
        assert_eq!(SkillEval::sample(0.9, 0.5).item_change("b"), None);
    }

    #[test]
    fn verdict_follows_sign() {
        assert_eq!(Verdict::of(0.1), Verdict::Improved);
        assert_eq!(Verdict::of(0.0), Verdict::NoSignal);
        assert_eq!(Verdict::of(-0.0001), Verdict::Regressed);
    }

    #[test]
    fn round4_rounds_and_normalises_negative_zero() {
        assert_eq!(round4(2.0 / 3.0), 0.6667);
        assert_eq!(round4(0.83335), 0.8334);
        assert!(round4(-0.00001).is_sign_positive());
    }

    #[test]
    fn load_baseline_takes_a_name_not_a_path() {
        let dir = tempfile::tempdir().unwrap();
        let source = Utf8Path::from_path(dir.path()).unwrap().join("source");
        std::fs::create_dir_all(source.join("evals")).unwrap();
        for item in ["../outside", "a/b", ""] {
            let err = load_baseline(&source, item).unwrap_err();
            assert!(
                matches!(err, Error::InvalidItemName { .. }),
                "{item}: {err:?}"
            );
        }
        assert!(load_baseline(&source, "commit").unwrap().best.is_empty());
    }

    #[test]
    fn fmt_score_keeps_two_to_four_decimals() {
        assert_eq!(fmt_score(0.83), "0.83");
        assert_eq!(fmt_score(1.0), "1.00");
        assert_eq!(fmt_score(0.0), "0.00");
        assert_eq!(fmt_score(0.5), "0.50");
        assert_eq!(fmt_score(2.0 / 3.0), "0.6667");
        assert_eq!(fmt_score(0.125), "0.125");
    }

    #[test]
    fn a_result_dated_on_no_calendar_day_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = Utf8Path::from_path(dir.path()).unwrap().join("r.json");
        for (date, ok) in [
            ("2026-02-28", true),
            ("2026-02-30", false),
            ("2026-13-01", false),
        ] {
            let doc = SkillEval {
                date: date.into(),
                ..SkillEval::sample(0.9, 0.5)
            };
            std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();
            let loaded = load_result(&path, "commit");
            assert_eq!(loaded.is_ok(), ok, "{date}: {loaded:?}");
        }
    }
}
