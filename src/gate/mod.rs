//! The gate: the fixed rule that accepts or rejects a result against the best
//! recorded for its model (docs/gate.md).
//!
//! [`decide`] is the rule as a pure function over the two documents
//! ([`crate::document::load_result`], [`crate::document::load_baseline`] read them).

use crate::document::{Baseline, BestEntry, SkillEval, fmt_score, round4};
pub use crate::stats::confidence::Mode;
use serde::Serialize;

mod again;
mod calibrated;
mod confidence;
mod cost;
mod next;
mod sequence;
pub use again::{best_again, best_not_kept, decide_again};
pub use calibrated::{calibrated_condition, corrected_delta, require_calibrated};
use confidence::confidence_conditions;
pub use confidence::{effective_level, fmt_level, held};
pub use cost::{cost_conditions, limit_cost};
use next::Commands;
pub use next::runs_to_settle;
pub use sequence::{decide_in_sequence, sequence_words};

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
    /// `beats-best`, `helps` or `trigger-rate`; under the confidence mode
    /// its `…-clearly` conditions; with a cost limit `cost-ratio` (and
    /// `cost-ratio-clearly-within` under the mode).
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
    /// When the suite, or the flags that change what a run measures
    /// (the judge, the tools, …), differ from those the best was measured
    /// on: how. Advice only; the rule does not read it.
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
    /// `--require-calibrated` (or settings `_workflow.require_calibrated`):
    /// the `judges-calibrated` condition is part of the rule. Kept so that
    /// recording applies it again.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub require_calibrated: bool,
    /// The confidence mode's level when it was in force (`--confidence`, or
    /// settings `_workflow.gate_confidence`): its conditions follow the
    /// rule's. Absent when the rule alone decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// The rule the decision was made under: `confidence` (the mode, at
    /// `confidence`), `bare` (the seed's bare rule, chosen by `--rule bare`
    /// or settings `_workflow.gate_rule`), or `bare-check` (the bare rule of
    /// a gate that records nothing: recording it decides again under the
    /// confidence mode).
    pub rule: Rule,
    /// What to do next, each a command that can be run as it stands: the
    /// runs that would settle a condition within noise, the best measured
    /// again. Advice only; the rule does not read it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub next: Vec<String>,
    /// How the best was measured for this decision: again, head to head from
    /// its kept files ([`decide_again`]), or as recorded and why. Absent when
    /// no new measurement of the best was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_measured: Option<String>,
    /// Under `--runs auto` and the confidence mode: the stricter one-sided
    /// level each bound was held at so that `confidence` holds over all the
    /// looks ([`held`]). Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held: Option<Held>,
    /// Under the confidence mode, for a decision that records: the level
    /// this proposal of the item was held to so that the chance of any false
    /// accept over the item's proposals stays under the mode's α
    /// ([`decide_in_sequence`]). Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequence: Option<crate::stats::sequence::Sequence>,
    /// `--max-cost-ratio` (or settings `_workflow.max_cost_ratio`) when set:
    /// the cost conditions ([`limit_cost`]) follow the others. Kept so that
    /// recording applies the same limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_cost_ratio: Option<f64>,
    /// With a cost limit: the result's with/without cost per run, the ratio
    /// the cost conditions read (the suite's, 95 % interval).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_ratio: Option<crate::document::RatioFigure>,
}

/// How `--runs auto`'s looks held the confidence mode's bounds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Held {
    /// The one-sided level each bound was held at (the look it stopped at).
    pub level: f64,
    /// The looks auto made (one per round), each spending part of the error budget.
    pub looks: u32,
}

/// The rule a [`Decision`] was made under ([`crate::stats::confidence::Mode`] without its level).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// The confidence mode.
    Confidence,
    /// The seed's bare rule, chosen.
    Bare,
    /// The bare rule of a check that records nothing.
    BareCheck,
}

impl Decision {
    /// The mode the decision was made under, level included.
    pub fn mode(&self) -> Mode {
        match (self.rule, self.confidence) {
            (Rule::Confidence, Some(level)) => Mode::Confidence(level),
            (Rule::Bare, _) => Mode::Bare,
            _ => Mode::BareCheck,
        }
    }

    /// The passed conditions whose estimate is within noise, by name: an
    /// accept under the bare rule with any of them may be luck.
    pub fn within_noise(&self) -> Vec<&'static str> {
        let Some(a) = &self.advice else {
            return Vec::new();
        };
        self.conditions
            .iter()
            .filter(|c| c.status == Status::Pass)
            .filter(|c| {
                let advisory = match c.name {
                    "beats-best" => Some(a.beats_best),
                    "helps" => Some(a.helps),
                    "trigger-rate" => a.trigger_rate,
                    // Within the limit on the point ratio, its interval reaching above it.
                    "cost-ratio" => {
                        return self
                            .cost_ratio
                            .zip(self.max_cost_ratio)
                            .is_some_and(|(r, limit)| r.high.is_some_and(|h| h > limit));
                    }
                    _ => None,
                };
                advisory.is_some_and(|x| !x.is_clear())
            })
            .map(|c| c.name)
            .collect()
    }
}

/// The highest score a suite can give: no result is ever above it.
pub const CEILING: f64 = 1.0;

