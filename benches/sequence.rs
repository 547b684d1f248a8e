//! Errors over a sequence of proposals (`docs/statistics.md`, "Errors over
//! a sequence"), measured on simulated suites with known truth through the
//! gate's own functions (`gate::decide_in_sequence`, the best measured
//! again head to head as `propose` does).
//!
//! Run with `cargo bench --bench sequence` (every section; fixed seeds, std
//! threads: 32 CPU-seconds in all, about 16 s on 2 free cores), or name
//! sections: `-- fwer power mixed auto` (and `timing`, only when named).
//! `SEQUENCE_SEQUENCES=N` sets the simulated sequences per row (1,000; `power`
//! decides as many single proposals per row, `mixed` half as many sequences).
//!
//! - `fwer`: 12 proposals that change nothing, decided one after another
//!   under the confidence mode at 95 %; the share of sequences with at least
//!   one accept (every accept is false), at the plain level, under the
//!   shipped online fallback, and under the alternatives measured.
//! - `power`: one proposal a true +0.2 above what it is compared with,
//!   decided at the plain 95 % and at the level the sequence gives it; the
//!   power ratio (adjusted over plain) with its Monte-Carlo error.
//! - `mixed`: 12 proposals, each a real +0.2 with probability 0.3, else
//!   nothing: the chance of any false accept and the real gains accepted,
//!   for the fallback and LORD++ (which controls the false discovery rate,
//!   not this chance).
//! - `auto`: what the product ships for a decision that records under
//!   `--runs auto` (`propose`, `gate --record`): plain auto buys at the
//!   level the sequence holds the decision to, its MAX planned for 80 %
//!   power at +0.2 there (`eval::auto_policy`, as `eval::buying_level`
//!   plans it) on the adaptive bench's simulated
//!   platform; the chance of any false accept over 12 no-effect proposals,
//!   power on +0.2 against auto at 95 % on the same runs' streams, and the
//!   runs each spends (the price of holding the error).
//!
//! Beside each table row, one `FIGURE` line per figure `docs/statistics.md`
//! publishes from it (`make figures`; the convention of
//! `benches/adaptive/figures.rs`): the id (section, start, cases, runs,
//! column, as the doc labels them), the value as the table prints it, its
//! Monte-Carlo error (a share's 95 % Wilson interval, a ratio's 95 %
//! half-width, 1.96 delta-method standard errors; the tables print one
//! standard error) and what it rests on.

use bob_eval::document::{
    Baseline, BestEntry, BestEvidence, CaseEval, SKILL_EVAL, SkillEval, Verdict, round4,
};
use bob_eval::gate::{Mode, decide_in_sequence};
use bob_eval::stats::sequence::{HORIZON, Previous, Sequence, gamma};
use bob_eval::stats::{CONFIDENCE, CaseRuns, Comparison, adaptive_against, compare};
use std::sync::OnceLock;
use std::time::Instant;

#[path = "adaptive/sim.rs"]
#[allow(dead_code)] // the simulated platform and its document only
mod sim;

#[path = "adaptive/figures.rs"]
#[allow(dead_code)] // the sequence prints shares and ratios only
mod figures;
use figures::figure;

/// The mode's level: α = 5 % over the sequence.
const LEVEL: f64 = 0.95;
const FAMILY: f64 = 1.0 - LEVEL;
/// Proposals per sequence.
const PROPOSALS: u32 = 12;
/// The effect whose power is measured.
const EFFECT: f64 = 0.2;
/// Each case's true pass rate of the best (or of the item), cycled: near ½,
/// where pass/fail runs are noisiest.
const BASES: [f64; 8] = [0.5, 0.4, 0.6, 0.5, 0.3, 0.7, 0.5, 0.4];
/// Suite shapes: cases per suite (bob-eval's trigger pair, 3, 6 and 8 cases).
const SHAPES: [usize; 4] = [2, 3, 6, 8];
/// Runs per arm of each case.
const RUNS: [usize; 2] = [10, 30];

/// SplitMix64, the generator the library's own simulations use.
use bob_eval::stats::simulate::SplitMix as Rng;

/// One evaluation: per case the true (with, without) pass rates, `runs` per
/// arm, as `bob-eval run` would write it, on the item version `version`.
fn measure(rng: &mut Rng, truth: &[(f64, f64)], runs: usize, version: u64) -> SkillEval {
    document(&compare(&draw(rng, truth, runs), CONFIDENCE), version)
}

/// Each case's runs: `runs` per arm, passing with the arm's true rate.
fn draw(rng: &mut Rng, truth: &[(f64, f64)], runs: usize) -> Vec<CaseRuns> {
    truth
        .iter()
        .enumerate()
        .map(|(case, &(w, wo))| CaseRuns {
            case,
            with: rng.runs(w, runs),
            without: rng.runs(wo, runs),
            cost_usd: 0.0,
            trigger: Default::default(),
        })
        .collect()
}

