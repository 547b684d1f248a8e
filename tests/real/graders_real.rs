//! Per-grader detail and the kept report (`--report`) on the real platform: the built
//! binary runs the real `claude plugin eval` against the fake Messages API on
//! a copy of `tests/data/real-source` (see tests/real/real_platform.rs for the
//! suite: `fires` has the with-only indicator `fires`, the regex `subject` and
//! the judge `why`; `quiet` has the scored `quiet`).

use crate::support;
use support::tier::{self, Tool};

use serde_json::Value;
use support::cmd::bob;
use support::fake_api::{FakeApi, Script};
use support::real::{claude_bin, platform_env, source_copy};

const SKILL: &str = "bob-eval-commit:commit";
const FIRES_PROMPT: &str = "Write the commit message";
/// A conventional subject (passes `subject`) once the skill is loaded.
const GOOD: &str = "fix(hooks): skip the pre-commit hook when only docs change\n\nSkip the hook because docs-only commits do not need lint or tests.";
/// No conventional subject: fails `subject`.
const BAD: &str = "Skip pre-commit hook for docs-only changes.";
/// What the fake answers every judge request with.
const JUDGE_ERROR: &str = "fake api: the judge is down";

fn grader<'a>(doc: &'a Value, case: &str, name: &str) -> &'a Value {
    let case = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == case)
        .unwrap_or_else(|| panic!("no case {case} in {doc}"));
    case["graders"]
        .as_array()
        .unwrap_or_else(|| panic!("case {case} has no graders: {case}"))
        .iter()
        .find(|g| g["name"] == name)
        .unwrap_or_else(|| panic!("no grader {name} in {case}"))
}

/// The skill fires and GOOD passes `subject` on the with arm; BAD fails it on
/// the without arm ("pattern not found"); every judge call is refused, so
/// `why` threw on every fires run of both arms: an error of the suite.
#[test]
fn a_failing_grader_and_a_grader_error_are_named_with_their_reasons() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let api = FakeApi::start(
        Script::new()
            .fire_skill(SKILL, FIRES_PROMPT, GOOD)
            .otherwise(BAD)
            .judge_error(400, "invalid_request_error", JUDGE_ERROR),
    );
    let dir = tempfile::tempdir().unwrap();
    let source = source_copy(dir.path());
    let home = dir.path().join("bob-home");
    std::fs::create_dir_all(&home).unwrap();
    let out = dir.path().join("result.json");
    let report = dir.path().join("report.html");
    let output = bob(&source, &home)
        .args([
            "run",
            "commit",
            "--runs",
            "1",
            "--max-cost-usd",
            "1",
            "--claude",
        ])
        .arg(claude_bin())
        .arg("--out")
        .arg(&out)
        .arg("--report")
        .arg(&report)
        .current_dir(dir.path())
        .env_clear()
        .envs(platform_env(&api, dir.path()))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let doc: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    bob_eval::schema::validate_skill_eval(&doc, camino::Utf8Path::new("result.json")).unwrap();

    let subject = grader(&doc, "fires", "subject");
    assert_eq!(subject["kind"], "scored");
    assert_eq!(subject["with"], serde_json::json!({"passed": 1, "runs": 1}));
    assert_eq!(
        subject["without"],
        serde_json::json!({"passed": 0, "runs": 1})
    );
    assert_eq!(subject["failure"], "pattern not found in last_message");
    assert!(subject.get("error").is_none());

    let why = grader(&doc, "fires", "why");
    assert_eq!(why["error"], true, "{why}");
    let failure = why["failure"].as_str().unwrap();
    assert!(failure.starts_with("grader threw:"), "{failure}");
    assert!(failure.contains(JUDGE_ERROR), "{failure}");

    let indicator = grader(&doc, "fires", "fires");
    assert_eq!(indicator["kind"], "with-only");
    assert_eq!(
        indicator["with"],
        serde_json::json!({"passed": 1, "runs": 1})
    );
    assert!(indicator.get("failure").is_none());

    assert!(
        stderr.contains(
            "✓ subject (scored) with 1/1, without 0/1: tells the arms apart (passes more with the item)"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("SUITE ERRORS: 1 grader(s) threw"),
        "{stderr}"
    );
    assert!(
        stderr
            .lines()
            .any(|l| l.trim_start().starts_with("! why (scored)")
                && l.contains("an error of the suite")
                && l.contains(JUDGE_ERROR)),
        "{stderr}"
    );
}
