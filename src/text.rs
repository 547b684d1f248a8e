//! Text from outside (item, model and case names from imported runs, the
//! platform's grader explanations, a script's output) made safe for a
//! terminal: the one sanitising rule, used by `report/`, the script host's
//! printing and the binary's error line. JSON, JUnit and Markdown escape in
//! their own way; this is for what a human reads raw.
//!
//! Removed: every control character (C0, DEL, C1: an `ESC [2J` clears the
//! screen, a `CR` overwrites a line) and the bidirectional formatting
//! characters (which reorder what is shown). [`line`] also turns newlines and
//! tabs into spaces, so a name can never forge a line of its own.

use std::borrow::Cow;

/// Whether `c` may reorder or rewrite what a terminal shows.
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// `text` as one word of a POSIX shell command line that prints safely:
/// as it is when every character is plain, else in single quotes (a quote
/// inside as `'\''`), after [`line`]. What every command bob-eval prints
/// for a user to run quotes its values with.
pub fn shell_word(text: &str) -> String {
    let text = line(text);
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c));
    if plain {
        text.into_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// `text` as one line: newlines, carriage returns and tabs become spaces,
/// every other control or bidirectional formatting character is removed.
pub fn line(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    text.chars()
        .filter_map(|c| match c {
            '\n' | '\r' | '\t' => Some(' '),
            c if unsafe_char(c) => None,
            c => Some(c),
        })
        .collect::<String>()
        .into()
}

/// `text` with its lines kept: newlines and tabs stay, every other control
/// (a carriage return among them) or bidirectional formatting character is removed.
pub fn block(text: &str) -> Cow<'_, str> {
    let keep = |c: char| c == '\n' || c == '\t' || !unsafe_char(c);
    if text.chars().all(keep) {
        return Cow::Borrowed(text);
    }
    text.chars().filter(|&c| keep(c)).collect::<String>().into()
}

/// `text` cut to at most `max` characters, the last one `…` when it was cut:
/// the one clipping rule for names, explanations and values shown on one line.
pub fn clip(text: &str, max: usize) -> Cow<'_, str> {
    if text.chars().nth(max).is_none() {
        return Cow::Borrowed(text);
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    Cow::Owned(cut)
}

/// The one plain-text table of bob-eval: what `table(headers, rows)` gives a
/// script, and how `report/` lays out sweeps, estimates, evidence and history.
/// A left-aligned text table: a header line, a rule, one line per row.
/// Columns are as wide as their widest cell; trailing spaces are trimmed.
pub fn table(headers: &[String], rows: &[Vec<String>]) -> String {
    let columns = rows
        .iter()
        .map(Vec::len)
        .chain([headers.len()])
        .max()
        .unwrap_or(0);
    let mut widths = vec![0usize; columns];
    for row in rows.iter().chain([&headers.to_vec()]) {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let line = |row: &[String]| -> String {
        let cells: Vec<String> = (0..columns)
            .map(|i| {
                let cell = row.get(i).map_or("", String::as_str);
                // Padded by hand: a width past u16::MAX would panic in `format!`.
                let pad = widths[i].saturating_sub(cell.chars().count());
                format!("{cell}{}", " ".repeat(pad))
            })
            .collect();
        cells.join("  ").trim_end().to_string()
    };
    let mut out = vec![line(headers)];
    out.push(
        widths
            .iter()
            .map(|w| "-".repeat(*w))
            .collect::<Vec<_>>()
            .join("  "),
    );
    out.extend(rows.iter().map(|r| line(r)));
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shell_word_is_quoted_only_when_it_must_be() {
        assert_eq!(shell_word("claude-haiku-4-5"), "claude-haiku-4-5");
        assert_eq!(shell_word("/tmp/e.db"), "/tmp/e.db");
        assert_eq!(shell_word("fires*"), "'fires*'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
        // Outside text is made safe first: no escape reaches the terminal.
        assert_eq!(shell_word("a\u{1b}[2Jb"), "'a[2Jb'");
    }

    #[test]
    fn table_aligns_columns() {
        let h = vec!["item".to_string(), "verdict".to_string()];
        let rows = vec![
            vec!["commit".to_string(), "improved".to_string()],
            vec!["x".to_string(), "—".to_string()],
        ];
        assert_eq!(
            table(&h, &rows),
            "item    verdict\n------  --------\ncommit  improved\nx       —"
        );
    }

    #[test]
    fn clip_keeps_short_text_and_cuts_long_text_to_max_with_an_ellipsis() {
        assert!(matches!(clip("abc", 3), Cow::Borrowed("abc")));
        assert_eq!(clip("abcd", 3), "ab…");
        assert_eq!(clip("ééééé", 4).chars().count(), 4);
        assert_eq!(clip("", 0), "");
    }

    #[test]
    fn escapes_and_forged_lines_are_removed() {
        let hostile = "fire\u{1b}[2J\u{1b}]0;owned\u{7}\r\nok\u{9b}31m\u{202e}x\ty";
        assert_eq!(line(hostile), "fire[2J]0;owned  ok31mx y");
        assert_eq!(block(hostile), "fire[2J]0;owned\nok31mx\ty");
        assert!(matches!(line("plain – ✓ text"), Cow::Borrowed(_)));
        assert!(matches!(block("two\nlines"), Cow::Borrowed(_)));
    }
}
