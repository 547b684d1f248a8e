//! The SQLite file behind the evidence store.
//!
//! WAL mode, a busy timeout, `synchronous = FULL` (a committed run survives a
//! crash of the process or the machine), a versioned schema migrated by
//! `user_version`, and one transaction per write: a writer killed half-way
//! leaves the store as it was before its transaction.

use super::{
    Arm, EXPORT_SCHEMA, GraderOutcome, ImportReport, ListEntry, Origin, Provenance,
    ProvenanceCounts, Refused, RunKey, RunOutcome, StoredRun,
};
use crate::error::{Error, Location, Result};
use camino::{Utf8Path, Utf8PathBuf};
use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::{Connection, ErrorCode, OpenFlags, Row, TransactionBehavior, params};
use std::io::{BufRead, Write};
use std::time::Duration;

/// The schema version this bob-eval writes (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i64 = 4;

/// How long a write waits for another writer before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// How long [`Store::keep_bought`] waits in all for another writer before
/// setting paid runs aside ([`Store::set_bought_wait`] changes it).
pub const BOUGHT_WAIT: Duration = Duration::from_secs(120);

/// What became of runs just bought ([`Store::keep_bought`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    /// Stored; how many were new.
    Stored(usize),
    /// The store stayed busy: kept in this side file until the next
    /// [`Store::import_pending`].
    SetAside(Utf8PathBuf),
}

/// `PRAGMA application_id`: "bobe", marks the file as an evidence store.
const APPLICATION_ID: i64 = 0x626f_6265;

/// One step of the schema: SQL, or a function for what SQL cannot compute
/// (the key digests).
enum Migration {
    Sql(&'static str),
    Step(fn(&rusqlite::Transaction<'_>) -> rusqlite::Result<()>),
}

/// `MIGRATIONS[v]` takes the schema from version `v` to `v + 1`.
const MIGRATIONS: &[Migration] = &[
    Migration::Sql(CREATE_RUNS),
    Migration::Sql(ADD_PROVENANCE),
    Migration::Sql(MARKED_RUNS_NEVER_COUNT),
    Migration::Step(without_arm_has_no_item),
];

/// Schema 1: the runs.
const CREATE_RUNS: &str = r#"
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
const ADD_PROVENANCE: &str = r#"
ALTER TABLE runs ADD COLUMN provenance TEXT NOT NULL DEFAULT 'legacy'
    CHECK (provenance IN ('bought', 'imported', 'collected', 'legacy'));
ALTER TABLE runs ADD COLUMN provenance_from TEXT;
ALTER TABLE runs ADD COLUMN provenance_at TEXT;
UPDATE runs SET usable = 0
    WHERE started_at > strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '+5 minutes');
"#;

/// Version 2 → 3: a run the platform marked with an error never counts, even
/// when it was graded (versions 1 and 2 kept graded errored runs usable).
const MARKED_RUNS_NEVER_COUNT: &str = "UPDATE runs SET usable = 0 WHERE error IS NOT NULL;";

/// Version 3 → 4: a without-arm run is keyed with no item digest
/// ([`RunKey::normalized`]). Every without-arm row written before is
/// re-keyed: its item digest cleared, its `key_id` and `id` recomputed (a row
/// whose new id is already stored is the same platform run: it is dropped).
fn without_arm_has_no_item(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
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

/// Every column of a run, in the order [`run_from_row`] reads them.
const COLUMNS: &str = "id, item, item_digest, case_name, case_digest, arm, model, judge_model, \
    platform_version, tools, options, score, passed, graders, cost_usd, judge_cost_usd, \
    duration_seconds, turns, error, skipped_paid_graders, started_at, run, bought_by, \
    provenance, provenance_from, provenance_at";

/// How many columns [`COLUMNS`] names: the query of [`Store::lookup`] adds one after them.
const COLUMN_COUNT: usize = 26;

/// The side folder of a store at `path`: `<path>.pending/`, where bought runs
/// wait (one `<run-id>.jsonl` export per bob-eval run) when the store stayed
/// busy ([`Store::insert_waiting`]), until [`Store::import_pending`].
pub fn pending_dir(path: &Utf8Path) -> Utf8PathBuf {
    Utf8PathBuf::from(format!("{path}.pending"))
}

/// Refuse, before SQLite opens it (and writes a `-journal` beside it), a
/// path that is empty, a folder, or a FIFO, socket or device: a store is a
/// regular file, or nothing yet.
fn refuse_unusual(path: &Utf8Path) -> Result<()> {
    let refuse = |what: &str| Error::Store {
        path: path.to_owned(),
        message: format!(
            "{what}, not a regular file: give --evidence (or $BOB_EVIDENCE) the path of a store file, or of a new one"
        ),
    };
    if path.as_str().is_empty() {
        return Err(Error::Usage(
            "the evidence store's path is empty: give --evidence a file path".into(),
        ));
    }
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(refuse("is a folder")),
        Ok(meta) => match crate::fsio::unusual_kind(meta.file_type()) {
            Some(kind) => Err(refuse(&format!("is {kind}"))),
            None => Ok(()),
        },
        Err(_) => Ok(()),
    }
}

/// An open evidence store.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: Utf8PathBuf,
    busy_timeout: Duration,
    bought_wait: Duration,
}

impl Store {
    /// The store's file: `flag` (`--evidence`), else `$BOB_EVIDENCE` when set
    /// and not empty, else `<home>/evidence.db`.
    pub fn default_path(flag: Option<&Utf8Path>, home: &Utf8Path) -> Utf8PathBuf {
        let env = std::env::var("BOB_EVIDENCE").ok();
        Store::resolve_path(flag, env.as_deref(), home)
    }

