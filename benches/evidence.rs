//! The evidence store: writing one platform result of 1,000 runs (target
//! < 50 ms), and looking up the runs of a 100-case suite (both arms, the
//! most recent 3 each) in a store of 1,000,000 runs (target < 5 ms). The
//! big store is built once, in a temp folder. Run with
//! `cargo bench --bench evidence`.

use bob_eval::evidence::{
    Arm, CaseKey, GraderOutcome, Origin, PlatformRunsContext, RunKey, RunOutcome, Store, StoredRun,
    options_digest, runs_from_platform,
};
use camino::Utf8PathBuf;
use chrono::DateTime;
use serde_json::{Value, json};
use std::time::Instant;

const INSERT_RUNS: usize = 1_000;
const INSERT_REPEATS: usize = 20;
const STORE_RUNS: usize = 1_000_000;
const SUITE_CASES: usize = 100;
const RUNS_PER_KEY: usize = 10;
const LOOKUP_N: usize = 3;
const LOOKUP_REPEATS: usize = 50;

/// A realistic platform run: three graders, one of them an llm judge.
fn platform_run(i: usize, result: usize) -> Value {
    json!({
        "score": (i % 3) as f64 / 2.0, "passed": i.is_multiple_of(3), "turns": 3, "costUsd": 0.0123,
        "judgeCostUsd": 0.004, "durationSeconds": 2,
        "startedAt": format!("2026-12-02T09:{:02}:{:02}.{:03}Z", result % 60, i % 60, i % 1000),
        "error": null, "tracePath": "/var/tmp/claude-eval-x/out/trace.jsonl", "skippedPaidGraders": false,
        "graders": [
            {"name": "fires", "passed": true, "weight": 1, "explanation": "Skill called 1x (expected 1..∞)", "withOnly": true, "scored": false},
            {"name": "subject", "passed": true, "weight": 1, "explanation": "matched ^(feat|fix)", "withOnly": false, "scored": true},
            {"name": "why", "passed": i.is_multiple_of(2), "weight": 1, "explanation": "judge votes: PASS PASS FAIL", "withOnly": false,
             "scored": true, "judgeVotes": [true, true, false], "evidence": "the body says why"}
        ]
    })
}

/// A platform result of `INSERT_RUNS` runs: 50 cases × 2 arms × 10 runs.
fn platform_doc(result: usize) -> Vec<u8> {
    let cases: Vec<Value> = (0..INSERT_RUNS / 20)
        .map(|c| {
            json!({
                "name": format!("case-{c}"),
                "arms": {
                    "with": (0..10).map(|i| platform_run(c * 20 + i, result)).collect::<Vec<_>>(),
                    "without": (0..10).map(|i| platform_run(c * 20 + 10 + i, result)).collect::<Vec<_>>(),
                }
            })
        })
        .collect();
    serde_json::to_vec(&json!({
        "schemaVersion": 1, "claudeVersion": "2.1.328", "startedAt": "2026-12-02T09:39:15.075Z",
        "costUsd": 12.3, "partial": false, "suite": {"ablation": "with-without", "plugins": []},
        "cases": cases
    }))
    .unwrap()
}

