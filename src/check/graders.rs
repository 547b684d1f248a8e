//! Grader checks: the `type`, the keys each type takes and requires, the
//! values every grader shares, then one check per grader type, each named for
//! what it checks.

use super::js_regex::{check_flags, check_js_regex};
use super::keys::{case_key_home, check_path, closest, expect_string, kind_name};
use super::{INIT_CRITERIA, Out, TODO_LINE};
use crate::diagnostic::Code;
use crate::suite::{self, COMMON_GRADER_KEYS, Case, Entry, Grader, GraderKind};
use camino::Utf8Path;
use serde_norway::Value;
use std::collections::HashSet;

/// Check every grader of `case`: files the platform ignores, none at all,
/// each grader's rules, and duplicate names.
pub(super) fn check_case_graders(case: &Case, out: &mut Out) {
    for path in &case.ignored_graders {
        out.error(
            Code::GraderNoFrontmatter,
            path,
            Some(1),
            "this grader has no frontmatter, so the platform silently ignores it".into(),
            "start the file with `---`, `type: llm` (or another type), `---`, then the criteria",
        );
    }
    // A `graders:` in the wrong place is reported as such, with where it goes.
    let misplaced = case.unknown_keys.iter().any(|u| u.key == "graders");
    if case.graders.is_empty() && case.ignored_graders.is_empty() && !case.broken && !misplaced {
        out.error(
            Code::NoGraders,
            &case.main_file(),
            None,
            format!("case `{}` has no grader", case.name),
            "add graders/<name>.md with `type:` frontmatter (e.g. `type: llm` and the criteria as its body)",
        );
    }
    let mut names: HashSet<&str> = HashSet::new();
    for grader in &case.graders {
        check_grader(case, grader, out);
        if !names.insert(grader.name.as_str()) {
            out.error(
                Code::DuplicateGrader,
                &grader.file,
                grader.line,
                format!(
                    "two graders are named `{}` (the platform refuses the case)",
                    grader.name
                ),
                "give each grader its own name",
            );
        }
    }
}

/// Check one grader: its type, its keys, the values every grader shares, then
/// the rules of its type.
fn check_grader(case: &Case, grader: &Grader, out: &mut Out) {
    let Some(kind) = grader_kind(grader, out) else {
        return;
    };
    let stand_ins = stand_ins(grader, kind);
    check_unknown_grader_keys(grader, kind, &stand_ins, out);
    check_required_grader_keys(grader, kind, &stand_ins, out);
    check_common_values(grader, out);
    check_placeholders(grader, out);
    match kind {
        GraderKind::Regex => check_regex_grader(grader, out),
        GraderKind::ToolUsed => check_tool_used_grader(grader, out),
        GraderKind::ToolOrder => check_tool_order_grader(grader, out),
        GraderKind::FileExists => check_file_exists_grader(grader, out),
        GraderKind::Llm => check_llm_grader(grader, out),
        GraderKind::Baseline => check_baseline_grader(case, grader, out),
    }
}

/// The grader's type; `None` (reported) when `type` is missing (or
/// misspelled), not a string, or none of the six.
fn grader_kind(grader: &Grader, out: &mut Out) -> Option<GraderKind> {
    let file = grader.file.as_path();
    let types = GraderKind::ALL.map(GraderKind::as_str);
    let Some(type_entry) = grader.get("type") else {
        // A mistyped `type` (`typ:`, `tpye:`) says so, at its line.
        if let Some((key, entry)) = grader.fields.iter().find(|(key, _)| {
            closest(key, &["type"]).is_some()
                || matches!(key.as_str(), "kind" | "grader" | "grader_type")
        }) {
            out.error(
                Code::UnknownKey,
                file,
                entry.line.or(grader.line),
                format!(
                    "unknown key `{key}` in grader `{}`, which has no `type` (the platform refuses the case)",
                    grader.name
                ),
                if closest(key, &["type"]).is_some() {
                    "did you mean `type`?"
                } else {
                    "use `type:`"
                },
            );
            return None;
        }
        out.error(
            Code::MissingType,
            file,
            grader.line,
            format!("grader `{}` has no `type`", grader.name),
            format!("add `type:` ({})", types.join(" | ")),
        );
        return None;
    };
    let Some(type_text) = type_entry.as_str() else {
        out.error(
            Code::MissingType,
            file,
            type_entry.line,
            format!(
                "grader `{}`: `type` must be a string, not {}",
                grader.name,
                kind_name(&type_entry.value)
            ),
            format!("write type: one of {}", types.join(" | ")),
        );
        return None;
    };
    let kind = GraderKind::parse(type_text);
    if kind.is_none() {
        let fix = match closest(type_text, &types) {
            Some(t) => format!("did you mean `{t}`?"),
            None => format!("use one of {}", types.join(" | ")),
        };
        out.error(
            Code::UnknownGraderType,
            file,
            type_entry.line,
            format!("grader `{}` has unknown type `{type_text}`", grader.name),
            fix,
        );
    }
    kind
}

