//! Paying only for what an edit changed, on the real platform tier (real
//! `claude`, fake API): after an edit of the skill only the with arm is
//! bought again (the platform's single-arm mode, `--ablation none`), and the
//! model sees exactly what it saw on the with arm under `with-without`.
//! Model calls are counted at the fake API.

use crate::support;
use support::tier::{self, Tool};

use serde_json::Value;
use std::collections::BTreeMap;
use support::expect::case;
use support::fake_api::{FakeApi, Kind, Recorded, Script};
use support::real::RealWorld;
use support::world::outcome;

const SKILL: &str = "bob-eval-commit:commit";
const FIRES: &str = "Write the commit message";
const QUIET: &str = "what is a pull request";
const GOOD: &str = "fix(hooks): skip the pre-commit hook when only docs change\n\nSkip the hook because docs-only commits do not need lint or tests.";
const BAD: &str = "Skip pre-commit hook for docs-only changes.";
/// Appended to SKILL.md's body: an edit that changes the item's digest, not
/// what the scripted model does.
const EDIT: &str = "\n3. Keep the body to a few lines (edited).\n";

type World = RealWorld;

/// The fixture source and a model that fires the skill on `fires` and
/// answers well only then.
fn world() -> World {
    RealWorld::new(FakeApi::start(
        Script::new()
            .fire_skill(SKILL, FIRES, GOOD)
            .otherwise(BAD)
            .judge_passes_if_contains("Skip the hook because"),
    ))
}

/// What these tests do in a world.
trait Payless {
    fn bob(&self, args: &[&str]) -> (i32, String, String);
    fn run(&self) -> Value;
    fn runs(&self) -> BTreeMap<String, Value>;
    fn edit(&self, path: &str, edit: impl Fn(String) -> String);
}

impl Payless for World {
    fn bob(&self, args: &[&str]) -> (i32, String, String) {
        let mut cmd = self.command(support::cmd::bob(&self.source, &self.home()));
        cmd.args(args);
        outcome(cmd)
    }

    /// `run commit --runs 2`: the document.
    fn run(&self) -> Value {
        let (code, out, err) = self.bob(&["run", "commit", "--runs", "2", "--max-cost-usd", "5"]);
        assert_eq!(code, 0, "{out}\n{err}");
        serde_json::from_str(&out).unwrap()
    }

    /// The exported runs, by id (not the evaluations and decisions after them).
    fn runs(&self) -> BTreeMap<String, Value> {
        let (code, out, err) = self.bob(&["evidence", "export"]);
        assert_eq!(code, 0, "{out}\n{err}");
        out.lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|v| v["kind"].is_null())
            .map(|v| (v["id"].as_str().unwrap().to_string(), v))
            .collect()
    }

    fn edit(&self, path: &str, edit: impl Fn(String) -> String) {
        let path = self.source.join(path);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, edit(text)).unwrap();
    }
}

/// A request body with what differs between two platform runs of the same
/// thing removed: the per-session metadata, the temp folders' random names
/// (the platform's and the assembled plugin's), tool-use ids (the fake's
/// counter), dates, and the skill edit (the Skill tool's result quotes
/// SKILL.md).
fn normalized(r: &Recorded) -> String {
    let mut body = r.body.clone();
    if let Some(o) = body.as_object_mut() {
        o.remove("metadata");
    }
    let text = serde_json::to_string(&body).unwrap().replace(
        &serde_json::to_string(EDIT)
            .unwrap()
            .trim_matches('"')
            .to_string(),
        "",
    );
    let volatile =
        regex::Regex::new(r"(claude-eval|bob-eval-commit(?:-tmp)?)-[A-Za-z0-9]{6}\b|\.tmp[A-Za-z0-9]+|toolu_\w+|\d{4}-\d{2}-\d{2}")
            .unwrap();
    volatile.replace_all(&text, "<v>").into_owned()
}

