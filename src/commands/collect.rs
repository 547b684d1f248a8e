//! `bob-eval collect DIR…`: merge the folders of a sharded sweep (`sweep
//! --shard K/N --out-dir DIR`, one per shard) into one: import their runs into
//! the evidence store and print what the unsharded sweep prints, in every
//! format, with its exit code ([`super::sweep::print_rows`]).

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
    super::sweep::print_rows(ctx, &done.rows, args.output.format())
}
