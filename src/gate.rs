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
    /// Under the confidence mode, for a condition within noise: more runs per
    /// arm of each case that would settle an effect of the observed size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs_needed: Option<u32>,
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
    /// The confidence mode's level when it was in force (`--confidence`, or
    /// settings `_workflow.gate_confidence`): its conditions follow the
    /// rule's. Absent when the rule alone decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
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

/// [`decide_full`] without trusting imported runs and without the
/// confidence mode: the rule as it stands.
pub fn decide(result: &SkillEval, baseline: &Baseline) -> Decision {
    decide_full(result, baseline, false, None)
}

/// [`decide_full`] with `--trust-imported` as given, without the confidence mode.
pub fn decide_with(result: &SkillEval, baseline: &Baseline, trust_imported: bool) -> Decision {
    decide_full(result, baseline, trust_imported, None)
}

/// [`decide`], and under the confidence mode (`Some(level)`) the rule's
/// estimated conditions must also hold clearly at that level
/// ([`confidence_conditions`]). The mode only adds conditions: the rule's
/// own are the same with or without it.
pub fn decide_at(result: &SkillEval, baseline: &Baseline, confidence: Option<f64>) -> Decision {
    decide_full(result, baseline, false, confidence)
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
pub fn decide_full(
    result: &SkillEval,
    baseline: &Baseline,
    trust_imported: bool,
    confidence: Option<f64>,
) -> Decision {
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

    let trigger_skipped = (trigger.status == Status::Skipped).then(|| trigger.text.clone());
    let mut conditions: Vec<Condition> = [Some(not_partial), bought_here]
        .into_iter()
        .flatten()
        .chain([beats_best, helps, trigger])
        .collect();
    if let Some(level) = confidence {
        conditions.extend(confidence_conditions(
            result,
            best.as_ref(),
            level,
            trigger_skipped,
        ));
    }
    Decision {
        confidence,
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
        runs_needed: None,
    }
}

fn fail(name: &'static str, text: String) -> Condition {
    Condition {
        name,
        status: Status::Fail,
        text,
        runs_needed: None,
    }
}

fn skip(text: String) -> Condition {
    skip_named("trigger-rate", text)
}

fn skip_named(name: &'static str, text: String) -> Condition {
    Condition {
        name,
        status: Status::Skipped,
        text,
        runs_needed: None,
    }
}

/// The level a result is judged at under the mode: `level`, or for runs
/// bought by `--runs auto` the one-sided level of the look it stopped at
/// when that is stricter (the looks before spent part of the error budget;
/// judging the last look's data at a looser level would spend it twice).
pub fn effective_level(result: &SkillEval, level: f64) -> f64 {
    match &result.stats {
        Some(s) if s.auto.is_some() => level.max(0.5 + s.confidence / 2.0),
        _ => level,
    }
}

/// A level in words: `95 %`, `97.65 %`.
pub fn fmt_level(level: f64) -> String {
    let pct = format!("{:.2}", level * 100.0);
    let pct = pct.trim_end_matches('0').trim_end_matches('.');
    format!("{pct} %")
}

/// The confidence mode's conditions (`docs/statistics.md`, "The gate's
/// confidence mode"): `beats-best-clearly`, `helps-clearly` and
/// `trigger-rate-not-clearly-below`, each a one-sided check at `level`.
/// Against a best that kept its runs ([`crate::document::BestEvidence`]) the
/// comparison is two-sample; against an older best its score is an exact line.
fn confidence_conditions(
    result: &SkillEval,
    best: Option<&BestEntry>,
    level: f64,
    trigger_skipped: Option<String>,
) -> Vec<Condition> {
    use crate::stats::Part;
    use crate::stats::confidence::{Side, check};
    let level = effective_level(result, level);
    let at = fmt_level(level);
    let Some(mine) = crate::document::BestEvidence::of(result) else {
        let why = format!(
            "the result keeps no runs per case, so nothing can be said clearly at {at}; run the suite again with this bob-eval"
        );
        return vec![
            fail("beats-best-clearly", why.clone()),
            fail("helps-clearly", why),
        ];
    };
    let k = mine.cases.len() as f64;
    let part = |coef: f64, a: crate::document::ArmSum| Part {
        coef,
        sum: a.sum,
        n: a.runs as usize,
    };
    let with_parts: Vec<Part> = mine.cases.iter().map(|c| part(1.0 / k, c.with)).collect();
    let delta_parts: Vec<Part> = mine
        .cases
        .iter()
        .flat_map(|c| [part(1.0 / k, c.with), part(-1.0 / k, c.without)])
        .collect();
    let all = |n: usize| vec![true; n];

    let helps_check = check(
        &delta_parts,
        &all(delta_parts.len()),
        0.0,
        level,
        Side::Above,
    );
    let helps = judged(
        "helps-clearly",
        &helps_check,
        format!(
            "delta {} is clearly above 0 at {at} (one-sided bound {})",
            fmt_score(helps_check.estimate.value),
            fmt_score(helps_check.bound)
        ),
        format!(
            "delta {} is within noise at {at}: its one-sided bound {} is not above 0",
            fmt_score(helps_check.estimate.value),
            fmt_score(helps_check.bound)
        ),
    );

    let beats = match best {
        None => judged(
            "beats-best-clearly",
            &helps_check,
            format!(
                "no best recorded yet: delta {} is clearly above 0 at {at}, the floor for a first baseline",
                fmt_score(helps_check.estimate.value)
            ),
            format!(
                "no best recorded yet: delta {} is within noise at {at} (one-sided bound {}), the floor for a first baseline",
                fmt_score(helps_check.estimate.value),
                fmt_score(helps_check.bound)
            ),
        ),
        Some(b) => match &b.evidence {
            Some(theirs) if !theirs.cases.is_empty() => {
                let kb = theirs.cases.len() as f64;
                let mut parts = with_parts.clone();
                parts.extend(theirs.cases.iter().map(|c| part(-1.0 / kb, c.with)));
                let mut grows = all(with_parts.len());
                grows.extend(vec![false; theirs.cases.len()]);
                let c = check(&parts, &grows, 0.0, level, Side::Above);
                judged(
                    "beats-best-clearly",
                    &c,
                    format!(
                        "with is clearly above the best {} at {at}, the best's own runs counted (difference {}, one-sided bound {})",
                        fmt_score(b.score),
                        fmt_score(c.estimate.value),
                        fmt_score(c.bound)
                    ),
                    format!(
                        "with is within noise of the best {} at {at}, the best's own runs counted (difference {}, one-sided bound {} is not above 0)",
                        fmt_score(b.score),
                        fmt_score(c.estimate.value),
                        fmt_score(c.bound)
                    ),
                )
            }
            _ => {
                let score = round4(b.score);
                let c = check(
                    &with_parts,
                    &all(with_parts.len()),
                    score,
                    level,
                    Side::Above,
                );
                judged(
                    "beats-best-clearly",
                    &c,
                    format!(
                        "with {} is clearly above the best {} at {at} (one-sided bound {}; the best kept no runs, so it is an exact line)",
                        fmt_score(c.estimate.value),
                        fmt_score(score),
                        fmt_score(c.bound)
                    ),
                    format!(
                        "with {} is within noise of the best {} at {at} (one-sided bound {} is not above it; the best kept no runs, so it is an exact line)",
                        fmt_score(c.estimate.value),
                        fmt_score(score),
                        fmt_score(c.bound)
                    ),
                )
            }
        },
    };

    let trigger = match (
        trigger_skipped,
        best,
        result.stats.as_ref().and_then(|s| s.trigger),
    ) {
        (Some(why), ..) => skip_named("trigger-rate-not-clearly-below", why),
        (None, Some(b), Some(t)) if t.results > 0 => {
            let new = Part {
                coef: 1.0,
                sum: f64::from(t.fired),
                n: t.results as usize,
            };
            let theirs = b
                .evidence
                .as_ref()
                .and_then(|e| e.trigger)
                .filter(|t| t.results > 0);
            let (c, against) = match theirs {
                Some(bt) => {
                    let old = Part {
                        coef: -1.0,
                        sum: f64::from(bt.fired),
                        n: bt.results as usize,
                    };
                    (
                        check(&[new, old], &[true, false], 0.0, level, Side::NotBelow),
                        "the best's own results counted",
                    )
                }
                None => (
                    check(
                        &[new],
                        &[true],
                        b.trigger_rate.map_or(0.0, round4),
                        level,
                        Side::NotBelow,
                    ),
                    "the best kept no counts, so its rate is an exact line",
                ),
            };
            let rate = f64::from(t.fired) / f64::from(t.results);
            let best_rate = b.trigger_rate.map_or(0.0, round4);
            judged(
                "trigger-rate-not-clearly-below",
                &c,
                format!(
                    "trigger rate {} is not clearly below the best's {} at {at} ({against})",
                    fmt_score(rate),
                    fmt_score(best_rate)
                ),
                format!(
                    "trigger rate {} is clearly below the best's {} at {at} ({against})",
                    fmt_score(rate),
                    fmt_score(best_rate)
                ),
            )
        }
        _ => skip_named(
            "trigger-rate-not-clearly-below",
            "trigger check skipped: the result keeps no trigger counts".into(),
        ),
    };
    vec![beats, helps, trigger]
}

/// A condition from a [`crate::stats::confidence::Check`]: `held` when it
/// holds, else `noise` and the runs that would settle it.
fn judged(
    name: &'static str,
    c: &crate::stats::confidence::Check,
    held: String,
    noise: String,
) -> Condition {
    if c.holds {
        return pass(name, held);
    }
    let settle = match c.runs_needed {
        Some(n) => format!(
            "; about {n} more runs per arm of each case would settle an effect this size"
        ),
        None if name == "trigger-rate-not-clearly-below" => String::new(),
        None if c.estimate.value > c.tie => "; no number of new runs would settle it: the best's own runs are too few to tell an effect this size (measure the best again with more runs)".into(),
        None => "; the estimate does not point the right way, so more runs would not settle it in its favour".into(),
    };
    Condition {
        runs_needed: c.runs_needed,
        ..fail(name, format!("{noise}{settle}"))
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
                evidence: None,
                confidence: None,
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

    fn measured(arms: &[(&[f64], &[f64])], trigger: Option<(u32, u32)>) -> SkillEval {
        SkillEval::measured(arms, trigger)
    }

    fn ones(n: usize) -> Vec<f64> {
        vec![1.0; n]
    }

    fn passes(x: usize, n: usize) -> Vec<f64> {
        (0..n).map(|i| if i < x { 1.0 } else { 0.0 }).collect()
    }

    fn names(d: &Decision) -> Vec<(&str, Status)> {
        d.conditions.iter().map(|c| (c.name, c.status)).collect()
    }

    #[test]
    fn the_mode_only_adds_conditions() {
        let r = measured(&[(&passes(2, 3), &passes(1, 3))], Some((3, 3)));
        for b in [Baseline::empty("commit"), baseline(M, 0.5, Some(1.0))] {
            let rule = decide(&r, &b);
            let mode = decide_at(&r, &b, Some(0.95));
            assert_eq!(rule.confidence, None);
            assert_eq!(mode.confidence, Some(0.95));
            assert_eq!(rule.conditions[..], mode.conditions[..4]);
            assert_eq!(mode.conditions.len(), 7);
            // A reject under the rule is a reject under the mode.
            assert!(mode.accepted <= rule.accepted);
        }
        let json = serde_json::to_value(decide(&r, &Baseline::empty("commit"))).unwrap();
        assert!(json.get("confidence").is_none(), "{json}");
    }

    #[test]
    fn the_mode_refuses_luck_and_says_what_would_settle_it() {
        // 2 of 3 against 1 of 3: the rule accepts, the mode cannot tell it from chance.
        let r = measured(&[(&passes(2, 3), &passes(1, 3))], Some((3, 3)));
        let b = Baseline::empty("commit");
        assert!(decide(&r, &b).accepted);
        let d = decide_at(&r, &b, Some(0.95));
        assert!(!d.accepted);
        assert_eq!(
            names(&d)[4..],
            [
                ("beats-best-clearly", F),
                ("helps-clearly", F),
                ("trigger-rate-not-clearly-below", S)
            ]
        );
        let helps = &d.conditions[5];
        let more = helps.runs_needed.expect("a positive effect can be settled");
        assert!(more > 3, "{helps:?}");
        assert!(
            helps
                .text
                .starts_with("delta 0.3333 is within noise at 95 %: its one-sided bound -0.")
                && helps.text.ends_with(&format!(
                    "about {more} more runs per arm of each case would settle an effect this size"
                )),
            "{}",
            helps.text
        );
        let json = serde_json::to_value(&d).unwrap();
        assert_eq!(json["confidence"], 0.95);
        assert_eq!(json["conditions"][5]["runs_needed"], more);
    }

    #[test]
    fn a_clear_change_passes_the_mode() {
        let r = measured(
            &[
                (&ones(10), &passes(0, 10)),
                (&passes(9, 10), &passes(2, 10)),
            ],
            Some((10, 10)),
        );
        let d = decide_at(&r, &Baseline::empty("commit"), Some(0.95));
        assert!(d.accepted, "{:#?}", d.conditions);
        assert!(d.conditions[5].text.contains("clearly above 0 at 95 %"));
        // An old best (no runs kept) is an exact line.
        let d = decide_at(&r, &baseline(M, 0.8, Some(1.0)), Some(0.95));
        assert!(
            !d.accepted,
            "0.95 against an exact 0.8 on 20 runs is not clear"
        );
        assert!(
            d.conditions[4].text.contains("exact line"),
            "{}",
            d.conditions[4].text
        );
        let d = decide_at(&r, &baseline(M, 0.6, Some(1.0)), Some(0.95));
        assert!(d.accepted, "{:#?}", d.conditions);
        assert_eq!(d.conditions[6].status, P, "{:#?}", d.conditions[6]);
    }

    #[test]
    fn a_best_that_kept_its_runs_is_compared_as_measured() {
        let best_run = measured(&[(&passes(2, 3), &passes(0, 3))], Some((3, 3)));
        let mut b = baseline(M, 0.6667, Some(1.0));
        b.best.get_mut(M).unwrap().evidence = crate::document::BestEvidence::of(&best_run);
        let evidence = b.best[M].evidence.clone().unwrap();
        assert_eq!(
            evidence.cases[0].with,
            crate::document::ArmSum { runs: 3, sum: 2.0 }
        );
        assert_eq!(evidence.trigger.map(|t| t.results), Some(3));
        // 10 of 10 against a best of 2 of 3 measured on 3 runs: the rule
        // accepts; as an exact line 0.6667 it would be clear, but the best
        // itself could be 1.0 on its 3 runs.
        let r = measured(&[(&ones(10), &passes(0, 10))], Some((10, 10)));
        assert!(decide(&r, &b).accepted);
        let d = decide_at(&r, &b, Some(0.95));
        assert_eq!(d.conditions[4].status, F, "{:#?}", d.conditions);
        assert!(d.conditions[4].text.contains("the best's own runs counted"));
        assert!(
            d.conditions[4]
                .text
                .contains("no number of new runs would settle it"),
            "{}",
            d.conditions[4].text
        );
        let mut exact = b.clone();
        exact.best.get_mut(M).unwrap().evidence = None;
        assert_eq!(decide_at(&r, &exact, Some(0.95)).conditions[4].status, P);
        // A trigger rate clearly below the best's measured one fails the mode.
        let low = measured(&[(&ones(10), &passes(0, 10))], Some((0, 10)));
        let d = decide_at(&low, &b, Some(0.95));
        assert_eq!(d.conditions[6].status, F, "{:#?}", d.conditions[6]);
    }

    #[test]
    fn an_auto_result_is_judged_at_its_last_look() {
        let mut r = measured(&[(&ones(4), &passes(0, 4))], None);
        assert_eq!(effective_level(&r, 0.95), 0.95);
        let stats = r.stats.as_mut().unwrap();
        stats.confidence = 0.999;
        stats.auto = Some(crate::document::AutoRounds {
            rounds: 2,
            stop: "the suite's call is clear".into(),
        });
        assert!((effective_level(&r, 0.95) - 0.9995).abs() < 1e-12);
        let d = decide_at(&r, &Baseline::empty("commit"), Some(0.95));
        assert!(
            d.conditions[5].text.contains("at 99.95 %"),
            "{}",
            d.conditions[5].text
        );
        assert_eq!(fmt_level(0.95), "95 %");
    }

    #[test]
    fn a_result_without_runs_per_case_fails_the_mode() {
        let r = SkillEval::sample(0.9, 0.1);
        let d = decide_at(&r, &Baseline::empty("commit"), Some(0.95));
        assert!(decide(&r, &Baseline::empty("commit")).accepted);
        assert!(!d.accepted);
        assert!(
            d.reasons()[0].contains("keeps no runs per case"),
            "{:?}",
            d.reasons()
        );
    }
}
