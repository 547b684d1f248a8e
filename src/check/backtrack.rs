//! Catastrophic backtracking, found by the shape of a pattern rather than by
//! running it: JavaScript's `RegExp` (and regress, which judges suite
//! regexes here) backtrack without a step limit, so `(a+)+$` against a long
//! output of `a`s may run for hours, hanging the grader and the run.
//!
//! The shape: a group repeated many times (`*`, `+`, `{n,}`, `{n,m}` with
//! m ≥ 10) whose body holds a repeat of variable length (`a+`, `\d{1,3}`,
//! `b?`) such that a run of that repeat's characters can be cut between
//! iterations in more than one way: everything else the body requires could
//! match those characters too. `(a+)+`, `(\w+\s?)+`, `(.*a){20}` and
//! `(\d{1,3},?)+` have it; `(ab+)+` and `([\w-]+:)*` do not (every iteration
//! starts or ends on a character the repeat cannot match).
//!
//! The analysis over-approximates characters (a class is its ASCII members
//! plus "some other character"), so it may flag a pattern JavaScript would
//! run quickly, never the reverse for this shape.
//!
//! The second shape: a group repeated many times whose alternatives overlap,
//! so that some text is a run of iterations in two ways (`(?:\w|\d)*`,
//! `(.|\s)*`, `(a|aa)+`, `(?:[\w-]|[\w:])*`): each iteration doubles the
//! ways to try, and a failing match tries them all. The body's words (each
//! alternative with its short repeats written out, a few counts each) are
//! tested for a text cut two ways by the Sardinas–Patterson test. Here a
//! class overlaps another only by a shared ASCII character, or when one
//! holds every other character (`[^"]`, `\W`) and the other some, and an
//! alternative the reader cannot write out (a lookaround, an anchor) is left
//! out: this shape is flagged only when sure.

/// A set of characters: its ASCII members, and whether it holds any other.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
struct Set {
    ascii: u128,
    other: bool,
    /// It holds every character that is not ASCII.
    full: bool,
}

impl Set {
    const ALL: Set = Set {
        ascii: u128::MAX,
        other: true,
        full: true,
    };

    fn of(c: char) -> Set {
        if c.is_ascii() {
            Set {
                ascii: 1 << (c as u32),
                ..Set::default()
            }
        } else {
            Set {
                other: true,
                ..Set::default()
            }
        }
    }

    fn range(a: char, b: char) -> Set {
        let mut set = Set::default();
        let (lo, hi) = (a as u32, b as u32);
        for c in lo..=hi.min(127) {
            set.ascii |= 1 << c;
        }
        set.other = hi > 127;
        set
    }

    fn union(self, other: Set) -> Set {
        Set {
            ascii: self.ascii | other.ascii,
            other: self.other || other.other,
            full: self.full || other.full,
        }
    }

    fn complement(self) -> Set {
        Set {
            ascii: !self.ascii,
            other: true,
            full: !self.other,
        }
    }

    /// True when the two may share a character.
    fn overlaps(self, other: Set) -> bool {
        self.ascii & other.ascii != 0 || (self.other && other.other)
    }

    /// True when the two surely share a character: an ASCII one, or any
    /// other when one of them holds them all.
    fn surely_overlaps(self, other: Set) -> bool {
        self.ascii & other.ascii != 0 || (self.full && other.other) || (other.full && self.other)
    }

    /// With both cases of every ASCII letter.
    fn folded(self) -> Set {
        let mut set = self;
        for c in b'a'..=b'z' {
            let (lower, upper) = (1u128 << c, 1u128 << c.to_ascii_uppercase());
            if self.ascii & (lower | upper) != 0 {
                set.ascii |= lower | upper;
            }
        }
        set
    }

    fn digits() -> Set {
        Set::range('0', '9')
    }

    fn word() -> Set {
        Set::range('a', 'z')
            .union(Set::range('A', 'Z'))
            .union(Set::digits())
            .union(Set::of('_'))
    }

    fn space() -> Set {
        let mut set = Set::range('\t', '\r').union(Set::of(' '));
        set.other = true;
        set
    }
}

use super::scan::{Class, Escape, Group, Kind, Member, tokens_in};

/// One element of a sequence.
#[derive(Debug)]
enum Node {
    /// A character (class), repeated `min..=max` times (`None`: no bound).
    Atom {
        set: Set,
        min: u32,
        max: Option<u32>,
    },
    /// A group of alternatives, repeated; `zero_width` for lookarounds.
    Group {
        alts: Vec<Vec<Node>>,
        min: u32,
        max: Option<u32>,
        zero_width: bool,
        /// Byte span in the pattern, quantifier included.
        span: (usize, usize),
    },
    /// `^`, `$`, `\b`, `\B`.
    Assert,
}

