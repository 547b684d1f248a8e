//! Efficiency in a `skill-eval/1` document: per case and for the suite, per
//! arm, the model's cost, turns and duration per run with their intervals,
//! and the with/without ratios (methods in [`crate::stats::efficiency`]).

use super::{SkillEval, round4};
use crate::stats::efficiency::{Pooled, Sample, ratio};
use serde::{Deserialize, Serialize};

/// How the efficiency intervals are computed, as the document states it.
pub const EFFICIENCY_METHOD: &str = "t-interval on each arm's mean per run (the suite: mean of case means, Welch-Satterthwaite df); ratio with/without: delta method on the log-ratio, Welch-Satterthwaite df; an arm with one run has no interval";

/// What loading the item did to the runs' cost, turns and duration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Efficiency {
    /// The confidence of every interval in it (0.95).
    pub confidence: f64,
    /// How the intervals are computed, in words ([`EFFICIENCY_METHOD`]).
    pub method: String,
    /// The suite: means over the cases measured on both arms.
    pub suite: SuiteFigures,
    /// Per case with counted runs, in suite order.
    pub cases: Vec<CaseFigures>,
    /// Counted runs that report no cost, turns nor duration (all 0: a
    /// result written without them), left out of every figure; absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs_without_figures: Option<u32>,
}

/// The suite's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteFigures {
    /// Cases that enter it: those with runs that report figures on both arms.
    pub cases: u32,
    /// The three figures.
    #[serde(flatten)]
    pub figures: Figures,
}

/// One case's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseFigures {
    /// Case name.
    pub name: String,
    /// The three figures.
    #[serde(flatten)]
    pub figures: Figures,
}

/// Cost, turns and duration per run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// Dollars the model spent per run (the run's cost less the judge's, which
    /// grades both arms alike).
    pub cost_usd: Figure,
    /// Agent turns per run.
    pub turns: Figure,
    /// Wall time per run, in seconds.
    pub duration_seconds: Figure,
}

/// Which of the three figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FigureKind {
    /// `cost_usd`.
    Cost,
    /// `turns`.
    Turns,
    /// `duration_seconds`.
    Duration,
}

impl FigureKind {
    /// All three, in document order.
    pub const ALL: [FigureKind; 3] = [FigureKind::Cost, FigureKind::Turns, FigureKind::Duration];

    /// The word for it in output.
    pub fn word(self) -> &'static str {
        match self {
            FigureKind::Cost => "cost",
            FigureKind::Turns => "turns",
            FigureKind::Duration => "duration",
        }
    }

    /// A value of it as written: `$0.0123`, `3.00`, `12.3 s`.
    pub fn fmt(self, x: f64) -> String {
        match self {
            FigureKind::Cost => format!("${x:.4}"),
            FigureKind::Turns => format!("{x:.2}"),
            FigureKind::Duration => format!("{x:.1} s"),
        }
    }

    /// The figure's value rounded as documents write it (dollars to 6
    /// decimals, so a cheap run keeps its digits; the others to 4).
    fn round(self, x: f64) -> f64 {
        match self {
            FigureKind::Cost => {
                let r = (x * 1e6).round() / 1e6;
                if r == 0.0 { 0.0 } else { r }
            }
            _ => round4(x),
        }
    }
}

impl Figures {
    /// The figure of `kind`.
    pub fn get(&self, kind: FigureKind) -> &Figure {
        match kind {
            FigureKind::Cost => &self.cost_usd,
            FigureKind::Turns => &self.turns,
            FigureKind::Duration => &self.duration_seconds,
        }
    }
}

/// One figure on both arms and their ratio.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// With the item loaded; absent when the arm has no run with figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub with: Option<ArmFigure>,
    /// Without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub without: Option<ArmFigure>,
    /// `with / without` of the means; absent when an arm is, or the without
    /// arm's mean is 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<RatioFigure>,
}

