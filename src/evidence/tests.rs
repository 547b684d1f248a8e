//! The evidence model's unit tests: keys, lines, checks.

use super::digest::options_digest;
use super::{Arm, EXPORT_SCHEMA, Line, RunKey, StoredRun, digest};
use crate::platform::result::{GraderOutcome, RunOutcome};
use chrono::{DateTime, SecondsFormat};

/// A run for tests: `case`, `arm`, start `second` seconds into the day.
pub(crate) fn sample(case: &str, arm: Arm, second: u32, bought_by: &str) -> StoredRun {
    let key = RunKey {
        item: "commit".into(),
        item_digest: "i".repeat(64),
        case: case.into(),
        case_digest: format!("{case:0>64}"),
        arm,
        model: "claude-sonnet-5-5".into(),
        judge_model: "default".into(),
        platform_version: "2.1.328".into(),
        tools: vec!["Read".into(), "Bash".into()],
        options: options_digest(&[]),
    };
    let outcome = RunOutcome {
        score: 0.5,
        passed: false,
        graders: vec![GraderOutcome {
            name: "subject".into(),
            passed: true,
            scored: true,
            with_only: false,
            weight: 1.0,
            explanation: "matched".into(),
            judge_votes: Vec::new(),
            evidence: None,
        }],
        cost_usd: 0.03,
        judge_cost_usd: 0.01,
        duration_seconds: 2.0,
        turns: 3,
        error: None,
        skipped_paid_graders: false,
        started_at: DateTime::from_timestamp(1_796_000_000 + i64::from(second), 922_000_000)
            .unwrap(),
        run: 1,
        bought_by: bought_by.into(),
        mocks: None,
    };
    StoredRun::new(key, outcome)
}

