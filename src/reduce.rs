//! Reduce the platform's result document (`schemaVersion` 1) to `skill-eval/1`.
//!
//! Only the fields the numbers need are typed; serde skips everything else
//! (evidence, traces, prompts) without building it, so a 50 MB document parses
//! fast. The numbers come from the runs themselves, never from the platform's
//! aggregates (README, "Running").

use crate::document::{
    ArmCount, CaseEval, GraderEval, GraderKind, SKILL_EVAL, SkillEval, Verdict,
    bounded_explanation, round4, sum_usd,
};
use crate::error::{Error, Location, Result};
use crate::item::plugin_name;
use camino::Utf8Path;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use std::collections::HashSet;

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

fn yes() -> bool {
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

/// What the reduced document says beyond the platform's numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct ReduceContext {
    /// The item evaluated; decides the expected plugin `bob-eval-<item>`.
    pub item: String,
    /// The model that ran (or `default`).
    pub model: String,
    /// The ceiling the run was held to.
    pub max_cost_usd: f64,
    /// When the run started (gives `run` and `date`); `None`: the document's own `startedAt`.
    pub started: Option<DateTime<Utc>>,
}

/// Where a platform document came from, which decides whose fault a bad one is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The platform just wrote it and exited with this code: an unusable
    /// document is the platform's failure (exit 3), and exit 2 means partial
    /// whatever the document says.
    Platform {
        /// The platform's exit code.
        exit_code: i32,
    },
    /// A file the user gave (`--platform-result`): an unusable one is invalid input (exit 2).
    File,
}

/// Read and parse a platform document; bad JSON or `schemaVersion` != 1 is invalid input.
pub fn read_doc(path: &Utf8Path) -> Result<PlatformDoc> {
    let bytes = crate::fsio::read(path, crate::config::MAX_INPUT_FILE)
        .map_err(|e| Error::unreadable(path, e))?;
    parse_doc(&bytes, path)
}

