//! Five traps the platform accepts without a word, each confirmed on
//! `claude plugin eval` 2.1.328 and found here in both layouts (`evals/<item>/`
//! and `--plugin`):
//!
//! 1. `tool-is-item`: a `tool_used` (or `tool_order`) grader whose `tool:` is
//!    the name of a skill, command or agent instead of the tool that runs it.
//!    No tool call is ever named after a skill: the platform reports
//!    "`<name>` called 0x" on every run.
//! 2. `overridden-key`: a key that shapes the run set in both `case.yaml` and
//!    `prompt.md` with two values (`execution.max_turns: 20` and `max_turns:
//!    5`): prompt.md's value silently wins.
//! 3. `file-unwritable`: a grader on a file the run creates (`file_exists`, a
//!    `files` target, a `{source: file}` target or focus) in a case whose
//!    `allowed_tools` holds no tool that can write one (the platform's rule:
//!    tools follow graders). Only an operator's `--allow-tools`, which grants
//!    a tool to every case, could save it; the platform only prints "cannot
//!    pass with the granted tools" while it runs. A warning when the plugin
//!    has hooks (a hook could write the file).
//! 4. `skill-match-loose`: a `tool_used: Skill` grader outside the trigger pair
//!    whose `input_match` is not pinned to one item: it matches several items,
//!    or near-miss names (`<item>-x`, `x<item>`, `not-<item>`). Only a grader
//!    that asks for a call (`min` ≥ 1, the default) is loose so: one that only
//!    bounds the calls (`min: 0`, `max: 0` asserting none of them fires) is
//!    stricter, not looser, for matching more.
//! 5. `scored-by-trigger`: a case whose graders are all with-only under the
//!    ablation (Skill triggers without `arm: both`, or `arm: with-only`). The
//!    platform then scores them all, so the case scores whether the item
//!    fired: +1.00 of delta for firing alone. An error in `evals/<item>/`, a
//!    warning under `--plugin`.

use super::Out;
use super::js_regex::{Matcher, Texts, inline_flags, safe_js_regex, too_slow};
use crate::diagnostic::{Code, Severity};
use crate::item::ItemKind;
use crate::suite::{
    self, Case, EXECUTION_KEYS, Entry, Grader, GraderKind, GraderSpec, MatchMode, TOP_KEYS, Target,
};
use camino::Utf8Path;
use serde_norway::Value;

/// Tools that can create a file in a run (the platform's own list); any
/// `mcp__…` tool may as well.
pub const FILE_WRITERS: [&str; 5] = ["Write", "Edit", "NotebookEdit", "Bash", "PowerShell"];

/// Claude Code's own tool names: a `tool:` naming one of these is a tool, even
/// when an item happens to share the name.
const BUILT_IN_TOOLS: [&str; 28] = [
    "Agent",
    "AskUserQuestion",
    "Bash",
    "BashOutput",
    "Edit",
    "ExitPlanMode",
    "Glob",
    "Grep",
    "KillShell",
    "LS",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "PowerShell",
    "Read",
    "Skill",
    "SlashCommand",
    "Task",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskStop",
    "TaskUpdate",
    "TodoWrite",
    "ToolSearch",
    "WebFetch",
    "WebSearch",
    "Write",
];

/// True when `name` is a tool: one of Claude Code's own, or an MCP tool.
pub(super) fn is_tool_name(name: &str) -> bool {
    BUILT_IN_TOOLS.contains(&name) || name.starts_with("mcp__")
}

/// One skill, command or agent a grader may refer to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrapItem {
    /// Its names: the one it fires under first (a skill's `name:`), then
    /// aliases (its folder name).
    pub names: Vec<String>,
    /// What it is.
    pub kind: ItemKind,
}

impl TrapItem {
    /// The name it fires under.
    pub fn name(&self) -> &str {
        &self.names[0]
    }
}

