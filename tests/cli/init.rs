//! `bob-eval init` end to end: a suite for each kind of item and for one that
//! does not exist yet, never overwriting, `--bare` cases, `check` holding the
//! fresh suite to its placeholders only (and passing it once they are filled),
//! and `check` in a tree without `evals/`.

use crate::support;
use support::stub::Switches;
use support::world::World;

use bob_eval::check::{INIT_CRITERIA, INIT_FIRES_TASK, INIT_PROMPT, INIT_QUIET_PROMPT};
use serde_json::Value;
use std::fs;

/// A source tree holding `items` (paths of skills, commands or agents under
/// the source), and an empty operator home.
fn tree(items: &[&str]) -> World {
    let tree = World::empty(Switches::default());
    for item in items {
        // A skill's `name` is its folder's; a command or agent needs none.
        let name = item
            .strip_suffix("/SKILL.md")
            .and_then(|s| s.rsplit('/').next())
            .unwrap_or("x");
        // Each described as itself: `check` warns about items described alike.
        let own = item.replace(['/', '.', '-'], "");
        tree.write(
            item,
            &format!("---\nname: {name}\ndescription: The {own} item.\n---\n\nBody.\n"),
        );
    }
    tree
}

/// What these tests do in a world.
trait Init {
    fn bob(&self, args: &[&str]) -> (i32, String, String);
    fn check(&self, items: &[&str]) -> (i32, Vec<(String, String, String)>);
    fn fill(&self, item: &str, case: &str);
}

impl Init for World {
    fn bob(&self, args: &[&str]) -> (i32, String, String) {
        let out = support::cmd::bob(&self.source, &self.home())
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    }

    /// `check --json` on `items`: exit code and `(severity, code, file)` of each finding.
    fn check(&self, items: &[&str]) -> (i32, Vec<(String, String, String)>) {
        let mut args = vec!["check", "--json"];
        args.extend(items);
        let (code, out, err) = self.bob(&args);
        let doc: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
        let found = doc["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let s = |k: &str| d[k].as_str().unwrap().to_string();
                (s("severity"), s("code"), s("file"))
            })
            .collect();
        (code, found)
    }

    /// Fill the placeholders of `case`; for `scoring`, those of the trigger
    /// pair too (init writes them together).
    fn fill(&self, item: &str, case: &str) {
        let mut files = vec![
            (case, "prompt.md", "Summarise the change in one line."),
            (case, "graders/matches.md", "change"),
            (case, "graders/judge.md", "The summary is one line long."),
        ];
        if case == "scoring" {
            files.push(("fires", "graders/teaches.md", "one line"));
            // And the trigger pair's default prompts.
            for (case, default, text) in [
                ("fires", INIT_FIRES_TASK, "on this change: fix the typo."),
                ("quiet", INIT_QUIET_PROMPT, "What does this change touch?"),
            ] {
                let path = self.source.join(format!("evals/{item}/{case}/prompt.md"));
                let old = fs::read_to_string(&path).unwrap();
                assert!(old.contains(default), "{}", path.display());
                fs::write(&path, old.replace(default, text)).unwrap();
            }
        }
        for (case, file, text) in files {
            let path = self.source.join(format!("evals/{item}/{case}/{file}"));
            let old = fs::read_to_string(&path).unwrap();
            assert!(old.contains("TODO: describe"), "{}", path.display());
            fs::write(
                &path,
                old.replace(INIT_PROMPT, text).replace(INIT_CRITERIA, text),
            )
            .unwrap();
        }
    }
}

/// The placeholders `check` reports in `case`; for `scoring`, with the
/// `fires` case's scoring grader first (the findings are sorted by file).
/// The trigger pair's runnable default prompts are warnings.
fn placeholders(item: &str, case: &str) -> Vec<(String, String, String)> {
    let mut files: Vec<(&str, String)> = Vec::new();
    if case == "scoring" {
        files.push(("error", "fires/graders/teaches.md".into()));
        files.push(("warning", "fires/prompt.md".into()));
        files.push(("warning", "quiet/prompt.md".into()));
    }
    for f in ["graders/judge.md", "graders/matches.md", "prompt.md"] {
        files.push(("error", format!("{case}/{f}")));
    }
    files
        .iter()
        .map(|(severity, f)| {
            (
                severity.to_string(),
                "init-placeholder".to_string(),
                format!("evals/{item}/{f}"),
            )
        })
        .collect()
}

