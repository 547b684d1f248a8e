//! The platform's result document (`claude plugin eval`, `schemaVersion` 1):
//! the one serde model of it, and the one conversion from it to typed runs.
//!
//! Only what bob-eval reads is typed; serde skips the rest (traces, prompts,
//! aggregates) without building it, so a 50 MB document parses fast. Every
//! reader of a platform result (the reduction, the evidence store, the
//! platform's exit-code check) goes through [`read`] or [`parse`], and gets
//! its runs from [`PlatformResult::cases`].

use crate::error::{Error, Location, Result};
use camino::Utf8Path;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The platform's result document, reduced to what bob-eval reads.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlatformResult {
    /// Must be 1.
    #[serde(default)]
    pub schema_version: Option<serde_json::Value>,
    /// The platform's version, e.g. `2.1.328`: part of every run's key.
    #[serde(default)]
    pub claude_version: Option<String>,
    /// When the platform started, RFC 3339 (kept as text: a malformed one is
    /// refused where a date is needed, not when parsing).
    #[serde(default)]
    pub started_at: Option<String>,
    /// What the whole run cost.
    #[serde(default)]
    pub cost_usd: f64,
    /// True when the platform stopped early.
    #[serde(default)]
    pub partial: bool,
    /// Why (`cost_ceiling`, `auth_failed`, …).
    #[serde(default)]
    pub partial_reason: Option<String>,
    /// How the suite ran.
    #[serde(default)]
    pub suite: ResultSuite,
    /// The cases.
    #[serde(default)]
    pub cases: Vec<ResultCase>,
}

/// The document's `suite`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ResultSuite {
    /// `with-without` or `none`.
    #[serde(default)]
    pub ablation: String,
    /// The plugins the platform loaded.
    #[serde(default)]
    pub plugins: Vec<LoadedPlugin>,
}

impl PlatformResult {
    /// The platform's warnings about MCP servers and stand-ins, once each,
    /// in the order first seen.
    pub fn mock_warnings(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let runs = self
            .cases
            .iter()
            .flat_map(|c| c.arms.with.iter().chain(&c.arms.without));
        for w in runs
            .filter_map(|r| r.mocks.as_ref())
            .flat_map(|m| &m.warnings)
        {
            if !out.contains(w) {
                out.push(w.clone());
            }
        }
        out
    }
}

/// One entry of `suite.plugins`.
#[derive(Debug, Clone, Deserialize)]
pub struct LoadedPlugin {
    /// The manifest's name.
    pub name: String,
    /// Set when the plugin had a problem loading.
    #[serde(default)]
    pub problem: Option<serde_json::Value>,
}

/// One case of the document.
#[derive(Debug, Clone, Deserialize)]
pub struct ResultCase {
    /// Case name.
    pub name: String,
    /// The case's grader definitions, as the platform echoes them.
    #[serde(default)]
    pub graders: Vec<GraderDef>,
    /// The runs per arm.
    #[serde(default)]
    pub arms: ResultArms,
    /// The platform's advisories for the case, in its words.
    #[serde(default)]
    pub advisories: Vec<String>,
    /// The case's prompt, as the platform read it (`promptMarkdown`).
    #[serde(default, rename = "promptMarkdown")]
    pub prompt_markdown: Option<String>,
}

/// A grader definition of a case.
#[derive(Debug, Clone, Deserialize)]
pub struct GraderDef {
    /// Grader name (matches run grader results).
    pub name: String,
    /// `tool_used`, `regex`, `llm`, …
    #[serde(rename = "type", default)]
    pub kind: String,
    /// The part of its configuration bob-eval reads.
    #[serde(default)]
    pub config: GraderConfig,
}

/// The part of a grader's `config` bob-eval reads.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct GraderConfig {
    /// For `tool_used`: the tool.
    #[serde(default)]
    pub tool: Option<serde_json::Value>,
    /// For `tool_used`: the most calls allowed; `0` makes a quiet-side trigger.
    #[serde(default)]
    pub max: Option<serde_json::Value>,
    /// `with-only` or `both`, when set.
    #[serde(default)]
    pub arm: Option<serde_json::Value>,
}

