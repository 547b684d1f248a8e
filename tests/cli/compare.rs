//! `bob-eval compare A B` on stub-bought evaluations: a first run of
//! `commit` (recorded as the best), an edit of the skill, then a second run
//! one day later whose `quiet` case fails with the item. Both documents as
//! files, both run ids, `best`/`last`/`last~1` compare the same two
//! evaluations; the item's edit is seen, a run on another model is named as
//! not like for like; `--json` holds to its schema, `--format markdown` and
//! `--html` say the same (the page's DOM as headless Chromium builds it,
//! when Debian's `chromium` is installed, else as parsed from the file).
//! The stub writes each run's trace, so the two evaluations' answers (the
//! second stub answers [`LATER`]) sit side by side; a run with no trace
//! kept shows "not kept".

use crate::support;

use chrono::{DateTime, Utc};
use scraper::{Html, Selector};
use serde_json::Value;
use std::process::Command;
use support::cmd::bob;
use support::data::data;
use support::stub::{STUB_ANSWER, STUB_TRACE, Stub, Switches};
use support::tier::{self, Tool};
use support::world::{World, outcome, succeeds};

const SONNET: &str = "claude-sonnet-5-5";

/// What the model answers on the second evaluation.
const LATER: &str = "fix(hooks): name the hook that failed";

/// What the tests compare: the world and the first and second documents.
struct Bought {
    w: World,
    first: Value,
    second: Value,
}

fn cmd(w: &World, args: &[&str]) -> Command {
    let mut cmd = w.command(bob(&w.source, &w.home()));
    cmd.args(args);
    cmd
}

fn stdout(w: &World, args: &[&str]) -> String {
    String::from_utf8(succeeds(cmd(w, args)).stdout).unwrap()
}

fn json(w: &World, args: &[&str]) -> Value {
    let doc: Value = serde_json::from_str(&stdout(w, args)).unwrap();
    bob_eval::schema::validate_compare(&doc, "<stdout>".into()).unwrap();
    doc
}

/// The pipelines' capture one day later (new runs) with the `quiet` case's
/// with arm failing, its graders too.
fn later_capture() -> Vec<u8> {
    let text = std::fs::read_to_string(data("pipelines/aggregate-result.json")).unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    let later = |v: &mut Value| {
        let t: DateTime<Utc> = v.as_str().unwrap().parse().unwrap();
        *v = (t + chrono::Duration::days(1)).to_rfc3339().into();
    };
    later(&mut doc["startedAt"]);
    for case in doc["cases"].as_array_mut().unwrap() {
        let quiet = case["name"] == "quiet";
        for arm in ["with", "without"] {
            for run in case["arms"][arm].as_array_mut().unwrap() {
                later(&mut run["startedAt"]);
                if quiet && arm == "with" {
                    run["score"] = 0.into();
                    run["passed"] = false.into();
                    for g in run["graders"].as_array_mut().unwrap() {
                        g["passed"] = false.into();
                    }
                }
            }
        }
    }
    serde_json::to_vec(&doc).unwrap()
}

/// Two stub runs of `commit` on Sonnet with an edit of its skill between;
/// the first recorded (accepted) as the best.
fn bought() -> Bought {
    let w = World::new(
        &["commit"],
        Switches::answering(data("pipelines/aggregate-result.json")),
    );
    let first: Value =
        serde_json::from_slice(&succeeds(cmd(&w, &["run", "commit", "--model", SONNET])).stdout)
            .unwrap();
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
    assert_eq!(code, 0, "the first is recorded as the best: {err}");
    let skill = w.source.join("skills/commit/SKILL.md");
    let text = std::fs::read_to_string(&skill).unwrap();
    std::fs::write(
        &skill,
        format!("{text}\nAlways name the hook that failed.\n"),
    )
    .unwrap();
    let later = Stub::new(Switches {
        fixture: Some(later_capture()),
        trace: Some(STUB_TRACE.replace(STUB_ANSWER, LATER)),
        ..Switches::default()
    });
    // --fresh: the stub's capture holds both arms, so both are bought.
    let mut second = cmd(&w, &["run", "commit", "--model", SONNET, "--fresh"]);
    second.env("BOB_EVAL_CLAUDE", &later.bin);
    let second: Value = serde_json::from_slice(&succeeds(second).stdout).unwrap();
    std::fs::write(w.root.join("second.json"), second.to_string()).unwrap();
    assert_ne!(first["run"], second["run"]);
    Bought { w, first, second }
}

