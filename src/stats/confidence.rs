//! The gate's confidence mode: a comparison of the rule holds *clearly* at
//! level L when its one-sided confidence bound at L clears the tie.
//!
//! The gate asks one question in one direction ("does it help?", "is it
//! above the best?"), so a condition is checked with the one-sided bound:
//! the lower limit of the two-sided score interval at confidence 2L − 1.
//! A change that makes no difference then passes a condition with
//! probability at most 1 − L (nominally). Each comparison is a weighted sum
//! of independent arms ([`Part`]s): the new result's arms, and when the best
//! kept its runs, the best's arms with a negative weight (a two-sample
//! comparison). The best's runs cannot grow, so the runs that would settle a
//! comparison are planned for the new result's arms only.

use super::advisory::PLANNED_POWER;
use super::interval::{
    Estimate, Part, delta_interval, delta_variances, normal_quantile, score_interval, variance_at,
};
use serde::{Deserialize, Serialize};

/// Lowest level `--confidence` accepts (0.5 would be the point estimate).
pub const MIN_LEVEL: f64 = 0.6;
/// Highest level `--confidence` accepts.
pub const MAX_LEVEL: f64 = 0.9999;

/// The level a decision that records (`gate --record`, `propose`) is made at
/// when neither a flag nor the settings say otherwise: one-sided 95 %.
pub const DEFAULT_LEVEL: f64 = 0.95;

/// The rule asked for by `--rule` (or settings `_workflow.gate_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleChoice {
    /// The seed's bare rule: point estimates only, no confidence conditions.
    Bare,
    /// The confidence mode, at `--confidence` (else the setting, else [`DEFAULT_LEVEL`]).
    Confidence,
}

impl std::str::FromStr for RuleChoice {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text.trim() {
            "bare" => Ok(RuleChoice::Bare),
            "confidence" => Ok(RuleChoice::Confidence),
            other => Err(format!(
                "{other:?} is not a rule: `bare` (the seed's rule, point estimates only) or `confidence` (each condition must hold clearly)"
            )),
        }
    }
}

/// The rule a decision is made under (docs/gate.md).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Mode {
    /// The confidence mode at this one-sided level.
    Confidence(f64),
    /// The seed's bare rule, chosen by `--rule bare` or the setting: it may
    /// record (it is then recorded as such).
    Bare,
    /// The bare rule of a decision that records nothing (a check): recording
    /// it decides again under the confidence mode at [`DEFAULT_LEVEL`].
    BareCheck,
}

impl Mode {
    /// The confidence level, when the mode is in force.
    pub fn level(self) -> Option<f64> {
        match self {
            Mode::Confidence(level) => Some(level),
            _ => None,
        }
    }

    /// The mode a decision that records is made under: the same, except a
    /// check's bare rule, which becomes the confidence mode at [`DEFAULT_LEVEL`].
    pub fn for_recording(self) -> Mode {
        match self {
            Mode::BareCheck => Mode::Confidence(DEFAULT_LEVEL),
            other => other,
        }
    }
}

/// Runs per arm of each of `cases` pass/fail cases for a true change of
/// `effect` in the suite's delta to clear its one-sided bound at `level` with
/// probability `power`: `n = (z_L + z_P)² · 2·¼ / (K·effect²)`, each arm's
/// variance taken at its largest (a pass share of ½), so no suite of that
/// size needs more (a price stated before anything is known of the suite).
pub fn runs_for_power(cases: usize, effect: f64, level: f64, power: f64) -> u32 {
    if cases == 0 {
        return 0;
    }
    runs_for_variance(0.5 / cases as f64, effect, level, power)
}

/// [`runs_for_power`] for a suite delta whose variance is `variance` / n
/// with n runs per arm: `n = (z_L + z_P)² · variance / effect²`.
pub fn runs_for_variance(variance: f64, effect: f64, level: f64, power: f64) -> u32 {
    if effect <= 0.0 || variance <= 0.0 {
        return 0;
    }
    let z = normal_quantile(level) + normal_quantile(power);
    let n = z * z * variance / (effect * effect);
    n.ceil().max(1.0) as u32
}

/// Parse a `--confidence` value: a share from 0.6 to 0.9999, e.g.
/// `0.95` (`95%` is read as 0.95).
pub fn parse_level(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let (number, percent) = match t.strip_suffix('%') {
        Some(n) => (n.trim(), true),
        None => (t, false),
    };
    let value: f64 = number.parse().map_err(|_| {
        format!("{text:?} is not a confidence level: give a share such as 0.95 (or 95%)")
    })?;
    let value = if percent { value / 100.0 } else { value };
    check_level(value).map_err(|m| format!("{text:?}: {m}"))
}