impl GraderDef {
    /// The `tool` the platform echoes in its configuration.
    pub fn tool(&self) -> Option<&str> {
        self.config.tool.as_ref().and_then(|t| t.as_str())
    }

    /// A `tool_used` grader on `Skill`: the item's trigger.
    pub fn is_trigger(&self) -> bool {
        crate::suite::is_skill_trigger(&self.kind, self.tool())
    }

    /// A trigger that wants the item not to fire (`max: 0`).
    pub fn is_quiet(&self) -> bool {
        self.config.max.as_ref().and_then(serde_json::Value::as_f64) == Some(0.0)
    }

    /// Under `with-without`, a plugin-fired indicator: `tool_used` on `Skill`
    /// (unless `arm: both`), or any grader with `arm: with-only` (the same
    /// rule as `suite::Grader::is_with_only`, on the platform's echo).
    pub fn is_with_only(&self) -> bool {
        let arm = self.config.arm.as_ref().and_then(|a| a.as_str());
        crate::suite::is_with_only(&self.kind, self.tool(), arm)
    }
}

/// The runs of a case, per arm.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ResultArms {
    /// With the plugin loaded.
    #[serde(default)]
    pub with: Vec<ResultRun>,
    /// Without it.
    #[serde(default)]
    pub without: Vec<ResultRun>,
}

/// One run as the platform writes it; [`PlatformResult::cases`] turns it
/// into a [`RunOutcome`].
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultRun {
    /// Weighted share of scored graders that passed.
    pub score: f64,
    /// The platform's pass flag.
    #[serde(default)]
    pub passed: bool,
    /// Agent turns.
    #[serde(default)]
    pub turns: u32,
    /// Cost including the judge.
    #[serde(default)]
    pub cost_usd: f64,
    /// What the judge cost.
    #[serde(default)]
    pub judge_cost_usd: f64,
    /// Wall time.
    #[serde(default)]
    pub duration_seconds: f64,
    /// When it started.
    #[serde(default)]
    pub started_at: Option<DateTime<Utc>>,
    /// Set when the run ended abnormally (the platform's words): such a run
    /// is never counted, even when it was graded.
    #[serde(default)]
    pub error: Option<serde_json::Value>,
    /// Set when a mock stopped the run: never counted either.
    #[serde(default)]
    pub aborted: Option<serde_json::Value>,
    /// The platform skipped the paid (llm) graders.
    #[serde(default)]
    pub skipped_paid_graders: bool,
    /// What the MCP stand-ins saw (`--mocks record`, the default), when the
    /// plugins declare servers or the case has mocks.
    #[serde(default)]
    pub mocks: Option<ResultMocks>,
    /// Grader results.
    #[serde(default)]
    pub graders: Vec<ResultGrader>,
    /// Where the platform wrote the run's trace (kept with `--keep-temp`).
    #[serde(default)]
    pub trace_path: Option<String>,
}

/// A run's `mocks`: the platform's warnings and its count of calls.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ResultMocks {
    /// The platform's words, e.g. a server with no mock that was not started.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The calls the run made to mocked or withheld servers.
    #[serde(default)]
    pub calls: ResultMockCalls,
}

/// A run's `mocks.calls`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ResultMockCalls {
    /// Calls in all.
    #[serde(default)]
    pub total: u32,
    /// Calls a stand-in answered with an error.
    #[serde(default)]
    pub errors: u32,
    /// Calls to tools that had no stand-in (their server was not started).
    #[serde(default)]
    pub unmocked: Vec<UnmockedTool>,
}

/// A tool called with no stand-in, and how often.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnmockedTool {
    /// The tool's name (`mcp__<server>__<tool>`).
    pub tool: String,
    /// How many calls.
    pub count: u32,
}

/// What a run's MCP stand-ins saw, as stored with the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MockCounts {
    /// Calls to mocked or withheld servers.
    pub calls: u32,
    /// Calls a stand-in answered with an error.
    pub errors: u32,
    /// Calls to tools with no stand-in.
    pub unmocked: Vec<UnmockedTool>,
}

