//! Hostile input and situations: each test here failed before its fix.
//! Money is never spent on what can be refused for free, writes never replace
//! what is not a regular file, partial means partial, and scripts hold no more
//! authority than the pipelines need.

use crate::support;

use serde_json::Value;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use support::cmd::bob;
use support::data::data;
use support::stub::{Stub, Switches};

/// A stub answering with the `run1_main` capture.
fn answering() -> Stub {
    Stub::new(Switches::answering(data("platform/run1_main.json")))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A stub that would produce a good result, and a check that it was never asked to run.
fn never_paid(stub: &Stub, out: &std::process::Output, code: i32) {
    assert_eq!(out.status.code(), Some(code), "{}", text(&out.stderr));
    assert!(
        stub.record("argv").is_none(),
        "the platform ran: {:?}",
        stub.record("argv")
    );
}

#[test]
fn bad_outputs_and_options_are_refused_before_the_platform_runs() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let stub = answering();
    let missing = work.path().join("missing/r.json");
    let folder = work.path().to_str().unwrap().to_string();
    let cases: Vec<Vec<&str>> = vec![
        vec!["--out", missing.to_str().unwrap()],
        vec!["--out", &folder],
        vec!["--out", ""],
        vec!["--model", ""],
        vec!["--judge-model", " "],
        vec!["--max-cost-usd", "1e308"],
        vec!["--max-cost-usd", "inf"],
    ];
    for args in cases {
        let out = bob(&data("source"), home.path())
            .args(["run", "commit", "--claude"])
            .arg(&stub.bin)
            .args(&args)
            .output()
            .unwrap();
        never_paid(&stub, &out, 2);
        assert!(!missing.exists());
    }
    std::fs::write(
        home.path().join("settings.json"),
        r#"{"_workflow": {"eval_max_cost_usd": 1e308}}"#,
    )
    .unwrap();
    let out = bob(&data("source"), home.path())
        .args(["run", "commit", "--claude"])
        .arg(&stub.bin)
        .output()
        .unwrap();
    never_paid(&stub, &out, 2);
    assert!(
        text(&out.stderr).contains("settings.json"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_sweep_with_an_unusable_ceiling_is_usage_before_any_suite_runs() {
    let home = tempfile::tempdir().unwrap();
    let stub = answering();
    for bad in ["nan", "0", "1e308", "lots"] {
        let out = bob(&data("source"), home.path())
            .env("EVALS", "1")
            .env("EVALS_MAX_COST_USD", bad)
            .args(["sweep", "--claude"])
            .arg(&stub.bin)
            .output()
            .unwrap();
        never_paid(&stub, &out, 2);
        let said = text(&out.stderr);
        assert!(said.contains("EVALS_MAX_COST_USD"), "{bad}: {said}");
    }
}

#[test]
fn a_platform_exit_2_is_partial_whatever_its_document_says() {
    let home = tempfile::tempdir().unwrap();
    let stub = Stub::new(Switches {
        code: 2,
        ..Switches::answering(data("platform/run1_main.json"))
    });
    let out = bob(&data("source"), home.path())
        .args(["run", "commit", "--claude"])
        .arg(&stub.bin)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["partial"], true);
    assert_eq!(doc["partial_reason"], "platform_exit_2");
}

#[test]
fn a_missing_temp_folder_is_could_not_run() {
    let home = tempfile::tempdir().unwrap();
    let stub = answering();
    let out = bob(&data("source"), home.path())
        .env("TMPDIR", "/nonexistent/tmp")
        .args(["run", "commit", "--claude"])
        .arg(&stub.bin)
        .output()
        .unwrap();
    never_paid(&stub, &out, 3);
}

#[test]
fn out_writes_through_devices_and_at_a_links_target() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let stub = answering();
    let out = bob(&data("source"), home.path())
        .args(["run", "commit", "--out", "/dev/null", "--claude"])
        .arg(&stub.bin)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );

    let real = work.path().join("real.json");
    std::fs::write(&real, "old").unwrap();
    let link = work.path().join("link.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let out = bob(&data("source"), home.path())
        .args(["run", "commit", "--out"])
        .arg(&link)
        .arg("--claude")
        .arg(&stub.bin)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&real).unwrap()).unwrap();
    assert_eq!(doc["item"], "commit");
}

