//! GitHub-flavoured Markdown (`--format markdown`, `$GITHUB_STEP_SUMMARY`) of
//! `check`, `run`, `gate`, `sweep` and `propose`: a heading that says how it
//! went, then the tables a pull request comment wants (one row per suite,
//! item, case, finding or condition).
//!
//! Every text from outside bob-eval (item, case and file names, messages that
//! quote a suite) is escaped for a table cell: `|` and the other Markdown
//! punctuation backslash-escaped, line breaks made spaces, the spans a message
//! quotes in backticks kept as code.

use super::CiOutcome;
use crate::check::CheckReport;
use crate::diagnostic::Severity;
use crate::document::{FigureKind, SkillEval, Verdict, fmt_score};
use crate::gate::{Decision, Status};
use std::fmt::Write;

/// Column alignment.
#[derive(Clone, Copy)]
enum Align {
    Left,
    Right,
}

/// The characters of `s` that are not ASCII controls; a line break is a space
/// (a table row is one line), another control a visible `\u{…}`.
fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:04x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// `s` as literal text in a table cell: ASCII punctuation that Markdown or a
/// table could read as markup is backslash-escaped.
pub(crate) fn plain(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in one_line(s).chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' | '~' | '!' | '&'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `s` as code in a table cell (plain text when it holds a backtick).
fn code(s: &str) -> String {
    if s.contains('`') || s.is_empty() {
        plain(s)
    } else {
        format!("`{}`", one_line(s).replace('|', "\\|"))
    }
}

/// A bob-eval message in a table cell: the spans it quotes in backticks stay
/// code, the rest is [`plain`]; with an unmatched backtick, all of it is plain.
fn prose(s: &str) -> String {
    if s.matches('`').count() % 2 == 1 {
        return plain(s);
    }
    s.split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 0 {
                plain(part)
            } else {
                format!("`{}`", one_line(part).replace('|', "\\|"))
            }
        })
        .collect()
}

/// A table: the header row, the separator row, one row per entry.
fn table(out: &mut String, columns: &[(&str, Align)], rows: &[Vec<String>]) {
    let line = |cells: &mut dyn Iterator<Item = String>| -> String {
        let cells: Vec<String> = cells.collect();
        format!("| {} |", cells.join(" | "))
    };
    let _ = writeln!(
        out,
        "{}",
        line(&mut columns.iter().map(|(h, _)| h.to_string()))
    );
    let _ = writeln!(
        out,
        "{}",
        line(&mut columns.iter().map(|(_, a)| match a {
            Align::Left => "---".to_string(),
            Align::Right => "---:".to_string(),
        }))
    );
    for row in rows {
        let _ = writeln!(out, "{}", line(&mut row.iter().cloned()));
    }
    out.push('\n');
}

fn score(x: f64) -> String {
    format!("{x:.4}")
}

fn signed(x: f64) -> String {
    if x > 0.0 {
        format!("+{x:.4}")
    } else {
        format!("{x:.4}")
    }
}

fn rate(x: Option<f64>) -> String {
    x.map_or_else(|| "—".into(), |r| format!("{r:.2}"))
}

