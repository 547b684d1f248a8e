//! `bob-eval check --plugin DIR` and the traps both layouts share: for every
//! new finding, an edit of a clean corpus plugin that trips it and a near miss
//! that does not; the notes; the hook-only suites; the JSON and human shapes.

use crate::support;
use support::stub::Switches;
use support::world::World;

use serde_json::Value;
use std::fs;
use std::path::PathBuf;
use support::cmd::bob;
use support::tree::copy_tree;

const PIN: &str = r#"'"skill"\s*:\s*"(?:[\w-]+:)?release-notes"'"#;
const EVALS: &str = "quality/evals";

/// A copy of a corpus plugin in a temp folder (the home is an empty folder beside it).
struct Plugin {
    tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Plugin {
    fn corpus(name: &str) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join(name);
        copy_tree(&support::data::data("plugins").join(name), &root);
        Plugin { tmp, root }
    }

    /// `bob-eval` with this plugin's folder as the source and an empty home.
    fn bob(&self) -> std::process::Command {
        bob(&self.root, &self.tmp.path().join("home"))
    }

    fn write(&self, rel: &str, text: &str) -> &Self {
        let path = self.root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
        self
    }

    fn remove(&self, rel: &str) -> &Self {
        let path = self.root.join(rel);
        if path.is_dir() {
            fs::remove_dir_all(path).unwrap();
        } else {
            fs::remove_file(path).unwrap();
        }
        self
    }

    fn edit(&self, rel: &str, from: &str, to: &str) -> &Self {
        let path = self.root.join(rel);
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{rel} has no {from:?}");
        fs::write(path, text.replace(from, to)).unwrap();
        self
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        self.bob()
            .args(["check", "--plugin"])
            .arg(&self.root)
            .args(args)
            .output()
            .unwrap()
    }

    /// `check --plugin --json`: exit code and document.
    fn json(&self) -> (i32, Value) {
        let out = self.run(&["--json"]);
        let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{e}: {}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.code().unwrap(), doc)
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

fn all<'a>(doc: &'a Value, code: &str) -> Vec<&'a Value> {
    doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == code)
        .collect()
}

fn find<'a>(doc: &'a Value, code: &str) -> &'a Value {
    all(doc, code)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no {code} in {doc:#}"))
}

/// The corpus plugin `release-kit` as it is: clean but for its one gated-tool
/// warning (the `files` case allows Write); a near miss may lose it.
fn clean_codes() -> Vec<String> {
    vec!["gated-tool".into()]
}

/// `edit` trips `code` at `severity` (exit 1 for an error, else 0); `near`
/// gives no new finding.
fn trips(code: &str, severity: &str, edit: impl Fn(&Plugin), near: impl Fn(&Plugin)) -> Value {
    let p = Plugin::corpus("release-kit");
    edit(&p);
    let (status, doc) = p.json();
    let d = find(&doc, code).clone();
    assert_eq!(d["severity"], severity, "{doc:#}");
    assert!(!d["message"].as_str().unwrap().is_empty() && !d["fix"].as_str().unwrap().is_empty());
    assert_eq!(status, i32::from(severity == "error"), "{doc:#}");

    let p = Plugin::corpus("release-kit");
    near(&p);
    let (status, doc) = p.json();
    // A near miss may hold a scaffold script, which is always warned about.
    let mut clean = clean_codes();
    clean.push("scaffold-script".into());
    assert!(
        codes(&doc).iter().all(|c| clean.contains(c)),
        "near miss for {code}: {doc:#}"
    );
    assert_eq!(status, 0);
    d
}

