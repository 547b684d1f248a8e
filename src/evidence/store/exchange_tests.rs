//! Unit tests of the store's exchange with files: export and import,
//! provenance, refused lines, and the runs set aside while the store is busy.

use super::super::tests::sample;
use super::super::{Arm, Origin, Provenance, StoredRun};
use super::tests::{evaluation, kinds, temp, unstamped};
use super::{Kept, Store, pending_dir};
use crate::evidence::Refusal;
use chrono::{DateTime, Utc};
use rusqlite::Connection;
use std::time::Duration;

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
