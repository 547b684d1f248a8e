//! Loading one case: `prompt.md`, `case.yaml` and its grader files, merged as
//! the platform merges them.

use super::{
    BTreeMap, BTreeSet, CASE_EXECUTION_KEYS, CASE_YAML_KEYS, CONTEXT_KEYS, Case, CaseSource,
    Diagnostic, EXECUTION_KEYS, Entry, Grader, GraderKind, HashMap, Scan, Section, TOP_KEYS,
    UnknownKey, Utf8Path, Utf8PathBuf, Value, key_lines, key_string, parse_yaml, problem, read,
    read_markdown,
};
use crate::diagnostic::Code;

/// The mapping items of a YAML value with their lines under `prefix`.
pub(super) fn entries_of(
    map: &serde_norway::Mapping,
    file: &Utf8Path,
    lines: &HashMap<String, usize>,
    prefix: &str,
) -> Vec<(String, Entry)> {
    map.iter()
        .map(|(k, v)| {
            let key = key_string(k);
            let line = lines.get(&format!("{prefix}{key}")).copied();
            (
                key,
                Entry {
                    value: v.clone(),
                    file: file.to_owned(),
                    line,
                },
            )
        })
        .collect()
}

/// The keys and graders of one case as its files set them, merged as the
/// platform merges them (`case.yaml` first, `prompt.md` over it); the fields
/// are those of [`Case`].
#[derive(Default)]
pub(super) struct CaseKeys {
    pub(super) top: BTreeMap<String, Entry>,
    pub(super) execution: BTreeMap<String, Entry>,
    pub(super) context: BTreeMap<String, Entry>,
    pub(super) graders: Vec<Grader>,
    pub(super) ignored_graders: Vec<Utf8PathBuf>,
    pub(super) unknown_keys: Vec<UnknownKey>,
}

/// Load one case folder: `case.yaml`, then `prompt.md` over it, then
/// `graders/*.md` after the graders of `case.yaml`. What cannot be read goes to
/// `problems` and marks the case broken; so does a file the scan `refused`
/// (reported there, never opened).
pub(super) fn load_case(
    dir: &Utf8Path,
    has_yaml: bool,
    has_prompt: bool,
    scan: &Scan,
    problems: &mut Vec<Diagnostic>,
) -> Case {
    let refused = &scan.refused;
    let before = problems.len();
    let case_file = has_yaml.then(|| dir.join("case.yaml"));
    let prompt_file = has_prompt.then(|| dir.join("prompt.md"));

    let mut keys = CaseKeys::default();
    let mut unread = false;
    if let Some(path) = &case_file {
        if refused.contains(path) {
            unread = true;
        } else {
            read_case_yaml(path, &mut keys, problems);
        }
    }
    if let Some(path) = &prompt_file {
        if refused.contains(path) {
            unread = true;
        } else {
            read_prompt_md(path, &mut keys, problems);
        }
    }
    unread |= load_grader_files(dir, &mut keys, scan, problems);

    let source = match (&case_file, &prompt_file) {
        (Some(_), Some(_)) => CaseSource::Mixed,
        (Some(_), None) => CaseSource::CaseYaml,
        _ => CaseSource::Prose,
    };
    let name = keys
        .top
        .get("name")
        .and_then(Entry::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| dir.file_name().unwrap_or("case").to_owned());
    Case {
        name,
        dir: dir.to_owned(),
        source,
        prompt_file,
        case_file,
        top: keys.top,
        execution: keys.execution,
        context: keys.context,
        graders: keys.graders,
        ignored_graders: keys.ignored_graders,
        unknown_keys: keys.unknown_keys,
        broken: unread || problems.len() > before,
    }
}

/// Read `case.yaml` into `keys`: its top-level keys, its `execution:` and
/// `context:` sections, and its `graders:` list. Unknown keys are noted (the
/// platform drops them without a word).
pub(super) fn read_case_yaml(path: &Utf8Path, keys: &mut CaseKeys, problems: &mut Vec<Diagnostic>) {
    let Some(text) = read(path, problems) else {
        return;
    };
    let map = match parse_yaml(&text, path, 1) {
        Err(d) => {
            problems.push(d);
            return;
        }
        Ok(Value::Null) => return,
        Ok(Value::Mapping(map)) => map,
        Ok(_) => {
            problems.push(problem(
                Code::NotAMapping,
                path,
                Some(1),
                "case.yaml is not a YAML mapping".into(),
                "write case.yaml as `key: value` lines (schema_version, name, execution, graders, …)",
            ));
            return;
        }
    };
    let lines = key_lines(&text, 1);
    for (key, entry) in entries_of(&map, path, &lines, "") {
        match key.as_str() {
            "execution" => read_case_section(
                path,
                &lines,
                &key,
                &entry,
                Section::CaseExecution,
                keys,
                problems,
            ),
            "context" => read_case_section(
                path,
                &lines,
                &key,
                &entry,
                Section::CaseContext,
                keys,
                problems,
            ),
            "graders" => read_case_yaml_graders(path, &lines, &entry, &mut keys.graders, problems),
            _ => {
                if !CASE_YAML_KEYS.contains(&key.as_str()) {
                    keys.unknown_keys.push(UnknownKey {
                        key: key.clone(),
                        section: Section::CaseTop,
                        file: path.to_owned(),
                        line: entry.line,
                    });
                }
                keys.top.insert(key, entry);
            }
        }
    }
}

