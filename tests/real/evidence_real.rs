//! The evidence store on the real platform tier (real `claude`, fake API):
//! runs are bought once and reused. Model calls are counted at the fake API.
//! The fixture's `commit` suite is grown to four cases: `fires`, `quiet`, and
//! copies of them, `fires-b` and `quiet-b`, whose prompts carry a marker of
//! their own so each case's calls can be told apart.

use crate::support;
use support::tier::{self, Tool};

use serde_json::Value;
use std::path::PathBuf;
use support::expect::case;
use support::fake_api::{FakeApi, Kind, Script};
use support::real::RealWorld;
use support::world::outcome;

const SKILL: &str = "bob-eval-commit:commit";
const FIRES: &str = "Write the commit message";
const GOOD: &str = "fix(hooks): skip the pre-commit hook when only docs change\n\nSkip the hook because docs-only commits do not need lint or tests.";
const BAD: &str = "Skip pre-commit hook for docs-only changes.";
const REASON: &str = "Skip the hook because";
/// Only the `-b` copies' prompts hold these.
const FIRES_B: &str = "(second fires case)";
const QUIET_B: &str = "(second quiet case)";

fn model() -> Script {
    Script::new()
        .fire_skill(SKILL, FIRES, GOOD)
        .otherwise(BAD)
        .judge_passes_if_contains(REASON)
}

type World = RealWorld;

/// A temp world: the fixture source with four cases, a home, the fake API.
fn world() -> World {
    let w = RealWorld::new(FakeApi::start(model()));
    let suite = w.source.join("evals/commit");
    for (from, to, marker) in [("fires", "fires-b", FIRES_B), ("quiet", "quiet-b", QUIET_B)] {
        support::tree::copy_tree(&suite.join(from), &suite.join(to));
        let prompt = suite.join(to).join("prompt.md");
        let text = std::fs::read_to_string(&prompt).unwrap();
        std::fs::write(&prompt, format!("{} {marker}\n", text.trim_end())).unwrap();
    }
    w
}

/// What these tests do in a world.
trait Evidence {
    fn bob(&self, args: &[&str]) -> (i32, String, String);
    fn bob_with(&self, env: &[(&str, &str)], args: &[&str]) -> (i32, String, String);
    fn run(&self, args: &[&str]) -> Value;
    fn calls(&self, marker: Option<&str>) -> usize;
    fn suite(&self) -> PathBuf;
}

impl Evidence for World {
    /// `bob-eval ARGS` against the real platform, fully offline.
    fn bob(&self, args: &[&str]) -> (i32, String, String) {
        self.bob_with(&[], args)
    }

    /// [`Evidence::bob`] with `env` set too.
    fn bob_with(&self, env: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
        let mut cmd = self.command(support::cmd::bob(&self.source, &self.home()));
        cmd.envs(env.iter().copied()).args(args);
        outcome(cmd)
    }

    fn run(&self, args: &[&str]) -> Value {
        let mut all = vec!["run", "commit", "--runs", "1", "--max-cost-usd", "1"];
        all.extend(args);
        let (code, out, err) = self.bob(&all);
        assert_eq!(code, 0, "{out}\n{err}");
        serde_json::from_str(&out).unwrap()
    }

    /// Agent calls so far, and those whose prompt holds `marker`.
    fn calls(&self, marker: Option<&str>) -> usize {
        self.api
            .requests_of(Kind::Agent)
            .iter()
            .filter(|r| marker.is_none_or(|m| r.user_text().contains(m)))
            .count()
    }

    fn suite(&self) -> PathBuf {
        self.source.join("evals/commit")
    }
}

