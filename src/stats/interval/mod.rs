//! Confidence intervals for small samples of run scores in `[0, 1]`.
//!
//! All closed form or a deterministic search, so every interval is a pure
//! function of the scores (no resampling, no random numbers):
//!
//! - one arm of one case: the **Wilson score interval** on the mean score
//!   ([`wilson`], [`mean_interval`]);
//! - a weighted sum of independent arms (a case's delta, the suite's `with`,
//!   `without` and `delta`): the **score interval** for Σ cᵢ·μᵢ, with the
//!   variance taken at the constrained maximum-likelihood means and a
//!   continuity correction ([`score_interval`]). For one arm without the
//!   correction it is exactly Wilson; for a difference it is Mee's interval.
//!   At 0/n, n/n and n = 1 it behaves (a bootstrap collapses to a point there,
//!   and Wald's variance is 0);
//! - a delta over two cases or more (the suite's): that score interval,
//!   called clear of 0 only when the randomisation test of "the item changed
//!   nothing" agrees ([`delta_interval`]): with many arms the score test
//!   alone does not hold its level at few runs.
//!
//! Fractional scores are treated as pass shares: a score in `[0, 1]` with
//! mean μ has a variance of at most μ(1 − μ), the variance of a pass/fail run
//! with the same mean, so the same formulas on the score sum err wide.
//!
//! The suite's numbers are means over its cases, so the suite intervals treat
//! the cases as fixed and the runs as the noise: the question answered is
//! "would more runs of these cases change the call", not "would other cases".

mod normal;
mod randomisation;
mod score;
mod wilson;

pub use normal::{normal_cdf, normal_quantile, z_for};
#[cfg(test)]
pub(crate) use randomisation::COIN_FLIPS_CALLED;
pub use randomisation::delta_interval;
pub(crate) use randomisation::{delta_interval_scaled, delta_variances};
pub use score::{Part, case_delta, score_interval, variance_at};
pub(crate) use score::{continuity, score_interval_scaled};
pub use wilson::{mean_interval, wilson, wilson_at};

use serde::{Deserialize, Serialize};

/// The confidence the intervals carry unless told otherwise.
pub const CONFIDENCE: f64 = 0.95;

/// How an interval was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Wilson score interval on one arm's mean score.
    Wilson,
    /// Continuity-corrected score interval for a weighted sum of arms' means
    /// (a case's delta; the suite's means and delta): [`score_interval`].
    Score,
}

/// A two-sided confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Lower limit.
    pub low: f64,
    /// Upper limit.
    pub high: f64,
    /// Its confidence, e.g. 0.95 (higher under `--runs auto`, see
    /// [`crate::stats::adaptive`]).
    pub confidence: f64,
    /// How it was computed.
    pub method: Method,
}

/// `x` to 4 decimals, as documents write numbers.
fn r4(x: f64) -> f64 {
    let r = (x * 10_000.0).round() / 10_000.0;
    if r == 0.0 { 0.0 } else { r }
}

impl Estimate {
    /// The same, to 4 decimals (as documents are written).
    pub fn rounded(self) -> Estimate {
        Estimate {
            value: r4(self.value),
            interval: self.interval.rounded(),
        }
    }
}

impl Interval {
    /// The same, limits to 4 decimals (as documents are written).
    pub fn rounded(self) -> Interval {
        Interval {
            low: r4(self.low),
            high: r4(self.high),
            ..self
        }
    }

    /// True when `x` lies inside (limits included).
    pub fn contains(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }

    /// `high - low`.
    pub fn width(&self) -> f64 {
        self.high - self.low
    }
}

/// A point estimate with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The estimate: a mean score, or a difference of mean scores.
    pub value: f64,
    /// Its interval.
    pub interval: Interval,
}

/// Sum of scores, each clamped into `[0, 1]`.
pub(crate) fn score_sum(scores: &[f64]) -> f64 {
    scores.iter().map(|s| s.clamp(0.0, 1.0)).sum()
}

/// Plain mean; `None` for no score.
pub(crate) fn mean(scores: &[f64]) -> Option<f64> {
    (!scores.is_empty()).then(|| score_sum(scores) / scores.len() as f64)
}

/// Helpers of the statistics tests.
#[cfg(test)]
pub(crate) mod testing {
    /// |a − b| ≤ tol.
    pub(crate) fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// `n` pass/fail runs of which the first `x` pass.
    pub(crate) fn arm(x: usize, n: usize) -> Vec<f64> {
        (0..n).map(|i| if i < x { 1.0 } else { 0.0 }).collect()
    }
}
