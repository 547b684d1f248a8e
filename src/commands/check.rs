//! `bob-eval check [ITEM…]` and `bob-eval check --plugin DIR`, in any
//! `--format` (human, json, junit, markdown): exit 1 when any error was
//! found, whatever the format (warnings and notes never fail).

use super::{Format, FormatArgs};
use crate::config::Context;
use crate::error::Result;
use crate::error::exit::Conclusion;
use crate::ops::CheckRequest;
use camino::Utf8PathBuf;
use clap::Args;

/// `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Items whose suites to check [default: every suite under evals/]
    #[arg(value_name = "ITEM")]
    pub items: Vec<String>,
    /// Check a plugin's own `claude plugin eval` suites instead, in the
    /// platform's layout: the eval folder from the manifest's
    /// `experimental.evals`, else every `evals/` folder (paths in the report
    /// are relative to DIR)
    #[arg(long, value_name = "DIR", conflicts_with = "items", value_parser = super::path_arg)]
    pub plugin: Option<Utf8PathBuf>,
    #[command(flatten)]
    pub output: FormatArgs,
}

/// Check, print the report, exit 1 on errors; exit 2 when there is no
/// `evals/` to check and no item was named.
pub fn exec(ctx: &Context, args: &CheckArgs) -> Result<Conclusion<'static>> {
    let request = match &args.plugin {
        Some(dir) => CheckRequest::Plugin(dir.clone()),
        None => CheckRequest::Suites(
            args.items
                .iter()
                .map(|item| crate::config::ItemName::new(item))
                .collect::<Result<Vec<_>>>()?,
        ),
    };
    let report = crate::ops::check(ctx, &request)?;
    super::print(&match args.output.format() {
        Format::Human => crate::report::check::render(&report),
        Format::Json => super::json(&report),
        Format::Junit => crate::report::junit::check(&report),
        Format::Markdown => crate::report::markdown::check(&report),
    })?;
    Ok(crate::ops::check::conclusion(&report))
}