/// Words written for a key a grader type requires.
const WORDS_FOR: [(&str, &[&str]); 5] = [
    ("pattern", &["regex", "regexp", "re", "expr", "expression"]),
    (
        "criteria",
        &[
            "criterion",
            "rubric",
            "prompt",
            "expect",
            "expected",
            "check",
        ],
    ),
    ("tool", &["tool_name", "tools"]),
    ("path", &["file", "glob", "paths", "pattern"]),
    ("baseline_file", &["baseline", "file", "transcript"]),
];

/// A key the grader does not take, written for one it requires and lacks.
struct StandIn {
    /// The key as written.
    written: String,
    /// The required key it stands for.
    meant: &'static str,
    /// True when it is a misspelling of it (not another word for it).
    typo: bool,
}

/// The keys of `grader` written for required keys it lacks: a misspelling or
/// another word for one (`regex:` for `pattern:`), else the only unknown key
/// when exactly one required key is missing. One cause, one finding: the
/// unknown key is reported with the key to use, the missing key is not.
fn stand_ins(grader: &Grader, kind: GraderKind) -> Vec<StandIn> {
    let allowed = allowed_keys(kind);
    let missing: Vec<&'static str> = kind
        .required()
        .iter()
        .copied()
        .filter(|k| !grader.fields.contains_key(*k))
        .collect();
    let unknown: Vec<&String> = grader
        .fields
        .keys()
        .filter(|k| !allowed.contains(&k.as_str()))
        .collect();
    let mut found: Vec<StandIn> = Vec::new();
    for meant in &missing {
        let words = WORDS_FOR
            .iter()
            .find(|(k, _)| k == meant)
            .map_or(&[][..], |(_, w)| *w);
        let pick = unknown
            .iter()
            .filter(|u| !found.iter().any(|f| &f.written == **u))
            .find_map(|u| {
                if closest(u, &[meant]).is_some() {
                    Some((u, true))
                } else {
                    words.contains(&u.as_str()).then_some((u, false))
                }
            });
        if let Some((u, typo)) = pick {
            found.push(StandIn {
                written: (*u).clone(),
                meant,
                typo,
            });
        }
    }
    if found.is_empty()
        && let ([meant], [only]) = (missing.as_slice(), unknown.as_slice())
        && closest(only, &allowed).is_none()
        && owner_type(only).is_none()
        && case_key_home(only).is_none()
    {
        found.push(StandIn {
            written: (*only).clone(),
            meant,
            typo: false,
        });
    }
    found
}

/// Every key a grader of `kind` takes.
fn allowed_keys(kind: GraderKind) -> Vec<&'static str> {
    COMMON_GRADER_KEYS
        .iter()
        .chain(kind.keys())
        .copied()
        .collect()
}

/// The grader type `key` belongs to, if any.
fn owner_type(key: &str) -> Option<GraderKind> {
    GraderKind::ALL
        .into_iter()
        .find(|k| k.keys().contains(&key))
}

