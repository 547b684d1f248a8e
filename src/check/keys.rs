//! Case keys: the one table of every key a case may set (where it lands once
//! `prompt.md` and `case.yaml` are merged, and what its value must be), the
//! value checks behind it, and the unknown-key findings with their
//! closest-key suggestions.

use super::Out;
use crate::diagnostic::Code;
use crate::suite::{
    self, CASE_EXECUTION_KEYS, CASE_YAML_KEYS, COMMON_GRADER_KEYS, CONTEXT_KEYS, Case,
    EXECUTION_KEYS, Entry, GraderKind, Section, TOP_KEYS, UnknownKey,
};
use camino::Utf8Path;
use serde_norway::Value;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// Where a case key lands once `prompt.md` and `case.yaml` are merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The top level (`Case::top`).
    Top,
    /// `execution` (`Case::execution`), from case.yaml or prompt.md frontmatter.
    Execution,
    /// `context` (`Case::context`), from case.yaml only.
    Context,
}

/// What the value of a case key must be (platform.md, "Case and grader files").
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// A version string the platform reads (`"1.1"`); case.yaml must set it.
    SchemaVersion,
    /// A non-empty string; a readable case.yaml must set it.
    CaseName,
    /// A string.
    Text,
    /// A list of strings.
    TextList,
    /// A whole number within the range.
    Count(u64, u64),
    /// `true` or `false`.
    Flag,
    /// A mapping.
    Mapping,
    /// A mapping of `EVAL_*` names to strings.
    Env,
    /// A path inside the case folder that exists.
    Path,
    /// A list of such paths.
    PathList,
}

/// Every case key, where it lands and what its value must be. The loader's
/// key lists (`suite::TOP_KEYS`, …) say the same keys; a test holds them
/// together. Checked in this order, which is the order of the findings.
const CASE_KEYS: [(Place, &str, Expect); 20] = [
    (Place::Top, "schema_version", Expect::SchemaVersion),
    (Place::Top, "name", Expect::CaseName),
    (Place::Top, "description", Expect::Text),
    (Place::Top, "expected_outcome", Expect::Text),
    (Place::Top, "tags", Expect::TextList),
    (Place::Top, "plugins", Expect::TextList),
    (Place::Top, "runs", Expect::Count(1, 50)),
    (Place::Execution, "prompt", Expect::Text),
    (Place::Execution, "model", Expect::Text),
    (Place::Execution, "append_system_prompt", Expect::Text),
    (Place::Execution, "allowed_tools", Expect::TextList),
    (Place::Execution, "disallowed_tools", Expect::TextList),
    (Place::Execution, "max_turns", Expect::Count(1, 200)),
    (Place::Execution, "timeout_seconds", Expect::Count(1, 3600)),
    (Place::Execution, "artifact_publish", Expect::Flag),
    (Place::Execution, "growthbook_overrides", Expect::Mapping),
    (Place::Execution, "env", Expect::Env),
    (Place::Context, "scaffold_script", Expect::Path),
    (Place::Context, "history_file", Expect::Path),
    (Place::Context, "add_dirs", Expect::PathList),
];

static ENV_KEY: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new(r"^EVAL_[A-Z0-9_]*$").expect("fixed regex"));

/// Check the value of every key in [`CASE_KEYS`] that `case` sets, and that
/// the required ones are set.
pub(super) fn check_key_values(case: &Case, out: &mut Out) {
    for (place, key, expect) in CASE_KEYS {
        let keys: &BTreeMap<String, Entry> = match place {
            Place::Top => &case.top,
            Place::Execution => &case.execution,
            Place::Context => &case.context,
        };
        match keys.get(key) {
            Some(entry) => expect.check(case, key, entry, out),
            None => expect.check_missing(case, out),
        }
    }
}

