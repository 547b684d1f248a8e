//! Runs brought in rather than bought keep what a live run keeps: a result
//! given with `run --platform-result` gets the judges' calibration against
//! the labels in the tree (and says its transcripts are not kept), and
//! `collect` keeps the transcripts the shards carry and calibrates each
//! document against the collecting tree's labels. Stub platform.

use crate::judge_calibration::{judge_entry, labels, why_digest, world};
use crate::support;

use serde_json::Value;
use std::process::Command;
use support::cmd::bob;
use support::data::data;
use support::stub::STUB_ANSWER;
use support::world::{World, succeeds};

fn on(w: &World, home: &str, args: &[&str]) -> Command {
    let mut c = w.command(bob(&w.source, &w.root.join(home)));
    c.env("EVALS", "1").args(args);
    c
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_platform_result_is_calibrated_as_a_live_run_is() {
    let w = world();
    labels(&w, &why_digest(&w), 16);
    let live = w.path("live.json");
    succeeds(on(&w, "home", &["run", "commit", "--out", &live]));
    let live: Value = serde_json::from_str(&std::fs::read_to_string(&live).unwrap()).unwrap();

    let given = w.path("given.json");
    let fixture = data("platform/split-votes.json");
    let out = succeeds(on(
        &w,
        "home",
        &[
            "run",
            "commit",
            "--platform-result",
            fixture.to_str().unwrap(),
            "--out",
            &given,
        ],
    ));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&given).unwrap()).unwrap();
    let why = judge_entry(&doc);
    assert_eq!(why["record"]["labels"], 32, "{why}");
    assert_eq!(why, judge_entry(&live), "the same record as the live run's");
    assert_eq!(
        doc["calibration"]["corrected"], live["calibration"]["corrected"],
        "{doc}"
    );
    let err = text(&out.stderr);
    assert_eq!(
        err.matches("transcripts not kept: a result given with --platform-result")
            .count(),
        1,
        "said once: {err}"
    );
}

#[test]
fn collect_keeps_the_shards_transcripts_and_calibrates_against_this_tree() {
    let w = world();
    let dir = w.path("shard-1");
    succeeds(on(
        &w,
        "home-1",
        &["sweep", "--shard", "1/1", "--out-dir", &dir],
    ));
    let shard: Value =
        serde_json::from_str(&std::fs::read_to_string(w.root.join("shard-1/commit.json")).unwrap())
            .unwrap();
    assert_eq!(judge_entry(&shard)["record"]["labels"], 0, "no labels yet");

    // Labels given in the collecting checkout after the shard swept.
    labels(&w, &why_digest(&w), 16);
    let out = succeeds(on(&w, "home-collect", &["collect", &dir, "--json"]));
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    let doc = &rows[0]["result"];
    assert_eq!(judge_entry(doc)["record"]["labels"], 32, "{doc}");
    assert!(doc["calibration"].get("corrected").is_some(), "{doc}");
    assert!(
        !text(&out.stderr).contains("transcripts not kept"),
        "{}",
        text(&out.stderr)
    );

    // The runs' transcripts came with them: `show` reads the answer back.
    let shown = succeeds(on(
        &w,
        "home-collect",
        &["show", "commit", "--case", "fires"],
    ));
    assert!(
        text(&shown.stdout).contains(STUB_ANSWER),
        "{}",
        text(&shown.stdout)
    );

    // A shard that carries none says so once.
    let runs = w.root.join("shard-1/runs.jsonl");
    let kept: Vec<String> = std::fs::read_to_string(&runs)
        .unwrap()
        .lines()
        .filter(|l| !l.contains("\"kind\":\"transcript\""))
        .map(str::to_owned)
        .collect();
    std::fs::write(&runs, kept.join("\n") + "\n").unwrap();
    let out = succeeds(on(&w, "home-bare", &["collect", &dir]));
    let err = text(&out.stderr);
    assert_eq!(
        err.matches("transcripts not kept: runs brought by collect carry none")
            .count(),
        1,
        "{err}"
    );
}