/// Report each key a grader of `kind` does not take: the key it stands for,
/// the closest key, the grader type or the case file it belongs to, else the
/// keys it takes.
fn check_unknown_grader_keys(
    grader: &Grader,
    kind: GraderKind,
    stand_ins: &[StandIn],
    out: &mut Out,
) {
    let allowed = allowed_keys(kind);
    for (key, entry) in &grader.fields {
        if allowed.contains(&key.as_str()) {
            continue;
        }
        let fix = if let Some(s) = stand_ins.iter().find(|s| &s.written == key) {
            if s.typo {
                format!("did you mean `{}`?", s.meant)
            } else {
                format!("use `{}:`", s.meant)
            }
        } else if let Some(k) = closest(key, &allowed) {
            format!("did you mean `{k}`?")
        } else if let Some(o) = owner_type(key) {
            format!(
                "`{key}` belongs to {} graders; remove it (keys for {}: {})",
                o.as_str(),
                kind.as_str(),
                allowed.join(", ")
            )
        } else if let Some(home) = case_key_home(key) {
            home
        } else {
            format!(
                "remove it; keys for {}: {}",
                kind.as_str(),
                allowed.join(", ")
            )
        };
        out.error(
            Code::UnknownKey,
            &grader.file,
            entry.line.or(grader.line),
            format!(
                "unknown key `{}` in {} grader `{}` (the platform refuses the case)",
                super::clip(key),
                kind.as_str(),
                grader.name
            ),
            fix,
        );
    }
}

/// Report each key a grader of `kind` requires and does not set (unless an
/// unknown key stands for it, reported as such).
fn check_required_grader_keys(
    grader: &Grader,
    kind: GraderKind,
    stand_ins: &[StandIn],
    out: &mut Out,
) {
    for key in kind.required() {
        if !grader.fields.contains_key(*key) && !stand_ins.iter().any(|s| s.meant == *key) {
            let fix = match (*key, grader.file.extension()) {
                ("criteria", Some("md")) => {
                    "write the criteria as the file body, below the frontmatter".to_string()
                }
                ("pattern", Some("md")) => {
                    "add `pattern:` (or write the pattern as the file body)".to_string()
                }
                _ => format!("add `{key}:`"),
            };
            out.error(
                Code::MissingKey,
                &grader.file,
                grader.line,
                format!("{} grader `{}` has no `{key}`", kind.as_str(), grader.name),
                fix,
            );
        }
    }
}

/// Check the values every grader takes: `name`, `weight`, `arm`.
fn check_common_values(grader: &Grader, out: &mut Out) {
    let file = grader.file.as_path();
    if let Some(e) = grader.get("name") {
        expect_string("name", e, out);
    }
    if let Some(e) = grader.get("weight") {
        match e.value.as_f64() {
            Some(w) if w > 0.0 && w.is_finite() => {}
            Some(w) => out.error(
                Code::OutOfRange,
                file,
                e.line,
                format!("`weight: {w}` must be above 0"),
                "set a positive weight (default 1)",
            ),
            None => out.error(
                Code::WrongType,
                file,
                e.line,
                format!("`weight` must be a number, not {}", kind_name(&e.value)),
                "write a positive number, unquoted",
            ),
        }
    }
    if let Some(e) = grader.get("arm")
        && !matches!(e.as_str(), Some("with-only" | "both"))
    {
        out.error(
            Code::InvalidValue,
            file,
            e.line,
            format!(
                "`arm` must be `with-only` or `both`, not {}",
                show(&e.value)
            ),
            "write arm: both (scored on both arms) or arm: with-only",
        );
    }
}

/// Report `criteria` or `pattern` still holding the `init` placeholder.
fn check_placeholders(grader: &Grader, out: &mut Out) {
    for key in ["criteria", "pattern"] {
        if let Some(e) = grader.get(key)
            && let Some(text) = e.as_str()
            && TODO_LINE.is_match(text)
        {
            out.error(
                Code::InitPlaceholder,
                &grader.file,
                e.line,
                format!(
                    "grader `{}` still holds the `init` placeholder \"{INIT_CRITERIA}\"",
                    grader.name
                ),
                if key == "pattern" {
                    "replace the TODO line with a JavaScript regex a good response matches"
                } else {
                    "replace the TODO line with concrete pass criteria"
                },
            );
        }
    }
}

