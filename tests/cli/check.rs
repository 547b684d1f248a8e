//! `bob-eval check` end to end: for every check, a suite that trips it and one
//! that does not; the new-user cases; the bundled suites; the JSON shape; and a
//! property test that the loader never panics.

use crate::support;
use support::stub::Switches;
use support::world::World;

use assert_cmd::prelude::*;
use bob_eval::check;
use bob_eval::suite;
use camino::{Utf8Path, Utf8PathBuf};
use proptest::prelude::*;
use serde_json::Value;
use std::fs;
use support::cmd::bob;

const PIN: &str = r#"'"skill"\s*:\s*"(?:[\w-]+:)?demo"'"#;

/// A world (testkit's) whose source holds one clean suite for the item `demo`.
fn good() -> World {
    let src = World::empty(Switches::default());
    src.suite("demo");
    src
}

/// What these tests do in a world, beside [`World::write`].
trait Checks {
    fn root(&self) -> Utf8PathBuf;
    fn remove(&self, rel: &str) -> &Self;
    fn suite(&self, item: &str);
    fn cmd(&self, args: &[&str]) -> assert_cmd::assert::Assert;
    fn json(&self) -> (i32, Value);
    fn human(&self) -> (i32, String);
}

impl Checks for World {
    /// The source tree, as the library's paths are.
    fn root(&self) -> Utf8PathBuf {
        Utf8PathBuf::from_path_buf(self.source.clone()).unwrap()
    }

    fn remove(&self, rel: &str) -> &Self {
        let path = self.root().join(rel);
        if path.is_dir() {
            fs::remove_dir_all(path).unwrap()
        } else {
            fs::remove_file(path).unwrap()
        }
        self
    }

    fn suite(&self, item: &str) {
        let pin = PIN.replace("demo", item);
        self.write(
            &format!("skills/{item}/SKILL.md"),
            &format!("---\nname: {item}\ndescription: Demo.\n---\n\nBody.\n"),
        );
        self.write(
            &format!("evals/{item}/baseline.json"),
            &format!(r#"{{"schema":"skill-eval-baseline/1","item":"{item}","best":{{}}}}"#),
        );
        self.write(
            &format!("evals/{item}/fires/prompt.md"),
            "---\ndescription: fires\nmax_turns: 5\nallowed_tools: [Skill, Read]\n---\n\nPlease do the demo thing.\n",
        );
        self.write(
            &format!("evals/{item}/fires/graders/fires.md"),
            &format!("---\ntype: tool_used\ntool: Skill\ninput_match: {pin}\n---\n"),
        );
        self.write(
            &format!("evals/{item}/fires/graders/says.md"),
            "---\ntype: llm\n---\n\nThe answer says demo.\n",
        );
        self.write(
            &format!("evals/{item}/quiet/prompt.md"),
            "---\nmax_turns: 3\n---\n\nWhat is 2 + 2?\n",
        );
        self.write(
            &format!("evals/{item}/quiet/graders/quiet.md"),
            &format!("---\ntype: tool_used\ntool: Skill\ninput_match: {pin}\nmin: 0\nmax: 0\narm: both\n---\n"),
        );
    }

    fn cmd(&self, args: &[&str]) -> assert_cmd::assert::Assert {
        bob(&self.source, &self.home())
            .arg("check")
            .args(args)
            .assert()
    }

    /// `check --json`: exit code and document.
    fn json(&self) -> (i32, Value) {
        let out = self.cmd(&["--json"]).get_output().clone();
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "bad JSON ({e}): {}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.code().unwrap(), doc)
    }

    /// `check` human output: exit code and stdout.
    fn human(&self) -> (i32, String) {
        let out = self.cmd(&[]).get_output().clone();
        (
            out.status.code().unwrap(),
            String::from_utf8(out.stdout).unwrap(),
        )
    }
}

fn codes(doc: &Value) -> Vec<String> {
    doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_owned())
        .collect()
}

fn find<'a>(doc: &'a Value, code: &str) -> &'a Value {
    doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == code)
        .unwrap_or_else(|| panic!("no {code} in {doc:#}"))
}

/// Files to write over the good suite (`None` removes the path).
type Edit<'a> = (&'a str, Option<&'a str>);

fn apply(src: &World, edits: &[Edit]) {
    for (path, text) in edits {
        match text {
            Some(text) => src.write(path, text),
            None => src.remove(path),
        };
    }
}

/// The trip edits produce `code` (and exit 1 for errors, 0 for warnings); the
/// near-miss edits produce no finding at all and exit 0.
fn trips(code: &str, severity: &str, trip: &[Edit], near_miss: &[Edit]) -> Value {
    let src = good();
    apply(&src, trip);
    let (status, doc) = src.json();
    let d = find(&doc, code).clone();
    assert_eq!(d["severity"], severity, "{doc:#}");
    assert!(!d["message"].as_str().unwrap().is_empty() && !d["fix"].as_str().unwrap().is_empty());
    assert!(d["file"].as_str().unwrap().starts_with("evals/demo"), "{d}");
    assert_eq!(status, if severity == "error" { 1 } else { 0 }, "{doc:#}");

    let src = good();
    apply(&src, near_miss);
    let (status, doc) = src.json();
    // A near miss may hold a scaffold script, which is always warned about.
    let found: Vec<String> = codes(&doc)
        .into_iter()
        .filter(|c| c != "scaffold-script")
        .collect();
    assert_eq!(found, Vec::<String>::new(), "near miss for {code}: {doc:#}");
    assert_eq!(status, 0);
    d
}

