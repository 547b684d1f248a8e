//! Decisions that state their uncertainty, and adaptive runs that buy
//! certainty cheaply.
//!
//! A pure library: it takes run scores and returns numbers, never prints and
//! never touches the platform. Every result is a deterministic function of
//! its input (closed forms and deterministic searches: no resampling, no
//! random numbers).
//!
//! - [`interval`]: Wilson intervals for one arm's mean score, score intervals
//!   for a case's delta and the suite's means and delta;
//! - [`advisory`]: *clear* or *within noise*, with the runs that would settle it;
//! - [`confidence`]: the gate's confidence mode (one-sided checks, two-sample
//!   against a best that kept its runs);
//! - [`adaptive`]: `--runs auto`, a group-sequential driver over a [`RunSource`];
//! - [`calibration`]: an llm grader's record against human labels, and
//!   scores corrected for its errors (Rogan–Gladen);
//! - [`efficiency`]: cost, turns and duration per run: t-intervals on
//!   each arm's mean and log-ratio intervals on with/without;
//! - [`runs`]: the `--runs` value;
//! - [`sequence`]: the level each recorded decision of an item is held to so
//!   that errors stay under the mode's α over the item's whole sequence.
//!
//! `docs/statistics.md` explains the methods and the measured error rates.

pub mod adaptive;
pub mod advisory;
pub mod calibration;
pub mod confidence;
pub mod efficiency;
pub mod interval;
mod memo;
pub mod runs;
pub mod sequence;
pub mod simulate;
pub mod spending;

pub use adaptive::{
    Against, AutoError, AutoOutcome, AutoPolicy, CaseRuns, PLANNED_CAP, Round, RoundLog,
    RunRequest, RunSource, Spending, Stop, TOP_UP, adaptive, adaptive_against, adaptive_from,
    fixed,
};
pub use advisory::{
    Advisory, Direction, GateAdvice, TriggerCount, advise, advise_two_sample, gate_advice,
};
pub use interval::{
    CONFIDENCE, Estimate, Interval, Method, Part, case_delta, delta_interval, mean_interval,
    score_interval, wilson, wilson_at,
};
pub use runs::{RunsSpec, RunsSpecError};

use serde::{Deserialize, Serialize};

/// The smallest change in a suite's score worth detecting, when the user
/// names none (`--min-effect`): decisions are planned to call an effect this
/// size 80 % of the time (`docs/statistics.md`).
pub const DEFAULT_MIN_EFFECT: f64 = 0.2;

/// A minimum effect as written (`0.2`): a number from 0.01 to 1.
pub fn parse_min_effect(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number (e.g. 0.2)"))?;
    check_min_effect(value)
}

/// A minimum effect is a change in a score in [0, 1]: from 0.01 to 1.
pub fn check_min_effect(value: f64) -> Result<f64, String> {
    if (0.01..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!(
            "{value} is not a minimum effect: a change in the suite's score from 0.01 to 1 (e.g. 0.2)"
        ))
    }
}

/// One case's numbers: each arm's mean score, the delta, each with its
/// interval, and the advisory on the delta.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseStats {
    /// Index of the case in the suite.
    pub case: usize,
    /// Runs in the with arm.
    pub runs_with: u32,
    /// Runs in the without arm.
    pub runs_without: u32,
    /// Mean with-arm score (Wilson interval).
    pub with: Estimate,
    /// Mean without-arm score (Wilson interval).
    pub without: Estimate,
    /// `with - without` (score interval).
    pub delta: Estimate,
    /// Is the case's delta clear of 0?
    pub advisory: Advisory,
}

/// The suite's numbers: means over cases of the case means (as the reducer
/// computes `with` and `without`), each with a score interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteStats {
    /// Mean over cases of the with-arm means.
    pub with: Estimate,
    /// Mean over cases of the without-arm means.
    pub without: Estimate,
    /// `with - without`.
    pub delta: Estimate,
    /// Is the suite's delta clear of 0? (The gate's `helps` condition.)
    pub advisory: Advisory,
    /// Mean runs per arm of a case: what [`advisory::runs_needed`] scales.
    pub runs_per_arm: f64,
}

/// Every case and the suite, at one confidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The confidence of every interval in it.
    pub confidence: f64,
    /// Per case, in suite order.
    pub cases: Vec<CaseStats>,
    /// The suite.
    pub suite: SuiteStats,
}

impl CaseStats {
    /// The same, every number to 4 decimals (as documents are written).
    pub fn rounded(self) -> CaseStats {
        CaseStats {
            with: self.with.rounded(),
            without: self.without.rounded(),
            delta: self.delta.rounded(),
            advisory: self.advisory.rounded(),
            ..self
        }
    }
}

impl SuiteStats {
    /// The same, every number to 4 decimals (as documents are written).
    pub fn rounded(self) -> SuiteStats {
        SuiteStats {
            with: self.with.rounded(),
            without: self.without.rounded(),
            delta: self.delta.rounded(),
            advisory: self.advisory.rounded(),
            ..self
        }
    }
}

/// Intervals and advisories for every case and the suite at `confidence`
/// (use [`CONFIDENCE`], 95 %, for a fixed number of runs). A case whose arm
/// has no run gets the whole range for that arm: nothing is known of it.
pub fn compare(cases: &[CaseRuns], confidence: f64) -> Comparison {
    compare_with_parts(cases, confidence).0
}

