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
fn space() -> Ranges {
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

/// One escape: a character, a set, or a word boundary (`\B` when negated).
enum Escape {
    Char(u32),
    Set(Ranges),
    Boundary { negated: bool },
}

/// The escape whose letter is at `i` (just after `\`): what it means and
/// the index after it; `None` when it has no exact translation.
fn escape(chars: &[char], i: usize, in_class: bool) -> Option<(Escape, usize)> {
    let c = *chars.get(i)?;
    let hex_digits = |from: usize, n: usize| -> Option<u32> {
        let text: String = chars.get(from..from + n)?.iter().collect();
        if text.chars().all(|c| c.is_ascii_hexdigit()) {
            u32::from_str_radix(&text, 16).ok()
        } else {
            None
        }
    };
    let one = |c: char| Some((Escape::Char(c as u32), i + 1));
    let set = |r: Ranges| Some((Escape::Set(r), i + 1));
    match c {
        'd' => set(digits()),
        'D' => set(complement(digits())),
        'w' => set(word()),
        'W' => set(complement(word())),
        's' => set(space()),
        'S' => set(complement(space())),
        'b' if in_class => Some((Escape::Char(0x08), i + 1)),
        'b' => Some((Escape::Boundary { negated: false }, i + 1)),
        'B' if in_class => None,
        'B' => Some((Escape::Boundary { negated: true }, i + 1)),
        'n' => Some((Escape::Char(0x0A), i + 1)),
        'r' => Some((Escape::Char(0x0D), i + 1)),
        't' => Some((Escape::Char(0x09), i + 1)),
        'f' => Some((Escape::Char(0x0C), i + 1)),
        'v' => Some((Escape::Char(0x0B), i + 1)),
        '0' if !chars.get(i + 1).is_some_and(char::is_ascii_digit) => {
            Some((Escape::Char(0), i + 1))
        }
        // Back references and legacy octal escapes.
        '0'..='9' => None,
        // A named back reference, or `k` itself: which depends on the groups.
        'k' => None,
        'c' => {
            let letter = chars.get(i + 1).filter(|c| c.is_ascii_alphabetic())?;
            Some((Escape::Char(*letter as u32 % 32), i + 2))
        }
        'x' => match hex_digits(i + 1, 2) {
            Some(v) => Some((Escape::Char(v), i + 3)),
            None => one('x'),
        },
        'u' => match hex_digits(i + 1, 4) {
            Some(0xD800..=0xDFFF) => None,
            Some(v) => Some((Escape::Char(v), i + 5)),
            None => one('u'),
        },
        other => one(other),
    }
}

/// The class whose first character is at `i` (just after `[`): its ranges
/// and the index after its `]`.
fn class_at(chars: &[char], mut i: usize) -> Option<(Ranges, usize)> {
    let negated = chars.get(i) == Some(&'^');
    if negated {
        i += 1;
    }
    let mut ranges: Ranges = Vec::new();
    // One member: a character or a set, and the index after it.
    let member = |i: usize| -> Option<(Escape, usize)> {
        match *chars.get(i)? {
            '\\' => escape(chars, i + 1, true),
            c => Some((Escape::Char(c as u32), i + 1)),
        }
    };
    loop {
        if *chars.get(i)? == ']' {
            i += 1;
            break;
        }
        let (first, next) = member(i)?;
        i = next;
        let is_range = chars.get(i) == Some(&'-') && chars.get(i + 1).is_some_and(|c| *c != ']');
        if !is_range {
            match first {
                Escape::Char(c) => ranges.push((c, c)),
                Escape::Set(r) => ranges.extend(r),
                Escape::Boundary { .. } => return None,
            }
            continue;
        }
        let (second, next) = member(i + 1)?;
        i = next;
        match (first, second) {
            (Escape::Char(lo), Escape::Char(hi)) if lo <= hi => ranges.push((lo, hi)),
            (Escape::Char(_), Escape::Char(_)) => return None,
            // Annex B: a class escape at either end makes `-` a literal.
            (a, b) => {
                for e in [a, b] {
                    match e {
                        Escape::Char(c) => ranges.push((c, c)),
                        Escape::Set(r) => ranges.extend(r),
                        Escape::Boundary { .. } => return None,
                    }
                }
                ranges.push(('-' as u32, '-' as u32));
            }
        }
    }
    Some((if negated { complement(ranges) } else { ranges }, i))
}

/// A `{n}`, `{n,}` or `{n,m}` quantifier whose `{` is at `i`: its text for
/// Rust and the index after it; `None` when the `{` is a literal.
fn counted(chars: &[char], i: usize) -> Option<(String, usize)> {
    let close = i + chars[i..].iter().position(|c| *c == '}')?;
    let body: String = chars[i + 1..close].iter().collect();
    let number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let ok = match body.split_once(',') {
        None => number(&body),
        Some((lo, hi)) => number(lo) && (hi.is_empty() || number(hi)),
    };
    ok.then(|| (format!("{{{body}}}"), close + 1))
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
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() * 4);
    let mut lookaround = false;
    // For each open group, whether it is a lookaround.
    let mut groups: Vec<bool> = Vec::new();
    let mut last = Last::Nothing;
    let mut i = 0;
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
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let (e, next) = escape(&chars, i + 1, false)?;
                i = next;
                match e {
                    Escape::Char(c) => out.push_str(&hex(c, true)),
                    Escape::Set(r) => out.push_str(&class(r)),
                    Escape::Boundary { negated } => {
                        out.push_str(&boundary(negated));
                        last = Last::Other;
                        continue;
                    }
                }
                last = Last::Atom;
            }
            '[' => {
                let (r, next) = class_at(&chars, i + 1)?;
                i = next;
                out.push_str(&class(r));
                last = Last::Atom;
            }
            '.' => {
                i += 1;
                let r = if dot_all {
                    vec![(0, MAX_CHAR)]
                } else {
                    complement(line_terminators())
                };
                out.push_str(&class(r));
                last = Last::Atom;
            }
            '^' | '$' => {
                i += 1;
                out.push(c);
                last = Last::Other;
            }
            '(' => {
                let rest: String = chars[i + 1..].iter().take(3).collect();
                let (open, skip, is_look) = if rest.starts_with("?:") {
                    ("(?:", 3, false)
                } else if rest.starts_with("?=") || rest.starts_with("?!") {
                    (&rest[..2], 3, true)
                } else if rest.starts_with("?<=") || rest.starts_with("?<!") {
                    (&rest[..3], 4, true)
                } else if rest.starts_with("?<") {
                    let close = chars[i..].iter().position(|c| *c == '>')?;
                    ("(", close + 1, false)
                } else if rest.starts_with('?') {
                    return None;
                } else {
                    ("(", 1, false)
                };
                if is_look {
                    out.push('(');
                    lookaround = true;
                }
                out.push_str(open);
                i += skip;
                groups.push(is_look);
                last = Last::Nothing;
            }
            ')' => {
                let is_look = groups.pop()?;
                i += 1;
                out.push(')');
                last = if is_look { Last::Other } else { Last::Atom };
            }
            '|' => {
                i += 1;
                out.push('|');
                last = Last::Nothing;
            }
            '*' | '+' | '?' | '{' => {
                let (quantifier, next) = match c {
                    '{' => match counted(&chars, i) {
                        Some(q) => q,
                        None => {
                            // A literal `{`.
                            i += 1;
                            out.push_str(&hex('{' as u32, true));
                            last = Last::Atom;
                            continue;
                        }
                    },
                    _ => (c.to_string(), i + 1),
                };
                if last != Last::Atom {
                    return None;
                }
                out.push_str(&quantifier);
                i = next;
                if chars.get(i) == Some(&'?') {
                    out.push('?');
                    i += 1;
                }
                last = Last::Other;
            }
            other => {
                i += 1;
                out.push_str(&hex(other as u32, true));
                last = Last::Atom;
            }
        }
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
