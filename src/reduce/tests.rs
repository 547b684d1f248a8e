//! Unit tests of the module.

use super::{ReduceContext, ResultSource, check_single_arm, read_result, reduce};
use crate::document::{ArmCount, GraderRole, PartialReason, Verdict, round4};
use crate::error::Error;
use crate::platform::result::PlatformResult;
use chrono::{DateTime, Utc};
use serde_json::json;

fn ctx() -> ReduceContext {
    ReduceContext {
        item: crate::config::item_name("commit"),
        model: "default".into(),
        max_cost_usd: 2.0,
        started: Some(
            DateTime::parse_from_rfc3339("2026-12-02T09:43:37.5Z")
                .unwrap()
                .with_timezone(&Utc),
        ),
    }
}

fn run(score: f64, graders: &[(&str, bool)]) -> serde_json::Value {
    let g: Vec<_> = graders
        .iter()
        .map(|(n, p)| json!({"name": n, "passed": p, "evidence": "x"}))
        .collect();
    json!({"score": score, "costUsd": 0.01, "error": null, "graders": g})
}

fn doc(cases: serde_json::Value) -> PlatformResult {
    serde_json::from_value(json!({
        "schemaVersion": 1, "startedAt": "2026-12-02T09:39:15.075Z", "costUsd": 0.1, "partial": false,
        "suite": {"ablation": "with-without", "plugins": [{"name": "bob-eval-commit"}]},
        "cases": cases,
    }))
    .unwrap()
}

fn trigger_grader(name: &str) -> serde_json::Value {
    json!({"name": name, "type": "tool_used", "config": {"tool": "Skill"}})
}

#[test]
fn numbers_from_runs_and_run_stamp() {
    let d = doc(json!([
        {"name": "fires", "graders": [trigger_grader("fires"), {"name": "s", "type": "regex", "config": {}}],
         "arms": {"with": [run(1.0, &[("fires", true), ("s", true)]), run(0.5, &[("fires", false), ("s", true)]), run(1.0, &[("fires", true)])],
                  "without": [run(0.0, &[("s", false)]), run(1.0, &[("s", true)]), run(0.0, &[])]}},
        {"name": "quiet", "graders": [trigger_grader("quiet")],
         "arms": {"with": [run(1.0, &[("quiet", true)])], "without": [run(1.0, &[("quiet", true)])]}}
    ]));
    let r = reduce(&d, &ctx()).unwrap();
    assert_eq!(r.run, "eval-commit-20261202T094337Z");
    assert_eq!(r.date, "2026-12-02");
    let fires = &r.cases[0];
    assert_eq!(
        (fires.with, fires.without, fires.delta),
        (0.8333, Some(0.3333), Some(0.5))
    );
    assert_eq!(fires.trigger_rate, Some(0.6667));
    assert_eq!(fires.runs, 6);
    assert_eq!(r.with, round4((0.8333 + 1.0) / 2.0));
    assert_eq!(r.without, round4((0.3333 + 1.0) / 2.0));
    assert_eq!(r.delta, round4(r.with - r.without));
    assert_eq!(r.trigger_rate, Some(0.75));
    assert_eq!(r.verdict, Verdict::Improved);
    assert!(!r.partial);
}

