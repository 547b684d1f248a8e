//! `bob-eval history`: two stub runs and their records become an accepted and
//! a rejected point whose numbers are the documents'; a filled store with
//! gated results gives the table, the JSON and an HTML page, which a real
//! browser (Debian's `chromium`, headless) loads: its DOM is read with an HTML
//! parser and a screenshot is kept in `target/test-artifacts/history.png`.
//! The new user's scenario (two runs, `gate --record --pr '#12'`, `propose
//! --pr '#13'`, `--runs auto`, `--case`) puts each PR on the run it gated and
//! leaves the `--case` run out; in the browser each mark sits over its
//! point and no two x labels overlap (boxes measured by the browser itself).

use crate::support;
use support::tier::{self, Tool};

use bob_eval::evidence::{
    Arm, GraderOutcome, Origin, RunKey, RunOutcome, Store, StoredRun, options_digest,
};
use chrono::{DateTime, Utc};
use scraper::{Html, Selector};
use serde_json::{Value, json};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::cmd::bob;
use support::data::data;
use support::stub::{Stub, Switches};
use support::world::{World, succeeds};

const SONNET: &str = "claude-sonnet-5-5";

/// A source tree with `commit` and `tidy`, a pattern page, a home, a stub.
fn world() -> World {
    World::new(
        &["commit", "tidy"],
        Switches::answering(data("pipelines/aggregate-result.json")),
    )
}

/// What these tests do in a world.
trait Commands {
    fn cmd(&self, args: &[&str]) -> Command;
    fn ok(&self, args: &[&str]) -> Output;
    fn json(&self, args: &[&str]) -> Value;
    fn record(&self, doc: &Value, pr: &str) -> i32;
}

impl Commands for World {
    fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = self.command(bob(&self.source, &self.home()));
        cmd.args(args);
        cmd
    }

    fn ok(&self, args: &[&str]) -> Output {
        succeeds(self.cmd(args))
    }

    fn json(&self, args: &[&str]) -> Value {
        serde_json::from_slice(&self.ok(args).stdout).unwrap()
    }

    /// `gate ITEM FILE --record` of `doc`, the PR `pr`; the gate's exit code.
    fn record(&self, doc: &Value, pr: &str) -> i32 {
        let file = self
            .root
            .join(format!("{}.json", doc["run"].as_str().unwrap()));
        std::fs::write(&file, doc.to_string()).unwrap();
        let item = doc["item"].as_str().unwrap();
        let out = self
            .cmd(&[
                "gate",
                item,
                file.to_str().unwrap(),
                "--record",
                "--rule",
                "bare",
                "--pr",
                pr,
            ])
            .args(["--pages", "commit-skipped-hook"])
            .output()
            .unwrap();
        out.status.code().unwrap()
    }
}

/// The pipelines' capture one day later (so its runs are new runs) with the
/// `quiet` case's with arm failing.
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
                }
            }
        }
    }
    serde_json::to_vec(&doc).unwrap()
}

#[test]
fn stub_runs_and_their_records_are_points_with_the_documents_numbers() {
    let w = world();
    let first = w.json(&["run", "commit", "--model", SONNET]);
    assert_eq!(w.record(&first, "#7"), 0, "the first result is accepted");
    let second = later_run(&w);
    assert_eq!(w.record(&second, "#8"), 1, "the second is worse: rejected");

    let h = w.json(&["history", "--json"]);
    assert_eq!(h["schema"], "bob-eval-history/1");
    bob_eval::schema::validate_history(&h, "<stdout>".into()).unwrap();
    let items = h["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{h}");
    let series = &items[0]["series"][0];
    assert_eq!(series["model"], SONNET);
    let points = series["points"].as_array().unwrap();
    assert_eq!(points.len(), 2, "{h}");
    for ((p, doc), (outcome, pr)) in points
        .iter()
        .zip([&first, &second])
        .zip([("accepted", "#7"), ("rejected", "#8")])
    {
        assert_eq!(p["run"], doc["run"]);
        assert_eq!(p["date"], doc["date"]);
        for field in ["with", "without", "trigger_rate", "cost_usd"] {
            assert_eq!(p[field], doc[field], "{field}: {p} vs the document");
        }
        assert_eq!(p["decision"]["outcome"], outcome);
        assert_eq!(p["decision"]["pr"], pr);
        assert_eq!(p["best"], first["with"], "the reject left the best");
    }
    assert!(second["with"].as_f64() < first["with"].as_f64());
    assert_eq!(series["best"]["run"], first["run"]);
    assert!(items[0]["unmatched"].as_array().unwrap().is_empty());
}

