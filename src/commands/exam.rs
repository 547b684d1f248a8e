//! `bob-eval exam ITEM`: run the suite and say what the verdict means for
//! disposing of the item (pipelines/exam.rhai). Never records.

use super::args::PlatformArgs;
use super::progress::{Terminal, mode_for_stderr};
use crate::config::Context;
use crate::error::Result;
use crate::error::exit::Conclusion;
use crate::ops::{ExamRequest, Examined};
use crate::script::Embedded;
use clap::Args;
use std::sync::Arc;

/// `exam`.
#[derive(Debug, Args)]
pub struct ExamArgs {
    /// The item to examine
    pub item: String,
    #[command(flatten)]
    pub platform: PlatformArgs,
    #[command(flatten)]
    pub confidence: super::args::ConfidenceArg,
    /// Print the exam's outcome as JSON on stdout
    #[arg(long)]
    pub json: bool,
}

impl ExamArgs {
    /// The library's options for these flags.
    pub fn options(&self, env: &crate::config::Environment) -> Result<crate::eval::EvalOptions> {
        Ok(crate::eval::EvalOptions {
            confidence: self.confidence.confidence,
            rule: self.confidence.rule,
            max_cost_ratio: self.confidence.max_cost_ratio,
            ..self.platform.options(env)?
        })
    }
}

/// Examine the item ([`crate::ops::exam`]): its dry run's estimate, or
/// `pipelines/exam.rhai`'s code.
pub fn exec(ctx: &Context, args: &ExamArgs) -> Result<Conclusion<'static>> {
    let request = ExamRequest {
        item: args.item.clone(),
        options: args.options(&ctx.env)?,
        require_calibrated: args.confidence.require_calibrated,
        json: args.json,
    };
    let observer = Arc::new(Terminal::new(mode_for_stderr()));
    let examined = crate::ops::exam(ctx, &request, &Embedded(observer))?;
    if let Examined::Estimated(estimated) = &examined {
        super::args::print_estimate(estimated, args.json)?;
    }
    Ok(examined.conclusion())
}
