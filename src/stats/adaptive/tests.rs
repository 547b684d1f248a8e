use super::{
    Against, AutoPolicy, CaseRuns, Direction, MARGIN, Part, Round, RunRequest, RunSource, Spending,
    Stop, TriggerCount, adaptive, adaptive_against, adaptive_from, delta_interval_scaled, fixed,
    next, neyman, plan::PLANNED_CAP, z_for,
};
use crate::stats::interval::delta_interval;

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
    // `helps` settles at the fourth look (6 runs, as for the pair alone);
    // then every later round buys the firing case's with arm alone.
    let log = &s.0.log;
    assert_eq!(log.len(), 14, "{log:?}");
    assert!(
        log[4..]
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
        serde_json::to_string(&adaptive(&mut s, 3, &AutoPolicy::new(16), 10.0).unwrap()).unwrap()
    };
    assert_eq!(run(), run());
}

#[test]
fn neyman_spreads_a_round_by_the_smoothed_deviations() {
    let case = |with: &[f64], without: &[f64], case| CaseRuns {
        case,
        with: with.to_vec(),
        without: without.to_vec(),
        cost_usd: 0.0,
        trigger: Default::default(),
    };
    // A noisy case (2/4 both arms) and a pinned one (4/4 against 0/4): the
    // round that takes every arm from 4 to 6 (8 runs) goes mostly to the
    // noisy case, and the pinned one still gets a run per arm.
    let samples = vec![
        case(&[1.0, 0.0, 1.0, 0.0], &[0.0, 1.0, 0.0, 1.0], 0),
        case(&[1.0; 4], &[0.0; 4], 1),
    ];
    let arms = vec![[true, true]; 2];
    let reached = vec![[4, 4]; 2];
    let r = neyman(&samples, &arms, &reached, 6, 16, 1.0, &[]);
    let total: u64 = r.iter().map(RunRequest::runs).sum();
    assert_eq!(total, 8);
    assert!(r.iter().all(|r| r.without <= r.with), "{r:?}");
    let noisy = r.iter().find(|r| r.case == 0).unwrap();
    let pinned = r.iter().find(|r| r.case == 1).unwrap();
    assert!(noisy.runs() > pinned.runs(), "{r:?}");
    assert!(pinned.runs() >= 2, "{r:?}");
    // An arm never passes MAX, and the last look fills the rest.
    let r = neyman(&samples, &arms, &[[15, 15], [4, 4]], 16, 16, 1.0, &[]);
    let noisy = r.iter().find(|r| r.case == 0).unwrap();
    assert_eq!((noisy.with, noisy.without), (1, 1));
    let pinned = r.iter().find(|r| r.case == 1).unwrap();
    assert_eq!((pinned.with, pinned.without), (12, 12));
    // A with arm alone (a tie at the top) gets with runs only.
    let r = neyman(
        &samples,
        &[[true, true], [true, false]],
        &reached,
        6,
        16,
        1.0,
        &[],
    );
    assert_eq!(r.iter().map(RunRequest::runs).sum::<u64>(), 6);
    assert_eq!(r.iter().find(|r| r.case == 1).map_or(0, |r| r.without), 0);
    // Without arms that start from 21 stored runs: the round still takes
    // the with arms from 4 to 6 (it bought nothing when the stored runs
    // counted against the round's budget); an arm the allocation took past
    // the target still leaves that much less.
    let r = neyman(&samples, &arms, &[[4, 21]; 2], 6, 47, 1.0, &[21, 21]);
    assert_eq!(r.iter().map(|r| r.with).sum::<u32>(), 4, "{r:?}");
    assert_eq!(r.iter().map(|r| r.without).sum::<u32>(), 0, "{r:?}");
    let r = neyman(&samples, &arms, &[[8, 8], [4, 4]], 6, 16, 1.0, &[]);
    assert_eq!(r.iter().map(RunRequest::runs).sum::<u64>(), 0, "{r:?}");
}

