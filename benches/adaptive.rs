//! The proof of `--runs auto`, measured: 10,000 simulated suites of 4
//! scoring cases, each case's true pass probabilities with and without the
//! item drawn (fixed seed) from {0, 0.1, 0.3, 0.5, 0.7, 0.9, 1}. Every
//! setting (fixed --runs 1, 3, 5, 10, and auto) goes through the library's
//! own `stats::fixed` / `stats::adaptive` driver, advisory and the gate's
//! compiled rule (`gate::decide`), with a simulated `RunSource`.
//!
//! Run with `cargo bench --bench adaptive`. Prints, per setting:
//! (a) false-call rate: a clear improvement (or regression) where the true
//!     mean difference is zero or of the other sign, over all suites, and
//!     (a0) the same among the suites with no true difference;
//! (b) resolution: among suites with a true mean difference of at least 0.2
//!     in size, the share with the right clear call;
//! (c) mean runs bought per suite (both arms, all cases);
//! (d) the share of suites with no true difference that the rule's
//!     `with > without` (`helps`) accepts.

use bob_eval::document::{Baseline, SKILL_EVAL, SkillEval, Verdict, round4};
use bob_eval::gate::{Status, decide};
use bob_eval::stats::{
    AutoOutcome, AutoPolicy, CaseRuns, Direction, Round, RunRequest, RunSource, Stop, adaptive,
    fixed,
};
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::time::Instant;

const SUITES: usize = 10_000;
/// Extra suites with no true difference, for a tighter (a0).
const NULLS: usize = 20_000;
/// Repeats of each single no-difference suite.
const WORST: usize = 10_000;
const CASES: usize = 4;
const SEED: u64 = 0x5EED_2026_0001;
/// True pass probabilities, in tenths (integers, so "no difference" is exact).
const TENTHS: [i64; 7] = [0, 1, 3, 5, 7, 9, 10];
/// What one simulated run costs; the ceiling never binds.
const RUN_COST: f64 = 0.01;
const CEILING: f64 = 1e9;

/// splitmix64: small, fast, and fully determined by its seed.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) from the top 53 bits.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: usize) -> usize {
        (self.unit() * n as f64) as usize
    }
}

/// One suite's truth: per case, the pass probabilities in tenths (with, without).
#[derive(Clone, Copy)]
struct Truth([(i64, i64); CASES]);

impl Truth {
    /// Σ (with − without) in tenths: the true mean difference is this / 40.
    fn diff_tenths(&self) -> i64 {
        self.0.iter().map(|(w, wo)| w - wo).sum()
    }
}

/// A simulated platform: every run of a case's arm passes with its true
/// probability. Each case and arm has its own stream, so every setting sees
/// the same run sequence for the same case (the first N runs of auto are the
/// runs of fixed --runs N).
struct Simulated {
    truth: Truth,
    streams: Vec<[SplitMix; 2]>,
}

impl Simulated {
    fn new(truth: Truth, suite: usize) -> Self {
        let streams = (0..CASES)
            .map(|c| {
                let base = SEED ^ ((suite as u64) << 20) ^ ((c as u64) << 4);
                [SplitMix(base ^ 0xA), SplitMix(base ^ 0xB)]
            })
            .collect();
        Simulated { truth, streams }
    }
}

impl RunSource for Simulated {
    type Error = Infallible;

    fn run(&mut self, requests: &[RunRequest], _budget: f64) -> Result<Round, Infallible> {
        let cases = requests
            .iter()
            .map(|r| {
                let (w, wo) = self.truth.0[r.case];
                let [sw, swo] = &mut self.streams[r.case];
                let draw = |s: &mut SplitMix, p: i64| -> Vec<f64> {
                    (0..r.runs_per_arm)
                        .map(|_| f64::from(u8::from(s.unit() * 10.0 < p as f64)))
                        .collect()
                };
                CaseRuns {
                    case: r.case,
                    with: draw(sw, w),
                    without: draw(swo, wo),
                    cost_usd: 2.0 * f64::from(r.runs_per_arm) * RUN_COST,
                }
            })
            .collect();
        Ok(Round {
            cases,
            partial_reason: None,
        })
    }
}

