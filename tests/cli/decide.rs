//! Decisions at default settings, with only `claude` stubbed: a decision
//! that records (`gate --record`, `propose`) is made under the confidence
//! mode unless the bare rule is chosen (`--rule bare`); a check that accepts
//! within noise says it may be luck and names the command that would settle
//! it; a best keeps its version's files and is measured again head to head
//! (`run --best`, `gate --best-again`, `propose`).
//!
//! The stub answers every call with one with/without capture, and cannot
//! serve the platform's single-arm mode; after an edit of the item these
//! tests buy both arms (`--fresh`). tests/real/best_again_real.rs runs the
//! single-arm path on the real platform.

use crate::support;

use serde_json::Value;
use std::process::Command;
use support::cmd::bob;
use support::data::data;
use support::stub::Switches;
use support::world::{self, outcome, printed_args, succeeds};

struct World(world::World);

impl std::ops::Deref for World {
    type Target = world::World;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl World {
    /// The commit capture (2 cases, 3 runs per arm) answers every call.
    fn new() -> World {
        World(world::World::new(
            &["commit"],
            Switches::answering(data("pipelines/aggregate-result.json")),
        ))
    }

    fn cmd(&self) -> Command {
        self.command(bob(&self.source, &self.home()))
    }

    fn bob(&self, args: &[&str]) -> Command {
        let mut c = self.cmd();
        c.args(args);
        c
    }

    /// `bob-eval run commit --model haiku EXTRA… --out OUT`, held to exit 0.
    fn run_to(&self, out: &str, extra: &[&str]) {
        let mut args = vec!["run", "commit", "--model", "haiku"];
        args.extend(extra);
        args.extend(["--out", out]);
        succeeds(self.bob(&args));
    }

    /// A first run (`first.json`), recorded as the best under the bare rule.
    fn record_first(&self) {
        let first = self.path("first.json");
        self.run_to(&first, &[]);
        let mut gate = self.bob(&["gate", "commit", &first, "--rule", "bare"]);
        gate.args(RECORD);
        succeeds(gate);
    }

    fn baseline(&self) -> Option<Value> {
        let path = self.source.join("evals/commit/baseline.json");
        std::fs::read_to_string(path)
            .ok()
            .map(|t| serde_json::from_str(&t).unwrap())
    }

    fn edit_skill(&self, text: &str) {
        let path = self.source.join("skills/commit/SKILL.md");
        let mut skill = std::fs::read_to_string(&path).unwrap();
        skill.push_str(text);
        std::fs::write(path, skill).unwrap();
    }
}

const RECORD: &[&str] = &["--record", "--pr", "#1", "--pages", "commit-skipped-hook"];

#[test]
fn a_record_at_default_settings_refuses_luck_and_the_bare_rule_is_one_flag_away() {
    let w = World::new();
    let result = w.path("r.json");
    w.run_to(&result, &[]);

    // At default settings a decision that records is made under the mode.
    let mut gate = w.bob(&["gate", "commit", &result]);
    gate.args(RECORD);
    let (code, out, err) = outcome(gate);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("confidence    95 %"), "{out}");
    assert!(
        out.contains("next: settle it on more runs: bob-eval run commit --runs"),
        "{out}"
    );
    assert!(
        w.baseline()
            .is_none_or(|b| b["best"].get("haiku").is_none()),
        "a reject raises no best"
    );

    // The bare rule, chosen: accepted, recorded as such, its files kept.
    let mut gate = w.bob(&[
        "gate", "commit", &result, "--rule", "bare", "--format", "json",
    ]);
    gate.args(RECORD);
    let out = succeeds(gate);
    let decision: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(decision["rule"], "bare", "{decision}");
    let best = &w.baseline().unwrap()["best"]["haiku"];
    let digest = best["item_digest"]
        .as_str()
        .expect("a best names its version");
    // It names how it was measured, so a result measured otherwise is told.
    assert_eq!(best["measured_with"], serde_json::json!([]), "{best}");
    let judged = w.path("judged.json");
    w.run_to(&judged, &["--judge-model", "judge-2"]);
    let (_, out, _) = outcome(w.bob(&["gate", "commit", &judged]));
    assert!(
        out.contains(
            "NOTE: the best (eval-commit-"
        ) && out.contains(
            ") was measured with other flags that change what a run measures: none of them, this result --judge-model judge-2; the comparison is not like for like"
        ),
        "{out}"
    );
    let kept = w
        .home()
        .join("evidence.db.items")
        .join(digest)
        .join("skills/commit/SKILL.md");
    assert_eq!(
        std::fs::read_to_string(kept).unwrap(),
        std::fs::read_to_string(w.source.join("skills/commit/SKILL.md")).unwrap()
    );