impl Node {
    fn bounds(&self) -> Option<(u32, Option<u32>)> {
        match self {
            Node::Atom { min, max, .. } | Node::Group { min, max, .. } => Some((*min, *max)),
            Node::Assert => None,
        }
    }

    /// True when it matches strings of more than one length by itself.
    fn varies(&self) -> bool {
        match self.bounds() {
            Some((min, max)) => max.is_none_or(|m| m > min),
            None => false,
        }
    }

    /// True when it holds a repeat of variable length (itself included).
    fn holds_variable(&self) -> bool {
        match self {
            Node::Group {
                alts, zero_width, ..
            } => !zero_width && (self.varies() || alts.iter().flatten().any(Node::holds_variable)),
            Node::Atom { .. } => self.varies(),
            Node::Assert => false,
        }
    }

    /// Every character it may match.
    fn chars(&self) -> Set {
        match self {
            Node::Atom { set, .. } => *set,
            Node::Group {
                alts, zero_width, ..
            } => {
                if *zero_width {
                    return Set::default();
                }
                alts.iter()
                    .flatten()
                    .fold(Set::default(), |s, n| s.union(n.chars()))
            }
            Node::Assert => Set::default(),
        }
    }

    /// True when it may match the empty string.
    fn may_be_empty(&self) -> bool {
        match self {
            Node::Assert => true,
            Node::Atom { min, .. } => *min == 0,
            Node::Group {
                alts,
                min,
                zero_width,
                ..
            } => {
                *zero_width
                    || *min == 0
                    || alts.iter().any(|alt| alt.iter().all(Node::may_be_empty))
            }
        }
    }
}

/// Deepest group nesting the reader follows (the checks refuse deeper first).
const MAX_NESTING: usize = 64;

/// Parse `pattern` (already accepted by regress) into alternatives of nodes;
/// `None` when it uses something this reader does not follow.
fn parse(pattern: &str, icase: bool, dot_all: bool, unicode: bool) -> Option<Vec<Vec<Node>>> {
    // Open groups: (alternatives so far, start byte, zero width).
    let mut stack: Vec<(Vec<Vec<Node>>, usize, bool)> = vec![(vec![Vec::new()], 0, false)];
    let fold = |s: Set| if icase { s.folded() } else { s };
    for token in tokens_in(pattern, unicode) {
        let atom = |set: Set| Node::Atom {
            set: fold(set),
            min: 1,
            max: Some(1),
        };
        let node = match token.kind {
            Kind::Escape(e) => match escape(e) {
                Escaped::Set(s) => atom(s),
                Escaped::Assert => Node::Assert,
            },
            Kind::Class(c) => atom(class(&c)?),
            Kind::Dot if dot_all => atom(Set::ALL),
            // Every character but the line terminators (two of them not ASCII).
            Kind::Dot => atom(Set {
                ascii: !((1 << b'\n') | (1 << b'\r')),
                other: true,
                full: false,
            }),
            Kind::Anchor(_) => Node::Assert,
            Kind::Open(group) => {
                let zero_width = match group {
                    Group::Capture | Group::NonCapture | Group::Named => false,
                    Group::Lookahead { .. } | Group::Lookbehind { .. } => true,
                    Group::Modifiers(_) | Group::Unknown => return None,
                };
                if stack.len() > MAX_NESTING {
                    return None;
                }
                stack.push((vec![Vec::new()], token.start, zero_width));
                continue;
            }
            Kind::Alternation => {
                stack.last_mut()?.0.push(Vec::new());
                continue;
            }
            Kind::Close => {
                let (alts, start, zero_width) = stack.pop()?;
                if stack.is_empty() {
                    return None;
                }
                Node::Group {
                    alts,
                    min: 1,
                    max: Some(1),
                    zero_width,
                    span: (start, token.end),
                }
            }
            // A lazy `?` changes the order of tries, not their number.
            Kind::Quantifier { min, max, .. } => {
                let seq = stack.last_mut()?.0.last_mut()?;
                match seq.last_mut()? {
                    Node::Atom { min: m, max: x, .. } => {
                        *m = min;
                        *x = max;
                    }
                    Node::Group {
                        min: m,
                        max: x,
                        span,
                        ..
                    } => {
                        *m = min;
                        *x = max;
                        span.1 = token.end;
                    }
                    Node::Assert => {}
                }
                continue;
            }
            Kind::Char(c) => atom(Set::of(c)),
        };
        stack.last_mut()?.0.last_mut()?.push(node);
    }
    let (alts, _, _) = stack.pop()?;
    stack.is_empty().then_some(alts)
}

