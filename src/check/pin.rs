//! The trigger pin `check` suggests (and `init` writes),
//! `"skill"\s*:\s*"(?:[\w-]+:)?<item>"`, run by a scan of its own: every suite
//! of a tree carries one, each with another name, and compiling each (its
//! translation parsed, an automaton built, JavaScript's compiler asked) was
//! a fifth of `check`'s time. The scan finds exactly the matches the regex
//! finds (held equal by a property test), and what JavaScript says of the
//! pattern is known: it compiles, and nothing in it can backtrack
//! catastrophically.

/// What every pin starts with, before the item's name.
const HEAD: &str = r#""skill"\s*:\s*"(?:[\w-]+:)?"#;

/// The literal text every match of a pin starts with.
const OPEN: &str = r#""skill""#;

/// The item name of `pattern` when it is the suggested pin of a name of
/// ASCII lower-case letters, digits and `-` (an item's name), with no flags.
pub(super) fn pin_name<'a>(pattern: &'a str, flags: &str) -> Option<&'a str> {
    if !flags.is_empty() {
        return None;
    }
    let name = pattern.strip_prefix(HEAD)?.strip_suffix('"')?;
    let ok = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    ok.then_some(name)
}

/// The first match of the pin of `name` in `text` at or after byte `from`
/// (a character boundary), as the regex's leftmost-first search finds it:
/// its start and end bytes.
pub(super) fn find(name: &str, text: &str, from: usize) -> Option<(usize, usize)> {
    let mut at = from;
    while let Some(i) = text.get(at..)?.find(OPEN) {
        let start = at + i;
        if let Some(end) = rest(name, text, start + OPEN.len()) {
            return Some((start, end));
        }
        // `"skill"` may start again at its own closing quote.
        at = start + 1;
    }
    None
}

/// Where the pin of `name` ends when what follows `"skill"` at `p` matches
/// the rest of it. Each part matches one way only: `\s*` cannot take `:` or
/// `"`; `[\w-]+:` takes the run of word characters and `-` up to a `:`, and
/// the name (all such characters) followed by `"` can only match when that
/// run ends at a `"` instead, so the optional group is taken exactly when
/// the run ends at a `:`.
fn rest(name: &str, text: &str, p: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut p = spaces(text, p);
    (bytes.get(p) == Some(&b':')).then_some(())?;
    p = spaces(text, p + 1);
    (bytes.get(p) == Some(&b'"')).then_some(())?;
    p += 1;
    let run = bytes[p..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_' || **b == b'-')
        .count();
    if run > 0 && bytes.get(p + run) == Some(&b':') {
        p += run + 1;
    }
    let end = p + name.len();
    (text.get(p..end) == Some(name) && bytes.get(end) == Some(&b'"')).then_some(end + 1)
}

/// The byte after the run of JavaScript white space (`\s`) at `p`.
fn spaces(text: &str, p: usize) -> usize {
    let space = super::translate::space();
    let mut end = p;
    for c in text[p..].chars() {
        if !space
            .iter()
            .any(|&(lo, hi)| (lo..=hi).contains(&(c as u32)))
        {
            break;
        }
        end += c.len_utf8();
    }
    end
}

#[cfg(test)]
mod tests {
    use super::{find, pin_name};
    use crate::check::js_regex::compiled;
    use crate::check::js_regex::safe_js_regex;
    use crate::check::trigger::pin_pattern;
    use proptest::prelude::*;

    /// The pins of these names, and patterns close to a pin that are not one.
    #[test]
    fn only_the_suggested_pin_of_an_item_name_is_scanned() {
        let pin = |name: &str| pin_pattern(name).trim_matches('\'').to_owned();
        assert_eq!(pin_name(&pin("commit"), ""), Some("commit"));
        assert_eq!(pin_name(&pin("item-0001"), ""), Some("item-0001"));
        assert_eq!(pin_name(&pin("commit"), "i"), None);
        for name in ["Commit", "com.mit", "", "a\"b", "é"] {
            assert_eq!(pin_name(&pin(name), ""), None, "{name}");
        }
        assert_eq!(pin_name(r#""skill"\s*:\s*"commit""#, ""), None);
        // What JavaScript says of a pin is what compiling it finds.
        for name in ["commit", "a", "item-0001", "x-y-z-9"] {
            let (_, compiles, catastrophic) = compiled(&pin(name), "");
            assert!(compiles && catastrophic.is_none(), "{name}");
            assert!(safe_js_regex(&pin(name), "").unwrap().is_linear());
        }
    }

    /// Text made of the pieces a pin's match is made of, and others.
    fn text() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            r#""skill""#,
            "\"",
            ":",
            " ",
            "\t",
            "\u{a0}",
            "\u{2003}",
            "commit",
            "commit-msg",
            "bob-eval-commit",
            "x",
            "_",
            "-",
            "{",
            "}",
            ",",
            "é",
            "\n",
            "skill",
            r#""skill":""#,
            "\"skill\" :\u{a0}\"",
            "commit\"",
            "bob-eval-commit:",
            "x:",
            r#"{"skill":"commit"}"#,
            r#"{"skill":"bob-eval-commit:commit"}"#,
        ]);
        prop::collection::vec(piece, 0..24).prop_map(|p| p.concat())
    }

    proptest! {
        /// Every match the scan finds is the regex's, in order, on any text.
        #[test]
        fn the_scan_finds_what_the_regex_finds(text in text(), name in prop::sample::select(vec!["commit", "commit-msg", "x"])) {
            let pattern = pin_pattern(name).trim_matches('\'').to_owned();
            let (regex, ..) = compiled(&pattern, "");
            let by_regex: Vec<(usize, usize)> = regex
                .find_iter(&text)
                .iter()
                .map(|f| (f.start(), f.end()))
                .collect();
            let mut by_scan = Vec::new();
            let mut at = 0;
            while let Some((start, end)) = find(name, &text, at) {
                by_scan.push((start, end));
                at = end;
            }
            prop_assert_eq!(by_scan, by_regex, "{:?}", text);
        }
    }

    /// The scan finds the item in its Skill inputs, and not another.
    #[test]
    fn the_scan_finds_the_item_in_its_skill_inputs() {
        for text in [
            r#"{"skill":"commit"}"#,
            "{\"skill\" :\u{a0}\"bob-eval-commit:commit\"}",
        ] {
            assert_eq!(find("commit", text, 0).map(|(s, _)| s), Some(1), "{text}");
        }
        assert_eq!(find("commit", r#"{"skill":"commit-msg"}"#, 0), None);
        assert_eq!(
            find("commit", r#""skill"skill":"commit""#, 0),
            Some((6, 22))
        );
    }
}
