//! A JavaScript pattern in the syntax of Rust's linear-time `regex` crate, or
//! of `fancy-regex` when it needs a lookaround: exactly, or not at all.
//!
//! `check` runs a suite's `input_match` against short Skill inputs. A
//! backtracking engine (JavaScript's, regress) may take minutes on a pattern
//! like `(?:[\w":{}-]|[\w":{}-])*!`; the `regex` crate takes linear time on
//! any pattern it accepts. So each pattern is translated here: every class
//! written out as the code points JavaScript gives it (`\w` and `\d` are
//! ASCII, `\s` is JavaScript's list, `.` stops at the four line
//! terminators), `\b` as an ASCII word boundary, literals as `\x{…}` (ASCII
//! letters and digits as themselves). What has no exact translation (a back
//! reference, a legacy octal escape, flags other than `d`, `g` and `s`) gives
//! `None`, and the caller falls back to a budgeted backtracking engine
//! (`js_regex::Matcher`).
//!
//! The pattern was already accepted by regress (JavaScript's syntax, with
//! the web-compatibility rules of Annex B: a lone `{` or `]` is a literal,
//! `\a` is `a`, `[\w-z]` holds `-`).

use super::scan::{Class, Escape, Group, Kind, Member, tokens};

/// A translated pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Translated {
    /// For the `regex` crate: linear time.
    Linear(String),
    /// For `fancy-regex` (it has a lookaround): run under a step budget.
    Lookaround(String),
}

/// Inclusive code point ranges.
type Ranges = Vec<(u32, u32)>;

const MAX_CHAR: u32 = 0x10FFFF;

fn digits() -> Ranges {
    vec![(0x30, 0x39)]
}

