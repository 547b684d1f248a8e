//! Unit tests of the store's doors: what may enter it (import, collect, the
//! files set aside) and the read-only open.

use super::super::kept::{Evaluation, KeptDecision, RecordProvenance};
use super::super::tests::sample;
use super::super::{Arm, Origin, StoredRun};
use super::exchange::read_export;
use super::tests::temp;
use super::{SCHEMA_VERSION, Store, pending_dir};
use crate::wiki::Outcome;
use chrono::Utc;
use std::time::Duration;

/// An evaluation of run `run` of commit, started now.
fn evaluation(run: &str) -> Evaluation {
    let mut doc = crate::document::SkillEval::sample(0.8, 0.5);
    doc.run = run.into();
    doc.date = Utc::now().format("%Y-%m-%d").to_string();
    let options = crate::evidence::EvaluationOptions {
        judge_model: "default".into(),
        platform_version: Some("2.1.328".into()),
        tools: vec![],
        options: "o".into(),
        runs: "3".into(),
        fresh: false,
        cases: vec!["fires".into()],
    };
    Evaluation::of(&doc, Utc::now(), false, options, vec![])
}

/// [`evaluation`] of its own run, with `stats`.
fn evaluation_with(stats: crate::document::Stats) -> Evaluation {
    let mut e = evaluation("eval-commit-8");
    e.stats = Some(stats);
    e
}

/// A document's intervals, every one at 0.95.
fn stats() -> crate::document::Stats {
    let estimate = |v: f64| crate::stats::Estimate {
        value: v,
        interval: crate::stats::Interval {
            low: (v - 0.1).max(-1.0),
            high: (v + 0.1).min(1.0),
            confidence: 0.95,
            method: crate::stats::Method::Score,
        },
    };
    crate::document::Stats {
        confidence: 0.95,
        suite: crate::stats::SuiteStats {
            with: estimate(0.8),
            without: estimate(0.5),
            delta: estimate(0.3),
            advisory: crate::stats::advise(&estimate(0.3), 0.0, 3.0),
            runs_per_arm: 3.0,
        },
        trigger: None,
        auto: None,
        min_effect: None,
    }
}

/// A decision on `run`, recorded now.
fn decision(run: &str, outcome: Outcome) -> KeptDecision {
    KeptDecision {
        run: run.into(),
        item: "commit".into(),
        model: "claude-sonnet-5-5".into(),
        date: Utc::now().format("%Y-%m-%d").to_string(),
        mode: crate::evidence::MODE_RULE.into(),
        rule: vec![],
        outcome,
        pr: "#1".into(),
        pages: vec![],
        before: Some(0.5),
        after: 0.8,
        best_after: Some(0.8),
        sequence: None,
        recorded_at: Utc::now(),
        provenance: RecordProvenance::Here,
    }
}

#[test]
fn hmac_sha256_matches_rfc_4231() {
    // Test cases 1 and 2 of RFC 4231.
    let tag = super::exchange::hmac_for_tests(&[0x0b; 20], b"Hi There");
    assert_eq!(
        tag,
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    );
    let tag = super::exchange::hmac_for_tests(b"Jefe", b"what do ya want for nothing?");
    assert_eq!(
        tag,
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    );
}

#[test]
fn every_store_has_its_own_key() {
    let (_t, a) = temp();
    let b = a.with_file_name("b.db");
    let (a, b) = (Store::open(&a).unwrap(), Store::open(&b).unwrap());
    let (ka, kb) = (a.key().unwrap(), b.key().unwrap());
    assert_eq!(ka.len(), 32);
    assert_ne!(ka, kb);
    assert_eq!(ka, Store::open(a.path()).unwrap().key().unwrap(), "kept");
}

