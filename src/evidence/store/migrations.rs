//! The store's schema, step by step: `MIGRATIONS[v]` takes it from version `v` to `v + 1`, each step self-contained.

use super::super::{Arm, RunKey, StoredRun};
use chrono::{DateTime, Utc};
use rusqlite::params;

/// One step of the schema: SQL, or a function for what SQL cannot compute
/// (the key digests).
pub(super) enum Migration {
    Sql(&'static str),
    Step(fn(&rusqlite::Transaction<'_>) -> rusqlite::Result<()>),
}

/// `MIGRATIONS[v]` takes the schema from version `v` to `v + 1`.
pub(super) const MIGRATIONS: &[Migration] = &[
    Migration::Sql(CREATE_RUNS),
    Migration::Sql(ADD_PROVENANCE),
    Migration::Sql(MARKED_RUNS_NEVER_COUNT),
    Migration::Step(without_arm_has_no_item),
    Migration::Step(evaluations_and_decisions),
    Migration::Step(store_key_and_record_provenance),
    Migration::Step(mock_counts),
    Migration::Step(decision_sequence),
    // Step 9 (transcripts): its own block at the end of this file.
    Migration::Step(transcripts),
];

/// Schema 1: the runs.
pub(super) const CREATE_RUNS: &str = r#"
CREATE TABLE runs (
    id                   TEXT    NOT NULL PRIMARY KEY,
    key_id               TEXT    NOT NULL,
    item                 TEXT    NOT NULL,
    item_digest          TEXT    NOT NULL,
    case_name            TEXT    NOT NULL,
    case_digest          TEXT    NOT NULL,
    arm                  TEXT    NOT NULL CHECK (arm IN ('with', 'without')),
    model                TEXT    NOT NULL,
    judge_model          TEXT    NOT NULL,
    platform_version     TEXT    NOT NULL,
    tools                TEXT    NOT NULL,
    options              TEXT    NOT NULL,
    score                REAL    NOT NULL,
    passed               INTEGER NOT NULL,
    graders              TEXT    NOT NULL,
    cost_usd             REAL    NOT NULL,
    judge_cost_usd       REAL    NOT NULL,
    duration_seconds     REAL    NOT NULL,
    turns                INTEGER NOT NULL,
    error                TEXT,
    skipped_paid_graders INTEGER NOT NULL,
    started_at           TEXT    NOT NULL,
    run                  INTEGER NOT NULL,
    bought_by            TEXT    NOT NULL,
    usable               INTEGER NOT NULL
);
CREATE INDEX runs_by_key ON runs (key_id, usable, started_at DESC, run DESC, id DESC);
CREATE INDEX runs_by_item ON runs (item, case_name, arm, model);
"#;

/// Where each run came from ([`Provenance`]): `bought`, `imported`,
/// `collected`, or `legacy` for the runs stored before (counted as bought
/// here); `provenance_from` the run id, file or shard folder, `provenance_at`
/// when it was stored (both NULL for `legacy`). A legacy run dated more than
/// [`super::MAX_CLOCK_SKEW`] in the future can only have come from an import
/// that did not check dates: it is kept but never reused (it would shadow
/// every genuine run as the most recent). Self-contained: it only changes `runs`.
pub(super) const ADD_PROVENANCE: &str = r#"
ALTER TABLE runs ADD COLUMN provenance TEXT NOT NULL DEFAULT 'legacy'
    CHECK (provenance IN ('bought', 'imported', 'collected', 'legacy'));
ALTER TABLE runs ADD COLUMN provenance_from TEXT;
ALTER TABLE runs ADD COLUMN provenance_at TEXT;
UPDATE runs SET usable = 0
    WHERE started_at > strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '+5 minutes');
"#;

/// Version 2 → 3: a run the platform marked with an error never counts, even
/// when it was graded (versions 1 and 2 kept graded errored runs usable).
pub(super) const MARKED_RUNS_NEVER_COUNT: &str =
    "UPDATE runs SET usable = 0 WHERE error IS NOT NULL;";

/// Version 3 → 4: a without-arm run is keyed with no item digest
/// ([`RunKey::normalized`]). Every without-arm row written before is
/// re-keyed: its item digest cleared, its `key_id` and `id` recomputed (a row
/// whose new id is already stored is the same platform run: it is dropped).
pub(super) fn without_arm_has_no_item(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let mut read = tx.prepare(
        "SELECT id, item, case_name, case_digest, model, judge_model, platform_version, \
         tools, options, started_at, run FROM runs WHERE arm = 'without' AND item_digest <> ''",
    )?;
    let mut moves = Vec::new();
    let mut rows = read.query([])?;
    while let Some(row) = rows.next()? {
        let text = |i: usize| row.get::<_, String>(i);
        let tools: Vec<String> = serde_json::from_str(&text(7)?).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(7, rusqlite::types::Type::Text, e.into())
        })?;
        let key = RunKey {
            item: text(1)?,
            item_digest: String::new(),
            case: text(2)?,
            case_digest: text(3)?,
            arm: Arm::Without,
            model: text(4)?,
            judge_model: text(5)?,
            platform_version: text(6)?,
            tools,
            options: text(8)?,
        }
        .normalized();
        let started = DateTime::parse_from_rfc3339(&text(9)?)
            .map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(9, rusqlite::types::Type::Text, e.into())
            })?
            .with_timezone(&Utc);
        let run: u32 = row.get(10)?;
        let id = StoredRun::id_of(&key, &started, run);
        moves.push((text(0)?, id, key.id()));
    }
    drop(rows);
    drop(read);
    for (old, new, key_id) in moves {
        let moved = tx.execute(
            "UPDATE OR IGNORE runs SET id = ?2, key_id = ?3, item_digest = '' WHERE id = ?1",
            params![old, new, key_id],
        )?;
        if moved == 0 {
            tx.execute("DELETE FROM runs WHERE id = ?1", params![old])?;
        }
    }
    Ok(())
}

