//! `bob-eval init`: a new suite, or one more blank case, written whole or not at all.
//!
//! [`init`] writes `evals/<item>/`: the trigger pair (`fires`, `quiet`) pinned
//! to the item as `check` wants it ([`pin_pattern`]), one scoring case
//! whose prompt, regex and criteria are the `init` placeholders `check` reports
//! as errors (so an unfilled suite is never run), and a `baseline.json` with an
//! empty best. [`add_case`] adds one such blank case to an existing suite.
//!
//! Nothing is overwritten and nothing is left half-written: the files are
//! written by [`crate::fsio::write_new_dir`] in a hidden folder beside the
//! target (`evals/.<name>…`, which neither `check` nor the platform reads) and
//! renamed into place once the target is known to be absent. Nothing here prints.

use crate::check::trigger::pin_pattern;
use crate::check::{INIT_CRITERIA, INIT_FIRES_TASK, INIT_PROMPT, INIT_QUIET_PROMPT};
use crate::config::{ItemName, existing_suite, suite_dir};
use crate::document::Baseline;
use crate::error::{Error, Result};
use crate::item::{Item, ItemKind};
use crate::suite::SKIPPED_DIRS;
use camino::{Utf8Path, Utf8PathBuf};

/// The scoring case [`init`] writes beside the trigger pair.
pub const SCORING_CASE: &str = "scoring";

/// The scoring grader [`init`] writes into `fires` beside its trigger grader,
/// so the case measures what the item does, not only that it fired.
pub const FIRES_SCORING: &str = "teaches";

/// What [`init`] or [`add_case`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scaffolded {
    /// The item the suite is for.
    pub item: ItemName,
    /// The item found in the source; `None` when it does not exist yet.
    pub found: Option<Item>,
    /// When the item does not exist: the nearest item name, if one is close.
    pub suggestion: Option<String>,
    /// The folder written: `evals/<item>` (init) or `evals/<item>/<case>` (a case).
    pub dir: Utf8PathBuf,
    /// Every file written, under `dir`, in order.
    pub files: Vec<Utf8PathBuf>,
    /// The case folders whose `TODO` placeholders must be filled before `check` passes.
    pub to_fill: Vec<Utf8PathBuf>,
}

/// Write `evals/<item>/` under `source`: `fires`, `quiet`, [`SCORING_CASE`] and
/// `baseline.json`. Refused (exit 2) for an invalid or ambiguous name and when
/// `evals/<item>` exists in any form; an item that does not exist yet is not an
/// error (`found` is `None`).
pub fn init(source: &Utf8Path, item: &str) -> Result<Scaffolded> {
    let item = &ItemName::new(item)?;
    let found = locate(source, item)?;
    let dir = suite_dir(source, item);
    crate::fsio::refuse_existing(&dir, || {
        format!(
            "{dir} already exists: bob-eval init never overwrites a suite; add a case with `bob-eval init {item} --bare CASE`"
        )
    })?;
    let kind = found.as_ref().map(|f| f.kind);
    let mut files = vec![(
        "baseline.json".to_string(),
        serde_json::to_string_pretty(&Baseline::empty(item)).expect("a baseline serialises") + "\n",
    )];
    files.extend(trigger_files(item, kind));
    files.extend(
        blank_case(item, kind)
            .into_iter()
            .map(|(rel, text)| (format!("{SCORING_CASE}/{rel}"), text)),
    );
    let written = crate::fsio::write_new_dir(&source.join("evals"), &dir, &files)?;
    Ok(Scaffolded {
        item: item.clone(),
        suggestion: suggest(source, item, &found),
        found,
        to_fill: vec![dir.join(SCORING_CASE)],
        dir,
        files: written,
    })
}

/// Add the blank case `case` to the existing suite `evals/<item>/`. Refused
/// (exit 2) without the suite, for a name the platform would skip or not
/// accept as a folder, and when the folder or a case of that name exists.
pub fn add_case(source: &Utf8Path, item: &str, case: &str) -> Result<Scaffolded> {
    let item = &ItemName::new(item)?;
    let found = locate(source, item)?;
    validate_case_name(case)?;
    let suite = existing_suite(source, item).map_err(|_| {
        Error::Usage(format!(
            "no suite {} to add a case to: start one with `bob-eval init {item}`",
            suite_dir(source, item)
        ))
    })?;
    let dir = suite.join(case);
    crate::fsio::refuse_existing(&dir, || {
        format!("{dir} already exists: bob-eval init never overwrites a case; pick another name")
    })?;
    let loaded = crate::suite::load_dir(&suite, item);
    if let Some(other) = loaded.cases.iter().find(|c| c.name == case) {
        return Err(Error::Usage(format!(
            "the suite already has a case named `{case}` ({}): pick another name",
            other.dir
        )));
    }
    let kind = found.as_ref().map(|f| f.kind);
    let written = crate::fsio::write_new_dir(&source.join("evals"), &dir, &blank_case(item, kind))?;
    Ok(Scaffolded {
        item: item.clone(),
        suggestion: suggest(source, item, &found),
        found,
        to_fill: vec![dir.clone()],
        dir,
        files: written,
    })
}