/// The gate's compiled rule on the outcome's point estimates, as the reducer
/// would write them (empty baseline: `beats-best` falls back to the same
/// comparison). True when the `helps` condition (`with > without`) passes.
/// The document is built from JSON so that optional fields added to
/// `skill-eval/1` later keep their defaults here.
fn rule_accepts(o: &AutoOutcome) -> bool {
    let with = round4(o.comparison.suite.with.value);
    let without = round4(o.comparison.suite.without.value);
    let delta = round4(with - without);
    let result: SkillEval = serde_json::from_value(serde_json::json!({
        "schema": SKILL_EVAL, "item": "sim", "run": "eval-sim-20260101T000000Z",
        "date": "2026-01-01", "model": "sim", "with": with, "without": without,
        "delta": delta, "verdict": Verdict::of(delta), "trigger_rate": null,
        "cost_usd": round4(o.cost_usd), "max_cost_usd": CEILING, "partial": false,
        "cases": [],
    }))
    .expect("a skill-eval/1 document");
    let d = decide(&result, &Baseline::empty("sim"));
    d.conditions
        .iter()
        .any(|c| c.name == "helps" && c.status == Status::Pass)
}

#[derive(Default)]
struct Tally {
    false_calls: usize,
    null_false_calls: usize,
    resolved: usize,
    runs: u64,
    null_accepted: usize,
    stops: BTreeMap<String, usize>,
}

struct Counts {
    suites: usize,
    null: usize,
    big: usize,
}

