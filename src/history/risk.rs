//! Errors over an item's sequence of recorded decisions, from the decisions
//! the evidence store keeps: the level the next decision under the
//! confidence mode is held to ([`next_in_sequence`]), and the running risk
//! `history` states ([`running_risk`]) (`docs/statistics.md`, "Errors over a
//! sequence").

use crate::evidence::{KeptDecision, MODE_RULE};
use crate::stats::sequence::{Previous, Sequence, any_false_accept};
use crate::wiki::Outcome;
use serde::Serialize;

/// The chance that the bare rule accepts a change that does nothing, at
/// most: it accepts any estimate above, a one-sided test at 50 % (ties, on
/// few runs, only lower it).
pub const BARE_RISK: f64 = 0.5;

/// The decisions of `item` on `model` (canonical names) that recorded in the
/// sequence, in the order recorded.
fn in_sequence<'a>(
    decisions: &'a [KeptDecision],
    item: &'a str,
    model: &'a str,
) -> impl Iterator<Item = (&'a KeptDecision, Sequence)> + 'a {
    decisions
        .iter()
        .filter(move |d| d.item == item && crate::config::canonical_model(&d.model) == model)
        .filter_map(|d| d.sequence.map(|s| (d, s)))
}

/// The level the next decision of `item` on `model` that records under the
/// confidence mode is held to, the sequence held under `family` (1 − the
/// mode's level), from the item's decisions kept so far (`decisions`, in the
/// order recorded, as [`crate::evidence::Store::decisions`] reads them).
/// Decisions recorded before the sequence was kept, and those of the bare
/// rule, are not in it ([`running_risk`] counts them).
pub fn next_in_sequence(
    decisions: &[KeptDecision],
    item: &str,
    model: &str,
    family: f64,
) -> Sequence {
    let model = crate::config::canonical_model(model);
    let mut count = 0;
    let mut last: Option<(&KeptDecision, Sequence)> = None;
    for (d, s) in in_sequence(decisions, item, &model) {
        count += 1;
        if last.is_none_or(|(l, _)| d.recorded_at >= l.recorded_at) {
            last = Some((d, s));
        }
    }
    let previous = last.map(|(d, s)| Previous {
        // Decisions collected from several stores may repeat a number:
        // never give two the same place.
        proposal: s.proposal.max(count),
        alpha: s.alpha,
        accepted: d.outcome == Outcome::Accepted,
    });
    Sequence::next(family, previous)
}

/// The running risk of an item's recorded decisions on one model: the
/// chance of at least one false accept had none of its proposals changed
/// anything (`history`, terminal and `--json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunningRisk {
    /// Decisions recorded under the seed's bare rule.
    pub bare: usize,
    /// Decisions recorded under the confidence mode before the sequence was
    /// kept, each at its level alone.
    pub confidence: usize,
    /// Decisions recorded in the confidence mode's sequence.
    pub in_sequence: usize,
    /// 1 − ∏(1 − rᵢ), rᵢ the most each decision accepts a change that does
    /// nothing: [`BARE_RISK`] under the bare rule, 1 − its level under the
    /// confidence mode, its own share of the budget in the sequence.
    pub risk: f64,
    /// The chance the sequence is held under, when every decision is in it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held_under: Option<f64>,
    /// The same in words.
    pub words: String,
}

