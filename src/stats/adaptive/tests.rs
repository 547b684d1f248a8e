//! Unit tests of the `--runs auto` driver: a scripted platform (shared with
//! the `*_tests.rs` files beside this one) and the driver's own stops.
use super::{
    AutoPolicy, CaseRuns, Direction, Round, RunRequest, RunSource, Spending, Stop, adaptive, fixed,
};

/// A scripted platform: each case's arms cycle through fixed score lists;
/// every request is logged.
pub(super) struct Script {
    pub(super) arms: Vec<(Vec<f64>, Vec<f64>)>,
    pub(super) drawn: Vec<[usize; 2]>,
    pub(super) log: Vec<Vec<RunRequest>>,
    pub(super) cost_per_run: f64,
    pub(super) stop_after: Option<usize>,
}

impl Script {
    pub(super) fn new(arms: &[(&[f64], &[f64])]) -> Self {
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

pub(super) const ONE: &[f64] = &[1.0];
pub(super) const ZERO: &[f64] = &[0.0];
pub(super) const HALF: &[f64] = &[1.0, 0.0];
pub(super) const HALF_LATE: &[f64] = &[0.0, 1.0];

#[test]
fn schedule_and_levels() {
    let p = AutoPolicy::new(16);
    assert_eq!(p.schedule(), (3..=16).collect::<Vec<u32>>());
    let c = p.confidences().unwrap();
    // Power spending with ρ = 1: the first look spends α·3/16 exactly.
    assert!((1.0 - c[0] - 0.05 * 3.0 / 16.0).abs() < 1e-12, "{c:?}");
    // No interim look is looser than the last; the last is stricter
    // than a single look at 95 % and looser than Bonferroni's 0.05/14.
    let last = c[c.len() - 1];
    assert!(c.iter().all(|x| *x >= last - 1e-12), "{c:?}");
    assert!(1.0 - last < 0.05 && 1.0 - last > 0.05 / 14.0, "{c:?}");
    assert_eq!(
        AutoPolicy::new(10).schedule(),
        (3..=10).collect::<Vec<u32>>()
    );
    assert_eq!(AutoPolicy::new(50).schedule().len(), 48);
    assert_eq!(AutoPolicy::new(2).schedule(), [2]);
    // The design before: rounds growing by 1.4 from 4.
    let g = AutoPolicy::growing_rounds(16);
    assert_eq!(g.schedule(), [4, 6, 9, 13, 16]);
    let c = g.confidences().unwrap();
    assert!((1.0 - c[0] - 0.05 * 4.0 / 16.0).abs() < 1e-12, "{c:?}");
    assert_eq!(AutoPolicy::growing_rounds(10).schedule(), [4, 6, 10]);
    assert_eq!(
        AutoPolicy::growing_rounds(50).schedule(),
        [4, 6, 9, 13, 19, 27, 38, 50]
    );
    assert_eq!(AutoPolicy::growing_rounds(4).schedule(), [4]);
    assert_eq!(AutoPolicy::growing_rounds(4).confidences().unwrap(), [0.95]);

    let hp = AutoPolicy::haybittle_peto();
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
    let late = AutoPolicy::new(4);
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
    assert_eq!(o.runs, 4 * 2 * 3);
    assert_eq!(
        o.comparison.suite.advisory.direction(),
        Some(Direction::Above)
    );
    assert!((o.comparison.confidence - (1.0 - 0.05 * 3.0 / 16.0)).abs() < 1e-12);
    assert!((o.cost_usd - 0.24).abs() < 1e-9);
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
    assert_eq!(s.log[0], [RunRequest::both(0, 3), RunRequest::both(1, 3)]);
    for round in &s.log[1..] {
        assert_eq!(round[0].with, round[0].without, "{round:?}");
        assert_eq!((round[1].case, round[1].without), (1, 0), "{round:?}");
    }
    assert_eq!(o.samples[1].without.len(), 3);
    // Called at the fourth look (6 runs per arm): 12 + 6 + 3 runs, fewer
    // than the fixed --runs N that --runs 3's advice asks for.
    assert_eq!((s.log.len(), o.runs), (4, 21));
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
        ..AutoPolicy::haybittle_peto()
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
    // Case 0 alone moves the suite by 0.25, and the randomisation test
    // counts its 5 passes of 10 as shuffled between the arms: beside three
    // coin-flip cases that stays within noise at the last look's 99 %.
    assert_eq!(o.stop, Stop::MaxReached);
    assert!(!o.comparison.suite.advisory.is_clear());
    assert_eq!(o.runs, 2 * (5 + 3 * 10));
}

#[test]
fn gives_up_when_nothing_can_come_of_it() {
    // Every run passes in both arms: no difference, and no noise. A change
    // of the margin (0.2) would need the without arms down to 0.8 (or the
    // with arms, the other way), and 12 runs of them all passing then has
    // a chance of 0.8¹² = 0.069, below the futility threshold of 0.1: the
    // default gives up at its first look, 3 runs per arm; a policy that
    // waits for 4 runs at its second.
    let mut s = Script::new(&[(ONE, ONE); 4]);
    let o = adaptive(&mut s, 4, &AutoPolicy::new(16), 100.0).unwrap();
    assert_eq!(o.stop, Stop::Futile);
    assert_eq!((s.log.len(), o.runs), (1, 2 * 4 * 3));
    // On two cases the same first look would have a chance of 0.8⁶ = 0.26:
    // it takes 6 runs per arm (0.8¹² again) to give up.
    let mut s = Script::new(&[(ONE, ONE); 2]);
    let o = adaptive(&mut s, 2, &AutoPolicy::new(16), 100.0).unwrap();
    assert_eq!(o.stop, Stop::Futile);
    assert_eq!(o.runs, 2 * 2 * 6);
    let mut s = Script::new(&[(ONE, ONE); 4]);
    assert_eq!(
        adaptive(&mut s, 4, &AutoPolicy::haybittle_peto(), 100.0)
            .unwrap()
            .stop,
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
        ..AutoPolicy::haybittle_peto()
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
        serde_json::to_string(&adaptive(&mut s, 3, &AutoPolicy::new(16), 10.0).unwrap()).unwrap()
    };
    assert_eq!(run(), run());
}
