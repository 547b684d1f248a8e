//! The price before paying: what a decision costs, from this store's own
//! cost per run, stated before anything is bought (`--dry-run` and the first
//! line of every paid run): "detecting +0.20 at 80 % power: about $X, at most $Y".
//! A decision the item's sequence holds stricter (`propose` or
//! `gate --record` under `--runs auto`, [`super::buying_level`]) is priced
//! at that level, and the line says so: "at 99.67 %, proposal 3 of this item".

use crate::evidence::PastCosts;
use crate::stats::AutoPolicy;
use crate::stats::adaptive::{ExpectedRuns, archive_variance, expected_runs};
use crate::stats::advisory::PLANNED_POWER;
use crate::stats::confidence::{DEFAULT_LEVEL, runs_for_variance};
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
    /// Runs per arm of each case that takes: the fixed design's at `level`
    /// ([`crate::stats::confidence::runs_for_power`]), or with stored
    /// without-arm runs the design planned from what they show
    /// ([`archive_variance`], as `--runs auto` plans its MAX).
    pub runs_per_arm: u32,
    /// Stored without-arm runs the evaluation counts, over every case: they
    /// are not bought again, so neither price counts them (absent: none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stored_without: u32,
    /// The store's mean dollars per run for this suite on the model, else
    /// for every suite on the model; `None` when it holds no run on the model.
    pub per_run_usd: Option<f64>,
    /// Where `per_run_usd` comes from: `suite` or `model`, or `rough` (no
    /// run on the model: the dry run's rough per-run estimates); absent with no cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basis: Option<String>,
    /// The runs bought for `runs_per_arm` per arm of each case (both arms,
    /// less the stored without-arm runs, plus auto's top-ups) × `per_run_usd`.
    pub about_usd: Option<f64>,
    /// The most this evaluation can spend: the runs bought for its runs per
    /// arm at most (auto's MAX, or the fixed runs), counted as `about_usd`,
    /// at `per_run_usd`, and never above the ceiling.
    pub at_most_usd: f64,
    /// Runs per arm of each case this evaluation buys at most.
    pub buys_at_most: u32,
    /// Under `--runs auto`, the runs the design is expected to buy, by
    /// simulation ([`expected_runs`]): `about_usd` prices them instead of
    /// a fixed design's, which would overstate what the looks buy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<ExpectedRuns>,
    /// The runs the two prices count, kept for [`Price::or_rough`].
    #[serde(skip)]
    bought: PricedRuns,
}

/// The runs behind each price: "about" (auto's expected runs, or a fixed
/// design's) and "at most".
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct PricedRuns {
    about: f64,
    most: u32,
    /// The evaluation's ceiling, which "at most" never passes.
    ceiling: f64,
}

impl PricedRuns {
    /// "At most" at `per_run` dollars a run: the most runs, held to the ceiling.
    fn at_most(&self, per_run: f64) -> f64 {
        crate::document::round4((per_run * f64::from(self.most)).min(self.ceiling))
    }
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
    price_held(
        costs,
        cases,
        min_effect,
        None,
        &Archive::default(),
        buys_at_most,
        ceiling,
    )
}

/// How an evaluation buys: the stored without-arm runs it counts
/// ([`crate::stats::adaptive_from`]), each case's stored scores (none:
/// empty, or `--fresh`), and the `--runs auto` design that buys, with the
/// top-up it buys beside them (none: fixed runs, which count no archive).
#[derive(Debug, Clone, Copy, Default)]
pub struct Archive<'a> {
    pub scores: &'a [Vec<f64>],
    pub auto: Option<&'a AutoPolicy>,
}