const FILES: [&str; 9] = [
    "baseline.json",
    "fires/prompt.md",
    "fires/graders/fires.md",
    "fires/graders/teaches.md",
    "quiet/prompt.md",
    "quiet/graders/quiet.md",
    "scoring/prompt.md",
    "scoring/graders/matches.md",
    "scoring/graders/judge.md",
];

#[test]
fn init_finds_each_kind_and_check_wants_only_the_placeholders() {
    let tree = tree(&[
        "skills/demo/SKILL.md",
        "commands/ship.md",
        "registry/agents/rev.md",
    ]);
    for (item, kind, at) in [
        ("demo", "skill", "skills/demo"),
        ("ship", "command", "commands/ship.md"),
        ("rev", "agent", "registry/agents/rev.md"),
    ] {
        let (code, out, err) = tree.bob(&["init", item]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains(&format!("for the {kind} `{item}`")), "{out}");
        assert!(out.contains(at), "{out}");
        for file in FILES {
            let path = tree.source.join(format!("evals/{item}/{file}"));
            assert!(path.is_file(), "{}", path.display());
            assert!(out.contains(&format!("evals/{item}/{file}")), "{out}");
        }
        assert!(out.contains(&format!("check {item}")), "{out}");
        assert!(out.contains(&format!("run {item} --runs 1")), "{out}");
        let (code, found) = tree.check(&[item]);
        assert_eq!((code, found), (1, placeholders(item, "scoring")));
    }
    // The triggers are pinned to their own item, not to each other's.
    let (code, found) = tree.check(&[]);
    assert_eq!(code, 1);
    assert!(found.iter().all(|f| f.1 == "init-placeholder"), "{found:?}");
    let base: Value = serde_json::from_str(
        &fs::read_to_string(tree.source.join("evals/demo/baseline.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        base,
        serde_json::json!({"schema": "skill-eval-baseline/1", "item": "demo", "best": {}})
    );
}

#[test]
fn filled_in_the_suite_passes_check_and_run_refuses_it_before() {
    let tree = tree(&["skills/demo/SKILL.md", "skills/demo-x/SKILL.md"]);
    for item in ["demo", "demo-x"] {
        assert_eq!(tree.bob(&["init", item]).0, 0);
    }
    // Unfilled, a run is refused before anything is spent.
    let (code, _, err) = tree.bob(&["run", "demo", "--claude", "/nonexistent/claude"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("init"), "{err}");
    for item in ["demo", "demo-x"] {
        tree.fill(item, "scoring");
    }
    let (code, out, err) = tree.bob(&["check"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.starts_with("ok: checked 2 suites (6 cases), no problems"),
        "{out}"
    );
}

#[test]
fn init_for_a_missing_item_writes_the_suite_and_says_so() {
    let tree = tree(&[]);
    let (code, out, err) = tree.bob(&["init", "later"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: no item named `later` in the source")
            && err.contains("skills/later/SKILL.md"),
        "{err}"
    );
    assert!(out.contains("does not exist yet"), "{out}");
    assert!(tree.source.join("evals/later/fires/prompt.md").is_file());
    let (code, mut found) = tree.check(&["later"]);
    assert_eq!(code, 1);
    let warning = found.remove(0);
    assert_eq!(
        warning,
        ("warning".into(), "no-item".into(), "evals/later".into())
    );
    assert_eq!(found, placeholders("later", "scoring"));
    // Once the item exists and the case is filled, the suite is clean.
    tree.write(
        "skills/later/SKILL.md",
        "---\nname: later\ndescription: Later.\n---\n\nBody.\n",
    );
    tree.fill("later", "scoring");
    assert_eq!(tree.check(&["later"]), (0, vec![]));
}

#[test]
fn init_never_overwrites() {
    let tree = tree(&["skills/demo/SKILL.md"]);
    assert_eq!(tree.bob(&["init", "demo"]).0, 0);
    let prompt = tree.source.join("evals/demo/fires/prompt.md");
    fs::write(&prompt, "mine").unwrap();
    fs::remove_dir_all(tree.source.join("evals/demo/scoring")).unwrap();
    let (code, out, err) = tree.bob(&["init", "demo"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("already exists") && err.contains("--bare"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&prompt).unwrap(), "mine");
    assert!(!tree.source.join("evals/demo/scoring").exists());
    // Anything at the suite's place, even an empty folder or a file, is refused.
    fs::create_dir_all(tree.source.join("evals/empty")).unwrap();
    tree.write("evals/afile", "x");
    for item in ["empty", "afile"] {
        assert_eq!(tree.bob(&["init", item]).0, 2, "{item}");
    }
    assert_eq!(
        fs::read_dir(tree.source.join("evals/empty"))
            .unwrap()
            .count(),
        0
    );
    // Bad names write nothing.
    let (code, _, err) = tree.bob(&["init", "Bad/Name"]);
    assert_eq!(code, 2, "{err}");
    let hidden: Vec<_> = fs::read_dir(tree.source.join("evals"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "{hidden:?}");
}

#[test]
fn bare_adds_one_blank_case() {
    let tree = tree(&["skills/demo/SKILL.md"]);
    let (code, _, err) = tree.bob(&["init", "demo", "--bare", "edge"]);
    assert_eq!(code, 2, "no suite yet");
    assert!(err.contains("bob-eval init demo"), "{err}");
    assert_eq!(tree.bob(&["init", "demo"]).0, 0);
    tree.fill("demo", "scoring");
    let (code, out, err) = tree.bob(&["init", "demo", "--bare", "edge"]);
    assert_eq!(code, 0, "{err}");
    for file in ["prompt.md", "graders/matches.md", "graders/judge.md"] {
        assert!(out.contains(&format!("evals/demo/edge/{file}")), "{out}");
    }
    assert!(!out.contains("fires/prompt.md"), "{out}");
    assert_eq!(tree.check(&["demo"]), (1, placeholders("demo", "edge")));
    tree.fill("demo", "edge");
    assert_eq!(tree.check(&["demo"]), (0, vec![]));
    let judge = tree.source.join("evals/demo/edge/graders/judge.md");
    let before = fs::read_to_string(&judge).unwrap();
    for taken in ["edge", "fires", "quiet", "scoring"] {
        let (code, _, err) = tree.bob(&["init", "demo", "--bare", taken]);
        assert_eq!(code, 2, "{taken}");
        assert!(err.contains("already exists"), "{err}");
    }
    for bad in ["results", "Edge", "../x"] {
        assert_eq!(tree.bob(&["init", "demo", "--bare", bad]).0, 2, "{bad}");
    }
    assert_eq!(fs::read_to_string(&judge).unwrap(), before);
}

#[test]
fn check_in_a_tree_without_evals_says_where_it_looked_and_how_to_start() {
    let tree = tree(&["skills/demo/SKILL.md"]);
    for args in [&["check"][..], &["check", "--json"]] {
        let (code, out, err) = tree.bob(args);
        assert_eq!(code, 2, "{out}{err}");
        assert!(out.is_empty(), "{out}");
        assert!(
            err.contains(tree.source.join("evals").to_str().unwrap()),
            "{err}"
        );
        assert!(err.contains("bob-eval init"), "{err}");
    }
    // An evals/ folder with no suite yet is checked as before.
    fs::create_dir_all(tree.source.join("evals")).unwrap();
    assert_eq!(tree.bob(&["check"]).0, 0);
}

#[test]
fn init_prints_paths_relative_to_the_current_directory() {
    let tree = tree(&["skills/demo/SKILL.md"]);
    let out = support::cmd::bob(std::path::Path::new("."), &tree.home())
        .current_dir(&tree.source)
        .args(["init", "demo"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.starts_with("wrote evals/demo/:\n"), "{text}");
    assert!(text.contains(". bob-eval check demo\n"), "{text}");
    assert!(!text.contains(tree.source.to_str().unwrap()), "{text}");
}
