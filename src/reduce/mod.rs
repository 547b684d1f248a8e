//! Reduce the platform's result document (`schemaVersion` 1) to `skill-eval/1`.
//!
//! Only the fields the numbers need are typed; serde skips everything else
//! (evidence, traces, prompts) without building it, so a 50 MB document parses
//! fast. The numbers come from the runs themselves, never from the platform's
//! aggregates (docs/running.md).

use crate::document::{
    ArmCount, CaseEval, GraderEval, GraderRole, SKILL_EVAL, SkillEval, Verdict,
    bounded_explanation, round4, sum_usd,
};
use crate::error::{Error, Location, Result};
use crate::item::plugin_name;
use camino::Utf8Path;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use std::collections::HashSet;

mod platform_doc;
pub use platform_doc::*;
mod faults;
pub use faults::*;

/// What the reduced document says beyond the platform's numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct ReduceContext {
    /// The item evaluated; decides the expected plugin `bob-eval-<item>`.
    pub item: crate::config::ItemName,
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
                    trigger: Default::default(),
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
        scaffold: None,
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
    crate::suite::is_skill_trigger(&grader.kind, tool_of(grader))
}

/// The `tool` the platform echoes in `grader`'s configuration.
fn tool_of(grader: &GraderDef) -> Option<&str> {
    grader
        .config
        .as_ref()
        .and_then(|c| c.tool.as_ref())
        .and_then(|t| t.as_str())
}

/// True when the platform treats `grader` as with-only under the ablation
/// (the same rule as `suite::Grader::is_with_only`, on the platform's echo of
/// the grader's configuration).
fn is_with_only(grader: &GraderDef) -> bool {
    let arm = grader.config.as_ref().and_then(|c| c.arm.as_deref());
    crate::suite::is_with_only(&grader.kind, tool_of(grader), arm)
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
                            GraderRole::WithOnly
                        } else {
                            GraderRole::Scored
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
mod tests;
