//! `--format junit` and `--format markdown` on `check`, `run`, `gate` and
//! `sweep`, and the Markdown `sweep` and `propose` append to
//! `$GITHUB_STEP_SUMMARY`. `run` and `sweep` run against the stub platform,
//! `check` and `gate` on fixtures. The JUnit is read by a real consumer's
//! parser, Python's `junitparser` (`make test` installs it), not by string
//! checks alone.

use crate::support;
use support::tier::{self, Tool};

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};
use support::cmd::bob;
use support::data::data;
use support::stub::Switches;
use support::world;

/// Reads a JUnit file with junitparser and prints what it understood as JSON:
/// the root's counts, then each suite's counts, properties and cases.
const JUNITPARSER: &str = r#"
import json, sys
from junitparser import JUnitXml
xml = JUnitXml.fromfile(sys.argv[1])
out = {"name": xml.name, "tests": xml.tests, "failures": xml.failures,
       "errors": xml.errors, "suites": []}
for s in xml:
    cases = [{"name": c.name, "classname": c.classname, "out": c.system_out,
              "results": [{"kind": type(r).__name__.lower(), "message": r.message,
                           "type": r.type} for r in c.result]}
             for c in s]
    out["suites"].append({"name": s.name, "tests": s.tests, "failures": s.failures,
                          "errors": s.errors, "skipped": s.skipped,
                          "properties": {p.name: p.value for p in s.properties()},
                          "cases": cases})
print(json.dumps(out))
"#;

