//! `mocks/` folders, read the way the platform reads them before a case runs.
//!
//! A case's mock layers are the `mocks/` folders of every folder from the suite
//! root down to the case folder (suite-level, group-level, case-level; the
//! nearer one answers a tool first). Each holds one folder per MCP server,
//! `mocks/<server>/`, with `<tool>.md` responders (frontmatter `type: fixed`
//! (default) or `agent`, `expect`, `error`, `abort_when`; the body is the
//! canned answer or the agent's description), an optional `_server.md` (one
//! agent answering several `tools:`) and an optional `_tools.json` (a saved
//! `tools/list` answer). Whatever the platform refuses there fails every run
//! of the case ("mocks: could not be prepared for this case"), so each is an
//! error (`mock-invalid`). The case walk skips every `mocks` folder, so a case
//! placed in one never runs (`case-in-mocks`).

use super::Out;
use crate::diagnostic::Code;
use crate::suite::{self, SKIPPED_DIRS};
use camino::{Utf8Path, Utf8PathBuf};
use serde_norway::Value;
use std::collections::BTreeSet;

/// The most entries the platform reads in `mocks/` or `mocks/<server>/`.
const MAX_ENTRIES: usize = 256;
/// The multi-tool responder's file name.
const SERVER_MD: &str = "_server.md";
/// The saved `tools/list` answer.
const TOOLS_JSON: &str = "_tools.json";
/// What the platform's scaffold leaves in a responder it wants filled.
pub const PLACEHOLDER: &str = "TODO: replace with the canned result this tool should return";
/// Keys of a responder's frontmatter.
const KEYS: [&str; 5] = ["type", "expect", "error", "tools", "abort_when"];
/// Deepest folder nesting walked (as the case walk).
const MAX_DEPTH: usize = 16;

/// True for a tool-name segment: letters, digits, `_` and `-`.
fn is_segment(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Check every `mocks/` folder the cases under `root` (a suite, or a plugin's
/// eval folder) read, and every `mocks/` folder that holds a case.
pub(super) fn check(root: &Utf8Path, case_dirs: &[Utf8PathBuf], out: &mut Out) {
    let mut layers = BTreeSet::new();
    for dir in case_dirs {
        let Ok(rel) = dir.strip_prefix(root) else {
            continue;
        };
        let mut at = root.to_owned();
        layers.insert(at.join("mocks"));
        for part in rel.components() {
            at.push(part);
            layers.insert(at.join("mocks"));
        }
    }
    for layer in &layers {
        check_layer(layer, out);
    }
    let cases: BTreeSet<&Utf8Path> = case_dirs.iter().map(|d| d.as_path()).collect();
    cases_in_mocks(root, &cases, 0, out);
}

/// Walk the folders the case walk lists (not case folders, not skipped ones)
/// and report a `mocks/` among them that holds a case; `cases` are the case
/// folders the suite's scan found (no need to look at them again).
fn cases_in_mocks(dir: &Utf8Path, cases: &BTreeSet<&Utf8Path>, depth: usize, out: &mut Out) {
    if depth > MAX_DEPTH || cases.contains(dir) || is_case(dir) {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    // The entry's own type, and a `stat` only for a link (followed, as before).
    let mut subdirs: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| match e.file_type() {
            Ok(t) if t.is_symlink() => e.path().is_dir(),
            Ok(t) => t.is_dir(),
            Err(_) => e.path().is_dir(),
        })
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    subdirs.sort();
    for name in subdirs {
        let path = dir.join(&name);
        if name == "mocks" {
            if holds_case(&path) {
                out.error(
                    Code::CaseInMocks,
                    &path,
                    None,
                    "mocks/ holds a case (prompt.md or case.yaml): the platform never runs cases there and reads its files as mock responders".into(),
                    "move the case out of mocks/ (mocks/ is reserved for mock responders), or rename the folder",
                );
            }
            continue;
        }
        if name.eq_ignore_ascii_case(".git") || SKIPPED_DIRS.contains(&name.as_str()) {
            continue;
        }
        cases_in_mocks(&path, cases, depth + 1, out);
    }
}

/// A folder directly holding `prompt.md` or `case.yaml` (a file).
fn is_case(dir: &Utf8Path) -> bool {
    ["prompt.md", "case.yaml"]
        .iter()
        .any(|f| dir.join(f).is_file())
}

/// The platform's test: `mocks/` holds prompt.md or case.yaml, or one of its
/// first 64 folders holds a case.yaml.
fn holds_case(mocks: &Utf8Path) -> bool {
    if ["prompt.md", "case.yaml"]
        .iter()
        .any(|f| mocks.join(f).symlink_metadata().is_ok())
    {
        return true;
    }
    let Ok(entries) = std::fs::read_dir(mocks) else {
        return false;
    };
    entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .take(64)
        .any(|e| e.path().join("case.yaml").symlink_metadata().is_ok())
}

/// Names in `dir`, sorted; `None` (reported) when it cannot be listed.
fn listing(dir: &Utf8Path, what: &str, out: &mut Out) -> Option<Vec<String>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            out.error(
                Code::MockInvalid,
                dir,
                None,
                format!("{what} cannot be read ({e}): every run of the cases reading it fails"),
                "make it a readable folder",
            );
            return None;
        }
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    if names.len() > MAX_ENTRIES {
        out.error(
            Code::MockInvalid,
            dir,
            None,
            format!(
                "{what} has {} entries (the platform reads at most {MAX_ENTRIES})",
                names.len()
            ),
            "split the mocks or remove the ones no case uses",
        );
        return None;
    }
    Some(names)
}

