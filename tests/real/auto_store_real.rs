//! `--runs auto` with the without arm from the evidence store, on the real
//! platform tier (real `claude`, fake API): after an edit of the skill, the
//! stored without-arm runs count (their key holds no item digest), the
//! first round tops each case up with fresh ones, and the rest is the with
//! arm. Model calls are counted at the fake API.

use crate::support;

use serde_json::Value;
use support::expect::case;
use support::fake_api::{FakeApi, Kind, Script};
use support::real::RealWorld;
use support::tier::{self, Tool};
use support::world::{outcome, printed_args};

const SKILL: &str = "bob-eval-commit:commit";
const FIRES: &str = "Write the commit message";
const GOOD: &str = "fix(hooks): skip the pre-commit hook when only docs change\n\nSkip the hook because docs-only commits do not need lint or tests.";
const BAD: &str = "Skip pre-commit hook for docs-only changes.";
/// Appended to SKILL.md: changes the item's digest, not what the model does.
const EDIT: &str = "\n3. Keep the body to a few lines (edited).\n";

fn world() -> RealWorld {
    RealWorld::new(FakeApi::start(
        Script::new()
            .fire_skill(SKILL, FIRES, GOOD)
            .otherwise(BAD)
            .judge_passes_if_contains("Skip the hook because"),
    ))
}

/// `run commit` with `runs` in `w`: the document and stderr.
fn run(w: &RealWorld, runs: &str) -> (Value, String) {
    let mut cmd = w.command(support::cmd::bob(&w.source, &w.home()));
    cmd.args(["run", "commit", "--max-cost-usd", "5", "--runs", runs]);
    let (code, out, err) = outcome(cmd);
    assert_eq!(code, 0, "{out}\n{err}");
    (serde_json::from_str(&out).unwrap(), err)
}

