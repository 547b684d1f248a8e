//! A weighted sum of independent arms' means (a case's delta, the suite's
//! means and delta): the score interval, its variance at the constrained
//! maximum-likelihood means, and its continuity correction.

use super::{Estimate, Interval, Method, score_sum, z_for};
use crate::stats::memo::Memo;
use std::cell::RefCell;

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
        // Past the switch where θ(λ) has reached θ0.
        let (_, hi) = switch(LOG_LAMBDA.0, LOG_LAMBDA.1, |u| {
            let miss = (path(&ran, sign * u.exp()).0 - theta0) * sign;
            (miss <= 0.0, -miss)
        });
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
/// Width of ln λ at which a search stops: that of 48 halvings of the range
/// (2e-13), the bisection these searches replaced, so their limits agree.
const TOLERANCE: f64 = (LOG_LAMBDA.1 - LOG_LAMBDA.0) / (1u64 << 48) as f64;

/// The switch of a monotone predicate on `[lo, hi]`, false at `lo` and true
/// at `hi`: returns `(lo, hi)` at most [`TOLERANCE`] apart, the predicate
/// still false at the first and true at the second. `test(u)` gives the
/// predicate and a continuous value that crosses 0 where it switches,
/// positive past it. Illinois false position on that value, with a
/// bisection step whenever a step leaves more than half the bracket: about
/// a dozen evaluations where bisection took 48, and never many more.
fn switch(mut lo: f64, mut hi: f64, test: impl Fn(f64) -> (bool, f64)) -> (f64, f64) {
    let (mut f_lo, mut f_hi) = (test(lo).1.min(0.0), test(hi).1.max(0.0));
    // Which end the last step moved (−1 lo, 1 hi), to halve the other's value.
    let mut moved = 0;
    while hi - lo > TOLERANCE {
        let width = hi - lo;
        let mid = 0.5 * (lo + hi);
        let secant = if f_lo < 0.0 && f_hi > 0.0 {
            hi - f_hi * width / (f_hi - f_lo)
        } else {
            mid
        };
        // A step from the inside edge, so a root at an end closes the bracket.
        let edge = 0.25 * TOLERANCE;
        let u = if secant.is_finite() {
            secant.clamp(lo + edge, hi - edge)
        } else {
            mid
        };
        let (past, value) = test(u);
        if past {
            hi = u;
            f_hi = value.max(0.0);
            if moved == 1 {
                f_lo *= 0.5;
            }
            moved = 1;
        } else {
            lo = u;
            f_lo = value.min(0.0);
            if moved == -1 {
                f_hi *= 0.5;
            }
            moved = -1;
        }
        if hi - lo > 0.5 * width && hi - lo > TOLERANCE {
            // False position crawled: bisect once.
            let mid = 0.5 * (lo + hi);
            let (past, value) = test(mid);
            if past {
                (hi, f_hi) = (mid, value.max(0.0));
            } else {
                (lo, f_lo) = (mid, value.min(0.0));
            }
            moved = 0;
        }
    }
    (lo, hi)
}

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
/// (as Wilson does for one arm, and Mee for a difference: no N/(N − 1)
/// factor, which Miettinen and Nurminen's interval adds) and `cc` is the continuity correction, half the finest step
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
///
/// Remembered per thread: `--runs auto` looks after every run, its price
/// simulates a hundred evaluations, and pass/fail counts repeat, so the same
/// interval is asked for again and again; each search takes a few dozen
/// evaluations of the likelihood path. The answer is a pure function of the
/// arguments (the same bits whether searched or remembered), and the memo is
/// emptied when it holds [`MEMO_ENTRIES`] answers.
pub(crate) fn score_interval_scaled(parts: &[Part], confidence: f64, scale: f64) -> Estimate {
    let key: MemoKey = (
        parts
            .iter()
            .map(|p| (p.coef.to_bits(), p.sum.to_bits(), p.n))
            .collect(),
        confidence.to_bits(),
        scale.to_bits(),
    );
    if let Some(e) = MEMO.with(|m| m.borrow().get(&key)) {
        return e;
    }
    let e = search(parts, confidence, scale);
    MEMO.with(|m| m.borrow_mut().insert(key, e));
    e
}

/// Most answers the memo of [`score_interval_scaled`] holds per thread: an
/// answer for a suite of 8 cases (16 arms) takes about 500 bytes, so at
/// most some 20 MB per thread, far less for fewer cases.
const MEMO_ENTRIES: usize = 1 << 15;

/// The arguments of [`score_interval_scaled`], bit for bit: each part's
/// coefficient, sum and runs, the confidence and the scale.
type MemoKey = (Vec<(u64, u64, usize)>, u64, u64);

thread_local! {
    static MEMO: RefCell<Memo<MemoKey, Estimate>> = const { RefCell::new(Memo::new(MEMO_ENTRIES)) };
}

