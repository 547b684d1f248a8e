//! `wiki/skill-impact.md`: the row format, its parser, and `check-wiki`
//! (docs/gate.md).
//!
//! One row per recorded gate outcome:
//! `| 2026-12-02 | commit | #4300 | [commit-skipped-hook](patterns/commit-skipped-hook.md) | 0.83 | 0.91 | accepted |`
//! (Date · Skill · PR · Pages cited · Score before · Score after · Outcome).

use crate::config::{impact_path, page_path};
use crate::document::fmt_score;
use crate::error::{Error, Result};
use camino::{Utf8Path, Utf8PathBuf};
use serde::Serialize;

/// The header `wiki/skill-impact.md` is created with: a title, a line on who
/// writes it, and the table head.
pub const HEADER: &str = "# Skill impact\n\
\n\
One row per gated proposal, appended by `bob-eval gate --record` (not by hand).\n\
`make check-wiki` checks that every row is well-formed and every cited page exists.\n\
\n\
| Date | Skill | PR | Pages cited | Score before | Score after | Outcome |\n\
| --- | --- | --- | --- | --- | --- | --- |\n";

/// The table head line of [`HEADER`].
const HEAD_ROW: &str = "| Date | Skill | PR | Pages cited | Score before | Score after | Outcome |";

/// "No score": the Score before of a row recorded when no best existed.
pub const NO_SCORE: &str = "—";

/// Whether the gate accepted or rejected the recorded result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The best was raised.
    Accepted,
    /// The best was left as it was.
    Rejected,
}

impl Outcome {
    /// The word written in the row.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Accepted => "accepted",
            Outcome::Rejected => "rejected",
        }
    }
}

/// One row of `wiki/skill-impact.md`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The result's date, `YYYY-MM-DD`.
    pub date: String,
    /// The item (Skill column).
    pub item: String,
    /// The proposal's pull request as given (`#4300`); never contains `|`.
    pub pr: String,
    /// The `wiki/patterns/` pages cited, at least one.
    pub pages: Vec<String>,
    /// The best recorded for the model before, if any.
    pub before: Option<f64>,
    /// The result's `with`.
    pub after: f64,
    /// The gate's outcome.
    pub outcome: Outcome,
}

/// Check a PR text for a row: non-empty, one line, no `|`, at most 200 characters.
pub fn check_pr(pr: &str) -> std::result::Result<(), String> {
    if pr.trim().is_empty() {
        return Err("the PR is empty: give the proposal's pull request, e.g. --pr '#4300'".into());
    }
    if pr.trim() != pr {
        return Err(format!("the PR {pr:?} has leading or trailing spaces"));
    }
    if pr.contains('|') {
        return Err(format!(
            "the PR {pr:?} contains '|', which would break the wiki table: drop it"
        ));
    }
    if pr.chars().any(char::is_control) {
        return Err(format!(
            "the PR {pr:?} contains a control character (a newline?)"
        ));
    }
    if pr.chars().count() > 200 {
        return Err("the PR is longer than 200 characters: give its number or URL".into());
    }
    Ok(())
}

/// Check a page name: like an item name, `^[a-z0-9][a-z0-9-]{0,63}$`.
pub fn check_page_name(page: &str) -> std::result::Result<(), String> {
    crate::config::ItemName::new(page).map(drop).map_err(|_| {
        format!("invalid page name {page:?}: use the file name of wiki/patterns/<page>.md without .md (lower-case letters, digits, '-')")
    })
}

/// The Markdown link to a pattern page, as cited in a row.
pub fn page_link(page: &str) -> String {
    format!("[{page}](patterns/{page}.md)")
}

/// The row as one line (no newline).
pub fn format_row(row: &Row) -> String {
    let pages = row
        .pages
        .iter()
        .map(|p| page_link(p))
        .collect::<Vec<_>>()
        .join(", ");
    let before = row.before.map_or_else(|| NO_SCORE.to_string(), fmt_score);
    format!(
        "| {} | {} | {} | {} | {} | {} | {} |",
        row.date,
        row.item,
        row.pr,
        pages,
        before,
        fmt_score(row.after),
        row.outcome.as_str()
    )
}

