//! Sharper `bob-eval check`: items the platform will not offer, baseline
//! files that are not JSON Lines, key suggestions only when close (and one
//! finding per cause), and bounded, safe reading of hostile suites (links,
//! FIFOs, devices, huge or deeply nested files, regexes that backtrack).

use crate::support;
use support::stub::Switches;
use support::world::World;

use assert_cmd::Command;
use camino::Utf8PathBuf;
use serde_json::Value;
use std::fs;
use std::time::{Duration, Instant};

/// How long `check` may take before a test calls it hung.
const HANG_GUARD: Duration = Duration::from_secs(120);

const PIN: &str = r#"'"skill"\s*:\s*"(?:[\w-]+:)?demo"'"#;
const FIRES: &str = "evals/demo/fires/prompt.md";
const GRADER: &str = "evals/demo/fires/graders/says.md";
const CASE_YAML: &str = "evals/demo/fires/case.yaml";
const SKILL: &str = "skills/demo/SKILL.md";

/// A world (testkit's) whose source holds one clean suite for `demo`.
fn good() -> World {
    let src = World::empty(Switches::default());
    src.write(SKILL, "---\nname: demo\ndescription: Demo.\n---\n\nBody.\n");
    src.write(
        "evals/demo/baseline.json",
        r#"{"schema":"skill-eval-baseline/1","item":"demo","best":{}}"#,
    );
    src.write(
        FIRES,
        "---\ndescription: fires\nmax_turns: 5\n---\n\nPlease do the demo thing.\n",
    );
    src.write(
        "evals/demo/fires/graders/fires.md",
        &format!("---\ntype: tool_used\ntool: Skill\ninput_match: {PIN}\n---\n"),
    );
    src.write(GRADER, "---\ntype: llm\n---\n\nThe answer says demo.\n");
    src.write("evals/demo/quiet/prompt.md", "What is 2 + 2?\n");
    src.write(
        "evals/demo/quiet/graders/quiet.md",
        &format!("---\ntype: tool_used\ntool: Skill\ninput_match: {PIN}\nmin: 0\nmax: 0\narm: both\n---\n"),
    );
    src
}

/// What these tests do to a world's source, beside [`World::write`].
trait Sharp {
    fn file(&self, rel: &str) -> Utf8PathBuf;
    fn remove(&self, rel: &str) -> &Self;
    fn link(&self, target: &str, rel: &str) -> &Self;
    fn fifo(&self, rel: &str) -> &Self;
    fn json(&self) -> (i32, Value);
}

impl Sharp for World {
    /// `rel` under the source tree.
    fn file(&self, rel: &str) -> Utf8PathBuf {
        Utf8PathBuf::from_path_buf(self.source.join(rel)).unwrap()
    }

    fn remove(&self, rel: &str) -> &Self {
        let path = self.file(rel);
        if fs::symlink_metadata(&path).unwrap().is_dir() {
            fs::remove_dir_all(path).unwrap()
        } else {
            fs::remove_file(path).unwrap()
        }
        self
    }

    fn link(&self, target: &str, rel: &str) -> &Self {
        let path = self.file(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, path).unwrap();
        self
    }