/// `type: regex`: JavaScript flags, a match mode, a target, and a pattern
/// JavaScript compiles with those flags.
fn check_regex_grader(grader: &Grader, out: &mut Out) {
    let file = grader.file.as_path();
    let flags = regex_flags(grader, out);
    if let Some(e) = grader.get("match") {
        let ok = e.as_str().is_some_and(|m| suite::parse_match(m).is_some());
        if !ok {
            out.error(
                Code::InvalidValue,
                file,
                e.line,
                format!(
                    "`match` must be contains, not_contains or count:N, not {}",
                    show(&e.value)
                ),
                "write match: contains (default), not_contains or count:2",
            );
        }
    }
    if let Some(e) = grader.get("target") {
        check_target("target", e, file, out);
    }
    if let Some(e) = grader.get("pattern")
        && expect_string("pattern", e, out)
    {
        check_js_regex(
            "pattern",
            e.as_str().unwrap_or(""),
            flags.as_deref().unwrap_or(""),
            file,
            e.line.or(grader.line),
            out,
        );
    }
}

/// A regex grader's `flags` (empty when unset); `None` (reported) when they
/// are not a string of JavaScript flags, so the pattern is compiled without.
fn regex_flags(grader: &Grader, out: &mut Out) -> Option<String> {
    let Some(e) = grader.get("flags") else {
        return Some(String::new());
    };
    if !expect_string("flags", e, out) {
        return None;
    }
    let flags = e.as_str().unwrap_or("").to_owned();
    if let Err((message, fix)) = check_flags(&flags) {
        out.error(Code::RegexFlags, &grader.file, e.line, message, fix);
        return None;
    }
    Some(flags)
}

/// `type: tool_used`: a tool name, an `input_match` JavaScript compiles, and
/// `min`/`max` counts the grader can meet.
fn check_tool_used_grader(grader: &Grader, out: &mut Out) {
    let file = grader.file.as_path();
    if let Some(e) = grader.get("tool") {
        expect_string("tool", e, out);
    }
    if let Some(e) = grader.get("input_match")
        && expect_string("input_match", e, out)
    {
        check_js_regex(
            "input_match",
            e.as_str().unwrap_or(""),
            "",
            file,
            e.line.or(grader.line),
            out,
        );
    }
    let mut bounds = [None, None];
    for (i, key) in ["min", "max"].into_iter().enumerate() {
        if let Some(e) = grader.get(key) {
            bounds[i] = suite::as_count(&e.value);
            if bounds[i].is_none() {
                out.error(
                    Code::WrongType,
                    file,
                    e.line,
                    format!(
                        "`{key}` must be a whole number 0 or above, not {}",
                        show(&e.value)
                    ),
                    format!("write {key}: 0, 1, 2, …"),
                );
            }
        }
    }
    let min = if grader.get("min").is_some() {
        bounds[0]
    } else {
        Some(1)
    };
    if let (Some(min), Some(max)) = (min, bounds[1])
        && min > max
    {
        out.error(
            Code::OutOfRange,
            file,
            grader_line(grader, "max"),
            format!("`min` ({min}) is above `max` ({max}): the grader can never pass"),
            if grader.get("min").is_none() {
                "min defaults to 1: add min: 0".to_string()
            } else {
                "make min at most max".to_string()
            },
        );
    }
}

/// `type: tool_order`: `before` and `after` are tool references whose
/// `input_match` JavaScript compiles.
fn check_tool_order_grader(grader: &Grader, out: &mut Out) {
    let file = grader.file.as_path();
    for key in ["before", "after"] {
        let Some(e) = grader.get(key) else { continue };
        match suite::parse_tool_ref(&e.value) {
            Some(r) => {
                if let Some(pattern) = &r.input_match {
                    check_js_regex(
                        &format!("{key}.input_match"),
                        pattern,
                        "",
                        file,
                        e.line.or(grader.line),
                        out,
                    );
                }
            }
            None => out.error(
                Code::InvalidValue,
                file,
                e.line.or(grader.line),
                format!(
                    "`{key}` must be a tool name or {{tool, input_match}}, not {}",
                    show(&e.value)
                ),
                format!("write {key}: Read, or {key}: {{tool: Write, input_match: 'report'}}"),
            ),
        }
    }
}

