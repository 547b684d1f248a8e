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

/// The standard normal quantile Φ⁻¹(p) for 0 < p < 1 (Wichura's AS 241,
/// about 16 significant digits).
pub fn normal_quantile(p: f64) -> f64 {
    assert!(
        p > 0.0 && p < 1.0,
        "normal_quantile needs 0 < p < 1, got {p}"
    );
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180625 - q * q;
        return q
            * (((((((2_509.080_928_730_122_7 * r + 33_430.575_583_588_13) * r
                + 67_265.770_927_008_7)
                * r
                + 45_921.953_931_549_87)
                * r
                + 13_731.693_765_509_46)
                * r
                + 1_971.590_950_306_551_3)
                * r
                + 133.141_667_891_784_38)
                * r
                + 3.387_132_872_796_366_5)
            / (((((((5_226.495_278_852_545 * r + 28_729.085_735_721_943) * r
                + 39_307.895_800_092_71)
                * r
                + 21_213.794_301_586_597)
                * r
                + 5_394.196_021_424_751)
                * r
                + 687.187_007_492_057_9)
                * r
                + 42.313_330_701_600_91)
                * r
                + 1.0);
    }
    let r = if q < 0.0 { p } else { 1.0 - p };
    let r = (-r.ln()).sqrt();
    let x = if r <= 5.0 {
        let r = r - 1.6;
        (((((((7.745_450_142_783_414e-4 * r + 0.022_723_844_989_269_184) * r
            + 0.241_780_725_177_450_6)
            * r
            + 1.270_458_252_452_368_4)
            * r
            + 3.647_848_324_763_204_5)
            * r
            + 5.769_497_221_460_691)
            * r
            + 4.630_337_846_156_546)
            * r
            + 1.423_437_110_749_683_5)
            / (((((((1.050_750_071_644_416_9e-9 * r + 5.475_938_084_995_345e-4) * r
                + 0.015_198_666_563_616_457)
                * r
                + 0.148_103_976_427_480_07)
                * r
                + 0.689_767_334_985_1)
                * r
                + 1.676_384_830_183_803_8)
                * r
                + 2.053_191_626_637_759)
                * r
                + 1.0)
    } else {
        let r = r - 5.0;
        (((((((2.010_334_399_292_288e-7 * r + 2.711_555_568_743_487_6e-5) * r
            + 0.001_242_660_947_388_078_4)
            * r
            + 0.026_532_189_526_576_124)
            * r
            + 0.296_560_571_828_504_9)
            * r
            + 1.784_826_539_917_291_3)
            * r
            + 5.463_784_911_164_114)
            * r
            + 6.657_904_643_501_103)
            / (((((((2.044_263_103_389_939_7e-15 * r + 1.421_511_758_316_446e-7) * r
                + 1.846_318_317_510_054_8e-5)
                * r
                + 7.868_691_311_456_133e-4)
                * r
                + 0.014_875_361_290_850_615)
                * r
                + 0.136_929_880_922_735_8)
                * r
                + 0.599_832_206_555_888)
                * r
                + 1.0)
    };
    if q < 0.0 { -x } else { x }
}

/// The standard normal distribution function Φ(x), via `erfc` (relative
/// error below 1.2e-7: used for planning figures only, never for a limit).
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// Complementary error function: the Chebyshev fit of Numerical Recipes'
/// `erfcc`, fractional error below 1.2e-7 everywhere.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// The two-sided critical value z for a confidence, e.g. 1.96 for 0.95.
pub fn z_for(confidence: f64) -> f64 {
    assert!(
        confidence > 0.0 && confidence < 1.0,
        "a confidence is strictly between 0 and 1, got {confidence}"
    );
    normal_quantile(0.5 + confidence / 2.0)
}

