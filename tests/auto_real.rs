//! `--runs auto` on the real platform tier (real `claude`, fake API).
//!
//! The scripted model fires the skill on the commit prompt and answers well;
//! without the skill it answers badly. The quiet prompt never fires it. What
//! each test expects follows from that script and from the driver's schedule
//! (2, 4, 8, 10 runs per arm of a case, `stats::AutoPolicy::new(10)`).

/// The parts of tests/support this file uses (see tests/support/README.md).
mod support {
    pub mod cmd;
    pub use bob_eval_testkit::{expect, fake_api, real};
}

use serde_json::Value;
use std::path::Path;
use support::expect::case;
use support::fake_api::{FakeApi, Kind, Script};

const SKILL: &str = "bob-eval-commit:commit";
const FIRES: &str = "Write the commit message";
const QUIET: &str = "what is a pull request";
const GOOD: &str = "fix(hooks): skip the pre-commit hook when only docs change\n\nSkip the hook because docs-only commits do not need lint or tests.";
const BAD: &str = "Skip pre-commit hook for docs-only changes.";
const REASON: &str = "Skip the hook because";

/// Run `bob-eval run commit` with `args` on a copy of the real-tier source
/// that `edit` may change first; the document and stderr.
fn run(api: &FakeApi, edit: impl Fn(&Path), args: &[&str]) -> (Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let source = support::real::source_copy(dir.path());
    edit(&source.join("evals/commit"));
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

/// Three more cases like `fires` (their prompts differ only by a tag).
fn four_firing_cases(suite: &Path) {
    let prompt = std::fs::read_to_string(suite.join("fires/prompt.md")).unwrap();
    for n in 2..=4 {
        let case = suite.join(format!("fires-{n}"));
        std::fs::create_dir_all(case.join("graders")).unwrap();
        for grader in std::fs::read_dir(suite.join("fires/graders")).unwrap() {
            let grader = grader.unwrap().path();
            std::fs::copy(
                &grader,
                case.join("graders").join(grader.file_name().unwrap()),
            )
            .unwrap();
        }
        let body = prompt.replace(FIRES, &format!("({n}) {FIRES}"));
        std::fs::write(case.join("prompt.md"), body).unwrap();
    }
}

/// The quiet case also grades its answer, so a run scores 1.0 (a real
/// answer) or 0.5 (not: only the quiet grader passes).
fn graded_quiet_answer(suite: &Path) {
    std::fs::write(
        suite.join("quiet/graders/answers.md"),
        "---\ntype: regex\npattern: 'merge'\n---\n",
    )
    .unwrap();
}

fn clear_script() -> Script {
    Script::new()
        .fire_skill(SKILL, FIRES, GOOD)
        .otherwise(BAD)
        .judge_passes_if_contains(REASON)
}

#[test]
fn auto_stops_after_the_first_round_when_the_item_clearly_helps() {
    // Four cases where the skill fires and passes (without it: fails) and the
    // quiet tie: after 2 runs per arm the suite's delta is clear even at the
    // first look's 99.9 %, so auto buys one round and stops.
    let auto_api = FakeApi::start(clear_script());
    let (doc, stderr) = run(&auto_api, four_firing_cases, &["--runs", "auto"]);
    assert!(stderr.contains("runs auto: round 1"), "{stderr}");
    assert!(!stderr.contains("runs auto: round 2"), "{stderr}");
    assert!(
        stderr.contains("runs auto: stopped after 1 round(s) (the suite's call is clear)"),
        "{stderr}"
    );
    // What the script implies: every firing case 1.0 with, 0.0 without; the
    // quiet case 1.0 on both arms. Five cases: with 1.0, without 0.2.
    assert_eq!(doc["with"], 1.0, "{doc}");
    assert_eq!(doc["without"], 0.2, "{doc}");
    assert_eq!(doc["verdict"], "improved");
    for name in ["fires", "fires-2", "fires-3", "fires-4"] {
        let c = case(&doc, name);
        assert_eq!(
            (c["with"].as_f64(), c["without"].as_f64()),
            (Some(1.0), Some(0.0)),
            "{c}"
        );
        assert_eq!(c["runs"], 4, "{c}"); // both arms
    }
    assert_eq!(case(&doc, "quiet")["runs"], 4);
    assert!(
        doc["stats"]["confidence"].as_f64().unwrap() >= 0.999,
        "{doc}"
    );

    let fixed_api = FakeApi::start(clear_script());
    let (fixed, _) = run(&fixed_api, four_firing_cases, &["--runs", "3"]);
    assert_eq!(fixed["with"], 1.0);
    let (auto_calls, fixed_calls) = (
        auto_api.requests_of(Kind::Agent).len(),
        fixed_api.requests_of(Kind::Agent).len(),
    );
    eprintln!("agent calls: auto {auto_calls}, --runs 3 {fixed_calls}");
    // Per pair of runs, a firing case asks 3 turns (tool call and answer
    // with the skill, one answer without) and the quiet case 2: 14 per run.
    assert_eq!(auto_calls, 2 * 14, "{stderr}");
    assert_eq!(fixed_calls, 3 * 14);
}

#[test]
fn auto_buys_more_runs_only_for_the_case_that_passes_at_random() {
    // The quiet case's answer is right with probability 0.5 on both arms
    // (seeded), the firing case is settled by the script. The firing case is
    // resolved at the third look (8 runs per arm); the last round buys only the
    // random case. Seed 1 gives that path (a simulation of the same draws
    // through the same driver gives it for 11 of seeds 1..=12).
    let api = FakeApi::start(clear_script().answer_at_random(
        QUIET,
        SKILL,
        (0.5, 0.5),
        1,
        ("A pull request asks to merge a branch.", "No idea."),
    ));
    let (doc, stderr) = run(&api, graded_quiet_answer, &["--runs", "auto"]);
    let rounds: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("runs auto: round"))
        .collect();
    assert_eq!(rounds.len(), 4, "{stderr}");
    assert!(rounds[3].contains(" of quiet: 4 run(s) to buy"), "{stderr}");
    for r in &rounds[..3] {
        assert!(r.contains(" of fires, quiet: "), "{stderr}");
    }
    assert_eq!(doc["stats"]["auto"]["rounds"], 4, "{doc}");
    let (fires, quiet) = (case(&doc, "fires"), case(&doc, "quiet"));
    // Runs in both arms: 8 and 10 per arm.
    assert_eq!(fires["runs"], 16, "{fires}");
    assert_eq!(quiet["runs"], 20, "{quiet}");
    assert_eq!(
        (fires["with"].as_f64(), fires["without"].as_f64()),
        (Some(1.0), Some(0.0))
    );
    // Every quiet run scored 0.5 or 1.0, so its arm means lie in [0.5, 1].
    for arm in ["with", "without"] {
        let v = quiet[arm].as_f64().unwrap();
        assert!((0.5..=1.0).contains(&v), "{quiet}");
    }
    // The answers the fake gave on the quiet prompt: 10 per arm, no more.
    let quiet_turns = api
        .requests_of(Kind::Agent)
        .iter()
        .filter(|r| r.user_text().contains(QUIET))
        .count();
    assert_eq!(quiet_turns, 20, "{stderr}");
}