/// Run again with nothing changed: zero model calls, nothing spent, the same
/// numbers; then edit one case of the four: only its runs are bought again;
/// and `--fresh` buys a stored case again.
#[test]
fn unchanged_runs_are_reused_and_only_an_edited_case_is_bought_again() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let w = world();
    let first = w.run(&[]);
    assert_eq!(first["reused_runs"], 0);
    assert!(first["cost_usd"].as_f64().unwrap() > 0.0);
    let bought = w.calls(None);
    assert!(bought > 0);

    let second = w.run(&[]);
    assert_eq!(w.calls(None), bought, "an unchanged suite made model calls");
    assert_eq!(second["cost_usd"], 0.0);
    assert_eq!(second["reused_runs"], 8, "4 cases × 2 arms × 1 run");
    for key in [
        "with",
        "without",
        "delta",
        "verdict",
        "trigger_rate",
        "suite_digest",
    ] {
        assert_eq!(first[key], second[key], "{key}");
    }

    let prompt = w.suite().join("quiet-b/prompt.md");
    let text = std::fs::read_to_string(&prompt).unwrap();
    std::fs::write(
        &prompt,
        text.replace(QUIET_B, &format!("{QUIET_B} (edited)")),
    )
    .unwrap();
    let (before_b, before_all) = (w.calls(Some(QUIET_B)), w.calls(None));
    let third = w.run(&[]);
    let new_b = w.calls(Some(QUIET_B)) - before_b;
    assert_eq!(new_b, 2, "one run on each arm of the edited case");
    assert_eq!(
        w.calls(None) - before_all,
        new_b,
        "only the edited case was bought"
    );
    assert_eq!(third["reused_runs"], 6);
    assert_ne!(
        case(&third, "quiet-b")["digest"],
        case(&first, "quiet-b")["digest"]
    );
    assert_eq!(
        case(&third, "fires")["digest"],
        case(&first, "fires")["digest"]
    );

    // --fresh buys again what the store holds (one case: enough to show it).
    let (before_b, before_all) = (w.calls(Some(QUIET_B)), w.calls(None));
    let fresh = w.run(&["--fresh", "--case", "quiet-b"]);
    assert_eq!(fresh["reused_runs"], 0);
    assert_eq!(w.calls(Some(QUIET_B)) - before_b, 2, "both arms again");
    assert_eq!(w.calls(None) - before_all, 2);
}

/// Naming a judge buys again only the cases a judge grades (`fires` and
/// `fires-b` hold the llm grader `why`); the quiet cases, graded by a
/// `tool_used` alone, are the same runs whatever the judge, stored and found
/// under one key whichever judge bought them.
#[test]
fn a_judge_model_re_buys_only_the_cases_a_judge_grades() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let w = world();
    let judged = w.run(&["--judge-model", "haiku"]);
    assert_eq!(judged["reused_runs"], 0, "{judged}");
    assert!(
        w.api
            .requests_of(Kind::Judge)
            .iter()
            .any(|r| r.model.as_deref().is_some_and(|m| m.contains("haiku"))),
        "the judge asked was haiku"
    );
    let (quiet_b, all) = (w.calls(Some(QUIET_B)), w.calls(None));
    let plain = w.run(&[]);
    assert_eq!(
        plain["reused_runs"], 4,
        "quiet and quiet-b, both arms: {plain}"
    );
    assert_eq!(w.calls(Some(QUIET_B)), quiet_b, "quiet-b was bought again");
    assert!(w.calls(None) > all, "the judged cases were bought");
    // And again under haiku: everything is reused.
    let before = w.calls(None);
    let again = w.run(&["--judge-model", "haiku"]);
    assert_eq!(again["reused_runs"], 8);
    assert_eq!(w.calls(None), before);
}

/// Runs bought while another writer holds the store are not lost: `run`
/// keeps them beside it, still writes its document, and the next `run`
/// stores them and buys nothing.
#[test]
fn runs_bought_while_the_store_is_held_are_kept_and_stored_next_time() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let w = world();
    let store = w.dir.path().join("bob-home/evidence.db");
    bob_eval::evidence::Store::open(camino::Utf8Path::from_path(&store).unwrap()).unwrap();
    let holder = rusqlite::Connection::open(&store).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let args = ["run", "commit", "--runs", "1", "--max-cost-usd", "1"];
    let (code, out, err) = w.bob_with(&[("BOB_EVIDENCE_WAIT", "1")], &args);
    assert_eq!(code, 0, "{err}");
    let first: Value = serde_json::from_str(&out).unwrap();
    assert!(first["cost_usd"].as_f64().unwrap() > 0.0, "{first}");
    let bought = w.calls(None);
    assert!(bought > 0);
    let pending = w.dir.path().join("bob-home/evidence.db.pending");
    assert!(
        err.contains(&format!("are kept in {}", pending.display())),
        "{err}"
    );
    let file = pending.join(format!("{}.jsonl", first["run"].as_str().unwrap()));
    let kept = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        kept.lines().count(),
        10,
        "4 cases × 2 arms × 1 run, then the evaluation made from them, then the store's tag"
    );
    assert!(
        err.contains(&format!(
            "evaluation {} is kept in {}",
            first["run"].as_str().unwrap(),
            file.display()
        )),
        "{err}"
    );
    holder.execute_batch("COMMIT").unwrap();
    drop(holder);

    let (code, out, err) = w.bob(&args);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("stored the 8 run(s) kept aside in"), "{err}");
    assert!(err.contains(", and 1 evaluation(s)"), "{err}");
    let second: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(w.calls(None), bought, "nothing bought twice");
    assert_eq!(second["cost_usd"], 0.0);
    assert_eq!(second["reused_runs"], 8);
    assert_eq!(first["with"], second["with"]);
    assert!(!pending.exists());
    // The evaluation set aside is a point like the one stored at once.
    let (code, out, err) = w.bob(&["history", "--json"]);
    assert_eq!(code, 0, "{err}");
    let h: Value = serde_json::from_str(&out).unwrap();
    let points = h["items"][0]["series"][0]["points"].as_array().unwrap();
    let runs: Vec<&Value> = points.iter().map(|p| &p["run"]).collect();
    assert_eq!(runs, [&first["run"], &second["run"]], "{h}");
}

