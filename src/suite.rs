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
//! of at most [`MAX_SUITE_FILE`] bytes are
//! opened (a FIFO or device never is, so nothing can hang), and YAML nested
//! deeper than [`MAX_YAML_DEPTH`] is refused before it reaches the parser.

use crate::config::MAX_SUITE_FILE;
use crate::diagnostic::{Diagnostic, Severity};
use crate::error::{Error, Result};
use camino::{Utf8Path, Utf8PathBuf};
use serde_norway::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

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

/// Top-level keys of `case.yaml` (unknown ones are silently dropped by the platform).
pub const CASE_YAML_KEYS: [&str; 10] = [
    "schema_version",
    "name",
    "description",
    "tags",
    "plugins",
    "runs",
    "expected_outcome",
    "execution",
    "context",
    "graders",
];

/// Keys of `case.yaml` `execution:` (the prompt.md execution keys plus `prompt`).
pub const CASE_EXECUTION_KEYS: [&str; 10] = [
    "prompt",
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
        if evals.join(&name).is_dir() {
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

/// The six grader types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraderKind {
    /// A JavaScript regex over a target.
    Regex,
    /// A tool was called (between `min` and `max` times).
    ToolUsed,
    /// One tool call came before another.
    ToolOrder,
    /// A file glob exists (or not) after the run.
    FileExists,
    /// An LLM judge with criteria (2 of 3 votes).
    Llm,
    /// An LLM judge comparing against a recorded baseline.
    Baseline,
}

impl GraderKind {
    /// Every grader type, in the platform's order.
    pub const ALL: [GraderKind; 6] = [
        GraderKind::Regex,
        GraderKind::ToolOrder,
        GraderKind::ToolUsed,
        GraderKind::FileExists,
        GraderKind::Llm,
        GraderKind::Baseline,
    ];

    /// The name used in `type:`.
    pub fn as_str(self) -> &'static str {
        match self {
            GraderKind::Regex => "regex",
            GraderKind::ToolUsed => "tool_used",
            GraderKind::ToolOrder => "tool_order",
            GraderKind::FileExists => "file_exists",
            GraderKind::Llm => "llm",
            GraderKind::Baseline => "baseline",
        }
    }

    /// Parse a `type:` value.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == text)
    }

    /// The keys this type accepts (besides `type`, `name`, `weight`, `arm`).
    pub fn keys(self) -> &'static [&'static str] {
        match self {
            GraderKind::Regex => &["pattern", "flags", "match", "target"],
            GraderKind::ToolUsed => &["tool", "input_match", "min", "max"],
            GraderKind::ToolOrder => &["before", "after"],
            GraderKind::FileExists => &["path", "exists"],
            GraderKind::Llm => &["criteria", "focus"],
            GraderKind::Baseline => &["baseline_file", "criteria"],
        }
    }

    /// The keys this type requires.
    pub fn required(self) -> &'static [&'static str] {
        match self {
            GraderKind::Regex => &["pattern"],
            GraderKind::ToolUsed => &["tool"],
            GraderKind::ToolOrder => &["before", "after"],
            GraderKind::FileExists => &["path"],
            GraderKind::Llm => &["criteria"],
            GraderKind::Baseline => &["baseline_file", "criteria"],
        }
    }

    /// The key a grader file's body fills when the frontmatter does not set it.
    pub fn body_key(self) -> Option<&'static str> {
        match self {
            GraderKind::Llm | GraderKind::Baseline => Some("criteria"),
            GraderKind::Regex => Some("pattern"),
            _ => None,
        }
    }
}

/// Keys every grader accepts.
pub const COMMON_GRADER_KEYS: [&str; 4] = ["type", "name", "weight", "arm"];

/// One grader, from a `graders/*.md` file or a `case.yaml` `graders:` item.
#[derive(Debug, Clone, PartialEq)]
pub struct Grader {
    /// Its name: the file name without `.md`, or `name:`.
    pub name: String,
    /// The file it is defined in.
    pub file: Utf8PathBuf,
    /// The line where it starts (1 for a grader file).
    pub line: Option<usize>,
    /// Every key as written (including unknown ones), with the body filled in.
    pub fields: BTreeMap<String, Entry>,
}

/// What a regex grader looks at, or an llm grader focuses on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The final assistant message (the default).
    LastMessage,
    /// The whole trace.
    Trace,
    /// The list of files written.
    Files,
    /// Calls made to mocked tools.
    MockCalls,
    /// One file's content.
    File(String),
}

/// How a regex grader's pattern must match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchMode {
    /// At least once (the default).
    Contains,
    /// Never.
    NotContains,
    /// Exactly N times.
    Count(u64),
}

/// A tool reference in a `tool_order` grader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolRef {
    /// The tool name.
    pub tool: String,
    /// A regex over the JSON-encoded input, if any.
    pub input_match: Option<String>,
}

/// A grader's typed configuration, with the platform's defaults applied.
#[derive(Debug, Clone, PartialEq)]
pub enum GraderSpec {
    /// `type: regex`.
    Regex {
        /// The JavaScript pattern.
        pattern: String,
        /// JavaScript flags (default empty).
        flags: String,
        /// `contains` (default), `not_contains`, `count:N`.
        mode: MatchMode,
        /// What it reads (default the last message).
        target: Target,
    },
    /// `type: tool_used`.
    ToolUsed {
        /// The tool.
        tool: String,
        /// Regex over the JSON-encoded input.
        input_match: Option<String>,
        /// Fewest calls (default 1).
        min: u64,
        /// Most calls.
        max: Option<u64>,
    },
    /// `type: tool_order`.
    ToolOrder {
        /// The call that must come first.
        before: ToolRef,
        /// The call that must come after.
        after: ToolRef,
    },
    /// `type: file_exists`.
    FileExists {
        /// The glob.
        path: String,
        /// Whether it must exist (default true).
        exists: bool,
    },
    /// `type: llm`.
    Llm {
        /// The pass criteria (the file body).
        criteria: String,
        /// What the judge reads (default the last message).
        focus: Target,
    },
    /// `type: baseline`.
    Baseline {
        /// The `.jsonl` in the case folder.
        baseline_file: String,
        /// The criteria (the file body).
        criteria: String,
    },
}

