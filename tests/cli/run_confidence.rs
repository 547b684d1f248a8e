//! `run --runs auto --confidence LEVEL`: auto buys under the confidence
//! mode's stopping rule (as `gate`, `propose` and `exam` use it), its dry run
//! and its document say which rule, and the flag is refused where it would
//! change nothing (a fixed `--runs`).

use crate::support;

use serde_json::Value;
use support::cmd::bob;
use support::data::data;
use support::stub::Switches;
use support::world::World;

fn world() -> World {
    World::new(
        &["commit"],
        Switches::answering(data("pipelines/aggregate-result.json")),
    )
}

/// `bob-eval ARGS` in `w`: exit code, stdout, stderr.
fn bob_in(w: &World, args: &[&str]) -> (i32, String, String) {
    let mut cmd = w.command(bob(&w.source, &w.home()));
    cmd.args(args);
    support::world::outcome(cmd)
}

#[test]
fn the_dry_run_plans_auto_under_the_rule_asked_for() {
    let w = world();
    let plan = |extra: &[&str]| {
        let mut args = vec!["run", "commit", "--runs", "auto:6", "--dry-run", "--json"];
        args.extend(extra);
        let (code, out, err) = bob_in(&w, &args);
        assert_eq!(code, 0, "{args:?}: {out}\n{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        v["auto"].clone()
    };
    let bare = plan(&[]);
    let mode = plan(&["--confidence", "0.95"]);
    assert!(bare.get("confidence_mode").is_none(), "{bare}");
    assert_eq!(mode["confidence_mode"], 0.95, "{mode}");
    // The confidence mode's policy starts with a larger first round.
    assert_ne!(bare["looks"], mode["looks"], "{bare}\n{mode}");
    let (code, out, err) = bob_in(
        &w,
        &[
            "run",
            "commit",
            "--runs",
            "auto:6",
            "--confidence",
            "0.9",
            "--dry-run",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("--runs auto:6: buys under the confidence mode's stopping rule at 90 % (--confidence); a first round of "),
        "{out}"
    );
    let (_, out, _) = bob_in(&w, &["run", "commit", "--runs", "auto:6", "--dry-run"]);
    assert!(out.contains("the bare rule's stopping rule"), "{out}");
    assert_eq!(w.lines("calls").len(), 0, "a dry run called the platform");
}

#[test]
fn auto_buys_under_the_confidence_mode_and_the_document_says_so() {
    let w = world();
    let (code, out, err) = bob_in(
        &w,
        &["run", "commit", "--runs", "auto:6", "--confidence", "0.95"],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        err.contains("commit: runs auto: buys under the confidence mode's stopping rule at 95 % (--confidence)"),
        "{err}"
    );
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["stats"]["auto"]["confidence_mode"], 0.95, "{doc}");
    // One level in what the run says: the mode's, its interval named by it.
    let look = doc["stats"]["confidence"].as_f64().unwrap();
    assert!(look < 0.95, "{doc}");
    assert!(
        !err.contains(&format!("{:.0} %", look * 100.0)),
        "the look's level named: {err}"
    );
    // The stub's runs leave the suite within noise.
    assert_eq!(
        doc["stats"]["suite"]["advisory"]["advisory"], "within-noise",
        "{doc}"
    );
    assert!(
        err.contains("auto's last-look interval (held for 95 % over its looks) ["),
        "{err}"
    );
    // Its first round is the confidence mode's: 4 runs per arm, not 3.
    let round = err
        .lines()
        .find(|l| l.contains("runs auto: round 1: "))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(round.contains("round 1: 4 more run(s) per arm"), "{round}");
}

#[test]
fn a_rule_with_a_fixed_number_of_runs_is_refused_before_anything_is_spent() {
    let w = world();
    for flags in [&["--confidence", "0.95"][..], &["--rule", "confidence"]] {
        let mut args = vec!["run", "commit", "--runs", "2"];
        args.extend(flags);
        let (code, out, err) = bob_in(&w, &args);
        assert_eq!(code, 2, "{args:?}: {out}\n{err}");
        assert!(
            err.contains(&format!(
                "run {}: the rule only sets when --runs auto stops buying",
                flags[0]
            )),
            "{err}"
        );
        assert!(err.contains("add --runs auto[:MAX]"), "{err}");
    }
    assert_eq!(
        w.lines("calls").len(),
        0,
        "a refused run called the platform"
    );
}

#[test]
fn a_gate_on_an_auto_result_states_one_level_once() {
    let w = world();
    let path = w.source.join("r.json");
    let path = path.to_str().unwrap();
    let (code, out, err) = bob_in(
        &w,
        &[
            "run",
            "commit",
            "--runs",
            "auto:6",
            "--confidence",
            "0.95",
            "--out",
            path,
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    // The look's own (two-sided) confidence, and the one-sided level it holds.
    let look = doc["stats"]["confidence"].as_f64().unwrap();
    assert!(look > 0.9 && look < 0.99, "{doc}");
    let held = 100.0 * (0.5 + look / 2.0);
    let held = format!("{held:.2}");
    let held = held.trim_end_matches('0').trim_end_matches('.');
    let gate = |extra: &[&str]| {
        let mut args = vec!["gate", "commit", path, "--confidence", "0.95"];
        args.extend(extra);
        let (code, out, err) = bob_in(&w, &args);
        // The stub's two runs per case leave the result partial: rejected.
        assert_eq!(code, 1, "{args:?}: {out}\n{err}");
        out
    };
    let human = gate(&[]);
    let heading = human
        .lines()
        .find(|l| l.trim_start().starts_with("confidence"))
        .unwrap_or_else(|| panic!("{human}"));
    assert_eq!(
        heading,
        format!(
            "  confidence    95 %: each estimated condition must also hold clearly; --runs auto stopped at look 1 of a schedule fixed in advance, where each one-sided bound is held at {held} % so that 95 % holds over every look it might have made"
        ),
        "{human}"
    );
    // The held level is said once, in the heading, tied to the one level;
    // no other level (the look's two-sided interval's) is named.
    assert_eq!(human.matches(&format!("{held} %")).count(), 1, "{human}");
    assert!(
        human.contains("delta 0.50 is within noise at 95 % over auto's looks: its one-sided bound"),
        "{human}"
    );
    assert!(
        human.contains("within noise: auto's last-look interval ["),
        "{human}"
    );
    let two_sided = format!("{:.0} %", look * 100.0);
    assert!(!human.contains(&two_sided), "{two_sided} named: {human}");
    for other in [gate(&["--format", "markdown"]), gate(&["--json"])] {
        assert!(other.contains("at 95 % over auto's looks"), "{other}");
        assert!(!other.contains(&format!("{held} %")), "{other}");
    }
}
