//! `bob-eval propose ITEM --pr PR --pages P…`: run, gate against the recorded
//! best, record the outcome (pipelines/proposer.rhai). Exit 0 accepted, 1 rejected.
//! The pipeline publishes the result and the decision; their Markdown is
//! appended to `$GITHUB_STEP_SUMMARY`.

use super::args::PlatformArgs;
use super::progress::{Terminal, mode_for_stderr};
use crate::config::Context;
use crate::error::Result;
use crate::error::exit::Conclusion;
use crate::ops::{ProposeRequest, Proposed};
use crate::script::Embedded;
use clap::Args;
use std::sync::Arc;

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

/// Propose the edit ([`crate::ops::propose`]): its dry run's estimate, or
/// the pipeline's decision, whose Markdown goes to `$GITHUB_STEP_SUMMARY`.
pub fn exec(ctx: &Context, args: &ProposeArgs) -> Result<Conclusion<'static>> {
    let request = ProposeRequest {
        item: args.item.clone(),
        options: args.platform.options(&ctx.env)?,
        choice: crate::ops::Choice {
            confidence: args.confidence.confidence,
            rule: args.confidence.rule,
            records: true,
            max_cost_ratio: args.confidence.max_cost_ratio,
            require_calibrated: args.confidence.require_calibrated,
        },
        pr: args.pr.clone(),
        pages: args.pages.clone(),
        json: args.json,
        trust_imported: args.trust_imported,
    };
    let observer = Arc::new(Terminal::new(mode_for_stderr()));
    let proposed = crate::ops::propose(ctx, &request, &Embedded(observer))?;
    match &proposed {
        Proposed::Estimated(estimated) => {
            super::args::print_estimate(estimated, args.json)?;
        }
        Proposed::Ran {
            published: Some(p), ..
        } => {
            super::append_step_summary(
                ctx,
                &crate::report::published_markdown("bob-eval propose", p),
            );
        }
        Proposed::Ran { .. } => {}
    }
    // The pipeline decides; the command's code is its published decision's.
    Ok(proposed.conclusion())
}
