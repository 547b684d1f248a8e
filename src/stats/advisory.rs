//! How sure a comparison is: *clear* when its interval excludes the tie, or
//! *within noise* with the interval and an estimate of the runs that would
//! settle it. The gate's rule does not change; this is advice beside it.

use super::interval::{Estimate, Interval, Part, normal_quantile, score_interval, wilson_at};
use serde::{Deserialize, Serialize};

/// The power the run estimate plans for: with that many more runs, an effect
/// of the observed size would be called clear about this often.
pub const PLANNED_POWER: f64 = 0.8;

/// Which side of the tie the interval lies on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// The whole interval is above the tie (for a delta: a clear improvement).
    Above,
    /// The whole interval is below the tie (for a delta: a clear regression).
    Below,
}

/// The advisory on one comparison of an estimate with a tie (0 for a delta,
/// the best score for `with`, the best's trigger rate for a trigger rate).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "advisory", rename_all = "kebab-case")]
pub enum Advisory {
    /// The interval excludes the tie: more runs would very likely not change
    /// the side.
    Clear {
        /// The side the interval lies on.
        direction: Direction,
    },
    /// The interval holds the tie: the comparison could go either way by
    /// chance alone.
    WithinNoise {
        /// The interval that holds the tie.
        interval: Interval,
        /// More runs per arm of each case that would make an effect of the
        /// observed size clear with probability [`PLANNED_POWER`]; `None` when
        /// the estimate sits exactly on the tie (no finite number would).
        /// For a two-sample comparison ([`advise_two_sample`]): more runs of
        /// the new result alone, `None` also when the best's own runs are too
        /// few for any number of them.
        runs_needed: Option<u32>,
        /// The interval is of the difference from a best that kept its runs
        /// (two-sample), not of the estimate itself: its tie is 0.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        against_runs: bool,
    },
}

impl Advisory {
    /// The same, its interval to 4 decimals.
    pub fn rounded(self) -> Advisory {
        match self {
            Advisory::WithinNoise {
                interval,
                runs_needed,
                against_runs,
            } => Advisory::WithinNoise {
                interval: interval.rounded(),
                runs_needed,
                against_runs,
            },
            clear => clear,
        }
    }

    /// In words: `clear`, or `within noise: 95 % interval [a, b]; about N
    /// more runs per arm of each case would settle an effect this size`.
    pub fn in_words(&self) -> String {
        self.in_words_as(None)
    }

    /// [`Advisory::in_words`] with the interval named `name` instead of by
    /// its confidence (`auto's last-look interval`, where the level it is
    /// read at is said once elsewhere).
    pub fn in_words_as(&self, name: Option<&str>) -> String {
        match self {
            Advisory::Clear { .. } => "clear".into(),
            Advisory::WithinNoise {
                interval,
                runs_needed,
                against_runs,
            } => {
                let more = match (runs_needed, against_runs) {
                    (Some(n), false) => format!(
                        "about {n} more runs per arm of each case would settle an effect this size"
                    ),
                    (Some(n), true) => format!(
                        "about {n} more runs per arm of each case of this result would settle an effect this size, the best's runs counted"
                    ),
                    (None, false) => "no number of runs would settle a tie this close".into(),
                    (None, true) => "more runs of this result alone would not settle it: the best rests on too few runs of its own, or the two are level".into(),
                };
                let of = if *against_runs {
                    " of the difference from the best"
                } else {
                    ""
                };
                let name = name.map_or_else(
                    || format!("{:.0} % interval", interval.confidence * 100.0),
                    str::to_owned,
                );
                format!(
                    "within noise: {name}{of} [{:.2}, {:.2}]; {more}",
                    interval.low, interval.high
                )
            }
        }
    }

    /// True for [`Advisory::Clear`].
    pub fn is_clear(&self) -> bool {
        matches!(self, Advisory::Clear { .. })
    }

    /// The direction when clear.
    pub fn direction(&self) -> Option<Direction> {
        match self {
            Advisory::Clear { direction } => Some(*direction),
            Advisory::WithinNoise { .. } => None,
        }
    }
}

/// The advisory for `estimate` against `tie`, where the estimate rests on
/// `runs_per_arm` runs per arm of each case (a mean when cases differ).
///
/// Clear when the interval excludes the tie (the gate compares strictly, so a
/// limit equal to the tie is not clear). Otherwise [`runs_needed`].
pub fn advise(estimate: &Estimate, tie: f64, runs_per_arm: f64) -> Advisory {
    let i = estimate.interval;
    if i.low > tie {
        Advisory::Clear {
            direction: Direction::Above,
        }
    } else if i.high < tie {
        Advisory::Clear {
            direction: Direction::Below,
        }
    } else {
        Advisory::WithinNoise {
            interval: i,
            runs_needed: runs_needed(estimate, tie, runs_per_arm),
            against_runs: false,
        }
    }
}

