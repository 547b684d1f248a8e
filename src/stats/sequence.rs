//! Errors over a sequence of decisions: the level each recorded decision of
//! an item is held to, so that the chance of *any* false accept over all of
//! the item's proposals stays under the mode's α (`docs/statistics.md`,
//! "Errors over a sequence").
//!
//! The procedure is the online fallback (Tian and Ramdas, *Online control
//! of the familywise error rate*, 2021): proposal i is decided at
//! αᵢ = α·γᵢ, plus αᵢ₋₁ when proposal i − 1 was accepted (its budget carried
//! forward). γ is fixed in advance and sums to 1, so the chance of any false
//! accept stays under α under any dependence between the decisions (a
//! weighted Bonferroni closed test). γ spreads [`EARLY`] of the budget evenly
//! over an item's first [`HORIZON`] proposals and the rest over the later
//! ones: γᵢ = EARLY/H for i ≤ H, (1 − EARLY)·H/((i − 1)·i) after.

use serde::{Deserialize, Serialize};

/// The proposals the budget is spread over evenly (the horizon the target names).
pub const HORIZON: u32 = 12;

/// The share of the budget spent over the first [`HORIZON`] proposals; the
/// rest is for later ones, so an item's 13th proposal can still be accepted.
pub const EARLY: f64 = 0.8;

/// γᵢ: the share of the sequence's α proposal `proposal` (from 1) is given.
/// Sums to 1 over all proposals.
pub fn gamma(proposal: u32) -> f64 {
    let (h, i) = (f64::from(HORIZON), f64::from(proposal));
    match proposal {
        0 => 0.0,
        p if p <= HORIZON => EARLY / h,
        _ => (1.0 - EARLY) * h / ((i - 1.0) * i),
    }
}

/// The level a decision of an item's sequence was held to, and why: what
/// the gate's output states and the store keeps beside the decision.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sequence {
    /// Its place among the item's decisions on the model that recorded under
    /// the confidence mode (1 = the first).
    pub proposal: u32,
    /// The chance of any false accept the sequence is held under (1 − the
    /// mode's level: 0.05 at 95 %).
    pub family: f64,
    /// This decision's error budget αᵢ: `family`·γᵢ plus `carried`.
    pub alpha: f64,
    /// The budget of the decision before, carried forward because it was
    /// accepted (0 otherwise).
    pub carried: f64,
    /// The one-sided level each bound was held at: 1 − `alpha`, or stricter
    /// under `--runs auto`'s looks ([`Sequence::under_looks`]).
    pub level: f64,
}

/// What the sequence needs of the decision before: its place, budget and outcome.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Previous {
    /// Its place in the sequence.
    pub proposal: u32,
    /// Its budget αᵢ₋₁.
    pub alpha: f64,
    /// Whether it was accepted (then its budget is carried forward).
    pub accepted: bool,
}

impl Sequence {
    /// The next decision of a sequence held under `family`, after `previous`
    /// (none: the first).
    pub fn next(family: f64, previous: Option<Previous>) -> Sequence {
        let proposal = previous.map_or(1, |p| p.proposal.saturating_add(1));
        let carried = previous
            .filter(|p| p.accepted)
            .map_or(0.0, |p| p.alpha.clamp(0.0, family));
        let alpha = (family * gamma(proposal) + carried).min(family);
        Sequence {
            proposal,
            family,
            alpha,
            carried,
            level: 1.0 - alpha,
        }
    }

    /// Why it cannot be a kept decision's sequence, if it cannot: a place
    /// from 1, a family in (0, 0.4] (the mode's levels), a budget within the
    /// family, what was carried within the budget, a level in (0, 1).
    pub fn problem(&self) -> Option<String> {
        let ok = self.proposal >= 1
            && self.family > 0.0
            && self.family <= 0.4
            && (0.0..=self.family).contains(&self.alpha)
            && (0.0..=self.alpha).contains(&self.carried)
            && self.level > 0.0
            && self.level < 1.0;
        (!ok).then(|| {
            format!(
                "sequence {{proposal {}, family {}, alpha {}, carried {}, level {}}} is not a sequence's place and level",
                self.proposal, self.family, self.alpha, self.carried, self.level
            )
        })
    }

    /// Its own share of the budget, without what was carried: the most this
    /// decision adds to the chance of a false accept in a sequence where no
    /// proposal did anything (nothing accepted before it rightly).
    pub fn own(&self) -> f64 {
        (self.alpha - self.carried).max(0.0)
    }

    /// Held under `--runs auto`'s looks: the looks spent part of the budget
    /// ([`crate::stats::AutoPolicy::for_level`]), so the bound is held at the
    /// share of αᵢ that the look auto stopped at holds of the mode's own α:
    /// `share` = (1 − the held level) / (1 − the mode's level), 1 without auto.
    pub fn under_looks(self, share: f64) -> Sequence {
        Sequence {
            level: 1.0 - self.alpha * share.clamp(0.0, 1.0),
            ..self
        }
    }

