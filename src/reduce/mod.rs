//! Reduce typed runs to `skill-eval/1`: a pure fold ([`fold`]) from each
//! case's runs per arm to the document's numbers, intervals and grader
//! detail. The runs come from the platform's result
//! ([`crate::platform::result`], the one model of it) or from the evidence
//! store; storing, reporting and saving are the caller's.
//!
//! The numbers come from the runs themselves, never from the platform's
//! aggregates (docs/running.md).

use crate::document::{
    ArmCount, CaseEval, GraderEval, GraderRole, PartialReason, SKILL_EVAL, SkillEval, SplitVotes,
    Verdict, bounded_explanation, round4, sum_usd,
};
use crate::error::{Error, Result};
use crate::platform::result::{CaseOutcomes, PlatformResult, RunOutcome};
use camino::Utf8Path;
use chrono::{DateTime, Utc};
use std::collections::HashSet;

mod calibrate;
mod efficiency;
mod faults;
pub use calibrate::{CountedCase, calibrate};
pub use faults::RunFaults;

/// What the reduced document says beyond the runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ReduceContext {
    /// The item evaluated; decides the expected plugin `bob-eval-<item>`.
    pub item: crate::config::ItemName,
    /// The model that ran (or `default`).
    pub model: String,
    /// The ceiling the run was held to.
    pub max_cost_usd: f64,
    /// When the run started (gives `run` and `date`); `None`: the result's own `startedAt`.
    pub started: Option<DateTime<Utc>>,
}

/// Where a platform result came from, which decides whose fault a bad one is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultSource {
    /// The platform just wrote it and exited with this code: an unusable
    /// result is the platform's failure (exit 3), and exit 2 means partial
    /// whatever the result says.
    Platform {
        /// The platform's exit code.
        exit_code: i32,
    },
    /// A file the user gave (`--platform-result`): an unusable one is invalid input (exit 2).
    File,
}

impl ResultSource {
    /// `result` with its fault assigned: invalid input in a result the
    /// platform just wrote is the platform's failure.
    pub fn blame<T>(self, result: Result<T>) -> Result<T> {
        match (self, result) {
            (ResultSource::Platform { .. }, Err(Error::InvalidInput { at, message })) => {
                Err(Error::PlatformFailed {
                    message: format!("its result is not usable: {at}: {message}"),
                    details: vec![],
                })
            }
            (_, other) => other,
        }
    }
}

/// Read the platform result at `path` (see [`crate::platform::result::read`]);
/// from a platform that exited with code 2 it is partial whatever it says.
pub fn read_result(path: &Utf8Path, source: ResultSource) -> Result<PlatformResult> {
    let mut result = crate::platform::result::read(path)?;
    if source == (ResultSource::Platform { exit_code: 2 }) && !result.partial {
        result.partial = true;
        if result.partial_reason.as_deref().is_none_or(str::is_empty) {
            result.partial_reason = Some(PartialReason::PlatformExit2.to_string());
        }
    }
    Ok(result)
}

/// Reduce the platform result at `path`, the one entry for a result on
/// disk: errors name the file, and `source` says whose fault an unusable one is.
pub fn reduce_file(
    path: &Utf8Path,
    source: ResultSource,
    ctx: &ReduceContext,
) -> Result<SkillEval> {
    source.blame(read_result(path, source).and_then(|result| reduce_named(&result, ctx, path)))
}

/// What a platform result came to, checked but not reduced ([`check_single_arm`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// The platform's `costUsd` (to 4 decimals).
    pub cost_usd: f64,
    /// Why it stopped early, when it did (the platform's own reason).
    pub partial_reason: Option<PartialReason>,
}

/// Check a single-arm result (`--ablation none`, the item's plugin loaded:
/// the with arm alone) as [`reduce_named`] checks a with/without one: the
/// plugin loaded, the scores are fractions, and no case has a without arm.
/// It is not reduced: its runs are rescored and kept as evidence, and the
/// document is made from the store.
pub fn check_single_arm(result: &PlatformResult, path: &Utf8Path, item: &str) -> Result<Checked> {
    result.check_loaded(item, "none")?;
    result.check_scores(path)?;
    if let Some(case) = result.cases.iter().find(|c| !c.arms.without.is_empty()) {
        return Err(Error::invalid(
            path,
            format!(
                "case `{}` has a without arm in a single-arm (ablation none) result",
                case.name
            ),
        ));
    }
    Ok(Checked {
        cost_usd: round4(result.cost_usd),
        partial_reason: result
            .partial
            .then(|| PartialReason::from_platform(result.partial_reason.as_deref())),
    })
}

