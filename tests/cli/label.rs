//! `bob-eval label`: stored runs of an llm grader labelled through a file
//! (export, fill in, import) and in a terminal (under `script(1)`), the
//! labels file beside the grader, stale labels after a criterion edit.

use crate::support;

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};
use support::cmd::bob;
use support::data::data;
use support::stub::Switches;
use support::world::{World, outcome, succeeds};

const CRITERION: &str = "The commit message body states the reason for the change (why the hook is skipped), not only what changed.";

const LABELS: &str = "source/evals/commit/fires/graders/why.labels.json";

/// The source fixture with the capture's llm grader `why` added, and the
/// capture's runs (two with, judged PASS; two without, judged FAIL) stored.
fn world() -> World {
    let world = World::copy_of(
        &data("source"),
        Switches::answering(data("platform/split-votes.json")),
    );
    world.write(
        "evals/commit/fires/graders/why.md",
        &format!("---\ntype: llm\n---\n{CRITERION}\n"),
    );
    succeeds(args(&world, &["run", "commit"]));
    world
}

/// `bob-eval ARGS…` in `world`.
fn args(world: &World, args: &[&str]) -> Command {
    let mut cmd = world.command(base(world));
    cmd.args(args);
    cmd
}

fn base(world: &World) -> Command {
    bob(&world.source, &world.home())
}

fn label(world: &World, args: &[&str]) -> (i32, String, String) {
    outcome({
        let mut cmd = world.command(base(world));
        cmd.arg("label").arg("commit").args(args);
        cmd
    })
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The truth a careful person sees: the answer says why.
fn truth(saw: &str) -> &'static str {
    if saw.contains("because") {
        "pass"
    } else {
        "fail"
    }
}

/// Fill every line of the batch `file` with `answer(saw)`.
fn fill(file: &std::path::Path, answer: impl Fn(&str) -> &'static str) {
    let text = std::fs::read_to_string(file).unwrap();
    let filled: Vec<String> = text
        .lines()
        .map(|l| {
            let mut e = json(l);
            let human = answer(e["saw"].as_str().unwrap());
            e["human"] = human.into();
            e.to_string()
        })
        .collect();
    std::fs::write(file, filled.join("\n") + "\n").unwrap();
}

