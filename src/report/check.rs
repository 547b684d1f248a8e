//! Human output of `bob-eval check`: one line per finding, then a summary.

use crate::check::CheckReport;
use std::fmt::Write;

/// Render a check report: `file:line: severity: message — fix: fix` lines
/// (paths relative to the source), then one summary line.
pub fn render(report: &CheckReport) -> String {
    let mut out = String::new();
    for d in &report.diagnostics {
        let _ = writeln!(out, "{d}");
    }
    // Each judge's record, once some judged grader of the suites has labels.
    if report
        .judges
        .iter()
        .any(|j| j.record.labels > 0 || j.record.stale > 0)
    {
        for j in &report.judges {
            let fix = j
                .fix
                .as_deref()
                .map(|f| format!(" — fix: {f}"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "judge {}/{} {}: {}{fix}",
                j.item, j.case, j.grader, j.words
            );
        }
    }
    let suites = plural(report.suites.len(), "suite", "suites");
    let cases = plural(report.case_count(), "case", "cases");
    if report.diagnostics.is_empty() {
        let _ = writeln!(out, "ok: checked {suites} ({cases}), no problems");
    } else {
        let errors = plural(report.errors, "error", "errors");
        let warnings = plural(report.warnings, "warning", "warnings");
        let notes = match report.notes {
            0 => String::new(),
            n => format!(", {}", plural(n, "note", "notes")),
        };
        let verdict = if report.has_errors() { "failed" } else { "ok" };
        let _ = writeln!(
            out,
            "{verdict}: checked {suites} ({cases}): {errors}, {warnings}{notes}"
        );
    }
    // Findings quote the suites' own text (names, patterns).
    crate::text::block(&out).into_owned()
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::check::SuiteSummary;
    use crate::diagnostic::{Diagnostic, Severity};

    /// A report over two suites, `commit` and `tdd-flow`, with these findings.
    pub(crate) fn report(diagnostics: Vec<Diagnostic>) -> CheckReport {
        let count = |severity| {
            diagnostics
                .iter()
                .filter(|d| d.severity == severity)
                .count()
        };
        let errors = count(Severity::Error);
        CheckReport {
            schema: "bob-eval-check/1",
            suites: vec![
                SuiteSummary {
                    item: "commit".into(),
                    dir: "evals/commit".into(),
                    cases: vec!["fires".into(), "quiet".into()],
                },
                SuiteSummary {
                    item: "tdd-flow".into(),
                    dir: "evals/tdd-flow".into(),
                    cases: vec!["fires".into()],
                },
            ],
            errors,
            warnings: count(Severity::Warning),
            notes: count(Severity::Note),
            diagnostics,
            judges: vec![],
        }
    }

    #[test]
    fn renders_findings_and_summary() {
        let text = render(&report(vec![
            Diagnostic {
                severity: Severity::Error,
                code: "unknown-key",
                file: "evals/commit/fires/prompt.md".into(),
                line: Some(3),
                message: "unknown key `max_turn` in prompt.md frontmatter (the platform refuses the case)".into(),
                fix: "did you mean `max_turns`?".into(),
            },
            Diagnostic {
                severity: Severity::Error,
                code: "no-quiet-case",
                file: "evals/tdd-flow".into(),
                line: None,
                message: "the suite has no `quiet` case (every suite needs the trigger pair)".into(),
                fix: "add evals/tdd-flow/quiet/".into(),
            },
            Diagnostic {
                severity: Severity::Warning,
                code: "gated-tool",
                file: "evals/tdd-flow/fires/prompt.md".into(),
                line: Some(4),
                message: "`Bash` in allowed_tools is a gated tool".into(),
                fix: "run with `--allow-tools Bash`".into(),
            },
        ]));
        insta::assert_snapshot!(text);
    }

    #[test]
    fn notes_are_counted_and_never_fail() {
        let text = render(&report(vec![Diagnostic {
            severity: Severity::Note,
            code: "trigger-advice",
            file: "evals".into(),
            line: None,
            message: "nothing checks that skill `x` fires where it should".into(),
            fix: "a case where it should fire, with graders/fires.md".into(),
        }]));
        assert_eq!(
            text,
            "evals: note: nothing checks that skill `x` fires where it should — to add: a case where it should fire, with graders/fires.md\n\
             ok: checked 2 suites (3 cases): 0 errors, 0 warnings, 1 note\n"
        );
    }

    #[test]
    fn renders_clean_report() {
        insta::assert_snapshot!(render(&report(Vec::new())));
    }
}