#[test]
fn neyman_is_off_by_default_and_keeps_the_error_control_path() {
    assert!(!AutoPolicy::new(16).neyman);
    // A clear suite is called at the first look with or without it.
    let policy = AutoPolicy {
        neyman: true,
        ..AutoPolicy::new(16)
    };
    let mut s = Script::new(&[(ONE, ZERO), (ONE, ZERO), (ONE, ZERO)]);
    let o = adaptive(&mut s, 3, &policy, 1e9).unwrap();
    assert_eq!(o.stop, Stop::SuiteClear);
    assert_eq!(o.rounds.len(), 1);
}

#[test]
fn interim_continuity_is_whole_by_default_and_narrows_an_interim_interval() {
    assert_eq!(AutoPolicy::new(16).interim_continuity, 1.0);
    let parts = [
        Part::of(0.5, &[1.0, 1.0, 1.0, 0.0]),
        Part::of(-0.5, &[0.0, 1.0, 0.0, 0.0]),
    ];
    let whole = delta_interval(&parts, 0.95).interval;
    let same = delta_interval_scaled(&parts, 0.95, 1.0).interval;
    assert_eq!((whole.low, whole.high), (same.low, same.high));
    let none = delta_interval_scaled(&parts, 0.95, 0.0).interval;
    assert!(none.low > whole.low && none.high < whole.high);
}

#[test]
fn a_policy_written_before_the_new_knobs_reads_with_them_off() {
    // Written before the margin, a policy had none.
    let before = AutoPolicy {
        margin: 0.0,
        futility_shuffled: false,
        top_up: 0,
        ..AutoPolicy::new(16)
    };
    let mut json = serde_json::to_value(before).unwrap();
    let map = json.as_object_mut().unwrap();
    for knob in [
        "neyman",
        "neyman_prior",
        "interim_continuity",
        "margin",
        "margin_confidence",
        "futility_shuffled",
        "top_up",
    ] {
        assert!(map.remove(knob).is_some(), "{knob}");
    }
    let read: AutoPolicy = serde_json::from_value(json).unwrap();
    assert_eq!(read, before);
}

#[test]
fn a_margin_stops_a_change_clearly_smaller_than_it() {
    // Eight cases; one without arm fails one run in four: a delta of 0.03,
    // measured tightly enough that it is clearly inside ±0.2. Futility is
    // off, so only the margin can stop it early.
    assert_eq!(AutoPolicy::new(16).margin, MARGIN);
    let mut arms: Vec<(&[f64], &[f64])> = vec![(ONE, ONE); 7];
    arms.push((ONE, &[1.0, 1.0, 1.0, 0.0]));
    let on = AutoPolicy {
        futility: 0.0,
        ..AutoPolicy::new(16)
    };
    let off = AutoPolicy { margin: 0.0, ..on };
    let without = adaptive(&mut Script::new(&arms), 8, &off, 1e9).unwrap();
    let with = adaptive(&mut Script::new(&arms), 8, &on, 1e9).unwrap();
    assert_eq!(with.stop, Stop::Negligible);
    assert_eq!(
        with.stop.to_string(),
        "the change is clearly smaller than the minimum effect of interest, either way"
    );
    assert!(
        with.rounds.len() < without.rounds.len(),
        "{:?} vs {:?}",
        with.rounds,
        without.rounds
    );
    assert!(
        without.runs > with.runs,
        "{} vs {}",
        without.runs,
        with.runs
    );
    let d = &with.comparison.suite.delta.interval;
    assert!(d.low > -0.2 && d.high < 0.2, "{d:?}");
    // At its own, lower confidence the margin's interval is narrower: it
    // stops sooner.
    let loose = AutoPolicy {
        margin_confidence: 0.6,
        ..on
    };
    let o = adaptive(&mut Script::new(&arms), 8, &loose, 1e9).unwrap();
    assert_eq!(o.stop, Stop::Negligible);
    assert!(o.runs < with.runs, "{} vs {}", o.runs, with.runs);
    // A margin of 0.01 is not cleared by that interval: it runs on.
    let tiny = AutoPolicy { margin: 0.01, ..on };
    let o = adaptive(&mut Script::new(&arms), 8, &tiny, 1e9).unwrap();
    assert_eq!(o.runs, without.runs);
    // A change that helps is called, margin or not.
    let big = vec![(ONE, ZERO); 3];
    let o = adaptive(&mut Script::new(&big), 3, &on, 1e9).unwrap();
    assert_eq!(o.stop, Stop::SuiteClear);
}

