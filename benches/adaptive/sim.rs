//! The simulated platform: seeds, the suites' truth, a `RunSource` whose
//! runs pass with their arm's true probability, how a setting buys runs, and
//! the document and best an outcome leaves.

use bob_eval::document::{
    AutoRounds, Baseline, BestEntry, BestEvidence, CaseEval, SKILL_EVAL, SkillEval, Verdict, round4,
};
use bob_eval::gate::{Status, decide};
use bob_eval::stats::adaptive::MARGIN;
use bob_eval::stats::advisory::PLANNED_POWER;
use bob_eval::stats::confidence::runs_for_variance;
use bob_eval::stats::{
    Against, AutoOutcome, AutoPolicy, CaseRuns, Comparison, Round, RunRequest, RunSource, Stop,
    adaptive_against, adaptive_from, fixed,
};
use std::convert::Infallible;
use std::sync::OnceLock;

/// Cases per suite of the main grid; its seed.
pub(crate) const CASES: usize = 4;
pub(crate) const SEED: u64 = 0x5EED_2026_0001;
/// A second seed for the shapes: the default policy measured on suites it
/// was not chosen on.
pub(crate) const CHECK_SEED: u64 = 0x0C4E_C4ED;
/// True pass probabilities, in tenths (integers, so "no difference" is exact).
pub(crate) const TENTHS: [i64; 7] = [0, 1, 3, 5, 7, 9, 10];
/// What one simulated run costs; the ceiling never binds.
pub(crate) const RUN_COST: f64 = 0.01;
pub(crate) const CEILING: f64 = 1e9;
/// Stream salts: the main grid's and the shapes' (as first published).
pub(crate) const MAIN: u64 = 0;
pub(crate) const SHAPES: u64 = 0x6D1D;

/// splitmix64: the library's one generator, fully determined by its seed.
pub(crate) use bob_eval::stats::simulate::SplitMix;

/// One suite's truth: per case, the pass probabilities in tenths (with, without).
#[derive(Clone)]
pub(crate) struct Truth(pub(crate) Vec<(i64, i64)>);

impl Truth {
    /// Σ (with − without) in tenths; the true mean difference is this / (10·K).
    pub(crate) fn diff_tenths(&self) -> i64 {
        self.0.iter().map(|(w, wo)| w - wo).sum()
    }

    /// |true mean difference| ≥ 0.2.
    pub(crate) fn big(&self) -> bool {
        self.diff_tenths().abs() * 5 >= 10 * self.0.len() as i64
    }

    /// 0 < |true mean difference| < 0.2.
    pub(crate) fn small(&self) -> bool {
        self.diff_tenths() != 0 && !self.big()
    }

    /// |true mean difference| is exactly 0.2, the minimum effect the plan
    /// keeps its power for: the share of these called right is the power
    /// there.
    pub(crate) fn at_minimum(&self) -> bool {
        self.diff_tenths().abs() * 5 == 10 * self.0.len() as i64
    }

    /// The variance per run of the suite's delta as the score test sees it
    /// at the truth: each case's arms at their pooled share q (the null
    /// the test takes its variance at), 2·q(1 − q) per case, over K².
    pub(crate) fn pooled_variance(&self) -> f64 {
        let k = self.0.len() as f64;
        self.0
            .iter()
            .map(|&(w, wo)| {
                let q = (w + wo) as f64 / 20.0;
                2.0 * q * (1.0 - q)
            })
            .sum::<f64>()
            / (k * k)
    }

    /// The kind of suite runs are broken down by ([`KINDS`]): 0 no
    /// difference, 1 big, 2 small.
    pub(crate) fn kind(&self) -> usize {
        if self.diff_tenths() == 0 {
            0
        } else if self.big() {
            1
        } else {
            2
        }
    }
}

/// The names of [`Truth::kind`]'s kinds, in its order.
pub(crate) const KINDS: [&str; 3] = ["no difference", "0.2 or more", "below 0.2"];

/// A simulated platform: every run of a case's arm passes with its true
/// probability. Each case and arm has its own stream, so every setting sees
/// the same run sequence for the same case (the first N runs of auto are the
/// runs of fixed --runs N).
pub(crate) struct Simulated {
    pub(crate) truth: Truth,
    streams: Vec<[SplitMix; 2]>,
    /// Where the suite's stored without-arm runs come from: one stream per
    /// case, fixed by the suite alone (not the salt), so repeated
    /// evaluations of a suite with different salts share one archive.
    suite: usize,
}

