//! Fault injection: a stub platform that fails in every way tests/cli/run_stub.rs
//! does not already cover, each run end to end and followed by
//! `gate --record` on the (missing) result. Every fault must give the exit
//! code of contracts.md, write no document, and leave the source tree —
//! `baseline.json`, the wiki — byte for byte as it was.

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::cmd::bob;
use support::data::data;
use support::stub::{Stub, Switches};
use support::world::World;

/// A world (testkit's) on a writable copy of the fixture source tree with a
/// wiki pattern page and an empty wiki table, and an empty working folder
/// (`work/`) beside the source and the home.
fn tree() -> World {
    let tree = World::copy_of(&data("source"), Switches::default());
    tree.write(
        "wiki/patterns/commit-skipped-hook.md",
        "# Commit messages that skip hooks\n",
    );
    tree.write(
        "wiki/skill-impact.md",
        "# Skill impact\n\n| date | item |\n| --- | --- |\n",
    );
    fs::create_dir_all(tree.work()).unwrap();
    tree
}

/// What these tests do in a world.
trait Faults {
    fn work(&self) -> PathBuf;
    fn out(&self) -> PathBuf;
    fn cmd(&self) -> Command;
    fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)>;
    fn fault(&self, stub: &Stub, extra: &[&str], code: i32) -> String;
}

impl Faults for World {
    /// The working folder, where the commands run.
    fn work(&self) -> PathBuf {
        self.root.join("work")
    }

    fn out(&self) -> PathBuf {
        self.work().join("result.json")
    }

    /// `bob-eval --source <tree> --home <empty>`, run in the working folder,
    /// which is also its TMPDIR (what `--keep` keeps goes with it).
    fn cmd(&self) -> Command {
        let mut cmd = bob(&self.source, &self.home());
        support::world::in_folder(&mut cmd, &self.work());
        cmd
    }

    /// Every file under the source tree with its bytes (but the recorders' lock
    /// file, which `gate --record` may leave behind, empty, by design).
    fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        fn walk(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
            let mut entries: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap()).collect();
            entries.sort_by_key(|e| e.file_name());
            for e in entries {
                if e.file_type().unwrap().is_dir() {
                    walk(&e.path(), out);
                } else if e.file_name() != ".skill-impact.lock" {
                    out.push((e.path(), fs::read(e.path()).unwrap()));
                }
            }
        }
        let mut out = vec![];
        walk(&self.source, &mut out);
        out
    }

    /// `run commit` on `stub` with `--out`, then `gate --record` on that path:
    /// the run exits `code` and writes nothing; the gate finds no result (exit 2);
    /// the source tree is unchanged. Returns the run's stderr.
    fn fault(&self, stub: &Stub, extra: &[&str], code: i32) -> String {
        let before = self.snapshot();
        let out = self
            .cmd()
            .args(["run", "commit", "--claude"])
            .arg(&stub.bin)
            .args(extra)
            .arg("--out")
            .arg(self.out())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(code), "run stderr: {stderr}");
        assert!(out.stdout.is_empty(), "a document reached stdout");
        assert!(!self.out().exists(), "a document was written on failure");
        let leftovers: Vec<_> = fs::read_dir(self.work())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(
            leftovers.is_empty(),
            "left in the working folder: {leftovers:?}"
        );

        let gate = self
            .cmd()
            .args(["gate", "commit"])
            .arg(self.out())
            .args(["--record", "--pr", "#1", "--pages", "commit-skipped-hook"])
            .output()
            .unwrap();
        let gate_err = String::from_utf8_lossy(&gate.stderr);
        assert_eq!(gate.status.code(), Some(2), "gate stderr: {gate_err}");
        assert!(gate_err.contains("result.json"), "{gate_err}");
        assert!(
            self.snapshot() == before,
            "the source tree (baseline.json, wiki) changed"
        );
        stderr
    }
}

/// The first half of a real platform document.
fn truncated() -> String {
    let text = fs::read_to_string(data("platform/run1_main.json")).unwrap();
    text[..text.len() / 2].to_string()
}

