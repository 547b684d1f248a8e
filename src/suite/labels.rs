//! The labels file: a person's PASS/FAIL on stored runs of one llm grader,
//! kept beside the grader as `graders/<grader>.labels.json` (docs/judges.md).
//!
//! A small committed file, so a team shares its labels. It names the digest
//! of the criterion the labels were given for: when the criterion changes,
//! the labels no longer count ([`Labels::current`] says how many are stale).
//! Each label keeps the run it came from and the judge's verdict on that run,
//! so a grader's record is computed from this file alone.

use crate::error::{Error, Location, Result};
use crate::fsio;
use crate::suite::Grader;
use camino::{Utf8Path, Utf8PathBuf};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The `format` of every labels file.
pub const FORMAT: &str = "bob-eval-labels/1";

/// What a grader's labels file name ends with: `<grader>.labels.json`.
pub const SUFFIX: &str = ".labels.json";

/// The longest grader name that names a labels file, in bytes.
pub const MAX_NAME: usize = 128;

/// A PASS or FAIL: the person's, or the judge's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LabelVerdict {
    /// The run meets the criterion.
    Pass,
    /// It does not.
    Fail,
}

impl LabelVerdict {
    /// `pass` or `fail`.
    pub fn as_str(self) -> &'static str {
        match self {
            LabelVerdict::Pass => "pass",
            LabelVerdict::Fail => "fail",
        }
    }

    /// The verdict of a grader outcome's `passed`.
    pub fn from_passed(passed: bool) -> LabelVerdict {
        if passed {
            LabelVerdict::Pass
        } else {
            LabelVerdict::Fail
        }
    }

    /// True for [`LabelVerdict::Pass`].
    pub fn passed(self) -> bool {
        self == LabelVerdict::Pass
    }

    /// `pass` or `fail` in any case (also `PASS`, `Fail`); anything else is `None`.
    pub fn parse(text: &str) -> Option<LabelVerdict> {
        match text.trim().to_ascii_lowercase().as_str() {
            "pass" => Some(LabelVerdict::Pass),
            "fail" => Some(LabelVerdict::Fail),
            _ => None,
        }
    }
}

/// One person's verdict on one stored run of the grader.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    /// The stored run's id (`bob-eval evidence` names it).
    pub run: String,
    /// The arm of that run: `with` or `without`.
    pub arm: String,
    /// The person's verdict.
    pub human: LabelVerdict,
    /// The judge's verdict on that run for this grader (the stored outcome's `passed`).
    pub judge: LabelVerdict,
    /// When it was given (RFC 3339, UTC).
    pub at: String,
    /// Who gave it, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// The criterion it was given for, when not the file's: a label kept
    /// from an earlier criterion (stale; it counts again if the criterion
    /// comes back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub criterion_digest: Option<String>,
    /// The judge model of the run labelled (its key's `judge_model`): a
    /// judge's record is of one judge model. Absent in labels given before
    /// bob-eval kept it: those count for any judge model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_model: Option<String>,
}

impl Label {
    /// True when this label counts toward the record of `judge_model`:
    /// given under it, or under no model said (an older label); every
    /// label counts when no judge model is asked for.
    pub fn counts_for(&self, judge_model: Option<&str>) -> bool {
        match (judge_model, self.judge_model.as_deref()) {
            (Some(asked), Some(given)) => asked == given,
            _ => true,
        }
    }
}

/// A grader's labels file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Labels {
    /// Always [`FORMAT`].
    pub format: String,
    /// The grader's name, as the document names it.
    pub grader: String,
    /// The criterion the labels were given for ([`criterion_digest`]).
    pub criterion_digest: String,
    /// The labels, one per run, in the order given.
    pub labels: Vec<Label>,
}

/// What [`Labels::answer`] did with a label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answered {
    /// A run not labelled before.
    Added,
    /// The run had a label: it is replaced (the earlier one returned).
    Replaced(Label),
}

impl Labels {
    /// An empty labels file for `grader` under the criterion `digest`.
    pub fn new(grader: &str, digest: &str) -> Labels {
        Labels {
            format: FORMAT.to_owned(),
            grader: grader.to_owned(),
            criterion_digest: digest.to_owned(),
            labels: Vec::new(),
        }
    }

    /// The criterion `label` was given for.
    pub fn digest_of<'a>(&'a self, label: &'a Label) -> &'a str {
        label
            .criterion_digest
            .as_deref()
            .unwrap_or(&self.criterion_digest)
    }

