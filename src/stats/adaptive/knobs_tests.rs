//! The policy's knobs: Neyman allocation, the interim correction, the margin, futility's variance, the minimum effect, and policies recorded before them.

use super::tests::{ONE, Script, ZERO};
use super::{
    AutoPolicy, CaseRuns, MARGIN, Part, RunRequest, Stop, adaptive, delta_interval_scaled, next,
    neyman, z_for,
};
use crate::stats::interval::delta_interval;

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
