//! Static checks of suites before any money is spent (`bob-eval check`).
//!
//! Everything the platform would refuse when loading a case, the traps it does
//! not report at all (platform.md, "Traps"), and the trigger pair every suite
//! must carry (docs/suites.md: bob-eval's convention, not a
//! platform rule). Each finding is a [`Diagnostic`] with a file, a line where
//! known, a one-line message and a one-line fix.
//!
//! Here: the report, and the suite and case checks that drive the rules of
//! [`keys`] (case keys and their values), `graders` (one check per grader
//! type), [`trigger`] (the fires/quiet pair and its pin), `offered` (the item
//! the suite tests, as the platform offers it), [`js_regex`](mod@js_regex)
//! (what JavaScript's `RegExp` accepts, and the bounded matcher that runs a
//! pattern), `translate` (a pattern in the linear-time `regex` crate's
//! syntax), `backtrack` (patterns that could backtrack catastrophically,
//! found by their shape and never run), [`traps`]
//! (the silent traps both layouts share), `mocks` (the `mocks/` layers) and
//! [`neighbours`] (items described nearly alike, across the source).
//! [`plugin`] is the other layout, `check --plugin DIR`: a plugin's own
//! `claude plugin eval` suites, with the trigger pair only a note.

mod backtrack;
mod graders;
pub mod js_regex;
pub mod keys;
pub mod markers;
mod mocks;
pub mod neighbours;
mod offered;
mod pin;
pub mod plugin;
mod scan;
mod servers;
mod translate;
pub mod traps;
pub mod trigger;

pub use js_regex::js_regex;
pub use plugin::check_plugin;
pub use trigger::ItemNames;

use crate::config::{ItemName, suite_dir};
use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::error::{Error, Result};
use crate::suite::{self, Case, Suite};
use camino::{Utf8Path, Utf8PathBuf};
use graders::check_case_graders;
use keys::{check_key_values, check_unknown_keys};
use offered::check_item;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;
use trigger::check_trigger_pair;

/// One checked suite.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SuiteSummary {
    /// The item.
    pub item: String,
    /// `evals/<item>` relative to the source.
    pub dir: Utf8PathBuf,
    /// Case names, in folder order.
    pub cases: Vec<String>,
}

/// The outcome of `bob-eval check` (its `--json` output).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckReport {
    /// `bob-eval-check/1`.
    pub schema: &'static str,
    /// The suites checked.
    pub suites: Vec<SuiteSummary>,
    /// Error-severity findings.
    pub errors: usize,
    /// Warning-severity findings.
    pub warnings: usize,
    /// Note-severity findings (advice; never fail `check`).
    pub notes: usize,
    /// Every finding, sorted by file and line.
    pub diagnostics: Vec<Diagnostic>,
    /// Each judged grader's record against its labels (`check` only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub judges: Vec<JudgeLine>,
}

/// One judged grader's record, as `check` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeLine {
    /// The item.
    pub item: String,
    /// The case.
    pub case: String,
    /// The grader.
    pub grader: String,
    /// Its labels file, relative to the source (it may not exist yet).
    pub file: Utf8PathBuf,
    /// Its record.
    pub record: crate::stats::calibration::Record,
    /// The record in words.
    pub words: String,
    /// The command that labels it, when it is not calibrated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl CheckReport {
    /// True when any finding is an error (`check` exits 1).
    pub fn has_errors(&self) -> bool {
        self.errors > 0
    }

    /// Cases checked across all suites.
    pub fn case_count(&self) -> usize {
        self.suites.iter().map(|s| s.cases.len()).sum()
    }

    /// The index of the suite whose folder holds the finding's file; `None`
    /// for a finding about a file outside every suite (an item's own file,
    /// a plugin's manifest), which the reports list apart.
    pub fn owner(&self, finding: &Diagnostic) -> Option<usize> {
        self.suites
            .iter()
            .position(|s| finding.file.starts_with(&s.dir))
    }
}

