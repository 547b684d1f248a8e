//! JUnit XML (`--format junit`) of `check`, `run`, `gate` and `sweep`, for the
//! test reporters of CI systems: one `<testsuite>` per item and one
//! `<testcase>` per case (per finding for `check`, per condition of the rule
//! for `gate`). A regressed case, a check error and a failed gate condition are
//! each a `<failure>` whose message says why (a case's, with the reasons of
//! its failed graders); an item that could not run, and a case one of whose
//! graders threw (an error of the suite, not the model failing), is an
//! `<error>`; a case that ran without a without arm and a skipped gate
//! condition are `<skipped>`.
//!
//! Written by hand: the elements are few, and every text and attribute goes
//! through [`escape`], which also keeps out the characters XML 1.0 forbids.

use super::CiOutcome;
use crate::check::CheckReport;
use crate::diagnostic::Severity;
use crate::document::{CaseEval, FigureKind, SkillEval, Verdict, fmt_score};
use crate::gate::{Decision, Status};
use std::fmt::Write;

/// What became of one test case.
enum Ending {
    Passed,
    /// A `<failure>`: the check, the case or the rule failed.
    Failure {
        message: String,
        kind: String,
        text: String,
    },
    /// An `<error>`: the test could not run at all.
    Error {
        message: String,
        kind: String,
    },
    Skipped {
        message: String,
    },
}

struct JunitCase {
    classname: String,
    name: String,
    result: Ending,
    /// `<system-out>`: the numbers or the finding in full.
    out: Option<String>,
}

struct JunitSuite {
    name: String,
    properties: Vec<(&'static str, String)>,
    cases: Vec<JunitCase>,
}

#[derive(Default, Clone, Copy)]
struct Counts {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
}

impl Counts {
    fn of<'a>(cases: impl IntoIterator<Item = &'a JunitCase>) -> Counts {
        let mut n = Counts::default();
        for case in cases {
            n.tests += 1;
            match case.result {
                Ending::Passed => {}
                Ending::Failure { .. } => n.failures += 1,
                Ending::Error { .. } => n.errors += 1,
                Ending::Skipped { .. } => n.skipped += 1,
            }
        }
        n
    }
}

