//! What may enter the evidence store, through the binary on the stub
//! platform: only files bob-eval set aside for this store are stored as
//! bought (a forged one is refused, named and left in place; a FIFO or a
//! link to /dev/zero there never blocks nor exhausts a command, and SIGTERM
//! still ends it with 130); a shard's runs dated in the future are refused by
//! `collect`; an imported decision never displaces one recorded here; a bad
//! line kept by an earlier version is named while `history` shows the rest;
//! and the read-only commands leave an older store byte for byte as it was.

use crate::support;

use bob_eval::evidence::StoredRun;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};
use support::cmd::bob;
use support::data::data;
use support::stub::Switches;
use support::world::World;

fn world(switches: Switches) -> World {
    World::new(&["commit", "tidy"], switches)
}

fn answering() -> Switches {
    Switches::answering(data("pipelines/aggregate-result.json"))
}

fn bob_in(w: &World, args: &[&str]) -> (i32, String, String) {
    let mut cmd = w.command(bob(&w.source, &w.home()));
    cmd.env("EVALS", "1").args(args);
    support::world::outcome(cmd)
}

fn store(w: &World) -> PathBuf {
    w.home().join("evidence.db")
}

fn pending(w: &World) -> PathBuf {
    w.home().join("evidence.db.pending")
}

