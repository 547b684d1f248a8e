//! The silent traps `check` reports, each shown on the real `claude plugin
//! eval` (offline, against the fake Messages API): a copy of the corpus plugin
//! `release-kit` with one fault per case, run once (the with arm); for each
//! fault, what the platform does with it, and the finding `check --plugin`
//! gives for it.

use crate::support;
use support::tier::{self, Tool};

use serde_json::Value;
use std::path::Path;
use support::cmd::bob;
use support::fake_api::{FakeApi, Script};
use support::real::{claude_bin, platform_env};
use support::tree::copy_tree;

const NOTES: &str = "## v1.4.0 (2026-11-30)\n\n### Added\n- --since flag (#42)\n\n### Fixed\n- Crash on empty changelog (#41)";
const PIN: &str = r#"'"skill"\s*:\s*"(?:[\w-]+:)?release-notes"'"#;

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `check --plugin DIR --json`.
fn check(dir: &Path) -> Value {
    let home = tempfile::tempdir().unwrap();
    let out = bob(dir, home.path())
        .args(["check", "--json", "--plugin"])
        .arg(dir)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The finding of `code` for `file` (relative to the plugin).
fn finding<'a>(doc: &'a Value, code: &str, file: &str) -> &'a Value {
    doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == code && d["file"] == file)
        .unwrap_or_else(|| panic!("no {code} for {file} in {doc:#}"))
}

/// Run the real platform on `plugin`, the with arm alone (`--ablation
/// none`, as bob-eval buys an edited item's runs): exit code,
/// stdout+stderr, result. Every trap shows on the with arm and at load;
/// the without arm, which loads no plugin, would only double the sessions.
fn platform(api: &FakeApi, plugin: &Path) -> (Option<i32>, String, Value) {
    let dir = plugin.parent().unwrap();
    let out_dir = dir.join("out");
    let output = std::process::Command::new(claude_bin())
        .arg("plugin")
        .arg("eval")
        .arg(plugin)
        .args(["--ablation", "none", "--output-dir"])
        .arg(&out_dir)
        .args([
            "--threshold",
            "0",
            "--max-cost-usd",
            "20",
            "--trust-plugin",
            "--no-publish",
            "--runs",
            "1",
            "-j",
            "4",
        ])
        .current_dir(dir)
        .env_clear()
        .envs(platform_env(api, dir))
        .output()
        .unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let result = std::fs::read(out_dir.join("aggregate-result.json"))
        .map(|b| serde_json::from_slice(&b).unwrap())
        .unwrap_or_else(|_| panic!("no result:\n{text}"));
    (output.status.code(), text, result)
}

fn case<'a>(result: &'a Value, name: &str) -> &'a Value {
    result["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name}"))
}

fn grader<'a>(run: &'a Value, name: &str) -> &'a Value {
    run["graders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == name)
        .unwrap_or_else(|| panic!("no grader {name} in {run}"))
}

