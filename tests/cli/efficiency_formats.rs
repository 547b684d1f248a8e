//! Efficiency wherever a result is shown besides `run`'s summary: JUnit
//! (read back by junitparser), the sweep's table, JSON and Markdown, and
//! `compare`, on the stub platform whose with arm costs half as much and takes
//! half the turns.

use crate::ci_formats::{junit, suite};
use crate::support;

use serde_json::Value;
use std::process::Command;
use support::cmd::bob;
use support::data::data;
use support::stub::Switches;
use support::world::World;

fn world(items: &[&str]) -> World {
    World::new(
        items,
        Switches::answering(data("platform/efficiency-half-cost.json")),
    )
}

fn cmd(w: &World, args: &[&str]) -> Command {
    let mut c = w.command(bob(&w.source, &w.home()));
    c.env_remove("GITHUB_STEP_SUMMARY")
        .env("EVALS", "1")
        .args(args);
    c
}

fn stdout(w: &World, args: &[&str], code: i32) -> String {
    let out = cmd(w, args).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

#[test]
fn junit_carries_the_efficiency_as_properties_and_case_lines() {
    let w = world(&["commit"]);
    let xml = stdout(
        &w,
        &["run", "commit", "--runs", "3", "--format", "junit"],
        0,
    );
    let Some(v) = junit(&xml) else {
        return;
    };
    let props = &suite(&v, "commit")["properties"];
    assert!(
        props["efficiency_cost_usd_ratio"]
            .as_str()
            .unwrap()
            .starts_with("0.50× ["),
        "{props}"
    );
    assert_eq!(props["efficiency_cost_usd_ratio_excludes_1"], "true");
    assert_eq!(props["efficiency_turns_ratio_excludes_1"], "true");
    assert!(
        props["efficiency_turns_with"]
            .as_str()
            .unwrap()
            .starts_with("2.00 ["),
        "{props}"
    );
    for case in suite(&v, "commit")["cases"].as_array().unwrap() {
        let out = case["out"].as_str().unwrap_or_default();
        assert!(out.contains("with/without per run: cost 0.50× ["), "{case}");
    }
}

#[test]
fn the_sweep_shows_cost_and_turns_ratios_in_every_format() {
    let w = world(&["alpha", "commit"]);
    let table = stdout(&w, &["sweep", "--runs", "3"], 0);
    let header = table.lines().next().unwrap();
    assert!(header.ends_with("cost×     turns×"), "{table}");
    let alpha = table.lines().find(|l| l.starts_with("alpha")).unwrap();
    assert!(alpha.contains("0.50× <1"), "{table}");
    assert!(table.contains("<1: the ratio's interval"), "{table}");

    let json: Value =
        serde_json::from_str(&stdout(&w, &["sweep", "--runs", "3", "--json"], 0)).unwrap();
    for row in json.as_array().unwrap() {
        let e = &row["efficiency"];
        assert_eq!(e["cost_ratio"]["value"], 0.5, "{row}");
        assert_eq!(e["cost_ratio"]["excludes_one"], true, "{row}");
        assert_eq!(e["turns_ratio"]["excludes_one"], true, "{row}");
    }

    let md = stdout(&w, &["sweep", "--runs", "3", "--format", "markdown"], 0);
    let header = md.lines().find(|l| l.starts_with("| item |")).unwrap();
    assert!(header.ends_with("| cost× | turns× |"), "{md}");
    let row = md.lines().find(|l| l.starts_with("| alpha |")).unwrap();
    assert!(row.ends_with("| 0.50× \\<1 | 0.46× \\<1 |"), "{md}");
}

#[test]
fn compare_sets_the_two_results_efficiency_side_by_side() {
    let w = world(&["commit"]);
    for name in ["first.json", "second.json"] {
        let out = w.root.join(name);
        let mut c = cmd(&w, &["run", "commit", "--runs", "3", "--out"]);
        assert_eq!(c.arg(&out).output().unwrap().status.code(), Some(0));
    }
    let text = stdout(&w, &["compare", "first.json", "second.json"], 0);
    assert!(
        text.contains("efficiency per run, suite (95 % intervals"),
        "{text}"
    );
    assert!(text.contains("  cost      B     $0.0100 ["), "{text}");
    assert!(
        text.contains("with/without per run: cost A 0.50× <1 · B 0.50× <1"),
        "{text}"
    );
    let json: Value = serde_json::from_str(&stdout(
        &w,
        &["compare", "first.json", "second.json", "--json"],
        0,
    ))
    .unwrap();
    assert_eq!(json["a"]["efficiency"]["cost_usd"]["ratio"]["value"], 0.5);
    assert_eq!(json["b"]["efficiency"]["turns"]["with"]["mean"], 2.0);

    // A document written before efficiency was measured: said, not invented.
    let mut old: Value =
        serde_json::from_str(&std::fs::read_to_string(w.root.join("first.json")).unwrap()).unwrap();
    old.as_object_mut().unwrap().remove("efficiency");
    std::fs::write(w.root.join("old.json"), old.to_string()).unwrap();
    let text = stdout(&w, &["compare", "old.json", "second.json"], 0);
    assert!(
        text.contains(
            "cost      A     not measured (a document written before bob-eval measured efficiency)"
        ),
        "{text}"
    );
}