const FIRES: &str = "evals/demo/fires/prompt.md";
const GRADER: &str = "evals/demo/fires/graders/says.md";
const CASE_YAML: &str = "evals/demo/fires/case.yaml";
const FIRES_TRIGGER: &str = "evals/demo/fires/graders/fires.md";
const QUIET_TRIGGER: &str = "evals/demo/quiet/graders/quiet.md";

fn prompt(frontmatter: &str) -> String {
    format!("---\n{frontmatter}---\n\nPlease do the demo thing.\n")
}

fn case_yaml(extra: &str) -> String {
    format!("schema_version: \"1.1\"\nname: fires\n{extra}")
}

#[test]
fn the_good_suite_is_clean() {
    let (status, doc) = good().json();
    assert_eq!(status, 0);
    assert_eq!(doc["errors"], 0);
    assert_eq!(doc["warnings"], 0);
    assert_eq!(
        doc["suites"][0]["cases"],
        serde_json::json!(["fires", "quiet"])
    );
}

#[test]
fn unknown_prompt_key_suggests_the_closest() {
    let d = trips(
        "unknown-key",
        "error",
        &[(FIRES, Some(&prompt("max_turn: 5\n")))],
        &[(FIRES, Some(&prompt("max_turns: 5\n")))],
    );
    assert_eq!(d["file"], FIRES);
    assert_eq!(d["line"], 2);
    assert_eq!(d["fix"], "did you mean `max_turns`?");
}

#[test]
fn unknown_grader_key() {
    let d = trips(
        "unknown-key",
        "error",
        &[(
            GRADER,
            Some("---\ntype: llm\nfocuss: trace\n---\n\nSays demo.\n"),
        )],
        &[(
            GRADER,
            Some("---\ntype: llm\nfocus: trace\n---\n\nSays demo.\n"),
        )],
    );
    assert_eq!(d["line"], 3);
    assert_eq!(d["fix"], "did you mean `focus`?");
}

#[test]
fn missing_type() {
    trips(
        "missing-type",
        "error",
        &[(GRADER, Some("---\nweight: 2\n---\n\nSays demo.\n"))],
        &[(
            GRADER,
            Some("---\ntype: llm\nweight: 2\n---\n\nSays demo.\n"),
        )],
    );
}

#[test]
fn mistyped_type_key() {
    let d = trips(
        "unknown-key",
        "error",
        &[(
            GRADER,
            Some("---\ntyp: llm\nweight: 2\n---\n\nSays demo.\n"),
        )],
        &[(
            GRADER,
            Some("---\ntype: llm\nweight: 2\n---\n\nSays demo.\n"),
        )],
    );
    assert_eq!(d["fix"], "did you mean `type`?");
    assert_eq!(d["line"], 2);
}

#[test]
fn unknown_grader_type() {
    let d = trips(
        "unknown-grader-type",
        "error",
        &[(GRADER, Some("---\ntype: regexp\npattern: demo\n---\n"))],
        &[(GRADER, Some("---\ntype: regex\npattern: demo\n---\n"))],
    );
    assert_eq!(d["fix"], "did you mean `regex`?");
}

#[test]
fn missing_grader_key() {
    trips(
        "missing-key",
        "error",
        &[(GRADER, Some("---\ntype: llm\n---\n"))],
        &[(GRADER, Some("---\ntype: llm\n---\nSays demo.\n"))],
    );
}

#[test]
fn schema_version_not_a_string() {
    let d = trips(
        "schema-version",
        "error",
        &[(CASE_YAML, Some("schema_version: 1.1\nname: fires\n"))],
        &[(CASE_YAML, Some(&case_yaml("")))],
    );
    assert_eq!(d["file"], CASE_YAML);
    assert_eq!(d["line"], 1);
}

#[test]
fn schema_version_too_new() {
    trips(
        "schema-version",
        "error",
        &[(CASE_YAML, Some("schema_version: \"2.0\"\nname: fires\n"))],
        &[(CASE_YAML, Some("schema_version: \"1.0\"\nname: fires\n"))],
    );
}

#[test]
fn runs_out_of_range() {
    trips(
        "out-of-range",
        "error",
        &[(FIRES, Some(&prompt("runs: 51\n")))],
        &[(FIRES, Some(&prompt("runs: 50\n")))],
    );
    trips(
        "out-of-range",
        "error",
        &[(FIRES, Some(&prompt("runs: 0\n")))],
        &[(FIRES, Some(&prompt("runs: 1\n")))],
    );
}

#[test]
fn max_turns_out_of_range() {
    trips(
        "out-of-range",
        "error",
        &[(FIRES, Some(&prompt("max_turns: 201\n")))],
        &[(FIRES, Some(&prompt("max_turns: 200\n")))],
    );
}

#[test]
fn timeout_out_of_range() {
    trips(
        "out-of-range",
        "error",
        &[(
            CASE_YAML,
            Some(&case_yaml("execution:\n  timeout_seconds: 3601\n")),
        )],
        &[(
            CASE_YAML,
            Some(&case_yaml("execution:\n  timeout_seconds: 3600\n")),
        )],
    );
}

#[test]
fn mistyped_values() {
    trips(
        "wrong-type",
        "error",
        &[(FIRES, Some(&prompt("allowed_tools: Skill, Read\n")))],
        &[(FIRES, Some(&prompt("allowed_tools: [Skill, Read]\n")))],
    );
    trips(
        "wrong-type",
        "error",
        &[(FIRES, Some(&prompt("max_turns: \"five\"\n")))],
        &[(FIRES, Some(&prompt("max_turns: 5\n")))],
    );
}