enum Escaped {
    Set(Set),
    Assert,
}

/// What escape `e` may match. An escape whose character depends on what
/// follows it (`\x`, `\u`, `\c`, `\p`, `\P`) or on the groups (a back
/// reference) is read as any character.
fn escape(e: Escape) -> Escaped {
    let set = Escaped::Set;
    match e {
        Escape::Set(letter) => set(match letter {
            'd' => Set::digits(),
            'D' => Set::digits().complement(),
            'w' => Set::word(),
            'W' => Set::word().complement(),
            's' => Set::space(),
            _ => Set::space().complement(),
        }),
        Escape::Boundary { .. } => Escaped::Assert,
        Escape::Char {
            letter: 'x' | 'u' | 'c' | 'p' | 'P',
            ..
        }
        | Escape::Numbered
        | Escape::Named
        | Escape::BadControl
        | Escape::Property => set(Set::ALL),
        Escape::Char { value, .. } => set(char::from_u32(value).map_or(Set::ALL, Set::of)),
    }
}

/// The set of `class`; `None` when the pattern ends inside it.
fn class(class: &Class) -> Option<Set> {
    if !class.closed {
        return None;
    }
    let mut set = Set::default();
    let mut prev: Option<char> = None;
    let mut members = class.members.iter().peekable();
    while let Some(member) = members.next() {
        match *member {
            Member::Escape(e) => {
                if let Escaped::Set(s) = escape(e) {
                    set = set.union(s);
                }
                prev = None;
            }
            Member::Char('[') => {
                // A nested class (`v` flag): anything.
                set = Set::ALL;
                prev = None;
            }
            Member::Char('-') if prev.is_some() && members.peek().is_some() => {
                let hi = match members.next().copied() {
                    Some(Member::Escape(e)) => match escape(e) {
                        Escaped::Set(s) if s.ascii.count_ones() == 1 && !s.other => {
                            char::from(s.ascii.trailing_zeros() as u8)
                        }
                        _ => '\u{10FFFF}',
                    },
                    Some(Member::Char(c)) => c,
                    None => return None,
                };
                let lo = prev.take()?;
                if lo <= hi {
                    set = set.union(Set::range(lo, hi));
                }
            }
            Member::Char(other) => {
                set = set.union(Set::of(other));
                prev = Some(other);
            }
        }
    }
    Some(if class.negated { set.complement() } else { set })
}

/// The byte span of the first group of `pattern` that can backtrack
/// catastrophically (see the module doc), if any.
pub fn catastrophic_group(pattern: &str, flags: &str) -> Option<(usize, usize)> {
    let unicode = flags.contains(['u', 'v']);
    let alts = parse(pattern, flags.contains('i'), flags.contains('s'), unicode)?;
    alts.iter().flatten().find_map(hazard)
}

/// The first hazardous group in `node` (itself or nested).
fn hazard(node: &Node) -> Option<(usize, usize)> {
    let Node::Group {
        alts,
        max,
        span,
        zero_width,
        ..
    } = node
    else {
        return None;
    };
    let many = max.is_none_or(|m| m >= 10);
    if many && !zero_width && (alts.iter().any(|alt| ambiguous(alt)) || cut_two_ways(alts)) {
        return Some(*span);
    }
    alts.iter().flatten().find_map(hazard)
}

/// One way through a group's body, a set per character.
type Word = Vec<Set>;

/// Most words a body is written out to, and most characters a word holds.
const MAX_WORDS: usize = 32;
const MAX_WORD_LEN: usize = 16;