#[test]
fn only_files_this_store_set_aside_are_stored_as_bought() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let runs = [sample("fires", Arm::With, 0, "eval-commit-1")];
    let ours = store.set_aside("eval-commit-1", &runs).unwrap();
    let dir = pending_dir(&path);
    // Forged: a plain export (no tag), a copy with a line added, a file
    // tagged by another store, and a run dated 2999 under a made-up tag.
    let forged_run = {
        let mut r = sample("quiet", Arm::With, 0, "eval-commit-2");
        r.outcome.started_at = "2999-01-01T00:00:00Z".parse().unwrap();
        StoredRun::new(r.key, r.outcome)
    };
    std::fs::write(dir.join("plain.jsonl"), forged_run.to_line() + "\n").unwrap();
    let ours_text = std::fs::read_to_string(&ours).unwrap();
    let (body, tag) = ours_text.trim_end().rsplit_once('\n').unwrap();
    std::fs::write(
        dir.join("edited.jsonl"),
        format!("{body}\n{}\n{tag}\n", forged_run.to_line()),
    )
    .unwrap();
    let other = Store::open(&path.with_file_name("other.db")).unwrap();
    let theirs = other.set_aside("eval-commit-3", std::slice::from_ref(&forged_run));
    let theirs = theirs.unwrap();
    std::fs::rename(&theirs, dir.join("theirs.jsonl")).unwrap();
    let said = store.import_pending();
    let refused: Vec<&String> = said.iter().filter(|s| s.starts_with("refused ")).collect();
    assert_eq!(refused.len(), 3, "{said:#?}");
    for name in ["plain.jsonl", "edited.jsonl", "theirs.jsonl"] {
        assert!(
            refused
                .iter()
                .any(|s| s.contains(name) && s.contains("left in place")),
            "{name}: {said:#?}"
        );
        assert!(dir.join(name).is_file(), "{name} is left in place");
    }
    assert!(
        said.iter().any(|s| s.contains("stored the 1 run(s)")),
        "{said:#?}"
    );
    assert!(!ours.exists(), "ours is stored, then removed");
    let stored = store.runs(&[]).unwrap();
    assert_eq!(stored.len(), 1, "only the run set aside here");
    assert_eq!(stored[0].id, runs[0].id);
}

#[test]
fn a_tagged_file_is_still_held_to_the_checks() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let mut run = sample("fires", Arm::With, 0, "eval-commit-1");
    run.outcome.started_at = "2999-01-01T00:00:00Z".parse().unwrap();
    let run = StoredRun::new(run.key, run.outcome);
    let file = store.set_aside("eval-commit-1", &[run]).unwrap();
    let said = store.import_pending();
    assert!(said[0].contains("not stored yet"), "{said:?}");
    assert!(said[0].contains("in the future"), "{said:?}");
    assert!(file.is_file());
    assert_eq!(store.count().unwrap(), 0);
}

#[test]
fn nothing_set_aside_can_block_or_exhaust_a_writer() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let dir = pending_dir(&path);
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo.jsonl");
    let c = std::ffi::CString::new(fifo.as_str()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.jsonl")).unwrap();
    let huge = std::fs::File::create(dir.join("huge.jsonl")).unwrap();
    huge.set_len(crate::config::MAX_INPUT_FILE + 1).unwrap();
    let started = std::time::Instant::now();
    let said = store.import_pending();
    assert_eq!(said.len(), 3, "{said:#?}");
    assert!(said.iter().all(|s| s.starts_with("refused ")), "{said:#?}");
    assert!(
        said[0].contains("fifo.jsonl") && said[0].contains("FIFO"),
        "{said:#?}"
    );
    assert!(said[1].contains("huge.jsonl"), "{said:#?}");
    assert!(said[2].contains("zero.jsonl"), "{said:#?}");
    assert!(started.elapsed() < Duration::from_secs(30), "never blocked");
    // Setting aside beside them still works, into a file of its own.
    let runs = [sample("fires", Arm::With, 0, "fifo")];
    let file = store.set_aside("fifo", &runs).unwrap();
    assert_eq!(file, dir.join("fifo-2.jsonl"));
}

