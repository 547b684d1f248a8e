//! Sharded sweeps: the suites of a source tree split into N shards that N
//! machines sweep apart (`sweep --shard K/N --out-dir DIR`), and the merge of
//! their folders back into one sweep (`collect`).
//!
//! **The rule** (rendezvous hashing with bounded loads, [`assign`]): the
//! weight of suite `item` for shard `k` in `1..=N` is
//! `mix(fnv1a64(item, 0xff, k))`: FNV-1a 64 with its standard offset and
//! prime, then the SplitMix64 finaliser, all written here, so the split is
//! the same on every machine and platform. Every shard holds at most ⌈M/N⌉
//! of the M suites (so the busiest shard sets no longer a wall time than it
//! must); the (suite, shard) pairs are taken by weight, highest first, each
//! giving the suite to the shard if the suite has none and the shard has
//! room. Adding or removing a suite moves only the few suites its slot
//! displaces (1,000 suites: 1 or 2; 64: at most 4, when ⌈M/N⌉ grows).
//!
//! **The folder** of one shard: `shard.json` (a `bob-eval-shard/1` manifest,
//! written last: which shard, the digest of the tree's suite list, every suite
//! given to the shard with its exit code), `<item>.json` (the `skill-eval/1`
//! document of each suite that ran) and `runs.jsonl` (the runs the evidence
//! store keeps for the shard's suites, an `evidence export`, but those
//! imported from files: `collect` stores its runs as trusted, `collected`).

use crate::error::{Error, Result};
use crate::eval::{Failure, ItemOutcome};
use crate::evidence::{Store, StoredRun};
use camino::{Utf8Path, Utf8PathBuf};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The manifest's schema.
pub const SCHEMA: &str = "bob-eval-shard/1";
/// The manifest's file name in a shard's folder.
pub const MANIFEST: &str = "shard.json";
/// The runs' file name in a shard's folder.
pub const RUNS: &str = "runs.jsonl";
/// The most shards a sweep may be split into.
pub const MAX_SHARDS: u32 = 1024;

/// `K/N`: shard K (1-based) of N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// K, in `1..=count`.
    pub index: u32,
    /// N.
    pub count: u32,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(text: &str) -> std::result::Result<Shard, String> {
        let bad = || format!("{text:?} is not K/N with 1 <= K <= N <= {MAX_SHARDS} (e.g. 2/4)");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            k.trim().parse::<u32>().map_err(|_| bad())?,
            n.trim().parse::<u32>().map_err(|_| bad())?,
        );
        if index == 0 || index > count || count > MAX_SHARDS {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The weight of `item` for shard `k`: FNV-1a 64 of the name, a 0xff
/// separator (never in a name) and `k` (little-endian), then SplitMix64's finaliser.
fn weight(item: &str, k: u32) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in item.bytes().chain([0xff]).chain(k.to_le_bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// The shard (1-based) of each of `items` (distinct names), in their order,
/// among `count`: rendezvous hashing with bounded loads. Every (suite, shard)
/// pair is taken by weight, highest first, and gives the suite to the shard
/// when the suite has none yet and the shard holds fewer than ⌈M/N⌉ suites.
/// Every suite gets a shard: while one has none, some shard has room.
pub fn assign(items: &[String], count: u32) -> Vec<u32> {
    let count = count.max(1);
    let capacity = items.len().div_ceil(count as usize);
    let mut pairs: Vec<(u64, usize, u32)> = items
        .iter()
        .enumerate()
        .flat_map(|(i, item)| (1..=count).map(move |k| (weight(item, k), i, k)))
        .collect();
    // Highest weight first; a tie goes to the smaller name, then shard.
    pairs.sort_unstable_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| items[a.1].cmp(&items[b.1]))
            .then(a.2.cmp(&b.2))
    });
    let mut shard = vec![0u32; items.len()];
    let mut load = vec![0usize; count as usize + 1];
    let mut left = items.len();
    for (_, i, k) in pairs {
        if left == 0 {
            break;
        }
        if shard[i] == 0 && load[k as usize] < capacity {
            shard[i] = k;
            load[k as usize] += 1;
            left -= 1;
        }
    }
    shard
}

