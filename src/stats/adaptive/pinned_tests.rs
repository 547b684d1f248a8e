//! Suites whose arms are pinned at 0 or 1: the exact futility chance and the Jeffreys floor.

use super::tests::{ONE, Script, ZERO};
use super::{AutoPolicy, MARGIN, Part, Stop, adaptive_from, next, plan::PLANNED_CAP, z_for};

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
