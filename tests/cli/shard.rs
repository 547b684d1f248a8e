//! Sharded sweeps: `sweep --shard K/N --out-dir DIR` on four processes, then
//! `collect`, against the unsharded sweep; what `collect` refuses; the
//! `--max-total-usd` budget. Stub platform.

use crate::support;

use serde_json::Value;
use std::path::Path;
use std::process::Output;
use support::cmd::bob;
use support::data::data;
use support::stub::Switches;
use support::world::{World, printed_args};

/// A source tree (the repository's own suites and skills, plus `extra` more
/// items) and a stub platform that answers every suite.
fn world(extra: usize) -> World {
    let w = World::new(
        &[],
        Switches::answering(data("pipelines/aggregate-result.json")),
    );
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    for sub in ["evals", "skills"] {
        support::tree::copy_tree(&repo.join(sub), &w.source.join(sub));
    }
    for i in 0..extra {
        support::item::add_item(&w.source, &format!("suite-{i:02}"));
    }
    w
}

/// What these tests do in a world.
trait Machines {
    fn run(&self, home: &str, args: &[&str]) -> Output;
    fn sweep_shards(&self, n: u32, extra: &[&str]) -> Vec<String>;
}

impl Machines for World {
    /// `bob-eval ARGS` with its own home (a machine of its own), `EVALS=1`.
    fn run(&self, home: &str, args: &[&str]) -> Output {
        self.command(bob(&self.source, &self.root.join(home)))
            .env("EVALS", "1")
            .args(args)
            .output()
            .unwrap()
    }