/// Tools an eval run may use only with an operator grant (`--allow-tools`).
pub const GATED_TOOLS: [&str; 5] = ["Bash", "Write", "Edit", "WebFetch", "WebSearch"];

/// The init template's prompt line (the platform refuses a prompt holding it).
pub const INIT_PROMPT: &str = "TODO: describe what the agent should do";
/// The init template's grader line (the platform refuses criteria holding it).
pub const INIT_CRITERIA: &str = "TODO: describe what a successful response looks like";

/// The end of `init`'s default `fires` prompt, which names the item ("Use the
/// … skill on a small, typical task …"): runnable, but it measures firing
/// when asked by name, not unasked.
pub const INIT_FIRES_TASK: &str =
    "on a small, typical task it is meant for, and show me the result.";
/// `init`'s default `quiet` prompt: a question far from any item, which says
/// little about staying quiet on a request close to the item.
pub const INIT_QUIET_PROMPT: &str = "Quick question, nothing to change: in one sentence, at what temperature does water boil at sea level?";

static TODO_LINE: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new(r"(?m)^\s*TODO: describe\b").expect("fixed regex"));

/// Check `item`'s suite before the platform is paid to run it: errors refuse the
/// run with [`Error::SuiteInvalid`] (exit 2); warnings are returned for the caller
/// to show. `baseline.json` is left to `gate`: the run neither reads nor copies it.
pub fn preflight(source: &Utf8Path, item: &ItemName) -> Result<Vec<Diagnostic>> {
    let report = check_suites_for(source, std::slice::from_ref(item), false)?;
    if report.has_errors() {
        return Err(Error::SuiteInvalid {
            item: item.into(),
            errors: report.errors,
            diagnostics: report.diagnostics,
        });
    }
    Ok(report.diagnostics)
}

/// What every suite of one `check` shares, built once per invocation (so
/// checking N suites lists the tree once, not N times): every item name (for
/// the trigger pins), the source's items (for the traps) and whether the
/// source ships hooks.
pub struct Index {
    names: ItemNames,
    /// The source's item files, listed once: each suite's item lookup.
    markers: markers::Markers,
    items: traps::Items,
    hooks: bool,
    /// Each suite's item as its check read it, by name: the description
    /// check reuses them instead of reading the files again.
    read: std::sync::Mutex<HashMap<String, offered::Read>>,
}

impl Index {
    /// The index of `source`, whose suites test the items `suites`.
    pub fn new(source: &Utf8Path, suites: &[String]) -> Index {
        let markers = markers::Markers::new(source);
        Index {
            names: ItemNames::new(suites),
            items: traps::source_items(&markers, suites),
            markers,
            hooks: plugin::has_hooks(source),
            read: std::sync::Mutex::default(),
        }
    }
}

impl Index {
    /// [`crate::item::lookup`] of `item`, answered from the listing.
    fn lookup(&self, source: &Utf8Path, item: &ItemName) -> Result<crate::item::Item> {
        crate::item::lookup_with(source, item, |marker| self.markers.is_file(marker))
    }
}

/// Load and check one suite: its summary (none for an invalid name) and its
/// findings; `baseline.json` too when `baseline` is set.
fn check_one(
    source: &Utf8Path,
    item: &str,
    others: &Index,
    baseline: bool,
) -> (Option<SuiteSummary>, Vec<Diagnostic>, Vec<JudgeLine>) {
    let mut diagnostics = Vec::new();
    let Ok(item) = ItemName::new(item) else {
        // A folder under evals/ that cannot be an item name.
        diagnostics.push(Diagnostic {
            severity: Severity::Error,
            code: Code::InvalidSuiteName.as_str(),
            file: source.join("evals").join(item),
            line: None,
            message: format!("`{item}` is not a valid item name, so the suite can never run"),
            fix: "rename the folder to the item's name (lower-case letters, digits and '-')".into(),
        });
        return (None, diagnostics, Vec::new());
    };
    let suite = suite::load_dir(&suite_dir(source, &item), &item);
    check_suite(source, &suite, others, &mut diagnostics);
    if baseline {
        check_baseline(source, &suite, &mut Out(&mut diagnostics));
    }
    let judges = if baseline {
        judge_lines(source, &suite, &mut diagnostics)
    } else {
        Vec::new()
    };
    let summary = SuiteSummary {
        item: item.to_string(),
        dir: relative(source, &suite.dir),
        cases: suite.cases.iter().map(|c| c.name.clone()).collect(),
    };
    (Some(summary), diagnostics, judges)
}