    fn fifo(&self, rel: &str) -> &Self {
        let path = self.file(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let c = std::ffi::CString::new(path.as_str()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        self
    }

    /// `check --json`: exit code and document. A guard against hanging, not a
    /// speed test (speed is in `benches/`): an input that makes `check` run
    /// for minutes (a FIFO, exponential parsing) fails here.
    fn json(&self) -> (i32, Value) {
        let limit = HANG_GUARD;
        let start = Instant::now();
        let out = Command::from_std(support::cmd::bob(&self.source, &self.home()))
            .args(["check", "--json"])
            .timeout(limit)
            .output()
            .unwrap();
        assert!(
            start.elapsed() < limit,
            "check did not finish within {:?} (the hang guard): {}",
            limit,
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "bad JSON ({e}): {}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.code().unwrap(), doc)
    }
}

fn diagnostics(doc: &Value) -> &Vec<Value> {
    doc["diagnostics"].as_array().unwrap()
}

/// The only finding of `doc`, which must have code `code`.
fn only<'a>(doc: &'a Value, code: &str) -> &'a Value {
    let all = diagnostics(doc);
    assert_eq!(all.len(), 1, "want exactly one finding ({code}): {doc:#}");
    assert_eq!(all[0]["code"], code, "{doc:#}");
    &all[0]
}

fn text(d: &Value, field: &str) -> String {
    d[field].as_str().unwrap().to_owned()
}

/// The one finding `edits` produce on the good suite.
fn one_finding(edits: &[(&str, Option<&str>)], code: &str) -> Value {
    let src = good();
    for (path, text) in edits {
        match text {
            Some(t) => src.write(path, t),
            None => src.remove(path),
        };
    }
    let (status, doc) = src.json();
    assert_eq!(status, 1, "{doc:#}");
    only(&doc, code).clone()
}

// ---------------------------------------------------------------- A: items

#[test]
fn a_skill_without_frontmatter_is_not_offered() {
    let src = good();
    src.write(SKILL, "# Demo\n\nJust prose.\n");
    let (status, doc) = src.json();
    assert_eq!(status, 1);
    let d = only(&doc, "item-no-frontmatter");
    assert_eq!(
        (d["severity"].as_str(), d["file"].as_str()),
        (Some("error"), Some(SKILL))
    );
    assert!(text(d, "fix").contains("name: demo"), "{d}");
}

#[test]
fn a_skill_needs_a_name_and_a_description() {
    let src = good();
    src.write(SKILL, "---\nname: demo\n---\nBody.\n");
    let (status, doc) = src.json();
    assert_eq!(status, 1);
    let d = only(&doc, "item-missing-key");
    assert!(text(d, "message").contains("`description`"), "{d}");

    src.write(SKILL, "---\ndescription: Demo.\n---\nBody.\n");
    let (_, doc) = src.json();
    let d = only(&doc, "item-missing-key");
    assert!(text(d, "message").contains("`name`"), "{d}");
    assert_eq!(text(d, "fix"), "add name: demo");

    src.write(SKILL, "---\nname: demo\ndescription: ''\n---\nBody.\n");
    let (_, doc) = src.json();
    only(&doc, "item-missing-key");
}

#[test]
fn frontmatter_is_read_as_leniently_as_the_platform_reads_it() {
    // Strict YAML refuses `: ` in a plain value; the platform quotes it and reads on.
    let src = good();
    src.write(
        SKILL,
        "---\nname: demo\ndescription: Write the message (type(scope): subject). Use: always.\n---\nBody.\n",
    );
    let (status, doc) = src.json();
    assert_eq!((status, diagnostics(&doc).len()), (0, 0), "{doc:#}");
    // What even the second try cannot read is one finding.
    src.write(
        SKILL,
        "---\nname: demo\ndescription: [unclosed\n  - x: y\n---\nBody.\n",
    );
    let (status, doc) = src.json();
    assert_eq!(status, 1);
    let d = only(&doc, "invalid-yaml");
    assert!(
        text(d, "message").contains("does not offer the skill"),
        "{d}"
    );
}

#[test]
fn a_skill_named_unlike_its_folder_is_not_offered() {
    let src = good();
    src.write(
        SKILL,
        "---\nname: demo-skill\ndescription: Demo.\n---\nBody.\n",
    );
    let (status, doc) = src.json();
    assert_eq!(status, 1);
    let d = only(&doc, "item-name-mismatch");
    assert_eq!(d["line"], 2);
    assert!(text(d, "message").contains("`name: demo-skill`"), "{d}");
    assert!(text(d, "fix").starts_with("set name: demo"), "{d}");
}

#[test]
fn commands_and_agents_need_a_description() {
    let src = good();
    src.remove("skills/demo");
    src.write("commands/demo.md", "---\nargument-hint: x\n---\nDo it.\n");
    let (status, doc) = src.json();
    assert_eq!(status, 1);
    let d = only(&doc, "item-missing-key");
    assert_eq!(d["file"], "commands/demo.md");
    assert!(text(d, "message").contains("command"), "{d}");

    src.remove("commands/demo.md");
    src.write("agents/demo.md", "You review code.\n");
    let (_, doc) = src.json();
    assert_eq!(only(&doc, "item-no-frontmatter")["file"], "agents/demo.md");

    src.write(
        "agents/demo.md",
        "---\nname: demo\ndescription: Reviews code.\n---\nYou review code.\n",
    );
    let (status, doc) = src.json();
    assert_eq!((status, diagnostics(&doc).len()), (0, 0), "{doc:#}");
}

#[test]
fn an_item_in_two_places_is_an_error_naming_both() {
    let src = good();
    src.write(
        "registry/skills/demo/SKILL.md",
        "---\nname: demo\ndescription: Demo.\n---\nBody.\n",
    );
    let (status, doc) = src.json();
    assert_eq!(status, 1);
    let d = only(&doc, "item-ambiguous");
    assert_eq!(d["severity"], "error");
    let message = text(d, "message");
    assert!(
        message.contains("skills/demo/SKILL.md and registry/skills/demo/SKILL.md"),
        "{message}"
    );
}

#[test]
fn a_missing_item_stays_a_warning() {
    let src = good();
    src.remove("skills/demo");
    let (status, doc) = src.json();
    assert_eq!(status, 0);
    assert_eq!(only(&doc, "no-item")["severity"], "warning");
}

// ------------------------------------------------------- B: baseline_file

#[test]
fn a_baseline_file_must_be_json_lines() {
    let src = good();
    src.write(
        GRADER,
        "---\ntype: baseline\nbaseline_file: data/b.jsonl\n---\nAs good as the baseline.\n",
    );
    src.write(
        "evals/demo/fires/data/b.jsonl",
        "{\"role\":\"user\"}\n\n[1, 2]\n",
    );
    let (status, doc) = src.json();
    assert_eq!((status, diagnostics(&doc).len()), (0, 0), "{doc:#}");

    src.write(
        "evals/demo/fires/data/b.jsonl",
        "{\"role\":\"user\"}\n{\"role\": assistant}\nnot json either\n",
    );
    let (status, doc) = src.json();
    assert_eq!(status, 1);
    let d = only(&doc, "baseline-file-invalid");
    assert_eq!(d["file"], "evals/demo/fires/data/b.jsonl");
    assert_eq!(d["line"], 2);
    assert!(text(d, "message").contains("line 2"), "{d}");

    src.remove("evals/demo/fires/data/b.jsonl");
    fs::create_dir_all(src.file("evals/demo/fires/data/b.jsonl")).unwrap();
    let (_, doc) = src.json();
    assert_eq!(only(&doc, "baseline-file-invalid")["file"], GRADER);
}

// ------------------------------------------------- C: sharper suggestions

#[test]
fn a_far_key_gets_the_known_keys_not_a_guess() {
    let d = one_finding(
        &[(
            GRADER,
            Some("---\ntype: llm\nbogus: trace\n---\nSays demo.\n"),
        )],
        "unknown-key",
    );
    let fix = text(&d, "fix");
    assert!(!fix.contains("did you mean"), "{fix}");
    assert_eq!(
        fix,
        "remove it; keys for llm: type, name, weight, arm, criteria, focus"
    );
    // A swap of two letters is one edit.
    let d = one_finding(
        &[(GRADER, Some("---\ntpye: llm\n---\nSays demo.\n"))],
        "unknown-key",
    );
    assert_eq!(text(&d, "fix"), "did you mean `type`?");
}

#[test]
fn a_key_of_another_file_says_which_file() {
    let d = one_finding(
        &[(
            GRADER,
            Some("---\ntype: llm\nmax_turns: 4\n---\nSays demo.\n"),
        )],
        "unknown-key",
    );
    assert!(
        text(&d, "fix").contains("belongs in prompt.md frontmatter (or case.yaml `execution:`)"),
        "{d}"
    );
    let d = one_finding(
        &[(FIRES, Some("---\ncriteria: says demo\n---\n\nPlease.\n"))],
        "unknown-key",
    );
    assert!(text(&d, "fix").contains("graders/<name>.md"), "{d}");
    let d = one_finding(
        &[(
            GRADER,
            Some("---\ntype: llm\nhistory_file: h.jsonl\n---\nSays demo.\n"),
        )],
        "unknown-key",
    );
    assert!(
        text(&d, "fix").contains("case.yaml under `context:`"),
        "{d}"
    );
}

#[test]
fn a_key_written_for_a_required_one_is_one_finding() {
    let d = one_finding(
        &[(GRADER, Some("---\ntype: regex\nregex: demo\n---\n"))],
        "unknown-key",
    );
    assert_eq!(text(&d, "fix"), "use `pattern:`");
    assert_eq!(d["line"], 3);
    let d = one_finding(
        &[(GRADER, Some("---\ntype: regex\npatern: demo\n---\n"))],
        "unknown-key",
    );
    assert_eq!(text(&d, "fix"), "did you mean `pattern`?");
    let d = one_finding(
        &[(
            CASE_YAML,
            Some(
                "schema_version: \"1.1\"\nname: fires\ngraders:\n  - name: x\n    type: file_exists\n    glob: out/*.md\n",
            ),
        )],
        "unknown-key",
    );
    assert_eq!(text(&d, "fix"), "use `path:`");
}

#[test]
fn a_top_level_prompt_in_case_yaml_gets_one_coherent_fix() {
    // case.yaml alone: the prompt is misplaced, not missing.
    let d = one_finding(
        &[
            (FIRES, None),
            (
                CASE_YAML,
                Some("schema_version: \"1.1\"\nname: fires\nprompt: Please do the demo thing.\n"),
            ),
        ],
        "unknown-key",
    );
    assert_eq!(d["file"], CASE_YAML);
    assert_eq!(text(&d, "fix"), "move `prompt` under `execution:`");
    // With prompt.md's body, moving it would change nothing.
    let d = one_finding(
        &[(
            CASE_YAML,
            Some("schema_version: \"1.1\"\nname: fires\nprompt: Other.\n"),
        )],
        "unknown-key",
    );
    assert_eq!(
        text(&d, "fix"),
        "remove it: the case's prompt is the body of prompt.md"
    );
}

#[test]
fn a_huge_key_is_clipped_and_quick() {
    let src = good();
    let key = "k".repeat(4 << 20);
    // An explicit key: a plain one is at most 1,024 characters.
    src.write(FIRES, &format!("---\n? {key}\n: 1\n---\n\nPlease.\n"));
    let (status, doc) = src.json();
    assert_eq!(status, 1);
    let d = only(&doc, "unknown-key");
    assert!(
        text(d, "message").len() < 200,
        "{}",
        text(d, "message").len()
    );
}

// ------------------------------------------------------- D: hostile input

#[test]
fn a_fifo_is_a_finding_and_never_opened() {
    let src = good();
    src.fifo("evals/demo/fires/graders/pipe.md");
    let (status, doc) = src.json();
    assert_eq!(status, 1);
    assert_eq!(
        only(&doc, "not-a-file")["file"],
        "evals/demo/fires/graders/pipe.md"
    );
    // As the case's prompt or the baseline: one finding, no hang, no follow-on.
    let src = good();
    src.remove(FIRES).fifo(FIRES);
    src.remove("evals/demo/baseline.json")
        .fifo("evals/demo/baseline.json");
    let (_, doc) = src.json();
    let codes: Vec<&str> = diagnostics(&doc)
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["not-a-file", "not-a-file"], "{doc:#}");
}