/// One `mocks/` folder.
fn check_layer(mocks: &Utf8Path, out: &mut Out) {
    let Ok(meta) = std::fs::metadata(mocks) else {
        return;
    };
    if !meta.is_dir() {
        out.error(
            Code::MockInvalid,
            mocks,
            None,
            "mocks is not a directory: every run of the cases below it fails".into(),
            "make mocks/ a folder of mocks/<server>/<tool>.md responders, or rename the file",
        );
        return;
    }
    let Some(names) = listing(mocks, "mocks/", out) else {
        return;
    };
    for name in names {
        let path = mocks.join(&name);
        if name.starts_with('.') || !path.is_dir() {
            continue;
        }
        check_server(&path, &name, out);
    }
}

/// One `mocks/<server>/` folder.
fn check_server(dir: &Utf8Path, server: &str, out: &mut Out) {
    if !is_segment(server) {
        out.error(
            Code::MockInvalid,
            dir,
            None,
            format!("mocks/{server}/ is not named like a tool-name segment: every run of the cases reading it fails"),
            "name the folder after the server segment of the tool name (letters, digits, '_' and '-' only)",
        );
        return;
    }
    let Some(names) = listing(dir, &format!("mocks/{server}/"), out) else {
        return;
    };
    let mut answers = false;
    for name in names {
        let path = dir.join(&name);
        if name == TOOLS_JSON {
            answers = true;
            check_tools_json(&path, server, out);
            continue;
        }
        if name.starts_with('.') || !name.ends_with(".md") || path.is_dir() {
            continue;
        }
        answers = true;
        let stem = name.trim_end_matches(".md");
        if name != SERVER_MD && !is_segment(stem) {
            out.error(
                Code::MockInvalid,
                &path,
                None,
                format!("mocks/{server}/{name} is not named after a tool: every run of the cases reading it fails"),
                "name responder files after the tool (letters, digits, '_' and '-' only), e.g. list_issues.md",
            );
            continue;
        }
        check_responder(&path, server, name == SERVER_MD, out);
    }
    if !answers {
        out.warn(
            Code::MockEmpty,
            dir,
            None,
            format!(
                "mocks/{server}/ has no <tool>.md responders, so nothing is mocked for {server}"
            ),
            format!(
                "add mocks/{server}/<tool>.md (the canned answer as its body), or remove the folder"
            ),
        );
    }
}

