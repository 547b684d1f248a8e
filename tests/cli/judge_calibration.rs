//! An llm grader's record against its labels file and `--require-calibrated`
//! (issue 38), on the stub platform: the labels files are written by the
//! test, from the criterion digest bob-eval computes.

use crate::support;

use serde_json::{Value, json};
use std::process::Command;
use support::cmd::bob;
use support::data::data;
use support::stub::Switches;
use support::world::{World, outcome, succeeds};

/// The suite's `fires` case with `why` declared as an llm grader (the
/// fixture's platform result names it), and the stub answering with the
/// fixture whose judge split its votes.
pub(crate) fn world() -> World {
    let w = World::copy_of(
        &data("source"),
        Switches::answering(data("platform/split-votes.json")),
    );
    w.write(
        "evals/commit/fires/graders/why.md",
        "---\ntype: llm\n---\nThe message says why the change was made.\n",
    );
    w
}

fn run(w: &World, args: &[&str]) -> Command {
    let mut c = w.command(bob(&w.source, &w.home()));
    c.args(args);
    c
}

/// The digest of `why`'s criterion as bob-eval reads it from the suite.
pub(crate) fn why_digest(w: &World) -> String {
    let source = camino::Utf8PathBuf::from_path_buf(w.source.clone()).unwrap();
    let suite = bob_eval::suite::load(&source, &"commit".parse().unwrap()).unwrap();
    let case = suite.cases.iter().find(|c| c.name == "fires").unwrap();
    let grader = case.graders.iter().find(|g| g.name == "why").unwrap();
    bob_eval::suite::labels::criterion_digest(grader)
}

/// A labels file for `why`: `agree` labels of each verdict on which the
/// judge agreed with the person, given for `digest`.
pub(crate) fn labels(w: &World, digest: &str, agree: usize) {
    let labels: Vec<Value> = (0..2 * agree)
        .map(|i| {
            let verdict = if i % 2 == 0 { "pass" } else { "fail" };
            json!({"run": format!("run-{i}"), "arm": "with", "human": verdict,
                   "judge": verdict, "at": "2026-12-05T08:00:00Z"})
        })
        .collect();
    let file = json!({"format": "bob-eval-labels/1", "grader": "why",
                      "criterion_digest": digest, "labels": labels});
    w.write(
        "evals/commit/fires/graders/why.labels.json",
        &serde_json::to_string_pretty(&file).unwrap(),
    );
}

