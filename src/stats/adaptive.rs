//! `--runs auto`: buy runs in rounds, only where they can still move the
//! call, and stop as soon as the call is clear, cannot become clear, or the
//! runs or money run out.
//!
//! # The stopping rule and why it keeps the false-call rate at α
//!
//! The rounds follow a schedule fixed before the first run: cumulative runs
//! per arm of a case n₁ < n₂ < … < n_L = MAX (by default 4, 6, 9, 13, 16
//! for MAX 16: [`AutoPolicy::schedule`]). The error budget α (5 %) is spent
//! over the looks by a function fixed in advance ([`Spending`]): by default
//! α·tₖ at information fraction tₖ = nₖ/MAX (the Kim–DeMets power family
//! with ρ = 1, close to Pocock's design). Look k's critical value cₖ is the
//! one at which, were the look statistics the canonical joint normal
//! (independent increments), the chance of a first false call at look k is
//! exactly α(tₖ) − α(tₖ₋₁) ([`super::spending`]); every interval at look k
//! is computed at confidence 1 − 2(1 − Φ(cₖ)). Then:
//!
//! 1. if the suite's delta interval excludes 0, the call is clear: stop.
//!    Against a recorded best ([`adaptive_against`]) the call is clear when
//!    `helps` and `beats-best` are both clearly passed and `trigger-rate` is
//!    not open, or one of them is clearly failed;
//! 2. if this was the last look (MAX runs), stop: *within noise*;
//! 3. with [`AutoPolicy::resolve_cases`] (off by default), a case whose own
//!    delta interval excludes 0 runs no more;
//! 4. if the chance that an open comparison is clear by the last look is
//!    below [`AutoPolicy::futility`] (predictive power: averaged over the
//!    effects the data leave plausible), stop: *within noise* (not before
//!    [`AutoPolicy::futility_from`] runs);
//! 5. otherwise the arms that can still move an open comparison run up to
//!    n_{k+1}: for `helps` both arms of every case, except that a case whose
//!    every run of both arms scored 1 runs its with arm alone while the
//!    suite leans above 0 ([`AutoPolicy::allocate`]); for `beats-best` and
//!    `trigger-rate` the with arms (the best's runs are fixed). A round
//!    that would likely cost more than is left of the ceiling is not
//!    bought ([`Stop::CeilingSpent`]).
//!
//! A false call means a first false call at some look k, so under the
//! canonical distribution P(false call) = Σₖ (α(tₖ) − α(tₖ₋₁)) = α.
//! Stopping early for futility or money only removes later chances to make a
//! call (the boundaries are computed as if it never happened: non-binding),
//! so it cannot raise the rate. An interim look is never looser than the
//! last, so a call made early still holds on the same data at the end. What
//! is approximate: the score statistics of a handful of pass/fail runs are
//! only close to that joint normal, information is taken as proportional to
//! runs, and allocation lets an arm's run count depend on earlier data. The
//! benchmark (`benches/adaptive.rs`) measures the resulting rate on
//! simulated suites with known truth (`docs/statistics.md`). The earlier
//! design ([`Spending::Interim`]: Haybittle–Peto looks at 0.001 and a union
//! bound, which holds under any dependence) is kept for comparison.

use super::interval::{Estimate, Part, normal_cdf, score_interval, variance_at, z_for};
use super::{Comparison, Direction, TriggerCount, compare_with_parts};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Ask for more runs of one case: `with` more in its with arm and `without`
/// more in its without arm (0: the with arm alone).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRequest {
    /// Index of the case in the suite's case list (the platform runs it by
    /// name with `--case`).
    pub case: usize,
    /// More runs of the with arm.
    pub with: u32,
    /// More runs of the without arm.
    pub without: u32,
}

impl RunRequest {
    /// `runs` more in each arm.
    pub fn both(case: usize, runs: u32) -> Self {
        RunRequest {
            case,
            with: runs,
            without: runs,
        }
    }

    /// Runs asked for, both arms.
    pub fn runs(&self) -> u64 {
        u64::from(self.with) + u64::from(self.without)
    }
}

/// The runs of one case: each arm's run scores in `[0, 1]`, and what they cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseRuns {
    /// Index of the case in the suite.
    pub case: usize,
    /// Scores of the with-arm runs.
    pub with: Vec<f64>,
    /// Scores of the without-arm runs.
    pub without: Vec<f64>,
    /// Cost of these runs, both arms.
    pub cost_usd: f64,
    /// Trigger results of the with-arm runs (`tool_used: Skill` graders):
    /// what `trigger-rate` is settled on.
    #[serde(default)]
    pub trigger: TriggerCount,
}

/// What one call of a [`RunSource`] returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Round {
    /// The new runs, one entry per requested case (fewer runs than asked when
    /// the source stopped early).
    pub cases: Vec<CaseRuns>,
    /// Set when the source stopped before finishing the round (`cost_ceiling`,
    /// `auth_failed`, …): the driver stops too.
    pub partial_reason: Option<String>,
}

/// Where runs come from: the real platform (`claude plugin eval --case …
/// --runs N --max-cost-usd B`, with `--ablation with-only` for a request of
/// the with arm alone) or a simulation. A round is one request per case.
pub trait RunSource {
    /// Why a round could not run at all.
    type Error;

    /// Run each requested case's arms as many more times as asked,
    /// spending at most `budget_usd`. Scores must be in `[0, 1]`.
    fn run(&mut self, requests: &[RunRequest], budget_usd: f64) -> Result<Round, Self::Error>;
}

/// How the error budget is spread over the looks.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "spending", content = "value", rename_all = "kebab-case")]
pub enum Spending {
    /// Haybittle–Peto with a union bound: each interim look gets this much,
    /// the last look the rest.
    Interim(f64),
    /// The Kim–DeMets power family: α·tᵖ spent by information fraction t
    /// (runs per arm over MAX), the boundaries exact under the canonical
    /// joint normal distribution of the looks ([`super::spending`]). ρ = 1
    /// is close to Pocock's design, ρ = 3 to O'Brien and Fleming's.
    Power(f64),
}

