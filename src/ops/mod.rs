//! The operations a user asks for, typed, between the steps (`eval`, `shard`)
//! and their two front ends: the commands and the script primitives call
//! these same functions, so gating a result reads the same files under the
//! same rules wherever it is asked for, and what a pipeline hands back is a
//! typed value `report/` can word without knowing the script host.

pub mod check;
pub mod compare;
mod exam;
mod gate;
mod history;
pub mod label;
pub mod next;
mod pipeline;
mod propose;
mod run;
mod shard;
pub mod show;
mod sweep;

pub use check::{CheckRequest, check};
pub use exam::{ExamRequest, Examined, exam};
pub use gate::{GateRequest, Gated, RecordRequest, gate};
pub use history::{HistoryRequest, history};
pub use next::Completion;
pub use pipeline::{Piped, PipelineOptions, Pipelines};
pub use propose::{ProposeRequest, Proposed, propose};
pub use run::{Estimated, EvaluateAllRequest, Ran, RunItemRequest, estimate, evaluate_all, run};
pub use shard::{CollectOutcome, SweepPlan, collect, plan_sweep};
pub use sweep::{SweepRequest, Swept, sweep};

use crate::config::Context;
use crate::document::SkillEval;
use crate::error::Result;
use crate::eval::ItemOutcome;
use crate::gate::Decision;
use camino::Utf8Path;
use std::sync::Arc;

/// What a pipeline handed to the command with `publish(…)`, for the command
/// to render (`--format junit|markdown`, `$GITHUB_STEP_SUMMARY`): the script
/// chooses what to publish, never where it is written.
#[derive(Debug, Clone)]
pub enum Published {
    /// Items' outcomes, in order: `evaluate_all`'s rows, or results.
    Outcomes(Vec<ItemOutcome>),
    /// Dry runs' estimates (`estimate` maps), in order.
    Estimates(Vec<crate::eval::estimate::ItemEstimate>),
    /// A result and the decision `gate` (or `record`) made for it.
    Decided {
        /// The result.
        result: Arc<SkillEval>,
        /// The decision on it.
        decision: Arc<Decision>,
    },
}

/// The gate's decision on `result` (read from `label`): refused when it was
/// measured on another version of the item; the rule against the item's
/// `baseline.json`, under the mode [`crate::config::resolve_mode`] resolves
/// from `confidence` and `rule` (a flag or a script's `opts`), the home's
/// settings, and whether the decision `records` (then the confidence mode
/// unless the bare rule was chosen). `trust_imported` is the operator's
/// flag, never a script's. A decision that records under the confidence
/// mode is held to its item's sequence ([`sequence_for`]), read from the
/// evidence store at `store`.
pub fn decide(
    ctx: &Context,
    result: &SkillEval,
    label: &Utf8Path,
    choice: Choice,
    trust_imported: bool,
    again: Option<Again>,
    store: &Utf8Path,
) -> Result<Decision> {
    crate::eval::measured_on_this_item(ctx, result, label)?;
    let settings = crate::config::Settings::load(&ctx.home)?;
    let mode =
        crate::config::resolve_mode(choice.confidence, choice.rule, choice.records, &settings)?;
    let baseline = crate::document::load_baseline(&ctx.source, &result.item)?;
    let sequence = if choice.records {
        sequence_for(result, mode, store)?
    } else {
        None
    };
    let decide_under = |baseline: &crate::document::Baseline| {
        crate::gate::decide_in_sequence(result, baseline, trust_imported, mode, None, sequence)
    };
    let require = choice.require_calibrated || settings.require_calibrated == Some(true);
    let limit = crate::config::resolve_max_cost_ratio(choice.max_cost_ratio, &settings)?;
    let decision = match again {
        None => decide_under(&baseline),
        // Given by the operator (`--best-again FILE`): one that cannot stand
        // for the best is refused, naming the file.
        Some(Again::Measured(fresh, path)) => {
            let (best, words) =
                crate::gate::best_again(&baseline, result, fresh).map_err(|why| {
                    crate::error::Error::invalid(
                        path,
                        format!("not a measurement of the best: {why}"),
                    )
                })?;
            Decision {
                best_measured: Some(words),
                ..decide_under(&best)
            }
        }
        // A pipeline that could not measure the best again says why.
        Some(Again::Not(why)) => Decision {
            best_measured: Some(why.to_string()),
            ..decide_under(&baseline)
        },
    };
    let decision = crate::gate::limit_cost(decision, result, limit);
    Ok(if require {
        crate::gate::require_calibrated(decision, result)
    } else {
        decision
    })
}

/// The level the next recorded decision of `result`'s item on its model is
/// held to under `mode` (the confidence mode only; `None` for the bare
/// rule), from the decisions kept in the evidence store at `store` (none
/// when it does not exist yet). A store that cannot be read is an error:
/// the level depends on what it holds.
pub fn sequence_for(
    result: &SkillEval,
    mode: crate::gate::Mode,
    store: &Utf8Path,
) -> Result<Option<crate::stats::sequence::Sequence>> {
    let Some(level) = mode.level() else {
        return Ok(None);
    };
    let decisions = if store.exists() {
        crate::evidence::Store::open(store)?.decisions(&[result.item.to_string()])?
    } else {
        Vec::new()
    };
    Ok(Some(crate::history::next_in_sequence(
        &decisions,
        &result.item,
        &result.model,
        1.0 - level,
    )))
}

