//! `bob-eval exam ITEM`: run the suite and say what the verdict means for
//! disposing of the item (pipelines/exam.rhai). Never records.

use super::args::PlatformArgs;
use crate::config::Context;
use crate::error::Result;
use crate::error::exit::Conclusion;
use crate::script::PipelineOptions;
use clap::Args;

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

/// Run `pipelines/exam.rhai`.
pub fn exec(ctx: &Context, args: &ExamArgs) -> Result<Conclusion<'static>> {
    if args.platform.dry_run {
        let opts = crate::eval::EvalOptions {
            confidence: args.confidence.confidence,
            ..args.platform.options()
        };
        return super::args::dry_run(ctx, &args.item, &opts, args.json);
    }
    let settings = crate::config::Settings::load(&ctx.home)?;
    if args.confidence.require_calibrated || settings.require_calibrated == Some(true) {
        crate::ops::refuse_uncalibrated(ctx, &crate::config::ItemName::new(&args.item)?)?;
    }
    let options = PipelineOptions {
        item: Some(args.item.clone()),
        eval: crate::eval::EvalOptions {
            confidence: args.confidence.confidence,
            rule: args.confidence.rule,
            max_cost_ratio: args.confidence.max_cost_ratio,
            ..args.platform.options()
        },
        json: args.json,
        ..PipelineOptions::default()
    };
    super::script::run_embedded(ctx, "exam", options).map(|(code, _)| Conclusion::Returned(code))
}
