use super::{
    BTreeMap, DEFAULT_THRESHOLD, GradedCase, GraderResult, Judge, MAX_LABELS, Pair, Uncorrectable,
    correct, labels_needed, labels_needed_from, record, record_weighted, wilson_at,
};
use crate::stats::CONFIDENCE;

fn pairs(tp: usize, ff: usize, tn: usize, fp: usize) -> Vec<Pair> {
    let p = |human, judge, n| std::iter::repeat_n(Pair { human, judge }, n);
    p(true, true, tp)
        .chain(p(true, false, ff))
        .chain(p(false, false, tn))
        .chain(p(false, true, fp))
        .collect()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

fn grader(name: &str, weight: f64, passed: bool) -> GraderResult {
    GraderResult {
        name: name.into(),
        weight,
        passed,
    }
}

fn runs(name: &str, passes: usize, n: usize) -> Vec<Vec<GraderResult>> {
    (0..n)
        .map(|i| vec![grader(name, 1.0, i < passes)])
        .collect()
}

#[test]
fn the_record_counts_rates_and_kappa() {
    let r = record(&pairs(40, 10, 45, 5), CONFIDENCE, DEFAULT_THRESHOLD);
    assert_eq!(
        (
            r.labels,
            r.true_pass,
            r.false_fail,
            r.true_fail,
            r.false_pass
        ),
        (100, 40, 10, 45, 5)
    );
    let (tpr, tnr) = (r.tpr.unwrap(), r.tnr.unwrap());
    assert!(close(tpr.value, 0.8, 1e-12) && close(tnr.value, 0.9, 1e-12));
    // Wilson 40/50: [0.6696, 0.8876]; 45/50: [0.7864, 0.9565].
    assert!(
        close(tpr.low, 0.6696, 1e-4) && close(tpr.high, 0.8876, 1e-4),
        "{tpr:?}"
    );
    assert!(close(tnr.low, 0.7864, 1e-4), "{tnr:?}");
    // pₒ = 0.85, pₑ = 0.5·0.45 + 0.5·0.55 = 0.5: κ = 0.7.
    assert!(close(r.kappa.unwrap(), 0.7, 1e-12));
    assert!(!r.calibrated);
}

#[test]
fn calibrated_only_when_both_lower_bounds_reach_the_threshold() {
    // 16 of 16 each way: both Wilson lower bounds ≥ 0.80.
    let r = record(&pairs(16, 0, 16, 0), CONFIDENCE, DEFAULT_THRESHOLD);
    assert!(r.calibrated, "{r:?}");
    assert!(close(r.kappa.unwrap(), 1.0, 1e-12));
    // 15 of 15 is one short.
    assert!(!record(&pairs(15, 0, 16, 0), CONFIDENCE, DEFAULT_THRESHOLD).calibrated);
    // Perfect on passes, never seen a failure: not calibrated, no TNR.
    let r = record(&pairs(30, 0, 0, 0), CONFIDENCE, DEFAULT_THRESHOLD);
    assert!(!r.calibrated && r.tnr.is_none() && r.kappa.is_none());
    // A lower threshold certifies the 100-label judge of TPR 0.8 / TNR 0.9.
    assert!(record(&pairs(40, 10, 45, 5), CONFIDENCE, 0.65).calibrated);
    let held = record(&pairs(40, 10, 45, 5), CONFIDENCE, DEFAULT_THRESHOLD).at_threshold(0.65);
    assert!(held.calibrated && held.threshold == 0.65);
}

#[test]
fn labels_needed_for_the_threshold() {
    assert_eq!(labels_needed(1.0, 0.8, CONFIDENCE), Some(16));
    assert_eq!(labels_needed(0.8, 0.8, CONFIDENCE), None);
    let n = labels_needed(0.9, 0.8, CONFIDENCE).unwrap();
    assert!(wilson_at((0.9 * n as f64) as u32, n, CONFIDENCE).low >= 0.8);
    assert!(wilson_at((0.9 * (n - 1) as f64) as u32, n - 1, CONFIDENCE).low < 0.8);
    assert!(n > 16, "{n}");
}

#[test]
fn rogan_gladen_inverts_the_judge() {
    let r = record(&pairs(40, 10, 45, 5), CONFIDENCE, DEFAULT_THRESHOLD);
    let j = Judge::of(&r, CONFIDENCE).unwrap();
    // A true rate of 0.6 is seen as 0.6·0.8 + 0.4·0.1 = 0.52.
    assert!(close(j.correct(0.52), 0.6, 1e-12));
    assert!(close(j.youden(), 0.7, 1e-12));
}

#[test]
fn a_judge_no_better_than_chance_or_unlabelled_side_is_said() {
    let j =
        |tp, ff, tn, fp| Judge::of(&record(&pairs(tp, ff, tn, fp), CONFIDENCE, 0.8), CONFIDENCE);
    assert_eq!(j(5, 5, 5, 5), Err(Uncorrectable::NoBetterThanChance));
    assert_eq!(j(3, 7, 5, 5), Err(Uncorrectable::NoBetterThanChance));
    assert_eq!(j(0, 0, 5, 5), Err(Uncorrectable::NoPassLabel));
    assert_eq!(j(5, 0, 0, 0), Err(Uncorrectable::NoFailLabel));
    assert!(
        Uncorrectable::NoBetterThanChance
            .to_string()
            .contains("TPR + TNR")
    );
}

#[test]
fn unlabelled_graders_keep_the_raw_scores() {
    let case = GradedCase {
        name: "c".into(),
        with: runs("a", 2, 3),
        without: runs("a", 1, 3),
        judges: BTreeMap::new(),
    };
    let c = correct(&[case], CONFIDENCE).unwrap();
    assert!(close(c.with.value, 2.0 / 3.0, 1e-12));
    assert!(close(c.without.value, 1.0 / 3.0, 1e-12));
    assert!(close(c.delta.value, 1.0 / 3.0, 1e-12));
    assert!(c.delta.low < 0.0 && c.delta.high > c.delta.value);
    // 3 of 3 still carries run noise.
    let all = GradedCase {
        name: "c".into(),
        with: runs("a", 3, 3),
        without: runs("a", 3, 3),
        judges: BTreeMap::new(),
    };
    let c = correct(&[all], CONFIDENCE).unwrap();
    assert!(c.with.low < 0.9 && c.with.high == 1.0, "{:?}", c.with);
}

#[test]
fn a_labelled_grader_is_corrected_inside_the_weighted_score() {
    let j = Judge::of(&record(&pairs(40, 10, 45, 5), CONFIDENCE, 0.8), CONFIDENCE).unwrap();
    // Each run: a regex grader of weight 1 (always passes) and the judge of
    // weight 3 passing on half the runs: raw score 0.25 + 0.75·0.5.
    let arm: Vec<Vec<GraderResult>> = (0..10)
        .map(|i| vec![grader("re", 1.0, true), grader("judge", 3.0, i % 2 == 0)])
        .collect();
    let case = GradedCase {
        name: "c".into(),
        with: arm.clone(),
        without: arm,
        judges: BTreeMap::from([("judge".to_string(), j)]),
    };
    let c = correct(&[case], CONFIDENCE).unwrap();
    let expected = 0.25 + 0.75 * j.correct(0.5);
    assert!(close(c.with.value, expected, 1e-12), "{:?}", c.with);
    assert!(close(c.delta.value, 0.0, 1e-12));
    assert!(!c.with.clamped);
    let case = &c.cases[0];
    assert!(close(case.with.value, expected, 1e-12));
}

#[test]
fn a_correction_outside_the_range_is_clamped_and_said() {
    // The judge passes 2 of 100 truly failing runs; seen 0 of 5: the
    // correction is below 0.
    let j = Judge::of(&record(&pairs(45, 5, 98, 2), CONFIDENCE, 0.8), CONFIDENCE).unwrap();
    let case = GradedCase {
        name: "c".into(),
        with: runs("judge", 0, 5),
        without: runs("judge", 0, 5),
        judges: BTreeMap::from([("judge".to_string(), j)]),
    };
    let c = correct(&[case], CONFIDENCE).unwrap();
    assert!(c.with.clamped && c.with.value == 0.0 && c.with.low == 0.0);
    assert!(!c.delta.clamped);
}

#[test]
fn suite_numbers_are_means_of_case_numbers() {
    let a = GradedCase {
        name: "a".into(),
        with: runs("g", 3, 3),
        without: runs("g", 0, 3),
        judges: BTreeMap::new(),
    };
    let b = GradedCase {
        name: "b".into(),
        with: runs("g", 1, 2),
        without: vec![],
        judges: BTreeMap::new(),
    };
    let c = correct(&[a, b], CONFIDENCE).unwrap();
    assert!(close(c.with.value, 0.75, 1e-12));
    assert!(close(c.without.value, 0.0, 1e-12));
    assert_eq!(c.cases.len(), 1);
    assert!(correct(&[], CONFIDENCE).is_none());
}

/// The library's one generator ([`crate::stats::simulate`]): the gate's
/// Monte-Carlo tests use it too.
pub(crate) use crate::stats::simulate::SplitMix as Rng;

/// What a synthetic judge's corrected delta came to over many seeds.
#[derive(Debug)]
pub(crate) struct Coverage {
    /// Mean of corrected − true delta.
    pub(crate) bias: f64,
    /// Mean of raw − true delta.
    pub(crate) raw_bias: f64,
    /// Share of intervals holding the true delta.
    pub(crate) covered: f64,
    /// Share of seeds where the correction was undefined.
    pub(crate) undefined: f64,
}

/// A judge of TPR `tpr` / TNR `tnr` grading `runs` runs per arm of one case
/// whose true pass rates are `truth` (with, without); `labels` of those runs
/// (drawn at random over both arms) labelled with the truth; `seeds` times.
pub(crate) fn simulate(
    tpr: f64,
    tnr: f64,
    truth: (f64, f64),
    runs: usize,
    labels: usize,
    seeds: u64,
) -> Coverage {
    simulate_drawn(tpr, tnr, truth, runs, labels, seeds, Draw::Random)
}

/// How the labelled runs are drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Draw {
    /// A simple random sample of the runs.
    Random,
    /// One run from each stratum arm × judge verdict in turn (as `label`
    /// offers them), weighted back (`weighted`) or not.
    Stratified { weighted: bool },
}