/// Parse a platform document held in memory; `path` names it in errors.
pub fn parse_doc(bytes: &[u8], path: &Utf8Path) -> Result<PlatformDoc> {
    let doc: PlatformDoc = serde_json::from_slice(bytes).map_err(|e| Error::InvalidInput {
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

/// Reduce the platform document at `path`, the one entry for a document on
/// disk: errors name the file, and `origin` says whose fault an unusable one is.
pub fn reduce_file(path: &Utf8Path, origin: Origin, ctx: &ReduceContext) -> Result<SkillEval> {
    let reduced = read_doc(path).and_then(|doc| {
        let mut doc = doc;
        if origin == (Origin::Platform { exit_code: 2 }) && !doc.partial {
            // The platform said partial by its exit code; the document must not say otherwise.
            doc.partial = true;
            if doc.partial_reason.as_deref().is_none_or(str::is_empty) {
                doc.partial_reason = Some("platform_exit_2".into());
            }
        }
        reduce_named(&doc, ctx, path)
    });
    match (origin, reduced) {
        (Origin::Platform { .. }, Err(Error::InvalidInput { at, message })) => {
            Err(Error::PlatformFailed {
                message: format!("its result is not usable: {at}: {message}"),
                details: vec![],
            })
        }
        (_, other) => other,
    }
}

/// What a single-arm platform run came to ([`check_single_arm`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SingleArm {
    /// The platform's `costUsd` (to 4 decimals).
    pub cost_usd: f64,
    /// Why it stopped early, when it did.
    pub partial_reason: Option<String>,
}

/// Check the result of a single-arm platform run (`--ablation none`, the
/// item's plugin loaded: the with arm alone) as [`reduce_file`] checks a
/// with/without one: the plugin loaded, the scores are fractions, and no
/// case has a without arm. It is not reduced: its runs are rescored and
/// kept as evidence, and the document is made from the store.
pub fn check_single_arm(path: &Utf8Path, origin: Origin, item: &str) -> Result<SingleArm> {
    let checked = read_doc(path).and_then(|doc| {
        check_plugin(&doc, item, "none")?;
        check_scores(&doc, path)?;
        if let Some(case) = doc.cases.iter().find(|c| !c.arms.without.is_empty()) {
            return Err(Error::invalid(
                path,
                format!(
                    "case `{}` has a without arm in a single-arm (ablation none) result",
                    case.name
                ),
            ));
        }
        let partial = doc.partial || origin == (Origin::Platform { exit_code: 2 });
        Ok(SingleArm {
            cost_usd: crate::document::round4(doc.cost_usd),
            partial_reason: partial.then(|| {
                doc.partial_reason
                    .filter(|r| !r.is_empty())
                    .unwrap_or_else(|| "platform_exit_2".into())
            }),
        })
    });
    match (origin, checked) {
        (Origin::Platform { .. }, Err(Error::InvalidInput { at, message })) => {
            Err(Error::PlatformFailed {
                message: format!("its result is not usable: {at}: {message}"),
                details: vec![],
            })
        }
        (_, other) => other,
    }
}

/// Every run score must be a fraction (the platform's scores are weighted
/// pass shares): anything else would make every mean meaningless.
fn check_scores(doc: &PlatformDoc, path: &Utf8Path) -> Result<()> {
    for case in &doc.cases {
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

/// Reduce a parsed platform document to a validated `skill-eval/1` document.
pub fn reduce(doc: &PlatformDoc, ctx: &ReduceContext) -> Result<SkillEval> {
    let label = format!("<skill-eval/1 for {}>", ctx.item);
    reduce_named(doc, ctx, Utf8Path::new(&label))
}

/// [`reduce`], naming `path` as the input in errors.
pub fn reduce_named(doc: &PlatformDoc, ctx: &ReduceContext, path: &Utf8Path) -> Result<SkillEval> {
    let started = match ctx.started {
        Some(started) => started,
        None => doc.started().ok_or_else(|| {
            Error::invalid(
                path,
                "no valid `startedAt` (RFC 3339): cannot date the run; is this a platform result?",
            )
        })?,
    };
    check_loaded(doc, &ctx.item)?;
    check_scores(doc, path)?;

    let mut run_errors = false;
    let mut cases = Vec::with_capacity(doc.cases.len());
    let mut triggers = Triggers::default();
    let mut samples = Vec::with_capacity(doc.cases.len());
    let mut faults = RunFaults::default();
    for case in &doc.cases {
        let reduced = reduce_case(case);
        run_errors |= reduced.not_comparable;
        triggers.add(reduced.triggers);
        faults.merge(&reduced.faults);
        match reduced.eval {
            Some(eval) => {
                let (with, without) = reduced.scores;
                samples.push(crate::stats::CaseRuns {
                    case: samples.len(),
                    with,
                    without,
                    cost_usd: 0.0,
                });
                cases.push(eval);
            }
            None => run_errors = true,
        }
    }
    // 95 % intervals and advisories, from the very runs the numbers come from.
    let comparison = crate::stats::compare(&samples, crate::stats::CONFIDENCE);
    for (case, stats) in cases.iter_mut().zip(comparison.cases) {
        case.stats = Some(stats.rounded());
    }
    if cases.is_empty() && faults.errored == 0 {
        let why = match doc.partial_reason.as_deref() {
            Some(reason) if doc.partial => {
                format!("the platform stopped early ({reason}) before any case finished a run")
            }
            _ => "the result holds no case with a finished run".to_string(),
        };
        return Err(Error::PlatformFailed {
            message: format!(
                "{path}: {why}; nothing to compare (raise --max-cost-usd if the ceiling stopped it)"
            ),
            details: vec![],
        });
    }

    let with = round4(mean(cases.iter().map(|c| c.with)));
    let withouts: Vec<f64> = cases.iter().filter_map(|c| c.without).collect();
    // No case has a without arm: the document is partial; say "no signal" rather
    // than invent a baseline.
    let without = if withouts.is_empty() {
        with
    } else {
        round4(mean(withouts.iter().copied()))
    };
    let delta = round4(with - without);
    let (trigger_rate, fires_rate, quiet_rate) = triggers.rates();

    let (partial, partial_reason) = if doc.partial {
        (
            true,
            Some(
                doc.partial_reason
                    .clone()
                    .filter(|r| !r.is_empty())
                    .unwrap_or_else(|| "unspecified".into()),
            ),
        )
    } else if let Some(reason) = faults.reason() {
        (true, Some(reason))
    } else if run_errors {
        (true, Some(RUN_ERRORS.to_string()))
    } else {
        (false, None)
    };

    let rounded_ceiling = round4(ctx.max_cost_usd);
    let out = SkillEval {
        schema: SKILL_EVAL.into(),
        item: ctx.item.clone(),
        run: crate::document::run_id(&ctx.item, started),
        date: started.format("%Y-%m-%d").to_string(),
        model: ctx.model.clone(),
        with,
        without,
        delta,
        verdict: Verdict::of(delta),
        trigger_rate,
        fires_rate,
        quiet_rate,
        cost_usd: round4(sum_usd([doc.cost_usd])),
        max_cost_usd: if rounded_ceiling > 0.0 {
            rounded_ceiling
        } else {
            ctx.max_cost_usd
        },
        partial,
        partial_reason,
        cases,
        reused_runs: None,
        imported_runs: None,
        reused_cost_usd: None,
        suite_digest: None,
        item_digest: None,
        neighbours: None,
        stats: Some(crate::document::Stats {
            confidence: comparison.confidence,
            suite: comparison.suite.rounded(),
            trigger: (triggers.total > 0).then(|| crate::stats::TriggerCount {
                fired: u32::try_from(triggers.passed).unwrap_or(u32::MAX),
                results: u32::try_from(triggers.total).unwrap_or(u32::MAX),
            }),
            auto: None,
        }),
    };
    let value = serde_json::to_value(&out)
        .map_err(|e| Error::invalid(path, format!("cannot be reduced: {e}")))?;
    crate::schema::validate_skill_eval(&value, path)?;
    Ok(out)
}

/// The plugin must have loaded under the with/without ablation.
fn check_loaded(doc: &PlatformDoc, item: &str) -> Result<()> {
    check_plugin(doc, item, "with-without")
}

/// The plugin must have loaded, under the ablation `ablation` bob-eval asked for.
fn check_plugin(doc: &PlatformDoc, item: &str, ablation: &str) -> Result<()> {
    let expected = plugin_name(item);
    if doc.suite.ablation != ablation {
        let why = if ablation == "with-without" {
            "it found no plugin to ablate, so there is no without arm to compare"
        } else {
            "it ran another ablation than the one asked for"
        };
        return Err(Error::PluginNotLoaded(format!(
            "the platform ran with ablation {:?}, not {ablation:?}: {why} (expected plugin {expected:?})",
            doc.suite.ablation
        )));
    }
    match doc.suite.plugins.iter().find(|p| p.name == expected) {
        None => {
            let found: Vec<&str> = doc.suite.plugins.iter().map(|p| p.name.as_str()).collect();
            Err(Error::PluginNotLoaded(format!(
                "the result lists plugins {found:?}, not {expected:?}: this result is not an eval of {item:?}"
            )))
        }
        Some(PlatformPlugin {
            problem: Some(problem),
            ..
        }) if !problem.is_null() => Err(Error::PluginNotLoaded(format!(
            "the platform reported a problem with {expected:?}: {problem}"
        ))),
        Some(_) => Ok(()),
    }
}

struct ReducedCase {
    eval: Option<CaseEval>,
    /// The counted runs' scores, with and without.
    scores: (Vec<f64>, Vec<f64>),
    not_comparable: bool,
    triggers: Triggers,
    faults: RunFaults,
}

/// Passed and total trigger results (with arm), all and per side.
#[derive(Debug, Clone, Copy, Default)]
struct Triggers {
    passed: u64,
    total: u64,
    fires_passed: u64,
    fires: u64,
    quiet_passed: u64,
    quiet: u64,
}

impl Triggers {
    fn add(&mut self, other: Triggers) {
        self.passed += other.passed;
        self.total += other.total;
        self.fires_passed += other.fires_passed;
        self.fires += other.fires;
        self.quiet_passed += other.quiet_passed;
        self.quiet += other.quiet;
    }

    fn rate(passed: u64, total: u64) -> Option<f64> {
        (total > 0).then(|| round4(passed as f64 / total as f64))
    }

    /// (trigger_rate, fires_rate, quiet_rate).
    fn rates(&self) -> (Option<f64>, Option<f64>, Option<f64>) {
        (
            Self::rate(self.passed, self.total),
            Self::rate(self.fires_passed, self.fires),
            Self::rate(self.quiet_passed, self.quiet),
        )
    }
}

/// A trigger grader that wants the item not to fire (`max: 0`).
fn is_quiet(grader: &GraderDef) -> bool {
    grader
        .config
        .as_ref()
        .and_then(|c| c.max.as_ref())
        .and_then(serde_json::Value::as_f64)
        == Some(0.0)
}

fn is_trigger(grader: &GraderDef) -> bool {
    grader.kind == "tool_used"
        && grader
            .config
            .as_ref()
            .and_then(|c| c.tool.as_ref())
            .and_then(|t| t.as_str())
            == Some("Skill")
}

/// True when the platform treats `grader` as with-only under the ablation
/// (the same rule as `suite::Grader::is_with_only`, on the platform's echo of
/// the grader's configuration).
fn is_with_only(grader: &GraderDef) -> bool {
    match grader.config.as_ref().and_then(|c| c.arm.as_deref()) {
        Some("with-only") => true,
        Some("both") => false,
        _ => is_trigger(grader),
    }
}

/// True when the platform scored `case` by its with-only graders alone: under
/// the ablation (a without arm), every grader it defines is with-only and its
/// with-arm runs report them scored (the platform's rule when a case has no
/// other grader). Asking the runs too keeps a document made from stored runs,
/// whose definitions list only the trigger graders, from being marked.
fn scored_by_trigger(case: &PlatformCase) -> bool {
    let arms = &case.arms;
    !arms.without.is_empty()
        && !case.graders.is_empty()
        && case.graders.iter().all(is_with_only)
        && arms.with.iter().flat_map(|r| &r.graders).any(|g| g.scored)
        && arms
            .with
            .iter()
            .flat_map(|r| &r.graders)
            .all(|g| g.scored && case.graders.iter().any(|d| d.name == g.name))
}

impl PlatformRun {
    /// Why the platform marked this run (its `error`, else its `aborted`), in
    /// its own words on one line; `None` for a run that ended normally. A
    /// marked run never counts toward a score, graded or not.
    pub fn fault(&self) -> Option<String> {
        marked(self.error.as_ref())
            .or_else(|| marked(self.aborted.as_ref()).map(|why| format!("aborted: {why}")))
    }
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

/// Runs the platform marked with an error (or aborted): how many of how
/// many, and the first one's words. They never count toward a score.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunFaults {
    /// Runs marked.
    pub errored: usize,
    /// Runs in all (marked or not).
    pub total: usize,
    /// The platform's words for the first marked run.
    pub first: Option<String>,
}

/// The partial reason of a document with runs that are not comparable (an
/// arm missing, or runs the platform marked with an error: then
/// `run_errors: …` says how many and why).
pub const RUN_ERRORS: &str = "run_errors";

/// True for a [`RUN_ERRORS`] reason, with or without its words.
pub fn is_run_errors(reason: &str) -> bool {
    reason
        .strip_prefix(RUN_ERRORS)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(':'))
}

/// The longest part of the platform's words a partial reason quotes.
const MAX_FAULT_WORDS: usize = 160;

impl RunFaults {
    /// Count `run`; `fault` is its [`PlatformRun::fault`].
    pub fn add(&mut self, fault: Option<String>) {
        self.total += 1;
        if let Some(words) = fault {
            self.errored += 1;
            self.first.get_or_insert(words);
        }
    }

    /// Add `other`'s counts.
    pub fn merge(&mut self, other: &RunFaults) {
        self.errored += other.errored;
        self.total += other.total;
        if self.first.is_none() {
            self.first.clone_from(&other.first);
        }
    }

    /// The partial reason when some run was marked: `run_errors: …` saying how
    /// many, whether that is every run, and the platform's words (control
    /// characters and line breaks removed, bounded).
    pub fn reason(&self) -> Option<String> {
        if self.errored == 0 {
            return None;
        }
        let words = self.first.as_deref().map(sanitized).unwrap_or_default();
        let how_many = if self.errored == self.total {
            format!(
                "every run ({} of {}) ended on an error, so nothing was measured",
                self.errored, self.total
            )
        } else {
            format!(
                "{} of {} runs ended on an error and were not counted",
                self.errored, self.total
            )
        };
        Some(format!(
            "{RUN_ERRORS}: {how_many}; the platform said: {words}"
        ))
    }
}

/// `text` on one line with no control characters, at most
/// [`MAX_FAULT_WORDS`] characters (the last one `…` when cut).
fn sanitized(text: &str) -> String {
    let clean: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let one_line = clean.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= MAX_FAULT_WORDS {
        one_line
    } else {
        let cut: String = one_line.chars().take(MAX_FAULT_WORDS - 1).collect();
        format!("{cut}…")
    }
}

fn reduce_case(case: &PlatformCase) -> ReducedCase {
    let mut faults = RunFaults::default();
    for run in case.arms.with.iter().chain(&case.arms.without) {
        faults.add(run.fault());
    }
    // Only the runs the platform did not mark count.
    let counted = |runs: &[PlatformRun]| -> Vec<PlatformRun> {
        runs.iter()
            .filter(|r| r.fault().is_none())
            .cloned()
            .collect()
    };
    let arms = &Arms {
        with: counted(&case.arms.with),
        without: counted(&case.arms.without),
    };
    let quiet: HashSet<&str> = case
        .graders
        .iter()
        .filter(|g| is_trigger(g) && is_quiet(g))
        .map(|g| g.name.as_str())
        .collect();
    let fires: HashSet<&str> = case
        .graders
        .iter()
        .filter(|g| is_trigger(g) && !is_quiet(g))
        .map(|g| g.name.as_str())
        .collect();
    let mut t = Triggers::default();
    for run in &arms.with {
        for g in &run.graders {
            let passed = u64::from(g.passed);
            if fires.contains(g.name.as_str()) {
                t.fires += 1;
                t.fires_passed += passed;
            } else if quiet.contains(g.name.as_str()) {
                t.quiet += 1;
                t.quiet_passed += passed;
            } else {
                continue;
            }
            t.total += 1;
            t.passed += passed;
        }
    }
    let (trigger_rate, fires_rate, quiet_rate) = t.rates();
    let not_comparable = arms.without.is_empty() || faults.errored > 0;
    let eval = (!arms.with.is_empty()).then(|| {
        let with = round4(mean(arms.with.iter().map(|r| r.score)));
        let without =
            (!arms.without.is_empty()).then(|| round4(mean(arms.without.iter().map(|r| r.score))));
        let delta = without.map(|w| round4(with - w));
        CaseEval {
            name: case.name.clone(),
            with,
            without,
            delta,
            verdict: delta.map(Verdict::of),
            trigger_rate,
            fires_rate,
            quiet_rate,
            // What every run cost, counted or not: it was spent.
            cost_usd: round4(sum_usd(
                case.arms
                    .with
                    .iter()
                    .chain(&case.arms.without)
                    .map(|r| r.cost_usd),
            )),
            runs: u32::try_from(arms.with.len() + arms.without.len()).unwrap_or(u32::MAX),
            digest: None,
            stats: None,
            graders: Some(grader_detail(arms)),
            scored_by_trigger: scored_by_trigger(case),
        }
    });
    ReducedCase {
        scores: (
            arms.with.iter().map(|r| r.score).collect(),
            arms.without.iter().map(|r| r.score).collect(),
        ),
        eval,
        not_comparable,
        triggers: t,
        faults,
    }
}

/// Each grader named by the runs of `arms`, in order of first appearance: its
/// passes per arm and the explanation of its first failure (of its first
/// error, when it threw on some run).
fn grader_detail(arms: &Arms) -> Vec<GraderEval> {
    let mut out: Vec<GraderEval> = Vec::new();
    for (without, runs) in [(false, &arms.with), (true, &arms.without)] {
        for g in runs.iter().flat_map(|r| &r.graders) {
            let i = match out.iter().position(|e| e.name == g.name) {
                Some(i) => i,
                None => {
                    out.push(GraderEval {
                        name: g.name.clone(),
                        kind: if g.with_only || !g.scored {
                            GraderKind::WithOnly
                        } else {
                            GraderKind::Scored
                        },
                        with: ArmCount { passed: 0, runs: 0 },
                        without: None,
                        error: false,
                        failure: None,
                    });
                    out.len() - 1
                }
            };
            let entry = &mut out[i];
            let count = if without {
                entry.without.get_or_insert(ArmCount { passed: 0, runs: 0 })
            } else {
                &mut entry.with
            };
            count.runs += 1;
            count.passed += u32::from(g.passed);
            if g.passed {
                continue;
            }
            let threw = g.threw();
            // The first error's words win over a plain failure's: they say what to fix.
            if entry.failure.is_none() || threw && !entry.error {
                entry.failure = Some(if g.explanation.trim().is_empty() {
                    crate::document::NO_EXPLANATION.to_string()
                } else {
                    bounded_explanation(&g.explanation)
                });
            }
            entry.error |= threw;
        }
    }
    out
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 { 0.0 } else { sum / n as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ctx() -> ReduceContext {
        ReduceContext {
            item: "commit".into(),
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

    fn doc(cases: serde_json::Value) -> PlatformDoc {
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
        assert_eq!(fires.kind, GraderKind::WithOnly);
        assert_eq!(
            (fires.with, fires.without),
            (ArmCount { passed: 1, runs: 2 }, None)
        );
        assert_eq!(fires.failure.as_deref(), Some("Skill called 0x"));
        assert_eq!(subject.kind, GraderKind::Scored);
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
            (r.partial, r.partial_reason.as_deref()),
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
            (r.partial, r.partial_reason.as_deref()),
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
        let reason = r.partial_reason.unwrap();
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
        let reason = r.partial_reason.unwrap();
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
        let checked = check_single_arm(&single, Origin::File, "commit").unwrap();
        assert_eq!(checked.cost_usd, 0.0243);
        assert_eq!(checked.partial_reason, None);
        let exit2 = check_single_arm(&single, Origin::Platform { exit_code: 2 }, "commit");
        assert_eq!(
            exit2.unwrap().partial_reason.as_deref(),
            Some("platform_exit_2")
        );
        for (path, item) in [
            (single.clone(), "other"),
            (capture("single-arm-with-without.json"), "commit"),
        ] {
            let err = check_single_arm(&path, Origin::File, item).unwrap_err();
            assert!(matches!(err, Error::PluginNotLoaded(_)), "{err}");
        }
    }
}
