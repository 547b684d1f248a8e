//! The evidence store: every platform run kept, reused, never paid for twice.
//!
//! One SQLite file (default `$BOB_HOME/evidence.db`, see [`Store::default_path`])
//! holds one row per platform run: its [`RunKey`] (what was run: the item's
//! and case's contents, the arm, the models, the platform version, the tool
//! grants and the other options that change an outcome) and its
//! [`RunOutcome`] (what came out, and the bob-eval run that bought it). Runs
//! under the same key are interchangeable evidence: [`Store::lookup`] returns
//! the most recent N per key, so a new eval pays only for the runs it lacks.
//!
//! The without arm never loads the item, so its runs are keyed with no item
//! digest ([`RunKey::normalized`]): after an edit of the item only with-arm
//! runs are missing, and an evaluation buys those alone (the platform's
//! single-arm mode, rescored under the with/without rules: see
//! `docs/evidence.md`).
//!
//! The export format is JSON Lines, one [`StoredRun`] a line:
//!
//! ```json
//! {"schema":"bob-eval-evidence/1","id":"<sha256 hex>","key":{"item":"commit","item_digest":"…","case":"fires","case_digest":"…","arm":"with","model":"claude-sonnet-5-5","judge_model":"default","platform_version":"2.1.328","tools":["Bash"],"options":"…"},"outcome":{"score":1.0,"passed":true,"graders":[{"name":"fires","passed":true,"scored":false,"with_only":true,"weight":1.0,"explanation":"Skill called 1x (expected 1..)"}],"cost_usd":0.03,"judge_cost_usd":0.0,"duration_seconds":2.0,"turns":3,"error":null,"skipped_paid_graders":false,"started_at":"2026-12-02T09:40:17.922Z","run":1,"bought_by":"eval-commit-20261202T094337Z"}}
//! ```
//!
//! Every field is required except `outcome.error` (absent means null);
//! unknown fields are refused. `id` must be [`StoredRun::compute_id`] of the
//! line's key and outcome, so importing the same runs twice adds nothing.
//!
//! After the runs come the store's evaluations and recorded decisions, one a
//! line, told apart by `kind` (a line without one is a run, as in every
//! export before kinds):
//!
//! ```json
//! {"schema":"bob-eval-evidence/1","kind":"evaluation","record":{"run":"eval-commit-20261202T094337Z","item":"commit","model":"claude-sonnet-5-5","date":"2026-12-02","started_at":"…","options":{…},"filtered":false,"partial":false,"partial_reason":null,"with":0.875,"without":0.75,"delta":0.125,"trigger_rate":1.0,"cost_usd":0.05,"reused_cost_usd":0.0,"suite_digest":"…","stats":{…},"used":["<run id>",…]}}
//! {"schema":"bob-eval-evidence/1","kind":"decision","record":{"run":"eval-commit-20261202T094337Z","item":"commit","model":"claude-sonnet-5-5","date":"2026-12-02","mode":"rule","rule":[{"name":"not-partial","status":"pass"},…],"outcome":"accepted","pr":"#12","pages":["commit-skipped-hook"],"before":null,"after":0.875,"best_after":0.875,"recorded_at":"…"}}
//! ```
//!
//! An evaluation is known by its run id, a decision by its run, model, PR,
//! outcome and time: importing them twice adds nothing.
//!
//! Last come the exported runs' transcripts (`kind: transcript`, a
//! [`KeptTranscript`]: run id, the trace's sha256, prompt, answer, trace),
//! checked against their digest on import and kept for runs the store
//! holds; an export written before has none (`docs/transcripts.md`).
//!
//! **Provenance.** Every stored run also says where it came from
//! ([`Provenance`]): bought here, imported with `evidence import` (from which
//! file, when), collected from one of the project's shard folders, or
//! `legacy` (stored before provenance was kept; counted as bought here). The
//! export does not carry it: whoever imports a file decides what it is.
//! Imported runs count toward a document (`imported_runs`) but `gate` and
//! `propose` accept on them only with `--trust-imported`, since a file
//! anyone can write is not evidence. `evidence import` refuses runs dated
//! more than [`MAX_CLOCK_SKEW`] in the future and runs with impossible values
//! ([`Refusal`]), and says how many it refused and why.

