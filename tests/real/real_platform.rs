//! The real-platform tier of `bob-eval run`: the built binary runs the real
//! `claude plugin eval` (see `support::real::claude_bin`) against the fake Messages
//! API, on a copy of `tests/data/real-source`. Every expected number is derived
//! from what the scripted model was told to do, as each test explains.
//!
//! The fixture suite `evals/commit`:
//! - `fires` ("Write the commit message …"): `fires` (tool_used Skill, a with-only
//!   indicator, not scored), `subject` (regex: a conventional subject line) and
//!   `why` (llm: the body gives the reason; three judge votes).
//! - `quiet` ("In one sentence, what is a pull request?"): `quiet` (tool_used
//!   Skill, `min: 0`, `max: 0`, `arm: both`: scored on both arms, passes when the
//!   skill did not fire).

use crate::support;
use support::tier::{self, Tool};

use serde_json::Value;
use std::path::PathBuf;
use support::cmd::bob;
use support::data::data;
use support::expect::case;
use support::fake_api::{FakeApi, Kind, Recorded, Script};
use support::real::{claude_bin, platform_env, source_copy};
use support::world::printed_args;

/// The skill as the plugin bob-eval assembles names it.
const SKILL: &str = "bob-eval-commit:commit";
/// Only the `fires` prompt holds it.
const FIRES_PROMPT: &str = "Write the commit message";
/// Only the `quiet` prompt holds it.
const QUIET_PROMPT: &str = "what is a pull request";
/// What the model answers once the skill is loaded: a conventional subject and a body
/// that gives the reason.
const GOOD: &str = "fix(hooks): skip the pre-commit hook when only docs change\n\nSkip the hook because docs-only commits do not need lint or tests.";
/// What it answers without the skill: no conventional subject, no reason.
const BAD: &str = "Skip pre-commit hook for docs-only changes.";
/// The judge votes PASS exactly when the text under judgment holds this (only GOOD does).
const REASON: &str = "Skip the hook because";
/// The `subject` grader's pattern (tests/data/real-source/evals/commit/fires/graders/subject.md).
const SUBJECT: &str = r"(?m)^(feat|fix|docs|refactor|test|chore)(\([\w-]+\))?: .{1,72}$";
/// Runs per case and arm in these tests.
const RUNS: u64 = 2;
const MODEL: &str = "claude-sonnet-5-5";
const JUDGE: &str = "claude-haiku-5-5";

/// The model that fires the skill on the commit prompt and writes GOOD after it
/// loaded; BAD otherwise.
fn firing_model() -> Script {
    Script::new()
        .fire_skill(SKILL, FIRES_PROMPT, GOOD)
        .otherwise(BAD)
        .judge_passes_if_contains(REASON)
}

/// The premise every expectation below stands on: GOOD passes `subject` and the
/// judge, BAD fails both.
#[test]
fn scripted_answers_meet_the_graders_as_intended() {
    let subject = regex::Regex::new(SUBJECT).unwrap();
    assert!(subject.is_match(GOOD) && GOOD.contains(REASON));
    assert!(!subject.is_match(BAD) && !BAD.contains(REASON));
    let why =
        std::fs::read_to_string(data("real-source/evals/commit/fires/graders/why.md")).unwrap();
    assert!(
        !why.contains(REASON),
        "the judge marker must not be in the criteria the judge is shown"
    );
}

/// One `bob-eval run` in its own temp folder.
struct Run {
    dir: tempfile::TempDir,
    source: PathBuf,
    home: PathBuf,
    out: PathBuf,
    output: std::process::Output,
}

impl Run {
    /// `bob-eval --source <copy> --home <empty> run commit --claude <real> --out <file> ARGS`
    /// with the offline platform environment, from inside the temp folder.
    fn new(api: &FakeApi, args: &[&str]) -> Self {
        Self::with_home(api, args, None)
    }

    /// The same, with `settings` written as the home's settings.json.
    fn with_home(api: &FakeApi, args: &[&str], settings: Option<&str>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let source = source_copy(dir.path());
        let home = dir.path().join("bob-home");
        std::fs::create_dir_all(&home).unwrap();
        if let Some(settings) = settings {
            std::fs::write(home.join("settings.json"), settings).unwrap();
        }
        let out = dir.path().join("result.json");
        let output = bob(&source, &home)
            .args(["run", "commit", "--claude"])
            .arg(claude_bin())
            .arg("--out")
            .arg(&out)
            .args(args)
            .current_dir(dir.path())
            .env_clear()
            .envs(platform_env(api, dir.path()))
            .output()
            .unwrap();
        Self {
            dir,
            source,
            home,
            out,
            output,
        }
    }