/// The running risk of the decisions of `item` on `model` among
/// `decisions`; `None` when none was recorded.
pub fn running_risk(decisions: &[KeptDecision], item: &str, model: &str) -> Option<RunningRisk> {
    let model = crate::config::canonical_model(model);
    let mine: Vec<&KeptDecision> = decisions
        .iter()
        .filter(|d| d.item == item && crate::config::canonical_model(&d.model) == model)
        .collect();
    if mine.is_empty() {
        return None;
    }
    let (mut bare, mut confidence, mut in_sequence) = (0, 0, 0);
    let mut family: Option<f64> = None;
    let risks: Vec<f64> = mine
        .iter()
        .map(|d| match (&d.sequence, d.mode.as_str()) {
            (Some(s), _) => {
                in_sequence += 1;
                family = Some(family.map_or(s.family, |f: f64| f.max(s.family)));
                s.own()
            }
            (None, MODE_RULE) => {
                bare += 1;
                BARE_RISK
            }
            (None, mode) => {
                confidence += 1;
                mode.strip_prefix("confidence:")
                    .and_then(|l| l.parse::<f64>().ok())
                    .map_or(BARE_RISK, |level| 1.0 - level)
            }
        })
        .collect();
    let risk = any_false_accept(&risks);
    let held_under = family.filter(|_| bare == 0 && confidence == 0);
    let pct = crate::gate::fmt_level;
    let mut kinds = Vec::new();
    if bare > 0 {
        kinds.push(format!(
            "{bare} decided under the bare rule (each accepts a change that does nothing up to half the time)"
        ));
    }
    if confidence > 0 {
        kinds.push(format!(
            "{confidence} under the confidence mode before the sequence was kept (each at its own level)"
        ));
    }
    if in_sequence > 0 {
        kinds.push(format!("{in_sequence} in the confidence mode's sequence"));
    }
    let n = mine.len();
    let plural = if n == 1 { "proposal" } else { "proposals" };
    let held = held_under.map_or_else(String::new, |f| {
        format!(", held under {} however many follow", pct(f))
    });
    let words = format!(
        "{n} {plural} recorded on {model}: {}: chance of at least one false accept, had none of them changed anything, up to ~{}{held} (1 − ∏(1 − each decision's most))",
        kinds.join(", "),
        pct(risk)
    );
    Some(RunningRisk {
        bare,
        confidence,
        in_sequence,
        risk,
        held_under,
        words,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, Utc};

    fn decision(at: i64, mode: &str, outcome: Outcome, sequence: Option<Sequence>) -> KeptDecision {
        KeptDecision {
            run: format!("eval-commit-{at}"),
            item: "commit".into(),
            model: "claude-sonnet-5-5".into(),
            date: "2026-12-01".into(),
            mode: mode.into(),
            rule: vec![],
            outcome,
            pr: "#1".into(),
            pages: vec![],
            before: None,
            after: 0.5,
            best_after: None,
            recorded_at: DateTime::<Utc>::from_timestamp(1_796_000_000 + at, 0).unwrap(),
            sequence,
            provenance: Default::default(),
        }
    }

    #[test]
    fn the_next_level_follows_the_kept_sequence() {
        let first = next_in_sequence(&[], "commit", "claude-sonnet-5-5", 0.05);
        assert_eq!(first, Sequence::next(0.05, None));
        let mut kept = vec![
            // The bare rule's and another item's decisions are not in it.
            decision(1, MODE_RULE, Outcome::Accepted, None),
            decision(2, "confidence:0.95", Outcome::Rejected, Some(first)),
        ];
        let mut other = decision(3, "confidence:0.95", Outcome::Accepted, Some(first));
        other.item = "review".into();
        kept.push(other);
        let second = next_in_sequence(&kept, "commit", "claude-sonnet-5-5", 0.05);
        assert_eq!((second.proposal, second.carried), (2, 0.0));
        kept.push(decision(
            4,
            "confidence:0.95",
            Outcome::Accepted,
            Some(second),
        ));
        let third = next_in_sequence(&kept, "commit", "claude-sonnet-5-5", 0.05);
        assert_eq!(third.proposal, 3);
        assert!((third.carried - second.alpha).abs() < 1e-15);
        // Another model has a sequence of its own.
        let elsewhere = next_in_sequence(&kept, "commit", "claude-opus-5", 0.05);
        assert_eq!(elsewhere.proposal, 1);
    }

    #[test]
    fn the_bare_rule_s_running_risk_is_stated() {
        let kept: Vec<KeptDecision> = (0..12)
            .map(|i| decision(i, MODE_RULE, Outcome::Rejected, None))
            .collect();
        let r = running_risk(&kept, "commit", "claude-sonnet-5-5").unwrap();
        assert_eq!((r.bare, r.confidence, r.in_sequence), (12, 0, 0));
        assert!((r.risk - (1.0 - 0.5f64.powi(12))).abs() < 1e-12);
        assert_eq!(r.held_under, None);
        assert!(
            r.words.starts_with(
                "12 proposals recorded on claude-sonnet-5-5: 12 decided under the bare rule"
            ) && r.words.contains("up to ~99.98 %"),
            "{}",
            r.words
        );
        assert_eq!(running_risk(&kept, "review", "claude-sonnet-5-5"), None);
    }

    #[test]
    fn a_sequence_s_running_risk_stays_under_its_family() {
        let mut kept = Vec::new();
        for i in 0..12 {
            let s = next_in_sequence(&kept, "commit", "claude-sonnet-5-5", 0.05);
            kept.push(decision(i, "confidence:0.95", Outcome::Rejected, Some(s)));
        }
        let r = running_risk(&kept, "commit", "claude-sonnet-5-5").unwrap();
        assert_eq!(r.in_sequence, 12);
        assert!(r.risk < 0.05 * crate::stats::sequence::EARLY, "{}", r.risk);
        assert_eq!(r.held_under, Some(0.05));
        assert!(r.words.contains("held under 5 %"), "{}", r.words);
        kept.push(decision(20, "confidence:0.9", Outcome::Rejected, None));
        let mixed = running_risk(&kept, "commit", "claude-sonnet-5-5").unwrap();
        assert_eq!((mixed.confidence, mixed.held_under), (1, None));
        assert!(mixed.risk > r.risk + 0.09);
    }
}
