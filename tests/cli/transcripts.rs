//! Transcripts on the stub platform: the stub writes each run's trace where
//! the platform does under `--keep-temp` (in the temp folder bob-eval gives
//! it), bob-eval keeps them in the evidence store, and `show` reads them
//! back (terminal, `--json` against its schema, `--html` as headless
//! Chromium builds it when Debian's `chromium` is installed, else as parsed
//! from the file). A run with no trace says so; the cap is said and the run
//! still counts; `evidence gc` keeps what bests use; the export carries them.

use crate::support;

use scraper::{Html, Selector};
use serde_json::Value;
use std::process::Command;
use support::cmd::bob;
use support::data::data;
use support::stub::{STUB_ANSWER, Switches};
use support::tier::{self, Tool};
use support::world::{World, outcome, succeeds};

fn cmd(w: &World, args: &[&str]) -> Command {
    let mut cmd = w.command(bob(&w.source, &w.home()));
    cmd.args(args);
    cmd
}

fn stdout(w: &World, args: &[&str]) -> String {
    String::from_utf8(succeeds(cmd(w, args)).stdout).unwrap()
}

/// A world whose stub answers with the pipelines' capture (two cases), and
/// the `run --json` document of one run of `commit` there.
fn bought(switches: Switches) -> (World, Value) {
    let w = World::new(&["commit"], switches);
    let doc: Value = serde_json::from_str(&stdout(&w, &["run", "commit"])).unwrap();
    (w, doc)
}

fn capture() -> Switches {
    Switches::answering(data("pipelines/aggregate-result.json"))
}

fn show_json(w: &World, args: &[&str]) -> Value {
    let mut all = vec!["show"];
    all.extend(args);
    all.push("--json");
    let doc: Value = serde_json::from_str(&stdout(w, &all)).unwrap();
    bob_eval::schema::validate_show(&doc, "<stdout>".into()).unwrap();
    doc
}