mod digest;
mod kept;
mod platform;
mod store;
pub mod transcript;
mod versions;

pub use digest::{
    case_digest, digest_dir, digest_files, digest_parts, files_under, item_digest, options_digest,
};
pub use kept::{
    Evaluation, EvaluationOptions, KeptDecision, MODE_RULE, RecordProvenance, Records, RuleCheck,
    keep_decision,
};
pub use platform::{CaseKey, PlatformRunsContext, runs_from_platform, runs_from_result};
pub use store::{
    Added, BOUGHT_WAIT, BUSY_TIMEOUT, CostGroup, Kept, KeptTranscript, PastCosts, SCHEMA_VERSION,
    Store, TranscriptGc, TranscriptsKept, pending_dir, pending_tag, read_export,
    read_export_with_transcripts,
};
pub use versions::{keep_version, kept_version, versions_dir};

/// How far in the future an imported run may be dated (clocks of two
/// machines disagree a little); later is refused ([`Refusal::Future`]).
pub const MAX_CLOCK_SKEW: chrono::TimeDelta = chrono::TimeDelta::minutes(5);

/// The most one run may cost, judge included: the largest ceiling bob-eval
/// accepts for a whole evaluation ([`crate::config::MAX_COST_USD`]); a run
/// dearer than that cannot have been bought under any ceiling.
pub const MAX_RUN_COST_USD: f64 = crate::config::MAX_COST_USD;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};

/// The `schema` of every exported line.
pub const EXPORT_SCHEMA: &str = "bob-eval-evidence/1";

/// Which arm of the with/without ablation a run belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arm {
    /// The item's plugin loaded.
    With,
    /// Without it.
    Without,
}

impl Arm {
    /// `with` or `without`.
    pub fn as_str(self) -> &'static str {
        match self {
            Arm::With => "with",
            Arm::Without => "without",
        }
    }

    /// Whether runs on this arm depend on the item's contents: the with arm
    /// loads the item; the without arm runs the same case with no plugin, so
    /// its key holds no item digest. The one place this rule is written.
    pub fn carries_item(self) -> bool {
        self == Arm::With
    }

    /// The arm named `text`.
    pub fn parse(text: &str) -> Option<Arm> {
        match text {
            "with" => Some(Arm::With),
            "without" => Some(Arm::Without),
            _ => None,
        }
    }
}

/// The mark of a denial in [`RunKey::tools`].
pub const DENIED: &str = "!";

/// What was run: runs with equal keys are interchangeable evidence.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunKey {
    /// The item's name (for listing; its contents are `item_digest`).
    pub item: String,
    /// [`digest_files`]/[`digest_dir`] of the item's files on the with arm;
    /// empty on the without arm, which never loads the item ([`RunKey::normalized`]).
    pub item_digest: String,
    /// The case's name.
    pub case: String,
    /// [`case_digest`]: the case's folder, everything in it, and every `mocks/` layer above it.
    pub case_digest: String,
    /// The arm.
    pub arm: Arm,
    /// The model as asked (`default` for the platform's own).
    pub model: String,
    /// The judge model as asked (`default` for the platform's own).
    pub judge_model: String,
    /// The platform's version (`claudeVersion`).
    pub platform_version: String,
    /// The tools: the grants (`--allow-tools`) as named, then the denials
    /// (`--disallow-tools`) each marked with a leading `!`
    /// ([`RunKey::tool_list`]); order and repeats do not matter (kept
    /// sorted). A grant never starts with `!` (refused where it enters), so
    /// the two lists never mix; [`RunKey::id`] keys them as two lists.
    pub tools: Vec<String>,
    /// [`options_digest`] of the other options that change an outcome.
    pub options: String,
}