/// Runs stored, by provenance kind.
fn bought(w: &World) -> u64 {
    let (code, out, err) = bob_in(w, &["evidence", "list", "--json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str::<Value>(&out)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["provenance"]["bought"].as_u64().unwrap())
        .sum()
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) on a path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// The runs of `export`, each made to look better and newer than the one it
/// copies, under its own valid id: what a forger without the store's key can write.
fn forged(export: &str) -> String {
    export
        .lines()
        .filter(|l| !l.contains(r#""kind":"#))
        .map(|l| {
            let run = StoredRun::from_line(l).unwrap();
            let mut outcome = run.outcome;
            outcome.score = 1.0;
            outcome.passed = true;
            outcome.started_at += chrono::TimeDelta::seconds(1);
            outcome.bought_by = "eval-commit-20261201T000000Z".into();
            StoredRun::new(run.key, outcome).to_line() + "\n"
        })
        .collect()
}

#[test]
fn a_forged_file_set_aside_is_refused_named_and_left_in_place() {
    let w = world(answering());
    let (code, out, err) = bob_in(&w, &["run", "commit", "--runs", "2"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let genuine: Value = serde_json::from_str(&out).unwrap();
    let (_, export, _) = bob_in(&w, &["evidence", "export"]);
    std::fs::create_dir_all(pending(&w)).unwrap();
    let file = pending(&w).join("eval-commit-20261201T000000Z.jsonl");
    std::fs::write(&file, forged(&export)).unwrap();
    let calls = w.calls().len();

    let (code, out, err) = bob_in(&w, &["run", "commit", "--runs", "2"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        err.contains(&format!("refused {}", file.display())) && err.contains("left in place"),
        "{err}"
    );
    assert!(err.contains("carries no tag of this store"), "{err}");
    assert!(file.is_file(), "left in place");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["with"], genuine["with"], "made from the genuine runs");
    assert_eq!(doc["reused_runs"], 8);
    assert_eq!(w.calls().len(), calls, "nothing bought: all reused");
    assert_eq!(bought(&w), 8, "the forged runs are not stored");
}

/// Wait (at most 30 s) for the stub to start waiting; end `child` and fail on time out.
fn wait_started(w: &World, child: &mut std::process::Child) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while w.stub.record("started").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the platform never started: a writer blocked on the side folder");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// SIGTERM to `child`, then its exit code (within 30 s).
fn terminate(child: &mut std::process::Child) -> Option<i32> {
    // SAFETY: kill(2) on our own child, not reaped yet.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("bob-eval did not exit within 30 s of SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_fifo_or_a_device_set_aside_never_blocks_and_sigterm_still_ends_the_run() {
    let w = world(Switches {
        mode: Some("wait"),
        ..answering()
    });
    // Planted before the command starts: a FIFO and a link to /dev/zero.
    std::fs::create_dir_all(pending(&w)).unwrap();
    mkfifo(&pending(&w).join("a.jsonl"));
    std::os::unix::fs::symlink("/dev/zero", pending(&w).join("b.jsonl")).unwrap();
    let mut child = w
        .command(bob(&w.source, &w.home()))
        .args(["run", "commit", "--runs", "2"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_started(&w, &mut child);
    // Planted while it runs: another FIFO.
    mkfifo(&pending(&w).join("c.jsonl"));
    assert_eq!(terminate(&mut child), Some(130));
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(
        err.contains("a.jsonl: not a file bob-eval set aside (it is a FIFO"),
        "{err}"
    );
    assert!(
        err.contains("b.jsonl: not a file bob-eval set aside (it is a symlink"),
        "{err}"
    );
    for name in ["a.jsonl", "b.jsonl", "c.jsonl"] {
        assert!(
            std::fs::symlink_metadata(pending(&w).join(name)).is_ok(),
            "{name} is left in place"
        );
    }
}

#[test]
fn collect_refuses_a_shard_run_dated_in_the_future() {
    let w = world(answering());
    let dir = w.path("shard-1");
    let mut cmd = w.command(bob(&w.source, &w.root.join("home-1")));
    cmd.env("EVALS", "1")
        .args(["sweep", "--shard", "1/1", "--runs", "2", "--out-dir", &dir]);
    let (code, out, err) = support::world::outcome(cmd);
    assert_eq!(code, 0, "{out}\n{err}");
    let runs = Path::new(&dir).join("runs.jsonl");
    let text = std::fs::read_to_string(&runs).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let first = StoredRun::from_line(&lines[0]).unwrap();
    let mut outcome = first.outcome;
    outcome.started_at = "2999-01-01T00:00:00Z".parse().unwrap();
    lines[0] = StoredRun::new(first.key, outcome).to_line();
    std::fs::write(&runs, lines.join("\n") + "\n").unwrap();
    let (code, out, err) = bob_in(&w, &["collect", &dir]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(err.contains("runs.jsonl:1"), "{err}");
    assert!(err.contains("in the future"), "{err}");
    assert!(!store(&w).exists(), "nothing is collected");
}

/// A decision as an export line, its outcome and time recorded given.
fn decision_line(run: &str, outcome: &str, recorded_at: &str) -> String {
    serde_json::json!({
        "schema": "bob-eval-evidence/1",
        "kind": "decision",
        "record": {
            "run": run, "item": "commit", "model": "default", "date": &recorded_at[..10],
            "mode": "rule", "rule": [], "outcome": outcome, "pr": "#9", "pages": [],
            "before": null, "after": 1.0, "best_after": 1.0, "recorded_at": recorded_at
        }
    })
    .to_string()
        + "\n"
}

#[test]
fn an_imported_decision_never_displaces_the_one_recorded_here_and_bad_lines_are_named() {
    let w = world(answering());
    let result = w.path("result.json");
    let (code, out, err) = bob_in(&w, &["run", "commit", "--runs", "2", "--out", &result]);
    assert_eq!(code, 0, "{out}\n{err}");
    let run_id = serde_json::from_str::<Value>(&std::fs::read_to_string(&result).unwrap()).unwrap()
        ["run"]
        .as_str()
        .unwrap()
        .to_string();
    // Recorded here: rejected, under a best it does not beat.
    let baseline = w.source.join("evals/commit/baseline.json");
    std::fs::write(
        &baseline,
        r#"{"schema": "skill-eval-baseline/1", "item": "commit", "best": {"default": {"score": 1.0, "without": 0.0, "run": "eval-commit-20261101T000000Z", "date": "2026-11-01"}}}"#,
    )
    .unwrap();
    let (code, out, err) = bob_in(
        &w,
        &[
            "gate",
            "commit",
            &result,
            "--record",
            "--pr",
            "#1",
            "--pages",
            "commit-skipped-hook",
        ],
    );
    assert_eq!(code, 1, "rejected: {out}\n{err}");
    // Imported: accepted, one dated 2999 and one dated now.
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let file = w.path("decisions.jsonl");
    std::fs::write(
        &file,
        decision_line(&run_id, "accepted", "2999-01-01T00:00:00Z")
            + decision_line(&run_id, "accepted", &now).as_str(),
    )
    .unwrap();
    let (code, out, err) = bob_in(&w, &["evidence", "import", &file]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(err.contains("refused the decision at"), "{err}");
    assert!(err.contains("decisions.jsonl:1"), "{err}");
    assert!(err.contains("1 decision(s), 1 added"), "{err}");
    // An evaluation with a trigger rate of 2.0, a malformed date or a
    // confidence of 1.5: each refused, named by its line, nothing stored.
    let (_, export, _) = bob_in(&w, &["evidence", "export"]);
    let line = export
        .lines()
        .find(|l| l.contains(r#""kind":"evaluation""#))
        .unwrap();
    let mut bad = Vec::new();
    for (path, value) in [
        ("trigger_rate", serde_json::json!(2.0)),
        ("date", serde_json::json!("2026-13-45")),
        ("started_at", serde_json::json!("2999-01-01T00:00:00Z")),
    ] {
        let mut v: Value = serde_json::from_str(line).unwrap();
        v["record"][path] = value;
        v["record"]["run"] = format!("eval-commit-forged-{path}").into();
        bad.push(v.to_string());
    }
    let mut v: Value = serde_json::from_str(line).unwrap();
    v["record"]["stats"]["confidence"] = 1.5.into();
    v["record"]["run"] = "eval-commit-forged-confidence".into();
    bad.push(v.to_string());
    let evaluations = w.path("evaluations.jsonl");
    std::fs::write(&evaluations, bad.join("\n") + "\n").unwrap();
    let (code, out, err) = bob_in(&w, &["evidence", "import", &evaluations]);
    assert_eq!(code, 0, "{out}\n{err}");
    for (n, why) in [
        (1, "trigger_rate 2"),
        (2, "not a date"),
        (3, "in the future"),
        (4, "stats.confidence 1.5"),
    ] {
        let said = err
            .lines()
            .find(|l| l.contains(&format!("evaluations.jsonl:{n} (not stored): ")))
            .unwrap_or_else(|| panic!("{n}: {err}"));
        assert!(said.contains(why), "{n}: {said}");
    }
    assert!(err.contains("0 evaluation(s), 0 added"), "{err}");

    let (code, out, err) = bob_in(&w, &["history", "commit", "--json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let h: Value = serde_json::from_str(&out).unwrap();
    let point = &h["items"][0]["series"][0]["points"][0];
    assert_eq!(point["run"], run_id.as_str());
    assert_eq!(point["decision"]["outcome"], "rejected", "{point:#}");
    assert!(point["decision"].get("imported").is_none(), "{point:#}");

    // A bad line from an earlier version: named, the rest shown, the JSON valid.
    let conn = rusqlite::Connection::open(store(&w)).unwrap();
    conn.execute("UPDATE evaluations SET trigger_rate = 2.0", [])
        .unwrap();
    drop(conn);
    let (code, out, err) = bob_in(&w, &["history", "--json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(err.contains("holds a bad line"), "{err}");
    assert!(
        err.contains(&format!(
            "evaluation {run_id} (item `commit`) is left out: trigger_rate 2"
        )),
        "{err}"
    );
    let h: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(h["warnings"].as_array().unwrap().len(), 1, "{h:#}");
    let (code, out, err) = bob_in(&w, &["history"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("commit"), "{out}");
}

/// The file's bytes and its schema version.
fn snapshot(path: &Path) -> (Vec<u8>, i64) {
    let version =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap()
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
    (std::fs::read(path).unwrap(), version)
}

#[test]
fn read_only_commands_leave_an_older_store_byte_for_byte() {
    let w = world(answering());
    let (code, out, err) = bob_in(&w, &["run", "commit", "--runs", "2"]);
    assert_eq!(code, 0, "{out}\n{err}");
    // As schema 5 left it: no key, no provenance of evaluations and decisions.
    let conn = rusqlite::Connection::open(store(&w)).unwrap();
    conn.execute_batch(
        "DROP TABLE store_key; \
         ALTER TABLE evaluations DROP COLUMN provenance; \
         ALTER TABLE decisions DROP COLUMN provenance; \
         PRAGMA user_version = 5; PRAGMA wal_checkpoint(TRUNCATE);",
    )
    .unwrap();
    drop(conn);
    let before = snapshot(&store(&w));
    assert_eq!(before.1, 5);
    for args in [
        &["history"][..],
        &["history", "--json"],
        &["evidence", "list"],
        &["evidence", "export"],
        &["check", "commit"],
        &["run", "commit", "--runs", "2", "--dry-run"],
        &["run", "commit", "--runs", "2", "--neighbours", "--dry-run"],
        &["exam", "commit", "--runs", "2", "--dry-run"],
        &["sweep", "--runs", "2", "--dry-run"],
    ] {
        let (code, out, err) = bob_in(&w, args);
        assert_eq!(code, 0, "{args:?}: {out}\n{err}");
        assert!(snapshot(&store(&w)) == before, "{args:?} changed the store");
    }
    // The dry run read the old store as it is: every run is reused.
    let (_, out, _) = bob_in(&w, &["run", "commit", "--runs", "2", "--dry-run"]);
    assert!(out.contains("0 run(s) to buy, 8 reused"), "{out}");
    // A command that writes it upgrades it.
    let (code, out, err) = bob_in(&w, &["run", "commit", "--runs", "2"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(snapshot(&store(&w)).1, bob_eval::evidence::SCHEMA_VERSION);
}