/// The document `run` writes for a comparison: a copy of [`template`] with
/// the comparison's numbers set, the same document [`document_json`] builds
/// (checked at start by [`check_document`]), without a trip through JSON
/// per evaluation (most of this bench's time when it took one).
fn document(c: &Comparison, version: u64) -> SkillEval {
    let (doc, case) = template();
    let mut d = sim::fill(doc, case, c);
    d.item_digest = Some(format!("{version:064x}"));
    d
}

/// The document's fixed parts, read once from JSON so that optional fields
/// added to `skill-eval/1` later keep their defaults: the document of a
/// one-case comparison (its cases emptied) and that case.
fn template() -> &'static (SkillEval, CaseEval) {
    static TEMPLATE: OnceLock<(SkillEval, CaseEval)> = OnceLock::new();
    TEMPLATE.get_or_init(|| {
        let one = CaseRuns {
            case: 0,
            with: vec![1.0, 0.0],
            without: vec![0.0, 0.0],
            cost_usd: 0.0,
            trigger: Default::default(),
        };
        let mut doc = document_json(&compare(&[one], CONFIDENCE), 0);
        let case = doc.cases.pop().expect("one case");
        (doc, case)
    })
}

/// [`document`] and [`document_json`] agree on comparisons of every shape
/// the bench measures: a panic before any figure is printed if they part.
fn check_document() {
    let mut rng = Rng(0xD0C);
    for cases in SHAPES {
        for runs in RUNS {
            for i in 0..8 {
                let truth: Vec<(f64, f64)> = (0..cases)
                    .map(|c| (BASES[(c + i) % 8], BASES[(c + 3 * i) % 8]))
                    .collect();
                let c = compare(&draw(&mut rng, &truth, runs), CONFIDENCE);
                assert_eq!(document(&c, 7), document_json(&c, 7), "{cases} cases");
            }
        }
    }
}

/// The document built from JSON, field by field.
fn document_json(c: &Comparison, version: u64) -> SkillEval {
    let docs: Vec<serde_json::Value> = c
        .cases
        .iter()
        .map(|s| {
            let s = s.clone().rounded();
            serde_json::json!({
                "name": format!("case-{}", s.case), "with": s.with.value,
                "without": s.without.value, "delta": s.delta.value, "verdict": null,
                "trigger_rate": null, "cost_usd": 0.0, "runs": s.runs_with + s.runs_without,
                "stats": s,
            })
        })
        .collect();
    let with = round4(c.suite.with.value);
    let without = round4(c.suite.without.value);
    serde_json::from_value(serde_json::json!({
        "schema": SKILL_EVAL, "item": "sim", "run": "eval-sim-20260101T000000Z",
        "date": "2026-01-01", "model": "sim", "with": with, "without": without,
        "delta": round4(with - without), "verdict": Verdict::of(round4(with - without)),
        "trigger_rate": null,
        "cost_usd": 0.0, "max_cost_usd": 100.0, "partial": false, "cases": docs,
        "item_digest": format!("{version:064x}"),
        "stats": {"confidence": c.confidence, "suite": c.suite.clone().rounded()},
    }))
    .expect("a skill-eval/1 document")
}

/// The best an accepted result leaves: its `with`, its runs and its version.
fn best_of(r: &SkillEval) -> BestEntry {
    BestEntry {
        score: round4(r.with),
        without: round4(r.without),
        trigger_rate: None,
        run: r.run.clone(),
        date: r.date.clone(),
        suite_digest: None,
        cases: None,
        runs: r.stats.as_ref().map(|s| s.suite.runs_per_arm),
        interval: None,
        evidence: BestEvidence::of(r),
        confidence: Some(LEVEL),
        item_digest: r.item_digest.clone(),
        measured_with: None,
    }
}

/// How each proposal's level is set.
#[derive(Clone, Copy, PartialEq)]
enum Procedure {
    /// Every decision at the mode's level alone (today's gate without the sequence).
    Plain,
    /// The shipped online fallback ([`Sequence::next`]).
    Fallback,
    /// The online fallback with γᵢ = H/((i + H − 1)(i + H)), a smooth decline.
    Smooth,
    /// Alpha-spending: αᵢ = α·γᵢ, nothing carried forward.
    Spending,
    /// LORD++ (Ramdas et al. 2017) on the shipped γ, W₀ = α/2: earns α back
    /// from every accept; controls the false discovery rate.
    LordPlus,
}