    /// [`Store::default_path`] with the environment value given.
    pub fn resolve_path(
        flag: Option<&Utf8Path>,
        env: Option<&str>,
        home: &Utf8Path,
    ) -> Utf8PathBuf {
        match (flag, env.filter(|v| !v.is_empty())) {
            (Some(flag), _) => flag.to_owned(),
            (None, Some(env)) => Utf8PathBuf::from(env),
            (None, None) => home.join("evidence.db"),
        }
    }

    /// Open (or create, with its folder) the store at `path`, migrating an
    /// older schema; refuses a newer schema, a file that is not an evidence
    /// store, and a read-only one.
    pub fn open(path: &Utf8Path) -> Result<Store> {
        Store::open_with_timeout(path, BUSY_TIMEOUT)
    }

    /// [`Store::open`] waiting at most `busy_timeout` for other writers.
    pub fn open_with_timeout(path: &Utf8Path, busy_timeout: Duration) -> Result<Store> {
        refuse_unusual(path)?;
        if let Some(parent) = path.parent().filter(|p| !p.as_str().is_empty())
            && !parent.is_dir()
        {
            std::fs::create_dir_all(parent).map_err(|e| Error::Store {
                path: path.to_owned(),
                message: format!("cannot create its folder {parent}: {e}"),
            })?;
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let fault = |e| fault(path, busy_timeout, "opening", e);
        let conn = Connection::open_with_flags(path, flags).map_err(fault)?;
        let mut store = Store {
            conn,
            path: path.to_owned(),
            busy_timeout,
            bought_wait: BOUGHT_WAIT,
        };
        store.conn.busy_timeout(busy_timeout).map_err(fault)?;
        if store.conn.is_readonly("main").map_err(fault)? {
            return Err(store.error(
                "is read-only: bob-eval must write it and the `-wal` and `-shm` files beside it; fix the permissions of the file and its folder, or choose another store with --evidence PATH or $BOB_EVIDENCE",
            ));
        }
        store.check_identity()?;
        let mode: String = store
            .conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(|e| store.fault("switching to WAL", e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(store.error(format!(
                "cannot use write-ahead logging (journal mode stays {mode:?}): is it on a network or read-only file system?"
            )));
        }
        store
            .conn
            .pragma_update(None, "synchronous", "FULL")
            .map_err(|e| store.fault("setting synchronous", e))?;
        store.migrate()?;
        Ok(store)
    }

    /// The file this store lives in.
    pub fn path(&self) -> &Utf8Path {
        &self.path
    }

    fn error(&self, message: impl Into<String>) -> Error {
        Error::Store {
            path: self.path.clone(),
            message: message.into(),
        }
    }

    fn fault(&self, doing: &str, e: rusqlite::Error) -> Error {
        fault(&self.path, self.busy_timeout, doing, e)
    }

    /// The schema version in the file (0 for a new file).
    fn user_version(&self) -> Result<i64> {
        self.conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(|e| self.fault("reading the schema version", e))
    }

    /// Refuse a newer schema and a SQLite file that is not an evidence store.
    fn check_identity(&self) -> Result<()> {
        // One statement, so one snapshot: another process creating the store
        // at the same moment is seen wholly or not at all.
        let (version, app, tables): (i64, i64, i64) = self
            .conn
            .query_row(
                "SELECT (SELECT user_version FROM pragma_user_version), \
                        (SELECT application_id FROM pragma_application_id), \
                        (SELECT count(*) FROM sqlite_master)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .map_err(|e| self.fault("reading the schema version", e))?;
        if version > SCHEMA_VERSION {
            return Err(self.error(format!(
                "was written by a newer bob-eval (schema {version}; this one reads up to {SCHEMA_VERSION}): upgrade bob-eval, or choose another store with --evidence PATH or $BOB_EVIDENCE"
            )));
        }
        if app != APPLICATION_ID && (app != 0 || version != 0 || tables != 0) {
            return Err(self.error(
                "is a SQLite database but not a bob-eval evidence store: choose another file with --evidence PATH or $BOB_EVIDENCE",
            ));
        }
        Ok(())
    }

    /// Bring the schema to [`SCHEMA_VERSION`], one transaction for all steps.
    fn migrate(&mut self) -> Result<()> {
        if self.user_version()? == SCHEMA_VERSION {
            return Ok(());
        }
        let (path, timeout) = (self.path.clone(), self.busy_timeout);
        let fault = |e| fault(&path, timeout, "upgrading the schema", e);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(fault)?;
        // Another process may have migrated while this one waited for the lock.
        let version: i64 = tx
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(fault)?;
        for step in MIGRATIONS.iter().skip(version.max(0) as usize) {
            match step {
                Migration::Sql(sql) => tx.execute_batch(sql),
                Migration::Step(step) => step(&tx),
            }
            .map_err(fault)?;
        }
        tx.pragma_update(None, "application_id", APPLICATION_ID)
            .map_err(fault)?;
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)
            .map_err(fault)?;
        tx.commit().map_err(fault)
    }

    /// Store `runs` arriving from `origin` in one transaction (all or none);
    /// returns how many were new. A run already stored (same id) is left as
    /// it was, provenance included.
    pub fn insert(&mut self, runs: &[StoredRun], origin: &Origin) -> Result<usize> {
        self.insert_batches(&[(origin.clone(), runs)])
    }

    /// [`Store::insert`] of several batches, each with its origin, in one transaction.
    /// Keys are normalized first ([`RunKey::normalized`]: a without-arm run
    /// carries no item digest).
    pub fn insert_batches(&mut self, batches: &[(Origin, &[StoredRun])]) -> Result<usize> {
        let normalized: Vec<(Origin, Vec<StoredRun>)> = batches
            .iter()
            .map(|(origin, runs)| {
                let runs = runs
                    .iter()
                    .map(|r| StoredRun {
                        key: r.key.clone().normalized(),
                        ..r.clone()
                    })
                    .collect();
                (origin.clone(), runs)
            })
            .collect();
        let batches: Vec<(Origin, &[StoredRun])> = normalized
            .iter()
            .map(|(origin, runs)| (origin.clone(), runs.as_slice()))
            .collect();
        self.check_runs(batches.iter().flat_map(|(_, runs)| runs.iter()))?;
        self.write_runs(&batches)
            .map_err(|e| self.fault("storing runs", e))
    }

    /// How long [`Store::keep_bought`] waits for another writer.
    pub fn bought_wait(&self) -> Duration {
        self.bought_wait
    }

    /// Set how long [`Store::keep_bought`] waits for another writer.
    pub fn set_bought_wait(&mut self, wait: Duration) {
        self.bought_wait = wait;
    }

    /// Keep runs just bought by run `run_id`: stored, waiting for another
    /// writer up to the bought wait ([`BOUGHT_WAIT`]; `on_busy(waited)` told
    /// as it waits); when the store is still busy, set aside beside it
    /// ([`Store::set_aside`]) rather than lost.
    pub fn keep_bought(
        &mut self,
        run_id: &str,
        runs: &[StoredRun],
        on_busy: &mut dyn FnMut(Duration),
    ) -> Result<Kept> {
        match self.insert_waiting(runs, &Origin::Bought, self.bought_wait, on_busy)? {
            Some(added) => Ok(Kept::Stored(added)),
            None => Ok(Kept::SetAside(self.set_aside(run_id, runs)?)),
        }
    }

    /// [`Store::insert`], waiting up to `wait` in all for another writer,
    /// `on_busy(waited)` told after each busy timeout of it (each quarter of
    /// a wait shorter than four).
    /// `Ok(None)` when the store is still busy after `wait`: nothing was stored.
    pub fn insert_waiting(
        &mut self,
        runs: &[StoredRun],
        origin: &Origin,
        wait: Duration,
        on_busy: &mut dyn FnMut(Duration),
    ) -> Result<Option<usize>> {
        self.check_runs(runs.iter())?;
        let batches = [(origin.clone(), runs)];
        // Told every busy timeout, or four times in a shorter wait.
        let step = self
            .busy_timeout
            .min(wait / 4)
            .max(Duration::from_millis(10));
        let start = std::time::Instant::now();
        let result = loop {
            let left = wait.saturating_sub(start.elapsed());
            self.set_wait(left.min(step))?;
            match self.write_runs(&batches) {
                Ok(added) => break Ok(Some(added)),
                Err(e) if is_busy(&e) => {
                    if start.elapsed() >= wait {
                        break Ok(None);
                    }
                    on_busy(start.elapsed());
                }
                Err(e) => break Err(self.fault("storing runs", e)),
            }
        };
        self.set_wait(self.busy_timeout)?;
        result
    }

    fn set_wait(&self, wait: Duration) -> Result<()> {
        self.conn
            .busy_timeout(wait)
            .map_err(|e| self.fault("setting the busy timeout", e))
    }

    /// Refuse the whole batch when one run's id or values are wrong.
    fn check_runs<'r>(&self, runs: impl Iterator<Item = &'r StoredRun>) -> Result<()> {
        for run in runs {
            let id = StoredRun::compute_id(&run.key, &run.outcome);
            let problem = if id != run.id {
                Some(format!("its id is not {id}"))
            } else {
                run.outcome.problem()
            };
            if let Some(problem) = problem {
                return Err(Error::invalid(
                    &self.path,
                    format!(
                        "refused run {} (case `{}`, {} arm): {problem}; nothing was stored",
                        run.id,
                        run.key.case,
                        run.key.arm.as_str()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The one writer of runs: one immediate transaction for every batch.
    fn write_runs(&mut self, batches: &[(Origin, &[StoredRun])]) -> rusqlite::Result<usize> {
        let now = Utc::now();
        let at = time_text(&now);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut added = 0;
        {
            let mut stmt = tx.prepare_cached(&format!(
                "INSERT OR IGNORE INTO runs ({COLUMNS}, key_id, usable) VALUES \
                 (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, \
                  ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28)"
            ))?;
            for (origin, runs) in batches {
                for run in *runs {
                    let (k, o) = (&run.key, &run.outcome);
                    let tools = serde_json::to_string(&k.tools).expect("strings serialize");
                    let graders = serde_json::to_string(&o.graders).expect("graders serialize");
                    let provenance = origin.provenance(o, now);
                    let from = match &provenance {
                        Provenance::Bought { run, .. } => Some(run.clone()),
                        Provenance::Imported { from, .. } | Provenance::Collected { from, .. } => {
                            Some(from.clone())
                        }
                        Provenance::Legacy => None,
                    };
                    added += stmt.execute(params![
                        run.id,
                        k.item,
                        k.item_digest,
                        k.case,
                        k.case_digest,
                        k.arm.as_str(),
                        k.model,
                        k.judge_model,
                        k.platform_version,
                        tools,
                        k.options,
                        o.score,
                        o.passed,
                        graders,
                        o.cost_usd,
                        o.judge_cost_usd,
                        o.duration_seconds,
                        o.turns,
                        o.error,
                        o.skipped_paid_graders,
                        time_text(&o.started_at),
                        o.run,
                        o.bought_by,
                        provenance.kind(),
                        from,
                        at,
                        k.id(),
                        o.usable(),
                    ])?;
                }
            }
        }
        tx.commit()?;
        Ok(added)
    }

    /// For each key, its most recent `per_key` usable runs (see
    /// [`RunOutcome::usable`]), newest first; one query for all keys.
    pub fn lookup(&self, keys: &[RunKey], per_key: usize) -> Result<Vec<Vec<StoredRun>>> {
        let mut found = vec![Vec::new(); keys.len()];
        if keys.is_empty() || per_key == 0 {
            return Ok(found);
        }
        let ids: Vec<String> = keys.iter().map(RunKey::id).collect();
        let ids = serde_json::to_string(&ids).expect("strings serialize");
        let sql = lookup_sql();
        let fault = |e| self.fault("looking up runs", e);
        let mut stmt = self.conn.prepare_cached(&sql).map_err(fault)?;
        let limit = i64::try_from(per_key).unwrap_or(i64::MAX);
        let mut rows = stmt.query(params![ids, limit]).map_err(fault)?;
        while let Some(row) = rows.next().map_err(fault)? {
            let pos: i64 = row.get(COLUMN_COUNT).map_err(fault)?;
            let run = self.run_from_row(row)?;
            found[pos as usize].push(run);
        }
        Ok(found)
    }

    /// Runs per item, case, arm and model (every item when `items` is empty).
    pub fn list(&self, items: &[String]) -> Result<Vec<ListEntry>> {
        let fault = |e| self.fault("listing runs", e);
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT item, case_name, arm, model, count(*), count(DISTINCT key_id), \
                 min(started_at), max(started_at), total(cost_usd), \
                 total(provenance = 'bought'), total(provenance = 'imported'), \
                 total(provenance = 'collected'), total(provenance = 'legacy') FROM runs \
                 WHERE ?1 IS NULL OR item IN (SELECT value FROM json_each(?1)) \
                 GROUP BY item, case_name, arm, model ORDER BY item, case_name, arm, model",
            )
            .map_err(fault)?;
        let mut rows = stmt.query([items_filter(items)]).map_err(fault)?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(fault)? {
            let arm: String = row.get(2).map_err(fault)?;
            out.push(ListEntry {
                item: row.get(0).map_err(fault)?,
                case: row.get(1).map_err(fault)?,
                arm: self.arm(&arm)?,
                model: row.get(3).map_err(fault)?,
                runs: row.get::<_, i64>(4).map_err(fault)? as u64,
                keys: row.get::<_, i64>(5).map_err(fault)? as u64,
                first: self.time(&row.get::<_, String>(6).map_err(fault)?)?,
                last: self.time(&row.get::<_, String>(7).map_err(fault)?)?,
                cost_usd: crate::document::round4(crate::document::sum_usd([row
                    .get::<_, f64>(8)
                    .map_err(fault)?])),
                provenance: ProvenanceCounts {
                    bought: row.get::<_, f64>(9).map_err(fault)? as u64,
                    imported: row.get::<_, f64>(10).map_err(fault)? as u64,
                    collected: row.get::<_, f64>(11).map_err(fault)? as u64,
                    legacy: row.get::<_, f64>(12).map_err(fault)? as u64,
                },
            });
        }
        Ok(out)
    }

    /// Write the runs of `items` (all when empty) to `out` as JSON Lines, in a
    /// stable order; `name` names `out` in errors. Returns how many.
    pub fn export(&self, items: &[String], out: impl Write, name: &Utf8Path) -> Result<usize> {
        self.export_where(items, out, name, |_| true)
    }

    /// [`Store::export`] of the runs not imported from a file: what a shard
    /// hands to `collect`, which trusts its runs (an imported run passed on
    /// that way would come out trusted).
    pub fn export_own(&self, items: &[String], out: impl Write, name: &Utf8Path) -> Result<usize> {
        self.export_where(items, out, name, |run| !run.is_imported())
    }

    fn export_where(
        &self,
        items: &[String],
        out: impl Write,
        name: &Utf8Path,
        keep: fn(&StoredRun) -> bool,
    ) -> Result<usize> {
        let mut out = std::io::BufWriter::new(out);
        let mut count = 0;
        self.each_run(items, "exporting runs", |run| {
            if !keep(&run) {
                return Ok(());
            }
            count += 1;
            writeln!(out, "{}", run.to_line()).map_err(|e| Error::io(name, "writing the export", e))
        })?;
        out.flush()
            .map_err(|e| Error::io(name, "writing the export", e))?;
        Ok(count)
    }

    /// Every run of `items` (all when empty), usable or not, in the export's order.
    pub fn runs(&self, items: &[String]) -> Result<Vec<StoredRun>> {
        let mut runs = Vec::new();
        self.each_run(items, "reading runs", |run| {
            runs.push(run);
            Ok(())
        })?;
        Ok(runs)
    }

    /// Call `f` on each run of `items` (all when empty), ordered by item, case,
    /// arm, model, start, position and id; `doing` names the work in errors.
    fn each_run(
        &self,
        items: &[String],
        doing: &str,
        mut f: impl FnMut(StoredRun) -> Result<()>,
    ) -> Result<()> {
        let fault = |e| self.fault(doing, e);
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM runs \
                 WHERE ?1 IS NULL OR item IN (SELECT value FROM json_each(?1)) \
                 ORDER BY item, case_name, arm, model, started_at, run, id"
            ))
            .map_err(fault)?;
        let mut rows = stmt.query([items_filter(items)]).map_err(fault)?;
        while let Some(row) = rows.next().map_err(fault)? {
            f(self.run_from_row(row)?)?;
        }
        Ok(())
    }

    /// Import the JSON Lines at `path` (see the module docs): a line that
    /// does not read refuses the whole file (with its line number, nothing
    /// stored); a run dated in the future or with impossible values is
    /// refused alone and counted ([`ImportReport::refusals`]). The runs
    /// stored are marked imported from `path`.
    pub fn import_file(&mut self, path: &Utf8Path) -> Result<ImportReport> {
        let bytes = crate::fsio::read(path, crate::config::MAX_INPUT_FILE)
            .map_err(|e| Error::unreadable(path, e))?;
        self.import(&bytes[..], path)
    }

    /// [`Store::import_file`] from `reader`; `path` names it in errors and in
    /// the runs' provenance. Blank lines are skipped; a run already stored is
    /// counted in `already` (and keeps its provenance).
    pub fn import(&mut self, reader: impl BufRead, path: &Utf8Path) -> Result<ImportReport> {
        let lines = read_lines(reader, path, StoredRun::parse_line)?;
        let now = Utc::now();
        let total = lines.len();
        let mut refusals: Vec<Refused> = Vec::new();
        let mut runs = Vec::with_capacity(total);
        for (line, run) in lines {
            let Some((reason, why)) = run.outcome.refusal_at(now) else {
                runs.push(run);
                continue;
            };
            match refusals.iter_mut().find(|r| r.reason == reason) {
                Some(r) => r.runs += 1,
                None => refusals.push(Refused {
                    reason,
                    runs: 1,
                    first_line: line,
                    example: why,
                }),
            }
        }
        refusals.sort_by_key(|r| r.reason);
        let added = self.insert(&runs, &Origin::Imported(path.to_owned()))?;
        Ok(ImportReport {
            runs: total,
            added,
            already: runs.len() - added,
            refused: total - runs.len(),
            refusals,
        })
    }

    /// Keep `runs`, bought by run `run_id`, beside the store while it is busy:
    /// appended to `<store>.pending/<run_id>.jsonl` (written whole, atomically),
    /// imported as bought here by the next [`Store::import_pending`]. Returns the file.
    pub fn set_aside(&self, run_id: &str, runs: &[StoredRun]) -> Result<Utf8PathBuf> {
        let dir = pending_dir(&self.path);
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, "creating", e))?;
        let file = dir.join(format!("{run_id}.jsonl"));
        let mut text = match std::fs::read(&file) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(Error::unreadable(&file, e)),
        };
        for run in runs {
            text.extend_from_slice(run.to_line().as_bytes());
            text.push(b'\n');
        }
        crate::fsio::write_atomically(&file, &text)?;
        Ok(file)
    }

    /// Import every file [`Store::set_aside`] left in `<store>.pending/` (as
    /// bought here: they were), removing each once stored; say what happened
    /// in one sentence per file. A file that does not read, or a store still
    /// busy, leaves the file for next time (said too); neither is an error.
    pub fn import_pending(&mut self) -> Vec<String> {
        let dir = pending_dir(&self.path);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Vec::new();
        };
        let mut files: Vec<Utf8PathBuf> = entries
            .filter_map(|e| Utf8PathBuf::from_path_buf(e.ok()?.path()).ok())
            .filter(|p| {
                p.extension() == Some("jsonl") && !p.file_name().is_some_and(|n| n.starts_with('.'))
            })
            .collect();
        files.sort();
        let mut said = Vec::new();
        for file in files {
            let runs = std::fs::File::open(&file)
                .map_err(|e| Error::unreadable(&file, e))
                .and_then(|f| read_export(std::io::BufReader::new(f), &file));
            let stored = runs.and_then(|runs| {
                let added = self.insert(&runs, &Origin::Bought)?;
                Ok((runs.len(), added))
            });
            match stored {
                Ok((runs, added)) => {
                    match std::fs::remove_file(&file) {
                        Ok(()) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                        Err(e) => said.push(format!(
                            "could not remove {file} once its runs were stored: {e}"
                        )),
                    }
                    said.push(format!(
                        "stored the {runs} run(s) kept aside in {file} while the evidence store was busy ({added} new)"
                    ));
                }
                Err(e) => said.push(format!(
                    "the runs kept aside in {file} are not stored yet ({e}); they stay there for next time"
                )),
            }
        }
        let _ = std::fs::remove_dir(&dir);
        said
    }

