//! MCP servers a case can call with no mock (`mcp-unmocked`, a warning).
//!
//! Under the platform's default `--mocks record`, a plugin's MCP server that
//! has no `mocks/<server>/` in any of the case's mock layers (the suite's,
//! a group's, the case's) is not started: every call the agent makes to it
//! fails, and bob-eval does not count such runs. The platform can shadow only
//! servers declared inline (the manifest's `mcpServers`) or in `.mcp.json`,
//! so those are the servers read here: the plugin under test's (with
//! `--plugin`) and those of every plugin a case names in `plugins:`. A case
//! can call a server when it grants no tool list at all, or when its
//! `allowed_tools` holds `mcp__*`, `mcp__<server>` or `mcp__<server>__…`
//! (the server segment may be a `*`/`?` pattern, as the plugin's tool names
//! are `mcp__plugin_<plugin>_<server>__<tool>` in some versions).

use super::{Out, case_pattern_matches};
use crate::diagnostic::Code;
use crate::suite::Case;
use camino::{Utf8Path, Utf8PathBuf};
use serde_json::{Map, Value};

/// The largest manifest or `.mcp.json` read.
const MAX_FILE: u64 = 1024 * 1024;

/// One declared MCP server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Server {
    /// Its name as declared.
    pub name: String,
    /// The declaring plugin's name.
    pub plugin: String,
    /// The file that declares it, and the line of its name there.
    pub file: Utf8PathBuf,
    pub line: Option<usize>,
}

/// The name a tool name and a `mocks/` folder use for `server`: every
/// character other than a letter, digit, `_` or `-` as `_`.
fn segment(server: &str) -> String {
    server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A JSON object from `path`, if it is a readable one.
fn read_object(path: &Utf8Path) -> Option<(String, Map<String, Value>)> {
    let text = crate::fsio::read_text(path, MAX_FILE).ok()?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text).to_owned();
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => Some((text, map)),
        _ => None,
    }
}

/// The 1-based line of the first `"name"` in `text`.
fn line_of(text: &str, name: &str) -> Option<usize> {
    let quoted = serde_json::to_string(name).ok()?;
    let at = text.find(&quoted)?;
    Some(text[..at].matches('\n').count() + 1)
}

/// The servers of an `.mcp.json`-shaped object: its `mcpServers` map, or the
/// object itself when it has none.
fn servers_of(
    map: &Map<String, Value>,
    text: &str,
    file: &Utf8Path,
    plugin: &str,
    into: &mut Vec<Server>,
) {
    let servers = match map.get("mcpServers") {
        Some(Value::Object(inner)) => inner,
        Some(_) => return,
        None => map,
    };
    for (name, config) in servers {
        if config.is_object() && !into.iter().any(|s| &s.name == name) {
            into.push(Server {
                name: name.clone(),
                plugin: plugin.to_owned(),
                file: file.to_owned(),
                line: line_of(text, name),
            });
        }
    }
}

/// The MCP servers the plugin at `dir` declares in its manifest's
/// `mcpServers` (inline, a path to a JSON file, or a list of either) and in
/// its `.mcp.json`, with the plugin's name (the manifest's, else the folder's).
pub(super) fn declared(dir: &Utf8Path) -> Vec<Server> {
    let manifest = [".claude-plugin/plugin.json", "plugin.json"]
        .iter()
        .map(|rel| dir.join(rel))
        .find(|p| p.is_file())
        .and_then(|p| read_object(&p).map(|(text, map)| (p, text, map)));
    let plugin = manifest
        .as_ref()
        .and_then(|(_, _, m)| m.get("name"))
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| dir.file_name().unwrap_or("plugin").to_owned());
    let mut servers = Vec::new();
    if let Some((path, text, map)) = &manifest {
        let entries: Vec<&Value> = match map.get("mcpServers") {
            Some(Value::Array(list)) => list.iter().collect(),
            Some(one) => vec![one],
            None => Vec::new(),
        };
        for entry in entries {
            match entry {
                Value::Object(inline) => {
                    let wrapped: Map<String, Value> =
                        [("mcpServers".to_owned(), Value::Object(inline.clone()))]
                            .into_iter()
                            .collect();
                    servers_of(&wrapped, text, path, &plugin, &mut servers);
                }
                Value::String(rel) => {
                    let file = dir.join(rel.trim_start_matches("./"));
                    if let Some((text, map)) = read_object(&file) {
                        servers_of(&map, &text, &file, &plugin, &mut servers);
                    }
                }
                _ => {}
            }
        }
    }
    let file = dir.join(".mcp.json");
    if let Some((text, map)) = read_object(&file) {
        servers_of(&map, &text, &file, &plugin, &mut servers);
    }
    servers
}

/// The plugin folders a case names in `plugins:` that exist.
fn case_plugins(case: &Case) -> Vec<Utf8PathBuf> {
    let Some(e) = case.top.get("plugins") else {
        return Vec::new();
    };
    let serde_norway::Value::Sequence(list) = &e.value else {
        return Vec::new();
    };
    list.iter()
        .filter_map(serde_norway::Value::as_str)
        .map(|entry| case.dir.join(entry))
        .filter(|p| p.is_dir())
        .collect()
}