impl RunKey {
    /// The key as it is stored and looked up: tool grants sorted and
    /// deduplicated, and no item digest on the without arm
    /// ([`Arm::carries_item`]): an edit of the item leaves without-arm runs
    /// reusable. Keys written before this rule are normalized on import and
    /// by the store's schema 2 migration.
    pub fn normalized(mut self) -> RunKey {
        self.tools.sort();
        self.tools.dedup();
        if !self.arm.carries_item() {
            self.item_digest.clear();
        }
        self
    }

    /// The `tools` of a key: `grants` as named, then each of `denials`
    /// marked with a leading `!`.
    pub fn tool_list(grants: &[String], denials: &[String]) -> Vec<String> {
        grants
            .iter()
            .cloned()
            .chain(denials.iter().map(|t| format!("{DENIED}{t}")))
            .collect()
    }

    /// The grants and the denials of [`RunKey::tools`], each sorted and
    /// deduplicated.
    pub fn grants_and_denials(&self) -> (Vec<String>, Vec<String>) {
        let (mut grants, mut denials): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
        for tool in &self.tools {
            match tool.strip_prefix(DENIED) {
                Some(denied) => denials.push(denied.to_owned()),
                None => grants.push(tool.clone()),
            }
        }
        for list in [&mut grants, &mut denials] {
            list.sort();
            list.dedup();
        }
        (grants, denials)
    }

    /// A digest of every field as written (tools order-insensitive): the
    /// lookup key of a [normalized](RunKey::normalized) key.
    ///
    /// A key without denials is digested as bob-eval always has; a key with
    /// denials holds the grants and the denials as two lists under
    /// `bob-eval-evidence-key/2`. Runs an older bob-eval stored with a denial
    /// (`!Bash`, which a grant spelled `!Bash` was keyed as too) are
    /// therefore never reused: they are bought again once.
    pub fn id(&self) -> String {
        self.id_as(false)
    }

    /// The id an older bob-eval gave this key: `tools` as one list (the
    /// same as [`RunKey::id`] for a key without denials).
    pub fn one_list_id(&self) -> String {
        self.id_as(true)
    }

    fn id_as(&self, one_list: bool) -> String {
        let (grants, denials) = self.grants_and_denials();
        let (grants, denials) = if one_list {
            let mut tools = self.tools.clone();
            tools.sort();
            tools.dedup();
            (tools, Vec::new())
        } else {
            (grants, denials)
        };
        let json = |list: &[String]| serde_json::to_string(list).expect("strings serialize");
        let (version, tools) = if denials.is_empty() {
            ("bob-eval-evidence-key/1", json(&grants))
        } else {
            (
                "bob-eval-evidence-key/2",
                format!("{}\u{1f}{}", json(&grants), json(&denials)),
            )
        };
        digest::digest_parts([
            version,
            &self.item,
            &self.item_digest,
            &self.case,
            &self.case_digest,
            self.arm.as_str(),
            &self.model,
            &self.judge_model,
            &self.platform_version,
            &tools,
            &self.options,
        ])
    }
}

pub use crate::platform::result::{GraderOutcome, RunOutcome};

/// The checks every stored run is held to, whatever its source.
impl RunOutcome {
    /// False for a run the platform marked with an error (or a mock
    /// aborted), graded or not, and for one that skipped its paid graders: it
    /// says nothing sure about the item, so [`Store::lookup`] never returns
    /// it and no document counts it (it is still kept, for the record).
    pub fn usable(&self) -> bool {
        !(self.skipped_paid_graders || self.fault().is_some())
    }

    /// Why this outcome cannot be stored, if it cannot: every stored run is
    /// held to this, whatever its source.
    pub fn problem(&self) -> Option<String> {
        self.refusal().map(|(_, why)| why)
    }