impl Procedure {
    fn name(self) -> &'static str {
        match self {
            Procedure::Plain => "plain 95 % each",
            Procedure::Fallback => "online fallback, shipped γ",
            Procedure::Smooth => "online fallback, smooth γ",
            Procedure::Spending => "alpha-spending, shipped γ",
            Procedure::LordPlus => "LORD++, shipped γ",
        }
    }

    /// The sequence for proposal `i` (from 1), after the outcomes so far.
    fn level(self, history: &[(Sequence, bool)]) -> Option<Sequence> {
        let i = history.len() as u32 + 1;
        let previous = history.last().map(|&(s, accepted)| Previous {
            proposal: s.proposal,
            alpha: s.alpha,
            accepted,
        });
        let manual = |alpha: f64, carried: f64| Sequence {
            proposal: i,
            family: FAMILY,
            alpha,
            carried,
            level: 1.0 - alpha,
        };
        match self {
            Procedure::Plain => None,
            Procedure::Fallback => Some(Sequence::next(FAMILY, previous)),
            Procedure::Smooth => {
                let h = f64::from(HORIZON);
                let g = h / ((f64::from(i) + h - 1.0) * (f64::from(i) + h));
                let carried = previous.filter(|p| p.accepted).map_or(0.0, |p| p.alpha);
                Some(manual((FAMILY * g + carried).min(FAMILY), carried))
            }
            Procedure::Spending => Some(manual(FAMILY * gamma(i), 0.0)),
            Procedure::LordPlus => {
                let w0 = FAMILY / 2.0;
                let accepts: Vec<u32> = history
                    .iter()
                    .filter(|(_, a)| *a)
                    .map(|(s, _)| s.proposal)
                    .collect();
                let mut alpha = gamma(i) * w0;
                for (j, &tau) in accepts.iter().enumerate() {
                    let earned = if j == 0 { FAMILY - w0 } else { FAMILY };
                    alpha += earned * gamma(i - tau);
                }
                Some(manual(alpha.min(0.5), 0.0))
            }
        }
    }
}

/// Where a sequence starts: no best (an item that does nothing), or a best
/// in force that the proposals are compared with head to head.
#[derive(Clone, Copy, PartialEq)]
enum Start {
    NoBest,
    Best,
}

/// Per case: (true rate of the version compared with, of the without arm).
fn truth(cases: usize, start: Start) -> Vec<(f64, f64)> {
    (0..cases)
        .map(|c| {
            let b = BASES[c % BASES.len()];
            match start {
                Start::NoBest => (b, b),
                Start::Best => (b, b - 0.2),
            }
        })
        .collect()
}

/// One sequence of `PROPOSALS` proposals, each real (+`EFFECT` on every
/// case) with probability `real`; returns (false accepts, real gains, real
/// gains accepted).
fn sequence(
    rng: &mut Rng,
    cases: usize,
    runs: usize,
    start: Start,
    real: f64,
    procedure: Procedure,
) -> (u32, u32, u32) {
    let mut now = truth(cases, start);
    let mut baseline = Baseline::empty("sim");
    let mut version = 1u64;
    if start == Start::Best {
        let first = measure(rng, &now, runs, version);
        baseline.best.insert("sim".into(), best_of(&first));
    }
    let mut history: Vec<(Sequence, bool)> = Vec::new();
    let (mut false_accepts, mut gains, mut gains_accepted) = (0, 0, 0);
    for _ in 0..PROPOSALS {
        let is_real = rng.unit() < real;
        let proposed: Vec<(f64, f64)> = now
            .iter()
            .map(|&(w, wo)| {
                if is_real {
                    ((w + EFFECT).min(1.0), wo)
                } else {
                    (w, wo)
                }
            })
            .collect();
        let new = measure(rng, &proposed, runs, version + 1);
        let fresh = baseline.best.get("sim").map(|b| {
            let mut f = measure(rng, &now, runs, 0);
            f.item_digest.clone_from(&b.item_digest);
            f
        });
        let level = procedure.level(&history);
        let d = decide_in_sequence(
            &new,
            &baseline,
            false,
            Mode::Confidence(LEVEL),
            fresh.as_ref(),
            level,
        );
        if let Some(s) = level {
            history.push((s, d.accepted));
        } else {
            history.push((Sequence::next(FAMILY, None), d.accepted));
        }
        if is_real {
            gains += 1;
            gains_accepted += u32::from(d.accepted);
        } else {
            false_accepts += u32::from(d.accepted);
        }
        if d.accepted {
            version += 1;
            now = proposed;
            baseline.best.insert("sim".into(), best_of(&new));
        }
    }
    (false_accepts, gains, gains_accepted)
}

/// Run `n` jobs over the machine's threads, each with its own seeded
/// generator; sum what they return.
fn parallel<T: Send + Default + std::ops::AddAssign>(
    n: usize,
    seed: u64,
    job: impl Fn(&mut Rng) -> T + Sync,
) -> T {
    let threads = std::thread::available_parallelism().map_or(2, |t| t.get());
    let job = &job;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mut total = T::default();
                    for i in (t..n).step_by(threads) {
                        let mut rng = Rng(seed ^ (i as u64).wrapping_mul(0xD1B5_4A32_D192_ED03));
                        total += job(&mut rng);
                    }
                    total
                })
            })
            .collect();
        let mut total = T::default();
        for h in handles {
            total += h.join().expect("a simulation thread");
        }
        total
    })
}