/// The `quiet` case of a comparison.
fn quiet(c: &Value) -> &Value {
    c["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|case| case["name"] == "quiet")
        .unwrap_or_else(|| panic!("no quiet case: {c}"))
}

#[test]
fn documents_ids_and_keywords_name_the_same_two_evaluations() {
    let b = bought();
    let (first, second) = (
        b.first["run"].as_str().unwrap(),
        b.second["run"].as_str().unwrap(),
    );
    let files = json(&b.w, &["compare", "first.json", "second.json", "--json"]);
    assert_eq!(files["schema"], "bob-eval-compare/1");
    assert_eq!(files["a"]["run"], first);
    assert_eq!(files["b"]["run"], second);
    assert_eq!(files["a"]["with"]["value"], b.first["with"], "{files}");
    assert_eq!(files["b"]["with"]["value"], b.second["with"]);
    assert_eq!(files["like_for_like"], true, "{files}");
    assert_eq!(files["answers_kept"], true);

    let q = quiet(&files);
    let (aw, bw) = (
        q["a"]["with"]["value"].as_f64().unwrap(),
        q["b"]["with"]["value"].as_f64().unwrap(),
    );
    assert!(bw < aw, "quiet fails with the item on B: {q}");
    for arm in ["with", "without"] {
        assert_eq!(
            q["answers"][arm],
            serde_json::json!([STUB_ANSWER, LATER]),
            "each side's kept answer: {q}"
        );
    }
    let dd = q["delta_of_deltas"]["value"].as_f64().unwrap();
    let expected =
        q["b"]["delta"]["value"].as_f64().unwrap() - q["a"]["delta"]["value"].as_f64().unwrap();
    assert!((dd - expected).abs() < 1e-3, "{dd} vs {expected}");
    assert!(dd < 0.0);
    let grader = &q["graders"][0];
    assert_eq!(grader["changed"], true, "quiet's grader moved: {q}");
    assert_eq!(grader["a"]["with"]["passed"], grader["a"]["with"]["runs"]);
    assert_eq!(grader["b"]["with"]["passed"], 0);

    let ids = json(&b.w, &["compare", first, second, "--json"]);
    assert_eq!(ids["a"]["run"], first);
    assert_eq!(ids["b"]["run"], second);
    assert_eq!(ids["item_changed"], true, "the skill was edited: {ids}");
    assert_eq!(ids["cases"], files["cases"], "ids and files say the same");

    for (a, bb) in [("best", "last"), ("last~1", "last")] {
        let kw = json(&b.w, &["compare", a, bb, "--item", "commit", "--json"]);
        assert_eq!(kw["a"]["run"], first, "{a}: {kw}");
        assert_eq!(kw["b"]["run"], second, "{bb}");
        assert_eq!(kw["a"]["spec"], a);
        assert_eq!(kw["cases"], ids["cases"]);
    }
    let from_file = json(&b.w, &["compare", "best", "second.json", "--json"]);
    assert_eq!(
        from_file["a"]["run"], first,
        "best takes its item and model from the file"
    );

    let text = stdout(&b.w, &["compare", "last~1", "last", "--item", "commit"]);
    for words in [
        "delta of deltas",
        "case quiet",
        "Like for like",
        &format!("answer with A: {STUB_ANSWER}"),
        &format!("answer without B: {LATER}"),
        "Wilson",
    ] {
        assert!(text.contains(words), "{words:?} in:\n{text}");
    }
    assert!(!text.contains("answers not kept"), "{text}");
}

#[test]
fn a_run_on_another_model_is_not_like_for_like_and_every_format_says_so() {
    let b = bought();
    // Bought where the platform wrote no trace: its answers are not kept.
    let traceless = Stub::new(Switches {
        trace: None,
        ..Switches::answering(data("pipelines/aggregate-result.json"))
    });
    let mut opus = cmd(&b.w, &["run", "commit", "--model", "opus"]);
    opus.env("BOB_EVAL_CLAUDE", &traceless.bin);
    let opus: Value = serde_json::from_slice(&succeeds(opus).stdout).unwrap();
    std::fs::write(b.w.root.join("opus.json"), opus.to_string()).unwrap();
    let c = json(&b.w, &["compare", "second.json", "opus.json", "--json"]);
    assert_eq!(c["like_for_like"], false, "{c}");
    let model = c["differences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["what"] == "model")
        .unwrap_or_else(|| panic!("the model is named: {c}"));
    assert_eq!(model["a"], SONNET);
    assert_ne!(model["b"], SONNET);

    let text = stdout(&b.w, &["compare", "second.json", "opus.json"]);
    assert!(text.contains("NOT like for like"), "{text}");
    assert!(text.contains("- model:"), "{text}");

    let md = stdout(
        &b.w,
        &[
            "compare",
            "second.json",
            "opus.json",
            "--format",
            "markdown",
        ],
    );
    assert!(md.contains("> **Not like for like**"), "{md}");
    assert!(md.contains("> - model: A claude-sonnet-5-5"), "{md}");
    assert!(md.contains("| case |"), "{md}");
    assert!(md.contains("| quiet |"), "{md}");
    assert!(md.contains("<summary>Answers</summary>"), "{md}");
    assert!(
        md.contains("| quiet | with | fix(hooks): name the hook that failed | _not kept_ |"),
        "{md}"
    );

    let page = b.w.root.join("compare.html");
    let out = stdout(
        &b.w,
        &[
            "compare",
            "second.json",
            "opus.json",
            "--html",
            page.to_str().unwrap(),
        ],
    );
    assert!(out.contains("NOT like for like"));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("<script"), "self-contained, no script");
    for remote in ["http:", "https:", "//cdn", "@import", "url("] {
        assert!(!html.contains(remote), "{remote} in the page");
    }
    // The DOM a real browser built when Chromium is here, else the file's.
    let dom = if tier::present(Tool::Chromium) {
        crate::history::headless(&page, &["--dump-dom"])
    } else {
        html
    };
    let doc = Html::parse_document(&dom);
    let select = |css: &str| -> Vec<String> {
        doc.select(&Selector::parse(css).unwrap())
            .map(|e| e.text().collect())
            .collect()
    };
    let cases: Vec<String> = doc
        .select(&Selector::parse("section.case").unwrap())
        .map(|e| e.attr("data-case").unwrap().to_string())
        .collect();
    let names: Vec<&str> = c["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|case| case["name"].as_str().unwrap())
        .collect();
    assert_eq!(cases, names, "a section per case, in order");
    let warning = select("div.warning li[data-what=\"model\"]");
    assert_eq!(warning.len(), 1, "{dom}");
    assert!(warning[0].contains("opus"), "{warning:?}");
    assert_eq!(select("p.answers-missing").len(), 0, "A's answers are kept");
    assert_eq!(
        select("div.answer[data-arm=\"with\"][data-side=\"a\"]"),
        vec![LATER.to_string(); names.len()]
    );
    assert_eq!(
        select("div.answer[data-side=\"b\"]"),
        vec!["(not kept)".to_string(); 2 * names.len()]
    );
    assert_eq!(select("tr.side").len(), 2);
}

#[test]
fn a_side_that_names_nothing_is_a_usage_error_naming_it() {
    let b = bought();
    let (code, _, err) = outcome(cmd(
        &b.w,
        &["compare", "nope.json", "last", "--item", "commit"],
    ));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nope.json"), "{err}");
    let (code, _, err) = outcome(cmd(
        &b.w,
        &["compare", "last~9", "last", "--item", "commit"],
    ));
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("last~9"), "{err}");
}

/// Two result files from a machine whose store `compare` does not read: the
/// judge and the tools each was measured with come from the flags the
/// documents record, spelt as a kept evaluation spells them, so a judge
/// that differs is named and one that does not is not.
#[test]
fn files_from_elsewhere_are_compared_by_the_flags_they_record() {
    let w = World::new(
        &["commit"],
        Switches::answering(data("pipelines/aggregate-result.json")),
    );
    let run = |out: &str, extra: &[&str]| {
        let mut args = vec!["run", "commit", "--model", SONNET, "--out", out];
        args.extend(extra);
        succeeds(cmd(&w, &args));
    };
    run("a.json", &["--allow-tools", "Bash,Write"]);
    run(
        "b.json",
        &[
            "--allow-tools",
            "Bash",
            "--allow-tools",
            "Write",
            "--judge-model",
            "claude-opus-4-1",
        ],
    );
    // Another store, which keeps neither evaluation.
    let elsewhere = w.path("elsewhere.db");
    run("c.json", &["--evidence", &elsewhere]);
    let differences = |args: &[&str]| -> Vec<Value> {
        let c = json(&w, args);
        c["differences"].as_array().unwrap().clone()
    };
    let from_flags = differences(&[
        "compare",
        "a.json",
        "b.json",
        "--evidence",
        &elsewhere,
        "--json",
    ]);
    let from_store = differences(&["compare", "a.json", "b.json", "--json"]);
    for found in [&from_flags, &from_store] {
        let what: Vec<&str> = found.iter().map(|d| d["what"].as_str().unwrap()).collect();
        assert_eq!(what, ["judge_model"], "{found:?}");
        assert_eq!(found[0]["a"], "default");
        assert_eq!(found[0]["b"], "claude-opus-4-1");
    }
}
