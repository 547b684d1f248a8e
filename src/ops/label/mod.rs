//! Labelling an item's judged graders: which stored runs a person can label
//! (those whose grader outcome kept what the judge saw), in what order (so
//! both kinds of judge error are sampled), a person's answer recorded in the
//! grader's labels file, and how many labels calibration still needs
//! (docs/judges.md).
//!
//! **Which runs.** A stored run of the item whose case is in the suite as it
//! is now (same case digest: the judge read the criterion the grader has
//! now), usable (no fault, paid graders not skipped), whose outcome for a
//! judged grader (`llm`, `baseline`) kept its `evidence`. A run stored
//! before bob-eval kept evidence cannot be labelled; it is counted.
//!
//! **In what order.** Per grader, the runs fall in four strata: arm (with,
//! without) × the judge's verdict (pass, fail). The strata are drawn from in
//! turn, one run each, so the first labels cover runs the judge passed (where
//! it may pass a bad answer) and runs it failed (where it may fail a good
//! one) on both arms, however rare one verdict is. Within a stratum the order
//! is a fixed shuffle (by a digest of the run and grader), so a batch is not
//! just the oldest runs, and two people exporting the same store get the
//! same batch.

mod file;
mod need;
#[cfg(test)]
mod tests;

pub use file::{
    BatchEntry, ENTRY_FORMAT, Imported, LabelImportReport, export_entries, import, read_entries,
};
pub use need::{CONFIDENCE, ClassNeed, Need, SECONDS_PER_LABEL, THRESHOLD, class_need, need};

use crate::error::{Error, Result};
use crate::evidence::{Arm, Store, StoredRun};
use crate::suite::labels::{self, Answered, Label, LabelVerdict, Labels};
use crate::suite::{Case, Suite};
use camino::Utf8PathBuf;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// Which runs to offer: a case, a grader, an arm (all when `None`).
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only this case (its name).
    pub case: Option<String>,
    /// Only this grader (its name).
    pub grader: Option<String>,
    /// Only this arm.
    pub arm: Option<Arm>,
}

/// One judged grader of the suite and its labels file.
#[derive(Debug, Clone, Serialize)]
pub struct JudgedGrader {
    /// The case's name.
    pub case: String,
    /// The grader's name.
    pub grader: String,
    /// Its criterion, as bob-eval reads it.
    pub criterion: String,
    /// [`labels::criterion_digest`] of it.
    pub digest: String,
    /// Its labels file (`graders/<grader>.labels.json`).
    pub path: Utf8PathBuf,
    /// The labels file as read (`None`: no labels yet).
    #[serde(skip)]
    pub labels: Option<Labels>,
}

impl JudgedGrader {
    /// The labels given for the current criterion, and how many are stale.
    pub fn current(&self) -> (Vec<&Label>, usize) {
        match &self.labels {
            Some(l) => l.current(&self.digest),
            None => (Vec::new(), 0),
        }
    }

    /// True when `run` has a label under the current criterion.
    pub fn has_label(&self, run: &str) -> bool {
        self.labels
            .as_ref()
            .is_some_and(|l| l.current_for(run, &self.digest).is_some())
    }

    fn key(&self) -> (String, String) {
        (self.case.clone(), self.grader.clone())
    }
}

/// One stored run of one judged grader, as a person labels it.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The opaque entry id ([`entry_id`]): names the run and grader without
    /// saying what the judge decided.
    pub entry: String,
    /// The stored run's id.
    pub run: String,
    /// The case's name.
    pub case: String,
    /// The grader's name.
    pub grader: String,
    /// The run's arm.
    pub arm: Arm,
    /// The grader's criterion.
    pub criterion: String,
    /// What the judge saw (the outcome's `evidence`).
    pub saw: String,
    /// The judge's verdict (never shown before the person answers).
    pub judge: LabelVerdict,
    /// The judge model of the run (its key's): kept with the label.
    pub judge_model: String,
}