/// Counts summed over threads.
#[derive(Default, Clone, Copy)]
struct Tally {
    n: f64,
    any_false: f64,
    gains: f64,
    gains_accepted: f64,
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, o: Tally) {
        self.n += o.n;
        self.any_false += o.any_false;
        self.gains += o.gains;
        self.gains_accepted += o.gains_accepted;
    }
}

fn pct(p: f64) -> String {
    format!("{:.2} %", 100.0 * p)
}

/// z for a two-sided 95 % interval (as `figures`).
const Z: f64 = 1.959_963_984_540_054;

/// The `FIGURE` line of a share `k` of `n`: the value as [`pct`] prints it
/// in the tables, its 95 % Wilson interval.
fn share_figure(id: &str, k: f64, n: f64, basis: &str) {
    let (value, error) = if n <= 0.0 {
        ("–".to_string(), "–".to_string())
    } else {
        let p = k / n;
        let denom = 1.0 + Z * Z / n;
        let centre = (p + Z * Z / (2.0 * n)) / denom;
        let half = Z * (p * (1.0 - p) / n + Z * Z / (4.0 * n * n)).sqrt() / denom;
        (
            pct(p),
            format!(
                "95 % [{:.2}, {:.2}] %",
                100.0 * (centre - half).max(0.0),
                100.0 * (centre + half).min(1.0)
            ),
        )
    };
    figure(id, &value, &error, basis);
}

/// A share and its Monte-Carlo standard error.
fn share(k: f64, n: f64) -> String {
    let p = k / n.max(1.0);
    format!("{} ± {}", pct(p), pct((p * (1.0 - p) / n.max(1.0)).sqrt()))
}

/// Any false accept over one sequence of `PROPOSALS` proposals that change
/// nothing, for each of `procedures`. Until the first accept every
/// procedure sees the same item, best and measurements (common random
/// numbers), and with nothing accepted each procedure's levels are fixed,
/// so one pass decides all of them; a stricter level accepts only what the
/// plain one does (a one-sided bound falls as its level rises).
fn null_sequence(
    rng: &mut Rng,
    cases: usize,
    runs: usize,
    start: Start,
    procedures: &[Procedure],
) -> Vec<bool> {
    let now = truth(cases, start);
    let mut baseline = Baseline::empty("sim");
    if start == Start::Best {
        let first = measure(rng, &now, runs, 1);
        baseline.best.insert("sim".into(), best_of(&first));
    }
    let levels: Vec<Vec<Option<Sequence>>> = procedures
        .iter()
        .map(|p| {
            let mut history = Vec::new();
            (0..PROPOSALS)
                .map(|_| {
                    let l = p.level(&history);
                    history.push((l.unwrap_or_else(|| Sequence::next(FAMILY, None)), false));
                    l
                })
                .collect()
        })
        .collect();
    // Per proposal, each procedure's level.
    let by_proposal: Vec<Vec<Option<Sequence>>> = (0..PROPOSALS as usize)
        .map(|i| levels.iter().map(|l| l[i]).collect())
        .collect();
    let mut any = vec![false; procedures.len()];
    for at in &by_proposal {
        let new = measure(rng, &now, runs, 2);
        let fresh = (start == Start::Best).then(|| measure(rng, &now, runs, 1));
        let decide = |s: Option<Sequence>| {
            decide_in_sequence(
                &new,
                &baseline,
                false,
                Mode::Confidence(LEVEL),
                fresh.as_ref(),
                s,
            )
            .accepted
        };
        if !decide(None) {
            continue;
        }
        for (j, p) in procedures.iter().enumerate() {
            if !any[j] {
                any[j] = *p == Procedure::Plain || decide(at[j]);
            }
        }
        if any.iter().all(|a| *a) {
            break;
        }
    }
    any
}