impl Grader {
    /// A key's entry.
    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.fields.get(key)
    }

    /// A key's string value.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Entry::as_str)
    }

    /// The declared type, if it is one of the six.
    pub fn kind(&self) -> Option<GraderKind> {
        self.str("type").and_then(GraderKind::parse)
    }

    /// `weight` (default 1).
    pub fn weight(&self) -> f64 {
        self.get("weight")
            .and_then(|e| e.value.as_f64())
            .unwrap_or(1.0)
    }

    /// `arm` (`with-only` or `both`), when set.
    pub fn arm(&self) -> Option<&str> {
        self.str("arm")
    }

    /// True for a `tool_used` grader on the `Skill` tool: it sees whether a
    /// skill fired, not what the answer holds.
    pub fn is_skill_trigger(&self) -> bool {
        self.kind() == Some(GraderKind::ToolUsed) && self.str("tool") == Some("Skill")
    }

    /// True when the platform treats this grader as with-only under
    /// `with-without` (a plugin-fired indicator, not scored): a Skill trigger
    /// without `arm: both`, or any grader with `arm: with-only`.
    pub fn is_with_only(&self) -> bool {
        match self.arm() {
            Some("with-only") => true,
            Some("both") => false,
            _ => self.is_skill_trigger(),
        }
    }

    /// The typed configuration with defaults, or `None` when a required key is
    /// missing or mistyped (`bob-eval check` says which).
    pub fn spec(&self) -> Option<GraderSpec> {
        let s = |k: &str| self.str(k).map(str::to_owned);
        Some(match self.kind()? {
            GraderKind::Regex => GraderSpec::Regex {
                pattern: s("pattern")?,
                flags: match self.get("flags") {
                    Some(e) => e.as_str()?.to_owned(),
                    None => String::new(),
                },
                mode: match self.get("match") {
                    Some(e) => parse_match(e.as_str()?)?,
                    None => MatchMode::Contains,
                },
                target: match self.get("target") {
                    Some(e) => parse_target(&e.value)?,
                    None => Target::LastMessage,
                },
            },
            GraderKind::ToolUsed => GraderSpec::ToolUsed {
                tool: s("tool")?,
                input_match: match self.get("input_match") {
                    Some(e) => Some(e.as_str()?.to_owned()),
                    None => None,
                },
                min: match self.get("min") {
                    Some(e) => as_count(&e.value)?,
                    None => 1,
                },
                max: match self.get("max") {
                    Some(e) => Some(as_count(&e.value)?),
                    None => None,
                },
            },
            GraderKind::ToolOrder => GraderSpec::ToolOrder {
                before: parse_tool_ref(&self.get("before")?.value)?,
                after: parse_tool_ref(&self.get("after")?.value)?,
            },
            GraderKind::FileExists => GraderSpec::FileExists {
                path: s("path")?,
                exists: match self.get("exists") {
                    Some(e) => e.value.as_bool()?,
                    None => true,
                },
            },
            GraderKind::Llm => GraderSpec::Llm {
                criteria: s("criteria")?,
                focus: match self.get("focus") {
                    Some(e) => parse_target(&e.value)?,
                    None => Target::LastMessage,
                },
            },
            GraderKind::Baseline => GraderSpec::Baseline {
                baseline_file: s("baseline_file")?,
                criteria: s("criteria")?,
            },
        })
    }
}

/// `contains`, `not_contains` or `count:N`.
pub fn parse_match(text: &str) -> Option<MatchMode> {
    match text {
        "contains" => Some(MatchMode::Contains),
        "not_contains" => Some(MatchMode::NotContains),
        _ => {
            let digits = text.strip_prefix("count:")?;
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            digits.parse().ok().map(MatchMode::Count)
        }
    }
}

/// A `target`/`focus` value: a name, or `{source: file, path: P}`.
pub fn parse_target(value: &Value) -> Option<Target> {
    match value {
        Value::String(s) => match s.as_str() {
            "last_message" => Some(Target::LastMessage),
            "trace" => Some(Target::Trace),
            "files" => Some(Target::Files),
            "mock_calls" => Some(Target::MockCalls),
            _ => None,
        },
        Value::Mapping(map) => {
            if map.len() != 2 || map.get("source").and_then(Value::as_str) != Some("file") {
                return None;
            }
            map.get("path")
                .and_then(Value::as_str)
                .map(|p| Target::File(p.to_owned()))
        }
        _ => None,
    }
}

/// A `before`/`after` value: a tool name, or `{tool, input_match}`.
pub fn parse_tool_ref(value: &Value) -> Option<ToolRef> {
    match value {
        Value::String(tool) => Some(ToolRef {
            tool: tool.clone(),
            input_match: None,
        }),
        Value::Mapping(map) => {
            if map
                .keys()
                .any(|k| !matches!(k.as_str(), Some("tool" | "input_match")))
            {
                return None;
            }
            let tool = map.get("tool")?.as_str()?.to_owned();
            let input_match = match map.get("input_match") {
                Some(v) => Some(v.as_str()?.to_owned()),
                None => None,
            };
            Some(ToolRef { tool, input_match })
        }
        _ => None,
    }
}

/// A non-negative integer (a YAML float with no fraction counts, as in JavaScript).
pub fn as_count(value: &Value) -> Option<u64> {
    if let Some(n) = value.as_u64() {
        return Some(n);
    }
    let f = value.as_f64()?;
    (f >= 0.0 && f.fract() == 0.0 && f <= u64::MAX as f64).then_some(f as u64)
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
    pub item: String,
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
pub fn load(source: &Utf8Path, item: &str) -> Result<Suite> {
    crate::config::validate_item_name(item)?;
    let dir = crate::config::existing_suite(source, item)?;
    Ok(load_dir(&dir, item))
}

/// Load a suite folder (no name or existence checks).
///
/// Every entry of the suite is looked at without following it (what `run`
/// copies: all but the contents of the top-level `results/`): a symlink, a
/// FIFO, socket or device, a file above [`MAX_SUITE_FILE`]
/// bytes and a name that is not UTF-8 are findings, and are never opened.
pub fn load_dir(dir: &Utf8Path, item: &str) -> Suite {
    let mut scan = Scan::default();
    scan.folder(dir, 0, Walk::Search, true);
    let mut problems = std::mem::take(&mut scan.problems);
    let cases = scan
        .cases
        .iter()
        .map(|d| load_case(&d.dir, d.yaml, d.prompt, &scan, &mut problems))
        .collect();
    Suite {
        item: item.into(),
        dir: dir.to_owned(),
        cases,
        problems,
        incomplete: scan.incomplete,
        mocks: scan.mocks,
    }
}

fn problem(
    code: &'static str,
    file: &Utf8Path,
    line: Option<usize>,
    message: String,
    fix: &str,
) -> Diagnostic {
    Diagnostic {
        severity: Severity::Error,
        code,
        file: file.to_owned(),
        line,
        message,
        fix: fix.to_owned(),
    }
}

/// A case folder found by the scan, with which of its two files it holds
/// (present as any kind of entry: one that is refused still makes the case).
struct CaseDir {
    dir: Utf8PathBuf,
    prompt: bool,
    yaml: bool,
}

/// How the scan treats a folder.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Walk {
    /// Searching for case folders.
    Search,
    /// Inside a case (or a skipped folder): only looking at the entries.
    Look,
}

/// Deepest folder nesting the scan enters below a suite (case folders are
/// searched for only [`MAX_DEPTH`] deep).
const MAX_SCAN_DEPTH: usize = 64;

