//! The target, stated for users: `--runs auto` with MAX planned from the
//! minimum effect of interest (`AutoPolicy::planned_for`, 0.2), on the
//! noisiest suites of each size (every arm passing half the time, the with
//! arms 0.5 + d): the one-sided false-call rate at d = 0, the power at the
//! minimum effect, and the expected runs at 0, half the minimum and the
//! minimum, beside the most a suite can cost.

use crate::figures::{self, Moments};
use crate::sim::{Buy, Simulated, Truth};
use crate::store::ARCHIVE_RUNS;
use crate::tally::{on_cores, pct, verdict};
use bob_eval::stats::adaptive::expected_runs;
use bob_eval::stats::{AutoPolicy, Direction, PLANNED_CAP};

/// Suites per point.
const SUITES: usize = 2_000;
/// Suites per point of the plan from the store (fewer, so that `make
/// figures` stays under 2 minutes).
const STORE_SUITES: usize = 1_000;
/// The minimum effect of interest, in tenths.
const MEI: i64 = 2;
/// Suites per point of the price's check (each priced by its own 200
/// simulated evaluations).
const PRICE_SUITES: usize = 50;
/// Purchases per suite of the price's check, each from the suite's archive.
const REPEATS: u64 = 20;

/// Called clear above 0, and the runs, over `SUITES` coin-flip suites of `k`
/// cases with effect `d` tenths.
fn point(k: usize, d: i64, policy: AutoPolicy, salt: u64) -> (usize, Moments) {
    point_at(k, 5, d, Buy::Auto(policy), salt, SUITES)
}

/// [`point`] for suites whose without arms pass `without` tenths of the
/// time, bought as `buy`.
fn point_at(k: usize, without: i64, d: i64, buy: Buy, salt: u64, count: usize) -> (usize, Moments) {
    let suites = vec![Truth(vec![(without + d, without); k]); count];
    on_cores(&suites, |first, block| {
        let mut above = 0;
        let mut runs = Moments::default();
        for (i, truth) in block.iter().enumerate() {
            let mut source = Simulated::new(truth, first + i, salt);
            let o = buy.run(&mut source, None);
            above += usize::from(o.comparison.suite.advisory.direction() == Some(Direction::Above));
            runs.push(o.runs as f64);
        }
        (above, runs)
    })
    .into_iter()
    .fold((0, Moments::default()), |(a, mut m), (b, n)| {
        m.add(n);
        (a + b, m)
    })
}

pub(crate) fn plan(results: &mut Vec<String>) {
    println!();
    println!(
        "The target, stated for users ({SUITES} coin-flip suites per point, MAX planned for 80 % power at +0.2): one-sided false calls at d = 0, power at 0.2, runs per suite at d = 0 / 0.1 / 0.2, and the most"
    );
    println!();
    println!(
        "| design | cases | MAX | false calls above, d = 0 | power at 0.2 | runs at 0 / 0.1 / 0.2 | most |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    let designs = [
        ("auto", AutoPolicy::new(PLANNED_CAP), 2.5),
        (
            "confidence 95 %",
            AutoPolicy::for_level(PLANNED_CAP, 0.95),
            5.0,
        ),
    ];
    for (name, template, size) in designs {
        for k in [2usize, 3, 6, 8] {
            let policy = template.planned_for(k, f64::from(MEI as i32) / 10.0);
            let max = policy.max_per_arm;
            let salt = 0x9A7 ^ ((k as u64) << 8);
            let (false_above, null_runs) = point(k, 0, policy, salt);
            let (_, half_runs) = point(k, MEI / 2, policy, salt ^ 1);
            let (called, mei_runs) = point(k, MEI, policy, salt ^ 2);
            let id = format!("plan/{name}/{k} cases");
            figures::share(
                &format!("{id}/false calls above"),
                false_above,
                SUITES,
                2,
                "suites",
            );
            figures::share(&format!("{id}/power"), called, SUITES, 1, "suites");
            for (at, m) in [("0", null_runs), ("0.1", half_runs), ("0.2", mei_runs)] {
                figures::mean(&format!("{id}/runs at {at}"), m, 1, "", "suites");
            }
            let most = 2 * k as u32 * max;
            let (fa, pw) = (pct(false_above, SUITES), pct(called, SUITES));
            println!(
                "| {name} | {k} | {max} | {fa:.2} % | {pw:.1} % | {:.1} / {:.1} / {:.1} | {most} |",
                null_runs.mean(),
                half_runs.mean(),
                mei_runs.mean()
            );
            results.push(format!(
                "plan {name}, {k} cases, MAX {max}: false calls above at d = 0 {fa:.2} % (target <= {size} %) {}, power at 0.2 {pw:.1} % (target >= 80 %) {}",
                verdict(fa <= size),
                verdict(pw >= 80.0)
            ));
        }
    }
    from_the_store(results);
    pinned(results);
    price_check(results);
}