/// How `--runs auto` buys runs; [`AutoPolicy::new`] gives the defaults the
/// benchmark measured (`docs/statistics.md`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AutoPolicy {
    /// Runs per arm of every case in the first round (default 4).
    pub first_round: u32,
    /// Most runs per arm of a case: `auto:MAX` (default 16).
    pub max_per_arm: u32,
    /// Each round takes the cumulative runs per arm to about this many times
    /// the previous, rounded up (default 1.4: 4, 6, 9, 13, 16 for MAX 16).
    pub growth: f64,
    /// The false-call budget over all looks (default 0.05).
    pub alpha: f64,
    /// How the budget is spread over the looks.
    pub spending: Spending,
    /// Stop when the chance of a clear call by the last look is below this
    /// (default 0.2; 0 never).
    pub futility: f64,
    /// No futility stop before a look at this many runs per arm (default 4,
    /// the first look).
    pub futility_from: u32,
    /// Futility on predictive power (the chance averaged over the effects
    /// the data leave plausible, a flat prior; default) instead of
    /// conditional power under the observed trend, which gives up sooner on
    /// a noisy first look.
    pub predictive: bool,
    /// A case whose every run of both arms scored 1 runs its with arm alone
    /// while the suite's estimate is above 0 (default on; see the module doc).
    pub allocate: bool,
    /// A case whose own delta is clear runs no more (default off: measured,
    /// it cost resolution, because the suite's test still carries the
    /// case's variance).
    pub resolve_cases: bool,
}

impl AutoPolicy {
    /// The defaults with `max_per_arm` runs per arm at most.
    pub fn new(max_per_arm: u32) -> Self {
        AutoPolicy {
            first_round: 4,
            max_per_arm,
            growth: 1.4,
            alpha: 0.05,
            spending: Spending::Power(1.0),
            futility: 0.2,
            futility_from: 4,
            predictive: true,
            allocate: true,
            resolve_cases: false,
        }
    }

    /// The defaults for the gate's confidence mode at `level`: the one-sided
    /// error budget 1 − level is the two-sided α = 2(1 − level), so the last
    /// look's one-sided level is at least `level` and a result bought this
    /// way is judged by the gate at the level it was bought for. Under the
    /// mode a futility stop is a reject, so it stops only below 10 %.
    pub fn for_level(max_per_arm: u32, level: f64) -> Self {
        AutoPolicy {
            alpha: 2.0 * (1.0 - level),
            futility: 0.1,
            predictive: true,
            ..AutoPolicy::new(max_per_arm)
        }
    }

    /// The cumulative runs per arm at each look, ending at `max_per_arm`.
    pub fn schedule(&self) -> Vec<u32> {
        let max = self.max_per_arm.max(1);
        let mut n = self.first_round.clamp(1, max);
        let mut looks = vec![n];
        while n < max {
            let next = (f64::from(n) * self.growth).ceil() as u32;
            n = next.max(n + 1).min(max);
            // A last step smaller than half the previous round is folded into it.
            if n < max && max - n < (n - looks[looks.len() - 1]).div_ceil(2) {
                n = max;
            }
            looks.push(n);
        }
        looks
    }

    /// The confidence of every interval at each look: 1 − αₖ, where αₖ is
    /// the look's nominal two-sided level.
    pub fn confidences(&self) -> Result<Vec<f64>, String> {
        let schedule = self.schedule();
        let looks = schedule.len();
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(format!("alpha {} is not between 0 and 1", self.alpha));
        }
        let levels: Vec<f64> = match self.spending {
            Spending::Interim(interim) => {
                let last = self.alpha - interim * (looks - 1) as f64;
                if looks > 1 && !(interim > 0.0 && last >= interim) {
                    return Err(format!(
                        "{looks} looks at interim alpha {interim} leave {last} of alpha {} for the last; an interim look may not be looser than the last, or a case called clear early could read as noise at the end",
                        self.alpha
                    ));
                }
                (0..looks)
                    .map(|k| if k + 1 < looks { interim } else { last })
                    .collect()
            }
            Spending::Power(rho) => {
                if !(rho.is_finite() && rho > 0.0) {
                    return Err(format!("spending power {rho} is not above 0"));
                }
                let max = f64::from(schedule[looks - 1]);
                let t: Vec<f64> = schedule.iter().map(|&n| f64::from(n) / max).collect();
                let spent: Vec<f64> = t.iter().map(|t| self.alpha * t.powf(rho)).collect();
                let c = super::spending::boundaries(&t, &spent);
                c.iter()
                    .map(|c| 2.0 * super::spending::normal_upper(*c))
                    .collect()
            }
        };
        Ok(levels.into_iter().map(|a| 1.0 - a).collect())
    }
}

/// Why the driver stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "stop", rename_all = "kebab-case")]
pub enum Stop {
    /// A fixed number of runs: one round, no look ahead.
    Fixed,
    /// The suite's delta interval excludes 0.
    SuiteClear,
    /// Against a best: every comparison the gate makes is clear (`helps`,
    /// `beats-best`, and `trigger-rate` when it is below the best's), or one
    /// is clearly failed.
    Settled,
    /// Every case's own delta is clear.
    AllCasesResolved,
    /// More runs up to MAX would most likely not make the call clear.
    Futile,
    /// The last look of the schedule: MAX runs per arm.
    MaxReached,
    /// The next round would likely cost more than is left of the ceiling.
    CeilingSpent,
    /// The source stopped a round early.
    SourceStopped {
        /// Its reason.
        reason: String,
    },
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Fixed => write!(f, "a fixed number of runs"),
            Stop::SuiteClear => write!(f, "the suite's call is clear"),
            Stop::Settled => write!(f, "the call against the best is clear"),
            Stop::AllCasesResolved => write!(f, "every case's call is clear"),
            Stop::Futile => write!(f, "more runs would most likely not settle it"),
            Stop::MaxReached => write!(f, "the most runs per case were bought"),
            Stop::CeilingSpent => write!(f, "the next round would pass the ceiling"),
            Stop::SourceStopped { reason } => write!(f, "the platform stopped: {reason}"),
        }
    }
}