    /// [`RunOutcome::problem`] with its kind, for counting.
    pub fn refusal(&self) -> Option<(Refusal, String)> {
        if !(0.0..=1.0).contains(&self.score) {
            return Some((
                Refusal::Score,
                format!("score {} is outside 0..1", self.score),
            ));
        }
        for (name, value) in [
            ("cost_usd", self.cost_usd),
            ("judge_cost_usd", self.judge_cost_usd),
        ] {
            if !value.is_finite() || !(0.0..=MAX_RUN_COST_USD).contains(&value) {
                return Some((
                    Refusal::Cost,
                    format!(
                        "{name} {value:?} is not a number of dollars in 0..={MAX_RUN_COST_USD} (the most a run can cost under the largest ceiling)"
                    ),
                ));
            }
        }
        if !self.duration_seconds.is_finite() || self.duration_seconds < 0.0 {
            return Some((
                Refusal::Duration,
                format!(
                    "duration_seconds {} is not a non-negative number",
                    self.duration_seconds
                ),
            ));
        }
        if let Some(g) = self
            .graders
            .iter()
            .find(|g| !g.weight.is_finite() || g.weight < 0.0)
        {
            return Some((
                Refusal::Weight,
                format!("grader `{}` has weight {}", g.name, g.weight),
            ));
        }
        if self.run == 0 {
            return Some((Refusal::Position, "run must be 1 or more".into()));
        }
        None
    }

    /// [`RunOutcome::refusal`], and a start later than `now` plus
    /// [`MAX_CLOCK_SKEW`]: what `evidence import` refuses.
    pub fn refusal_at(&self, now: DateTime<Utc>) -> Option<(Refusal, String)> {
        if self.started_at > now + MAX_CLOCK_SKEW {
            return Some((
                Refusal::Future,
                format!(
                    "started_at {} is in the future (now is {}; {} min of clock skew allowed)",
                    self.started_at.to_rfc3339_opts(SecondsFormat::Secs, true),
                    now.to_rfc3339_opts(SecondsFormat::Secs, true),
                    MAX_CLOCK_SKEW.num_minutes()
                ),
            ));
        }
        self.refusal()
    }
}

/// Why a run is refused, by kind: `evidence import` counts its refusals per kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Refusal {
    /// Dated more than [`MAX_CLOCK_SKEW`] in the future.
    Future,
    /// A score outside 0..1 (or not a number).
    Score,
    /// A cost not finite, negative, or above [`MAX_RUN_COST_USD`].
    Cost,
    /// A duration not finite or negative.
    Duration,
    /// A grader weight not finite or negative.
    Weight,
    /// A position in its arm of 0.
    Position,
}

impl Refusal {
    /// The kind in words, for a count: `2 dated in the future`.
    pub fn words(self) -> &'static str {
        match self {
            Refusal::Future => "dated in the future",
            Refusal::Score => "with a score outside 0..1",
            Refusal::Cost => "with an impossible cost",
            Refusal::Duration => "with an impossible duration",
            Refusal::Weight => "with an impossible grader weight",
            Refusal::Position => "with run position 0",
        }
    }
}

/// Where a stored run came from (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Provenance {
    /// Bought here by the bob-eval run `run`, stored at `at`.
    Bought {
        /// The run id that bought it.
        run: String,
        /// When it was stored.
        at: DateTime<Utc>,
    },
    /// Imported with `evidence import` from the file `from` at `at`: not
    /// evidence the gate accepts on without `--trust-imported`.
    Imported {
        /// The file, as named on the command line.
        from: String,
        /// When it was imported.
        at: DateTime<Utc>,
    },
    /// Collected by `collect` from the project's shard folder `from` at `at`:
    /// trusted like runs bought here.
    Collected {
        /// The shard's folder.
        from: String,
        /// When it was collected.
        at: DateTime<Utc>,
    },
    /// Stored before the store kept provenance (schema 1). Counted as bought
    /// here: the runs of an old store are the operator's own, and distrusting
    /// them would make every existing store need `--trust-imported`.
    Legacy,
}

