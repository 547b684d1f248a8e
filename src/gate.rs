//! The gate: the fixed rule that accepts or rejects a result against the best
//! recorded for its model (README, "Gating and recording").
//!
//! [`decide`] is the rule as a pure function over the two documents
//! ([`crate::document::load_result`], [`crate::document::load_baseline`] read them).

use crate::document::{Baseline, BestEntry, SkillEval, fmt_score, round4};
use serde::Serialize;

/// The outcome of one condition of the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The condition holds.
    Pass,
    /// The condition does not hold: the result is rejected.
    Fail,
    /// The condition could not be checked (said why in the text); it does not reject.
    Skipped,
}

/// One condition of the rule, with a sentence a person understands.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Condition {
    /// `not-partial`, `bought-here` (only for a result using imported runs),
    /// `beats-best`, `helps` or `trigger-rate`.
    pub name: &'static str,
    /// Whether it held.
    pub status: Status,
    /// What was compared, in words, with the written numbers.
    pub text: String,
}

/// The gate's decision on one result: accepted or not, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    /// True only when no condition failed.
    pub accepted: bool,
    /// The item.
    pub item: String,
    /// The model the result ran on; the best compared against is this model's.
    pub model: String,
    /// The result's run id.
    pub run: String,
    /// The result's `with`, as written.
    pub with: f64,
    /// The result's `without`, as written.
    pub without: f64,
    /// The result's trigger rate, as written.
    pub trigger_rate: Option<f64>,
    /// The best recorded for the model, if any.
    pub best: Option<BestEntry>,
    /// Every condition, in rule order.
    pub conditions: Vec<Condition>,
    /// When the suite differs from the one the best was measured on: how.
    /// Advice only; the rule does not read it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suite_change: Option<String>,
    /// How sure each estimated condition is (clear, or within noise with the
    /// interval and the runs that would settle it). Advice only: the rule
    /// does not read it. Absent for a result without intervals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<crate::stats::GateAdvice>,
    /// When the best (or this result's `with`) is at the suite's ceiling of
    /// 1.00: that the suite can no longer tell a better item apart. Advice
    /// only; the rule does not read it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saturated: Option<String>,
    /// The cases the platform scored by their trigger graders alone, in
    /// words. Advice only; the rule does not read it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scored_by_trigger: Vec<String>,
    /// The operator's `--trust-imported`: imported runs may count toward an
    /// accept. Kept so that recording applies the rule the same way.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub trust_imported: bool,
}

/// The highest score a suite can give: no result is ever above it.
pub const CEILING: f64 = 1.0;

/// Words for a suite at its ceiling, when `best` (or else `with`) is there:
/// no later result can be strictly above 1.00, so the suite needs a case the
/// item does not yet pass before it can tell a better item apart.
pub fn saturation(with: f64, best: Option<&BestEntry>, model: &str) -> Option<String> {
    const FIX: &str =
        "the suite can no longer tell a better item apart; add a case the item does not yet pass";
    if let Some(b) = best
        && round4(b.score) >= CEILING
    {
        return Some(format!(
            "saturated: the best for {model} is already {}, the suite's ceiling, so no result can be above it: {FIX}",
            fmt_score(CEILING)
        ));
    }
    (round4(with) >= CEILING).then(|| {
        format!(
            "saturated: with is {}, the suite's ceiling, so once it is the best no later change can beat it: {FIX}",
            fmt_score(CEILING)
        )
    })
}

impl Decision {
    /// The texts of the failed conditions: why the result was rejected (empty when accepted).
    pub fn reasons(&self) -> Vec<String> {
        self.conditions
            .iter()
            .filter(|c| c.status == Status::Fail)
            .map(|c| c.text.clone())
            .collect()
    }

    /// How sure the condition `name` is, in words: the advisory's, or, for
    /// `beats-best` against a best at the ceiling, the saturation (no number
    /// of runs settles a comparison no result can win). `None` for a
    /// condition without an estimate.
    pub fn advice_words(&self, name: &str) -> Option<String> {
        if name == "beats-best"
            && let Some(saturated) = &self.saturated
            && self
                .best
                .as_ref()
                .is_some_and(|b| round4(b.score) >= CEILING)
        {
            return Some(saturated.clone());
        }
        let a = self.advice.as_ref()?;
        let advisory = match name {
            "beats-best" => Some(a.beats_best),
            "helps" => Some(a.helps),
            "trigger-rate" => a.trigger_rate,
            _ => None,
        }?;
        Some(advisory.in_words())
    }
}