#[test]
fn env_keys_must_be_eval() {
    let d = trips(
        "env-key",
        "error",
        &[(
            CASE_YAML,
            Some(&case_yaml("execution:\n  env:\n    api_mode: x\n")),
        )],
        &[(
            CASE_YAML,
            Some(&case_yaml("execution:\n  env:\n    EVAL_API_MODE: x\n")),
        )],
    );
    assert_eq!(d["fix"], "rename it `EVAL_API_MODE`");
    trips(
        "env-key",
        "error",
        &[(FIRES, Some(&prompt("env:\n  HOME: /tmp\n")))],
        &[(FIRES, Some(&prompt("env:\n  EVAL_HOME: /tmp\n")))],
    );
}

#[test]
fn a_scaffold_script_is_warned_about_and_a_folder_refused() {
    let setup = ("evals/demo/fires/setup.sh", Some("#!/bin/sh\n"));
    let d = trips(
        "scaffold-script",
        "warning",
        &[
            (
                CASE_YAML,
                Some(&case_yaml("context:\n  scaffold_script: setup.sh\n")),
            ),
            setup,
        ],
        &[(CASE_YAML, Some(&case_yaml("")))],
    );
    let message = d["message"].as_str().unwrap();
    assert!(
        message.contains("--scaffold") && message.contains("as you"),
        "{d}"
    );
    assert!(d["fix"].as_str().unwrap().contains("--no-scaffold"), "{d}");
    trips(
        "not-a-file",
        "error",
        &[
            (
                CASE_YAML,
                Some(&case_yaml("context:\n  scaffold_script: setup\n")),
            ),
            ("evals/demo/fires/setup/run.sh", Some("#!/bin/sh\n")),
        ],
        &[(CASE_YAML, Some(&case_yaml("")))],
    );
}

#[test]
fn paths_must_stay_in_the_case() {
    let setup = ("evals/demo/fires/setup.sh", Some("#!/bin/sh\n"));
    trips(
        "path-escape",
        "error",
        &[
            (
                CASE_YAML,
                Some(&case_yaml("context:\n  scaffold_script: ../setup.sh\n")),
            ),
            setup,
        ],
        &[
            (
                CASE_YAML,
                Some(&case_yaml("context:\n  scaffold_script: setup.sh\n")),
            ),
            setup,
        ],
    );
    trips(
        "path-escape",
        "error",
        &[(
            CASE_YAML,
            Some(&case_yaml("context:\n  history_file: /etc/passwd\n")),
        )],
        &[
            (
                CASE_YAML,
                Some(&case_yaml("context:\n  history_file: setup.sh\n")),
            ),
            setup,
        ],
    );
    trips(
        "path-escape",
        "error",
        &[
            (
                CASE_YAML,
                Some(&case_yaml("context:\n  add_dirs: [data, ../../other]\n")),
            ),
            ("evals/demo/fires/data/x", Some("")),
        ],
        &[
            (
                CASE_YAML,
                Some(&case_yaml("context:\n  add_dirs: [data]\n")),
            ),
            ("evals/demo/fires/data/x", Some("")),
        ],
    );
    trips(
        "path-escape",
        "error",
        &[(
            GRADER,
            Some("---\ntype: baseline\nbaseline_file: ../b.jsonl\n---\nAs good.\n"),
        )],
        &[
            (
                GRADER,
                Some("---\ntype: baseline\nbaseline_file: b.jsonl\n---\nAs good.\n"),
            ),
            ("evals/demo/fires/b.jsonl", Some("{}\n")),
        ],
    );
}

#[test]
fn referenced_files_must_exist() {
    trips(
        "missing-file",
        "error",
        &[(
            GRADER,
            Some("---\ntype: baseline\nbaseline_file: b.jsonl\n---\nAs good.\n"),
        )],
        &[
            (
                GRADER,
                Some("---\ntype: baseline\nbaseline_file: b.jsonl\n---\nAs good.\n"),
            ),
            ("evals/demo/fires/b.jsonl", Some("{}\n")),
        ],
    );
}

#[test]
fn empty_prompt() {
    trips(
        "empty-prompt",
        "error",
        &[(FIRES, Some("---\nmax_turns: 5\n---\n\n  \n"))],
        &[(FIRES, Some("---\nmax_turns: 5\n---\n\nHi.\n"))],
    );
}

#[test]
fn init_placeholders() {
    let d = trips(
        "init-placeholder",
        "error",
        &[(
            FIRES,
            Some(
                "---\nmax_turns: 10\nallowed_tools: [Read, Glob, Grep, Skill]\n---\n\nTODO: describe what the agent should do\n",
            ),
        )],
        &[(
            FIRES,
            Some(
                "---\nmax_turns: 10\nallowed_tools: [Read, Glob, Grep, Skill]\n---\n\nDescribe the demo.\n",
            ),
        )],
    );
    assert_eq!(d["line"], 6);
    trips(
        "init-placeholder",
        "error",
        &[(
            GRADER,
            Some(
                "---\ntype: llm\nweight: 1\n---\n\nTODO: describe what a successful response looks like\n",
            ),
        )],
        &[(
            GRADER,
            Some("---\ntype: llm\nweight: 1\n---\n\nThe answer describes the demo.\n"),
        )],
    );
    // A regex placeholder is fixed with a regex, not with criteria.
    let d = trips(
        "init-placeholder",
        "error",
        &[(
            GRADER,
            Some(
                "---\ntype: regex\npattern: 'TODO: describe what a successful response looks like'\n---\n",
            ),
        )],
        &[(GRADER, Some("---\ntype: regex\npattern: 'demo'\n---\n"))],
    );
    let fix = d["fix"].as_str().unwrap();
    assert!(fix.contains("regex a good response matches"), "{fix}");
}

