//! `bob-eval check [ITEM…] [--json]`: exit 1 when any error was found.

use crate::config::Context;
use crate::error::{Result, exit};
use clap::Args;

/// `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Items whose suites to check [default: every suite under evals/]
    #[arg(value_name = "ITEM")]
    pub items: Vec<String>,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Check, print the report, exit 1 on errors.
pub fn exec(ctx: &Context, args: &CheckArgs) -> Result<u8> {
    let report = crate::check::check_suites(&ctx.source, &args.items)?;
    if args.json {
        super::print(&super::json(&report))?;
    } else {
        super::print(&crate::report::check::render(&report))?;
    }
    Ok(if report.has_errors() {
        exit::FAILED
    } else {
        exit::OK
    })
}