/// True when the case's tools let it call `server` of `plugin`.
fn can_call(case: &Case, server: &Server) -> bool {
    if !case.execution.contains_key("allowed_tools") {
        return true;
    }
    let name = segment(&server.name);
    let prefixed = format!("plugin_{}_{name}", segment(&server.plugin));
    case.allowed_tools().iter().any(|tool| {
        let base = tool.split('(').next().unwrap_or("").trim();
        let Some(rest) = base.strip_prefix("mcp__") else {
            return base == "*";
        };
        let pattern = rest.split("__").next().unwrap_or("");
        case_pattern_matches(pattern, &name) || case_pattern_matches(pattern, &prefixed)
    })
}

/// True when a mock layer of the case (from `root` down to its folder) has
/// `mocks/<server>/`.
fn mocked(root: &Utf8Path, case: &Case, server: &str) -> bool {
    let rel = case.dir.strip_prefix(root).unwrap_or(Utf8Path::new(""));
    let mut at = root.to_owned();
    if at.join("mocks").join(server).is_dir() {
        return true;
    }
    for part in rel.components() {
        at.push(part);
        if at.join("mocks").join(server).is_dir() {
            return true;
        }
    }
    false
}

/// Warn about each server in `plugin_servers` (the plugin under test's) or
/// in the case's own `plugins:` that the case can call and that has no mock
/// in its layers under `root`.
pub(super) fn check(root: &Utf8Path, case: &Case, plugin_servers: &[Server], out: &mut Out) {
    let extra: Vec<Server> = case_plugins(case)
        .iter()
        .flat_map(|dir| declared(dir))
        .collect();
    if plugin_servers.is_empty() && extra.is_empty() {
        return;
    }
    let mut seen = std::collections::HashSet::new();
    for server in plugin_servers.iter().chain(&extra) {
        // A `plugins:` entry may name the plugin under test again.
        if !seen.insert((&server.plugin, &server.name)) {
            continue;
        }
        let folder = segment(&server.name);
        if !can_call(case, server) || mocked(root, case, &folder) {
            continue;
        }
        let how = match case.execution.get("allowed_tools") {
            None => "grants no tool list, so it can call every tool".to_owned(),
            Some(_) => format!("allows `mcp__{folder}__…` tools"),
        };
        out.warn(
            Code::McpUnmocked,
            &case.main_file(),
            case.execution.get("allowed_tools").and_then(|e| e.line),
            format!(
                "case `{}` {how}, but MCP server `{}` (declared by plugin `{}` in {}{}) has no mock in its layers (no mocks/{folder}/ in the suite, a group or the case): under the platform's default `--mocks record` the server is not started, its calls fail, and those runs are not counted",
                case.name,
                server.name,
                server.plugin,
                server.file,
                server.line.map(|l| format!(":{l}")).unwrap_or_default(),
            ),
            format!(
                "add mocks/{folder}/<tool>.md responders (the suite's mocks/ or the case's), or leave the server's tools out of allowed_tools; to call the real server, run with --allow-real-servers (it runs as you)"
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Utf8Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn segments_replace_what_a_tool_name_cannot_hold() {
        assert_eq!(segment("my.server v2"), "my_server_v2");
        assert_eq!(segment("tracker-1_x"), "tracker-1_x");
    }

    #[test]
    fn servers_come_from_the_manifest_and_mcp_json() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = Utf8Path::from_path(tmp.path()).unwrap();
        write(
            dir,
            ".claude-plugin/plugin.json",
            "{\"name\": \"kit\",\n \"mcpServers\": [\"./more.json\", {\"inline\": {\"command\": \"x\"}}]}",
        );
        write(
            dir,
            "more.json",
            r#"{"mcpServers": {"more": {"command": "y"}}}"#,
        );
        write(
            dir,
            ".mcp.json",
            "{\n  \"tracker\": {\"command\": \"z\"},\n  \"inline\": {\"command\": \"dup\"}\n}",
        );
        let servers = declared(dir);
        let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["more", "inline", "tracker"]);
        assert!(servers.iter().all(|s| s.plugin == "kit"));
        let tracker = &servers[2];
        assert_eq!(tracker.file, dir.join(".mcp.json"));
        assert_eq!(tracker.line, Some(2));
    }

    #[test]
    fn no_manifest_names_the_plugin_after_its_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = Utf8Path::from_path(tmp.path()).unwrap().join("helper");
        write(
            &dir,
            ".mcp.json",
            r#"{"mcpServers": {"db": {"url": "http://x"}}}"#,
        );
        let servers = declared(&dir);
        assert_eq!(servers.len(), 1);
        assert_eq!(servers[0].plugin, "helper");
        assert!(declared(&dir.join("none")).is_empty());
    }
}
