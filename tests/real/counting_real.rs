//! Which runs count, on the real platform tier (real `claude`, fake API): a
//! run the platform marks with an error never counts (the document is
//! partial and says why, the gate never accepts it, the next `run` buys it
//! again), an API unreachable for every run gives a partial document that
//! says so and leaves no run sandbox behind, a suite-level `mocks/` edit re-buys every case, and a case name
//! the platform's `--case` would read as a pattern is refused before a call.

use crate::support;
use support::tier::{self, Tool};

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use support::fake_api::{FakeApi, Kind, Reply, Script};
use support::real::RealWorld;
use support::world::outcome;

const SKILL: &str = "bob-eval-commit:commit";
const FIRES: &str = "Write the commit message";
const GOOD: &str = "fix(hooks): skip the pre-commit hook when only docs change\n\nSkip the hook because docs-only commits do not need lint or tests.";
const BAD: &str = "Skip pre-commit hook for docs-only changes.";
const REASON: &str = "Skip the hook because";

/// The fixture's model, with its agent turns dropped (no answer, the
/// connection closed) while `drop(request)` says so.
fn model(drop: impl Fn(&support::fake_api::ApiRequest) -> bool + Send + Sync + 'static) -> Script {
    Script::new()
        .rule(drop, Reply::Drop)
        .fire_skill(SKILL, FIRES, GOOD)
        .otherwise(BAD)
        .judge_passes_if_contains(REASON)
}

type World = RealWorld;

/// A world whose API follows `script`.
fn world(script: Script) -> World {
    RealWorld::new(FakeApi::start(script))
}

/// What these tests do in a world.
trait Counting {
    fn bob(&self, args: &[&str]) -> (i32, String, String);
    fn run(&self, name: &str) -> (Value, String, PathBuf);
    fn gate(&self, result: &Path) -> (i32, String);
    fn without_calls(&self) -> usize;
    fn suite(&self) -> PathBuf;
}

impl Counting for World {
    /// `bob-eval ARGS` against the real platform, offline; a dropped
    /// connection is not retried, so a run ends on its error at once.
    fn bob(&self, args: &[&str]) -> (i32, String, String) {
        let mut cmd = self.command(support::cmd::bob(&self.source, &self.home()));
        cmd.env("CLAUDE_CODE_MAX_RETRIES", "0").args(args);
        outcome(cmd)
    }

    /// `run commit --runs 1 --out <name>.json`, exit 0; the document and stderr.
    fn run(&self, name: &str) -> (Value, String, PathBuf) {
        let out = self.dir.path().join(format!("{name}.json"));
        let (code, stdout, stderr) = self.bob(&[
            "run",
            "commit",
            "--runs",
            "1",
            "--max-cost-usd",
            "1",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stdout}\n{stderr}");
        let doc = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        (doc, stderr, out)
    }

    fn gate(&self, result: &Path) -> (i32, String) {
        let (code, out, err) = self.bob(&["gate", "commit", result.to_str().unwrap()]);
        (code, format!("{out}{err}"))
    }

    /// Agent turns so far on the without arm (the item not listed).
    fn without_calls(&self) -> usize {
        self.api
            .requests_of(Kind::Agent)
            .iter()
            .filter(|r| !r.skills_listed.iter().any(|s| s == SKILL))
            .count()
    }

    fn suite(&self) -> PathBuf {
        self.source.join("evals/commit")
    }
}

/// The without arm's connection drops: the platform still grades those runs
/// (and marks them with `error`). They never count: the document is partial
/// with the count and the platform's words, the gate rejects it, and the
/// next `run` (the API healthy again) buys the without arm again.
#[test]
fn errored_runs_never_count_and_are_bought_again() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let dropping = Arc::new(AtomicBool::new(true));
    let flag = dropping.clone();
    let w = world(model(move |r| {
        flag.load(Ordering::SeqCst) && !r.skills_listed().iter().any(|s| s == SKILL)
    }));
    let (first, stderr, path) = w.run("first");
    assert_eq!(first["partial"], true, "{first:#}\n{stderr}");
    let reason = first["partial_reason"].as_str().unwrap();
    assert!(
        reason.starts_with(
            "run_errors: 2 of 4 runs ended on an error and were not counted; the platform said: "
        ),
        "{reason}"
    );
    assert!(!reason.chars().any(char::is_control), "{reason:?}");
    assert!(
        stderr.contains("PARTIAL (run_errors: 2 of 4 runs"),
        "{stderr}"
    );
    for case in first["cases"].as_array().unwrap() {
        assert_eq!(case["without"], Value::Null, "{case:#}");
        assert_eq!(case["runs"], 1, "only the with run counts: {case:#}");
    }
    let (code, said) = w.gate(&path);
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("partial"), "{said}");

    let listed = w.bob(&["evidence", "list", "--json"]);
    let entries: Value = serde_json::from_str(&listed.1).unwrap();
    let kept: u64 = entries
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["runs"].as_u64().unwrap())
        .sum();
    assert_eq!(kept, 4, "errored runs are kept for the record: {entries:#}");

    dropping.store(false, Ordering::SeqCst);
    let before = w.without_calls();
    let (second, stderr, path) = w.run("second");
    assert_eq!(second["partial"], false, "{second:#}\n{stderr}");
    // Had the errored runs counted as stored, every key would hold its one
    // run and nothing would be bought; the platform runs both arms of a case,
    // so the with arm is bought again beside the without arm.
    assert!(
        w.without_calls() > before,
        "the errored without runs were bought again"
    );
    assert_eq!(second["reused_runs"], 0, "{second:#}");
    let (code, said) = w.gate(&path);
    assert_eq!(code, 0, "{said}");
}