    /// The platform version of `item`'s most recent run, if any is stored
    /// (what `--dry-run` assumes the platform still is).
    pub fn last_platform_version(&self, item: &str) -> Result<Option<String>> {
        let fault = |e| self.fault("reading the last platform version", e);
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT platform_version FROM runs WHERE item = ?1 \
                 ORDER BY started_at DESC, run DESC LIMIT 1",
            )
            .map_err(fault)?;
        let mut rows = stmt.query([item]).map_err(fault)?;
        match rows.next().map_err(fault)? {
            Some(row) => Ok(Some(row.get(0).map_err(fault)?)),
            None => Ok(None),
        }
    }

    /// What usable runs on `model` have cost, for estimates: per case and arm
    /// of `item`, and over every item (total dollars and runs).
    pub fn past_costs(&self, item: &str, model: &str) -> Result<PastCosts> {
        let fault = |e| self.fault("reading past costs", e);
        let mut out = PastCosts::default();
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT case_name, arm, total(cost_usd), count(*) FROM runs \
                 WHERE item = ?1 AND model = ?2 AND usable = 1 GROUP BY case_name, arm",
            )
            .map_err(fault)?;
        let mut rows = stmt.query([item, model]).map_err(fault)?;
        while let Some(row) = rows.next().map_err(fault)? {
            let arm: String = row.get(1).map_err(fault)?;
            out.cases.insert(
                (row.get(0).map_err(fault)?, self.arm(&arm)?),
                (
                    row.get(2).map_err(fault)?,
                    row.get::<_, i64>(3).map_err(fault)? as u64,
                ),
            );
        }
        out.model = self
            .conn
            .query_row(
                "SELECT total(cost_usd), count(*) FROM runs WHERE model = ?1 AND usable = 1",
                [model],
                |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)),
            )
            .map_err(fault)?;
        Ok(out)
    }

    /// How many runs the store holds.
    pub fn count(&self) -> Result<u64> {
        self.conn
            .query_row("SELECT count(*) FROM runs", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(|e| self.fault("counting runs", e))
    }

    /// `PRAGMA integrity_check`: `Ok` when SQLite finds the file sound.
    pub fn integrity_check(&self) -> Result<()> {
        let fault = |e| self.fault("checking integrity", e);
        let mut stmt = self.conn.prepare("PRAGMA integrity_check").map_err(fault)?;
        let lines: Vec<String> = stmt
            .query_map([], |r| r.get(0))
            .map_err(fault)?
            .collect::<rusqlite::Result<_>>()
            .map_err(fault)?;
        if lines == ["ok"] {
            Ok(())
        } else {
            Err(self.error(format!(
                "is damaged (integrity check: {}); restore it from a backup or an export",
                lines.join("; ")
            )))
        }
    }

    fn arm(&self, text: &str) -> Result<Arm> {
        Arm::parse(text).ok_or_else(|| self.error(format!("holds a run with arm {text:?}")))
    }

    fn time(&self, text: &str) -> Result<DateTime<Utc>> {
        DateTime::parse_from_rfc3339(text)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| self.error(format!("holds a run with start time {text:?}: {e}")))
    }

    fn json<T: serde::de::DeserializeOwned>(&self, raw: &str, what: &str) -> Result<T> {
        serde_json::from_str(raw)
            .map_err(|e| self.error(format!("holds a run whose {what} are not readable: {e}")))
    }

    fn run_from_row(&self, row: &Row<'_>) -> Result<StoredRun> {
        let fault = |e| self.fault("reading a run", e);
        let text = |i: usize| row.get::<_, String>(i).map_err(fault);
        let tools: Vec<String> = self.json(&text(9)?, "tools")?;
        let graders: Vec<GraderOutcome> = self.json(&text(13)?, "graders")?;
        let key = RunKey {
            item: text(1)?,
            item_digest: text(2)?,
            case: text(3)?,
            case_digest: text(4)?,
            arm: self.arm(&text(5)?)?,
            model: text(6)?,
            judge_model: text(7)?,
            platform_version: text(8)?,
            tools,
            options: text(10)?,
        };
        let outcome = RunOutcome {
            score: row.get(11).map_err(fault)?,
            passed: row.get(12).map_err(fault)?,
            graders,
            cost_usd: row.get(14).map_err(fault)?,
            judge_cost_usd: row.get(15).map_err(fault)?,
            duration_seconds: row.get(16).map_err(fault)?,
            turns: row.get(17).map_err(fault)?,
            error: row.get(18).map_err(fault)?,
            skipped_paid_graders: row.get(19).map_err(fault)?,
            started_at: self.time(&text(20)?)?,
            run: row.get(21).map_err(fault)?,
            bought_by: text(22)?,
        };
        let from = row.get::<_, Option<String>>(24).map_err(fault)?;
        let at = match row.get::<_, Option<String>>(25).map_err(fault)? {
            Some(at) => Some(self.time(&at)?),
            None => None,
        };
        let provenance = match (text(23)?.as_str(), from, at) {
            ("bought", Some(run), Some(at)) => Provenance::Bought { run, at },
            ("imported", Some(from), Some(at)) => Provenance::Imported { from, at },
            ("collected", Some(from), Some(at)) => Provenance::Collected { from, at },
            ("legacy", _, _) => Provenance::Legacy,
            (kind, ..) => {
                return Err(self.error(format!(
                    "holds a run with provenance {kind:?} but not where from or when"
                )));
            }
        };
        Ok(StoredRun {
            id: text(0)?,
            key,
            outcome,
            provenance: Some(provenance),
        })
    }
}

