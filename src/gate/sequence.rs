//! A decision that records, held to its item's sequence: the confidence
//! mode's bounds at the level [`crate::stats::sequence`] gives the proposal,
//! so that the chance of any false accept over the item's proposals stays
//! under the mode's α (`docs/gate.md`, "Errors over a sequence").

use super::{Decision, Mode, decide_again, effective_level, fmt_level};
use crate::document::{Baseline, SkillEval};
use crate::stats::sequence::Sequence;

/// [`decide_again`], and under the confidence mode with a `sequence`, each
/// bound held at the sequence's level for this proposal (stricter under
/// `--runs auto`'s looks by the share of the budget they took): the
/// decision states the mode's level (`confidence`) and the sequence's
/// (`sequence`). Without the mode or a sequence, [`decide_again`] as it is.
pub fn decide_in_sequence(
    result: &SkillEval,
    baseline: &Baseline,
    trust_imported: bool,
    mode: Mode,
    fresh: Option<&SkillEval>,
    sequence: Option<Sequence>,
) -> Decision {
    let (Mode::Confidence(level), Some(s)) = (mode, sequence) else {
        return decide_again(result, baseline, trust_imported, mode, fresh);
    };
    // The share of the budget auto's looks took, of the level auto planned
    // at: the mode's, or the sequence's when it bought for this decision.
    let planned = result
        .stats
        .as_ref()
        .and_then(|s| s.auto.as_ref())
        .and_then(|a| a.confidence_mode)
        .filter(|p| *p > level && *p < 1.0)
        .unwrap_or(level);
    let share = (1.0 - effective_level(result, planned)) / (1.0 - planned);
    let s = s.under_looks(share);
    Decision {
        confidence: Some(level),
        sequence: Some(s),
        ..decide_again(
            result,
            baseline,
            trust_imported,
            Mode::Confidence(s.level),
            fresh,
        )
    }
}

/// The sequence's level in words: which proposal, the level it was decided
/// at, and why (the share of the budget, what was carried, auto's looks).
pub fn sequence_words(s: &Sequence, item: &str, model: &str) -> String {
    let alpha = fmt_level(s.alpha);
    let share = fmt_level(s.own());
    let why = if s.carried > 0.0 {
        format!(
            "α {alpha}: its share {share} and the {} of proposal {}, accepted, carried forward",
            fmt_level(s.carried),
            s.proposal - 1
        )
    } else {
        format!(
            "α {alpha}, its share of the sequence's {}",
            fmt_level(s.family)
        )
    };
    let looks = if s.held_by_looks() {
        ", held stricter for --runs auto's looks"
    } else {
        ""
    };
    format!(
        "proposal {} of {item} on {model}: decided at {}{looks} ({why}) so that the chance of any false accept over its proposals stays under {}",
        s.proposal,
        fmt_level(s.level),
        fmt_level(s.family)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::sequence::Previous;

    fn noisy() -> SkillEval {
        let with = [1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0];
        let without = [0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0];
        SkillEval::measured(&[(&with, &without), (&with, &without)], None)
    }

    #[test]
    fn a_later_proposal_is_held_stricter_and_says_so() {
        let result = noisy();
        let baseline = Baseline::empty(&result.item);
        let plain = decide_again(&result, &baseline, false, Mode::Confidence(0.95), None);
        assert!(plain.accepted, "{:?}", plain.reasons());
        let s = Sequence::next(
            0.05,
            Some(Previous {
                proposal: 3,
                alpha: 0.05 / 15.0,
                accepted: false,
            }),
        );
        let held = decide_in_sequence(
            &result,
            &baseline,
            false,
            Mode::Confidence(0.95),
            None,
            Some(s),
        );
        assert_eq!(held.confidence, Some(0.95));
        assert_eq!(held.mode(), Mode::Confidence(0.95));
        assert_eq!(held.sequence.map(|s| s.proposal), Some(4));
        assert!(!held.accepted, "held at {} it is within noise", s.level);
        let words = sequence_words(&held.sequence.unwrap(), "commit", "m");
        assert!(
            words.starts_with("proposal 4 of commit on m: decided at 99.67 %")
                && words.ends_with("stays under 5 %"),
            "{words}"
        );
    }

    #[test]
    fn the_bare_rule_and_no_sequence_keep_their_level() {
        let result = noisy();
        let baseline = Baseline::empty(&result.item);
        let s = Some(Sequence::next(0.05, None));
        let bare = decide_in_sequence(&result, &baseline, false, Mode::Bare, None, s);
        assert_eq!(bare.sequence, None);
        let none = decide_in_sequence(
            &result,
            &baseline,
            false,
            Mode::Confidence(0.95),
            None,
            None,
        );
        assert_eq!(none.sequence, None);
        assert_eq!(
            none,
            decide_again(&result, &baseline, false, Mode::Confidence(0.95), None)
        );
    }

    /// Auto's looks spend the error budget of the level auto planned at: a
    /// purchase planned at the mode's level is held at the looks' share of
    /// the proposal's α, one planned at the sequence's level (`propose`)
    /// already spent its looks out of that α, so it is held where its last
    /// look was, not twice as strict.
    fn under_auto(planned: Option<f64>, last_look: f64) -> SkillEval {
        let mut result = noisy();
        let stats = result.stats.as_mut().unwrap();
        stats.confidence = last_look;
        stats.auto = Some(crate::document::AutoRounds {
            rounds: 3,
            stop: "clear".into(),
            confidence_mode: planned,
        });
        result
    }

    #[test]
    fn auto_s_looks_are_counted_against_the_level_auto_planned_at() {
        let s = Sequence::next(0.05, None);
        let held = |planned: Option<f64>, last_look: f64| {
            let result = under_auto(planned, last_look);
            let baseline = Baseline::empty(&result.item);
            decide_in_sequence(
                &result,
                &baseline,
                false,
                Mode::Confidence(0.95),
                None,
                Some(s),
            )
            .sequence
            .unwrap()
            .level
        };
        // Planned at 95 %, the last look held 97.5 % one-sided: half of the
        // mode's α, so half of the proposal's α.
        let at_mode = held(Some(0.95), 0.95);
        assert!((at_mode - (1.0 - s.alpha * 0.5)).abs() < 1e-12, "{at_mode}");
        // Planned at the proposal's own level, its last look held at
        // 1 − α/2: the decision is held there.
        let last_look = 1.0 - s.alpha;
        let at_sequence = held(Some(s.level), last_look);
        assert!(
            (at_sequence - (0.5 + last_look / 2.0)).abs() < 1e-12,
            "{at_sequence}"
        );
        // A fixed number of runs: the proposal's level as it is.
        let fixed = {
            let result = noisy();
            let baseline = Baseline::empty(&result.item);
            decide_in_sequence(
                &result,
                &baseline,
                false,
                Mode::Confidence(0.95),
                None,
                Some(s),
            )
        };
        assert_eq!(fixed.sequence.unwrap().level, s.level);
    }
}
