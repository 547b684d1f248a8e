//! `--runs auto`'s MAX planned from the minimum effect of interest: the
//! fewest runs per arm at which the design reaches 80 % power on a change
//! of `--min-effect` in the suite's delta, on the noisiest suite of its
//! size (every arm passing about half the time).
//!
//! The fixed design's runs are the textbook size
//! ([`crate::stats::runs_for_power`] at the last look's one-sided level);
//! a design that looks after every run, stops for futility and for a
//! change clearly below the margin needs more at its last look than a fixed
//! design, by a factor its looks and stops fix: the **inflation**. It is
//! measured for each design by simulation on coin-flip suites of 2, 3, 6
//! and 8 cases (`cargo bench --bench adaptive -- plan`, docs/statistics.md,
//! "The target, stated for users"), where the factor needed for 80 % power
//! was 1.47–1.55 for the default design and 1.24–1.28 for the confidence
//! mode's; each constant below rounds the largest up, so a suite of any
//! size gets at least that power.

use super::AutoPolicy;
use crate::stats::advisory::PLANNED_POWER;
use crate::stats::confidence::runs_for_variance;

/// The default design's inflation (a look after every run from 3, the
/// margin, predictive futility below 0.1).
pub const LOOKS_EVERY_RUN: f64 = 1.6;
/// The confidence mode's (looks at about 1.4 times the previous, no margin,
/// predictive futility below 0.1).
pub const CONFIDENCE_MODE: f64 = 1.35;
/// The most runs per arm plain `--runs auto` plans: what `auto:MAX` can ask.
pub const PLANNED_CAP: u32 = 100;
/// The further factor a plan from an archive takes
/// ([`AutoPolicy::for_archive`]): the shares it plans on are estimates
/// from a few runs, and a share seen further from ½ than the truth plans a
/// MAX a little short. Measured as [`LOOKS_EVERY_RUN`] was, on archives
/// of 20 runs per case (2,000 suites per point, 2, 3, 6 and 8 cases, arms
/// at 0.5, 0.3 and 0.1): at 1.6 the default design reached 79.5–79.9 % at
/// 0.3 on 2 and 3 cases, at 1.65 at least 80.8 % everywhere; 1.7 is the
/// constant, as 1.6 rounds 1.55 up.
pub const FROM_ARCHIVE: f64 = 1.7 / LOOKS_EVERY_RUN;

/// Serde's default for a policy kept before the inflation existed.
pub(super) fn looks_every_run() -> f64 {
    LOOKS_EVERY_RUN
}

/// A run's variance when nothing is known of its case: a pass share of ½.
const NOISIEST: f64 = 0.25;

impl AutoPolicy {
    /// The runs per arm this design needs for [`PLANNED_POWER`] on a change
    /// of `min_effect` over `cases` cases: the fixed design's at the last
    /// look's one-sided level, times [`AutoPolicy::inflation`], and at least
    /// one look after the first round.
    pub fn planned(&self, cases: usize, min_effect: f64) -> u32 {
        self.planned_at(NOISIEST * 2.0 / cases.max(1) as f64, min_effect, 1.0)
    }

    /// [`AutoPolicy::planned`] for a suite delta of variance `variance` / n,
    /// the inflation times `factor` (1, or [`FROM_ARCHIVE`]).
    fn planned_at(&self, variance: f64, min_effect: f64, factor: f64) -> u32 {
        let level = 1.0 - self.alpha / 2.0;
        let fixed = runs_for_variance(variance, min_effect, level, PLANNED_POWER);
        let planned = (f64::from(fixed) * self.inflation * factor).ceil() as u32;
        planned.max(self.first_round + 1)
    }

    /// The policy with MAX the runs [`AutoPolicy::planned`] needs, or the
    /// MAX it was given when that is fewer (`auto:MAX` is a cap): plain
    /// `auto` gives [`PLANNED_CAP`].
    pub fn planned_for(self, cases: usize, min_effect: f64) -> Self {
        AutoPolicy {
            max_per_arm: self.max_per_arm.min(self.planned(cases, min_effect)),
            planned_effect: Some(min_effect),
            ..self
        }
    }

    /// The policy planned again from an archive of stored without-arm runs
    /// (`stored[c]`, case c's scores; empty: none): MAX shrinks to what the
    /// same power needs on the suite the archive shows, never grows.
    ///
    /// Before any run the plan takes every arm at its noisiest (a pass
    /// share of ½). The archive shows each case's without-arm share p,
    /// smoothed as Jeffreys' (s + ½)/(n + 1) so a share seen at 0 or 1 is
    /// not taken as noiseless; that arm's variance is taken as p(1 − p) (a score in
    /// 0..1 with mean p varies at most that much), and the with arm's as
    /// the largest q(1 − q) for a share q within the minimum effect of p
    /// either way: the change planned for moves each case by that much. The
    /// inflation is taken [`FROM_ARCHIVE`] times, as those shares are
    /// estimates. A case with no stored run keeps the noisiest plan. A policy whose MAX
    /// was given as is ([`AutoPolicy::planned_effect`] `None`) is kept.
    pub fn for_archive(self, cases: usize, stored: &[Vec<f64>]) -> Self {
        let Some(d) = self.planned_effect else {
            return self;
        };
        match archive_variance(cases, stored, d) {
            Some(variance) => AutoPolicy {
                max_per_arm: self
                    .max_per_arm
                    .min(self.planned_at(variance, d, FROM_ARCHIVE)),
                ..self
            },
            None => self,
        }
    }
}

