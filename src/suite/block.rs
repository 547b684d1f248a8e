//! The quick path for the nested YAML a `case.yaml` holds: block mappings
//! nested by indentation (`execution:` over its keys) and block sequences
//! of mappings or scalars (`graders:` over `- name: …` items), every value
//! one of the one-line shapes [`super::flat`] reads. `check` reads one such
//! file per case, and the full parser cost it a tenth of its time.
//!
//! [`parse_block`] gives what `serde_norway` gives for the same text, or
//! `None` for the full parser to read it: any layout outside the one above
//! (a sequence at its key's indentation, a value continued on the next line,
//! a blank line of spaces, nesting deeper than the parser's limit, and
//! whatever [`super::flat`] refuses in a value) is never guessed at. A
//! property test holds it to the parser.

use super::flat::{plain_char, split_key, value};
use super::frontmatter::MAX_YAML_DEPTH;
use serde_norway::{Mapping, Value};

/// A non-empty line: its indentation (spaces) and what follows it.
#[derive(Clone, Copy)]
struct Indented<'a> {
    indent: usize,
    text: &'a str,
}

/// The mapping `text` holds, when its layout is the one the module docs
/// describe; `None` when the full parser must read it.
pub(super) fn parse_block(text: &str) -> Option<Value> {
    if !text.chars().all(plain_char) {
        return None;
    }
    let mut lines = Vec::new();
    for line in text.split('\n') {
        if line.is_empty() {
            continue;
        }
        let body = line.trim_start_matches(' ');
        if body.is_empty() {
            return None;
        }
        lines.push(Indented {
            indent: line.len() - body.len(),
            text: body,
        });
    }
    if lines.first()?.indent != 0 {
        return None;
    }
    let mut at = 0;
    let map = mapping(&mut lines, &mut at, 0, 0)?;
    (at == lines.len() && !map.is_empty()).then_some(Value::Mapping(map))
}

/// The block mapping whose keys start at `indent`, from line `at` on.
fn mapping(lines: &mut [Indented], at: &mut usize, indent: usize, depth: usize) -> Option<Mapping> {
    if depth >= MAX_YAML_DEPTH {
        return None;
    }
    let mut map = Mapping::new();
    while let Some(line) = lines.get(*at).copied() {
        if line.indent < indent {
            break;
        }
        if line.indent > indent || line.text.starts_with('-') {
            return None;
        }
        let (key, rest) = split_key(line.text)?;
        let key = Value::String(key.to_owned());
        if map.contains_key(&key) {
            return None;
        }
        *at += 1;
        let rest = rest.trim_matches(' ');
        let v = if rest.is_empty() {
            nested(lines, at, indent, depth)?
        } else {
            value(rest)?
        };
        if !rest.is_empty() && lines.get(*at).is_some_and(|next| next.indent > indent) {
            return None;
        }
        map.insert(key, v);
    }
    Some(map)
}

/// The value of a `key:` with nothing after it at `indent`: a mapping or a
/// sequence on the deeper lines that follow, or null.
fn nested(lines: &mut [Indented], at: &mut usize, indent: usize, depth: usize) -> Option<Value> {
    let Some(next) = lines.get(*at).copied() else {
        return Some(Value::Null);
    };
    if next.indent <= indent {
        // A sequence at the key's own indentation is YAML too; left to the parser.
        return (!next.text.starts_with('-')).then_some(Value::Null);
    }
    if next.text.starts_with('-') {
        sequence(lines, at, next.indent, depth + 1).map(Value::Sequence)
    } else {
        mapping(lines, at, next.indent, depth + 1).map(Value::Mapping)
    }
}

/// The block sequence whose `- ` marks sit at `indent`, from line `at` on.
fn sequence(
    lines: &mut [Indented],
    at: &mut usize,
    indent: usize,
    depth: usize,
) -> Option<Vec<Value>> {
    if depth >= MAX_YAML_DEPTH {
        return None;
    }
    let mut items = Vec::new();
    while let Some(line) = lines.get(*at).copied() {
        if line.indent < indent {
            break;
        }
        if line.indent > indent {
            return None;
        }
        let item = line.text.strip_prefix("- ")?;
        if item.is_empty() || item.starts_with([' ', '-']) {
            return None;
        }
        if split_key(item).is_some() {
            // `- key: …`: a mapping whose keys start where this one does.
            lines[*at] = Indented {
                indent: indent + 2,
                text: item,
            };
            items.push(Value::Mapping(mapping(lines, at, indent + 2, depth + 1)?));
        } else {
            *at += 1;
            if lines.get(*at).is_some_and(|next| next.indent > indent) {
                return None;
            }
            items.push(value(item.trim_end_matches(' '))?);
        }
    }
    Some(items)
}

#[cfg(test)]
mod tests {
    use super::parse_block;
    use proptest::prelude::*;
    use serde_norway::Value;

    fn full(text: &str) -> Option<Value> {
        serde_norway::from_str::<Value>(text).ok()
    }

