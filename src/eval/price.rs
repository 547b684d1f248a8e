//! The price before paying: what a decision costs, from this store's own
//! cost per run, stated before anything is bought (`--dry-run` and the first
//! line of every paid run): "detecting +0.20 at 80 % power: about $X, at most $Y".
//! A decision the item's sequence holds stricter (`propose` or
//! `gate --record` under `--runs auto`, [`super::buying_level`]) is priced
//! at that level, and the line says so: "at 99.67 %, proposal 3 of this item".

use crate::evidence::PastCosts;
use crate::stats::advisory::PLANNED_POWER;
use crate::stats::confidence::{DEFAULT_LEVEL, runs_for_power};
use crate::stats::sequence::Sequence;
use serde::{Deserialize, Serialize};

/// What a decision on a suite costs at the minimum effect of interest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// The smallest change worth detecting: `--min-effect`, settings
    /// `_workflow.min_effect`, else [`crate::stats::DEFAULT_MIN_EFFECT`].
    pub min_effect: f64,
    /// The chance of calling a change of that size clear.
    pub power: f64,
    /// The one-sided level the call is made at (a decision that records):
    /// the mode's default, or the level the item's sequence holds it to.
    pub level: f64,
    /// The decision's place in the item's sequence, when `level` is the
    /// sequence's ([`crate::stats::sequence`]); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposal: Option<u32>,
    /// Runs per arm of each case that takes ([`runs_for_power`]).
    pub runs_per_arm: u32,
    /// The store's mean dollars per run for this suite on the model, else
    /// for every suite on the model; `None` when it holds no run on the model.
    pub per_run_usd: Option<f64>,
    /// Where `per_run_usd` comes from: `suite` or `model`, or `rough` (no
    /// run on the model: the dry run's rough per-run estimates); absent with no cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basis: Option<String>,
    /// `runs_per_arm` × 2 arms × the cases × `per_run_usd`.
    pub about_usd: Option<f64>,
    /// The most this evaluation can spend: its runs per arm at most (auto's
    /// MAX, or the fixed runs) at `per_run_usd`, and never above the ceiling.
    pub at_most_usd: f64,
    /// Runs per arm of each case this evaluation buys at most.
    pub buys_at_most: u32,
}

/// The price of detecting a change of `min_effect` on the suite `cases`
/// (names) on the model whose past costs are `costs`, for an evaluation that
/// buys at most `buys_at_most` runs per arm of each case under `ceiling` dollars.
pub fn price(
    costs: &PastCosts,
    cases: &[String],
    min_effect: f64,
    buys_at_most: u32,
    ceiling: f64,
) -> Price {
    price_held(costs, cases, min_effect, None, buys_at_most, ceiling)
}

/// [`price`] for a decision held to `sequence`'s level (the runs power needs
/// there), or to [`DEFAULT_LEVEL`] without one.
pub fn price_held(
    costs: &PastCosts,
    cases: &[String],
    min_effect: f64,
    sequence: Option<&Sequence>,
    buys_at_most: u32,
    ceiling: f64,
) -> Price {
    let (usd, n) = costs
        .cases
        .iter()
        .filter(|((case, _), _)| cases.contains(case))
        .fold((0.0, 0u64), |(u, n), (_, (cu, cn))| (u + cu, n + cn));
    let (per_run, basis) = if n > 0 {
        (Some(usd / n as f64), Some("suite"))
    } else if costs.model.1 > 0 {
        (Some(costs.model.0 / costs.model.1 as f64), Some("model"))
    } else {
        (None, None)
    };
    let k = cases.len();
    let level = sequence.map_or(DEFAULT_LEVEL, |s| s.level);
    let runs = runs_for_power(k, min_effect, level, PLANNED_POWER);
    let runs_of = |per_arm: u32| f64::from(per_arm) * 2.0 * k as f64;
    let round = crate::document::round4;
    Price {
        min_effect,
        power: PLANNED_POWER,
        level,
        proposal: sequence.map(|s| s.proposal),
        runs_per_arm: runs,
        per_run_usd: per_run.map(round),
        basis: basis.map(str::to_owned),
        about_usd: per_run.map(|c| round(c * runs_of(runs))),
        at_most_usd: round(per_run.map_or(ceiling, |c| (c * runs_of(buys_at_most)).min(ceiling))),
        buys_at_most,
    }
}

impl Price {
    /// With no run on the model stored, priced at the mean of `e`'s rough
    /// per-run estimates ([`super::rates`]) rather than not at all.
    pub fn or_rough(mut self, e: &super::estimate::ItemEstimate) -> Self {
        if self.per_run_usd.is_some() {
            return self;
        }
        let per_runs: Vec<f64> = e
            .cases
            .iter()
            .flat_map(|c| c.arms.iter().filter_map(|a| a.per_run_usd))
            .collect();
        if per_runs.is_empty() {
            return self;
        }
        let per_run = per_runs.iter().sum::<f64>() / per_runs.len() as f64;
        let k = e.cases.len() as f64;
        let runs_of = |per_arm: u32| f64::from(per_arm) * 2.0 * k;
        let round = crate::document::round4;
        self.per_run_usd = Some(round(per_run));
        self.basis = Some("rough".into());
        self.about_usd = Some(round(per_run * runs_of(self.runs_per_arm)));
        self.at_most_usd = round((per_run * runs_of(self.buys_at_most)).min(self.at_most_usd));
        self
    }

