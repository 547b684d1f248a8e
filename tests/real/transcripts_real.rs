//! Transcripts on the real platform tier (real `claude`, fake API): each
//! run's trace is kept in the evidence store, and the answer `show` and
//! `compare` read back is what the fake model said on that arm.

use crate::support;
use support::tier::{self, Tool};

use serde_json::Value;
use support::fake_api::{FakeApi, Script};
use support::real::RealWorld;
use support::world::outcome;

const SKILL: &str = "bob-eval-commit:commit";
const FIRES: &str = "Write the commit message";
const GOOD: &str = "fix(hooks): skip the pre-commit hook when only docs change\n\nSkip the hook because docs-only commits do not need lint or tests.";
const BAD: &str = "Skip pre-commit hook for docs-only changes.";

fn bob(w: &RealWorld, args: &[&str]) -> (i32, String, String) {
    let mut cmd = w.command(support::cmd::bob(&w.source, &w.home()));
    cmd.args(args);
    outcome(cmd)
}

fn shown(w: &RealWorld, arm: &str) -> Value {
    let (code, out, err) = bob(
        w,
        &["show", "commit", "--case", "fires", "--arm", arm, "--json"],
    );
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    bob_eval::schema::validate_show(&doc, "<stdout>".into()).unwrap();
    doc
}

#[test]
fn the_kept_answer_is_what_the_model_said_on_each_arm() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let w = RealWorld::new(FakeApi::start(
        Script::new()
            .fire_skill(SKILL, FIRES, GOOD)
            .otherwise(BAD)
            .judge_passes_if_contains("Skip the hook because"),
    ));
    let (code, out, err) = bob(&w, &["run", "commit", "--runs", "1", "--max-cost-usd", "1"]);
    assert_eq!(code, 0, "{out}\n{err}");

    let with = shown(&w, "with");
    let t = &with["transcript"];
    assert_eq!(t["answer"], GOOD, "{with}");
    assert!(
        t["prompt"].as_str().unwrap().contains(FIRES),
        "the case's prompt: {with}"
    );
    assert!(
        t["steps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["kind"] == "tool_call" && s["name"] == "Skill"),
        "the Skill call is a step: {with}"
    );
    assert_eq!(t["digest"].as_str().unwrap().len(), 64);
    let without = shown(&w, "without");
    assert_eq!(without["transcript"]["answer"], BAD, "{without}");

    let (code, text, err) = bob(&w, &["show", "commit", "--case", "fires"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("Answer\n  fix(hooks): skip the pre-commit hook"),
        "{text}"
    );
    assert!(
        !text.contains("sk-ant-fake-test-key"),
        "no key in a transcript"
    );

    // Compressed and stored once per content: the figures, measured.
    let path = w.home().join("evidence.db");
    let store =
        bob_eval::evidence::Store::open_read_only(camino::Utf8Path::from_path(&path).unwrap())
            .unwrap();
    let mut raw = std::collections::BTreeMap::new();
    for id in store.transcript_runs().unwrap() {
        let t = store.transcript(&id).unwrap().unwrap();
        raw.insert(t.digest, t.trace.len() as u64);
    }
    let packed = store.transcript_bytes().unwrap();
    let total: u64 = raw.values().sum();
    eprintln!(
        "transcripts: {} run(s), {} distinct trace(s), {total} bytes of trace, {packed} bytes compressed",
        store.transcript_runs().unwrap().len(),
        raw.len()
    );
    assert!(packed > 0 && packed < total, "{packed} of {total}");

    let export = bob(&w, &["evidence", "export"]).1;
    assert!(export.contains(r#""kind":"transcript""#));
    assert!(
        !export.contains("sk-ant-fake-test-key"),
        "no key in the export"
    );
}
