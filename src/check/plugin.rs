//! `bob-eval check --plugin DIR`: a plugin's own `claude plugin eval` suites,
//! found as the platform finds them.
//!
//! - The manifest: `.claude-plugin/plugin.json`, else `plugin.json` (a root
//!   `SKILL.md` makes a skill folder a plugin too). Its `name` prefixes every
//!   Skill input (`{"skill":"<plugin>:<skill>"}`).
//! - The eval folder: the manifest's `experimental.evals` (a string, or a
//!   list whose first entry counts), validated as the platform validates it;
//!   an invalid one, or a top-level `evals` key, is ignored for `evals/` (a
//!   warning says so). With the default, *every* folder named `evals` in the
//!   plugin (outside `.git`, `node_modules`, `.claude`, `results` and `mocks`)
//!   holds cases, as on the platform.
//! - Cases: the suite loader's walk (nested groups; `mocks/` and `results/`
//!   skipped), then the case checks, the traps ([`super::traps`]), the mock
//!   layers (`mocks`) and the `plugins:` entries.
//! - Items: the plugin's own skills, commands and agents (`skills/`,
//!   `commands/`, `agents/` and the paths the manifest adds).
//!
//! Only the platform's rules and traps are findings. bob-eval's trigger pair
//! is advice here: a note per skill nothing checks the firing of, with the
//! graders to add, and none for a plugin without skills (a hook plugin).

use super::mocks;
use super::servers;
use super::traps::{Items, Traps, skill_pin};
use super::{CheckReport, Out, SuiteSummary, check_case, relative};
use crate::diagnostic::{Code, Diagnostic};
use crate::error::{Error, Result};
use crate::item::ItemKind;
use crate::suite::{self, Case, SKIPPED_DIRS};
use camino::{Utf8Path, Utf8PathBuf};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// The default eval folder.
pub const DEFAULT_EVAL_DIR: &str = "evals";
/// A plugin's loaded component folders: an eval folder may not sit in one.
const COMPONENT_DIRS: [&str; 9] = [
    "commands",
    "skills",
    "agents",
    "hooks",
    "themes",
    "output-styles",
    "monitors",
    "workflows",
    "bin",
];
/// Folder names the case walk always skips (an eval folder may not pass through one).
const WALK_SKIPS: [&str; 4] = ["node_modules", ".claude", "results", "mocks"];
/// Deepest folder the search for `evals` folders enters.
const MAX_DEPTH: usize = 16;
/// Most folders the search lists (the platform's walk stops there too).
const MAX_FOLDERS: usize = 100_000;

/// The manifest, parsed.
struct PluginManifest {
    path: Utf8PathBuf,
    json: Map<String, Value>,
}

/// Where a plugin's cases live.
#[derive(Debug, Clone, PartialEq, Eq)]
enum EvalDir {
    /// `evals`: every folder of that name.
    Default,
    /// The manifest's `experimental.evals`: that one folder.
    Named(Vec<String>),
}

