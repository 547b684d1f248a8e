//! The fake Messages API on its own (HTTP level) and against the real
//! `claude plugin eval` directly, with a plugin assembled by hand: proves the
//! fake and the fixture before `bob-eval run` is tested on top of them.

use crate::support;
use support::tier::{self, Tool};

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use support::fake_api::{FakeApi, Kind, Script};
use support::real::{claude_bin, platform_env, source_copy};
use support::tree::copy_tree;

const SKILL: &str = "bob-eval-commit:commit";
const FIRES_MARKER: &str = "Write the commit message";
const GOOD: &str = "fix(hooks): skip the pre-commit hook when only docs change\n\nSkip the hook because docs-only commits do not need lint or tests.";
const BAD: &str = "Skip pre-commit hook for docs-only changes.";
const JUDGE_MARKER: &str = "Skip the hook because";

/// Send one raw HTTP/1.1 request and read the whole answer.
fn post(api: &FakeApi, path: &str, body: &str) -> String {
    let addr = api.base_url().trim_start_matches("http://").to_string();
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

/// The SSE events of a response, as (event name, data) pairs.
fn events(response: &str) -> Vec<(String, Value)> {
    let body = response.split_once("\r\n\r\n").unwrap().1;
    body.split("\n\n")
        .filter(|e| !e.trim().is_empty())
        .map(|e| {
            let name = e
                .lines()
                .next()
                .unwrap()
                .strip_prefix("event: ")
                .unwrap()
                .to_string();
            let data = e.lines().nth(1).unwrap().strip_prefix("data: ").unwrap();
            (name, serde_json::from_str(data).unwrap())
        })
        .collect()
}

#[test]
fn fake_fires_the_skill_then_answers_and_votes() {
    let api = FakeApi::start(
        Script::new()
            .fire_skill("p:s", "do it", "done")
            .otherwise("nope")
            .judge_passes_if_contains("done")
            .usage(1234, 56),
    );
    let listing = "The following skills are available for use with the Skill tool:\n\n- p:s: does it\n- other: x";
    let first = json!({"model": "m1", "stream": true, "tools": [{"name": "Skill"}, {"name": "Bash"}],
        "messages": [{"role": "system", "content": listing}, {"role": "user", "content": "please do it"}]});
    let out = post(&api, "/v1/messages?beta=true", &first.to_string());
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    assert!(out.contains("Content-Type: text/event-stream"), "{out}");
    let ev = events(&out);
    let names: Vec<&str> = ev.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    assert_eq!(ev[0].1["message"]["usage"]["input_tokens"], 1234);
    assert_eq!(ev[0].1["message"]["model"], "m1");
    assert_eq!(ev[2].1["content_block"]["name"], "Skill");
    let partial: String = ev[3..5]
        .iter()
        .map(|(_, d)| d["delta"]["partial_json"].as_str().unwrap())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&partial).unwrap(),
        json!({"skill": "p:s"})
    );
    assert_eq!(ev[6].1["delta"]["stop_reason"], "tool_use");
    assert_eq!(ev[6].1["usage"]["output_tokens"], 56);

    let second = json!({"model": "m1", "tools": [{"name": "Skill"}],
        "messages": [{"role": "user", "content": "please do it"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Skill", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}]});
    let out = post(&api, "/v1/messages", &second.to_string());
    let message: Value = serde_json::from_str(out.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert_eq!(message["content"][0]["text"], "done");
    assert_eq!(message["stop_reason"], "end_turn");

    let unlisted = json!({"model": "m1", "tools": [{"name": "Skill"}],
        "messages": [{"role": "user", "content": "please do it"}]});
    assert!(post(&api, "/v1/messages", &unlisted.to_string()).contains(r#""text":"nope""#));

    let vote = |text: &str| {
        let judge = json!({"model": "j", "messages": [{"role": "user", "content": format!("Text: {text}\nAnswer PASS or FAIL.")}]});
        post(&api, "/v1/messages", &judge.to_string())
    };
    assert!(vote("done").contains(r#""text":"PASS""#));
    assert!(vote("nope").contains(r#""text":"FAIL""#));
    assert!(post(&api, "/v1/nowhere", "").starts_with("HTTP/1.1 404"));

    let log = api.requests();
    let kinds: Vec<Kind> = log.iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        [
            Kind::Agent,
            Kind::Agent,
            Kind::Agent,
            Kind::Judge,
            Kind::Judge,
            Kind::Other
        ]
    );
    assert_eq!(log[0].skills_listed, ["other", "p:s"]);
    assert!(log[0].offers_skill("p:s"));
    assert!(!log[2].offers_skill("p:s"));
    assert_eq!(log[0].path, "/v1/messages?beta=true");
    assert_eq!(log[0].model.as_deref(), Some("m1"));
    assert_eq!(log[5].status, 404);
}

#[test]
fn fake_rejects_credentials() {
    let api = FakeApi::start(Script::new().reject_credentials());
    let out = post(
        &api,
        "/v1/messages",
        r#"{"model":"m","stream":true,"messages":[]}"#,
    );
    assert!(out.starts_with("HTTP/1.1 403"), "{out}");
    assert!(out.contains("permission_error"), "{out}");
}

/// The plugin `bob-eval run` assembles, built by hand: a real manifest, the
/// skill symlinked in, the suite copied without baseline.json.
fn assemble_by_hand(source: &Path, plugin: &Path) {
    std::fs::create_dir_all(plugin.join(".claude-plugin")).unwrap();
    std::fs::write(
        plugin.join(".claude-plugin/plugin.json"),
        r#"{"name": "bob-eval-commit", "version": "0.0.0", "description": "commit under test"}"#,
    )
    .unwrap();
    std::fs::create_dir_all(plugin.join("skills")).unwrap();
    std::os::unix::fs::symlink(source.join("skills/commit"), plugin.join("skills/commit")).unwrap();
    copy_tree(&source.join("evals/commit"), &plugin.join("evals/commit"));
    std::fs::remove_file(plugin.join("evals/commit/baseline.json")).unwrap();
}

/// Run the real `claude plugin eval` on a hand-assembled plugin against `api`
/// with `--runs 1`; returns the exit code, stderr and `aggregate-result.json`
/// (when written).
fn run_claude(api: &FakeApi, ceiling: &str) -> (Option<i32>, String, Option<Value>) {
    let claude = claude_bin();
    let dir = tempfile::tempdir().unwrap();
    let source = source_copy(dir.path());
    let plugin = dir.path().join("plugin");
    assemble_by_hand(&source, &plugin);
    let out_dir = dir.path().join("out");
    let output = Command::new(&claude)
        .arg("plugin")
        .arg("eval")
        .arg(&plugin)
        .args(["--ablation", "with-without", "--output-dir"])
        .arg(&out_dir)
        .args([
            "--threshold",
            "0",
            "--max-cost-usd",
            ceiling,
            "--trust-plugin",
            "--no-publish",
        ])
        .args([
            "--runs",
            "1",
            "--model",
            "claude-sonnet-5-5",
            "--judge-model",
            "haiku",
        ])
        .current_dir(dir.path())
        .env_clear()
        .envs(platform_env(api, dir.path()))
        .output()
        .unwrap();
    let result = std::fs::read(out_dir.join("aggregate-result.json"))
        .ok()
        .map(|bytes| serde_json::from_slice(&bytes).unwrap());
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        result,
    )
}

#[test]
fn real_platform_fires_the_skill_on_the_with_arm() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let api = FakeApi::start(
        Script::new()
            .fire_skill(SKILL, FIRES_MARKER, GOOD)
            .otherwise(BAD)
            .judge_passes_if_contains(JUDGE_MARKER),
    );
    let (code, stderr, result) = run_claude(&api, "1");
    let log = api.requests();
    for r in &log {
        eprintln!("{r}");
    }
    assert_eq!(code, Some(0), "claude failed:\n{stderr}");
    let result = result.expect("aggregate-result.json written");
    assert_eq!(result["suite"]["ablation"], "with-without");
    assert_eq!(result["suite"]["plugins"][0]["name"], "bob-eval-commit");
    assert_eq!(result["partial"], false);
    assert_eq!(
        result["suite"]["modelOverride"], "claude-sonnet-5-5",
        "{}",
        result["suite"]
    );
    let case = |name: &str| {
        result["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .cloned()
            .unwrap()
    };
    let grader = |run: &Value, name: &str| {
        run["graders"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["name"] == name)
            .cloned()
            .unwrap()
    };
    let fires = case("fires");
    let with = &fires["arms"]["with"][0];
    let without = &fires["arms"]["without"][0];
    assert_eq!(grader(with, "fires")["passed"], true, "{with}");
    assert_eq!(grader(with, "subject")["passed"], true, "{with}");
    assert_eq!(
        grader(with, "why")["judgeVotes"],
        json!([true, true, true]),
        "{with}"
    );
    assert_eq!(with["score"], 1);
    assert_eq!(without["score"], 0, "{without}");
    assert_eq!(
        grader(without, "why")["judgeVotes"],
        json!([false, false, false])
    );
    let quiet = case("quiet");
    assert_eq!(grader(&quiet["arms"]["with"][0], "quiet")["passed"], true);
    assert_eq!(quiet["arms"]["without"][0]["score"], 1);
    assert!(result["costUsd"].as_f64().unwrap() > 0.0);

    // Every call is a streamed POST /v1/messages?beta=true.
    assert!(
        log.iter()
            .all(|r| r.method == "POST" && r.path == "/v1/messages?beta=true")
    );
    let agent = api.requests_of(Kind::Agent);
    assert!(
        agent
            .iter()
            .all(|r| r.stream && r.model.as_deref() == Some("claude-sonnet-5-5"))
    );
    let judges = api.requests_of(Kind::Judge);
    assert_eq!(
        judges.len(),
        6,
        "one llm grader, three votes, two arms of fires"
    );
    assert!(
        judges
            .iter()
            .all(|r| r.model.as_deref() == Some("claude-haiku-5-5"))
    );
    // Fires: with arm = Skill call + answer (both offer the skill), without arm
    // = one turn that never offers it.
    let fires_turns: Vec<_> = agent
        .iter()
        .filter(|r| r.user_text().contains(FIRES_MARKER))
        .collect();
    assert_eq!(
        fires_turns.iter().filter(|r| r.offers_skill(SKILL)).count(),
        2
    );
    assert_eq!(
        fires_turns
            .iter()
            .filter(|r| !r.offers_skill(SKILL))
            .count(),
        1
    );
}

#[test]
fn real_platform_stops_at_the_cost_ceiling() {
    if !tier::present(Tool::Claude) {
        return;
    }
    // One agent turn of 50k input and 10k output tokens costs far more than $0.01.
    let api = FakeApi::start(Script::new().usage(50_000, 10_000));
    let (code, stderr, result) = run_claude(&api, "0.01");
    assert_eq!(code, Some(2), "{stderr}");
    let result = result.expect("aggregate-result.json written");
    assert_eq!(result["partial"], true);
    assert_eq!(result["partialReason"], "cost_ceiling");
    assert!(result["costUsd"].as_f64().unwrap() > 0.01);
    let runs: usize = result["cases"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["arms"].as_object().unwrap().values())
        .map(|arm| arm.as_array().unwrap().len())
        .sum();
    assert_eq!(runs, 1, "the ceiling is checked before each run: {result}");
}

#[test]
fn real_platform_reports_a_rejected_credential() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let api = FakeApi::start(Script::new().reject_credentials());
    let (code, stderr, result) = run_claude(&api, "1");
    assert_eq!(code, Some(2), "{stderr}");
    let result = result.expect("aggregate-result.json written");
    assert_eq!(result["partial"], true);
    assert_eq!(result["partialReason"], "auth_failed");
    let log = api.requests();
    assert!(
        !log.is_empty() && log.iter().all(|r| r.status == 403),
        "{log:?}"
    );
}