#[test]
fn the_corpus_is_clean() {
    let (status, doc) = Plugin::corpus("release-kit").json();
    assert_eq!(status, 0);
    assert_eq!(codes(&doc), clean_codes(), "{doc:#}");
    assert_eq!(doc["suites"][0]["item"], "release-kit");
    assert_eq!(doc["suites"][0]["dir"], EVALS);
    let mut cases: Vec<&str> = doc["suites"][0]["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    cases.sort();
    assert_eq!(
        cases,
        [
            "baseline",
            "every-key",
            "files",
            "fires",
            "json-case",
            "mixed",
            "mocked",
            "quiet"
        ]
    );
}

#[test]
fn tool_naming_an_item() {
    let grader = |tool: &str| format!("---\ntype: tool_used\ntool: {tool}\n---\n");
    let at = format!("{EVALS}/trigger/fires/graders/by-name.md");
    let d = trips(
        "tool-is-item",
        "error",
        |p| {
            p.write(&at, &grader("release-notes"));
        },
        |p| {
            p.write(&at, &grader("Read\nmin: 0"));
        },
    );
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("release-notes called 0x")
    );
    assert!(d["message"].as_str().unwrap().contains("can never pass"));
    assert_eq!(
        d["fix"],
        format!("write `tool: Skill` and `input_match: {PIN}`")
    );
    assert_eq!(d["file"], at);
    assert_eq!(d["line"], 3);

    // A command fires through Skill too; an agent through Agent.
    let d = trips(
        "tool-is-item",
        "error",
        |p| {
            p.write(&at, &grader("changelog\nmin: 0\nmax: 0"));
        },
        |_| {},
    );
    assert!(
        d["message"].as_str().unwrap().contains("always passes"),
        "{d}"
    );
    assert!(d["fix"].as_str().unwrap().contains("tool: Skill"), "{d}");
    let d = trips(
        "tool-is-item",
        "error",
        |p| {
            p.write(&at, &grader("reviewer"));
        },
        |_| {},
    );
    assert!(
        d["fix"].as_str().unwrap().contains("tool: Agent")
            && d["fix"].as_str().unwrap().contains("subagent_type"),
        "{d}"
    );
    // tool_order, on either side.
    let d = trips(
        "tool-is-item",
        "error",
        |p| {
            p.edit(
                &format!("{EVALS}/keys/graders/order.md"),
                "before: Read",
                "before: release-notes",
            );
        },
        |_| {},
    );
    assert!(
        d["fix"]
            .as_str()
            .unwrap()
            .starts_with("write `before: {tool: Skill")
    );
}

#[test]
fn a_key_in_both_files() {
    let d = trips(
        "overridden-key",
        "error",
        |p| {
            p.edit(
                &format!("{EVALS}/mixed/case.yaml"),
                "  timeout_seconds: 120\n",
                "  timeout_seconds: 120\n  max_turns: 9\n",
            );
        },
        |p| {
            // The same value; and words for the reader differing.
            p.edit(
                &format!("{EVALS}/mixed/case.yaml"),
                "  timeout_seconds: 120\n",
                "  timeout_seconds: 120\n  max_turns: 4\n",
            )
            .edit(
                &format!("{EVALS}/mixed/prompt.md"),
                "max_turns: 4\n",
                "max_turns: 4\ndescription: other words\n",
            );
        },
    );
    assert_eq!(d["file"], format!("{EVALS}/mixed/prompt.md"));
    assert_eq!(d["line"], 2);
    assert!(
        d["message"].as_str().unwrap().contains(
            "`max_turns: 4` in prompt.md overrides `execution.max_turns: 9` (case.yaml line 7)"
        ),
        "{d}"
    );
    // Top-level keys too; `disallowed_tools` lists are appended, not replaced.
    trips(
        "overridden-key",
        "error",
        |p| {
            p.edit(
                &format!("{EVALS}/mixed/prompt.md"),
                "max_turns: 4\n",
                "max_turns: 4\nruns: 2\n",
            );
        },
        |p| {
            p.edit(
                &format!("{EVALS}/mixed/case.yaml"),
                "  timeout_seconds: 120\n",
                "  timeout_seconds: 120\n  disallowed_tools: [WebFetch]\n",
            )
            .edit(
                &format!("{EVALS}/mixed/prompt.md"),
                "max_turns: 4\n",
                "max_turns: 4\ndisallowed_tools: [WebSearch]\n",
            );
        },
    );
}

