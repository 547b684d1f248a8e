//! `--max-cost-ratio R` (settings `_workflow.max_cost_ratio`): refuse a
//! change whose runs with the item cost more than R times the runs without
//! it (docs/gate.md, "Cost").
//!
//! The comparison is the result's own: the mean cost per run of its with
//! arm over that of its without arm, the suite's ratio in `efficiency`
//! (the model's cost, the judge's left out). Both arms run on the same
//! model in the same evaluation, so the ratio is what loading the item
//! costs; bests record no cost per run to compare with.

use super::{Condition, Decision, Status, fail, fmt_level, pass};
use crate::document::{FigureKind, SkillEval};
use crate::stats::efficiency::{Pooled, ratio_bounds};

/// The rule's condition (`cost-ratio`, on the point ratio) and, under the
/// confidence mode at `level`, `cost-ratio-clearly-within` (its one-sided
/// upper bound at that level must not be above `limit`).
pub fn cost_conditions(result: &SkillEval, limit: f64, level: Option<f64>) -> Vec<Condition> {
    let r = fmt_ratio(limit);
    let missing = |why: &str| {
        vec![fail(
            "cost-ratio",
            format!("--max-cost-ratio {r}: {why}, so the limit cannot be checked"),
        )]
    };
    let Some(e) = &result.efficiency else {
        return missing(
            "the result states no cost per run (written before bob-eval measured efficiency; run the suite again with this bob-eval)",
        );
    };
    if e.suite.cases == 0 {
        return missing("no case of the result has runs on both arms");
    }
    let Some(point) = e.suite.figures.cost_usd.ratio else {
        return missing("the without arm's runs report no cost, so no ratio can be formed");
    };
    let pct = format!("{:.0} %", e.confidence * 100.0);
    let interval = match (point.low, point.high) {
        (Some(l), Some(h)) => Some((l, h)),
        _ => None,
    };
    let said = format!(
        "cost per run with the item is {:.2}× the cost without it (the point ratio)",
        point.value
    );
    let rule = if point.value <= limit {
        let noise = match interval {
            Some((l, h)) if h > limit => format!(
                "; within noise: its {pct} interval [{l:.2}, {h:.2}] reaches above the limit"
            ),
            Some((l, h)) => format!("; its {pct} interval [{l:.2}, {h:.2}] is below the limit"),
            None => String::new(),
        };
        pass(
            "cost-ratio",
            format!("{said}, not above the limit {r}× (--max-cost-ratio){noise}"),
        )
    } else {
        let how = match interval {
            Some((l, h)) if l > limit => {
                format!("clearly over: its {pct} interval [{l:.2}, {h:.2}] lies above the limit")
            }
            Some((l, h)) => {
                format!("but within noise: its {pct} interval [{l:.2}, {h:.2}] holds the limit")
            }
            None => "no interval: an arm has one run".to_string(),
        };
        fail(
            "cost-ratio",
            format!("{said}, above the limit {r}× (--max-cost-ratio), {how}"),
        )
    };
    let mut out = vec![rule];
    if let Some(level) = level {
        out.push(clearly_within(result, point.value, limit, level));
    }
    out
}

/// The confidence mode's `cost-ratio-clearly-within`: the ratio's one-sided
/// upper bound at `level` is not above `limit`.
fn clearly_within(result: &SkillEval, value: f64, limit: f64, level: f64) -> Condition {
    const NAME: &str = "cost-ratio-clearly-within";
    let (r, at) = (fmt_ratio(limit), fmt_level(level));
    let bounds = result.efficiency.as_ref().and_then(|e| {
        let (with, without) = e.suite_samples(FigureKind::Cost);
        ratio_bounds(&Pooled::of(&with)?, &Pooled::of(&without)?, level)
    });
    let Some((low, high)) = bounds else {
        return fail(
            NAME,
            format!(
                "cost ratio {value:.2}× cannot be said clearly within the limit {r}× at {at}: an arm of a case has a single run, so there is no spread to measure; run at least 2 runs per arm"
            ),
        );
    };
    if high <= limit {
        pass(
            NAME,
            format!(
                "cost ratio {value:.2}× is clearly within the limit {r}× at {at}: its one-sided upper bound {high:.2}× is not above it"
            ),
        )
    } else if low > limit {
        fail(
            NAME,
            format!(
                "cost ratio {value:.2}× is clearly over the limit {r}× at {at}: its one-sided lower bound {low:.2}× is above it"
            ),
        )
    } else {
        fail(
            NAME,
            format!(
                "cost ratio {value:.2}× is within noise at {at}: its one-sided upper bound {high:.2}× is above the limit {r}×; more runs per arm would narrow it"
            ),
        )
    }
}

