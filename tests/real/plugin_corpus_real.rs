//! The regression corpus of `check --plugin` on the real platform tier: every
//! plugin under `tests/data/plugins/` uses keys and layouts the platform
//! accepts (JSON case files, every prompt.md key, a regex in the grader body,
//! `weight: 0.5`, `file_exists` globs with `exists: false`, `focus: {source:
//! file, path}`, `tool_order` with an `after:` mapping, `baseline` graders,
//! suite- and case-level mocks with an agent responder, nested groups,
//! `samples/`, the manifest's `experimental.evals`, skill-level `evals/`, a
//! hook-only plugin). Each must load on the real `claude plugin eval`
//! (offline, against the fake Messages API): exit 0, no "failed to load" or
//! "Couldn't load N case file", the plugin loaded with no `problem`, and
//! exactly the cases `check --plugin` found; and `check --plugin` must find no
//! error in it.

use crate::support;
use support::tier::{self, Tool};

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use support::cmd::bob;
use support::fake_api::{FakeApi, Script};
use support::real::{claude_bin, platform_env};

/// Every plugin of the corpus.
fn corpus() -> Vec<PathBuf> {
    let root = support::data::data("plugins");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 3, "{dirs:?}");
    dirs
}

/// `bob-eval check --plugin DIR --json`: exit code and report.
fn check(dir: &Path) -> (i32, Value) {
    let home = tempfile::tempdir().unwrap();
    let out = bob(dir, home.path())
        .args(["check", "--json", "--plugin"])
        .arg(dir)
        .output()
        .unwrap();
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap(), doc)
}

/// The case names a check report found, over all its suites.
fn checked_cases(doc: &Value) -> BTreeSet<String> {
    doc["suites"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["cases"].as_array().unwrap().iter())
        .map(|c| c.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn the_corpus_passes_check_with_no_error() {
    for dir in corpus() {
        let (status, doc) = check(&dir);
        assert_eq!(doc["errors"], 0, "{}: {doc:#}", dir.display());
        assert_eq!(status, 0, "{}", dir.display());
        assert!(!checked_cases(&doc).is_empty(), "{}", dir.display());
    }
}

/// Run the real `claude plugin eval` on a copy of `plugin`, one run per case
/// and arm: exit code, stderr and the result document.
fn platform(plugin: &Path) -> (Option<i32>, String, Option<Value>) {
    let api = FakeApi::start(
        Script::new()
            .fire_skill(
                "release-kit:release-notes",
                "Write the release notes for v1.4.0",
                "## v1.4.0 (2026-11-30)\n\n### Added\n- --since flag (#42)\n\n### Fixed\n- Crash on empty changelog (#41)",
            )
            .otherwise("## v1.4.0 (2026-11-30)\n\n### Fixed\n- crash")
            .judge_passes_if_contains("### Added"),
    );
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join(plugin.file_name().unwrap());
    support::tree::copy_tree(plugin, &copy);
    let out_dir = dir.path().join("out");
    let output = std::process::Command::new(claude_bin())
        .arg("plugin")
        .arg("eval")
        .arg(&copy)
        .args(["--ablation", "with-without", "--output-dir"])
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
        .current_dir(dir.path())
        .env_clear()
        .envs(platform_env(&api, dir.path()))
        .output()
        .unwrap();
    let result = std::fs::read(out_dir.join("aggregate-result.json"))
        .ok()
        .map(|bytes| serde_json::from_slice(&bytes).unwrap());
    (
        output.status.code(),
        format!(
            "{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
        result,
    )
}

#[test]
fn the_corpus_loads_on_the_real_platform() {
    if !tier::present(Tool::Claude) {
        return;
    }
    for dir in corpus() {
        let (_, doc) = check(&dir);
        let (code, text, result) = platform(&dir);
        let name = dir.display();
        assert!(
            !text.contains("failed to load") && !text.contains("Couldn't load"),
            "{name}: a case failed to load:\n{text}"
        );
        assert_eq!(code, Some(0), "{name}:\n{text}");
        let result = result.unwrap_or_else(|| panic!("{name}: no result\n{text}"));
        assert_eq!(result["suite"]["ablation"], "with-without", "{name}");
        let plugins = result["suite"]["plugins"].as_array().unwrap();
        assert!(
            !plugins.is_empty() && plugins.iter().all(|p| p.get("problem").is_none()),
            "{name}: the plugin did not load cleanly: {plugins:?}"
        );
        let ran: BTreeSet<String> = result["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            ran,
            checked_cases(&doc),
            "{name}: the platform ran other cases than check found\n{text}"
        );
    }
}