impl Simulated {
    pub(crate) fn new(truth: &Truth, suite: usize, salt: u64) -> Self {
        let streams = (0..truth.0.len())
            .map(|c| {
                let base = SEED ^ salt ^ ((suite as u64) << 20) ^ ((c as u64) << 4);
                [SplitMix(base ^ 0xA), SplitMix(base ^ 0xB)]
            })
            .collect();
        Simulated {
            truth: truth.clone(),
            streams,
            suite,
        }
    }

    /// `runs` stored without-arm runs of every case: the archive earlier
    /// evaluations left (the same for every salt).
    pub(crate) fn archive(&self, runs: u32, salt: u64) -> Vec<Vec<f64>> {
        self.truth
            .0
            .iter()
            .enumerate()
            .map(|(c, &(_, without))| {
                let mut s = SplitMix(
                    SEED ^ 0xA7C4_1BE0 ^ salt ^ ((self.suite as u64) << 20) ^ ((c as u64) << 4),
                );
                (0..runs)
                    .map(|_| f64::from(u8::from(s.unit() * 10.0 < without as f64)))
                    .collect()
            })
            .collect()
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
                let draw = |s: &mut SplitMix, p: i64, n: u32| -> Vec<f64> {
                    (0..n)
                        .map(|_| f64::from(u8::from(s.unit() * 10.0 < p as f64)))
                        .collect()
                };
                CaseRuns {
                    case: r.case,
                    with: draw(sw, w, r.with),
                    without: draw(swo, wo, r.without),
                    cost_usd: r.runs() as f64 * RUN_COST,
                    trigger: Default::default(),
                }
            })
            .collect();
        Ok(Round {
            cases,
            partial_reason: None,
        })
    }
}

/// How one setting buys runs.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Buy {
    Fixed(u32),
    Auto(AutoPolicy),
    /// Auto from an archive of this many stored without-arm runs per case
    /// (its top-ups bought and counted).
    Stored(AutoPolicy, u32),
    /// [`Buy::Stored`] with MAX planned from the suite's true variance
    /// ([`Truth::pooled_variance`], the same inflation) instead of the
    /// archive's: an oracle of a design that learnt every arm's variance
    /// at no cost, the yardstick's, not a design that can be run.
    Oracle(AutoPolicy, u32),
}

impl Buy {
    pub(crate) fn run(&self, s: &mut Simulated, best: Option<&Against>) -> AutoOutcome {
        let k = s.truth.0.len();
        match self {
            Buy::Fixed(n) => fixed(s, k, *n, CEILING).unwrap(),
            Buy::Auto(p) => adaptive_against(s, k, p, CEILING, best).unwrap(),
            Buy::Stored(p, n) => {
                let archive = s.archive(*n, 0);
                adaptive_from(s, k, p, CEILING, best, &archive).unwrap()
            }
            Buy::Oracle(p, n) => {
                let archive = s.archive(*n, 0);
                let fixed = runs_for_variance(
                    s.truth.pooled_variance(),
                    MARGIN,
                    1.0 - p.alpha / 2.0,
                    PLANNED_POWER,
                );
                let planned = (f64::from(fixed) * p.inflation).ceil() as u32;
                let known = AutoPolicy {
                    max_per_arm: p.max_per_arm.min(planned.max(p.first_round + 1)),
                    planned_effect: None,
                    ..*p
                };
                adaptive_from(s, k, &known, CEILING, best, &archive).unwrap()
            }
        }
    }
}

/// The gate's compiled rule on the outcome's point estimates, as the reducer
/// would write them (empty baseline: `beats-best` falls back to the same
/// comparison). True when the `helps` condition (`with > without`) passes.
pub(crate) fn rule_accepts(o: &AutoOutcome) -> bool {
    let d = decide(&document(o), &Baseline::empty("sim"));
    d.conditions
        .iter()
        .any(|c| c.name == "helps" && c.status == Status::Pass)
}

/// The outcome as the document `run` writes: the suite's numbers, each
/// case's intervals (its runs per arm among them) and, for auto, the look's
/// confidence; what the gate's confidence mode reads. A copy of
/// [`template`] with the outcome's numbers set: the same document
/// [`document_json`] builds (checked at start by [`check_document`]),
/// without a trip through JSON per outcome.
pub(crate) fn document(o: &AutoOutcome) -> SkillEval {
    let (doc, case, auto) = template();
    let mut d = fill(doc, case, &o.comparison);
    d.cost_usd = round4(o.cost_usd);
    let stats = d.stats.as_mut().expect("the template has stats");
    stats.auto = (o.stop != Stop::Fixed).then(|| AutoRounds {
        rounds: o.rounds.len() as u32,
        stop: o.stop.to_string(),
        ..auto.clone()
    });
    d
}

