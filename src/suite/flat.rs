//! The quick path for the YAML most suite files hold: a flat mapping of
//! `key: value` lines whose values are plain words, quoted strings, small
//! integers or one-line lists of words. `check` reads a dozen such
//! frontmatters per suite, and the full parser (events, then a value) cost
//! more than everything else it does with them.
//!
//! [`parse_flat`] gives what `serde_norway` gives for the same text, or
//! `None` for the full parser to read it: any other layout (nesting,
//! comments, anchors, tags, block scalars, tabs, a duplicate key, a value
//! YAML might type otherwise) is never guessed at. A property test holds it
//! to the parser.

use serde_norway::{Mapping, Value};

/// The mapping `text` holds, when it is flat (see the module docs); `None`
/// when the full parser must read it.
pub(super) fn parse_flat(text: &str) -> Option<Value> {
    if !text.chars().all(plain_char) {
        return None;
    }
    let mut map = Mapping::new();
    for line in text.split('\n') {
        if line.is_empty() {
            continue;
        }
        let (key, rest) = split_key(line)?;
        let key = Value::String(key.to_owned());
        if map.contains_key(&key) {
            return None;
        }
        map.insert(key, value(rest.trim_matches(' '))?);
    }
    (!map.is_empty()).then_some(Value::Mapping(map))
}

/// A character the quick path accepts anywhere: a printable one YAML reads
/// as itself. No tab, carriage return, comment sign, byte-order mark nor
/// Unicode line break (YAML 1.1 breaks lines at U+0085, U+2028, U+2029).
pub(super) fn plain_char(c: char) -> bool {
    match c {
        '\n' => true,
        '#' => false,
        ' '..='~' => true,
        '\u{A0}'..='\u{D7FF}' => !matches!(c, '\u{2028}' | '\u{2029}'),
        '\u{E000}'..='\u{FFFD}' => c != '\u{FEFF}',
        '\u{10000}'..='\u{10FFFF}' => true,
        _ => false,
    }
}

/// The longest key the quick path reads.
const MAX_KEY: usize = 128;

/// `key: rest` (or `key:` alone) at the start of a line, the key a word
/// YAML reads as a string.
pub(super) fn split_key(line: &str) -> Option<(&str, &str)> {
    let end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(line.len());
    let (key, rest) = line.split_at(end);
    // libyaml refuses an implicit key past 1,024 characters.
    let word =
        key.len() <= MAX_KEY && key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
    if !word || keyword(key).is_some() {
        return None;
    }
    let rest = rest.strip_prefix(':')?;
    (rest.is_empty() || rest.starts_with(' ')).then_some((key, rest))
}

/// The value of `text` (trimmed), one of the shapes the quick path knows.
pub(super) fn value(text: &str) -> Option<Value> {
    if text.is_empty() {
        return Some(Value::Null);
    }
    if let Some(inner) = text.strip_prefix('\'') {
        return single_quoted(inner.strip_suffix('\'')?).map(Value::String);
    }
    if let Some(inner) = text.strip_prefix('"') {
        let inner = inner.strip_suffix('"')?;
        let simple = !inner.contains(['"', '\\']);
        return simple.then(|| Value::String(inner.to_owned()));
    }
    if let Some(inner) = text.strip_prefix('[') {
        return list(inner.strip_suffix(']')?);
    }
    if text.starts_with(|c: char| c.is_ascii_digit()) {
        return integer(text);
    }
    plain(text)
}

/// The text of a single-quoted scalar on one line (`''` is a quote).
fn single_quoted(inner: &str) -> Option<String> {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\'' && chars.next() != Some('\'') {
            return None;
        }
        out.push(c);
    }
    Some(out)
}

/// A plain scalar starting with a letter: a string, or the null or boolean
/// YAML reads it as. One holding `: ` (or ending in `:`) is another mapping
/// level, left to the parser.
fn plain(text: &str) -> Option<Value> {
    if !text.starts_with(|c: char| c.is_ascii_alphabetic())
        || text.contains(": ")
        || text.ends_with(':')
    {
        return None;
    }
    Some(keyword(text).unwrap_or_else(|| Value::String(text.to_owned())))
}

/// The null or boolean a plain word is in YAML, if it is one.
fn keyword(word: &str) -> Option<Value> {
    match word {
        "null" | "Null" | "NULL" => Some(Value::Null),
        "true" | "True" | "TRUE" => Some(Value::Bool(true)),
        "false" | "False" | "FALSE" => Some(Value::Bool(false)),
        _ => None,
    }
}