/// Check the plugin at `dir` in the platform's own layout.
pub fn check_plugin(dir: &Utf8Path) -> Result<CheckReport> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(Error::Usage(format!("--plugin {dir} is not a folder"))),
        Err(e) => return Err(Error::Usage(format!("--plugin {dir}: {e}"))),
    }
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    let mut out = Out(&mut diagnostics);
    let manifest = read_manifest(dir, &mut out);
    let json = manifest.as_ref().map(|m| &m.json);
    let name = json
        .and_then(|j| j.get("name"))
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| folder_name(dir));
    let items = plugin_items(dir, json, &name);
    let traps = Traps {
        items: &items,
        hooks: manifest_hooks(json) || dir.join("hooks/hooks.json").is_file(),
        trigger_pair: false,
    };
    let eval_dir = match &manifest {
        Some(m) => eval_dir(m, &mut out),
        None => EvalDir::Default,
    };
    let roots = suite_roots(dir, &eval_dir);
    let declared = servers::declared(dir);

    let mut suites = Vec::new();
    let mut cases: Vec<Case> = Vec::new();
    for root in &roots {
        let (suite_cases, problems) = suite::load_cases(root);
        out.0.extend(problems);
        for case in &suite_cases {
            check_case(case, &mut out);
            traps.check_case(case, &mut out);
            check_plugin_entries(case, dir, &mut out);
            servers::check(root, case, &declared, &mut out);
        }
        let case_dirs: Vec<Utf8PathBuf> = suite_cases.iter().map(|c| c.dir.clone()).collect();
        mocks::check(root, &case_dirs, &mut out);
        suites.push(SuiteSummary {
            item: name.clone(),
            dir: relative(dir, root),
            cases: suite_cases.iter().map(|c| c.name.clone()).collect(),
        });
        cases.extend(suite_cases);
    }
    let main_dir = match &eval_dir {
        EvalDir::Default => roots
            .first()
            .cloned()
            .unwrap_or_else(|| dir.join(DEFAULT_EVAL_DIR)),
        EvalDir::Named(segments) => dir.join(segments.join("/")),
    };
    // The platform keys reports and `--case` on the name, and only warns.
    let mut seen: std::collections::HashMap<&str, &Case> = std::collections::HashMap::new();
    for case in &cases {
        if let Some(first) = seen.insert(case.name.as_str(), case) {
            out.warn(
                Code::DuplicateCase,
                &case.main_file(),
                None,
                format!(
                    "two cases are named `{}` (also {}): the report and --case cannot tell them apart",
                    case.name,
                    relative(dir, &first.dir)
                ),
                "give each case its own name (`name:` or the folder name)",
            );
        }
    }
    if cases.is_empty() {
        out.error(
            Code::NoCases,
            &main_dir,
            None,
            "no case: no folder holding prompt.md or case.yaml under the eval folder (the platform finds no case and exits 1)".into(),
            format!(
                "add {}/<case>/prompt.md with graders/",
                relative(dir, &main_dir)
            ),
        );
    } else {
        trigger_advice(&items, &cases, &main_dir, &mut out);
    }
    Ok(super::report(dir, suites, diagnostics))
}

fn folder_name(dir: &Utf8Path) -> String {
    dir.canonicalize_utf8()
        .ok()
        .and_then(|p| p.file_name().map(str::to_owned))
        .or_else(|| dir.file_name().map(str::to_owned))
        .unwrap_or_else(|| "plugin".into())
}

/// The manifest the platform reads, if any; what it cannot use is reported.
fn read_manifest(dir: &Utf8Path, out: &mut Out) -> Option<PluginManifest> {
    for rel in [".claude-plugin/plugin.json", "plugin.json"] {
        let path = dir.join(rel);
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            out.error(
                Code::ManifestInvalid,
                &path,
                None,
                format!("{rel} is a symbolic link, which the platform does not read: the plugin does not load, so no arm runs with it"),
                format!("make {rel} a regular file (copy it instead of linking it)"),
            );
            return None;
        }
        if !meta.is_file() {
            continue;
        }
        let text = match crate::fsio::read_text(&path, crate::config::MAX_SUITE_FILE) {
            Ok(text) => text,
            Err(e) => {
                out.error(
                    Code::ManifestInvalid,
                    &path,
                    None,
                    format!("{rel} cannot be read ({e}): the plugin does not load"),
                    "make it a readable UTF-8 JSON file",
                );
                return None;
            }
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        return match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(json)) => Some(PluginManifest { path, json }),
            Ok(_) => {
                out.error(
                    Code::ManifestInvalid,
                    &path,
                    Some(1),
                    format!("{rel} is not a JSON object: the plugin does not load, so no arm runs with it"),
                    "write {\"name\": \"<plugin>\", \"version\": \"…\", \"description\": \"…\"}",
                );
                None
            }
            Err(e) => {
                out.error(
                    Code::ManifestInvalid,
                    &path,
                    Some(e.line()),
                    format!("{rel} is not valid JSON ({e}): the plugin does not load, so no arm runs with it"),
                    "fix the JSON syntax",
                );
                None
            }
        };
    }
    if !dir.join("SKILL.md").is_file() {
        out.error(
            Code::NoManifest,
            &dir.join(".claude-plugin/plugin.json"),
            None,
            "no .claude-plugin/plugin.json: the platform finds no plugin here, so under --ablation with-without the cases refuse to load (and without it they run one arm, without the plugin)".into(),
            "add .claude-plugin/plugin.json: {\"name\": \"<plugin>\", \"version\": \"0.1.0\", \"description\": \"…\"}",
        );
    }
    None
}

