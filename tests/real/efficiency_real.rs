//! Efficiency on the real platform: the built binary runs the real `claude
//! plugin eval` against the fake Messages API on a copy of
//! `tests/data/real-source`. With the skill the fake model calls the `Skill`
//! tool before it answers on `fires` (more turns, so more tokens and money);
//! without it, it answers at once. The fake is deterministic, so every run
//! of an arm takes the same turns: at 2 runs per arm the turns ratio's
//! interval has zero width, above 1.

use crate::support;
use support::tier::{self, Tool};

use serde_json::Value;
use support::cmd::bob;
use support::fake_api::{FakeApi, Script};
use support::real::{claude_bin, platform_env, source_copy};

const SKILL: &str = "bob-eval-commit:commit";
const FIRES_PROMPT: &str = "Write the commit message";
const GOOD: &str = "fix(hooks): skip the pre-commit hook when only docs change\n\nSkip the hook because docs-only commits do not need lint or tests.";
const BAD: &str = "Skip pre-commit hook for docs-only changes.";

#[test]
fn more_turns_with_the_skill_show_as_a_turns_ratio_clearly_above_one() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let api = FakeApi::start(
        Script::new()
            .fire_skill(SKILL, FIRES_PROMPT, GOOD)
            .otherwise(BAD)
            .judge_passes_if_contains("Skip the hook because"),
    );
    let dir = tempfile::tempdir().unwrap();
    let source = source_copy(dir.path());
    let home = dir.path().join("bob-home");
    std::fs::create_dir_all(&home).unwrap();
    let out = dir.path().join("result.json");
    let bob_in = |args: &[&str]| {
        let mut cmd = bob(&source, &home);
        cmd.args(args)
            .current_dir(dir.path())
            .env_clear()
            .envs(platform_env(&api, dir.path()));
        cmd
    };
    let output = bob_in(&["run", "commit", "--runs", "2", "--max-cost-usd", "1"])
        .arg("--claude")
        .arg(claude_bin())
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let doc: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    bob_eval::schema::validate_skill_eval(&doc, camino::Utf8Path::new("result.json")).unwrap();
    let e = &doc["efficiency"];
    assert_eq!(e["suite"]["cases"], 2, "{e}");

    // On `fires` the with arm takes more turns than the without arm, on
    // every run; `quiet` answers at once on both.
    let case = |name: &str| {
        e["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap()
            .clone()
    };
    let fires = case("fires");
    let (with, without) = (&fires["turns"]["with"], &fires["turns"]["without"]);
    assert_eq!(
        (with["runs"].as_u64(), without["runs"].as_u64()),
        (Some(2), Some(2))
    );
    assert!(
        with["mean"].as_f64().unwrap() > without["mean"].as_f64().unwrap(),
        "{fires}"
    );
    assert_eq!(with["sd"], 0.0, "a deterministic model: {fires}");
    let quiet = case("quiet");
    assert_eq!(
        quiet["turns"]["with"]["mean"], quiet["turns"]["without"]["mean"],
        "{quiet}"
    );

    // The suite's turns ratio is above 1 and its interval excludes 1.
    let ratio = &e["suite"]["turns"]["ratio"];
    let (value, low, high) = (
        ratio["value"].as_f64().unwrap(),
        ratio["low"].as_f64().unwrap(),
        ratio["high"].as_f64().unwrap(),
    );
    assert!(
        value > 1.0 && low > 1.0 && low <= value && value <= high,
        "{ratio}"
    );
    // The extra turn is paid for: the model's cost per run is higher too.
    let cost = &e["suite"]["cost_usd"]["ratio"];
    assert!(cost["value"].as_f64().unwrap() > 1.0, "{cost}");
    assert!(
        stderr.contains("turns     with ") && stderr.contains("efficiency per run"),
        "{stderr}"
    );

    // The gate holds the change to a cost limit, in words.
    let gate = bob_in(&["gate", "commit", "result.json", "--max-cost-ratio", "1.05"])
        .output()
        .unwrap();
    let words = String::from_utf8_lossy(&gate.stdout);
    assert_eq!(gate.status.code(), Some(1), "{words}");
    assert!(
        words.contains("above the limit 1.05× (--max-cost-ratio)"),
        "{words}"
    );
}