impl Expect {
    /// Check the value `entry` of `key` in `case`.
    fn check(self, case: &Case, key: &str, entry: &Entry, out: &mut Out) {
        match self {
            Expect::SchemaVersion => check_schema_version(entry, out),
            Expect::CaseName => {
                if case.case_file.is_some()
                    && !case.broken
                    && entry.as_str().is_none_or(str::is_empty)
                {
                    out.error(
                        Code::WrongType,
                        &entry.file,
                        entry.line,
                        "`name` must be a non-empty string".into(),
                        "set name: <case name>",
                    );
                }
            }
            Expect::Text => {
                expect_string(key, entry, out);
            }
            Expect::TextList => expect_string_list(key, entry, out),
            Expect::Count(min, max) => expect_int_range(key, entry, min, max, out),
            Expect::Flag => {
                if !matches!(entry.value, Value::Bool(_)) {
                    out.error(
                        Code::WrongType,
                        &entry.file,
                        entry.line,
                        format!(
                            "`{key}` must be true or false, not {}",
                            kind_name(&entry.value)
                        ),
                        format!("write {key}: true or false, or remove it"),
                    );
                }
            }
            Expect::Mapping => {
                if !matches!(entry.value, Value::Mapping(_)) {
                    out.error(
                        Code::WrongType,
                        &entry.file,
                        entry.line,
                        format!("`{key}` must be a mapping, not {}", kind_name(&entry.value)),
                        "write it as indented `flag: value` lines, or remove it",
                    );
                }
            }
            Expect::Env => check_env(entry, out),
            Expect::Path => {
                if expect_string(key, entry, out) {
                    let path = entry.as_str().unwrap_or("");
                    let meta = check_path(case, key, path, &entry.file, entry.line, out);
                    check_script_path(key, path, meta.as_ref(), entry, out);
                }
            }
            Expect::PathList => {
                expect_string_list(key, entry, out);
                if let Value::Sequence(items) = &entry.value {
                    for item in items.iter().filter_map(Value::as_str) {
                        check_path(case, key, item, &entry.file, entry.line, out);
                    }
                }
            }
        }
    }

    /// Report a required key `case` does not set (only case.yaml requires any).
    fn check_missing(self, case: &Case, out: &mut Out) {
        let Some(path) = &case.case_file else { return };
        // A file that could not be read may set it: that is reported.
        if case.broken {
            return;
        }
        match self {
            Expect::SchemaVersion => out.error(
                Code::MissingKey,
                path,
                Some(1),
                "case.yaml has no `schema_version`".into(),
                "add schema_version: \"1.1\" (quoted)",
            ),
            Expect::CaseName => out.error(
                Code::MissingKey,
                path,
                Some(1),
                "case.yaml has no `name`".into(),
                format!("add name: {}", case.dir.file_name().unwrap_or("case")),
            ),
            _ => {}
        }
    }
}

/// How a value reads in a message ("a list", "a number", …).
pub(super) fn kind_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "empty",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

/// Report `key` unless its value is a string; true when it is.
pub(super) fn expect_string(key: &str, entry: &Entry, out: &mut Out) -> bool {
    if entry.value.is_string() {
        return true;
    }
    out.error(
        Code::WrongType,
        &entry.file,
        entry.line,
        format!("`{key}` must be a string, not {}", kind_name(&entry.value)),
        format!("quote the value: {key}: \"…\""),
    );
    false
}

/// Report `key` unless its value is a list of strings.
fn expect_string_list(key: &str, entry: &Entry, out: &mut Out) {
    let ok = match &entry.value {
        Value::Sequence(items) => items.iter().all(Value::is_string),
        _ => false,
    };
    if !ok {
        out.error(
            Code::WrongType,
            &entry.file,
            entry.line,
            format!(
                "`{key}` must be a list of strings, not {}",
                kind_name(&entry.value)
            ),
            format!("write a list: {key}: [a, b]"),
        );
    }
}

/// Report `key` unless its value is a whole number from `min` to `max`.
fn expect_int_range(key: &str, entry: &Entry, min: u64, max: u64, out: &mut Out) {
    let n = suite::as_count(&entry.value);
    match n {
        None => out.error(
            Code::WrongType,
            &entry.file,
            entry.line,
            format!(
                "`{key}` must be a whole number, not {}",
                kind_name(&entry.value)
            ),
            format!("write a number from {min} to {max}, unquoted"),
        ),
        Some(n) if n < min || n > max => out.error(
            Code::OutOfRange,
            &entry.file,
            entry.line,
            format!("`{key}: {n}` is out of range ({min}–{max})"),
            format!("set {key} between {min} and {max}"),
        ),
        Some(_) => {}
    }
}

