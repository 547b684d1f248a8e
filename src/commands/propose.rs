//! `bob-eval propose ITEM --pr PR --pages P…`: run, gate against the recorded
//! best, record the outcome (pipelines/proposer.rhai). Exit 0 accepted, 1 rejected.
//! The pipeline publishes the result and the decision; their Markdown is
//! appended to `$GITHUB_STEP_SUMMARY`.

use super::args::PlatformArgs;
use crate::config::Context;
use crate::error::Result;
use crate::error::exit::Conclusion;
use crate::script::{PipelineOptions, Published};
use clap::Args;

/// `propose`.
#[derive(Debug, Args)]
pub struct ProposeArgs {
    /// The item whose proposed edit is in the source tree
    pub item: String,
    #[command(flatten)]
    pub platform: PlatformArgs,
    #[command(flatten)]
    pub confidence: super::args::ConfidenceArg,
    /// The proposal's pull request, e.g. '#4300'
    #[arg(long, value_name = "PR", required = true)]
    pub pr: String,
    /// Wiki pattern pages the proposal was built on (repeatable or comma-separated)
    #[arg(long, value_name = "PAGE", value_delimiter = ',', num_args = 1.., required = true)]
    pub pages: Vec<String>,
    /// Print the decision as JSON on stdout
    #[arg(long)]
    pub json: bool,
    /// Let runs imported from a file (`evidence import`) count toward an
    /// accept; without it a result that used any is rejected
    #[arg(long)]
    pub trust_imported: bool,
}

/// Run `pipelines/proposer.rhai`.
pub fn exec(ctx: &Context, args: &ProposeArgs) -> Result<Conclusion<'static>> {
    // A proposal records: it decides under the confidence mode unless the
    // bare rule is chosen, and `--runs auto` buys for that mode at the
    // level the item's sequence holds the decision to; a dry run estimates
    // that same purchase.
    let settings = crate::config::Settings::load(&ctx.home)?;
    let mode = crate::config::resolve_mode(
        args.confidence.confidence,
        args.confidence.rule,
        true,
        &settings,
    )?;
    let eval = crate::eval::EvalOptions {
        confidence: mode.level(),
        rule: Some(match mode {
            crate::gate::Mode::Confidence(_) => crate::stats::confidence::RuleChoice::Confidence,
            _ => crate::stats::confidence::RuleChoice::Bare,
        }),
        max_cost_ratio: args.confidence.max_cost_ratio,
        for_record: true,
        ..args.platform.options()
    };
    if args.platform.dry_run {
        return super::args::dry_run(ctx, &args.item, &eval, args.json);
    }
    if args.confidence.require_calibrated || settings.require_calibrated == Some(true) {
        crate::ops::refuse_uncalibrated(ctx, &crate::config::ItemName::new(&args.item)?)?;
    }
    let options = PipelineOptions {
        item: Some(args.item.clone()),
        eval,
        pr: Some(args.pr.clone()),
        pages: args.pages.clone(),
        json: args.json,
        trust_imported: args.trust_imported,
        ..PipelineOptions::default()
    };
    let (code, published) = super::script::run_embedded(ctx, "proposer", options)?;
    if let Some(p) = &published {
        super::append_step_summary(&crate::report::published_markdown("bob-eval propose", p));
    }
    // The pipeline decides; the command's code is its published decision's.
    Ok(match &published {
        Some(Published::Decided { decision, .. }) => Conclusion::Decided {
            accepted: decision.accepted,
        },
        _ => Conclusion::Returned(code),
    })
}