/// The scan of a suite folder: its case folders, and every entry it refuses.
#[derive(Default)]
struct Scan {
    cases: Vec<CaseDir>,
    problems: Vec<Diagnostic>,
    /// Entries reported here and never to be opened.
    refused: BTreeSet<Utf8PathBuf>,
    /// The regular files of every `graders` folder, so the loader need not
    /// list it again.
    graders: HashMap<Utf8PathBuf, Vec<String>>,
    incomplete: bool,
    /// An entry named `mocks` was seen.
    mocks: bool,
}

impl Scan {
    /// Look at every entry of `dir` (one listing, one `lstat` per file, no link
    /// ever followed) and descend; `top` is the suite folder itself.
    fn folder(&mut self, dir: &Utf8Path, depth: usize, walk: Walk, top: bool) {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => {
                self.problems.push(problem(
                    "unreadable",
                    dir,
                    None,
                    format!("cannot read the folder: {e}"),
                    "make it readable or remove it",
                ));
                self.incomplete = true;
                return;
            }
        };
        let (mut prompt, mut yaml) = (false, false);
        let mut subdirs: Vec<String> = Vec::new();
        let mut files: Vec<String> = Vec::new();
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    self.problems.push(problem(
                        "unreadable",
                        dir,
                        None,
                        format!("cannot read the folder: {e}"),
                        "make it readable or remove it",
                    ));
                    self.incomplete = true;
                    break;
                }
            };
            let kind = entry.file_type().ok();
            let name = match entry.file_name().into_string() {
                Ok(name) => name,
                Err(raw) => {
                    let shown = raw.to_string_lossy().into_owned();
                    self.problems.push(problem(
                        "non-utf8-name",
                        &dir.join(&shown),
                        None,
                        format!(
                            "the name {shown:?} is not UTF-8: neither the platform nor bob-eval can name it"
                        ),
                        "rename it with a UTF-8 name, or remove it",
                    ));
                    if walk == Walk::Search && kind.is_none_or(|k| k.is_dir()) {
                        self.incomplete = true;
                    }
                    continue;
                }
            };
            let path = dir.join(&name);
            self.mocks |= name == "mocks";
            let marker = matches!(name.as_str(), "prompt.md" | "case.yaml");
            match kind {
                Some(k) if k.is_dir() => {
                    subdirs.push(name);
                    continue;
                }
                Some(k) if k.is_file() => {
                    let len = entry.metadata().map(|m| m.len()).unwrap_or(0);
                    if len > MAX_SUITE_FILE {
                        self.problems.push(too_large(&path, len));
                        self.refused.insert(path);
                    } else if !marker {
                        files.push(name.clone());
                    }
                }
                other => {
                    let symlink = other.is_some_and(|k| k.is_symlink());
                    self.problems.push(if symlink {
                        problem(
                            "symlink",
                            &path,
                            None,
                            "a symlink in a suite: bob-eval never follows one (`run` refuses the suite)".into(),
                            "copy the target into the suite in its place",
                        )
                    } else {
                        not_a_file(&path)
                    });
                    self.refused.insert(path);
                    if walk == Walk::Search && !marker {
                        // It may stand for a folder holding cases.
                        self.incomplete = true;
                    }
                    if !marker {
                        continue;
                    }
                }
            }
            if marker && walk == Walk::Search && kind.is_some() {
                if name == "prompt.md" {
                    prompt = true;
                } else {
                    yaml = true;
                }
            }
        }
        if dir.file_name() == Some("graders") {
            self.graders.insert(dir.to_owned(), files);
        }
        let walk = if walk == Walk::Search && (prompt || yaml) {
            self.cases.push(CaseDir {
                dir: dir.to_owned(),
                prompt,
                yaml,
            });
            Walk::Look
        } else {
            walk
        };
        subdirs.sort();
        for name in subdirs {
            // `run` copies all but the results of earlier runs.
            if top && name == "results" {
                continue;
            }
            let sub = dir.join(&name);
            let sub_walk = if SKIPPED_DIRS.contains(&name.as_str()) {
                Walk::Look
            } else {
                walk
            };
            let limit = if sub_walk == Walk::Search {
                MAX_DEPTH
            } else {
                MAX_SCAN_DEPTH
            };
            if depth >= limit {
                let what = if sub_walk == Walk::Search {
                    "case folders"
                } else {
                    "folders"
                };
                self.problems.push(problem(
                    "too-deep",
                    &sub,
                    None,
                    format!("{what} nest deeper than {limit} levels"),
                    "flatten the folders",
                ));
                self.incomplete |= sub_walk == Walk::Search;
                continue;
            }
            self.folder(&sub, depth + 1, sub_walk, false);
        }
    }
}

fn too_large(path: &Utf8Path, len: u64) -> Diagnostic {
    problem(
        "file-too-large",
        path,
        None,
        format!("{len} bytes, more than the {MAX_SUITE_FILE} a suite file may hold"),
        "keep suite files small: trim it, or generate it in a scaffold_script",
    )
}

fn not_a_file(path: &Utf8Path) -> Diagnostic {
    problem(
        "not-a-file",
        path,
        None,
        "not a regular file (a FIFO, socket or device): it is never opened (`run` refuses the suite)".into(),
        "replace it with a regular file, or remove it",
    )
}

/// Why `meta` (of `path`, not followed when it is a link) is not a file a
/// suite may hold, if it is not.
pub fn refusal(path: &Utf8Path, meta: &std::fs::Metadata) -> Option<Diagnostic> {
    let kind = meta.file_type();
    if kind.is_symlink() {
        Some(problem(
            "symlink",
            path,
            None,
            "a symlink in a suite: bob-eval never follows one (`run` refuses the suite)".into(),
            "copy the target into the suite in its place",
        ))
    } else if kind.is_dir() {
        Some(problem(
            "unreadable",
            path,
            None,
            "cannot read: it is a folder".into(),
            "make it a file, or fix the path",
        ))
    } else if !kind.is_file() {
        Some(not_a_file(path))
    } else if meta.len() > MAX_SUITE_FILE {
        Some(too_large(path, meta.len()))
    } else {
        None
    }
}

/// Read a UTF-8 text file of at most [`MAX_SUITE_FILE`] bytes. Only a regular
/// file is ever opened (a FIFO, socket or device never is), a symlink is refused
/// unless `follow` is set, and the read stops after the limit whatever the
/// file claims, so a file that grows (or a device swapped in) cannot grow memory.
pub fn read_text(path: &Utf8Path, follow: bool) -> std::result::Result<String, Diagnostic> {
    let cannot = |e: std::io::Error| {
        problem(
            "unreadable",
            path,
            None,
            format!("cannot read: {e}"),
            "make it readable or remove it",
        )
    };
    let meta = if follow {
        std::fs::metadata(path)
    } else {
        std::fs::symlink_metadata(path)
    }
    .map_err(cannot)?;
    if let Some(d) = refusal(path, &meta) {
        return Err(d);
    }
    read_opened(path, follow)
}