/// The MAX per arm `run commit --runs auto --dry-run` says auto may buy.
fn dry_max(w: &RealWorld) -> u64 {
    let mut cmd = w.command(support::cmd::bob(&w.source, &w.home()));
    cmd.args(["run", "commit", "--runs", "auto", "--dry-run", "--json"]);
    let (code, out, err) = outcome(cmd);
    assert_eq!(code, 0, "{out}\n{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    v["auto"]["max_per_arm"].as_u64().unwrap()
}

/// Agent turns and judge votes the fake API has answered so far.
fn calls(w: &RealWorld) -> (usize, usize) {
    (
        w.api.requests_of(Kind::Agent).len(),
        w.api.requests_of(Kind::Judge).len(),
    )
}

fn clear_above(doc: &Value) {
    let a = &doc["stats"]["suite"]["advisory"];
    assert_eq!(
        (a["advisory"].as_str(), a["direction"].as_str()),
        (Some("clear"), Some("above")),
        "{doc}"
    );
}

/// The trigger pair (fires: 1.0 with, 0.0 without; quiet: a tie at 1.0),
/// one evaluation after another, since each step's count is the next one's
/// yardstick:
/// 1. a `--runs 3` pilot ends within noise and names the runs that would
///    settle it; the fixed run it names (reusing the pilot's 3) is clear;
/// 2. a first `--runs auto` in a fresh world reaches a clear call for fewer
///    agent calls than that pilot-plus-advice path (the quiet tie buys its
///    with arm alone after the first round);
/// 3. after an edit of the skill a second one reaches it again with its
///    without arms the stored runs and a top-up of fresh ones, its MAX
///    planned again from what they show, for at most 60 % of the first
///    one's agent calls (20 of 35 measured), and the count is what the
///    document says was bought.
#[test]
fn auto_settles_the_pair_for_less_than_its_advice_and_after_an_edit_from_the_store() {
    if !tier::present(Tool::Claude) {
        return;
    }
    // 1. The pilot and its advice.
    let pilot = world();
    let (three, stderr) = run(&pilot, "3");
    let advice = &three["stats"]["suite"]["advisory"];
    assert_eq!(advice["advisory"], "within-noise", "{three}");
    let n = 3 + advice["runs_needed"].as_u64().expect("a number of runs");
    // The advice is a command, followed as printed: the same evaluation,
    // its ceiling too, on n runs, reusing the pilot's 3.
    let args = printed_args(&stderr, "next: settle it on more runs: bob-eval ");
    assert_eq!(
        args,
        [
            "run",
            "commit",
            "--runs",
            &n.to_string(),
            "--max-cost-usd",
            "5"
        ],
        "{args:?}"
    );
    let mut cmd = pilot.command(support::cmd::bob(&pilot.source, &pilot.home()));
    let (code, out, err) = outcome({
        cmd.args(&args);
        cmd
    });
    assert_eq!(code, 0, "{out}\n{err}");
    let then: Value = serde_json::from_str(&out).unwrap();
    clear_above(&then);
    assert_eq!(then["reused_runs"], 12, "{then}");
    let path_calls = calls(&pilot).0;

    // 2. A first auto.
    let w = world();
    let (first, stderr) = run(&w, "auto");
    clear_above(&first);
    assert!(stderr.contains("(the suite's call is clear)"), "{stderr}");
    let rounds: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("runs auto: round"))
        .collect();
    assert!(rounds[0].contains("per arm of fires, quiet"), "{stderr}");
    for r in &rounds[1..] {
        assert!(
            r.contains(" per arm of fires; ") && r.contains(" more with-arm run(s) of quiet: "),
            "{stderr}"
        );
    }
    assert_eq!(case(&first, "quiet")["stats"]["runs_without"], 3);
    let (agent1, judge1) = calls(&w);
    eprintln!("agent calls: auto {agent1}, --runs 3 then --runs {n} {path_calls}");
    assert!(agent1 < path_calls, "{agent1} >= {path_calls}");
    let stored_without = [
        case(&first, "fires")["stats"]["runs_without"]
            .as_u64()
            .unwrap(),
        case(&first, "quiet")["stats"]["runs_without"]
            .as_u64()
            .unwrap(),
    ];

    // 3. After an edit.
    let path = w.source.join("skills/commit/SKILL.md");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{text}{EDIT}")).unwrap();
    // The dry run plans MAX from the stored without arm as the run does.
    let planned = dry_max(&w);
    let (second, stderr) = run(&w, "auto");
    assert!(
        stderr.contains(&format!(
            "planned from what they show, {planned} run(s) per arm at most (was 80)"
        )),
        "the dry run said {planned}: {stderr}"
    );
    clear_above(&second);
    // The price line counts the stored runs and prices only what is bought.
    assert!(
        stderr.contains("stored without-arm run(s) counted and not bought again"),
        "{stderr}"
    );
    // And "about" is what the design is expected to buy from this archive.
    assert!(
        stderr.contains("--runs auto is expected to buy "),
        "{stderr}"
    );
    let (agent2, judge2) = (calls(&w).0 - agent1, calls(&w).1 - judge1);
    eprintln!(
        "agent calls: first {agent1}, after the edit {agent2}; judge votes {judge1}, {judge2}"
    );
    assert!(
        stderr.contains("stored without-arm run(s) count"),
        "{stderr}"
    );
    // Every stored without-arm run counts, and the first round topped each
    // case up with fresh ones.
    let top_up = u64::from(bob_eval::stats::AutoPolicy::new(16).top_up);
    let mut bought = 0;
    for (name, stored) in ["fires", "quiet"].iter().zip(stored_without) {
        let c = case(&second, name);
        assert_eq!(c["stats"]["runs_without"], stored + top_up, "{c}");
        // fires' with arm is two agent turns a run (the skill, the answer).
        let turns = if *name == "fires" { 2 } else { 1 };
        bought += turns * c["stats"]["runs_with"].as_u64().unwrap() + top_up;
    }
    assert_eq!(second["with"], 1.0);
    assert_eq!(second["without"], 0.5);
    assert_eq!(agent2 as u64, bought, "{stderr}");
    // The target: at most 60 % of the first evaluation's agent calls.
    assert!(
        agent2 * 10 <= agent1 * 6,
        "{agent2} calls after the edit, {agent1} the first time"
    );
    assert!(agent2 + judge2 < agent1 + judge1);
}