/// The nearest item name to `item` when `found` says it does not exist.
fn suggest(source: &Utf8Path, item: &str, found: &Option<Item>) -> Option<String> {
    match found {
        Some(_) => None,
        None => crate::config::did_you_mean(item, &crate::item::names(source)),
    }
}

/// The item named `item`: `None` when there is none yet; an error for an
/// invalid name or more than one item of that name.
fn locate(source: &Utf8Path, item: &ItemName) -> Result<Option<Item>> {
    match crate::item::find(source, item) {
        Ok(found) => Ok(Some(found)),
        Err(Error::ItemNotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// A case folder name: like an item name, and not one the platform's case walk skips.
fn validate_case_name(case: &str) -> Result<()> {
    if ItemName::new(case).is_err() {
        return Err(Error::Usage(format!(
            "invalid case name {case:?}: use lower-case letters, digits and '-', starting with a letter or digit, at most 64 characters"
        )));
    }
    if SKIPPED_DIRS.contains(&case) {
        return Err(Error::Usage(format!(
            "`{case}` cannot be a case: the platform never reads a folder of that name; pick another name"
        )));
    }
    Ok(())
}

/// The words for what the item is: `skill`, `command` or `agent` (a skill when unknown).
fn kind_word(kind: Option<ItemKind>) -> &'static str {
    kind.unwrap_or(ItemKind::Skill).as_str()
}

/// A `prompt.md`: frontmatter, then the prompt.
fn prompt_md(description: &str, tags: &str, note: &str, body: &str) -> String {
    format!(
        "---\n{note}description: {description}\ntags: [{tags}]\nmax_turns: 6\nallowed_tools: [Skill, Read, Glob, Grep]\n---\n\n{body}\n"
    )
}

/// `fires/` and `quiet/`, their Skill graders pinned to `item`.
fn trigger_files(item: &str, kind: Option<ItemKind>) -> Vec<(String, String)> {
    let word = kind_word(kind);
    let pin = pin_pattern(item);
    let ask = match kind {
        Some(ItemKind::Command) => format!("Run the /{item} command"),
        Some(ItemKind::Agent) => format!("Hand this to the {item} agent"),
        _ => format!("Use the {item} skill"),
    };
    let note = "# A default that names the item; replace it with a request where it should fire unasked.\n";
    vec![
        (
            "fires/prompt.md".into(),
            prompt_md(
                &format!("A request the {item} {word} is for; it should fire."),
                "trigger, smoke",
                note,
                &format!(
                    "{ask} {INIT_FIRES_TASK} You cannot run commands here, so give the answer in your reply."
                ),
            ),
        ),
        (
            "fires/graders/fires.md".into(),
            format!("---\ntype: tool_used\ntool: Skill\ninput_match: {pin}\n---\n"),
        ),
        (
            format!("fires/graders/{FIRES_SCORING}.md"),
            format!(
                "---\ntype: regex\n# What the {item} {word} teaches, as a JavaScript regex its answer must match.\n# The trigger grader above is with-only (not scored); without this one the\n# platform would score the case by whether the {word} fired alone.\npattern: '{INIT_CRITERIA}'\n---\n"
            ),
        ),
        (
            "quiet/prompt.md".into(),
            prompt_md(
                &format!("A question unrelated to {item}; the {word} must stay quiet."),
                "trigger",
                "",
                INIT_QUIET_PROMPT,
            ),
        ),
        (
            "quiet/graders/quiet.md".into(),
            format!(
                "---\ntype: tool_used\ntool: Skill\ninput_match: {pin}\nmin: 0\nmax: 0\narm: both\n---\n"
            ),
        ),
    ]
}

/// A case whose prompt, regex and criteria are the `init` placeholders (paths
/// relative to the case folder).
fn blank_case(item: &str, kind: Option<ItemKind>) -> Vec<(String, String)> {
    let word = kind_word(kind);
    vec![
        (
            "prompt.md".into(),
            prompt_md(
                &format!("A task the {item} {word} should do better than the model alone."),
                "score",
                "# The body is the prompt: paste in the context it needs (a diff, a file).\n",
                INIT_PROMPT,
            ),
        ),
        (
            "graders/matches.md".into(),
            format!(
                "---\ntype: regex\n# A JavaScript regex the response must match (flags: i ignores case; never (?i)).\npattern: '{INIT_CRITERIA}'\n---\n"
            ),
        ),
        (
            "graders/judge.md".into(),
            format!(
                "---\ntype: llm\n# The body is what a judge model checks the response for.\n---\n\n{INIT_CRITERIA}\n"
            ),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;
    use std::fs;

    fn tree(files: &[&str]) -> (tempfile::TempDir, Utf8PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::from_path_buf(dir.path().to_owned()).unwrap();
        for f in files {
            let p = root.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            // A skill's `name` is its folder's (else `check` says the
            // platform will not offer it); a command or agent needs none.
            let name = p
                .parent()
                .and_then(|d| d.file_name())
                .filter(|_| p.file_name() == Some("SKILL.md"))
                .unwrap_or("x");
            fs::write(
                &p,
                format!("---\nname: {name}\ndescription: X.\n---\n\nBody.\n"),
            )
            .unwrap();
        }
        (dir, root)
    }

    /// Replace the trigger pair's default prompts with requests of the suite's own.
    fn fill_trigger_prompts(root: &Utf8Path, item: &str) {
        for (case, default, text) in [
            ("fires", INIT_FIRES_TASK, "on the diff below."),
            ("quiet", INIT_QUIET_PROMPT, "What does this diff change?"),
        ] {
            let path = root.join(format!("evals/{item}/{case}/prompt.md"));
            let old = fs::read_to_string(&path).unwrap();
            assert!(old.contains(default), "{path}");
            fs::write(&path, old.replace(default, text)).unwrap();
        }
    }

    fn codes(root: &Utf8Path, item: &str) -> Vec<(Severity, &'static str)> {
        let report = crate::check::check_suites(root, &[crate::config::item_name(item)]).unwrap();
        report
            .diagnostics
            .iter()
            .map(|d| (d.severity, d.code))
            .collect()
    }

    fn hidden(root: &Utf8Path) -> Vec<String> {
        fs::read_dir(root.join("evals"))
            .unwrap()
            .filter_map(|e| e.unwrap().file_name().into_string().ok())
            .filter(|n| n.starts_with('.'))
            .collect()
    }

    #[test]
    fn init_writes_a_suite_check_holds_only_to_its_placeholders() {
        let (_d, root) = tree(&["skills/demo/SKILL.md"]);
        let out = init(&root, "demo").unwrap();
        assert_eq!(out.found.map(|f| f.kind), Some(ItemKind::Skill));
        assert_eq!(out.dir, root.join("evals/demo"));
        let rel: Vec<&str> = out
            .files
            .iter()
            .map(|f| f.strip_prefix(&out.dir).unwrap().as_str())
            .collect();
        assert_eq!(
            rel,
            [
                "baseline.json",
                "fires/prompt.md",
                "fires/graders/fires.md",
                "fires/graders/teaches.md",
                "quiet/prompt.md",
                "quiet/graders/quiet.md",
                "scoring/prompt.md",
                "scoring/graders/matches.md",
                "scoring/graders/judge.md",
            ]
        );
        assert!(out.files.iter().all(|f| f.is_file()));
        // The TODO lines refuse the suite; the trigger pair's runnable
        // defaults are warned about.
        assert_eq!(
            codes(&root, "demo"),
            [
                (Severity::Error, "init-placeholder"),
                (Severity::Warning, "init-placeholder"),
                (Severity::Warning, "init-placeholder"),
                (Severity::Error, "init-placeholder"),
                (Severity::Error, "init-placeholder"),
                (Severity::Error, "init-placeholder"),
            ]
        );
        fill_trigger_prompts(&root, "demo");
        assert_eq!(
            codes(&root, "demo"),
            vec![(Severity::Error, "init-placeholder"); 4]
        );
        assert!(hidden(&root).is_empty());
        let baseline =
            crate::document::load_baseline(&root, &crate::config::item_name("demo")).unwrap();
        assert_eq!(baseline, Baseline::empty("demo"));
    }

    #[test]
    fn filled_in_the_suite_is_clean() {
        let (_d, root) = tree(&["commands/ship.md"]);
        let out = init(&root, "ship").unwrap();
        assert_eq!(out.found.map(|f| f.kind), Some(ItemKind::Command));
        fill_trigger_prompts(&root, "ship");
        let case = root.join("evals/ship/scoring");
        for (file, text) in [
            ("prompt.md", "Ship the release notes for 1.2."),
            ("graders/matches.md", "1\\.2"),
            ("graders/judge.md", "The notes name version 1.2."),
        ] {
            let path = case.join(file);
            let old = fs::read_to_string(&path).unwrap();
            let new = old.replace(INIT_PROMPT, text).replace(INIT_CRITERIA, text);
            fs::write(path, new).unwrap();
        }
        assert_eq!(
            codes(&root, "ship"),
            vec![(Severity::Error, "init-placeholder")],
            "fires' scoring grader is still to fill"
        );
        let teaches = root.join(format!("evals/ship/fires/graders/{FIRES_SCORING}.md"));
        let old = fs::read_to_string(&teaches).unwrap();
        fs::write(&teaches, old.replace(INIT_CRITERIA, "1\\.2")).unwrap();
        assert_eq!(codes(&root, "ship"), vec![]);
        // Without it, fires is scored by its trigger alone: refused.
        fs::remove_file(&teaches).unwrap();
        assert_eq!(
            codes(&root, "ship"),
            vec![(Severity::Error, "scored-by-trigger")]
        );
    }

    #[test]
    fn a_missing_item_still_gets_its_suite() {
        let (_d, root) = tree(&[]);
        let out = init(&root, "later").unwrap();
        assert!(out.found.is_none());
        fill_trigger_prompts(&root, "later");
        let mut found = codes(&root, "later");
        found.sort();
        assert_eq!(
            found,
            [
                (Severity::Error, "init-placeholder"),
                (Severity::Error, "init-placeholder"),
                (Severity::Error, "init-placeholder"),
                (Severity::Error, "init-placeholder"),
                (Severity::Warning, "no-item"),
            ]
        );
    }

    #[test]
    fn never_overwrites() {
        let (_d, root) = tree(&["agents/rev.md"]);
        fs::create_dir_all(root.join("evals/rev")).unwrap();
        let err = init(&root, "rev").unwrap_err();
        assert_eq!(err.exit_code(), crate::error::exit::USAGE);
        assert!(err.to_string().contains("--bare"), "{err}");
        assert_eq!(fs::read_dir(root.join("evals/rev")).unwrap().count(), 0);
        fs::remove_dir(root.join("evals/rev")).unwrap();
        fs::write(root.join("evals/rev"), "x").unwrap();
        assert!(init(&root, "rev").is_err());
        assert_eq!(fs::read_to_string(root.join("evals/rev")).unwrap(), "x");
        assert!(hidden(&root).is_empty());
    }

    #[test]
    fn bad_and_ambiguous_names_write_nothing() {
        let (_d, root) = tree(&["skills/x/SKILL.md", "commands/x.md"]);
        assert!(init(&root, "../x").is_err());
        assert!(matches!(init(&root, "x"), Err(Error::ItemAmbiguous { .. })));
        assert!(!root.join("evals").exists());
    }

    #[test]
    fn add_case_adds_a_blank_case_and_refuses_taken_names() {
        let (_d, root) = tree(&["skills/demo/SKILL.md"]);
        assert!(add_case(&root, "demo", "edge").is_err(), "no suite yet");
        init(&root, "demo").unwrap();
        fill_trigger_prompts(&root, "demo");
        let out = add_case(&root, "demo", "edge").unwrap();
        assert_eq!(out.dir, root.join("evals/demo/edge"));
        assert_eq!(out.files.len(), 3);
        assert_eq!(
            codes(&root, "demo"),
            vec![(Severity::Error, "init-placeholder"); 7]
        );
        for taken in ["edge", "fires", "scoring"] {
            let err = add_case(&root, "demo", taken).unwrap_err().to_string();
            assert!(err.contains("already exists"), "{err}");
        }
        // A case named in case.yaml, in another folder.
        fs::create_dir_all(root.join("evals/demo/other")).unwrap();
        fs::write(
            root.join("evals/demo/other/case.yaml"),
            "schema_version: \"1.1\"\nname: named\n",
        )
        .unwrap();
        let err = add_case(&root, "demo", "named").unwrap_err().to_string();
        assert!(err.contains("already has a case named `named`"), "{err}");
        for bad in ["results", "Edge", "a/b", ".x", ""] {
            assert!(add_case(&root, "demo", bad).is_err(), "{bad}");
        }
        assert!(hidden(&root).is_empty());
    }
}
