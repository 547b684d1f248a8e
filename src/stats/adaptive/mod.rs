//! `--runs auto`: buy runs in rounds, only where they can still move the
//! call, and stop as soon as the call is clear, is clearly too small to
//! matter, cannot become clear, or the runs or money run out.
//!
//! # The stopping rule and why it keeps the false-call rate at α
//!
//! The rounds follow a schedule fixed before the first run: cumulative runs
//! per arm of a case n₁ < n₂ < … < n_L = MAX (by default a look after
//! every run from 3: 3, 4, …, 16 for MAX 16: [`AutoPolicy::schedule`]).
//! The error budget α (5 %) is spent over the looks by a function fixed
//! in advance ([`Spending`]): by default α·tₖ at information fraction
//! tₖ = nₖ/MAX (the Kim–DeMets power family with ρ = 1, close to Pocock's
//! design). Look k's critical value cₖ is the
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
//! 4. if the suite's delta interval lies inside ±[`AutoPolicy::margin`]
//!    (0.2), stop: the change is clearly too small to matter
//!    ([`Stop::Negligible`]); if the chance that an open comparison is
//!    clear by the last look is below [`AutoPolicy::futility`] (predictive
//!    power: averaged over the effects the data leave plausible), stop:
//!    *within noise* (neither before [`AutoPolicy::futility_from`] runs);
//!    when every arm's runs scored all 0 or all 1, that chance is instead
//!    the largest chance of runs this unanimous under a change of the
//!    margin, computed exactly (`next::pinned_chance`);
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
//! Stopping early for futility, the margin or money only removes later
//! chances to make a call (the boundaries are computed as if it never
//! happened: non-binding), so it cannot raise the rate. An interim look is
//! never looser than the last, so a call made early still holds on the same data at the end. What
//! is approximate: the score statistics of a handful of pass/fail runs are
//! only close to that joint normal, information is taken as proportional to
//! runs, and allocation lets an arm's run count depend on earlier data. The
//! benchmark (`benches/adaptive.rs`) measures the resulting rate on
//! simulated suites with known truth (`docs/statistics.md`). The earlier
//! design ([`Spending::Interim`]: Haybittle–Peto looks at 0.001 and a union
//! bound, which holds under any dependence) is kept for comparison.

use super::interval::{
    Estimate, Part, delta_interval_scaled, normal_cdf, score_interval, variance_at, z_for,
};
use super::{Comparison, Direction, TriggerCount, compare_with_parts};
use serde::{Deserialize, Serialize};
use std::fmt;

mod against;
pub use against::Against;
use against::{TriggerState, beats_best, beats_parts, direction, trigger_rate};
mod expected;
pub use expected::{EVALUATIONS, ExpectedRuns, expected_runs, spread};
mod next;
mod plan;
mod policy;
use next::{allocation, conditional_power, neyman, pinned_chance};
pub use plan::{PLANNED_CAP, archive_variance, towards_half};
pub use policy::{AutoPolicy, MARGIN, Spending, TOP_UP};
#[cfg(test)]
mod against_tests;
#[cfg(test)]
mod knobs_tests;
#[cfg(test)]
mod pinned_tests;
#[cfg(test)]
mod store_tests;
#[cfg(test)]
mod tests;

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
    /// The suite's delta is clearly smaller than [`AutoPolicy::margin`]
    /// either way: too small to be worth settling. (Its text names the
    /// default margin, the only one the command line uses.)
    Negligible,
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
            Stop::Negligible => write!(
                f,
                "the change is clearly smaller than the minimum effect of interest, either way"
            ),
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
    adaptive_from(source, cases, policy, ceiling_usd, best, &[])
}