impl Provenance {
    /// `bought`, `imported`, `collected` or `legacy`.
    pub fn kind(&self) -> &'static str {
        match self {
            Provenance::Bought { .. } => "bought",
            Provenance::Imported { .. } => "imported",
            Provenance::Collected { .. } => "collected",
            Provenance::Legacy => "legacy",
        }
    }

    /// True for a run imported from a file: the gate does not accept on it
    /// without `--trust-imported`.
    pub fn is_imported(&self) -> bool {
        matches!(self, Provenance::Imported { .. })
    }
}

/// How runs being stored arrive: [`Store::insert`] stamps each with the
/// [`Provenance`] this makes, at the time of storing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Bought by this bob-eval (the run id is each run's `bought_by`).
    Bought,
    /// `evidence import` of this file.
    Imported(camino::Utf8PathBuf),
    /// `collect` of this shard folder.
    Collected(camino::Utf8PathBuf),
}

impl Origin {
    /// The provenance of `run` arriving this way at `at`.
    pub fn provenance(&self, run: &RunOutcome, at: DateTime<Utc>) -> Provenance {
        match self {
            Origin::Bought => Provenance::Bought {
                run: run.bought_by.clone(),
                at,
            },
            Origin::Imported(from) => Provenance::Imported {
                from: from.to_string(),
                at,
            },
            Origin::Collected(from) => Provenance::Collected {
                from: from.to_string(),
                at,
            },
        }
    }
}

/// One stored run: its id, key and outcome (also one line of the export).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRun {
    /// [`StoredRun::compute_id`] of the key and outcome.
    pub id: String,
    /// What was run.
    pub key: RunKey,
    /// What came out.
    pub outcome: RunOutcome,
    /// Where it came from, for a run read from a store; `None` for a run
    /// not stored yet (just bought, read from a file).
    pub provenance: Option<Provenance>,
}

impl StoredRun {
    /// A run with its key [normalized](RunKey::normalized) and its id computed.
    pub fn new(key: RunKey, outcome: RunOutcome) -> StoredRun {
        let key = key.normalized();
        StoredRun {
            id: StoredRun::compute_id(&key, &outcome),
            key,
            outcome,
            provenance: None,
        }
    }

    /// True for a run the store says was imported from a file.
    pub fn is_imported(&self) -> bool {
        self.provenance
            .as_ref()
            .is_some_and(Provenance::is_imported)
    }

    /// The run's identity: its key, start time and position in its arm. The
    /// same platform run stored twice (a replayed result, an import of an
    /// export) gets the same id, whoever bought it.
    pub fn compute_id(key: &RunKey, outcome: &RunOutcome) -> String {
        StoredRun::id_of(key, &outcome.started_at, outcome.run)
    }

    /// [`StoredRun::compute_id`] from the parts it reads.
    pub(crate) fn id_of(key: &RunKey, started_at: &DateTime<Utc>, run: u32) -> String {
        let started = started_at.to_rfc3339_opts(SecondsFormat::Nanos, true);
        let run = run.to_string();
        digest::digest_parts(["bob-eval-evidence-run/1", &key.id(), &started, &run])
    }
}

/// The runs stored for one item, case, arm and model ([`Store::list`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListEntry {
    /// The item.
    pub item: String,
    /// The case.
    pub case: String,
    /// The arm.
    pub arm: Arm,
    /// The model as asked.
    pub model: String,
    /// How many runs.
    pub runs: u64,
    /// How many distinct keys (versions of the item, case, platform, options…).
    pub keys: u64,
    /// The earliest run's start.
    pub first: DateTime<Utc>,
    /// The latest run's start.
    pub last: DateTime<Utc>,
    /// What they cost together, judge included.
    pub cost_usd: f64,
    /// How many of the runs came from where.
    pub provenance: ProvenanceCounts,
}

/// Runs counted by [`Provenance`] kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ProvenanceCounts {
    /// Bought here.
    pub bought: u64,
    /// Imported from files.
    pub imported: u64,
    /// Collected from the project's shards.
    pub collected: u64,
    /// Stored before provenance was kept (counted as bought here).
    pub legacy: u64,
}