    // --rule bare and --confidence contradict each other.
    let (code, _, err) = outcome(w.bob(&[
        "gate",
        "commit",
        &result,
        "--rule",
        "bare",
        "--confidence",
        "0.9",
    ]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("contradict"), "{err}");
}

#[test]
fn a_check_within_noise_says_may_be_luck_and_its_advice_runs_as_printed() {
    let w = World::new();
    let result = w.path("r.json");
    w.run_to(&result, &[]);
    let out = succeeds(w.bob(&["gate", "commit", &result]));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.starts_with("ACCEPTED, but may be luck ("), "{text}");
    // The advice is a command: run it as printed.
    let args = settle_args(&text);
    assert_eq!(args[..2], ["run", "commit"], "{args:?}");
    let before = w.calls().len();
    succeeds(w.bob(&args));
    assert!(w.calls().len() > before, "it bought runs");
    assert!(w.root.join("commit-more.json").exists(), "{args:?}");
}

#[test]
fn the_gates_advice_evaluates_what_the_result_records_it_was_evaluated_with() {
    let w = World::new();
    let result = w.path("r.json");
    let store = w.path("elsewhere.db");
    w.run_to(&result, &["--judge-model", "judge-1", "--evidence", &store]);
    let read = |path: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let doc = read(&result);
    assert_eq!(
        doc["flags"],
        serde_json::json!(["--judge-model", "judge-1", "--evidence", store]),
        "{doc}"
    );
    // The gate reads the file alone, and names the same evaluation.
    let out = succeeds(w.bob(&["gate", "commit", &result]));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let args = settle_args(&text);
    assert!(
        args.windows(2).any(|p| p == ["--judge-model", "judge-1"])
            && args.windows(2).any(|p| p == ["--evidence", store.as_str()]),
        "{args:?}"
    );
    let before = w.calls().len();
    succeeds(w.bob(&args));
    let calls = w.calls();
    assert!(
        calls.len() > before && calls[before..].iter().all(|c| c.contains("judge-1")),
        "{calls:?}"
    );
    // The runs kept in that store are reused, as the advice says: the
    // platform is asked for the rest only.
    let asked: u64 = args[args.iter().position(|a| *a == "--runs").unwrap() + 1]
        .parse()
        .unwrap();
    let kept = doc["stats"]["suite"]["runs_per_arm"].as_f64().unwrap() as u64;
    assert!(
        calls[before..]
            .iter()
            .all(|c| c.contains(&format!(" --runs {} ", asked - kept))),
        "{calls:?}"
    );
    let more = read(&w.path("commit-more.json"));
    assert_eq!(
        more["flags"],
        serde_json::json!([
            "--runs",
            asked.to_string(),
            "--judge-model",
            "judge-1",
            "--evidence",
            store
        ])
    );
}