    /// The labels given for the criterion `digest`, and how many were given
    /// for another (stale: they do not count).
    pub fn current(&self, digest: &str) -> (Vec<&Label>, usize) {
        let (current, stale): (Vec<&Label>, Vec<&Label>) = self
            .labels
            .iter()
            .partition(|l| self.digest_of(l) == digest);
        (current, stale.len())
    }

    /// The label of `run` under the criterion `digest`, if any.
    pub fn current_for(&self, run: &str, digest: &str) -> Option<&Label> {
        self.labels
            .iter()
            .find(|l| l.run == run && self.digest_of(l) == digest)
    }

    /// Make `digest` the file's criterion: labels given for the earlier one
    /// keep theirs on the label, so they stay stale.
    pub fn restamp(&mut self, digest: &str) {
        if self.criterion_digest == digest {
            return;
        }
        let old = std::mem::replace(&mut self.criterion_digest, digest.to_owned());
        for label in &mut self.labels {
            if label.criterion_digest.is_none() {
                label.criterion_digest = Some(old.clone());
            }
            if label.criterion_digest.as_deref() == Some(digest) {
                label.criterion_digest = None;
            }
        }
    }

    /// Record `label`, given under the criterion `digest`: one label per run,
    /// so an earlier label of the same run (current or stale) is replaced.
    pub fn answer(&mut self, mut label: Label, digest: &str) -> Answered {
        self.restamp(digest);
        label.criterion_digest = None;
        match self.labels.iter().position(|l| l.run == label.run) {
            Some(i) => Answered::Replaced(std::mem::replace(&mut self.labels[i], label)),
            None => {
                self.labels.push(label);
                Answered::Added
            }
        }
    }

    /// The file's text: pretty JSON with one label per line, so a review
    /// diff shows one line per label and an error names the label's line.
    pub fn to_text(&self) -> String {
        let head = |v: &str| serde_json::to_string(v).expect("a string serializes");
        let mut out = format!(
            "{{\n  \"format\": {},\n  \"grader\": {},\n  \"criterion_digest\": {},\n  \"labels\": [",
            head(&self.format),
            head(&self.grader),
            head(&self.criterion_digest)
        );
        for (i, label) in self.labels.iter().enumerate() {
            out.push_str(if i == 0 { "\n    " } else { ",\n    " });
            out.push_str(&serde_json::to_string(label).expect("a label serializes"));
        }
        out.push_str(if self.labels.is_empty() {
            "]\n}\n"
        } else {
            "\n  ]\n}\n"
        });
        out
    }
}

/// The sentence every reader of labels says about stale ones (empty when none).
pub fn stale_words(stale: usize) -> String {
    match stale {
        0 => String::new(),
        1 => "1 label was given for an earlier criterion; label again".to_owned(),
        n => format!("{n} labels were given for an earlier criterion; label again"),
    }
}

/// The grader's criterion text as bob-eval reads it from the suite: its
/// `criteria` (the file's body when the frontmatter does not set it), or the
/// YAML of a value that is not a string; empty when it has none.
pub fn criterion_text(grader: &Grader) -> String {
    match grader.fields.get("criteria").map(|e| &e.value) {
        None => String::new(),
        Some(serde_norway::Value::String(s)) => s.clone(),
        Some(other) => serde_norway::to_string(other).unwrap_or_default(),
    }
}

/// `sha256:<hex>` of the grader's criterion text: the one digest labels are given for.
pub fn criterion_digest(grader: &Grader) -> String {
    text_digest(&criterion_text(grader))
}

/// `sha256:<hex>` of a criterion text ([`criterion_digest`] of a grader with it).
pub fn text_digest(criterion: &str) -> String {
    let hash = Sha256::digest(criterion.as_bytes());
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in hash.iter() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Refuse a grader name that cannot name a file: only ASCII letters, digits,
/// `-`, `_` and `.` (not first), at most [`MAX_NAME`] bytes.
pub fn check_name(grader: &str) -> Result<()> {
    let ok = !grader.is_empty()
        && grader.len() <= MAX_NAME
        && !grader.starts_with('.')
        && grader
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "grader {grader:?} cannot name its labels file (graders/<grader>{SUFFIX}): give it a `name:` of ASCII letters, digits, '-', '_' or '.' (not first), at most {MAX_NAME} characters"
    )))
}

/// `graders/<grader>.labels.json` in the case folder `case_dir`: a folder
/// relative to `suite_dir`, or one already under it (as `Case::dir` gives it).
/// The grader is named as the document names it; an unsafe name is refused.
pub fn path(suite_dir: &Utf8Path, case_dir: &Utf8Path, grader: &str) -> Result<Utf8PathBuf> {
    check_name(grader)?;
    let dir = if case_dir.starts_with(suite_dir) || case_dir.is_absolute() {
        case_dir.to_owned()
    } else {
        suite_dir.join(case_dir)
    };
    Ok(dir.join("graders").join(format!("{grader}{SUFFIX}")))
}