#[test]
fn a_file_no_allowed_tool_can_write() {
    let prompt = format!("{EVALS}/files/prompt.md");
    let d = trips(
        "file-unwritable",
        "error",
        |p| {
            p.edit(
                &prompt,
                "allowed_tools: [Read, Write]",
                "allowed_tools: [Read]",
            );
        },
        |p| {
            // Bash with a pattern can write; so can an MCP tool.
            p.edit(
                &prompt,
                "allowed_tools: [Read, Write]",
                "allowed_tools: [Read, \"Bash(npm test:*)\", mcp__fs__write_file]",
            );
        },
    );
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("cannot pass with the granted tools")
    );
    assert!(d["fix"].as_str().unwrap().contains("allowed_tools"));
    let p = Plugin::corpus("release-kit");
    p.edit(
        &prompt,
        "allowed_tools: [Read, Write]",
        "allowed_tools: [Read]",
    );
    let (_, doc) = p.json();
    let files: Vec<&str> = all(&doc, "file-unwritable")
        .iter()
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    // file_exists, a files target, a file target, a file focus.
    assert_eq!(files.len(), 4, "{doc:#}");

    // Withheld by disallowed_tools: the fix says to lift it.
    let d = trips(
        "file-unwritable",
        "error",
        |p| {
            p.edit(
                &prompt,
                "allowed_tools: [Read, Write]",
                "allowed_tools: [Read, Write]\ndisallowed_tools: [Write]",
            );
        },
        |p| {
            // Nothing read from a created file: not_contains over files,
            // exists: false.
            p.remove(&format!("{EVALS}/files/graders"))
                .edit(
                    &prompt,
                    "allowed_tools: [Read, Write]",
                    "allowed_tools: [Read]",
                )
                .write(
                    &format!("{EVALS}/files/graders/none.md"),
                    "---\ntype: regex\ntarget: files\npattern: x\nmatch: not_contains\n---\n",
                )
                .write(
                    &format!("{EVALS}/files/graders/absent.md"),
                    "---\ntype: file_exists\npath: \"*.tmp\"\nexists: false\n---\n",
                );
        },
    );
    assert!(
        d["fix"]
            .as_str()
            .unwrap()
            .starts_with("take Write off disallowed_tools")
    );

    // A plugin hook could still write the file: a warning.
    let d = trips(
        "file-unwritable",
        "warning",
        |p| {
            p.edit(
                &prompt,
                "allowed_tools: [Read, Write]",
                "allowed_tools: [Read]",
            )
            .write("hooks/hooks.json", "{\"hooks\": {}}");
        },
        |p| {
            // A scaffold script may put a file read by a file target there.
            p.edit(
                &prompt,
                "allowed_tools: [Read, Write]",
                "allowed_tools: [Read]",
            )
            .remove(&format!("{EVALS}/files/graders/written.md"))
            .remove(&format!("{EVALS}/files/graders/listed.md"))
            .write(
                &format!("{EVALS}/files/case.yaml"),
                "schema_version: \"1.1\"\nname: files\ncontext:\n  scaffold_script: setup.sh\n",
            )
            .write(&format!("{EVALS}/files/setup.sh"), "echo hi > NOTES.md\n");
        },
    );
    assert!(d["message"].as_str().unwrap().contains("hook"));
}