#[test]
fn grader_detail_counts_each_arm_and_keeps_the_first_failure() {
    let g = |name: &str, passed: bool, why: &str| json!({"name": name, "passed": passed, "explanation": why, "scored": name != "fires", "withOnly": name == "fires"});
    let r = |score: f64, graders: Vec<serde_json::Value>| json!({"score": score, "costUsd": 0.01, "graders": graders});
    let long = "x".repeat(400);
    let d = doc(json!([{"name": "a", "graders": [],
    "arms": {"with": [
        r(0.5, vec![g("fires", true, "Skill called 1x"), g("subject", false, "pattern not found"), g("ref", false, "not close")]),
        r(0.5, vec![g("fires", false, "Skill called 0x"), g("subject", true, "matched"), g("ref", false, "grader threw: failed to read baseline: JSON Parse error")]),
    ], "without": [
        r(0.0, vec![g("subject", false, &long), g("ref", false, "grader threw: failed to read baseline: JSON Parse error")]),
    ]}}]));
    let graders = reduce(&d, &ctx()).unwrap().cases[0]
        .graders
        .clone()
        .unwrap();
    let names: Vec<&str> = graders.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["fires", "subject", "ref"]);
    let (fires, subject, rf) = (&graders[0], &graders[1], &graders[2]);
    assert_eq!(fires.kind, GraderRole::WithOnly);
    assert_eq!(
        (fires.with, fires.without),
        (ArmCount { passed: 1, runs: 2 }, None)
    );
    assert_eq!(fires.failure.as_deref(), Some("Skill called 0x"));
    assert_eq!(subject.kind, GraderRole::Scored);
    assert_eq!(subject.without, Some(ArmCount { passed: 0, runs: 1 }));
    assert_eq!(subject.failure.as_deref(), Some("pattern not found"));
    assert!(!subject.error && rf.error);
    assert_eq!(
        rf.failure.as_deref(),
        Some("grader threw: failed to read baseline: JSON Parse error")
    );
    // A long explanation is bounded.
    let d = doc(json!([{"name": "a", "graders": [],
        "arms": {"with": [r(0.0, vec![g("subject", false, &long)])], "without": [r(0.0, vec![])]}}]));
    let cut = reduce(&d, &ctx()).unwrap().cases[0]
        .graders
        .clone()
        .unwrap()[0]
        .failure
        .clone()
        .unwrap();
    assert_eq!(cut.chars().count(), crate::document::MAX_EXPLANATION);
    assert!(cut.ends_with('…'));
}

#[test]
fn broken_run_and_missing_arm_are_run_errors() {
    let d = doc(json!([{"name": "a", "graders": [],
        "arms": {"with": [run(1.0, &[])], "without": [{"score": 0, "error": "api 500", "graders": []}]}}]));
    let r = reduce(&d, &ctx()).unwrap();
    assert_eq!(
        (
            r.partial,
            r.partial_reason
                .as_ref()
                .map(ToString::to_string)
                .as_deref()
        ),
        (
            true,
            Some(
                "run_errors: 1 of 2 runs ended on an error and were not counted; the platform said: api 500"
            )
        )
    );
    assert_eq!(r.trigger_rate, None);
    let d = doc(json!([{"name": "a", "graders": [], "arms": {"with": [run(1.0, &[])]}}]));
    let r = reduce(&d, &ctx()).unwrap();
    assert_eq!(
        (
            r.partial,
            r.partial_reason
                .as_ref()
                .map(ToString::to_string)
                .as_deref()
        ),
        (true, Some("run_errors"))
    );
    assert_eq!(
        (r.cases[0].without, r.cases[0].delta, r.cases[0].verdict),
        (None, None, None)
    );
    assert_eq!(
        (r.without, r.delta, r.verdict),
        (r.with, 0.0, Verdict::NoSignal)
    );
}

/// A run the platform marked with an error is never counted, graded or
/// not: the without arm dropped must not make the item look better.
#[test]
fn an_errored_run_never_counts_even_when_graded() {
    let dropped = json!({"score": 0.0, "costUsd": 0.02,
        "error": "exit 1: API Error: Connection dropped (ECONNRESET)\u{1b}[2J\nretry",
        "graders": [{"name": "s", "passed": false, "explanation": "pattern not found"}]});
    let d = doc(json!([{"name": "a", "graders": [],
        "arms": {"with": [run(1.0, &[("s", true)]), run(1.0, &[("s", true)])],
                 "without": [run(1.0, &[("s", true)]), dropped]}}]));
    let r = reduce(&d, &ctx()).unwrap();
    let case = &r.cases[0];
    assert_eq!(
        (case.without, case.runs),
        (Some(1.0), 3),
        "the errored run is not in the mean"
    );
    assert_eq!(case.cost_usd, 0.05, "what it cost still counts as spent");
    assert!(r.partial);
    let reason = r.partial_reason.unwrap().to_string();
    assert!(
        reason.starts_with("run_errors: 1 of 4 runs ended on an error"),
        "{reason}"
    );
    assert!(
        reason.ends_with("Connection dropped (ECONNRESET) [2J retry"),
        "{reason}"
    );
    assert!(!reason.chars().any(char::is_control), "{reason:?}");
    // A mock's stop is marked too.
    let aborted = json!({"score": 1.0, "costUsd": 0.01, "aborted": {"server": "db", "tool": "drop", "reason": "abort_when matched"},
        "graders": [{"name": "s", "passed": true}]});
    let d = doc(json!([{"name": "a", "graders": [],
        "arms": {"with": [run(0.0, &[("s", false)])], "without": [run(0.0, &[("s", false)]), aborted]}}]));
    let r = reduce(&d, &ctx()).unwrap();
    assert_eq!(r.cases[0].without, Some(0.0));
    assert!(
        r.partial_reason
            .unwrap()
            .to_string()
            .ends_with("aborted: db/drop: abort_when matched")
    );
}