/// Past costs on one model ([`Store::past_costs`]): dollars and runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PastCosts {
    /// Per case and arm of the item.
    pub cases: std::collections::BTreeMap<(String, Arm), (f64, u64)>,
    /// Over every item on the model.
    pub model: (f64, u64),
}

/// The one query of [`Store::lookup`]: `?1` a JSON array of key ids, `?2` how many per key.
fn lookup_sql() -> String {
    let columns = COLUMNS
        .split(", ")
        .map(|c| format!("r.{}", c.trim()))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "WITH wanted(pos, key_id) AS (SELECT key, value FROM json_each(?1)) \
         SELECT {columns}, w.pos FROM wanted AS w JOIN runs AS r ON r.rowid IN \
           (SELECT rowid FROM runs WHERE key_id = w.key_id AND usable = 1 \
            ORDER BY started_at DESC, run DESC, id DESC LIMIT ?2) \
         ORDER BY w.pos, r.started_at DESC, r.run DESC, r.id DESC"
    )
}

/// A start time as stored: fixed-width RFC 3339 in UTC, so text order is time order.
fn time_text(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Nanos, true)
}

/// The `?1` of the item filters: NULL for every item, else a JSON array.
fn items_filter(items: &[String]) -> Option<String> {
    (!items.is_empty()).then(|| serde_json::to_string(items).expect("strings serialize"))
}

