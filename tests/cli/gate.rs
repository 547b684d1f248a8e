//! `bob-eval gate` and `bob-eval check-wiki` end to end, on the built binary.

use crate::support;
use support::stub::Switches;
use support::world::World;

use assert_cmd::prelude::*;
use camino::{Utf8Path, Utf8PathBuf};
use predicates::prelude::*;
use serde_json::Value;
use std::fs;
use std::path::Path;
use std::process::Command;
use support::cmd::bob;

fn data(name: &str) -> Utf8PathBuf {
    Utf8PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gate")
        .join(name)
}

/// A world (testkit's) whose source has `evals/commit/`, two pattern pages
/// and, when given, a baseline fixture.
fn source(baseline: Option<&str>) -> World {
    let s = World::empty(Switches::default());
    fs::create_dir_all(s.source.join("evals/commit")).unwrap();
    s.write(
        "wiki/patterns/commit-skipped-hook.md",
        "# Commit messages that skip hooks\n",
    );
    s.write("wiki/patterns/second-page.md", "# Second\n");
    if let Some(b) = baseline {
        fs::copy(data(b), s.source.join("evals/commit/baseline.json")).unwrap();
    }
    s
}

/// What these tests do in a world.
trait Gates {
    fn root(&self) -> Utf8PathBuf;
    fn cmd(&self) -> Command;
    fn gate(&self, result: &str, extra: &[&str]) -> assert_cmd::assert::Assert;
    fn baseline(&self) -> Option<String>;
    fn wiki(&self) -> Option<String>;
    fn snapshot(&self) -> Vec<(Utf8PathBuf, Vec<u8>)>;
}

impl Gates for World {
    /// The source tree, as a UTF-8 path.
    fn root(&self) -> Utf8PathBuf {
        Utf8PathBuf::from_path_buf(self.source.clone()).unwrap()
    }

    fn cmd(&self) -> Command {
        bob(&self.source, &self.home())
    }

    fn gate(&self, result: &str, extra: &[&str]) -> assert_cmd::assert::Assert {
        self.cmd()
            .arg("gate")
            .arg("commit")
            .arg(data(result))
            .args(extra)
            .assert()
    }

    fn baseline(&self) -> Option<String> {
        fs::read_to_string(self.source.join("evals/commit/baseline.json")).ok()
    }

    fn wiki(&self) -> Option<String> {
        fs::read_to_string(self.source.join("wiki/skill-impact.md")).ok()
    }

    /// Every file under the source and the home, for "nothing written" checks.
    fn snapshot(&self) -> Vec<(Utf8PathBuf, Vec<u8>)> {
        fn walk(dir: &Utf8Path, out: &mut Vec<(Utf8PathBuf, Vec<u8>)>) {
            for e in dir.read_dir_utf8().unwrap() {
                let e = e.unwrap();
                if e.file_type().unwrap().is_dir() {
                    walk(e.path(), out);
                } else {
                    out.push((e.path().to_owned(), fs::read(e.path()).unwrap()));
                }
            }
        }
        let mut out = vec![];
        walk(
            &Utf8PathBuf::from_path_buf(self.root.clone()).unwrap(),
            &mut out,
        );
        out.sort();
        out
    }
}

/// `--record` under the seed's bare rule: these tests are about what
/// recording writes (the default mode has its own tests in tests/cli/decide.rs).
const RECORD: &[&str] = &[
    "--record",
    "--rule",
    "bare",
    "--pr",
    "#4300",
    "--pages",
    "commit-skipped-hook",
];

/// `--record` at default settings.
const RECORD_DEFAULT: &[&str] = &[
    "--record",
    "--pr",
    "#4300",
    "--pages",
    "commit-skipped-hook",
];

#[test]
fn accept_exits_0_with_a_verdict_block() {
    let s = source(Some("baseline.json"));
    s.gate("result-accept.json", &[])
        .code(0)
        .stdout(predicate::str::contains(
            "ACCEPTED: commit on claude-sonnet-5-5",
        ))
        .stdout(predicate::str::contains(
            "✓ with 0.9167 is above the best 0.83 recorded for claude-sonnet-5-5",
        ));
}

#[test]
fn reject_exits_1_naming_every_failure() {
    let s = source(Some("baseline.json"));
    s.gate("result-equal.json", &[])
        .code(1)
        .stdout(predicate::str::contains("REJECTED"))
        .stdout(predicate::str::contains(
            "✗ with 0.83 is not above the best 0.83 recorded for claude-sonnet-5-5",
        ))
        .stdout(predicate::str::contains(
            "✗ trigger rate 0.50 is below the best's 1.00",
        ));
}