/// [`read_text`] for a file already looked at: opened without following a
/// link (unless `follow`) nor waiting on a FIFO, and refused after all
/// unless what was opened is a regular file of bounded size.
fn read_opened(path: &Utf8Path, follow: bool) -> std::result::Result<String, Diagnostic> {
    use crate::fsio::{Links, ReadError};
    let links = if follow { Links::Follow } else { Links::Refuse };
    let unreadable = |message: String, fix: &str| problem("unreadable", path, None, message, fix);
    let bytes = crate::fsio::read_regular(path, links, MAX_SUITE_FILE).map_err(|e| match e {
        ReadError::Link => problem(
            "symlink",
            path,
            None,
            "a symlink in a suite: bob-eval never follows one (`run` refuses the suite)".into(),
            "copy the target into the suite in its place",
        ),
        ReadError::NotRegular(_) => not_a_file(path),
        ReadError::TooLarge { len, .. } => too_large(path, len),
        ReadError::Folder => unreadable(
            "cannot read: it is a folder".into(),
            "make it a file, or fix the path",
        ),
        other => unreadable(
            format!("cannot read: {other}"),
            "make it readable or remove it",
        ),
    })?;
    String::from_utf8(bytes).map_err(|_| {
        problem(
            "unreadable",
            path,
            None,
            "not UTF-8 text".into(),
            "save the file as UTF-8",
        )
    })
}

/// Read a suite file the scan has looked at (a regular file of bounded
/// size); `None` (with a problem recorded) when it cannot be read.
fn read(path: &Utf8Path, problems: &mut Vec<Diagnostic>) -> Option<String> {
    read_opened(path, false).map_err(|d| problems.push(d)).ok()
}

/// A markdown file split into frontmatter and body, the platform's way
/// (`/^---\s*\n([\s\S]*?)---\s*\n?/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Markdown<'a> {
    /// The frontmatter text, when the file has one.
    pub frontmatter: Option<&'a str>,
    /// The 1-based file line where the frontmatter text starts.
    pub frontmatter_line: usize,
    /// The body.
    pub body: &'a str,
    /// The 1-based file line where the body starts.
    pub body_line: usize,
}

/// The opening `---` with no closing one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unterminated;

/// Split a markdown file into frontmatter and body.
pub fn split_markdown(text: &str) -> std::result::Result<Markdown<'_>, Unterminated> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let line_at = |offset: usize| text[..offset].matches('\n').count() + 1;
    let plain = Markdown {
        frontmatter: None,
        frontmatter_line: 1,
        body: text,
        body_line: 1,
    };
    let Some(rest) = text.strip_prefix("---") else {
        return Ok(plain);
    };
    let ws_len = rest.len() - rest.trim_start().len();
    let Some(nl) = rest[..ws_len].rfind('\n') else {
        return Ok(plain);
    };
    let start = 3 + nl + 1;
    let Some(close) = text[start..].find("---") else {
        return Err(Unterminated);
    };
    let fm_end = start + close;
    let after = &text[fm_end + 3..];
    let body_start = fm_end + 3 + (after.len() - after.trim_start().len());
    Ok(Markdown {
        frontmatter: Some(&text[start..fm_end]),
        frontmatter_line: line_at(start),
        body: &text[body_start..],
        body_line: line_at(body_start),
    })
}