/// The advisory on a two-sample comparison, Σ cᵢ·μᵢ over `parts` (the new
/// result's arms and a recorded best's) against 0 at two-sided
/// `confidence`: `beats-best` against a best that kept its runs. `grows[i]`
/// marks the new result's parts: the runs that would settle it are planned
/// for them alone (as the confidence mode plans them), the best's runs being
/// fixed, so its noise bounds what new runs can do.
pub fn advise_two_sample(parts: &[Part], grows: &[bool], confidence: f64) -> Advisory {
    let estimate = score_interval(parts, confidence);
    match advise(&estimate, 0.0, 0.0) {
        Advisory::WithinNoise { interval, .. } => Advisory::WithinNoise {
            interval,
            runs_needed: super::confidence::plan(
                parts,
                grows,
                estimate.value.abs(),
                0.5 + confidence / 2.0,
                false,
            ),
            against_runs: true,
        },
        clear => clear,
    }
}

/// Extra runs per arm of each case that would make an effect of the observed
/// size clear with probability [`PLANNED_POWER`].
///
/// The estimate's distance to the limit facing the tie, `h`, is `z` standard
/// errors; a standard error shrinks as 1/√n. If the true gap equals the
/// observed gap `g`, the interval at n′ runs excludes the tie with
/// probability 80 % when `g = (z + z₀.₈)·se·√(n/n′)`, so
/// `n′ = n·((z + z₀.₈)·h / (z·g))²` and the answer is `⌈n′ − n⌉` (at least 1).
/// At 0/n or n/n a Wilson limit shrinks faster than 1/√n, so there the figure
/// errs high. `None` when the estimate equals the tie or nothing ran.
pub fn runs_needed(estimate: &Estimate, tie: f64, runs_per_arm: f64) -> Option<u32> {
    let i = estimate.interval;
    let gap = (estimate.value - tie).abs();
    if gap <= 0.0 || runs_per_arm <= 0.0 {
        return None;
    }
    let h = if estimate.value > tie {
        estimate.value - i.low
    } else {
        i.high - estimate.value
    };
    let z = normal_quantile(0.5 + i.confidence / 2.0);
    let power = normal_quantile(PLANNED_POWER);
    let ratio = ((z + power) * h / (z * gap)).powi(2);
    let extra = (runs_per_arm * ratio - runs_per_arm).ceil().max(1.0);
    Some(if extra >= f64::from(u32::MAX) {
        u32::MAX
    } else {
        extra as u32
    })
}

/// The advisories beside the gate's conditions (`beats-best`, `helps`,
/// `trigger-rate`), from the suite's numbers. `not-partial` has none: it is
/// a fact, not an estimate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GateAdvice {
    /// `with` against the best recorded score (a fixed number; two-sample
    /// against a best that kept its runs, see [`advise_two_sample`]), or
    /// with no best, `delta` against 0 (the rule then compares `with` to
    /// `without`).
    pub beats_best: Advisory,
    /// `delta` against 0.
    pub helps: Advisory,
    /// The trigger rate against the best's, when both exist.
    pub trigger_rate: Option<Advisory>,
}

/// Trigger results of the with arm: how many fired out of how many.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriggerCount {
    /// `tool_used: Skill` results that passed.
    pub fired: u32,
    /// All such results.
    pub results: u32,
}

impl TriggerCount {
    /// The fired share with weight `coef` in a weighted sum of arms' means
    /// (a trigger rate compared with the best's).
    pub fn part(self, coef: f64) -> Part {
        Part {
            coef,
            sum: f64::from(self.fired),
            n: self.results as usize,
        }
    }
}

/// The gate's advisories from the suite's estimates (see
/// [`crate::stats::Comparison`]) and `best`, the recorded best score and
/// trigger rate for the model, if any. The best is a recorded number, so it
/// is compared as a fixed line, as the rule does; the trigger rate gets a
/// Wilson interval at the suite's confidence.
pub fn gate_advice(
    suite: &super::SuiteStats,
    best: Option<(f64, Option<f64>)>,
    trigger: Option<TriggerCount>,
) -> GateAdvice {
    let n = suite.runs_per_arm;
    let helps = advise(&suite.delta, 0.0, n);
    let beats_best = match best {
        Some((score, _)) => advise(&suite.with, score, n),
        None => helps,
    };
    let trigger_rate = match (best.and_then(|b| b.1), trigger) {
        (Some(best_rate), Some(t)) if t.results > 0 => {
            let estimate = Estimate {
                value: f64::from(t.fired) / f64::from(t.results),
                interval: wilson_at(t.fired, t.results, suite.delta.interval.confidence),
            };
            Some(advise(&estimate, best_rate, n))
        }
        _ => None,
    };
    GateAdvice {
        beats_best,
        helps,
        trigger_rate,
    }
}

