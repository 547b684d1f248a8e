//! On the real platform tier: `--neighbours`, the trigger pair among other
//! items. The fixture source holds `commit` and its suite; each test adds
//! `changelog`, described nearly as `commit` is (a copy, edited), and `tidy`,
//! described otherwise. The scripted model calls the first skill its rules
//! name that the request lists:
//! - on the fires prompt, `changelog` when it is offered, else `commit`;
//! - on the quiet prompt, `tidy` when it is offered, else nothing.
//!
//! So the suite's own runs (only `commit` loaded) see `commit` fire, and the
//! `--neighbours` runs (one arm, every item loaded) see `changelog` take the
//! fires prompt in every run and `tidy` misfire on the quiet prompt in every
//! run; with `--neighbours changelog` only, the quiet prompt stays quiet.

use crate::support;
use support::tier::{self, Tool};

use serde_json::Value;
use std::path::Path;
use support::fake_api::{FakeApi, Kind, Script};
use support::real::source_copy;

const COMMIT: &str = "bob-eval-commit:commit";
const CHANGELOG: &str = "bob-eval-commit:changelog";
const TIDY: &str = "bob-eval-commit:tidy";
const FIRES: &str = "Write the commit message";
const QUIET: &str = "what is a pull request";
const GOOD: &str = "fix(hooks): skip the pre-commit hook when only docs change\n\nSkip the hook because docs-only commits do not need lint or tests.";
const BAD: &str = "Skip pre-commit hook for docs-only changes.";
const REASON: &str = "Skip the hook because";
/// Runs per case (and arm) in these tests: one is enough to count by.
const RUNS: u64 = 1;