#[test]
fn show_reads_back_what_the_model_said_and_did_and_each_grader() {
    let (w, _) = bought(capture());
    let text = stdout(&w, &["show", "commit", "--case", "fires"]);
    for words in [
        "case `fires` · with arm",
        "Prompt\n",
        "→ Skill {\"skill\":\"bob-eval-commit:commit\"}",
        "← Launching skill",
        &format!("Answer\n  {STUB_ANSWER}"),
        "Graders\n",
    ] {
        assert!(text.contains(words), "{words:?} in:\n{text}");
    }
    let doc = show_json(&w, &["commit", "--case", "fires", "--arm", "without"]);
    assert_eq!(doc["arm"], "without");
    assert_eq!(doc["transcript"]["answer"], STUB_ANSWER);
    assert!(doc["note"].is_null());
    assert!(!doc["graders"].as_array().unwrap().is_empty(), "{doc}");

    // By id, and by a prefix of it.
    let id = doc["run_id"].as_str().unwrap();
    assert_eq!(show_json(&w, &[id])["run_id"], id);
    assert_eq!(show_json(&w, &[&id[..12]])["run_id"], id);
    let (code, _, err) = outcome(cmd(&w, &["show", "0000000000ff"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no run 0000000000ff in the evidence store"),
        "{err}"
    );
    let (code, _, err) = outcome(cmd(&w, &["show", "commit", "--case", "nope"]));
    assert_eq!(code, 2);
    assert!(
        err.contains("no run of item `commit`, case `nope`"),
        "{err}"
    );
}

#[test]
fn the_page_is_self_contained_and_holds_the_answer_escaped() {
    let hostile = "<script>alert(1)</script> & done";
    let mut switches = capture();
    switches.trace =
        Some(support::stub::STUB_TRACE.replace(STUB_ANSWER, &hostile.replace('"', "\\\"")));
    let (w, _) = bought(switches);
    let page = w.root.join("run.html");
    let (code, _, err) = outcome(cmd(
        &w,
        &[
            "show",
            "commit",
            "--case",
            "fires",
            "--html",
            page.to_str().unwrap(),
        ],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("wrote"), "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("<script"), "escaped, no script: {html}");
    for remote in ["http:", "https:", "//cdn", "@import", "url("] {
        assert!(!html.contains(remote), "{remote} in the page");
    }
    let dom = if tier::present(Tool::Chromium) {
        crate::history::headless(&page, &["--dump-dom"])
    } else {
        html
    };
    let doc = Html::parse_document(&dom);
    let text = |css: &str| -> Vec<String> {
        doc.select(&Selector::parse(css).unwrap())
            .map(|e| e.text().collect())
            .collect()
    };
    assert_eq!(text("pre.answer"), [hostile], "the answer as text, once");
    assert!(text("ol.steps li.tool")[0].contains("Skill"), "{dom}");
    assert!(!text("ul.graders li.grader").is_empty(), "{dom}");
}

#[test]
fn a_run_without_a_trace_still_counts_and_show_says_none_is_kept() {
    let mut switches = capture();
    switches.trace = None;
    let (w, doc) = bought(switches);
    assert!(doc["with"].as_f64().is_some(), "the run counted: {doc}");
    let shown = show_json(&w, &["commit", "--case", "fires"]);
    assert!(shown["transcript"].is_null());
    assert!(
        shown["note"]
            .as_str()
            .unwrap()
            .contains("no transcript kept"),
        "{shown}"
    );
    let text = stdout(&w, &["show", "commit", "--case", "fires"]);
    assert!(text.contains("no transcript kept for this run"), "{text}");
    assert!(text.contains("Graders"), "{text}");
}

#[test]
fn past_the_cap_the_runs_count_without_transcripts_and_that_is_said() {
    let w = World::new(&["commit"], capture());
    let mut run = cmd(&w, &["run", "commit"]);
    run.env("BOB_TRANSCRIPT_CAP_MB", "0");
    let out = succeeds(run);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("BOB_TRANSCRIPT_CAP_MB") && err.contains("bob-eval evidence gc"),
        "the cap is named, and how to free room: {err}"
    );
    assert!(
        err.contains("kept and counted, but without their transcript"),
        "{err}"
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc["with"].as_f64().is_some());
    assert!(show_json(&w, &["commit", "--case", "fires"])["transcript"].is_null());

    let mut bad = cmd(&w, &["run", "commit"]);
    bad.env("BOB_TRANSCRIPT_CAP_MB", "lots");
    let (code, _, err) = outcome(bad);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("$BOB_TRANSCRIPT_CAP_MB"), "{err}");
}

/// The pipelines' capture with every start a day later: new runs.
fn a_day_later() -> Vec<u8> {
    let text = std::fs::read_to_string(data("pipelines/aggregate-result.json")).unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    let later = |v: &mut Value| {
        let t: chrono::DateTime<chrono::Utc> = v.as_str().unwrap().parse().unwrap();
        *v = (t + chrono::Duration::days(1)).to_rfc3339().into();
    };
    later(&mut doc["startedAt"]);
    for case in doc["cases"].as_array_mut().unwrap() {
        for arm in ["with", "without"] {
            for run in case["arms"][arm].as_array_mut().unwrap() {
                later(&mut run["startedAt"]);
            }
        }
    }
    serde_json::to_vec(&doc).unwrap()
}

#[test]
fn gc_keeps_the_transcripts_a_best_uses_and_drops_the_rest() {
    let (w, first) = bought(capture());
    let file = w.root.join("first.json");
    std::fs::write(&file, first.to_string()).unwrap();
    let (code, _, err) = outcome(cmd(
        &w,
        &[
            "gate",
            "commit",
            file.to_str().unwrap(),
            "--record",
            "--rule",
            "bare",
            "--pr",
            "#7",
            "--pages",
            "commit-skipped-hook",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    // A second evaluation, a day later, bought anew: its runs are used by no best.
    let later = support::stub::Stub::new(Switches {
        fixture: Some(a_day_later()),
        ..Switches::default()
    });
    let mut second = cmd(&w, &["run", "commit", "--fresh"]);
    second.env("BOB_EVAL_CLAUDE", &later.bin);
    succeeds(second);
    let dry: Value = serde_json::from_str(&stdout(
        &w,
        &["evidence", "gc", "--keep-days", "0", "--dry-run", "--json"],
    ))
    .unwrap();
    assert_eq!(dry["dry_run"], true);
    assert_eq!(dry["bests"], serde_json::json!([first["run"]]), "{dry}");
    let (kept, dropped) = (
        dry["kept_runs"].as_u64().unwrap(),
        dry["dropped_runs"].as_u64().unwrap(),
    );
    assert!(kept > 0 && dropped > 0, "{dry}");
    let words = stdout(&w, &["evidence", "gc", "--keep-days", "0"]);
    assert!(
        words.contains(&format!("kept the transcripts of {kept} run(s)")),
        "{words}"
    );
    assert!(
        words.contains(&format!("dropped the transcripts of {dropped} run(s)")),
        "{words}"
    );
    let again: Value = serde_json::from_str(&stdout(
        &w,
        &["evidence", "gc", "--keep-days", "0", "--json"],
    ))
    .unwrap();
    assert_eq!(
        (again["kept_runs"].as_u64(), again["dropped_runs"].as_u64()),
        (Some(kept), Some(0))
    );
    assert_eq!(again["freed_bytes"], 0);
}

#[test]
fn the_export_carries_transcripts_to_another_store() {
    let (w, _) = bought(capture());
    let export = stdout(&w, &["evidence", "export"]);
    assert!(export.contains(r#""kind":"transcript""#));
    let file = w.root.join("runs.jsonl");
    std::fs::write(&file, &export).unwrap();
    let other = w.root.join("other.db");
    let (code, _, err) = outcome(cmd(
        &w,
        &[
            "evidence",
            "import",
            file.to_str().unwrap(),
            "--evidence",
            other.to_str().unwrap(),
        ],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("transcript(s)"), "{err}");
    let doc = show_json(
        &w,
        &[
            "commit",
            "--case",
            "fires",
            "--evidence",
            other.to_str().unwrap(),
        ],
    );
    assert_eq!(doc["transcript"]["answer"], STUB_ANSWER);
}
