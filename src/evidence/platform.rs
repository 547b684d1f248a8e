//! From a platform result (`claude plugin eval`, `schemaVersion` 1) to the
//! runs the evidence store keeps.
//!
//! The platform's result is typed once ([`crate::platform::result`]); this
//! adds each run's key.

use super::{Arm, RunKey, StoredRun};
use crate::error::{Error, Result};
use crate::platform::result::PlatformResult;
use camino::Utf8Path;
use std::collections::BTreeMap;

/// The parts of a run's key that are the case's own: its folder's digest,
/// and the judge model and options as they apply to it (a case no judge
/// grades is keyed `default` whatever judge is named; a case's scaffold
/// choice is in its options only when it has a scaffold script). The plan
/// works them out once per case (`eval::plan::case_key`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseKey {
    /// Digest of the case folder.
    pub digest: String,
    /// The judge model in its key.
    pub judge_model: String,
    /// [`super::options_digest`] of the options that change its outcome.
    pub options: String,
}

/// What the key of a platform result's runs holds beyond the result itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlatformRunsContext {
    /// The item evaluated.
    pub item: String,
    /// Digest of the item's files.
    pub item_digest: String,
    /// Each case's own key parts, by case name (as the result names cases).
    pub cases: BTreeMap<String, CaseKey>,
    /// The model as asked (`default` for the platform's own).
    pub model: String,
    /// The tool grants.
    pub tools: Vec<String>,
    /// The bob-eval run id that paid for them.
    pub bought_by: String,
}

/// Every run of the platform result `bytes` (read from `path`, named in
/// errors) as a run to store, keyed with `ctx` ([`runs_from_result`]).
pub fn runs_from_platform(
    bytes: &[u8],
    path: &Utf8Path,
    ctx: &PlatformRunsContext,
) -> Result<Vec<StoredRun>> {
    runs_from_result(&crate::platform::result::parse(bytes, path)?, path, ctx)
}