/// [`decide_with`] without trusting imported runs: the rule as it stands.
pub fn decide(result: &SkillEval, baseline: &Baseline) -> Decision {
    decide_with(result, baseline, false)
}

/// The rule (README, "Gating and recording"): accept when all hold, else reject naming every
/// failed condition.
///
/// 1. the result is not partial;
/// 2. `with` > the model's best `score`, or with no best for the model, `with` > `without`;
/// 3. `with` > `without`;
/// 4. `trigger_rate` ≥ the best's `trigger_rate`, skipped when either is null or no best.
///
/// And, for a result that used runs imported from a file (`imported_runs`),
/// `bought-here` (right after `not-partial`): it fails unless
/// `trust_imported` (`--trust-imported`), since a file anyone can write is not
/// evidence. A result without imported runs has no such condition.
///
/// Every comparison uses the numbers as written (4 decimals): equal is a reject.
pub fn decide_with(result: &SkillEval, baseline: &Baseline, trust_imported: bool) -> Decision {
    let model = result.model.as_str();
    let with = round4(result.with);
    let without = round4(result.without);
    let trigger_rate = result.trigger_rate.map(round4);
    let best = baseline.best.get(model).cloned();
    let (w, wo) = (fmt_score(with), fmt_score(without));

    let not_partial = if result.partial {
        let reason = result
            .partial_reason
            .as_deref()
            .unwrap_or("no reason given");
        fail(
            "not-partial",
            format!("the result is partial ({reason}) and a partial result is never accepted"),
        )
    } else {
        pass("not-partial", "the result is complete (not partial)".into())
    };

    let bought_here = result
        .imported_runs
        .filter(|n| *n > 0)
        .map(|n| imported(n, trust_imported));

    let beats_best = match &best {
        Some(b) => {
            let score = round4(b.score);
            let s = fmt_score(score);
            if with > score {
                pass(
                    "beats-best",
                    format!("with {w} is above the best {s} recorded for {model}"),
                )
            } else {
                fail(
                    "beats-best",
                    format!("with {w} is not above the best {s} recorded for {model}"),
                )
            }
        }
        None if with > without => pass(
            "beats-best",
            format!(
                "no best recorded for {model} yet: with {w} is above its own without {wo}, the floor for a first baseline"
            ),
        ),
        None => fail(
            "beats-best",
            format!(
                "no best recorded for {model} yet: with {w} is not above its own without {wo}, the floor for a first baseline"
            ),
        ),
    };

    let helps = if with > without {
        pass(
            "helps",
            format!("with {w} is above without {wo}: the item helps"),
        )
    } else {
        fail(
            "helps",
            format!("with {w} is not above without {wo}: the item does not help"),
        )
    };

    let trigger = match (&best, trigger_rate) {
        (None, _) => skip(format!("trigger check skipped: no best recorded for {model} yet")),
        (Some(_), None) => skip("trigger check skipped: the result has no trigger rate (no `tool_used: Skill` grader ran)".into()),
        (Some(b), Some(rate)) => match b.trigger_rate.map(round4) {
            None => skip(format!("trigger check skipped: the best recorded for {model} has no trigger rate")),
            Some(best_rate) => {
                let (r, br) = (fmt_score(rate), fmt_score(best_rate));
                if rate >= best_rate {
                    pass("trigger-rate", format!("trigger rate {r} is not below the best's {br} recorded for {model}"))
                } else {
                    fail("trigger-rate", format!("trigger rate {r} is below the best's {br} recorded for {model}{}", split(result)))
                }
            }
        },
    };

    let conditions: Vec<Condition> = [Some(not_partial), bought_here]
        .into_iter()
        .flatten()
        .chain([beats_best, helps, trigger])
        .collect();
    Decision {
        advice: result.stats.as_ref().map(|s| {
            crate::stats::gate_advice(
                &s.suite,
                best.as_ref().map(|b| (b.score, b.trigger_rate)),
                s.trigger,
            )
        }),
        suite_change: best.as_ref().and_then(|b| result.suite_change(b)),
        saturated: saturation(with, best.as_ref(), model),
        scored_by_trigger: result
            .scored_by_trigger()
            .map(|c| crate::document::scored_by_trigger_words(&c.name))
            .collect(),
        accepted: conditions.iter().all(|c| c.status != Status::Fail),
        item: result.item.clone(),
        model: model.to_string(),
        run: result.run.clone(),
        with,
        without,
        trigger_rate,
        best,
        conditions,
        trust_imported,
    }
}