/// A copy of the document `doc` with a comparison's numbers set: the
/// suite's means, delta and verdict, each case (a copy of `case` with its
/// numbers and intervals) and the suite's intervals. What both benches'
/// templates are filled with.
pub(crate) fn fill(doc: &SkillEval, case: &CaseEval, c: &Comparison) -> SkillEval {
    let with = round4(c.suite.with.value);
    let without = round4(c.suite.without.value);
    let delta = round4(with - without);
    let mut d = doc.clone();
    d.with = with;
    d.without = without;
    d.delta = delta;
    d.verdict = Verdict::of(delta);
    d.cases = c
        .cases
        .iter()
        .map(|s| {
            let s = s.clone().rounded();
            let mut e = case.clone();
            e.name = format!("case-{}", s.case);
            e.with = s.with.value;
            e.without = Some(s.without.value);
            e.delta = Some(s.delta.value);
            e.runs = s.runs_with + s.runs_without;
            e.stats = Some(s);
            e
        })
        .collect();
    let stats = d.stats.as_mut().expect("the template has stats");
    stats.confidence = c.confidence;
    stats.suite = c.suite.clone().rounded();
    d
}

/// The document's fixed parts, read once from JSON so that optional fields
/// added to `skill-eval/1` later keep their defaults: the document of an
/// outcome of one case (its cases emptied), that case, and the auto record.
fn template() -> &'static (SkillEval, CaseEval, AutoRounds) {
    static TEMPLATE: OnceLock<(SkillEval, CaseEval, AutoRounds)> = OnceLock::new();
    TEMPLATE.get_or_init(|| {
        let truth = Truth(vec![(5, 5)]);
        let mut source = Simulated::new(&truth, 0, 0);
        let o = adaptive_against(&mut source, 1, &AutoPolicy::new(4), CEILING, None).unwrap();
        let mut doc = document_json(&o);
        let case = doc.cases.pop().expect("one case");
        let auto = doc
            .stats
            .as_ref()
            .and_then(|s| s.auto.clone())
            .expect("auto's record");
        (doc, case, auto)
    })
}

/// [`document`] and [`document_json`] agree on outcomes of every kind the
/// bench reads (fixed and auto, one to eight cases): a panic before any
/// figure is printed if they ever part.
pub(crate) fn check_document() {
    for (k, cases) in [1usize, 2, 4, 8].into_iter().enumerate() {
        for suite in 0..16 {
            let truth = Truth(
                (0..cases)
                    .map(|c| (TENTHS[(suite + c) % 7], TENTHS[(suite + 3 * c + k) % 7]))
                    .collect(),
            );
            for buy in [Buy::Fixed(3), Buy::Auto(AutoPolicy::new(16))] {
                let o = buy.run(&mut Simulated::new(&truth, suite, 0xD0C), None);
                assert_eq!(document(&o), document_json(&o), "the document of {buy:?}");
            }
        }
    }
}

/// The document built from JSON, field by field.
pub(crate) fn document_json(o: &AutoOutcome) -> SkillEval {
    let with = round4(o.comparison.suite.with.value);
    let without = round4(o.comparison.suite.without.value);
    let delta = round4(with - without);
    let cases: Vec<serde_json::Value> = o
        .comparison
        .cases
        .iter()
        .map(|c| {
            let c = c.clone().rounded();
            serde_json::json!({
                "name": format!("case-{}", c.case), "with": c.with.value,
                "without": c.without.value, "delta": c.delta.value, "verdict": null,
                "trigger_rate": null, "cost_usd": 0.0, "runs": c.runs_with + c.runs_without,
                "stats": c,
            })
        })
        .collect();
    let auto = (o.stop != Stop::Fixed)
        .then(|| serde_json::json!({"rounds": o.rounds.len(), "stop": o.stop.to_string()}));
    serde_json::from_value(serde_json::json!({
        "schema": SKILL_EVAL, "item": "sim", "run": "eval-sim-20260101T000000Z",
        "date": "2026-01-01", "model": "sim", "with": with, "without": without,
        "delta": delta, "verdict": Verdict::of(delta), "trigger_rate": null,
        "cost_usd": round4(o.cost_usd), "max_cost_usd": CEILING, "partial": false,
        "cases": cases,
        "stats": {"confidence": o.comparison.confidence, "suite": o.comparison.suite.clone().rounded(), "auto": auto},
    }))
    .expect("a skill-eval/1 document")
}

/// The best a result leaves when accepted: its `with`, and its runs.
pub(crate) fn best_of(result: &SkillEval) -> BestEntry {
    BestEntry {
        score: round4(result.with),
        without: round4(result.without),
        trigger_rate: None,
        run: result.run.clone(),
        date: result.date.clone(),
        suite_digest: None,
        cases: None,
        runs: None,
        interval: None,
        evidence: BestEvidence::of(result),
        confidence: None,
        item_digest: None,
        measured_with: None,
    }
}