/// A copy of the fixture source with a wiki and a pattern page.
fn source_with_wiki(dir: &Path) -> std::path::PathBuf {
    let source = dir.join("source");
    support::tree::copy_tree(&data("source"), &source);
    std::fs::create_dir_all(source.join("wiki/patterns")).unwrap();
    std::fs::write(source.join("wiki/patterns/p.md"), "# p\n").unwrap();
    source
}

#[test]
fn recording_writes_a_symlinked_baseline_and_wiki_at_their_targets() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let source = source_with_wiki(dir.path());
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let baseline = source.join("evals/commit/baseline.json");
    std::fs::copy(&baseline, elsewhere.join("baseline.json")).unwrap();
    std::fs::remove_file(&baseline).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("baseline.json"), &baseline).unwrap();
    std::fs::write(elsewhere.join("impact.md"), "").unwrap();
    std::os::unix::fs::symlink(
        elsewhere.join("impact.md"),
        source.join("wiki/skill-impact.md"),
    )
    .unwrap();
    let out = bob(&source, home.path())
        .args(["gate", "commit"])
        .arg(data("gate/result-accept.json"))
        .args(["--record", "--pr", "#1", "--pages", "p"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for link in [&baseline, &source.join("wiki/skill-impact.md")] {
        assert!(
            std::fs::symlink_metadata(link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{link:?}"
        );
    }
    let wiki = std::fs::read_to_string(elsewhere.join("impact.md")).unwrap();
    assert_eq!(
        wiki.lines().filter(|l| l.starts_with("| 2")).count(),
        1,
        "{wiki}"
    );
    let best: Value =
        serde_json::from_str(&std::fs::read_to_string(elsewhere.join("baseline.json")).unwrap())
            .unwrap();
    assert!(!best["best"].as_object().unwrap().is_empty(), "{best}");
}

#[test]
fn a_result_dated_on_no_calendar_day_is_never_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let source = source_with_wiki(dir.path());
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(data("gate/result-accept.json")).unwrap())
            .unwrap();
    doc["date"] = "2026-02-30".into();
    let result = dir.path().join("r.json");
    std::fs::write(&result, doc.to_string()).unwrap();
    let out = bob(&source, home.path())
        .args(["gate", "commit"])
        .arg(&result)
        .args(["--record", "--pr", "#1", "--pages", "p"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(!source.join("wiki/skill-impact.md").exists());
}

#[test]
fn a_script_can_neither_pick_the_platform_nor_write_outside_its_results() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let source = source_with_wiki(dir.path());
    let script = dir.path().join("s.rhai");
    let fixture = data("pipelines/aggregate-result.json");
    let fixture = fixture.to_str().unwrap();
    for (body, code) in [
        (
            format!(
                "evaluate(\"commit\", #{{ claude: \"/bin/bash\", platform_result: \"{fixture}\" }});"
            ),
            2,
        ),
        (
            format!(
                "let r = evaluate(\"commit\", #{{ platform_result: \"{fixture}\" }});\nwrite_result(r, \"../evals/commit/baseline.json\");"
            ),
            2,
        ),
        (
            format!(
                "let r = evaluate(\"commit\", #{{ platform_result: \"{fixture}\" }});\nwrite_result(r, \"history/x.json\");\n0"
            ),
            0,
        ),
    ] {
        std::fs::write(&script, body).unwrap();
        let out = bob(&source, home.path())
            .arg("script")
            .arg(&script)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{}", text(&out.stderr));
    }
    assert!(source.join("results/history/x.json").is_file());
    let baseline = std::fs::read_to_string(source.join("evals/commit/baseline.json")).unwrap();
    assert!(baseline.contains("skill-eval-baseline/1"));
}

/// A best kept under `default` follows the platform's default model of the day:
/// recording one says so and how to name a model; naming one says nothing.
#[test]
fn recording_under_the_default_model_warns() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let source = source_with_wiki(dir.path());
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(data("gate/result-accept.json")).unwrap())
            .unwrap();
    for (model, warned) in [("default", true), ("claude-haiku-5-5", false)] {
        doc["model"] = model.into();
        let result = dir.path().join(format!("{model}.json"));
        std::fs::write(&result, doc.to_string()).unwrap();
        let out = bob(&source, home.path())
            .args(["gate", "commit"])
            .arg(&result)
            .args(["--record", "--pr", "#1", "--pages", "p"])
            .output()
            .unwrap();
        let err = text(&out.stderr);
        assert_eq!(
            err.contains("platform's default model"),
            warned,
            "{model}: {err}"
        );
        assert_eq!(err.contains("--model"), warned, "{model}: {err}");
    }
}