fn fwer(sequences: usize) {
    let procedures = [Procedure::Plain, Procedure::Fallback, Procedure::Smooth];
    println!(
        "\n## fwer: {PROPOSALS} proposals that change nothing, mode at {LEVEL}, {sequences} sequences per row (alpha-spending decides as the fallback until an accept: the same figure)"
    );
    println!(
        "| start | cases | runs | {} |",
        procedures.map(Procedure::name).join(" | ")
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for start in [Start::NoBest, Start::Best] {
        for &cases in &SHAPES {
            for &runs in &RUNS {
                let t = parallel(
                    sequences,
                    0x5E0 ^ cases as u64 ^ (runs as u64) << 8,
                    |rng| {
                        let any = null_sequence(rng, cases, runs, start, &procedures);
                        Counts(any.iter().map(|a| f64::from(u8::from(*a))).collect())
                    },
                );
                let n = sequences as f64;
                let cells: Vec<String> = (0..procedures.len())
                    .map(|j| share(t.0.get(j).copied().unwrap_or(0.0), n))
                    .collect();
                println!(
                    "| {} | {cases} | {runs} | {} |",
                    match start {
                        Start::NoBest => "no best, item does nothing",
                        Start::Best => "a best, measured again",
                    },
                    cells.join(" | ")
                );
                // The doc's column headers.
                let columns = [
                    "plain 95 % each",
                    "online fallback (shipped)",
                    "fallback, smooth γ",
                ];
                for (j, column) in columns.iter().enumerate() {
                    share_figure(
                        &format!(
                            "fwer/{}/{cases} cases/runs {runs}/{column}",
                            start_label(start)
                        ),
                        t.0.get(j).copied().unwrap_or(0.0),
                        n,
                        &format!(
                            "{sequences} sequences of {PROPOSALS} no-effect proposals, {}",
                            start_label(start)
                        ),
                    );
                }
            }
        }
    }
}

/// Counts per procedure, summed over threads.
#[derive(Default)]
struct Counts(Vec<f64>);

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        if self.0.len() < o.0.len() {
            self.0.resize(o.0.len(), 0.0);
        }
        for (a, b) in self.0.iter_mut().zip(o.0) {
            *a += b;
        }
    }
}

/// Paired accept counts at the plain level and at each sequence level.
#[derive(Default, Clone, Copy)]
struct Paired {
    n: f64,
    plain: f64,
    at: [f64; 3],
    both: [f64; 3],
}

impl std::ops::AddAssign for Paired {
    fn add_assign(&mut self, o: Paired) {
        self.n += o.n;
        self.plain += o.plain;
        for i in 0..3 {
            self.at[i] += o.at[i];
            self.both[i] += o.both[i];
        }
    }
}

/// Ratio p₁/p₀ of two paired shares and its delta-method standard error
/// (none when p₀ is 0).
fn ratio_se(n: f64, p0k: f64, p1k: f64, bothk: f64) -> Option<(f64, f64)> {
    let (p0, p1, p11) = (p0k / n, p1k / n, bothk / n);
    if p0 == 0.0 {
        return None;
    }
    let r = p1 / p0;
    let var =
        (p1 * (1.0 - p1) - 2.0 * r * (p11 - p1 * p0) + r * r * p0 * (1.0 - p0)) / (n * p0 * p0);
    Some((r, var.max(0.0).sqrt()))
}

/// Ratio p₁/p₀ of two paired shares and its delta-method standard error.
fn ratio(n: f64, p0k: f64, p1k: f64, bothk: f64) -> String {
    ratio_se(n, p0k, p1k, bothk).map_or_else(|| "–".into(), |(r, se)| format!("{r:.3} ± {se:.3}"))
}

/// The `FIGURE` line of a ratio: the value as [`ratio`] prints it, its 95 %
/// half-width (1.96 delta-method standard errors).
fn ratio_figure(id: &str, n: f64, p0k: f64, p1k: f64, bothk: f64, basis: &str) {
    let (value, error) = ratio_se(n, p0k, p1k, bothk).map_or_else(
        || ("–".to_string(), "–".to_string()),
        |(r, se)| (format!("{r:.3}"), format!("± {:.3}", Z * se)),
    );
    figure(id, &value, &error, basis);
}

/// How `docs/statistics.md` labels a start in its tables (the figures' ids).
fn start_label(start: Start) -> &'static str {
    match start {
        Start::NoBest => "no best",
        Start::Best => "a best",
    }
}