/// The suites of `items` that belong to `shard`, in their order.
pub fn select(items: &[String], shard: Shard) -> Vec<String> {
    items
        .iter()
        .zip(assign(items, shard.count))
        .filter(|&(_, k)| k == shard.index)
        .map(|(item, _)| item.clone())
        .collect()
}

/// Shard `shard`'s share of a sweep's total budget `total` (US dollars): the
/// total in proportion to the suites the shard was given, rounded down to
/// the cent, so that the shares of the N shards never add up to more than
/// the total. A shard with no suite gets nothing.
pub fn budget_share(total: f64, tree: &[String], shard: Shard) -> f64 {
    if tree.is_empty() {
        return 0.0;
    }
    let mine = select(tree, shard).len() as f64;
    (total * mine / tree.len() as f64 * 100.0).floor() / 100.0
}

/// The budget a shard was held to ([`Manifest::budget`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    /// `sweep --max-total-usd`: the whole matrix's budget.
    pub total_usd: f64,
    /// This shard's share ([`budget_share`]).
    pub share_usd: f64,
}

/// The identity of a tree's suite list: `sha256:` of the names in order.
pub fn tree_digest(items: &[String]) -> String {
    let parts = std::iter::once("bob-eval-suites/1").chain(items.iter().map(String::as_str));
    format!("sha256:{}", crate::evidence::digest_parts(parts))
}

/// A shard's `shard.json` (`schemas/bob-eval-shard.schema.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// K.
    pub shard: u32,
    /// N.
    pub shards: u32,
    /// [`tree_digest`] of the source tree's suites.
    pub tree: String,
    /// How many suites the tree holds.
    pub suites: usize,
    /// The suites given to this shard, in sweep order.
    pub items: Vec<ShardEntry>,
    /// The sweep's budget and this shard's share, under `--max-total-usd`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<Budget>,
}

/// One suite of a [`Manifest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardEntry {
    /// The item.
    pub item: String,
    /// 0 when it ran (its document is `<item>.json`), else why not.
    pub exit_code: u8,
    /// Why it did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What [`write_out_dir`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// `skill-eval/1` documents.
    pub documents: usize,
    /// Runs in `runs.jsonl`.
    pub runs: usize,
}

/// Write one shard's folder `dir` (created if missing): a document per suite
/// that ran, the runs `store` keeps for the shard's suites (none when there
/// is no store yet), and the manifest last (with the `budget` the shard was
/// held to, if any).
pub fn write_out_dir(
    dir: &Utf8Path,
    shard: Shard,
    tree: &[String],
    rows: &[ItemOutcome],
    store: &Utf8Path,
    budget: Option<Budget>,
) -> Result<Written> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, "creating", e))?;
    let mut documents = 0;
    for row in rows {
        if let Ok(doc) = &row.outcome {
            let text = serde_json::to_string_pretty(&**doc).expect("a document serialises") + "\n";
            crate::fsio::write_atomically(
                &dir.join(format!("{}.json", row.item)),
                text.as_bytes(),
            )?;
            documents += 1;
        }
    }
    let items: Vec<String> = rows.iter().map(|r| r.item.clone()).collect();
    let runs_path = dir.join(RUNS);
    let mut runs_text = Vec::new();
    let runs = if store.exists() && !items.is_empty() {
        // Not the runs imported from files: `collect` trusts what it reads here.
        Store::open_read_only(store)?.export_own(&items, &mut runs_text, &runs_path)?
    } else {
        0
    };
    crate::fsio::write_atomically(&runs_path, &runs_text)?;
    let manifest = Manifest {
        schema: SCHEMA.into(),
        shard: shard.index,
        shards: shard.count,
        tree: tree_digest(tree),
        suites: tree.len(),
        items: rows
            .iter()
            .map(|r| match &r.outcome {
                Ok(_) => ShardEntry {
                    item: r.item.clone(),
                    exit_code: 0,
                    error: None,
                },
                Err(f) => ShardEntry {
                    item: r.item.clone(),
                    exit_code: f.exit_code,
                    error: Some(f.message.clone()),
                },
            })
            .collect(),
        budget,
    };
    let text = serde_json::to_string_pretty(&manifest).expect("a manifest serialises") + "\n";
    crate::fsio::write_atomically(&dir.join(MANIFEST), text.as_bytes())?;
    Ok(Written { documents, runs })
}