/// A SQLite failure as an error naming the file and what to do.
fn fault(path: &Utf8Path, timeout: Duration, doing: &str, e: rusqlite::Error) -> Error {
    let message = match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => format!(
            "is locked by another process (waited {} s while {doing}); try again when the other bob-eval is done",
            timeout.as_secs_f64()
        ),
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => format!(
            "is corrupt or not a SQLite database ({e}, while {doing}); move it aside (a new store is created in its place) or restore it from a backup"
        ),
        Some(ErrorCode::ReadOnly) => format!(
            "is read-only ({e}, while {doing}): bob-eval must write it and the `-wal` and `-shm` files beside it; fix the permissions of the file and its folder, or choose another store with --evidence PATH or $BOB_EVIDENCE"
        ),
        Some(ErrorCode::CannotOpen | ErrorCode::PermissionDenied) => format!(
            "cannot be opened ({e}, while {doing}): check that its folder exists and bob-eval may create files there"
        ),
        Some(ErrorCode::DiskFull) => format!("the disk is full (while {doing})"),
        Some(ErrorCode::SystemIoFailure) => format!("I/O error while {doing}: {e}"),
        _ => format!("{doing}: {e}"),
    };
    Error::Store {
        path: path.to_owned(),
        message,
    }
}

/// Is `e` another writer holding the store?
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

