//! Labels on the real platform: `claude plugin eval` ignores a
//! `graders/*.labels.json` file (even one that is not JSON), and runs the
//! real platform kept with the judge's evidence are labelled through the
//! file workflow (export, fill in, import) with the judge's verdicts looked
//! up in the store.

use crate::support;
use support::tier::{self, Tool};

use serde_json::Value;
use std::process::Command;
use support::cmd::bob;
use support::fake_api::{FakeApi, Script};
use support::real::{claude_bin, offline, platform_env, source_copy};
use support::tree::copy_tree;

const SKILL: &str = "bob-eval-commit:commit";
const FIRES_PROMPT: &str = "Write the commit message";
const GOOD: &str = "fix(hooks): skip the pre-commit hook when only docs change\n\nSkip the hook because docs-only commits do not need lint or tests.";
const BAD: &str = "Skip pre-commit hook for docs-only changes.";
const MARKER: &str = "Skip the hook because";

fn api() -> FakeApi {
    FakeApi::start(
        Script::new()
            .fire_skill(SKILL, FIRES_PROMPT, GOOD)
            .otherwise(BAD)
            .judge_passes_if_contains(MARKER),
    )
}

#[test]
fn the_platform_never_reads_a_labels_file() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let api = api();
    let dir = tempfile::tempdir().unwrap();
    let source = source_copy(dir.path());
    // A plugin as bob-eval assembles it, by hand, with labels files it
    // would leave out: one valid, one not JSON at all.
    let plugin = dir.path().join("plugin");
    std::fs::create_dir_all(plugin.join(".claude-plugin")).unwrap();
    std::fs::write(
        plugin.join(".claude-plugin/plugin.json"),
        r#"{"name": "bob-eval-commit", "version": "0.0.0", "description": "commit under test"}"#,
    )
    .unwrap();
    std::fs::create_dir_all(plugin.join("skills")).unwrap();
    std::os::unix::fs::symlink(source.join("skills/commit"), plugin.join("skills/commit")).unwrap();
    copy_tree(&source.join("evals/commit"), &plugin.join("evals/commit"));
    std::fs::remove_file(plugin.join("evals/commit/baseline.json")).unwrap();
    let graders = plugin.join("evals/commit/fires/graders");
    std::fs::write(
        graders.join("why.labels.json"),
        r#"{"format":"bob-eval-labels/1","grader":"why","criterion_digest":"sha256:0000000000000000000000000000000000000000000000000000000000000000","labels":[]}"#,
    )
    .unwrap();
    std::fs::write(graders.join("subject.labels.json"), "{ not json: at all").unwrap();
    let out_dir = dir.path().join("out");
    let output = Command::new(claude_bin())
        .args(["plugin", "eval"])
        .arg(&plugin)
        .args(["--ablation", "with-without", "--output-dir"])
        .arg(&out_dir)
        .args(["--threshold", "0", "--max-cost-usd", "1", "--trust-plugin"])
        .args(["--no-publish", "--runs", "1", "--case", "fires"])
        .current_dir(dir.path())
        .env_clear()
        .envs(platform_env(&api, dir.path()))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("labels"), "{stderr}");
    let result: Value =
        serde_json::from_slice(&std::fs::read(out_dir.join("aggregate-result.json")).unwrap())
            .unwrap();
    let fires = result["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "fires")
        .unwrap();
    let mut names: Vec<&str> = fires["graders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    names.sort();
    // Exactly the grader files: the labels files are not graders.
    assert_eq!(names, ["fires", "subject", "why"], "{fires}");
}

#[test]
fn real_runs_are_labelled_through_a_file() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let api = api();
    let dir = tempfile::tempdir().unwrap();
    let source = source_copy(dir.path());
    let home = dir.path().join("bob-home");
    std::fs::create_dir_all(&home).unwrap();
    let run = |args: &[&str]| {
        let out = offline(bob(&source, &home), &api, dir.path())
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    run(&["run", "commit", "--runs", "2", "--max-cost-usd", "1"]);
    let batch = dir.path().join("batch.jsonl");
    let batch_arg = batch.to_str().unwrap();
    let report: Value =
        serde_json::from_str(&run(&["label", "commit", "--export", batch_arg, "--json"])).unwrap();
    assert_eq!(report["exported"], 4, "two runs an arm: {report}");
    assert_eq!(report["no_evidence"], 0, "{report}");
    // A person who knows the truth: the answer says why.
    let filled: Vec<String> = std::fs::read_to_string(&batch)
        .unwrap()
        .lines()
        .map(|l| {
            let mut e: Value = serde_json::from_str(l).unwrap();
            assert!(e.get("judge").is_none(), "{e}");
            let pass = e["saw"].as_str().unwrap().contains(MARKER);
            e["human"] = if pass { "pass" } else { "fail" }.into();
            e.to_string()
        })
        .collect();
    std::fs::write(&batch, filled.join("\n") + "\n").unwrap();
    let report: Value =
        serde_json::from_str(&run(&["label", "commit", "--import", batch_arg, "--json"])).unwrap();
    assert_eq!(report["import"]["added"], 4, "{report}");
    let why = &report["graders"][0];
    // The fake judge is right every time: it agrees on every label.
    assert_eq!(why["need"]["pass"]["labels"], 2, "{why}");
    assert_eq!(why["need"]["pass"]["agreed"], 2, "{why}");
    assert_eq!(why["need"]["fail"]["labels"], 2, "{why}");
    assert_eq!(why["need"]["fail"]["agreed"], 2, "{why}");
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(source.join("evals/commit/fires/graders/why.labels.json"))
            .unwrap(),
    )
    .unwrap();
    for l in file["labels"].as_array().unwrap() {
        let truth = if l["arm"] == "with" { "pass" } else { "fail" };
        assert_eq!(
            (&l["human"], &l["judge"]),
            (&truth.into(), &truth.into()),
            "{l}"
        );
        // Each label keeps the judge model of its run (the run's key).
        assert_eq!(l["judge_model"], "default", "{l}");
    }
}