/// [`simulate`] with the labels drawn as `draw` says.
pub(crate) fn simulate_drawn(
    tpr: f64,
    tnr: f64,
    truth: (f64, f64),
    runs: usize,
    labels: usize,
    seeds: u64,
    draw: Draw,
) -> Coverage {
    let (mut bias, mut raw_bias, mut covered, mut undefined) = (0.0, 0.0, 0usize, 0usize);
    let true_delta = truth.0 - truth.1;
    for seed in 0..seeds {
        let mut rng = Rng(seed.wrapping_mul(0x5851_F42D_4C95_7F2D) ^ 0x1234);
        let mut all: Vec<(bool, Pair)> = Vec::with_capacity(2 * runs);
        for (with, p) in [(true, truth.0), (false, truth.1)] {
            for _ in 0..runs {
                let human = rng.unit() < p;
                let judge = if human {
                    rng.unit() < tpr
                } else {
                    rng.unit() >= tnr
                };
                all.push((with, Pair { human, judge }));
            }
        }
        // A shuffle of the runs (Fisher–Yates); the first `labels` of them
        // are a simple random sample.
        for i in 0..all.len() {
            let j = i + (rng.unit() * (all.len() - i) as f64) as usize;
            all.swap(i, j);
        }
        let record = match draw {
            Draw::Random => {
                let labelled: Vec<Pair> = all[..labels].iter().map(|(_, p)| *p).collect();
                record(&labelled, CONFIDENCE, DEFAULT_THRESHOLD)
            }
            Draw::Stratified { weighted } => {
                let stratum = |(w, p): &(bool, Pair)| usize::from(*w) * 2 + usize::from(p.judge);
                let mut strata: Vec<Vec<Pair>> = vec![vec![]; 4];
                for r in &all {
                    strata[stratum(r)].push(r.1);
                }
                let sizes: Vec<usize> = strata.iter().map(Vec::len).collect();
                let (mut taken, mut labelled, mut from) = (vec![0usize; 4], vec![], vec![]);
                while labelled.len() < labels {
                    for (s, list) in strata.iter().enumerate() {
                        if taken[s] < list.len() && labelled.len() < labels {
                            labelled.push(list[taken[s]]);
                            from.push(s);
                            taken[s] += 1;
                        }
                    }
                }
                let weights: Vec<f64> = from
                    .iter()
                    .map(|&s| sizes[s] as f64 / taken[s] as f64)
                    .collect();
                let weights = weighted.then_some(weights.as_slice());
                record_weighted(&labelled, weights, CONFIDENCE, DEFAULT_THRESHOLD)
            }
        };
        let Ok(judge) = Judge::of(&record, CONFIDENCE) else {
            undefined += 1;
            continue;
        };
        let arm = |with: bool| -> Vec<Vec<GraderResult>> {
            all.iter()
                .filter(|(w, _)| *w == with)
                .map(|(_, p)| vec![grader("judge", 1.0, p.judge)])
                .collect()
        };
        let case = GradedCase {
            name: "c".into(),
            with: arm(true),
            without: arm(false),
            judges: BTreeMap::from([("judge".to_string(), judge)]),
        };
        let raw =
            |with: bool| arm(with).iter().filter(|r| r[0].passed).count() as f64 / runs as f64;
        raw_bias += raw(true) - raw(false) - true_delta;
        let c = correct(&[case], CONFIDENCE).unwrap();
        bias += c.delta.value - true_delta;
        covered += usize::from(c.delta.low <= true_delta && true_delta <= c.delta.high);
    }
    let n = (seeds as usize - undefined).max(1) as f64;
    Coverage {
        bias: bias / n,
        raw_bias: raw_bias / n,
        covered: covered as f64 / n,
        undefined: undefined as f64 / seeds as f64,
    }
}