impl ProvenanceCounts {
    /// `3 bought, 2 imported`: the kinds present, in that order.
    pub fn words(&self) -> String {
        let parts: Vec<String> = [
            (self.bought, "bought"),
            (self.imported, "imported"),
            (self.collected, "collected"),
            (self.legacy, "legacy"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, kind)| format!("{n} {kind}"))
        .collect();
        parts.join(", ")
    }
}

/// What [`Store::import`] did with a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImportReport {
    /// Runs in the file.
    pub runs: usize,
    /// Runs new to the store.
    pub added: usize,
    /// Runs it already held.
    pub already: usize,
    /// Runs refused (not stored), in all.
    pub refused: usize,
    /// The refused runs per reason, in [`Refusal`] order.
    pub refusals: Vec<Refused>,
    /// Evaluations in the file.
    pub evaluations: usize,
    /// Evaluations new to the store.
    pub evaluations_added: usize,
    /// Recorded decisions in the file.
    pub decisions: usize,
    /// Decisions new to the store.
    pub decisions_added: usize,
    /// Evaluations and decisions refused (dated in the future, impossible
    /// values), each with its line; not counted in `evaluations` nor `decisions`.
    pub records_refused: Vec<RefusedRecord>,
    /// Run transcripts in the file.
    pub transcripts: usize,
    /// Transcripts newly kept (of runs the store holds, within its cap).
    pub transcripts_added: usize,
}

/// An evaluation or decision line an import refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RefusedRecord {
    /// `evaluation` or `decision`.
    pub kind: &'static str,
    /// Its line.
    pub line: usize,
    /// What is wrong with it, in words.
    pub why: String,
}

/// The runs of an import refused for one reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refused {
    /// The reason.
    pub reason: Refusal,
    /// How many runs.
    pub runs: usize,
    /// The line of the first.
    pub first_line: usize,
    /// What is wrong with the first, in words.
    pub example: String,
}

/// The JSON Lines form of a [`StoredRun`].
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    schema: String,
    id: String,
    key: RunKey,
    outcome: RunOutcome,
}

impl StoredRun {
    /// This run as one export line (no newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(&Line {
            schema: EXPORT_SCHEMA.into(),
            id: self.id.clone(),
            key: self.key.clone(),
            outcome: self.outcome.clone(),
        })
        .expect("a stored run serializes")
    }

    /// Parse one export line; the error says what is wrong (no location).
    pub fn from_line(text: &str) -> Result<StoredRun, String> {
        let run = StoredRun::parse_line(text)?;
        match run.outcome.problem() {
            Some(problem) => Err(problem),
            None => Ok(run),
        }
    }

    /// [`StoredRun::from_line`] without checking the outcome's values: for
    /// `evidence import`, which refuses such runs one by one.
    pub(crate) fn parse_line(text: &str) -> Result<StoredRun, String> {
        let line: Line = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if line.schema != EXPORT_SCHEMA {
            return Err(format!(
                "schema {:?} is not {EXPORT_SCHEMA:?} (written by another bob-eval?)",
                line.schema
            ));
        }
        // The id of the key as written: a line exported before the without
        // arm lost its item digest still verifies, then is normalized.
        let written = StoredRun::compute_id(&line.key, &line.outcome);
        let one_list = digest::digest_parts([
            "bob-eval-evidence-run/1",
            &line.key.one_list_id(),
            &line
                .outcome
                .started_at
                .to_rfc3339_opts(SecondsFormat::Nanos, true),
            &line.outcome.run.to_string(),
        ]);
        if written != line.id && one_list == line.id {
            return Err(
                "keyed by an older bob-eval, which kept tool grants and denials in one list: its denial cannot be told from a grant spelled with '!', so the run is not imported (a run needing it is bought again)"
                    .into(),
            );
        }
        if written != line.id {
            return Err(format!(
                "id {} does not match the run's key, started_at and run (expected {written}): the line was edited or damaged",
                line.id
            ));
        }
        Ok(StoredRun::new(line.key, line.outcome))
    }
}

#[cfg(test)]
pub(crate) mod tests;
