//! Efficiency in words: each arm's cost, turns and duration per run with
//! their intervals and the with/without ratios, for `run`'s summary and the
//! Markdown report.

use crate::document::{ArmFigure, Efficiency, Figure, FigureKind, RatioFigure, SkillEval};

/// One arm's mean and interval: `$0.0320 [0.0301, 0.0339]`, or `3.00 (1
/// run: no interval)`; `—` for an arm without runs.
pub fn arm(kind: FigureKind, a: Option<ArmFigure>) -> String {
    let Some(a) = a else {
        return "—".to_string();
    };
    match (a.low, a.high) {
        (Some(l), Some(h)) => format!(
            "{} [{}, {}]",
            kind.fmt(a.mean),
            bare(kind, l),
            bare(kind, h)
        ),
        _ => format!("{} ({} run: no interval)", kind.fmt(a.mean), a.runs),
    }
}

/// A limit without its unit: `0.0301`, `3.00`, `1.2`.
fn bare(kind: FigureKind, x: f64) -> String {
    kind.fmt(x)
        .trim_start_matches('$')
        .trim_end_matches(" s")
        .to_string()
}

/// The ratio in words: `3.00× [3.00, 3.00]`, `—` when there is none.
pub fn ratio(f: &Figure) -> String {
    f.ratio.map_or_else(|| "—".to_string(), |r| r.words())
}

/// Whether a ratio's interval excludes 1: `Some(true)` when it lies wholly
/// above or below, `Some(false)` when it holds 1, `None` without an interval.
pub fn excludes_one(r: &RatioFigure) -> Option<bool> {
    r.low
        .zip(r.high)
        .map(|_| r.clearly_above_one() || r.clearly_below_one())
}

/// A ratio in a table cell: `2.00× >1` or `0.50× <1` when its interval lies
/// wholly above or below 1, `1.02× ~1` when it holds 1, `2.00× ?` without
/// an interval (an arm had one run), `—` without a ratio ([`RATIO_LEGEND`]).
pub fn ratio_cell(f: &Figure) -> String {
    let Some(r) = f.ratio else {
        return "—".to_string();
    };
    let mark = if r.clearly_above_one() {
        ">1"
    } else if r.clearly_below_one() {
        "<1"
    } else if excludes_one(&r).is_some() {
        "~1"
    } else {
        "?"
    };
    format!("{:.2}× {mark}", r.value)
}

/// What [`ratio_cell`]'s marks mean, said once under what shows them.
pub const RATIO_MARKS: &str = ">1 or <1: the ratio's interval (t on each arm, delta-method log-ratio) excludes 1; ~1: it holds 1; ?: no interval (an arm had one run)";

/// The legend under a table with `cost×` and `turns×` columns.
pub fn ratio_legend() -> String {
    format!(
        "cost×, turns×: with/without per run (the model's cost, the judge's left out); {RATIO_MARKS}; —: not measured"
    )
}

/// How the figures were computed, said once above them.
pub fn heading(e: &Efficiency) -> String {
    format!(
        "efficiency per run ({:.0} % intervals: t on each arm's mean, delta-method log-ratio on with/without; cost is the model's, the judge's left out)",
        e.confidence * 100.0
    )
}

/// The suite's lines for `run`'s summary, each without its indent: the
/// heading, one line per figure, "same score, half the cost" when it
/// holds, and the runs that reported no figures. Empty for a document
/// without efficiency (written before bob-eval measured it).
pub fn suite_lines(doc: &SkillEval) -> Vec<String> {
    let Some(e) = &doc.efficiency else {
        return Vec::new();
    };
    let mut out = vec![heading(e)];
    for kind in FigureKind::ALL {
        let f = e.suite.figures.get(kind);
        out.push(format!(
            "  {:<8}  with {}  without {}  with/without {}",
            kind.word(),
            arm(kind, f.with),
            arm(kind, f.without),
            ratio(f)
        ));
    }
    if let Some(words) = headline(doc) {
        out.push(format!("EFFICIENCY: {words}"));
    }
    if let Some(n) = e.runs_without_figures {
        out.push(format!(
            "{n} run(s) report no cost, turns nor duration (a result written without them): left out of these figures"
        ));
    }
    out
}

/// "Same score, half the cost" ([`Efficiency::headline`]) when the suite's
/// delta is within noise and the cost ratio clearly below (or above) 1.
pub fn headline(doc: &SkillEval) -> Option<String> {
    doc.efficiency_headline()
}