    /// `bob-eval ARGS` in the same source, home, folder and environment:
    /// a command this run printed, followed.
    fn follow(&self, api: &FakeApi, args: &[&str]) -> std::process::Output {
        bob(&self.source, &self.home)
            .args(args)
            .current_dir(self.dir.path())
            .env_clear()
            .envs(platform_env(api, self.dir.path()))
            .output()
            .unwrap()
    }

    fn code(&self) -> Option<i32> {
        self.output.status.code()
    }

    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    /// The written skill-eval/1 document, checked against the schema.
    fn document(&self) -> Value {
        assert_eq!(
            self.code(),
            Some(0),
            "bob-eval run failed:\n{}",
            self.stderr()
        );
        let bytes = std::fs::read(&self.out).expect("--out written");
        let doc: Value = serde_json::from_slice(&bytes).unwrap();
        bob_eval::schema::validate_skill_eval(&doc, camino::Utf8Path::new("result.json")).unwrap();
        assert!(
            self.output.stdout.is_empty(),
            "with --out nothing goes to stdout"
        );
        doc
    }
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Agent turns whose prompt holds `prompt`.
fn turns<'a>(log: &'a [Recorded], prompt: &str) -> Vec<&'a Recorded> {
    log.iter()
        .filter(|r| r.kind == Kind::Agent && r.user_text().contains(prompt))
        .collect()
}

/// The common shape of a finished document.
fn assert_header(doc: &Value, ceiling: f64) {
    assert_eq!(doc["schema"], "skill-eval/1");
    assert_eq!(doc["item"], "commit");
    assert_eq!(doc["model"], MODEL);
    assert_eq!(num(&doc["max_cost_usd"]), ceiling);
    let run = doc["run"].as_str().unwrap();
    let stamp = run
        .strip_prefix("eval-commit-")
        .expect("run is eval-<item>-<stamp>-<suffix>");
    assert!(
        regex::Regex::new(r"^\d{8}T\d{6}\.\d{6}Z-[0-9a-f]{8}$")
            .unwrap()
            .is_match(stamp),
        "{run}"
    );
    let date = doc["date"].as_str().unwrap();
    assert_eq!(
        date.replace('-', ""),
        stamp[..8],
        "date is the day the run started"
    );
}

/// The skill fires on the with arm and its answer passes both graders; the
/// without arm's answer fails both; the quiet prompt never fires it.
/// fires: with 1 (subject + why pass; the indicator is not scored), without 0
/// → delta 1. quiet: the `arm: both` grader passes on both arms → 1, 1, delta 0.
/// Suite: with mean(1, 1) = 1, without mean(0, 1) = 0.5, delta 0.5, improved.
/// trigger_rate: fires indicator passes 2/2, quiet passes 2/2 → 1.0.
#[test]
fn skill_that_fires_improves_the_with_arm() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let api = FakeApi::start(firing_model());
    let run = Run::new(
        &api,
        &[
            "--runs",
            "2",
            "--max-cost-usd",
            "1",
            "--model",
            MODEL,
            "--judge-model",
            JUDGE,
        ],
    );
    let doc = run.document();
    assert_header(&doc, 1.0);
    assert_eq!(doc["partial"], false);
    assert!(doc.get("partial_reason").is_none());
    assert_eq!(num(&doc["with"]), 1.0);
    assert_eq!(num(&doc["without"]), 0.5);
    assert_eq!(num(&doc["delta"]), 0.5);
    assert_eq!(doc["verdict"], "improved");
    assert_eq!(num(&doc["trigger_rate"]), 1.0);
    assert!(num(&doc["cost_usd"]) > 0.0);

    let fires = case(&doc, "fires");
    assert_eq!(num(&fires["with"]), 1.0);
    assert_eq!(num(&fires["without"]), 0.0);
    assert_eq!(num(&fires["delta"]), 1.0);
    assert_eq!(fires["verdict"], "improved");
    assert_eq!(num(&fires["trigger_rate"]), 1.0);
    assert_eq!(fires["runs"], 2 * RUNS);
    assert!(num(&fires["cost_usd"]) > 0.0);
    let quiet = case(&doc, "quiet");
    assert_eq!(num(&quiet["with"]), 1.0);
    assert_eq!(num(&quiet["without"]), 1.0);
    assert_eq!(num(&quiet["delta"]), 0.0);
    assert_eq!(quiet["verdict"], "no-signal");
    assert_eq!(num(&quiet["trigger_rate"]), 1.0);
    assert_eq!(quiet["runs"], 2 * RUNS);
    assert_eq!(doc["cases"].as_array().unwrap().len(), 2);

    // What reached the fake: the model asked for, everywhere.
    let log = api.requests();
    let agent: Vec<_> = log.iter().filter(|r| r.kind == Kind::Agent).collect();
    assert!(!agent.is_empty());
    assert!(
        agent.iter().all(|r| r.model.as_deref() == Some(MODEL)),
        "--model reached the fake"
    );
    let judges: Vec<_> = log.iter().filter(|r| r.kind == Kind::Judge).collect();
    assert_eq!(
        judges.len() as u64,
        3 * 2 * RUNS,
        "three votes per llm grader, per fires run, both arms"
    );
    assert!(
        judges.iter().all(|r| r.model.as_deref() == Some(JUDGE)),
        "--judge-model reached the fake"
    );
    // With arm, fires: the Skill call, then the answer after its result, both
    // offering the skill. Without arm: one turn that does not offer it.
    let fires_turns = turns(&log, FIRES_PROMPT);
    assert_eq!(
        fires_turns.iter().filter(|r| r.offers_skill(SKILL)).count() as u64,
        2 * RUNS
    );
    assert_eq!(
        fires_turns
            .iter()
            .filter(|r| !r.offers_skill(SKILL))
            .count() as u64,
        RUNS
    );
    // Quiet: one turn per run on each arm; only the with arm offers the skill.
    let quiet_turns = turns(&log, QUIET_PROMPT);
    assert_eq!(
        quiet_turns.iter().filter(|r| r.offers_skill(SKILL)).count() as u64,
        RUNS
    );
    assert_eq!(
        quiet_turns
            .iter()
            .filter(|r| !r.offers_skill(SKILL))
            .count() as u64,
        RUNS
    );
    // The skill was fired once per with-arm fires run and nowhere else: the
    // without arm never offered it.
    let fired = log
        .iter()
        .filter(|r| r.reply.starts_with("tool_use Skill"))
        .count() as u64;
    assert_eq!(fired, RUNS);
    assert_eq!(agent.len() as u64, 2 * RUNS + RUNS + 2 * RUNS);
}