/// Wilson limits for `successes` out of `n` (successes may be a sum of
/// fractional scores) at critical value `z`. No run: the whole range.
fn wilson_limits(successes: f64, n: usize, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let n = n as f64;
    let p = (successes / n).clamp(0.0, 1.0);
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    // At 0/n and n/n one limit is exactly the observed share; say so exactly
    // rather than leave a rounding error of 1e-17 that would read as "excluded".
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

/// The 95 % Wilson score interval for `passes` out of `n` pass/fail runs.
/// With `n == 0` nothing is known: `[0, 1]`.
pub fn wilson(passes: u32, n: u32) -> Interval {
    wilson_at(passes, n, CONFIDENCE)
}

/// [`wilson`] at another confidence.
pub fn wilson_at(passes: u32, n: u32, confidence: f64) -> Interval {
    assert!(passes <= n, "{passes} passes out of {n} runs");
    let (low, high) = wilson_limits(f64::from(passes), n as usize, z_for(confidence));
    Interval {
        low,
        high,
        confidence,
        method: Method::Wilson,
    }
}

/// The mean of run scores in `[0, 1]` with its Wilson interval on the score
/// sum (conservative for fractional scores: see the module doc). No score:
/// value 0.5 and `[0, 1]`, the whole range.
pub fn mean_interval(scores: &[f64], confidence: f64) -> Estimate {
    let (low, high) = wilson_limits(score_sum(scores), scores.len(), z_for(confidence));
    Estimate {
        value: mean(scores).unwrap_or(0.5),
        interval: Interval {
            low,
            high,
            confidence,
            method: Method::Wilson,
        },
    }
}

/// One arm in a weighted sum Σ cᵢ·μᵢ of independent arms' mean scores.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Part {
    /// Weight in the sum (`1/K` for a mean over K cases; negative for the
    /// arm that is subtracted).
    pub coef: f64,
    /// Sum of the arm's run scores (passes, for pass/fail runs).
    pub sum: f64,
    /// Runs in the arm.
    pub n: usize,
}

impl Part {
    /// The part for an arm's run scores.
    pub fn of(coef: f64, scores: &[f64]) -> Self {
        Part {
            coef,
            sum: score_sum(scores),
            n: scores.len(),
        }
    }
}

/// The arm's mean under a Lagrange multiplier `a = λ·c`: the maximiser of
/// `sum·ln p + (n − sum)·ln(1 − p) − a·p` over `[0, 1]`, in closed form.
fn arm_at(sum: f64, n: f64, a: f64) -> f64 {
    let fail = n - sum;
    if sum <= 0.0 {
        // Slope of the log-likelihood is −n/(1 − p), at most −n.
        return if a >= -n { 0.0 } else { 1.0 + n / a };
    }
    if fail <= 0.0 {
        // Slope n/p, at least n.
        return if a <= n { 1.0 } else { n / a };
    }
    if a == 0.0 {
        return sum / n;
    }
    // Root in (0, 1) of a·p² − (a + n)·p + sum = 0, in its stable form.
    let b = a + n;
    let disc = (b * b - 4.0 * a * sum).max(0.0);
    (2.0 * sum / (b + disc.sqrt())).clamp(0.0, 1.0)
}

/// Σ cᵢ·p̃ᵢ and Σ cᵢ²·p̃ᵢ(1 − p̃ᵢ)/nᵢ at the constrained maximum-likelihood
/// means for multiplier `lambda` (parts with runs only).
fn path(parts: &[Part], lambda: f64) -> (f64, f64) {
    let (mut theta, mut var) = (0.0, 0.0);
    for p in parts {
        let n = p.n as f64;
        let m = arm_at(p.sum.clamp(0.0, n), n, lambda * p.coef);
        theta += p.coef * m;
        var += p.coef * p.coef * m * (1.0 - m) / n;
    }
    (theta, var)
}