/// The items of a layout and how the platform sees one fire.
#[derive(Debug, Clone, Default)]
pub struct Items {
    /// Every item.
    pub items: Vec<TrapItem>,
    /// The plugin's name in `--plugin` (a Skill input reads
    /// `{"skill":"<plugin>:<item>"}`); `None` in `evals/<item>/`, where each
    /// item runs in a plugin of its own, `bob-eval-<item>`.
    pub plugin: Option<String>,
    /// Every item's [`Items::encoded`] inputs, owned by its index: built on
    /// first use, once per layout.
    texts: std::sync::OnceLock<Texts>,
    /// Each name's item index.
    by_name: std::collections::HashMap<String, usize>,
}

impl Items {
    /// The item named `name` (any of its names).
    pub fn get(&self, name: &str) -> Option<&TrapItem> {
        self.by_name.get(name).map(|&i| &self.items[i])
    }

    /// Add an item unless one of that name exists.
    pub fn add(&mut self, names: Vec<String>, kind: ItemKind) {
        if names.is_empty() || names.iter().any(|n| self.get(n).is_some()) {
            return;
        }
        for name in &names {
            self.by_name.entry(name.clone()).or_insert(self.items.len());
        }
        self.items.push(TrapItem { names, kind });
        self.texts = std::sync::OnceLock::new();
    }

    /// An items list for `--plugin`: the plugin's name, no items yet.
    pub fn of_plugin(plugin: &str) -> Items {
        Items {
            plugin: Some(plugin.to_owned()),
            ..Items::default()
        }
    }

    /// The indexes, ascending, of the items one of whose inputs `re` may
    /// match (every item when the pattern narrows nothing).
    fn candidates(&self, re: &Matcher) -> Vec<usize> {
        let texts = self.texts.get_or_init(|| {
            let mut texts = Texts::default();
            for (i, item) in self.items.iter().enumerate() {
                for name in &item.names {
                    for input in self.encoded(name) {
                        texts.push(&input, i);
                    }
                }
            }
            texts
        });
        texts
            .candidates(re)
            .unwrap_or_else(|| (0..self.items.len()).collect())
    }