/// A limit as written: `1.5`, `2`.
fn fmt_ratio(limit: f64) -> String {
    let s = format!("{limit:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `decision` with the cost conditions of `limit` (when set) added after
/// the others, and its verdict taken again: what `gate`, `propose`, `exam`
/// and a record (under the lock) apply to a decision of the rule.
pub fn limit_cost(mut decision: Decision, result: &SkillEval, limit: Option<f64>) -> Decision {
    let Some(limit) = limit else {
        return decision;
    };
    decision
        .conditions
        .retain(|c| !c.name.starts_with("cost-ratio"));
    decision
        .conditions
        .extend(cost_conditions(result, limit, decision.confidence));
    decision.max_cost_ratio = Some(limit);
    decision.cost_ratio = result
        .efficiency
        .as_ref()
        .and_then(|e| e.suite.figures.cost_usd.ratio);
    decision.accepted = decision.conditions.iter().all(|c| c.status != Status::Fail);
    decision
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{ArmValues, Baseline, CaseFigures, Efficiency};
    use crate::gate::decide_at;

    /// A result whose one case's runs cost these amounts per arm.
    fn costing(with: &[f64], without: &[f64]) -> SkillEval {
        let turns = [1.0; 16];
        let case = CaseFigures::of(
            "fires",
            [
                ArmValues { with, without },
                ArmValues {
                    with: &turns[..with.len()],
                    without: &turns[..without.len()],
                },
                ArmValues {
                    with: &turns[..with.len()],
                    without: &turns[..without.len()],
                },
            ],
            0.95,
        );
        SkillEval {
            efficiency: Efficiency::of(vec![case], 0, 0.95),
            ..SkillEval::measured(&[(&[1.0; 4], &[0.0; 4])], None)
        }
    }

    fn decide(result: &SkillEval, limit: f64, level: Option<f64>) -> Decision {
        let d = decide_at(result, &Baseline::empty("commit"), level);
        limit_cost(d, result, Some(limit))
    }

    fn condition<'d>(d: &'d Decision, name: &str) -> &'d Condition {
        d.conditions.iter().find(|c| c.name == name).unwrap()
    }

    #[test]
    fn clearly_dearer_than_the_limit_is_refused_in_words() {
        let r = costing(&[0.04, 0.041, 0.039, 0.04], &[0.02, 0.021, 0.019, 0.02]);
        let d = decide(&r, 1.5, None);
        assert!(!d.accepted);
        let c = condition(&d, "cost-ratio");
        assert_eq!(c.status, Status::Fail);
        assert!(
            c.text.starts_with("cost per run with the item is 2.00× the cost without it (the point ratio), above the limit 1.5× (--max-cost-ratio), clearly over: its 95 % interval"),
            "{}",
            c.text
        );
        assert_eq!(d.max_cost_ratio, Some(1.5));
        // Under the mode the bound says the same.
        let d = decide(&r, 1.5, Some(0.95));
        let c = condition(&d, "cost-ratio-clearly-within");
        assert_eq!(c.status, Status::Fail);
        assert!(
            c.text.contains("clearly over the limit 1.5× at 95 %"),
            "{}",
            c.text
        );
    }

    #[test]
    fn within_the_limit_passes_and_the_mode_asks_for_it_clearly() {
        let r = costing(&[0.022, 0.03, 0.018, 0.026], &[0.02, 0.021, 0.019, 0.02]);
        // The point ratio 1.20 is within 1.5: the rule passes, saying the
        // interval reaches above the limit.
        let d = decide(&r, 1.5, None);
        let c = condition(&d, "cost-ratio");
        assert_eq!(c.status, Status::Pass, "{}", c.text);
        assert!(c.text.contains("within noise"), "{}", c.text);
        assert!(d.accepted);
        // A check that accepts on it says it may be luck.
        assert_eq!(d.within_noise(), vec!["cost-ratio"]);
        assert_eq!(d.cost_ratio.unwrap().value, 1.2);
        // The mode wants the upper bound within the limit: not at 4 runs.
        let d = decide(&r, 1.5, Some(0.95));
        let c = condition(&d, "cost-ratio-clearly-within");
        assert_eq!(c.status, Status::Fail);
        assert!(c.text.contains("is within noise at 95 %"), "{}", c.text);
        // A generous limit is clearly met.
        let d = decide(&r, 3.0, Some(0.95));
        assert_eq!(
            condition(&d, "cost-ratio-clearly-within").status,
            Status::Pass
        );
        // No limit: no condition, the decision as the rule made it.
        let plain = decide_at(&r, &Baseline::empty("commit"), None);
        let same = limit_cost(plain.clone(), &r, None);
        assert_eq!(same, plain);
    }

    #[test]
    fn a_result_without_figures_cannot_pass_a_limit() {
        let old = SkillEval::measured(&[(&[1.0; 4], &[0.0; 4])], None);
        let d = decide(&old, 1.5, None);
        assert!(!d.accepted);
        assert!(
            condition(&d, "cost-ratio")
                .text
                .contains("states no cost per run"),
            "{d:?}"
        );
        let single = costing(&[0.03], &[0.01]);
        let d = decide(&single, 5.0, Some(0.95));
        assert_eq!(condition(&d, "cost-ratio").status, Status::Pass);
        assert!(
            condition(&d, "cost-ratio-clearly-within")
                .text
                .contains("single run"),
        );
        // Applying the limit twice keeps one set of conditions.
        let again = limit_cost(d.clone(), &single, Some(5.0));
        assert_eq!(again.conditions.len(), d.conditions.len());
    }
}
