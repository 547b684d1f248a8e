//! `shapes` and `oracle`: auto on the suites bob-eval's layout produces.

use crate::figures::{Moments, estimate, mean, paired, share};
use crate::policies::{chosen_alternatives, policy_filter};
use crate::sim::{Buy, CHECK_SEED, SEED, SHAPES, Simulated, SplitMix, TENTHS, Truth};
use crate::tally::{on_cores, setting, verdict};
use bob_eval::stats::AutoPolicy;

/// Suites per shape.
pub(crate) const SHAPE_SUITES: usize = 4_000;

/// Suites per shape: [`SHAPE_SUITES`], or `ADAPTIVE_SHAPE_SUITES` for a
/// quicker look while exploring (the published figures use the default).
pub(crate) fn shape_suites_count() -> usize {
    std::env::var("ADAPTIVE_SHAPE_SUITES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(SHAPE_SUITES)
}

/// bob-eval's own layout: a fires case with a scoring grader (the item fires
/// and the answer is scored: often 1.0 with, 0.0 without; a quarter of the
/// time the item does not fire and both arms score the same) and a quiet
/// case (a tie, often noiseless), plus `scoring` cases drawn as in the main
/// grid, `pairs` times.
pub(crate) fn draw_shape(rng: &mut SplitMix, pairs: usize, scoring: usize) -> Truth {
    let pick = |rng: &mut SplitMix, from: &[i64]| from[rng.below(from.len())];
    let mut cases = vec![];
    for _ in 0..pairs {
        if rng.unit() < 0.75 {
            cases.push((pick(rng, &[10, 10, 9, 7]), pick(rng, &[0, 0, 1, 3])));
        } else {
            let t = pick(rng, &[0, 0, 1, 3]);
            cases.push((t, t));
        }
        let q = pick(rng, &[10, 10, 10, 9, 0]);
        cases.push((q, q));
    }
    for _ in 0..scoring {
        cases.push((pick(rng, &TENTHS), pick(rng, &TENTHS)));
    }
    Truth(cases)
}

/// The shapes measured: name, trigger pairs, scoring cases.
pub(crate) const SHAPE_LIST: [(&str, usize, usize); 4] = [
    ("trigger pair (2 cases)", 1, 0),
    ("pair + 1 scoring (3 cases)", 1, 1),
    ("pair + 4 scoring (6 cases)", 1, 4),
    ("2 pairs + 4 scoring (8 cases)", 2, 4),
];

pub(crate) fn shape_suites(seed: u64, pairs: usize, scoring: usize) -> Vec<Truth> {
    let mut rng = SplitMix(seed ^ 0x5A9E ^ ((pairs * 16 + scoring) as u64));
    (0..shape_suites_count())
        .map(|_| draw_shape(&mut rng, pairs, scoring))
        .collect()
}

/// [`SHAPE_SUITES`] suites of a shape drawn the same way, kept only when
/// the true mean difference is zero: a tighter (a0).
pub(crate) fn shape_nulls(pairs: usize, scoring: usize) -> Vec<Truth> {
    let mut rng = SplitMix(SEED ^ 0xDD17 ^ ((pairs * 16 + scoring) as u64));
    let count = shape_suites_count();
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let t = draw_shape(&mut rng, pairs, scoring);
        if t.diff_tenths() == 0 {
            out.push(t);
        }
    }
    out
}