/// Every run of the platform result `result` (read from `path`, named in
/// errors) as a run to store, keyed with `ctx`. A single-arm result
/// (`ablation: none`: the item loaded, the with arm alone) gives with-arm
/// runs rescored under the with/without rules, so they stand beside runs
/// bought under `with-without` (see `docs/evidence.md`). A result without
/// `claudeVersion`, a case without a digest in `ctx`, a run without a start
/// or an impossible number is invalid input naming the file.
pub fn runs_from_result(
    result: &PlatformResult,
    path: &Utf8Path,
    ctx: &PlatformRunsContext,
) -> Result<Vec<StoredRun>> {
    let platform_version = result
        .claude_version
        .clone()
        .filter(|v| !v.is_empty())
        .ok_or_else(|| Error::invalid(path, "no claudeVersion: the runs cannot be keyed"))?;
    let mut out = Vec::new();
    for case in result.cases(path, None)? {
        let case_key = ctx.cases.get(&case.name).ok_or_else(|| {
            Error::invalid(
                path,
                format!("case `{}` is in the result but not in the suite", case.name),
            )
        })?;
        for (arm, runs) in [(Arm::With, case.with), (Arm::Without, case.without)] {
            for (i, mut outcome) in runs.into_iter().enumerate() {
                outcome.bought_by.clone_from(&ctx.bought_by);
                if let Some(problem) = outcome.problem() {
                    return Err(Error::invalid(
                        path,
                        format!(
                            "case `{}`, {} arm, run {}: {problem}",
                            case.name,
                            arm.as_str(),
                            i + 1
                        ),
                    ));
                }
                let key = RunKey {
                    item: ctx.item.clone(),
                    item_digest: ctx.item_digest.clone(),
                    case: case.name.clone(),
                    case_digest: case_key.digest.clone(),
                    arm,
                    model: ctx.model.clone(),
                    judge_model: case_key.judge_model.clone(),
                    platform_version: platform_version.clone(),
                    tools: ctx.tools.clone(),
                    options: case_key.options.clone(),
                };
                out.push(StoredRun::new(key, outcome));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::{Arm, StoredRun};
    use super::{CaseKey, PlatformRunsContext, runs_from_platform};
    use crate::evidence::{GraderOutcome, RunOutcome};
    use crate::platform::result::{GraderDef, rescore_as_with_without};
    use camino::Utf8Path;
    use camino::Utf8PathBuf;
    use chrono::DateTime;

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
            cases: cases
                .iter()
                .map(|c| {
                    let key = CaseKey {
                        digest: format!("{c:0>64}"),
                        judge_model: "default".into(),
                        options: super::super::options_digest(&[]),
                    };
                    (c.to_string(), key)
                })
                .collect(),
            model: "default".into(),
            tools: vec![],
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

    /// The same suite run by the real platform under `--ablation none` and
    /// under `with-without` (the scripted model answers alike): the single-arm
    /// runs, rescored, are the with-arm runs (graders' flags, score, pass).
    #[test]
    fn a_single_arm_run_rescored_is_a_with_arm_run() {
        let names = ["fires", "quiet"];
        let (bytes, path) = capture("single-arm-none.json");
        let single = runs_from_platform(&bytes, &path, &ctx(&names)).unwrap();
        let (bytes, path) = capture("single-arm-with-without.json");
        let both = runs_from_platform(&bytes, &path, &ctx(&names)).unwrap();
        let with: Vec<&StoredRun> = both.iter().filter(|r| r.key.arm == Arm::With).collect();
        assert_eq!(single.len(), 2);
        assert_eq!(with.len(), 2);
        for (a, b) in single.iter().zip(with) {
            assert_eq!(a.key, b.key);
            assert_eq!(a.outcome.graders.len(), b.outcome.graders.len());
            for (g, h) in a.outcome.graders.iter().zip(&b.outcome.graders) {
                assert_eq!(
                    (&g.name, g.passed, g.scored, g.with_only, g.weight),
                    (&h.name, h.passed, h.scored, h.with_only, h.weight)
                );
            }
            assert_eq!(a.outcome.score, b.outcome.score);
            assert_eq!(a.outcome.passed, b.outcome.passed);
        }
        // What the platform wrote: the trigger grader scored, as any other.
        let raw: serde_json::Value =
            serde_json::from_slice(&std::fs::read(capture("single-arm-none.json").1).unwrap())
                .unwrap();
        assert_eq!(
            raw["cases"][0]["arms"]["with"][0]["graders"][0]["scored"],
            true
        );
    }

    #[test]
    fn rescoring_follows_the_with_without_rules() {
        let def = |name: &str, kind: &str, config: serde_json::Value| -> GraderDef {
            serde_json::from_value(
                serde_json::json!({"name": name, "type": kind, "config": config}),
            )
            .unwrap()
        };
        let outcome = |graders: &[(&str, bool, f64)]| RunOutcome {
            score: 0.0,
            passed: false,
            graders: graders
                .iter()
                .map(|(n, p, w)| GraderOutcome {
                    name: n.to_string(),
                    passed: *p,
                    scored: true,
                    with_only: false,
                    weight: *w,
                    explanation: String::new(),
                    judge_votes: Vec::new(),
                    evidence: None,
                })
                .collect(),
            cost_usd: 0.0,
            judge_cost_usd: 0.0,
            duration_seconds: 0.0,
            turns: 1,
            error: None,
            skipped_paid_graders: false,
            started_at: DateTime::from_timestamp(0, 0).unwrap(),
            run: 1,
            bought_by: "x".into(),
            mocks: None,
        };
        let defs = [
            def("fires", "tool_used", serde_json::json!({"tool": "Skill"})),
            def("marked", "regex", serde_json::json!({"arm": "with-only"})),
            def(
                "kept",
                "tool_used",
                serde_json::json!({"tool": "Skill", "arm": "both"}),
            ),
            def("subject", "regex", serde_json::json!({})),
        ];
        let mut run = outcome(&[
            ("fires", false, 1.0),
            ("marked", false, 1.0),
            ("kept", true, 1.0),
            ("subject", true, 3.0),
        ]);
        rescore_as_with_without(&mut run, &defs);
        let flags: Vec<(bool, bool)> = run
            .graders
            .iter()
            .map(|g| (g.scored, g.with_only))
            .collect();
        assert_eq!(
            flags,
            [(false, true), (false, true), (true, false), (true, false)]
        );
        assert_eq!((run.score, run.passed), (1.0, true));
        // Every grader with-only: all stay scored.
        let mut run = outcome(&[("fires", true, 1.0)]);
        rescore_as_with_without(&mut run, &defs[..1]);
        assert!(run.graders[0].scored && !run.graders[0].with_only);
        assert_eq!(run.score, 0.0, "left as the platform scored it");
        // A run that failed for another reason (an error) stays failed.
        let mut run = outcome(&[("fires", false, 1.0), ("subject", true, 1.0)]);
        run.graders[0].passed = true;
        rescore_as_with_without(&mut run, &[defs[0].clone(), defs[3].clone()]);
        assert!(!run.passed);
    }
}