/// Words for a suite at its ceiling, when `best` (or else `with`) is there:
/// no later result can be strictly above 1.00, so the suite needs a case the
/// item does not yet pass before it can tell a better item apart (the
/// words name the command that starts one).
pub fn saturation(with: f64, best: Option<&BestEntry>, model: &str, item: &str) -> Option<String> {
    let fix = format!(
        "the suite can no longer tell a better item apart; add a case the item does not yet pass (`bob-eval init {} --bare CASE` starts one)",
        crate::text::line(item)
    );
    if let Some(b) = best
        && round4(b.score) >= CEILING
    {
        return Some(format!(
            "saturated: the best for {model} is already {}, the suite's ceiling, so no result can be above it: {fix}",
            fmt_score(CEILING)
        ));
    }
    (round4(with) >= CEILING).then(|| {
        format!(
            "saturated: with is {}, the suite's ceiling, so once it is the best no later change can beat it: {fix}",
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
        // Only a result level with a best at the ceiling is told the suite
        // is full; one below it is a regression, said as such.
        if name == "beats-best"
            && let Some(saturated) = &self.saturated
            && round4(self.with) >= CEILING
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
        // Under auto's looks the interval is the last look's; the heading
        // says the level its ends were held at, tied to the one stated.
        let name = self.held.map(|_| "auto's last-look interval");
        Some(advisory.in_words_as(name))
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

/// The rule (docs/gate.md): accept when all hold, else reject naming every
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
    decide_under(
        result,
        baseline,
        trust_imported,
        confidence.map_or(Mode::BareCheck, Mode::Confidence),
    )
}

/// [`decide_full`] under `mode`: the confidence mode at its level, or the
/// bare rule (chosen, or a check's); the decision records which.
pub fn decide_under(
    result: &SkillEval,
    baseline: &Baseline,
    trust_imported: bool,
    mode: Mode,
) -> Decision {
    let confidence = mode.level();
    let model = &crate::config::canonical_model(&result.model);
    let with = round4(result.with);
    let without = round4(result.without);
    let trigger_rate = result.trigger_rate.map(round4);
    let best = baseline.best_for(model).cloned();
    let (w, wo) = (fmt_score(with), fmt_score(without));

    let not_partial = if result.partial {
        let reason = result
            .partial_reason
            .as_ref()
            .map_or_else(|| "no reason given".to_string(), ToString::to_string);
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
            } else if with < score {
                fail(
                    "beats-best",
                    format!(
                        "with {w} is below the best {s} recorded for {model}: a regression from the best"
                    ),
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
    let commands = Commands::of(result);
    let mut conditions: Vec<Condition> = [Some(not_partial), bought_here]
        .into_iter()
        .flatten()
        .chain([beats_best, helps, trigger])
        .collect();
    // The result's runs per arm and case: what the mode and the advisory read.
    let mine = crate::document::BestEvidence::of(result);
    if let Some(level) = confidence {
        conditions.extend(confidence_conditions(
            result,
            mine.as_ref(),
            best.as_ref(),
            level,
            trigger_skipped,
            &commands,
        ));
    }
    let advice = result
        .stats
        .as_ref()
        .map(|s| advice(s, best.as_ref(), mine.as_ref()));
    let next = commands.next(&conditions, advice.as_ref(), confidence.is_some());
    Decision {
        rule: match mode {
            Mode::Confidence(_) => Rule::Confidence,
            Mode::Bare => Rule::Bare,
            Mode::BareCheck => Rule::BareCheck,
        },
        next,
        best_measured: None,
        sequence: None,
        max_cost_ratio: None,
        cost_ratio: None,
        held: confidence.and_then(|level| held(result, level)),
        confidence,
        advice,
        suite_change: best.as_ref().and_then(|b| {
            let both: Vec<String> = [result.suite_change(b), result.measuring_change(b)]
                .into_iter()
                .flatten()
                .collect();
            (!both.is_empty()).then(|| both.join("; and "))
        }),
        saturated: saturation(with, best.as_ref(), model, &result.item),
        scored_by_trigger: result
            .scored_by_trigger()
            .map(|c| crate::document::scored_by_trigger_words(&c.name))
            .collect(),
        accepted: conditions.iter().all(|c| c.status != Status::Fail),
        item: result.item.to_string(),
        model: model.to_string(),
        run: result.run.clone(),
        with,
        without,
        trigger_rate,
        best,
        conditions,
        trust_imported,
        require_calibrated: false,
    }
}

/// The advisories beside the rule's conditions, from the result's `stats`
/// and its runs per arm (`mine`). Against a best that kept its runs,
/// `beats-best` is two samples, as the confidence mode reads it.
fn advice(
    stats: &crate::document::Stats,
    best: Option<&BestEntry>,
    mine: Option<&crate::document::BestEvidence>,
) -> crate::stats::GateAdvice {
    let mut advice = crate::stats::gate_advice(
        &stats.suite,
        best.map(|b| (b.score, b.trigger_rate)),
        stats.trigger,
    );
    let theirs = best.and_then(|b| b.evidence.as_ref());
    if let (Some(mine), Some(theirs)) = (mine, theirs)
        && !mine.cases.is_empty()
        && !theirs.cases.is_empty()
    {
        let (parts, grows) = confidence::beats_best_parts(mine, theirs);
        advice.beats_best =
            crate::stats::advise_two_sample(&parts, &grows, stats.suite.with.interval.confidence);
    }
    advice
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

#[cfg(test)]
mod tests;

#[cfg(test)]
mod luck_tests;

#[cfg(test)]
mod sequence_tests;