/// One kept run: `item` on `model`, `case` and `arm`, bought by `by` at
/// `started` (+`n` seconds), scoring `score`; the trigger pair's grader
/// carries the case's name.
fn stored(by: &str, model: &str, case: &str, arm: Arm, score: f64, n: i64) -> StoredRun {
    let item = by.split('-').nth(1).unwrap();
    let stamp = by.rsplit('-').next().unwrap();
    let started = chrono::NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%SZ")
        .unwrap()
        .and_utc()
        + chrono::Duration::seconds(n);
    let key = RunKey {
        item: item.into(),
        item_digest: "a".repeat(64),
        case: case.into(),
        case_digest: format!("{case:0>64}"),
        arm,
        model: model.into(),
        judge_model: "default".into(),
        platform_version: "2.1.328".into(),
        tools: vec![],
        options: options_digest(&[]),
    };
    let outcome = RunOutcome {
        score,
        passed: score == 1.0,
        graders: vec![GraderOutcome {
            name: case.into(),
            passed: score > 0.0,
            scored: true,
            with_only: false,
            weight: 1.0,
            explanation: String::new(),
            judge_votes: Vec::new(),
            evidence: None,
        }],
        cost_usd: 0.01,
        judge_cost_usd: 0.0,
        duration_seconds: 1.0,
        turns: 1,
        error: None,
        skipped_paid_graders: false,
        started_at: started,
        run: n as u32 + 1,
        bought_by: by.into(),
        mocks: None,
    };
    StoredRun::new(key, outcome)
}

/// The runs one bob-eval run bought: `fires` with `fires_with` on the with
/// arm and 0.5 without, `quiet` 1.0 on both.
fn bought(by: &str, model: &str, fires_with: &[f64]) -> Vec<StoredRun> {
    let mut runs: Vec<StoredRun> = fires_with
        .iter()
        .enumerate()
        .map(|(i, s)| stored(by, model, "fires", Arm::With, *s, i as i64))
        .collect();
    runs.push(stored(by, model, "fires", Arm::Without, 0.5, 10));
    runs.push(stored(by, model, "quiet", Arm::With, 1.0, 11));
    runs.push(stored(by, model, "quiet", Arm::Without, 1.0, 12));
    runs
}

/// The `skill-eval/1` document of [`bought`]'s runs, for the gate.
fn result(by: &str, model: &str, fires_with: &[f64]) -> Value {
    let fires = fires_with.iter().sum::<f64>() / fires_with.len() as f64;
    let with = (fires + 1.0) / 2.0;
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(data("gate/result-accept.json")).unwrap())
            .unwrap();
    let stamp = by.rsplit('-').next().unwrap();
    let date = format!("{}-{}-{}", &stamp[0..4], &stamp[4..6], &stamp[6..8]);
    doc["item"] = by.split('-').nth(1).unwrap().into();
    doc["run"] = by.into();
    doc["date"] = date.into();
    doc["model"] = model.into();
    doc["with"] = with.into();
    doc["without"] = 0.75.into();
    doc["delta"] = (with - 0.75).into();
    doc["verdict"] = if with > 0.75 { "improved" } else { "no-signal" }.into();
    doc["cases"][0]["with"] = fires.into();
    doc["cases"][0]["without"] = 0.5.into();
    doc["cases"][0]["delta"] = (fires - 0.5).into();
    doc
}

/// A store of three runs of `commit` on sonnet (accepted, accepted,
/// rejected), one on haiku, one of `tidy`, and a wiki row no run matches.
fn history_world() -> World {
    let w = world();
    let runs: Vec<StoredRun> = [
        bought("eval-commit-20261101T100000Z", SONNET, &[1.0, 0.5]),
        bought("eval-commit-20261103T100000Z", SONNET, &[1.0, 1.0]),
        bought("eval-commit-20261105T100000Z", SONNET, &[0.5, 0.5]),
        bought("eval-commit-20261104T100000Z", "haiku", &[0.0, 0.5]),
        bought("eval-tidy-20261102T100000Z", SONNET, &[1.0]),
    ]
    .concat();
    // Stored as bought here (every door refuses a run dated in the future).
    let store = camino::Utf8PathBuf::from_path_buf(w.root.join("home/evidence.db")).unwrap();
    Store::open(&store)
        .unwrap()
        .insert(&runs, &Origin::Bought)
        .unwrap();

    let recorded = [
        ("eval-commit-20261101T100000Z", &[1.0, 0.5][..], "#11", 0),
        ("eval-commit-20261103T100000Z", &[1.0, 1.0][..], "#12", 0),
        ("eval-commit-20261105T100000Z", &[0.5, 0.5][..], "#13", 1),
        ("eval-commit-20261106T100000Z", &[1.0, 1.0][..], "#14", 1),
    ];
    for (by, fires, pr, code) in recorded {
        assert_eq!(w.record(&result(by, SONNET, fires), pr), code, "{by}");
    }
    w
}