/// Issue 24, item 4: `--runs auto` on the suites bob-eval's layout produces.
pub(crate) fn shapes_grid(results: &mut Vec<String>) {
    let filter = policy_filter();
    let mut policies = vec![
        ("default (auto:16)".to_string(), AutoPolicy::new(16)),
        (
            "previous default (4, 6, 9, 13, 16)".to_string(),
            AutoPolicy::growing_rounds(16),
        ),
    ];
    policies.extend(chosen_alternatives());
    let count = shape_suites_count();
    println!();
    println!(
        "| shape | (a0) fixed 10, {count} no-difference suites | (a0) default auto | (a0) previous default | (a0) earlier auto | runs, fixed 10 / default auto / previous default |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for (name, pairs, scoring) in SHAPE_LIST {
        let nulls = shape_nulls(pairs, scoring);
        let f = setting(&nulls, SHAPES, Buy::Fixed(10));
        let a = setting(&nulls, SHAPES, Buy::Auto(AutoPolicy::new(16)));
        let g = setting(&nulls, SHAPES, Buy::Auto(AutoPolicy::growing_rounds(16)));
        let e = setting(&nulls, SHAPES, Buy::Auto(AutoPolicy::haybittle_peto()));
        println!(
            "| {name} | {:.2} % | {:.2} % | {:.2} % | {:.2} % | {:.1} / {:.1} / {:.1} |",
            f.a0(),
            a.a0(),
            g.a0(),
            e.a0(),
            f.c(),
            a.c(),
            g.c()
        );
        for (label, t) in [
            ("fixed 10", &f),
            ("default auto", &a),
            ("previous default", &g),
            ("earlier auto", &e),
        ] {
            let id = format!("shape nulls/{name}/{label}");
            share(
                &format!("{id}/a0"),
                t.null_false_calls,
                t.null,
                2,
                "no-difference suites",
            );
            mean(&format!("{id}/c"), t.runs_m, 1, "", "suites");
        }
        results.push(format!(
            "shapes {name}: (a0) of {count} no-difference suites, default auto {:.2} % (target <= 5 %) {}",
            a.a0(),
            verdict(a.a0() <= 5.0)
        ));
        if filter.is_some() {
            for (policy_name, policy) in &policies[2..] {
                let t = setting(&nulls, SHAPES, Buy::Auto(*policy));
                println!(
                    "| {name} | {policy_name}: (a0) {:.2} %, runs {:.1} | | | | |",
                    t.a0(),
                    t.c()
                );
            }
        }
    }
    println!();
    println!(
        "Auto on the suites people write ({count} suites per shape, fires case 75 % item-fires (with from 1, 1, 0.9, 0.7; without from 0, 0, 0.1, 0.3), else a tie; quiet case a tie at 1, 1, 1, 0.9 or 0):"
    );
    println!();
    println!(
        "| shape | auto policy | no-difference / big / small suites | (a0) fixed 10 / auto | (b) fixed 10 / auto (big suites resolved, auto − fixed 10) | small effects called right, fixed 10 / auto | (c) fixed 10 / auto | auto's runs / fixed 10's | auto's runs per no-difference / big / small suite |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for (name, pairs, scoring) in SHAPE_LIST {
        for (seed, label) in [(SEED, ""), (CHECK_SEED, ", second seed")] {
            let suites = shape_suites(seed, pairs, scoring);
            let f = setting(&suites, SHAPES, Buy::Fixed(10));
            let list = if seed == SEED || filter.is_some() {
                &policies[..]
            } else {
                &policies[..2]
            };
            for (policy_name, policy) in list {
                let a = setting(&suites, SHAPES, Buy::Auto(*policy));
                println!(
                    "| {name}{label} | {policy_name} | {} / {} / {} | {:.2} / {:.2} % | {:.1} / {:.1} % ({:+}) | {:.1} / {:.1} % | {:.1} / {:.1} | {:.0} % | {} |",
                    f.null,
                    f.big,
                    f.small,
                    f.a0(),
                    a.a0(),
                    f.b(),
                    a.b(),
                    a.resolved as i64 - f.resolved as i64,
                    f.s(),
                    a.s(),
                    f.c(),
                    a.c(),
                    100.0 * a.c() / f.c(),
                    a.c_by()
                );
                let id = format!("shapes/{name}{label}/{policy_name}");
                share(
                    &format!("{id}/a0 fixed 10"),
                    f.null_false_calls,
                    f.null,
                    2,
                    "no-difference suites",
                );
                share(
                    &format!("{id}/a0"),
                    a.null_false_calls,
                    a.null,
                    2,
                    "no-difference suites",
                );
                share(
                    &format!("{id}/b fixed 10"),
                    f.resolved,
                    f.big,
                    1,
                    "big suites",
                );
                share(&format!("{id}/b"), a.resolved, a.big, 1, "big suites");
                paired(
                    &format!("{id}/b against fixed 10"),
                    &a.right_big,
                    &f.right_big,
                    "big suites",
                );
                share(
                    &format!("{id}/small fixed 10"),
                    f.small_right,
                    f.small,
                    1,
                    "small-effect suites",
                );
                share(
                    &format!("{id}/small"),
                    a.small_right,
                    a.small,
                    1,
                    "small-effect suites",
                );
                mean(&format!("{id}/c"), a.runs_m, 1, "", "suites");
                estimate(
                    &format!("{id}/share of fixed 10"),
                    100.0 * a.c() / f.c(),
                    100.0 * a.runs_m.half() / f.c(),
                    0,
                    " %",
                    &format!("{} suites", a.suites),
                );
                if policy_name == "default (auto:16)" {
                    results.push(format!(
                        "shapes {name}{label}, default: auto (b) {:.1} % vs fixed 10 {:.1} % {}; (a0) {:.2} % {}; runs {:.0} % of fixed 10 (target <= 60 %) {}",
                        a.b(),
                        f.b(),
                        verdict(a.resolved >= f.resolved),
                        a.a0(),
                        verdict(a.a0() <= 5.0),
                        100.0 * a.c() / f.c(),
                        verdict(a.c() <= 0.6 * f.c())
                    ));
                }
            }
        }
    }
}