/// `type: file_exists`: a path glob and a boolean `exists`.
fn check_file_exists_grader(grader: &Grader, out: &mut Out) {
    if let Some(e) = grader.get("path") {
        expect_string("path", e, out);
    }
    if let Some(e) = grader.get("exists")
        && !matches!(e.value, Value::Bool(_))
    {
        out.error(
            Code::WrongType,
            &grader.file,
            e.line,
            format!("`exists` must be true or false, not {}", show(&e.value)),
            "write exists: true or exists: false (unquoted)",
        );
    }
}

/// `type: llm`: criteria text and a `focus` the judge can read.
fn check_llm_grader(grader: &Grader, out: &mut Out) {
    if let Some(e) = grader.get("criteria") {
        expect_string("criteria", e, out);
    }
    if let Some(e) = grader.get("focus") {
        check_target("focus", e, &grader.file, out);
    }
}

/// `type: baseline`: criteria text and a `baseline_file` inside the case
/// folder that is JSON Lines.
fn check_baseline_grader(case: &Case, grader: &Grader, out: &mut Out) {
    if let Some(e) = grader.get("criteria") {
        expect_string("criteria", e, out);
    }
    if let Some(e) = grader.get("baseline_file")
        && expect_string("baseline_file", e, out)
        && let Some(meta) = check_path(
            case,
            "baseline_file",
            e.as_str().unwrap_or(""),
            &grader.file,
            e.line.or(grader.line),
            out,
        )
    {
        check_json_lines(case, grader, e, &meta, out);
    }
}

/// Report a `baseline_file` (the entry `e`, found as `meta`) that is not
/// JSON Lines: a folder, not UTF-8, or a non-empty line that is not JSON.
fn check_json_lines(
    case: &Case,
    grader: &Grader,
    e: &Entry,
    meta: &std::fs::Metadata,
    out: &mut Out,
) {
    let rel = e.as_str().unwrap_or("");
    let path = case.dir.join(rel);
    let fix = "write one JSON value per line (JSON Lines: the recorded transcript to compare with)";
    if meta.is_dir() {
        out.error(
            Code::BaselineFileInvalid,
            &grader.file,
            e.line.or(grader.line),
            format!(
                "`baseline_file: {}` of grader `{}` is a folder, not a JSON Lines file",
                super::clip(rel),
                grader.name
            ),
            fix,
        );
        return;
    }
    if meta.len() > crate::config::MAX_SUITE_FILE {
        // The suite scan reports it, and it is never read.
        return;
    }
    let text = match suite::read_text(&path, false) {
        Ok(text) => text,
        Err(d) => {
            out.0.push(d);
            return;
        }
    };
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if let Err(err) = serde_json::from_str::<serde::de::IgnoredAny>(line) {
            out.error(
                Code::BaselineFileInvalid,
                &path,
                Some(n + 1),
                format!(
                    "line {} of the baseline_file of grader `{}` is not JSON ({err}), so the judge has no baseline to compare with",
                    n + 1,
                    grader.name
                ),
                fix,
            );
            return;
        }
    }
}

/// The line of `key` in `grader`, else the grader's own line.
fn grader_line(grader: &Grader, key: &str) -> Option<usize> {
    grader.get(key).and_then(|e| e.line).or(grader.line)
}

/// A scalar value as written, in backticks; other values by their kind.
fn show(value: &Value) -> String {
    match value {
        Value::String(s) => format!("`{s}`"),
        Value::Number(n) => format!("`{n}`"),
        Value::Bool(b) => format!("`{b}`"),
        other => kind_name(other).to_string(),
    }
}

/// Report a `target`/`focus` that is none of the platform's sources.
fn check_target(key: &str, e: &Entry, file: &Utf8Path, out: &mut Out) {
    if suite::parse_target(&e.value).is_none() {
        out.error(
            Code::InvalidValue,
            file,
            e.line,
            format!("`{key}` must be last_message, trace, files, mock_calls or {{source: file, path: P}}, not {}", show(&e.value)),
            format!("write {key}: last_message (default)"),
        );
    }
}