#[test]
fn a_known_judge_is_corrected_to_the_truth_and_its_interval_covers_it() {
    // The judge (TPR 0.8, TNR 0.9), 100 labels, 200 runs per arm,
    // true pass rates 0.7 and 0.4 (delta 0.3; the judge sees 0.59 − 0.38 = 0.21).
    let c = simulate(0.8, 0.9, (0.7, 0.4), 200, 100, 2000);
    println!("synthetic judge TPR 0.8 / TNR 0.9, 100 labels, 200 runs per arm: {c:?}");
    assert!(c.raw_bias < -0.07, "{c:?}");
    assert!(c.bias.abs() <= 0.03, "{c:?}");
    assert!((0.93..=0.97).contains(&c.covered), "{c:?}");
    assert_eq!(c.undefined, 0.0);
}

#[test]
fn labels_drawn_by_the_judges_verdict_are_weighted_back() {
    // True rates 0.9 and 0.6: the judge passes 62.5 % of the runs, yet the
    // stratified draw gives its two verdicts equal labels. Counted straight,
    // TPR leans low and the corrected delta high; weighted back, neither.
    let straight = simulate_drawn(
        0.8,
        0.9,
        (0.9, 0.6),
        200,
        100,
        1000,
        Draw::Stratified { weighted: false },
    );
    let weighted = simulate_drawn(
        0.8,
        0.9,
        (0.9, 0.6),
        200,
        100,
        2000,
        Draw::Stratified { weighted: true },
    );
    println!("stratified, straight: {straight:?}\nstratified, weighted: {weighted:?}");
    assert!(straight.bias > 0.03, "{straight:?}");
    assert!(weighted.bias.abs() <= 0.015, "{weighted:?}");
    assert!((0.93..=0.97).contains(&weighted.covered), "{weighted:?}");
}

