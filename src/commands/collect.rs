//! `bob-eval collect DIR…`: merge the folders of a sharded sweep (`sweep
//! --shard K/N --out-dir DIR`, one per shard) into one: import their runs into
//! the evidence store and print what the unsharded sweep prints, in every
//! format, with its exit code ([`super::sweep::print_rows`]).

use super::FormatArgs;
use crate::config::Context;
use crate::error::Result;
use crate::eval::EvalOptions;
use crate::evidence::{Origin, Store, StoredRun};
use camino::Utf8PathBuf;
use clap::Args;

/// `collect`.
#[derive(Debug, Args)]
pub struct CollectArgs {
    /// The folders `sweep --shard K/N --out-dir DIR` wrote, every shard's once
    #[arg(required = true, value_name = "DIR", value_parser = super::path_arg)]
    pub dirs: Vec<Utf8PathBuf>,
    /// The evidence store the shards' runs go into [default: $BOB_EVIDENCE,
    /// else <home>/evidence.db]
    #[arg(long, value_name = "PATH", value_parser = super::path_arg)]
    pub evidence: Option<Utf8PathBuf>,
    #[command(flatten)]
    pub output: FormatArgs,
}

/// Read and check every folder, import every run at once, print the sweep.
pub fn exec(ctx: &Context, args: &CollectArgs) -> Result<u8> {
    let tree = crate::suite::list(&ctx.source)?;
    let collected = crate::shard::collect(&ctx.source, &tree, &args.dirs)?;
    let path = crate::eval::evidence_path(
        ctx,
        &EvalOptions {
            evidence: args.evidence.clone(),
            ..EvalOptions::default()
        },
    );
    let mut store = Store::open(&path)?;
    for said in store.import_pending() {
        eprintln!("bob-eval: {said}");
    }
    // Runs from the project's own shards are trusted: marked collected, not imported.
    let batches: Vec<(Origin, &[StoredRun])> = collected
        .runs
        .iter()
        .map(|(dir, runs)| (Origin::Collected(dir.clone()), runs.as_slice()))
        .collect();
    let added = store
        .insert_all(&batches, &collected.evaluations, &collected.decisions)?
        .runs;
    let runs: usize = collected.runs.iter().map(|(_, runs)| runs.len()).sum();
    eprintln!(
        "bob-eval: collected {} shard(s), {} suite(s); {runs} run(s): {added} added to {path}, {} already kept",
        collected.shards,
        collected.rows.len(),
        runs - added
    );
    super::sweep::print_rows(&collected.rows, args.output.format())
}
