//! How `--runs auto` buys: the policy (its schedule of looks, how the error
//! budget is spent over them, futility, the margin, the top-up) and the
//! confidence of every look. The driver that follows it is in the parent.

use super::plan;
use serde::{Deserialize, Serialize};

/// How the error budget is spread over the looks.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "spending", content = "value", rename_all = "kebab-case")]
pub enum Spending {
    /// Haybittle–Peto with a union bound: each interim look gets this much,
    /// the last look the rest.
    Interim(f64),
    /// The Kim–DeMets power family: α·tᵖ spent by information fraction t
    /// (runs per arm over MAX), the boundaries exact under the canonical
    /// joint normal distribution of the looks ([`super::spending`]). ρ = 1
    /// is close to Pocock's design, ρ = 3 to O'Brien and Fleming's.
    Power(f64),
}

/// The smallest change in the suite's delta `--runs auto` sets out to
/// settle: the size the benchmark's resolution counts (`docs/statistics.md`).
pub const MARGIN: f64 = crate::stats::DEFAULT_MIN_EFFECT;

/// How `--runs auto` buys runs; [`AutoPolicy::new`] gives the defaults the
/// benchmark measured (`docs/statistics.md`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AutoPolicy {
    /// Runs per arm of every case in the first round (default 3).
    pub first_round: u32,
    /// Most runs per arm of a case: `auto:MAX` (default 16).
    pub max_per_arm: u32,
    /// Each round takes the cumulative runs per arm to about this many times
    /// the previous, rounded up, and at least one more (default 1: a look
    /// after every run, 3, 4, …, 16 for MAX 16; 1.4 from 4 gives 4, 6, 9,
    /// 13, 16).
    pub growth: f64,
    /// The false-call budget over all looks (default 0.05).
    pub alpha: f64,
    /// How the budget is spread over the looks.
    pub spending: Spending,
    /// Stop when the chance of a clear call by the last look is below this
    /// (default 0.1; 0 never).
    pub futility: f64,
    /// No futility stop before a look at this many runs per arm (default 3,
    /// the first look).
    pub futility_from: u32,
    /// Futility on predictive power (the chance averaged over the effects
    /// the data leave plausible, a flat prior; default) instead of
    /// conditional power under the observed trend, which gives up sooner on
    /// a noisy first look.
    pub predictive: bool,
    /// A case whose every run of both arms scored 1 runs its with arm alone
    /// while the suite's estimate is above 0 (default on; see the module doc).
    pub allocate: bool,
    /// A case whose own delta is clear runs no more (default off: measured,
    /// it cost resolution, because the suite's test still carries the
    /// case's variance).
    pub resolve_cases: bool,
    /// After the first round, spread each round's runs (as many as the
    /// schedule would buy) over the arms that run, in proportion to each
    /// arm's estimated standard deviation with a smoothed pass share
    /// p̃ = (s + 1)/(n + 2) (Neyman allocation), an arm never past MAX and a
    /// case's without arm never given more runs than its with arm in a
    /// round (default off: measured, `docs/statistics.md`).
    #[serde(default)]
    pub neyman: bool,
    /// The pseudo-count a of Neyman allocation's smoothed pass share
    /// p̃ = (s + a)/(n + 2a) (default 1; ½ is Jeffreys', which gives an arm
    /// pinned at its end fewer runs).
    #[serde(default = "one")]
    pub neyman_prior: f64,
    /// The share of the continuity correction the suite's delta interval
    /// takes at an interim look (default 1: the full one at every look; the
    /// last look always takes the full one). Below 1 an interim look is less
    /// conservative, and a call made there may not hold on the same runs at
    /// the last look's level (measured, `docs/statistics.md`).
    #[serde(default = "one")]
    pub interim_continuity: f64,
    /// The smallest suite delta worth settling ([`MARGIN`] by default; 0
    /// none, as under the confidence mode). A look whose delta interval lies
    /// inside (−margin, margin) stops ([`Stop::Negligible`]): the change is
    /// clearly smaller than the margin either way (two one-sided tests at
    /// the look's level), so more runs would only settle an effect too
    /// small to matter, and the rule decides on the point estimates.
    #[serde(default)]
    pub margin: f64,
    /// The two-sided confidence of the margin's interval (0: the look's).
    #[serde(default)]
    pub margin_confidence: f64,
    /// Futility projects the suite's delta with each arm's larger share of
    /// the variance, the score test's or the randomisation test's, since a
    /// call needs both (default on; off, the score test's alone, as before
    /// the randomisation test).
    #[serde(default)]
    pub futility_shuffled: bool,
    /// Fresh without-arm runs the first round buys for each case that
    /// starts from stored ones ([`adaptive_from`]), paired with its first
    /// with-arm runs (default 1; at most the first round; the rest of the
    /// first round is bought on the with arm alone, `eval::plan::case_calls`):
    /// the top-up that keeps a stored without arm from freezing
    /// (`docs/statistics.md`, "The without arm from the store").
    #[serde(default)]
    pub top_up: u32,
    /// MAX over the fixed design's runs for the same power: what this
    /// design's looks, futility and margin cost ([`AutoPolicy::planned`]).
    #[serde(default = "plan::looks_every_run")]
    pub inflation: f64,
    /// The minimum effect MAX was planned for ([`AutoPolicy::planned_for`]):
    /// an archive of stored without-arm runs plans it again from what they
    /// show ([`AutoPolicy::for_archive`]). `None`: MAX as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planned_effect: Option<f64>,
}