/// What can be labelled for an item.
#[derive(Debug, Clone)]
pub struct Pool {
    /// The judged graders (those the filter keeps), in suite order.
    pub graders: Vec<JudgedGrader>,
    /// Runs not yet labelled under the current criterion, in the order to
    /// label them (see the module docs).
    pub todo: Vec<Candidate>,
    /// Runs already labelled under the current criterion.
    pub done: Vec<Candidate>,
    /// Runs of a case that has changed since (another case digest), with
    /// evidence: never offered, but an exported batch may name them.
    pub older: Vec<Candidate>,
    /// Grader outcomes of usable stored runs with no `evidence` (stored
    /// before bob-eval kept what the judge saw): they cannot be labelled.
    pub no_evidence: usize,
    /// Grader outcomes of stored runs of a case that has changed since
    /// (another case digest), with evidence: their judge may have read
    /// another criterion, so they are not offered.
    pub other_version: usize,
    /// Judged graders whose name cannot name a labels file (with why).
    pub unnamed: Vec<String>,
}

impl Pool {
    /// The grader `case`/`grader`.
    pub fn grader(&self, case: &str, grader: &str) -> Option<&JudgedGrader> {
        self.graders
            .iter()
            .find(|g| g.case == case && g.grader == grader)
    }

    /// Stale labels in all, over the graders.
    pub fn stale(&self) -> usize {
        self.graders.iter().map(|g| g.current().1).sum()
    }
}

/// The opaque id of the run `run` for `grader` of `case`: a digest, so the
/// export says nothing of the judge's verdict.
pub fn entry_id(run: &str, case: &str, grader: &str) -> String {
    let digest = crate::evidence::digest_parts(["bob-eval-label-entry/1", run, case, grader]);
    format!("e{}", &digest[..16])
}

/// Gather what can be labelled for `suite` from `store` under `filter`.
pub fn gather(suite: &Suite, store: &Store, filter: &Filter) -> Result<Pool> {
    let mut unnamed = Vec::new();
    let mut graders = Vec::new();
    let mut digests = HashMap::new();
    for case in &suite.cases {
        if filter.case.as_ref().is_some_and(|c| *c != case.name) {
            continue;
        }
        let judged: Vec<_> = case
            .graders
            .iter()
            .filter(|g| g.kind().is_some_and(|k| k.asks_judge()))
            .filter(|g| filter.grader.as_ref().is_none_or(|n| *n == g.name))
            .collect();
        if judged.is_empty() {
            continue;
        }
        digests.insert(
            case.name.clone(),
            crate::evidence::case_digest(&suite.dir, &case.dir)?,
        );
        for g in judged {
            match labels::check_name(&g.name) {
                Ok(()) => graders.push(judged_grader(suite, case, g)?),
                Err(e) => unnamed.push(format!("case `{}`: {e}", case.name)),
            }
        }
    }
    let by_key: HashMap<(String, String), usize> = graders
        .iter()
        .enumerate()
        .map(|(i, g)| (g.key(), i))
        .collect();
    let mut pool = Pool {
        graders,
        todo: Vec::new(),
        done: Vec::new(),
        older: Vec::new(),
        no_evidence: 0,
        other_version: 0,
        unnamed,
    };
    let mut todo = Vec::new();
    for run in store.runs(&[suite.item.as_str().to_owned()])? {
        if filter.arm.is_some_and(|a| a != run.key.arm) || !run.outcome.usable() {
            continue;
        }
        let Some(digest) = digests.get(&run.key.case) else {
            continue;
        };
        let current = *digest == run.key.case_digest;
        for outcome in &run.outcome.graders {
            let Some(&i) = by_key.get(&(run.key.case.clone(), outcome.name.clone())) else {
                continue;
            };
            let Some(saw) = outcome.evidence.clone() else {
                pool.no_evidence += usize::from(current);
                continue;
            };
            let g = &pool.graders[i];
            let candidate = candidate(&run, g, saw, LabelVerdict::from_passed(outcome.passed));
            if !current {
                pool.other_version += 1;
                pool.older.push(candidate);
            } else if g.has_label(&run.id) {
                pool.done.push(candidate);
            } else {
                todo.push(candidate);
            }
        }
    }
    pool.todo = stratified(todo);
    Ok(pool)
}

