//! Unit tests of the module.

use super::super::kept::{Evaluation, KeptDecision, RecordProvenance};
use super::super::tests::sample;
use super::super::{Arm, Origin, Provenance, StoredRun};
use super::migrations::{CREATE_RUNS, MIGRATIONS, Migration};
use super::{
    APPLICATION_ID, Added, COLUMN_COUNT, COLUMNS, Kept, SCHEMA_VERSION, Store, lookup_sql,
    pending_dir, time_text,
};
use crate::evidence::Refusal;
use camino::{Utf8Path, Utf8PathBuf};
use chrono::{DateTime, Utc};
use rusqlite::{Connection, params};
use std::time::Duration;

fn temp() -> (tempfile::TempDir, Utf8PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = Utf8PathBuf::from_path_buf(dir.path().join("evidence.db")).unwrap();
    (dir, path)
}

/// `runs` without their provenance, to compare with runs not yet stored.
fn unstamped(runs: impl IntoIterator<Item = StoredRun>) -> Vec<StoredRun> {
    runs.into_iter()
        .map(|r| StoredRun {
            provenance: None,
            ..r
        })
        .collect()
}

/// An evaluation of run `run` made from the runs `used`.
fn evaluation(run: &str, used: Vec<String>) -> Evaluation {
    let mut doc = crate::document::SkillEval::sample(0.8, 0.5);
    doc.run = run.into();
    let options = crate::evidence::EvaluationOptions {
        judge_model: "default".into(),
        platform_version: Some("2.1.328".into()),
        tools: vec!["Bash".into()],
        options: "o".into(),
        runs: "3".into(),
        fresh: false,
        cases: vec!["fires".into()],
    };
    Evaluation::of(&doc, chrono::Utc::now(), false, options, used)
}

fn kinds(runs: &[StoredRun]) -> Vec<&'static str> {
    runs.iter()
        .map(|r| r.provenance.as_ref().map_or("none", Provenance::kind))
        .collect()
}

#[test]
fn columns_are_counted_right() {
    assert_eq!(COLUMNS.split(", ").count(), COLUMN_COUNT);
    assert_eq!(MIGRATIONS.len() as i64, SCHEMA_VERSION);
}

#[test]
fn path_resolution_flag_then_env_then_home() {
    let home = Utf8Path::new("/h");
    let flag = Utf8Path::new("/f.db");
    assert_eq!(Store::resolve_path(Some(flag), Some("/e.db"), home), flag);
    assert_eq!(Store::resolve_path(None, Some("/e.db"), home), "/e.db");
    assert_eq!(Store::resolve_path(None, Some(""), home), "/h/evidence.db");
    assert_eq!(Store::resolve_path(None, None, home), "/h/evidence.db");
}

#[test]
fn new_store_is_wal_and_versioned() {
    let (_t, path) = temp();
    let store = Store::open(&path).unwrap();
    let mode: String = store
        .conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    assert_eq!(store.user_version().unwrap(), SCHEMA_VERSION);
    drop(store);
    // Reopening migrates nothing and keeps the data.
    let store = Store::open(&path).unwrap();
    assert_eq!(store.count().unwrap(), 0);
    store.integrity_check().unwrap();
}

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
fn creates_missing_folders() {
    let (_t, path) = temp();
    let nested = path.parent().unwrap().join("a/b/evidence.db");
    Store::open(&nested).unwrap();
    assert!(nested.is_file());
}

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
fn export_then_import_adds_nothing_new() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let runs = [
        sample("fires", Arm::With, 0, "b"),
        sample("quiet", Arm::Without, 1, "b"),
    ];
    store.insert(&runs, &Origin::Bought).unwrap();
    let mut out = Vec::new();
    assert_eq!(store.export(&[], &mut out, "-".into()).unwrap(), 2);
    let text = String::from_utf8(out.clone()).unwrap();
    assert_eq!(text.lines().count(), 2);

    let other = path.with_file_name("other.db");
    let mut fresh = Store::open(&other).unwrap();
    let report = fresh.import(&out[..], "x.jsonl".into()).unwrap();
    assert_eq!((report.runs, report.added, report.already), (2, 2, 0));
    let report = fresh.import(&out[..], "x.jsonl".into()).unwrap();
    assert_eq!((report.runs, report.added, report.already), (2, 0, 2));
    let mut again = Vec::new();
    fresh.export(&[], &mut again, "-".into()).unwrap();
    assert_eq!(again, out, "export is stable across stores");
    let read = fresh.runs(&[]).unwrap();
    assert_eq!(
        unstamped(read.clone()),
        runs.to_vec(),
        "runs reads what export writes"
    );
    assert!(
        read.iter().all(|r| matches!(
            &r.provenance,
            Some(Provenance::Imported { from, .. }) if from == "x.jsonl"
        )),
        "{read:?}"
    );
    assert!(fresh.runs(&["other".into()]).unwrap().is_empty());
}