/// The shards' folders merged: every suite of the tree in sweep order, and
/// every run of the shards, read and checked but stored nowhere yet.
#[derive(Debug)]
pub struct Collected {
    /// N.
    pub shards: u32,
    /// One outcome per suite of the tree, in sweep order.
    pub rows: Vec<ItemOutcome>,
    /// The runs of every shard's `runs.jsonl`, by shard folder (stored as
    /// collected from it: the trusted case of provenance).
    pub runs: Vec<(Utf8PathBuf, Vec<StoredRun>)>,
    /// The evaluations of the shards' suites those files carry.
    pub evaluations: Vec<crate::evidence::Evaluation>,
    /// The recorded decisions on them those files carry.
    pub decisions: Vec<crate::evidence::KeptDecision>,
    /// The runs' transcripts those files carry (none from shards written
    /// before transcripts were kept).
    pub transcripts: Vec<crate::evidence::KeptTranscript>,
}

fn read_manifest(dir: &Utf8Path) -> Result<Manifest> {
    let path = dir.join(MANIFEST);
    let text = match crate::fsio::read_text(&path, crate::config::MAX_INPUT_FILE) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::invalid(
                &path,
                format!(
                    "no shard manifest: is {dir} a folder `bob-eval sweep --shard K/N --out-dir` wrote, and did that sweep finish?"
                ),
            ));
        }
        Err(e) => return Err(Error::unreadable(&path, e)),
    };
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| Error::invalid(&path, format!("not JSON: {e}")))?;
    crate::schema::validate_shard(&value, &path)?;
    let manifest: Manifest = serde_json::from_value(value)
        .map_err(|e| Error::invalid(&path, format!("not a {SCHEMA} manifest: {e}")))?;
    if manifest.shard > manifest.shards {
        return Err(Error::invalid(
            &path,
            format!(
                "shard {}/{} does not exist",
                manifest.shard, manifest.shards
            ),
        ));
    }
    Ok(manifest)
}