/// Check a confidence level: finite, from [`MIN_LEVEL`] to [`MAX_LEVEL`].
pub fn check_level(value: f64) -> Result<f64, String> {
    if value.is_finite() && (MIN_LEVEL..=MAX_LEVEL).contains(&value) {
        Ok(value)
    } else if value > 1.0 && value <= 100.0 {
        Err(format!(
            "{value} is not a share: a confidence level is between 0.6 and 0.9999 (did you mean {}?)",
            value / 100.0
        ))
    } else {
        Err(format!(
            "{value} is not a confidence level between 0.6 and 0.9999 (e.g. 0.95)"
        ))
    }
}

/// One comparison under the mode: `Σ cᵢ·μᵢ` against a tie, one-sided.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// The estimate, with its two-sided interval at 2L − 1 (whose limits are
    /// the one-sided bounds at L).
    pub estimate: Estimate,
    /// The tie compared with (0 for a difference; a best's score or rate
    /// when it is an exact line).
    pub tie: f64,
    /// The level L.
    pub level: f64,
    /// The bound that was compared: the lower one for "clearly above", the
    /// upper one for "not clearly below".
    pub bound: f64,
    /// True when the comparison holds clearly.
    pub holds: bool,
    /// More runs per arm of each case of the new result that would make an
    /// effect of the observed size hold clearly with probability
    /// [`PLANNED_POWER`]; `None` when it holds, when the estimate points the
    /// wrong way, or when no number of new runs would (the best's own runs
    /// are too few).
    pub runs_needed: Option<u32>,
}

/// Which way a [`Check`] asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The sum is clearly above the tie (lower bound above it).
    Above,
    /// The sum is not clearly below the tie (upper bound at or above it).
    NotBelow,
}

/// Check `Σ cᵢ·μᵢ` (over `parts`) against `tie` at level `level`, one-sided.
/// `grows[i]` says whether part i belongs to the new result (more runs would
/// shrink its variance) or to the recorded best (fixed).
pub fn check(parts: &[Part], grows: &[bool], tie: f64, level: f64, side: Side) -> Check {
    let estimate = score_interval(parts, 2.0 * level - 1.0);
    judge(estimate, parts, grows, tie, level, side, false)
}

/// [`check`] that a delta (parts in pairs `withᵢ, withoutᵢ`, every part the
/// new result's) is clearly above 0: the bound is [`delta_interval`]'s, so
/// the randomisation test of "no effect" must reject too, and the runs
/// needed are planned with the larger variance of the two tests.
pub fn check_delta(parts: &[Part], level: f64) -> Check {
    let estimate = delta_interval(parts, 2.0 * level - 1.0);
    let grows = vec![true; parts.len()];
    judge(estimate, parts, &grows, 0.0, level, Side::Above, true)
}

/// A [`Check`] of `estimate` (over `parts`) against `tie`; `delta`: the
/// parts are a delta's pairs, planned as [`plan`] says.
fn judge(
    estimate: Estimate,
    parts: &[Part],
    grows: &[bool],
    tie: f64,
    level: f64,
    side: Side,
    delta: bool,
) -> Check {
    let (bound, holds) = match side {
        Side::Above => (estimate.interval.low, estimate.interval.low > tie),
        Side::NotBelow => (estimate.interval.high, estimate.interval.high >= tie),
    };
    let runs_needed = if holds || side == Side::NotBelow {
        None
    } else {
        plan(parts, grows, estimate.value - tie, level, delta)
    };
    Check {
        estimate,
        tie,
        level,
        bound,
        holds,
        runs_needed,
    }
}