    #[test]
    fn a_case_yaml_takes_the_quick_path_and_reads_as_the_parser_reads_it() {
        for text in [
            "schema_version: \"1.1\"\nname: yaml\nruns: 2\nexecution:\n  prompt: Explain the thing.\n  max_turns: 4\n  env:\n    EVAL_MODE: fast\ngraders:\n  - name: mentions\n    type: regex\n    pattern: '\\bthing\\b'\n    flags: i\n",
            "graders:\n    - name: a\n      env:\n        K: v\n    - b\n    - [x, y]\nafter: 1\n",
            "a:\nb:\n  c:\n  d: 1\n",
            "flat: word\n",
        ] {
            let quick = parse_block(text);
            assert!(quick.is_some(), "not on the quick path: {text:?}");
            assert_eq!(quick, full(text), "{text:?}");
        }
    }

    #[test]
    fn other_layouts_are_left_to_the_parser() {
        for text in [
            "",
            "graders:\n- name: a\n",
            "a: b\n  c\n",
            "a:\n  - x\n    y\n",
            "a:\n  b: 1\n c: 2\n",
            "a:\n  - - x\n",
            "a:\n  -  x: 1\n",
            "a:\n  - x: 1\n     y: 2\n",
            "a: 1\n  \nb: 2\n",
            " a: 1\n",
            "a: 1\na: 2\n",
            "a:\n  b: 1 # note\n",
            "a:\n  b: |\n    text\n",
            "a:\n  -\n",
            "- a\n",
        ] {
            assert_eq!(parse_block(text), None, "{text:?}");
        }
        let deep: String = (0..80).map(|d| format!("{}k:\n", " ".repeat(d))).collect();
        assert_eq!(parse_block(&deep), None);
    }

    /// Lines at small indentations built from pieces at YAML's edges: keys
    /// alone or with values, sequence marks, scalars, quotes, colons.
    fn line() -> impl Strategy<Value = String> {
        let indent = prop::sample::select(vec![0usize, 0, 0, 1, 2, 2, 2, 3, 4, 4, 6]);
        let dash = prop::sample::select(vec!["", "", "", "", "- ", "- ", "-", "-  ", "- - "]);
        let key = prop::sample::select(vec!["a", "b", "c", "name", "true", "k-2", "0a", ""]);
        let sep = prop::sample::select(vec![": ", ": ", ": ", ":", ":", " : ", ""]);
        let value = prop::collection::vec(
            prop::sample::select(vec![
                "word", "word", "12", "'q'", "[x]", "Null", "0", "07", "1.5", "'", "''", "\"", "[",
                "]", ",", " ", ": ", ":", "-", "#", "{", "}", "&", "*", "|", ">", "x y",
            ]),
            0..3,
        )
        .prop_map(|parts| parts.concat());
        (indent, dash, key, sep, value)
            .prop_map(|(i, d, k, s, v)| format!("{}{d}{k}{s}{v}", " ".repeat(i)))
    }

    /// Block YAML as a writer lays it out: nested mappings and sequences at
    /// a random step of indentation, so most of it is on the quick path.
    fn tree(depth: u32) -> BoxedStrategy<Vec<(usize, String)>> {
        let scalar =
            prop::sample::select(vec!["word", "12", "'q: x'", "\"s\"", "[a, b]", "true", ""]);
        let leaf = (prop::sample::select(vec!["a", "b", "c"]), scalar)
            .prop_map(|(k, v)| vec![(0, format!("{k}: {v}"))])
            .boxed();
        if depth == 0 {
            return leaf;
        }
        let step = prop::sample::select(vec![1usize, 2, 4]);
        let child = tree(depth - 1);
        let nested = (
            prop::sample::select(vec!["e", "f"]),
            step,
            prop::bool::ANY,
            child,
        )
            .prop_map(|(k, step, as_seq, body)| {
                let mut out = vec![(0, format!("{k}:"))];
                for (n, (i, t)) in body.into_iter().enumerate() {
                    let t = if as_seq && n == 0 {
                        format!("- {t}")
                    } else {
                        t
                    };
                    let shift = if as_seq && n > 0 { step + 2 } else { step };
                    out.push((i + shift, t));
                }
                out
            });
        prop::collection::vec(prop_oneof![leaf, nested.boxed()], 1..4)
            .prop_map(|parts| parts.concat())
            .boxed()
    }

    proptest! {
        // Measured: about half the laid-out trees and 0.4 % of the random
        // lines take the quick path, so each runs 2,000 cases.
        #![proptest_config(ProptestConfig::with_cases(2_000))]

        #[test]
        fn the_quick_path_never_reads_otherwise_than_the_parser(
            lines in prop::collection::vec(line(), 1..7),
        ) {
            let text = lines.join("\n") + "\n";
            if let Some(quick) = parse_block(&text) {
                prop_assert_eq!(Some(quick), full(&text), "{:?}", text);
            }
        }

        #[test]
        fn laid_out_trees_read_as_the_parser_reads_them(lines in tree(3)) {
            let text: String = lines.iter().map(|(i, t)| format!("{}{t}\n", " ".repeat(*i))).collect();
            if let Some(quick) = parse_block(&text) {
                prop_assert_eq!(Some(quick), full(&text), "{:?}", text);
            }
        }
    }
}