/// A decimal integer of at most 18 digits, no leading zero.
fn integer(text: &str) -> Option<Value> {
    let digits = text.len() <= 18 && text.bytes().all(|b| b.is_ascii_digit());
    if !digits || (text.len() > 1 && text.starts_with('0')) {
        return None;
    }
    text.parse::<u64>().ok().map(|n| Value::Number(n.into()))
}

/// A one-line flow list of words (`[trigger]`, `[Skill, Read]`, `[]`).
fn list(inner: &str) -> Option<Value> {
    if inner.trim_matches(' ').is_empty() {
        return Some(Value::Sequence(Vec::new()));
    }
    inner
        .split(',')
        .map(|item| {
            let word = item.trim_matches(' ');
            let ok = word.starts_with(|c: char| c.is_ascii_alphabetic())
                && word
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'));
            if ok { plain(word) } else { None }
        })
        .collect::<Option<Vec<_>>>()
        .map(Value::Sequence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn full(text: &str) -> Option<Value> {
        serde_norway::from_str::<Value>(text).ok()
    }

    #[test]
    fn the_common_shapes_take_the_quick_path_and_read_as_the_parser_reads_them() {
        for text in [
            "description: A case.\ntags: [trigger]\nmax_turns: 6\nallowed_tools: [Skill, Read, Glob, Grep]\n",
            "type: tool_used\ntool: Skill\ninput_match: '\"skill\"\\s*:\\s*\"(?:[\\w-]+:)?item-0001\"'\nmin: 0\nmax: 0\narm: both\n",
            "type: regex\npattern: '^\\W{0,3}(feat|fix)(\\([a-z0-9._/-]+\\))?!?: \\S.{0,70}$'\nflags: m\n",
            "type: llm\n",
            "name: demo\ndescription: Writes it's own words, then more [a] {b}, c.\n",
            "enabled: true\nlabel: \"plain words\"\nempty:\nlist: []\nquote: 'it''s'\n",
        ] {
            let quick = parse_flat(text);
            assert!(quick.is_some(), "not on the quick path: {text:?}");
            assert_eq!(quick, full(text), "{text:?}");
        }
    }

    #[test]
    fn other_layouts_are_left_to_the_parser() {
        for text in [
            "",
            "execution:\n  max_turns: 4\n",
            "graders:\n- name: a\n",
            "a: 1\na: 2\n",
            "a: b # note\n",
            "a: b: c\n",
            "a: 007\n",
            "a: -1\n",
            "a: 1.5\n",
            "a: \"tab\\t\"\n",
            "a: 'open\n",
            "a: [x, 'y']\n",
            "a: &anchor b\n",
            "a: !tag b\n",
            "a: |\n  block\n",
            "null: 1\n",
            "a:\tb\n",
            "a : b\n",
            "- a\n",
        ] {
            assert_eq!(parse_flat(text), None, "{text:?}");
        }
    }

    /// Lines built from pieces that sit at YAML's edges (keywords, numbers,
    /// quotes, colons, brackets, duplicate keys).
    fn line() -> impl Strategy<Value = String> {
        let key = prop::sample::select(vec!["a", "b", "name", "true", "x_1", "k-2", "0a", ""]);
        let sep = prop::sample::select(vec![": ", ":", " : ", ":  ", ": \t"]);
        let value = prop::collection::vec(
            prop::sample::select(vec![
                "word", "Null", "TRUE", "no", "0", "07", "12", "1.5", "-3", "0x1F", ".inf", "nan",
                "'", "''", "\"", "\\", "[", "]", ",", " ", ": ", ":", "-", "#", "{", "}", "&", "*",
                "!", "|", ">", "%", "@", "é", "\u{2028}", "~", "y", ".", "/",
            ]),
            0..6,
        )
        .prop_map(|parts| parts.concat());
        (key, sep, value).prop_map(|(k, s, v)| format!("{k}{s}{v}"))
    }

    proptest! {
        #[test]
        fn the_quick_path_never_reads_otherwise_than_the_parser(
            lines in prop::collection::vec(line(), 1..5),
        ) {
            let text = lines.join("\n") + "\n";
            if let Some(quick) = parse_flat(&text) {
                prop_assert_eq!(Some(quick), full(&text), "{:?}", text);
            }
        }
    }
}