fn power(decisions: usize) {
    // The levels: proposals 1–12 with nothing accepted before, proposal 13,
    // and a proposal after an accept (its share plus the one carried).
    let first = Sequence::next(FAMILY, None);
    let p = |proposal: u32, accepted: bool| Previous {
        proposal,
        alpha: first.alpha,
        accepted,
    };
    let levels = [
        first,
        Sequence::next(FAMILY, Some(p(HORIZON, false))),
        Sequence::next(FAMILY, Some(p(3, true))),
    ];
    println!(
        "\n## power: one proposal +{EFFECT} above what it is compared with, {decisions} decisions per row; levels: proposals 1–12 α {}, proposal 13 α {}, after an accept α {}",
        pct(levels[0].alpha),
        pct(levels[1].alpha),
        pct(levels[2].alpha)
    );
    println!(
        "| start | cases | runs | power at 95 % | proposals 1–12: power, ratio | proposal 13: power, ratio | after an accept: power, ratio |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for start in [Start::NoBest, Start::Best] {
        for &cases in &SHAPES {
            for &runs in &RUNS {
                let t = parallel(
                    decisions,
                    0x90E ^ cases as u64 ^ (runs as u64) << 8,
                    |rng| {
                        let now = truth(cases, start);
                        let (mut baseline, mut fresh) = (Baseline::empty("sim"), None);
                        let proposed: Vec<(f64, f64)> = match start {
                            // The item helps by +0.2 over its without arm.
                            Start::NoBest => now
                                .iter()
                                .map(|&(w, wo)| ((w + EFFECT).min(1.0), wo))
                                .collect(),
                            Start::Best => {
                                let recorded = measure(rng, &now, runs, 1);
                                baseline.best.insert("sim".into(), best_of(&recorded));
                                fresh = Some(measure(rng, &now, runs, 1));
                                now.iter()
                                    .map(|&(w, wo)| ((w + EFFECT).min(1.0), wo))
                                    .collect()
                            }
                        };
                        let new = measure(rng, &proposed, runs, 2);
                        let decide = |s: Option<Sequence>| {
                            decide_in_sequence(
                                &new,
                                &baseline,
                                false,
                                Mode::Confidence(LEVEL),
                                fresh.as_ref(),
                                s,
                            )
                            .accepted
                        };
                        let plain = decide(None);
                        let mut out = Paired {
                            n: 1.0,
                            plain: f64::from(u8::from(plain)),
                            ..Paired::default()
                        };
                        for (i, s) in levels.iter().enumerate() {
                            let a = decide(Some(*s));
                            out.at[i] = f64::from(u8::from(a));
                            out.both[i] = f64::from(u8::from(a && plain));
                        }
                        out
                    },
                );
                let cell = |i: usize| {
                    format!(
                        "{}, {}",
                        pct(t.at[i] / t.n),
                        ratio(t.n, t.plain, t.at[i], t.both[i])
                    )
                };
                println!(
                    "| {} | {cases} | {runs} | {} | {} | {} | {} |",
                    match start {
                        Start::NoBest => "first baseline",
                        Start::Best => "against a best measured again",
                    },
                    share(t.plain, t.n),
                    cell(0),
                    cell(1),
                    cell(2)
                );
                let id = format!("power/{}/{cases} cases/runs {runs}", start_label(start));
                let basis = format!("{decisions} decisions on +{EFFECT}, {}", start_label(start));
                share_figure(&format!("{id}/power at 95 %"), t.plain, t.n, &basis);
                for (i, level) in ["proposals 1–12", "proposal 13", "after an accept"]
                    .iter()
                    .enumerate()
                {
                    share_figure(&format!("{id}/{level}/power"), t.at[i], t.n, &basis);
                    ratio_figure(
                        &format!("{id}/{level}/ratio"),
                        t.n,
                        t.plain,
                        t.at[i],
                        t.both[i],
                        &format!("{basis}, paired"),
                    );
                }
            }
        }
    }
}

fn mixed(sequences: usize) {
    println!(
        "\n## mixed: {PROPOSALS} proposals, each a real +{EFFECT} with probability 0.3, against a best measured again; {sequences} sequences per row"
    );
    println!("| cases | runs | procedure | any false accept | real gains accepted |");
    println!("| --- | --- | --- | --- | --- |");
    let cases = 6;
    {
        for &runs in &RUNS {
            for p in [
                Procedure::Plain,
                Procedure::Fallback,
                Procedure::Spending,
                Procedure::LordPlus,
            ] {
                let t = parallel(
                    sequences,
                    0x313 ^ cases as u64 ^ (runs as u64) << 8,
                    |rng| {
                        let (f, g, ga) = sequence(rng, cases, runs, Start::Best, 0.3, p);
                        Tally {
                            n: 1.0,
                            any_false: f64::from(u8::from(f > 0)),
                            gains: f64::from(g),
                            gains_accepted: f64::from(ga),
                        }
                    },
                );
                println!(
                    "| {cases} | {runs} | {} | {} | {} |",
                    p.name(),
                    share(t.any_false, t.n),
                    share(t.gains_accepted, t.gains)
                );
                // The doc's row labels.
                let label = match p {
                    Procedure::Plain => "plain 95 % each",
                    Procedure::Fallback => "online fallback (shipped)",
                    Procedure::Spending => "alpha-spending",
                    Procedure::LordPlus => "LORD++ (W₀ = α/2)",
                    Procedure::Smooth => "fallback, smooth γ",
                };
                let id = format!("mixed/{cases} cases/runs {runs}/{label}");
                share_figure(
                    &format!("{id}/any false accept"),
                    t.any_false,
                    t.n,
                    &format!("{sequences} sequences of {PROPOSALS} proposals"),
                );
                share_figure(
                    &format!("{id}/real gains accepted"),
                    t.gains_accepted,
                    t.gains,
                    &format!("real gains over {sequences} sequences"),
                );
            }
        }
    }
}

/// `--runs auto`'s MAX in the `auto` section: plain `auto`'s cap, under
/// which the product plans MAX for 80 % power at +0.2 at the level bought
/// at (`eval::auto_policy`).
const AUTO_MAX: u32 = bob_eval::stats::runs::DEFAULT_AUTO_MAX;