/// A case's ratios on one line: `with/without: cost 5.00× [4.71, 5.30],
/// turns 3.00× [3.00, 3.00], duration 1.00× [1.00, 1.00]`; `None` when the
/// document has no figures for it.
pub fn case_line(doc: &SkillEval, case: &str) -> Option<String> {
    let c = doc
        .efficiency
        .as_ref()?
        .cases
        .iter()
        .find(|c| c.name == case)?;
    let parts: Vec<String> = FigureKind::ALL
        .iter()
        .map(|k| format!("{} {}", k.word(), ratio(c.figures.get(*k))))
        .collect();
    Some(format!("with/without per run: {}", parts.join(", ")))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::document::{ArmValues, CaseFigures};

    /// A document of one case `fires` scoring the same on both arms, with
    /// the runs' costs and turns per arm given (durations all 1 s).
    pub(crate) fn doc(cost: (&[f64], &[f64]), turns: (&[f64], &[f64])) -> SkillEval {
        let one = [1.0; 8];
        let case = CaseFigures::of(
            "fires",
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
                    with: &one[..turns.0.len()],
                    without: &one[..turns.1.len()],
                },
            ],
            0.95,
        );
        let mut d = SkillEval {
            efficiency: Efficiency::of(vec![case], 0, 0.95),
            ..SkillEval::measured(&[(&[1.0, 1.0, 0.0], &[1.0, 0.0, 1.0])], None)
        };
        d.cases[0].name = "fires".into();
        d
    }

    #[test]
    fn the_suite_says_each_arm_and_ratio_with_its_interval() {
        let d = doc(
            (&[0.03, 0.03, 0.03], &[0.01, 0.01, 0.01]),
            (&[3.0; 3], &[1.0; 3]),
        );
        let lines = suite_lines(&d);
        assert!(lines[0].contains("t on each arm's mean"), "{lines:?}");
        assert!(
            lines[2].contains("turns     with 3.00 [3.00, 3.00]  without 1.00 [1.00, 1.00]  with/without 3.00× [3.00, 3.00]"),
            "{lines:?}"
        );
        // Same score (within noise), three times the cost: said in words.
        assert!(
            lines[4].starts_with("EFFICIENCY: same score, 3.00× the cost")
                && lines[4].contains("dearer"),
            "{lines:?}"
        );
        assert_eq!(
            case_line(&d, "fires").unwrap(),
            "with/without per run: cost 3.00× [3.00, 3.00], turns 3.00× [3.00, 3.00], duration 1.00× [1.00, 1.00]"
        );
    }

    #[test]
    fn one_run_has_no_interval_and_old_documents_say_nothing() {
        let d = doc((&[0.02], &[0.01]), (&[2.0], &[1.0]));
        let lines = suite_lines(&d);
        assert!(
            lines[1].contains("with $0.0200 (1 run: no interval)"),
            "{lines:?}"
        );
        assert!(
            lines[1].contains("2.00× (no interval: an arm has one run)"),
            "{lines:?}"
        );
        // No interval on cost: nothing is clearly cheaper or dearer.
        assert!(
            !lines.iter().any(|l| l.starts_with("EFFICIENCY")),
            "{lines:?}"
        );
        let old = SkillEval::sample(0.9, 0.5);
        assert!(suite_lines(&old).is_empty());
        assert_eq!(case_line(&old, "fires"), None);
    }

    #[test]
    fn a_ratio_cell_says_whether_its_interval_excludes_one() {
        let dearer = doc(
            (&[0.03, 0.031, 0.029], &[0.01, 0.011, 0.009]),
            (&[3.0; 3], &[3.0; 3]),
        );
        let e = dearer.efficiency.as_ref().unwrap();
        assert_eq!(ratio_cell(&e.suite.figures.cost_usd), "3.00× >1");
        assert_eq!(ratio_cell(&e.suite.figures.turns), "1.00× ~1");
        let cheaper = doc(
            (&[0.01, 0.011, 0.009], &[0.03, 0.031, 0.029]),
            (&[2.0], &[1.0]),
        );
        let e = cheaper.efficiency.as_ref().unwrap();
        assert_eq!(ratio_cell(&e.suite.figures.cost_usd), "0.33× <1");
        assert_eq!(ratio_cell(&e.suite.figures.turns), "2.00× ?");
        assert_eq!(excludes_one(&e.suite.figures.turns.ratio.unwrap()), None);
        assert_eq!(
            excludes_one(&e.suite.figures.cost_usd.ratio.unwrap()),
            Some(true)
        );
    }
}
