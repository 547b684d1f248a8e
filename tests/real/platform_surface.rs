//! The platform's surface held to docs/platform.md: every option that
//! `claude plugin eval --help` lists, and every field of a result document the
//! real platform writes, has its row there saying what bob-eval does with it.
//! A platform update that adds an option or a field fails here until the
//! table says what to do with it.

use crate::support;
use support::tier::{self, Tool};

use serde_json::Value;
use std::collections::BTreeSet;
use std::process::Command;
use support::fake_api::{FakeApi, Script};
use support::real::{RealWorld, claude_bin, platform_env};
use support::world::outcome;

/// docs/platform.md's part headed `heading`, up to the next heading of its level.
fn section(heading: &str) -> String {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/platform.md"))
        .expect("docs/platform.md");
    let start = docs
        .find(heading)
        .unwrap_or_else(|| panic!("docs/platform.md has no `{heading}`"));
    let rest = &docs[start + heading.len()..];
    let end = rest
        .find("\n### ")
        .or_else(|| rest.find("\n## "))
        .unwrap_or(rest.len());
    rest[..end].to_string()
}

/// The first cell of each table row of `text`, every `` `…` `` in it.
fn named(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter(|l| l.starts_with("| `"))
        .filter_map(|l| l.split('|').nth(1))
        .flat_map(|cell| {
            cell.split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The long options (and subcommands) `claude plugin eval --help` lists.
fn platform_options() -> BTreeSet<String> {
    let dir = tempfile::tempdir().unwrap();
    let api = FakeApi::start(Script::new());
    let out = Command::new(claude_bin())
        .args(["plugin", "eval", "--help"])
        .env_clear()
        .envs(platform_env(&api, dir.path()))
        .output()
        .expect("claude runs");
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(help.contains("Options:"), "{help}");
    let mut found = BTreeSet::new();
    let mut in_commands = false;
    for line in help.lines() {
        if line.starts_with("Commands:") {
            in_commands = true;
            continue;
        }
        let entry = line.trim_start();
        // An entry starts two spaces in; its wrapped description lines start deeper.
        if line.len() - entry.len() != 2 {
            continue;
        }
        let word = entry.split_whitespace().next().unwrap_or("");
        if in_commands {
            found.insert(word.to_string());
        } else if let Some(long) = entry.split([' ', ',']).find(|w| w.starts_with("--")) {
            found.insert(long.to_string());
        }
    }
    found
}

#[test]
fn every_option_of_the_platform_has_its_row_and_every_row_an_option() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let options = platform_options();
    assert!(
        options.contains("--scaffold") && options.contains("init"),
        "{options:?}"
    );
    let rows = named(&section("### Options of `claude plugin eval`"));
    let missing: Vec<&String> = options.iter().filter(|o| !rows.contains(*o)).collect();
    assert!(
        missing.is_empty(),
        "docs/platform.md says nothing of {missing:?}: add a row saying what bob-eval does with each"
    );
    let gone: Vec<&String> = rows.iter().filter(|r| !options.contains(*r)).collect();
    assert!(
        gone.is_empty(),
        "rows for options the platform no longer has: {gone:?}"
    );
}

/// Every field path of a platform result: `costUsd`, `suite.plugins`,
/// `cases[].arms`, `runs[].graders[].judgeVotes` (a run is any element of
/// `cases[].arms.with` or `.without`), `runs[].mocks.calls` …
fn paths(value: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    let Value::Object(map) = value else { return };
    for (key, v) in map {
        let path = format!("{prefix}{key}");
        out.insert(path.clone());
        match (path.as_str(), v) {
            ("cases", Value::Array(cases)) => {
                for case in cases {
                    paths(case, "cases[].", out);
                    if let Some(arms) = case.get("arms").and_then(Value::as_object) {
                        for run in arms.values().filter_map(Value::as_array).flatten() {
                            paths(run, "runs[].", out);
                        }
                    }
                }
            }
            // Arms are walked as runs above; a grader's free-form config and a
            // plugin list's entries are objects of their own kinds.
            ("cases[].arms", _) | ("cases[].graders[].config", _) => {}
            (_, Value::Array(items)) => {
                for item in items {
                    paths(item, &format!("{path}[]."), out);
                }
            }
            (_, Value::Object(_)) => paths(v, &format!("{path}."), out),
            _ => {}
        }
    }
}

#[test]
fn every_field_of_a_real_result_has_its_row() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let w = RealWorld::new(FakeApi::start(
        Script::new()
            .fire_skill(
                "bob-eval-commit:commit",
                "Write the commit message",
                "fix(hooks): skip the hook\n\nSkip the hook because docs need no lint.",
            )
            .otherwise("Skip the hook.")
            .judge_passes_if_contains("Skip the hook because"),
    ));
    let mut cmd = w.command(support::cmd::bob(&w.source, &w.home()));
    cmd.args([
        "run",
        "commit",
        "--runs",
        "1",
        "--max-cost-usd",
        "1",
        "--keep",
    ]);
    let (code, _, err) = outcome(cmd);
    assert_eq!(code, 0, "{err}");
    let kept = err
        .lines()
        .find_map(|l| l.split("keeping the plugin folder ").nth(1))
        .unwrap_or_else(|| panic!("no kept folder: {err}"))
        .trim()
        .to_string();
    let doc: Value = serde_json::from_slice(
        &std::fs::read(format!("{kept}/.bob-eval/out/aggregate-result.json")).unwrap(),
    )
    .unwrap();
    // The platform's config folder, whose files its sessions rewrite and
    // rotate while others screen the plugin's tree, is not in that tree.
    let listing = support::tree::list_tree(std::path::Path::new(&kept));
    let holds = |name: &str| listing.iter().any(|p| p.ends_with(name));
    assert!(
        holds("aggregate-result.json") && !holds(".claude.json"),
        "{listing:?}"
    );
    let mut found = BTreeSet::new();
    paths(&doc, "", &mut found);
    let rows = named(&section("### Fields of its result"));
    let missing: Vec<&String> = found.iter().filter(|f| !rows.contains(*f)).collect();
    assert!(
        missing.is_empty(),
        "docs/platform.md says nothing of the result's {missing:?}: add a row saying what bob-eval does with each"
    );
    std::fs::remove_dir_all(&kept).unwrap();
}
