//! `--runs auto`: buy runs in rounds, only for the cases still unresolved,
//! and stop as soon as the suite's call is clear, cannot become clear, or
//! the runs or money run out.
//!
//! # The stopping rule and why it keeps the false-call rate at α
//!
//! The rounds follow a schedule fixed before the first run: cumulative runs
//! per arm of a case n₁ < n₂ < … < n_L = MAX (by default 2, 4, 8, 10 for MAX 10:
//! [`AutoPolicy::schedule`]). Look k, after round k, is allowed a false-call
//! probability αₖ, also fixed in advance, with α₁ + … + α_L = α (5 %): each
//! interim look gets a small αₖ ([`AutoPolicy::interim_alpha`], 0.001) and the
//! last look the rest (0.047): a Haybittle–Peto-style design whose budget is
//! split exactly rather than approximately. At look k every interval is
//! computed at confidence 1 − αₖ, and:
//!
//! 1. if the suite's delta interval excludes 0, the call is clear: stop (the
//!    gate decides on the suite, so nothing more is needed even if some case
//!    is still open);
//! 2. if this was the last look (MAX runs), stop: *within noise*;
//! 3. a case whose own delta interval excludes 0 is resolved and runs no
//!    more; if every case is resolved, stop;
//! 4. if the chance of a clear call by the last look, were the true effect
//!    the one observed, is below [`AutoPolicy::futility`] (conditional power
//!    under the current trend), stop: *within noise*, more runs would most
//!    likely not settle it (not before [`AutoPolicy::futility_from`] runs);
//! 5. otherwise the unresolved cases run up to n_{k+1} (or stop with
//!    [`Stop::CeilingSpent`] when that round would likely cost more than is
//!    left of the ceiling).
//!
//! A false call means a false call at some look k, so P(false call) ≤
//! Σₖ P(false call at look k) ≤ Σₖ αₖ = α: the union (Bonferroni) bound,
//! which holds however strongly the looks depend on each other, and holds for
//! each case's own call as for the suite's. Stopping early for futility or
//! money only removes later chances to make a call, so it cannot raise the
//! rate. An interim look is never allowed to be looser than the last, so a
//! case called clear at an interim look is still clear on the same data at
//! the end. What is approximate: αₖ is the nominal level of a score interval
//! (close to, not exactly, its coverage at a handful of runs), and rule 3
//! lets per-case run counts depend on earlier data. The benchmark
//! (`benches/adaptive.rs`) measures the resulting rate on simulated suites
//! with known truth: 3.5 % of 20,000 suites with no true difference.

use super::interval::{Part, normal_cdf, variance_at, z_for};
use super::{Comparison, compare_with_parts};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Ask for more runs of one case: `runs_per_arm` more in each arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRequest {
    /// Index of the case in the suite's case list (the platform runs it by
    /// name with `--case`).
    pub case: usize,
    /// More runs in each of the with and without arms.
    pub runs_per_arm: u32,
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
/// --runs N --max-cost-usd B`) or a simulation. The driver asks for the same
/// `runs_per_arm` for every case of a round, so one platform call with one
/// `--case` per request serves a round.
pub trait RunSource {
    /// Why a round could not run at all.
    type Error;

    /// Run each requested case `runs_per_arm` more times in both arms,
    /// spending at most `budget_usd`. Scores must be in `[0, 1]`.
    fn run(&mut self, requests: &[RunRequest], budget_usd: f64) -> Result<Round, Self::Error>;
}

/// How `--runs auto` buys runs; [`AutoPolicy::new`] gives the defaults the
/// benchmark measured.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AutoPolicy {
    /// Runs per arm of every case in the first round (default 2).
    pub first_round: u32,
    /// Most runs per arm of a case: `auto:MAX` (default 10).
    pub max_per_arm: u32,
    /// Each round takes the cumulative runs per arm to about this many times
    /// the previous (default 2: 2, 4, 8, 10 for MAX 10).
    pub growth: f64,
    /// The false-call budget over all looks (default 0.05).
    pub alpha: f64,
    /// The false-call budget of each interim look (default 0.001); the last
    /// look gets `alpha - interim_alpha * (looks - 1)`.
    pub interim_alpha: f64,
    /// Stop when the chance of a clear call by the last look, if the true
    /// effect equals the observed one, is below this (default 0.1; 0 never).
    pub futility: f64,
    /// No futility stop before a look at this many runs per arm (default 4):
    /// the trend of a couple of runs is too rough to give up on.
    pub futility_from: u32,
}

impl AutoPolicy {
    /// The defaults with `max_per_arm` runs per arm at most.
    pub fn new(max_per_arm: u32) -> Self {
        AutoPolicy {
            first_round: 2,
            max_per_arm,
            growth: 2.0,
            alpha: 0.05,
            interim_alpha: 0.001,
            futility: 0.1,
            futility_from: 4,
        }
    }