/// One round the driver bought.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundLog {
    /// The cases run and how many more runs per arm each.
    pub requests: Vec<RunRequest>,
    /// What the round cost.
    pub cost_usd: f64,
    /// The confidence of the look that followed.
    pub confidence: f64,
}

/// What the driver bought and what it concluded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AutoOutcome {
    /// Every interval and advisory, at the confidence of the last look taken
    /// (1 − αₖ; 0.95 for a fixed number of runs).
    pub comparison: Comparison,
    /// Why it stopped.
    pub stop: Stop,
    /// The rounds, in order.
    pub rounds: Vec<RoundLog>,
    /// All runs, per case in suite order.
    pub samples: Vec<CaseRuns>,
    /// Runs bought, both arms, all cases.
    pub runs: u64,
    /// What they cost.
    pub cost_usd: f64,
}

/// The driver could not finish: the source failed, or broke its contract.
#[derive(Debug)]
pub enum AutoError<E> {
    /// The source failed; `samples` holds the runs bought before.
    Source {
        /// The source's error.
        error: E,
        /// Runs bought so far, per case.
        samples: Vec<CaseRuns>,
    },
    /// The source returned a case it was not asked for, or a score outside `[0, 1]`.
    Contract(String),
    /// The policy is inconsistent (see [`AutoPolicy::confidences`]).
    Policy(String),
}

impl<E: fmt::Display> fmt::Display for AutoError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AutoError::Source { error, .. } => write!(f, "the run source failed: {error}"),
            AutoError::Contract(m) => write!(f, "the run source broke its contract: {m}"),
            AutoError::Policy(m) => write!(f, "inconsistent --runs auto policy: {m}"),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for AutoError<E> {}

/// A fixed number of runs: one round of `runs_per_arm` for every case, then
/// the 95 % intervals and advisories. The same path as [`adaptive`], so both
/// are measured through the same code.
pub fn fixed<S: RunSource>(
    source: &mut S,
    cases: usize,
    runs_per_arm: u32,
    ceiling_usd: f64,
) -> Result<AutoOutcome, AutoError<S::Error>> {
    let mut d = Driver::new(cases);
    let requests: Vec<RunRequest> = (0..cases)
        .map(|case| RunRequest::both(case, runs_per_arm))
        .collect();
    let stopped = d.round(source, &requests, ceiling_usd, super::CONFIDENCE)?;
    let comparison = super::compare(&d.samples, super::CONFIDENCE);
    Ok(d.finish(comparison, stopped.unwrap_or(Stop::Fixed)))
}

/// `--runs auto`: the group-sequential driver described in the module doc.
/// `cases` is the number of cases in the suite; runs are requested by index.
pub fn adaptive<S: RunSource>(
    source: &mut S,
    cases: usize,
    policy: &AutoPolicy,
    ceiling_usd: f64,
) -> Result<AutoOutcome, AutoError<S::Error>> {
    adaptive_against(source, cases, policy, ceiling_usd, None)
}

/// [`adaptive`], settling against a recorded best too: the gate's
/// `beats-best` (the suite's `with` against the best's, two-sample when the
/// best kept its runs) and `trigger-rate` (when the rate is below the best's,
/// until it is clearly below or no longer below), besides `helps`.
pub fn adaptive_against<S: RunSource>(
    source: &mut S,
    cases: usize,
    policy: &AutoPolicy,
    ceiling_usd: f64,
    best: Option<&Against>,
) -> Result<AutoOutcome, AutoError<S::Error>> {
    let schedule = policy.schedule();
    let confidences = policy.confidences().map_err(AutoError::Policy)?;
    let z_last = z_for(confidences[confidences.len() - 1]);
    let mut d = Driver::new(cases);
    // Cases still open for `helps` (all of them unless `resolve_cases`).
    let mut active: Vec<bool> = vec![true; cases];
    // Which arms of each case run next ([with, without]), and their runs so far.
    let mut arms = vec![[true, true]; cases];
    let mut reached = vec![[0u32; 2]; cases];
    for (look, (&target, &confidence)) in schedule.iter().zip(&confidences).enumerate() {
        let requests: Vec<RunRequest> = (0..cases)
            .map(|case| {
                let more = |arm: usize| {
                    if arms[case][arm] {
                        target.saturating_sub(reached[case][arm])
                    } else {
                        0
                    }
                };
                RunRequest {
                    case,
                    with: more(0),
                    without: more(1),
                }
            })
            .filter(|r| r.runs() > 0)
            .collect();
        if look > 0 && requests.is_empty() {
            let comparison = super::compare(&d.samples, d.last_confidence);
            return Ok(d.finish(comparison, Stop::Futile));
        }
        if look > 0 && d.likely_cost(&requests) > ceiling_usd - d.spent {
            let comparison = super::compare(&d.samples, d.last_confidence);
            return Ok(d.finish(comparison, Stop::CeilingSpent));
        }
        let stopped = d.round(source, &requests, ceiling_usd - d.spent, confidence)?;
        for r in &requests {
            reached[r.case][0] += r.with;
            reached[r.case][1] += r.without;
        }
        let (comparison, parts) = compare_with_parts(&d.samples, confidence);
        if let Some(stop) = stopped {
            return Ok(d.finish(comparison, stop));
        }
        let helps = comparison.suite.advisory.direction();
        let beats = best.map(|b| beats_best(&d.samples, b, confidence));
        let trigger = best.and_then(|b| trigger_rate(&d.samples, b, confidence));
        let beats_dir = beats.as_ref().map(|(e, tie)| direction(e, *tie));
        let rejected = helps == Some(Direction::Below)
            || beats_dir == Some(Some(Direction::Below))
            || trigger == Some(TriggerState::ClearlyBelow);
        let accepted = helps == Some(Direction::Above)
            && beats_dir.is_none_or(|b| b == Some(Direction::Above))
            && trigger != Some(TriggerState::Open);
        if rejected || accepted {
            let stop = if best.is_some() {
                Stop::Settled
            } else {
                Stop::SuiteClear
            };
            return Ok(d.finish(comparison, stop));
        }
        if look + 1 == schedule.len() {
            return Ok(d.finish(comparison, Stop::MaxReached));
        }
        if policy.resolve_cases {
            for c in &comparison.cases {
                if c.advisory.is_clear() {
                    active[c.case] = false;
                }
            }
            if helps.is_none() && best.is_none() && !active.contains(&true) {
                return Ok(d.finish(comparison, Stop::AllCasesResolved));
            }
        }
        // The arms each open comparison needs: `helps` both arms of its
        // open cases (or the with arm alone of a tie at the top), the
        // comparisons with the best the with arms (the best's runs are fixed).
        let helps_arms = if policy.allocate {
            allocation(&parts, comparison.suite.delta.value)
        } else {
            vec![[true, true]; cases]
        };
        let beats_open = matches!(beats_dir, Some(None));
        let trigger_open = trigger == Some(TriggerState::Open);
        arms = (0..cases)
            .map(|c| {
                let mut a = [false, false];
                if helps.is_none() && active[c] {
                    a = helps_arms[c];
                }
                a[0] |= beats_open || (trigger_open && d.samples[c].trigger.results > 0);
                a
            })
            .collect();
        if target < policy.futility_from {
            continue;
        }
        // Futility: any open comparison the call needs that would most likely
        // not be settled by MAX.
        let grows: Vec<bool> = (0..2 * cases).map(|i| arms[i / 2][i % 2]).collect();
        let mut hopeless = helps.is_none()
            && conditional_power(
                comparison.suite.delta.value,
                0.0,
                &parts,
                &grows,
                policy.max_per_arm,
                z_last,
                policy.predictive,
            ) < policy.futility;
        if let (Some((e, tie)), true) = (&beats, beats_open) {
            let (beats_parts, beats_grows) = beats_parts(&d.samples, best.expect("beats"), &arms);
            hopeless |= conditional_power(
                e.value,
                *tie,
                &beats_parts,
                &beats_grows,
                policy.max_per_arm,
                z_last,
                policy.predictive,
            ) < policy.futility;
        }
        if hopeless {
            return Ok(d.finish(comparison, Stop::Futile));
        }
    }
    unreachable!("the schedule ends at its last look")
}

