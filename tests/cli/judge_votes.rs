//! `bob-eval run` on a platform result whose llm grader's judge split its
//! votes: the document's `split_votes` and the summary's advice.

use crate::support;

use serde_json::Value;
use support::cmd::bob;
use support::data::data;
use support::expect;
use support::stub::{Stub, Switches};

/// The 95 % Wilson interval for `k` of `n`, written out here apart from the
/// crate's (z for 95 %).
fn wilson(k: f64, n: f64) -> (f64, f64) {
    let z = 1.959_963_984_540_054_f64;
    let p = k / n;
    let d = 1.0 + z * z / n;
    let c = (p + z * z / (2.0 * n)) / d;
    let h = z / d * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    (c - h, c + h)
}

#[test]
fn a_judge_that_splits_its_votes_is_counted_and_named_with_advice() {
    let (work, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let fixture = data("platform/split-votes.json");
    let stub = Stub::new(Switches::answering(fixture.clone()));
    let out = bob(&data("source"), home.path())
        .current_dir(work.path())
        .arg("run")
        .arg("--claude")
        .arg(&stub.bin)
        .arg("commit")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let raw: Value = serde_json::from_str(&std::fs::read_to_string(&fixture).unwrap()).unwrap();
    // Counts as the fixture's runs say (3 of the 4 `why` results split).
    expect::assert_matches(&doc, &expect::expected(&raw));
    let why = expect::case(&doc, "fires")["graders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "why")
        .unwrap()["split_votes"]
        .clone();
    assert_eq!(
        (why["split"].as_u64(), why["runs"].as_u64()),
        (Some(3), Some(4))
    );
    assert_eq!(why["rate"].as_f64(), Some(0.75));
    let (low, high) = wilson(3.0, 4.0);
    assert!((why["low"].as_f64().unwrap() - low).abs() < 1e-4, "{why}");
    assert!((why["high"].as_f64().unwrap() - high).abs() < 1e-4, "{why}");
    let subject = expect::case(&doc, "fires")["graders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "subject")
        .unwrap()
        .clone();
    assert!(subject.get("split_votes").is_none(), "{subject}");
    let pct = |x: f64| format!("{:.0}", x * 100.0);
    let advice = format!(
        "JUDGE UNSURE: grader `why` of case `fires` split its votes in 3 of 4 runs (75 %, 95 % Wilson CI {}–{} %): its criterion may be ambiguous",
        pct(low),
        pct(high)
    );
    assert!(stderr.contains(&advice), "missing {advice:?} in\n{stderr}");
    assert!(
        stderr.contains("(judge split its votes in 3/4 runs)"),
        "{stderr}"
    );
    // The schema takes the new field, refuses a malformed one, and a
    // document written before it (no `split_votes`) still validates.
    bob_eval::schema::validate_skill_eval(&doc, "<stdout>".into()).unwrap();
    let mut bad = doc.clone();
    bad["cases"][0]["graders"][2]["split_votes"]["rate"] = 1.5.into();
    assert_eq!(bad["cases"][0]["graders"][2]["name"], "why");
    assert!(bob_eval::schema::validate_skill_eval(&bad, "<stdout>".into()).is_err());
    let mut old = doc;
    for g in old["cases"][0]["graders"].as_array_mut().unwrap() {
        g.as_object_mut().unwrap().remove("split_votes");
    }
    bob_eval::schema::validate_skill_eval(&old, "<stdout>".into()).unwrap();
}

#[test]
fn a_unanimous_judge_gives_no_advice() {
    let (work, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let stub = Stub::new(Switches::answering(data("platform/run1_main.json")));
    let out = bob(&data("source"), home.path())
        .current_dir(work.path())
        .arg("run")
        .arg("--claude")
        .arg(&stub.bin)
        .arg("commit")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let why = expect::case(&doc, "fires")["graders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "why")
        .unwrap()["split_votes"]
        .clone();
    assert_eq!(
        (why["split"].as_u64(), why["runs"].as_u64()),
        (Some(0), Some(4))
    );
    assert!(!stderr.contains("JUDGE UNSURE"), "{stderr}");
    assert!(!stderr.contains("judge split"), "{stderr}");
}
