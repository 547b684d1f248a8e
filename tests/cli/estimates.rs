//! `--dry-run` against the real purchase, on the stub platform: on every
//! path that buys (run, exam, propose, sweep, `--neighbours`, `--runs auto`'s
//! first round), the runs the dry run says it will buy are the runs the
//! command then buys. The stub answers two runs per case and arm (one arm
//! for `--ablation none`), as `--runs 2` asks, so what is bought is what the
//! store and the document then hold.

use crate::support;

use serde_json::Value;
use support::cmd::bob;
use support::data::data;
use support::stub::Switches;
use support::world::World;

/// `commit` and `tidy`, each with its trigger pair, and a stub answering
/// two runs per case and arm.
fn world() -> World {
    World::new(
        &["commit", "tidy"],
        Switches::answering(data("pipelines/aggregate-result.json")),
    )
}

/// `bob-eval ARGS` in `w`: exit code, stdout, stderr.
fn bob_in(w: &World, args: &[&str]) -> (i32, String, String) {
    let mut cmd = w.command(bob(&w.source, &w.home()));
    // `sweep` runs every suite only when asked to spend.
    cmd.env("EVALS", "1").args(args);
    support::world::outcome(cmd)
}

/// The dry run's `buy_runs` (summed over a sweep's items), calling no platform.
fn dry(w: &World, args: &[&str]) -> (u64, Value) {
    let calls = w.lines("calls").len();
    let mut args = args.to_vec();
    args.extend(["--dry-run", "--json"]);
    let (code, out, err) = bob_in(w, &args);
    assert_eq!(code, 0, "{args:?}: {out}\n{err}");
    assert_eq!(
        w.lines("calls").len(),
        calls,
        "a dry run called the platform"
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    let all = v.as_array().cloned().unwrap_or_else(|| vec![v.clone()]);
    (all.iter().map(|e| e["buy_runs"].as_u64().unwrap()).sum(), v)
}

/// Runs bought here, as the store lists them.
fn stored(w: &World) -> u64 {
    let (code, out, err) = bob_in(w, &["evidence", "list", "--json"]);
    if code != 0 {
        assert!(err.contains("no evidence store"), "{err}");
        return 0;
    }
    let list: Value = serde_json::from_str(&out).unwrap();
    list.as_array()
        .unwrap()
        .iter()
        .map(|e| e["provenance"]["bought"].as_u64().unwrap())
        .sum()
}

/// The `--neighbours` runs a document (or exam's `result`) says were bought.
fn neighbour_runs(doc: &Value) -> u64 {
    let n = if doc["neighbours"].is_null() {
        &doc["result"]["neighbours"]
    } else {
        &doc["neighbours"]
    };
    n["cases"]
        .as_array()
        .map_or(0, |c| c.iter().map(|c| c["runs"].as_u64().unwrap()).sum())
}

/// The real command `args`: runs bought (stored, and `--neighbours`'), stderr.
fn buy(w: &World, args: &[&str]) -> (u64, String) {
    let before = stored(w);
    let mut args = args.to_vec();
    if args[0] != "run" {
        // `run` prints its document on stdout; the pipelines theirs with --json.
        args.push("--json");
    }
    let (code, out, err) = bob_in(w, &args);
    // A proposal the gate rejects (the second, no better than the first) exits 1.
    assert!(
        code == 0 || (code == 1 && args[0] == "propose"),
        "{args:?}: {out}\n{err}"
    );
    let doc: Value = serde_json::from_str(&out).unwrap_or(Value::Null);
    (stored(w) - before + neighbour_runs(&doc), err)
}

#[test]
fn run_exam_and_propose_buy_what_their_dry_run_said() {
    for command in [
        &["run", "commit"][..],
        &["exam", "commit"],
        &[
            "propose",
            "commit",
            "--pr",
            "#1",
            "--pages",
            "commit-skipped-hook",
        ],
    ] {
        let w = world();
        let args: Vec<&str> = command.iter().copied().chain(["--runs", "2"]).collect();
        let (said, _) = dry(&w, &args);
        assert_eq!(said, 8, "{command:?}: 2 cases × 2 arms × 2 runs");
        let (bought, err) = buy(&w, &args);
        assert_eq!(bought, said, "{command:?}: {err}");
        // Everything is stored now: the dry run says nothing is bought, and nothing is.
        let (said, _) = dry(&w, &args);
        let (bought, err) = buy(&w, &args);
        assert_eq!((said, bought), (0, 0), "{command:?}: {err}");
    }
}

#[test]
fn a_sweep_buys_what_its_dry_run_said() {
    let w = world();
    let args = ["sweep", "--runs", "2"];
    let (said, _) = dry(&w, &args);
    assert_eq!(said, 16, "2 suites × 8 runs");
    let before = stored(&w);
    let (code, out, err) = bob_in(&w, &args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(stored(&w) - before, said, "{out}\n{err}");
}

/// The case: the suite's runs all stored, `--neighbours --dry-run`
/// said "0 run(s) to buy, no platform call", then the command bought the
/// neighbours' runs (and its summary said "runs: 0 bought ($0.0400)").
#[test]
fn neighbours_runs_are_in_the_estimate_and_the_summary() {
    let w = world();
    let args = ["run", "commit", "--runs", "2", "--neighbours"];
    let (said, e) = dry(&w, &args);
    assert_eq!(e["neighbours"]["buy"], 4, "fires × 2, quiet × 2: {e:#}");
    assert_eq!(e["neighbours"]["items"], 2);
    assert_eq!(said, 12, "8 for the suite, 4 for --neighbours");
    let (bought, err) = buy(&w, &args);
    assert_eq!(bought, said, "{err}");

    let (said, e) = dry(&w, &args);
    assert_eq!(
        said, 4,
        "the suite reused, the neighbours bought again: {e:#}"
    );
    let mut text_args = args.to_vec();
    text_args.push("--dry-run");
    let (code, out, err) = bob_in(&w, &text_args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(!out.contains("no platform call"), "{out}");
    assert!(
        out.contains(
            "--neighbours: 4 more run(s) on one arm (fires × 2, quiet × 2) with 2 items loaded"
        ),
        "{out}"
    );
    assert!(out.contains("4 run(s) to buy, 8 reused"), "{out}");
    let (bought, err) = buy(&w, &args);
    assert_eq!(bought, said, "{err}");
    // The summary counts them as bought.
    let (code, out, err) = bob_in(&w, &args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(err.contains("runs: 4 bought ("), "{err}");
    assert!(err.contains("(4 of them for --neighbours, $"), "{err}");
}

#[test]
fn auto_buys_in_its_first_round_what_the_dry_run_said() {
    for extra in [&[][..], &["--confidence", "0.95"][..]] {
        for command in [&["run", "commit"][..], &["exam", "commit"]] {
            let w = world();
            let args: Vec<&str> = command
                .iter()
                .copied()
                .chain(["--runs", "auto:6"])
                .chain(extra.iter().copied())
                .collect();
            let (_, e) = dry(&w, &args);
            let first = e["first_round_buy"].as_u64().unwrap();
            let (code, out, err) = bob_in(&w, &args);
            assert_eq!(code, 0, "{args:?}: {out}\n{err}");
            let line = err
                .lines()
                .find(|l| l.contains("runs auto: round 1: "))
                .unwrap_or_else(|| panic!("{err}"));
            assert!(
                line.ends_with(&format!(": {first} run(s) to buy")),
                "{args:?}: the dry run said {first}: {line}"
            );
        }
    }
}