/// The recorded best that [`adaptive_against`] also settles against: the
/// gate's `beats-best` and `trigger-rate`, read as the gate's confidence
/// mode reads them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Against {
    /// The best's `with` as recorded: an exact line when it kept no runs.
    pub score: f64,
    /// The best's with arms, one per case of the best (score sum, runs):
    /// the best as a measured quantity.
    pub with_arms: Vec<(f64, u32)>,
    /// The best's trigger rate, when the gate compares one.
    pub trigger_rate: Option<f64>,
    /// The best's trigger counts, when it kept them.
    pub trigger: Option<TriggerCount>,
}

/// The parts of `beats-best` (the new `with` less the best's) and which
/// grow when `arms` run: the new with arms; the best's runs are fixed.
fn beats_parts(samples: &[CaseRuns], best: &Against, arms: &[[bool; 2]]) -> (Vec<Part>, Vec<bool>) {
    let k = samples.len().max(1) as f64;
    let mut parts: Vec<Part> = samples.iter().map(|c| Part::of(1.0 / k, &c.with)).collect();
    let mut grows: Vec<bool> = arms.iter().map(|a| a[0]).collect();
    let kb = best.with_arms.len() as f64;
    for &(sum, n) in &best.with_arms {
        parts.push(Part {
            coef: -1.0 / kb,
            sum,
            n: n as usize,
        });
        grows.push(false);
    }
    (parts, grows)
}

/// `beats-best` at `confidence`: the estimate and the tie it is compared with.
fn beats_best(samples: &[CaseRuns], best: &Against, confidence: f64) -> (Estimate, f64) {
    let (parts, _) = beats_parts(samples, best, &vec![[false; 2]; samples.len()]);
    let tie = if best.with_arms.is_empty() {
        best.score
    } else {
        0.0
    };
    (score_interval(&parts, confidence), tie)
}

/// Which side of `tie` the interval of `e` lies on, if clear of it.
fn direction(e: &Estimate, tie: f64) -> Option<Direction> {
    if e.interval.low > tie {
        Some(Direction::Above)
    } else if e.interval.high < tie {
        Some(Direction::Below)
    } else {
        None
    }
}

/// Where `trigger-rate` stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TriggerState {
    /// At or above the best's: the rule's check passes.
    NotBelow,
    /// Below the best's, and clearly so.
    ClearlyBelow,
    /// Below the best's, within noise: more runs of the with arms settle it.
    Open,
}