/// `_tools.json`: a saved `tools/list` answer, `{"tools": [{"name", …}]}`
/// (or the same under `"result"`).
fn check_tools_json(path: &Utf8Path, server: &str, out: &mut Out) {
    let Ok(text) = crate::fsio::read_text(path, crate::config::MAX_SUITE_FILE) else {
        out.error(
            Code::MockInvalid,
            path,
            None,
            format!("mocks/{server}/{TOOLS_JSON} cannot be read as UTF-8 text"),
            "save the server's tools/list answer as UTF-8 JSON",
        );
        return;
    };
    let doc: serde_json::Value = match serde_json::from_str(&text) {
        Ok(doc) => doc,
        Err(e) => {
            out.error(
                Code::MockInvalid,
                path,
                Some(e.line()),
                format!("mocks/{server}/{TOOLS_JSON} is not valid JSON ({e}): every run of the cases reading it fails"),
                "save the server's tools/list answer as it came",
            );
            return;
        }
    };
    let list = doc.get("result").unwrap_or(&doc);
    let ok = list
        .get("tools")
        .and_then(|t| t.as_array())
        .is_some_and(|tools| {
            tools.iter().all(|t| {
                t.get("name")
                    .and_then(|n| n.as_str())
                    .is_some_and(|n| !n.is_empty())
                    && t.get("description").is_none_or(|d| d.is_string())
                    && t.get("inputSchema").is_none_or(|s| s.is_object())
            })
        });
    if !ok {
        out.error(
            Code::MockInvalid,
            path,
            None,
            format!("mocks/{server}/{TOOLS_JSON} is not a saved tools/list answer: every run of the cases reading it fails"),
            "write {\"tools\": [{\"name\": …, \"description\": …, \"inputSchema\": {…}}]}",
        );
    }
}

/// A value `expect:` may hold: text, a number or a boolean, a list of those,
/// or a mapping of such values.
fn expect_value_ok(value: &Value) -> bool {
    let scalar = |v: &Value| matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_));
    match value {
        Value::Sequence(items) => items.iter().all(scalar),
        Value::Mapping(map) => map.values().all(expect_value_ok),
        other => scalar(other),
    }
}

