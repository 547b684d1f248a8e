//! What a `--runs auto` evaluation is expected to buy, said before it buys
//! (the price line's "about"): the design itself, driven on simulated
//! suites from the same archive, each suite's rates drawn from what the
//! archive says of them. A fixed design's runs would overstate it: the
//! looks stop most evaluations well before MAX (docs/statistics.md, "The
//! price's expected runs").

use super::{AutoPolicy, CaseRuns, Round, RunRequest, RunSource, adaptive_from};
use crate::stats::simulate::SplitMix;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Mutex, OnceLock};

/// Simulated evaluations per mean: its standard error is 4–6 % of it at
/// the spread of runs auto shows (measured over 1,000 evaluations: 2
/// coin-flip cases at +0.2 and at 0, the pinned trigger pair from an
/// archive). Both means take 0.05–0.25 s on one core of a release build
/// (1 to 50 cases, minimum effects 0.05 and 0.2, nothing stored: the
/// slowest case).
pub const EVALUATIONS: u32 = 100;

/// The runs an evaluation is expected to buy, both arms, top-ups included.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedRuns {
    /// When the change is the minimum effect.
    pub at_effect: f64,
    /// When the change does nothing.
    pub at_zero: f64,
    /// Simulated evaluations each mean is taken over.
    pub evaluations: u32,
}

/// The with and without rates of a suite whose without arms pass
/// `without[c]` of the time and whose delta is `d`: each case's with arm
/// that plus `d` moved evenly across the cases, a case at its ceiling
/// passing the rest of its share to the others (less than `d` only when
/// every with arm reaches 1).
pub fn spread(without: &[f64], d: f64) -> Vec<(f64, f64)> {
    let cases = without.len();
    let mut order: Vec<usize> = (0..cases).collect();
    order.sort_by(|&a, &b| without[b].total_cmp(&without[a]));
    let mut left = d * cases as f64;
    let mut rates: Vec<(f64, f64)> = without.iter().map(|&p| (p, p)).collect();
    for (i, &c) in order.iter().enumerate() {
        let even = left / (cases - i) as f64;
        let step = even.min(1.0 - without[c]).max(0.0);
        rates[c].0 = without[c] + step;
        left -= step;
    }
    rates
}

/// A case's without-arm rate for one simulated evaluation: with stored
/// runs, a draw from what they say of it (Jeffreys' posterior, Beta(s + ½,
/// n − s + ½)), so the price counts what an archive that is off costs;
/// with none, ½, the noisiest, as the plan takes it.
fn without_rate(rng: &mut SplitMix, runs: Option<&Vec<f64>>) -> f64 {
    match runs.filter(|r| !r.is_empty()) {
        Some(runs) => {
            let s: f64 = runs.iter().sum();
            rng.beta(s + 0.5, runs.len() as f64 - s + 0.5)
        }
        None => 0.5,
    }
}

/// Bernoulli runs at fixed rates: each case's arms pass (1.0) with their
/// rate, each run costing 1, so the cost is the runs.
struct Simulated {
    rates: Vec<(f64, f64)>,
    rng: SplitMix,
}

impl RunSource for Simulated {
    type Error = Infallible;

    fn run(&mut self, requests: &[RunRequest], _budget: f64) -> Result<Round, Infallible> {
        let cases = requests
            .iter()
            .map(|r| {
                let (with, without) = self.rates[r.case];
                CaseRuns {
                    case: r.case,
                    with: self.rng.runs(with, r.with as usize),
                    without: self.rng.runs(without, r.without as usize),
                    cost_usd: r.runs() as f64,
                    trigger: Default::default(),
                }
            })
            .collect();
        Ok(Round {
            cases,
            partial_reason: None,
        })
    }
}