/// Each judged grader's record over its labels, at the default threshold
/// (the `check` command holds it to the house setting); a labels file that
/// cannot be read is an error finding.
fn judge_lines(
    source: &Utf8Path,
    suite: &suite::Suite,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<JudgeLine> {
    let threshold = crate::stats::calibration::DEFAULT_THRESHOLD;
    match suite::judges::records(suite, threshold) {
        Ok(records) => records
            .into_iter()
            .map(|r| JudgeLine {
                item: suite.item.to_string(),
                words: r.words(),
                fix: (!r.record.calibrated).then(|| r.label_command(suite.item.as_str())),
                case: r.case,
                grader: r.grader,
                file: relative(source, &r.file),
                record: r.record,
            })
            .collect(),
        Err(e) => {
            let (file, line, message) = match &e {
                crate::error::Error::InvalidInput { at, message } => {
                    (at.path.clone(), at.line, message.clone())
                }
                other => (suite.dir.clone(), None, other.to_string()),
            };
            diagnostics.push(Diagnostic {
                severity: Severity::Error,
                code: Code::LabelsInvalid.as_str(),
                file,
                line,
                message,
                fix: "fix the labels file, or delete it and label again (bob-eval label)".into(),
            });
            Vec::new()
        }
    }
}

/// Check the suites of `items` under `source` (every suite when `items` is
/// empty), their `baseline.json` included.
pub fn check_suites(source: &Utf8Path, items: &[ItemName]) -> Result<CheckReport> {
    check_suites_for(source, items, true)
}

fn check_suites_for(source: &Utf8Path, items: &[ItemName], baseline: bool) -> Result<CheckReport> {
    let all = suite::list(source)?;
    let items: Vec<String> = if items.is_empty() {
        all.clone()
    } else {
        for item in items {
            crate::config::existing_suite(source, item)?;
        }
        let unique: BTreeSet<&str> = items.iter().map(ItemName::as_str).collect();
        unique.into_iter().map(str::to_owned).collect()
    };
    let mut known: BTreeSet<String> = all.into_iter().collect();
    known.extend(items.iter().cloned());
    let others = Index::new(source, &known.into_iter().collect::<Vec<_>>());

    // Suites are independent: load and check them on every core, then put the
    // results back in the order of `items`.
    let checked = crate::parallel::map(&items, crate::parallel::cores(), |item| {
        check_one(source, item, &others, baseline)
    });
    let mut suites = Vec::new();
    let mut diagnostics = Vec::new();
    let mut judges = Vec::new();
    for (summary, found, judged) in checked {
        suites.extend(summary);
        diagnostics.extend(found);
        judges.extend(judged);
    }
    // `check` itself (not `run`'s preflight) compares the items' descriptions.
    if baseline {
        let read = others.read.into_inner().unwrap_or_default();
        neighbours::check(source, &items, &read, &mut Out(&mut diagnostics));
    }
    let mut out = report(source, suites, diagnostics);
    out.judges = judges;
    Ok(out)
}

/// The report of `suites` with `diagnostics`: paths made relative to `root`,
/// findings sorted by file and line, and counted by severity.
fn report(
    root: &Utf8Path,
    suites: Vec<SuiteSummary>,
    mut diagnostics: Vec<Diagnostic>,
) -> CheckReport {
    for d in &mut diagnostics {
        d.file = relative(root, &d.file);
    }
    diagnostics.sort_by(|a, b| (&a.file, a.line, a.severity).cmp(&(&b.file, b.line, b.severity)));
    let count = |severity| {
        diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    };
    CheckReport {
        schema: "bob-eval-check/1",
        suites,
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
        notes: count(Severity::Note),
        diagnostics,
        judges: Vec::new(),
    }
}

fn relative(source: &Utf8Path, path: &Utf8Path) -> Utf8PathBuf {
    path.strip_prefix(source)
        .map(Utf8Path::to_owned)
        .unwrap_or_else(|_| path.to_owned())
}

/// User text for a one-line message: on one line, with no control
/// characters, and at most 60 characters (a key or value may be megabytes long).
pub(crate) fn clip(text: &str) -> String {
    crate::text::clip(&crate::text::line(text), 60).into_owned()
}

/// Collects findings.
struct Out<'a>(&'a mut Vec<Diagnostic>);

