//! `frontier` (only when named): a search of 288 designs on every shape.

use crate::shapes::{SHAPE_LIST, shape_nulls, shape_suites};
use crate::sim::{Buy, CHECK_SEED, SEED, SHAPES, Truth};
use crate::tally::{Tally, setting};
use bob_eval::stats::AutoPolicy;

/// The grid of designs [`frontier`] searches: MAX, looks (growth 1.4, or
/// a look after every run), first round, predictive futility, and the
/// margin's equivalence stop (none, at the look's level, at 95 %, at 90 %).
pub(crate) fn frontier_grid() -> Vec<(String, AutoPolicy)> {
    let mut v = vec![];
    for max in [12u32, 14, 16, 18, 20, 24] {
        for growth in [1.0, 1.4] {
            for first in [3u32, 4] {
                for futility in [0.1, 0.2, 0.3] {
                    for (margin, at, m_name) in [
                        (0.0, 0.0, "no margin"),
                        (0.2, 0.0, "margin at the look's level"),
                        (0.2, 0.95, "margin at 95 %"),
                        (0.2, 0.9, "margin at 90 %"),
                    ] {
                        let p = AutoPolicy {
                            first_round: first,
                            futility_from: first,
                            growth,
                            futility,
                            margin,
                            margin_confidence: at,
                            ..AutoPolicy::new(max)
                        };
                        let looks = if growth == 1.0 {
                            "every run"
                        } else {
                            "growth 1.4"
                        };
                        v.push((
                            format!(
                                "auto:{max}, {looks}, first {first}, futility {futility}, {m_name}"
                            ),
                            p,
                        ));
                    }
                }
            }
        }
    }
    v
}

/// Issue 24, item 4: is any design of a wide grid inside the targets on
/// every shape? Each design of [`frontier_grid`] runs on the first
/// `ADAPTIVE_FRONTIER_SUITES` (2,000 unless set) of every shape's suites of
/// the first seed;
/// per shape, the fewest runs (as a share of fixed 10's) among the designs
/// that resolve at least as many big suites as fixed 10, checked again on
/// the second seed and on the no-difference suites (`ADAPTIVE_SHAPE_SUITES`
/// each), and the designs that meet resolution and runs on every shape.
pub(crate) fn frontier() {
    let count = std::env::var("ADAPTIVE_FRONTIER_SUITES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    let grid = frontier_grid();
    println!();
    println!(
        "frontier: {} designs x {} shapes, {count} suites per shape (first seed)",
        grid.len(),
        SHAPE_LIST.len()
    );
    let shapes: Vec<(Vec<Truth>, Tally)> = SHAPE_LIST
        .iter()
        .map(|&(_, pairs, scoring)| {
            let suites: Vec<Truth> = shape_suites(SEED, pairs, scoring)
                .into_iter()
                .take(count)
                .collect();
            let f = setting(&suites, SHAPES, Buy::Fixed(10));
            (suites, f)
        })
        .collect();
    // Per shape: (share of fixed 10's runs, design) of the cheapest design
    // that keeps resolution.
    let mut cheapest: Vec<Option<(f64, String)>> = vec![None; SHAPE_LIST.len()];
    let mut inside = vec![];
    for (name, policy) in &grid {
        let mut all = true;
        let mut row = vec![];
        for (k, (suites, f)) in shapes.iter().enumerate() {
            let a = setting(suites, SHAPES, Buy::Auto(*policy));
            let share = a.c() / f.c();
            let keeps = a.resolved >= f.resolved;
            if keeps && cheapest[k].as_ref().is_none_or(|c| share < c.0) {
                cheapest[k] = Some((share, name.clone()));
            }
            all &= keeps && share <= 0.6;
            row.push(format!(
                "{:+} suites, {:.0} %",
                a.resolved as i64 - f.resolved as i64,
                100.0 * share
            ));
        }
        println!("| {name} | {} |", row.join(" | "));
        if all {
            inside.push((name.clone(), *policy));
        }
    }
    println!();
    println!(
        "| shape | cheapest design resolving at least fixed 10's big suites | its runs / fixed 10's | on the second seed: big suites resolved against fixed 10, runs, (a0) of the no-difference suites |"
    );
    println!("| --- | --- | --- | --- |");
    for ((name, pairs, scoring), c) in SHAPE_LIST.iter().zip(&cheapest) {
        let Some((share, design)) = c else {
            println!("| {name} | none | – | |");
            continue;
        };
        // The same design on the suites it was not chosen on.
        let policy = grid
            .iter()
            .find(|(n, _)| n == design)
            .expect("in the grid")
            .1;
        let suites = shape_suites(CHECK_SEED, *pairs, *scoring);
        let f = setting(&suites, SHAPES, Buy::Fixed(10));
        let a = setting(&suites, SHAPES, Buy::Auto(policy));
        let nulls = setting(&shape_nulls(*pairs, *scoring), SHAPES, Buy::Auto(policy));
        println!(
            "| {name} | {design} | {:.0} % | {:+} suites, {:.0} %, (a0) {:.2} % |",
            100.0 * share,
            a.resolved as i64 - f.resolved as i64,
            100.0 * a.c() / f.c(),
            nulls.a0()
        );
    }
    println!();
    println!(
        "frontier: {} of {} designs meet resolution and runs on every shape of the first seed",
        inside.len(),
        grid.len()
    );
    for (name, policy) in inside {
        let mut row = vec![];
        for (_, pairs, scoring) in SHAPE_LIST {
            let suites = shape_suites(CHECK_SEED, pairs, scoring);
            let f = setting(&suites, SHAPES, Buy::Fixed(10));
            let a = setting(&suites, SHAPES, Buy::Auto(policy));
            let nulls = setting(&shape_nulls(pairs, scoring), SHAPES, Buy::Auto(policy));
            row.push(format!(
                "{:+} suites, {:.0} %, (a0) {:.2} %",
                a.resolved as i64 - f.resolved as i64,
                100.0 * a.c() / f.c(),
                nulls.a0()
            ));
        }
        println!("| {name}, second seed | {} |", row.join(" | "));
    }
}