#[test]
fn export_fill_import_writes_the_labels_file_beside_the_grader() {
    let world = world();
    let batch = world.root.join("batch.jsonl");
    let (code, out, err) = label(&world, &["--export", batch.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let report = json(&out);
    assert_eq!(report["exported"], 4, "{report}");
    let text = std::fs::read_to_string(&batch).unwrap();
    let lines: Vec<Value> = text.lines().map(json).collect();
    assert_eq!(lines.len(), 4);
    for e in &lines {
        assert_eq!(e["grader"], "why");
        assert_eq!(e["criterion"], CRITERION);
        assert_eq!(e["human"], "");
        // Nothing in the batch gives the judge's verdict away.
        for key in ["judge", "passed", "votes", "explanation", "run"] {
            assert!(e.get(key).is_none(), "{key} in {e}");
        }
    }
    // The first draws cover both arms (the judge passed one, failed the other).
    let arms: Vec<&str> = lines[..2]
        .iter()
        .map(|e| e["arm"].as_str().unwrap())
        .collect();
    assert!(
        arms.contains(&"with") && arms.contains(&"without"),
        "{arms:?}"
    );

    // The person disagrees with the judge on one run: a with run it passed.
    let first_with = lines.iter().position(|e| e["arm"] == "with").unwrap();
    fill(&batch, truth);
    let text = std::fs::read_to_string(&batch).unwrap();
    let mut filled: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut e = json(&filled[first_with]);
    e["human"] = "FAIL".into();
    filled[first_with] = e.to_string();
    std::fs::write(&batch, filled.join("\n") + "\n").unwrap();

    let (code, out, err) = label(
        &world,
        &["--import", batch.to_str().unwrap(), "--json", "--by", "ana"],
    );
    assert_eq!(code, 0, "{err}");
    let report = json(&out);
    assert_eq!(report["import"]["added"], 4, "{report}");
    assert_eq!(report["import"]["skipped"], 0, "{report}");
    let why = &report["graders"][0];
    assert_eq!(
        (why["labels"].as_u64(), why["unlabelled"].as_u64()),
        (Some(4), Some(0))
    );
    // PASS by the person: 1 (the judge agreed); FAIL: 3 (the judge agreed on 2).
    assert_eq!(why["need"]["pass"]["labels"], 1, "{why}");
    assert_eq!(why["need"]["fail"]["labels"], 3, "{why}");
    assert_eq!(why["need"]["fail"]["agreed"], 2, "{why}");
    assert_eq!(why["need"]["reached"], false);
    assert_eq!(
        why["more_labels"],
        Value::Null,
        "2 of 3 cannot reach 0.80: {why}"
    );

    let file = json(&std::fs::read_to_string(world.root.join(LABELS)).unwrap());
    assert!(
        bob_eval::schema::labels_violations(&file).is_empty(),
        "{file}"
    );
    assert_eq!(file["grader"], "why");
    let labels = file["labels"].as_array().unwrap();
    assert_eq!(labels.len(), 4);
    for l in labels {
        // The judge's verdict as stored: PASS on the with arm, FAIL without.
        let judge = if l["arm"] == "with" { "pass" } else { "fail" };
        assert_eq!(l["judge"], judge, "{l}");
        assert_eq!(l["by"], "ana");
    }
    assert_eq!(
        labels.iter().filter(|l| l["human"] != l["judge"]).count(),
        1
    );

    // Everything is labelled: a new batch is empty; the human status says so.
    let (code, out, _) = label(&world, &["--export", batch.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0);
    assert_eq!(json(&out)["exported"], 0);
    let (code, out, err) = label(&world, &["--dry-run"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("grader `why` of case `fires`: 4 label(s)"),
        "{out}"
    );
    assert!(out.contains("not calibrated"), "{out}");
    assert!(out.contains("judge agreed on 2 (TNR 0.67"), "{out}");

    // Labelling kept the stored runs reusable: runs bought now are keyed
    // under the same case digest as before the labels file.
    let digests = |world: &World| -> std::collections::BTreeSet<String> {
        let out = succeeds(args(world, &["evidence", "export", "commit"]));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(json)
            .filter(|l| l["key"]["case"] == "fires")
            .map(|l| l["key"]["case_digest"].as_str().unwrap().to_owned())
            .collect()
    };
    let before = digests(&world);
    assert_eq!(before.len(), 1);
    succeeds(args(&world, &["run", "commit"]));
    assert_eq!(
        digests(&world),
        before,
        "the labels file changed the case's key"
    );
}

#[test]
fn an_edited_criterion_makes_the_labels_stale() {
    let world = world();
    let batch = world.root.join("batch.jsonl");
    succeeds({
        let mut c = world.command(base(&world));
        c.args(["label", "commit", "--export", batch.to_str().unwrap()]);
        c
    });
    fill(&batch, truth);
    succeeds({
        let mut c = world.command(base(&world));
        c.args(["label", "commit", "--import", batch.to_str().unwrap()]);
        c
    });
    world.write(
        "evals/commit/fires/graders/why.md",
        &format!("---\ntype: llm\n---\n{CRITERION} It names the folder.\n"),
    );
    let (code, out, err) = label(&world, &["--dry-run", "--json"]);
    assert_eq!(code, 0, "{err}");
    let report = json(&out);
    assert_eq!(report["stale"], 4, "{report}");
    assert_eq!(report["graders"][0]["labels"], 0);
    // With no labels, a judge that always agrees needs 16 of each class:
    // 32 labels, 16 minutes at 30 s a label.
    assert_eq!(report["graders"][0]["more_labels"], 32, "{report}");
    assert_eq!(report["graders"][0]["minutes"], 16, "{report}");
    let (code, _, err) = label(&world, &["--dry-run"]);
    assert_eq!(code, 0);
    assert!(
        err.contains("4 labels were given for an earlier criterion; label again"),
        "{err}"
    );
    // The old batch imports as stale answers: kept, not counted.
    let (code, out, err) = label(&world, &["--import", batch.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    // The case changed, so its runs are an earlier version's: not offered again,
    // but the batch's answers for them are found and kept stale (labelled already).
    let report = json(&out);
    assert_eq!(report["import"]["added"], 0, "{report}");
    assert_eq!(report["import"]["dropped"], 4, "{report}");
    assert_eq!(report["graders"][0]["labels"], 0, "{report}");
    assert_eq!(report["other_version"], 4, "{report}");
}

#[test]
fn bad_batches_are_refused_naming_the_line() {
    let world = world();
    let batch = world.root.join("batch.jsonl");
    let (code, _, err) = label(&world, &["--export", batch.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&batch).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut e = json(&lines[1]);
    e["human"] = "looks fine".into();
    lines[1] = e.to_string();
    std::fs::write(&batch, lines.join("\n") + "\n").unwrap();
    let (code, _, err) = label(&world, &["--import", batch.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("batch.jsonl:2: `human` is \"looks fine\""),
        "{err}"
    );
    assert!(!world.root.join(LABELS).exists());

    let mut e = json(&lines[0]);
    e["entry"] = "e0000000000000000".into();
    e["human"] = "pass".into();
    lines[0] = e.to_string();
    lines[1] = lines[2].clone();
    std::fs::write(&batch, lines[..2].join("\n") + "\n").unwrap();
    let (code, _, err) = label(&world, &["--import", batch.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("batch.jsonl:1: entry e0000000000000000"),
        "{err}"
    );

    let (code, _, err) = label(&world, &["--grader", "subject", "--dry-run"]);
    assert_eq!(code, 2);
    assert!(err.contains("the judged graders are why"), "{err}");
    let (code, _, err) = label(&world, &[]);
    assert_eq!(code, 2, "not a terminal");
    assert!(err.contains("--export FILE"), "{err}");
}

#[test]
fn check_leaves_a_labels_file_alone() {
    let world = world();
    let before = outcome({
        let mut c = world.command(base(&world));
        c.args(["check", "commit"]);
        c
    });
    world.write(
        "evals/commit/fires/graders/why.labels.json",
        "{\"format\":\"bob-eval-labels/1\",\"grader\":\"why\",\"criterion_digest\":\"sha256:0000000000000000000000000000000000000000000000000000000000000000\",\"labels\":[]}\n",
    );
    let after = outcome({
        let mut c = world.command(base(&world));
        c.args(["check", "commit"]);
        c
    });
    assert_eq!(before.0, after.0);
    assert!(
        !after.1.contains("labels.json") && !after.2.contains("labels.json"),
        "{after:?}"
    );
}

/// `bob-eval label` under `script(1)`: typed answers go in through the
/// terminal, one at a time.
fn in_terminal(world: &World, transcript: &std::path::Path) -> std::process::Child {
    let mut cmd = world.command(base(world));
    cmd.args(["label", "commit"]);
    support::pty::in_a_terminal(&cmd, transcript)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script(1) from util-linux")
}

fn labels_in(world: &World) -> usize {
    std::fs::read_to_string(world.root.join(LABELS))
        .map(|t| json(&t)["labels"].as_array().unwrap().len())
        .unwrap_or(0)
}

/// Wait (at most 20 s) until the labels file holds `n` labels.
fn wait_for(world: &World, n: usize) {
    for _ in 0..200 {
        if labels_in(world) >= n {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("the labels file never held {n} labels");
}

#[test]
fn the_terminal_flow_saves_each_answer_and_resumes_after_quit_and_ctrl_c() {
    let world = world();
    let transcript = world.root.join("typescript");
    // Answer one run, skip one, quit.
    let mut child = in_terminal(&world, &transcript);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"p\n").unwrap();
    wait_for(&world, 1);
    stdin.write_all(b"maybe\ns\nq\n").unwrap();
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    let screen = std::fs::read_to_string(&transcript).unwrap();
    assert_eq!(out.status.code(), Some(0), "{screen}");
    assert_eq!(labels_in(&world), 1);
    assert!(screen.contains("What the judge saw:"), "{screen}");
    assert!(screen.contains(CRITERION), "{screen}");
    assert!(
        screen.contains("answer p (pass), f (fail), s (skip) or q (quit)"),
        "{screen}"
    );
    // The judge's verdict comes only after the answer.
    let asked = screen.find("Does it meet the criterion?").unwrap();
    let said = screen.find("the judge said").unwrap();
    assert!(asked < said, "{screen}");
    assert!(
        screen.contains("stopped; every answer so far is saved"),
        "{screen}"
    );

    // Again: the labelled run is not offered; one answer, then Ctrl-C.
    let mut child = in_terminal(&world, &transcript);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"f\n").unwrap();
    wait_for(&world, 2);
    stdin.write_all(b"\x03").unwrap();
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    let screen = std::fs::read_to_string(&transcript).unwrap();
    assert!(screen.contains("── 1/3 "), "three runs left: {screen}");
    assert_ne!(out.status.code(), Some(0), "{screen}");
    assert_eq!(labels_in(&world), 2, "the answer before Ctrl-C is kept");
    let leftovers: Vec<_> = std::fs::read_dir(world.root.join("source/evals/commit/fires/graders"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn run_dry_run_states_the_calibration_in_a_persons_time() {
    let world = World::copy_of(
        &data("source"),
        Switches::answering(data("platform/split-votes.json")),
    );
    let (code, _, err) = outcome(args(&world, &["run", "commit", "--dry-run"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        !err.contains("calibration:"),
        "no llm grader, nothing to say: {err}"
    );
    world.write(
        "evals/commit/fires/graders/why.md",
        &format!("---\ntype: llm\n---\n{CRITERION}\n"),
    );
    let (code, out, err) = outcome(args(&world, &["run", "commit", "--dry-run", "--json"]));
    assert_eq!(code, 0, "{err}");
    json(&out);
    assert!(
        err.contains("calibration: 1 llm grader(s) not calibrated (`why` of `fires`): about 32 more label(s), ≈ 16 min of a person's time at 30 s a label; `bob-eval label commit`"),
        "{err}"
    );
}