/// `text` escaped for XML 1.0 character data and (double-quoted) attribute
/// values: the five markup characters as entities; tab, newline and carriage
/// return as character references, so that attribute normalisation keeps
/// them; the characters XML 1.0 cannot hold at all, even as references (the
/// other C0 controls, U+FFFE and U+FFFF), written visibly as `\u{…}`.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => {
                let _ = write!(out, "&#{};", u32::from(c));
            }
            c if c < ' ' || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                let _ = write!(out, "\\u{{{:04x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// The whole document: `<testsuites name="…">` holding `suites`.
fn document(name: &str, suites: &[JunitSuite]) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let all = Counts::of(suites.iter().flat_map(|s| &s.cases));
    let _ = writeln!(
        out,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\">",
        escape(name),
        all.tests,
        all.failures,
        all.errors
    );
    for suite in suites {
        let n = Counts::of(&suite.cases);
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">",
            escape(&suite.name),
            n.tests,
            n.failures,
            n.errors,
            n.skipped
        );
        if !suite.properties.is_empty() {
            out.push_str("    <properties>\n");
            for (key, value) in &suite.properties {
                let _ = writeln!(
                    out,
                    "      <property name=\"{}\" value=\"{}\"/>",
                    escape(key),
                    escape(value)
                );
            }
            out.push_str("    </properties>\n");
        }
        for case in &suite.cases {
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"{}\"",
                escape(&case.classname),
                escape(&case.name)
            );
            if matches!(case.result, Ending::Passed) && case.out.is_none() {
                out.push_str("/>\n");
                continue;
            }
            out.push_str(">\n");
            match &case.result {
                Ending::Passed => {}
                Ending::Failure {
                    message,
                    kind,
                    text,
                } => {
                    let _ = writeln!(
                        out,
                        "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                        escape(message),
                        escape(kind),
                        escape(text)
                    );
                }
                Ending::Error { message, kind } => {
                    let _ = writeln!(
                        out,
                        "      <error message=\"{}\" type=\"{}\"/>",
                        escape(message),
                        escape(kind)
                    );
                }
                Ending::Skipped { message } => {
                    let _ = writeln!(out, "      <skipped message=\"{}\"/>", escape(message));
                }
            }
            if let Some(text) = &case.out {
                let _ = writeln!(out, "      <system-out>{}</system-out>", escape(text));
            }
            out.push_str("    </testcase>\n");
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// `bob-eval check`: a testsuite per suite, a testcase per finding (an error
/// is a failure, a warning passes with the finding as its output); a suite
/// without findings has one passing testcase, `no problems`. Findings outside
/// every suite's folder go to a testsuite of their own, `bob-eval check`.
pub fn check(report: &CheckReport) -> String {
    let mut suites: Vec<JunitSuite> = report
        .suites
        .iter()
        .map(|s| JunitSuite {
            name: s.item.clone(),
            properties: vec![("dir", s.dir.to_string()), ("cases", s.cases.join(", "))],
            cases: Vec::new(),
        })
        .collect();
    let mut stray = JunitSuite {
        name: "bob-eval check".into(),
        properties: Vec::new(),
        cases: Vec::new(),
    };
    for d in &report.diagnostics {
        let owner = report.owner(d);
        let at = match d.line {
            Some(line) => format!("{}:{line}", d.file),
            None => d.file.to_string(),
        };
        let classname = owner.map_or_else(|| "bob-eval check".into(), |i| suites[i].name.clone());
        let case = JunitCase {
            classname,
            name: format!("{} {at}", d.code),
            result: match d.severity {
                Severity::Error => Ending::Failure {
                    message: format!("{} — fix: {}", d.message, d.fix),
                    kind: d.code.to_string(),
                    text: d.to_string(),
                },
                Severity::Warning | Severity::Note => Ending::Passed,
            },
            out: (d.severity != Severity::Error).then(|| d.to_string()),
        };
        match owner {
            Some(i) => suites[i].cases.push(case),
            None => stray.cases.push(case),
        }
    }
    for suite in &mut suites {
        if suite.cases.is_empty() {
            suite.cases.push(JunitCase {
                classname: suite.name.clone(),
                name: "no problems".into(),
                result: Ending::Passed,
                out: None,
            });
        }
    }
    if !stray.cases.is_empty() {
        suites.push(stray);
    }
    document("bob-eval check", &suites)
}

/// `bob-eval run` (one outcome) and `bob-eval sweep` (one per suite), under
/// the root name `name`: a testsuite per item, a testcase per case; a
/// regressed case is a failure, a case without a without arm is skipped, an
/// item that could not run is one `run` testcase in error.
pub fn results(name: &str, outcomes: &[CiOutcome<'_>]) -> String {
    let suites: Vec<JunitSuite> = outcomes
        .iter()
        .map(|o| match *o {
            CiOutcome::Ran(doc) => result_suite(doc),
            CiOutcome::Failed {
                item,
                error,
                exit_code,
            } => JunitSuite {
                name: item.to_string(),
                properties: Vec::new(),
                cases: vec![JunitCase {
                    classname: item.to_string(),
                    name: "run".into(),
                    result: Ending::Error {
                        message: format!("could not run (exit {exit_code}): {error}"),
                        kind: format!("exit-{exit_code}"),
                    },
                    out: None,
                }],
            },
        })
        .collect();
    document(name, &suites)
}

fn opt(x: Option<f64>) -> String {
    x.map_or_else(|| "none".into(), fmt_score)
}

fn signed(x: f64) -> String {
    if x > 0.0 {
        format!("+{}", fmt_score(x))
    } else {
        fmt_score(x)
    }
}

fn result_suite(doc: &SkillEval) -> JunitSuite {
    let mut properties = vec![
        ("model", doc.model.clone()),
        ("run", doc.run.clone()),
        ("date", doc.date.clone()),
        ("with", fmt_score(doc.with)),
        ("without", fmt_score(doc.without)),
        ("delta", signed(doc.delta)),
        ("verdict", doc.verdict.as_str().into()),
        ("trigger_rate", opt(doc.trigger_rate)),
        ("cost_usd", fmt_score(doc.cost_usd)),
        ("max_cost_usd", fmt_score(doc.max_cost_usd)),
        ("partial", doc.partial.to_string()),
    ];
    if let Some(reason) = &doc.partial_reason {
        properties.push(("partial_reason", reason.to_string()));
    }
    if let Some(problem) = doc.trigger_problem() {
        properties.push(("trigger_problem", problem.into()));
    }
    properties.extend(efficiency_properties(doc));
    JunitSuite {
        name: doc.item.to_string(),
        properties,
        cases: doc.cases.iter().map(|c| case(doc, c)).collect(),
    }
}

/// The suite's efficiency as properties, when the document measured it:
/// per figure (`cost_usd`, `turns`, `duration_seconds`) each arm's mean per
/// run with its interval and the with/without ratio with its interval and
/// whether that excludes 1; with the method and confidence once.
fn efficiency_properties(doc: &SkillEval) -> Vec<(&'static str, String)> {
    use super::efficiency::{arm, heading, ratio};
    let Some(e) = &doc.efficiency else {
        return Vec::new();
    };
    let mut out = vec![("efficiency", heading(e))];
    for kind in FigureKind::ALL {
        let f = e.suite.figures.get(kind);
        let names: [&'static str; 4] = match kind {
            FigureKind::Cost => [
                "efficiency_cost_usd_with",
                "efficiency_cost_usd_without",
                "efficiency_cost_usd_ratio",
                "efficiency_cost_usd_ratio_excludes_1",
            ],
            FigureKind::Turns => [
                "efficiency_turns_with",
                "efficiency_turns_without",
                "efficiency_turns_ratio",
                "efficiency_turns_ratio_excludes_1",
            ],
            FigureKind::Duration => [
                "efficiency_duration_seconds_with",
                "efficiency_duration_seconds_without",
                "efficiency_duration_seconds_ratio",
                "efficiency_duration_seconds_ratio_excludes_1",
            ],
        };
        let excludes = f
            .ratio
            .and_then(|r| super::efficiency::excludes_one(&r))
            .map_or_else(|| "none".to_string(), |b| b.to_string());
        out.extend([
            (names[0], arm(kind, f.with)),
            (names[1], arm(kind, f.without)),
            (names[2], ratio(f)),
            (names[3], excludes),
        ]);
    }
    out
}

fn case(doc: &SkillEval, c: &CaseEval) -> JunitCase {
    let numbers = format!(
        "with {}, without {}, delta {}, verdict {}, trigger rate {}, runs {}, cost ${}",
        fmt_score(c.with),
        opt(c.without),
        c.delta.map_or_else(|| "none".into(), signed),
        c.verdict.map_or("none", Verdict::as_str),
        opt(c.trigger_rate),
        c.runs,
        fmt_score(c.cost_usd)
    );
    let failed = super::run::failed_graders(c);
    let numbers = std::iter::once(numbers)
        .chain(super::efficiency::case_line(doc, &c.name))
        .chain(failed.iter().map(|g| super::run::grader_line(g)))
        .collect::<Vec<_>>()
        .join("\n");
    let reasons = failed
        .iter()
        .map(|g| format!("{}: {}", g.name, g.why()))
        .collect::<Vec<_>>()
        .join("; ");
    let errors: Vec<&crate::document::GraderEval> = c.grader_errors().collect();
    let result = match (c.verdict, c.without, c.delta) {
        // A grader that threw is an error of the suite, whatever the numbers.
        _ if !errors.is_empty() => Ending::Error {
            message: format!(
                "an error of the suite, not the model failing: {} threw instead of judging: {}",
                errors
                    .iter()
                    .map(|g| g.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                errors
                    .iter()
                    .map(|g| g.why())
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            kind: "grader-error".into(),
        },
        (Some(Verdict::Regressed), Some(without), Some(delta)) => Ending::Failure {
            message: format!(
                "regressed: with {} is below without {} (delta {}): the item makes this case worse{}",
                fmt_score(c.with),
                fmt_score(without),
                signed(delta),
                if reasons.is_empty() {
                    String::new()
                } else {
                    format!("; failed graders: {reasons}")
                }
            ),
            kind: "regressed".into(),
            text: numbers.clone(),
        },
        (Some(_), ..) => Ending::Passed,
        (None, ..) => Ending::Skipped {
            message: match &doc.partial_reason {
                Some(reason) => format!(
                    "not comparable: the without arm has no run (the result is partial: {reason})"
                ),
                None => "not comparable: the without arm has no run".into(),
            },
        },
    };
    JunitCase {
        classname: doc.item.to_string(),
        name: c.name.clone(),
        out: (!matches!(result, Ending::Failure { .. })).then_some(numbers),
        result,
    }
}

/// `bob-eval gate`: one testsuite for the item, one testcase per condition of
/// the rule; a failed condition (a reason for the reject) is a failure with
/// its sentence as the message, a skipped one is skipped.
pub fn gate(decision: &Decision) -> String {
    let d = decision;
    let mut properties = vec![
        ("accepted", d.accepted.to_string()),
        ("model", d.model.clone()),
        ("run", d.run.clone()),
        ("with", fmt_score(d.with)),
        ("without", fmt_score(d.without)),
        ("trigger_rate", opt(d.trigger_rate)),
    ];
    if let Some(best) = &d.best {
        properties.push(("best", fmt_score(best.score)));
        properties.push(("best_run", best.run.clone()));
    }
    let cases = d
        .conditions
        .iter()
        .map(|c| JunitCase {
            classname: d.item.clone(),
            name: c.name.to_string(),
            result: match c.status {
                Status::Pass => Ending::Passed,
                Status::Fail => Ending::Failure {
                    message: c.text.clone(),
                    kind: "rejected".into(),
                    text: c.text.clone(),
                },
                Status::Skipped => Ending::Skipped {
                    message: c.text.clone(),
                },
            },
            out: (c.status == Status::Pass).then(|| c.text.clone()),
        })
        .collect();
    document(
        "bob-eval gate",
        &[JunitSuite {
            name: d.item.clone(),
            properties,
            cases,
        }],
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::document::Baseline;

    #[test]
    fn escapes_markup_and_the_characters_xml_forbids() {
        assert_eq!(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
        assert_eq!(escape("x\ty\nz\r"), "x&#9;y&#10;z&#13;");
        assert_eq!(
            escape("\u{0}\u{1b}\u{fffe}é"),
            "\\u{0000}\\u{001b}\\u{fffe}é"
        );
        assert_eq!(escape("]]>"), "]]&gt;");
    }

    /// A case as a document holds it (read through serde, so that fields added
    /// later with defaults need no change here).
    pub(crate) fn case_eval(name: &str, with: f64, without: f64, trigger: Option<f64>) -> CaseEval {
        let delta = crate::document::round4(with - without);
        serde_json::from_value(serde_json::json!({
            "name": name, "with": with, "without": without, "delta": delta,
            "verdict": Verdict::of(delta).as_str(), "trigger_rate": trigger,
            "cost_usd": 0.1, "runs": 2,
        }))
        .expect("a valid case")
    }

    fn regressed_doc() -> SkillEval {
        let mut doc = SkillEval::sample(0.5, 0.75);
        doc.cases = vec![
            case_eval("fires <&>", 1.0, 0.5, Some(1.0)),
            case_eval("quiet", 0.0, 1.0, None),
        ];
        doc
    }

    #[test]
    fn a_regressed_case_is_a_failure_with_its_reason() {
        let xml = results("bob-eval run", &[CiOutcome::Ran(&regressed_doc())]);
        assert!(
            xml.contains(
                r#"<testsuite name="commit" tests="2" failures="1" errors="0" skipped="0">"#
            ),
            "{xml}"
        );
        assert!(xml.contains(r#"name="fires &lt;&amp;&gt;""#), "{xml}");
        assert!(
            xml.contains(r#"<failure message="regressed: with 0.00 is below without 1.00 (delta -1.00): the item makes this case worse" type="regressed">"#),
            "{xml}"
        );
    }

    fn graders(failure: &str) -> Vec<crate::document::GraderEval> {
        serde_json::from_value(serde_json::json!([
            {"name": "subject", "kind": "scored", "with": {"passed": 0, "runs": 2},
             "without": {"passed": 2, "runs": 2}, "failure": failure},
            {"name": "fires", "kind": "with-only", "with": {"passed": 2, "runs": 2}}
        ]))
        .unwrap()
    }

    #[test]
    fn failed_graders_give_the_reason_and_a_grader_that_threw_is_an_error() {
        let mut doc = regressed_doc();
        doc.cases[1].graders = Some(graders("pattern not found in last_message"));
        let xml = results("bob-eval run", &[CiOutcome::Ran(&doc)]);
        assert!(
            xml.contains("the item makes this case worse; failed graders: subject: pattern not found in last_message\""),
            "{xml}"
        );
        doc.cases[1].graders = Some(graders("grader threw: failed to read baseline"));
        doc.cases[1].graders.as_mut().unwrap()[0].error = true;
        let xml = results("bob-eval run", &[CiOutcome::Ran(&doc)]);
        assert!(
            xml.contains(
                r#"<testsuite name="commit" tests="2" failures="0" errors="1" skipped="0">"#
            ),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<error message="an error of the suite, not the model failing: subject threw instead of judging: grader threw: failed to read baseline" type="grader-error""#),
            "{xml}"
        );
        assert!(
            xml.contains("! subject (scored) with 0/2, without 2/2"),
            "{xml}"
        );
    }

    #[test]
    fn an_item_that_could_not_run_is_an_error() {
        let xml = results(
            "bob-eval sweep",
            &[CiOutcome::Failed {
                item: "beta",
                error: "the plugin did not load",
                exit_code: 3,
            }],
        );
        assert!(
            xml.contains(r#"<error message="could not run (exit 3): the plugin did not load" type="exit-3"/>"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"tests="1" failures="0" errors="1">"#),
            "{xml}"
        );
    }

    #[test]
    fn every_failed_condition_of_a_reject_is_a_failure() {
        let doc = SkillEval::sample(0.5, 0.75);
        let d = crate::gate::decide(&doc, &Baseline::empty("commit"));
        assert!(!d.accepted);
        let xml = gate(&d);
        assert_eq!(xml.matches("<failure ").count(), d.reasons().len(), "{xml}");
        for reason in d.reasons() {
            assert!(xml.contains(&escape(&reason)), "{xml}");
        }
    }

    #[test]
    fn efficiency_is_a_property_per_figure_and_a_line_per_case() {
        let doc = crate::report::efficiency::tests::doc(
            (&[0.03, 0.031, 0.029], &[0.01, 0.011, 0.009]),
            (&[3.0; 3], &[3.0; 3]),
        );
        let xml = results("bob-eval run", &[CiOutcome::Ran(&doc)]);
        assert!(
            xml.contains(r#"<property name="efficiency_cost_usd_ratio" value="3.00× ["#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<property name="efficiency_cost_usd_ratio_excludes_1" value="true"/>"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<property name="efficiency_turns_ratio_excludes_1" value="false"/>"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<property name="efficiency_turns_with" value="3.00 [3.00, 3.00]"/>"#),
            "{xml}"
        );
        assert!(
            xml.contains("&#10;with/without per run: cost 3.00× ["),
            "{xml}"
        );
        // A document written before efficiency was measured: as before.
        let old = results("bob-eval run", &[CiOutcome::Ran(&regressed_doc())]);
        assert!(!old.contains("efficiency"), "{old}");
        assert!(!old.contains("with/without"), "{old}");
    }
}
