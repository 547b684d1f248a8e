//! `main`: the main grid of 4-case suites, fixed runs against auto.

use crate::figures::{mean, share};
use crate::policies::{chosen_alternatives, policy_filter};
use crate::sim::{Buy, CASES, MAIN, SEED, SplitMix, TENTHS, Truth};
use crate::tally::{Tally, pct, setting, verdict};
use bob_eval::stats::AutoPolicy;

/// Suites of the main grid.
pub(crate) const SUITES: usize = 10_000;
/// Extra suites with no true difference, for a tighter (a0).
pub(crate) const NULLS: usize = 20_000;
/// Repeats of each single no-difference suite.
pub(crate) const WORST: usize = 10_000;

/// `count` suites of 4 cases, probabilities drawn from [`TENTHS`]; with
/// `null_only`, only those whose true mean difference is zero are kept.
pub(crate) fn draw_suites(seed: u64, count: usize, null_only: bool) -> Vec<Truth> {
    let mut rng = SplitMix(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let t = Truth(
            (0..CASES)
                .map(|_| (TENTHS[rng.below(7)], TENTHS[rng.below(7)]))
                .collect(),
        );
        if !null_only || t.diff_tenths() == 0 {
            out.push(t);
        }
    }
    out
}

/// The main grid: fixed runs, auto and the earlier default.
pub(crate) fn main_grid(truths: &[Truth], nulls: &[Truth], results: &mut Vec<String>) {
    let policy = AutoPolicy::new(16);
    let t0 = setting(truths, MAIN, Buy::Fixed(1));
    println!(
        "adaptive: {SUITES} suites x {CASES} cases, seed {SEED:#x}; {} with no true difference, {} with |true difference| >= 0.2",
        t0.null, t0.big
    );
    println!(
        "adaptive: auto policy {policy:?}; schedule {:?}; confidence per look {:?}",
        policy.schedule(),
        policy.confidences().unwrap()
    );
    let mut rows: Vec<(String, Tally)> = vec![("--runs 1".into(), t0)];
    for n in [3u32, 5, 10] {
        rows.push((format!("--runs {n}"), setting(truths, MAIN, Buy::Fixed(n))));
    }
    rows.push((
        "--runs auto (auto:16)".into(),
        setting(truths, MAIN, Buy::Auto(policy)),
    ));
    rows.push((
        "--runs auto:10".into(),
        setting(truths, MAIN, Buy::Auto(AutoPolicy::new(10))),
    ));
    rows.push((
        "previous default (4, 6, 9, 13, 16)".into(),
        setting(truths, MAIN, Buy::Auto(AutoPolicy::growing_rounds(16))),
    ));
    rows.push((
        "earlier auto (2, 4, 8, 10)".into(),
        setting(truths, MAIN, Buy::Auto(AutoPolicy::haybittle_peto())),
    ));
    println!();
    println!(
        "| setting | (a) false calls, all suites | (a0) false calls, no-difference suites | (b) resolution, abs(diff) >= 0.2 | (c) runs per suite | (d) rule accepts, no-difference suites |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for (name, t) in &rows {
        println!(
            "| {name} | {:.2} % | {:.2} % | {:.1} % | {:.1} | {:.1} % |",
            t.a(),
            t.a0(),
            t.b(),
            t.c(),
            t.d()
        );
        let id = format!("main/{name}");
        share(&format!("{id}/a"), t.false_calls, t.suites, 2, "suites");
        share(
            &format!("{id}/a0"),
            t.null_false_calls,
            t.null,
            2,
            "no-difference suites",
        );
        share(&format!("{id}/b"), t.resolved, t.big, 1, "big suites");
        mean(&format!("{id}/c"), t.runs_m, 1, "", "suites");
        share(
            &format!("{id}/d"),
            t.null_accepted,
            t.null,
            1,
            "no-difference suites",
        );
    }
    let auto = &rows[4].1;
    let stops: Vec<String> = auto
        .stops
        .iter()
        .map(|(k, v)| format!("{k} {:.1} %", pct(*v, auto.suites)))
        .collect();
    println!();
    println!("adaptive: auto stops: {}", stops.join(", "));
    for (k, v) in &auto.stops {
        share(
            &format!("main/auto stops/{k}"),
            *v,
            auto.suites,
            1,
            "suites",
        );
    }

    // (a0) rests on the few no-difference suites of the main draw; measure
    // it again on NULLS suites drawn the same way, kept only when the true
    // mean difference is zero.
    println!();
    println!(
        "| setting | (a0) false calls, {NULLS} no-difference suites | (d) rule accepts | runs per suite |"
    );
    println!("| --- | --- | --- | --- |");
    let mut null_auto = 0.0;
    for (name, buy) in [
        ("--runs 1", Buy::Fixed(1)),
        ("--runs 3", Buy::Fixed(3)),
        ("--runs 5", Buy::Fixed(5)),
        ("--runs 10", Buy::Fixed(10)),
        ("--runs auto (auto:16)", Buy::Auto(policy)),
        ("--runs auto:10", Buy::Auto(AutoPolicy::new(10))),
        (
            "previous default (4, 6, 9, 13, 16)",
            Buy::Auto(AutoPolicy::growing_rounds(16)),
        ),
        (
            "earlier auto (2, 4, 8, 10)",
            Buy::Auto(AutoPolicy::haybittle_peto()),
        ),
    ] {
        let t = setting(nulls, MAIN, buy);
        if name.starts_with("--runs auto (") {
            null_auto = t.a();
        }
        println!(
            "| {name} | {:.2} % | {:.1} % | {:.1} |",
            t.a(),
            t.d(),
            t.c()
        );
        let id = format!("nulls/{name}");
        share(
            &format!("{id}/a0"),
            t.false_calls,
            t.suites,
            2,
            "no-difference suites",
        );
        share(
            &format!("{id}/d"),
            t.null_accepted,
            t.null,
            1,
            "no-difference suites",
        );
        mean(&format!("{id}/c"), t.runs_m, 1, "", "suites");
    }

    // Single no-difference suites repeated: where the intervals are least exact.
    println!();
    println!(
        "| no-difference suite, {WORST} times | (a0) --runs 3 | (a0) --runs 10 | (a0) auto | (a0) previous default | (a0) earlier auto |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for (name, cases) in [
        ("every case 0.5 / 0.5", vec![(5, 5); CASES]),
        ("every case 0.9 / 0.9", vec![(9, 9); CASES]),
        (
            "0.7/0.3, 0.3/0.7, 0.5/0.5, 0.5/0.5",
            vec![(7, 3), (3, 7), (5, 5), (5, 5)],
        ),
        (
            "1/0, 0/1, 0.5/0.5, 0.5/0.5",
            vec![(10, 0), (0, 10), (5, 5), (5, 5)],
        ),
        ("two cases, 0.5 / 0.5", vec![(5, 5); 2]),
        ("two cases, 0.3/0.3, 0.9/0.9", vec![(3, 3), (9, 9)]),
        ("three cases, 0.5 / 0.5", vec![(5, 5); 3]),
        ("eight cases, 0.5 / 0.5", vec![(5, 5); 8]),
    ] {
        let same = vec![Truth(cases.clone()); WORST];
        if policy_filter().is_some() {
            for (policy_name, p) in chosen_alternatives() {
                println!(
                    "| {name}, {policy_name} | | | {:.2} % | |",
                    setting(&same, MAIN, Buy::Auto(p)).a()
                );
            }
        }
        let settings = [
            ("--runs 3", Buy::Fixed(3)),
            ("--runs 10", Buy::Fixed(10)),
            ("auto", Buy::Auto(policy)),
            (
                "previous default",
                Buy::Auto(AutoPolicy::growing_rounds(16)),
            ),
            ("earlier auto", Buy::Auto(AutoPolicy::haybittle_peto())),
        ];
        let tallies: Vec<(&str, Tally)> = settings
            .into_iter()
            .map(|(label, b)| (label, setting(&same, MAIN, b)))
            .collect();
        let row: Vec<String> = tallies
            .iter()
            .map(|(_, t)| format!("{:.2} %", t.a()))
            .collect();
        println!("| {name} | {} |", row.join(" | "));
        for (label, t) in &tallies {
            share(
                &format!("single/{name}/{label}"),
                t.false_calls,
                t.suites,
                2,
                "repeats",
            );
        }
    }

    // The trade-off the default sits on: other policies, same suites.
    println!();
    println!("| auto policy (same suites) | (a0) | (b) | (c) |");
    println!("| --- | --- | --- | --- |");
    for (name, p) in chosen_alternatives() {
        let t = setting(truths, MAIN, Buy::Auto(p));
        println!(
            "| {name} | {:.2} % | {:.1} % | {:.1} |",
            t.a0(),
            t.b(),
            t.c()
        );
    }

    let fixed10 = &rows[3].1;
    results.push(format!(
        "adaptive auto (a) false calls over all suites: {:.2} % (target <= 5 %) {}",
        auto.a(),
        verdict(auto.a() <= 5.0)
    ));
    results.push(format!(
        "adaptive auto (a0) false calls among {NULLS} no-difference suites: {null_auto:.2} % (target <= 5 %) {}",
        verdict(null_auto <= 5.0)
    ));
    results.push(format!(
        "adaptive auto (b) resolution: {:.1} % vs fixed --runs 10 {:.1} % (target >= fixed 10) {}",
        auto.b(),
        fixed10.b(),
        verdict(auto.resolved >= fixed10.resolved)
    ));
    results.push(format!(
        "adaptive auto (c) runs per suite: {:.1} = {:.0} % of fixed --runs 10's {:.0} (target <= 50 %) {}",
        auto.c(),
        100.0 * auto.c() / fixed10.c(),
        fixed10.c(),
        verdict(auto.c() <= 0.5 * fixed10.c())
    ));
}