/// Read and check the shards' folders `dirs` against the suites of the source
/// tree `tree` (as `suite::list` gives them). Refused, each naming the
/// folders: a folder without a manifest, shards of different splits, one
/// shard given twice, a missing shard, a manifest for another tree, a suite
/// two shards ran, a suite of the tree no shard ran, and any document or run
/// that does not read. Nothing is imported here: the caller stores
/// [`Collected::runs`] once everything has been read.
pub fn collect(source: &Utf8Path, tree: &[String], dirs: &[Utf8PathBuf]) -> Result<Collected> {
    let Some(first) = dirs.first() else {
        return Err(Error::Usage(
            "collect: name the folders of every shard (sweep --shard K/N --out-dir DIR)".into(),
        ));
    };
    let manifests = dirs
        .iter()
        .map(|d| read_manifest(d))
        .collect::<Result<Vec<_>>>()?;
    let count = manifests[0].shards;
    let digest = tree_digest(tree);
    let mut by_shard: BTreeMap<u32, &Utf8PathBuf> = BTreeMap::new();
    for (dir, m) in dirs.iter().zip(&manifests) {
        let path = dir.join(MANIFEST);
        if m.shards != count {
            return Err(Error::invalid(
                &path,
                format!(
                    "shard {}/{} of a split into {} shards, but {first} is of a split into {count}: collect the shards of one sweep",
                    m.shard, m.shards, m.shards
                ),
            ));
        }
        if m.tree != digest || m.suites != tree.len() {
            return Err(Error::invalid(
                &path,
                format!(
                    "written for another source tree: its suite list ({} suites, {}) is not this tree's ({} suites, {digest}); collect in the checkout the shards swept",
                    m.suites,
                    m.tree,
                    tree.len()
                ),
            ));
        }
        if let Some(other) = by_shard.insert(m.shard, dir) {
            return Err(Error::invalid(
                &path,
                format!(
                    "shard {}/{count} is also {other}: pass each shard's folder once",
                    m.shard
                ),
            ));
        }
    }
    let missing: Vec<String> = (1..=count)
        .filter(|k| !by_shard.contains_key(k))
        .map(|k| format!("{k}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(Error::Usage(format!(
            "collect: shard {} missing (got {} of {count} folders); pass every shard's folder",
            missing.join(", "),
            by_shard.len()
        )));
    }
    let mut found: BTreeMap<&str, (ItemOutcome, &Utf8PathBuf)> = BTreeMap::new();
    for (dir, m) in dirs.iter().zip(&manifests) {
        for entry in &m.items {
            if let Some((_, other)) = found.get(entry.item.as_str()) {
                return Err(Error::invalid(
                    dir.join(MANIFEST),
                    format!(
                        "suite `{}` ran in two shards, {other} and {dir}: were they swept with different splits?",
                        entry.item
                    ),
                ));
            }
            let outcome = if entry.exit_code == 0 {
                let path = dir.join(format!("{}.json", entry.item));
                let doc = crate::document::load_result(&path, &entry.item)?;
                if let Some(why) = edited_item(source, &doc)? {
                    return Err(Error::invalid(
                        &path,
                        format!("{why}; collect in the checkout the shards swept"),
                    ));
                }
                if let Some(why) = edited_case(source, &doc)? {
                    return Err(Error::invalid(
                        &path,
                        format!(
                            "measured on other contents than this tree's: {why}; collect in the checkout the shards swept"
                        ),
                    ));
                }
                Ok(Arc::new(doc))
            } else {
                Err(Failure {
                    message: entry.error.clone().unwrap_or_default(),
                    exit_code: entry.exit_code,
                })
            };
            let row = ItemOutcome {
                item: entry.item.clone(),
                outcome,
            };
            found.insert(entry.item.as_str(), (row, dir));
        }
    }
    let mut rows = Vec::with_capacity(tree.len());
    for (item, k) in tree.iter().zip(assign(tree, count)) {
        let Some((row, _)) = found.remove(item.as_str()) else {
            return Err(Error::Usage(format!(
                "collect: suite `{item}` ran in no shard (shard {k}/{count} should have run it)"
            )));
        };
        rows.push(row);
    }
    if let Some((item, (_, dir))) = found.into_iter().next() {
        return Err(Error::invalid(
            dir.join(MANIFEST),
            format!("suite `{item}` is not in this source tree"),
        ));
    }
    let (mut runs, mut evaluations, mut decisions) = (Vec::new(), Vec::new(), Vec::new());
    let mut transcripts = Vec::new();
    for dir in dirs {
        let path = dir.join(RUNS);
        let bytes = crate::fsio::read(&path, crate::config::MAX_INPUT_FILE)
            .map_err(|e| Error::unreadable(&path, e))?;
        let (records, kept) = crate::evidence::read_export_with_transcripts(&bytes[..], &path)?;
        runs.push((dir.clone(), records.runs));
        evaluations.extend(records.evaluations);
        decisions.extend(records.decisions);
        transcripts.extend(kept);
    }
    Ok(Collected {
        shards: count,
        rows,
        runs,
        evaluations,
        decisions,
        transcripts,
    })
}

/// [`collect`], then each document's calibration computed again over its
/// runs against the labels in `ctx`'s tree, as a live run computes it
/// there ([`crate::eval::collect::calibrate_runs`]): a shard judged its
/// graders by the labels of its own checkout.
pub fn collect_in(
    ctx: &crate::config::Context,
    tree: &[String],
    dirs: &[Utf8PathBuf],
) -> Result<Collected> {
    let mut collected = collect(&ctx.source, tree, dirs)?;
    let runs: Vec<&StoredRun> = collected.runs.iter().flat_map(|(_, r)| r).collect();
    for row in &mut collected.rows {
        let Ok(doc) = &mut row.outcome else { continue };
        let Some(evaluation) = collected
            .evaluations
            .iter()
            .find(|e| e.run == doc.run && e.item == doc.item.as_str())
        else {
            continue;
        };
        let judge_model = &evaluation.options.judge_model;
        let judges = crate::eval::collect::judge_records(ctx, &doc.item, judge_model)?;
        crate::eval::collect::calibrate_runs(Arc::make_mut(doc), &evaluation.used, &runs, &judges);
    }
    Ok(collected)
}