    /// Shards 1..=n of a sweep, as n processes at once, each on its own home.
    fn sweep_shards(&self, n: u32, extra: &[&str]) -> Vec<String> {
        let dirs: Vec<String> = (1..=n).map(|k| self.path(&format!("shard-{k}"))).collect();
        let children: Vec<_> = (1..=n)
            .map(|k| {
                let shard = format!("{k}/{n}");
                self.command(bob(&self.source, &self.root.join(format!("home-{k}"))))
                    .env("EVALS", "1")
                    .args(["sweep", "--shard", &shard, "--jobs", "2", "--out-dir"])
                    .arg(&dirs[k as usize - 1])
                    .args(extra)
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        }
        dirs
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A document without what differs between two sweeps of the same suites:
/// the run's id and day.
fn normalised(mut doc: Value) -> Value {
    let map = doc.as_object_mut().unwrap();
    map.remove("run");
    map.remove("date");
    doc
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn four_shards_collect_to_the_unsharded_sweep() {
    let w = world(10);
    let suites = 12;
    let summary = |name: &str| w.root.join(name);
    let whole = bob(&w.source, &w.root.join("home-whole"))
        .env("EVALS", "1")
        .env("BOB_EVAL_CLAUDE", &w.stub.bin)
        .env("GITHUB_STEP_SUMMARY", summary("whole.md"))
        .args(["sweep", "--jobs", "4"])
        .output()
        .unwrap();
    assert_eq!(whole.status.code(), Some(0), "{}", text(&whole.stderr));
    let whole_json = w.run(
        "home-json",
        &[
            "sweep",
            "--jobs",
            "4",
            "--json",
            "--out-dir",
            &w.path("all"),
        ],
    );
    assert_eq!(
        whole_json.status.code(),
        Some(0),
        "{}",
        text(&whole_json.stderr)
    );

    let dirs = w.sweep_shards(4, &[]);
    let mut swept = Vec::new();
    for (k, dir) in dirs.iter().enumerate() {
        let manifest = read_json(&Path::new(dir).join("shard.json"));
        assert_eq!(manifest["shard"], k as u64 + 1);
        assert_eq!(manifest["shards"], 4);
        assert_eq!(manifest["suites"], suites);
        assert!(
            !manifest["items"].as_array().unwrap().is_empty(),
            "shard {k} got no suite"
        );
        for entry in manifest["items"].as_array().unwrap() {
            let item = entry["item"].as_str().unwrap().to_string();
            let doc = read_json(&Path::new(dir).join(format!("{item}.json")));
            let same = read_json(&w.root.join("all").join(format!("{item}.json")));
            assert_eq!(normalised(doc), normalised(same), "{item}");
            swept.push(item);
        }
    }
    swept.sort();
    assert_eq!(
        swept.len(),
        suites,
        "every suite in exactly one shard: {swept:?}"
    );
    swept.dedup();
    assert_eq!(swept.len(), suites, "{swept:?}");

    let mut collect = vec!["collect"];
    collect.extend(dirs.iter().map(String::as_str));
    let merged = bob(&w.source, &w.root.join("home-collect"))
        .env("GITHUB_STEP_SUMMARY", summary("merged.md"))
        .args(&collect)
        .output()
        .unwrap();
    assert_eq!(merged.status.code(), Some(0), "{}", text(&merged.stderr));
    assert_eq!(text(&merged.stdout), text(&whole.stdout));
    let markdown = std::fs::read_to_string(summary("merged.md")).unwrap();
    assert_eq!(
        markdown,
        std::fs::read_to_string(summary("whole.md")).unwrap()
    );
    assert!(markdown.contains("12 items"), "{markdown}");
    assert!(
        text(&merged.stdout).contains("tdd-flow"),
        "{}",
        text(&merged.stdout)
    );

    collect.push("--json");
    let merged_json = w.run("home-collect", &collect);
    assert_eq!(
        merged_json.status.code(),
        Some(0),
        "{}",
        text(&merged_json.stderr)
    );
    let rows = |out: &Output| -> Vec<Value> {
        let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
        rows.as_array()
            .unwrap()
            .iter()
            .cloned()
            .map(|mut row| {
                row["result"] = normalised(row["result"].take());
                row
            })
            .collect()
    };
    assert_eq!(rows(&merged_json), rows(&whole_json));
    // The first collect imported every run; the second found them all kept.
    let stderr = text(&merged_json.stderr);
    assert!(
        stderr.contains(" 0 added to ") && !stderr.contains(", 0 already kept"),
        "{stderr}"
    );
    let listed = w.run("home-collect", &["evidence", "list", "--json"]);
    let entries: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let items: std::collections::BTreeSet<&str> = entries
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["item"].as_str().unwrap())
        .collect();
    assert_eq!(items.len(), suites, "{entries}");
    // The project's own shards are the trusted case: collected, never imported.
    for e in entries.as_array().unwrap() {
        let p = &e["provenance"];
        assert_eq!(p["collected"], e["runs"], "{e}");
        assert_eq!(p["imported"], 0, "{e}");
    }
}

#[test]
fn collect_refuses_a_missing_twice_given_overlapping_foreign_or_edited_shard_and_imports_nothing() {
    let w = world(4);
    let dirs = w.sweep_shards(2, &[]);
    let store = w.root.join("home-collect").join("evidence.db");
    let refused = |args: &[&str], says: &str| {
        let mut all = vec!["collect"];
        all.extend(args);
        let out = w.run("home-collect", &all);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {}", text(&out.stderr));
        let stderr = text(&out.stderr);
        assert!(stderr.contains(says), "{all:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{all:?}");
        assert!(!store.exists(), "{all:?}: nothing is imported");
    };
    refused(&[&dirs[0]], "shard 2/2 missing");
    refused(&[&dirs[0], &dirs[0]], "shard 1/2 is also");
    refused(&[&dirs[0], &w.path("nowhere")], "no shard manifest");

    // A suite in both shards.
    let manifest = Path::new(&dirs[1]).join("shard.json");
    let original = std::fs::read_to_string(&manifest).unwrap();
    let mut m: Value = serde_json::from_str(&original).unwrap();
    let first = read_json(&Path::new(&dirs[0]).join("shard.json"))["items"][0].clone();
    m["items"].as_array_mut().unwrap().push(first.clone());
    std::fs::write(&manifest, m.to_string()).unwrap();
    refused(
        &[&dirs[0], &dirs[1]],
        &format!(
            "suite `{}` ran in two shards",
            first["item"].as_str().unwrap()
        ),
    );
    std::fs::write(&manifest, &original).unwrap();

    // Folders of another tree: a suite added since the shards swept.
    support::item::add_item(&w.source, "added-later");
    refused(&[&dirs[0], &dirs[1]], "written for another source tree");
    std::fs::remove_dir_all(w.source.join("evals/added-later")).unwrap();

    // A case edited since the shards swept: its documents measured other contents.
    let prompt = w.source.join("evals/suite-00/fires/prompt.md");
    let before = std::fs::read_to_string(&prompt).unwrap();
    std::fs::write(&prompt, format!("{before}\nOne more line.\n")).unwrap();
    refused(
        &[&dirs[0], &dirs[1]],
        "case `fires` of evals/suite-00/ has changed since",
    );
    std::fs::write(&prompt, before).unwrap();

    // A suite-level mocks/ layer added since: the platform applies it to every case.
    let layer = w.source.join("evals/suite-00/mocks/tracker");
    std::fs::create_dir_all(&layer).unwrap();
    std::fs::write(layer.join("get_issue.md"), "{\"id\": \"42\"}\n").unwrap();
    refused(
        &[&dirs[0], &dirs[1]],
        "case `fires` of evals/suite-00/ has changed since",
    );
    std::fs::remove_dir_all(w.source.join("evals/suite-00/mocks")).unwrap();

    // The item edited since: its documents were measured on another version.
    let skill = w.source.join("skills/suite-00/SKILL.md");
    let before = std::fs::read_to_string(&skill).unwrap();
    std::fs::write(&skill, format!("{before}\nOne more line.\n")).unwrap();
    refused(
        &[&dirs[0], &dirs[1]],
        "was measured on another version of `suite-00`",
    );
    std::fs::write(&skill, before).unwrap();

    let out = w.run("home-collect", &["collect", &dirs[0], &dirs[1]]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(store.exists());
}

#[test]
fn the_budget_leaves_suites_unlaunched_and_the_sweep_incomplete() {
    let w = world(2);
    // Each suite costs $0.1408: after the first, $0.10 is spent.
    let out = w.run(
        "home",
        &[
            "sweep",
            "--max-total-usd",
            "0.10",
            "--out-dir",
            &w.path("out"),
        ],
    );
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.matches("not run (budget)").count(), 3, "{stdout}");
    assert!(
        stdout.contains(
            "3 suite(s) not launched: the sweep had spent $0.14 of its --max-total-usd $0.10"
        ),
        "{stdout}"
    );
    let evals = w
        .stub
        .record("calls")
        .unwrap_or_default()
        .lines()
        .filter(|call| *call != "--version")
        .count();
    assert_eq!(evals, 1, "one suite launched");
    // Collect says the same, with the same exit code.
    let merged = w.run("home-collect", &["collect", &w.path("out")]);
    assert_eq!(merged.status.code(), Some(4), "{}", text(&merged.stderr));
    assert_eq!(text(&merged.stdout), stdout);

    let bad = w.run("home", &["sweep", "--max-total-usd", "0"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("not a positive number"),
        "{}",
        text(&bad.stderr)
    );
}

/// `--max-total-usd` on a matrix is the matrix's budget: each shard gets a
/// share in proportion to its suites (stated in its manifest), holds back
/// each suite's ceiling from it, and the shards together spend no more than
/// the total. (Per shard, as before, the two shards would have spent $0.56.)
#[test]
fn a_sharded_sweep_splits_one_budget() {
    let w = world(2);
    let mut spent = 0.0;
    let mut shares = 0.0;
    for k in 1..=2 {
        let dir = w.path(&format!("shard-{k}"));
        let out = w.run(
            &format!("home-{k}"),
            &[
                "sweep",
                "--shard",
                &format!("{k}/2"),
                "--jobs",
                "2",
                "--max-total-usd",
                "0.30",
                "--out-dir",
                &dir,
            ],
        );
        assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains(&format!("shard {k}/2: budget $0.15 of the sweep's $0.30")),
            "{}",
            text(&out.stderr)
        );
        let manifest = read_json(&Path::new(&dir).join("shard.json"));
        assert_eq!(manifest["budget"]["total_usd"], 0.3);
        shares += manifest["budget"]["share_usd"].as_f64().unwrap();
        let items = manifest["items"].as_array().unwrap();
        assert_eq!(items.len(), 2, "two suites a shard");
        for item in items.iter().filter(|i| i["exit_code"] == 0) {
            let doc = read_json(
                &Path::new(&dir).join(format!("{}.json", item["item"].as_str().unwrap())),
            );
            spent += doc["cost_usd"].as_f64().unwrap();
        }
    }
    assert!(shares <= 0.30 + 1e-9, "{shares}");
    assert!(spent <= 0.30, "the matrix spent {spent}");
    assert!(spent > 0.0);
}

#[test]
fn a_bad_shard_or_out_dir_is_refused_before_anything_runs() {
    let w = world(1);
    for (args, says) in [
        (vec!["sweep", "--shard", "5/4"], "is not K/N"),
        (vec!["sweep", "--shard", "0/4"], "is not K/N"),
        (
            vec!["sweep", "--shard", "1/2", "--out-dir", "/proc/no-such"],
            "--out-dir /proc/no-such",
        ),
    ] {
        let out = w.run("home", &args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains(says),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    assert!(w.stub.record("calls").is_none(), "the platform never ran");
}

/// `collect` names the `run` that completes a suite a shard's ceiling cut
/// short, in the store it put the shard's runs in; followed, it runs.
#[test]
fn collect_names_the_run_that_completes_a_suite_a_shard_cut_short() {
    let w = World::new(&["commit"], Switches::at_the_ceiling());
    let dirs = w.sweep_shards(1, &[]);
    let out = w.run("home", &["collect", &dirs[0]]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let args = printed_args(&err, "bob-eval: commit: complete it: bob-eval ");
    assert_eq!(args[..2], ["run", "commit"], "{args:?}");
    let store = w.path("home/evidence.db");
    assert!(
        args.windows(2).any(|p| p == ["--evidence", store.as_str()]),
        "{args:?}"
    );
    let before = w.calls().len();
    let again = w.run("home", &args);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert!(w.calls().len() > before);
}