impl Archive<'_> {
    /// Runs bought for `n` per arm of each of `cases` cases: both arms,
    /// less what case c's stored without arm already holds, and at least
    /// the top-up on a case that has some.
    fn bought(&self, cases: usize, n: u32) -> u32 {
        let top_up = self.auto.map_or(0, |p| p.top_up);
        (0..cases)
            .map(|c| {
                let stored = self.scores.get(c).map_or(0, Vec::len) as u32;
                let without = if stored == 0 {
                    n
                } else {
                    n.saturating_sub(stored).max(top_up.min(n))
                };
                n + without
            })
            .sum()
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// [`price`] for a decision held to `sequence`'s level (the runs power needs
/// there), or to [`DEFAULT_LEVEL`] without one, on an evaluation that counts
/// the stored without-arm runs `archive` (their variance plans the runs,
/// and they are not bought again).
pub fn price_held(
    costs: &PastCosts,
    cases: &[String],
    min_effect: f64,
    sequence: Option<&Sequence>,
    archive: &Archive,
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
    let variance = archive_variance(k, archive.scores, min_effect).unwrap_or(0.5 / k.max(1) as f64);
    let runs = runs_for_variance(variance, min_effect, level, PLANNED_POWER);
    let expected = archive
        .auto
        .map(|policy| expected_runs(policy, k, archive.scores, min_effect));
    let bought = PricedRuns {
        about: expected.map_or_else(|| f64::from(archive.bought(k, runs)), |e| e.at_effect),
        most: archive.bought(k, buys_at_most),
        ceiling,
    };
    let round = crate::document::round4;
    Price {
        min_effect,
        power: PLANNED_POWER,
        level,
        proposal: sequence.map(|s| s.proposal),
        runs_per_arm: runs,
        stored_without: archive.scores.iter().take(k).map(|s| s.len() as u32).sum(),
        per_run_usd: per_run.map(round),
        basis: basis.map(str::to_owned),
        about_usd: per_run.map(|c| round(c * bought.about)),
        at_most_usd: per_run.map_or(round(ceiling), |c| bought.at_most(c)),
        buys_at_most,
        expected,
        bought,
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
        let round = crate::document::round4;
        self.per_run_usd = Some(round(per_run));
        self.basis = Some("rough".into());
        self.about_usd = Some(round(per_run * self.bought.about));
        self.at_most_usd = self.bought.at_most(per_run);
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
        let runs = match self.expected {
            Some(e) => format!(
                "--runs auto is expected to buy {:.0} runs at that change and {:.0} if it changes nothing (simulated), at most {}, each",
                e.at_effect, e.at_zero, self.bought.most
            ),
            None => format!("{} runs per arm of each case", self.runs_per_arm),
        };
        let Some(per_run) = self.per_run_usd else {
            let about = if self.expected.is_some() {
                ""
            } else {
                "about "
            };
            return format!(
                "{head}: {about}{runs}; no run on this model is stored yet, so no price (at most ${:.2}, the ceiling)",
                self.at_most_usd
            );
        };
        let whence = match self.basis.as_deref() {
            Some("rough") => "rough: no run on this model is stored yet".to_string(),
            basis => format!("this store's mean for this {}", basis.unwrap_or("model")),
        };
        let stored = match self.stored_without {
            0 => String::new(),
            n => format!(", {n} stored without-arm run(s) counted and not bought again"),
        };
        let about = self.about_usd.unwrap_or_default();
        let basis = format!("{runs} at ${per_run:.4} a run, {whence}{stored}");
        // "At most" is what this evaluation can spend: when that buys less
        // than the decision takes, the line says so instead of putting a
        // smaller "at most" after the "about".
        let short = self.buys_at_most < self.runs_per_arm;
        if !short && self.at_most_usd >= about {
            return format!(
                "{head}: about ${about:.2}, at most ${:.2} ({basis})",
                self.at_most_usd
            );
        }
        let by_ceiling = per_run * f64::from(self.bought.most) > self.bought.ceiling;
        let mut limits = vec![];
        if short {
            limits.push(format!("buys at most {} runs per arm", self.buys_at_most));
        }
        limits.push(if by_ceiling {
            format!("stops at its ceiling, at most ${:.2}", self.at_most_usd)
        } else {
            format!("costs at most ${:.2}", self.at_most_usd)
        });
        format!(
            "{head}: about ${about:.2} ({basis}); this evaluation {}, so it detects a change that size less often",
            limits.join(" and ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{Archive, PLANNED_POWER, Sequence, price, price_held};
    use crate::evidence::Arm;
    use crate::evidence::PastCosts;
    use crate::stats::confidence::runs_for_power;
    use crate::stats::{AutoPolicy, PLANNED_CAP};

    /// The trigger pair, fires' with arm at $0.02 a run on record.
    fn pair() -> (PastCosts, [String; 2]) {
        let mut costs = PastCosts::default();
        costs.cases.insert(("fires".into(), Arm::With), (0.20, 10));
        (costs, ["fires".to_string(), "quiet".to_string()])
    }

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
            "detecting +0.20 at 80 % power: about $3.12 (39 runs per arm of each case at $0.0200 a run, this store's mean for this suite); this evaluation buys at most 16 runs per arm and costs at most $1.28, so it detects a change that size less often"
        );
        // Held to the ceiling, which then says so: no "at most" under the "about".
        let capped = price(&costs, &cases, 0.2, 50, 2.0);
        assert_eq!(capped.at_most_usd, 2.0);
        assert_eq!(
            capped.words(),
            "detecting +0.20 at 80 % power: about $3.12 (39 runs per arm of each case at $0.0200 a run, this store's mean for this suite); this evaluation stops at its ceiling, at most $2.00, so it detects a change that size less often"
        );
        // Enough runs and money: "about $X, at most $Y".
        assert_eq!(
            price(&costs, &cases, 0.2, 50, 10.0).words(),
            "detecting +0.20 at 80 % power: about $3.12, at most $4.00 (39 runs per arm of each case at $0.0200 a run, this store's mean for this suite)"
        );
        // Nothing stored for the suite: the model's mean; nothing at all: no price.
        let p = price(&costs, &["new".to_string()], 0.2, 16, 2.0);
        assert_eq!(p.basis.as_deref(), Some("model"));
        let p = price(&PastCosts::default(), &cases, 0.2, 3, 2.0);
        assert!(p.words().contains("no price"), "{}", p.words());
    }

    #[test]
    fn stored_without_arm_runs_plan_the_runs_and_are_not_bought_again() {
        let (costs, cases) = pair();
        let fresh = price(&costs, &cases, 0.2, 80, 100.0);
        // The trigger pair's archive: fires never passes without the
        // skill, quiet always does, 20 runs each; auto tops each up by 1.
        let policy = AutoPolicy::new(PLANNED_CAP).planned_for(2, 0.2);
        let scores = vec![vec![0.0; 20], vec![1.0; 20]];
        let archive = Archive {
            scores: &scores,
            auto: Some(&policy),
        };
        let p = price_held(&costs, &cases, 0.2, None, &archive, 47, 100.0);
        // Planned from what the archive shows, as auto's MAX is: fewer runs.
        let variance = crate::stats::adaptive::archive_variance(2, &scores, 0.2).unwrap();
        assert_eq!(
            p.runs_per_arm,
            crate::stats::confidence::runs_for_variance(variance, 0.2, p.level, PLANNED_POWER)
        );
        assert!(p.runs_per_arm < fresh.runs_per_arm / 2 + 1, "{p:?}");
        // At most: each case's with arm, its without arm past the 20
        // stored, and at least the top-up.
        assert_eq!(
            p.at_most_usd,
            crate::document::round4(0.02 * f64::from(2 * (47 + 27)))
        );
        assert_eq!(p.stored_without, 40);
        assert!(
            p.words()
                .contains(", 40 stored without-arm run(s) counted and not bought again"),
            "{}",
            p.words()
        );
        // One case stored, the other not: the other buys both arms in full.
        let one = vec![vec![0.0; 20], vec![]];
        let archive = Archive {
            scores: &one,
            auto: Some(&policy),
        };
        let p = price_held(&costs, &cases, 0.2, None, &archive, 10, 100.0);
        assert_eq!(
            p.at_most_usd,
            crate::document::round4(0.02 * f64::from(10 + 1 + 10 + 10))
        );
        // A repeated evaluation buys no top-up, and is priced without one.
        let repeated = AutoPolicy {
            top_up: 0,
            ..policy
        };
        let archive = Archive {
            scores: &scores,
            auto: Some(&repeated),
        };
        let p = price_held(&costs, &cases, 0.2, None, &archive, 10, 100.0);
        assert_eq!(
            p.at_most_usd,
            crate::document::round4(0.02 * f64::from(2 * 10))
        );
        assert_eq!(fresh.stored_without, 0);
        assert!(!fresh.words().contains("stored"), "{}", fresh.words());
    }

    #[test]
    fn under_auto_about_is_what_the_design_is_expected_to_buy() {
        let (costs, cases) = pair();
        let policy = AutoPolicy::new(PLANNED_CAP).planned_for(2, 0.2);
        let scores = vec![vec![0.0; 20], vec![1.0; 20]];
        let archive = Archive {
            scores: &scores,
            auto: Some(&policy),
        };
        let most = policy.for_archive(2, &scores).max_per_arm;
        let p = price_held(&costs, &cases, 0.2, None, &archive, most, 100.0);
        let e = p.expected.expect("auto is simulated");
        assert_eq!(
            e,
            crate::stats::adaptive::expected_runs(&policy, 2, &scores, 0.2)
        );
        assert_eq!(
            p.about_usd,
            Some(crate::document::round4(0.02 * e.at_effect))
        );
        // Fixed runs are priced by the fixed design, with no simulation.
        let f = price(&costs, &cases, 0.2, most, 100.0);
        assert!(f.expected.is_none() && f.about_usd != p.about_usd);
        assert!(e.at_zero < e.at_effect && p.about_usd < Some(p.at_most_usd));
        let words = p.words();
        assert!(
            words.contains(&format!(
                "(--runs auto is expected to buy {:.0} runs at that change and {:.0} if it changes nothing (simulated), at most {}, each at $0.0200 a run",
                e.at_effect,
                e.at_zero,
                2 * (most + most.saturating_sub(20).max(1))
            )),
            "{words}"
        );
        // Without a cost on record, the runs are still said.
        let none = price_held(
            &PastCosts::default(),
            &cases,
            0.2,
            None,
            &archive,
            most,
            5.0,
        );
        assert!(
            none.words().contains("--runs auto is expected to buy")
                && none.words().contains("no price"),
            "{}",
            none.words()
        );
    }

    #[test]
    fn a_decision_held_to_its_sequence_is_priced_at_that_level() {
        let (costs, cases) = pair();
        let alpha = 0.05 * 0.8 / 12.0;
        let third = Sequence {
            proposal: 3,
            family: 0.05,
            alpha,
            carried: 0.0,
            level: 1.0 - alpha,
        };
        let plain = price(&costs, &cases, 0.2, 16, 100.0);
        let held = price_held(
            &costs,
            &cases,
            0.2,
            Some(&third),
            &Archive::default(),
            16,
            100.0,
        );
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
        let (costs, cases) = pair();
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