/// The coverage figures `docs/statistics.md` quotes, over true rates and
/// runs per arm (2000 seeds each): `cargo test --lib
/// stats::calibration::tests::coverage_grid -- --ignored --nocapture`.
#[test]
#[ignore = "figures for docs/statistics.md (a minute in a debug build)"]
fn coverage_grid() {
    for truth in [(0.7, 0.4), (0.5, 0.5), (0.9, 0.6), (0.3, 0.1)] {
        for runs in [50, 200, 1000] {
            let c = simulate(0.8, 0.9, truth, runs, 100, 2000);
            println!("{truth:?} {runs}: {c:?}");
        }
    }
}

#[test]
fn one_search_from_the_labels_given() {
    let t = DEFAULT_THRESHOLD;
    // From none: a perfect judge, 16 of each kind (15/15 is 0.796, 16/16 0.806).
    assert_eq!(labels_needed_from(0, 0, t, CONFIDENCE), Some(16));
    assert_eq!(labels_needed(1.0, t, CONFIDENCE), Some(16));
    // Reached already: the labels given.
    assert_eq!(labels_needed_from(40, 40, t, CONFIDENCE), Some(40));
    // At or under the threshold: no number.
    assert_eq!(labels_needed_from(15, 20, t, CONFIDENCE), None);
    assert_eq!(labels_needed_from(16, 20, t, CONFIDENCE), None);
    // 9 in 10: the smallest total whose bound at that rate reaches it.
    let total = labels_needed_from(18, 20, t, CONFIDENCE).unwrap();
    let at = |m: u32| wilson_at((0.9 * f64::from(m)).floor() as u32, m, CONFIDENCE).low;
    assert!(total > 20 && at(total) >= t && at(total - 1) < t, "{total}");
    // Just above the threshold the total is large, and found (up to MAX_LABELS).
    let far = labels_needed_from(17, 21, t, CONFIDENCE).unwrap();
    assert!(far > 5_000 && far < MAX_LABELS, "{far}");
    // The rate-only question is the same search from none: where the labels
    // given are not enough yet, both give the same total.
    for n in 1..=60u32 {
        for agreed in 0..=n {
            let from_rate = labels_needed(f64::from(agreed) / f64::from(n), t, CONFIDENCE);
            let reached = wilson_at(agreed, n, CONFIDENCE).low >= t;
            if !reached && from_rate.is_some_and(|m| m >= n) {
                assert_eq!(
                    labels_needed_from(agreed, n, t, CONFIDENCE),
                    from_rate,
                    "{agreed}/{n}"
                );
            }
        }
    }
}