/// One grader result of a run, as the platform writes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultGrader {
    /// Grader name.
    pub name: String,
    /// Whether it passed.
    #[serde(default)]
    pub passed: bool,
    /// Its weight in the score.
    #[serde(default = "one")]
    pub weight: f64,
    /// The platform's words for the result (`grader threw: …` when it threw).
    #[serde(default)]
    pub explanation: String,
    /// Whether it counts toward the score.
    #[serde(default = "yes")]
    pub scored: bool,
    /// A with-only indicator.
    #[serde(default)]
    pub with_only: bool,
    /// An llm grader's votes (three), absent for other graders.
    #[serde(default)]
    pub judge_votes: Vec<bool>,
    /// The text an llm grader's judge saw, kept for later calibration.
    #[serde(default)]
    pub evidence: Option<String>,
}

fn one() -> f64 {
    1.0
}

fn yes() -> bool {
    true
}

/// How the platform words the result of a grader that threw instead of judging.
pub const GRADER_THREW: &str = "grader threw:";

/// One grader's result in a run: the typed form every part of bob-eval
/// reads (and the evidence store keeps).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraderOutcome {
    /// The grader's name.
    pub name: String,
    /// Whether it passed.
    pub passed: bool,
    /// Whether it counted toward the run's score.
    pub scored: bool,
    /// Whether it is a with-only plugin-fired indicator.
    pub with_only: bool,
    /// Its weight in the score.
    pub weight: f64,
    /// The platform's explanation.
    pub explanation: String,
    /// An llm grader's judge votes; empty for other graders and old runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judge_votes: Vec<bool>,
    /// The text the judge saw, kept so a later calibration can label it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
}

impl GraderOutcome {
    /// True when the grader threw (a fault of the suite, not of the model).
    pub fn threw(&self) -> bool {
        self.explanation.trim_start().starts_with(GRADER_THREW)
    }

    /// True when the judge's votes were not unanimous (false with no votes).
    pub fn split_vote(&self) -> bool {
        self.judge_votes.iter().any(|v| *v) && self.judge_votes.iter().any(|v| !*v)
    }
}

/// What one platform run came to, and who paid for it: the typed run every
/// part of bob-eval reads (the reduction folds them, the evidence store keeps
/// them under a key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunOutcome {
    /// Weighted share of scored graders that passed, 0..1.
    pub score: f64,
    /// The platform's pass flag.
    pub passed: bool,
    /// Every grader's result.
    pub graders: Vec<GraderOutcome>,
    /// Dollars, judge included.
    pub cost_usd: f64,
    /// Dollars spent on the judge.
    pub judge_cost_usd: f64,
    /// Wall time of the run.
    pub duration_seconds: f64,
    /// Agent turns.
    pub turns: u32,
    /// Why the run ended abnormally, if it did: the platform's `error`, or
    /// `aborted: <server>/<tool>: <reason>` when a mock stopped it. Such a
    /// run is never counted toward a score.
    #[serde(default)]
    pub error: Option<String>,
    /// The platform skipped the paid (llm) graders.
    pub skipped_paid_graders: bool,
    /// When the run started.
    pub started_at: DateTime<Utc>,
    /// Its 1-based position in its arm of the platform result.
    pub run: u32,
    /// The bob-eval run id that bought it (`eval-<item>-<UTC start>`);
    /// empty for a result given as a file.
    pub bought_by: String,
    /// What its MCP stand-ins saw; absent when it called none (and for runs
    /// stored before bob-eval kept it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mocks: Option<MockCounts>,
}

impl RunOutcome {
    /// Why this run says nothing sure about the item, if it does not: the
    /// platform's error (or a mock's stop), else calls to tools with no
    /// stand-in or errors of stand-ins (the agent met a server that was not
    /// there, which is no failure of the item). Such a run never counts.
    pub fn fault(&self) -> Option<String> {
        if let Some(error) = &self.error {
            return Some(error.clone());
        }
        let mocks = self.mocks.as_ref()?;
        if !mocks.unmocked.is_empty() {
            let calls: u32 = mocks.unmocked.iter().map(|u| u.count).sum();
            let tools: Vec<String> = mocks
                .unmocked
                .iter()
                .map(|u| format!("{} ×{}", u.tool, u.count))
                .collect();
            return Some(format!(
                "mocks: {calls} call(s) to tools with no stand-in, whose server was not started ({}); add a mock under mocks/<server>/, or pass --allow-real-servers",
                tools.join(", ")
            ));
        }
        (mocks.errors > 0).then(|| {
            format!(
                "mocks: {} of {} call(s) to stand-ins ended on an error",
                mocks.errors, mocks.calls
            )
        })
    }
}