/// True when `file_name` is a labels file's (`*.labels.json`).
pub fn is_labels_file(file_name: &str) -> bool {
    file_name.len() > SUFFIX.len() && file_name.ends_with(SUFFIX)
}

/// True when `path` is a labels file in a `graders/` folder: a file of the
/// source tree the platform never reads, kept out of the run's plugin and of
/// the case's digest (labelling a run never makes its evidence stale).
pub fn is_labels_path(path: &Utf8Path) -> bool {
    path.file_name().is_some_and(is_labels_file)
        && path
            .parent()
            .and_then(Utf8Path::file_name)
            .is_some_and(|d| d == "graders")
}

/// Read a labels file: `None` when it does not exist. Not JSON, not valid
/// against `bob-eval-labels/1`, or a run labelled twice: an error naming the
/// file and line.
pub fn load(path: &Utf8Path) -> Result<Option<Labels>> {
    let bytes = match fsio::read_regular(path, fsio::Links::Refuse, crate::config::MAX_SUITE_FILE) {
        Ok(bytes) => bytes,
        Err(fsio::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(None);
        }
        Err(e) => return Err(Error::unreadable(path, e.into())),
    };
    let text = String::from_utf8(bytes).map_err(|_| Error::invalid(path, "not UTF-8 text"))?;
    parse(&text, path).map(Some)
}

/// Parse the text of the labels file `path` (see [`load`]).
pub fn parse(text: &str, path: &Utf8Path) -> Result<Labels> {
    let doc: serde_json::Value = serde_json::from_str(text).map_err(|e| Error::InvalidInput {
        at: Location::at(path, e.line().max(1)),
        message: format!("not valid JSON: {e}"),
    })?;
    if let Some((pointer, message)) = crate::schema::labels_violations(&doc).into_iter().next() {
        return Err(Error::InvalidInput {
            at: Location::at(path, line_of(text, &pointer)),
            message: format!(
                "not a valid {FORMAT} file: {}: {message} (fix the file, or remove it and label again)",
                if pointer.is_empty() { "/" } else { &pointer }
            ),
        });
    }
    let labels: Labels = serde_json::from_value(doc)
        .map_err(|e| Error::invalid(path, format!("not a valid {FORMAT} file: {e}")))?;
    for (i, label) in labels.labels.iter().enumerate() {
        if let Some(first) = labels.labels[..i].iter().position(|l| l.run == label.run) {
            return Err(Error::InvalidInput {
                at: Location::at(path, line_of(text, &format!("/labels/{i}"))),
                message: format!(
                    "run {:?} is labelled twice (also label #{}): keep one label per run",
                    label.run,
                    first + 1
                ),
            });
        }
    }
    Ok(labels)
}

/// Write a labels file atomically, creating `graders/` when needed, a signal
/// held off until it is written. A symlink at its path is refused, never
/// written through (a file of the source tree).
pub fn save(path: &Utf8Path, labels: &Labels) -> Result<()> {
    // A signal waits for the write to end: no temp file is left in graders/.
    let _guard = crate::error::interrupt::guard()?;
    if let Some(dir) = path.parent().filter(|d| !d.as_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, "creating", e))?;
    }
    fsio::write_confined(path, labels.to_text().as_bytes())
}

/// The 1-based line where the JSON value at `pointer` starts in `text`: the
/// line of the `N`th label for `/labels/N…`, else 1.
fn line_of(text: &str, pointer: &str) -> usize {
    let Some(index) = pointer
        .strip_prefix("/labels/")
        .and_then(|rest| rest.split('/').next())
        .and_then(|n| n.parse::<usize>().ok())
    else {
        return 1;
    };
    let (mut depth, mut in_string, mut escaped, mut seen, mut line) = (0usize, false, false, 0, 1);
    let mut in_labels = false;
    let mut last_key = String::new();
    let mut key = String::new();
    for c in text.chars() {
        if c == '\n' {
            line += 1;
        }
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => {
                    in_string = false;
                    last_key = std::mem::take(&mut key);
                }
                (false, c) => key.push(c),
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '[' if depth == 1 => {
                in_labels = last_key == "labels";
                depth += 1;
            }
            '{' if depth == 2 && in_labels => {
                if seen == index {
                    return line;
                }
                seen += 1;
                depth += 1;
            }
            '{' | '[' => depth += 1,
            '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    1
}

#[cfg(test)]
#[path = "labels_tests.rs"]
mod tests;