#[cfg(test)]
mod tests {
    use super::super::interval::{CONFIDENCE, Method, case_delta};
    use super::*;

    fn est(value: f64, low: f64, high: f64) -> Estimate {
        Estimate {
            value,
            interval: Interval {
                low,
                high,
                confidence: CONFIDENCE,
                method: Method::Score,
            },
        }
    }

    #[test]
    fn clear_when_the_interval_excludes_the_tie() {
        assert_eq!(
            advise(&est(0.5, 0.1, 0.8), 0.0, 3.0),
            Advisory::Clear {
                direction: Direction::Above
            }
        );
        assert_eq!(
            advise(&est(-0.5, -0.8, -0.1), 0.0, 3.0).direction(),
            Some(Direction::Below)
        );
        // A limit equal to the tie is not clear: the gate compares strictly.
        assert!(!advise(&est(0.5, 0.0, 0.8), 0.0, 3.0).is_clear());
    }

    #[test]
    fn runs_needed_scales_with_the_square_of_the_noise() {
        // h = 0.4 for a gap of 0.2 at z = 1.96: n' = n((1.96+0.84)*0.4/(1.96*0.2))^2 = 8.16 n.
        let a = advise(&est(0.2, -0.2, 0.6), 0.0, 3.0);
        let Advisory::WithinNoise { runs_needed, .. } = a else {
            panic!("{a:?}")
        };
        assert_eq!(runs_needed, Some(22));
        // The same interval around a smaller effect needs more.
        assert!(runs_needed < runs_needed_of(est(0.1, -0.3, 0.5)));
        // On the tie: no number of runs resolves a zero effect.
        assert_eq!(runs_needed_of(est(0.0, -0.3, 0.3)), None);
    }

    fn runs_needed_of(e: Estimate) -> Option<u32> {
        match advise(&e, 0.0, 3.0) {
            Advisory::WithinNoise { runs_needed, .. } => runs_needed,
            Advisory::Clear { .. } => panic!("clear"),
        }
    }

    #[test]
    fn two_of_three_against_one_of_three_is_noise() {
        let d = case_delta(&[1.0, 1.0, 0.0], &[1.0, 0.0, 0.0], CONFIDENCE);
        let a = advise(&d, 0.0, 3.0);
        assert!(!a.is_clear(), "{a:?}");
        let json = serde_json::to_value(a).unwrap();
        assert_eq!(json["advisory"], "within-noise");
        assert!(json["runs_needed"].as_u64().unwrap() > 10);
        assert_eq!(json["interval"]["method"], "score");
    }

    #[test]
    fn two_samples_plan_new_runs_against_the_best_s_own_noise() {
        use crate::stats::interval::testing::arm;
        let parts = |new: (usize, usize), best: (usize, usize)| {
            [
                Part::of(1.0, &arm(new.0, new.1)),
                Part::of(-1.0, &arm(best.0, best.1)),
            ]
        };
        let grows = [true, false];
        // 3 of 3 against a best of 2 of 3: within noise, and the best's own
        // three runs leave no number of new runs that would settle it.
        let a = advise_two_sample(&parts((3, 3), (2, 3)), &grows, CONFIDENCE);
        let Advisory::WithinNoise {
            interval,
            runs_needed,
            against_runs,
        } = a
        else {
            panic!("{a:?}")
        };
        assert!(against_runs && runs_needed.is_none(), "{a:?}");
        assert!(interval.low < 0.0 && interval.high > 0.0, "{a:?}");
        assert!(
            a.in_words().contains("the best rests on too few runs"),
            "{}",
            a.in_words()
        );
        // Against a best measured on 40 runs, more new runs do settle it.
        let a = advise_two_sample(&parts((5, 6), (20, 40)), &grows, CONFIDENCE);
        let Advisory::WithinNoise { runs_needed, .. } = a else {
            panic!("{a:?}")
        };
        assert!(runs_needed.is_some_and(|n| n > 0), "{a:?}");
        assert!(a.in_words().contains("of this result"), "{}", a.in_words());
        // 10 of 10 against 0 of 10 is clear either way it is read.
        let a = advise_two_sample(&parts((10, 10), (0, 10)), &grows, CONFIDENCE);
        assert_eq!(a.direction(), Some(Direction::Above));
    }
}
