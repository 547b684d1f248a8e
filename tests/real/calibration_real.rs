//! A judge with known errors, corrected, on the real platform: the built
//! binary runs the real `claude plugin eval` against the fake Messages API
//! on a copy of `tests/data/real-source`. The agent answers GOOD with the
//! skill and BAD without it, so the truth of `why` is PASS on every with-arm
//! run and FAIL on every without-arm run. The fake judge errs on purpose: it
//! fails the good answer on with-arm runs 0 and 3 of each four, and passes
//! the bad one on without-arm run 1 of each four (runs one at a time, `-j
//! 1`, so each run's three votes come together). Every run is labelled
//! with its truth, so the corrected delta is the truth and the raw one is
//! not.

use crate::support;
use support::tier::{self, Tool};

use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use support::cmd::bob;
use support::fake_api::{FakeApi, Script};
use support::real::{claude_bin, platform_env, source_copy};

const SKILL: &str = "bob-eval-commit:commit";
const FIRES_PROMPT: &str = "Write the commit message";
const GOOD: &str = "fix(hooks): skip the pre-commit hook when only docs change\n\nSkip the hook because docs-only commits do not need lint or tests.";
const BAD: &str = "Skip pre-commit hook for docs-only changes.";
const MARKER: &str = "Skip the hook because";

/// Whether the erring judge passes run `k` (of its text's runs, in order).
fn judge_passes(good: bool, k: u32) -> bool {
    if good {
        !matches!(k % 4, 0 | 3)
    } else {
        k % 4 == 1
    }
}

#[test]
fn a_judge_with_known_errors_is_corrected_to_the_truth() {
    if !tier::present(Tool::Claude) {
        return;
    }
    // Votes seen per text under judgment: three per run.
    let seen: Arc<Mutex<HashMap<bool, u32>>> = Arc::default();
    let votes = Arc::clone(&seen);
    let api = FakeApi::start(
        Script::new()
            .fire_skill(SKILL, FIRES_PROMPT, GOOD)
            .otherwise(BAD)
            .judge(move |r| {
                let good = r.text().contains(MARKER);
                let mut seen = votes.lock().unwrap();
                let n = seen.entry(good).or_insert(0);
                let k = *n / 3;
                *n += 1;
                judge_passes(good, k)
            }),
    );
    let dir = tempfile::tempdir().unwrap();
    let source = source_copy(dir.path());
    let home = dir.path().join("bob-home");
    std::fs::create_dir_all(&home).unwrap();

    // The labels, written before the runs from the judge's known verdicts:
    // every run, with its truth.
    let utf8 = camino::Utf8PathBuf::from_path_buf(source.clone()).unwrap();
    let suite = bob_eval::suite::load(&utf8, &"commit".parse().unwrap()).unwrap();
    let fires = suite.cases.iter().find(|c| c.name == "fires").unwrap();
    let why = fires.graders.iter().find(|g| g.name == "why").unwrap();
    let mut labels = Vec::new();
    for (arm, good) in [("with", true), ("without", false)] {
        for k in 0..4 {
            let verdict = |pass: bool| if pass { "pass" } else { "fail" };
            labels.push(json!({"run": format!("{arm}-{k}"), "arm": arm,
                "human": verdict(good), "judge": verdict(judge_passes(good, k)),
                "at": "2026-12-05T08:00:00Z"}));
        }
    }
    let file = json!({"format": "bob-eval-labels/1", "grader": "why",
        "criterion_digest": bob_eval::suite::labels::criterion_digest(why),
        "labels": labels});
    std::fs::write(
        source.join("evals/commit/fires/graders/why.labels.json"),
        serde_json::to_string_pretty(&file).unwrap(),
    )
    .unwrap();

    let out = dir.path().join("result.json");
    let output = bob(&source, &home)
        .args(["run", "commit", "--case", "fires", "--runs", "4", "-j", "1"])
        .args(["--max-cost-usd", "2", "--claude"])
        .arg(claude_bin())
        .arg("--out")
        .arg(&out)
        .current_dir(dir.path())
        .env_clear()
        .envs(platform_env(&api, dir.path()))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let doc: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    bob_eval::schema::validate_skill_eval(&doc, camino::Utf8Path::new("result.json")).unwrap();

    // The judge erred as scripted: 2 of 4 good answers passed, 1 of 4 bad.
    let case = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "fires")
        .unwrap();
    let detail = case["graders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "why")
        .unwrap();
    assert_eq!(detail["with"], json!({"passed": 2, "runs": 4}), "{detail}");
    assert_eq!(
        detail["without"],
        json!({"passed": 1, "runs": 4}),
        "{detail}"
    );

    let calibration = &doc["calibration"];
    let record = &calibration["graders"][0]["record"];
    assert_eq!(record["labels"], 8, "{calibration}");
    assert_eq!(record["tpr"]["value"], 0.5);
    assert_eq!(record["tnr"]["value"], 0.75);
    assert_eq!(record["calibrated"], false);
    // The truth: `subject` and `why` both pass with, both fail without.
    let truth = 1.0;
    let raw = doc["delta"].as_f64().unwrap();
    assert!(
        raw < truth - 0.2,
        "the raw delta {raw} shows the judge's errors"
    );
    let delta = &calibration["corrected"]["delta"];
    let value = delta["value"].as_f64().unwrap();
    assert!((value - truth).abs() < 1e-3, "{delta}");
    assert!(
        delta["low"].as_f64().unwrap() <= truth && truth <= delta["high"].as_f64().unwrap(),
        "{delta}"
    );
    assert!(
        stderr.contains("corrected for the judges' errors"),
        "{stderr}"
    );
}