/// Fresh without-arm runs per case an evaluation buys beside the stored
/// ones it reuses, once they have served another evaluation: auto's default
/// [`AutoPolicy::top_up`] and fixed runs' (`eval::plan::topped_up`).
pub const TOP_UP: u32 = 1;

fn one() -> f64 {
    1.0
}

impl AutoPolicy {
    /// The defaults with `max_per_arm` runs per arm at most.
    pub fn new(max_per_arm: u32) -> Self {
        AutoPolicy {
            first_round: 3,
            max_per_arm,
            growth: 1.0,
            alpha: 0.05,
            spending: Spending::Power(1.0),
            futility: 0.1,
            futility_from: 3,
            predictive: true,
            allocate: true,
            resolve_cases: false,
            neyman: false,
            neyman_prior: 1.0,
            interim_continuity: 1.0,
            margin: MARGIN,
            margin_confidence: 0.0,
            futility_shuffled: true,
            top_up: TOP_UP,
            inflation: plan::LOOKS_EVERY_RUN,
            planned_effect: None,
        }
    }

    /// The design before the fourth round of issue 24: a first round of 4,
    /// looks at about 1.4 times the previous (4, 6, 9, 13, 16 for MAX 16),
    /// predictive futility below 0.2, no margin. Still the confidence
    /// mode's schedule ([`AutoPolicy::for_level`]), and what the benchmark
    /// holds the present default against.
    pub fn growing_rounds(max_per_arm: u32) -> Self {
        AutoPolicy {
            first_round: 4,
            futility_from: 4,
            growth: 1.4,
            futility: 0.2,
            margin: 0.0,
            ..AutoPolicy::new(max_per_arm)
        }
    }

    /// The design before issue 24: looks at 2, 4, 8 and 10 runs per arm with
    /// Haybittle–Peto interim looks at 0.001 and a union bound, every arm of
    /// every open case run, a case clear on its own resolved, futility on
    /// conditional power below 0.1 from 4 runs. Kept so the benchmark and the
    /// tests can hold the present design against it.
    pub fn haybittle_peto() -> Self {
        AutoPolicy {
            first_round: 2,
            growth: 2.0,
            spending: Spending::Interim(0.001),
            futility: 0.1,
            predictive: false,
            futility_from: 4,
            allocate: false,
            resolve_cases: true,
            ..AutoPolicy::new(10)
        }
    }

    /// The defaults for the gate's confidence mode at `level`: the one-sided
    /// error budget 1 − level is the two-sided α = 2(1 − level), so the last
    /// look's one-sided level is at least `level` and a result bought this
    /// way is judged by the gate at the level it was bought for. Under the
    /// mode a futility stop is a reject, so it stops only below 10 % and
    /// never on the margin (a real gain smaller than the margin may still
    /// become clearly above 0), and its rounds grow as
    /// [`AutoPolicy::growing_rounds`]'s: measured, a look after every run
    /// accepted fewer true improvements under the mode
    /// (`docs/statistics.md`).
    pub fn for_level(max_per_arm: u32, level: f64) -> Self {
        AutoPolicy {
            alpha: 2.0 * (1.0 - level),
            futility: 0.1,
            predictive: true,
            margin: 0.0,
            inflation: plan::CONFIDENCE_MODE,
            ..AutoPolicy::growing_rounds(max_per_arm)
        }
    }

