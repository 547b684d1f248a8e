//! A judge's record against human labels, and scores corrected for its
//! errors (issue 38).
//!
//! - [`record`]: from labels (the person's verdict, the judge's verdict on
//!   the same run) the judge's TPR = P(judge pass | truly pass) and TNR =
//!   P(judge fail | truly fail), each with a **Wilson** interval, Cohen's κ,
//!   the counts, and a verdict: *calibrated* when both lower bounds reach a
//!   threshold (default 0.80 at 95 %, the practice of certifying a judge
//!   only then);
//! - [`correct`]: the **Rogan–Gladen** corrected pass rate
//!   p = (q + TNR − 1)/(TPR + TNR − 1) of each labelled llm grader, combined
//!   into each arm's score and the delta the way the platform and the
//!   reducer combine scores (a run's score is the weighted share of its
//!   scored graders that passed; a case's arm the mean over its runs; the
//!   suite's arm the mean over its cases), with a **delta-method** interval
//!   that carries both the run noise and the label uncertainty.
//!
//! Pure: closed forms, no random numbers. `docs/statistics.md` ("Judge
//! calibration") states the method and its measured coverage.

use super::interval::{wilson_at, z_for};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The lower bound both TPR and TNR must reach for a judge to be called
/// calibrated, unless a setting says otherwise.
pub const DEFAULT_THRESHOLD: f64 = 0.80;

/// One label: the person's verdict (the truth) and the judge's verdict on
/// the same run for the same grader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    /// The person said PASS.
    pub human: bool,
    /// The judge said PASS.
    pub judge: bool,
}

/// A rate with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    /// The observed share.
    pub value: f64,
    /// Lower limit (Wilson).
    pub low: f64,
    /// Upper limit (Wilson).
    pub high: f64,
}

/// A judge's record against the labels that count (current criterion).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Labels that count.
    pub labels: u32,
    /// Labels given for an earlier criterion: not counted.
    #[serde(default)]
    pub stale: u32,
    /// Labels of the current criterion given under another judge model
    /// than the run's: not counted. Absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub other_models: u32,
    /// Of the labels that count, those that name no judge model (given
    /// before labels kept it): counted for any judge model. Absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unmodelled: u32,
    /// Truly passing runs the judge passed.
    pub true_pass: u32,
    /// Truly passing runs the judge failed.
    pub false_fail: u32,
    /// Truly failing runs the judge failed.
    pub true_fail: u32,
    /// Truly failing runs the judge passed.
    pub false_pass: u32,
    /// P(judge pass | truly pass), absent with no truly passing label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpr: Option<Rate>,
    /// P(judge fail | truly fail), absent with no truly failing label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tnr: Option<Rate>,
    /// Cohen's κ between judge and person; absent when undefined (one
    /// verdict only on both sides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kappa: Option<f64>,
    /// The confidence of the intervals.
    pub confidence: f64,
    /// The lower bound both rates must reach.
    pub threshold: f64,
    /// Both lower bounds reach the threshold.
    pub calibrated: bool,
    /// Present when the labels were weighted back to the runs they were
    /// drawn from ([`record_weighted`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weighted: Option<Weighted>,
}

/// The judge's record from `pairs` at `confidence`, calibrated when both
/// Wilson lower bounds reach `threshold`.
pub fn record(pairs: &[Pair], confidence: f64, threshold: f64) -> Record {
    record_weighted(pairs, None, confidence, threshold)
}

