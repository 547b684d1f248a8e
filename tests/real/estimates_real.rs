//! On the real platform tier: `--dry-run` against the real purchase for
//! `run` and `run --neighbours`. The fixture source holds `commit` (its
//! trigger pair, `fires` and `quiet`) and `tidy` beside it; the scripted
//! model fires `commit` on its fires prompt. Each dry run's `buy_runs` is
//! compared with what the real command then bought: the runs the store
//! gained as bought here, and the `--neighbours` runs the document counts
//! (bought every time, never stored).

use crate::support;
use support::tier::{self, Tool};

use serde_json::Value;
use std::path::Path;
use support::fake_api::{FakeApi, Script};
use support::real::source_copy;

const COMMIT: &str = "bob-eval-commit:commit";
const FIRES: &str = "Write the commit message";
const GOOD: &str = "fix(hooks): skip the pre-commit hook when only docs change\n\nSkip the hook because docs-only commits do not need lint or tests.";

fn model() -> Script {
    Script::new()
        .fire_skill(COMMIT, FIRES, GOOD)
        .otherwise("Skip pre-commit hook for docs-only changes.")
        .judge_passes_if_contains("Skip the hook because")
}

/// `bob-eval ARGS` on the real platform against `api`, in `dir`.
fn bob(api: &FakeApi, dir: &Path, source: &Path, args: &[&str]) -> (i32, String, String) {
    let mut cmd =
        support::real::offline(support::cmd::bob(source, &dir.join("bob-home")), api, dir);
    cmd.args(args);
    support::world::outcome(cmd)
}

/// Runs the store holds as bought here.
fn stored(api: &FakeApi, dir: &Path, source: &Path) -> u64 {
    let (code, out, _) = bob(api, dir, source, &["evidence", "list", "--json"]);
    if code != 0 {
        return 0;
    }
    serde_json::from_str::<Value>(&out)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["provenance"]["bought"].as_u64().unwrap())
        .sum()
}

#[test]
fn run_and_neighbours_buy_what_their_dry_run_said() {
    if !tier::present(Tool::Claude) {
        return;
    }
    let api = FakeApi::start(model());
    let dir = tempfile::tempdir().unwrap();
    let source = source_copy(dir.path());
    let skill = source.join("skills/tidy/SKILL.md");
    std::fs::create_dir_all(skill.parent().unwrap()).unwrap();
    std::fs::write(
        &skill,
        "---\nname: tidy\ndescription: Reformat a Markdown table so its columns line up.\n---\nAlign the pipes.\n",
    )
    .unwrap();
    let compare = |args: &[&str]| -> (u64, u64, String) {
        let mut dry_args = args.to_vec();
        dry_args.extend(["--dry-run", "--json"]);
        let (code, out, err) = bob(&api, dir.path(), &source, &dry_args);
        assert_eq!(code, 0, "{out}\n{err}");
        let said = serde_json::from_str::<Value>(&out).unwrap()["buy_runs"]
            .as_u64()
            .unwrap();
        let before = stored(&api, dir.path(), &source);
        let (code, out, err) = bob(&api, dir.path(), &source, args);
        assert_eq!(code, 0, "{args:?}: {out}\n{err}");
        let doc: Value = serde_json::from_str(&out).unwrap();
        let neighbours: u64 = doc["neighbours"]["cases"]
            .as_array()
            .map_or(0, |c| c.iter().map(|c| c["runs"].as_u64().unwrap()).sum());
        let bought = stored(&api, dir.path(), &source) - before + neighbours;
        (said, bought, err)
    };
    let run = ["run", "commit", "--runs", "1", "--max-cost-usd", "2"];
    let (said, bought, err) = compare(&run);
    assert_eq!((said, bought), (4, 4), "2 cases × 2 arms: {err}");

    // An edit of the skill: the with arm alone is bought again.
    let commit = source.join("skills/commit/SKILL.md");
    let text = std::fs::read_to_string(&commit).unwrap();
    std::fs::write(&commit, format!("{text}\nOne more line.\n")).unwrap();
    let (said, bought, err) = compare(&run);
    assert_eq!((said, bought), (2, 2), "the with arm of 2 cases: {err}");

    // The suite's runs all stored: --neighbours still buys its own.
    let mut neighbours = run.to_vec();
    neighbours.push("--neighbours");
    let (said, bought, err) = compare(&neighbours);
    assert_eq!(
        (said, bought),
        (2, 2),
        "fires × 1, quiet × 1 on one arm: {err}"
    );
    assert!(err.contains("runs: 2 bought ("), "{err}");
}