/// Parse one table row; the error says what is wrong with it.
pub fn parse_row(line: &str) -> std::result::Result<Row, String> {
    let line = line.trim_end_matches(['\r', '\n']).trim();
    let inner = line
        .strip_prefix('|')
        .and_then(|l| l.strip_suffix('|'))
        .ok_or("a row must start and end with '|'")?;
    let cells: Vec<&str> = inner.split('|').map(str::trim).collect();
    if cells.len() != 7 {
        return Err(format!(
            "a row has 7 cells (Date | Skill | PR | Pages cited | Score before | Score after | Outcome), this one has {}",
            cells.len()
        ));
    }
    let date = cells[0];
    if date.len() != 10 || chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d").is_err() {
        return Err(format!("Date {date:?} is not a YYYY-MM-DD day"));
    }
    let item = cells[1];
    crate::config::ItemName::new(item)
        .map(drop)
        .map_err(|_| format!("Skill {item:?} is not an item name"))?;
    let pr = cells[2];
    check_pr(pr)?;
    let pages = parse_pages(cells[3])?;
    let before = match cells[4] {
        NO_SCORE => None,
        s => Some(parse_score(s, "Score before")?),
    };
    let after = parse_score(cells[5], "Score after")?;
    let outcome = match cells[6] {
        "accepted" => Outcome::Accepted,
        "rejected" => Outcome::Rejected,
        o => return Err(format!("Outcome {o:?} is neither accepted nor rejected")),
    };
    Ok(Row {
        date: date.into(),
        item: item.into(),
        pr: pr.into(),
        pages,
        before,
        after,
        outcome,
    })
}

fn parse_pages(cell: &str) -> std::result::Result<Vec<String>, String> {
    if cell.is_empty() {
        return Err("Pages cited is empty: a row cites at least one wiki/patterns/ page".into());
    }
    cell.split(',')
        .map(str::trim)
        .map(|link| {
            let bad = || {
                format!("Pages cited: {link:?} is not a link of the form [name](patterns/name.md)")
            };
            let rest = link.strip_prefix('[').ok_or_else(bad)?;
            let (name, target) = rest.split_once("](").ok_or_else(bad)?;
            let target = target.strip_suffix(')').ok_or_else(bad)?;
            check_page_name(name).map_err(|e| format!("Pages cited: {e}"))?;
            if target != format!("patterns/{name}.md") {
                return Err(bad());
            }
            Ok(name.to_string())
        })
        .collect()
}

fn parse_score(s: &str, column: &str) -> std::result::Result<f64, String> {
    let ok = !s.is_empty()
        && s.chars().all(|c| c.is_ascii_digit() || c == '.')
        && s.chars().filter(|c| *c == '.').count() <= 1
        && !s.starts_with('.')
        && !s.ends_with('.');
    let value = if ok { s.parse::<f64>().ok() } else { None };
    match value {
        Some(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("{column} {s:?} is not a score between 0 and 1")),
    }
}

/// A bad row of `wiki/skill-impact.md`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WikiProblem {
    /// 1-based line number.
    pub line: usize,
    /// The row as written.
    pub text: String,
    /// What is wrong and what to do.
    pub message: String,
}

/// The table lines of `text` that are rows (not the head or its separator), with
/// 1-based line numbers.
pub fn row_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| l.trim_start().starts_with('|'))
        .filter(|(_, l)| !is_head_or_separator(l))
}

fn is_head_or_separator(line: &str) -> bool {
    let l = line.trim();
    l == HEAD_ROW || (l.starts_with('|') && l.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ')))
}

/// What `check-wiki` found (its `--json` output).
#[derive(Debug, Clone, Serialize)]
pub struct WikiReport {
    /// `wiki/skill-impact.md`, relative to the source.
    pub file: Utf8PathBuf,
    /// Rows read (head and separator lines excluded).
    pub rows: usize,
    /// Every bad row.
    pub problems: Vec<WikiProblem>,
}

/// Check every row of `wiki/skill-impact.md` under `source`: well-formed and citing
/// only pages that exist. A missing file has no rows and no problems.
pub fn check(source: &Utf8Path) -> Result<WikiReport> {
    let text = read_impact(source)?;
    Ok(WikiReport {
        file: Utf8PathBuf::from("wiki/skill-impact.md"),
        rows: row_lines(&text).count(),
        problems: check_text(source, &text),
    })
}

/// The problems [`check`] finds.
pub fn check_wiki(source: &Utf8Path) -> Result<Vec<WikiProblem>> {
    Ok(check(source)?.problems)
}

/// The well-formed rows of `wiki/skill-impact.md` under `source`, in file
/// order, and how many rows were not (`check-wiki` names them). A missing file
/// has none.
pub fn read_rows(source: &Utf8Path) -> Result<(Vec<Row>, usize)> {
    let text = read_impact(source)?;
    let mut rows = Vec::new();
    let mut bad = 0;
    for (_, line) in row_lines(&text) {
        match parse_row(line) {
            Ok(row) => rows.push(row),
            Err(_) => bad += 1,
        }
    }
    Ok((rows, bad))
}

/// The text of `wiki/skill-impact.md` under `source`; a missing file reads as empty.
fn read_impact(source: &Utf8Path) -> Result<String> {
    let path = impact_path(source);
    match crate::fsio::read_text(&path, crate::config::MAX_INPUT_FILE) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(Error::unreadable(&path, e)),
    }
}