/// The model never fires the skill and answers BAD everywhere.
/// fires: with 0 (both graders fail), without 0 → delta 0; its indicator fails
/// on every run. quiet: 1, 1. Suite: with 0.5, without 0.5, delta 0,
/// no-signal; trigger_rate: 0 on fires + 1 on quiet = 0.5.
///
/// Bought under `--runs auto --min-effect 0.4`: every arm is pinned (all 0
/// or all 1), so auto gives up once runs this unanimous are unlikely under
/// a change of the minimum effect. A change of 0.4 needs the fires with
/// arm and the quiet without arm 0.4 off their ends (or the mirror), which
/// leaves n runs of each all at their ends a chance of 0.6²ⁿ: 0.047 at the
/// first look's 3 runs per arm, below the futility threshold of 0.1. So
/// one round of 3 runs per arm, what the fixed runs this test once bought
/// cost.
#[test]
fn skill_that_never_fires_shows_in_the_trigger_rate_and_auto_gives_up_on_it_exactly() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let api = FakeApi::start(
        Script::new()
            .otherwise(BAD)
            .judge_passes_if_contains(REASON),
    );
    let run = Run::new(
        &api,
        &[
            "--runs",
            "auto",
            "--min-effect",
            "0.4",
            "--max-cost-usd",
            "1",
            "--model",
            MODEL,
        ],
    );
    let doc = run.document();
    assert_header(&doc, 1.0);
    assert_eq!(doc["partial"], false);
    assert_eq!(num(&doc["with"]), 0.5);
    assert_eq!(num(&doc["without"]), 0.5);
    assert_eq!(num(&doc["delta"]), 0.0);
    assert_eq!(doc["verdict"], "no-signal");
    assert_eq!(num(&doc["trigger_rate"]), 0.5);
    let fires = case(&doc, "fires");
    assert_eq!(num(&fires["with"]), 0.0);
    assert_eq!(num(&fires["without"]), 0.0);
    assert_eq!(num(&fires["trigger_rate"]), 0.0);
    let quiet = case(&doc, "quiet");
    assert_eq!(num(&quiet["with"]), 1.0);
    assert_eq!(num(&quiet["trigger_rate"]), 1.0);
    let stderr = run.stderr();
    let auto = &doc["stats"]["auto"];
    assert_eq!(
        (auto["rounds"].as_u64(), auto["stop"].as_str()),
        (Some(1), Some("more runs would most likely not settle it")),
        "{stderr}"
    );
    for c in [&fires, &quiet] {
        assert_eq!(c["runs"], 2 * 3, "{c}");
    }
    // One agent turn a run, two cases, two arms, 3 runs each: the skill is
    // on offer on the with arm, and the model never takes it.
    let log = api.requests();
    assert_eq!(api.requests_of(Kind::Agent).len(), 2 * 2 * 3, "{stderr}");
    assert!(
        turns(&log, FIRES_PROMPT)
            .iter()
            .any(|r| r.offers_skill(SKILL))
    );
    assert!(!log.iter().any(|r| r.reply.starts_with("tool_use")));
}

