//! The SQLite file behind the evidence store.
//!
//! WAL mode, a busy timeout, `synchronous = FULL` (a committed run survives a
//! crash of the process or the machine), a versioned schema migrated by
//! `user_version`, and one transaction per write: a writer killed half-way
//! leaves the store as it was before its transaction.

use super::kept::{Evaluation, KeptDecision, evaluation_line};
use super::{
    Arm, GraderOutcome, ListEntry, Origin, Provenance, ProvenanceCounts, RunKey, RunOutcome,
    StoredRun,
};
use crate::error::{Error, Result};
use camino::{Utf8Path, Utf8PathBuf};
use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::{Connection, ErrorCode, OpenFlags, Row, TransactionBehavior, params};
use std::time::Duration;

mod costs;
mod exchange;
mod migrations;
mod records;
mod transcripts;
pub use costs::{CostGroup, PastCosts};
pub use exchange::{pending_tag, read_export, read_export_with_transcripts};
use migrations::{MIGRATIONS, Migration};
use records::{insert_decisions, insert_evaluations};
pub use transcripts::{KeptTranscript, TranscriptGc, TranscriptsKept};

/// The schema version this bob-eval writes (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i64 = 9;

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

/// Every column of a run, in the order [`run_from_row`] reads them.
const COLUMNS: &str = "id, item, item_digest, case_name, case_digest, arm, model, judge_model, \
    platform_version, tools, options, score, passed, graders, cost_usd, judge_cost_usd, \
    duration_seconds, turns, error, skipped_paid_graders, started_at, run, bought_by, \
    provenance, provenance_from, provenance_at, mocks";

/// How many columns [`COLUMNS`] names: the query of [`Store::lookup`] adds one after them.
const COLUMN_COUNT: usize = 27;

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
    /// Opened by [`Store::open_read_only`]: the one writer refuses.
    read_only: bool,
    /// The most bytes of compressed traces kept ([`Store::set_transcript_cap`]).
    transcript_cap: u64,
}

impl Store {
    /// The store's file: `flag` (`--evidence`), else `$BOB_EVIDENCE` (in
    /// `ctx.env`) when set and not empty, else `<home>/evidence.db`.
    pub fn default_path(flag: Option<&Utf8Path>, ctx: &crate::config::Context) -> Utf8PathBuf {
        Store::resolve_path(flag, ctx.env.var("BOB_EVIDENCE"), &ctx.home)
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
            read_only: false,
            transcript_cap: super::transcript::DEFAULT_CAP_MIB << 20,
        };
        store.conn.busy_timeout(busy_timeout).map_err(fault)?;
        if store.conn.is_readonly("main").map_err(fault)? {
            return Err(store.error(
                "is read-only: bob-eval must write it and the `-wal` and `-shm` files beside it; fix the permissions of the file and its folder, or choose another store with --evidence PATH or $BOB_EVIDENCE",
            ));
        }
        store.check_identity()?;
        let mode = store.switch_to_wal()?;
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

