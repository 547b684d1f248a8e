//! From a platform result (`claude plugin eval`, `schemaVersion` 1) to the
//! runs the evidence store keeps.
//!
//! The reduce module's types read only what the numbers need; these read
//! what the store keeps as well (grader explanations and flags, judge cost,
//! duration, turns, start times, the platform's version).

use super::{Arm, GraderOutcome, RunKey, RunOutcome, StoredRun};
use crate::error::{Error, Location, Result};
use camino::Utf8Path;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use std::collections::BTreeMap;

/// What the key of a platform result's runs holds beyond the result itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlatformRunsContext {
    /// The item evaluated.
    pub item: String,
    /// Digest of the item's files.
    pub item_digest: String,
    /// Digest of each case folder, by case name (as the result names cases).
    pub case_digests: BTreeMap<String, String>,
    /// The model as asked (`default` for the platform's own).
    pub model: String,
    /// The judge model as asked (`default` for the platform's own).
    pub judge_model: String,
    /// The tool grants.
    pub tools: Vec<String>,
    /// [`super::options_digest`] of the other options that change an outcome.
    pub options: String,
    /// The bob-eval run id that paid for them.
    pub bought_by: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Doc {
    #[serde(default)]
    schema_version: Option<serde_json::Value>,
    #[serde(default)]
    claude_version: Option<String>,
    #[serde(default)]
    started_at: Option<DateTime<Utc>>,
    #[serde(default)]
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    #[serde(default)]
    arms: Arms,
}