    /// The same policy planned for a minimum effect of interest `d`
    /// (`--min-effect`): a policy with a margin stops once the suite's
    /// change is clearly smaller than `d` either way; one without (the
    /// confidence mode's) keeps none.
    pub fn with_min_effect(self, d: f64) -> Self {
        AutoPolicy {
            margin: if self.margin > 0.0 { d } else { 0.0 },
            ..self
        }
    }

    /// The most stored without-arm runs of a case [`adaptive_from`] is given:
    /// the newest 2·MAX. A window, so that the top-ups renew it: with a
    /// top-up of t it is replaced within ⌈2·MAX/t⌉ evaluations (fewer when
    /// looks buy without-arm runs), and no archive's luck is shared by more
    /// of an item's decisions than that.
    pub fn stored_most(&self) -> usize {
        2 * self.max_per_arm as usize
    }

    /// The cumulative runs per arm at each look, ending at `max_per_arm`.
    pub fn schedule(&self) -> Vec<u32> {
        let max = self.max_per_arm.max(1);
        let mut n = self.first_round.clamp(1, max);
        let mut looks = vec![n];
        while n < max {
            let next = (f64::from(n) * self.growth).ceil() as u32;
            n = next.max(n + 1).min(max);
            // A last step smaller than half the previous round is folded into it.
            if n < max && max - n < (n - looks[looks.len() - 1]).div_ceil(2) {
                n = max;
            }
            looks.push(n);
        }
        looks
    }

    /// The confidence of every interval at each look: 1 − αₖ, where αₖ is
    /// the look's nominal two-sided level.
    pub fn confidences(&self) -> Result<Vec<f64>, String> {
        self.confidences_from(&[])
    }

    /// [`AutoPolicy::confidences`] when case c's without arm starts from
    /// `without[c]` runs (stored ones and the top-up; empty or 0: none).
    /// The budget is then spent by information, not by runs: at a look
    /// where the with arms have n runs and case c's without arm
    /// max(n, without[c]), the information is 1/Σ_c (1/n + 1/n_c) (the
    /// suite delta's inverse variance with every arm's variance alike), and
    /// the look's fraction is its information over the last look's. With no
    /// stored runs this is n/MAX, as before; with many, the without arm's
    /// share is already paid, and the early looks get more of the budget.
    pub fn confidences_from(&self, without: &[u32]) -> Result<Vec<f64>, String> {
        let schedule = self.schedule();
        let looks = schedule.len();
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(format!("alpha {} is not between 0 and 1", self.alpha));
        }
        let levels: Vec<f64> = match self.spending {
            Spending::Interim(interim) => {
                let last = self.alpha - interim * (looks - 1) as f64;
                if looks > 1 && !(interim > 0.0 && last >= interim) {
                    return Err(format!(
                        "{looks} looks at interim alpha {interim} leave {last} of alpha {} for the last; an interim look may not be looser than the last, or a case called clear early could read as noise at the end",
                        self.alpha
                    ));
                }
                (0..looks)
                    .map(|k| if k + 1 < looks { interim } else { last })
                    .collect()
            }
            Spending::Power(rho) => {
                if !(rho.is_finite() && rho > 0.0) {
                    return Err(format!("spending power {rho} is not above 0"));
                }
                let info = |n: u32| {
                    let n = f64::from(n);
                    if without.iter().all(|&w| f64::from(w) <= n) {
                        return n;
                    }
                    let k = without.len() as f64;
                    k / without
                        .iter()
                        .map(|&w| 1.0 / n + 1.0 / n.max(f64::from(w)))
                        .sum::<f64>()
                        * 2.0
                };
                let last = info(schedule[looks - 1]);
                let t: Vec<f64> = schedule.iter().map(|&n| info(n) / last).collect();
                let spent: Vec<f64> = t.iter().map(|t| self.alpha * t.powf(rho)).collect();
                let c = crate::stats::spending::boundaries(&t, &spent);
                c.iter()
                    .map(|c| 2.0 * crate::stats::spending::normal_upper(*c))
                    .collect()
            }
        };
        Ok(levels.into_iter().map(|a| 1.0 - a).collect())
    }
}