/// The share of each part in the variance of Σ cᵢ·μᵢ if the true sum were
/// `theta0`: cᵢ²·p̃ᵢ(1 − p̃ᵢ)/nᵢ at the means most likely under that
/// constraint (0 for a part without runs). What the adaptive driver projects
/// when it asks what more runs would buy.
pub fn variance_at(parts: &[Part], theta0: f64) -> Vec<f64> {
    let ran: Vec<Part> = parts.iter().copied().filter(|p| p.n > 0).collect();
    let theta_hat: f64 = ran.iter().map(|p| p.coef * p.sum / p.n as f64).sum();
    // θ(λ) falls as λ rises; search λ for θ(λ) = θ0 on a log scale.
    let sign = if theta0 < theta_hat { 1.0 } else { -1.0 };
    let lambda = if (theta0 - theta_hat).abs() < 1e-15 {
        0.0
    } else {
        let (mut lo, mut hi) = (LOG_LAMBDA.0, LOG_LAMBDA.1);
        for _ in 0..BISECTIONS {
            let mid = 0.5 * (lo + hi);
            let (theta, _) = path(&ran, sign * mid.exp());
            if (theta - theta0) * sign > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        sign * hi.exp()
    };
    parts
        .iter()
        .map(|p| {
            if p.n == 0 {
                return 0.0;
            }
            let n = p.n as f64;
            let m = arm_at(p.sum.clamp(0.0, n), n, lambda * p.coef);
            p.coef * p.coef * m * (1.0 - m) / n
        })
        .collect()
}

/// Range of ln λ searched: from "barely moved" to "pinned at 0 or 1".
const LOG_LAMBDA: (f64, f64) = (-25.0, 35.0);
/// Bisection steps on ln λ: 48 halvings of a range of 60 leave 2e-13.
const BISECTIONS: usize = 48;

/// The continuity correction: half the finest step the estimate can take,
/// min |cᵢ|/(2nᵢ). Pass/fail means move in steps of 1/n; without it the
/// interval is too short at a handful of runs (at 1 run per arm of 4 cases
/// it calls 7 favourable outcomes of 8 clear, which chance alone gives 7 %
/// of the time).
pub(crate) fn continuity(parts: &[Part]) -> f64 {
    parts
        .iter()
        .filter(|p| p.n > 0 && p.coef != 0.0)
        .map(|p| p.coef.abs() / (2.0 * p.n as f64))
        .fold(f64::INFINITY, f64::min)
        .min(1.0)
}

/// Score interval for Σ cᵢ·μᵢ over independent arms: all θ₀ that the score
/// test does not reject, the test being
/// `(|θ̂ − θ₀| − cc) / √V(θ₀) < z`, where `V(θ₀) = Σ cᵢ²·p̃ᵢ(1 − p̃ᵢ)/nᵢ` is
/// evaluated at the means p̃ most likely under the constraint Σ cᵢ·p̃ᵢ = θ₀
/// (as Wilson does for one arm, and Miettinen–Nurminen and Mee for a
/// difference) and `cc` is the continuity correction, half the finest step
/// the estimate can take: min |cᵢ|/(2nᵢ).
///
/// Scores are treated as pass shares: a score in `[0, 1]` with mean μ has a
/// variance of at most μ(1 − μ), so for fractional scores the interval errs
/// wide. An arm with no run adds its whole range `|c|` around a centre of
/// 0.5: nothing is known of it.
pub fn score_interval(parts: &[Part], confidence: f64) -> Estimate {
    score_interval_cc(parts, confidence, true)
}

/// [`score_interval`], with the continuity correction optional (off, one part
/// is exactly Wilson: a check of the search).
pub(crate) fn score_interval_cc(parts: &[Part], confidence: f64, corrected: bool) -> Estimate {
    score_interval_scaled(parts, confidence, if corrected { 1.0 } else { 0.0 })
}

/// [`score_interval`] with `scale` times the continuity correction (1: the
/// full one; 0: none). What `--runs auto`'s
/// [`super::AutoPolicy::interim_continuity`] measures at interim looks.
pub(crate) fn score_interval_scaled(parts: &[Part], confidence: f64, scale: f64) -> Estimate {
    let corrected = scale > 0.0;
    let z = z_for(confidence);
    let ran: Vec<Part> = parts.iter().copied().filter(|p| p.n > 0).collect();
    let unknown: f64 = parts
        .iter()
        .filter(|p| p.n == 0)
        .map(|p| p.coef.abs())
        .sum();
    let centre_unknown: f64 = parts
        .iter()
        .filter(|p| p.n == 0)
        .map(|p| 0.5 * p.coef)
        .sum();
    let theta_hat: f64 = ran
        .iter()
        .map(|p| p.coef * (p.sum / p.n as f64).clamp(0.0, 1.0))
        .sum();
    let lowest: f64 = ran.iter().map(|p| p.coef.min(0.0)).sum();
    let highest: f64 = ran.iter().map(|p| p.coef.max(0.0)).sum();
    let cc = if corrected {
        scale * continuity(&ran)
    } else {
        0.0
    };
    let rejects = |lambda: f64| -> bool {
        let (theta, var) = path(&ran, lambda);
        let gap = (theta_hat - theta).abs() - cc;
        gap > 0.0 && gap * gap >= z * z * var
    };
    // One side: λ > 0 moves θ down (sign 1), λ < 0 up (sign −1). The limit
    // is θ at the smallest |λ| whose θ the test rejects.
    let limit = |sign: f64, end: f64| -> f64 {
        if ran.is_empty() || !rejects(sign * LOG_LAMBDA.1.exp()) {
            return end;
        }
        let (mut lo, mut hi) = (LOG_LAMBDA.0, LOG_LAMBDA.1);
        if rejects(sign * lo.exp()) {
            return theta_hat;
        }
        for _ in 0..BISECTIONS {
            let mid = 0.5 * (lo + hi);
            if rejects(sign * mid.exp()) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        path(&ran, sign * lo.exp()).0
    };
    let low = limit(1.0, lowest).min(theta_hat);
    let high = limit(-1.0, highest).max(theta_hat);
    let method = if corrected {
        Method::Score
    } else {
        Method::Wilson
    };
    Estimate {
        value: theta_hat + centre_unknown,
        interval: Interval {
            low: low + centre_unknown - unknown / 2.0,
            high: high + centre_unknown + unknown / 2.0,
            confidence,
            method,
        },
    }
}

/// One case's delta (`with - without`) from two independent arms: the score
/// interval for a difference (Mee's, with a continuity correction).
pub fn case_delta(with: &[f64], without: &[f64], confidence: f64) -> Estimate {
    score_interval(&[Part::of(1.0, with), Part::of(-1.0, without)], confidence)
}

/// The interval of a delta Σ cᵢ·(withᵢ − withoutᵢ) over two cases or more,
/// its parts in pairs (withᵢ, withoutᵢ) of opposite weights: the
/// [`score_interval`], widened past 0 when the randomisation test of "the
/// item changed nothing" does not reject: on the side of 0 it then reaches
/// as far as that test does ([`no_effect_reach`]), so the advisory's runs
/// needed are planned on it. A delta is called clear of 0 only when both
/// tests say so. For one case it is the score interval ([`case_delta`]).
///
/// Why two: the score test's variance is taken where the sum's constraint
/// puts the arms, and with many arms few move, so arms seen at 0/n or n/n
/// stay there and add nothing. At 3 runs a quarter of coin-flip arms are seen
/// so, and 8 cases of coin flips were called 9 % of the time at 95 %. The
/// randomisation test's variance is that of the delta when each case's runs,
/// with and without, are exchangeable: it holds its level there (measured in
/// `docs/statistics.md`).
pub fn delta_interval(parts: &[Part], confidence: f64) -> Estimate {
    delta_interval_scaled(parts, confidence, 1.0)
}

/// [`delta_interval`] with `scale` times the continuity correction, as
/// [`score_interval_scaled`].
pub(crate) fn delta_interval_scaled(parts: &[Part], confidence: f64, scale: f64) -> Estimate {
    let mut estimate = score_interval_scaled(parts, confidence, scale);
    let value = estimate.value;
    let i = &mut estimate.interval;
    let clear = i.low > 0.0 || i.high < 0.0;
    let ran: Vec<Part> = parts.iter().copied().filter(|p| p.n > 0).collect();
    let cc = if scale > 0.0 {
        scale * continuity(&ran)
    } else {
        0.0
    };
    // One case is a difference of two arms, where the score test (Mee's)
    // holds its level; the guard is for sums over cases.
    if clear
        && parts.len() >= 4
        && let Some(reach) = no_effect_reach(parts, cc, z_for(confidence))
    {
        if value > 0.0 {
            i.low = i.low.min(value - reach);
        } else {
            i.high = i.high.max(value + reach);
        }
    }
    estimate
}

/// Each part's share of the delta's variance under the randomisation test
/// ([`no_effect_reach`]): cᵢ²·Sᵢ²/nᵢ, Sᵢ² pooled over its case's two
/// arms; `None` when the parts are not in pairs of opposite weights with
/// runs in both arms, or make one case (where the score test decides alone).
pub(crate) fn no_effect_variances(parts: &[Part]) -> Option<Vec<f64>> {
    if parts.len() < 4 {
        return None;
    }
    shuffled_shares(parts)
}

/// [`no_effect_variances`] for any number of cases.
fn shuffled_shares(parts: &[Part]) -> Option<Vec<f64>> {
    if !parts.len().is_multiple_of(2) {
        return None;
    }
    let mut shares = Vec::with_capacity(parts.len());
    for pair in parts.chunks(2) {
        let (w, o) = (pair[0], pair[1]);
        if w.coef != -o.coef || w.n == 0 || o.n == 0 {
            return None;
        }
        let (nw, no) = (w.n as f64, o.n as f64);
        let (n, s) = (nw + no, w.sum.clamp(0.0, nw) + o.sum.clamp(0.0, no));
        let pooled = if n > 1.0 {
            ((s - s * s / n) / (n - 1.0)).max(0.0)
        } else {
            0.0
        };
        shares.push(w.coef * w.coef * pooled / nw);
        shares.push(o.coef * o.coef * pooled / no);
    }
    Some(shares)
}

/// How far the randomisation test of "the item changed nothing" reaches
/// from the delta when it does not reject: z·√V + cc, the distance within
/// which 0 stays plausible. The statistic is the delta, its variance under
/// that null (every case's with and without runs exchangeable)
/// V = Σ cᵢ²·Sᵢ²·(1/n_wᵢ + 1/n_oᵢ), Sᵢ² the sample variance of the case's
/// runs pooled (pass shares: Σx² taken as Σx, exact for pass/fail, wide for
/// fractional scores); normal, with the continuity correction `cc`. `None`
/// when it rejects, and when it does not apply (parts not in pairs of
/// opposite weights, a case with an arm not run): the score test decides.
fn no_effect_reach(parts: &[Part], cc: f64, z: f64) -> Option<f64> {
    let var: f64 = shuffled_shares(parts)?.iter().sum();
    let theta: f64 = parts
        .iter()
        .map(|p| p.coef * p.sum.clamp(0.0, p.n as f64) / p.n as f64)
        .sum();
    let gap = theta.abs() - cc;
    let rejects = gap > 0.0 && gap * gap >= z * z * var;
    (!rejects).then(|| z * var.sqrt() + cc)
}

/// Passes of 3 runs (with, without) of eight cases, delta 7/24, drawn from
/// coin flips: the score interval alone leaves 0 out, the randomisation test
/// does not (the example of the tests).
#[cfg(test)]
pub(crate) const COIN_FLIPS_CALLED: [(usize, usize); 8] = [
    (2, 0),
    (2, 1),
    (3, 0),
    (2, 3),
    (3, 1),
    (0, 2),
    (3, 1),
    (1, 1),
];

/// Sum of scores, each clamped into `[0, 1]`.
pub(crate) fn score_sum(scores: &[f64]) -> f64 {
    scores.iter().map(|s| s.clamp(0.0, 1.0)).sum()
}

/// Plain mean; `None` for no score.
pub(crate) fn mean(scores: &[f64]) -> Option<f64> {
    (!scores.is_empty()).then(|| score_sum(scores) / scores.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn normal_quantile_known_values() {
        assert!(close(normal_quantile(0.975), 1.959_963_984_540_054, 1e-12));
        assert!(close(normal_quantile(0.5), 0.0, 1e-15));
        assert!(close(normal_quantile(0.8), 0.841_621_233_572_914_3, 1e-12));
        assert!(close(normal_quantile(0.0005), -3.290_526_731_491_89, 1e-10));
        assert!(close(normal_quantile(1e-10), -6.361_340_902_404_056, 1e-9));
        assert!(close(z_for(0.99), 2.575_829_303_548_901, 1e-12));
    }

    #[test]
    fn normal_cdf_inverts_the_quantile() {
        for p in [0.001, 0.025, 0.2, 0.5, 0.8, 0.975, 0.999] {
            assert!(close(normal_cdf(normal_quantile(p)), p, 1e-6), "{p}");
        }
    }

    #[test]
    fn wilson_known_values() {
        // Wilson (1927) limits at 95 %, checked against an independent computation.
        for (x, n, low, high) in [
            (5, 10, 0.236_593_090_5, 0.763_406_909_5),
            (8, 10, 0.490_162_471_5, 0.943_317_848_5),
            (2, 3, 0.207_659_600_8, 0.938_508_055_3),
            (81, 263, 0.255_288_519_9, 0.366_209_577_0),
        ] {
            let i = wilson(x, n);
            assert!(close(i.low, low, 1e-9), "{x}/{n}: {i:?}");
            assert!(close(i.high, high, 1e-9), "{x}/{n}: {i:?}");
            assert_eq!(i.method, Method::Wilson);
        }
    }

    #[test]
    fn wilson_edges_zero_and_all() {
        let none = wilson(0, 10);
        assert_eq!(none.low, 0.0);
        assert!(close(none.high, 0.277_532_799_9, 1e-9));
        let all = wilson(10, 10);
        assert_eq!(all.high, 1.0);
        assert!(close(all.low, 0.722_467_200_1, 1e-9));
        let one = wilson(1, 1);
        assert!(close(one.low, 0.206_549_314_4, 1e-9) && one.high == 1.0);
        let zero = wilson(0, 1);
        assert!(zero.low == 0.0 && close(zero.high, 0.793_450_685_6, 1e-9));
        let nothing = wilson(0, 0);
        assert_eq!((nothing.low, nothing.high), (0.0, 1.0));
    }

    #[test]
    fn wilson_narrows_with_confidence_and_runs() {
        assert!(wilson_at(5, 10, 0.99).width() > wilson(5, 10).width());
        assert!(wilson(50, 100).width() < wilson(5, 10).width());
    }

    #[test]
    fn fractional_scores_use_the_score_sum() {
        let e = mean_interval(&[0.5, 1.0, 0.5, 0.0], CONFIDENCE);
        assert_eq!(e.value, 0.5);
        let w = wilson(2, 4);
        assert!(close(e.interval.low, w.low, 1e-12) && close(e.interval.high, w.high, 1e-12));
        let none = mean_interval(&[], CONFIDENCE);
        assert_eq!((none.interval.low, none.interval.high), (0.0, 1.0));
    }

    fn arm(x: usize, n: usize) -> Vec<f64> {
        (0..n).map(|i| if i < x { 1.0 } else { 0.0 }).collect()
    }

    #[test]
    fn one_part_without_correction_is_wilson() {
        for (x, n) in [(0, 1), (1, 1), (2, 3), (5, 10), (10, 10), (81, 263)] {
            let s = score_interval_cc(&[Part::of(1.0, &arm(x, n))], CONFIDENCE, false);
            let w = wilson(x as u32, n as u32);
            assert!(close(s.interval.low, w.low, 1e-9), "{x}/{n}: {s:?} {w:?}");
            assert!(close(s.interval.high, w.high, 1e-9), "{x}/{n}: {s:?} {w:?}");
        }
    }

    #[test]
    fn one_part_with_correction_is_corrected_wilson() {
        // Newcombe (1998), method 4 (Wilson with continuity correction).
        for (x, n, low, high) in [
            (81, 263, 0.253_508_682_3, 0.368_176_201_0),
            (15, 148, 0.059_778_208_4, 0.164_449_779_4),
            (5, 10, 0.201_422_969_6, 0.798_577_030_4),
            (1, 1, 0.054_620_755_5, 1.0),
            (0, 20, 0.0, 0.200_453_345_0),
        ] {
            let s = score_interval(&[Part::of(1.0, &arm(x, n))], CONFIDENCE);
            assert!(close(s.interval.low, low, 1e-8), "{x}/{n}: {s:?}");
            assert!(close(s.interval.high, high, 1e-8), "{x}/{n}: {s:?}");
            assert_eq!(s.interval.method, Method::Score);
        }
    }

    /// The score test for p₁ − p₂ = θ₀ by brute force: the constrained
    /// maximum likelihood over a fine grid of p₂, then the corrected statistic.
    fn brute_rejects(x1: f64, n1: f64, x2: f64, n2: f64, theta0: f64, z: f64) -> bool {
        let ll = |x: f64, n: f64, p: f64| {
            let p = p.clamp(1e-300, 1.0 - 1e-16);
            x * p.ln() + (n - x) * (1.0 - p).ln()
        };
        let (mut best, mut at) = (f64::NEG_INFINITY, 0.0);
        for i in 0..=200_000 {
            let p2 = i as f64 / 200_000.0;
            let p1 = p2 + theta0;
            if !(0.0..=1.0).contains(&p1) {
                continue;
            }
            let l = ll(x1, n1, p1) + ll(x2, n2, p2);
            if l > best {
                (best, at) = (l, p2);
            }
        }
        let (p1, p2) = (at + theta0, at);
        let var = p1 * (1.0 - p1) / n1 + p2 * (1.0 - p2) / n2;
        let cc = 0.5 / n1.max(n2);
        let gap = (x1 / n1 - x2 / n2 - theta0).abs() - cc;
        gap > 0.0 && gap * gap >= z * z * var
    }

    #[test]
    fn difference_agrees_with_a_brute_force_score_test() {
        let z = z_for(CONFIDENCE);
        for (x1, n1, x2, n2) in [(3, 3, 0, 3), (7, 10, 2, 10), (9, 10, 3, 10), (2, 3, 1, 5)] {
            let d = case_delta(&arm(x1, n1), &arm(x2, n2), CONFIDENCE);
            let (x1, n1, x2, n2) = (x1 as f64, n1 as f64, x2 as f64, n2 as f64);
            for (limit, outward) in [(d.interval.low, -1e-3), (d.interval.high, 1e-3)] {
                if limit.abs() >= 1.0 - 1e-3 {
                    continue;
                }
                assert!(
                    brute_rejects(x1, n1, x2, n2, limit + outward, z),
                    "just outside {limit} should be rejected: {d:?}"
                );
                assert!(
                    !brute_rejects(x1, n1, x2, n2, limit - outward, z),
                    "just inside {limit} should not be rejected: {d:?}"
                );
            }
        }
    }

    #[test]
    fn delta_edges() {
        let ones = [1.0; 3];
        let zeros = [0.0; 3];
        let d = case_delta(&ones, &ones, CONFIDENCE);
        assert_eq!(d.value, 0.0);
        assert!(d.interval.contains(0.0) && d.interval.low < 0.0 && d.interval.high > 0.0);
        let d = case_delta(&ones, &zeros, CONFIDENCE);
        assert_eq!((d.value, d.interval.high), (1.0, 1.0));
        assert!(d.interval.low > 0.0, "3/3 vs 0/3 excludes a tie: {d:?}");
        let d = case_delta(&[1.0], &[0.0], CONFIDENCE);
        assert!(
            d.interval.low < 0.0,
            "one run each never excludes a tie: {d:?}"
        );
        let d = case_delta(&[1.0, 1.0], &[], CONFIDENCE);
        // Nothing known of the without arm: its whole range [0, 1] is added.
        let with = score_interval(&[Part::of(1.0, &[1.0, 1.0])], CONFIDENCE);
        assert_eq!(d.value, 0.5);
        assert!(
            close(d.interval.low, with.interval.low - 1.0, 1e-12),
            "{d:?}"
        );
        assert_eq!(d.interval.high, 1.0);
    }

    proptest::proptest! {
        #[test]
        fn score_intervals_hold_their_estimate(
            arms in proptest::collection::vec((0usize..12, 0.0f64..=1.0, proptest::bool::ANY), 1..9),
        ) {
            let k = arms.len() as f64;
            let parts: Vec<Part> = arms
                .iter()
                .map(|&(n, share, minus)| Part {
                    coef: if minus { -1.0 / k } else { 1.0 / k },
                    sum: (share * n as f64).round(),
                    n,
                })
                .collect();
            let lowest: f64 = parts.iter().map(|p| p.coef.min(0.0)).sum();
            let highest: f64 = parts.iter().map(|p| p.coef.max(0.0)).sum();
            let e = score_interval(&parts, CONFIDENCE);
            let i = e.interval;
            proptest::prop_assert!(i.low <= e.value + 1e-12 && e.value <= i.high + 1e-12, "{e:?}");
            proptest::prop_assert!(i.low >= lowest - 1e-9 && i.high <= highest + 1e-9, "{e:?}");
            let wide = score_interval(&parts, 0.999).interval;
            proptest::prop_assert!(wide.low <= i.low + 1e-9 && wide.high >= i.high - 1e-9);
        }
    }

    #[test]
    fn variance_at_the_estimate_is_the_plain_variance() {
        let parts = [Part::of(1.0, &arm(7, 10)), Part::of(-1.0, &arm(2, 10))];
        let v = variance_at(&parts, 0.5);
        assert!(close(v[0], 0.7 * 0.3 / 10.0, 1e-9) && close(v[1], 0.2 * 0.8 / 10.0, 1e-9));
        // Under "no difference" both arms move to a common mean (0.45 here).
        let v = variance_at(&parts, 0.0);
        assert!(close(v[0], 0.45 * 0.55 / 10.0, 1e-6), "{v:?}");
        assert!(close(v[0], v[1], 1e-9), "{v:?}");
    }

    /// Σ over pairs of (with, without) parts for K cases of `runs` each.
    fn pairs(draws: &[(usize, usize)], runs: usize) -> Vec<Part> {
        let k = draws.len() as f64;
        draws
            .iter()
            .flat_map(|&(w, o)| {
                [
                    Part::of(1.0 / k, &arm(w, runs)),
                    Part::of(-1.0 / k, &arm(o, runs)),
                ]
            })
            .collect()
    }

    #[test]
    fn no_effect_variance_is_the_randomisation_variance() {
        // One case, 3/3 against 0/3: the delta's variance over the 20 ways
        // to share 3 passes among 6 runs is S²·(1/3 + 1/3) = 0.3·2/3 = 0.2.
        // Corrected, (1 − 1/6)² = 0.694 < 1.96²·0.2 = 0.768: not rejected
        // (its exact p is 2/20 = 0.1); 4/4 against 0/4 is.
        let z = z_for(CONFIDENCE);
        let reach = no_effect_reach(&pairs(&[(3, 0)], 3), 1.0 / 6.0, z).unwrap();
        assert!(
            close(reach, z * 0.2f64.sqrt() + 1.0 / 6.0, 1e-12),
            "{reach}"
        );
        assert!(no_effect_reach(&pairs(&[(4, 0)], 4), 1.0 / 8.0, z).is_none());
        // Parts not in pairs of opposite weights, or an arm not run: the
        // score test alone decides.
        let one = [Part::of(1.0, &arm(1, 3))];
        assert!(no_effect_reach(&one, 0.0, z).is_none());
        let unrun = [Part::of(1.0, &arm(3, 3)), Part::of(-1.0, &[])];
        assert!(no_effect_reach(&unrun, 0.0, z).is_none());
        let same_sign = [Part::of(0.5, &arm(3, 3)), Part::of(0.5, &arm(0, 3))];
        assert!(no_effect_reach(&same_sign, 0.0, z).is_none());
    }

    #[test]
    fn delta_interval_reaches_past_zero_only_when_the_randomisation_test_does_not_reject() {
        let parts = pairs(&COIN_FLIPS_CALLED, 3);
        let score = score_interval(&parts, CONFIDENCE).interval;
        let delta = delta_interval(&parts, CONFIDENCE);
        assert!(score.low > 0.0, "{score:?}");
        // It reaches past 0 by as far as the randomisation test does:
        // 7/24 − (1.96·√V + 1/48).
        let reach = no_effect_reach(&parts, 1.0 / 48.0, z_for(CONFIDENCE)).unwrap();
        assert!(close(delta.interval.low, 7.0 / 24.0 - reach, 1e-12));
        assert!(delta.interval.low < 0.0);
        assert_eq!(delta.interval.high, score.high);
        assert_eq!(delta.interval.method, Method::Score);
        // A clear change: both tests reject, the score interval stands.
        let clear = pairs(&[(10, 0), (9, 1), (10, 2)], 10);
        let score = score_interval(&clear, CONFIDENCE).interval;
        let delta = delta_interval(&clear, CONFIDENCE).interval;
        assert!(delta.low > 0.0);
        assert_eq!((delta.low, delta.high), (score.low, score.high));
    }

    /// Share of `reps` suites of K coin-flip cases at `runs` per arm whose
    /// delta `interval` leaves 0 out (a seeded xorshift, so it replays).
    fn false_calls(
        k: usize,
        runs: usize,
        reps: usize,
        interval: fn(&[Part], f64) -> Estimate,
    ) -> f64 {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut flip = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state >> 63 == 1
        };
        let mut called = 0;
        for _ in 0..reps {
            let draws: Vec<(usize, usize)> = (0..k)
                .map(|_| {
                    let mut passes = || (0..runs).filter(|_| flip()).count();
                    (passes(), passes())
                })
                .collect();
            let i = interval(&pairs(&draws, runs), CONFIDENCE).interval;
            called += usize::from(i.low > 0.0 || i.high < 0.0);
        }
        called as f64 / reps as f64
    }

    #[test]
    fn many_coin_flip_cases_at_few_runs_hold_the_level() {
        // The fault this guards against: the score interval alone calls 8
        // coin-flip cases at 3 runs about 9 % of the time at 95 %.
        let reps = 20_000;
        assert!(false_calls(8, 3, reps, score_interval) > 0.07);
        for (k, runs) in [(8, 3), (8, 4), (6, 3), (2, 3), (4, 5)] {
            let share = false_calls(k, runs, reps, delta_interval);
            assert!(share <= 0.05, "{k} cases at {runs} runs: {share}");
        }
    }
}