/// One `--runs auto` evaluation of a suite whose true rates are `truth`
/// (tenths), bought at `level` as the product plans it
/// (`eval::auto_policy`), on the simulated platform's streams for
/// `suite` and `salt` (the same streams give the same runs, so two levels
/// on one suite are paired); the document as `run` writes it, with the
/// level auto planned at, and the runs per arm of each case it bought.
fn auto_measure(truth: &[(f64, f64)], level: f64, suite: usize, salt: u64) -> (SkillEval, f64) {
    let tenths = |p: f64| (p * 10.0).round() as i64;
    let t = sim::Truth(
        truth
            .iter()
            .map(|&(w, wo)| (tenths(w), tenths(wo)))
            .collect(),
    );
    let k = truth.len();
    let mut source = sim::Simulated::new(&t, suite, salt);
    let policy = bob_eval::eval::auto_policy(AUTO_MAX, Some(level), k, EFFECT);
    let o = adaptive_against(&mut source, k, &policy, sim::CEILING, None).expect("simulated runs");
    let mut doc = sim::document(&o);
    if let Some(auto) = doc.stats.as_mut().and_then(|s| s.auto.as_mut()) {
        auto.confidence_mode = Some(level);
    }
    (doc, o.cost_usd / sim::RUN_COST / (2.0 * k as f64))
}

/// Sums of the `auto` section, over threads.
#[derive(Default, Clone, Copy)]
struct AutoTally {
    /// Sequences, and those with a false accept.
    sequences: f64,
    any_false: f64,
    /// No-effect proposals bought, their runs per arm and its square.
    null_buys: f64,
    null_runs: [f64; 2],
    /// +0.2 decisions; accepts at 95 %, in the sequence, both.
    decisions: f64,
    plain: f64,
    held: f64,
    both: f64,
    /// Runs per arm and its square: at 95 %, in the sequence.
    plain_runs: [f64; 2],
    held_runs: [f64; 2],
}

impl std::ops::AddAssign for AutoTally {
    fn add_assign(&mut self, o: AutoTally) {
        self.sequences += o.sequences;
        self.any_false += o.any_false;
        self.null_buys += o.null_buys;
        self.decisions += o.decisions;
        self.plain += o.plain;
        self.held += o.held;
        self.both += o.both;
        for i in 0..2 {
            self.null_runs[i] += o.null_runs[i];
            self.plain_runs[i] += o.plain_runs[i];
            self.held_runs[i] += o.held_runs[i];
        }
    }
}

/// A mean from its sum and sum of squares over `n`, as the table prints it,
/// and its 95 % half-width (1.96·sd/√n).
fn mean_figure(id: &str, sums: [f64; 2], n: f64, basis: &str) -> String {
    let mean = sums[0] / n.max(1.0);
    let var = (sums[1] / n.max(1.0) - mean * mean).max(0.0);
    let half = Z * (var / n.max(1.0)).sqrt();
    figure(id, &format!("{mean:.1}"), &format!("± {half:.1}"), basis);
    format!("{mean:.1}")
}

