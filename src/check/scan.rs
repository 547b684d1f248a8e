//! The one reader of JavaScript regex syntax in `check/`: a pattern cut into
//! [`Token`]s (characters, escapes, classes, groups and their kinds,
//! quantifiers, anchors, alternation), each with its byte span. The rule
//! checks ([`js_regex`](super::js_regex)), the translation to the `regex`
//! crates ([`translate`](super::translate)), the backtracking shape analysis
//! ([`backtrack`](super::backtrack)) and the trigger pins
//! ([`trigger`](super::trigger)) read patterns through it, each giving the
//! tokens its own meaning.
//!
//! It reads as JavaScript does without the `u` and `v` flags, with the
//! web-compatibility rules of Annex B: a lone `{`, `}` or `]` is a
//! character, an unknown escape is its letter (`\a` is `a`), `\b` in a class
//! is a backspace. It accepts any text (a pattern JavaScript refuses too):
//! whether the pattern is valid is regress's judgement, not this reader's.

/// A piece of a pattern: what it is, and its byte span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Token {
    pub kind: Kind,
    /// Its first byte.
    pub start: usize,
    /// The byte after it.
    pub end: usize,
}

/// What a token is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Kind {
    /// A character standing for itself (a lone `{`, `}` or `]` included).
    Char(char),
    /// `.`.
    Dot,
    /// `^` or `$`.
    Anchor(char),
    /// An escape outside a class.
    Escape(Escape),
    /// A class, `[` to its `]`.
    Class(Class),
    /// `(`, and the kind of group it opens.
    Open(Group),
    /// `)`.
    Close,
    /// `|`.
    Alternation,
    /// `*`, `+`, `?`, `{n}`, `{n,}` or `{n,m}` (a count past `u32` is
    /// `u32::MAX`); `lazy` when a `?` follows (it is in the span).
    Quantifier {
        min: u32,
        max: Option<u32>,
        lazy: bool,
    },
}

/// What an escape stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Escape {
    /// `\d`, `\D`, `\w`, `\W`, `\s` or `\S`: the letter.
    Set(char),
    /// `\b` (`\B` when negated), outside a class; `\B` in a class.
    Boundary { negated: bool },
    /// One character: `\n`, `\r`, `\t`, `\f`, `\v`, `\0`, `\cX`, `\xHH`,
    /// `\uHHHH` (a lone surrogate too), `\b` in a class, or an escaped
    /// letter standing for itself. `letter` is the one after `\`.
    Char { value: u32, letter: char },
    /// `\1` to `\9`, or `\0` before a digit, with the digits after it: a back
    /// reference or a legacy octal escape (which depends on the groups).
    Numbered,
    /// `\k`, with `<name>` when one follows: a named back reference, or `k`
    /// (which depends on the groups).
    Named,
    /// `\c` not followed by a letter (JavaScript reads a backslash and `c`).
    BadControl,
    /// `\p{…}` or `\P{…}` under the `u` or `v` flag: a Unicode property.
    Property,
}

/// A class: its members in order, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Class {
    /// `[^…]`.
    pub negated: bool,
    /// Each character or escape between the brackets; a range is three
    /// members, the middle one `Member::Char('-')`.
    pub members: Vec<Member>,
    /// False when the pattern ends before the class's `]`.
    pub closed: bool,
}

/// One member of a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Member {
    Char(char),
    Escape(Escape),
}

/// The kind of group a `(` opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Group {
    /// `(`.
    Capture,
    /// `(?:`.
    NonCapture,
    /// `(?=` or `(?!`.
    Lookahead { negated: bool },
    /// `(?<=` or `(?<!`.
    Lookbehind { negated: bool },
    /// `(?<name>`.
    Named,
    /// `(?i:`, `(?-i:` or `(?i)` (the `)` is its own token): the letters.
    Modifiers(String),
    /// `(?` followed by anything else.
    Unknown,
}

/// The tokens of `pattern`, left to right, read without the `u` and `v` flags.
pub(super) fn tokens(pattern: &str) -> Tokens<'_> {
    tokens_in(pattern, false)
}

/// The tokens of `pattern`; `unicode` (the `u` or `v` flag) reads `\p{…}`,
/// `\P{…}` and `\u{…}` as one escape each.
pub(super) fn tokens_in(pattern: &str, unicode: bool) -> Tokens<'_> {
    Tokens {
        pattern,
        at: 0,
        unicode,
    }
}