/// The runs of an export (JSON Lines) from `reader`, stored nowhere; `path`
/// names it in errors, a bad line with its number. Blank lines are skipped.
pub fn read_export(reader: impl BufRead, path: &Utf8Path) -> Result<Vec<StoredRun>> {
    Ok(read_lines(reader, path, StoredRun::from_line)?
        .into_iter()
        .map(|(_, run)| run)
        .collect())
}

/// Each line of an export read by `parse`, with its number; the first line
/// that does not read refuses the whole file.
fn read_lines(
    reader: impl BufRead,
    path: &Utf8Path,
    parse: fn(&str) -> std::result::Result<StoredRun, String>,
) -> Result<Vec<(usize, StoredRun)>> {
    let mut runs = Vec::new();
    for (i, line) in reader.split(b'\n').enumerate() {
        let line = line.map_err(|e| Error::unreadable(path, e))?;
        let bad = |message: String| Error::InvalidInput {
            at: Location::at(path, i + 1),
            message: format!(
                "{message}; nothing of {path} was imported (format: {EXPORT_SCHEMA} JSON Lines, from `bob-eval evidence export`)"
            ),
        };
        let text = std::str::from_utf8(&line).map_err(|e| bad(format!("not UTF-8: {e}")))?;
        if text.trim().is_empty() {
            continue;
        }
        runs.push((i + 1, parse(text.trim_end_matches('\r')).map_err(bad)?));
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::*;
    use crate::evidence::Refusal;

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
            .insert_batches(&[
                (Origin::Imported("x.jsonl".into()), &imported[..]),
                (shard.clone(), &collected[..]),
                // Already bought here: an import of it changes nothing.
                (Origin::Imported("x.jsonl".into()), &bought[..]),
            ])
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
        assert!(!told.is_empty(), "it said it waited");
        assert_eq!(std::fs::read_to_string(&file).unwrap().lines().count(), 2);
        assert_eq!(store.count().unwrap(), 0);
        // Still busy: the file stays, and says why.
        let said = store.import_pending();
        assert!(said[0].contains("not stored yet"), "{said:?}");
        assert!(file.is_file());

        holder.execute_batch("COMMIT").unwrap();
        let said = store.import_pending();
        assert!(said[0].contains("stored the 2 run(s)"), "{said:?}");
        assert!(!file.exists() && !pending_dir(&path).exists());
        let stored = store.runs(&[]).unwrap();
        assert_eq!(kinds(&stored), ["bought", "bought"]);
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
                     provenance_at, ?2, usable FROM runs WHERE id = ?4"
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
}
