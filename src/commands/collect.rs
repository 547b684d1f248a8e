//! `bob-eval collect DIR…`: merge the folders of a sharded sweep (`sweep
//! --shard K/N --out-dir DIR`, one per shard) into one: import their runs into
//! the evidence store and print what the unsharded sweep prints, in every
//! format, with its exit code ([`super::sweep::print_rows`]), and the `run`
//! that completes each suite a shard's ceiling cut short.

use super::FormatArgs;
use crate::config::Context;
use crate::error::Result;
use crate::error::exit::Conclusion;
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
pub fn exec(ctx: &Context, args: &CollectArgs) -> Result<Conclusion<'static>> {
    let done = crate::ops::collect(ctx, &args.dirs, args.evidence.as_deref())?;
    for said in &done.notices {
        eprintln!("bob-eval: {said}");
    }
    eprintln!(
        "bob-eval: collected {} shard(s), {} suite(s); {} run(s): {} added to {}, {} already kept",
        done.shards,
        done.rows.len(),
        done.runs,
        done.added,
        done.store,
        done.runs - done.added
    );
    let conclusion = super::sweep::print_rows(ctx, &done.rows, args.output.format())?;
    // The runs are in this store now: a suite a shard's ceiling cut short
    // is completed here, from the flags its document records.
    let complete: Vec<_> = done
        .rows
        .iter()
        .filter_map(|row| {
            super::args::completion(ctx, row.outcome.as_ref().ok()?, None, Some(&done.store))
        })
        .collect();
    super::sweep::print_completions(&complete);
    Ok(conclusion)
}