#[test]
fn the_first_provenance_of_a_run_stays() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let bought = [sample("fires", Arm::With, 0, "b")];
    let imported = [sample("fires", Arm::With, 1, "b")];
    let collected = [sample("fires", Arm::With, 2, "b")];
    store.insert(&bought, &Origin::Bought).unwrap();
    let shard = Origin::Collected("shard-1".into());
    store
        .insert_all(
            &[
                (Origin::Imported("x.jsonl".into()), &imported[..]),
                (shard.clone(), &collected[..]),
                // Already bought here: an import of it changes nothing.
                (Origin::Imported("x.jsonl".into()), &bought[..]),
            ],
            &[],
            &[],
        )
        .unwrap();
    let runs = store.runs(&[]).unwrap();
    assert_eq!(kinds(&runs), ["bought", "imported", "collected"]);
    let (mut all, mut own) = (Vec::new(), Vec::new());
    assert_eq!(store.export(&[], &mut all, "-".into()).unwrap(), 3);
    assert_eq!(store.export_own(&[], &mut own, "-".into()).unwrap(), 2);
    let own = String::from_utf8(own).unwrap();
    assert!(!own.contains(&imported[0].id), "{own}");
    assert!(!runs[0].is_imported() && runs[1].is_imported() && !runs[2].is_imported());
    let list = store.list(&[]).unwrap();
    assert_eq!(
        list[0].provenance.words(),
        "1 bought, 1 imported, 1 collected"
    );
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
fn import_refuses_future_and_impossible_runs_one_by_one_and_counts_them() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let now = Utc::now();
    let at = |run: &mut StoredRun, t: DateTime<Utc>| {
        run.outcome.started_at = t;
        *run = StoredRun::new(run.key.clone(), run.outcome.clone());
    };
    let good = sample("fires", Arm::With, 0, "b");
    let mut skewed = sample("fires", Arm::With, 1, "b");
    at(&mut skewed, now + chrono::TimeDelta::minutes(4));
    let mut future = sample("fires", Arm::With, 2, "b");
    at(&mut future, "2999-01-01T00:00:00Z".parse().unwrap());
    let mut future2 = sample("quiet", Arm::With, 3, "b");
    at(&mut future2, now + chrono::TimeDelta::minutes(6));
    let mut costly = sample("fires", Arm::Without, 4, "b");
    costly.outcome.cost_usd = 1e308;
    let mut negative = sample("fires", Arm::Without, 5, "b");
    negative.outcome.duration_seconds = -1.0;
    let mut score = sample("fires", Arm::Without, 6, "b");
    score.outcome.score = 1.5;
    let lines: Vec<String> = [
        &good, &future, &skewed, &costly, &future2, &negative, &score,
    ]
    .iter()
    .map(|r| r.to_line())
    .collect();
    let report = store
        .import(lines.join("\n").as_bytes(), "in.jsonl".into())
        .unwrap();
    assert_eq!(
        (report.runs, report.added, report.already, report.refused),
        (7, 2, 0, 5)
    );
    let reasons: Vec<_> = report
        .refusals
        .iter()
        .map(|r| (r.reason, r.runs, r.first_line))
        .collect();
    assert_eq!(
        reasons,
        [
            (Refusal::Future, 2, 2),
            (Refusal::Score, 1, 7),
            (Refusal::Cost, 1, 4),
            (Refusal::Duration, 1, 6),
        ]
    );
    assert!(
        report.refusals[0].example.contains("2999-01-01"),
        "{report:?}"
    );
    assert!(report.refusals[2].example.contains("1e308"), "{report:?}");
    assert_eq!(store.count().unwrap(), 2, "the good and the skewed run");
}