#[test]
fn a_gate_on_a_result_cut_short_names_the_run_that_completes_it() {
    let w = World(world::World::new(&["commit"], Switches::at_the_ceiling()));
    let result = w.path("r.json");
    w.run_to(
        &result,
        &[
            "--runs",
            "3",
            "--judge-model",
            "judge-1",
            "--max-cost-usd",
            "0.01",
        ],
    );
    let (code, out, err) = outcome(w.bob(&["gate", "commit", &result]));
    assert_eq!(code, 1, "{out}{err}");
    let args = printed_args(&out, "next: complete it: bob-eval ");
    let command = args.join(" ");
    assert_eq!(args[..2], ["run", "commit"], "{args:?}");
    for flag in [
        ["--runs", "3"],
        ["--judge-model", "judge-1"],
        ["--model", "haiku"],
        ["--out", result.as_str()],
    ] {
        assert!(args.windows(2).any(|p| p == flag), "{flag:?} in {args:?}");
    }
    let ceiling: f64 = args[args.iter().position(|a| *a == "--max-cost-usd").unwrap() + 1]
        .parse()
        .unwrap();
    assert!(ceiling > 0.01, "{args:?}");
    // The same line in --json's `next`.
    let (_, json, _) = outcome(w.bob(&["gate", "commit", &result, "--format", "json"]));
    let decision: Value = serde_json::from_str(&json).unwrap();
    assert!(
        decision["next"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .unwrap()
            .starts_with(&format!("complete it: bob-eval {command}"))),
        "{decision}"
    );
    // As printed, it asks the platform for the same evaluation under that ceiling.
    let before = w.calls().len();
    succeeds(w.bob(&args));
    let calls = w.calls();
    assert!(calls.len() > before, "{calls:?}");
    for call in &calls[before..] {
        let asked: f64 = call
            .split("--max-cost-usd ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next()?.parse().ok())
            .unwrap_or_else(|| panic!("{call}"));
        assert!(
            call.contains("--judge-model judge-1") && asked > 0.01 && asked <= ceiling,
            "{call}"
        );
    }
}

/// The arguments of the `next: settle it on more runs: bob-eval …` line in
/// `text`, as printed (the words in brackets after it left out).
fn settle_args(text: &str) -> Vec<&str> {
    printed_args(text, "next: settle it on more runs: bob-eval ")
}

#[test]
fn the_best_is_measured_again_from_its_kept_files() {
    let w = World::new();
    w.record_first();
    let digest = w.baseline().unwrap()["best"]["haiku"]["item_digest"]
        .as_str()
        .unwrap()
        .to_owned();

    // The source moves on.
    w.edit_skill("\nA reworded line that changes nothing.\n");
    let new = w.path("new.json");
    succeeds(w.bob(&[
        "run", "commit", "--fresh", "--model", "haiku", "--out", &new,
    ]));
    let best = w.path("best.json");
    let before = w.calls().len();
    succeeds(w.bob(&[
        "run", "commit", "--best", "--fresh", "--model", "haiku", "--out", &best,
    ]));
    assert!(
        w.calls().len() > before,
        "the best's with arm is bought anew"
    );
    let measured: Value = serde_json::from_str(&std::fs::read_to_string(&best).unwrap()).unwrap();
    assert_eq!(measured["item_digest"], digest.as_str());

    let (_, out, err) = outcome(w.bob(&[
        "gate",
        "commit",
        &new,
        "--rule",
        "bare",
        "--best-again",
        &best,
        "--format",
        "json",
    ]));
    let decision: Value = serde_json::from_str(&out).unwrap_or_else(|_| panic!("{out}{err}"));
    let words = decision["best_measured"].as_str().unwrap();
    assert!(words.contains("measured again in run"), "{words}");
    // A measurement of another version does not stand for the best.
    let (code, _, err) = outcome(w.bob(&["gate", "commit", &new, "--best-again", &new]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a measurement of the best"), "{err}");
    // Nor does one measured by another judge: head to head, the two would
    // differ by more than their versions.
    let judged = w.path("judged.json");
    w.run_to(&judged, &["--best", "--fresh", "--judge-model", "judge-2"]);
    let (code, _, err) = outcome(w.bob(&["gate", "commit", &new, "--best-again", &judged]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "it was measured with other flags that change what a run measures: --judge-model judge-2, this result none of them"
        ),
        "{err}"
    );

    // propose measures the best again itself, head to head.
    let (_, out, err) = outcome(w.bob(&[
        "propose",
        "commit",
        "--fresh",
        "--model",
        "haiku",
        "--rule",
        "bare",
        "--pr",
        "#2",
        "--pages",
        "commit-skipped-hook",
    ]));
    assert!(out.contains("best: the best (run "), "{out}{err}");
    assert!(out.contains("measured again in run"), "{out}{err}");
}

/// A script's `measure_best(r)` measures the best with the options `r` was
/// evaluated with, not the pipeline's: head to head, like for like.
#[test]
fn a_script_measures_the_best_as_its_result_was_measured() {
    let w = World::new();
    w.record_first();
    w.edit_skill("\nA reworded line that changes nothing.\n");
    let script = w.path("judged.rhai");
    std::fs::write(
        &script,
        r#"
let r = evaluate("commit", #{ model: "haiku", fresh: true, judge_model: "judge-3" });
let b = measure_best(r);
if type_of(b) == "string" { output(`not measured: ${b}`); } else { output("measured"); }
0
"#,
    )
    .unwrap();
    let before = w.calls().len();
    let (code, out, err) = outcome(w.bob(&["script", &script]));
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("measured") && !out.contains("not measured"),
        "{out}{err}"
    );
    let calls = w.calls();
    assert_eq!(
        calls.len() - before,
        2,
        "the result and the best: {calls:?}"
    );
    assert!(
        calls[before..]
            .iter()
            .all(|c| c.contains("--judge-model judge-3")),
        "{calls:?}"
    );
}

#[test]
fn a_best_recorded_before_files_were_kept_is_compared_as_recorded_and_says_so() {
    let w = World::new();
    w.record_first();
    // As a best recorded before bests kept their files reads.
    let mut baseline = w.baseline().unwrap();
    baseline["best"]["haiku"]
        .as_object_mut()
        .unwrap()
        .remove("item_digest");
    std::fs::write(
        w.source.join("evals/commit/baseline.json"),
        serde_json::to_string_pretty(&baseline).unwrap(),
    )
    .unwrap();
    w.edit_skill("\nAnother line.\n");
    let (code, _, err) = outcome(w.bob(&["run", "commit", "--best", "--model", "haiku"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("recorded before bests kept their files"),
        "{err}"
    );
    let (_, out, err) = outcome(w.bob(&[
        "propose",
        "commit",
        "--fresh",
        "--model",
        "haiku",
        "--rule",
        "bare",
        "--pr",
        "#2",
        "--pages",
        "commit-skipped-hook",
    ]));
    assert!(
        out.contains("compared as recorded, on its stored runs, not measured again"),
        "{out}{err}"
    );
}

#[test]
fn the_price_of_a_decision_comes_first_from_the_store_s_own_cost_per_run() {
    let w = World::new();
    // Nothing stored: the runs it takes, no price yet.
    let (_, _, err) = outcome(w.bob(&["run", "commit", "--model", "haiku"]));
    let first = err.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("bob-eval: commit: detecting +0.20 at 80 % power: about "),
        "{err}"
    );
    assert!(first.contains("no price"), "{first}");
    // Now the store knows what a run costs on this suite.
    let (_, _, err) = outcome(w.bob(&["run", "commit", "--model", "haiku", "--fresh"]));
    let first = err.lines().next().unwrap_or_default();
    assert!(first.contains(": about $"), "{first}");
    // The suite's few runs per arm buy less than the 39 the decision takes:
    // the line says so, and its "at most" is this evaluation's.
    assert!(
        first.contains("); this evaluation buys at most "),
        "{first}"
    );
    assert!(
        first.contains(" runs per arm and costs at most $"),
        "{first}"
    );
    assert!(
        first.contains("this store's mean for this suite"),
        "{first}"
    );
    // The dry run says the same, in words and in --json.
    let out = succeeds(w.bob(&["run", "commit", "--model", "haiku", "--dry-run", "--json"]));
    let estimate: Value = serde_json::from_slice(&out.stdout).unwrap();
    let price = &estimate["price"];
    assert_eq!(price["min_effect"], 0.2, "{estimate}");
    assert_eq!(price["runs_per_arm"], 39, "{estimate}");
    assert!(price["about_usd"].as_f64().unwrap() > 0.0, "{estimate}");
    let out = succeeds(w.bob(&["exam", "commit", "--dry-run", "--model", "haiku"]));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("detecting +0.20 at 80 % power: about $"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn under_auto_the_price_is_what_the_design_is_expected_to_buy() {
    let w = World::new();
    // A run on record so the store knows a run's cost.
    outcome(w.bob(&["run", "commit", "--model", "haiku"]));
    let dry = |runs: &str| -> Value {
        let out = succeeds(w.bob(&[
            "run",
            "commit",
            "--model",
            "haiku",
            "--runs",
            runs,
            "--dry-run",
            "--json",
        ]));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let auto = dry("auto");
    let price = &auto["price"];
    let expected = &price["expected"];
    let (at_effect, at_zero) = (
        expected["at_effect"].as_f64().unwrap(),
        expected["at_zero"].as_f64().unwrap(),
    );
    // Each between the first round and the most auto may buy.
    let most = auto["auto"]["most_runs"].as_f64().unwrap();
    let least = auto["auto"]["least_runs"].as_f64().unwrap();
    assert!(
        [at_zero, at_effect].iter().all(|&r| least <= r && r < most),
        "{auto}"
    );
    let per_run = price["per_run_usd"].as_f64().unwrap();
    let about = price["about_usd"].as_f64().unwrap();
    assert!((about - per_run * at_effect).abs() < 1e-3, "{price}");
    // Fixed runs are priced by the fixed design, with no simulation.
    let fixed = dry("5");
    assert!(fixed["price"].get("expected").is_none(), "{fixed}");
    // The paid run's first line says it in words.
    let (_, _, err) = outcome(w.bob(&["run", "commit", "--model", "haiku", "--runs", "auto"]));
    let first = err.lines().next().unwrap_or_default();
    assert!(
        first.contains(&format!(
            "--runs auto is expected to buy {at_effect:.0} runs at that change and {at_zero:.0} if it changes nothing (simulated)"
        )),
        "{first}"
    );
}

#[test]
fn the_price_is_for_the_minimum_effect_asked_by_flag_or_setting() {
    let w = World::new();
    let dry = |extra: &[&str]| -> Value {
        let mut args = vec!["run", "commit", "--model", "haiku", "--dry-run", "--json"];
        args.extend_from_slice(extra);
        let out = succeeds(w.bob(&args));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["price"].clone()
    };
    let default = dry(&[]);
    let smaller = dry(&["--min-effect", "0.1"]);
    assert_eq!(smaller["min_effect"], 0.1, "{smaller}");
    let (d, s) = (
        default["runs_per_arm"].as_u64().unwrap(),
        smaller["runs_per_arm"].as_u64().unwrap(),
    );
    assert!(
        s > 3 * d,
        "half the effect needs about four times the runs: {s} vs {d}"
    );
    // The paid run's first line says the same effect.
    let (_, _, err) = outcome(w.bob(&["run", "commit", "--model", "haiku", "--min-effect", "0.3"]));
    let first = err.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("bob-eval: commit: detecting +0.30 at 80 % power: about "),
        "{err}"
    );
    // The setting, and the flag above it.
    std::fs::create_dir_all(w.home()).unwrap();
    std::fs::write(
        w.home().join("settings.json"),
        r#"{"_workflow":{"min_effect":0.25}}"#,
    )
    .unwrap();
    assert_eq!(dry(&[])["min_effect"], 0.25);
    assert_eq!(dry(&["--min-effect", "0.1"])["min_effect"], 0.1);
}

#[test]
fn a_proposal_under_the_bare_rule_says_its_accept_may_be_luck() {
    let w = World::new();
    let (code, out, err) = outcome(w.bob(&[
        "propose",
        "commit",
        "--rule",
        "bare",
        "--model",
        "haiku",
        "--pr",
        "#1",
        "--pages",
        "commit-skipped-hook",
    ]));
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.starts_with("commit: accepted, but may be luck (beats-best and helps within noise)"),
        "{out}"
    );
    assert!(out.contains("  rule: bare, as chosen"), "{out}");
    assert!(
        out.contains("  next: settle it on more runs: bob-eval run commit --runs"),
        "{out}"
    );
    // At default settings the same proposal is refused, saying what would settle it.
    let w = World::new();
    let (code, out, err) = outcome(w.bob(&[
        "propose",
        "commit",
        "--model",
        "haiku",
        "--pr",
        "#1",
        "--pages",
        "commit-skipped-hook",
    ]));
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("confidence mode: 0.95"), "{out}");
    assert!(
        out.contains("  next: settle it on more runs: bob-eval run commit --runs"),
        "{out}"
    );
}

#[test]
fn run_and_exam_name_the_command_that_settles_a_delta_within_noise() {
    let w = World::new();
    // `run` says it under its headline, `exam` as its last line; each runs as printed.
    for verb in ["run", "exam"] {
        let out = succeeds(w.bob(&[verb, "commit", "--model", "haiku"]));
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("within noise"), "{text}");
        let args = settle_args(&text);
        assert_eq!(args[..2], [verb, "commit"], "{args:?}");
        assert!(
            args.contains(&"--runs") && args.contains(&"haiku"),
            "{args:?}"
        );
        let before = w.calls().len();
        succeeds(w.bob(&args));
        assert!(w.calls().len() > before, "{args:?}: it bought runs");
    }
}