#[test]
fn partial_is_rejected_even_with_no_best() {
    let s = source(None);
    s.gate("result-partial.json", &["--json"])
        .code(1)
        .stdout(predicate::str::contains(
            "the result is partial (cost_ceiling) and a partial result is never accepted",
        ));
}

#[test]
fn json_prints_the_decision_document() {
    let s = source(Some("baseline-legacy.json"));
    let out = s
        .gate("result-accept.json", &["--json"])
        .code(0)
        .get_output()
        .stdout
        .clone();
    let d: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(d["accepted"], true);
    assert_eq!(d["item"], "commit");
    assert_eq!(d["model"], "claude-sonnet-5-5");
    assert_eq!(d["with"], 0.9167);
    assert_eq!(d["best"]["score"], 0.83);
    assert_eq!(d["best"]["trigger_rate"], Value::Null);
    let statuses: Vec<_> = d["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["status"].clone())
        .collect();
    assert_eq!(statuses, ["pass", "pass", "pass", "skipped"]);
    assert!(
        d["conditions"][3]["text"]
            .as_str()
            .unwrap()
            .contains("has no trigger rate")
    );
}

#[test]
fn invalid_inputs_exit_2_naming_the_file() {
    let s = source(Some("baseline.json"));
    s.gate("result-other-item.json", &[])
        .code(2)
        .stderr(predicate::str::contains("result-other-item.json"))
        .stderr(predicate::str::contains(
            "for item \"tdd-flow\", not \"commit\"",
        ));
    s.gate("result-invalid.json", &[])
        .code(2)
        .stderr(predicate::str::contains("result-invalid.json"))
        .stderr(predicate::str::contains("/with"));
    s.gate("result-broken.json", &[])
        .code(2)
        .stderr(predicate::str::contains("result-broken.json:3"));
    s.gate("no-such-result.json", &[])
        .code(2)
        .stderr(predicate::str::contains("no-such-result.json"));
    s.cmd()
        .args(["gate", "Bad/Name"])
        .arg(data("result-accept.json"))
        .assert()
        .code(2);
}

#[test]
fn corrupt_or_foreign_baseline_exits_2_and_writes_nothing() {
    for (fixture, want) in [
        ("baseline-corrupt.json", "evals/commit/baseline.json:5"),
        (
            "baseline-other-item.json",
            "for item \"tdd-flow\", not \"commit\"",
        ),
    ] {
        let s = source(Some(fixture));
        let before = s.snapshot();
        s.gate("result-accept.json", RECORD)
            .code(2)
            .stderr(predicate::str::contains(want));
        assert_eq!(s.snapshot(), before, "{fixture}");
    }
    let s = source(None);
    fs::write(
        s.root().join("evals/commit/baseline.json"),
        r#"{"schema": "skill-eval-baseline/1", "item": "commit", "best": {"m": {"score": 2}}}"#,
    )
    .unwrap();
    s.gate("result-accept.json", &[])
        .code(2)
        .stderr(predicate::str::contains("evals/commit/baseline.json"));
}

#[test]
fn record_arguments_are_checked_first_and_nothing_is_written() {
    let s = source(Some("baseline.json"));
    let before = s.snapshot();
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "--record",
                "--rule",
                "bare",
                "--pages",
                "commit-skipped-hook",
            ],
            "--record needs --pr",
        ),
        (
            &["--record", "--rule", "bare", "--pr", "#4300"],
            "--record needs at least one --pages",
        ),
        (
            &[
                "--record",
                "--rule",
                "bare",
                "--pr",
                "#4300",
                "--pages",
                "commit-skipped-hook,gone",
            ],
            "wiki/patterns/gone.md does not exist",
        ),
        (
            &[
                "--record",
                "--rule",
                "bare",
                "--pr",
                "#43|00",
                "--pages",
                "commit-skipped-hook",
            ],
            "'|'",
        ),
        (
            &["--pr", "#4300", "--pages", "commit-skipped-hook"],
            "only apply with --record",
        ),
        (
            &["--evidence", "elsewhere.db"],
            "without --record the gate is a check",
        ),
    ];
    for (args, want) in cases {
        s.gate("result-accept.json", args)
            .code(2)
            .stderr(predicate::str::contains(*want));
    }
    // Checked before the result is even read.
    s.gate(
        "no-such-result.json",
        &["--record", "--rule", "bare", "--pr", "#1"],
    )
    .code(2)
    .stderr(predicate::str::contains("--pages"));
    assert_eq!(s.snapshot(), before);
}