#[test]
fn futility_plans_with_the_randomisation_variance_when_it_is_larger() {
    // A firing case 6/6 against 0/6 beside three coin-flip ties at 6 runs:
    // the score test lets the firing case's pinned arms carry no variance,
    // the randomisation test counts its 6 passes as shuffled among 12. The
    // call needs both, so the chance of making it by MAX is planned lower.
    let arm = |x: usize| crate::stats::interval::testing::arm(x, 6);
    let parts: Vec<Part> = [(6, 0), (3, 3), (4, 2), (2, 4)]
        .iter()
        .flat_map(|&(w, o)| [Part::of(0.25, &arm(w)), Part::of(-0.25, &arm(o))])
        .collect();
    let grows = vec![true; parts.len()];
    let (z, p) = (z_for(0.98), AutoPolicy::new(16));
    let plain = next::conditional_power(0.25, 0.0, &parts, &grows, &p, z, false);
    let guarded = next::conditional_power(0.25, 0.0, &parts, &grows, &p, z, true);
    assert!(guarded < plain - 0.05, "{guarded} against {plain}");
    // One case: the score test decides alone, so the plan is the same.
    let one = &parts[..2];
    let a = next::conditional_power(1.0, 0.0, one, &grows[..2], &p, z, false);
    let b = next::conditional_power(1.0, 0.0, one, &grows[..2], &p, z, true);
    assert_eq!(a, b);
    assert!(AutoPolicy::new(16).futility_shuffled);
}

#[test]
fn the_chance_of_pinned_runs_under_a_change_of_the_margin_is_exact() {
    let arm = |x: usize, n: usize| crate::stats::interval::testing::arm(x, n);
    let pair = |fires: usize, stored: usize| -> Vec<Part> {
        vec![
            Part::of(0.5, &arm(0, fires)),
            Part::of(-0.5, &arm(0, stored)),
            Part::of(0.5, &arm(fires, fires)),
            Part::of(-0.5, &arm(stored, stored)),
        ]
    };
    // A trigger pair that never fires, from an archive of 21 without-arm
    // runs: a rise of 0.2 has its least favourable form in the firing
    // case's with arm at 0.4 (lowering the quiet case's 21 stored passes
    // costs more), so 5 with-arm runs all failing have a chance of 0.6⁵;
    // a fall, in the quiet case's with arm at 0.6, the same.
    let chance = next::pinned_chance(&pair(5, 21), 0.2).unwrap();
    assert!((chance - 0.6_f64.powi(5)).abs() < 1e-9, "{chance}");
    // Fresh, both arms at 6 runs: the rise is shared by the firing case's
    // with arm and the quiet case's without arm, 0.2 each: 0.8¹².
    let chance = next::pinned_chance(&pair(6, 6), 0.2).unwrap();
    assert!((chance - 0.8_f64.powi(12)).abs() < 1e-9, "{chance}");
    // More runs, less chance; an arm with no run can hide anything.
    assert!(next::pinned_chance(&pair(8, 21), 0.2).unwrap() < 0.6_f64.powi(7));
    let mut unrun = pair(5, 21);
    unrun[0] = Part::of(0.5, &[]);
    assert_eq!(next::pinned_chance(&unrun, 0.2), Some(1.0));
    // A smaller unrun arm goes part of the way for free: the firing case's
    // with arm need only reach 0.2 for the rest.
    let mut part_way = pair(5, 21);
    part_way.push(Part::of(0.1, &[]));
    let chance = next::pinned_chance(&part_way, 0.2).unwrap();
    assert!((chance - 0.8_f64.powi(5)).abs() < 1e-9, "{chance}");
    // An estimate already a margin away: nothing to rule out that way.
    let fires = vec![
        Part::of(0.5, &arm(3, 3)),
        Part::of(-0.5, &arm(0, 21)),
        Part::of(0.5, &arm(3, 3)),
        Part::of(-0.5, &arm(21, 21)),
    ];
    assert_eq!(next::pinned_chance(&fires, 0.2), Some(1.0));
    // An arm that is not pinned: not for this rule.
    let mut noisy = pair(5, 21);
    noisy[0] = Part::of(0.5, &arm(2, 5));
    assert_eq!(next::pinned_chance(&noisy, 0.2), None);
    // Far, but within reach: a tiny chance; a change of 1 needs every
    // moving arm at its other end, which these runs rule out.
    let far = next::pinned_chance(&pair(5, 21), 0.9).unwrap();
    assert!(far > 0.0 && far < 1e-20, "{far}");
    assert_eq!(next::pinned_chance(&pair(5, 21), 1.0), Some(0.0));
}