#[derive(Default, Deserialize)]
struct Arms {
    #[serde(default)]
    with: Vec<Run>,
    #[serde(default)]
    without: Vec<Run>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    score: f64,
    #[serde(default)]
    passed: bool,
    #[serde(default)]
    turns: u32,
    #[serde(default)]
    cost_usd: f64,
    #[serde(default)]
    judge_cost_usd: f64,
    #[serde(default)]
    duration_seconds: f64,
    #[serde(default)]
    started_at: Option<DateTime<Utc>>,
    #[serde(default)]
    error: Option<serde_json::Value>,
    #[serde(default)]
    aborted: Option<serde_json::Value>,
    #[serde(default)]
    skipped_paid_graders: bool,
    #[serde(default)]
    graders: Vec<Grader>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Grader {
    name: String,
    #[serde(default)]
    passed: bool,
    #[serde(default = "one")]
    weight: f64,
    #[serde(default)]
    explanation: String,
    #[serde(default)]
    with_only: bool,
    #[serde(default = "yes")]
    scored: bool,
}

fn one() -> f64 {
    1.0
}

fn yes() -> bool {
    true
}

/// Every run of the platform result `bytes` (read from `path`, named in
/// errors) as a run to store, keyed with `ctx`. Bad JSON, a `schemaVersion`
/// other than 1, a case without a digest in `ctx` or an impossible number is
/// invalid input naming the file.
pub fn runs_from_platform(
    bytes: &[u8],
    path: &Utf8Path,
    ctx: &PlatformRunsContext,
) -> Result<Vec<StoredRun>> {
    let doc: Doc = serde_json::from_slice(bytes).map_err(|e| Error::InvalidInput {
        at: Location::at(path, e.line().max(1)),
        message: format!("not a `claude plugin eval` result (schemaVersion 1): {e}"),
    })?;
    if doc.schema_version.as_ref().and_then(|v| v.as_u64()) != Some(1) {
        return Err(Error::invalid(
            path,
            "not a `claude plugin eval` result with schemaVersion 1",
        ));
    }
    let platform_version = doc
        .claude_version
        .filter(|v| !v.is_empty())
        .ok_or_else(|| Error::invalid(path, "no claudeVersion: the runs cannot be keyed"))?;
    let mut out = Vec::new();
    for case in doc.cases {
        let case_digest = ctx.case_digests.get(&case.name).ok_or_else(|| {
            Error::invalid(
                path,
                format!("case `{}` is in the result but not in the suite", case.name),
            )
        })?;
        for (arm, runs) in [
            (Arm::With, case.arms.with),
            (Arm::Without, case.arms.without),
        ] {
            for (i, run) in runs.into_iter().enumerate() {
                let at = |what: String| {
                    Error::invalid(
                        path,
                        format!(
                            "case `{}`, {} arm, run {}: {what}",
                            case.name,
                            arm.as_str(),
                            i + 1
                        ),
                    )
                };
                let started_at = run
                    .started_at
                    .or(doc.started_at)
                    .ok_or_else(|| at("no startedAt".into()))?;
                let key = RunKey {
                    item: ctx.item.clone(),
                    item_digest: ctx.item_digest.clone(),
                    case: case.name.clone(),
                    case_digest: case_digest.clone(),
                    arm,
                    model: ctx.model.clone(),
                    judge_model: ctx.judge_model.clone(),
                    platform_version: platform_version.clone(),
                    tools: ctx.tools.clone(),
                    options: ctx.options.clone(),
                };
                let outcome = RunOutcome {
                    score: run.score,
                    passed: run.passed,
                    graders: run
                        .graders
                        .into_iter()
                        .map(|g| GraderOutcome {
                            name: g.name,
                            passed: g.passed,
                            scored: g.scored,
                            with_only: g.with_only,
                            weight: g.weight,
                            explanation: g.explanation,
                        })
                        .collect(),
                    cost_usd: run.cost_usd,
                    judge_cost_usd: run.judge_cost_usd,
                    duration_seconds: run.duration_seconds,
                    turns: run.turns,
                    error: crate::reduce::marked(run.error.as_ref()).or_else(|| {
                        crate::reduce::marked(run.aborted.as_ref())
                            .map(|why| format!("aborted: {why}"))
                    }),
                    skipped_paid_graders: run.skipped_paid_graders,
                    started_at,
                    run: u32::try_from(i + 1).unwrap_or(u32::MAX),
                    bought_by: ctx.bought_by.clone(),
                };
                if let Some(problem) = outcome.problem() {
                    return Err(at(problem));
                }
                out.push(StoredRun::new(key, outcome));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use camino::Utf8PathBuf;

    fn capture(name: &str) -> (Vec<u8>, Utf8PathBuf) {
        let path = Utf8PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/platform")
            .join(name);
        (std::fs::read(&path).unwrap(), path)
    }

    fn ctx(cases: &[&str]) -> PlatformRunsContext {
        PlatformRunsContext {
            item: "commit".into(),
            item_digest: "i".repeat(64),
            case_digests: cases
                .iter()
                .map(|c| (c.to_string(), format!("{c:0>64}")))
                .collect(),
            model: "default".into(),
            judge_model: "default".into(),
            tools: vec![],
            options: super::super::options_digest(&[]),
            bought_by: "eval-commit-20261202T094337Z".into(),
        }
    }

    #[test]
    fn every_run_of_a_real_result_with_its_grader_details() {
        let (bytes, path) = capture("all-grader-types.json");
        let doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let names: Vec<&str> = doc["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        let runs = runs_from_platform(&bytes, &path, &ctx(&names)).unwrap();
        let expected: usize = doc["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                c["arms"]["with"].as_array().map_or(0, Vec::len)
                    + c["arms"]["without"].as_array().map_or(0, Vec::len)
            })
            .sum();
        assert_eq!(runs.len(), expected);
        let first = &runs[0];
        assert_eq!(first.key.platform_version, "2.1.328");
        assert_eq!(first.key.arm, Arm::With);
        assert_eq!(first.outcome.turns, 3);
        assert!((first.outcome.judge_cost_usd - 0.0054).abs() < 1e-9);
        let judge = first
            .outcome
            .graders
            .iter()
            .find(|g| g.name == "failing-judge")
            .unwrap();
        assert!(judge.with_only && !judge.scored && !judge.passed);
        assert_eq!(judge.explanation, "judge votes: FAIL FAIL FAIL");
        let write_once = first
            .outcome
            .graders
            .iter()
            .find(|g| g.name == "write-once");
        assert_eq!(write_once.unwrap().weight, 2.0);
        // Ids are distinct within one result.
        let mut ids: Vec<_> = runs.iter().map(|r| r.id.clone()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), runs.len());
    }

    #[test]
    fn every_capture_converts() {
        let dir = Utf8PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/platform");
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = Utf8PathBuf::from_path_buf(entry.unwrap().path()).unwrap();
            if path.extension() != Some("json") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            let names: Vec<&str> = doc["cases"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| c["name"].as_str().unwrap())
                .collect();
            runs_from_platform(&bytes, &path, &ctx(&names))
                .unwrap_or_else(|e| panic!("{path}: {e}"));
        }
    }

    #[test]
    fn an_error_run_keeps_its_error() {
        let (bytes, path) = capture("auth_failed_commit.json");
        let doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let names: Vec<&str> = doc["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        let runs = runs_from_platform(&bytes, &path, &ctx(&names)).unwrap();
        assert_eq!(runs.len(), 1);
        let outcome = &runs[0].outcome;
        assert_eq!(
            outcome.error.as_deref(),
            Some("exit 1: Not logged in · Please run /login")
        );
        assert!(!outcome.usable(), "graded, but marked: never used");
    }

    /// A run a mock aborted is kept with its words as its error: never usable.
    #[test]
    fn an_aborted_run_is_kept_as_errored() {
        let doc = br#"{"schemaVersion": 1, "claudeVersion": "2.1.328", "startedAt": "2026-12-02T09:39:15.075Z",
            "cases": [{"name": "fires", "arms": {"with": [
                {"score": 1, "graders": [{"name": "g", "passed": true}], "error": null,
                 "aborted": {"server": "tracker", "tool": "close_issue", "reason": "the agent asked to close an issue"}},
                {"score": 1, "graders": [{"name": "g", "passed": true}], "error": null}]}}]}"#;
        let runs = runs_from_platform(doc, Utf8Path::new("r.json"), &ctx(&["fires"])).unwrap();
        assert_eq!(
            runs[0].outcome.error.as_deref(),
            Some("aborted: tracker/close_issue: the agent asked to close an issue")
        );
        assert!(!runs[0].outcome.usable());
        assert!(runs[1].outcome.usable());
    }

    #[test]
    fn an_unknown_case_or_a_bad_document_is_refused() {
        let (bytes, path) = capture("run1_main.json");
        let err = runs_from_platform(&bytes, &path, &ctx(&[])).unwrap_err();
        assert!(err.to_string().contains("not in the suite"), "{err}");
        let err = runs_from_platform(b"{\"schemaVersion\": 2}", &path, &ctx(&[])).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        let err = runs_from_platform(b"[", &path, &ctx(&[])).unwrap_err();
        assert!(err.to_string().contains("run1_main.json:1"), "{err}");
    }
}