/// Report a `schema_version` that is not a string, not a version, or newer
/// than the platform reads.
fn check_schema_version(e: &Entry, out: &mut Out) {
    let Some(text) = e.as_str() else {
        out.error(
            Code::SchemaVersion,
            &e.file,
            e.line,
            format!(
                "`schema_version` must be a string, not {} (unquoted 1.1 is a YAML number)",
                kind_name(&e.value)
            ),
            "quote it: schema_version: \"1.1\"",
        );
        return;
    };
    // JavaScript's parseInt of the part before the first '.'.
    let major_text = text.split('.').next().unwrap_or("").trim_start();
    let (sign, digits) = match major_text.strip_prefix(['-', '+']) {
        Some(rest) => (major_text.starts_with('-'), rest),
        None => (false, major_text),
    };
    let digits: String = digits.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() {
        out.error(
            Code::SchemaVersion,
            &e.file,
            e.line,
            format!("schema_version \"{text}\" is not a version string"),
            "write schema_version: \"1.1\"",
        );
        return;
    }
    let too_new = !sign
        && (digits.trim_start_matches('0').len() > 1 || digits.parse::<u64>().is_ok_and(|n| n > 1));
    if too_new {
        out.error(
            Code::SchemaVersion,
            &e.file,
            e.line,
            format!(
                "schema_version \"{text}\" needs a newer Claude Code (2.1.328 reads up to 1.x)"
            ),
            "write schema_version: \"1.1\"",
        );
    }
}

/// Report an `env` that is not a mapping of `EVAL_*` names to strings.
fn check_env(e: &Entry, out: &mut Out) {
    let Value::Mapping(map) = &e.value else {
        out.error(
            Code::WrongType,
            &e.file,
            e.line,
            format!(
                "`env` must be a mapping of EVAL_* names to strings, not {}",
                kind_name(&e.value)
            ),
            "write it as indented `EVAL_NAME: \"value\"` lines",
        );
        return;
    };
    for (k, v) in map {
        let key = suite::key_string(k);
        if !ENV_KEY.is_match(&key) {
            let suggested: String = key
                .to_ascii_uppercase()
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            let suggested = if suggested.starts_with("EVAL_") {
                suggested
            } else {
                format!("EVAL_{suggested}")
            };
            out.error(
                Code::EnvKey,
                &e.file,
                e.line,
                format!(
                    "env key `{key}` is not EVAL_[A-Z0-9_]* (the platform only passes EVAL_* names)"
                ),
                format!("rename it `{suggested}`"),
            );
        }
        if !v.is_string() {
            out.error(
                Code::WrongType,
                &e.file,
                e.line,
                format!("env `{key}` must be a string, not {}", kind_name(v)),
                format!("quote the value: {key}: \"…\""),
            );
        }
    }
}

/// True when `path` (relative to a case folder) leaves it: absolute, or `..` past its top.
pub fn escapes(path: &str) -> bool {
    if path.starts_with('/')
        || path.starts_with('\\')
        || path.chars().nth(1) == Some(':')
        || path.starts_with('~')
    {
        return true;
    }
    let mut depth: i64 = 0;
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                depth -= 1;
                if depth < 0 {
                    return true;
                }
            }
            _ => depth += 1,
        }
    }
    false
}