#[test]
fn a_pinned_pair_that_never_fires_gives_up_once_a_rise_of_the_margin_is_unlikely() {
    // The pair from an archive of 20 without-arm runs: the firing case
    // never fires (0 in both arms), the quiet case always passes. The
    // first round (3 with-arm runs, a top-up of 1) leaves a chance of
    // 0.6³ = 0.22 for a rise of 0.2; each look adds one with-arm run per
    // case, and at 5 runs 0.6⁵ = 0.078 is below 0.1.
    let stored = vec![vec![0.0; 20], vec![1.0; 20]];
    let mut s = Script::new(&[(ZERO, ZERO), (ONE, ONE)]);
    let p = AutoPolicy::new(PLANNED_CAP).planned_for(2, MARGIN);
    let o = adaptive_from(&mut s, 2, &p, 100.0, None, &stored).unwrap();
    assert_eq!(o.stop, Stop::Futile);
    assert_eq!(o.samples[0].with.len(), 5);
    assert_eq!(o.runs, 2 * (5 + 1));
}

#[test]
fn arms_that_look_pinned_on_a_few_runs_are_not_taken_as_noiseless() {
    // Two cases, every arm 0 of 3: a change that lifts each with arm to 0.2
    // shows nothing yet. Without the floor there is no variance under "no
    // difference" and the projection says no run can help (0); with each
    // arm smoothed as Jeffreys' 0.5/4 there is noise to grow into, and a
    // trend of +0.2 would likely be settled by MAX.
    let arm = |x: usize, n: usize| crate::stats::interval::testing::arm(x, n);
    let parts: Vec<Part> = (0..2)
        .flat_map(|_| [Part::of(0.5, &arm(0, 3)), Part::of(-0.5, &arm(0, 3))])
        .collect();
    let grows = vec![true; parts.len()];
    let (z, p) = (z_for(0.98), AutoPolicy::new(80));
    let at_trend = next::conditional_power(0.2, 0.0, &parts, &grows, &p, z, false);
    assert!(at_trend > 0.5, "{at_trend}");
    // The floor adds noise, not drift: no trend at all hopes for less.
    let flat = next::conditional_power(0.0, 0.0, &parts, &grows, &p, z, false);
    assert!(flat < at_trend - 0.2, "{flat} against {at_trend}");
}

