//! `run` as one operation: an item's suite evaluated with and without it,
//! the `skill-eval/1` document written atomically where asked; many items at
//! once ([`evaluate_all`], a script's `evaluate_all`); and [`estimate`], every
//! dry run.

use super::next::Completion;
use crate::config::{Context, ItemName};
use crate::document::SkillEval;
use crate::error::{Error, Result};
use crate::eval::{EvalOptions, ItemOutcome};
use crate::event::Observer;
use camino::Utf8PathBuf;
use std::sync::Arc;

/// What `run` is asked, checked by [`RunItemRequest::new`] (a dry run is
/// estimated by the command from the same request's options).
#[derive(Debug, Clone)]
pub struct RunItemRequest {
    /// The item.
    pub item: ItemName,
    /// How to evaluate it (`--runs`, the ceiling, the filters, `--best`, …).
    pub options: EvalOptions,
    /// `--out FILE`: where the document is written.
    pub out: Option<Utf8PathBuf>,
}

/// What `run` did: the document, and the file it was written to.
#[derive(Debug)]
pub struct Ran {
    /// The `skill-eval/1` document.
    pub doc: SkillEval,
    /// `--out`, written.
    pub wrote: Option<Utf8PathBuf>,
    /// When the ceiling cut the evaluation short: how to complete it.
    pub complete: Option<Completion>,
    /// When its delta is within noise and more runs would settle it: the
    /// command that buys them ([`super::next::settle`]).
    pub settle: Option<String>,
}

impl RunItemRequest {
    /// The request, refused when it asks for a stopping rule (`--confidence`,
    /// `--rule`) without `--runs auto`: `run` decides nothing, so the rule
    /// would change nothing.
    pub fn new(item: ItemName, options: EvalOptions, out: Option<Utf8PathBuf>) -> Result<Self> {
        refuse_rule_without_auto(&options)?;
        Ok(Self { item, options, out })
    }
}

fn refuse_rule_without_auto(options: &EvalOptions) -> Result<()> {
    let asked = match (options.confidence, options.rule) {
        (Some(_), _) => Some("--confidence"),
        (None, Some(_)) => Some("--rule"),
        (None, None) => None,
    };
    if let (Some(flag), None) = (asked, options.auto) {
        // `run` decides nothing: the rule only says when auto stops buying.
        return Err(Error::Usage(format!(
            "run {flag}: the rule only sets when --runs auto stops buying, and a fixed --runs buys what it says whatever the rule: add --runs auto[:MAX], or drop {flag} and decide on the result with `gate {flag}`"
        )));
    }
    Ok(())
}

/// Evaluate `request.item`, progress to `observer`, and write the document
/// to `request.out`. An `--out` that cannot be written is refused before
/// anything is spent.
pub fn run(ctx: &Context, request: &RunItemRequest, observer: Arc<dyn Observer>) -> Result<Ran> {
    if let Some(path) = &request.out {
        crate::fsio::check_writable(path)?;
    }
    let doc = crate::eval::evaluate(ctx, &request.item, &request.options, observer)?;
    if let Some(path) = &request.out {
        let json = serde_json::to_string_pretty(&doc).expect("a document serialises") + "\n";
        crate::fsio::write_atomically(path, json.as_bytes())?;
    }
    let complete = Completion::of(
        ctx,
        &request.item,
        &request.options,
        &doc,
        request.out.as_ref(),
    );
    let settle = super::next::settle(
        &super::next::Invocation::run(),
        &doc,
        Some(&request.options),
        request.out.as_ref(),
    );
    Ok(Ran {
        doc,
        wrote: request.out.clone(),
        complete,
        settle,
    })
}

/// What evaluating many items asks (a script's `evaluate_all`), checked by
/// [`EvaluateAllRequest::new`].
#[derive(Debug, Clone)]
pub struct EvaluateAllRequest {
    /// The items, as given: an invalid name is that item's failure, not the batch's.
    pub items: Vec<String>,
    /// How to evaluate each (`max_total_usd`: the batch's budget).
    pub options: EvalOptions,
    /// Suites at once.
    pub jobs: u32,
}

impl EvaluateAllRequest {
    /// The request, refused when `jobs` is out of range
    /// ([`crate::eval::suites_at_once_from`]) or when one `--report` file
    /// would be asked of many items (each would overwrite the last).
    pub fn new(items: Vec<String>, options: EvalOptions, jobs: i64) -> Result<Self> {
        if options.report.is_some() && items.len() > 1 {
            return Err(Error::Usage(
                "`report` names one file, and this evaluates many items: evaluate them one at a time to save each report".into(),
            ));
        }
        let jobs = crate::eval::suites_at_once_from(jobs).map_err(Error::Usage)?;
        Ok(Self {
            items,
            options,
            jobs,
        })
    }
}

/// Evaluate every item of `request`, `jobs` at once, progress to `observer`:
/// each item's outcome, in order ([`crate::eval::evaluate_all`]).
pub fn evaluate_all(
    ctx: &Context,
    request: &EvaluateAllRequest,
    observer: Arc<dyn Observer>,
) -> Result<Vec<ItemOutcome>> {
    crate::eval::evaluate_all(
        ctx,
        &request.items,
        &request.options,
        request.jobs as usize,
        observer,
    )
}

/// A dry run (`--dry-run` on `run`, `exam` and `propose`): the estimate of
/// what evaluating the item would buy and cost, and its judges' calibration,
/// which costs a person's time, not dollars.
#[derive(Debug)]
pub struct Estimated {
    /// The item.
    pub item: ItemName,
    /// Runs bought and reused, and their cost beside the ceiling.
    pub estimate: crate::eval::estimate::ItemEstimate,
    /// Each judged grader's calibration (empty when it could not be read).
    pub calibration: Vec<super::label::GraderStatus>,
    /// Warnings (the calibration that could not be read).
    pub warnings: Vec<crate::error::Warning>,
}

/// Estimate evaluating `item` under `options` (`--confidence` included,
/// which changes `--runs auto`'s first round); nothing runs.
pub fn estimate(ctx: &Context, item: &ItemName, options: &EvalOptions) -> Result<Estimated> {
    let estimate = crate::eval::estimate::estimate(ctx, item, options)?;
    let suite = crate::suite::load(&ctx.source, item)?;
    let (calibration, warnings) = match super::label::calibration(&suite) {
        Ok(rows) => (rows, Vec::new()),
        Err(e) => (Vec::new(), vec![crate::error::Warning::new(e.to_string())]),
    };
    Ok(Estimated {
        item: item.clone(),
        estimate,
        calibration,
        warnings,
    })
}