/// A pass share of `sum` in `n` runs smoothed as Jeffreys' (s + ½)/(n + 1),
/// so a share seen at 0 or 1 is not taken as noiseless: how the plan reads
/// an archive, and the futility projection an arm that looks pinned.
pub(super) fn jeffreys_share(sum: f64, n: f64) -> f64 {
    (sum + 0.5) / (n + 1.0)
}

/// A case's without-arm pass share as its archive `runs` shows it, smoothed
/// ([`jeffreys_share`]): what the plan takes it as.
fn archive_share(runs: &[f64]) -> f64 {
    jeffreys_share(runs.iter().sum(), runs.len() as f64)
}

/// A pass share `p` moved by up to `d` towards ½: the with arm's share the
/// plan keeps its power for (the noisiest within `d` of `p`).
pub fn towards_half(p: f64, d: f64) -> f64 {
    if (p - 0.5).abs() <= d {
        0.5
    } else {
        p - d * (p - 0.5).signum()
    }
}

/// The variance per run of a `cases`-case suite's delta that a change of
/// `d` planned from the archive `stored` (each case's stored without-arm
/// scores) has: what [`AutoPolicy::for_archive`] plans MAX for, and the
/// price of a decision (the dry run's and the paid run's first line) its
/// runs. `None` with no stored run (the noisiest plan holds).
pub fn archive_variance(cases: usize, stored: &[Vec<f64>], d: f64) -> Option<f64> {
    if cases == 0 || stored.iter().all(Vec::is_empty) {
        return None;
    }
    let k = cases as f64;
    let sum: f64 = (0..cases)
        .map(|c| match stored.get(c).filter(|runs| !runs.is_empty()) {
            None => 2.0 * NOISIEST,
            Some(runs) => {
                let p = archive_share(runs);
                let q = towards_half(p, d);
                p * (1.0 - p) + q * (1.0 - q)
            }
        })
        .sum();
    Some(sum / (k * k))
}

#[cfg(test)]
mod tests {
    use super::{AutoPolicy, PLANNED_CAP};

    #[test]
    fn the_plan_grows_as_the_effect_and_the_suite_shrink() {
        let p = AutoPolicy::new(PLANNED_CAP);
        // Fixed design at 97.5 % one-sided, 80 %: 50, 33, 17, 13 runs.
        let planned: Vec<u32> = [2, 3, 6, 8].iter().map(|&k| p.planned(k, 0.2)).collect();
        assert_eq!(planned, vec![80, 53, 28, 21]);
        assert!(p.planned(2, 0.1) > p.planned(2, 0.2));
        assert_eq!(p.planned(100, 0.5), p.first_round + 1);
    }

    #[test]
    fn the_confidence_mode_plans_at_its_level() {
        let at95 = AutoPolicy::for_level(PLANNED_CAP, 0.95).planned(2, 0.2);
        let at99 = AutoPolicy::for_level(PLANNED_CAP, 0.9967).planned(2, 0.2);
        // 39 fixed runs at 95 % one-sided, times 1.35.
        assert_eq!(at95, 53);
        assert!(at99 > at95);
    }

    #[test]
    fn an_archive_plans_max_again_from_the_shares_it_shows() {
        let p = AutoPolicy::new(PLANNED_CAP).planned_for(2, 0.2);
        assert_eq!(p.max_per_arm, 80);
        // Coin flips: the archive shows the noisiest suite, MAX stays near.
        let flips = vec![[1.0, 0.0].repeat(10); 2];
        let again = p.for_archive(2, &flips).max_per_arm;
        assert!((76..=80).contains(&again), "{again}");
        // Arms pinned at 0 and 1: each case's with arm planned at 1/22 ± 0.2.
        let pinned = vec![vec![0.0; 20], vec![1.0; 20]];
        let small = p.for_archive(2, &pinned).max_per_arm;
        assert!(small < again / 2 + 1, "{small}");
        // 20 fixed runs per arm for that variance, times 1.6 and FROM_ARCHIVE: 34 (32 at 1.6).
        assert_eq!(small, 34);
        // One case unknown keeps its half of the noisiest plan.
        let half = p.for_archive(2, &[vec![0.0; 20], vec![]]).max_per_arm;
        assert!(small < half && half < again, "{half}");
        // No archive, or a MAX given as is: unchanged.
        assert_eq!(p.for_archive(2, &[vec![], vec![]]), p);
        let given = AutoPolicy::new(16);
        assert_eq!(given.for_archive(2, &pinned), given);
        // A cap stays a cap: the archive never raises MAX.
        let capped = AutoPolicy::new(10).planned_for(2, 0.2);
        assert_eq!(capped.for_archive(2, &flips).max_per_arm, 10);
    }

    #[test]
    fn auto_max_is_a_cap_on_the_plan() {
        let p = AutoPolicy::new(16).planned_for(2, 0.2);
        assert_eq!(p.max_per_arm, 16);
        let wide = AutoPolicy::new(PLANNED_CAP).planned_for(8, 0.2);
        assert_eq!(wide.max_per_arm, 21);
    }
}
