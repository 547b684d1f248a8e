//! Where stored runs come from, end to end with only `claude` stubbed:
//! imported runs are counted in the document and not accepted on without
//! `--trust-imported` (gate and propose); `evidence import` refuses runs
//! dated in the future or with impossible values and counts them per reason;
//! runs bought while another writer holds the store are kept beside it,
//! the document still written, and stored the next time.

use crate::support;

use bob_eval::evidence::{Store, StoredRun};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::cmd::bob;
use support::data::data;
use support::stub::Switches;
use support::world;

/// A source tree with the commit item, a home, a stub platform answering with
/// a capture of 2 cases × 2 arms.
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

    fn new() -> World {
        World(world::World::new(
            &["commit"],
            Switches {
                stderr: "Ablation: 2 arms × 2 cases (8 runs)\n".into(),
                ..Switches::answering(data("pipelines/aggregate-result.json"))
            },
        ))
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().unwrap()
    }

    /// Platform eval calls so far.
    fn calls(&self) -> usize {
        self.stub
            .record("calls")
            .unwrap_or_default()
            .lines()
            .filter(|c| *c != "--version")
            .count()
    }

    fn store(&self) -> PathBuf {
        self.root.join("home/evidence.db")
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `evidence list --json` of `store`, its provenance counts summed.
fn provenance(w: &World, store: &str) -> Value {
    let out = w.run(&["evidence", "list", "--json", "--evidence", store]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let list: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let mut sum = serde_json::json!({"bought": 0, "imported": 0, "collected": 0, "legacy": 0});
    for e in list.as_array().unwrap() {
        for (kind, n) in e["provenance"].as_object().unwrap() {
            sum[kind] = (sum[kind].as_u64().unwrap() + n.as_u64().unwrap()).into();
        }
    }
    sum
}

#[test]
fn imported_runs_are_counted_and_accepted_on_only_with_trust_imported() {
    let w = World::new();
    let out = w.run(&["run", "commit", "--runs", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let home = w.store().to_str().unwrap().to_owned();
    assert_eq!(provenance(&w, &home)["bought"], 8);
    let export = w.run(&["evidence", "export", "commit"]);
    std::fs::write(w.path("runs.jsonl"), stdout(&export)).unwrap();

    // Another store holds only the imported runs.
    let other = w.path("other.db");
    let out = w.run(&[
        "evidence",
        "import",
        "--evidence",
        &other,
        &w.path("runs.jsonl"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        provenance(&w, &other),
        serde_json::json!({"bought": 0, "imported": 8, "collected": 0, "legacy": 0})
    );
    let human = w.run(&["evidence", "list", "--evidence", &other]);
    let text = stdout(&human);
    assert!(text.contains("8 imported"), "{text}");
    assert!(text.contains("--trust-imported"), "{text}");

    let result = w.path("result.json");
    let out = w.run(&[
        "run",
        "commit",
        "--runs",
        "1",
        "--evidence",
        &other,
        "--out",
        &result,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(w.calls(), 1, "every run came from the store");
    let doc = json(&result);
    // 2 cases × 2 arms × 1 run used, of the 8 kept.
    assert_eq!(doc["imported_runs"], 4, "{doc}");
    assert_eq!(doc["reused_runs"], 0, "imported runs are not reused ones");
    assert_eq!(doc["verdict"], "improved");

    let exam = w.run(&["exam", "commit", "--runs", "1", "--evidence", &other]);
    assert_eq!(exam.status.code(), Some(0), "{}", stderr(&exam));
    assert!(
        stdout(&exam).contains(
            "; 4 runs imported from files (the gate accepts on them only with --trust-imported)"
        ),
        "{}",
        stdout(&exam)
    );
    let gate = w.run(&["gate", "commit", &result]);
    assert_eq!(gate.status.code(), Some(1), "{}", stdout(&gate));
    assert!(
        stdout(&gate).contains("✗ 4 of its runs were imported from a file"),
        "{}",
        stdout(&gate)
    );
    let gate = w.run(&["gate", "commit", &result, "--format", "json"]);
    let decision: Value = serde_json::from_str(&stdout(&gate)).unwrap();
    assert_eq!(decision["conditions"][1]["name"], "bought-here");
    assert_eq!(decision["conditions"][1]["status"], "fail");
    let gate = w.run(&["gate", "commit", &result, "--trust-imported"]);
    assert_eq!(gate.status.code(), Some(0), "{}", stdout(&gate));
    assert!(stdout(&gate).contains("under --trust-imported"));

    // A script's gate trusts imported runs only on the operator's flag.
    let script = w.path("trust.rhai");
    std::fs::write(
        &script,
        "let o = options();\nlet r = evaluate(o.item, o);\nlet d = gate(r);\noutput(`${o.trust_imported} ${d.accepted} ${r.imported_runs}`);\n",
    )
    .unwrap();
    for (extra, said) in [
        (None, "false false 4"),
        (Some("--trust-imported"), "true true 4"),
    ] {
        let mut args = vec![
            "script",
            &script,
            "commit",
            "--runs",
            "1",
            "--evidence",
            &other,
        ];
        args.extend(extra);
        let out = w.run(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(stdout(&out).trim(), said);
    }

    // propose: rejected and recorded so; accepted only when the operator trusts.
    let propose = |extra: &[&str]| {
        let mut args = vec![
            "propose",
            "commit",
            "--rule",
            "bare",
            "--runs",
            "1",
            "--evidence",
            &other,
        ];
        args.extend(["--pr", "#1", "--pages", "commit-skipped-hook"]);
        args.extend(extra);
        w.run(&args)
    };
    let out = propose(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("4 of its runs were imported"),
        "{}",
        stdout(&out)
    );
    let baseline = w.source.join("evals/commit/baseline.json");
    let best = |p: &Path| {
        std::fs::read_to_string(p)
            .map(|t| serde_json::from_str::<Value>(&t).unwrap()["best"].clone())
            .unwrap_or(Value::Null)
    };
    assert!(
        best(&baseline).as_object().is_none_or(|b| b.is_empty()),
        "nothing raised: {}",
        best(&baseline)
    );
    let out = propose(&["--trust-imported"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(
            "NOTE: 4 of its runs were imported from a file, counted under --trust-imported"
        ),
        "{}",
        stdout(&out)
    );
    assert!(
        best(&baseline)["default"]["score"].is_number(),
        "{}",
        best(&baseline)
    );
    assert_eq!(w.calls(), 1, "nothing bought");
}

#[test]
fn import_refuses_future_and_impossible_runs_and_counts_them_per_reason() {
    let w = World::new();
    let out = w.run(&["run", "commit", "--runs", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (transcripts, lines): (Vec<String>, Vec<String>) =
        stdout(&w.run(&["evidence", "export", "commit"]))
            .lines()
            .map(str::to_owned)
            .partition(|l| l.contains(r#""kind":"transcript""#));
    assert_eq!(lines.len(), 9, "8 runs, then the evaluation they made");
    assert_eq!(transcripts.len(), 8, "and a transcript per run");
    assert!(lines[8].contains(r#""kind":"evaluation""#), "{}", lines[8]);
    // A run dated 2999 (its id recomputed, as a forger would) and one costing 1e308.
    let mut future = StoredRun::from_line(&lines[0]).unwrap();
    future.outcome.started_at = "2999-01-01T00:00:00Z".parse().unwrap();
    let future = StoredRun::new(future.key, future.outcome).to_line();
    let mut costly: Value = serde_json::from_str(&lines[1]).unwrap();
    costly["outcome"]["cost_usd"] = serde_json::json!(1e308);
    let costly = costly.to_string();
    let file = w.path("forged.jsonl");
    let text = [future.as_str(), costly.as_str(), &lines[2], &lines[3]].join("\n");
    std::fs::write(&file, text).unwrap();
    let other = w.path("other.db");

    let out = w.run(&["evidence", "import", "--json", "--evidence", &other, &file]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let r = &report[0];
    assert_eq!(
        (r["runs"].clone(), r["added"].clone(), r["refused"].clone()),
        (4.into(), 2.into(), 2.into()),
        "{r}"
    );
    let reasons: Vec<(&str, u64, u64)> = r["refusals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["reason"].as_str().unwrap(),
                x["runs"].as_u64().unwrap(),
                x["first_line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(reasons, [("future", 1, 1), ("cost", 1, 2)], "{r}");
    assert_eq!(provenance(&w, &other)["imported"], 2);

    let third = w.path("third.db");
    let out = w.run(&["evidence", "import", "--evidence", &third, &file]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("4 run(s): 2 added, 0 already kept, 2 refused"),
        "{err}"
    );
    assert!(
        err.contains("refused 1 run(s) dated in the future: first at"),
        "{err}"
    );
    assert!(
        err.contains("forged.jsonl:1: started_at 2999-01-01T00:00:00Z"),
        "{err}"
    );
    assert!(
        err.contains("refused 1 run(s) with an impossible cost"),
        "{err}"
    );
    assert!(err.contains("1e308"), "{err}");
}

/// `w`'s evidence store, created, and a connection holding its write lock
/// until it commits: the store "busy" as another writer leaves it.
fn held(w: &World) -> (std::path::PathBuf, rusqlite::Connection) {
    let store = w.store();
    Store::open(store.to_str().unwrap().into()).unwrap();
    let holder = rusqlite::Connection::open(&store).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    (store, holder)
}

#[test]
fn runs_bought_while_the_store_is_held_are_kept_beside_it_and_stored_next_time() {
    let w = World::new();
    let (store, holder) = held(&w);

    let result = w.path("result.json");
    let out = w
        .cmd()
        .env("BOB_EVIDENCE_WAIT", "1")
        .args(["run", "commit", "--runs", "1", "--out", &result])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("is busy (another bob-eval is writing it): waited "),
        "{err}"
    );
    assert!(
        err.contains(" s of 1.0 s to keep the runs just bought"),
        "{err}"
    );
    // The evaluation waits too, and the message says it is the evaluation.
    assert!(
        err.contains(" s of 1.0 s to keep the evaluation, then it is kept beside it"),
        "{err}"
    );
    let pending = w.root.join("home/evidence.db.pending");
    assert!(
        err.contains(&format!("are kept in {}", pending.display())),
        "{err}"
    );
    let doc = json(&result);
    assert_eq!(
        doc["verdict"], "improved",
        "the document is still written: {doc}"
    );
    assert_eq!(doc["reused_runs"], 0);
    let files: Vec<PathBuf> = std::fs::read_dir(&pending)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().unwrap().to_str().unwrap();
    assert_eq!(name, format!("{}.jsonl", doc["run"].as_str().unwrap()));
    let kept = std::fs::read_to_string(&files[0]).unwrap();
    assert_eq!(
        kept.lines().count(),
        10,
        "8 runs, then the evaluation, then the store's tag"
    );
    let lines: Vec<&str> = kept.lines().collect();
    assert!(lines[8].contains(r#""kind":"evaluation""#), "{kept}");
    assert!(
        lines[9].starts_with(r#"{"schema":"bob-eval-pending/1","tag":""#),
        "{kept}"
    );
    let stored: i64 = holder
        .query_row("SELECT count(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stored, 0);
    holder.execute_batch("COMMIT").unwrap();
    drop(holder);

    // The next writer stores them (as bought here) and uses them.
    let again = w.path("again.json");
    let out = w.run(&["run", "commit", "--runs", "1", "--out", &again]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("stored the 8 run(s) kept aside in"), "{err}");
    assert!(err.contains(", and 1 evaluation(s)"), "{err}");
    assert_eq!(w.calls(), 1, "nothing bought twice");
    assert_eq!(json(&again)["reused_runs"], 4, "2 cases × 2 arms × 1 run");
    assert!(!pending.exists());
    assert_eq!(
        provenance(&w, store.to_str().unwrap()),
        serde_json::json!({"bought": 8, "imported": 0, "collected": 0, "legacy": 0})
    );
}

#[test]
fn the_price_counts_the_without_arm_runs_kept_aside_while_the_store_was_held() {
    let w = World::new();
    let (_, holder) = held(&w);
    let out = w
        .cmd()
        .env("BOB_EVIDENCE_WAIT", "0.2")
        .args(["run", "commit", "--runs", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    holder.execute_batch("COMMIT").unwrap();
    drop(holder);
    // The next auto run stores them before it prices: its first line counts
    // the without-arm runs kept aside, as its purchase does.
    let out = w.run(&["run", "commit", "--runs", "auto"]);
    let err = stderr(&out);
    let first = err.lines().next().unwrap_or_default();
    assert!(first.contains("detecting +0.20 at 80 % power"), "{err}");
    assert!(
        first.contains(", 4 stored without-arm run(s) counted and not bought again"),
        "{err}"
    );
    assert!(err.contains("stored the 8 run(s) kept aside in"), "{err}");
    assert!(
        err.contains("runs auto: 4 stored without-arm run(s) count"),
        "{err}"
    );
}

#[test]
fn a_bad_evidence_wait_is_refused_before_anything_runs() {
    let w = World::new();
    for bad in ["-1", "x", "3601"] {
        let out = w
            .cmd()
            .env("BOB_EVIDENCE_WAIT", bad)
            .args(["run", "commit", "--runs", "1"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("BOB_EVIDENCE_WAIT"),
            "{}",
            stderr(&out)
        );
    }
    assert_eq!(w.calls(), 0);
}