#[test]
fn every_door_refuses_a_line_dated_in_the_future_or_out_of_range() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let mut future = evaluation("eval-commit-20991231T000000Z");
    future.date = "2999-01-01".into();
    let mut rate = evaluation("eval-commit-1");
    rate.trigger_rate = Some(2.0);
    let mut day = evaluation("eval-commit-2");
    day.date = "yesterday".into();
    let mut confidence = evaluation("eval-commit-3");
    confidence.stats = Some(crate::document::Stats {
        confidence: 1.5,
        ..stats()
    });
    let mut late = decision("eval-commit-4", Outcome::Accepted);
    late.recorded_at = "2999-01-01T00:00:00Z".parse().unwrap();
    for (e, why) in [
        (&future, "in the future"),
        (&rate, "trigger_rate 2"),
        (&day, "not a date"),
    ] {
        let err = store
            .insert_all(&[], std::slice::from_ref(e), &[])
            .unwrap_err();
        assert!(err.to_string().contains(why), "{err}");
    }
    let err = store
        .insert_all(&[], std::slice::from_ref(&confidence), &[])
        .unwrap_err();
    assert!(err.to_string().contains("stats.confidence 1.5"), "{err}");
    let mut interval = evaluation("eval-commit-7");
    let mut bad = stats();
    bad.suite.delta.interval.confidence = 1.5;
    interval.stats = Some(bad);
    store
        .insert_all(&[], std::slice::from_ref(&evaluation_with(stats())), &[])
        .unwrap();
    let err = store
        .insert_all(&[], std::slice::from_ref(&interval), &[])
        .unwrap_err();
    assert!(err.to_string().contains("delta's confidence 1.5"), "{err}");
    let err = store
        .insert_decisions(std::slice::from_ref(&late))
        .unwrap_err();
    assert!(err.to_string().contains("recorded_at"), "{err}");
    // Import refuses each alone, naming its line, and stores the rest.
    let good = decision("eval-commit-5", Outcome::Rejected);
    let text = [
        crate::evidence::kept::evaluation_line(&rate),
        crate::evidence::kept::decision_line(&late),
        crate::evidence::kept::decision_line(&good),
    ]
    .join("\n");
    let report = store.import(text.as_bytes(), "x.jsonl".into()).unwrap();
    assert_eq!(report.records_refused.len(), 2, "{report:?}");
    assert_eq!(report.records_refused[0].line, 1);
    assert_eq!(report.records_refused[1].kind, "decision");
    assert_eq!(report.decisions_added, 1);
    // A shard's file (collect) is refused whole, naming the line.
    let mut run = sample("fires", Arm::With, 0, "eval-commit-6");
    run.outcome.started_at = "2999-01-01T00:00:00Z".parse().unwrap();
    let run = StoredRun::new(run.key, run.outcome);
    let err = read_export(run.to_line().as_bytes(), "runs.jsonl".into()).unwrap_err();
    assert!(err.to_string().contains("runs.jsonl:1"), "{err}");
    assert!(err.to_string().contains("in the future"), "{err}");
    let err = store.insert(&[run], &Origin::Bought).unwrap_err();
    assert!(err.to_string().contains("in the future"), "{err}");
}

