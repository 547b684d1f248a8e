//! On the real platform tier: the suite `bob-eval init` writes loads and runs
//! on the real `claude plugin eval` once its placeholders are filled, and its
//! trigger pair measures the item (a scripted model fires the skill on the
//! `fires` prompt only → fires_rate 1, quiet_rate 1).

/// The parts of tests/support this file uses (see tests/support/README.md).
mod support {
    pub mod cmd;
    pub use bob_eval_testkit::fake_api;
    pub use bob_eval_testkit::real;
}

use bob_eval::check::{INIT_CRITERIA, INIT_PROMPT};
use serde_json::Value;
use support::fake_api::{FakeApi, Script};

#[test]
fn the_generated_suite_runs_on_the_real_platform() {
    let api = FakeApi::start(
        Script::new()
            .fire_skill("bob-eval-demo:demo", "Use the demo skill", "done")
            .answer("Summarise the change", "the change, in one line")
            .otherwise("At 100 degrees Celsius.")
            .judge_passes_if_contains("one line"),
    );
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("source");
    std::fs::create_dir_all(source.join("skills/demo")).unwrap();
    std::fs::write(
        source.join("skills/demo/SKILL.md"),
        "---\nname: demo\ndescription: Summarise a change in one line. Use when asked to summarise a change.\n---\n\nOne line.\n",
    )
    .unwrap();
    let bob = |args: &[&str]| {
        support::cmd::bob(&source, &dir.path().join("bob-home"))
            .env_clear()
            .envs(support::real::platform_env(&api, dir.path()))
            .env("BOB_EVAL_CLAUDE", support::real::claude_bin())
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap()
    };
    assert_eq!(bob(&["init", "demo"]).status.code(), Some(0));
    for (file, text) in [
        ("prompt.md", "Summarise the change in one line."),
        ("graders/matches.md", "change"),
        ("graders/judge.md", "The summary is one line long."),
    ] {
        let path = source.join("evals/demo/scoring").join(file);
        let old = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            old.replace(INIT_PROMPT, text).replace(INIT_CRITERIA, text),
        )
        .unwrap();
    }
    let out = bob(&["run", "demo", "--runs", "1", "--max-cost-usd", "1"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (&doc["fires_rate"], &doc["quiet_rate"], &doc["partial"]),
        (&Value::from(1.0), &Value::from(1.0), &Value::from(false)),
        "{stdout}"
    );
    let scoring = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "scoring")
        .unwrap_or_else(|| panic!("no scoring case: {stdout}"));
    assert_eq!(scoring["with"], 1.0, "{stdout}");
}