pub(crate) fn judge_entry(doc: &Value) -> Value {
    doc["calibration"]["graders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["grader"] == "why")
        .unwrap()
        .clone()
}

#[test]
fn an_uncalibrated_judge_is_refused_under_require_calibrated() {
    let w = world();
    let result = w.path("r1.json");
    succeeds(run(&w, &["run", "commit", "--out", &result]));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
    let why = judge_entry(&doc);
    assert_eq!(why["record"]["labels"], 0, "{why}");
    assert_eq!(why["record"]["calibrated"], false);
    assert_eq!(why["uncorrected"], "no labels");
    assert!(doc["calibration"].get("corrected").is_none());

    // The rule alone accepts or not as before; with the flag it refuses,
    // naming the grader and the command that labels it.
    let (code, out, err) = outcome(run(
        &w,
        &["gate", "commit", &result, "--require-calibrated"],
    ));
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("bob-eval label commit --case fires --grader why"),
        "{out}"
    );
    assert!(out.contains("--require-calibrated"), "{out}");
    let (_, json_out, _) = outcome(run(
        &w,
        &["gate", "commit", &result, "--require-calibrated", "--json"],
    ));
    let decision: Value = serde_json::from_str(&json_out).unwrap();
    let condition = decision["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "judges-calibrated")
        .unwrap()
        .clone();
    assert_eq!(condition["status"], "fail", "{condition}");
    assert_eq!(decision["require_calibrated"], true);

    // The setting asks for it too.
    std::fs::write(
        w.home().join("settings.json"),
        r#"{"_workflow": {"require_calibrated": true}}"#,
    )
    .unwrap();
    let (code, out, _) = outcome(run(&w, &["gate", "commit", &result]));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("judge nobody checked"), "{out}");

    // Before spending: `exam` refuses without calling the platform.
    let calls = w.calls().len();
    let (code, _, err) = outcome(run(&w, &["exam", "commit"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nothing was spent"), "{err}");
    assert!(err.contains("--grader why"), "{err}");
    assert_eq!(w.calls().len(), calls, "the platform was called");
}

#[test]
fn labels_make_a_record_check_shows_and_documents_carry_with_corrected_scores() {
    let w = world();
    let digest = why_digest(&w);
    labels(&w, &digest, 20);
    let (code, out, err) = outcome(run(&w, &["check", "commit"]));
    assert!(code == 0 || code == 1, "{err}");
    assert!(
        out.contains("judge commit/fires why: 40 label(s): TPR 100 %"),
        "{out}"
    );
    assert!(
        out.contains("; calibrated (both 95 % lower bounds ≥ 0.8)"),
        "{out}"
    );
    assert!(
        !out.contains("why.labels.json"),
        "a labels file is no finding: {out}"
    );

    let result = w.path("r2.json");
    let (code, _, err) = outcome(run(&w, &["run", "commit", "--out", &result]));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("corrected for the judges' errors"), "{err}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
    let why = judge_entry(&doc);
    assert_eq!(why["record"]["labels"], 40);
    assert_eq!(why["record"]["calibrated"], true);
    let corrected = &doc["calibration"]["corrected"];
    // A judge that agreed on every label corrects nothing: the corrected
    // delta is the raw one, its interval wider (the labels' noise counts).
    let delta = corrected["delta"]["value"].as_f64().unwrap();
    assert!(
        (delta - doc["delta"].as_f64().unwrap()).abs() < 1e-4,
        "{corrected}"
    );
    let (low, high) = (
        corrected["delta"]["low"].as_f64().unwrap(),
        corrected["delta"]["high"].as_f64().unwrap(),
    );
    assert!(
        low <= delta && delta <= high && high - low > 0.0,
        "{corrected}"
    );
    bob_eval::schema::validate_skill_eval(&doc, "<r2>".into()).unwrap();

    let (code, out, _) = outcome(run(
        &w,
        &["gate", "commit", &result, "--require-calibrated", "--json"],
    ));
    let decision: Value = serde_json::from_str(&out).unwrap();
    let condition = decision["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "judges-calibrated")
        .unwrap()
        .clone();
    assert_eq!(condition["status"], "pass", "{condition} (exit {code})");

    // The house threshold holds check's verdict: 20 of 20 each way has a
    // lower bound of 0.84, under 0.9.
    std::fs::write(
        w.home().join("settings.json"),
        r#"{"_workflow": {"judge_threshold": 0.9}}"#,
    )
    .unwrap();
    let (_, out, _) = outcome(run(&w, &["check", "commit"]));
    assert!(
        out.contains("; not calibrated (needs both 95 % lower bounds ≥ 0.9)"),
        "{out}"
    );
    std::fs::remove_file(w.home().join("settings.json")).unwrap();

    // Labels for an earlier criterion do not count, and are said.
    labels(&w, &format!("sha256:{}", "0".repeat(64)), 6);
    let (_, out, _) = outcome(run(&w, &["check", "commit"]));
    assert!(
        out.contains("12 labels were given for an earlier criterion; label again"),
        "{out}"
    );
    assert!(
        out.contains("fix: bob-eval label commit --case fires --grader why"),
        "{out}"
    );
}

#[test]
fn a_judge_record_counts_only_the_labels_of_its_judge_model() {
    let w = world();
    labels(&w, &why_digest(&w), 16);
    // The 32 labels were given on runs judged by one model; 2 older ones name none.
    let file = w.source.join("evals/commit/fires/graders/why.labels.json");
    let mut given: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let list = given["labels"].as_array_mut().unwrap();
    for label in list.iter_mut() {
        label["judge_model"] = "claude-opus-4-1".into();
    }
    list[0].as_object_mut().unwrap().remove("judge_model");
    list[1].as_object_mut().unwrap().remove("judge_model");
    std::fs::write(&file, given.to_string()).unwrap();

    let entry = |extra: &[&str], out: &str| {
        let path = w.path(out);
        let mut args = vec!["run", "commit", "--out", &path];
        args.extend(extra);
        succeeds(run(&w, &args));
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        judge_entry(&doc)
    };
    // Judged by the default model: only the two labels that name none count.
    assert_eq!(entry(&[], "default.json")["record"]["labels"], 2);
    // Judged by the model the labels were given under: all of them.
    let opus = entry(&["--judge-model", "claude-opus-4-1"], "opus.json");
    assert_eq!(opus["record"]["labels"], 32, "{opus}");

    // `check` has no run: it counts every label and says which name no model.
    let (_, out, _) = outcome(run(&w, &["check", "commit"]));
    assert!(out.contains("judge commit/fires why: 32 label(s)"), "{out}");
    assert!(
        out.contains("2 label(s) name no judge model (given before labels kept it): counted for any judge model"),
        "{out}"
    );
}