/// With every run errored the document is partial and says so; it is
/// never a complete "no-signal".
#[test]
fn every_run_errored_is_partial_and_says_so() {
    let e = || json!({"score": 0.0, "costUsd": 0.0, "error": "exit 1: API Error: Connection refused", "graders": [{"name": "s", "passed": false}]});
    let d = doc(
        json!([{"name": "a", "graders": [], "arms": {"with": [e()], "without": [e()]}},
                       {"name": "b", "graders": [], "arms": {"with": [e()], "without": [e()]}}]),
    );
    let r = reduce(&d, &ctx()).unwrap();
    assert!(r.partial);
    assert!(r.cases.is_empty());
    let reason = r.partial_reason.unwrap().to_string();
    assert!(
        reason.starts_with(
            "run_errors: every run (4 of 4) ended on an error, so nothing was measured"
        ),
        "{reason}"
    );
}

#[test]
fn sums_stay_finite_on_absurd_costs() {
    let big = json!({"score": 1.0, "costUsd": 1e308, "graders": []});
    let mut d = doc(
        json!([{"name": "a", "graders": [], "arms": {"with": [big.clone(), big.clone()], "without": [big]}}]),
    );
    d.cost_usd = 1e308;
    let r = reduce(&d, &ctx()).unwrap();
    assert!(r.cost_usd.is_finite() && r.cases[0].cost_usd.is_finite());
    let cost = &r.efficiency.unwrap().suite.figures.cost_usd;
    assert!(cost.with.unwrap().mean.is_finite() && cost.with.unwrap().mean > 0.0);
}

/// A run with its efficiency figures, as the platform writes them.
fn timed(turns: u32, cost: f64, judge: f64, secs: f64) -> serde_json::Value {
    json!({"score": 1.0, "turns": turns, "costUsd": cost, "judgeCostUsd": judge,
           "durationSeconds": secs, "graders": []})
}

#[test]
fn efficiency_per_arm_and_ratios_from_the_runs() {
    let d = doc(json!([
        {"name": "fires", "graders": [],
         "arms": {"with": [timed(3, 0.05, 0.01, 4.0), timed(3, 0.06, 0.01, 6.0), timed(3, 0.05, 0.01, 5.0)],
                  "without": [timed(1, 0.03, 0.01, 2.0), timed(1, 0.03, 0.01, 2.0), timed(1, 0.04, 0.01, 3.0)]}},
        {"name": "old", "graders": [],
         "arms": {"with": [run(1.0, &[])], "without": [run(1.0, &[])]}}
    ]));
    let e = reduce(&d, &ctx()).unwrap().efficiency.unwrap();
    let fires = &e.cases[0].figures;
    // The judge's cost is left out: with 0.04, 0.05, 0.04; without 0.02, 0.02, 0.03.
    let cost = fires.cost_usd.with.unwrap();
    assert_eq!((cost.runs, cost.mean), (3, round4(0.13 / 3.0 * 1e2) / 1e2));
    assert_eq!(fires.turns.ratio.unwrap().value, 3.0);
    assert!(fires.turns.ratio.unwrap().clearly_above_one());
    assert_eq!(
        fires.duration_seconds.without.unwrap().mean,
        round4(7.0 / 3.0)
    );
    // The "old" case's runs report a cost but no turns nor duration: they
    // count (a cost was reported); turns 0 is then a figure as written.
    assert_eq!(e.runs_without_figures, None);
    assert_eq!(e.suite.cases, 2);
    assert!(e.method.contains("t-interval") && e.method.contains("log-ratio"));
    // A run reporting nothing at all is left out, and said.
    let d = doc(json!([
        {"name": "fires", "graders": [],
         "arms": {"with": [timed(2, 0.02, 0.0, 1.0), timed(0, 0.0, 0.0, 0.0)],
                  "without": [timed(1, 0.01, 0.0, 1.0)]}}
    ]));
    let e = reduce(&d, &ctx()).unwrap().efficiency.unwrap();
    assert_eq!(e.runs_without_figures, Some(1));
    assert_eq!(e.cases[0].figures.turns.with.unwrap().runs, 1);
    // One run per arm: means and the ratio, but no interval.
    assert_eq!(e.cases[0].figures.turns.ratio.unwrap().low, None);
}