/// One case of a result as typed runs, per arm, in the platform's order.
#[derive(Debug, Clone)]
pub struct CaseOutcomes {
    /// Case name.
    pub name: String,
    /// Its grader definitions.
    pub graders: Vec<GraderDef>,
    /// With the plugin loaded.
    pub with: Vec<RunOutcome>,
    /// Without it.
    pub without: Vec<RunOutcome>,
    /// The platform's advisories for the case.
    pub advisories: Vec<String>,
}

/// The words of an `error` or `aborted` value: `None` for absent, null or false.
pub fn marked(value: Option<&serde_json::Value>) -> Option<String> {
    match value? {
        serde_json::Value::Null | serde_json::Value::Bool(false) => None,
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Object(o) => {
            // A mock's stop: `{server, tool, reason}`.
            let part = |k: &str| o.get(k).and_then(|v| v.as_str()).unwrap_or_default();
            let (server, tool, reason) = (part("server"), part("tool"), part("reason"));
            Some(if reason.is_empty() {
                serde_json::Value::Object(o.clone()).to_string()
            } else {
                format!("{server}/{tool}: {reason}")
            })
        }
        other => Some(other.to_string()),
    }
}

impl ResultRun {
    /// Why the platform marked this run (its `error`, else its `aborted`), in
    /// its own words on one line; `None` for a run that ended normally.
    pub fn fault(&self) -> Option<String> {
        marked(self.error.as_ref())
            .or_else(|| marked(self.aborted.as_ref()).map(|why| format!("aborted: {why}")))
    }
}

/// Read and parse the platform result at `path`; bad JSON or a
/// `schemaVersion` other than 1 is invalid input naming the file.
pub fn read(path: &Utf8Path) -> Result<PlatformResult> {
    let bytes = crate::fsio::read(path, crate::config::MAX_INPUT_FILE)
        .map_err(|e| Error::unreadable(path, e))?;
    parse(&bytes, path)
}

/// Parse a platform result held in memory; `path` names it in errors.
pub fn parse(bytes: &[u8], path: &Utf8Path) -> Result<PlatformResult> {
    let doc: PlatformResult = serde_json::from_slice(bytes).map_err(|e| Error::InvalidInput {
        at: Location::at(path, e.line().max(1)),
        message: format!("not a `claude plugin eval` result (schemaVersion 1): {e}"),
    })?;
    match &doc.schema_version {
        Some(v) if v.as_u64() == Some(1) => Ok(doc),
        Some(v) => Err(Error::invalid(
            path,
            format!(
                "schemaVersion {v} is not supported (bob-eval reads schemaVersion 1): upgrade bob-eval or use a matching Claude Code"
            ),
        )),
        None => Err(Error::invalid(
            path,
            "no schemaVersion: not a `claude plugin eval` result",
        )),
    }
}

impl PlatformResult {
    /// `startedAt` as a UTC time, when present and well-formed.
    pub fn started(&self) -> Option<DateTime<Utc>> {
        let text = self.started_at.as_deref()?;
        DateTime::parse_from_rfc3339(text)
            .ok()
            .map(|t| t.with_timezone(&Utc))
    }

    /// True for a single-arm result (`ablation: none`: the item loaded, the
    /// with arm alone); false for `with-without`. Any other ablation is
    /// invalid input naming `path`.
    pub fn single_arm(&self, path: &Utf8Path) -> Result<bool> {
        match self.suite.ablation.as_str() {
            "with-without" | "" => Ok(false),
            "none" => Ok(true),
            other => Err(Error::invalid(
                path,
                format!(
                    "ablation {other:?}: bob-eval keeps runs of `with-without` and `none` (with arm only) results"
                ),
            )),
        }
    }