/// One arm's mean per run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ArmFigure {
    /// Runs it is the mean of (for the suite: of all its cases).
    pub runs: u32,
    /// The mean per run.
    pub mean: f64,
    /// The runs' sample standard deviation (a case's arm with two runs or more).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sd: Option<f64>,
    /// Lower limit of the interval (absent with one run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low: Option<f64>,
    /// Upper limit of the interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<f64>,
}

/// A with/without ratio of means with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatioFigure {
    /// The ratio of the means.
    pub value: f64,
    /// Lower limit (absent when an arm has one run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low: Option<f64>,
    /// Upper limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<f64>,
}

impl RatioFigure {
    /// True when the interval lies wholly below 1 (clearly cheaper, fewer).
    pub fn clearly_below_one(&self) -> bool {
        self.high.is_some_and(|h| h < 1.0)
    }

    /// True when the interval lies wholly above 1.
    pub fn clearly_above_one(&self) -> bool {
        self.low.is_some_and(|l| l > 1.0)
    }

    /// `1.50× [1.20, 1.90]`, or `1.50× (no interval: one run)`.
    pub fn words(&self) -> String {
        match (self.low, self.high) {
            (Some(l), Some(h)) => format!("{:.2}× [{l:.2}, {h:.2}]", self.value),
            _ => format!("{:.2}× (no interval: an arm has one run)", self.value),
        }
    }
}

/// Per arm, the case's runs' values of one figure.
pub struct ArmValues<'a> {
    /// With-arm values.
    pub with: &'a [f64],
    /// Without-arm values.
    pub without: &'a [f64],
}

impl ArmFigure {
    /// The figure of one case's arm, as documents write it.
    fn of(kind: FigureKind, values: &[f64], confidence: f64) -> Option<ArmFigure> {
        let s = Sample::of(values)?;
        let interval = Pooled::of(&[s]).and_then(|p| p.interval(confidence));
        Some(ArmFigure {
            runs: s.n,
            mean: kind.round(s.mean),
            sd: s.sd.map(|sd| kind.round(sd)),
            low: interval.map(|i| kind.round(i.0)),
            high: interval.map(|i| kind.round(i.1)),
        })
    }

    /// The sample this figure states (as written).
    pub fn sample(&self) -> Sample {
        Sample {
            n: self.runs,
            mean: self.mean,
            sd: self.sd,
        }
    }
}

impl Figure {
    /// One case's figure from its runs' values.
    fn of_case(kind: FigureKind, values: &ArmValues, confidence: f64) -> Figure {
        let with = ArmFigure::of(kind, values.with, confidence);
        let without = ArmFigure::of(kind, values.without, confidence);
        let ratio = match (with, without) {
            (Some(w), Some(wo)) => ratio_of(&[w.sample()], &[wo.sample()], confidence),
            _ => None,
        };
        Figure {
            with,
            without,
            ratio,
        }
    }
}

/// The ratio of the pooled means of `with` and `without` at `confidence`,
/// rounded as written.
fn ratio_of(with: &[Sample], without: &[Sample], confidence: f64) -> Option<RatioFigure> {
    let r = ratio(&Pooled::of(with)?, &Pooled::of(without)?, confidence)?;
    Some(RatioFigure {
        value: round4(r.value),
        low: r.interval.map(|i| round4(i.0)),
        high: r.interval.map(|i| round4(i.1)),
    })
}

impl CaseFigures {
    /// A case's figures from its counted runs' values, per figure in
    /// [`FigureKind::ALL`] order.
    pub fn of(name: &str, values: [ArmValues; 3], confidence: f64) -> CaseFigures {
        let [cost, turns, duration] = values;
        CaseFigures {
            name: name.to_string(),
            figures: Figures {
                cost_usd: Figure::of_case(FigureKind::Cost, &cost, confidence),
                turns: Figure::of_case(FigureKind::Turns, &turns, confidence),
                duration_seconds: Figure::of_case(FigureKind::Duration, &duration, confidence),
            },
        }
    }

    /// True when both arms have runs with figures.
    fn both_arms(&self) -> bool {
        self.figures.turns.with.is_some() && self.figures.turns.without.is_some()
    }
}