/// An iterator over a pattern's [`Token`]s.
pub(super) struct Tokens<'a> {
    pattern: &'a str,
    at: usize,
    unicode: bool,
}

impl Iterator for Tokens<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        let start = self.at;
        let rest = &self.pattern[start..];
        let c = rest.chars().next()?;
        let (kind, len) = match c {
            '\\' => {
                let (e, len) = escape(&rest[1..], false, self.unicode);
                (Kind::Escape(e), 1 + len)
            }
            '[' => {
                let (class, len) = class(&rest[1..], self.unicode);
                (Kind::Class(class), 1 + len)
            }
            '(' => {
                let (group, len) = group(&rest[1..]);
                (Kind::Open(group), 1 + len)
            }
            ')' => (Kind::Close, 1),
            '|' => (Kind::Alternation, 1),
            '.' => (Kind::Dot, 1),
            '^' | '$' => (Kind::Anchor(c), 1),
            '*' | '+' | '?' => {
                let min = u32::from(c == '+');
                let max = (c == '?').then_some(1);
                quantifier(rest, min, max, 1)
            }
            '{' => match counted(&rest[1..]) {
                Some((min, max, len)) => quantifier(rest, min, max, 1 + len),
                None => (Kind::Char('{'), 1),
            },
            other => (Kind::Char(other), other.len_utf8()),
        };
        self.at = start + len;
        Some(Token {
            kind,
            start,
            end: self.at,
        })
    }
}

/// A quantifier of `len` bytes at the start of `rest`, with its lazy `?`.
fn quantifier(rest: &str, min: u32, max: Option<u32>, len: usize) -> (Kind, usize) {
    let lazy = rest[len..].starts_with('?');
    (Kind::Quantifier { min, max, lazy }, len + usize::from(lazy))
}

/// The body of a `{n}`, `{n,}` or `{n,m}` quantifier in `rest` (just after
/// its `{`): its bounds and length in bytes, `}` included; `None` when the
/// `{` is a character.
fn counted(rest: &str) -> Option<(u32, Option<u32>, usize)> {
    let close = rest.find('}')?;
    let body = &rest[..close];
    let number = |s: &str| -> Option<u32> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(s.parse().unwrap_or(u32::MAX))
    };
    let (min, max) = match body.split_once(',') {
        None => {
            let n = number(body)?;
            (n, Some(n))
        }
        Some((lo, "")) => (number(lo)?, None),
        Some((lo, hi)) => (number(lo)?, Some(number(hi)?)),
    };
    Some((min, max, close + 1))
}

/// The escape at the start of `rest` (just after `\`): what it is and its
/// length in bytes. A `\` at the end of the pattern is a backslash.
fn escape(rest: &str, in_class: bool, unicode: bool) -> (Escape, usize) {
    let Some(c) = rest.chars().next() else {
        return (
            Escape::Char {
                value: '\\' as u32,
                letter: '\\',
            },
            0,
        );
    };
    let after = &rest[c.len_utf8()..];
    let char_of = |value: u32, len: usize| (Escape::Char { value, letter: c }, len);
    let hex = |n: usize| -> Option<u32> {
        let digits = after.get(..n)?;
        digits
            .bytes()
            .all(|b| b.is_ascii_hexdigit())
            .then(|| u32::from_str_radix(digits, 16).ok())
            .flatten()
    };
    let braced = || {
        let close = after.strip_prefix('{')?.find('}')?;
        Some(close + 2)
    };
    match c {
        'p' | 'P' if unicode && braced().is_some() => (Escape::Property, 1 + braced().unwrap_or(0)),
        'u' if unicode && braced().is_some() => {
            let len = braced().unwrap_or(2);
            let value = u32::from_str_radix(&after[1..len - 1], 16).unwrap_or(u32::MAX);
            char_of(value, 1 + len)
        }
        'd' | 'D' | 'w' | 'W' | 's' | 'S' => (Escape::Set(c), 1),
        'b' if in_class => char_of(0x08, 1),
        'b' | 'B' => (Escape::Boundary { negated: c == 'B' }, 1),
        'n' => char_of(0x0A, 1),
        'r' => char_of(0x0D, 1),
        't' => char_of(0x09, 1),
        'f' => char_of(0x0C, 1),
        'v' => char_of(0x0B, 1),
        '0' if !after.starts_with(|d: char| d.is_ascii_digit()) => char_of(0, 1),
        '0'..='9' => {
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            (Escape::Numbered, 1 + digits)
        }
        'k' => {
            let name = after
                .strip_prefix('<')
                .and_then(|n| n.find('>'))
                .map_or(0, |close| close + 2);
            (Escape::Named, 1 + name)
        }
        'c' => match after.chars().next().filter(char::is_ascii_alphabetic) {
            Some(letter) => char_of(letter as u32 % 32, 2),
            None => (Escape::BadControl, 1),
        },
        'x' => match hex(2) {
            Some(v) => char_of(v, 3),
            None => char_of('x' as u32, 1),
        },
        'u' => match hex(4) {
            Some(v) => char_of(v, 5),
            None => char_of('u' as u32, 1),
        },
        other => char_of(other as u32, other.len_utf8()),
    }
}