#[test]
fn symlinks_in_a_suite_are_findings_and_never_followed() {
    // A link to a device that never ends, a loop, and a link out of the suite.
    let src = good();
    src.link("/dev/zero", "evals/demo/fires/graders/zero.md");
    src.link(".", "evals/demo/group/loop");
    src.link("/etc", "evals/demo/fires/data");
    let (status, doc) = src.json();
    assert_eq!(status, 1);
    let mut found: Vec<(String, String)> = diagnostics(&doc)
        .iter()
        .map(|d| (text(d, "code"), text(d, "file")))
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            ("symlink".into(), "evals/demo/fires/data".into()),
            ("symlink".into(), "evals/demo/fires/graders/zero.md".into()),
            ("symlink".into(), "evals/demo/group/loop".into()),
        ],
        "{doc:#}"
    );
    // A linked case folder: one finding, not also a missing `quiet` case.
    let src = good();
    fs::rename(src.file("evals/demo/quiet"), src.file("quiet-real")).unwrap();
    src.link("../../quiet-real", "evals/demo/quiet");
    let (_, doc) = src.json();
    assert_eq!(only(&doc, "symlink")["file"], "evals/demo/quiet");
}

#[test]
fn oversized_files_are_findings_and_never_read() {
    let src = good();
    for rel in [FIRES, "evals/demo/fires/big.bin"] {
        let file = fs::File::create(src.file(rel)).unwrap();
        file.set_len(bob_eval::config::MAX_SUITE_FILE + 1).unwrap();
    }
    let (status, doc) = src.json();
    assert_eq!(status, 1);
    let files: Vec<String> = diagnostics(&doc)
        .iter()
        .map(|d| {
            assert_eq!(d["code"], "file-too-large", "{doc:#}");
            text(d, "file")
        })
        .collect();
    assert_eq!(files, ["evals/demo/fires/big.bin", FIRES], "{doc:#}");
}