/// `run commit --report <report>` of the test source on `stub`, no stdin,
/// its output piped: to be spawned.
fn run_reporting(home: &Path, report: &Path, stub: &Stub) -> std::process::Command {
    let mut cmd = bob(&data("source"), home);
    cmd.args(["run", "commit", "--report"])
        .arg(report)
        .arg("--claude")
        .arg(&stub.bin)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    cmd
}

/// Make a FIFO at `path`.
fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) on a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// Wait for `child`; a hang guard, not a timing: one that is still running
/// after a minute is killed and the test fails, instead of hanging the suite.
fn finish(mut child: std::process::Child, what: &str) -> std::process::Output {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{what}: still running after a minute: {}",
                text(&out.stderr)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// `cmd` run to its end under the hang guard, stdin closed.
fn run_guarded(mut cmd: std::process::Command, what: &str) -> std::process::Output {
    use std::process::Stdio;
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish(child, what)
}

/// The `bob-eval-<item>-*` plugin folders left in `tmp`.
fn plugin_folders(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("bob-eval-"))
        .collect()
}

#[test]
fn a_fifo_in_the_skill_folder_is_refused_never_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let source = dir.path().join("source");
    support::tree::copy_tree(&data("source"), &source);
    mkfifo(&source.join("skills/commit/pipe"));
    let stub = answering();
    let mut cmd = bob(&source, home.path());
    cmd.args(["run", "commit", "--claude"]).arg(&stub.bin);
    let out = run_guarded(cmd, "run with a FIFO in the skill folder");
    never_paid(&stub, &out, 2);
    let err = text(&out.stderr);
    assert!(
        err.contains("skills/commit/pipe") && err.contains("FIFO"),
        "{err}"
    );
}

#[test]
fn a_device_or_fifo_as_a_platform_result_or_loaded_result_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let source = source_with_wiki(dir.path());
    let fifo = dir.path().join("result.fifo");
    mkfifo(&fifo);
    for bad in [Path::new("/dev/zero"), fifo.as_path()] {
        let mut cmd = bob(&source, home.path());
        cmd.args(["run", "commit", "--platform-result"]).arg(bad);
        let out = run_guarded(cmd, "run --platform-result");
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains(bad.to_str().unwrap()),
            "{}",
            text(&out.stderr)
        );
        for args in [
            &["gate", "commit"][..],
            &["evidence", "import"][..],
            &["script"][..],
        ] {
            let mut cmd = bob(&source, home.path());
            cmd.args(args).arg(bad);
            let out = run_guarded(cmd, &format!("{args:?} on {bad:?}"));
            assert_eq!(
                out.status.code(),
                Some(2),
                "{args:?}: {}",
                text(&out.stderr)
            );
            assert!(
                text(&out.stderr).contains("not a regular file"),
                "{args:?}: {}",
                text(&out.stderr)
            );
        }
        // A script's loads: bounded, so `--script-timeout` is never blocked out.
        let bad = bad.to_str().unwrap();
        for body in [
            format!("load_result(\"{bad}\");"),
            format!("evaluate(\"commit\", #{{ platform_result: \"{bad}\" }});"),
        ] {
            let script = dir.path().join("s.rhai");
            std::fs::write(&script, &body).unwrap();
            let mut cmd = bob(&source, home.path());
            cmd.args(["script", "--script-timeout", "30"]).arg(&script);
            let out = run_guarded(cmd, &body);
            assert_eq!(out.status.code(), Some(2), "{body}: {}", text(&out.stderr));
            assert!(
                text(&out.stderr).contains("not a regular file"),
                "{body}: {}",
                text(&out.stderr)
            );
        }
    }
}