/// The search behind [`score_interval_scaled`].
fn search(parts: &[Part], confidence: f64, scale: f64) -> Estimate {
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
    // Whether the test rejects θ(λ), and by how much: gap − z·√V, which
    // crosses 0 where the test switches.
    let test = |lambda: f64| -> (bool, f64) {
        let (theta, var) = path(&ran, lambda);
        let gap = (theta_hat - theta).abs() - cc;
        (gap > 0.0 && gap * gap >= z * z * var, gap - z * var.sqrt())
    };
    let rejects = |lambda: f64| test(lambda).0;
    // One side: λ > 0 moves θ down (sign 1), λ < 0 up (sign −1). The limit
    // is θ at the smallest |λ| whose θ the test rejects.
    let limit = |sign: f64, end: f64| -> f64 {
        if ran.is_empty() || !rejects(sign * LOG_LAMBDA.1.exp()) {
            return end;
        }
        if rejects(sign * LOG_LAMBDA.0.exp()) {
            return theta_hat;
        }
        let (lo, _) = switch(LOG_LAMBDA.0, LOG_LAMBDA.1, |u| test(sign * u.exp()));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::interval::testing::{arm, close};
    use crate::stats::interval::{CONFIDENCE, wilson};

    /// Asked again, the memo answers what the search finds, bit for bit,
    /// and it never holds more than [`MEMO_ENTRIES`] answers.
    #[test]
    fn a_remembered_interval_is_the_searched_one_and_the_memo_stays_bounded() {
        let parts = |i: usize| {
            [
                Part {
                    coef: 0.5,
                    sum: (i % 7) as f64,
                    n: 7 + i % 5,
                },
                Part {
                    coef: -0.5,
                    sum: (i % 3) as f64,
                    n: 3 + i / 7,
                },
            ]
        };
        for i in 0..MEMO_ENTRIES + 100 {
            let (p, scale) = (parts(i), (i % 2) as f64);
            let first = score_interval_scaled(&p, 0.9, scale);
            assert_eq!(first, search(&p, 0.9, scale), "{i}");
            assert_eq!(first, score_interval_scaled(&p, 0.9, scale), "{i}");
            assert!(MEMO.with(|m| m.borrow().len()) <= MEMO_ENTRIES);
        }
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

    /// The search these replaced: 48 halvings of `[lo, hi]`.
    fn bisect(mut lo: f64, mut hi: f64, past: impl Fn(f64) -> bool) -> (f64, f64) {
        for _ in 0..48 {
            let mid = 0.5 * (lo + hi);
            if past(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        (lo, hi)
    }

    #[test]
    fn the_search_finds_the_limits_bisection_found() {
        // Every count of a difference up to 12 runs an arm, and a mean of
        // three cases' deltas; both sides, three levels, three corrections.
        let mut grids: Vec<Vec<Part>> = vec![];
        for n1 in 1..=12 {
            for n2 in [1, 2, 3, 5, 8, 12] {
                for x1 in 0..=n1 {
                    for x2 in 0..=n2 {
                        grids.push(vec![
                            Part::of(1.0, &arm(x1, n1)),
                            Part::of(-1.0, &arm(x2, n2)),
                        ]);
                        let third = |x, n| Part::of(1.0 / 3.0, &arm(x, n));
                        let minus = |x, n| Part::of(-1.0 / 3.0, &arm(x, n));
                        grids.push(vec![
                            third(x1, n1),
                            minus(x2, n2),
                            third(n1 - x1, n1),
                            minus(x2.min(1), n2),
                            third(x2, n2),
                            minus(x1, n1),
                        ]);
                    }
                }
            }
        }
        let (mut calls, mut searches) = (0usize, 0usize);
        for parts in &grids {
            let theta_hat: f64 = parts.iter().map(|p| p.coef * p.sum / p.n as f64).sum();
            for confidence in [0.9, 0.95, 0.9967] {
                let z = z_for(confidence);
                for scale in [0.0, 0.5, 1.0] {
                    let cc = scale * continuity(parts);
                    for sign in [1.0, -1.0] {
                        let test = |u: f64| {
                            let (theta, var) = path(parts, sign * u.exp());
                            let gap = (theta_hat - theta).abs() - cc;
                            (gap > 0.0 && gap * gap >= z * z * var, gap - z * var.sqrt())
                        };
                        let (a, b) = LOG_LAMBDA;
                        if !test(b).0 || test(a).0 {
                            continue;
                        }
                        let old = bisect(a, b, |u| test(u).0);
                        let count = std::cell::Cell::new(0);
                        let new = switch(a, b, |u| {
                            count.set(count.get() + 1);
                            test(u)
                        });
                        (calls, searches) = (calls + count.get(), searches + 1);
                        assert!(!test(new.0).0 && test(new.1).0, "{parts:?}");
                        assert!(new.1 - new.0 <= TOLERANCE, "{parts:?}");
                        let limit = |u: f64| path(parts, sign * u.exp()).0;
                        let gap = (limit(new.0) - limit(old.0)).abs();
                        assert!(gap < 1e-11, "{parts:?} {confidence} {scale}: {gap}");
                    }
                }
            }
        }
        // Far fewer evaluations than bisection's 48 (and its 2 ends).
        let mean = calls as f64 / searches as f64;
        assert!(
            searches > 10_000 && mean < 25.0,
            "{searches} searches, {mean} each"
        );
    }

    #[test]
    fn variance_at_finds_the_constraint_bisection_found() {
        for (x1, n1, x2, n2) in [(7, 10, 2, 10), (0, 3, 3, 3), (1, 1, 0, 5), (9, 12, 4, 7)] {
            let parts = [Part::of(1.0, &arm(x1, n1)), Part::of(-1.0, &arm(x2, n2))];
            for theta0 in [-0.9, -0.3, 0.0, 0.2, 0.6, 0.95] {
                let theta_hat = x1 as f64 / n1 as f64 - x2 as f64 / n2 as f64;
                let sign = if theta0 < theta_hat { 1.0 } else { -1.0 };
                let (_, hi) = bisect(LOG_LAMBDA.0, LOG_LAMBDA.1, |u| {
                    (path(&parts, sign * u.exp()).0 - theta0) * sign <= 0.0
                });
                let lambda = sign * hi.exp();
                let v = variance_at(&parts, theta0);
                for (i, p) in parts.iter().enumerate() {
                    let n = p.n as f64;
                    let m = arm_at(p.sum, n, lambda * p.coef);
                    let old = m * (1.0 - m) / n;
                    assert!(close(v[i], old, 1e-10), "{x1}/{n1} {x2}/{n2} at {theta0}");
                }
            }
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
}