#[test]
fn an_imported_record_never_displaces_one_recorded_here() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let ours = decision("eval-commit-1", Outcome::Rejected);
    store.insert_decisions(std::slice::from_ref(&ours)).unwrap();
    let mut theirs = decision("eval-commit-1", Outcome::Accepted);
    theirs.recorded_at = ours.recorded_at + chrono::TimeDelta::seconds(1);
    let mut e = evaluation("eval-commit-1");
    e.with = 0.1;
    e.delta = -0.4;
    let line = [
        crate::evidence::kept::evaluation_line(&e),
        crate::evidence::kept::decision_line(&theirs),
    ]
    .join("\n");
    store.import(line.as_bytes(), "x.jsonl".into()).unwrap();
    let decisions = store.decisions(&[]).unwrap();
    assert_eq!(decisions.len(), 2);
    assert_eq!(decisions[1].provenance, RecordProvenance::Imported);
    // Our own evaluation of the same run displaces the imported one.
    let mine = evaluation("eval-commit-1");
    store
        .insert_all(&[], std::slice::from_ref(&mine), &[])
        .unwrap();
    let kept = store.evaluations(&[]).unwrap();
    assert_eq!(kept, vec![mine.clone()], "ours, not the import");
    // And an import never displaces ours.
    store.import(line.as_bytes(), "x.jsonl".into()).unwrap();
    assert_eq!(store.evaluations(&[]).unwrap(), vec![mine]);
}

#[test]
fn bad_lines_kept_by_an_earlier_version_are_named_and_left_out() {
    let (_t, path) = temp();
    let mut store = Store::open(&path).unwrap();
    let good = evaluation("eval-commit-1");
    let other = evaluation("eval-commit-2");
    store
        .insert_all(
            &[],
            &[good.clone(), other],
            &[decision("eval-commit-1", Outcome::Accepted)],
        )
        .unwrap();
    store
        .conn
        .execute_batch(
            "UPDATE evaluations SET trigger_rate = 2.0 WHERE run = 'eval-commit-2'; \
             UPDATE decisions SET recorded_at = '2999-01-01T00:00:00.000000000Z';",
        )
        .unwrap();
    store
        .insert(&[sample("fires", Arm::With, 0, "b")], &Origin::Bought)
        .unwrap();
    store
        .conn
        .execute_batch("UPDATE runs SET started_at = 'yesterday';")
        .unwrap();
    let (records, bad) = store.kept_records(&[]).unwrap();
    assert_eq!(records.evaluations, vec![good]);
    assert!(records.decisions.is_empty());
    assert!(records.runs.is_empty());
    assert_eq!(bad.len(), 3, "{bad:#?}");
    assert!(
        bad[0].contains("run ") && bad[0].contains("\"yesterday\""),
        "{bad:#?}"
    );
    assert!(bad[1].contains("evaluation eval-commit-2") && bad[1].contains("trigger_rate 2"));
    assert!(bad[2].contains("decision on eval-commit-1") && bad[2].contains("recorded_at"));
}

#[test]
fn a_read_only_open_never_writes_and_reads_an_older_store_as_it_is() {
    let (_t, path) = temp();
    {
        let mut store = Store::open(&path).unwrap();
        store
            .insert(&[sample("fires", Arm::With, 0, "b")], &Origin::Bought)
            .unwrap();
        // As version 4 left it: no evaluations, decisions nor key.
        store
            .conn
            .execute_batch(
                "DROP TABLE evaluations; DROP TABLE evaluation_runs; DROP TABLE decisions; \
                 DROP TABLE store_key; PRAGMA user_version = 4; PRAGMA journal_mode = DELETE;",
            )
            .unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let store = Store::open_read_only(&path).unwrap();
    assert_eq!(store.count().unwrap(), 1);
    assert!(store.evaluations(&[]).unwrap().is_empty());
    let (records, bad) = store.kept_records(&[]).unwrap();
    assert_eq!((records.runs.len(), bad.len()), (1, 0));
    let mut store = store;
    let err = store
        .insert(&[sample("quiet", Arm::With, 0, "b")], &Origin::Bought)
        .unwrap_err();
    assert!(err.to_string().contains("read"), "{err}");
    drop(store);
    assert_eq!(std::fs::read(&path).unwrap(), before, "byte for byte");
    let version: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, 4, "not migrated");
    // A newer one is refused, saying so.
    rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    let err = Store::open_read_only(&path).unwrap_err().to_string();
    assert!(err.contains("newer bob-eval"), "{err}");
}
