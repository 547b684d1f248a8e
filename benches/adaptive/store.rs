//! `store` and `power`: auto from an archive of stored without-arm runs,
//! the false-call rate given an archive, and the power curve; `yardstick`:
//! what Wald's SPRT would spend from the same archive, as an idealisation,
//! and auto with every suite's variance known ([`Buy::Oracle`]).

use crate::figures::{self, Moments, estimate, figure, mean, paired, quantile};
use crate::shapes::{SHAPE_LIST, shape_nulls, shape_suites, shape_suites_count};
use crate::sim::{Buy, KINDS, SEED, SHAPES, Simulated, Truth};
use crate::tally::{Tally, on_cores_by, pct, setting, verdict};
use bob_eval::stats::adaptive::{MARGIN, towards_half};
use bob_eval::stats::{AutoPolicy, PLANNED_CAP};

/// Archive draws per shape for the false-call rate given an archive, and
/// evaluations per archive.
pub(crate) const ARCHIVES: usize = 100;
pub(crate) const PER_ARCHIVE: usize = 200;
/// Suites per shape for the store's table: the first of the shapes'
/// suites, and half as many of their no-difference suites, fewer than the
/// shapes' 4,000 so that `make figures` stays under 2 minutes.
pub(crate) const STORE_SUITES: usize = 2_000;
/// Stored without-arm runs per case in the archive measured.
pub(crate) const ARCHIVE_RUNS: u32 = 20;

/// The false-call rate of auto from one archive of each suite, over
/// `PER_ARCHIVE` evaluations that share it (fresh with-arm runs and
/// top-ups each): one rate per suite, sorted.
pub(crate) fn rates_given_archive(suites: &[Truth], policy: AutoPolicy) -> Vec<f64> {
    // A block of one suite: each is 200 evaluations.
    let mut rates: Vec<f64> = on_cores_by(suites, 1, |suite, block| {
        let truth = &block[0];
        let wrong = (0..PER_ARCHIVE)
            .filter(|&r| {
                let mut s = Simulated::new(truth, suite, 0xA5C0 ^ ((r as u64) << 40));
                let o = Buy::Stored(policy, ARCHIVE_RUNS).run(&mut s, None);
                o.comparison.suite.advisory.direction().is_some()
            })
            .count();
        pct(wrong, PER_ARCHIVE)
    });
    rates.sort_by(f64::total_cmp);
    rates
}

