//! Unit tests of the store's migrations: each older schema opened now,
//! its runs kept and rekeyed as the steps say.

use super::super::tests::sample;
use super::super::{Arm, Origin, Provenance, StoredRun};
use super::migrations::{CREATE_RUNS, MIGRATIONS, Migration};
use super::tests::{temp, unstamped};
use super::{APPLICATION_ID, COLUMNS, SCHEMA_VERSION, Store, time_text};
use rusqlite::{Connection, params};

/// A store of schema 1 held graded errored runs as usable; opened now, they
/// are never returned.
#[test]
fn version_2_errored_runs_stop_counting() {
    let (_t, path) = temp();
    let mut errored = sample("fires", Arm::With, 0, "b");
    errored.outcome.error = Some("exit 1: API Error: Connection dropped (ECONNRESET)".into());
    let errored = StoredRun::new(errored.key, errored.outcome);
    {
        let mut store = Store::open(&path).unwrap();
        store
            .insert(std::slice::from_ref(&errored), &Origin::Bought)
            .unwrap();
        // As version 2 wrote it (provenance kept, errored runs usable).
        store
            .conn
            .execute_batch("UPDATE runs SET usable = 1; PRAGMA user_version = 2;")
            .unwrap();
        let found = store.lookup(std::slice::from_ref(&errored.key), 3).unwrap();
        assert_eq!(found[0].len(), 1, "version 2 counted it");
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(store.user_version().unwrap(), SCHEMA_VERSION);
    let found = store.lookup(std::slice::from_ref(&errored.key), 3).unwrap();
    assert!(found[0].is_empty(), "an errored run is never reused");
    assert_eq!(store.count().unwrap(), 1, "it is kept for the record");
}

#[test]
fn an_old_store_migrates_its_runs_as_legacy() {
    let (_t, path) = temp();
    let run = sample("fires", Arm::With, 0, "eval-commit-old");
    let mut forged = sample("fires", Arm::With, 0, "eval-commit-old");
    forged.outcome.started_at = "2999-01-01T00:00:00Z".parse().unwrap();
    let forged = StoredRun::new(forged.key, forged.outcome);
    // A store as schema 1 wrote it, holding a run dated 2999 (its import was not checked).
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(CREATE_RUNS).unwrap();
    for run in [&run, &forged] {
        let (k, o) = (&run.key, &run.outcome);
        conn.execute(
            "INSERT INTO runs (id, key_id, item, item_digest, case_name, case_digest, arm, \
             model, judge_model, platform_version, tools, options, score, passed, graders, \
             cost_usd, judge_cost_usd, duration_seconds, turns, error, skipped_paid_graders, \
             started_at, run, bought_by, usable) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, \
             ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, 1)",
            params![
                run.id,
                k.id(),
                k.item,
                k.item_digest,
                k.case,
                k.case_digest,
                "with",
                k.model,
                k.judge_model,
                k.platform_version,
                serde_json::to_string(&k.tools).unwrap(),
                k.options,
                o.score,
                o.passed,
                serde_json::to_string(&o.graders).unwrap(),
                o.cost_usd,
                o.judge_cost_usd,
                o.duration_seconds,
                o.turns,
                o.error,
                o.skipped_paid_graders,
                time_text(&o.started_at),
                o.run,
                o.bought_by,
            ],
        )
        .unwrap();
    }
    conn.pragma_update(None, "application_id", APPLICATION_ID)
        .unwrap();
    conn.pragma_update(None, "user_version", 1).unwrap();
    drop(conn);
    let store = Store::open(&path).unwrap();
    assert_eq!(store.user_version().unwrap(), SCHEMA_VERSION);
    let found = store.lookup(std::slice::from_ref(&run.key), 3).unwrap();
    assert_eq!(found[0][0].provenance, Some(Provenance::Legacy));
    assert!(
        !found[0][0].is_imported(),
        "legacy runs count as bought here"
    );
    assert_eq!(
        unstamped(found[0].clone()),
        vec![run],
        "the run dated 2999 is kept but not reused"
    );
    assert_eq!(store.list(&[]).unwrap()[0].provenance.legacy, 2);
    store.integrity_check().unwrap();
}

#[test]
fn step_4_rekeys_the_without_arm_of_an_older_store() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let with = sample("fires", Arm::With, 0, "b");
    let without = sample("fires", Arm::Without, 0, "b");
    store
        .insert(&[with.clone(), without.clone()], &Origin::Bought)
        .unwrap();
    // Make it what schema 3 wrote: the without row keyed with the item digest,
    // and the same platform run stored once more under another item digest.
    let old = |digest: &str| {
        let mut key = without.key.clone();
        key.item_digest = digest.into();
        (StoredRun::compute_id(&key, &without.outcome), key.id())
    };
    let (old_id, old_key) = old(&"i".repeat(64));
    store
        .conn
        .execute(
            "UPDATE runs SET id = ?1, key_id = ?2, item_digest = ?3 WHERE id = ?4",
            params![old_id, old_key, "i".repeat(64), without.id],
        )
        .unwrap();
    let (twin_id, twin_key) = old(&"j".repeat(64));
    store
        .conn
        .execute(
            &format!(
                "INSERT INTO runs ({COLUMNS}, key_id, usable) SELECT ?1, item, ?3, case_name, \
                 case_digest, arm, model, judge_model, platform_version, tools, options, score, \
                 passed, graders, cost_usd, judge_cost_usd, duration_seconds, turns, error, \
                 skipped_paid_graders, started_at, run, bought_by, provenance, provenance_from, \
                 provenance_at, mocks, ?2, usable FROM runs WHERE id = ?4"
            ),
            params![twin_id, twin_key, "j".repeat(64), old_id],
        )
        .unwrap();
    store.conn.pragma_update(None, "user_version", 3).unwrap();
    drop(store);

    let store = Store::open(&path).unwrap();
    assert_eq!(store.user_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(
        store.count().unwrap(),
        2,
        "the twin is the same platform run"
    );
    let found: Vec<Vec<StoredRun>> = store
        .lookup(&[with.key.clone(), without.key.clone()], 3)
        .unwrap()
        .into_iter()
        .map(|runs| {
            runs.into_iter()
                .map(|r| StoredRun {
                    provenance: None,
                    ..r
                })
                .collect()
        })
        .collect();
    assert_eq!(found, vec![vec![with.clone()], vec![without.clone()]]);
    store.integrity_check().unwrap();
}

#[test]
fn a_version_4_store_gains_evaluations_and_decisions_and_keeps_its_runs() {
    let (_t, path) = temp();
    let runs = [sample("fires", Arm::With, 0, "b")];
    {
        let mut conn = Connection::open(&path).unwrap();
        let tx = conn.transaction().unwrap();
        for step in &MIGRATIONS[..4] {
            match step {
                Migration::Sql(sql) => tx.execute_batch(sql),
                Migration::Step(step) => step(&tx),
            }
            .unwrap();
        }
        tx.pragma_update(None, "application_id", APPLICATION_ID)
            .unwrap();
        tx.pragma_update(None, "user_version", 4).unwrap();
        tx.commit().unwrap();
    }
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.user_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(SCHEMA_VERSION, 9);
    store.insert(&runs, &Origin::Bought).unwrap();
    assert!(store.evaluations(&[]).unwrap().is_empty());
    assert!(store.decisions(&[]).unwrap().is_empty());
    assert_eq!(unstamped(store.runs(&[]).unwrap()), runs.to_vec());
}