fn judged_grader(suite: &Suite, case: &Case, g: &crate::suite::Grader) -> Result<JudgedGrader> {
    let path = labels::path(&suite.dir, &case.dir, &g.name)?;
    let labels = labels::load(&path)?;
    if let Some(l) = &labels
        && l.grader != g.name
    {
        return Err(Error::invalid(
            &path,
            format!(
                "holds the labels of grader {:?}, not {:?}: rename the file to {}{}",
                l.grader,
                g.name,
                l.grader,
                labels::SUFFIX
            ),
        ));
    }
    Ok(JudgedGrader {
        case: case.name.clone(),
        grader: g.name.clone(),
        criterion: labels::criterion_text(g),
        digest: labels::criterion_digest(g),
        path,
        labels,
    })
}

fn candidate(run: &StoredRun, g: &JudgedGrader, saw: String, judge: LabelVerdict) -> Candidate {
    Candidate {
        entry: entry_id(&run.id, &g.case, &g.grader),
        run: run.id.clone(),
        case: g.case.clone(),
        grader: g.grader.clone(),
        arm: run.key.arm,
        criterion: g.criterion.clone(),
        saw,
        judge,
        judge_model: run.key.judge_model.clone(),
    }
}

/// One grader's runs by arm and judge verdict.
type Strata = BTreeMap<(Arm, LabelVerdict), Vec<Candidate>>;

/// `candidates` in the order to label them: per grader, the strata arm ×
/// judge verdict drawn from in turn, each in a fixed shuffle; the graders in
/// turn too (see the module docs).
pub fn stratified(mut candidates: Vec<Candidate>) -> Vec<Candidate> {
    // The fixed shuffle: by the entry id, a digest.
    candidates.sort_by(|a, b| a.entry.cmp(&b.entry));
    let mut strata: BTreeMap<(String, String), Strata> = BTreeMap::new();
    for c in candidates {
        strata
            .entry((c.case.clone(), c.grader.clone()))
            .or_default()
            .entry((c.arm, c.judge))
            .or_default()
            .push(c);
    }
    // Per grader: its strata in turn.
    let mut per_grader: Vec<std::vec::IntoIter<Candidate>> = strata
        .into_values()
        .map(|s| round_robin(s.into_values().map(Vec::into_iter).collect()).into_iter())
        .collect();
    let mut out = Vec::new();
    loop {
        let before = out.len();
        for g in &mut per_grader {
            out.extend(g.next());
        }
        if out.len() == before {
            return out;
        }
    }
}

fn round_robin(mut lists: Vec<std::vec::IntoIter<Candidate>>) -> Vec<Candidate> {
    let mut out = Vec::new();
    loop {
        let before = out.len();
        for l in &mut lists {
            out.extend(l.next());
        }
        if out.len() == before {
            return out;
        }
    }
}

/// A person's answer for `candidate`, saved at once in its grader's labels
/// file under the current criterion. `Replaced` when the run had a label.
pub fn answer(
    grader: &mut JudgedGrader,
    candidate: &Candidate,
    human: LabelVerdict,
    by: Option<&str>,
    at: chrono::DateTime<chrono::Utc>,
) -> Result<Answered> {
    let label = new_label(candidate, human, by, at);
    let mut labels = grader
        .labels
        .take()
        .unwrap_or_else(|| Labels::new(&grader.grader, &grader.digest));
    let answered = labels.answer(label, &grader.digest);
    let saved = labels::save(&grader.path, &labels);
    grader.labels = Some(labels);
    saved.map(|()| answered)
}