/// The `bought-here` condition of a result that used `n` imported runs.
fn imported(n: u32, trusted: bool) -> Condition {
    let what = format!(
        "{n} of its runs were imported from a file (`evidence import`), not bought here nor collected from this project's shards"
    );
    if trusted {
        pass(
            "bought-here",
            format!("{what}; counted under --trust-imported"),
        )
    } else {
        fail(
            "bought-here",
            format!(
                "{what}: a file anyone can write is not evidence (--trust-imported accepts them; --fresh buys them anew)"
            ),
        )
    }
}

/// The fires/quiet split of a result, when it has one: `; it fired on 0.00 of
/// its fires results and held quiet on 1.00 (never fired where it should)`.
fn split(result: &SkillEval) -> String {
    let (Some(f), Some(q)) = (result.fires_rate, result.quiet_rate) else {
        return String::new();
    };
    let words = result
        .trigger_problem()
        .map_or_else(String::new, |w| format!(" ({w})"));
    format!(
        "; it fired on {} of its fires results and held quiet on {}{words}",
        fmt_score(f),
        fmt_score(q)
    )
}

fn pass(name: &'static str, text: String) -> Condition {
    Condition {
        name,
        status: Status::Pass,
        text,
    }
}

fn fail(name: &'static str, text: String) -> Condition {
    Condition {
        name,
        status: Status::Fail,
        text,
    }
}