/// `xml` as junitparser reads it; and the counts it declares are the counts
/// of the cases it holds, suite by suite and in all. None when junitparser
/// is missing and the test may skip the rest ([`tier::present`]).
pub(crate) fn junit(xml: &str) -> Option<Value> {
    if !tier::present(Tool::Junitparser) {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("junit.xml");
    std::fs::write(&file, xml).unwrap();
    let out = Command::new("python3")
        .arg("-c")
        .arg(JUNITPARSER)
        .arg(&file)
        .output()
        .expect("python3 runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("No module named 'junitparser'"),
        "junitparser is missing: `python3 -m pip install junitparser` (`make test` installs it)"
    );
    assert!(out.status.success(), "junitparser refused it: {err}\n{xml}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let kind_count = |cases: &[Value], kind: &str| {
        cases
            .iter()
            .filter(|c| {
                c["results"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|r| r["kind"] == kind)
            })
            .count() as u64
    };
    let mut all = Vec::new();
    for s in v["suites"].as_array().unwrap() {
        let cases = s["cases"].as_array().unwrap();
        assert_eq!(s["tests"], cases.len() as u64, "{s}");
        assert_eq!(s["failures"], kind_count(cases, "failure"), "{s}");
        assert_eq!(s["errors"], kind_count(cases, "error"), "{s}");
        assert_eq!(s["skipped"], kind_count(cases, "skipped"), "{s}");
        all.extend(cases.iter().cloned());
    }
    assert_eq!(v["tests"], all.len() as u64, "{v}");
    assert_eq!(v["failures"], kind_count(&all, "failure"), "{v}");
    assert_eq!(v["errors"], kind_count(&all, "error"), "{v}");
    Some(v)
}

/// The suite named `name`.
pub(crate) fn suite<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["suites"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no testsuite {name}: {v}"))
}

/// The messages of the results of `kind` in `suite`, case by case.
fn messages(suite: &Value, kind: &str) -> Vec<(String, String)> {
    suite["cases"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| {
            c["results"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| r["kind"] == kind)
                .map(|r| {
                    (
                        c["name"].as_str().unwrap().to_string(),
                        r["message"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The Markdown tables in `md`: each a header row, then its data rows (the
/// separator row checked and left out), cells trimmed.
fn tables(md: &str) -> Vec<Vec<Vec<String>>> {
    let split = |line: &str| -> Vec<String> {
        let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
        // `\|` is a pipe inside a cell.
        inner
            .replace("\\|", "\u{0}")
            .split('|')
            .map(|c| c.trim().replace('\u{0}', "|"))
            .collect()
    };
    let mut found = Vec::new();
    let lines: Vec<&str> = md.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].starts_with('|') {
            let header = split(lines[i]);
            let separator = split(lines.get(i + 1).copied().unwrap_or_default());
            assert_eq!(separator.len(), header.len(), "{md}");
            assert!(
                separator.iter().all(|c| c == "---" || c == "---:"),
                "not a separator row under {header:?}: {md}"
            );
            let mut table = vec![header];
            i += 2;
            while i < lines.len() && lines[i].starts_with('|') {
                let row = split(lines[i]);
                assert_eq!(row.len(), table[0].len(), "{}: {md}", lines[i]);
                table.push(row);
                i += 1;
            }
            found.push(table);
        } else {
            i += 1;
        }
    }
    found
}

/// The table whose first header cell is `first`.
fn table<'a>(md: &str, first: &str, all: &'a [Vec<Vec<String>>]) -> &'a Vec<Vec<String>> {
    all.iter()
        .find(|t| t[0][0] == first)
        .unwrap_or_else(|| panic!("no table headed `{first}`: {md}"))
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The pipelines' platform capture with the `quiet` case's with arm failing:
/// `fires` improves, `quiet` regresses.
fn regressed_capture() -> Vec<u8> {
    let text = std::fs::read_to_string(data("pipelines/aggregate-result.json")).unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    for case in doc["cases"].as_array_mut().unwrap() {
        if case["name"] == "quiet" {
            for run in case["arms"]["with"].as_array_mut().unwrap() {
                run["score"] = 0.into();
                run["passed"] = false.into();
            }
        }
    }
    serde_json::to_vec(&doc).unwrap()
}

/// A temp world: a source tree with suites for `items` (the real-source
/// commit suite under each name), a pattern page, a home and a stub `claude`.
struct World(world::World);

impl std::ops::Deref for World {
    type Target = world::World;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl World {
    fn new(items: &[&str], switches: Switches) -> World {
        World(world::World::new(items, switches))
    }

    /// A world whose platform answers with [`regressed_capture`].
    fn regressed(items: &[&str]) -> World {
        World::new(
            items,
            Switches {
                fixture: Some(regressed_capture()),
                ..Switches::default()
            },
        )
    }

    /// `bob-eval --source <source> --home <home> <args…>`, the stub as the
    /// platform, in the world's folder, without `$GITHUB_STEP_SUMMARY`.
    fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = self.command(bob(&self.source, &self.home()));
        cmd.env_remove("GITHUB_STEP_SUMMARY").args(args);
        cmd
    }

    fn summary_file(&self) -> PathBuf {
        self.root.join("step-summary.md")
    }
}

// ---------------------------------------------------------------- check

/// A source with a clean suite `alpha` and a suite `beta` with two errors
/// (unknown keys, one spelled with markup and a control character XML 1.0
/// cannot hold) and one warning (a gated tool).
fn check_world() -> World {
    let w = World::new(&["alpha", "beta"], Switches::default());
    let prompt = w.source.join("evals/beta/fires/prompt.md");
    let text = std::fs::read_to_string(&prompt).unwrap();
    std::fs::write(
        &prompt,
        text.replacen(
            "max_turns: 5\n",
            "max_turns: 5\nmax_turn: 5\n\"we<ird>|&\\x01key\": 1\n",
            1,
        ),
    )
    .unwrap();
    let quiet = w.source.join("evals/beta/quiet/prompt.md");
    let text = std::fs::read_to_string(&quiet).unwrap();
    std::fs::write(
        &quiet,
        text.replacen("max_turns: 5\n", "max_turns: 5\nallowed_tools: [Bash]\n", 1),
    )
    .unwrap();
    w
}

#[test]
fn check_junit_has_a_suite_per_item_and_a_failure_per_error() {
    let w = check_world();
    let json = w.cmd(&["check", "--json"]).output().unwrap();
    assert_eq!(json.status.code(), Some(1), "{}", stderr(&json));
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        (report["errors"].as_u64(), report["warnings"].as_u64()),
        (Some(2), Some(1)),
        "{report}"
    );

    let out = w.cmd(&["check", "--format", "junit"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "the exit code is the format's too"
    );
    let Some(v) = junit(&stdout(&out)) else {
        return;
    };
    assert_eq!(v["name"], "bob-eval check");
    assert_eq!(v["suites"].as_array().unwrap().len(), 2, "{v}");
    let alpha = suite(&v, "alpha");
    assert_eq!(
        (alpha["tests"].as_u64(), alpha["failures"].as_u64()),
        (Some(1), Some(0)),
        "{alpha}"
    );
    let beta = suite(&v, "beta");
    assert_eq!(beta["tests"], 3, "a testcase per finding: {beta}");
    assert_eq!(beta["failures"], 2, "{beta}");
    assert_eq!(beta["properties"]["dir"], "evals/beta");
    let failures = messages(beta, "failure");
    for d in report["diagnostics"].as_array().unwrap() {
        if d["severity"] != "error" {
            continue;
        }
        let (message, fix) = (d["message"].as_str().unwrap(), d["fix"].as_str().unwrap());
        // A control character XML cannot hold is written visibly; the rest is as said.
        let message = message.replace('\u{1}', "\\u{0001}");
        assert!(
            failures
                .iter()
                .any(|(_, m)| *m == format!("{message} — fix: {fix}")),
            "{message} not among {failures:?}"
        );
    }
    assert!(
        failures
            .iter()
            // check itself now shows the control character as a space.
            .any(|(_, m)| m.contains("we<ird>|&")),
        "{failures:?}"
    );
    let warning = beta["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"].as_str().unwrap().starts_with("gated-tool "))
        .unwrap();
    assert!(
        warning["results"].as_array().unwrap().is_empty(),
        "a warning passes: {warning}"
    );
    assert!(
        warning["out"].as_str().unwrap().contains("warning: "),
        "{warning}"
    );

    let clean = World::new(&["alpha"], Switches::default());
    let out = clean.cmd(&["check", "--format", "junit"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    if let Some(v) = junit(&stdout(&out)) {
        assert_eq!(v["failures"], 0);
    }
}

#[test]
fn check_markdown_has_a_row_per_suite_and_per_finding() {
    let w = check_world();
    let out = w.cmd(&["check", "--format", "markdown"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let md = stdout(&out);
    assert!(
        md.starts_with("### ❌ bob-eval check: 2 errors, 1 warning in 2 suites"),
        "{md}"
    );
    let all = tables(&md);
    let suites = table(&md, "suite", &all);
    assert_eq!(suites[0], ["suite", "cases", "errors", "warnings"]);
    assert_eq!(
        suites[1..],
        [
            ["alpha", "2", "0", "0"].map(String::from).to_vec(),
            ["beta", "2", "2", "1"].map(String::from).to_vec(),
        ]
    );
    let findings = table(&md, "severity", &all);
    assert_eq!(findings[0], ["severity", "code", "where", "finding", "fix"]);
    assert_eq!(findings.len(), 1 + 3, "a row per finding: {md}");
    assert!(
        findings[1..].iter().any(|r| r[0] == "error"
            && r[1] == "`unknown-key`"
            && r[2].starts_with("`evals/beta/fires/prompt.md:")),
        "{md}"
    );
    assert!(
        findings[1..]
            .iter()
            .any(|r| r[0] == "warning" && r[1] == "`gated-tool`"),
        "{md}"
    );
}

#[test]
fn check_json_is_an_alias_of_format_json_and_not_both() {
    let w = check_world();
    let a = w.cmd(&["check", "--json"]).output().unwrap();
    let b = w.cmd(&["check", "--format", "json"]).output().unwrap();
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(a.status.code(), b.status.code());
    let both = w
        .cmd(&["check", "--json", "--format", "junit"])
        .output()
        .unwrap();
    assert_eq!(both.status.code(), Some(2), "{}", stderr(&both));
}

// ---------------------------------------------------------------- gate

/// A source tree for `commit` whose baseline is the gate fixture's.
fn gate_world() -> World {
    let w = World::new(&["commit"], Switches::default());
    std::fs::copy(
        data("gate/baseline.json"),
        w.source.join("evals/commit/baseline.json"),
    )
    .unwrap();
    w
}

#[test]
fn gate_junit_fails_a_reject_with_its_reasons() {
    let w = gate_world();
    let result = data("gate/result-equal.json");
    let args = ["gate", "commit", result.to_str().unwrap()];
    let json = w.cmd(&args).arg("--json").output().unwrap();
    assert_eq!(json.status.code(), Some(1), "{}", stderr(&json));
    let decision: Value = serde_json::from_slice(&json.stdout).unwrap();
    let reasons: Vec<&str> = decision["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "fail")
        .map(|c| c["text"].as_str().unwrap())
        .collect();
    assert!(!reasons.is_empty());

    let out = w.cmd(&args).args(["--format", "junit"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "a reject exits 1 in every format"
    );
    let Some(v) = junit(&stdout(&out)) else {
        return;
    };
    assert_eq!(v["name"], "bob-eval gate");
    let commit = suite(&v, "commit");
    assert_eq!(commit["tests"], 4, "a testcase per condition: {commit}");
    let failed: Vec<String> = messages(commit, "failure")
        .into_iter()
        .map(|(_, m)| m)
        .collect();
    assert_eq!(failed, reasons, "the reasons are the messages");
    assert_eq!(commit["properties"]["accepted"], "false");

    let accept = data("gate/result-accept.json");
    let out = w
        .cmd(&[
            "gate",
            "commit",
            accept.to_str().unwrap(),
            "--format",
            "junit",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    if let Some(v) = junit(&stdout(&out)) {
        assert_eq!(v["failures"], 0);
    }
}

#[test]
fn gate_markdown_has_a_row_per_condition() {
    let w = gate_world();
    let result = data("gate/result-equal.json");
    let out = w
        .cmd(&[
            "gate",
            "commit",
            result.to_str().unwrap(),
            "--format",
            "markdown",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let md = stdout(&out);
    assert!(
        md.starts_with("### ❌ bob-eval gate: commit rejected on "),
        "{md}"
    );
    let all = tables(&md);
    let numbers = table(&md, "run", &all);
    assert_eq!(numbers.len(), 2, "{md}");
    let conditions = table(&md, "condition", &all);
    assert_eq!(conditions[0], ["condition", "outcome", "why"]);
    let names: Vec<&str> = conditions[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(
        names,
        ["`not-partial`", "`beats-best`", "`helps`", "`trigger-rate`"]
    );
    assert!(conditions.iter().any(|r| r[1] == "✗ fail"), "{md}");
}

#[test]
fn gate_record_says_what_it_wrote_on_stderr_under_a_machine_format() {
    let w = gate_world();
    let result = data("gate/result-accept.json");
    let out = w
        .cmd(&[
            "gate",
            "commit",
            result.to_str().unwrap(),
            "--record",
            "--rule",
            "bare",
            "--pr",
            "#1",
            "--pages",
            "commit-skipped-hook",
            "--format",
            "junit",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    junit(&stdout(&out));
    assert!(stderr(&out).contains("recorded: "), "{}", stderr(&out));
}

// ---------------------------------------------------------------- run

#[test]
fn run_junit_replaces_the_document_on_stdout_and_out_keeps_it() {
    let w = World::regressed(&["commit"]);
    let out_file = w.root.join("result.json");
    let out = w
        .cmd(&["run", "commit", "--format", "junit", "--out"])
        .arg(&out_file)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "a regression is not a failed run: {}",
        stderr(&out)
    );
    let doc: Value = serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap();
    assert_eq!(doc["schema"], "skill-eval/1");
    let Some(v) = junit(&stdout(&out)) else {
        return;
    };
    assert_eq!(v["name"], "bob-eval run");
    assert_eq!(v["suites"].as_array().unwrap().len(), 1);
    let commit = suite(&v, "commit");
    assert_eq!(
        commit["tests"],
        doc["cases"].as_array().unwrap().len() as u64,
        "a testcase per case"
    );
    assert_eq!(commit["failures"], 1, "{commit}");
    let failures = messages(commit, "failure");
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].0, "quiet");
    assert!(
        failures[0]
            .1
            .starts_with("regressed: with 0.00 is below without 1.00"),
        "{failures:?}"
    );
    assert_eq!(commit["properties"]["run"], doc["run"]);
    assert!(
        stderr(&out).contains("wrote "),
        "the human summary stays on stderr"
    );

    // Without --out, the JUnit is all stdout holds.
    let out = w
        .cmd(&["run", "commit", "--format", "junit"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).starts_with("<?xml "), "{}", stdout(&out));
    junit(&stdout(&out));
}

#[test]
fn run_markdown_has_a_row_for_the_item_and_one_per_case() {
    let w = World::regressed(&["commit"]);
    let out = w
        .cmd(&["run", "commit", "--format", "markdown"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let md = stdout(&out);
    assert!(
        md.starts_with("### ⚠️ bob-eval run: 1 item — 1 no-signal"),
        "{md}"
    );
    let all = tables(&md);
    let items = table(&md, "item", &all);
    assert_eq!(
        items[0],
        [
            "item", "model", "with", "without", "delta", "verdict", "trigger", "cost", "cost×",
            "turns×"
        ]
    );
    assert_eq!(items.len(), 2);
    assert_eq!(items[1][0], "commit");
    let cases = table(&md, "case", &all);
    assert_eq!(cases.len(), 1 + 2, "a row per case: {md}");
    let quiet = cases.iter().find(|r| r[0] == "quiet").unwrap();
    assert_eq!(quiet[4], "regressed");
    assert_eq!(quiet[1..4], ["0.0000", "1.0000", "-1.0000"]);
}

#[test]
fn run_has_no_human_format() {
    let w = World::regressed(&["commit"]);
    let out = w
        .cmd(&["run", "commit", "--format", "human"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(w.stub.record("argv").is_none(), "nothing ran");
}

// ---------------------------------------------------------------- sweep

/// A sweep of alpha, beta and commit where beta's plugin fails to load.
fn sweep_world() -> World {
    World::new(
        &["alpha", "beta", "commit"],
        Switches {
            fixture: Some(regressed_capture()),
            fail_plugin: Some("bob-eval-beta"),
            ..Switches::default()
        },
    )
}

#[test]
fn sweep_junit_has_a_suite_per_item_and_keeps_the_exit_code() {
    let w = sweep_world();
    let out = w
        .cmd(&["sweep", "--jobs", "3", "--format", "junit"])
        .env("EVALS", "1")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "a suite could not run: {}",
        stderr(&out)
    );
    let Some(v) = junit(&stdout(&out)) else {
        return;
    };
    assert_eq!(v["name"], "bob-eval sweep");
    let names: Vec<&str> = v["suites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alpha", "beta", "commit"]);
    for item in ["alpha", "commit"] {
        let s = suite(&v, item);
        assert_eq!(
            (s["tests"].as_u64(), s["failures"].as_u64()),
            (Some(2), Some(1)),
            "{s}"
        );
        assert_eq!(messages(s, "failure")[0].0, "quiet");
    }
    let beta = suite(&v, "beta");
    let errors = messages(beta, "error");
    assert_eq!(errors.len(), 1, "{beta}");
    assert!(
        errors[0].1.starts_with("could not run (exit 3): "),
        "{errors:?}"
    );
    assert_eq!(v["errors"], 1);

    // Every suite ran: exit 0, as without --format.
    let w = World::regressed(&["alpha", "commit"]);
    let out = w
        .cmd(&["sweep", "--format", "junit"])
        .env("EVALS", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    if let Some(v) = junit(&stdout(&out)) {
        assert_eq!(v["failures"], 2);
    }
}

#[test]
fn sweep_markdown_has_a_row_per_item_and_per_case() {
    let w = sweep_world();
    let out = w
        .cmd(&["sweep", "--format", "markdown"])
        .env("EVALS", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let md = stdout(&out);
    assert!(
        md.starts_with("### ❌ bob-eval sweep: 3 items — 2 no-signal, 1 could not run"),
        "{md}"
    );
    let all = tables(&md);
    let items = table(&md, "item", &all);
    let names: Vec<&str> = items[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(names, ["alpha", "beta", "commit"]);
    assert_eq!(items[2][5], "could not run (exit 3)");
    let case_tables: Vec<_> = all.iter().filter(|t| t[0][0] == "case").collect();
    assert_eq!(case_tables.len(), 2, "one per item that ran: {md}");
    for t in case_tables {
        assert_eq!(t.len(), 1 + 2, "{md}");
    }
    assert!(md.contains("- **beta** could not run (exit 3): "), "{md}");
    assert!(
        md.contains("<details><summary>alpha: 2 cases (1 regressed), no-signal</summary>"),
        "{md}"
    );
}

#[test]
fn a_skipped_sweep_prints_an_empty_junit_and_says_why_on_stderr() {
    let w = sweep_world();
    let out = w.cmd(&["sweep", "--format", "junit"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let Some(v) = junit(&stdout(&out)) else {
        return;
    };
    assert_eq!(v["tests"], 0);
    assert!(
        stderr(&out).contains("skipped: set EVALS=1"),
        "{}",
        stderr(&out)
    );
    let out = w.cmd(&["sweep"]).output().unwrap();
    assert_eq!(
        stdout(&out),
        "skipped: set EVALS=1 to run every suite (costs money)\n"
    );
}

#[test]
fn sweep_appends_its_markdown_to_the_step_summary() {
    let w = sweep_world();
    let file = w.summary_file();
    std::fs::write(&file, "earlier step\n").unwrap();
    for _ in 0..2 {
        let out = w
            .cmd(&["sweep", "--json"])
            .env("EVALS", "1")
            .env("GITHUB_STEP_SUMMARY", &file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            rows.as_array().unwrap().len(),
            3,
            "stdout is the format's alone"
        );
    }
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.starts_with("earlier step\n### ❌ bob-eval sweep: 3 items"),
        "{text}"
    );
    assert_eq!(
        text.matches("### ❌ bob-eval sweep").count(),
        2,
        "appended twice: {text}"
    );
    let all = tables(&text);
    assert_eq!(all.iter().filter(|t| t[0][0] == "item").count(), 2);

    // A skipped sweep ran nothing and appends nothing; an empty variable is unset.
    let out = w
        .cmd(&["sweep"])
        .env("GITHUB_STEP_SUMMARY", &file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    let out = w
        .cmd(&["sweep"])
        .env("EVALS", "1")
        .env("GITHUB_STEP_SUMMARY", "")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
}

#[test]
fn a_step_summary_that_cannot_be_written_is_a_warning() {
    let w = World::regressed(&["commit"]);
    let out = w
        .cmd(&["sweep"])
        .env("EVALS", "1")
        .env("GITHUB_STEP_SUMMARY", &w.root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("could not append the summary"),
        "{}",
        stderr(&out)
    );
}

// ---------------------------------------------------------------- propose

#[test]
fn propose_appends_its_markdown_to_the_step_summary_creating_it() {
    let w = World::new(
        &["commit"],
        Switches::answering(data("pipelines/aggregate-result.json")),
    );
    let file = w.root.join("summaries/step.md");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let propose = |w: &World| {
        w.cmd(&[
            "propose",
            "commit",
            "--rule",
            "bare",
            "--model",
            "haiku",
            "--pr",
            "#4300",
            "--pages",
            "commit-skipped-hook",
        ])
        .env("GITHUB_STEP_SUMMARY", &file)
        .output()
        .unwrap()
    };
    let out = propose(&w);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("commit: accepted"),
        "human output unchanged: {}",
        stdout(&out)
    );
    let first = std::fs::read_to_string(&file).unwrap();
    assert!(
        first.starts_with("### ✅ bob-eval propose: commit accepted on haiku"),
        "{first}"
    );
    let all = tables(&first);
    assert_eq!(table(&first, "condition", &all).len(), 1 + 4);
    assert_eq!(table(&first, "case", &all).len(), 1 + 2);

    let out = propose(&w);
    assert_eq!(out.status.code(), Some(1), "an equal score is rejected");
    let both = std::fs::read_to_string(&file).unwrap();
    assert!(both.starts_with(&first), "appended, not replaced");
    assert!(
        both[first.len()..].starts_with("### ❌ bob-eval propose: commit rejected on haiku"),
        "{both}"
    );
}

// ---------------------------------------------------------------- script

#[test]
fn an_operator_script_publishes_to_the_step_summary_but_never_picks_its_path() {
    let w = World::regressed(&["commit"]);
    let script = w.root.join("mine.rhai");
    std::fs::write(
        &script,
        "let r = evaluate(\"commit\", #{ runs: 1, max_cost_usd: \"0.2\" });\npublish([r]);\n0\n",
    )
    .unwrap();
    let file = w.summary_file();
    let out = w
        .cmd(&["script"])
        .arg(&script)
        .env("GITHUB_STEP_SUMMARY", &file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty(), "publish prints nothing");
    let md = std::fs::read_to_string(&file).unwrap();
    assert!(md.starts_with("### ⚠️ bob-eval script "), "{md}");
    assert_eq!(table(&md, "case", &tables(&md)).len(), 1 + 2, "{md}");

    // Only results and evaluate_all's rows: anything else is the script's mistake.
    std::fs::write(&script, "publish([42]);\n").unwrap();
    let out = w
        .cmd(&["script"])
        .arg(&script)
        .env("GITHUB_STEP_SUMMARY", &file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("publish: each element must be"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        md,
        "nothing appended"
    );
}