/// A run's first model turn (no tool result yet): one per agent run.
fn first_turn(r: &Recorded) -> bool {
    !serde_json::to_string(&r.body["messages"])
        .unwrap()
        .contains("tool_result")
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// 2 cases at --runs 2, run once; the skill edited, run again: the second run
/// asks the model for the with arm only, the same requests it made for the
/// with arm the first time; its numbers and the grader flags of its runs are
/// those of the first run. Then an edit of a case re-buys both arms of it,
/// and a later edit of the skill tops up with one fresh run the stored
/// without arm a later evaluation compared again (fires'), not the other.
#[test]
fn after_an_edit_of_the_skill_only_the_with_arm_is_bought() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let w = world();
    let first = w.run();
    let one = w.api.requests();
    let agent = |rs: &[Recorded]| {
        rs.iter()
            .filter(|r| r.kind == Kind::Agent)
            .cloned()
            .collect::<Vec<_>>()
    };
    let judges = |rs: &[Recorded]| rs.iter().filter(|r| r.kind == Kind::Judge).count();
    let (agent1, judge1) = (agent(&one), judges(&one));
    let with1: Vec<Recorded> = agent1
        .iter()
        .filter(|r| r.offers_skill(SKILL))
        .cloned()
        .collect();
    let runs1 = agent1.iter().filter(|r| first_turn(r)).count();
    assert_eq!(runs1, 8, "2 cases × 2 arms × 2 runs");

    w.edit("skills/commit/SKILL.md", |t| format!("{t}{EDIT}"));
    let second = w.run();
    let two: Vec<Recorded> = w.api.requests()[one.len()..].to_vec();
    let (agent2, judge2) = (agent(&two), judges(&two));
    let runs2 = agent2.iter().filter(|r| first_turn(r)).count();
    eprintln!(
        "first run: {} agent calls ({runs1} runs), {judge1} judge calls; after the skill edit: {} agent calls ({runs2} runs), {judge2} judge calls",
        agent1.len(),
        agent2.len()
    );
    assert_eq!(runs2 * 2, runs1, "half the runs: the with arm only");
    assert!(
        agent2.iter().all(|r| r.offers_skill(SKILL)),
        "a request of the second run did not list the skill: a without-arm run was bought"
    );
    // The model saw what it saw on the with arm under with-without: the
    // prompt, the tools, the system prompt and the skills list.
    let (seen2, seen1) = (
        sorted(agent2.iter().map(normalized).collect()),
        sorted(with1.iter().map(normalized).collect()),
    );
    if let Ok(dump) = std::env::var("PAYLESS_DUMP") {
        std::fs::write(format!("{dump}.1"), seen1.join("\n")).unwrap();
        std::fs::write(format!("{dump}.2"), seen2.join("\n")).unwrap();
    }
    assert!(
        seen2 == seen1,
        "the single-arm requests differ from the with arm's under with-without"
    );
    assert_eq!(judge2, 6, "3 votes per fires run with the skill");
    assert_eq!(
        second["reused_runs"], 4,
        "the without arm: 2 cases × 2 runs"
    );
    for key in ["with", "without", "delta", "verdict", "trigger_rate"] {
        assert_eq!(first[key], second[key], "{key}");
    }
    for name in ["fires", "quiet"] {
        let (a, b) = (case(&first, name), case(&second, name));
        for key in ["with", "without", "delta", "graders"] {
            assert_eq!(a[key], b[key], "{name}: {key}");
        }
    }
    // The kept runs: the with arm's graders flagged as under with-without
    // (the trigger grader an unscored indicator), whichever way bought.
    let runs = w.runs();
    let flags = |bought: &str| {
        let mut v: Vec<String> = runs
            .values()
            .filter(|r| r["key"]["arm"] == "with")
            .filter(|r| {
                let by = r["outcome"]["bought_by"].as_str().unwrap();
                by == bought
            })
            .map(|r| {
                format!(
                    "{} {} {}",
                    r["key"]["case"],
                    r["outcome"]["score"],
                    r["outcome"]["graders"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|g| format!(
                            "{}:{}:{}:{}",
                            g["name"], g["passed"], g["scored"], g["with_only"]
                        ))
                        .collect::<Vec<_>>()
                        .join(",")
                )
            })
            .collect();
        v.sort();
        v
    };
    let (a, b) = (
        flags(first["run"].as_str().unwrap()),
        flags(second["run"].as_str().unwrap()),
    );
    assert_eq!(a.len(), 4);
    assert_eq!(a, b);
    assert!(
        a.iter().any(|f| f.contains("\"fires\":true:false:true")),
        "{a:?}"
    );
    let without: Vec<&Value> = runs
        .values()
        .filter(|r| r["key"]["arm"] == "without")
        .collect();
    assert_eq!(without.len(), 4, "no without run was bought twice");
    assert!(without.iter().all(|r| r["key"]["item_digest"] == ""));

    // An edit of a case re-buys both arms of that case, nothing of the other.
    w.edit("evals/commit/quiet/prompt.md", |t| {
        t.replace("pull request?", "pull request (edited)?")
    });
    let before = w.api.requests().len();
    let third = w.run();
    let three: Vec<Recorded> = w.api.requests()[before..].to_vec();
    let agent3 = agent(&three);
    assert_eq!(agent3.len(), 4, "quiet: 2 arms × 2 runs, one turn each");
    assert!(agent3.iter().all(|r| r.user_text().contains(QUIET)));
    assert_eq!(agent3.iter().filter(|r| r.offers_skill(SKILL)).count(), 2);
    assert_eq!(third["reused_runs"], 4, "fires: both arms");
    assert_eq!(case(&third, "quiet")["with"], case(&first, "quiet")["with"]);

    // fires' stored without arm has been compared again (the second run
    // bought fires' with arm beside it): the next edit of the skill renews
    // it with one fresh run beside the with arm, as the dry run says.
    // quiet's, bought by the third run and compared by it alone, is reused
    // as it is.
    w.edit("skills/commit/SKILL.md", |t| format!("{t}{EDIT}"));
    let (code, out, err) = w.bob(&["run", "commit", "--runs", "2", "--dry-run", "--json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let dry: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&dry["top_up"], &dry["buy_runs"]),
        (&1.into(), &5.into()),
        "{dry}"
    );
    let before = w.api.requests().len();
    let (code, out, err) = w.bob(&["run", "commit", "--runs", "2", "--max-cost-usd", "5"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        err.contains("commit: the stored without-arm runs of fires were compared again by an earlier evaluation: 1 fresh one(s) a case renew them (the top-up)"),
        "{err}"
    );
    let fourth: Value = serde_json::from_str(&out).unwrap();
    let four: Vec<Recorded> = w.api.requests()[before..].to_vec();
    let runs4: Vec<Recorded> = agent(&four).into_iter().filter(first_turn).collect();
    let without4: Vec<&Recorded> = runs4.iter().filter(|r| !r.offers_skill(SKILL)).collect();
    assert_eq!(
        (runs4.len(), without4.len()),
        (5, 1),
        "fires: 2 with-arm runs and 1 fresh without-arm run; quiet: 2 with-arm runs"
    );
    assert!(without4[0].user_text().contains(FIRES));
    assert_eq!(
        fourth["reused_runs"], 3,
        "fires: 1 without-arm run, quiet: 2"
    );
    for name in ["fires", "quiet"] {
        let c = case(&fourth, name);
        assert_eq!(c["stats"]["runs_without"], 2, "{c}");
    }
    for key in ["with", "without", "delta"] {
        assert_eq!(first[key], fourth[key], "{key}");
    }
}