#[test]
fn suite_with_no_case() {
    trips(
        "no-cases",
        "error",
        &[
            ("evals/demo/fires", None),
            ("evals/demo/quiet", None),
            ("evals/demo/results/x/prompt.md", Some("Hi")),
        ],
        &[("evals/demo/results/x/prompt.md", Some("Hi"))],
    );
}

#[test]
fn case_with_no_grader() {
    trips(
        "no-graders",
        "error",
        &[("evals/demo/group/extra/prompt.md", Some("Hello.\n"))],
        &[
            ("evals/demo/group/extra/prompt.md", Some("Hello.\n")),
            (
                "evals/demo/group/extra/graders/ok.md",
                Some("---\ntype: llm\n---\nGreets.\n"),
            ),
        ],
    );
}

#[test]
fn grader_without_frontmatter() {
    let d = trips(
        "grader-no-frontmatter",
        "error",
        &[(
            "evals/demo/fires/graders/extra.md",
            Some("The answer is polite.\n"),
        )],
        &[(
            "evals/demo/fires/graders/extra.md",
            Some("---\ntype: llm\n---\nThe answer is polite.\n"),
        )],
    );
    assert_eq!(d["file"], "evals/demo/fires/graders/extra.md");
}

#[test]
fn unknown_case_yaml_keys() {
    let d = trips(
        "unknown-key",
        "error",
        &[(CASE_YAML, Some(&case_yaml("max_turns: 4\n")))],
        // The same value as prompt.md's `max_turns: 5` (a different one is `overridden-key`).
        &[(CASE_YAML, Some(&case_yaml("execution:\n  max_turns: 5\n")))],
    );
    assert_eq!(d["line"], 3);
    assert_eq!(d["fix"], "move `max_turns` under `execution:`");
    trips(
        "unknown-key",
        "error",
        &[(CASE_YAML, Some(&case_yaml("descripton: x\n")))],
        &[(CASE_YAML, Some(&case_yaml("description: x\n")))],
    );
}

#[test]
fn invalid_regex() {
    trips(
        "regex-invalid",
        "error",
        &[(
            GRADER,
            Some("---\ntype: regex\npattern: '(unclosed'\n---\n"),
        )],
        &[(GRADER, Some("---\ntype: regex\npattern: '(closed)'\n---\n"))],
    );
    trips(
        "regex-invalid",
        "error",
        &[(
            GRADER,
            Some(
                "---\ntype: tool_order\nbefore: Read\nafter: {tool: Write, input_match: 'a{2,1}'}\n---\n",
            ),
        )],
        &[(
            GRADER,
            Some(
                "---\ntype: tool_order\nbefore: Read\nafter: {tool: Write, input_match: 'a{1,2}'}\n---\n",
            ),
        )],
    );
}

#[test]
fn inline_flags_are_refused() {
    let d = trips(
        "regex-inline-flags",
        "error",
        &[(GRADER, Some("---\ntype: regex\npattern: '(?i)demo'\n---\n"))],
        &[(
            GRADER,
            Some("---\ntype: regex\npattern: 'demo'\nflags: i\n---\n"),
        )],
    );
    assert_eq!(d["fix"], "remove `(?i)` and use flags: i");
}

#[test]
fn flags_only_dgimsuvy() {
    trips(
        "regex-flags",
        "error",
        &[(
            GRADER,
            Some("---\ntype: regex\npattern: demo\nflags: ix\n---\n"),
        )],
        &[(
            GRADER,
            Some("---\ntype: regex\npattern: demo\nflags: dgimsy\n---\n"),
        )],
    );
    trips(
        "regex-flags",
        "error",
        &[(
            GRADER,
            Some("---\ntype: regex\npattern: demo\nflags: ii\n---\n"),
        )],
        &[(
            GRADER,
            Some("---\ntype: regex\npattern: demo\nflags: i\n---\n"),
        )],
    );
}

#[test]
fn invalid_values() {
    trips(
        "invalid-value",
        "error",
        &[(
            GRADER,
            Some("---\ntype: regex\npattern: demo\nmatch: exact\narm: both\n---\n"),
        )],
        &[(
            GRADER,
            Some("---\ntype: regex\npattern: demo\nmatch: count:2\narm: both\n---\n"),
        )],
    );
    trips(
        "invalid-value",
        "error",
        &[(GRADER, Some("---\ntype: llm\narm: sometimes\n---\nX.\n"))],
        &[(GRADER, Some("---\ntype: llm\narm: both\n---\nX.\n"))],
    );
}

#[test]
fn a_case_scored_by_its_trigger_alone() {
    // The fires case's only scoring grader made with-only, or removed: every
    // grader left is with-only, so the platform scores the trigger itself.
    let d = trips(
        "scored-by-trigger",
        "error",
        &[(GRADER, Some("---\ntype: llm\narm: with-only\n---\nX.\n"))],
        &[(GRADER, Some("---\ntype: llm\n---\nX.\n"))],
    );
    let message = d["message"].as_str().unwrap();
    assert!(
        message.contains("case `fires`") && message.contains("trigger rate"),
        "{message}"
    );
    assert!(
        d["fix"]
            .as_str()
            .unwrap()
            .contains("grader of what the item teaches"),
        "{d}"
    );
    trips("scored-by-trigger", "error", &[(GRADER, None)], &[]);
}