/// The class whose body starts `rest` (just after `[`): the class and its
/// length in bytes, `]` included.
fn class(rest: &str, unicode: bool) -> (Class, usize) {
    let negated = rest.starts_with('^');
    let mut at = usize::from(negated);
    let mut members = Vec::new();
    let mut closed = false;
    while let Some(c) = rest[at..].chars().next() {
        at += c.len_utf8();
        match c {
            ']' => {
                closed = true;
                break;
            }
            '\\' => {
                let (e, len) = escape(&rest[at..], true, unicode);
                at += len;
                members.push(Member::Escape(e));
            }
            other => members.push(Member::Char(other)),
        }
    }
    let class = Class {
        negated,
        members,
        closed,
    };
    (class, at)
}

/// The kind of group whose `(` is just before `rest`, and the length in
/// bytes of what opens it after the `(`.
fn group(rest: &str) -> (Group, usize) {
    let Some(after) = rest.strip_prefix('?') else {
        return (Group::Capture, 0);
    };
    let open = |group: Group, len: usize| (group, 1 + len);
    if after.starts_with(':') {
        return open(Group::NonCapture, 1);
    }
    if let Some(sign) = after.strip_prefix('<') {
        if sign.starts_with(['=', '!']) {
            let negated = sign.starts_with('!');
            return open(Group::Lookbehind { negated }, 2);
        }
        let name = sign
            .find('>')
            .filter(|&close| !sign[..close].contains(['(', ')', '[', '|']));
        return match name {
            Some(close) => open(Group::Named, close + 2),
            None => open(Group::Unknown, 0),
        };
    }
    if after.starts_with(['=', '!']) {
        let negated = after.starts_with('!');
        return open(Group::Lookahead { negated }, 1);
    }
    let letters = after
        .bytes()
        .take_while(|b| b.is_ascii_alphabetic() || *b == b'-')
        .count();
    match after[letters..].chars().next() {
        Some(':') if letters > 0 => open(Group::Modifiers(after[..letters].into()), letters + 1),
        Some(')') if letters > 0 => open(Group::Modifiers(after[..letters].into()), letters),
        _ => open(Group::Unknown, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(pattern: &str) -> Vec<Kind> {
        tokens(pattern).map(|t| t.kind).collect()
    }

    fn spans(pattern: &str) -> Vec<&str> {
        tokens(pattern).map(|t| &pattern[t.start..t.end]).collect()
    }

    #[test]
    fn tokens_cover_the_pattern() {
        for pattern in [
            r#""skill"\s*:\s*"(?:[\w-]+:)?commit""#,
            r"^\W{0,3}(feat|fix)(\([a-z0-9._/-]+\))?!?: \S.{0,70}$",
            r"(?<name>x)\k<name>|(?<=a)(?<!b)(?=c)(?!d)(?i)(?-m:e)(?x",
            r"\x41\u00e9\cJ\c1\0\01\12\a\é[\b\B\-é]{|}|]{1,}?{2}{,3}",
            "[abc",
            "\\",
            "(?<",
            "",
        ] {
            let joined: String = spans(pattern).concat();
            assert_eq!(joined, pattern);
        }
    }

    #[test]
    fn groups_are_told_apart() {
        let opens: Vec<Group> = kinds(r"()(?:)(?=)(?!)(?<=)(?<!)(?<n>)(?i)(?-i:)(?#)(?<a(b>)")
            .into_iter()
            .filter_map(|k| match k {
                Kind::Open(g) => Some(g),
                _ => None,
            })
            .collect();
        assert_eq!(
            opens,
            [
                Group::Capture,
                Group::NonCapture,
                Group::Lookahead { negated: false },
                Group::Lookahead { negated: true },
                Group::Lookbehind { negated: false },
                Group::Lookbehind { negated: true },
                Group::Named,
                Group::Modifiers("i".into()),
                Group::Modifiers("-i".into()),
                Group::Unknown,
                Group::Unknown,
                Group::Capture,
            ]
        );
        assert_eq!(spans("(?<n>x)"), ["(?<n>", "x", ")"]);
        assert_eq!(spans("(?i)x"), ["(?i", ")", "x"]);
    }

    #[test]
    fn unicode_mode_reads_braced_escapes() {
        let pattern = r"\p{L}\u{41}";
        let read: Vec<&str> = tokens(pattern).map(|t| &pattern[t.start..t.end]).collect();
        assert_eq!(read, [r"\p", "{", "L", "}", r"\u", "{41}"]);
        let read: Vec<Kind> = tokens_in(pattern, true).map(|t| t.kind).collect();
        assert_eq!(
            read,
            [
                Kind::Escape(Escape::Property),
                Kind::Escape(Escape::Char {
                    value: 0x41,
                    letter: 'u'
                })
            ]
        );
    }

    #[test]
    fn quantifiers_and_braces() {
        assert_eq!(
            kinds("a{2,5}?b{3,}c{,3}{"),
            [
                Kind::Char('a'),
                Kind::Quantifier {
                    min: 2,
                    max: Some(5),
                    lazy: true
                },
                Kind::Char('b'),
                Kind::Quantifier {
                    min: 3,
                    max: None,
                    lazy: false
                },
                Kind::Char('c'),
                Kind::Char('{'),
                Kind::Char(','),
                Kind::Char('3'),
                Kind::Char('}'),
                Kind::Char('{'),
            ]
        );
        assert_eq!(
            kinds("x{99999999999}")[1],
            Kind::Quantifier {
                min: u32::MAX,
                max: Some(u32::MAX),
                lazy: false
            }
        );
        assert_eq!(spans("a+?b*c??"), ["a", "+?", "b", "*", "c", "??"]);
    }

    #[test]
    fn escapes_as_javascript_reads_them() {
        let escapes: Vec<(Escape, &str)> = tokens(r"\d\b\B\n\0\01\12\k\k<n>\c1\cj\x4\x41\uD83D\a")
            .filter_map(|t| match t.kind {
                Kind::Escape(e) => Some((
                    e,
                    &r"\d\b\B\n\0\01\12\k\k<n>\c1\cj\x4\x41\uD83D\a"[t.start..t.end],
                )),
                _ => None,
            })
            .collect();
        let ch = |value: u32, letter: char| Escape::Char { value, letter };
        assert_eq!(
            escapes,
            [
                (Escape::Set('d'), r"\d"),
                (Escape::Boundary { negated: false }, r"\b"),
                (Escape::Boundary { negated: true }, r"\B"),
                (ch(10, 'n'), r"\n"),
                (ch(0, '0'), r"\0"),
                (Escape::Numbered, r"\01"),
                (Escape::Numbered, r"\12"),
                (Escape::Named, r"\k"),
                (Escape::Named, r"\k<n>"),
                (Escape::BadControl, r"\c"),
                (ch(10, 'c'), r"\cj"),
                (ch('x' as u32, 'x'), r"\x"),
                (ch(0x41, 'x'), r"\x41"),
                (ch(0xD83D, 'u'), r"\uD83D"),
                (ch('a' as u32, 'a'), r"\a"),
            ]
        );
    }

    #[test]
    fn classes_hold_their_members() {
        let Some(Kind::Class(class)) = kinds(r"[^a\-\b\d-]").into_iter().next() else {
            panic!("a class");
        };
        assert!(class.negated && class.closed);
        assert_eq!(
            class.members,
            [
                Member::Char('a'),
                Member::Escape(Escape::Char {
                    value: '-' as u32,
                    letter: '-'
                }),
                Member::Escape(Escape::Char {
                    value: 8,
                    letter: 'b'
                }),
                Member::Escape(Escape::Set('d')),
                Member::Char('-'),
            ]
        );
        // `]` first closes the class (JavaScript's `[]` matches nothing).
        assert_eq!(spans("[]a]"), ["[]", "a", "]"]);
        assert_eq!(spans("[^]"), ["[^]"]);
        let Some(Kind::Class(open)) = kinds("[ab(").into_iter().next() else {
            panic!("a class");
        };
        assert!(!open.closed);
        assert_eq!(spans("[ab("), ["[ab("]);
    }
}