#[test]
fn every_error_of_an_erring_judge_shows_in_the_labels() {
    if !tier::present(Tool::Claude) {
        return;
    }
    // The judge is right except on every third run's votes: it flips them.
    let votes = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = std::sync::Arc::clone(&votes);
    let api = FakeApi::start(
        Script::new()
            .fire_skill(SKILL, FIRES_PROMPT, GOOD)
            .otherwise(BAD)
            .judge(move |r| {
                let n = count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                r.text().contains(MARKER) != ((n / 3) % 3 == 2)
            }),
    );
    let dir = tempfile::tempdir().unwrap();
    let source = source_copy(dir.path());
    let home = dir.path().join("bob-home");
    std::fs::create_dir_all(&home).unwrap();
    let run = |args: &[&str]| {
        let out = offline(bob(&source, &home), &api, dir.path())
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // The `fires` case alone: the other one has no judge to label.
    run(&[
        "run",
        "commit",
        "--case",
        "fires",
        "--runs",
        "4",
        "--max-cost-usd",
        "2",
    ]);
    // What the store says the judge decided, run by run.
    let mut wrong = 0;
    let mut stored = 0;
    for line in run(&["evidence", "export", "commit"]).lines() {
        let l: Value = serde_json::from_str(line).unwrap();
        for g in l["outcome"]["graders"].as_array().into_iter().flatten() {
            if g["name"] == "why" {
                stored += 1;
                let truth = g["evidence"].as_str().unwrap().contains(MARKER);
                wrong += usize::from(g["passed"].as_bool().unwrap() != truth);
            }
        }
    }
    assert_eq!(stored, 8, "four runs an arm");
    assert!(wrong > 0, "the fake judge erred on no run");
    let batch = dir.path().join("batch.jsonl");
    let batch_arg = batch.to_str().unwrap();
    run(&["label", "commit", "--export", batch_arg]);
    let filled: Vec<String> = std::fs::read_to_string(&batch)
        .unwrap()
        .lines()
        .map(|l| {
            let mut e: Value = serde_json::from_str(l).unwrap();
            e["human"] = e["saw"].as_str().unwrap().contains(MARKER).into();
            e.to_string()
        })
        .collect();
    assert_eq!(filled.len(), 8);
    std::fs::write(&batch, filled.join("\n") + "\n").unwrap();
    let report: Value =
        serde_json::from_str(&run(&["label", "commit", "--import", batch_arg, "--json"])).unwrap();
    let need = &report["graders"][0]["need"];
    let agreed =
        need["pass"]["agreed"].as_u64().unwrap() + need["fail"]["agreed"].as_u64().unwrap();
    assert_eq!(
        (
            need["pass"]["labels"].as_u64(),
            need["fail"]["labels"].as_u64()
        ),
        (Some(4), Some(4)),
        "{report}"
    );
    // Every error of the judge the store holds shows in the labels.
    assert_eq!(8 - agreed as usize, wrong, "{report}");
}
