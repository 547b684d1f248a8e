//! Sharded sweeps (issue 14), two targets; `cargo bench --bench shard`.
//!
//! - 64 suites, a stub platform taking 1 s per suite, 4 shards × `--jobs 8`
//!   as four processes at once, then `collect`: wall within 1.25 × the ideal
//!   (64 / 32 × 1 s = 2 s).
//! - `collect` of 1,000 suite documents and their runs (8 per suite) into a
//!   new evidence store: under 1 s.

/// The parts of tests/support this bench uses (see tests/support/README.md).
#[path = "../tests/support"]
mod support {
    pub mod cmd;
    pub use bob_eval_testkit::data;
    pub use bob_eval_testkit::item;
    pub use bob_eval_testkit::stub;
    pub use bob_eval_testkit::tree;
}

use bob_eval::evidence::StoredRun;
use bob_eval::shard::{self, Manifest, Shard, ShardEntry};
use std::path::Path;
use std::time::{Duration, Instant};
use support::cmd::bob;
use support::data::data;
use support::stub::{Stub, Switches};

const SUITES: usize = 64;
const SHARDS: u32 = 4;
const JOBS: &str = "8";

fn main() {
    matrix();
    collect_thousand();
}

fn matrix() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let source = root.join("source");
    for i in 0..SUITES {
        support::item::add_item(&source, &format!("suite-{i:02}"));
    }
    let stub = Stub::new(Switches {
        sleep: Duration::from_secs(1),
        ..Switches::answering(data("pipelines/aggregate-result.json"))
    });
    let start = Instant::now();
    let children: Vec<_> = (1..=SHARDS)
        .map(|k| {
            bob(&source, &root.join(format!("home-{k}")))
                .current_dir(root)
                .env("EVALS", "1")
                .env("BOB_EVAL_CLAUDE", &stub.bin)
                .args(["sweep", "--jobs", JOBS, "--shard", &format!("{k}/{SHARDS}")])
                .arg("--out-dir")
                .arg(root.join(format!("shard-{k}")))
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut biggest = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for k in 1..=SHARDS {
        let text = std::fs::read_to_string(root.join(format!("shard-{k}/shard.json"))).unwrap();
        let m: Manifest = serde_json::from_str(&text).unwrap();
        biggest = biggest.max(m.items.len());
    }
    let swept = start.elapsed();
    let out = bob(&source, &root.join("home-collect"))
        .current_dir(root)
        .arg("collect")
        .args((1..=SHARDS).map(|k| root.join(format!("shard-{k}"))))
        .output()
        .unwrap();
    let elapsed = start.elapsed();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = String::from_utf8_lossy(&out.stdout)
        .matches("improved")
        .count();
    assert_eq!(rows, SUITES, "{}", String::from_utf8_lossy(&out.stdout));
    let ideal = SUITES as f64 / (f64::from(SHARDS) * 8.0);
    let ratio = elapsed.as_secs_f64() / ideal;
    println!(
        "sweep: {SUITES} suites, stub 1 s each, {SHARDS} shards x --jobs {JOBS} as {SHARDS} processes: \
         shards done {:.2} s, with collect {:.2} s (ideal {ideal:.0} s; largest shard {biggest} suites, \
         its own floor {:.0} s)",
        swept.as_secs_f64(),
        elapsed.as_secs_f64(),
        (biggest as f64 / 8.0).ceil()
    );
    println!(
        "RESULT sharded sweep of {SUITES} suites ({SHARDS} x --jobs {JOBS}, 1 s stub) + collect: {:.2} s, {ratio:.2} x ideal (target <= 1.25) {}",
        elapsed.as_secs_f64(),
        if ratio <= 1.25 { "PASS" } else { "MISS" }
    );
}

fn collect_thousand() {
    const ITEMS: usize = 1000;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // One real suite swept once: its document and runs are the templates.
    let small = root.join("small");
    support::item::add_item(&small, "commit");
    let stub = Stub::new(Switches::answering(data("pipelines/aggregate-result.json")));
    let out = bob(&small, &root.join("home-small"))
        .env("EVALS", "1")
        .env("BOB_EVAL_CLAUDE", &stub.bin)
        .args(["sweep", "--runs", "2", "--out-dir"])
        .arg(root.join("template"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("template/commit.json")).unwrap())
            .unwrap();
    let runs: Vec<StoredRun> = std::fs::read_to_string(root.join("template/runs.jsonl"))
        .unwrap()
        .lines()
        .map(|l| StoredRun::from_line(l).unwrap())
        .collect();
    assert!(!runs.is_empty());

    // A tree of 1,000 suites, each a copy of the template's (collect reads
    // the suite list and checks every case's contents against the digest its
    // document records), and 4 shards' folders.
    let source = root.join("source");
    let items: Vec<String> = (0..ITEMS).map(|i| format!("suite-{i:04}")).collect();
    for item in &items {
        support::tree::copy_tree(
            &small.join("evals/commit"),
            &source.join("evals").join(item),
        );
    }
    let mut dirs = Vec::new();
    let mut total_runs = 0;
    for k in 1..=SHARDS {
        let shard = Shard {
            index: k,
            count: SHARDS,
        };
        let mine = shard::select(&items, shard);
        let out = root.join(format!("shard-{k}"));
        std::fs::create_dir_all(&out).unwrap();
        let mut lines = String::new();
        for item in &mine {
            let mut d = doc.clone();
            d["item"] = item.clone().into();
            d["run"] = format!("eval-{item}-20261202T000000Z").into();
            write(
                &out.join(format!("{item}.json")),
                &serde_json::to_string_pretty(&d).unwrap(),
            );
            for run in &runs {
                let mut key = run.key.clone();
                key.item = item.clone();
                lines += &StoredRun::new(key, run.outcome.clone()).to_line();
                lines.push('\n');
                total_runs += 1;
            }
        }
        write(&out.join(shard::RUNS), &lines);
        let manifest = Manifest {
            schema: shard::SCHEMA.into(),
            shard: k,
            shards: SHARDS,
            tree: shard::tree_digest(&items),
            suites: ITEMS,
            items: mine
                .iter()
                .map(|item| ShardEntry {
                    item: item.clone(),
                    exit_code: 0,
                    error: None,
                })
                .collect(),
            budget: None,
        };
        write(
            &out.join(shard::MANIFEST),
            &serde_json::to_string_pretty(&manifest).unwrap(),
        );
        dirs.push(out);
    }
    let start = Instant::now();
    let out = bob(&source, &root.join("home-collect"))
        .arg("collect")
        .args(&dirs)
        .arg("--json")
        .output()
        .unwrap();
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), ITEMS);
    println!(
        "collect: {ITEMS} documents and {total_runs} runs in {SHARDS} folders into a new store: {secs:.2} s"
    );
    println!(
        "RESULT collect of {ITEMS} suite documents and {total_runs} runs: {secs:.2} s (target < 1 s) {}",
        if secs < 1.0 { "PASS" } else { "MISS" }
    );
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}