#[test]
fn duplicate_grader_names() {
    trips(
        "duplicate-grader",
        "error",
        &[(
            CASE_YAML,
            Some(&case_yaml(
                "graders:\n  - name: says\n    type: llm\n    criteria: Says demo.\n",
            )),
        )],
        &[(
            CASE_YAML,
            Some(&case_yaml(
                "graders:\n  - name: other\n    type: llm\n    criteria: Says demo.\n",
            )),
        )],
    );
}

#[test]
fn missing_fires_or_quiet_case() {
    let d = trips("no-fires-case", "error", &[("evals/demo/fires", None)], &[]);
    assert_eq!(d["file"], "evals/demo");
    trips("no-quiet-case", "error", &[("evals/demo/quiet", None)], &[]);
}

#[test]
fn fires_needs_a_skill_grader_with_min_one() {
    trips("fires-no-trigger", "error", &[(FIRES_TRIGGER, None)], &[]);
    trips(
        "fires-no-trigger",
        "error",
        &[(
            FIRES_TRIGGER,
            Some(&format!(
                "---\ntype: tool_used\ntool: Skill\ninput_match: {PIN}\nmin: 0\n---\n"
            )),
        )],
        &[(
            FIRES_TRIGGER,
            Some(&format!(
                "---\ntype: tool_used\ntool: Skill\ninput_match: {PIN}\nmin: 2\n---\n"
            )),
        )],
    );
}

#[test]
fn quiet_needs_min_max_zero_and_arm_both() {
    let d = trips(
        "quiet-no-trigger",
        "error",
        &[(
            QUIET_TRIGGER,
            Some(&format!(
                "---\ntype: tool_used\ntool: Skill\ninput_match: {PIN}\nmin: 0\nmax: 0\n---\n"
            )),
        )],
        &[],
    );
    assert_eq!(d["fix"], "set arm: both");
    trips(
        "quiet-no-trigger",
        "error",
        &[
            (QUIET_TRIGGER, None),
            (
                "evals/demo/quiet/graders/a.md",
                Some("---\ntype: llm\n---\nX.\n"),
            ),
        ],
        &[],
    );
}

#[test]
fn trigger_must_be_pinned() {
    trips(
        "trigger-unpinned",
        "error",
        &[(
            FIRES_TRIGGER,
            Some("---\ntype: tool_used\ntool: Skill\n---\n"),
        )],
        &[],
    );
}

#[test]
fn trigger_must_match_the_item() {
    trips(
        "trigger-misses-item",
        "error",
        &[(
            FIRES_TRIGGER,
            Some("---\ntype: tool_used\ntool: Skill\ninput_match: '\"skill\":\"demo\"'\n---\n"),
        )],
        &[(
            FIRES_TRIGGER,
            Some(
                "---\ntype: tool_used\ntool: Skill\ninput_match: '\"skill\":\"(?:[\\w-]+:)?demo\"'\n---\n",
            ),
        )],
    );
}

#[test]
fn trigger_must_not_match_other_items() {
    // Synthetic near-miss: `xdemo`.
    trips(
        "trigger-too-broad",
        "error",
        &[(
            QUIET_TRIGGER,
            Some(
                "---\ntype: tool_used\ntool: Skill\ninput_match: 'demo\"'\nmin: 0\nmax: 0\narm: both\n---\n",
            ),
        )],
        &[],
    );
    // Another suite in the source: `demo-extra`.
    let src = good();
    src.suite("demo-extra");
    src.write(FIRES_TRIGGER, "---\ntype: tool_used\ntool: Skill\ninput_match: '\"skill\":\"(?:[\\w-]+:)?demo(?:-extra)?\"'\n---\n");
    let (status, doc) = src.json();
    assert_eq!(status, 1);
    let d = find(&doc, "trigger-too-broad");
    assert!(d["message"].as_str().unwrap().contains("demo-extra"), "{d}");
}

#[test]
fn gated_tools_warn() {
    let d = trips(
        "gated-tool",
        "warning",
        &[(
            FIRES,
            Some(&prompt("allowed_tools: [Skill, Read, Bash(git:*)]\n")),
        )],
        &[(FIRES, Some(&prompt("allowed_tools: [Skill, Read, Grep]\n")))],
    );
    assert!(d["fix"].as_str().unwrap().contains("--allow-tools Bash"));
}

#[test]
fn missing_item_warns() {
    trips("no-item", "warning", &[("skills/demo", None)], &[]);
}