/// 50k input and 10k output tokens per agent turn cost far more than a $0.01
/// ceiling, and the platform checks the ceiling before each run: exactly one
/// run happens (fires, with arm), the platform stops with `cost_ceiling`, and
/// `run` still completes. In that run the skill fires and GOOD passes `subject`,
/// but the paid `why` grader is skipped past the ceiling and counts as failed:
/// with 0.5; there is no without run to compare.
#[test]
fn cost_ceiling_gives_a_partial_result() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let api = FakeApi::start(firing_model().usage(50_000, 10_000));
    let run = Run::new(
        &api,
        &["--runs", "2", "--max-cost-usd", "0.01", "--model", MODEL],
    );
    let doc = run.document();
    assert_header(&doc, 0.01);
    assert_eq!(doc["partial"], true);
    assert_eq!(doc["partial_reason"], "cost_ceiling");
    assert!(num(&doc["cost_usd"]) > 0.01, "{doc}");
    let runs: u64 = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["runs"].as_u64().unwrap())
        .sum();
    assert_eq!(runs, 1, "{doc}");

    // It names the command that completes it; followed, that command buys
    // the missing runs under the ceiling it priced and the result is whole.
    let stderr = run.stderr();
    let args = printed_args(&stderr, "next: complete it: bob-eval ");
    let ceiling: f64 = args[args.len() - 1].parse().unwrap();
    assert!(ceiling > 0.01, "{args:?}");
    // The gate, reading the file alone, names the same completion: the
    // flags the document records, at the same price.
    let out = run.out.to_str().unwrap();
    let gated = run.follow(&api, &["gate", "commit", out]);
    let text = String::from_utf8_lossy(&gated.stdout);
    let gate_args = printed_args(&text, "next: complete it: bob-eval ");
    for flag in [["--runs", "2"], ["--model", MODEL], ["--out", out]] {
        assert!(
            gate_args.windows(2).any(|p| p == flag),
            "{flag:?} in {gate_args:?}"
        );
    }
    assert_eq!(
        gate_args[gate_args.len() - 1],
        args[args.len() - 1],
        "{gate_args:?}\n{args:?}"
    );
    let done = run.follow(&api, &args);
    let err = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(0), "{err}");
    let whole = run.document();
    assert_eq!(whole["partial"], false, "{args:?}\n{err}\n{whole}");
    assert!(num(&whole["cost_usd"]) <= ceiling, "{whole}");
}

/// The credential is refused on every call: the platform ends `auth_failed`,
/// `run` exits 3 naming it, and writes nothing.
#[test]
fn rejected_credential_is_exit_3_and_no_document() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let api = FakeApi::start(Script::new().reject_credentials());
    let run = Run::new(
        &api,
        &["--runs", "2", "--max-cost-usd", "1", "--model", MODEL],
    );
    assert_eq!(run.code(), Some(3), "{}", run.stderr());
    assert!(!run.out.exists(), "no document on failure");
    assert!(run.output.stdout.is_empty());
    let stderr = run.stderr().to_lowercase();
    assert!(
        stderr.contains("auth") || stderr.contains("credential"),
        "{stderr}"
    );
    assert!(!api.requests().is_empty(), "the platform did call the fake");
}

/// Without `--model`, the home's settings.json `model` is what runs (contracts.md
/// "Model"), and it is the model the document records. (Not the platform's
/// default agent model, claude-opus-5-5, so the fake can tell them apart.)
#[test]
fn model_from_settings_reaches_the_platform() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let api = FakeApi::start(firing_model());
    let run = Run::with_home(
        &api,
        &["--runs", "1", "--max-cost-usd", "1"],
        Some(r#"{"model": "claude-haiku-5-5"}"#),
    );
    let doc = run.document();
    assert_eq!(doc["model"], "claude-haiku-5-5");
    let agent = api.requests_of(Kind::Agent);
    assert!(!agent.is_empty());
    assert!(
        agent
            .iter()
            .all(|r| r.model.as_deref() == Some("claude-haiku-5-5"))
    );
}