#[test]
fn line_round_trips() {
    let run = sample("fires", Arm::With, 0, "eval-commit-20261202T094337Z");
    let line = run.to_line();
    assert!(
        line.starts_with(r#"{"schema":"bob-eval-evidence/1","id":""#),
        "{line}"
    );
    assert!(line.contains(r#""started_at":"2026-"#), "{line}");
    assert_eq!(StoredRun::from_line(&line).unwrap(), run);
}

#[test]
fn key_id_ignores_tool_order_but_not_fields() {
    let run = sample("fires", Arm::With, 0, "x");
    let mut other = run.key.clone();
    other.tools.reverse();
    assert_eq!(other.id(), run.key.id());
    other.model = "haiku".into();
    assert_ne!(other.id(), run.key.id());
    let mut arm = run.key.clone();
    arm.arm = Arm::Without;
    assert_ne!(arm.id(), run.key.id());
}

/// Grants and denials are two lists: a denial never matches a grant of
/// the same spelling, and a key with denials never matches the id an
/// older bob-eval gave it (one list, where a grant `!Bash` and a denial
/// `Bash` were one key).
#[test]
fn grants_and_denials_are_two_lists() {
    let base = sample("fires", Arm::With, 0, "x").key;
    let with_tools = |grants: &[&str], denials: &[&str]| RunKey {
        tools: RunKey::tool_list(
            &grants.iter().map(|t| t.to_string()).collect::<Vec<_>>(),
            &denials.iter().map(|t| t.to_string()).collect::<Vec<_>>(),
        ),
        ..base.clone()
    };
    let denied = with_tools(&["Read"], &["Bash"]);
    assert_eq!(denied.tools, ["Read", "!Bash"]);
    assert_eq!(
        denied.grants_and_denials(),
        (vec!["Read".to_string()], vec!["Bash".to_string()])
    );
    let ids = [
        with_tools(&["Read"], &["Bash"]).id(),
        with_tools(&["Read", "Bash"], &[]).id(),
        with_tools(&["Read"], &[]).id(),
        with_tools(&[], &["Read", "Bash"]).id(),
    ];
    for (i, a) in ids.iter().enumerate() {
        for b in &ids[i + 1..] {
            assert_ne!(a, b);
        }
    }
    assert_eq!(
        with_tools(&["Read", "Read"], &["Bash", "Agent"]).id(),
        with_tools(&["Read"], &["Agent", "Bash"]).id(),
        "order and repeats within a list do not matter"
    );
    // The id of one list, as bob-eval computed it before: unchanged for
    // grants alone, never matched by a key with denials.
    let old_id = |key: &RunKey| {
        let mut tools = key.tools.clone();
        tools.sort();
        tools.dedup();
        digest::digest_parts([
            "bob-eval-evidence-key/1",
            &key.item,
            &key.item_digest,
            &key.case,
            &key.case_digest,
            key.arm.as_str(),
            &key.model,
            &key.judge_model,
            &key.platform_version,
            &serde_json::to_string(&tools).unwrap(),
            &key.options,
        ])
    };
    let grants = with_tools(&["Read", "Bash"], &[]);
    assert_eq!(grants.id(), old_id(&grants));
    assert_ne!(denied.id(), old_id(&denied));
    assert_eq!(denied.one_list_id(), old_id(&denied));
}

/// An exported line keyed by an older bob-eval with a denial is refused
/// by name (its denial is ambiguous), not reused and not called damaged.
#[test]
fn a_line_keyed_with_one_tool_list_is_refused_by_name() {
    let mut run = sample("fires", Arm::With, 0, "x");
    run.key.tools = vec!["!Bash".into()];
    run.id = digest::digest_parts([
        "bob-eval-evidence-run/1",
        &run.key.one_list_id(),
        &run.outcome
            .started_at
            .to_rfc3339_opts(SecondsFormat::Nanos, true),
        &run.outcome.run.to_string(),
    ]);
    let err = StoredRun::from_line(&run.to_line()).unwrap_err();
    assert!(err.contains("one list"), "{err}");
    // Grants alone: the id is the same as ever, and the line imports.
    let grants = sample("fires", Arm::With, 0, "x");
    assert_eq!(grants.key.id(), grants.key.one_list_id());
    StoredRun::from_line(&grants.to_line()).unwrap();
}

#[test]
fn id_is_the_platform_run_whoever_bought_it() {
    let a = sample("fires", Arm::With, 0, "eval-commit-1");
    let b = sample("fires", Arm::With, 0, "eval-commit-2");
    assert_eq!(a.id, b.id);
    let c = sample("fires", Arm::With, 1, "eval-commit-1");
    assert_ne!(a.id, c.id);
}

#[test]
fn bad_lines_say_why() {
    let run = sample("fires", Arm::With, 0, "x");
    let edited = run.to_line().replace(r#""score":0.5"#, r#""score":0.75"#);
    assert_eq!(StoredRun::from_line(&edited).unwrap().outcome.score, 0.75);
    let forged = run.to_line().replace(&run.id, &"0".repeat(64));
    assert!(
        StoredRun::from_line(&forged)
            .unwrap_err()
            .contains("does not match")
    );
    let out_of_range = run.to_line().replace(r#""score":0.5"#, r#""score":1.5"#);
    assert!(
        StoredRun::from_line(&out_of_range)
            .unwrap_err()
            .contains("outside 0..1")
    );
    let unknown = run
        .to_line()
        .replace(r#""turns":3"#, r#""turns":3,"extra":1"#);
    assert!(
        StoredRun::from_line(&unknown)
            .unwrap_err()
            .contains("unknown field")
    );
    let schema = run
        .to_line()
        .replace("bob-eval-evidence/1", "bob-eval-evidence/2");
    assert!(
        StoredRun::from_line(&schema)
            .unwrap_err()
            .contains("schema")
    );
    assert!(StoredRun::from_line("{").is_err());
}

#[test]
fn errored_runs_are_not_usable_even_when_graded() {
    let mut run = sample("fires", Arm::With, 0, "x");
    assert!(run.outcome.usable());
    run.outcome.error = Some("exit 1: API Error: Connection dropped (ECONNRESET)".into());
    assert!(
        !run.outcome.usable(),
        "graded, but the platform marked it: it never counts"
    );
    run.outcome.graders.clear();
    assert!(!run.outcome.usable());
}

#[test]
fn the_without_arm_carries_no_item_digest() {
    let with = sample("fires", Arm::With, 0, "x");
    let without = sample("fires", Arm::Without, 0, "x");
    assert_eq!(with.key.item_digest, "i".repeat(64));
    assert_eq!(without.key.item_digest, "");
    // An edit of the item changes the with key only.
    let mut edited = with.key.clone();
    edited.item_digest = "j".repeat(64);
    assert_ne!(edited.normalized().id(), with.key.id());
    let mut edited = without.key.clone();
    edited.item_digest = "j".repeat(64);
    assert_eq!(edited.normalized().id(), without.key.id());
}

#[test]
fn an_old_without_line_still_imports_normalized() {
    let new = sample("fires", Arm::Without, 0, "x");
    // A line written before the rule: the item digest in the key and id.
    let mut key = new.key.clone();
    key.item_digest = "i".repeat(64);
    let old_id = StoredRun::compute_id(&key, &new.outcome);
    let line = serde_json::to_string(&Line {
        schema: EXPORT_SCHEMA.into(),
        id: old_id.clone(),
        key,
        outcome: new.outcome.clone(),
    })
    .unwrap();
    let read = StoredRun::from_line(&line).unwrap();
    assert_eq!(read, new, "keyed as the without arm is now");
    assert_ne!(read.id, old_id);
    let forged = line.replace(&old_id, &new.id);
    assert!(
        StoredRun::from_line(&forged).is_err(),
        "the id is checked as written"
    );
}
