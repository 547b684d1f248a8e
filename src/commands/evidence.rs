//! `bob-eval evidence list|export|import|gc`: the runs kept in the evidence
//! store, listed (with where they came from), written as JSON Lines, or
//! joined from another machine's export (a CI job's) — importing the same
//! runs twice adds nothing; imported runs are marked so, and the gate does
//! not accept on them without `--trust-imported`; `gc` drops the transcripts
//! no best nor recent decision uses.

use crate::config::Context;
use crate::error::Result;
use crate::error::exit::Conclusion;
use crate::evidence::Store;
use camino::Utf8PathBuf;
use clap::{Args, Subcommand};

/// `evidence`.
#[derive(Debug, Args)]
pub struct EvidenceArgs {
    /// The evidence store [default: $BOB_EVIDENCE, else <home>/evidence.db]
    #[arg(long, value_name = "PATH", global = true, value_parser = super::path_arg)]
    pub evidence: Option<Utf8PathBuf>,
    /// What to do with it.
    #[command(subcommand)]
    pub action: Action,
}

/// What `evidence` does.
#[derive(Debug, Subcommand)]
pub enum Action {
    /// Runs per item, case, arm and model, with their dates, cost and
    /// provenance (how many bought here, imported, collected from shards,
    /// or legacy: kept before provenance was, counted as bought here).
    ///
    /// Example: bob-eval evidence list commit --json
    List {
        /// Only these items [default: every item]
        #[arg(value_name = "ITEM")]
        items: Vec<String>,
        /// Print the list as JSON on stdout
        #[arg(long)]
        json: bool,
    },
    /// Write the runs as JSON Lines (one run a line, format `bob-eval-evidence/1`) on stdout.
    ///
    /// Example: bob-eval evidence export commit > runs.jsonl
    Export {
        /// Only these items [default: every item]
        #[arg(value_name = "ITEM")]
        items: Vec<String>,
    },
    /// Add the runs of JSON Lines exports, marked imported (the gate accepts
    /// on them only with --trust-imported; `collect` is the trusted way to
    /// join the project's own shards). A line that does not read refuses its
    /// whole file; a run dated more than 5 min in the future, or with an
    /// impossible value (score outside 0..1, cost not in 0..=10000 dollars,
    /// negative duration or grader weight, run 0), is refused alone, and
    /// the refusals are counted per reason.
    ///
    /// Example: bob-eval evidence import ci-shard-1.jsonl ci-shard-2.jsonl
    Import {
        /// Export files
        #[arg(value_name = "FILE", required = true, value_parser = super::path_arg)]
        files: Vec<Utf8PathBuf>,
        /// Print what was added as JSON on stdout
        #[arg(long)]
        json: bool,
    },
    /// Drop the transcripts that no best (each item's baseline.json, read
    /// from --source) and no decision recorded in the last --keep-days days
    /// uses; the runs themselves are all kept. Items whose suite is not in
    /// this source tree keep every transcript. Says what it kept and freed.
    ///
    /// Example: bob-eval evidence gc --dry-run
    Gc {
        /// Keep the transcripts of decisions recorded in this many last days
        #[arg(long, value_name = "DAYS", default_value_t = 30)]
        keep_days: u32,
        /// Count what would be dropped; drop nothing
        #[arg(long)]
        dry_run: bool,
        /// Print what was kept and freed as JSON on stdout
        #[arg(long)]
        json: bool,
    },
}

/// Run the action on the store.
pub fn exec(ctx: &Context, args: &EvidenceArgs) -> Result<Conclusion<'static>> {
    let path = Store::default_path(args.evidence.as_deref(), ctx);
    match &args.action {
        Action::List { items, json } => {
            validate_names(items)?;
            let store = open_existing(&path)?;
            let entries = store.list(items)?;
            if *json {
                super::print(&super::json(&entries))?;
            } else {
                super::print(&crate::report::evidence::list(&path, &entries))?;
            }
        }
        Action::Export { items } => {
            validate_names(items)?;
            let store = open_existing(&path)?;
            let mut out = Vec::new();
            store.export(items, &mut out, "<stdout>".into())?;
            super::print(&String::from_utf8_lossy(&out))?;
        }
        Action::Import { files, json } => {
            let mut store = Store::open(&path)?;
            for said in store.import_pending() {
                eprintln!("bob-eval: {said}");
            }
            let mut reports = Vec::new();
            for file in files {
                let report = store.import_file(file)?;
                if !*json {
                    eprint!("{}", crate::report::evidence::imported(file, &report));
                }
                let mut value = serde_json::to_value(&report).expect("a report serializes");
                value["file"] = serde_json::json!(file);
                reports.push(value);
            }
            if *json {
                super::print(&super::json(&reports))?;
            }
        }
        Action::Gc {
            keep_days,
            dry_run,
            json,
        } => {
            let mut store = if *dry_run {
                open_existing(&path)?
            } else {
                open_existing(&path)?;
                Store::open(&path)?
            };
            let outcome =
                crate::ops::show::collect_transcripts(ctx, &mut store, *keep_days, *dry_run)?;
            if *json {
                super::print(&super::json(&outcome))?;
            } else {
                super::print(&crate::report::evidence::collected(&path, &outcome))?;
            }
        }
    }
    Ok(Conclusion::Done)
}

/// Every name must be an item name (exit 2 naming the first that is not).
pub(super) fn validate_names(items: &[String]) -> Result<()> {
    items
        .iter()
        .try_for_each(|item| crate::config::ItemName::new(item).map(drop))
}

/// Open the store to read it, never writing it ([`Store::open_read_only`]):
/// a missing one is an error that says where it looked.
pub(super) fn open_existing(path: &camino::Utf8Path) -> Result<Store> {
    crate::ops::open_existing(path)
}
