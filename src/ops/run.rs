//! `run` as one operation: an item's suite evaluated with and without it,
//! the `skill-eval/1` document written atomically where asked.

use crate::config::{Context, ItemName};
use crate::document::SkillEval;
use crate::error::{Error, Result};
use crate::eval::EvalOptions;
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
    Ok(Ran {
        doc,
        wrote: request.out.clone(),
    })
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
