//! `--runs auto` on the real platform tier (real `claude`, fake API). The
//! scripted model fires the skill on the fires prompt and then answers well;
//! without the skill it answers badly; the quiet case passes on both arms. So
//! the fires case clearly helps and the quiet case is a tie.

/// The parts of tests/support this file uses (see tests/support/README.md).
mod support {
    pub mod cmd;
    pub use bob_eval_testkit::{fake_api, real};
}

use serde_json::Value;
use support::fake_api::{FakeApi, Kind, Script};

const SKILL: &str = "bob-eval-commit:commit";
const FIRES: &str = "Write the commit message";
const GOOD: &str = "fix(hooks): skip the pre-commit hook when only docs change\n\nSkip the hook because docs-only commits do not need lint or tests.";
const BAD: &str = "Skip pre-commit hook for docs-only changes.";
const REASON: &str = "Skip the hook because";

fn run(api: &FakeApi, args: &[&str]) -> (Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let source = support::real::source_copy(dir.path());
    let out = support::cmd::bob(&source, &dir.path().join("bob-home"))
        .env_clear()
        .envs(support::real::platform_env(api, dir.path()))
        .env("BOB_EVAL_CLAUDE", support::real::claude_bin())
        .current_dir(dir.path())
        .args(["run", "commit", "--max-cost-usd", "5"])
        .args(args)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    (serde_json::from_str(&stdout).unwrap(), stderr)
}

#[test]
fn runs_auto_settles_a_clear_improvement_and_reports_its_rounds() {
    let api = FakeApi::start(
        Script::new()
            .fire_skill(SKILL, FIRES, GOOD)
            .otherwise(BAD)
            .judge_passes_if_contains(REASON),
    );
    let (doc, stderr) = run(&api, &["--runs", "auto:6"]);
    assert!(stderr.contains("runs auto: round 1"), "{stderr}");
    assert!(stderr.contains("runs auto: stopped after"), "{stderr}");
    // What the script implies: fires 1.0 with, 0.0 without; quiet 1.0 both.
    assert_eq!(doc["with"], 1.0);
    assert_eq!(doc["without"], 0.5);
    assert_eq!(doc["verdict"], "improved");
    let stats = &doc["stats"];
    assert!(stats["confidence"].as_f64().unwrap() >= 0.95, "{stats}");
    let agent_calls = api.requests_of(Kind::Agent).len();
    eprintln!("agent calls under auto: {agent_calls}; {stderr}");
    assert!(agent_calls > 0);
}