impl Out<'_> {
    fn push(
        &mut self,
        severity: Severity,
        code: Code,
        file: &Utf8Path,
        line: Option<usize>,
        message: String,
        fix: String,
    ) {
        self.0.push(Diagnostic {
            severity,
            code: code.as_str(),
            file: file.to_owned(),
            line,
            message,
            fix,
        });
    }
    fn error(
        &mut self,
        code: Code,
        file: &Utf8Path,
        line: Option<usize>,
        message: String,
        fix: impl Into<String>,
    ) {
        self.push(Severity::Error, code, file, line, message, fix.into());
    }
    fn warn(
        &mut self,
        code: Code,
        file: &Utf8Path,
        line: Option<usize>,
        message: String,
        fix: impl Into<String>,
    ) {
        self.push(Severity::Warning, code, file, line, message, fix.into());
    }
}

/// Check one loaded suite (all but its `baseline.json`); `index` is what
/// every suite of the source shares.
pub fn check_suite(
    source: &Utf8Path,
    suite: &Suite,
    index: &Index,
    diagnostics: &mut Vec<Diagnostic>,
) {
    diagnostics.extend(suite.problems.iter().cloned());
    let mut out = Out(diagnostics);
    let item = suite.item.as_str();
    // A folder the scan could not enter may hold the cases: it is reported.
    if suite.cases.is_empty() && !suite.incomplete {
        out.error(
            Code::NoCases,
            &suite.dir,
            None,
            "the suite has no case (no folder holding prompt.md or case.yaml)".into(),
            format!("add evals/{item}/fires/prompt.md and evals/{item}/quiet/prompt.md, each with graders/"),
        );
    }
    let lookup = index.lookup(source, &suite.item);
    if let Some(read) = check_item(source, suite, &lookup, &mut out)
        && let Ok(mut kept) = index.read.lock()
    {
        kept.insert(suite.item.to_string(), read);
    }
    // A suite whose item is no skill, command or agent, in a source that ships
    // hooks, tests a hook: there is nothing for a Skill grader to see fire.
    let hooks = index.hooks;
    let hook_item = hooks && matches!(lookup, Err(Error::ItemNotFound { .. }));
    let traps = traps::Traps {
        items: &index.items,
        hooks,
        trigger_pair: true,
    };
    let mut seen: HashMap<&str, &Case> = HashMap::new();
    for case in &suite.cases {
        check_case(case, &mut out);
        traps.check_case(case, &mut out);
        // bob-eval's own plugin declares no server: only `plugins:` entries can.
        servers::check(&suite.dir, case, &[], &mut out);
        // The platform's result, reports and `--case` name cases, so bob-eval
        // can tell two cases apart only by their names.
        if let Some(first) = seen.insert(case.name.as_str(), case) {
            out.error(
                Code::DuplicateCase,
                &case.main_file(),
                None,
                format!(
                    "two cases are named `{}` (also {}): the platform's result names runs by case, so bob-eval cannot tell whose runs are whose, and `run` refuses the suite",
                    case.name,
                    relative(source, &first.dir)
                ),
                "give each case its own name (`name:` or the folder name)",
            );
        }
    }
    for case in &suite.cases {
        let others: Vec<&str> = suite
            .cases
            .iter()
            .filter(|c| c.name != case.name && case_pattern_matches(&case.name, &c.name))
            .map(|c| c.name.as_str())
            .collect();
        if !others.is_empty() {
            out.error(
                Code::CaseNamePattern,
                &case.main_file(),
                None,
                format!(
                    "the case name `{}` also selects {} under the platform's `--case` (it reads `*` and `?` as wildcards and has no escape): bob-eval cannot run this case alone, so `run` refuses the suite",
                    case.name,
                    others.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
                ),
                "rename the case (`name:` or the folder name) without `*` or `?`",
            );
        }
    }
    // Without a `mocks` entry anywhere the scan looked (and it looked
    // everywhere), there is no mock layer to check.
    if suite.mocks || suite.incomplete {
        let case_dirs: Vec<Utf8PathBuf> = suite.cases.iter().map(|c| c.dir.clone()).collect();
        mocks::check(&suite.dir, &case_dirs, &mut out);
    }
    if !hook_item {
        check_trigger_pair(suite, &index.names, &mut out);
    }
}