#[test]
fn a_link_planted_in_results_is_never_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let source = source_with_wiki(dir.path());
    let outside = dir.path().join("outside.txt");
    std::fs::write(&outside, "mine").unwrap();
    std::fs::create_dir_all(source.join("results")).unwrap();
    std::os::unix::fs::symlink(&outside, source.join("results/out.json")).unwrap();
    std::os::unix::fs::symlink("/dev/null", source.join("results/null.json")).unwrap();
    let fixture = data("pipelines/aggregate-result.json");
    let fixture = fixture.to_str().unwrap();
    for name in ["out.json", "null.json"] {
        for body in [
            format!(
                "let r = evaluate(\"commit\", #{{ platform_result: \"{fixture}\" }});\nwrite_result(r, \"{name}\");"
            ),
            format!(
                "evaluate(\"commit\", #{{ platform_result: \"{fixture}\", report: \"{name}\" }});"
            ),
        ] {
            let script = dir.path().join("s.rhai");
            std::fs::write(&script, &body).unwrap();
            let mut cmd = bob(&source, home.path());
            cmd.arg("script").arg(&script);
            let out = run_guarded(cmd, &body);
            assert_eq!(out.status.code(), Some(2), "{body}: {}", text(&out.stderr));
            assert!(
                text(&out.stderr).contains("symlink"),
                "{body}: {}",
                text(&out.stderr)
            );
        }
    }
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "mine");
    assert!(
        std::fs::symlink_metadata(source.join("results/out.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

/// `run --report PATH`: a link planted at PATH while the platform runs (an
/// agent with Bash could plant one) is replaced by the report, never
/// written through; the report's folder swapped for a link to elsewhere is
/// refused (exit 3) and nothing is written where the link leads.
#[test]
fn a_link_planted_at_the_report_during_the_run_is_never_followed() {
    for swap_folder in [false, true] {
        let work = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let outside = work.path().join("outside.html");
        std::fs::write(&outside, "mine").unwrap();
        let (reports, elsewhere) = (work.path().join("reports"), work.path().join("elsewhere"));
        std::fs::create_dir(&reports).unwrap();
        std::fs::create_dir(&elsewhere).unwrap();
        let report = reports.join("r.html");
        let stub = Stub::new(Switches {
            report: Some("<html>the platform's report</html>"),
            sleep: std::time::Duration::from_secs(3),
            ..Switches::answering(data("platform/run1_main.json"))
        });
        let child = run_reporting(home.path(), &report, &stub).spawn().unwrap();
        // The stub records its arguments as it starts, then sleeps.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while stub.record("argv").is_none() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        if swap_folder {
            std::fs::rename(&reports, work.path().join("reports.old")).unwrap();
            std::os::unix::fs::symlink(&elsewhere, &reports).unwrap();
        } else {
            std::os::unix::fs::symlink(&outside, &report).unwrap();
        }
        let out = finish(child, "run --report");
        let what = format!("swap_folder {swap_folder}: {}", text(&out.stderr));
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "mine", "{what}");
        if swap_folder {
            assert_eq!(out.status.code(), Some(3), "{what}");
            assert!(what.contains("changed during the run"), "{what}");
            assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0, "{what}");
        } else {
            assert_eq!(out.status.code(), Some(0), "{what}");
            let meta = std::fs::symlink_metadata(&report).unwrap();
            assert!(meta.file_type().is_file(), "{what}");
            assert_eq!(
                std::fs::read_to_string(&report).unwrap(),
                "<html>the platform's report</html>"
            );
        }
    }
}