#[test]
fn accept_raises_the_best_and_appends_a_row() {
    let s = source(Some("baseline.json"));
    s.gate(
        "result-accept.json",
        &[
            "--record",
            "--rule",
            "bare",
            "--pr",
            "#4300",
            "--pages",
            "commit-skipped-hook",
            "--pages",
            "second-page",
        ],
    )
    .code(0)
    .stdout(predicate::str::contains(
        "raised the best for claude-sonnet-5-5 to 0.9167",
    ));
    let b: Value = serde_json::from_str(&s.baseline().unwrap()).unwrap();
    assert_eq!(
        b["best"]["claude-sonnet-5-5"],
        serde_json::json!({"score": 0.9167, "without": 0.6667, "trigger_rate": 1.0,
                           "run": "eval-commit-20261202T094337Z", "date": "2026-12-02"})
    );
    let wiki = s.wiki().unwrap();
    assert!(wiki.starts_with(bob_eval::wiki::HEADER), "{wiki}");
    assert!(wiki.ends_with(
        "| 2026-12-02 | commit | #4300 | [commit-skipped-hook](patterns/commit-skipped-hook.md), [second-page](patterns/second-page.md) | 0.83 | 0.9167 | accepted |\n"
    ), "{wiki}");
    s.cmd().arg("check-wiki").assert().code(0);
}

#[test]
fn first_accept_creates_the_baseline_with_no_score_before() {
    let s = source(None);
    s.gate("result-accept.json", RECORD).code(0);
    let b: Value = serde_json::from_str(&s.baseline().unwrap()).unwrap();
    assert_eq!(b["schema"], "skill-eval-baseline/1");
    assert_eq!(b["best"]["claude-sonnet-5-5"]["score"], 0.9167);
    assert!(s.wiki().unwrap().contains("| — | 0.9167 | accepted |"));
}

#[test]
fn reject_appends_a_row_and_leaves_the_baseline() {
    let s = source(Some("baseline.json"));
    fs::write(
        s.root().join("wiki/skill-impact.md"),
        fs::read_to_string(data("wiki-good.md")).unwrap(),
    )
    .unwrap();
    let before = s.baseline().unwrap();
    let wiki_before = s.wiki().unwrap();
    s.gate(
        "result-equal.json",
        &[
            "--json",
            "--record",
            "--rule",
            "bare",
            "--pr",
            "#4301",
            "--pages",
            "commit-skipped-hook",
        ],
    )
    .code(1)
    .stderr(predicate::str::contains("appended a rejected row"));
    assert_eq!(s.baseline().unwrap(), before);
    let wiki = s.wiki().unwrap();
    assert_eq!(
        wiki,
        format!(
            "{wiki_before}| 2026-12-02 | commit | #4301 | [commit-skipped-hook](patterns/commit-skipped-hook.md) | 0.83 | 0.83 | rejected |\n"
        )
    );
    s.cmd().arg("check-wiki").assert().code(0);
}

#[test]
fn record_needs_the_suite() {
    let s = source(None);
    fs::remove_dir(s.root().join("evals/commit")).unwrap();
    s.gate("result-accept.json", RECORD)
        .code(2)
        .stderr(predicate::str::contains("no eval suite"));
    assert!(s.wiki().is_none());
}

#[test]
fn check_wiki_accepts_good_rows_and_names_bad_ones() {
    let s = source(None);
    s.cmd().arg("check-wiki").assert().code(0);
    fs::copy(data("wiki-good.md"), s.root().join("wiki/skill-impact.md")).unwrap();
    s.cmd()
        .arg("check-wiki")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("2 row(s)"));

    fs::copy(data("wiki-bad.md"), s.root().join("wiki/skill-impact.md")).unwrap();
    s.cmd()
        .arg("check-wiki")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "wiki/skill-impact.md:6: Pages cited",
        ))
        .stdout(predicate::str::contains(
            "wiki/skill-impact.md:7: cites wiki/patterns/no-such-page.md",
        ))
        .stdout(predicate::str::contains(
            "wiki/skill-impact.md:8: Outcome \"maybe\"",
        ))
        .stdout(predicate::str::contains(":5:").not());

    let out = s
        .cmd()
        .args(["check-wiki", "--json"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let report: Value = serde_json::from_slice(&out).unwrap();
    let lines: Vec<_> = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [6, 7, 8]);
    assert_eq!(report["rows"], 4);
}

#[test]
fn the_projects_own_wiki_passes() {
    let home = tempfile::tempdir().unwrap();
    bob(Path::new(env!("CARGO_MANIFEST_DIR")), home.path())
        .arg("check-wiki")
        .assert()
        .code(0);
}

