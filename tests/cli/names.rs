//! Every type name under `src/` is defined once (a struct, enum, type alias
//! or trait, public or not), so a name found in the code means one thing.
//! A line scan: a definition is a line that begins (after its visibility)
//! with `struct`, `enum`, `type` or `trait` and a capitalised name. An
//! indented `type` line without a visibility is an associated type
//! (`type Err = …` in an impl, `type Error;` in a trait), the trait's name
//! rather than a new one, and is not counted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The type name a line defines, if it defines one.
fn defined(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    let indented = trimmed.len() < line.len();
    let (public, rest) = match trimmed.strip_prefix("pub") {
        Some(after) if after.starts_with(' ') => (true, after.trim_start()),
        Some(after) if after.starts_with('(') => (true, after[after.find(')')? + 1..].trim_start()),
        _ => (false, trimmed),
    };
    let (keyword, rest) = rest.split_once(' ')?;
    if !matches!(keyword, "struct" | "enum" | "type" | "trait") {
        return None;
    }
    if keyword == "type" && indented && !public {
        return None;
    }
    let end = rest
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(rest.len());
    let name = &rest[..end];
    name.starts_with(|c: char| c.is_ascii_uppercase())
        .then_some(name)
}

/// Each type name defined under `src/` with where (`file:line`).
fn definitions() -> BTreeMap<String, Vec<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = vec![];
    files(&root.join("src"), &mut all);
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for path in all {
        let text = std::fs::read_to_string(&path).unwrap();
        let file = path.strip_prefix(root).unwrap().display().to_string();
        for (n, line) in text.lines().enumerate() {
            if let Some(name) = defined(line) {
                found
                    .entry(name.to_string())
                    .or_default()
                    .push(format!("{file}:{}", n + 1));
            }
        }
    }
    found
}

#[test]
fn every_type_name_is_defined_once() {
    let found = definitions();
    assert!(
        found.contains_key("SkillEval"),
        "the scan found no types: {found:?}"
    );
    let twice: Vec<String> = found
        .iter()
        .filter(|(_, at)| at.len() > 1)
        .map(|(name, at)| format!("{name}: {}", at.join(", ")))
        .collect();
    assert!(
        twice.is_empty(),
        "type names defined more than once (rename one, or merge them):\n{}",
        twice.join("\n")
    );
}

#[test]
fn the_scan_reads_definitions_not_associated_types() {
    assert_eq!(defined("pub struct Entry {"), Some("Entry"));
    assert_eq!(defined("    pub(crate) enum Side {"), Some("Side"));
    assert_eq!(defined("struct Frame(u64);"), Some("Frame"));
    assert_eq!(defined("pub type Read = (Item, u8);"), Some("Read"));
    assert_eq!(defined("pub trait Sampler {"), Some("Sampler"));
    assert_eq!(defined("    type Err = String;"), None);
    assert_eq!(defined("    type Error;"), None);
    assert_eq!(defined("// struct Commented {"), None);
    assert_eq!(defined("let struct_name = 1;"), None);
}

/// The text of a source file before its inline `#[cfg(test)] mod … {`.
fn before_tests(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let end = (0..lines.len())
        .find(|&i| {
            lines[i].trim() == "#[cfg(test)]"
                && lines.get(i + 1).is_some_and(|next| {
                    let next = next.trim_start();
                    let next = next.split_once(") ").map_or(next, |(vis, rest)| {
                        if vis.starts_with("pub(") { rest } else { next }
                    });
                    let next = next.strip_prefix("pub ").unwrap_or(next);
                    next.starts_with("mod ") && next.ends_with('{')
                })
        })
        .unwrap_or(lines.len());
    lines[..end].join("\n")
}

/// Whether `line` imports with a wildcard (`use a::*;`, `pub use b::*;`).
fn wildcard(line: &str) -> bool {
    let line = line.trim();
    let line = line.strip_prefix("pub").map_or(line, |rest| {
        rest.find("use ").map_or(line, |i| &rest[i..]).trim_start()
    });
    line.starts_with("use ") && line.ends_with("::*;")
}

#[test]
fn no_wildcard_import_outside_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = vec![];
    files(&root.join("src"), &mut all);
    let mut found = vec![];
    for path in all {
        let stem = path.file_stem().unwrap().to_str().unwrap();
        // `tests.rs` and `*_tests.rs`: test modules declared under `#[cfg(test)]`.
        if stem == "tests" || stem.ends_with("_tests") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in before_tests(&text).lines().enumerate() {
            if wildcard(line) {
                let file = path.strip_prefix(root).unwrap().display();
                found.push(format!("{file}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "wildcard imports outside tests (name what is imported or re-exported):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_sees_wildcards_and_where_tests_begin() {
    assert!(wildcard("use super::*;"));
    assert!(wildcard("pub use child::*;"));
    assert!(wildcard("    pub(crate) use child::*;"));
    assert!(!wildcard("use super::{A, b};"));
    assert!(!wildcard("pub use child::{A, B};"));
    let text = "use a::B;\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n";
    assert_eq!(before_tests(text), "use a::B;");
    assert!(!before_tests(text).lines().any(wildcard));
    let text = "use a::B;\n#[cfg(test)]\npub(crate) mod tests {\n    use super::*;\n}\n";
    assert_eq!(before_tests(text), "use a::B;");
}
