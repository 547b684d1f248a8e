//! The file workflow: a batch of runs exported as JSON Lines for a person to
//! fill in (`human`: pass or fail), imported back into the labels files.
//! The file never holds the judge's verdict: it is looked up in the store
//! on import.

use super::{Candidate, Pool, answer, answer_stale};
use crate::error::{Error, Location, Result};
use crate::suite::labels::{Answered, LabelVerdict};
use camino::{Utf8Path, Utf8PathBuf};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The `format` of every exported line.
pub const ENTRY_FORMAT: &str = "bob-eval-label-entry/1";

/// The largest batch file read, in bytes.
const MAX_BATCH_FILE: u64 = 64 << 20;

/// One line of a batch: a run to label, without the judge's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchEntry {
    /// Always [`ENTRY_FORMAT`].
    pub format: String,
    /// The opaque entry id ([`super::entry_id`]).
    pub entry: String,
    /// The item.
    pub item: String,
    /// The case.
    pub case: String,
    /// The grader.
    pub grader: String,
    /// The run's arm.
    pub arm: String,
    /// The grader's criterion when exported.
    pub criterion: String,
    /// What the judge saw.
    pub saw: String,
    /// The person's verdict: `pass` or `fail`; blank (or null) to skip.
    #[serde(default)]
    pub human: Option<String>,
}

/// The entries for `candidates`, in order.
pub fn export_entries(item: &str, candidates: &[Candidate]) -> Vec<BatchEntry> {
    candidates
        .iter()
        .map(|c| BatchEntry {
            format: ENTRY_FORMAT.to_owned(),
            entry: c.entry.clone(),
            item: item.to_owned(),
            case: c.case.clone(),
            grader: c.grader.clone(),
            arm: c.arm.as_str().to_owned(),
            criterion: c.criterion.clone(),
            saw: c.saw.clone(),
            human: Some(String::new()),
        })
        .collect()
}

/// A filled-in line: its line number, entry and the person's verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The 1-based line.
    pub line: usize,
    /// The entry as read.
    pub entry: BatchEntry,
    /// The verdict; `None` when left blank.
    pub human: Option<LabelVerdict>,
}

/// Read a batch file: JSON Lines as exported (every non-blank line an
/// [`BatchEntry`]), or the same entries as one JSON array. Each entry of `item`,
/// given once, `human` blank (or null), `pass` or `fail` (any case; `true`
/// and `false` too). Errors name the file and line; nothing is read into
/// labels before the whole file is good.
pub fn read_entries(path: &Utf8Path, item: &str) -> Result<Vec<Answer>> {
    let text =
        crate::fsio::read_text(path, MAX_BATCH_FILE).map_err(|e| Error::unreadable(path, e))?;
    let at = |line: usize, message: String| Error::InvalidInput {
        at: Location::at(path, line),
        message,
    };
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut answers = Vec::new();
    for (line, value) in values(&text, path)? {
        let (entry, human) = entry_of(value).map_err(|e| at(line, e))?;
        if entry.format != ENTRY_FORMAT {
            return Err(at(
                line,
                format!("`format` is {:?}, not {ENTRY_FORMAT:?}", entry.format),
            ));
        }
        if entry.item != item {
            return Err(at(
                line,
                format!(
                    "this entry is for item {:?}, not {item:?}: import it with `bob-eval label {} --import {path}`",
                    entry.item, entry.item
                ),
            ));
        }
        if let Some(first) = seen.insert(entry.entry.clone(), line) {
            return Err(at(
                line,
                format!(
                    "entry {} is given twice (also line {first}): keep one answer per entry",
                    entry.entry
                ),
            ));
        }
        answers.push(Answer { line, entry, human });
    }
    Ok(answers)
}

/// The entries of a batch with the line each starts on: one a line, or the
/// elements of one JSON array.
fn values(text: &str, path: &Utf8Path) -> Result<Vec<(usize, serde_json::Value)>> {
    if !text.trim_start().starts_with('[') {
        let mut out = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            if raw.trim().is_empty() {
                continue;
            }
            let value = serde_json::from_str(raw).map_err(|e| Error::InvalidInput {
                at: Location::at(path, i + 1),
                message: format!(
                    "not a {ENTRY_FORMAT} line: {e} (keep one JSON object a line, as exported)"
                ),
            })?;
            out.push((i + 1, value));
        }
        return Ok(out);
    }
    let items: Vec<serde_json::Value> =
        serde_json::from_str(text).map_err(|e| Error::InvalidInput {
            at: Location::at(path, e.line().max(1)),
            message: format!("not a JSON array of {ENTRY_FORMAT} entries: {e}"),
        })?;
    let lines = element_lines(text);
    Ok(items
        .into_iter()
        .enumerate()
        .map(|(i, v)| (lines.get(i).copied().unwrap_or(1), v))
        .collect())
}