/// [`record`] with each label weighted (`weights[i]` for `pairs[i]`): the
/// labels were drawn unevenly from the runs (stratified by arm × the
/// judge's verdict), and a label of a stratum stands for the stratum's runs
/// over its labels. TPR and TNR are weighted shares; their intervals and
/// variances take Kish's effective number of labels, (Σw)²/Σw². The counts
/// and κ stay those of the labels as given.
pub fn record_weighted(
    pairs: &[Pair],
    weights: Option<&[f64]>,
    confidence: f64,
    threshold: f64,
) -> Record {
    let count = |h: bool, j: bool| count(pairs.iter().filter(|p| p.human == h && p.judge == j));
    let (tp, ff, tn, fp) = (
        count(true, true),
        count(true, false),
        count(false, false),
        count(false, true),
    );
    let weight = |i: usize| weights.map_or(1.0, |w| w[i]);
    // Weighted agreement and effective labels among the truly `human` ones.
    let side = |human: bool| {
        let (mut agree, mut sum, mut squares) = (0.0, 0.0, 0.0);
        for (i, p) in pairs.iter().enumerate().filter(|(_, p)| p.human == human) {
            let w = weight(i);
            sum += w;
            squares += w * w;
            if p.judge == human {
                agree += w;
            }
        }
        (sum > 0.0).then(|| (agree / sum, sum * sum / squares))
    };
    let z = z_for(confidence);
    let rate = |side: Option<(f64, f64)>| {
        side.map(|(value, n)| {
            let (low, high) = wilson_limits(value, n, z);
            Rate { value, low, high }
        })
    };
    let (pass_side, fail_side) = (side(true), side(false));
    let (tpr, tnr) = (rate(pass_side), rate(fail_side));
    let calibrated =
        matches!((tpr, tnr), (Some(a), Some(b)) if a.low >= threshold && b.low >= threshold);
    Record {
        labels: count_len(pairs.len()),
        stale: 0,
        other_models: 0,
        unmodelled: 0,
        true_pass: tp,
        false_fail: ff,
        true_fail: tn,
        false_pass: fp,
        tpr,
        tnr,
        kappa: kappa(tp, ff, tn, fp),
        confidence,
        threshold,
        calibrated,
        weighted: weights.map(|_| Weighted {
            pass_labels: pass_side.map_or(0.0, |s| s.1),
            fail_labels: fail_side.map_or(0.0, |s| s.1),
        }),
    }
}

/// Wilson limits for a share `p` of `n` (possibly fractional, an effective
/// number of labels) at critical value `z`; exact at 0 and 1.
fn wilson_limits(p: f64, n: f64, z: f64) -> (f64, f64) {
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let low = if p <= 0.0 {
        0.0
    } else {
        (centre - half).clamp(0.0, p)
    };
    let high = if p >= 1.0 {
        1.0
    } else {
        (centre + half).clamp(p, 1.0)
    };
    (low, high)
}

/// How a weighted record counted its labels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Weighted {
    /// Effective number of truly passing labels (Kish).
    pub pass_labels: f64,
    /// Effective number of truly failing labels (Kish).
    pub fail_labels: f64,
}

impl Record {
    /// The same record held to another `threshold` (a setting).
    pub fn at_threshold(self, threshold: f64) -> Record {
        let calibrated = matches!((self.tpr, self.tnr), (Some(a), Some(b)) if a.low >= threshold && b.low >= threshold);
        Record {
            threshold,
            calibrated,
            ..self
        }
    }
}

/// For serde: a zero count is left out.
fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn count<T>(it: impl Iterator<Item = T>) -> u32 {
    count_len(it.count())
}