/// Report `path`, the value of `key` written in `file`, when it leaves the
/// case folder or does not exist in it; otherwise what it is (not followed
/// when it is a link). A path through a symlink, FIFO or device of the suite
/// is the suite scan's finding: nothing more is said, and `None` returned.
pub(super) fn check_path(
    case: &Case,
    key: &str,
    path: &str,
    file: &Utf8Path,
    line: Option<usize>,
    out: &mut Out,
) -> Option<std::fs::Metadata> {
    if escapes(path) {
        out.error(
            Code::PathEscape,
            file,
            line,
            format!(
                "`{key}: {}` points outside the case folder",
                super::clip(path)
            ),
            format!(
                "put the file inside {} and use a relative path",
                case.dir.file_name().unwrap_or("the case folder")
            ),
        );
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    let mut at = case.dir.clone();
    let mut meta = std::fs::symlink_metadata(&at).ok();
    for part in parts {
        if meta.as_ref().is_some_and(|m| !m.is_dir()) {
            // A file where a folder is needed: nothing is there.
            meta = None;
        }
        let Some(_) = meta else { break };
        at.push(part);
        meta = std::fs::symlink_metadata(&at).ok();
        if let Some(m) = &meta
            && !m.is_dir()
            && !m.is_file()
        {
            return None;
        }
    }
    if meta.is_none() {
        out.error(
            Code::MissingFile,
            file,
            line,
            format!(
                "`{key}: {}` does not exist in the case folder",
                super::clip(path)
            ),
            format!(
                "create {} in the case folder, or fix the path",
                super::clip(path)
            ),
        );
    }
    meta
}

/// A `scaffold_script` or `history_file` that is a folder, not a file; and a
/// scaffold script that is there: the platform runs it only under
/// `--scaffold`, as the operator, so the run must say which it wants.
fn check_script_path(
    key: &str,
    path: &str,
    meta: Option<&std::fs::Metadata>,
    entry: &crate::suite::Entry,
    out: &mut Out,
) {
    let shown = super::clip(path);
    if matches!(key, "scaffold_script" | "history_file") && meta.is_some_and(|m| m.is_dir()) {
        out.error(
            Code::NotAFile,
            &entry.file,
            entry.line,
            format!("`{key}: {shown}` is a folder, not a file"),
            "point it at a file in the case folder",
        );
    } else if key == "scaffold_script" && meta.is_some_and(|m| m.is_file()) {
        out.warn(
            Code::ScaffoldScript,
            &entry.file,
            entry.line,
            format!(
                "the case builds its workspace with `{shown}`, which the platform runs only under --scaffold, as you: without it the case is measured on an empty workspace"
            ),
            "read the script, then run with `--scaffold` (or settings.json `_workflow.scaffold: true`); `--no-scaffold` measures the case without it knowingly; a run with neither is refused",
        );
    }
}

/// Report every key of `case` that is not part of its section, with the
/// closest known key or the file and section it belongs in.
pub(super) fn check_unknown_keys(case: &Case, out: &mut Out) {
    for u in &case.unknown_keys {
        let key = u.key.as_str();
        match u.section {
            Section::PromptFrontmatter => out.error(
                Code::UnknownKey,
                &u.file,
                u.line,
                format!(
                    "unknown key `{}` in prompt.md frontmatter (the platform refuses the case)",
                    super::clip(key)
                ),
                fix_for_prompt_key(case, key),
            ),
            Section::CaseTop | Section::CaseExecution | Section::CaseContext => {
                report_unknown_case_yaml_key(case, u, out)
            }
        }
    }
}

/// Every key any grader takes, but `name` (which a case takes too).
fn is_grader_key(key: &str) -> bool {
    key != "name"
        && (COMMON_GRADER_KEYS.contains(&key)
            || GraderKind::ALL.iter().any(|k| k.keys().contains(&key)))
}

/// Where a grader key belongs, for a case file that holds one.
fn grader_home(key: &str) -> String {
    format!(
        "`{key}` is a grader key: it belongs in a grader file, graders/<name>.md (or an item of case.yaml `graders:`)"
    )
}

/// Where a case key belongs, for a grader that holds one; `None` when `key`
/// is not a case key.
pub(super) fn case_key_home(key: &str) -> Option<String> {
    Some(if key == "prompt" {
        "the prompt is not a grader key: it belongs in the body of prompt.md (or case.yaml `execution.prompt`)".into()
    } else if EXECUTION_KEYS.contains(&key) {
        format!(
            "`{key}` is a case key: it belongs in prompt.md frontmatter (or case.yaml `execution:`)"
        )
    } else if TOP_KEYS.contains(&key) && key != "name" {
        format!(
            "`{key}` is a case key: it belongs in prompt.md frontmatter (or at the top of case.yaml)"
        )
    } else if CONTEXT_KEYS.contains(&key) {
        format!("`{key}` is a case key: it belongs in case.yaml under `context:`")
    } else if matches!(key, "execution" | "context" | "graders") {
        format!("`{key}:` belongs at the top of case.yaml")
    } else {
        return None;
    })
}

/// The fix for an unknown key in prompt.md frontmatter.
fn fix_for_prompt_key(case: &Case, key: &str) -> String {
    let prompt_keys: Vec<&str> = TOP_KEYS
        .iter()
        .chain(EXECUTION_KEYS.iter())
        .copied()
        .collect();
    let has_body = case
        .prompt()
        .is_some_and(|e| Some(&e.file) == case.prompt_file.as_ref());
    if CONTEXT_KEYS.contains(&key) {
        format!("`{key}` belongs in case.yaml under `context:`")
    } else if key == "prompt" && has_body {
        "remove it: the prompt is the body of prompt.md, below the frontmatter".into()
    } else if key == "prompt" {
        "move the prompt to the body of prompt.md, below the frontmatter".into()
    } else if key == "graders" {
        "put each grader in graders/<name>.md".into()
    } else if key == "execution" {
        "write its keys straight into the frontmatter (max_turns: 5), without `execution:`".into()
    } else if key == "context" {
        "`context:` belongs in case.yaml".into()
    } else if let Some(k) = closest(key, &prompt_keys) {
        format!("did you mean `{k}`?")
    } else if is_grader_key(key) {
        grader_home(key)
    } else {
        format!("remove it; known keys: {}", prompt_keys.join(", "))
    }
}

/// An unknown key in case.yaml (the platform drops it without a word): move it
/// to the section it belongs in (or remove it, when the case sets that key
/// already), or fix its spelling.
fn report_unknown_case_yaml_key(case: &Case, u: &UnknownKey, out: &mut Out) {
    let key = u.key.as_str();
    let (where_, own): (&str, &[&str]) = match u.section {
        Section::CaseTop => ("at the top of case.yaml", &CASE_YAML_KEYS),
        Section::CaseExecution => ("under `execution:`", &CASE_EXECUTION_KEYS),
        _ => ("under `context:`", &CONTEXT_KEYS),
    };
    // A prompt moved where the case has one already would only be overridden:
    // one fix, whatever else the case says about its prompt.
    let move_or_remove = |set: Option<&Entry>, there: &str| match set {
        Some(e) if key == "prompt" && e.file != u.file => {
            "remove it: the case's prompt is the body of prompt.md".to_string()
        }
        Some(_) if key == "prompt" => {
            "remove it: the case's prompt is `execution.prompt`".to_string()
        }
        _ => format!("move `{key}` {there}"),
    };
    let fix = if u.section != Section::CaseExecution && CASE_EXECUTION_KEYS.contains(&key) {
        move_or_remove(case.execution.get(key), "under `execution:`")
    } else if u.section != Section::CaseContext && CONTEXT_KEYS.contains(&key) {
        move_or_remove(case.context.get(key), "under `context:`")
    } else if u.section != Section::CaseTop && CASE_YAML_KEYS.contains(&key) {
        move_or_remove(case.top.get(key), "to the top level of case.yaml")
    } else if let Some(k) = closest(key, own) {
        format!("did you mean `{k}`?")
    } else if is_grader_key(key) {
        grader_home(key)
    } else {
        format!("remove it; known keys there: {}", own.join(", "))
    };
    out.error(
        Code::UnknownKey,
        &u.file,
        u.line,
        format!(
            "unknown key `{}` {where_} (the platform silently drops it)",
            super::clip(key)
        ),
        fix,
    );
}

/// The closest known key to `key`, when it is close enough to be a typo: at
/// most one edit (a swap of two neighbours counts as one) per four characters
/// of the key, and at least one, so `max_turn` and `tpye` find `max_turns` and
/// `type`, and `bogus` finds nothing (not `focus`, two edits away).
pub fn closest<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    let len = key.chars().count();
    let bound = (len / 4).max(1);
    if known.iter().all(|k| k.len().abs_diff(len) > bound) {
        return None;
    }
    let key_lower = key.to_ascii_lowercase();
    known
        .iter()
        .filter(|k| k.len().abs_diff(len) <= bound)
        .map(|k| (edit_distance(&key_lower, k), *k))
        .filter(|(d, _)| *d <= bound)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The edit distance between `a` and `b`, a swap of two neighbours counting
/// as one edit (optimal string alignment).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // d[i][j]: distance between a[..i] and b[..j].
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j - 1] + cost)
                .min(d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The keys of [`CASE_KEYS`] that land in `place`.
    fn table_keys(place: Place) -> BTreeSet<&'static str> {
        CASE_KEYS
            .iter()
            .filter(|(p, _, _)| *p == place)
            .map(|(_, key, _)| *key)
            .collect()
    }

    fn set<'a>(keys: &[&'a str]) -> BTreeSet<&'a str> {
        keys.iter().copied().collect()
    }

    #[test]
    fn the_key_table_says_what_the_loader_reads() {
        assert_eq!(table_keys(Place::Top), set(&TOP_KEYS));
        assert_eq!(table_keys(Place::Execution), set(&CASE_EXECUTION_KEYS));
        assert_eq!(table_keys(Place::Context), set(&CONTEXT_KEYS));
        let mut prompt_md = set(&CASE_EXECUTION_KEYS);
        prompt_md.remove("prompt");
        assert_eq!(prompt_md, set(&EXECUTION_KEYS));
        let mut case_yaml = table_keys(Place::Top);
        case_yaml.extend(["execution", "context", "graders"]);
        assert_eq!(case_yaml, set(&CASE_YAML_KEYS));
    }

    #[test]
    fn closest_suggests_typos() {
        let keys: Vec<&str> = TOP_KEYS
            .iter()
            .chain(EXECUTION_KEYS.iter())
            .copied()
            .collect();
        assert_eq!(closest("max_turn", &keys), Some("max_turns"));
        assert_eq!(closest("allowed-tools", &keys), Some("allowed_tools"));
        assert_eq!(closest("Timeout_Seconds", &keys), Some("timeout_seconds"));
        assert_eq!(closest("zzzz", &keys), None);
        assert_eq!(closest("runz", &keys), Some("runs"));
        assert_eq!(closest("mdoel", &keys), Some("model"));
        assert_eq!(closest("tpye", &["type"]), Some("type"));
        assert_eq!(closest("typ", &["type"]), Some("type"));
        assert_eq!(closest("bogus", &["focus", "criteria"]), None);
        assert_eq!(closest("time", &["type"]), None);
        assert_eq!(closest(&"x".repeat(1 << 20), &keys), None);
    }

    #[test]
    fn escaping_paths() {
        assert!(escapes("../x"));
        assert!(escapes("/etc/passwd"));
        assert!(escapes("a/../../x"));
        assert!(escapes("~/x"));
        assert!(!escapes("a/../b"));
        assert!(!escapes("./setup.sh"));
        assert!(!escapes("data/history.jsonl"));
    }

    #[test]
    fn schema_versions() {
        let run = |v: Value| {
            let mut d = Vec::new();
            check_schema_version(
                &Entry {
                    value: v,
                    file: "c.yaml".into(),
                    line: Some(1),
                },
                &mut Out(&mut d),
            );
            d.into_iter().map(|d| d.message).collect::<Vec<_>>()
        };
        assert!(run(Value::String("1.1".into())).is_empty());
        assert!(run(Value::String("1".into())).is_empty());
        assert_eq!(run(Value::String("2.0".into())).len(), 1);
        assert_eq!(run(Value::String("10.0".into())).len(), 1);
        assert_eq!(run(Value::String("v1".into())).len(), 1);
        assert_eq!(run(serde_norway::from_str("1.1").unwrap()).len(), 1);
    }
}