/// Reduce a parsed platform result to a validated `skill-eval/1` document.
pub fn reduce(result: &PlatformResult, ctx: &ReduceContext) -> Result<SkillEval> {
    let label = format!("<skill-eval/1 for {}>", ctx.item);
    reduce_named(result, ctx, Utf8Path::new(&label))
}

/// [`reduce`], naming `path` as the input in errors: the result checked
/// (the plugin loaded under `with-without`, scores are fractions), its runs
/// typed once, then [`fold`]ed.
pub fn reduce_named(
    result: &PlatformResult,
    ctx: &ReduceContext,
    path: &Utf8Path,
) -> Result<SkillEval> {
    let started = match ctx.started {
        Some(started) => started,
        None => result.started().ok_or_else(|| {
            Error::invalid(
                path,
                "no valid `startedAt` (RFC 3339): cannot date the run; is this a platform result?",
            )
        })?,
    };
    result.check_loaded(&ctx.item, "with-without")?;
    result.check_scores(path)?;
    let typed = result.cases(path, Some(started))?;
    let cases: Vec<FoldCase> = typed.iter().map(FoldCase::of_result).collect();
    let totals = Totals {
        cost_usd: result.cost_usd,
        partial: result
            .partial
            .then(|| PartialReason::from_platform(result.partial_reason.as_deref())),
    };
    fold(&cases, ctx, started, &totals, path)
}

/// A trigger grader (`tool_used` on `Skill`) of a case, as the fold reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TriggerDef {
    /// The grader's name, as the runs name it.
    pub name: String,
    /// Quiet side (`max: 0`): the item must not fire.
    pub quiet: bool,
}

/// One case as the fold reads it: its triggers and its runs per arm, those
/// the platform marked with an error included (they are counted as faults,
/// never toward a score).
#[derive(Debug, Clone)]
pub struct FoldCase<'a> {
    /// Case name.
    pub name: &'a str,
    /// Its trigger graders.
    pub triggers: Vec<TriggerDef>,
    /// True when every grader the case defines is a with-only indicator
    /// (the platform then scores them all).
    pub only_with_only: bool,
    /// The with-arm runs.
    pub with: Vec<&'a RunOutcome>,
    /// The without-arm runs.
    pub without: Vec<&'a RunOutcome>,
    /// The platform's advisories for the case.
    pub advisories: Vec<String>,
}

impl<'a> FoldCase<'a> {
    /// A case of a platform result, its triggers from the graders it echoes.
    pub fn of_result(case: &'a CaseOutcomes) -> FoldCase<'a> {
        FoldCase {
            name: &case.name,
            triggers: case
                .graders
                .iter()
                .filter(|g| g.is_trigger())
                .map(|g| TriggerDef {
                    name: g.name.clone(),
                    quiet: g.is_quiet(),
                })
                .collect(),
            only_with_only: !case.graders.is_empty()
                && case.graders.iter().all(|g| g.is_with_only()),
            with: case.with.iter().collect(),
            without: case.without.iter().collect(),
            advisories: case.advisories.clone(),
        }
    }
}

/// What is said of the whole result beside its runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Totals {
    /// What the result cost (the document's `cost_usd`).
    pub cost_usd: f64,
    /// Why it is partial, when its source stopped early.
    pub partial: Option<PartialReason>,
}

