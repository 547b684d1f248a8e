//! Suite loading: read `evals/<item>/` exactly as the platform reads it.
//!
//! A suite is a folder of case folders (groups may nest). A folder directly
//! holding `prompt.md` or `case.yaml` is a case and is not descended into;
//! `results`, `mocks`, `node_modules`, `.claude` and `.git` are skipped. A case
//! merges `case.yaml` with `prompt.md` (its frontmatter overrides, its body is
//! the prompt) and appends `graders/*.md` after the graders of `case.yaml`.
//!
//! The loader never stops at the first problem and never panics: every key
//! keeps its file and line, and what cannot be read becomes a [`Diagnostic`] in
//! [`Suite::problems`], so `bob-eval check` can report everything at once.
//!
//! Input is bounded: no link in a suite is ever followed, only regular files
//! are opened (a FIFO or device never is, so nothing can hang), only those of
//! at most [`MAX_SUITE_FILE`] bytes are read, and YAML nested
//! deeper than [`MAX_YAML_DEPTH`] is refused before it reaches the parser.

use crate::config::ItemName;
use crate::config::MAX_SUITE_FILE;
use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::error::{Error, Result};
use camino::{Utf8Path, Utf8PathBuf};
use serde_norway::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

mod block;
mod cases;
use cases::load_case;
mod flat;
mod frontmatter;
pub use frontmatter::{
    Frontmatter, MAX_YAML_DEPTH, Markdown, Unterminated, key_lines, key_string, parse_yaml,
    read_markdown, split_markdown, yaml_too_deep,
};
mod grader;
pub use grader::{
    COMMON_GRADER_KEYS, Grader, GraderKind, GraderSpec, MatchMode, Target, ToolRef, as_count,
    is_skill_trigger, is_with_only, parse_match, parse_target, parse_tool_ref,
};
pub mod judges;
pub mod labels;
mod read;
use read::{not_a_file, read, too_large};
pub use read::{read_opened, read_text, refusal};
mod walk;
use walk::{Scan, Walk};
#[cfg(test)]
mod tests;

/// Folder names the platform's case walk never enters.
pub const SKIPPED_DIRS: [&str; 5] = ["results", "mocks", "node_modules", ".claude", ".git"];

/// Keys of `prompt.md` frontmatter that land at the top level of the case.
pub const TOP_KEYS: [&str; 7] = [
    "schema_version",
    "name",
    "description",
    "tags",
    "plugins",
    "runs",
    "expected_outcome",
];

/// Keys of `prompt.md` frontmatter that land under `execution`.
pub const EXECUTION_KEYS: [&str; 9] = [
    "model",
    "max_turns",
    "timeout_seconds",
    "allowed_tools",
    "disallowed_tools",
    "artifact_publish",
    "growthbook_overrides",
    "append_system_prompt",
    "env",
];

/// Top-level keys of `case.yaml` (unknown ones are silently dropped by the
/// platform): the prompt.md top-level keys and the three sections.
pub const CASE_YAML_KEYS: [&str; 10] = concat(TOP_KEYS, ["execution", "context", "graders"]);

/// Keys of `case.yaml` `execution:` (the prompt.md execution keys plus `prompt`).
pub const CASE_EXECUTION_KEYS: [&str; 10] = concat(["prompt"], EXECUTION_KEYS);

