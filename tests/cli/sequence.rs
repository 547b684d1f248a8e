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