/// True when some text is a run of the body's words (`alts`, one iteration
/// each) in two ways: they do not form a code (Sardinas–Patterson). Every
/// path through the body is its own word, so two paths matching one text
/// count; an empty word is left out (JavaScript ends a repeat on an empty
/// iteration).
fn cut_two_ways(alts: &[Vec<Node>]) -> bool {
    let mut words: Vec<Word> = Vec::new();
    for alt in alts {
        // An alternative that cannot be written out is left out: fewer words
        // can only hide a cut, never invent one.
        if let Some(ws) = seq_words(alt)
            && words.len() + ws.len() <= MAX_WORDS
        {
            words.extend(ws.into_iter().filter(|w| !w.is_empty()));
        }
    }
    // Dangling suffixes, each a (word, offset); and whether two words met.
    let mut seen: std::collections::HashSet<(usize, usize)> = Default::default();
    let mut todo: Vec<(usize, usize)> = Vec::new();
    let mut dangle = |w: usize, at: usize, todo: &mut Vec<(usize, usize)>| -> bool {
        if at == words[w].len() {
            return true;
        }
        if seen.insert((w, at)) {
            todo.push((w, at));
        }
        false
    };
    for (i, u) in words.iter().enumerate() {
        for (j, v) in words.iter().enumerate() {
            if i != j && u.len() <= v.len() && prefix_of(u, v) && dangle(j, u.len(), &mut todo) {
                return true;
            }
        }
    }
    while let Some((w, at)) = todo.pop() {
        let s = &words[w][at..];
        for (j, v) in words.iter().enumerate() {
            let hit = if s.len() <= v.len() {
                prefix_of(s, v) && dangle(j, s.len(), &mut todo)
            } else {
                prefix_of(v, s) && dangle(w, at + v.len(), &mut todo)
            };
            if hit {
                return true;
            }
        }
    }
    false
}

/// True when a text can match both `u` and the start of `v` (`u` no longer).
fn prefix_of(u: &[Set], v: &[Set]) -> bool {
    u.iter().zip(v).all(|(a, b)| a.surely_overlaps(*b))
}

/// Every way through `seq` as words, a few counts per repeat (at least
/// one, at most two past its minimum); `None` when it cannot be written out
/// within the bounds.
fn seq_words(seq: &[Node]) -> Option<Vec<Word>> {
    let mut out: Vec<Word> = vec![Vec::new()];
    for node in seq {
        let (units, min, max) = match node {
            Node::Atom { set, min, max } => (vec![vec![*set]], *min, *max),
            Node::Group {
                alts,
                min,
                max,
                zero_width: false,
                ..
            } => {
                let mut units = Vec::new();
                for alt in alts {
                    units.extend(seq_words(alt)?);
                }
                (units, *min, *max)
            }
            Node::Group { .. } | Node::Assert => return None,
        };
        let top = max.unwrap_or(u32::MAX).min(min.saturating_add(2));
        if min as usize > MAX_WORD_LEN {
            return None;
        }
        // Each count's words: `units` repeated that many times.
        let mut counts: Vec<Word> = Vec::new();
        let mut layer: Vec<Word> = vec![Vec::new()];
        for count in 0..=top {
            if count >= min {
                counts.extend(layer.iter().cloned());
            }
            if count == top {
                break;
            }
            let mut next = Vec::new();
            for w in &layer {
                for u in &units {
                    if next.len() >= MAX_WORDS {
                        return None;
                    }
                    next.push(w.iter().chain(u).copied().collect::<Word>());
                }
            }
            layer = next;
        }
        let mut joined = Vec::new();
        for w in &out {
            for c in &counts {
                if joined.len() >= MAX_WORDS || w.len() + c.len() > MAX_WORD_LEN {
                    return None;
                }
                joined.push(w.iter().chain(c).copied().collect::<Word>());
            }
        }
        out = joined;
    }
    Some(out)
}

/// True when a run of some variable repeat's characters in `seq` (one
/// iteration's body) could be cut between iterations in more than one way.
fn ambiguous(seq: &[Node]) -> bool {
    let flat = flatten(seq);
    flat.iter().enumerate().any(|(i, x)| {
        if !x.holds_variable() {
            return false;
        }
        let chars = x.chars();
        let lets_through = |n: &&Node| n.may_be_empty() || n.chars().overlaps(chars);
        flat[..i].iter().all(lets_through) && flat[i + 1..].iter().all(lets_through)
    })
}