/// `a` then `b`, at compile time (a length that does not add up fails the build).
const fn concat<const A: usize, const B: usize, const C: usize>(
    a: [&'static str; A],
    b: [&'static str; B],
) -> [&'static str; C] {
    assert!(A + B == C, "the lengths do not add up");
    let mut out = [""; C];
    let mut i = 0;
    while i < A {
        out[i] = a[i];
        i += 1;
    }
    while i < C {
        out[i] = b[i - A];
        i += 1;
    }
    out
}

/// Keys of `case.yaml` `context:`.
pub const CONTEXT_KEYS: [&str; 3] = ["scaffold_script", "history_file", "add_dirs"];

/// Deepest folder nesting the search for case folders enters.
const MAX_DEPTH: usize = 16;

/// The names of every suite under `source/evals/`, sorted (files are ignored).
pub fn list(source: &Utf8Path) -> Result<Vec<String>> {
    let evals = source.join("evals");
    let entries = match std::fs::read_dir(&evals) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(evals, "reading", e)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(&evals, "reading", e))?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if name.starts_with('.') || SKIPPED_DIRS.contains(&name.as_str()) {
            continue;
        }
        // A folder by the entry's own type; a link (or a file system that
        // does not say) is followed, as `is_dir` does.
        let dir = match entry.file_type() {
            Ok(kind) if kind.is_dir() => true,
            Ok(kind) if kind.is_file() => false,
            _ => evals.join(&name).is_dir(),
        };
        if dir {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// One key's value with where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The YAML value (a prompt or criteria body is a string).
    pub value: Value,
    /// The file it came from.
    pub file: Utf8PathBuf,
    /// Its 1-based line, when known.
    pub line: Option<usize>,
}

impl Entry {
    /// The value as a string, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        self.value.as_str()
    }
}

/// Where a case is defined (the platform's `source` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseSource {
    /// `prompt.md` (and `graders/*.md`) only.
    Prose,
    /// `case.yaml` only.
    CaseYaml,
    /// Both.
    Mixed,
}

/// Which part of a case file a key was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// `prompt.md` frontmatter (strict: an unknown key fails the case).
    PromptFrontmatter,
    /// Top level of `case.yaml` (unknown keys are silently dropped).
    CaseTop,
    /// `case.yaml` `execution:` (unknown keys are silently dropped).
    CaseExecution,
    /// `case.yaml` `context:` (unknown keys are silently dropped).
    CaseContext,
}

/// A key that is not part of its section.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownKey {
    /// The key as written.
    pub key: String,
    /// The section it sits in.
    pub section: Section,
    /// The file.
    pub file: Utf8PathBuf,
    /// Its 1-based line, when known.
    pub line: Option<usize>,
}

/// One case folder, merged as the platform merges it.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The case name: `name:` when set, else the folder name.
    pub name: String,
    /// The case folder.
    pub dir: Utf8PathBuf,
    /// Where the case is defined.
    pub source: CaseSource,
    /// `prompt.md`, when present.
    pub prompt_file: Option<Utf8PathBuf>,
    /// `case.yaml`, when present.
    pub case_file: Option<Utf8PathBuf>,
    /// Top-level keys (`schema_version`, `name`, `runs`, `tags`, …), merged.
    pub top: BTreeMap<String, Entry>,
    /// `execution` keys (including `prompt`), merged.
    pub execution: BTreeMap<String, Entry>,
    /// `context` keys.
    pub context: BTreeMap<String, Entry>,
    /// Graders: `case.yaml`'s first, then `graders/*.md` in name order.
    pub graders: Vec<Grader>,
    /// `graders/*.md` files with no frontmatter (the platform silently ignores them).
    pub ignored_graders: Vec<Utf8PathBuf>,
    /// Keys that are not part of their section.
    pub unknown_keys: Vec<UnknownKey>,
    /// True when a file of the case could not be read or parsed (its
    /// diagnostics are in [`Suite::problems`]); checks that would only repeat
    /// the consequence are skipped.
    pub broken: bool,
}

impl Case {
    /// The prompt (the `prompt.md` body, else `execution.prompt`).
    pub fn prompt(&self) -> Option<&Entry> {
        self.execution.get("prompt")
    }

    /// The prompt text, empty when missing.
    pub fn prompt_text(&self) -> &str {
        self.prompt().and_then(Entry::as_str).unwrap_or("")
    }

    /// The file a case-level diagnostic should name: `prompt.md`, else `case.yaml`, else the folder.
    pub fn main_file(&self) -> Utf8PathBuf {
        self.prompt_file
            .clone()
            .or_else(|| self.case_file.clone())
            .unwrap_or_else(|| self.dir.clone())
    }

    fn int(&self, map: &BTreeMap<String, Entry>, key: &str, default: u64) -> u64 {
        map.get(key)
            .and_then(|e| as_count(&e.value))
            .unwrap_or(default)
    }