/// [`adaptive_against`] starting from stored without-arm runs: `stored[c]`
/// holds the scores of case c's without-arm runs kept from earlier
/// evaluations of the same key (no item digest on that arm, so they hold
/// for any version of the item); empty or missing: none.
///
/// The stored runs count as the without arm from the first look. The first
/// round still buys [`AutoPolicy::top_up`] fresh without-arm runs of every
/// case that has stored ones (paired with its first with-arm runs, as the
/// platform buys them); later rounds buy a case's without arm only while it
/// has fewer runs than its with arm. The budget is spent by information
/// ([`AutoPolicy::confidences_from`]). The outcome's `runs` and
/// `cost_usd` count what was bought; its samples hold the stored runs too,
/// first.
pub fn adaptive_from<S: RunSource>(
    source: &mut S,
    cases: usize,
    policy: &AutoPolicy,
    ceiling_usd: f64,
    best: Option<&Against>,
    stored: &[Vec<f64>],
) -> Result<AutoOutcome, AutoError<S::Error>> {
    let policy = &policy.for_archive(cases, stored);
    let schedule = policy.schedule();
    let kept = |c: usize| stored.get(c).map_or(0, Vec::len) as u32;
    let top_up = policy.top_up.min(schedule[0]);
    let start: Vec<u32> = (0..cases)
        .map(|c| match kept(c) {
            0 => 0,
            n => n + top_up,
        })
        .collect();
    let confidences = policy.confidences_from(&start).map_err(AutoError::Policy)?;
    let z_last = z_for(confidences[confidences.len() - 1]);
    let mut d = Driver::new(cases);
    // Cases still open for `helps` (all of them unless `resolve_cases`).
    let mut active: Vec<bool> = vec![true; cases];
    // Which arms of each case run next ([with, without]), and their runs so far.
    let mut arms = vec![[true, true]; cases];
    let mut reached = vec![[0u32; 2]; cases];
    for (c, runs) in stored.iter().enumerate().take(cases) {
        if runs.iter().any(|s| !(0.0..=1.0).contains(s)) {
            return Err(AutoError::Contract(format!(
                "case {c}: a stored score is outside 0..1"
            )));
        }
        d.samples[c].without.clone_from(runs);
        reached[c][1] = kept(c);
    }
    for (look, (&target, &confidence)) in schedule.iter().zip(&confidences).enumerate() {
        let requests: Vec<RunRequest> = if policy.neyman && look > 0 {
            neyman(
                &d.samples,
                &arms,
                &reached,
                target,
                policy.max_per_arm,
                policy.neyman_prior,
                &start,
            )
        } else {
            (0..cases)
                .map(|case| {
                    let more = |arm: usize| {
                        if arms[case][arm] {
                            target.saturating_sub(reached[case][arm])
                        } else {
                            0
                        }
                    };
                    let mut without = more(1);
                    if look == 0 && reached[case][1] > 0 {
                        // The top-up: fresh runs beside the stored ones.
                        without = without.max(top_up.min(more(0)));
                    }
                    RunRequest {
                        case,
                        with: more(0),
                        without,
                    }
                })
                .filter(|r| r.runs() > 0)
                .collect()
        };
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
        let (mut comparison, parts) = compare_with_parts(&d.samples, confidence);
        if look + 1 < schedule.len() && policy.interim_continuity != 1.0 {
            let s = &mut comparison.suite;
            s.delta = delta_interval_scaled(&parts, confidence, policy.interim_continuity);
            s.advisory = super::advise(&s.delta, 0.0, s.runs_per_arm);
        }
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
        // The margin: a change clearly too small to matter needs no more runs.
        if helps.is_none() && policy.margin > 0.0 {
            let inside =
                |d: &Estimate| d.interval.low > -policy.margin && d.interval.high < policy.margin;
            let negligible = if policy.margin_confidence > 0.0 {
                inside(&score_interval(&parts, policy.margin_confidence))
            } else {
                inside(&comparison.suite.delta)
            };
            if negligible {
                return Ok(d.finish(comparison, Stop::Negligible));
            }
        }
        // Futility: any open comparison the call needs that would most likely
        // not be settled by MAX.
        // With a margin and every arm pinned, the chance of runs this
        // unanimous under a change of the margin decides, exactly.
        let grows: Vec<bool> = (0..2 * cases).map(|i| arms[i / 2][i % 2]).collect();
        let pinned = (policy.margin > 0.0)
            .then(|| pinned_chance(&parts, policy.margin))
            .flatten();
        let mut hopeless = helps.is_none()
            && pinned.unwrap_or_else(|| {
                conditional_power(
                    comparison.suite.delta.value,
                    0.0,
                    &parts,
                    &grows,
                    policy,
                    z_last,
                    policy.futility_shuffled,
                )
            }) < policy.futility;
        if let (Some((e, tie)), true) = (&beats, beats_open) {
            let (beats_parts, beats_grows) = beats_parts(&d.samples, best.expect("beats"), &arms);
            hopeless |= conditional_power(
                e.value,
                *tie,
                &beats_parts,
                &beats_grows,
                policy,
                z_last,
                false,
            ) < policy.futility;
        }
        if hopeless {
            return Ok(d.finish(comparison, Stop::Futile));
        }
    }
    unreachable!("the schedule ends at its last look")
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