fn check_text(source: &Utf8Path, text: &str) -> Vec<WikiProblem> {
    let mut problems = vec![];
    // Rows are a table only under its head: a row above it (or with no head at
    // all) is not rendered as part of the table.
    let head = text
        .lines()
        .position(|l| l.trim() == HEAD_ROW)
        .map(|i| i + 1);
    for (line, row_text) in row_lines(text) {
        if head.is_none_or(|h| line < h) {
            problems.push(WikiProblem {
                line,
                text: row_text.to_string(),
                message: format!(
                    "this row is not under the table head `{HEAD_ROW}`: put the head (and its `| --- |` line) above the rows"
                ),
            });
            continue;
        }
        let problem = |message: String| WikiProblem {
            line,
            text: row_text.to_string(),
            message,
        };
        match parse_row(row_text) {
            Err(message) => problems.push(problem(message)),
            Ok(row) => {
                for page in &row.pages {
                    if !page_path(source, page).is_file() {
                        problems.push(problem(format!(
                            "cites wiki/patterns/{page}.md, which does not exist: write the page or fix the link"
                        )));
                    }
                }
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const EXAMPLE: &str = "| 2026-12-02 | commit | #4300 | [commit-skipped-hook](patterns/commit-skipped-hook.md) | 0.83 | 0.91 | accepted |";

    fn example() -> Row {
        Row {
            date: "2026-12-02".into(),
            item: "commit".into(),
            pr: "#4300".into(),
            pages: vec!["commit-skipped-hook".into()],
            before: Some(0.83),
            after: 0.91,
            outcome: Outcome::Accepted,
        }
    }

    #[test]
    fn contract_example_formats_and_parses() {
        assert_eq!(format_row(&example()), EXAMPLE);
        assert_eq!(parse_row(EXAMPLE).unwrap(), example());
    }

    #[test]
    fn no_best_and_several_pages() {
        let row = Row {
            before: None,
            pages: vec!["a".into(), "b-2".into()],
            outcome: Outcome::Rejected,
            ..example()
        };
        let line = format_row(&row);
        assert_eq!(
            line,
            "| 2026-12-02 | commit | #4300 | [a](patterns/a.md), [b-2](patterns/b-2.md) | — | 0.91 | rejected |"
        );
        assert_eq!(parse_row(&line).unwrap(), row);
    }

    #[test]
    fn bad_rows_say_what_is_wrong() {
        let cases = [
            (
                "| 2026-13-02 | commit | #1 | [a](patterns/a.md) | — | 0.5 | accepted |",
                "Date",
            ),
            (
                "| 2026-12-02 | Commit | #1 | [a](patterns/a.md) | — | 0.5 | accepted |",
                "Skill",
            ),
            (
                "| 2026-12-02 | commit |  | [a](patterns/a.md) | — | 0.5 | accepted |",
                "PR is empty",
            ),
            (
                "| 2026-12-02 | commit | #1 |  | — | 0.5 | accepted |",
                "Pages cited is empty",
            ),
            (
                "| 2026-12-02 | commit | #1 | [a](patterns/b.md) | — | 0.5 | accepted |",
                "form",
            ),
            (
                "| 2026-12-02 | commit | #1 | a | — | 0.5 | accepted |",
                "form",
            ),
            (
                "| 2026-12-02 | commit | #1 | [a](patterns/a.md) | x | 0.5 | accepted |",
                "Score before",
            ),
            (
                "| 2026-12-02 | commit | #1 | [a](patterns/a.md) | — | — | accepted |",
                "Score after",
            ),
            (
                "| 2026-12-02 | commit | #1 | [a](patterns/a.md) | — | 1.5 | accepted |",
                "Score after",
            ),
            (
                "| 2026-12-02 | commit | #1 | [a](patterns/a.md) | — | 0.5 | maybe |",
                "Outcome",
            ),
            (
                "| 2026-12-02 | commit | #1 | [a](patterns/a.md) | — | 0.5 |",
                "7 cells",
            ),
            (
                "| 2026-12-02 | commit | #1 | [a](patterns/a.md) | — | 0.5 | accepted",
                "start and end",
            ),
        ];
        for (line, want) in cases {
            let err = parse_row(line).unwrap_err();
            assert!(err.contains(want), "{line}: {err}");
        }
    }

    #[test]
    fn rows_without_the_table_head_are_problems() {
        let s = Utf8Path::new("/nonexistent");
        let row = "| 2026-12-02 | commit | #1 | — | — | 0.9 | accepted |";
        let problems = check_text(s, &format!("# Skill impact\n{row}\n"));
        assert_eq!(problems.len(), 1);
        assert!(problems[0].message.contains("table head"), "{problems:?}");
        let text = format!("{row}\n{HEADER}{row}\n");
        let lines: Vec<usize> = check_text(s, &text)
            .iter()
            .filter(|p| p.message.contains("table head"))
            .map(|p| p.line)
            .collect();
        assert_eq!(lines, vec![1]);
    }

    #[test]
    fn read_rows_keeps_the_good_rows_and_counts_the_bad() {
        let dir = tempfile::tempdir().unwrap();
        let source = Utf8Path::from_path(dir.path()).unwrap();
        assert_eq!(read_rows(source).unwrap(), (vec![], 0), "no file, no rows");
        std::fs::create_dir_all(source.join("wiki")).unwrap();
        std::fs::write(impact_path(source), format!("{HEADER}{EXAMPLE}\n| bad |\n")).unwrap();
        assert_eq!(read_rows(source).unwrap(), (vec![example()], 1));
    }

    #[test]
    fn check_text_skips_head_and_names_lines() {
        let dir = tempfile::tempdir().unwrap();
        let source = Utf8Path::from_path(dir.path()).unwrap();
        std::fs::create_dir_all(source.join("wiki/patterns")).unwrap();
        std::fs::write(source.join("wiki/patterns/a.md"), "# a\n").unwrap();
        let text = format!(
            "{HEADER}| 2026-12-02 | commit | #1 | [a](patterns/a.md) | — | 0.5 | accepted |\n\
             | 2026-12-02 | commit | #2 | [gone](patterns/gone.md) | 0.5 | 0.4 | rejected |\n\
             | bad |\n"
        );
        let problems = check_text(source, &text);
        let lines: Vec<usize> = problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, [9, 10], "{problems:#?}");
        assert!(problems[0].message.contains("wiki/patterns/gone.md"));
        assert!(check_text(source, HEADER).is_empty());
    }

    fn row_strategy() -> impl Strategy<Value = Row> {
        (
            (2000i32..2100, 1u32..=12, 1u32..=28),
            "[a-z0-9][a-z0-9-]{0,20}",
            "[#A-Za-z0-9 ./:_-]{0,30}",
            prop::collection::vec("[a-z0-9][a-z0-9-]{0,15}", 1..4),
            prop::option::of(0u32..=10_000),
            0u32..=10_000,
            any::<bool>(),
        )
            .prop_map(|((y, m, d), item, pr, pages, before, after, acc)| Row {
                date: format!("{y:04}-{m:02}-{d:02}"),
                item,
                pr: format!("#{}", pr.trim()),
                pages,
                before: before.map(|b| f64::from(b) / 10_000.0),
                after: f64::from(after) / 10_000.0,
                outcome: if acc {
                    Outcome::Accepted
                } else {
                    Outcome::Rejected
                },
            })
    }

    proptest! {
        #[test]
        fn parse_never_panics(line in "\\PC{0,200}") {
            if let Err(why) = parse_row(&line) {
                prop_assert!(!why.trim().is_empty(), "an empty error for {:?}", line);
            }
        }

        #[test]
        fn parse_never_panics_on_table_like_lines(line in "[|\\[\\]()a-z0-9 .,#—-]{0,120}") {
            let _ = parse_row(&line);
        }

        #[test]
        fn format_then_parse_round_trips(row in row_strategy()) {
            let line = format_row(&row);
            prop_assert_eq!(parse_row(&line), Ok(row));
        }
    }
}
