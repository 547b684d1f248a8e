//! `bob-eval gate ITEM RESULT [--confidence LEVEL] [--record --pr PR --pages
//! P… [--evidence PATH]] [--format human|json|junit|markdown]`: exit 0
//! accepted, 1 rejected, 2 usage or invalid input (nothing written).
//! `--record` also keeps the decision in the evidence store (for `history`);
//! without it the gate is a check and nothing is kept.

use super::{Format, FormatArgs};
use crate::config::Context;
use crate::error::exit::Conclusion;
use crate::error::{Error, Result};
use crate::ops::{GateRequest, RecordRequest};
use camino::Utf8PathBuf;
use clap::Args;

/// `gate`.
#[derive(Debug, Args)]
pub struct GateArgs {
    /// The item the result is for
    pub item: String,
    /// A skill-eval/1 document written by `bob-eval run`
    #[arg(value_parser = super::path_arg)]
    pub result: Utf8PathBuf,
    #[command(flatten)]
    pub record: RecordArgs,
    /// Let runs imported from a file (`evidence import`) count toward an
    /// accept; without it a result that used any is rejected (a file anyone
    /// can write is not evidence)
    #[arg(long)]
    pub trust_imported: bool,
    #[command(flatten)]
    pub confidence: super::args::ConfidenceArg,
    /// A fresh measurement of the recorded best's version (`bob-eval run
    /// ITEM --best --out FILE`): compare with it, head to head, instead of
    /// the round that selected the best
    #[arg(long, value_name = "FILE", value_parser = super::path_arg)]
    pub best_again: Option<Utf8PathBuf>,
    #[command(flatten)]
    pub output: FormatArgs,
}

/// What `--record` needs.
#[derive(Debug, Clone, Args, Default)]
pub struct RecordArgs {
    /// Record the outcome: raise the best on accept, append a wiki row either way
    #[arg(long)]
    pub record: bool,
    /// The proposal's pull request, e.g. '#4300' (needed by --record)
    #[arg(long, value_name = "PR")]
    pub pr: Option<String>,
    /// Wiki pattern pages the proposal was built on: wiki/patterns/<PAGE>.md
    /// (repeatable or comma-separated; needed by --record)
    #[arg(long, value_name = "PAGE", value_delimiter = ',', num_args = 1..)]
    pub pages: Vec<String>,
    /// The evidence store --record also keeps the decision in, for `bob-eval
    /// history` [default: $BOB_EVIDENCE, else <home>/evidence.db]
    #[arg(long, value_name = "PATH", value_parser = super::path_arg)]
    pub evidence: Option<Utf8PathBuf>,
}

/// Decide, maybe record, print the decision.
pub fn exec(ctx: &Context, args: &GateArgs) -> Result<Conclusion<'static>> {
    let rec = &args.record;
    if !rec.record && (rec.pr.is_some() || !rec.pages.is_empty() || rec.evidence.is_some()) {
        return Err(Error::Usage(
            "--pr, --pages and --evidence only apply with --record: add --record to record the outcome, or drop them (without --record the gate is a check: nothing is written or kept)".into(),
        ));
    }
    let request = GateRequest {
        item: crate::config::ItemName::new(&args.item)?,
        result: args.result.clone(),
        choice: args.confidence.choice(rec.record),
        trust_imported: args.trust_imported,
        best_again: args.best_again.clone(),
        record: rec.record.then(|| RecordRequest {
            pr: rec.pr.clone(),
            pages: rec.pages.clone(),
        }),
        evidence: rec.evidence.clone(),
    };
    let mut gated = crate::ops::gate(ctx, &request)?;
    super::warn(&gated.warnings);
    if let Some(c) = super::args::completion(ctx, &gated.result, Some(&args.result), None) {
        gated
            .decision
            .next
            .push(c.command(&crate::ops::next::Invocation::run()));
    }
    let (decision, recorded) = (&gated.decision, &gated.recorded);
    let machine = match args.output.format() {
        Format::Human => None,
        Format::Json => Some(super::json(decision)),
        Format::Junit => Some(crate::report::junit::gate(decision)),
        Format::Markdown => Some(crate::report::markdown::gate(decision)),
    };
    if let Some(text) = machine {
        super::print(&text)?;
        if let Some(done) = recorded {
            eprintln!("{}", crate::report::gate::render_recorded(done));
        }
    } else {
        let mut text = crate::report::gate::render(decision);
        if let Some(done) = recorded {
            text.push_str(&crate::report::gate::render_recorded(done));
            text.push('\n');
        }
        super::print(&text)?;
    }
    Ok(gated.conclusion())
}