    /// Under `--runs auto`: whether the level is stricter than 1 − αᵢ.
    pub fn held_by_looks(&self) -> bool {
        self.level > 1.0 - self.alpha + 1e-12
    }
}

/// The chance of at least one false accept over decisions each of which,
/// had its change done nothing, accepts with probability at most `risks[i]`:
/// 1 − ∏(1 − rᵢ) for independent decisions (each on its own fresh runs).
pub fn any_false_accept(risks: &[f64]) -> f64 {
    1.0 - risks
        .iter()
        .map(|r| 1.0 - r.clamp(0.0, 1.0))
        .product::<f64>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_sums_to_one_and_spreads_the_early_share_over_the_horizon() {
        let first: f64 = (1..=HORIZON).map(gamma).sum();
        assert!((first - EARLY).abs() < 1e-12, "{first}");
        let all: f64 = (1..=1_000_000).map(gamma).sum();
        assert!(all <= 1.0 + 1e-12 && all > 0.9999, "{all}");
        assert_eq!(gamma(0), 0.0);
        assert!(gamma(HORIZON + 1) < gamma(HORIZON));
        assert!((2..200).all(|i| gamma(i) <= gamma(i - 1)));
    }

    #[test]
    fn a_sequence_of_rejects_spends_its_share_and_stays_under_family() {
        let mut previous = None;
        let mut spent = 0.0;
        for i in 1..=12 {
            let s = Sequence::next(0.05, previous);
            assert_eq!(s.proposal, i);
            assert_eq!(s.carried, 0.0);
            assert!((s.alpha - 0.05 * EARLY / 12.0).abs() < 1e-12);
            assert!((s.level - (1.0 - s.alpha)).abs() < 1e-15);
            spent += s.alpha;
            previous = Some(Previous {
                proposal: s.proposal,
                alpha: s.alpha,
                accepted: false,
            });
        }
        assert!((spent - 0.05 * EARLY).abs() < 1e-12, "{spent}");
        assert!(Sequence::next(0.05, previous).alpha < 0.05 * EARLY / 12.0);
    }

    #[test]
    fn an_accept_carries_its_budget_to_the_next() {
        let first = Sequence::next(0.05, None);
        let after_accept = Sequence::next(
            0.05,
            Some(Previous {
                proposal: 1,
                alpha: first.alpha,
                accepted: true,
            }),
        );
        assert_eq!(after_accept.proposal, 2);
        assert!((after_accept.carried - first.alpha).abs() < 1e-15);
        assert!((after_accept.alpha - 2.0 * first.alpha).abs() < 1e-15);
        assert!((after_accept.own() - first.alpha).abs() < 1e-15);
        let after_reject = Sequence::next(
            0.05,
            Some(Previous {
                proposal: 1,
                alpha: first.alpha,
                accepted: false,
            }),
        );
        assert_eq!(after_reject.carried, 0.0);
        // A chain of accepts never gives one decision more than the family.
        let mut s = first;
        for _ in 0..100 {
            s = Sequence::next(
                0.05,
                Some(Previous {
                    proposal: s.proposal,
                    alpha: s.alpha,
                    accepted: true,
                }),
            );
        }
        assert!(s.alpha <= 0.05 && s.alpha > 0.04);
    }

    #[test]
    fn a_sequence_out_of_range_is_named() {
        assert_eq!(Sequence::next(0.05, None).problem(), None);
        let bad = Sequence {
            alpha: 0.5,
            ..Sequence::next(0.05, None)
        };
        assert!(bad.problem().unwrap().contains("alpha 0.5"));
        let last = Previous {
            proposal: u32::MAX,
            alpha: 0.0,
            accepted: false,
        };
        assert_eq!(Sequence::next(0.05, Some(last)).proposal, u32::MAX);
    }

    #[test]
    fn auto_s_looks_hold_the_bound_stricter() {
        let s = Sequence::next(0.05, None);
        assert!(!s.held_by_looks());
        let held = s.under_looks(0.5);
        assert!((1.0 - held.level - s.alpha / 2.0).abs() < 1e-15);
        assert!(held.held_by_looks());
        assert_eq!(held.alpha, s.alpha);
    }

    #[test]
    fn any_false_accept_compounds() {
        assert_eq!(any_false_accept(&[]), 0.0);
        assert!((any_false_accept(&[0.5; 2]) - 0.75).abs() < 1e-15);
        let twelve = any_false_accept(&[0.015; 12]);
        assert!((twelve - 0.166).abs() < 0.001, "{twelve}");
    }
}