/// Run every suite through `run` and count (a) to (d), the suites split over
/// the machine's cores (each suite has its own streams, so the split changes
/// nothing in the figures).
fn setting(truths: &[Truth], run: impl Fn(&mut Simulated) -> AutoOutcome + Sync) -> Tally {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = truths.len().div_ceil(threads).max(1);
    let run = &run;
    let parts: Vec<Tally> = std::thread::scope(|scope| {
        let handles: Vec<_> = truths
            .chunks(chunk)
            .enumerate()
            .map(|(k, slice)| scope.spawn(move || tally(slice, k * chunk, run)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut t = Tally::default();
    for p in parts {
        t.false_calls += p.false_calls;
        t.null_false_calls += p.null_false_calls;
        t.resolved += p.resolved;
        t.runs += p.runs;
        t.null_accepted += p.null_accepted;
        for (k, v) in p.stops {
            *t.stops.entry(k).or_default() += v;
        }
    }
    t
}

/// [`setting`] over one slice of suites whose first has index `first`.
fn tally(truths: &[Truth], first: usize, run: &impl Fn(&mut Simulated) -> AutoOutcome) -> Tally {
    let mut t = Tally::default();
    for (i, truth) in truths.iter().enumerate() {
        let mut source = Simulated::new(*truth, first + i);
        let o = run(&mut source);
        let s = truth.diff_tenths();
        let call = o.comparison.suite.advisory.direction();
        let wrong = match call {
            Some(Direction::Above) => s <= 0,
            Some(Direction::Below) => s >= 0,
            None => false,
        };
        t.false_calls += usize::from(wrong);
        if s == 0 {
            t.null_false_calls += usize::from(wrong);
            t.null_accepted += usize::from(rule_accepts(&o));
        }
        if s.abs() >= 8 {
            let right = match call {
                Some(Direction::Above) => s > 0,
                Some(Direction::Below) => s < 0,
                None => false,
            };
            t.resolved += usize::from(right);
        }
        t.runs += o.runs;
        let stop = match &o.stop {
            Stop::SourceStopped { reason } => format!("source-stopped ({reason})"),
            other => serde_json::to_value(other).unwrap()["stop"]
                .as_str()
                .unwrap()
                .to_string(),
        };
        *t.stops.entry(stop).or_default() += 1;
    }
    t
}

fn pct(n: usize, d: usize) -> f64 {
    if d == 0 {
        0.0
    } else {
        100.0 * n as f64 / d as f64
    }
}

fn verdict(ok: bool) -> &'static str {
    if ok { "PASS" } else { "MISS" }
}

/// `count` suites of 4 cases, probabilities drawn from [`TENTHS`]; with
/// `null_only`, only those whose true mean difference is zero are kept.
fn draw_suites(seed: u64, count: usize, null_only: bool) -> Vec<Truth> {
    let mut rng = SplitMix(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut cases = [(0, 0); CASES];
        for c in &mut cases {
            *c = (TENTHS[rng.below(7)], TENTHS[rng.below(7)]);
        }
        let t = Truth(cases);
        if !null_only || t.diff_tenths() == 0 {
            out.push(t);
        }
    }
    out
}

fn main() {
    let started = Instant::now();
    let truths = draw_suites(SEED, SUITES, false);
    let counts = Counts {
        suites: SUITES,
        null: truths.iter().filter(|t| t.diff_tenths() == 0).count(),
        big: truths.iter().filter(|t| t.diff_tenths().abs() >= 8).count(),
    };
    let policy = AutoPolicy::new(10);
    println!(
        "adaptive: {} suites x {CASES} cases, seed {SEED:#x}; {} with no true difference, {} with |true difference| >= 0.2",
        counts.suites, counts.null, counts.big
    );
    println!(
        "adaptive: auto policy {policy:?}; schedule {:?}; confidence per look {:?}",
        policy.schedule(),
        policy.confidences().unwrap()
    );

    let mut rows: Vec<(String, Tally)> = vec![];
    for n in [1u32, 3, 5, 10] {
        let t = setting(&truths, |s| fixed(s, CASES, n, CEILING).unwrap());
        rows.push((format!("--runs {n}"), t));
    }
    let t = setting(&truths, |s| adaptive(s, CASES, &policy, CEILING).unwrap());
    rows.push(("--runs auto".into(), t));

    println!();
    println!(
        "| setting | (a) false calls, all suites | (a0) false calls, no-difference suites | (b) resolution, abs(diff) >= 0.2 | (c) runs per suite | (d) rule accepts, no-difference suites |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for (name, t) in &rows {
        println!(
            "| {name} | {:.2} % | {:.2} % | {:.1} % | {:.1} | {:.1} % |",
            pct(t.false_calls, counts.suites),
            pct(t.null_false_calls, counts.null),
            pct(t.resolved, counts.big),
            t.runs as f64 / counts.suites as f64,
            pct(t.null_accepted, counts.null),
        );
    }
    let auto = &rows[4].1;
    println!();
    let stops: Vec<String> = auto
        .stops
        .iter()
        .map(|(k, v)| format!("{k} {:.1} %", pct(*v, counts.suites)))
        .collect();
    println!("adaptive: auto stops: {}", stops.join(", "));

    // (a0) rests on the few no-difference suites of the main draw; measure it
    // again on NULLS suites drawn the same way and kept only when the true
    // mean difference is zero.
    let nulls = draw_suites(SEED ^ 0xDD17, NULLS, true);
    println!();
    println!(
        "| setting | (a0) false calls, {NULLS} no-difference suites | (d) rule accepts | runs per suite |"
    );
    println!("| --- | --- | --- | --- |");
    let mut null_auto = 0.0;
    for n in [1u32, 3, 5, 10, 0] {
        let (name, t) = if n == 0 {
            let t = setting(&nulls, |s| adaptive(s, CASES, &policy, CEILING).unwrap());
            null_auto = pct(t.false_calls, NULLS);
            ("--runs auto".to_string(), t)
        } else {
            let t = setting(&nulls, |s| fixed(s, CASES, n, CEILING).unwrap());
            (format!("--runs {n}"), t)
        };
        println!(
            "| {name} | {:.2} % | {:.1} % | {:.1} |",
            pct(t.false_calls, NULLS),
            pct(t.null_accepted, NULLS),
            t.runs as f64 / NULLS as f64
        );
    }

    // Single no-difference suites repeated: where the intervals are least exact.
    println!();
    println!("| no-difference suite, {WORST} times | (a0) --runs 3 | (a0) --runs 10 | (a0) auto |");
    println!("| --- | --- | --- | --- |");
    for (name, cases) in [
        ("every case 0.5 / 0.5", [(5, 5); CASES]),
        ("every case 0.9 / 0.9", [(9, 9); CASES]),
        (
            "0.7/0.3, 0.3/0.7, 0.5/0.5, 0.5/0.5",
            [(7, 3), (3, 7), (5, 5), (5, 5)],
        ),
        (
            "1/0, 0/1, 0.5/0.5, 0.5/0.5",
            [(10, 0), (0, 10), (5, 5), (5, 5)],
        ),
    ] {
        let same = vec![Truth(cases); WORST];
        let f3 = setting(&same, |s| fixed(s, CASES, 3, CEILING).unwrap());
        let f10 = setting(&same, |s| fixed(s, CASES, 10, CEILING).unwrap());
        let au = setting(&same, |s| adaptive(s, CASES, &policy, CEILING).unwrap());
        println!(
            "| {name} | {:.2} % | {:.2} % | {:.2} % |",
            pct(f3.false_calls, WORST),
            pct(f10.false_calls, WORST),
            pct(au.false_calls, WORST)
        );
    }

    // The trade-off the default policy sits on: other policies, same suites.
    println!();
    println!("| other auto policies (same suites) | (a0) | (b) | (c) |");
    println!("| --- | --- | --- | --- |");
    let base = AutoPolicy::new(10);
    for (name, p) in [
        (
            "no futility stop",
            AutoPolicy {
                futility: 0.0,
                ..base
            },
        ),
        (
            "futility 0.2",
            AutoPolicy {
                futility: 0.2,
                ..base
            },
        ),
        (
            "futility from the first look (2 runs)",
            AutoPolicy {
                futility_from: 2,
                ..base
            },
        ),
        (
            "futility from 8 runs",
            AutoPolicy {
                futility_from: 8,
                ..base
            },
        ),
        (
            "first round 3 (3, 6, 10)",
            AutoPolicy {
                first_round: 3,
                ..base
            },
        ),
        (
            "first round 4 (4, 8, 10)",
            AutoPolicy {
                first_round: 4,
                ..base
            },
        ),
        (
            "growth 2.5 (2, 5, 10), futility from 5",
            AutoPolicy {
                growth: 2.5,
                futility_from: 5,
                ..base
            },
        ),
        (
            "interim alpha 0.01",
            AutoPolicy {
                interim_alpha: 0.01,
                ..base
            },
        ),
    ] {
        let t = setting(&truths, |s| adaptive(s, CASES, &p, CEILING).unwrap());
        println!(
            "| {name} | {:.2} % | {:.1} % | {:.1} |",
            pct(t.null_false_calls, counts.null),
            pct(t.resolved, counts.big),
            t.runs as f64 / counts.suites as f64
        );
    }
    println!();
    println!(
        "adaptive: {:.1} s for everything",
        started.elapsed().as_secs_f64()
    );

    let fixed10 = &rows[3].1;
    let a = pct(auto.false_calls, counts.suites);
    let (b, b10) = (
        pct(auto.resolved, counts.big),
        pct(fixed10.resolved, counts.big),
    );
    let (c, c10) = (
        auto.runs as f64 / counts.suites as f64,
        fixed10.runs as f64 / counts.suites as f64,
    );
    println!(
        "RESULT adaptive auto (a) false calls over all suites: {a:.2} % (target <= 5 %) {}",
        verdict(a <= 5.0)
    );
    println!(
        "RESULT adaptive auto (a0) false calls among {NULLS} no-difference suites: {null_auto:.2} % (target <= 5 %) {}",
        verdict(null_auto <= 5.0)
    );
    println!(
        "RESULT adaptive auto (b) resolution: {b:.1} % vs fixed --runs 10 {b10:.1} % (target >= fixed 10) {}",
        verdict(b >= b10)
    );
    println!(
        "RESULT adaptive auto (c) runs per suite: {c:.1} = {:.0} % of fixed --runs 10's {c10:.0} (target <= 50 %) {}",
        100.0 * c / c10,
        verdict(c <= 0.5 * c10)
    );
}