/// The oracle: per suite, the fewest runs per arm (1 to 10) at which a
/// fixed run of the same streams is called clear at 95 %; a suite fixed 10
/// does not call costs 1 run per arm. A yardstick, not a bound: it pays
/// nothing for its looks and charges an unresolved suite 1 run per arm, so
/// a real rule may spend less on some suites and must spend more on others.
pub(crate) fn oracle() {
    println!();
    println!(
        "| shape ({} suites) | oracle's runs per suite | share of fixed 10's | default auto's share |",
        shape_suites_count()
    );
    println!("| --- | --- | --- | --- |");
    for (name, pairs, scoring) in SHAPE_LIST {
        let suites = shape_suites(SEED, pairs, scoring);
        let k = suites[0].0.len() as u64;
        let parts = on_cores(&suites, |first, block| {
            let mut runs = Moments::default();
            for (i, t) in block.iter().enumerate() {
                let clear_at = (1..=10u32)
                    .find(|&m| {
                        let mut s = Simulated::new(t, first + i, SHAPES);
                        Buy::Fixed(m)
                            .run(&mut s, None)
                            .comparison
                            .suite
                            .advisory
                            .is_clear()
                    })
                    .unwrap_or(1);
                runs.push((2 * k * u64::from(clear_at)) as f64);
            }
            runs
        });
        let mut runs_m = Moments::default();
        for p in parts {
            runs_m.add(p);
        }
        let runs = runs_m.sum as u64;
        let per = runs as f64 / suites.len() as f64;
        let f10 = 20.0 * k as f64;
        let a = setting(&suites, SHAPES, Buy::Auto(AutoPolicy::new(16)));
        println!(
            "| {name} | {per:.1} | {:.0} % | {:.0} % |",
            100.0 * per / f10,
            100.0 * a.c() / f10
        );
        let id = format!("oracle/{name}");
        mean(&format!("{id}/runs"), runs_m, 1, "", "suites");
        let basis = format!("{} suites", suites.len());
        estimate(
            &format!("{id}/share of fixed 10"),
            100.0 * per / f10,
            100.0 * runs_m.half() / f10,
            0,
            " %",
            &basis,
        );
        estimate(
            &format!("{id}/auto's share"),
            100.0 * a.c() / f10,
            100.0 * a.runs_m.half() / f10,
            0,
            " %",
            &basis,
        );
    }
}