/// How `doc`'s item differs from the item in `source` it was measured on,
/// in words; `None` when the document records no item digest or it matches.
fn edited_item(source: &Utf8Path, doc: &crate::document::SkillEval) -> Result<Option<String>> {
    if doc.item_digest.is_none() {
        return Ok(None);
    }
    let item = crate::item::find(source, &doc.item)?;
    Ok(doc.item_change(&crate::evidence::item_digest(&item)?))
}

/// The first case of `doc` whose folder in `source` is gone or holds other
/// contents than the ones it was measured on (the digest each case records),
/// in words; `None` when every case matches or records no digest.
fn edited_case(source: &Utf8Path, doc: &crate::document::SkillEval) -> Result<Option<String>> {
    if doc.cases.iter().all(|c| c.digest.is_none()) {
        return Ok(None);
    }
    let suite = crate::suite::load(source, &doc.item)?;
    for case in &doc.cases {
        let Some(measured) = &case.digest else {
            continue;
        };
        let Some(here) = suite.cases.iter().find(|c| c.name == case.name) else {
            return Ok(Some(format!(
                "case `{}` is not in evals/{}/",
                case.name, doc.item
            )));
        };
        let now = crate::evidence::case_digest(&suite.dir, &here.dir)?;
        if &now != measured {
            return Ok(Some(format!(
                "case `{}` of evals/{}/ has changed since (digest {now}, measured on {measured})",
                case.name, doc.item
            )));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("suite-{i:04}")).collect()
    }

    #[test]
    fn parses_k_of_n() {
        assert_eq!("2/4".parse(), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/4", "5/4", "4", "a/b", "1/0", "1/2000", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!(Shard { index: 3, count: 8 }.to_string(), "3/8");
    }

    /// How many of `items` have another shard in `after` (keyed by name).
    fn moved(items: &[String], count: u32, other: &[String], other_count: u32) -> usize {
        let before = assign(items, count);
        let after: std::collections::HashMap<&String, u32> =
            other.iter().zip(assign(other, other_count)).collect();
        items
            .iter()
            .zip(before)
            .filter(|(i, k)| after.get(i).is_some_and(|a| a != k))
            .count()
    }

    #[test]
    fn every_suite_is_in_exactly_one_shard_and_shards_are_even() {
        for (n, count) in [(1000, 4), (64, 4), (65, 4), (3, 4), (0, 2), (10, 1)] {
            let items = names(n);
            let shards: Vec<Vec<String>> = (1..=count)
                .map(|k| select(&items, Shard { index: k, count }))
                .collect();
            let mut all: Vec<String> = shards.concat();
            all.sort();
            assert_eq!(all, items, "{n} over {count}");
            for shard in &shards {
                assert!(
                    shard.len() <= n.div_ceil(count as usize),
                    "{n} over {count}"
                );
            }
        }
    }

    #[test]
    fn adding_or_removing_a_suite_moves_few() {
        for n in [64, 1000] {
            let items = names(n);
            let mut more = items.clone();
            more.insert(n / 2, "a-new-suite".into());
            let mut fewer = items.clone();
            fewer.remove(n / 3);
            for other in [&more, &fewer] {
                let m = moved(&items, 4, other, 4);
                assert!(m * 10 <= n, "{n} suites: {m} moved");
            }
        }
    }

    #[test]
    fn the_split_is_fixed_across_versions() {
        // A change of the rule would move suites between the shards of one
        // nightly matrix built from two versions: pin a split.
        let items: Vec<String> = ["commit", "review", "release-notes", "a", "tdd-flow", "b"]
            .map(String::from)
            .to_vec();
        assert_eq!(assign(&items, 4), PINNED);
    }

    const PINNED: [u32; 6] = [1, 2, 4, 2, 4, 1];

    #[test]
    fn tree_digest_depends_on_the_names() {
        let a = tree_digest(&names(3));
        assert_eq!(a, tree_digest(&names(3)));
        assert_ne!(a, tree_digest(&names(4)));
        assert!(a.starts_with("sha256:") && a.len() == 7 + 64, "{a}");
    }
}