#[test]
fn escape_sequences_from_outside_never_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let hostile = "\u{1b}[2J\u{1b}]0;owned\u{7}\r";
    // The platform's explanation of a failed grader, in `run`'s summary.
    let capture = std::fs::read_to_string(data("platform/run1_main.json")).unwrap();
    let mut doc: Value = serde_json::from_str(&capture).unwrap();
    // Every result of the `subject` grader fails with the hostile words, so
    // the summary shows them (a grader failing only without the item is no
    // failure, and its words are not shown).
    fn forge(v: &mut Value, hostile: &str) {
        match v {
            Value::Object(o)
                if o.get("name").and_then(Value::as_str) == Some("subject")
                    && o.contains_key("explanation") =>
            {
                o.insert("passed".into(), Value::Bool(false));
                o.insert(
                    "explanation".into(),
                    Value::String(format!("pattern not found{hostile} in last_message")),
                );
            }
            Value::Array(a) => a.iter_mut().for_each(|v| forge(v, hostile)),
            Value::Object(o) => o.values_mut().for_each(|v| forge(v, hostile)),
            _ => {}
        }
    }
    forge(&mut doc, hostile);
    assert!(doc.to_string().contains("\\u001b"));
    let forged = dir.path().join("forged.json");
    std::fs::write(&forged, doc.to_string()).unwrap();
    let stub = Stub::new(Switches::answering(forged));
    let out = bob(&data("source"), home.path())
        .args(["run", "commit", "--claude"])
        .arg(&stub.bin)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("pattern not found[2J]0;owned"), "{err}");
    assert!(!err.contains(['\u{1b}', '\u{7}', '\r']), "{err:?}");

    // A case name of an imported run, in `evidence list` and `history`.
    let export = bob(&data("source"), home.path())
        .args(["evidence", "export", "commit"])
        .output()
        .unwrap();
    assert_eq!(export.status.code(), Some(0), "{}", text(&export.stderr));
    let lines: String = text(&export.stdout)
        .lines()
        // The runs alone: the evaluation after them names no case.
        .filter(|line| serde_json::from_str::<Value>(line).unwrap()["kind"].is_null())
        .map(|line| {
            let run = bob_eval::evidence::StoredRun::from_line(line).unwrap();
            let mut key = run.key;
            key.case = format!("qu{hostile}iet");
            bob_eval::evidence::StoredRun::new(key, run.outcome).to_line() + "\n"
        })
        .collect();
    let runs = dir.path().join("runs.jsonl");
    std::fs::write(&runs, lines).unwrap();
    let other = tempfile::tempdir().unwrap();
    let out = bob(&data("source"), other.path())
        .args(["evidence", "import"])
        .arg(&runs)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for args in [&["evidence", "list"][..], &["history"][..]] {
        let out = bob(&data("source"), other.path())
            .args(args)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        let shown = text(&out.stdout) + text(&out.stderr).as_str();
        assert!(
            !shown.contains(['\u{1b}', '\u{7}', '\r']),
            "{args:?}: {shown:?}"
        );
    }
    let out = bob(&data("source"), other.path())
        .args(["evidence", "list"])
        .output()
        .unwrap();
    assert!(
        text(&out.stdout).contains("qu[2J]0;owned iet"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn an_empty_path_is_refused_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("cwd");
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::write(cwd.join("keep.json"), "mine").unwrap();
    let stub = answering();
    // `--source ""` and `--home ""` go through the same parser.
    let cases: Vec<Vec<&str>> = vec![
        vec!["sweep", "--out-dir", ""],
        vec!["run", "commit", "--out", ""],
        vec!["run", "commit", "--report", ""],
        vec!["run", "commit", "--evidence", ""],
        vec!["run", "commit", "--platform-result", ""],
        vec!["run", "commit", "--claude", ""],
        vec!["evidence", "--evidence", "", "list"],
        vec!["evidence", "import", ""],
        vec!["history", "--html", ""],
        vec!["history", "--evidence", ""],
        vec!["collect", ""],
        vec!["gate", "commit", ""],
        vec!["script", ""],
        vec!["script", "--results-dir", "", "x.rhai"],
        vec!["check", "--plugin", ""],
    ];
    for args in cases {
        let mut cmd = bob(&data("source"), home.path());
        cmd.current_dir(&cwd)
            .env("EVALS", "1")
            .env("BOB_EVAL_CLAUDE", &stub.bin)
            .args(&args);
        let out = run_guarded(cmd, &format!("{args:?}"));
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains("empty"),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(stub.record("argv").is_none(), "{args:?}: the platform ran");
    }
    let left: Vec<_> = std::fs::read_dir(&cwd).unwrap().collect();
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(
        std::fs::read_to_string(cwd.join("keep.json")).unwrap(),
        "mine"
    );
}

#[test]
fn a_store_that_is_a_device_or_fifo_is_refused_and_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("store.fifo");
    mkfifo(&fifo);
    let null = dir.path().join("null.db");
    std::os::unix::fs::symlink("/dev/null", &null).unwrap();
    for store in [&fifo, &null] {
        for args in [
            &["evidence", "list"][..],
            &["evidence", "export"][..],
            &["history"][..],
        ] {
            let mut cmd = bob(&data("source"), home.path());
            cmd.args(args).arg("--evidence").arg(store);
            let out = run_guarded(cmd, &format!("{args:?} on {store:?}"));
            assert_eq!(
                out.status.code(),
                Some(3),
                "{args:?}: {}",
                text(&out.stderr)
            );
            assert!(
                text(&out.stderr).contains("not a regular file"),
                "{args:?}: {}",
                text(&out.stderr)
            );
        }
        let journal = format!("{}-journal", store.display());
        assert!(!Path::new(&journal).exists(), "{journal} left behind");
    }
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["null.db", "store.fifo"]);
}

