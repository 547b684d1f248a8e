//! The best measured again, on the real platform tier (real `claude`, fake
//! API): a proposal measures the recorded best's kept files head to head,
//! in the same invocation, and the decision compares the two fresh
//! measurements. The scripted model answers well only when the skill it
//! loaded says so (the Skill tool's result quotes SKILL.md), so the two
//! versions of the skill score differently and each request says which
//! version the platform ran.

use crate::support;

use serde_json::Value;
use support::fake_api::{FakeApi, Kind, Recorded, Reply, Script};
use support::real::RealWorld;
use support::tier::{self, Tool};
use support::world::outcome;

const SKILL: &str = "bob-eval-commit:commit";
const FIRES: &str = "Write the commit message";
const GOOD: &str = "fix(hooks): skip the pre-commit hook when only docs change\n\nSkip the hook because docs-only commits do not need lint or tests.";
const BAD: &str = "Skip pre-commit hook for docs-only changes.";
/// In the best's version of SKILL.md only: the model answers well after
/// loading a skill that holds it.
const MARK: &str = "Always state why (best version).";

fn world() -> RealWorld {
    RealWorld::new(FakeApi::start(
        Script::new()
            .rule(
                |r| {
                    r.prompt_contains(FIRES)
                        && r.last_tool_result_tool().as_deref() == Some("Skill")
                        && r.text().contains(MARK)
                },
                Reply::Text(GOOD.into()),
            )
            .fire_skill(SKILL, FIRES, BAD)
            .otherwise(BAD)
            .judge_passes_if_contains("Skip the hook because"),
    ))
}

fn bob(w: &RealWorld, args: &[&str]) -> (i32, String, String) {
    let mut cmd = w.command(support::cmd::bob(&w.source, &w.home()));
    cmd.args(args);
    outcome(cmd)
}

fn skill(w: &RealWorld) -> std::path::PathBuf {
    w.source.join("skills/commit/SKILL.md")
}

/// A run's first model turn with the skill loaded, of the version holding `MARK` or not.
fn loaded(r: &Recorded, best: bool) -> bool {
    let messages = serde_json::to_string(&r.body["messages"]).unwrap();
    r.kind == Kind::Agent
        && messages.contains(FIRES)
        && messages.contains("tool_result")
        && messages.contains(MARK) == best
}

#[test]
fn a_proposal_measures_the_best_s_kept_files_head_to_head() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let w = world();
    let patterns = w.source.join("wiki/patterns");
    std::fs::create_dir_all(&patterns).unwrap();
    std::fs::write(
        patterns.join("commit-skipped-hook.md"),
        "# Commit skipped hook\n",
    )
    .unwrap();
    let text = std::fs::read_to_string(skill(&w)).unwrap();
    std::fs::write(skill(&w), format!("{text}\n{MARK}\n")).unwrap();
    let (code, out, err) = bob(
        &w,
        &[
            "run",
            "commit",
            "--runs",
            "2",
            "--max-cost-usd",
            "5",
            "--out",
            "best.json",
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let record = [
        "--record",
        "--rule",
        "bare",
        "--pr",
        "#1",
        "--pages",
        "commit-skipped-hook",
    ];
    let mut args = vec!["gate", "commit", "best.json"];
    args.extend(record);
    let result = w.dir.path().join("best.json");
    let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    args[2] = result.to_str().unwrap().into();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = bob(&w, &args);
    assert_eq!(code, 0, "{out}\n{err}");

    // The proposal: the mark dropped, so the skill fires but answers badly.
    std::fs::write(skill(&w), &text).unwrap();
    let before = w.api.requests().len();
    let (code, out, err) = bob(
        &w,
        &[
            "propose",
            "commit",
            "--runs",
            "2",
            "--max-cost-usd",
            "5",
            "--pr",
            "#2",
            "--pages",
            "commit-skipped-hook",
            "--json",
        ],
    );
    assert_eq!(code, 1, "the worse version is rejected: {out}\n{err}");
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|_| panic!("{out}\n{err}"));
    let d = &v["decision"];
    let words = d["best_measured"].as_str().unwrap_or_else(|| panic!("{d}"));
    assert!(words.contains("measured again in run"), "{words}");
    // The same invocation ran both versions: the best's kept files (the
    // mark) and the proposal's (no mark), each on its with arm.
    let new: Vec<Recorded> = w.api.requests()[before..].to_vec();
    let best_runs = new.iter().filter(|r| loaded(r, true)).count();
    let proposal_runs = new.iter().filter(|r| loaded(r, false)).count();
    eprintln!(
        "propose: {} requests; {best_runs} answers after loading the best's version, {proposal_runs} after the proposal's",
        new.len()
    );
    assert_eq!(best_runs, 2, "the best's fires case, 2 runs bought anew");
    assert_eq!(proposal_runs, 2, "the proposal's fires case, 2 runs");
    // The decision compares the two fresh measurements: the best at its
    // fresh `with`, two-sample on its fresh runs.
    assert_eq!(d["best"]["run"], v["decision"]["best"]["run"]);
    assert!(
        d["best"]["score"].as_f64().unwrap() > v["result"]["with"].as_f64().unwrap(),
        "{d}"
    );
    assert_eq!(d["rule"], "confidence", "a proposal records under the mode");
    // The baseline keeps the best it had.
    let baseline: Value = serde_json::from_str(
        &std::fs::read_to_string(w.source.join("evals/commit/baseline.json")).unwrap(),
    )
    .unwrap();
    let best = baseline["best"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap();
    let digest = best["item_digest"].as_str().unwrap();
    assert!(
        w.home()
            .join("evidence.db.items")
            .join(digest)
            .join("skills/commit/SKILL.md")
            .exists()
    );
}