#[test]
fn each_trap_is_what_the_platform_does() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let corpus = support::data::data("plugins/release-kit");
    let tmp = tempfile::tempdir().unwrap();
    let plugin = tmp.path().join("release-kit");
    copy_tree(&corpus, &plugin);
    let evals = "quality/evals";

    // 1. `tool:` names the skill: "release-notes called 0x" although it fired.
    write(
        &plugin,
        &format!("{evals}/trigger/fires/graders/by-name.md"),
        "---\ntype: tool_used\ntool: release-notes\n---\n",
    );
    // 2. max_turns in both files: prompt.md's 4 wins over case.yaml's 9.
    let mixed = plugin.join(evals).join("mixed/case.yaml");
    let text = std::fs::read_to_string(&mixed).unwrap();
    std::fs::write(
        &mixed,
        text.replace(
            "  timeout_seconds: 120\n",
            "  timeout_seconds: 120\n  max_turns: 9\n",
        ),
    )
    .unwrap();
    // 3. A file grader in a case that allows no tool able to write the file.
    write(
        &plugin,
        &format!("{evals}/unwritable/prompt.md"),
        "---\nmax_turns: 3\nallowed_tools: [Read]\n---\n\nWrite the release notes for v1.4.0 to NOTES.md.\n",
    );
    write(
        &plugin,
        &format!("{evals}/unwritable/graders/written.md"),
        "---\ntype: file_exists\npath: NOTES.md\n---\n",
    );
    // 4. A Skill grader matching a near-miss name passes when that skill fires.
    write(
        &plugin,
        "skills/release-notes-pro/SKILL.md",
        "---\nname: release-notes-pro\ndescription: Long-form release notes with a migration guide.\n---\n\nWrite long-form notes.\n",
    );
    write(
        &plugin,
        &format!("{evals}/loose/prompt.md"),
        "---\nmax_turns: 4\nallowed_tools: [Skill]\n---\n\nWrite the long-form notes with a migration guide for v2.0.0.\n",
    );
    write(
        &plugin,
        &format!("{evals}/loose/graders/fired.md"),
        "---\ntype: tool_used\ntool: Skill\ninput_match: 'release-notes'\n---\n",
    );
    // A mock responder with a key the platform does not know fails every run.
    let mock = plugin.join(evals).join("mocked/mocks/tracker/get_issue.md");
    let text = std::fs::read_to_string(&mock).unwrap();
    std::fs::write(&mock, text.replace("expect:", "expects:")).unwrap();

    let api = FakeApi::start(
        Script::new()
            .fire_skill(
                "release-kit:release-notes",
                "Write the release notes for v1.4.0 (2026-11-30)",
                NOTES,
            )
            .fire_skill(
                "release-kit:release-notes-pro",
                "long-form notes with a migration guide",
                NOTES,
            )
            .otherwise("OK.")
            .judge_passes_if_contains("### Added"),
    );
    let (code, text, result) = platform(&api, &plugin);
    assert_eq!(code, Some(0), "{text}");
    let doc = check(&plugin);

    // 1.
    let fires = &case(&result, "fires")["arms"]["with"][0];
    assert_eq!(grader(fires, "fires")["passed"], true, "{fires}");
    let by_name = grader(fires, "by-name");
    assert_eq!(by_name["passed"], false);
    assert!(
        by_name["explanation"]
            .as_str()
            .unwrap()
            .starts_with("release-notes called 0x"),
        "{by_name}"
    );
    let d = finding(
        &doc,
        "tool-is-item",
        "quality/evals/trigger/fires/graders/by-name.md",
    );
    assert_eq!(d["severity"], "error");
    assert!(d["fix"].as_str().unwrap().contains(PIN), "{d}");

    // 2.
    assert_eq!(case(&result, "mixed")["maxTurns"], 4);
    let d = finding(&doc, "overridden-key", "quality/evals/mixed/prompt.md");
    assert_eq!(d["severity"], "error");
    assert!(d["message"].as_str().unwrap().contains("max_turns"), "{d}");

    // 3. Without an operator grant no case is offered Write: the platform
    // warns for both file cases. `check` errs on the one whose allowed_tools
    // names no tool that could write the file, and for the one that names
    // Write says that it needs the grant (`gated-tool`), as the platform does.
    for case in ["unwritable", "files"] {
        assert!(
            text.contains(&format!(
                "case \"{case}\": grader \"written\" cannot pass with the granted tools"
            )),
            "{text}"
        );
    }
    assert_eq!(
        finding(&doc, "gated-tool", "quality/evals/files/prompt.md")["severity"],
        "warning"
    );
    let d = finding(
        &doc,
        "file-unwritable",
        "quality/evals/unwritable/graders/written.md",
    );
    assert_eq!(d["severity"], "error");
    let about_files = doc["diagnostics"].as_array().unwrap().iter().any(|d| {
        d["code"] == "file-unwritable"
            && d["file"]
                .as_str()
                .unwrap()
                .starts_with("quality/evals/files/")
    });
    assert!(!about_files, "{doc:#}");

    // 4.
    let loose = &case(&result, "loose")["arms"]["with"][0];
    assert_eq!(grader(loose, "fired")["passed"], true, "{loose}");
    let d = finding(
        &doc,
        "skill-match-loose",
        "quality/evals/loose/graders/fired.md",
    );
    assert_eq!(d["severity"], "error");

    // The mock.
    let mocked = &case(&result, "mocked")["arms"]["with"][0];
    assert!(
        mocked["error"]
            .as_str()
            .is_some_and(|e| e.contains("mocks/tracker/get_issue.md")),
        "{mocked}"
    );
    let d = finding(
        &doc,
        "mock-invalid",
        "quality/evals/mocked/mocks/tracker/get_issue.md",
    );
    assert_eq!(d["severity"], "error");

    // Nothing else: every other case of the corpus is still clean.
    let codes: Vec<&str> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes.len(), 5, "one error per fault, nothing else: {doc:#}");
}

#[test]
fn an_ignored_eval_dir_and_a_case_in_mocks_are_the_platform_s() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let corpus = support::data::data("plugins/tidy");
    let tmp = tempfile::tempdir().unwrap();
    let plugin = tmp.path().join("tidy");
    copy_tree(&corpus, &plugin);
    // A top-level "evals" key: the platform ignores it for evals/.
    write(
        &plugin,
        "plugin.json",
        r#"{"name": "tidy", "version": "1.0.0", "description": "x", "evals": "checks"}"#,
    );
    write(
        &plugin,
        "checks/never/prompt.md",
        "---\nmax_turns: 2\n---\n\nNever run: the manifest's key is ignored.\n",
    );
    write(
        &plugin,
        "checks/never/graders/g.md",
        "---\ntype: regex\n---\nx\n",
    );
    // A case placed in mocks/: never run.
    write(
        &plugin,
        "evals/mocks/stray/case.yaml",
        "schema_version: \"1.1\"\nname: stray\nexecution:\n  prompt: hi\ngraders:\n  - name: g\n    type: regex\n    pattern: x\n",
    );
    let api = FakeApi::start(Script::new().otherwise("no"));
    let (code, text, result) = platform(&api, &plugin);
    let doc = check(&plugin);

    assert!(
        text.contains("ignoring the top-level \"evals\" key"),
        "{text}"
    );
    let names: Vec<&str> = result["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(
        !names.contains(&"never") && !names.contains(&"stray"),
        "{names:?}"
    );
    // The case in mocks/ is a load failure: "Couldn't load 1 case file", exit 1.
    assert!(
        text.contains("mocks/ is reserved for mock responders")
            && text.contains("Couldn't load 1 case file"),
        "{text}"
    );
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(
        finding(&doc, "eval-dir-ignored", "plugin.json")["severity"],
        "warning"
    );
    assert_eq!(
        finding(&doc, "case-in-mocks", "evals/mocks")["severity"],
        "error"
    );
    let cases: Vec<&str> = doc["suites"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["cases"].as_array().unwrap())
        .map(|c| c.as_str().unwrap())
        .collect();
    let mut ran = names.clone();
    ran.sort();
    let mut found = cases.clone();
    found.sort();
    assert_eq!(ran, found, "{text}");
}