fn count_len(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Cohen's κ = (pₒ − pₑ)/(1 − pₑ); `None` when pₑ = 1 (or no label).
fn kappa(tp: u32, ff: u32, tn: u32, fp: u32) -> Option<f64> {
    let n = f64::from(tp + ff + tn + fp);
    if n == 0.0 {
        return None;
    }
    let observed = f64::from(tp + tn) / n;
    let human_pass = f64::from(tp + ff) / n;
    let judge_pass = f64::from(tp + fp) / n;
    let expected = human_pass * judge_pass + (1.0 - human_pass) * (1.0 - judge_pass);
    (expected < 1.0 - 1e-12).then(|| (observed - expected) / (1.0 - expected))
}

/// The most labels of one kind [`labels_needed_from`] looks at.
pub const MAX_LABELS: u32 = 100_000;

/// How many labels of one kind (truly passing, or truly failing) a rate
/// observed at `rate` needs for its Wilson lower bound to reach `threshold`
/// at `confidence`, counted from none ([`labels_needed_from`] at `rate`);
/// `None` when no number can (the rate is at or under it). At a perfect
/// judge, 0.80 at 95 % needs 16.
pub fn labels_needed(rate: f64, threshold: f64, confidence: f64) -> Option<u32> {
    search(rate, 0, 1, threshold, confidence)
}

/// The one "labels needed" search: how many labels of one kind a judge needs
/// **in all**, starting from the `given` labels of that kind on `agreed` of
/// which it agreed with the person. `given` when their Wilson lower bound at
/// `confidence` reaches `threshold` already; else the smallest total `m ≥
/// given` (at least 1) at which it would if the judge kept agreeing at
/// `agreed / given` (at 1 with no labels yet: the fewest a perfect judge
/// needs), with at least the `agreed` it has; `None` when no number up to
/// [`MAX_LABELS`] can (the rate is at or under the threshold).
pub fn labels_needed_from(agreed: u32, given: u32, threshold: f64, confidence: f64) -> Option<u32> {
    let agreed = agreed.min(given);
    if given > 0 && wilson_at(agreed, given, confidence).low >= threshold {
        return Some(given);
    }
    let rate = if given == 0 {
        1.0
    } else {
        f64::from(agreed) / f64::from(given)
    };
    search(rate, agreed, given.max(1), threshold, confidence)
}

/// The smallest `m` in `from..=MAX_LABELS` whose lower bound with
/// `max(⌊rate·m⌋, agreed)` agreeing reaches `threshold`; `None` when the
/// rate is at or under it (no number can: the bound is under the rate).
fn search(rate: f64, agreed: u32, from: u32, threshold: f64, confidence: f64) -> Option<u32> {
    if rate <= threshold {
        return None;
    }
    (from..=MAX_LABELS).find(|&m| {
        let k = ((rate * f64::from(m)).floor() as u32).max(agreed).min(m);
        wilson_at(k, m, confidence).low >= threshold
    })
}

/// Why a grader's pass rate cannot be corrected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Uncorrectable {
    /// No label says a run truly passed: TPR is unknown.
    NoPassLabel,
    /// No label says a run truly failed: TNR is unknown.
    NoFailLabel,
    /// TPR + TNR ≤ 1: the judge does no better than a coin, and the
    /// correction divides by TPR + TNR − 1.
    NoBetterThanChance,
}

impl std::fmt::Display for Uncorrectable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Uncorrectable::NoPassLabel => "no label says a run truly passed, so TPR is unknown",
            Uncorrectable::NoFailLabel => "no label says a run truly failed, so TNR is unknown",
            Uncorrectable::NoBetterThanChance => {
                "TPR + TNR ≤ 1: the judge does no better than chance, and the correction is undefined"
            }
        })
    }
}

/// A judge's rates as the correction uses them: point values and their
/// variances (Agresti–Coull: z²/2 pseudo-labels added on each side, so a
/// judge that agreed on every label still carries uncertainty).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judge {
    /// TPR.
    pub tpr: f64,
    /// TNR.
    pub tnr: f64,
    /// Variance of the TPR estimate.
    pub var_tpr: f64,
    /// Variance of the TNR estimate.
    pub var_tnr: f64,
}

impl Judge {
    /// The judge of `record` at `confidence`, or why it cannot correct.
    pub fn of(record: &Record, confidence: f64) -> Result<Judge, Uncorrectable> {
        let z2 = z_for(confidence).powi(2);
        // Agresti–Coull: z²/2 pseudo-labels on each side.
        let var = |p: f64, n: f64| {
            let n_adj = n + z2;
            let p = (p * n + z2 / 2.0) / n_adj;
            p * (1.0 - p) / n_adj
        };
        let (Some(tpr), Some(tnr)) = (record.tpr, record.tnr) else {
            return Err(if record.tpr.is_none() {
                Uncorrectable::NoPassLabel
            } else {
                Uncorrectable::NoFailLabel
            });
        };
        let (n_pass, n_fail) = match record.weighted {
            Some(w) => (w.pass_labels, w.fail_labels),
            None => (
                f64::from(record.true_pass + record.false_fail),
                f64::from(record.true_fail + record.false_pass),
            ),
        };
        let judge = Judge {
            tpr: tpr.value,
            tnr: tnr.value,
            var_tpr: var(tpr.value, n_pass),
            var_tnr: var(tnr.value, n_fail),
        };
        if judge.youden() <= 0.0 {
            return Err(Uncorrectable::NoBetterThanChance);
        }
        Ok(judge)
    }

    /// TPR + TNR − 1 (Youden's J): the divisor of the correction.
    pub fn youden(&self) -> f64 {
        self.tpr + self.tnr - 1.0
    }

    /// The Rogan–Gladen true pass rate for an observed judge pass rate `q`
    /// (unclamped).
    pub fn correct(&self, q: f64) -> f64 {
        (q + self.tnr - 1.0) / self.youden()
    }
}

