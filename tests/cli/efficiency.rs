//! Efficiency as an outcome, end to end on the stub platform: the document's
//! cost, turns and duration per arm with their ratios, the summary that names
//! "same score, half the cost", and the gate's `--max-cost-ratio`.

use crate::support;

use serde_json::Value;
use std::process::{Command, Output};
use support::cmd::bob;
use support::data::data;
use support::stub::Switches;
use support::world::World;

/// A world whose stub answers with runs that score the same on both arms
/// (every run passes) while the with arm's runs cost half as much, take 2
/// turns instead of 4–5 and 3–5 s instead of 8–10 s.
fn world() -> World {
    World::new(
        &["commit"],
        Switches::answering(data("platform/efficiency-half-cost.json")),
    )
}

fn cmd(w: &World) -> Command {
    w.command(bob(&w.source, &w.home()))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `run commit --runs 3 --out commit.json`: its output and the document.
fn run(w: &World) -> (Output, Value) {
    let result = w.root.join("commit.json");
    let out = cmd(w)
        .args(["run", "commit", "--runs", "3", "--out"])
        .arg(&result)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc = serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
    (out, doc)
}

/// The summary with the run's volatile id (time stamp, suffix) and the
/// world's temp folder replaced.
fn stable(summary: &str, w: &World) -> String {
    let re = regex::Regex::new(r"eval-commit-[0-9T.]+Z-[0-9a-f]{8}").unwrap();
    re.replace_all(summary, "eval-commit-<RUN>")
        .replace(&*w.root.to_string_lossy(), "<ROOT>")
}

#[test]
fn the_document_states_each_arm_and_ratio_with_intervals() {
    let w = world();
    let (_, doc) = run(&w);
    let e = &doc["efficiency"];
    assert_eq!(e["confidence"], 0.95);
    assert!(e["method"].as_str().unwrap().contains("log-ratio"), "{e}");
    assert_eq!(e["suite"]["cases"], 2);
    // The model's cost, the judge's left out: with 0.010, 0.011, 0.009 per
    // run on each case, without 0.020, 0.021, 0.019.
    let cost = &e["suite"]["cost_usd"];
    assert_eq!(cost["with"]["mean"], 0.01);
    assert_eq!(cost["without"]["mean"], 0.02);
    assert_eq!(cost["with"]["runs"], 6);
    assert_eq!(cost["ratio"]["value"], 0.5);
    let (low, high) = (
        cost["ratio"]["low"].as_f64().unwrap(),
        cost["ratio"]["high"].as_f64().unwrap(),
    );
    assert!(low < 0.5 && 0.5 < high && high < 1.0, "{cost}");
    // Turns: 2 against 4, 4, 5 on each case.
    let turns = &e["cases"][0]["turns"];
    assert_eq!(e["cases"][0]["name"], "fires");
    assert_eq!(turns["with"]["mean"], 2.0);
    assert_eq!(turns["with"]["sd"], 0.0);
    assert_eq!(turns["without"]["mean"], 4.3333);
    assert!(turns["ratio"]["high"].as_f64().unwrap() < 1.0, "{turns}");
    assert_eq!(e["suite"]["duration_seconds"]["with"]["mean"], 4.0);
    assert_eq!(e["suite"]["duration_seconds"]["without"]["mean"], 9.0);
}

#[test]
fn the_summary_names_same_score_half_the_cost() {
    let w = world();
    let (out, doc) = run(&w);
    assert_eq!(doc["verdict"], "no-signal");
    let summary = stable(&text(&out.stderr), &w);
    let start = summary.find("commit on default").unwrap();
    let summary = &summary[start..];
    assert!(
        summary.contains("EFFICIENCY: same score, half the cost: the score's change is within noise and the item clearly makes runs cheaper (cost per run 0.50× ["),
        "{summary}"
    );
    insta::assert_snapshot!("run_summary_half_the_cost", summary);

    // The Markdown report says the same.
    let md = cmd(&w)
        .args(["run", "commit", "--runs", "3", "--format", "markdown"])
        .output()
        .unwrap();
    let md = text(&md.stdout);
    assert!(
        md.contains("| turns | 2.00 \\[2.00, 2.00\\] | 4.33 \\["),
        "{md}"
    );
    assert!(
        md.contains("**Efficiency:** same score, half the cost"),
        "{md}"
    );
}

#[test]
fn the_gate_refuses_runs_dearer_than_the_limit_in_words() {
    let w = world();
    run(&w);
    let gate = |extra: &[&str]| {
        let out = cmd(&w)
            .args(["gate", "commit", "commit.json"])
            .args(extra)
            .current_dir(&w.root)
            .output()
            .unwrap();
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    // Half the cost is within 1.5 and clearly so.
    let (code, stdout, stderr) = gate(&["--max-cost-ratio", "1.5", "--confidence", "0.95"]);
    assert!(
        stdout.contains("✓ cost per run with the item is 0.50× the cost without it (the point ratio), not above the limit 1.5× (--max-cost-ratio)"),
        "{stdout}{stderr}"
    );
    assert!(
        stdout.contains("✓ cost ratio 0.50× is clearly within the limit 1.5× at 95 %"),
        "{stdout}"
    );
    // The same score is not "helps": the gate rejects on that, not on cost.
    assert_eq!(code, Some(1));

    // A limit of 0.25 asks for runs four times cheaper: refused, clearly over.
    let (code, stdout, _) = gate(&["--max-cost-ratio", "0.25"]);
    assert_eq!(code, Some(1));
    assert!(
        stdout.contains("✗ cost per run with the item is 0.50× the cost without it (the point ratio), above the limit 0.25× (--max-cost-ratio), clearly over: its 95 % interval ["),
        "{stdout}"
    );
    let (_, json, _) = gate(&["--max-cost-ratio", "0.25", "--format", "json"]);
    let d: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(d["max_cost_ratio"], 0.25);
    let cost = d["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "cost-ratio")
        .unwrap();
    assert_eq!(cost["status"], "fail");

    // From the house settings when no flag is given; a bad one names the file.
    std::fs::write(
        w.home().join("settings.json"),
        r#"{"_workflow": {"max_cost_ratio": 0.25}}"#,
    )
    .unwrap();
    let (code, stdout, _) = gate(&[]);
    assert_eq!(code, Some(1));
    assert!(stdout.contains("above the limit 0.25×"), "{stdout}");
    std::fs::write(
        w.home().join("settings.json"),
        r#"{"_workflow": {"max_cost_ratio": "lots"}}"#,
    )
    .unwrap();
    let (code, _, stderr) = gate(&[]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("settings.json") && stderr.contains("_workflow.max_cost_ratio"),
        "{stderr}"
    );
    // A bad flag is a usage error that teaches.
    let (code, _, stderr) = gate(&["--max-cost-ratio", "0"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("e.g. 1.5"), "{stderr}");
}

#[test]
fn propose_holds_its_decision_to_the_limit_too() {
    let w = world();
    let out = cmd(&w)
        .args([
            "propose",
            "commit",
            "--pr",
            "#7",
            "--pages",
            "commit-skipped-hook",
            "--runs",
            "3",
            "--max-cost-ratio",
            "0.25",
            "--json",
        ])
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    let out: Value = serde_json::from_str(&stdout).unwrap();
    let d = &out["decision"];
    assert_eq!(d["max_cost_ratio"], 0.25, "{d}");
    let failed: Vec<&str> = d["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "fail")
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    // A proposal records, so it decides under the confidence mode: both
    // cost conditions are there, and both fail.
    assert!(
        failed.contains(&"cost-ratio") && failed.contains(&"cost-ratio-clearly-within"),
        "{failed:?}"
    );
    // The record (decided again under the lock) kept the limit: a rejected row.
    let wiki = std::fs::read_to_string(w.source.join("wiki/skill-impact.md")).unwrap();
    assert!(wiki.contains("| rejected |"), "{wiki}");
}

#[test]
fn exam_and_propose_name_it_too() {
    let w = world();
    let out = cmd(&w)
        .args(["exam", "commit", "--runs", "3"])
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("note: efficiency: same score, half the cost: the score's change is within noise and the item clearly makes runs cheaper"),
        "{stdout}"
    );
    let out = cmd(&w)
        .args([
            "propose",
            "commit",
            "--pr",
            "#8",
            "--pages",
            "commit-skipped-hook",
            "--runs",
            "3",
        ])
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("  EFFICIENCY: same score, half the cost"),
        "{stdout}{}",
        text(&out.stderr)
    );
}