/// `--runs auto` buying at the sequence's level (`propose` and
/// `gate --record` under auto): per shape, the chance of any false accept
/// over 12 no-effect proposals from no best, and the power on one +0.2
/// proposal (the first of its sequence) against auto at 95 % on the same
/// streams, with the runs per arm of each case each spends.
fn auto_section(sequences: usize) {
    let first = Sequence::next(FAMILY, None);
    println!(
        "\n## auto: --runs auto (MAX planned for 80 % power at +{EFFECT}, at most {AUTO_MAX}) buying at the sequence's level (proposals 1–12: {}), no best; {sequences} sequences of {PROPOSALS} no-effect proposals and {sequences} +{EFFECT} decisions per row",
        pct(first.level)
    );
    for &cases in &SHAPES {
        println!(
            "{cases} cases: MAX {} at 95 %, {} at {}",
            bob_eval::eval::auto_policy(AUTO_MAX, Some(LEVEL), cases, EFFECT).max_per_arm,
            bob_eval::eval::auto_policy(AUTO_MAX, Some(first.level), cases, EFFECT).max_per_arm,
            pct(first.level)
        );
    }
    println!(
        "| cases | any false accept | runs, no effect | power at 95 % | power in the sequence | ratio | runs at 95 % | runs in the sequence |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for &cases in &SHAPES {
        let salt = 0xA070 ^ (cases as u64) << 8;
        let t = parallel(sequences, salt, |rng| {
            let j = (rng.next() >> 40) as usize;
            let mut out = AutoTally {
                sequences: 1.0,
                decisions: 1.0,
                ..AutoTally::default()
            };
            // 12 proposals that change nothing: the first accept is false.
            let null = truth(cases, Start::NoBest);
            let mut previous = None;
            for i in 0..PROPOSALS as usize {
                let s = Sequence::next(FAMILY, previous);
                let (doc, runs) = auto_measure(&null, s.level, j * 16 + i, salt);
                out.null_buys += 1.0;
                out.null_runs[0] += runs;
                out.null_runs[1] += runs * runs;
                let mode = Mode::Confidence(LEVEL);
                let empty = Baseline::empty("sim");
                if decide_in_sequence(&doc, &empty, false, mode, None, Some(s)).accepted {
                    out.any_false = 1.0;
                    break;
                }
                previous = Some(Previous {
                    proposal: s.proposal,
                    alpha: s.alpha,
                    accepted: false,
                });
            }
            // One +0.2 proposal: auto at 95 % and at the sequence's level.
            let better: Vec<(f64, f64)> = null
                .iter()
                .map(|&(w, wo)| ((w + EFFECT).min(1.0), wo))
                .collect();
            let decide = |level: f64, s: Option<Sequence>| {
                let (doc, runs) = auto_measure(&better, level, j * 16 + 15, salt ^ 0xE);
                let empty = Baseline::empty("sim");
                let d = decide_in_sequence(&doc, &empty, false, Mode::Confidence(LEVEL), None, s);
                (d.accepted, runs)
            };
            let (plain, plain_runs) = decide(LEVEL, None);
            let (held, held_runs) = decide(first.level, Some(first));
            out.plain = f64::from(u8::from(plain));
            out.held = f64::from(u8::from(held));
            out.both = f64::from(u8::from(plain && held));
            out.plain_runs = [plain_runs, plain_runs * plain_runs];
            out.held_runs = [held_runs, held_runs * held_runs];
            out
        });
        let id = format!("auto/{cases} cases");
        let basis = format!("{sequences} sequences of {PROPOSALS} no-effect proposals, no best");
        share_figure(
            &format!("{id}/any false accept"),
            t.any_false,
            t.sequences,
            &basis,
        );
        let null_runs = mean_figure(
            &format!("{id}/runs, no effect"),
            t.null_runs,
            t.null_buys,
            &format!("{} no-effect proposals bought", t.null_buys),
        );
        let basis = format!("{sequences} decisions on +{EFFECT}, no best");
        share_figure(&format!("{id}/power at 95 %"), t.plain, t.decisions, &basis);
        share_figure(
            &format!("{id}/power in the sequence"),
            t.held,
            t.decisions,
            &basis,
        );
        ratio_figure(
            &format!("{id}/ratio"),
            t.decisions,
            t.plain,
            t.held,
            t.both,
            &format!("{basis}, paired streams"),
        );
        let plain_runs = mean_figure(
            &format!("{id}/runs at 95 %"),
            t.plain_runs,
            t.decisions,
            &basis,
        );
        let held_runs = mean_figure(
            &format!("{id}/runs in the sequence"),
            t.held_runs,
            t.decisions,
            &basis,
        );
        println!(
            "| {cases} | {} | {null_runs} | {} | {} | {} | {plain_runs} | {held_runs} |",
            share(t.any_false, t.sequences),
            share(t.plain, t.decisions),
            share(t.held, t.decisions),
            ratio(t.decisions, t.plain, t.held, t.both),
        );
    }
}

/// What one measurement and one decision cost, per shape (only when named).
fn timing() {
    println!("\n## timing: one measurement, one decision");
    for &cases in &SHAPES {
        for &runs in &RUNS {
            let mut rng = Rng(7);
            let now = truth(cases, Start::NoBest);
            let t = Instant::now();
            let docs: Vec<SkillEval> = (0..200).map(|_| measure(&mut rng, &now, runs, 1)).collect();
            let m = t.elapsed().as_secs_f64() / 200.0;
            let baseline = Baseline::empty("sim");
            let t = Instant::now();
            for d in &docs {
                decide_in_sequence(d, &baseline, false, Mode::Confidence(LEVEL), None, None);
            }
            let d = t.elapsed().as_secs_f64() / 200.0;
            println!(
                "| {cases} | {runs} | {:.0} µs | {:.0} µs |",
                m * 1e6,
                d * 1e6
            );
        }
    }
}

fn main() {
    let named: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wants = |s: &str| named.is_empty() || named.iter().any(|n| n == s);
    let sequences: usize = std::env::var("SEQUENCE_SEQUENCES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000);
    let start = Instant::now();
    check_document();
    println!(
        "# Errors over a sequence: the online fallback, γ {:.4} for proposals 1–{HORIZON}, then (1 − 0.8)·{HORIZON}/((i − 1)·i)",
        gamma(1)
    );
    if wants("fwer") {
        fwer(sequences);
    }
    if wants("power") {
        power(sequences);
    }
    if wants("mixed") {
        mixed(sequences / 2);
    }
    if wants("auto") {
        auto_section(sequences);
    }
    if named.iter().any(|n| n == "timing") {
        timing();
    }
    println!("\n({:.1} s)", start.elapsed().as_secs_f64());
}