/// One scored grader's result in one run.
#[derive(Debug, Clone, PartialEq)]
pub struct GraderResult {
    /// The grader's name (the key of [`GradedCase::judges`]).
    pub name: String,
    /// Its weight in the run's score.
    pub weight: f64,
    /// The judge (or check) passed it.
    pub passed: bool,
}

/// One case's runs per arm (each run its scored graders) and the judges of
/// its labelled llm graders.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GradedCase {
    /// The case's name.
    pub name: String,
    /// With-arm runs.
    pub with: Vec<Vec<GraderResult>>,
    /// Without-arm runs.
    pub without: Vec<Vec<GraderResult>>,
    /// The labelled graders' judges, by grader name; other graders stay as
    /// they are.
    pub judges: BTreeMap<String, Judge>,
}

/// A corrected value with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Corrected {
    /// The corrected value (clamped into its range).
    pub value: f64,
    /// Lower limit.
    pub low: f64,
    /// Upper limit.
    pub high: f64,
    /// Its standard error (delta method): what a one-sided bound at
    /// another level reads.
    pub se: f64,
    /// The correction fell outside the range and was clamped into it (the
    /// labels and the runs disagree: more of either settles it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clamped: bool,
}

impl CorrectedScores {
    /// The same, every number to 4 decimals (as documents are written).
    pub fn rounded(self) -> CorrectedScores {
        CorrectedScores {
            with: self.with.rounded(),
            without: self.without.rounded(),
            delta: self.delta.rounded(),
            cases: self
                .cases
                .into_iter()
                .map(|c| CaseCorrected {
                    with: c.with.rounded(),
                    without: c.without.rounded(),
                    delta: c.delta.rounded(),
                    ..c
                })
                .collect(),
            ..self
        }
    }
}

impl Corrected {
    /// The same, to 4 decimals (as documents are written).
    pub fn rounded(self) -> Corrected {
        let r = |x: f64| {
            let r = (x * 10_000.0).round() / 10_000.0;
            if r == 0.0 { 0.0 } else { r }
        };
        Corrected {
            value: r(self.value),
            low: r(self.low),
            high: r(self.high),
            se: r(self.se),
            ..self
        }
    }
}

/// Corrected arm scores and delta, per case and for the suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorrectedScores {
    /// The suite's with arm (mean over cases).
    pub with: Corrected,
    /// The suite's without arm (mean over the cases that have one).
    pub without: Corrected,
    /// `with − without`.
    pub delta: Corrected,
    /// Per case with both arms, in order.
    pub cases: Vec<CaseCorrected>,
    /// The confidence of the intervals.
    pub confidence: f64,
}

/// One case's corrected numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseCorrected {
    /// The case's name.
    pub name: String,
    /// With arm.
    pub with: Corrected,
    /// Without arm.
    pub without: Corrected,
    /// `with − without`.
    pub delta: Corrected,
}

/// A linear form in the labelled judges' rates: its value, its run-noise
/// variance, and its gradient in each (case, grader)'s TPR and TNR.
#[derive(Debug, Clone, Default)]
struct Linear {
    value: f64,
    var_runs: f64,
    grad: BTreeMap<(usize, String), (f64, f64)>,
}

impl Linear {
    /// `self + k·other`.
    fn add(&mut self, k: f64, other: &Linear) {
        self.value += k * other.value;
        self.var_runs += k * k * other.var_runs;
        for (key, (a, b)) in &other.grad {
            let e = self.grad.entry(key.clone()).or_default();
            e.0 += k * a;
            e.1 += k * b;
        }
    }

    /// The estimate with its normal interval, value and limits clamped into `range`.
    fn estimate(
        &self,
        judges: &[&BTreeMap<String, Judge>],
        z: f64,
        range: (f64, f64),
    ) -> Corrected {
        let var_labels: f64 = self
            .grad
            .iter()
            .map(|((case, name), (a, b))| {
                let j = &judges[*case][name];
                a * a * j.var_tpr + b * b * j.var_tnr
            })
            .sum();
        let se = (self.var_runs + var_labels).sqrt();
        let half = z * se;
        let value = self.value.clamp(range.0, range.1);
        Corrected {
            value,
            se,
            low: (self.value - half).clamp(range.0, range.1),
            high: (self.value + half).clamp(range.0, range.1),
            clamped: value != self.value,
        }
    }
}

