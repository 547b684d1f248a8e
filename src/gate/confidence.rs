//! The gate's confidence mode: the conditions it adds to the rule, each a one-sided check at a level (`docs/statistics.md`).

use super::{
    BestEntry, Commands, Condition, Held, SkillEval, fail, fmt_score, pass, round4, skip_named,
};

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

/// Under `--runs auto`, the one-sided level each bound was held at and the
/// looks that spent the error budget ([`effective_level`]), when stricter
/// than the level asked for; `None` otherwise.
pub fn held(result: &SkillEval, level: f64) -> Option<Held> {
    let held = effective_level(result, level);
    let rounds = result.stats.as_ref()?.auto.as_ref()?.rounds;
    (held > level).then_some(Held {
        level: held,
        looks: rounds,
    })
}

/// The level a condition is stated at: `95 %`, or under auto's looks
/// `95 % over auto's looks` (each bound held stricter, [`held`]).
fn stated(level: f64, held: Option<Held>) -> String {
    match held {
        Some(_) => format!("{} over auto's looks", fmt_level(level)),
        None => fmt_level(level),
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
pub(super) fn confidence_conditions(
    result: &SkillEval,
    mine: Option<&crate::document::BestEvidence>,
    best: Option<&BestEntry>,
    level: f64,
    trigger_skipped: Option<String>,
    commands: &Commands,
) -> Vec<Condition> {
    use crate::stats::Part;
    use crate::stats::confidence::{Side, check, check_delta};
    let at = stated(level, held(result, level));
    let level = effective_level(result, level);
    let Some(mine) = mine else {
        let why = format!(
            "the result keeps no runs per case, so nothing can be said clearly at {at}; run the suite again with this bob-eval: {}",
            commands.more_runs(0)
        );
        return vec![
            fail("beats-best-clearly", why.clone()),
            fail("helps-clearly", why),
        ];
    };
    let k = mine.cases.len() as f64;
    let with_parts: Vec<Part> = mine.cases.iter().map(|c| c.with.part(1.0 / k)).collect();
    let delta_parts: Vec<Part> = mine
        .cases
        .iter()
        .flat_map(|c| [c.with.part(1.0 / k), c.without.part(-1.0 / k)])
        .collect();
    let all = |n: usize| vec![true; n];

    let helps_check = check_delta(&delta_parts, level);
    // Where judged graders have labels, the delta corrected for their errors decides.
    let corrected = super::calibrated::helps_corrected(result, level, &at);
    let helps = corrected.unwrap_or_else(|| {
        judged(
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
            commands,
        )
    });

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
            commands,
        ),
        Some(b) => match &b.evidence {
            Some(theirs) if !theirs.cases.is_empty() => {
                let (parts, grows) = beats_best_parts(mine, theirs);
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
                    commands,
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
                    commands,
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
            let new = t.part(1.0);
            let theirs = b
                .evidence
                .as_ref()
                .and_then(|e| e.trigger)
                .filter(|t| t.results > 0);
            let (c, against) = match theirs {
                Some(bt) => (
                    check(
                        &[new, bt.part(-1.0)],
                        &[true, false],
                        0.0,
                        level,
                        Side::NotBelow,
                    ),
                    "the best's own results counted",
                ),
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
                commands,
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
pub(super) fn judged(
    name: &'static str,
    c: &crate::stats::confidence::Check,
    held: String,
    noise: String,
    commands: &Commands,
) -> Condition {
    if c.holds {
        return pass(name, held);
    }
    let settle = match c.runs_needed {
        Some(n) => format!(
            "; about {n} more runs per arm of each case would settle an effect this size"
        ),
        None if name == "trigger-rate-not-clearly-below" => String::new(),
        None if c.estimate.value > c.tie => format!("; no number of new runs would settle it: the best's own runs are too few to tell an effect this size (measure the best again: {})", commands.best_again(0)),
        None => "; the estimate does not point the right way, so more runs would not settle it in its favour".into(),
    };
    Condition {
        runs_needed: c.runs_needed,
        ..fail(name, format!("{noise}{settle}"))
    }
}

/// `beats-best` as two samples: the new result's with arms (1/K each) less
/// the best's (1/K′ each), and which parts more runs of the new result would
/// grow (its own; the best's runs are fixed). What the confidence mode's
/// `beats-best-clearly` and the rule's `beats-best` advisory both compare.
pub(super) fn beats_best_parts(
    mine: &crate::document::BestEvidence,
    theirs: &crate::document::BestEvidence,
) -> (Vec<crate::stats::Part>, Vec<bool>) {
    let (k, kb) = (mine.cases.len() as f64, theirs.cases.len() as f64);
    let parts = mine
        .cases
        .iter()
        .map(|c| c.with.part(1.0 / k))
        .chain(theirs.cases.iter().map(|c| c.with.part(-1.0 / kb)))
        .collect();
    let grows = std::iter::repeat_n(true, mine.cases.len())
        .chain(std::iter::repeat_n(false, theirs.cases.len()))
        .collect();
    (parts, grows)
}