#[test]
fn refuses_wrong_plugin_and_single_arm() {
    let mut d = doc(json!([]));
    d.suite.plugins[0].name = "hello-plug".into();
    assert!(matches!(reduce(&d, &ctx()), Err(Error::PluginNotLoaded(_))));
    let mut d = doc(json!([]));
    d.suite.ablation = "none".into();
    assert!(matches!(reduce(&d, &ctx()), Err(Error::PluginNotLoaded(_))));
    let mut d = doc(json!([]));
    d.suite.plugins[0].problem = Some(json!("bad manifest"));
    assert!(matches!(reduce(&d, &ctx()), Err(Error::PluginNotLoaded(_))));
    let d = doc(json!([]));
    assert!(matches!(
        reduce(&d, &ctx()),
        Err(Error::PlatformFailed { .. })
    ));
}

#[test]
fn bad_json_names_file_and_line_and_schema_version() {
    use crate::platform::result::parse as parse_doc;
    let err = parse_doc(b"{\n\"schemaVersion\": 1,\n oops}", "r.json".into()).unwrap_err();
    assert!(err.to_string().starts_with("r.json:3: "), "{err}");
    assert_eq!(err.exit_code(), crate::error::exit::USAGE);
    let err = parse_doc(br#"{"schemaVersion": 2, "suite": {}}"#, "r.json".into()).unwrap_err();
    assert!(err.to_string().contains("schemaVersion 2"), "{err}");
}

#[test]
fn a_single_arm_result_is_checked_not_reduced() {
    let capture = |name: &str| {
        camino::Utf8PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/platform")
            .join(name)
    };
    let single = capture("single-arm-none.json");
    let check = |path: &camino::Utf8Path, source: ResultSource, item: &str| {
        read_result(path, source).and_then(|r| check_single_arm(&r, path, item))
    };
    let checked = check(&single, ResultSource::File, "commit").unwrap();
    assert_eq!(checked.cost_usd, 0.0243);
    assert_eq!(checked.partial_reason, None);
    let exit2 = check(&single, ResultSource::Platform { exit_code: 2 }, "commit");
    assert_eq!(
        exit2.unwrap().partial_reason,
        Some(PartialReason::PlatformExit2)
    );
    for (path, item) in [
        (single.clone(), "other"),
        (capture("single-arm-with-without.json"), "commit"),
    ] {
        let err = check(&path, ResultSource::File, item).unwrap_err();
        assert!(matches!(err, Error::PluginNotLoaded(_)), "{err}");
    }
}

/// A run whose agent called a tool with no stand-in (its MCP server was not
/// started) is no failure of the item: it is not counted, the case says so
/// in words, and the document is partial with the platform's count.
#[test]
fn a_run_that_met_a_missing_mcp_server_is_not_counted() {
    let unmocked = json!({"score": 0.0, "costUsd": 0.01, "graders": [{"name": "s", "passed": false}],
        "mocks": {"warnings": ["mocks: \"plugin:x:tracker\" has no mock and is NOT started"],
                  "calls": {"total": 2, "errors": 0, "unmocked": [{"tool": "mcp__tracker__close", "count": 2}]}}});
    let erring = json!({"score": 0.0, "costUsd": 0.01, "graders": [{"name": "s", "passed": false}],
        "mocks": {"warnings": [], "calls": {"total": 1, "errors": 1, "unmocked": []}}});
    let served = json!({"score": 1.0, "costUsd": 0.01, "graders": [{"name": "s", "passed": true}],
        "mocks": {"warnings": [], "calls": {"total": 1, "errors": 0, "unmocked": []}}});
    let d = doc(
        json!([{"name": "a", "graders": [], "advisories": ["grader s: criterion is vague"],
        "arms": {"with": [served.clone(), unmocked], "without": [run(0.0, &[("s", false)]), erring]}}]),
    );
    let r = reduce(&d, &ctx()).unwrap();
    let case = &r.cases[0];
    assert_eq!((case.with, case.without, case.runs), (1.0, Some(0.0), 2));
    let words = case.mocks.as_deref().unwrap();
    assert!(
        words.starts_with(
            "2 of 4 run(s) not counted: called tools with no stand-in (mcp__tracker__close)"
        ),
        "{words}"
    );
    assert!(words.contains("1 stand-in error(s)"), "{words}");
    assert_eq!(case.advisories, ["grader s: criterion is vague"]);
    let reason = r.partial_reason.unwrap().to_string();
    assert!(
        reason.starts_with("run_errors: 2 of 4 runs ended on an error"),
        "{reason}"
    );
    assert!(
        reason.contains("mocks: 2 call(s) to tools with no stand-in"),
        "{reason}"
    );
    assert_eq!(d.mock_warnings().len(), 1);
    // A run that used its stand-ins without trouble counts, and says nothing.
    let d = doc(json!([{"name": "a", "graders": [],
        "arms": {"with": [served], "without": [run(0.0, &[("s", false)])]}}]));
    let r = reduce(&d, &ctx()).unwrap();
    assert!(!r.partial && r.cases[0].mocks.is_none());
}

#[test]
fn split_votes_count_both_arms_runs_with_votes_and_carry_a_wilson_interval() {
    let v =
        |votes: serde_json::Value| json!({"name": "clear", "passed": true, "judgeVotes": votes});
    let r = |g: Vec<serde_json::Value>| json!({"score": 1.0, "costUsd": 0.01, "graders": g});
    let split = || v(json!([true, false, true]));
    let same = || v(json!([true, true, true]));
    let errored = json!({"score": 0.0, "costUsd": 0.01, "error": "api 500",
        "graders": [v(json!([false, true, true]))]});
    let d = doc(json!([{"name": "a", "graders": [],
        "arms": {
            "with": [r(vec![split()]), r(vec![split()]), r(vec![same()]), r(vec![same()]), r(vec![same()]),
                     r(vec![json!({"name": "regex", "passed": true}), same()])],
            "without": [r(vec![split()]), r(vec![split()]), r(vec![same()]), r(vec![same()]), errored]}}]));
    let graders = reduce(&d, &ctx()).unwrap().cases[0]
        .graders
        .clone()
        .unwrap();
    let clear = graders.iter().find(|g| g.name == "clear").unwrap();
    let votes = clear
        .split_votes
        .expect("a judged grader carries split votes");
    // Ten counted runs (six with, four without; the errored one is not counted).
    assert_eq!((votes.split, votes.runs), (4, 10));
    assert_eq!(votes.rate, 0.4);
    let wilson = crate::stats::wilson(4, 10);
    assert_eq!(
        (votes.low, votes.high),
        (round4(wilson.low), round4(wilson.high))
    );
    // Wilson 95 % for 4/10 is about 16.8 %–68.7 %.
    assert!((0.16..0.17).contains(&votes.low) && (0.68..0.69).contains(&votes.high));
    assert!(votes.is_alarming());
    let regex = graders.iter().find(|g| g.name == "regex").unwrap();
    assert_eq!(
        regex.split_votes, None,
        "a grader with no votes has no split rate"
    );
}

#[test]
fn a_unanimous_judge_is_not_alarming() {
    let r = json!({"score": 1.0, "costUsd": 0.01,
        "graders": [{"name": "clear", "passed": true, "judgeVotes": [false, false, false]}]});
    let d = doc(json!([{"name": "a", "graders": [],
        "arms": {"with": [r.clone(), r.clone()], "without": [r]}}]));
    let votes = reduce(&d, &ctx()).unwrap().cases[0]
        .graders
        .clone()
        .unwrap()[0]
        .split_votes
        .unwrap();
    assert_eq!(
        (votes.split, votes.runs, votes.rate, votes.low),
        (0, 3, 0.0, 0.0)
    );
    assert!(!votes.is_alarming());
}