/// An answer given for the earlier criterion `digest` (a batch exported
/// before the criterion changed): kept as a stale label when the run has no
/// label yet, else dropped (`false`): a label is never replaced by a stale one.
pub(crate) fn answer_stale(
    grader: &mut JudgedGrader,
    candidate: &Candidate,
    human: LabelVerdict,
    by: Option<&str>,
    at: chrono::DateTime<chrono::Utc>,
    digest: &str,
) -> Result<bool> {
    let mut labels = grader
        .labels
        .take()
        .unwrap_or_else(|| Labels::new(&grader.grader, &grader.digest));
    labels.restamp(&grader.digest);
    let fresh = !labels.labels.iter().any(|l| l.run == candidate.run);
    if fresh {
        labels.labels.push(Label {
            criterion_digest: Some(digest.to_owned()),
            ..new_label(candidate, human, by, at)
        });
    }
    let saved = if fresh {
        labels::save(&grader.path, &labels)
    } else {
        Ok(())
    };
    grader.labels = Some(labels);
    saved.map(|()| fresh)
}

fn new_label(
    candidate: &Candidate,
    human: LabelVerdict,
    by: Option<&str>,
    at: chrono::DateTime<chrono::Utc>,
) -> Label {
    Label {
        run: candidate.run.clone(),
        arm: candidate.arm.as_str().to_owned(),
        human,
        judge: candidate.judge,
        at: at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        by: by.map(str::to_owned),
        criterion_digest: None,
        judge_model: Some(candidate.judge_model.clone()),
    }
}

/// One grader's labels as they stand, and what calibration still needs.
#[derive(Debug, Clone, Serialize)]
pub struct GraderStatus {
    /// The case.
    pub case: String,
    /// The grader.
    pub grader: String,
    /// Its labels file.
    pub labels_file: Utf8PathBuf,
    /// Labels given for the current criterion.
    pub labels: usize,
    /// Labels given for an earlier criterion: they do not count.
    pub stale: usize,
    /// Stored runs with evidence not labelled yet.
    pub unlabelled: usize,
    /// What the labels say about the threshold.
    pub need: Need,
    /// More labels calibration needs in all (`None`: not reachable at the
    /// agreement seen so far).
    pub more_labels: Option<u32>,
    /// The person's time for them, in minutes at [`SECONDS_PER_LABEL`].
    pub minutes: Option<u32>,
}

/// What calibrating `suite`'s judged graders still needs, from their labels
/// files alone (no store: `unlabelled` is 0): what `run --dry-run` states.
/// Graders whose name cannot name a labels file are left out.
pub fn calibration(suite: &Suite) -> Result<Vec<GraderStatus>> {
    let mut graders = Vec::new();
    for case in &suite.cases {
        for g in &case.graders {
            if g.kind().is_some_and(|k| k.asks_judge()) && labels::check_name(&g.name).is_ok() {
                graders.push(judged_grader(suite, case, g)?);
            }
        }
    }
    let pool = Pool {
        graders,
        todo: Vec::new(),
        done: Vec::new(),
        older: Vec::new(),
        no_evidence: 0,
        other_version: 0,
        unnamed: Vec::new(),
    };
    Ok(status(&pool))
}

/// Every grader's status in `pool`, in suite order.
pub fn status(pool: &Pool) -> Vec<GraderStatus> {
    pool.graders
        .iter()
        .map(|g| {
            let (current, stale) = g.current();
            GraderStatus {
                case: g.case.clone(),
                grader: g.grader.clone(),
                labels_file: g.path.clone(),
                labels: current.len(),
                stale,
                unlabelled: pool
                    .todo
                    .iter()
                    .filter(|c| c.case == g.case && c.grader == g.grader)
                    .count(),
                need: need(&current),
                more_labels: None,
                minutes: None,
            }
        })
        .map(|mut row| {
            row.more_labels = row.need.more();
            row.minutes = row.need.minutes();
            row
        })
        .collect()
}