/// A result whose cases keep their runs per arm (as `run` writes them):
/// per case, (with-arm passes, without-arm passes, runs per arm). The
/// intervals are placeholders: the confidence mode works from the counts.
fn measured_result(dir: &Utf8Path, cases: &[(u32, u32, u32)]) -> Utf8PathBuf {
    let est = |v: f64| serde_json::json!({"value": v, "interval": {"low": 0.0, "high": 1.0, "confidence": 0.95, "method": "score"}});
    let noise = serde_json::json!({"advisory": "within-noise", "interval": {"low": 0.0, "high": 1.0, "confidence": 0.95, "method": "score"}, "runs_needed": null});
    let k = cases.len() as f64;
    let (mut with, mut without) = (0.0, 0.0);
    let docs: Vec<Value> = cases
        .iter()
        .enumerate()
        .map(|(i, &(w, wo, n))| {
            let (mw, mwo) = (f64::from(w) / f64::from(n), f64::from(wo) / f64::from(n));
            with += mw / k;
            without += mwo / k;
            serde_json::json!({
                "name": format!("case-{i}"), "with": mw, "without": mwo, "delta": mw - mwo,
                "verdict": null, "trigger_rate": null, "cost_usd": 0.01, "runs": 2 * n,
                "stats": {"case": i, "runs_with": n, "runs_without": n, "with": est(mw),
                          "without": est(mwo), "delta": est(mw - mwo), "advisory": noise},
            })
        })
        .collect();
    let r4 = |x: f64| (x * 10_000.0).round() / 10_000.0;
    let doc = serde_json::json!({
        "schema": "skill-eval/1", "item": "commit", "run": "eval-commit-20261202T094337Z",
        "date": "2026-12-02", "model": "claude-sonnet-5-5", "with": r4(with), "without": r4(without),
        "delta": r4(with - without), "verdict": "improved", "trigger_rate": null,
        "cost_usd": 0.1, "max_cost_usd": 2.0, "partial": false, "cases": docs,
        "stats": {"confidence": 0.95, "suite": {"with": est(with), "without": est(without),
                  "delta": est(with - without), "advisory": noise, "runs_per_arm": 3.0}},
    });
    let path = dir.join("measured.json");
    fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    path
}

#[test]
fn the_confidence_mode_refuses_a_lucky_result_the_rule_accepts() {
    let s = source(None);
    let lucky = measured_result(&s.root(), &[(2, 1, 3), (3, 3, 3)]);
    let gate = |extra: &[&str]| {
        s.cmd()
            .arg("gate")
            .arg("commit")
            .arg(&lucky)
            .args(extra)
            .assert()
    };
    gate(&[]).code(0);
    gate(&["--confidence", "0.95"])
        .code(1)
        .stdout(predicate::str::contains(
            "confidence    95 %: each estimated condition must also hold clearly",
        ))
        .stdout(predicate::str::contains(
            "✗ delta 0.1667 is within noise at 95 %: its one-sided bound",
        ))
        .stdout(predicate::str::contains(
            "more runs per arm of each case would settle an effect this size",
        ));
    let out = gate(&["--confidence", "0.95", "--format", "json"])
        .code(1)
        .get_output()
        .stdout
        .clone();
    let json: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(json["confidence"], 0.95);
    let helps = json["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "helps-clearly")
        .unwrap();
    assert_eq!(helps["status"], "fail");
    assert!(helps["runs_needed"].as_u64().unwrap() > 3, "{helps}");

    gate(&["--confidence", "95"])
        .code(2)
        .stderr(predicate::str::contains("did you mean 0.95"));

    // The house rule: settings `_workflow.gate_confidence`; the flag beats it.
    fs::create_dir_all(s.home()).unwrap();
    fs::write(
        s.home().join("settings.json"),
        r#"{"_workflow":{"gate_confidence":0.95}}"#,
    )
    .unwrap();
    gate(&[]).code(1);
    gate(&["--confidence", "0.6"]).code(0);
}

#[test]
fn a_best_recorded_under_the_mode_keeps_its_runs() {
    let s = source(None);
    let clear = measured_result(&s.root(), &[(10, 0, 10), (9, 2, 10)]);
    s.cmd()
        .arg("gate")
        .arg("commit")
        .arg(&clear)
        .args(["--confidence", "0.95"])
        .args(RECORD_DEFAULT)
        .assert()
        .code(0);
    let baseline: Value = serde_json::from_str(&s.baseline().unwrap()).unwrap();
    let best = &baseline["best"]["claude-sonnet-5-5"];
    assert_eq!(best["confidence"], 0.95);
    assert_eq!(best["run"], "eval-commit-20261202T094337Z");
    assert_eq!(
        best["evidence"]["cases"][1],
        serde_json::json!({"name": "case-1", "with": {"runs": 10, "sum": 9.0}, "without": {"runs": 10, "sum": 2.0}})
    );
}
