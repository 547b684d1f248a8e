//! `--runs auto` on the real platform tier (real `claude`, fake API).
//!
//! The scripted model fires the skill on the commit prompt and answers well;
//! without the skill it answers badly. The quiet prompt never fires it. What
//! each test expects follows from that script and from the driver's default
//! policy (`stats::AutoPolicy::new(16)`: a first round of 3 runs per arm
//! of a case, then a look after every run up to 16; a case whose every run
//! of both arms scored 1 buys its with arm alone while the suite leans
//! above 0).

use crate::support;
use support::tier::{self, Tool};

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
    let mut cmd = support::real::offline(
        support::cmd::bob(&source, &dir.path().join("bob-home")),
        api,
        dir.path(),
    );
    cmd.args(["run", "commit", "--max-cost-usd", "5"])
        .args(args);
    let (code, stdout, stderr) = support::world::outcome(cmd);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
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
    if !tier::present(Tool::Claude) {
        return;
    }
    // Four cases where the skill fires and passes (without it: fails) and the
    // quiet tie: after 3 runs per arm the suite's delta is clear even at the
    // first look's 99.06 %, so auto buys one round and stops: what a fixed
    // --runs 3 buys.
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
        assert_eq!(c["runs"], 6, "{c}"); // both arms
    }
    assert_eq!(case(&doc, "quiet")["runs"], 6);
    assert!(doc["stats"]["confidence"].as_f64().unwrap() > 0.99, "{doc}");

    let auto_calls = auto_api.requests_of(Kind::Agent).len();
    // Per pair of runs, a firing case asks 3 turns (tool call and answer
    // with the skill, one answer without) and the quiet case 2: 14 per run,
    // what a fixed --runs 3 of this suite buys.
    assert_eq!(auto_calls, 3 * 14, "{stderr}");
}

#[test]
fn auto_settles_beats_best_on_the_with_arms_alone() {
    if !tier::present(Tool::Claude) {
        return;
    }
    // The four firing cases and the quiet tie (as in the first test) against
    // a best of 0.9 recorded without its runs (an exact line): `helps` is
    // clear after the first round, `beats-best` (with 1.0 against 0.9) is
    // not, so the later rounds buy with-arm runs alone, until auto sees that
    // the runs left under auto:6 would most likely not settle it.
    let best = |suite: &Path| {
        four_firing_cases(suite);
        std::fs::write(
            suite.join("baseline.json"),
            r#"{"schema": "skill-eval-baseline/1", "item": "commit", "best": {"default": {"score": 0.9, "without": 0.2, "trigger_rate": 1.0, "run": "eval-commit-20260101T000000Z", "date": "2026-01-01"}}}"#,
        )
        .unwrap();
    };
    let api = FakeApi::start(clear_script());
    let (doc, stderr) = run(&api, best, &["--runs", "auto:6"]);
    let rounds: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("runs auto: round"))
        .collect();
    assert!(
        rounds[0].contains(" 3 more run(s) per arm of fires, "),
        "{stderr}"
    );
    assert!(rounds.len() > 1, "{stderr}");
    for r in &rounds[1..] {
        assert!(
            r.contains(" more with-arm run(s) of fires, fires-2, fires-3, fires-4, quiet: "),
            "{stderr}"
        );
    }
    assert_eq!(doc["stats"]["suite"]["advisory"]["advisory"], "clear");
    for c in doc["cases"].as_array().unwrap() {
        assert_eq!(c["stats"]["runs_without"], 3, "{c}");
    }
    // Without more runs of the best, with 1.0 against 0.9 cannot be made
    // clear by 6 runs a case: auto stops before its last look, by futility.
    assert!(
        stderr.contains("(more runs would most likely not settle it)"),
        "{stderr}"
    );
    let most = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["stats"]["runs_with"].as_u64().unwrap())
        .max()
        .unwrap();
    assert!(most < 6, "{doc}");
}

#[test]
fn auto_buys_both_arms_of_a_case_that_passes_at_random() {
    if !tier::present(Tool::Claude) {
        return;
    }
    // The quiet case's answer is right with probability 0.5 on both arms
    // (seeded): no tie at the top, so unlike the noiseless quiet case above
    // every round buys both of its arms, with the firing case's. Under
    // auto:5 (this suite is clear at 13 runs an arm), auto stops at its
    // most or earlier, by futility: each round up to then is seen.
    let api = FakeApi::start(clear_script().answer_at_random(
        QUIET,
        SKILL,
        (0.5, 0.5),
        1,
        ("A pull request asks to merge a branch.", "No idea."),
    ));
    let (doc, stderr) = run(&api, graded_quiet_answer, &["--runs", "auto:5"]);
    let rounds: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("runs auto: round"))
        .collect();
    assert!(rounds.len() > 1, "{stderr}");
    for r in &rounds {
        assert!(r.contains(" per arm of fires, quiet: "), "{stderr}");
    }
    assert!(
        stderr.contains("(more runs would most likely not settle it)")
            || stderr.contains("(the most runs per case were bought)"),
        "{stderr}"
    );
    assert_eq!(doc["stats"]["auto"]["rounds"], rounds.len(), "{doc}");
    let (fires, quiet) = (case(&doc, "fires"), case(&doc, "quiet"));
    assert_eq!(fires["runs"], quiet["runs"], "{doc}");
    assert!(quiet["runs"].as_u64().unwrap() <= 2 * 5, "{doc}");
    assert_eq!(
        (fires["with"].as_f64(), fires["without"].as_f64()),
        (Some(1.0), Some(0.0))
    );
    // Every quiet run scored 0.5 or 1.0, so its arm means lie in [0.5, 1].
    for arm in ["with", "without"] {
        let v = quiet[arm].as_f64().unwrap();
        assert!((0.5..=1.0).contains(&v), "{quiet}");
    }
    // The answers the fake gave on the quiet prompt: one per run, both arms.
    let quiet_turns = api
        .requests_of(Kind::Agent)
        .iter()
        .filter(|r| r.user_text().contains(QUIET))
        .count();
    assert_eq!(Some(quiet_turns as u64), quiet["runs"].as_u64(), "{stderr}");
}
