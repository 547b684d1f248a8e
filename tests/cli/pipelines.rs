//! The free test: `run`, `gate`, `exam`, `propose` and `sweep` end to end with
//! only `claude` stubbed. The stub (tests/support/stub.rs) answers `--version`
//! and writes a real platform document (renamed for the plugin it was given)
//! into `--output-dir`; it records its calls so tests can see what ran.

use crate::support;

use serde_json::Value;
use std::process::Command;
use support::cmd::bob;
use support::data::data;
use support::stub::Switches;
use support::world::{self, printed_args};

/// The platform of these tests: every eval prints the ablation line and
/// answers with a capture of the commit item, renamed for the plugin it ran.
fn platform() -> Switches {
    Switches {
        stderr: "Ablation: 2 arms × 2 cases (8 runs)\n".into(),
        ..Switches::answering(data("pipelines/aggregate-result.json"))
    }
}

/// A temp world: a source tree with suites for `items`, a home, and a stub `claude`.
struct World(world::World);

impl std::ops::Deref for World {
    type Target = world::World;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl World {
    /// `bob-eval` in this world (the stub as the platform).
    fn cmd(&self) -> Command {
        self.command(bob(&self.source, &self.home()))
    }

    fn new(items: &[&str]) -> World {
        World::with(items, platform())
    }

    /// A world whose platform stops at the ceiling after one run (exit 2,
    /// `cost_ceiling`), every time.
    fn cut_short() -> World {
        World::with(&["commit"], Switches::at_the_ceiling())
    }

    /// A world whose stub does what `switches` say.
    fn with(items: &[&str], switches: Switches) -> World {
        World(world::World::new(items, switches))
    }

    fn baseline(&self, item: &str) -> Value {
        let text =
            std::fs::read_to_string(self.source.join("evals").join(item).join("baseline.json"))
                .unwrap();
        serde_json::from_str(&text).unwrap()
    }

    fn wiki_rows(&self) -> Vec<String> {
        std::fs::read_to_string(self.source.join("wiki/skill-impact.md"))
            .map(|t| {
                t.lines()
                    .filter(|l| l.starts_with("| 2"))
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn run_gate_and_exam_end_to_end_with_only_claude_stubbed() {
    let w = World::new(&["commit"]);
    let result = w.root.join("commit.json");
    let out = w
        .cmd()
        .args(["run", "commit", "--runs", "1", "--out"])
        .arg(&result)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
    assert_eq!(doc["verdict"], "improved");

    let out = w
        .cmd()
        .arg("gate")
        .arg("commit")
        .arg(&result)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );

    let out = w
        .cmd()
        .args(["exam", "commit", "--runs", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    insta::assert_snapshot!("exam_improved", stdout(&out));
    assert_eq!(
        w.calls().len(),
        1,
        "exam reused the runs `run` bought: the platform ran once"
    );
    assert!(w.calls()[0].contains("--runs 1"), "{:?}", w.calls());
    assert!(w.wiki_rows().is_empty(), "exam never records");
    assert_eq!(
        w.baseline("commit")["best"],
        serde_json::json!({}),
        "exam never records"
    );
}

#[test]
fn exam_json_holds_the_document_and_the_meaning() {
    let w = World::new(&["commit"]);
    let out = w.cmd().args(["exam", "commit", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["result"]["schema"], "skill-eval/1");
    assert_eq!(v["result"]["item"], "commit");
    assert!(
        v["meaning"].as_str().unwrap().starts_with("keeps helping"),
        "{v}"
    );
    // The stub's result scores 1.00 with the item: the suite is saturated;
    // its with arm takes 3 turns on fires against 1: runs clearly dearer.
    let notes = v["notes"].as_array().unwrap();
    assert_eq!(notes.len(), 2, "{v}");
    assert!(
        notes[1]
            .as_str()
            .unwrap()
            .starts_with("efficiency: no clear change in score, 1.50× the cost"),
        "{v}"
    );
    assert!(
        notes[0]
            .as_str()
            .unwrap()
            .starts_with("saturated: with is 1.00"),
        "{v}"
    );
}

/// An exam the ceiling cut short says so in a note that ends with the exam
/// again under a ceiling priced from the store, not a flag to guess at.
#[test]
fn an_exam_cut_short_names_the_exam_that_completes_it() {
    let w = World::cut_short();
    let out = w
        .cmd()
        .args(["exam", "commit", "--json", "--max-cost-usd", "0.01"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let note = v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .find(|n| n.starts_with("partial (cost_ceiling)"))
        .unwrap_or_else(|| panic!("{v}"));
    let command = note
        .split("complete it: bob-eval ")
        .nth(1)
        .and_then(|c| c.split(" (").next())
        .unwrap_or_else(|| panic!("{note}"));
    let args: Vec<&str> = command.split(' ').collect();
    assert_eq!(args[..2], ["exam", "commit"], "{note}");
    let ceiling: f64 = args[args.len() - 1].parse().unwrap();
    assert!(
        ceiling > 0.01 && args[args.len() - 2] == "--max-cost-usd",
        "{note}"
    );
    let again = w.cmd().args(&args).output().unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
}

/// A proposal the ceiling cut short is rejected and names the same proposal
/// (its `--pr` and `--pages` too) under a ceiling that completes it.
#[test]
fn a_proposal_cut_short_names_the_proposal_that_completes_it() {
    let w = World::cut_short();
    let out = w
        .cmd()
        .args([
            "propose",
            "commit",
            "--model",
            "haiku",
            "--pr",
            "#7",
            "--pages",
            "commit-skipped-hook",
            "--max-cost-usd",
            "0.01",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    let args = printed_args(&text, "next: complete it: bob-eval ");
    assert_eq!(
        args[..8],
        [
            "propose",
            "commit",
            "--pr",
            "'#7'",
            "--pages",
            "commit-skipped-hook",
            "--model",
            "haiku"
        ],
        "{args:?}"
    );
    assert!(
        args.windows(2)
            .any(|p| p[0] == "--max-cost-usd" && p[1] != "0.01"),
        "{args:?}"
    );
    // As a shell would pass it: the quotes are the shell's.
    let args: Vec<String> = args
        .iter()
        .map(|a| a.trim_matches('\'').to_string())
        .collect();
    let again = w.cmd().args(&args).output().unwrap();
    assert_eq!(again.status.code(), Some(1), "{}", stderr(&again));
    assert!(
        stdout(&again).starts_with("commit: rejected"),
        "{}",
        stdout(&again)
    );
}

/// A sweep names, for each suite the ceiling cut short, the `run` that
/// completes it: the sweep's own runs, model and ceiling replaced.
#[test]
fn a_sweep_names_the_run_that_completes_a_suite_cut_short() {
    let w = World::cut_short();
    let out = w
        .cmd()
        .args(["sweep"])
        .env("EVALS", "1")
        .env("EVALS_MODEL", "haiku")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("(partial)"), "{}", stdout(&out));
    let err = stderr(&out);
    let args = printed_args(&err, "bob-eval: commit: complete it: bob-eval ");
    assert_eq!(
        args[..6],
        ["run", "commit", "--model", "haiku", "--runs", "1"],
        "{args:?}"
    );
    let again = w.cmd().args(&args).output().unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
}

#[test]
fn exam_without_the_platform_exits_3() {
    let w = World::new(&["commit"]);
    let out = w
        .cmd()
        .args(["exam", "commit"])
        .env("BOB_EVAL_CLAUDE", w.root.join("nope"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("platform"), "{}", stderr(&out));
    let out = w.cmd().args(["exam", "nothing-here"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(w.calls().is_empty());
}

#[test]
fn propose_accepts_then_rejects_an_equal_score_and_records_both() {
    let w = World::new(&["commit"]);
    let propose = |w: &World| {
        w.cmd()
            .args([
                "propose",
                "commit",
                "--rule",
                "bare",
                "--model",
                "haiku",
                "--pr",
                "#4300",
                "--pages",
                "commit-skipped-hook",
            ])
            .output()
            .unwrap()
    };
    let out = propose(&w);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(
        stdout(&out).starts_with("commit: accepted"),
        "{}",
        stdout(&out)
    );
    let best = &w.baseline("commit")["best"]["haiku"];
    assert_eq!(best["score"], 1.0, "{best}");
    assert_eq!(best["trigger_rate"], 1.0, "{best}");
    let rows = w.wiki_rows();
    assert_eq!(rows.len(), 1);
    assert!(
        rows[0].contains("| commit | #4300 |") && rows[0].ends_with("| accepted |"),
        "{rows:?}"
    );

    let out = propose(&w);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(
        stdout(&out).starts_with("commit: rejected"),
        "{}",
        stdout(&out)
    );
    let rows = w.wiki_rows();
    assert_eq!(rows.len(), 2);
    assert!(rows[1].ends_with("| rejected |"), "{rows:?}");
    assert_eq!(
        w.baseline("commit")["best"]["haiku"],
        *best,
        "a reject leaves the baseline"
    );
}

/// A copy of `proposer.rhai` run by `bob-eval script` exits as `propose`
/// does, by its decision's `exit_code` (0 accepted, then 1 for the equal
/// score rejected), which `gate` decides with the same mapping.
#[test]
fn a_copy_of_the_proposer_exits_by_its_decision_as_propose_does() {
    let w = World::new(&["commit"]);
    // The bare rule, as `propose --rule bare` (a script takes no --rule).
    std::fs::create_dir_all(w.home()).unwrap();
    std::fs::write(
        w.home().join("settings.json"),
        r#"{"_workflow":{"gate_rule":"bare"}}"#,
    )
    .unwrap();
    let copy = w.root.join("my-proposer.rhai");
    std::fs::write(
        &copy,
        std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("pipelines/proposer.rhai"),
        )
        .unwrap(),
    )
    .unwrap();
    for (expected, said) in [(0, "commit: accepted"), (1, "commit: rejected")] {
        let out = w
            .cmd()
            .arg("script")
            .arg(&copy)
            .args([
                "commit",
                "--model",
                "haiku",
                "--pr",
                "#4300",
                "--pages",
                "commit-skipped-hook",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(expected), "{}", stderr(&out));
        assert!(stdout(&out).starts_with(said), "{}", stdout(&out));
    }
}

#[test]
fn propose_refuses_bad_pages_before_spending_anything() {
    let w = World::new(&["commit"]);
    let out = w
        .cmd()
        .args(["propose", "commit", "--pr", "#1", "--pages", "no-such-page"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no-such-page"), "{}", stderr(&out));
    assert!(w.calls().is_empty(), "the platform ran: {:?}", w.calls());
    assert!(w.wiki_rows().is_empty());
}

#[test]
fn propose_json_prints_the_decision() {
    let w = World::new(&["commit"]);
    let out = w
        .cmd()
        .args([
            "propose",
            "commit",
            "--rule",
            "bare",
            "--pr",
            "#7",
            "--pages",
            "commit-skipped-hook",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["decision"]["accepted"], true, "{v}");
    assert!(v["decision"]["reasons"].is_array(), "{v}");
    assert_eq!(v["result"]["item"], "commit");
}

#[test]
fn sweep_skips_without_evals() {
    let w = World::new(&["commit"]);
    for value in [None, Some("0"), Some("")] {
        let mut cmd = w.cmd();
        cmd.arg("sweep");
        if let Some(v) = value {
            cmd.env("EVALS", v);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(
            stdout(&out),
            "skipped: set EVALS=1 to run every suite (costs money)\n"
        );
    }
    assert!(w.calls().is_empty());
}

/// `sweep --dry-run` over a large tree: each suite's estimate reaches the
/// command typed (an `Estimate`), so 300 of them never meet a script's map
/// limits, as 300 `estimate` maps did (the pipeline stopped near 200).
#[test]
fn a_dry_run_sweep_of_300_suites_estimates_every_one() {
    let names: Vec<String> = (0..300).map(|i| format!("s{i:03}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let w = World::new(&names);
    let out = w
        .cmd()
        .args(["sweep", "--dry-run", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let estimates: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let items: Vec<&str> = estimates
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["item"].as_str().unwrap())
        .collect();
    assert_eq!(items, names);
    assert!(w.calls().is_empty(), "a dry run buys nothing");
}

#[test]
fn sweep_runs_every_suite_once_with_the_evals_settings() {
    let w = World::new(&["alpha", "beta", "commit"]);
    let out = w
        .cmd()
        .args(["sweep", "--jobs", "2"])
        .env("EVALS", "1")
        .env("EVALS_MODEL", "haiku")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    insta::assert_snapshot!("sweep_three", stdout(&out));
    let calls = w.calls();
    assert_eq!(calls.len(), 3, "{calls:?}");
    for call in &calls {
        assert!(
            call.contains("--max-cost-usd 0.5 ") && call.contains("--model haiku --runs 1"),
            "{call}"
        );
    }
    let out = w
        .cmd()
        .args(["sweep", "--json"])
        .env("EVALS", "1")
        .env("EVALS_MAX_COST_USD", "0.2")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rows: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 3);
    assert_eq!(rows[0]["item"], "alpha");
    assert_eq!(rows[0]["result"]["max_cost_usd"], 0.2);
    assert!(
        w.calls()[3].contains("--max-cost-usd 0.2 "),
        "{:?}",
        w.calls()
    );
    assert!(!w.calls()[3].contains("--model"), "{:?}", w.calls());
    // --model beats EVALS_MODEL.
    let out = w
        .cmd()
        .args(["sweep", "--model", "sonnet"])
        .env("EVALS", "1")
        .env("EVALS_MODEL", "haiku")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let calls = w.calls();
    assert_eq!(calls.len(), 9, "{calls:?}");
    assert!(
        calls[6..].iter().all(|c| c.contains("--model sonnet ")),
        "{calls:?}"
    );
}

#[test]
fn sweep_fails_only_when_a_suite_could_not_run_and_reports_the_others() {
    let w = World::with(
        &["alpha", "beta", "commit"],
        Switches {
            fail_plugin: Some("bob-eval-beta"),
            ..platform()
        },
    );
    let out = w
        .cmd()
        .args(["sweep", "--jobs", "3"])
        .env("EVALS", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("alpha") && text.contains("commit"), "{text}");
    let beta = text.lines().find(|l| l.starts_with("beta ")).unwrap();
    assert!(beta.contains("could not run"), "{text}");
    assert!(text.contains("beta: could not run (exit 3)"), "{text}");
    assert_eq!(text.matches("improved").count(), 2, "{text}");
}

#[test]
fn ctrl_c_during_a_concurrent_sweep_reaches_every_platform_and_exits_130() {
    let w = World::with(
        &["alpha", "beta"],
        Switches {
            mode: Some("wait"),
            ..platform()
        },
    );
    let mut child = w
        .cmd()
        .env("EVALS", "1")
        .args(["sweep", "--jobs", "2"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = |item: &str| w.lines("started").contains(&format!("bob-eval-{item}"));
    // Bounded wait for both platforms to be running.
    for _ in 0..600 {
        if started("alpha") && started("beta") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    if !(started("alpha") && started("beta")) {
        let _ = child.kill();
        panic!("the stub platforms never both started");
    }
    // SAFETY: signalling our own child by PID.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    for item in ["alpha", "beta"] {
        assert!(
            w.lines("signalled").contains(&format!("bob-eval-{item}")),
            "the platform for {item} got the signal: {}",
            stderr(&out)
        );
    }
}

#[test]
fn exam_passes_platform_timeout_to_the_platform_run() {
    let w = World::with(
        &["commit"],
        Switches {
            mode: Some("wait"),
            ..platform()
        },
    );
    let out = w
        .cmd()
        .args(["exam", "commit", "--platform-timeout", "0.5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("did not finish within"),
        "{}",
        stderr(&out)
    );
    assert!(
        w.lines("signalled") == ["bob-eval-commit"],
        "the platform got SIGTERM"
    );
}

/// `$BOB_EVAL_PLATFORM_TIMEOUT` is read from the environment bob-eval was
/// started with, behind `--platform-timeout`: it stops the platform as the
/// flag does, the flag wins over it, and a value that is no timeout is a
/// usage error naming the variable (for a script, when it reads `options()`),
/// before anything is bought.
#[test]
fn the_platform_timeout_variable_is_read_behind_the_flag() {
    let w = World::with(
        &["commit"],
        Switches {
            mode: Some("wait"),
            ..platform()
        },
    );
    let exam = |var: &str, flag: Option<&str>| {
        let mut cmd = w.cmd();
        cmd.env("BOB_EVAL_PLATFORM_TIMEOUT", var)
            .args(["exam", "commit"]);
        if let Some(secs) = flag {
            cmd.args(["--platform-timeout", secs]);
        }
        cmd.output().unwrap()
    };
    let out = exam("0.5", None);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("did not finish within 0.5 s"),
        "{}",
        stderr(&out)
    );
    let out = exam("soon", Some("0.5"));
    assert!(
        stderr(&out).contains("did not finish within 0.5 s"),
        "{}",
        stderr(&out)
    );
    let calls = w.calls().len();
    for bad in ["0", "soon", ""] {
        let out = exam(bad, None);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("BOB_EVAL_PLATFORM_TIMEOUT"),
            "{bad:?}: {}",
            stderr(&out)
        );
    }
    let script = w.root.join("timeout.rhai");
    std::fs::write(&script, "let o = options();\nevaluate(o.item, o);\n").unwrap();
    let out = w
        .cmd()
        .env("BOB_EVAL_PLATFORM_TIMEOUT", "-1")
        .arg("script")
        .arg(&script)
        .arg("commit")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("BOB_EVAL_PLATFORM_TIMEOUT"),
        "{}",
        stderr(&out)
    );
    assert_eq!(w.calls().len(), calls, "nothing bought on a bad variable");
}

/// The document without what depends on the second it was made (`run`, `date`).
fn timeless(mut doc: Value) -> Value {
    let map = doc.as_object_mut().unwrap();
    map.remove("run");
    map.remove("date");
    doc
}

/// `assemble_plugin` → `run_platform` → `reduce` one by one give the document
/// `evaluate` gives, with `--keep` (both folders kept and named) and without.
#[test]
fn the_steps_one_by_one_give_the_document_evaluate_gives() {
    let w = World::new(&["commit"]);
    let script = w.root.join("steps.rhai");
    std::fs::write(
        &script,
        r#"let o = options();
let whole = evaluate(o.item, o);
let plugin = assemble_plugin(o.item, o);
let output = run_platform(plugin);
let steps = reduce(output);
output(to_json([whole, steps]));
"#,
    )
    .unwrap();
    for keep in [false, true] {
        let mut cmd = w.cmd();
        // --fresh: both evaluations buy their runs (else the second reuses the first's).
        cmd.arg("script")
            .arg(&script)
            .args(["commit", "--runs", "1", "--fresh"]);
        if keep {
            cmd.arg("--keep");
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let both: Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(both[0]["verdict"], "improved");
        assert_eq!(
            timeless(both[0].clone()),
            timeless(both[1].clone()),
            "keep {keep}"
        );
        let err = stderr(&out);
        let kept: Vec<&str> = err
            .lines()
            .filter_map(|l| l.strip_prefix("bob-eval: keeping the plugin folder "))
            .collect();
        assert_eq!(kept.len(), if keep { 2 } else { 0 }, "{err}");
        for dir in kept {
            let dir = std::path::Path::new(dir);
            assert!(
                dir.join(".bob-eval/out/aggregate-result.json").is_file(),
                "{dir:?}"
            );
            std::fs::remove_dir_all(dir).unwrap();
        }
    }
    assert_eq!(w.calls().len(), 4, "two evaluations per round, two rounds");
    // Without --fresh the steps reuse what evaluate bought: the same numbers, nothing spent.
    let out = w
        .cmd()
        .arg("script")
        .arg(&script)
        .args(["commit", "--runs", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let both: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(both[1]["cost_usd"], 0.0);
    assert_eq!(both[1]["reused_runs"], 4);
    assert_eq!(both[0]["with"], both[1]["with"]);
    assert_eq!(w.calls().len(), 4, "nothing bought");
}

/// `options()` is handed to a step as the command parsed it, typed: what no
/// `opts` key names (`--min-effect` here) reaches the step, and a
/// value `opts` would refuse is refused where the script sets it, before
/// anything is bought.
#[test]
fn options_reach_a_step_typed_and_a_bad_one_stops_at_its_line() {
    let w = World::new(&["commit"]);
    let script = w.root.join("typed.rhai");
    std::fs::write(
        &script,
        "let o = options();\no.runs = 2;\noutput(to_json([o.runs, o.item, estimate(o.item, o)]));\n",
    )
    .unwrap();
    let out = w
        .cmd()
        .arg("script")
        .arg(&script)
        .args([
            "commit",
            "--runs",
            "auto",
            "--model",
            "haiku",
            "--min-effect",
            "0.3",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(said[0], 2);
    assert_eq!(said[1], "commit");
    assert_eq!(said[2]["price"]["min_effect"], 0.3, "{said}");
    assert!(
        said[2]["auto_max"].is_null(),
        "o.runs = 2 replaced auto: {said}"
    );

    std::fs::write(
        &script,
        "let o = options();\no.runs = 0;\nevaluate(o.item, o);\n",
    )
    .unwrap();
    let calls = w.calls().len();
    let out = w
        .cmd()
        .arg("script")
        .arg(&script)
        .arg("commit")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("typed.rhai:2:") && err.contains("option `runs`"),
        "{err}"
    );
    assert_eq!(w.calls().len(), calls, "nothing bought");
}

/// A plugin runs once: a second `run_platform` on it is a clear error, not a second bill.
#[test]
fn a_plugin_runs_on_the_platform_once() {
    let w = World::new(&["commit"]);
    let script = w.root.join("twice.rhai");
    std::fs::write(
        &script,
        "let o = options();\nlet p = assemble_plugin(o.item, o);\nrun_platform(p);\nrun_platform(p);\n",
    )
    .unwrap();
    let out = w
        .cmd()
        .arg("script")
        .arg(&script)
        .arg("commit")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("already ran"), "{}", stderr(&out));
    assert_eq!(w.calls().len(), 1);
}

/// `propose` without a model records under `default` and warns how to name one.
#[test]
fn propose_under_the_default_model_warns() {
    let w = World::new(&["commit"]);
    let out = w
        .cmd()
        .args([
            "propose",
            "commit",
            "--rule",
            "bare",
            "--pr",
            "#1",
            "--pages",
            "commit-skipped-hook",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("platform's default model"),
        "{}",
        stderr(&out)
    );
}

/// `evidence list` shows what `run` kept, `export` writes it as JSON Lines, and
/// `import` into another store adds it once; a bad line refuses its file.
#[test]
fn evidence_list_export_and_import() {
    let w = World::new(&["commit"]);
    let out = w
        .cmd()
        .args(["run", "commit", "--runs", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = w
        .cmd()
        .args(["evidence", "list", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let list: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let runs: u64 = list
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["runs"].as_u64().unwrap())
        .sum();
    assert_eq!(runs, 8, "{list}");
    let human = w.cmd().args(["evidence", "list"]).output().unwrap();
    assert!(
        stdout(&human).contains("8 run(s) kept in"),
        "{}",
        stdout(&human)
    );

    let out = w
        .cmd()
        .args(["evidence", "export", "commit"])
        .output()
        .unwrap();
    let lines = stdout(&out);
    let kinds: Vec<bool> = lines
        .lines()
        .filter(|l| !l.contains(r#""kind":"transcript""#))
        .map(|l| l.contains(r#""kind":"evaluation""#))
        .collect();
    assert_eq!(kinds.len(), 9, "8 runs, then the evaluation they made");
    let transcripts = lines.lines().skip(9);
    assert!(
        transcripts.clone().count() == 8
            && transcripts
                .clone()
                .all(|l| l.contains(r#""kind":"transcript""#)),
        "then the runs' transcripts: {lines}"
    );
    assert_eq!(kinds.iter().filter(|e| **e).count(), 1);
    assert!(kinds[8], "the evaluation comes after the runs");
    let file = w.root.join("runs.jsonl");
    std::fs::write(&file, &lines).unwrap();
    let other = w.root.join("other.db");
    for added in [8, 0] {
        let out = w
            .cmd()
            .args(["evidence", "import", "--json", "--evidence"])
            .arg(&other)
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(report[0]["added"], added, "{report}");
    }
    let bad = w.root.join("bad.jsonl");
    let mut text: Vec<&str> = lines.lines().collect();
    text.insert(2, "{not json");
    std::fs::write(&bad, text.join("\n")).unwrap();
    let third = w.root.join("third.db");
    let out = w
        .cmd()
        .args(["evidence", "import", "--evidence"])
        .arg(&third)
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("bad.jsonl:3"), "{}", stderr(&out));
    let out = w
        .cmd()
        .args(["evidence", "list", "--json", "--evidence"])
        .arg(&third)
        .output()
        .unwrap();
    assert_eq!(
        stdout(&out).trim(),
        "[]",
        "nothing of a refused file is kept"
    );
}

/// A best measured on another suite is still the best (the rule is unchanged),
/// but `propose` says how the suite changed, in words and in `--json`.
#[test]
fn propose_says_when_the_suite_is_not_the_one_the_best_was_measured_on() {
    let w = World::new(&["commit"]);
    let propose = |extra: &[&str]| {
        w.cmd()
            .args([
                "propose", "commit", "--rule", "bare", "--model", "haiku", "--runs", "1",
            ])
            .args(["--pr", "#1", "--pages", "commit-skipped-hook"])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = propose(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        !stdout(&out).contains("NOTE: the suite"),
        "{}",
        stdout(&out)
    );
    assert!(w.baseline("commit")["best"]["haiku"]["suite_digest"].is_string());

    let prompt = w.source.join("evals/commit/fires/prompt.md");
    let text = std::fs::read_to_string(&prompt).unwrap();
    std::fs::write(&prompt, format!("{text}\nOne more sentence.\n")).unwrap();
    let out = propose(&["--json"]);
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let change = doc["decision"]["suite_change"].as_str().unwrap_or_default();
    assert!(change.contains("changed `fires`"), "{doc}");
    let out = propose(&[]);
    assert!(
        stdout(&out).contains("NOTE: the suite is not the one the best"),
        "{}",
        stdout(&out)
    );
}

/// `sweep` takes the filters, grants and `--runs` of `run` and hands them to
/// the platform for every suite; a filtered sweep's results are partial.
#[test]
fn sweep_passes_filters_grants_and_runs_to_every_suite() {
    let w = World::new(&["alpha", "commit"]);
    let out = w
        .cmd()
        .args(["sweep", "--json", "--case", "fires", "--runs", "2"])
        .args(["--allow-tools", "Write", "--disallow-tools", "Agent"])
        .env("EVALS", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let calls = w.calls();
    assert_eq!(calls.len(), 2, "{calls:?}");
    for call in &calls {
        assert!(
            call.contains("--runs 2 --case fires --allow-tools Write --disallow-tools Agent"),
            "{call}"
        );
    }
    let rows: Value = serde_json::from_str(&stdout(&out)).unwrap();
    for row in rows.as_array().unwrap() {
        assert_eq!(row["result"]["partial_reason"], "filtered", "{row}");
    }
}

#[test]
fn exam_and_a_scripts_opts_report_save_the_platform_report() {
    let html = "<!doctype html><title>stub report</title>\n";
    let w = World::with(
        &["commit"],
        Switches {
            report: Some(html),
            ..platform()
        },
    );
    let report = w.root.join("exam.html");
    let out = w
        .cmd()
        .args(["exam", "commit", "--fresh", "--report"])
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&report).unwrap(), html);

    // A script names its own report: written under the results folder only.
    let script = w.root.join("keep-report.rhai");
    std::fs::write(
        &script,
        "let o = options();\no.report = \"reports/commit.html\";\nlet r = evaluate(o.item, o);\noutput(r.verdict);\n",
    )
    .unwrap();
    let out = w
        .cmd()
        .args(["script"])
        .arg(&script)
        .args(["commit", "--fresh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let kept = w.source.join("results/reports/commit.html");
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), html);

    std::fs::write(
        &script,
        "let o = options();\no.report = \"../escaped.html\";\nevaluate(o.item, o);\n",
    )
    .unwrap();
    let out = w
        .cmd()
        .args(["script"])
        .arg(&script)
        .arg("commit")
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("option `report`"), "{}", stderr(&out));
    assert!(!w.source.join("escaped.html").exists());
}

#[test]
fn exam_and_propose_call_a_grader_that_threw_an_error_of_the_suite() {
    let mut doc: Value =
        serde_json::from_slice(&std::fs::read(data("pipelines/aggregate-result.json")).unwrap())
            .unwrap();
    for run in doc["cases"][0]["arms"]["with"].as_array_mut().unwrap() {
        let why = run["graders"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|g| g["name"] == "why")
            .unwrap();
        why["passed"] = false.into();
        why["explanation"] = "grader threw: judge call failed: API Error: 500".into();
    }
    let w = World::with(
        &["commit"],
        Switches {
            fixture: Some(serde_json::to_vec(&doc).unwrap()),
            ..platform()
        },
    );
    let out = w.cmd().args(["exam", "commit"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("note: suite error: case fires, grader why threw instead of judging (grader threw: judge call failed: API Error: 500): its scores measure the suite, not the item"),
        "{}",
        stdout(&out)
    );
    let out = w
        .cmd()
        .args([
            "propose",
            "commit",
            "--pr",
            "#7",
            "--pages",
            "commit-skipped-hook",
        ])
        .output()
        .unwrap();
    assert!(
        stdout(&out).contains("SUITE ERROR: case fires, grader why threw instead of judging (grader threw: judge call failed: API Error: 500)"),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
}

#[test]
fn runs_auto_reaches_the_platform_from_exam_propose_and_sweep() {
    // The stub answers every call with the whole capture, which holds 2 runs
    // per arm of each case; what is checked is that each command drives the
    // rounds: 2 runs per arm (auto:2 looks once, at 2), for both cases in
    // one call, as both ask the same.
    for args in [
        &["exam", "commit", "--runs", "auto:2"][..],
        &[
            "propose",
            "commit",
            "--rule",
            "bare",
            "--runs",
            "auto:2",
            "--pr",
            "#9",
            "--pages",
            "commit-skipped-hook",
        ],
        &["sweep", "--runs", "auto:2"],
    ] {
        let w = World::new(&["commit"]);
        let out = w.cmd().args(args).env("EVALS", "1").output().unwrap();
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {text}");
        assert!(
            text.contains("commit: runs auto: round 1: 2 more run(s) per arm of fires, quiet"),
            "{args:?}: {text}"
        );
        assert!(
            text.contains("commit: runs auto: stopped after"),
            "{args:?}: {text}"
        );
        // One call buys the round: the whole suite, 2 runs per arm.
        let calls = w.calls();
        assert_eq!(calls.len(), 1, "{args:?}: {calls:?}");
        assert!(calls[0].ends_with("--runs 2"), "{args:?}: {calls:?}");
        assert!(!calls[0].contains("--case"), "{args:?}: {calls:?}");
    }
}