#[test]
fn json_has_a_point_per_buying_run_marked_from_the_wiki_and_baseline() {
    let w = history_world();
    let h = w.json(&["history", "--json"]);
    bob_eval::schema::validate_history(&h, "<stdout>".into()).unwrap();
    let items: Vec<&str> = h["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["item"].as_str().unwrap())
        .collect();
    assert_eq!(items, ["commit", "tidy"]);
    let commit = &h["items"][0];
    let models: Vec<&str> = commit["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["model"].as_str().unwrap())
        .collect();
    assert_eq!(models, [SONNET, "haiku"]);
    let sonnet = &commit["series"][0];
    let points = sonnet["points"].as_array().unwrap();
    let field = |name: &str| points.iter().map(|p| p[name].clone()).collect::<Vec<_>>();
    assert_eq!(field("with"), [json!(0.875), json!(1.0), json!(0.75)]);
    assert_eq!(field("without"), [json!(0.75), json!(0.75), json!(0.75)]);
    assert_eq!(field("trigger_rate"), [json!(1.0), json!(1.0), json!(1.0)]);
    assert_eq!(field("cost_usd"), [json!(0.05), json!(0.05), json!(0.05)]);
    let marks: Vec<(Value, Value)> = points
        .iter()
        .map(|p| {
            (
                p["decision"]["outcome"].clone(),
                p["decision"]["pr"].clone(),
            )
        })
        .collect();
    assert_eq!(
        marks,
        [
            (json!("accepted"), json!("#11")),
            (json!("accepted"), json!("#12")),
            (json!("rejected"), json!("#13")),
        ]
    );
    assert_eq!(field("best"), [json!(0.875), json!(1.0), json!(1.0)]);
    assert_eq!(sonnet["best"]["run"], "eval-commit-20261103T100000Z");
    let unmatched = commit["unmatched"].as_array().unwrap();
    assert_eq!(unmatched.len(), 1, "#14 bought no kept run: {commit}");
    assert_eq!(unmatched[0]["pr"], "#14");
    assert!(commit["series"][1]["points"][0]["decision"].is_null());

    let only = w.json(&["history", "tidy", "--json"]);
    assert_eq!(only["items"].as_array().unwrap().len(), 1);
    assert_eq!(only["items"][0]["series"][0]["points"][0]["with"], 1.0);
}

#[test]
fn the_table_has_a_sparkline_and_marks_per_item_and_model() {
    let w = history_world();
    let text = String::from_utf8(w.ok(&["history"]).stdout).unwrap();
    assert!(
        text.contains("▁ 0 … █ 1"),
        "the header says what the bars are:\n{text}"
    );
    let row = |item: &str, model: &str| {
        text.lines()
            .find(|l| l.starts_with(item) && l.contains(model) && l.contains('$'))
            .unwrap_or_else(|| panic!("no row for {item} on {model}:\n{text}"))
            .to_string()
    };
    let sonnet = row("commit", SONNET);
    assert!(sonnet.contains("▇█▆"), "{sonnet}");
    assert!(sonnet.ends_with("✓✓✗"), "{sonnet}");
    assert!(
        row("commit", "haiku").contains("▅"),
        "0.625 is the fifth bar"
    );
    assert!(row("tidy", SONNET).ends_with('-'), "not gated");
    assert!(text.contains("eval-commit-20261105T100000Z"), "{text}");
    assert!(text.contains("rejected #13"), "{text}");
    assert!(
        text.contains("commit: 1 recorded decision(s) mark no point shown"),
        "{text}"
    );
}

#[test]
fn nothing_kept_says_where_it_looked_and_bad_names_are_refused() {
    let w = world();
    let out = w.cmd(&["history"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no evidence store at "), "{err}");

    let empty = w.root.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    w.ok(&["evidence", "import", empty.to_str().unwrap()]);
    let text = String::from_utf8(w.ok(&["history", "commit"]).stdout).unwrap();
    assert!(text.starts_with("no runs kept in "), "{text}");
    assert!(text.contains("for commit: `bob-eval run` keeps"), "{text}");

    let out = w.cmd(&["history", "../x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));

    let folder = w.root.join("home");
    let out = w
        .cmd(&["history", "--html", folder.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a folder is no page");
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a folder"));
}

#[test]
fn bob_evidence_names_the_store() {
    let w = history_world();
    let store = w.root.join("home/evidence.db");
    let moved = w.root.join("elsewhere.db");
    std::fs::rename(&store, &moved).unwrap();
    let out = w.cmd(&["history"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "the default store is gone");
    let h: Value = serde_json::from_slice(
        &w.cmd(&["history", "--json"])
            .env("BOB_EVIDENCE", &moved)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(h["evidence"], moved.to_str().unwrap());
    assert_eq!(h["items"].as_array().unwrap().len(), 2);
    let flag = w.json(&[
        "history",
        "tidy",
        "--json",
        "--evidence",
        moved.to_str().unwrap(),
    ]);
    assert_eq!(flag["items"].as_array().unwrap().len(), 1);
}

/// The page `history --html` writes for [`history_world`], and the world.
fn page() -> (World, PathBuf) {
    let w = history_world();
    let page = w.root.join("history.html");
    let out = w.ok(&["history", "--html", page.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrote "));
    (w, page)
}

#[test]
fn the_page_is_self_contained() {
    let (_w, page) = page();
    let text = std::fs::read_to_string(&page).unwrap();
    assert!(!text.contains("<script"), "no script needed to read it");
    for remote in ["http:", "https:", "//cdn", "@import", "url("] {
        let bare = text.replace("http://www.w3.org/2000/svg", "");
        assert!(!bare.contains(remote), "{remote} in the page");
    }
}

/// Headless chromium on `page` with `args`, in a fresh profile and its own
/// process group; its stdout. The group (which this test started) is killed
/// if chromium has not finished in two minutes.
pub(crate) fn headless(page: &Path, args: &[&str]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let stdout = profile.path().join("stdout");
    let stderr = profile.path().join("stderr");
    let mut child = Command::new(tier::chromium_path())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!(
            "--user-data-dir={}",
            profile.path().join("p").display()
        ))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout).unwrap())
        .stderr(std::fs::File::create(&stderr).unwrap())
        .process_group(0)
        .spawn()
        .expect("chromium starts");
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            // SAFETY: kill(2) on the process group of the child this test started.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
            panic!(
                "chromium did not finish within 2 minutes on {}",
                page.display()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        status.success(),
        "chromium failed ({status}): {}",
        std::fs::read_to_string(&stderr).unwrap_or_default()
    );
    std::fs::read_to_string(stdout).unwrap()
}

fn select<'a>(doc: &'a Html, css: &str) -> Vec<scraper::ElementRef<'a>> {
    doc.select(&Selector::parse(css).unwrap()).collect()
}

#[test]
fn a_real_browser_draws_a_chart_per_item_with_every_point() {
    if !tier::present(Tool::Chromium) {
        return;
    }
    let (_w, page) = page();
    let dom = headless(&page, &["--dump-dom"]);
    let doc = Html::parse_document(&dom);
    let charts = select(&doc, "svg.chart");
    let items: Vec<&str> = charts
        .iter()
        .map(|c| c.attr("data-item").unwrap())
        .collect();
    assert_eq!(items, ["commit", "tidy"], "a chart per item");
    for (item, points) in [("commit", 4), ("tidy", 1)] {
        let chart = format!("svg.chart[data-item=\"{item}\"]");
        for arm in ["with", "without"] {
            let circles = select(&doc, &format!("{chart} circle.point[data-arm=\"{arm}\"]"));
            assert_eq!(circles.len(), points, "{item} {arm}");
        }
        let declared = select(&doc, &chart)[0].attr("data-points").unwrap();
        assert_eq!(declared, points.to_string());
    }
    let marks = |outcome: &str| {
        select(
            &doc,
            &format!("svg.chart[data-item=\"commit\"] g.mark[data-outcome=\"{outcome}\"]"),
        )
        .len()
    };
    assert_eq!((marks("accepted"), marks("rejected")), (2, 1));
    let best = select(&doc, "svg.chart[data-item=\"commit\"] path.best");
    assert_eq!(best.len(), 1, "the best is sonnet's only");
    assert_eq!(best[0].attr("data-model"), Some(SONNET));
    let rejected = select(
        &doc,
        "circle.point[data-arm=\"with\"][data-run=\"eval-commit-20261105T100000Z\"] title",
    );
    let title: String = rejected[0].text().collect();
    assert!(title.contains("eval-commit-20261105T100000Z"), "{title}");
    assert!(title.contains("rejected · PR #13"), "{title}");
    let labels: Vec<String> = select(&doc, "g.mark text")
        .iter()
        .map(|t| t.text().collect())
        .collect();
    assert_eq!(labels, ["✓ #11", "✓ #12", "✗ #13"]);
}

#[test]
fn a_real_browser_takes_a_screenshot_of_the_page() {
    if !tier::present(Tool::Chromium) {
        return;
    }
    let (_w, page) = page();
    let artifacts = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("test-artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let png = artifacts.join("history.png");
    let _ = std::fs::remove_file(&png);
    headless(
        &page,
        &[
            &format!("--screenshot={}", png.display()),
            "--window-size=1200,900",
        ],
    );
    let bytes = std::fs::read(&png).expect("chromium wrote the screenshot");
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    assert_eq!((width, height), (1200, 900));
    assert!(
        bytes.len() > 20_000,
        "{} bytes: too small for a page of charts",
        bytes.len()
    );
}

/// `run commit --fresh` on the later capture (the `quiet` case's with arm
/// failing), exit 0: its document.
fn later_run(w: &World) -> Value {
    let later = Stub::new(Switches {
        fixture: Some(later_capture()),
        ..Switches::default()
    });
    let mut cmd = w.cmd(&["run", "commit", "--model", SONNET, "--fresh"]);
    cmd.env("BOB_EVAL_CLAUDE", &later.bin);
    serde_json::from_slice(&succeeds(cmd).stdout).unwrap()
}

/// What the scenario left: the world and the documents of the first run, the second (gated with #12), the propose (#13), the auto run
/// and the `--case` run, in that order.
fn scenario() -> (World, Vec<Value>) {
    let w = world();
    let first = w.json(&["run", "commit", "--model", SONNET]);
    let second = later_run(&w);
    w.record(&second, "#12");
    let out = w
        .cmd(&[
            "propose",
            "commit",
            "--rule",
            "bare",
            "--model",
            SONNET,
            "--pr",
            "#13",
            "--pages",
            "commit-skipped-hook",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said: Value = serde_json::from_slice(&out.stdout).unwrap();
    let proposed = said["result"].clone();
    assert_eq!(said["decision"]["run"], proposed["run"]);
    let auto = w.json(&["run", "commit", "--model", SONNET, "--runs", "auto:4"]);
    let case = w.json(&["run", "commit", "--model", SONNET, "--case", "fires"]);
    (w, vec![first, second, proposed, auto, case])
}

#[test]
fn each_pr_sits_on_the_run_it_gated_and_a_case_run_is_no_point() {
    let (w, docs) = scenario();
    let runs: Vec<&str> = docs.iter().map(|d| d["run"].as_str().unwrap()).collect();
    let distinct: std::collections::BTreeSet<&str> = runs.iter().copied().collect();
    assert_eq!(distinct.len(), 5, "{runs:?}");
    let h = w.json(&["history", "--json"]);
    bob_eval::schema::validate_history(&h, "<stdout>".into()).unwrap();
    let commit = &h["items"][0];
    assert_eq!(commit["series"].as_array().unwrap().len(), 1, "{h}");
    let points = commit["series"][0]["points"].as_array().unwrap();
    let shown: Vec<&str> = points.iter().map(|p| p["run"].as_str().unwrap()).collect();
    assert_eq!(shown, runs[..4], "the --case run is no point by default");
    assert_eq!(commit["hidden"], 1);
    for (p, doc) in points.iter().zip(&docs) {
        assert_eq!(p["from"], "evaluation");
        for field in ["with", "without"] {
            assert_eq!(p[field], doc[field], "{field}: the document's number: {p}");
        }
        assert_eq!(p["cost_usd"], doc["cost_usd"], "{p}");
        assert_eq!(p["delta"], doc["delta"], "{p}");
    }
    let pr = |i: usize| points[i]["decision"]["pr"].clone();
    assert_eq!(pr(1), "#12", "on the gated run: {}", points[1]);
    assert_eq!(pr(2), "#13", "on the propose run: {}", points[2]);
    assert!(points[0]["decision"].is_null() && points[3]["decision"].is_null());
    for i in [1, 2] {
        assert_eq!(points[i]["decision"]["joined"], "run");
        assert_eq!(points[i]["decision"]["mode"], "rule");
        assert_eq!(points[i]["decision"]["run"], runs[i]);
    }
    assert!(
        commit["unmatched"].as_array().unwrap().is_empty(),
        "{commit}"
    );
    assert!(
        points[3]["intervals"]["with"]["low"].is_number(),
        "the auto run's interval: {}",
        points[3]
    );

    let all = w.json(&["history", "--json", "--all"]);
    let points = all["items"][0]["series"][0]["points"].as_array().unwrap();
    assert_eq!(points.len(), 5);
    assert_eq!(points[4]["run"], runs[4]);
    assert_eq!(points[4]["filtered"], true);
    assert_eq!(points[4]["cases"], 1);

    // The store carries it all through an export into another store.
    let export = w.ok(&["evidence", "export"]).stdout;
    let file = w.root.join("all.jsonl");
    std::fs::write(&file, &export).unwrap();
    let other = w.root.join("other.db");
    let out = w.ok(&[
        "evidence",
        "import",
        file.to_str().unwrap(),
        "--evidence",
        other.to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("5 evaluation(s), 5 added; 2 decision(s), 2 added"),
        "{said}"
    );
    let mut moved = w.json(&["history", "--json", "--evidence", other.to_str().unwrap()]);
    // The same history, each evaluation and decision marked imported there.
    let mut marks = 0;
    for point in moved["items"][0]["series"][0]["points"]
        .as_array_mut()
        .unwrap()
    {
        let point = point.as_object_mut().unwrap();
        assert_eq!(
            point.remove("imported"),
            Some(Value::Bool(true)),
            "{point:?}"
        );
        if let Some(d) = point["decision"].as_object_mut() {
            assert_eq!(d.remove("imported"), Some(Value::Bool(true)), "{d:?}");
            marks += 1;
        }
    }
    assert_eq!(marks, 2, "{moved:#}");
    assert_eq!(
        moved["items"], h["items"],
        "the same history from the imported store"
    );
}

/// Each element matching `css` with the box the browser gave it
/// (`data-box`: left, top, right, bottom).
fn boxes<'a>(doc: &'a Html, css: &str) -> Vec<(scraper::ElementRef<'a>, [f64; 4])> {
    select(doc, css)
        .into_iter()
        .map(|e| {
            let b: Vec<f64> = e
                .attr("data-box")
                .unwrap_or_else(|| panic!("no box on {}", e.html()))
                .split(',')
                .map(|v| v.parse().unwrap())
                .collect();
            (e, [b[0], b[1], b[2], b[3]])
        })
        .collect()
}

#[test]
fn a_real_browser_puts_each_mark_over_its_run_and_no_labels_overlap() {
    if !tier::present(Tool::Chromium) {
        return;
    }
    let (w, docs) = scenario();
    let page = w.root.join("history.html");
    w.ok(&["history", "--all", "--html", page.to_str().unwrap()]);
    let artifacts = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("test-artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let png = artifacts.join("history-scenario.png");
    let _ = std::fs::remove_file(&png);
    headless(
        &page,
        &[
            &format!("--screenshot={}", png.display()),
            "--window-size=1200,1000",
        ],
    );
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));

    // A copy of the page with a script that writes each box the browser laid out.
    let probe = w.root.join("probe.html");
    let text = std::fs::read_to_string(&page).unwrap();
    let script = "<script>for (const e of document.querySelectorAll('text.tick, g.mark, circle.point')) { const r = e.getBoundingClientRect(); e.setAttribute('data-box', [r.left, r.top, r.right, r.bottom].join(',')); }</script></body>";
    std::fs::write(&probe, text.replace("</body>", script)).unwrap();
    let dom = headless(&probe, &["--dump-dom", "--window-size=1200,1000"]);
    let doc = Html::parse_document(&dom);

    let ticks = boxes(&doc, "svg.chart[data-item=\"commit\"] text.tick");
    assert_eq!(ticks.len(), 5, "five points, five labels");
    for (i, (a, ra)) in ticks.iter().enumerate() {
        assert!(ra[2] > ra[0] && ra[3] > ra[1], "an empty label box: {ra:?}");
        for (b, rb) in &ticks[i + 1..] {
            let overlap = ra[0] < rb[2] && rb[0] < ra[2] && ra[1] < rb[3] && rb[1] < ra[3];
            assert!(!overlap, "{} {ra:?} overlaps {} {rb:?}", a.html(), b.html());
        }
    }
    let label: String = ticks[0].0.text().collect();
    assert!(
        label.contains(':'),
        "points share a day: the time is shown: {label}"
    );

    let marks = boxes(&doc, "svg.chart[data-item=\"commit\"] g.mark");
    let prs: Vec<&str> = marks
        .iter()
        .map(|(m, _)| m.attr("data-pr").unwrap())
        .collect();
    assert_eq!(prs, ["#12", "#13"]);
    for ((mark, rm), gated) in marks.iter().zip([&docs[1], &docs[2]]) {
        let run = mark.attr("data-run").unwrap();
        assert_eq!(run, gated["run"].as_str().unwrap());
        let dots = boxes(
            &doc,
            &format!(
                "svg.chart[data-item=\"commit\"] circle.point[data-arm=\"with\"][data-run=\"{run}\"]"
            ),
        );
        assert_eq!(dots.len(), 1, "{run}");
        let rd = dots[0].1;
        let (mark_x, dot_x) = ((rm[0] + rm[2]) / 2.0, (rd[0] + rd[2]) / 2.0);
        assert!(
            (mark_x - dot_x).abs() < 2.0,
            "{run}: mark at x {mark_x}, its dot at {dot_x}"
        );
        assert!(
            rm[3] <= rd[1] + 1.0,
            "{run}: the mark {rm:?} is over its dot {rd:?}"
        );
    }
    let case_dot = select(
        &doc,
        &format!(
            "circle.point[data-arm=\"with\"][data-run=\"{}\"]",
            docs[4]["run"].as_str().unwrap()
        ),
    );
    assert_eq!(
        case_dot[0].attr("data-kind"),
        Some("filtered"),
        "--all marks it"
    );
    let title: String = select(
        &doc,
        &format!(
            "circle.point[data-arm=\"with\"][data-run=\"{}\"] title",
            docs[3]["run"].as_str().unwrap()
        ),
    )[0]
    .text()
    .collect();
    assert!(title.contains(docs[3]["run"].as_str().unwrap()), "{title}");
    assert!(
        title.contains('[') && title.contains("% intervals"),
        "the interval: {title}"
    );
    assert!(
        title.contains("run(s)") && title.contains('$'),
        "runs and cost: {title}"
    );
}

/// A page of ten models with ten decided evaluations each (a hundred marks),
/// every model's best recorded, made by the library as `history --html` makes it.
fn crowded_page(dir: &Path) -> PathBuf {
    use bob_eval::history::{Best, History, ItemHistory, Point, RecordedDecision, Series};
    use bob_eval::wiki::Outcome;
    let models = 10;
    let series = (0..models)
        .map(|m| Series {
            model: format!("claude-model-{m}-{}", ["haiku", "sonnet", "opus"][m % 3]),
            risk: None,
            best: Some(Best {
                score: 0.8 + 0.02 * (m % 4) as f64,
                run: "eval-commit-20261101T000000Z".into(),
                date: "2026-11-01".into(),
            }),
            points: (0..10)
                .map(|i| {
                    let slot = i * models + m;
                    let time =
                        DateTime::from_timestamp(1_796_000_000 + slot as i64 * 3_600, 0).unwrap();
                    let outcome = if (i + m) % 3 == 0 {
                        Outcome::Rejected
                    } else {
                        Outcome::Accepted
                    };
                    let with = 0.4 + 0.05 * ((slot * 7) % 11) as f64;
                    Point {
                        run: format!("eval-commit-{}", time.format("%Y%m%dT%H%M%SZ")),
                        time,
                        date: time.format("%Y-%m-%d").to_string(),
                        from: "evaluation",
                        with: Some(with),
                        without: Some(0.4),
                        delta: Some(with - 0.4),
                        trigger_rate: Some(1.0),
                        cost_usd: 0.2,
                        reused_cost_usd: None,
                        runs: 12,
                        cases: 3,
                        filtered: false,
                        partial: false,
                        partial_reason: None,
                        intervals: None,
                        used_runs: vec![],
                        decision: Some(RecordedDecision {
                            outcome,
                            pr: Some(format!("#{}", 4000 + slot)),
                            before: None,
                            after: with,
                            source: "store",
                            joined: "run",
                            run: None,
                            mode: Some("rule".into()),
                            pages: vec![],
                            recorded_at: None,
                            imported: false,
                        }),
                        best: (outcome == Outcome::Accepted).then_some(with),
                        imported: false,
                    }
                })
                .collect(),
        })
        .collect();
    let history = History {
        schema: bob_eval::history::SCHEMA,
        evidence: "/home/op/.bob/evidence.db".into(),
        skipped_wiki_rows: 0,
        all: false,
        items: vec![ItemHistory {
            item: "commit".into(),
            series,
            unmatched: vec![],
            hidden: 0,
        }],
        warnings: vec![],
    };
    let page = dir.join("crowded.html");
    std::fs::write(&page, bob_eval::report::history::html(&history)).unwrap();
    page
}

#[test]
fn a_real_browser_reads_ten_models_and_a_hundred_decisions_without_overlap_or_scrolling() {
    if !tier::present(Tool::Chromium) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let page = crowded_page(dir.path());
    let artifacts = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("test-artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let png = artifacts.join("history-crowded.png");
    let _ = std::fs::remove_file(&png);
    headless(
        &page,
        &[
            &format!("--screenshot={}", png.display()),
            "--window-size=1200,1400",
        ],
    );
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));

    // The boxes the browser laid out, and how far the page scrolls sideways.
    let probe = dir.path().join("probe.html");
    let text = std::fs::read_to_string(&page).unwrap();
    let script = "<script>for (const e of document.querySelectorAll('g.mark text, g.legend text, text.best-value, svg.chart')) { const r = e.getBoundingClientRect(); e.setAttribute('data-box', [r.left, r.top, r.right, r.bottom].join(',')); } const d = document.documentElement; d.setAttribute('data-scroll', d.scrollWidth - d.clientWidth);</script></body>";
    std::fs::write(&probe, text.replace("</body>", script)).unwrap();
    let dom = headless(&probe, &["--dump-dom", "--window-size=1200,1400"]);
    let doc = Html::parse_document(&dom);
    let html = select(&doc, "html")[0];
    assert_eq!(
        html.attr("data-scroll"),
        Some("0"),
        "no sideways scroll at 1,200 px"
    );
    let overlaps = |what: &str, found: &[(scraper::ElementRef<'_>, [f64; 4])]| {
        for (i, (a, ra)) in found.iter().enumerate() {
            assert!(ra[2] > ra[0], "{what}: an empty box {}", a.html());
            for (b, rb) in &found[i + 1..] {
                let overlap = ra[0] < rb[2] && rb[0] < ra[2] && ra[1] < rb[3] && rb[1] < ra[3];
                assert!(
                    !overlap,
                    "{what}: {} {ra:?} overlaps {} {rb:?}",
                    a.html(),
                    b.html()
                );
            }
        }
    };
    let chart = boxes(&doc, "svg.chart")[0].1;
    let inside = |what: &str, found: &[(scraper::ElementRef<'_>, [f64; 4])]| {
        for (e, r) in found {
            let within = r[0] >= chart[0] - 0.5
                && r[2] <= chart[2] + 0.5
                && r[1] >= chart[1] - 0.5
                && r[3] <= chart[3] + 0.5;
            assert!(
                within,
                "{what}: {} {r:?} leaves the chart {chart:?}",
                e.html()
            );
        }
    };
    let marks = boxes(&doc, "g.mark text");
    assert_eq!(marks.len(), 100, "a mark per decision");
    overlaps("marks", &marks);
    inside("marks", &marks);
    let legend = boxes(&doc, "g.legend text");
    overlaps("legend", &legend);
    inside("legend", &legend);
    let bests = boxes(&doc, "text.best-value");
    assert_eq!(bests.len(), 10, "each model's best is labelled");
    overlaps("best labels", &bests);
    inside("best labels", &bests);
    let colours: std::collections::BTreeSet<&str> = select(&doc, "g.legend-model")
        .iter()
        .map(|g| g.attr("data-colour").unwrap())
        .collect();
    assert_eq!(colours.len(), 10, "ten models, ten colours: {colours:?}");
}