impl Efficiency {
    /// The document's efficiency from its cases' figures: the suite over the
    /// cases measured on both arms. `None` when no case has a figure.
    pub fn of(
        cases: Vec<CaseFigures>,
        runs_without_figures: u32,
        confidence: f64,
    ) -> Option<Efficiency> {
        let any = cases
            .iter()
            .any(|c| c.figures.turns.with.is_some() || c.figures.turns.without.is_some());
        if !any {
            return None;
        }
        let suite = SuiteFigures::of(&cases, confidence);
        Some(Efficiency {
            confidence,
            method: EFFICIENCY_METHOD.to_string(),
            suite,
            cases,
            runs_without_figures: (runs_without_figures > 0).then_some(runs_without_figures),
        })
    }

    /// Per arm, the samples of figure `kind` of the cases that enter the
    /// suite, as written: what the suite's figures, and the gate's bounds at
    /// another level, are computed from.
    pub fn suite_samples(&self, kind: FigureKind) -> (Vec<Sample>, Vec<Sample>) {
        suite_samples(&self.cases, kind)
    }

    /// "Same score, half the cost": when the suite's delta is within noise
    /// (`delta_clear` false) and the cost ratio's interval lies wholly below
    /// or above 1, the result in words; `None` otherwise. `same_point`: the
    /// delta is 0 as written ("same score"); else the score is said to have
    /// no clear change.
    pub fn headline(&self, delta_clear: bool, same_point: bool) -> Option<String> {
        let r = self.suite.figures.cost_usd.ratio?;
        if delta_clear {
            return None;
        }
        let score = if same_point {
            "same score"
        } else {
            "no clear change in score"
        };
        let share = if (0.45..0.55).contains(&r.value) {
            "half the".to_string()
        } else {
            format!("{:.2}× the", r.value)
        };
        let level = format!("{:.0} %", self.confidence * 100.0);
        if r.clearly_below_one() {
            Some(format!(
                "{score}, {share} cost: the score's change is within noise and the item clearly makes runs cheaper (cost per run {}, {level} interval)",
                r.words()
            ))
        } else if r.clearly_above_one() {
            Some(format!(
                "{score}, {share} cost: the score's change is within noise and the item clearly makes runs dearer (cost per run {}, {level} interval)",
                r.words()
            ))
        } else {
            None
        }
    }
}

/// [`Efficiency::suite_samples`] over `cases`.
fn suite_samples(cases: &[CaseFigures], kind: FigureKind) -> (Vec<Sample>, Vec<Sample>) {
    let both: Vec<&Figure> = cases
        .iter()
        .filter(|c| c.both_arms())
        .map(|c| c.figures.get(kind))
        .collect();
    let arm = |pick: fn(&Figure) -> Option<ArmFigure>| -> Vec<Sample> {
        both.iter()
            .filter_map(|f| pick(f))
            .map(|a| a.sample())
            .collect()
    };
    (arm(|f| f.with), arm(|f| f.without))
}

impl SkillEval {
    /// "Same score, half the cost" for this document ([`Efficiency::headline`]):
    /// its suite's delta within noise by its advisory, the cost ratio clear
    /// of 1. `None` without efficiency or intervals.
    pub fn efficiency_headline(&self) -> Option<String> {
        let clear = self.stats.as_ref()?.suite.advisory.is_clear();
        self.efficiency
            .as_ref()?
            .headline(clear, round4(self.delta) == 0.0)
    }
}