/// Before spending on a decision that must not rest on an uncalibrated
/// judge (`--require-calibrated`, or settings `_workflow.require_calibrated`):
/// refuse when a judged grader of `item`'s suite is not calibrated by its
/// labels, naming each with the command that labels it.
pub fn refuse_uncalibrated(ctx: &Context, item: &crate::config::ItemName) -> Result<()> {
    let settings = crate::config::Settings::load(&ctx.home)?;
    let threshold = crate::config::resolve_judge_threshold(&settings)?;
    let suite = crate::suite::load(&ctx.source, item)?;
    let lacking: Vec<String> = crate::suite::judges::records(&suite, threshold)?
        .iter()
        .filter(|r| !r.record.calibrated)
        .map(|r| {
            format!(
                "{}/{} ({}): {}",
                r.case,
                r.grader,
                r.words(),
                r.label_command(item.as_str())
            )
        })
        .collect();
    if lacking.is_empty() {
        return Ok(());
    }
    Err(crate::error::Error::Usage(format!(
        "--require-calibrated: nothing was spent, because a change cannot be called clear on a judge nobody checked; label these judged graders first: {}",
        lacking.join("; ")
    )))
}

/// Open the evidence store at `path` to read it, never writing it
/// ([`crate::evidence::Store::open_read_only`]): a missing one is an error
/// that says where it looked.
pub fn open_existing(path: &Utf8Path) -> Result<crate::evidence::Store> {
    if !path.exists() {
        return Err(crate::error::Error::Usage(format!(
            "no evidence store at {path}: runs are kept there by `bob-eval run` (or give --evidence PATH)"
        )));
    }
    crate::evidence::Store::open_read_only(path)
}

/// The best measured again, for [`decide`].
#[derive(Debug, Clone, Copy)]
pub enum Again<'a> {
    /// A fresh measurement of the best's kept version (and the file it was read from).
    Measured(&'a SkillEval, &'a Utf8Path),
    /// Why it was not measured again (its files were not kept).
    Not(&'a str),
}

/// What the front end asked of the gate's rule: `--confidence`, `--rule`,
/// and whether the decision will be recorded.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Choice {
    /// `--confidence LEVEL`.
    pub confidence: Option<f64>,
    /// `--rule bare|confidence`.
    pub rule: Option<crate::stats::confidence::RuleChoice>,
    /// The decision raises a best when accepted (`gate --record`, `propose`).
    pub records: bool,
    /// `--max-cost-ratio R`: refuse runs with the item dearer than R times
    /// those without ([`crate::gate::limit_cost`]); `None` falls back to
    /// settings `_workflow.max_cost_ratio`.
    pub max_cost_ratio: Option<f64>,
    /// `--require-calibrated`: refuse to call a change clear on a judged
    /// grader that is not calibrated.
    pub require_calibrated: bool,
}

/// Keep the files of the version `result` was measured on beside the store
/// at `store` ([`crate::evidence::keep_version`]), when the source still
/// holds that version.
fn keep_best_version(ctx: &Context, result: &SkillEval, store: &Utf8Path) -> Result<()> {
    let Some(measured) = result.item_digest.as_deref() else {
        return Ok(());
    };
    let item = crate::item::find(&ctx.source, &result.item)?;
    if crate::evidence::item_digest(&item)? != measured {
        return Err(crate::error::Error::Usage(
            "the item changed since it was measured".into(),
        ));
    }
    crate::evidence::keep_version(store, &item).map(drop)
}

/// What [`record`] did: the record itself, and the warnings a front end shows
/// (a result on the platform's default model, a decision the store could not keep).
#[derive(Debug)]
pub struct Recording {
    /// The record: the decision applied under the lock, the best, the wiki row.
    pub recorded: crate::record::Recorded,
    /// Warnings.
    pub warnings: Vec<crate::error::Warning>,
}

/// Record `decision`, the gate's on `result`: under the lock, decided again
/// against the best as it is then, the best in `baseline.json` and a row in
/// the wiki; then the decision applied kept in the evidence store at `store`
/// (for `history`; a store that cannot take it is a warning, the record stands).
pub fn record(
    ctx: &Context,
    result: &SkillEval,
    decision: &Decision,
    pr: &str,
    pages: &[String],
    store: &Utf8Path,
    again: Option<&SkillEval>,
) -> Result<Recording> {
    let mut warnings: Vec<crate::error::Warning> =
        crate::record::default_model_warning(&result.model)
            .into_iter()
            .map(crate::error::Warning::new)
            .collect();
    // The item's sequence as the store holds it now: the level the record's
    // own decision, made again under the lock, is held to.
    let decision = &Decision {
        sequence: sequence_for(result, decision.mode().for_recording(), store)?,
        ..decision.clone()
    };
    let recorded = crate::record::record(&ctx.source, result, decision, pr, pages, again)?;
    if recorded.raised {
        // The best's files, kept so it can be measured again head to head
        // once the source has moved on; the record stands without them.
        if let Err(e) = keep_best_version(ctx, result, store) {
            warnings.push(crate::error::Warning::new(format!(
                "the best's files could not be kept beside the evidence store ({e}): a later proposal measures it from its runs, not again"
            )));
        }
    }
    let kept = crate::evidence::KeptDecision::of(
        result,
        &recorded.decision,
        pr,
        pages,
        chrono::Utc::now(),
    );
    warnings.extend(
        crate::evidence::keep_decision(store, &kept)
            .into_iter()
            .map(crate::error::Warning::new),
    );
    Ok(Recording { recorded, warnings })
}