    /// Open the existing store at `path` to read it, never to write it: no
    /// migration, no write-ahead-log switch, no import of the runs set aside
    /// (SQLite's read-only open, `SQLITE_OPEN_READ_ONLY`). What `history`,
    /// `evidence list` and `export`, and every `--dry-run` use. A store of an
    /// older schema is read as it is: copied into memory and brought to this
    /// schema there, the file untouched (a command that writes the store
    /// upgrades it). Refuses a missing file, a newer schema and a file that
    /// is not an evidence store.
    pub fn open_read_only(path: &Utf8Path) -> Result<Store> {
        refuse_unusual(path)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let fault = |e| fault(path, BUSY_TIMEOUT, "opening to read", e);
        let conn = Connection::open_with_flags(path, flags).map_err(fault)?;
        let mut store = Store {
            conn,
            path: path.to_owned(),
            busy_timeout: BUSY_TIMEOUT,
            bought_wait: BOUGHT_WAIT,
            read_only: true,
            transcript_cap: super::transcript::DEFAULT_CAP_MIB << 20,
        };
        store.conn.busy_timeout(BUSY_TIMEOUT).map_err(fault)?;
        store.check_identity()?;
        let version = store.user_version()?;
        if version == SCHEMA_VERSION {
            return Ok(store);
        }
        // Older (or new and empty): read as it is, through a copy in memory.
        let mut copy = Connection::open_in_memory().map_err(fault)?;
        {
            let backup = rusqlite::backup::Backup::new(&store.conn, &mut copy).map_err(fault)?;
            backup
                .run_to_completion(256, Duration::ZERO, None)
                .map_err(fault)?;
        }
        store.conn = copy;
        store.migrate().map_err(|e| {
            store.error(format!(
                "is an evidence store of an older bob-eval (schema {version}) that cannot be read as it is ({e}); a command that writes the store (`bob-eval run`, `bob-eval evidence import`) upgrades it, then read it again"
            ))
        })?;
        Ok(store)
    }

    /// Put the file in write-ahead logging; returns the journal mode now in
    /// force. Switching a new file needs its exclusive lock, and SQLite
    /// answers "busy" at once, without waiting, when two openers both hold a
    /// read lock and want it (it would deadlock otherwise): so several
    /// processes opening one new store retry here, within the busy timeout.
    fn switch_to_wal(&self) -> Result<String> {
        let start = std::time::Instant::now();
        let mut pause = Duration::from_millis(2);
        loop {
            match self
                .conn
                .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            {
                Ok(mode) => return Ok(mode),
                Err(e) if is_busy(&e) && start.elapsed() < self.busy_timeout => {
                    // Openers that met keep meeting at equal pauses; the
                    // process id staggers them.
                    let stagger = Duration::from_micros(u64::from(std::process::id() % 997));
                    std::thread::sleep(pause + stagger);
                    pause = (pause * 2).min(Duration::from_millis(100));
                }
                Err(e) => return Err(self.fault("switching to WAL", e)),
            }
        }
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
        Ok(self.insert_all(&[(origin.clone(), runs)], &[], &[])?.runs)
    }

    /// Store `decisions` (all or none); returns how many were new.
    pub fn insert_decisions(&mut self, decisions: &[KeptDecision]) -> Result<usize> {
        Ok(self.insert_all(&[], &[], decisions)?.decisions)
    }

