//! Sharded sweeps as operations: a shard's plan and folder before it runs, and
//! `collect` of the shards' folders into the evidence store.

use crate::config::Context;
use crate::error::{Error, Result};
use crate::eval::{EvalOptions, ItemOutcome};
use crate::evidence::{Origin, Store, StoredRun};
use crate::shard::{self, Budget, Shard};
use camino::{Utf8Path, Utf8PathBuf};

/// What a sweep (whole or one shard) runs, decided before anything is spent.
#[derive(Debug, Clone)]
pub struct SweepPlan {
    /// Every suite of the tree, in order (listed only when sharded or
    /// writing a folder, else empty).
    pub tree: Vec<String>,
    /// The shard (1/1 unsharded).
    pub shard: Shard,
    /// The shard's suites; `None` for every suite.
    pub suites: Option<Vec<String>>,
    /// The matrix's budget and this shard's share of it.
    pub budget: Option<Budget>,
}

/// Plan a sweep: the tree (when `shard` or `out_dir` needs it), the shard's
/// suites and its share of `max_total_usd`; the folder `out_dir` prepared
/// unless this is a dry run ([`prepare_out_dir`]).
pub fn plan_sweep(
    ctx: &Context,
    shard: Option<Shard>,
    out_dir: Option<&Utf8Path>,
    max_total_usd: Option<f64>,
    dry_run: bool,
) -> Result<SweepPlan> {
    let tree = match (shard, out_dir) {
        (None, None) => Vec::new(),
        _ => crate::suite::list(&ctx.source)?,
    };
    // The budget is the matrix's: each shard spends its share of it.
    let budget = max_total_usd.map(|total| Budget {
        total_usd: total,
        share_usd: match shard {
            Some(s) => shard::budget_share(total, &tree, s),
            None => total,
        },
    });
    if let Some(dir) = out_dir.filter(|_| !dry_run) {
        prepare_out_dir(dir)?;
    }
    Ok(SweepPlan {
        suites: shard.map(|s| shard::select(&tree, s)),
        shard: shard.unwrap_or(Shard { index: 1, count: 1 }),
        tree,
        budget,
    })
}

/// Create the shard's folder and remove an earlier manifest, so that a sweep
/// that stops half way leaves a folder `collect` refuses; refused before
/// anything is spent when it cannot be written.
fn prepare_out_dir(dir: &Utf8Path) -> Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::Usage(format!("--out-dir {dir}: cannot create it: {e}")))?;
    let manifest = dir.join(shard::MANIFEST);
    crate::fsio::check_writable(&manifest)?;
    match std::fs::remove_file(&manifest) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(manifest, "removing the earlier manifest", e)),
    }
}

/// What `collect` did: the merged sweep's rows and what went into the store.
#[derive(Debug)]
pub struct CollectOutcome {
    /// The merged rows, as the unsharded sweep would have them.
    pub rows: Vec<ItemOutcome>,
    /// Shards read.
    pub shards: u32,
    /// Runs the folders held.
    pub runs: usize,
    /// Of those, the runs the store did not hold yet.
    pub added: usize,
    /// The store written.
    pub store: Utf8PathBuf,
    /// What the store said on opening (side files of busy writers imported).
    pub notices: Vec<String>,
}

/// Read and check every shard's folder, then import all their runs,
/// evaluations and decisions in one transaction into the store (`evidence`,
/// else the default). Runs from the project's own shards are trusted: they
/// are marked collected, not imported.
pub fn collect(
    ctx: &Context,
    dirs: &[Utf8PathBuf],
    evidence: Option<&Utf8Path>,
) -> Result<CollectOutcome> {
    let tree = crate::suite::list(&ctx.source)?;
    let collected = shard::collect_in(ctx, &tree, dirs)?;
    let path = crate::eval::evidence_path(
        ctx,
        &EvalOptions {
            evidence: evidence.map(Utf8Path::to_owned),
            ..EvalOptions::default()
        },
    );
    let mut store = Store::open(&path)?;
    let notices = store.import_pending();
    let batches: Vec<(Origin, &[StoredRun])> = collected
        .runs
        .iter()
        .map(|(dir, runs)| (Origin::Collected(dir.clone()), runs.as_slice()))
        .collect();
    let mark = |p: &mut crate::evidence::RecordProvenance| {
        *p = crate::evidence::RecordProvenance::Collected
    };
    let mut evaluations = collected.evaluations.clone();
    evaluations.iter_mut().for_each(|e| mark(&mut e.provenance));
    let mut decisions = collected.decisions.clone();
    decisions.iter_mut().for_each(|d| mark(&mut d.provenance));
    let added = store.insert_all(&batches, &evaluations, &decisions)?.runs;
    let mut notices = notices;
    if collected.transcripts.is_empty() {
        notices.push(crate::eval::collect::NO_TRANSCRIPTS_COLLECTED.into());
    }
    store.keep_collected_transcripts(collected.transcripts)?;
    Ok(CollectOutcome {
        runs: collected.runs.iter().map(|(_, runs)| runs.len()).sum(),
        shards: collected.shards,
        rows: collected.rows,
        added,
        store: path,
        notices,
    })
}