/// `--case` makes model calls for the matching cases only, and the result is
/// partial (`filtered`): the gate never accepts it.
#[test]
fn a_case_filter_calls_the_model_for_that_case_only() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let w = world();
    let doc = w.run(&["--case", "quiet-*", "--fresh"]);
    assert_eq!(
        w.calls(None),
        w.calls(Some(QUIET_B)),
        "calls for other cases"
    );
    assert!(w.calls(None) > 0);
    assert_eq!(doc["partial"], true);
    assert_eq!(doc["partial_reason"], "filtered");
    let names: Vec<&str> = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["quiet-b"]);
}

/// A second sweep over unchanged suites makes no model call and costs nothing.
#[test]
fn a_second_sweep_makes_no_model_call() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let w = world();
    let sweep = || {
        let (code, out, err) = w.bob_with(
            &[("EVALS", "1"), ("EVALS_MAX_COST_USD", "1")],
            &["sweep", "--json"],
        );
        assert_eq!(code, 0, "{out}\n{err}");
        let rows: Value = serde_json::from_str(&out).unwrap();
        rows[0]["result"].clone()
    };
    let first = sweep();
    let calls = w.calls(None);
    let second = sweep();
    assert_eq!(w.calls(None), calls, "the second sweep made model calls");
    assert_eq!(second["cost_usd"], 0.0);
    assert_eq!(first["with"], second["with"]);
}

/// Each real evaluation is kept with the runs it used: `history` plots one
/// point per whole-suite evaluation with its document's numbers (a reusing
/// one included), and leaves the `--case` one out unless `--all`.
#[test]
fn history_plots_each_real_evaluation_with_its_documents_numbers() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let w = world();
    let first = w.run(&[]);
    // Run ids are to the second.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let reused = w.run(&[]);
    assert_eq!(reused["reused_runs"], 8);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let case = w.run(&["--case", "fires"]);
    let (code, out, err) = w.bob(&["history", "--json"]);
    assert_eq!(code, 0, "{err}");
    let h: Value = serde_json::from_str(&out).unwrap();
    let points = h["items"][0]["series"][0]["points"].as_array().unwrap();
    let runs: Vec<&Value> = points.iter().map(|p| &p["run"]).collect();
    assert_eq!(runs, [&first["run"], &reused["run"]], "{h}");
    for (p, doc) in points.iter().zip([&first, &reused]) {
        for key in ["with", "without", "delta", "trigger_rate", "cost_usd"] {
            assert_eq!(p[key], doc[key], "{key}: {p}");
        }
        assert_eq!(p["runs"], 8, "4 cases × 2 arms × 1 run");
        assert_eq!(p["used_runs"].as_array().unwrap().len(), 8);
    }
    assert_eq!(
        points[0]["used_runs"], points[1]["used_runs"],
        "the reusing evaluation used the very runs the first bought"
    );
    assert_eq!(h["items"][0]["hidden"], 1);
    let (_, out, _) = w.bob(&["history", "--json", "--all"]);
    let all: Value = serde_json::from_str(&out).unwrap();
    let last = all["items"][0]["series"][0]["points"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["run"], case["run"]);
    assert_eq!(
        (&last["filtered"], &last["cases"]),
        (&Value::Bool(true), &Value::from(1))
    );
}
