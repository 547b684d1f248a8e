//! Human output of `bob-eval gate`: a short verdict block on stdout.

use crate::document::fmt_score;
use crate::gate::{Decision, Status};
use crate::record::Recorded;
use std::fmt::Write;

/// The verdict block: the outcome, with, without, best, trigger rate, then each
/// condition marked ✓ (held), ✗ (failed) or – (skipped) with its sentence.
pub fn render(d: &Decision) -> String {
    let mut out = String::new();
    let verdict = if d.accepted { "ACCEPTED" } else { "REJECTED" };
    let _ = writeln!(
        out,
        "{verdict}: {} on {} ({})",
        crate::text::line(&d.item),
        crate::text::line(&d.model),
        crate::text::line(&d.run)
    );
    let _ = writeln!(out, "  with          {}", fmt_score(d.with));
    let _ = writeln!(out, "  without       {}", fmt_score(d.without));
    match &d.best {
        Some(b) => {
            let _ = writeln!(
                out,
                "  best          {} ({}, {})",
                fmt_score(b.score),
                b.run,
                b.date
            );
        }
        None => {
            let _ = writeln!(out, "  best          none recorded for {}", d.model);
        }
    }
    let rate = |r: Option<f64>| r.map_or_else(|| "none".to_string(), fmt_score);
    let best_rate = d.best.as_ref().map_or_else(
        || "no best".to_string(),
        |b| format!("best {}", rate(b.trigger_rate)),
    );
    let _ = writeln!(
        out,
        "  trigger rate  {} ({best_rate})",
        rate(d.trigger_rate)
    );
    if let Some(level) = d.confidence {
        let _ = writeln!(
            out,
            "  confidence    {}: each estimated condition must also hold clearly",
            crate::gate::fmt_level(level)
        );
    }
    for c in &d.conditions {
        let mark = match c.status {
            Status::Pass => '✓',
            Status::Fail => '✗',
            Status::Skipped => '–',
        };
        match d.advice_words(c.name) {
            Some(words) if c.status != Status::Skipped => {
                let _ = writeln!(out, "  {mark} {} ({words})", c.text);
            }
            _ => {
                let _ = writeln!(out, "  {mark} {}", c.text);
            }
        }
    }
    if let Some(change) = &d.suite_change {
        let _ = writeln!(out, "  ! NOTE: {change}");
    }
    let beats_best_said = d
        .best
        .as_ref()
        .is_some_and(|b| b.score >= crate::gate::CEILING);
    if let Some(saturated) = d.saturated.as_ref().filter(|_| !beats_best_said) {
        let _ = writeln!(out, "  ! NOTE: {saturated}");
    }
    for words in &d.scored_by_trigger {
        let _ = writeln!(out, "  ! NOTE: {words}");
    }
    crate::text::block(&out).into_owned()
}

/// One line saying what `--record` wrote.
pub fn render_recorded(r: &Recorded) -> String {
    let d = &r.decision;
    let item = &d.item;
    let mut out = String::new();
    if let Some(note) = r.revised_note() {
        let _ = writeln!(out, "note: {note} (above)");
    }
    if r.raised {
        let _ = write!(
            out,
            "recorded: raised the best for {} to {} in evals/{item}/baseline.json and appended a row to wiki/skill-impact.md",
            d.model,
            fmt_score(d.with)
        );
    } else {
        let _ = write!(
            out,
            "recorded: appended a rejected row to wiki/skill-impact.md; evals/{item}/baseline.json left as it was"
        );
    }
    crate::text::block(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{Baseline, BestEntry, SkillEval};
    use crate::gate::decide;

    fn result(with: f64, trigger: Option<f64>, partial: Option<&str>) -> SkillEval {
        SkillEval {
            trigger_rate: trigger,
            partial: partial.is_some(),
            partial_reason: partial.map(str::to_string),
            ..SkillEval::sample(with, 0.6667)
        }
    }

    fn best() -> Baseline {
        let mut b = Baseline::empty("commit");
        b.best.insert(
            "claude-sonnet-5-5".into(),
            BestEntry::bare(
                0.83,
                0.67,
                Some(1.0),
                "eval-commit-20261009T084444Z",
                "2026-10-09",
            ),
        );
        b
    }

    #[test]
    fn accepted_block() {
        insta::assert_snapshot!(render(&decide(&result(0.9167, Some(1.0), None), &best())));
    }

    #[test]
    fn rejected_block_names_every_failure() {
        insta::assert_snapshot!(render(&decide(&result(0.83, Some(0.5), None), &best())));
    }

    #[test]
    fn first_baseline_and_partial() {
        insta::assert_snapshot!(render(&decide(
            &result(0.9, None, Some("cost_ceiling")),
            &Baseline::empty("commit")
        )));
    }
}