/// [`compare`], also returning the parts of the suite's delta (with₀,
/// without₀, with₁, …) for the driver's planning.
pub(crate) fn compare_with_parts(cases: &[CaseRuns], confidence: f64) -> (Comparison, Vec<Part>) {
    let k = cases.len().max(1) as f64;
    let mut stats = Vec::with_capacity(cases.len());
    let (mut with_parts, mut without_parts, mut delta_parts) = (vec![], vec![], vec![]);
    for c in cases {
        let delta = case_delta(&c.with, &c.without, confidence);
        let runs = (c.with.len() + c.without.len()) as f64 / 2.0;
        stats.push(CaseStats {
            case: c.case,
            runs_with: count(c.with.len()),
            runs_without: count(c.without.len()),
            with: mean_interval(&c.with, confidence),
            without: mean_interval(&c.without, confidence),
            delta,
            advisory: advise(&delta, 0.0, runs),
        });
        with_parts.push(Part::of(1.0 / k, &c.with));
        without_parts.push(Part::of(1.0 / k, &c.without));
        delta_parts.push(Part::of(1.0 / k, &c.with));
        delta_parts.push(Part::of(-1.0 / k, &c.without));
    }
    let runs_per_arm = if cases.is_empty() {
        0.0
    } else {
        cases
            .iter()
            .map(|c| (c.with.len() + c.without.len()) as f64 / 2.0)
            .sum::<f64>()
            / k
    };
    let delta = delta_interval(&delta_parts, confidence);
    let suite = SuiteStats {
        with: score_interval(&with_parts, confidence),
        without: score_interval(&without_parts, confidence),
        delta,
        advisory: advise(&delta, 0.0, runs_per_arm),
        runs_per_arm,
    };
    (
        Comparison {
            confidence,
            cases: stats,
            suite,
        },
        delta_parts,
    )
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(i: usize, with: &[f64], without: &[f64]) -> CaseRuns {
        CaseRuns {
            case: i,
            with: with.to_vec(),
            without: without.to_vec(),
            cost_usd: 0.0,
            trigger: Default::default(),
        }
    }

    #[test]
    fn suite_numbers_are_means_of_case_means() {
        let cases = [
            case(0, &[1.0, 1.0, 0.0], &[0.0, 0.0, 0.0]),
            case(1, &[1.0], &[1.0]),
        ];
        let c = compare(&cases, CONFIDENCE);
        assert!((c.suite.with.value - (2.0 / 3.0 + 1.0) / 2.0).abs() < 1e-12);
        assert!((c.suite.without.value - 0.5).abs() < 1e-12);
        assert!((c.suite.delta.value - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(c.suite.runs_per_arm, 2.0);
        assert_eq!((c.cases[0].runs_with, c.cases[1].runs_without), (3, 1));
        assert_eq!(c.suite.delta.interval.method, Method::Score);
        for e in [c.suite.with, c.suite.without, c.suite.delta] {
            assert!(e.interval.contains(e.value));
            assert_eq!(e.interval.confidence, CONFIDENCE);
        }
    }

    #[test]
    fn one_case_suite_equals_the_case() {
        // 3 of 3 against 0 of 3 too: clear for the case (Mee's), so for the
        // suite (the randomisation test is for sums over cases).
        for (with, without) in [
            (&[1.0, 1.0, 0.0, 1.0][..], &[0.0, 1.0, 0.0, 0.0][..]),
            (&[1.0; 3][..], &[0.0; 3][..]),
        ] {
            let c = compare(&[case(0, with, without)], CONFIDENCE);
            let (s, k) = (c.suite.delta.interval, c.cases[0].delta.interval);
            assert_eq!(k.method, Method::Score);
            assert!((s.low - k.low).abs() < 1e-12 && (s.high - k.high).abs() < 1e-12);
            assert_eq!(c.suite.advisory.is_clear(), c.cases[0].advisory.is_clear());
        }
        let c = compare(&[case(0, &[1.0; 3], &[0.0; 3])], CONFIDENCE);
        assert!(c.suite.advisory.is_clear());
    }

    #[test]
    fn two_of_three_moves_delta_by_a_third_within_noise() {
        // The example: an llm-graded case passing 2 of 3 in both arms
        // against 3 of 3: delta 0.33, nowhere near clear.
        let c = compare(&[case(0, &[1.0, 1.0, 1.0], &[1.0, 1.0, 0.0])], CONFIDENCE);
        assert!((c.suite.delta.value - 1.0 / 3.0).abs() < 1e-12);
        assert!(!c.suite.advisory.is_clear());
    }

    #[test]
    fn the_suite_delta_needs_the_randomisation_test_too() {
        // Eight cases at 3 runs drawn from coin flips: the score interval
        // alone leaves 0 out; the suite's delta does not, its cases do not.
        let arm = |x: usize| interval::testing::arm(x, 3);
        let cases: Vec<CaseRuns> = interval::COIN_FLIPS_CALLED
            .iter()
            .enumerate()
            .map(|(i, &(w, o))| case(i, &arm(w), &arm(o)))
            .collect();
        let c = compare(&cases, CONFIDENCE);
        assert!((c.suite.delta.value - 7.0 / 24.0).abs() < 1e-12);
        assert!(!c.suite.advisory.is_clear(), "{:?}", c.suite.delta);
        assert!(c.suite.delta.interval.low < 0.0);
        let parts: Vec<Part> = cases
            .iter()
            .flat_map(|c| [Part::of(0.125, &c.with), Part::of(-0.125, &c.without)])
            .collect();
        assert!(score_interval(&parts, CONFIDENCE).interval.low > 0.0);
    }

    #[test]
    fn deterministic() {
        let cases = [
            case(0, &[0.5, 0.25, 1.0], &[0.0, 0.75, 0.5]),
            case(1, &[1.0, 1.0], &[0.0, 1.0]),
        ];
        let a = serde_json::to_string(&compare(&cases, CONFIDENCE)).unwrap();
        let b = serde_json::to_string(&compare(&cases, CONFIDENCE)).unwrap();
        assert_eq!(a, b);
    }
}
