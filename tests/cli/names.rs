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
