//! `exact`: the trigger pair's score test against an exact (Barnard-type)
//! test.

use crate::figures::figure;
use bob_eval::stats::AutoPolicy;
use bob_eval::stats::interval::{Part, normal_cdf, variance_at};

/// The pair's four arms (fires with, without; quiet with, without) as the
/// parts of the suite's delta, `s` passes of `n` runs each.
pub(crate) fn pair_parts(s: [usize; 4], n: usize) -> Vec<Part> {
    [0.5, -0.5, 0.5, -0.5]
        .iter()
        .zip(s)
        .map(|(&coef, sum)| Part {
            coef,
            sum: sum as f64,
            n,
        })
        .collect()
}

/// The one-sided score statistic of "the suite's delta is 0" that the
/// intervals invert: (θ̂ − cc)/√V(0), V at the constrained means.
pub(crate) fn pair_z(s: [usize; 4], n: usize) -> f64 {
    pair_z_cc(s, n, 1.0)
}

/// [`pair_z`] with `scale` times the continuity correction.
pub(crate) fn pair_z_cc(s: [usize; 4], n: usize, scale: f64) -> f64 {
    let parts = pair_parts(s, n);
    let theta: f64 = parts.iter().map(|p| p.coef * p.sum / n as f64).sum();
    let cc = scale * 0.5 / (2.0 * n as f64);
    let v: f64 = variance_at(&parts, 0.0).iter().sum();
    if v <= 0.0 {
        return if theta > cc { f64::INFINITY } else { 0.0 };
    }
    (theta - cc) / v.sqrt()
}

/// The chances of 0..=n passes in n runs at rate p.
pub(crate) fn binomial(n: usize, p: f64) -> Vec<f64> {
    let mut choose = 1.0;
    (0..=n)
        .map(|k| {
            if k > 0 {
                choose *= (n - k + 1) as f64 / k as f64;
            }
            choose * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32)
        })
        .collect()
}

/// The exact (Barnard-type) one-sided p-value of the pair's outcome `obs`:
/// the largest chance, over every rate of the four arms with a suite delta
/// of 0, of an outcome whose score statistic is at least the observed one.
/// The supremum is searched on a grid of step 0.05, then of step 0.0025
/// around the best point.
pub(crate) fn pair_exact(obs: [usize; 4], n: usize) -> f64 {
    let z_obs = pair_z(obs, n);
    let side = n + 1;
    let mut extreme = vec![];
    for i in 0..side.pow(4) {
        let s = [
            i % side,
            (i / side) % side,
            (i / side / side) % side,
            i / side.pow(3),
        ];
        if pair_z(s, n) >= z_obs - 1e-9 {
            extreme.push(s);
        }
    }
    let chance = |p: [f64; 3]| -> f64 {
        let last = p[0] - p[1] + p[2];
        if !(0.0..=1.0).contains(&last) {
            return 0.0;
        }
        let b: Vec<Vec<f64>> = [p[0], p[1], p[2], last]
            .iter()
            .map(|&r| binomial(n, r))
            .collect();
        extreme
            .iter()
            .map(|s| b[0][s[0]] * b[1][s[1]] * b[2][s[2]] * b[3][s[3]])
            .sum()
    };
    let mut best = (0.0, [0.5; 3]);
    let search = |centre: [f64; 3], step: f64, half: i32, best: &mut (f64, [f64; 3])| {
        for a in -half..=half {
            for b in -half..=half {
                for c in -half..=half {
                    let p = [
                        centre[0] + f64::from(a) * step,
                        centre[1] + f64::from(b) * step,
                        centre[2] + f64::from(c) * step,
                    ];
                    if p.iter().all(|x| (0.0..=1.0).contains(x)) {
                        let q = chance(p);
                        if q > best.0 {
                            *best = (q, p);
                        }
                    }
                }
            }
        }
    };
    search([0.5; 3], 0.05, 10, &mut best);
    let centre = best.1;
    search(centre, 0.0025, 20, &mut best);
    best.0
}

/// Issue 24, item 4: what an exact test would gain on the trigger pair.
/// For the pair's outcomes at 4 to 8 runs per arm: the continuity-corrected
/// score test's one-sided p-value against the exact (Barnard-type) one,
/// beside the one-sided level each look of the default schedule may spend.
pub(crate) fn exact() {
    let policy = AutoPolicy::new(16);
    let levels: Vec<String> = policy
        .schedule()
        .iter()
        .zip(policy.confidences().unwrap())
        .map(|(n, c)| format!("{n} runs {:.5}", (1.0 - c) / 2.0))
        .collect();
    println!();
    println!(
        "exact: the default's one-sided level per look: {}",
        levels.join(", ")
    );
    println!();
    println!(
        "| runs per arm | fires with / without, quiet with / without (passes) | score z | score p | uncorrected score p | exact p | exact / score |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for n in [4usize, 5, 6, 8] {
        let outcomes = [
            [n, 0, n, n],
            [n - 1, 0, n, n],
            [n - 1, 1, n, n],
            [n - 2, 0, n, n],
            [n, 0, n - 1, n - 1],
            [n - 1, 0, n - 1, n - 1],
            [n, 0, 0, 0],
        ];
        for o in outcomes {
            let z = pair_z(o, n);
            let score = 1.0 - normal_cdf(z);
            let exact = pair_exact(o, n);
            let bare = 1.0 - normal_cdf(pair_z_cc(o, n, 0.0));
            println!(
                "| {n} | {}/{n} vs {}/{n}, {}/{n} vs {}/{n} | {z:.2} | {score:.4} | {bare:.4} | {exact:.4} | {:.2} |",
                o[0],
                o[1],
                o[2],
                o[3],
                exact / score
            );
            let id = format!(
                "exact/{}/{n} vs {}/{n}, {}/{n} vs {}/{n}",
                o[0], o[1], o[2], o[3]
            );
            for (label, p) in [
                ("score p", score),
                ("uncorrected p", bare),
                ("exact p", exact),
            ] {
                figure(
                    &format!("{id}/{label}"),
                    &format!("{p:.4}"),
                    "computed, no simulation",
                    "",
                );
            }
        }
    }
}