fn word() -> Ranges {
    vec![(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
}

/// JavaScript's `\s`: WhiteSpace and LineTerminator.
pub(super) fn space() -> Ranges {
    vec![
        (0x09, 0x0D),
        (0x20, 0x20),
        (0xA0, 0xA0),
        (0x1680, 0x1680),
        (0x2000, 0x200A),
        (0x2028, 0x2029),
        (0x202F, 0x202F),
        (0x205F, 0x205F),
        (0x3000, 0x3000),
        (0xFEFF, 0xFEFF),
    ]
}

/// The four line terminators `.` does not match (without the `s` flag).
fn line_terminators() -> Ranges {
    vec![(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)]
}

fn normalized(mut ranges: Ranges) -> Ranges {
    ranges.sort_unstable();
    let mut out: Ranges = Vec::new();
    for (a, b) in ranges {
        match out.last_mut() {
            Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

fn complement(ranges: Ranges) -> Ranges {
    let mut out = Vec::new();
    let mut next = 0u32;
    for (a, b) in normalized(ranges) {
        if a > next {
            out.push((next, a - 1));
        }
        next = b.saturating_add(1);
    }
    if next <= MAX_CHAR {
        out.push((next, MAX_CHAR));
    }
    out
}

/// A code point as the `regex` crates write it: an ASCII letter or digit as
/// itself (a literal in and out of classes; quicker to parse), any other as
/// `\x{…}`. Surrogates (no `char`) are moved to the nearest scalar value,
/// which changes nothing for a `str`.
fn hex(c: u32, up: bool) -> String {
    let c = match c {
        0xD800..=0xDFFF if up => 0xE000,
        0xD800..=0xDFFF => 0xD7FF,
        c => c,
    };
    match char::from_u32(c) {
        Some(letter) if letter.is_ascii_alphanumeric() => letter.to_string(),
        _ => format!("\\x{{{c:X}}}"),
    }
}

/// The class of `ranges`, written out (an empty one matches nothing).
fn class(ranges: Ranges) -> String {
    let ranges: Ranges = normalized(ranges)
        .into_iter()
        .filter(|&(a, b)| !(a >= 0xD800 && b <= 0xDFFF))
        .collect();
    if ranges.is_empty() {
        return format!("[^{}-{}]", hex(0, true), hex(MAX_CHAR, false));
    }
    let mut out = String::from("[");
    for (a, b) in ranges {
        out.push_str(&hex(a, true));
        if b > a {
            out.push('-');
            out.push_str(&hex(b, false));
        }
    }
    out.push(']');
    out
}

/// What one escape or class member means here: a character, a set, or a
/// word boundary (`\B` when negated).
enum Meaning {
    Char(u32),
    Set(Ranges),
    Boundary { negated: bool },
}

/// What escape `e` means; `None` when it has no exact translation (a back
/// reference, a legacy octal escape, a lone surrogate, `\c` without a
/// letter, `\B` in a class).
fn meaning(e: Escape, in_class: bool) -> Option<Meaning> {
    Some(match e {
        Escape::Set(letter) => Meaning::Set(match letter {
            'd' => digits(),
            'D' => complement(digits()),
            'w' => word(),
            'W' => complement(word()),
            's' => space(),
            _ => complement(space()),
        }),
        Escape::Boundary { .. } if in_class => return None,
        Escape::Boundary { negated } => Meaning::Boundary { negated },
        Escape::Char {
            value: 0xD800..=0xDFFF,
            letter: 'u',
        } => return None,
        Escape::Char { value, .. } => Meaning::Char(value),
        Escape::Numbered | Escape::Named | Escape::BadControl | Escape::Property => return None,
    })
}

/// The code points of `class`; `None` when one of its members has no
/// exact translation.
fn class_ranges(class: &Class) -> Option<Ranges> {
    if !class.closed {
        return None;
    }
    let member = |m: Member| match m {
        Member::Char(c) => Some(Meaning::Char(c as u32)),
        Member::Escape(e) => meaning(e, true),
    };
    let add = |ranges: &mut Ranges, m: Meaning| -> Option<()> {
        match m {
            Meaning::Char(c) => ranges.push((c, c)),
            Meaning::Set(r) => ranges.extend(r),
            Meaning::Boundary { .. } => return None,
        }
        Some(())
    };
    let members = &class.members;
    let mut ranges: Ranges = Vec::new();
    let mut i = 0;
    while i < members.len() {
        let first = member(members[i])?;
        let is_range = members.get(i + 1) == Some(&Member::Char('-')) && i + 2 < members.len();
        if !is_range {
            add(&mut ranges, first)?;
            i += 1;
            continue;
        }
        let second = member(members[i + 2])?;
        i += 3;
        match (first, second) {
            (Meaning::Char(lo), Meaning::Char(hi)) if lo <= hi => ranges.push((lo, hi)),
            (Meaning::Char(_), Meaning::Char(_)) => return None,
            // Annex B: a class escape at either end makes `-` a literal.
            (a, b) => {
                add(&mut ranges, a)?;
                add(&mut ranges, b)?;
                ranges.push(('-' as u32, '-' as u32));
            }
        }
    }
    Some(if class.negated {
        complement(ranges)
    } else {
        ranges
    })
}

/// What the previous element was, for the quantifier that may follow.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Last {
    Nothing,
    Atom,
    Other,
}

/// `pattern` with JavaScript `flags` for the `regex` crate (or `fancy-regex`),
/// or `None` when no exact translation is known.
pub(super) fn translate(pattern: &str, flags: &str) -> Option<Translated> {
    if !flags.chars().all(|c| "dgs".contains(c)) {
        return None;
    }
    let dot_all = flags.contains('s');
    let linear = to_rust(pattern, dot_all, false)?;
    match linear {
        (text, false) => Some(Translated::Linear(text)),
        (_, true) => to_rust(pattern, dot_all, true).map(|(text, _)| Translated::Lookaround(text)),
    }
}

/// The translation and whether it holds a lookaround; `fancy` writes word
/// boundaries with lookarounds (`fancy-regex` has no ASCII `\b`).
fn to_rust(pattern: &str, dot_all: bool, fancy: bool) -> Option<(String, bool)> {
    let mut out = String::with_capacity(pattern.len() * 4);
    let mut lookaround = false;
    // For each open group, whether it is a lookaround.
    let mut groups: Vec<bool> = Vec::new();
    let mut last = Last::Nothing;
    let boundary = |negated: bool| -> String {
        if !fancy {
            return if negated { r"(?-u:\B)" } else { r"(?-u:\b)" }.to_string();
        }
        let w = class(word());
        if negated {
            format!("(?:(?<={w})(?={w})|(?<!{w})(?!{w}))")
        } else {
            format!("(?:(?<={w})(?!{w})|(?<!{w})(?={w}))")
        }
    };
    for token in tokens(pattern) {
        last = match token.kind {
            Kind::Escape(e) => match meaning(e, false)? {
                Meaning::Char(c) => {
                    out.push_str(&hex(c, true));
                    Last::Atom
                }
                Meaning::Set(r) => {
                    out.push_str(&class(r));
                    Last::Atom
                }
                Meaning::Boundary { negated } => {
                    out.push_str(&boundary(negated));
                    Last::Other
                }
            },
            Kind::Class(c) => {
                out.push_str(&class(class_ranges(&c)?));
                Last::Atom
            }
            Kind::Dot => {
                let r = if dot_all {
                    vec![(0, MAX_CHAR)]
                } else {
                    complement(line_terminators())
                };
                out.push_str(&class(r));
                Last::Atom
            }
            Kind::Anchor(c) => {
                out.push(c);
                Last::Other
            }
            Kind::Open(group) => {
                let (open, is_look) = match group {
                    Group::Capture | Group::Named => ("(", false),
                    Group::NonCapture => ("(?:", false),
                    Group::Lookahead { negated: false } => ("(?=", true),
                    Group::Lookahead { negated: true } => ("(?!", true),
                    Group::Lookbehind { negated: false } => ("(?<=", true),
                    Group::Lookbehind { negated: true } => ("(?<!", true),
                    Group::Modifiers(_) | Group::Unknown => return None,
                };
                lookaround |= is_look;
                out.push_str(open);
                groups.push(is_look);
                Last::Nothing
            }
            Kind::Close => {
                let is_look = groups.pop()?;
                out.push(')');
                if is_look { Last::Other } else { Last::Atom }
            }
            Kind::Alternation => {
                out.push('|');
                Last::Nothing
            }
            Kind::Quantifier { .. } => {
                if last != Last::Atom {
                    return None;
                }
                out.push_str(&pattern[token.start..token.end]);
                Last::Other
            }
            Kind::Char(c) => {
                out.push_str(&hex(c as u32, true));
                Last::Atom
            }
        };
    }
    groups.is_empty().then_some((out, lookaround))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The translation compiled with the engine it is meant for.
    fn find(pattern: &str, flags: &str, text: &str) -> Option<(usize, usize)> {
        match translate(pattern, flags).expect("translatable") {
            Translated::Linear(t) => regex::Regex::new(&t)
                .unwrap()
                .find(text)
                .map(|m| (m.start(), m.end())),
            Translated::Lookaround(t) => fancy_regex::Regex::new(&t)
                .unwrap()
                .find(text)
                .unwrap()
                .map(|m| (m.start(), m.end())),
        }
    }

    /// The same as regress (JavaScript's syntax) finds.
    fn same(pattern: &str, flags: &str, texts: &[&str]) {
        let js = regress::Regex::with_flags(pattern, flags).unwrap();
        for text in texts {
            let want = js.find(text).map(|m| (m.start(), m.end()));
            assert_eq!(find(pattern, flags, text), want, "{pattern} on {text:?}");
        }
    }

    #[test]
    fn translations_find_what_javascript_finds() {
        let inputs = [
            r#"{"skill":"commit"}"#,
            r#"{"skill":"bob-eval-commit:commit"}"#,
            r#"{"skill": "commit-msg"}"#,
            "a\nb\r\u{2028}c é_1 \u{a0}\u{feff}x",
            "[x]{y} a-b ^$ .*+? \\ / \t\u{8}",
            "",
        ];
        for pattern in [
            r#""skill"\s*:\s*"(?:[\w-]+:)?commit""#,
            r"^\W{0,3}(feat|fix)(\([a-z0-9._/-]+\))?!?: \S.{0,70}$",
            r"\bcommit\b",
            r"\Bomm\B",
            r"[^]",
            r"[]",
            r"a{,3}|x{1}|{|}|]",
            r"[\w-z]+",
            r"[\d-]",
            r"[\b]",
            r"\x41|\u00e9|\cJ|\0|\a|\p{L}",
            r".+",
            r"[^\s\S]|\s+",
            r"(?<name>x)|y+?",
            r#"(?=[\w-]*commit)"skill""#,
            r#"(?<!-)commit"#,
            r"(?!a)\b\w",
        ] {
            same(pattern, "", &inputs);
        }
        // Backtracks for minutes in regress on a Skill input: compared on
        // short texts only, and linear on the long one.
        let trap = r#"(?:[\w":{}-]|[\w":{}-])*!"#;
        same(trap, "", &["ab!", r#"{"a"}!"#, "x", "", "a-b"]);
        assert_eq!(find(trap, "", &"{\"skill\":\"x\"}".repeat(100)), None);
        same(r".+", "s", &inputs);
        same(r"c.m", "gs", &["c\nm", "cm"]);
    }

    #[test]
    fn only_exact_translations() {
        assert!(matches!(
            translate(r#""skill":"x""#, ""),
            Some(Translated::Linear(_))
        ));
        assert!(matches!(
            translate("(?=a)a", ""),
            Some(Translated::Lookaround(_))
        ));
        for (pattern, flags) in [
            (r"(a)\1", ""),
            (r"\k<n>(?<n>a)", ""),
            (r"\01", ""),
            (r"[\1]", ""),
            (r"\c1", ""),
            (r"\ud83d", ""),
            ("a", "i"),
            ("a", "m"),
            ("a", "u"),
            ("(?=a)*", ""),
        ] {
            assert_eq!(translate(pattern, flags), None, "{pattern} /{flags}");
        }
    }
}