fn dollars(x: f64) -> String {
    format!("${x:.4}")
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `bob-eval check`: a heading with the totals, a table of suites (cases,
/// errors, warnings), then a table of findings, one row each.
pub fn check(report: &CheckReport) -> String {
    let mut out = String::new();
    let suites = plural(report.suites.len(), "suite", "suites");
    let cases = plural(report.case_count(), "case", "cases");
    if report.diagnostics.is_empty() {
        let _ = writeln!(
            out,
            "### ✅ bob-eval check: no problems in {suites} ({cases})\n"
        );
    } else {
        let mark = if report.has_errors() { "❌" } else { "⚠️" };
        let _ = writeln!(
            out,
            "### {mark} bob-eval check: {}, {} in {suites} ({cases})\n",
            plural(report.errors, "error", "errors"),
            plural(report.warnings, "warning", "warnings")
        );
    }
    // Per suite (and a last row for files outside every suite, such as an
    // item's own file), so the rows add up to the heading's totals.
    let mut counts = vec![[0usize; 2]; report.suites.len() + 1];
    for d in &report.diagnostics {
        let row = report.owner(d).unwrap_or(report.suites.len());
        match d.severity {
            Severity::Error => counts[row][0] += 1,
            Severity::Warning => counts[row][1] += 1,
            Severity::Note => {}
        }
    }
    let mut rows: Vec<Vec<String>> = report
        .suites
        .iter()
        .zip(&counts)
        .map(|(s, [errors, warnings])| {
            vec![
                plain(&s.item),
                s.cases.len().to_string(),
                errors.to_string(),
                warnings.to_string(),
            ]
        })
        .collect();
    if let Some([errors, warnings]) = counts.last().filter(|c| c[0] + c[1] > 0) {
        rows.push(vec![
            "(files outside the suites)".into(),
            "—".into(),
            errors.to_string(),
            warnings.to_string(),
        ]);
    }
    table(
        &mut out,
        &[
            ("suite", Align::Left),
            ("cases", Align::Right),
            ("errors", Align::Right),
            ("warnings", Align::Right),
        ],
        &rows,
    );
    if !report.diagnostics.is_empty() {
        let rows: Vec<Vec<String>> = report
            .diagnostics
            .iter()
            .map(|d| {
                let at = match d.line {
                    Some(line) => format!("{}:{line}", d.file),
                    None => d.file.to_string(),
                };
                vec![
                    d.severity.as_str().into(),
                    code(d.code),
                    code(&at),
                    prose(&d.message),
                    prose(&d.fix),
                ]
            })
            .collect();
        table(
            &mut out,
            &[
                ("severity", Align::Left),
                ("code", Align::Left),
                ("where", Align::Left),
                ("finding", Align::Left),
                ("fix", Align::Left),
            ],
            &rows,
        );
    }
    out
}

/// `bob-eval run` and `bob-eval sweep`, headed `title`: a table with one row
/// per item, the notes (could not run, partial, trigger problems), then each
/// item's cases, one row per case (folded under `<details>` when there are
/// several items).
pub fn results(title: &str, outcomes: &[CiOutcome<'_>]) -> String {
    let mut out = String::new();
    let mut tally: Vec<(String, usize)> = Vec::new();
    for o in outcomes {
        let word = match o {
            CiOutcome::Ran(doc) => doc.verdict.as_str(),
            CiOutcome::Failed { exit_code, .. } => super::sweep::not_run_word(*exit_code),
        };
        match tally.iter_mut().find(|(w, _)| w == word) {
            Some((_, n)) => *n += 1,
            None => tally.push((word.to_string(), 1)),
        }
    }
    let failed = outcomes
        .iter()
        .any(|o| matches!(o, CiOutcome::Failed { .. }));
    // A regressed item, or a regressed case inside an item that did not regress.
    let regressed = outcomes
        .iter()
        .any(|o| matches!(o, CiOutcome::Ran(d) if regressed_cases(d) > 0 || d.verdict == Verdict::Regressed));
    let mark = if failed {
        "❌"
    } else if regressed {
        "⚠️"
    } else {
        "✅"
    };
    let tally: Vec<String> = tally.iter().map(|(w, n)| format!("{n} {w}")).collect();
    let _ = writeln!(
        out,
        "### {mark} {title}: {}{}\n",
        plural(outcomes.len(), "item", "items"),
        if tally.is_empty() {
            String::new()
        } else {
            format!(" — {}", tally.join(", "))
        }
    );
    // The cost and turns ratios, when some item measured its efficiency.
    let efficiency = outcomes
        .iter()
        .any(|o| matches!(o, CiOutcome::Ran(d) if d.efficiency.is_some()));
    let ratio_cells = |d: Option<&SkillEval>| -> Vec<String> {
        let e = d.and_then(|d| d.efficiency.as_ref());
        [FigureKind::Cost, FigureKind::Turns]
            .iter()
            .map(|k| {
                e.map_or("—".to_string(), |e| {
                    plain(&super::efficiency::ratio_cell(e.suite.figures.get(*k)))
                })
            })
            .collect()
    };
    let mut rows: Vec<Vec<String>> = outcomes
        .iter()
        .map(|o| match o {
            CiOutcome::Ran(d) => vec![
                plain(&d.item),
                plain(&d.model),
                score(d.with),
                score(d.without),
                signed(d.delta),
                if d.partial {
                    format!("{} (partial)", d.verdict.as_str())
                } else {
                    d.verdict.as_str().into()
                },
                rate(d.trigger_rate),
                format!("{} of {}", dollars(d.cost_usd), dollars(d.max_cost_usd)),
            ],
            CiOutcome::Failed {
                item, exit_code, ..
            } => {
                let none = "—".to_string();
                vec![
                    plain(item),
                    none.clone(),
                    none.clone(),
                    none.clone(),
                    none.clone(),
                    format!(
                        "{} (exit {exit_code})",
                        super::sweep::not_run_word(*exit_code)
                    ),
                    none.clone(),
                    none,
                ]
            }
        })
        .collect();
    let mut columns = vec![
        ("item", Align::Left),
        ("model", Align::Left),
        ("with", Align::Right),
        ("without", Align::Right),
        ("delta", Align::Right),
        ("verdict", Align::Left),
        ("trigger", Align::Right),
        ("cost", Align::Right),
    ];
    if efficiency {
        columns.extend([("cost×", Align::Right), ("turns×", Align::Right)]);
        for (row, o) in rows.iter_mut().zip(outcomes) {
            let doc = match o {
                CiOutcome::Ran(d) => Some(*d),
                CiOutcome::Failed { .. } => None,
            };
            row.extend(ratio_cells(doc));
        }
    }
    table(&mut out, &columns, &rows);
    if efficiency {
        let _ = writeln!(out, "_{}_\n", plain(&super::efficiency::ratio_legend()));
    }
    let mut notes = Vec::new();
    for o in outcomes {
        match o {
            CiOutcome::Failed {
                item,
                error,
                exit_code,
            } => notes.push(format!(
                "**{}** {} (exit {exit_code}): {}",
                plain(item),
                super::sweep::not_run_word(*exit_code),
                prose(error)
            )),
            CiOutcome::Ran(d) => {
                if d.partial {
                    notes.push(format!(
                        "**{}** is partial ({}): not every case ran comparably; the gate will not accept it",
                        plain(&d.item),
                        plain(&d.partial_reason.as_ref().map_or_else(|| "unspecified".to_string(), ToString::to_string))
                    ));
                }
                if let Some(problem) = d.trigger_problem() {
                    notes.push(format!(
                        "**{}** {problem} (fires {}, quiet {})",
                        plain(&d.item),
                        rate(d.fires_rate),
                        rate(d.quiet_rate)
                    ));
                }
            }
        }
    }
    for note in &notes {
        let _ = writeln!(out, "- {note}");
    }
    if !notes.is_empty() {
        out.push('\n');
    }
    let fold = outcomes.len() > 1;
    for o in outcomes {
        let CiOutcome::Ran(d) = o else { continue };
        if fold {
            let worse = match regressed_cases(d) {
                0 => String::new(),
                n => format!(" ({n} regressed)"),
            };
            let _ = writeln!(
                out,
                "<details><summary>{}: {}{worse}, {}</summary>\n",
                super::junit::escape(&one_line(&d.item)),
                plural(d.cases.len(), "case", "cases"),
                d.verdict.as_str()
            );
        } else {
            let _ = writeln!(
                out,
                "Cases of {} on {} ({}):\n",
                plain(&d.item),
                plain(&d.model),
                plain(&d.run)
            );
        }
        cases(&mut out, d);
        if fold {
            out.push_str("</details>\n\n");
        }
    }
    out
}

/// How many of `d`'s cases regressed.
fn regressed_cases(d: &SkillEval) -> usize {
    d.cases
        .iter()
        .filter(|c| c.verdict == Some(Verdict::Regressed))
        .count()
}

/// One row per case of `d`.
fn cases(out: &mut String, d: &SkillEval) {
    if let Some(line) = super::run::bought_and_reused(d) {
        let _ = writeln!(out, "{}\n", plain(&line));
    }
    for c in d.scored_by_trigger() {
        let _ = writeln!(
            out,
            "**Scored by trigger:** {}\n",
            plain(&crate::document::scored_by_trigger_words(&c.name))
        );
    }
    let rows: Vec<Vec<String>> = d
        .cases
        .iter()
        .map(|c| {
            vec![
                plain(&c.name),
                score(c.with),
                c.without.map_or_else(|| "—".into(), score),
                c.delta.map_or_else(|| "—".into(), signed),
                c.verdict.map_or("—", Verdict::as_str).into(),
                rate(c.trigger_rate),
                c.runs.to_string(),
                dollars(c.cost_usd),
            ]
        })
        .collect();
    table(
        out,
        &[
            ("case", Align::Left),
            ("with", Align::Right),
            ("without", Align::Right),
            ("delta", Align::Right),
            ("verdict", Align::Left),
            ("trigger", Align::Right),
            ("runs", Align::Right),
            ("cost", Align::Right),
        ],
        &rows,
    );
    efficiency(out, d);
    let failed: Vec<String> = d
        .cases
        .iter()
        .flat_map(|c| {
            super::run::failed_graders(c).into_iter().map(move |g| {
                format!(
                    "- {}: {}",
                    plain(&c.name),
                    plain(&super::run::grader_line(g))
                )
            })
        })
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(out, "\nGraders that failed:\n\n{}\n", failed.join("\n"));
    }
    let unsure: Vec<String> = d
        .cases
        .iter()
        .flat_map(|c| {
            c.graders
                .iter()
                .flatten()
                .filter_map(|g| super::run::judge_unsure(&c.name, g))
        })
        .map(|line| format!("- {}", plain(&line)))
        .collect();
    if !unsure.is_empty() {
        let _ = writeln!(out, "\nJudges unsure:\n\n{}\n", unsure.join("\n"));
    }
}

/// The suite's cost, turns and duration per arm with their ratios, then
/// each case's ratios, when the document measured them.
fn efficiency(out: &mut String, d: &SkillEval) {
    use super::efficiency::{arm, ratio};
    use crate::document::FigureKind;
    let Some(e) = &d.efficiency else {
        return;
    };
    let _ = writeln!(out, "\n{}:\n", plain(&super::efficiency::heading(e)));
    let rows: Vec<Vec<String>> = FigureKind::ALL
        .iter()
        .map(|k| {
            let f = e.suite.figures.get(*k);
            vec![
                k.word().to_string(),
                plain(&arm(*k, f.with)),
                plain(&arm(*k, f.without)),
                plain(&ratio(f)),
            ]
        })
        .collect();
    table(
        out,
        &[
            ("suite", Align::Left),
            ("with", Align::Right),
            ("without", Align::Right),
            ("with/without", Align::Right),
        ],
        &rows,
    );
    if let Some(words) = super::efficiency::headline(d) {
        let _ = writeln!(out, "**Efficiency:** {}\n", plain(&words));
    }
    if let Some(n) = e.runs_without_figures {
        let _ = writeln!(
            out,
            "{n} run(s) report no cost, turns nor duration: left out of these figures.\n"
        );
    }
    let rows: Vec<Vec<String>> = e
        .cases
        .iter()
        .map(|c| {
            let mut row = vec![plain(&c.name)];
            row.extend(
                FigureKind::ALL
                    .iter()
                    .map(|k| plain(&ratio(c.figures.get(*k)))),
            );
            row
        })
        .collect();
    table(
        out,
        &[
            ("case (with/without per run)", Align::Left),
            ("cost", Align::Right),
            ("turns", Align::Right),
            ("duration", Align::Right),
        ],
        &rows,
    );
}

/// `bob-eval gate`: a heading with the outcome, the numbers compared, then one
/// row per condition of the rule.
pub fn gate(decision: &Decision) -> String {
    decided("bob-eval gate", decision, None)
}

/// A proposal (`bob-eval propose`), headed `title`: the gate's tables, then
/// the result's cases.
pub fn proposal(title: &str, result: &SkillEval, decision: &Decision) -> String {
    decided(title, decision, Some(result))
}

fn decided(title: &str, d: &Decision, result: Option<&SkillEval>) -> String {
    let mut out = String::new();
    let (mark, outcome) = if d.accepted {
        ("✅", "accepted")
    } else {
        ("❌", "rejected")
    };
    let _ = writeln!(
        out,
        "### {mark} {title}: {} {outcome} on {}\n",
        plain(&d.item),
        plain(&d.model)
    );
    let best = d.best.as_ref().map_or_else(
        || format!("none recorded for {}", plain(&d.model)),
        |b| {
            format!(
                "{} ({}, {})",
                fmt_score(b.score),
                plain(&b.run),
                plain(&b.date)
            )
        },
    );
    let best_rate = d.best.as_ref().map_or("—".into(), |b| rate(b.trigger_rate));
    table(
        &mut out,
        &[
            ("run", Align::Left),
            ("with", Align::Right),
            ("without", Align::Right),
            ("best", Align::Left),
            ("trigger rate", Align::Right),
            ("best's trigger rate", Align::Right),
        ],
        &[vec![
            plain(&d.run),
            fmt_score(d.with),
            fmt_score(d.without),
            best,
            rate(d.trigger_rate),
            best_rate,
        ]],
    );
    let rows: Vec<Vec<String>> = d
        .conditions
        .iter()
        .map(|c| {
            let status = match c.status {
                Status::Pass => "✓ pass",
                Status::Fail => "✗ fail",
                Status::Skipped => "– skipped",
            };
            vec![code(c.name), status.into(), prose(&c.text)]
        })
        .collect();
    table(
        &mut out,
        &[
            ("condition", Align::Left),
            ("outcome", Align::Left),
            ("why", Align::Left),
        ],
        &rows,
    );
    if let Some(r) = result {
        if let Some(problem) = r.trigger_problem() {
            let _ = writeln!(
                out,
                "- the item {problem} (fires {}, quiet {})\n",
                rate(r.fires_rate),
                rate(r.quiet_rate)
            );
        }
        let _ = writeln!(out, "Cases ({}):\n", plain(&r.run));
        cases(&mut out, r);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::junit::tests::case_eval;

    #[test]
    fn cells_escape_pipes_markup_and_line_breaks_but_keep_quoted_code() {
        assert_eq!(plain("a|b*c_d\ne"), "a\\|b\\*c\\_d e");
        assert_eq!(plain("<b>&x"), "\\<b\\>\\&x");
        assert_eq!(
            prose("unknown key `a|b` in <x>"),
            "unknown key `a\\|b` in \\<x\\>"
        );
        assert_eq!(prose("one ` tick"), "one \\` tick");
        assert_eq!(code("evals/a|b.md:3"), "`evals/a\\|b.md:3`");
        assert_eq!(plain("\u{1}"), "\\\\u{0001}");
    }

    #[test]
    fn check_rows_add_up_to_the_heading_with_files_outside_the_suites() {
        use crate::diagnostic::{Diagnostic, Severity};
        let finding = |severity, file: &str| Diagnostic {
            severity,
            code: "similar-description",
            file: file.into(),
            line: Some(3),
            message: "m".into(),
            fix: "f".into(),
        };
        let md = check(&crate::report::check::tests::report(vec![
            finding(Severity::Warning, "skills/commit/SKILL.md"),
            finding(Severity::Warning, "skills/tdd-flow/SKILL.md"),
            finding(Severity::Error, "evals/commit/fires/prompt.md"),
        ]));
        assert!(md.contains("1 error, 2 warnings in 2 suites"), "{md}");
        assert!(md.contains("| commit | 2 | 1 | 0 |"), "{md}");
        assert!(md.contains("| tdd-flow | 1 | 0 | 0 |"), "{md}");
        assert!(
            md.contains("| (files outside the suites) | — | 0 | 2 |"),
            "{md}"
        );
    }

    #[test]
    fn a_run_is_a_row_and_a_row_per_case() {
        let mut doc = SkillEval::sample(1.0, 0.5);
        doc.cases = vec![case_eval("fires|x", 1.0, 0.5, Some(1.0))];
        let md = results("bob-eval run", &[CiOutcome::Ran(&doc)]);
        insta::assert_snapshot!(md);
    }

    #[test]
    fn failed_graders_are_listed_under_the_cases() {
        let mut doc = SkillEval::sample(1.0, 0.5);
        doc.cases = vec![case_eval("fires", 1.0, 0.5, Some(1.0))];
        doc.cases[0].graders = Some(
            serde_json::from_value(serde_json::json!([
                {"name": "subject", "kind": "scored", "with": {"passed": 2, "runs": 2},
                 "without": {"passed": 0, "runs": 2}, "failure": "pattern not found in `last_message`"},
                {"name": "body", "kind": "scored", "with": {"passed": 0, "runs": 2},
                 "without": {"passed": 0, "runs": 2}, "failure": "no body in `last_message`"}
            ]))
            .unwrap(),
        );
        let md = results("bob-eval run", &[CiOutcome::Ran(&doc)]);
        assert!(
            md.contains("Graders that failed:\n\n- fires: ✗ body (scored) with 0/2, without 0/2: fails on both arms; with the item: no body in \\`last\\_message\\`\n"),
            "{md}"
        );
        assert!(
            !md.contains("subject"),
            "a grader that passes with the item and fails without it did its job:\n{md}"
        );
    }

    #[test]
    fn a_judge_unsure_is_said_under_the_cases() {
        let mut doc = SkillEval::sample(1.0, 0.5);
        doc.cases = vec![case_eval("fires", 1.0, 0.5, Some(1.0))];
        doc.cases[0].graders = Some(
            serde_json::from_value(serde_json::json!([
                {"name": "clear", "kind": "scored", "with": {"passed": 2, "runs": 2},
                 "split_votes": {"runs": 10, "split": 4, "rate": 0.4, "low": 0.1682, "high": 0.6873}},
                {"name": "calm", "kind": "scored", "with": {"passed": 2, "runs": 2},
                 "split_votes": {"runs": 10, "split": 1, "rate": 0.1, "low": 0.0179, "high": 0.4042}}
            ]))
            .unwrap(),
        );
        let md = results("bob-eval run", &[CiOutcome::Ran(&doc)]);
        assert!(
            md.contains("Judges unsure:\n\n- JUDGE UNSURE: grader"),
            "{md}"
        );
        assert!(
            md.contains("split its votes in 4 of 10 runs (40 %, 95 % Wilson CI 17–69 %)"),
            "{md}"
        );
        assert!(!md.contains("calm"), "{md}");
    }

    #[test]
    fn a_reject_lists_every_condition() {
        let doc = SkillEval::sample(0.5, 0.75);
        let d = crate::gate::decide(&doc, &crate::document::Baseline::empty("commit"));
        insta::assert_snapshot!(gate(&d));
    }
}