    /// `runs` (default 3).
    pub fn runs(&self) -> u64 {
        self.int(&self.top, "runs", 3)
    }

    /// `max_turns` (default 10).
    pub fn max_turns(&self) -> u64 {
        self.int(&self.execution, "max_turns", 10)
    }

    /// `timeout_seconds` (default 300).
    pub fn timeout_seconds(&self) -> u64 {
        self.int(&self.execution, "timeout_seconds", 300)
    }

    /// `allowed_tools` (default none), the string entries only.
    pub fn allowed_tools(&self) -> Vec<String> {
        string_list(self.execution.get("allowed_tools"))
    }

    /// `tags` (default none), the string entries only.
    pub fn tags(&self) -> Vec<String> {
        string_list(self.top.get("tags"))
    }
}

fn string_list(entry: Option<&Entry>) -> Vec<String> {
    match entry.map(|e| &e.value) {
        Some(Value::Sequence(items)) => items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// A loaded suite.
#[derive(Debug, Clone, PartialEq)]
pub struct Suite {
    /// The item it tests.
    pub item: ItemName,
    /// `evals/<item>/`.
    pub dir: Utf8PathBuf,
    /// Its cases, in folder order.
    pub cases: Vec<Case>,
    /// What could not be read or parsed (never fatal to the load).
    pub problems: Vec<Diagnostic>,
    /// True when part of the suite could not be searched for cases (an
    /// unreadable folder, a symlink, a name that is not UTF-8, nesting too
    /// deep): a case may be missing only because of it, which
    /// [`Suite::problems`] already says.
    pub incomplete: bool,
    /// True when an entry named `mocks` is somewhere in the suite (a mock
    /// layer `check` looks at).
    pub mocks: bool,
}

/// Load `evals/<item>/` under `source`. Errors only when the suite folder is
/// missing (`Error::NoSuite`) or the name is invalid; every problem inside the
/// suite is collected in [`Suite::problems`].
pub fn load(source: &Utf8Path, item: &ItemName) -> Result<Suite> {
    let dir = crate::config::existing_suite(source, item)?;
    Ok(load_dir(&dir, item))
}

/// Load a suite folder (no name or existence checks).
///
/// Every entry of the suite is looked at without following it (what `run`
/// copies: all but the contents of the top-level `results/`): a symlink, a
/// FIFO, socket or device, a file above [`MAX_SUITE_FILE`]
/// bytes and a name that is not UTF-8 are findings, and are never read (only
/// a regular file is ever opened: a case's own file too large is measured
/// once open, as the walk would measure it).
pub fn load_dir(dir: &Utf8Path, item: &ItemName) -> Suite {
    let (cases, problems, scan) = scan_cases(dir);
    Suite {
        item: item.clone(),
        dir: dir.to_owned(),
        cases,
        problems,
        incomplete: scan.incomplete,
        mocks: scan.mocks,
    }
}

/// The cases of a folder of cases that tests no one named item (a plugin's
/// eval folder), and what could not be read, as [`load_dir`] finds them.
pub fn load_cases(dir: &Utf8Path) -> (Vec<Case>, Vec<Diagnostic>) {
    let (cases, problems, _) = scan_cases(dir);
    (cases, problems)
}

fn scan_cases(dir: &Utf8Path) -> (Vec<Case>, Vec<Diagnostic>, Scan) {
    let mut scan = Scan::default();
    scan.folder(dir, 0, Walk::Search, true, false);
    let mut problems = std::mem::take(&mut scan.problems);
    let cases = scan
        .cases
        .iter()
        .map(|d| load_case(&d.dir, d.yaml, d.prompt, &scan, &mut problems))
        .collect();
    (cases, problems, scan)
}

fn problem(
    code: Code,
    file: &Utf8Path,
    line: Option<usize>,
    message: String,
    fix: &str,
) -> Diagnostic {
    Diagnostic {
        severity: Severity::Error,
        code: code.as_str(),
        file: file.to_owned(),
        line,
        message,
        fix: fix.to_owned(),
    }
}
