//! `check`'s static MCP warning (`mcp-unmocked`): a case that can call a
//! plugin's MCP server none of its mock layers stands in for. In both
//! layouts: `--plugin` (the plugin's own servers, and a `plugins:` entry's)
//! and `evals/<item>/` (a `plugins:` entry's; bob-eval's plugin has none).

use crate::support;
use support::cmd::bob;
use support::stub::Switches;
use support::tree::copy_tree;
use support::world::World;

use serde_json::Value;
use std::fs;
use std::path::Path;

const EVALS: &str = "quality/evals";

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// `check --json` (with `args` first): exit code and the `mcp-unmocked`
/// findings, as `(file, message)`.
fn unmocked(source: &Path, home: &Path, args: &[&str]) -> (i32, Vec<(String, String)>) {
    let out = bob(source, home)
        .arg("check")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let found = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "mcp-unmocked")
        .map(|d| {
            assert_eq!(d["severity"], "warning", "{d}");
            assert!(d["fix"].as_str().unwrap().contains("mocks/"), "{d}");
            (
                d["file"].as_str().unwrap().to_owned(),
                d["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (out.status.code().unwrap(), found)
}

/// The corpus plugin `release-kit` in a temp folder: its root, and a home.
fn release_kit() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("release-kit");
    copy_tree(&support::data::data("plugins").join("release-kit"), &root);
    let home = tmp.path().join("home");
    (tmp, root, home)
}

#[test]
fn plugin_servers_with_no_mock_are_warned_about_per_case_that_can_call_them() {
    let (_tmp, root, home) = release_kit();
    let root_s = root.to_str().unwrap();
    // No server declared: nothing to say.
    let (status, found) = unmocked(&root, &home, &["--plugin", root_s]);
    assert_eq!((status, found.len()), (0, 0), "{found:?}");

    // `tracker` has mocks/tracker/ at the eval folder; `search` has none.
    write(
        &root,
        ".mcp.json",
        "{\n  \"mcpServers\": {\n    \"tracker\": {\"command\": \"tracker-mcp\"},\n    \"search\": {\"command\": \"search-mcp\"}\n  }\n}\n",
    );
    let (status, found) = unmocked(&root, &home, &["--plugin", root_s]);
    assert_eq!(status, 0, "a warning, not an error");
    assert!(
        found.iter().all(|(_, m)| m.contains("`search`")
            && !m.contains("`tracker`")
            && m.contains(".mcp.json:4")),
        "{found:?}"
    );
    // Only the cases with no tool list can call it: `mocked` and `json-case`.
    let files: Vec<&str> = found.iter().map(|(f, _)| f.as_str()).collect();
    assert!(
        files.contains(&format!("{EVALS}/mocked/prompt.md").as_str()),
        "{files:?}"
    );
    assert!(!files.iter().any(|f| f.contains("/trigger/")), "{files:?}");
    let before = found.len();

    // A case granting the server's tools can call it too.
    let fires = root.join(EVALS).join("trigger/fires/prompt.md");
    let text = fs::read_to_string(&fires).unwrap();
    fs::write(
        &fires,
        text.replace(
            "allowed_tools: [Skill, Read]",
            "allowed_tools: [Skill, Read, \"mcp__search__*\"]",
        ),
    )
    .unwrap();
    let (_, found) = unmocked(&root, &home, &["--plugin", root_s]);
    assert_eq!(found.len(), before + 1, "{found:?}");
    assert!(
        found
            .iter()
            .any(|(f, m)| f.ends_with("trigger/fires/prompt.md") && m.contains("mcp__search__")),
        "{found:?}"
    );

    // A grant of another server's tools does not reach it.
    fs::write(
        &fires,
        text.replace(
            "allowed_tools: [Skill, Read]",
            "allowed_tools: [Skill, \"mcp__tracker__*\"]",
        ),
    )
    .unwrap();
    let (_, found) = unmocked(&root, &home, &["--plugin", root_s]);
    assert_eq!(found.len(), before, "{found:?}");

    // A mock for `search` at the eval folder answers for every case.
    write(
        &root,
        &format!("{EVALS}/mocks/search/query.md"),
        "no results\n",
    );
    let (status, found) = unmocked(&root, &home, &["--plugin", root_s]);
    assert_eq!((status, found.len()), (0, 0), "{found:?}");
}

#[test]
fn servers_declared_in_the_manifest_count_and_a_case_level_mock_covers_its_case() {
    let (_tmp, root, home) = release_kit();
    let root_s = root.to_str().unwrap();
    write(
        &root,
        ".claude-plugin/plugin.json",
        "{\n  \"name\": \"release-kit\",\n  \"experimental\": {\"evals\": \"quality/evals\"},\n  \"mcpServers\": {\"db\": {\"command\": \"db-mcp\"}}\n}\n",
    );
    let (_, found) = unmocked(&root, &home, &["--plugin", root_s]);
    let mocked = format!("{EVALS}/mocked/prompt.md");
    assert!(found.iter().any(|(f, _)| *f == mocked), "{found:?}");
    assert!(
        found
            .iter()
            .all(|(_, m)| m.contains("`db`") && m.contains("plugin.json:4")),
        "{found:?}"
    );
    // A case-level layer: only that case is covered.
    write(&root, &format!("{EVALS}/mocked/mocks/db/get.md"), "row\n");
    let (_, after) = unmocked(&root, &home, &["--plugin", root_s]);
    assert_eq!(after.len(), found.len() - 1, "{after:?}");
    assert!(!after.iter().any(|(f, _)| *f == mocked), "{after:?}");
}

#[test]
fn a_plugins_entry_s_servers_count_in_the_source_layout() {
    let src = World::empty(Switches::default());
    let item = "demo";
    let pin = r#"'"skill"\s*:\s*"(?:[\w-]+:)?demo"'"#;
    src.write(
        &format!("skills/{item}/SKILL.md"),
        "---\nname: demo\ndescription: Demo.\n---\n\nBody.\n",
    )
    .write(
        &format!("evals/{item}/fires/prompt.md"),
        "---\ndescription: fires\nmax_turns: 5\nallowed_tools: [Skill, Read]\n---\n\nPlease do the demo thing.\n",
    )
    .write(
        &format!("evals/{item}/fires/graders/fires.md"),
        &format!("---\ntype: tool_used\ntool: Skill\ninput_match: {pin}\n---\n"),
    )
    .write(
        &format!("evals/{item}/quiet/prompt.md"),
        "---\nmax_turns: 3\nplugins: [\"../helper\"]\n---\n\nWhat is 2 + 2?\n",
    )
    .write(
        &format!("evals/{item}/quiet/graders/quiet.md"),
        &format!("---\ntype: tool_used\ntool: Skill\ninput_match: {pin}\nmin: 0\nmax: 0\narm: both\n---\n"),
    );
    let home = src.home();
    // The entry declares no server yet.
    write(
        &src.source,
        &format!("evals/{item}/helper/.claude-plugin/plugin.json"),
        "{\"name\": \"helper\"}\n",
    );
    let (_, found) = unmocked(&src.source, &home, &[]);
    assert_eq!(found.len(), 0, "{found:?}");

    write(
        &src.source,
        &format!("evals/{item}/helper/.mcp.json"),
        "{\"mcpServers\": {\"weather\": {\"command\": \"weather-mcp\"}}}\n",
    );
    let (_, found) = unmocked(&src.source, &home, &[]);
    assert_eq!(found.len(), 1, "only `quiet` names the plugin: {found:?}");
    assert_eq!(found[0].0, format!("evals/{item}/quiet/prompt.md"));
    assert!(
        found[0].1.contains("`weather`") && found[0].1.contains("plugin `helper`"),
        "{found:?}"
    );

    // The suite's mocks/ stands in for it.
    write(
        &src.source,
        &format!("evals/{item}/mocks/weather/forecast.md"),
        "sunny\n",
    );
    let (_, found) = unmocked(&src.source, &home, &[]);
    assert_eq!(found.len(), 0, "{found:?}");
}