/// Read the `execution:` or `context:` mapping of `case.yaml` (`entry`, under
/// `key`) into its section of `keys`, noting the keys that section does not know.
pub(super) fn read_case_section(
    path: &Utf8Path,
    lines: &HashMap<String, usize>,
    key: &str,
    entry: &Entry,
    section: Section,
    keys: &mut CaseKeys,
    problems: &mut Vec<Diagnostic>,
) {
    let (target, known): (_, &[&str]) = if section == Section::CaseExecution {
        (&mut keys.execution, &CASE_EXECUTION_KEYS)
    } else {
        (&mut keys.context, &CONTEXT_KEYS)
    };
    match &entry.value {
        Value::Mapping(inner) => {
            for (k, e) in entries_of(inner, path, lines, &format!("{key}.")) {
                if !known.contains(&k.as_str()) {
                    keys.unknown_keys.push(UnknownKey {
                        key: k.clone(),
                        section,
                        file: path.to_owned(),
                        line: e.line,
                    });
                }
                target.insert(k, e);
            }
        }
        Value::Null => {}
        _ => problems.push(problem(
            Code::WrongType,
            path,
            entry.line,
            format!("`{key}` must be a mapping of keys"),
            "write it as indented `key: value` lines",
        )),
    }
}

/// Read the `graders:` list of `case.yaml` (`entry`): each item a grader named
/// by its `name:`, else by its position.
pub(super) fn read_case_yaml_graders(
    path: &Utf8Path,
    lines: &HashMap<String, usize>,
    entry: &Entry,
    graders: &mut Vec<Grader>,
    problems: &mut Vec<Diagnostic>,
) {
    let items = match &entry.value {
        Value::Sequence(items) => items,
        Value::Null => return,
        _ => {
            problems.push(problem(
                Code::WrongType,
                path,
                entry.line,
                "`graders` must be a list".into(),
                "write each grader as a `- name: …` item",
            ));
            return;
        }
    };
    for (i, item) in items.iter().enumerate() {
        let at = format!("graders.{i}");
        let line = lines.get(&at).copied();
        let Value::Mapping(gmap) = item else {
            problems.push(problem(
                Code::WrongType,
                path,
                line,
                format!("grader #{} is not a mapping", i + 1),
                "write each grader as `- name: …` with `type:` and its keys",
            ));
            continue;
        };
        let fields: BTreeMap<String, Entry> = entries_of(gmap, path, lines, &format!("{at}."))
            .into_iter()
            .collect();
        let name = fields
            .get("name")
            .and_then(Entry::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| format!("grader #{}", i + 1));
        graders.push(Grader {
            name,
            file: path.to_owned(),
            line,
            fields,
        });
    }
}

/// Read `prompt.md` over `keys`: each frontmatter key lands at the top level
/// or under `execution` (an unknown one is noted: the platform refuses it),
/// and the body, unless blank, is the prompt.
pub(super) fn read_prompt_md(path: &Utf8Path, keys: &mut CaseKeys, problems: &mut Vec<Diagnostic>) {
    let Some(text) = read(path, problems) else {
        return;
    };
    let Some(fm) = read_markdown(path, &text, problems) else {
        return;
    };
    let prompt = fm.body_entry(path);
    for (key, entry) in fm.keys {
        if TOP_KEYS.contains(&key.as_str()) {
            keys.top.insert(key, entry);
        } else if EXECUTION_KEYS.contains(&key.as_str()) {
            merge_execution_key(&mut keys.execution, key, entry);
        } else {
            keys.unknown_keys.push(UnknownKey {
                key,
                section: Section::PromptFrontmatter,
                file: path.to_owned(),
                line: entry.line,
            });
        }
    }
    if let Some(prompt) = prompt {
        keys.execution.insert("prompt".into(), prompt);
    }
}

