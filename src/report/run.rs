//! The human summary of a `skill-eval/1` document, printed on stderr by `run`
//! (stdout carries only the JSON).

use crate::document::SkillEval;
use std::fmt::Write;

fn rate(r: Option<f64>) -> String {
    r.map_or_else(|| "—".to_string(), |r| format!("{r:.4}"))
}

fn signed(d: f64) -> String {
    if d > 0.0 {
        format!("+{d:.4}")
    } else {
        format!("{d:.4}")
    }
}

/// The fires/quiet split next to the trigger rate, with the failure in words:
/// ` (fires 0.0000, quiet 1.0000: never fired where it should)`.
fn trigger_split(doc: &SkillEval) -> String {
    if doc.fires_rate.is_none() && doc.quiet_rate.is_none() {
        return String::new();
    }
    let words = doc
        .trigger_problem()
        .map_or_else(String::new, |w| format!(": {w}"));
    format!(
        " (fires {}, quiet {}{words})",
        rate(doc.fires_rate),
        rate(doc.quiet_rate)
    )
}

/// The longest case name a table shows; a longer one ends in `…`.
const MAX_NAME: usize = 60;

/// `name`, cut to [`MAX_NAME`] characters.
fn clip(name: &str) -> std::borrow::Cow<'_, str> {
    if name.chars().count() <= MAX_NAME {
        name.into()
    } else {
        let cut: String = name.chars().take(MAX_NAME - 1).collect();
        format!("{cut}…").into()
    }
}

/// A short summary: with, without, delta, verdict, trigger rate, cost and ceiling, each case.
pub fn summary(doc: &SkillEval) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} on {} ({})", doc.item, doc.model, doc.run);
    let _ = writeln!(
        out,
        "  with {:.4}  without {:.4}  delta {}  {}",
        doc.with,
        doc.without,
        signed(doc.delta),
        doc.verdict.as_str()
    );
    let _ = writeln!(
        out,
        "  trigger rate {}{}  cost ${:.4} of ${:.4} ceiling",
        rate(doc.trigger_rate),
        trigger_split(doc),
        doc.cost_usd,
        doc.max_cost_usd
    );
    if doc.partial {
        let _ = writeln!(
            out,
            "  PARTIAL ({}): not every case ran comparably; the gate will not accept this result",
            doc.partial_reason.as_deref().unwrap_or("unspecified")
        );
    }
    let width = doc
        .cases
        .iter()
        .map(|c| clip(&c.name).chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(
        out,
        "  {:<width$}  {:>6}  {:>7}  {:>7}  {:<9}  {:>7}  {:>4}  {:>7}",
        "case", "with", "without", "delta", "verdict", "trigger", "runs", "cost"
    );
    for c in &doc.cases {
        let _ = writeln!(
            out,
            "  {:<width$}  {:>6.4}  {:>7}  {:>7}  {:<9}  {:>7}  {:>4}  {:>7}",
            clip(&c.name),
            c.with,
            c.without
                .map_or_else(|| "—".to_string(), |w| format!("{w:.4}")),
            c.delta.map_or_else(|| "—".to_string(), signed),
            c.verdict.map_or("—", |v| v.as_str()),
            rate(c.trigger_rate),
            c.runs,
            format!("${:.4}", c.cost_usd),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{CaseEval, Verdict};

    fn doc(partial: bool) -> SkillEval {
        SkillEval {
            trigger_rate: Some(0.75),
            fires_rate: None,
            quiet_rate: None,
            cost_usd: 0.4123,
            partial,
            partial_reason: partial.then(|| "cost_ceiling".into()),
            cases: vec![
                CaseEval {
                    name: "fires".into(),
                    with: 1.0,
                    without: Some(0.3333),
                    delta: Some(0.6667),
                    verdict: Some(Verdict::Improved),
                    trigger_rate: Some(1.0),
                    fires_rate: None,
                    quiet_rate: None,
                    cost_usd: 0.31,
                    runs: 6,
                    digest: None,
                    stats: None,
                },
                CaseEval {
                    name: "quiet".into(),
                    with: 0.6667,
                    without: if partial { None } else { Some(1.0) },
                    delta: if partial { None } else { Some(-0.3333) },
                    verdict: if partial {
                        None
                    } else {
                        Some(Verdict::Regressed)
                    },
                    trigger_rate: None,
                    fires_rate: None,
                    quiet_rate: None,
                    cost_usd: 0.1023,
                    runs: if partial { 3 } else { 6 },
                    digest: None,
                    stats: None,
                },
            ],
            ..SkillEval::sample(0.8333, 0.6667)
        }
    }

    #[test]
    fn summary_complete() {
        insta::assert_snapshot!(summary(&doc(false)));
    }

    #[test]
    fn summary_partial() {
        insta::assert_snapshot!(summary(&doc(true)));
    }

    #[test]
    fn a_huge_case_name_is_cut_not_a_panic() {
        let mut doc = SkillEval::sample(1.0, 0.5);
        doc.cases = vec![CaseEval {
            name: "x".repeat(70_000),
            with: 1.0,
            without: Some(0.5),
            delta: Some(0.5),
            verdict: Some(Verdict::Improved),
            trigger_rate: None,
            fires_rate: None,
            quiet_rate: None,
            cost_usd: 0.1,
            runs: 2,
            digest: None,
            stats: None,
        }];
        let text = summary(&doc);
        assert!(
            text.contains(&format!("{}…", "x".repeat(MAX_NAME - 1))),
            "{text}"
        );
        assert!(text.lines().all(|l| l.chars().count() < 200));
    }

    #[test]
    fn the_trigger_failure_is_said_in_words() {
        let mut d = doc(false);
        d.trigger_rate = Some(0.5);
        d.fires_rate = Some(0.0);
        d.quiet_rate = Some(1.0);
        let text = summary(&d);
        assert!(
            text.contains(
                "trigger rate 0.5000 (fires 0.0000, quiet 1.0000: never fired where it should)"
            ),
            "{text}"
        );
        d.fires_rate = Some(1.0);
        d.quiet_rate = Some(0.0);
        assert!(summary(&d).contains("fired where it should not"));
        d.quiet_rate = Some(1.0);
        assert!(summary(&d).contains("(fires 1.0000, quiet 1.0000)"));
    }
}