/// MAX planned again from an archive of [`ARCHIVE_RUNS`] stored without-arm
/// runs per case ([`AutoPolicy::for_archive`]): the one-sided false-call
/// rate at d = 0 and the power at the minimum effect on suites whose
/// without arms pass 0.5 (coin flips: the archive shows the noisiest
/// suite), 0.3 and 0.1 of the time, the with arms that + d.
fn from_the_store(results: &mut Vec<String>) {
    println!();
    println!(
        "MAX planned again from an archive of {ARCHIVE_RUNS} stored without-arm runs per case ({STORE_SUITES} suites per point; every case's without arm at p, its with arm at p + d; top-up {}): one-sided false calls at d = 0, power at 0.2, runs bought at 0 / 0.2",
        AutoPolicy::new(PLANNED_CAP).top_up
    );
    println!();
    println!(
        "| cases | p | MAX from the archive (median) | false calls above, d = 0 | power at 0.2 | runs at 0 / 0.2 |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for k in [2usize, 3, 6, 8] {
        let policy = AutoPolicy::new(PLANNED_CAP).planned_for(k, f64::from(MEI as i32) / 10.0);
        for without in [5i64, 3, 1] {
            let salt = 0x57A ^ ((k as u64) << 8) ^ ((without as u64) << 16);
            let buy = Buy::Stored(policy, ARCHIVE_RUNS);
            let (false_above, null_runs) = point_at(k, without, 0, buy, salt, STORE_SUITES);
            let (called, mei_runs) = point_at(k, without, MEI, buy, salt ^ 2, STORE_SUITES);
            // The MAX a typical archive of this suite plans.
            let mut maxes: Vec<u32> = (0..201)
                .map(|i| {
                    let truth = Truth(vec![(without + MEI, without); k]);
                    let archive = Simulated::new(&truth, i, salt).archive(ARCHIVE_RUNS, 0);
                    policy.for_archive(k, &archive).max_per_arm
                })
                .collect();
            maxes.sort_unstable();
            let max = maxes[maxes.len() / 2];
            let p = without as f64 / 10.0;
            let id = format!("plan/from the store/{k} cases/p {p:.1}");
            figures::share(
                &format!("{id}/false calls above"),
                false_above,
                STORE_SUITES,
                2,
                "suites",
            );
            figures::share(&format!("{id}/power"), called, STORE_SUITES, 1, "suites");
            figures::mean(&format!("{id}/runs at 0"), null_runs, 1, "", "suites");
            figures::mean(&format!("{id}/runs at 0.2"), mei_runs, 1, "", "suites");
            let (fa, pw) = (pct(false_above, STORE_SUITES), pct(called, STORE_SUITES));
            println!(
                "| {k} | {p:.1} | {max} | {fa:.2} % | {pw:.1} % | {:.1} / {:.1} |",
                null_runs.mean(),
                mei_runs.mean()
            );
            results.push(format!(
                "plan from the store, {k} cases, p {p:.1}, MAX {max}: false calls above at d = 0 {fa:.2} %, each suite its own archive (target: mean over archives <= 5 %) {}, power at 0.2 {pw:.1} % (target >= 80 %) {}",
                verdict(fa <= 5.0),
                verdict(pw >= 80.0)
            ));
        }
    }
}