#[test]
fn a_skill_grader_not_pinned_to_one_item() {
    let at = format!("{EVALS}/keys/graders/fired.md");
    let grader = |m: &str| format!("---\ntype: tool_used\ntool: Skill\ninput_match: {m}\n---\n");
    let d = trips(
        "skill-match-loose",
        "error",
        |p| {
            p.write(&at, &grader("'release-notes'"));
        },
        |p| {
            p.write(&at, &grader(PIN));
        },
    );
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains(r#"{"skill":"release-notes-x"}"#),
        "{d}"
    );
    assert_eq!(d["fix"], format!("pin it: input_match: {PIN}"));
    let d = trips(
        "skill-match-loose",
        "error",
        |p| {
            p.write(&at, &grader(r#"'"(?:[\w-]+:)?(release-notes|changelog)"'"#));
        },
        |p| {
            // Matches no item of the plugin: nothing to say.
            p.write(&at, &grader("'\"skill\":\"frontend-design\"'"));
        },
    );
    assert!(d["message"].as_str().unwrap().contains("2 items"), "{d}");
}

#[test]
fn a_quiet_grader_on_a_prefix_shared_by_items_is_not_loose() {
    // `release-kit:` is the prefix of every item the plugin offers: asserting
    // that none of them fires (`max: 0`) is stricter for matching them all.
    let at = format!("{EVALS}/keys/graders/fired.md");
    let shared = r#"'"skill"\s*:\s*"release-kit:'"#;
    let grader = |bounds: &str| {
        format!("---\ntype: tool_used\ntool: Skill\ninput_match: {shared}\n{bounds}---\n")
    };
    let d = trips(
        "skill-match-loose",
        "error",
        |p| {
            p.write(&at, &grader(""));
        },
        |p| {
            p.write(&at, &grader("min: 0\nmax: 0\narm: both\n"));
        },
    );
    assert!(d["message"].as_str().unwrap().contains("2 items"), "{d}");
    // Any bound from above only, on either arm, is stricter too; `min: 1`
    // with it still passes whichever item fires.
    for bounds in ["min: 0\nmax: 0\n", "min: 0\nmax: 2\narm: with-only\n"] {
        let p = Plugin::corpus("release-kit");
        p.write(&at, &grader(bounds));
        let (status, doc) = p.json();
        assert_eq!(
            (status, codes(&doc)),
            (0, clean_codes()),
            "{bounds}: {doc:#}"
        );
    }
    let p = Plugin::corpus("release-kit");
    p.write(&at, &grader("min: 1\nmax: 3\n"));
    let (_, doc) = p.json();
    find(&doc, "skill-match-loose");
}

#[test]
fn a_skill_pattern_too_slow_to_run_is_a_finding() {
    let at = format!("{EVALS}/keys/graders/fired.md");
    let grader = |m: &str| format!("---\ntype: tool_used\ntool: Skill\ninput_match: {m}\n---\n");
    let d = trips(
        "regex-too-slow",
        "error",
        |p| {
            p.write(&at, &grader(r#"'(?:(?=[\w":{}-])[\w":{}-]|[\w":{}-])*!'"#));
        },
        |p| {
            p.write(&at, &grader(PIN));
        },
    );
    assert_eq!(d["file"], at);
}

#[test]
fn trigger_pair_is_advice_for_skills_only() {
    let p = Plugin::corpus("release-kit");
    p.remove(&format!("{EVALS}/trigger/quiet"));
    let (status, doc) = p.json();
    assert_eq!(status, 0, "{doc:#}");
    assert_eq!(doc["notes"], 1);
    assert_eq!(doc["errors"], 0);
    let d = find(&doc, "trigger-advice");
    assert_eq!(d["severity"], "note");
    assert_eq!(d["file"], EVALS);
    let message = d["message"].as_str().unwrap();
    assert!(message.contains("`release-notes` stays quiet"), "{message}");
    assert!(!message.contains("fires where"), "{message}");
    assert_eq!(
        d["fix"],
        format!(
            "a case where it should not, with graders/quiet.md: `type: tool_used`, `tool: Skill`, `input_match: {PIN}`, `min: 0`, `max: 0`, `arm: both`"
        )
    );
    // Human output: a note line, the summary counts it, exit 0.
    let out = p.run(&[]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text.contains(&format!(
            "{EVALS}: note: nothing checks that skill `release-notes`"
        )),
        "{text}"
    );
    assert!(
        text.contains("— to add: a case where it should not"),
        "{text}"
    );
    assert!(
        text.ends_with("ok: checked 1 suite (7 cases): 0 errors, 1 warning, 1 note\n"),
        "{text}"
    );

    // Both halves missing: one note naming both; a hook plugin: none.
    let p = Plugin::corpus("release-kit");
    p.remove(&format!("{EVALS}/trigger"));
    let (_, doc) = p.json();
    let d = find(&doc, "trigger-advice");
    assert!(d["fix"].as_str().unwrap().contains("graders/fires.md"));
    assert!(d["fix"].as_str().unwrap().contains("graders/quiet.md"));
    let (status, doc) = Plugin::corpus("guard-hooks").json();
    assert_eq!(status, 0);
    assert_eq!(doc["notes"], 0, "{doc:#}");
    assert!(
        !codes(&doc)
            .iter()
            .any(|c| c.contains("trigger") || c.contains("fires"))
    );
}

#[test]
fn the_eval_folder_is_the_platform_s() {
    // The suite moved to quality/suite, which the manifest names.
    let moved = || {
        let p = Plugin::corpus("release-kit");
        fs::rename(p.root.join(EVALS), p.root.join("quality/suite")).unwrap();
        p.edit(
            ".claude-plugin/plugin.json",
            "\"quality/evals\"",
            "\"quality/suite\"",
        );
        p
    };
    let (status, doc) = moved().json();
    assert_eq!(status, 0, "{doc:#}");
    assert_eq!(doc["suites"][0]["dir"], "quality/suite");
    // A value the platform refuses: evals/ instead, where nothing is.
    let p = moved();
    p.edit(
        ".claude-plugin/plugin.json",
        "\"quality/suite\"",
        "\"../quality/suite\"",
    );
    let (status, doc) = p.json();
    assert_eq!(status, 1);
    let d = find(&doc, "eval-dir-ignored");
    assert_eq!(d["severity"], "warning");
    assert_eq!(d["file"], ".claude-plugin/plugin.json");
    assert!(d["message"].as_str().unwrap().contains("no .."), "{d}");
    assert_eq!(find(&doc, "no-cases")["file"], "evals");
    // Misplaced at the top level: ignored too.
    let p = moved();
    p.edit(
        ".claude-plugin/plugin.json",
        "\"experimental\": {\"evals\": \"quality/suite\"}",
        "\"evals\": \"quality/suite\"",
    );
    let (_, doc) = p.json();
    assert!(
        find(&doc, "eval-dir-ignored")["message"]
            .as_str()
            .unwrap()
            .contains("top-level"),
        "{doc:#}"
    );

    // A list: its first entry counts. "evals" by name is the default.
    let p = Plugin::corpus("release-kit");
    p.edit(
        ".claude-plugin/plugin.json",
        "\"quality/evals\"",
        "[\"quality/evals\", \"other\"]",
    );
    assert_eq!(p.json().0, 0);
    let p = Plugin::corpus("tidy");
    p.edit(
        "plugin.json",
        "\"version\"",
        "\"experimental\": {\"evals\": \"evals\"}, \"version\"",
    );
    let (status, doc) = p.json();
    assert_eq!(status, 0, "{doc:#}");
    assert_eq!(doc["suites"].as_array().unwrap().len(), 2, "{doc:#}");

    // With the default, every evals/ folder holds cases (not results/).
    let (_, doc) = Plugin::corpus("tidy").json();
    let dirs: Vec<&str> = doc["suites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["dir"].as_str().unwrap())
        .collect();
    assert_eq!(dirs, ["evals", "skills/tidy-imports/evals"]);
    assert_eq!(
        doc["suites"][0]["cases"],
        serde_json::json!(["grouped", "one-line"])
    );
}

#[test]
fn duplicate_case_names_warn_across_eval_folders() {
    let p = Plugin::corpus("tidy");
    p.write(
        "evals/python/sorts/prompt.md",
        "---\nmax_turns: 2\n---\n\nSort `import b`, `import a`.\n",
    )
    .write(
        "evals/python/sorts/graders/a.md",
        "---\ntype: regex\n---\nimport a\n",
    );
    let (status, doc) = p.json();
    assert_eq!(status, 0);
    let d = find(&doc, "duplicate-case");
    assert_eq!(d["severity"], "warning");
    assert!(d["message"].as_str().unwrap().contains("`sorts`"), "{d}");
}

#[test]
fn the_manifest() {
    let p = Plugin::corpus("tidy");
    p.remove("plugin.json");
    let (status, doc) = p.json();
    assert_eq!(status, 1);
    assert_eq!(
        find(&doc, "no-manifest")["file"],
        ".claude-plugin/plugin.json"
    );
    // A skill folder is a plugin of its own.
    p.write("SKILL.md", "---\nname: tidy\ndescription: x\n---\nBody.\n");
    assert!(!codes(&p.json().1).contains(&"no-manifest".to_string()));

    let p = Plugin::corpus("tidy");
    p.write("plugin.json", "{\"name\": \"tidy\",\n}\n");
    let (status, doc) = p.json();
    assert_eq!(status, 1);
    let d = find(&doc, "manifest-invalid");
    assert_eq!(
        (d["file"].as_str(), d["line"].as_u64()),
        (Some("plugin.json"), Some(2))
    );
}

#[test]
fn mocks_as_the_platform_reads_them() {
    let server = format!("{EVALS}/mocks/tracker");
    let d = trips(
        "mock-invalid",
        "error",
        |p| {
            p.edit(
                &format!("{server}/_server.md"),
                "abort_when:",
                "abort_whenn:",
            );
        },
        |p| {
            // A fixed responder with an error answer, expect lists and maps.
            p.write(
                &format!("{server}/close_issue.md"),
                "---\nerror: true\nexpect:\n  id: [\"41\", 42]\n  opts: {force: false}\n---\nnot allowed\n",
            );
        },
    );
    assert_eq!(d["file"], format!("{server}/_server.md"));
    assert_eq!(d["line"], 4);
    assert!(
        d["message"].as_str().unwrap().contains("abort_whenn"),
        "{d}"
    );
    for (rel, text, says) in [
        (
            "get_issue.md",
            "---\ntools: [a]\n---\nx\n",
            "belongs in _server.md",
        ),
        ("get.issue.md", "x\n", "not named after a tool"),
        (
            "get_issue.md",
            "---\ntype: agent\n---\n",
            "description of the server",
        ),
        (
            "get_issue.md",
            "---\nabort_when: x\n---\nbody\n",
            "needs `type: agent`",
        ),
        (
            "get_issue.md",
            "TODO: replace with the canned result this tool should return\n",
            "placeholder",
        ),
        (
            "get_issue.md",
            "---\ntype: canned\n---\nx\n",
            "fixed or agent",
        ),
        (
            "get_issue.md",
            "---\nexpect: [a]\n---\nx\n",
            "argument names",
        ),
        (
            "_tools.json",
            "{\"tools\": [{\"description\": \"x\"}]}",
            "tools/list",
        ),
        ("_tools.json", "{\"tools\": [", "not valid JSON"),
    ] {
        let p = Plugin::corpus("release-kit");
        p.write(&format!("{server}/{rel}"), text);
        let (status, doc) = p.json();
        assert_eq!(status, 1, "{rel}: {doc:#}");
        let d = find(&doc, "mock-invalid");
        assert!(d["message"].as_str().unwrap().contains(says), "{rel}: {d}");
    }
    let p = Plugin::corpus("release-kit");
    p.write(
        &format!("{server}/_server.md"),
        "---\ntools: [list_issues, search_issues]\n---\nA fixed answer.\n",
    );
    assert!(
        find(&p.json().1, "mock-invalid")["message"]
            .as_str()
            .unwrap()
            .contains("only `type: agent`")
    );
    let p = Plugin::corpus("release-kit");
    p.write(&format!("{EVALS}/mocks/bad.name/x.md"), "x\n");
    assert!(
        find(&p.json().1, "mock-invalid")["message"]
            .as_str()
            .unwrap()
            .contains("tool-name segment")
    );
    // A case-level mocks file instead of a folder.
    let p = Plugin::corpus("release-kit");
    p.remove(&format!("{EVALS}/mocked/mocks"))
        .write(&format!("{EVALS}/mocked/mocks"), "x");
    assert_eq!(
        find(&p.json().1, "mock-invalid")["file"],
        format!("{EVALS}/mocked/mocks")
    );

    // A server folder with nothing in it: a warning.
    let d = trips(
        "mock-empty",
        "warning",
        |p| {
            p.write(&format!("{EVALS}/mocks/empty/notes.txt"), "x");
        },
        |_| {},
    );
    assert_eq!(d["file"], format!("{EVALS}/mocks/empty"));

    // A case in mocks/: never run.
    let d = trips(
        "case-in-mocks",
        "error",
        |p| {
            p.write(
                &format!("{EVALS}/trigger/mocks/x/case.yaml"),
                "schema_version: \"1.1\"\nname: x\n",
            );
        },
        |p| {
            // A prompt.md one level down is a responder for the tool `prompt`.
            p.write(&format!("{EVALS}/trigger/mocks/x/prompt.md"), "hello\n");
        },
    );
    assert_eq!(d["file"], format!("{EVALS}/trigger/mocks"));
}

#[test]
fn plugins_entries_stay_inside_the_plugin() {
    let prompt = format!("{EVALS}/keys/prompt.md");
    let d = trips(
        "missing-file",
        "error",
        |p| {
            p.edit(
                &prompt,
                "plugins: [\"../../..\"]",
                "plugins: [\"../../../nowhere\"]",
            );
        },
        |p| {
            p.edit(
                &prompt,
                "plugins: [\"../../..\"]",
                "plugins: [\"../../../skills/..\"]",
            );
        },
    );
    assert!(d["message"].as_str().unwrap().contains("`plugins` entry"));
    trips(
        "path-escape",
        "error",
        |p| {
            p.edit(
                &prompt,
                "plugins: [\"../../..\"]",
                "plugins: [\"../../../..\"]",
            );
        },
        |_| {},
    );
}

#[test]
fn usage() {
    let p = Plugin::corpus("tidy");
    let out = p
        .bob()
        .args(["check", "commit", "--plugin"])
        .arg(&p.root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = p.run(&[]);
    assert_eq!(out.status.code(), Some(0));
    let out = p
        .bob()
        .args(["check", "--plugin"])
        .arg(p.root.join("plugin.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a folder"));
}

/// A world (testkit's) for a source tree in the `evals/<item>/` layout.
fn source() -> World {
    World::empty(Switches::default())
}

/// `check --json` in a world.
trait Json {
    fn json(&self) -> (i32, Value);
}

impl Json for World {
    fn json(&self) -> (i32, Value) {
        let out = bob(&self.source, &self.home())
            .args(["check", "--json"])
            .output()
            .unwrap();
        (
            out.status.code().unwrap(),
            serde_json::from_slice(&out.stdout).unwrap(),
        )
    }
}

#[test]
fn bob_layout_names_its_convention_and_spares_hook_suites() {
    let src = source();
    src.write(
        "evals/guard/blocks/prompt.md",
        "---\nmax_turns: 2\n---\n\nSave GITHUB_TOKEN=ghp_x to .env.\n",
    )
    .write(
        "evals/guard/blocks/graders/says.md",
        "---\ntype: regex\nflags: i\n---\nrefused\n",
    );
    let (status, doc) = src.json();
    assert_eq!(status, 1);
    let d = find(&doc, "no-fires-case");
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("bob-eval's convention, not a platform rule: bob-eval needs a fires/quiet pair to measure the trigger rate"),
        "{d}"
    );
    // The same suite in a source that ships hooks tests a hook: no Skill grader asked for.
    src.write("hooks/hooks.json", "{\"hooks\": {}}");
    let (status, doc) = src.json();
    assert_eq!(status, 0, "{doc:#}");
    assert_eq!(codes(&doc), ["no-item"]);
}

#[test]
fn bob_layout_traps() {
    let pin = PIN.replace("release-notes", "demo");
    let src = source();
    src.write("skills/demo/SKILL.md", "---\nname: demo\ndescription: x\n---\nx\n")
        .write("skills/demo-extra/SKILL.md", "---\nname: demo-extra\ndescription: x\n---\nx\n")
        .write(
            "evals/demo/baseline.json",
            r#"{"schema":"skill-eval-baseline/1","item":"demo","best":{}}"#,
        )
        .write("evals/demo/fires/prompt.md", "---\nmax_turns: 3\n---\n\nDo demo.\n")
        .write(
            "evals/demo/fires/graders/fires.md",
            &format!("---\ntype: tool_used\ntool: Skill\ninput_match: {pin}\n---\n"),
        )
        .write("evals/demo/quiet/prompt.md", "---\nmax_turns: 3\n---\n\n2+2?\n")
        .write(
            "evals/demo/quiet/graders/quiet.md",
            &format!("---\ntype: tool_used\ntool: Skill\ninput_match: {pin}\nmin: 0\nmax: 0\narm: both\n---\n"),
        )
        .write("evals/demo/other/prompt.md", "---\nmax_turns: 3\n---\n\nDo demo again.\n")
        .write(
            "evals/demo/other/graders/by-name.md",
            "---\ntype: tool_used\ntool: demo\n---\n",
        )
        .write(
            "evals/demo/other/graders/loose.md",
            "---\ntype: tool_used\ntool: Skill\ninput_match: 'demo'\n---\n",
        );
    let (status, doc) = src.json();
    assert_eq!(status, 1);
    let d = find(&doc, "tool-is-item");
    assert_eq!(
        d["fix"],
        format!("write `tool: Skill` and `input_match: {pin}`")
    );
    let d = find(&doc, "skill-match-loose");
    assert_eq!(d["file"], "evals/demo/other/graders/loose.md");
    assert!(d["message"].as_str().unwrap().contains("demo-extra"), "{d}");
    // The trigger pair's own graders are the trigger check's: a loose quiet
    // pin is `trigger-too-broad` once, not `skill-match-loose` too.
    src.write(
        "evals/demo/quiet/graders/quiet.md",
        "---\ntype: tool_used\ntool: Skill\ninput_match: 'demo'\nmin: 0\nmax: 0\narm: both\n---\n",
    );
    let (_, doc) = src.json();
    assert_eq!(all(&doc, "skill-match-loose").len(), 1, "{doc:#}");
    assert_eq!(all(&doc, "trigger-too-broad").len(), 1, "{doc:#}");
    // A grader asserting that neither `demo` nor `demo-extra` fires is not loose.
    src.write(
        "evals/demo/other/graders/loose.md",
        "---\ntype: tool_used\ntool: Skill\ninput_match: 'demo'\nmin: 0\nmax: 0\narm: both\n---\n",
    );
    let (_, doc) = src.json();
    assert!(all(&doc, "skill-match-loose").is_empty(), "{doc:#}");
}