fn ctx(result: usize) -> PlatformRunsContext {
    PlatformRunsContext {
        item: "commit".into(),
        item_digest: format!("{result:0>64}"),
        cases: (0..INSERT_RUNS / 20)
            .map(|c| {
                let key = CaseKey {
                    digest: format!("{c:0>64}"),
                    judge_model: "default".into(),
                    options: options_digest(&[]),
                };
                (format!("case-{c}"), key)
            })
            .collect(),
        model: "claude-sonnet-5-5".into(),
        tools: vec![],
        bought_by: format!("eval-commit-{result}"),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn verdict(ms: f64, target: f64) -> &'static str {
    if ms < target { "PASS" } else { "MISS" }
}

fn bench_insert(dir: &Utf8PathBuf) {
    let mut store = Store::open(&dir.join("insert.db")).unwrap();
    let path = Utf8PathBuf::from("<bench result>");
    let (mut insert_ms, mut whole_ms) = (vec![], vec![]);
    for r in 0..INSERT_REPEATS {
        let bytes = platform_doc(r);
        let start = Instant::now();
        let runs = runs_from_platform(&bytes, &path, &ctx(r)).unwrap();
        let converted = Instant::now();
        assert_eq!(store.insert(&runs, &Origin::Bought).unwrap(), INSERT_RUNS);
        let done = Instant::now();
        insert_ms.push((done - converted).as_secs_f64() * 1e3);
        whole_ms.push((done - start).as_secs_f64() * 1e3);
    }
    let ms = median(insert_ms);
    println!(
        "RESULT evidence_insert_1000 ms={ms:.2} target<50 {} (median of {INSERT_REPEATS}, one transaction, synchronous=FULL)",
        verdict(ms, 50.0)
    );
    println!(
        "INFO evidence_parse_and_insert_1000 ms={:.2} (runs_from_platform + insert, median)",
        median(whole_ms)
    );
}

/// `STORE_RUNS` runs: items × 100 cases × 2 arms × `RUNS_PER_KEY` runs.
fn build_store(path: &Utf8PathBuf) -> Vec<RunKey> {
    let mut store = Store::open(path).unwrap();
    let per_item = SUITE_CASES * 2 * RUNS_PER_KEY;
    let items = STORE_RUNS / per_item;
    let mut suite_keys = vec![];
    for item in 0..items {
        let mut batch = Vec::with_capacity(per_item);
        for case in 0..SUITE_CASES {
            for arm in [Arm::With, Arm::Without] {
                let key = RunKey {
                    item: format!("item-{item}"),
                    item_digest: format!("{item:0>64}"),
                    case: format!("case-{case}"),
                    case_digest: format!("{case:0>64}"),
                    arm,
                    model: "claude-sonnet-5-5".into(),
                    judge_model: "default".into(),
                    platform_version: "2.1.328".into(),
                    tools: vec![],
                    options: options_digest(&[]),
                };
                if item == items / 2 {
                    suite_keys.push(key.clone());
                }
                for run in 0..RUNS_PER_KEY {
                    let outcome = RunOutcome {
                        score: 0.5,
                        passed: false,
                        graders: ["fires", "subject", "why"]
                            .into_iter()
                            .map(|name| GraderOutcome {
                                name: name.into(),
                                passed: true,
                                scored: name != "fires",
                                with_only: name == "fires",
                                weight: 1.0,
                                explanation: "judge votes: PASS PASS FAIL".into(),
                                judge_votes: Vec::new(),
                                evidence: None,
                            })
                            .collect(),
                        cost_usd: 0.0123,
                        judge_cost_usd: 0.004,
                        duration_seconds: 2.0,
                        turns: 3,
                        error: None,
                        skipped_paid_graders: false,
                        started_at: DateTime::from_timestamp(
                            1_796_000_000 + (run * 3600) as i64,
                            0,
                        )
                        .unwrap(),
                        run: 1,
                        mocks: None,
                        bought_by: format!("eval-item-{item}-{run}"),
                    };
                    batch.push(StoredRun::new(key.clone(), outcome));
                }
            }
        }
        store.insert(&batch, &Origin::Bought).unwrap();
    }
    assert_eq!(store.count().unwrap() as usize, items * per_item);
    suite_keys
}

fn bench_lookup(dir: &Utf8PathBuf) {
    let path = dir.join("big.db");
    let start = Instant::now();
    let keys = build_store(&path);
    let size = std::fs::metadata(&path).unwrap().len() as f64 / 1e6;
    println!(
        "INFO evidence store of {STORE_RUNS} runs built in {:.1} s ({size:.0} MB)",
        start.elapsed().as_secs_f64()
    );

    // A fresh connection, as a new `bob-eval run` would have.
    let store = Store::open(&path).unwrap();
    let start = Instant::now();
    let found = store.lookup(&keys, LOOKUP_N).unwrap();
    let first_ms = start.elapsed().as_secs_f64() * 1e3;
    assert!(found.iter().all(|runs| runs.len() == LOOKUP_N));
    let mut times = vec![];
    for _ in 0..LOOKUP_REPEATS {
        let start = Instant::now();
        let found = store.lookup(&keys, LOOKUP_N).unwrap();
        times.push(start.elapsed().as_secs_f64() * 1e3);
        assert_eq!(found.len(), SUITE_CASES * 2);
    }
    let ms = median(times);
    println!(
        "RESULT evidence_lookup_100cases_1M ms={ms:.2} target<5 {} (median of {LOOKUP_REPEATS}; {} keys x {LOOKUP_N} runs, one query; first lookup on a new connection {first_ms:.2} ms)",
        verdict(ms, 5.0),
        keys.len()
    );
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
    bench_insert(&root);
    bench_lookup(&root);
}
