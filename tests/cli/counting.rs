//! Which runs count, stub platform: the evidence key holds everything the
//! platform reads for a case (each input edited re-buys its case, and only
//! it), two cases with one name are refused, a document records the item it
//! was measured on (and `gate` refuses it once the item changed), run ids
//! never collide, and runs of a case not asked for never count for another
//! (the stub answers every call with both cases, whatever `--case` says).

use crate::support;

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};
use support::cmd::bob;
use support::data::data;
use support::stub::{Stub, Switches};
use support::world;

/// A source tree with the `commit` suite, a home, and a stub platform
/// answering every eval with a capture of `fires` and `quiet`.
struct World(world::World);

impl std::ops::Deref for World {
    type Target = world::World;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for World {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl World {
    /// `bob-eval` in this world (the stub as the platform).
    fn cmd(&self) -> Command {
        self.command(bob(&self.source, &self.home()))
    }

    fn bob(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().unwrap()
    }

    fn new() -> World {
        World(world::World::new(
            &["commit"],
            Switches::answering(data("pipelines/aggregate-result.json")),
        ))
    }

    /// `run commit --runs 1 ARGS`, exit 0, its document.
    fn run(&self, args: &[&str]) -> Value {
        let mut all = vec!["run", "commit", "--runs", "1"];
        all.extend(args);
        let out = self.bob(&all);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn suite(&self) -> PathBuf {
        self.source.join("evals/commit")
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.suite().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The `--case` a platform call was given, if any.
fn case_of(call: &str) -> Option<&str> {
    call.split(" --case ")
        .nth(1)
        .map(|rest| rest.split(' ').next().unwrap())
}

const MOCK: &str = "---\nexpect:\n  id: \"42\"\n---\n{\"id\": \"42\", \"state\": \"closed\"}\n";

/// Every input the platform reads for a case re-buys that case when it
/// changes, and only the cases it applies to: the suite-level `mocks/`
/// layer every case, a group-level layer the cases of its group, and the
/// case's own files (prompt, graders, case-level mocks, fixtures, scaffold
/// script) that case alone. A file the platform does not read for a case
/// (another group's mocks) re-buys nothing.
#[test]
fn each_input_of_a_case_re_buys_it_and_only_it() {
    let w = World::new();
    // `quiet` lives in a group folder with its own mocks layer; `fires` has
    // a fixture and a scaffold script beside its prompt.
    std::fs::create_dir_all(w.suite().join("group")).unwrap();
    std::fs::rename(w.suite().join("quiet"), w.suite().join("group/quiet")).unwrap();
    w.write("group/mocks/tracker/get_issue.md", MOCK);
    w.write("other/mocks/tracker/get_issue.md", MOCK);
    w.write("mocks/tracker/get_issue.md", MOCK);
    w.write("fires/fixtures/diff.txt", "docs only\n");
    w.write("fires/setup.sh", "#!/bin/sh\necho staged\n");
    let check = w.bob(&["check", "commit"]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stdout));

    let first = w.run(&[]);
    assert_eq!(w.calls().len(), 1, "one call buys the whole suite");
    assert_eq!(first["reused_runs"], 0);
    w.run(&[]);
    assert_eq!(w.calls().len(), 1, "nothing changed: nothing bought");

    let edits: Vec<(&str, Vec<&str>)> = vec![
        ("mocks/tracker/get_issue.md", vec!["fires", "quiet"]),
        ("group/mocks/tracker/get_issue.md", vec!["quiet"]),
        ("group/quiet/prompt.md", vec!["quiet"]),
        ("fires/prompt.md", vec!["fires"]),
        ("fires/graders/subject.md", vec!["fires"]),
        ("fires/fixtures/diff.txt", vec!["fires"]),
        ("fires/setup.sh", vec!["fires"]),
        ("fires/mocks/tracker/get_issue.md", vec!["fires"]),
        ("other/mocks/tracker/get_issue.md", vec![]),
    ];
    for (file, rebought) in edits {
        let path = w.suite().join(file);
        let before = std::fs::read_to_string(&path).unwrap_or_default();
        w.write(file, &format!("{before}\n<!-- edited -->\n"));
        let calls = w.calls().len();
        let doc = w.run(&[]);
        let new: Vec<String> = w.calls()[calls..].to_vec();
        let mut cases: Vec<&str> = new.iter().map(|c| case_of(c).unwrap_or("(all)")).collect();
        cases.sort();
        let expected: Vec<&str> = if rebought.len() == 2 {
            vec!["(all)"]
        } else {
            rebought.clone()
        };
        assert_eq!(cases, expected, "after editing {file}: {new:?}");
        // Whatever was not re-bought was reused: 2 cases × 2 arms × 1 run.
        assert_eq!(
            doc["reused_runs"],
            4 - 2 * rebought.len() as u64,
            "after editing {file}"
        );
    }
}

/// Two cases sharing a `name:` would share one key: `check` says so as an
/// error and `run` refuses the suite before the platform is asked.
#[test]
fn two_cases_with_one_name_are_refused() {
    let w = World::new();
    let prompt = w.suite().join("quiet/prompt.md");
    let text_before = std::fs::read_to_string(&prompt).unwrap();
    std::fs::write(
        &prompt,
        text_before.replacen("---\n", "---\nname: fires\n", 1),
    )
    .unwrap();
    let check = w.bob(&["check", "commit", "--json"]);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check.stdout));
    let report: Value = serde_json::from_slice(&check.stdout).unwrap();
    let found = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "duplicate-case")
        .unwrap_or_else(|| panic!("{report:#}"));
    assert_eq!(found["severity"], "error");
    let out = w.bob(&["run", "commit", "--runs", "1"]);
    assert_ne!(out.status.code(), Some(0));
    let err = text(&out.stderr);
    assert!(
        err.contains("two cases are named `fires` (also evals/commit/fires)"),
        "{err}"
    );
    assert!(w.calls().is_empty(), "refused before the platform ran");
}

/// A document records the item digest it was measured on; once the item's
/// files change, `gate` refuses it (exit 2, nothing written), and a fresh
/// run records the new digest. Two runs in quick succession get distinct,
/// sortable ids, and `--runs auto` gets one too.
#[test]
fn a_document_knows_its_item_and_its_own_id() {
    let w = World::new();
    let result = w.root.join("r.json");
    let out = w
        .cmd()
        .args(["run", "commit", "--runs", "1", "--out"])
        .arg(&result)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
    let digest = doc["item_digest"].as_str().unwrap().to_string();
    assert_eq!(digest.len(), 64);
    let gate = |doc: &std::path::Path| w.cmd().args(["gate", "commit"]).arg(doc).output().unwrap();
    assert_eq!(gate(&result).status.code(), Some(0), "accepted as measured");

    let skill = w.source.join("skills/commit/SKILL.md");
    let before = std::fs::read_to_string(&skill).unwrap();
    std::fs::write(&skill, format!("{before}\nOne more rule.\n")).unwrap();
    let out = gate(&result);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(
        err.contains("measured on another version of `commit`"),
        "{err}"
    );
    assert!(err.contains(&digest), "{err}");

    // Bought whole (--fresh): the stub answers both arms, while an edited
    // item alone would be bought on the with arm only.
    let again = w.run(&["--fresh"]);
    assert_ne!(again["item_digest"].as_str().unwrap(), digest);
    let third = w.run(&["--fresh"]);
    let ids: Vec<&str> = [&doc, &again, &third]
        .iter()
        .map(|d| d["run"].as_str().unwrap())
        .collect();
    assert!(
        ids[0] < ids[1] && ids[1] < ids[2],
        "distinct and sorted: {ids:?}"
    );
    for id in &ids {
        assert!(
            id.starts_with("eval-commit-")
                && id.len() == "eval-commit-20261202T094337.123456Z-1a2b3c4d".len(),
            "{id}"
        );
    }
}

/// Runs come back attributed by case name and only the cases asked count:
/// the stub answers `--case quiet` with `fires` too (as the platform's
/// pattern match may), and `quiet` keeps its own numbers, under a fixed
/// number of runs and under `--runs auto`.
#[test]
fn runs_of_a_case_not_asked_never_count_for_another() {
    let w = World::new();
    for runs in [vec!["--runs", "1"], vec!["--runs", "auto:2", "--fresh"]] {
        let mut args = vec!["run", "commit", "--case", "quiet", "--max-cost-usd", "5"];
        args.extend(&runs);
        let out = w.bob(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let cases = doc["cases"].as_array().unwrap();
        assert_eq!(cases.len(), 1, "{runs:?}: {doc:#}");
        let quiet = &cases[0];
        assert_eq!(quiet["name"], "quiet");
        // The capture's quiet case scores 1 on both arms; fires 1 and 0.
        assert_eq!(
            (quiet["with"].as_f64(), quiet["without"].as_f64()),
            (Some(1.0), Some(1.0)),
            "{runs:?}: {quiet:#}"
        );
        let graders: Vec<&str> = quiet["graders"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["name"].as_str().unwrap())
            .collect();
        assert_eq!(graders, ["quiet"], "{runs:?}: fires' graders under quiet");
        assert!(
            text(&out.stderr).contains("also ran case(s) not asked for (fires)"),
            "{}",
            text(&out.stderr)
        );
        for call in w.calls() {
            assert_eq!(case_of(&call), Some("quiet"), "{call}");
        }
    }
}

/// A capture whose `quiet` without-arm runs the platform marked with an
/// error (still graded, as the platform does): they never count, under a
/// fixed number of runs and under `--runs auto` (whose rounds stop), and the
/// next `run` buys that case again instead of reusing them.
#[test]
fn errored_runs_never_count_nor_are_reused_under_either_way_of_buying() {
    let mut capture: Value =
        serde_json::from_slice(&std::fs::read(data("pipelines/aggregate-result.json")).unwrap())
            .unwrap();
    for run in capture["cases"][1]["arms"]["without"]
        .as_array_mut()
        .unwrap()
    {
        run["error"] = "exit 1: API Error: Connection dropped (ECONNRESET)".into();
    }
    let mut w = World::new();
    w.stub = Stub::new(Switches {
        fixture: Some(serde_json::to_vec(&capture).unwrap()),
        ..Switches::default()
    });
    let reason = "run_errors: 2 of 8 runs ended on an error and were not counted; the platform said: exit 1: API Error: Connection dropped (ECONNRESET)";
    let first = w.run(&[]);
    assert_eq!(first["partial_reason"], reason, "{first:#}");
    let quiet = &first["cases"][1];
    assert_eq!(quiet["without"], Value::Null, "{quiet:#}");
    assert_eq!(quiet["runs"], 2, "the with runs only: {quiet:#}");

    let calls = w.calls().len();
    let second = w.run(&[]);
    assert_eq!(second["partial"], true);
    let new: Vec<String> = w.calls()[calls..].to_vec();
    assert_eq!(
        new.iter().map(|c| case_of(c)).collect::<Vec<_>>(),
        [Some("quiet")],
        "only quiet, whose without runs errored, is bought again: {new:?}"
    );
    assert_eq!(second["reused_runs"], 2, "fires' runs are reused");

    let out = w.bob(&["run", "commit", "--runs", "auto:4", "--fresh"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let auto: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(auto["partial"], true, "{auto:#}");
    let said = auto["partial_reason"].as_str().unwrap();
    assert!(said.starts_with("run_errors: "), "{said}");
    assert!(said.ends_with("Connection dropped (ECONNRESET)"), "{said}");
    assert_eq!(auto["cases"][1]["without"], Value::Null, "{auto:#}");
}