    /// In words: `detecting +0.20 at 80 % power: about $X, at most $Y (…)`,
    /// with `at 99.67 %, proposal 3 of this item` after the power when the
    /// decision is held to its sequence's level.
    pub fn words(&self) -> String {
        let held = match self.proposal {
            Some(proposal) => format!(
                " at {}, proposal {proposal} of this item",
                crate::gate::fmt_level(self.level)
            ),
            None => String::new(),
        };
        let head = format!(
            "detecting +{:.2} at {:.0} % power{held}",
            self.min_effect,
            self.power * 100.0
        );
        let Some(per_run) = self.per_run_usd else {
            return format!(
                "{head}: about {} runs per arm of each case; no run on this model is stored yet, so no price (at most ${:.2}, the ceiling)",
                self.runs_per_arm, self.at_most_usd
            );
        };
        let short = if self.buys_at_most < self.runs_per_arm {
            format!(
                "; this evaluation buys at most {} per arm, so it detects a change that size less often",
                self.buys_at_most
            )
        } else {
            String::new()
        };
        let whence = match self.basis.as_deref() {
            Some("rough") => "rough: no run on this model is stored yet".to_string(),
            basis => format!("this store's mean for this {}", basis.unwrap_or("model")),
        };
        format!(
            "{head}: about ${:.2}, at most ${:.2} ({} runs per arm of each case at ${per_run:.4} a run, {whence}{short})",
            self.about_usd.unwrap_or_default(),
            self.at_most_usd,
            self.runs_per_arm,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{PLANNED_POWER, Sequence, price, price_held, runs_for_power};
    use crate::evidence::Arm;
    use crate::evidence::PastCosts;

    #[test]
    fn the_price_is_the_store_s_cost_per_run_times_the_runs_power_needs() {
        let mut costs = PastCosts::default();
        costs.cases.insert(("fires".into(), Arm::With), (0.30, 10));
        costs
            .cases
            .insert(("quiet".into(), Arm::Without), (0.10, 10));
        costs
            .cases
            .insert(("other-suite".into(), Arm::With), (9.0, 1));
        costs.model = (9.4, 21);
        let cases = ["fires".to_string(), "quiet".to_string()];
        let p = price(&costs, &cases, 0.2, 16, 2.0);
        // 39 runs per arm × 2 arms × 2 cases at $0.02.
        assert_eq!((p.runs_per_arm, p.per_run_usd), (39, Some(0.02)));
        assert_eq!(p.about_usd, Some(3.12));
        assert_eq!(p.at_most_usd, 1.28, "16 × 2 × 2 × 0.02");
        assert_eq!(
            p.words(),
            "detecting +0.20 at 80 % power: about $3.12, at most $1.28 (39 runs per arm of each case at $0.0200 a run, this store's mean for this suite; this evaluation buys at most 16 per arm, so it detects a change that size less often)"
        );
        // Held to the ceiling.
        assert_eq!(price(&costs, &cases, 0.2, 50, 2.0).at_most_usd, 2.0);
        // Nothing stored for the suite: the model's mean; nothing at all: no price.
        let p = price(&costs, &["new".to_string()], 0.2, 16, 2.0);
        assert_eq!(p.basis.as_deref(), Some("model"));
        let p = price(&PastCosts::default(), &cases, 0.2, 3, 2.0);
        assert!(p.words().contains("no price"), "{}", p.words());
    }

    #[test]
    fn a_decision_held_to_its_sequence_is_priced_at_that_level() {
        let mut costs = PastCosts::default();
        costs.cases.insert(("fires".into(), Arm::With), (0.20, 10));
        let cases = ["fires".to_string(), "quiet".to_string()];
        let alpha = 0.05 * 0.8 / 12.0;
        let third = Sequence {
            proposal: 3,
            family: 0.05,
            alpha,
            carried: 0.0,
            level: 1.0 - alpha,
        };
        let plain = price(&costs, &cases, 0.2, 16, 100.0);
        let held = price_held(&costs, &cases, 0.2, Some(&third), 16, 100.0);
        assert_eq!((held.level, held.proposal), (1.0 - alpha, Some(3)));
        assert_eq!(
            held.runs_per_arm,
            runs_for_power(2, 0.2, 1.0 - alpha, PLANNED_POWER)
        );
        // About twice the runs of a decision at 95 % (docs/statistics.md).
        let ratio = f64::from(held.runs_per_arm) / f64::from(plain.runs_per_arm);
        assert!(ratio > 1.8 && ratio < 2.3, "{ratio}");
        assert!(
            held.words().starts_with(
                "detecting +0.20 at 80 % power at 99.67 %, proposal 3 of this item: about $"
            ),
            "{}",
            held.words()
        );
        assert_eq!(plain.proposal, None);
        assert!(!plain.words().contains("proposal"), "{}", plain.words());
    }

    #[test]
    fn the_price_is_for_the_minimum_effect_asked() {
        let mut costs = PastCosts::default();
        costs.cases.insert(("fires".into(), Arm::With), (0.20, 10));
        let cases = ["fires".to_string(), "quiet".to_string()];
        let at = |d: f64| price(&costs, &cases, d, 16, 100.0);
        // Runs per arm scale as 1/d²: half the effect, four times the runs.
        let (fifth, tenth) = (at(0.2), at(0.1));
        assert_eq!((fifth.min_effect, tenth.min_effect), (0.2, 0.1));
        assert!(
            tenth.runs_per_arm >= 4 * fifth.runs_per_arm - 3,
            "{} vs {}",
            tenth.runs_per_arm,
            fifth.runs_per_arm
        );
        assert!(tenth.about_usd > fifth.about_usd);
        assert!(
            tenth
                .words()
                .starts_with("detecting +0.10 at 80 % power: about $"),
            "{}",
            tenth.words()
        );
        assert!(at(0.35).runs_per_arm < fifth.runs_per_arm);
    }
}