/// `seq` with plain groups (one alternative, once, not a lookaround) opened.
fn flatten(seq: &[Node]) -> Vec<&Node> {
    let mut out = Vec::new();
    for node in seq {
        match node {
            Node::Group {
                alts,
                min: 1,
                max: Some(1),
                zero_width: false,
                ..
            } if alts.len() == 1 => out.extend(flatten(&alts[0])),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(pattern: &str) -> Option<&str> {
        catastrophic_group(pattern, "").map(|(a, b)| &pattern[a..b])
    }

    #[test]
    fn nested_repeats_that_can_split_are_flagged() {
        assert_eq!(flagged("(a+)+$"), Some("(a+)+"));
        assert_eq!(flagged("^(a*)*b"), Some("(a*)*"));
        assert_eq!(flagged(r"(\w+\s?)+$"), Some(r"(\w+\s?)+"));
        assert_eq!(flagged(r"x(?:\s*\w+)*y"), Some(r"(?:\s*\w+)*"));
        assert_eq!(flagged("(.*a){20}"), Some("(.*a){20}"));
        assert_eq!(flagged(r"(\d{1,3},?)+"), Some(r"(\d{1,3},?)+"));
        assert_eq!(flagged("(a?a)+$"), Some("(a?a)+"));
        assert_eq!(flagged("((a+)b?)+"), Some("((a+)b?)+"));
        assert_eq!(flagged("(?=x)((?:ab)+c?)*"), Some("((?:ab)+c?)*"));
        assert!(flagged("(A+)+").is_some());
        assert_eq!(catastrophic_group("(a+A)+", "i"), Some((0, 6)));
    }

    #[test]
    fn overlapping_alternatives_are_flagged() {
        for (pattern, group) in [
            (
                r#"(?:[\w":{}-]|[\w":{}-])*!"#,
                r#"(?:[\w":{}-]|[\w":{}-])*"#,
            ),
            (r"x(?:\w|\d)+y", r"(?:\w|\d)+"),
            (r"(.|\s)*$", r"(.|\s)*"),
            ("(a|aa)+$", "(a|aa)+"),
            ("(?:ab|ba|a)*c", "(?:ab|ba|a)*"),
            ("(?:(?:a|a)b)*c", "(?:(?:a|a)b)*"),
            (r"(?:[\w-]|[\w:]){10,}", r"(?:[\w-]|[\w:]){10,}"),
            ("(?:ab?|a)*c", "(?:ab?|a)*"),
            ("(?:[^a]|é)*", "(?:[^a]|é)*"),
            (r"(?:\W|\S)+", r"(?:\W|\S)+"),
        ] {
            assert_eq!(flagged(pattern), Some(group), "{pattern}");
        }
        // Repeated a few times only: a few ways, not many.
        assert_eq!(flagged("(?:a|a){3}"), None);
    }

    #[test]
    fn unambiguous_repeats_pass() {
        for safe in [
            r#""skill"\s*:\s*"(?:[\w-]+:)?commit""#,
            r"^\W{0,3}(feat|fix)(\([a-z0-9._/-]+\))?!?: \S.{0,70}$",
            "(ab+)+",
            r"([\w-]+:)*x",
            r"(\d+,)*\d+",
            r"(\d{3},?)+",
            "(a+){2}",
            r"(?:\s*,\s*\w+)*",
            "(a+)?",
            "a+b+c+",
            "(a|ab)+",
            "(?:ab|ba)*",
            r"(?:\w|-)+",
            "(?:é|ü)+",
            r"(?:\s|\S)*",
            r"(?:.|\n)*",
            r#"(?:[^"\\]|\\.)*"#,
            r#"(?:[^"]|\\")*"#,
            "(?:x|(?=a)a|a)*",
            "[(a+)+]",
            r"\(a+\)+",
            "(a+A)+",
        ] {
            assert_eq!(flagged(safe), None, "{safe}");
        }
    }

    #[test]
    fn classes_and_escapes_are_read() {
        let set = |pattern: &str| -> Set {
            match tokens_in(pattern, false).next().map(|t| t.kind) {
                Some(Kind::Class(c)) => class(&c).expect("closed"),
                other => panic!("not a class: {other:?}"),
            }
        };
        let s = set(r"[a-c\d]");
        assert!(s.overlaps(Set::of('b')) && s.overlaps(Set::of('7')));
        assert!(!s.overlaps(Set::of('x')));
        let s = set("[^:]");
        assert!(!s.overlaps(Set::of(':')) && s.overlaps(Set::of('a')));
        assert!(matches!(escape(Escape::Numbered), Escaped::Set(Set::ALL)));
        // A literal `{` is a character, not a quantifier.
        assert_eq!(flagged("(a{x)+"), None);
        assert_eq!(flagged("(a{2,})+"), Some("(a{2,})+"));
        // `\p{L}` is a property only under `u`.
        assert_eq!(catastrophic_group(r"(\p{L}+)+", "u"), Some((0, 9)));
        assert_eq!(flagged(r"(\p{L}+)+"), None);
    }
}
