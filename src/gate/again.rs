//! The best measured again: a fresh measurement of the recorded best's kept
//! version, compared head to head with the new result instead of the round
//! that selected the best (docs/gate.md, "The best measured again").

use super::{Baseline, BestEntry, Decision, Mode, SkillEval, decide_under, fmt_score, round4};

/// The baseline with the best for `result`'s model replaced by `fresh`, a new
/// measurement of the best's own version (the same item digest, measured
/// like for like with `result`: [`like_for_like`]), and the
/// words saying so; or why `fresh` cannot stand for the best.
///
/// The entry keeps the best's identity (run, date, level, digest) and takes
/// the fresh numbers and runs: every comparison reads the two fresh
/// measurements, and the best's runs are counted as the noise they are.
pub fn best_again(
    baseline: &Baseline,
    result: &SkillEval,
    fresh: &SkillEval,
) -> std::result::Result<(Baseline, String), String> {
    let model = result.model.as_str();
    let Some(best) = baseline.best.get(model) else {
        return Err(format!(
            "no best is recorded for {model}: there is nothing to measure again"
        ));
    };
    if fresh.model != model || fresh.item.as_str() != baseline.item {
        return Err(format!(
            "it measured {} on {}, not the best of {} on {model}",
            fresh.item, fresh.model, baseline.item
        ));
    }
    let Some(digest) = best.item_digest.as_deref() else {
        return Err(format!(
            "the best (run {}) was recorded before bests kept their files, so its version cannot be told",
            best.run
        ));
    };
    if fresh.item_digest.as_deref() != Some(digest) {
        return Err(format!(
            "it was measured on another version of {} than the best's (run {})",
            baseline.item, best.run
        ));
    }
    if fresh.partial {
        return Err("it is partial: a partial measurement stands for nothing".into());
    }
    like_for_like(result, fresh)?;
    let evidence = crate::document::BestEvidence::of(fresh);
    if evidence.is_none() {
        return Err("it keeps no runs per case".into());
    }
    let runs = fresh.stats.as_ref().map(|s| s.suite.runs_per_arm);
    let words = format!(
        "the best (run {}, recorded at {}) measured again in run {}: with {} on {} runs per arm of each case, its kept files run head to head with this result",
        best.run,
        fmt_score(best.score),
        fresh.run,
        fmt_score(round4(fresh.with)),
        runs.map_or_else(|| "?".into(), |r| format!("{r:.0}"))
    );
    let entry = BestEntry {
        score: round4(fresh.with),
        without: round4(fresh.without),
        trigger_rate: fresh.trigger_rate.map(round4),
        suite_digest: fresh.suite_digest.clone(),
        cases: fresh.case_digests(),
        runs,
        interval: fresh.stats.as_ref().map(|s| s.suite.with.interval),
        evidence,
        measured_with: fresh.measured_with(),
        ..best.clone()
    };
    let mut again = baseline.clone();
    again.best.insert(model.to_string(), entry);
    Ok((again, words))
}

/// `Err` naming the difference when `fresh` was measured with other flags
/// that change what a run measures (the judge, the cases, the tools, …)
/// than `result`: head to head, they would not compare the two versions
/// alone.
fn like_for_like(result: &SkillEval, fresh: &SkillEval) -> std::result::Result<(), String> {
    use crate::document::flags::measuring;
    match (measuring(result), measuring(fresh)) {
        (Ok(mine), Ok(theirs)) => match crate::document::flags::unlike(&mine, &theirs) {
            None => Ok(()),
            Some(how) => Err(format!(
                "it was measured with other flags that change what a run measures: {how}"
            )),
        },
        (Err(why), _) | (_, Err(why)) => Err(format!(
            "the flags it or this result records cannot be compared ({why})"
        )),
    }
}

/// [`decide_under`], against the best measured again when `fresh` is given
/// and stands for it ([`best_again`]); when it cannot, against the best as
/// recorded, the decision saying why (`best_measured`).
pub fn decide_again(
    result: &SkillEval,
    baseline: &Baseline,
    trust_imported: bool,
    mode: Mode,
    fresh: Option<&SkillEval>,
) -> Decision {
    match fresh.map(|f| best_again(baseline, result, f)) {
        None => decide_under(result, baseline, trust_imported, mode),
        Some(Ok((again, words))) => Decision {
            best_measured: Some(words),
            ..decide_under(result, &again, trust_imported, mode)
        },
        Some(Err(why)) => Decision {
            best_measured: Some(format!(
                "the best was not measured again ({why}): compared as recorded, on its stored runs"
            )),
            ..decide_under(result, baseline, trust_imported, mode)
        },
    }
}

/// The words for a best that kept no files: compared as recorded.
pub fn best_not_kept(best: &BestEntry) -> String {
    format!(
        "the best (run {}) was recorded before bests kept their files: it is compared as recorded, on its stored runs, not measured again",
        best.run
    )
}
