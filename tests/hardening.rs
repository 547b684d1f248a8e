//! Hostile input and situations: each test here failed before its fix.
//! Money is never spent on what can be refused for free, writes never replace
//! what is not a regular file, partial means partial, and scripts hold no more
//! authority than the pipelines need.

/// The parts of tests/support this file uses (see tests/support/README.md).
mod support {
    pub mod cmd;
    pub use bob_eval_testkit::data;
    pub use bob_eval_testkit::stub;
    pub use bob_eval_testkit::tree;
}

use serde_json::Value;
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