/// A real platform document whose plugin is another one than `bob-eval-commit`.
fn other_plugin() -> String {
    let text = fs::read_to_string(data("platform/run1_main.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let plugins = doc["suite"]["plugins"].as_array_mut().unwrap();
    assert!(!plugins.is_empty(), "the fixture names its plugin");
    for p in plugins {
        p["name"] = "bob-eval-tdd-flow".into();
    }
    serde_json::to_string(&doc).unwrap()
}

#[test]
fn aborted_platform_exits_3() {
    let tree = tree();
    let stub = Stub::new(Switches {
        stderr: "assertion failed: node internals\n".into(),
        mode: Some("abort"),
        ..Switches::answering(data("platform/run1_main.json"))
    });
    let stderr = tree.fault(&stub, &[], 3);
    assert!(stderr.contains("signal 6"), "{stderr}");
    assert!(stderr.contains("assertion failed"), "{stderr}");
}

#[test]
fn segfaulting_platform_records_nothing() {
    let tree = tree();
    let stub = Stub::new(Switches {
        mode: Some("segv"),
        ..Switches::answering(data("platform/run1_main.json"))
    });
    let stderr = tree.fault(&stub, &[], 3);
    assert!(stderr.contains("signal 11"), "{stderr}");
}

#[test]
fn platform_exiting_130_is_an_interruption() {
    let tree = tree();
    let stub = Stub::new(Switches {
        code: 130,
        ..Switches::answering(data("platform/run1_main.json"))
    });
    let stderr = tree.fault(&stub, &[], 130);
    assert!(stderr.contains("interrupted"), "{stderr}");
}

#[test]
fn auth_failed_records_nothing() {
    let tree = tree();
    let stub = Stub::new(Switches {
        code: 2,
        ..Switches::answering(data("platform/auth_failed_commit.json"))
    });
    let stderr = tree.fault(&stub, &[], 3);
    assert!(stderr.contains("auth_failed"), "{stderr}");
}

#[test]
fn truncated_json_exits_3_naming_the_file() {
    let tree = tree();
    let stub = Stub::new(Switches {
        fixture: Some(truncated().into()),
        ..Switches::default()
    });
    let stderr = tree.fault(&stub, &[], 3);
    assert!(stderr.contains("aggregate-result.json:"), "{stderr}");
    assert!(stderr.contains("not usable"), "{stderr}");
    // The folder holding it is gone: the message says so instead of pointing there.
    assert!(
        stderr.contains(
            "<the plugin folder, removed (--keep keeps it)>/.bob-eval/out/aggregate-result.json:"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("bob-eval-commit-"), "{stderr}");
}

#[test]
fn empty_document_exits_3() {
    let tree = tree();
    let stub = Stub::new(Switches {
        fixture: Some(Vec::new()),
        ..Switches::default()
    });
    let stderr = tree.fault(&stub, &[], 3);
    assert!(stderr.contains("aggregate-result.json"), "{stderr}");
}

#[test]
fn a_document_for_another_plugin_exits_3() {
    let tree = tree();
    let stub = Stub::new(Switches {
        fixture: Some(other_plugin().into()),
        ..Switches::default()
    });
    let stderr = tree.fault(&stub, &[], 3);
    assert!(stderr.contains("bob-eval-commit"), "{stderr}");
    assert!(stderr.contains("did not load"), "{stderr}");
}

#[test]
fn garbage_output_without_a_document_exits_3() {
    let tree = tree();
    let junk: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
    let stub = Stub::new(Switches {
        stdout: junk,
        stderr: b"\xff\xfe garbage\nAblation: 2 arms \xc3 cases (x runs)\n  fires run 1/2 [with]: score NaN  $-\n\x00\x01\n".to_vec(),
        ..Switches::default()
    });
    let stderr = tree.fault(&stub, &[], 3);
    assert!(stderr.contains("wrote no result"), "{stderr}");
}

#[test]
fn garbage_output_beside_a_good_document_is_harmless() {
    let tree = tree();
    let junk: Vec<u8> = (0..=255u8).rev().cycle().take(5000).collect();
    let stub = Stub::new(Switches {
        stdout: junk.clone(),
        stderr: junk,
        ..Switches::answering(data("platform/run1_main.json"))
    });
    let out = tree
        .cmd()
        .args(["run", "commit", "--claude"])
        .arg(&stub.bin)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["schema"], "skill-eval/1");
}

#[test]
fn a_hung_platform_is_stopped_at_the_timeout() {
    let tree = tree();
    let stub = Stub::new(Switches {
        mode: Some("wait"),
        ..Switches::answering(data("platform/run1_main.json"))
    });
    let stderr = tree.fault(&stub, &["--platform-timeout", "1"], 3);
    assert!(
        stderr.contains("the platform did not finish within 1 s"),
        "{stderr}"
    );
    assert_eq!(
        stub.record("signalled").as_deref(),
        Some("bob-eval-commit"),
        "the platform got SIGTERM"
    );
}

/// The platform printed `Report: <plugin>/.bob-eval/out/report.html` before it
/// was stopped: once the plugin folder is removed, no message names it; under
/// `--keep` the folder stays, and so does the line.
#[test]
fn a_timeout_names_no_file_of_the_removed_plugin_folder() {
    let tree = tree();
    let stub = Stub::new(Switches {
        mode: Some("wait"),
        report: Some("<!doctype html>\n"),
        ..Switches::answering(data("platform/run1_main.json"))
    });
    let report = tree.work().join("r.html");
    let stderr = tree.fault(
        &stub,
        &[
            "--platform-timeout",
            "1",
            "--report",
            report.to_str().unwrap(),
        ],
        3,
    );
    assert!(
        stderr.contains("the platform did not finish within 1 s"),
        "{stderr}"
    );
    assert!(!stderr.contains("report.html"), "{stderr}");
    assert!(!stderr.contains("bob-eval-commit-"), "{stderr}");
    assert!(stderr.contains("--keep keeps the folder"), "{stderr}");
    assert!(!report.exists(), "nothing is written when the run fails");

    let out = tree
        .cmd()
        .args([
            "run",
            "commit",
            "--keep",
            "--platform-timeout",
            "1",
            "--claude",
        ])
        .arg(&stub.bin)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.contains("Report: "))
        .unwrap_or_else(|| panic!("the kept report is named: {stderr}"));
    let path = line.split("Report: ").nth(1).unwrap().trim();
    assert!(Path::new(path).is_file(), "{path} is there");
    let kept = Path::new(path).ancestors().nth(3).unwrap();
    assert!(
        kept.file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("bob-eval-commit-")
    );
    fs::remove_dir_all(kept).unwrap();
}

#[test]
fn a_platform_ignoring_sigterm_is_killed_after_the_grace() {
    let tree = tree();
    let stub = Stub::new(Switches {
        mode: Some("stubborn"),
        ..Switches::answering(data("platform/run1_main.json"))
    });
    let mut cmd = tree.cmd();
    cmd.env("BOB_EVAL_PLATFORM_TIMEOUT", "0.5");
    let before = tree.snapshot();
    let out = cmd
        .args(["run", "commit", "--claude"])
        .arg(&stub.bin)
        .arg("--out")
        .arg(tree.out())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("did not finish within 0.5 s"), "{stderr}");
    assert!(!tree.out().exists());
    assert!(tree.snapshot() == before);
}

