//! `bob-eval history [ITEM…] [--all]`: `with`, `without`, their intervals,
//! the trigger rate and the cost of each item on each model over time, from
//! the evaluations the evidence store keeps (the runs, for an older store),
//! with the decisions it keeps and those `wiki/skill-impact.md` and
//! `baseline.json` record: a table with sparklines, `--json`, or an HTML
//! page of charts (`docs/history.md`).

use crate::config::Context;
use crate::error::Result;
use crate::error::exit::Conclusion;
use crate::ops::HistoryRequest;
use camino::Utf8PathBuf;
use clap::Args;

/// `history`.
#[derive(Debug, Args)]
#[command(after_help = "\
A point is one evaluation of an item's whole suite on a model (`run`, `exam`, \
`sweep`) with the numbers its document had and their 95 % intervals; evaluations \
of some cases only (--case, --tag) and partial ones are left out unless --all. \
A decision recorded by `gate --record` or `propose` marks the point of the run it \
gated (✓ accepted, ✗ rejected); an older wiki row marks the point of its day and \
`with`; the best in baseline.json marks its run as accepted. Runs kept before \
evaluations were (older stores) are grouped into a point per run that bought them.

Examples:
  bob-eval history                        every item kept, as a table
  bob-eval history commit --json          one item, for tools (bob-eval-history/1)
  bob-eval history --html history.html    one page, a chart per item, no network")]
pub struct HistoryArgs {
    /// Only these items [default: every item with a kept run]
    #[arg(value_name = "ITEM")]
    pub items: Vec<String>,
    /// The evidence store [default: $BOB_EVIDENCE, else <home>/evidence.db]
    #[arg(long, value_name = "PATH", value_parser = super::path_arg)]
    pub evidence: Option<Utf8PathBuf>,
    /// Print the history as JSON on stdout (schema bob-eval-history/1)
    #[arg(long)]
    pub json: bool,
    /// Also write one self-contained HTML page with a chart per item (atomically)
    #[arg(long, value_name = "FILE", value_parser = super::path_arg)]
    pub html: Option<Utf8PathBuf>,
    /// Also show the evaluations of some cases only (--case, --tag) and the
    /// partial ones, marked as such
    #[arg(long)]
    pub all: bool,
}

/// Gather the history and render it.
pub fn exec(ctx: &Context, args: &HistoryArgs) -> Result<Conclusion<'static>> {
    let request = HistoryRequest {
        items: args
            .items
            .iter()
            .map(|item| crate::config::ItemName::new(item))
            .collect::<Result<_>>()?,
        evidence: args.evidence.clone(),
        all: args.all,
    };
    if let Some(path) = &args.html {
        crate::fsio::check_writable(path)?;
    }
    let history = crate::ops::history(ctx, &request)?;
    let warnings: Vec<_> = history
        .warnings
        .iter()
        .map(crate::error::Warning::new)
        .collect();
    super::warn(&warnings);
    if let Some(file) = &args.html {
        let page = crate::report::history::html(&history);
        crate::fsio::write_atomically(file, page.as_bytes())?;
        eprintln!("bob-eval: wrote {file}");
    }
    if args.json {
        let doc = serde_json::to_value(&history).expect("a history serializes");
        crate::schema::validate_history(&doc, "<stdout>".into())?;
        super::print(&super::json(&doc))?;
    } else {
        super::print(&crate::report::history::table(&history))?;
    }
    Ok(Conclusion::Done)
}
