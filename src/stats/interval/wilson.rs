//! One arm's mean score: the Wilson score interval.

use super::{CONFIDENCE, Estimate, Interval, Method, mean, score_sum, z_for};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::interval::testing::close;

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
}
