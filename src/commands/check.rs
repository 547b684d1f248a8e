//! `bob-eval check [ITEM…] [--format human|json|junit|markdown]`: exit 1
//! when any error was found, whatever the format.

use super::{Format, FormatArgs};
use crate::config::Context;
use crate::error::{Error, Result, exit};
use clap::Args;

/// `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Items whose suites to check [default: every suite under evals/]
    #[arg(value_name = "ITEM")]
    pub items: Vec<String>,
    #[command(flatten)]
    pub output: FormatArgs,
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
    super::print(&match args.output.format() {
        Format::Human => crate::report::check::render(&report),
        Format::Json => super::json(&report),
        Format::Junit => crate::report::junit::check(&report),
        Format::Markdown => crate::report::markdown::check(&report),
    })?;
    Ok(if report.has_errors() {
        exit::FAILED
    } else {
        exit::OK
    })
}
