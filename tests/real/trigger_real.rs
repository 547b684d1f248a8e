//! On the real platform tier: `exam` says which way the trigger pair failed.
//! Three scripted models over the fixture suite (fires: "Write the commit
//! message…"; quiet: "…what is a pull request?", whose `quiet` grader has
//! `max: 0`, `arm: both`), one run per case and arm, the with arm only counted
//! in the rates:
//! - never fires: fires' indicator fails (0/1), quiet holds (1/1) →
//!   fires_rate 0, quiet_rate 1, trigger_rate 0.5; exam does not advise
//!   disposing of the item;
//! - fires everywhere: fires passes (1/1), quiet fails (0/1) → fires_rate 1,
//!   quiet_rate 0, trigger_rate 0.5;
//! - behaves: both hold → 1, 1, 1.

use crate::support;
use support::tier::{self, Tool};

use serde_json::Value;
use support::fake_api::{FakeApi, Script};

const SKILL: &str = "bob-eval-commit:commit";
const FIRES: &str = "Write the commit message";
const QUIET: &str = "what is a pull request";
const GOOD: &str = "fix(hooks): skip the pre-commit hook when only docs change\n\nSkip the hook because docs-only commits do not need lint or tests.";
const BAD: &str = "Skip pre-commit hook for docs-only changes.";
const REASON: &str = "Skip the hook because";

/// `bob-eval exam commit --json` on the real platform against `script`.
fn exam(script: Script) -> (Value, String) {
    let api = FakeApi::start(script);
    let dir = tempfile::tempdir().unwrap();
    let source = support::real::source_copy(dir.path());
    let out = support::real::offline(
        support::cmd::bob(&source, &dir.path().join("bob-home")),
        &api,
        dir.path(),
    )
    .args([
        "exam",
        "commit",
        "--runs",
        "1",
        "--max-cost-usd",
        "1",
        "--json",
    ])
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    (serde_json::from_str(&stdout).unwrap(), stdout)
}

fn rates(r: &Value) -> (f64, f64, f64) {
    let n = |k: &str| r[k].as_f64().unwrap_or_else(|| panic!("{k} in {r}"));
    (n("fires_rate"), n("quiet_rate"), n("trigger_rate"))
}

#[test]
fn an_item_that_never_fires_is_not_judged() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let (doc, text) = exam(
        Script::new()
            .otherwise(BAD)
            .judge_passes_if_contains(REASON),
    );
    let r = &doc["result"];
    assert_eq!(rates(r), (0.0, 1.0, 0.5), "{text}");
    assert_eq!(r["verdict"], "no-signal");
    assert_eq!(doc["judged"], false);
    assert_eq!(doc["trigger_problem"], "never fired where it should");
    let meaning = doc["meaning"].as_str().unwrap();
    assert!(meaning.starts_with("not judged"), "{meaning}");
    assert!(!meaning.contains("dispos"), "{meaning}");
    assert!(meaning.contains("description"), "{meaning}");
}

#[test]
fn an_item_that_fires_everywhere_says_so() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let (doc, text) = exam(
        Script::new()
            .fire_skill(SKILL, FIRES, GOOD)
            .fire_skill(SKILL, QUIET, GOOD)
            .otherwise(BAD)
            .judge_passes_if_contains(REASON),
    );
    let r = &doc["result"];
    assert_eq!(rates(r), (1.0, 0.0, 0.5), "{text}");
    assert_eq!(doc["trigger_problem"], "fired where it should not");
    assert_eq!(doc["judged"], true);
    let notes: Vec<&str> = doc["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("fired where it should not")),
        "{notes:?}"
    );
}

#[test]
fn an_item_that_behaves_has_both_rates_at_one() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let (doc, text) = exam(
        Script::new()
            .fire_skill(SKILL, FIRES, GOOD)
            .otherwise(BAD)
            .judge_passes_if_contains(REASON),
    );
    let r = &doc["result"];
    assert_eq!(rates(r), (1.0, 1.0, 1.0), "{text}");
    assert_eq!(doc["trigger_problem"], Value::Null);
    let fires = r["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "fires")
        .unwrap();
    assert_eq!(fires["fires_rate"], 1.0);
    assert!(fires.get("quiet_rate").is_none(), "{fires}");
    assert!(
        doc["meaning"]
            .as_str()
            .unwrap()
            .starts_with("keeps helping")
    );
}