fn skip(text: String) -> Condition {
    Condition {
        name: "trigger-rate",
        status: Status::Skipped,
        text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(with: f64, without: f64, trigger: Option<f64>, partial: Option<&str>) -> SkillEval {
        SkillEval {
            trigger_rate: trigger,
            partial: partial.is_some(),
            partial_reason: partial.map(str::to_string),
            ..SkillEval::sample(with, without)
        }
    }

    fn baseline(model: &str, score: f64, trigger: Option<f64>) -> Baseline {
        let mut b = Baseline::empty("commit");
        b.best.insert(
            model.into(),
            BestEntry {
                score,
                without: 0.5,
                trigger_rate: trigger,
                run: "eval-commit-20261009T084444Z".into(),
                date: "2026-10-09".into(),
                suite_digest: None,
                cases: None,
                runs: None,
                interval: None,
            },
        );
        b
    }

    const M: &str = "claude-sonnet-5-5";
    use Status::{Fail as F, Pass as P, Skipped as S};

    #[test]
    fn imported_runs_are_accepted_on_only_when_trusted() {
        let mut r = result(0.83, 0.67, Some(1.0), None);
        let empty = Baseline::empty("commit");
        let names = |d: &Decision| d.conditions.iter().map(|c| c.name).collect::<Vec<_>>();
        let own = decide(&r, &empty);
        assert!(own.accepted);
        assert!(
            !names(&own).contains(&"bought-here"),
            "no condition without imported runs"
        );
        r.imported_runs = Some(0);
        assert_eq!(decide(&r, &empty), own);

        r.imported_runs = Some(3);
        let d = decide(&r, &empty);
        assert!(!d.accepted);
        assert_eq!(names(&d)[..2], ["not-partial", "bought-here"]);
        let reasons = d.reasons();
        assert_eq!(reasons.len(), 1, "{reasons:?}");
        assert!(
            reasons[0].contains("3 of its runs were imported"),
            "{reasons:?}"
        );
        assert!(reasons[0].contains("--trust-imported"), "{reasons:?}");

        let trusted = decide_with(&r, &empty, true);
        assert!(trusted.accepted && trusted.trust_imported);
        assert_eq!(trusted.conditions[1].status, Status::Pass);
        assert!(
            trusted.conditions[1]
                .text
                .contains("under --trust-imported")
        );
        // Trust lets imported runs count; it does not accept what the rule rejects.
        r.with = 0.5;
        assert!(!decide_with(&r, &empty, true).accepted);
    }

    /// (case, result, baseline, accepted, statuses of not-partial, beats-best, helps, trigger-rate)
    #[allow(clippy::type_complexity)]
    fn table() -> Vec<(&'static str, SkillEval, Baseline, bool, [Status; 4])> {
        let empty = Baseline::empty("commit");
        vec![
            (
                "first baseline beats its without",
                result(0.83, 0.67, Some(1.0), None),
                empty.clone(),
                true,
                [P, P, P, S],
            ),
            (
                "first baseline equal to without",
                result(0.67, 0.67, Some(1.0), None),
                empty.clone(),
                false,
                [P, F, F, S],
            ),
            (
                "first baseline below without",
                result(0.5, 0.67, None, None),
                empty.clone(),
                false,
                [P, F, F, S],
            ),
            (
                "beats the best",
                result(0.91, 0.67, Some(1.0), None),
                baseline(M, 0.83, Some(1.0)),
                true,
                [P, P, P, P],
            ),
            (
                "equal to the best",
                result(0.83, 0.67, Some(1.0), None),
                baseline(M, 0.83, Some(1.0)),
                false,
                [P, F, P, P],
            ),
            (
                "equal as written (4 decimals)",
                result_t(0.83334, 0.5, Some(1.0)),
                baseline(M, 0.8333, Some(1.0)),
                false,
                [P, F, P, P],
            ),
            (
                "regression below the best",
                result(0.7, 0.5, Some(1.0), None),
                baseline(M, 0.83, Some(1.0)),
                false,
                [P, F, P, P],
            ),
            (
                "beats best but does not help",
                result(0.9, 0.95, Some(1.0), None),
                baseline(M, 0.83, Some(1.0)),
                false,
                [P, P, F, P],
            ),
            (
                "trigger drop",
                result(0.91, 0.67, Some(0.5), None),
                baseline(M, 0.83, Some(1.0)),
                false,
                [P, P, P, F],
            ),
            (
                "trigger equal",
                result(0.91, 0.67, Some(0.5), None),
                baseline(M, 0.83, Some(0.5)),
                true,
                [P, P, P, P],
            ),
            (
                "result trigger null",
                result(0.91, 0.67, None, None),
                baseline(M, 0.83, Some(1.0)),
                true,
                [P, P, P, S],
            ),
            (
                "best trigger null (legacy)",
                result(0.91, 0.67, Some(0.0), None),
                baseline(M, 0.83, None),
                true,
                [P, P, P, S],
            ),
            (
                "both trigger null",
                result(0.91, 0.67, None, None),
                baseline(M, 0.83, None),
                true,
                [P, P, P, S],
            ),
            (
                "partial is never accepted",
                result(0.99, 0.1, Some(1.0), Some("cost_ceiling")),
                empty.clone(),
                false,
                [F, P, P, S],
            ),
            (
                "partial and worse",
                result(0.5, 0.6, Some(0.0), Some("run_errors")),
                baseline(M, 0.83, Some(1.0)),
                false,
                [F, F, F, F],
            ),
            (
                "best for another model only",
                result(0.6, 0.5, Some(0.0), None),
                baseline("haiku", 0.9, Some(1.0)),
                true,
                [P, P, P, S],
            ),
            (
                "another model only, no help",
                result(0.5, 0.5, Some(1.0), None),
                baseline("haiku", 0.1, Some(1.0)),
                false,
                [P, F, F, S],
            ),
        ]
    }

    fn result_t(with: f64, without: f64, trigger: Option<f64>) -> SkillEval {
        result(with, without, trigger, None)
    }

    #[test]
    fn every_branch_of_the_rule() {
        for (case, r, b, accepted, statuses) in table() {
            let d = decide(&r, &b);
            let got: Vec<Status> = d.conditions.iter().map(|c| c.status).collect();
            assert_eq!(got, statuses, "{case}: {:#?}", d.conditions);
            assert_eq!(d.accepted, accepted, "{case}");
            let names: Vec<&str> = d.conditions.iter().map(|c| c.name).collect();
            assert_eq!(
                names,
                ["not-partial", "beats-best", "helps", "trigger-rate"],
                "{case}"
            );
            assert_eq!(
                d.reasons().len(),
                statuses.iter().filter(|s| **s == F).count(),
                "{case}"
            );
            assert_eq!(d.reasons().is_empty(), accepted, "{case}");
        }
    }

    #[test]
    fn a_best_at_the_ceiling_is_named_saturated() {
        // A best of 1.00: no result can beat it, and the advice says why
        // instead of asking for more runs.
        let d = decide(&result_t(1.0, 0.5, Some(1.0)), &baseline(M, 1.0, Some(1.0)));
        assert!(!d.accepted);
        let saturated = d.saturated.clone().expect("saturated");
        assert!(
            saturated.contains("the suite can no longer tell a better item apart"),
            "{saturated}"
        );
        assert!(
            saturated.contains("add a case the item does not yet pass"),
            "{saturated}"
        );
        let words = d.advice_words("beats-best").expect("advice");
        assert_eq!(words, saturated);
        assert!(!words.contains("no number of runs"), "{words}");
        // A first result at 1.00 is accepted, and says the suite is now full.
        let d = decide(&result_t(1.0, 0.5, Some(1.0)), &Baseline::empty("commit"));
        assert!(d.accepted);
        assert!(
            d.saturated
                .is_some_and(|s| s.contains("once it is the best"))
        );
        // Below the ceiling, nothing is said.
        let d = decide(&result_t(0.9, 0.5, Some(1.0)), &baseline(M, 0.8, Some(1.0)));
        assert_eq!(d.saturated, None);
    }

    #[test]
    fn texts_say_what_was_compared() {
        let d = decide(
            &result_t(0.83, 0.67, Some(1.0)),
            &baseline(M, 0.83, Some(1.0)),
        );
        assert_eq!(
            d.reasons(),
            ["with 0.83 is not above the best 0.83 recorded for claude-sonnet-5-5"]
        );

        let d = decide(
            &result(0.9, 0.1, Some(1.0), Some("cost_ceiling")),
            &Baseline::empty("commit"),
        );
        assert_eq!(
            d.reasons(),
            ["the result is partial (cost_ceiling) and a partial result is never accepted"]
        );
        assert_eq!(
            d.conditions[3].text,
            "trigger check skipped: no best recorded for claude-sonnet-5-5 yet"
        );

        let d = decide(
            &result_t(0.91, 0.67, Some(0.5)),
            &baseline(M, 0.83, Some(1.0)),
        );
        assert_eq!(
            d.reasons(),
            ["trigger rate 0.50 is below the best's 1.00 recorded for claude-sonnet-5-5"]
        );

        let d = decide(&result_t(0.91, 0.67, Some(0.5)), &baseline(M, 0.83, None));
        assert!(
            d.conditions[3]
                .text
                .contains("best recorded for claude-sonnet-5-5 has no trigger rate")
        );

        let d = decide(&result_t(0.6, 0.6, None), &Baseline::empty("commit"));
        assert_eq!(
            d.reasons(),
            [
                "no best recorded for claude-sonnet-5-5 yet: with 0.60 is not above its own without 0.60, the floor for a first baseline",
                "with 0.60 is not above without 0.60: the item does not help",
            ]
        );
    }

    #[test]
    fn decision_carries_written_numbers_and_the_best() {
        let d = decide(
            &result_t(0.833349, 0.66666, Some(0.99999)),
            &baseline(M, 0.8, Some(1.0)),
        );
        assert_eq!(
            (d.with, d.without, d.trigger_rate),
            (0.8333, 0.6667, Some(1.0))
        );
        assert_eq!(d.best.as_ref().map(|b| b.score), Some(0.8));
        assert_eq!((d.item.as_str(), d.model.as_str()), ("commit", M));
    }

    #[test]
    fn a_trigger_reject_names_the_fires_quiet_split() {
        let never = SkillEval {
            trigger_rate: Some(0.5),
            fires_rate: Some(0.0),
            quiet_rate: Some(1.0),
            ..SkillEval::sample(0.95, 0.67)
        };
        let d = decide(&never, &baseline(M, 0.83, Some(1.0)));
        let reasons = d.reasons().join("\n");
        assert!(
            reasons.contains("fired on 0.00 of its fires results and held quiet on 1.00 (never fired where it should)"),
            "{reasons}"
        );
    }

    #[test]
    fn the_decision_says_how_sure_each_condition_is() {
        use crate::stats::{Advisory, CaseRuns, compare};
        let noisy = compare(
            &[CaseRuns {
                case: 0,
                with: vec![1.0, 1.0, 0.0],
                without: vec![0.0, 1.0, 0.0],
                cost_usd: 0.0,
            }],
            crate::stats::CONFIDENCE,
        );
        let result = SkillEval {
            stats: Some(crate::document::Stats {
                confidence: noisy.confidence,
                suite: noisy.suite,
                trigger: None,
                auto: None,
            }),
            ..SkillEval::sample(0.6667, 0.3333)
        };
        let d = decide(&result, &Baseline::empty("commit"));
        assert!(d.accepted, "the rule is unchanged: 2 of 3 beats 1 of 3");
        let advice = d.advice.expect("advice for a result with intervals");
        assert!(
            matches!(advice.helps, Advisory::WithinNoise { .. }),
            "{advice:?}"
        );
        assert!(
            advice
                .helps
                .in_words()
                .starts_with("within noise: 95 % interval [")
        );
        let json = serde_json::to_value(&d).unwrap();
        assert_eq!(json["advice"]["helps"]["advisory"], "within-noise");
    }
}