    /// Every run score must be a fraction (the platform's scores are weighted
    /// pass shares): anything else would make every mean meaningless.
    pub fn check_scores(&self, path: &Utf8Path) -> Result<()> {
        for case in &self.cases {
            for (arm, runs) in [("with", &case.arms.with), ("without", &case.arms.without)] {
                for (i, run) in runs.iter().enumerate() {
                    if !(0.0..=1.0).contains(&run.score) {
                        return Err(Error::invalid(
                            path,
                            format!(
                                "case `{}`, run {} of the {arm} arm: score {} is outside 0..1; is this a `claude plugin eval` result?",
                                case.name,
                                i + 1,
                                run.score
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The plugin of `item` must have loaded, under the ablation bob-eval
    /// asked for (`with-without` or `none`).
    pub fn check_loaded(&self, item: &str, ablation: &str) -> Result<()> {
        let expected = crate::item::plugin_name(item);
        if self.suite.ablation != ablation {
            let why = if ablation == "with-without" {
                "it found no plugin to ablate, so there is no without arm to compare"
            } else {
                "it ran another ablation than the one asked for"
            };
            return Err(Error::PluginNotLoaded(format!(
                "the platform ran with ablation {:?}, not {ablation:?}: {why} (expected plugin {expected:?})",
                self.suite.ablation
            )));
        }
        match self.suite.plugins.iter().find(|p| p.name == expected) {
            None => {
                let found: Vec<&str> = self.suite.plugins.iter().map(|p| p.name.as_str()).collect();
                Err(Error::PluginNotLoaded(format!(
                    "the result lists plugins {found:?}, not {expected:?}: this result is not an eval of {item:?}"
                )))
            }
            Some(LoadedPlugin {
                problem: Some(problem),
                ..
            }) if !problem.is_null() => Err(Error::PluginNotLoaded(format!(
                "the platform reported a problem with {expected:?}: {problem}"
            ))),
            Some(_) => Ok(()),
        }
    }

    /// The one conversion from the platform's runs to typed runs, case by
    /// case. A run without its own `startedAt` takes the document's, else
    /// `default_start`; with none of them it is invalid input naming
    /// `path`, the case, the arm and the run. A single-arm result's runs are
    /// rescored under the with/without rules ([`rescore_as_with_without`]),
    /// so they stand beside runs bought under `with-without`.
    pub fn cases(
        &self,
        path: &Utf8Path,
        default_start: Option<DateTime<Utc>>,
    ) -> Result<Vec<CaseOutcomes>> {
        let single_arm = self.single_arm(path)?;
        let started = self.started().or(default_start);
        let mut out = Vec::with_capacity(self.cases.len());
        for case in &self.cases {
            if single_arm && !case.arms.without.is_empty() {
                return Err(Error::invalid(
                    path,
                    format!(
                        "case `{}` has a without arm in a single-arm (ablation none) result",
                        case.name
                    ),
                ));
            }
            let arm = |arm: &str, runs: &[ResultRun]| -> Result<Vec<RunOutcome>> {
                runs.iter()
                    .enumerate()
                    .map(|(i, run)| {
                        let started_at = run.started_at.or(started).ok_or_else(|| {
                            Error::invalid(
                                path,
                                format!(
                                    "case `{}`, {arm} arm, run {}: no startedAt",
                                    case.name,
                                    i + 1
                                ),
                            )
                        })?;
                        let mut outcome = run.outcome(started_at, i);
                        if single_arm {
                            rescore_as_with_without(&mut outcome, &case.graders);
                        }
                        Ok(outcome)
                    })
                    .collect()
            };
            out.push(CaseOutcomes {
                name: case.name.clone(),
                graders: case.graders.clone(),
                with: arm("with", &case.arms.with)?,
                without: arm("without", &case.arms.without)?,
                advisories: case.advisories.clone(),
            });
        }
        Ok(out)
    }
}

impl ResultRun {
    /// This run typed, started at `started_at`, at 0-based `index` in its arm.
    fn outcome(&self, started_at: DateTime<Utc>, index: usize) -> RunOutcome {
        RunOutcome {
            score: self.score,
            passed: self.passed,
            graders: self
                .graders
                .iter()
                .map(|g| GraderOutcome {
                    name: g.name.clone(),
                    passed: g.passed,
                    scored: g.scored,
                    with_only: g.with_only,
                    weight: g.weight,
                    explanation: g.explanation.clone(),
                    judge_votes: g.judge_votes.clone(),
                    evidence: g.evidence.clone(),
                })
                .collect(),
            cost_usd: self.cost_usd,
            judge_cost_usd: self.judge_cost_usd,
            duration_seconds: self.duration_seconds,
            turns: self.turns,
            error: self.fault(),
            skipped_paid_graders: self.skipped_paid_graders,
            started_at,
            run: u32::try_from(index + 1).unwrap_or(u32::MAX),
            bought_by: String::new(),
            mocks: self.mocks.as_ref().and_then(|m| {
                let c = &m.calls;
                (c.total > 0 || c.errors > 0 || !c.unmocked.is_empty()).then(|| MockCounts {
                    calls: c.total,
                    errors: c.errors,
                    unmocked: c.unmocked.clone(),
                })
            }),
        }
    }
}

/// Rescore a with-arm run of a single-arm result (`ablation: none`, where
/// every grader is scored) under the with/without rules: the case's with-only
/// graders become unscored indicators, unless every grader is one (then all
/// are scored, as the platform does); the score is the weighted share of the
/// scored graders that passed, and the run passes when all of them did (and
/// it had not failed for another reason). A run with no graders is left as
/// it is.
pub fn rescore_as_with_without(run: &mut RunOutcome, graders: &[GraderDef]) {
    let indicators: Vec<&str> = graders
        .iter()
        .filter(|g| g.is_with_only())
        .map(|g| g.name.as_str())
        .collect();
    if run.graders.is_empty() || indicators.is_empty() || indicators.len() == graders.len() {
        return;
    }
    let all_passed = |gs: &[GraderOutcome]| gs.iter().filter(|g| g.scored).all(|g| g.passed);
    let failed_otherwise = !run.passed && all_passed(&run.graders);
    for g in &mut run.graders {
        let indicator = indicators.contains(&g.name.as_str());
        g.with_only = indicator;
        g.scored = !indicator;
    }
    let (mut passed, mut total) = (0.0, 0.0);
    for g in run.graders.iter().filter(|g| g.scored) {
        total += g.weight;
        if g.passed {
            passed += g.weight;
        }
    }
    if total > 0.0 {
        run.score = passed / total;
    }
    run.passed = !failed_otherwise && all_passed(&run.graders);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A grader as the platform writes it, votes given as JSON.
    fn grader(votes: &str) -> GraderOutcome {
        let raw = format!(
            r#"{{"name":"why","passed":true,"weight":1,"explanation":"judge votes",
            "withOnly":false,"scored":true{votes}}}"#
        );
        let g: ResultGrader = serde_json::from_str(&raw).unwrap();
        GraderOutcome {
            name: g.name,
            passed: g.passed,
            scored: g.scored,
            with_only: g.with_only,
            weight: g.weight,
            explanation: g.explanation,
            judge_votes: g.judge_votes,
            evidence: g.evidence,
        }
    }

    #[test]
    fn judge_votes_and_evidence_are_read_and_a_split_is_seen() {
        let split = grader(r#","judgeVotes":[true,false,true],"evidence":"fix: x""#);
        assert_eq!(split.judge_votes, vec![true, false, true]);
        assert_eq!(split.evidence.as_deref(), Some("fix: x"));
        assert!(split.split_vote());
        assert!(!grader(r#","judgeVotes":[true,true,true]"#).split_vote());
        let none = grader("");
        assert!(none.judge_votes.is_empty() && none.evidence.is_none());
        assert!(!none.split_vote());
    }

    #[test]
    fn a_stored_outcome_without_votes_still_reads_and_round_trips() {
        let old = r#"{"name":"a","passed":true,"scored":true,"with_only":false,
            "weight":1.0,"explanation":""}"#;
        let g: GraderOutcome = serde_json::from_str(old).unwrap();
        assert!(g.judge_votes.is_empty());
        let voted = grader(r#","judgeVotes":[false,false,true],"evidence":"e""#);
        let back: GraderOutcome =
            serde_json::from_str(&serde_json::to_string(&voted).unwrap()).unwrap();
        assert_eq!(back, voted);
    }
}