#[test]
fn names_that_are_not_utf8_are_findings() {
    use std::os::unix::ffi::OsStrExt;
    let src = good();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.md");
    fs::write(
        src.file("evals/demo/fires/graders")
            .as_std_path()
            .join(name),
        "---\ntype: llm\n---\nX.\n",
    )
    .unwrap();
    let (status, doc) = src.json();
    assert_eq!(status, 1);
    let d = only(&doc, "non-utf8-name");
    assert!(
        text(d, "file").starts_with("evals/demo/fires/graders/caf"),
        "{d}"
    );
}

#[test]
fn yaml_nested_deep_is_refused_fast() {
    let n = 80_000;
    let src = good();
    src.write(
        CASE_YAML,
        &format!(
            "schema_version: \"1.1\"\nname: fires\ntags: {}{}\n",
            "[".repeat(n),
            "]".repeat(n)
        ),
    );
    src.write(
        GRADER,
        &format!("---\ntype: llm\nfocus: {}x\n---\nX.\n", "- ".repeat(n)),
    );
    let (status, doc) = src.json();
    assert_eq!(status, 1);
    let found: Vec<(String, String, u64)> = diagnostics(&doc)
        .iter()
        .map(|d| {
            (
                text(d, "code"),
                text(d, "file"),
                d["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("yaml-too-deep".into(), CASE_YAML.into(), 3),
            ("yaml-too-deep".into(), GRADER.into(), 3),
        ],
        "{doc:#}"
    );
    // What a suite really nests passes.
    let d = bob_eval::suite::yaml_too_deep(
        "graders:\n  - name: a\n    type: tool_order\n    before: {tool: Write, input_match: '[[x'}\n    after: [a, [b, {c: d}]]\n",
        bob_eval::suite::MAX_YAML_DEPTH,
    );
    assert_eq!(d, None);
}

#[test]
fn a_refused_case_yaml_has_no_follow_on_findings() {
    let d = one_finding(
        &[(CASE_YAML, Some("schema_version: [\nname: fires\n"))],
        "invalid-yaml",
    );
    assert_eq!(d["file"], CASE_YAML);
}

/// Folders nested under `base` until their path is longer than the system
/// takes (made one at a time, relative to the last): the deepest cannot be
/// listed, whoever runs the test.
fn too_long_a_path(base: &std::path::Path) {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::CString::new("g".repeat(255)).unwrap();
    let base = std::ffi::CString::new(base.as_os_str().as_bytes()).unwrap();
    unsafe {
        let mut fd = libc::open(base.as_ptr(), libc::O_DIRECTORY | libc::O_RDONLY);
        assert!(fd >= 0);
        for _ in 0..17 {
            assert_eq!(libc::mkdirat(fd, name.as_ptr(), 0o755), 0);
            let next = libc::openat(fd, name.as_ptr(), libc::O_DIRECTORY | libc::O_RDONLY);
            assert!(next >= 0);
            libc::close(fd);
            fd = next;
        }
        libc::close(fd);
    }
}

#[test]
fn a_folder_that_cannot_be_listed_has_no_follow_on_findings() {
    // Where `quiet` would be cannot be read: no "the suite has no quiet case".
    let src = good();
    src.remove("evals/demo/quiet");
    too_long_a_path(src.file("evals/demo").as_std_path());
    let (_, doc) = src.json();
    let d = only(&doc, "unreadable");
    assert!(text(d, "file").starts_with("evals/demo/ggg"), "{d}");
}

#[test]
fn an_unreadable_case_folder_has_no_follow_on_findings() {
    if unsafe { libc::geteuid() } == 0 {
        // Root reads a folder whatever its mode: the test above covers it.
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let src = good();
    let quiet = src.file("evals/demo/quiet");
    fs::set_permissions(&quiet, fs::Permissions::from_mode(0o000)).unwrap();
    let (_, doc) = src.json();
    fs::set_permissions(&quiet, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(only(&doc, "unreadable")["file"], "evals/demo/quiet");
}

#[test]
fn regexes_that_backtrack_catastrophically_are_findings_never_run() {
    let d = one_finding(
        &[(GRADER, Some("---\ntype: regex\npattern: '(a+)+$'\n---\n"))],
        "regex-backtracking",
    );
    assert_eq!(d["severity"], "error");
    assert!(text(&d, "message").contains("`(a+)+`"), "{d}");
    // A trigger pin is run by check: a hazardous one is reported, not run.
    let src = good();
    src.write(
        "evals/demo/quiet/graders/quiet.md",
        "---\ntype: tool_used\ntool: Skill\ninput_match: '^(\\w+\\s?)+$'\nmin: 0\nmax: 0\narm: both\n---\n",
    );
    let (_, doc) = src.json();
    assert_eq!(
        only(&doc, "regex-backtracking")["file"],
        "evals/demo/quiet/graders/quiet.md"
    );
    // Too deep or too long to compile safely.
    let deep = format!("{}a{}", "(".repeat(50_000), ")".repeat(50_000));
    let long = "a".repeat(100_000);
    for pattern in [deep, long] {
        let d = one_finding(
            &[(
                GRADER,
                Some(&format!("---\ntype: regex\npattern: '{pattern}'\n---\n")),
            )],
            "regex-too-complex",
        );
        assert!(text(&d, "message").len() < 200, "{d}");
    }
    // Unambiguous repeats pass.
    let src = good();
    src.write(
        GRADER,
        "---\ntype: regex\npattern: '^(?:[\\w-]+:)*demo(, \\d+)*$'\n---\n",
    );
    let (status, doc) = src.json();
    assert_eq!((status, diagnostics(&doc).len()), (0, 0), "{doc:#}");
}

/// A `tool_used: Skill` grader on `pattern`, asserting the item never fires.
fn quiet_grader(pattern: &str) -> String {
    format!(
        "---\ntype: tool_used\ntool: Skill\ninput_match: '{pattern}'\nmin: 0\nmax: 0\narm: both\n---\n"
    )
}

/// A case `other` whose Skill grader, outside the trigger pair, is on
/// `pattern`, beside a scoring grader (so the case is not scored by its
/// trigger alone).
fn other_case(src: &World, pattern: &str) {
    src.write("evals/demo/other/prompt.md", "Do the demo thing again.\n");
    src.write(
        "evals/demo/other/graders/skill.md",
        &format!("---\ntype: tool_used\ntool: Skill\ninput_match: '{pattern}'\n---\n"),
    );
    src.write(
        "evals/demo/other/graders/says.md",
        "---\ntype: regex\npattern: demo\n---\n",
    );
}

#[test]
fn overlapping_alternatives_are_a_finding_and_check_finishes() {
    // Each backtracks for minutes in JavaScript (and in regress) on a Skill
    // input such as {"skill":"bob-eval-demo:demo"}: the shape is the
    // finding, in the trigger pair and outside it, and check finishes (the
    // hang guard of `json`).
    for pattern in [
        r#"(?:[\w":{}-]|[\w":{}-])*!"#,
        r#"(?:(?:[\w":{}-])+)*!"#,
        r#"(?:\w|[a-z":{}-])*!"#,
        r#"(?:[\w-]|[\w:"{}])+!"#,
        r#"(?:[\w":{}-]|[\w":{}-]{2})*!"#,
        r"(.|\s)*!",
    ] {
        let src = good();
        src.write("evals/demo/quiet/graders/quiet.md", &quiet_grader(pattern));
        let (status, doc) = src.json();
        assert_eq!(status, 1, "{pattern}: {doc:#}");
        let d = only(&doc, "regex-backtracking");
        assert_eq!(d["file"], "evals/demo/quiet/graders/quiet.md", "{pattern}");

        let src = good();
        other_case(&src, pattern);
        let (_, doc) = src.json();
        let d = only(&doc, "regex-backtracking");
        assert_eq!(d["file"], "evals/demo/other/graders/skill.md", "{pattern}");
    }
}

#[test]
fn a_pattern_too_slow_to_run_is_a_finding_and_check_finishes() {
    // A lookaround in the repeat keeps the shape check from being sure, and
    // fancy-regex runs it under a step budget; a back reference has no
    // linear translation, and regress runs it under a time budget. Each
    // matches the item, and gives up on {"skill":"bob-eval-demo:demo"}.
    for pattern in [
        r#""(?:[\w-]+:)?demo"\}|(?:(?=[\w":{}-])[\w":{}-]|[\w":{}-])*!"#,
        r#""(?:[\w-]+:)?demo"\}|(?:(?![!])[\w":{}-]|[\w":{}-])*!"#,
        r#""(?:[\w-]+:)?demo"\}|(")(?:(?=\1|[\w":{}-])[\w":{}-]|[\w":{}-])*!"#,
    ] {
        let src = good();
        src.write("evals/demo/quiet/graders/quiet.md", &quiet_grader(pattern));
        let (status, doc) = src.json();
        assert_eq!(status, 1, "{pattern}: {doc:#}");
        let d = only(&doc, "regex-too-slow");
        assert_eq!(d["file"], "evals/demo/quiet/graders/quiet.md");
        assert!(text(d, "message").contains("too slow to check"), "{d}");

        let src = good();
        other_case(&src, pattern);
        let (_, doc) = src.json();
        let d = only(&doc, "regex-too-slow");
        assert_eq!(d["file"], "evals/demo/other/graders/skill.md");
    }
    // Quick patterns with a lookaround still get their pin checked.
    let src = good();
    src.write(
        "evals/demo/quiet/graders/quiet.md",
        &quiet_grader(r#"(?<![\w-])"skill"\s*:\s*"(?:[\w-]+:)?demo(?=")"#),
    );
    let (status, doc) = src.json();
    assert_eq!((status, diagnostics(&doc).len()), (0, 0), "{doc:#}");
    src.write(
        "evals/demo/quiet/graders/quiet.md",
        &quiet_grader(r#"(?<![\w-])"skill"\s*:\s*"(?:[\w-]+:)?dem(?=o)"#),
    );
    let (_, doc) = src.json();
    only(&doc, "trigger-too-broad");
}