    /// The JSON-encoded Skill inputs the platform matches `input_match`
    /// against when `name` fires: bare, and as its plugin names it.
    pub fn encoded(&self, name: &str) -> [String; 2] {
        let plugin = match &self.plugin {
            Some(p) => p.clone(),
            None => crate::item::plugin_name(name),
        };
        [
            format!(r#"{{"skill":"{name}"}}"#),
            format!(r#"{{"skill":"{plugin}:{name}"}}"#),
        ]
    }
}

/// The items of a source tree (`evals/<item>/` layout): `skills/<item>/`,
/// `commands/<item>.md`, `agents/<item>.md` and their `registry/` twins, and
/// the item of every suite in `suites`, found or not. Built once per `check`,
/// from the tree's one listing (`markers`).
pub fn source_items(markers: &super::markers::Markers, suites: &[String]) -> Items {
    let mut items = Items::default();
    let mut seen = std::collections::HashSet::new();
    let mut add = |items: &mut Items, name: String, kind: ItemKind| {
        if seen.insert(name.clone()) {
            items.add(vec![name], kind);
        }
    };
    for (kind, names) in markers.found() {
        for name in names {
            add(&mut items, name.clone(), *kind);
        }
    }
    for name in suites {
        add(&mut items, name.clone(), ItemKind::Skill);
    }
    items
}

/// `name` with the characters a JavaScript regex gives a meaning escaped.
fn regex_escape(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if r"\^$.|?*+()[]{}/".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The `input_match` (quoted for YAML) that pins a Skill call to `name`.
pub fn skill_pin(name: &str) -> String {
    format!(r#"'"skill"\s*:\s*"(?:[\w-]+:)?{}"'"#, regex_escape(name))
}

/// The tool an item of `kind` fires through, and the `input_match` pinning it.
pub fn fired_through(kind: ItemKind, name: &str) -> (&'static str, String) {
    match kind {
        ItemKind::Skill | ItemKind::Command => ("Skill", skill_pin(name)),
        ItemKind::Agent => (
            "Agent",
            format!(
                r#"'"subagent_type"\s*:\s*"(?:[\w-]+:)?{}"'"#,
                regex_escape(name)
            ),
        ),
    }
}

/// What the trap checks need to know about where a case lives.
pub(super) struct Traps<'a> {
    /// The items graders may name.
    pub items: &'a Items,
    /// Whether a plugin hook could write files (trap 3 is then a warning).
    pub hooks: bool,
    /// In `evals/<item>/`: the trigger pair's own graders are checked by
    /// `trigger`, not by trap 4.
    pub trigger_pair: bool,
}

impl Traps<'_> {
    /// Every trap in `case`.
    pub fn check_case(&self, case: &Case, out: &mut Out) {
        overridden_keys(case, out);
        if case.broken {
            return;
        }
        for g in &case.graders {
            self.tool_is_item(g, out);
            if !(self.trigger_pair && super::trigger::is_trigger_grader(&case.name, g)) {
                self.skill_match_loose(g, out);
            }
        }
        self.file_unwritable(case, out);
        self.scored_by_trigger(case, out);
    }

    /// Trap 5: every grader of the case is with-only under the ablation, so
    /// the platform scores them all: the case then measures whether the item
    /// fired (the trigger rate), not what it does, and adds up to +1.00 to
    /// the delta for firing alone. An error in `evals/<item>/`, a warning in
    /// a plugin's own suites.
    fn scored_by_trigger(&self, case: &Case, out: &mut Out) {
        if case.graders.is_empty() || !case.graders.iter().all(Grader::is_with_only) {
            return;
        }
        let names: Vec<&str> = case.graders.iter().map(|g| g.name.as_str()).collect();
        let message = format!(
            "every grader of case `{}` is with-only under the ablation ({}): the platform then scores whether the item fired, which is the trigger rate, not the item's effect (up to +1.00 of delta for firing alone)",
            case.name,
            names.join(", ")
        );
        let fix = "add a grader of what the item teaches (a regex or llm grader on the answer) to the case's graders/";
        let file = case.main_file();
        if self.trigger_pair {
            out.error(Code::ScoredByTrigger, &file, None, message, fix);
        } else {
            out.warn(Code::ScoredByTrigger, &file, None, message, fix);
        }
    }

    /// Trap 1: `tool:` (or a `tool_order` side) names an item, not a tool.
    fn tool_is_item(&self, g: &Grader, out: &mut Out) {
        let item_of = |tool: &str| {
            if is_tool_name(tool) {
                None
            } else {
                self.items.get(tool)
            }
        };
        match g.kind() {
            Some(GraderKind::ToolUsed) => {
                let Some(e) = g.get("tool") else { return };
                let Some(tool) = e.as_str() else { return };
                let Some(item) = item_of(tool) else { return };
                let count = |key: &str| g.get(key).and_then(|e| suite::as_count(&e.value));
                let min = if g.get("min").is_some() {
                    count("min")
                } else {
                    Some(1)
                };
                let outcome = if min.is_some_and(|m| m >= 1) {
                    "the grader can never pass"
                } else {
                    "the grader always passes and checks nothing"
                };
                let (via, pin) = fired_through(item.kind, item.name());
                out.error(
                    Code::ToolIsItem,
                    &g.file,
                    e.line.or(g.line),
                    format!(
                        "grader `{}`: `tool: {tool}` names the {} `{tool}`, not a tool: no call is ever named `{tool}` (the platform reports \"{tool} called 0x\" on every run), so {outcome}",
                        g.name,
                        item.kind.as_str(),
                    ),
                    format!("write `tool: {via}` and `input_match: {pin}`"),
                );
            }
            Some(GraderKind::ToolOrder) => {
                for key in ["before", "after"] {
                    let Some(e) = g.get(key) else { continue };
                    let Some(r) = suite::parse_tool_ref(&e.value) else {
                        continue;
                    };
                    let Some(item) = item_of(&r.tool) else {
                        continue;
                    };
                    let (via, pin) = fired_through(item.kind, item.name());
                    out.error(
                        Code::ToolIsItem,
                        &g.file,
                        e.line.or(g.line),
                        format!(
                            "grader `{}`: `{key}` names the {} `{}`, not a tool: no call is ever named so (the platform reports \"{key} tool {} never called\" on every run), so the grader can never pass",
                            g.name,
                            item.kind.as_str(),
                            r.tool,
                            r.tool,
                        ),
                        format!("write `{key}: {{tool: {via}, input_match: {pin}}}`"),
                    );
                }
            }
            _ => {}
        }
    }

    /// Trap 4: a Skill grader's `input_match` matches several items, or names
    /// near the one it matches.
    fn skill_match_loose(&self, g: &Grader, out: &mut Out) {
        if !g.is_skill_trigger() {
            return;
        }
        let Some(e) = g.get("input_match") else {
            return;
        };
        let Some(pattern) = e.as_str() else { return };
        if inline_flags(pattern).is_some() {
            return;
        }
        // A grader that passes with no call passes no wrong call: matching
        // more items only makes its upper bound stricter.
        let min = match g.get("min") {
            Some(m) => suite::as_count(&m.value),
            None => Some(1),
        };
        if min == Some(0) {
            return;
        }
        // An unsafe pattern is the grader checks' finding, never run.
        let Ok(re) = safe_js_regex(pattern, "") else {
            return;
        };
        let hits = |name: &str| {
            self.items
                .encoded(name)
                .into_iter()
                .find(|input| re.find(input).is_some())
        };
        let matched: Vec<&TrapItem> = self
            .items
            .candidates(&re)
            .into_iter()
            .map(|i| &self.items.items[i])
            .filter(|i| i.kind != ItemKind::Agent && i.names.iter().any(|n| hits(n).is_some()))
            .collect();
        let line = e.line.or(g.line);
        let near_miss = match matched.as_slice() {
            [item] => {
                let name = item.name();
                [
                    format!("{name}-x"),
                    format!("x{name}"),
                    format!("not-{name}"),
                ]
                .iter()
                .find_map(|n| hits(n))
            }
            _ => None,
        };
        if re.gave_up() {
            let (code, message, fix) = too_slow("input_match");
            out.error(
                code,
                &g.file,
                line,
                format!("grader `{}`: {message}", g.name),
                fix,
            );
            return;
        }
        match matched.as_slice() {
            [] => {}
            [item] => {
                let name = item.name();
                if let Some(input) = near_miss {
                    out.error(
                        Code::SkillMatchLoose,
                        &g.file,
                        line,
                        format!(
                            "grader `{}`: input_match is not pinned to `{name}`: it also matches {input}, so a skill of a near-miss name passes it",
                            g.name
                        ),
                        format!("pin it: input_match: {}", skill_pin(name)),
                    );
                }
            }
            several => {
                let names: Vec<String> =
                    several.iter().map(|i| format!("`{}`", i.name())).collect();
                out.error(
                    Code::SkillMatchLoose,
                    &g.file,
                    line,
                    format!(
                        "grader `{}`: input_match matches {} items ({}), so it passes whichever of them fires",
                        g.name,
                        several.len(),
                        names.join(", ")
                    ),
                    format!(
                        "one grader per item, each pinned: input_match: {}",
                        skill_pin(several[0].name())
                    ),
                );
            }
        }
    }

    /// Trap 3: graders on a created file, and no allowed tool that can create one.
    fn file_unwritable(&self, case: &Case, out: &mut Out) {
        if case
            .execution
            .get("artifact_publish")
            .is_some_and(|e| e.value.as_bool() == Some(true))
        {
            return;
        }
        let base = |tool: &str| tool.split('(').next().unwrap_or("").trim().to_owned();
        let disallowed: Vec<String> = match case.execution.get("disallowed_tools") {
            Some(Entry {
                value: Value::Sequence(items),
                ..
            }) => items.iter().filter_map(Value::as_str).map(base).collect(),
            _ => Vec::new(),
        };
        let writes = case.allowed_tools().iter().map(|t| base(t)).any(|t| {
            (FILE_WRITERS.contains(&t.as_str()) || t.starts_with("mcp__"))
                && !disallowed.contains(&t)
        });
        if writes {
            return;
        }
        let withheld: Vec<&str> = FILE_WRITERS
            .iter()
            .copied()
            .filter(|w| disallowed.iter().any(|d| d == w))
            .collect();
        let scaffold = case.context.contains_key("scaffold_script");
        for g in &case.graders {
            let Some((what, key)) = needs_created_file(g, scaffold) else {
                continue;
            };
            let (severity, hook) = if self.hooks {
                (Severity::Warning, ", unless a plugin hook writes it,")
            } else {
                (Severity::Error, "")
            };
            let fix = if withheld.is_empty() {
                "add Write (or Edit, Bash) to the case's allowed_tools; the run must grant it too (`--allow-tools Write`)".to_string()
            } else {
                format!(
                    "take {} off disallowed_tools, add it to allowed_tools and grant it (`--allow-tools {}`)",
                    withheld[0], withheld[0]
                )
            };
            out.push(
                severity,
                Code::FileUnwritable,
                &g.file,
                g.get(key).and_then(|e| e.line).or(g.line),
                format!(
                    "grader `{}` {what}, but the case's allowed_tools names no tool that can create a file (Write, Edit, NotebookEdit, Bash, PowerShell or an MCP tool): the grader fails every run{hook} unless the operator grants such a tool to every case (the platform only warns \"cannot pass with the granted tools\" as it runs)",
                    g.name
                ),
                fix,
            );
        }
    }
}

/// What a grader reads that only a file the run creates can give it (and the
/// key saying so), as the platform decides it: `file_exists` with `exists`
/// true; `regex` over `files` with a positive match; `regex` over, or an `llm`
/// focused on, `{source: file, path}` (unless a scaffold script could have
/// put the file there).
fn needs_created_file(g: &Grader, scaffold: bool) -> Option<(String, &'static str)> {
    match g.spec()? {
        GraderSpec::FileExists { path, exists: true } => {
            Some((format!("checks that the run creates `{path}`"), "path"))
        }
        GraderSpec::Regex { target, mode, .. } => match target {
            Target::Files if !matches!(mode, MatchMode::NotContains | MatchMode::Count(0)) => {
                Some(("reads the list of files the run creates".into(), "target"))
            }
            Target::File(path) if !scaffold => {
                Some((format!("reads `{path}`, a file the run creates"), "target"))
            }
            _ => None,
        },
        GraderSpec::Llm {
            focus: Target::File(path),
            ..
        } if !scaffold => Some((
            format!("has the judge read `{path}`, a file the run creates"),
            "focus",
        )),
        _ => None,
    }
}

/// A value as a reader would write it, shortened.
fn brief(value: &Value) -> String {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        other => serde_json::to_string(other).unwrap_or_else(|_| "…".into()),
    };
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

/// The top-level mapping of a YAML text, if it is one.
fn mapping(text: &str) -> Option<serde_norway::Mapping> {
    // Nesting past the loader's bound was reported already; never parse it again.
    if crate::suite::yaml_too_deep(text, crate::suite::MAX_YAML_DEPTH).is_some() {
        return None;
    }
    match serde_norway::from_str::<Value>(text).ok()? {
        Value::Mapping(m) => Some(m),
        _ => None,
    }
}

/// Keys whose value changes nothing in the run.
const INERT_KEYS: [&str; 3] = ["description", "expected_outcome", "schema_version"];

/// Trap 2: a key `prompt.md` sets over a different value in `case.yaml`
/// (`disallowed_tools` is the exception: the platform appends the two lists).
fn overridden_keys(case: &Case, out: &mut Out) {
    let (Some(yaml_path), Some(prompt_path)) = (&case.case_file, &case.prompt_file) else {
        return;
    };
    let Some((yaml_text, prompt_text)) = read_pair(yaml_path, prompt_path) else {
        return;
    };
    let Some(yaml) = mapping(&yaml_text) else {
        return;
    };
    let Ok(md) = suite::split_markdown(&prompt_text) else {
        return;
    };
    let Some(fm_text) = md.frontmatter else {
        return;
    };
    let Some(fm) = mapping(fm_text) else {
        return;
    };
    let yaml_lines = suite::key_lines(&yaml_text, 1);
    let fm_lines = suite::key_lines(fm_text, md.frontmatter_line);
    let execution = match yaml.get("execution") {
        Some(Value::Mapping(m)) => Some(m),
        _ => None,
    };
    for (k, new) in &fm {
        let key = suite::key_string(k);
        // Words for the reader only (`description`, `expected_outcome`) and a
        // version checked on its own change nothing in the run.
        if INERT_KEYS.contains(&key.as_str()) {
            continue;
        }
        let (old, path) = if TOP_KEYS.contains(&key.as_str()) {
            (yaml.get(key.as_str()), key.clone())
        } else if EXECUTION_KEYS.contains(&key.as_str()) && key != "disallowed_tools" {
            (
                execution.and_then(|m| m.get(key.as_str())),
                format!("execution.{key}"),
            )
        } else {
            continue;
        };
        let Some(old) = old else { continue };
        if old == new {
            continue;
        }
        let at = match yaml_lines.get(&path) {
            Some(line) => format!("case.yaml line {line}"),
            None => "case.yaml".to_string(),
        };
        out.error(
            Code::OverriddenKey,
            prompt_path,
            fm_lines.get(&key).copied(),
            format!(
                "`{key}: {}` in prompt.md overrides `{path}: {}` ({at}): the platform silently uses prompt.md's value",
                brief(new),
                brief(old)
            ),
            format!("set {key} in one file only (remove `{path}` from case.yaml, or make both the same)"),
        );
    }
}

fn read_pair(a: &Utf8Path, b: &Utf8Path) -> Option<(String, String)> {
    Some((
        crate::fsio::read_text(a, crate::config::MAX_SUITE_FILE).ok()?,
        crate::fsio::read_text(b, crate::config::MAX_SUITE_FILE).ok()?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_escape_and_match() {
        assert_eq!(
            skill_pin("release-notes"),
            r#"'"skill"\s*:\s*"(?:[\w-]+:)?release-notes"'"#
        );
        assert_eq!(skill_pin("a.b"), r#"'"skill"\s*:\s*"(?:[\w-]+:)?a\.b"'"#);
        let mut items = Items::of_plugin("kit");
        items.add(vec!["release-notes".into()], ItemKind::Skill);
        let pin = skill_pin("release-notes");
        let re = super::super::js_regex(pin.trim_matches('\''), "").unwrap();
        for input in items.encoded("release-notes") {
            assert!(re.find(&input).is_some(), "{input}");
        }
        for near in ["release-notes-x", "xrelease-notes", "not-release-notes"] {
            for input in items.encoded(near) {
                assert!(re.find(&input).is_none(), "{input}");
            }
        }
        assert_eq!(
            items.encoded("x")[1],
            r#"{"skill":"kit:x"}"#,
            "the plugin's own prefix"
        );
        assert_eq!(
            Items::default().encoded("x")[1],
            r#"{"skill":"bob-eval-x:x"}"#
        );
    }

    #[test]
    fn tool_names_are_never_items() {
        assert!(is_tool_name("Skill") && is_tool_name("mcp__tracker__get_issue"));
        assert!(!is_tool_name("release-notes"));
    }
}