/// True when the manifest declares hooks.
fn manifest_hooks(json: Option<&Map<String, Value>>) -> bool {
    json.is_some_and(|j| {
        j.contains_key("hooks")
            || j.get("experimental")
                .and_then(Value::as_object)
                .is_some_and(|e| e.contains_key("hooks"))
    })
}

/// True when `source` ships hooks (`hooks/hooks.json`, or a manifest `hooks` key).
pub(super) fn has_hooks(source: &Utf8Path) -> bool {
    if source.join("hooks/hooks.json").is_file() {
        return true;
    }
    [".claude-plugin/plugin.json", "plugin.json"]
        .iter()
        .filter_map(|rel| {
            crate::fsio::read_text(&source.join(rel), crate::config::MAX_SUITE_FILE).ok()
        })
        .filter_map(|t| serde_json::from_str::<Value>(&t).ok())
        .any(|v| manifest_hooks(v.as_object()))
}

/// The eval folder the manifest names, as the platform settles it.
fn eval_dir(manifest: &PluginManifest, out: &mut Out) -> EvalDir {
    let path = &manifest.path;
    let experimental = manifest
        .json
        .get("experimental")
        .and_then(Value::as_object)
        .and_then(|e| e.get("evals"));
    let mut ignored = |why: String| {
        out.warn(
            Code::EvalDirIgnored,
            path,
            None,
            format!("the platform ignores {why} and reads its cases from evals/"),
            "set \"experimental\": {\"evals\": \"<folder below the plugin>\"} (e.g. \"quality/evals\"), or remove it",
        );
        EvalDir::Default
    };
    let Some(value) = experimental else {
        return match manifest.json.get("evals") {
            Some(v) => ignored(format!(
                "the top-level \"evals\" key ({}): it belongs under \"experimental\"",
                brief(v)
            )),
            None => EvalDir::Default,
        };
    };
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Array(list) if list.iter().all(Value::is_string) && !list.is_empty() => {
            list[0].as_str().unwrap_or_default().to_owned()
        }
        other => {
            return ignored(format!(
                "experimental.evals {}: it must be a string naming a folder below the plugin",
                brief(other)
            ));
        }
    };
    match validate_eval_dir(&text) {
        Err(why) => ignored(format!("experimental.evals \"{text}\": it {why}")),
        Ok(segments) if segments == [DEFAULT_EVAL_DIR] => EvalDir::Default,
        Ok(segments) => EvalDir::Named(segments),
    }
}