/// Version 4 → 5: the evaluations (a document's numbers and the runs it
/// used, [`Evaluation`]) and the gate's recorded decisions
/// ([`KeptDecision`]). Older stores gain empty tables; `IF NOT EXISTS`, so
/// a store whose version was set back keeps what it holds.
pub(super) fn evaluations_and_decisions(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute_batch(
        r#"
CREATE TABLE IF NOT EXISTS evaluations (
    run             TEXT    NOT NULL PRIMARY KEY,
    item            TEXT    NOT NULL,
    model           TEXT    NOT NULL,
    date            TEXT    NOT NULL,
    started_at      TEXT    NOT NULL,
    options         TEXT    NOT NULL,
    filtered        INTEGER NOT NULL,
    partial         INTEGER NOT NULL,
    partial_reason  TEXT,
    with_score      REAL    NOT NULL,
    without_score   REAL    NOT NULL,
    delta           REAL    NOT NULL,
    trigger_rate    REAL,
    cost_usd        REAL    NOT NULL,
    reused_cost_usd REAL    NOT NULL,
    suite_digest    TEXT,
    stats           TEXT
);
CREATE INDEX IF NOT EXISTS evaluations_by_item ON evaluations (item, model, started_at);
CREATE TABLE IF NOT EXISTS evaluation_runs (
    evaluation TEXT    NOT NULL,
    position   INTEGER NOT NULL,
    run_id     TEXT    NOT NULL,
    PRIMARY KEY (evaluation, position)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS evaluation_runs_by_run ON evaluation_runs (run_id);
CREATE TABLE IF NOT EXISTS decisions (
    id          TEXT    NOT NULL PRIMARY KEY,
    run         TEXT    NOT NULL,
    item        TEXT    NOT NULL,
    model       TEXT    NOT NULL,
    date        TEXT    NOT NULL,
    mode        TEXT    NOT NULL,
    rule        TEXT    NOT NULL,
    outcome     TEXT    NOT NULL CHECK (outcome IN ('accepted', 'rejected')),
    pr          TEXT    NOT NULL,
    pages       TEXT    NOT NULL,
    before      REAL,
    after       REAL    NOT NULL,
    best_after  REAL,
    recorded_at TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS decisions_by_item ON decisions (item, recorded_at);
"#,
    )
}

/// Version 5 → 6: the store's own secret (32 random bytes from SQLite's
/// generator, seeded by the operating system), with which every file set
/// aside in `<store>.pending/` is tagged ([`super::pending_tag`]): only a
/// file carrying its tag is stored as bought here. And where each kept
/// evaluation and decision came from: `here` (recorded by this store's
/// commands), `imported` (`evidence import`) or `collected` (a shard);
/// those kept before are `legacy`, counted as recorded here, as legacy runs
/// are. An imported one never displaces one recorded here. Each part only
/// when missing, so a store whose version was set back keeps what it holds.
pub(super) fn store_key_and_record_provenance(
    tx: &rusqlite::Transaction<'_>,
) -> rusqlite::Result<()> {
    tx.execute_batch(
        r#"
CREATE TABLE IF NOT EXISTS store_key (
    id  INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
    key BLOB    NOT NULL CHECK (length(key) = 32)
);
INSERT OR IGNORE INTO store_key (id, key) VALUES (1, randomblob(32));
"#,
    )?;
    for table in ["evaluations", "decisions"] {
        let has: bool = tx.query_row(
            "SELECT count(*) > 0 FROM pragma_table_info(?1) WHERE name = 'provenance'",
            [table],
            |r| r.get(0),
        )?;
        if !has {
            tx.execute_batch(&format!(
                "ALTER TABLE {table} ADD COLUMN provenance TEXT NOT NULL DEFAULT 'legacy' \
                 CHECK (provenance IN ('here', 'imported', 'collected', 'legacy'));"
            ))?;
        }
    }
    Ok(())
}

/// Version 6 → 7: each run's MCP stand-in counts (`mocks`, JSON; NULL for a
/// run that called none, and for every run stored before). Only when
/// missing, so a store whose version was set back keeps what it holds.
pub(super) fn mock_counts(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let has: bool = tx.query_row(
        "SELECT count(*) > 0 FROM pragma_table_info('runs') WHERE name = 'mocks'",
        [],
        |r| r.get(0),
    )?;
    if !has {
        tx.execute_batch("ALTER TABLE runs ADD COLUMN mocks TEXT;")?;
    }
    Ok(())
}

/// Version 7 → 8: each recorded decision's place in its item's sequence and
/// the level it was held to (`sequence`, JSON of
/// [`crate::stats::sequence::Sequence`]; NULL for the bare rule and for every
/// decision stored before). Only when missing, so a store whose version was
/// set back keeps what it holds.
pub(super) fn decision_sequence(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let has: bool = tx.query_row(
        "SELECT count(*) > 0 FROM pragma_table_info('decisions') WHERE name = 'sequence'",
        [],
        |r| r.get(0),
    )?;
    if !has {
        tx.execute_batch("ALTER TABLE decisions ADD COLUMN sequence TEXT;")?;
    }
    Ok(())
}

// ---- Step 9: transcripts (issue 36) ---------------------------------------

/// Version 8 → 9: the transcripts. Only when missing, so a store whose
/// version was set back keeps what it holds.
pub(super) fn transcripts(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute_batch(
        r#"
CREATE TABLE IF NOT EXISTS transcript_blobs (
    digest TEXT    NOT NULL PRIMARY KEY,
    bytes  INTEGER NOT NULL,
    data   BLOB    NOT NULL
);
CREATE TABLE IF NOT EXISTS run_transcripts (
    run_id  TEXT NOT NULL PRIMARY KEY,
    digest  TEXT NOT NULL,
    prompt  TEXT,
    answer  TEXT,
    kept_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS run_transcripts_by_digest ON run_transcripts (digest);
"#,
    )
}
