//! On the real platform tier: the suite `bob-eval init` writes loads and runs
//! on the real `claude plugin eval` once its placeholders are filled, and its
//! trigger pair measures the item (a scripted model fires the skill on the
//! `fires` prompt only → fires_rate 1, quiet_rate 1).

use crate::support;
use support::tier::{self, Tool};

use bob_eval::check::{INIT_CRITERIA, INIT_PROMPT};
use serde_json::Value;
use support::fake_api::{FakeApi, Script};
use support::real::RealWorld;

/// A world (testkit's real one) whose source holds the skill `demo` only, the
/// real platform against a fake API playing `script`.
fn demo(script: Script) -> RealWorld {
    let world = RealWorld::empty(FakeApi::start(script));
    std::fs::create_dir_all(world.source.join("skills/demo")).unwrap();
    std::fs::write(
        world.source.join("skills/demo/SKILL.md"),
        "---\nname: demo\ndescription: Summarise a change in one line. Use when asked to summarise a change.\n---\n\nOne line.\n",
    )
    .unwrap();
    world
}

/// What these tests do in a world.
trait Demo {
    fn bob(&self, args: &[&str]) -> std::process::Output;
    fn fill(&self, file: &str, text: &str);
}

impl Demo for RealWorld {
    fn bob(&self, args: &[&str]) -> std::process::Output {
        self.command(support::cmd::bob(&self.source, &self.home()))
            .args(args)
            .output()
            .unwrap()
    }

    /// Replace the `init` placeholders in `evals/demo/<file>` with `text`.
    fn fill(&self, file: &str, text: &str) {
        let path = self.source.join("evals/demo").join(file);
        let old = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            old.replace(INIT_PROMPT, text).replace(INIT_CRITERIA, text),
        )
        .unwrap();
    }
}

#[test]
fn the_generated_suite_runs_on_the_real_platform() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let demo = demo(
        Script::new()
            .fire_skill("bob-eval-demo:demo", "Use the demo skill", "done")
            .answer("Summarise the change", "the change, in one line")
            .otherwise("At 100 degrees Celsius.")
            .judge_passes_if_contains("one line"),
    );
    let bob = |args: &[&str]| demo.bob(args);
    assert_eq!(bob(&["init", "demo"]).status.code(), Some(0));
    for (file, text) in [
        ("scoring/prompt.md", "Summarise the change in one line."),
        ("scoring/graders/matches.md", "change"),
        ("scoring/graders/judge.md", "The summary is one line long."),
        ("fires/graders/teaches.md", "done"),
    ] {
        demo.fill(file, text);
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

/// The walk of a new user: the suite `init` writes, filled in, for a skill
/// that fires where it should but whose output is broken. Its `fires` case
/// keeps its trigger grader beside the scoring grader `init` put there, so
/// firing alone earns nothing: the suite must not come out `improved`. And
/// the same suite with `fires` scored by its trigger alone is refused before
/// the model is asked anything.
#[test]
fn a_skill_that_fires_but_answers_badly_is_not_improved() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let demo = demo(
        Script::new()
            .fire_skill(
                "bob-eval-demo:demo",
                "Use the demo skill",
                "a rambling answer",
            )
            .answer("Summarise the change", "a rambling answer")
            .otherwise("At 100 degrees Celsius.")
            .judge_passes_if_contains("one line"),
    );
    let (api, source) = (&demo.api, &demo.source);
    let bob = |args: &[&str]| demo.bob(args);
    assert_eq!(bob(&["init", "demo"]).status.code(), Some(0));
    let fill = |file: &str, text: &str| demo.fill(file, text);
    fill("scoring/prompt.md", "Summarise the change in one line.");
    fill("scoring/graders/matches.md", "one line");
    fill("scoring/graders/judge.md", "The summary is one line long.");
    // First without fires' scoring grader: scored by its trigger alone.
    let teaches = source.join("evals/demo/fires/graders/teaches.md");
    let kept = std::fs::read_to_string(&teaches).unwrap();
    std::fs::remove_file(&teaches).unwrap();
    let out = bob(&["run", "demo", "--runs", "1", "--max-cost-usd", "1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("every grader of case `fires` is with-only under the ablation"),
        "{stderr}"
    );
    assert!(
        api.requests().is_empty(),
        "refused before the model was asked"
    );
    std::fs::write(&teaches, kept).unwrap();
    fill("fires/graders/teaches.md", "one line");

    let out = bob(&["run", "demo", "--runs", "1", "--max-cost-usd", "1"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["fires_rate"], 1.0, "the skill fired: {stdout}");
    assert_ne!(
        doc["verdict"], "improved",
        "firing alone earns nothing: {stdout}"
    );
    let fires = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "fires")
        .unwrap();
    assert_eq!(
        (&fires["with"], &fires["without"]),
        (&Value::from(0.0), &Value::from(0.0)),
        "{stdout}"
    );
    assert!(fires.get("scored_by_trigger").is_none(), "{stdout}");
    // The summary says what each grader did: the trigger held (with-only, no
    // failure), the scoring grader failed on both arms.
    assert!(
        stderr.contains("✓ fires (with-only) with 1/1: with-only indicator, held"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "✗ teaches (scored) with 0/1, without 0/1: fails on both arms; with the item:"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("cost ceiling $1.00 (from --max-cost-usd)"),
        "{stderr}"
    );
}