#[test]
fn a_fifo_step_summary_is_a_warning_never_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("summary.fifo");
    mkfifo(&fifo);
    let stub = answering();
    let mut cmd = bob(&data("source"), home.path());
    cmd.env("EVALS", "1")
        .env("GITHUB_STEP_SUMMARY", &fifo)
        .args(["sweep", "--claude"])
        .arg(&stub.bin);
    let out = run_guarded(cmd, "sweep with a FIFO as the step summary");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("warning: could not append the summary") && err.contains("FIFO"),
        "{err}"
    );
}

/// Whether process `pid` has `path` open.
fn has_open(pid: u32, path: &Path) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten()
        .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|p| p == path))
}

/// `run --report FIFO` whose reader takes nothing: bob-eval blocks in the
/// write while it still owns its plugin folder; SIGTERM or SIGHUP ends it
/// (130) and the folder is removed.
#[test]
fn a_signal_while_writing_the_report_to_a_fifo_ends_run_and_cleans_up() {
    for (sig, name) in [(libc::SIGTERM, "SIGTERM"), (libc::SIGHUP, "SIGHUP")] {
        let dir = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let tmp = dir.path().join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        let fifo = dir.path().join("report.fifo");
        mkfifo(&fifo);
        // Opened for reading and never read: the write fills the pipe and waits.
        let reader = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo)
            .unwrap();
        let report: &'static str = Box::leak("<html>".repeat(100_000).into_boxed_str());
        let stub = Stub::new(Switches {
            report: Some(report),
            ..Switches::answering(data("platform/run1_main.json"))
        });
        let child = run_reporting(home.path(), &fifo, &stub)
            .env("TMPDIR", &tmp)
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !has_open(child.id(), &fifo) {
            assert!(
                std::time::Instant::now() < deadline,
                "{name}: never opened the report"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(!plugin_folders(&tmp).is_empty(), "{name}: no plugin folder");
        // SAFETY: kill(2) on our own child, not reaped yet.
        unsafe { libc::kill(child.id() as libc::pid_t, sig) };
        let out = finish(child, name);
        assert_eq!(
            out.status.code(),
            Some(130),
            "{name}: {}",
            text(&out.stderr)
        );
        assert_eq!(plugin_folders(&tmp), Vec::<String>::new(), "{name}");
        drop(reader);
    }
}