/// The 1-based line of every block-style key path in a YAML text (`execution.max_turns`,
/// `graders.0.type`), offset so that the text's first line is `first_line`.
/// A line scan, not a parser: flow style and odd layouts just get no line.
pub fn key_lines(text: &str, first_line: usize) -> HashMap<String, usize> {
    #[derive(Clone)]
    struct Frame {
        indent: usize,
        seg: String,
        item: bool,
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut counters: HashMap<String, usize> = HashMap::new();
    let mut out = HashMap::new();
    let path = |stack: &[Frame]| {
        stack
            .iter()
            .map(|f| f.seg.as_str())
            .collect::<Vec<_>>()
            .join(".")
    };
    for (i, raw) in text.lines().enumerate() {
        let line_no = first_line + i;
        let trimmed = raw.trim_start_matches(' ');
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('\t') {
            continue;
        }
        let mut indent = raw.len() - trimmed.len();
        let mut content = trimmed;
        loop {
            if content == "-" || content.starts_with("- ") {
                while stack
                    .last()
                    .is_some_and(|f| f.indent > indent || (f.indent == indent && f.item))
                {
                    stack.pop();
                }
                let parent = path(&stack);
                let counter = counters.entry(parent.clone()).or_insert(0);
                let idx = *counter;
                *counter += 1;
                let seg = idx.to_string();
                let full = if parent.is_empty() {
                    seg.clone()
                } else {
                    format!("{parent}.{seg}")
                };
                out.entry(full).or_insert(line_no);
                stack.push(Frame {
                    indent,
                    seg,
                    item: true,
                });
                let after = content[1..].trim_start_matches(' ');
                indent += content.len() - after.len();
                content = after;
                if content.is_empty() {
                    break;
                }
                continue;
            }
            if let Some(key) = yaml_key(content) {
                while stack.last().is_some_and(|f| f.indent >= indent) {
                    stack.pop();
                }
                // Counters for sequences under a re-opened key start over.
                let mut full = path(&stack);
                if !full.is_empty() {
                    full.push('.');
                }
                full.push_str(&key);
                counters.remove(&full);
                out.entry(full).or_insert(line_no);
                stack.push(Frame {
                    indent,
                    seg: key,
                    item: false,
                });
            }
            break;
        }
    }
    out
}

/// The key of a `key: value` / `key:` line, unquoted.
fn yaml_key(content: &str) -> Option<String> {
    for quote in ['"', '\''] {
        if let Some(rest) = content.strip_prefix(quote) {
            let end = rest.find(quote)?;
            return rest[end + 1..]
                .starts_with(':')
                .then(|| rest[..end].to_owned());
        }
    }
    let colon = content
        .find(": ")
        .or_else(|| content.ends_with(':').then(|| content.len() - 1))?;
    let key = content[..colon].trim_end();
    if key.is_empty() || key.starts_with(['{', '[', '|', '>', '&', '*', '!']) {
        return None;
    }
    Some(key.to_owned())
}

/// Deepest nesting of collections a suite's YAML may have. A case needs a
/// handful of levels; the parser takes seconds over a document nested tens of
/// thousands deep before it refuses it, so deeper text is never handed to it.
pub const MAX_YAML_DEPTH: usize = 64;

/// The 0-based line where `text` nests collections deeper than `max`, if it
/// does. A linear scan, not a parser: block indentation, `- `/`? `/`key: `
/// indicators on one line, and `[`/`{` outside quoted scalars, comments and
/// block scalars all count, so it may count a level YAML would not, never
/// fewer (a bracket in a plain scalar counts).
pub fn yaml_too_deep(text: &str, max: usize) -> Option<usize> {
    let mut indents: Vec<usize> = Vec::new();
    let mut flow = 0usize;
    // The quote of a quoted scalar open at the end of the previous line.
    let mut quote: Option<char> = None;
    // The indent of the line that opened a block scalar (`|`, `>`).
    let mut block_scalar: Option<usize> = None;
    for (n, line) in text.lines().enumerate() {
        let content = line.trim_start_matches(' ');
        let indent = line.len() - content.len();
        if let Some(parent) = block_scalar {
            if content.trim().is_empty() || indent > parent {
                continue;
            }
            block_scalar = None;
        }
        if quote.is_none() && flow == 0 {
            if content.is_empty() || content.starts_with('#') {
                continue;
            }
            while indents.last().is_some_and(|&i| i >= indent) {
                indents.pop();
            }
            indents.push(indent);
        }
        let mut on_line = 0usize;
        let mut scalar_start = true;
        let mut prev = ' ';
        let mut chars = content.chars().peekable();
        while let Some(c) = chars.next() {
            if let Some(q) = quote {
                match c {
                    '\\' if q == '"' => {
                        chars.next();
                    }
                    '\'' if q == '\'' && chars.peek() == Some(&'\'') => {
                        chars.next();
                    }
                    _ if c == q => {
                        quote = None;
                        scalar_start = false;
                    }
                    _ => {}
                }
                prev = c;
                continue;
            }
            let spaced = chars.peek().is_none_or(|n| n.is_whitespace());
            match c {
                '#' if prev.is_whitespace() => break,
                '\'' | '"' if scalar_start => quote = Some(c),
                '[' | '{' => {
                    flow += 1;
                    scalar_start = true;
                }
                ']' | '}' => {
                    flow = flow.saturating_sub(1);
                    scalar_start = false;
                }
                ',' => scalar_start = true,
                '-' | '?' if scalar_start && spaced => on_line += 1,
                ':' if spaced => {
                    // In a flow collection its bracket counted the level.
                    if flow == 0 {
                        on_line += 1;
                    }
                    scalar_start = true;
                }
                '|' | '>' if scalar_start && flow == 0 => {
                    block_scalar = Some(indent);
                    break;
                }
                c if c.is_whitespace() => {}
                _ => scalar_start = false,
            }
            if indents.len() + on_line + flow > max {
                return Some(n);
            }
            prev = c;
        }
        if indents.len() + on_line + flow > max {
            return Some(n);
        }
    }
    None
}

/// Parse YAML text into a value; on error, a diagnostic with the file line.
/// Text nested deeper than [`MAX_YAML_DEPTH`] is refused before it is parsed.
pub fn parse_yaml(
    text: &str,
    file: &Utf8Path,
    first_line: usize,
) -> std::result::Result<Value, Diagnostic> {
    if let Some(n) = yaml_too_deep(text, MAX_YAML_DEPTH) {
        return Err(problem(
            "yaml-too-deep",
            file,
            Some(first_line + n),
            format!("the YAML nests deeper than {MAX_YAML_DEPTH} levels, so it is not read"),
            "flatten it: a case or grader needs only a few levels of keys and lists",
        ));
    }
    serde_norway::from_str::<Value>(text).map_err(|e| {
        let line = e.location().map(|l| l.line() + first_line - 1);
        let message = e.to_string();
        let message = message.lines().next().unwrap_or("invalid YAML").to_owned();
        problem(
            "invalid-yaml",
            file,
            line,
            format!("invalid YAML: {message}"),
            "fix the YAML syntax (quote values holding `: ` or starting with a special character)",
        )
    })
}

/// A YAML mapping key as a string (non-string keys are written as YAML).
pub fn key_string(key: &Value) -> String {
    match key {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Null => "null".into(),
        _ => "?".into(),
    }
}

/// Frontmatter of a markdown file, parsed.
pub struct Frontmatter {
    /// Keys with values and lines, in file order.
    pub keys: Vec<(String, Entry)>,
    /// The body.
    pub body: String,
    /// The body's first line.
    pub body_line: usize,
    /// Whether there was a frontmatter block at all.
    pub had: bool,
}

impl Frontmatter {
    /// The trimmed body at its first non-blank line, unless it is blank.
    fn body_entry(&self, path: &Utf8Path) -> Option<Entry> {
        let body = self.body.trim();
        if body.is_empty() {
            return None;
        }
        let skipped = self.body.len() - self.body.trim_start().len();
        Some(Entry {
            value: Value::String(body.to_owned()),
            file: path.to_owned(),
            line: Some(self.body_line + self.body[..skipped].matches('\n').count()),
        })
    }
}

/// Split `text`, the markdown file `path`, and parse its frontmatter; `None`
/// (with a problem recorded) when the frontmatter is unterminated, not YAML or
/// not a mapping.
pub fn read_markdown(
    path: &Utf8Path,
    text: &str,
    problems: &mut Vec<Diagnostic>,
) -> Option<Frontmatter> {
    let md = match split_markdown(text) {
        Ok(md) => md,
        Err(Unterminated) => {
            problems.push(problem(
                "unterminated-frontmatter",
                path,
                Some(1),
                "the frontmatter opens with `---` but never closes".into(),
                "add a closing `---` line after the frontmatter",
            ));
            return None;
        }
    };
    let Some(fm) = md.frontmatter else {
        return Some(Frontmatter {
            keys: Vec::new(),
            body: md.body.to_owned(),
            body_line: md.body_line,
            had: false,
        });
    };
    let value = match parse_yaml(fm, path, md.frontmatter_line) {
        Ok(v) => v,
        Err(d) => {
            problems.push(d);
            return None;
        }
    };
    let keys = match value {
        Value::Null => Vec::new(),
        Value::Mapping(map) => {
            let lines = key_lines(fm, md.frontmatter_line);
            map.into_iter()
                .map(|(k, v)| {
                    let key = key_string(&k);
                    let line = lines.get(&key).copied();
                    (
                        key,
                        Entry {
                            value: v,
                            file: path.to_owned(),
                            line,
                        },
                    )
                })
                .collect()
        }
        _ => {
            problems.push(problem(
                "not-a-mapping",
                path,
                Some(md.frontmatter_line),
                "the frontmatter is not a YAML mapping of `key: value` lines".into(),
                "write the frontmatter as `key: value` lines",
            ));
            return None;
        }
    };
    Some(Frontmatter {
        keys,
        body: md.body.to_owned(),
        body_line: md.body_line,
        had: true,
    })
}

/// The mapping items of a YAML value with their lines under `prefix`.
fn entries_of(
    map: &serde_norway::Mapping,
    file: &Utf8Path,
    lines: &HashMap<String, usize>,
    prefix: &str,
) -> Vec<(String, Entry)> {
    map.iter()
        .map(|(k, v)| {
            let key = key_string(k);
            let line = lines.get(&format!("{prefix}{key}")).copied();
            (
                key,
                Entry {
                    value: v.clone(),
                    file: file.to_owned(),
                    line,
                },
            )
        })
        .collect()
}

/// The keys and graders of one case as its files set them, merged as the
/// platform merges them (`case.yaml` first, `prompt.md` over it); the fields
/// are those of [`Case`].
#[derive(Default)]
struct CaseKeys {
    top: BTreeMap<String, Entry>,
    execution: BTreeMap<String, Entry>,
    context: BTreeMap<String, Entry>,
    graders: Vec<Grader>,
    ignored_graders: Vec<Utf8PathBuf>,
    unknown_keys: Vec<UnknownKey>,
}

/// Load one case folder: `case.yaml`, then `prompt.md` over it, then
/// `graders/*.md` after the graders of `case.yaml`. What cannot be read goes to
/// `problems` and marks the case broken; so does a file the scan `refused`
/// (reported there, never opened).
fn load_case(
    dir: &Utf8Path,
    has_yaml: bool,
    has_prompt: bool,
    scan: &Scan,
    problems: &mut Vec<Diagnostic>,
) -> Case {
    let refused = &scan.refused;
    let before = problems.len();
    let case_file = has_yaml.then(|| dir.join("case.yaml"));
    let prompt_file = has_prompt.then(|| dir.join("prompt.md"));

    let mut keys = CaseKeys::default();
    let mut unread = false;
    if let Some(path) = &case_file {
        if refused.contains(path) {
            unread = true;
        } else {
            read_case_yaml(path, &mut keys, problems);
        }
    }
    if let Some(path) = &prompt_file {
        if refused.contains(path) {
            unread = true;
        } else {
            read_prompt_md(path, &mut keys, problems);
        }
    }
    unread |= load_grader_files(dir, &mut keys, scan, problems);

    let source = match (&case_file, &prompt_file) {
        (Some(_), Some(_)) => CaseSource::Mixed,
        (Some(_), None) => CaseSource::CaseYaml,
        _ => CaseSource::Prose,
    };
    let name = keys
        .top
        .get("name")
        .and_then(Entry::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| dir.file_name().unwrap_or("case").to_owned());
    Case {
        name,
        dir: dir.to_owned(),
        source,
        prompt_file,
        case_file,
        top: keys.top,
        execution: keys.execution,
        context: keys.context,
        graders: keys.graders,
        ignored_graders: keys.ignored_graders,
        unknown_keys: keys.unknown_keys,
        broken: unread || problems.len() > before,
    }
}

/// Read `case.yaml` into `keys`: its top-level keys, its `execution:` and
/// `context:` sections, and its `graders:` list. Unknown keys are noted (the
/// platform drops them without a word).
fn read_case_yaml(path: &Utf8Path, keys: &mut CaseKeys, problems: &mut Vec<Diagnostic>) {
    let Some(text) = read(path, problems) else {
        return;
    };
    let map = match parse_yaml(&text, path, 1) {
        Err(d) => {
            problems.push(d);
            return;
        }
        Ok(Value::Null) => return,
        Ok(Value::Mapping(map)) => map,
        Ok(_) => {
            problems.push(problem(
                "not-a-mapping",
                path,
                Some(1),
                "case.yaml is not a YAML mapping".into(),
                "write case.yaml as `key: value` lines (schema_version, name, execution, graders, …)",
            ));
            return;
        }
    };
    let lines = key_lines(&text, 1);
    for (key, entry) in entries_of(&map, path, &lines, "") {
        match key.as_str() {
            "execution" => read_case_section(
                path,
                &lines,
                &key,
                &entry,
                Section::CaseExecution,
                keys,
                problems,
            ),
            "context" => read_case_section(
                path,
                &lines,
                &key,
                &entry,
                Section::CaseContext,
                keys,
                problems,
            ),
            "graders" => read_case_yaml_graders(path, &lines, &entry, &mut keys.graders, problems),
            _ => {
                if !CASE_YAML_KEYS.contains(&key.as_str()) {
                    keys.unknown_keys.push(UnknownKey {
                        key: key.clone(),
                        section: Section::CaseTop,
                        file: path.to_owned(),
                        line: entry.line,
                    });
                }
                keys.top.insert(key, entry);
            }
        }
    }
}

/// Read the `execution:` or `context:` mapping of `case.yaml` (`entry`, under
/// `key`) into its section of `keys`, noting the keys that section does not know.
fn read_case_section(
    path: &Utf8Path,
    lines: &HashMap<String, usize>,
    key: &str,
    entry: &Entry,
    section: Section,
    keys: &mut CaseKeys,
    problems: &mut Vec<Diagnostic>,
) {
    let (target, known): (_, &[&str]) = if section == Section::CaseExecution {
        (&mut keys.execution, &CASE_EXECUTION_KEYS)
    } else {
        (&mut keys.context, &CONTEXT_KEYS)
    };
    match &entry.value {
        Value::Mapping(inner) => {
            for (k, e) in entries_of(inner, path, lines, &format!("{key}.")) {
                if !known.contains(&k.as_str()) {
                    keys.unknown_keys.push(UnknownKey {
                        key: k.clone(),
                        section,
                        file: path.to_owned(),
                        line: e.line,
                    });
                }
                target.insert(k, e);
            }
        }
        Value::Null => {}
        _ => problems.push(problem(
            "wrong-type",
            path,
            entry.line,
            format!("`{key}` must be a mapping of keys"),
            "write it as indented `key: value` lines",
        )),
    }
}

/// Read the `graders:` list of `case.yaml` (`entry`): each item a grader named
/// by its `name:`, else by its position.
fn read_case_yaml_graders(
    path: &Utf8Path,
    lines: &HashMap<String, usize>,
    entry: &Entry,
    graders: &mut Vec<Grader>,
    problems: &mut Vec<Diagnostic>,
) {
    let items = match &entry.value {
        Value::Sequence(items) => items,
        Value::Null => return,
        _ => {
            problems.push(problem(
                "wrong-type",
                path,
                entry.line,
                "`graders` must be a list".into(),
                "write each grader as a `- name: …` item",
            ));
            return;
        }
    };
    for (i, item) in items.iter().enumerate() {
        let at = format!("graders.{i}");
        let line = lines.get(&at).copied();
        let Value::Mapping(gmap) = item else {
            problems.push(problem(
                "wrong-type",
                path,
                line,
                format!("grader #{} is not a mapping", i + 1),
                "write each grader as `- name: …` with `type:` and its keys",
            ));
            continue;
        };
        let fields: BTreeMap<String, Entry> = entries_of(gmap, path, lines, &format!("{at}."))
            .into_iter()
            .collect();
        let name = fields
            .get("name")
            .and_then(Entry::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| format!("grader #{}", i + 1));
        graders.push(Grader {
            name,
            file: path.to_owned(),
            line,
            fields,
        });
    }
}

/// Read `prompt.md` over `keys`: each frontmatter key lands at the top level
/// or under `execution` (an unknown one is noted: the platform refuses it),
/// and the body, unless blank, is the prompt.
fn read_prompt_md(path: &Utf8Path, keys: &mut CaseKeys, problems: &mut Vec<Diagnostic>) {
    let Some(text) = read(path, problems) else {
        return;
    };
    let Some(fm) = read_markdown(path, &text, problems) else {
        return;
    };
    let prompt = fm.body_entry(path);
    for (key, entry) in fm.keys {
        if TOP_KEYS.contains(&key.as_str()) {
            keys.top.insert(key, entry);
        } else if EXECUTION_KEYS.contains(&key.as_str()) {
            merge_execution_key(&mut keys.execution, key, entry);
        } else {
            keys.unknown_keys.push(UnknownKey {
                key,
                section: Section::PromptFrontmatter,
                file: path.to_owned(),
                line: entry.line,
            });
        }
    }
    if let Some(prompt) = prompt {
        keys.execution.insert("prompt".into(), prompt);
    }
}

/// Set a `prompt.md` execution key over `case.yaml`'s: a `disallowed_tools`
/// list is appended to a `case.yaml` list, any other key replaces.
fn merge_execution_key(execution: &mut BTreeMap<String, Entry>, key: String, entry: Entry) {
    if key == "disallowed_tools"
        && let Some(old) = execution.get("disallowed_tools")
        && let (Value::Sequence(a), Value::Sequence(b)) = (&old.value, &entry.value)
    {
        let mut merged = a.clone();
        merged.extend(b.iter().cloned());
        execution.insert(
            key,
            Entry {
                value: Value::Sequence(merged),
                ..entry
            },
        );
        return;
    }
    execution.insert(key, entry);
}

/// What a `graders` folder the scan did not list holds.
enum Listing {
    /// Its regular files (not refused), and whether a refused one was left out.
    Files(Vec<String>, bool),
    /// There is no `graders` folder (or a file in its place, reported here).
    None,
    /// It cannot be read (a link, a FIFO, an unreadable folder: the scan says so).
    Unread,
}

/// List `gdir` when the scan did not (it is missing, not a folder, refused,
/// or deeper than the scan went).
fn listed_grader_files(
    gdir: &Utf8Path,
    refused: &BTreeSet<Utf8PathBuf>,
    problems: &mut Vec<Diagnostic>,
) -> Listing {
    match std::fs::symlink_metadata(gdir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Listing::None,
        Ok(m) if m.is_dir() => {}
        Ok(m) if !m.is_file() => return Listing::Unread,
        _ if refused.contains(gdir) => return Listing::Unread,
        Ok(_) | Err(_) => {
            problems.push(problem(
                "unreadable",
                gdir,
                None,
                "graders is not a folder".into(),
                "make graders/ a folder of .md files",
            ));
            return Listing::None;
        }
    }
    let Ok(entries) = std::fs::read_dir(gdir) else {
        return Listing::Unread;
    };
    let mut skipped = false;
    let mut files: Vec<String> = Vec::new();
    for entry in entries.filter_map(|e| e.ok()) {
        // Names that are not UTF-8 are reported by the scan.
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if !name.ends_with(".md") || entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        if refused.contains(&gdir.join(&name)) || !entry.file_type().is_ok_and(|t| t.is_file()) {
            skipped = true;
        } else {
            files.push(name);
        }
    }
    Listing::Files(files, skipped)
}

/// Append the graders of `graders/*.md` (in name order) to `keys.graders`; a
/// file without frontmatter goes to `keys.ignored_graders` (the platform skips
/// it). True when a grader file was left unread because the scan `refused` it
/// (or could not list graders/).
fn load_grader_files(
    dir: &Utf8Path,
    keys: &mut CaseKeys,
    scan: &Scan,
    problems: &mut Vec<Diagnostic>,
) -> bool {
    let gdir = dir.join("graders");
    let refused = &scan.refused;
    let unread;
    let mut files: Vec<String> = match scan.graders.get(&gdir) {
        // Listed by the scan: its regular files, none refused.
        Some(files) => {
            unread = refused
                .iter()
                .any(|p| p.parent() == Some(gdir.as_path()) && p.as_str().ends_with(".md"));
            files.clone()
        }
        None => match listed_grader_files(&gdir, refused, problems) {
            Listing::Files(files, skipped) => {
                unread = skipped;
                files
            }
            Listing::None => return false,
            Listing::Unread => return true,
        },
    };
    files.retain(|n| n.ends_with(".md"));
    files.sort();
    for file in files {
        let path = gdir.join(&file);
        let Some(text) = read(&path, problems) else {
            continue;
        };
        let Some(fm) = read_markdown(&path, &text, problems) else {
            continue;
        };
        if !fm.had {
            keys.ignored_graders.push(path);
            continue;
        }
        let body = fm.body_entry(&path);
        let mut fields: BTreeMap<String, Entry> = fm.keys.into_iter().collect();
        if let Some(key) = fields
            .get("type")
            .and_then(Entry::as_str)
            .and_then(GraderKind::parse)
            .and_then(GraderKind::body_key)
            && !fields.contains_key(key)
            && let Some(body) = body
        {
            fields.insert(key.into(), body);
        }
        let stem = file.trim_end_matches(".md").to_owned();
        let name = fields
            .get("name")
            .and_then(Entry::as_str)
            .map(str::to_owned)
            .unwrap_or(stem);
        keys.graders.push(Grader {
            name,
            file: path,
            line: Some(1),
            fields,
        });
    }
    unread
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_frontmatter_and_body() {
        let md = split_markdown("---\nmax_turns: 6\n---\n\nHello\n").unwrap();
        assert_eq!(md.frontmatter, Some("max_turns: 6\n"));
        assert_eq!(md.frontmatter_line, 2);
        assert_eq!(md.body, "Hello\n");
        assert_eq!(md.body_line, 5);
    }

    #[test]
    fn no_frontmatter_and_unterminated() {
        let md = split_markdown("Just a prompt").unwrap();
        assert_eq!(md.frontmatter, None);
        assert_eq!(md.body, "Just a prompt");
        assert_eq!(split_markdown("---\ntype: llm\nno end"), Err(Unterminated));
        assert_eq!(split_markdown("---x\n").unwrap().frontmatter, None);
    }

    #[test]
    fn key_lines_follow_nesting_and_lists() {
        let text = "schema_version: \"1.1\"\nname: x\nexecution:\n  max_turns: 4\n  env:\n    EVAL_A: b\ngraders:\n  - name: one\n    type: regex\n  - name: two\n    type: llm\ncontext:\n  add_dirs:\n  - a\n";
        let lines = key_lines(text, 1);
        assert_eq!(lines["name"], 2);
        assert_eq!(lines["execution.max_turns"], 4);
        assert_eq!(lines["execution.env.EVAL_A"], 6);
        assert_eq!(lines["graders.0"], 8);
        assert_eq!(lines["graders.0.type"], 9);
        assert_eq!(lines["graders.1.name"], 10);
        assert_eq!(lines["context.add_dirs.0"], 14);
    }

    #[test]
    fn yaml_depth_counts_what_nests_and_skips_text() {
        assert_eq!(yaml_too_deep("a: [[[x]]]\n", 3), Some(0));
        assert_eq!(yaml_too_deep("a: [[[x]]]\n", 5), None);
        assert_eq!(yaml_too_deep("- - - - - x\n", 4), Some(0));
        assert_eq!(yaml_too_deep("a:\n  b:\n    c:\n      d: x\n", 4), Some(3));
        assert_eq!(yaml_too_deep("a:\n  b:\n    c:\n      d: x\n", 5), None);
        // Quoted scalars, comments and block scalars are text, not nesting.
        let text =
            "a: '[[[[[[x'\nb: \"[[[[[\\\"[[\"\nc: # [[[[[[\nd: |\n  [[[[[[[\n  {{{{{{\ne: x\n";
        assert_eq!(yaml_too_deep(text, 3), None);
        // A quote inside a plain scalar hides nothing.
        assert_eq!(yaml_too_deep("a: it's [[[[[[\n", 3), Some(0));
        // Sibling keys and list items do not add up.
        let flat: String = (0..500)
            .map(|i| format!("k{i}: [a, {{b: c}}]\n- x\n"))
            .collect();
        assert_eq!(yaml_too_deep(&flat, 8), None);
    }

    #[test]
    fn key_lines_offset_and_quoted_keys() {
        let lines = key_lines("'max_turns': 3\n\"a b\": 1\n", 2);
        assert_eq!(lines["max_turns"], 2);
        assert_eq!(lines["a b"], 3);
    }

    #[test]
    fn grader_specs_take_defaults() {
        let g = |yaml: &str| {
            let Value::Mapping(map) = serde_norway::from_str::<Value>(yaml).unwrap() else {
                panic!()
            };
            let fields = map
                .into_iter()
                .map(|(k, v)| {
                    (
                        key_string(&k),
                        Entry {
                            value: v,
                            file: "g.md".into(),
                            line: None,
                        },
                    )
                })
                .collect();
            Grader {
                name: "g".into(),
                file: "g.md".into(),
                line: None,
                fields,
            }
            .spec()
        };
        assert_eq!(
            g("type: regex\npattern: x"),
            Some(GraderSpec::Regex {
                pattern: "x".into(),
                flags: String::new(),
                mode: MatchMode::Contains,
                target: Target::LastMessage
            })
        );
        assert_eq!(
            g("type: tool_used\ntool: Skill"),
            Some(GraderSpec::ToolUsed {
                tool: "Skill".into(),
                input_match: None,
                min: 1,
                max: None
            })
        );
        assert_eq!(
            g("type: tool_order\nbefore: Glob\nafter: {tool: Write, input_match: x}"),
            Some(GraderSpec::ToolOrder {
                before: ToolRef {
                    tool: "Glob".into(),
                    input_match: None
                },
                after: ToolRef {
                    tool: "Write".into(),
                    input_match: Some("x".into())
                }
            })
        );
        assert_eq!(
            g("type: file_exists\npath: out/*.md"),
            Some(GraderSpec::FileExists {
                path: "out/*.md".into(),
                exists: true
            })
        );
        assert_eq!(
            g("type: llm\ncriteria: c\nfocus: {source: file, path: a.md}"),
            Some(GraderSpec::Llm {
                criteria: "c".into(),
                focus: Target::File("a.md".into())
            })
        );
        assert_eq!(
            g("type: baseline\nbaseline_file: b.jsonl\ncriteria: c"),
            Some(GraderSpec::Baseline {
                baseline_file: "b.jsonl".into(),
                criteria: "c".into()
            })
        );
        assert_eq!(
            g("type: regex\npattern: x\nmatch: count:2").map(|s| matches!(
                s,
                GraderSpec::Regex {
                    mode: MatchMode::Count(2),
                    ..
                }
            )),
            Some(true)
        );
        assert_eq!(g("type: regex"), None);
        assert_eq!(g("type: nope"), None);
    }

    #[test]
    fn parse_match_modes() {
        assert_eq!(parse_match("count:3"), Some(MatchMode::Count(3)));
        assert_eq!(parse_match("count:"), None);
        assert_eq!(parse_match("count:-1"), None);
        assert_eq!(parse_match("contain"), None);
    }

    #[test]
    fn a_case_merges_prompt_md_over_case_yaml() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = Utf8PathBuf::from_path_buf(tmp.path().join("merged")).unwrap();
        std::fs::create_dir_all(dir.join("graders")).unwrap();
        std::fs::write(
            dir.join("case.yaml"),
            "schema_version: \"1.1\"\nname: from-yaml\nbogus: 1\nexecution:\n  max_turns: 4\n  disallowed_tools: [Bash]\n  nope: x\ncontext:\n  history_file: h.jsonl\ngraders:\n  - type: llm\n    criteria: c\n  - 7\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("prompt.md"),
            "---\nmax_turns: 6\ndisallowed_tools: [Write]\nrunz: 2\n---\n\nDo it.\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("graders/says.md"),
            "---\ntype: llm\n---\nSays it.\n",
        )
        .unwrap();
        std::fs::write(dir.join("graders/plain.md"), "no frontmatter\n").unwrap();
        let mut problems = Vec::new();
        let case = load_case(&dir, true, true, &Scan::default(), &mut problems);

        assert_eq!(case.name, "from-yaml");
        assert_eq!(case.source, CaseSource::Mixed);
        assert_eq!(case.max_turns(), 6);
        assert_eq!(case.prompt_text(), "Do it.");
        assert_eq!(case.prompt().unwrap().line, Some(7));
        let disallowed = &case.execution["disallowed_tools"];
        assert_eq!(
            disallowed.value,
            serde_norway::from_str::<Value>("[Bash, Write]").unwrap()
        );
        assert_eq!(disallowed.file, dir.join("prompt.md"));
        assert!(case.context.contains_key("history_file"));
        let graders: Vec<(&str, Option<usize>)> = case
            .graders
            .iter()
            .map(|g| (g.name.as_str(), g.line))
            .collect();
        assert_eq!(graders, [("grader #1", Some(11)), ("says", Some(1))]);
        assert_eq!(case.ignored_graders, [dir.join("graders/plain.md")]);
        let unknown: Vec<(&str, Section, Option<usize>)> = case
            .unknown_keys
            .iter()
            .map(|u| (u.key.as_str(), u.section, u.line))
            .collect();
        assert_eq!(
            unknown,
            [
                ("bogus", Section::CaseTop, Some(3)),
                ("nope", Section::CaseExecution, Some(7)),
                ("runz", Section::PromptFrontmatter, Some(4)),
            ]
        );
        let codes: Vec<&str> = problems.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["wrong-type"]);
        assert!(case.broken);
    }
}
