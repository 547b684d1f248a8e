//! The platform's result document (`schemaVersion` 1), typed only where bob-eval reads it: serde skips the rest without building it.

use super::*;

/// The platform's result document, reduced to what bob-eval reads.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlatformDoc {
    /// Must be 1.
    #[serde(default)]
    pub schema_version: Option<serde_json::Value>,
    /// When the platform started, RFC 3339.
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
    pub suite: PlatformSuite,
    /// The cases.
    #[serde(default)]
    pub cases: Vec<PlatformCase>,
}

impl PlatformDoc {
    /// `startedAt` as a UTC time, when present and well-formed.
    pub fn started(&self) -> Option<DateTime<Utc>> {
        let text = self.started_at.as_deref()?;
        DateTime::parse_from_rfc3339(text)
            .ok()
            .map(|t| t.with_timezone(&Utc))
    }
}

/// The document's `suite`.
#[derive(Debug, Clone, Deserialize)]
pub struct PlatformSuite {
    /// `with-without` or `none`.
    #[serde(default)]
    pub ablation: String,
    /// The plugins the platform loaded.
    #[serde(default)]
    pub plugins: Vec<PlatformPlugin>,
}

/// One entry of `suite.plugins`.
#[derive(Debug, Clone, Deserialize)]
pub struct PlatformPlugin {
    /// The manifest's name.
    pub name: String,
    /// Set when the plugin had a problem loading.
    #[serde(default)]
    pub problem: Option<serde_json::Value>,
}

/// One case.
#[derive(Debug, Clone, Deserialize)]
pub struct PlatformCase {
    /// Case name.
    pub name: String,
    /// The case's grader definitions.
    #[serde(default)]
    pub graders: Vec<GraderDef>,
    /// The runs per arm.
    #[serde(default)]
    pub arms: Arms,
}

/// A grader definition of a case.
#[derive(Debug, Clone, Deserialize)]
pub struct GraderDef {
    /// Grader name (matches run grader results).
    pub name: String,
    /// `tool_used`, `regex`, `llm`, …
    #[serde(rename = "type", default)]
    pub kind: String,
    /// Its configuration; only `tool` is read.
    #[serde(default)]
    pub config: Option<GraderConfig>,
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
    pub arm: Option<String>,
}

/// The runs of a case, per arm.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Arms {
    /// With the plugin loaded.
    #[serde(default)]
    pub with: Vec<PlatformRun>,
    /// Without it.
    #[serde(default)]
    pub without: Vec<PlatformRun>,
}

/// One run.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlatformRun {
    /// Weighted share of scored graders that passed.
    pub score: f64,
    /// Cost including the judge.
    #[serde(default)]
    pub cost_usd: f64,
    /// Set when the run ended abnormally (the platform's words): such a run
    /// is never counted, even when it was graded.
    #[serde(default)]
    pub error: Option<serde_json::Value>,
    /// Set when a mock stopped the run: never counted either.
    #[serde(default)]
    pub aborted: Option<serde_json::Value>,
    /// Grader results.
    #[serde(default)]
    pub graders: Vec<RunGrader>,
}

/// One grader result of a run.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunGrader {
    /// Grader name.
    pub name: String,
    /// Whether it passed.
    #[serde(default)]
    pub passed: bool,
    /// The platform's words for the result (`grader threw: …` when it threw).
    #[serde(default)]
    pub explanation: String,
    /// Whether it counts toward the score.
    #[serde(default = "yes")]
    pub scored: bool,
    /// A with-only indicator.
    #[serde(default)]
    pub with_only: bool,
}

pub(super) fn yes() -> bool {
    true
}

/// How the platform words the result of a grader that threw instead of judging.
pub const GRADER_THREW: &str = "grader threw:";

impl RunGrader {
    /// True when the grader threw (a fault of the suite, not of the model).
    pub fn threw(&self) -> bool {
        self.explanation.trim_start().starts_with(GRADER_THREW)
    }
}
