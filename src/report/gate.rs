//! Human output of `bob-eval gate`: a short verdict block on stdout.

use crate::document::fmt_score;
use crate::gate::{Decision, Status};
use crate::record::Recorded;
use std::fmt::Write;

/// The verdict block: the outcome, with, without, best, trigger rate, then each
/// condition marked ✓ (held), ✗ (failed) or – (skipped) with its sentence.
pub fn render(d: &Decision) -> String {
    let mut out = String::new();
    let noise = d.within_noise();
    let verdict = match (d.accepted, d.confidence, noise.as_slice()) {
        (false, ..) => "REJECTED".to_string(),
        // Under the bare rule an accept on a condition within noise may be luck: the headline says so.
        (true, None, [_, ..]) => format!(
            "ACCEPTED, but may be luck ({} within noise)",
            noise.join(" and ")
        ),
        (true, ..) => "ACCEPTED".to_string(),
    };
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
    if let Some(words) = &d.best_measured {
        let _ = writeln!(out, "  best measured {words}");
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
    match (d.confidence, d.rule) {
        (Some(level), _) => {
            let held = d.held.map_or_else(String::new, |h| {
                format!(
                    "; --runs auto stopped at look {} of a schedule fixed in advance, where each one-sided bound is held at {} so that {} holds over every look it might have made",
                    h.looks,
                    crate::gate::fmt_level(h.level),
                    crate::gate::fmt_level(level)
                )
            });
            let _ = writeln!(
                out,
                "  confidence    {}: each estimated condition must also hold clearly{held}",
                crate::gate::fmt_level(level)
            );
            if let Some(s) = &d.sequence {
                let _ = writeln!(
                    out,
                    "  sequence      {}",
                    crate::gate::sequence_words(s, &d.item, &d.model)
                );
            }
        }
        (None, crate::gate::Rule::Bare) => {
            let _ = writeln!(
                out,
                "  rule          bare, as chosen: point estimates only (a change that does nothing passes a third to half of the time on a few runs)"
            );
        }
        (None, _) => {
            let _ = writeln!(
                out,
                "  rule          bare, point estimates only: a check (--record decides at {} unless --rule bare)",
                crate::gate::fmt_level(crate::stats::confidence::DEFAULT_LEVEL)
            );
        }
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
    for step in &d.next {
        let _ = writeln!(out, "  next: {step}");
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
            partial_reason: partial.map(Into::into),
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
    fn a_lucky_accept_says_it_may_be_luck_and_what_to_run() {
        // 3 of 3 against 1 of 3 and a tie at 2 of 3: the bare rule accepts.
        let lucky = SkillEval {
            model: "claude-sonnet-5-5".into(),
            ..SkillEval::measured(
                &[
                    (&[1.0; 3], &[1.0, 0.0, 0.0]),
                    (&[1.0, 1.0, 0.0], &[1.0, 1.0, 0.0]),
                ],
                None,
            )
        };
        let d = decide(&lucky, &Baseline::empty("commit"));
        assert!(d.accepted);
        let text = render(&d);
        assert!(text.starts_with("ACCEPTED, but may be luck"), "{text}");
        assert!(
            text.contains("next: settle it on more runs: bob-eval run commit --runs"),
            "{text}"
        );
        insta::assert_snapshot!(text);
        let mode = crate::gate::decide_at(&lucky, &Baseline::empty("commit"), Some(0.95));
        insta::assert_snapshot!("lucky_under_the_mode", render(&mode));
    }

    #[test]
    fn an_accept_within_the_cost_limit_only_by_its_point_ratio_may_be_luck() {
        use crate::document::{ArmValues, CaseFigures, Efficiency};
        // Cost per run 0.022, 0.03, 0.018, 0.026 against 0.02, 0.021, 0.019,
        // 0.02: a point ratio of 1.20 under a limit of 1.5, the interval above it.
        let ones = [1.0; 4];
        let case = CaseFigures::of(
            "fires",
            [
                ArmValues {
                    with: &[0.022, 0.03, 0.018, 0.026],
                    without: &[0.02, 0.021, 0.019, 0.02],
                },
                ArmValues {
                    with: &ones,
                    without: &ones,
                },
                ArmValues {
                    with: &ones,
                    without: &ones,
                },
            ],
            0.95,
        );
        let r = SkillEval {
            efficiency: Efficiency::of(vec![case], 0, 0.95),
            ..SkillEval::measured(&[(&[1.0; 20], &[0.0; 20])], None)
        };
        let d = crate::gate::limit_cost(decide(&r, &Baseline::empty("commit")), &r, Some(1.5));
        let text = render(&d);
        assert!(
            text.starts_with("ACCEPTED, but may be luck (cost-ratio within noise)"),
            "{text}"
        );
        assert!(
            text.contains("✓ cost per run with the item is 1.20× the cost without it (the point ratio), not above the limit 1.5× (--max-cost-ratio); within noise: its 95 % interval ["),
            "{text}"
        );
    }

    #[test]
    fn first_baseline_and_partial() {
        insta::assert_snapshot!(render(&decide(
            &result(0.9, None, Some("cost_ceiling")),
            &Baseline::empty("commit")
        )));
    }
}
