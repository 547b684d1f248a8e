//! `bob-eval check-wiki [--json]`: exit 0 when every row is good, 1 naming each bad row.

use crate::config::Context;
use crate::error::Result;
use crate::error::exit::Conclusion;
use clap::Args;

/// `check-wiki`.
#[derive(Debug, Args)]
pub struct CheckWikiArgs {
    /// Print the problems as JSON on stdout
    #[arg(long)]
    pub json: bool,
}

/// Check the wiki table and print what is wrong.
pub fn exec(ctx: &Context, args: &CheckWikiArgs) -> Result<Conclusion<'static>> {
    let report = crate::wiki::check(&ctx.source)?;
    if args.json {
        super::print(&super::json(&report))?;
    } else {
        super::print(&crate::report::wiki::render(&report))?;
    }
    Ok(Conclusion::Checked {
        errors: !report.problems.is_empty(),
    })
}