impl SuiteFigures {
    fn of(cases: &[CaseFigures], confidence: f64) -> SuiteFigures {
        let figure = |kind: FigureKind| -> Figure {
            let (with, without) = suite_samples(cases, kind);
            let arm = |samples: &[Sample]| -> Option<ArmFigure> {
                let pooled = Pooled::of(samples)?;
                let interval = pooled.interval(confidence);
                Some(ArmFigure {
                    runs: samples.iter().map(|s| s.n).sum(),
                    mean: kind.round(pooled.mean),
                    sd: None,
                    low: interval.map(|i| kind.round(i.0)),
                    high: interval.map(|i| kind.round(i.1)),
                })
            };
            Figure {
                with: arm(&with),
                without: arm(&without),
                ratio: ratio_of(&with, &without, confidence),
            }
        };
        SuiteFigures {
            cases: u32::try_from(cases.iter().filter(|c| c.both_arms()).count())
                .unwrap_or(u32::MAX),
            figures: Figures {
                cost_usd: figure(FigureKind::Cost),
                turns: figure(FigureKind::Turns),
                duration_seconds: figure(FigureKind::Duration),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(name: &str, cost: (&[f64], &[f64]), turns: (&[f64], &[f64])) -> CaseFigures {
        let secs = (&[1.0, 1.0][..], &[1.0, 1.0][..]);
        CaseFigures::of(
            name,
            [
                ArmValues {
                    with: cost.0,
                    without: cost.1,
                },
                ArmValues {
                    with: turns.0,
                    without: turns.1,
                },
                ArmValues {
                    with: secs.0,
                    without: secs.1,
                },
            ],
            0.95,
        )
    }

    #[test]
    fn a_case_states_means_intervals_and_the_ratio() {
        let c = case(
            "fires",
            (&[0.02, 0.03], &[0.01, 0.01]),
            (&[3.0, 3.0, 3.0], &[1.0, 1.0, 1.0]),
        );
        let t = &c.figures.turns;
        assert_eq!(t.with.unwrap().mean, 3.0);
        assert_eq!(t.ratio.unwrap().value, 3.0);
        assert!(t.ratio.unwrap().clearly_above_one());
        let cost = c.figures.cost_usd;
        assert_eq!(cost.with.unwrap().mean, 0.025);
        assert!(cost.with.unwrap().low.unwrap() < 0.025);
        assert_eq!(cost.ratio.unwrap().value, 2.5);
    }

    #[test]
    fn the_suite_leaves_out_a_case_with_one_arm() {
        let a = case(
            "a",
            (&[0.02, 0.02], &[0.01, 0.01]),
            (&[2.0, 2.0], &[1.0, 1.0]),
        );
        let b = case("b", (&[0.5, 0.5], &[]), (&[9.0, 9.0], &[]));
        let e = Efficiency::of(vec![a, b], 1, 0.95).unwrap();
        assert_eq!(e.suite.cases, 1);
        assert_eq!(e.suite.figures.turns.with.unwrap().mean, 2.0);
        assert_eq!(e.runs_without_figures, Some(1));
        assert_eq!(e.suite.figures.cost_usd.ratio.unwrap().value, 2.0);
    }

    #[test]
    fn same_score_half_the_cost_is_named() {
        let a = case(
            "a",
            (&[0.010, 0.011, 0.009], &[0.020, 0.021, 0.019]),
            (&[1.0, 1.0], &[2.0, 2.0]),
        );
        let e = Efficiency::of(vec![a], 0, 0.95).unwrap();
        let words = e.headline(false, true).unwrap();
        assert!(words.starts_with("same score, half the cost"), "{words}");
        assert!(words.contains("cheaper"), "{words}");
        // A delta within noise but not 0 is no clear change, not the same.
        let words = e.headline(false, false).unwrap();
        assert!(
            words.starts_with("no clear change in score, half the cost"),
            "{words}"
        );
        // A clear change in the score: not "the same score".
        assert_eq!(e.headline(true, true), None);
        // Within noise on cost too: nothing to name.
        let b = case(
            "b",
            (&[0.01, 0.03], &[0.02, 0.02]),
            (&[1.0, 1.0], &[1.0, 1.0]),
        );
        assert_eq!(
            Efficiency::of(vec![b], 0, 0.95)
                .unwrap()
                .headline(false, true),
            None
        );
    }

    #[test]
    fn no_figures_no_block() {
        let none = case("a", (&[], &[]), (&[], &[]));
        assert_eq!(Efficiency::of(vec![none], 3, 0.95), None);
    }
}
