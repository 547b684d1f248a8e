//! The item a suite tests, as the platform offers it: exactly one place (an
//! item in both `skills/` and `registry/skills/` is refused by `run`), and a
//! frontmatter the platform reads: a skill's `SKILL.md` with a `name` equal
//! to its folder and a `description`, a command's or agent's `.md` with a
//! `description`. An item the platform does not offer never fires, so every
//! run of its suite would measure nothing.

use super::Out;
use crate::diagnostic::{Code, Diagnostic};
use crate::error::Error;
use crate::item::{Item, ItemKind};
use crate::suite::{self, Entry, Suite};
use camino::{Utf8Path, Utf8PathBuf};
use serde_norway::Value;
use std::sync::LazyLock;

/// Check the item `suite` tests: missing is a warning (the suite may come
/// first), ambiguous or not offered an error.
/// `lookup` is the item's lookup (its file, when found, is known to be one).
pub(super) fn check_item(
    source: &Utf8Path,
    suite: &Suite,
    lookup: &crate::error::Result<Item>,
    out: &mut Out,
) -> Option<Read> {
    let item = &suite.item;
    match lookup {
        Ok(found) => return Some(check_offered(found, out)),
        Err(Error::ItemAmbiguous { found, .. }) => {
            let places: Vec<String> = found
                .iter()
                .map(|p| format!("{}", super::relative(source, p)))
                .collect();
            out.error(
                Code::ItemAmbiguous,
                &suite.dir,
                None,
                format!(
                    "more than one item is named `{item}`: {} (`run` refuses an ambiguous item)",
                    places.join(" and ")
                ),
                "keep one of them: remove or rename the others",
            );
        }
        Err(_) => out.warn(
            Code::NoItem,
            &suite.dir,
            None,
            format!("no item named `{item}` (skills/{item}/SKILL.md, commands/{item}.md, agents/{item}.md)"),
            format!("add skills/{item}/SKILL.md, or rename the suite to the item it tests"),
        ),
    }
    None
}

/// An item's description as [`description`] reads it, with its file and line.
pub(super) type Description = (String, Utf8PathBuf, Option<usize>);

/// What reading an item found: the item and its description, if any (kept
/// for the description check, which would read the file again).
pub(super) type Read = (Item, Option<Description>);

/// The file holding an item's frontmatter.
fn marker(item: &Item) -> Utf8PathBuf {
    match item.kind {
        ItemKind::Skill => item.path.join("SKILL.md"),
        ItemKind::Command | ItemKind::Agent => item.path.clone(),
    }
}

/// Report what keeps the platform from offering `item`.
fn check_offered(item: &Item, out: &mut Out) -> Read {
    let file = marker(item);
    let kind = item.kind.as_str();
    // An item may be a link (the plugin links it too); it is read bounded,
    // and only when it is a regular file (the lookup found it one, and what
    // is opened is looked at again).
    let text = match suite::read_opened(&file, true) {
        Ok(text) => text,
        Err(d) => {
            out.0.push(d);
            return (item.clone(), None);
        }
    };
    let Some(keys) = frontmatter_keys(item, &file, &text, out) else {
        return (item.clone(), None);
    };
    let read = (item.clone(), description_in(&keys, &file));
    let get = |key: &str| keys.iter().find(|(k, _)| k == key).map(|(_, e)| e);
    if item.kind == ItemKind::Skill {
        match text_of(get("name")) {
            Err(why) => out.error(
                Code::ItemMissingKey,
                &file,
                line(get("name")).or(Some(1)),
                format!("the skill's frontmatter {why} `name`, so the platform does not offer it"),
                format!("add name: {}", item.name),
            ),
            Ok(name) if name != item.name => out.error(
                Code::ItemNameMismatch,
                &file,
                line(get("name")),
                format!(
                    "the skill's `name: {}` differs from its folder `{}`, so the platform does not offer it as `{}`",
                    super::clip(name),
                    item.name,
                    item.name
                ),
                format!(
                    "set name: {} (or rename the folder and the suite to the name)",
                    item.name
                ),
            ),
            Ok(_) => {}
        }
    }
    if let Err(why) = text_of(get("description")) {
        out.error(
            Code::ItemMissingKey,
            &file,
            line(get("description")).or(Some(1)),
            format!(
                "the {kind}'s frontmatter {why} `description`, so the platform does not offer it"
            ),
            "add description: what it does and when to use it (the model picks items by it)",
        );
    }
    read
}

/// An item's `description` as the platform reads it (the model picks an item
/// by it), with its file and line; `None` when the platform would not offer
/// the item for want of one (`check_offered` reports why).
pub(super) fn description(item: &Item) -> Option<Description> {
    let file = marker(item);
    let text = suite::read_text(&file, true).ok()?;
    let mut ignored = Vec::new();
    let keys = frontmatter_keys(item, &file, &text, &mut Out(&mut ignored))?;
    description_in(&keys, &file)
}

/// The description among an item's frontmatter `keys` (read from `file`).
fn description_in(keys: &[(String, Entry)], file: &Utf8Path) -> Option<Description> {
    let entry = keys
        .iter()
        .find(|(k, _)| k == "description")
        .map(|(_, e)| e);
    let text = text_of(entry).ok()?.to_owned();
    Some((text, file.to_owned(), line(entry)))
}