/// The mean runs `policy` buys over [`EVALUATIONS`] simulated evaluations
/// of a `cases`-case suite from the archive `stored`, at a change of `d`
/// ([`spread`]) and at none. The seed is fixed, so the same suite
/// and archive are priced the same every time.
pub fn expected_runs(
    policy: &AutoPolicy,
    cases: usize,
    stored: &[Vec<f64>],
    d: f64,
) -> ExpectedRuns {
    if stored.iter().all(Vec::is_empty) {
        // With no archive the figures depend on the design, the cases and
        // the effect alone: a sweep's dry run prices each shape once.
        static SEEN: OnceLock<Mutex<HashMap<String, ExpectedRuns>>> = OnceLock::new();
        let key = format!("{cases} {d} {policy:?}");
        let seen = SEEN.get_or_init(Default::default);
        if let Some(e) = seen.lock().ok().and_then(|m| m.get(&key).copied()) {
            return e;
        }
        let e = simulate(policy, cases, stored, d);
        if let Ok(mut m) = seen.lock() {
            m.insert(key, e);
        }
        return e;
    }
    simulate(policy, cases, stored, d)
}

/// [`expected_runs`], simulated: each evaluation draws its suite's rates
/// ([`without_rate`], [`spread`]) and then its runs.
fn simulate(policy: &AutoPolicy, cases: usize, stored: &[Vec<f64>], d: f64) -> ExpectedRuns {
    let mean = |effect: f64, seed: u64| {
        let mut source = Simulated {
            rates: Vec::new(),
            rng: SplitMix(seed),
        };
        let total: u64 = (0..EVALUATIONS)
            .map(|_| {
                let without: Vec<f64> = (0..cases)
                    .map(|c| without_rate(&mut source.rng, stored.get(c)))
                    .collect();
                source.rates = spread(&without, effect);
                adaptive_from(&mut source, cases, policy, f64::INFINITY, None, stored)
                    .map_or(0, |o| o.runs)
            })
            .sum();
        total as f64 / f64::from(EVALUATIONS)
    };
    ExpectedRuns {
        at_effect: mean(d, 0x9A1C_E0FF),
        at_zero: mean(0.0, 0x9A1C_E000),
        evaluations: EVALUATIONS,
    }
}

#[cfg(test)]
mod tests {
    use super::{AutoPolicy, expected_runs, spread};
    use crate::stats::PLANNED_CAP;

    #[test]
    fn the_change_is_spread_evenly_and_a_case_at_its_ceiling_passes_the_rest_on() {
        assert_eq!(spread(&[0.5, 0.5], 0.2), vec![(0.7, 0.5), (0.7, 0.5)]);
        // A quiet case near 1 can rise by 0.02; the fires case near 0
        // takes the rest of the suite's +0.4.
        let r = spread(&[0.02, 0.98], 0.2);
        let delta = (r[0].0 - r[0].1 + r[1].0 - r[1].1) / 2.0;
        assert!((delta - 0.2).abs() < 1e-12, "{r:?}");
        assert!(
            (r[1].0 - 1.0).abs() < 1e-12 && (r[0].0 - 0.40).abs() < 1e-12,
            "{r:?}"
        );
        // No room at all: every with arm at 1.
        assert!((spread(&[1.0], 0.2)[0].0 - 1.0).abs() < 1e-12);
    }

    #[test]
    fn auto_is_expected_to_buy_less_than_its_most_and_more_for_a_change_than_for_none() {
        // 2 coin-flip cases, MAX 80, nothing stored: the plan's table gives
        // 124.6 runs at no change and 145.8 at +0.2 over 2,000 suites.
        let policy = AutoPolicy::new(PLANNED_CAP).planned_for(2, 0.2);
        let e = expected_runs(&policy, 2, &[], 0.2);
        assert!((110.0..140.0).contains(&e.at_zero), "{e:?}");
        assert!((130.0..160.0).contains(&e.at_effect), "{e:?}");
        assert!(e.at_effect < f64::from(4 * policy.max_per_arm));
        // The same call prices the same, simulated again or not.
        assert_eq!(e, expected_runs(&policy, 2, &[], 0.2));
        assert_eq!(e, super::simulate(&policy, 2, &[], 0.2));
        // Another design or effect is its own figure.
        let capped = AutoPolicy::new(16).planned_for(2, 0.2);
        assert!(expected_runs(&capped, 2, &[], 0.2).at_effect < e.at_effect);
        assert!(expected_runs(&policy, 2, &[], 0.3).at_effect < e.at_effect);
        // From an archive of 20 pinned runs per case it costs far less.
        let pinned = vec![vec![0.0; 20], vec![1.0; 20]];
        let stored = expected_runs(&policy, 2, &pinned, 0.2);
        assert!(stored.at_effect < e.at_effect / 2.0, "{stored:?}");
    }
}