/// The platform's rules for an eval folder path: its segments, or why not.
pub fn validate_eval_dir(text: &str) -> std::result::Result<Vec<String>, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("must not be empty".into());
    }
    let slashed = trimmed.replace('\\', "/");
    let bytes = slashed.as_bytes();
    if slashed.starts_with('/')
        || (bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':')
    {
        return Err(
            "must be a relative path inside the plugin (e.g. quality/evals), not absolute".into(),
        );
    }
    let mut segments: Vec<String> = Vec::new();
    for part in slashed.split('/') {
        match part {
            "" | "." => {}
            ".." if segments.last().is_some_and(|s| s != "..") => {
                segments.pop();
            }
            _ => segments.push(part.to_owned()),
        }
    }
    if segments.is_empty() {
        return Err("must name a directory below the plugin root, not the root itself".into());
    }
    if segments.iter().any(|s| s == "..") {
        return Err("must stay inside the plugin root (no ..)".into());
    }
    if trimmed.len() > 200 || segments.len() > 8 {
        return Err("must be a short path (at most 200 characters, 8 segments)".into());
    }
    let plain = |s: &str| {
        let b = s.as_bytes();
        b[0].is_ascii_alphanumeric()
            && b.iter()
                .all(|c| c.is_ascii_alphanumeric() || b"._@+-".contains(c))
    };
    if let Some(bad) = segments.iter().find(|s| !plain(s)) {
        return Err(format!(
            "must use plain directory names (a letter or digit first, then letters, digits, . _ - @ +); \"{bad}\" is not"
        ));
    }
    let last = segments
        .last()
        .map(|s| s.to_ascii_lowercase())
        .unwrap_or_default();
    if [".md", ".yml", ".yaml", ".json"]
        .iter()
        .any(|ext| last.ends_with(ext))
    {
        return Err(format!(
            "must name a directory, not a file (\"{}\")",
            segments[segments.len() - 1]
        ));
    }
    let first = segments[0].to_ascii_lowercase();
    if COMPONENT_DIRS.contains(&first.as_str()) {
        return Err(format!(
            "must not be inside the plugin's {}/ directory (a loaded component directory)",
            segments[0]
        ));
    }
    if let Some(skip) = segments.iter().find(|s| WALK_SKIPS.contains(&s.as_str())) {
        return Err(format!(
            "must not pass through \"{skip}\", which case discovery always skips"
        ));
    }
    Ok(segments)
}

/// The folders holding cases: the named eval folder, or every folder named
/// `evals` (the plugin itself when its own path passes through one).
fn suite_roots(dir: &Utf8Path, eval_dir: &EvalDir) -> Vec<Utf8PathBuf> {
    match eval_dir {
        EvalDir::Named(segments) => {
            let root = dir.join(segments.join("/"));
            if root.is_dir() {
                vec![root]
            } else {
                Vec::new()
            }
        }
        EvalDir::Default => {
            let inside = dir
                .canonicalize_utf8()
                .is_ok_and(|p| p.components().any(|c| c.as_str() == DEFAULT_EVAL_DIR));
            if inside {
                return vec![dir.to_owned()];
            }
            let mut roots = Vec::new();
            let mut seen = HashSet::new();
            let mut budget = MAX_FOLDERS;
            find_eval_dirs(dir, 0, &mut seen, &mut budget, &mut roots);
            roots
        }
    }
}

