//! The proof of `--runs auto` and of the gate's confidence mode, measured on
//! simulated suites with known truth (`docs/statistics.md` explains every
//! table). Every setting goes through the library's own `stats::fixed` /
//! `stats::adaptive` driver, advisory and the gate's compiled rule
//! (`gate::decide`, `gate::decide_at`), with a simulated `RunSource`.
//!
//! Run with `cargo bench --bench adaptive` (every default section), or name
//! sections: `cargo bench --bench adaptive -- main mode shapes oracle exact`;
//! `make figures` runs the default sections and sets each figure (a
//! `FIGURE` line, [`figures`]) beside the value the docs publish. Each
//! section's time goes to stderr. To explore,
//! `ADAPTIVE_POLICIES=part,part` measures only the alternatives whose names
//! contain a part (in `shapes` on both seeds and the no-difference suites,
//! in `main` on the single no-difference suites too), and
//! `ADAPTIVE_SHAPE_SUITES=N` draws N suites per shape instead of 4,000.
//!
//! - `main`: 10,000 suites of 4 scoring cases, each case's true pass
//!   probabilities drawn (fixed seed) from {0, 0.1, 0.3, 0.5, 0.7, 0.9, 1};
//!   (a) false calls (a clear call where the true difference is zero or of
//!   the other sign), (a0) the same among no-difference suites, (b)
//!   resolution (the right clear call where |true difference| ≥ 0.2), (c)
//!   runs per suite, (d) the share of no-difference suites the rule's
//!   `with > without` accepts; then 20,000 no-difference suites, single
//!   no-difference suites repeated, and other auto policies.
//! - `mode`: the confidence mode against the rule (issue 24, item 3).
//! - `shapes`: auto on the suites bob-eval's layout produces (item 4).
//! - `oracle`: a yardstick (not a bound): the runs a rule that knew when
//!   each suite becomes clear at 95 % would spend with the same test, per
//!   shape.
//! - `exact`: the trigger pair's outcomes at 4 to 8 runs per arm, the
//!   score test's one-sided p-value against the exact (Barnard-type) one.
//! - `alternatives` (only when named, or with `ADAPTIVE_POLICIES`): the
//!   other policies of earlier rounds, beside `main` and `shapes`.
//! - `store`: auto from an archive of stored without-arm runs (its top-ups
//!   counted) on every shape.
//! - `archive`: the false-call rate given an archive.
//! - `yardstick`: what Wald's SPRT of 0 against the minimum effect would
//!   spend from the same archive on every shape, on the suites' own
//!   variances and on the plan's (an idealisation, not a bound); and auto
//!   from the store with MAX planned from each suite's true variance (an
//!   oracle of a design that learnt the variances).
//! - `power`: the share called clear against the true effect, per number
//!   of cases.
//! - `frontier` (only when named; minutes): a grid of 288 designs (MAX,
//!   looks, first round, futility, margin) on every shape, the cheapest
//!   that keeps fixed 10's resolution per shape, checked on the second
//!   seed (`ADAPTIVE_FRONTIER_SUITES` suites per shape, 2,000 unless set).

mod exact;
mod figures;
mod frontier;
mod grid;
mod mode;
mod plan;
mod policies;
mod shapes;
mod sim;
mod store;
mod tally;

use grid::{NULLS, SUITES, draw_suites, main_grid};
use sim::SEED;
use std::time::Instant;

/// Runs one section, and says on stderr how long it took (stdout holds the
/// figures alone, so two runs can be compared line by line).
fn timed(section: &str, run: impl FnOnce()) {
    let started = Instant::now();
    run();
    eprintln!(
        "adaptive: {section}: {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

fn main() {
    let started = Instant::now();
    let asked: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wants = |s: &str| {
        asked.is_empty()
            || asked.iter().any(|a| a == s)
            || (asked.iter().any(|a| a == "alternatives") && (s == "main" || s == "shapes"))
    };
    sim::check_document();
    let truths = draw_suites(SEED, SUITES, false);
    let nulls = draw_suites(SEED ^ 0xDD17, NULLS, true);
    let mut results = vec![];
    if wants("main") {
        timed("main", || main_grid(&truths, &nulls, &mut results));
    }
    if wants("mode") {
        timed("mode", || {
            mode::confidence_mode(&truths, &nulls, &mut results)
        });
    }
    if wants("shapes") {
        timed("shapes", || shapes::shapes_grid(&mut results));
    }
    if wants("store") {
        timed("store", || store::store(&mut results));
    }
    if wants("archive") {
        timed("archive", || store::given_archive(&mut results));
    }
    if wants("yardstick") {
        timed("yardstick", store::yardstick);
    }
    if wants("power") {
        timed("power", || store::power(&mut results));
    }
    if wants("plan") {
        timed("plan", || plan::plan(&mut results));
    }
    if wants("oracle") {
        timed("oracle", shapes::oracle);
    }
    // A search over a grid of designs: asked for by name only (minutes).
    if asked.iter().any(|a| a == "frontier") {
        timed("frontier", frontier::frontier);
    }
    if wants("exact") {
        timed("exact", exact::exact);
    }
    println!();
    println!(
        "adaptive: {:.1} s for everything",
        started.elapsed().as_secs_f64()
    );
    for r in results {
        println!("RESULT {r}");
    }
}