#[test]
fn bad_platform_timeouts_are_usage_errors() {
    let tree = tree();
    let stub = Stub::new(Switches::answering(data("platform/run1_main.json")));
    for bad in ["0", "-1", "soon", "NaN", "inf"] {
        let out = tree
            .cmd()
            .args(["run", "commit", "--claude"])
            .arg(&stub.bin)
            .args(["--platform-timeout", bad])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {stderr}");
        assert!(stderr.contains("--platform-timeout"), "{bad}: {stderr}");
    }
    assert!(stub.record("argv").is_none(), "the platform never ran");
}

#[test]
fn a_timeout_longer_than_the_run_changes_nothing() {
    let tree = tree();
    let stub = Stub::new(Switches::answering(data("platform/run1_main.json")));
    let out = tree
        .cmd()
        .args(["run", "commit", "--claude"])
        .arg(&stub.bin)
        .args(["--platform-timeout", "600"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!stub.record("argv").unwrap().contains("timeout"));
}

/// `gate --record` with the wiki's place taken by a folder (root ignores
/// read-only modes, so this stands for a read-only or full disk): a clear error
/// naming the wiki file, and the baseline untouched.
#[test]
fn an_unwritable_wiki_during_record_leaves_the_baseline() {
    let tree = tree();
    fs::remove_file(tree.source.join("wiki/skill-impact.md")).unwrap();
    fs::create_dir_all(tree.source.join("wiki/skill-impact.md")).unwrap();
    let result = tree.work().join("accept.json");
    fs::copy(data("gate/result-accept.json"), &result).unwrap();
    let before = tree.snapshot();
    let out = tree
        .cmd()
        .args(["gate", "commit"])
        .arg(&result)
        .args(["--record", "--pr", "#1", "--pages", "commit-skipped-hook"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("wiki/skill-impact.md"), "{stderr}");
    let after = tree.snapshot();
    let changed: Vec<_> = after
        .iter()
        .filter(|f| !before.contains(f))
        .map(|(p, _)| p.display().to_string())
        .collect();
    assert!(changed.is_empty(), "changed: {changed:?}");
}
