//! Unit tests of the store: opening it (path, folders, WAL, version), and
//! the helpers the other `*_tests.rs` files of the store share.

use super::super::kept::Evaluation;
use super::super::{Provenance, StoredRun};
use super::migrations::MIGRATIONS;
use super::{COLUMN_COUNT, COLUMNS, SCHEMA_VERSION, Store};
use camino::{Utf8Path, Utf8PathBuf};

pub(super) fn temp() -> (tempfile::TempDir, Utf8PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = Utf8PathBuf::from_path_buf(dir.path().join("evidence.db")).unwrap();
    (dir, path)
}

/// `runs` without their provenance, to compare with runs not yet stored.
pub(super) fn unstamped(runs: impl IntoIterator<Item = StoredRun>) -> Vec<StoredRun> {
    runs.into_iter()
        .map(|r| StoredRun {
            provenance: None,
            ..r
        })
        .collect()
}

/// An evaluation of run `run` made from the runs `used`.
pub(super) fn evaluation(run: &str, used: Vec<String>) -> Evaluation {
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

pub(super) fn kinds(runs: &[StoredRun]) -> Vec<&'static str> {
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

#[test]
fn creates_missing_folders() {
    let (_t, path) = temp();
    let nested = path.parent().unwrap().join("a/b/evidence.db");
    Store::open(&nested).unwrap();
    assert!(nested.is_file());
}