/// Set a `prompt.md` execution key over `case.yaml`'s: a `disallowed_tools`
/// list is appended to a `case.yaml` list, any other key replaces.
pub(super) fn merge_execution_key(
    execution: &mut BTreeMap<String, Entry>,
    key: String,
    entry: Entry,
) {
    if key == "disallowed_tools"
        && let Some(old) = execution.get("disallowed_tools")
        && let (Value::Sequence(a), Value::Sequence(b)) = (&old.value, &entry.value)
    {
        let mut merged = a.clone();
        merged.extend(b.iter().cloned());
        execution.insert(
            key,
            Entry {
                value: Value::Sequence(merged),
                ..entry
            },
        );
        return;
    }
    execution.insert(key, entry);
}

/// What a `graders` folder the scan did not list holds.
pub(super) enum Listing {
    /// Its regular files (not refused), and whether a refused one was left out.
    Files(Vec<String>, bool),
    /// There is no `graders` folder (or a file in its place, reported here).
    None,
    /// It cannot be read (a link, a FIFO, an unreadable folder: the scan says so).
    Unread,
}

/// List `gdir` when the scan did not (it is missing, not a folder, refused,
/// or deeper than the scan went).
pub(super) fn listed_grader_files(
    gdir: &Utf8Path,
    refused: &BTreeSet<Utf8PathBuf>,
    problems: &mut Vec<Diagnostic>,
) -> Listing {
    match std::fs::symlink_metadata(gdir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Listing::None,
        Ok(m) if m.is_dir() => {}
        Ok(m) if !m.is_file() => return Listing::Unread,
        _ if refused.contains(gdir) => return Listing::Unread,
        Ok(_) | Err(_) => {
            problems.push(problem(
                Code::Unreadable,
                gdir,
                None,
                "graders is not a folder".into(),
                "make graders/ a folder of .md files",
            ));
            return Listing::None;
        }
    }
    let Ok(entries) = std::fs::read_dir(gdir) else {
        return Listing::Unread;
    };
    let mut skipped = false;
    let mut files: Vec<String> = Vec::new();
    for entry in entries.filter_map(|e| e.ok()) {
        // Names that are not UTF-8 are reported by the scan.
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if !name.ends_with(".md") || entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        if refused.contains(&gdir.join(&name)) || !entry.file_type().is_ok_and(|t| t.is_file()) {
            skipped = true;
        } else {
            files.push(name);
        }
    }
    Listing::Files(files, skipped)
}

/// Append the graders of `graders/*.md` (in name order) to `keys.graders`; a
/// file without frontmatter goes to `keys.ignored_graders` (the platform skips
/// it). True when a grader file was left unread because the scan `refused` it
/// (or could not list graders/).
pub(super) fn load_grader_files(
    dir: &Utf8Path,
    keys: &mut CaseKeys,
    scan: &Scan,
    problems: &mut Vec<Diagnostic>,
) -> bool {
    let gdir = dir.join("graders");
    let refused = &scan.refused;
    let unread;
    let mut files: Vec<String> = match scan.graders.get(&gdir) {
        // Listed by the scan: its regular files, none refused.
        Some(files) => {
            unread = refused
                .iter()
                .any(|p| p.parent() == Some(gdir.as_path()) && p.as_str().ends_with(".md"));
            files.clone()
        }
        None => match listed_grader_files(&gdir, refused, problems) {
            Listing::Files(files, skipped) => {
                unread = skipped;
                files
            }
            Listing::None => return false,
            Listing::Unread => return true,
        },
    };
    files.retain(|n| n.ends_with(".md"));
    files.sort();
    for file in files {
        let path = gdir.join(&file);
        let Some(text) = read(&path, problems) else {
            continue;
        };
        let Some(fm) = read_markdown(&path, &text, problems) else {
            continue;
        };
        if !fm.had {
            keys.ignored_graders.push(path);
            continue;
        }
        let body = fm.body_entry(&path);
        let mut fields: BTreeMap<String, Entry> = fm.keys.into_iter().collect();
        if let Some(key) = fields
            .get("type")
            .and_then(Entry::as_str)
            .and_then(GraderKind::parse)
            .and_then(GraderKind::body_key)
            && !fields.contains_key(key)
            && let Some(body) = body
        {
            fields.insert(key.into(), body);
        }
        let stem = file.trim_end_matches(".md").to_owned();
        let name = fields
            .get("name")
            .and_then(Entry::as_str)
            .map(str::to_owned)
            .unwrap_or(stem);
        keys.graders.push(Grader {
            name,
            file: path,
            line: Some(1),
            fields,
        });
    }
    unread
}