#[test]
fn a_busy_store_sets_bought_runs_aside_and_takes_them_later() {
    let (_t, path) = temp();
    let mut store = Store::open_with_timeout(&path, Duration::from_millis(100)).unwrap();
    store.set_bought_wait(Duration::from_millis(300));
    let holder = Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let runs = [
        sample("fires", Arm::With, 0, "eval-commit-1"),
        sample("fires", Arm::Without, 0, "eval-commit-1"),
    ];
    let mut told = Vec::new();
    let kept = store
        .keep_bought("eval-commit-1", &runs[..1], &mut |w| told.push(w))
        .unwrap();
    let file = pending_dir(&path).join("eval-commit-1.jsonl");
    assert_eq!(kept, Kept::SetAside(file.clone()));
    // A second purchase of the same run is added to its file.
    let kept = store
        .keep_bought("eval-commit-1", &runs[1..], &mut |w| told.push(w))
        .unwrap();
    assert_eq!(kept, Kept::SetAside(file.clone()));
    // The evaluation made from them joins them there.
    let evaluation = evaluation("eval-commit-1", runs.iter().map(|r| r.id.clone()).collect());
    let kept = store
        .keep_evaluation(&evaluation, &mut |w| told.push(w))
        .unwrap();
    assert_eq!(kept, Kept::SetAside(file.clone()));
    assert!(!told.is_empty(), "it said it waited");
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.lines().count(), 4, "3 lines, then the tag: {text}");
    assert!(
        text.lines()
            .last()
            .unwrap()
            .contains(r#""schema":"bob-eval-pending/1","tag":""#)
            || text.lines().last().unwrap().contains(r#""tag":"#),
        "{text}"
    );
    assert_eq!(store.count().unwrap(), 0);
    // Still busy: the file stays, and says why.
    let said = store.import_pending();
    assert!(said[0].contains("not stored yet"), "{said:?}");
    assert!(file.is_file());

    holder.execute_batch("COMMIT").unwrap();
    let said = store.import_pending();
    assert!(said[0].contains("stored the 2 run(s)"), "{said:?}");
    assert!(said[0].ends_with(", and 1 evaluation(s)"), "{said:?}");
    assert!(!file.exists() && !pending_dir(&path).exists());
    let stored = store.runs(&[]).unwrap();
    assert_eq!(kinds(&stored), ["bought", "bought"]);
    assert_eq!(
        store.evaluations(&[]).unwrap(),
        std::slice::from_ref(&evaluation)
    );
    assert_eq!(
        store.keep_evaluation(&evaluation, &mut |_| {}).unwrap(),
        Kept::Stored(0),
        "kept once"
    );
    assert!(store.import_pending().is_empty());
}

#[test]
fn insert_waiting_says_how_long_it_waited() {
    let (_t, path) = temp();
    let mut store = Store::open_with_timeout(&path, Duration::from_millis(100)).unwrap();
    let holder = Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let mut told = Vec::new();
    let runs = [sample("fires", Arm::With, 0, "b")];
    let added = store
        .insert_waiting(
            &runs,
            &Origin::Bought,
            Duration::from_millis(350),
            &mut |w| told.push(w),
        )
        .unwrap();
    assert_eq!(added, None);
    assert!(told.len() >= 2, "told after each 100 ms: {told:?}");
    assert!(told.windows(2).all(|w| w[0] < w[1]), "{told:?}");
    holder.execute_batch("COMMIT").unwrap();
    let added = store
        .insert_waiting(
            &runs,
            &Origin::Bought,
            Duration::from_millis(350),
            &mut |_| {},
        )
        .unwrap();
    assert_eq!(added, Some(1));
}

#[test]
fn a_bad_line_imports_nothing_and_names_its_line() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let good = sample("fires", Arm::With, 0, "b").to_line();
    let text = format!("{good}\n\n{{\"schema\": 1}}\n");
    let err = store
        .import(text.as_bytes(), "runs.jsonl".into())
        .unwrap_err();
    assert_eq!(err.exit_code(), 2);
    assert!(err.to_string().starts_with("runs.jsonl:3: "), "{err}");
    assert_eq!(store.count().unwrap(), 0);
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

#[test]
fn evaluations_and_decisions_round_trip_through_the_store_and_the_export() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let runs = [
        sample("fires", Arm::With, 0, "eval-commit-20261202T094337Z"),
        sample("fires", Arm::Without, 1, "eval-commit-20261202T094337Z"),
    ];
    let doc = crate::document::SkillEval::sample(0.8, 0.5);
    let at = runs[0].outcome.started_at;
    let mut evaluation = evaluation(&doc.run, runs.iter().map(|r| r.id.clone()).collect());
    evaluation.started_at = at;
    let baseline = crate::document::Baseline::empty("commit");
    let decision = KeptDecision::of(
        &doc,
        &crate::gate::decide(&doc, &baseline),
        "#12",
        &["p".into(), "p".into()],
        at,
    );
    assert_eq!(decision.pages, ["p"], "pages once each");
    assert_eq!(decision.mode, "rule");
    let confident = KeptDecision::of(
        &doc,
        &crate::gate::decide_at(&doc, &baseline, Some(0.95)),
        "#12",
        &[],
        at,
    );
    assert_eq!(confident.mode, "confidence:0.95");
    let added = store
        .insert_all(
            &[(Origin::Bought, &runs[..])],
            std::slice::from_ref(&evaluation),
            std::slice::from_ref(&decision),
        )
        .unwrap();
    assert_eq!(
        added,
        Added {
            runs: 2,
            evaluations: 1,
            decisions: 1
        }
    );
    assert_eq!(store.evaluations(&[]).unwrap(), vec![evaluation.clone()]);
    assert_eq!(store.decisions(&[]).unwrap(), vec![decision.clone()]);
    assert!(store.evaluations(&["tidy".into()]).unwrap().is_empty());

    let mut out = Vec::new();
    assert_eq!(store.export(&[], &mut out, "-".into()).unwrap(), 2);
    let text = String::from_utf8(out.clone()).unwrap();
    let kinds: Vec<&str> = text
        .lines()
        .map(|l| {
            if l.contains(r#""kind":"evaluation""#) {
                "evaluation"
            } else if l.contains(r#""kind":"decision""#) {
                "decision"
            } else {
                "run"
            }
        })
        .collect();
    assert_eq!(kinds, ["run", "run", "evaluation", "decision"]);
    let mut own = Vec::new();
    store.export_own(&[], &mut own, "-".into()).unwrap();
    assert_eq!(own, out, "a shard hands its evaluations and decisions on");
    let other = path.with_file_name("other.db");
    let mut fresh = Store::open(&other).unwrap();
    let report = fresh.import(&out[..], "x.jsonl".into()).unwrap();
    assert_eq!(
        (
            report.added,
            report.evaluations_added,
            report.decisions_added
        ),
        (2, 1, 1)
    );
    let again = fresh.import(&out[..], "x.jsonl".into()).unwrap();
    assert_eq!(
        (
            again.already,
            again.evaluations_added,
            again.decisions_added
        ),
        (2, 0, 0),
        "importing twice adds nothing"
    );
    let imported = |p: &mut RecordProvenance| *p = RecordProvenance::Imported;
    let (mut e, mut d) = (evaluation.clone(), decision.clone());
    imported(&mut e.provenance);
    imported(&mut d.provenance);
    assert_eq!(fresh.evaluations(&[]).unwrap(), vec![e], "marked imported");
    assert_eq!(fresh.decisions(&[]).unwrap(), vec![d]);

    // An export of runs only (before kinds) still imports.
    let runs_only: String = text
        .lines()
        .filter(|l| !l.contains(r#""kind":"#))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut third = Store::open(&path.with_file_name("third.db")).unwrap();
    let report = third
        .import(runs_only.as_bytes(), "old.jsonl".into())
        .unwrap();
    assert_eq!((report.added, report.evaluations), (2, 0));
    // A kind of a newer bob-eval is refused with its line.
    let newer = format!(
        "{}\n{{\"schema\":\"bob-eval-evidence/1\",\"kind\":\"verdict\"}}\n",
        text.lines().next().unwrap()
    );
    let err = third
        .import(newer.as_bytes(), "new.jsonl".into())
        .unwrap_err();
    assert!(err.to_string().starts_with("new.jsonl:2: "), "{err}");
    assert!(err.to_string().contains("verdict"), "{err}");
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

/// A decision's place in its item's sequence is kept, exported and imported
/// with it; one without (the bare rule, or kept before) reads back as none.
#[test]
fn a_decision_s_sequence_round_trips_through_the_store_and_the_export() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let doc = crate::document::SkillEval::sample(0.8, 0.5);
    let baseline = crate::document::Baseline::empty("commit");
    let sequence = crate::stats::sequence::Sequence::next(0.05, None);
    let decided = crate::gate::decide_in_sequence(
        &doc,
        &baseline,
        false,
        crate::gate::Mode::Confidence(0.95),
        None,
        Some(sequence),
    );
    let at = chrono::Utc::now() - chrono::Duration::seconds(5);
    let held = KeptDecision::of(&doc, &decided, "#13", &[], at);
    assert_eq!(held.sequence, Some(sequence));
    assert_eq!(
        held.mode, "confidence:0.95",
        "the mode's level, not the held one"
    );
    // Recorded a second later: the store reads decisions back in time order.
    let later = at + chrono::Duration::seconds(1);
    let bare = KeptDecision::of(
        &doc,
        &crate::gate::decide(&doc, &baseline),
        "#14",
        &[],
        later,
    );
    store
        .insert_decisions(&[held.clone(), bare.clone()])
        .unwrap();
    assert_eq!(store.decisions(&[]).unwrap(), vec![held.clone(), bare]);
    let line = crate::evidence::kept::decision_line(&held);
    assert!(line.contains(r#""sequence":{"proposal":1"#), "{line}");
    let mut out = Vec::new();
    store.export(&[], &mut out, "-".into()).unwrap();
    let mut other = Store::open(&path.with_file_name("other.db")).unwrap();
    other.import(&out[..], "x.jsonl".into()).unwrap();
    assert_eq!(other.decisions(&[]).unwrap()[0].sequence, Some(sequence));
}

#[test]
fn stored_without_arm_runs_are_compared_again_by_a_later_evaluation_buying_their_case_with_arm() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let without = [
        sample("fires", Arm::Without, 0, "eval-commit-1"),
        sample("fires", Arm::Without, 1, "eval-commit-1"),
    ];
    let first_with = sample("fires", Arm::With, 2, "eval-commit-1");
    let quiet_with = sample("quiet", Arm::With, 3, "eval-commit-2");
    let new_with = sample("fires", Arm::With, 4, "eval-commit-3");
    let all = [
        &without[..],
        &[first_with.clone(), quiet_with.clone(), new_with.clone()],
    ]
    .concat();
    store.insert(&all, &Origin::Bought).unwrap();
    let ids = |runs: &[&StoredRun]| runs.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
    let keep = |store: &mut Store, run: &str, used: Vec<String>| {
        store
            .keep_evaluation(&evaluation(run, used), &mut |_| {})
            .unwrap();
    };
    assert!(
        !store.compared_again(&without).unwrap(),
        "nothing used them"
    );
    assert!(!store.compared_again(&[]).unwrap());
    // Their buyer's evaluation, and a repeat of it buying nothing, compare nothing anew.
    keep(
        &mut store,
        "eval-commit-1",
        ids(&[&without[0], &without[1], &first_with]),
    );
    keep(
        &mut store,
        "eval-commit-r",
        ids(&[&without[0], &without[1], &first_with]),
    );
    assert!(!store.compared_again(&without).unwrap());
    // Nor does an evaluation that bought another case's with arm beside them.
    keep(
        &mut store,
        "eval-commit-2",
        ids(&[&without[1], &quiet_with]),
    );
    assert!(!store.compared_again(&without).unwrap());
    // One that bought their case's with arm does, for the runs it used.
    keep(&mut store, "eval-commit-3", ids(&[&without[1], &new_with]));
    assert!(store.compared_again(&without).unwrap());
    assert!(
        !store.compared_again(&without[..1]).unwrap(),
        "the other was not used"
    );
}