    /// Store batches of runs, each with its origin, and evaluations and
    /// decisions, in one transaction (all or none); returns how many of each
    /// were new. Keys are normalized first ([`RunKey::normalized`]: a
    /// without-arm run carries no item digest).
    pub fn insert_all(
        &mut self,
        batches: &[(Origin, &[StoredRun])],
        evaluations: &[Evaluation],
        decisions: &[KeptDecision],
    ) -> Result<Added> {
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
        self.check_records(evaluations, decisions)?;
        self.write(&batches, evaluations, decisions)
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

    /// Keep `evaluation` as [`Store::keep_bought`] keeps runs: stored,
    /// waiting up to the bought wait; set aside beside the store (in the
    /// file of its run id) when the store is still busy.
    pub fn keep_evaluation(
        &mut self,
        evaluation: &Evaluation,
        on_busy: &mut dyn FnMut(Duration),
    ) -> Result<Kept> {
        self.check_records(std::slice::from_ref(evaluation), &[])?;
        let evaluations = std::slice::from_ref(evaluation);
        match self.write_waiting(&[], evaluations, self.bought_wait, on_busy)? {
            Some(added) => Ok(Kept::Stored(added.evaluations)),
            None => Ok(Kept::SetAside(self.set_aside_lines(
                &evaluation.run,
                &[evaluation_line(evaluation)],
            )?)),
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
        Ok(self
            .write_waiting(&batches, &[], wait, on_busy)?
            .map(|added| added.runs))
    }

    /// [`Store::write`] of runs and evaluations checked already, waiting as
    /// [`Store::insert_waiting`] says.
    fn write_waiting(
        &mut self,
        batches: &[(Origin, &[StoredRun])],
        evaluations: &[Evaluation],
        wait: Duration,
        on_busy: &mut dyn FnMut(Duration),
    ) -> Result<Option<Added>> {
        // Told every busy timeout, or four times in a shorter wait.
        let step = self
            .busy_timeout
            .min(wait / 4)
            .max(Duration::from_millis(10));
        let start = std::time::Instant::now();
        let result = loop {
            let left = wait.saturating_sub(start.elapsed());
            self.set_wait(left.min(step))?;
            match self.write(batches, evaluations, &[]) {
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

    /// Refuse the whole batch when one run's id, values or start are wrong
    /// ([`RunOutcome::refusal_at`]: whatever the door, every run is held to
    /// what `evidence import` holds a run to).
    fn check_runs<'r>(&self, runs: impl Iterator<Item = &'r StoredRun>) -> Result<()> {
        let now = Utc::now();
        for run in runs {
            let id = StoredRun::compute_id(&run.key, &run.outcome);
            let problem = if id != run.id {
                Some(format!("its id is not {id}"))
            } else {
                run.outcome.refusal_at(now).map(|(_, why)| why)
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

    /// The one writer: one immediate transaction for every batch of runs,
    /// the evaluations and the decisions.
    fn write(
        &mut self,
        batches: &[(Origin, &[StoredRun])],
        evaluations: &[Evaluation],
        decisions: &[KeptDecision],
    ) -> rusqlite::Result<Added> {
        if self.read_only {
            // Opened to read: nothing is written, even to a copy in memory.
            return Err(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_READONLY),
                Some("the store was opened to read only".into()),
            ));
        }
        let now = Utc::now();
        let at = time_text(&now);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut added = Added::default();
        {
            let mut stmt = tx.prepare_cached(&format!(
                "INSERT OR IGNORE INTO runs ({COLUMNS}, key_id, usable) VALUES \
                 (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, \
                  ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29)"
            ))?;
            for (origin, runs) in batches {
                for run in *runs {
                    let (k, o) = (&run.key, &run.outcome);
                    let tools = serde_json::to_string(&k.tools).expect("strings serialize");
                    let graders = serde_json::to_string(&o.graders).expect("graders serialize");
                    let mocks = o
                        .mocks
                        .as_ref()
                        .map(|m| serde_json::to_string(m).expect("mock counts serialize"));
                    let provenance = origin.provenance(o, now);
                    let from = match &provenance {
                        Provenance::Bought { run, .. } => Some(run.clone()),
                        Provenance::Imported { from, .. } | Provenance::Collected { from, .. } => {
                            Some(from.clone())
                        }
                        Provenance::Legacy => None,
                    };
                    added.runs += stmt.execute(params![
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
                        mocks,
                        k.id(),
                        o.usable(),
                    ])?;
                }
            }
        }
        added.evaluations = insert_evaluations(&tx, evaluations)?;
        added.decisions = insert_decisions(&tx, decisions)?;
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
            mocks: match row.get::<_, Option<String>>(26).map_err(fault)? {
                Some(json) => Some(self.json(&json, "mocks")?),
                None => None,
            },
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

/// How many of each kind [`Store::insert_all`] found new.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Added {
    /// Runs.
    pub runs: usize,
    /// Evaluations.
    pub evaluations: usize,
    /// Decisions.
    pub decisions: usize,
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

#[cfg(test)]
mod door_tests;
#[cfg(test)]
mod exchange_tests;
#[cfg(test)]
mod migration_tests;
#[cfg(test)]
mod records_tests;
#[cfg(test)]
mod runs_tests;
#[cfg(test)]
mod tests;
