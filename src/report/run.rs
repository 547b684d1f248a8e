//! The human summary of a `skill-eval/1` document, printed on stderr by `run`
//! (stdout carries only the JSON).

use crate::document::{ArmCount, CaseEval, GraderEval, SkillEval};
use std::fmt::Write;

/// A rate to 4 decimals, `—` when absent (also the sweep's table).
pub(crate) fn rate(r: Option<f64>) -> String {
    r.map_or_else(|| "—".to_string(), |r| format!("{r:.4}"))
}

/// A delta to 4 decimals with its sign (also the sweep's table).
pub(crate) fn signed(d: f64) -> String {
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

/// The graders of `case` that failed on some run, errors first.
pub fn failed_graders(case: &CaseEval) -> Vec<&GraderEval> {
    let mut failed: Vec<&GraderEval> = case
        .graders
        .iter()
        .flatten()
        .filter(|g| g.failed())
        .collect();
    failed.sort_by_key(|g| !g.error);
    failed
}

fn count(c: ArmCount) -> String {
    format!("{}/{}", c.passed, c.runs)
}

/// One failed grader in one line: `✗ subject (scored) with 2/2, without 0/2:
/// pattern not found`; a grader that threw is marked `!` and called a suite error.
pub fn grader_line(g: &GraderEval) -> String {
    let kind = g.kind.as_str();
    let without = g
        .without
        .map_or_else(String::new, |w| format!(", without {}", count(w)));
    let why = g.why();
    if g.error {
        let why = why
            .trim_start()
            .strip_prefix(crate::reduce::GRADER_THREW)
            .map_or(why, str::trim_start);
        format!(
            "! {} ({kind}) with {}{without}: the grader threw, an error of the suite (not the model failing): {why}",
            clip(&g.name),
            count(g.with)
        )
    } else {
        format!(
            "✗ {} ({kind}) with {}{without}: {why}",
            clip(&g.name),
            count(g.with)
        )
    }
}

/// A short summary: with, without, delta, verdict, trigger rate, cost and
/// ceiling, each case and, under it, each grader that failed and why.
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
    let errors: Vec<(&str, &str)> = doc
        .cases
        .iter()
        .flat_map(|c| {
            c.grader_errors()
                .map(|g| (c.name.as_str(), g.name.as_str()))
        })
        .collect();
    if !errors.is_empty() {
        let names: Vec<String> = errors
            .iter()
            .map(|(case, grader)| format!("{}/{}", clip(case), clip(grader)))
            .collect();
        let _ = writeln!(
            out,
            "  SUITE ERRORS: {} grader(s) threw instead of judging ({}): their results measure the suite or its setup, not the item; fix them and run again",
            errors.len(),
            names.join(", ")
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
        for g in failed_graders(c) {
            let _ = writeln!(out, "      {}", grader_line(g));
        }
    }
    if let Some(n) = &doc.neighbours {
        neighbours(&mut out, n);
    }
    out
}

/// `--neighbours`: per trigger case, which item fired in how many runs.
fn neighbours(out: &mut String, n: &crate::document::Neighbours) {
    let stopped = n
        .partial_reason
        .as_deref()
        .map_or_else(String::new, |r| format!("; stopped short: {r}"));
    let _ = writeln!(
        out,
        "  neighbours: {} items loaded, ${:.4}{stopped}",
        n.items.len(),
        n.cost_usd
    );
    for case in &n.cases {
        let mut parts: Vec<String> = case
            .fired
            .iter()
            .map(|f| format!("{} {}/{}", f.item, f.runs, case.runs))
            .collect();
        parts.push(format!("none {}/{}", case.none, case.runs));
        let _ = writeln!(out, "    {}: {}", clip(&case.name), parts.join(", "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{CaseEval, GraderKind, Verdict};

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
                    graders: None,
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
                    graders: None,
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

    fn grader(
        name: &str,
        with: (u32, u32),
        without: Option<(u32, u32)>,
        failure: Option<&str>,
    ) -> GraderEval {
        GraderEval {
            name: name.into(),
            kind: GraderKind::Scored,
            with: ArmCount {
                passed: with.0,
                runs: with.1,
            },
            without: without.map(|(passed, runs)| ArmCount { passed, runs }),
            error: failure.is_some_and(|f| f.starts_with("grader threw")),
            failure: failure.map(str::to_string),
        }
    }

    #[test]
    fn summary_lists_failed_graders_and_suite_errors() {
        let mut d = doc(false);
        d.cases[0].graders = Some(vec![
            GraderEval {
                kind: GraderKind::WithOnly,
                ..grader("fires", (3, 3), None, None)
            },
            grader(
                "subject",
                (3, 3),
                Some((1, 3)),
                Some("pattern not found in last_message"),
            ),
            grader(
                "close-to-reference",
                (0, 3),
                Some((0, 3)),
                Some(
                    "grader threw: failed to read baseline: JSON Parse error: Unexpected identifier \"not\"",
                ),
            ),
        ]);
        d.cases[1].graders = Some(vec![grader("quiet", (3, 3), Some((3, 3)), None)]);
        let text = summary(&d);
        assert!(
            !text.contains("quiet (scored)"),
            "a grader that never failed is not listed:\n{text}"
        );
        insta::assert_snapshot!(text);
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
            graders: None,
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