/// Extra runs per arm of each case of the new result so that a true effect of
/// `gap` clears its one-sided bound at `level` with probability
/// [`PLANNED_POWER`]: `gap = (z + z_p)·√(V_fixed + V_new·n/n′)`, the
/// variances taken at the estimate; for a `delta`, each part's the larger of
/// the score test's and the randomisation test's ([`delta_variances`]),
/// since its call needs both.
pub(crate) fn plan(
    parts: &[Part],
    grows: &[bool],
    gap: f64,
    level: f64,
    delta: bool,
) -> Option<u32> {
    if gap <= 0.0 {
        return None;
    }
    let theta: f64 = parts
        .iter()
        .filter(|p| p.n > 0)
        .map(|p| p.coef * p.sum / p.n as f64)
        .sum();
    let shares = if delta {
        delta_variances(parts, theta)
    } else {
        variance_at(parts, theta)
    };
    let (mut fixed, mut new, mut runs, mut arms) = (0.0, 0.0, 0.0, 0.0);
    for ((p, v), g) in parts.iter().zip(&shares).zip(grows) {
        if *g {
            new += v;
            runs += p.n as f64;
            arms += 1.0;
        } else {
            fixed += v;
        }
    }
    if arms == 0.0 || runs == 0.0 {
        return None;
    }
    let n = runs / arms;
    let z = normal_quantile(level) + normal_quantile(PLANNED_POWER);
    let room = (gap / z).powi(2) - fixed;
    if room <= 0.0 {
        return None;
    }
    if new <= 0.0 {
        // No noise seen on the new side: one more round of the same size.
        return Some(n.ceil().max(1.0) as u32);
    }
    let extra = (n * new / room - n).ceil().max(1.0);
    Some(if extra >= f64::from(u32::MAX) {
        u32::MAX
    } else {
        extra as u32
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::interval::testing::arm;

    #[test]
    fn runs_for_power_is_the_textbook_size() {
        // z 1.645 + 0.842 = 2.486; 2.486² · 0.5 / (K · 0.04) = 77.3 / K.
        assert_eq!(runs_for_power(1, 0.2, 0.95, 0.8), 78);
        assert_eq!(runs_for_power(2, 0.2, 0.95, 0.8), 39);
        assert_eq!(runs_for_power(8, 0.2, 0.95, 0.8), 10);
        assert!(runs_for_power(2, 0.4, 0.95, 0.8) < runs_for_power(2, 0.2, 0.95, 0.8));
        assert_eq!(runs_for_power(0, 0.2, 0.95, 0.8), 0);
    }

    #[test]
    fn levels_are_shares() {
        assert_eq!(parse_level("0.95"), Ok(0.95));
        assert_eq!(parse_level("99%"), Ok(0.99));
        assert!(parse_level("95").unwrap_err().contains("did you mean 0.95"));
        for bad in ["1", "0.4", "0.5", "x", "", "NaN", "-0.9"] {
            assert!(parse_level(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn one_sided_is_the_two_sided_limit_at_2l_minus_1() {
        let parts = [Part::of(1.0, &arm(9, 10)), Part::of(-1.0, &arm(2, 10))];
        let c = check(&parts, &[true, true], 0.0, 0.95, Side::Above);
        let two = score_interval(&parts, 0.90);
        assert_eq!(c.bound, two.interval.low);
        assert!(c.holds, "{c:?}");
        // 0.7 with 10 runs a side is not clear at 99.99 %.
        let c = check(&parts, &[true, true], 0.0, 0.9999, Side::Above);
        assert!(!c.holds);
        let more = c.runs_needed.expect("a positive effect can be settled");
        assert!(more > 0, "{c:?}");
    }

    #[test]
    fn the_best_s_own_noise_bounds_what_new_runs_can_settle() {
        // 3 of 3 against a best of 2 of 3: no number of new runs makes a
        // gap of a third clear while the best rests on 3 runs.
        let new = Part::of(1.0, &arm(3, 3));
        let best = Part::of(-1.0, &arm(2, 3));
        let c = check(&[new, best], &[true, false], 0.0, 0.95, Side::Above);
        assert!(!c.holds);
        assert_eq!(c.runs_needed, None, "{c:?}");
        // Against an exact line at 2/3 more runs do settle it.
        let c = check(&[new], &[true], 2.0 / 3.0, 0.95, Side::Above);
        assert!(!c.holds && c.runs_needed.is_some(), "{c:?}");
    }

    #[test]
    fn not_below_fails_only_when_clearly_below() {
        let new = Part::of(1.0, &arm(2, 10));
        let best = Part::of(-1.0, &arm(10, 10));
        assert!(!check(&[new, best], &[true, false], 0.0, 0.95, Side::NotBelow).holds);
        let new = Part::of(1.0, &arm(9, 10));
        assert!(check(&[new, best], &[true, false], 0.0, 0.95, Side::NotBelow).holds);
    }

    #[test]
    fn a_delta_plans_with_the_randomisation_variance_too() {
        // A firing case 6/6 against 0/6 beside three coin-flip ties: the
        // randomisation test counts the firing case's passes as shuffled,
        // so settling `helps-clearly` takes more runs than the score test
        // alone would say.
        let parts: Vec<Part> = [(6, 0), (3, 3), (4, 2), (2, 4)]
            .iter()
            .flat_map(|&(w, o)| [Part::of(0.25, &arm(w, 6)), Part::of(-0.25, &arm(o, 6))])
            .collect();
        let grows = vec![true; parts.len()];
        let score = plan(&parts, &grows, 0.25, 0.975, false).unwrap();
        let both = plan(&parts, &grows, 0.25, 0.975, true).unwrap();
        assert!(both > score, "{both} against {score}");
    }
}
