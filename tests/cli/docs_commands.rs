//! Every `bob-eval` command line shown in README.md and docs/*.md parses with
//! the real command line (`Cli::try_parse_from`), so the documentation cannot
//! drift from the flags. A line counts when, inside a fenced code block, it
//! starts with `bob-eval ` (after an optional `$ ` prompt), or when a
//! single-backtick span starts with `bob-eval `. Shell comments are cut;
//! words in upper case (ITEM, DIR, N) are placeholders and stay as they are.

use bob_eval::commands::Cli;
use clap::{CommandFactory, Parser};
use std::path::Path;

/// The documentation pages: README.md and every docs/*.md.
fn pages() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<_> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// Where a command line was found: a full line in a fenced block must parse;
/// an inline span may be a fragment that leaves out required arguments.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Fenced,
    Inline,
}

/// `(line number, command line)` of every `bob-eval` command in `text`.
fn command_lines(text: &str) -> Vec<(usize, String)> {
    command_lines_of(text)
        .into_iter()
        .map(|(n, c, _)| (n, c))
        .collect()
}

/// [`command_lines`] with where each was found.
fn command_lines_of(text: &str) -> Vec<(usize, String, Kind)> {
    let mut out = Vec::new();
    let mut fenced = false;
    let mut joined = String::new();
    let mut start = 0;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            let body = trimmed.strip_prefix("$ ").unwrap_or(trimmed);
            if joined.is_empty() && !body.starts_with("bob-eval ") {
                continue;
            }
            if joined.is_empty() {
                start = i + 1;
            }
            match body.strip_suffix('\\') {
                Some(part) => {
                    joined.push_str(part);
                    joined.push(' ');
                }
                None => {
                    joined.push_str(body);
                    out.push((start, std::mem::take(&mut joined), Kind::Fenced));
                }
            }
        } else {
            for (n, span) in line.split('`').enumerate() {
                if n % 2 == 1 && span.starts_with("bob-eval ") {
                    out.push((i + 1, span.to_string(), Kind::Inline));
                }
            }
        }
    }
    out
}

/// The words of a command line: comments cut, pipes and redirections cut,
/// quotes removed.
fn words(line: &str) -> Vec<String> {
    // `A\|B` in a Markdown table is a synopsis's alternative, not a pipe.
    let line = &line.replace("\\|", "¦");
    let line = line.split(" #").next().unwrap_or(line);
    let line = line
        .split(['|', '>', ';'])
        .next()
        .unwrap_or(line)
        .split(" && ")
        .next()
        .unwrap_or(line);
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
            }
            (_, c) => word.push(c),
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// A line that shows a synopsis (`[--runs N]`, `<command>`, `A|B`) or an
/// elision rather than a command: only its subcommand is checked.
fn synopsis(words: &[String]) -> bool {
    words.iter().any(|w| {
        w.contains('…')
            || w.contains("...")
            || w.starts_with('[')
            || w.starts_with('<')
            || w.contains('¦')
    })
}

/// A word in upper case (ITEM, SHELL): a placeholder for a value.
fn placeholder(word: &str) -> bool {
    word.len() > 1 && word.chars().all(|c| c.is_ascii_uppercase() || c == '_')
}

/// `$VAR` and `${VAR}` as a shell would leave a sample value: `1`.
fn expand(words: Vec<String>) -> Vec<String> {
    let var = regex::Regex::new(r"\$\{?[A-Z_]+\}?").unwrap();
    words
        .into_iter()
        .map(|w| var.replace_all(&w, "1").into_owned())
        .collect()
}

/// The subcommand path of `words` (`evidence list`) exists.
fn subcommand_exists(words: &[String]) -> bool {
    let mut command = Cli::command();
    let mut found = false;
    for w in words.iter().skip(1) {
        if w == "help" {
            return true;
        }
        match command.find_subcommand(w.as_str()) {
            Some(sub) => {
                command = sub.clone();
                found = true;
            }
            None => break,
        }
    }
    found || words.len() == 1
}

