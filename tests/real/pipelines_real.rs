//! `exam`, `propose` and `sweep` once each on the real platform tier: the real
//! `claude plugin eval` (see `make claude`), fully offline against the fake
//! Messages API in tests/support/fake_api.rs. The fake fires the skill on the
//! with arm and answers well only then, so the item measurably helps.

use crate::support;
use support::tier::{self, Tool};

use std::path::{Path, PathBuf};
use std::process::Command;
use support::cmd::bob;
use support::fake_api::{FakeApi, Kind, Script};
use support::real::{claude_bin, source_copy};

const SKILL: &str = "bob-eval-commit:commit";
const FIRES_MARKER: &str = "Write the commit message";
const GOOD: &str = "fix(hooks): skip the pre-commit hook when only docs change\n\nSkip the hook because docs-only commits do not need lint or tests.";
const BAD: &str = "Skip pre-commit hook for docs-only changes.";
const JUDGE_MARKER: &str = "Skip the hook because";

/// The model: it fires the skill on the commit prompt when offered, and
/// answers GOOD (which the graders pass) only after that; BAD otherwise.
fn firing() -> Script {
    Script::new()
        .fire_skill(SKILL, FIRES_MARKER, GOOD)
        .otherwise(BAD)
        .judge_passes_if_contains(JUDGE_MARKER)
}

fn fake() -> FakeApi {
    FakeApi::start(firing())
}

/// `bob-eval --source <source> --home <dir/bob-home>` on the real platform
/// (`BOB_EVAL_CLAUDE`), offline against `api`, run in `dir`.
fn bob_eval(api: &FakeApi, dir: &Path, source: &Path) -> Command {
    support::real::offline(bob(source, &dir.join("bob-home")), api, dir)
}

/// A copy of the fixture source in `dir`, with the wiki pattern page that
/// `propose` cites.
fn source_for_propose(dir: &Path) -> PathBuf {
    let source = source_copy(dir);
    std::fs::create_dir_all(source.join("wiki/patterns")).unwrap();
    std::fs::write(
        source.join("wiki/patterns/commit-skipped-hook.md"),
        "# Commit skipped hook\n",
    )
    .unwrap();
    source
}

/// `propose commit` on `api` with a one-run-per-case ceiling of `ceiling`,
/// under the seed's bare rule (one run per arm is never clear).
fn propose(api: &FakeApi, dir: &Path, source: &Path, ceiling: &str) -> std::process::Output {
    bob_eval(api, dir, source)
        .args([
            "propose",
            "commit",
            "--rule",
            "bare",
            "--runs",
            "1",
            "--max-cost-usd",
            ceiling,
            "--model",
            "haiku",
        ])
        .args(["--pr", "#4300", "--pages", "commit-skipped-hook"])
        .output()
        .unwrap()
}

fn baseline(source: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(source.join("evals/commit/baseline.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A finished command's stdout and stderr, as text.
fn texts(out: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn exam_on_the_real_platform() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let claude = claude_bin();
    assert!(claude.exists());
    let dir = tempfile::tempdir().unwrap();
    let source = source_copy(dir.path());
    let api = fake();
    let out = bob_eval(&api, dir.path(), &source)
        .args(["exam", "commit", "--runs", "1", "--max-cost-usd", "1"])
        .output()
        .unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("commit: improved"), "{stdout}\n{stderr}");
    assert!(stdout.contains("meaning: keeps helping"), "{stdout}");
    assert!(
        !source.join("wiki/skill-impact.md").exists(),
        "exam recorded something"
    );
    // What made it improve: the with arm offered and fired the skill on the
    // commit prompt, the without arm never offered it.
    let fires: Vec<_> = api
        .requests_of(Kind::Agent)
        .into_iter()
        .filter(|r| r.user_text().contains(FIRES_MARKER))
        .collect();
    assert!(fires.iter().any(|r| r.offers_skill(SKILL)), "{fires:#?}");
    assert!(fires.iter().any(|r| !r.offers_skill(SKILL)), "{fires:#?}");
    assert_eq!(
        api.requests()
            .iter()
            .filter(|r| r.reply.starts_with("tool_use Skill"))
            .count(),
        1,
        "fired once, on the one with-arm run"
    );
}

#[test]
fn propose_on_the_real_platform() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let source = source_for_propose(dir.path());
    let api = fake();
    let out = propose(&api, dir.path(), &source, "1");
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("commit: accepted"), "{stdout}");
    let baseline = baseline(&source);
    assert!(
        baseline["best"]["haiku"]["score"].as_f64().unwrap() > 0.0,
        "{baseline}"
    );
    let wiki = std::fs::read_to_string(source.join("wiki/skill-impact.md")).unwrap();
    assert!(
        wiki.contains(
            "| commit | #4300 | [commit-skipped-hook](patterns/commit-skipped-hook.md) |"
        ),
        "{wiki}"
    );
    assert!(wiki.trim_end().ends_with("| accepted |"), "{wiki}");
}