#[test]
fn bad_baseline() {
    trips(
        "baseline-invalid",
        "error",
        &[("evals/demo/baseline.json", Some(r#"{"schema":"nope"}"#))],
        &[("evals/demo/baseline.json", None)],
    );
}

/// A baseline.json that cannot be read (here a folder) is refused by `gate`,
/// so `check` must say so rather than pass it by.
#[test]
fn unreadable_baseline() {
    let d = trips(
        "baseline-invalid",
        "error",
        &[
            ("evals/demo/baseline.json", None),
            ("evals/demo/baseline.json/x", Some("{}")),
        ],
        &[],
    );
    assert_eq!(d["file"], "evals/demo/baseline.json");
    assert!(
        d["message"].as_str().unwrap().starts_with("cannot read"),
        "{d}"
    );
}

#[test]
fn yaml_and_frontmatter_errors_name_the_line() {
    let src = good();
    src.write(GRADER, "---\ntype: llm\nfocus: [unclosed\n---\nX.\n");
    src.write(FIRES, "---\nmax_turns: 5\nno closing\n");
    let (status, doc) = src.json();
    assert_eq!(status, 1);
    let d = find(&doc, "invalid-yaml");
    assert_eq!(d["file"], GRADER);
    assert!(d["line"].as_u64().unwrap() >= 3, "{d}");
    assert_eq!(find(&doc, "unterminated-frontmatter")["file"], FIRES);
}

/// One human line naming the file and the fix, then the summary.
fn one_line(edits: &[Edit], file: &str, fix: &str) {
    let src = good();
    apply(&src, edits);
    let (status, text) = src.human();
    assert_eq!(status, 1, "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with(file), "{text}");
    assert!(lines[0].contains(&format!("— fix: {fix}")), "{text}");
    assert!(
        lines[1].starts_with("failed: checked 1 suite (")
            && lines[1].ends_with("1 error, 0 warnings"),
        "{text}"
    );
}

#[test]
fn new_user_typo() {
    one_line(
        &[(FIRES, Some(&prompt("max_turn: 5\n")))],
        "evals/demo/fires/prompt.md:2: error: unknown key `max_turn`",
        "did you mean `max_turns`?",
    );
}

#[test]
fn new_user_inline_flag() {
    one_line(
        &[(GRADER, Some("---\ntype: regex\npattern: '(?i)demo'\n---\n"))],
        "evals/demo/fires/graders/says.md:3: error:",
        "remove `(?i)` and use flags: i",
    );
}

#[test]
fn new_user_grader_without_frontmatter() {
    one_line(
        &[(
            "evals/demo/fires/graders/polite.md",
            Some("The answer is polite.\n"),
        )],
        "evals/demo/fires/graders/polite.md:1: error:",
        "start the file with `---`",
    );
}

#[test]
fn new_user_missing_quiet_case() {
    one_line(
        &[("evals/demo/quiet", None)],
        "evals/demo: error: the suite has no `quiet` case",
        "add evals/demo/quiet/",
    );
}

#[test]
fn human_output_snapshot() {
    let src = good();
    apply(
        &src,
        &[
            (
                FIRES,
                Some(&prompt("max_turn: 5\nallowed_tools: [Skill, Write]\n")),
            ),
            (
                GRADER,
                Some("---\ntype: regex\npattern: '(?i)demo'\nflags: q\n---\n"),
            ),
            ("evals/demo/quiet", None),
        ],
    );
    let (status, text) = src.human();
    assert_eq!(status, 1);
    insta::assert_snapshot!(text);
}

#[test]
fn json_shape() {
    let src = good();
    src.write(FIRES, &prompt("max_turn: 5\n"));
    let (_, doc) = src.json();
    assert_eq!(doc["schema"], "bob-eval-check/1");
    assert_eq!(doc["suites"][0]["item"], "demo");
    assert_eq!(doc["suites"][0]["dir"], "evals/demo");
    assert_eq!(doc["errors"], 1);
    assert_eq!(doc["warnings"], 0);
    let d = &doc["diagnostics"][0];
    let keys: Vec<&str> = d.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["code", "file", "fix", "line", "message", "severity"]);
}

#[test]
fn named_items() {
    let src = good();
    src.suite("other");
    src.write("evals/other/quiet/graders/quiet.md", "broken: [\n");
    src.cmd(&["demo"]).code(0);
    src.cmd(&["other"]).code(1);
    src.cmd(&[]).code(1);
    src.cmd(&["Bad/Name"])
        .code(2)
        .stderr(predicates::str::contains("invalid item name"));
    src.cmd(&["missing"])
        .code(2)
        .stderr(predicates::str::contains("no eval suite for \"missing\""));
}

#[test]
fn groups_nest_and_skipped_folders_are_skipped() {
    let src = good();
    src.write("evals/demo/group/deep/prompt.md", "Hello.\n");
    src.write(
        "evals/demo/group/deep/graders/g.md",
        "---\ntype: regex\npattern: hi\n---\n",
    );
    src.write(
        "evals/demo/group/deep/nested/prompt.md",
        "not a case: inside a case\n",
    );
    for skipped in ["results", "mocks", "node_modules", ".claude", ".git"] {
        // Refused as a case; under mocks/ the platform reads it as a valid
        // responder (`error: true`) for a tool named `prompt`.
        src.write(
            &format!("evals/demo/{skipped}/x/prompt.md"),
            "---\nerror: true\n---\n",
        );
    }
    let (status, doc) = src.json();
    assert_eq!(status, 0, "{doc:#}");
    assert_eq!(
        doc["suites"][0]["cases"],
        serde_json::json!(["fires", "deep", "quiet"])
    );
}

#[test]
fn case_yaml_merges_with_prompt_md() {
    let src = good();
    src.write(
        CASE_YAML,
        "schema_version: \"1.1\"\nname: fires\nruns: 2\nexecution:\n  prompt: from yaml\n  max_turns: 9\ngraders:\n  - name: first\n    type: regex\n    pattern: demo\n",
    );
    let suite = suite::load(&src.root(), &"demo".parse().unwrap()).unwrap();
    let case = suite.cases.iter().find(|c| c.name == "fires").unwrap();
    assert_eq!(case.source, suite::CaseSource::Mixed);
    assert_eq!(case.prompt_text(), "Please do the demo thing.");
    assert_eq!(case.max_turns(), 5);
    assert_eq!(case.runs(), 2);
    assert_eq!(case.timeout_seconds(), 300);
    let names: Vec<&str> = case.graders.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["first", "fires", "says"]);
    assert_eq!(
        case.graders[2].str("criteria"),
        Some("The answer says demo.")
    );
    assert_eq!(case.execution["max_turns"].line, Some(3));
    assert_eq!(case.execution["max_turns"].file, src.root().join(FIRES));
}

#[test]
fn suite_list_is_sorted_and_ignores_files() {
    let src = good();
    src.suite("alpha");
    src.write("evals/README.md", "x");
    assert_eq!(suite::list(&src.root()).unwrap(), ["alpha", "demo"]);
    assert_eq!(
        suite::list(&src.root().join("nowhere")).unwrap(),
        Vec::<String>::new()
    );
}

#[test]
fn bundled_suites_pass() {
    let root = Utf8Path::new(env!("CARGO_MANIFEST_DIR"));
    let report = check::check_suites(root, &[]).unwrap();
    assert!(report.diagnostics.is_empty(), "{:#?}", report.diagnostics);
    let items: Vec<&str> = report.suites.iter().map(|s| s.item.as_str()).collect();
    assert!(
        items.contains(&"commit") && items.contains(&"tdd-flow"),
        "{items:?}"
    );
    let home = tempfile::tempdir().unwrap();
    bob(root.as_std_path(), home.path())
        .arg("check")
        .assert()
        .code(0);
}

fn bundled_pattern(item: &str, case: &str, grader: &str) -> regress::Regex {
    let suite = suite::load(
        Utf8Path::new(env!("CARGO_MANIFEST_DIR")),
        &item.parse().unwrap(),
    )
    .unwrap();
    let case = suite.cases.iter().find(|c| c.name == case).unwrap();
    let g = case.graders.iter().find(|g| g.name == grader).unwrap();
    let Some(suite::GraderSpec::Regex { pattern, flags, .. }) = g.spec() else {
        panic!("{grader} is not a regex grader")
    };
    check::js_regex(&pattern, &flags).unwrap()
}

#[test]
fn bundled_commit_subject_regex() {
    let re = bundled_pattern("commit", "fires", "subject");
    for good in [
        "fix(hooks): return an empty list so repos without hooks stop crashing",
        "```\nfix: stop the hook runner crashing when no hooks are set\n\nBody.\n```",
        "Here it is:\n\nfix(hooks)!: stop crashing without hooks",
    ] {
        assert!(re.find(good).is_some(), "should accept {good:?}");
    }
    let long = format!("fix(hooks): {}", "x".repeat(70));
    for bad in [
        "feat: add hooks",
        "Fix hooks",
        "fix:missing space",
        long.as_str(),
    ] {
        assert!(re.find(bad).is_none(), "should refuse {bad:?}");
    }
    let boiler = bundled_pattern("commit", "fires", "no-boilerplate");
    assert!(
        boiler
            .find("fix: x\n\n🤖 Generated with Claude Code")
            .is_some()
    );
    assert!(
        boiler
            .find("fix: x\n\nCo-authored-by: Claude <noreply@anthropic.com>")
            .is_some()
    );
    assert!(boiler.find("fix: x\n\nFixes #12").is_none());
}

#[test]
fn bundled_tdd_test_first_regex() {
    let re = bundled_pattern("tdd-flow", "fires", "test-first");
    let test_first = "First the test:\n```python\ndef test_slugify_basic():\n    assert slugify('Hello, World!') == 'hello-world'\n```\nRun it: it fails.\n```python\ndef slugify(title):\n    ...\n```";
    let impl_first = "```python\ndef slugify(title):\n    ...\n```\nThen a test:\n```python\ndef test_slugify_basic():\n    ...\n```";
    assert!(re.find(test_first).is_some());
    assert!(re.find(impl_first).is_none());
}

/// Write arbitrary text as every kind of suite file and load + check it.
fn load_arbitrary(prompt_md: &str, grader_md: &str, case_yaml: &str) {
    let src = World::empty(Switches::default());
    src.write("evals/demo/fires/prompt.md", prompt_md);
    src.write("evals/demo/fires/graders/g.md", grader_md);
    src.write("evals/demo/fires/case.yaml", case_yaml);
    let suite = suite::load(&src.root(), &"demo".parse().unwrap()).unwrap();
    let mut diagnostics = Vec::new();
    check::check_suite(
        &src.root(),
        &suite,
        &check::Index::new(&src.root(), &["demo".into()]),
        &mut diagnostics,
    );
    assert!(
        diagnostics
            .iter()
            .all(|d| !d.message.is_empty() && !d.fix.is_empty())
    );
    // The folder holds prompt.md and case.yaml, so it is a case however broken
    // they are; it is marked broken exactly when a file could not be read or parsed.
    assert_eq!(suite.cases.len(), 1);
    assert_eq!(suite.cases[0].broken, !suite.problems.is_empty());
}

fn yamlish() -> impl Strategy<Value = String> {
    let atoms = prop_oneof![
        Just("---\n".to_string()),
        Just("type: ".to_string()),
        Just("regex\n".to_string()),
        Just("tool_used\n".to_string()),
        Just("pattern: '(?i)x'\n".to_string()),
        Just("  - ".to_string()),
        Just("execution:\n".to_string()),
        Just("  env:\n    ".to_string()),
        Just("graders:\n".to_string()),
        Just("schema_version: 1.1\n".to_string()),
        Just("[{".to_string()),
        Just("&a *a !!str ".to_string()),
        Just(": ".to_string()),
        "[a-z_]{1,8}: [^\\n]{0,12}\n",
        ".{0,20}",
    ];
    prop::collection::vec(atoms, 0..16).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn loader_never_panics_on_arbitrary_text(a in ".{0,200}", b in ".{0,200}", c in ".{0,200}") {
        load_arbitrary(&a, &b, &c);
    }

    #[test]
    fn loader_never_panics_on_yamlish_text(a in yamlish(), b in yamlish(), c in yamlish()) {
        load_arbitrary(&a, &b, &c);
    }

    #[test]
    fn frontmatter_split_and_key_lines_never_panic(text in "(---\n)?[\\PC\n]{0,300}") {
        let _ = suite::split_markdown(&text);
        let _ = suite::key_lines(&text, 1);
        let _ = suite::parse_yaml(&text, Utf8Path::new("x.md"), 1);
    }
}

#[test]
fn duplicate_case_names_are_an_error() {
    let grader = Some("---\ntype: llm\n---\nX.\n");
    trips(
        "duplicate-case",
        "error",
        &[
            (
                "evals/demo/group/a/prompt.md",
                Some("---\nname: extra\n---\nHi.\n"),
            ),
            ("evals/demo/group/a/graders/g.md", grader),
            (
                "evals/demo/group/b/prompt.md",
                Some("---\nname: extra\n---\nHi.\n"),
            ),
            ("evals/demo/group/b/graders/g.md", grader),
        ],
        &[
            (
                "evals/demo/group/a/prompt.md",
                Some("---\nname: extra\n---\nHi.\n"),
            ),
            ("evals/demo/group/a/graders/g.md", grader),
            (
                "evals/demo/group/b/prompt.md",
                Some("---\nname: other\n---\nHi.\n"),
            ),
            ("evals/demo/group/b/graders/g.md", grader),
        ],
    );
}

/// The platform's `--case` reads `*` and `?` as wildcards with no escape: a
/// case named `fire*` beside `fires` cannot be run alone. Alone, it can.
#[test]
fn a_case_name_that_selects_another_case_is_an_error() {
    let grader = Some("---\ntype: llm\n---\nX.\n");
    let d = trips(
        "case-name-pattern",
        "error",
        &[
            ("evals/demo/fire*/prompt.md", Some("Hi.\n")),
            ("evals/demo/fire*/graders/g.md", grader),
        ],
        &[
            ("evals/demo/zap?[x]/prompt.md", Some("Hi.\n")),
            ("evals/demo/zap?[x]/graders/g.md", grader),
        ],
    );
    assert!(d["message"].as_str().unwrap().contains("`fires`"), "{d}");
}

#[test]
fn frontmatter_that_is_not_a_mapping() {
    trips(
        "not-a-mapping",
        "error",
        &[(GRADER, Some("---\n- type\n- llm\n---\nX.\n"))],
        &[(GRADER, Some("---\ntype: llm\n---\nX.\n"))],
    );
}

#[test]
fn suite_folder_that_is_not_an_item_name() {
    let src = good();
    src.write("evals/Bad_Name/fires/prompt.md", "Hi.\n");
    let (status, doc) = src.json();
    assert_eq!(status, 1);
    assert_eq!(find(&doc, "invalid-suite-name")["file"], "evals/Bad_Name");
}

/// Two items described nearly alike (one description copied and edited) are a
/// warning on each checked item's description line, naming the other with
/// the measure; an item of another purpose, or one outside the checked
/// suites, is not.
#[test]
fn items_described_alike_warn_naming_both() {
    const COMMIT: &str = "Write a conventional commit message (type(scope): subject, then a body that says why). Use when asked to write or improve a commit message.";
    const COPY: &str = "Write a conventional commit message (type(scope): subject, then a body). Use when asked to write a commit message for staged changes.";
    const CHANGELOG: &str = "Write a changelog entry for a commit (what changed and why). Use when asked to write or improve a changelog.";
    let src = good();
    src.suite("other");
    let skill = |name: &str, description: &str| {
        src.write(
            &format!("skills/{name}/SKILL.md"),
            &format!("---\nname: {name}\ndescription: {description}\n---\n\nBody.\n"),
        );
    };
    skill("demo", COMMIT);
    skill("other", CHANGELOG);
    let (status, doc) = src.json();
    assert_eq!((status, codes(&doc)), (0, Vec::<String>::new()), "{doc:#}");

    // A command outside any suite, described as a copy of `demo`.
    src.write(
        "commands/commit-msg.md",
        &format!("---\ndescription: {COPY}\n---\n\nBody.\n"),
    );
    let (status, doc) = src.json();
    assert_eq!(status, 0, "{doc:#}");
    assert_eq!(codes(&doc), ["similar-description"], "{doc:#}");
    let d = find(&doc, "similar-description");
    assert_eq!(d["severity"], "warning");
    assert_eq!(d["file"], "skills/demo/SKILL.md");
    assert_eq!(d["line"], 3);
    let message = d["message"].as_str().unwrap();
    assert!(
        message.contains("`demo`") && message.contains("`commit-msg` (0.62)"),
        "{message}"
    );
    assert!(
        message.contains("Jaccard") && message.contains("0.60"),
        "{message}"
    );
    assert!(
        d["fix"]
            .as_str()
            .unwrap()
            .contains("bob-eval run demo --neighbours commit-msg"),
        "{d}"
    );

    // Checking `other` alone says nothing about `demo`.
    let out = src.cmd(&["other", "--json"]).get_output().clone();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(codes(&doc), Vec::<String>::new(), "{doc:#}");

    // With both checked and described alike, each names the other.
    skill("other", COPY);
    src.remove("commands/commit-msg.md");
    let (_, doc) = src.json();
    let found: Vec<(&str, &str)> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["file"].as_str().unwrap(), d["message"].as_str().unwrap()))
        .collect();
    assert_eq!(found.len(), 2, "{doc:#}");
    assert!(found[0].0 == "skills/demo/SKILL.md" && found[0].1.contains("`other`"));
    assert!(found[1].0 == "skills/other/SKILL.md" && found[1].1.contains("`demo`"));
}