/// One responder: `<tool>.md` or `_server.md`.
fn check_responder(path: &Utf8Path, server: &str, server_md: bool, out: &mut Out) {
    let name = path.file_name().unwrap_or("");
    let label = format!("mocks/{server}/{name}");
    let mut fail = |line: Option<usize>, what: String, fix: &str| {
        out.error(
            Code::MockInvalid,
            path,
            line,
            format!("{label}: {what}: every run of the cases reading it fails"),
            fix,
        );
    };
    let Ok(text) = crate::fsio::read_text(path, crate::config::MAX_SUITE_FILE) else {
        fail(
            None,
            "cannot be read as UTF-8 text".into(),
            "save it as UTF-8",
        );
        return;
    };
    let Ok(md) = suite::split_markdown(&text) else {
        fail(
            Some(1),
            "the frontmatter opens with `---` but never closes".into(),
            "add a closing `---` line",
        );
        return;
    };
    let mut fm = serde_norway::Mapping::new();
    let mut lines = std::collections::HashMap::new();
    if let Some(fm_text) = md.frontmatter {
        match suite::parse_yaml(fm_text, path, md.frontmatter_line) {
            Err(d) => {
                fail(d.line, d.message, "fix the YAML syntax");
                return;
            }
            Ok(Value::Null) => {}
            Ok(Value::Mapping(m)) => {
                fm = m;
                lines = suite::key_lines(fm_text, md.frontmatter_line);
            }
            Ok(_) => {
                fail(
                    Some(md.frontmatter_line),
                    "the frontmatter is not a mapping of `key: value` lines".into(),
                    "write the frontmatter as `key: value` lines",
                );
                return;
            }
        }
    }
    let line = |key: &str| lines.get(key).copied();
    for key in fm.keys().map(suite::key_string) {
        if !KEYS.contains(&key.as_str()) {
            fail(
                line(&key),
                format!("unknown key `{key}`"),
                "use only type, expect, error, tools and abort_when",
            );
            return;
        }
    }
    let agent = match fm.get("type") {
        None => false,
        Some(Value::String(t)) if t == "fixed" => false,
        Some(Value::String(t)) if t == "agent" => true,
        Some(_) => {
            fail(
                line("type"),
                "`type` must be fixed or agent".into(),
                "write type: fixed (a canned answer) or type: agent",
            );
            return;
        }
    };
    if fm.get("error").is_some_and(|v| !v.is_bool()) {
        fail(
            line("error"),
            "`error` must be true or false".into(),
            "write error: true (or remove it)",
        );
        return;
    }
    if fm.get("abort_when").is_some_and(|v| !v.is_string()) {
        fail(
            line("abort_when"),
            "`abort_when` must be text".into(),
            "write the conditions as a block: abort_when: |",
        );
        return;
    }
    let tools: Option<Vec<&str>> = match fm.get("tools") {
        None => None,
        Some(Value::Sequence(items)) => {
            let names: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            if names.len() != items.len() || !names.iter().all(|n| is_segment(n)) {
                fail(
                    line("tools"),
                    "`tools` must list tool names (letters, digits, '_' and '-')".into(),
                    "write tools: [list_issues, get_issue]",
                );
                return;
            }
            Some(names)
        }
        Some(_) => {
            fail(
                line("tools"),
                "`tools` must be a list".into(),
                "write tools: [list_issues, get_issue]",
            );
            return;
        }
    };
    if let Some(expect) = fm.get("expect")
        && !matches!(expect, Value::Mapping(m) if m.values().all(expect_value_ok))
    {
        fail(
            line("expect"),
            "`expect` must map argument names to expected values".into(),
            "write expect: as indented `argument: value` lines",
        );
        return;
    }
    if tools.is_some() && !server_md {
        fail(
            line("tools"),
            format!(
                "`tools:` belongs in {SERVER_MD} (a <tool>.md answers the tool it is named after)"
            ),
            "remove tools: here, or move the responder to _server.md",
        );
        return;
    }
    let body = md.body.trim_start_matches('\n').trim_end();
    if agent {
        if fm.contains_key("error") {
            fail(
                line("error"),
                "`error:` applies to fixed responders only".into(),
                "remove error:, or make it a fixed responder",
            );
            return;
        }
        if body.is_empty() || body.contains(PLACEHOLDER) {
            fail(
                Some(md.body_line),
                "an agent responder needs a description of the server it plays as its body".into(),
                "describe the fake server below the frontmatter",
            );
            return;
        }
    } else {
        if fm.contains_key("abort_when") {
            fail(
                line("abort_when"),
                "`abort_when:` needs `type: agent`".into(),
                "add type: agent, or guard a fixed responder's input with expect:",
            );
            return;
        }
        if body.contains(PLACEHOLDER) {
            fail(
                Some(md.body_line),
                "still holds the scaffolded placeholder".into(),
                "write the tool's canned answer as the body",
            );
            return;
        }
    }
    if server_md {
        if !agent {
            fail(
                line("type"),
                "only `type: agent` is meaningful here".into(),
                "add type: agent, or put a fixed answer in <tool>.md",
            );
        } else if tools.as_ref().is_none_or(|t| t.is_empty()) {
            fail(
                line("tools"),
                "an agent answering several tools needs `tools: [...]`".into(),
                "list the tools it answers: tools: [list_issues, get_issue]",
            );
        } else if fm.contains_key("expect") && tools.as_ref().is_some_and(|t| t.len() > 1) {
            fail(
                line("expect"),
                "`expect:` here would guard every tool it answers".into(),
                "put the guard on the one tool it is meant for, as mocks/<server>/<tool>.md",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_and_expect_values() {
        assert!(is_segment("get_issue-2") && !is_segment("a.b") && !is_segment(""));
        let v = |t: &str| serde_norway::from_str::<Value>(t).unwrap();
        assert!(expect_value_ok(&v("x")));
        assert!(expect_value_ok(&v("[a, 1, true]")));
        assert!(expect_value_ok(&v("{a: {b: 1}}")));
        assert!(!expect_value_ok(&v("null")));
        assert!(!expect_value_ok(&v("[[a]]")));
    }
}