/// The fold: `cases`' runs to a validated `skill-eval/1` document started
/// at `started`, with `totals`' cost and partial reason (a marked run or a
/// missing arm make it partial too). `label` names the input in errors.
pub fn fold(
    cases: &[FoldCase],
    ctx: &ReduceContext,
    started: DateTime<Utc>,
    totals: &Totals,
    label: &Utf8Path,
) -> Result<SkillEval> {
    let path = label;
    let mut run_errors = false;
    let mut out_cases = Vec::with_capacity(cases.len());
    let mut triggers = TriggerTally::default();
    let mut samples = Vec::with_capacity(cases.len());
    let mut faults = RunFaults::default();
    let (mut figures, mut runs_without_figures) = (Vec::new(), 0);
    for case in cases {
        let reduced = reduce_case(case);
        if let Some((f, lacking)) = reduced.figures {
            figures.push(f);
            runs_without_figures += lacking;
        }
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
                out_cases.push(eval);
            }
            None => run_errors = true,
        }
    }
    let mut cases = out_cases;
    // 95 % intervals and advisories, from the very runs the numbers come from.
    let comparison = crate::stats::compare(&samples, crate::stats::CONFIDENCE);
    for (case, stats) in cases.iter_mut().zip(comparison.cases) {
        case.stats = Some(stats.rounded());
    }
    if cases.is_empty() && faults.errored == 0 {
        let why = match &totals.partial {
            Some(reason) => {
                format!("the platform stopped early ({reason}) before any case finished a run")
            }
            None => "the result holds no case with a finished run".to_string(),
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

    let partial_reason = totals
        .partial
        .clone()
        .or_else(|| faults.reason())
        .or_else(|| run_errors.then_some(PartialReason::RunErrors(None)));

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
        cost_usd: round4(sum_usd([totals.cost_usd])),
        max_cost_usd: if rounded_ceiling > 0.0 {
            rounded_ceiling
        } else {
            ctx.max_cost_usd
        },
        partial: partial_reason.is_some(),
        partial_reason,
        cases,
        reused_runs: None,
        imported_runs: None,
        reused_cost_usd: None,
        suite_digest: None,
        item_digest: None,
        neighbours: None,
        platform_env: None,
        scaffold: None,
        mcp_servers: None,
        flags: None,
        efficiency: crate::document::Efficiency::of(
            figures,
            runs_without_figures,
            crate::stats::CONFIDENCE,
        ),
        calibration: None,
        stats: Some(crate::document::Stats {
            confidence: comparison.confidence,
            suite: comparison.suite.rounded(),
            trigger: (triggers.total > 0).then(|| crate::stats::TriggerCount {
                fired: u32::try_from(triggers.passed).unwrap_or(u32::MAX),
                results: u32::try_from(triggers.total).unwrap_or(u32::MAX),
            }),
            auto: None,
            min_effect: None,
        }),
    };
    let value = serde_json::to_value(&out)
        .map_err(|e| Error::invalid(path, format!("cannot be reduced: {e}")))?;
    crate::schema::validate_skill_eval(&value, path)?;
    Ok(out)
}

struct ReducedCase {
    eval: Option<CaseEval>,
    /// The counted runs' cost, turns and duration, and how many had none.
    figures: Option<(crate::document::CaseFigures, u32)>,
    /// The counted runs' scores, with and without.
    scores: (Vec<f64>, Vec<f64>),
    not_comparable: bool,
    triggers: TriggerTally,
    faults: RunFaults,
}

/// Passed and total trigger results (with arm), all and per side.
#[derive(Debug, Clone, Copy, Default)]
struct TriggerTally {
    passed: u64,
    total: u64,
    fires_passed: u64,
    fires: u64,
    quiet_passed: u64,
    quiet: u64,
}

