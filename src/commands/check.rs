//! `bob-eval check [ITEM…] [--json]`: exit 1 when any error was found.

use crate::config::Context;
use crate::error::{Error, Result, exit};
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

/// Check, print the report, exit 1 on errors; exit 2 when there is no
/// `evals/` to check and no item was named.
pub fn exec(ctx: &Context, args: &CheckArgs) -> Result<u8> {
    let evals = ctx.source.join("evals");
    if args.items.is_empty() && !evals.is_dir() {
        return Err(Error::Usage(format!(
            "nothing to check: there is no {evals}/ folder (the source is {}; set it with --source or $BOB_SOURCE); start a suite with `bob-eval init ITEM`",
            ctx.source
        )));
    }
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