/// Mean, median, 90th percentile and worst of sorted rates.
pub(crate) fn spread(rates: &[f64]) -> (f64, f64, f64, f64) {
    let n = rates.len();
    let at = |q: f64| rates[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
    (
        rates.iter().sum::<f64>() / n as f64,
        at(0.5),
        at(0.9),
        rates[n - 1],
    )
}

/// The without arm from the store: plain auto (MAX planned from the
/// minimum effect, [`AutoPolicy::planned_for`], then again from the
/// archive, [`AutoPolicy::for_archive`]) starting from an archive of
/// [`ARCHIVE_RUNS`] stored without-arm runs per case (its top-ups bought
/// and counted) against fixed `--runs 10` and auto bought fresh, on every
/// shape; and the false-call rate given an archive.
pub(crate) fn store(results: &mut Vec<String>) {
    let shipped = AutoPolicy::new(PLANNED_CAP);
    let planned = |k: usize| shipped.planned_for(k, MARGIN);
    let count = STORE_SUITES.min(shape_suites_count());
    println!();
    println!(
        "The without arm from the store ({count} suites per shape, plain auto, an archive of {ARCHIVE_RUNS} without-arm runs per case; top-up: fresh without-arm runs per case and evaluation, default {}):",
        shipped.top_up
    );
    println!();
    println!(
        "| shape | MAX fresh | top-up | (b) fixed 10 / from the store (big suites, store − fixed 10) | (c) fixed 10 / from the store | from the store's share of fixed 10's runs | (a0) from the store, {} no-difference suites |",
        count / 2
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for (name, pairs, scoring) in SHAPE_LIST {
        let suites = &shape_suites(SEED, pairs, scoring)[..count];
        let nulls = &shape_nulls(pairs, scoring)[..count / 2];
        let policy = planned(suites[0].0.len());
        let f = setting(suites, SHAPES, Buy::Fixed(10));
        let id = format!("store/{name}");
        figures::share(
            &format!("{id}/b fixed 10"),
            f.resolved,
            f.big,
            1,
            "big suites",
        );
        for top_up in [0, shipped.top_up] {
            let p = AutoPolicy { top_up, ..policy };
            let st = setting(suites, SHAPES, Buy::Stored(p, ARCHIVE_RUNS));
            let n = setting(nulls, SHAPES, Buy::Stored(p, ARCHIVE_RUNS));
            let share = 100.0 * st.c() / f.c();
            println!(
                "| {name} | {} | {top_up} | {:.1} / {:.1} % ({:+}) | {:.1} / {:.1} | {share:.0} % | {:.2} % |",
                policy.max_per_arm,
                f.b(),
                st.b(),
                st.resolved as i64 - f.resolved as i64,
                f.c(),
                st.c(),
                n.a0()
            );
            let id = format!("{id}/top-up {top_up}");
            figures::share(&format!("{id}/b"), st.resolved, st.big, 1, "big suites");
            paired(
                &format!("{id}/b against fixed 10"),
                &st.right_big,
                &f.right_big,
                "big suites",
            );
            figures::mean(&format!("{id}/c"), st.runs_m, 1, "", "suites");
            figures::estimate(
                &format!("{id}/share of fixed 10"),
                share,
                100.0 * st.runs_m.half() / f.c(),
                0,
                " %",
                &format!("{} suites", st.suites),
            );
            figures::share(
                &format!("{id}/a0"),
                n.null_false_calls,
                n.null,
                2,
                "no-difference suites",
            );
            if top_up == shipped.top_up {
                results.push(format!(
                    "store {name}, plain auto (MAX {} fresh): runs {share:.0} % of fixed 10 (target <= 45 %) {}; resolution {:.1} % vs fixed 10 {:.1} % {}",
                    policy.max_per_arm,
                    verdict(share <= 45.0),
                    st.b(),
                    f.b(),
                    verdict(st.resolved >= f.resolved),
                ));
            }
        }
    }
}

/// The false-call rate of plain auto given an archive, over archives.
pub(crate) fn given_archive(results: &mut Vec<String>) {
    let planned = |k: usize| AutoPolicy::new(PLANNED_CAP).planned_for(k, MARGIN);
    println!();
    println!(
        "False-call rate given the archive, plain auto ({ARCHIVES} archives per row, each evaluated {PER_ARCHIVE} times with fresh with-arm runs and top-ups):"
    );
    println!();
    println!("| suites | top-up | mean | median | 90th percentile | worst |");
    println!("| --- | --- | --- | --- | --- | --- |");
    let mut rows: Vec<(String, Vec<Truth>)> = SHAPE_LIST
        .iter()
        .map(|&(name, pairs, scoring)| {
            let nulls = shape_nulls(pairs, scoring);
            (
                format!("{name}, no-difference suites"),
                nulls[..ARCHIVES.min(nulls.len())].to_vec(),
            )
        })
        .collect();
    for k in [2, 4, 8] {
        rows.push((
            format!("{k} coin-flip cases (0.5 / 0.5)"),
            vec![Truth(vec![(5, 5); k]); ARCHIVES],
        ));
    }
    for (label, suites) in rows {
        let policy = planned(suites[0].0.len());
        // Frozen (no top-up) on one row, for comparison: within one
        // evaluation the top-up moves the tail little.
        let top_ups = if label.starts_with("4 coin-flip") {
            vec![0, policy.top_up]
        } else {
            vec![policy.top_up]
        };
        for top_up in top_ups {
            let rates = rates_given_archive(&suites, AutoPolicy { top_up, ..policy });
            let (mean, median, p90, worst) = spread(&rates);
            println!(
                "| {label} | {top_up} | {mean:.2} % | {median:.2} % | {p90:.2} % | {worst:.1} % |"
            );
            let id = format!("archive/{label}/top-up {top_up}");
            let mut m = Moments::default();
            rates.iter().for_each(|&r| m.push(r));
            figures::mean(&format!("{id}/mean"), m, 2, " %", "archives");
            quantile(&format!("{id}/median"), &rates, 0.5, 2, "archives");
            quantile(&format!("{id}/90th percentile"), &rates, 0.9, 2, "archives");
            figure(
                &format!("{id}/worst"),
                &format!("{worst:.1} %"),
                "the largest of the archives' rates",
                &format!("{} archives x {PER_ARCHIVE} evaluations", rates.len()),
            );
            if top_up == policy.top_up {
                results.push(format!(
                    "store, given the archive, {label}: mean {mean:.2} % (target <= 5 %) {}, 90th percentile {p90:.2} % (target <= 10 %) {}, worst {worst:.1} %",
                    verdict(mean <= 5.0),
                    verdict(p90 <= 10.0)
                ));
            }
        }
    }
}

/// Suites per point of the power curve.
pub(crate) const POWER_SUITES: usize = 2_000;

/// The power curve: the share of suites called clear above 0, against the
/// true effect, for K cases whose without arms pass half the time and whose
/// with arms pass 0.5 + d (every case the same effect d), for fixed
/// `--runs 10` and the default auto (fresh, and from an archive of
/// [`ARCHIVE_RUNS`] stored without-arm runs per case), with the runs spent.
pub(crate) fn power(results: &mut Vec<String>) {
    let policy = AutoPolicy::new(16);
    println!();
    println!(
        "Power against the effect ({POWER_SUITES} suites per point; every case 0.5 without, 0.5 + d with): share called clear above 0, and runs per suite"
    );
    println!();
    println!("| cases | d | fixed 10 | auto | auto from the store ({ARCHIVE_RUNS} stored) |");
    println!("| --- | --- | --- | --- | --- |");
    for k in [2usize, 3, 6, 8] {
        for d in [0i64, 1, 2, 3] {
            let suites = vec![Truth(vec![(5 + d, 5); k]); POWER_SUITES];
            let cell = |label: &str, buy: Buy| {
                let t = setting(&suites, 0x90E6 ^ ((k as u64) << 8) ^ (d as u64), buy);
                let (yes, of) = if d == 0 {
                    (t.null_false_calls, t.null)
                } else {
                    (t.resolved + t.small_right, t.big + t.small)
                };
                let id = format!("power/{k} cases/d {:.1}/{label}", d as f64 / 10.0);
                figures::share(&id, yes, of, 1, "suites");
                figures::mean(&format!("{id}/runs"), t.runs_m, 1, "", "suites");
                (pct(yes, of), t.c())
            };
            let (f, fc) = cell("fixed 10", Buy::Fixed(10));
            let (a, ac) = cell("auto", Buy::Auto(policy));
            let (st, sc) = cell("from the store", Buy::Stored(policy, ARCHIVE_RUNS));
            println!(
                "| {k} | {:.1} | {f:.1} % ({fc:.0}) | {a:.1} % ({ac:.1}) | {st:.1} % ({sc:.1}) |",
                d as f64 / 10.0
            );
            if d == 2 {
                results.push(format!(
                    "power at the minimum effect 0.2, {k} cases, auto:16 (plain auto plans its MAX instead: section plan): fresh {a:.1} %, from the store {st:.1} %"
                ));
            }
        }
    }
}

/// The tables' order of the kinds of suite ([`KINDS`]' indices): no
/// difference, below 0.2, 0.2 or more.
const SHOWN: [usize; 3] = [0, 2, 1];

/// Runs per suite of each kind in `t`, in [`SHOWN`]'s order, "–" for a kind
/// with no suite, joined by " / "; each a figure `{id}/{kind}`.
fn runs_by_kind(t: &Tally, id: &str) -> String {
    let counts = [t.null, t.big, t.small];
    let cells: Vec<String> = SHOWN
        .iter()
        .map(|&i| match counts[i] {
            0 => "–".to_string(),
            n => {
                let per = format!("{:.1}", t.runs_by[i] as f64 / n as f64);
                figure(
                    &format!("{id}/{}", KINDS[i]),
                    &per,
                    "–",
                    &format!("{n} suites"),
                );
                per
            }
        })
        .collect();
    cells.join(" / ")
}

/// The yardstick for the runs from the store: Wald's sequential probability
/// ratio test of a suite delta of 0 against one of the minimum effect Δ
/// (one-sided 2.5 %, power 80 %), on each suite's true rates, as if the
/// delta's estimate were normal with a known variance. It stops the moment
/// its boundary is reached (no looks, no overshoot), knows the variances
/// and tests two simple hypotheses where auto holds its level over every
/// rate: an idealisation, not a bound. Under the true delta δ it needs, in
/// expectation, the information (P₁·ln A + (1 − P₁)·ln B) / (Δ·(δ − Δ/2))
/// (−ln A·ln B / Δ² at Δ/2), P₁ being Wald's chance of accepting Δ; the
/// runs are the with-arm runs per case that first give that much, the
/// without arm starting from the archive and the top-up and bought beside
/// the with arm beyond them, at least 5 per case when every arm is pinned
/// (no valid test at the looks' levels calls the noiseless pair sooner).
/// Two variances per run: the runs' own, p(1 − p); and the plan's, each
/// with arm at its rate moved by up to Δ towards ½ (the change auto's plan
/// keeps its power for).
pub(crate) fn yardstick() {
    let (alpha, beta, d) = (0.025f64, 0.2f64, MARGIN);
    let (ln_a, ln_b) = (((1.0 - beta) / alpha).ln(), (beta / (1.0 - alpha)).ln());
    let information = |delta: f64| -> f64 {
        if (delta - d / 2.0).abs() < 1e-9 {
            return -ln_a * ln_b / (d * d);
        }
        let h = (d - 2.0 * delta) / d;
        let p1 = (1.0 - (h * ln_b).exp()) / ((h * ln_a).exp() - (h * ln_b).exp());
        (p1 * ln_a + (1.0 - p1) * ln_b) / (d * (delta - d / 2.0))
    };
    let top_up = AutoPolicy::new(PLANNED_CAP).top_up;
    let archive = ARCHIVE_RUNS + top_up;
    let runs = |t: &Truth, planned: bool| -> f64 {
        let k = t.0.len();
        let var = |p: f64| p * (1.0 - p);
        let arms: Vec<(f64, f64)> =
            t.0.iter()
                .map(|&(w, wo)| {
                    let (w, wo) = (w as f64 / 10.0, wo as f64 / 10.0);
                    let with = if planned { towards_half(w, d) } else { w };
                    (var(with), var(wo))
                })
                .collect();
        let needed = information(t.diff_tenths().abs() as f64 / (10.0 * k as f64));
        let pinned = arms.iter().all(|&(a, b)| a == 0.0 && b == 0.0);
        let n = (if pinned { 5 } else { 1 }..=10_000u32)
            .find(|&n| {
                let v: f64 = arms
                    .iter()
                    .map(|&(a, b)| a / f64::from(n) + b / f64::from(n.max(archive)))
                    .sum::<f64>()
                    / (k * k) as f64;
                v <= 0.0 || 1.0 / v >= needed
            })
            .unwrap_or(10_000);
        f64::from(k as u32 * (n + top_up + n.saturating_sub(archive)))
    };
    let count = STORE_SUITES.min(shape_suites_count());
    println!();
    println!(
        "| shape ({count} suites) | knowing the runs' variances: runs per suite, share of fixed 10's | on the plan's variances | on the plan's: no difference / below 0.2 / 0.2 or more | auto from the store (`store`): the same |"
    );
    println!("| --- | --- | --- | --- | --- |");
    for (name, pairs, scoring) in SHAPE_LIST {
        let suites = &shape_suites(SEED, pairs, scoring)[..count];
        let f10 = 20.0 * suites[0].0.len() as f64;
        let policy = AutoPolicy::new(PLANNED_CAP).planned_for(suites[0].0.len(), MARGIN);
        // The store section's own evaluations (memoised): runs by kind of suite.
        let st = setting(suites, SHAPES, Buy::Stored(policy, ARCHIVE_RUNS));
        let auto = runs_by_kind(&st, &format!("yardstick/{name}/auto"));
        let mut cells = vec![];
        for (planned, label) in [(false, "known"), (true, "planned")] {
            let (mut all, mut by_kind) = (Moments::default(), [Moments::default(); 3]);
            for t in suites {
                let r = runs(t, planned);
                all.push(r);
                by_kind[t.kind()].push(r);
            }
            let id = format!("yardstick/{name}/{label}");
            mean(&format!("{id}/runs"), all, 1, "", "suites");
            estimate(
                &format!("{id}/share of fixed 10"),
                100.0 * all.mean() / f10,
                100.0 * all.half() / f10,
                0,
                " %",
                &format!("{count} suites"),
            );
            cells.push(format!(
                "{:.1}, {:.0} %",
                all.mean(),
                100.0 * all.mean() / f10
            ));
            if planned {
                let by: Vec<String> = SHOWN
                    .iter()
                    .map(|&i| {
                        let m = by_kind[i];
                        if m.n == 0 {
                            return "–".to_string();
                        }
                        mean(&format!("{id}/{}", KINDS[i]), m, 1, "", "suites");
                        format!("{:.1}", m.mean())
                    })
                    .collect();
                cells.push(by.join(" / "));
            }
        }
        cells.push(auto);
        println!("| {name} | {} |", cells.join(" | "));
    }
    variances_known(count);
}

/// Auto from the store beside the same design whose MAX each suite plans
/// from its true variance ([`Buy::Oracle`]): the most a design that learnt
/// every arm's variance could save, and the power it would keep at the
/// minimum effect.
fn variances_known(count: usize) {
    println!();
    println!(
        "Auto from the store, and the same design with MAX planned from each suite's true variance (an oracle of learnt variances; {count} suites per shape):"
    );
    println!();
    println!(
        "| shape | auto from the store: share of fixed 10's runs, power at exactly 0.2 | variances known: the same | variances known: runs per no difference / below 0.2 / 0.2 or more | variances known: big suites resolved against fixed 10 |"
    );
    println!("| --- | --- | --- | --- | --- |");
    for (name, pairs, scoring) in SHAPE_LIST {
        let suites = &shape_suites(SEED, pairs, scoring)[..count];
        let policy = AutoPolicy::new(PLANNED_CAP).planned_for(suites[0].0.len(), MARGIN);
        let f = setting(suites, SHAPES, Buy::Fixed(10));
        let mut cells = vec![];
        for (buy, label) in [
            (Buy::Stored(policy, ARCHIVE_RUNS), "store"),
            (Buy::Oracle(policy, ARCHIVE_RUNS), "variances known"),
        ] {
            let t = setting(suites, SHAPES, buy);
            let id = format!("yardstick/{name}/{label}");
            let share = 100.0 * t.c() / f.c();
            estimate(
                &format!("{id}/share of fixed 10"),
                share,
                100.0 * t.runs_m.half() / f.c(),
                0,
                " %",
                &format!("{count} suites"),
            );
            figures::share(
                &format!("{id}/power at 0.2"),
                t.at_minimum_right,
                t.at_minimum,
                1,
                "suites at exactly 0.2",
            );
            cells.push(format!(
                "{share:.0} %, {:.1} % of {}",
                pct(t.at_minimum_right, t.at_minimum),
                t.at_minimum
            ));
            if matches!(buy, Buy::Oracle(..)) {
                cells.push(runs_by_kind(&t, &id));
                paired(
                    &format!("{id}/b against fixed 10"),
                    &t.right_big,
                    &f.right_big,
                    "big suites",
                );
                cells.push(format!(
                    "{:+} of {}",
                    t.resolved as i64 - f.resolved as i64,
                    t.big
                ));
            }
        }
        println!("| {name} | {} |", cells.join(" | "));
    }
}