/// The keys of an item's frontmatter read as the platform reads them: YAML,
/// and when that fails, YAML again with each `key: value` line whose value
/// holds `: ` or a YAML indicator quoted (and leading tabs as spaces), the
/// platform's own second try. `None` (reported) when it reads no keys.
fn frontmatter_keys(
    item: &Item,
    file: &Utf8Path,
    text: &str,
    out: &mut Out,
) -> Option<Vec<(String, Entry)>> {
    let kind = item.kind.as_str();
    let no_frontmatter = |out: &mut Out, why: &str| {
        let keys = if item.kind == ItemKind::Skill {
            format!("name: {}` and `description: …", item.name)
        } else {
            "description: …".to_string()
        };
        out.error(
            Code::ItemNoFrontmatter,
            file,
            Some(1),
            format!("the {kind} {why}, so the platform does not offer it"),
            format!("start the file with `---`, `{keys}` (what it does and when to use it), `---`"),
        );
    };
    let md = match suite::split_markdown(text) {
        Ok(md) => md,
        Err(suite::Unterminated) => {
            no_frontmatter(out, "frontmatter opens with `---` but never closes");
            return None;
        }
    };
    let Some(fm) = md.frontmatter else {
        no_frontmatter(out, "has no frontmatter");
        return None;
    };
    let first = md.frontmatter_line;
    let value = match suite::parse_yaml(fm, file, first) {
        Ok(value) => value,
        Err(d) => match suite::parse_yaml(&platform_quoted(fm), file, first) {
            Ok(value) => value,
            Err(_) => {
                out.0.push(Diagnostic {
                    message: format!(
                        "{} (the platform ignores the frontmatter, so it does not offer the {kind})",
                        d.message
                    ),
                    ..d
                });
                return None;
            }
        },
    };
    let map = match value {
        Value::Mapping(map) => map,
        Value::Null => serde_norway::Mapping::new(),
        _ => {
            out.error(
                Code::NotAMapping,
                file,
                Some(first),
                format!("the {kind}'s frontmatter is not `key: value` lines, so the platform does not offer it"),
                "write the frontmatter as `key: value` lines (name, description)",
            );
            return None;
        }
    };
    let lines = suite::key_lines(fm, first);
    Some(
        map.into_iter()
            .map(|(k, v)| {
                let key = suite::key_string(&k);
                let line = lines.get(&key).copied();
                let entry = Entry {
                    value: v,
                    file: file.to_owned(),
                    line,
                };
                (key, entry)
            })
            .collect(),
    )
}

/// A `key: value` line the platform quotes on its second try.
static PLAIN_LINE: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"^([a-zA-Z_-]+):\s+(\S[^\r\u{2028}\u{2029}]*)$").expect("fixed regex")
});

/// A value the platform's second try quotes.
static NEEDS_QUOTES: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new(r"[{}\[\]*&#!|>%@`]|: ").expect("fixed regex"));

/// `fm` as the platform retries it: values holding `: ` or a YAML indicator
/// double-quoted (unless quoted already, or a list that parses), leading tabs
/// as two spaces each.
fn platform_quoted(fm: &str) -> String {
    let lines: Vec<String> = fm
        .split('\n')
        .map(|line| {
            let Some(caps) = PLAIN_LINE.captures(line) else {
                return line.to_owned();
            };
            let (key, value) = (&caps[1], &caps[2]);
            let quoted = (value.starts_with('"') && value.ends_with('"'))
                || (value.starts_with('\'') && value.ends_with('\''));
            let list = value.starts_with('[')
                && value.ends_with(']')
                && serde_norway::from_str::<Value>(value).is_ok_and(|v| v.is_sequence());
            if quoted || list || !NEEDS_QUOTES.is_match(value) {
                return line.to_owned();
            }
            let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
            format!("{key}: \"{escaped}\"")
        })
        .collect();
    lines
        .iter()
        .map(|line| {
            let tabs = line.len() - line.trim_start_matches('\t').len();
            format!("{}{}", "  ".repeat(tabs), &line[tabs..])
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A frontmatter value as non-empty text, or why it is not.
fn text_of(entry: Option<&Entry>) -> Result<&str, &'static str> {
    match entry {
        None => Err("has no"),
        Some(e) => match e.as_str() {
            Some(s) if !s.trim().is_empty() => Ok(s),
            Some(_) => Err("has an empty"),
            None => Err("has a non-text"),
        },
    }
}

fn line(entry: Option<&Entry>) -> Option<usize> {
    entry.and_then(|e| e.line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_quoted_as_the_platform_retries() {
        let fm = "name: commit\ndescription: Write it (type(scope): subject). Use: always\nok: 'a: b'\ntags: [a, b]\n\tx: y";
        assert_eq!(
            platform_quoted(fm),
            "name: commit\ndescription: \"Write it (type(scope): subject). Use: always\"\nok: 'a: b'\ntags: [a, b]\n  x: y"
        );
        assert_eq!(
            platform_quoted("a: say \"hi\": \\o/"),
            "a: \"say \\\"hi\\\": \\\\o/\""
        );
    }
}