/// The price line's "about" against what auto then bought: each suite has
/// its own archive of [`ARCHIVE_RUNS`] runs per case; the price is
/// simulated from that archive as `run` does (`expected_runs`: the rates the
/// archive shows), the runs bought are auto's mean over [`REPEATS`]
/// purchases on the suite's true rates from the same archive, at the
/// minimum effect and at none.
fn price_check(results: &mut Vec<String>) {
    println!();
    println!(
        "The price's expected runs against the runs bought ({PRICE_SUITES} suites per point, each its own archive of {ARCHIVE_RUNS} without-arm runs per case, priced from it by 200 simulated evaluations and bought on from it {REPEATS} times; every case's without arm at p, its with arm at p + d)"
    );
    println!();
    println!("| cases | p | d = 0.2: price / bought | d = 0: price / bought |");
    println!("| --- | --- | --- | --- |");
    let d = f64::from(MEI as i32) / 10.0;
    for k in [2usize, 8] {
        let policy = AutoPolicy::new(PLANNED_CAP).planned_for(k, d);
        for without in [5i64, 1] {
            let salt = 0x9C1 ^ ((k as u64) << 8) ^ ((without as u64) << 16);
            let suites: Vec<usize> = (0..PRICE_SUITES).collect();
            let [mut said, mut bought, mut said0, mut bought0] = [Moments::default(); 4];
            for part in on_cores(&suites, |first, block| {
                let mut m = [Moments::default(); 4];
                for i in first..first + block.len() {
                    let at = |effect: i64, repeat: u64| {
                        let truth = Truth(vec![(without + effect, without); k]);
                        Simulated::new(&truth, i, salt ^ (repeat << 40))
                    };
                    let archive = at(0, 0).archive(ARCHIVE_RUNS, 0);
                    let e = expected_runs(&policy, k, &archive, d);
                    let buy = Buy::Stored(policy, ARCHIVE_RUNS);
                    // The same archive, bought on REPEATS times: the
                    // suite's mean, as precise as its price.
                    let mean = |effect: i64| {
                        (0..REPEATS)
                            .map(|r| buy.run(&mut at(effect, r), None).runs as f64)
                            .sum::<f64>()
                            / REPEATS as f64
                    };
                    m[0].push(e.at_effect);
                    m[1].push(mean(MEI));
                    m[2].push(e.at_zero);
                    m[3].push(mean(0));
                }
                m
            }) {
                said.add(part[0]);
                bought.add(part[1]);
                said0.add(part[2]);
                bought0.add(part[3]);
            }
            let p = without as f64 / 10.0;
            let id = format!("plan/price/{k} cases/p {p:.1}");
            for (what, m) in [
                ("price at 0.2", said),
                ("bought at 0.2", bought),
                ("price at 0", said0),
                ("bought at 0", bought0),
            ] {
                figures::mean(&format!("{id}/{what}"), m, 1, "", "suites");
            }
            println!(
                "| {k} | {p:.1} | {:.1} / {:.1} | {:.1} / {:.1} |",
                said.mean(),
                bought.mean(),
                said0.mean(),
                bought0.mean()
            );
            results.push(format!(
                "price from the store, {k} cases, p {p:.1}: expected runs said / bought {:.2} at 0.2, {:.2} at 0",
                said.mean() / bought.mean(),
                said0.mean() / bought0.mean()
            ));
        }
    }
}

/// Power at the minimum effect where every without arm never passes (p = 0)
/// and the change lifts each with arm to 0.2: arms that look pinned on a
/// few runs. Fresh and from an archive of [`ARCHIVE_RUNS`] runs per case.
fn pinned(results: &mut Vec<String>) {
    println!();
    println!(
        "Arms at 0 ({STORE_SUITES} suites per point; every case's without arm at 0, its with arm at 0.2): power at 0.2, fresh and from an archive of {ARCHIVE_RUNS} runs per case"
    );
    println!();
    println!("| cases | power at 0.2, fresh | power at 0.2, from the store |");
    println!("| --- | --- | --- |");
    for k in [2usize, 3] {
        let policy = AutoPolicy::new(PLANNED_CAP).planned_for(k, f64::from(MEI as i32) / 10.0);
        let salt = 0x91E ^ ((k as u64) << 8);
        let (fresh, _) = point_at(k, 0, MEI, Buy::Auto(policy), salt, STORE_SUITES);
        let (stored, _) = point_at(
            k,
            0,
            MEI,
            Buy::Stored(policy, ARCHIVE_RUNS),
            salt ^ 1,
            STORE_SUITES,
        );
        let id = format!("plan/arms at 0/{k} cases");
        figures::share(&format!("{id}/fresh"), fresh, STORE_SUITES, 1, "suites");
        figures::share(
            &format!("{id}/from the store"),
            stored,
            STORE_SUITES,
            1,
            "suites",
        );
        let (f, st) = (pct(fresh, STORE_SUITES), pct(stored, STORE_SUITES));
        println!("| {k} | {f:.1} % | {st:.1} % |");
        results.push(format!(
            "plan, arms at 0, {k} cases: power at 0.2 fresh {f:.1} % {}, from the store {st:.1} % {} (target >= 80 %)",
            verdict(f >= 80.0),
            verdict(st >= 80.0)
        ));
    }
}