/// The 1-based line where each element of the top-level array of `text` starts.
fn element_lines(text: &str) -> Vec<usize> {
    let (mut depth, mut in_string, mut escaped, mut line) = (0usize, false, false, 1);
    let mut out = Vec::new();
    let mut expect = false;
    for c in text.chars() {
        if c == '\n' {
            line += 1;
        }
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        if expect && depth == 1 && !c.is_whitespace() && c != ']' {
            out.push(line);
            expect = false;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => {
                depth += 1;
                if depth == 1 {
                    expect = true;
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 1 => expect = true,
            _ => {}
        }
    }
    out
}

/// An entry and its verdict from one JSON value: `human` a string (blank
/// skips), a boolean or null.
fn entry_of(
    mut value: serde_json::Value,
) -> std::result::Result<(BatchEntry, Option<LabelVerdict>), String> {
    let human = match value.get_mut("human").map(serde_json::Value::take) {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::Bool(b)) => Some(LabelVerdict::from_passed(b)),
        Some(serde_json::Value::String(text)) if text.trim().is_empty() => None,
        Some(serde_json::Value::String(text)) => {
            Some(LabelVerdict::parse(&text).ok_or_else(|| {
                format!("`human` is {text:?}: write pass or fail, or leave it blank to skip")
            })?)
        }
        Some(other) => {
            return Err(format!(
                "`human` is {other}: write pass or fail, or leave it blank to skip"
            ));
        }
    };
    let mut entry: BatchEntry = serde_json::from_value(value)
        .map_err(|e| format!("not a {ENTRY_FORMAT} entry: {e} (keep the fields as exported)"))?;
    entry.human = human.map(|h| h.as_str().to_owned());
    Ok((entry, human))
}

/// What an import did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LabelImportReport {
    /// The batch file.
    pub file: Utf8PathBuf,
    /// Lines read (entries).
    pub entries: usize,
    /// Entries left blank: skipped.
    pub skipped: usize,
    /// Answers recorded for runs not labelled before.
    pub added: usize,
    /// Answers that replaced a run's earlier label.
    pub replaced: usize,
    /// Answers given for an earlier criterion (the grader changed since the
    /// export), kept as stale labels.
    pub stale: usize,
    /// Answers for an earlier criterion on a run already labelled: dropped.
    pub dropped: usize,
    /// The labels files written.
    pub written: Vec<Utf8PathBuf>,
}

/// What [`import`] hands back: the report, and the pool as it is now.
#[derive(Debug, Clone)]
pub struct Imported {
    /// Counts.
    pub report: LabelImportReport,
    /// The graders with their labels as written.
    pub pool: Pool,
}

/// Import `answers` (read by [`read_entries`] from `file`) into the labels
/// files of `pool`'s graders, looking each judge's verdict up in the pool's
/// runs. An entry the pool does not know (another store, another item, a
/// grader gone) refuses the whole import, naming its line.
pub fn import(
    mut pool: Pool,
    file: &Utf8Path,
    answers: Vec<Answer>,
    by: Option<&str>,
    at: chrono::DateTime<chrono::Utc>,
) -> Result<Imported> {
    let known: HashMap<&str, &Candidate> = pool
        .todo
        .iter()
        .chain(&pool.done)
        .chain(&pool.older)
        .map(|c| (c.entry.as_str(), c))
        .collect();
    let mut planned = Vec::new();
    for a in &answers {
        let Some(c) = known.get(a.entry.entry.as_str()) else {
            return Err(Error::InvalidInput {
                at: Location::at(file, a.line),
                message: format!(
                    "entry {} (case `{}`, grader `{}`) is not a stored run of this item's judged graders here: was the batch exported from another store, or the grader renamed? Nothing was imported",
                    a.entry.entry, a.entry.case, a.entry.grader
                ),
            });
        };
        if let Some(human) = a.human {
            planned.push(((*c).clone(), human, a.entry.criterion.clone()));
        }
    }
    let mut report = LabelImportReport {
        file: file.to_owned(),
        entries: answers.len(),
        skipped: answers.iter().filter(|a| a.human.is_none()).count(),
        ..LabelImportReport::default()
    };
    for (c, human, criterion) in planned {
        let Some(g) = pool
            .graders
            .iter_mut()
            .find(|g| g.case == c.case && g.grader == c.grader)
        else {
            continue;
        };
        let digest = crate::suite::labels::text_digest(&criterion);
        if digest == g.digest {
            match answer(g, &c, human, by, at)? {
                Answered::Added => report.added += 1,
                Answered::Replaced(_) => report.replaced += 1,
            }
            if let Some(i) = pool.todo.iter().position(|t| t.entry == c.entry) {
                pool.done.push(pool.todo.remove(i));
            }
        } else if answer_stale(g, &c, human, by, at, &digest)? {
            report.stale += 1;
        } else {
            report.dropped += 1;
        }
        if !report.written.contains(&g.path) {
            report.written.push(g.path.clone());
        }
    }
    Ok(Imported { report, pool })
}