/// Every folder named `evals` under `dir`, not entering one once found.
fn find_eval_dirs(
    dir: &Utf8Path,
    depth: usize,
    seen: &mut HashSet<Utf8PathBuf>,
    budget: &mut usize,
    roots: &mut Vec<Utf8PathBuf>,
) {
    if depth > MAX_DEPTH || *budget == 0 {
        return;
    }
    *budget -= 1;
    if let Ok(real) = dir.canonicalize_utf8()
        && !seen.insert(real)
    {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    for name in names {
        if name.eq_ignore_ascii_case(".git") || SKIPPED_DIRS.contains(&name.as_str()) {
            continue;
        }
        let path = dir.join(&name);
        if !path.is_dir() {
            continue;
        }
        if name == DEFAULT_EVAL_DIR {
            if path
                .canonicalize_utf8()
                .map_or(true, |real| !seen.contains(&real))
            {
                roots.push(path);
            }
        } else {
            find_eval_dirs(&path, depth + 1, seen, budget, roots);
        }
    }
}

/// The frontmatter `name:` of a markdown file, if it sets one.
fn frontmatter_name(path: &Utf8Path) -> Option<String> {
    let text = crate::fsio::read_text(path, crate::config::MAX_SUITE_FILE).ok()?;
    let fm = suite::split_markdown(&text).ok()?.frontmatter?;
    if crate::suite::yaml_too_deep(fm, crate::suite::MAX_YAML_DEPTH).is_some() {
        return None;
    }
    let value: serde_norway::Value = serde_norway::from_str(fm).ok()?;
    value
        .get("name")?
        .as_str()
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
}

/// The names an item goes by: its `name:` first, then `fallback`.
fn names(marker: &Utf8Path, fallback: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(n) = frontmatter_name(marker) {
        out.push(n);
    }
    if !out.iter().any(|n| n == fallback) {
        out.push(fallback.to_owned());
    }
    out
}

/// Paths a manifest key adds (a string, a list of strings, or for commands a
/// map of names to paths or `{source}`).
fn declared(json: Option<&Map<String, Value>>, key: &str) -> Vec<String> {
    let mut out = Vec::new();
    let Some(json) = json else { return out };
    let mut take = |v: &Value| match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(list) => out.extend(list.iter().filter_map(Value::as_str).map(str::to_owned)),
        Value::Object(map) if key == "commands" => {
            for v in map.values() {
                match v {
                    Value::String(s) => out.push(s.clone()),
                    Value::Object(o) => {
                        out.extend(o.get("source").and_then(Value::as_str).map(str::to_owned))
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    };
    if let Some(v) = json.get(key) {
        take(v);
    }
    if let Some(v) = json
        .get("experimental")
        .and_then(Value::as_object)
        .and_then(|e| e.get(key))
    {
        take(v);
    }
    out
}

/// Sorted entries of a folder.
fn entries(dir: &Utf8Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    names
}

/// The plugin's own skills, commands and agents.
fn plugin_items(dir: &Utf8Path, json: Option<&Map<String, Value>>, plugin: &str) -> Items {
    let mut items = Items::of_plugin(plugin);
    let root_skill = dir.join("SKILL.md");
    if root_skill.is_file() {
        items.add(names(&root_skill, &folder_name(dir)), ItemKind::Skill);
    }
    let paths = |key: &str| {
        let mut all = vec![dir.join(key)];
        all.extend(
            declared(json, key)
                .iter()
                .map(|p| dir.join(p.trim_start_matches("./"))),
        );
        all
    };
    for skills in paths("skills") {
        if skills.join("SKILL.md").is_file() {
            let fallback = skills.file_name().unwrap_or("skill").to_owned();
            items.add(names(&skills.join("SKILL.md"), &fallback), ItemKind::Skill);
            continue;
        }
        for name in entries(&skills) {
            let marker = skills.join(&name).join("SKILL.md");
            if marker.is_file() {
                items.add(names(&marker, &name), ItemKind::Skill);
            }
        }
    }
    for (key, kind) in [("commands", ItemKind::Command), ("agents", ItemKind::Agent)] {
        for place in paths(key) {
            if place.is_file() && place.extension() == Some("md") {
                let stem = place.file_stem().unwrap_or("item").to_owned();
                let n = if kind == ItemKind::Agent {
                    names(&place, &stem)
                } else {
                    vec![stem]
                };
                items.add(n, kind);
                continue;
            }
            for name in entries(&place) {
                let file = place.join(&name);
                let Some(stem) = name.strip_suffix(".md") else {
                    continue;
                };
                if !file.is_file() {
                    continue;
                }
                let n = if kind == ItemKind::Agent {
                    names(&file, stem)
                } else {
                    vec![stem.to_owned()]
                };
                items.add(n, kind);
            }
        }
    }
    items
}

/// A case's `plugins:` entries must exist and sit inside the plugin (the
/// platform refuses the case otherwise).
fn check_plugin_entries(case: &Case, dir: &Utf8Path, out: &mut Out) {
    let Some(e) = case.top.get("plugins") else {
        return;
    };
    let serde_norway::Value::Sequence(list) = &e.value else {
        return;
    };
    let root = dir.canonicalize_utf8().unwrap_or_else(|_| dir.to_owned());
    for entry in list.iter().filter_map(serde_norway::Value::as_str) {
        let path = if Utf8Path::new(entry).is_absolute() {
            Utf8PathBuf::from(entry)
        } else {
            case.dir.join(entry)
        };
        match path.canonicalize_utf8() {
            Err(_) => out.error(
                Code::MissingFile,
                &e.file,
                e.line,
                format!("`plugins` entry `{entry}` does not exist (the platform refuses the case)"),
                "name a plugin folder by a path relative to the case folder",
            ),
            Ok(real) if !real.starts_with(&root) => out.error(
                Code::PathEscape,
                &e.file,
                e.line,
                format!("`plugins` entry `{entry}` resolves outside the plugin (the platform loads only plugins inside it, and refuses the case)"),
                "name a plugin folder inside the plugin under test, or remove the entry",
            ),
            Ok(_) => {}
        }
    }
}

/// For each skill nothing checks the firing of, a note with the graders to add.
fn trigger_advice(items: &Items, cases: &[Case], eval_dir: &Utf8Path, out: &mut Out) {
    // Each Skill grader's pattern compiled once, for every skill.
    let graders: Vec<(&suite::Grader, super::js_regex::Matcher)> = cases
        .iter()
        .flat_map(|c| c.graders.iter())
        .filter(|g| g.is_skill_trigger())
        .filter_map(|g| {
            // A pattern too slow to run is the trap checks' finding.
            let re = super::js_regex::safe_js_regex(g.str("input_match")?, "").ok()?;
            Some((g, re))
        })
        .collect();
    for item in items.items.iter().filter(|i| i.kind == ItemKind::Skill) {
        let name = item.name();
        let (mut fires, mut quiet) = (false, false);
        for (g, re) in &graders {
            if !items.encoded(name).iter().any(|i| re.find(i).is_some()) {
                continue;
            }
            let count = |key: &str| g.get(key).and_then(|e| suite::as_count(&e.value));
            let min = if g.get("min").is_some() {
                count("min")
            } else {
                Some(1)
            };
            if min.is_some_and(|m| m >= 1) {
                fires = true;
            }
            if min == Some(0) && count("max") == Some(0) && g.arm() == Some("both") {
                quiet = true;
            }
        }
        if fires && quiet {
            continue;
        }
        let pin = skill_pin(name);
        let mut parts = Vec::new();
        let mut add = Vec::new();
        if !fires {
            parts.push("fires where it should");
            add.push(format!(
                "a case where it should fire, with graders/fires.md: `type: tool_used`, `tool: Skill`, `input_match: {pin}`"
            ));
        }
        if !quiet {
            parts.push("stays quiet where it should not");
            add.push(format!(
                "a case where it should not, with graders/quiet.md: `type: tool_used`, `tool: Skill`, `input_match: {pin}`, `min: 0`, `max: 0`, `arm: both`"
            ));
        }
        out.push(
            crate::diagnostic::Severity::Note,
            Code::TriggerAdvice,
            eval_dir,
            None,
            format!(
                "nothing checks that skill `{name}` {} (advice, not a platform rule: bob-eval's fires/quiet pair measures the trigger rate; under --ablation with-without such graders are reported, not scored)",
                parts.join(" and ")
            ),
            add.join("; "),
        );
    }
}

/// A JSON value, shortened for a message.
fn brief(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eval_dirs_follow_the_platform() {
        assert_eq!(
            validate_eval_dir("quality/evals").unwrap(),
            ["quality", "evals"]
        );
        assert_eq!(validate_eval_dir("./a/../b").unwrap(), ["b"]);
        for bad in [
            "",
            "/abs",
            "C:/x",
            "..",
            "../x",
            ".",
            "skills/evals",
            "a/results",
            "a/mocks/b",
            "evals.json",
            "a b",
            "_x",
            "1/2/3/4/5/6/7/8/9",
        ] {
            assert!(validate_eval_dir(bad).is_err(), "{bad}");
        }
    }
}