#[test]
fn stored_without_runs_count_and_the_first_round_tops_them_up() {
    // Twenty stored without-arm runs of each case: the first round buys 3
    // with-arm runs and a top-up of 1 fresh without-arm run per case; the
    // later rounds buy the with arms alone (the without arm has more runs
    // than any look asks of the with arm).
    let stored = vec![vec![0.0, 1.0, 1.0, 0.0, 1.0]; 2]
        .into_iter()
        .map(|a| a.repeat(4))
        .collect::<Vec<_>>();
    let mut s = Script::new(&[(HALF, HALF_LATE), (HALF_LATE, HALF)]);
    let p = AutoPolicy::new(16);
    let o = adaptive_from(&mut s, 2, &p, 100.0, None, &stored).unwrap();
    let topped = |case| RunRequest {
        case,
        with: 3,
        without: 1,
    };
    assert_eq!(s.log[0], [topped(0), topped(1)]);
    assert!(s.log.len() > 1, "{:?}", o.stop);
    for round in &s.log[1..] {
        assert!(
            round.iter().all(|r| r.without == 0 && r.with == 1),
            "{round:?}"
        );
    }
    // The stored runs come first and are not counted as bought.
    assert_eq!(o.samples[0].without.len(), 21);
    assert_eq!(o.samples[0].without[..20], stored[0][..]);
    let bought: u64 = s.log.iter().flatten().map(RunRequest::runs).sum();
    assert_eq!(o.runs, bought);
    // A top-up of 0 (an evaluation repeated) buys the with arms alone.
    let mut s = Script::new(&[(HALF, HALF_LATE), (HALF_LATE, HALF)]);
    let none = AutoPolicy { top_up: 0, ..p };
    adaptive_from(&mut s, 2, &none, 100.0, None, &stored).unwrap();
    assert!(
        s.log.iter().flatten().all(|r| r.without == 0),
        "{:?}",
        s.log
    );
    // Fewer stored runs than the first round: the without arm still gets
    // its first round's worth, fresh.
    let mut s = Script::new(&[(ONE, ZERO)]);
    adaptive_from(&mut s, 1, &p, 100.0, None, &[vec![0.0]]).unwrap();
    assert_eq!(
        s.log[0],
        [RunRequest {
            case: 0,
            with: 3,
            without: 2
        }]
    );
}

#[test]
fn stored_runs_spend_the_budget_by_information() {
    let p = AutoPolicy::new(16);
    // No stored runs: the fractions are runs over MAX, as before.
    assert_eq!(p.confidences_from(&[0, 0]), p.confidences());
    assert_eq!(p.confidences_from(&[3, 2]), p.confidences());
    // 23 without-arm runs a case: the first look (3 with-arm runs) holds
    // 1/(1/3 + 1/23) / (1/(1/16 + 1/23)) = 0.28 of the information, not
    // 3/16, so it spends more of the budget; the last look less.
    let fresh = p.confidences().unwrap();
    let stored = p.confidences_from(&[23, 23]).unwrap();
    let t1 = (1.0 / (1.0 / 3.0 + 1.0 / 23.0)) / (1.0 / (1.0 / 16.0 + 1.0 / 23.0));
    assert!((1.0 - stored[0] - 0.05 * t1).abs() < 1e-9, "{stored:?}");
    assert!(stored[0] < fresh[0]);
    assert!(stored[stored.len() - 1] > fresh[fresh.len() - 1]);
}

