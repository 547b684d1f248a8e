//! The documents bob-eval writes and reads: `skill-eval/1` (one eval) and
//! `skill-eval-baseline/1` (the best per model). Serde types; their schemas are
//! in `schemas/` and checked by [`crate::schema`].

use serde::{Deserialize, Serialize};
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
    /// `eval-<item>-<UTC stamp>`.
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
    /// Cost of the case's runs in both arms.
    pub cost_usd: f64,
    /// Runs in both arms.
    pub runs: u32,
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
}

/// Round to the 4 decimals every document is written with.
pub fn round4(x: f64) -> f64 {
    let r = (x * 10_000.0).round() / 10_000.0;
    if r == 0.0 { 0.0 } else { r }
}

#[cfg(test)]
impl SkillEval {
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
            cost_usd: 0.41,
            max_cost_usd: 2.0,
            partial: false,
            partial_reason: None,
            cases: vec![],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