/// One arm of one case: the mean over runs of each run's corrected score
/// (linear in each grader's pass, so its mean is the score of the corrected
/// rates). Run noise: the variance of the runs' corrected scores with z²/2
/// pseudo-runs at the all-fail and at the all-pass score (Agresti–Coull's
/// adjustment, so 3 of 3 still carries noise), over n + z².
fn arm(
    case: usize,
    runs: &[Vec<GraderResult>],
    judges: &BTreeMap<String, Judge>,
    z2: f64,
) -> Option<Linear> {
    if runs.is_empty() {
        return None;
    }
    let n = runs.len() as f64;
    let mut out = Linear::default();
    let (mut scores, mut lo, mut hi) = (Vec::with_capacity(runs.len()), 0.0, 0.0);
    for run in runs {
        let total: f64 = run.iter().map(|g| g.weight).sum();
        let mut score = 0.0;
        for g in run.iter().filter(|_| total > 0.0) {
            let w = g.weight / total;
            let x = f64::from(u8::from(g.passed));
            match judges.get(&g.name) {
                Some(j) => {
                    let corrected = j.correct(x);
                    score += w * corrected;
                    lo += w * j.correct(0.0) / n;
                    hi += w * j.correct(1.0) / n;
                    let e = out.grad.entry((case, g.name.clone())).or_default();
                    e.0 += w * (-corrected / j.youden()) / n;
                    e.1 += w * ((1.0 - corrected) / j.youden()) / n;
                }
                None => {
                    score += w * x;
                    hi += w / n;
                }
            }
        }
        scores.push(score);
    }
    out.value = scores.iter().sum::<f64>() / n;
    let weight = n + z2;
    let centre = (scores.iter().sum::<f64>() + z2 / 2.0 * (lo + hi)) / weight;
    let spread = scores.iter().map(|s| (s - centre).powi(2)).sum::<f64>()
        + z2 / 2.0 * ((lo - centre).powi(2) + (hi - centre).powi(2));
    out.var_runs = spread / weight / weight;
    Some(out)
}

/// Corrected scores of `cases` at `confidence`: with is the mean over cases
/// of their with arm, without the mean over the cases that have one (as the
/// reducer computes them); `None` when no case has a with-arm run.
pub fn correct(cases: &[GradedCase], confidence: f64) -> Option<CorrectedScores> {
    let z = z_for(confidence);
    let z2 = z * z;
    let judges: Vec<&BTreeMap<String, Judge>> = cases.iter().map(|c| &c.judges).collect();
    let arms: Vec<(Option<Linear>, Option<Linear>)> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| {
            (
                arm(i, &c.with, &c.judges, z2),
                arm(i, &c.without, &c.judges, z2),
            )
        })
        .collect();
    let k_with = arms.iter().filter(|a| a.0.is_some()).count();
    if k_with == 0 {
        return None;
    }
    let k_without = arms.iter().filter(|a| a.1.is_some()).count();
    let (mut with, mut without) = (Linear::default(), Linear::default());
    let mut per_case = Vec::with_capacity(cases.len());
    for (case, (w, o)) in cases.iter().zip(&arms) {
        if let Some(w) = w {
            with.add(1.0 / k_with as f64, w);
        }
        if let Some(o) = o {
            without.add(1.0 / k_without as f64, o);
        }
        if let (Some(w), Some(o)) = (w, o) {
            let mut d = w.clone();
            d.add(-1.0, o);
            per_case.push(CaseCorrected {
                name: case.name.clone(),
                with: w.estimate(&judges, z, (0.0, 1.0)),
                without: o.estimate(&judges, z, (0.0, 1.0)),
                delta: d.estimate(&judges, z, (-1.0, 1.0)),
            });
        }
    }
    let mut delta = with.clone();
    if k_without > 0 {
        delta.add(-1.0, &without);
    } else {
        delta = Linear::default();
    }
    Some(CorrectedScores {
        with: with.estimate(&judges, z, (0.0, 1.0)),
        without: if k_without > 0 {
            without.estimate(&judges, z, (0.0, 1.0))
        } else {
            with.estimate(&judges, z, (0.0, 1.0))
        },
        delta: delta.estimate(&judges, z, (-1.0, 1.0)),
        cases: per_case,
        confidence,
    })
}

#[cfg(test)]
#[path = "calibration_tests.rs"]
pub(crate) mod tests;
