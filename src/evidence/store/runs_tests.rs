//! Unit tests of the runs in the store: insert, lookup, listing, past
//! costs, and what a run keeps.

use super::super::tests::sample;
use super::super::{Arm, Origin, Provenance, StoredRun};
use super::tests::{temp, unstamped};
use super::{Store, lookup_sql};
use camino::Utf8PathBuf;
use rusqlite::params;

#[test]
fn insert_is_idempotent_and_round_trips() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let runs = vec![
        sample("fires", Arm::With, 0, "b1"),
        sample("fires", Arm::Without, 0, "b1"),
    ];
    assert_eq!(store.insert(&runs, &Origin::Bought).unwrap(), 2);
    assert_eq!(store.insert(&runs, &Origin::Bought).unwrap(), 0);
    let keys = [runs[1].key.clone(), runs[0].key.clone()];
    let found = store.lookup(&keys, 3).unwrap();
    assert_eq!(
        found.iter().cloned().map(unstamped).collect::<Vec<_>>(),
        vec![vec![runs[1].clone()], vec![runs[0].clone()]]
    );
    assert!(matches!(
        &found[0][0].provenance,
        Some(Provenance::Bought { run, .. }) if run == "b1"
    ));
}

#[test]
fn insert_refuses_a_forged_id_and_stores_nothing() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let good = sample("fires", Arm::With, 0, "b");
    let mut bad = sample("fires", Arm::With, 1, "b");
    bad.id = "0".repeat(64);
    let err = store.insert(&[good, bad], &Origin::Bought).unwrap_err();
    assert_eq!(err.exit_code(), 2, "{err}");
    assert_eq!(store.count().unwrap(), 0);
}

#[test]
fn lookup_returns_the_most_recent_n_usable_per_key() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let mut runs: Vec<StoredRun> = (0..5).map(|s| sample("fires", Arm::With, s, "b")).collect();
    let mut failed = sample("fires", Arm::With, 10, "b");
    failed.outcome.error = Some("api error".into());
    failed.outcome.graders.clear();
    failed = StoredRun::new(failed.key, failed.outcome);
    runs.push(failed);
    runs.push(sample("quiet", Arm::With, 0, "b"));
    store.insert(&runs, &Origin::Bought).unwrap();
    let missing = sample("other", Arm::Without, 0, "b").key;
    let found = store
        .lookup(&[runs[0].key.clone(), missing, runs[6].key.clone()], 3)
        .unwrap();
    let starts: Vec<_> = found[0].iter().map(|r| r.outcome.started_at).collect();
    assert_eq!(
        starts,
        [4, 3, 2].map(|s| runs[s].outcome.started_at).to_vec(),
        "the newest three, the failed run not counted"
    );
    assert!(found[1].is_empty());
    assert_eq!(unstamped(found[2].clone()), vec![runs[6].clone()]);
    assert_eq!(
        store.lookup(&[runs[0].key.clone()], 0).unwrap(),
        vec![vec![]]
    );
}

#[test]
fn lookup_is_one_indexed_query() {
    let (_t, path) = temp();
    let store = Store::open(&path).unwrap();
    let plan: Vec<String> = store
        .conn
        .prepare(&format!("EXPLAIN QUERY PLAN {}", lookup_sql()))
        .unwrap()
        .query_map(params!["[\"k\"]", 3], |r| r.get(3))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let plan = plan.join("\n");
    // Per wanted key: a covering index search, then each run by rowid; the
    // only sort is of the few rows found, never a scan of the runs.
    assert!(
        plan.contains("COVERING INDEX runs_by_key (key_id=? AND usable=?)"),
        "{plan}"
    );
    assert!(
        plan.contains("SEARCH r USING INTEGER PRIMARY KEY"),
        "{plan}"
    );
    assert!(
        !plan.contains("SCAN r") && !plan.contains("SCAN runs"),
        "{plan}"
    );
}

#[test]
fn list_groups_by_item_case_arm_model() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let runs = [
        sample("fires", Arm::With, 0, "b"),
        sample("fires", Arm::With, 9, "b"),
        sample("fires", Arm::Without, 0, "b"),
    ];
    store.insert(&runs, &Origin::Bought).unwrap();
    let list = store.list(&[]).unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!((list[0].arm, list[0].runs, list[0].keys), (Arm::With, 2, 1));
    assert_eq!(list[0].first, runs[0].outcome.started_at);
    assert_eq!(list[0].last, runs[1].outcome.started_at);
    assert!((list[0].cost_usd - 0.06).abs() < 1e-9);
    assert_eq!(list[0].provenance.words(), "2 bought");
    assert!(store.list(&["other".into()]).unwrap().is_empty());
    assert_eq!(store.list(&["commit".into()]).unwrap().len(), 2);
}

#[test]
fn last_version_and_past_costs() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.last_platform_version("commit").unwrap(), None);
    let mut newer = sample("fires", Arm::With, 9, "b");
    newer.key.platform_version = "2.1.400".into();
    let newer = StoredRun::new(newer.key, newer.outcome);
    store
        .insert(
            &[
                sample("fires", Arm::With, 0, "b"),
                newer,
                sample("quiet", Arm::Without, 1, "b"),
            ],
            &Origin::Bought,
        )
        .unwrap();
    assert_eq!(
        store.last_platform_version("commit").unwrap().as_deref(),
        Some("2.1.400")
    );
    let costs = store.past_costs("commit", "claude-sonnet-5-5").unwrap();
    let (usd, n) = costs.cases[&("fires".to_string(), Arm::With)];
    assert_eq!(n, 2);
    assert!((usd - 0.06).abs() < 1e-9);
    assert_eq!(costs.model.1, 3);
    assert!(
        store
            .past_costs("commit", "haiku")
            .unwrap()
            .cases
            .is_empty()
    );
}

/// A run's MCP stand-in counts are kept with it, and a run that met a
/// missing server is kept but never reused.
#[test]
fn mock_counts_are_kept_and_a_run_that_met_a_missing_server_is_not_reused() {
    use crate::platform::result::{MockCounts, UnmockedTool};
    let dir = tempfile::tempdir().unwrap();
    let path = Utf8PathBuf::from_path_buf(dir.path().join("e.db")).unwrap();
    let mut store = Store::open(&path).unwrap();
    let mut served = sample("fires", Arm::With, 0, "b");
    served.outcome.mocks = Some(MockCounts {
        calls: 3,
        errors: 0,
        unmocked: vec![],
    });
    let mut missing = sample("fires", Arm::With, 1, "b");
    missing.outcome.mocks = Some(MockCounts {
        calls: 1,
        errors: 0,
        unmocked: vec![UnmockedTool {
            tool: "mcp__tracker__close".into(),
            count: 1,
        }],
    });
    let runs = [
        StoredRun::new(served.key.clone(), served.outcome.clone()),
        StoredRun::new(missing.key.clone(), missing.outcome.clone()),
    ];
    store.insert(&runs, &Origin::Bought).unwrap();
    let found = store.lookup(std::slice::from_ref(&runs[0].key), 5).unwrap();
    assert_eq!(found[0].len(), 1, "only the run that met no missing server");
    assert_eq!(found[0][0].outcome.mocks, served.outcome.mocks);
    let all = store.runs(&[]).unwrap();
    let kept = all.iter().find(|r| r.id == runs[1].id).unwrap();
    assert_eq!(kept.outcome.mocks, missing.outcome.mocks);
}
