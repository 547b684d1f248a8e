//! `bob-eval show RUN` and `bob-eval show ITEM --case NAME [--arm with|without]`:
//! one stored run as a person reads it (prompt, the model's text and tool
//! calls, the answer, each grader's verdict and why), in the terminal, as
//! JSON (`bob-eval-show/1`) or as one self-contained HTML page.

use super::args::ArmArg;
use crate::config::{Context, ItemName};
use crate::error::exit::Conclusion;
use crate::error::{Error, Result};
use crate::evidence::{Arm, Store};
use crate::ops::show::{find, last, view};
use camino::Utf8PathBuf;
use clap::Args;

/// `show`.
#[derive(Debug, Args)]
#[command(after_help = "\
RUN is a stored run's id (64 hex digits, or its first 6 or more), as `show --json` \
and the evidence export name them. With --case, the first argument is an item: the \
most recent run of that case on that arm (--model to choose the model) is shown, one \
with a transcript first.

Runs bought before bob-eval kept transcripts, runs over the store's transcript cap \
($BOB_TRANSCRIPT_CAP_MB) and runs whose transcript `evidence gc` dropped show their \
figures and graders, and say that no transcript is kept.

Examples:
  bob-eval show commit --case fires                 the last with-arm run of `fires`
  bob-eval show commit --case fires --arm without   what the model did without the item
  bob-eval show 3f9a2c --json                       one run by id, as JSON
  bob-eval show commit --case fires --html run.html one page, no network")]
pub struct ShowArgs {
    /// A run id (or its first 6+ hex digits); with --case, an item
    #[arg(value_name = "RUN|ITEM")]
    pub target: String,
    /// The case whose last run to show (the first argument is then an item)
    #[arg(long, value_name = "NAME")]
    pub case: Option<String>,
    /// The arm of that case
    #[arg(long, value_enum, default_value_t, requires = "case")]
    pub arm: ArmArg,
    /// The model of that case's run [default: any]
    #[arg(long, value_name = "MODEL", requires = "case")]
    pub model: Option<String>,
    /// Print the run as JSON (schema bob-eval-show/1)
    #[arg(long)]
    pub json: bool,
    /// Also write one self-contained HTML page (atomically)
    #[arg(long, value_name = "FILE", value_parser = super::path_arg)]
    pub html: Option<Utf8PathBuf>,
    /// The evidence store [default: $BOB_EVIDENCE, else <home>/evidence.db]
    #[arg(long, value_name = "PATH", value_parser = super::path_arg)]
    pub evidence: Option<Utf8PathBuf>,
}

/// Find the run, read its transcript, render.
pub fn exec(ctx: &Context, args: &ShowArgs) -> Result<Conclusion<'static>> {
    if let Some(path) = &args.html {
        crate::fsio::check_writable(path)?;
    }
    let path = Store::default_path(args.evidence.as_deref(), ctx);
    let store = super::evidence::open_existing(&path)?;
    let run = match &args.case {
        Some(case) => {
            let item = ItemName::new(&args.target)?;
            if case.trim().is_empty() {
                return Err(Error::Usage("--case: give a case name".into()));
            }
            let arm = match args.arm {
                ArmArg::With => Arm::With,
                ArmArg::Without => Arm::Without,
            };
            let model = args.model.as_deref().map(crate::config::canonical_model);
            last(&store, &item, case, arm, model.as_deref())?
        }
        None => find(&store, &args.target)?,
    };
    let shown = view(&store, &run)?;
    if let Some(file) = &args.html {
        let page = crate::report::show::html(&shown);
        crate::fsio::write_atomically(file, page.as_bytes())?;
        eprintln!("bob-eval: wrote {file}");
    }
    if args.json {
        let doc = serde_json::to_value(&shown).expect("a run view serializes");
        crate::schema::validate_show(&doc, "<stdout>".into())?;
        super::print(&super::json(&doc))?;
    } else {
        super::print(&crate::report::show::text(&shown))?;
    }
    Ok(Conclusion::Done)
}