#[test]
fn sweep_on_the_real_platform() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let source = source_copy(dir.path());
    let api = fake();
    let out = bob_eval(&api, dir.path(), &source)
        .env("EVALS", "1")
        .env("EVALS_MODEL", "claude-sonnet-5-5")
        .env("EVALS_MAX_COST_USD", "0.5")
        .args(["sweep", "--json"])
        .output()
        .unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let rows: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 1, "{stdout}");
    let r = &rows[0]["result"];
    // Derived from the script: the skill fires on the with arm only, where the
    // answer meets both graders; the without arm's answer meets neither; the
    // quiet case passes on both arms. One run per case and arm (EVALS runs 1).
    assert_eq!(r["item"], "commit");
    assert_eq!(r["model"], "claude-sonnet-5-5");
    assert_eq!(r["max_cost_usd"], 0.5);
    assert_eq!(
        (r["with"].as_f64(), r["without"].as_f64()),
        (Some(1.0), Some(0.5))
    );
    assert_eq!(r["verdict"], "improved");
    assert_eq!(r["trigger_rate"], 1.0);
    for case in r["cases"].as_array().unwrap() {
        assert_eq!(case["runs"], 2, "{case}");
    }
    let agent_models: Vec<_> = api
        .requests_of(Kind::Agent)
        .into_iter()
        .filter_map(|r| r.model)
        .collect();
    assert!(!agent_models.is_empty());
    assert!(
        agent_models.iter().all(|m| m == "claude-sonnet-5-5"),
        "{agent_models:?}"
    );
    assert!(
        !source.join("wiki/skill-impact.md").exists(),
        "sweep recorded something"
    );
}

/// The platform refuses the credential (`auth_failed`): `propose` fails with
/// exit 3 and records nothing.
#[test]
fn propose_with_a_rejected_credential_records_nothing() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let source = source_for_propose(dir.path());
    let before = baseline(&source);
    let api = FakeApi::start(Script::new().reject_credentials());
    let out = propose(&api, dir.path(), &source, "1");
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    assert!(stderr.contains("auth_failed"), "{stderr}");
    assert_eq!(baseline(&source), before, "the baseline changed");
    assert!(
        !source.join("wiki/skill-impact.md").exists(),
        "a wiki row was written"
    );
}

/// 50k input and 10k output tokens per agent turn: the platform stops at the
/// $0.01 ceiling after one run, so the result is partial, and a partial
/// result is never accepted: `propose` records the rejection and leaves the
/// best alone.
#[test]
fn propose_at_the_cost_ceiling_is_rejected() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let source = source_for_propose(dir.path());
    let before = baseline(&source);
    let api = FakeApi::start(firing().usage(50_000, 10_000));
    let out = propose(&api, dir.path(), &source, "0.01");
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("commit: rejected"), "{stdout}");
    assert!(
        stdout.contains("a partial result is never accepted"),
        "{stdout}"
    );
    assert_eq!(
        baseline(&source),
        before,
        "a partial result raised the best"
    );
    let wiki = std::fs::read_to_string(source.join("wiki/skill-impact.md")).unwrap();
    assert!(wiki.trim_end().ends_with("| rejected |"), "{wiki}");
}