#[test]
fn from_the_store_false_calls_hold_their_level_given_archives() {
    // Four coin-flip cases, no difference. For each of 40 archives of 20
    // stored without-arm runs a case, 100 evaluations (fresh with-arm runs
    // and top-ups): the false-call rate over all stays under 5 %, and the
    // rate given an archive exceeds 10 % for few archives (a fixed seed).
    struct Coin(u64);
    impl Coin {
        fn flip(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            f64::from(u8::from(self.0 >> 63 == 1))
        }
    }
    impl RunSource for Coin {
        type Error = String;
        fn run(&mut self, requests: &[RunRequest], _: f64) -> Result<Round, String> {
            let cases = requests
                .iter()
                .map(|r| CaseRuns {
                    case: r.case,
                    with: (0..r.with).map(|_| self.flip()).collect(),
                    without: (0..r.without).map(|_| self.flip()).collect(),
                    cost_usd: 0.0,
                    trigger: Default::default(),
                })
                .collect();
            Ok(Round {
                cases,
                partial_reason: None,
            })
        }
    }
    let p = AutoPolicy::new(16);
    let (mut calls, mut heavy) = (0, 0);
    for a in 0..40u64 {
        let mut archive_source = Coin(0xA4C1 + a * 7919);
        let archive: Vec<Vec<f64>> = (0..4)
            .map(|_| (0..20).map(|_| archive_source.flip()).collect())
            .collect();
        let mut given = 0;
        for r in 0..100u64 {
            let mut s = Coin(0x5EED ^ (a << 32) ^ (r << 8));
            let o = adaptive_from(&mut s, 4, &p, 1e9, None, &archive).unwrap();
            given += usize::from(o.comparison.suite.advisory.is_clear());
        }
        calls += given;
        heavy += usize::from(given > 10);
    }
    let rate = calls as f64 / 4000.0;
    assert!(rate <= 0.05, "{rate}");
    assert!(heavy <= 4, "{heavy} of 40 archives over 10 %");
}

#[test]
fn the_minimum_effect_sets_the_margin_of_a_policy_that_has_one() {
    let p = AutoPolicy::new(16).with_min_effect(0.1);
    assert_eq!(p.margin, 0.1);
    assert_eq!(AutoPolicy::new(16).margin, crate::stats::DEFAULT_MIN_EFFECT);
    // The confidence mode's policy stops on no margin (a stop is a reject there).
    assert_eq!(
        AutoPolicy::for_level(16, 0.95).with_min_effect(0.1).margin,
        0.0
    );
    // A change of 0.03 measured tightly (the margin test's suite) is
    // clearly inside ±0.2 but not inside ±0.01: it stops under 0.2 only.
    let mut arms: Vec<(&[f64], &[f64])> = vec![(ONE, ONE); 7];
    arms.push((ONE, &[1.0, 1.0, 1.0, 0.0]));
    let stop = |d: f64| {
        let mut s = Script::new(&arms);
        let policy = AutoPolicy {
            futility: 0.0,
            ..AutoPolicy::new(16).with_min_effect(d)
        };
        adaptive(&mut s, 8, &policy, 100.0).unwrap().stop
    };
    assert_eq!(stop(0.2), Stop::Negligible);
    assert_ne!(stop(0.01), Stop::Negligible);
}

#[test]
fn the_trigger_pair_after_an_edit_is_called_from_the_archive() {
    // What the real platform's pair leaves after a first auto: fires' 6
    // without-arm runs at 0, quiet's 5 at 1. Plain auto plans MAX again
    // from them, tops each case up with 1 fresh run, and calls the suite
    // clear on no more with-arm runs than with MAX planned for the
    // noisiest suite.
    let stored = [vec![0.0; 6], vec![1.0; 5]];
    let with_runs = |p: AutoPolicy| {
        let mut s = Script::new(&[(ONE, ZERO), (ONE, ONE)]);
        let o = adaptive_from(&mut s, 2, &p, 100.0, None, &stored).unwrap();
        assert_eq!(o.stop, Stop::SuiteClear);
        assert_eq!(o.samples[1].without.len(), 6, "{:?}", s.log);
        o.samples[0].with.len()
    };
    let planned = AutoPolicy::new(PLANNED_CAP).planned_for(2, 0.2);
    assert!(planned.for_archive(2, &stored).max_per_arm < planned.max_per_arm);
    let replanned = with_runs(planned);
    let as_given = with_runs(AutoPolicy {
        planned_effect: None,
        ..planned
    });
    assert!(replanned <= as_given, "{replanned} {as_given}");
    assert!(replanned <= 8, "{replanned}");
}