    /// The defaults for the gate's confidence mode at `level`: the one-sided
    /// error budget 1 − level is the two-sided α = 2(1 − level), so the last
    /// look's one-sided level is at least `level` and a result bought this
    /// way is judged by the gate at the level it was bought for.
    pub fn for_level(max_per_arm: u32, level: f64) -> Self {
        AutoPolicy {
            alpha: 2.0 * (1.0 - level),
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

    /// The confidence of every interval at each look: 1 − αₖ.
    pub fn confidences(&self) -> Result<Vec<f64>, String> {
        let looks = self.schedule().len();
        let interim = self.interim_alpha * (looks - 1) as f64;
        let last = self.alpha - interim;
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(format!("alpha {} is not between 0 and 1", self.alpha));
        }
        if looks > 1 && !(self.interim_alpha > 0.0 && last >= self.interim_alpha) {
            return Err(format!(
                "{looks} looks at interim alpha {} leave {last} of alpha {} for the last; an interim look may not be looser than the last, or a case called clear early could read as noise at the end",
                self.interim_alpha, self.alpha
            ));
        }
        Ok((0..looks)
            .map(|k| {
                if k + 1 < looks {
                    1.0 - self.interim_alpha
                } else {
                    1.0 - last
                }
            })
            .collect())
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
        .map(|case| RunRequest { case, runs_per_arm })
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
    let schedule = policy.schedule();
    let confidences = policy.confidences().map_err(AutoError::Policy)?;
    let z_last = z_for(confidences[confidences.len() - 1]);
    let mut d = Driver::new(cases);
    let mut active: Vec<bool> = vec![true; cases];
    let mut reached = vec![0u32; cases];
    for (look, (&target, &confidence)) in schedule.iter().zip(&confidences).enumerate() {
        let requests: Vec<RunRequest> = (0..cases)
            .filter(|&c| active[c])
            .map(|case| RunRequest {
                case,
                runs_per_arm: target - reached[case],
            })
            .collect();
        if look > 0 && d.likely_cost(&requests) > ceiling_usd - d.spent {
            let comparison = super::compare(&d.samples, d.last_confidence);
            return Ok(d.finish(comparison, Stop::CeilingSpent));
        }
        let stopped = d.round(source, &requests, ceiling_usd - d.spent, confidence)?;
        for r in &requests {
            reached[r.case] = target;
        }
        let (comparison, parts) = compare_with_parts(&d.samples, confidence);
        if let Some(stop) = stopped {
            return Ok(d.finish(comparison, stop));
        }
        if comparison.suite.advisory.is_clear() {
            return Ok(d.finish(comparison, Stop::SuiteClear));
        }
        if look + 1 == schedule.len() {
            return Ok(d.finish(comparison, Stop::MaxReached));
        }
        for c in &comparison.cases {
            if c.advisory.is_clear() {
                active[c.case] = false;
            }
        }

        if !active.contains(&true) {
            return Ok(d.finish(comparison, Stop::AllCasesResolved));
        }
        let power = conditional_power(
            comparison.suite.delta.value,
            &parts,
            &active,
            policy.max_per_arm,
            z_last,
        );
        if target >= policy.futility_from && power < policy.futility {
            return Ok(d.finish(comparison, Stop::Futile));
        }
    }
    unreachable!("the schedule ends at its last look")
}

/// The chance that the suite's delta is clear at the last look if the true
/// delta equals `delta` now, with every still-active case run to `max` runs
/// per arm (the usual conditional power under the current trend).
///
/// The last look tests "no difference" with the variance the score interval
/// uses there ([`variance_at`] 0); an active arm's share shrinks as n/max.
/// With V now and V′ at the last look, the information fraction is
/// t = V′/V and the last look's statistic, given today's data, is normal
/// with mean (|delta| − cc′)/√V′ and variance 1 − t.
fn conditional_power(delta: f64, parts: &[Part], active: &[bool], max: u32, z_last: f64) -> f64 {
    let now = variance_at(parts, 0.0);
    let mut projected = parts.to_vec();
    let (mut v_now, mut v_last) = (0.0, 0.0);
    for (i, (v, p)) in now.iter().zip(projected.iter_mut()).enumerate() {
        v_now += v;
        let case = i / 2;
        if active[case] && p.n > 0 {
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
    let drift = (delta.abs() - cc) / v_last.sqrt();
    let t = v_last / v_now;
    if t >= 1.0 - 1e-12 {
        return if drift > z_last { 1.0 } else { 0.0 };
    }
    1.0 - normal_cdf((z_last - drift) / (1.0 - t).sqrt())
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
        let runs: u64 = requests.iter().map(|r| 2 * u64::from(r.runs_per_arm)).sum();
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
            let want = asked.runs_per_arm as usize;
            short |= got.with.len() < want || got.without.len() < want;
            let s = &mut self.samples[got.case];
            s.with.extend(got.with.iter().take(want));
            s.without.extend(got.without.iter().take(want));
            s.cost_usd += got.cost_usd;
            cost += got.cost_usd;
            self.runs += (got.with.len().min(want) + got.without.len().min(want)) as u64;
        }
        short |= requests
            .iter()
            .any(|r| r.runs_per_arm > 0 && !round.cases.iter().any(|c| c.case == r.case));
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
        drawn: Vec<usize>,
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
                drawn: vec![0; arms.len()],
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
                    let start = self.drawn[r.case];
                    let runs = if partial { 1 } else { r.runs_per_arm as usize };
                    self.drawn[r.case] += runs;
                    let take = |a: &[f64]| -> Vec<f64> {
                        (start..start + runs).map(|i| a[i % a.len()]).collect()
                    };
                    CaseRuns {
                        case: r.case,
                        with: take(w),
                        without: take(wo),
                        cost_usd: 2.0 * runs as f64 * self.cost_per_run,
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

    #[test]
    fn schedule_and_levels() {
        let p = AutoPolicy::new(10);
        assert_eq!(p.schedule(), [2, 4, 8, 10]);
        let c = p.confidences().unwrap();
        assert_eq!(c.len(), 4);
        assert!(c[..3].iter().all(|c| (c - 0.999).abs() < 1e-12), "{c:?}");
        assert!(
            (c[3] - 0.953).abs() < 1e-12,
            "the last look gets the rest of alpha"
        );
        assert_eq!(AutoPolicy::new(50).schedule(), [2, 4, 8, 16, 32, 50]);
        assert_eq!(AutoPolicy::new(2).schedule(), [2]);
        assert_eq!(AutoPolicy::new(2).confidences().unwrap(), [0.95]);
        let greedy = AutoPolicy {
            interim_alpha: 0.03,
            ..AutoPolicy::new(10)
        };
        assert!(greedy.confidences().is_err());
    }

    #[test]
    fn stops_at_the_first_look_on_a_clear_suite() {
        let mut s = Script::new(&[(ONE, ZERO); 4]);
        let o = adaptive(&mut s, 4, &AutoPolicy::new(10), 100.0).unwrap();
        assert_eq!(o.stop, Stop::SuiteClear);
        assert_eq!(s.log.len(), 1);
        assert_eq!(o.runs, 4 * 2 * 2);
        assert_eq!(
            o.comparison.suite.advisory.direction(),
            Some(super::super::Direction::Above)
        );
        assert!((o.comparison.confidence - 0.999).abs() < 1e-12);
        assert!((o.cost_usd - 0.16).abs() < 1e-9);
    }

    #[test]
    fn reruns_only_the_unresolved_cases() {
        // Case 0 is clear on its own after the first round; the suite is
        // not (three cases of pure noise), so only cases 1 to 3 run again.
        let policy = AutoPolicy {
            first_round: 5,
            interim_alpha: 0.01,
            futility: 0.0,
            ..AutoPolicy::new(10)
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
        assert!(s.log[1].iter().all(|r| r.runs_per_arm == 5));
        assert_eq!(o.samples[0].with.len(), 5);
        assert_eq!(o.samples[1].with.len(), 10);
        // Ten runs of the noisy cases pin them near 0: case 0 now carries the suite.
        assert_eq!(o.stop, Stop::SuiteClear);
        assert_eq!(o.runs, 2 * (5 + 3 * 10));
    }

    #[test]
    fn gives_up_when_nothing_can_come_of_it() {
        // Every run passes in both arms: no difference, and no noise to hope
        // in. The first look (2 runs) may not give up; the second does.
        let mut s = Script::new(&[(ONE, ONE); 4]);
        let o = adaptive(&mut s, 4, &AutoPolicy::new(10), 100.0).unwrap();
        assert_eq!(o.stop, Stop::Futile);
        assert_eq!(s.log.len(), 2);
        let no_wait = AutoPolicy {
            futility_from: 2,
            ..AutoPolicy::new(10)
        };
        let mut s = Script::new(&[(ONE, ONE); 4]);
        assert_eq!(
            adaptive(&mut s, 4, &no_wait, 100.0).unwrap().stop,
            Stop::Futile
        );
        assert_eq!(s.log.len(), 1);
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
            ..AutoPolicy::new(10)
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
                    }],
                    partial_reason: None,
                })
            }
        }
        let err = adaptive(&mut Bad, 1, &AutoPolicy::new(10), 1.0).unwrap_err();
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
            serde_json::to_string(&adaptive(&mut s, 3, &AutoPolicy::new(10), 10.0).unwrap())
                .unwrap()
        };
        assert_eq!(run(), run());
    }
}
