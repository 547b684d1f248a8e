//! `show`: one stored run as a person reads it: what was asked, what the
//! model did (its text and tool calls, the tools' results), its final answer,
//! and each grader's verdict and why (with what an llm judge saw and its
//! votes), from the evidence store (`docs/transcripts.md`).

use crate::error::{Error, Result};
use crate::evidence::transcript::{Step, steps};
use crate::evidence::{Arm, GraderOutcome, Store, StoredRun};
use chrono::{DateTime, Utc};
use serde::Serialize;

/// The `schema` of `show --json`.
pub const SHOW_SCHEMA: &str = "bob-eval-show/1";

/// What `show` says of a run with no transcript.
pub const NO_TRANSCRIPT: &str = "no transcript kept for this run: it was bought before bob-eval kept transcripts, the store's transcript cap was reached, the platform wrote no trace, or `evidence gc` dropped it";

/// One run as `show` presents it (`bob-eval-show/1`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunView {
    /// Always [`SHOW_SCHEMA`].
    pub schema: &'static str,
    /// The stored run's id.
    pub run_id: String,
    /// The item.
    pub item: String,
    /// The case.
    pub case: String,
    /// The arm.
    pub arm: Arm,
    /// The model as asked.
    pub model: String,
    /// The platform's version.
    pub platform_version: String,
    /// When the run started.
    pub started_at: DateTime<Utc>,
    /// The bob-eval run that bought it (empty for a run read from a file).
    pub bought_by: String,
    /// Its score, 0..1.
    pub score: f64,
    /// The platform's pass flag.
    pub passed: bool,
    /// Dollars, judge included.
    pub cost_usd: f64,
    /// Agent turns.
    pub turns: u32,
    /// Wall time.
    pub duration_seconds: f64,
    /// Why it ended abnormally, if it did (such a run never counts).
    pub error: Option<String>,
    /// The transcript, when one is kept.
    pub transcript: Option<TranscriptView>,
    /// [`NO_TRANSCRIPT`] when none is kept.
    pub note: Option<&'static str>,
    /// Each grader's verdict.
    pub graders: Vec<GraderOutcome>,
}

/// A kept transcript as `show` presents it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TranscriptView {
    /// The sha256 of the (redacted) trace.
    pub digest: String,
    /// The case's prompt.
    pub prompt: Option<String>,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// The final answer.
    pub answer: Option<String>,
}

/// The run `id` (a full stored id, or a prefix of one that only it has).
pub fn find(store: &Store, id: &str) -> Result<StoredRun> {
    let id = id.trim();
    if id.len() < 6 || !id.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(Error::Usage(format!(
            "{id:?} is not a run id: give a stored run's id (64 hex digits, or its first 6 or more), as `show ITEM --case NAME` or `history --json` name them"
        )));
    }
    let mut found = store.runs_by_id(id)?;
    match found.len() {
        0 => Err(Error::Usage(format!(
            "no run {id} in the evidence store {}",
            store.path()
        ))),
        1 => Ok(found.remove(0)),
        _ => Err(Error::Usage(format!(
            "{id} starts more than one run id in the evidence store {}: give more of it",
            store.path()
        ))),
    }
}

/// The most recent run of `item`'s case `case` on `arm` (on `model` when
/// given), preferring one with a transcript.
pub fn last(
    store: &Store,
    item: &str,
    case: &str,
    arm: Arm,
    model: Option<&str>,
) -> Result<StoredRun> {
    store.last_run(item, case, arm, model)?.ok_or_else(|| {
        Error::Usage(format!(
            "no run of item `{item}`, case `{case}`, {} arm{} in the evidence store {}",
            arm.as_str(),
            model.map(|m| format!(", model {m}")).unwrap_or_default(),
            store.path()
        ))
    })
}

/// `run` as `show` presents it, its transcript read from `store`.
pub fn view(store: &Store, run: &StoredRun) -> Result<RunView> {
    let transcript = store.transcript(&run.id)?.map(|t| TranscriptView {
        steps: steps(&t.trace),
        digest: t.digest,
        prompt: t.prompt,
        answer: t.answer,
    });
    let o = &run.outcome;
    Ok(RunView {
        schema: SHOW_SCHEMA,
        run_id: run.id.clone(),
        item: run.key.item.clone(),
        case: run.key.case.clone(),
        arm: run.key.arm,
        model: run.key.model.clone(),
        platform_version: run.key.platform_version.clone(),
        started_at: o.started_at,
        bought_by: o.bought_by.clone(),
        score: o.score,
        passed: o.passed,
        cost_usd: o.cost_usd,
        turns: o.turns,
        duration_seconds: o.duration_seconds,
        error: o.fault(),
        note: transcript.is_none().then_some(NO_TRANSCRIPT),
        transcript,
        graders: o.graders.clone(),
    })
}

/// What `evidence gc` kept and freed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GcOutcome {
    /// The evaluations recorded as bests (baseline.json's run ids) whose
    /// runs' transcripts were kept.
    pub bests: Vec<String>,
    /// Decisions recorded at or after this kept their runs' transcripts too.
    pub decisions_since: DateTime<Utc>,
    /// What was kept and freed.
    #[serde(flatten)]
    pub gc: crate::evidence::TranscriptGc,
}

/// Drop every transcript but those of the runs behind a best (each item's
/// `baseline.json` in `ctx`'s source, for the items the store has
/// evaluations of) and behind a decision recorded in the last `keep_days`
/// days; the runs of an item whose suite is not in this source tree keep
/// theirs (its bests cannot be read here). On `dry_run` only count. A baseline that cannot be read refuses
/// the whole collection (its best's transcripts would be lost).
pub fn collect_transcripts(
    ctx: &crate::config::Context,
    store: &mut Store,
    keep_days: u32,
    dry_run: bool,
) -> Result<GcOutcome> {
    let mut items: Vec<String> = store
        .evaluations(&[])?
        .into_iter()
        .map(|e| e.item)
        .collect();
    items.sort();
    items.dedup();
    let mut bests = std::collections::BTreeSet::new();
    let mut elsewhere = Vec::new();
    for item in items {
        let here = crate::config::ItemName::new(&item)
            .ok()
            .filter(|name| crate::config::suite_dir(&ctx.source, name).is_dir());
        match here {
            Some(name) => {
                let baseline = crate::document::load_baseline(&ctx.source, &name)?;
                bests.extend(baseline.best.into_values().map(|b| b.run));
            }
            None => elsewhere.push(item),
        }
    }
    let since = Utc::now() - chrono::TimeDelta::days(i64::from(keep_days));
    let mut keep = store.runs_to_keep(&bests, since)?;
    // An item whose suite is not in this source tree: its bests are unknown
    // here, so none of its transcripts is dropped.
    if !elsewhere.is_empty() {
        keep.extend(store.runs(&elsewhere)?.into_iter().map(|r| r.id));
    }
    let gc = store.transcript_gc(&keep, dry_run)?;
    Ok(GcOutcome {
        bests: bests.into_iter().collect(),
        decisions_since: since,
        gc,
    })
}
