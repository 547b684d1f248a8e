//! Errors over a sequence, with only `claude` stubbed: each decision that
//! records under the confidence mode is held to its item's sequence (the
//! level derived from the decisions the evidence store keeps, so it holds
//! across invocations), says which level and why, and a gate that records
//! nothing keeps its level; `history` states the running risk of the
//! decisions recorded, the bare rule's included.

use crate::support;

use serde_json::Value;
use std::process::Command;
use support::cmd::bob;
use support::data::data;
use support::stub::Switches;
use support::world::{World, outcome, succeeds};

const RECORD: &[&str] = &["--record", "--pr", "#1", "--pages", "commit-skipped-hook"];

fn bob_in(w: &World, args: &[&str]) -> Command {
    let mut c = w.command(bob(&w.source, &w.home()));
    c.args(args);
    c
}

/// `gate` on `result` with `extra`, as JSON: (exit code, decision).
fn gate(w: &World, result: &str, extra: &[&str]) -> (i32, Value) {
    let mut c = bob_in(w, &["gate", "commit", result, "--format", "json"]);
    c.args(extra);
    let (code, out, err) = outcome(c);
    let decision = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    (code, decision)
}

fn level(d: &Value) -> f64 {
    d["sequence"]["level"]
        .as_f64()
        .unwrap_or_else(|| panic!("no sequence level: {d}"))
}

#[test]
fn recorded_decisions_lower_the_next_level_and_history_states_the_risk() {
    let w = World::new(
        &["commit"],
        Switches::answering(data("pipelines/aggregate-result.json")),
    );
    let result = w.path("r.json");
    succeeds(bob_in(
        &w,
        &["run", "commit", "--model", "haiku", "--out", &result],
    ));

    // A check records nothing and keeps the mode's level.
    let (_, check) = gate(&w, &result, &["--confidence", "0.95"]);
    assert!(check.get("sequence").is_none(), "{check}");

    // Twelve recorded decisions on a change that does nothing: each is held
    // to the sequence, below the plain 95 %, one proposal after another.
    let mut levels = Vec::new();
    for proposal in 1..=12 {
        let (code, d) = gate(&w, &result, RECORD);
        assert_eq!(code, 1, "a no-effect change is rejected: {d}");
        assert_eq!(d["sequence"]["proposal"], proposal, "{d}");
        assert_eq!(d["confidence"], 0.95, "{d}");
        assert!(level(&d) > 0.99, "{d}");
        levels.push(level(&d));
    }
    // The thirteenth is held stricter still: the early budget is spent.
    let mut c = bob_in(&w, &["gate", "commit", &result]);
    c.args(RECORD);
    let (code, out, err) = outcome(c);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("sequence      proposal 13 of commit on haiku: decided at 99.9")
            && out.contains(
                "so that the chance of any false accept over its proposals stays under 5 %"
            ),
        "{out}"
    );
    assert!(out.contains("within noise at 99.9"), "{out}");
    let (_, next) = gate(&w, &result, RECORD);
    assert_eq!(next["sequence"]["proposal"], 14, "{next}");
    assert!(level(&next) > levels[11], "{next}");

    // The bare rule, chosen, is not held to the sequence; history states
    // the running risk of every decision recorded, the bare rule's at 50 %.
    for _ in 0..2 {
        let (_, bare) = gate(&w, &result, &[RECORD, &["--rule", "bare"]].concat());
        assert!(bare.get("sequence").is_none(), "{bare}");
    }
    let out = succeeds(bob_in(&w, &["history", "commit", "--json"]));
    let history: Value = serde_json::from_slice(&out.stdout).unwrap();
    let risk = &history["items"][0]["series"][0]["risk"];
    assert_eq!(risk["bare"], 2, "{risk}");
    assert_eq!(risk["in_sequence"], 14, "{risk}");
    // The two bare decisions at 50 % each; the sequence's 14 between its
    // first 12 proposals' 4 % and its whole 5 %.
    let r = risk["risk"].as_f64().unwrap();
    assert!(r > 1.0 - 0.25 * 0.96 && r < 1.0 - 0.25 * 0.95, "{risk}");
    let words = risk["words"].as_str().unwrap();
    assert!(
        words.starts_with("16 proposals recorded on haiku: 2 decided under the bare rule")
            && words.contains("14 in the confidence mode's sequence"),
        "{words}"
    );
    let out = succeeds(bob_in(&w, &["history", "commit"]));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Errors over each sequence of recorded decisions:\n  commit: 16 proposals"),
        "{text}"
    );
}

#[test]
fn a_proposal_under_auto_buys_at_the_level_its_sequence_holds_it_to() {
    let w = World::new(
        &["commit"],
        Switches::answering(data("pipelines/aggregate-result.json")),
    );
    let result = w.path("r.json");
    succeeds(bob_in(
        &w,
        &["run", "commit", "--model", "haiku", "--out", &result],
    ));
    for _ in 0..2 {
        gate(&w, &result, RECORD);
    }
    // The level auto planned at, and the price line's.
    let planned = |args: &[&str]| -> (f64, Value) {
        let out = succeeds(bob_in(&w, args));
        let estimate: Value = serde_json::from_slice(&out.stdout).unwrap();
        let at = |p: &str| {
            estimate
                .pointer(&format!("/items/0{p}"))
                .or_else(|| estimate.pointer(p))
                .cloned()
        };
        let found = at("/auto/confidence_mode").and_then(|v| v.as_f64());
        let level = found.unwrap_or_else(|| panic!("no auto level: {estimate}"));
        (
            level,
            at("/price").unwrap_or_else(|| panic!("no price: {estimate}")),
        )
    };
    let auto = [
        "--model",
        "haiku",
        "--runs",
        "auto:6",
        "--dry-run",
        "--json",
    ];
    // A run records nothing: auto plans at the mode's 95 %.
    let (run, run_price) =
        planned(&[&["run", "commit", "--confidence", "0.95"], &auto[..]].concat());
    assert_eq!(run, 0.95);
    assert_eq!(run_price["level"], 0.95, "{run_price}");
    assert!(run_price.get("proposal").is_none(), "{run_price}");
    // A proposal is the item's third recorded decision: auto plans at the
    // level the sequence will hold it to (its 0.33 % share of the 5 %).
    let (proposal, price) = planned(
        &[
            &[
                "propose",
                "commit",
                "--pr",
                "#2",
                "--pages",
                "commit-skipped-hook",
            ],
            &auto[..],
        ]
        .concat(),
    );
    assert!(
        (proposal - (1.0 - 0.05 * 0.8 / 12.0)).abs() < 1e-9,
        "{proposal}"
    );
    // Its price is the price at that level: more runs for the same power.
    assert_eq!(price["level"].as_f64(), Some(proposal), "{price}");
    assert_eq!(price["proposal"], 3, "{price}");
    let runs = |p: &Value| p["runs_per_arm"].as_u64().unwrap();
    assert!(runs(&price) > runs(&run_price), "{price} {run_price}");
    // And the purchase says so before it buys.
    let c = bob_in(
        &w,
        &[
            "propose",
            "commit",
            "--pr",
            "#2",
            "--pages",
            "commit-skipped-hook",
            "--model",
            "haiku",
            "--runs",
            "auto:2",
        ],
    );
    let (_, out, err) = outcome(c);
    assert!(
        err.contains("commit: runs auto buys at 99.67 %: proposal 3 of commit on haiku"),
        "{out}{err}"
    );
    // The price line first, at the level the decision is held to.
    assert!(
        err.contains("commit: detecting +0.20 at 80 % power at 99.67 %, proposal 3 of this item: "),
        "{out}{err}"
    );
}