impl TriggerTally {
    fn add(&mut self, other: TriggerTally) {
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

/// True when the platform scored `case` by its with-only graders alone: under
/// the ablation (a without arm), every grader it defines is with-only and its
/// with-arm runs report them scored (the platform's rule when a case has no
/// other grader).
fn scored_by_trigger(case: &FoldCase) -> bool {
    let graders = || case.with.iter().flat_map(|r| &r.graders);
    !case.without.is_empty()
        && case.only_with_only
        && graders().any(|g| g.scored)
        && graders().all(|g| g.scored)
}

/// The case's runs whose agent met a missing MCP server or a stand-in's
/// error, in words (how many of how many, and the tools), when any did.
fn mock_words(case: &FoldCase) -> Option<String> {
    let runs: Vec<&RunOutcome> = case.with.iter().chain(&case.without).copied().collect();
    let met: Vec<&crate::platform::result::MockCounts> = runs
        .iter()
        .filter_map(|r| r.mocks.as_ref())
        .filter(|m| !m.unmocked.is_empty() || m.errors > 0)
        .collect();
    if met.is_empty() {
        return None;
    }
    let mut tools: Vec<&str> = met
        .iter()
        .flat_map(|m| m.unmocked.iter().map(|u| u.tool.as_str()))
        .collect();
    tools.sort_unstable();
    tools.dedup();
    let errors: u32 = met.iter().map(|m| m.errors).sum();
    let mut words = format!("{} of {} run(s) not counted: ", met.len(), runs.len());
    if !tools.is_empty() {
        words.push_str(&format!(
            "called tools with no stand-in ({}), whose server was not started",
            tools.join(", ")
        ));
    }
    if errors > 0 {
        if !tools.is_empty() {
            words.push_str("; ");
        }
        words.push_str(&format!("{errors} stand-in error(s)"));
    }
    words.push_str(
        "; add mocks under mocks/<server>/ beside the case, or pass --allow-real-servers",
    );
    Some(words)
}

fn reduce_case(case: &FoldCase) -> ReducedCase {
    let mut faults = RunFaults::default();
    for run in case.with.iter().chain(&case.without) {
        faults.add(run.fault().as_deref());
    }
    // Only the runs the platform did not mark count.
    fn counted<'r>(runs: &[&'r RunOutcome]) -> Vec<&'r RunOutcome> {
        runs.iter()
            .copied()
            .filter(|r| r.fault().is_none())
            .collect()
    }
    let (with, without) = (counted(&case.with), counted(&case.without));
    let side = |quiet: bool| -> HashSet<&str> {
        case.triggers
            .iter()
            .filter(|t| t.quiet == quiet)
            .map(|t| t.name.as_str())
            .collect()
    };
    let (fires, quiet) = (side(false), side(true));
    let mut t = TriggerTally::default();
    for run in &with {
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
    let not_comparable = without.is_empty() || faults.errored > 0;
    let eval = (!with.is_empty()).then(|| {
        let with_score = round4(mean(with.iter().map(|r| r.score)));
        let without_score =
            (!without.is_empty()).then(|| round4(mean(without.iter().map(|r| r.score))));
        let delta = without_score.map(|w| round4(with_score - w));
        CaseEval {
            name: case.name.to_string(),
            with: with_score,
            without: without_score,
            delta,
            verdict: delta.map(Verdict::of),
            trigger_rate,
            fires_rate,
            quiet_rate,
            // What every run cost, counted or not: it was spent.
            cost_usd: round4(sum_usd(
                case.with.iter().chain(&case.without).map(|r| r.cost_usd),
            )),
            runs: u32::try_from(with.len() + without.len()).unwrap_or(u32::MAX),
            digest: None,
            stats: None,
            graders: Some(grader_detail(&with, &without)),
            scored_by_trigger: scored_by_trigger(case),
            mocks: mock_words(case),
            advisories: case.advisories.clone(),
        }
    });
    ReducedCase {
        figures: efficiency::case(case.name, &with, &without),
        scores: (
            with.iter().map(|r| r.score).collect(),
            without.iter().map(|r| r.score).collect(),
        ),
        eval,
        not_comparable,
        triggers: t,
        faults,
    }
}

/// Each grader named by the counted runs, in order of first appearance: its
/// passes per arm, the explanation of its first failure (of its first
/// error, when it threw on some run) and, for a judged grader, how often its
/// votes split over both arms' runs (Wilson 95 %).
fn grader_detail(with: &[&RunOutcome], without: &[&RunOutcome]) -> Vec<GraderEval> {
    let mut out: Vec<GraderEval> = Vec::new();
    for (is_without, runs) in [(false, with), (true, without)] {
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
                        split_votes: None,
                    });
                    out.len() - 1
                }
            };
            let entry = &mut out[i];
            let count = if is_without {
                entry.without.get_or_insert(ArmCount { passed: 0, runs: 0 })
            } else {
                &mut entry.with
            };
            count.runs += 1;
            count.passed += u32::from(g.passed);
            if !g.judge_votes.is_empty() {
                let votes = entry.split_votes.get_or_insert(SplitVotes {
                    runs: 0,
                    split: 0,
                    rate: 0.0,
                    low: 0.0,
                    high: 1.0,
                });
                votes.runs += 1;
                votes.split += u32::from(g.split_vote());
            }
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
    for votes in out.iter_mut().filter_map(|e| e.split_votes.as_mut()) {
        let interval = crate::stats::wilson(votes.split, votes.runs);
        votes.rate = round4(f64::from(votes.split) / f64::from(votes.runs));
        votes.low = round4(interval.low);
        votes.high = round4(interval.high);
    }
    out
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 { 0.0 } else { sum / n as f64 }
}

#[cfg(test)]
mod tests;
