//! `exam` as one operation: an item's suite run and its verdict worded for
//! disposing of the item, by `pipelines/exam.rhai`; never records.

use super::{Estimated, PipelineOptions, Pipelines};
use crate::config::{Context, ItemName};
use crate::error::Result;
use crate::error::exit::Conclusion;
use crate::eval::EvalOptions;

/// What `exam` is asked.
#[derive(Debug, Clone)]
pub struct ExamRequest {
    /// The item, as given (the pipeline checks the name).
    pub item: String,
    /// How to evaluate it, `--confidence`, `--rule` and `--max-cost-ratio` included.
    pub options: EvalOptions,
    /// `--require-calibrated`.
    pub require_calibrated: bool,
    /// `--json`: the pipeline prints its outcome as JSON.
    pub json: bool,
}

/// What `exam` did.
#[derive(Debug)]
pub enum Examined {
    /// `--dry-run`: the estimate, nothing run.
    Estimated(Box<Estimated>),
    /// The pipeline ran and returned this code.
    Ran(u8),
}

impl Examined {
    /// How the command ended: the pipeline's own code.
    pub fn conclusion(&self) -> Conclusion<'static> {
        match self {
            Examined::Estimated(_) => Conclusion::Done,
            Examined::Ran(code) => Conclusion::Returned(*code),
        }
    }
}

/// Examine `request.item`: estimate it on a dry run, else refuse an
/// uncalibrated judge when asked (`--require-calibrated` or settings) and
/// run `pipelines/exam.rhai` through `pipelines`.
pub fn exam(ctx: &Context, request: &ExamRequest, pipelines: &dyn Pipelines) -> Result<Examined> {
    if request.options.dry_run {
        let item = ItemName::new(&request.item)?;
        return super::estimate(ctx, &item, &request.options)
            .map(|e| Examined::Estimated(Box::new(e)));
    }
    let settings = crate::config::Settings::load(&ctx.home)?;
    if request.require_calibrated || settings.require_calibrated == Some(true) {
        super::refuse_uncalibrated(ctx, &ItemName::new(&request.item)?)?;
    }
    let options = PipelineOptions {
        item: Some(request.item.clone()),
        eval: request.options.clone(),
        json: request.json,
        require_calibrated: request.require_calibrated,
        ..PipelineOptions::default()
    };
    pipelines
        .run(ctx, "exam", options)
        .map(|piped| Examined::Ran(piped.code))
}