/// Does the platform's `--case` `pattern` select the case named `name`? Its
/// rule (2.1.328): the whole name, `*` any run of characters, `?` any one,
/// every other character itself; there is no escape.
pub fn case_pattern_matches(pattern: &str, name: &str) -> bool {
    if !pattern.contains(['*', '?']) {
        return pattern == name;
    }
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // Greedy wildcard matching: on a mismatch, let the last `*` take one more
    // character (linear in practice, at most |pattern| × |name| steps).
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        match p.get(i) {
            Some('*') => {
                star = Some((i, j));
                i += 1;
            }
            Some(&c) if c == '?' || c == n[j] => {
                i += 1;
                j += 1;
            }
            _ => match star {
                Some((si, sj)) => {
                    star = Some((si, sj + 1));
                    i = si + 1;
                    j = sj + 1;
                }
                None => return false,
            },
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

/// `baseline.json` as `gate` reads it: whatever `gate` would refuse (unreadable,
/// not JSON, not the schema, another item's) is an error here.
fn check_baseline(source: &Utf8Path, suite: &Suite, out: &mut Out) {
    let path = crate::config::baseline_path(source, &suite.item);
    // A link, FIFO, device or oversized file is the suite scan's finding, and
    // is never opened; a regular file is read without looking at it again.
    let loaded = match std::fs::symlink_metadata(&path) {
        Ok(meta) if !meta.is_dir() && suite::refusal(&path, &meta).is_some() => return,
        Ok(meta) if meta.is_file() => {
            crate::document::read_baseline_file(&path, &suite.item).map(drop)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        _ => crate::document::load_baseline(source, &suite.item).map(drop),
    };
    let Err(e) = loaded else {
        return;
    };
    let (line, message) = match e {
        Error::InvalidInput { at, message } => (at.line, message.replace("\n  ", "; ")),
        Error::Io { source, .. } => (None, format!("cannot read: {source}")),
        other => (None, other.to_string()),
    };
    out.error(
        Code::BaselineInvalid,
        &crate::config::baseline_path(source, &suite.item),
        line,
        message,
        format!(
            "write {{\"schema\": \"skill-eval-baseline/1\", \"item\": \"{}\", \"best\": {{}}}} (or let `gate --record` write it)",
            suite.item
        ),
    );
}

/// Check one case: its keys and their values, its prompt, its graders, and
/// the gated tools it allows.
fn check_case(case: &Case, out: &mut Out) {
    check_unknown_keys(case, out);
    check_key_values(case, out);
    check_prompt(case, out);
    check_case_graders(case, out);
    check_gated_tools(case, out);
}

/// Report a missing prompt, or one still holding the `init` placeholder.
fn check_prompt(case: &Case, out: &mut Out) {
    let prompt = case.prompt_text();
    if prompt.trim().is_empty() {
        // A `prompt:` in the wrong place is reported as such, with where it goes.
        let misplaced = case.unknown_keys.iter().any(|u| u.key == "prompt");
        if !case.broken && !misplaced {
            let message = if case.context.contains_key("history_file") {
                "the case has no prompt: context.history_file needs a next turn to resume with"
            } else {
                "the case has no prompt"
            };
            let fix = if case.prompt_file.is_some() {
                "write the user prompt to test as the body of prompt.md, below the frontmatter"
            } else {
                "set the user prompt to test under `execution:` in case.yaml (prompt: …), or write it as the body of a prompt.md"
            };
            out.error(
                Code::EmptyPrompt,
                &case.main_file(),
                None,
                message.into(),
                fix,
            );
        }
    } else if let Some(e) = case.prompt()
        && TODO_LINE.is_match(prompt)
    {
        out.error(
            Code::InitPlaceholder,
            &e.file,
            e.line,
            format!("the prompt still holds the `init` placeholder \"{INIT_PROMPT}\""),
            "replace the TODO line with the user prompt to test",
        );
    } else if let Some(e) = case.prompt()
        && prompt.contains(INIT_FIRES_TASK)
    {
        out.warn(
            Code::InitPlaceholder,
            &e.file,
            e.line,
            "the prompt is still `init`'s default, which names the item: it measures whether the model uses the item when told to, not whether it fires unasked".into(),
            "write a real request where the item should fire without being named",
        );
    } else if let Some(e) = case.prompt()
        && prompt.contains(INIT_QUIET_PROMPT)
    {
        out.warn(
            Code::InitPlaceholder,
            &e.file,
            e.line,
            "the prompt is still `init`'s default, a question far from any item: it shows little about whether the item stays quiet on a request close to it".into(),
            "write a request close to the item's subject where it must not fire",
        );
    }
}

/// Warn about each tool in `allowed_tools` an eval run may use only with an
/// operator grant ([`GATED_TOOLS`]).
fn check_gated_tools(case: &Case, out: &mut Out) {
    let Some(e) = case.execution.get("allowed_tools") else {
        return;
    };
    for tool in case.allowed_tools() {
        let base = tool.split('(').next().unwrap_or("").trim();
        if GATED_TOOLS.contains(&base) {
            out.warn(
                Code::GatedTool,
                &e.file,
                e.line,
                format!("`{tool}` in allowed_tools is a gated tool: an eval run cannot use it without an operator grant"),
                format!("paste the context into the prompt instead, or run with `--allow-tools {base}`"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::case_pattern_matches;

    /// The rule as a regex, to compare with.
    fn by_regex(pattern: &str) -> regex::Regex {
        let mut re = String::from("^");
        for c in pattern.chars() {
            match c {
                '*' => re.push_str(".*"),
                '?' => re.push('.'),
                other => re.push_str(&regex::escape(&other.to_string())),
            }
        }
        re.push('$');
        regex::Regex::new(&re).unwrap()
    }

    /// Every string of up to `len` characters from `alphabet`.
    fn strings(alphabet: &[char], len: usize) -> Vec<String> {
        let mut all = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..len {
            last = last
                .iter()
                .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}")))
                .collect();
            all.extend(last.iter().cloned());
        }
        all
    }

    #[test]
    fn case_patterns_match_as_the_platform_reads_them() {
        assert!(case_pattern_matches("fire*", "fires"));
        assert!(case_pattern_matches("fire?", "fires"));
        assert!(!case_pattern_matches("fire?", "fire"));
        assert!(case_pattern_matches("édge", "édge"));
        assert!(!case_pattern_matches("a.c", "abc"), "a dot is itself");
        let names = strings(&['a', 'b'], 5);
        for pattern in strings(&['a', 'b', '*', '?'], 5) {
            let re = by_regex(&pattern);
            for name in &names {
                assert_eq!(
                    case_pattern_matches(&pattern, name),
                    re.is_match(name),
                    "{pattern:?} on {name:?}"
                );
            }
        }
    }
}