/// With every connection dropped, every run errs: the document is partial
/// and says nothing was measured; never a complete "no-signal".
#[test]
fn an_unreachable_api_gives_a_partial_result_that_says_so() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let w = world(model(|_| true));
    let (doc, stderr, path) = w.run("down");
    assert_eq!(doc["partial"], true, "{doc:#}");
    let reason = doc["partial_reason"].as_str().unwrap();
    assert!(
        reason.starts_with(
            "run_errors: every run (4 of 4) ended on an error, so nothing was measured"
        ),
        "{reason}"
    );
    assert!(
        stderr.contains("every run (4 of 4) ended on an error"),
        "{stderr}"
    );
    // The platform keeps a failed run's sandbox; bob-eval's temp folder,
    // where it was made, is gone with the plugin: nothing is left.
    let left: Vec<String> = std::fs::read_dir(w.dir.path().join("tmp"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.is_empty(), "left in the temp folder: {left:?}");
    let (code, said) = w.gate(&path);
    assert_eq!(code, 1, "{said}");
}

/// With nothing listening at the API's address the platform would retry
/// for minutes, silently: bob-eval checks the address once the run has been
/// quiet a few seconds, stops the platform, says why, and leaves nothing.
#[test]
fn an_api_with_nothing_listening_is_said_within_seconds() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let w = world(model(|_| false));
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut cmd = w.command(support::cmd::bob(&w.source, &w.home()));
    cmd.env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{closed}"))
        .args(["run", "commit", "--runs", "1", "--max-cost-usd", "1"]);
    let (code, _, stderr) = outcome(cmd);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the API at http://127.0.0.1:{closed} ($ANTHROPIC_BASE_URL) cannot be reached"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("nothing was measured"), "{stderr}");
    let left: Vec<String> = std::fs::read_dir(w.dir.path().join("tmp"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.is_empty(), "left in the temp folder: {left:?}");
}

const TOOLS: &str = r#"{"tools": [{"name": "get_issue", "description": "One issue by id.", "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}}]}"#;
const RESPONDER: &str =
    "---\nexpect:\n  id: \"42\"\n---\n{\"id\": \"42\", \"state\": \"closed\"}\n";

/// A suite-level `mocks/` layer is read by the platform for every case: an
/// edit of it re-buys every case; nothing else changed re-buys nothing.
#[test]
fn a_suite_level_mocks_edit_re_buys_every_case() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let w = world(model(|_| false));
    let layer = w.suite().join("mocks/tracker");
    std::fs::create_dir_all(&layer).unwrap();
    std::fs::write(layer.join("_tools.json"), TOOLS).unwrap();
    std::fs::write(layer.join("get_issue.md"), RESPONDER).unwrap();
    let (first, stderr, _) = w.run("first");
    assert_eq!(first["partial"], false, "{first:#}\n{stderr}");
    let bought = w.api.requests_of(Kind::Agent).len();
    let (second, ..) = w.run("second");
    assert_eq!(second["reused_runs"], 4);
    assert_eq!(
        w.api.requests_of(Kind::Agent).len(),
        bought,
        "nothing bought"
    );

    std::fs::write(
        layer.join("get_issue.md"),
        RESPONDER.replace("closed", "open"),
    )
    .unwrap();
    let (third, ..) = w.run("third");
    assert_eq!(third["reused_runs"], 0, "every case re-bought: {third:#}");
    assert!(w.api.requests_of(Kind::Agent).len() > bought);
    assert_ne!(third["suite_digest"], first["suite_digest"]);
}

/// The platform's `--case fire*` also runs `fires` (it reads `*` as a
/// wildcard and has no escape): a suite with a case named `fire*` beside
/// `fires` is refused before any call, so no run of one is taken for the other.
#[test]
fn a_case_name_the_platform_reads_as_a_pattern_is_refused_before_any_call() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let w = world(model(|_| false));
    support::tree::copy_tree(&w.suite().join("fires"), &w.suite().join("fire*"));
    let (code, out, err) = w.bob(&["run", "commit", "--runs", "1", "--case", "fire*"]);
    assert_ne!(code, 0, "{out}");
    assert!(
        err.contains("the case name `fire*` also selects `fires`"),
        "{err}"
    );
    assert!(w.api.requests().is_empty(), "no call was made");
}
