//! The with arm cannot read its own answers: a model that knows where the
//! suite's graders are (in the throwaway plugin and in the source tree) and
//! tries every file tool a case can grant (Read, Glob, Grep) never sees a
//! grader's text. The controls, a Grep and a Glob of the workspace the
//! case's fixture wrote, show the tools run and their results reach the
//! model. (Bash is not tried: the platform grants it only where it
//! can confine it, and refuses the run on a machine without a sandbox
//! backend, as on the test machine.) The test fails if a platform version
//! ever opens the graders to the with arm.

use crate::support;
use support::tier::{self, Tool};

use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use support::fake_api::{ApiRequest, FakeApi, Kind, Reply, Script};
use support::real::RealWorld;
use support::world::outcome;

const SKILL: &str = "bob-eval-commit:commit";
const MARKER: &str = "PEEK-AT-THE-GRADERS";
/// Only the grader file holds this.
const SECRET: &str = "GRADER-SECRET-7f3a91";
/// The case's fixture writes this into the workspace (the control).
const CONTROL: &str = "FIXTURE-CONTROL-2b6e";

/// The throwaway plugin folder under `tmp` (not the platform's temp folder).
fn plugin_under(tmp: &Path) -> Option<PathBuf> {
    std::fs::read_dir(tmp)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with("bob-eval-commit-") && !name.starts_with("bob-eval-commit-tmp-")
        })
}

/// The tool call the snooping model makes after `done` tool results.
fn next_call(
    done: usize,
    plugin: &Path,
    source: &Path,
) -> Option<(&'static str, serde_json::Value)> {
    let graders = |root: &Path| root.join("evals/commit/peek/graders/secret.md");
    let p = |path: PathBuf| path.to_string_lossy().into_owned();
    Some(match done {
        1 => ("Read", json!({ "file_path": p(graders(plugin)) })),
        2 => ("Read", json!({ "file_path": p(graders(source)) })),
        3 => (
            "Glob",
            json!({ "pattern": "**/graders/*.md", "path": p(plugin.join("evals")) }),
        ),
        4 => (
            "Grep",
            json!({ "pattern": SECRET, "path": p(plugin.to_path_buf()), "output_mode": "content" }),
        ),
        5 => (
            "Grep",
            json!({ "pattern": SECRET, "path": p(source.join("evals")), "output_mode": "content" }),
        ),
        6 => (
            "Grep",
            json!({ "pattern": CONTROL, "output_mode": "content" }),
        ),
        7 => ("Glob", json!({ "pattern": "*.txt" })),
        _ => return None,
    })
}

#[test]
fn the_with_arm_cannot_read_the_graders_by_any_granted_tool() {
    if !tier::present(Tool::Claude) {
        return;
    }
    // The world's folders, known once it exists; the model reads them mid-run.
    let paths: Arc<OnceLock<(PathBuf, PathBuf)>> = Arc::new(OnceLock::new());
    let seen = Arc::clone(&paths);
    // The snooping rule comes first; the one after fires the skill.
    let script = Script::new()
        .rule_with(
            move |r| r.prompt_contains(MARKER) && !r.tool_results().is_empty(),
            move |r| {
                let done = r.tool_results().len();
                let (tmp, source) = seen.get().expect("the world exists");
                let plugin = plugin_under(tmp).expect("the plugin folder exists mid-run");
                match next_call(done, &plugin, source) {
                    Some((name, input)) => Reply::ToolUse {
                        name: name.into(),
                        input,
                    },
                    None => Reply::Text("Done looking.".into()),
                }
            },
        )
        .fire_skill(SKILL, MARKER, "unused");
    let w = RealWorld::new(FakeApi::start(script));
    let _ = paths.set((w.dir.path().join("tmp"), w.source.clone()));
    let case = w.source.join("evals/commit/peek");
    std::fs::create_dir_all(case.join("graders")).unwrap();
    std::fs::write(
        case.join("case.yaml"),
        format!("schema_version: \"1.1\"\nname: peek\nexecution:\n  prompt: \"{MARKER}: write the commit message.\"\n  max_turns: 14\n  allowed_tools: [Skill, Read, Glob, Grep]\ncontext:\n  scaffold_script: setup.sh\n"),
    )
    .unwrap();
    std::fs::write(
        case.join("setup.sh"),
        format!("printf '{CONTROL}\\n' > control.txt\n"),
    )
    .unwrap();
    std::fs::write(
        case.join("graders/secret.md"),
        format!("---\ntype: regex\npattern: '{SECRET}'\n---\n"),
    )
    .unwrap();
    let mut cmd = w.command(support::cmd::bob(&w.source, &w.home()));
    cmd.args([
        "run",
        "commit",
        "--case",
        "peek",
        "--runs",
        "1",
        "--max-cost-usd",
        "1",
        "--scaffold",
        "--out",
    ])
    .arg(w.dir.path().join("peek.json"));
    let (code, stdout, stderr) = outcome(cmd);
    assert!(code == 0 || code == 1, "{stdout}\n{stderr}");

    // The with arm's last request carries every tool result it got.
    let with: Vec<_> = w
        .api
        .requests_of(Kind::Agent)
        .into_iter()
        .filter(|r| r.offers_skill(SKILL) && r.user_text().contains(MARKER))
        .collect();
    let results = with
        .iter()
        .map(|r| {
            ApiRequest {
                body: r.body.clone(),
            }
            .tool_results()
        })
        .max_by_key(Vec::len)
        .unwrap_or_default();
    assert_eq!(
        results.len(),
        8,
        "the model made every call: {results:#?}\n{stderr}"
    );
    assert!(
        results[6].contains(CONTROL),
        "the control read works: {:?}",
        results[6]
    );
    for (i, text) in results.iter().enumerate() {
        assert!(!text.contains(SECRET), "call {i} read a grader: {text}");
    }
    assert!(
        results[7].contains("control.txt"),
        "the control glob works: {:?}",
        results[7]
    );
    assert!(
        !results[3].contains("secret.md"),
        "Glob listed the graders: {}",
        results[3]
    );
}