#[test]
fn every_command_line_in_the_docs_parses() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (line, command, kind) in command_lines_of(&text) {
            let words = expand(words(&command));
            checked += 1;
            let where_ = || format!("{}:{line}", page.file_name().unwrap().to_string_lossy());
            // A synopsis: the command must exist.
            if synopsis(&words) {
                if !subcommand_exists(&words) {
                    failures.push(format!("{}: `{command}`: no such command", where_()));
                }
                continue;
            }
            let parsed = Cli::try_parse_from(&words);
            // An inline fragment (`bob-eval run --runs auto`) may leave out
            // what is required; every flag it shows must still exist.
            if kind == Kind::Inline
                && parsed
                    .as_ref()
                    .is_err_and(|e| e.kind() == clap::error::ErrorKind::MissingRequiredArgument)
            {
                continue;
            }
            // A placeholder (SHELL) where the flag takes one of a set of values.
            if parsed
                .as_ref()
                .is_err_and(|e| e.kind() == clap::error::ErrorKind::InvalidValue)
                && words.iter().skip(1).any(|w| placeholder(w))
            {
                continue;
            }
            if let Err(e) = parsed {
                let first = e.to_string().lines().next().unwrap_or("").to_string();
                failures.push(format!(
                    "{}:{line}: `{command}`: {first}",
                    page.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    assert!(
        checked > 20,
        "only {checked} command lines found: is the extraction broken?"
    );
    assert!(
        failures.is_empty(),
        "{} of {checked} command lines do not parse:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_extraction_finds_fenced_joined_and_inline_commands() {
    let text = "```sh\nbob-eval check   # all\nbob-eval run commit \\\n  --runs 3\nmake test\n```\nthen `bob-eval gate commit r.json` and `make`.\n";
    let got: Vec<(usize, Vec<String>)> = command_lines(text)
        .into_iter()
        .map(|(n, c)| (n, words(&c)))
        .collect();
    assert_eq!(
        got,
        vec![
            (2, vec!["bob-eval".into(), "check".into()]),
            (
                3,
                ["bob-eval", "run", "commit", "--runs", "3"]
                    .map(String::from)
                    .to_vec()
            ),
            (
                7,
                ["bob-eval", "gate", "commit", "r.json"]
                    .map(String::from)
                    .to_vec()
            ),
        ]
    );
    // A wrong flag is caught.
    assert!(Cli::try_parse_from(words("bob-eval run commit --nope")).is_err());
}

/// GitHub's anchor of a heading: lower case, punctuation other than `-` and
/// `_` dropped, each space a `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of `text`'s headings (outside fenced blocks).
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// `(line number, target)` of every inline Markdown link `[text](target)`.
fn links(text: &str) -> Vec<(usize, String)> {
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.extend(link.captures_iter(line).map(|c| (i + 1, c[1].to_string())));
        }
    }
    out
}

#[test]
fn every_link_in_the_docs_resolves_inside_the_repository() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        for (line, target) in links(&text) {
            checked += 1;
            if target.contains("://") || target.starts_with("mailto:") {
                failures.push(format!(
                    "{name}:{line}: `{target}` points outside the repository"
                ));
                continue;
            }
            let (file, fragment) = target.split_once('#').unwrap_or((&target, ""));
            let linked = if file.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(file)
            };
            if !linked.exists() {
                failures.push(format!("{name}:{line}: `{target}`: no such file"));
                continue;
            }
            if !fragment.is_empty() && linked.extension().is_some_and(|e| e == "md") {
                let linked_text = std::fs::read_to_string(&linked).unwrap();
                if !anchors(&linked_text).iter().any(|a| a == fragment) {
                    failures.push(format!("{name}:{line}: `{target}`: no such heading"));
                }
            }
        }
    }
    assert!(
        checked > 20,
        "only {checked} links found: is the extraction broken?"
    );
    assert!(
        failures.is_empty(),
        "broken links:\n{}",
        failures.join("\n")
    );
}

#[test]
fn anchors_follow_the_heading_text() {
    assert_eq!(
        anchor(" Sharded sweeps on a CI matrix: `sweep --shard` and `collect`"),
        "sharded-sweeps-on-a-ci-matrix-sweep---shard-and-collect"
    );
    assert_eq!(anchors("# A b\n```\n# not\n```\n## C: d"), ["a-b", "c-d"]);
    assert_eq!(
        links("[x](a.md#b) and [y](c)\n```\n[z](d)\n```"),
        [(1, "a.md#b".to_string()), (1, "c".to_string())]
    );
}