/// `trigger-rate` at `confidence`; `None` when the gate skips it (no rate on
/// either side).
fn trigger_rate(samples: &[CaseRuns], best: &Against, confidence: f64) -> Option<TriggerState> {
    let best_rate = best.trigger_rate?;
    let (fired, results) = samples.iter().fold((0u32, 0u32), |(f, n), c| {
        (f + c.trigger.fired, n + c.trigger.results)
    });
    if results == 0 {
        return None;
    }
    let rate = f64::from(fired) / f64::from(results);
    if round4(rate) >= round4(best_rate) {
        return Some(TriggerState::NotBelow);
    }
    let new = Part {
        coef: 1.0,
        sum: f64::from(fired),
        n: results as usize,
    };
    let e = match best.trigger.filter(|t| t.results > 0) {
        Some(t) => {
            let old = Part {
                coef: -1.0,
                sum: f64::from(t.fired),
                n: t.results as usize,
            };
            direction(&score_interval(&[new, old], confidence), 0.0)
        }
        None => direction(&score_interval(&[new], confidence), best_rate),
    };
    Some(if e == Some(Direction::Below) {
        TriggerState::ClearlyBelow
    } else {
        TriggerState::Open
    })
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// Which arms of each case run next, `[with, without]`: a case whose every
/// run of both arms scored 1 runs its with arm alone while the suite's
/// estimate is above 0. Its without arm can only be overestimated, so its
/// runs could never help an improvement to be called; the null pushes the
/// with arm down, so that arm carries the case's variance. (A tie at 0
/// would want the without arm alone, which the platform cannot buy.)
fn allocation(parts: &[Part], delta: f64) -> Vec<[bool; 2]> {
    parts
        .chunks(2)
        .map(|arms| {
            let top = |p: &Part| p.n > 0 && p.sum >= p.n as f64;
            if delta > 0.0 && top(&arms[0]) && top(&arms[1]) {
                [true, false]
            } else {
                [true, true]
            }
        })
        .collect()
}

/// The chance that a comparison (Σ cᵢ·μᵢ over `parts` against `tie`) is
/// clear at the last look, with every part that `grows` run to `max` runs:
/// if its true value equals `estimate` now (conditional power under the
/// current trend), or with `predictive`, averaged over the values the data
/// leave plausible under a flat prior (predictive power).
///
/// The last look tests the tie with the variance the score interval uses
/// there ([`variance_at`] the tie); a growing arm's share shrinks as n/max.
/// With V now and V′ at the last look, the information fraction is
/// t = V′/V and the drift is d = (|estimate − tie| − cc′)/√V′. Conditional
/// power is Φ((d − z)/√(1 − t)), predictive power Φ(√t·(d − z)/√(1 − t))
/// (Jennison and Turnbull, ch. 10).
fn conditional_power(
    estimate: f64,
    tie: f64,
    parts: &[Part],
    grows: &[bool],
    max: u32,
    z_last: f64,
    predictive: bool,
) -> f64 {
    let now = variance_at(parts, tie);
    let mut projected = parts.to_vec();
    let (mut v_now, mut v_last) = (0.0, 0.0);
    for (i, (v, p)) in now.iter().zip(projected.iter_mut()).enumerate() {
        v_now += v;
        if grows[i] && p.n > 0 && p.n < max as usize {
            let grow = max as f64 / p.n as f64;
            v_last += v / grow;
            p.sum *= grow;
            p.n = max as usize;
        } else {
            v_last += v;
        }
    }
    if v_now <= 0.0 {
        // No noise left under "no difference": the test will not move.
        return 0.0;
    }
    let cc = super::interval::continuity(&projected);
    let drift = ((estimate - tie).abs() - cc) / v_last.sqrt();
    let t = v_last / v_now;
    if t >= 1.0 - 1e-12 {
        return if drift > z_last { 1.0 } else { 0.0 };
    }
    let shrink = if predictive { t.sqrt() } else { 1.0 };
    1.0 - normal_cdf((z_last - drift) * shrink / (1.0 - t).sqrt())
}

/// The runs bought so far and their cost.
struct Driver {
    samples: Vec<CaseRuns>,
    rounds: Vec<RoundLog>,
    spent: f64,
    runs: u64,
    last_confidence: f64,
}

impl Driver {
    fn new(cases: usize) -> Self {
        Driver {
            samples: (0..cases)
                .map(|case| CaseRuns {
                    case,
                    with: vec![],
                    without: vec![],
                    cost_usd: 0.0,
                    trigger: Default::default(),
                })
                .collect(),
            rounds: vec![],
            spent: 0.0,
            runs: 0,
            last_confidence: super::CONFIDENCE,
        }
    }

    /// What `requests` would cost at the mean cost per run so far.
    fn likely_cost(&self, requests: &[RunRequest]) -> f64 {
        if self.runs == 0 {
            return 0.0;
        }
        let runs: u64 = requests.iter().map(RunRequest::runs).sum();
        self.spent / self.runs as f64 * runs as f64
    }

    /// Run one round and add its runs; `Some(stop)` when the source stopped it short.
    fn round<S: RunSource>(
        &mut self,
        source: &mut S,
        requests: &[RunRequest],
        budget_usd: f64,
        confidence: f64,
    ) -> Result<Option<Stop>, AutoError<S::Error>> {
        let round = match source.run(requests, budget_usd.max(0.0)) {
            Ok(r) => r,
            Err(error) => {
                return Err(AutoError::Source {
                    error,
                    samples: std::mem::take(&mut self.samples),
                });
            }
        };
        let mut cost = 0.0;
        let mut short = false;
        for got in &round.cases {
            let Some(asked) = requests.iter().find(|r| r.case == got.case) else {
                return Err(AutoError::Contract(format!(
                    "it returned case {} which was not requested",
                    got.case
                )));
            };
            if let Some(s) = got
                .with
                .iter()
                .chain(&got.without)
                .find(|s| !(0.0..=1.0).contains(*s))
            {
                return Err(AutoError::Contract(format!(
                    "case {}: score {s} is outside 0..1",
                    got.case
                )));
            }
            let (want, want_without) = (asked.with as usize, asked.without as usize);
            short |= got.with.len() < want || got.without.len() < want_without;
            let s = &mut self.samples[got.case];
            s.with.extend(got.with.iter().take(want));
            s.without.extend(got.without.iter().take(want_without));
            s.cost_usd += got.cost_usd;
            s.trigger.fired += got.trigger.fired;
            s.trigger.results += got.trigger.results;
            cost += got.cost_usd;
            self.runs += (got.with.len().min(want) + got.without.len().min(want_without)) as u64;
        }
        short |= requests
            .iter()
            .any(|r| r.runs() > 0 && !round.cases.iter().any(|c| c.case == r.case));
        self.spent += cost;
        self.last_confidence = confidence;
        self.rounds.push(RoundLog {
            requests: requests.to_vec(),
            cost_usd: cost,
            confidence,
        });
        Ok(match round.partial_reason {
            Some(reason) => Some(Stop::SourceStopped { reason }),
            None if short => Some(Stop::SourceStopped {
                reason: "fewer runs than requested".into(),
            }),
            None => None,
        })
    }

    fn finish(self, comparison: Comparison, stop: Stop) -> AutoOutcome {
        AutoOutcome {
            comparison,
            stop,
            rounds: self.rounds,
            samples: self.samples,
            runs: self.runs,
            cost_usd: self.spent,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scripted platform: each case's arms cycle through fixed score lists;
    /// every request is logged.
    struct Script {
        arms: Vec<(Vec<f64>, Vec<f64>)>,
        drawn: Vec<[usize; 2]>,
        log: Vec<Vec<RunRequest>>,
        cost_per_run: f64,
        stop_after: Option<usize>,
    }

    impl Script {
        fn new(arms: &[(&[f64], &[f64])]) -> Self {
            Script {
                arms: arms
                    .iter()
                    .map(|(w, wo)| (w.to_vec(), wo.to_vec()))
                    .collect(),
                drawn: vec![[0; 2]; arms.len()],
                log: vec![],
                cost_per_run: 0.01,
                stop_after: None,
            }
        }
    }

    impl RunSource for Script {
        type Error = String;

        fn run(&mut self, requests: &[RunRequest], _budget: f64) -> Result<Round, String> {
            self.log.push(requests.to_vec());
            let partial = self.stop_after.is_some_and(|n| self.log.len() > n);
            let cases = requests
                .iter()
                .map(|r| {
                    let (w, wo) = &self.arms[r.case];
                    let [start, start_without] = self.drawn[r.case];
                    let runs = |asked: u32| {
                        if partial {
                            1.min(asked as usize)
                        } else {
                            asked as usize
                        }
                    };
                    let (n, n_without) = (runs(r.with), runs(r.without));
                    self.drawn[r.case] = [start + n, start_without + n_without];
                    let take = |a: &[f64], start: usize, n: usize| -> Vec<f64> {
                        (start..start + n).map(|i| a[i % a.len()]).collect()
                    };
                    CaseRuns {
                        case: r.case,
                        with: take(w, start, n),
                        without: take(wo, start_without, n_without),
                        cost_usd: (n + n_without) as f64 * self.cost_per_run,
                        trigger: Default::default(),
                    }
                })
                .collect();
            Ok(Round {
                cases,
                partial_reason: partial.then(|| "cost_ceiling".to_string()),
            })
        }
    }

    const ONE: &[f64] = &[1.0];
    const ZERO: &[f64] = &[0.0];
    const HALF: &[f64] = &[1.0, 0.0];
    const HALF_LATE: &[f64] = &[0.0, 1.0];

    /// The earlier default: 2, 4, 8, 10 with Haybittle–Peto looks at 0.001,
    /// every arm of every open case run, a case clear on its own resolved.
    fn haybittle_peto() -> AutoPolicy {
        AutoPolicy {
            first_round: 2,
            growth: 2.0,
            spending: Spending::Interim(0.001),
            futility: 0.1,
            predictive: false,
            futility_from: 4,
            allocate: false,
            resolve_cases: true,
            ..AutoPolicy::new(10)
        }
    }

    #[test]
    fn schedule_and_levels() {
        let p = AutoPolicy::new(16);
        assert_eq!(p.schedule(), [4, 6, 9, 13, 16]);
        let c = p.confidences().unwrap();
        // Power spending with ρ = 1: the first look spends α·4/16 exactly.
        assert!((1.0 - c[0] - 0.05 * 4.0 / 16.0).abs() < 1e-12, "{c:?}");
        // No interim look is looser than the last; the last is stricter
        // than a single look at 95 % and looser than Bonferroni's 0.05/5.
        assert!(c.iter().all(|x| *x >= c[4]), "{c:?}");
        assert!(1.0 - c[4] < 0.05 && 1.0 - c[4] > 0.01, "{c:?}");
        assert_eq!(AutoPolicy::new(10).schedule(), [4, 6, 10]);
        assert_eq!(
            AutoPolicy::new(50).schedule(),
            [4, 6, 9, 13, 19, 27, 38, 50]
        );
        assert_eq!(AutoPolicy::new(4).schedule(), [4]);
        assert_eq!(AutoPolicy::new(4).confidences().unwrap(), [0.95]);
        assert_eq!(AutoPolicy::new(2).schedule(), [2]);

        let hp = haybittle_peto();
        assert_eq!(hp.schedule(), [2, 4, 8, 10]);
        let c = hp.confidences().unwrap();
        assert!(c[..3].iter().all(|c| (c - 0.999).abs() < 1e-12), "{c:?}");
        assert!(
            (c[3] - 0.953).abs() < 1e-12,
            "the last look gets the rest of alpha"
        );
        let greedy = AutoPolicy {
            spending: Spending::Interim(0.03),
            ..hp
        };
        assert!(greedy.confidences().is_err());
        // Where the spending function would make an interim look looser
        // than the last (front-loaded, or a first look late in a short
        // schedule), that look is held at the last's level.
        let late = AutoPolicy {
            first_round: 3,
            ..AutoPolicy::new(4)
        };
        assert_eq!(late.schedule(), [3, 4]);
        for p in [
            AutoPolicy {
                spending: Spending::Power(0.3),
                ..AutoPolicy::new(16)
            },
            late,
        ] {
            let c = p.confidences().unwrap();
            let last = c[c.len() - 1];
            assert!(c.iter().all(|x| *x >= last - 1e-12), "{c:?}");
            assert!(1.0 - last < 0.05, "{c:?}");
        }
    }

    #[test]
    fn stops_at_the_first_look_on_a_clear_suite() {
        let mut s = Script::new(&[(ONE, ZERO); 4]);
        let o = adaptive(&mut s, 4, &AutoPolicy::new(16), 100.0).unwrap();
        assert_eq!(o.stop, Stop::SuiteClear);
        assert_eq!(s.log.len(), 1);
        assert_eq!(o.runs, 4 * 2 * 4);
        assert_eq!(
            o.comparison.suite.advisory.direction(),
            Some(Direction::Above)
        );
        assert!((o.comparison.confidence - (1.0 - 0.05 * 4.0 / 16.0)).abs() < 1e-12);
        assert!((o.cost_usd - 0.32).abs() < 1e-9);
    }

    #[test]
    fn a_tie_at_the_top_runs_its_with_arm_alone() {
        // The trigger pair: fires 1 with, 0 without; quiet 1 on both arms,
        // no noise. After the first round the suite leans above 0, so the
        // quiet case's without arm (which can only be overestimated) buys
        // nothing more, while fires runs both arms.
        let mut s = Script::new(&[(ONE, ZERO), (ONE, ONE)]);
        let o = adaptive(&mut s, 2, &AutoPolicy::new(16), 100.0).unwrap();
        assert_eq!(o.stop, Stop::SuiteClear);
        assert_eq!(s.log[0], [RunRequest::both(0, 4), RunRequest::both(1, 4)]);
        for round in &s.log[1..] {
            assert_eq!(round[0].with, round[0].without, "{round:?}");
            assert_eq!((round[1].case, round[1].without), (1, 0), "{round:?}");
        }
        assert_eq!(o.samples[1].without.len(), 4);
        // Called at the second look (6 runs per arm): 12 + 6 + 4 runs, fewer
        // than the fixed --runs N that --runs 3's advice asks for.
        assert_eq!((s.log.len(), o.runs), (2, 22));
        let mut f = Script::new(&[(ONE, ZERO), (ONE, ONE)]);
        let three = fixed(&mut f, 2, 3, 100.0).unwrap();
        let super::super::Advisory::WithinNoise {
            runs_needed: Some(more),
            ..
        } = three.comparison.suite.advisory
        else {
            panic!("{:?}", three.comparison.suite.advisory)
        };
        assert!(o.runs < 2 * 2 * (3 + u64::from(more)), "{more}");

        // Without allocation every round buys both arms.
        let all = AutoPolicy {
            allocate: false,
            ..AutoPolicy::new(16)
        };
        let mut s = Script::new(&[(ONE, ZERO), (ONE, ONE)]);
        let o = adaptive(&mut s, 2, &all, 100.0).unwrap();
        assert!(s.log.iter().flatten().all(|r| r.with == r.without));
        assert_eq!(o.samples[1].without.len(), o.samples[1].with.len());
    }

    #[test]
    fn reruns_only_the_unresolved_cases() {
        // Case 0 is clear on its own after the first round; the suite is
        // not (three cases of pure noise), so only cases 1 to 3 run again.
        let policy = AutoPolicy {
            first_round: 5,
            spending: Spending::Interim(0.01),
            futility: 0.0,
            ..haybittle_peto()
        };
        assert_eq!(policy.schedule(), [5, 10]);
        let mut s = Script::new(&[
            (ONE, ZERO),
            (HALF, HALF_LATE),
            (HALF_LATE, HALF),
            (HALF_LATE, HALF),
        ]);
        let o = adaptive(&mut s, 4, &policy, 100.0).unwrap();
        assert!(o.comparison.cases[0].advisory.is_clear());
        assert_eq!(s.log[0].len(), 4);
        let second: Vec<usize> = s.log[1].iter().map(|r| r.case).collect();
        assert_eq!(second, [1, 2, 3]);
        assert!(s.log[1].iter().all(|r| (r.with, r.without) == (5, 5)));
        assert_eq!(o.samples[0].with.len(), 5);
        assert_eq!(o.samples[1].with.len(), 10);
        // Ten runs of the noisy cases pin them near 0: case 0 now carries the suite.
        assert_eq!(o.stop, Stop::SuiteClear);
        assert_eq!(o.runs, 2 * (5 + 3 * 10));
    }

    #[test]
    fn gives_up_when_nothing_can_come_of_it() {
        // Every run passes in both arms: no difference, and no noise to hope
        // in. The default gives up at its first look; a policy that waits
        // for 4 runs at its second.
        let mut s = Script::new(&[(ONE, ONE); 4]);
        let o = adaptive(&mut s, 4, &AutoPolicy::new(16), 100.0).unwrap();
        assert_eq!(o.stop, Stop::Futile);
        assert_eq!(s.log.len(), 1);
        let mut s = Script::new(&[(ONE, ONE); 4]);
        assert_eq!(
            adaptive(&mut s, 4, &haybittle_peto(), 100.0).unwrap().stop,
            Stop::Futile
        );
        assert_eq!(s.log.len(), 2);
        let super::super::Advisory::WithinNoise { runs_needed, .. } = o.comparison.suite.advisory
        else {
            panic!("{:?}", o.comparison.suite.advisory)
        };
        assert_eq!(runs_needed, None);
    }

    #[test]
    fn respects_the_ceiling_and_a_source_that_stops() {
        // Rounds of 16, 16 and 32 runs at 0.01: after 0.32 the third round
        // would likely cost 0.32 more, past the 0.5 ceiling.
        let mut s = Script::new(&[(HALF, HALF_LATE); 4]);
        let policy = AutoPolicy {
            futility: 0.0,
            ..haybittle_peto()
        };
        let o = adaptive(&mut s, 4, &policy, 0.5).unwrap();
        assert_eq!(o.stop, Stop::CeilingSpent);
        assert_eq!(s.log.len(), 2);

        let mut s = Script::new(&[(HALF, HALF_LATE); 4]);
        s.stop_after = Some(1);
        let o = adaptive(&mut s, 4, &policy, 100.0).unwrap();
        assert_eq!(
            o.stop,
            Stop::SourceStopped {
                reason: "cost_ceiling".into()
            }
        );
        // The first round's 2 runs, then the 1 the stopped round gave.
        assert_eq!(o.samples[0].with.len(), 3);
    }

    #[test]
    fn settles_beats_best_on_the_with_arms() {
        // Every case passes with the item and fails without: `helps` is
        // clear at the first look. The best scored 1.0 on 3 runs of each of
        // 2 cases, so `beats-best` (with 1.0 against it) can never be clear:
        // a tie with the best is no effect, and auto gives up at once.
        let best = Against {
            score: 1.0,
            with_arms: vec![(3.0, 3), (3.0, 3)],
            ..Against::default()
        };
        let p = AutoPolicy::new(16);
        let mut s = Script::new(&[(ONE, ZERO), (ONE, ZERO)]);
        let o = adaptive_against(&mut s, 2, &p, 100.0, Some(&best)).unwrap();
        assert!(o.comparison.suite.advisory.is_clear());
        assert_eq!((o.stop, s.log.len()), (Stop::Futile, 1));

        // Against a best of 0.75 on 4 runs a case: `helps` is clear at once;
        // `beats-best` needs more with-arm runs, and they come alone.
        let best = Against {
            score: 0.75,
            with_arms: vec![(3.0, 4); 4],
            ..Against::default()
        };
        let mut s = Script::new(&[(ONE, ZERO); 4]);
        let o = adaptive_against(&mut s, 4, &p, 100.0, Some(&best)).unwrap();
        assert!(o.comparison.suite.advisory.is_clear());
        assert!(s.log.len() > 1, "{:?}", s.log);
        assert!(
            s.log[1..]
                .iter()
                .flatten()
                .all(|r| r.without == 0 && r.with > 0),
            "{:?}",
            s.log
        );
        assert_ne!(o.stop, Stop::SuiteClear);

        // A best as an exact line below every score: clear at once.
        let line = Against {
            score: 0.4,
            ..Against::default()
        };
        let mut s = Script::new(&[(ONE, ZERO); 4]);
        let o = adaptive_against(&mut s, 4, &p, 100.0, Some(&line)).unwrap();
        assert_eq!((o.stop, s.log.len()), (Stop::Settled, 1));
        // And a line above every score: clearly failed, also at once.
        let line = Against {
            score: 0.99,
            ..Against::default()
        };
        let mut s = Script::new(&[(ZERO, ZERO); 4]);
        let o = adaptive_against(&mut s, 4, &p, 100.0, Some(&line)).unwrap();
        assert_eq!((o.stop, s.log.len()), (Stop::Settled, 1));
    }

    #[test]
    fn settles_a_trigger_rate_below_the_best_s() {
        // The trigger rate (2 of the first 3 results fired) is below the
        // best's 6 of 6 but not clearly (two-sample): once `helps` and
        // `beats-best` are clear, auto buys with-arm runs of the case with
        // trigger results only.
        struct Triggers(Script, Vec<bool>);
        impl RunSource for Triggers {
            type Error = String;
            fn run(&mut self, r: &[RunRequest], b: f64) -> Result<Round, String> {
                let mut round = self.0.run(r, b)?;
                for c in round.cases.iter_mut().filter(|c| c.case == 0) {
                    let k = self.1.len().min(c.with.len());
                    let drawn: Vec<bool> = self.1.drain(..k).collect();
                    c.trigger = TriggerCount {
                        fired: drawn.iter().filter(|f| **f).count() as u32,
                        results: drawn.len() as u32,
                    };
                }
                Ok(round)
            }
        }
        let draws: Vec<bool> = [true, false, true]
            .into_iter()
            .chain(std::iter::repeat_n(true, 60))
            .collect();
        let best = Against {
            score: 0.1,
            trigger_rate: Some(1.0),
            trigger: Some(TriggerCount {
                fired: 6,
                results: 6,
            }),
            ..Against::default()
        };
        let mut s = Triggers(Script::new(&[(ONE, ZERO), (ONE, ONE)]), draws);
        let o = adaptive_against(&mut s, 2, &AutoPolicy::new(16), 100.0, Some(&best)).unwrap();
        // `helps` settles at the second look (as for the pair alone); then
        // the last three rounds buy the firing case's with arm alone.
        let log = &s.0.log;
        assert_eq!(log.len(), 5, "{log:?}");
        assert!(
            log[2..]
                .iter()
                .flatten()
                .all(|r| r.case == 0 && r.without == 0 && r.with > 0),
            "{log:?}"
        );
        // Every later result fired: the rate climbs towards the best's but
        // stays below it (15 of 16 at MAX), never clearly below.
        assert_eq!(o.stop, Stop::MaxReached);
        assert_eq!(
            o.samples[0].trigger,
            TriggerCount {
                fired: 15,
                results: 16
            }
        );
    }

    #[test]
    fn refuses_a_source_that_breaks_the_contract() {
        struct Bad;
        impl RunSource for Bad {
            type Error = String;
            fn run(&mut self, _: &[RunRequest], _: f64) -> Result<Round, String> {
                Ok(Round {
                    cases: vec![CaseRuns {
                        case: 0,
                        with: vec![1.5],
                        without: vec![0.0],
                        cost_usd: 0.0,
                        trigger: Default::default(),
                    }],
                    partial_reason: None,
                })
            }
        }
        let err = adaptive(&mut Bad, 1, &AutoPolicy::new(16), 1.0).unwrap_err();
        assert!(err.to_string().contains("outside 0..1"), "{err}");

        struct Failing;
        impl RunSource for Failing {
            type Error = String;
            fn run(&mut self, _: &[RunRequest], _: f64) -> Result<Round, String> {
                Err("claude exited 3".into())
            }
        }
        let err = fixed(&mut Failing, 2, 3, 1.0).unwrap_err();
        assert_eq!(err.to_string(), "the run source failed: claude exited 3");
    }

    #[test]
    fn fixed_runs_one_round_at_95() {
        let mut s = Script::new(&[(ONE, ZERO), (HALF, HALF)]);
        let o = fixed(&mut s, 2, 3, 100.0).unwrap();
        assert_eq!((o.stop.clone(), o.runs, s.log.len()), (Stop::Fixed, 12, 1));
        assert_eq!(o.comparison.confidence, 0.95);
    }

    #[test]
    fn deterministic() {
        let run = || {
            let mut s = Script::new(&[(ONE, HALF), (HALF, HALF_LATE), (HALF, ZERO)]);
            serde_json::to_string(&adaptive(&mut s, 3, &AutoPolicy::new(16), 10.0).unwrap())
                .unwrap()
        };
        assert_eq!(run(), run());
    }
}
