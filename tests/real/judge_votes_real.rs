//! A judge that splits its votes, on the real platform: the built binary runs
//! the real `claude plugin eval` against the fake Messages API on a copy of
//! `tests/data/real-source` (`fires` has the judge `why`). The platform asks
//! the judge three times per `why` result; the fake votes `PASS` on the first
//! vote it sees for a text and `FAIL` on the others, so every result splits.

use crate::support;
use support::tier::{self, Tool};

use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use support::cmd::bob;
use support::fake_api::{FakeApi, Script};
use support::real::{claude_bin, platform_env, source_copy};

const SKILL: &str = "bob-eval-commit:commit";
const FIRES_PROMPT: &str = "Write the commit message";
const GOOD: &str = "fix(hooks): skip the pre-commit hook when only docs change\n\nSkip the hook because docs-only commits do not need lint or tests.";
const BAD: &str = "Skip pre-commit hook for docs-only changes.";

#[test]
fn a_judge_that_splits_its_votes_is_counted_and_named() {
    if !tier::present(Tool::Claude) {
        return;
    }
    // Votes seen per text under judgment (the arms answer apart: GOOD or BAD).
    let seen: Arc<Mutex<HashMap<bool, u32>>> = Arc::default();
    let votes = Arc::clone(&seen);
    let api = FakeApi::start(
        Script::new()
            .fire_skill(SKILL, FIRES_PROMPT, GOOD)
            .otherwise(BAD)
            .judge(move |r| {
                let mut seen = votes.lock().unwrap();
                let n = seen
                    .entry(r.text().contains("Skip the hook because"))
                    .or_insert(0);
                *n += 1;
                *n % 3 == 1
            }),
    );
    let dir = tempfile::tempdir().unwrap();
    let source = source_copy(dir.path());
    let home = dir.path().join("bob-home");
    std::fs::create_dir_all(&home).unwrap();
    let out = dir.path().join("result.json");
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
        .current_dir(dir.path())
        .env_clear()
        .envs(platform_env(&api, dir.path()))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let judged: u32 = seen.lock().unwrap().values().sum();
    assert_eq!(
        judged, 6,
        "three votes per `why` result, one result per arm"
    );
    let doc: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    bob_eval::schema::validate_skill_eval(&doc, camino::Utf8Path::new("result.json")).unwrap();
    let why = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "fires")
        .unwrap()["graders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "why")
        .unwrap()
        .clone();
    let votes = &why["split_votes"];
    assert_eq!(
        (votes["split"].as_u64(), votes["runs"].as_u64()),
        (Some(2), Some(2)),
        "{why}"
    );
    // One PASS of three is a FAIL by majority, on both arms.
    assert_eq!(why["with"], serde_json::json!({"passed": 0, "runs": 1}));
    assert!(
        stderr.contains(
            "JUDGE UNSURE: grader `why` of case `fires` split its votes in 2 of 2 runs (100 %"
        ),
        "{stderr}"
    );
}