fn model() -> Script {
    Script::new()
        .fire_skill(CHANGELOG, FIRES, GOOD)
        .fire_skill(COMMIT, FIRES, GOOD)
        .fire_skill(TIDY, QUIET, "A pull request asks to merge a branch.")
        .otherwise(BAD)
        .judge_passes_if_contains(REASON)
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The fixture source with `changelog` and `tidy` beside `commit`.
fn source(dir: &Path) -> std::path::PathBuf {
    let source = source_copy(dir);
    write(
        &source.join("skills/changelog/SKILL.md"),
        "---\nname: changelog\ndescription: Write a conventional commit message or changelog entry (type(scope): subject, then a body). Use when asked to write a commit message.\n---\nWrite the entry.\n",
    );
    write(
        &source.join("skills/tidy/SKILL.md"),
        "---\nname: tidy\ndescription: Reformat a Markdown table so its columns line up.\n---\nAlign the pipes.\n",
    );
    source
}

/// `bob-eval ARGS` on the real platform against `api`, in `dir`: exit code,
/// stdout, stderr.
fn bob(api: &FakeApi, dir: &Path, source: &Path, args: &[&str]) -> (i32, String, String) {
    let mut cmd =
        support::real::offline(support::cmd::bob(source, &dir.join("bob-home")), api, dir);
    cmd.args(args);
    support::world::outcome(cmd)
}

fn fired(case: &Value) -> Vec<(String, u64, f64)> {
    case["fired"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["item"].as_str().unwrap().to_string(),
                f["runs"].as_u64().unwrap(),
                f["rate"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn case<'a>(n: &'a Value, name: &str) -> &'a Value {
    n["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {n}"))
}

#[test]
fn the_neighbour_that_takes_the_fires_prompt_is_named_with_counts() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let api = FakeApi::start(model());
    let dir = tempfile::tempdir().unwrap();
    let source = source(dir.path());

    // `check` sees the overlap before anything is spent.
    let (code, stdout, _) = bob(&api, dir.path(), &source, &["check", "commit", "--json"]);
    assert_eq!(code, 0, "{stdout}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let warning = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "similar-description")
        .unwrap_or_else(|| panic!("{report:#}"));
    assert!(
        warning["message"].as_str().unwrap().contains("`changelog`"),
        "{warning}"
    );
    assert!(
        !warning["message"].as_str().unwrap().contains("`tidy`"),
        "{warning}"
    );

    let runs = RUNS.to_string();
    let (code, stdout, stderr) = bob(
        &api,
        dir.path(),
        &source,
        &[
            "run",
            "commit",
            "--runs",
            &runs,
            "--max-cost-usd",
            "2",
            "--neighbours",
        ],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    // The cost was stated before the first run.
    let announced = stderr
        .lines()
        .position(|l| {
            l.contains(&format!(
                "--neighbours: after the suite, {} more run(s) on one arm (fires × {RUNS}, quiet × {RUNS}) with 3 items loaded (commit, changelog, tidy)",
                2 * RUNS
            ))
        })
        .unwrap_or_else(|| panic!("{stderr}"));
    let first_run = stderr.lines().position(|l| l.contains("run 1/")).unwrap();
    assert!(announced < first_run, "{stderr}");
    // The competition's runs say what they measured, never a score that
    // reads like the item failing.
    let neighbour_runs: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("--neighbours run "))
        .collect();
    assert_eq!(neighbour_runs.len() as u64, 2 * RUNS, "{stderr}");
    assert!(
        neighbour_runs
            .iter()
            .all(|l| l.contains("with the neighbours loaded") && !l.contains("score")),
        "{stderr}"
    );

    // The suite itself ran with `commit` alone: it fired, as scripted.
    assert_eq!(doc["fires_rate"], 1.0, "{doc:#}");
    let n = &doc["neighbours"];
    assert_eq!(
        n["items"],
        serde_json::json!(["commit", "changelog", "tidy"])
    );
    let fires = case(n, "fires");
    assert_eq!(fires["runs"], RUNS);
    assert_eq!(fired(fires), [("changelog".to_string(), RUNS, 1.0)]);
    assert_eq!(
        (fires["none"].as_u64(), fires["none_rate"].as_f64()),
        (Some(0), Some(0.0))
    );
    let quiet = case(n, "quiet");
    assert_eq!(fired(quiet), [("tidy".to_string(), RUNS, 1.0)]);
    assert_eq!(quiet["none"], 0);
    let cost = n["cost_usd"].as_f64().unwrap();
    assert!(
        cost > 0.0 && doc["cost_usd"].as_f64().unwrap() > cost,
        "{doc:#}"
    );
    assert!(n.get("partial_reason").is_none(), "{n}");
    assert!(stderr.contains("neighbours: 3 items loaded"), "{stderr}");
    assert!(
        stderr.contains(&format!("fires: changelog {RUNS}/{RUNS}, none 0/{RUNS}")),
        "{stderr}"
    );

    // At the fake API: the suite's requests offer `commit` alone, the
    // competition's all three, on one arm (no request without the item).
    let agent = api.requests_of(Kind::Agent);
    let competing: Vec<_> = agent.iter().filter(|r| r.offers_skill(CHANGELOG)).collect();
    assert!(!competing.is_empty());
    for r in &competing {
        assert!(r.offers_skill(COMMIT) && r.offers_skill(TIDY), "{r}");
    }
    let first_turns = competing
        .iter()
        .filter(|r| r.reply.starts_with("tool_use"))
        .count() as u64;
    assert_eq!(first_turns, 2 * RUNS, "one Skill call per competition run");
    let alone = agent
        .iter()
        .filter(|r| r.offers_skill(COMMIT) && !r.offers_skill(CHANGELOG))
        .count();
    assert!(alone > 0);
    let without = agent.iter().filter(|r| !r.offers_skill(COMMIT)).count() as u64;
    // Only the suite's without arm: 2 cases × RUNS runs, one turn each.
    assert_eq!(without, 2 * RUNS, "the competition has no without arm");
}

#[test]
fn exam_names_the_neighbour_and_only_the_named_ones_are_loaded() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let api = FakeApi::start(model());
    let dir = tempfile::tempdir().unwrap();
    let source = source(dir.path());
    let runs = RUNS.to_string();
    let (code, stdout, stderr) = bob(
        &api,
        dir.path(),
        &source,
        &[
            "exam",
            "commit",
            "--runs",
            &runs,
            "--max-cost-usd",
            "2",
            "--json",
            "--neighbours",
            "changelog",
        ],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    let n = &doc["result"]["neighbours"];
    assert_eq!(n["items"], serde_json::json!(["commit", "changelog"]));
    assert_eq!(case(n, "quiet")["none"], RUNS, "tidy is not loaded: {n}");
    let notes: Vec<&str> = doc["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let wanted = format!(
        "neighbours: `changelog` fired on `commit`'s fires prompt in {RUNS} of {RUNS} runs"
    );
    assert!(notes.contains(&wanted.as_str()), "{notes:?}");
    assert!(
        !notes.iter().any(|n| n.contains("quiet prompt")),
        "{notes:?}"
    );
    assert!(
        api.requests_of(Kind::Agent)
            .iter()
            .all(|r| !r.offers_skill(TIDY))
    );
}

#[test]
fn the_competition_is_held_to_what_the_suite_left_of_the_ceiling() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let api = FakeApi::start(model());
    let dir = tempfile::tempdir().unwrap();
    let source = source(dir.path());
    // One run per case and arm: the suite alone costs more than $0.04 (its
    // fires case takes two turns on the with arm), so it leaves nothing.
    let (code, stdout, stderr) = bob(
        &api,
        dir.path(),
        &source,
        &[
            "run",
            "commit",
            "--runs",
            "1",
            "--max-cost-usd",
            "0.04",
            "--neighbours",
        ],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    let n = &doc["neighbours"];
    assert_eq!(n["partial_reason"], "cost_ceiling", "{n:#}");
    assert_eq!(n["cases"], serde_json::json!([]), "{n:#}");
    assert_eq!(n["cost_usd"], 0.0);
    let suite: f64 = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["cost_usd"].as_f64().unwrap())
        .sum();
    assert!(
        suite >= 0.04,
        "the premise: the suite spent the ceiling: {doc:#}"
    );
    assert!(
        (doc["cost_usd"].as_f64().unwrap() - suite).abs() < 1e-3,
        "{doc:#}"
    );
    // Not one request offered the neighbours: the competition never started.
    assert!(
        api.requests_of(Kind::Agent)
            .iter()
            .all(|r| !r.offers_skill(CHANGELOG))
    );
    assert!(stderr.contains("stopped short: cost_ceiling"), "{stderr}");
}
